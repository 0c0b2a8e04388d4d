// Checkpoint integrity: a damaged newest checkpoint (overwritten or truncated) is reported by name and the
// intact one before it resumes the run, which then matches an uninterrupted run exactly.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "core/exit_codes.h"
#include "core/file_util.h"
#include "core/metric.h"
#include "core/shared_root_files.h"
#include "tests/trainer/trained_run.h"
#include "tests/trainer/trainer_test_util.h"
#include "worker/trainer/checkpoint.h"
#include "worker/trainer/checkpoint_checksum.h"
#include "worker/trainer/trainer.h"

namespace gammalab::trainer {
namespace {

using testing::TempDir;
using testing::TrainedRun;
using testing::train_in_process;
using testing::tiny_job;
using testing::write_byte_corpus;

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& ch : s) ch = static_cast<char>(rng() & 0xFF);
  return s;
}

// Replaces the file in place (not via rename), as a fault or a careless writer would.
void overwrite(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

enum class Damage { RandomSameLength, RandomLast4K, Truncated };

void damage(const std::filesystem::path& file, Damage how) {
  std::string bytes = read_file(file);
  switch (how) {
    case Damage::RandomSameLength:
      bytes = random_bytes(bytes.size(), 7);
      break;
    case Damage::RandomLast4K:  // the header still parses: only a checksum tells the tensors are garbage
      bytes.replace(bytes.size() - 4096, 4096, random_bytes(4096, 8));
      break;
    case Damage::Truncated:
      bytes.resize(bytes.size() / 2);
      break;
  }
  overwrite(file, bytes);
}

std::filesystem::path ckpt(const std::filesystem::path& dir, int step) {
  char name[64];
  std::snprintf(name, sizeof(name), "ckpt_%09d.safetensors", step);
  return dir / name;
}

// A reference run, and a run of the same job killed at step 45 with checkpoints 30 and 40 on disk.
class CheckpointRun : public ::testing::Test {
 protected:
  void SetUp() override {
    write_byte_corpus(data.path, 800);
    c = tiny_job(data.path);
    c.steps = 60;
    c.log_every = 1;
    c.eval_every = 0;
    c.ckpt_every = 10;
    TrainerOptions ref;
    ref.ckpt_dir = ref_dir.path;
    reference = train_in_process(c, ref);
    ASSERT_EQ(reference.code, 0);
    ASSERT_EQ(reference.loss().size(), 60u);
    o.ckpt_dir = dir.path;
    o.crash_after_step = 45;  // as if killed at 45: checkpoints 30 and 40 are on disk
    ASSERT_EQ(train_in_process(c, o).code, exit_codes::kCrashed);
    o.crash_after_step = 0;
    ASSERT_TRUE(std::filesystem::exists(ckpt(dir.path, 30)));
    ASSERT_EQ(*latest_checkpoint(dir.path), ckpt(dir.path, 40));
  }

  // The fixture's state afresh: both directories emptied, both runs again.
  void restart() {
    for (const auto* d : {&ref_dir.path, &dir.path}) {
      for (const auto& e : std::filesystem::directory_iterator(*d)) std::filesystem::remove_all(e.path());
    }
    SetUp();
  }

  void expect_matches_reference(const TrainedRun& r) {
    ASSERT_EQ(r.code, 0) << r.log;
    ASSERT_EQ(r.loss().size(), reference.loss().size()) << r.log;
    for (const auto& [step, loss] : reference.loss()) EXPECT_EQ(r.loss().at(step), loss) << "step " << step;
  }

  TempDir data, ref_dir, dir;
  JobConfig c;
  TrainerOptions o;
  TrainedRun reference;
};

class CheckpointIntegrity : public CheckpointRun, public ::testing::WithParamInterface<Damage> {};

TEST_P(CheckpointIntegrity, DamagedNewestFallsBackToThePreviousAndMatchesAnUninterruptedRun) {
  damage(ckpt(dir.path, 40), GetParam());
  const TrainedRun resumed = train_in_process(c, o);
  expect_matches_reference(resumed);
  EXPECT_NE(resumed.log.find("resumed from " + ckpt(dir.path, 30).string() + " at step 30"), std::string::npos)
      << resumed.log;
}

TEST_P(CheckpointIntegrity, TheDamagedFileIsNamedWithTheReason) {
  damage(ckpt(dir.path, 40), GetParam());
  const TrainedRun resumed = train_in_process(c, o);
  ASSERT_EQ(resumed.code, 0) << resumed.log;
  const std::string expected = "rejected checkpoint " + ckpt(dir.path, 40).string() + ": ";
  const auto at = resumed.log.find(expected);
  ASSERT_NE(at, std::string::npos) << resumed.log;
  const std::string line = resumed.log.substr(at, resumed.log.find('\n', at) - at);
  const char* reason = GetParam() == Damage::Truncated ? "truncated" : "corrupted";
  EXPECT_NE(line.find(reason), std::string::npos) << line;
}

INSTANTIATE_TEST_SUITE_P(Damages, CheckpointIntegrity,
                         ::testing::Values(Damage::RandomSameLength, Damage::RandomLast4K, Damage::Truncated),
                         [](const auto& info) {
                           switch (info.param) {
                             case Damage::RandomSameLength: return std::string("RandomSameLength");
                             case Damage::RandomLast4K: return std::string("RandomLast4K");
                             case Damage::Truncated: return std::string("Truncated");
                           }
                           return std::string();
                         });

// Both checkpoints damaged: as with no checkpoint at all, the run starts over (and, being deterministic,
// still matches the uninterrupted run), having said why.
TEST_F(CheckpointRun, NoIntactCheckpointStartsOverAndSaysSo) {
  damage(ckpt(dir.path, 40), Damage::Truncated);
  damage(ckpt(dir.path, 30), Damage::RandomLast4K);
  const TrainedRun resumed = train_in_process(c, o);
  expect_matches_reference(resumed);
  EXPECT_NE(resumed.log.find("rejected checkpoint " + ckpt(dir.path, 30).string()), std::string::npos) << resumed.log;
  EXPECT_NE(resumed.log.find("no intact checkpoint in " + dir.path.string() + ": starting from step 0"),
            std::string::npos)
      << resumed.log;
}

// Checkpoints written before checksums were stored still resume, with a warning.
TEST_F(CheckpointRun, PreviousFormatWithoutChecksumLoadsWithAWarning) {
  for (int step : {30, 40}) ASSERT_TRUE(std::filesystem::remove(checksum_path(ckpt(dir.path, step))));
  const TrainedRun resumed = train_in_process(c, o);
  expect_matches_reference(resumed);
  EXPECT_NE(resumed.log.find("checkpoint " + ckpt(dir.path, 40).string() + " has no checksum"), std::string::npos)
      << resumed.log;
  EXPECT_NE(resumed.log.find("resumed from " + ckpt(dir.path, 40).string()), std::string::npos) << resumed.log;
}

// After a fallback to 30, the damaged 40 must not count among the two kept checkpoints: stopping at 35 keeps
// 30 and 35, so that 35 damaged in turn still leaves 30.
TEST_F(CheckpointRun, AfterAFallbackTheIntactOlderCheckpointIsKept) {
  damage(ckpt(dir.path, 40), Damage::RandomSameLength);
  o.stop_after_step = 35;
  ASSERT_EQ(train_in_process(c, o).code, exit_codes::kStopped);
  o.stop_after_step = 0;
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ckpt_000000030.safetensors", "ckpt_000000030.safetensors.sum",
                                             "ckpt_000000035.safetensors", "ckpt_000000035.safetensors.sum",
                                             "latest"}));
  damage(ckpt(dir.path, 35), Damage::Truncated);
  const TrainedRun resumed = train_in_process(c, o);
  expect_matches_reference(resumed);
  EXPECT_NE(resumed.log.find("resumed from " + ckpt(dir.path, 30).string()), std::string::npos) << resumed.log;
}

