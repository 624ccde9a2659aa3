/* test_kernels_cpu.c - CPU twins of the kernel library against float64 and
 * int64 references on fresh random data: fp16/bf16 conversions (exhaustive
 * decoding, rounding ties, overflow, subnormals), every elementwise operation
 * on every type at odd sizes with NaN/Inf/zero/subnormal inputs, all 56
 * casts, the reductions (whole array, padded rows, columns) and argument
 * errors. Runs in CI in well under a second. */
#include "kref.h"

static const parray_dtype kTypes[6] = {PARRAY_F32, PARRAY_F16, PARRAY_BF16, PARRAY_F64, PARRAY_I32, PARRAY_I64};

static void test_half_conversions(void) {
  int bad = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const double d = kr_f16_dec((uint16_t)h);
    const float f = parray_f16_to_float((uint16_t)h);
    if (!kr_same(d, f)) bad++;
    if (!isnan(d) && parray_f16_from_double(d) != h) bad++;
    if (!isnan(d) && parray_f16_from_float(f) != h) bad++;
    if (isnan(d) && !isnan(kr_f16_dec(parray_f16_from_double(d)))) bad++;
    const double b = kr_bf16_dec((uint16_t)h);
    if (!kr_same(b, parray_bf16_to_float((uint16_t)h))) bad++;
    if (!isnan(b) && parray_bf16_from_double(b) != h) bad++;
  }
  KR_CHECK(bad == 0, "%d fp16/bf16 round trips wrong", bad);
  /* ties to even, overflow, subnormals */
  KR_CHECK(parray_f16_from_double(1.0 + ldexp(1, -11)) == 0x3c00, "tie down to even");
  KR_CHECK(parray_f16_from_double(1.0 + 3 * ldexp(1, -11)) == 0x3c02, "tie up to even");
  KR_CHECK(parray_f16_from_double(1.0 + ldexp(1, -11) + ldexp(1, -40)) == 0x3c01, "above tie");
  KR_CHECK(parray_f16_from_double(65519.0) == 0x7bff, "65519 -> 65504");
  KR_CHECK(parray_f16_from_double(65520.0) == 0x7c00, "65520 -> inf");
  KR_CHECK(parray_f16_from_double(-1e10) == 0xfc00, "-1e10 -> -inf");
  KR_CHECK(parray_f16_from_double(ldexp(1, -25)) == 0x0000, "2^-25 ties to 0");
  KR_CHECK(parray_f16_from_double(ldexp(1.5, -25)) == 0x0001, "1.5*2^-25 -> least subnormal");
  KR_CHECK(parray_f16_from_double(ldexp(1023.5, -24)) == 0x0400, "carry into least normal");
  KR_CHECK(parray_bf16_from_double(3.4e38) == 0x7f80, "bf16 3.4e38 -> inf");
  KR_CHECK(parray_bf16_from_double(1.0 + ldexp(1, -8)) == 0x3f80, "bf16 tie to even");
  KR_CHECK(parray_bf16_from_double(ldexp(1, -133)) == 0x0001, "bf16 least subnormal");
  /* random doubles: the result is a nearest value */
  for (int i = 0; i < 20000; ++i) {
    const double d = (2 * kr_unif() - 1) * ldexp(1.0, (int)(kr_next() % 40) - 26);
    const uint16_t h = parray_f16_from_double(d);
    KR_CHECK(kr_close(PARRAY_F16, kr_f16_dec(h), d, 0.5), "f16 rounding of %.17g gave %g", d, kr_f16_dec(h));
    const uint16_t g = parray_bf16_from_double(d * 1e20);
    KR_CHECK(kr_close(PARRAY_BF16, kr_bf16_dec(g), d * 1e20, 0.5), "bf16 rounding of %.17g", d * 1e20);
  }
}

/* Tolerance (ulps of the type) for a floating result of op. */
static double float_ulps(parray_ew_op op, parray_dtype t) {
  const bool h = t == PARRAY_F16 || t == PARRAY_BF16;
  if (op == PARRAY_OP_EXP || op == PARRAY_OP_GELU) return t == PARRAY_F32 ? 8.0 : t == PARRAY_F64 ? 8.0 : 0.51;
  if (op == PARRAY_OP_SCALE && h) return 0.51; /* fp32 product, then rounded to 16 bits */
  return 0.5;
}

