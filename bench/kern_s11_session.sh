#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kern_s11_session.sh - one device call of the session-11 kernel work (issue
# 19 item 3: elementwise f16 against PyTorch, fp16 column sums): the kernel
# library built with nvcc (bench/kernels/gpu_run.sh KERN_BUILD_ONLY=1), then
# the steps named in STEPS (default: all, in this order):
#   tests    test_kernels_cpu, test_kernels_user_op, test_kernels_gpu
#   coltest  test_kernels_gpu --cols (every column-sum variant, COLV if set)
#   variants bench_kernels --variants on the CASES (engine and column-sum
#            variants; the stamped column variants print their stamps)
#   bench    bench_kernels and torch_kernels.py on the CASES, REPEAT times,
#            each merged by compare.py
#   ncu_ew   ncu --set full of one launch of our relu f16 1 GB kernel (the
#            library's, and the engine without the residency cap through
#            --variants) and of PyTorch's, each alone (BENCH_ONLY): details,
#            raw metrics and the SASS with per-instruction counters and stall
#            samples
#   ncu_cols ncu counters of the library column sums (bench_kernels --profile)
#   san      compute-sanitizer memcheck + racecheck on test_kernels_gpu --cols
#            (COLV_SAN: the variants to check)
#   san_ew   compute-sanitizer memcheck on test_kernels_user_op
# Logs in $OUT/k11.tgz (the device call brings back few files), a summary
# on stdout.  OUT=... STEPS="..." bash bench/kern_s11_session.sh  (repository root)
set -u
FINAL_OUT=${OUT:-/tmp/k11out}
OUT=/tmp/k11
rm -rf "$OUT"
mkdir -p "$OUT" "$FINAL_OUT"
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s]"; }
PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
export PATH
STEPS=${STEPS:-tests coltest variants bench ncu_ew ncu_cols san san_ew}
CASES=${CASES:-relu f16 256MB,relu f16 1024MB,add f16 256MB,add f16 1024MB,colsum f16 1Mx32,colsum f32 1Mx32,colsum f32 64Kx1024,colsum f16 64Kx1024}
REPEAT=${REPEAT:-1}
B=/tmp/build-kern/bin
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.mem --format=csv,noheader
OUT=$OUT/build KERN_BUILD_ONLY=1 bash bench/kernels/gpu_run.sh > "$OUT/build.txt" 2>&1 || { cat "$OUT/build.txt"; exit 1; }
tail -1 "$OUT/build.txt"; echo "built $(el)"

if has tests; then
  for t in test_kernels_cpu test_kernels_user_op test_kernels_gpu; do
    timeout 200 $B/$t > "$OUT/$t.log" 2>&1
    echo "$t: rc=$? $(grep -E 'passed|failures|cases|SKIP' "$OUT/$t.log" | tr '\n' ' ') $(el)"
    grep -m 10 -E 'FAIL|error' "$OUT/$t.log"
  done
fi
if has coltest; then
  timeout 120 $B/test_kernels_gpu --cols > "$OUT/coltest.log" 2>&1
  echo "test_kernels_gpu --cols: rc=$? $(grep -E 'passed|failures|cases' "$OUT/coltest.log" | tr '\n' ' ') $(el)"
  grep -m 10 -E 'FAIL|error' "$OUT/coltest.log"
fi
if has variants; then
  BENCH_ONLY="$CASES" timeout 150 $B/bench_kernels --variants > "$OUT/variants.csv" 2> "$OUT/variants.err"
  echo "variants: rc=$? $(el)"
  grep stamps "$OUT/variants.err"
  python3 - "$OUT/variants.csv" <<'PY'
import csv, sys, collections
t = collections.OrderedDict()
for r in csv.DictReader(open(sys.argv[1])):
    v, op, dt, sz = r["name"].split(" ")
    t.setdefault(op + " " + dt + " " + sz, []).append((v[1:], float(r["tbs"])))
for k, vs in t.items():
    print("%-20s" % k, " ".join("%s=%.3f" % x for x in vs))
