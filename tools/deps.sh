#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# deps.sh - install what building pac and running Parray programs need on
# Debian/Ubuntu: a C compiler and binutils (pacc reads objects with readelf),
# CMake, Ninja, flex, bison, and Open MPI (mpi thread arrays). Where the CUDA
# toolkit is present but NCCL's header is not (neither in the toolkit nor in
# the system), the PyPI wheel nvidia-nccl-cu13 (cu12 for CUDA 12), the
# transport of distributed device arrays (cmake/ParrayNccl.cmake finds it).
# The tools that only the test suite uses are installed by tools/deps-test.sh.
# Run as root (installs what is missing); as another user it installs nothing
# and stops, naming what is missing, only when building is impossible.
set -eu
need=""
for c in cc cmake ninja flex bison mpicc mpirun readelf; do
  command -v "$c" >/dev/null 2>&1 || need="$need $c"
done
# NCCL: the CUDA toolkit's, the system's, or the wheel's
nccl=""
if command -v nvcc >/dev/null 2>&1; then
  cuda=$(dirname "$(dirname "$(command -v nvcc)")")
  if [ ! -e "$cuda/include/nccl.h" ] && [ ! -e /usr/include/nccl.h ] && [ ! -e /usr/local/include/nccl.h ] &&
    ! python3 -c "import nvidia.nccl" >/dev/null 2>&1; then
    v=$(nvcc --version | sed -n 's/.*release \([0-9][0-9]*\)\..*/\1/p')
    [ "${v:-13}" -ge 13 ] && nccl=nvidia-nccl-cu13 || nccl=nvidia-nccl-cu12
  fi
fi
if [ "$(id -u)" != 0 ]; then
  [ -z "$nccl" ] || echo "note: NCCL is not installed, so distributed device arrays move through host memory (pip install $nccl)" >&2
  [ -z "$need" ] || { echo "missing:$need -- run this script as root (or install them) first" >&2; exit 1; }
  exit 0
fi
[ -n "$need$nccl" ] || exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ -n "$need" ]; then
  apt-get install -y -qq --no-install-recommends build-essential binutils cmake ninja-build flex bison \
    openmpi-bin libopenmpi-dev >/dev/null
fi
if [ -n "$nccl" ]; then
  python3 -m pip --version >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
  python3 -m pip install -q "$nccl" 2>/dev/null || python3 -m pip install -q --break-system-packages "$nccl" ||
    echo "note: pip could not install $nccl; distributed device arrays will move through host memory" >&2
fi
