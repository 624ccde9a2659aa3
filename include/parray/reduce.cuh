/* SPDX-License-Identifier: Apache-2.0 */
/* parray/reduce.cuh - the device side of reduce(...) on cuda detours
 * (docs/threads.md, "Reductions"): the operators, the reduction of one
 * block's private copies in a fixed tree (warp shuffles, then the warps'
 * results through shared memory), and the second pass that folds the
 * blocks' partial results in passes of a fixed shape. Fixed trees and
 * orders make the result the same, bit for bit, on every run with the same
 * grid. With 'unordered', each block's result is combined into one with an
 * atomic instead, in any order. Scans: the look-back of blocks. Included by
 * parray/cuda.h under nvcc; generated kernels call it. */
#ifndef PARRAY_REDUCE_CUH
#define PARRAY_REDUCE_CUH

#include <string.h>

#include "parray/atomic.h"

/* the operators of the clause, one functor each */
struct parray_red_add {
  template <class T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct parray_red_mul {
  template <class T> __device__ T operator()(T a, T b) const { return a * b; }
};
struct parray_red_min {
  template <class T> __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
struct parray_red_max {
  template <class T> __device__ T operator()(T a, T b) const { return b > a ? b : a; }
};
struct parray_red_band {
  template <class T> __device__ T operator()(T a, T b) const { return a & b; }
};
struct parray_red_bor {
  template <class T> __device__ T operator()(T a, T b) const { return a | b; }
};
struct parray_red_bxor {
  template <class T> __device__ T operator()(T a, T b) const { return a ^ b; }
};
struct parray_red_land {
  template <class T> __device__ T operator()(T a, T b) const { return a && b; }
};
struct parray_red_lor {
  template <class T> __device__ T operator()(T a, T b) const { return a || b; }
};

/* a user's function T f(T, T) as an operator */
template <class T, T (*F)(T, T)> struct parray_red_fn {
  __device__ T operator()(T a, T b) const { return F(a, b); }
};

/* v of another lane, for a value of any type (moved as 4-byte words):
 * How 0, the lane arg above this one (__shfl_down_sync); 1, the lane arg
 * below (__shfl_up_sync); 2, lane arg (__shfl_sync); mask: the lanes of
 * the warp that take part */
template <int How, class T> __device__ __forceinline__ T parray__shfl(T v, unsigned arg, unsigned mask) {
  enum { W = (sizeof(T) + 3) / 4 };
  unsigned w[W];
  memset(w, 0, sizeof w);
  memcpy(w, &v, sizeof v);
  for (int i = 0; i < W; i++)
    w[i] = How == 0 ? __shfl_down_sync(mask, w[i], arg) : How == 1 ? __shfl_up_sync(mask, w[i], arg)
                                                           : __shfl_sync(mask, w[i], (int)arg);
  T r;
  memcpy(&r, w, sizeof r);
  return r;
}
template <class T> __device__ __forceinline__ T parray__red_down(T v, unsigned off, unsigned mask) {
  return parray__shfl<0>(v, off, mask);
}

/* v reduced over the n lanes 0..n-1 of this warp (n <= 32); lane 0 has it */
template <class Op, class T> __device__ __forceinline__ T parray__red_warp(Op op, T v, unsigned lane, unsigned n) {
  const unsigned mask = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
  for (unsigned off = 16; off > 0; off >>= 1) {
    T u = parray__red_down(v, off, mask);
    if (lane + off < n) v = op(v, u);
  }
  return v;
}

/* v reduced over the block's threads 0..nv-1 in a fixed tree (the others'
 * values are ignored, but every thread of the block calls it); thread 0
 * has the result */
template <class Op, class T> __device__ __forceinline__ T parray__red_threads(Op op, T v, unsigned t, unsigned nv) {
  __shared__ __align__(16) unsigned char parray__red_smem[32 * sizeof(T)];
  T *part = reinterpret_cast<T *>(parray__red_smem);
  const unsigned lane = t % 32, warp = t / 32, nw = (nv + 31) / 32;
  if (t < nv) v = parray__red_warp(op, v, lane, warp + 1 < nw ? 32 : nv - warp * 32);
  if (nw == 1) return v;
  if (lane == 0 && t < nv) memcpy(&part[warp], &v, sizeof v);
  __syncthreads();
  if (t < nw) {
    memcpy(&v, &part[t], sizeof v);
    v = parray__red_warp(op, v, lane, nw);
  }
  __syncthreads(); /* the shared words are free for the block's next reduction */
  return v;
}

/* the end of a body with reduce(...): this block's private copies v
 * reduced, stored by thread 0 in partials[the block's linear index] */
template <class Op, class T> __device__ void parray_red_block(Op op, T v, T *partials) {
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nt = blockDim.x * blockDim.y * blockDim.z;
  v = parray__red_threads(op, v, t, nt);
  if (t == 0) partials[blockIdx.x + (size_t)gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z)] = v;
}

/* A pass of the fold of n partial results: block b folds in[b * PARRAY_RED_CHUNK ...] (thread t
 * its elements t, t + 256, ... in order, then the block's tree) into out[b]. */
#define PARRAY_RED_CHUNK 4096u
template <class Op, class T> __global__ void __launch_bounds__(256) parray__red_pass(Op op, const T *in, size_t n,
                                                                                      T *out) {
  const unsigned t = threadIdx.x;
  const size_t from = (size_t)blockIdx.x * PARRAY_RED_CHUNK, left = n - from;
  const unsigned nv = left < 256 ? (unsigned)left : 256u;
  T v;
  if (t < nv) {
    v = in[from + t];
    for (size_t i = from + t + 256; i < n && i < from + PARRAY_RED_CHUNK; i += 256) v = op(v, in[i]);
  }
  v = parray__red_threads(op, v, t, nv);
  if (t == 0) out[blockIdx.x] = v;
}

/* The fold of the n > 0 partial results at a, in passes of a fixed shape
 * (the same order for the same n), through b (room for n / PARRAY_RED_CHUNK
 * + 1 of them); returns where the result is. Every launch is checked and
 * recorded for the detour's site. */
template <class Op, class T> static T *parray_red_finish(Op op, T *a, size_t n, T *b, const char *file, int line,
                                                         const char *what) {
  while (n > 1) {
    size_t g = (n + PARRAY_RED_CHUNK - 1) / PARRAY_RED_CHUNK;
    parray__red_pass<<<(unsigned)g, 256>>>(op, a, n, b);
    parray_cuda_launched(file, line, what);
    T *x = a;
    a = b, b = x, n = g;
  }
  return a;
}

/* *p read from memory another block wrote, past this multiprocessor's cache */
template <class T> __device__ __forceinline__ T parray__load_shared_state(const T *p) {
  T r;
  unsigned char b[sizeof(T)];
  const volatile unsigned char *q = reinterpret_cast<const volatile unsigned char *>(p);
  for (unsigned i = 0; i < sizeof(T); i++) b[i] = q[i];
  memcpy(&r, b, sizeof r);
  return r;
}

/* ---- 'unordered': one atomic per block -------------------------------------------- */

/* the value's bits in the low bytes of the 8-byte word combined with v, the rest kept */
template <class Op, class T> struct parray__red_in_word {
  Op op;
  T v;
  __device__ unsigned long long operator()(unsigned long long w) const {
    T o;
    memcpy(&o, &w, sizeof o);
    const T n = op(o, v);
    memcpy(&w, &n, sizeof n);
    return w;
  }
};

/* *slot combined with v atomically, in whatever order the blocks come: the
 * slot is 16-byte aligned, holds the value first and, 16-byte aligned after
 * it, a lock word (zeroed before the launch). parray/atomic.h's atomic
 * where it has one for the operator and type (CUDA's own, or its
 * compare-and-swap); otherwise a compare-and-swap loop over the 8 bytes
 * that hold a value of at most 8 bytes; otherwise the slot's lock around
 * the combination. */
template <class Op, class T> __device__ void parray__red_atomic_word(Op op, T *slot, T v) {
  parray__cas_loop(reinterpret_cast<unsigned long long *>(slot), parray__red_in_word<Op, T>{op, v});
}
template <class Op, class T> __device__ void parray__red_atomic_locked(Op op, T *slot, T v) {
  unsigned *lock = reinterpret_cast<unsigned *>(reinterpret_cast<char *>(slot) + (sizeof(T) + 15) / 16 * 16);
  while (atomicCAS(lock, 0u, 1u) != 0u) {
  }
  __threadfence();
  T o = parray__load_shared_state(slot);
  o = op(o, v);
  volatile unsigned char *d = reinterpret_cast<volatile unsigned char *>(slot);
  const unsigned char *b = reinterpret_cast<const unsigned char *>(&o);
  for (unsigned i = 0; i < sizeof(T); i++) d[i] = b[i];
  __threadfence();
  atomicExch(lock, 0u);
}
template <bool Word> struct parray__red_atomic_by {
  template <class Op, class T> __device__ static void go(Op op, T *slot, T v) { parray__red_atomic_word(op, slot, v); }
};
template <> struct parray__red_atomic_by<false> {
  template <class Op, class T> __device__ static void go(Op op, T *slot, T v) { parray__red_atomic_locked(op, slot, v); }
};
/* the rest: a compare-and-swap loop, or the lock (long is a worse match
 * for the 0 the caller passes than the int of the overloads below) */
template <class Op, class T> __device__ __forceinline__ void parray__red_atomic(Op op, T *slot, T v, long) {
  parray__red_atomic_by<(sizeof(T) <= 8)>::go(op, slot, v);
}
/* the operators that parray/atomic.h has an atomic for, for the types it
 * has it for (CUDA's own where CUDA has one): those (the others drop out) */
#define PARRAY__RED_VIA(OP, FN)                                                                                     \
  template <class T>                                                                                              \
  __device__ __forceinline__ auto parray__red_atomic(OP, T *slot, T v, int)->decltype((void)FN(slot, v)) {        \
    FN(slot, v);                                                                                                  \
  }
PARRAY__RED_VIA(parray_red_add, parray_atomic_add)
PARRAY__RED_VIA(parray_red_min, parray_atomic_min)
PARRAY__RED_VIA(parray_red_max, parray_atomic_max)
PARRAY__RED_VIA(parray_red_band, parray_atomic_and)
PARRAY__RED_VIA(parray_red_bor, parray_atomic_or)
PARRAY__RED_VIA(parray_red_bxor, parray_atomic_xor)
#undef PARRAY__RED_VIA

/* a folded kernel (reduce(...) with 'unordered'): the block of the
 * detour's grid g that the linear index v stands for */
__device__ __forceinline__ uint3 parray_fold_block(unsigned long long v, dim3 g) {
  if (g.y == 1 && g.z == 1) return make_uint3((unsigned)v, 0, 0); /* no division: a 1-D grid */
  if (v <= 0xffffffffull) { /* 32-bit divisions, far cheaper than 64-bit ones */
    const unsigned u = (unsigned)v;
    return make_uint3(u % g.x, u / g.x % g.y, u / g.x / g.y);
  }
  return make_uint3((unsigned)(v % g.x), (unsigned)(v / g.x % g.y), (unsigned)(v / g.x / g.y));
}

/* the end of a body with reduce(...) and 'unordered': this block's private
 * copies v reduced in its fixed tree, then combined into *slot by thread 0 */
template <class Op, class T> __device__ void parray_red_unordered(Op op, T v, T *slot) {
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nt = blockDim.x * blockDim.y * blockDim.z;
  v = parray__red_threads(op, v, t, nt);
  if (t == 0) parray__red_atomic(op, slot, v, 0);
}

/* ---- scan(...) and exscan(...): the body's #scan ---------------------------- */

/* What a block of a kernel with scan variables tells the blocks after it:
 * flag 1, the total of its threads' copies; flag 2, the variable's value
 * combined with every copy up to its own (inclusive). Each flag is tagged
 * with the launch's epoch (flag | epoch << 2), so that states left by an
 * earlier launch read as not posted: the host zeroes the states only when
 * the memory held something else before (or the epochs wrap), not before
 * every launch. A value of at most 4 bytes travels with its tagged flag in
 * one 8-byte word, written and read whole (flag in the high half), so that
 * a block looking back reads both in one load; a larger one is written
 * before its flag, with a fence between. */
template <class T, bool Word = (sizeof(T) <= 4)> struct parray_scan_state {
  unsigned flag;
  T agg, inc;
};
template <class T> struct parray_scan_state<T, true> {
  unsigned long long word;
};

/* this block's state becomes flag (1 or 2) with the value v */
template <class T>
__device__ __forceinline__ void parray__scan_post(parray_scan_state<T, false> *s, unsigned flag, T v, unsigned epoch) {
  memcpy(flag == 1 ? &s->agg : &s->inc, &v, sizeof v);
  __threadfence();
  *reinterpret_cast<volatile unsigned *>(&s->flag) = flag | epoch << 2;
}
template <class T>
__device__ __forceinline__ void parray__scan_post(parray_scan_state<T, true> *s, unsigned flag, T v, unsigned epoch) {
  unsigned bits = 0;
  memcpy(&bits, &v, sizeof v);
  *reinterpret_cast<volatile unsigned long long *>(&s->word) = (unsigned long long)(flag | epoch << 2) << 32 | bits;
}

/* the state at s once its block has posted one in this launch: its flag,
 * and its value in *v */
template <class T>
__device__ __forceinline__ unsigned parray__scan_wait(const parray_scan_state<T, false> *s, T *v, unsigned epoch) {
  unsigned f;
  while ((f = *reinterpret_cast<const volatile unsigned *>(&s->flag)) >> 2 != epoch) {
  }
  __threadfence();
  f &= 3u;
  *v = parray__load_shared_state(f == 2 ? &s->inc : &s->agg);
  return f;
}
template <class T>
__device__ __forceinline__ unsigned parray__scan_wait(const parray_scan_state<T, true> *s, T *v, unsigned epoch) {
  unsigned long long w;
  while ((unsigned)((w = *reinterpret_cast<const volatile unsigned long long *>(&s->word)) >> 34) != epoch) {
  }
  const unsigned bits = (unsigned)w;
  memcpy(v, &bits, sizeof *v);
  return (unsigned)(w >> 32) & 3u;
}

/* this block's place in the order in which the blocks started, for a grid
 * of more than one dimension (a one-dimensional grid's blocks go by their
 * index, in which the GPU starts them, as CUB's scans rely on too): a
 * block waits only for blocks that started before it, which are running
 * or done. ticket: a counter, zero at the launch; the block taking the
 * last number sets it back to zero for the next launch. */
__device__ __forceinline__ unsigned parray_scan_ticket(unsigned *ticket) {
  __shared__ unsigned vb;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    vb = atomicAdd(ticket, 1u);
    if (vb == gridDim.x * gridDim.y * gridDim.z - 1) atomicExch(ticket, 0u); /* every number is taken */
  }
  __syncthreads();
  return vb;
}
__device__ __forceinline__ uint3 parray_scan_block(unsigned vb) {
  return make_uint3(vb % gridDim.x, vb / gridDim.x % gridDim.y, vb / (gridDim.x * gridDim.y));
}

