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
// Only from the trainer's in-process crash stand-in (tests): the status a SIGKILLed shell child reports.
inline constexpr int kCrashed = 137;

}  // namespace gammalab::exit_codes
