#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kern_cols_session.sh - the second device call of the column-sum work: the
# kernel library built with nvcc, then bench/kernels/gpu_run.sh alone on the
# GPU (variants, benchmark next to copy and PyTorch, the kernel tests, ncu)
# and compute-sanitizer memcheck + racecheck on the reductions' finishing
# code (test_kernels_gpu --cols). Logs in $OUT.
#   OUT=... bash bench/kern_cols_session.sh     (repository root)
set -u
OUT=${OUT:-/tmp/kc_session}
mkdir -p "$OUT"
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s]"; }
PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
export PATH
OUT=$OUT/kern timeout 420 bash bench/kernels/gpu_run.sh
echo "=== compute-sanitizer on the reductions' finishing code $(el)"
KB=/tmp/build-kern/bin
timeout 120 compute-sanitizer --error-exitcode 9 --tool memcheck $KB/test_kernels_gpu --cols >"$OUT/memcheck.log" 2>&1
echo "memcheck: rc=$? $(grep -m1 'ERROR SUMMARY' "$OUT/memcheck.log") $(grep -E 'cases|fail' "$OUT/memcheck.log" | tr '\n' ' ')"
timeout 120 compute-sanitizer --error-exitcode 9 --tool racecheck $KB/test_kernels_gpu --cols >"$OUT/racecheck.log" 2>&1
echo "racecheck: rc=$? $(grep -m1 'RACECHECK SUMMARY\|ERROR SUMMARY' "$OUT/racecheck.log")"
echo "total $(el)"
