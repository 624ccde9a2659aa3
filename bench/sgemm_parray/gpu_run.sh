#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gpu_run.sh - one call on the GPU machine for the SGEMM written in Parray:
# build (pac, pacc and the runtime from a kit carried in $KIT when it runs
# there, else with CMake), run the GPU tests tests/gpu/sgemm_parray.pc (the
# 128 x 64 tile shape at N = 512, 1024) and sgemm_parray_wide.pc (the
# 128 x 128 shape forced there) and sgemm_tma.pc (SGEMM_TMA, built for
# BENCH_ARCH, default sm_90a, as the benchmark is), then the benchmark
# (Parray SGEMM and SGEMM_TMA vs parray_sgemm vs cuBLAS with TF32 off, four
# layouts, cuBLAS on 18(b) with the relayout; BARGS=-t: SGEMM_TMA only, and
# VARGS for the variants), with SAN=1 sgemm_tma.pc under compute-sanitizer
# memcheck and racecheck (SAN_LIMIT seconds each), with NCU=1 an ncu profile at each N of NCU_N (4096; a comma list) of the Parray
# kernel, parray_sgemm's and cuBLAS's (stall reasons included; NCU_K: the
# kernel name regexes, e.g. "SGT_K sgemm_hopper"), with SASS=1
# the SASS of the Parray and runtime SGEMM kernels (sass.txt.gz), with
# SRC=1 per-instruction stall samples (src.csv.gz), and with
# VARIANTS="-DX=1;-DY=2 -DZ=0" the same benchmark built once per ';'-separated
# set of flags (e.g. -DPARRAY_SGEMM_K_UNROLL=1) and run at SIZES1 (1024,2048).
# Logs go to $OUT (the small ones in logs.tar.gz at the end); the tables are printed last.
#   OUT=... KIT=build-sgpkit bash bench/sgemm_parray/gpu_run.sh   (repository root)
# A kit is bin/{pac,pacc}, lib/{libparray,libparray_cuda}.a and include/ of a
# build tree; without one, CMake builds them in BUILD_DIR (flex and bison missing:
# the pre-generated scanner and parser in .carry/frontend are used).
set -u
OUT=${OUT:-/tmp/sgemm_parray_out}
NCU_N=${NCU_N:-4096}
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
  B=${BUILD_DIR:-$ROOT/build-sgp-gpu}
  . "$ROOT/bench/device_env.sh" # cmake on PATH, GEN, FE
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPARRAY_WITH_MPI=OFF \
    -DBUILD_TESTING=OFF $FE >"$OUT/build.log" 2>&1
  cmake --build "$B" --target pacc -j 16 >>"$OUT/build.log" 2>&1 || { echo "BUILD FAILED"; grep -E "error" "$OUT/build.log" | head -20; exit 1; }
fi
echo "pac/pacc/runtime ready: $(el)"

# the test (built and run by the ctest script) and both benchmarks, built at once
export PACC_CUDA_ARCH=sm_90
# the benchmark and the SGEMM_TMA test: sm_90a, whose setmaxnreg gives the
# consumer warpgroups of SGEMM_TMA their registers (with sm_90 they spill)
BENCH_ARCH=${BENCH_ARCH:-sm_90a}
(sh tests/gpu/run_gpu.sh run "$B/bin" tests/gpu/sgemm_parray.pc && echo "sgemm_parray: passed"
 sh tests/gpu/run_gpu.sh run "$B/bin" tests/gpu/sgemm_parray_wide.pc && echo "sgemm_parray_wide: passed"
 PACC_CUDA_ARCH=$BENCH_ARCH sh tests/gpu/run_gpu.sh run "$B/bin" tests/gpu/sgemm_tma.pc && echo "sgemm_tma ($BENCH_ARCH): passed"
) >"$OUT/test.log" 2>&1 &
TEST=$!
"$B/bin/pacc" -O2 -arch=$BENCH_ARCH -I include bench/sgemm_parray/sgemm_parray_bench.pc -o /tmp/bsp -lcublas >"$OUT/bench_build.log" 2>&1 &
P1=$!
VP=""
NV=0
if [ -n "${VARIANTS:-}" ]; then
  IFS=';' read -ra VFLAGS <<<"$VARIANTS"
  for f in "${VFLAGS[@]}"; do
    # shellcheck disable=SC2086 # the flags of one variant are split on purpose
    "$B/bin/pacc" -O2 -arch=$BENCH_ARCH $f -I include bench/sgemm_parray/sgemm_parray_bench.pc -o /tmp/bsp_v$NV -lcublas \
      >>"$OUT/bench_build.log" 2>&1 &
    VP="$VP $!"
    NV=$((NV + 1))
  done
fi
# shellcheck disable=SC2086
wait $P1 $VP
echo "benchmarks built: $(el)"
wait $TEST
echo "test rc=$? ($(el))"
cat "$OUT/test.log"

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 500 >"$OUT/smi.csv" 2>&1 &
SMI=$!
NVIDIA_TF32_OVERRIDE=0 timeout 150 /tmp/bsp -s ${SIZES:-1024,2048,4096,8192} -r ${REPS:-15} ${BARGS:-} >"$OUT/bench.txt" 2>&1
echo "bench rc=$? ($(el))"
for ((v = 0; v < NV; v++)); do
  echo "=== variant $v: ${VFLAGS[$v]}" >>"$OUT/bench_variants.txt"
  NVIDIA_TF32_OVERRIDE=0 timeout 60 /tmp/bsp_v$v -s ${SIZES1:-1024,2048} -r ${REPS:-15} ${VARGS:-} >>"$OUT/bench_variants.txt" 2>&1
  echo "bench (variant $v) rc=$? ($(el))"
