#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan in their own build folder,
# and runs each for FUZZ_SECONDS (60) from its corpus. An input that crashes a target, hangs it (over 10 s)
# or makes it use over 2 GB is saved as tests/fuzz/corpus/TARGET/crash-* (or timeout-*, oom-*): fix the
# parser, keep the file, and `make test` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh fuzz
build="${1:-build-fuzz}"
seconds="${FUZZ_SECONDS:-60}"
# With the services (the HTTP server's target needs the store and its protos), without LibTorch: no target
# reaches the trainer but through its safetensors header parser, which needs none.
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGAMMALAB_FUZZ=ON \
  -DGAMMALAB_SERVICES=ON -DGAMMALAB_TRAINER=OFF -DGAMMALAB_TESTS=OFF -DGAMMALAB_BENCH=OFF >/dev/null
targets=()
for dir in tests/fuzz/corpus/*/; do targets+=("fuzz_$(basename "$dir")"); done
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" sanitized_service_tests

# Concurrent authenticated calls, open streams, hostile reports and registrations on the coordinator, under ASan
# and UBSan. The heap-growth test reads glibc's malloc statistics, which ASan's allocator does not keep: it runs
# in `make test` only.
echo "fuzz: concurrency and abuse tests under ASan and UBSan"
# A stack object's address used after its frame ended (a coordinator of one test still reached by gRPC's threads
# in the next) is reported as such, not as a crash on whatever reused the frame.
ASAN_OPTIONS=detect_stack_use_after_return=1 \
  "$build/tests/fuzz/sanitized_service_tests" --gtest_filter='-*MemoryDoesNotGrow*' --gtest_brief=1

failed=()
for dir in tests/fuzz/corpus/*/; do
  target=$(basename "$dir")
  # New inputs libFuzzer finds go to a scratch folder: the committed corpus holds seeds and crashes only.
  scratch=$(mktemp -d)
  echo "fuzz: $target for ${seconds}s"
  if ! "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=262144 -print_final_stats=1 -artifact_prefix="$dir" "$scratch" "$dir" 2>"$scratch.log"; then
    tail -40 "$scratch.log"
    failed+=("$target")
  else
    grep -E '^stat::number_of_executed_units|^Done' "$scratch.log" || tail -3 "$scratch.log"
  fi
  rm -rf "$scratch" "$scratch.log"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${failed[*]} failed; the inputs are in tests/fuzz/corpus/TARGET/" >&2
  exit 1
fi
echo "fuzz: every target ran ${seconds}s without a failure"
