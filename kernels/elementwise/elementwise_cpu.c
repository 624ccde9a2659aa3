/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise_cpu.c - CPU twins of the built-in elementwise operations and
 * casts of parray/kernels.h: plain loops with the same results as the GPU
 * kernels (fp16/bf16 decoded to fp32, computed, rounded once to nearest even;
 * wrapping integers; NaN-propagating min/max). Also the operation names. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "parray/kernels.h"

static const char *const ew_names[PARRAY_OP_COUNT] = {"relu", "gelu", "exp", "scale", "neg", "abs", "add",
                                                      "sub",  "mul",  "div", "min",   "max", "fma"};

const char *parray_ew_op_name(parray_ew_op op) {
  return (unsigned)op < PARRAY_OP_COUNT ? ew_names[op] : "?";
}

int parray_ew_op_arity(parray_ew_op op) {
  if ((unsigned)op >= PARRAY_OP_COUNT) return 0;
  if (op <= PARRAY_OP_ABS) return 1;
  if (op <= PARRAY_OP_MAX) return 2;
  return 3;
}

/* ---- floating arithmetic (float for F32/F16/BF16, double for F64) ------- */
#define DEF_FLOAT_OPS(T, SFX, EXP, ERFC, FMA)                                                       \
  static T min_##SFX(T a, T b) { return a != a ? a : (b != b ? b : (b < a ? b : a)); }             \
  static T max_##SFX(T a, T b) { return a != a ? a : (b != b ? b : (b > a ? b : a)); }             \
  static T op1_##SFX(parray_ew_op op, T x, T s) {                                                   \
    switch (op) {                                                                                   \
    case PARRAY_OP_RELU: return x < 0 ? (T)0 : x;                                                   \
    case PARRAY_OP_GELU: return (T)0.5 * x * ERFC(x * (T)-0.70710678118654752440);                   \
    case PARRAY_OP_EXP: return EXP(x);                                                              \
    case PARRAY_OP_SCALE: return x * s;                                                             \
    case PARRAY_OP_NEG: return -x;                                                                  \
    default: return x < 0 ? -x : (x == 0 ? (T)0 : x);                                               \
    }                                                                                               \
  }                                                                                                 \
  static T op2_##SFX(parray_ew_op op, T a, T b) {                                                   \
    switch (op) {                                                                                   \
    case PARRAY_OP_ADD: return a + b;                                                               \
    case PARRAY_OP_SUB: return a - b;                                                               \
    case PARRAY_OP_MUL: return a * b;                                                               \
    case PARRAY_OP_DIV: return a / b;                                                               \
    case PARRAY_OP_MIN: return min_##SFX(a, b);                                                     \
    default: return max_##SFX(a, b);                                                                \
    }                                                                                               \
  }                                                                                                 \
  static T op3_##SFX(T a, T b, T c) { return FMA(a, b, c); }

DEF_FLOAT_OPS(float, f, expf, erfcf, fmaf)
DEF_FLOAT_OPS(double, d, exp, erfc, fma)

/* ---- integer arithmetic on int64 values, wrapped to `bits` ------------- */
static int64_t wrap(uint64_t v, int bits) {
  if (bits == 64) return (int64_t)v;
  const uint64_t m = ((uint64_t)1 << bits) - 1, s = (uint64_t)1 << (bits - 1);
  v &= m;
  return (v & s) ? (int64_t)(v | ~m) : (int64_t)v;
}
static int64_t op1_i(parray_ew_op op, int64_t x, int64_t s, int bits) {
  switch (op) {
  case PARRAY_OP_RELU: return x < 0 ? 0 : x;
  case PARRAY_OP_SCALE: return wrap((uint64_t)x * (uint64_t)s, bits);
  case PARRAY_OP_NEG: return wrap(0u - (uint64_t)x, bits);
  default: return x < 0 ? wrap(0u - (uint64_t)x, bits) : x;
  }
}
static int64_t op2_i(parray_ew_op op, int64_t a, int64_t b, int bits) {
  switch (op) {
  case PARRAY_OP_ADD: return wrap((uint64_t)a + (uint64_t)b, bits);
  case PARRAY_OP_SUB: return wrap((uint64_t)a - (uint64_t)b, bits);
  case PARRAY_OP_MUL: return wrap((uint64_t)a * (uint64_t)b, bits);
  case PARRAY_OP_DIV: return b == 0 ? 0 : b == -1 ? wrap(0u - (uint64_t)a, bits) : a / b;
  case PARRAY_OP_MIN: return b < a ? b : a;
  default: return b > a ? b : a;
  }
}

