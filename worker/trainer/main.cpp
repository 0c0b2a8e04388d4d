// gammalab-train: run | prepare | describe | export. Metric lines go to stdout, human logs to stderr.
// Exit status: 0 done, 1 failure while running, 2 bad command line or config (the message names the problem).
#include <atomic>
#include <csignal>
#include <unistd.h>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <torch/version.h>

#include "core/config_error.h"
#include "core/config_paths.h"
#include "core/exit_codes.h"
#include "core/file_util.h"
#include "core/limits.h"
#include "core/model_preset.h"
#include "core/shared_root_files.h"
#include "core/uid.h"
#include "worker/trainer/data/data_shard.h"
#include "worker/trainer/data/prepare.h"
#include "worker/trainer/describe.h"
#include "worker/trainer/parallel/command_ranks.h"
#include "worker/trainer/parallel/rank_env.h"
#include "worker/trainer/parallel/rank_launcher.h"
#include "worker/trainer/stored_step_feed.h"
#include "worker/trainer/export.h"
#include "worker/trainer/out_of_memory.h"
#include "worker/trainer/trainer.h"

namespace {

using namespace gammalab;
using namespace gammalab::trainer;

std::atomic<bool> g_stop{false};

extern "C" void on_sigterm(int) { g_stop.store(true); }

constexpr int kExitUsage = 2;

// A job config is a few KiB; a file far larger is not one (and is not read whole).
constexpr std::size_t kMaxJobConfigBytes = 16 << 20;

// The job config at `path`; with a shared root (the worker's), read from below it with no link followed.
std::string read_job_file(const std::string& path, const std::string& shared_root) {
  if (shared_root.empty()) return read_file(path);
  const auto rel = shared_root::relative_below(shared_root, path);
  if (!rel) throw std::runtime_error(path + ": not below the shared root " + shared_root);
  std::optional<std::string> text = shared_root::Dir::open(shared_root).read(*rel, kMaxJobConfigBytes);
  if (!text) throw std::runtime_error(path + ": no such file");
  return std::move(*text);
}

JobConfig load_job(const std::string& path, const std::string& shared_root = {}) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_job_file(path, shared_root));
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError("", path + ": not valid JSON: " + e.what());
  } catch (const std::runtime_error& e) {
    throw ConfigError("", e.what());
  }
  JobConfig c = job_config_from_json(j);
  validate(c);
  // Such a job's model is the user's program (docs/own-program.md): training ours in its place would store a
  // curve of another model under its name.
  if (c.command) throw ConfigError("command", "this job runs a program of its own (" + c.command->front() + "), not gammalab-train");
  if (c.imported) throw ConfigError("imported", "this run was trained elsewhere (" + *c.imported + "): it is never run");
  return c;
}

struct RunArgs {
  std::string config, ckpt_dir, data_dir, shared_root, start_from, job_uid, start_from_uid;
  std::vector<std::int64_t> keep_checkpoints_at;
  StoredMetrics stored;
  bool stored_steps_on_stdin = false;
  RankFlags ranks;
  double bucket_mb = 25;
};

// A stream that drops everything: the metric lines and progress log of ranks other than 0.
struct NullStream : std::ostream {
  NullStream() : std::ostream(nullptr) {}
};

