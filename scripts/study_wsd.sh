#!/usr/bin/env bash
# `make study-wsd`: configs/sweeps/wsd-ladder.yaml on this machine's CPUs (docs/branches.md). Starts a
# coordinator and two workers, runs the WSD runs and their cooldown branches, and writes to BUILD/study-wsd:
#   plan.txt    what the sweep cost against the same (N, D) grid trained as independent runs (gammalab plan);
#   tune.txt    the tune stage's loss per LR, group and pick (gammalab tune);
#   fit.txt     the coordinator's fit over every run's and branch's final loss (gammalab fit), whose law is
#               chinchilla L(N, D) by default once D varies at each size;
#   report/     the sweep's offline report (gammalab report).
# The database is kept: running it again reuses every finished job (by config hash). STUDY_FRESH=1 starts over.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bin="$build"
study="$build/study-wsd"
started=$(date +%s)
source scripts/lib/cluster.sh

cluster_prepare_corpus
[ "${STUDY_FRESH:-0}" = 1 ] && rm -rf "$study"
cluster_start "$study" 2
cli="$bin/cli/gammalab"
sweep_file=configs/sweeps/wsd-ladder.yaml

sweep=$(cluster_submit "$sweep_file")
echo "== submitted sweep $sweep ($sweep_file); following it"
status=0
"$cli" watch "$sweep" || status=$?
ran=$(( $(date +%s) - started ))
echo "== the sweep finished after $((ran / 60)) min $((ran % 60)) s"

cluster_wait_for_fit "$sweep"
rm -rf "$study/report"
"$cli" plan "$sweep_file" --no-power > "$study/plan.txt"
"$cli" tune "$sweep" > "$study/tune.txt" || status=$?
"$cli" fit "$sweep" --detail | tee "$study/fit.txt" || status=$?
"$cli" report "$sweep" --out "$study/report" || status=$?
tail -n 4 "$study/plan.txt"
echo "== done in $((ran / 60)) min $((ran % 60)) s of training: $study/plan.txt, tune.txt, fit.txt and report/"
exit "$status"
