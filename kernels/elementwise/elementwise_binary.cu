/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise_binary.cu - parray_binary_cuda and parray_ternary_cuda: the
 * built-in two- and three-input operations on the six arithmetic types,
 * instantiated on the vectorized engine of parray/elementwise.cuh. */
#include "elementwise_ops.cuh"
#include "parray/elementwise.cuh"

using namespace parray_k;

namespace {
template <typename T>
cudaError_t binary_typed(parray_ew_op op, T *y, const T *a, const T *b, int64_t n, cudaStream_t s, bool *ok) {
  *ok = true;
  switch (op) {
  case PARRAY_OP_ADD: return parray_ew::binary(OpAdd<T>{}, n, y, a, b, s);
  case PARRAY_OP_SUB: return parray_ew::binary(OpSub<T>{}, n, y, a, b, s);
  case PARRAY_OP_MUL: return parray_ew::binary(OpMul<T>{}, n, y, a, b, s);
  case PARRAY_OP_DIV: return parray_ew::binary(OpDiv<T>{}, n, y, a, b, s);
  case PARRAY_OP_MIN: return parray_ew::binary(OpMin<T>{}, n, y, a, b, s);
  case PARRAY_OP_MAX: return parray_ew::binary(OpMax<T>{}, n, y, a, b, s);
  default: *ok = false; return cudaSuccess;
  }
}
} // namespace

extern "C" parray_status parray_binary_cuda(parray_ew_op op, parray_dtype dt, void *y, const void *a, const void *b,
                                            int64_t n, cudaStream_t stream) {
  parray_status st = parray_ew::check_args("parray_binary_cuda", n, y, a);
  if (st != PARRAY_OK) return st;
  if (n > 0 && !b) {
    parray_set_error("parray_binary_cuda: null pointer");
    return PARRAY_ERR_INVALID;
  }
  if (parray_ew_op_arity(op) != 2) {
    parray_set_error("parray_binary_cuda: %s is not a binary operation", parray_ew_op_name(op));
    return PARRAY_ERR_INVALID;
  }
  bool ok = false;
  cudaError_t e = cudaSuccess;
  PARRAY_K_DISPATCH6(dt, T, e = binary_typed<T>(op, (T *)y, (const T *)a, (const T *)b, n, stream, &ok), ok = false)
  if (!ok) {
    parray_set_error("parray_binary_cuda: %s on %s is not supported", parray_ew_op_name(op), parray_dtype_name(dt));
    return PARRAY_ERR_UNSUPPORTED;
  }
  return parray_ew::status_of(e, "parray_binary_cuda");
}

extern "C" parray_status parray_ternary_cuda(parray_ew_op op, parray_dtype dt, void *y, const void *a, const void *b,
                                             const void *c, int64_t n, cudaStream_t stream) {
  parray_status st = parray_ew::check_args("parray_ternary_cuda", n, y, a);
  if (st != PARRAY_OK) return st;
  if (n > 0 && (!b || !c)) {
    parray_set_error("parray_ternary_cuda: null pointer");
    return PARRAY_ERR_INVALID;
  }
  if (op != PARRAY_OP_FMA) {
    parray_set_error("parray_ternary_cuda: %s is not a ternary operation", parray_ew_op_name(op));
    return PARRAY_ERR_INVALID;
  }
  bool ok = true;
  cudaError_t e = cudaSuccess;
  PARRAY_K_DISPATCH6(dt, T,
                     e = parray_ew::ternary(OpFma<T>{}, n, (T *)y, (const T *)a, (const T *)b, (const T *)c, stream),
                     ok = false)
  if (!ok) {
    parray_set_error("parray_ternary_cuda: %s on %s is not supported", parray_ew_op_name(op), parray_dtype_name(dt));
    return PARRAY_ERR_UNSUPPORTED;
  }
  return parray_ew::status_of(e, "parray_ternary_cuda");
}
