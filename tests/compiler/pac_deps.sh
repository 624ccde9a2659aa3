#!/bin/sh
# pac_deps.sh - pac's dependency rules, run by ctest:  pac_deps.sh BIN_DIR
# -MD/-MMD -MF write "TARGET: FILE.pc INCLUDED.pc... HEADERS..." beside the
# translation (system headers only with -MD), -MT/-MQ name the target, -MP
# adds phony rules, -M/-MM print the rule and translate nothing, and nothing
# is written when the file has errors; -Werror makes warnings errors.
set -u
pac="$1/pac"
. "$(dirname "$0")/../common/shtest.sh"
expect() { # FILE EXPECTED-TEXT
  printf '%s\n' "$2" >want
  cmp -s want "$1" || { echo "--- $1:"; cat "$1"; echo "--- expected:"; cat want; fail "$1 differs"; }
}

mkdir sub inc
echo 'typedef int myint;' >my.h
echo 'typedef int other;' >inc/other.h
echo '#parray {paged float [4]} LIBT' >sub/lib.pc
printf '#include "lib2.pc"\n' >sub/lib1.pc
echo '#parray {paged int [2]} LIB2' >sub/lib2.pc
cat >a.pc <<'PC'
#include <stdio.h>
#include "my.h"
#include <other.h>
#include "sub/lib.pc"
#include "sub/lib1.pc"
int main(void) { myint x = 1; other y = 2; printf("%d\n", x + y); return 0; }
PC

"$pac" a.pc -Iinc -o out.c -MMD -MF a.d 2>err || { cat err; fail "-MMD -MF"; }
[ -s out.c ] || fail "-MMD: no translation"
expect a.d 'out.c: a.pc \
  sub/lib.pc \
  sub/lib1.pc \
  sub/lib2.pc \
  my.h \
  inc/other.h'

# -MD: system headers too; the default file is OUT.d; -MP; -MT
"$pac" a.pc -Iinc -o out.c -MD -MP -MT 'obj/a.o' 2>err || { cat err; fail "-MD"; }
[ -s out.d ] || fail "-MD did not write out.d"
grep -q '^obj/a.o: a.pc \\$' out.d || fail "-MD -MT: wrong target"
grep -q '/stdio.h \\$' out.d || fail "-MD does not list stdio.h"
grep -q '^  my.h \\$' out.d || fail "-MD does not list my.h"
for p in sub/lib.pc sub/lib2.pc my.h inc/other.h; do
  grep -q "^$p:\$" out.d || fail "-MP: no phony rule for $p"
done
grep -q '^a.pc:$' out.d && fail "-MP: a phony rule for the main file"

# -o - (stdout): the rule goes to FILE.d beside FILE.pc
"$pac" a.pc -Iinc -o - -MMD >stdout.c 2>err || { cat err; fail "-o - -MMD"; }
grep -q '^-: a.pc \\$' a.d || { cat a.d; fail "-o - -MMD: a.d"; }
grep -q 'int main' stdout.c || fail "-o - -MMD: no translation on stdout"

# -MQ quotes for make
"$pac" a.pc -Iinc -o out.c -MMD -MF q.d -MQ 'a$b c.o' 2>err || { cat err; fail "-MQ"; }
head -n 1 q.d | grep -q '^a\$\$b\\ c.o: a.pc \\$' || { cat q.d; fail "-MQ: target not quoted"; }

# -M / -MM: the rule on stdout, no translation
rm -f a.c a.d
"$pac" -MM -Iinc a.pc >mm.out 2>err || { cat err; fail "-MM"; }
[ -e a.c ] && fail "-MM translated"
expect mm.out 'a.c: a.pc \
  sub/lib.pc \
  sub/lib1.pc \
  sub/lib2.pc \
  my.h \
  inc/other.h'
"$pac" -M -Iinc a.pc -MF m.d 2>err || { cat err; fail "-M -MF"; }
grep -q 'stdio.h' m.d || fail "-M does not list system headers"

# errors: no translation, no rule, status 1
printf '#include "sub/lib.pc"\n#create B(x)\n' >bad.pc
"$pac" bad.pc -o bad.c -MD -MF bad.d 2>err && fail "bad.pc was accepted"
grep -q "^bad.pc:2:9: error: unknown array type 'B'" err || { cat err; fail "bad.pc: no message"; }
[ -e bad.d ] && fail "a rule was written for a file with errors"
[ -e bad.c ] && fail "a translation was written for a file with errors"
"$pac" -M bad.pc >bad.out 2>err && fail "-M bad.pc was accepted"
[ -s bad.out ] && fail "-M printed a rule for a file with errors"
"$pac" a.pc -MF 2>err && fail "-MF without a value was accepted"
grep -q "missing argument to '-MF'" err || { cat err; fail "-MF: no message"; }

# -Werror: pac's own warnings stop the translation
"$pac" a.pc -Iinc -o w.c --cpp /nonexistent/cpp 2>err || { cat err; fail "a warning failed without -Werror"; }
grep -q "^pac: warning: could not read" err || { cat err; fail "no warning without the preprocessor"; }
"$pac" a.pc -Iinc -o w2.c --cpp /nonexistent/cpp -Werror 2>err && fail "-Werror: the warning passed"
grep -q "^pac: error: warnings are errors" err || { cat err; fail "-Werror: no message"; }
[ -e w2.c ] && fail "-Werror: the translation was written"
# -w: no warning printed, none counted for -Werror
"$pac" a.pc -Iinc -o w3.c --cpp /nonexistent/cpp -w -Werror 2>err || { cat err; fail "-w -Werror: failed"; }
[ -s err ] && { cat err; fail "-w: a warning was printed"; }
[ -e w3.c ] || fail "-w -Werror: nothing written"

# --version names the project's version
"$pac" --version | grep -Eq '^pac [0-9]+\.[0-9]+\.[0-9]+$' || fail "pac --version"

finish "all pac dependency checks passed"
