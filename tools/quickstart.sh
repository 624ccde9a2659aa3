#!/bin/sh
# quickstart.sh - install what is missing (as root), build pac and its
# runtime, and run the main example: the paper's matrix product on one CPU
# thread (figure 8), a 2x2 pthd array (figure 10), 4 MPI processes, and the
# GPU (figure 13) when the machine has one. Each stage checks itself.
set -eu
cd "$(dirname "$0")/.."
sh tools/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >build.log 2>&1 || { tail -30 build.log; exit 1; }
cmake --build build >>build.log 2>&1 || { tail -30 build.log; exit 1; }
echo "built: build/bin/pac, build/bin/pacc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/bin/pacc -O2 examples/matmul_1_cpu.pc -o "$tmp/m1" && "$tmp/m1"
build/bin/pacc -O2 examples/matmul_2_pthd.pc -o "$tmp/m2" && "$tmp/m2"
build/bin/pacc -O2 examples/matmul_3_mpi.pc -o "$tmp/m3" &&
  mpirun --allow-run-as-root --oversubscribe -np 4 "$tmp/m3"
if nvidia-smi -L 2>/dev/null | grep -q '^GPU' && [ -e build/lib/libparray_cuda.a ]; then
  build/bin/pacc -O2 examples/matmul_4_gpu.pc -o "$tmp/m4" && "$tmp/m4"
else
  echo "stage 4 (GPU): skipped, no GPU on this machine"
fi