static void test_elementwise(void) {
  const int64_t sizes[] = {0, 1, 7, 33, 1001};
  const size_t maxn = 1001;
  for (int ti = 0; ti < 6; ++ti) {
    const parray_dtype t = kTypes[ti];
    const size_t es = parray_dtype_size(t);
    char *a = malloc(maxn * es), *b = malloc(maxn * es), *c = malloc(maxn * es), *y = malloc(maxn * es);
    for (int op = 0; op < PARRAY_OP_COUNT; ++op) {
      const int ar = parray_ew_op_arity((parray_ew_op)op);
      const bool fonly = op == PARRAY_OP_GELU || op == PARRAY_OP_EXP;
      for (size_t si = 0; si < sizeof sizes / sizeof *sizes; ++si) {
        const int64_t n = sizes[si];
        const double range = op == PARRAY_OP_EXP ? 12.0 : t == PARRAY_F16 ? 200.0 : 1e4;
        kr_fill(t, a, (int64_t)maxn, range, 0.05, 1000);
        kr_fill(t, b, (int64_t)maxn, range, 0.05, 1000);
        kr_fill(t, c, (int64_t)maxn, range, 0.05, 1000);
        if (op == PARRAY_OP_DIV && t == PARRAY_I32) ((int32_t *)b)[0] = 0, ((int32_t *)b)[1] = -1;
        if (op == PARRAY_OP_DIV && t == PARRAY_I64) ((int64_t *)b)[0] = 0, ((int64_t *)b)[1] = -1;
        const double alpha = t == PARRAY_I32 || t == PARRAY_I64 ? -3.0 : 0.3;
        memset(y, 0xa5, maxn * es);
        parray_status st;
        if (ar == 1)
          st = parray_unary_cpu((parray_ew_op)op, t, y, a, n, alpha);
        else if (ar == 2)
          st = parray_binary_cpu((parray_ew_op)op, t, y, a, b, n);
        else
          st = parray_ternary_cpu((parray_ew_op)op, t, y, a, b, c, n);
        if (fonly && !kr_is_float(t)) {
          KR_CHECK(st == PARRAY_ERR_UNSUPPORTED, "%s on %s should be unsupported", parray_ew_op_name(op),
                   parray_dtype_name(t));
          continue;
        }
        KR_CHECK(st == PARRAY_OK, "%s %s: %s", parray_ew_op_name(op), parray_dtype_name(t), parray_last_error());
        for (int64_t i = 0; i < n; ++i) {
          if (kr_is_float(t)) {
            const double sa = t == PARRAY_F64 ? alpha : (double)(float)alpha;
            const double ref = kr_ref_float((parray_ew_op)op, kr_get(t, a, i), kr_get(t, b, i), kr_get(t, c, i), sa);
            const double got = kr_get(t, y, i);
            const double slack = op == PARRAY_OP_GELU ? kr_gelu_slack(kr_get(t, a, i), kr_work_eps(t)) : 0;
            KR_CHECK(kr_close_x(t, got, ref, float_ulps((parray_ew_op)op, t), slack),
                     "%s %s n=%lld i=%lld: got %.17g want %.17g",
                     parray_ew_op_name(op), parray_dtype_name(t), (long long)n, (long long)i, got, ref);
          } else {
            const int bits = t == PARRAY_I32 ? 32 : 64;
            const int64_t ref = kr_ref_int((parray_ew_op)op, kr_geti(t, a, i), kr_geti(t, b, i), kr_geti(t, c, i),
                                           (int64_t)alpha, bits);
            KR_CHECK(kr_geti(t, y, i) == ref, "%s %s i=%lld: got %lld want %lld", parray_ew_op_name(op),
                     parray_dtype_name(t), (long long)i, (long long)kr_geti(t, y, i), (long long)ref);
          }
        }
        /* nothing written past n */
        for (size_t k = (size_t)n * es; k < maxn * es; ++k)
          if ((unsigned char)y[k] != 0xa5) {
            KR_CHECK(0, "%s %s wrote past n=%lld", parray_ew_op_name(op), parray_dtype_name(t), (long long)n);
            break;
          }
      }
    }
    /* integer wrap-around corner cases */
    if (t == PARRAY_I32) {
      int32_t p[3] = {INT32_MIN, INT32_MAX, 7}, q[3] = {-1, 1, 0}, r[3];
      parray_binary_cpu(PARRAY_OP_DIV, t, r, p, q, 3);
      KR_CHECK(r[0] == INT32_MIN && r[1] == INT32_MAX && r[2] == 0, "i32 div corners");
      parray_binary_cpu(PARRAY_OP_ADD, t, r, p, q, 3);
      KR_CHECK(r[0] == INT32_MAX && r[1] == INT32_MIN, "i32 add wraps");
      KR_CHECK(parray_unary_cpu(PARRAY_OP_SCALE, t, r, p, 3, 0.5) == PARRAY_ERR_INVALID, "non-integral scale");
    }
    free(a), free(b), free(c), free(y);
  }
  /* in-place */
  float v[5] = {1, -2, 3, -4, 5};
  parray_unary_cpu(PARRAY_OP_RELU, PARRAY_F32, v, v, 5, 0);
  KR_CHECK(v[1] == 0 && v[4] == 5, "in-place relu");
}

