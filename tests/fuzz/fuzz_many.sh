#!/bin/sh
# fuzz_many.sh - a long libFuzzer run of the translator on many cores (the
# GPU machine's, say): fuzz_translate built elsewhere (tests/fuzz, clang),
# seeded with every .pc of the repository; findings go to OUT_DIR.
#   fuzz_many.sh FUZZER SEEDS_DIR OUT_DIR [SECONDS] [WORKERS]
set -u
fuzzer=$1 seeds=$2 out=$3 secs=${4:-420} workers=${5:-15}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/corpus"
"$fuzzer" -fork="$workers" -ignore_crashes=0 -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
  -max_len=16384 -dict="$here/pac.dict" -artifact_prefix="$out/" "$out/corpus" "$seeds" >"$out/fuzz.log" 2>&1
rc=$?
grep -E "exec/s|crash|ERROR|SUMMARY" "$out/fuzz.log" | tail -3
echo "fuzz_many: exit status $rc"
exit $rc
