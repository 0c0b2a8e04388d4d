#pragma once
// Shared helpers of the trainer tests: a small generated corpus and small job configs.
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/config_paths.h"
#include "core/job_config.h"
#include "core/model_preset.h"
#include "worker/trainer/data/data_shard.h"

namespace gammalab::trainer::testing {

// A fresh directory under the system temp dir, removed by the destructor.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("gammalab_trainer_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  static int& counter() {
    static int c = 0;
    return c;
  }
};

// Text with learnable structure: sentences from a small grammar over a fixed vocabulary.
inline std::string generated_text(std::size_t sentences, unsigned seed) {
  static const std::vector<std::string> subjects = {"the cat", "a dog", "my friend", "the old man", "every child"};
  static const std::vector<std::string> verbs = {"sees", "likes", "finds", "carries", "remembers"};
  static const std::vector<std::string> objects = {"the ball", "a red apple", "the river", "some bread", "a song"};
  std::mt19937 rng(seed);
  std::string text;
  for (std::size_t i = 0; i < sentences; ++i) {
    text += subjects[rng() % subjects.size()] + " " + verbs[rng() % verbs.size()] + " " + objects[rng() % objects.size()] + ".\n";
  }
  return text;
}

// Writes DIR/train.bin and DIR/val.bin with byte tokens of generated text.
inline void write_byte_corpus(const std::filesystem::path& dir, std::size_t train_sentences = 3000) {
  auto to_tokens = [](const std::string& s) { return std::vector<std::uint32_t>(s.begin(), s.end()); };
  write_shard(dir / "train.bin", to_tokens(generated_text(train_sentences, 1)));
  write_shard(dir / "val.bin", to_tokens(generated_text(200, 2)));
}

inline ModelSpec preset(const std::string& name) { return load_model_preset(name, model_preset_dir()); }

// tiny-0.1m shrunk to a short sequence so that a few hundred steps take seconds.
inline JobConfig tiny_job(const std::filesystem::path& data_dir, const std::string& variant = "baseline") {
  JobConfig c;
  c.model = preset("tiny-0.1m");
  c.model.seq_len = 32;
  c.scale = variant_preset(variant);
  c.data.train = (data_dir / "train.bin").string();
  c.data.val = (data_dir / "val.bin").string();
  c.data.eval_windows = 32;
  c.batch_tokens = 16 * 32;
  c.steps = 200;
  c.log_every = 10;
  c.optim.lr = 3e-3;
  c.schedule.warmup_steps = 10;
  c.threads = 1;  // deterministic and robust on a busy machine (OpenMP spin-waits under contention)
  return c;
}

}  // namespace gammalab::trainer::testing
