#include "worker/trainer/tokenizer.h"

#include <fstream>
#include <stdexcept>

#ifdef GAMMALAB_HAVE_SENTENCEPIECE
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#endif

namespace gammalab::trainer {

namespace {

class ByteTokenizer : public Tokenizer {
 public:
  std::vector<std::uint32_t> encode(const std::string& text) const override {
    std::vector<std::uint32_t> out;
    out.reserve(text.size());
    for (unsigned char c : text) out.push_back(c);
    return out;
  }
  std::string decode(const std::vector<std::uint32_t>& tokens) const override {
    std::string s;
    for (auto t : tokens) s.push_back(static_cast<char>(t));
    return s;
  }
  std::uint32_t document_separator() const override { return 0; }  // NUL never occurs in text
  std::int64_t vocab_size() const override { return 256; }
};

#ifdef GAMMALAB_HAVE_SENTENCEPIECE
class BpeTokenizer : public Tokenizer {
 public:
  explicit BpeTokenizer(const std::filesystem::path& model) {
    const auto status = sp_.Load(model.string());
    if (!status.ok()) throw std::runtime_error("cannot load SentencePiece model " + model.string() + ": " + status.ToString());
  }
  std::vector<std::uint32_t> encode(const std::string& text) const override {
    std::vector<int> ids;
    sp_.Encode(text, &ids);
    return {ids.begin(), ids.end()};
  }
  std::string decode(const std::vector<std::uint32_t>& tokens) const override {
    std::string s;
    sp_.Decode(std::vector<int>(tokens.begin(), tokens.end()), &s);
    return s;
  }
  std::uint32_t document_separator() const override { return static_cast<std::uint32_t>(sp_.eos_id()); }
  std::int64_t vocab_size() const override { return sp_.GetPieceSize(); }

 private:
  sentencepiece::SentencePieceProcessor sp_;
};
#endif

}  // namespace

std::unique_ptr<Tokenizer> make_byte_tokenizer() { return std::make_unique<ByteTokenizer>(); }

std::unique_ptr<Tokenizer> train_bpe_tokenizer(const std::vector<std::string>& documents, int vocab_size,
                                               const std::filesystem::path& model_prefix) {
#ifdef GAMMALAB_HAVE_SENTENCEPIECE
  const auto corpus = model_prefix.string() + ".corpus.txt";
  {
    std::ofstream out(corpus, std::ios::binary);
    for (const auto& d : documents) out << d << '\n';
  }
  const std::string args = "--input=" + corpus + " --model_prefix=" + model_prefix.string() +
                           " --vocab_size=" + std::to_string(vocab_size) +
                           " --model_type=bpe --character_coverage=1.0 --byte_fallback=true"
                           " --max_sentence_length=1000000 --minloglevel=2";
  const auto status = sentencepiece::SentencePieceTrainer::Train(args);
  std::filesystem::remove(corpus);
  if (!status.ok()) throw std::runtime_error("SentencePiece training failed: " + status.ToString());
  return load_bpe_tokenizer(model_prefix.string() + ".model");
#else
  (void)documents;
  (void)vocab_size;
  (void)model_prefix;
  throw std::runtime_error("this gammalab-train was built without SentencePiece (libsentencepiece-dev)");
#endif
}

std::unique_ptr<Tokenizer> load_bpe_tokenizer(const std::filesystem::path& model_file) {
#ifdef GAMMALAB_HAVE_SENTENCEPIECE
  return std::make_unique<BpeTokenizer>(model_file);
#else
  (void)model_file;
  throw std::runtime_error("this gammalab-train was built without SentencePiece (libsentencepiece-dev)");
#endif
}

}  // namespace gammalab::trainer
