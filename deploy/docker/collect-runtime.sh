#!/usr/bin/env bash
# Gathers what the coordinator image's runtime stage copies, from a build: OUT/bin (gammalab-server, gammalab),
# OUT/web (the dashboard's files and uPlot) and OUT/runtime-packages.txt, the Debian packages that own every
# shared library the binaries load (ldd, then dpkg -S), so the image installs exactly those. Fails naming any
# library no package owns. Used by Dockerfile.coordinator's build stage and by the image test.
# Usage: collect-runtime.sh OUT BUILD_DIR SOURCE_DIR
set -euo pipefail
out="${1:?usage: collect-runtime.sh OUT BUILD_DIR SOURCE_DIR}"
build="${2:?}"
src="${3:?}"
mkdir -p "$out/bin" "$out/web/node_modules"
cp "$build/server/gammalab-server" "$build/cli/gammalab" "$out/bin/"
cp "$src"/web/*.html "$src"/web/*.js "$src"/web/*.css "$out/web/"
cp -r "$src/web/node_modules/uplot" "$out/web/node_modules/"

owner() {  # the package that owns a library path; merged /usr means ldd and dpkg may spell it apart
  local lib="$1" real
  real="$(readlink -f "$lib")"
  for path in "$lib" "/usr$lib" "$real" "${real#/usr}"; do
    dpkg-query -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1 && return 0
  done
  echo "collect-runtime: no Debian package owns $lib" >&2
  return 1
}
libs="$(for b in "$out"/bin/*; do ldd "$b"; done | awk '/=> \//{print $3}' | sort -u)"
for lib in $libs; do owner "$lib"; done | sort -u > "$out/runtime-packages.txt"
[ -s "$out/runtime-packages.txt" ]
