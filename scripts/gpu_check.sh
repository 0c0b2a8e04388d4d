#!/usr/bin/env bash
# On a GPU machine with PyTorch: builds the trainer alone (-DGAMMALAB_SERVICES=OFF) against the LibTorch inside
# PyTorch and checks it there, in one go:
#   1. the trainer test suite (CPU) against this LibTorch: the PyTorch 2.x version guards;
#   2. bench_trainer_device: every named variant trained on the GPU (bf16 autocast) and on the CPU (float32) from
#      the same shards, losses side by side;
#   3. bench_trainer_step on the GPU: step time and the unified/baseline ratio for the paper's dense presets;
#   4. data parallelism, 1 rank against 2 (scripts/bench_ddp.sh): NCCL on two GPUs when the machine has them (with
#      one it says so and skips), Gloo on the CPU in the dry run.
#   5. export: trained models read back by Hugging Face transformers give the trainer's loss (scripts/lib/
#      hf_export_check.py: LlamaForCausalLM for a variant that folds into it, the custom code for the others).
# Needs the packages that scripts/gpu_bundle.sh downloads into .gpu-deps/ (headers and small libraries such a
# machine lacks); unpacks them under /tmp. Logs and results go to $OUT (default $GAMMALAB_GPU_BUILD/check), every figure also
# to $OUT/summary.txt. Exit status: the number of steps that failed (0: all held).
#   GAMMALAB_CHECK_DEVICE=cpu   a dry run of the whole script without a GPU (steps 2 and 3 on the CPU, smaller);
#                               `make test` runs it against the LibTorch 2.x of `make deps`' Python environment
#   PYTHON=PATH                 the python with torch (and transformers for step 5); default python3
#   TORCH_CMAKE_PREFIX=DIR      LibTorch's CMake prefix, when that python has no torch
#   GAMMALAB_GPU_BUILD=DIR      the build folder (default build-gpu)
#   PEAK_TFLOPS=F               the GPU's dense bf16 peak, for MFU (default: known for H100 and H200)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${GAMMALAB_GPU_BUILD:-build-gpu}
out=${OUT:-$build/check}
device=${GAMMALAB_CHECK_DEVICE:-cuda}
python=${PYTHON:-python3}
failed=0
fail() { failed=$((failed + 1)); note "$@"; }
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

