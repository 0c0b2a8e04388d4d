// A job's JSON for the dashboard (proto/dashboard_json.h): the text a sweep's job list joins is the proto's JSON
// with only the state's value changed, whatever the job's strings hold; the tree is that text parsed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/job_state.h"
#include "proto/convert.h"
#include "proto/dashboard_json.h"
#include "proto/proto_json.h"

namespace gammalab::testing {
namespace {

TEST(DashboardJobJson, OnlyTheStateIsRespeltWhateverTheStringsHold) {
  for (JobState state : kJobStates) {
    JobRecord job;
    job.id = "7";
    job.sweep_id = "2";
    // Strings that spell the proto's state member, quotes and all: escaped in the JSON, never replaced.
    job.name = "\"state\":\"JOB_STATE_RUNNING\"";
    job.error = "{\"state\":\"JOB_STATE_FAILED\"} and \\\"state\\\":\\\"JOB_STATE_PENDING\\\"";
    job.config_json = R"({"state":"JOB_STATE_SUCCEEDED"})";
    job.state = state;
    job.step = 120;
    job.last_loss = 2.6874328650663171;
    const v1::Job message = to_proto(job);
    const std::string text = dashboard_job_text(message);
    nlohmann::json expected = nlohmann::json::parse(proto_to_json(message));
    expected["state"] = std::string(job_state_name(state));
    EXPECT_EQ(nlohmann::json::parse(text), expected) << text;
    EXPECT_EQ(nlohmann::json(dashboard_job(message)), expected);
    EXPECT_EQ(nlohmann::json::parse(text)["name"], job.name);
    EXPECT_EQ(nlohmann::json::parse(text)["error"], job.error);
  }
}

}  // namespace
}  // namespace gammalab::testing
