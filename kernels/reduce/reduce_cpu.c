/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_cpu.c - CPU twins of the reductions of parray/kernels.h (whole
 * array, last dimension with a row stride, leading dimension): sequential
 * loops accumulating in double for floating types and in wrapping int64 for
 * integers, the result converted with the parray_cast rules (argument rules
 * shared with the GPU versions in reduce_args.h). Also the workspace sizes
 * of the GPU versions (shared plan in reduce_plan.h) and the operation names. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "reduce_plan.h"
#include "reduce_args.h"
#include "parray/kernels.h"

const char *parray_reduce_op_name(parray_reduce_op op) {
  static const char *const nm[PARRAY_REDUCE_COUNT] = {"sum", "mean", "max", "min"};
  return (unsigned)op < PARRAY_REDUCE_COUNT ? nm[op] : "?";
}

typedef struct acc {
  bool is_int;
  int64_t i;
  double d;
} acc;

static acc acc_init(parray_reduce_op op, bool is_int) {
  acc a = {is_int, 0, 0.0};
  if (op == PARRAY_REDUCE_MAX) {
    a.i = INT64_MIN;
    a.d = -INFINITY;
  } else if (op == PARRAY_REDUCE_MIN) {
    a.i = INT64_MAX;
    a.d = INFINITY;
  }
  return a;
}

static double dmax(double a, double b) { return a != a ? a : (b != b ? b : (b > a ? b : a)); }
static double dmin(double a, double b) { return a != a ? a : (b != b ? b : (b < a ? b : a)); }

static void acc_add(acc *a, parray_reduce_op op, parray_dtype t, const void *p, int64_t k) {
  if (a->is_int) {
    const int64_t v = t == PARRAY_I32 ? ((const int32_t *)p)[k] : ((const int64_t *)p)[k];
    if (op == PARRAY_REDUCE_MAX)
      a->i = v > a->i ? v : a->i;
    else if (op == PARRAY_REDUCE_MIN)
      a->i = v < a->i ? v : a->i;
    else
      a->i = (int64_t)((uint64_t)a->i + (uint64_t)v);
    return;
  }
  double v;
  switch (t) {
  case PARRAY_F32: v = ((const float *)p)[k]; break;
  case PARRAY_F16: v = parray_f16_to_float(((const uint16_t *)p)[k]); break;
  case PARRAY_BF16: v = parray_bf16_to_float(((const uint16_t *)p)[k]); break;
  default: v = ((const double *)p)[k]; break;
  }
  if (op == PARRAY_REDUCE_MAX)
    a->d = dmax(a->d, v);
  else if (op == PARRAY_REDUCE_MIN)
    a->d = dmin(a->d, v);
  else
    a->d += v;
}

static void acc_store(const acc *a, parray_reduce_op op, int64_t count, parray_dtype ydt, void *y, int64_t k) {
  char *dst = (char *)y + (size_t)k * parray_dtype_size(ydt);
  if (op == PARRAY_REDUCE_MEAN) {
    const double m = (a->is_int ? (double)a->i : a->d) / (double)count;
    (void)parray_cast_cpu(ydt, dst, PARRAY_F64, &m, 1);
  } else if (a->is_int) {
    (void)parray_cast_cpu(ydt, dst, PARRAY_I64, &a->i, 1);
  } else {
    (void)parray_cast_cpu(ydt, dst, PARRAY_F64, &a->d, 1);
  }
}

static bool is_int(parray_dtype t) { return t == PARRAY_I32 || t == PARRAY_I64; }

parray_status parray_reduce_all_cpu(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt, const void *x,
                                    int64_t n, void *work, size_t work_bytes) {
  (void)work;
  (void)work_bytes;
  parray_status st = parray__reduce_check("parray_reduce_all_cpu", op, ydt, xdt, x, y, 1, n);
  if (st != PARRAY_OK) return st;
  acc a = acc_init(op, is_int(xdt));
  for (int64_t i = 0; i < n; ++i) acc_add(&a, op, xdt, x, i);
  acc_store(&a, op, n, ydt, y, 0);
  return PARRAY_OK;
}

parray_status parray_reduce_rows_cpu(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt, const void *x,
                                     int64_t rows, int64_t cols, int64_t row_stride) {
  parray_status st = parray__reduce_check("parray_reduce_rows_cpu", op, ydt, xdt, x, y, rows, cols);
  if (st != PARRAY_OK) return st;
  st = parray__reduce_check_stride("parray_reduce_rows_cpu", rows, cols, row_stride);
  if (st != PARRAY_OK) return st;
  const size_t es = parray_dtype_size(xdt);
  for (int64_t r = 0; r < rows; ++r) {
    const char *row = (const char *)x + (size_t)(r * row_stride) * es;
    acc a = acc_init(op, is_int(xdt));
    for (int64_t c = 0; c < cols; ++c) acc_add(&a, op, xdt, row, c);
    acc_store(&a, op, cols, ydt, y, r);
  }
  return PARRAY_OK;
}

parray_status parray_reduce_cols_cpu(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt, const void *x,
                                     int64_t rows, int64_t cols, int64_t row_stride, void *work, size_t work_bytes) {
  (void)work;
  (void)work_bytes;
  parray_status st = parray__reduce_check("parray_reduce_cols_cpu", op, ydt, xdt, x, y, cols, rows);
  if (st != PARRAY_OK) return st;
  st = parray__reduce_check_stride("parray_reduce_cols_cpu", rows, cols, row_stride);
  if (st != PARRAY_OK) return st;
  if (cols == 0) return PARRAY_OK;
  acc *a = malloc((size_t)cols * sizeof *a);
  if (!a) {
    parray_set_error("parray_reduce_cols_cpu: out of memory");
    return PARRAY_ERR_ALLOC;
  }
  for (int64_t c = 0; c < cols; ++c) a[c] = acc_init(op, is_int(xdt));
  const size_t es = parray_dtype_size(xdt);
  for (int64_t r = 0; r < rows; ++r) { /* row by row: sequential memory */
    const char *row = (const char *)x + (size_t)(r * row_stride) * es;
    for (int64_t c = 0; c < cols; ++c) acc_add(&a[c], op, xdt, row, c);
  }
  for (int64_t c = 0; c < cols; ++c) acc_store(&a[c], op, rows, ydt, y, c);
  free(a);
  return PARRAY_OK;
}

size_t parray_reduce_all_workspace(parray_dtype xdt, int64_t n) {
  (void)xdt;
  if (n <= 0) return 256;
  return 256 + (size_t)(parray_rd_all_chunks(n) + 1) * 8;
}

size_t parray_reduce_cols_workspace(parray_dtype xdt, int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0) return 256;
  const size_t es = parray_dtype_size(xdt);
  const int pv = es && es <= 16 ? (int)(16 / es) : 1;
  const uint64_t a = parray_rd_cols_bytes(rows, cols, pv), b = parray_rd_cols_bytes(rows, cols, 1);
  return (size_t)(a > b ? a : b);
}
