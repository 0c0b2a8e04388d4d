#!/usr/bin/env bash
# check-references: off (the scratch tree below names paths that do not exist on purpose)
# scripts/check_includes.py on a scratch repository with the real rule table (docs/architecture.md): core/
# including the store, the trainer including the wire's generated headers and the store including the CLI must
# each be named with its file and line; a library's header and a header beside the file are not ruled; and the
# tree passes once the violations are gone (a check that passed whatever the tree would pass here only once).
set -euo pipefail
source_root="$1"
check="$source_root/scripts/check_includes.py"
repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT
cd "$repo"
git init -q .
mkdir -p docs core worker/trainer/model server/store cli
cp "$source_root/docs/architecture.md" docs/
printf '#pragma once\n#include <vector>\n#include "core/metric.h"\n#include "server/store.h"\n' > core/a.h
printf '#include "worker/trainer/model/model.h"\n#include "gammalab/v1/gammalab.pb.h"\n#include "local.h"\n' \
  > worker/trainer/model/b.cpp
printf '#include "server/store.h"\n#include "core/a.h"\n#include "cli/elsewhere/c.h"\n' > server/store/c.cpp
git add -A
if out=$(python3 "$check" "$repo" 2>&1); then
  echo "FAIL: the check passed a tree that breaks the include rule:"; echo "$out"; exit 1
fi
for want in "core/a.h:4: core includes server/store.h (server)" \
            "worker/trainer/model/b.cpp:2: worker/trainer includes gammalab/v1/gammalab.pb.h (gammalab)"; do
  grep -qF "$want" <<<"$out" || { echo "FAIL: expected '$want' in:"; echo "$out"; exit 1; }
done
if grep -qE "vector|core/metric.h|local.h|worker/trainer/model/model.h|server/store/c.cpp:[12]:" <<<"$out"; then
  echo "FAIL: an allowed include was named:"; echo "$out"; exit 1
fi
[ "$(wc -l <<<"$out")" = 3 ] || { echo "FAIL: expected three violations:"; echo "$out"; exit 1; }
printf '#pragma once\n#include "core/metric.h"\n' > core/a.h
printf '#include "worker/trainer/model/model.h"\n' > worker/trainer/model/b.cpp
printf '#include "server/store.h"\n' > server/store/c.cpp
python3 "$check" "$repo"
echo "ok: every violation named with its line, none once they are gone"
