#!/usr/bin/env bash
# Builds this build's Debian packages with cpack (cmake/install.cmake) and installs them into a clean Debian 12
# root made by mmdebstrap, with their dependencies from the Debian archive, as an administrator would with apt.
# Then, inside that root: `gammalab --version`, `gammalab validate` on a shipped sweep (model presets found
# beside the installed binary), the server's health check and its dashboard page (web files found the same
# way), the trainer and worker start, the system user and the settings file the package made, and
# `systemd-analyze verify` on the installed unit (its ExecStart names the binary, found in /usr/bin).
# The packages the root downloads are cached (XDG cache), so only the first run fetches them.
# Usage: install-packages.sh BUILD_DIR
set -euo pipefail
build="$(cd "${1:?usage: install-packages.sh BUILD_DIR}" && pwd)"
for tool in cpack mmdebstrap dpkg-deb python3; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool not installed (scripts/deps.sh installs it)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "FAIL: installing into a Debian root needs root (make test runs as root)" >&2; exit 1; }
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    # KILL: unshare --fork blocks TERM while it waits for its child; dying, it sends the server TERM
    # (--kill-child).
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The packages: one per component, each naming what it needs.
(cd "$tmp" && cpack -G DEB -B "$tmp/debs" --config "$build/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1) ||
  { cat "$tmp/cpack.log" >&2; fail "cpack"; }
debs=()
for name in common server worker cli trainer; do
  deb="$(ls "$tmp"/debs/gammalab-"$name"_*.deb 2>/dev/null | head -n 1)"
  [ -n "$deb" ] || fail "cpack made no gammalab-$name package: $(ls "$tmp/debs")"
  debs+=("$deb")
done
depends() { dpkg-deb -f "$(ls "$tmp"/debs/gammalab-"$1"_*.deb)" Depends; }
# Each output is read whole before grep sees it: under pipefail, `producer | grep -q` fails whenever grep's early
# exit reaches the producer as SIGPIPE (curl reports it as error 23), a race that depends on the output's size.
grep -q 'gammalab-common' <<<"$(depends server)" || fail "gammalab-server does not depend on gammalab-common: $(depends server)"
grep -q 'libgrpc++' <<<"$(depends server)" || fail "gammalab-server names no gRPC library: $(depends server)"
grep -q 'gammalab-trainer' <<<"$(depends worker)" || fail "gammalab-worker does not depend on gammalab-trainer: $(depends worker)"
grep -q 'libtorch' <<<"$(depends trainer)" || fail "gammalab-trainer names no LibTorch: $(depends trainer)"

# 2. A clean Debian 12 root with the packages installed by apt (their dependencies from the archive). The .debs
#    must be at the same path inside the root for dpkg there (mmdebstrap(1), --include).
cache="${XDG_CACHE_HOME:-$HOME/.cache}/gammalab/apt-archives"
mkdir -p "$cache"
include="curl,systemd"
for deb in "${debs[@]}"; do include+=",$deb"; done
root="$tmp/root"
echo "install test: mmdebstrap bookworm with the gammalab packages (cached downloads: $cache)"
mmdebstrap --quiet --variant=apt --mode=root --include="$include" \
  --setup-hook='mkdir -p "$1"/var/cache/apt/archives "$1'"$tmp/debs"'"' \
  --setup-hook="sync-in $cache /var/cache/apt/archives/" \
  --setup-hook="sync-in $tmp/debs $tmp/debs" \
  --customize-hook="sync-out /var/cache/apt/archives $cache" \
  bookworm "$root" >"$tmp/mmdebstrap.log" 2>&1 || { tail -n 30 "$tmp/mmdebstrap.log" >&2; fail "mmdebstrap"; }

# 3. What an administrator runs first, inside the root (its own /proc: the binaries find their files through
#    /proc/self/exe).
into_root=(unshare --mount --fork --kill-child=TERM -- sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root")
inside() { "${into_root[@]}" "$@"; }
version="$(inside gammalab --version)" || fail "gammalab --version"
grep -q "^gammalab [0-9]" <<<"$version" || fail "gammalab --version printed: $version"
inside gammalab validate /usr/share/gammalab/configs/sweeps/demo-cpu.yaml >"$tmp/validate.txt" 2>&1 ||
  { cat "$tmp/validate.txt" >&2; fail "gammalab validate on the shipped demo sweep"; }
inside gammalab-train --help >/dev/null || fail "gammalab-train --help (its libraries do not load?)"
inside gammalab-worker --help >/dev/null || fail "gammalab-worker --help"
inside getent passwd gammalab >/dev/null || fail "the package made no gammalab user"
for file in gammalab.env server.env worker.env; do
  [ "$(stat -c %a "$root/etc/gammalab/$file")" = 600 ] || fail "/etc/gammalab/$file is not mode 0600"
done
# The coordinator's unit reads no file that holds the worker token.
server_unit="$(cat "$root/usr/lib/systemd/system/gammalab-server.service")"
grep -q '^EnvironmentFile=/etc/gammalab/worker' <<<"$server_unit" && fail "the server unit reads the worker's env file"
for file in gammalab.env server.env; do
  grep -q '^GAMMALAB_TOKEN' "$root/etc/gammalab/$file" && fail "/etc/gammalab/$file holds GAMMALAB_TOKEN"
done
grep -q '^GAMMALAB_TOKEN=' "$root/etc/gammalab/worker.env" || fail "/etc/gammalab/worker.env has no GAMMALAB_TOKEN="
inside systemd-analyze verify /usr/lib/systemd/system/gammalab-server.service >"$tmp/verify.txt" 2>&1 ||
  { cat "$tmp/verify.txt" >&2; fail "systemd-analyze verify of the installed server unit"; }

# 4. The server from the package: healthy, and serving the dashboard from /usr/share/gammalab/web.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$root/tmp/shared"
# exec: the background job is unshare itself, not a shell that waits for it, so that stopping $! stops the
# server inside too (--kill-child, in cleanup); stopping a shell around it left the server running.
(exec "${into_root[@]}" gammalab-server --listen 127.0.0.1:0 --http "127.0.0.1:$port" --db /tmp/gammalab.db \
  --shared-root /tmp/shared >"$tmp/server.log" 2>&1) &
server_pid=$!
healthy=""
for _ in $(seq 600); do
  if inside curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null; then healthy=yes; break; fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$healthy" ] || { cat "$tmp/server.log" >&2; fail "the installed server's /healthz never answered"; }
page="$(inside curl -fsS "http://127.0.0.1:$port/")" || fail "the installed server's dashboard page: curl failed"
grep -q '<title>gammalab' <<<"$page" || fail "the installed server's dashboard page has no gammalab title: ${page:0:200}"
# Every script and style the page loads: its entry module, each module it preloads (index.html names every one of
# app.js's import graph, web/test/modulepreload.test.js), uPlot's included, and the styles.
modules="$(grep -o 'modulepreload" href="/[^"]*"' <<<"$page" | sed 's|.*href="/||; s|"$||')"
[ -n "$modules" ] || fail "the installed server's dashboard page preloads no module: ${page:0:200}"
for asset in app.js $modules style.css vendor/uplot/uPlot.min.css; do
  inside curl -fsS -o /dev/null "http://127.0.0.1:$port/$asset" || fail "the installed server does not serve /$asset"
done
kill -KILL "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true
server_pid=""

# 5. Purged, as an administrator would: the settings files (the worker token among them) and the user go; the
#    database directory, which is data, stays.
mkdir -p "$root/var/lib/gammalab" && echo keep >"$root/var/lib/gammalab/gammalab.db"
inside dpkg --purge gammalab-server gammalab-worker gammalab-cli gammalab-trainer gammalab-common >"$tmp/purge.log" 2>&1 ||
  { cat "$tmp/purge.log" >&2; fail "dpkg --purge"; }
[ ! -e "$root/etc/gammalab/worker.env" ] || fail "purge left /etc/gammalab/worker.env (the worker token)"
[ ! -e "$root/etc/gammalab" ] || fail "purge left /etc/gammalab: $(ls -A "$root/etc/gammalab")"
inside getent passwd gammalab >/dev/null && fail "purge left the gammalab user"
inside getent group gammalab >/dev/null && fail "purge left the gammalab group"
[ "$(cat "$root/var/lib/gammalab/gammalab.db")" = keep ] || fail "purge removed the database"
echo "packages: cpack made ${#debs[@]}; installed into Debian 12 with apt: --version, validate, health check," \
     "dashboard, trainer, worker, user, settings files and unit all as installed; purged: settings and user gone," \
     "database kept"
