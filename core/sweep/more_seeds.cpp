// `more_seeds:` (core/sweep/more_seeds.h).
#include "core/sweep/more_seeds.h"

#include <algorithm>
#include <string>

namespace gammalab {

namespace {

// The dimension holding the axis `key`, or nullptr.
const SweepAxis* axis_named(const SweepDocument& doc, const std::string& key, std::size_t* dimension) {
  for (std::size_t d = 0; d < doc.dimensions.size(); ++d) {
    for (const SweepAxis& axis : doc.dimensions[d].axes) {
      if (axis.key == key) {
        if (dimension) *dimension = d;
        return &axis;
      }
    }
  }
  return nullptr;
}

std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < 12; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > 12) out += ", ... (" + std::to_string(items.size()) + ")";
  return out;
}

bool matches(const SweepMoreSeeds& entry, const JobFields& point) {
  return std::all_of(entry.where.begin(), entry.where.end(), [&](const auto& condition) {
    const auto field = point.find(condition.first);
    return field != point.end() && field->second->text == condition.second.text;
  });
}

}  // namespace

void check_more_seeds(const SweepDocument& doc, DiagnosticList& diagnostics) {
  std::vector<std::string> axis_keys;
  for (const SweepDimension& dimension : doc.dimensions) {
    for (const SweepAxis& axis : dimension.axes) axis_keys.push_back(axis.key);
  }
  for (const SweepMoreSeeds& entry : doc.more_seeds) {
    for (const auto& [key, value] : entry.where) {
      const SweepAxis* axis = axis_named(doc, key, nullptr);
      if (axis == nullptr) {
        diagnostics.add(value.source, "'" + key + "' is no axis of the sweep" +
                                          (axis_keys.empty() ? std::string(" (it has none)")
                                                             : "; its axes: " + listed(axis_keys)));
        continue;
      }
      const bool known = std::any_of(axis->values.begin(), axis->values.end(),
                                     [&](const SweepValue& v) { return v.text == value.text; });
      if (!known) {
        std::vector<std::string> values;
        for (const SweepValue& v : axis->values) values.push_back(v.text);
        diagnostics.add(value.source, "'" + value.text + "' is not one of " + key + "'s values as written: " +
                                          listed(values));
      }
    }
    for (std::uint64_t seed : entry.seeds) {
      if (std::find(doc.seeds.begin(), doc.seeds.end(), seed) != doc.seeds.end()) {
        diagnostics.add(entry.source, "seed " + std::to_string(seed) +
                                          " is already one of the sweep's `seeds`: every job runs it");
      }
    }
  }
}

std::vector<std::uint64_t> point_seeds(const SweepDocument& doc, const JobFields& point) {
  std::vector<std::uint64_t> seeds = doc.seeds;
  for (const SweepMoreSeeds& entry : doc.more_seeds) {
    if (!matches(entry, point)) continue;
    for (std::uint64_t seed : entry.seeds) {
      if (std::find(seeds.begin(), seeds.end(), seed) == seeds.end()) seeds.push_back(seed);
    }
  }
  return seeds;
}

double more_seed_jobs_bound(const SweepDocument& doc) {
  double bound = 0.0;
  for (const SweepMoreSeeds& entry : doc.more_seeds) {
    // The points its `where` leaves free: every dimension none of its keys fixes.
    std::vector<bool> fixed(doc.dimensions.size(), false);
    for (const auto& condition : entry.where) {
      std::size_t d = 0;
      if (axis_named(doc, condition.first, &d)) fixed[d] = true;
    }
    double points = 1.0;
    for (std::size_t d = 0; d < doc.dimensions.size(); ++d) {
      if (!fixed[d]) points *= static_cast<double>(doc.dimensions[d].size());
    }
    bound += points * static_cast<double>(entry.seeds.size());
  }
  return bound;
}

}  // namespace gammalab
