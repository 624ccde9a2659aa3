#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""torch_permute.py - the PyTorch peer for bench_permute: reads the CSV that
bench_permute wrote, times x.permute(perm).contiguous() (and a plain
y.copy_(x)) with CUDA events on the same shapes and dtypes in the same job
(warm-up, median of 30), then prints the combined table with the ratios and
the issue-5 goals. Bandwidth counts bytes read + written.

usage: python3 torch_permute.py bench_permute.csv [combined.md]
"""
import csv
import statistics
import sys

import torch

RUNS, WARM = 30, 3
DT = {"f32": torch.float32, "f16": torch.float16, "f64": torch.float64, "u8": torch.uint8}


def median_ms(fn):
    for _ in range(WARM):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(RUNS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


def make(shape, dtype):
    if dtype == torch.uint8:
        return torch.randint(1, 255, shape, dtype=dtype, device="cuda")
    return (torch.rand(shape, device="cuda") + 0.5).to(dtype)


def goal(perm, dtype):
    """(min fraction of copy, min x torch) from issue 5, or None."""
    if perm in ("021", "210", "10") and dtype in ("f32", "f16"):
        return 0.90, 3.0 if dtype == "f32" else 5.0
    if perm == "102" and dtype == "f32":
        return 0.95, None
    return None


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    groups = {}
    for r in rows:
        groups.setdefault((r["kind"], r["perm"], r["dtype"], r["shape"]), []).append(r)
    lines = [
        "| perm | dtype | shape | ours TB/s | best variant | cudaMemcpy TB/s | ours/copy | torch permute TB/s "
        "| torch copy TB/s | ours/torch | goal | met |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (kind, perm, dt, shape), rs in groups.items():
        sh = [int(s) for s in shape.split("x")]
        dtype = DT[dt]
        nbytes = int(rs[0]["bytes"])
        x = make(sh, dtype)
        if kind == "permute" and perm != "".join(str(i) for i in range(len(perm))):
            p = [int(c) for c in perm]
            t_ms = median_ms(lambda: x.permute(*p).contiguous())
        elif kind == "permute":  # identity: .contiguous() would be a no-op; time a clone
            t_ms = median_ms(lambda: x.clone())
        else:  # pitched rows: 16000x16000 f32 from pitch 16320 to pitch 16384
            rows_, cols = sh
            xs = make([rows_, 16320], dtype)[:, :cols]
            yd = torch.empty([rows_, 16384], dtype=dtype, device="cuda")[:, :cols]
            t_ms = median_ms(lambda: yd.copy_(xs))
            del xs, yd
        y = torch.empty_like(x)
        c_ms = median_ms(lambda: y.copy_(x))
        del x, y
        torch.cuda.empty_cache()
        t_tbs, tc_tbs = 2 * nbytes / t_ms / 1e9, 2 * nbytes / c_ms / 1e9
        d = next((r for r in rs if r["variant"] in ("default", "memcpy")), rs[0])
        best = max(rs, key=lambda r: float(r["tbs"]))
        ours, copy = float(d["tbs"]), float(d["copy_tbs"])
        g = goal(perm, dt) if kind == "permute" else None
        if g:
            ok = ours >= g[0] * copy and (g[1] is None or ours >= g[1] * t_tbs)
            gtxt = f">= {g[0]:.0%} copy" + (f", >= {g[1]:.0f}x torch" if g[1] else "")
            met = "yes" if ok else "NO"
        else:
            gtxt, met = "-", "-"
        lines.append(
            f"| {'(' + ','.join(perm) + ')' if kind == 'permute' else 'pitched rows'} | {dt} | {shape} | {ours:.2f} | {best['variant']} {float(best['tbs']):.2f} "
            f"| {copy:.2f} | {ours / copy:.1%} | {t_tbs:.2f} | {tc_tbs:.2f} | {ours / t_tbs:.2f}x | {gtxt} | {met} |"
        )
        print(lines[-1], flush=True)
    print("\n" + "\n".join(lines))
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
