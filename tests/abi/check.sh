#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check.sh - the generated-code ABI (include/parray/README.md): everything
# that pac's output calls of the runtime is declared by parray.h and the
# headers it includes. Translates the example and test programs of the
# repository, then
#   1. compiles every C result with -Werror=implicit-function-declaration
#      (a call of an undeclared runtime function is an error), and
#   2. checks that every parray_ function a result calls, C or CUDA (which
#      this machine may not compile), is declared in parray.h's headers,
#      except the names the .pc source itself writes (calls of user code)
#      and the names the result defines (the outlined bodies, parray__*).
#   sh check.sh PAC SOURCE_ROOT GENERATED_INCLUDE CC [MPI_INCLUDE_DIRS]
# MPI_INCLUDE_DIRS: ;-separated; without it, programs using MPI are only
# checked by step 2.
set -u
pac=$1 root=$2 geninc=$3 cc=$4 mpiinc=${5:-}
tmp=${TMPDIR:-/tmp}/parray_abi.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
inc=$root/include
abi="$inc/parray.h $inc/parray/core.h $inc/parray/pthd.h $inc/parray/mpi.h $inc/parray/cuda.h $inc/parray/reduce.cuh $geninc/parray/version.h"
mflags=""
if [ -n "$mpiinc" ]; then
  oldifs=$IFS IFS=';'
  for d in $mpiinc; do mflags="$mflags -I$d"; done
  IFS=$oldifs
fi
# the declared names: NAME( after a type, a function-like macro, or a struct
# (the operators of reduce.cuh, called as NAME())
sed -e 's|/\*.*\*/||g' $abi | grep -oE '(\bparray_[A-Za-z0-9_]+ *\(|#define +parray_[A-Za-z0-9_]+\(|struct +parray_[A-Za-z0-9_]+ *\{)' |
  sed -e 's/#define *//' -e 's/^struct *//' -e 's/ *[({]$//' | sort -u >"$tmp/declared"
[ -s "$tmp/declared" ] || { echo "abi: no declarations found in $abi"; exit 1; }

fail=0 n=0 nc=0
for f in $(cd "$root" && find examples tests/compiler/golden tests/compiler/run tests/mpi tests/gpu docs -name '*.pc' | sort); do
  src=$root/$f
  case $f in */cppfail_*) continue ;; esac # tests of a failing preprocessor
  out=$tmp/out.c
  if ! "$pac" -I "$(dirname "$src")" "$src" -o "$out" >/dev/null 2>&1; then
    out=$tmp/out.cu # a CUDA translation
    "$pac" -I "$(dirname "$src")" "$src" -o "$out" >/dev/null 2>&1 || continue
  fi
  n=$((n + 1))
  # 2. every runtime call declared
  grep -oE '\bparray_[A-Za-z0-9_]+ *\(' "$out" | sed 's/ *($//' | sort -u >"$tmp/called"
  grep -oE '\bparray_[A-Za-z0-9_]+' "$src" | sort -u >"$tmp/user"
  for name in $(comm -23 "$tmp/called" "$tmp/declared" | comm -23 - "$tmp/user"); do
    case $name in parray__*) continue ;; esac
    echo "abi: $f: generated code calls $name, which parray.h does not declare"
    fail=1
  done
  # 1. the C results compile against parray.h
  case $out in *.cu) continue ;; esac
  if head -3 "$out" | grep -q 'mpi=1'; then [ -n "$mflags" ] || continue; fi
  nc=$((nc + 1))
  if ! "$cc" -std=gnu11 -x c -fsyntax-only -Werror=implicit-function-declaration -I "$(dirname "$src")" \
    -I "$inc" -I "$geninc" $mflags "$out" >"$tmp/cc.log" 2>&1; then
    echo "abi: $f: the generated C does not compile against parray.h:"
    head -20 "$tmp/cc.log"
    fail=1
  fi
done
echo "abi: $n programs translated, $nc C results compiled"
[ "$n" -gt 0 ] || { echo "abi: no program translated"; exit 1; }
exit $fail
