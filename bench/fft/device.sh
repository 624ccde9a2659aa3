#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# device.sh - one call on the GPU machine for the FFT benchmark: build pac and
# the runtime there (with the pre-generated scanner and parser of
# .carry/frontend when flex and bison are absent, and FFTW3 / FFTW-MPI from
# .carry/fftw, Debian's packages unpacked, when the machine lacks them), then
# bench/fft/run.sh with the settings given in the environment.
#   OUT=... MODE=cpu|gpu [SIZES=...] [NPS=...] [PRECS=...] [REPS=...] bash bench/fft/device.sh
set -u
ROOT=$PWD
B=$ROOT/build-fft
OUT=${OUT:-/tmp/fft}
mkdir -p "$OUT"
. "$ROOT/bench/device_env.sh" # cmake on PATH, GEN, FE
if [ ! -f /usr/include/fftw3-mpi.h ] && [ -d "$ROOT/.carry/fftw/usr" ]; then
  F=$ROOT/.carry/fftw/usr
  export CPATH=$F/include${CPATH:+:$CPATH}
  export LIBRARY_PATH=$F/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
  export LD_LIBRARY_PATH=$F/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "FFTW from .carry/fftw"
fi
if [ ! -x "$B/bin/pacc" ]; then
  # shellcheck disable=SC2086
  cmake -S . -B "$B" $GEN -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPARRAY_SGEMM_VARIANTS=OFF $FE \
    >"$OUT/build.log" 2>&1 && cmake --build "$B" -j 16 --target pac pacc parray parray_mpi parray_cuda \
    parray_mpi_cuda >>"$OUT/build.log" 2>&1 || { echo "BUILD FAILED"; tail -30 "$OUT/build.log"; exit 1; }
fi
lscpu | grep -E "^Model name|^CPU\(s\)"
sh bench/fft/run.sh "$B" "${MODE:-cpu}" 2>&1 | tee "$OUT/fft_${MODE:-cpu}.log"
