#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - the NVTX profiler ranges of CUDA programs (docs/cuda.md,
# "Profiler ranges"), read back through the test's NVTX tool (inject.c,
# loaded by NVTX from NVTX_INJECTION64_PATH, logging to NVTX_TEST_LOG).
#   sh run.sh cpu BUILD_DIR   no GPU: the tool and runtime/cuda/nvtx.c with a
#                             plain C program (selftest.c, selftest.expected);
#                             pac's output of nvtx.pc has one range per
#                             directive, and none with --no-nvtx or for the C target
#   sh run.sh gpu BUILD_DIR   nvtx.pc built by pacc and run on the GPU with the
#                             tool: the ranges of nvtx.ranges in order, in the
#                             domain "parray", named file:line text, each name
#                             registered once; built with --no-nvtx: no NVTX call
#   sh run.sh emu BUILD_DIR [SAN]   the same checks with nvtx.pc run on the CPU by the
#                             emulator of tests/gpu/prims_emu (no GPU, no nvcc)
# Exit 77 (skipped): no CUDA headers with nvtx3, no GPU (gpu), no python3 or
# g++ (emu).
set -u
export LC_ALL=C
mode=${1:?usage: run.sh cpu|gpu|emu BUILD_DIR} build=$(cd "${2:?usage: run.sh cpu|gpu|emu BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cudainc=""
for d in ${CUDA_HOME:-/usr/local/cuda}/include /usr/local/cuda/include /usr/include; do
  [ -f "$d/nvtx3/nvToolsExt.h" ] && [ -f "$d/cuda_runtime_api.h" ] && { cudainc=$d; break; }
done
[ -n "$cudainc" ] || { echo "SKIP: no CUDA headers with nvtx3/nvToolsExt.h"; exit 77; }
if [ "$mode" = gpu ] && ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "SKIP: no CUDA device on this machine"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
CC=${CC:-cc}
# shellcheck disable=SC2086 # CC may hold a launcher and the compiler
$CC -std=c11 -Wall -Wextra -Werror -fPIC -shared -isystem "$cudainc" "$here/inject.c" -o "$tmp/inject.so" -lpthread ||
  fail "the NVTX tool does not compile"

# the names pac gives the ranges of nvtx.pc, in the order it runs them: each
# line of nvtx.ranges as "nvtx.pc:LINE TEXT", LINE the first line of nvtx.pc
# that begins with the text (a #detour's text is "#detour TYPE")
expected_names() {
  while IFS= read -r text; do
    n=$(awk -v t="$text" '{ s = $0; sub(/^[ \t]+/, "", s) } index(s, t) == 1 { print NR; exit }' "$here/nvtx.pc")
    [ -n "$n" ] || fail "nvtx.ranges: '$text' is not in nvtx.pc"
    printf 'nvtx.pc:%s %s\n' "$n" "$text"
  done <"$here/nvtx.ranges"
}
expected_names >"$tmp/names" || exit 1
sort -u "$tmp/names" >"$tmp/names.sites"

if [ "$mode" = cpu ]; then
  # the tool and the runtime's ranges, with and without the tool
  # shellcheck disable=SC2086
  $CC -std=c11 -Wall -Wextra -Werror -I"$root/include" -I"$build/include" -isystem "$cudainc" "$here/selftest.c" \
    "$root/runtime/cuda/nvtx.c" -o "$tmp/selftest" -lpthread -ldl || fail "selftest.c does not compile"
  NVTX_INJECTION64_PATH=$tmp/inject.so NVTX_TEST_LOG=$tmp/log "$tmp/selftest" >"$tmp/out" || fail "selftest failed"
  cat "$tmp/out" "$tmp/log" >"$tmp/both"
  diff -u "$here/selftest.expected" "$tmp/both" || fail "the tool logged other ranges than selftest.expected"
  env -u NVTX_INJECTION64_PATH NVTX_TEST_LOG="$tmp/log.none" "$tmp/selftest" >/dev/null || fail "selftest failed without a tool"
  [ ! -e "$tmp/log.none" ] || fail "without NVTX_INJECTION64_PATH the tool was loaded"
  # pac: a range around each directive's host code, named as the runtime will register it
  cd "$here" || exit 1
  "$build/bin/pac" nvtx.pc -o "$tmp/on.cu" || fail "pac nvtx.pc"
  while IFS= read -r name; do
    file=${name%%:*} rest=${name#*:}
    lit="{\"$file\" \":$rest\", 0, 0, 0}"
    [ "$(grep -c -F -- "$lit" "$tmp/on.cu")" -eq 1 ] || fail "no one range named '$name' in pac's output"
  done <"$tmp/names.sites"
  sites=$(wc -l <"$tmp/names.sites")
  pushes=$(grep -o 'parray_range_push(&' "$tmp/on.cu" | wc -l)
  pops=$(grep -o 'parray_range_pop(&' "$tmp/on.cu" | wc -l)
  if [ "$pushes" -ne "$sites" ] || [ "$pops" -ne "$pushes" ]; then
    fail "pac printed $pushes pushes and $pops pops for $sites directives"
  fi
  "$build/bin/pac" --no-nvtx nvtx.pc -o "$tmp/off.cu" || fail "pac --no-nvtx nvtx.pc"
  ! grep -q 'parray_range\|parray__range' "$tmp/off.cu" || fail "pac --no-nvtx printed a range"
  # the C target has no ranges (the pthreads example)
  "$build/bin/pac" "$root/examples/matmul_2_pthd.pc" -o "$tmp/pthd.c" || fail "pac matmul_2_pthd.pc"
  ! grep -q 'parray_range' "$tmp/pthd.c" || fail "a C program got ranges"
  # pacc passes --no-nvtx to pac
  "$build/bin/pacc" -E --no-nvtx nvtx.pc -o "$tmp/pacc_off.cu" || fail "pacc -E --no-nvtx"
  ! grep -q 'parray_range' "$tmp/pacc_off.cu" || fail "pacc --no-nvtx printed a range"
  echo "PASS"
  exit 0
fi

# nvtx.pc built in two ways into $tmp/on and $tmp/off (without ranges)
cd "$here" || exit 1
if [ "$mode" = emu ]; then
  # on the CPU: the kernel launches become calls of the emulator of
  # tests/gpu/prims_emu (shim.h: one thread per CUDA thread, the CUDA
  # runtime's calls stood in for); the ranges are the runtime's own
  for t in python3 g++; do
    command -v $t >/dev/null 2>&1 || { echo "SKIP: the emulation needs python3 and g++"; exit 77; }
  done
  emu=$root/tests/gpu/prims_emu
  # under PARRAY_SANITIZE (SAN: -fsanitize's list) the emulated program is
  # sanitized too, as the runtime it links
  san=""
  [ -n "${3:-}" ] && san="-fsanitize=$3 -fno-sanitize-recover=all -g"
  # shellcheck disable=SC2086
  $CC $san -std=c11 -c -I"$root/include" -I"$build/include" -isystem "$cudainc" "$root/runtime/cuda/nvtx.c" \
    -o "$tmp/nvtx.o" || fail "runtime/cuda/nvtx.c does not compile"
  for v in on off; do
    opt=""
    [ "$v" = off ] && opt=--no-nvtx
    "$build/bin/pac" --emit=cuda --no-line $opt nvtx.pc -o "$tmp/$v.cu" || fail "pac $opt nvtx.pc"
    python3 - "$tmp/$v.cu" "$tmp/$v.cpp" <<'PY' || fail "the emulation's rewriting"
import re, sys
s = open(sys.argv[1]).read().replace('#include "parray.h"', '#include "shim.h"')
s = re.sub(r'(\w+)<<<(.*?)>>>\(', lambda m: 'emu(%s, %s, ' % (m.group(2), m.group(1)), s)
open(sys.argv[2], 'w').write(s)
PY
    # shellcheck disable=SC2086
    g++ $san -std=c++20 -O1 -pthread -w -I"$emu" -I"$root/include" -I"$build/include" -I"$cudainc" "$tmp/$v.cpp" \
      "$tmp/nvtx.o" "$build/lib/libparray.a" -lm -ldl -o "$tmp/$v" || fail "the emulated nvtx.pc ($v) does not build"
  done
else
  "$build/bin/pacc" -O2 nvtx.pc -o "$tmp/on" || fail "pacc nvtx.pc"
  "$build/bin/pacc" -O2 --no-nvtx nvtx.pc -o "$tmp/off" || fail "pacc --no-nvtx nvtx.pc"
fi
NVTX_INJECTION64_PATH=$tmp/inject.so NVTX_TEST_LOG=$tmp/log.on timeout 120 "$tmp/on" >"$tmp/out.on" ||
  fail "nvtx.pc with ranges: exit status $?"
NVTX_INJECTION64_PATH=$tmp/inject.so NVTX_TEST_LOG=$tmp/log.off timeout 120 "$tmp/off" >"$tmp/out.off" ||
  fail "nvtx.pc without ranges: exit status $?"
for v in on off; do
  [ "$(cat "$tmp/out.$v")" = PASS ] || fail "nvtx.pc ($v) printed: $(cat "$tmp/out.$v")"
done
touch "$tmp/log.on" "$tmp/log.off"
# pushes and pops of the domain parray, in order, balanced
while IFS= read -r name; do printf 'push\tparray\t%s\npop\tparray\n' "$name"; done <"$tmp/names" >"$tmp/want"
grep -E '^(push|pop|push-unregistered)	' "$tmp/log.on" >"$tmp/got"
diff -u "$tmp/want" "$tmp/got" || fail "the ranges recorded differ from nvtx.ranges"
# the domain created once, each name registered once and in the domain parray
[ "$(grep -c '^domain	parray$' "$tmp/log.on")" -eq 1 ] || fail "the domain parray was not created exactly once"
[ "$(grep -c '^domain	' "$tmp/log.on")" -eq 1 ] || fail "another domain was created"
while IFS= read -r name; do printf 'register\tparray\t%s\n' "$name"; done <"$tmp/names.sites" >"$tmp/want.reg"
grep '^register	' "$tmp/log.on" | sort >"$tmp/got.reg"
diff -u "$tmp/want.reg" "$tmp/got.reg" || fail "each range's name must be registered once, in the domain parray"
# --no-nvtx: not one NVTX call (NVTX never even loaded the tool)
[ ! -s "$tmp/log.off" ] || { cat "$tmp/log.off"; fail "the program built with --no-nvtx made NVTX calls"; }
echo "PASS"
