#!/bin/sh
# stages_fail.sh - tools/stages.sh fails where it must, run by ctest:
#   stages_fail.sh SOURCE_DIR CC
# on tiny fake trees (sources, and objects laid out as in a build of
# paccore): a call cycle between stages, a call against the order without a
# cycle, an include of a later stage's header, functions longer than
# --max-lines (braces in comments, strings and characters do not count; the
# C code of a flex file counts); each with the exception that lets it pass,
# and an exception that matches nothing, which fails too.
set -u
stages="$1/tools/stages.sh"
cc="$2"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect STATUS TEXT ARGS...: stages.sh ARGS exits with STATUS and prints TEXT
expect() {
  want=$1 text=$2
  shift 2
  sh "$stages" "$@" >out 2>&1
  rc=$?
  [ "$rc" = "$want" ] || { cat out; fail "stages.sh $*: exit status $rc, not $want"; return; }
  grep -qF -- "$text" out || { cat out; fail "stages.sh $*: no '$text'"; }
}
# obj FOLDER NAME SOURCE: compiler/FOLDER/NAME.c and its object
obj() {
  mkdir -p src/compiler/"$1" build/compiler/CMakeFiles/paccore.dir/"$1"
  printf '%s\n' "$3" >src/compiler/"$1/$2".c
  "$cc" -c src/compiler/"$1/$2".c -o build/compiler/CMakeFiles/paccore.dir/"$1/$2".c.o || fail "cc $2.c"
}

# ---- calls -----------------------------------------------------------------
obj front util 'int sema_hash(int x); int util_twice(int x) { return x > 9 ? sema_hash(x) : 2 * x; }'
obj sema hash 'int util_twice(int x); int sema_hash(int x) { return util_twice(x / 3) + 1; }'
obj driver main 'int sema_hash(int x); int drv_main(void) { return sema_hash(3); }'
expect 1 'front -> sema goes against the order' --src src --only graph build
expect 1 'util_twice (front/util.c) calls sema_hash (sema/hash.c)' --src src --only graph build
expect 1 'cycle between the stages front, sema: front -> sema (1), sema -> front (1)' --src src --only graph build
expect 1 '  driver -> sema (1)' --src src --only graph build
expect 0 'tolerated by --allow-edge' --src src --only graph --allow-edge front:sema build
expect 1 '--allow-edge lower:emit: there is no such edge' --src src --only graph --allow-edge front:sema \
  --allow-edge lower:emit build
# against the order without a cycle
obj sema hash 'int sema_hash(int x) { return x + 1; }'
expect 1 'front -> sema goes against the order' --src src --only graph build
grep -q cycle out && fail "a cycle reported where there is none"
# a stale object (its source moved away) is left out
rm src/compiler/front/util.c
expect 0 'skipping front/util.c.o' --src src --only graph build
expect 2 'no build/compiler/compiler/CMakeFiles/paccore.dir: build paccore' --src src --only graph build/compiler

# ---- includes ----------------------------------------------------------------
mkdir -p src/compiler/emit src/compiler/lower
echo 'int lw(void);' >src/compiler/lower/lower.h
printf '/* emit.h */\n#include "util.h"\n  # include "lower.h"\n' >src/compiler/emit/emit.h
expect 1 'compiler/emit/emit.h:3: includes "lower.h" of compiler/lower' --src src --only includes
expect 0 'ok (includes)' --src src --only includes --allow-include emit/emit.h:lower.h
printf '/* #include "lower.h" */\n' >src/compiler/emit/emit.h
expect 1 'emit/emit.h no longer includes lower.h' --src src --only includes --allow-include emit/emit.h:lower.h

# ---- function lengths ----------------------------------------------------------
cat >src/compiler/front/long.c <<'EOF'
/* long.c: '{' "{" */
static const char *s = "}{";
int seven(int x) {
  if (x) { x = '}'; }  /* } */
  x += "{"[0]; // }
  return x;
}
struct five { int a; };
int (*pick(int n))(int) {
  (void)n;
  return seven;
}
EOF
expect 1 '  compiler/front/long.c:3: seven: 5 lines' --src src --only lengths --max-lines 4
expect 0 'ok (lengths)' --src src --only lengths --max-lines 5
expect 1 'pick: 4 lines' --src src --only lengths --max-lines 3 --allow-long front/long.c:seven
expect 0 'ok (lengths)' --src src --only lengths --max-lines 3 --allow-long seven --allow-long pick
expect 1 '--allow-long nosuch: no function of that name' --src src --only lengths --max-lines 3 \
  --allow-long seven --allow-long pick --allow-long nosuch
mkdir -p src/grammar
printf '%%{\nstatic int a(void) {\n  return 0;\n}\n%%}\n%%%%\n"{"  { int x = 1; { x++; } }\n%%%%\nstatic int b(void) {\n  return 1;\n}\n' \
  >src/grammar/lexer.l
expect 1 '  grammar/lexer.l:9: b: 3 lines' --src src --only lengths --max-lines 2 --allow-long seven \
  --allow-long pick
grep -q 'lexer.l:2: a: 3 lines' out || { cat out; fail "a helper of lexer.l's %{ %} block not checked"; }
grep -q 'lexer.l:7' out && fail "a rule's action taken for a function"
echo 'int broken(void) { {' >src/compiler/front/bad.c
expect 1 'bad.c: cannot find its functions' --src src --only lengths

[ "$fails" = 0 ] && echo "all passed"
exit $((fails != 0))
