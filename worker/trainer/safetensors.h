#pragma once
// The safetensors format: 8-byte little-endian header length, a JSON header {name: {dtype, shape,
// data_offsets}, "__metadata__": {string: string}}, then the raw little-endian tensor bytes.
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace gammalab::trainer {

struct SafeTensors {
  std::vector<std::pair<std::string, at::Tensor>> tensors;  // in file order
  std::map<std::string, std::string> metadata;
  const at::Tensor* find(const std::string& name) const;
};

std::string encode_safetensors(const SafeTensors& st);
SafeTensors decode_safetensors(const std::string& bytes);  // throws std::runtime_error on malformed input
void write_safetensors(const std::filesystem::path& path, const SafeTensors& st);  // atomic
SafeTensors read_safetensors(const std::filesystem::path& path);

}  // namespace gammalab::trainer
