/* SPDX-License-Identifier: Apache-2.0 */
/* sgemm_args.h - what parray_sgemm (CUDA) and parray_sgemm_cpu share: the
 * argument rules and the mapping of a column-major product onto the
 * row-major one (C^T = op(B)^T op(A)^T). Private to kernels/sgemm; included
 * by C and CUDA sources alike. */
#ifndef PARRAY_SGEMM_ARGS_H
#define PARRAY_SGEMM_ARGS_H

#include <stdint.h>

#include "parray/core.h"
#include "parray/sgemm.h"

static inline int64_t parray__sgemm_max1(int64_t v) { return v > 1 ? v : 1; }

/* PARRAY_OK, or PARRAY_ERR_INVALID with the error text prefixed by fn. */
static inline parray_status parray__sgemm_check(const char *fn, parray_layout order, parray_trans ta, parray_trans tb,
                                                int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                                                int64_t lda, const float *B, int64_t ldb, const float *C,
                                                int64_t ldc) {
  if (order != PARRAY_ROW_MAJOR && order != PARRAY_COL_MAJOR) {
    parray_set_error("%s: bad order %d", fn, (int)order);
    return PARRAY_ERR_INVALID;
  }
  if ((ta != PARRAY_NOTRANS && ta != PARRAY_TRANS) || (tb != PARRAY_NOTRANS && tb != PARRAY_TRANS)) {
    parray_set_error("%s: bad transpose flag (%d, %d)", fn, (int)ta, (int)tb);
    return PARRAY_ERR_INVALID;
  }
  if (m < 0 || n < 0 || k < 0 || m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) {
    parray_set_error("%s: bad size m=%lld n=%lld k=%lld", fn, (long long)m, (long long)n, (long long)k);
    return PARRAY_ERR_INVALID;
  }
  /* stored shapes: op(A) is m x k, so A is stored m x k (NOTRANS) or k x m */
  const int64_t a_rows = ta == PARRAY_NOTRANS ? m : k, a_cols = ta == PARRAY_NOTRANS ? k : m;
  const int64_t b_rows = tb == PARRAY_NOTRANS ? k : n, b_cols = tb == PARRAY_NOTRANS ? n : k;
  const int64_t need_a = parray__sgemm_max1(order == PARRAY_ROW_MAJOR ? a_cols : a_rows);
  const int64_t need_b = parray__sgemm_max1(order == PARRAY_ROW_MAJOR ? b_cols : b_rows);
  const int64_t need_c = parray__sgemm_max1(order == PARRAY_ROW_MAJOR ? n : m);
  if (lda < need_a || ldb < need_b || ldc < need_c) {
    parray_set_error("%s: leading dimension too small (lda=%lld need %lld, ldb=%lld need %lld, ldc=%lld need %lld)",
                     fn, (long long)lda, (long long)need_a, (long long)ldb, (long long)need_b, (long long)ldc,
                     (long long)need_c);
    return PARRAY_ERR_INVALID;
  }
  if (m > 0 && n > 0 && (!C || (k > 0 && alpha != 0.0f && (!A || !B)))) {
    parray_set_error("%s: null matrix pointer", fn);
    return PARRAY_ERR_INVALID;
  }
  return PARRAY_OK;
}

/* A column-major product as the row-major one: swap the operands, their
 * leading dimensions, m and n, and the transpose flags. */
static inline void parray__sgemm_as_rowmajor(parray_layout order, parray_trans *ta, parray_trans *tb, int64_t *m,
                                             int64_t *n, const float **A, int64_t *lda, const float **B,
                                             int64_t *ldb) {
  if (order != PARRAY_COL_MAJOR) return;
  const float *tp = *A;
  *A = *B, *B = tp;
  int64_t t = *lda;
  *lda = *ldb, *ldb = t;
  t = *m;
  *m = *n, *n = t;
  parray_trans tt = *ta;
  *ta = *tb, *tb = tt;
}

#endif
