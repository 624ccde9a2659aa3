#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench_translate.sh - translation speed of pac in lines per second on a large
# generated .pc, next to the system preprocessor reading the same file size
# of plain C (the same run, the same machine). Median of 7 runs after one
# warm-up.   bench_translate.sh BUILD_DIR [FUNCTIONS]
set -eu
build=$1 funcs=${2:-20000}
inc=$(cd "$(dirname "$0")/../../include" && pwd) # parray.h, for the peer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/gen_pc" "$funcs" >"$tmp/big.pc"
lines=$(wc -l <"$tmp/big.pc")
bytes=$(wc -c <"$tmp/big.pc")
"$build/bin/pac" "$tmp/big.pc" -o "$tmp/big.c"      # warm-up, and the plain C for the peer
grep -v '^#line ' "$tmp/big.c" >"$tmp/plain.c"
cc -E -I "$inc" "$tmp/plain.c" -o "$tmp/out.i" || { echo "the peer (cc -E) failed" >&2; exit 1; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_of() { # seconds of the command, 7 times
  for _ in 1 2 3 4 5 6 7; do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN {printf "%.6f\n", e - s}'
  done | median
}
tpac=$(time_of "$build/bin/pac" "$tmp/big.pc" -o "$tmp/out.c")
tcpp=$(time_of cc -E -I "$inc" "$tmp/plain.c" -o "$tmp/out.i")
printf 'input: %d lines, %d bytes (%s functions)\n' "$lines" "$bytes" "$funcs"
printf '%-28s %10s %14s\n' what seconds lines/s
awk -v l="$lines" -v p="$tpac" -v c="$tcpp" 'BEGIN {
  printf "%-28s %10.3f %14.0f\n", "pac (translate)", p, l / p
  printf "%-28s %10.3f %14.0f\n", "cc -E (peer, plain C)", c, l / c
  printf "pac / cc -E time ratio: %.2f\n", p / c }'
