#!/bin/bash
# gpu_run.sh - everything the kernel library needs from one device call:
# build (plain nvcc, or the project's CMake with KERN_CMAKE=1) for sm_90, run
# the CPU and GPU tests, time the engine's tuning variants, the benchmark and
# PyTorch, and print the merged table. Files in $OUT (at most 6): build.log,
# tests.log, variants.csv, bench.csv, torch.csv, table.txt.
# Usage (repository root): bash bench/kernels/gpu_run.sh [--no-tests]
set -u
OUT=${OUT:-/tmp/kern_out}
mkdir -p "$OUT"
cd "$(dirname "$0")/../.."
ROOT=$PWD
B=/tmp/build-kern
T0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv 2>&1

build_cmake() {
  cmake -S . -B $B -G Ninja -DPARRAY_BUILD_COMPILER=OFF -DPARRAY_WITH_MPI=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build.log" 2>&1 &&
    cmake --build $B -j 16 --target test_kernels_cpu test_kernels_gpu test_kernels_user_op bench_kernels \
      >> "$OUT/build.log" 2>&1
}
build_nvcc() { # the kernel library alone, without the project's CMake
  mkdir -p $B/bin $B/o
  local F="-O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude"
  local pids=()
  for f in runtime/cuda/cuda_core.cu runtime/cuda/elementwise_*.cu runtime/cuda/reduce_*.cu; do
    nvcc $F -c $f -o $B/o/$(basename $f).o & pids+=($!)
  done
  for f in runtime/core.c runtime/cpu/elementwise_cpu.c runtime/cpu/elementwise_half_cpu.c runtime/cpu/reduce_cpu.c; do
    gcc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -c $f -o $B/o/$(basename $f).o & pids+=($!)
  done
  for p in "${pids[@]}"; do wait $p || return 1; done
  gcc -O2 -std=c11 -Iinclude tests/kernels/test_kernels_cpu.c $B/o/*.c.o -lm -o $B/bin/test_kernels_cpu || return 1
  pids=()
  for t in tests/kernels/test_kernels_gpu tests/kernels/test_kernels_user_op bench/kernels/bench_kernels; do
    nvcc $F $t.cu $B/o/*.o -o $B/bin/$(basename $t) & pids+=($!)
  done
  for p in "${pids[@]}"; do wait $p || return 1; done
}
# The kernel library alone by default (predictable build time); KERN_CMAKE=1
# builds through the project's CMake instead.
if [ "${KERN_CMAKE:-0}" = 1 ] && build_cmake; then echo "build: cmake ok ($(( $(date +%s) - T0 )) s)"; else
  build_nvcc > "$OUT/build.log" 2>&1 || { echo "nvcc build failed"; tail -30 "$OUT/build.log"; exit 1; }
  echo "build: nvcc ok ($(( $(date +%s) - T0 )) s)"
fi

if [ "${1:-}" != "--no-tests" ]; then
  for t in test_kernels_cpu test_kernels_user_op test_kernels_gpu; do
    s=$(date +%s)
    echo "=== $t" >> "$OUT/tests.log"
    timeout 150 $B/bin/$t > /tmp/$t.log 2>&1
    rc=$?
    cat /tmp/$t.log >> "$OUT/tests.log"
    echo "$t: rc=$rc ($(( $(date +%s) - s )) s) $(grep -E 'passed|failures|large|SKIP' /tmp/$t.log | tr '\n' ' ')"
    [ $rc -ne 0 ] && grep -m 15 -E 'FAIL|error' /tmp/$t.log
  done
fi

$B/bin/bench_kernels --variants > "$OUT/variants.csv" 2> /tmp/bench_err.log
$B/bin/bench_kernels > "$OUT/bench.csv" 2>> /tmp/bench_err.log
PYTHONUNBUFFERED=1 python3 bench/kernels/torch_kernels.py > "$OUT/torch.csv" 2> /tmp/torch_err.log
cat /tmp/bench_err.log /tmp/torch_err.log | tee -a "$OUT/build.log" | grep -v '^$' | tail -4
echo "--- engine variants (U packs per trip . grid cap in waves), TB/s"
python3 - "$OUT/variants.csv" <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
t = collections.OrderedDict()
for r in rows:
    v, op, dt, sz = r["name"].split(" ")
    t.setdefault((op, sz), {})[v] = float(r["tbs"])
vs = sorted({k for d in t.values() for k in d})
print("%-12s" % "" + "".join("%8s" % v for v in vs))
for (op, sz), d in t.items():
    print("%-12s" % (op + " " + sz) + "".join("%8.2f" % d.get(v, float("nan")) for v in vs))
PY
echo "--- library vs copy vs PyTorch (TB/s, bytes read + written)"
python3 bench/kernels/compare.py "$OUT/bench.csv" "$OUT/torch.csv" | tee "$OUT/table.txt"
echo "total $(( $(date +%s) - T0 )) s"
