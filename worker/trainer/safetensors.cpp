#include "worker/trainer/safetensors.h"

#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "worker/trainer/safetensors_header.h"

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
  // Every size and offset is checked before the first allocation (see safetensors_header.h).
  const SafeTensorsHeader header = parse_safetensors_header(bytes);
  SafeTensors st;
  st.metadata = header.metadata;
  for (const SafeTensorsEntry& entry : header.entries) {
    at::Tensor t = at::empty(entry.shape, at::TensorOptions().dtype(dtype_from(entry.dtype)));
    if (entry.end > entry.begin) {  // an empty tensor may have no buffer to copy into
      std::memcpy(t.data_ptr(), bytes.data() + header.data_offset + entry.begin, entry.end - entry.begin);
    }
    st.tensors.emplace_back(entry.name, std::move(t));
  }
  return st;
}

void write_safetensors(const std::filesystem::path& path, const SafeTensors& st) {
  write_file_atomic(path, encode_safetensors(st));
}

SafeTensors read_safetensors(const std::filesystem::path& path) { return decode_safetensors(read_file(path)); }

}  // namespace gammalab::trainer
