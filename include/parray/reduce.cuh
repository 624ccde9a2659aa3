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

#endif