/* fp16/bf16 fused multiply-add rounded once: the product is exact in double,
 * the sum's rounding error (TwoSum) decides exact ties. */
static uint16_t fma16(float a, float b, float c, bool bf) {
  const double p = (double)a * (double)b, s = p + (double)c;
  const double bb = s - p, err = (p - (s - bb)) + ((double)c - bb);
  double t = s;
  if (err > 0) t = nextafter(s, INFINITY);
  if (err < 0) t = nextafter(s, -INFINITY);
  return bf ? parray_bf16_from_double(t) : parray_f16_from_double(t);
}

static float ld16(const uint16_t *p, int64_t i, bool bf) {
  return bf ? parray_bf16_to_float(p[i]) : parray_f16_to_float(p[i]);
}
static uint16_t st16(float f, bool bf) { return bf ? parray_bf16_from_float(f) : parray_f16_from_float(f); }

static parray_status check(const char *what, int64_t n, const void *y, const void *a, const void *b, const void *c) {
  if (n < 0) {
    parray_set_error("%s: negative element count %lld", what, (long long)n);
    return PARRAY_ERR_INVALID;
  }
  if (n > 0 && (!y || !a || !b || !c)) {
    parray_set_error("%s: null pointer", what);
    return PARRAY_ERR_INVALID;
  }
  return PARRAY_OK;
}

static parray_status unsupported(const char *what, parray_ew_op op, parray_dtype dt) {
  parray_set_error("%s: %s on %s is not supported", what, parray_ew_op_name(op), parray_dtype_name(dt));
  return PARRAY_ERR_UNSUPPORTED;
}

parray_status parray_unary_cpu(parray_ew_op op, parray_dtype dt, void *y, const void *x, int64_t n, double alpha) {
  parray_status st = check("parray_unary_cpu", n, y, x, x, x);
  if (st != PARRAY_OK) return st;
  if (parray_ew_op_arity(op) != 1) {
    parray_set_error("parray_unary_cpu: %s is not a unary operation", parray_ew_op_name(op));
    return PARRAY_ERR_INVALID;
  }
  const bool fonly = op == PARRAY_OP_GELU || op == PARRAY_OP_EXP;
  switch (dt) {
  case PARRAY_F32: {
    float *o = y;
    const float *p = x;
    for (int64_t i = 0; i < n; ++i) o[i] = op1_f(op, p[i], (float)alpha);
    return PARRAY_OK;
  }
  case PARRAY_F64: {
    double *o = y;
    const double *p = x;
    for (int64_t i = 0; i < n; ++i) o[i] = op1_d(op, p[i], alpha);
    return PARRAY_OK;
  }
  case PARRAY_F16:
  case PARRAY_BF16: {
    const bool bf = dt == PARRAY_BF16;
    uint16_t *o = y;
    const uint16_t *p = x;
    for (int64_t i = 0; i < n; ++i) {
      const float v = ld16(p, i, bf);
      /* neg/abs only touch the sign bit */
      if (op == PARRAY_OP_NEG)
        o[i] = (uint16_t)(p[i] ^ 0x8000u);
      else if (op == PARRAY_OP_ABS)
        o[i] = (uint16_t)(p[i] & 0x7fffu);
      else
        o[i] = st16(op1_f(op, v, (float)alpha), bf);
    }
    return PARRAY_OK;
  }
  case PARRAY_I32:
  case PARRAY_I64: {
    if (fonly) return unsupported("parray_unary_cpu", op, dt);
    const int bits = dt == PARRAY_I32 ? 32 : 64;
    int64_t s = 0;
    if (op == PARRAY_OP_SCALE) {
      const double lim = bits == 32 ? 2147483648.0 : 9223372036854775808.0;
      if (!(alpha == floor(alpha)) || alpha < -lim || alpha >= lim) {
        parray_set_error("parray_unary_cpu: scale factor %g is not an integer of type %s", alpha,
                         parray_dtype_name(dt));
        return PARRAY_ERR_INVALID;
      }
      s = (int64_t)alpha;
    }
    if (bits == 32) {
      int32_t *o = y;
      const int32_t *p = x;
      for (int64_t i = 0; i < n; ++i) o[i] = (int32_t)op1_i(op, p[i], s, 32);
    } else {
      int64_t *o = y;
      const int64_t *p = x;
      for (int64_t i = 0; i < n; ++i) o[i] = op1_i(op, p[i], s, 64);
    }
    return PARRAY_OK;
  }
  default: return unsupported("parray_unary_cpu", op, dt);
  }
}

