// `gammalab import` end to end: the real CLI binary against a coordinator's real services on loopback, with a
// real SQLite file. A CSV of final losses comes in as a sweep of finished jobs that `gammalab fit` fits to the
// same verdict, digit for digit, as the file itself; hostile imports sent straight over gRPC are refused naming
// what is wrong, and store nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <thread>

#include "core/scaling/imported_runs.h"
#include "proto/convert.h"
#include "tests/service/in_process_coordinator.h"
#include "tests/service/run_cli.h"

namespace gammalab::testing {
namespace {

// A ladder study as published data would give it: 4 sizes, 3 paired seeds, the baseline and unified 1.3x
// better in compute, seed noise shared by a pair.
std::filesystem::path write_ladder(const std::filesystem::path& dir) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, 0.01);
  const auto path = dir / "ladder.csv";
  std::ofstream out(path);
  out << "params,tokens,loss,group,seed\n";
  for (const double n : {1e7, 3e7, 1e8, 3e8}) {
    for (int seed = 0; seed < 3; ++seed) {
      const double shared = noise(rng);
      for (const auto& [group, m] : {std::pair{"baseline", 1.0}, std::pair{"unified", 1.3}}) {
        const double c = 6 * n * 20 * n * m;
        out << n << "," << 20 * n << "," << 1.5 + 400 * std::pow(c, -0.15) + shared + 0.3 * noise(rng) << ","
            << group << "," << seed << "\n";
      }
    }
  }
  return path;
}

std::string from_verdict(const std::string& text) {
  const auto at = text.find("\nverdict:\n");
  return at == std::string::npos ? "(no verdict in: " + text + ")" : text.substr(at);
}

TEST(ImportRuns, ACsvImportedThroughTheCliFitsToTheVerdictOfTheFileItself) {
  InProcessCoordinator coordinator("import-csv");
  const auto csv = write_ladder(coordinator.db_path().parent_path());
  const std::string server = "--server " + coordinator.address() + " ";
  const std::string imported = run_cli(server + "import " + csv.string() + " --name published");
  EXPECT_NE(imported.find("sweep 1 'published': 24 runs, 24 metric points imported (imported from ladder.csv)"),
            std::string::npos)
      << imported;
  const auto jobs = coordinator.store().list_jobs("1");
  ASSERT_EQ(jobs.size(), 24u);
  for (const auto& job : jobs) EXPECT_EQ(job.state, JobState::kSucceeded) << job.name;
  EXPECT_NE(run_cli(server + "show " + jobs[0].id).find("\"imported\": \"" + csv.string() + " row 1\""),
            std::string::npos)
      << "the job says where it came from";
  const std::string options = " --law c --bootstrap 100 --detail";
  const std::string from_sweep = run_cli(server + "fit 1 --refit" + options);
  const std::string from_file = run_cli("fit --points " + csv.string() + options);
  EXPECT_NE(from_sweep.find("unified reaches baseline's loss with"), std::string::npos) << from_sweep;
  EXPECT_EQ(from_verdict(from_sweep), from_verdict(from_file));
}

// One ImportRuns call with `messages`: its status, and the store unchanged when refused.
grpc::Status import(InProcessCoordinator& coordinator, const std::vector<v1::ImportRunsRequest>& messages) {
  auto stub = v1::Coordinator::NewStub(coordinator.own_channel());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::ImportRunsResponse response;
  auto writer = stub->ImportRuns(&context, &response);
  for (const auto& m : messages) {
    if (!writer->Write(m)) break;
  }
  writer->WritesDone();
  return writer->Finish();
}

v1::ImportRunsRequest header() {
  v1::ImportRunsRequest r;
  r.mutable_header()->set_sweep_name("hostile");
  return r;
}
v1::ImportRunsRequest run(const std::string& name, const JobConfig& config) {
  v1::ImportRunsRequest r;
  r.mutable_run()->set_name(name);
  r.mutable_run()->set_config_json(to_json(config).dump());
  return r;
}
v1::ImportRunsRequest points(const std::vector<MetricPoint>& list) {
  v1::ImportRunsRequest r;
  to_proto(list, r.mutable_points()->mutable_points());
  return r;
}

