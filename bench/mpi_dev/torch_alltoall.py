#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""torch_alltoall.py - the PyTorch/NCCL peers of alltoall_bench.pc: the
rows-to-columns redistribution of an N x N float matrix over NP processes,
one GPU each (cuda device LOCAL_RANK, NCCL backend), as users write it today.

Layouts (as the pac program's ROWS and COLS): rank p starts with rows
p*b.. of the matrix, b = N/NP, stored row-major as [b][N]; it must end with
columns p*b.. of all N rows, stored row-major as [N][b].

Two forms are timed for every size:
  pack_a2a_unpack (a): the whole redistribution. The pack is a transposing
    copy of the row block [b][N] into NP contiguous pieces [NP][b][b] (piece q
    = columns q*b..); then torch.distributed.all_to_all_single of those
    pieces; then the unpack, a copy of the received [NP][b][b] (piece s = rows
    s*b.. of the column block) into the preallocated [N][b] output. For this
    layout the received buffer already is the column block (the unpack
    reduces to a view), but the copy a user writes to get the result into
    their own output tensor is done and timed.
  a2a (b): all_to_all_single of the same bytes (the row block, flat), without
    pack or unpack: the transport alone.
Each run: dist.barrier + torch.cuda.synchronize on every rank, then on rank 0
time.perf_counter around the work, torch.cuda.synchronize, dist.barrier,
torch.cuda.synchronize (the closing barrier is inside the time, as the
MPI_Barrier of the pac program's hand-written form). Median of REPS runs
after two warm-ups; GB/s = matrix bytes (N*N*4) / time. The inputs are
torch.rand with a fixed seed per rank; on the first size the output of (a)
is compared element by element with the expected column block, built on the
GPU by drawing every rank's input again from its seed (the ranks' GPUs are
of one model, so the draws are the same); on a mismatch rank 0 prints FAIL
and every rank exits 1.

Rank 0 prints one line per size:
  torch np=2 total=268 MB pack_a2a_unpack=0.0123 s (21.81 GB/s) a2a=0.0100 s (26.84 GB/s)
(without the pack_a2a_unpack field under --bare-only).

  torchrun --standalone --nproc_per_node=NP bench/mpi_dev/torch_alltoall.py \\
      --sizes 8192,16384,32768 [--reps R] [--bare-only] [--sim-nodes 2]

--reps: runs per size (default 9, 5 from N = 32768 on, as run.sh gives the
pac program). --sim-nodes K: NCCL_HOSTID = node<rank // (world/K)> on every
rank before the process group starts, so that NCCL sees K hosts (with
NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 set by the caller it then goes through
its network transport). NCCL_NVLS_ENABLE is left as the environment has it.
bench/mpi_dev/run.sh runs this script."""
import argparse
import os
import statistics
import sys
import time


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="8192,16384,32768", help="matrix sides, comma-separated")
    ap.add_argument("--reps", type=int, default=0, help="runs per size (default 9, 5 from 32768 on)")
    ap.add_argument("--bare-only", action="store_true", help="time only the bare all_to_all_single (b)")
    ap.add_argument("--sim-nodes", type=int, default=0, help="NCCL_HOSTID per rank: this many simulated hosts")
    a = ap.parse_args()
    a.n = [int(x) for x in a.sizes.split(",") if x.strip()]
    return a


def main():
    args = parse()
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(world)))
    if args.sim_nodes > 1:
        if world % args.sim_nodes:
            sys.exit("torch_alltoall.py: %d ranks do not split into %d hosts" % (world, args.sim_nodes))
        os.environ["NCCL_HOSTID"] = "node%d" % (rank // (world // args.sim_nodes))

    import torch
    import torch.distributed as dist

    ngpu = torch.cuda.device_count()
    if ngpu < local_world:  # NCCL refuses two ranks on one GPU
        if rank == 0:
            print("torch np=%d: skipped, %d GPUs" % (world, ngpu), flush=True)
        return 0
    for n in args.n:
        if n % world:
            sys.exit("torch_alltoall.py: N=%d does not split over %d ranks" % (n, world))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group(backend="nccl")
    if rank == 0:
        v = torch.cuda.nccl.version()
        print("# torch %s, NCCL %s, %s x%d%s" % (torch.__version__, ".".join(map(str, v)) if isinstance(v, tuple) else v,
              torch.cuda.get_device_name(dev), world,
              ", simulated hosts: %d" % args.sim_nodes if args.sim_nodes > 1 else ""), flush=True)

    def barrier():
        dist.barrier(device_ids=[local])
        torch.cuda.synchronize()

    def timed(fn, reps):
        """median of reps runs after two warm-ups, each between barriers, timed on rank 0"""
        ts = []
        for k in range(-2, reps):
            barrier()
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            barrier()
            t1 = time.perf_counter()
            if k >= 0:
                ts.append(t1 - t0)
        return statistics.median(ts)

    def seed(r):
        return 12345 + 1000 * r

    failed = 0
    for i, n in enumerate(args.n):
        reps = args.reps or (5 if n >= 32768 else 9)
        npr, b = world, n // world
        gen = torch.Generator(device=dev)
        gen.manual_seed(seed(rank))
        inp = torch.rand(b, n, device=dev, generator=gen)           # my rows, [b][N]
        recv = torch.empty(b * n, device=dev)                         # what all_to_all_single delivers
        line = "torch np=%d total=%.0f MB" % (npr, n * n * 4 / 1e6)
        gb = n * n * 4 / 1e9
        if not args.bare_only:
            send = torch.empty(npr, b, b, device=dev)                 # the packed pieces, [NP][b][b]
            out = torch.empty(n, b, device=dev)                       # my columns, [N][b]
            pieces = inp.view(b, npr, b).transpose(0, 1)              # piece q = columns q*b.. of my rows

            def full():
                send.copy_(pieces)                                    # pack (transposing copy)
                dist.all_to_all_single(recv, send.view(-1))
                out.copy_(recv.view(n, b))                            # unpack into the output

            t_full = timed(full, reps)
            if i == 0:
                exp = torch.empty(n, b, device=dev)
                g = torch.Generator(device=dev)
                for s in range(npr):
                    g.manual_seed(seed(s))
                    exp[s * b:(s + 1) * b].copy_(torch.rand(b, n, device=dev, generator=g)[:, rank * b:(rank + 1) * b])
                bad = (out != exp).sum().to(torch.int64).reshape(1)
                dist.all_reduce(bad)
                del exp
                if bad.item():
                    if rank == 0:
                        print("FAIL: torch np=%d N=%d: %d wrong elements after pack_a2a_unpack"
                              % (npr, n, bad.item()), flush=True)
                    failed = 1
                    break
            line += " pack_a2a_unpack=%.4f s (%.2f GB/s)" % (t_full, gb / t_full)
            del send, out, pieces
        flat = inp.view(-1)
        t_bare = timed(lambda: dist.all_to_all_single(recv, flat), reps)
        line += " a2a=%.4f s (%.2f GB/s)" % (t_bare, gb / t_bare)
        if rank == 0:
            print(line, flush=True)
        del inp, recv, flat
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    barrier()
    dist.destroy_process_group()
    return failed


if __name__ == "__main__":
    sys.exit(main())
