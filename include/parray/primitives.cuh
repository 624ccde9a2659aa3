/* SPDX-License-Identifier: Apache-2.0 */
/* parray/primitives.cuh - block-level primitives for cuda detour bodies (and
 * any CUDA C++ kernel): a kernel written with them moves its data in 16-byte
 * packs, reduces with warp shuffles before shared memory and accumulates
 * 16-bit types in fp32, so that an operator is a few lines and still runs at
 * bandwidth. Header-only device code, namespace parray_prim; see
 * docs/primitives.md. A .pc file uses it with
 *
 *   #include <parray/primitives.cuh>
 *
 * at its top (the file must be a CUDA program: it uses dmem or a cuda thread
 * array). Conventions:
 *
 * - A register tile is a local array `R r[NY * NX]`: NY rows of NX elements,
 *   row-major. Sizes are template arguments (the tile stays in registers).
 * - A group of G threads (thread t of it, 0 <= t < G) shares a row of n
 *   elements: thread t holds the packs t, t + G, t + 2G, ... of the row, a
 *   pack being V = 16 / sizeof(T) elements of the row's type T (1 when T is
 *   16 bytes or wider). Element x of row y of t's tile is column
 *   ((x / V) * G + t) * V + x % V. NX must be a multiple of V.
 * - Reads and writes check each element against n (and each row against the
 *   row count): a tile may run past the end of the array; elements past it
 *   read as `fill` and are not written. A row is read in packs when its
 *   address (and the row stride) allow 16-byte accesses, else one element at
 *   a time; the tile's layout is the same either way.
 * - Warp-level calls (a group of G <= 32 threads) need all 32 lanes of the
 *   warp to make the call; block-level calls need the whole block. */
#ifndef PARRAY_PRIMITIVES_CUH
#define PARRAY_PRIMITIVES_CUH

/* C++ only: pac reads a .pc file's headers with the C preprocessor (for their
 * type names), which then sees nothing of this one. */
#ifdef __cplusplus

#include "parray/core.h"        /* parray_dtype */
#include "parray/elementwise.cuh" /* parray_ew::Pack, the engine's 16-byte pack */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <limits.h>
#include <math.h>
#include <type_traits>

