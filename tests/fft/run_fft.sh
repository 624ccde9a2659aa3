#!/bin/sh
# run_fft.sh - build examples/fft/fft.pc with pacc for one size, precision and
# back end, and run it under mpirun in each direction and order.
#   run_fft.sh build BIN_DIR MPIEXEC NP FFT.pc "DEFINES"   translate and compile only
#   run_fft.sh run   BIN_DIR MPIEXEC NP FFT.pc "DEFINES"   and run: forward, inverse, each
#                                                          in natural and transposed order
# DEFINES: the sizes and switches (-DN0=24 -DN1=40 [-DN2=6] [-DFFT_DOUBLE] [-DFFT_GPU]
# [-DFFT_PENCIL -DP0=.. -DP1=..]); -DNP=NP is added, except for pencils (P0 * P1 = NP).
# With -DFFT_GPU the program is linked with cuFFT and the run exits 77
# (skipped) on a machine without a GPU. Every run must exit 0 and print one
# line ending in PASS (the program checks itself against FFTW).
set -u
mode=$1 bin=$2 mpiexec=$3 np=$4 src=$5 defs=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs="-lfftw3f -lfftw3 -lm"
case " $defs " in
  *" -DFFT_PENCIL "*) ;;
  *) defs="-DNP=$np $defs" ;;
esac
case " $defs " in
  *" -DFFT_GPU "*)
    libs="$libs -lcufft"
    if [ "$mode" = run ] && ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
      echo "SKIP: no CUDA device on this machine"; exit 77
    fi ;;
esac
# shellcheck disable=SC2086 # defs and libs are several words
"$bin/pacc" -O2 $defs "$src" $libs -o "$tmp/fft" || exit 1
[ "$mode" = build ] && exit 0
status=0
case " $defs " in # slabs: the natural order's strided form too
  *" -DFFT_PENCIL "*) set -- "" "-i" "-t" "-i -t" ;;
  *) set -- "" "-i" "-t" "-i -t" "-s" "-i -s" ;;
esac
for opts in "$@"; do
  # shellcheck disable=SC2086 # opts is several words or none
  timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" "$tmp/fft" -e -r 2 $opts >"$tmp/out" 2>"$tmp/err"
  rc=$?
  cat "$tmp/out"
  if [ "$rc" -ne 0 ] || [ "$(grep -c 'PASS$' "$tmp/out")" -ne 1 ]; then
    echo "FAIL: np=$np $defs ${opts:-forward}: exit status $rc"; cat "$tmp/err"; status=1
  fi
done
exit $status
