#pragma once
// The keys a sweep may set on a job: every field of JobConfig (by dot path, derived from the config's own
// field lists so it can never drift from the struct) plus the sweep-only token budget `tokens`. An optional
// field (optim.muon_lr) that a job does not set stays absent from its config.
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gammalab {

enum class FieldKind { kBool, kInteger, kNumber, kString, kObject };

class SweepSchema {
 public:
  static const SweepSchema& instance();

  // nullptr for an unknown path.
  const FieldKind* find(const std::string& path) const;
  // Keys directly under an object path ("" = the top level), in declaration order.
  std::vector<std::string> children(const std::string& object_path) const;
  // Every leaf (non-object) path.
  const std::vector<std::string>& leaves() const { return leaves_; }
  // Whether the leaf is optional: a job that does not set it leaves it unset (absent), with no default value.
  bool is_optional(const std::string& path) const { return optional_.contains(path); }

  // Names usable in expressions: the dot path of each numeric leaf, and its last component where that is
  // unique (lr, seq_len, top_k). Returns "" for an unknown name.
  std::string path_of_name(const std::string& name) const;
  std::vector<std::string> expression_names() const;
  // The short name of a leaf path for job names (its last component where unique, else the path).
  std::string short_name(const std::string& path) const;

 private:
  SweepSchema();
  std::map<std::string, FieldKind> kinds_;
  std::map<std::string, std::vector<std::string>> children_;
  std::vector<std::string> leaves_;
  std::set<std::string> optional_;
  std::map<std::string, std::string> name_to_path_;
};

bool is_numeric(FieldKind kind);
const char* kind_description(FieldKind kind);  // "an integer", "a number", ...

}  // namespace gammalab
