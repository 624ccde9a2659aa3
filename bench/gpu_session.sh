#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gpu_session.sh - one call on the GPU machine: build everything for the GPU
# there (with a pre-generated scanner and parser when flex/bison are absent),
# run every GPU test and the GPU conformance programs, then the benchmarks
# (pac-generated kernels vs hand-written CUDA; the kernel library vs copy and
# PyTorch; SGEMM vs cuBLAS). Logs go to $OUT; a summary is printed last.
#   PART=1|2|3|4|5 OUT=... bash bench/gpu_session.sh     (repository root)
set -u
OUT=${OUT:-/tmp/session}
PART=${PART:-1}
mkdir -p "$OUT"
ROOT=$PWD
B=$ROOT/build-gpu
T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s"; }
# the GPU tests, then the GPU conformance programs (logs in $OUT)
gpu_checks() {
  (cd "$B" && ctest -L gpu -j 4 --output-on-failure --timeout 400 >"$OUT/tests.log" 2>&1)
  bash .carry/conformance/run "$B/bin/pacc" gpu >"$OUT/conformance.log" 2>&1
}
# the translator's speed on this machine's cores (bench/translate)
translation_speed() {
  echo "=== translation speed ($(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2))"
  sh bench/translate/bench_translate.sh "$B" 20000 | tee "$OUT/translate.txt"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
. "$ROOT/bench/device_env.sh" # cmake on PATH, GEN, FE
if [ ! -x "$B/bin/pacc" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPARRAY_WITH_MPI=OFF \
    -DPARRAY_SGEMM_VARIANTS=${SGEMM_VARIANTS:-ON} $FE >"$OUT/build.log" 2>&1
fi
cmake --build "$B" -j 16 >>"$OUT/build.log" 2>&1 || { echo "BUILD FAILED"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
echo "build done: $(el)"

if [ "$PART" = 1 ]; then
  # tests and conformance (correctness only, so they may share the GPU)
  (cd "$B" && ctest -L gpu -j 4 --output-on-failure --timeout 400 >"$OUT/tests.log" 2>&1) &
  bash .carry/conformance/run "$B/bin/pacc" gpu >"$OUT/conformance.log" 2>&1 &
  wait
  echo "tests and conformance done: $(el)"
  # benchmarks, alone on the GPU
  "$B/bin/pacc" -O2 bench/cuda/matmul_gpu_bench.pc -o /tmp/mmg && /tmp/mmg >"$OUT/matmul_gpu.txt" 2>&1
  "$B/bin/pacc" -O2 examples/matmul_4_gpu.pc -o /tmp/mm4 && /tmp/mm4 >"$OUT/example.txt" 2>&1
  echo "=== GPU tests";        grep -E "tests passed|tests failed|\*\*\*Failed|Skipped|Not Run" "$OUT/tests.log" | head -30
  echo "=== conformance";      cat "$OUT/conformance.log"
  echo "=== example";          cat "$OUT/example.txt"
  echo "=== matmul bench";     cat "$OUT/matmul_gpu.txt"
elif [ "$PART" = 4 ]; then
  # everything GPU once more after the last changes, then the two benchmarks they touch
  gpu_checks
  "$B/bin/pacc" -O2 bench/cuda/matmul_gpu_bench.pc -o /tmp/mmg && /tmp/mmg >"$OUT/matmul_gpu.txt" 2>&1
  "$B/bin/bench_kernels" >"$OUT/kbench.csv" 2>"$OUT/kbench.err"
  PYTHONUNBUFFERED=1 python3 bench/kernels/torch_kernels.py >"$OUT/ktorch.csv" 2>>"$OUT/kbench.err"
  python3 bench/kernels/compare.py "$OUT/kbench.csv" "$OUT/ktorch.csv" >"$OUT/kernels_table.txt" 2>&1
  echo "=== GPU tests";   grep -E "tests passed|tests failed|\*\*\*Failed" "$OUT/tests.log" | head -30
  echo "=== conformance"; cat "$OUT/conformance.log"
  echo "=== matmul bench"; cat "$OUT/matmul_gpu.txt"
  echo "=== reductions"; grep -E "sum" "$OUT/kernels_table.txt"
elif [ "$PART" = 5 ]; then
  # correctness after a translator change: the GPU tests, the GPU conformance
  # programs, and the translation speed (the change must not slow pac down)
  gpu_checks
  echo "=== GPU tests";   grep -E "tests passed|tests failed|\*\*\*Failed|Passed|Skipped" "$OUT/tests.log" | head -40
  echo "=== conformance"; tail -3 "$OUT/conformance.log"
  translation_speed
elif [ "$PART" = 3 ]; then
  # the GPU tests again, then CPU benchmarks on this machine's idle cores
  gpu_checks
  echo "=== GPU tests";   grep -E "tests passed|tests failed|\*\*\*Failed" "$OUT/tests.log" | head -30
  echo "=== conformance"; tail -1 "$OUT/conformance.log"
  translation_speed
  echo "=== figure 8 vs hand-indexed"
  "$B/bin/pacc" -O2 bench/matmul/matmul_bench.pc -o /tmp/mmb && /tmp/mmb | tee "$OUT/matmul_cpu.txt"
  echo "=== pthd detour vs libgomp"
  [ -x "$B/bin/bench_pthd" ] && timeout 200 "$B/bin/bench_pthd" 31 2>&1 | tail -25 | tee "$OUT/pthd.txt"
else
  "$B/bin/bench_kernels" >"$OUT/kbench.csv" 2>"$OUT/kbench.err"
  PYTHONUNBUFFERED=1 python3 bench/kernels/torch_kernels.py >"$OUT/ktorch.csv" 2>>"$OUT/kbench.err"
  python3 bench/kernels/compare.py "$OUT/kbench.csv" "$OUT/ktorch.csv" >"$OUT/kernels_table.txt" 2>&1
  echo "kernels done: $(el)"
  "$B/bin/bench_permute" "$OUT/permute.csv" >"$OUT/permute.log" 2>&1
  PYTHONUNBUFFERED=1 python3 bench/permute/torch_permute.py "$OUT/permute.csv" "$OUT/permute.md" >>"$OUT/permute.log" 2>&1
  echo "permute done: $(el)"
  NVIDIA_TF32_OVERRIDE=0 timeout 200 "$B/bin/bench_sgemm" -s 1024,2048,4096,8192 -r 20 -v -o "$OUT/sgemm.csv" >"$OUT/sgemm.log" 2>&1
  echo "sgemm done: $(el)"
  echo "=== kernels";  cat "$OUT/kernels_table.txt"
  echo "=== permute";  tail -30 "$OUT/permute.md"
  echo "=== sgemm";    tail -40 "$OUT/sgemm.log"
fi
echo "total $(el)"