int cmd_run(const RunArgs& a, int argc, char** argv) {
  const JobConfig c = load_job(a.config, a.shared_root);
  std::signal(SIGTERM, on_sigterm);
  const RankPlan plan = plan_ranks(a.ranks, c);
  if (plan.kind == RankPlan::Kind::Launcher) return launch_local_ranks(plan.spec, argc, argv, g_stop, std::cerr, std::cout);
  TrainerOptions o;
  o.ckpt_dir = a.ckpt_dir;
  o.shared_root = a.shared_root;
  o.data_dir = a.data_dir;
  o.stop = &g_stop;
  o.ranks = plan.spec;
  o.bucket_bytes = static_cast<std::int64_t>(a.bucket_mb * (1 << 20));
  o.start_from = a.start_from;
  o.job_uid = a.job_uid;
  o.start_from_uid = a.start_from_uid;
  o.keep_checkpoints_at = a.keep_checkpoints_at;
  o.stored = a.stored;
  std::optional<StoredStepFeed> feed;
  if (a.stored_steps_on_stdin && plan.spec.rank == 0) {
    feed.emplace(STDIN_FILENO);
    o.stored_before = &feed->stored_before();
  }
  if (plan.spec.rank != 0) {
    NullStream quiet;
    Trainer trainer(c, o, quiet, quiet);
    return trainer.run();
  }
  Trainer trainer(c, o, std::cout, std::cerr);
  return trainer.run();
}

int cmd_prepare(const PrepareOptions& o) {
  const PrepareResult r = prepare_corpus(o);
  std::cerr << "prepared " << r.documents << " documents: " << r.train_tokens << " train tokens, " << r.val_tokens
            << " val tokens, vocab " << r.vocab_size << " -> " << o.out.string() << "\n";
  return 0;
}

struct DescribeArgs {
  std::string config, preset, variant = "baseline";
  bool json = false, variants = false;
};

int cmd_describe(const DescribeArgs& a) {
  if (a.variants) {
    const std::vector<std::string> names = variant_names();
    for (std::size_t i = 0; i < names.size(); ++i) std::cout << (i ? " " : "") << names[i];
    std::cout << "\n";
    return 0;
  }
  JobConfig c;
  if (!a.config.empty()) {
    c = load_job(a.config);
  } else {
    c.model = load_model_preset(a.preset, model_preset_dir());
    c.scale = variant_preset(a.variant);
    c.model.qk_norm = c.model.qk_norm || variant_sets_qk_norm(a.variant);
  }
  // --json: the resolved config, for scripts that build a job from a preset and a variant: the trainer's own
  // reading of both, so no script parses the preset YAML or knows a variant's axes.
  std::cout << (a.json ? to_json(c).dump(2) + "\n" : describe_model(c));
  return 0;
}

struct ExportArgs {
  std::string config, ckpt_dir, out, layout = "auto";
};

