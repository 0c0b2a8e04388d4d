#pragma once
// Arithmetic for derived sweep fields, e.g. `tokens: 100 * params` or `steps: round(tokens / batch_tokens)`.
// Grammar: numbers, names (letters, digits, '_', '.'), + - * /, unary minus, parentheses, and the functions
// floor, ceil, round (one argument), min, max (two or more). Values are doubles; the caller decides which
// results must be whole.
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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
  double evaluate(const Lookup& lookup) const;

  // Every name the expression refers to, in order of appearance (duplicates kept once).
  std::vector<std::string> names() const;
  const std::string& text() const { return text_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace gammalab
