// Fuzz target: the arithmetic of derived sweep fields (core/expression.h). Parsing either succeeds or
// throws ExpressionError at an offset inside the text; evaluation, with every name bound, either gives a
// double or throws ExpressionError. Depth, length and node count are bounded (core/limits.h), so no input
// overflows the stack or runs long.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/expression.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const gammalab::Expression e = gammalab::Expression::parse(text);
    for (const std::string& name : e.names()) {
      if (name.empty()) std::abort();  // a name is at least one character of the text
    }
    (void)e.evaluate([](const std::string& name, std::size_t) { return static_cast<double>(name.size()); });
  } catch (const gammalab::ExpressionError& err) {
    if (err.offset() > text.size()) std::abort();  // the offset points into the text (or just past its end)
  }
  return 0;
}
