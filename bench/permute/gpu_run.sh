#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gpu_run.sh - one device job for the permute library: build (nvcc/gcc
# directly, so unrelated work in the tree cannot break it), run the CPU test,
# the GPU tests (with the two >2^31-element u8 cases), a compute-sanitizer
# pass on a quick subset, then the benchmark and its PyTorch peer.
# Logs and tables go to $OUT (7 files: gpu.txt build.log test_gpu.log
# sanitizer.log bench.log bench_permute.csv combined.md). Run from the
# repository root: bash bench/permute/gpu_run.sh
set -u
OUT=${OUT:-/tmp/permute_out}
mkdir -p "$OUT"
B=/tmp/permute_build
mkdir -p $B
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee $OUT/gpu.txt
NV="nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude --expt-relaxed-constexpr -Xcompiler=-Wall,-Wextra"
CC="gcc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Iinclude"
t0=$(date +%s)
( $CC -c runtime/core.c -o $B/core.o &&
  $CC -c runtime/copy_cpu.c -o $B/copy_cpu.o &&
  $CC -c runtime/cpu/permute_cpu.c -o $B/permute_cpu.o &&
  $CC -c tests/permute/permute_cpu_test.c -o $B/permute_cpu_test.o ) > $B/build_c.log 2>&1 &
$NV -c runtime/cuda/cuda_core.cu -o $B/cuda_core.o > $B/build1.log 2>&1 &
$NV -Xptxas -v -c runtime/cuda/permute_kernels.cu -o $B/permute_kernels.o > $B/build2.log 2>&1 &
$NV -c runtime/cuda/copy_strided.cu -o $B/copy_strided.o > $B/build3.log 2>&1 &
$NV -c tests/permute/permute_gpu_test.cu -o $B/permute_gpu_test.o > $B/build4.log 2>&1 &
$NV -c bench/permute/bench_permute.cu -o $B/bench_permute.o > $B/build5.log 2>&1 &
wait
cat $B/build_c.log $B/build[1-5].log > $OUT/build.log
grep -iE "error|warning" $OUT/build.log | head -20
LIB="$B/core.o $B/copy_cpu.o $B/permute_cpu.o $B/cuda_core.o $B/permute_kernels.o $B/copy_strided.o"
gcc -o $B/permute_cpu_test $B/permute_cpu_test.o $B/core.o $B/copy_cpu.o $B/permute_cpu.o -lm || exit 1
nvcc -arch=sm_90 -o $B/permute_gpu_test $B/permute_gpu_test.o $LIB || exit 1
nvcc -arch=sm_90 -o $B/bench_permute $B/bench_permute.o $LIB || exit 1
echo "build: $(( $(date +%s) - t0 )) s"

t0=$(date +%s)
$B/permute_cpu_test 2>&1 | tail -3
$B/permute_gpu_test fastdiv 2>&1 | tail -2
$B/permute_gpu_test big > $OUT/test_gpu.log 2>&1; rc=$?
tail -5 $OUT/test_gpu.log; echo "permute_gpu_test big: rc=$rc, $(( $(date +%s) - t0 )) s"
grep FAIL $OUT/test_gpu.log | head -20

t0=$(date +%s)
timeout 60 compute-sanitizer --tool memcheck --print-limit 10 $B/permute_gpu_test quick > $OUT/sanitizer.log 2>&1
echo "compute-sanitizer memcheck (quick): rc=$? $(( $(date +%s) - t0 )) s"; tail -4 $OUT/sanitizer.log

$B/bench_permute $OUT/bench_permute.csv 2>&1 | tee $OUT/bench.log
PYTHONUNBUFFERED=1 python3 bench/permute/torch_permute.py $OUT/bench_permute.csv $OUT/combined.md 2>&1 | tail -25
