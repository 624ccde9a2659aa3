#!/bin/sh
# line_marks.sh - the C compiler's messages about the code a directive became
# point at the directive's own line in the .pc file (the #line markers), for a
# one-line directive, a directive after a multi-line one, and host code after
# them.
#   line_marks.sh BIN_DIR
set -u
bin=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/marks.pc" <<'PC'
#include <stdio.h>
#parray {paged float [4]} A
#parray {paged float \
         [2][2]} B
int main(void) {
  int *a;
  #create A(a)
  int *b;
  #create B(b)
  long x = a;
  return (int)x + b[0];
}
PC
cd "$tmp" || exit 1
"$bin/pacc" -c -Wall marks.pc -o marks.o 2>err.txt
cat err.txt
fail=0
for want in "marks.pc:7:" "marks.pc:9:" "marks.pc:10:"; do
  grep -q "^$want.*warning" err.txt || { echo "FAIL: no warning at $want"; fail=1; }
done
if grep -q "^marks.pc:8:.*warning" err.txt; then echo "FAIL: a warning points one line below #create A"; fail=1; fi
[ $fail = 0 ] && echo "ok: warnings at lines 7, 9 and 10"
exit $fail
