#include "worker/trainer/safetensors_header.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace gammalab::trainer {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("safetensors: " + what); }

// Names in messages are cut: a hostile header may hold a megabyte-long one.
std::string shown_name(std::string_view name) {
  constexpr std::size_t kShown = 64;
  return absl::StrCat("\"", std::string(name.substr(0, kShown)), name.size() > kShown ? "...\"" : "\"");
}

std::uint64_t unsigned_field(const json& value, const std::string& where) {
  if (!value.is_number_unsigned()) fail(where + " must be a non-negative integer, not " + value.dump().substr(0, 64));
  return value.get<std::uint64_t>();
}

SafeTensorsEntry parse_entry(const std::string& name, const json& info, std::uint64_t data_size) {
  const std::string where = "tensor " + shown_name(name);
  if (!info.is_object()) fail(where + " must be an object");
  for (const auto& [key, _] : info.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") fail(where + " has an unknown field " + shown_name(key));
  }
  if (!info.contains("dtype") || !info["dtype"].is_string()) fail(where + ".dtype must be a string");
  if (!info.contains("shape") || !info["shape"].is_array()) fail(where + ".shape must be an array");
  if (!info.contains("data_offsets") || !info["data_offsets"].is_array() || info["data_offsets"].size() != 2) {
    fail(where + ".data_offsets must be an array of two integers");
  }
  SafeTensorsEntry entry;
  entry.name = name;
  entry.dtype = info["dtype"].get<std::string>();
  const std::size_t element_bytes = safetensors_dtype_bytes(entry.dtype);
  if (element_bytes == 0) fail(where + ".dtype " + shown_name(entry.dtype) + " is not a dtype gammalab reads");
  const json& shape = info["shape"];
  if (shape.size() > kMaxSafetensorsRank) {
    fail(absl::StrCat(where, ".shape has ", shape.size(), " dimensions, over the limit of ", kMaxSafetensorsRank));
  }
  // The byte count in checked arithmetic: a shape of huge dimensions must be refused, not wrap around to a
  // size that happens to match its offsets.
  std::uint64_t bytes = element_bytes;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::uint64_t dim = unsigned_field(shape[i], absl::StrCat(where, ".shape[", i, "]"));
    if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        __builtin_mul_overflow(bytes, dim, &bytes)) {
      fail(absl::StrCat(where, ".shape[", i, "] = ", dim, " makes the tensor larger than any file"));
    }
    entry.shape.push_back(static_cast<std::int64_t>(dim));
  }
  entry.begin = unsigned_field(info["data_offsets"][0], where + ".data_offsets[0]");
  entry.end = unsigned_field(info["data_offsets"][1], where + ".data_offsets[1]");
  if (entry.begin > entry.end || entry.end > data_size) {
    fail(absl::StrCat(where, ".data_offsets [", entry.begin, ", ", entry.end, "] are not a range inside the ",
                      data_size, "-byte data section"));
  }
  if (entry.end - entry.begin != bytes) {
    fail(absl::StrCat(where, " holds ", entry.end - entry.begin, " bytes but its shape and dtype need ", bytes));
  }
  return entry;
}

}  // namespace

std::size_t safetensors_dtype_bytes(std::string_view dtype) {
  if (dtype == "F64" || dtype == "I64") return 8;
  if (dtype == "F32" || dtype == "I32") return 4;
  if (dtype == "BF16" || dtype == "F16" || dtype == "I16") return 2;
  if (dtype == "U8" || dtype == "I8" || dtype == "BOOL") return 1;
  return 0;
}

SafeTensorsHeader parse_safetensors_header(std::string_view file) {
  if (file.size() < 8) fail(absl::StrCat("file of ", file.size(), " bytes is shorter than its 8-byte header length"));
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t(static_cast<unsigned char>(file[static_cast<std::size_t>(i)])) << (8 * i);
  if (n > kMaxSafetensorsHeaderBytes) {
    fail(absl::StrCat("header length ", n, " is over the limit of ", kMaxSafetensorsHeaderBytes, " bytes"));
  }
  if (n > file.size() - 8) fail(absl::StrCat("header length ", n, " runs past the end of the ", file.size(), "-byte file"));

  // The header nests three deep at most (root, tensor, shape); a deeper document is refused while it is read,
  // so that its size, not its nesting, bounds the work.
  constexpr int kMaxDepth = 3;
  const json::parser_callback_t depth_limit = [](int depth, json::parse_event_t, json&) {
    if (depth > kMaxDepth) fail(absl::StrCat("header nests deeper than ", kMaxDepth, " levels"));
    return true;
  };
  json header;
  try {
    header = json::parse(file.substr(8, n), depth_limit);
  } catch (const json::exception& e) {
    fail(absl::StrCat("header is not JSON: ", e.what()));
  }
  if (!header.is_object()) fail("header must be a JSON object");

  SafeTensorsHeader out;
  out.data_offset = 8 + n;
  const std::uint64_t data_size = file.size() - out.data_offset;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (!info.is_object()) fail("__metadata__ must be an object of strings");
      for (const auto& [key, value] : info.items()) {
        if (!value.is_string()) fail("__metadata__." + shown_name(key) + " must be a string");
        out.metadata[key] = value.get<std::string>();
      }
      continue;
    }
    out.entries.push_back(parse_entry(name, info, data_size));
  }
  // The ranges must tile the data section: no byte read twice (two tensors aliasing one buffer) and none
  // unaccounted for (a polyglot file hiding other content), as the format requires.
  std::sort(out.entries.begin(), out.entries.end(),
            [](const SafeTensorsEntry& a, const SafeTensorsEntry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  std::uint64_t covered = 0;
  for (const SafeTensorsEntry& entry : out.entries) {
    if (entry.begin != covered) {
      fail(absl::StrCat("tensor ", shown_name(entry.name), " starts at byte ", entry.begin, " of the data section: ",
                        entry.begin < covered ? "it overlaps the tensor before it, which ends at byte "
                                              : "it leaves a gap after byte ",
                        covered));
    }
    covered = entry.end;
  }
  if (covered != data_size) {
    fail(absl::StrCat("the tensors cover ", covered, " bytes of a ", data_size, "-byte data section"));
  }
  return out;
}

}  // namespace gammalab::trainer
