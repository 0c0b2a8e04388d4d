// The daemons' log formats (see log/log_format.h).
#include "log/log_format.h"

#include <spdlog/formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>

namespace gammalab {

namespace {

// UTC with milliseconds, as RFC 3339 spells it.
std::string rfc3339_utc(std::chrono::system_clock::time_point time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count() % 1000;
  char out[64];
  std::snprintf(out, sizeof out, "%s.%03dZ", text, static_cast<int>(ms < 0 ? ms + 1000 : ms));
  return out;
}

// An spdlog formatter that writes each record as a JSON line. A formatter, not a pattern: a pattern cannot
// escape quotes, backslashes or control characters inside the message.
class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const auto level = spdlog::level::to_string_view(msg.level);
    const std::string line = json_log_line(std::string_view(msg.logger_name.data(), msg.logger_name.size()),
                                           std::string_view(level.data(), level.size()),
                                           std::string_view(msg.payload.data(), msg.payload.size()), msg.time) +
                             "\n";
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

}  // namespace

std::optional<LogFormat> parse_log_format(std::string_view name) {
  if (name == "text") return LogFormat::kText;
  if (name == "json") return LogFormat::kJson;
  return std::nullopt;
}

std::string json_log_line(std::string_view logger, std::string_view level, std::string_view message,
                          std::chrono::system_clock::time_point time) {
  nlohmann::ordered_json line;
  line["time"] = rfc3339_utc(time);
  line["level"] = level;
  line["logger"] = logger;
  line["message"] = message;
  // A message may quote hostile bytes (a job id as sent): invalid UTF-8 becomes U+FFFD, never a broken line.
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void install_logger(const std::string& name, LogFormat format) {
  if (format == LogFormat::kText) {
    spdlog::set_default_logger(spdlog::stderr_color_mt(name));
    return;
  }
  auto logger = spdlog::stderr_logger_mt(name);  // no colour codes inside JSON
  logger->set_formatter(std::make_unique<JsonFormatter>());
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace gammalab
