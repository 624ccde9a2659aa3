#!/bin/sh
# pacc_link.sh - separate compilation: objects from `pacc -c` carry what
# they need (section .parray.needs), and `pacc X.o ... -o PROG` picks the
# linker and runtime libraries from them, also inside an archive.
#   pacc_link.sh BIN_DIR TESTS_DIR [MPIEXEC]
# MPI: an mpi program compiled to an object, linked from it and from an
# archive, run under MPIEXEC with 4 processes. CUDA (where nvcc exists): a
# GPU program compiled to an object records "cuda"; linked with nvcc and the
# CUDA runtime when it was built (running it without a GPU must stop with a
# clear message, not crash), else refused with a message naming CUDA; nvcc's
# diagnostics name the .pc file; a program with a tma #copy built for a 9.0
# GPU (PACC_GPU_CC=9.0) is compiled by ptxas for sm_90a.
set -u
bin=$1 tests=$(cd "$2" && pwd) mpiexec=${3:-}
pacc="$bin/pacc"
. "$(dirname "$0")/../common/shtest.sh"
checked=0
lib="$bin/../lib"

# a plain program: no cuda or mpi in its needs, linked with cc
printf '#include <stdio.h>\n#parray {paged int [3]} P\nint main(void) { printf("%%d\\n", $P[2]$); return 0; }\n' >plain.pc
"$pacc" -c plain.pc 2>err || { cat err; fail "pacc -c plain.pc"; }
readelf -p .parray.needs plain.o | grep -q 'parray-needs 1 target=c$' || fail "plain.o: wrong needs"
"$pacc" -v plain.o -o plain 2>err || { cat err; fail "linking plain.o"; }
grep -q -- '-lparray_mpi\|-lparray_cuda' err && fail "plain.o linked with the MPI or CUDA runtime: $(cat err)"
[ "$(./plain)" = 2 ] || fail "plain printed '$(./plain)'"

if [ -n "$mpiexec" ] && [ -f "$lib/libparray_mpi.a" ]; then
  checked=$((checked + 1))
  cp "$tests/mpi/scatter_gather.pc" "$tests/mpi/scatter_gather.expected" .
  "$pacc" -O2 -c scatter_gather.pc 2>err || { cat err; fail "pacc -c scatter_gather.pc"; }
  readelf -p .parray.needs scatter_gather.o | grep -q 'parray-needs 1 target=c.* mpi\( \|$\)' || fail "the mpi object does not say mpi"
  mkdir moved && mv scatter_gather.o moved/sg.o
  ar rcs libsg.a moved/sg.o
  for input in moved/sg.o libsg.a; do
    rm -f prog
    "$pacc" -v "$input" -o prog 2>err || { cat err; fail "linking $input"; continue; }
    grep -q -- '-lparray_mpi' err || fail "$input: not linked with the MPI runtime: $(cat err)"
    timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np 4 ./prog >out 2>err
    [ $? = 0 ] || { cat err; fail "$input: the program failed"; }
    diff -u scatter_gather.expected out || fail "$input: wrong output"
  done
else
  echo "note: MPI runtime or mpiexec missing: the MPI part is not checked"
fi

nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null 2>&1 || { [ -x /usr/local/cuda/bin/nvcc ] && export NVCC=/usr/local/cuda/bin/nvcc && nvcc=$NVCC; }
if command -v "$nvcc" >/dev/null 2>&1; then
  checked=$((checked + 1))
  cp "$tests/gpu/bad_gpu.pc" "$tests/gpu/bad_gpu.expected" .
  "$pacc" -c bad_gpu.pc -arch=sm_80 2>err || { cat err; fail "pacc -c bad_gpu.pc"; }
  readelf -p .parray.needs bad_gpu.o | grep -q 'parray-needs 1 target=cuda\( \|$\)' || fail "the GPU object does not say cuda"
  mkdir -p g && mv bad_gpu.o g/gpu.o
  # nvcc's messages name the .pc file, never the temporary translation
  printf '#parray {dmem float [4]} D\nint main(void) {\n  return undeclared_gpu;\n}\n' >g/err.pc
  "$pacc" -c g/err.pc -arch=sm_80 2>err && fail "g/err.pc was accepted"
  grep -q '^g/err.pc(3): error: identifier "undeclared_gpu"' err || fail "nvcc's error does not name g/err.pc: $(cat err)"
  grep -q 'compilation of "g/err.pc"' err || fail "nvcc's summary does not name g/err.pc: $(cat err)"
  grep -q '/tmp/pacc-' err && fail "a diagnostic names a temporary file: $(cat err)"
  # a tma #copy on a 9.0 GPU: the architecture-specific target (docs/cli.md)
  cp "$tests/gpu/copy_tma.pc" .
  if env -u PACC_CUDA_ARCH PACC_GPU_CC=9.0 "$pacc" -v -c copy_tma.pc -Xptxas -v 2>err; then
    grep -q "nvcc.* -arch=sm_90a " err || fail "copy_tma.pc on a 9.0 GPU: not -arch=sm_90a: $(cat err)"
    grep -q "ptxas info *: Compiling entry function .* for 'sm_90a'" err ||
      fail "copy_tma.pc on a 9.0 GPU: ptxas did not compile for sm_90a: $(cat err)"
  else
    cat err; fail "pacc -c copy_tma.pc for a 9.0 GPU"
  fi
  if [ -f "$lib/libparray_cuda.a" ]; then
    "$pacc" -v g/gpu.o -arch=sm_80 -o gprog 2>err || { cat err; fail "linking the GPU object"; }
    grep -q "nvcc.* g/gpu.o .*-lparray_cuda" err || fail "not linked by nvcc with the CUDA runtime: $(cat err)"
    ./gprog >out 2>err
    rc=$?
    [ "$rc" -ge 1 ] && [ "$rc" -lt 128 ] || fail "the GPU program ended with status $rc (want a clean error)"
    grep -q 'bad_gpu.pc:3: error:' err || fail "the GPU program's error does not name bad_gpu.pc:3: $(cat err)"
  else
    "$pacc" g/gpu.o -o gprog 2>err && fail "linked a CUDA object without the CUDA runtime"
    grep -q "uses CUDA but the Parray runtime was built without it" err || fail "no message: $(cat err)"
  fi
else
  echo "note: nvcc not found: the CUDA part is not checked"
fi

finish "all separate compilation checks passed ($checked of MPI, CUDA)"
