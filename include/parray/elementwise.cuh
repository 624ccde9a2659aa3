/* SPDX-License-Identifier: Apache-2.0 */
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
 * How it runs (after OneFlow's elementwise template, with the launch shape
 * tuned on the H200): blocks of 128 threads; inputs and output are moved in
 * packs of up to 16 bytes (P elements of the widest type) when every pointer
 * can be brought to pack alignment by the same number of leading elements;
 * those leading elements and the trailing n % P are done one by one by the
 * first threads. Each thread moves 16 bytes of the narrowest type (one pack,
 * two for f32<->f16 casts) and the grid covers the array once (no
 * grid-stride trips). A functor may define apply2(...) on pairs
 * (half2/bfloat162 instructions), used when P is even. Indices are 32-bit
 * when n fits and 64-bit otherwise. Tuning<...> selects other shapes. */
#ifndef PARRAY_ELEMENTWISE_CUH
#define PARRAY_ELEMENTWISE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <atomic>
#include <type_traits>

#include "parray/cuda.h"
#include "parray/kernels.h"

namespace parray_ew {

constexpr int kBlock = 128;    /* threads per block of the default tuning */
constexpr int kMaxPackBytes = 16;

/* Launch shape: U packs per thread per loop trip (loaded before any is used;
 * 0: automatic, so that each thread moves 16 bytes of the narrowest type:
 * 1 pack when all types have one size, 2 for f32<->f16 casts), grid capped
 * at `waves` full waves of resident blocks (0: no cap, one trip per thread:
 * a grid that covers the array once, blocks running in address order), B
 * threads per block, cache hints H (bit flags kHint*), and Wide: packs of 16
 * bytes of the NARROWEST type (a f32->f16 cast then moves 32 bytes of f32
 * and 16 of f16 per thread) instead of 16 bytes of the widest.
 * The default (automatic U, no grid cap, 128 threads, no hints; at most
 * kOcc resident blocks per multiprocessor) was the
 * fastest or within noise of the fastest of 15 variants for add, relu and
 * casts of f32/f16 from 16 MB to 1 GB on the H200; the first version's
 * Tuning<1, 32> (grid-stride loop over 32 waves of 256-thread blocks) ran
 * 2% slower at 1 GB and 4.5% slower for f16->f32 casts (bench/RESULTS.md,
 * 2026-11-21, "tuning pass"). */
constexpr int kHintLoadCs = 1;  /* loads ld.global.cs (evict first) */
constexpr int kHintStoreCs = 2; /* stores st.global.cs (streaming) */
constexpr int kHintPrefetch = 4; /* loads with the .L2::256B prefetch size */
constexpr int kHintEvictFirst = 8; /* L2 evict_first cache policy on loads and stores */

/* Occ (> 0): at most Occ resident blocks per multiprocessor, by reserving
 * shared memory for each block (occ_smem below). PyTorch's elementwise
 * kernels run 12 blocks of 128 threads per multiprocessor (33-34 registers
 * each); ours, at 21-30 registers, ran 16 and were 0.3-0.6% slower for f16
 * relu/add at 256 MB-1 GB. Capped at 10-14 blocks, add f16 256 MB went from
 * 3.02 to 3.05 TB/s and relu from 2.96 to 2.97-2.98 (8 blocks: relu 2.74)
 * on the H100; over all 24 add/relu/cast cases of 16 MB-1 GB, 13 blocks were
 * as fast as 14 or faster (relu f16 1 GB 3.042 against 3.032-3.034 TB/s)
 * and no case was slower than without the cap beyond the run-to-run spread
 * (bench/RESULTS.md). */
template <int U_, int Waves_, int B_ = 256, int H_ = 0, bool Wide_ = false, int Occ_ = 0>
struct Tuning {
  static constexpr int U = U_;
  static constexpr int waves = Waves_;
  static constexpr int B = B_;
  static constexpr int H = H_;
  static constexpr bool wide = Wide_;
  static constexpr int occ = Occ_;
};
constexpr int kOcc = 13; /* default residency cap, blocks of kBlock threads per multiprocessor */
using DefaultTuning = Tuning<0, 0, kBlock, 0, false, kOcc>;
/* Tun with U resolved (U_ > 0). */
template <typename Tun, int U_>
struct WithU : Tun {
  static constexpr int U = U_;
};

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

/* Raw 4/8/16-byte global accesses with the cache hints of H. */
template <int H>
__device__ __forceinline__ uint64_t l2_policy() {
  uint64_t pol = 0;
  if constexpr ((H & kHintEvictFirst) != 0) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
  return pol;
}
template <int H>
__device__ __forceinline__ uint4 ld16(const uint4 *p, uint64_t pol) {
  uint4 v;
  if constexpr ((H & kHintEvictFirst) != 0)
    asm volatile("ld.global.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(pol));
  else if constexpr ((H & kHintPrefetch) != 0 && (H & kHintLoadCs) != 0)
    asm volatile("ld.global.cs.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else if constexpr ((H & kHintPrefetch) != 0)
    asm volatile("ld.global.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else if constexpr ((H & kHintLoadCs) != 0)
    v = __ldcs(p);
  else
    v = *p;
  return v;
}
template <int H>
__device__ __forceinline__ uint2 ld8(const uint2 *p, uint64_t pol) {
  uint2 v;
  if constexpr ((H & kHintEvictFirst) != 0)
    asm volatile("ld.global.L2::cache_hint.v2.u32 {%0,%1}, [%2], %3;" : "=r"(v.x), "=r"(v.y) : "l"(p), "l"(pol));
  else if constexpr ((H & kHintPrefetch) != 0)
    asm volatile("ld.global.L2::256B.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  else if constexpr ((H & kHintLoadCs) != 0)
    v = __ldcs(p);
  else
    v = *p;
  return v;
}
template <int H>
__device__ __forceinline__ void st16(uint4 *p, const uint4 &v, uint64_t pol) {
  if constexpr ((H & kHintEvictFirst) != 0)
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w), "l"(pol)
                 : "memory");
  else if constexpr ((H & kHintStoreCs) != 0)
    __stcs(p, v);
  else
    *p = v;
}
template <int H>
__device__ __forceinline__ void st8(uint2 *p, const uint2 &v, uint64_t pol) {
  if constexpr ((H & kHintEvictFirst) != 0)
    asm volatile("st.global.L2::cache_hint.v2.u32 [%0], {%1,%2}, %3;" ::"l"(p), "r"(v.x), "r"(v.y), "l"(pol)
                 : "memory");
  else if constexpr ((H & kHintStoreCs) != 0)
    __stcs(p, v);
  else
    *p = v;
}

/* Pack i of p (P-element packs). With hints, 8-, 16- and 32-byte packs go
 * through the raw accesses above; everything else is a plain access. */
template <int H, int P, typename T>
__device__ __forceinline__ void load_pack(Pack<T, P> &v, const T *p, int64_t i, uint64_t pol) {
  constexpr int S = (int)sizeof(Pack<T, P>);
  if constexpr (H != 0 && (S == 16 || S == 32)) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p + i * P);
    uint4 *o = reinterpret_cast<uint4 *>(&v);
#pragma unroll
    for (int k = 0; k < S / 16; ++k) o[k] = ld16<H>(q + k, pol);
  } else if constexpr (H != 0 && S == 8) {
    *reinterpret_cast<uint2 *>(&v) = ld8<H>(reinterpret_cast<const uint2 *>(p + i * P), pol);
  } else {
    v = reinterpret_cast<const Pack<T, P> *>(p)[i];
  }
}
template <int H, int P>
__device__ __forceinline__ void load_pack(Pack<None, P> &, const None *, int64_t, uint64_t) {}

template <int H, int P, typename T>
__device__ __forceinline__ void store_pack(T *p, int64_t i, const Pack<T, P> &v, uint64_t pol) {
  constexpr int S = (int)sizeof(Pack<T, P>);
  if constexpr (H != 0 && (S == 16 || S == 32)) {
    uint4 *q = reinterpret_cast<uint4 *>(p + i * P);
    const uint4 *o = reinterpret_cast<const uint4 *>(&v);
#pragma unroll
    for (int k = 0; k < S / 16; ++k) st16<H>(q + k, o[k], pol);
  } else if constexpr (H != 0 && S == 8) {
    st8<H>(reinterpret_cast<uint2 *>(p + i * P), *reinterpret_cast<const uint2 *>(&v), pol);
  } else {
    reinterpret_cast<Pack<T, P> *>(p)[i] = v;
  }
}

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
 * packs cover [head, head + npack*P), pack i starting at element head + i*P.
 * Tun gives the threads per block, packs per thread per trip and hints. */
template <typename Tun, int P, typename Idx, typename F, typename R, typename A, typename B, typename C>
__global__ void __launch_bounds__(Tun::B)
    ew_kernel(F f, Idx n, Idx head, Idx npack, R *y, const A *a, const B *b, const C *c) {
  constexpr int NT = Tun::B, U = Tun::U, H = Tun::H;
  const Idx tid = (Idx)threadIdx.x;
  const Idx gtid = (Idx)blockIdx.x * NT + tid;
  const uint64_t pol = l2_policy<H>();
  R *yp = y + head;
  const A *ap = a + (P > 1 ? head : 0);
  const B *bp = b + (P > 1 ? head : 0);
  const C *cp = c + (P > 1 ? head : 0);
  const Idx step = (Idx)gridDim.x * (NT * U);
  for (Idx base = (Idx)blockIdx.x * (NT * U); base < npack; base += step) {
    Pack<A, P> va[U];
    Pack<B, P> vb[U];
    Pack<C, P> vc[U];
    if (base + NT * U <= npack) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const Idx i = base + u * NT + tid;
        load_pack<H, P>(va[u], ap, i, pol);
        load_pack<H, P>(vb[u], bp, i, pol);
        load_pack<H, P>(vc[u], cp, i, pol);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        Pack<R, P> r;
        apply_pack<P>(f, r, va[u], vb[u], vc[u]);
        store_pack<H, P>(yp, base + u * NT + tid, r, pol);
      }
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const Idx i = base + u * NT + tid;
        if (i < npack) {
          load_pack<H, P>(va[u], ap, i, pol);
          load_pack<H, P>(vb[u], bp, i, pol);
          load_pack<H, P>(vc[u], cp, i, pol);
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const Idx i = base + u * NT + tid;
        if (i < npack) {
          Pack<R, P> r;
          apply_pack<P>(f, r, va[u], vb[u], vc[u]);
          store_pack<H, P>(yp, i, r, pol);
        }
      }
    }
  }
  /* the single elements last: the first threads' pack loads are issued
   * without waiting behind them (their checks put ~40 instructions before
   * the 16-byte load; PyTorch's kernel issues its load after ~13) */
  if (P > 1) {
    const Idx tail0 = head + npack * P;
    if (gtid < head) y[gtid] = call<R>(f, load_one(a, gtid), load_one(b, gtid), load_one(c, gtid));
    if (gtid < n - tail0) {
      const Idx k = tail0 + gtid;
      y[k] = call<R>(f, load_one(a, k), load_one(b, k), load_one(c, k));
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

/* Blocks for work_items threads' worth of work: at most `waves` full waves
 * of resident blocks of nt threads (waves == 0: no cap). */
inline cudaError_t grid_for(int64_t work_items, int waves, int nt, int *grid) {
  int sm = 0, tps = 0;
  if (parray_cuda_device_shape(&sm, &tps) != PARRAY_OK) return cudaErrorInvalidDevice;
  int64_t g = (work_items + nt - 1) / nt;
  if (waves > 0) {
    const int64_t cap = (int64_t)sm * (tps / nt) * waves;
    if (g > cap) g = cap;
  }
  if (g > INT32_MAX) g = INT32_MAX;
  if (g < 1) g = 1;
  *grid = (int)g;
  return cudaSuccess;
}

/* The residency cap (Tuning's Occ): dynamic shared memory per block such
 * that at most occ blocks fit on a multiprocessor (the kernel's carveout set
 * to the most shared memory). Per kernel and device, the bytes are found
 * once and kept in `cache` (0: not yet; bytes + 1 after). */
constexpr int kOccDevices = 64;
template <typename Tun, int P, typename Idx, typename F, typename R, typename A, typename B, typename C>
inline std::atomic<int> *occ_cache() {
  static std::atomic<int> c[kOccDevices];
  return c;
}
inline cudaError_t occ_smem(const void *kernel, int occ, std::atomic<int> *cache, size_t *smem) {
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  int c = dev >= 0 && dev < kOccDevices ? cache[dev].load(std::memory_order_relaxed) : 0;
  if (c == 0) {
    int per_sm = 0, reserved = 0;
    e = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
    if (e != cudaSuccess) return e;
    const int per_block = per_sm / occ / 256 * 256 - reserved;
    c = 1 + (per_block > 0 && per_block <= 48 * 1024 ? per_block : 0);
    if (dev >= 0 && dev < kOccDevices) cache[dev].store(c, std::memory_order_relaxed);
  }
  *smem = (size_t)(c - 1);
  return cudaSuccess;
}

template <typename Tun, int P, typename Idx, typename F, typename R, typename A, typename B, typename C>
inline cudaError_t launch_as(const F &f, int64_t n, int64_t head, int grid, R *y, const A *a, const B *b, const C *c,
                             cudaStream_t s) {
  const int64_t npack = P > 1 ? (n - head) / P : n;
  size_t smem = 0;
  if constexpr (Tun::occ > 0) {
    cudaError_t e = occ_smem(reinterpret_cast<const void *>(ew_kernel<Tun, P, Idx, F, R, A, B, C>), Tun::occ,
                             occ_cache<Tun, P, Idx, F, R, A, B, C>(), &smem);
    if (e != cudaSuccess) return e;
  }
  ew_kernel<Tun, P, Idx, F, R, A, B, C>
      <<<grid, Tun::B, smem, s>>>(f, (Idx)n, (Idx)(P > 1 ? head : 0), (Idx)npack, y, a, b, c);
  return cudaGetLastError();
}

template <typename T>
constexpr int size_or(int dflt) {
  return std::is_same<T, None>::value ? dflt : (int)sizeof(T);
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
  constexpr int s0 = (int)sizeof(R) < size_or<A>(64) ? (int)sizeof(R) : size_or<A>(64);
  constexpr int s1 = s0 < size_or<B>(64) ? s0 : size_or<B>(64);
  constexpr int wmin = s1 < size_or<C>(64) ? s1 : size_or<C>(64);
  constexpr int wpack = Tun::wide ? wmin : wmax;
  constexpr int P = wpack >= kMaxPackBytes ? 1 : kMaxPackBytes / wpack;
  /* automatic U: 16 bytes of the narrowest type per thread (1..4 packs) */
  constexpr int uauto = kMaxPackBytes / (P * wmin) < 1 ? 1 : kMaxPackBytes / (P * wmin) > 4 ? 4
                                                                                           : kMaxPackBytes / (P * wmin);
  constexpr int U = Tun::U > 0 ? Tun::U : uauto, NT = Tun::B;
  using TunP = WithU<Tun, U>;
  using Tun1 = WithU<Tun, (Tun::U > 0 ? Tun::U : 1)>;
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
    cudaError_t e = grid_for((npack + U - 1) / U, Tun::waves, NT, &grid);
    if (e != cudaSuccess) return e;
    /* 32-bit indices when every index the kernel forms stays below 2^31. */
    if (n + (int64_t)grid * NT * U < INT32_MAX) return launch_as<TunP, P, int32_t>(f, n, head, grid, y, a, b, c, s);
    return launch_as<TunP, P, int64_t>(f, n, head, grid, y, a, b, c, s);
  }
  /* Pointers that cannot share a pack alignment: one element per thread. */
  cudaError_t e = grid_for((n + Tun1::U - 1) / Tun1::U, Tun::waves, NT, &grid);
  if (e != cudaSuccess) return e;
  return launch_as<Tun1, 1, int64_t>(f, n, 0, grid, y, a, b, c, s);
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
