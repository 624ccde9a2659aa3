#!/bin/sh
# run_gpu_mpi.sh - build a .pc program with distributed device arrays (CUDA
# and MPI) with pacc, and run it under mpirun.
#   run_gpu_mpi.sh build BIN_DIR MPIEXEC NP CASE.pc           translate and compile with nvcc (-DNP=NP; no GPU needed)
#   run_gpu_mpi.sh run   BIN_DIR MPIEXEC NP CASE.pc [--fails] run on NP processes, which share the machine's
#                                                             GPUs; exits 77 (skipped) when it has none
# stdout must equal CASE.expected; with --fails the program must exit
# non-zero (never hang) with every line of CASE.expected on stderr.
# PARRAY_MEMCHECK=1 runs each process under compute-sanitizer memcheck.
set -u
mode=$1 bin=$2 mpiexec=$3 np=$4 case=$5 fails=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(cd "$(dirname "$case")" && pwd)
name=$(basename "$case")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 1
if [ "$mode" = run ] && ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "SKIP: no CUDA device on this machine"; exit 77
fi
"$bin/pacc" -O2 -DNP="$np" "$name" -o "$tmp/prog" || exit 1
[ "$mode" = build ] && exit 0
wrap=
if [ "${PARRAY_MEMCHECK:-0}" = 1 ]; then
  wrap="compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 20"
fi
# shellcheck disable=SC2086 # wrap is several words or none
timeout 300 "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" $wrap "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$fails" = --fails ]; then
  sh "$here/../expect_failure.sh" "$rc" "$tmp/err" "${name%.pc}.expected"
  exit $?
fi
[ "$rc" -eq 0 ] || { echo "exit status $rc"; cat "$tmp/out" "$tmp/err"; exit 1; }
if [ -n "$wrap" ]; then
  # compute-sanitizer's lines go to stdout: every process must report no error
  n=$(grep -c '^========= ERROR SUMMARY: 0 errors' "$tmp/out")
  [ "$n" -eq "$np" ] || { echo "memcheck: $n of $np processes reported no errors"; cat "$tmp/out"; exit 1; }
  grep -v '^=========' "$tmp/out" >"$tmp/out.prog" && mv "$tmp/out.prog" "$tmp/out"
fi
[ -s "$tmp/err" ] && cat "$tmp/err"
diff -u "${name%.pc}.expected" "$tmp/out"
