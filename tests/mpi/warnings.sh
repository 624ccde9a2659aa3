#!/bin/sh
# warnings.sh - the code pac generates for a program compiles without a
# warning under -Wall -Wextra -Werror.
#   warnings.sh BIN_DIR CASE.pc                   a host program, through pacc (mpicc)
#   warnings.sh BIN_DIR CASE.pc --emulated DIR    a CUDA program without kernels: pac --emit=cuda,
#                                                 then mpicc (or $MPICC) with DIR's emulated CUDA runtime
# Exit 77 (skipped) without mpicc.
set -u
bin=$1 case=$2 mode=${3:-} emu=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
mpicc=${MPICC:-mpicc}
command -v "$mpicc" >/dev/null 2>&1 || { echo "no $mpicc: skipped"; exit 77; }
[ -n "$emu" ] && emu=$(cd "$emu" && pwd)
dir=$(cd "$(dirname "$case")" && pwd)
name=$(basename "$case")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 1
flags="-Wall -Wextra -Werror"
if [ "$mode" = --emulated ]; then
  "$bin/pac" --emit=cuda "$name" -o "$tmp/prog.c" || exit 1
  # parray.h includes parray/cuda.h under nvcc only: here, as nvcc would (the waits for detours)
  $mpicc $flags -I "$emu" -I "$here/../../include" -include parray/cuda.h -c "$tmp/prog.c" -o "$tmp/prog.o"
else
  "$bin/pacc" $flags -c "$name" -o "$tmp/prog.o"
fi
