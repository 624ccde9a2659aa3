/* parray/elementwise.cuh - the vectorized elementwise engine of the runtime,
 * for CUDA C++ (.cu) files: the built-in operations of parray/kernels.h use
 * it, and user code defines its own operations from a C expression with
 *
 *   PARRAY_ELEMENTWISE_UNARY  (name, Ty, Tx,         expr of x)
 *   PARRAY_ELEMENTWISE_BINARY (name, Ty, Ta, Tb,     expr of a, b)
 *   PARRAY_ELEMENTWISE_TERNARY(name, Ty, Ta, Tb, Tc, expr of a, b, c)
 *   PARRAY_ELEMENTWISE_UNARY_S / _BINARY_S (..., Ts, expr also using s)
 *
 * each of which defines a functor and an extern "C" launcher
 *   parray_status name(Ty *y, const Tx *x, int64_t n, cudaStream_t stream);
 * (the _S forms take a scalar `Ts s` before the stream). See docs/kernels.md.
 *
 * How it runs (after OneFlow's elementwise template): blocks of 256 threads;
 * inputs and output are moved in packs of up to 16 bytes (P elements of the
 * widest type) when every pointer can be brought to pack alignment by the
 * same number of leading elements; those leading elements and the trailing
 * n % P are done one by one by the first threads. A functor may define
 * apply2(...) on pairs (half2/bfloat162 instructions), used when P is even.
 * The grid is sized in waves over the multiprocessor count (cached per
 * device); indices are 32-bit when n fits and 64-bit otherwise. */
#ifndef PARRAY_ELEMENTWISE_CUH
#define PARRAY_ELEMENTWISE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "parray/cuda.h"
#include "parray/kernels.h"

