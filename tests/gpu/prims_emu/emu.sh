#!/bin/sh
# emu.sh - checks a program written with parray/primitives.cuh on the CPU:
# pac translates it for CUDA, the kernel launches become calls of shim.h's
# emulator (one thread per CUDA thread, warps and blocks with barriers), g++
# builds it and it runs its self-test; its output must be CASE.expected
# (PASS). No GPU needed: the primitives' logic -- packs, the scalar fallback,
# boundary predicates, shuffles, shared memory -- checked wherever the CUDA
# headers are installed (exit 77, skipped, where they are not). The runtime
# is libparray's host part, shim.h's stand-ins for the CUDA calls, and the
# NVTX ranges of runtime/cuda/nvtx.c (NVTX needs no GPU).
#   sh emu.sh BUILD_DIR CASE.pc [SAN]    (SAN: -fsanitize's list: thread, address,undefined)
set -u
bin=$(cd "${1:?usage: emu.sh BUILD_DIR CASE.pc [thread|address]}" && pwd)/bin
case=$2
here=$(cd "$(dirname "$0")" && pwd)
dir=$(cd "$(dirname "$case")" && pwd)
name=$(basename "$case" .pc)
cudainc=""
for d in ${CUDA_HOME:-/usr/local/cuda}/include /usr/local/cuda/include /usr/include; do
  [ -f "$d/cuda_fp16.h" ] && [ -f "$d/nvtx3/nvToolsExt.h" ] && { cudainc=$d; break; }
done
[ -n "$cudainc" ] || { echo "SKIP: no CUDA headers (cuda_fp16.h, nvtx3/nvToolsExt.h)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 1
"$bin/pac" -I"$here/../../../include" --emit=cuda --no-line "$name.pc" -o "$tmp/gen.cu" || exit 1
python3 - "$tmp/gen.cu" "$tmp/gen.cpp" <<'PY' || exit 1
import re, sys
s = open(sys.argv[1]).read().replace('#include "parray.h"', '#include "shim.h"')
s = re.sub(r'(\w+)<<<(.*?)>>>\(', lambda m: 'emu(%s, %s, ' % (m.group(2), m.group(1)), s)
open(sys.argv[2], 'w').write(s)
PY
san=""
[ -n "${3:-}" ] && san="-fsanitize=$3 -fno-sanitize-recover=all -g"
# shellcheck disable=SC2086 # san holds two words
cc -std=c11 -O1 $san -c -I"$here/../../../include" -I"$bin/../include" -isystem "$cudainc" \
  "$here/../../../runtime/cuda/nvtx.c" -o "$tmp/nvtx.o" || exit 1
# shellcheck disable=SC2086
g++ -std=c++20 -O1 $san -pthread -w -I"$here" -I"$dir" -I"$here/../../../include" -I"$cudainc" "$tmp/gen.cpp" \
  "$tmp/nvtx.o" "$bin/../lib/libparray.a" -lm -ldl -o "$tmp/emu" || exit 1
"$tmp/emu" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || { echo "exit status $rc"; cat "$tmp/out" "$tmp/err"; exit 1; }
diff -u "$name.expected" "$tmp/out"
