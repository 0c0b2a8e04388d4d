#pragma once
// How gammalab-worker reads SIGTERM and SIGINT: the first drains it (WorkerDaemon::request_drain); another one,
// at least kRepeatWindow later, stops it now (request_stop_now: the trainers are killed). Signals within the
// window count as the first one again, because a scheduler often delivers one stop through several paths at once:
// `scancel` signals the step's tasks itself while the batch script forwards the SIGTERM it got too.
#include <chrono>

namespace gammalab {

class WorkerDaemon;

inline constexpr std::chrono::milliseconds kRepeatWindow{1000};

// Installs the handlers for `daemon`, which must outlive the process's handling of signals.
void install_stop_signals(WorkerDaemon& daemon);

}  // namespace gammalab