/* v scanned inclusively over the n lanes 0..n-1 of this warp, in lane order */
template <class Op, class T> __device__ __forceinline__ T parray__scan_warp(Op op, T v, unsigned lane, unsigned n) {
  const unsigned mask = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
  for (unsigned off = 1; off < 32; off <<= 1) {
    T u = parray__shfl<1>(v, off, mask);
    if (lane >= off) v = op(u, v);
  }
  return v;
}

/* What the blocks before block vb add up to (vb > 0), one thread walking
 * back: their totals, nearest first, up to one whose inclusive value is
 * known. Every thread that calls it gets it. */
template <class Op, class T> __device__ T parray__look_back(Op op, parray_scan_state<T> *st, unsigned vb, unsigned epoch) {
  T run;
  bool have = false;
  for (unsigned j = vb - 1;; j--) {
    T x;
    const unsigned f = parray__scan_wait(st + j, &x, epoch);
    run = have ? op(x, run) : x;
    have = true;
    if (f == 2) return run;
  }
}

/* The same, a whole warp looking at 32 blocks at a time: lane L at block
 * vb - 1 - (window) - L; the window up to the nearest block with an
 * inclusive value folded oldest first (a fixed tree over the lanes), then
 * the next window further back if none had one. */
template <class Op, class T>
__device__ T parray__look_back_warp(Op op, parray_scan_state<T> *st, unsigned vb, unsigned lane, unsigned epoch) {
  T run;
  bool have = false;
  for (long base = (long)vb - 1;; base -= 32) {
    const long j = base - (long)lane;
    unsigned f = 2; /* before block 0: nothing to wait for */
    T x;
    if (j >= 0) f = parray__scan_wait(st + j, &x, epoch);
    const unsigned incl = __ballot_sync(0xffffffffu, f == 2 && j >= 0);
    const unsigned stop = incl ? (unsigned)(__ffs(incl) - 1) : 31u; /* the nearest inclusive lane, or all */
    const unsigned last = base < 31 ? (unsigned)base : 31u; /* lanes 0..last hold blocks */
    const unsigned upto = last < stop ? last : stop;
    /* fold lanes upto..0 (oldest first) into lane 0 */
    for (unsigned off = 1; off < 32; off <<= 1) {
      T older = parray__red_down(x, off, 0xffffffffu);
      if (lane % (2 * off) == 0 && lane + off <= upto) x = op(older, x);
    }
    x = parray__shfl<2>(x, 0, 0xffffffffu); /* lane 0's, everywhere */
    run = have ? op(x, run) : x;
    have = true;
    if (incl || base < 32) return run;
  }
}

