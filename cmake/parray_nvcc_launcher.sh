#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# parray_nvcc_launcher.sh - the CUDA compiler launcher that the Parray CMake
# helpers (ParrayHelpers.cmake) give targets with CUDA translations:
#   sh parray_nvcc_launcher.sh [OTHER LAUNCHER...] NVCC ARGS...
# When the file compiled (-c FILE) is a pac translation that uses the tensor
# memory accelerator (its header says sm=90: a tma #copy, SGEMM_TMA), and
# the architecture flags ask for one before 9.0 (or for none, or -arch=all),
# they are replaced by -arch=sm_90a, the architecture pacc picks for it on
# a 9.0 GPU. Any other compile runs exactly as given.
src=
prev=
for a do
  [ "$prev" = -c ] && src=$a
  prev=$a
done
case $src in
  *.cu) ;;
  *) exec "$@" ;;
esac
sed -n '1,3p' "$src" 2>/dev/null | grep -q '^/\* pac: target=cuda .* sm=90' || exec "$@"

# the architectures asked for: keep them when each is 9.0 or later
old=no
archs=0
prev=
for a do
  v=
  case $prev in
    -arch | -code | -gencode | --gpu-architecture | --gpu-code | --generate-code) v=$a ;;
  esac
  case $a in
    -arch=* | -code=* | -gencode=* | --gpu-architecture=* | --gpu-code=* | --generate-code=*) v=${a#*=} ;;
  esac
  prev=$a
  case $v in
    '') ;;
    all*) old=yes ;;
    native) archs=$((archs + 1)) ;;
    *)
      for n in $(printf '%s\n' "$v" | grep -oE '(compute|sm)_[0-9]+' | sed 's/.*_//'); do
        archs=$((archs + 1))
        [ "$n" -lt 90 ] && old=yes
      done ;;
  esac
done
[ $old = no ] && [ $archs -gt 0 ] && exec "$@"

# drop every architecture flag (and the value of those given apart), add sm_90a
skip=no
for a do
  shift
  if [ $skip = yes ]; then
    skip=no
    continue
  fi
  case $a in
    -arch | -code | -gencode | --gpu-architecture | --gpu-code | --generate-code) skip=yes; continue ;;
    -arch=* | -code=* | -gencode=* | --gpu-architecture=* | --gpu-code=* | --generate-code=*) continue ;;
  esac
  set -- "$@" "$a"
done
exec "$@" -arch=sm_90a
