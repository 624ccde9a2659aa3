#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hopper_run.sh - one device call for parray_sgemm's Hopper kernel
# (runtime/cuda/sgemm_hopper.cu): build (or take prebuilt binaries), report
# its registers and main-loop SASS, run the GPU test, compute-sanitizer
# memcheck / racecheck / synccheck on a small product through the kernel, then
# time parray_sgemm (automatic choice: the Hopper kernel on a 9.0 device,
# on row-NT / col-TN after transposing one operand; memcheck covers that too),
# the previous default (configuration 1) and cuBLAS with TF32 off on every
# layout, and the tuning variants of the Hopper kernel (ring depth, tile-row
# grouping: PARRAY_SGEMM_HOPPER_TUNE) in separate processes; then the
# kernel's one-block form (slot 4) against its cluster form (slot 13) and
# cuBLAS on the layouts in AB_LAYOUTS, AB_ROUNDS times over.
#   bash bench/sgemm/hopper_run.sh        # from the repository root
# Environment: OUT (log folder, default /tmp/hopper_out); BIN (folder with
# prebuilt test_sgemm_gpu and bench_sgemm; default: build them with CMake);
# SIZES (default 2048,4096,8192); REPS (default 20); TUNES (space-separated
# "stages,group_m" pairs, default "4,8 8,8 6,16", empty: none); NCU (1 = profile the Hopper
# slots and cuBLAS at NCU_N, default 4096, with Nsight Compute); SAN (0 = skip the sanitizers);
# HSLOTS (the Hopper slots checked and timed, default "4 13"); AB_LAYOUTS
# (bench_sgemm -L values, default "0 2 3"); AB_ROUNDS (default 2); TESTS_CLUSTER
# (1 = run test_sgemm_gpu a second time with PARRAY_SGEMM_HOPPER_CLUSTER=1);
# SAN_SLOTS (the slots under the sanitizers, default HSLOTS); BENCH_ALL (0 =
# skip the every-layout, every-configuration table).
set -u
OUT=${OUT:-/tmp/hopper_out}
SIZES=${SIZES:-2048,4096,8192}
REPS=${REPS:-20}
TUNES=${TUNES-4,8 8,8 6,16}
NCU=${NCU:-0}
NCU_N=${NCU_N:-4096}
SAN=${SAN:-1}
HSLOTS=${HSLOTS:-4 13}
AB_LAYOUTS=${AB_LAYOUTS:-0 2 3}
AB_ROUNDS=${AB_ROUNDS:-2}
TESTS_CLUSTER=${TESTS_CLUSTER:-0}
SAN_SLOTS=${SAN_SLOTS:-$HSLOTS}
BENCH_ALL=${BENCH_ALL:-1}
HC=$(echo $HSLOTS | tr ' ' ,)
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
CUDA_HOME=$(dirname "$(dirname "$NVCC")")
export PATH=$CUDA_HOME/bin:$PATH
export LD_LIBRARY_PATH=$CUDA_HOME/lib64:${LD_LIBRARY_PATH:-}
CMAKE=$(command -v cmake || echo /opt/torch/.venv/bin/cmake)
HOPPER=4 # parray_sgemm_config slot of the Hopper kernel

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
  $NVCC --version | tail -1
} >"$OUT/build.log" 2>&1
O=/tmp/hopper_obj
mkdir -p $O
(
  $NVCC -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -I"$ROOT/include" -Xptxas -v \
    -c "$ROOT/runtime/cuda/sgemm_hopper.cu" -o $O/hopper.o >$O/ptxas.log 2>&1 &
  if [ -z "${BIN:-}" ]; then
    $CMAKE -S "$ROOT" -B /tmp/hopper_cmake -G Ninja -DPARRAY_BUILD_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DPARRAY_WITH_MPI=OFF &&
      $CMAKE --build /tmp/hopper_cmake --target test_sgemm_gpu bench_sgemm parray_cuda_shared || echo "BUILD FAILED"
    SO=$(ls /tmp/hopper_cmake/lib/shared/libparray_cuda.so.* | head -1)
    echo "shared library: hopper_launch defined $(nm --defined-only $SO | grep -c hopper_launch)," \
      "undefined $(nm --undefined-only $SO | grep -c hopper_)"
  fi
  wait
) >>"$OUT/build.log" 2>&1
B=${BIN:-/tmp/hopper_cmake/bin}
cat $O/ptxas.log >>"$OUT/build.log"
grep -E "error|BUILD FAILED|registers|spill|shared library" "$OUT/build.log" | sort | uniq -c | head
cuobjdump --dump-sass $O/hopper.o >$O/hopper.sass 2>/dev/null &&
  python3 "$ROOT/bench/sgemm/sass_stats.py" $O/hopper.sass >"$OUT/sass_summary.txt" 2>&1
grep -E "main loop|^_Z" "$OUT/sass_summary.txt" | cut -c1-220 | head -12
# Memory barriers and fences per kernel (the cluster form's stage release must not add any to the k loop).
awk '/Function :/ {f = $3} /MEMBAR|FENCE|CCTL|SYNCS/ {split($0, w, /[ ;]+/); for (i in w) if (w[i] ~ /^(MEMBAR|FENCE|CCTL|SYNCS)/) n[f " " w[i]]++}
     END {for (k in n) print "  " n[k], k}' $O/hopper.sass 2>/dev/null | sort -k2 | sed 's/_ZN19parray_sgemm_detail[^ ]*kernelI/kernel</' | head -40

