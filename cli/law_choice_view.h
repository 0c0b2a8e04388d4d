#pragma once
// `gammalab fit --law A --law B ...`: the forms compared (core/scaling/law_choice.h) as a table, then which form
// predicts best and by how much.
#include <string>

#include "core/scaling/law_choice.h"

namespace gammalab::cli {

// Prose wrapped at `columns` (0: not wrapped).
std::string law_choice_text(const LawChoice& choice, std::size_t columns);

}  // namespace gammalab::cli
