#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gpu_run.sh - one device call for the SGEMM work: build the project's SGEMM
# targets with CMake (-DPARRAY_SGEMM_VARIANTS=ON adds the tuning variants),
# report registers/spills (-Xptxas -v) and the SASS mix of every kernel's main
# loop (from nvcc -c of the two SGEMM sources alone), run the tests (ctest -R
# sgemm, then the variants), then time parray_sgemm (and every tile
# configuration) against cuBLAS with TF32 off, and optionally profile with ncu.
#   bash bench/sgemm/gpu_run.sh            # from the repository root
# Environment: OUT (log folder, default /tmp/sgemm_out), VARIANTS (1 = build
# and time the extra configurations; default 1), SIZES (default
# 1024,2048,4096,8192), LAYOUTS_AT (size at which all 8 layouts are timed,
# default 4096), NCU (comma list of bench -c configurations to profile with
# Nsight Compute at 4096, -1 = cuBLAS; default none).
set -u
OUT=${OUT:-/tmp/sgemm_out}
VARIANTS=${VARIANTS:-1}
SIZES=${SIZES:-1024,2048,4096,8192}
LAYOUTS_AT=${LAYOUTS_AT:-4096}
NCU=${NCU:-}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BD=/tmp/sgemm_cmake
B=$BD/bin
O=/tmp/sgemm_obj
mkdir -p $O
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
CUDA_HOME=$(dirname "$(dirname "$NVCC")")
export PATH=$CUDA_HOME/bin:$PATH
ARCH=${ARCH:-sm_90}
VDEF=""
VOPT=OFF
[ "$VARIANTS" = 1 ] && VDEF=-DPARRAY_SGEMM_VARIANTS && VOPT=ON

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
  $NVCC --version | tail -1
} >"$OUT/build.log" 2>&1

NVF="-std=c++17 -O3 -arch=$ARCH -I$ROOT/include -Xptxas -v"
(
  $NVCC $NVF $VDEF -c $ROOT/runtime/cuda/sgemm.cu -o $O/sgemm.o >$O/ptx_sgemm.log 2>&1 &
  [ "$VARIANTS" = 1 ] && $NVCC $NVF $VDEF -c $ROOT/runtime/cuda/sgemm_variants.cu -o $O/sgemm_variants.o >$O/ptx_var.log 2>&1 &
  cmake -S $ROOT -B $BD -G Ninja -DPARRAY_BUILD_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=${ARCH#sm_} -DPARRAY_SGEMM_VARIANTS=$VOPT &&
    cmake --build $BD --target test_sgemm_cpu test_sgemm_gpu bench_sgemm || echo "BUILD FAILED"
  wait
) >>"$OUT/build.log" 2>&1
cat $O/ptx_*.log >>"$OUT/build.log"
grep -E "error|BUILD FAILED|spill stores" "$OUT/build.log" | sort | uniq -c | head -20

# Registers / spills per kernel, and the SASS mix of each main loop.
{
  grep -A2 "Compiling entry" "$OUT/build.log" | grep -E "entry|registers|spill" | sed 's/ptxas info    : //'
  for o in $O/sgemm.o $O/sgemm_variants.o; do
    [ -f $o ] || continue
    cuobjdump --dump-sass $o >$o.sass 2>/dev/null && python3 $ROOT/bench/sgemm/sass_stats.py $o.sass
  done
} >"$OUT/sass_summary.txt" 2>&1

# The library's own kernels first (tests, then the benchmark), then the
# tuning variants in separate processes, so a broken experiment cannot spoil
# the main results.
echo "== tests"
(cd $BD && timeout 200 ctest -R sgemm -V) >"$OUT/tests.log" 2>&1
echo "ctest rc=$? $(grep -E '% tests passed' $OUT/tests.log) $(grep -E '^[0-9]+: [0-9]+ passed' $OUT/tests.log | tr '\n' ' ')"
grep -E "FAIL|CUDA error" "$OUT/tests.log" | head -20

echo "== bench"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 500 >"$OUT/smi_during_bench.csv" 2>&1 &
SMI=$!
NVIDIA_TF32_OVERRIDE=0 timeout 200 $B/bench_sgemm -s $SIZES -r 20 -l $LAYOUTS_AT -o "$OUT/bench.csv" >"$OUT/bench.log" 2>&1
echo "bench rc=$?"
if [ "$VARIANTS" = 1 ]; then
  echo "#### variants" >>"$OUT/tests.log"
  SGEMM_TEST_VARIANTS=1 timeout 150 $B/test_sgemm_gpu >>"$OUT/tests.log" 2>&1
  echo "variant test rc=$? $(tail -1 $OUT/tests.log)"
  grep -E "FAIL|CUDA error" "$OUT/tests.log" | head -20
  echo "#### variants" >>"$OUT/bench.log"
  NVIDIA_TF32_OVERRIDE=0 timeout 200 $B/bench_sgemm -s $SIZES -r 20 -v -o "$OUT/bench_variants.csv" >>"$OUT/bench.log" 2>&1
  echo "variant bench rc=$?"
fi
kill $SMI 2>/dev/null

if [ -n "$NCU" ]; then
  echo "== ncu"
  NCUB=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  for c in ${NCU//,/ }; do
    if [ "$c" = -1 ]; then K=regex:gemm; else K=regex:sgemm_kernel; fi
    echo "#### ncu config $c" >>"$OUT/ncu.txt"
    timeout 60 $NCUB --clock-control none -k $K --launch-skip 2 --launch-count 1 \
      --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
      --section ComputeWorkloadAnalysis --section InstructionStats \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,smsp__cycles_active.avg,sm__cycles_elapsed.avg \
      $B/bench_sgemm -s 4096 -r 10 -c $c >>"$OUT/ncu.txt" 2>&1
    echo "ncu $c rc=$?"
    echo "#### ncu stalls config $c" >>"$OUT/ncu.txt"
    timeout 60 $NCUB --clock-control none -k $K --launch-skip 2 --launch-count 1 \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
      $B/bench_sgemm -s 4096 -r 10 -c $c >>"$OUT/ncu.txt" 2>&1
    echo "ncu stalls $c rc=$?"
  done
  grep -E "^  [a-zA-Z_]+.*(gemm|Kernel)|Registers Per|Achieved Occupancy|Issue Slots Busy|Issued Warp Per|No Eligible|Stall|bank_conflicts|inst_executed|Executed Ipc A|Block Size|Grid Size|Warp Cycles Per Issued" "$OUT/ncu.txt" | head -120
fi

echo "== main loops (FFMA share counts the slow-path code too)"
grep -E "^_Z|main loop" "$OUT/sass_summary.txt" | sed -e 's/_ZN19parray_sgemm_detail12sgemm_kernelINS_3Cfg//' | paste - - | cut -c1-200 | head -24
grep -E "registers" "$OUT/sass_summary.txt" | sort | uniq -c
echo "== bench table"
cat "$OUT/bench.log"
