#pragma once
// "Did you mean ...?" suggestions for misspelt keys and names, by edit distance (with transpositions).
#include <cstddef>
#include <string>
#include <vector>

namespace gammalab {

std::size_t edit_distance(const std::string& a, const std::string& b);

// The closest candidate if it is close enough to be a plausible typo (distance <= max(1, |word|/3)), else "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" when nothing is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace gammalab
