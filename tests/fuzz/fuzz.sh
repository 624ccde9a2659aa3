#!/bin/sh
# fuzz.sh - the libFuzzer test of the translator (ctest fuzz.translate):
#   fuzz.sh SRC_DIR WORK_DIR [FUZZER]
# Without FUZZER, builds tests/fuzz/fuzz_translate with clang (PAC_FUZZ_CC)
# in WORK_DIR/build; skips (77) when there is no clang with libFuzzer. Then
#   (a) runs every input of tests/fuzz/regress and every .pc file of the
#       repository (tests/, examples/, include/, bench/) once, and
#   (b) fuzzes for PAC_FUZZ_SECONDS seconds (default 120) from those seeds
#       with the dictionary tests/fuzz/pac.dict, the corpus kept in
#       WORK_DIR/corpus between runs.
# Fails on any crash, sanitizer report, leak, hang (over 10 s on one input)
# or use of more than 2 GB; what failed is kept in WORK_DIR/artifacts.
set -u
src=$1 work=$2 fuzzer=${3:-}
secs=${PAC_FUZZ_SECONDS:-120}
mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)

build_fuzzer() {
  cc=${PAC_FUZZ_CC:-clang}
  if ! command -v "$cc" >/dev/null 2>&1; then
    echo "skipped: no $cc (tools/deps-test.sh installs clang and libclang-rt-14-dev)"; exit 77
  fi
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return (int)(n && d[0]); }\n' >"$work/probe.c"
  if ! "$cc" -fsanitize=fuzzer,address,undefined "$work/probe.c" -o "$work/probe" >"$work/probe.log" 2>&1; then
    cat "$work/probe.log"
    echo "skipped: $cc cannot build with -fsanitize=fuzzer (Debian: install libclang-rt-14-dev)"; exit 77
  fi
  gen=""
  [ -f "$work/build/CMakeCache.txt" ] || { command -v ninja >/dev/null 2>&1 && gen="-GNinja"; }
  # shellcheck disable=SC2086
  cmake -S "$src" -B "$work/build" $gen -DCMAKE_C_COMPILER="$cc" -DPARRAY_FUZZ=ON -DPARRAY_WITH_CUDA=OFF \
    -DPARRAY_WITH_MPI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$work/build.log" 2>&1 &&
    cmake --build "$work/build" --target fuzz_translate >>"$work/build.log" 2>&1 ||
    { tail -n 40 "$work/build.log"; echo "FAIL: could not build fuzz_translate"; exit 1; }
  fuzzer="$work/build/bin/fuzz_translate"
}
[ -n "$fuzzer" ] || build_fuzzer

opts="-timeout=10 -rss_limit_mb=2048 -max_len=16384"
rm -rf "$work/seeds" "$work/artifacts"
mkdir -p "$work/seeds" "$work/artifacts" "$work/corpus"
# seeds named by their path, so that files of the same name do not collide
for d in tests examples include bench; do
  [ -d "$src/$d" ] && find "$src/$d" -path "$src/tests/fuzz" -prune -o -name '*.pc' -type f -print
done | while IFS= read -r f; do
  rel=${f#"$src"/}
  cp "$f" "$work/seeds/$(printf '%s' "$rel" | tr '/' '_')"
done
nseeds=$(ls "$work/seeds" | wc -l)
[ "$nseeds" -gt 0 ] || { echo "FAIL: no .pc seeds found under $src"; exit 1; }

# (a) replay, one process per input so that every failing one is listed
cd "$work/artifacts" || exit 1
: >"$work/replay.log"
bad=0 n=0
for f in "$src"/tests/fuzz/regress/* "$work"/seeds/*; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  # shellcheck disable=SC2086
  if ! "$fuzzer" $opts "$f" >"$work/one.log" 2>&1; then
    bad=$((bad + 1))
    echo "FAIL: $f"
    grep -E "ERROR|SUMMARY|runtime error|Timeout|out-of-memory" "$work/one.log" | head -n 4
    cat "$work/one.log" >>"$work/replay.log"
  fi
done
[ "$bad" -eq 0 ] || { echo "FAIL: $bad of $n inputs (tests/fuzz/regress, seeds) failed; log: $work/replay.log"; exit 1; }
echo "replayed $n inputs (tests/fuzz/regress and the repository's .pc files)"

# (b) fuzz
[ "$secs" -gt 0 ] || exit 0
# shellcheck disable=SC2086
if ! "$fuzzer" $opts -max_total_time="$secs" -dict="$src/tests/fuzz/pac.dict" -artifact_prefix="$work/artifacts/" \
  -print_final_stats=1 "$work/corpus" "$work/seeds" "$src/tests/fuzz/regress" >"$work/fuzz.log" 2>&1; then
  grep -vE "^#[0-9]+" "$work/fuzz.log" | tail -n 60
  echo "FAIL: the fuzzer found a problem; the input is in $work/artifacts: $(ls "$work/artifacts")"
  exit 1
fi
grep -E "stat::number_of_executed_units|cov:" "$work/fuzz.log" | tail -n 2
echo "ok"
