/* SPDX-License-Identifier: Apache-2.0 */
/* parray/reduce.cuh - the device side of reduce(...) on cuda detours
 * (docs/threads.md, "Reductions"): the operators, the reduction of one
 * block's private copies in a fixed tree (warp shuffles, then the warps'
 * results through shared memory), and the second pass that folds the
 * blocks' partial results in passes of a fixed shape. Fixed trees and
 * orders make the result the same, bit for bit, on every run with the same
 * grid. Included by
 * parray/cuda.h under nvcc; generated kernels call it. */
#ifndef PARRAY_REDUCE_CUH
#define PARRAY_REDUCE_CUH

#include <string.h>

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

/* v of the lane `off` above this one, for a value of any type (moved as
 * 4-byte words); mask: the lanes of the warp that exist */
template <class T> __device__ __forceinline__ T parray__red_down(T v, unsigned off, unsigned mask) {
  enum { W = (sizeof(T) + 3) / 4 };
  unsigned w[W];
  memset(w, 0, sizeof w);
  memcpy(w, &v, sizeof v);
  for (int i = 0; i < W; i++) w[i] = __shfl_down_sync(mask, w[i], off);
  T r;
  memcpy(&r, w, sizeof r);
  return r;
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

/* ---- scan(...) and exscan(...): the body's #scan ---------------------------- */

/* What a block of a kernel with scan variables tells the blocks after it:
 * flag 1, the total of its threads' copies (agg); flag 2, also the
 * variable's value combined with every copy up to its own (inc). Zeroed
 * before the launch. */
template <class T> struct parray_scan_state {
  unsigned flag;
  T agg, inc;
};

/* this block's place in the order in which the blocks started (ticket: a
 * counter zeroed before the launch): a block waits only for blocks that
 * started before it, which are running or done */
__device__ __forceinline__ unsigned parray_scan_ticket(unsigned *ticket) {
  __shared__ unsigned vb;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) vb = atomicAdd(ticket, 1u);
  __syncthreads();
  return vb;
}
__device__ __forceinline__ uint3 parray_scan_block(unsigned vb) {
  return make_uint3(vb % gridDim.x, vb / gridDim.x % gridDim.y, vb / (gridDim.x * gridDim.y));
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

/* v scanned inclusively over the n lanes 0..n-1 of this warp, in lane order */
template <class Op, class T> __device__ __forceinline__ T parray__scan_warp(Op op, T v, unsigned lane, unsigned n) {
  const unsigned mask = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
  for (unsigned off = 1; off < 32; off <<= 1) {
    T u;
    {
      enum { W = (sizeof(T) + 3) / 4 };
      unsigned w[W];
      memset(w, 0, sizeof w);
      memcpy(w, &v, sizeof v);
      for (int i = 0; i < W; i++) w[i] = __shfl_up_sync(mask, w[i], off);
      memcpy(&u, w, sizeof u);
    }
    if (lane >= off) v = op(u, v);
  }
  return v;
}

/* What the blocks before block vb add up to (vb > 0), one thread walking
 * back: their totals, nearest first, up to one whose inclusive value is
 * known. Every thread that calls it gets it. */
template <class Op, class T> __device__ T parray__look_back(Op op, parray_scan_state<T> *st, unsigned vb) {
  T run;
  bool have = false;
  for (unsigned j = vb - 1;; j--) {
    volatile parray_scan_state<T> *p = st + j;
    unsigned f;
    while ((f = p->flag) == 0) {
    }
    __threadfence();
    const parray_scan_state<T> *q = const_cast<const parray_scan_state<T> *>(p);
    T x = parray__load_shared_state(f == 2 ? &q->inc : &q->agg);
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
__device__ T parray__look_back_warp(Op op, parray_scan_state<T> *st, unsigned vb, unsigned lane) {
  T run;
  bool have = false;
  for (long base = (long)vb - 1;; base -= 32) {
    const long j = base - (long)lane;
    unsigned f = 2; /* before block 0: nothing to wait for */
    T x;
    if (j >= 0) {
      volatile parray_scan_state<T> *p = st + j;
      while ((f = p->flag) == 0) {
      }
      __threadfence();
      const parray_scan_state<T> *q = const_cast<const parray_scan_state<T> *>(p);
      x = parray__load_shared_state(f == 2 ? &q->inc : &q->agg);
    }
    const unsigned incl = __ballot_sync(0xffffffffu, f == 2 && j >= 0);
    const unsigned stop = incl ? (unsigned)(__ffs(incl) - 1) : 31u; /* the nearest inclusive lane, or all */
    const unsigned last = base < 31 ? (unsigned)base : 31u; /* lanes 0..last hold blocks */
    const unsigned upto = last < stop ? last : stop;
    /* fold lanes upto..0 (oldest first) into lane 0 */
    for (unsigned off = 1; off < 32; off <<= 1) {
      T older = parray__red_down(x, off, 0xffffffffu);
      if (lane % (2 * off) == 0 && lane + off <= upto) x = op(older, x);
    }
    { /* lane 0's, everywhere */
      enum { W = (sizeof(T) + 3) / 4 };
      unsigned w[W];
      memset(w, 0, sizeof w);
      memcpy(w, &x, sizeof x);
      for (int i = 0; i < W; i++) w[i] = __shfl_sync(0xffffffffu, w[i], 0);
      memcpy(&x, w, sizeof x);
    }
    run = have ? op(x, run) : x;
    have = true;
    if (incl || base < 32) return run;
  }
}

/* #scan: v, this thread's copy, becomes start combined with the copies of
 * every thread before it in the grid (block by block in ticket order,
 * threads in order), and with its own unless exclusive. The block's
 * threads are scanned in a fixed tree; the blocks before it through their
 * states (decoupled look-back): the totals of the blocks still running, up
 * to one whose inclusive value is known. */
template <class Op, class T>
__device__ T parray_scan_point(Op op, T v, T start, parray_scan_state<T> *st, unsigned vb, bool exclusive) {
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
    volatile parray_scan_state<T> *me = st + vb;
    if (vb == 0) {
      prefix = start;
    } else {
      if (lane == 0) {
        const_cast<parray_scan_state<T> *>(me)->agg = agg;
        __threadfence();
        me->flag = 1;
      }
      prefix = nt >= 32 ? parray__look_back_warp(op, st, vb, lane) : parray__look_back(op, st, vb);
    }
    if (lane == 0) {
      const_cast<parray_scan_state<T> *>(me)->inc = op(prefix, agg);
      __threadfence();
      me->flag = 2;
      memcpy(&part[32], &prefix, sizeof prefix);
    }
  }
  __syncthreads();
  T prefix;
  memcpy(&prefix, &part[32], sizeof prefix);
  T r = op(prefix, v); /* inclusive */
  if (exclusive) { /* the thread before's inclusive value: shifted up one lane, across warps through part */
    T before;
    {
      enum { W = (sizeof(T) + 3) / 4 };
      unsigned w[W];
      memset(w, 0, sizeof w);
      memcpy(w, &v, sizeof v);
      const unsigned n = warp + 1 < nw ? 32 : nt - warp * 32;
      const unsigned mask = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
      for (int i = 0; i < W; i++) w[i] = __shfl_up_sync(mask, w[i], 1);
      memcpy(&before, w, sizeof before);
    }
    if (lane == 0 && warp > 0) memcpy(&before, &part[warp - 1], sizeof before);
    r = t == 0 ? prefix : op(prefix, before);
  }
  __syncthreads(); /* the shared words are free for the next scan variable */
  return r;
}

#endif
