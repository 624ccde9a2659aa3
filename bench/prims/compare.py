#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""compare.py - the table of bench/prims: the examples written with
parray/primitives.cuh (their --bench rows) against PyTorch (torch_prims.py)
and, for the broadcast add, against a device-to-device copy of the same
array. Usage: compare.py PRIMS.csv TORCH.csv. Both files hold rows
op,dtype,shape,bytes,us_waited,us,tbs,max_rel_err,check (other lines are
skipped). The ratio is PyTorch's time over ours (>= 1: as fast or faster);
for bcast_add also our bandwidth over the copy's (bytes read and written).
Exits 1 when a row's check is not ok or a row has no peer."""
import csv
import sys

FIELDS = ["op", "dtype", "shape", "bytes", "us_waited", "us", "tbs", "err", "check"]
GOALS = {"softmax": "torch >= 1.00x", "layernorm": "torch >= 1.00x", "bcast_add": "copy >= 95%"}


def load(path):
    rows = {}
    with open(path) as f:
        for r in csv.reader(f):
            if len(r) == len(FIELDS) and r[0] != "op":
                d = dict(zip(FIELDS, r))
                rows[(d["op"], d["dtype"], d["shape"])] = d
    return rows


def main():
    ours, peer = load(sys.argv[1]), load(sys.argv[2])
    bad = 0
    print("| kernel | dtype | shape | Parray us (as measured) | PyTorch us | vs PyTorch | Parray TB/s | copy TB/s | vs copy | goal | checks |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key, d in ours.items():
        op, dt, shape = key
        if op == "copy":
            continue
        t = peer.get(key)
        c = ours.get(("copy", dt, shape)) if op == "bcast_add" else None
        us = float(d["us"])
        vs_t = "%.2fx" % (float(t["us"]) / us) if t else "-"
        vs_c = "%.1f%%" % (100 * float(d["tbs"]) / float(c["tbs"])) if c else "-"
        checks = "%s (%s) / %s" % (d["check"], d["err"], t["check"] if t else "-")
        bad += d["check"] != "ok" or not t or t["check"] != "ok"
        print("| %s | %s | %s | %.1f (%s) | %s | %s | %s | %s | %s | %s | %s |" %
              (op, dt, shape, us, d["us_waited"], t["us"] if t else "-", vs_t, d["tbs"], c["tbs"] if c else "-",
               vs_c, GOALS.get(op, ""), checks))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
