// Opening files under the shared root without following links (core/shared_root_files.h): symbolic links at
// every depth, dangling ones, FIFOs and directories where a file belongs, paths that would leave the root,
// and files over a read's limit. A canary outside the root must never be read, written or created.
#include "core/shared_root_files.h"

#include "core/shared_root_claim.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

namespace gammalab {
namespace {

namespace fs = std::filesystem;
using shared_root::Dir;
using shared_root::Refused;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class SharedRootFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("gammalab-srf-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    fs::create_directories(root() / "jobs" / "7" / "ckpt");
    fs::create_directories(outside());
    std::ofstream(canary()) << "CANARY-SECRET";
    std::ofstream(outside() / "log.txt") << "CANARY-LOG";
  }
  void TearDown() override { fs::remove_all(base_); }
  fs::path root() const { return base_ / "shared"; }
  fs::path outside() const { return base_ / "outside"; }
  fs::path canary() const { return outside() / "canary"; }
  // Nothing outside the root changed: the same two files, the same bytes.
  void expect_outside_untouched() const {
    EXPECT_EQ(slurp(canary()), "CANARY-SECRET");
    EXPECT_EQ(slurp(outside() / "log.txt"), "CANARY-LOG");
    std::size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(outside())) files += e.is_regular_file() ? 1 : 0;
    EXPECT_EQ(files, 2u) << "a file was created outside the root";
  }

  fs::path base_;
};

