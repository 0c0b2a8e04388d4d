#!/usr/bin/env bash
# Data-parallel step time with Gloo on this machine's CPU: 1 rank against 2 ranks on the same global batch, for a
# few model sizes. Prints ms/step (wall, over the run after its first step) and the share of it spent waiting for
# gradient all-reduces after backward (the part not overlapped). Usage: scripts/bench_ddp.sh [build] [steps]
set -euo pipefail
build="${1:-build}"
steps="${2:-12}"
train="$build/worker/trainer/gammalab-train"
[ -x "$train" ] || { echo "bench_ddp: no $train (build gammalab-train first)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A byte-level corpus from this repository's docs: real text, no download.
"$train" prepare --input docs --out "$tmp/data" --tokenizer byte >/dev/null 2>&1

run() {  # preset ranks threads -> "ms_per_step wait_share"
  local preset=$1 ranks=$2 threads=$3
  python3 - "$preset" "$ranks" "$threads" "$steps" "$tmp" <<'PY'
import json, sys
preset, ranks, threads, steps, tmp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
spec = {}
for line in open(f"configs/models/{preset}.yaml"):
    k, _, v = line.partition(":")
    if k.strip() in ("vocab_size", "n_layers", "d_model", "n_heads", "seq_len"):
        spec[k.strip()] = int(v)
job = {"model": spec, "batch_tokens": 32 * spec["seq_len"], "steps": steps, "log_every": 1, "threads": threads,
       "data": {"train": f"{tmp}/data/train.bin"}, "schedule": {"kind": "constant"}}
if ranks > 1:
    job["world_size"] = ranks
json.dump(job, open(f"{tmp}/job.json", "w"))
PY
  OPENBLAS_NUM_THREADS=$threads "$train" run --config "$tmp/job.json" >"$tmp/out.jsonl" 2>"$tmp/err.txt" || {
    cat "$tmp/err.txt" >&2
    return 1
  }
  python3 - "$tmp" <<'PY'
import re, statistics, sys
err = open(f"{sys.argv[1]}/err.txt").read()
job = __import__("json").load(open(f"{sys.argv[1]}/job.json"))
rates = [float(m) for m in re.findall(r"^step \d+/\d+ .* tok/s ([0-9.e+]+)$", err, re.M)][1:]  # step 1: warm-up
ms = [1000.0 * job["batch_tokens"] / r for r in rates if r > 0]
wait = re.search(r"all-reduce wait after backward: ([0-9.e+-]+) s", err)
share = 100.0 * float(wait.group(1)) / (sum(ms) / 1000.0 * (len(ms) + 1) / len(ms)) if wait else 0.0
print(f"{statistics.median(ms):.1f} {share:.0f}%")
PY
}

echo "preset     ranks x threads   ms/step   all-reduce wait share"
for preset in tiny-0.5m tiny-2m tiny-8m; do
  for shape in "1 1" "1 2" "2 1"; do
    set -- $shape
    printf "%-10s %5s x %-7s %s\n" "$preset" "$1" "$2" "$(run "$preset" "$1" "$2")"
  done
done
