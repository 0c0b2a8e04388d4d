// `gammalab plan --next`'s output as printed (cli/next_move_view.h): the design now, the best move and why, the
// ranked table, and the path towards a width with how it ended and the fixed design beside it; the same in JSON.
#include "cli/next_move_view.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gammalab::cli {
namespace {

NextMoveReport report() {
  NextMoveReport r;
  r.design.compute = {1e10, 1e11};
  r.design.seeds = 2;
  r.design.studies = 400;
  r.arms = 3;
  const Move seed{MoveKind::kSeed, 0, 1e10, 1, 3, 3e10};
  const Move larger{MoveKind::kLarger, 2, 1e12, 2, 6, 6e12};
  r.ranked = {{seed, 1.5, 1.4, (std::log(1.5) - std::log(1.4)) / 3e10},
              {larger, 1.5, 1.45, (std::log(1.5) - std::log(1.45)) / 6e12}};
  return r;
}

TEST(NextMoveView, ItNamesTheDesignTheBestMoveAndWhyThenEveryMoveRanked) {
  const std::string text = render_next_move(report());
  EXPECT_NE(text.find("the design now: 2 sizes, 3 arms, 6.60e+11 FLOPs (the fit's compute); median interval 1.500×"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("best: one more paired seed at 1.00e+10 FLOPs a run; 3 runs, 3.00e+10 FLOPs in all: 1.500× → "
                      "1.400× wide"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("\nseed "), text.find("\nlarger ")) << "best first";
  EXPECT_EQ(text.find("towards"), std::string::npos) << "no path without a target";
  const nlohmann::json j = next_move_json(report());
  EXPECT_EQ(j["moves"].size(), 2u);
  EXPECT_EQ(j["moves"][1]["kind"], "larger");
  EXPECT_EQ(j["moves"][1]["runs"], 6);
  EXPECT_DOUBLE_EQ(j["ratio"].get<double>(), 1.5);
  EXPECT_FALSE(j.contains("path"));
}

TEST(NextMoveView, APathSaysHowItEndedAndWhatTheFixedDesignCosts) {
  NextMoveReport r = report();
  r.target = 1.2;
  r.budget = 1e11;
  MovePlan path;
  path.moves = {r.ranked[0]};
  path.ratio = 1.4;
  path.flops_added = 3e10;
  path.stopped = "budget";
  r.path = path;
  r.fixed = FixedDesign{6, 1.19, 1.98e12};
  const std::string text = render_next_move(r);
  EXPECT_NE(text.find("towards 1.200× wide (greedy, the best move each time, at most 1.00e+11 FLOPs more)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  1. one more paired seed at 1.00e+10 FLOPs a run: 1.400× wide, 6.90e+11 FLOPs in all"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stopped: the next move would pass the budget of 1.00e+11 FLOPs, at 1.400× wide"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("the fixed design that reaches it: 6 paired seeds at every size, 1.98e+12 FLOPs (1.190×)\n"),
            std::string::npos)
      << "no saving is claimed for a path that did not reach the target: " << text;
  const nlohmann::json j = next_move_json(r);
  EXPECT_EQ(j["path"]["stopped"], "budget");
  EXPECT_DOUBLE_EQ(j["path"]["budget"].get<double>(), 1e11);
  EXPECT_EQ(j["path"]["fixed"]["seeds"], 6);

  r.path->stopped = "target";
  r.path->ratio = 1.19;
  EXPECT_NE(render_next_move(r).find("reached the target of 1.200× wide"), std::string::npos);
  EXPECT_NE(render_next_move(r).find("these moves cost 35% of it"), std::string::npos) << render_next_move(r);
}

}  // namespace
}  // namespace gammalab::cli
