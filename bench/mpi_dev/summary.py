#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""summary.py - the markdown tables of bench/mpi_dev/run.sh, from its
combined log on stdin: per process count and matrix size, pac's #copy in GB/s
for every transport run (lines "transport=T np=.. pac_copy=.."), the NCCL
peers of torch_alltoall.py ((a) pack + all_to_all_single + unpack, (b) bare
all_to_all_single), the CUDA IPC strided writes of alltoall_bench.pc (c),
and the ratios pac/(a), pac/(b) in GB/s (above 1, pac is faster). The pac
figure of the ratios is the transport "auto" where it ran, else the best
transport of the row. Lines prefixed "sim2node " (SIM_NODES=1: four
processes as two simulated hosts, NCCL without P2P and SHM) get a table of
their own. FAIL and "failed" lines are repeated below the tables.
  sh bench/mpi_dev/run.sh BUILD_DIR        (calls it)
  python3 bench/mpi_dev/summary.py <LOG"""
import re
import sys

GBS = r"\S+ s \(([0-9.]+) GB/s\)"
PAC = re.compile(r"^(sim2node )?transport=(\S+) np=(\d+) total=(\d+) MB pac_copy=" + GBS)
P2P = re.compile(r"^(sim2node )?transport=(\S+) np=(\d+) total=(\d+) MB peer_to_peer=" + GBS + r".*?(FAIL)?\s*$")
TORCH = re.compile(r"^(sim2node )?torch np=(\d+) total=(\d+) MB(?: pack_a2a_unpack=" + GBS + r")? a2a=" + GBS)


def main():
    transports = []  # in the order of the log
    pac, a, bare, ipc = {}, {}, {}, {}  # (mode, np, MB) -> GB/s (pac: -> {transport: GB/s})
    bad = []
    for line in sys.stdin:
        line = line.rstrip("\n")
        if "FAIL" in line or " failed" in line:
            bad.append(line)
        m = PAC.match(line)
        if m:
            key = (m.group(1) or "", int(m.group(3)), int(m.group(4)))
            if m.group(2) not in transports:
                transports.append(m.group(2))
            pac.setdefault(key, {})[m.group(2)] = float(m.group(5))
            continue
        m = P2P.match(line)
        if m:  # the same in every transport's run: the auto run's figure, else the first
            key = (m.group(1) or "", int(m.group(3)), int(m.group(4)))
            val = "FAIL" if m.group(6) else float(m.group(5))
            if key not in ipc or m.group(2) == "auto":
                ipc[key] = val
            continue
        m = TORCH.match(line)
        if m:
            key = (m.group(1) or "", int(m.group(2)), int(m.group(3)))
            if m.group(4):
                a[key] = float(m.group(4))
            bare[key] = float(m.group(5))
    keys = sorted(set(pac) | set(a) | set(bare) | set(ipc))

    def fmt(v):
        return "-" if v is None else v if isinstance(v, str) else "%.2f" % v

    def ratio(x, y):
        return "-" if x is None or y is None or y <= 0 else "%.2f" % (x / y)

    def base(k):
        row = pac.get(k, {})
        if "auto" in row:
            return row["auto"]
        return max(row.values()) if row else None

    for mode, title in (("", "one node"), ("sim2node ", "two simulated hosts (NCCL_HOSTID per half, NCCL P2P and SHM off)")):
        rows = [k for k in keys if k[0] == mode]
        if not rows:
            continue
        cols = ["np", "total MB"] + ["pac %s GB/s" % t for t in transports] + [
            "(a) torch pack+a2a+unpack GB/s", "(b) torch a2a GB/s", "(c) CUDA IPC GB/s", "pac/(a)", "pac/(b)"]
        print("\n%s:\n" % title)
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for k in rows:
            p = base(k)
            cells = [str(k[1]), str(k[2])] + [fmt(pac.get(k, {}).get(t)) for t in transports] + [
                fmt(a.get(k)), fmt(bare.get(k)), fmt(ipc.get(k)), ratio(p, a.get(k)), ratio(p, bare.get(k))]
            print("| " + " | ".join(cells) + " |")
    if keys:
        print("\npac/(a), pac/(b): pac %s; GB/s = N*N*4 bytes / median time; above 1, pac is faster."
              % ("transport auto" if "auto" in transports else "at its best transport in the row"))
    else:
        print("no results in the log")
    if bad:
        print("\nfailures:")
        for line in bad:
            print("  " + line)
    return 1 if bad or not keys else 0


if __name__ == "__main__":
    sys.exit(main())
