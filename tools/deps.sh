#!/bin/sh
# deps.sh - install what pac needs on Debian/Ubuntu (run as root): a C
# compiler, CMake, Ninja, flex, bison, Open MPI, and for the tests python3
# (tools/stages.sh, with binutils' nm and objdump), ccache (pacc under
# CC="ccache cc", tests/install/pacc_gcc.sh), csmith,
# clang with libFuzzer (tests/fuzz), GCC's source (gcc-12-source, whose C
# torture suite the torture tests run) and FFTW3 with its MPI part (the FFT
# example, examples/fft, and its benchmark peer, bench/fft). Where the CUDA
# toolkit is present but NCCL's header is not (neither in the toolkit nor
# in the system), the PyPI wheel nvidia-nccl-cu13 (cu12 for CUDA 12), the
# transport of distributed device arrays (cmake/ParrayNccl.cmake finds it).
# Installs nothing when not root (prints what is missing instead; without
# GCC's source the torture tests report themselves skipped).
set -eu
need=""
for c in cc cmake ninja flex bison mpicc mpirun csmith bc clang python3 nm objdump ccache; do
  command -v "$c" >/dev/null 2>&1 || need="$need $c"
done
# libFuzzer: clang can link a fuzz target
if command -v clang >/dev/null 2>&1; then
  probe=$(mktemp -d)
  printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return (int)(n && d[0]); }\n' >"$probe/p.c"
  clang -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" >/dev/null 2>&1 || need="$need libFuzzer"
  rm -rf "$probe"
fi
# FFTW3, single and double precision, and FFTW-MPI (headers are enough to tell)
[ -e /usr/include/fftw3.h ] && [ -e /usr/include/fftw3-mpi.h ] || need="$need fftw3"
# NCCL: the CUDA toolkit's, the system's, or the wheel's
nccl=""
if command -v nvcc >/dev/null 2>&1; then
  cuda=$(dirname "$(dirname "$(command -v nvcc)")")
  if [ ! -e "$cuda/include/nccl.h" ] && [ ! -e /usr/include/nccl.h ] && [ ! -e /usr/local/include/nccl.h ] &&
    ! python3 -c "import nvidia.nccl" >/dev/null 2>&1; then
    v=$(nvcc --version | sed -n 's/.*release \([0-9][0-9]*\)\..*/\1/p')
    [ "${v:-13}" -ge 13 ] && nccl=nvidia-nccl-cu13 || nccl=nvidia-nccl-cu12
  fi
fi
gccsrc=""
ls /usr/src/gcc-*/gcc-[0-9]*.tar.* >/dev/null 2>&1 || gccsrc=gcc-12-source
if [ "$(id -u)" != 0 ]; then
  [ -z "$gccsrc" ] || echo "note: gcc-12-source is not installed, so the torture tests will be skipped (run this script as root to install it)" >&2
  [ -z "$nccl" ] || echo "note: NCCL is not installed, so distributed device arrays move through host memory (pip install $nccl)" >&2
  [ -z "$need" ] || { echo "missing:$need -- run this script as root (or install them) first" >&2; exit 1; }
  exit 0
fi
[ -n "$need$gccsrc$nccl" ] || exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ -n "$need" ]; then
  apt-get install -y -qq --no-install-recommends build-essential binutils cmake ninja-build flex bison \
    openmpi-bin libopenmpi-dev csmith libcsmith-dev bc clang python3 libfftw3-dev libfftw3-mpi-dev ccache >/dev/null
  # libFuzzer's runtime: its own package on Debian 12 (libclang-rt-14-dev for
  # clang 14), part of libclang-common-*-dev elsewhere (installed with clang)
  v=$(clang --version | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n 1)
  if [ -n "$v" ] && apt-cache show "libclang-rt-$v-dev" >/dev/null 2>&1; then
    apt-get install -y -qq --no-install-recommends "libclang-rt-$v-dev" >/dev/null
  fi
fi
if [ -n "$gccsrc" ]; then
  apt-get install -y -qq --no-install-recommends "$gccsrc" >/dev/null
fi
if [ -n "$nccl" ]; then
  python3 -m pip --version >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
  python3 -m pip install -q "$nccl" 2>/dev/null || python3 -m pip install -q --break-system-packages "$nccl" ||
    echo "note: pip could not install $nccl; distributed device arrays will move through host memory" >&2
fi