/* #scan: v, this thread's copy, becomes start combined with the copies of
 * every thread before it in the grid (block by block in the order vb,
 * threads in order), and with its own unless exclusive. The block's
 * threads are scanned in a fixed tree; the blocks before it through their
 * states (decoupled look-back): the totals of the blocks still running, up
 * to one whose inclusive value is known. The last block also writes the
 * variable's total to *total (pinned host memory, read by the host after
 * the kernel). */
template <class Op, class T>
__device__ T parray_scan_point(Op op, T v, T start, parray_scan_state<T> *st, unsigned vb, bool exclusive,
                               unsigned epoch, T *total) {
  __shared__ __align__(16) unsigned char smem[33 * sizeof(T)];
  T *part = reinterpret_cast<T *>(smem);
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nt = blockDim.x * blockDim.y * blockDim.z, lane = t % 32, warp = t / 32, nw = (nt + 31) / 32;
  v = parray__scan_warp(op, v, lane, warp + 1 < nw ? 32 : nt - warp * 32);
  if (lane == 31 || t == nt - 1) memcpy(&part[warp], &v, sizeof v);
  __syncthreads();
  if (warp == 0 && lane < nw) {
    T w;
    memcpy(&w, &part[lane], sizeof w);
    w = parray__scan_warp(op, w, lane, nw);
    memcpy(&part[lane], &w, sizeof w);
  }
  __syncthreads();
  if (warp > 0) {
    T before;
    memcpy(&before, &part[warp - 1], sizeof before);
    v = op(before, v);
  }
  if (warp == 0) { /* the block's prefix: start, or what the blocks before it add up to */
    T agg, prefix;
    memcpy(&agg, &part[nw - 1], sizeof agg);
    if (vb == 0) {
      prefix = start;
    } else {
      if (lane == 0) parray__scan_post(st + vb, 1, agg, epoch);
      prefix = nt >= 32 ? parray__look_back_warp(op, st, vb, lane, epoch) : parray__look_back(op, st, vb, epoch);
    }
    if (lane == 0) {
      const T incl = op(prefix, agg);
      parray__scan_post(st + vb, 2, incl, epoch);
      memcpy(&part[32], &prefix, sizeof prefix);
      if (vb == gridDim.x * gridDim.y * gridDim.z - 1) memcpy(total, &incl, sizeof incl); /* the last block */
    }
  }
  __syncthreads();
  T prefix;
  memcpy(&prefix, &part[32], sizeof prefix);
  T r = op(prefix, v); /* inclusive */
  if (exclusive) { /* the thread before's inclusive value: shifted up one lane, across warps through part */
    const unsigned n = warp + 1 < nw ? 32 : nt - warp * 32;
    T before = parray__shfl<1>(v, 1, n >= 32 ? 0xffffffffu : (1u << n) - 1u);
    if (lane == 0 && warp > 0) memcpy(&before, &part[warp - 1], sizeof before);
    r = t == 0 ? prefix : op(prefix, before);
  }
  __syncthreads(); /* the shared words are free for the next scan variable */
  return r;
}

#endif
