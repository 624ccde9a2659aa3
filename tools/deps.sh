#!/bin/sh
# deps.sh - install what pac needs on Debian/Ubuntu (run as root): a C
# compiler, CMake, Ninja, flex, bison, Open MPI, and csmith for the tests.
# Installs nothing when not root (prints what is missing instead).
set -eu
need=""
for c in cc cmake ninja flex bison mpicc mpirun csmith bc; do
  command -v "$c" >/dev/null 2>&1 || need="$need $c"
done
[ -n "$need" ] || exit 0
if [ "$(id -u)" != 0 ]; then
  echo "missing:$need -- run this script as root (or install them) first" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends build-essential cmake ninja-build flex bison \
  openmpi-bin libopenmpi-dev csmith libcsmith-dev bc >/dev/null
