// gammalab completion bash|zsh|fish: a completion script for the shell, written from the app's own commands and
// options, so it cannot fall behind them. bash and zsh share one function (zsh loads it through bashcompinit);
// fish gets its own `complete` lines with the descriptions.
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.h"

namespace gammalab::cli {
namespace {

struct Flag {
  std::string name;  // "--json" or "-h"
  bool takes_value = false;
  std::string description;
};

struct Command {
  std::string name;
  std::string description;
  std::vector<Flag> flags;
  bool takes_files = false;  // a positional argument that names files (validate, plan, submit, fit's CSV)
};

std::vector<Flag> flags_of(const CLI::App& app) {
  std::vector<Flag> flags;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional() && option->get_lnames().empty() && option->get_snames().empty()) continue;
    const bool value = option->get_expected_min() > 0;
    for (const auto& l : option->get_lnames()) flags.push_back({"--" + l, value, option->get_description()});
    for (const auto& s : option->get_snames()) flags.push_back({"-" + s, value, option->get_description()});
  }
  return flags;
}

bool names_files(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    const std::string& name = option->get_name();
    if (option->get_positional() && (name == "file" || name == "files" || name == "sweep")) {
      return name != "sweep" || command.get_name() == "fit";  // fit takes a sweep id or a CSV file
    }
  }
  return false;
}

std::vector<Command> commands_of(CLI::App& app) {
  std::vector<Command> commands;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    commands.push_back({sub->get_name(), sub->get_description(), flags_of(*sub), names_files(*sub)});
  }
  return commands;
}

std::string joined_names(const std::vector<Flag>& flags) {
  std::string out;
  for (const auto& f : flags) out += (out.empty() ? "" : " ") + f.name;
  return out;
}

// The bash function (zsh runs it too): the first word that is not an option, or an option's value, is the
// command; before it, commands and global options complete; after it, that command's options and the global
// ones; anything else falls back to file names (complete -o default).
std::string bash_script(const std::vector<Command>& commands, const std::vector<Flag>& globals) {
  std::string valued;
  for (const auto& f : globals) {
    if (f.takes_value) valued += (valued.empty() ? "" : "|") + f.name;
  }
  std::string names;
  for (const auto& c : commands) names += (names.empty() ? "" : " ") + c.name;
  std::string out =
      "_gammalab() {\n"
      "  [ -n \"${ZSH_VERSION:-}\" ] && setopt localoptions ksharrays  # zsh: index COMP_WORDS from 0, as bash\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} command= i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${COMP_WORDS[i]} in\n"
      "      " + valued + ") ((i++)) ;;\n"
      "      -*) ;;\n"
      "      *) command=${COMP_WORDS[i]}; break ;;\n"
      "    esac\n"
      "  done\n"
      "  local words=\n"
      "  case $command in\n"
      "    '') words='" + names + " " + joined_names(globals) + "' ;;\n";
  for (const auto& c : commands) {
    out += "    " + c.name + ") words='" + joined_names(c.flags) + " " + joined_names(globals) + "' ;;\n";
  }
  out +=
      "  esac\n"
      "  COMPREPLY=()\n"
      "  if [[ -z $command || $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "  fi\n"
      "}\n"
      "complete -o default -F _gammalab gammalab\n";
  return out;
}

std::string fish_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string fish_flag(const std::string& condition, const Flag& f) {
  std::string line = "complete -c gammalab" + (condition.empty() ? "" : " -n " + fish_quoted(condition));
  line += f.name.rfind("--", 0) == 0 ? " -l " + f.name.substr(2) : " -s " + f.name.substr(1);
  if (f.takes_value) line += " -r";
  if (!f.description.empty()) line += " -d " + fish_quoted(f.description);
  return line + "\n";
}

std::string fish_script(const std::vector<Command>& commands, const std::vector<Flag>& globals) {
  std::string out = "complete -c gammalab -f\n";
  for (const auto& f : globals) out += fish_flag("", f);
  for (const auto& c : commands) {
    out += "complete -c gammalab -n __fish_use_subcommand -a " + c.name + " -d " + fish_quoted(c.description) + "\n";
    const std::string seen = "__fish_seen_subcommand_from " + c.name;
    for (const auto& f : c.flags) out += fish_flag(seen, f);
    if (c.takes_files) out += "complete -c gammalab -n " + fish_quoted(seen) + " -F\n";
  }
  return out;
}

}  // namespace

void add_completion_command(CLI::App& app, CliContext&) {
  auto shell = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("completion", "print a shell completion script for bash, zsh or fish");
  cmd->footer(examples({
                       "source <(gammalab completion bash)                 # this shell",
                       "gammalab completion bash > /etc/bash_completion.d/gammalab   # every shell",
                       "gammalab completion zsh > \"${fpath[1]}/_gammalab\"  # zsh, from its next start",
                       "gammalab completion fish > ~/.config/fish/completions/gammalab.fish"}));
  cmd->add_option("shell", *shell, "bash | zsh | fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  cmd->callback([shell, &app] {
    const std::vector<Command> commands = commands_of(app);
    const std::vector<Flag> globals = flags_of(app);
    if (*shell == "fish") {
      std::cout << "# gammalab completion for fish (gammalab completion fish)\n" << fish_script(commands, globals);
    } else if (*shell == "zsh") {
      std::cout << "#compdef gammalab\n# gammalab completion for zsh (gammalab completion zsh): the bash function, "
                   "run by zsh's bashcompinit\nautoload -U +X bashcompinit && bashcompinit\n"
                << bash_script(commands, globals);
    } else {
      std::cout << "# gammalab completion for bash (gammalab completion bash)\n" << bash_script(commands, globals);
    }
  });
}

}  // namespace gammalab::cli
