#!/usr/bin/env bash
# Times the README's `make demo` as a new user meets it: a fresh Debian 12 root (mmdebstrap minbase, plus only
# git, make and CA certificates to fetch and start it), a clone of this repository's HEAD, then `make demo` in
# it as root, downloads included (Debian packages, npm packages, the corpus). Prints the wall time to the
# verdict and leaves the output in OUT/demo.log. Not part of `make test`: it takes as long as a fresh machine
# does. Needs root (mmdebstrap --mode=root, chroot).
# Usage: scripts/fresh_machine_demo.sh OUT
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${1:?usage: fresh_machine_demo.sh OUT}" && cd "$1" && pwd)"
[ "$(id -u)" = 0 ] || { echo "fresh_machine_demo: needs root" >&2; exit 1; }
root="$out/root"
rm -rf "$root"
mmdebstrap --quiet --variant=minbase --mode=root --include=git,make,ca-certificates bookworm "$root"
git clone --quiet "$src" "$root/src"
# A network whose proxy signs TLS with its own authority (the host trusts it through
# /usr/local/share/ca-certificates): the fresh root trusts the same, as its administrator would set up.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null
fi
# The root's own /proc, /sys and /dev (the trainer reads /proc/self/exe; apt and npm need /dev/null), and the
# host's name resolution, in a mount namespace of their own so nothing outlives the run.
start=$(date +%s)
status=0
unshare --mount --fork --kill-child=TERM -- sh -c '
  mount -t proc proc "$0/proc" && mount --rbind /sys "$0/sys" && mount --rbind /dev "$0/dev" &&
  cp /etc/resolv.conf "$0/etc/resolv.conf" &&
  exec chroot "$0" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt sh -c "cd /src && make demo"' \
  "$root" >"$out/demo.log" 2>&1 || status=$?
end=$(date +%s)
elapsed=$((end - start))
printf 'make demo on a fresh Debian 12 root: exit %d after %d min %d s (log: %s)\n' \
  "$status" $((elapsed / 60)) $((elapsed % 60)) "$out/demo.log"
exit $status
