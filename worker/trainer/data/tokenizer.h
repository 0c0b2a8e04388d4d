#pragma once
// Tokenizers for `gammalab-train prepare`: bytes (vocab 256, byte 0 separates documents) or a SentencePiece
// BPE model trained on the corpus itself (through the helper process gammalab-spm).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace gammalab::trainer {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  virtual std::vector<std::uint32_t> encode(const std::string& text) const = 0;
  // Every document preceded by the separator (one call, so a helper process is started once).
  virtual std::vector<std::uint32_t> encode_documents(const std::vector<std::string>& docs) const {
    std::vector<std::uint32_t> out;
    for (const auto& d : docs) {
      out.push_back(document_separator());
      const auto ids = encode(d);
      out.insert(out.end(), ids.begin(), ids.end());
    }
    return out;
  }
  virtual std::string decode(const std::vector<std::uint32_t>& tokens) const = 0;
  virtual std::uint32_t document_separator() const = 0;
  virtual std::int64_t vocab_size() const = 0;
};

std::unique_ptr<Tokenizer> make_byte_tokenizer();

// Trains a BPE model on `documents` and writes <model_prefix>.model / .vocab. Throws if the helper
// gammalab-spm is not available.
std::unique_ptr<Tokenizer> train_bpe_tokenizer(const std::vector<std::string>& documents, int vocab_size,
                                               const std::filesystem::path& model_prefix);
std::unique_ptr<Tokenizer> load_bpe_tokenizer(const std::filesystem::path& model_file);

}  // namespace gammalab::trainer
