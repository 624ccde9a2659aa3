#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gpu_mpi_session.sh - one call on the GPU machine for distributed device
# arrays (issue 16): build the runtime with CUDA and MPI there (with a
# pre-generated scanner and parser in .carry/frontend when flex/bison are
# absent), run tests/gpu_mpi (1, 2 and 4 processes sharing the GPU, and the
# out-of-memory case), one run under compute-sanitizer memcheck, then, while
# time is left, the other GPU tests. Logs go to $OUT; a summary is printed.
# With BENCH=1 the benchmark bench/mpi_dev/run.sh runs instead of the other
# GPU tests.
#   OUT=... [PAC_FRONTEND=dir] [BENCH=1] bash bench/gpu_mpi_session.sh     (repository root)
set -u
OUT=${OUT:-/tmp/session}
mkdir -p "$OUT"
ROOT=$PWD
B=$ROOT/build-gpu-mpi
T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s"; }
if ! command -v cmake >/dev/null; then
  for c in /usr/local/bin/cmake /opt/cmake/bin/cmake "$HOME/.local/bin/cmake" /opt/conda/bin/cmake; do
    [ -x "$c" ] && { PATH=$(dirname "$c"):$PATH; break; }
  done
  command -v cmake >/dev/null || { c=$(find / -xdev -maxdepth 5 -name cmake -type f -perm -u+x 2>/dev/null | head -1); [ -n "$c" ] && PATH=$(dirname "$c"):$PATH; }
fi
echo "cmake: $(command -v cmake) mpirun: $(command -v mpirun) $(mpirun --version 2>/dev/null | head -1)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
. "$ROOT/bench/device_env.sh" # cmake on PATH, GEN, FE
# shellcheck disable=SC2086
cmake -S . -B "$B" $GEN -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPARRAY_SGEMM_VARIANTS=OFF $FE \
  >"$OUT/build.log" 2>&1 || { echo "CONFIGURE FAILED"; tail -30 "$OUT/build.log"; exit 1; }
grep -E "pac: (MPI|CUDA)" "$OUT/build.log"
cmake --build "$B" -j 16 --target pac pacc parray parray_mpi parray_cuda parray_mpi_cuda gpu_mpi_emulated_np1 gpu_mpi_emulated_np3 \
  gpu_mpi_emulated_np2 gpu_mpi_emulated_np4 gpu_mpi_emulated_split gpu_mpi_emulated_paths_np1 gpu_mpi_emulated_paths_np2 \
  gpu_mpi_emulated_paths_np3 gpu_mpi_emulated_paths_np4 emulated_nccl >>"$OUT/build.log" 2>&1 ||
  { echo "BUILD FAILED"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
echo "runtime built: $(el)"
echo "=== tests/gpu_mpi"
(cd "$B" && ctest -R '^gpu_mpi\.' --output-on-failure --timeout 300 2>&1) | tee "$OUT/gpu_mpi.log" | grep -vE "^\s*$|Start|Test project"
echo "=== compute-sanitizer memcheck, 2 processes ($(el))"
PARRAY_MEMCHECK=1 sh tests/gpu_mpi/run_gpu_mpi.sh run "$B/bin" "$(command -v mpirun)" 2 tests/gpu_mpi/dist_dmem.pc 2>&1 |
  tee "$OUT/memcheck.log" | tail -20
echo "memcheck exit: ${PIPESTATUS[0]}"
if [ "${BENCH:-0}" = 1 ]; then
  echo "=== benchmark: bench/mpi_dev/run.sh ($(el))"
  sh bench/mpi_dev/run.sh "$B" 2>&1 | tee "$OUT/bench.log"
elif [ $(( $(date +%s) - T0 )) -lt 200 ]; then
  echo "=== the other GPU tests ($(el))"
  timeout $(( 420 - ($(date +%s) - T0) )) cmake --build "$B" -j 16 >>"$OUT/build.log" 2>&1 &&
    (cd "$B" && timeout $(( 440 - ($(date +%s) - T0) )) ctest -L gpu -j 4 --timeout 200 >"$OUT/tests.log" 2>&1)
  grep -E "tests passed|tests failed|\*\*\*Failed|Not Run|Timeout" "$OUT/tests.log" | head -20
fi
echo "total $(el)"