namespace parray_prim {

typedef __half half;
typedef __nv_bfloat16 bf16;

/* Elements of T in one 16-byte pack. */
template <typename T>
struct PackOf {
  static constexpr int value = sizeof(T) >= 16 ? 1 : (int)(16 / sizeof(T));
};

/* fp16 or bf16? Their accumulation type is fp32; others accumulate in their
 * own type. */
template <typename T>
constexpr bool is16() {
  return std::is_same<T, half>::value || std::is_same<T, bf16>::value;
}
template <typename T>
using acc_t = typename std::conditional<is16<T>(), float, T>::type;

/* The C++ type of a runtime element type (parray_dtype of parray/core.h):
 * `parray_prim::type_of<PARRAY_F16>` is __half. A #subprog argument is an
 * expression, not a type name, so a subprogram that serves several element
 * types takes the dtype and names the type this way. */
template <int D>
using type_of = typename std::conditional<
    D == PARRAY_F16, half,
    typename std::conditional<
        D == PARRAY_BF16, bf16,
        typename std::conditional<
            D == PARRAY_F64, double,
            typename std::conditional<D == PARRAY_I32, int32_t,
                                      typename std::conditional<D == PARRAY_I64, int64_t, float>::type>::type>::type>::
            type>::type;

/* Value conversion; 16-bit types go through fp32 (rounded to nearest). */
template <typename To, typename From>
__device__ __forceinline__ To cast(From x) {
  if constexpr (std::is_same<To, From>::value)
    return x;
  else if constexpr (std::is_same<From, half>::value)
    return cast<To>(__half2float(x));
  else if constexpr (std::is_same<From, bf16>::value)
    return cast<To>(__bfloat162float(x));
  else if constexpr (std::is_same<To, half>::value)
    return __float2half_rn((float)x);
  else if constexpr (std::is_same<To, bf16>::value)
    return __float2bfloat16_rn((float)x);
  else
    return (To)x;
}

/* ---- functors ---------------------------------------------------------- */
/* Binary functors used by the reductions also give their identity. Max and
 * Min propagate NaN. */
struct Add {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
  template <typename A>
  static __device__ __forceinline__ A identity() { return (A)0; }
};
struct Mul {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a * b; }
  template <typename A>
  static __device__ __forceinline__ A identity() { return (A)1; }
};
struct Sub {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a - b; }
};
struct Div {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a / b; }
};
/* Lowest (Max) or highest (Min) value of A: -inf/+inf for floats. */
template <typename A, bool Low>
__device__ __forceinline__ A extreme() {
  if constexpr (std::is_floating_point<A>::value)
    return Low ? (A)-INFINITY : (A)INFINITY;
  else if constexpr (sizeof(A) == 8)
    return Low ? (A)LLONG_MIN : (A)LLONG_MAX;
  else
    return Low ? (A)INT_MIN : (A)INT_MAX;
}
struct Max {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const { return (a != a || a > b) ? a : b; }
  template <typename A>
  static __device__ __forceinline__ A identity() { return extreme<A, true>(); }
};
struct Min {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const { return (a != a || a < b) ? a : b; }
  template <typename A>
  static __device__ __forceinline__ A identity() { return extreme<A, false>(); }
};
/* e^x: expf (about 1 ulp) for fp32 and 16-bit types (in fp32), exp for fp64. */
struct Exp {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    if constexpr (std::is_same<T, double>::value)
      return ::exp(x);
    else
      return cast<T>(::expf(cast<float>(x)));
  }
};
/* e^x with the hardware approximation (__expf: 2 + 1.16 |x| ulp in fp32). */
struct FastExp {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const { return cast<T>(__expf(cast<float>(x))); }
};
template <typename To>
struct Cast {
  template <typename From>
  __device__ __forceinline__ To operator()(From x) const { return cast<To>(x); }
};

/* ---- register tiles: initialisation and elementwise compute ------------ */
template <int N, typename T>
__device__ __forceinline__ void init_data(T *r, T v) {
#pragma unroll
  for (int i = 0; i < N; ++i) r[i] = v;
}

/* y[i] = f(x[i]) for the N elements of a tile (any tile shape). */
template <int N, typename Y, typename X, typename F>
__device__ __forceinline__ void elementwise_unary(Y *y, const X *x, F f) {
#pragma unroll
  for (int i = 0; i < N; ++i) y[i] = (Y)f(x[i]);
}
template <int N, typename Y, typename A, typename B, typename F>
__device__ __forceinline__ void elementwise_binary(Y *y, const A *a, const B *b, F f) {
#pragma unroll
  for (int i = 0; i < N; ++i) y[i] = (Y)f(a[i], b[i]);
}
template <int N, typename Y, typename A, typename B, typename C, typename F>
__device__ __forceinline__ void elementwise_ternary(Y *y, const A *a, const B *b, const C *c, F f) {
#pragma unroll
  for (int i = 0; i < N; ++i) y[i] = (Y)f(a[i], b[i], c[i]);
}
/* y[i] = f(x0[i], x1[i], ...) for any number of input tiles. */
template <int N, typename Y, typename F, typename... X>
__device__ __forceinline__ void elementwise_any(Y *y, F f, const X *...x) {
#pragma unroll
  for (int i = 0; i < N; ++i) y[i] = (Y)f(x[i]...);
}
/* y[r][c] = f(a[r][c], b[c]) for an NY x NX tile a and a row b of NX: b
 * cycles over the rows (a broadcast operand read once, kept in registers). */
template <int NX, int NY, typename Y, typename A, typename B, typename F>
__device__ __forceinline__ void cycle_binary(Y *y, const A *a, const B *b, F f) {
#pragma unroll
  for (int r = 0; r < NY; ++r)
#pragma unroll
    for (int c = 0; c < NX; ++c) y[r * NX + c] = (Y)f(a[r * NX + c], b[c]);
}

