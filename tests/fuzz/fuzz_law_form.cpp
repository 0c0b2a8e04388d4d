// Fuzz target: law files (core/scaling/law_form.h), the YAML a user writes for `gammalab fit --law-file`.
// Parsing either gives a law or throws ConfigError, never anything else; a law that parses is evaluated at its
// first start over ones, which gives a number or NaN (the loss outside its domain) and never crashes. Size,
// nesting, expression and grid are bounded before any work they would cost.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "core/scaling/law_form.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const gammalab::LawForm form = gammalab::parse_law_form(text, "fuzz.yaml");
    if (form.parameters.empty() || form.variables.empty()) std::abort();  // both are required
    std::vector<double> first;
    for (const auto& p : form.parameters) {
      if (p.starts.empty()) std::abort();
      first.push_back(p.starts.front());
    }
    (void)gammalab::law_form_loss(form, first, std::vector<double>(form.variables.size(), 1.0));
  } catch (const gammalab::ConfigError&) {
  }
  return 0;
}
