// Hostile input: every size limit of core/limits.h is met with a payload built here (9,000 parentheses,
// 100,000 unary minuses, 100,000-digit numbers, YAML nested 100,000 deep, 2^31-1 seeds or layers, ...), and
// each must end quickly in an error that names the field, the limit and the value, never in a crash, a
// "stod" error or gigabytes of memory.
#include <cmath>
#include <limits>
#include <set>

#include <gtest/gtest.h>

#include "core/config_error.h"
#include "core/job_config.h"
#include "core/json_fields.h"
#include "core/limits.h"
#include "core/param_count.h"
#include "core/expression.h"
#include "core/sweep/sweep.h"
#include "core/yaml_json.h"
#include "sweep_test_support.h"

namespace gammalab {
namespace {

using testing::problems;

std::string repeat(const std::string& part, std::size_t n) {
  std::string out;
  out.reserve(part.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += part;
  return out;
}

std::string listing(const std::vector<SweepDiagnostic>& all) {
  std::string out;
  for (const auto& d : all) out += d.to_string() + "\n";
  return out;
}

// The problems of `yaml`, which must include one at `path` whose message contains `part`. No timing: the
// bound on work is that the named limit is what stops the parser (a parser that recursed or scanned first
// would crash or be killed by the test timeout instead).
std::vector<SweepDiagnostic> expect_problem(const std::string& yaml, const std::string& path,
                                            const std::string& part) {
  const auto all = problems(yaml);
  bool found = false;
  for (const auto& d : all) found = found || (d.path == path && d.message.find(part) != std::string::npos);
  EXPECT_TRUE(found) << "no problem at '" << path << "' with '" << part << "' in:\n" << listing(all);
  return all;
}

// A sweep whose base.optim.lr is `text`, double-quoted (the payloads have no quotes or backslashes).
std::string with_lr(const std::string& text) {
  return "base:\n  model: {preset: tiny-0.03m}\n  optim: {lr: \"" + text + "\"}\n";
}

// --- The file --------------------------------------------------------------------------------------------

TEST(InputLimits, FileSize) {
  const std::string yaml = "base: {model: {preset: tiny-0.03m}}\n#" + repeat("x", limits::kMaxSweepFileBytes);
  expect_problem(yaml, "", "the file is " + std::to_string(yaml.size()) +
                               " bytes, more than the limit of 1048576 bytes");
}

// Every string of a sweep goes into JSON (its config hash) and protobuf, both of which refuse malformed UTF-8:
// a data path with a surrogate's bytes once ended `validate` in an uncaught JSON type_error (found by
// make fuzz, tests/fuzz/corpus/sweep_file/crash-4533...). The file is refused whole, naming where.
TEST(InputLimits, AFileThatIsNotValidUtf8IsRefusedWithItsPlace) {
  for (const std::string& bad : {std::string("\xED\xA0\x80"), std::string("\xC0\xAF"), std::string("\xFF"),
                                std::string("\xE2\x82")}) {
    const std::string yaml = "base:\n  model: {preset: tiny-0.03m}\n  data: {train: a" + bad + "b.bin}\n";
    const auto all = expect_problem(yaml, "", "the file is not valid UTF-8: byte 53");
    ASSERT_FALSE(all.empty());
    EXPECT_EQ(all[0].line, 3);
    EXPECT_EQ(all[0].column, 18);
  }
  // Valid text beyond ASCII is a sweep like any other.
  EXPECT_TRUE(problems("base:\n  model: {preset: tiny-0.03m}\n  data: {train: d\xC3\xA9j\xC3\xA0.bin}\n").empty());
}

TEST(InputLimits, YamlNestingFlowSequencesInAnAxisList) {
  const std::size_t n = 100000;
  const auto all = expect_problem("axes:\n  grid:\n    optim.lr: " + repeat("[", n) + "1" + repeat("]", n) + "\n",
                                  "", "YAML nested more than 32 levels deep");
  ASSERT_EQ(all.size(), 1u) << listing(all);
  EXPECT_EQ(all[0].line, 3);  // where the 33rd level opens
}

TEST(InputLimits, YamlNestingFlowMaps) {
  const std::size_t n = 50000;
  expect_problem("base: " + repeat("{a: ", n) + "1" + repeat("}", n) + "\n", "", "YAML nested more than 32");
}

TEST(InputLimits, YamlNestingBlockSequencesOnOneLine) {
  expect_problem("seeds:\n  " + repeat("- ", 100000) + "1\n", "", "YAML nested more than 32 levels deep");
}

TEST(InputLimits, YamlNestingBlockMapsByIndentation) {
  std::string yaml = "base:\n";
  for (int level = 1; level <= 300; ++level) yaml += std::string(std::size_t(level), ' ') + "k:\n";
  expect_problem(yaml, "", "YAML nested more than 32 levels deep");
}

TEST(InputLimits, YamlNestingWithinTheLimitIsAnOrdinaryTypeError) {
  const std::size_t n = limits::kMaxYamlDepth - 4;  // document, axes, grid and the axis list come first
  expect_problem("axes:\n  grid:\n    optim.lr: [" + repeat("[", n) + "1" + repeat("]", n) + "]\n",
                 "axes.grid.optim.lr[0]", "expected a number, got a list");
}

TEST(InputLimits, LongKey) {
  expect_problem("base:\n  " + repeat("k", 500) + ": 1\n", "base", "a key of 500 bytes, more than the limit of 128");
  expect_problem("base:\n  ? " + repeat("k", 100000) + "\n  : 1\n", "base",  // an explicit key has no YAML limit
                 "a key of 100000 bytes, more than the limit of 128");
}

TEST(InputLimits, LongStringValue) {
  expect_problem("base: {model: {preset: tiny-0.03m}, data: {train: " + repeat("a", 100000) + "}}\n",
                 "base.data.train", "the value is 100000 bytes long, more than the limit of 4096");
}

TEST(InputLimits, AxisValues) {
  std::string values;
  for (int i = 0; i < 1001; ++i) values += (i ? ", " : "") + std::to_string(i + 1);
  expect_problem("base: {model: {preset: tiny-0.03m}}\naxes: {grid: {steps: [" + values + "]}}\n",
                 "axes.grid.steps", "1001 values, more than the limit of 1000 per axis");
}

// --- Seeds, jobs, attempts -------------------------------------------------------------------------------

TEST(InputLimits, SeedsCountIsCheckedBeforeAnySeedIsBuilt) {
  expect_problem("base: {model: {preset: tiny-0.03m}}\nseeds: 2147483647\n", "seeds",
                 "2147483647 seeds is more than the limit of 1000 seeds per sweep");
}

TEST(InputLimits, SeedsList) {
  std::string seeds;
  for (int i = 0; i < 1001; ++i) seeds += (i ? ", " : "") + std::to_string(i);
  expect_problem("base: {model: {preset: tiny-0.03m}}\nseeds: [" + seeds + "]\n", "seeds",
                 "a list of 1001 seeds is more than the limit of 1000");
}

TEST(InputLimits, JobsAreCountedFromAxisSizesTimesSeedsBeforeExpanding) {
  std::string axes;
  for (const char* key : {"steps", "optim.lr", "optim.beta1", "optim.eps", "schedule.warmup_steps"}) {
    std::string values;
    for (int i = 1; i <= 20; ++i) values += (i > 1 ? ", " : "") + std::to_string(i) + (key[0] == 'o' ? "e-5" : "");
    axes += std::string("    ") + key + ": [" + values + "]\n";
  }
  expect_problem("base: {model: {preset: tiny-0.03m}}\nseeds: 1000\naxes:\n  grid:\n" + axes, "axes",
                 "the sweep expands to 3200000000 jobs, more than the limit of 10000");
}

TEST(InputLimits, MaxAttempts) {
  expect_problem("base: {model: {preset: tiny-0.03m}}\nmax_attempts: 2147483647\n", "max_attempts",
                 "2147483647 is more than the limit of 100");
}

// --- Expressions -----------------------------------------------------------------------------------------

TEST(InputLimits, NineThousandParentheses) {
  expect_problem(with_lr(repeat("(", 9000) + "1" + repeat(")", 9000)), "base.optim.lr",
                 "the expression is 18001 characters long, more than the limit of 1024");
}

TEST(InputLimits, HundredThousandUnaryMinuses) {
  expect_problem(with_lr(repeat("-", 100000) + "1"), "base.optim.lr",
                 "the expression is 100001 characters long, more than the limit of 1024");
}

TEST(InputLimits, HundredThousandTermSum) {
  expect_problem(with_lr("1" + repeat("+1", 99999)), "base.optim.lr",
                 "the expression is 199999 characters long, more than the limit of 1024");
}

TEST(InputLimits, NestingWithinTheLengthLimit) {
  const std::string depth = "nested more than 32 levels deep";
  expect_problem(with_lr(repeat("(", 40) + "1" + repeat(")", 40)), "base.optim.lr", depth);
  expect_problem(with_lr(repeat("- ", 40) + "1"), "base.optim.lr", depth);
  expect_problem(with_lr(repeat("+", 40) + "1"), "base.optim.lr", depth);
  expect_problem(with_lr(repeat("floor(", 40) + "1" + repeat(")", 40)), "base.optim.lr", depth);
  expect_problem(with_lr(repeat("min(1, ", 40) + "1" + repeat(")", 40)), "base.optim.lr", depth);
  // Just within the limit it parses (and evaluates).
  EXPECT_DOUBLE_EQ(Expression::parse(repeat("(", 32) + "1" + repeat(")", 32)).evaluate(nullptr), 1.0);
}

TEST(InputLimits, TermsWithinTheLengthLimit) {
  expect_problem(with_lr("1" + repeat("+1", 300)), "base.optim.lr",
                 "more than 256 numbers, names and operators (the limit)");
  expect_problem(with_lr("1" + repeat("*1", 300)), "base.optim.lr", "more than 256 numbers");
  expect_problem(with_lr("max(" + repeat("1,", 63) + "1)+max(" + repeat("1,", 63) + "1)+max(" + repeat("1,", 63) +
                         "1)+max(" + repeat("1,", 63) + "1)+1"),
                 "base.optim.lr", "more than 256 numbers");
}

TEST(InputLimits, NumberTooLargeForADoubleInAnExpression) {
  expect_problem(with_lr("1e400 * 2"), "base.optim.lr", "the number 1e400 is too large for a double");
  expect_problem(with_lr(repeat("9", 400) + " / 2"), "base.optim.lr", "too large for a double");
}

// --- Numbers in the file ---------------------------------------------------------------------------------

TEST(InputLimits, NumberTooLargeForADouble) {
  expect_problem("base: {model: {preset: tiny-0.03m}, optim: {lr: 1e400}}\n", "base.optim.lr",
                 "1e400 is too large for a number");
  expect_problem("base: {model: {preset: tiny-0.03m}, steps: -1e400}\n", "base.steps",
                 "-1e400 is too large for a number");
}

TEST(InputLimits, HundredThousandDigitPlainScalar) {
  const std::string digits = "1" + repeat("0", 99999);
  const auto all = expect_problem("base: {model: {preset: tiny-0.03m}, optim: {lr: " + digits + "}}\n",
                                  "base.optim.lr", "is too large for a number");
  // The message quotes the start of the number and its length, not 100,000 digits.
  for (const auto& d : all) EXPECT_LT(d.message.size(), 200u) << d.message.substr(0, 200);
  expect_problem("base: {model: {preset: tiny-0.03m}, steps: " + digits + "}\n", "base.steps",
                 "(100000 characters) is too large for a number");
  expect_problem("base: {model: {preset: tiny-0.03m}, steps: 0." + repeat("0", 99999) + "1}\n", "base.steps",
                 "must be at least 1");  // 1e-100000 is 0 as a double
}

TEST(InputLimits, YamlScalarsAreTypedWithoutRegex) {
  auto typed = [](const std::string& text) { return yaml_to_json(YAML::Load("v: " + text)["v"]); };
  EXPECT_EQ(typed("12"), 12);
  EXPECT_EQ(typed("+5"), 5);
  EXPECT_EQ(typed("-7"), -7);
  EXPECT_DOUBLE_EQ(typed("-.5").get<double>(), -0.5);
  EXPECT_DOUBLE_EQ(typed("1.").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(typed("2.5e-3").get<double>(), 2.5e-3);
  EXPECT_DOUBLE_EQ(typed("99999999999999999999").get<double>(), 1e20);  // beyond int64: a float
  EXPECT_TRUE(typed("1e").is_string());
  EXPECT_TRUE(typed("0x10").is_string());
  EXPECT_TRUE(typed("inf").is_string());
  EXPECT_TRUE(typed("1.5.2").is_string());
  EXPECT_TRUE(std::isinf(typed("1e400").get<double>()));
  EXPECT_EQ(typed("1e-400").get<double>(), 0.0);
  EXPECT_TRUE(std::isinf(typed(repeat("9", 100000)).get<double>()));
}

TEST(InputLimits, IntegerBeyondTwoToThe53) {
  expect_problem("base: {model: {preset: tiny-0.03m}, steps: 1e17}\n", "base.steps",
                 "1e17 is larger than the limit of 9007199254740992 (2^53) for an integer field");
  expect_problem("base: {model: {preset: tiny-0.03m}, steps: \"1e17 * 1\"}\n", "base.steps",
                 "larger than the limit of 2^53");
}

// --- Job config sizes ------------------------------------------------------------------------------------

TEST(InputLimits, LayersTwoToThe31CountedQuickly) {
  // `params` counts the model before validate() sees it: the count must be O(1), and then the limit speaks.
  expect_problem("base:\n  model: {preset: tiny-0.03m, n_layers: 2147483647}\n  optim: {lr: 0.1 / params}\n",
                 "base.model.n_layers", "2147483647 is more than the limit of 1024");
  expect_problem("base:\n  model: {preset: tiny-0.03m, n_layers: 2147483647}\n  tokens: 20 * params\n",
                 "base.tokens", "is more than the limit of 100000000000000 tokens per job");
}

TEST(InputLimits, AbsurdSizesFromTheFile) {
  const std::string base = "base:\n  model: {preset: tiny-0.03m}\n";
  expect_problem(base + "  steps: 1e15\n", "base.steps", "1000000000000000 is more than the limit of 10000000000");
  expect_problem(base + "  batch_tokens: 1e15\n", "base.batch_tokens",
                 "1000000000000000 is more than the limit of 1073741824");
  expect_problem("base:\n  model: {preset: tiny-0.03m, d_model: 1e6}\n", "base.model.d_model",
                 "1000000 is more than the limit of 65536");
  expect_problem(base + "  tokens: 1e15\n", "base.tokens",
                 "is more than the limit of 100000000000000 tokens per job");
  expect_problem(base + "  steps: 1e10\n  batch_tokens: 1048576\n", "base.steps",
                 "tokens is more than the limit of 100000000000000 tokens per job");
  // Given as expressions too, and in an axis.
  expect_problem(base + "  steps: \"1e5 * 1e10\"\n", "base.steps", "is more than the limit of 10000000000");
  expect_problem(base + "axes: {grid: {model.n_layers: [2, 100000]}}\n", "axes.grid.model.n_layers[1]",
                 "100000 is more than the limit of 1024");
}

TEST(InputLimits, EverySizeProblemInAFileIsReportedAtOnce) {
  const auto all = problems(R"(base:
  model: {preset: tiny-0.03m}
  optim: {lr: 1e400}
  steps: 1e15
  data: {eval_batches: 2000000000}
seeds: 2147483647
max_attempts: 1000
)");
  std::set<std::string> paths;
  for (const auto& d : all) paths.insert(d.path);
  EXPECT_EQ(paths, (std::set<std::string>{"base.optim.lr", "base.steps", "base.data.eval_batches", "seeds",
                                          "max_attempts"}))
      << listing(all);
}

TEST(InputLimits, ValidateBoundsEverySize) {
  struct Case {
    const char* path;
    void (*set)(JobConfig&);
  };
  const Case cases[] = {
      {"model.vocab_size", [](JobConfig& c) { c.model.vocab_size = 1 << 21; }},
      {"model.n_layers", [](JobConfig& c) { c.model.n_layers = 1025; }},
      {"model.d_model", [](JobConfig& c) { c.model.d_model = 1 << 20; }},
      {"model.n_heads", [](JobConfig& c) { c.model.n_heads = 4096; }},
      {"model.n_kv_heads", [](JobConfig& c) { c.model.n_kv_heads = 4096; }},
      {"model.ffn_hidden", [](JobConfig& c) { c.model.ffn_hidden = 1 << 20; }},
      {"model.seq_len", [](JobConfig& c) { c.model.seq_len = 1 << 24; }},
      {"model.moe.n_experts", [](JobConfig& c) { c.model.moe.n_experts = 5000; }},
      {"model.moe.top_k", [](JobConfig& c) { c.model.moe.top_k = 5000; }},
      {"model.moe.expert_ffn", [](JobConfig& c) { c.model.moe.expert_ffn = 1 << 20; }},
      {"steps", [](JobConfig& c) { c.steps = std::int64_t(1e15); }},
      {"batch_tokens", [](JobConfig& c) { c.batch_tokens = std::int64_t(1e15); }},
      {"micro_batch", [](JobConfig& c) { c.micro_batch = 1 << 21; }},
      {"log_every", [](JobConfig& c) { c.log_every = 2000000000; }},
      {"eval_every", [](JobConfig& c) { c.eval_every = 2000000000; }},
      {"ckpt_every", [](JobConfig& c) { c.ckpt_every = 2000000000; }},
      {"sharpness_every", [](JobConfig& c) { c.sharpness_every = 2000000000; }},
      {"data.eval_batches", [](JobConfig& c) { c.data.eval_batches = 2000000000; }},
      {"threads", [](JobConfig& c) { c.threads = 100000; }},
      {"optim.muon_ns_steps", [](JobConfig& c) { c.optim.muon_ns_steps = 1000000; }},
      {"optim.lr", [](JobConfig& c) { c.optim.lr = std::numeric_limits<double>::infinity(); }},
      {"model.norm_eps", [](JobConfig& c) { c.model.norm_eps = std::numeric_limits<double>::quiet_NaN(); }},
  };
  for (const auto& test : cases) {
    JobConfig config;
    test.set(config);
    try {
      validate(config);
      ADD_FAILURE() << test.path << " passed";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.path(), test.path) << e.what();
      const std::string message = e.what();
      EXPECT_TRUE(message.find("is more than the limit of") != std::string::npos ||
                  message.find("must be a finite number") != std::string::npos)
          << message;
    }
  }
  validate(JobConfig{});  // the defaults pass
}

TEST(InputLimits, ParameterCountsNeverWrap) {
  ModelSpec huge;
  huge.n_layers = std::numeric_limits<int>::max();
  huge.d_model = 1 << 30;
  huge.n_heads = 2;
  huge.vocab_size = std::numeric_limits<int>::max();
  EXPECT_THROW(count_params(huge, ScaleSpec{}), ConfigError);
  EXPECT_THROW(flops_per_token(huge, ScaleSpec{}), ConfigError);
  // Large but representable: positive (the layers are multiplied, not counted one by one; counting them
  // took half a minute per call).
  ModelSpec deep;
  deep.n_layers = std::numeric_limits<int>::max();
  const ParamCounts counts = count_params(deep, ScaleSpec{});
  EXPECT_GT(counts.total, 0);
  EXPECT_GT(counts.activated, 0);
}

TEST(InputLimits, JsonIntegersMustFitTheirField) {
  nlohmann::json json = to_json(JobConfig{});
  json["model"]["n_layers"] = std::int64_t(1) << 40;  // get<int> would wrap this to 0
  try {
    job_config_from_json(json);
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "model.n_layers");
    EXPECT_NE(std::string(e.what()).find("1099511627776 is outside the range of the field"), std::string::npos)
        << e.what();
  }
  json = to_json(JobConfig{});
  json["optim"]["lr"] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(job_config_from_json(json), ConfigError);
}

}  // namespace
}  // namespace gammalab
