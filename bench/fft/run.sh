#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - the Parray FFT (examples/fft/fft.pc) against what users run today,
# in the same run on this machine, one row per size and process count:
#   cpu: Parray (FFTW on each block, one #copy per transposition, transposed
#        output: -t) against FFTW-MPI's own plans (fftw_mpi_peer.c,
#        FFTW_MEASURE, FFTW_MPI_TRANSPOSED_OUT), same processes;
#   gpu: Parray -DFFT_GPU (cuFFT on each block, process r on GPU r mod the
#        GPU count) on P processes against one cuFFT plan of the whole
#        transform on one GPU (cufft_peer.cu) and, with PEERS, NVIDIA's
#        multi-GPU FFTs on as many GPUs: cufftxt (cufftXtSetGPUs, one
#        process, cufftxt_peer.cu) and cufftmp (cuFFTMp, one process per GPU,
#        cufftmp_peer.cu; CUFFTMP_HOME and NVSHMEM_HOME: where its and
#        NVSHMEM's include/ and lib/ are); Parray in natural order (slabs:
#        the result split along N1, as cuFFTMp leaves it) and transposed
#        (-t), with each slab transposed in K pieces for each K of PIECES
#        (-DFFT_PIECES=K: piece k's #copy overlaps piece k+1's transforms).
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
# -DFFT_PENCIL against FFTW-MPI on P0 * P1 processes; default none);
# CPU: ROUNDS (default 3: each pair run that many times, interleaved, each
# round's ratio printed and their median). GPU: PIECES (default "1"), PEERS
# (default "cufft"; also cufftxt cufftmp), PEERS_ONLY=1 (the peers alone),
# STRIDED=1 (slabs: the natural order's strided form, -s, timed as well).
# The check's FFTW reference runs on all the machine's cores.
# shellcheck disable=SC2086 # $mpirun is a command of several words
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
    case " ${PEERS:-} " in *" cufftxt "*) nvcc -O2 "$here/cufftxt_peer.cu" -lcufft -o "$tmp/cufftxt" || exit 1 ;; esac
    case " ${PEERS:-} " in *" cufftmp "*)
      # shellcheck disable=SC2046 # the MPI compiler's flags are several words
      nvcc -O2 -I"$CUFFTMP_HOME/include" $(mpicc --showme:compile) "$here/cufftmp_peer.cu" -L"$CUFFTMP_HOME/lib" \
        -l:libcufftMp.so.12 -L"$NVSHMEM_HOME/lib" -l:libnvshmem_host.so.3 \
        $(mpicc --showme:link | sed 's/-Wl,[^ ]*//g; s/-pthread//') -o "$tmp/cufftmp" || exit 1
      export LD_LIBRARY_PATH="$CUFFTMP_HOME/lib:$NVSHMEM_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
    esac
  else
    mpicc -O2 $d "$here/fftw_mpi_peer.c" -lfftw3f_mpi -lfftw3f -lfftw3_mpi -lfftw3 -lm -o "$tmp/peer_$prec" || exit 1
  fi
  for size in $SIZES; do
    n0=$(echo "$size" | cut -dx -f1) n1=$(echo "$size" | cut -dx -f2) n2=$(echo "$size" | cut -dx -f3)
    [ -n "$n2" ] || n2=1
    [ "$mode" = gpu ] && run "$tmp/peer.log" "$tmp/peer_$prec" "$n0" "$n1" "$n2" "$REPS"
    for np in $NPS; do
      defs="-DNP=$np -DN0=$n0 -DN1=$n1 -DN2=$n2 $d -DFFT_REF_THREADS=$(nproc)"
      libs="-lfftw3f -lfftw3_threads -lfftw3 -lm"
      if [ "$mode" = gpu ]; then
        peers="cufft=$(total "$tmp/peer.log")"
        if [ "$np" -gt 1 ] && [ "$prec" = single ]; then
          case " ${PEERS:-} " in *" cufftxt "*) run "$tmp/xt.log" "$tmp/cufftxt" "$np" "$n0" "$n1" "$n2" "$REPS"
            peers="$peers cufftxt=$(total "$tmp/xt.log")" ;; esac
          case " ${PEERS:-} " in *" cufftmp "*) run "$tmp/mp.log" $mpirun -np "$np" "$tmp/cufftmp" "$n0" "$n1" "$n2" "$REPS"
            peers="$peers cufftmp=$(total "$tmp/mp.log")" ;; esac
        fi
        [ -n "${PEERS_ONLY:-}" ] && continue
        for k in ${PIECES:-1}; do
          # shellcheck disable=SC2086 # defs and libs are several words
          "$bin/pacc" -O2 $defs -DFFT_GPU -DFFT_PIECES="$k" "$fft" $libs -lcufft -o "$tmp/fft" ||
            { echo "$size np=$np pieces=$k: pacc failed"; continue; }
          run "$tmp/pa.log" $mpirun -np "$np" "$tmp/fft" -r "$REPS"
          run "$tmp/pt.log" $mpirun -np "$np" "$tmp/fft" -r "$REPS" -t
          : >"$tmp/ps.log"
          [ -n "${STRIDED:-}" ] && [ "$np" -gt 1 ] && run "$tmp/ps.log" $mpirun -np "$np" "$tmp/fft" -r "$REPS" -s
          for pe in $peers; do
            echo "ratio ${pe%%=*}/parray $prec $size np=$np pieces=$k: natural $(ratio "${pe#*=}" "$(total "$tmp/pa.log")")" \
              "transposed $(ratio "${pe#*=}" "$(total "$tmp/pt.log")")" \
              "${STRIDED:+natural-strided $(ratio "${pe#*=}" "$(total "$tmp/ps.log")")}"
          done
        done
        continue
      fi
      # shellcheck disable=SC2086 # defs and libs are several words
      "$bin/pacc" -O2 $defs "$fft" $libs -o "$tmp/fft" || { echo "$size np=$np: pacc failed"; continue; }
      rs=""
      for round in $(seq "${ROUNDS:-3}"); do # the pair, interleaved, ROUNDS times: the spread
        run "$tmp/peer.log" $mpirun -np "$np" "$tmp/peer_$prec" "$n0" "$n1" "$n2" "$REPS"
        run "$tmp/pt.log" $mpirun -np "$np" "$tmp/fft" -r "$REPS" -t
        r=$(ratio "$(total "$tmp/peer.log")" "$(total "$tmp/pt.log")")
        echo "ratio fftw-mpi/parray $prec $size np=$np round $round: $r"
        rs="$rs $r"
      done
      echo "ratio fftw-mpi/parray $prec $size np=$np: median $(echo "$rs" | tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }') of$rs"
    done
    [ "$mode" = cpu ] && [ "$n2" != 1 ] && for grid in ${PENCILS:-}; do
      p0=${grid%x*} p1=${grid#*x}
      np=$((p0 * p1))
      "$bin/pacc" -O2 -DFFT_PENCIL -DP0="$p0" -DP1="$p1" -DN0="$n0" -DN1="$n1" -DN2="$n2" $d "$fft" \
        -DFFT_REF_THREADS="$(nproc)" -lfftw3f -lfftw3_threads -lfftw3 -lm -o "$tmp/fft" || { echo "$size pencils $grid: pacc failed"; continue; }
      run "$tmp/peer.log" $mpirun -np "$np" "$tmp/peer_$prec" "$n0" "$n1" "$n2" "$REPS"
      run "$tmp/pt.log" $mpirun -np "$np" "$tmp/fft" -r "$REPS" -t
      echo "ratio fftw-mpi/parray $prec $size pencils $grid: $(ratio "$(total "$tmp/peer.log")" "$(total "$tmp/pt.log")")"
    done
  done
done
