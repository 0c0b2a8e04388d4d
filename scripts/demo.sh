#!/usr/bin/env bash
# `make demo`: a real scale-vector study on this machine's CPU. Starts a coordinator and two workers,
# runs configs/sweeps/demo-cpu.yaml (24 tiny Llamas on the Brown corpus: 3 widths x unified, baseline and the
# controls none and qknorm x 2 paired seeds, each at the LR its tune stage picked for its size and variant), and
# prints the paired gaps, the local and law-based multipliers and a verdict against the baseline and each control.
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

# 3. The study: plan, submit, follow it live (watch ends with the jobs table).
"$bin/cli/gammalab" plan configs/sweeps/demo-cpu.yaml
sweep=$(cluster_submit configs/sweeps/demo-cpu.yaml)
echo "== submitted sweep $sweep; following it (gammalab watch $sweep)"
status=0
"$bin/cli/gammalab" watch "$sweep" || status=$?
echo
echo "== the tune stage: the LR of each variant at each size (gammalab tune $sweep)"
"$bin/cli/gammalab" tune "$sweep" || status=$?

# 4. The verdict first (against the baseline and each control, from the local multiplier, with the law-based
#    figure and its limits in words), then how it was reached: per size the paired gap of each arm to the
#    baseline and to the qknorm control, the local multiplier, and the law L(C) per variant with the paired
#    bootstrap over seeds.
fit="$demo/fit.txt"
"$bin/cli/gammalab" fit "$sweep" --law c --bootstrap 1000 --detail >"$fit" || status=$?
echo
echo "== the verdict (gammalab fit $sweep --law c --bootstrap 1000 --detail)"
sed -n '/^verdict:$/,/^$/p' "$fit" | sed '1d'
echo "  (the paper reports 1.22-1.25x less compute for unified at 0.12B-1B, with 100 tokens per parameter;"
echo "   these are models of 14k-41k parameters on 20 bytes per parameter, on this machine's CPU, whose float"
echo "   rounding moves the point estimate like another seed would: see docs/results.md)"
echo
echo "== how it was reached: the paired gaps by size, the local multiplier, the laws and their limits"
sed '/^verdict:$/,/^$/d' "$fit"
echo
echo "== done. The coordinator's own fit (laws n and c): gammalab fit SWEEP against a running server."
echo "   To browse the results in the dashboard: make dashboard, then open the address it prints and give it"
echo "   the user token in $demo/user.token."
exit $status