// Runs `f`, expecting Refused whose message contains `what`.
template <typename F>
void expect_refused(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "not refused; expected '" << what << "'";
  } catch (const Refused& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST_F(SharedRootFilesTest, ALinkAtAnyDirectoryBelowTheRootIsRefused) {
  const Dir dir = Dir::open(root());
  fs::remove_all(root() / "jobs" / "7");
  fs::create_directory_symlink(outside(), root() / "jobs" / "7");
  expect_refused([&] { dir.find_dir("jobs/7"); }, "jobs/7: is a symbolic link");
  expect_refused([&] { dir.make_dir("jobs/7/ckpt"); }, "jobs/7: is a symbolic link");
  expect_refused([&] { dir.open_read("jobs/7/log.txt"); }, "is a symbolic link");
  expect_refused([&] { dir.read("jobs/7/canary", 1000); }, "is a symbolic link");
  expect_refused([&] { dir.open_append("jobs/7/log.txt"); }, "is a symbolic link");
  expect_refused([&] { dir.write_atomic("jobs/7/config.json", "{}"); }, "is a symbolic link");
  expect_refused([&] { dir.remove("jobs/7/canary"); }, "is a symbolic link");
  expect_outside_untouched();
}

TEST_F(SharedRootFilesTest, ALinkAtTheCheckpointDirectoryIsRefusedAndNotFollowedByMakeDir) {
  const Dir dir = Dir::open(root());
  fs::remove_all(root() / "jobs" / "7" / "ckpt");
  fs::create_directory_symlink(outside(), root() / "jobs" / "7" / "ckpt");
  expect_refused([&] { dir.make_dir("jobs/7/ckpt"); }, "jobs/7/ckpt: is a symbolic link (not followed)");
  const Dir job = dir.make_dir("jobs/7");
  expect_refused([&] { job.find_dir("ckpt"); }, "is a symbolic link");
  expect_refused([&] { job.write_atomic("ckpt/latest", "x"); }, "is a symbolic link");
  expect_outside_untouched();
}

TEST_F(SharedRootFilesTest, ALinkAtAFileIsNeverReadOrWrittenThrough) {
  const Dir dir = Dir::open(root());
  for (const char* name : {"log.txt", "log.node1.txt", "config.json", "config.node1.json"}) {
    fs::create_symlink(canary(), root() / "jobs" / "7" / name);
    const std::string rel = std::string("jobs/7/") + name;
    expect_refused([&] { dir.open_read(rel); }, rel + ": is a symbolic link");
    expect_refused([&] { dir.read(rel, 1 << 20); }, "is a symbolic link");
    expect_refused([&] { dir.open_append(rel); }, "is a symbolic link");
  }
  // A file replaced atomically replaces the link itself: the target is not written.
  dir.write_atomic("jobs/7/config.json", "{\"ok\":true}\n");
  EXPECT_FALSE(fs::is_symlink(root() / "jobs" / "7" / "config.json"));
  EXPECT_EQ(*dir.read("jobs/7/config.json", 100), "{\"ok\":true}\n");
  // Removing a link removes the link.
  dir.remove("jobs/7/log.txt");
  EXPECT_FALSE(fs::exists(fs::symlink_status(root() / "jobs" / "7" / "log.txt")));
  expect_outside_untouched();
}

TEST_F(SharedRootFilesTest, ADanglingLinkIsRefusedAndItsTargetNeverCreated) {
  const Dir dir = Dir::open(root());
  fs::create_symlink(outside() / "created", root() / "jobs" / "7" / "log.txt");
  expect_refused([&] { dir.open_append("jobs/7/log.txt"); }, "is a symbolic link");
  expect_refused([&] { dir.open_read("jobs/7/log.txt"); }, "is a symbolic link");
  fs::create_symlink(outside() / "made", root() / "jobs" / "7" / "ckpt" / "sub");
  expect_refused([&] { dir.make_dir("jobs/7/ckpt/sub"); }, "is a symbolic link");
  EXPECT_FALSE(fs::exists(outside() / "created"));
  EXPECT_FALSE(fs::exists(outside() / "made"));
  expect_outside_untouched();
}

TEST_F(SharedRootFilesTest, AFifoOrADirectoryIsNotARegularFileAndNeverBlocksTheOpener) {
  const Dir dir = Dir::open(root());
  ASSERT_EQ(::mkfifo((root() / "jobs" / "7" / "log.txt").c_str(), 0644), 0);
  const auto start = std::chrono::steady_clock::now();
  expect_refused([&] { dir.open_read("jobs/7/log.txt"); }, "jobs/7/log.txt: is not a regular file");
  expect_refused([&] { dir.open_append("jobs/7/log.txt"); }, "is not a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // A device, where the test may make one (the null device's numbers); and a link to the FIFO.
  if (::mknod((root() / "jobs" / "7" / "log.node1.txt").c_str(), S_IFCHR | 0644, ::makedev(1, 3)) == 0) {
    expect_refused([&] { dir.read("jobs/7/log.node1.txt", 100); }, "jobs/7/log.node1.txt: is not a regular file");
    expect_refused([&] { dir.open_append("jobs/7/log.node1.txt"); }, "is not a regular file");
  }
  fs::create_symlink(root() / "jobs" / "7" / "log.txt", root() / "jobs" / "7" / "config.node1.json");
  expect_refused([&] { dir.open_read("jobs/7/config.node1.json"); }, "is a symbolic link");
  fs::create_directories(root() / "jobs" / "7" / "config.json");
  expect_refused([&] { dir.read("jobs/7/config.json", 100); }, "is not a regular file");
  std::ofstream(root() / "jobs" / "7" / "file") << "x";
  expect_refused([&] { dir.find_dir("jobs/7/file"); }, "jobs/7/file: is not a directory");
}

TEST_F(SharedRootFilesTest, PathsThatCouldLeaveTheDirectoryAreRefusedBeforeAnyOpen) {
  const Dir dir = Dir::open(root());
  for (const char* rel : {"../outside/canary", "jobs/../../outside/canary", "/etc/passwd", "", ".", "jobs/./7"}) {
    EXPECT_THROW(dir.read(rel, 100), std::invalid_argument) << rel;
    EXPECT_THROW(dir.open_append(rel), std::invalid_argument) << rel;
  }
  EXPECT_EQ(shared_root::relative_below("/s", "/s/jobs/7/ckpt"), fs::path("jobs/7/ckpt"));
  EXPECT_EQ(shared_root::relative_below("/s/", "/s/jobs/../jobs/7"), fs::path("jobs/7"));
  for (const char* path : {"/s", "/s/..", "/t/jobs", "/s/../t", "jobs/7"}) {
    EXPECT_FALSE(shared_root::relative_below("/s", path)) << path;
  }
}

TEST_F(SharedRootFilesTest, TheRootAsConfiguredMayBeALink) {
  fs::create_directory_symlink(root(), base_ / "root-link");
  const Dir dir = Dir::open(base_ / "root-link");
  dir.write_atomic("jobs/7/config.json", "{}");
  EXPECT_EQ(slurp(root() / "jobs" / "7" / "config.json"), "{}");
  EXPECT_FALSE(dir.read("jobs/7/absent", 10));
  EXPECT_FALSE(dir.find_dir("jobs/8"));
  EXPECT_FALSE(dir.open_read("jobs/8/log.txt"));
}

TEST_F(SharedRootFilesTest, AReadOverItsLimitIsRefusedNotReadWhole) {
  const Dir dir = Dir::open(root());
  std::ofstream(root() / "jobs" / "7" / "big") << std::string(4096, 'x');
  EXPECT_EQ(dir.read("jobs/7/big", 4096)->size(), 4096u);
  expect_refused([&] { dir.read("jobs/7/big", 4095); }, "jobs/7/big: larger than the limit of 4095 bytes");
  // A sparse file of 3 GiB: refused from its size, before a byte is read.
  {
    std::ofstream(root() / "jobs" / "7" / "huge") << "x";
  }
  fs::resize_file(root() / "jobs" / "7" / "huge", 3ULL << 30);
  expect_refused([&] { dir.read("jobs/7/huge", 256); }, "larger than the limit of 256 bytes");
}

TEST_F(SharedRootFilesTest, AppendsAndListsStayBelowTheRoot) {
  const Dir dir = Dir::open(root());
  {
    const shared_root::Fd log = dir.open_append("jobs/7/log.txt");
    ASSERT_EQ(::write(log.get(), "one\n", 4), 4);
  }
  {
    const shared_root::Fd log = dir.open_append("jobs/7/log.txt");
    ASSERT_EQ(::write(log.get(), "two\n", 4), 4);
  }
  EXPECT_EQ(*dir.read("jobs/7/log.txt", 100), "one\ntwo\n");
  fs::create_symlink(canary(), root() / "jobs" / "7" / "ckpt" / "ckpt_000000010.safetensors");
  std::ofstream(root() / "jobs" / "7" / "ckpt" / "ckpt_000000020.safetensors") << "abc";
  bool more = true;
  auto entries = dir.make_dir("jobs/7/ckpt").list(10, &more);
  EXPECT_FALSE(more);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_FALSE(entries[0].regular) << "a link is listed as a link";
  EXPECT_TRUE(entries[1].regular);
  EXPECT_EQ(entries[1].bytes, 3u);
  dir.make_dir("jobs/7/ckpt").list(1, &more);
  EXPECT_TRUE(more);
  expect_outside_untouched();
}

// A hard link is a second name for a file that may be anywhere on the filesystem (a secret, another job's
// log): neither read through (the log route would serve it) nor appended to (a worker would write there).
TEST_F(SharedRootFilesTest, AFileWithASecondNameIsNeitherReadNorWritten) {
  const Dir dir = Dir::open(root());
  fs::create_hard_link(canary(), root() / "jobs" / "7" / "log.txt");
  expect_refused([&] { dir.open_read("jobs/7/log.txt"); }, "jobs/7/log.txt: has 2 hard links");
  expect_refused([&] { dir.read("jobs/7/log.txt", 1000); }, "has 2 hard links");
  expect_refused([&] { dir.open_append("jobs/7/log.txt"); }, "has 2 hard links");
  // Replacing the name is fine: the new file has one name, and the other name keeps its bytes.
  dir.write_atomic("jobs/7/log.txt", "fresh");
  EXPECT_EQ(*dir.read("jobs/7/log.txt", 1000), "fresh");
  expect_outside_untouched();
}

TEST_F(SharedRootFilesTest, WriteNewKeepsAnExistingNameAndExactlyOneOfTwoRacersWins) {
  const Dir dir = Dir::open(root());
  EXPECT_TRUE(dir.write_new("marker", "first\n"));
  EXPECT_FALSE(dir.write_new("marker", "second\n"));
  EXPECT_EQ(*dir.read("marker", 100), "first\n");
  for (const auto& e : fs::directory_iterator(root())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << "a temp file was left behind";
  }
}

TEST_F(SharedRootFilesTest, ASharedRootHoldsOneDatabasesJobs) {
  const Dir dir = Dir::open(root());
  const std::string ours = "0123456789abcdef0123456789abcdef", theirs = "fedcba9876543210fedcba9876543210";
  EXPECT_EQ(shared_root::claim(dir, ours), "");
  EXPECT_EQ(slurp(root() / ".gammalab-database"), ours + "\n");
  EXPECT_EQ(shared_root::claim(dir, ours), "") << "claimed again by the same database (a restart, a restore)";
  const std::string why = shared_root::claim(dir, theirs);
  EXPECT_NE(why.find("holds the jobs of another database"), std::string::npos) << why;
  EXPECT_NE(why.find(ours), std::string::npos) << why;
  EXPECT_NE(why.find(theirs), std::string::npos) << why;
  EXPECT_NE(why.find("--shared-root"), std::string::npos) << why;
  EXPECT_EQ(slurp(root() / ".gammalab-database"), ours + "\n") << "the losing claim changed the marker";
  EXPECT_THROW(shared_root::claim(dir, "not-a-uid"), std::invalid_argument);
  // A link planted at the marker is neither followed nor replaced.
  fs::remove(root() / ".gammalab-database");
  fs::create_symlink(canary(), root() / ".gammalab-database");
  EXPECT_THROW(shared_root::claim(dir, ours), Refused);
  expect_outside_untouched();
}

}  // namespace
}  // namespace gammalab
