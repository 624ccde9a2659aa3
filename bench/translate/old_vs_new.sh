#!/bin/sh
# old_vs_new.sh - wall time of two pac binaries on the same generated file,
# on the same machine, alternating: medians of 7 runs, three rounds.
#   old_vs_new.sh OLD_PAC NEW_PAC GEN_PC [FUNCTIONS]
set -eu
old=$1 new=$2 gen=$3 funcs=${4:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" "$funcs" >"$tmp/big.pc"
echo "lines: $(wc -l <"$tmp/big.pc")"
for r in 1 2 3; do
  for b in "$old" "$new"; do
    for i in 1 2 3 4 5 6 7; do
      s=$(date +%s%N); "$b" "$tmp/big.pc" -o "$tmp/o.c"; e=$(date +%s%N)
      echo $(((e - s) / 1000000))
    done | sort -n | sed -n 4p | sed "s|^|round $r $b median ms: |"
  done
done
