#!/bin/bash
# gpu_run.sh - one call on the GPU machine for the SGEMM written in Parray:
# build (pac, pacc and the runtime from a kit carried in $KIT when it runs
# there, else with CMake), run the GPU tests tests/gpu/sgemm_parray.pc (the
# 128 x 64 tile shape at N = 512, 1024) and sgemm_parray_wide.pc (the
# 128 x 128 shape forced there), then the benchmark (Parray SGEMM vs
# parray_sgemm vs cuBLAS with TF32 off, four layouts, cuBLAS on 18(b) with
# the relayout), with NCU=1 an ncu profile at N = NCU_N (4096) and, with UNROLL1=1, the same benchmark built with a k loop
# of one slice per iteration (PARRAY_SGEMM_K_UNROLL=1).
# Logs go to $OUT; the tables are printed last.
#   OUT=... KIT=build-sgpkit bash bench/sgemm_parray/gpu_run.sh   (repository root)
# A kit is bin/{pac,pacc}, lib/{libparray,libparray_cuda}.a and include/ of a
# build tree; without one, CMake builds them here (flex and bison missing:
# the pre-generated scanner and parser in .carry/frontend are used).
set -u
OUT=${OUT:-/tmp/sgemm_parray_out}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
T0=$(date +%s)
el() { echo "$(($(date +%s) - T0)) s"; }
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export PATH=$(dirname "$NVCC"):$PATH
command -v cc >/dev/null || export PAC_CPP="gcc -E"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
"$NVCC" --version | tail -1

KIT=${KIT:-}
B=""
if [ -n "$KIT" ] && "$ROOT/$KIT/bin/pac" --version >/dev/null 2>&1 && [ -f "$ROOT/$KIT/lib/libparray_cuda.a" ]; then
  B=$ROOT/$KIT
  mkdir -p "$B/include/parray" && cp include/parray/sgemm.pc "$B/include/parray/"
  echo "kit: $B"
else
  B=$ROOT/build-sgp-gpu
  FE=""
  command -v bison >/dev/null && command -v flex >/dev/null || FE="-DPAC_FRONTEND_DIR=$ROOT/.carry/frontend"
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPARRAY_WITH_MPI=OFF \
    -DBUILD_TESTING=OFF $FE >"$OUT/build.log" 2>&1
  cmake --build "$B" --target pacc -j 16 >>"$OUT/build.log" 2>&1 || { echo "BUILD FAILED"; grep -E "error" "$OUT/build.log" | head -20; exit 1; }
fi
echo "pac/pacc/runtime ready: $(el)"

# the test (built and run by the ctest script) and both benchmarks, built at once
export PACC_CUDA_ARCH=sm_90
(sh tests/gpu/run_gpu.sh run "$B/bin" tests/gpu/sgemm_parray.pc && echo "sgemm_parray: passed"
 sh tests/gpu/run_gpu.sh run "$B/bin" tests/gpu/sgemm_parray_wide.pc && echo "sgemm_parray_wide: passed") \
  >"$OUT/test.log" 2>&1 &
TEST=$!
"$B/bin/pacc" -O2 -I include bench/sgemm_parray/sgemm_parray_bench.pc -o /tmp/bsp -lcublas >"$OUT/bench_build.log" 2>&1 &
P1=$!
P2=""
if [ -n "${UNROLL1:-}" ]; then
  "$B/bin/pacc" -O2 -DPARRAY_SGEMM_K_UNROLL=1 -I include bench/sgemm_parray/sgemm_parray_bench.pc -o /tmp/bsp1 -lcublas \
    >>"$OUT/bench_build.log" 2>&1 &
  P2=$!
fi
wait $P1 $P2
echo "benchmarks built: $(el)"
wait $TEST
echo "test rc=$? ($(el))"
cat "$OUT/test.log"

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 500 >"$OUT/smi.csv" 2>&1 &
SMI=$!
NVIDIA_TF32_OVERRIDE=0 timeout 150 /tmp/bsp -s ${SIZES:-1024,2048,4096,8192} -r ${REPS:-15} >"$OUT/bench.txt" 2>&1
echo "bench rc=$? ($(el))"
if [ -n "${UNROLL1:-}" ]; then
  NVIDIA_TF32_OVERRIDE=0 timeout 60 /tmp/bsp1 -s ${SIZES1:-2048,4096,8192} -r ${REPS:-15} >"$OUT/bench_unroll1.txt" 2>&1
  echo "bench (k unroll 1) rc=$? ($(el))"
fi
kill $SMI 2>/dev/null

if [ -n "${NCU:-}" ] && [ $(($(date +%s) - T0)) -lt 200 ]; then
  NCUB=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  for k in SG_K sgemm_kernel; do
    timeout 40 "$NCUB" --clock-control none -k regex:$k --launch-skip 3 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section SchedulerStats --section LaunchStats \
      /tmp/bsp -s ${NCU_N:-4096} -r 1 >>"$OUT/ncu.txt" 2>&1
  done
  grep -E "SM Frequency|Duration|Registers Per|Achieved Occupancy|Issued Warp Per|No Eligible|Compute \(SM\) Th|Block Limit Reg" \
    "$OUT/ncu.txt" >"$OUT/ncu_summary.txt"
fi
[ -f "$OUT/ncu_summary.txt" ] && { echo "=== ncu (N = ${NCU_N:-4096})"; cat "$OUT/ncu_summary.txt"; }
# registers and spills of the Parray kernels (one line per instance)
cuobjdump -res-usage /tmp/bsp 2>/dev/null | grep -A1 "SG_K" | grep -o "REG:[0-9]*.*STACK:[0-9]*" | sort | uniq -c >"$OUT/regs.txt"
echo "=== Parray SGEMM kernels: registers (count of instances)"; cat "$OUT/regs.txt"
# the translator/runtime problems found on the way that need a GPU to show
if [ -n "${REPRO:-}" ]; then
  (cd bench/sgemm_parray/repro && "$B/bin/pacc" -O2 copy2d_padded.pc -o /tmp/copy2d && /tmp/copy2d) >"$OUT/repro.txt" 2>&1
  echo "=== repro copy2d_padded.pc (expected: ok)"; cat "$OUT/repro.txt"
fi
echo "=== clocks during the benchmark (SM MHz: min max)"
awk -F, 'NR>1 && $2+0>0 {v=$2+0; if(min==""||v<min)min=v; if(v>max)max=v} END {print min, max}' "$OUT/smi.csv"
[ -f "$OUT/bench_unroll1.txt" ] && { echo "=== k unroll 1"; cat "$OUT/bench_unroll1.txt"; }
echo "=== benchmark"; cat "$OUT/bench.txt"
echo "total $(el)"
