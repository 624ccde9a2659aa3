/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise_unary.cu - parray_unary_cuda: relu, gelu, exp, scale, neg and
 * abs on the six arithmetic types (gelu and exp on floating types only). */
#include <math.h>

#include "elementwise_ops.cuh"
#include "parray/elementwise.cuh"

using namespace parray_k;

namespace {
template <typename T>
cudaError_t unary_typed(parray_ew_op op, T *y, const T *x, int64_t n, double alpha, cudaStream_t s, int *ok) {
  *ok = 1;
  switch (op) {
  case PARRAY_OP_RELU: return parray_ew::unary(OpRelu<T>{}, n, y, x, s);
  case PARRAY_OP_NEG: return parray_ew::unary(OpNeg<T>{}, n, y, x, s);
  case PARRAY_OP_ABS: return parray_ew::unary(OpAbs<T>{}, n, y, x, s);
  case PARRAY_OP_SCALE: {
    using S = typename Arith<T>::S;
    if constexpr (std::is_integral<T>::value) {
      const double lim = sizeof(T) == 4 ? 2147483648.0 : 9223372036854775808.0;
      if (!(alpha == floor(alpha)) || alpha < -lim || alpha >= lim) {
        *ok = -1;
        return cudaSuccess;
      }
    }
    return parray_ew::unary(OpScale<T>{(S)alpha}, n, y, x, s);
  }
  case PARRAY_OP_EXP:
  case PARRAY_OP_GELU:
    if constexpr (IsFloat<T>::value) {
      if (op == PARRAY_OP_EXP) return parray_ew::unary(OpExp<T>{}, n, y, x, s);
      return parray_ew::unary(OpGelu<T>{}, n, y, x, s);
    }
    *ok = 0;
    return cudaSuccess;
  default: *ok = 0; return cudaSuccess;
  }
}
} // namespace

extern "C" parray_status parray_unary_cuda(parray_ew_op op, parray_dtype dt, void *y, const void *x, int64_t n,
                                           double alpha, cudaStream_t stream) {
  parray_status st = parray_ew::check_args("parray_unary_cuda", n, y, x);
  if (st != PARRAY_OK) return st;
  if (parray_ew_op_arity(op) != 1) {
    parray_set_error("parray_unary_cuda: %s is not a unary operation", parray_ew_op_name(op));
    return PARRAY_ERR_INVALID;
  }
  int ok = 0;
  cudaError_t e = cudaSuccess;
  PARRAY_K_DISPATCH6(dt, T, e = unary_typed<T>(op, (T *)y, (const T *)x, n, alpha, stream, &ok), ok = 0)
  if (ok == -1) {
    parray_set_error("parray_unary_cuda: scale factor %g is not an integer of type %s", alpha, parray_dtype_name(dt));
    return PARRAY_ERR_INVALID;
  }
  if (!ok) {
    parray_set_error("parray_unary_cuda: %s on %s is not supported", parray_ew_op_name(op), parray_dtype_name(dt));
    return PARRAY_ERR_UNSUPPORTED;
  }
  return parray_ew::status_of(e, "parray_unary_cuda");
}
