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

# Ours against PyTorch on the same shapes, batch and steps, one thread (bench/reference/llama_ref.py): eager on
# Debian's python3-torch 1.13 (built from the same source as the libtorch-dev the trainer links), and eager and
# torch.compile on the PyTorch 2.x of `make deps`' Python environment. Ours is measured between them, in the
# same run, so each ratio's two sides saw the same machine load.
if [ -x "$build/bench/bench_trainer_step" ]; then
  echo "== pytorch_reference (tiny-2m baseline, 4096 tokens/step, 20 steps, 1 thread)"
  reference() {  # python [--compile] -> ms/step, printing its line
    local py=$1
    shift
    local line
    line=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$py" bench/reference/llama_ref.py --preset configs/models/tiny-2m.yaml \
             --steps 20 --batch-tokens 4096 --threads 1 "$@") || return 1
    echo "$line" >&2
    echo "$line" | sed -n 's/.*: \([0-9.]*\) ms\/step$/\1/p'
  }
  py2="${XDG_CACHE_HOME:-$HOME/.cache}/gammalab/python/bin/python3"
  eager113=$(reference /usr/bin/python3 || true)
  ours=$(OPENBLAS_NUM_THREADS=1 "$build/bench/bench_trainer_step" --preset tiny-2m --variant baseline --steps 20 \
           --batch-tokens 4096 --threads 1 | awk '$1 == "tiny-2m" {print $3}')
  echo "gammalab-train: $ours ms/step"
  eager2=$( [ -x "$py2" ] && reference "$py2" || true)
  compiled2=$( [ -x "$py2" ] && reference "$py2" --compile || true)
  for pair in "pytorch 1.13 eager:$eager113" "pytorch 2.x eager:$eager2" "pytorch 2.x torch.compile:$compiled2"; do
    name=${pair%%:*} ms=${pair#*:}
    if [ -n "$ms" ]; then
      awk -v o="$ours" -v r="$ms" -v n="$name" 'BEGIN { printf "ours / %s: %.2f\n", n, o / r }'
    else
      echo "ours / $name: not measured (no such python with torch: make deps installs both)"
    fi
  done
fi

# A law written as a file (configs/laws/chinchilla.yaml) against scipy's L-BFGS-B on the same objective, data and
# 4,500 starts (bench/reference/law_form_scipy.py), each on one thread (numpy's BLAS held to one as well), the
# built-in law beside them: the same optimum, three wall times measured in one run.
if [ -x "$build/cli/gammalab" ]; then
  py2="${XDG_CACHE_HOME:-$HOME/.cache}/gammalab/python/bin/python3"
  if [ -x "$py2" ] && "$py2" -c 'import scipy' 2>/dev/null; then
    echo "== law_file_fit (chinchilla, 240 runs, 4,500 starts, Huber delta 1e-3, 1 thread)"
    runs=$(mktemp --suffix=.csv)
    "$py2" bench/reference/law_form_scipy.py --write-csv "$runs"
    timed() {  # command... : prints its wall seconds after running it quietly
      local start end
      start=$(date +%s.%N)
      "$@" >/dev/null
      end=$(date +%s.%N)
      awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
    }
    fit=("$build/cli/gammalab" fit --points "$runs" --huber-delta 1e-3 --bootstrap 0 --threads 1)
    file_s=$(timed "${fit[@]}" --law-file configs/laws/chinchilla.yaml)
    builtin_s=$(timed "${fit[@]}" --law chinchilla)
    "${fit[@]}" --law-file configs/laws/chinchilla.yaml | sed -n '/parameter/,/beta/p'
    scipy=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$py2" bench/reference/law_form_scipy.py "$runs" 1e-3)
    echo "scipy L-BFGS-B: $scipy"
    scipy_s=$(sed -n 's/.*"seconds": \([0-9.]*\).*/\1/p' <<<"$scipy")
    echo "law file: ${file_s} s, built-in law: ${builtin_s} s, scipy: ${scipy_s} s"
    awk -v f="$file_s" -v s="$scipy_s" -v b="$builtin_s" \
      'BEGIN { printf "law file / scipy: %.2f; law file / built-in: %.2f\n", f / s, f / b }'
    rm -f "$runs"
  else
    echo "== law_file_fit: not measured (no python with scipy: make deps installs it)"
  fi
fi