/* ---- IO between global memory and register tiles ---------------------- */
/* The column of element x of thread t's tile (pack size of the memory type
 * T, groups of G threads); column<T>(x, t, G) < n is the boundary predicate
 * of a row of n elements. */
template <typename T>
__device__ __forceinline__ int column(int x, int t, int G) {
  constexpr int V = PackOf<T>::value;
  return ((x / V) * G + t) * V + x % V;
}
/* Set the elements of each row of an NY x NX tile that lie past column n to
 * v (after a compute step turned the fill value into something else). */
template <int NX, int NY, typename T, typename R>
__device__ __forceinline__ void set_past_end(R *r, int n, int t, int G, R v) {
#pragma unroll
  for (int y = 0; y < NY; ++y)
#pragma unroll
    for (int x = 0; x < NX; ++x)
      if (column<T>(x, t, G) >= n) r[y * NX + x] = v;
}

/* Can rows at p, p + ld, ... be moved in 16-byte packs? */
template <typename T>
__device__ __forceinline__ bool packable(const T *p, int64_t ld) {
  return PackOf<T>::value > 1 && reinterpret_cast<uintptr_t>(p) % 16 == 0 && (ld * (int64_t)sizeof(T)) % 16 == 0;
}

/* Visit the packs of thread t's NY x NX tile over rows p, p + ld, ... (rows
 * of them exist, n columns each): vis(q, i, valid, whole) with q the pack's
 * first element in memory, i its first index in the tile, valid how many of
 * its elements lie inside the array (<= 0: none) and whole whether it may
 * move as one 16-byte access. */
template <int NX, int NY, typename T, typename Q, typename Vis>
__device__ __forceinline__ void each_pack(Q *p, int64_t ld, int rows, int n, int t, int G, Vis vis) {
  constexpr int V = PackOf<T>::value;
  static_assert(NX % V == 0, "a tile's NX must be a multiple of the pack size 16 / sizeof(T)");
  const bool vec = packable(p, ld);
#pragma unroll
  for (int y = 0; y < NY; ++y)
#pragma unroll
    for (int k = 0; k < NX / V; ++k) {
      const int e0 = (k * G + t) * V, valid = y < rows ? n - e0 : 0;
      vis(p + y * ld + e0, y * NX + k * V, valid, vec && valid >= V);
    }
}

/* Read an NY x NX tile: rows p, p + ld, ... (rows of them exist), n columns
 * each, converted to R; elements past the array read as fill. When all of
 * the thread's packs lie inside the array and move in 16 bytes (the common
 * case, one test on its last pack), all the loads come first, the
 * conversions after: a thread has all its packs in flight at once (a
 * conversion next to its load would wait for it), and no per-element bound
 * is kept live across the loads. Otherwise (a row's end, unaligned rows)
 * element by element with the bounds. The fast path's register count
 * decides the occupancy of a warp-per-row kernel: keeping each pack's bound
 * for a select after the loads took an fp16 1024-wide softmax from 48 to 80
 * registers (bench/RESULTS.md, 2026-11-24). */
