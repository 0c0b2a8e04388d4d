#!/usr/bin/env bash
# Data-parallel step time: 1 rank against 2 ranks on the same global batch, for a few model sizes, with Gloo on
# this machine's CPU or (device cuda) NCCL on its first two GPUs in bf16. Prints ms/step (wall, over the run after
# its first step), the share of it spent waiting for gradient all-reduces after backward (the part not
# overlapped), and the last train loss (the same for 1 and 2 ranks, to float32 or bf16 tolerance).
# Usage: scripts/bench_ddp.sh [build] [steps] [cpu|cuda] [presets...]
set -euo pipefail
build="${1:-build}"
steps="${2:-12}"
device="${3:-cpu}"
shift $(( $# < 3 ? $# : 3 ))
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(tiny-0.5m tiny-2m tiny-8m)
train="$build/worker/trainer/gammalab-train"
[ -x "$train" ] || { echo "bench_ddp: no $train (build gammalab-train first)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A byte-level corpus from this repository's docs: real text, no download.
"$train" prepare --input docs --out "$tmp/data" --tokenizer byte >/dev/null 2>&1

run() {  # preset ranks threads -> "ms_per_step wait_share"
  local preset=$1 ranks=$2 threads=$3
  python3 - "$preset" "$ranks" "$threads" "$steps" "$tmp" "$device" "$train" <<'PY'
import json, subprocess, sys
preset, ranks, threads, steps, tmp, device, train = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
                                                     sys.argv[5], sys.argv[6], sys.argv[7])
# The preset as the trainer reads it (gammalab-train describe --json): no second YAML reader here.
spec = json.loads(subprocess.check_output([train, "describe", "--preset", preset, "--json"]))["model"]
job = {"model": spec, "batch_tokens": 32 * spec["seq_len"], "steps": steps, "log_every": 1, "threads": threads,
       "data": {"train": f"{tmp}/data/train.bin"}, "schedule": {"kind": "constant"}}
if ranks > 1:
    job["world_size"] = ranks
if device == "cuda":
    job.update(device="cuda", dtype="bfloat16")
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
loss = "-"
for line in open(f"{sys.argv[1]}/out.jsonl"):
    point = __import__("json").loads(line) if line.startswith("{") else {}
    if "train/loss" in point.get("metrics", {}):
        loss = f"{float(point['metrics']['train/loss']):.5f}"
print(f"{statistics.median(ms):.1f} {share:.0f}% {loss}")
PY
}

echo "preset     ranks x threads   ms/step   all-reduce wait share   last train loss ($device)"
shapes=("1 1" "1 2" "2 1")
[ "$device" = cuda ] && shapes=("1 1" "2 1")  # a GPU per rank; the thread count is the CPU's side only
for preset in "${presets[@]}"; do
  for shape in "${shapes[@]}"; do
    set -- $shape
    printf "%-10s %5s x %-7s %s\n" "$preset" "$1" "$2" "$(run "$preset" "$1" "$2")"
  done
done
