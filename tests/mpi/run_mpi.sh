#!/bin/sh
# run_mpi.sh - build a .pc program with pacc and run it under mpirun.
#   run_mpi.sh BIN_DIR MPIEXEC NP CASE.pc            stdout must equal CASE.expected
#   run_mpi.sh BIN_DIR MPIEXEC NP CASE.pc --fails    must exit non-zero (never hang) and
#                                                    print the lines of CASE.expected on stderr
set -u
bin=$1 mpiexec=$2 np=$3 case=$4 mode=${5:-}
dir=$(cd "$(dirname "$case")" && pwd)
name=$(basename "$case")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 1
"$bin/pacc" -O2 "$name" -o "$tmp/prog" || exit 1
timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$mode" = --fails ]; then
  [ "$rc" -ne 0 ] || { echo "expected a failure, got exit status 0"; exit 1; }
  [ "$rc" -ne 124 ] || { echo "the job hung"; exit 1; }
  while IFS= read -r line; do
    grep -qF "$line" "$tmp/err" || { echo "missing on stderr: $line"; cat "$tmp/err"; exit 1; }
  done <"${name%.pc}.expected"
  exit 0
fi
[ "$rc" -eq 0 ] || { echo "exit status $rc"; cat "$tmp/err"; exit 1; }
diff -u "${name%.pc}.expected" "$tmp/out"
