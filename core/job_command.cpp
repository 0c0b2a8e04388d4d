#include "core/job_command.h"

#include "core/config_error.h"
#include "core/utf8_text.h"

namespace gammalab {

namespace {

std::string arg_path(std::size_t i) { return "command[" + std::to_string(i) + "]"; }

// The node a placeholder names inside the config's JSON, or nullptr.
const nlohmann::json* field_at(const nlohmann::json& config, const std::string& dot_path) {
  const nlohmann::json* node = &config;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dot_path.find('.', start);
    const std::string key = dot_path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (key.empty() || !node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
    if (dot == std::string::npos) return node;
    start = dot + 1;
  }
}

// One argument with its placeholders filled from `config` (the config's JSON), or ConfigError naming it.
std::string fill(const std::string& arg, std::size_t i, const nlohmann::json& config) {
  std::string out;
  for (std::size_t at = 0; at < arg.size();) {
    const char c = arg[at];
    if ((c == '{' || c == '}') && at + 1 < arg.size() && arg[at + 1] == c) {  // {{ and }}: a brace
      out += c;
      at += 2;
      continue;
    }
    if (c == '}') {
      throw ConfigError(arg_path(i), "a lone '}' at byte " + std::to_string(at) + " of '" + utf8_head(arg, 80) +
                                         "'; write }} for a brace");
    }
    if (c != '{') {
      out += c;
      ++at;
      continue;
    }
    const std::size_t close = arg.find('}', at + 1);
    if (close == std::string::npos) {
      throw ConfigError(arg_path(i), "'{' at byte " + std::to_string(at) + " of '" + utf8_head(arg, 80) +
                                         "' is not closed; write {{ for a brace");
    }
    const std::string name = arg.substr(at + 1, close - at - 1);
    const nlohmann::json* value = field_at(config, name);
    if (value == nullptr) {
      throw ConfigError(arg_path(i), "'{" + utf8_head(name, 80) +
                                         "}' names no field of this job's config (a dot path such as optim.lr, "
                                         "model.d_model or seed; an optional field must be set)");
    }
    if (value->is_object() || value->is_array()) {
      throw ConfigError(arg_path(i), "'{" + name + "}' is a group of fields; a placeholder names one value");
    }
    out += value->is_string() ? value->get<std::string>() : value->dump();
    at = close + 1;
  }
  return out;
}

}  // namespace

void check_command(const JobConfig& config) {
  if (!config.command) return;
  const std::vector<std::string>& command = *config.command;
  if (command.empty()) throw ConfigError("command", "is empty; give the program to run and its arguments");
  if (command.size() > kMaxCommandArgs) {
    throw ConfigError("command", std::to_string(command.size()) + " arguments, more than the limit of " +
                                     std::to_string(kMaxCommandArgs));
  }
  for (std::size_t i = 0; i < command.size(); ++i) {
    const std::string& arg = command[i];
    if (arg.size() > kMaxCommandArgBytes) {
      throw ConfigError(arg_path(i), std::to_string(arg.size()) + " bytes, more than the limit of " +
                                         std::to_string(kMaxCommandArgBytes));
    }
    if (const auto bad = utf8_first_invalid(arg)) {
      throw ConfigError(arg_path(i), "is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
    }
    for (std::size_t at = 0; at < arg.size(); ++at) {
      const auto byte = static_cast<unsigned char>(arg[at]);
      if (byte < 0x20 || byte == 0x7f) {
        throw ConfigError(arg_path(i), "holds the control byte " + std::to_string(byte) + " at byte " +
                                           std::to_string(at) + "; an argument is one line of text");
      }
    }
  }
  if (command.front().empty()) throw ConfigError("command[0]", "is empty; it names the program to run");
  // Its ranks run on one worker (docs/own-program.md, "Several ranks"): world_size slots of one machine.
  if (config.nodes.value_or(1) > 1) {
    throw ConfigError("nodes", "a command job's ranks run on one worker (nodes " +
                                   std::to_string(config.nodes.value_or(1)) +
                                   "); give world_size alone, up to the slots of the largest worker");
  }
  (void)command_argv(config);  // every placeholder names a value
}

std::vector<std::string> command_argv(const JobConfig& config) {
  if (!config.command) return {};
  const nlohmann::json json = to_json(config);
  std::vector<std::string> argv;
  argv.reserve(config.command->size());
  for (std::size_t i = 0; i < config.command->size(); ++i) argv.push_back(fill((*config.command)[i], i, json));
  return argv;
}

}  // namespace gammalab
