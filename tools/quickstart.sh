#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# quickstart.sh - install what is missing, build pac and its runtime, and run
# the main example: the paper's matrix product on one CPU thread (figure 8), a
# 2x2 pthd array (figure 10), 4 MPI processes, and the GPU (figure 13) when the
# machine has one. Each stage checks itself; this script prints its PASS line
# with the stage's time and GFLOP/s.
# Run it as root, or as a user with sudo: it uses sudo only when it is not root
# and sudo exists (a fresh Debian as root has no sudo).
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then
  sh tools/deps.sh
elif command -v sudo >/dev/null 2>&1; then
  sudo sh tools/deps.sh
else
  sh tools/deps.sh # not root and no sudo: it lists what is missing
fi

# build, showing progress; the whole log is kept in build/quickstart.log
step() { # LABEL COMMAND...: run COMMAND into the log and the terminal, stop on failure
  label=$1; shift
  echo "== $label"
  rcfile=$(mktemp)
  { if "$@" 2>&1; then r=0; else r=$?; fi; echo "$r" >"$rcfile"; } | tee -a build/quickstart.log
  rc=$(cat "$rcfile"); rm -f "$rcfile"
  [ "$rc" = 0 ] || { echo "quickstart: $label failed (exit $rc); the log is in build/quickstart.log" >&2; exit 1; }
}
mkdir -p build && : >build/quickstart.log
step "configure" cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
step "build (pac, pacc, libparray)" cmake --build build
echo "built: build/bin/pac, build/bin/pacc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s%N; }
# stage PROGRAM N [LAUNCHER...]: run it, time it, print its PASS/FAIL line
# with the time and the GFLOP/s of the N x N x N product (2 N^3 flops). The
# time is the whole run of the program, setup and the check included, so the
# rate is a lower bound.
stage() {
  prog=$1 n=$2; shift 2
  t0=$(now)
  "$@" "$prog" >"$tmp/out" || { cat "$tmp/out"; echo "quickstart: $prog failed" >&2; exit 1; }
  t1=$(now)
  awk -v ns=$((t1 - t0)) -v n="$n" '{
    s = ns / 1e9; printf "%s   %8.3f s  %8.2f GFLOP/s\n", $0, s, 2 * n * n * n / s / 1e9 }' "$tmp/out"
  grep -q PASS "$tmp/out"
}
order() { sed -n 's/^#define N \([0-9][0-9]*\).*/\1/p' "$1" | head -n 1; }
build/bin/pacc -O2 examples/matmul_1_cpu.pc -o "$tmp/m1"
stage "$tmp/m1" "$(order examples/matmul_1_cpu.pc)"
build/bin/pacc -O2 examples/matmul_2_pthd.pc -o "$tmp/m2"
stage "$tmp/m2" "$(order examples/matmul_2_pthd.pc)"
build/bin/pacc -O2 examples/matmul_3_mpi.pc -o "$tmp/m3"
stage "$tmp/m3" "$(order examples/matmul_3_mpi.pc)" mpirun --allow-run-as-root --oversubscribe -np 4
if nvidia-smi -L 2>/dev/null | grep -q '^GPU' && [ -e build/lib/libparray_cuda.a ]; then
  build/bin/pacc -O2 examples/matmul_4_gpu.pc -o "$tmp/m4"
  stage "$tmp/m4" "$(order examples/matmul_4_gpu.pc)"
else
  echo "stage 4 (GPU): skipped, no GPU on this machine"
fi
