// `gammalab watch` on a terminal: the frame fits the terminal at any size (cli/watch_frame.h).
#include "cli/watch_frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace gammalab::cli {
namespace {

// Columns a line takes on a terminal: code points, escape sequences (SGR colours) not counted.
int columns_of(const std::string& line) {
  int n = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b') {
      while (i < line.size() && line[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++n;
  }
  return n;
}

// The demo's shape: 54 jobs with long names, 2 running, 3 failed, 19 pending, 30 succeeded.
std::vector<v1::Job> demo_jobs() {
  std::vector<v1::Job> jobs;
  for (int i = 0; i < 54; ++i) {
    v1::Job j;
    j.set_id(std::to_string(i + 1));
    j.set_name("tune/tiny-2x32/unified/adamw/cosine/lr=2.0_model.d_model/s" + std::to_string(i));
    j.set_total_steps(400);
    if (i < 30) {
      j.set_state(v1::JOB_STATE_SUCCEEDED);
      j.set_step(400);
    } else if (i < 33) {
      j.set_state(v1::JOB_STATE_FAILED);
    } else if (i < 35) {
      j.set_state(v1::JOB_STATE_RUNNING);
      j.set_step(100);
      j.set_tokens(100 * 2048);
      j.set_tokens_per_s(2048 * 10);  // 10 steps/s each
    } else {
      j.set_state(v1::JOB_STATE_PENDING);
    }
    jobs.push_back(j);
  }
  return jobs;
}

v1::Sweep demo_sweep() {
  v1::Sweep s;
  s.set_id("3");
  s.set_name("demo-cpu");
  return s;
}

TEST(WatchFrame, EightyByTwentyFourFitsAndCountsTheRowsLeftOut) {
  const auto frame = watch_frame(demo_sweep(), demo_jobs(), {80, 24}, false);
  ASSERT_LE(frame.size(), 23u) << "one line stays free for the cursor";
  EXPECT_EQ(frame.size(), 23u) << "and the rest is used";
  for (const auto& line : frame) EXPECT_LE(columns_of(line), 80) << line;
  // The sweep line: counts by state and an ETA from the running jobs' rate.
  EXPECT_EQ(frame[0].rfind("sweep 3 'demo-cpu': 33/54 done, ETA 6m50s; 30 succeeded, 3 failed, 2 running", 0), 0u)
      << "what matters first, whole at 80 columns: " << frame[0];
  EXPECT_EQ(sweep_line(demo_sweep(), demo_jobs()),
            "sweep 3 'demo-cpu': 33/54 done, ETA 6m50s; 30 succeeded, 3 failed, 2 running, 19 pending");
  // Running first, then failed, then pending; the rest counted in the last line.
  EXPECT_NE(frame[3].find("running"), std::string::npos) << frame[3];
  EXPECT_NE(frame[5].find("failed"), std::string::npos) << frame[5];
  EXPECT_NE(frame[8].find("pending"), std::string::npos) << frame[8];
  EXPECT_EQ(frame.back().rfind("… 35 more: 5 pending, 30 succeeded", 0), 0u) << frame.back();
}

TEST(WatchFrame, TwoHundredBySixtyShowsEveryJobWhole) {
  const auto frame = watch_frame(demo_sweep(), demo_jobs(), {200, 60}, false);
  EXPECT_EQ(frame.size(), 1u + 2u + 54u);
  for (const auto& line : frame) {
    EXPECT_LE(columns_of(line), 200) << line;
    EXPECT_EQ(line.find("…"), std::string::npos) << "nothing cut: " << line;
  }
}

TEST(WatchFrame, ANarrowTerminalShrinksTheBarThenCutsLines) {
  for (int columns : {100, 60, 20}) {
    const auto frame = watch_frame(demo_sweep(), demo_jobs(), {columns, 30}, false);
    for (const auto& line : frame) EXPECT_LE(columns_of(line), columns) << columns << ": " << line;
  }
  // Ten columns narrower than the rows want: the bar gives them up (24 → 14 characters) and nothing is cut.
  const auto wide = watch_frame(demo_sweep(), demo_jobs(), {200, 30}, false);
  int wanted = 0;
  for (std::size_t i = 1; i < wide.size(); ++i) wanted = std::max(wanted, columns_of(wide[i]));
  const auto frame = watch_frame(demo_sweep(), demo_jobs(), {wanted - 10, 30}, false);
  EXPECT_NE(frame[8].find("[" + std::string(14, '.') + "]"), std::string::npos) << "a pending row: " << frame[8];
  for (std::size_t i = 1; i < frame.size() - 1; ++i) EXPECT_EQ(frame[i].find("…"), std::string::npos) << frame[i];
}

TEST(WatchFrame, ATinyTerminalGetsTheSweepLineAndTheCountOnly) {
  for (int rows : {1, 2, 3, 4, 5}) {
    const auto frame = watch_frame(demo_sweep(), demo_jobs(), {80, rows}, false);
    EXPECT_LE(static_cast<int>(frame.size()), std::max(rows - 1, 1)) << rows;
  }
  const auto frame = watch_frame(demo_sweep(), demo_jobs(), {80, 4}, false);
  ASSERT_EQ(frame.size(), 2u);
  EXPECT_EQ(frame[1].rfind("… 54 jobs:", 0), 0u) << frame[1];
}

TEST(WatchFrame, ColourMarksRowsByStateOnlyWhenAsked) {
  const auto plain = watch_frame(demo_sweep(), demo_jobs(), {200, 60}, false);
  for (const auto& line : plain) EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
  const auto coloured = watch_frame(demo_sweep(), demo_jobs(), {200, 60}, true);
  EXPECT_EQ(coloured[3].rfind("\x1b[36m", 0), 0u) << "running: cyan";
  EXPECT_EQ(coloured[5].rfind("\x1b[31m", 0), 0u) << "failed: red";
  EXPECT_EQ(coloured.back().rfind("\x1b[32m", 0), 0u) << "succeeded: green";
  EXPECT_EQ(coloured[0].find('\x1b'), std::string::npos) << "the sweep line stays plain";
}

TEST(WatchFrame, FitWidthCutsByCharactersNotBytes) {
  EXPECT_EQ(fit_width("γγγγγ", 5), "γγγγγ");
  EXPECT_EQ(fit_width("γγγγγγ", 5), "γγγγ…");
  EXPECT_EQ(fit_width("abc", 0), "");
}

TEST(WatchFrame, ALongSweepNameIsCutBeforeTheEta) {
  v1::Sweep sweep = demo_sweep();
  sweep.set_name(std::string(200, 'n'));
  const auto frame = watch_frame(sweep, demo_jobs(), {80, 24}, false);
  EXPECT_NE(frame[0].find("…': 33/54 done, ETA 6m50s"), std::string::npos) << frame[0];
  sweep.set_finished(true);
  EXPECT_NE(sweep_line(sweep, demo_jobs()).find(": 33/54 done, finished; 30 succeeded, 3 failed"), std::string::npos)
      << sweep_line(sweep, demo_jobs());
}

TEST(WatchFrame, TheEtaIsTheStepsLeftOverTheRunningJobsRate) {
  // 2 running jobs at 10 steps/s each with 300 steps left, 19 pending with 400: 8200 steps at 20 steps/s.
  EXPECT_NE(sweep_line(demo_sweep(), demo_jobs()).find("ETA 6m50s"), std::string::npos)
      << sweep_line(demo_sweep(), demo_jobs());
}

// A log of a 200-job sweep, each job going pending -> running -> succeeded (one failing) in its own round: about
// twenty progress lines in all, not one per job and state; the failure once, with its attempt and error.
// A run's cooldown branches stay under it (docs/branches.md), and the family is listed where its running branch
// would be: among the running jobs, above the pending ones, though the run itself has finished.
TEST(WatchFrame, ARunsBranchesStayUnderItWhereverItsMostUrgentMemberGoes) {
  std::vector<v1::Job> jobs(4);
  const char* const names[] = {"w/b", "w/a", "w/a/D=4096", "w/c"};
  const v1::JobState states[] = {v1::JOB_STATE_PENDING, v1::JOB_STATE_SUCCEEDED, v1::JOB_STATE_RUNNING,
                                 v1::JOB_STATE_SUCCEEDED};
  for (int i = 0; i < 4; ++i) {
    jobs[i].set_id(std::to_string(i + 1));
    jobs[i].set_name(names[i]);
    jobs[i].set_state(states[i]);
    jobs[i].set_total_steps(100);
  }
  jobs[2].set_parent_id("2");
  const auto frame = watch_frame(demo_sweep(), jobs, {120, 20}, false);
  ASSERT_EQ(frame.size(), 7u);
  EXPECT_EQ(frame[3].rfind("w/a ", 0), 0u) << frame[3];
  EXPECT_NE(frame[3].find("succeeded"), std::string::npos) << frame[3];
  EXPECT_EQ(frame[4].rfind("└─ D=4096 ", 0), 0u) << frame[4];
  EXPECT_NE(frame[4].find("running"), std::string::npos) << frame[4];
  EXPECT_EQ(frame[5].rfind("w/b ", 0), 0u) << frame[5];
  EXPECT_EQ(frame[6].rfind("w/c ", 0), 0u) << frame[6];
}

// A sweep that had finished before `watch` began: a few lines, not a row per job, whatever the sweep's size.
TEST(WatchSummary, AFinishedSweepGetsItsStagesItsFailuresAndWhereToReadOn) {
  v1::Sweep sweep = demo_sweep();
  sweep.set_finished(true);
  std::vector<v1::Job> jobs;
  for (int i = 0; i < 300; ++i) {
    v1::Job j;
    j.set_id(std::to_string(i + 1));
    j.set_name("tiny-2x32/unified/adamw/cosine/s" + std::to_string(i));
    j.set_stage(i < 100 ? "tune" : "main");
    j.set_attempt(1);
    j.set_state(i % 50 == 7 ? v1::JOB_STATE_FAILED : v1::JOB_STATE_SUCCEEDED);
    if (j.state() == v1::JOB_STATE_FAILED) j.set_error("gammalab-train exited with code 3\nTraceback: ...");
    jobs.push_back(j);
  }
  const std::vector<std::string> lines = finished_summary(sweep, jobs, 80);
  const std::vector<std::string> expected = {
      "sweep 3 'demo-cpu': 300/300 done, finished; 294 succeeded, 6 failed",
      "  tune stage: 100 jobs, 2 failed, 98 succeeded",
      "  main stage: 200 jobs, 4 failed, 196 succeeded",
      "  failed: job 8 tiny-2x32/unified/adamw/cosine/s7 (attempt 1): gammalab-train e…",
      "  failed: job 58 tiny-2x32/unified/adamw/cosine/s57 (attempt 1): gammalab-train…",
      "  failed: job 108 tiny-2x32/unified/adamw/cosine/s107 (attempt 1): gammalab-tra…",
      "  failed: job 158 tiny-2x32/unified/adamw/cosine/s157 (attempt 1): gammalab-tra…",
      "  failed: job 208 tiny-2x32/unified/adamw/cosine/s207 (attempt 1): gammalab-tra…",
      "  and 1 more failed",
      "next: gammalab jobs 3 · gammalab fit 3 · gammalab tune 3"};
  EXPECT_EQ(lines, expected);
  // Into a pipe (0 columns) the lines are whole: the error's first line, not its traceback.
  const std::vector<std::string> whole = finished_summary(sweep, jobs, 0);
  EXPECT_EQ(whole[3], "  failed: job 8 tiny-2x32/unified/adamw/cosine/s7 (attempt 1): gammalab-train exited with code 3");
}

TEST(ProgressLog, ALogGetsAboutTwentyLinesForASweepOfAnySize) {
  v1::Sweep sweep = demo_sweep();
  std::vector<v1::Job> jobs(200);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].set_id(std::to_string(i + 1));
    jobs[i].set_name("job-" + std::to_string(i + 1));
    jobs[i].set_state(v1::JOB_STATE_PENDING);
    jobs[i].set_total_steps(100);
  }
  ProgressLog log;
  std::vector<std::string> lines;
  auto round = [&] {
    std::istringstream text(log.next(sweep, jobs, "12:00:00"));
    for (std::string line; std::getline(text, line);) lines.push_back(line);
  };
  round();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("12:00:00 sweep " + sweep.id() + " '", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(": 0/200 done"), std::string::npos) << lines[0];
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].set_state(v1::JOB_STATE_RUNNING);
    round();
    if (i == 57) {
      jobs[i].set_state(v1::JOB_STATE_FAILED);
      jobs[i].set_attempt(1);
      jobs[i].set_error("gammalab-train exited with code 71 (out of memory)");
    } else {
      jobs[i].set_state(v1::JOB_STATE_SUCCEEDED);
      jobs[i].set_step(100);
    }
    round();
  }
  EXPECT_GE(lines.size(), 20u);
  EXPECT_LE(lines.size(), 23u);
  const auto failed = std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l == "12:00:00 job-58 failed (attempt 1): gammalab-train exited with code 71 (out of memory)";
  });
  EXPECT_EQ(failed, 1) << "the failure is logged once, whatever rounds follow";
  EXPECT_NE(lines.back().find(": 200/200 done"), std::string::npos) << lines.back();
}

}  // namespace
}  // namespace gammalab::cli
