#!/usr/bin/env bash
# `make dashboard` (scripts/dashboard.sh) over a demo's database: with 127.0.0.1:8080 taken it serves on a free
# port and prints that address, which answers; stopping the script stops the server it started. Nothing is built or installed.
set -uo pipefail
source_dir="$(realpath "$1")"
server="$(realpath "$2")"
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

# A build folder as `make demo` leaves it: the server binary and the demo's database.
mkdir -p "$work/build/server" "$work/build/demo/shared"
ln -s "$server" "$work/build/server/gammalab-server"
"$server" token create --role user --name u --db "$work/build/demo/gammalab.db" --out "$work/build/demo/user.token" >/dev/null \
  || fail "token create"

# Hold 8080 if nobody does, so the script has to find another port (if someone else holds it, the same holds).
python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", 8080)); s.listen(1)
except OSError:
    pass
time.sleep(600)' &
pids+=($!)
sleep 0.5

"$source_dir/scripts/dashboard.sh" "$work/build" >"$work/out" 2>&1 &
script=$!
pids+=($script)
url=""
for _ in $(seq 100); do
  url=$(sed -n 's|^dashboard: open \(http://127.0.0.1:[0-9]*/\) .*|\1|p' "$work/out")
  [ -n "$url" ] && break
  kill -0 $script 2>/dev/null || fail "the script ended: $(cat "$work/out")"
  sleep 0.1
done
[ -n "$url" ] || fail "no address printed: $(cat "$work/out")"
[ "$url" != "http://127.0.0.1:8080/" ] || fail "8080 is held, yet the script chose it"
grep -q "127.0.0.1:8080 is taken; serving on port" "$work/out" || fail "the script did not say why the port changed: $(cat "$work/out")"
python3 -c 'import sys, urllib.request; r = urllib.request.urlopen(sys.argv[1] + "healthz", timeout=10); sys.exit(0 if r.status == 200 else 1)' "$url" \
  || fail "the printed address does not answer: $url"
# A stop (TERM here: a background job of a script ignores INT, which Ctrl-C sends in a terminal; the script
# traps both alike).
kill -TERM $script
for _ in $(seq 100); do kill -0 $script 2>/dev/null || break; sleep 0.1; done
kill -0 $script 2>/dev/null && fail "a stop did not stop the script"
pgrep -f "$work/build/demo/gammalab.db" >/dev/null && fail "the server outlived the script"
echo "ok: make dashboard found a free port beside a taken 8080, printed it, and its server stopped with it"
