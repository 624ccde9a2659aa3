#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# old_vs_new.sh - two pac binaries on the same generated file, on the same
# machine, in interleaved pairs (old, new, old, new, ...: drifts of the
# machine hit both alike): per run the CPU time (user + system, from wait4)
# and the wall time; printed: the medians, and the median and quartiles of
# the per-pair ratio new / old, from PAIRS pairs after WARMUP pairs.
#   old_vs_new.sh OLD_PAC NEW_PAC GEN_PC [FUNCTIONS]     (PAIRS=31 WARMUP=2)
set -eu
old=$1 new=$2 gen=$3 funcs=${4:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" "$funcs" >"$tmp/big.pc"
echo "input: $(wc -l <"$tmp/big.pc") lines, $(wc -c <"$tmp/big.pc") bytes; pairs ${PAIRS:-31} after ${WARMUP:-2}"
python3 - "$old" "$new" "$tmp/big.pc" "$tmp/o.c" "${PAIRS:-31}" "${WARMUP:-2}" <<'EOF'
import os, statistics, subprocess, sys, time
old, new, src, out, pairs, warm = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
def run(b):
    t = time.perf_counter()
    p = subprocess.Popen([b, src, "-o", out], stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"{b} failed (status {status})")
    return ru.ru_utime + ru.ru_stime, time.perf_counter() - t
rows = {"old": [], "new": []}
for i in range(warm + pairs):
    a, b = run(old), run(new)
    if i >= warm:
        rows["old"].append(a)
        rows["new"].append(b)
def q(v):
    v = sorted(v)
    return v[len(v) // 4], statistics.median(v), v[(3 * len(v)) // 4]
for k, name in ((0, "cpu s"), (1, "wall s")):
    o = [r[k] for r in rows["old"]]
    n = [r[k] for r in rows["new"]]
    ratio = [y / x for x, y in zip(o, n)]
    lo, med, hi = q(ratio)
    print(f"{name:7s} old median {statistics.median(o):.4f}  new median {statistics.median(n):.4f}  "
          f"new/old per pair: median {med:.4f} (quartiles {lo:.4f} .. {hi:.4f})")
EOF
