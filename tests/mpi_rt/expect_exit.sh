#!/bin/sh
# expect_exit.sh - run an MPI test that must end the whole job with an error:
#   expect_exit.sh WANT TIMEOUT PATTERN CMD...
# WANT is an exit status or "nonzero"; PATTERN must appear in the output.
# A job still running after TIMEOUT seconds is a hang and fails the test.
want=$1 limit=$2 pattern=$3
shift 3
log=$(mktemp)
timeout -k 5 "$limit" "$@" >"$log" 2>&1
rc=$?
cat "$log"
fail() { echo "expect_exit: FAIL: $*"; rm -f "$log"; exit 1; }
[ $rc -eq 124 ] || [ $rc -eq 137 ] && fail "the job hung (killed after ${limit}s)"
if [ "$want" = nonzero ]; then
  [ $rc -ne 0 ] || fail "exit status 0, wanted non-zero"
else
  [ $rc -eq "$want" ] || fail "exit status $rc, wanted $want"
fi
grep -qF -- "$pattern" "$log" || fail "no \"$pattern\" in the output"
rm -f "$log"
echo "expect_exit: PASS (exit status $rc)"
