// A failed attempt's own words (worker/attempt_error.h).
#include "worker/attempt_error.h"

#include <vector>

#include "core/metric.h"
#include "core/utf8_text.h"

namespace gammalab {

namespace {

// The lines worth reading: not the worker's header ("== NAME: attempt ..."), not a metric line, not blank.
std::vector<std::string_view> reason_lines(std::string_view log) {
  std::vector<std::string_view> lines;
  while (!log.empty()) {
    const std::size_t end = std::min(log.find('\n'), log.size());
    std::string_view line = log.substr(0, end);
    log.remove_prefix(std::min(end + 1, log.size()));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty() || line.starts_with("== ")) continue;
    if (line.front() == '{' && parse_metric_line(line)) continue;
    lines.push_back(line);
  }
  return lines;
}

}  // namespace

std::string attempt_error_excerpt(std::string_view attempt_log) {
  const std::vector<std::string_view> lines = reason_lines(attempt_log);
  std::size_t total = 0;
  for (std::string_view line : lines) total += line.size() + 1;
  auto join = [&](std::size_t from, std::size_t to) {
    std::string text;
    for (std::size_t i = from; i < to; ++i) text.append(lines[i]).push_back('\n');
    return text;
  };
  if (total <= kAttemptErrorHeadBytes + kAttemptErrorTailBytes) {
    std::string all = join(0, lines.size());
    if (!all.empty()) all.pop_back();
    return utf8_valid(all);
  }
  // Whole lines from the front while they fit, then from the back; a single longer line is cut at a character.
  std::size_t head = 0, head_bytes = 0;
  while (head < lines.size() && head_bytes + lines[head].size() + 1 <= kAttemptErrorHeadBytes) {
    head_bytes += lines[head++].size() + 1;
  }
  std::size_t tail = lines.size(), tail_bytes = 0;
  while (tail > head && tail_bytes + lines[tail - 1].size() + 1 <= kAttemptErrorTailBytes) {
    tail_bytes += lines[--tail].size() + 1;
  }
  std::string first = head > 0 ? join(0, head) : utf8_head(lines.front(), kAttemptErrorHeadBytes) + "\n";
  if (head == 0) head = 1;
  std::string last = tail < lines.size() ? join(tail, lines.size()) : utf8_tail(lines.back(), kAttemptErrorTailBytes);
  if (tail == lines.size() && tail > head) tail = lines.size() - 1;
  if (!last.empty() && last.back() == '\n') last.pop_back();
  const std::size_t left_out = tail > head ? tail - head : 0;
  return utf8_valid(first) + "[... " + std::to_string(left_out) + " line" + (left_out == 1 ? "" : "s") +
         " left out ...]\n" + utf8_valid(last);
}

}  // namespace gammalab
