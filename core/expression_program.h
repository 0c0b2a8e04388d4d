#pragma once
// An expression (core/expression.h) compiled to a flat postfix program over numbered slots, so that it can be
// evaluated many times without names and with any scalar type: a double, or a ceres::Jet, whose derivatives
// then come out exact (automatic differentiation through the expression, as a scaling-law fit needs).
// The program is evaluated on an explicit stack, so its depth is the compiled expression's (bounded by
// core/limits.h) and no recursion is involved.
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <vector>

namespace gammalab {

struct ExpressionOp {
  enum class Code {
    kConstant,  // push value
    kSlot,      // push slots[slot]
    kNegate,
    kAdd,
    kSubtract,
    kMultiply,
    kDivide,
    kPower,  // a ^ b and pow(a, b)
    kExp,
    kLog,
    kSqrt,
    kTanh,
    kAbs,
    kFloor,
    kCeil,
    kRound,
    kMin,  // of the top `arity` values
    kMax,
  } code = Code::kConstant;
  double value = 0.0;
  int slot = 0;
  int arity = 0;
};

struct ExpressionProgram {
  std::vector<ExpressionOp> ops;
  std::size_t max_stack = 0;  // the deepest the stack gets
};

// One entry of the evaluation stack: a plain number, or a value of T (a ceres::Jet carrying derivatives). An
// entry stays plain until it meets one of T, so the arithmetic of a fit's data (its variables and constants)
// costs no derivative work: params^alpha is pow(double, Jet), not pow(Jet, Jet).
template <typename T>
struct ExpressionValue {
  bool plain = true;
  double number = 0.0;
  T value{};
};
template <typename T>
using ExpressionStack = std::vector<ExpressionValue<T>>;

// Evaluates with slots [0, first_plain) of type T (`values`) and slots [first_plain, ...) plain numbers
// (`numbers[slot - first_plain]`). Non-finite results (a division by zero, the log of a negative number) come out
// as they are, as inf or NaN: the caller checks the value (a fit treats it as a step outside the law's domain).
// `stack` is scratch space, reused between calls to save allocations.
template <typename T>
T evaluate_program(const ExpressionProgram& program, const T* values, int first_plain, const double* numbers,
                   ExpressionStack<T>& stack) {
  using Code = ExpressionOp::Code;
  stack.clear();
  stack.reserve(program.max_stack);
  // f on the top entry, or on the top two (popping one), with whichever types they hold.
  auto unary = [&](auto f) {
    auto& a = stack.back();
    if (a.plain) a.number = f(a.number); else a.value = f(a.value);
  };
  auto binary = [&](auto f) {
    const ExpressionValue<T> b = stack.back();
    stack.pop_back();
    auto& a = stack.back();
    if (a.plain && b.plain) {
      a.number = f(a.number, b.number);
    } else if (a.plain) {
      a.value = f(a.number, b.value);
      a.plain = false;
    } else if (b.plain) {
      a.value = f(a.value, b.number);
    } else {
      a.value = f(a.value, b.value);
    }
  };
  auto less = [](const ExpressionValue<T>& a, const ExpressionValue<T>& b) {
    return (a.plain ? T(a.number) : a.value) < (b.plain ? T(b.number) : b.value);
  };
  for (const ExpressionOp& op : program.ops) {
    switch (op.code) {
      case Code::kConstant: stack.push_back({true, op.value, T{}}); break;
      case Code::kSlot:
        if (op.slot < first_plain) {
          stack.push_back({false, 0.0, values[op.slot]});
        } else {
          stack.push_back({true, numbers[op.slot - first_plain], T{}});
        }
        break;
      case Code::kMin:
      case Code::kMax: {
        const std::size_t first = stack.size() - static_cast<std::size_t>(op.arity);
        ExpressionValue<T> best = stack[first];
        for (std::size_t i = first + 1; i < stack.size(); ++i) {
          if (op.code == Code::kMin ? less(stack[i], best) : less(best, stack[i])) best = stack[i];
        }
        stack.resize(first);
        stack.push_back(best);
        break;
      }
      case Code::kAdd: binary([](auto x, auto y) { return x + y; }); break;
      case Code::kSubtract: binary([](auto x, auto y) { return x - y; }); break;
      case Code::kMultiply: binary([](auto x, auto y) { return x * y; }); break;
      case Code::kDivide: binary([](auto x, auto y) { return x / y; }); break;
      case Code::kPower: binary([](auto x, auto y) { using std::pow; return pow(x, y); }); break;
      case Code::kNegate: unary([](auto x) { return -x; }); break;
      case Code::kExp: unary([](auto x) { using std::exp; return exp(x); }); break;
      case Code::kLog: unary([](auto x) { using std::log; return log(x); }); break;
      case Code::kSqrt: unary([](auto x) { using std::sqrt; return sqrt(x); }); break;
      case Code::kTanh: unary([](auto x) { using std::tanh; return tanh(x); }); break;
      case Code::kAbs: unary([](auto x) { using std::abs; return abs(x); }); break;
      case Code::kFloor: unary([](auto x) { using std::floor; return floor(x); }); break;
      case Code::kCeil: unary([](auto x) { using std::ceil; return ceil(x); }); break;
      // Half away from zero, as std::round, written with floor so that every T that has floor has it.
      case Code::kRound:
        unary([](auto x) {
          using std::floor;
          using X = decltype(x);
          return x < X(0.0) ? X(-floor(-x + X(0.5))) : X(floor(x + X(0.5)));
        });
        break;
    }
  }
  const auto& top = stack.back();
  return top.plain ? T(top.number) : top.value;
}

// Every slot of type T.
template <typename T>
T evaluate_program(const ExpressionProgram& program, const T* values, ExpressionStack<T>& stack) {
  return evaluate_program(program, values, std::numeric_limits<int>::max(), static_cast<const double*>(nullptr),
                          stack);
}

}  // namespace gammalab
