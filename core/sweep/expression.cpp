#include "core/sweep/expression.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace gammalab {

struct Expression::Node {
  enum class Kind { kNumber, kName, kUnaryMinus, kBinary, kCall } kind;
  std::size_t offset = 0;           // where it starts in the text, for error columns
  double number = 0;
  std::string name;                 // kName: the name; kCall: the function
  char op = 0;                      // kBinary: + - * /
  std::vector<std::shared_ptr<const Node>> children;
};

namespace {

using Node = Expression::Node;
using NodePtr = std::shared_ptr<const Node>;

NodePtr make(Node node) { return std::make_shared<const Node>(std::move(node)); }

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

struct FunctionInfo {
  const char* name;
  std::size_t min_args, max_args;
};
constexpr FunctionInfo kFunctions[] = {
    {"floor", 1, 1}, {"ceil", 1, 1}, {"round", 1, 1}, {"min", 2, 64}, {"max", 2, 64}};

// Recursive descent over: expr = term {(+|-) term}; term = unary {(*|/) unary}; unary = [-|+] unary | primary.
class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  NodePtr parse_all() {
    NodePtr node = expression();
    skip_space();
    if (pos_ < text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return node;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw ExpressionError(pos_, message); }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  NodePtr expression() {
    NodePtr left = term();
    while (true) {
      skip_space();
      const std::size_t at = pos_;
      if (!accept('+') && !accept('-')) return left;
      left = make({Node::Kind::kBinary, at, 0, "", text_[at], {left, term()}});
    }
  }

  NodePtr term() {
    NodePtr left = unary();
    while (true) {
      skip_space();
      const std::size_t at = pos_;
      if (!accept('*') && !accept('/')) return left;
      left = make({Node::Kind::kBinary, at, 0, "", text_[at], {left, unary()}});
    }
  }

  NodePtr unary() {
    skip_space();
    const std::size_t at = pos_;
    if (accept('-')) return make({Node::Kind::kUnaryMinus, at, 0, "", '-', {unary()}});
    if (accept('+')) return unary();
    return primary();
  }

  NodePtr primary() {
    skip_space();
    const std::size_t at = pos_;
    if (pos_ >= text_.size()) fail(text_.empty() ? "empty expression" : "expression ends too early");
    if (accept('(')) {
      NodePtr inner = expression();
      if (!accept(')')) fail("expected ')'");
      return inner;
    }
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number(at);
    if (is_name_start(c)) {
      while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
      std::string name = text_.substr(at, pos_ - at);
      if (accept('(')) return call(std::move(name), at);
      return make({Node::Kind::kName, at, 0, std::move(name), 0, {}});
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  NodePtr number(std::size_t at) {
    const char* begin = text_.c_str() + pos_;
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    if (end == begin) fail("bad number");
    pos_ += static_cast<std::size_t>(end - begin);
    if (pos_ < text_.size() && is_name_start(text_[pos_])) fail("bad number");
    return make({Node::Kind::kNumber, at, value, "", 0, {}});
  }

  NodePtr call(std::string name, std::size_t at) {
    const auto* info = std::find_if(std::begin(kFunctions), std::end(kFunctions),
                                    [&](const FunctionInfo& f) { return name == f.name; });
    if (info == std::end(kFunctions)) {
      throw ExpressionError(at, "unknown function '" + name + "' (known: floor, ceil, round, min, max)");
    }
    std::vector<NodePtr> args;
    if (!accept(')')) {
      do args.push_back(expression());
      while (accept(','));
      if (!accept(')')) fail("expected ')' or ','");
    }
    if (args.size() < info->min_args || args.size() > info->max_args) {
      throw ExpressionError(at, name + "() takes " +
                                    (info->min_args == info->max_args ? std::to_string(info->min_args)
                                                                      : "at least " + std::to_string(info->min_args)) +
                                    " argument(s), got " + std::to_string(args.size()));
    }
    return make({Node::Kind::kCall, at, 0, std::move(name), 0, std::move(args)});
  }

  const std::string& text_;
  std::size_t pos_ = 0;
};

double evaluate_node(const Node& node, const Expression::Lookup& lookup) {
  switch (node.kind) {
    case Node::Kind::kNumber:
      return node.number;
    case Node::Kind::kName:
      return lookup(node.name, node.offset);
    case Node::Kind::kUnaryMinus:
      return -evaluate_node(*node.children[0], lookup);
    case Node::Kind::kBinary: {
      const double a = evaluate_node(*node.children[0], lookup);
      const double b = evaluate_node(*node.children[1], lookup);
      switch (node.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        default:
          if (b == 0) throw ExpressionError(node.offset, "division by zero");
          return a / b;
      }
    }
    case Node::Kind::kCall: {
      std::vector<double> args;
      for (const auto& child : node.children) args.push_back(evaluate_node(*child, lookup));
      if (node.name == "floor") return std::floor(args[0]);
      if (node.name == "ceil") return std::ceil(args[0]);
      if (node.name == "round") return std::round(args[0]);
      if (node.name == "min") return *std::min_element(args.begin(), args.end());
      return *std::max_element(args.begin(), args.end());
    }
  }
  return 0;
}

void collect_names(const Node& node, std::vector<std::string>& out) {
  if (node.kind == Node::Kind::kName && std::find(out.begin(), out.end(), node.name) == out.end()) {
    out.push_back(node.name);
  }
  for (const auto& child : node.children) collect_names(*child, out);
}

}  // namespace

Expression Expression::parse(const std::string& text) {
  Expression expression;
  expression.text_ = text;
  expression.root_ = Parser(expression.text_).parse_all();
  return expression;
}

double Expression::evaluate(const Lookup& lookup) const { return evaluate_node(*root_, lookup); }

std::vector<std::string> Expression::names() const {
  std::vector<std::string> out;
  collect_names(*root_, out);
  return out;
}

}  // namespace gammalab
