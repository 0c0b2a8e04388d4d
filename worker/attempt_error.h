#pragma once
// What a failed attempt's error says: its own part of the job's log (the log is appended by every attempt, so
// an attempt's error never repeats an earlier one's), without the metric lines the worker copies there, as its
// first lines and its last lines. The first lines hold the reason (a C++ exception's message, "not enough
// memory: you tried to allocate ..."), the last ones where it ended; a backtrace between them is what is cut.
#include <cstddef>
#include <string>
#include <string_view>

namespace gammalab {

// How much of each end is kept: together with the worker's own sentence they fit the coordinator's stored
// error (limits::kMaxJobErrorBytes).
inline constexpr std::size_t kAttemptErrorHeadBytes = 1200;
inline constexpr std::size_t kAttemptErrorTailBytes = 2000;

// `attempt_log`: the log from this attempt's first byte (the worker's header line for it) to its end. Valid
// UTF-8, lines kept whole where they fit, a line "[... N lines left out ...]" where the middle was cut.
std::string attempt_error_excerpt(std::string_view attempt_log);

}  // namespace gammalab
