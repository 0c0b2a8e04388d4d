#pragma once
// The dashboard's ES modules as one inline script, for a page opened from a file: Chromium loads no module
// file from a file:// URL (each would be a cross-origin request), but an inline <script type="module"> runs.
// This is deliberately not a general bundler. It reads only modules of one folder written to a narrow style,
// which web/'s own modules follow, and refuses anything else with the file and line:
//   - imports are `import { a, b } from './name.js';` (one or several lines, no `as`, no default or namespace
//     import), of a file beside the importer;
//   - exports are `export` before a top-level function, async function, class, const or let declaration.
// Each module is included once, after the modules it imports, with its import lines removed and `export `
// dropped. All of them then share one module scope: an imported name is the exported binding itself (so a
// reassigned `export let` reads the same as with real modules); a top-level name declared by two modules
// (a line that starts a function, class, const or let declaration) is refused when bundling, naming both.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace gammalab::cli {

struct ModuleBundle {
  std::string code;                   // the modules' code, each headed by a comment naming it
  std::vector<std::string> modules;   // the file names, in the order they were included
};

// The most modules a bundle reads, and the most bytes one of them may have: web/'s are a few and under 64 KiB.
inline constexpr std::size_t kMaxBundleModules = 32;
inline constexpr std::size_t kMaxModuleBytes = 1 << 20;

// The module `entry` (a file name in `dir`) and every module it imports, directly or not. Throws
// std::invalid_argument naming the file and line of an import or export outside the style above, a top-level
// name declared by two modules, an import cycle, a missing file, or text that cannot go inside a <script>
// element ("</script", "<!--").
ModuleBundle bundle_modules(const std::filesystem::path& dir, const std::string& entry);

}  // namespace gammalab::cli
