// gammalab-spm: SentencePiece BPE training and encoding for `gammalab-train prepare --tokenizer bpe`.
// A separate process because libsentencepiece carries its own protobuf, which clashes with the libprotobuf
// that LibTorch loads (the two in one process crash at start-up).
//   gammalab-spm train  DOCS PREFIX VOCAB     (DOCS: documents separated by NUL bytes)
//   gammalab-spm encode MODEL DOCS OUT        (OUT: uint32 tokens, EOS before every document)
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

namespace {

std::vector<std::string> read_docs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<std::string> docs;
  std::string doc;
  std::istringstream all(ss.str());
  while (std::getline(all, doc, '\0')) {
    if (!doc.empty()) docs.push_back(doc);
  }
  return docs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: gammalab-spm train DOCS PREFIX VOCAB | encode MODEL DOCS OUT\n";
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "train") {
    const auto docs = read_docs(argv[2]);
    const std::string corpus = std::string(argv[3]) + ".corpus.txt";
    {
      std::ofstream out(corpus, std::ios::binary);
      for (const auto& d : docs) out << d << '\n';
    }
    // Named arguments, not one flags string: the string form splits on spaces, so a path with one in it would
    // be cut in two.
    const std::unordered_map<std::string, std::string> args = {
        {"input", corpus}, {"model_prefix", argv[3]}, {"vocab_size", argv[4]}, {"model_type", "bpe"},
        {"character_coverage", "1.0"}, {"byte_fallback", "true"}, {"max_sentence_length", "1000000"},
        {"minloglevel", "2"}};
    const auto status = sentencepiece::SentencePieceTrainer::Train(args);
    std::remove(corpus.c_str());
    if (!status.ok()) {
      std::cerr << "SentencePiece training failed: " << status.ToString() << "\n";
      return 1;
    }
    return 0;
  }
  if (cmd == "encode") {
    sentencepiece::SentencePieceProcessor sp;
    const auto status = sp.Load(argv[2]);
    if (!status.ok()) {
      std::cerr << "cannot load " << argv[2] << ": " << status.ToString() << "\n";
      return 1;
    }
    std::vector<std::uint32_t> tokens;
    for (const auto& d : read_docs(argv[3])) {
      tokens.push_back(static_cast<std::uint32_t>(sp.eos_id()));
      std::vector<int> ids;
      sp.Encode(d, &ids);
      tokens.insert(tokens.end(), ids.begin(), ids.end());
    }
    std::ofstream out(argv[4], std::ios::binary);
    out.write(reinterpret_cast<const char*>(tokens.data()), static_cast<std::streamsize>(tokens.size() * 4));
    std::cout << sp.GetPieceSize() << "\n";
    return out ? 0 : 1;
  }
  std::cerr << "unknown command " << cmd << "\n";
  return 2;
}
