#include "core/sweep/expression.h"

#include <map>

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
  EXPECT_EQ(error_offset("sqrt(4)"), 0u);
  EXPECT_EQ(error_offset("round(1, 2)"), 0u);
  EXPECT_EQ(error_offset("1 / (2 - 2)"), 2u);
  EXPECT_EQ(error_offset("3x"), 1u);
  EXPECT_EQ(error_offset(""), 0u);
}

}  // namespace
}  // namespace gammalab
