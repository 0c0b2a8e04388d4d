#!/usr/bin/env bash
# `make study`: the full CPU reproduction (docs/results.md). Starts a coordinator and two workers and runs
#   (a) configs/sweeps/study-ablation.yaml: every named variant and the QK-norm control at one size, LR tuned per
#       variant, 3 paired seeds;
#   (b) configs/sweeps/study-ladder.yaml: unified, baseline and the controls qknorm and dnp_novec on 5 widths, LR
#       tuned per arm on 2 seeds of its own (widened, refined, one rule across sizes), 3 paired seeds;
# waits for the coordinator's stored fits, writes a `gammalab report` of each sweep, measures the power of the
# ladder's own design at the noise its runs show (`gammalab plan --noise-from`), takes the figures from those
# reports with headless Chromium (docs/img/results/) and rewrites the study part of docs/results.md from the
# reports' data (web/tools/study-results.js).
# The database is kept in BUILD/study: running it again reuses every finished job (by config hash) and only
# redoes the reports and the page. STUDY_FRESH=1 starts from an empty database.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bin="$build"
study="$build/study"
started=$(date +%s)
source scripts/lib/cluster.sh

cluster_prepare_corpus
[ "${STUDY_FRESH:-0}" = 1 ] && rm -rf "$study"
cluster_start "$study" 2
cli="$bin/cli/gammalab"

ablation=$(cluster_submit configs/sweeps/study-ablation.yaml)
ladder=$(cluster_submit configs/sweeps/study-ladder.yaml)
echo "== submitted sweeps $ablation (ablation) and $ladder (ladder); following them"
status=0
"$cli" watch "$ablation" || status=$?
"$cli" watch "$ladder" || status=$?
ran=$(( $(date +%s) - started ))
echo "== both sweeps finished after $((ran / 60)) min $((ran % 60)) s"
"$cli" tune "$ablation" || status=$?
"$cli" tune "$ladder" || status=$?

cluster_wait_for_fit "$ladder"
out="$study/reports"
rm -rf "$out"
mkdir -p "$out"
"$cli" fit "$ladder" --detail | tee "$out/ladder-fit.txt" || status=$?
"$cli" report "$ablation" --out "$out/ablation"
"$cli" report "$ladder" --out "$out/ladder"
# The power of the ladder's design at the noise, seed correlation and slope its own runs measured.
node web/tools/report-points.js "$out/ladder/index.html" > "$out/ladder-points.csv"
"$cli" plan configs/sweeps/study-ladder.yaml --noise-from "$out/ladder-points.csv" | tee "$out/ladder-plan.txt" | tail -4
node web/tools/report-figures.js "$out/ablation/index.html" docs/img/results/ablation
node web/tools/report-figures.js "$out/ladder/index.html" docs/img/results/ladder
node web/tools/study-results.js --ablation "$out/ablation/index.html" --ladder "$out/ladder/index.html" \
  --fit "$out/ladder-fit.txt" --power "$out/ladder-plan.txt" --figures docs/img/results --minutes "$((ran / 60))" --page docs/results.md
echo "== done: docs/results.md and docs/img/results/ written from this run; the reports are in $out"
exit $status
