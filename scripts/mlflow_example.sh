#!/usr/bin/env bash
# `make mlflow-example`: runs kept in an MLflow tracking server brought into gammalab and fitted. An MLflow server
# (from the Python environment `make deps` makes) holds the experiment examples/mlflow-import/log_to_mlflow.py
# logs with MLflow's own API; `python -m gammalab convert --mlflow` reads it over MLflow's REST API, naming which
# params carry each run's arm, seed, N and D and which metric is the held-out loss; `gammalab import` stores the
# runs as a sweep of finished jobs of a coordinator on this machine, which fits them. In BUILD/mlflow-example.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bin="$build"
dir="$(realpath -m "$build")/mlflow-example"
source scripts/lib/cluster.sh

python_env="${GAMMALAB_PYTHON:-$cache/python/bin/python3}"
[ -x "$python_env" ] || { echo "no Python environment with MLflow at $python_env: run make deps"; exit 1; }
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
cli="$bin/cli/gammalab"

rm -rf "$dir"
mkdir -p "$dir"
port=$("$python_env" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$(dirname "$python_env")/mlflow" server --backend-store-uri "sqlite:///$dir/mlflow.db" \
  --default-artifact-root "$dir/artifacts" --host 127.0.0.1 --port "$port" --workers 1 >"$dir/mlflow.log" 2>&1 &
cluster_pids+=($!)
url="http://127.0.0.1:$port"
for _ in $(seq 240); do curl -sf "$url/health" >/dev/null 2>&1 && break; sleep 0.5; done
curl -sf "$url/health" >/dev/null || { echo "MLflow did not start; see $dir/mlflow.log"; exit 1; }
echo "== MLflow tracking server at $url"
"$python_env" examples/mlflow-import/log_to_mlflow.py "$url" ladder

cluster_start "$dir" 0
"$python_env" -m gammalab convert --mlflow "$url" --experiment ladder --field group=arm --field seed=random_seed \
  --field params=n_params --metric train/loss=loss --metric val/loss=eval_loss --out "$dir/ladder.jsonl"
sweep=$("$cli" --json import "$dir/ladder.jsonl" --name mlflow-ladder | sed -n 's/.*"id": *"\([0-9]*\)".*/\1/p' | head -1)
echo "== imported as sweep $sweep"
"$cli" jobs "$sweep" | head -5
cluster_wait_for_fit "$sweep"
"$cli" fit "$sweep" | tee "$dir/fit.txt"
