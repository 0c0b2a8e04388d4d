// Law files: the shipped ones read, and hostile ones are refused with an error that names the field, the limit
// and the value, before any work their size would cost.
#include "core/scaling/law_form.h"

#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/config_error.h"

namespace gammalab {
namespace {

const std::filesystem::path kLawDir = std::filesystem::path(GAMMALAB_SOURCE_DIR) / "configs" / "laws";

std::string refusal(const std::string& yaml) {
  try {
    parse_law_form(yaml, "law.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted:\n" << yaml;
  return "";
}

constexpr const char* kPowerLaw = R"(law: power
variables: [params]
loss: E + A / params^alpha
parameters:
  E: {bounds: [0.01, 100], scale: log}
  A: {bounds: [0, .inf], scale: log, starts: [1, exp(10)]}
  alpha: {bounds: [0, 2], starts: [0.3]}
)";

TEST(LawForm, EveryShippedFileReads) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kLawDir)) {
    SCOPED_TRACE(entry.path().string());
    const LawForm form = read_law_form(entry.path().string());
    EXPECT_FALSE(form.source.empty());
    EXPECT_GE(form.start_count(), 1u);
    ++files;
  }
  EXPECT_GE(files, 5);
  const LawForm chinchilla = read_law_form((kLawDir / "chinchilla.yaml").string());
  EXPECT_EQ(chinchilla.start_count(), 4500u);  // Hoffmann et al.'s grid, as the built-in law's
  EXPECT_EQ(chinchilla.variables, (std::vector<std::string>{"params", "tokens"}));
}

TEST(LawForm, ReadsBoundsScalesStartsAndDefaults) {
  const LawForm form = parse_law_form(kPowerLaw, "law.yaml");
  ASSERT_EQ(form.parameters.size(), 3u);
  const LawParameter& E = form.parameters[0];  // parameters come in name order: A, E, alpha
  EXPECT_EQ(E.name, "A");
  EXPECT_DOUBLE_EQ(E.starts[1], std::exp(10.0));
  const LawParameter& e = form.parameters[1];
  EXPECT_EQ(e.scale, ParameterScale::kLog);
  // Without starts: five spread evenly inside finite bounds on the scale searched (here 0.01 to 100 in ln).
  ASSERT_EQ(e.starts.size(), 5u);
  EXPECT_NEAR(e.starts[0], std::pow(10.0, -2.0 + 4.0 / 6.0), 1e-12);
  EXPECT_NEAR(e.starts[2], 1.0, 1e-12);
  EXPECT_EQ(form.family, (std::vector<std::size_t>{0}));
  EXPECT_EQ(law_form_loss(form, {100.0, 1.5, 0.5}, {1e4}), 1.5 + 100.0 / 100.0);
  EXPECT_TRUE(std::isnan(law_form_loss(form, {100.0, -5.0, 0.5}, {1e4})));  // negative loss: outside its domain
}

TEST(LawForm, TheSearchMapKeepsEveryValueInsideItsBounds) {
  LawParameter both{"x", 0.1, 10.0, ParameterScale::kLog, {1.0}};
  LawParameter below{"y", 2.0, INFINITY, ParameterScale::kLinear, {3.0}};
  LawParameter none{"z", -INFINITY, INFINITY, ParameterScale::kLinear, {3.0}};
  for (double v : {0.2, 1.0, 9.0}) EXPECT_NEAR(both.from_search(both.to_search(v)), v, 1e-12 * v);
  for (double z : {-50.0, -3.0, 0.0, 3.0, 50.0}) {
    EXPECT_GE(both.from_search(z), 0.1);
    EXPECT_LE(both.from_search(z), 10.0);
    EXPECT_GE(below.from_search(z), 2.0);
  }
  EXPECT_EQ(none.to_search(3.5), 3.5);
  EXPECT_TRUE(both.at_bound(10.0));
  EXPECT_FALSE(both.at_bound(5.0));
  EXPECT_TRUE(below.at_bound(2.0 + 1e-9));
}