namespace parray_ew {

constexpr int kBlock = 256;    /* threads per block */
constexpr int kMaxPackBytes = 16;

/* Launch shape: U packs per thread per loop trip (loaded before any is used),
 * grid capped at `waves` full waves of resident blocks. The default, one
 * pack per thread per trip and 32 waves (OneFlow's choice), was the fastest
 * or within noise of the fastest on the H200 from 64 MB to 1 GB (add, relu,
 * cast fp32; bench/RESULTS.md, 2026-11-21); 4 packs and 2 waves was up to 8%
 * faster at 16 MB for relu/cast and slower above. */
template <int U_, int Waves_>
struct Tuning {
  static constexpr int U = U_;
  static constexpr int waves = Waves_;
};
using DefaultTuning = Tuning<1, 32>;

struct None {}; /* an absent input */

template <typename T>
struct Size {
  static constexpr int value = (int)sizeof(T);
};
template <>
struct Size<None> {
  static constexpr int value = 0;
};

template <typename T, int P>
struct alignas(sizeof(T) * P) Pack {
  T e[P];
};
template <int P>
struct Pack<None, P> {
  None e[P];
};

template <int P, typename T>
__device__ __forceinline__ void load_pack(Pack<T, P> &v, const T *p, int64_t i) {
  v = reinterpret_cast<const Pack<T, P> *>(p)[i];
}
template <int P>
__device__ __forceinline__ void load_pack(Pack<None, P> &, const None *, int64_t) {}

template <typename T>
__device__ __forceinline__ T load_one(const T *p, int64_t i) {
  return p[i];
}
__device__ __forceinline__ None load_one(const None *, int64_t) { return None{}; }

/* f(a), f(a,b) or f(a,b,c) depending on which inputs are present. */
template <typename R, typename F, typename A, typename B, typename C>
__device__ __forceinline__ R call(const F &f, const A &a, const B &b, const C &c) {
  if constexpr (std::is_same<B, None>::value)
    return static_cast<R>(f(a));
  else if constexpr (std::is_same<C, None>::value)
    return static_cast<R>(f(a, b));
  else
    return static_cast<R>(f(a, b, c));
}

template <typename F, typename = void>
struct HasApply2 : std::false_type {};
template <typename F>
struct HasApply2<F, decltype((void)&F::apply2, void())> : std::true_type {};

template <typename R, typename F, typename A, typename B, typename C>
__device__ __forceinline__ void call2(const F &f, R *r, const A *a, const B *b, const C *c) {
  if constexpr (std::is_same<B, None>::value)
    f.apply2(r, a);
  else if constexpr (std::is_same<C, None>::value)
    f.apply2(r, a, b);
  else
    f.apply2(r, a, b, c);
}

template <int P, typename F, typename R, typename A, typename B, typename C>
__device__ __forceinline__ void apply_pack(const F &f, Pack<R, P> &r, const Pack<A, P> &a, const Pack<B, P> &b,
                                           const Pack<C, P> &c) {
  if constexpr (HasApply2<F>::value && P % 2 == 0) {
#pragma unroll
    for (int j = 0; j < P; j += 2) call2<R>(f, &r.e[j], &a.e[j], &b.e[j], &c.e[j]);
  } else {
#pragma unroll
    for (int j = 0; j < P; ++j) r.e[j] = call<R>(f, a.e[j], b.e[j], c.e[j]);
  }
}

/* The kernel. Elements [0, head) and [head + npack*P, n) are done singly;
 * packs cover [head, head + npack*P), pack i starting at element head + i*P. */
template <int P, int U, typename Idx, typename F, typename R, typename A, typename B, typename C>
__global__ void __launch_bounds__(kBlock)
    ew_kernel(F f, Idx n, Idx head, Idx npack, R *y, const A *a, const B *b, const C *c) {
  const Idx tid = (Idx)threadIdx.x;
  const Idx gtid = (Idx)blockIdx.x * kBlock + tid;
  if (P > 1) {
    const Idx tail0 = head + npack * P;
    if (gtid < head) y[gtid] = call<R>(f, load_one(a, gtid), load_one(b, gtid), load_one(c, gtid));
    if (gtid < n - tail0) {
      const Idx k = tail0 + gtid;
      y[k] = call<R>(f, load_one(a, k), load_one(b, k), load_one(c, k));
    }
  }
  R *yp = y + head;
  const A *ap = a + (P > 1 ? head : 0);
  const B *bp = b + (P > 1 ? head : 0);
  const C *cp = c + (P > 1 ? head : 0);
  const Idx step = (Idx)gridDim.x * (kBlock * U);
  for (Idx base = (Idx)blockIdx.x * (kBlock * U); base < npack; base += step) {
    Pack<A, P> va[U];
    Pack<B, P> vb[U];
    Pack<C, P> vc[U];
    if (base + kBlock * U <= npack) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const Idx i = base + u * kBlock + tid;
        load_pack<P>(va[u], ap, i);
        load_pack<P>(vb[u], bp, i);
        load_pack<P>(vc[u], cp, i);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        Pack<R, P> r;
        apply_pack<P>(f, r, va[u], vb[u], vc[u]);
        reinterpret_cast<Pack<R, P> *>(yp)[base + u * kBlock + tid] = r;
      }
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const Idx i = base + u * kBlock + tid;
        if (i < npack) {
          load_pack<P>(va[u], ap, i);
          load_pack<P>(vb[u], bp, i);
          load_pack<P>(vc[u], cp, i);
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const Idx i = base + u * kBlock + tid;
        if (i < npack) {
          Pack<R, P> r;
          apply_pack<P>(f, r, va[u], vb[u], vc[u]);
          reinterpret_cast<Pack<R, P> *>(yp)[i] = r;
        }
      }
    }
  }
}

/* Elements a pointer needs before it reaches P-element pack alignment, or -1
 * when it cannot (address not a multiple of the element size). */
template <typename T>
inline int64_t head_of(const T *p, int P) {
  if constexpr (std::is_same<T, None>::value) {
    (void)p;
    (void)P;
    return -2; /* matches anything */
  } else {
    const uintptr_t u = reinterpret_cast<uintptr_t>(p);
    if (u % sizeof(T)) return -1;
    const int64_t e = (int64_t)((u / sizeof(T)) % (uintptr_t)P);
    return (P - e) % P;
  }
}

inline cudaError_t grid_for(int64_t work_items, int waves, int *grid) {
  int sm = 0, tps = 0;
  if (parray_cuda_device_shape(&sm, &tps) != PARRAY_OK) return cudaErrorInvalidDevice;
  const int64_t cap = (int64_t)sm * (tps / kBlock) * waves;
  int64_t g = (work_items + kBlock - 1) / kBlock;
  if (g > cap) g = cap;
  if (g < 1) g = 1;
  *grid = (int)g;
  return cudaSuccess;
}

