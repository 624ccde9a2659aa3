#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""torch_prims.py - the PyTorch peer of the examples written with
parray/primitives.cuh (examples/softmax.pc, layernorm.pc, bcast_add.pc,
run with --bench): torch.softmax(dim=-1), torch.nn.functional.layer_norm and
torch.add with a broadcast row, on the same shapes, timed by
bench/kernels/torch_kernels.py's timed() (CUDA events around each call,
median of 30 after a warm-up of at least 25 ms), buffer sets rotated until
they exceed 2.5x the L2 cache as in the examples.
Each output is checked against a float64 reference computed by PyTorch on
the GPU. Prints CSV rows in the format of the examples
(op,dtype,shape,bytes,us_waited,us,tbs,max_rel_err,check; us_waited = us:
PyTorch does not wait for its kernel)."""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels"))
from torch_kernels import timed  # noqa: E402  (the kernel library's PyTorch timing)

EPS = 1e-5
NAMES = {torch.float32: "f32", torch.float16: "f16"}


def sets(bytes_per_set):
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    return max(1, min(16, -(-int(2.5 * l2) // bytes_per_set)))


def rand(shape, dt):
    return (torch.rand(shape, device="cuda", dtype=torch.float32) * 10 - 5).to(dt)


def max_rel(got, ref, floor):
    err = ((got.double() - ref).abs() / ref.abs().clamp_min(floor)).max().item()
    return err if torch.isfinite(got).all().item() else float("inf")


def row(op, dt, rows, n, nbytes, us, err, tol):
    print(f"{op},{NAMES[dt]},{rows}x{n},{nbytes},{us:.2f},{us:.2f},{nbytes / us * 1e-6:.3f},{err:.3g},"
          f"{'ok' if err <= tol else 'WRONG'}", flush=True)


def case(op, dt, rows, n):
    es = torch.tensor([], dtype=dt).element_size()
    vec = 2 * n if op == "layernorm" else (n if op == "bcast_add" else 0)  # gamma, beta / b
    nbytes = (2 * rows * n + vec) * es
    k = sets(nbytes)
    xs = [rand((rows, n), dt) for _ in range(k)]
    w, b = rand((n,), dt), rand((n,), dt)
    tol = 1e-2 if dt == torch.float16 else 1e-5
    if op == "softmax":
        fn = lambda i: torch.softmax(xs[i], dim=-1)
        ref, floor = torch.softmax(xs[0].double(), dim=-1), 6.1e-5 if dt == torch.float16 else 1e-30
    elif op == "layernorm":
        fn = lambda i: F.layer_norm(xs[i], (n,), w, b, EPS)
        ref, floor = F.layer_norm(xs[0].double(), (n,), w.double(), b.double(), EPS), 1.0
    else:
        outs = [torch.empty((rows, n), device="cuda", dtype=dt) for _ in range(k)]
        fn = lambda i: torch.add(xs[i], b, out=outs[i])
        ref, floor = xs[0].double() + b.double(), 6.1e-5 if dt == torch.float16 else 1e-30
        tol = 1e-2 if dt == torch.float16 else 1e-6
    us = timed(k, fn)
    fn(0)
    got = outs[0] if op == "bcast_add" else fn(0)
    row(op, dt, rows, n, nbytes, us, max_rel(got, ref, floor), tol)
    del xs, ref, got
    torch.cuda.empty_cache()


def main():
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}", file=sys.stderr)
    rowwise = [(4096, 4096), (65536, 1024), (1048576, 32)]
    todo = [("softmax", s) for s in rowwise] + [("layernorm", s) for s in rowwise]
    todo += [("bcast_add", s) for s in [(4096, 4096), (16384, 4096), (65536, 4096)]]
    only = set(sys.argv[1:])
    for dt in (torch.float32, torch.float16):
        for op, (rows, n) in todo:
            if not only or op in only:
                case(op, dt, rows, n)


if __name__ == "__main__":
    main()
