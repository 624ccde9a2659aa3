#!/bin/sh
# pacc_gcc.sh - pacc standing in for gcc and nvcc in a build (run by ctest,
# label install), one part a test:
#   pacc_gcc.sh BIN_DIR VERSION SANITIZE(1/0) PART
# ccache     CC="ccache cc": the second build of the same steps only hits
#            (separate -c, one command that links, -g), the commands pacc
#            runs are the same from one run to the next
# response   @FILE: quoting, nested files, options and inputs, an empty file;
#            a missing file or a loop is an error; never passed on as @FILE
# shared     -shared [-fPIC] builds a .so that a program links and runs
# asm        -S: NAME.s for each source, which assembles and links; CUDA's
#            host assembly with its device code (when nvcc is installed)
# tmpdir     TMPDIR: pacc's and pac's temporary files are made there, and
#            nothing is left; a missing or foreign folder is an error; the
#            same command run at once in parallel
# flags      -pedantic, -pedantic-errors, -isystem, -include, -static, -pipe
#            reach the compilers (translated for nvcc) and pac
# keep       --keep / -save-temps[=obj|cwd] name the kept translations
#            after the sources, beside the output or in the working folder
# version    -dumpversion prints the project's version; --help lists the
#            options above
# cuda_c     pac refuses to write CUDA it chose to a .c file name
# Exit 77 (skipped) where a part needs a tool that is missing (ccache).
set -u
bin=$(cd "$1" && pwd) version=$2 sanitize=$3 part=$4
pacc="$bin/pacc" pac="$bin/pac"
. "$(dirname "$0")/../common/shtest.sh"
ok() { "$@" >out 2>err || { cat out err; fail "$*"; }; }
bad() { "$@" >out 2>err && fail "accepted: $*"; }
uid=$(id -u)

# a C program in two .pc files and a .c file: prints 12 + 10 + 5
cat >a.pc <<'PC'
#parray {paged int [4]} A
int sum_a(void) {
  #create A(a)
  for (int i = 0; i < 4; i++) a[$A[i]$] = 2 * i;
  int s = 0;
  for (int i = 0; i < 4; i++) s += a[$A[i]$];
  #destroy A(a)
  return s;
}
PC
cat >m.pc <<'PC'
#include <stdio.h>
#parray {paged int [2]} B
int sum_a(void);
int helper(void);
int main(void) {
  #create B(b)
  b[1] = 5;
  int s = sum_a() + helper() + b[$B[1]$];
  #destroy B(b)
  printf("%d\n", s);
  return 0;
}
PC
echo 'int helper(void) { return 10; }' >c.c
# a GPU program (translated to CUDA)
cat >g.pc <<'PC'
#include <stdio.h>
#parray {cuda(float *out) [2][64]} G
#parray {dmem float [128]} D
int main(void) {
  #create D(d)
  #detour G(d) { out[$tid$] = 1.0f; }
  #destroy D(d)
  printf("ran\n");
  return 0;
}
PC
# a CC (or PAC_CPP) that records each command in LOG, then runs it
cat >wrap.sh <<'W'
#!/bin/sh
log=$1; shift
echo "$*" >>"$log"
exec "$@"
W
chmod +x wrap.sh
# an nvcc that does nothing
mkdir fakebin
printf '#!/bin/sh\nexit 0\n' >fakebin/nvcc
chmod +x fakebin/nvcc
runs() { # PROG EXPECTED
  out=$(./"$1" 2>&1)
  [ "$out" = "$2" ] || fail "$1 printed '$out', not '$2'"
}

