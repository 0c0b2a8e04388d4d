#pragma once
// The custom-code model's Python files (configuration_gammalab.py, modeling_gammalab.py beside this header),
// compiled into the trainer so that an export needs nothing from the source tree or the install.
#include <string_view>

namespace gammalab::trainer::hf_model {

extern const std::string_view kConfigurationPy;
extern const std::string_view kModelingPy;

}  // namespace gammalab::trainer::hf_model