# The CUDA headers that LibTorch's CUDA headers include, from the bundle's wheels, when this PyTorch environment
# lacks them and no CUDA toolkit is there (cmake/torch.cmake).
has() { "$python" -m pip show "$1" >/dev/null 2>&1; }
if ! command -v nvcc >/dev/null && [ -d .gpu-deps/wheels ] && ! { has nvidia-cuda-crt && has nvidia-cuda-cccl; }; then
  if "$python" -m pip install --quiet --no-index --no-deps .gpu-deps/wheels/*.whl > "$out/wheels.log" 2>&1; then
    note "installed $(ls .gpu-deps/wheels | tr '\n' ' ')into the environment of $python"
  else
    note "could not install the CUDA header wheels of .gpu-deps/wheels (wheels.log)"
  fi
fi

torch_prefix=${TORCH_CMAKE_PREFIX:-$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)}
[ -n "$torch_prefix" ] || { note "no LibTorch: set TORCH_CMAKE_PREFIX or PYTHON to a python with torch"; exit 1; }
"$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")' 2>/dev/null | tee -a "$summary"
note "device $device, LibTorch at $torch_prefix, $(nproc) cores"

# The README's trainer-only build (its two commands), with the tests and benchmarks; Ceres, gRPC, SQLite and
# spdlog made unfindable: the trainer-only build must not need them. As a unity build: nearly every file
# includes LibTorch's headers, and parsing them once per batch of 16 files rather than once per file takes this
# build from about 7.5 to 4.3 minutes on 2 cores (the main build stays one file per unit, so it still checks
# that each file includes what it uses).
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGAMMALAB_SERVICES=OFF -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
    -DGAMMALAB_TESTS=ON -DGAMMALAB_BENCH=ON -DCMAKE_PREFIX_PATH="$torch_prefix;$prefix/usr" \
    -DCMAKE_DISABLE_FIND_PACKAGE_Ceres=ON -DCMAKE_DISABLE_FIND_PACKAGE_gRPC=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON -DCMAKE_DISABLE_FIND_PACKAGE_spdlog=ON > "$out/configure.log" 2>&1; then
  note "configure failed (configure.log)"; tail -40 "$out/configure.log"; exit 1
fi
start=$(date +%s)
if ! cmake --build "$build" -j"$(nproc)" --target gammalab-train trainer_tests bench_trainer_step \
    bench_trainer_device > "$out/build.log" 2>&1; then
  note "build failed (build.log)"; grep -E "error|Error" "$out/build.log" | head -40; exit 1
fi
note "built in $(( $(date +%s) - start )) s"

# 1. The CPU suite against this LibTorch.
"$build"/tests/trainer_tests > "$out/trainer_tests.log" 2>&1
rc=$?
note "trainer_tests rc=$rc: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/trainer_tests.log" | tr '\n' ' ')"
[ $rc = 0 ] || fail "trainer_tests failed (trainer_tests.log)"

# 2. Training on the device against the CPU, from real text (this repository's own documentation).
"$build"/worker/trainer/gammalab-train prepare --input README.md docs --out "$build"/check-data \
  > "$out/prepare.log" 2>&1 || { note "prepare failed (prepare.log)"; exit 1; }
peak=${PEAK_TFLOPS:-}
if [ "$device" = cuda ] && [ -z "$peak" ]; then
  case "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" in
    *H100*|*H200*) peak=989 ;;  # dense bf16 (SXM), NVIDIA's data sheets
  esac
fi
if [ "$device" = cuda ]; then
  # The CPU reference runs take most of the time: ten variants, but a small preset and 150 steps.
  device_args=(--device cuda --dtype bfloat16 --preset tiny-0.5m --steps 150 --cpu-threads 8
               --variants none baseline hg ap dp dnp or er iwd unified)
  step_args=(--device cuda --dtype bfloat16 --compare llama-0.12b llama-1b --batch-tokens 16384 --steps 20
             ${peak:+--peak-tflops $peak})
else
  device_args=(--device cpu --preset tiny-0.1m --steps 30 --batch-tokens 2048 --cpu-threads 1)
  step_args=(--compare tiny-0.1m --steps 5)
fi
"$build"/bench/bench_trainer_device --data "$build"/check-data "${device_args[@]}" > "$out/device.txt" 2>&1
rc=$?
note "bench_trainer_device rc=$rc"; tee -a "$summary" < "$out/device.txt"
[ $rc = 0 ] || fail "bench_trainer_device failed"

# 3. Step time on the device.
"$build"/bench/bench_trainer_step "${step_args[@]}" > "$out/step.txt" 2>&1
rc=$?
note "bench_trainer_step rc=$rc"; tee -a "$summary" < "$out/step.txt"
[ $rc = 0 ] || fail "bench_trainer_step failed"

# 4. Data parallelism: 1 rank against 2 on the same global batch (step time, all-reduce wait, last loss).
if [ "$device" = cuda ]; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  if [ "${gpus:-0}" -ge 2 ]; then
    scripts/bench_ddp.sh "$build" 20 cuda llama-0.12b > "$out/ddp.txt" 2>&1
    rc=$?
    note "bench_ddp (NCCL, 2 GPUs) rc=$rc"; tee -a "$summary" < "$out/ddp.txt"
    [ $rc = 0 ] || fail "bench_ddp failed"
  else
    note "bench_ddp: skipped, ${gpus:-0} GPU(s) here; the 2-rank NCCL check needs 2"
  fi
else
  scripts/bench_ddp.sh "$build" 6 cpu tiny-0.5m > "$out/ddp.txt" 2>&1
  rc=$?
  note "bench_ddp (Gloo, CPU dry run) rc=$rc"; tee -a "$summary" < "$out/ddp.txt"
  [ $rc = 0 ] || fail "bench_ddp failed"
fi

# 5. Export, read back by Hugging Face transformers (CPU, float32 on both sides, so the tolerance is tight): a
#    variant that folds into LlamaForCausalLM (baseline, DP), and unified and MoE in the custom-code layout.
if "$python" -c 'import transformers, safetensors, torch' 2>/dev/null; then
  "$python" scripts/lib/hf_export_check.py --trainer "$build"/worker/trainer/gammalab-train --work "$build"/check-export \
    --cases quick > "$out/export.txt" 2>&1
  rc=$?
  note "export check rc=$rc"; tee -a "$summary" < "$out/export.txt"
  [ $rc = 0 ] || fail "export check failed"
else
  fail "export check: $python has no transformers, safetensors and torch (PYTHON= one that has)"
fi
note "$failed step(s) failed"
exit $failed
