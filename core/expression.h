#pragma once
// Arithmetic of derived sweep fields, e.g. `tokens: 100 * params` or `steps: round(tokens / batch_tokens)`, and of
// scaling-law forms (core/scaling/law_form.h), e.g. `E + A / params^alpha + B / tokens^beta`.
// Grammar: numbers, names (letters, digits, '_', '.'), + - * / ^, unary minus, parentheses, and the functions
// floor, ceil, round, exp, log, sqrt, tanh, abs (one argument), pow (two), min, max (two or more). `^` binds
// tighter than unary minus and to the right (-x^2 is -(x^2), 2^3^2 is 2^9). Values are doubles; the caller
// decides which results must be whole.
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/expression_program.h"

namespace gammalab {

// A problem at a character offset of the expression text, so callers can point at the exact column.
class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(std::size_t offset, const std::string& message) : std::runtime_error(message), offset_(offset) {}
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

class Expression {
 public:
  // Throws ExpressionError for syntax errors and unknown functions.
  static Expression parse(const std::string& text);

  // Resolves a name to its value; throws ExpressionError(offset, ...) for a name it does not know.
  using Lookup = std::function<double(const std::string& name, std::size_t offset)>;
  // Throws ExpressionError for a division by zero or a function outside its domain (log or sqrt of a negative
  // number, a power that is not a finite number).
  double evaluate(const Lookup& lookup) const;

  // The expression as a program over numbered slots (expression_program.h). `slot_of` gives a name's slot, or
  // -1 for a name it does not know, which throws ExpressionError at the name's offset.
  using SlotOf = std::function<int(const std::string& name)>;
  ExpressionProgram compile(const SlotOf& slot_of) const;

  // Every function the expression calls, in order of appearance (duplicates kept once).
  std::vector<std::string> functions() const;

  // Every name the expression refers to, in order of appearance (duplicates kept once).
  std::vector<std::string> names() const;
  const std::string& text() const { return text_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace gammalab