echo "== tests"
timeout 240 $B/test_sgemm_gpu >"$OUT/tests.log" 2>&1
echo "test rc=$? $(tail -1 "$OUT/tests.log")"
grep -E "FAIL|CUDA error|status" "$OUT/tests.log" | head -20
if [ "$TESTS_CLUSTER" = 1 ]; then
  PARRAY_SGEMM_HOPPER_CLUSTER=1 timeout 240 $B/test_sgemm_gpu >"$OUT/tests_cluster.log" 2>&1
  echo "test (automatic choice on the cluster form) rc=$? $(tail -1 "$OUT/tests_cluster.log")"
  grep -E "FAIL|CUDA error|status" "$OUT/tests_cluster.log" | head -20
fi

if [ "$SAN" = 1 ]; then
  for c in $SAN_SLOTS; do
    echo "== compute-sanitizer (bench -s 520 -c $c: one Hopper launch, 3 x 2 tiles, 33 k slices)"
    for tool in memcheck racecheck synccheck; do
      timeout 120 compute-sanitizer --tool $tool --kernel-name kns=sgemm_hopper \
        $B/bench_sgemm -s 520 -r 1 -c $c >"$OUT/san_${tool}_c$c.log" 2>&1
      echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|hazard' "$OUT/san_${tool}_c$c.log" | tail -2 | tr '\n' ' ')"
    done
    # Both operands k-contiguous (row-NT = -L 1, col-TN = -L 6): the operand
    # transposed into pool memory first, then the kernel; every kernel checked.
    for L in 1 6; do
      timeout 120 compute-sanitizer --tool memcheck $B/bench_sgemm -s 520 -r 1 -c $c -L $L \
        >"$OUT/san_memcheck_c${c}_L$L.log" 2>&1
      echo "memcheck -c $c -L $L rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/san_memcheck_c${c}_L$L.log" | tail -1)"
    done
  done
  # Several tiles per block (2320: 10 x 19 tiles on 132 blocks, 10 x 10 pairs on 66 clusters), memcheck only.
  for c in $SAN_SLOTS; do
    timeout 120 compute-sanitizer --tool memcheck --kernel-name kns=sgemm_hopper $B/bench_sgemm -s 2320 -r 1 -c $c \
      >"$OUT/san_memcheck_2320_c$c.log" 2>&1
    echo "memcheck -s 2320 -c $c rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/san_memcheck_2320_c$c.log" | tail -1)"
  done
fi

echo "== bench"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 1000 >"$OUT/smi_during_bench.csv" 2>&1 &
SMI=$!
# parray_sgemm (auto), every layout, against cuBLAS; configurations 1 and 4 with -v.
[ "$BENCH_ALL" = 1 ] && NVIDIA_TF32_OVERRIDE=0 timeout 240 $B/bench_sgemm -s $SIZES -r $REPS -v -l -1 -o "$OUT/bench.csv" >"$OUT/bench.log" 2>&1
echo "bench rc=$?"
# row-NT and col-TN must have gone through the transposition ("auto -> 4 +A^T" or "+B^T").
echo "NT/TN rows not through the Hopper kernel with a transposed operand:" \
  "$(grep -E ' parray +(row-NT|col-TN) +auto' "$OUT/bench.log" | grep -vc 'auto -> 4 +')"
for t in $TUNES; do
  echo "#### PARRAY_SGEMM_HOPPER_TUNE=$t" >>"$OUT/bench_tune.log"
  PARRAY_SGEMM_HOPPER_TUNE=$t NVIDIA_TF32_OVERRIDE=0 timeout 120 $B/bench_sgemm -s $SIZES -r $REPS -c -1,$HC \
    >>"$OUT/bench_tune.log" 2>&1
  echo "tune $t rc=$?"
done
# Around the automatic choice's threshold: parray_sgemm, slot 1 and the Hopper kernel.
echo "#### sizes near the threshold" >>"$OUT/bench_tune.log"
NVIDIA_TF32_OVERRIDE=0 timeout 120 $B/bench_sgemm -s ${SIZES_NEAR:-1024,1536,3072} -r $REPS -c -1,0,1,$HOPPER \
  >>"$OUT/bench_tune.log" 2>&1
echo "near-threshold sizes rc=$?"
# The Hopper slots against each other and cuBLAS, layout by layout, AB_ROUNDS rounds.
for r in $(seq 1 $AB_ROUNDS); do
  for L in $AB_LAYOUTS; do
    echo "#### round $r layout -L $L" >>"$OUT/bench_ab.log"
    NVIDIA_TF32_OVERRIDE=0 timeout 120 $B/bench_sgemm -s $SIZES -r $REPS -c -1,$HC -L $L >>"$OUT/bench_ab.log" 2>&1
    echo "ab round $r -L $L rc=$?"
  done
done
kill $SMI 2>/dev/null

if [ "$NCU" = 1 ]; then
  NCUB=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  for c in -1 $HSLOTS; do
    if [ "$c" = -1 ]; then K=regex:gemm; else K=regex:sgemm_hopper; fi
    echo "#### ncu config $c" >>"$OUT/ncu.txt"
    timeout 90 $NCUB --clock-control none -k $K --launch-skip 2 --launch-count 1 \
      --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum \
      $B/bench_sgemm -s $NCU_N -r 5 -c $c >>"$OUT/ncu.txt" 2>&1
    echo "ncu $c rc=$?"
  done
  grep -E "^  [a-zA-Z_]+.*(gemm|Kernel)|Duration|Registers Per|Issue Slots Busy|Issued Warp Per|No Eligible|Stall|bank_conflicts|inst_executed|Warp Cycles Per Issued|Grid Size|Cluster Size|L2 Hit|Mem Busy|Max Bandwidth|L1/TEX Hit" \
    "$OUT/ncu.txt" | head -100
fi
echo "== bench table"
cat "$OUT/bench.log"
echo "== tuning"
grep -vE "^device" "$OUT/bench_tune.log"
echo "== Hopper slots A/B"
grep -vE "^device" "$OUT/bench_ab.log"
