#!/usr/bin/env bash
# Builds the coordinator image with Debian's buildah and runs the image's own HEALTHCHECK against the server in
# it. The image is Dockerfile.coordinator's runtime stage: its binaries are this build's (passed in as an image,
# BINARIES=...), so the test costs no compile; its base is a Debian 12 minbase made by mmdebstrap from the
# Debian archive (cached as an image), the same content as debian:12-slim, so nothing comes from another
# registry. Runs with --isolation chroot: this machine cannot start OCI containers (docs/deploy.md).
# Usage: coordinator-image.sh BUILD_DIR
set -euo pipefail
src="$(cd "$(dirname "$0")/../../.." && pwd)"
build="$(cd "${1:?usage: coordinator-image.sh BUILD_DIR}" && pwd)"
for tool in buildah mmdebstrap python3; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool not installed (scripts/deps.sh installs it)" >&2; exit 1; }
done
base=localhost/gammalab-test/debian:12-minbase
tag="$$"
binaries=localhost/gammalab-test/binaries:$tag
image=localhost/gammalab-test/coordinator:$tag
tmp="$(mktemp -d)"
ctrs=()
cleanup() {
  for c in "${ctrs[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done
  # --force: also the working containers buildah bud leaves for the FROM-only "binaries" stage
  for i in "$image" "$binaries"; do buildah rmi --force "$i" >/dev/null 2>&1 || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
isolation=(--isolation chroot)

# 1. The Debian 12 base, made once.
if ! buildah inspect --type image "$base" >/dev/null 2>&1; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/gammalab/images"
  mkdir -p "$cache"
  if [ ! -f "$cache/debian12-minbase.tar" ]; then
    echo "image test: making a Debian 12 minbase with mmdebstrap (once)"
    mmdebstrap --quiet --variant=minbase --mode=root bookworm "$cache/debian12-minbase.tar.partial"
    mv "$cache/debian12-minbase.tar.partial" "$cache/debian12-minbase.tar"
  fi
  c="$(buildah from scratch)"; ctrs+=("$c")
  buildah add --quiet "$c" "$cache/debian12-minbase.tar" / >/dev/null
  buildah config --cmd /bin/bash "$c"
  buildah commit --quiet "$c" "$base" >/dev/null
fi

# 2. This build's binaries as an image, then the runtime stage on top of the base.
"$src/deploy/docker/collect-runtime.sh" "$tmp/out" "$build"
c="$(buildah from scratch)"; ctrs+=("$c")
buildah copy --quiet "$c" "$tmp/out" /out >/dev/null
buildah commit --quiet "$c" "$binaries" >/dev/null
mkdir "$tmp/context"
buildah bud --quiet "${isolation[@]}" --format docker --target runtime \
  --build-arg BINARIES="$binaries" --build-arg DEBIAN_SLIM_IMAGE="$base" \
  -f "$src/deploy/docker/Dockerfile.coordinator" -t "$image" "$tmp/context" >/dev/null

# 3. What the image promises: a non-root user, a health check, the server as entry point.
check="$(buildah inspect --type image "$image" | python3 -c '
import json, sys
config = json.load(sys.stdin)["Docker"]["config"]
problems = []
if config.get("User") != "10001:10001": problems.append("user %r, not 10001:10001" % config.get("User"))
if config.get("Entrypoint") != ["/usr/local/bin/gammalab-server"]: problems.append("entry point %r" % config.get("Entrypoint"))
test = (config.get("Healthcheck") or {}).get("Test") or []
if len(test) != 2 or test[0] != "CMD-SHELL": problems.append("health check %r" % test)
if problems: sys.exit("FAIL: the image has " + "; ".join(problems))
print(test[1])
')"

# 4. The health check, run in the image as its user: it fails with no server, passes once the server is up.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
c="$(buildah from --quiet "$image")"; ctrs+=("$c")
run() { buildah run "${isolation[@]}" --user 10001:10001 --env GAMMALAB_HTTP_PORT="$port" "$c" -- /bin/sh -c "$1"; }
if run "( $check )" 2>/dev/null; then
  echo "FAIL: the health check passed with no server running" >&2
  exit 1
fi
run "gammalab-server --listen 127.0.0.1:0 --http 127.0.0.1:$port --db /var/lib/gammalab/gammalab.db \
       --shared-root /shared/gammalab --log-format json \
       >/dev/null 2>/tmp/server.log &
     pid=\$!
     healthy=1
     i=0
     while [ \$i -lt 600 ]; do
       if ( $check ) 2>/dev/null; then healthy=0; break; fi
       kill -0 \$pid 2>/dev/null || break
       i=\$((i + 1)); sleep 0.1
     done
     # The dashboard's files, found beside the binary (share/gammalab/web) without --web-root.
     if [ \$healthy -eq 0 ] && ! curl -fsS http://127.0.0.1:$port/ | grep -q '<title>gammalab'; then
       echo 'FAIL: the dashboard is not served from the install layout' >&2; healthy=1
     fi
     kill \$pid 2>/dev/null; wait \$pid
     [ \$healthy -eq 0 ] || { echo 'FAIL: the health check never passed; server log:' >&2; cat /tmp/server.log >&2; }
     exit \$healthy"
echo "coordinator image: built with buildah, runs as 10001:10001, its HEALTHCHECK passes against its server"
