#pragma once
// The nesting of a YAML text, checked before the document is built. yaml-cpp's parser (and every reader of its
// node tree) recurses once per level, so a hostile file nested a million levels deep would exhaust the stack;
// this walks the parse events instead and stops at the first node deeper than the limit, never going deeper
// than the limit plus one.
#include <optional>
#include <string>

#include <yaml-cpp/mark.h>

namespace gammalab {

// The place of the first node nested deeper than max_depth (0-based line and column, as yaml-cpp's), or
// nullopt. Syntax errors are left to the caller's YAML::Load (YAML::Exception).
std::optional<YAML::Mark> yaml_too_deep(const std::string& text, int max_depth);

}  // namespace gammalab
