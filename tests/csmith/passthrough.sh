#!/bin/sh
# passthrough.sh - pac on C it did not write: csmith generates random C
# programs; each is translated by pac, and
#   1. the output, without pac's three prologue lines and #line markers, must
#      equal the input byte for byte;
#   2. the original and the translation, compiled with the same compiler and
#      flags, must print the same checksum.
# Programs whose original run exceeds the time limit are skipped for check 2
# (never for check 1); at least 80% must be compared or the test fails.
#   passthrough.sh BIN_DIR INCLUDE_DIR FIRST_SEED COUNT
set -u
bin=$1 inc=$2 first=$3 count=$4
csinc=$(for d in /usr/include/csmith /usr/include/csmith-2.3.0 /usr/local/include/csmith; do [ -d "$d" ] && echo "$d" && break; done)
[ -n "$csinc" ] || { echo "csmith headers not found"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 compared=0 skipped=0
seed=$first
end=$((first + count))
while [ "$seed" -lt "$end" ]; do
  src="$tmp/t$seed.c"
  (cd "$tmp" && csmith --seed "$seed" --max-funcs 4 --max-block-depth 3 -o "$src" >/dev/null 2>&1) || { echo "csmith failed for seed $seed"; fail=$((fail + 1)); seed=$((seed + 1)); continue; }
  if ! "$bin/pac" -I "$csinc" "$src" -o "$tmp/t.gen.c" 2>"$tmp/pac.err"; then
    echo "seed $seed: pac rejected a valid C program:"; head -5 "$tmp/pac.err"; fail=$((fail + 1)); seed=$((seed + 1)); continue
  fi
  tail -n +4 "$tmp/t.gen.c" | grep -v '^#line ' >"$tmp/t.strip.c"
  if ! cmp -s "$src" "$tmp/t.strip.c"; then
    echo "seed $seed: output differs from the input:"; diff "$src" "$tmp/t.strip.c" | head -10; fail=$((fail + 1)); seed=$((seed + 1)); continue
  fi
  if ! cc -O1 -w -I "$csinc" "$src" -o "$tmp/orig" 2>/dev/null; then seed=$((seed + 1)); skipped=$((skipped + 1)); continue; fi
  if ! cc -O1 -w -I "$csinc" -I "$inc" "$tmp/t.gen.c" -o "$tmp/gen" 2>"$tmp/cc.err"; then
    echo "seed $seed: the translation does not compile:"; head -5 "$tmp/cc.err"; fail=$((fail + 1)); seed=$((seed + 1)); continue
  fi
  if timeout 4 "$tmp/orig" >"$tmp/orig.out" 2>/dev/null; then
    timeout 8 "$tmp/gen" >"$tmp/gen.out" 2>/dev/null
    if ! cmp -s "$tmp/orig.out" "$tmp/gen.out"; then
      echo "seed $seed: checksums differ: $(cat "$tmp/orig.out") vs $(cat "$tmp/gen.out")"; fail=$((fail + 1))
    else
      compared=$((compared + 1))
    fi
  else
    skipped=$((skipped + 1))
  fi
  seed=$((seed + 1))
done
echo "$count programs: $compared checksums compared, $skipped skipped (original too slow or not compilable), $fail failures"
[ "$fail" -eq 0 ] || exit 1
[ $((compared * 10)) -ge $((count * 8)) ] || { echo "fewer than 80% of the programs were compared"; exit 1; }
