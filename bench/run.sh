#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# run.sh - the one runner of the benchmarks: configures and builds the
# project (CMake, Release), optionally runs the GPU tests first, then runs
# the chosen benchmarks in the order given, each next to its peer, and
# writes every result to an output folder (NAME.txt per step, plus the CSV
# and tables the benchmark writes). bench/RESULTS.md gives, for each
# benchmark, the command that produced its figures.
#
#   bash bench/run.sh [--out DIR] [--build DIR] [--budget SECONDS] [--no-build] STEP...
#   bash bench/run.sh --list
# (from anywhere; the repository is the one this script is in). A step named
# twice runs twice (NAME.txt, NAME.2.txt): the spread of the same code timed twice.
#
# Steps (bench/<dir> in brackets; peers after "vs"):
#   tests        ctest -L gpu -R "$TESTS_REGEX" (the GPU tests; skipped tests need a GPU)
#   translate    pac's translation speed on a generated file vs cc -E      [translate]
#   matmul       figure 8 through pac vs the same loop indexed by hand      [matmul]
#   pthd         pthd detour and #sync vs an OpenMP region and barrier     [pthd]
#   mpi          redistribution #copy vs hand-written MPI_Alltoall (NPS)    [mpi]
#   cuda         pac-generated matmul kernels vs hand-written CUDA          [cuda]
#   detour_loop  a detour in a host loop vs hand-written CUDA               [detour_loop]
#   kernels      kernel library (elementwise, reductions) vs copy, PyTorch  [kernels]
#   permute      permute/transpose vs copy and PyTorch                      [permute]
#   prims        the parray/primitives.cuh examples vs PyTorch              [prims]
#   sgemm        parray_sgemm vs cuBLAS, TF32 off                           [sgemm]
#   sgemm_parray the SGEMM written in Parray vs parray_sgemm, cuBLAS        [sgemm_parray]
#   tma_stress   SGEMM_TMA repeated, every element checked against cuBLAS   [sgemm_parray]
#                (a check, not a timing: sm_90a, N = 8192, 20 calls)
#   mpi_dev      redistribution of device arrays vs NCCL through PyTorch    [mpi_dev]
#   fft          distributed GPU FFT vs cuFFT on one GPU                    [fft]
#   fft_cpu      distributed CPU FFT vs FFTW-MPI                            [fft]
#   reduce       reduce(...) on cuda, pthd, mpi detours vs torch.sum and    [reduce]
#                copy bandwidth, OpenMP reduction(+:), MPI_Allreduce; scans
#                vs torch.cumsum and CUB's InclusiveSum
#
# Options and settings (options win over the environment):
#   --out DIR / OUT          output folder (default bench-out in the current folder)
#   --build DIR / BUILD      CMake build folder (default build-bench at the repository root);
#                            configured when it has no CMakeCache.txt
#   --no-build / NO_BUILD=1  use BUILD as it is (its bin/ must hold what the steps need)
#   --budget S / BUDGET      seconds for the whole run (default 0: no limit); a step
#                            starts only while enough time is left, and is cut at the budget
#   JOBS                     build parallelism (default: the number of cores)
#   CUDA_ARCH                CMAKE_CUDA_ARCHITECTURES (default: the project's)
#   CMAKE_ARGS               more cmake options for the configure step (several words)
#   PAC_FRONTEND_DIR         a folder with pac's generated scanner and parser; used
#                            (-DPAC_FRONTEND_DIR) when flex or bison is missing
#   FFTW_PREFIX              where FFTW3 and FFTW3-MPI are (include/, lib/ or
#                            lib/x86_64-linux-gnu/) when the system has none
#   PYTHON                   the Python with PyTorch for the peers (default python3)
#   TESTS_REGEX              the GPU tests to run (ctest -R; default: all)
#   TESTS_RESERVE            with a budget, seconds kept for the steps after the tests (default 200)
#   MPI_NP                   processes of mpi (default 4)
#   MPI_NPS                  process counts of mpi_dev (default "2")
#   FFT_SIZES, FFT_NPS       fft: sizes (default "8192x8192 512x512x512") and process
#                            counts (default "1 2"); single precision, REPS=5
#   SGEMM_SIZES, SGEMM_REPS  sgemm and sgemm_parray: sizes (default 2048,4096,8192), repetitions (10)
# Each benchmark's own runner (bench/*/run.sh) reads further settings, listed at its top.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$PWD/bench-out}
BUILD=${BUILD:-$ROOT/build-bench}
BUDGET=${BUDGET:-0}
NO_BUILD=${NO_BUILD:-0}
PYTHON=${PYTHON:-python3}
ALL="tests translate matmul pthd mpi cuda detour_loop kernels permute prims sgemm sgemm_parray tma_stress mpi_dev fft fft_cpu reduce"
STEPS=""
while [ $# -gt 0 ]; do
  case $1 in
  --out) OUT=$2; shift ;;
  --build) BUILD=$2; shift ;;
  --budget) BUDGET=$2; shift ;;
  --no-build) NO_BUILD=1 ;;
  --list) echo "$ALL"; exit 0 ;;
  -h | --help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  *) case " $ALL " in *" $1 "*) STEPS="$STEPS $1" ;; *) echo "run.sh: unknown step $1 (--list)" >&2; exit 2 ;; esac ;;
  esac
  shift
