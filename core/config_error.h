#pragma once
// The one error type for bad configuration: it always names the field (dot path) and the problem.
#include <stdexcept>
#include <string>

namespace gammalab {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string path, const std::string& problem)
      : std::runtime_error(path.empty() ? problem : path + ": " + problem), path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace gammalab
