/* SPDX-License-Identifier: Apache-2.0 */
/* sgemm_cpu.c - parray_sgemm_cpu: C = alpha*op(A)*op(B) + beta*C on the host,
 * row- or column-major, any shape and leading dimensions. Blocked for cache
 * (64x64 blocks of C, 256-deep slices of k, the B slice packed contiguous),
 * single-threaded; float accumulation in k order. Used as the CPU runtime
 * path and as a quick reference for small sizes (tests compare it against a
 * float64 product). */
#include "sgemm_args.h"
#include <stdint.h>
#include <stdlib.h>

#include "parray/sgemm.h"

enum { CPU_MB = 64, CPU_NB = 64, CPU_KB = 256 };


parray_status parray_sgemm_cpu(parray_layout order, parray_trans ta, parray_trans tb, int64_t m, int64_t n,
                               int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                               float beta, float *C, int64_t ldc) {
  parray_status st = parray__sgemm_check("parray_sgemm_cpu", order, ta, tb, m, n, k, alpha, A, lda, B, ldb, C, ldc);
  if (st != PARRAY_OK || m == 0 || n == 0) return st;
  parray__sgemm_as_rowmajor(order, &ta, &tb, &m, &n, &A, &lda, &B, &ldb);
  if (alpha == 0.0f) k = 0;
  /* Row-major from here: op(A)(i,p) = A[i*sai + p*sap], op(B)(p,j) = B[p*sbp + j*sbj]. */
  const int64_t sai = ta == PARRAY_NOTRANS ? lda : 1, sap = ta == PARRAY_NOTRANS ? 1 : lda;
  const int64_t sbp = tb == PARRAY_NOTRANS ? ldb : 1, sbj = tb == PARRAY_NOTRANS ? 1 : ldb;
  float *acc = malloc(sizeof(float) * (CPU_MB * CPU_NB + CPU_KB * CPU_NB));
  if (!acc) {
    parray_set_error("parray_sgemm_cpu: out of memory for the work buffer");
    return PARRAY_ERR_ALLOC;
  }
  float *bp = acc + CPU_MB * CPU_NB; /* packed B slice, CPU_KB x nb, row stride CPU_NB */
  for (int64_t jb = 0; jb < n; jb += CPU_NB) {
    const int64_t nb = n - jb < CPU_NB ? n - jb : CPU_NB;
    for (int64_t ib = 0; ib < m; ib += CPU_MB) {
      const int64_t mb = m - ib < CPU_MB ? m - ib : CPU_MB;
      for (int64_t x = 0; x < CPU_MB * CPU_NB; x++) acc[x] = 0.0f;
      for (int64_t pb = 0; pb < k; pb += CPU_KB) {
        const int64_t kb = k - pb < CPU_KB ? k - pb : CPU_KB;
        for (int64_t p = 0; p < kb; p++)
          for (int64_t j = 0; j < nb; j++) bp[p * CPU_NB + j] = B[(pb + p) * sbp + (jb + j) * sbj];
        for (int64_t i = 0; i < mb; i++) {
          float *ar = acc + i * CPU_NB;
          const float *arow = A + (ib + i) * sai + pb * sap;
          for (int64_t p = 0; p < kb; p++) {
            const float a = arow[p * sap];
            const float *br = bp + p * CPU_NB;
            for (int64_t j = 0; j < nb; j++) ar[j] += a * br[j];
          }
        }
      }
      for (int64_t i = 0; i < mb; i++) {
        float *crow = C + (ib + i) * ldc + jb;
        const float *ar = acc + i * CPU_NB;
        if (beta == 0.0f)
          for (int64_t j = 0; j < nb; j++) crow[j] = alpha * ar[j];
        else
          for (int64_t j = 0; j < nb; j++) crow[j] = alpha * ar[j] + beta * crow[j];
      }
    }
  }
  free(acc);
  return PARRAY_OK;
}
