// The safetensors header is checked before any tensor is allocated: each hostile shape of header is refused
// with a message naming the tensor, the field and the value, and a file our encoder writes round-trips.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "worker/trainer/safetensors.h"
#include "worker/trainer/safetensors_header.h"

namespace gammalab::trainer {
namespace {

std::string file_with(const nlohmann::json& header, std::size_t data_bytes) {
  const std::string json = header.dump();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((json.size() >> (8 * i)) & 0xFF);
  return out + json + std::string(data_bytes, '\0');
}

nlohmann::json tensor(const char* dtype, std::vector<std::int64_t> shape, std::uint64_t begin, std::uint64_t end) {
  return {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {begin, end}}};
}

std::string refusal(const std::string& file) {
  try {
    parse_safetensors_header(file);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(SafetensorsHeader, WhatTheEncoderWritesRoundTrips) {
  SafeTensors st;
  st.tensors = {{"w", torch::arange(6, torch::kFloat).reshape({2, 3})}, {"b", torch::ones({4}, torch::kBFloat16)},
                {"empty", torch::zeros({0, 3})}};
  st.metadata = {{"format", "pt"}};
  const std::string bytes = encode_safetensors(st);
  const SafeTensorsHeader header = parse_safetensors_header(bytes);
  ASSERT_EQ(header.entries.size(), 3u);
  EXPECT_EQ(header.metadata.at("format"), "pt");
  const SafeTensors back = decode_safetensors(bytes);
  ASSERT_EQ(back.tensors.size(), 3u);
  EXPECT_TRUE(torch::equal(*back.find("w"), st.tensors[0].second));
  EXPECT_TRUE(torch::equal(*back.find("b"), st.tensors[1].second));
  EXPECT_EQ(back.find("empty")->numel(), 0);
}

TEST(SafetensorsHeader, ShapeWhoseByteCountOverflowsIsRefusedBeforeAllocation) {
  // 2^32 * 2^32 * 4 bytes wraps to 0 in 64 bits, which would "match" empty offsets without checked arithmetic.
  const std::string file = file_with({{"a", tensor("F32", {1ll << 32, 1ll << 32}, 0, 0)}}, 0);
  EXPECT_NE(refusal(file).find("tensor \"a\".shape[1]"), std::string::npos) << refusal(file);
  EXPECT_THROW(decode_safetensors(file), std::runtime_error);
}

TEST(SafetensorsHeader, ClaimLargerThanTheFileIsRefused) {
  const std::string file = file_with({{"a", tensor("F64", {1'000'000'000'000}, 0, 8'000'000'000'000)}}, 16);
  EXPECT_NE(refusal(file).find("not a range inside the 16-byte data section"), std::string::npos) << refusal(file);
}

TEST(SafetensorsHeader, SizeMustMatchShapeAndDtype) {
  const std::string file = file_with({{"a", tensor("F32", {3}, 0, 8)}}, 8);
  EXPECT_NE(refusal(file).find("holds 8 bytes but its shape and dtype need 12"), std::string::npos) << refusal(file);
}

TEST(SafetensorsHeader, OverlapsAndGapsAreRefused) {
  const std::string overlap =
      file_with({{"a", tensor("U8", {4}, 0, 4)}, {"b", tensor("U8", {4}, 2, 6)}}, 6);
  EXPECT_NE(refusal(overlap).find("overlaps the tensor before it"), std::string::npos) << refusal(overlap);
  const std::string gap = file_with({{"a", tensor("U8", {2}, 2, 4)}}, 4);
  EXPECT_NE(refusal(gap).find("leaves a gap after byte 0"), std::string::npos) << refusal(gap);
  const std::string tail = file_with({{"a", tensor("U8", {2}, 0, 2)}}, 5);
  EXPECT_NE(refusal(tail).find("cover 2 bytes of a 5-byte data section"), std::string::npos) << refusal(tail);
}

TEST(SafetensorsHeader, FieldsAreTyped) {
  EXPECT_NE(refusal(file_with({{"a", tensor("F32", {-1}, 0, 0)}}, 0)).find("shape[0] must be a non-negative integer"),
            std::string::npos);
  EXPECT_NE(refusal(file_with({{"a", tensor("C64", {1}, 0, 8)}}, 8)).find("dtype \"C64\""), std::string::npos);
  EXPECT_NE(refusal(file_with({{"a", tensor("F32", {1, 1, 1, 1, 1, 1, 1, 1, 1}, 0, 4)}}, 4)).find("9 dimensions"),
            std::string::npos);
  EXPECT_NE(refusal(file_with({{"__metadata__", {{"k", 1}}}}, 0)).find("__metadata__.\"k\" must be a string"),
            std::string::npos);
  nlohmann::json extra = tensor("U8", {1}, 0, 1);
  extra["offset"] = 3;
  EXPECT_NE(refusal(file_with({{"a", extra}}, 1)).find("unknown field \"offset\""), std::string::npos);
}

TEST(SafetensorsHeader, HeaderLengthAndNestingAreBounded) {
  std::string beyond(8, '\0');
  beyond[7] = 0x7f;  // a header length near 2^63
  EXPECT_NE(refusal(beyond + "{}").find("over the limit of 100000000 bytes"), std::string::npos) << refusal(beyond);
  const std::string deep = std::string(5000, '[') + std::string(5000, ']');
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[static_cast<std::size_t>(i)] = static_cast<char>((deep.size() >> (8 * i)) & 0xFF);
  EXPECT_NE(refusal(file + deep).find("nests deeper than 3 levels"), std::string::npos) << refusal(file + deep);
  EXPECT_NE(refusal("1234").find("shorter than its 8-byte header length"), std::string::npos);
}

}  // namespace
}  // namespace gammalab::trainer
