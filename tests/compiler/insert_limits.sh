#!/bin/sh
# insert_limits.sh - the limits of #insert expansion, run by ctest:
#   insert_limits.sh BIN_DIR
# A file of 30 subprograms each inserting the one before twice (a 2^30-fold
# expansion) stops at the default limit of expanded text with an error at
# the #insert that crossed it, the chain of #inserts as notes, in bounded
# time and memory; nesting deeper than --max-insert-depth is an error at the
# #insert too; raised limits let a program through; a bad value is refused;
# nesting deeper than the printer's first stack of bodies is translated.
set -u
bin=$1
. "$(dirname "$0")/../common/shtest.sh"
{
  printf '#subprog S0(x)\n  x = x + 1;\n#end\n'
  i=1
  while [ $i -le 30 ]; do
    printf '#subprog S%d(x)\n  #insert S%d(x)\n  #insert S%d(x)\n#end\n' $i $((i - 1)) $((i - 1))
    i=$((i + 1))
  done
  printf 'int main(void) {\n  int v = 0;\n  #insert S30(v)\n  return v;\n}\n'
} >bomb.pc
{
  printf '#subprog T0(x)\n  x = x + 1;\n#end\n'
  for i in 1 2 3 4 5; do printf '#subprog T%d(x)\n  #insert T%d(x)\n#end\n' $i $((i - 1)); done
  printf 'int main(void) {\n  int v = 0;\n  #insert T5(v)\n  return v == 1 ? 0 : 1;\n}\n'
} >deep.pc
{
  printf '#subprog U0(x)\n  x = x + 1;\n#end\n'
  i=1
  while [ $i -le 80 ]; do printf '#subprog U%d(x)\n  #insert U%d(x)\n#end\n' $i $((i - 1)); i=$((i + 1)); done
  printf 'int main(void) {\n  int v = 0;\n  #insert U80(v)\n  return v == 1 ? 0 : 1;\n}\n'
} >deeper.pc

# the expansion bomb: an error, not gigabytes (2 GiB of address space and 60 s
# are far above what the limit allows, and far below what it would take; a
# pac built with AddressSanitizer, which reserves terabytes of address space
# for its shadow, runs without the address-space limit)
vlimit=2097152
(ulimit -v $vlimit && exec "$bin/pac" --version) >/dev/null 2>&1 || vlimit=unlimited
if (ulimit -v $vlimit; exec timeout 60 "$bin/pac" bomb.pc -o bomb.c) 2>err; then fail "the expansion bomb was translated"; fi
grep -q "^bomb.pc:[0-9]*:3: error: the #insert expansions reach [0-9]* bytes: the limit is 67108864 (raise it with --max-insert-bytes=N)$" err ||
  { head -5 err; fail "bomb.pc: no error at the #insert that crossed the limit"; }
grep -q "^bomb.pc:126:3: note: in instance of subprogram 'S30' inserted here$" err || fail "bomb.pc: the chain is not in the notes"
[ -e bomb.c ] && fail "bomb.pc left bomb.c"

# nesting
if "$bin/pac" deep.pc --max-insert-depth=3 -o deep.c 2>err; then fail "nesting 6 deep passed a limit of 3"; fi
grep -q "^deep.pc:11:3: error: #insert nested 4 deep: the limit is 3 (raise it with --max-insert-depth=N)$" err ||
  { cat err; fail "deep.pc: no error at the fourth #insert"; }
"$bin/pac" deep.pc --max-insert-depth=6 -o deep.c 2>err || { cat err; fail "nesting 6 deep with a limit of 6"; }
if "$bin/pac" deep.pc --max-insert-bytes=40 -o deep.c 2>err; then fail "--max-insert-bytes=40 passed"; fi
grep -q "the limit is 40" err || { cat err; fail "--max-insert-bytes=40: no message"; }
"$bin/pacc" deep.pc -o deep 2>err && ./deep || { cat err; fail "deep.pc with the default limits"; }
"$bin/pac" deep.pc --max-insert-depth=0 -o deep.c 2>err
[ $? -eq 2 ] && grep -q "needs a positive number" err || { cat err; fail "--max-insert-depth=0 was not refused"; }

# 81 bodies open at once, within the default depth limit of 100: translated
"$bin/pac" deeper.pc -o deeper.c 2>err || { cat err; fail "deeper.pc: nesting 81 deep with the default limits"; }
[ "$(grep -c '#insert U' deeper.c)" -eq 81 ] || fail "deeper.pc: not 81 instances in deeper.c"
"$bin/pacc" deeper.pc -o deeper 2>err && ./deeper || { cat err; fail "deeper.pc did not compile and run"; }

finish
