#!/usr/bin/env bash
# check-references: off (the scratch trees below name paths that do not exist on purpose)
# scripts/check_thread_safety.py on a scratch tree: a read of a guarded member without its lock must fail the
# check and name the member, and the same code with the lock taken must pass (a check that passed whatever the
# code would pass here only once).
set -euo pipefail
check="$1/scripts/check_thread_safety.py"
clang="$2"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/server" "$root/build"
write() {  # $1: the body of Counter::get
  cat > "$root/server/counter.cpp" <<CPP
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
class Counter {
 public:
  int get();
 private:
  absl::Mutex mutex_;
  int value_ ABSL_GUARDED_BY(mutex_) = 0;
};
int Counter::get() { $1 }
CPP
}
cat > "$root/build/compile_commands.json" <<JSON
[{"directory": "$root/build", "file": "$root/server/counter.cpp",
  "command": "c++ -std=c++20 -I$root -o counter.o -c $root/server/counter.cpp"}]
JSON
write 'return value_;'
if out=$(python3 "$check" "$root/build" --clang "$clang" --jobs 1 --root "$root" 2>&1); then
  echo "FAIL: an unguarded read passed:"; echo "$out"; exit 1
fi
grep -q "reading variable 'value_' requires holding mutex 'mutex_'" <<<"$out" || { echo "FAIL: no such error in:"; echo "$out"; exit 1; }
write 'absl::MutexLock lock(&mutex_); return value_;'
python3 "$check" "$root/build" --clang "$clang" --jobs 1 --root "$root"
echo "ok: the unguarded read failed the analysis, the guarded one passed"
