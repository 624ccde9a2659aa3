/* kref.h - test support for the kernel library (C and CUDA C++ tests):
 * fresh random data, an independent fp16/bf16 decoder, the float64
 * reference of every built-in operation and cast, and comparison helpers.
 * Header-only (static functions). */
#ifndef PARRAY_TESTS_KREF_H
#define PARRAY_TESTS_KREF_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parray/kernels.h"

static int kr_failures = 0;
#define KR_CHECK(cond, ...)                                   \
  do {                                                        \
    if (!(cond)) {                                            \
      if (kr_failures < 40) {                                 \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);  \
        fprintf(stderr, __VA_ARGS__);                         \
        fputc('\n', stderr);                                  \
      }                                                       \
      kr_failures++;                                          \
    }                                                         \
  } while (0)

/* ---- random numbers: seeded from time and pid unless KR_SEED is set --- */
static uint64_t kr_state = 0;
static uint64_t kr_seed_init(void) {
  const char *s = getenv("KR_SEED");
  uint64_t seed = s ? strtoull(s, NULL, 0) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^ (uint64_t)clock();
  kr_state = seed ? seed : 1;
  printf("seed 0x%llx (set KR_SEED to repeat)\n", (unsigned long long)seed);
  return seed;
}
static uint64_t kr_next(void) { /* xorshift64* */
  kr_state ^= kr_state >> 12;
  kr_state ^= kr_state << 25;
  kr_state ^= kr_state >> 27;
  return kr_state * 2685821657736338717ull;
}
static double kr_unif(void) { return (double)(kr_next() >> 11) * (1.0 / 9007199254740992.0); }

