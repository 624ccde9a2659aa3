#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kern_prims_session.sh - one device call for the kernel-library and
# primitives misses (column sums of 1M x 32, elementwise parity, the fp16
# 1024-wide softmax/layernorm): builds the kernel library (nvcc) and pac +
# the primitives examples (CMake) side by side, then, alone on the GPU, the
# kernel benchmark with its variants and PyTorch (bench/kernels/gpu_run.sh,
# which also runs the kernel tests), the examples' self-tests under
# compute-sanitizer, their --bench and PyTorch (bench/prims/run.sh), the
# same examples built from BASE's primitives/examples (the code before the
# change, in the same run), an fp16 softmax instance with min_blocks(5),
# and compute-sanitizer memcheck + racecheck on the reductions' finishing
# code (test_kernels_gpu --cols). Logs in $OUT.
#   BASE=path/to/old/tree OUT=... bash bench/kern_prims_session.sh   (repository root)
set -u
OUT=${OUT:-/tmp/kp_session}
mkdir -p "$OUT"
ROOT=$PWD
PB=/tmp/build-prims
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s]"; }
PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
export PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv,noheader

# builds (CPU only), side by side
KERN_BUILD_ONLY=1 OUT=$OUT/kern bash bench/kernels/gpu_run.sh >"$OUT/kern_build.txt" 2>&1 &
BUILD_ONLY=1 BUILD=$PB OUT=$OUT/prims bash bench/prims/run.sh >"$OUT/prims_build.txt" 2>&1 &
wait
cat "$OUT/kern_build.txt" "$OUT/prims_build.txt"
echo "builds $(el)"
# the examples from BASE's primitives header and examples (same pac, same flags)
if [ -n "${BASE:-}" ] && [ -f "$BASE/include/parray/primitives.cuh" ]; then
  rm -rf /tmp/oldp && mkdir -p /tmp/oldp/ex && cp -r "$PB/bin" "$PB/include" /tmp/oldp/ &&
    { [ ! -d "$PB/lib" ] || cp -r "$PB/lib" /tmp/oldp/; } &&
    cp "$BASE/include/parray/primitives.cuh" /tmp/oldp/include/parray/ &&
    cp "$BASE"/examples/softmax.pc "$BASE"/examples/layernorm.pc examples/prims_harness.h /tmp/oldp/ex/
  for e in softmax layernorm; do
    /tmp/oldp/bin/pacc -O2 -arch=sm_90 /tmp/oldp/ex/$e.pc -o /tmp/oldp/$e >"$OUT/base_build_$e.log" 2>&1 &
  done
fi
# fp16 1024-wide softmax with min_blocks(5) (48 registers: 5 blocks of 256)
python3 - <<'PY'
s = open("examples/softmax.pc").read()
s = s.replace("#subprog SOFTMAX(DT, NX, G, B, y", "#subprog SOFTMAX(DT, NX, G, B, MB, y")
s = s.replace("[(rows * G + B - 1) / B][B]} K", "[(rows * G + B - 1) / B][B] min_blocks(MB)} K")
s = s.replace("#insert SOFTMAX(PARRAY_F16, 32, 32, 256, y", "#insert SOFTMAX(PARRAY_F16, 32, 32, 256, 5, y")
for a in ["(PARRAY_F32, 4, 8, 256,", "(PARRAY_F16, 8, 4, 256,", "(PARRAY_F32, 4, 32, 256,", "(PARRAY_F16, 8, 16, 256,",
          "(PARRAY_F32, 32, 32, 256,", "(PARRAY_F32, 8, 512, 512,", "(PARRAY_F16, 8, 512, 512,"]:
    s = s.replace("#insert SOFTMAX" + a, "#insert SOFTMAX" + a + " 1,")
open("/tmp/softmax_mb5.pc", "w").write(s)
PY
cp examples/prims_harness.h /tmp/
$PB/bin/pacc -O2 -arch=sm_90 -Xptxas -v /tmp/softmax_mb5.pc -o /tmp/softmax_mb5 >"$OUT/mb5_build.log" 2>&1 &
wait
grep -E 'Used|spill' "$OUT/mb5_build.log" | paste - - | grep -oE '[0-9]+ bytes spill stores.*Used [0-9]+ registers' | tr '\n' ';'
echo

echo "=== kernel library $(el)"
KERN_SKIP_BUILD=1 OUT=$OUT/kern timeout 300 bash bench/kernels/gpu_run.sh
echo "=== primitives $(el)"
SANITIZE=1 BUILD=$PB OUT=$OUT/prims timeout 330 bash bench/prims/run.sh
echo "=== primitives: base and variants (--bench, CSV) $(el)"
for e in softmax layernorm; do
  [ -x /tmp/oldp/$e ] && timeout 60 /tmp/oldp/$e --bench | sed "s/^/base,/"
done
[ -x /tmp/softmax_mb5 ] && { timeout 60 /tmp/softmax_mb5 && timeout 60 /tmp/softmax_mb5 --bench | sed "s/^/mb5,/"; }
echo "=== compute-sanitizer on the reductions' finishing code $(el)"
KB=/tmp/build-kern/bin
timeout 150 compute-sanitizer --error-exitcode 9 --tool memcheck $KB/test_kernels_gpu --cols >"$OUT/memcheck.log" 2>&1
echo "memcheck: rc=$? $(grep -m1 'ERROR SUMMARY' "$OUT/memcheck.log") $(grep -E 'cases|fail' "$OUT/memcheck.log" | tr '\n' ' ')"
timeout 150 compute-sanitizer --error-exitcode 9 --tool racecheck $KB/test_kernels_gpu --cols >"$OUT/racecheck.log" 2>&1
echo "racecheck: rc=$? $(grep -m1 'RACECHECK SUMMARY\|ERROR SUMMARY' "$OUT/racecheck.log")"
echo "total $(el)"
