// Coordinator: notes and tags on sweeps and runs, and the search across them (core/annotation.h). Each door
// (gRPC, HTTP) reads its request into an AnnotationChange and calls these, so a refusal reads the same.
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "server/coordinator/coordinator.h"

namespace gammalab::coordinator {

absl::StatusOr<Annotation> Coordinator::annotate(const std::string& sweep_id, const std::string& job_id,
                                                 const AnnotationChange& change) {
  try {
    check_annotation_change(change);
  } catch (const std::invalid_argument& e) {
    return absl::InvalidArgumentError(e.what());
  }
  const absl::StatusOr<SweepRecord> sweep = find_sweep(sweep_id);
  if (!sweep.ok()) return sweep.status();
  std::string job;
  if (!job_id.empty()) {
    const absl::StatusOr<JobRecord> found = find_job_of_sweep(*sweep, job_id);
    if (!found.ok()) return found.status();
    job = found->id;
  }
  try {
    Annotation out = store_.annotate(sweep->id, job, change);
    spdlog::info("sweep {}{}: note and tags written ({} tags)", sweep->id, job.empty() ? "" : ", job " + job,
                 out.tags.size());
    return out;
  } catch (const std::invalid_argument& e) {
    return absl::InvalidArgumentError(e.what());
  }
}

absl::StatusOr<std::vector<Annotation>> Coordinator::annotations(const std::string& sweep_id) {
  const absl::StatusOr<SweepRecord> sweep = find_sweep(sweep_id);
  if (!sweep.ok()) return sweep.status();
  return store_.annotations(sweep->id);
}

absl::StatusOr<Coordinator::SearchAnswer> Coordinator::search(const std::string& query, std::size_t limit) {
  if (limit > annotation_limits::kSearchHits) {
    return absl::InvalidArgumentError("limit: at most " + std::to_string(annotation_limits::kSearchHits) +
                                      ", got " + std::to_string(limit));
  }
  try {
    const std::vector<SearchWord> words = search_words(query);
    SearchAnswer out;
    out.hits = store_.search(words, limit == 0 ? annotation_limits::kSearchHits : limit, out.truncated);
    return out;
  } catch (const std::invalid_argument& e) {
    return absl::InvalidArgumentError(e.what());
  }
}

}  // namespace gammalab::coordinator
