#!/usr/bin/env bash
# On a GPU machine with PyTorch: builds the trainer alone (-DGAMMALAB_SERVICES=OFF) against the LibTorch inside
# PyTorch and checks it there, in one go:
#   1. the trainer test suite (CPU) against this LibTorch: the PyTorch 2.x version guards;
#   2. bench_trainer_device: every named variant trained on the GPU (bf16 autocast) and on the CPU (float32) from
#      the same shards, losses side by side;
#   3. bench_trainer_step on the GPU: step time and the unified/baseline ratio for the paper's dense presets;
#   4. data parallelism, 1 rank against 2 (scripts/bench_ddp.sh): NCCL on two GPUs when the machine has them (with
#      one it says so and skips), Gloo on the CPU in the dry run.
# Needs the packages that scripts/gpu_bundle.sh downloads into .gpu-deps/ (headers and small libraries such a
# machine lacks); unpacks them under /tmp. Logs and results go to $OUT (default build-gpu/check).
#   GAMMALAB_CHECK_DEVICE=cpu   a dry run of the whole script without a GPU (steps 2 and 3 on the CPU, smaller)
#   TORCH_CMAKE_PREFIX=DIR      LibTorch's CMake prefix, when no python3 with torch is there
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build-gpu/check}
device=${GAMMALAB_CHECK_DEVICE:-cuda}
mkdir -p "$out"
summary="$out/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

