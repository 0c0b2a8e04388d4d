#include "worker/trainer/data/tokenizer.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <system_error>

#include "core/file_util.h"

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

// The helper gammalab-spm: $GAMMALAB_SPM, else next to this executable, else where the build put it.
std::string spm_binary() {
  if (const char* env = std::getenv("GAMMALAB_SPM"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && std::filesystem::exists(self.parent_path() / "gammalab-spm")) return (self.parent_path() / "gammalab-spm").string();
#ifdef GAMMALAB_SPM_BINARY
  if (std::filesystem::exists(GAMMALAB_SPM_BINARY)) return GAMMALAB_SPM_BINARY;
#endif
  throw std::runtime_error("gammalab-spm (the SentencePiece helper) not found; build it with libsentencepiece-dev");
}

// Runs gammalab-spm with `args` and returns what it printed. No shell and no file in between: each argument
// reaches the helper as it is (a path holding a quote or a space is a path), and its output comes back on a
// pipe, not through a temporary file that a link planted in the temporary directory could redirect.
std::string run_spm(const std::vector<std::string>& args) {
  const std::string binary = spm_binary();
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "gammalab-spm: pipe");
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);  // dup2 clears close-on-exec
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  if (spawned != 0) {
    ::close(out_pipe[0]);
    throw std::system_error(spawned, std::generic_category(), "gammalab-spm: cannot start " + binary);
  }
  std::string out;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(out_pipe[0], buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(out_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("gammalab-spm " + args.front() + " failed");
  return out;
}

void write_docs(const std::filesystem::path& path, const std::vector<std::string>& docs) {
  std::string all;
  for (const auto& d : docs) all += d + std::string(1, '\0');
  write_file_atomic(path, all);
}

// Encodes through the helper process: documents in, uint32 tokens (EOS before each document) out.
class BpeTokenizer : public Tokenizer {
 public:
  explicit BpeTokenizer(std::filesystem::path model) : model_(std::move(model)) {
    vocab_ = std::stoll(run_spm({"encode", model_.string(), "/dev/null", "/dev/null"}));
  }
  std::vector<std::uint32_t> encode_documents(const std::vector<std::string>& docs) const override {
    const auto tmp = std::filesystem::temp_directory_path() / ("gammalab_docs_" + std::to_string(::getpid()));
    write_docs(tmp.string() + ".txt", docs);
    run_spm({"encode", model_.string(), tmp.string() + ".txt", tmp.string() + ".u32"});
    const std::string bytes = read_file(tmp.string() + ".u32");
    std::filesystem::remove(tmp.string() + ".txt");
    std::filesystem::remove(tmp.string() + ".u32");
    std::vector<std::uint32_t> tokens(bytes.size() / 4);
    std::memcpy(tokens.data(), bytes.data(), tokens.size() * 4);
    return tokens;
  }
  std::vector<std::uint32_t> encode(const std::string& text) const override {
    auto t = encode_documents({text});
    return {t.begin() + 1, t.end()};
  }
  std::string decode(const std::vector<std::uint32_t>&) const override {
    throw std::runtime_error("BPE decoding is not needed by the trainer");
  }
  std::uint32_t document_separator() const override { return 2; }  // SentencePiece's default </s>
  std::int64_t vocab_size() const override { return vocab_; }

 private:
  std::filesystem::path model_;
  std::int64_t vocab_ = 0;
};

}  // namespace

std::unique_ptr<Tokenizer> make_byte_tokenizer() { return std::make_unique<ByteTokenizer>(); }

std::unique_ptr<Tokenizer> train_bpe_tokenizer(const std::vector<std::string>& documents, int vocab_size,
                                               const std::filesystem::path& model_prefix) {
  const auto docs = model_prefix.string() + ".docs.txt";
  write_docs(docs, documents);
  run_spm({"train", docs, model_prefix.string(), std::to_string(vocab_size)});
  std::filesystem::remove(docs);
  return load_bpe_tokenizer(model_prefix.string() + ".model");
}

std::unique_ptr<Tokenizer> load_bpe_tokenizer(const std::filesystem::path& model_file) {
  return std::make_unique<BpeTokenizer>(model_file);
}

}  // namespace gammalab::trainer
