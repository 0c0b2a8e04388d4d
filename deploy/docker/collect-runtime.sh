#!/usr/bin/env bash
# Gathers what the coordinator image's runtime stage copies, from a build: OUT/usr/local, the install layout of
# the server, the CLI and their shared files (cmake --install, cmake/install.cmake: bin/, share/gammalab/configs
# and web/, the same layout as the Debian packages under /usr), and OUT/runtime-packages.txt, the Debian packages
# that own every shared library the binaries load (ldd, then dpkg -S), so the image installs exactly those.
# Fails naming any library no package owns. Used by Dockerfile.coordinator's build stage and by the image test.
# Usage: collect-runtime.sh OUT BUILD_DIR
set -euo pipefail
out="${1:?usage: collect-runtime.sh OUT BUILD_DIR}"
build="${2:?usage: collect-runtime.sh OUT BUILD_DIR}"
for component in common server cli; do
  cmake --install "$build" --prefix "$out/usr/local" --component "$component" >/dev/null
done

owner() {  # the package that owns a library path; merged /usr means ldd and dpkg may spell it apart
  local lib="$1" real
  real="$(readlink -f "$lib")"
  for path in "$lib" "/usr$lib" "$real" "${real#/usr}"; do
    dpkg-query -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1 && return 0
  done
  echo "collect-runtime: no Debian package owns $lib" >&2
  return 1
}
libs="$(for b in "$out"/usr/local/bin/*; do ldd "$b"; done | awk '/=> \//{print $3}' | sort -u)"
for lib in $libs; do owner "$lib"; done | sort -u > "$out/runtime-packages.txt"
[ -s "$out/runtime-packages.txt" ]
