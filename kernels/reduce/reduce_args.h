/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_args.h - what the CPU reductions (reduce_cpu.c) and the CUDA
 * ones (reduce_*.cu) share: their argument rules. Private to
 * kernels/reduce; included by C and CUDA host sources alike. */
#ifndef PARRAY_REDUCE_ARGS_H
#define PARRAY_REDUCE_ARGS_H

#include <stdint.h>

#include "parray/kernels.h"

/* PARRAY_OK, or an error status with the error text prefixed by what: op a
 * reduction, both element types arithmetic (f32, f16, bf16, f64, i32, i64),
 * count results of len elements each with neither negative, y (and x when
 * there is something to read) not NULL when count > 0, and reductions of
 * empty sets (len 0) only for the sum. */
static inline parray_status parray__reduce_check(const char *what, parray_reduce_op op, parray_dtype ydt,
                                                 parray_dtype xdt, const void *x, const void *y, int64_t count,
                                                 int64_t len) {
  if ((unsigned)op >= PARRAY_REDUCE_COUNT) {
    parray_set_error("%s: bad reduction %d", what, (int)op);
    return PARRAY_ERR_INVALID;
  }
  if ((unsigned)xdt > PARRAY_I64 || (unsigned)ydt > PARRAY_I64) {
    parray_set_error("%s: element types %s -> %s are not supported", what, parray_dtype_name(xdt),
                     parray_dtype_name(ydt));
    return PARRAY_ERR_UNSUPPORTED;
  }
  if (count < 0 || len < 0) {
    parray_set_error("%s: negative size", what);
    return PARRAY_ERR_INVALID;
  }
  if (count > 0 && !y) {
    parray_set_error("%s: null output", what);
    return PARRAY_ERR_INVALID;
  }
  if (count > 0 && len > 0 && !x) {
    parray_set_error("%s: null input", what);
    return PARRAY_ERR_INVALID;
  }
  if (count > 0 && len == 0 && op != PARRAY_REDUCE_SUM) {
    parray_set_error("%s: %s of an empty set", what, parray_reduce_op_name(op));
    return PARRAY_ERR_INVALID;
  }
  return PARRAY_OK;
}

/* PARRAY_OK, or PARRAY_ERR_INVALID with the error text prefixed by what: the
 * rows of a rows x cols matrix must not overlap (row_stride >= cols, unless
 * there is only one row). */
static inline parray_status parray__reduce_check_stride(const char *what, int64_t rows, int64_t cols,
                                                        int64_t row_stride) {
  if (row_stride < cols && rows > 1) {
    parray_set_error("%s: row stride %lld < cols %lld", what, (long long)row_stride, (long long)cols);
    return PARRAY_ERR_INVALID;
  }
  return PARRAY_OK;
}

#endif
