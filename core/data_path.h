#pragma once
// Data paths in job configs (data.train, data.val) name shards under a worker's data directory. A sweep comes
// from anyone with a user token and a job config from whoever answers as coordinator, so a path must not
// reach outside that directory: relative, without ".." components, and of bounded length. (Symbolic links
// inside the data directory are followed: placing them there is the data directory owner's choice, e.g. a
// link to a dataset on bulk storage.) A trainer run by hand without a data directory may still read any path.
#include <string>
#include <string_view>

namespace gammalab {

inline constexpr std::size_t kMaxDataPathBytes = 1024;

// Empty when `path` may name data under a data directory; otherwise why not (the value shown, cut short).
std::string data_path_error(std::string_view path);

// Throws ConfigError naming data.train or data.val when either is set and fails data_path_error.
struct JobConfig;
void check_data_paths(const JobConfig& config);

}  // namespace gammalab
