/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise_ops.cuh - device arithmetic shared by the built-in elementwise
 * operations and the reductions: per-type arithmetic with the semantics of
 * parray/kernels.h (wrapping integers, NaN-propagating min/max, fp16/bf16
 * computed in fp32 and rounded once), half2/bfloat162 pair versions, and the
 * conversions between the 8 element types. Private to the kernel
 * library: kernels/elementwise, and kernels/reduce builds on it. */
#ifndef PARRAY_KERN_OPS_CUH
#define PARRAY_KERN_OPS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include <limits>
#include <type_traits>

#include "parray/kernels.h"

namespace parray_k {

using half = __half;
using bf16 = __nv_bfloat16;

template <typename T>
struct Is16 : std::integral_constant<bool, std::is_same<T, half>::value || std::is_same<T, bf16>::value> {};
template <typename T>
struct IsFloat : std::integral_constant<bool, std::is_floating_point<T>::value || Is16<T>::value> {};

/* Pair type of a 16-bit float. */
template <typename T>
struct Pair2;
template <>
struct Pair2<half> {
  using type = __half2;
};
template <>
struct Pair2<bf16> {
  using type = __nv_bfloat162;
};
template <typename T>
using pair_t = typename Pair2<T>::type;

__device__ __forceinline__ float to_f(half x) { return __half2float(x); }
__device__ __forceinline__ float to_f(bf16 x) { return __bfloat162float(x); }
template <typename H>
__device__ __forceinline__ H from_f(float f);
template <>
__device__ __forceinline__ half from_f<half>(float f) {
  return __float2half_rn(f);
}
template <>
__device__ __forceinline__ bf16 from_f<bf16>(float f) {
  return __float2bfloat16_rn(f);
}

/* ---- conversions ------------------------------------------------------- */
/* float -> integer: truncate, saturate, NaN -> 0 (F is float or double). */
template <typename I, typename F>
__device__ __forceinline__ I f2i(F x) {
  if (!(x == x)) return 0;
  if (x <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
  if (x >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
  return (I)x;
}

template <typename To, typename From>
__device__ __forceinline__ To cvt(From x) {
  if constexpr (std::is_same<To, From>::value) {
    return x;
  } else if constexpr (Is16<From>::value) {
    return cvt<To, float>(to_f(x)); /* exact widening first */
  } else if constexpr (Is16<To>::value) {
    if constexpr (std::is_same<From, double>::value) {
      if constexpr (std::is_same<To, half>::value)
        return __double2half(x);
      else
        return __double2bfloat16(x);
    } else {
      return from_f<To>((float)x); /* int -> fp16/bf16 goes through fp32 */
    }
  } else if constexpr (std::is_integral<To>::value && std::is_floating_point<From>::value) {
    return f2i<To, From>(x);
  } else {
    return (To)x; /* int->int wraps; int/float -> float rounds to nearest */
  }
}

/* ---- scalar arithmetic --------------------------------------------------- */
template <typename T, typename Enable = void>
struct Arith;

template <typename T>
struct Arith<T, typename std::enable_if<std::is_floating_point<T>::value>::type> {
  using S = T; /* type of the SCALE factor */
  static __device__ __forceinline__ T add(T a, T b) { return a + b; }
  static __device__ __forceinline__ T sub(T a, T b) { return a - b; }
  static __device__ __forceinline__ T mul(T a, T b) { return a * b; }
  static __device__ __forceinline__ T div(T a, T b) { return a / b; }
  static __device__ __forceinline__ T min(T a, T b) { return a != a ? a : (b != b ? b : (b < a ? b : a)); }
  static __device__ __forceinline__ T max(T a, T b) { return a != a ? a : (b != b ? b : (b > a ? b : a)); }
  static __device__ __forceinline__ T neg(T a) { return -a; }
  static __device__ __forceinline__ T abs(T a) { return ::fabs(a); }
  static __device__ __forceinline__ T relu(T a) { return a < 0 ? (T)0 : a; }
  static __device__ __forceinline__ T fma(T a, T b, T c) { return ::fma(a, b, c); }
  static __device__ __forceinline__ T exp(T a) { return ::exp(a); }
  static __device__ __forceinline__ T gelu(T a) { return (T)0.5 * a * ::erfc(a * (T)-0.70710678118654752440); }
  static __device__ __forceinline__ T scale(T a, S s) { return a * s; }
};

template <typename T>
struct Arith<T, typename std::enable_if<std::is_integral<T>::value>::type> {
  using S = T;
  using U = typename std::make_unsigned<T>::type;
  static __device__ __forceinline__ T add(T a, T b) { return (T)((U)a + (U)b); }
  static __device__ __forceinline__ T sub(T a, T b) { return (T)((U)a - (U)b); }
  static __device__ __forceinline__ T mul(T a, T b) { return (T)((U)a * (U)b); }
  static __device__ __forceinline__ T div(T a, T b) {
    return b == 0 ? (T)0 : (b == (T)-1 ? (T)((U)0 - (U)a) : (T)(a / b));
  }
  static __device__ __forceinline__ T min(T a, T b) { return b < a ? b : a; }
  static __device__ __forceinline__ T max(T a, T b) { return b > a ? b : a; }
  static __device__ __forceinline__ T neg(T a) { return (T)((U)0 - (U)a); }
  static __device__ __forceinline__ T abs(T a) { return a < 0 ? neg(a) : a; }
  static __device__ __forceinline__ T relu(T a) { return a < 0 ? (T)0 : a; }
  static __device__ __forceinline__ T fma(T a, T b, T c) { return (T)((U)a * (U)b + (U)c); }
  static __device__ __forceinline__ T scale(T a, S s) { return mul(a, s); }
};

/* fp16 / bf16: one element at a time in fp32, rounded once. */
template <typename T>
struct Arith<T, typename std::enable_if<Is16<T>::value>::type> {
  using S = float;
  using F = Arith<float>;
  static __device__ __forceinline__ T add(T a, T b) { return from_f<T>(to_f(a) + to_f(b)); }
  static __device__ __forceinline__ T sub(T a, T b) { return from_f<T>(to_f(a) - to_f(b)); }
  static __device__ __forceinline__ T mul(T a, T b) { return from_f<T>(to_f(a) * to_f(b)); }
  static __device__ __forceinline__ T div(T a, T b) { return from_f<T>(to_f(a) / to_f(b)); }
  static __device__ __forceinline__ T min(T a, T b) { return from_f<T>(F::min(to_f(a), to_f(b))); }
  static __device__ __forceinline__ T max(T a, T b) { return from_f<T>(F::max(to_f(a), to_f(b))); }
  static __device__ __forceinline__ T neg(T a) { return __hneg(a); }
  static __device__ __forceinline__ T abs(T a) { return __habs(a); }
  static __device__ __forceinline__ T relu(T a) { return from_f<T>(F::relu(to_f(a))); }
  static __device__ __forceinline__ T fma(T a, T b, T c) { return __hfma(a, b, c); }
  static __device__ __forceinline__ T exp(T a) { return from_f<T>(::expf(to_f(a))); }
  static __device__ __forceinline__ T gelu(T a) { return from_f<T>(F::gelu(to_f(a))); }
  static __device__ __forceinline__ T scale(T a, S s) { return from_f<T>(to_f(a) * s); }
};

/* ---- functors of the built-in operations -------------------------------- */
#define PARRAY_K_BINARY(Name, fn, pairfn)                                                            \
  template <typename T, typename Enable = void>                                                   \
  struct Name {                                                                                    \
    __device__ __forceinline__ T operator()(T a, T b) const { return Arith<T>::fn(a, b); }        \
  };                                                                                               \
  template <typename T>                                                                            \
  struct Name<T, typename std::enable_if<Is16<T>::value>::type> {                                 \
    __device__ __forceinline__ T operator()(T a, T b) const { return Arith<T>::fn(a, b); }        \
    __device__ __forceinline__ void apply2(T *r, const T *a, const T *b) const {                  \
      *reinterpret_cast<pair_t<T> *>(r) =                                                          \
          pairfn(*reinterpret_cast<const pair_t<T> *>(a), *reinterpret_cast<const pair_t<T> *>(b)); \
    }                                                                                              \
  };

PARRAY_K_BINARY(OpAdd, add, __hadd2)
PARRAY_K_BINARY(OpSub, sub, __hsub2)
PARRAY_K_BINARY(OpMul, mul, __hmul2)
PARRAY_K_BINARY(OpMin, min, __hmin2_nan)
PARRAY_K_BINARY(OpMax, max, __hmax2_nan)
#undef PARRAY_K_BINARY

template <typename T>
struct OpDiv {
  __device__ __forceinline__ T operator()(T a, T b) const { return Arith<T>::div(a, b); }
};

template <typename T, typename Enable = void>
struct OpFma {
  __device__ __forceinline__ T operator()(T a, T b, T c) const { return Arith<T>::fma(a, b, c); }
};
template <typename T>
struct OpFma<T, typename std::enable_if<Is16<T>::value>::type> {
  __device__ __forceinline__ T operator()(T a, T b, T c) const { return Arith<T>::fma(a, b, c); }
  __device__ __forceinline__ void apply2(T *r, const T *a, const T *b, const T *c) const {
    *reinterpret_cast<pair_t<T> *>(r) = __hfma2(*reinterpret_cast<const pair_t<T> *>(a),
                                                *reinterpret_cast<const pair_t<T> *>(b),
                                                *reinterpret_cast<const pair_t<T> *>(c));
  }
};

template <typename T, typename Enable = void>
struct OpRelu {
  __device__ __forceinline__ T operator()(T a) const { return Arith<T>::relu(a); }
};
template <typename T>
struct OpRelu<T, typename std::enable_if<Is16<T>::value>::type> {
  __device__ __forceinline__ T operator()(T a) const { return Arith<T>::relu(a); }
  __device__ __forceinline__ void apply2(T *r, const T *a) const {
    const pair_t<T> z = pair_t<T>(from_f<T>(0.f), from_f<T>(0.f));
    *reinterpret_cast<pair_t<T> *>(r) = __hmax2_nan(*reinterpret_cast<const pair_t<T> *>(a), z);
  }
};

template <typename T, typename Enable = void>
struct OpNeg {
  __device__ __forceinline__ T operator()(T a) const { return Arith<T>::neg(a); }
};
template <typename T>
struct OpNeg<T, typename std::enable_if<Is16<T>::value>::type> {
  __device__ __forceinline__ T operator()(T a) const { return Arith<T>::neg(a); }
  __device__ __forceinline__ void apply2(T *r, const T *a) const {
    *reinterpret_cast<pair_t<T> *>(r) = __hneg2(*reinterpret_cast<const pair_t<T> *>(a));
  }
};

template <typename T, typename Enable = void>
struct OpAbs {
  __device__ __forceinline__ T operator()(T a) const { return Arith<T>::abs(a); }
};
template <typename T>
struct OpAbs<T, typename std::enable_if<Is16<T>::value>::type> {
  __device__ __forceinline__ T operator()(T a) const { return Arith<T>::abs(a); }
  __device__ __forceinline__ void apply2(T *r, const T *a) const {
    *reinterpret_cast<pair_t<T> *>(r) = __habs2(*reinterpret_cast<const pair_t<T> *>(a));
  }
};

template <typename T>
struct OpExp {
  __device__ __forceinline__ T operator()(T a) const { return Arith<T>::exp(a); }
};
template <typename T>
struct OpGelu {
  __device__ __forceinline__ T operator()(T a) const { return Arith<T>::gelu(a); }
};
template <typename T>
struct OpScale {
  typename Arith<T>::S s;
  __device__ __forceinline__ T operator()(T a) const { return Arith<T>::scale(a, s); }
};

/* Casts, with pair forms for fp32 <-> fp16/bf16. */
template <typename To, typename From>
struct OpCast {
  __device__ __forceinline__ To operator()(From x) const { return cvt<To, From>(x); }
};
template <>
struct OpCast<half, float> {
  __device__ __forceinline__ half operator()(float x) const { return __float2half_rn(x); }
  __device__ __forceinline__ void apply2(half *r, const float *a) const {
    *reinterpret_cast<__half2 *>(r) = __float22half2_rn(*reinterpret_cast<const float2 *>(a));
  }
};
template <>
struct OpCast<float, half> {
  __device__ __forceinline__ float operator()(half x) const { return __half2float(x); }
  __device__ __forceinline__ void apply2(float *r, const half *a) const {
    *reinterpret_cast<float2 *>(r) = __half22float2(*reinterpret_cast<const __half2 *>(a));
  }
};
template <>
struct OpCast<bf16, float> {
  __device__ __forceinline__ bf16 operator()(float x) const { return __float2bfloat16_rn(x); }
  __device__ __forceinline__ void apply2(bf16 *r, const float *a) const {
    *reinterpret_cast<__nv_bfloat162 *>(r) = __float22bfloat162_rn(*reinterpret_cast<const float2 *>(a));
  }
};
template <>
struct OpCast<float, bf16> {
  __device__ __forceinline__ float operator()(bf16 x) const { return __bfloat162float(x); }
  __device__ __forceinline__ void apply2(float *r, const bf16 *a) const {
    *reinterpret_cast<float2 *>(r) = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(a));
  }
};

} /* namespace parray_k */

/* Run `body` with T bound to the C++ type of dtype `dt` (the six arithmetic
 * types); `otherwise` runs for other values. */
#define PARRAY_K_DISPATCH6(dt, T, body, otherwise) \
  switch (dt) {                                    \
  case PARRAY_F32: {                               \
    using T = float;                               \
    body;                                          \
  } break;                                         \
  case PARRAY_F16: {                               \
    using T = parray_k::half;                      \
    body;                                          \
  } break;                                         \
  case PARRAY_BF16: {                              \
    using T = parray_k::bf16;                      \
    body;                                          \
  } break;                                         \
  case PARRAY_F64: {                               \
    using T = double;                              \
    body;                                          \
  } break;                                         \
  case PARRAY_I32: {                               \
    using T = int32_t;                             \
    body;                                          \
  } break;                                         \
  case PARRAY_I64: {                               \
    using T = int64_t;                             \
    body;                                          \
  } break;                                         \
  default: {                                       \
    otherwise;                                     \
  } break;                                         \
  }

#endif
