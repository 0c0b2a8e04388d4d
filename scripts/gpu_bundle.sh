#!/usr/bin/env bash
# Downloads, into .gpu-deps/, the Debian packages that the trainer-only build needs and a GPU machine with PyTorch
# (but no Debian development packages, and no network) lacks: headers and small libraries for core, the trainer,
# its tests and benchmarks. scripts/gpu_check.sh unpacks them there. Run here, where apt works; carry .gpu-deps.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  nlohmann-json3-dev libcli11-dev
  libyaml-cpp-dev libyaml-cpp0.7
  libabsl-dev libabsl20220623
  zlib1g-dev                 # checkpoint checksums (zlib1g itself is on every machine)
  libgtest-dev libbenchmark-dev libbenchmark1debian
  libsleef-dev libsleef3
)
mkdir -p .gpu-deps
cd .gpu-deps
rm -f ./*.deb
apt-get download "${packages[@]}"
echo "gpu_bundle: $(ls ./*.deb | wc -l) packages in .gpu-deps ($(du -sh . | cut -f1))"
