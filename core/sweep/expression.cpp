// The expression language of numeric sweep fields: a recursive-descent parser whose recursion is counted
// and bounded, and a tree evaluator. Text length, nesting depth and tree size are all limited (core/limits.h),
// so hostile text fails with a message instead of exhausting the stack.
#include "core/sweep/expression.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/decimal_text.h"
#include "core/limits.h"

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
    if (text_.size() > limits::kMaxExpressionLength) {
      throw ExpressionError(0, "the expression is " + std::to_string(text_.size()) +
                                   " characters long, more than the limit of " +
                                   std::to_string(limits::kMaxExpressionLength));
    }
    NodePtr node = expression();
    skip_space();
    if (pos_ < text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return node;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw ExpressionError(pos_, message); }

  // One level of recursion (a parenthesis, a call or a unary sign) while it lives.
  class Level {
   public:
    explicit Level(Parser& parser) : parser_(parser) {
      if (++parser_.depth_ > limits::kMaxExpressionDepth) {
        parser_.fail("nested more than " + std::to_string(limits::kMaxExpressionDepth) +
                     " levels deep (the limit; parentheses, function calls and unary signs each count)");
      }
    }
    ~Level() { --parser_.depth_; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;

   private:
    Parser& parser_;
  };

  // Every node goes through here, so the tree (and the evaluator's recursion over it) stays small.
  NodePtr make(Node node) {
    if (++nodes_ > limits::kMaxExpressionNodes) {
      throw ExpressionError(node.offset, "more than " + std::to_string(limits::kMaxExpressionNodes) +
                                             " numbers, names and operators (the limit)");
    }
    return std::make_shared<const Node>(std::move(node));
  }

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
    if (accept('-')) {
      const Level level(*this);
      return make({Node::Kind::kUnaryMinus, at, 0, "", '-', {unary()}});
    }
    if (accept('+')) {
      const Level level(*this);
      return unary();
    }
    return primary();
  }

  NodePtr primary() {
    skip_space();
    const std::size_t at = pos_;
    if (pos_ >= text_.size()) fail(text_.empty() ? "empty expression" : "expression ends too early");
    if (accept('(')) {
      const Level level(*this);
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
    const std::string_view rest = std::string_view(text_).substr(pos_);
    const DecimalScan scan = scan_decimal(rest, false);
    if (scan.length == 0) fail("bad number");
    const double value = decimal_value(rest.substr(0, scan.length));
    if (!std::isfinite(value)) {
      fail("the number " + std::string(rest.substr(0, std::min<std::size_t>(scan.length, 40))) +
           (scan.length > 40 ? "..." : "") + " is too large for a double (limit about 1.8e308)");
    }
    pos_ += scan.length;
    if (pos_ < text_.size() && is_name_start(text_[pos_])) fail("bad number");
    return make({Node::Kind::kNumber, at, value, "", 0, {}});
  }

  NodePtr call(std::string name, std::size_t at) {
    const auto* info = std::find_if(std::begin(kFunctions), std::end(kFunctions),
                                    [&](const FunctionInfo& f) { return name == f.name; });
    if (info == std::end(kFunctions)) {
      throw ExpressionError(at, "unknown function '" + name + "' (known: floor, ceil, round, min, max)");
    }
    const Level level(*this);
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
  int depth_ = 0;
  std::size_t nodes_ = 0;
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
