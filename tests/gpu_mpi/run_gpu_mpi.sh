#!/bin/sh
# run_gpu_mpi.sh - build a .pc program with distributed device arrays (CUDA
# and MPI) with pacc, and run it under mpirun.
#   run_gpu_mpi.sh build BIN_DIR MPIEXEC NP CASE.pc           translate and compile with nvcc (-DNP=NP; no GPU needed)
#   run_gpu_mpi.sh run   BIN_DIR MPIEXEC NP CASE.pc [--fails] [--gpus=G]
#                        run on NP processes, which share the machine's GPUs; exits 77 (skipped)
#                        when it has none, or fewer than G
# stdout must equal CASE.expected; with --fails the program must exit
# non-zero (never hang) with every line of CASE.expected on stderr.
# PARRAY_MEMCHECK=1 runs each process under compute-sanitizer memcheck.
# The paths the copies took (PARRAY_MPI_TRACE=1 lines on stderr):
# TRACE_WANT, a regular expression (grep -E) that some line must match, and
# TRACE_NOT, one that no line may match. SIM_NODES=K splits the processes
# into K simulated nodes (NCCL_HOSTID, with NCCL's peer-to-peer and
# shared-memory transports off, so that traffic between them takes NCCL's
# network transport).
set -u
mode=$1 bin=$2 mpiexec=$3 np=$4 case=$5
shift 5
fails= gpus=1
for a in "$@"; do
  case $a in
  --fails) fails=--fails ;;
  --gpus=*) gpus=${a#--gpus=} ;;
  *) echo "run_gpu_mpi.sh: unknown option $a"; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
dir=$(cd "$(dirname "$case")" && pwd)
name=$(basename "$case")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 1
if [ "$mode" = run ]; then
  have=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  [ "$have" -gt 0 ] || { echo "SKIP: no CUDA device on this machine"; exit 77; }
  [ "$have" -ge "$gpus" ] || { echo "SKIP: this test needs $gpus GPUs; this machine has $have"; exit 77; }
fi
"$bin/pacc" -O2 -DNP="$np" "$name" -o "$tmp/prog" || exit 1
[ "$mode" = build ] && exit 0
wrap=
if [ "${PARRAY_MEMCHECK:-0}" = 1 ]; then
  # (NCCL probes kernels it was not built for: those API errors are not ours)
  wrap="compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 --print-limit 20"
fi
[ -n "${TRACE_WANT:-}${TRACE_NOT:-}" ] && export PARRAY_MPI_TRACE=1
if [ -n "${SIM_NODES:-}" ]; then
  # process r is on node r / (np / K)
  export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
  printf '#!/bin/sh\nNCCL_HOSTID=node$((OMPI_COMM_WORLD_RANK / %d)) exec "$@"\n' $((np / SIM_NODES)) >"$tmp/node.sh"
  wrap="sh $tmp/node.sh $wrap"
fi
# shellcheck disable=SC2086 # wrap is several words or none
timeout 300 "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" $wrap "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$fails" = --fails ]; then
  sh "$here/../expect_failure.sh" "$rc" "$tmp/err" "${name%.pc}.expected"
  exit $?
fi
[ "$rc" -eq 0 ] || { echo "exit status $rc"; cat "$tmp/out" "$tmp/err"; exit 1; }
if [ "${PARRAY_MEMCHECK:-0}" = 1 ]; then
  # compute-sanitizer's lines go to stdout: every process must report no error
  n=$(grep -c '^========= ERROR SUMMARY: 0 errors' "$tmp/out")
  [ "$n" -eq "$np" ] || { echo "memcheck: $n of $np processes reported no errors"; cat "$tmp/out"; exit 1; }
  grep -v '^=========' "$tmp/out" >"$tmp/out.prog" && mv "$tmp/out.prog" "$tmp/out"
fi
[ -s "$tmp/err" ] && cat "$tmp/err"
if [ -n "${TRACE_WANT:-}" ] && ! grep -Eq "$TRACE_WANT" "$tmp/err"; then
  echo "FAIL: no copy took the path /$TRACE_WANT/"; exit 1
fi
if [ -n "${TRACE_NOT:-}" ] && grep -Eq "$TRACE_NOT" "$tmp/err"; then
  echo "FAIL: a copy took the path /$TRACE_NOT/:"; grep -E "$TRACE_NOT" "$tmp/err"; exit 1
fi
diff -u "${name%.pc}.expected" "$tmp/out"
