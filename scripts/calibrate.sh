#!/usr/bin/env bash
# The calibration table of docs/scaling-laws.md: every scenario of tests/core/scaling_calibration_test.cpp (and
# the adaptive stage's, tests/core/adaptive_calibration_test.cpp) with
# GAMMALAB_CALIBRATION_DRAWS simulated studies (default 1,000), each analysed by the real fit path. Prints the
# markdown table; exits non-zero when a scenario misses its bounds.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
draws="${GAMMALAB_CALIBRATION_DRAWS:-1000}"
echo "| scenario | truth | studies | with an interval | coverage of the truth | intervals excluding 1× |"
echo "|---|---|---|---|---|---|"
status=0
GAMMALAB_CALIBRATION_DRAWS="$draws" "$build/tests/core_tests" --gtest_filter='ScalingCalibration.*:AdaptiveCalibration.*' >"${TMPDIR:-/tmp}/calibration.$$" 2>&1 || status=$?
grep '^|' "${TMPDIR:-/tmp}/calibration.$$" || true
grep -E '^\[  (FAILED|PASSED) ' "${TMPDIR:-/tmp}/calibration.$$" || true
rm -f "${TMPDIR:-/tmp}/calibration.$$"
exit "$status"
