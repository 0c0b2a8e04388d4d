#!/usr/bin/env bash
# `make dashboard`: serves the dashboard over the demo's database until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
demo="$build/demo"
[ -f "$demo/gammalab.db" ] || { echo "no demo database yet: run 'make demo' first"; exit 1; }
http="${GAMMALAB_HTTP:-127.0.0.1:8080}"
echo "dashboard: open http://$http/ and sign in with the token in $demo/user.token (Ctrl-C to stop)"
exec "$build/server/gammalab-server" --listen 127.0.0.1:0 --http "$http" --db "$demo/gammalab.db" \
  --shared-root "$demo/shared"
