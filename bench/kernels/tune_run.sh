#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tune_run.sh - one device call for the tuning pass of the kernel library and
# permute (issue 5 misses): CMake build of the kernel/permute targets for
# sm_90, then, alone on the GPU, the engine/reduction variants, the library
# table, PyTorch, the permute variants and PyTorch permute; then the GPU tests
# (ctest -L gpu -R "kernels|permute") and, if time is left, an ncu profile.
# Files in $OUT (8): build.log variants.csv bench.csv torch.csv permute.csv
# permute.log tests.log ncu.txt. A short summary is printed last.
# Usage (repository root): OUT=... bash bench/kernels/tune_run.sh
set -u
OUT=${OUT:-/tmp/tune_out}
LIMIT=${LIMIT:-285}  # seconds this script may use in all
mkdir -p "$OUT"
ROOT=$PWD
B=/tmp/build-tune
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv,noheader \
  | tee "$OUT/build.log"
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPARRAY_BUILD_COMPILER=OFF \
  -DPARRAY_WITH_MPI=OFF >> "$OUT/build.log" 2>&1
cmake --build $B -j 16 --target test_kernels_cpu test_kernels_gpu test_kernels_user_op bench_kernels \
  permute_cpu_test permute_gpu_test bench_permute >> "$OUT/build.log" 2>&1 ||
  { echo "BUILD FAILED"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
echo "build: $(el) s"

# --- benchmarks, alone on the GPU
$B/bin/bench_kernels --variants > "$OUT/variants.csv" 2>> "$OUT/build.log"
echo "variants: $(el) s"
$B/bin/bench_kernels > "$OUT/bench.csv" 2>> "$OUT/build.log"
PYTHONUNBUFFERED=1 python3 bench/kernels/torch_kernels.py > "$OUT/torch.csv" 2>> "$OUT/build.log"
echo "kernels + torch: $(el) s"
$B/bin/bench_permute "$OUT/permute.csv" > "$OUT/permute.log" 2>&1
PYTHONUNBUFFERED=1 python3 bench/permute/torch_permute.py "$OUT/permute.csv" /tmp/permute.md >> "$OUT/permute.log" 2>&1
echo "permute + torch: $(el) s"

# --- GPU tests (correctness only; they may share the GPU)
left=$(( LIMIT - 35 - $(el) ))
[ $left -lt 20 ] && left=20
(cd $B && timeout $left ctest -L gpu -R "kernels|permute" -j 4 --output-on-failure --timeout $left \
  > "$OUT/tests.log" 2>&1)
echo "tests (rc $?, limit $left s): $(el) s"

# --- hardware counters of one call each, if time is left
if [ $(( LIMIT - $(el) )) -gt 30 ] && command -v ncu > /dev/null; then
  timeout $(( LIMIT - 8 - $(el) )) ncu --clock-control none --csv --metrics \
gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size \
    $B/bin/bench_kernels --profile > "$OUT/ncu.txt" 2>&1
  # PyTorch's add on the same 256 MB inputs: its kernel, grid and DRAM bytes
  [ $(( LIMIT - $(el) )) -gt 15 ] && timeout $(( LIMIT - 5 - $(el) )) ncu --clock-control none --csv \
    -k regex:vectorized_elementwise -c 2 --metrics \
gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size \
    python3 -c "import torch; n=1<<26; a=torch.rand(n,device='cuda'); b=torch.rand(n,device='cuda'); c=torch.empty_like(a); torch.add(a,b,out=c); torch.add(a,b,out=c); torch.cuda.synchronize()" \
    >> "$OUT/ncu.txt" 2>&1
fi

# --- summary
echo "=== engine variants (TB/s; cur = library default, cur#2 = same again)"
python3 - "$OUT/variants.csv" <<'PY'
import csv, sys, collections
t, vs = collections.OrderedDict(), []
for r in csv.DictReader(l for l in open(sys.argv[1]) if "," in l):
    v, rest = r["name"].split(" ", 1)
    t.setdefault(rest, {})[v[1:]] = float(r["tbs"])
    if v[1:] not in vs: vs.append(v[1:])
for kind in ("ew", "rd"):
    cols = [v for v in vs if (v[0] in "rc" and v[1].isdigit()) == (kind == "rd")]
    rows = [k for k in t if any(c in t[k] for c in cols)]
    print("%-18s" % "" + "".join("%9s" % c[:9] for c in cols))
    for k in rows:
        print("%-18s" % k[:18] + "".join("%9.2f" % t[k][c] if c in t[k] else "%9s" % "-" for c in cols))
PY
echo "=== library vs copy vs PyTorch"
python3 bench/kernels/compare.py "$OUT/bench.csv" "$OUT/torch.csv"
echo "=== permute"
grep -E "^(210|102|012|pitch) |^(021|10) +f16" "$OUT/permute.log" | awk '{printf "%s %s %s %-16s %s %s\n", $1, $2, $3, $4, $6, $8}'
grep -E "^\| \(|^\| pitched" "$OUT/permute.log" | tail -17 | cut -c1-150
echo "=== ncu (one call each)"
[ -f "$OUT/ncu.txt" ] && python3 - "$OUT/ncu.txt" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if not rows: print("ncu: no data"); sys.exit()
h = rows[0]; K = h.index("Kernel Name"); M = h.index("Metric Name"); V = h.index("Metric Value"); I = h.index("ID")
d = collections.OrderedDict()
short = {"gpu__time_duration.sum": "us", "dram__bytes_read.sum": "rdMB", "dram__bytes_write.sum": "wrMB",
         "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%", "sm__warps_active.avg.pct_of_peak_sustained_active": "warps%",
         "launch__registers_per_thread": "reg", "launch__grid_size": "grid", "launch__block_size": "blk"}
for r in rows[1:]:
    if r[0] == "ID": continue
    d.setdefault((r[I], r[K][:40]), {})[short.get(r[M], r[M])] = r[V]
for (i, k), m in d.items():
    print("%-40s %s" % (k, " ".join("%s=%s" % (n, v) for n, v in m.items())))
PY
echo "=== tests"
grep -E "tests passed|tests failed|Failed|Passed|Timeout|Skipped" "$OUT/tests.log" | head -12
echo "total $(el) s"
