#pragma once
// A sweep file as written: the base job's fields, the axes and the seeds, each value with its place in the
// file. Parsing checks the structure (known keys, types, expression syntax, axis shapes) and reports every
// problem to a DiagnosticList; resolving values into jobs is job_resolver.h's work.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/sweep/diagnostics.h"

namespace gammalab {

// One value from the file: a literal (typed like the field), or for a numeric field a string holding an
// expression such as "100 * params".
struct SweepValue {
  nlohmann::json value;
  SourceRef source;
  int text_column = 0;     // column of the first character of the text (after an opening quote)
  std::string text;        // as written, for job names
  bool expression = false; // a numeric field given as text: `value` holds the expression
};

struct SweepAxis {
  std::string key;                 // config dot path, e.g. scale.variant
  SourceRef source;                // the key in the file
  std::vector<SweepValue> values;
};

// One dimension of the cross product: a single grid axis, or all zip axes moving together.
struct SweepDimension {
  std::vector<SweepAxis> axes;
  std::size_t size() const { return axes.empty() ? 0 : axes.front().values.size(); }
};

// `tune:` (docs/sweeps.md): a first stage that runs a grid of values of some fields in a reduced setting and
// picks the best value per group for the main stage.
struct SweepTune {
  SourceRef source;                                // the `tune` key
  std::vector<SweepAxis> grid;                     // the tuned fields and the values tried
  std::vector<SweepAxis> axes;                     // main grid axes with the values the tune runs use instead
  std::map<std::string, SweepValue> base;          // base fields the tune runs override (e.g. steps)
  std::optional<std::vector<std::uint64_t>> seeds; // the tune runs' seeds; default: the main seeds
  std::vector<std::string> per;                    // fields the best value is picked per; empty: every main axis
  std::map<std::string, SweepValue> carry;         // tuned field -> expression carrying the pick to a main job
  SourceRef per_source;
  bool allow_edge = false;                         // accept a best value at the edge of its grid
  int extend = 0;      // values the coordinator may add beyond each edge of a numeric field's grid (tune_rounds.h)
  bool refine = false; // once the pick is inside the grid, try the geometric midpoints to its neighbours
  bool size_rule = false;  // one rule across sizes, log value = a + b log N (core/sweep/tune_rule.h)
  SourceRef size_rule_source;
};
inline constexpr int kMaxTuneExtensions = 4;

// `branches:` (docs/branches.md): a cooldown branch of every WSD run of the main stage at each budget, given in
// one unit; each branch starts from its run's checkpoint at (its budget - its decay) and decays to 0 by the
// budget.
struct SweepBranches {
  enum class Unit { Tokens, TokensPerParam, Fraction };
  SourceRef source;        // the `branches` key
  Unit unit = Unit::Fraction;
  std::string unit_key;    // as written: tokens | tokens_per_param | fraction
  std::vector<double> at;  // the budgets, increasing
  SourceRef at_source;
  double decay = 0.2;      // a branch's decay as a fraction of its steps (Hägele et al. 2024: 10-20%)
  SourceRef decay_source;
};

// `more_seeds:` (docs/sweeps.md): seeds beyond the sweep's own for the jobs whose axis values match `where`, so
// that a study can grow where more seeds are worth their cost (`gammalab fit --next` names such a move) and be
// resubmitted, its finished jobs reused.
struct SweepMoreSeeds {
  SourceRef source;                                  // the entry
  std::vector<std::pair<std::string, SweepValue>> where;  // axis key -> one of that axis's values, as written
  std::vector<std::uint64_t> seeds;
};

struct SweepDocument {
  std::string name;
  std::string description;
  int priority = 0;
  int max_attempts = 3;
  std::vector<std::uint64_t> seeds = {0};
  std::map<std::string, SweepValue> base;  // config dot path -> value
  std::vector<SweepDimension> dimensions;  // in file order; the last one varies fastest
  SourceRef document_source;               // the document's first node
  SourceRef base_source;                   // the `base` key (or the document when absent)
  SourceRef axes_source;                   // the `axes` key (or the document when absent)
  bool axes_complete = true;               // false when a bad axis was left out (job counts are then off)
  std::optional<SweepTune> tune;
  std::optional<SweepBranches> branches;
  std::vector<SweepMoreSeeds> more_seeds;  // the main stage's only
  // `command:` (docs/own-program.md): a program of the user's own that every job runs instead of gammalab-train,
  // its arguments with `{field}` placeholders (core/job_command.h), checked against each job's config.
  std::optional<std::vector<std::string>> command;
  SourceRef command_source;                 // the `command` key
  std::vector<SourceRef> command_arg_sources;  // each argument
};

// Never throws for content problems: they go to `diagnostics` (YAML syntax errors included).
SweepDocument parse_sweep_document(const std::string& yaml_text, DiagnosticList& diagnostics);

}  // namespace gammalab
