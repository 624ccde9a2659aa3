#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# multi_gpu_session.sh - one call on a GPU machine (one or several GPUs) for
# the work of the last sessions: build everything with CUDA and MPI there
# (the scanner and parser from .carry/frontend when flex/bison are absent,
# FFTW from .carry/fftw when missing), run every GPU test (tests/gpu_mpi puts
# process r on GPU r mod the GPU count, so with 2 GPUs the 2-process runs use
# one GPU each), then, while time is left, the benchmarks in order: the
# detour loop (bench/detour_loop), the redistribution across GPUs
# (bench/mpi_dev, NPS), the GPU FFT on 1 and 2 processes (bench/fft), and the
# primitives against PyTorch (bench/prims). Logs go to $OUT.
# STEPS chooses and orders the parts (default "tests detour_loop mpi_dev fft
# prims"; also "sgemm": parray_sgemm against cuBLAS, TF32 off; "kern": the
# kernel library's benchmark against copy and PyTorch, both run twice so that
# the table shows the spread of the same kernel timed twice); without
# "tests" only what the steps need is built.
#   OUT=... [BUDGET=seconds] [STEPS=...] [MPI_NPS=...] bash bench/multi_gpu_session.sh     (repository root)
set -u
OUT=${OUT:-/tmp/session}
BUDGET=${BUDGET:-560}
STEPS=${STEPS:-tests detour_loop mpi_dev fft prims}
mkdir -p "$OUT"
ROOT=$PWD
B=$ROOT/build-mg
T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s"; }
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
. "$ROOT/bench/device_env.sh" # cmake on PATH, GEN, FE
if [ ! -f /usr/include/fftw3-mpi.h ] && [ -d "$ROOT/.carry/fftw/usr" ]; then
  F=$ROOT/.carry/fftw/usr
  export CPATH=$F/include${CPATH:+:$CPATH} LIBRARY_PATH=$F/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
  export LD_LIBRARY_PATH=$F/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
{ nvidia-smi -L; nvidia-smi topo -m; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } 2>&1 |
  tee "$OUT/gpus.txt"
# shellcheck disable=SC2086
cmake -S . -B "$B" $GEN -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPARRAY_SGEMM_VARIANTS=OFF $FE \
  >"$OUT/build.log" 2>&1 || { echo "CONFIGURE FAILED"; tail -30 "$OUT/build.log"; exit 1; }
TARGETS=""
case " $STEPS " in *" tests "*) ;; *) TARGETS="--target pac pacc parray parray_cuda parray_mpi parray_mpi_cuda bench_sgemm bench_kernels" ;; esac
# shellcheck disable=SC2086
timeout 300 cmake --build "$B" -j "$(nproc)" $TARGETS >>"$OUT/build.log" 2>&1 ||
  { echo "BUILD FAILED ($(el))"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
echo "built: $(el)"
step() { # step NAME MIN_SECONDS CMD...: run when time is left, output to $OUT/NAME.txt
  name=$1 need=$2
  shift 2
  [ "$(left)" -gt "$need" ] || { echo "=== $name: skipped, $(left) s left"; return; }
  echo "=== $name ($(el))"
  timeout $(( $(left) - 10 )) "$@" >"$OUT/$name.txt" 2>&1
  echo "(exit $?)" >>"$OUT/$name.txt"
  tail -n 40 "$OUT/$name.txt"
}
tests() {
  # TESTS_REGEX: only those GPU tests; TESTS_RESERVE: seconds kept for the steps after (default 200)
  (cd "$B" && timeout $(( $(left) - ${TESTS_RESERVE:-200} )) ctest -L gpu -R "${TESTS_REGEX:-.}" -j 4 --timeout 300 \
    --output-on-failure >"$OUT/tests.log" 2>&1)
  grep -E "tests passed|tests failed|\*\*\*Failed|Not Run|Timeout|Skipped" "$OUT/tests.log" | head -30
}
kern_twice() { # the kernel library's benchmark and PyTorch's, twice (the same kernels timed twice)
  for i in 1 2; do
    "$B/bin/bench_kernels" >"$OUT/kern$i.csv" &&
      PYTHONUNBUFFERED=1 "${PYTHON:-/opt/torch/.venv/bin/python}" bench/kernels/torch_kernels.py >"$OUT/torch$i.csv" &&
      python3 bench/kernels/compare.py "$OUT/kern$i.csv" "$OUT/torch$i.csv" || return 1
  done
}
for s in $STEPS; do
  case $s in
  tests) echo "=== GPU tests ($(el))"; tests ;;
  detour_loop) step detour_loop 30 env PACC="$B/bin/pacc" OUT="$OUT/dl" bash bench/detour_loop/run.sh ;;
  mpi_dev) step mpi_dev 90 env NPS="${MPI_NPS:-2}" sh bench/mpi_dev/run.sh "$B" ;;
  fft) step fft 60 env SIZES="${FFT_SIZES:-8192x8192 512x512x512}" NPS="${FFT_NPS:-1 2}" PRECS=single REPS=5 sh bench/fft/run.sh "$B" gpu ;;
  prims) step prims 60 env PACC="$B/bin/pacc" OUT="$OUT/prims" bash bench/prims/run.sh ;;
  sgemm) step sgemm 40 env NVIDIA_TF32_OVERRIDE=0 "$B/bin/bench_sgemm" -s "${SGEMM_SIZES:-2048,4096,8192}" \
    -r "${SGEMM_REPS:-10}" -l "${SGEMM_LAYOUTS_AT:-4096}" ;;
  kern) export -f kern_twice && export B OUT && step kern 120 bash -c kern_twice ;;
  *) echo "unknown step $s" ;;
  esac
done
echo "total $(el)"