/* expected cast of decoded/integer source value, by the documented rules */
static void cast_expect(parray_dtype to, parray_dtype from, const void *x, int64_t i, double *fv, int64_t *iv) {
  if (kr_is_float(from)) {
    const double d = kr_get(from, x, i);
    if (kr_is_float(to)) {
      *fv = to == PARRAY_F64 ? d
            : to == PARRAY_F32 ? (double)(float)d
            : to == PARRAY_F16 ? kr_f16_dec(parray_f16_from_double(d))
                               : kr_bf16_dec(parray_bf16_from_double(d));
    } else {
      const double lo = to == PARRAY_I32 ? -2147483648.0 : to == PARRAY_I64 ? -9223372036854775808.0 : to == PARRAY_I8 ? -128 : 0;
      const double hi = to == PARRAY_I32 ? 2147483647.0 : to == PARRAY_I64 ? 9223372036854775807.0 : to == PARRAY_I8 ? 127 : 255;
      *iv = isnan(d) ? 0 : d <= lo ? (int64_t)lo : d >= hi ? (to == PARRAY_I64 ? INT64_MAX : (int64_t)hi) : (int64_t)trunc(d);
    }
  } else {
    const int64_t v = kr_geti(from, x, i);
    if (kr_is_float(to)) {
      const float f = (float)v;
      *fv = to == PARRAY_F64 ? (double)v
            : to == PARRAY_F32 ? (double)f
            : to == PARRAY_F16 ? kr_f16_dec(parray_f16_from_double(f))
                               : kr_bf16_dec(parray_bf16_from_double(f));
    } else {
      *iv = to == PARRAY_I64 ? v : to == PARRAY_I32 ? (int64_t)(int32_t)(uint32_t)v
                                 : to == PARRAY_I8  ? (int64_t)(int8_t)(uint8_t)v
                                                    : (int64_t)(uint8_t)v;
    }
  }
}

