#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# trace_run.sh BIN_DIR CASE... - profile evidence for the kernel library's
# remaining misses, on the GPU machine: for each case name of bench_kernels
# (e.g. "relu f32 16MB"), our benchmark and PyTorch's run alone (BENCH_ONLY)
# under ncu, profiling from the point where the inputs exist: the median of 5
# launches of each kernel (its duration alone, DRAM bytes, grid, registers);
# then ncu counters of one column-sum call (DRAM throughput, occupancy,
# long-scoreboard stalls). Logs in $OUT.
#   OUT=... bash bench/kernels/trace_run.sh build/bin "relu f32 16MB" ...   (repository root)
set -u
OUT=${OUT:-/tmp/trace_out}
mkdir -p "$OUT"
B=$1
shift
PATH=$PATH:/usr/local/cuda/bin
PY=${PYTHON:-/opt/torch/.venv/bin/python}
for c in "$@"; do
  tag=$(echo "$c" | tr ' ' '_')
  echo "=== $c"
  for who in ours torch; do
    if [ $who = ours ]; then cmd=("$B/bench_kernels"); k='regex:ew_kernel|cols_kernel'; else
      cmd=("$PY" bench/kernels/torch_kernels.py); k='regex:.'; fi
    command -v ncu >/dev/null || break
    BENCH_ONLY="$c" timeout 150 ncu --clock-control none --profile-from-start off --print-units base --csv -k "$k" --launch-skip 20 --launch-count 5 --metrics \
gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
      "${cmd[@]}" >"$OUT/ncu_${who}_$tag.csv" 2>&1
    python3 - "$OUT/ncu_${who}_$tag.csv" "$who" <<'PY'
import csv, sys, collections, statistics
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if not rows: print(sys.argv[2], "ncu: no data"); sys.exit()
h = rows[0]; K, M, V, I = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID")
d = collections.defaultdict(dict)
for r in rows[1:]: d[r[I]][r[M]] = float(r[V].replace(",", "")); d[r[I]]["name"] = r[K][:40]
m = lambda k: statistics.median(x[k] for x in d.values())
print("%-6s ncu: %d launches of %s: duration %.2f us, DRAM read %.1f MB, write %.1f MB, grid %d x %d, %d registers" % (
    sys.argv[2], len(d), next(iter(d.values()))["name"], m("gpu__time_duration.sum") / 1e3, m("dram__bytes_read.sum") / 1e6,
    m("dram__bytes_write.sum") / 1e6, m("launch__grid_size"), m("launch__block_size"), m("launch__registers_per_thread")))
PY
  done
done
if command -v ncu >/dev/null; then
  echo "=== ncu: column sums 1Mx32, fp16 and fp32 (library default)"
  timeout 90 ncu --clock-control none --print-units base --csv -k regex:'cols_kernel|cols_fold' --metrics \
gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio \
    "$B/bench_kernels" --profile >"$OUT/ncu_cols.csv" 2>&1
  python3 - "$OUT/ncu_cols.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if not rows: print("ncu: no data"); sys.exit()
h = rows[0]; K, M, V, I = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID")
d = collections.OrderedDict()
for r in rows[1:]: d.setdefault((r[I], r[K][:48]), {})[r[M].split("__")[1][:30]] = r[V]
for (i, k), m in d.items(): print(k, " ".join("%s=%s" % x for x in m.items()))
PY
fi
