#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# deps-test.sh - install, on top of what tools/deps.sh installs, the tools
# that only the test suite (tools/test.sh) uses, on Debian/Ubuntu: python3
# (tools/stages.sh, the release and docs checks), bc, csmith, clang with
# libFuzzer (tests/fuzz), GCC's source (gcc-12-source, whose C torture suite
# the torture tests run), FFTW3 with its MPI part (the FFT example's tests and
# its benchmark peer), pkg-config (the install tests' Makefile project), ccache
# (pacc under CC="ccache cc", tests/install/pacc_gcc.sh), vim (the editor
# test), groff (the man pages test) and gdb (tests/debug).
# Run as root (installs what is missing). As another user it installs
# nothing: it names what is missing and exits 1 when a test would fail for
# it; the tests that report themselves skipped without a tool (torture
# without GCC's source, the editor test without vim, the man pages test
# without groff, the ccache part of pacc_gcc.sh without ccache, the debugger
# test without gdb) only get a note.
set -eu
need=""
for c in python3 bc csmith clang nm objdump pkg-config; do
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
# tools whose tests report themselves skipped without them
optional=""
ls /usr/src/gcc-*/gcc-[0-9]*.tar.* >/dev/null 2>&1 || optional="$optional gcc-12-source"
command -v vim >/dev/null 2>&1 || optional="$optional vim"
command -v groff >/dev/null 2>&1 || optional="$optional groff-base"
command -v ccache >/dev/null 2>&1 || optional="$optional ccache"
command -v gdb >/dev/null 2>&1 || optional="$optional gdb"
if [ "$(id -u)" != 0 ]; then
  [ -z "$optional" ] || echo "note: not installed:$optional -- the tests that need them will report themselves skipped" >&2
  [ -z "$need" ] || { echo "missing for the tests:$need -- run this script as root (or install them) first" >&2; exit 1; }
  exit 0
fi
[ -n "$need$optional" ] || exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ -n "$need" ]; then
  apt-get install -y -qq --no-install-recommends binutils csmith libcsmith-dev bc clang python3 pkg-config \
    libfftw3-dev libfftw3-mpi-dev >/dev/null
  # libFuzzer's runtime: its own package on Debian 12 (libclang-rt-14-dev for
  # clang 14), part of libclang-common-*-dev elsewhere (installed with clang)
  v=$(clang --version | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n 1)
  if [ -n "$v" ] && apt-cache show "libclang-rt-$v-dev" >/dev/null 2>&1; then
    apt-get install -y -qq --no-install-recommends "libclang-rt-$v-dev" >/dev/null
  fi
fi
if [ -n "$optional" ]; then
  # shellcheck disable=SC2086 # a list of package names
  apt-get install -y -qq --no-install-recommends $optional >/dev/null
fi
