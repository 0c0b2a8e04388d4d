#include "core/expression.h"

#include <map>

#include <ceres/jet.h>

#include <gtest/gtest.h>

namespace gammalab {
namespace {

double eval(const std::string& text, std::map<std::string, double> names = {}) {
  return Expression::parse(text).evaluate([&](const std::string& name, std::size_t offset) {
    auto it = names.find(name);
    if (it == names.end()) throw ExpressionError(offset, "unknown name '" + name + "'");
    return it->second;
  });
}

std::size_t error_offset(const std::string& text, std::map<std::string, double> names = {}) {
  try {
    eval(text, names);
  } catch (const ExpressionError& e) {
    return e.offset();
  }
  ADD_FAILURE() << "no error for " << text;
  return 999;
}

TEST(Expression, PrecedenceAndParentheses) {
  EXPECT_DOUBLE_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_DOUBLE_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_DOUBLE_EQ(eval("8 / 4 / 2"), 1);
  EXPECT_DOUBLE_EQ(eval("10 - 4 - 3"), 3);
  EXPECT_DOUBLE_EQ(eval("-2 * -3"), 6);
  EXPECT_DOUBLE_EQ(eval("1e9 / 2.5e8"), 4);
  EXPECT_DOUBLE_EQ(eval(".5 * 4"), 2);
}

TEST(Expression, NamesWithDotsAndFunctions) {
  std::map<std::string, double> names = {{"params", 123}, {"optim.lr", 0.5}, {"batch_tokens", 10}};
  EXPECT_DOUBLE_EQ(eval("100 * params", names), 12300);
  EXPECT_DOUBLE_EQ(eval("2 * optim.lr", names), 1);
  EXPECT_DOUBLE_EQ(eval("round(params / batch_tokens)", names), 12);
  EXPECT_DOUBLE_EQ(eval("floor(12.9)"), 12);
  EXPECT_DOUBLE_EQ(eval("ceil(12.1)"), 13);
  EXPECT_DOUBLE_EQ(eval("min(3, 1, 2)"), 1);
  EXPECT_DOUBLE_EQ(eval("max(3, 1, 2)"), 3);
  EXPECT_EQ(Expression::parse("a * b + a").names(), (std::vector<std::string>{"a", "b"}));
}

TEST(Expression, ErrorsPointAtTheCharacter) {
  EXPECT_EQ(error_offset("1 + "), 4u);
  EXPECT_EQ(error_offset("2 * (3 + 4"), 10u);
  EXPECT_EQ(error_offset("1 + 2 )"), 6u);
  EXPECT_EQ(error_offset("100 * parms"), 6u);
  EXPECT_EQ(error_offset("cbrt(4)"), 0u);
  EXPECT_EQ(error_offset("1 + log(0)"), 4u);
  EXPECT_EQ(error_offset("2 * sqrt(-1)"), 4u);
  EXPECT_EQ(error_offset("10 ^ 400"), 3u);
  EXPECT_EQ(error_offset("round(1, 2)"), 0u);
  EXPECT_EQ(error_offset("1 / (2 - 2)"), 2u);
  EXPECT_EQ(error_offset("3x"), 1u);
  EXPECT_EQ(error_offset(""), 0u);
}

TEST(Expression, PowerBindsTighterThanASignAndToTheRight) {
  EXPECT_DOUBLE_EQ(eval("-2^2"), -4);
  EXPECT_DOUBLE_EQ(eval("2^3^2"), 512);
  EXPECT_DOUBLE_EQ(eval("2^-1"), 0.5);
  EXPECT_DOUBLE_EQ(eval("3 * 2^2"), 12);
  EXPECT_DOUBLE_EQ(eval("(1 + 1)^3"), 8);
  EXPECT_DOUBLE_EQ(eval("pow(4, 0.5)"), 2);
}

TEST(Expression, TheFunctionsScalingLawsNeed) {
  EXPECT_DOUBLE_EQ(eval("exp(log(7))"), 7);
  EXPECT_DOUBLE_EQ(eval("sqrt(9)"), 3);
  EXPECT_DOUBLE_EQ(eval("tanh(0)"), 0);
  EXPECT_DOUBLE_EQ(eval("abs(-2.5)"), 2.5);
  EXPECT_EQ(Expression::parse("exp(a) + log(b) * exp(c)").functions(), (std::vector<std::string>{"exp", "log"}));
}

// The compiled program gives the tree's value for doubles, and exact derivatives for Jets.
TEST(Expression, ACompiledProgramEvaluatesLikeTheTreeAndDifferentiates) {
  const Expression e = Expression::parse("E + A / params^alpha + max(0, -x) + round(-2.5) + tanh(x) * sqrt(A)");
  const std::vector<std::string> slots = {"E", "A", "alpha", "params", "x"};
  const ExpressionProgram program = e.compile([&](const std::string& name) {
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (slots[i] == name) return static_cast<int>(i);
    }
    return -1;
  });
  const std::map<std::string, double> values = {{"E", 1.7}, {"A", 400.0}, {"alpha", 0.34}, {"params", 1e8}, {"x", -0.3}};
  std::vector<double> slot_values;
  for (const auto& name : slots) slot_values.push_back(values.at(name));
  ExpressionStack<double> stack;
  EXPECT_DOUBLE_EQ(evaluate_program(program, slot_values.data(), stack), eval(e.text(), {values.begin(), values.end()}));

  using Jet = ceres::Jet<double, 3>;
  std::vector<Jet> jets = {Jet(1.7, 0), Jet(400.0, 1), Jet(0.34, 2), Jet(1e8), Jet(-0.3)};
  ExpressionStack<Jet> jet_stack;
  const Jet y = evaluate_program(program, jets.data(), jet_stack);
  // The same with the last two slots (params, x) plain numbers: the data of a fit.
  const std::vector<double> data = {1e8, -0.3};
  const Jet mixed = evaluate_program(program, jets.data(), 3, data.data(), jet_stack);
  EXPECT_DOUBLE_EQ(mixed.a, y.a);
  for (int k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(mixed.v[k], y.v[k]);
  EXPECT_DOUBLE_EQ(y.a, eval(e.text(), {values.begin(), values.end()}));
  EXPECT_DOUBLE_EQ(y.v[0], 1.0);  // d/dE
  const double power = std::pow(1e8, 0.34);
  EXPECT_NEAR(y.v[1], 1.0 / power + std::tanh(-0.3) * 0.5 / std::sqrt(400.0), 1e-15);
  EXPECT_NEAR(y.v[2], -400.0 * std::log(1e8) / power, 1e-12);

  EXPECT_THROW(e.compile([](const std::string&) { return -1; }), ExpressionError);
}

}  // namespace
}  // namespace gammalab
