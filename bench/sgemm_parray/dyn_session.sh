#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# dyn_session.sh - one device call for dynamic shared memory in detours and
# the SGEMM_TMA ring it allows (session 11): the sgemm_parray GPU run
# (tests, SGEMM_TMA against parray_sgemm at SIZES, the ring variants in
# VARIANTS, sanitizers), then the dynamic-shared-memory GPU tests, the
# cooperative and TMA tests, and the stress check of SGEMM_TMA at 8192.
#   OUT=... bash bench/sgemm_parray/dyn_session.sh   (repository root)
set -u
OUT=${OUT:-/tmp/dyn_out}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=$OUT SIZES=${SIZES:-2048,4096,8192} REPS=${REPS:-15} BARGS=-t SAN=1 SAN_LIMIT=${SAN_LIMIT:-150} \
  SIZES1=${SIZES1:-2048,4096} VARIANTS=${VARIANTS:-} bash bench/sgemm_parray/gpu_run.sh >"$OUT/sgp.txt" 2>&1
echo "sgemm_parray run rc=$?"
B=$ROOT/build-sgp-gpu/bin
export PACC_CUDA_ARCH=sm_90
for t in smem_dynamic grid_sync copy_tma; do
  sh tests/gpu/run_gpu.sh run "$B" tests/gpu/$t.pc >"$OUT/t_$t.log" 2>&1 && echo "$t: passed" || { echo "$t: FAILED"; cat "$OUT/t_$t.log"; }
done
sh tests/gpu/run_gpu.sh run "$B" tests/gpu/smem_too_big.pc --fails >"$OUT/t_too_big.log" 2>&1 && echo "smem_too_big: passed" ||
  { echo "smem_too_big: FAILED"; cat "$OUT/t_too_big.log"; }
for s in memcheck racecheck; do
  SANITIZER=$s sh tests/gpu/run_gpu.sh run "$B" tests/gpu/smem_dynamic.pc >"$OUT/san_sd_$s.log" 2>&1 &&
    echo "smem_dynamic under $s: passed" || { echo "smem_dynamic under $s: FAILED"; head -30 "$OUT/san_sd_$s.log"; }
done
if "$B/pacc" -O2 -arch=sm_90a -I include bench/sgemm_parray/stress_tma.pc -o /tmp/stress -lcublas >"$OUT/stress_build.log" 2>&1; then
  NVIDIA_TF32_OVERRIDE=0 timeout ${STRESS_LIMIT:-90} /tmp/stress 8192 ${STRESS_CALLS:-20} >"$OUT/stress.txt" 2>&1
  echo "stress rc=$?"; tail -5 "$OUT/stress.txt"
else
  echo "stress build FAILED"; head -20 "$OUT/stress_build.log"
fi
echo "=== sgemm_parray run"; cat "$OUT/sgp.txt"
