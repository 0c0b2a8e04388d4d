#pragma once
// Sequential packing of token shards into windows of seq_len + 1 tokens (inputs and shifted targets),
// visited in an order that depends only on the seed and the epoch, so a data position (epoch, cursor)
// fully determines every later batch (exact resume).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "worker/trainer/data/data_shard.h"

namespace gammalab::trainer {

struct DataPosition {
  std::int64_t epoch = 0;
  std::int64_t cursor = 0;  // windows of this epoch already served
};

class TokenDataset {
 public:
  TokenDataset(const std::vector<std::filesystem::path>& files, std::int64_t seq_len);
  std::int64_t windows() const { return total_windows_; }
  std::int64_t seq_len() const { return seq_len_; }
  std::uint32_t max_token() const;
  // Copies window i (seq_len + 1 tokens) into out.
  void window(std::int64_t i, std::int64_t* out) const;

 private:
  std::vector<std::unique_ptr<TokenShard>> shards_;
  std::vector<std::int64_t> first_window_;  // prefix sums of windows per shard
  std::int64_t total_windows_ = 0;
  std::int64_t seq_len_ = 0;
};

class BatchSampler {
 public:
  BatchSampler(const TokenDataset& data, std::uint64_t seed);
  // [n, seq_len + 1] int64 on CPU.
  at::Tensor next(std::int64_t n);
  DataPosition position() const { return pos_; }
  void seek(const DataPosition& pos);

 private:
  void shuffle_epoch();
  const TokenDataset& data_;
  std::uint64_t seed_;
  DataPosition pos_;
  std::vector<std::int64_t> order_;
};

// Windows first .. first+n-1 (wrapping around), in file order: the fixed held-out set.
at::Tensor sequential_windows(const TokenDataset& data, std::int64_t first, std::int64_t n);

}  // namespace gammalab::trainer
