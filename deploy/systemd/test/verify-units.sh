#!/usr/bin/env bash
# Checks the systemd units with systemd itself: `systemd-analyze verify` (syntax, every key known, the commands
# exist) must pass without a single warning, and `systemd-analyze security --offline` must rate each unit's
# exposure at most 3.0 ("OK"; --threshold counts in tenths). The units start the installed binaries by name
# (systemd looks in /usr/local/bin and /usr/bin); the check runs on a copy rendered to the build's binaries. It first proves it can fail: a misspelled key must be reported.
# Usage: verify-units.sh BUILD_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:?usage: verify-units.sh BUILD_DIR}" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

render() {  # SRC DEST: the unit with ExecStart on the build's binaries
  sed -e "s|^ExecStart=gammalab-server|ExecStart=$build/server/gammalab-server|" \
      -e "s|^ExecStart=gammalab-worker|ExecStart=$build/worker/gammalab-worker|" "$1" > "$2"
  grep -q "^ExecStart=$build/" "$2" || { echo "FAIL: $1: no ExecStart naming a gammalab binary" >&2; exit 1; }
}
render "$here/gammalab-server.service" "$tmp/gammalab-server.service"
# A template is verified as an instance: %i and the per-instance environment file resolve.
render "$here/gammalab-worker@.service" "$tmp/gammalab-worker@gpu0-3.service"

verify() {  # UNIT...: passes only when systemd-analyze verify exits 0 and prints nothing
  local out
  out="$(cd "$tmp" && systemd-analyze verify "$@" 2>&1)" || { echo "$out"; return 1; }
  [ -z "$out" ] || { echo "$out"; return 1; }
}

sed 's/^NoNewPrivileges=/NoNewPrivilegs=/' "$tmp/gammalab-server.service" > "$tmp/misspelled.service"
if verify ./misspelled.service >/dev/null; then
  echo "FAIL: systemd-analyze verify accepted a misspelled key; this check proves nothing here" >&2
  exit 1
fi

status=0
verify ./gammalab-server.service ./gammalab-worker@gpu0-3.service || { echo "FAIL: systemd-analyze verify" >&2; status=1; }
for unit in gammalab-server.service gammalab-worker@gpu0-3.service; do
  if ! (cd "$tmp" && systemd-analyze security --offline=yes --threshold=30 "./$unit" > "$tmp/security.txt" 2>&1); then
    tail -n 3 "$tmp/security.txt"
    echo "FAIL: $unit: exposure above 3.0" >&2
    status=1
  else
    grep -o 'Overall exposure level for .*' "$tmp/security.txt"
  fi
done
# Every hardening promise the guide makes holds in both units.
for key in User=gammalab NoNewPrivileges=yes ProtectSystem=strict ReadWritePaths= CapabilityBoundingSet=; do
  for unit in "$here/gammalab-server.service" "$here/gammalab-worker@.service"; do
    grep -q "^$key" "$unit" || { echo "FAIL: $(basename "$unit") lacks $key" >&2; status=1; }
  done
done
# Plaintext on every interface is never the default.
if grep -Eq '^GAMMALAB_(LISTEN|HTTP)=0\.0\.0\.0' "$here/server.env"; then
  echo "FAIL: server.env listens on 0.0.0.0 by default" >&2
  status=1
fi
# The coordinator's unit never reads the file with the worker token, and only that file has one.
if grep -q '^EnvironmentFile=.*worker' "$here/gammalab-server.service"; then
  echo "FAIL: gammalab-server.service reads worker.env (the worker token)" >&2
  status=1
fi
for file in gammalab.env server.env; do
  if grep -q '^GAMMALAB_TOKEN' "$here/$file"; then
    echo "FAIL: $file holds GAMMALAB_TOKEN; the coordinator's unit reads it" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "systemd units: verify and security checks passed"
exit $status
