/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise_half_cpu.c - software fp16 (IEEE binary16) and bfloat16
 * conversions for the CPU kernels and for tests: exact decoding, and
 * rounding from double to nearest even with correct overflow, subnormals
 * and NaN. */
#include <math.h>
#include <string.h>

#include "parray/kernels.h"

/* Round d to a binary format with `eb` exponent bits and `mb` fraction bits;
 * returns the bit pattern (sign in bit eb+mb). */
static uint16_t round_to_small(double d, int eb, int mb) {
  const int bias = (1 << (eb - 1)) - 1;
  const uint16_t sign = (uint16_t)(signbit(d) ? 1u << (eb + mb) : 0u);
  const uint16_t expmask = (uint16_t)(((1u << eb) - 1u) << mb);
  if (isnan(d)) return (uint16_t)(sign | expmask | (1u << (mb - 1)));
  const double a = fabs(d);
  if (isinf(a)) return (uint16_t)(sign | expmask);
  if (a == 0.0) return sign;
  int e2;
  (void)frexp(a, &e2);
  int E = e2 - 1; /* a in [2^E, 2^(E+1)) */
  const int emin = 1 - bias, emax = bias;
  if (E > emax + 1) return (uint16_t)(sign | expmask);
  const int qexp = (E < emin ? emin : E) - mb;      /* weight of the last kept bit */
  const double r = nearbyint(ldexp(a, -qexp));       /* round to nearest even (default mode) */
  uint32_t R = (uint32_t)r;
  if (E < emin) return (uint16_t)(sign | R); /* subnormal (a carry makes it the least normal) */
  if (R == (1u << (mb + 1))) {
    R >>= 1;
    ++E;
  }
  if (E > emax) return (uint16_t)(sign | expmask);
  return (uint16_t)(sign | ((uint32_t)(E + bias) << mb) | (R - (1u << mb)));
}

uint16_t parray_f16_from_double(double d) { return round_to_small(d, 5, 10); }
uint16_t parray_bf16_from_double(double d) { return round_to_small(d, 8, 7); }
uint16_t parray_f16_from_float(float f) { return round_to_small((double)f, 5, 10); }
uint16_t parray_bf16_from_float(float f) { return round_to_small((double)f, 8, 7); }

float parray_f16_to_float(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 0)
    v = ldexpf((float)m, -24);
  else if (e == 31)
    v = m ? NAN : INFINITY;
  else
    v = ldexpf((float)(m | 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}

float parray_bf16_to_float(uint16_t h) {
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
