#pragma once
// What `gammalab`'s exit status says, for scripts and schedulers (README "The command line"): one home, so that a
// command cannot invent a code of its own.
namespace gammalab::cli::exit_status {

inline constexpr int kOk = 0;
// A command failed: the coordinator refused or could not be reached, a file is invalid, a fit did not converge.
inline constexpr int kError = 1;
// The command line itself is wrong: an unknown command or option, a missing or malformed argument.
inline constexpr int kUsage = 2;
// `watch`: the sweep finished, and at least one of its jobs failed (the watch itself went well).
inline constexpr int kJobFailed = 3;

}  // namespace gammalab::cli::exit_status
