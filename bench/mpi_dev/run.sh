#!/bin/sh
# run.sh - the all-to-all redistribution of distributed device arrays
# (alltoall_bench.pc) against D2H + MPI_Alltoall + H2D written by hand, with
# 2 and 4 processes (NPS) on this machine's GPUs (process r on GPU r mod the
# GPU count), 256 MB to 4 GB in total.
#   sh bench/mpi_dev/run.sh BUILD_DIR        (repository root; pacc in BUILD_DIR/bin)
set -u
bin=$1/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "CUDA-aware Open MPI: $(ompi_info --parsable --all 2>/dev/null | grep -m1 'mpi_built_with_cuda_support:value' | cut -d: -f7)"
for np in ${NPS:-2 4}; do
  for n in 8192 16384 32768; do
    reps=9
    [ "$n" = 32768 ] && reps=5
    "$bin/pacc" -O2 -DNP=$np -DN=$n -DREPS=$reps bench/mpi_dev/alltoall_bench.pc -o "$tmp/a2a" || exit 1
    timeout 100 mpirun --allow-run-as-root --oversubscribe -np $np "$tmp/a2a" || echo "np=$np N=$n failed"
  done
done
