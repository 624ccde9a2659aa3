#!/bin/sh
# sgemm_shape.sh - which tile shape the SGEMM subprogram (include/parray/sgemm.pc)
# takes: 128 x 64 tiles at N = 512 and 1024 by default, with two k groups of
# 128 threads (256-thread blocks, one per multiprocessor: min_blocks(1)), and
# 128 x 128 tiles with one k group (256-thread blocks, two per
# multiprocessor) when PARRAY_SGEMM_WIDE_MIN_TILES forces them
# (tests/gpu/sgemm_parray_wide.pc). Reads the block size and the min_blocks
# that pac puts in the kernels' __launch_bounds__.
#   sgemm_shape.sh BIN_DIR GPU_TEST_DIR
set -u
bin=$1 dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # FILE.pc 'EXPECTED_BLOCK_THREADS, EXPECTED_MIN_BLOCKS' 
  (cd "$dir" && "$bin/pac" --emit=cuda "$1" -o "$tmp/out.cu") || { echo "FAIL: pac $1"; fail=1; return; }
  sizes=$(grep -o '__launch_bounds__([0-9]*, [0-9]*) parray__k_SG_K' "$tmp/out.cu" |
          sed 's/^__launch_bounds__(\([0-9]*, [0-9]*\)).*/\1/' | sort | uniq -c)
  if [ -n "$sizes" ] && [ "$(echo "$sizes" | wc -l)" -eq 1 ] && [ "$(echo "$sizes" | sed 's/^ *[0-9]* //')" = "$2" ]; then
    echo "ok: $1: every SGEMM kernel has (threads, min blocks) = ($2) ($(echo $sizes | awk '{print $1}') kernels)"
  else
    echo "FAIL: $1: want every SGEMM kernel with (threads, min blocks) = ($2), got (count, threads, min blocks): ${sizes:-none}"
    fail=1
  fi
}
check sgemm_parray.pc '256, 1'
check sgemm_parray_wide.pc '256, 2' 
exit $fail
