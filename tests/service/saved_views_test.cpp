// The dashboard's saved views (core/saved_view.h) in the application layer over a real store, and over HTTP:
// kept per user, a name replaced in place, opened by anyone by id, deleted by its owner only, bounded.
#include <httplib.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/coordinator/coordinator.h"
#include "server/http_api.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

using nlohmann::json;

TEST(SavedViews, KeptPerUserReplacedByNameOpenedByAnyoneDeletedByTheOwnerOnly) {
  InProcessCoordinator coordinator("saved-views");
  Store& store = coordinator.store();
  const std::string sweep = store.create_sweep(make_sweep("ladder", 2), "name: ladder", "ladder.yaml", false).sweep.id;
  ServerOptions options;
  coordinator::Coordinator app(store, options);
  const std::int64_t alice = 7, bob = 9;

  auto first = app.save_view(alice, "by width", "ladder", "groupBy=seed&panelBy=model.d_model");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->sweep_id, sweep);
  EXPECT_EQ(first->owner, alice);
  auto again = app.save_view(alice, "by width", sweep, "groupBy=variant");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->id, first->id) << "a name the user has is replaced, keeping its link";
  EXPECT_EQ(again->settings, "groupBy=variant");
  ASSERT_TRUE(app.save_view(bob, "by width", sweep, "logY=true").ok()) << "names are per user";
  EXPECT_EQ(app.views(alice).size(), 1u);
  EXPECT_EQ(app.views(bob).size(), 1u);

  // Anyone opens it by id; only its owner deletes it.
  ASSERT_TRUE(app.view(first->id).ok());
  EXPECT_EQ(app.delete_view(bob, first->id).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(coordinator::http_status(app.delete_view(bob, first->id)), 403);
  EXPECT_TRUE(app.delete_view(alice, first->id).ok());
  EXPECT_EQ(app.view(first->id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(app.delete_view(alice, first->id).code(), absl::StatusCode::kNotFound);

  // Refusals name the field and the limit; nothing is stored.
  EXPECT_EQ(app.save_view(alice, "", sweep, "").status().message(), "name: 1 to 80 bytes, got 0");
  EXPECT_EQ(app.save_view(alice, std::string(81, 'n'), sweep, "").status().message(), "name: 1 to 80 bytes, got 81");
  EXPECT_EQ(app.save_view(alice, "a\x1b[2Jb", sweep, "").status().message(),
            "name: UTF-8 on one line, without control characters");
  EXPECT_EQ(app.save_view(alice, "v", sweep, std::string(8193, 'a')).status().message(),
            "settings: at most 8192 bytes, got 8193");
  EXPECT_EQ(app.save_view(alice, "v", sweep, "a=b#/jobs/1").status().message(),
            "settings: an address's query (percent-encoded, without '#' or spaces); byte 3 is not");
  EXPECT_EQ(app.save_view(alice, "v", "nowhere", "").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(app.views(alice).empty());
  // At most 200 per user: the 201st new name is refused, a name already there is still replaced.
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(app.save_view(alice, "v" + std::to_string(i), sweep, "").ok()) << i;
  EXPECT_EQ(app.save_view(alice, "one more", sweep, "").status().message(),
            "views: at most 200 saved views per user; delete one first");
  EXPECT_TRUE(app.save_view(alice, "v0", sweep, "logX=true").ok());
}

TEST(SavedViews, TheHttpBodyIsCheckedFieldByField) {
  InProcessCoordinator coordinator("saved-views-http");
  const std::string sweep =
      coordinator.store().create_sweep(make_sweep("ladder", 1), "name: ladder", "ladder.yaml", false).sweep.id;
  ServerOptions options;
  options.http_address = "127.0.0.1:0";
  options.shared_root = coordinator.db_path().parent_path() / "shared";
  HttpApi api(coordinator.store(), options);
  httplib::Client client("127.0.0.1", api.port());
  const auto post = [&](const std::string& body) {
    auto res = client.Post("/api/views", body, "application/json");
    EXPECT_TRUE(res);
    return std::make_pair(res ? res->status : 0, res ? json::parse(res->body) : json());
  };
  EXPECT_EQ(post("[1]").second["error"], "body: a JSON object {\"name\", \"sweep_id\", \"settings\"}");
  EXPECT_EQ(post("{").second["error"], "body: not JSON");
  EXPECT_EQ(post(R"({"name": "v", "sweep": "1"})").second["error"], "body: unknown field 'sweep' (name, sweep_id, settings)");
  EXPECT_EQ(post(R"({"name": 3})").second["error"], "name: expected a string");
  const auto [status, saved] = post(json{{"name", "v"}, {"sweep_id", sweep}, {"settings", "logY=true"}}.dump());
  ASSERT_EQ(status, 200) << saved.dump();
  EXPECT_EQ(saved["mine"], true);
  auto list = client.Get("/api/views");
  ASSERT_TRUE(list);
  EXPECT_EQ(json::parse(list->body).size(), 1u);
  auto gone = client.Delete(("/api/views/" + saved["id"].get<std::string>()).c_str());
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 200);
  EXPECT_EQ(client.Get(("/api/views/" + saved["id"].get<std::string>()).c_str())->status, 404);
}

}  // namespace
}  // namespace gammalab::testing
