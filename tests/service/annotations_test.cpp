// Notes and tags on sweeps and runs and the search across sweeps (core/annotation.h), through both doors over
// one real store on loopback ports and through the real CLI: the same change gives the same annotation, a
// hostile one is refused with the same words by both and changes nothing, and a search finds what it should.
#include <httplib.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/client/coordinator_client.h"
#include "proto/proto_json.h"
#include "rpc/client_channel.h"
#include "server/http_api.h"
#include "tests/service/in_process_coordinator.h"
#include "tests/service/run_cli.h"

namespace gammalab::testing {
namespace {

using nlohmann::json;

class Annotations : public ::testing::Test {
 protected:
  void SetUp() override {
    http_options_.http_address = "127.0.0.1:0";
    http_options_.shared_root = coordinator_.db_path().parent_path() / "shared";
    http_ = std::make_unique<HttpApi>(coordinator_.store(), http_options_);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", http_->port());
    stub_ = connect_coordinator(coordinator_.address());
    Store& store = coordinator_.store();
    ladder_ = store.create_sweep(make_sweep("ladder", 3), "name: ladder", "ladder.yaml", false).sweep.id;
    other_ = store.create_sweep(make_sweep("other", 2), "name: other", "other.yaml", false).sweep.id;
    for (const JobRecord& j : store.list_jobs(ladder_)) ladder_jobs_.push_back(j.id);
    for (const JobRecord& j : store.list_jobs(other_)) other_jobs_.push_back(j.id);
  }

  // Annotate through gRPC: the annotation, or the refusal's words.
  std::string grpc_annotate(const v1::AnnotateRequest& request, v1::Annotation* out = nullptr) {
    v1::Annotation answer;
    const grpc::Status status = stub_->Annotate(rpc_context().get(), request, &answer);
    if (out) *out = answer;
    return status.ok() ? "" : status.error_message();
  }
  // The same over HTTP: the status and the body.
  std::pair<int, json> http_annotate(const std::string& sweep, const json& body) {
    auto res = client_->Post(("/api/sweeps/" + sweep + "/annotations").c_str(), body.dump(), "application/json");
    EXPECT_TRUE(res);
    return {res ? res->status : 0, res ? json::parse(res->body) : json()};
  }
  json http_get(const std::string& path) {
    auto res = client_->Get(path.c_str());
    EXPECT_TRUE(res && res->status == 200) << path << ": " << (res ? res->body : "no answer");
    return res ? json::parse(res->body) : json();
  }
  json listed(const std::string& sweep) { return http_get("/api/sweeps/" + sweep + "/annotations")["annotations"]; }

