#!/usr/bin/env bash
# check-references: off (the scratch trees below name paths that do not exist on purpose)
# scripts/check_references.py on a scratch repository: it must name a stale path in a C++ comment, a stale
# Markdown link and a stale path in a doc, leave a path inside a string of code alone, and pass once the named
# files exist (a check that passed whatever the tree would pass here only once).
set -euo pipefail
check="$1/scripts/check_references.py"
repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT
cd "$repo"
git init -q .
mkdir -p core docs
printf '#pragma once\n// Reads the layout of core/layout.h.\nconst char* kPath = "core/not_a_reference.h";\n' > core/a.h
printf '# Doc\n\nSee [the laws](laws.md) and `core/b.cpp`.\n' > docs/guide.md
git add -A
if out=$(python3 "$check" "$repo" 2>&1); then
  echo "FAIL: the check passed a tree with stale references:"; echo "$out"; exit 1
fi
for want in "core/a.h:2: core/layout.h" "docs/guide.md:3: link laws.md" "docs/guide.md:3: core/b.cpp"; do
  grep -qF "$want" <<<"$out" || { echo "FAIL: expected '$want' in:"; echo "$out"; exit 1; }
done
if grep -q "not_a_reference" <<<"$out"; then echo "FAIL: a string in code was taken for a reference:"; echo "$out"; exit 1; fi
touch core/layout.h core/b.cpp docs/laws.md
git add -A
python3 "$check" "$repo"
echo "ok: stale references named, and none once the files exist"
