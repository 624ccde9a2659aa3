#!/usr/bin/env python3
"""torch_kernels.py - the peer of bench_kernels.cu: the same operations in
PyTorch, timed the same way (torch.cuda.Event around each call, median of 30
runs after 5 warm-ups, buffer sets rotated until 512 MB are touched).
Prints CSV lines "name,bytes_rw,us,tbs" with the names bench_kernels uses."""
import statistics
import sys

import torch

WARM, RUNS, FOOT = 5, 30, 512 << 20


def timed(nsets, fn):
    for i in range(WARM):
        fn(i % nsets)
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(RUNS)]
    for i, (a, b) in enumerate(ev):
        a.record()
        fn((i + WARM) % nsets)
        b.record()
    torch.cuda.synchronize()
    return 1e3 * statistics.median(a.elapsed_time(b) for a, b in ev)


def nsets(per_set_bytes):
    return max(1, -(-FOOT // per_set_bytes))


def rand(n, dt):
    return (torch.rand(n, device="cuda", dtype=torch.float32) * 2 - 1).to(dt)


def emit(name, rw, us):
    print(f"{name},{rw},{us:.2f},{rw / us * 1e-6:.3f}", flush=True)


def main():
    torch.backends.cudnn.benchmark = False
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}", file=sys.stderr)
    print("name,bytes_rw,us,tbs")
    names = {torch.float32: "f32", torch.float16: "f16"}
    for dt in (torch.float32, torch.float16):
        es = torch.tensor([], dtype=dt).element_size()
        for op in ("add", "relu", "cast"):
            for size in (16 << 20, 64 << 20, 256 << 20, 1 << 30):
                n = size // es
                other = torch.float16 if dt == torch.float32 else torch.float32
                out_es = torch.tensor([], dtype=other).element_size() if op == "cast" else es
                rw = (2 if op == "add" else 1) * size + n * out_es
                k = nsets(rw)
                xs = [rand(n, dt) for _ in range(k)]
                if op == "add":
                    ys = [rand(n, dt) for _ in range(k)]
                    outs = [torch.empty(n, device="cuda", dtype=dt) for _ in range(k)]
                    us = timed(k, lambda i: torch.add(xs[i], ys[i], out=outs[i]))
                elif op == "relu":
                    us = timed(k, lambda i: torch.relu(xs[i]))
                else:
                    outs = [torch.empty(n, device="cuda", dtype=other) for _ in range(k)]
                    us = timed(k, lambda i: outs[i].copy_(xs[i]))
                emit(f"{op} {names[dt]} {size >> 20}MB", rw, us)
                del xs
                if op == "add":
                    del ys
                torch.cuda.empty_cache()
    cases = [("rowsum", torch.float32, 1 << 20, 32, "1Mx32"), ("rowsum", torch.float32, 1 << 16, 1024, "64Kx1024"),
             ("colsum", torch.float32, 1 << 20, 32, "1Mx32"), ("sum", torch.float32, 1, 1 << 28, "1GB"),
             ("rowsum", torch.float16, 1 << 20, 32, "1Mx32"), ("colsum", torch.float16, 1 << 20, 32, "1Mx32"),
             ("colsum", torch.float32, 1 << 16, 1024, "64Kx1024"), ("sum", torch.float16, 1, 1 << 29, "1GB")]
    for kind, dt, r, c, label in cases:
        es = torch.tensor([], dtype=dt).element_size()
        nout = 1 if kind == "sum" else (r if kind == "rowsum" else c)
        rw = r * c * es + nout * 4  # fp32 result, like bench_kernels
        k = nsets(rw)
        xs = [rand(r * c, dt).view(r, c) for _ in range(k)]
        outs = [torch.empty(nout, device="cuda", dtype=torch.float32) for _ in range(k)]
        if kind == "sum":
            us = timed(k, lambda i: torch.sum(xs[i], dtype=torch.float32))
        else:
            dim = 1 if kind == "rowsum" else 0
            us = timed(k, lambda i: torch.sum(xs[i], dim=dim, dtype=torch.float32, out=outs[i]))
        emit(f"{kind} {names[dt]} {label}", rw, us)
        del xs, outs
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
