/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_kernels.cuh - building blocks of the GPU reductions: accumulator types
 * (fp32 for fp32/fp16/bf16, fp64 for fp64, int64 for integers), the combine
 * operations, warp/sub-warp butterflies and block reductions (fixed order, so
 * results are deterministic), pack loads and the final conversion to the
 * output type. Private to kernels/reduce. */
#ifndef PARRAY_KERN_REDUCE_CUH
#define PARRAY_KERN_REDUCE_CUH

#include "../elementwise/elementwise_ops.cuh"
#include "reduce_plan.h"
#include "parray/cuda.h"
#include "parray/elementwise.cuh"

namespace parray_rd {

using parray_k::bf16;
using parray_k::half;

constexpr int kThreads = 256;

template <typename T>
struct AccOf {
  using type = float;
};
template <>
struct AccOf<double> {
  using type = double;
};
template <>
struct AccOf<int32_t> {
  using type = long long;
};
template <>
struct AccOf<int64_t> {
  using type = long long;
};

template <typename A, typename T>
__device__ __forceinline__ A to_acc(T x) {
  if constexpr (parray_k::Is16<T>::value)
    return (A)parray_k::to_f(x);
  else
    return (A)x;
}

/* Combine operations. SUM also serves MEAN. */
struct RSum {
  template <typename A>
  static __device__ __forceinline__ A init() {
    return (A)0;
  }
  template <typename A>
  static __device__ __forceinline__ A comb(A a, A b) {
    if constexpr (std::is_integral<A>::value)
      return (A)((unsigned long long)a + (unsigned long long)b);
    else
      return a + b;
  }
};
struct RMax {
  template <typename A>
  static __device__ __forceinline__ A init() {
    if constexpr (std::is_integral<A>::value)
      return std::numeric_limits<A>::min();
    else
      return -std::numeric_limits<A>::infinity();
  }
  template <typename A>
  static __device__ __forceinline__ A comb(A a, A b) {
    return parray_k::Arith<A>::max(a, b);
  }
};
struct RMin {
  template <typename A>
  static __device__ __forceinline__ A init() {
    if constexpr (std::is_integral<A>::value)
      return std::numeric_limits<A>::max();
    else
      return std::numeric_limits<A>::infinity();
  }
  template <typename A>
  static __device__ __forceinline__ A comb(A a, A b) {
    return parray_k::Arith<A>::min(a, b);
  }
};

/* Butterfly over groups of `width` lanes (a power of two <= 32); every lane
 * of a group ends with the same bits (each step combines the same pair). */
template <typename Op, typename A>
__device__ __forceinline__ A group_reduce(A v, int width) {
  for (int off = width >> 1; off > 0; off >>= 1) v = Op::template comb<A>(v, __shfl_xor_sync(0xffffffffu, v, off, width));
  return v;
}
template <typename Op, typename A>
__device__ __forceinline__ A warp_reduce(A v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = Op::template comb<A>(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

/* Reduce over the block (blockDim.x == kThreads); every thread gets the
 * result. `sh` holds kThreads/32 values. */
template <typename Op, typename A>
__device__ __forceinline__ A block_reduce(A v, A *sh) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_reduce<Op>(v);
  __syncthreads(); /* sh may still be read from a previous call */
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  v = lane < kThreads / 32 ? sh[lane] : Op::template init<A>();
  return warp_reduce<Op>(v);
}

/* Store a finished result with the conversion rules of parray_cast. */
template <typename A>
__device__ __forceinline__ void store_out(void *y, parray_dtype ydt, int64_t i, A v, int64_t mean_count) {
  using namespace parray_k;
  if (mean_count > 0) {
    const double d = (double)v / (double)mean_count;
    PARRAY_K_DISPATCH6(ydt, T, (((T *)y)[i] = cvt<T, double>(d)), (void)0)
  } else if constexpr (std::is_integral<A>::value) {
    const int64_t w = (int64_t)v;
    PARRAY_K_DISPATCH6(ydt, T, (((T *)y)[i] = cvt<T, int64_t>(w)), (void)0)
  } else {
    PARRAY_K_DISPATCH6(ydt, T, (((T *)y)[i] = cvt<T, A>(v)), (void)0)
  }
}

/* Load one P-element pack and fold it into acc in element order. */
template <typename Op, int P, typename T, typename A>
__device__ __forceinline__ A fold_pack(A acc, const parray_ew::Pack<T, P> &v) {
#pragma unroll
  for (int j = 0; j < P; ++j) acc = Op::template comb<A>(acc, to_acc<A>(v.e[j]));
  return acc;
}

template <typename T, int P>
__device__ __forceinline__ parray_ew::Pack<T, P> ldpack(const T *p) {
  return *reinterpret_cast<const parray_ew::Pack<T, P> *>(p);
}

/* Resident blocks of `threads` threads per multiprocessor for `kernel`, cached
 * per (kernel, device); defined in reduce_common.cu. */
int resident_blocks(const void *kernel, int threads, int smem_bytes);
/* Allocate a zeroed workspace on the stream when the caller gave none. */
parray_status temp_workspace(size_t bytes, void **work, cudaStream_t s);
parray_status free_workspace(void *work, cudaStream_t s);
parray_status check_reduce(const char *what, parray_reduce_op op, parray_dtype ydt, parray_dtype xdt, const void *x,
                           const void *y, int64_t count, int64_t reduce_len);

constexpr int64_t kAllChunk = PARRAY_RD_ALL_CHUNK;
inline int64_t all_chunks(int64_t m) { return parray_rd_all_chunks(m); }

} /* namespace parray_rd */

#endif