template <int P, int U, typename Idx, typename F, typename R, typename A, typename B, typename C>
inline cudaError_t launch_as(const F &f, int64_t n, int64_t head, int grid, R *y, const A *a, const B *b, const C *c,
                             cudaStream_t s) {
  const int64_t npack = P > 1 ? (n - head) / P : n;
  ew_kernel<P, U, Idx, F, R, A, B, C>
      <<<grid, kBlock, 0, s>>>(f, (Idx)n, (Idx)(P > 1 ? head : 0), (Idx)npack, y, a, b, c);
  return cudaGetLastError();
}

/* y[i] = f(a[i] [, b[i] [, c[i]]]) for 0 <= i < n. Absent inputs are passed
 * as (const None *)nullptr. */
template <typename Tun = DefaultTuning, typename F, typename R, typename A, typename B, typename C>
inline cudaError_t launch(const F &f, int64_t n, R *y, const A *a, const B *b, const C *c, cudaStream_t s) {
  if (n <= 0) return cudaSuccess;
  constexpr int wmax = Size<R>::value > Size<A>::value
                           ? (Size<R>::value > Size<B>::value ? (Size<R>::value > Size<C>::value ? Size<R>::value
                                                                                                  : Size<C>::value)
                                                              : (Size<B>::value > Size<C>::value ? Size<B>::value
                                                                                                  : Size<C>::value))
                           : (Size<A>::value > Size<B>::value ? (Size<A>::value > Size<C>::value ? Size<A>::value
                                                                                                  : Size<C>::value)
                                                              : (Size<B>::value > Size<C>::value ? Size<B>::value
                                                                                                  : Size<C>::value));
  constexpr int P = wmax >= kMaxPackBytes ? 1 : kMaxPackBytes / wmax;
  constexpr int U = Tun::U;
  int64_t head = -1;
  if constexpr (P > 1) {
    const int64_t hy = head_of(y, P), ha = head_of(a, P), hb = head_of(b, P), hc = head_of(c, P);
    /* an address that is not a multiple of its element size cannot be used */
    if (hy == -1 || ha == -1 || hb == -1 || hc == -1) return cudaErrorMisalignedAddress;
    head = hy;
    const int64_t hs[3] = {ha, hb, hc};
    for (int k = 0; k < 3; ++k)
      if (hs[k] != -2 && hs[k] != head) head = -1;
    if (head >= 0 && n - head < P) head = -1; /* too short to pack */
  }
  int grid = 0;
  if (head >= 0) {
    const int64_t npack = (n - head) / P;
    cudaError_t e = grid_for((npack + U - 1) / U, Tun::waves, &grid);
    if (e != cudaSuccess) return e;
    /* 32-bit indices when every index the kernel forms stays below 2^31. */
    if (n + (int64_t)grid * kBlock * U < INT32_MAX)
      return launch_as<P, U, int32_t>(f, n, head, grid, y, a, b, c, s);
    return launch_as<P, U, int64_t>(f, n, head, grid, y, a, b, c, s);
  }
  /* Pointers that cannot share a pack alignment: one element per thread. */
  cudaError_t e = grid_for((n + U - 1) / U, Tun::waves, &grid);
  if (e != cudaSuccess) return e;
  return launch_as<1, U, int64_t>(f, n, 0, grid, y, a, b, c, s);
}

template <typename Tun = DefaultTuning, typename F, typename R, typename A>
inline cudaError_t unary(const F &f, int64_t n, R *y, const A *a, cudaStream_t s) {
  return launch<Tun>(f, n, y, a, (const None *)nullptr, (const None *)nullptr, s);
}
template <typename Tun = DefaultTuning, typename F, typename R, typename A, typename B>
inline cudaError_t binary(const F &f, int64_t n, R *y, const A *a, const B *b, cudaStream_t s) {
  return launch<Tun>(f, n, y, a, b, (const None *)nullptr, s);
}
template <typename Tun = DefaultTuning, typename F, typename R, typename A, typename B, typename C>
inline cudaError_t ternary(const F &f, int64_t n, R *y, const A *a, const B *b, const C *c, cudaStream_t s) {
  return launch<Tun>(f, n, y, a, b, c, s);
}

/* cudaError_t -> parray_status, naming the operation. */
inline parray_status status_of(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return PARRAY_OK;
  (void)cudaGetLastError();
  return parray_cuda_status(e, what);
}

