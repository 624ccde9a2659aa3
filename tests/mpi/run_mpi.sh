#!/bin/sh
# run_mpi.sh - build a .pc program with pacc and run it under mpirun.
#   run_mpi.sh BIN_DIR MPIEXEC NP CASE.pc            stdout must equal CASE.expected
#   run_mpi.sh BIN_DIR MPIEXEC NP CASE.pc --fails    must exit non-zero (never hang) and
#                                                    print the lines of CASE.expected on stderr
# PACC_FLAGS adds options (one source for several targets built for mpi:
# -DUSE_MPI); CASE.mpi.expected, where it exists, is the expected output.
set -u
bin=$1 mpiexec=$2 np=$3 case=$4 mode=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(cd "$(dirname "$case")" && pwd)
name=$(basename "$case")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 1
# shellcheck disable=SC2086 # PACC_FLAGS holds several words
"$bin/pacc" -O2 ${PACC_FLAGS:-} "$name" -o "$tmp/prog" || exit 1
timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$mode" = --fails ]; then
  sh "$here/../expect_failure.sh" "$rc" "$tmp/err" "${name%.pc}.expected"
  exit $?
fi
[ "$rc" -eq 0 ] || { echo "exit status $rc"; cat "$tmp/err"; exit 1; }
expected=${name%.pc}.expected
[ -e "${name%.pc}.mpi.expected" ] && expected=${name%.pc}.mpi.expected
diff -u "$expected" "$tmp/out"
