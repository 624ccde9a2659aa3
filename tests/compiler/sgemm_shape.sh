#!/bin/sh
# sgemm_shape.sh - which tile shape the SGEMM subprogram (include/parray/sgemm.pc)
# takes: 128 x 64 tiles (128-thread blocks) at N = 512 and 1024 by default, and
# 128 x 128 tiles (256-thread blocks) when PARRAY_SGEMM_WIDE_MIN_TILES forces
# them (tests/gpu/sgemm_parray_wide.pc). Reads the block size pac puts in the
# kernels' __launch_bounds__, with the min_blocks(2) of the thread type as its
# second argument.   sgemm_shape.sh BIN_DIR GPU_TEST_DIR
set -u
bin=$1 dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # FILE.pc EXPECTED_BLOCK_THREADS
  (cd "$dir" && "$bin/pac" --emit=cuda "$1" -o "$tmp/out.cu") || { echo "FAIL: pac $1"; fail=1; return; }
  sizes=$(grep -o '__launch_bounds__([0-9]*, 2) parray__k_SG_K' "$tmp/out.cu" | sed 's/^[^0-9]*\([0-9]*\).*/\1/' |
          sort | uniq -c)
  if [ -n "$sizes" ] && [ "$(echo "$sizes" | awk '{print $2}')" = "$2" ]; then
    echo "ok: $1: every SGEMM kernel has $2 threads ($(echo $sizes | awk '{print $1}') kernels)"
  else
    echo "FAIL: $1: want every SGEMM kernel with $2 threads, got (count, threads): ${sizes:-none}"; fail=1
  fi
}
check sgemm_parray.pc 128
check sgemm_parray_wide.pc 256
exit $fail
