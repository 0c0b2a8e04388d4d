#!/usr/bin/env bash
# `make dashboard`: serves the dashboard over the demo's database until Ctrl-C, with the binaries the demo built
# (nothing is installed or built again). Listens on 127.0.0.1:8080, or on a free port when 8080 is taken (or on
# $GAMMALAB_HTTP when set), and prints the address it got.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
demo="$build/demo"
server="$build/server/gammalab-server"
[ -f "$demo/gammalab.db" ] || { echo "no demo database yet: run 'make demo' first"; exit 1; }
[ -x "$server" ] || { echo "no $server: run 'make demo' first"; exit 1; }
http="${GAMMALAB_HTTP:-}"
if [ -z "$http" ]; then
  # 8080 when nothing listens there; otherwise port 0, and the server picks one.
  if python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 8080))' 2>/dev/null; then
    http=127.0.0.1:8080
  else
    http=127.0.0.1:0
  fi
fi
out=$(mktemp)
"$server" --listen 127.0.0.1:0 --http "$http" --db "$demo/gammalab.db" --shared-root "$demo/shared" >"$out" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$out"' EXIT
trap 'exit 0' INT TERM
for _ in $(seq 100); do grep -q listening "$out" && break; kill -0 $pid 2>/dev/null || exit 1; sleep 0.1; done
port=$(sed -n 's/.*"http_port":\([0-9]*\).*/\1/p' "$out")
[ -n "$port" ] || { echo "the server did not say its HTTP port: $(cat "$out")"; exit 1; }
[ "$http" = 127.0.0.1:0 ] && echo "dashboard: 127.0.0.1:8080 is taken; serving on port $port instead"
echo "dashboard: open http://${http%:*}:$port/ and sign in with the token in $demo/user.token (Ctrl-C to stop)"
wait $pid
