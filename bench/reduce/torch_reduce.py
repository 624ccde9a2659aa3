# SPDX-License-Identifier: Apache-2.0
"""torch_reduce.py - bench/reduce's peer: torch.sum and torch.cumsum over the
same number of float32 elements on the GPU, the median of REPS runs after a warm-up, timed
with CUDA events. CSV on stdout (the columns of reduce_gpu):
    op,form,bytes,ms,gbs,of_copy,rel_err
Usage: python3 torch_reduce.py [MiB (default 1024)] [REPS (default 50)]"""
import statistics
import sys

import torch


def main():
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    n = mib * 262144
    x = torch.rand(n, device="cuda", dtype=torch.float32) + 0.25
    want = x.double().sum().item()
    y = torch.empty_like(x)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def timed(f):
        t = []
        for k in range(reps + 3):
            start.record()
            r = f()
            end.record()
            end.synchronize()
            if k >= 3:
                t.append(start.elapsed_time(end))
        return statistics.median(t), r

    copy_ms, _ = timed(lambda: y.copy_(x))
    copy_gbs = 2 * n * 4 / copy_ms / 1e6
    print("op,form,bytes,ms,gbs,of_copy,rel_err")
    print(f"copy,torch copy_,{n * 4},{copy_ms:.4f},{copy_gbs:.1f},1.000,0")
    ms, s = timed(lambda: x.sum().item())
    gbs = n * 4 / ms / 1e6
    print(f"sum,torch.sum,{n * 4},{ms:.4f},{gbs:.1f},{gbs / copy_gbs:.3f},{abs(s - want) / want:.2e}")
    ms, c = timed(lambda: torch.cumsum(x, 0, out=y))
    gbs = 2 * n * 4 / ms / 1e6
    err = ((y.double() - x.double().cumsum(0)).abs() / x.double().cumsum(0)).max().item()
    print(f"cumsum,torch.cumsum,{n * 4},{ms:.4f},{gbs:.1f},{gbs / copy_gbs:.3f},{err:.2e}")


if __name__ == "__main__":
    main()