parray_status parray_binary_cpu(parray_ew_op op, parray_dtype dt, void *y, const void *a, const void *b, int64_t n) {
  parray_status st = check("parray_binary_cpu", n, y, a, b, a);
  if (st != PARRAY_OK) return st;
  if (parray_ew_op_arity(op) != 2) {
    parray_set_error("parray_binary_cpu: %s is not a binary operation", parray_ew_op_name(op));
    return PARRAY_ERR_INVALID;
  }
  switch (dt) {
  case PARRAY_F32: {
    float *o = y;
    const float *p = a, *q = b;
    for (int64_t i = 0; i < n; ++i) o[i] = op2_f(op, p[i], q[i]);
    return PARRAY_OK;
  }
  case PARRAY_F64: {
    double *o = y;
    const double *p = a, *q = b;
    for (int64_t i = 0; i < n; ++i) o[i] = op2_d(op, p[i], q[i]);
    return PARRAY_OK;
  }
  case PARRAY_F16:
  case PARRAY_BF16: {
    const bool bf = dt == PARRAY_BF16;
    uint16_t *o = y;
    const uint16_t *p = a, *q = b;
    for (int64_t i = 0; i < n; ++i) o[i] = st16(op2_f(op, ld16(p, i, bf), ld16(q, i, bf)), bf);
    return PARRAY_OK;
  }
  case PARRAY_I32: {
    int32_t *o = y;
    const int32_t *p = a, *q = b;
    for (int64_t i = 0; i < n; ++i) o[i] = (int32_t)op2_i(op, p[i], q[i], 32);
    return PARRAY_OK;
  }
  case PARRAY_I64: {
    int64_t *o = y;
    const int64_t *p = a, *q = b;
    for (int64_t i = 0; i < n; ++i) o[i] = op2_i(op, p[i], q[i], 64);
    return PARRAY_OK;
  }
  default: return unsupported("parray_binary_cpu", op, dt);
  }
}

parray_status parray_ternary_cpu(parray_ew_op op, parray_dtype dt, void *y, const void *a, const void *b,
                                 const void *c, int64_t n) {
  parray_status st = check("parray_ternary_cpu", n, y, a, b, c);
  if (st != PARRAY_OK) return st;
  if (op != PARRAY_OP_FMA) {
    parray_set_error("parray_ternary_cpu: %s is not a ternary operation", parray_ew_op_name(op));
    return PARRAY_ERR_INVALID;
  }
  switch (dt) {
  case PARRAY_F32: {
    float *o = y;
    const float *p = a, *q = b, *r = c;
    for (int64_t i = 0; i < n; ++i) o[i] = op3_f(p[i], q[i], r[i]);
    return PARRAY_OK;
  }
  case PARRAY_F64: {
    double *o = y;
    const double *p = a, *q = b, *r = c;
    for (int64_t i = 0; i < n; ++i) o[i] = op3_d(p[i], q[i], r[i]);
    return PARRAY_OK;
  }
  case PARRAY_F16:
  case PARRAY_BF16: {
    const bool bf = dt == PARRAY_BF16;
    uint16_t *o = y;
    const uint16_t *p = a, *q = b, *r = c;
    for (int64_t i = 0; i < n; ++i) o[i] = fma16(ld16(p, i, bf), ld16(q, i, bf), ld16(r, i, bf), bf);
    return PARRAY_OK;
  }
  case PARRAY_I32: {
    int32_t *o = y;
    const int32_t *p = a, *q = b, *r = c;
    for (int64_t i = 0; i < n; ++i) o[i] = (int32_t)wrap((uint64_t)p[i] * (uint64_t)q[i] + (uint64_t)r[i], 32);
    return PARRAY_OK;
  }
  case PARRAY_I64: {
    int64_t *o = y;
    const int64_t *p = a, *q = b, *r = c;
    for (int64_t i = 0; i < n; ++i) o[i] = wrap((uint64_t)p[i] * (uint64_t)q[i] + (uint64_t)r[i], 64);
    return PARRAY_OK;
  }
  default: return unsupported("parray_ternary_cpu", op, dt);
  }
}

