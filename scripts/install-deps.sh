#!/usr/bin/env bash
# Installs every Debian 12 package Lowerscope needs to build, test and run (idempotent).
# Usage: scripts/install-deps.sh [--gui-test]   (run as root or with sudo available)
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config git ccache
  libsimdjson-dev libflatbuffers-dev flatbuffers-compiler
  libcli11-dev libfmt-dev libstb-dev libdtl-dev libopenblas-dev
  libmimalloc-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  libimgui-dev libglfw3-dev libgl-dev
  xvfb xauth libgl1-mesa-dri fonts-dejavu-core
  python3-torch python3-torchvision python3-torchaudio
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
