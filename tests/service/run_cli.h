#pragma once
// The real CLI binary of the build, run from a test as a shell would run it (the tests' GAMMALAB_BINARY_DIR).
#include <array>
#include <cstdio>
#include <string>

namespace gammalab::testing {

// Runs the real CLI binary (the build's) with `arguments` as a shell would, and returns what it printed (stdout
// and stderr).
inline std::string run_cli(const std::string& arguments) {
  const std::string command = std::string(GAMMALAB_BINARY_DIR) + "/cli/gammalab " + arguments + " 2>&1";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "popen failed";
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) out += buffer.data();
  pclose(pipe);
  return out;
}

}  // namespace gammalab::testing