part_ccache() {
  if ! command -v ccache >/dev/null 2>&1; then
    echo "ccache is not installed (tools/deps-test.sh installs it): skipped"
    exit 77
  fi
  if ! ccache --print-stats >/dev/null 2>&1; then
    echo "this ccache ($(ccache --version | head -n 1)) has no --print-stats: skipped"
    exit 77
  fi
  export CCACHE_DIR="$t/ccache"
  unset CCACHE_DISABLE CCACHE_RECACHE CCACHE_READONLY
  ccstat() { ccache --print-stats | sed -n "s/^$1[[:space:]]*//p"; }
  # STEP...: the build twice, the cache's hits and misses of the second
  twice() {
    "$@" || fail "the first build: $*"
    rm -f ./*.o prog
    ccache --zero-stats >/dev/null
    "$@" || fail "the second build: $*"
    hits=$(($(ccstat direct_cache_hit) + $(ccstat preprocessed_cache_hit)))
    misses=$(ccstat cache_miss)
  }
  sep() { CC="ccache cc" "$pacc" -g -O2 -c a.pc m.pc c.c && CC="ccache cc" "$pacc" a.o m.o c.o -o prog; }
  twice sep
  [ "$hits" = 3 ] && [ "$misses" = 0 ] || fail "pacc -c: the second build hit $hits times and missed $misses (3 and 0)"
  runs prog 27
  one() { CC="ccache cc" "$pacc" -g -O2 a.pc m.pc c.c -o prog; }
  twice one
  [ "$hits" = 3 ] && [ "$misses" = 0 ] || fail "one command: the second build hit $hits times and missed $misses (3 and 0)"
  runs prog 27
  # the commands themselves: the same each time, no random names
  for args in "-c a.pc" "-O2 a.pc m.pc c.c -o prog" "-S a.pc" "--emit=cuda -c a.pc"; do
    # shellcheck disable=SC2086 # args is several words
    "$pacc" '-###' $args 2>first
    # shellcheck disable=SC2086
    "$pacc" '-###' $args 2>second
    cmp -s first second || fail "pacc -### $args differs from one run to the next: $(diff first second)"
    grep -q "$uid/[0-9a-f]\{16\}/a.gen\"" first || fail "pacc -### $args: the translation is not TMP/pacc-$uid/KEY/a.gen: $(cat first)"
  done
}

part_response() {
  mkdir 'dir with space'
  cp a.pc 'dir with space/a b.pc'
  # quotes of both kinds, a backslash, a nested file, an option with a value
  cat >opts.rsp <<'R'
-O2 'dir with space/a b.pc'   "m.pc"
  -DGREETING="\"hi there\"" @more.rsp
R
  printf 'c.c\n-o my\\ prog\n' >more.rsp
  ok env CC="$t/wrap.sh $t/cc.log cc" "$pacc" @opts.rsp
  runs "my prog" 27
  grep -q '@' cc.log && fail "a response file reached the compiler or the linker: $(cat cc.log)"
  grep -q -- '-DGREETING="hi there"' cc.log || fail "the quoted -D did not reach cc as one word: $(cat cc.log)"
  # the words as pacc read them: -### quotes each
  ok "$pacc" '-###' @opts.rsp
  grep -q '"-DGREETING="hi there""' err || fail "-### does not show the -D as one word: $(cat err)"
  grep -q '"my prog"' err || fail "-### does not show -o 'my prog': $(cat err)"
  # an empty response file is no argument; linker inputs from one are linked
  : >empty.rsp
  printf 'a.o m.o\n-lm\n' >objs.rsp
  ok "$pacc" -c a.pc m.pc
  ok "$pacc" @empty.rsp @objs.rsp c.c -o fromrsp
  runs fromrsp 27
  # a missing file, a folder, a file naming itself: errors, nothing run
  bad env CC="$t/wrap.sh $t/cc2.log cc" "$pacc" @missing.rsp a.pc m.pc c.c -o never
  grep -q "cannot read the response file 'missing.rsp': No such file" err || fail "@missing.rsp: $(cat err)"
  [ -e cc2.log ] || [ -e never ] && fail "@missing.rsp: something was run"
  bad "$pacc" @'dir with space'
  grep -q "cannot read the response file 'dir with space'" err || fail "@FOLDER: $(cat err)"
  echo '@self.rsp' >self.rsp
  bad "$pacc" @self.rsp
  grep -q "response files nest deeper" err || fail "@self.rsp: $(cat err)"
}

part_shared() {
  cat >lib.pc <<'PC'
#parray {paged int [8]} L
int lib_sum(int n) {
  #create L(l)
  int s = 0;
  for (int i = 0; i < 8; i++) {
    l[$L[i]$] = i * n;
    s += l[$L[i]$];
  }
  #destroy L(l)
  return s;
}
PC
  echo 'int lib_twice(int x) { return 2 * x; }' >twice.c
  printf '#include <stdio.h>\nint lib_sum(int);\nint lib_twice(int);\nint main(void) { printf("%%d\\n", lib_twice(lib_sum(2))); return 0; }\n' >use.c
  ok "$pacc" -shared -fPIC lib.pc twice.c -o libpsum.so
  readelf -h libpsum.so 2>/dev/null | grep -q 'DYN (Shared object file)' || fail "libpsum.so is not a shared object"
  readelf --dyn-syms libpsum.so | grep -q ' lib_sum$' || fail "libpsum.so does not export lib_sum"
  ok "$pacc" use.c -L. -lpsum -Wl,-rpath,"$t" -o use
  runs use 112
  # -shared alone: the sources are compiled position-independent
  ok "$pacc" -v -shared lib.pc twice.c -o libpsum2.so
  [ "$(grep -c ' -fPIC .*-c ' err)" = 2 ] || fail "-shared without -fPIC: the compiles have no -fPIC: $(cat err)"
  grep -q '^[^ ]*cc .*-shared' err || fail "-shared did not reach the link: $(cat err)"
  ok "$pacc" use.c -L. -lpsum2 -Wl,-rpath,"$t" -o use2
  runs use2 112
  # -fpic given: no -fPIC added; CUDA: nvcc links with -shared, the host code gets -fPIC
  ok "$pacc" '-###' -shared -fpic lib.pc -o x.so
  grep -q fPIC err && fail "-shared -fpic: -fPIC was added: $(cat err)"
  ok "$pacc" '-###' -shared --emit=cuda lib.pc -o x.so
  grep -q '^"nvcc" .*"-Xcompiler=-fPIC" .*"-c"' err || fail "-shared, CUDA: no -Xcompiler=-fPIC: $(cat err)"
  grep -q '^"nvcc" .*"-o" "x.so" .*"-shared"' err || fail "-shared, CUDA: nvcc does not link with -shared: $(cat err)"
}

part_asm() {
  ok "$pacc" -S a.pc m.pc c.c
  for s in a.s m.s c.s; do [ -s $s ] || fail "-S did not write $s"; done
  grep -q 'sum_a' a.s || fail "a.s has no sum_a"
  grep -q '\.parray\.needs' a.s || fail "a.s has no .parray.needs section"
  [ -e a.o ] || [ -e a.gen.c ] && fail "-S left other files: $(ls)"
  for s in a m c; do cc -c $s.s -o $s.o || fail "$s.s does not assemble"; done
  readelf -p .parray.needs a.o | grep -q 'parray-needs 1 target=c' || fail "a.o (from a.s) has no needs"
  ok "$pacc" a.o m.o c.o -o fromasm
  runs fromasm 27
  ok "$pacc" -S -O2 a.pc -o other.s
  grep -q sum_a other.s || fail "-S -o other.s"
  bad "$pacc" -S a.pc m.pc -o x.s
  grep -q "cannot specify -o with -S and several" err || fail "-S -o with two sources: $(cat err)"
  ok "$pacc" -S c.c a.o
  grep -q "'a.o': linker input file unused with -S" err || fail "-S with an object: no warning: $(cat err)"
  # -S wins over -c, as in gcc
  rm -f a.s a.o
  ok "$pacc" -c -S a.pc
  [ -e a.s ] && [ ! -e a.o ] || fail "-c -S did not stop at the assembly"
  if ! command -v nvcc >/dev/null 2>&1; then
    echo "nvcc is not installed: -S of CUDA code not tried"
    return
  fi
  ok env PACC_CUDA_ARCH=sm_90 "$pacc" -S g.pc
  [ -s g.s ] || fail "-S g.pc wrote no g.s: $(cat err)"
  cc -c g.s -o g.o || fail "g.s does not assemble"
  readelf -p .parray.needs g.o | grep -q 'parray-needs 1 target=cuda' || fail "g.o (from g.s) does not say it needs CUDA"
  readelf -Ws g.o | grep -q __cudaRegisterFatBinary || fail "g.o (from g.s) does not register its device code"
}

part_tmpdir() {
  mkdir tmpA
  ok env TMPDIR="$t/tmpA" CC="$t/wrap.sh $t/cc.log cc" PAC_CPP="$t/wrap.sh $t/cpp.log cc -E" \
    "$pacc" -O2 a.pc m.pc c.c -o prog
  runs prog 27
  grep -q " $t/tmpA/pacc-$uid/[0-9a-f]\{16\}/a.gen.c " cc.log || fail "the translation was not compiled in TMPDIR: $(cat cc.log)"
  grep -q " -o $t/tmpA/pacc-$uid/[0-9a-f]\{16\}/m.o" cc.log || fail "the objects are not in TMPDIR: $(cat cc.log)"
  grep -q " $t/tmpA/pac-cpp-[^ ]*\.c$" cpp.log || fail "pac's preprocessor input is not in TMPDIR: $(cat cpp.log)"
  grep -q ' /tmp/pac' cc.log cpp.log && fail "a file in /tmp, not in TMPDIR: $(cat cc.log cpp.log)"
  [ -z "$(ls -A tmpA/pacc-"$uid")" ] && [ "$(ls -A tmpA)" = "pacc-$uid" ] || fail "files left in TMPDIR: $(ls -AR tmpA)"
  [ "$(stat -c %a tmpA/pacc-"$uid")" = 700 ] || fail "TMPDIR/pacc-$uid is not private: $(stat -c %a tmpA/pacc-"$uid")"
  # without TMPDIR: /tmp
  ok env -u TMPDIR "$pacc" '-###' -c a.pc
  grep -q "\"/tmp/pacc-$uid/[0-9a-f]\{16\}/a.gen\"" err || fail "without TMPDIR: $(cat err)"
  # -MD of pac itself (its preprocessor's rule) in TMPDIR too: a build still works
  ok env TMPDIR="$t/tmpA" "$pacc" -c -MMD a.pc
  [ -s a.d ] || fail "-MMD with TMPDIR: no a.d"
  # a TMPDIR that does not exist, a pacc-UID that others may write in
  bad env TMPDIR="$t/none" "$pacc" -c a.pc
  grep -q "cannot create the temporary folder '$t/none/pacc-$uid'" err || fail "TMPDIR missing: $(cat err)"
  mkdir -p open/pacc-"$uid"
  chmod 777 open/pacc-"$uid"
  bad env TMPDIR="$t/open" "$pacc" -c a.pc
  grep -q "is not a folder of this user's that only they may write in" err || fail "TMPDIR/pacc-UID open: $(cat err)"
  # the same command four times at once, and four commands at once: all
  # build (they take turns in one folder, or use their own)
  for i in 1 2 3 4; do TMPDIR="$t/tmpA" "$pacc" a.pc m.pc c.c -o same >"par$i.log" 2>&1 & done
  wait
  for i in 1 2 3 4; do TMPDIR="$t/tmpA" "$pacc" a.pc m.pc c.c -o "own$i" >"own$i.log" 2>&1 & done
  wait
  for i in 1 2 3 4; do
    [ -s "par$i.log" ] && fail "the same command at once, run $i: $(cat "par$i.log")"
    [ -s "own$i.log" ] && fail "four commands at once, run $i: $(cat "own$i.log")"
    runs "own$i" 27
  done
  runs same 27
  [ -z "$(ls -A tmpA/pacc-"$uid")" ] || fail "files left in TMPDIR after the parallel runs: $(ls -AR tmpA)"
}

part_flags() {
  mkdir sys
  printf 'typedef int myint;\n#define SCALE 3\n' >sys/mydefs.h
  printf '#define SYSONLY 5\n' >sys/sysonly.h
  cat >inc.pc <<'PC'
#include <stdio.h>
#include <sysonly.h>
#parray {paged myint [4]} A
int main(void) {
  #create A(a)
  for (int i = 0; i < 4; i++) a[$A[i]$] = SCALE * i;
  int s = 0;
  for (int i = 0; i < 4; i++) s += a[$A[i]$];
  #destroy A(a)
  printf("%d\n", s + SYSONLY);
  return 0;
}
PC
  ok "$pacc" -isystem sys -include sys/mydefs.h -pedantic -pipe -std=c11 -Wall -Werror inc.pc -o inc
  runs inc 23
  ok "$pacc" -isystemsys -include mydefs.h inc.pc -o inc2
  runs inc2 23
  bad "$pacc" inc.pc -o inc3
  grep -q 'sysonly.h' err || fail "without -isystem: $(cat err)"
  # where each goes: pac, cc, the link; nvcc gets the host compiler's through -Xcompiler
  ok "$pacc" '-###' -isystem sys -include sys/mydefs.h -pedantic -pedantic-errors -pipe -static inc.pc -o x
  grep -q '^"[^"]*/pac" .*"-isystem" "sys" "-include" "sys/mydefs.h"' err || fail "pac does not get -isystem/-include: $(cat err)"
  for o in '"-isystem" "sys"' '"-include" "sys/mydefs.h"' '"-pedantic"' '"-pedantic-errors"' '"-pipe"'; do
    grep "\"-c\"" err | grep -q -- "$o" || fail "cc does not get $o: $(cat err)"
  done
  grep '"-o" "x"' err | grep -q '"-static"' || fail "the link does not get -static: $(cat err)"
  ok env NVCC="$t/fakebin/nvcc" "$pacc" '-###' --emit=cuda -isystem sys -include sys/mydefs.h -pedantic -pipe -static \
    inc.pc -o x
  for o in '"-isystem" "sys"' '"-include" "sys/mydefs.h"' '"-Xcompiler=-pedantic"' '"-Xcompiler=-pipe"'; do
    grep "\"-c\"" err | grep -q -- "$o" || fail "nvcc does not get $o: $(cat err)"
  done
  grep '"-o" "x"' err | grep -q '"-Xcompiler=-static"' || fail "the nvcc link does not get -Xcompiler=-static: $(cat err)"
  # they really reach the compiler: -pedantic-errors fails an empty file
  echo '/* nothing */' >empty.c
  ok "$pacc" -c empty.c
  bad "$pacc" -c -pedantic-errors empty.c
  grep -q 'empty translation unit' err || fail "-pedantic-errors did not reach cc: $(cat err)"
  # -static: a program without a dynamic loader (where the C library has a static part)
  printf 'int main(void) { return 0; }\n' >plain.c
  if [ "$sanitize" = 1 ]; then
    echo "sanitizer build: -static not linked (ASan needs the dynamic loader)"
  elif ! cc -static plain.c -o plain_static 2>/dev/null; then
    echo "cc cannot link -static here (no static C library): -static not linked"
  else
    ok "$pacc" -static a.pc m.pc c.c -o st
    runs st 27
    readelf -l st | grep -q 'program interpreter' && fail "-static: st still has a dynamic loader"
  fi
  ok "$pacc" -v -pipe a.pc m.pc c.c -o piped
  grep -q -- ' -pipe .*a.gen.c' err || fail "-pipe did not reach cc: $(cat err)"
  runs piped 27
}

part_keep() {
  mkdir -p src/x src/y dest obj
  cp a.pc src/x/a.pc && cp m.pc src/y/m.pc && cp a.pc src/y/a.pc
  ok "$pacc" --keep src/x/a.pc src/y/m.pc c.c -o dest/prog
  for f in dest/a.gen.c dest/m.gen.c; do
    head -n 1 "$f" 2>/dev/null | grep -q '^/\* Generated by pac' || fail "--keep: no $f"
  done
  ls dest obj . | grep -q '\.[0-9][0-9]*\.gen\.' && fail "--keep: numbered names: $(ls dest .)"
  [ "$(ls dest)" = "$(printf 'a.gen.c\nm.gen.c\nprog')" ] || fail "--keep: dest/ holds $(ls dest)"
  ok "$pacc" -save-temps src/x/a.pc src/y/m.pc c.c -o dest/prog2
  [ -e a.gen.c ] && [ -e m.gen.c ] || fail "-save-temps: not in the working folder: $(ls)"
  rm -f a.gen.c m.gen.c
  ok "$pacc" -c -save-temps=obj src/x/a.pc -o obj/x.o
  [ -e obj/a.gen.c ] || fail "-save-temps=obj -c -o obj/x.o: no obj/a.gen.c: $(ls obj)"
  ok "$pacc" -c -save-temps=cwd src/y/m.pc -o obj/m.o
  [ -e m.gen.c ] || fail "-save-temps=cwd: no m.gen.c"
  # two sources of one name: the second gets -1
  ok "$pacc" --keep src/x/a.pc src/y/a.pc -c
  [ -e a.gen.c ] && [ -e a-1.gen.c ] || fail "two a.pc: $(ls)"
  # CUDA: NAME.gen.cu (nvcc stands in)
  ok env NVCC="$t/fakebin/nvcc" "$pacc" -c --keep g.pc -o obj/g.o
  head -n 1 obj/g.gen.cu 2>/dev/null | grep -q '^/\* Generated by pac' || fail "--keep: no obj/g.gen.cu: $(ls obj)"
}

part_version() {
  ok "$pacc" -dumpversion
  [ "$(cat out)" = "$version" ] || fail "pacc -dumpversion printed '$(cat out)', the project's version is $version"
  ok "$pacc" -dumpversion a.pc -o never
  [ "$(cat out)" = "$version" ] && [ ! -e never ] || fail "-dumpversion with inputs: '$(cat out)'"
  [ "$("$pacc" --version)" = "pacc $version" ] || fail "pacc --version: $("$pacc" --version)"
  [ "$("$pac" --version)" = "pac $version" ] || fail "pac --version: $("$pac" --version)"
  # --help lists the options of this file
  ok "$pacc" --help
  for o in -S -shared @FILE -isystem -include -pedantic -pipe -static -save-temps --keep -dumpversion TMPDIR; do
    grep -q -- "$o" out || fail "pacc --help does not list $o"
  done
  ok "$pac" --help
  for o in -isystem -include; do grep -q -- "$o" out || fail "pac --help does not list $o"; done
}

part_cuda_c() {
  bad "$pac" g.pc -o g.c
  grep -q "translation is CUDA .* 'g.c' is a C file name.*name the output .cu" err || fail "pac g.pc -o g.c: $(cat err)"
  [ -e g.c ] && fail "pac wrote g.c"
  bad "$pac" -MD g.pc -o g.c
  [ -e g.c ] || [ -e g.d ] && fail "pac -MD wrote g.c or g.d"
  bad "$pacc" -E g.pc -o g.c
  grep -q "name the output .cu" err || fail "pacc -E g.pc -o g.c: $(cat err)"
  ok "$pac" g.pc -o g.cu
  grep -q '^/\* pac: target=cuda' g.cu || fail "pac g.pc -o g.cu"
  ok "$pac" --emit=cuda g.pc -o asked.c # asked for: written
  grep -q '^/\* pac: target=cuda' asked.c || fail "--emit=cuda -o asked.c"
  ok "$pac" a.pc -o a.c
  grep -q '^/\* pac: target=c ' a.c || fail "pac a.pc -o a.c"
  ok "$pac" g.pc -o - # stdout: no name to judge
}

case $part in
  ccache | response | shared | asm | tmpdir | flags | keep | version | cuda_c) "part_$part" ;;
  *) echo "pacc_gcc.sh: unknown part '$part'"; exit 2 ;;
esac
finish "pacc $part: all checks passed"
