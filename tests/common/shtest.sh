# SPDX-License-Identifier: Apache-2.0
# shtest.sh - what the shell tests share, sourced after `set -u` and after
# the test has read its arguments (it changes the working folder):
#   . "$(dirname "$0")/../common/shtest.sh"
# It makes a temporary folder $t, enters it, and removes it at exit (made
# writable first, for tests of read-only files); fail TEXT reports a failed
# check and counts it in $fails; finish [TEXT] ends the test: exit status 1
# with the count of failures, or TEXT (default "ok") and exit status 0.
t=$(mktemp -d) || exit 1
trap 'chmod -R u+w "$t" 2>/dev/null; rm -rf "$t"' EXIT
cd "$t" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
finish() {
  [ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
  echo "${1:-ok}"
  exit 0
}
