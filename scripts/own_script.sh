#!/usr/bin/env bash
# `make own-script`: examples/own-script/train.py, a PyTorch script of a user's own, trained as the jobs of
# examples/own-script/sweep.yaml by a coordinator and two workers on this machine (docs/own-program.md): its tune
# stage, its main stage on two paired seeds, and the scaling law the coordinator fits, in BUILD/own-script.
# The workers find python3 with PyTorch (the environment `make deps` makes) and the gammalab client (python/)
# as `pip install ./python` would provide it.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bin="$build"
dir="$build/own-script"
source scripts/lib/cluster.sh

python_env="${GAMMALAB_PYTHON:-$cache/python/bin/python3}"
[ -x "$python_env" ] || { echo "no Python environment with PyTorch at $python_env: run make deps"; exit 1; }
export PATH="$(dirname "$python_env"):$PATH"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
cli="$bin/cli/gammalab"
sweep_file=examples/own-script/sweep.yaml

"$cli" validate "$sweep_file"
rm -rf "$dir"
cluster_start "$dir" 2
sweep=$(cluster_submit "$sweep_file")
echo "== submitted sweep $sweep ($sweep_file); following it"
status=0
"$cli" watch "$sweep" || status=$?
"$cli" tune "$sweep" | tee "$dir/tune.txt" || status=$?
cluster_wait_for_fit "$sweep"
"$cli" fit "$sweep" --detail | tee "$dir/fit.txt" || status=$?
exit "$status"
