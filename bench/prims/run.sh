#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# run.sh - everything bench/prims needs from one call on the GPU machine
# (under 10 minutes): build pac and pacc (the project's CMake, without MPI),
# build the three examples written with parray/primitives.cuh, run their
# self-tests (plain and, with SANITIZE=1, under compute-sanitizer), their
# --bench mode and the PyTorch peer, and print the merged table.
# Files in $OUT: build.log, tests.log, prims.csv, torch.csv, table.md.
# Usage (repository root): bash bench/prims/run.sh
#   PACC=path/to/pacc   use that pacc instead of building one
#   PYTHON=python       the Python with PyTorch (default /opt/torch/.venv/bin/python, else python3)
#   BUILD_ONLY=1        stop after building the examples (no GPU needed)
set -u
OUT=${OUT:-/tmp/prims_out}
mkdir -p "$OUT"
cd "$(dirname "$0")/../.." || exit 1
B=${BUILD:-/tmp/build-prims}
T0=$(date +%s)
EXAMPLES="softmax layernorm bcast_add"

ROOT=$PWD
. bench/device_env.sh # cmake on PATH, GEN, FE
if [ -z "${PACC:-}" ]; then
  # shellcheck disable=SC2086 # GEN and FE are one word or none
  { cmake -S . -B "$B" $GEN $FE -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPARRAY_WITH_MPI=OFF \
      -DPARRAY_SGEMM_VARIANTS=OFF -DBUILD_TESTING=OFF &&
    cmake --build "$B" -j "$(nproc)" --target pac pacc parray parray_cuda parray_headers; } >"$OUT/build.log" 2>&1 ||
    { echo "BUILD FAILED (pac)"; grep -E "error|Error" "$OUT/build.log" | head -20; exit 1; }
  PACC=$B/bin/pacc
fi
mkdir -p "$B/prims"
pids=()
for e in $EXAMPLES; do
  "$PACC" -O2 -arch=sm_90 -lineinfo "examples/$e.pc" -o "$B/prims/$e" >"$B/prims/$e.log" 2>&1 & pids+=($!)
done
fail=0
for i in "${!pids[@]}"; do wait "${pids[$i]}" || fail=1; done
cat "$B"/prims/*.log >>"$OUT/build.log"
[ $fail = 0 ] || { echo "BUILD FAILED (examples)"; tail -30 "$OUT/build.log"; exit 1; }
echo "build: ok ($(( $(date +%s) - T0 )) s)"
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader 2>&1

for e in $EXAMPLES; do
  echo "=== $e" >>"$OUT/tests.log"
  timeout 120 "$B/prims/$e" >>"$OUT/tests.log" 2>&1
  echo "self-test $e: rc=$? $(tail -1 "$OUT/tests.log")"
  if [ "${SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
    timeout 300 compute-sanitizer --error-exitcode 9 "$B/prims/$e" >>"$OUT/tests.log" 2>&1
    echo "compute-sanitizer $e: rc=$? $(grep -m1 'ERROR SUMMARY' "$OUT/tests.log" | tail -1)"
  fi
done

echo "op,dtype,shape,bytes,us_waited,us,tbs,max_rel_err,check" >"$OUT/prims.csv"
for e in $EXAMPLES; do timeout 200 "$B/prims/$e" --bench >>"$OUT/prims.csv" 2>>"$OUT/tests.log" || echo "bench $e: rc=$?"; done
PY=${PYTHON:-/opt/torch/.venv/bin/python}
[ -x "$PY" ] || PY=python3
PYTHONUNBUFFERED=1 timeout 240 "$PY" bench/prims/torch_prims.py >"$OUT/torch.csv" 2>>"$OUT/tests.log" || echo "torch: rc=$?"
python3 bench/prims/compare.py "$OUT/prims.csv" "$OUT/torch.csv" | tee "$OUT/table.md"
echo "total $(( $(date +%s) - T0 )) s"
