#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# run.sh - bench/prims: builds the three examples written with
# parray/primitives.cuh (softmax, layernorm, bcast_add) with pacc, runs their
# self-tests (plain and, with SANITIZE=1, under compute-sanitizer), their
# --bench mode and the PyTorch peer (torch_prims.py), and prints the merged
# table (compare.py).
#   bash bench/prims/run.sh BUILD_DIR     (pacc in BUILD_DIR/bin; bench/run.sh builds it)
# Settings (environment):
#   OUT         folder for build.log, tests.log, prims.csv, torch.csv, table.md
#               (default prims-out in the current folder)
#   PACC        the pacc to use (default BUILD_DIR/bin/pacc)
#   PYTHON      the Python with PyTorch (default python3)
#   SANITIZE=1  also run the self-tests under compute-sanitizer
#   BUILD_ONLY=1  stop after building the examples (no GPU needed)
set -u
PACC=${PACC:-${1:?usage: run.sh BUILD_DIR}/bin/pacc}
case $PACC in /*) ;; *) PACC=$PWD/$PACC ;; esac
OUT=${OUT:-$PWD/prims-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.." || exit 1
B=$OUT/build
T0=$(date +%s)
EXAMPLES="softmax layernorm bcast_add"

mkdir -p "$B/prims"
pids=()
for e in $EXAMPLES; do
  "$PACC" -O2 -lineinfo "examples/$e.pc" -o "$B/prims/$e" >"$B/prims/$e.log" 2>&1 & pids+=($!)
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
PYTHONUNBUFFERED=1 timeout 240 "${PYTHON:-python3}" bench/prims/torch_prims.py >"$OUT/torch.csv" 2>>"$OUT/tests.log" || echo "torch: rc=$?"
python3 bench/prims/compare.py "$OUT/prims.csv" "$OUT/torch.csv" | tee "$OUT/table.md"
echo "total $(( $(date +%s) - T0 )) s"
