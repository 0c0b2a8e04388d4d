#pragma once
// Reading a real coordinator's Prometheus text (GET /metrics) in tests.
#include <optional>
#include <string>

#include "tests/integration/cluster.h"

namespace gammalab::testing {

// GET /metrics with `token` (a metrics token, what Prometheus is given); empty when it does not answer 200.
std::string metrics_text(const Cluster& cluster, const std::string& token);

// The value of the sample `series` (name with its labels, as printed: gammalab_jobs{state="pending"}).
std::optional<double> sample(const std::string& text, const std::string& series);

}  // namespace gammalab::testing