prefix=/tmp/gammalab-gpu-deps
mkdir -p "$prefix"
shopt -s nullglob
debs=(.gpu-deps/*.deb)
[ ${#debs[@]} -gt 0 ] || note "no .gpu-deps/*.deb: relying on what this machine has (run scripts/gpu_bundle.sh and carry .gpu-deps)"
for f in "${debs[@]}"; do dpkg-deb -x "$f" "$prefix" || { note "cannot unpack $f"; exit 1; }; done
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

torch_prefix=${TORCH_CMAKE_PREFIX:-$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)}
[ -n "$torch_prefix" ] || { note "no LibTorch: set TORCH_CMAKE_PREFIX or provide python3 with torch"; exit 1; }
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")' 2>/dev/null | tee -a "$summary"
note "device $device, LibTorch at $torch_prefix, $(nproc) cores"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if ! cmake -S . -B build-gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DGAMMALAB_SERVICES=OFF \
    -DCMAKE_PREFIX_PATH="$torch_prefix;$prefix/usr" > "$out/configure.log" 2>&1; then
  note "configure failed (configure.log)"; tail -40 "$out/configure.log"; exit 1
fi
start=$(date +%s)
if ! cmake --build build-gpu -j"$(nproc)" --target gammalab-train trainer_tests bench_trainer_step \
    bench_trainer_device > "$out/build.log" 2>&1; then
  note "build failed (build.log)"; grep -E "error|Error" "$out/build.log" | head -40; exit 1
fi
note "built in $(( $(date +%s) - start )) s"

# 1. The CPU suite against this LibTorch.
build-gpu/tests/trainer_tests > "$out/trainer_tests.log" 2>&1
note "trainer_tests rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/trainer_tests.log" | tr '\n' ' ')"

# 2. Training on the device against the CPU, from real text (this repository's own documentation).
build-gpu/worker/trainer/gammalab-train prepare --input README.md docs --out build-gpu/check-data \
  > "$out/prepare.log" 2>&1 || { note "prepare failed (prepare.log)"; exit 1; }
if [ "$device" = cuda ]; then
  # The CPU reference runs take most of the time: ten variants, but a small preset and 150 steps.
  device_args=(--device cuda --dtype bfloat16 --preset tiny-0.5m --steps 150 --cpu-threads 8
               --variants none baseline hg ap dp dnp or er iwd unified)
  step_args=(--device cuda --dtype bfloat16 --compare llama-0.12b llama-1b --batch-tokens 16384 --steps 20)
else
  device_args=(--device cpu --preset tiny-0.1m --steps 30 --batch-tokens 2048 --cpu-threads 1)
  step_args=(--compare tiny-0.1m --steps 5)
fi
build-gpu/bench/bench_trainer_device --data build-gpu/check-data "${device_args[@]}" > "$out/device.txt" 2>&1
note "bench_trainer_device rc=$?"; tee -a "$summary" < "$out/device.txt"

# 3. Step time on the device.
build-gpu/bench/bench_trainer_step "${step_args[@]}" > "$out/step.txt" 2>&1
note "bench_trainer_step rc=$?"; tee -a "$summary" < "$out/step.txt"

# 4. Data parallelism: 1 rank against 2 on the same global batch (step time, all-reduce wait, last loss).
if [ "$device" = cuda ]; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  if [ "${gpus:-0}" -ge 2 ]; then
    scripts/bench_ddp.sh build-gpu 20 cuda llama-0.12b > "$out/ddp.txt" 2>&1
    note "bench_ddp (NCCL, 2 GPUs) rc=$?"; tee -a "$summary" < "$out/ddp.txt"
  else
    note "bench_ddp: skipped, ${gpus:-0} GPU(s) here; the 2-rank NCCL check needs 2"
  fi
else
  scripts/bench_ddp.sh build-gpu 6 cpu tiny-0.5m > "$out/ddp.txt" 2>&1
  note "bench_ddp (Gloo, CPU dry run) rc=$?"; tee -a "$summary" < "$out/ddp.txt"
fi

# 5. Export: a trained model written as LlamaForCausalLM and read by Hugging Face transformers gives the trainer's
#    val loss (CPU, float32 on both sides, so the tolerance is tight), for the baseline and DP (both of its
#    scale vectors folded into the matrices).
have_hf=1
python3 -c 'import transformers, safetensors, torch' 2>/dev/null || have_hf=0
[ $have_hf = 1 ] || note "export check: this python3 has no transformers, safetensors and torch: trains and exports only"
for variant in baseline dp; do
  dir=build-gpu/check-export/$variant
  rm -rf "$dir" && mkdir -p "$dir"
  python3 - "$dir" "$variant" <<'PY'
import json, subprocess, sys
dir, variant = sys.argv[1], sys.argv[2]
# The preset and the variant's axes as the trainer reads them (gammalab-train describe --json): no YAML reader
# and no copy of the variant table here.
resolved = json.loads(subprocess.check_output(["build-gpu/worker/trainer/gammalab-train", "describe",
                                               "--preset", "tiny-0.5m", "--variant", variant, "--json"]))
job = {"model": resolved["model"], "scale": resolved["scale"], "batch_tokens": 8 * resolved["model"]["seq_len"], "steps": 40,
       "log_every": 10, "ckpt_every": 40, "threads": 4,
       "data": {"train": "build-gpu/check-data/train.bin", "val": "build-gpu/check-data/val.bin", "eval_batches": 4}}
json.dump(job, open(f"{dir}/job.json", "w"))
PY
  seq_len=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"]["seq_len"])' "$dir/job.json")
  if ! build-gpu/worker/trainer/gammalab-train run --config "$dir/job.json" --ckpt-dir "$dir/ckpt" \
      > "$dir/metrics.jsonl" 2> "$dir/train.log" ||
     ! build-gpu/worker/trainer/gammalab-train export --config "$dir/job.json" --ckpt-dir "$dir/ckpt" \
      --out "$dir/hf" >> "$dir/train.log" 2>&1; then
    note "export check $variant: training or export failed ($dir/train.log)"; tail -5 "$dir/train.log"; continue
  fi
  if [ $have_hf = 0 ]; then note "export check $variant: trained and exported ($(ls "$dir/hf" | tr '\n' ' '))"; continue; fi
  expect=$(python3 -c 'import json,sys
loss = [json.loads(l)["metrics"]["val/loss"] for l in open(sys.argv[1]) if "val/loss" in l]
print(loss[-1])' "$dir/metrics.jsonl")
  python3 scripts/lib/hf_loss_check.py --export "$dir/hf" --val build-gpu/check-data/val.bin \
    --seq-len "$seq_len" --batches 4 --micro 8 --expect "$expect" > "$dir/hf_check.txt" 2>&1
  note "export check $variant rc=$?: $(tail -1 "$dir/hf_check.txt")"
done