template <int NX, int NY, typename R, typename T>
__device__ __forceinline__ void read_data_2d(R *r, const T *p, int64_t ld, int rows, int n, int t, int G, R fill) {
  constexpr int V = PackOf<T>::value;
  typedef parray_ew::Pack<T, V> P;
  if (packable(p, ld) && rows >= NY && n - ((NX / V - 1) * G + t) * V >= V) {
    P raw[NY * NX / V];
    each_pack<NX, NY, T>(p, ld, rows, n, t, G,
                         [&](const T *q, int i, int, bool) { raw[i / V] = *reinterpret_cast<const P *>(q); });
#pragma unroll
    for (int k = 0; k < NY * NX / V; ++k)
#pragma unroll
      for (int j = 0; j < V; ++j) r[k * V + j] = cast<R>(raw[k].e[j]);
    return;
  }
  each_pack<NX, NY, T>(p, ld, rows, n, t, G, [&](const T *q, int i, int valid, bool) {
#pragma unroll
    for (int j = 0; j < V; ++j) r[i + j] = j < valid ? cast<R>(q[j]) : fill;
  });
}
/* Read the group's tile of one row of n elements. */
template <int NX, typename R, typename T>
__device__ __forceinline__ void read_data(R *r, const T *row, int n, int t, int G, R fill) {
  read_data_2d<NX, 1>(r, row, 0, 1, n, t, G, fill);
}
/* Broadcast read: the tile of row b (n elements) repeated on NY rows. */
template <int NX, int NY, typename R, typename T>
__device__ __forceinline__ void read_data_bc(R *r, const T *b, int n, int t, int G, R fill) {
  read_data<NX>(r, b, n, t, G, fill);
#pragma unroll
  for (int y = 1; y < NY; ++y)
#pragma unroll
    for (int c = 0; c < NX; ++c) r[y * NX + c] = r[c];
}

/* Write an NY x NX tile converted to T; elements past the array are skipped. */
template <int NX, int NY, typename T, typename R>
__device__ __forceinline__ void write_data_2d(T *p, int64_t ld, int rows, const R *r, int n, int t, int G) {
  typedef parray_ew::Pack<T, PackOf<T>::value> P;
  each_pack<NX, NY, T>(p, ld, rows, n, t, G, [&](T *q, int i, int valid, bool whole) {
    if (whole) {
      P v;
#pragma unroll
      for (int j = 0; j < PackOf<T>::value; ++j) v.e[j] = cast<T>(r[i + j]);
      *reinterpret_cast<P *>(q) = v;
    } else {
#pragma unroll
      for (int j = 0; j < PackOf<T>::value; ++j)
        if (j < valid) q[j] = cast<T>(r[i + j]);
    }
  });
}
template <int NX, typename T, typename R>
__device__ __forceinline__ void write_data(T *row, const R *r, int n, int t, int G) {
  write_data_2d<NX, 1>(row, 0, 1, r, n, t, G);
}

/* ---- reductions -------------------------------------------------------- */
/* Reduce v over groups of `width` lanes (a power of two <= 32, groups
 * aligned in the warp); every lane of a group gets the result, bit for bit. */
template <typename Op, typename A>
__device__ __forceinline__ A warp_reduce(A v, int width = 32) {
  for (int off = width >> 1; off > 0; off >>= 1) v = Op()(v, (A)__shfl_xor_sync(0xffffffffu, v, off, width));
  return v;
}

/* Reduce v over the whole block (its size a multiple of 32): shuffles in
 * each warp, then the warps' results through shared memory; every thread
 * gets the result. May be called repeatedly. */
template <typename Op, typename A>
__device__ __forceinline__ A block_reduce(A v) {
  __shared__ A sh[32];
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int nwarps = (blockDim.x * blockDim.y * blockDim.z) >> 5;
  v = warp_reduce<Op>(v);
  __syncthreads(); /* sh may still be read by a previous call */
  if ((tid & 31) == 0) sh[tid >> 5] = v;
  __syncthreads();
  v = (tid & 31) < nwarps ? sh[tid & 31] : Op::template identity<A>();
  return warp_reduce<Op>(v);
}

/* Reduce each row of an NY x NX tile along the last dimension, over the
 * thread's NX elements and then over the group's G threads: out[y] (type A,
 * fp32 for 16-bit tiles) is the row's result, in every thread of the group.
 * G <= 32: groups of G lanes, shuffles only; G > 32: G is the whole block. */
template <typename Op, int NX, int NY, typename A, typename R>
__device__ __forceinline__ void reduce_last(A *out, const R *r, int G) {
#pragma unroll
  for (int y = 0; y < NY; ++y) {
    A v = cast<A>(r[y * NX]);
#pragma unroll
    for (int c = 1; c < NX; ++c) v = Op()(v, cast<A>(r[y * NX + c]));
    out[y] = G <= 32 ? warp_reduce<Op>(v, G) : block_reduce<Op>(v);
  }
}

