#!/bin/sh
# run.sh - the Parray FFT (examples/fft/fft.pc) against what users run today,
# in the same run on this machine, one row per size and process count:
#   cpu: Parray (FFTW on each block, one #copy per transposition, transposed
#        output: -t) against FFTW-MPI's own plans (fftw_mpi_peer.c,
#        FFTW_MEASURE, FFTW_MPI_TRANSPOSED_OUT), same processes;
#   gpu: Parray -DFFT_GPU (cuFFT on each block) on P processes sharing this
#        machine's GPU against one cuFFT plan of the whole transform
#        (cufft_peer.cu); Parray in natural order and transposed (-t).
# Each program prints the median of REPS runs after a warm-up, with its
# breakdown (local transforms, transposition, total); the Parray program
# checks its result against FFTW (PASS/FAIL on its line). The ratio is
# peer time / Parray time: above 1, Parray is faster.
#   sh bench/fft/run.sh BUILD_DIR cpu|gpu     (from the repository root;
#                                              pacc in BUILD_DIR/bin)
# Settings (environment): SIZES (N0xN1 or N0xN1xN2 words; default
# "8192x8192 16384x16384 256x256x256 512x512x512"), NPS (default "4 8 16" on
# the CPU, "1 2 4" on the GPU), PRECS (default "single double"), REPS (5),
# PENCILS (CPU, 3-D sizes: grids P0xP1 such as "2x2 2x4 4x4", timed with
# -DFFT_PENCIL against FFTW-MPI on P0 * P1 processes; default none).
set -u
build=$1 mode=$2
bin=$build/bin
SIZES=${SIZES:-8192x8192 16384x16384 256x256x256 512x512x512}
PRECS=${PRECS:-single double}
REPS=${REPS:-5}
if [ "$mode" = gpu ]; then NPS=${NPS:-1 2 4}; else NPS=${NPS:-4 8 16}; fi
mpirun="mpirun --allow-run-as-root --oversubscribe"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
fft=$here/../../examples/fft/fft.pc
total() { sed -n 's/.* total \([0-9.e+-]*\) s.*/\1/p' "$1" | head -n 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
run() { # run LOG CMD...: the output to LOG and to the terminal
  log=$1
  shift
  timeout 1200 "$@" >"$log" 2>&1 || echo "(exit status $?)" >>"$log"
  cat "$log"
}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -n): $(nproc) cores, $mode, REPS=$REPS"
[ "$mode" = gpu ] && nvidia-smi -L
for prec in $PRECS; do
  d=""
  [ "$prec" = double ] && d=-DFFT_DOUBLE
  if [ "$mode" = gpu ]; then
    nvcc -O2 $d "$here/cufft_peer.cu" -lcufft -o "$tmp/peer_$prec" || exit 1
  else
    mpicc -O2 $d "$here/fftw_mpi_peer.c" -lfftw3f_mpi -lfftw3f -lfftw3_mpi -lfftw3 -lm -o "$tmp/peer_$prec" || exit 1
  fi
  for size in $SIZES; do
    n0=$(echo "$size" | cut -dx -f1) n1=$(echo "$size" | cut -dx -f2) n2=$(echo "$size" | cut -dx -f3)
    [ -n "$n2" ] || n2=1
    [ "$mode" = gpu ] && run "$tmp/peer.log" "$tmp/peer_$prec" "$n0" "$n1" "$n2" "$REPS"
    for np in $NPS; do
      defs="-DNP=$np -DN0=$n0 -DN1=$n1 -DN2=$n2 $d"
      libs="-lfftw3f -lfftw3 -lm"
      [ "$mode" = gpu ] && defs="$defs -DFFT_GPU" libs="$libs -lcufft"
      # shellcheck disable=SC2086 # defs and libs are several words
      "$bin/pacc" -O2 $defs "$fft" $libs -o "$tmp/fft" || { echo "$size np=$np: pacc failed"; continue; }
      if [ "$mode" = gpu ]; then
        run "$tmp/pa.log" $mpirun -np "$np" "$tmp/fft" -r "$REPS"
        run "$tmp/pt.log" $mpirun -np "$np" "$tmp/fft" -r "$REPS" -t
        echo "ratio cufft/parray $prec $size np=$np: natural $(ratio "$(total "$tmp/peer.log")" "$(total "$tmp/pa.log")")" \
          "transposed $(ratio "$(total "$tmp/peer.log")" "$(total "$tmp/pt.log")")"
      else
        run "$tmp/peer.log" $mpirun -np "$np" "$tmp/peer_$prec" "$n0" "$n1" "$n2" "$REPS"
        run "$tmp/pt.log" $mpirun -np "$np" "$tmp/fft" -r "$REPS" -t
        echo "ratio fftw-mpi/parray $prec $size np=$np: $(ratio "$(total "$tmp/peer.log")" "$(total "$tmp/pt.log")")"
      fi
    done
    [ "$mode" = cpu ] && [ "$n2" != 1 ] && for grid in ${PENCILS:-}; do
      p0=${grid%x*} p1=${grid#*x}
      np=$((p0 * p1))
      "$bin/pacc" -O2 -DFFT_PENCIL -DP0="$p0" -DP1="$p1" -DN0="$n0" -DN1="$n1" -DN2="$n2" $d "$fft" \
        -lfftw3f -lfftw3 -lm -o "$tmp/fft" || { echo "$size pencils $grid: pacc failed"; continue; }
      run "$tmp/peer.log" $mpirun -np "$np" "$tmp/peer_$prec" "$n0" "$n1" "$n2" "$REPS"
      run "$tmp/pt.log" $mpirun -np "$np" "$tmp/fft" -r "$REPS" -t
      echo "ratio fftw-mpi/parray $prec $size pencils $grid: $(ratio "$(total "$tmp/peer.log")" "$(total "$tmp/pt.log")")"
    done
  done
done
