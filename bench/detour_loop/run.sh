#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# run.sh - bench/detour_loop on the GPU machine in one call: build pac, pacc
# and the CUDA runtime (the project's CMake, without MPI), build
# detour_loop.pc with pacc and run it. Its table goes to stdout and
# $OUT/detour_loop.txt; the build log to $OUT/build.log.
# Usage (repository root): bash bench/detour_loop/run.sh
#   PACC=path/to/pacc   use that pacc (and its runtime) instead of building one
set -u
OUT=${OUT:-/tmp/detour_loop_out}
mkdir -p "$OUT"
cd "$(dirname "$0")/../.." || exit 1
B=${BUILD:-/tmp/build-detour-loop}
ROOT=$PWD
. bench/device_env.sh # cmake on PATH, GEN, FE
if [ -z "${PACC:-}" ]; then
  # shellcheck disable=SC2086 # GEN and FE are one word or none
  { cmake -S . -B "$B" $GEN $FE -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPARRAY_WITH_MPI=OFF \
      -DPARRAY_SGEMM_VARIANTS=OFF -DBUILD_TESTING=OFF &&
    cmake --build "$B" -j "$(nproc)" --target pac pacc parray parray_cuda parray_headers; } >"$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
  PACC=$B/bin/pacc
fi
"$PACC" -O2 bench/detour_loop/detour_loop.pc -o "$OUT/detour_loop" >>"$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
nvidia-smi -L 2>/dev/null | head -1 | tee "$OUT/detour_loop.txt"
"$OUT/detour_loop" | tee -a "$OUT/detour_loop.txt"
exit "${PIPESTATUS[0]}"
