#include "worker/trainer/data/prepare.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "core/file_util.h"
#include "worker/trainer/data/data_shard.h"
#include "worker/trainer/data/tokenizer.h"

namespace gammalab::trainer {

std::string strip_brown_tags(const std::string& tagged) {
  std::istringstream lines(tagged);
  std::string line, out;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> sentence;
    for (std::string word; words >> word;) {
      const auto slash = word.rfind('/');
      if (slash != std::string::npos && slash > 0) word.resize(slash);
      sentence.push_back(std::move(word));
    }
    if (!sentence.empty()) out += absl::StrJoin(sentence, " ") + "\n";
  }
  return out;
}

namespace {

// Brown corpus text files are named ca01 .. cr09; a package directory also holds package.json etc.
bool is_brown_file(const std::filesystem::path& p) {
  static const std::regex name("c[a-r][0-9][0-9]");
  return std::regex_match(p.filename().string(), name);
}

std::vector<std::filesystem::path> input_files(const PrepareOptions& o) {
  std::vector<std::filesystem::path> files;
  for (const auto& in : o.inputs) {
    if (std::filesystem::is_directory(in)) {
      std::vector<std::filesystem::path> found;
      for (const auto& e : std::filesystem::recursive_directory_iterator(in)) {
        if (!e.is_regular_file() || e.path().filename().string().starts_with(".")) continue;
        if (o.format == "brown" && !is_brown_file(e.path())) continue;
        found.push_back(e.path());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (std::filesystem::is_regular_file(in)) {
      files.push_back(in);
    } else {
      throw std::runtime_error("input not found: " + in.string());
    }
  }
  if (files.empty()) throw std::runtime_error("no input files");
  return files;
}

}  // namespace

PrepareResult prepare_corpus(const PrepareOptions& o) {
  if (o.format != "text" && o.format != "brown") throw std::runtime_error("--format must be text or brown");
  if (o.tokenizer != "byte" && o.tokenizer != "bpe") throw std::runtime_error("--tokenizer must be byte or bpe");
  if (!(o.val_fraction > 0 && o.val_fraction < 1)) throw std::runtime_error("--val-fraction must be in (0, 1)");
  std::vector<std::string> docs;
  for (const auto& f : input_files(o)) {
    std::string text = read_file(f);
    if (o.format == "brown") text = strip_brown_tags(text);
    if (!text.empty()) docs.push_back(std::move(text));
  }
  std::filesystem::create_directories(o.out);
  std::unique_ptr<Tokenizer> tok;
  if (o.tokenizer == "bpe") {
    if (o.vocab < 16) throw std::runtime_error("--vocab is required for bpe (at least 16)");
    tok = train_bpe_tokenizer(docs, o.vocab, o.out / "tokenizer");
  } else {
    tok = make_byte_tokenizer();
  }
  // Like llm.c: a separator before every document.
  const std::vector<std::uint32_t> tokens = tok->encode_documents(docs);
  // The held-out part is the tail of the stream, so the two never share a window.
  const auto n = static_cast<std::int64_t>(tokens.size());
  const auto n_val = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(o.val_fraction * double(n))));
  if (n_val >= n) throw std::runtime_error("corpus too small to split");
  std::span<const std::uint32_t> all(tokens);
  write_shard(o.out / "train.bin", all.first(static_cast<std::size_t>(n - n_val)));
  write_shard(o.out / "val.bin", all.last(static_cast<std::size_t>(n_val)));
  return {static_cast<std::int64_t>(docs.size()), n - n_val, n_val, tok->vocab_size()};
}

}  // namespace gammalab::trainer
