/* permute_test.h - what the permute tests (permute_cpu_test.c,
 * permute_gpu_test.cu; C and C++) share: the CHECK macro and its counters,
 * and the random numbers, permutations and strided layouts. Define
 * PERMUTE_RAND_SEED before including it: each test keeps its own xorshift
 * sequence. */
#ifndef PARRAY_TESTS_PERMUTE_TEST_H
#define PARRAY_TESTS_PERMUTE_TEST_H

#include <stdint.h>
#include <stdio.h>

#ifndef PERMUTE_RAND_SEED
#error "define PERMUTE_RAND_SEED (nonzero) before including permute_test.h"
#endif

/* CHECK(condition, printf arguments): counts the check, and a failure; the
 * first 29 failures are printed. main reports the counters. */
static int failures, checks;
#define CHECK(c, ...)                                                                                              \
  do {                                                                                                             \
    checks++;                                                                                                      \
    if (!(c)) {                                                                                                    \
      failures++;                                                                                                  \
      if (failures < 30) {                                                                                         \
        printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                                \
        printf(__VA_ARGS__);                                                                                       \
        printf("\n");                                                                                              \
      }                                                                                                            \
    }                                                                                                              \
  } while (0)

static uint64_t rs = PERMUTE_RAND_SEED;
static uint64_t rnd(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return rs;
}
/* Uniform in lo..hi. */
static int64_t rint_(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

static void random_perm(int *perm, int n) {
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(rnd() % (uint64_t)(i + 1)), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

/* Random layout (nd <= 16): a dense layout of `shape` in a random dim order,
 * with optional padding, one stride in zero_one_in made 0 (none when
 * zero_one_in is 0) and one in flip_one_in negated. Returns the element span;
 * *base is the element offset of index 0 inside the allocation. */
static int64_t random_layout(int64_t *stride, int64_t *base, const int64_t *shape, int nd, int zero_one_in,
                             int flip_one_in) {
  int order[16];
  random_perm(order, nd);
  int64_t acc = 1;
  for (int k = nd - 1; k >= 0; k--) {
    int i = order[k];
    stride[i] = acc;
    acc *= shape[i] + (rnd() % 4 == 0 ? rint_(1, 3) : 0);
  }
  int64_t lo = 0, hi = 0;
  for (int i = 0; i < nd; i++) {
    if (zero_one_in && rnd() % (uint64_t)zero_one_in == 0) stride[i] = 0;
    if (rnd() % (uint64_t)flip_one_in == 0) stride[i] = -stride[i];
    if (stride[i] < 0)
      lo += (shape[i] - 1) * stride[i];
    else
      hi += (shape[i] - 1) * stride[i];
  }
  *base = -lo;
  return hi - lo + 1;
}

#endif
