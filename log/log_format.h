#pragma once
// How the daemons (gammalab-server, gammalab-worker) write their log on stderr: text for people, or one JSON
// object per line for log collectors (journald, Loki, Kubernetes' node agents):
//   {"time":"2026-01-02T03:04:05.678Z","level":"info","logger":"gammalab-server","message":"..."}
// stdout stays for the daemons' machine-readable event lines either way.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace gammalab {

enum class LogFormat { kText, kJson };

// "text" or "json"; nullopt for anything else.
std::optional<LogFormat> parse_log_format(std::string_view name);

// Makes the default logger `name` on stderr in that format.
void install_logger(const std::string& name, LogFormat format);

// The JSON line of one log record (exposed for tests).
std::string json_log_line(std::string_view logger, std::string_view level, std::string_view message,
                          std::chrono::system_clock::time_point time);

}  // namespace gammalab
