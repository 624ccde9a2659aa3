/* sgemm_ref.h - helpers shared by the SGEMM tests: random matrices, a
 * float64 reference product (threaded with pthreads), the error check, and
 * the host buffers of a case with the check of C's padding.
 *
 * Error measure (per element, every element checked):
 *   err(i,j) = |c(i,j) - ref(i,j)| / (|alpha| * sum_p |op(A)(i,p)| |op(B)(p,j)| + |beta| |c0(i,j)| + tiny)
 * i.e. the error relative to the magnitude of the terms that were added, the
 * usual componentwise bound for a dot product. The norm-wise
 * ||C - ref||_F / ||ref||_F is reported too. Both must stay under 1e-5; a NaN
 * (unwritten poisoned output) fails. */
#ifndef PARRAY_TESTS_SGEMM_REF_H
#define PARRAY_TESTS_SGEMM_REF_H

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parray/sgemm.h"

static uint64_t ref_rng_state = 0x9E3779B97F4A7C15ull;
static void ref_seed(uint64_t s) { ref_rng_state = s * 0x9E3779B97F4A7C15ull + 1; }
/* Uniform in [-1, 1). */
static float ref_rand(void) {
  ref_rng_state ^= ref_rng_state << 13;
  ref_rng_state ^= ref_rng_state >> 7;
  ref_rng_state ^= ref_rng_state << 17;
  return (float)((double)(ref_rng_state >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

/* Element (r, c) of a stored matrix in `order` with leading dimension ld. */
static inline int64_t ref_at(parray_layout order, int64_t r, int64_t c, int64_t ld) {
  return order == PARRAY_ROW_MAJOR ? r * ld + c : r + c * ld;
}
/* Number of floats to allocate for a stored rows x cols matrix. */
static inline int64_t ref_span(parray_layout order, int64_t rows, int64_t cols, int64_t ld) {
  int64_t outer = order == PARRAY_ROW_MAJOR ? rows : cols;
  return outer > 0 ? outer * ld : 1;
}

typedef struct ref_job {
  const double *a;  /* op(A) dense, m x k row-major */
  const double *bt; /* op(B)^T dense, n x k row-major */
  double *ref, *mag; /* m x n: the exact product and sum |a||b| */
  int64_t m, n, k, i0, i1;
} ref_job;

static void *ref_worker(void *arg) {
  ref_job *j = (ref_job *)arg;
  for (int64_t i = j->i0; i < j->i1; i++) {
    const double *ar = j->a + i * j->k;
    for (int64_t c = 0; c < j->n; c++) {
      const double *br = j->bt + c * j->k;
      double s = 0, t = 0;
      for (int64_t p = 0; p < j->k; p++) {
        s += ar[p] * br[p];
        t += fabs(ar[p] * br[p]);
      }
      j->ref[i * j->n + c] = s;
      j->mag[i * j->n + c] = t;
    }
  }
  return NULL;
}

/* ref/mag (m x n, row-major, caller-allocated) = op(A) op(B) in float64 and
 * sum_p |op(A)(i,p) op(B)(p,j)|. Returns 0 on success. */
static int ref_product(parray_layout order, parray_trans ta, parray_trans tb, int64_t m, int64_t n, int64_t k,
                       const float *A, int64_t lda, const float *B, int64_t ldb, double *ref, double *mag) {
  double *a = malloc(sizeof(double) * (size_t)(m * k + 1)), *bt = malloc(sizeof(double) * (size_t)(n * k + 1));
  if (!a || !bt) {
    free(a);
    free(bt);
    return -1;
  }
  for (int64_t i = 0; i < m; i++)
    for (int64_t p = 0; p < k; p++)
      a[i * k + p] = ta == PARRAY_NOTRANS ? A[ref_at(order, i, p, lda)] : A[ref_at(order, p, i, lda)];
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = 0; p < k; p++)
      bt[j * k + p] = tb == PARRAY_NOTRANS ? B[ref_at(order, p, j, ldb)] : B[ref_at(order, j, p, ldb)];
  long nt = sysconf(_SC_NPROCESSORS_ONLN);
  if (nt < 1) nt = 1;
  if (nt > 32) nt = 32;
  if (m * n * k < 4000000) nt = 1;
  ref_job jobs[32];
  pthread_t th[32];
  int started[32] = {0};
  for (long t = 0; t < nt; t++) {
    jobs[t] = (ref_job){a, bt, ref, mag, m, n, k, m * t / nt, m * (t + 1) / nt};
    if (nt == 1 || pthread_create(&th[t], NULL, ref_worker, &jobs[t]) != 0)
      ref_worker(&jobs[t]);
    else
      started[t] = 1;
  }
  for (long t = 0; t < nt; t++)
    if (started[t]) pthread_join(th[t], NULL);
  free(a);
  free(bt);
  return 0;
}

typedef struct ref_result {
  double max_err;  /* componentwise, see above */
  double norm_err; /* ||C - ref|| / ||ref|| */
  int64_t bad;     /* elements over the tolerance (NaN included) */
  int64_t first_i, first_j;
} ref_result;

/* Compare C (in `order`, ldc) against alpha*ref + beta*c0 (c0: the C before
 * the call, in the same storage; ignored when beta == 0). */
static ref_result ref_check(parray_layout order, int64_t m, int64_t n, float alpha, float beta, const double *ref,
                            const double *mag, const float *C, const float *C0, int64_t ldc, double tol) {
  ref_result r = {0, 0, 0, -1, -1};
  double num = 0, den = 0;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      const int64_t x = ref_at(order, i, j, ldc);
      double want = (double)alpha * ref[i * n + j];
      double scale = fabs((double)alpha) * mag[i * n + j];
      if (beta != 0.0f) {
        want += (double)beta * C0[x];
        scale += fabs((double)beta * C0[x]);
      }
      const double d = fabs((double)C[x] - want);
      const double e = d / (scale + 1e-30);
      num += d * d;
      den += want * want;
      if (!(e <= tol)) {
        if (r.bad == 0) {
          r.first_i = i;
          r.first_j = j;
        }
        r.bad++;
        r.max_err = isnan(e) ? INFINITY : (e > r.max_err ? e : r.max_err);
      } else if (e > r.max_err) {
        r.max_err = e;
      }
    }
  r.norm_err = den > 0 ? sqrt(num / den) : sqrt(num);
  if (!(r.norm_err <= tol) && r.bad == 0) r.bad = 1;
  return r;
}

static const char *ref_order_name(parray_layout o) { return o == PARRAY_ROW_MAJOR ? "row" : "col"; }
static const char *ref_trans_name(parray_trans t) { return t == PARRAY_NOTRANS ? "N" : "T"; }

/* The smallest leading dimension of a stored rows x cols matrix (at least 1). */
static inline int64_t ref_need_ld(parray_layout order, int64_t rows, int64_t cols) {
  const int64_t v = order == PARRAY_ROW_MAJOR ? cols : rows;
  return v > 1 ? v : 1;
}

/* The host side of one case: the operands A (sa floats) and B (sb), C0 (sc:
 * C before the call), C (sc: the result to check), and ref, mag (m x n) for
 * ref_product. */
typedef struct ref_bufs {
  float *A, *B, *C, *C0;
  double *ref, *mag;
} ref_bufs;

/* Allocates the buffers and fills A, B with ref_rand() and C0 with ref_rand()
 * too, or with NaN everywhere when beta == 0 (C must then not be read, and
 * every element must be written); C is left to the caller. Exits with a FAIL
 * line when memory runs out. */
static ref_bufs ref_bufs_new(int64_t sa, int64_t sb, int64_t sc, int64_t m, int64_t n, float beta) {
  ref_bufs b;
  b.A = malloc(sizeof(float) * (size_t)sa);
  b.B = malloc(sizeof(float) * (size_t)sb);
  b.C = malloc(sizeof(float) * (size_t)sc);
  b.C0 = malloc(sizeof(float) * (size_t)sc);
  b.ref = malloc(sizeof(double) * (size_t)(m * n + 1));
  b.mag = malloc(sizeof(double) * (size_t)(m * n + 1));
  if (!b.A || !b.B || !b.C || !b.C0 || !b.ref || !b.mag) {
    printf("FAIL: host allocation\n");
    exit(1);
  }
  for (int64_t x = 0; x < sa; x++) b.A[x] = ref_rand();
  for (int64_t x = 0; x < sb; x++) b.B[x] = ref_rand();
  for (int64_t x = 0; x < sc; x++) b.C0[x] = beta == 0.0f ? NAN : ref_rand();
  return b;
}

static void ref_bufs_free(ref_bufs *b) {
  free(b->A);
  free(b->B);
  free(b->C);
  free(b->C0);
  free(b->ref);
  free(b->mag);
}

/* Elements of the padding (past the m x n window, within ldc) where C and C0
 * differ bitwise: what the call wrote outside its result. */
static int64_t ref_outside(parray_layout order, int64_t m, int64_t n, const float *C, const float *C0, int64_t ldc) {
  int64_t outside = 0;
  for (int64_t i = 0; i < (order == PARRAY_ROW_MAJOR ? m : n); i++)
    for (int64_t j = (order == PARRAY_ROW_MAJOR ? n : m); j < ldc; j++)
      if (memcmp(&C[i * ldc + j], &C0[i * ldc + j], sizeof(float)) != 0) outside++;
  return outside;
}

/* Prints what went wrong in a case (nothing when r and outside are clean);
 * returns nonzero when the case passed. */
static int ref_report(ref_result r, int64_t outside) {
  if (!r.bad && !outside) return 1;
  printf("  max err %.3g, norm err %.3g, %lld bad (first %lld,%lld), %lld written outside\n", r.max_err, r.norm_err,
         (long long)r.bad, (long long)r.first_i, (long long)r.first_j, (long long)outside);
  return 0;
}

#endif
