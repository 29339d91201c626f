#!/usr/bin/env bash
# install-deps.sh [MORE_PACKAGE...]
# Installs what the build needs on Debian 12 / Ubuntu 24.04 (idempotent: does nothing when all is there),
# and the apt packages named as arguments (.ci/run adds Slurm's).
# The CUDA toolkit itself comes from NVIDIA (https://developer.nvidia.com/cuda-downloads); this script
# only checks that nvcc is reachable and says where to look if not.
set -euo pipefail

packages=(cmake ninja-build g++ catch2 libbenchmark-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
          doxygen python3-jsonschema ccache "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! command -v nvcc >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    if [ -x "$d/nvcc" ]; then
      echo "install-deps: note: nvcc is in $d but not on PATH (CMake finds it there; to use it yourself: export PATH=$d:\$PATH)"
      exit 0
    fi
  done
  echo "install-deps: the CUDA toolkit (nvcc, 12.4 or newer) is missing: install it from NVIDIA" >&2
  exit 1
fi
