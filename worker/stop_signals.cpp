#include "worker/stop_signals.h"

#include <signal.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "worker/worker_daemon.h"

namespace gammalab {

namespace {

WorkerDaemon* g_daemon = nullptr;
std::atomic<std::int64_t> g_first_signal_ms{-1};

std::int64_t monotonic_ms() {  // clock_gettime is async-signal-safe; std::chrono's clocks are not promised to be
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

void on_stop_signal(int) {
  if (g_daemon == nullptr) return;
  const std::int64_t now = monotonic_ms();
  std::int64_t first = -1;
  if (g_first_signal_ms.compare_exchange_strong(first, now)) {
    g_daemon->request_drain();
  } else if (now - first >= kRepeatWindow.count()) {
    g_daemon->request_stop_now();
  }
}

}  // namespace

void install_stop_signals(WorkerDaemon& daemon) {
  g_daemon = &daemon;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

}  // namespace gammalab