PY
fi
if has bench; then
  for rep in $(seq 1 "$REPEAT"); do
    BENCH_ONLY="$CASES" timeout 120 $B/bench_kernels > "$OUT/bench$rep.csv" 2>> "$OUT/bench.err"
    BENCH_ONLY="$CASES" PYTHONUNBUFFERED=1 timeout 120 python3 bench/kernels/torch_kernels.py > "$OUT/torch$rep.csv" 2>> "$OUT/bench.err"
    echo "--- run $rep (TB/s, bytes read + written) $(el)"
    python3 bench/kernels/compare.py "$OUT/bench$rep.csv" "$OUT/torch$rep.csv" | tee "$OUT/table$rep.txt"
  done
fi
if has ncu_ew && command -v ncu > /dev/null; then
  c=${NCU_CASE:-relu f16 1024MB}
  for who in ours nocap torch; do
    case $who in
      ours) cmd=("$B/bench_kernels"); k='regex:ew_kernel' ;;
      nocap) cmd=("$B/bench_kernels" --variants); k='regex:ew_kernel' ;; # EWV=nocap: the engine without the cap
      torch) cmd=(python3 bench/kernels/torch_kernels.py); k='regex:elementwise' ;;
    esac
    EWV=nocap BENCH_ONLY="$c" timeout 120 ncu --set full --import-source no --clock-control none --profile-from-start off \
      -k "$k" --launch-skip 20 --launch-count 1 -f -o "$OUT/ncu_$who" "${cmd[@]}" > "$OUT/ncu_${who}_run.log" 2>&1
    echo "ncu $who: rc=$? $(el)"
    ncu -i "$OUT/ncu_$who.ncu-rep" --page details > "$OUT/ncu_${who}_details.txt" 2>&1
    ncu -i "$OUT/ncu_$who.ncu-rep" --page raw --csv > "$OUT/ncu_${who}_raw.csv" 2>&1
    ncu -i "$OUT/ncu_$who.ncu-rep" --page source --print-source sass --csv > "$OUT/ncu_${who}_sass.csv" 2>&1
    grep -E 'Duration|DRAM Throughput|Memory Throughput|L2 Hit Rate|Achieved Occupancy|Theoretical Occupancy|Registers Per|Executed Ipc|Waves Per SM|Block Limit' \
      "$OUT/ncu_${who}_details.txt" | head -20
  done
fi
if has ncu_cols && command -v ncu > /dev/null; then
  timeout 90 ncu --clock-control none --print-units base --csv -k regex:'cols_kernel|cols_fold' --metrics \
gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio \
    "$B/bench_kernels" --profile > "$OUT/ncu_cols.csv" 2>&1
  echo "ncu cols: rc=$? $(el)"
  python3 - "$OUT/ncu_cols.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if not rows: print("ncu: no data"); sys.exit()
h = rows[0]; K, M, V, I = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID")
d = collections.OrderedDict()
for r in rows[1:]: d.setdefault((r[I], r[K][:60]), {})[r[M].split("__")[1][:30]] = r[V]
for (i, k), m in d.items(): print(k, " ".join("%s=%s" % x for x in m.items()))
PY
fi
if has san; then
  for tool in memcheck racecheck; do
    COLV="${COLV_SAN:-}" timeout ${SAN_LIMIT:-100} compute-sanitizer --error-exitcode 9 --tool $tool \
      $B/test_kernels_gpu --cols > "$OUT/$tool.log" 2>&1
    echo "$tool: rc=$? $(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log") $(grep -E 'cases|fail' "$OUT/$tool.log" | tr '\n' ' ') $(el)"
  done
fi
tar -czf "$FINAL_OUT/k11.tgz" -C "$OUT" --exclude='*.ncu-rep' . && cp "$OUT"/ncu_*.ncu-rep "$FINAL_OUT/" 2>/dev/null
if has san_ew; then # the elementwise engine (user-defined operations through it) under memcheck
  timeout ${SAN_LIMIT:-100} compute-sanitizer --error-exitcode 9 --tool memcheck $B/test_kernels_user_op \
    > "$OUT/memcheck_ew.log" 2>&1
  echo "memcheck test_kernels_user_op: rc=$? $(grep -m1 'ERROR SUMMARY' "$OUT/memcheck_ew.log") $(el)"
fi
echo "total $(el)"
