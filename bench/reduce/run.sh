#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# run.sh - bench/reduce: reduce(...) on each kind of thread array against
# what users write today, in the same run on this machine:
#   gpu   a cuda detour summing 1 GiB of floats (reduce_gpu.pc, two forms,
#         each in the fixed order and 'unordered') and its prefix sum
#         (exscan, read directly and through parray/tile.cuh) against
#         torch.sum and torch.cumsum (torch_reduce.py), CUB's InclusiveSum
#         (cub_scan.cu, built with nvcc) and the copy bandwidth; then the
#         same at 4 MiB, where launches count;
#   pthd  a pthd detour summing doubles against OpenMP's reduction(+:);
#   mpi   an mpi detour summing a distributed array against the same sum
#         written by hand with MPI_Allreduce (mpi_peer.c).
# Prints each program's CSV and a table of the ratios (peer time / Parray
# time: above 1, Parray is faster).
#   bash bench/reduce/run.sh BUILD_DIR [gpu] [pthd] [mpi]   (default: all three;
#                                                  pacc in BUILD_DIR/bin)
# Settings (environment): OUT (the programs and their CSV; default reduce-out
# in the current folder), PYTHON (with PyTorch; default python3), NVCC (nvcc), GPU_MIB
# (1024), GPU_SMALL_MIB (4), CPU_MIB (512), THREADS (the cores), NP (4), MPI_KIB (KiB per
# process, 4096), REPS (GPU 50, CPU 30, MPI 200).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
PACC=${PACC:-${1:?usage: run.sh BUILD_DIR [gpu] [pthd] [mpi]}/bin/pacc}
shift
parts=${*:-gpu pthd mpi}
OUT=${OUT:-$PWD/reduce-out}
mkdir -p "$OUT"
here=$root/bench/reduce
rc=0
# ratio NAME PEER.csv PARRAY.csv FORM: the peer's ms over each Parray row's
ratio() { # ratio NAME PEER.csv PARRAY.csv [OP (default sum)]
  awk -F, -v name="$1" -v op="${4:-sum}" 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "ms") c = i; next }
    NR == FNR { if ($1 == op) peer = $c; next }
    $1 == op { printf "ratio %s: %s: %.2f (peer %.4f ms, Parray %.4f ms, error %s)\n", name, $2, peer / $c, peer,
                  $c, $NF }' "$2" "$3"
}
for p in $parts; do
  case $p in
  gpu)
    "$PACC" -O2 "$here/reduce_gpu.pc" -o "$OUT/reduce_gpu" >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
    "${NVCC:-nvcc}" -O3 -std=c++17 -arch=native "$here/cub_scan.cu" -o "$OUT/cub_scan" >>"$OUT/build.log" 2>&1 ||
      { tail -20 "$OUT/build.log"; exit 1; }
    nvidia-smi -L 2>/dev/null | head -1
    for mib in "${GPU_MIB:-1024}" "${GPU_SMALL_MIB:-4}"; do
      echo "== $mib MiB"
      "$OUT/reduce_gpu" "$mib" "${REPS:-50}" | tee "$OUT/reduce_gpu.csv" || rc=1
      "${PYTHON:-python3}" "$here/torch_reduce.py" "$mib" "${REPS:-50}" | tee "$OUT/torch_reduce.csv" || rc=1
      ratio "torch.sum/parray" "$OUT/torch_reduce.csv" "$OUT/reduce_gpu.csv"
      ratio "torch.cumsum/parray" "$OUT/torch_reduce.csv" "$OUT/reduce_gpu.csv" cumsum
      "$OUT/cub_scan" "$mib" "${REPS:-50}" | tee "$OUT/cub_scan.csv" || rc=1
      ratio "cub/parray" "$OUT/cub_scan.csv" "$OUT/reduce_gpu.csv" cumsum
    done ;;
  pthd)
    nt=${THREADS:-$(nproc)}
    "$PACC" -O2 -fopenmp -DNT="$nt" "$here/reduce_pthd.pc" -o "$OUT/reduce_pthd" >"$OUT/build.log" 2>&1 ||
      { tail -20 "$OUT/build.log"; exit 1; }
    "$OUT/reduce_pthd" "${CPU_MIB:-512}" "${REPS:-30}" | tee "$OUT/reduce_pthd.csv" || rc=1
    grep -v pthd "$OUT/reduce_pthd.csv" >"$OUT/omp.csv"
    grep -v OpenMP "$OUT/reduce_pthd.csv" >"$OUT/pthd.csv"
    ratio "openmp/parray" "$OUT/omp.csv" "$OUT/pthd.csv" ;;
  mpi)
    np=${NP:-4}
    "$PACC" -O2 -DNP="$np" "$here/reduce_mpi.pc" -o "$OUT/reduce_mpi" >"$OUT/build.log" 2>&1 ||
      { tail -20 "$OUT/build.log"; exit 1; }
    mpicc -O2 "$here/mpi_peer.c" -lm -o "$OUT/mpi_peer" >>"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
    mpirun="mpirun --allow-run-as-root --oversubscribe -np $np"
    $mpirun "$OUT/reduce_mpi" "${MPI_KIB:-4096}" "${REPS:-200}" | tee "$OUT/reduce_mpi.csv" || rc=1
    $mpirun "$OUT/mpi_peer" "${MPI_KIB:-4096}" "${REPS:-200}" | tee "$OUT/mpi_peer.csv" || rc=1
    ratio "mpi_allreduce/parray" "$OUT/mpi_peer.csv" "$OUT/reduce_mpi.csv" ;;
  *) echo "run.sh: unknown part $p (gpu, pthd, mpi)"; exit 2 ;;
  esac
done
exit $rc
