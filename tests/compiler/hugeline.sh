#!/bin/sh
# hugeline.sh - diagnostics on a 50 MB line, run by ctest:
#   hugeline.sh BIN_DIR
# An error at the end of the line and one at its start are reported quickly,
# with the right line:column, a window of the line around the caret ("..."
# where it is cut) and a few hundred bytes of stderr, not the whole line.
set -u
pac="$1/pac"
. "$(dirname "$0")/../common/shtest.sh"
n=52428800

# the caret of the message (line 3 of err) stands under the column where $2 starts in the shown line (line 2)
caret_under() {
  awk -v word="$2" 'NR == 2 { src = $0 } NR == 3 { car = $0 } END {
    s = index(src, word); c = index(car, "^")
    if (s == 0 || c != s) { print "source: " substr(src, 1, 300); print "caret:  " substr(car, 1, 300); exit 1 } }' "$1"
}

check() { # name expected-first-line word-under-caret cut-at-start cut-at-end
  start=$(date +%s)
  "$pac" --no-cpp "$1" -o "$1.c" 2>"$1.err"
  rc=$?
  [ $rc -eq 1 ] || fail "$1: exit status $rc, expected 1"
  secs=$(($(date +%s) - start))
  [ "$secs" -le 20 ] || fail "$1: took $secs s"
  size=$(wc -c <"$1.err")
  [ "$size" -le 2000 ] || fail "$1: $size bytes on stderr"
  [ "$(head -n 1 "$1.err")" = "$2" ] || { head -c 300 "$1.err"; fail "$1: first line"; }
  caret_under "$1.err" "$3" || fail "$1: the caret is not under '$3'"
  line=$(sed -n 2p "$1.err")
  case "$line" in " 2 | ..."*) b=yes ;; *) b=no ;; esac
  case "$line" in *...) e=yes ;; *) e=no ;; esac
  [ "$b" = "$4" ] || fail "$1: '...' at the start of the shown line: $b, expected $4"
  [ "$e" = "$5" ] || fail "$1: '...' at the end of the shown line: $e, expected $5"
  [ -e "$1.c" ] && fail "$1: output left behind"
}

pad() { head -c "$n" /dev/zero | tr '\0' ' '; }

# the error at the end of the line
{ printf '#parray {paged float [4][3]} A\nint f(float *x) {'; pad; printf ' return (int)x[$Z[1][2]$]; }\n'; } >end.pc
check end.pc "end.pc:2:$((n + 34)): error: unknown array type 'Z'" 'Z[1][2]$]; }' yes no

# the error at the start of the line
{ printf '#parray {paged float [4][3]} A\nint f(float *x) { return (int)x[$Z[1][2]$];'; pad; printf '}\n'; } >start.pc
check start.pc "start.pc:2:34: error: unknown array type 'Z'" 'Z[1][2]$];' no yes

finish