done
kill $SMI 2>/dev/null

NCUB=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "${NCU:-}" ] && [ $(($(date +%s) - T0)) -lt ${NCU_BUDGET:-200} ]; then
  for n in ${NCU_N//,/ }; do
    for k in ${NCU_K:-SG_K sgemm_kernel 'xmma|ampere'}; do
      echo "=== N = $n, kernel /$k/" >>"$OUT/ncu.txt"
      timeout 60 "$NCUB" --clock-control none -k "regex:$k" --launch-skip 3 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section SchedulerStats --section LaunchStats --section WarpStateStats \
        --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
        /tmp/bsp -s "$n" -r 1 >>"$OUT/ncu.txt" 2>&1
    done
  done
  grep -E "^=== N|^  [a-zA-Z_]|SM Frequency|Duration|Registers Per|Achieved Occupancy|Issued Warp Per|No Eligible|Compute \(SM\) Th|Block Limit Reg|Warp Cycles Per Issued|stalled" \
    "$OUT/ncu.txt" | grep -v " 0$\| 0,00$" >"$OUT/ncu_summary.txt"
fi
[ -f "$OUT/ncu_summary.txt" ] && { echo "=== ncu"; cat "$OUT/ncu_summary.txt"; }
# with SRC=1: per-SASS-instruction stall samples (ncu source page) of the
# Parray kernel and parray_sgemm's at the first N of NCU_N, in src.csv.gz
if [ -n "${SRC:-}" ]; then
  for k in SG_K sgemm_kernel; do
    echo "=== kernel /$k/"
    timeout 60 "$NCUB" --clock-control none -k "regex:$k" --launch-skip 3 --launch-count 1 \
      --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
      /tmp/bsp -s "${NCU_N%%,*}" -r 1 2>&1
  done | gzip >"$OUT/src.csv.gz"
  echo "source page: $(zcat "$OUT/src.csv.gz" | wc -l) lines"
fi
# registers and spills of the Parray kernels (one line per instance)
cuobjdump -res-usage /tmp/bsp 2>/dev/null | grep -A1 "SG_K\|SGT_K" | grep -o "REG:[0-9]*.*STACK:[0-9]*" | sort | uniq -c >"$OUT/regs.txt"
echo "=== Parray SGEMM kernels: registers (count of instances)"; cat "$OUT/regs.txt"
# the SASS of every Parray kernel instance and of the runtime's SGEMM kernels
if [ -n "${SASS:-}" ]; then
  cuobjdump -sass /tmp/bsp 2>/dev/null | awk '/Function :/ {keep = /SG_K|SGT_K|sgemm_kernel|sgemm_hopper/} keep' | gzip >"$OUT/sass.txt.gz"
  echo "SASS: $(zcat "$OUT/sass.txt.gz" | grep -c "Function :") functions in sass.txt.gz"
fi
# the translator/runtime problems found on the way that need a GPU to show
if [ -n "${REPRO:-}" ]; then
  (cd bench/sgemm_parray/repro && "$B/bin/pacc" -O2 copy2d_padded.pc -o /tmp/copy2d && /tmp/copy2d) >"$OUT/repro.txt" 2>&1
  echo "=== repro copy2d_padded.pc (expected: ok)"; cat "$OUT/repro.txt"
fi
# with SAN=1: the SGEMM_TMA test under compute-sanitizer memcheck and racecheck
if [ -n "${SAN:-}" ]; then
  for t in memcheck racecheck; do
    SANITIZER=$t PACC_CUDA_ARCH=$BENCH_ARCH timeout ${SAN_LIMIT:-240} sh tests/gpu/run_gpu.sh run "$B/bin" tests/gpu/sgemm_tma.pc \
      >"$OUT/san_$t.log" 2>&1 && echo "sgemm_tma under $t: passed ($(el))" || { echo "sgemm_tma under $t: FAILED ($(el))"; head -40 "$OUT/san_$t.log"; }
  done
fi
echo "=== clocks during the benchmark (SM MHz: min max)"
awk -F, 'NR>1 && $2+0>0 {v=$2+0; if(min==""||v<min)min=v; if(v>max)max=v} END {print min, max}' "$OUT/smi.csv"
[ -f "$OUT/bench_variants.txt" ] && { echo "=== variants"; cat "$OUT/bench_variants.txt"; }
echo "=== benchmark"; cat "$OUT/bench.txt"
echo "total $(el)"
# at most 8 files come back from the device machine: the small logs go in one archive
LOGS="gpu.txt build.log bench_build.log test.log smi.csv regs.txt repro.txt ncu_summary.txt"
# shellcheck disable=SC2086 # a list of names
(cd "$OUT" && tar czf logs.tar.gz $LOGS --ignore-failed-read 2>/dev/null && rm -f $LOGS)
