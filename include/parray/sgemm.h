/* SPDX-License-Identifier: Apache-2.0 */
/* parray/sgemm.h - single-precision matrix product of the runtime library:
 *   C = alpha * op(A) * op(B) + beta * C
 * on the GPU (parray_sgemm, hand-tuned for Hopper, plain FP32 FFMA, no tensor
 * cores) and on the CPU (parray_sgemm_cpu, a blocked C version that doubles as
 * a reference for small sizes). See docs/sgemm.md for the algorithm.
 * This header needs no CUDA headers: the stream parameter is declared as
 * `struct CUstream_st *`, which is exactly what cudaStream_t is. */
#ifndef PARRAY_SGEMM_H
#define PARRAY_SGEMM_H

#include <stdint.h>

#include "parray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Storage order of all three matrices. Row-major: element (i, j) of an
 * r x c matrix with leading dimension ld is at p[i*ld + j] (ld >= c);
 * column-major: at p[i + j*ld] (ld >= r). */
typedef enum parray_layout {
  PARRAY_ROW_MAJOR = 0,
  PARRAY_COL_MAJOR = 1
} parray_layout;

/* op(X) = X or its transpose. */
typedef enum parray_trans {
  PARRAY_NOTRANS = 0,
  PARRAY_TRANS = 1
} parray_trans;

struct CUstream_st; /* cudaStream_t is `struct CUstream_st *` */

/* C = alpha*op(A)*op(B) + beta*C with op(A) m x k, op(B) k x n, C m x n, all
 * in `order`. Any m, n, k >= 0 (each at most INT32_MAX); leading dimensions
 * must be at least the stored row length (row-major) or column length
 * (column-major) of the matrix as stored, and at least 1. When beta == 0, C is
 * only written, never read (it may hold NaN); when alpha == 0 or k == 0, A and
 * B are not read. A, B, C are device pointers; the call is asynchronous on
 * stream s (NULL: the legacy default stream). Returns PARRAY_ERR_INVALID on a
 * bad argument, PARRAY_ERR_CUDA when the launch fails. Any alignment works;
 * 16-byte aligned pointers with leading dimensions divisible by 4 take the
 * vectorised path. */
PARRAY_API parray_status parray_sgemm(parray_layout order, parray_trans ta, parray_trans tb, int64_t m, int64_t n,
                                      int64_t k, float alpha, const float *A, int64_t lda, const float *B,
                                      int64_t ldb, float beta, float *C, int64_t ldc, struct CUstream_st *s);

/* The same on host memory, single-threaded, blocked for cache. Accumulates
 * in float over k. Same argument rules and the same beta == 0 rule. */
PARRAY_API parray_status parray_sgemm_cpu(parray_layout order, parray_trans ta, parray_trans tb, int64_t m,
                                          int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                          const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

/* Tuning hook (benchmarks and tests): run kernel configuration `config`
 * (0 = the automatic choice that parray_sgemm makes; 1 .. count-1 = a fixed
 * one, see parray_sgemm_config_name) with `splits` >= 1 slices of k (split-K:
 * the slices add into C atomically, so results then vary in the last bits from
 * run to run; splits is ignored for config 0 and for the Hopper kernel,
 * config 4, which also needs a compute capability 9.0 device and 16-byte
 * aligned A and B with leading dimensions a multiple of 4, else answers
 * PARRAY_ERR_UNSUPPORTED; when both operands are k-contiguous (row-major NT,
 * column-major TN) it transposes one into scratch memory first, which then
 * may have any alignment, and answers PARRAY_ERR_ALLOC when that memory
 * cannot be had). Configurations that this build
 * does not contain (the extra variants exist only when the library is built
 * with -DPARRAY_SGEMM_VARIANTS=ON) return PARRAY_ERR_UNSUPPORTED. */
PARRAY_API parray_status parray_sgemm_config(int config, int splits, parray_layout order, parray_trans ta,
                                             parray_trans tb, int64_t m, int64_t n, int64_t k, float alpha,
                                             const float *A, int64_t lda, const float *B, int64_t ldb,
                                             float beta, float *C, int64_t ldc, struct CUstream_st *s);
/* Number of configuration slots (valid configs are 0 .. count-1). */
PARRAY_API int parray_sgemm_config_count(void);
/* e.g. "128x128x8 t256 r8x8"; NULL when config is out of range;
 * "(not built)" for a slot this build lacks. */
PARRAY_API const char *parray_sgemm_config_name(int config);

#ifdef __cplusplus
}
#endif
#endif