TEST(LawForm, HostileFilesAreRefusedWithTheFieldAndTheLimit) {
  std::string deep = "law: deep\nvariables: [x]\nparameters: {a: {bounds: [0, 1]}}\nloss: ";
  for (int i = 0; i < 100; ++i) deep += "(";
  deep += "a * x";
  for (int i = 0; i < 100; ++i) deep += ")";
  EXPECT_NE(refusal(deep).find("nested more than 32 levels"), std::string::npos);

  const std::string unknown = "law: u\nvariables: [x]\nparameters: {a: {bounds: [0, 1]}}\nloss: a * x + b\n";
  const std::string why = refusal(unknown);
  EXPECT_NE(why.find("law.yaml: loss: unknown name 'b' at column 9"), std::string::npos) << why;
  EXPECT_NE(why.find("parameters and variables: a, x"), std::string::npos) << why;

  EXPECT_NE(refusal("law: z\nvariables: [x]\nparameters: {a: {bounds: [0, 1]}}\nloss: a * x / 0\n")
                .find("divides by the constant 0"),
            std::string::npos);
  EXPECT_NE(refusal("law: z\nvariables: [x]\nparameters: {a: {starts: [1]}}\nloss: a * x\n")
                .find("parameters.a.bounds: every parameter needs bounds"),
            std::string::npos);
  EXPECT_NE(refusal("law: z\nvariables: [x]\nparameters: {a: {bounds: [0, .inf], starts: [-1]}}\nloss: a * x\n")
                .find("parameters.a.starts[0]: -1 is not strictly inside the bounds [0, inf]"),
            std::string::npos);
  EXPECT_NE(refusal("law: z\nvariables: [x]\nparameters: {a: {bounds: [-.inf, .inf]}}\nloss: a * x\n")
                .find("needs its own starts"),
            std::string::npos);
  EXPECT_NE(refusal("law: z\nvariables: [x]\nparameters: {a: {bounds: [-1, 1], scale: log}}\nloss: a * x\n")
                .find("lower bound must be 0 or more, got -1"),
            std::string::npos);
  EXPECT_NE(refusal("law: z\nvariables: [x]\nparameters: {a: {bounds: [0, 1]}, b: {bounds: [0, 1]}}\nloss: a * x\n")
                .find("'b' is declared but the loss does not use it"),
            std::string::npos);
  EXPECT_NE(refusal("law: z\nvariables: [x]\nparameters: {a: {bounds: [0, 1]}}\nloss: round(a * x)\n")
                .find("round() is piecewise constant"),
            std::string::npos);
  EXPECT_NE(refusal("law: z\nvariables: [x]\nparameters: {a: {bounds: [0, 1]}}\nloss: a * x\ncolour: red\n")
                .find("colour: unknown key"),
            std::string::npos);
  EXPECT_NE(refusal("law: z\nvariables: [x, x]\nparameters: {a: {bounds: [0, 1]}}\nloss: a * x\n")
                .find("variables[1]: 'x' is listed twice"),
            std::string::npos);

  // A megabyte of text is refused by its size, before it is parsed.
  const std::string big = std::string(kPowerLaw) + "# " + std::string(1 << 20, 'x') + "\n";
  EXPECT_NE(refusal(big).find("bytes, more than the limit of 65536 for a law file"), std::string::npos);
  // YAML nested past the law file's depth, refused before the tree is built.
  std::string nested = "law: n\nvariables: [x]\nparameters: ";
  for (int i = 0; i < 10000; ++i) nested += "[";
  EXPECT_NE(refusal(nested).find("nested more than 8 levels deep"), std::string::npos);
  // A grid of starts whose product is past the limit.
  std::string grid = "law: g\nvariables: [x]\nloss: a * b * c * x\nparameters:\n";
  for (const char* p : {"a", "b", "c"}) {
    grid += std::string("  ") + p + ": {bounds: [0, 100], starts: [";
    for (int i = 1; i <= 30; ++i) grid += std::to_string(i) + (i < 30 ? ", " : "]}\n");
  }
  EXPECT_NE(refusal(grid).find("more than 20000 points"), std::string::npos);
  // Too many parameters for the fit's derivatives.
  std::string many = "law: m\nvariables: [x]\nparameters:\n";
  std::string loss = "x";
  for (int i = 0; i < 17; ++i) {
    many += "  p" + std::to_string(i) + ": {bounds: [0, 1]}\n";
    loss += " + p" + std::to_string(i);
  }
  EXPECT_NE(refusal(many + "loss: " + loss + "\n").find("17 parameters, more than the limit of 16"),
            std::string::npos);
  EXPECT_NE(refusal("law: 'a b'\nvariables: [x]\nparameters: {a: {bounds: [0, 1]}}\nloss: a * x\n").find("law:"),
            std::string::npos);
  EXPECT_NE(refusal("law: [unclosed\n").find("not valid YAML"), std::string::npos);
}

}  // namespace
}  // namespace gammalab
