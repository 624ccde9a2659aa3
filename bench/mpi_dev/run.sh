#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - the all-to-all redistribution of distributed device arrays
# (alltoall_bench.pc: rows to columns of an N x N float matrix, one #copy)
# against its peers measured in the same run on this machine's GPUs, with 2
# and 4 processes (NPS; process r on GPU r mod the GPU count), N = 8192,
# 16384, 32768 (256 MB to 4 GB in total):
#   the pac program, once per transport of TRANSPORTS (PARRAY_MPI_TRANSPORT
#     set to it, unset for "auto"), prints pac's #copy, the hand-written
#     D2H + MPI_Alltoall + H2D, and the CUDA IPC strided writes (c); its
#     lines are prefixed "transport=T ";
#   torch_alltoall.py under torchrun, all sizes in one launch: NCCL through
#     PyTorch, (a) pack + all_to_all_single + unpack (the whole
#     redistribution, checked on the first size) and (b) the bare
#     all_to_all_single of the same bytes.
# Then summary.py prints a markdown table per (np, size): pac GB/s per
# transport, (a), (b), (c), pac/(a), pac/(b). Times are medians of 9 runs
# (5 at N = 32768) after two warm-ups, taken on process 0; GB/s = N*N*4
# bytes / time.
# SIM_NODES=1 adds a simulated two-node run (4 GPUs needed): the pac program
# at N = 8192 and 16384 on 4 processes, processes 0,1 with NCCL_HOSTID=node0
# and 2,3 with node1, and torch's bare all_to_all_single under the same host
# ids, all with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1; those lines are
# prefixed "sim2node ".
#   [NPS="2 4"] [TRANSPORTS="auto nccl direct staged auto+kernel ..."] [SIM_NODES=1] [PYTHON=python3] sh bench/mpi_dev/run.sh BUILD_DIR
# (from the repository root; pacc in BUILD_DIR/bin; PYTHON is a python with
# torch, whose torch.distributed.run is the torchrun used)
set -u
bin=$1/bin
PY=${PYTHON:-python3}
SIZES="8192 16384 32768"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')

build() { # build NP N: the pac program as $tmp/a2a_NP_N
  reps=9
  [ "$2" -ge 32768 ] && reps=5
  "$bin/pacc" -O2 -DNP="$1" -DN="$2" -DREPS=$reps bench/mpi_dev/alltoall_bench.pc -o "$tmp/a2a_$1_$2"
}

prefixed() { # prefixed PREFIX WHAT CMD...: CMD's output lines with PREFIX in front, a line when it fails
  pre=$1 what=$2
  shift 2
  "$@" >"$tmp/out"
  rc=$?
  sed "s/^/$pre/" "$tmp/out"
  [ "$rc" = 0 ] || echo "$pre$what failed (exit $rc)"
}

# shellcheck disable=SC2317 # (called through prefixed)
with_transport() ( # with_transport T[+kernel] CMD...: CMD with PARRAY_MPI_TRANSPORT=T (unset for auto);
  # +kernel: the direct path's writes on the copy kernels (PARRAY_MPI_DIRECT_ENGINE=kernel)
  case $1 in
  *+kernel) PARRAY_MPI_DIRECT_ENGINE=kernel && export PARRAY_MPI_DIRECT_ENGINE ;;
  *) unset PARRAY_MPI_DIRECT_ENGINE ;;
  esac
  t=${1%+kernel}
  if [ "$t" = auto ]; then
    unset PARRAY_MPI_TRANSPORT
  else
    PARRAY_MPI_TRANSPORT=$t
    export PARRAY_MPI_TRANSPORT
  fi
  shift
  exec "$@"
)

pac_runs() { # pac_runs PREFIX NP N [sim]: the pac program once per transport
  for t in ${TRANSPORTS:-auto}; do
    if [ "${4:-}" = sim ]; then # NCCL_HOSTID node0 for processes 0,1, node1 for 2,3
      # shellcheck disable=SC2016
      prefixed "${1}transport=$t " "np=$2 N=$3" with_transport "$t" timeout 100 mpirun --allow-run-as-root --oversubscribe -np "$2" \
        sh -c 'NCCL_HOSTID=node$((OMPI_COMM_WORLD_RANK / 2)) exec "$0"' "$tmp/a2a_$2_$3"
    else
      prefixed "${1}transport=$t " "np=$2 N=$3" with_transport "$t" timeout 100 mpirun --allow-run-as-root --oversubscribe -np "$2" "$tmp/a2a_$2_$3"
    fi
  done
}

body() {
  echo "CUDA-aware Open MPI: $(ompi_info --parsable --all 2>/dev/null | grep -m1 'mpi_built_with_cuda_support:value' | cut -d: -f7)"
  echo "GPUs: $gpus; transports: ${TRANSPORTS:-auto}"
  for np in ${NPS:-2 4}; do
    for n in $SIZES; do
      build "$np" "$n" || return 1
      pac_runs "" "$np" "$n"
    done
    prefixed "" "torch np=$np" timeout 300 "$PY" -m torch.distributed.run --standalone --nproc_per_node="$np" \
      bench/mpi_dev/torch_alltoall.py --sizes "$(echo "$SIZES" | tr ' ' ,)"
  done
  [ "${SIM_NODES:-0}" = 1 ] || return 0
  if [ "$gpus" -lt 4 ]; then
    echo "sim2node: skipped, $gpus GPUs (4 needed)"
    return 0
  fi
  (
    NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
    export NCCL_P2P_DISABLE NCCL_SHM_DISABLE
    for n in 8192 16384; do
      [ -x "$tmp/a2a_4_$n" ] || build 4 "$n" || exit 1
      pac_runs "sim2node " 4 "$n" sim
    done
    prefixed "sim2node " "torch np=4" timeout 300 "$PY" -m torch.distributed.run --standalone --nproc_per_node=4 \
      bench/mpi_dev/torch_alltoall.py --sizes 8192,16384 --sim-nodes 2 --bare-only
  )
}

{
  body
  echo $? >"$tmp/rc"
} 2>&1 | tee "$tmp/log"
python3 bench/mpi_dev/summary.py <"$tmp/log"
exit "$(cat "$tmp/rc" 2>/dev/null || echo 1)"
