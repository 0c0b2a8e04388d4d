// Coordinator: the dashboard's saved views (core/saved_view.h), behind the HTTP API's /api/views routes.
#include <stdexcept>

#include "server/coordinator/coordinator.h"

namespace gammalab::coordinator {

absl::StatusOr<SavedView> Coordinator::save_view(std::int64_t owner, const std::string& name,
                                                 const std::string& sweep_id, const std::string& settings) {
  try {
    check_saved_view(name, settings);
  } catch (const std::invalid_argument& e) {
    return absl::InvalidArgumentError(e.what());
  }
  const absl::StatusOr<SweepRecord> sweep = find_sweep(sweep_id);
  if (!sweep.ok()) return sweep.status();
  try {
    return store_.save_view(owner, name, sweep->id, settings);
  } catch (const std::invalid_argument& e) {
    return absl::InvalidArgumentError(e.what());
  }
}

std::vector<SavedView> Coordinator::views(std::int64_t owner) { return store_.views(owner); }

absl::StatusOr<SavedView> Coordinator::view(const std::string& id) {
  std::optional<SavedView> found = store_.view(id);
  if (!found) return absl::NotFoundError("view '" + id + "' not found");
  return std::move(*found);
}

absl::Status Coordinator::delete_view(std::int64_t owner, const std::string& id) {
  const absl::StatusOr<SavedView> found = view(id);
  if (!found.ok()) return found.status();
  if (found->owner != owner) return absl::PermissionDeniedError("view '" + id + "' is another user's: only they may delete it");
  store_.delete_view(found->id);
  return absl::OkStatus();
}

}  // namespace gammalab::coordinator