  InProcessCoordinator coordinator_{"annotations"};
  ServerOptions http_options_;
  std::unique_ptr<HttpApi> http_;
  std::unique_ptr<httplib::Client> client_;
  std::unique_ptr<v1::Coordinator::Stub> stub_;
  std::string ladder_, other_;
  std::vector<std::string> ladder_jobs_, other_jobs_;
};

TEST_F(Annotations, NotesAndTagsOfASweepAndItsRunsThroughBothDoorsAndTheCli) {
  v1::AnnotateRequest request;
  request.set_sweep_id("ladder");  // by name, as every sweep argument
  request.set_note("baseline diverged at 48k:\nLR too high");
  request.add_add_tags("paper-fig3");
  request.add_add_tags("ablation");
  v1::Annotation sweep_note;
  ASSERT_EQ(grpc_annotate(request, &sweep_note), "");
  EXPECT_EQ(sweep_note.sweep_id(), ladder_);
  EXPECT_EQ(sweep_note.job_id(), "");
  EXPECT_EQ(std::vector<std::string>(sweep_note.tags().begin(), sweep_note.tags().end()),
            (std::vector<std::string>{"ablation", "paper-fig3"}));
  EXPECT_GT(sweep_note.updated_ms(), 0);

  // A run's tags over HTTP: the body is the same request as JSON.
  const auto [status, run] = http_annotate(ladder_, {{"job_id", ladder_jobs_[1]}, {"add_tags", {"diverged", "lr=3e-4"}}});
  ASSERT_EQ(status, 200) << run.dump();
  EXPECT_EQ(run["job_id"], ladder_jobs_[1]);
  EXPECT_EQ(run["tags"], json({"diverged", "lr=3e-4"}));
  EXPECT_EQ(run["note"], "");

  // Listed the same by both doors: the sweep's own first, then its runs'; another sweep has none.
  v1::ListAnnotationsRequest list;
  list.set_sweep_id(ladder_);
  v1::ListAnnotationsResponse grpc_list;
  ASSERT_TRUE(stub_->ListAnnotations(rpc_context().get(), list, &grpc_list).ok());
  EXPECT_EQ(json::parse(proto_to_json(grpc_list))["annotations"], listed(ladder_));
  ASSERT_EQ(listed(ladder_).size(), 2u);
  EXPECT_EQ(listed(ladder_)[0]["note"], "baseline diverged at 48k:\nLR too high");
  EXPECT_EQ(listed(other_), json::array());

  // The CLI: read, write, take a tag off, search; --json is the message.
  const std::string server = "--server " + coordinator_.address() + " ";
  EXPECT_EQ(run_cli(server + "note ladder"),
            "sweep " + ladder_ + ": tags ablation paper-fig3\nbaseline diverged at 48k:\nLR too high\n");
  EXPECT_EQ(run_cli(server + "tag ladder --remove paper-fig3"),
            "sweep " + ladder_ + ": tags ablation\nbaseline diverged at 48k:\nLR too high\n");
  EXPECT_EQ(run_cli(server + "note ladder --job " + ladder_jobs_[1] + " 'lr too high; rerun at 1e-4'"),
            "job " + ladder_jobs_[1] + ": tags diverged lr=3e-4\nlr too high; rerun at 1e-4\n");
  const json found = json::parse(run_cli(server + "--json search tag:diverged rerun"));
  ASSERT_EQ(found["hits"].size(), 1u) << found.dump();
  EXPECT_EQ(found["hits"][0]["annotation"]["job_id"], ladder_jobs_[1]);
  EXPECT_EQ(found["hits"][0]["sweep_name"], "ladder");
  const std::string table = run_cli(server + "search diverged");
  EXPECT_NE(table.find("SWEEP  JOB"), std::string::npos) << table;
  EXPECT_NE(table.find("ablation"), std::string::npos) << "the sweep: 'diverged' in its note: " << table;
  EXPECT_NE(table.find("diverged lr=3e-4"), std::string::npos) << table;

  // Cleared of note and tags, a run's annotation is gone, not an empty row.
  const auto [cleared, empty] =
      http_annotate(ladder_, {{"job_id", ladder_jobs_[1]}, {"note", ""}, {"remove_tags", {"diverged", "lr=3e-4"}}});
  ASSERT_EQ(cleared, 200) << empty.dump();
  EXPECT_EQ(empty["updated_ms"], "0");
  EXPECT_EQ(listed(ladder_).size(), 1u);
}

TEST_F(Annotations, AHostileChangeIsRefusedByBothDoorsInTheSameWordsAndChangesNothing) {
  ASSERT_EQ(http_annotate(ladder_, {{"note", "kept"}, {"add_tags", {"kept"}}}).first, 200);
  const json before = listed(ladder_);
  struct Case {
    json body;
    std::string words;
  };
  std::vector<std::string> many;
  for (int i = 0; i < 33; ++i) many.push_back("t" + std::to_string(i));
  const std::vector<Case> cases = {
      {{{"note", "\x1b]0;owned\x07"}}, "note: control characters other than newline and tab are refused"},
      {{{"note", std::string(4001, 'x')}}, "note: 4001 bytes, over the limit of 4000"},
      {{{"add_tags", {"two words"}}}, "add_tags: 'two words' is not a tag: letters, digits and . _ - : + / = only"},
      {{{"add_tags", many}}, "add_tags: 33 entries, over the limit of 32"},
      {{{"add_tags", {"x"}}, {"remove_tags", {"x"}}}, "tags: 'x' is both added and removed"},
      {json::object(), "nothing to change: give a note, tags to add or tags to remove"},
      {{{"job_id", other_jobs_[0]}, {"note", "borrowed"}}, "job '" + other_jobs_[0] + "' in sweep " + ladder_ + " not found"},
  };
  for (const Case& c : cases) {
    const auto [status, body] = http_annotate(ladder_, c.body);
    EXPECT_TRUE(status == 400 || status == 404) << c.body.dump().substr(0, 80) << ": " << status;
    EXPECT_EQ(body.value("error", ""), c.words) << c.body.dump().substr(0, 80);
    v1::AnnotateRequest request;
    request.set_sweep_id(ladder_);
    ASSERT_NO_THROW(proto_from_json(c.body.dump(), request));
    request.set_sweep_id(ladder_);
    EXPECT_EQ(grpc_annotate(request), c.words) << c.body.dump().substr(0, 80);
  }
  // Too many tags in all, though each change is within bounds: refused, the 32 kept.
  std::vector<std::string> thirty_one(many.begin(), many.begin() + 31);
  ASSERT_EQ(http_annotate(other_, {{"add_tags", thirty_one}}).first, 200);
  const auto [over, refused] = http_annotate(other_, {{"add_tags", {"a", "b"}}});
  EXPECT_EQ(over, 400);
  EXPECT_EQ(refused["error"], "tags: at most 32 on one sweep or run; this change gives 33");
  EXPECT_EQ(listed(other_)[0]["tags"].size(), 31u);
  // A body that is not the request, a sweep that is not there.
  EXPECT_EQ(http_annotate(ladder_, {{"jobid", "1"}}).second["error"],
            "body: not a gammalab.v1.AnnotateRequest: jobid: Cannot find field.");
  EXPECT_EQ(http_annotate(ladder_, {{"sweep_id", other_}}).second["error"], "sweep_id: the sweep is the path's, not the body's");
  EXPECT_EQ(http_annotate("nowhere", {{"note", "x"}}).first, 404);
  EXPECT_EQ(listed(ladder_), before);
}

TEST_F(Annotations, ASearchFindsSweepsByNameAndNoteAndRunsByTheirTagsNewestFirstAndBounded) {
  ASSERT_EQ(http_annotate(ladder_, {{"note", "The WSD ladder"}}).first, 200);
  ASSERT_EQ(http_annotate(other_, {{"add_tags", {"ablation"}}}).first, 200);
  ASSERT_EQ(http_annotate(ladder_, {{"job_id", ladder_jobs_[0]}, {"add_tags", {"ablation", "best"}}}).first, 200);
  const auto names = [&](const std::string& query) {
    std::vector<std::string> out;
    const json answer = http_get("/api/search?q=" + query);  // (kept: a loop over a temporary's member dangles)
    for (const json& hit : answer["hits"]) {
      out.push_back(hit["job_name"].get<std::string>().empty() ? hit["sweep_name"].get<std::string>()
                                                                : "job " + hit["annotation"]["job_id"].get<std::string>());
    }
    return out;
  };
  EXPECT_EQ(names("tag:ablation"), (std::vector<std::string>{"other", "job " + ladder_jobs_[0]})) << "newest sweep first";
  EXPECT_EQ(names("wsd"), (std::vector<std::string>{"ladder"})) << "a note, case-insensitively";
  EXPECT_EQ(names("ladder.yaml"), (std::vector<std::string>{"ladder"})) << "a sweep's file";
  EXPECT_EQ(names("tag:ablation%20tag:best"), (std::vector<std::string>{"job " + ladder_jobs_[0]}));
  EXPECT_EQ(names("tag:abl"), std::vector<std::string>{}) << "a tag is exact";
  const json one = http_get("/api/search?q=tag:ablation&limit=1");
  EXPECT_EQ(one["hits"].size(), 1u);
  EXPECT_EQ(one["truncated"], true);
  for (const char* bad : {"/api/search?q=", "/api/search?q=a&limit=201", "/api/search?q=a&limit=0",
                                 "/api/search?q=a%20b%20c%20d%20e%20f%20g%20h%20i"}) {
    auto res = client_->Get(bad);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << bad << ": " << res->body;
  }
}

}  // namespace
}  // namespace gammalab::testing
