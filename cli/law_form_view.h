#pragma once
// `gammalab fit --law-file FILE`: the fitted parameters of a law written as a file, per group, with their
// intervals and flags, then the predictions of --predict.
#include <cstddef>
#include <string>

#include "core/scaling/law_form_fit.h"

namespace gammalab::cli {

std::string law_form_text(const LawFormReport& report, std::size_t columns);

}  // namespace gammalab::cli
