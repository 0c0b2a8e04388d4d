#!/usr/bin/env bash
# Downloads, into .gpu-deps/, the Debian packages that the trainer-only build needs and a GPU machine with PyTorch
# (but no Debian development packages, and no network) lacks: headers and small libraries for core, the trainer,
# its tests and benchmarks. scripts/gpu_check.sh unpacks them there. Also two wheels from the Python package index,
# the CUDA headers that LibTorch's own CUDA headers include and that pip installs with torch only on request
# (cmake/torch.cmake), for the CUDA version of the PyTorch pinned in scripts/python-requirements.txt; gpu_check.sh
# installs them into that machine's PyTorch environment when it lacks them. Run here, where apt and pip work;
# carry .gpu-deps.
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
mkdir -p wheels
rm -f wheels/*.whl
python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest wheels \
  $(grep -E '^nvidia-cuda-(crt|cccl)==' ../scripts/python-requirements.txt)
echo "gpu_bundle: $(ls ./*.deb | wc -l) packages and $(ls wheels/*.whl | wc -l) wheels in .gpu-deps ($(du -sh . | cut -f1))"
