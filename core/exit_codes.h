#pragma once
// What gammalab-train's exit status tells the worker that started it.
namespace gammalab::exit_codes {

inline constexpr int kSucceeded = 0;
// Stopped on request (SIGTERM) after writing a checkpoint: the job is handed back and may resume elsewhere,
// without using up an attempt. 75 is EX_TEMPFAIL of <sysexits.h>: "try again later".
inline constexpr int kStopped = 75;
// The loss became non-finite (NaN or infinite): the run failed at that step (its log says which loss and
// step), and no checkpoint is written for it. 65 is EX_DATAERR of <sysexits.h>.
inline constexpr int kDiverged = 65;
// The job cannot succeed however often it is tried, so the coordinator fails it without another attempt:
// its config is invalid (78, EX_CONFIG of <sysexits.h>), or its data cannot be opened on this worker (66,
// EX_NOINPUT: the log names the path and the data directory it was resolved against).
inline constexpr int kConfigError = 78;
inline constexpr int kDataUnavailable = 66;
constexpr bool is_permanent_failure(int code) { return code == kConfigError || code == kDataUnavailable; }
// Only from the trainer's in-process crash stand-in (tests): the status a SIGKILLed shell child reports.
inline constexpr int kCrashed = 137;

}  // namespace gammalab::exit_codes
