#include "worker/trainer/data/data_loader.h"

#include <algorithm>
#include <stdexcept>

namespace gammalab::trainer {

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

TokenDataset::TokenDataset(const std::vector<std::filesystem::path>& files, std::int64_t seq_len) : seq_len_(seq_len) {
  for (const auto& f : files) {
    auto shard = std::make_unique<TokenShard>(f);
    const std::int64_t w = shard->size() > seq_len ? (shard->size() - 1) / seq_len : 0;
    first_window_.push_back(total_windows_);
    total_windows_ += w;
    shards_.push_back(std::move(shard));
  }
  if (total_windows_ == 0) {
    throw std::runtime_error("token data " + (files.empty() ? std::string("(none)") : files.front().string()) +
                             " holds fewer than seq_len + 1 = " + std::to_string(seq_len + 1) + " tokens");
  }
}

std::uint32_t TokenDataset::max_token() const {
  std::uint32_t m = 0;
  for (const auto& s : shards_) m = std::max(m, s->max_token());
  return m;
}

void TokenDataset::window(std::int64_t i, std::int64_t* out) const {
  const auto it = std::upper_bound(first_window_.begin(), first_window_.end(), i) - 1;
  const std::size_t s = static_cast<std::size_t>(it - first_window_.begin());
  const TokenShard& shard = *shards_[s];
  const std::int64_t start = (i - *it) * seq_len_;
  for (std::int64_t t = 0; t <= seq_len_; ++t) out[t] = shard[start + t];
}

BatchSampler::BatchSampler(const TokenDataset& data, std::uint64_t seed) : data_(data), seed_(seed) { shuffle_epoch(); }

void BatchSampler::shuffle_epoch() {
  const std::int64_t n = data_.windows();
  order_.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) order_[static_cast<std::size_t>(i)] = i;
  std::uint64_t state = seed_ * 0x2545F4914F6CDD1Dull + static_cast<std::uint64_t>(pos_.epoch) + 1;
  for (std::int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates with our own generator: same order everywhere
    const auto j = static_cast<std::int64_t>(splitmix64(state) % static_cast<std::uint64_t>(i + 1));
    std::swap(order_[static_cast<std::size_t>(i)], order_[static_cast<std::size_t>(j)]);
  }
}

void BatchSampler::seek(const DataPosition& pos) {
  pos_ = pos;
  shuffle_epoch();
}

at::Tensor BatchSampler::next(std::int64_t n) {
  const std::int64_t T1 = data_.seq_len() + 1;
  at::Tensor batch = at::empty({n, T1}, at::kLong);
  auto* out = batch.data_ptr<std::int64_t>();
  for (std::int64_t b = 0; b < n; ++b) {
    if (pos_.cursor >= data_.windows()) {
      ++pos_.epoch;
      pos_.cursor = 0;
      shuffle_epoch();
    }
    data_.window(order_[static_cast<std::size_t>(pos_.cursor++)], out + b * T1);
  }
  return batch;
}

at::Tensor sequential_windows(const TokenDataset& data, std::int64_t first, std::int64_t n) {
  const std::int64_t T1 = data.seq_len() + 1;
  at::Tensor batch = at::empty({n, T1}, at::kLong);
  auto* out = batch.data_ptr<std::int64_t>();
  for (std::int64_t b = 0; b < n; ++b) data.window((first + b) % data.windows(), out + b * T1);
  return batch;
}

}  // namespace gammalab::trainer