TEST(ImportRuns, HostileImportsAreRefusedNamingWhatIsWrongAndStoreNothing) {
  InProcessCoordinator coordinator("import-hostile");
  const ImportedRun good = imported_runs_from_csv("params,tokens,loss,seed\n1e7,2e8,3.1,0\n", "a.csv")[0];
  JobConfig unmarked = good.config;
  unmarked.imported.reset();
  JobConfig with_command = good.config;
  with_command.command = std::vector<std::string>{"sh", "-c", "echo"};
  const MetricPoint nan_loss{1, 100, "val/loss", std::nan("")};
  const struct {
    std::vector<v1::ImportRunsRequest> messages;
    std::string expected;
  } cases[] = {
      {{}, "header: none sent"},
      {{run("r", good.config)}, "run: before the header"},
      {{header(), points(good.points)}, "points: before the first run"},
      {{header(), header()}, "header: sent twice"},
      {{header()}, "runs: none sent"},
      {{header(), run("r", unmarked), points(good.points)}, "imported: where the run came from is not set"},
      {{header(), run("r", with_command), points(good.points)}, "imported"},
      {{header(), run("r", good.config), points({nan_loss})}, "val/loss"},
      {{header(), run("", good.config), points(good.points)}, "a name must be 1 to 256 bytes"},
      {{header(), run("r", good.config), points({{7, 100, "val/loss", 2.0}})}, "val/loss at step 7: outside [0, 1]"},
      {{header(), run("ok", good.config), points(good.points), run("bad", unmarked)}, "run 'bad'"},
      {{header(), run("r", good.config), points(good.points), run("r", good.config), points(good.points)},
       "run 'r': the name of runs 1 and 2"},
  };
  for (const auto& c : cases) {
    const grpc::Status status = import(coordinator, c.messages);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.expected;
    EXPECT_NE(status.error_message().find(c.expected), std::string::npos)
        << "'" << c.expected << "' not in: " << status.error_message();
    EXPECT_TRUE(coordinator.store().list_sweeps().empty()) << "stored despite: " << status.error_message();
  }
  // The good run alone is taken.
  EXPECT_TRUE(import(coordinator, {header(), run("ok", good.config), points(good.points)}).ok());
  EXPECT_EQ(coordinator.store().list_sweeps().size(), 1u);
}

// One import at a time, and an import that breaks off stores nothing: a client that opened one and sent half of
// it, then went away, leaves the store as it was and the door open.
TEST(ImportRuns, OneImportAtATimeAndOneThatBreaksOffStoresNothing) {
  InProcessCoordinator coordinator("import-one-at-a-time");
  const ImportedRun good = imported_runs_from_csv("params,tokens,loss,seed\n1e7,2e8,3.1,0\n", "a.csv")[0];
  auto stub = v1::Coordinator::NewStub(coordinator.own_channel());
  {
    grpc::ClientContext open_context;
    v1::ImportRunsResponse open_response;
    auto open = stub->ImportRuns(&open_context, &open_response);
    ASSERT_TRUE(open->Write(header()));
    ASSERT_TRUE(open->Write(run("half", good.config)));
    // The server is reading this one; a second import meanwhile is refused, naming the bound.
    for (int i = 0; i < 200 && coordinator.coordinator().imports().open() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const grpc::Status second = import(coordinator, {header(), run("r", good.config), points(good.points)});
    EXPECT_EQ(second.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << second.error_message();
    EXPECT_NE(second.error_message().find("import"), std::string::npos) << second.error_message();
    // The first breaks off before its end: nothing of it is stored.
    ASSERT_TRUE(open->Write(points(good.points)));
    open_context.TryCancel();
    EXPECT_EQ(open->Finish().error_code(), grpc::StatusCode::CANCELLED);
  }
  for (int i = 0; i < 200 && coordinator.coordinator().imports().open() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(coordinator.store().list_sweeps().empty()) << "a broken-off import stored something";
  EXPECT_TRUE(import(coordinator, {header(), run("r", good.config), points(good.points)}).ok()) << "the door is open";
  EXPECT_EQ(coordinator.store().list_sweeps().size(), 1u);
}

}  // namespace
}  // namespace gammalab::testing
