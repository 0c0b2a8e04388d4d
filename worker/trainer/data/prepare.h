#pragma once
// `gammalab-train prepare`: text (or the POS-tagged Brown corpus) -> DIR/train.bin + DIR/val.bin.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gammalab::trainer {

struct PrepareOptions {
  std::vector<std::filesystem::path> inputs;  // files or directories
  std::filesystem::path out;
  std::string tokenizer = "byte";  // byte | bpe
  int vocab = 0;                   // bpe vocabulary size
  std::string format = "text";     // text | brown
  double val_fraction = 0.01;
};

struct PrepareResult {
  std::int64_t documents = 0, train_tokens = 0, val_tokens = 0, vocab_size = 0;
};

// "The/at jury/nn said/vbd ``/`` ./." -> "The jury said `` ." (one sentence per line).
std::string strip_brown_tags(const std::string& tagged);

PrepareResult prepare_corpus(const PrepareOptions& options);

}  // namespace gammalab::trainer