done
[ -n "$STEPS" ] || { echo "usage: bash bench/run.sh [--out DIR] [--build DIR] [--budget S] STEP... (--list, --help)" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
cd "$ROOT" || exit 1
export PYTHON
T0=$(date +%s)
el() { echo "$(($(date +%s) - T0)) s"; }
left() { if [ "$BUDGET" -gt 0 ]; then echo $((BUDGET - ($(date +%s) - T0))); else echo 1000000; fi; }
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

# FFTW from a prefix, for the compiler and the programs
if [ -n "${FFTW_PREFIX:-}" ]; then
  for l in "$FFTW_PREFIX/lib/x86_64-linux-gnu" "$FFTW_PREFIX/lib64" "$FFTW_PREFIX/lib"; do
    [ -d "$l" ] && break
  done
  export CPATH="$FFTW_PREFIX/include${CPATH:+:$CPATH}" LIBRARY_PATH="$l${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$l${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# the machine, for the record
{
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -n); commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "# steps:$STEPS"
  grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/^[^:]*: */# CPU: /'
  echo "# cores: $(nproc)"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | sed 's/^/# GPU: /'
  fi
} | tee "$OUT/machine.txt"

# configure and build what the steps need (everything when the tests run)
if [ "$NO_BUILD" != 1 ]; then
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    gen=()
    command -v ninja >/dev/null && gen=(-G Ninja)
    fe=()
    { command -v flex >/dev/null && command -v bison >/dev/null; } || fe=("-DPAC_FRONTEND_DIR=${PAC_FRONTEND_DIR:?flex or bison is missing: set PAC_FRONTEND_DIR}")
    arch=()
    [ -n "${CUDA_ARCH:-}" ] && arch=("-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCH")
    # shellcheck disable=SC2086 # CMAKE_ARGS holds several words
    cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DPARRAY_SGEMM_VARIANTS=OFF "${fe[@]}" "${arch[@]}" \
      ${CMAKE_ARGS:-} >"$OUT/build.log" 2>&1 || { echo "CONFIGURE FAILED (log: $OUT/build.log)"; tail -30 "$OUT/build.log"; exit 1; }
  fi
  want="pac pacc parray parray_headers"
  has translate && want="$want gen_pc"
  has pthd && want="$want bench_pthd"
  has mpi && want="$want parray_mpi bench_mpi"
  for s in cuda detour_loop kernels permute prims sgemm sgemm_parray tma_stress fft reduce; do has $s && want="$want parray_cuda"; done
  has reduce && want="$want parray_mpi"
  for s in mpi_dev fft fft_cpu; do has $s && want="$want parray_mpi parray_mpi_cuda"; done
  has detour_loop && want="$want bench_detour_loop"
  has kernels && want="$want bench_kernels"
  has permute && want="$want bench_permute"
  has sgemm && want="$want bench_sgemm"
  has sgemm_parray && want="$want bench_sgemm_parray"
  targets=()
  if ! has tests; then # only the targets this build defines (CUDA, MPI, OpenMP may be missing)
    known=$(cmake --build "$BUILD" --target help 2>/dev/null)
    for t in $want; do
      printf '%s\n' "$known" | grep -Eq "(^|[ .:])$t([ :]|$)" && targets+=("$t")
    done
    [ ${#targets[@]} = 0 ] || targets=(--target "${targets[@]}")
  fi
  timeout "$(left)" cmake --build "$BUILD" -j "${JOBS:-$(nproc)}" "${targets[@]}" >>"$OUT/build.log" 2>&1 ||
    { echo "BUILD FAILED (log: $OUT/build.log)"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
  echo "built: $(el)"
fi
B=$BUILD/bin

# step NAME MIN_SECONDS CMD...: run CMD when MIN_SECONDS are left, its output to the terminal and to
# $OUT/NAME.txt (NAME.2.txt, ... when a step is named again: the same benchmark timed twice)
fails=0
step() {
  local name=$1 need=$2 rc log i=2
  shift 2
  if [ "$(left)" -le "$need" ]; then echo "=== $name: skipped, $(left) s left"; return; fi
  log=$OUT/$name.txt
  while [ -e "$log" ] && [ "$log" -nt "$OUT/machine.txt" ]; do log=$OUT/$name.$i.txt; i=$((i + 1)); done
  echo "=== $name ($(el))"
  timeout $(($(left) - 5)) bash -c '"$@"' "$name" "$@" >"$log" 2>&1
  rc=$?
  echo "(exit $rc)" >>"$log"
  [ $rc = 0 ] || fails=$((fails + 1))
  tail -n 40 "$log"
}
gpu_tests() {
  local t=$(($(left) - ${TESTS_RESERVE:-200}))
  [ "$BUDGET" -gt 0 ] || t=100000
  (cd "$BUILD" && timeout "$t" ctest -L gpu -R "${TESTS_REGEX:-.}" -j 4 --timeout 300 --output-on-failure)
}
kernels() { # the library's table and PyTorch's, merged
  "$B/bench_kernels" >"$OUT/kernels.csv" &&
    PYTHONUNBUFFERED=1 "$PYTHON" bench/kernels/torch_kernels.py >"$OUT/kernels_torch.csv" &&
    python3 bench/kernels/compare.py "$OUT/kernels.csv" "$OUT/kernels_torch.csv"
}
permute() {
  "$B/bench_permute" "$OUT/permute.csv" &&
    PYTHONUNBUFFERED=1 "$PYTHON" bench/permute/torch_permute.py "$OUT/permute.csv" "$OUT/permute.md"
}
pacc_run() { # pacc_run NAME SOURCE [pacc options] [-- program arguments]: build SOURCE with pacc, run it
  local name=$1 src=$2 opts=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  "$B/pacc" -O2 "${opts[@]}" "$src" -o "$OUT/$name" && "$OUT/$name" "$@"
}
tma_stress() {
  NVIDIA_TF32_OVERRIDE=0 pacc_run stress_tma bench/sgemm_parray/stress_tma.pc -arch=sm_90a -Iinclude -lcublas -- 8192 20
}
# the steps run under timeout, in a bash that knows these functions
export -f left gpu_tests kernels permute pacc_run tma_stress
export B OUT BUILD BUDGET T0 PYTHON

for s in $STEPS; do
  case $s in
  tests) step tests 60 gpu_tests ;;
  translate) step translate 60 sh bench/translate/bench_translate.sh "$BUILD" 20000 ;;
  matmul) step matmul 30 pacc_run matmul_bench bench/matmul/matmul_bench.pc ;;
  pthd) step pthd 200 "$B/bench_pthd" 31 ;;
  mpi) step mpi 60 mpirun --allow-run-as-root --oversubscribe -np "${MPI_NP:-4}" "$B/bench_mpi" ;;
  cuda) step cuda 30 pacc_run matmul_gpu_bench bench/cuda/matmul_gpu_bench.pc ;;
  detour_loop) step detour_loop 30 env OUT="$OUT/detour_loop" bash bench/detour_loop/run.sh "$BUILD" ;;
  kernels) step kernels 120 kernels ;;
  permute) step permute 120 permute ;;
  prims) step prims 60 env OUT="$OUT/prims" bash bench/prims/run.sh "$BUILD" ;;
  sgemm) step sgemm 40 env NVIDIA_TF32_OVERRIDE=0 "$B/bench_sgemm" -s "${SGEMM_SIZES:-2048,4096,8192}" \
    -r "${SGEMM_REPS:-10}" -l 4096 -o "$OUT/sgemm.csv" ;;
  sgemm_parray) step sgemm_parray 60 env NVIDIA_TF32_OVERRIDE=0 "$B/bench_sgemm_parray" \
    -s "${SGEMM_SIZES:-2048,4096,8192}" -r "${SGEMM_REPS:-10}" ;;
  tma_stress) step tma_stress 60 tma_stress ;;
  mpi_dev) step mpi_dev 90 env NPS="${MPI_NPS:-2}" sh bench/mpi_dev/run.sh "$BUILD" ;;
  fft) step fft 60 env SIZES="${FFT_SIZES:-8192x8192 512x512x512}" NPS="${FFT_NPS:-1 2}" PRECS=single REPS=5 \
    sh bench/fft/run.sh "$BUILD" gpu ;;
  fft_cpu) step fft_cpu 60 env SIZES="${FFT_SIZES:-8192x8192 512x512x512}" NPS="${FFT_NPS:-4 8}" PRECS=single REPS=5 \
    sh bench/fft/run.sh "$BUILD" cpu ;;
  reduce) step reduce 60 env OUT="$OUT/reduce" bash bench/reduce/run.sh "$BUILD" ;;
  esac
done
echo "total $(el); $fails step(s) failed; results in $OUT"
[ $fails = 0 ]