/* Combine v over the block's threadIdx.y (blockDim.z 1): the threads with
 * the same threadIdx.x. When blockDim.x is a power of two below 32 (and the
 * block whole warps), the rows that share a warp combine by shuffles first;
 * then the warps' (or the rows') values through shared memory. Every thread
 * gets its column's result. */
template <typename Op, typename A>
__device__ __forceinline__ A column_reduce(A v) {
  __shared__ A sh[1024];
  const int bx = blockDim.x, by = blockDim.y, tid = threadIdx.y * bx + threadIdx.x;
  int step = bx, parts = by; /* sh[k * step + threadIdx.x], k < parts, after the shuffles */
  if (bx < 32 && (bx & (bx - 1)) == 0 && (bx * by) % 32 == 0) {
    for (int off = 16; off >= bx; off >>= 1) v = Op()(v, (A)__shfl_xor_sync(0xffffffffu, v, off));
    step = 32, parts = bx * by / 32;
  }
  if (parts > 1) {
    __syncthreads(); /* sh may still be read by a previous call */
    if (tid % step == (int)threadIdx.x) sh[tid / step * step + threadIdx.x] = v;
    __syncthreads();
    v = sh[threadIdx.x];
    for (int k = 1; k < parts; ++k) v = Op()(v, sh[k * step + threadIdx.x]);
  }
  return v;
}

/* Reduce an NY x NX tile along the first dimension: over the thread's NY
 * rows, then over the block's threadIdx.y (threads with the same threadIdx.x
 * hold the same columns; column_reduce): out[c] in every thread. */
template <typename Op, int NX, int NY, typename A, typename R>
__device__ __forceinline__ void reduce_first(A *out, const R *r) {
#pragma unroll
  for (int c = 0; c < NX; ++c) {
    A v = cast<A>(r[c]);
#pragma unroll
    for (int y = 1; y < NY; ++y) v = Op()(v, cast<A>(r[y * NX + c]));
    out[c] = blockDim.y > 1 ? column_reduce<Op>(v) : v;
  }
}

} /* namespace parray_prim */

/* ---- user-defined functors from a C expression ------------------------ */
/* PARRAY_PRIM_UNARY(name, expr of x) defines the functor `name`, usable with
 * any element type T: T operator()(T x) returns (T)(expr). The _S forms hold
 * a scalar `s` of type Ts (construct with name{value}). */
#define PARRAY_PRIM_UNARY(name, ...)                                        \
  struct name {                                                             \
    template <typename T>                                                   \
    __device__ __forceinline__ T operator()(T x) const { return (T)(__VA_ARGS__); } \
  }
#define PARRAY_PRIM_UNARY_S(name, Ts, ...)                                  \
  struct name {                                                             \
    Ts s;                                                                   \
    template <typename T>                                                   \
    __device__ __forceinline__ T operator()(T x) const { return (T)(__VA_ARGS__); } \
  }
#define PARRAY_PRIM_BINARY(name, ...)                                       \
  struct name {                                                             \
    template <typename T>                                                   \
    __device__ __forceinline__ T operator()(T a, T b) const { return (T)(__VA_ARGS__); } \
  }
#define PARRAY_PRIM_BINARY_S(name, Ts, ...)                                 \
  struct name {                                                             \
    Ts s;                                                                   \
    template <typename T>                                                   \
    __device__ __forceinline__ T operator()(T a, T b) const { return (T)(__VA_ARGS__); } \
  }
#define PARRAY_PRIM_TERNARY(name, ...)                                      \
  struct name {                                                             \
    template <typename T>                                                   \
    __device__ __forceinline__ T operator()(T a, T b, T c) const { return (T)(__VA_ARGS__); } \
  }

#endif /* __cplusplus */
#endif
