#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gpu_run.sh - everything the kernel library needs from one device call:
# build (plain nvcc, or the project's CMake with KERN_CMAKE=1) for sm_90, run
# the CPU and GPU tests, time the engine's tuning variants, the benchmark and
# PyTorch, print the merged table, then the tests and an ncu profile. Files in $OUT (at most 7): build.log,
# tests.log, variants.csv, bench.csv, torch.csv, table.txt, ncu.txt.
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
  # parray_cuda_status / parray_cuda_device_count without the rest of
  # cuda_core.cu (which pulls in other work streams' copy engine)
  cat > $B/shim.cu <<'CU'
#include "parray/cuda.h"
extern "C" parray_status parray_cuda_status(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return PARRAY_OK;
  parray_set_error("%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? PARRAY_ERR_NODEVICE : PARRAY_ERR_CUDA;
}
extern "C" int parray_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) { (void)cudaGetLastError(); return 0; }
  return n;
}
CU
  for f in $B/shim.cu runtime/cuda/elementwise_*.cu runtime/cuda/reduce_*.cu; do
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
# KERN_SKIP_BUILD=1: use what an earlier KERN_BUILD_ONLY=1 run built.
if [ "${KERN_SKIP_BUILD:-0}" = 1 ]; then echo "build: skipped (built before)"
elif [ "${KERN_CMAKE:-0}" = 1 ] && build_cmake; then echo "build: cmake ok ($(( $(date +%s) - T0 )) s)"; else
  build_nvcc > "$OUT/build.log" 2>&1 || { echo "nvcc build failed"; tail -30 "$OUT/build.log"; exit 1; }
  echo "build: nvcc ok ($(( $(date +%s) - T0 )) s)"
fi

[ "${KERN_BUILD_ONLY:-0}" = 1 ] && exit 0

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
    t.setdefault((op, dt + " " + sz), {})[v] = float(r["tbs"])
vs = sorted({k for d in t.values() for k in d})
# one table per kind: engine, row-sum (vr..) and column-sum (vc..) variants
grp = lambda v: v[:2] if v[:2] in ("vr", "vc") and v[2:3].isdigit() else "ve"
for g in ("ve", "vr", "vc"):
    vk = [v for v in vs if grp(v) == g]
    if not vk: continue
    print("%-18s" % "" + "".join("%8s" % v[1:8] for v in vk))
    for k, d in t.items():
        if any(v in d for v in vk):
            print("%-18s" % (k[0] + " " + k[1]) + "".join("%8.2f" % d.get(v, float("nan")) for v in vk))
PY
echo "--- library vs copy vs PyTorch (TB/s, bytes read + written)"
python3 bench/kernels/compare.py "$OUT/bench.csv" "$OUT/torch.csv" | tee "$OUT/table.txt"
echo "benchmarks done at $(( $(date +%s) - T0 )) s"

if [ "${1:-}" != "--no-tests" ]; then
  for t in test_kernels_cpu test_kernels_user_op test_kernels_gpu; do
    s=$(date +%s)
    echo "=== $t" >> "$OUT/tests.log"
    timeout 180 $B/bin/$t > /tmp/$t.log 2>&1
    rc=$?
    cat /tmp/$t.log >> "$OUT/tests.log"
    echo "$t: rc=$rc ($(( $(date +%s) - s )) s) $(grep -E 'passed|failures|large|SKIP' /tmp/$t.log | tr '\n' ' ')"
    [ $rc -ne 0 ] && grep -m 15 -E 'FAIL|error' /tmp/$t.log
  done
fi

# hardware counters of one call of each kernel (256 MB inputs), if time is left
if [ $(( $(date +%s) - T0 )) -lt 220 ] && command -v ncu > /dev/null; then
  timeout 50 ncu --clock-control none --csv --metrics \
gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size \
    $B/bin/bench_kernels --profile > "$OUT/ncu.txt" 2>&1
  python3 - "$OUT/ncu.txt" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if not rows: print("ncu: no data"); sys.exit()
h = rows[0]; K = h.index("Kernel Name"); M = h.index("Metric Name"); V = h.index("Metric Value"); I = h.index("ID")
U = h.index("Metric Unit")
d = collections.OrderedDict()
for r in rows[1:]:
    d.setdefault((r[I], r[K][:34]), {})[r[M].split("__")[1][:26]] = r[V] + ("" if r[U] in ("", "register/thread") else r[U])
for (i, k), m in d.items():
    print("%-34s %s" % (k, " ".join("%s=%s" % (n, v) for n, v in m.items())))
PY
fi
echo "total $(( $(date +%s) - T0 )) s"