static void test_casts(void) {
  const int64_t n = 515;
  char x[515 * 8], y[515 * 8];
  for (int from = 0; from < PARRAY_DTYPE_COUNT; ++from)
    for (int to = 0; to < PARRAY_DTYPE_COUNT; ++to) {
      const parray_dtype f = (parray_dtype)from, t = (parray_dtype)to;
      const double range = kr_unif() < 0.5 ? 300.0 : 3e9; /* in and out of integer ranges */
      kr_fill(f, x, n, f == PARRAY_F16 ? 6e4 : range, 0.05, 0);
      memset(y, 0x5a, sizeof y);
      KR_CHECK(parray_cast_cpu(t, y, f, x, n) == PARRAY_OK, "cast %s->%s", parray_dtype_name(f), parray_dtype_name(t));
      for (int64_t i = 0; i < n; ++i) {
        double fv = 0;
        int64_t iv = 0;
        cast_expect(t, f, x, i, &fv, &iv);
        if (kr_is_float(t))
          KR_CHECK(kr_same(kr_get(t, y, i), fv), "cast %s->%s i=%lld: %.17g -> %.17g want %.17g", parray_dtype_name(f),
                   parray_dtype_name(t), (long long)i, kr_get(f, x, i), kr_get(t, y, i), fv);
        else
          KR_CHECK(kr_geti(t, y, i) == iv, "cast %s->%s i=%lld: %.17g -> %lld want %lld", parray_dtype_name(f),
                   parray_dtype_name(t), (long long)i, kr_get(f, x, i), (long long)kr_geti(t, y, i), (long long)iv);
      }
    }
}

/* float64/int64 reference reduction of n elements at p with stride s */
static void ref_reduce(parray_reduce_op op, parray_dtype t, const void *p, int64_t n, int64_t s, double *fv,
                       int64_t *iv, double *absum) {
  double d = op == PARRAY_REDUCE_MAX ? -INFINITY : op == PARRAY_REDUCE_MIN ? INFINITY : 0.0;
  int64_t k = op == PARRAY_REDUCE_MAX ? INT64_MIN : op == PARRAY_REDUCE_MIN ? INT64_MAX : 0;
  double ab = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = kr_get(t, p, i * s);
    const int64_t w = kr_geti(t, p, i * s);
    ab += fabs(v);
    if (op == PARRAY_REDUCE_MAX) d = kr_nanmax(d, v), k = w > k ? w : k;
    else if (op == PARRAY_REDUCE_MIN) d = kr_nanmin(d, v), k = w < k ? w : k;
    else d += v, k = (int64_t)((uint64_t)k + (uint64_t)w);
  }
  if (op == PARRAY_REDUCE_MEAN) d /= (double)n, ab /= (double)n;
  *fv = kr_is_float(t) ? d : (op == PARRAY_REDUCE_MEAN ? (double)k / (double)n : (double)k);
  *iv = k;
  *absum = ab;
}

static void check_reduced(const char *what, parray_reduce_op op, parray_dtype xt, parray_dtype yt, double got,
                          int64_t goti, double ref, int64_t refi, double absum, int64_t idx) {
  if (!kr_is_float(xt) && op != PARRAY_REDUCE_MEAN && !kr_is_float(yt)) {
    const int64_t want = yt == PARRAY_I32 ? (int64_t)(int32_t)(uint32_t)refi : refi;
    KR_CHECK(goti == want, "%s %s %s->%s [%lld]: %lld want %lld", what, parray_reduce_op_name(op),
             parray_dtype_name(xt), parray_dtype_name(yt), (long long)idx, (long long)goti, (long long)want);
    return;
  }
  const double tol = 0.5 * kr_ulp(yt, ref) + absum * 1e-11;
  const bool ok = isnan(ref) ? isnan(got) : (isinf(ref) ? got == ref : fabs(got - ref) <= tol * (1 + 1e-9));
  KR_CHECK(ok, "%s %s %s->%s [%lld]: %.17g want %.17g", what, parray_reduce_op_name(op), parray_dtype_name(xt),
           parray_dtype_name(yt), (long long)idx, got, ref);
}