// An intact checkpoint of another model is a configuration error, as before: no fallback, no fresh start.
TEST_F(CheckpointRun, IntactCheckpointOfAnotherModelStillFails) {
  JobConfig other = c;
  other.model.d_model *= 2;
  EXPECT_THROW(train_in_process(other, o), std::runtime_error);
}


// Links and other planted files in the checkpoint directory (core/shared_root_files.h): never followed, never
// read whole, and nothing outside the directory is read or written. `ref_dir` plays another job's directory:
// its checkpoints verify, so only the refusal to follow a name out of the directory keeps them out.
std::map<std::string, std::string> snapshot(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    files[e.path().filename().string()] = read_file(e.path());
  }
  return files;
}

TEST_F(CheckpointRun, ALatestNamingAFileOutsideItsDirectoryIsIgnored) {
  for (const std::string& named : {ckpt(ref_dir.path, 60).string(),
                                   "../" + ref_dir.path.filename().string() + "/ckpt_000000060.safetensors",
                                   std::string("ckpt_000000060.safetensors/../../x"), std::string(300, 'x')}) {
    const auto other = snapshot(ref_dir.path);
    std::ofstream(dir.path / "latest", std::ios::trunc) << named << "\n";
    const TrainedRun resumed = train_in_process(c, o);
    expect_matches_reference(resumed);
    EXPECT_NE(resumed.log.find("ignored " + (dir.path / "latest").string()), std::string::npos) << resumed.log;
    EXPECT_NE(resumed.log.find("resumed from " + ckpt(dir.path, 40).string() + " at step 40"), std::string::npos)
        << resumed.log;
    EXPECT_EQ(snapshot(ref_dir.path), other) << "the other job's directory was written";
    restart();  // the run ended at 60: back to checkpoints 30 and 40 for the next case
  }
}

