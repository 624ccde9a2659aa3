#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# run.sh - bench/detour_loop: builds detour_loop.pc with pacc and runs it on
# the GPU (a detour in a host loop against the same kernel written by hand
# in CUDA); the table goes to stdout and $OUT/detour_loop.txt. Then the same
# built with --no-nvtx (no profiler ranges): the cost of the ranges is the
# difference of the two "#detour" lines (docs/cuda.md, "Profiler ranges").
#   bash bench/detour_loop/run.sh BUILD_DIR     (pacc in BUILD_DIR/bin; bench/run.sh builds it)
# Settings (environment):
#   OUT    folder for the program, its table and build.log (default: a temporary folder)
#   PACC   the pacc to use (default BUILD_DIR/bin/pacc)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
PACC=${PACC:-${1:?usage: run.sh BUILD_DIR}/bin/pacc}
tmp=""
if [ -z "${OUT:-}" ]; then
  tmp=$(mktemp -d)
  OUT=$tmp
  trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$OUT"
"$PACC" -O2 "$root/bench/detour_loop/detour_loop.pc" -o "$OUT/detour_loop" >"$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
"$PACC" -O2 --no-nvtx "$root/bench/detour_loop/detour_loop.pc" -o "$OUT/detour_loop_no_nvtx" >>"$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
nvidia-smi -L 2>/dev/null | head -1 | tee "$OUT/detour_loop.txt"
"$OUT/detour_loop" | tee -a "$OUT/detour_loop.txt"
rc=${PIPESTATUS[0]}
echo "== the same, built with --no-nvtx (no profiler ranges)" | tee -a "$OUT/detour_loop.txt"
"$OUT/detour_loop_no_nvtx" | tee -a "$OUT/detour_loop.txt"
rc2=${PIPESTATUS[0]}
[ "$rc" -ne 0 ] && exit "$rc"
exit "$rc2"
