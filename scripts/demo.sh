#!/usr/bin/env bash
# `make demo`: a real scale-vector study on this machine's CPU. Starts a coordinator and two workers,
# runs configs/sweeps/demo-cpu.yaml (30 tiny Llamas on the Brown corpus: 5 sizes x 3 variants x 2 seeds, at a
# tuned LR), fits the scaling law, prints the multipliers and a verdict, stops.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bin="$build"
demo="$build/demo"
source scripts/lib/cluster.sh

# 1. Data: the Brown corpus as byte-level token shards, made once.
cluster_prepare_corpus

# 2. A fresh coordinator (its own database, so every job really runs) and two workers.
rm -rf "$demo"
cluster_start "$demo" 2

# 3. The study: plan, submit, follow it live, then the jobs table.
"$bin/cli/gammalab" plan configs/sweeps/demo-cpu.yaml
sweep=$(cluster_submit configs/sweeps/demo-cpu.yaml)
echo "== submitted sweep $sweep; following it (gammalab watch $sweep)"
status=0
"$bin/cli/gammalab" watch "$sweep" || status=$?
echo
echo "== the tune stage: each variant's LR (gammalab tune $sweep)"
"$bin/cli/gammalab" tune "$sweep" || status=$?
"$bin/cli/gammalab" jobs "$sweep"

# 4. The scaling law L(C) per variant on the compute frontier, with bootstrap intervals over the seeds of each
#    size, and the compute multiplier of each variant over baseline; the output ends with the verdict.
echo
echo "== scaling-law fit (gammalab fit $sweep --law c --bootstrap 1000)"
"$bin/cli/gammalab" fit "$sweep" --law c --bootstrap 1000 || status=$?
echo "  (the paper reports 1.22-1.25x less compute for unified at 0.12B-1B, with 100 tokens per parameter;"
echo "   these are models of 20k-0.2M parameters on 5 bytes per parameter: see docs/results.md)"

echo "== done. The coordinator's own fit (laws n and c): gammalab fit SWEEP against a running server."
echo "   To browse the results in the dashboard: make dashboard, then open the address it prints and give it"
echo "   the user token in $demo/user.token."
exit $status
