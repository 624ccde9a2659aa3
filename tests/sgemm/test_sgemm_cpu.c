/* test_sgemm_cpu.c - parray_sgemm_cpu against a float64 reference: both
 * storage orders, all four transpose combinations, odd shapes, padded leading
 * dimensions, several alpha/beta (beta == 0 with NaN-poisoned C, alpha == 0
 * with NULL A and B), every element checked; plus the argument checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgemm_ref.h"

static int passed, failed;

static void expect(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL: %s\n", what);
  }
}

/* Stored shape of op(X) = rows x cols when not transposed. */
static void stored(parray_trans t, int64_t r, int64_t c, int64_t *sr, int64_t *sc) {
  *sr = t == PARRAY_NOTRANS ? r : c;
  *sc = t == PARRAY_NOTRANS ? c : r;
}

static void run_case(parray_layout o, parray_trans ta, parray_trans tb, int64_t m, int64_t n, int64_t k, int pad,
                     float alpha, float beta, int null_ab) {
  int64_t ar, ac, br, bc;
  stored(ta, m, k, &ar, &ac);
  stored(tb, k, n, &br, &bc);
  const int64_t lda = ref_need_ld(o, ar, ac) + pad, ldb = ref_need_ld(o, br, bc) + 2 * pad,
                ldc = ref_need_ld(o, m, n) + pad;
  const int64_t sa = ref_span(o, ar, ac, lda), sb = ref_span(o, br, bc, ldb), sc = ref_span(o, m, n, ldc);
  ref_bufs h = ref_bufs_new(sa, sb, sc, m, n, beta);
  memcpy(h.C, h.C0, sizeof(float) * sc);
  char what[200];
  snprintf(what, sizeof what, "%s %s%s m=%lld n=%lld k=%lld pad=%d alpha=%g beta=%g%s", ref_order_name(o),
           ref_trans_name(ta), ref_trans_name(tb), (long long)m, (long long)n, (long long)k, pad, alpha, beta,
           null_ab ? " A=B=NULL" : "");
  parray_status st = parray_sgemm_cpu(o, ta, tb, m, n, k, alpha, null_ab ? NULL : h.A, lda, null_ab ? NULL : h.B,
                                      ldb, beta, h.C, ldc);
  if (st != PARRAY_OK) {
    printf("  status %s: %s\n", parray_status_str(st), parray_last_error());
    expect(0, what);
  } else {
    ref_product(o, ta, tb, m, n, k, h.A, lda, h.B, ldb, h.ref, h.mag);
    ref_result r = ref_check(o, m, n, alpha, beta, h.ref, h.mag, h.C, h.C0, ldc, 1e-5);
    /* Padding outside the m x n window must be untouched. */
    expect(ref_report(r, ref_outside(o, m, n, h.C, h.C0, ldc)), what);
  }
  ref_bufs_free(&h);
}

static void arg_checks(void) {
  float a[64], b[64], c[64];
  for (int i = 0; i < 64; i++) a[i] = b[i] = c[i] = 1.0f;
  expect(parray_sgemm_cpu(PARRAY_ROW_MAJOR, PARRAY_NOTRANS, PARRAY_NOTRANS, 4, 4, 4, 1, a, 3, b, 4, 0, c, 4) ==
             PARRAY_ERR_INVALID,
         "row-major lda < k is rejected");
  expect(parray_sgemm_cpu(PARRAY_ROW_MAJOR, PARRAY_TRANS, PARRAY_NOTRANS, 4, 2, 3, 1, a, 3, b, 2, 0, c, 2) ==
             PARRAY_ERR_INVALID,
         "row-major transposed A: lda < m is rejected");
  expect(parray_sgemm_cpu(PARRAY_COL_MAJOR, PARRAY_NOTRANS, PARRAY_NOTRANS, 4, 4, 4, 1, a, 4, b, 4, 0, c, 3) ==
             PARRAY_ERR_INVALID,
         "col-major ldc < m is rejected");
  expect(parray_sgemm_cpu(PARRAY_ROW_MAJOR, PARRAY_NOTRANS, PARRAY_TRANS, 4, 5, 4, 1, a, 4, b, 3, 0, c, 5) ==
             PARRAY_ERR_INVALID,
         "row-major transposed B: ldb < k is rejected");
  expect(parray_sgemm_cpu(PARRAY_ROW_MAJOR, PARRAY_NOTRANS, PARRAY_NOTRANS, -1, 4, 4, 1, a, 4, b, 4, 0, c, 4) ==
             PARRAY_ERR_INVALID,
         "negative m is rejected");
  expect(parray_sgemm_cpu((parray_layout)7, PARRAY_NOTRANS, PARRAY_NOTRANS, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4) ==
             PARRAY_ERR_INVALID,
         "bad order is rejected");
  expect(parray_sgemm_cpu(PARRAY_ROW_MAJOR, (parray_trans)2, PARRAY_NOTRANS, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4) ==
             PARRAY_ERR_INVALID,
         "bad transpose flag is rejected");
  expect(parray_sgemm_cpu(PARRAY_ROW_MAJOR, PARRAY_NOTRANS, PARRAY_NOTRANS, 4, 4, 4, 1, NULL, 4, b, 4, 0, c, 4) ==
             PARRAY_ERR_INVALID,
         "NULL A is rejected");
  expect(parray_sgemm_cpu(PARRAY_ROW_MAJOR, PARRAY_NOTRANS, PARRAY_NOTRANS, 0, 4, 4, 1, NULL, 4, NULL, 4, 0, NULL,
                          4) == PARRAY_OK,
         "m == 0 is a no-op");
  expect(parray_sgemm_cpu(PARRAY_ROW_MAJOR, PARRAY_NOTRANS, PARRAY_NOTRANS, 1, 1, 0, 1, NULL, 1, NULL, 1, 0, c, 1) ==
                 PARRAY_OK &&
             c[0] == 0.0f,
         "k == 0, beta == 0 gives zero");
}

int main(void) {
  ref_seed(12345);
  static const int64_t shapes[][3] = {{1, 1, 1},    {7, 13, 5},  {33, 65, 129}, {70, 3, 300},
                                      {64, 64, 256}, {129, 7, 33}, {5, 5, 0},    {0, 5, 3}};
  const int ns = (int)(sizeof shapes / sizeof shapes[0]);
  for (int o = 0; o < 2; o++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++)
        for (int s = 0; s < ns; s++) {
          const int pad = s % 3 == 1 ? 3 : 0;
          run_case((parray_layout)o, (parray_trans)ta, (parray_trans)tb, shapes[s][0], shapes[s][1], shapes[s][2],
                   pad, 1.0f, 0.0f, 0);
          run_case((parray_layout)o, (parray_trans)ta, (parray_trans)tb, shapes[s][0], shapes[s][1], shapes[s][2],
                   pad + 1, -0.75f, 1.5f, 0);
        }
  run_case(PARRAY_ROW_MAJOR, PARRAY_NOTRANS, PARRAY_NOTRANS, 17, 9, 11, 0, 0.0f, 2.0f, 1);
  run_case(PARRAY_COL_MAJOR, PARRAY_TRANS, PARRAY_NOTRANS, 17, 9, 11, 2, 0.0f, 0.0f, 1);
  run_case(PARRAY_ROW_MAJOR, PARRAY_TRANS, PARRAY_TRANS, 200, 150, 513, 5, 2.5f, 0.0f, 0);
  arg_checks();
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
