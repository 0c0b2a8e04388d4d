// gammalab-train: run | prepare | describe | export. Metric lines go to stdout, human logs to stderr.
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "core/config_paths.h"
#include "core/model_preset.h"
#include "worker/trainer/describe.h"
#include "worker/trainer/export.h"
#include "worker/trainer/prepare.h"
#include "worker/trainer/trainer.h"

namespace {

using namespace gammalab;
using namespace gammalab::trainer;

std::atomic<bool> g_stop{false};

extern "C" void on_sigterm(int) { g_stop.store(true); }

constexpr int kExitUsage = 2;

const char* kUsage =
    "usage:\n"
    "  gammalab-train run --config JOB.json [--ckpt-dir DIR] [--data-dir DIR]\n"
    "  gammalab-train prepare --input FILE_OR_DIR... --out DIR [--tokenizer byte|bpe --vocab N]\n"
    "                         [--format text|brown] [--val-fraction 0.01]\n"
    "  gammalab-train describe CONFIG.json | --preset NAME [--variant V]\n"
    "  gammalab-train export --config JOB.json --ckpt-dir DIR --out OUTDIR\n";

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> options;
  std::string one(const std::string& key, const std::string& fallback = "") const {
    auto it = options.find(key);
    return it == options.end() || it->second.empty() ? fallback : it->second.back();
  }
  bool has(const std::string& key) const { return options.contains(key); }
};

Args parse_args(int argc, char** argv, int first) {
  Args a;
  std::string current;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.starts_with("--")) {
      const auto eq = s.find('=');
      if (eq != std::string::npos) {
        a.options[s.substr(2, eq - 2)].push_back(s.substr(eq + 1));
        current.clear();
      } else {
        current = s.substr(2);
        a.options[current];
      }
    } else if (!current.empty()) {
      a.options[current].push_back(s);
      if (current != "input") current.clear();  // --input takes several values
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

JobConfig load_job(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("", "cannot read config file " + path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError("", path + ": not valid JSON: " + e.what());
  }
  JobConfig c = job_config_from_json(j);
  validate(c);
  return c;
}

int cmd_run(const Args& a) {
  const std::string config = a.one("config");
  if (config.empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  JobConfig c;
  try {
    c = load_job(config);
  } catch (const ConfigError& e) {
    std::cerr << "config error: " << e.what() << "\n";
    return kExitUsage;
  }
  std::signal(SIGTERM, on_sigterm);
  TrainerOptions o;
  o.ckpt_dir = a.one("ckpt-dir");
  o.data_dir = a.one("data-dir");
  o.stop = &g_stop;
  try {
    Trainer trainer(c, o, std::cout, std::cerr);
    return trainer.run();
  } catch (const ConfigError& e) {
    std::cerr << "config error: " << e.what() << "\n";
    return kExitUsage;
  }
}

int cmd_prepare(const Args& a) {
  PrepareOptions o;
  if (a.has("input")) {
    for (const auto& s : a.options.at("input")) o.inputs.emplace_back(s);
  }
  o.out = a.one("out");
  o.tokenizer = a.one("tokenizer", "byte");
  o.vocab = std::stoi(a.one("vocab", "0"));
  o.format = a.one("format", "text");
  o.val_fraction = std::stod(a.one("val-fraction", "0.01"));
  if (o.inputs.empty() || o.out.empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  const PrepareResult r = prepare_corpus(o);
  std::cerr << "prepared " << r.documents << " documents: " << r.train_tokens << " train tokens, " << r.val_tokens
            << " val tokens, vocab " << r.vocab_size << " -> " << o.out.string() << "\n";
  return 0;
}

int cmd_describe(const Args& a) {
  JobConfig c;
  try {
    if (!a.positional.empty()) {
      c = load_job(a.positional.front());
    } else if (a.has("preset")) {
      c.model = load_model_preset(a.one("preset"), model_preset_dir());
      c.scale = variant_preset(a.one("variant", "baseline"));
    } else {
      std::cerr << kUsage;
      return kExitUsage;
    }
  } catch (const ConfigError& e) {
    std::cerr << "config error: " << e.what() << "\n";
    return kExitUsage;
  }
  std::cout << describe_model(c);
  return 0;
}

int cmd_export(const Args& a) {
  if (a.one("config").empty() || a.one("ckpt-dir").empty() || a.one("out").empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  JobConfig c;
  try {
    c = load_job(a.one("config"));
  } catch (const ConfigError& e) {
    std::cerr << "config error: " << e.what() << "\n";
    return kExitUsage;
  }
  export_checkpoint(c, a.one("ckpt-dir"), a.one("out"));
  std::cerr << "exported to " << a.one("out") << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  const std::string cmd = argv[1];
  const Args args = parse_args(argc, argv, 2);
  try {
    if (cmd == "run") return cmd_run(args);
    if (cmd == "prepare") return cmd_prepare(args);
    if (cmd == "describe") return cmd_describe(args);
    if (cmd == "export") return cmd_export(args);
    std::cerr << "unknown command '" << cmd << "'\n" << kUsage;
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