static void test_reductions(void) {
  enum { MAXE = 40000 };
  static char x[MAXE * 8], y[4096 * 8];
  for (int ti = 0; ti < 6; ++ti) {
    const parray_dtype t = kTypes[ti];
    for (int op = 0; op < PARRAY_REDUCE_COUNT; ++op) {
      const parray_dtype yt = (op == PARRAY_REDUCE_MEAN || t == PARRAY_F16 || t == PARRAY_BF16) ? PARRAY_F64 : t;
      kr_fill(t, x, MAXE, 100.0, op >= PARRAY_REDUCE_MAX ? 0.001 : 0.0, 1000000);
      /* whole array */
      const int64_t ns[] = {1, 3, 1000, 16385, MAXE};
      for (int k = 0; k < 5; ++k) {
        double ref, ab;
        int64_t refi;
        ref_reduce((parray_reduce_op)op, t, x, ns[k], 1, &ref, &refi, &ab);
        KR_CHECK(parray_reduce_all_cpu((parray_reduce_op)op, yt, y, t, x, ns[k], NULL, 0) == PARRAY_OK, "all");
        check_reduced("all", (parray_reduce_op)op, t, yt, kr_get(yt, y, 0), kr_geti(yt, y, 0), ref, refi, ab, 0);
      }
      /* rows, padded: 37 rows of 29 elements, stride 40 */
      const int64_t R = 37, C = 29, S = 40;
      KR_CHECK(parray_reduce_rows_cpu((parray_reduce_op)op, yt, y, t, x, R, C, S) == PARRAY_OK, "rows");
      for (int64_t r = 0; r < R; ++r) {
        double ref, ab;
        int64_t refi;
        ref_reduce((parray_reduce_op)op, t, (const char *)x + r * S * parray_dtype_size(t), C, 1, &ref, &refi, &ab);
        check_reduced("rows", (parray_reduce_op)op, t, yt, kr_get(yt, y, r), kr_geti(yt, y, r), ref, refi, ab, r);
      }
      /* columns: 301 rows of 23 columns, stride 25 */
      const int64_t R2 = 301, C2 = 23, S2 = 25;
      KR_CHECK(parray_reduce_cols_cpu((parray_reduce_op)op, yt, y, t, x, R2, C2, S2, NULL, 0) == PARRAY_OK, "cols");
      for (int64_t c = 0; c < C2; ++c) {
        double ref, ab;
        int64_t refi;
        ref_reduce((parray_reduce_op)op, t, (const char *)x + c * parray_dtype_size(t), R2, S2, &ref, &refi, &ab);
        check_reduced("cols", (parray_reduce_op)op, t, yt, kr_get(yt, y, c), kr_geti(yt, y, c), ref, refi, ab, c);
      }
    }
  }
  /* NaN propagation, output conversion, empty sets */
  float v[4] = {1, NAN, 3, -INFINITY};
  float r = 0;
  parray_reduce_all_cpu(PARRAY_REDUCE_MAX, PARRAY_F32, &r, PARRAY_F32, v, 4, NULL, 0);
  KR_CHECK(isnan(r), "max with NaN");
  parray_reduce_all_cpu(PARRAY_REDUCE_MIN, PARRAY_F32, &r, PARRAY_F32, v, 1, NULL, 0);
  KR_CHECK(r == 1, "min of one");
  parray_reduce_all_cpu(PARRAY_REDUCE_SUM, PARRAY_F32, &r, PARRAY_F32, v + 2, 2, NULL, 0);
  KR_CHECK(r == -INFINITY, "sum with -inf");
  int32_t big[3] = {INT32_MAX, INT32_MAX, 2}, s32 = 0;
  int64_t s64 = 0;
  parray_reduce_all_cpu(PARRAY_REDUCE_SUM, PARRAY_I64, &s64, PARRAY_I32, big, 3, NULL, 0);
  KR_CHECK(s64 == 2LL * INT32_MAX + 2, "i32 sum accumulates in int64");
  parray_reduce_all_cpu(PARRAY_REDUCE_SUM, PARRAY_I32, &s32, PARRAY_I32, big, 3, NULL, 0);
  KR_CHECK(s32 == (int32_t)(uint32_t)(2ull * INT32_MAX + 2), "i32 sum to i32 wraps");
  uint16_t h = 0;
  float many[3] = {60000, 60000, 60000};
  parray_reduce_all_cpu(PARRAY_REDUCE_SUM, PARRAY_F16, &h, PARRAY_F32, many, 3, NULL, 0);
  KR_CHECK(h == 0x7c00, "sum converted to f16 overflows to inf");
  KR_CHECK(parray_reduce_all_cpu(PARRAY_REDUCE_SUM, PARRAY_F32, &r, PARRAY_F32, v, 0, NULL, 0) == PARRAY_OK && r == 0,
           "empty sum");
  KR_CHECK(parray_reduce_all_cpu(PARRAY_REDUCE_MAX, PARRAY_F32, &r, PARRAY_F32, v, 0, NULL, 0) == PARRAY_ERR_INVALID,
           "empty max");
  KR_CHECK(strcmp(parray_last_error(), "parray_reduce_all_cpu: max of an empty set") == 0, "error text: %s",
           parray_last_error());
  /* the argument rules are the GPU reductions' (runtime/reduce_args.h) */
  KR_CHECK(parray_reduce_rows_cpu(PARRAY_REDUCE_SUM, PARRAY_F32, NULL, PARRAY_F32, v, 2, 2, 2) == PARRAY_ERR_INVALID &&
               strcmp(parray_last_error(), "parray_reduce_rows_cpu: null output") == 0,
           "null output: %s", parray_last_error());
  KR_CHECK(parray_reduce_cols_cpu(PARRAY_REDUCE_SUM, PARRAY_F32, &r, PARRAY_F32, NULL, 2, 1, 1, NULL, 0) ==
                   PARRAY_ERR_INVALID &&
               strcmp(parray_last_error(), "parray_reduce_cols_cpu: null input") == 0,
           "null input: %s", parray_last_error());
  KR_CHECK(parray_reduce_rows_cpu(PARRAY_REDUCE_SUM, PARRAY_F32, &r, PARRAY_F32, v, 2, 3, 2) == PARRAY_ERR_INVALID,
           "stride < cols");
  KR_CHECK(strcmp(parray_last_error(), "parray_reduce_rows_cpu: row stride 2 < cols 3") == 0, "error text: %s",
           parray_last_error());
  KR_CHECK(parray_reduce_all_cpu(PARRAY_REDUCE_SUM, PARRAY_F32, &r, PARRAY_U8, v, 4, NULL, 0) ==
               PARRAY_ERR_UNSUPPORTED,
           "u8 reduction unsupported");
}

