#!/bin/sh
# run_gpu.sh - build a .pc program for the GPU with pacc and run it.
#   run_gpu.sh build BIN_DIR CASE.pc            translate and compile with nvcc only (no GPU needed)
#   run_gpu.sh run   BIN_DIR CASE.pc [--fails]  run it; exits 77 (skipped) when the machine has no GPU
# PACC_FLAGS adds options (a CPU-or-GPU program built for the GPU: -DUSE_GPU);
# CASE.gpu.expected, where it exists, is the expected output instead of CASE.expected;
# for a program that must fail run with PARRAY_CUDA_WAIT=1, CASE.wait.expected.
# SANITIZER=memcheck|racecheck|synccheck|initcheck runs the program under
# compute-sanitizer with that tool: any error it reports fails the test
# (exit 77 = skipped where compute-sanitizer is not installed).
set -u
mode=$1 bin=$2 case=$3 fails=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(cd "$(dirname "$case")" && pwd)
name=$(basename "$case")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 1
if [ "$mode" = run ]; then
  if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    echo "SKIP: no CUDA device on this machine"; exit 77
  fi
fi
san=""
if [ -n "${SANITIZER:-}" ]; then
  san=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
  if [ "$mode" = run ] && [ ! -x "$san" ]; then echo "SKIP: compute-sanitizer is not installed"; exit 77; fi
fi
# shellcheck disable=SC2086 # PACC_FLAGS holds several words
"$bin/pacc" -O2 ${PACC_FLAGS:-} "$name" -o "$tmp/prog" || exit 1
[ "$mode" = build ] && exit 0
if [ -n "$san" ]; then
  # the sanitizer's report goes to its own file: the program's stdout is still compared
  timeout 580 "$san" --tool "$SANITIZER" --error-exitcode 86 --log-file "$tmp/san" "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  grep -Eq "(ERROR|RACECHECK) SUMMARY: 0 (error|hazard)" "$tmp/san" 2>/dev/null ||
    { echo "compute-sanitizer --tool $SANITIZER reported:"; head -60 "$tmp/san"; exit 1; }
  [ "$rc" -ne 86 ] || { echo "compute-sanitizer --tool $SANITIZER failed the run:"; head -60 "$tmp/san"; exit 1; }
else
  timeout 300 "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
  rc=$?
fi
if [ "$fails" = --fails ]; then
  expected=${name%.pc}.expected
  # with every detour waiting (PARRAY_CUDA_WAIT=1) the message is another: CASE.wait.expected
  [ "${PARRAY_CUDA_WAIT:-0}" != 0 ] && [ -f "${name%.pc}.wait.expected" ] && expected=${name%.pc}.wait.expected
  cat "$tmp/err" "$tmp/out" >"$tmp/both" # device-side messages (printf in a kernel) are on stdout
  sh "$here/../expect_failure.sh" "$rc" "$tmp/both" "$expected"
  exit $?
fi
[ "$rc" -eq 0 ] || { echo "exit status $rc"; cat "$tmp/err"; exit 1; }
expected=${name%.pc}.expected
[ -f "${name%.pc}.gpu.expected" ] && expected=${name%.pc}.gpu.expected
diff -u "$expected" "$tmp/out"