/* ---- independent decoders ------------------------------------------------ */
static double kr_f16_dec(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp((double)(m + 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}
static double kr_bf16_dec(uint16_t h) {
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* value of element k of a buffer of type t as double (ints exact up to 2^53) */
static double kr_get(parray_dtype t, const void *p, int64_t k) {
  switch (t) {
  case PARRAY_F32: return ((const float *)p)[k];
  case PARRAY_F16: return kr_f16_dec(((const uint16_t *)p)[k]);
  case PARRAY_BF16: return kr_bf16_dec(((const uint16_t *)p)[k]);
  case PARRAY_F64: return ((const double *)p)[k];
  case PARRAY_I32: return ((const int32_t *)p)[k];
  case PARRAY_I64: return (double)((const int64_t *)p)[k];
  case PARRAY_I8: return ((const int8_t *)p)[k];
  default: return ((const uint8_t *)p)[k];
  }
}
static int64_t kr_geti(parray_dtype t, const void *p, int64_t k) {
  switch (t) {
  case PARRAY_I32: return ((const int32_t *)p)[k];
  case PARRAY_I64: return ((const int64_t *)p)[k];
  case PARRAY_I8: return ((const int8_t *)p)[k];
  case PARRAY_U8: return ((const uint8_t *)p)[k];
  default: return (int64_t)kr_get(t, p, k);
  }
}
static bool kr_is_float(parray_dtype t) { return t <= PARRAY_F64; }

/* unit in the last place of a value of type t near x (fraction bits, emin) */
static double kr_ulp(parray_dtype t, double x) {
  int mb, emin;
  switch (t) {
  case PARRAY_F16: mb = 10, emin = -14; break;
  case PARRAY_BF16: mb = 7, emin = -126; break;
  case PARRAY_F32: mb = 23, emin = -126; break;
  default: mb = 52, emin = -1022; break;
  }
  int e;
  if (x == 0 || isinf(x) || isnan(x)) return ldexp(1.0, emin - mb);
  (void)frexp(fabs(x), &e);
  e -= 1;
  if (e < emin) e = emin;
  return ldexp(1.0, e - mb);
}

/* ---- random fill --------------------------------------------------------- */
/* Floats: mostly values in [-range, range], with a fraction `special` of NaN,
 * +-Inf, +-0 and tiny (subnormal) values. Ints: uniform in [-irange, irange]
 * (U8: [0, 255], I8: [-128, 127]); irange 0 means the whole type. */
static void kr_fill(parray_dtype t, void *p, int64_t n, double range, double special, int64_t irange) {
  for (int64_t i = 0; i < n; ++i) {
    double v = (2 * kr_unif() - 1) * range;
    if (kr_is_float(t) && kr_unif() < special) {
      switch (kr_next() % 6) {
      case 0: v = NAN; break;
      case 1: v = INFINITY; break;
      case 2: v = -INFINITY; break;
      case 3: v = 0.0; break;
      case 4: v = -0.0; break;
      default: v = ldexp(kr_unif(), t == PARRAY_F16 ? -20 : -130); break;
      }
    }
    switch (t) {
    case PARRAY_F32: ((float *)p)[i] = (float)v; break;
    case PARRAY_F16: ((uint16_t *)p)[i] = parray_f16_from_double(v); break;
    case PARRAY_BF16: ((uint16_t *)p)[i] = parray_bf16_from_double(v); break;
    case PARRAY_F64: ((double *)p)[i] = v; break;
    case PARRAY_I32: {
      int64_t r = irange ? (int64_t)(kr_next() % (uint64_t)(2 * irange + 1)) - irange : (int64_t)(int32_t)kr_next();
      ((int32_t *)p)[i] = (int32_t)r;
      break;
    }
    case PARRAY_I64: {
      int64_t r = irange ? (int64_t)(kr_next() % (uint64_t)(2 * irange + 1)) - irange : (int64_t)kr_next();
      ((int64_t *)p)[i] = r;
      break;
    }
    case PARRAY_I8: ((int8_t *)p)[i] = (int8_t)kr_next(); break;
    default: ((uint8_t *)p)[i] = (uint8_t)kr_next(); break;
    }
  }
}

/* ---- float64 references -------------------------------------------------- */
static double kr_nanmax(double a, double b) { return a != a ? a : (b != b ? b : (b > a ? b : a)); }
static double kr_nanmin(double a, double b) { return a != a ? a : (b != b ? b : (b < a ? b : a)); }

/* floating reference of op on decoded inputs (alpha already rounded to the
 * type's scale precision by the caller) */
static double kr_ref_float(parray_ew_op op, double a, double b, double c, double alpha) {
  switch (op) {
  case PARRAY_OP_RELU: return a < 0 ? 0.0 : a;
  case PARRAY_OP_GELU: return 0.5 * a * erfc(-a / sqrt(2.0));
  case PARRAY_OP_EXP: return exp(a);
  case PARRAY_OP_SCALE: return a * alpha;
  case PARRAY_OP_NEG: return -a;
  case PARRAY_OP_ABS: return fabs(a);
  case PARRAY_OP_ADD: return a + b;
  case PARRAY_OP_SUB: return a - b;
  case PARRAY_OP_MUL: return a * b;
  case PARRAY_OP_DIV: return a / b;
  case PARRAY_OP_MIN: return kr_nanmin(a, b);
  case PARRAY_OP_MAX: return kr_nanmax(a, b);
  default: return fma(a, b, c);
  }
}

/* integer reference with `bits`-bit two's complement wrap */
static int64_t kr_wrap(uint64_t v, int bits) {
  if (bits == 64) return (int64_t)v;
  return (int64_t)(int32_t)(uint32_t)v;
}
static int64_t kr_ref_int(parray_ew_op op, int64_t a, int64_t b, int64_t c, int64_t s, int bits) {
  const uint64_t ua = (uint64_t)a, ub = (uint64_t)b, uc = (uint64_t)c;
  switch (op) {
  case PARRAY_OP_RELU: return a < 0 ? 0 : a;
  case PARRAY_OP_SCALE: return kr_wrap(ua * (uint64_t)s, bits);
  case PARRAY_OP_NEG: return kr_wrap(0 - ua, bits);
  case PARRAY_OP_ABS: return a < 0 ? kr_wrap(0 - ua, bits) : a;
  case PARRAY_OP_ADD: return kr_wrap(ua + ub, bits);
  case PARRAY_OP_SUB: return kr_wrap(ua - ub, bits);
  case PARRAY_OP_MUL: return kr_wrap(ua * ub, bits);
  case PARRAY_OP_DIV: return b == 0 ? 0 : b == -1 ? kr_wrap(0 - ua, bits) : a / b;
  case PARRAY_OP_MIN: return a < b ? a : b;
  case PARRAY_OP_MAX: return a > b ? a : b;
  default: return kr_wrap(ua * ub + uc, bits);
  }
}

/* Is `got` (type t) an acceptable result for the exact value `ref`?
 * ulps: allowed distance in units of the last place of t (0.5 = correctly
 * rounded). NaN must meet NaN, infinities must match, overflow past the
 * largest finite value must give infinity of the right sign. */
static bool kr_close_x(parray_dtype t, double got, double ref, double ulps, double extra) {
  if (isnan(ref)) return isnan(got);
  if (isnan(got)) return false;
  if (isinf(ref)) return got == ref;
  double maxf = t == PARRAY_F16 ? 65504.0 : t == PARRAY_BF16 ? 3.3895313892515355e38 : t == PARRAY_F32 ? 3.4028234663852886e38 : 1.7976931348623157e308;
  if (isinf(got)) /* allowed when ref rounds past the largest value */
    return (got > 0) == (ref > 0) && fabs(ref) >= maxf + (0.5 - 1e-9) * kr_ulp(t, maxf) * (ulps > 0.5 ? 2 * ulps : 1);
  return fabs(got - ref) <= ulps * kr_ulp(t, ref) * (1 + 1e-6) + extra;
}
static bool kr_close(parray_dtype t, double got, double ref, double ulps) { return kr_close_x(t, got, ref, ulps, 0); }

/* Extra error allowed for gelu at x: the argument -x/sqrt(2) is rounded in
 * the working precision (unit roundoff eps) before erfc, and erfc(t) turns a
 * relative change of t into one about 2t^2 = x^2 times larger for t > 0
 * (x < 0); for x > 0 erfc(t < 0) is near 2 and insensitive. */
static double kr_gelu_slack(double x, double eps) {
  if (!(x < 0) || isinf(x)) return 0;
  const double ref = 0.5 * x * erfc(-x / 1.41421356237309504880);
  /* erfc's result may itself be subnormal: its absolute rounding (a subnormal
   * ulp of the working precision) is scaled by 0.5*x */
  const double tiny = eps < 1e-10 ? 4.9406564584124654e-324 : 1.40129846432481707e-45;
  return 4 * (x * x + 1) * eps * fabs(ref) + 2 * fabs(0.5 * x) * tiny;
}
/* unit roundoff of the precision a type's arithmetic is done in */
static double kr_work_eps(parray_dtype t) { return t == PARRAY_F64 ? ldexp(1, -53) : ldexp(1, -24); }

/* value equality with NaN == NaN (for bit-for-bit twins) */
static bool kr_same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

#endif
