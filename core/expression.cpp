// The expression language of numeric sweep fields and law forms: a recursive-descent parser whose recursion is counted
// and bounded, and a tree evaluator. Text length, nesting depth and tree size are all limited (core/limits.h),
// so hostile text fails with a message instead of exhausting the stack.
#include "core/expression.h"

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
  char op = 0;                      // kBinary: + - * / ^
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
constexpr FunctionInfo kFunctions[] = {{"floor", 1, 1}, {"ceil", 1, 1}, {"round", 1, 1}, {"exp", 1, 1},
                                       {"log", 1, 1},   {"sqrt", 1, 1}, {"tanh", 1, 1},  {"abs", 1, 1},
                                       {"pow", 2, 2},   {"min", 2, 64}, {"max", 2, 64}};
constexpr const char* kFunctionList = "floor, ceil, round, exp, log, sqrt, tanh, abs, pow, min, max";

// Recursive descent over: expr = term {(+|-) term}; term = unary {(*|/) unary}; unary = [-|+] unary | power;
// power = primary [^ unary] (right-associative, tighter than a sign: -x^2 = -(x^2), x^-1 = 1/x).
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
    return power();
  }

  NodePtr power() {
    NodePtr base = primary();
    skip_space();
    const std::size_t at = pos_;
    if (!accept('^')) return base;
    const Level level(*this);
    return make({Node::Kind::kBinary, at, 0, "", '^', {base, unary()}});
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
      throw ExpressionError(at, "unknown function '" + name + "' (known: " + kFunctionList + ")");
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

// A function's value, or an error at its node when it is not a finite number (log(0), sqrt(-1), 10^400).
double checked(double value, const Node& node, const char* what) {
  if (!std::isfinite(value)) {
    throw ExpressionError(node.offset, std::string(what) + " is not a finite number here (" +
                                           (std::isnan(value) ? "outside its domain" : "too large for a double") +
                                           ")");
  }
  return value;
}

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
        case '^': return checked(std::pow(a, b), node, "the power");
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
      if (node.name == "exp") return checked(std::exp(args[0]), node, "exp()");
      if (node.name == "log") return checked(std::log(args[0]), node, "log()");
      if (node.name == "sqrt") return checked(std::sqrt(args[0]), node, "sqrt()");
      if (node.name == "tanh") return std::tanh(args[0]);
      if (node.name == "abs") return std::abs(args[0]);
      if (node.name == "pow") return checked(std::pow(args[0], args[1]), node, "pow()");
      if (node.name == "min") return *std::min_element(args.begin(), args.end());
      return *std::max_element(args.begin(), args.end());
    }
  }
  return 0;
}

void collect(const Node& node, Node::Kind kind, std::vector<std::string>& out) {
  if (node.kind == kind && std::find(out.begin(), out.end(), node.name) == out.end()) out.push_back(node.name);
  for (const auto& child : node.children) collect(*child, kind, out);
}

ExpressionOp::Code call_code(const std::string& name) {
  using Code = ExpressionOp::Code;
  static const std::pair<const char*, Code> kCodes[] = {
      {"floor", Code::kFloor}, {"ceil", Code::kCeil}, {"round", Code::kRound}, {"exp", Code::kExp},
      {"log", Code::kLog},     {"sqrt", Code::kSqrt}, {"tanh", Code::kTanh},   {"abs", Code::kAbs},
      {"pow", Code::kPower},   {"min", Code::kMin},   {"max", Code::kMax}};
  for (const auto& [known, code] : kCodes) {
    if (name == known) return code;
  }
  return Code::kMax;  // the parser admits only the functions above
}

// Post-order: children first, then the node's operation; tracks the stack's depth as it goes.
void emit(const Node& node, const Expression::SlotOf& slot_of, ExpressionProgram& program, std::size_t& depth) {
  using Code = ExpressionOp::Code;
  auto push = [&](ExpressionOp op, std::size_t popped) {
    program.ops.push_back(op);
    depth = depth - popped + 1;
    program.max_stack = std::max(program.max_stack, depth);
  };
  for (const auto& child : node.children) emit(*child, slot_of, program, depth);
  const std::size_t args = node.children.size();
  switch (node.kind) {
    case Node::Kind::kNumber:
      push({Code::kConstant, node.number, 0, 0}, 0);
      return;
    case Node::Kind::kName: {
      const int slot = slot_of(node.name);
      if (slot < 0) throw ExpressionError(node.offset, "unknown name '" + node.name + "'");
      push({Code::kSlot, 0, slot, 0}, 0);
      return;
    }
    case Node::Kind::kUnaryMinus:
      push({Code::kNegate, 0, 0, 1}, 1);
      return;
    case Node::Kind::kBinary: {
      const Code code = node.op == '+'   ? Code::kAdd
                        : node.op == '-' ? Code::kSubtract
                        : node.op == '*' ? Code::kMultiply
                        : node.op == '/' ? Code::kDivide
                                         : Code::kPower;
      push({code, 0, 0, 2}, 2);
      return;
    }
    case Node::Kind::kCall:
      push({call_code(node.name), 0, 0, static_cast<int>(args)}, args);
      return;
  }
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
  collect(*root_, Node::Kind::kName, out);
  return out;
}

std::vector<std::string> Expression::functions() const {
  std::vector<std::string> out;
  collect(*root_, Node::Kind::kCall, out);
  return out;
}

ExpressionProgram Expression::compile(const SlotOf& slot_of) const {
  ExpressionProgram program;
  std::size_t depth = 0;
  emit(*root_, slot_of, program, depth);
  return program;
}

}  // namespace gammalab
