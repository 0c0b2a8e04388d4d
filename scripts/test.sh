#!/usr/bin/env bash
# Runs every test: the C++ suites through ctest, then the dashboard's browser tests (when web/ has them).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
ctest --test-dir "$build" --output-on-failure -j 2 --timeout 900
if [ -f web/package.json ] && grep -q '"test"' web/package.json; then
  (cd web && GAMMALAB_BUILD="../$build" npm test)
fi
