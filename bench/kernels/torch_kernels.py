#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""torch_kernels.py - the peer of bench_kernels.cu: the same operations in
PyTorch, timed the same two ways (torch.cuda.Event around each call, median
of 30 runs after a warm-up of at least 25 ms; and 30 calls captured in a CUDA
graph, median of 7 replays), buffer sets rotated until 512 MB are touched.
Prints CSV lines "name,bytes_rw,us,tbs,us_graph,tbs_graph" with the names
bench_kernels uses. BENCH_ONLY=NAME[,NAME...] in the environment times only
the cases of those names (e.g. "relu f32 16MB", for a profiler), as
bench_kernels does."""
import os
import statistics
import sys

import torch

WARM, RUNS, FOOT, WARM_MS, REPLAYS = 5, 30, 512 << 20, 25.0, 7


def warm_up(nsets, fn):
    """WARM calls, then more until about WARM_MS of GPU time has run (as bench_kernels)."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for i in range(WARM):
        fn(i % nsets)
    b.record()
    torch.cuda.synchronize()
    ms = a.elapsed_time(b)
    more = min(2000, int((WARM_MS - ms) / (ms / WARM))) if ms > 0 else 0
    for i in range(max(0, more)):
        fn((WARM + i) % nsets)
    return WARM + max(0, more)


def timed(nsets, fn):
    """Median of RUNS calls, CUDA events around each call."""
    w = warm_up(nsets, fn)
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(RUNS)]
    for i, (a, b) in enumerate(ev):
        a.record()
        fn((i + w) % nsets)
        b.record()
    torch.cuda.synchronize()
    return 1e3 * statistics.median(a.elapsed_time(b) for a, b in ev)


def graphed(nsets, fn):
    """Back-to-back: RUNS calls captured in a CUDA graph, median of REPLAYS replays / RUNS."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        warm_up(nsets, fn)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(RUNS):
            fn(i % nsets)
    g.replay()
    ts = []
    for _ in range(REPLAYS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b))
    del g
    return 1e3 * statistics.median(ts) / RUNS


def nsets(per_set_bytes):
    return max(1, -(-FOOT // per_set_bytes))


def rand(n, dt):
    return (torch.rand(n, device="cuda", dtype=torch.float32) * 2 - 1).to(dt)


def emit(name, rw, us, usg):
    print(f"{name},{rw},{us:.2f},{rw / us * 1e-6:.3f},{usg:.2f},{rw / usg * 1e-6:.3f}", flush=True)


def both(k, fn):
    return timed(k, fn), graphed(k, fn)


def wanted(name):
    """False when BENCH_ONLY (a comma-separated list of case names) names other cases only."""
    only = os.environ.get("BENCH_ONLY")
    return not only or name in only.split(",")


def profile_from_here():
    """With BENCH_ONLY, a profiler started with --profile-from-start off sees only what follows."""
    if os.environ.get("BENCH_ONLY"):
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()


def main():
    torch.backends.cudnn.benchmark = False
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}", file=sys.stderr)
    print("name,bytes_rw,us,tbs,us_graph,tbs_graph")
    names = {torch.float32: "f32", torch.float16: "f16"}
    for dt in (torch.float32, torch.float16):
        es = torch.tensor([], dtype=dt).element_size()
        for op in ("add", "relu", "cast"):
            for size in (16 << 20, 64 << 20, 256 << 20, 1 << 30):
                if not wanted(f"{op} {names[dt]} {size >> 20}MB"):
                    continue
                n = size // es
                other = torch.float16 if dt == torch.float32 else torch.float32
                out_es = torch.tensor([], dtype=other).element_size() if op == "cast" else es
                rw = (2 if op == "add" else 1) * size + n * out_es
                k = nsets(rw)
                xs = [rand(n, dt) for _ in range(k)]
                op_name = op
                if op == "add":
                    ys = [rand(n, dt) for _ in range(k)]
                    outs = [torch.empty(n, device="cuda", dtype=dt) for _ in range(k)]
                    profile_from_here()
                    us = both(k, lambda i: torch.add(xs[i], ys[i], out=outs[i]))
                elif op == "relu":
                    # torch.relu allocates its output: the caching allocator hands back the block
                    # freed by the previous call, so every run writes the same buffer ("relu_fix",
                    # compared with our relu into one fixed output). "relu": the same kernel (relu is
                    # clamp_min(x, 0) in ATen) into rotated outputs, compared with our rotated relu.
                    outs = [torch.empty(n, device="cuda", dtype=dt) for _ in range(k)]
                    profile_from_here()
                    us = both(k, lambda i: torch.clamp_min(xs[i], 0, out=outs[i]))
                    emit(f"{op} {names[dt]} {size >> 20}MB", rw, *us)
                    us = both(k, lambda i: torch.relu(xs[i]))  # timed second, as bench_kernels times relu_fix
                    op_name = "relu_fix"
                    del outs
                else:
                    outs = [torch.empty(n, device="cuda", dtype=other) for _ in range(k)]
                    profile_from_here()
                    us = both(k, lambda i: outs[i].copy_(xs[i]))
                emit(f"{op_name} {names[dt]} {size >> 20}MB", rw, *us)
                del xs
                if op == "add":
                    del ys
                torch.cuda.empty_cache()
    cases = [("rowsum", torch.float32, 1 << 20, 32, "1Mx32"), ("rowsum", torch.float32, 1 << 16, 1024, "64Kx1024"),
             ("colsum", torch.float32, 1 << 20, 32, "1Mx32"), ("sum", torch.float32, 1, 1 << 28, "1GB"),
             ("rowsum", torch.float16, 1 << 20, 32, "1Mx32"), ("colsum", torch.float16, 1 << 20, 32, "1Mx32"),
             ("colsum", torch.float32, 1 << 16, 1024, "64Kx1024"), ("sum", torch.float16, 1, 1 << 29, "1GB")]
    for kind, dt, r, c, label in cases:
        if not wanted(f"{kind} {names[dt]} {label}"):
            continue
        es = torch.tensor([], dtype=dt).element_size()
        nout = 1 if kind == "sum" else (r if kind == "rowsum" else c)
        rw = r * c * es + nout * 4  # fp32 result, like bench_kernels
        k = nsets(rw)
        xs = [rand(r * c, dt).view(r, c) for _ in range(k)]
        outs = [torch.empty(nout, device="cuda", dtype=torch.float32) for _ in range(k)]
        if kind == "sum":
            us = both(k, lambda i: torch.sum(xs[i], dtype=torch.float32))
        else:
            dim = 1 if kind == "rowsum" else 0
            us = both(k, lambda i: torch.sum(xs[i], dim=dim, dtype=torch.float32, out=outs[i]))
        emit(f"{kind} {names[dt]} {label}", rw, *us)
        del xs, outs
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
