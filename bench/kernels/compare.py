#!/usr/bin/env python3
"""compare.py CUDA_CSV TORCH_CSV - merge bench_kernels and torch_kernels
output into one table: our TB/s, copy TB/s, PyTorch TB/s (bytes read +
written) and the ratios, with the goals of issue 5 marked."""
import csv
import sys


def load(path):
    with open(path) as f:
        return {r["name"]: r for r in csv.DictReader(l for l in f if "," in l)}


ours, torch_ = load(sys.argv[1]), load(sys.argv[2])
print(f"{'kernel':24} {'us':>9} {'TB/s':>6} {'copy':>6} {'%copy':>6} {'torch':>6} {'x torch':>7}  goal")
for name, r in ours.items():
    if name.startswith("v"):
        continue
    tbs, cp = float(r["tbs"]), float(r["copy_tbs"] or "nan")
    t = torch_.get(name)
    tt = float(t["tbs"]) if t else float("nan")
    pc = 100 * tbs / cp
    op, _, size = name.split(" ")
    if op in ("add", "relu", "cast"):
        mbytes = int(size[:-2])
        ok = tbs >= tt and (mbytes < 256 or pc >= 95)
        goal = ("met" if ok else "MISSED") + (" (>=1.0x torch, >=95% copy)" if mbytes >= 256 else " (>=1.0x torch)")
    else:
        ok = pc >= 90
        goal = ("met" if ok else "MISSED") + " (>=90% copy)"
    print(f"{name:24} {float(r['us']):9.1f} {tbs:6.2f} {cp:6.2f} {pc:5.0f}% {tt:6.2f} {tbs / tt:7.2f}  {goal}")