static void test_errors(void) {
  float a[2] = {1, 2}, y[2];
  KR_CHECK(parray_binary_cpu(PARRAY_OP_ADD, PARRAY_F32, y, a, NULL, 2) == PARRAY_ERR_INVALID, "null b");
  KR_CHECK(parray_binary_cpu(PARRAY_OP_ADD, PARRAY_F32, y, a, a, -1) == PARRAY_ERR_INVALID, "negative n");
  KR_CHECK(parray_binary_cpu(PARRAY_OP_RELU, PARRAY_F32, y, a, a, 2) == PARRAY_ERR_INVALID, "relu is unary");
  KR_CHECK(parray_binary_cpu(PARRAY_OP_ADD, PARRAY_U8, y, a, a, 2) == PARRAY_ERR_UNSUPPORTED, "u8 add");
  KR_CHECK(parray_ternary_cpu(PARRAY_OP_ADD, PARRAY_F32, y, a, a, a, 2) == PARRAY_ERR_INVALID, "add not ternary");
  KR_CHECK(parray_cast_cpu((parray_dtype)99, y, PARRAY_F32, a, 2) == PARRAY_ERR_INVALID, "bad dtype");
  KR_CHECK(parray_binary_cpu(PARRAY_OP_ADD, PARRAY_F32, NULL, NULL, NULL, 0) == PARRAY_OK, "n == 0 with nulls");
  KR_CHECK(strlen(parray_last_error()) > 0, "error text set");
  KR_CHECK(parray_reduce_all_workspace(PARRAY_F32, 1 << 28) >= 256 + 8 * ((1 << 28) / 16384), "workspace size");
  KR_CHECK(parray_reduce_cols_workspace(PARRAY_F32, 1 << 20, 32) >= 256 * 32 * 4, "cols workspace size");
}

int main(void) {
  kr_seed_init();
  test_half_conversions();
  test_elementwise();
  test_casts();
  test_reductions();
  test_errors();
  if (kr_failures) {
    fprintf(stderr, "%d failures\n", kr_failures);
    return 1;
  }
  printf("kernels cpu: all checks passed\n");
  return 0;
}