int cmd_export(const ExportArgs& a) {
  const JobConfig c = load_job(a.config);
  const ExportLayout written = export_checkpoint(c, a.ckpt_dir, a.out, parse_export_layout(a.layout));
  std::cerr << "exported to " << a.out << " as "
            << (written == ExportLayout::Llama ? "LlamaForCausalLM"
                                               : "GammalabForCausalLM (custom code: load with trust_remote_code=True)")
            << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gammalab-train: pre-train a Llama with any scale-vector variant, prepare corpora, export weights"};
  app.require_subcommand(1);
  // The LibTorch it was built against, beside its own version: what a result depends on.
  app.set_version_flag("--version", std::string("gammalab-train ") + GAMMALAB_VERSION + " (commit " + GAMMALAB_COMMIT +
                                        ", LibTorch " + std::to_string(TORCH_VERSION_MAJOR) + "." +
                                        std::to_string(TORCH_VERSION_MINOR) + "." + std::to_string(TORCH_VERSION_PATCH) +
                                        ")");

  RunArgs run;
  CLI::App* run_cmd = app.add_subcommand("run", "train one job; JSON metric lines on stdout");
  run_cmd->add_option("--config", run.config, "job config (JSON)")->required()->check(CLI::ExistingFile);
  run_cmd->add_option("--ckpt-dir", run.ckpt_dir, "checkpoint directory (resumes from it); none: no checkpoints");
  run_cmd->add_option("--shared-root", run.shared_root,
                      "the worker's shared root, which --config and --ckpt-dir lie below: no link below it is followed");
  run_cmd->add_option("--data-dir", run.data_dir, "base of relative data paths (else $GAMMALAB_DATA_DIR, else cwd)");
  // Cooldown branches (docs/branches.md).
  run_cmd->add_option("--start-from", run.start_from,
                      "a branch's start: its parent's checkpoint file, used when --ckpt-dir holds none of its own");
  // Identities (core/uid.h, from the lease): a resume takes only this job's checkpoints, a branch only its run's.
  const CLI::Validator uid([](std::string& text) { return is_uid(text) ? "" : "not 32 lowercase hex characters"; },
                           "UID");
  run_cmd->add_option("--job-uid", run.job_uid, "this job's uid: written into its checkpoints, required to resume one")
      ->check(uid);
  run_cmd->add_option("--start-from-uid", run.start_from_uid,
                      "the uid of the job whose checkpoint --start-from is: required of that file")
      ->check(uid);
  run_cmd->add_option("--keep-checkpoint-at", run.keep_checkpoints_at,
                      "steps (comma-separated) to checkpoint and keep: the branch points of this run's branches")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{1}, limits::kMaxSteps));
  // What the coordinator already has (the worker passes its lease's word, core/metric_replay.h), and the
  // worker's running word on what it stored since (stored_step_feed.h).
  run_cmd->add_option("--stored-through-step", run.stored.last_step,
                      "the last step the coordinator stores a metric of: a resume prints no line before it again")
      ->check(CLI::Range(std::int64_t{-1}, limits::kMaxSteps));
  run_cmd->add_option("--stored-at-step", run.stored.names_at_last_step,
                      "a metric the coordinator stores at --stored-through-step (repeat for each): not printed again")
      ->expected(0, static_cast<int>(limits::kMaxMetricNames));
  run_cmd->add_flag("--stored-steps-on-stdin", run.stored_steps_on_stdin,
                    "read the steps the coordinator stored from stdin, one per line: checkpoints keep only later lines");
  // Data-parallel ranks (docs/distributed.md): each flag overrides the launcher variable named after it.
  run_cmd->add_option("--world-size", run.ranks.world_size,
                      "ranks of the job ($WORLD_SIZE); without --rank/$RANK this process starts them all");
  run_cmd->add_option("--rank", run.ranks.rank, "this process's rank ($RANK)");
  run_cmd->add_option("--local-rank", run.ranks.local_rank, "its index on this machine, its GPU ($LOCAL_RANK)");
  run_cmd->add_option("--master-addr", run.ranks.master_addr, "rendezvous host, rank 0's ($MASTER_ADDR)");
  run_cmd->add_option("--master-port", run.ranks.master_port, "rendezvous port ($MASTER_PORT)");
  run_cmd->add_option("--nodes", run.ranks.nodes, "machines the ranks span (the config's nodes); each starts its share");
  run_cmd->add_option("--node-rank", run.ranks.node_rank,
                      "this machine's index among them; node 0 hosts the store and prints its port");
  run_cmd->add_option("--dist-timeout", run.ranks.timeout_s,
                      "seconds a rank waits for its peers before failing ($GAMMALAB_DIST_TIMEOUT_S, default 1800)");
  run_cmd->add_option("--bucket-mb", run.bucket_mb, "gradient all-reduce bucket size in MiB")
      ->check(CLI::Range(0.001, 4096.0))
      ->capture_default_str();

  PrepareOptions prepare;
  CLI::App* prepare_cmd = app.add_subcommand("prepare", "turn text into train.bin/val.bin token shards");
  prepare_cmd->add_option("--input", prepare.inputs, "text files or directories")->required()->check(CLI::ExistingPath);
  prepare_cmd->add_option("--out", prepare.out, "output directory")->required();
  prepare_cmd->add_option("--tokenizer", prepare.tokenizer, "byte, or bpe (trains a SentencePiece model)")
      ->check(CLI::IsMember({"byte", "bpe"}))
      ->capture_default_str();
  prepare_cmd->add_option("--vocab", prepare.vocab, "BPE vocabulary size")->check(CLI::PositiveNumber);
  prepare_cmd->add_option("--format", prepare.format, "text, or brown (tagged Brown corpus files)")
      ->check(CLI::IsMember({"text", "brown"}))
      ->capture_default_str();
  prepare_cmd->add_option("--val-fraction", prepare.val_fraction, "share of documents held out for validation")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();

  DescribeArgs describe;
  CLI::App* describe_cmd = app.add_subcommand("describe", "print the model's parameter table");
  // No existence check here: an unknown option after the preset must be reported as such, not as a missing file.
  auto* describe_config = describe_cmd->add_option("config", describe.config, "job config (JSON)");
  auto* describe_preset = describe_cmd->add_option("--preset", describe.preset, "model preset name (configs/models)");
  describe_cmd->add_option("--variant", describe.variant, "scale-vector variant, with --preset")->capture_default_str();
  describe_cmd->add_flag("--variants", describe.variants, "print the names of the variants, one line");
  describe_cmd->add_flag("--json", describe.json, "print the resolved job config (model and scale-vector axes) as JSON");
  describe_config->excludes(describe_preset);
  describe_cmd->callback([&] {
    if (describe.config.empty() && describe.preset.empty() && !describe.variants) {
      throw CLI::RequiredError("CONFIG or --preset");
    }
  });

  ExportArgs exp;
  CLI::App* export_cmd = app.add_subcommand("export", "write a checkpoint as safetensors + config.json");
  export_cmd->add_option("--config", exp.config, "job config (JSON)")->required()->check(CLI::ExistingFile);
  export_cmd->add_option("--ckpt-dir", exp.ckpt_dir, "checkpoint directory")->required()->check(CLI::ExistingDirectory);
  export_cmd->add_option("--out", exp.out, "output directory")->required();
  export_cmd->add_option("--layout", exp.layout,
                         "auto: LlamaForCausalLM when the variant folds into it, else custom code; llama; gammalab "
                         "(custom code for any variant, parameters as trained)")
      ->check(CLI::IsMember({"auto", "llama", "gammalab"}));

  // A command job's program as several ranks (docs/own-program.md): the worker runs this, not gammalab-train's
  // own model.
  trainer::CommandRanks command_ranks;
  CLI::App* ranks_cmd = app.add_subcommand(
      "ranks", "start a command job's program as N ranks on this machine, with torchrun's variables");
  ranks_cmd->add_option("--world-size", command_ranks.world_size, "ranks to start (RANK 0 .. N-1)")
      ->required()
      ->check(CLI::Range(1, limits::kMaxWorldSize));
  ranks_cmd->add_option("command", command_ranks.argv, "PROGRAM (its path) and its arguments, after --")
      ->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  try {
    if (*run_cmd) {
      // A run's config and data errors are permanent: the worker fails the job without another attempt.
      try {
        return cmd_run(run, argc, argv);
      } catch (const ConfigError& e) {
        std::cerr << "config error: " << e.what() << "\n";
        return exit_codes::kConfigError;
      } catch (const DataUnavailable& e) {
        std::cerr << "data error: " << e.what() << "\n";
        return exit_codes::kDataUnavailable;
      } catch (const std::exception& e) {
        if (!trainer::is_out_of_memory(e)) throw;
        std::cerr << "out of memory: " << trainer::error_text_without_backtrace(e) << "\n";
        return exit_codes::kOutOfMemory;
      }
    }
    if (*ranks_cmd) {
      std::signal(SIGTERM, on_sigterm);
      return trainer::run_command_ranks(command_ranks, g_stop, std::cerr, STDOUT_FILENO);
    }
    if (*prepare_cmd) return cmd_prepare(prepare);
    if (*describe_cmd) return cmd_describe(describe);
    if (*export_cmd) return cmd_export(exp);
  } catch (const ConfigError& e) {
    std::cerr << "config error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return kExitUsage;
}