TEST_F(CheckpointRun, LinksInTheCheckpointDirectoryAreRefusedAndNothingOutsideIsWritten) {
  TempDir outside;
  std::ofstream(outside.path / "canary") << "ckpt_000000060.safetensors\n";
  // The newest checkpoint and its record become links to another job's (intact) newest ones, `latest` a link
  // to a file that names a checkpoint.
  for (const auto& file : {ckpt(dir.path, 40), checksum_path(ckpt(dir.path, 40)), dir.path / "latest"}) {
    ASSERT_TRUE(std::filesystem::remove(file));
  }
  std::filesystem::create_symlink(ckpt(ref_dir.path, 60), ckpt(dir.path, 40));
  std::filesystem::create_symlink(checksum_path(ckpt(ref_dir.path, 60)), checksum_path(ckpt(dir.path, 40)));
  std::filesystem::create_symlink(outside.path / "canary", dir.path / "latest");
  const auto other = snapshot(ref_dir.path);
  const TrainedRun resumed = train_in_process(c, o);
  expect_matches_reference(resumed);
  EXPECT_NE(resumed.log.find("ignored " + (dir.path / "latest").string() + ": is a symbolic link (not followed)"),
            std::string::npos)
      << resumed.log;
  EXPECT_NE(resumed.log.find("rejected checkpoint " + ckpt(dir.path, 40).string() + ": is a symbolic link"),
            std::string::npos)
      << resumed.log;
  EXPECT_NE(resumed.log.find("resumed from " + ckpt(dir.path, 30).string()), std::string::npos) << resumed.log;
  EXPECT_EQ(snapshot(ref_dir.path), other);
  EXPECT_EQ(snapshot(outside.path), (std::map<std::string, std::string>{{"canary", "ckpt_000000060.safetensors\n"}}));
  // The run's own writes replaced the links by renames; none is left to follow.
  for (const auto& e : std::filesystem::directory_iterator(dir.path)) EXPECT_FALSE(e.is_symlink()) << e.path();
}

TEST_F(CheckpointRun, AHugeLatestOrFifoIsNotReadAndAnOversizedCheckpointIsRefusedUnread) {
  ASSERT_TRUE(std::filesystem::remove(dir.path / "latest"));
  ASSERT_EQ(::mkfifo((dir.path / "latest").c_str(), 0644), 0);
  TrainedRun resumed = train_in_process(c, o);
  expect_matches_reference(resumed);
  EXPECT_NE(resumed.log.find("latest: is not a regular file"), std::string::npos) << resumed.log;

  restart();
  {
    std::ofstream(dir.path / "latest", std::ios::trunc) << "ckpt_000000040.safetensors\n";
  }
  std::filesystem::resize_file(dir.path / "latest", 3ULL << 30);  // sparse: 3 GiB that would be read whole
  // A checkpoint far larger than this model's could be is refused from its size, before it is read.
  std::filesystem::resize_file(ckpt(dir.path, 40), 8ULL << 30);
  resumed = train_in_process(c, o);
  expect_matches_reference(resumed);
  EXPECT_NE(resumed.log.find("latest: larger than the limit of " + std::to_string(kMaxLatestBytes) + " bytes"),
            std::string::npos)
      << resumed.log;
  EXPECT_NE(resumed.log.find("rejected checkpoint " + ckpt(dir.path, 40).string() + ": larger than the limit"),
            std::string::npos)
      << resumed.log;
  EXPECT_NE(resumed.log.find("resumed from " + ckpt(dir.path, 30).string()), std::string::npos) << resumed.log;
}

// Under a shared root (as the worker runs it), the way to the checkpoint directory follows no link either: a
// link at the job's directory or at ckpt/ fails the run, naming it, and nothing is written where it points.
TEST_F(CheckpointRun, ALinkOnTheWayToTheCheckpointDirectoryFailsTheRun) {
  TempDir shared, outside;
  std::filesystem::create_directories(shared.path / "jobs" / "7");
  std::filesystem::create_directory_symlink(dir.path, shared.path / "jobs" / "7" / "ckpt");
  std::filesystem::create_directory_symlink(outside.path, shared.path / "jobs" / "8");
  const auto before = snapshot(dir.path);
  for (const char* job : {"7", "8"}) {
    TrainerOptions under = o;
    under.shared_root = shared.path;
    under.ckpt_dir = shared.path / "jobs" / job / "ckpt";
    try {
      train_in_process(c, under);
      ADD_FAILURE() << "job " << job << ": a link was followed";
    } catch (const shared_root::Refused& e) {
      EXPECT_NE(std::string(e.what()).find("is a symbolic link"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(snapshot(dir.path), before);
  EXPECT_TRUE(std::filesystem::is_empty(outside.path));
  // The same directory reached without a link resumes as usual; a path outside the root is refused.
  TrainerOptions under = o;
  under.shared_root = shared.path;
  under.ckpt_dir = shared.path / "jobs" / "9" / "ckpt";
  EXPECT_EQ(train_in_process(c, under).code, 0);
  EXPECT_TRUE(std::filesystem::exists(ckpt(under.ckpt_dir, 60)));
  under.ckpt_dir = dir.path;
  EXPECT_THROW(train_in_process(c, under), std::invalid_argument);
}

}  // namespace
}  // namespace gammalab::trainer
