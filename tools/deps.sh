#!/bin/sh
# deps.sh - install what pac needs on Debian/Ubuntu (run as root): a C
# compiler, CMake, Ninja, flex, bison, Open MPI, and for the tests csmith and
# GCC's source (gcc-12-source, whose C torture suite the torture tests run).
# Installs nothing when not root (prints what is missing instead; without
# GCC's source the torture tests report themselves skipped).
set -eu
need=""
for c in cc cmake ninja flex bison mpicc mpirun csmith bc; do
  command -v "$c" >/dev/null 2>&1 || need="$need $c"
done
gccsrc=""
ls /usr/src/gcc-*/gcc-[0-9]*.tar.* >/dev/null 2>&1 || gccsrc=gcc-12-source
if [ "$(id -u)" != 0 ]; then
  [ -z "$gccsrc" ] || echo "note: gcc-12-source is not installed, so the torture tests will be skipped (run this script as root to install it)" >&2
  [ -z "$need" ] || { echo "missing:$need -- run this script as root (or install them) first" >&2; exit 1; }
  exit 0
fi
[ -n "$need$gccsrc" ] || exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ -n "$need" ]; then
  apt-get install -y -qq --no-install-recommends build-essential cmake ninja-build flex bison \
    openmpi-bin libopenmpi-dev csmith libcsmith-dev bc >/dev/null
fi
if [ -n "$gccsrc" ]; then
  apt-get install -y -qq --no-install-recommends "$gccsrc" >/dev/null
fi