inline parray_status check_args(const char *what, int64_t n, const void *y, const void *a) {
  if (n < 0) {
    parray_set_error("%s: negative element count %lld", what, (long long)n);
    return PARRAY_ERR_INVALID;
  }
  if (n > 0 && (!y || !a)) {
    parray_set_error("%s: null pointer", what);
    return PARRAY_ERR_INVALID;
  }
  return PARRAY_OK;
}

} /* namespace parray_ew */

/* ---- user-defined operations from a C expression ----------------------- */

#define PARRAY_EW_LAUNCHER_(name, call_expr, check_b, check_c)                        \
  {                                                                                   \
    parray_status st_ = parray_ew::check_args(#name, n, (const void *)y, (const void *)a); \
    if (st_ != PARRAY_OK) return st_;                                                 \
    if (n > 0 && (!(check_b) || !(check_c))) {                                        \
      parray_set_error("%s: null pointer", #name);                                    \
      return PARRAY_ERR_INVALID;                                                      \
    }                                                                                 \
    return parray_ew::status_of(call_expr, #name);                                    \
  }

/* y[i] = expr, where expr reads `x` (type Tx); Ty y[], Tx x[]. The
 * expression is the macro's last argument and may contain commas. */
#define PARRAY_ELEMENTWISE_UNARY(name, Ty, Tx, ...)                                     \
  struct name##_functor {                                                              \
    __device__ __forceinline__ Ty operator()(Tx x) const { return (Ty)(__VA_ARGS__); }        \
  };                                                                                   \
  extern "C" parray_status name(Ty *y, const Tx *a, int64_t n, cudaStream_t stream)    \
      PARRAY_EW_LAUNCHER_(name, parray_ew::unary(name##_functor{}, n, y, a, stream), 1, 1)

/* As above with a scalar argument `s` of type Ts usable in expr. */
#define PARRAY_ELEMENTWISE_UNARY_S(name, Ty, Tx, Ts, ...)                                      \
  struct name##_functor {                                                                     \
    Ts s;                                                                                     \
    __device__ __forceinline__ Ty operator()(Tx x) const { return (Ty)(__VA_ARGS__); }               \
  };                                                                                          \
  extern "C" parray_status name(Ty *y, const Tx *a, int64_t n, Ts s, cudaStream_t stream)     \
      PARRAY_EW_LAUNCHER_(name, parray_ew::unary(name##_functor{s}, n, y, a, stream), 1, 1)

/* y[i] = expr, where expr reads `a` and `b`. */
#define PARRAY_ELEMENTWISE_BINARY(name, Ty, Ta, Tb, ...)                                        \
  struct name##_functor {                                                                      \
    __device__ __forceinline__ Ty operator()(Ta a, Tb b) const { return (Ty)(__VA_ARGS__); }          \
  };                                                                                           \
  extern "C" parray_status name(Ty *y, const Ta *a, const Tb *b, int64_t n, cudaStream_t stream) \
      PARRAY_EW_LAUNCHER_(name, parray_ew::binary(name##_functor{}, n, y, a, b, stream), b, 1)

#define PARRAY_ELEMENTWISE_BINARY_S(name, Ty, Ta, Tb, Ts, ...)                                  \
  struct name##_functor {                                                                      \
    Ts s;                                                                                      \
    __device__ __forceinline__ Ty operator()(Ta a, Tb b) const { return (Ty)(__VA_ARGS__); }          \
  };                                                                                           \
  extern "C" parray_status name(Ty *y, const Ta *a, const Tb *b, int64_t n, Ts s,               \
                                cudaStream_t stream)                                           \
      PARRAY_EW_LAUNCHER_(name, parray_ew::binary(name##_functor{s}, n, y, a, b, stream), b, 1)

/* y[i] = expr, where expr reads `a`, `b` and `c`. */
#define PARRAY_ELEMENTWISE_TERNARY(name, Ty, Ta, Tb, Tc, ...)                                   \
  struct name##_functor {                                                                      \
    __device__ __forceinline__ Ty operator()(Ta a, Tb b, Tc c) const { return (Ty)(__VA_ARGS__); }    \
  };                                                                                           \
  extern "C" parray_status name(Ty *y, const Ta *a, const Tb *b, const Tc *c, int64_t n,        \
                                cudaStream_t stream)                                           \
      PARRAY_EW_LAUNCHER_(name, parray_ew::ternary(name##_functor{}, n, y, a, b, c, stream), b, c)

#endif
