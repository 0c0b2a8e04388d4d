#pragma once
// What gammalab-train's exit status tells the worker that started it.
#include <string_view>

namespace gammalab::exit_codes {

inline constexpr int kSucceeded = 0;
// Stopped on request (SIGTERM) after writing a checkpoint: the job is handed back and may resume elsewhere,
// without using up an attempt. 75 is EX_TEMPFAIL of <sysexits.h>: "try again later".
inline constexpr int kStopped = 75;
// The loss became non-finite (NaN or infinite): the run failed at that step (its log says which loss and
// step), and no checkpoint is written for it. 65 is EX_DATAERR of <sysexits.h>.
inline constexpr int kDiverged = 65;
// The job cannot succeed however often it is tried, so the coordinator fails it without another attempt:
// its config is invalid (78, EX_CONFIG of <sysexits.h>), its data cannot be opened on this worker (66,
// EX_NOINPUT: the log names the path and the data directory it was resolved against), or its model and batch
// do not fit the memory of the device it runs on (71, EX_OSERR: the system could not provide a resource; the
// log names the allocation). An out-of-memory kill by the kernel is a signal, not this status: it is retried.
inline constexpr int kConfigError = 78;
inline constexpr int kDataUnavailable = 66;
inline constexpr int kOutOfMemory = 71;
constexpr bool is_permanent_failure(int code) {
  return code == kConfigError || code == kDataUnavailable || code == kOutOfMemory;
}
// Of those, the ones the worker's own machine may cause as well as the job: data missing under its
// --data-dir, a device with less free memory than the others. The coordinator then requeues the job without
// using an attempt and pauses that worker, and fails the job only once several workers have failed it alike
// (server/store/leases.cpp). A config error is the job's alone.
constexpr bool may_be_the_workers_fault(int code) { return code == kDataUnavailable || code == kOutOfMemory; }
// What a failed attempt's status means, in words for its error text ("" when it says nothing more).
constexpr std::string_view meaning(int code) {
  switch (code) {
    case kDiverged: return "the loss became non-finite";
    case kConfigError: return "a config error: another attempt would fail alike, so none is made";
    case kDataUnavailable:
      return "a data error: the job's data cannot be opened on this worker (its --data-dir?); tried on other "
             "workers before the job fails";
    case kOutOfMemory:
      return "out of memory: the model and its micro-batch do not fit this worker's device (a smaller "
             "micro_batch_size, more gradient accumulation or more ranks would fit); tried on other workers "
             "before the job fails";
    default: return "";
  }
}
// Only from the trainer's in-process crash stand-in (tests): the status a SIGKILLed shell child reports.
inline constexpr int kCrashed = 137;

}  // namespace gammalab::exit_codes
