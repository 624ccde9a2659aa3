#!/bin/sh
# expect_failure.sh - a program that must fail: a non-zero status that is not
# a timeout, and every line of EXPECTED found on its standard error.
#   expect_failure.sh STATUS STDERR_FILE EXPECTED_FILE
set -u
rc=$1 err=$2 expected=$3
[ "$rc" -ne 0 ] || { echo "expected a failure, got exit status 0"; exit 1; }
[ "$rc" -ne 124 ] || { echo "it hung (timed out)"; exit 1; }
while IFS= read -r line; do
  grep -qF "$line" "$err" || { echo "missing on stderr: $line"; cat "$err"; exit 1; }
done <"$expected"
exit 0
