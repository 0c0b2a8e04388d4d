#pragma once
// A job that runs a program of the user's own instead of gammalab-train (docs/own-program.md): the sweep's
// `command:`, kept in the job's config as written, with `{field}` placeholders that name config fields by dot
// path (`{optim.lr}`, `{model.d_model}`, `{seed}`). The placeholders are filled from the job's final config on
// the worker, so a value a tune stage picks reaches the command like any other field.
#include <string>
#include <vector>

#include "core/job_config.h"

namespace gammalab {

inline constexpr std::size_t kMaxCommandArgs = 256;         // arguments of one command
inline constexpr std::size_t kMaxCommandArgBytes = 4096;    // bytes of one argument as written
inline constexpr double kMaxDeclaredParams = 1e15;            // declared_params: 1,000x a 1T model
inline constexpr std::size_t kMaxImportedSourceBytes = 1024;  // JobConfig::imported: where a run came from

// Checks a config's command: its size, each argument's text (valid UTF-8, no NUL or control bytes, a program
// to run first) and every placeholder (a scalar config field; `{{` and `}}` stand for braces). Throws
// ConfigError naming `command[i]`, the limit and the value. validate(JobConfig) calls it.
void check_command(const JobConfig& config);

// The command with its placeholders filled from `config` (a string field as is, a number as its JSON). Empty
// for a config without a command. Throws ConfigError as check_command does.
std::vector<std::string> command_argv(const JobConfig& config);

}  // namespace gammalab
