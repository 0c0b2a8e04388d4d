#!/usr/bin/env bash
# `make bench`: every benchmark in bench/, one after another (they print ratios against a reference measured in
# the same run; docs/perf.md keeps the figures). The trainer ones run on one thread, as docs/perf.md reports them.
set -euo pipefail
build="${1:-build}"
for bench in "$build"/bench/bench_*; do
  [ -x "$bench" ] || continue
  echo "== $(basename "$bench")"
  case "$(basename "$bench")" in
    bench_trainer_device) echo "(compares a GPU with the CPU: scripts/gpu_check.sh runs it)" ;;
    bench_http_dashboard_fixture) echo "(the database of dashboard_draw, below)" ;;
    bench_trainer_*) OPENBLAS_NUM_THREADS=1 "$bench" ;;
    *) "$bench" ;;
  esac
done

# The dashboard in headless Chromium over 100 jobs x 100,000 points, against 100 x 1,000 (web/tools/dashboard-draw.js).
if [ -x "$build/bench/bench_http_dashboard_fixture" ]; then
  echo "== dashboard_draw"
  node web/tools/dashboard-draw.js --build "$build"
fi

# Ours against PyTorch eager on the same shapes, batch and steps (bench/reference/llama_ref.py; Debian's
# python3-torch is built from the same source as the libtorch-dev the trainer links).
py=python3
"$py" -c 'import torch' 2>/dev/null || py=/usr/bin/python3
if [ -x "$build/bench/bench_trainer_step" ] && "$py" -c 'import torch' 2>/dev/null; then
  echo "== pytorch_reference (tiny-2m baseline, 4096 tokens/step, 20 steps, 1 thread)"
  ours=$(OPENBLAS_NUM_THREADS=1 "$build/bench/bench_trainer_step" --preset tiny-2m --variant baseline --steps 20 \
           --batch-tokens 4096 --threads 1 | awk '$1 == "tiny-2m" {print $3}')
  ref_line=$(OPENBLAS_NUM_THREADS=1 "$py" bench/reference/llama_ref.py --preset configs/models/tiny-2m.yaml \
               --steps 20 --batch-tokens 4096 --threads 1)
  ref=$(echo "$ref_line" | sed -n 's/.*: \([0-9.]*\) ms\/step$/\1/p')
  echo "$ref_line"
  echo "gammalab-train: $ours ms/step"
  awk -v o="$ours" -v r="$ref" 'BEGIN { printf "ours / pytorch eager: %.2f\n", o / r }'
else
  echo "== pytorch_reference: skipped (needs bench_trainer_step and a python3 with torch: Debian's python3-torch)"
fi
