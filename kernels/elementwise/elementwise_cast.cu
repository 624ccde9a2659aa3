/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise_cast.cu - parray_cast_cuda: conversion between any two of the
 * 8 element types on the vectorized engine (fp32 <-> fp16/bf16 use the pair
 * conversion instructions). Same-type casts are a device-to-device copy. */
#include "elementwise_ops.cuh"
#include "parray/elementwise.cuh"

using namespace parray_k;

#define PARRAY_K_DISPATCH8(dt, T, body, otherwise)                                 \
  switch (dt) {                                                                    \
  case PARRAY_I8: {                                                                \
    using T = int8_t;                                                              \
    body;                                                                          \
  } break;                                                                         \
  case PARRAY_U8: {                                                                \
    using T = uint8_t;                                                             \
    body;                                                                          \
  } break;                                                                         \
  default: PARRAY_K_DISPATCH6(dt, T, body, otherwise) break;                       \
  }

namespace {
template <typename From>
cudaError_t cast_from(parray_dtype ydt, void *y, const From *x, int64_t n, cudaStream_t s, bool *ok) {
  cudaError_t e = cudaSuccess;
  *ok = true;
  PARRAY_K_DISPATCH8(ydt, To,
                     if constexpr (std::is_same<To, From>::value) *ok = false;
                     else e = parray_ew::unary(OpCast<To, From>{}, n, (To *)y, x, s),
                     *ok = false)
  return e;
}
} // namespace

extern "C" parray_status parray_cast_cuda(parray_dtype ydt, void *y, parray_dtype xdt, const void *x, int64_t n,
                                          cudaStream_t stream) {
  parray_status st = parray_ew::check_args("parray_cast_cuda", n, y, x);
  if (st != PARRAY_OK) return st;
  if ((unsigned)ydt >= PARRAY_DTYPE_COUNT || (unsigned)xdt >= PARRAY_DTYPE_COUNT) {
    parray_set_error("parray_cast_cuda: bad element type");
    return PARRAY_ERR_INVALID;
  }
  if (n == 0) return PARRAY_OK;
  if (ydt == xdt) {
    if (y == x) return PARRAY_OK;
    return parray_ew::status_of(cudaMemcpyAsync(y, x, (size_t)n * parray_dtype_size(xdt), cudaMemcpyDefault, stream),
                                "parray_cast_cuda");
  }
  bool ok = false;
  cudaError_t e = cudaSuccess;
  PARRAY_K_DISPATCH8(xdt, From, e = cast_from<From>(ydt, y, (const From *)x, n, stream, &ok), ok = false)
  if (!ok) {
    parray_set_error("parray_cast_cuda: %s -> %s is not supported", parray_dtype_name(xdt), parray_dtype_name(ydt));
    return PARRAY_ERR_UNSUPPORTED;
  }
  return parray_ew::status_of(e, "parray_cast_cuda");
}
