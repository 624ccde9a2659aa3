#!/bin/sh
# header.sh - include/parray/atomic.h compiles without a warning as C11 (cc),
# as C++ (c++) and as CUDA C++ (nvcc, where it exists: host and device, for
# the oldest and newest architecture it knows, the oldest also as PTX, which
# a GPU between them runs: CUDA's fallbacks of old architectures, such as the
# loop of __nv_bfloat16 add before sm_80), and ops.c passes in each.
#   header.sh SOURCE_DIR           all three
#   header.sh SOURCE_DIR --device  the CUDA C++ build's kernel run on the GPU
#                                  (exit 77 = skipped without nvcc or a GPU)
set -u
src=$(cd "$1" && pwd)
here=$src/tests/compiler/atomic
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
device=${2:-}
try() { # NAME COMMAND...: compile, then run the program (with $device)
  name=$1; shift
  if ! "$@" -o "$tmp/$name" >"$tmp/log" 2>&1 || grep -qi warning "$tmp/log"; then
    echo "FAIL $name: $*"; cat "$tmp/log"; fail=1; return
  fi
  "$tmp/$name" $device >"$tmp/out"
  rc=$?
  [ "$rc" = 77 ] && { cat "$tmp/out"; exit 77; }
  [ "$rc" = 0 ] && grep -qx PASS "$tmp/out" || { echo "FAIL $name (run)"; cat "$tmp/out"; fail=1; return; }
  echo "ok   $name"
}
if [ -n "$device" ] && ! command -v "${NVCC:-nvcc}" >/dev/null 2>&1; then echo "SKIP: no nvcc"; exit 77; fi
[ -n "$device" ] || try c11 "${CC:-cc}" -std=c11 -pedantic -Wall -Wextra -Werror -I"$src/include" "$here/ops.c"
cp "$here/ops.c" "$tmp/ops.cpp"
[ -n "$device" ] || try cxx "${CXX:-c++}" -Wall -Wextra -Werror -I"$src/include" "$tmp/ops.cpp"
if command -v "${NVCC:-nvcc}" >/dev/null 2>&1; then
  cp "$here/ops.c" "$tmp/ops.cu"
  archs=$("${NVCC:-nvcc}" --list-gpu-arch 2>/dev/null | sed -n 's/^compute_//p' | sort -n)
  lo=$(echo "$archs" | head -1) hi=$(echo "$archs" | tail -1)
  try nvcc "${NVCC:-nvcc}" -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -I"$src/include" \
    -gencode "arch=compute_$lo,code=[sm_$lo,compute_$lo]" -gencode arch=compute_$hi,code=sm_$hi "$tmp/ops.cu"
else
  echo "no nvcc: the CUDA C++ part is not compiled"
fi
exit $fail
