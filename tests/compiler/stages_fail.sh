#!/bin/sh
# stages_fail.sh - tools/stages.sh fails where it must, run by ctest:
#   stages_fail.sh SOURCE_DIR CC
# on tiny fake trees (sources, and objects laid out as in a build of
# paccore): a call cycle between stages, a call against the order without a
# cycle, an include of a later stage's header, functions longer than
# --max-lines (braces in comments, strings and characters do not count; the
# C code of a flex file counts), a later stage's function handed to an
# earlier stage's function pointer, calls through a declared interface, an
# include across the runtime's layers (tools/stages-runtime.rules);
# each with the exception that lets it pass, and an exception that matches
# nothing, which fails too.
set -u
stages="$1/tools/stages.sh"
cc="$2"
. "$(dirname "$0")/../common/shtest.sh"
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

# ---- function pointers and interfaces -------------------------------------------
# a later stage's function stored into an earlier stage's function-pointer
# member, or passed to an earlier stage's function that takes one, is a call
# against the order nm cannot see
rm -rf src build
mkdir -p src/compiler/sema src/compiler/lower
cat >src/compiler/sema/types.h <<'EOF'
typedef int (*ty_hook)(void *env, int x);
typedef struct tyctx { int (*eval)(void *env, int x); ty_hook hook; void *env; } tyctx;
int ty_map(tyctx *t, int (*f)(void *env, int x), void *env);
EOF
printf '#include "types.h"\nint ty_use(tyctx *t) { return t->eval(t->env, 1); }\n' >src/compiler/sema/types.c
cat >src/compiler/lower/lower.c <<'EOF'
#include "types.h"
static int lw_size(void *env, int x) { (void)env; return x; }
void lw_setup(tyctx *t) { t->eval = lw_size; }
void lw_hook(tyctx *t) { *t = (tyctx){.hook = &lw_size, .env = t}; }
int lw_walk(tyctx *t) { return ty_map(t, lw_size, t); }
static int own(void *env, int x) { (void)env; return x; } /* lower's own table: allowed */
typedef struct lw_ops { int (*f)(void *, int); } lw_ops;
int lw_mine(void) { lw_ops o = {.f = own}; return o.f(0, 1); }
EOF
expect 1 "compiler/lower/lower.c:3: lw_size (lower) is stored into sema's function pointer eval" --src src --only fnptrs
grep -q "lower.c:4: lw_size (lower) is stored into sema's function pointer hook" out || { cat out; fail "typedef'd member"; }
grep -q "lower.c:5: lw_size (lower) is passed to sema's ty_map" out || { cat out; fail "a function pointer parameter"; }
grep -q "own" out && fail "a stage's own function pointer taken for a crossing"
expect 0 'ok (fnptrs)' --src src --only fnptrs --allow-callback lw_size
expect 1 '--allow-callback nosuch: no such function' --src src --only fnptrs --allow-callback lw_size \
  --allow-callback nosuch
# an interface declared in sema and implemented in one lower file: calls through it are no edge
rm -rf src build
mkdir -p src/compiler/sema
printf '/* stages: interface implemented in lower/lower_program.c */\nint sp_size(int x);\n' >src/compiler/sema/program.h
obj sema types '#include "program.h"
int ty_build(int x) { return sp_size(x) + 1; }'
obj lower lower_program 'int ty_build(int x); int sp_size(int x) { return x; } int lw(void) { return ty_build(2); }'
expect 0 'sema -> lower (1)   through the interface sema/program.h' --src src --only graph build
# ... but only when it is defined in the file the header names
rm build/compiler/CMakeFiles/paccore.dir/lower/lower_program.c.o src/compiler/lower/lower_program.c
obj lower other 'int ty_build(int x); int sp_size(int x) { return x; } int lw(void) { return ty_build(2); }'
expect 1 'sp_size, of the interface compiler/sema/program.h, is defined in lower/other.c' --src src --only graph build
grep -q 'sema -> lower goes against the order' out || { cat out; fail "a stray interface function is an edge"; }

# ---- the runtime's layers (tools/stages-runtime.rules) ------------------------------
rm -rf src build
mkdir -p src/runtime/cuda src/kernels/sgemm src/include/parray
echo 'int sgemm_plan;' >src/kernels/sgemm/sgemm_args.h
echo 'int pa_core;' >src/include/parray/core.h
printf '#include "parray/core.h"\n#include <stdio.h>\n' >src/runtime/core.c
expect 0 'ok (runtime)' --src src --only runtime
printf '#include "parray/core.h"\n\n#include "../../kernels/sgemm/sgemm_args.h"\n' >src/runtime/cuda/cuda_core.cu
expect 1 'runtime/cuda/cuda_core.cu:3: includes kernels/sgemm/sgemm_args.h' --src src --only runtime
printf '#include "../../runtime/core.c"\n' >src/include/parray/core.h
expect 1 'include/parray/core.h:1: includes runtime/core.c' --src src --only runtime
# the rules are data: another file, a new layer
printf 'runtime/** -> include/parray/core.h\n' >rules
expect 1 'runtime/core.c:1: includes include/parray/core.h' --src src --only runtime --runtime-rules rules
printf 'nothing/** -> runtime/**\n' >rules
expect 1 'rules:1: no file matches nothing/**' --src src --only runtime --runtime-rules rules
printf 'runtime/**\n' >rules
expect 1 'not of the form FROM-GLOB... -> TO-GLOB...' --src src --only runtime --runtime-rules rules

finish "all passed"