/* ---- casts --------------------------------------------------------------- */
typedef struct val {
  bool is_int;
  int64_t i;
  double d;
} val;

static val get(parray_dtype t, const void *p, int64_t k) {
  val v = {false, 0, 0.0};
  switch (t) {
  case PARRAY_F32: v.d = ((const float *)p)[k]; break;
  case PARRAY_F16: v.d = parray_f16_to_float(((const uint16_t *)p)[k]); break;
  case PARRAY_BF16: v.d = parray_bf16_to_float(((const uint16_t *)p)[k]); break;
  case PARRAY_F64: v.d = ((const double *)p)[k]; break;
  case PARRAY_I32: v.is_int = true, v.i = ((const int32_t *)p)[k]; break;
  case PARRAY_I64: v.is_int = true, v.i = ((const int64_t *)p)[k]; break;
  case PARRAY_I8: v.is_int = true, v.i = ((const int8_t *)p)[k]; break;
  default: v.is_int = true, v.i = ((const uint8_t *)p)[k]; break;
  }
  return v;
}

/* float -> integer: truncate, saturate to [lo, hi], NaN -> 0 */
static int64_t f2i(double d, int64_t lo, int64_t hi) {
  if (d != d) return 0;
  if (d <= (double)lo) return lo;
  if (d >= (double)hi) return hi;
  return (int64_t)d;
}

static void put(parray_dtype t, void *p, int64_t k, val v) {
  switch (t) {
  case PARRAY_F32: ((float *)p)[k] = v.is_int ? (float)v.i : (float)v.d; break;
  case PARRAY_F64: ((double *)p)[k] = v.is_int ? (double)v.i : v.d; break;
  case PARRAY_F16:
    ((uint16_t *)p)[k] = v.is_int ? parray_f16_from_float((float)v.i) : parray_f16_from_double(v.d);
    break;
  case PARRAY_BF16:
    ((uint16_t *)p)[k] = v.is_int ? parray_bf16_from_float((float)v.i) : parray_bf16_from_double(v.d);
    break;
  case PARRAY_I32: ((int32_t *)p)[k] = (int32_t)(v.is_int ? wrap((uint64_t)v.i, 32) : f2i(v.d, INT32_MIN, INT32_MAX)); break;
  case PARRAY_I64: ((int64_t *)p)[k] = v.is_int ? v.i : f2i(v.d, INT64_MIN, INT64_MAX); break;
  case PARRAY_I8: ((int8_t *)p)[k] = (int8_t)(v.is_int ? wrap((uint64_t)v.i, 8) : f2i(v.d, -128, 127)); break;
  default: ((uint8_t *)p)[k] = (uint8_t)(v.is_int ? (uint64_t)v.i & 0xffu : (uint64_t)f2i(v.d, 0, 255)); break;
  }
}

parray_status parray_cast_cpu(parray_dtype ydt, void *y, parray_dtype xdt, const void *x, int64_t n) {
  parray_status st = check("parray_cast_cpu", n, y, x, x, x);
  if (st != PARRAY_OK) return st;
  if ((unsigned)ydt >= PARRAY_DTYPE_COUNT || (unsigned)xdt >= PARRAY_DTYPE_COUNT) {
    parray_set_error("parray_cast_cpu: bad element type");
    return PARRAY_ERR_INVALID;
  }
  if (ydt == xdt) {
    if (y != x && n > 0) memmove(y, x, (size_t)n * parray_dtype_size(xdt));
    return PARRAY_OK;
  }
  /* in place with a wider destination would overwrite unread input */
  if (y == x && parray_dtype_size(ydt) > parray_dtype_size(xdt)) {
    for (int64_t i = n - 1; i >= 0; --i) put(ydt, y, i, get(xdt, x, i));
    return PARRAY_OK;
  }
  for (int64_t i = 0; i < n; ++i) put(ydt, y, i, get(xdt, x, i));
  return PARRAY_OK;
}
