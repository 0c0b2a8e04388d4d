#include "worker/trainer/safetensors.h"

#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/file_util.h"

namespace gammalab::trainer {

namespace {

const std::vector<std::pair<at::ScalarType, const char*>>& dtype_names() {
  static const std::vector<std::pair<at::ScalarType, const char*>> names = {
      {at::kFloat, "F32"}, {at::kDouble, "F64"}, {at::kBFloat16, "BF16"}, {at::kHalf, "F16"},
      {at::kLong, "I64"},  {at::kInt, "I32"},    {at::kShort, "I16"},     {at::kByte, "U8"},
      {at::kChar, "I8"},   {at::kBool, "BOOL"}};
  return names;
}

const char* dtype_name(at::ScalarType t) {
  for (const auto& [type, name] : dtype_names()) {
    if (type == t) return name;
  }
  throw std::runtime_error("safetensors: unsupported dtype");
}

at::ScalarType dtype_from(const std::string& s) {
  for (const auto& [type, name] : dtype_names()) {
    if (s == name) return type;
  }
  throw std::runtime_error("safetensors: unsupported dtype " + s);
}

}  // namespace

const at::Tensor* SafeTensors::find(const std::string& name) const {
  for (const auto& [n, t] : tensors) {
    if (n == name) return &t;
  }
  return nullptr;
}

std::string encode_safetensors(const SafeTensors& st) {
  nlohmann::json header = nlohmann::json::object();
  std::vector<at::Tensor> cpu;
  std::size_t offset = 0;
  for (const auto& [name, t] : st.tensors) {
    at::Tensor c = t.detach().to(at::kCPU).contiguous();
    const std::size_t bytes = c.numel() * c.element_size();
    header[name] = {{"dtype", dtype_name(c.scalar_type())}, {"shape", c.sizes().vec()}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    cpu.push_back(c);
  }
  if (!st.metadata.empty()) header["__metadata__"] = st.metadata;
  std::string json = header.dump();
  while ((json.size() + 8) % 8 != 0) json.push_back(' ');  // align the data section
  std::string out(8, '\0');
  const std::uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  out += json;
  out.reserve(out.size() + offset);
  for (const auto& c : cpu) out.append(static_cast<const char*>(c.data_ptr()), c.numel() * c.element_size());
  return out;
}

SafeTensors decode_safetensors(const std::string& bytes) {
  if (bytes.size() < 8) throw std::runtime_error("safetensors: file shorter than its header length");
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t(static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)])) << (8 * i);
  if (n > bytes.size() - 8) throw std::runtime_error("safetensors: header length beyond end of file");
  const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
  const std::size_t data = 8 + n, data_size = bytes.size() - data;
  SafeTensors st;
  std::vector<std::tuple<std::size_t, std::string, at::Tensor>> ordered;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      for (const auto& [k, v] : info.items()) st.metadata[k] = v.get<std::string>();
      continue;
    }
    const at::ScalarType type = dtype_from(info.at("dtype").get<std::string>());
    const auto shape = info.at("shape").get<std::vector<std::int64_t>>();
    const auto offsets = info.at("data_offsets").get<std::vector<std::size_t>>();
    if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > data_size) {
      throw std::runtime_error("safetensors: bad data_offsets for " + name);
    }
    at::Tensor t = at::empty(shape, at::TensorOptions().dtype(type));
    if (static_cast<std::size_t>(t.numel()) * t.element_size() != offsets[1] - offsets[0]) {
      throw std::runtime_error("safetensors: size of " + name + " does not match its shape and dtype");
    }
    std::memcpy(t.data_ptr(), bytes.data() + data + offsets[0], offsets[1] - offsets[0]);
    ordered.emplace_back(offsets[0], name, t);
  }
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  for (auto& [off, name, t] : ordered) st.tensors.emplace_back(name, t);
  return st;
}

void write_safetensors(const std::filesystem::path& path, const SafeTensors& st) {
  write_file_atomic(path, encode_safetensors(st));
}

SafeTensors read_safetensors(const std::filesystem::path& path) { return decode_safetensors(read_file(path)); }

}  // namespace gammalab::trainer
