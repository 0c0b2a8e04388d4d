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
    bench_trainer_*) OPENBLAS_NUM_THREADS=1 "$bench" ;;
    *) "$bench" ;;
  esac
done
