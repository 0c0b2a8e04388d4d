#!/usr/bin/env bash
# `make arms`: the 2026 rival arms on CPU (configs/sweeps/arms-2026.yaml; docs/variants.md, "The 2026 arms"):
# every arm beside the baseline, the QK-norm control and unified at tiny-2x32, LR tuned per arm, 3 paired
# seeds. Starts a coordinator and two workers, follows the sweep, writes its `gammalab report` and rewrites the
# arms part of docs/results.md from it (web/tools/arms-results.js). The database is kept in BUILD/arms:
# running it again reuses every finished job by config hash. ARMS_FRESH=1 starts from an empty database.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bin="$build"
arms="$build/arms"
started=$(date +%s)
source scripts/lib/cluster.sh

cluster_prepare_corpus
[ "${ARMS_FRESH:-0}" = 1 ] && rm -rf "$arms"
cluster_start "$arms" 2
cli="$bin/cli/gammalab"

sweep=$(cluster_submit configs/sweeps/arms-2026.yaml)
echo "== submitted sweep $sweep (arms-2026); following it"
status=0
"$cli" watch "$sweep" || status=$?
ran=$(( $(date +%s) - started ))
echo "== the sweep finished after $((ran / 60)) min $((ran % 60)) s"
"$cli" tune "$sweep" || status=$?
out="$arms/reports"
rm -rf "$out"
mkdir -p "$out"
"$cli" report "$sweep" --out "$out/arms"
node web/tools/arms-results.js --report "$out/arms/index.html" --minutes "$((ran / 60))" --page docs/results.md
echo "== done: the arms part of docs/results.md written from this run; the report is in $out"
exit $status
