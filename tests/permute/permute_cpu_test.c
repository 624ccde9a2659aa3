/* permute_cpu_test.c - CPU tests of the permute library: parray_permute_cpu
 * and parray_copy_strided_cpu against naive per-element references on many
 * random shapes, permutations, strides (negative, zero on the source side)
 * and element sizes (1, 2, 4, 8, 12, 16, odd), size-1 and empty dimensions;
 * the shared normaliser parray_copy_normalise checked to enumerate exactly
 * the (dst, src) byte-offset pairs of its input; argument errors. */
#include "parray/permute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERMUTE_RAND_SEED 0x9e3779b97f4a7c15ull
#include "permute_test.h"

/* odds of a zero (source side only) and of a negated stride in random_layout */
enum { ZERO_ONE_IN = 6, FLIP_ONE_IN = 5 };

static void fill_random(unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(rnd() >> 24);
}

/* naive: for each dst index, dst dim i = src dim perm[i] */
static void naive_permute(unsigned char *dst, const unsigned char *src, size_t es, int nd, const int64_t *sh,
                          const int *perm) {
  int64_t total = 1, sstr[8], idx[8] = {0};
  for (int i = nd - 1; i >= 0; i--) {
    sstr[i] = total;
    total *= sh[i];
  }
  for (int64_t t = 0; t < total; t++) {
    int64_t so = 0;
    for (int i = 0; i < nd; i++) so += idx[i] * sstr[perm[i]];
    memcpy(dst + (size_t)t * es, src + (size_t)so * es, es);
    for (int i = nd - 1; i >= 0; i--) {
      if (++idx[i] < sh[perm[i]]) break;
      idx[i] = 0;
    }
  }
}

static void test_permute_random(int iters) {
  static const size_t sizes[] = {1, 2, 4, 8, 12, 16, 3, 6};
  for (int it = 0; it < iters; it++) {
    int nd = (int)rint_(0, 8);
    int64_t sh[8], total = 1;
    int64_t cap = 4096 + (int64_t)(rnd() % 20000);
    for (int i = 0; i < nd; i++) {
      int64_t e = rnd() % 4 == 0 ? 1 : rint_(1, nd <= 2 ? 300 : nd <= 4 ? 24 : 6);
      if (total * e > cap) e = 1;
      sh[i] = e;
      total *= e;
    }
    if (nd > 0 && rnd() % 25 == 0) {
      sh[rnd() % (uint64_t)nd] = 0;
      total = 0;
    }
    int perm[8];
    random_perm(perm, nd);
    size_t es = sizes[rnd() % (sizeof sizes / sizeof *sizes)];
    size_t bytes = (size_t)total * es;
    unsigned char *src = malloc(bytes + 1), *dst = malloc(bytes + 64), *ref = malloc(bytes + 64);
    fill_random(src, bytes);
    memset(dst, 0xA5, bytes + 64);
    memset(ref, 0xA5, bytes + 64);
    naive_permute(ref, src, es, nd, sh, perm);
    parray_status st = parray_permute_cpu(dst, src, es, nd, sh, perm);
    CHECK(st == PARRAY_OK, "permute status %d (%s)", st, parray_last_error());
    CHECK(memcmp(dst, ref, bytes + 64) == 0, "permute mismatch: nd %d es %zu total %lld", nd, es, (long long)total);
    /* second poison: an unwritten byte cannot match both */
    memset(dst, 0x5A, bytes + 64);
    memset(ref + bytes, 0x5A, 64);
    parray_permute_cpu(dst, src, es, nd, sh, perm);
    CHECK(memcmp(dst, ref, bytes + 64) == 0, "permute mismatch (poison 2): nd %d es %zu", nd, es);
    free(src);
    free(dst);
    free(ref);
  }
}

/* Enumerate (dst offset, src offset) byte pairs of a strided description. */
typedef struct pair {
  int64_t d, s;
} pair;
static int cmp_pair(const void *a, const void *b) {
  const pair *x = a, *y = b;
  if (x->d != y->d) return x->d < y->d ? -1 : 1;
  return x->s < y->s ? -1 : x->s > y->s;
}
static int64_t enum_pairs(pair *out, const parray_copy_dim *d, int n) {
  int64_t total = 1, idx[17] = {0};
  for (int i = 0; i < n; i++) total *= d[i].n;
  for (int64_t t = 0; t < total; t++) {
    int64_t dof = 0, so = 0;
    for (int i = 0; i < n; i++) {
      dof += idx[i] * d[i].dst_stride;
      so += idx[i] * d[i].src_stride;
    }
    out[t] = (pair){dof, so};
    for (int i = n - 1; i >= 0; i--) {
      if (++idx[i] < d[i].n) break;
      idx[i] = 0;
    }
  }
  return total;
}

static void test_normalise_random(int iters) {
  static const size_t sizes[] = {1, 2, 4, 8, 12, 16, 5};
  pair *a = malloc(sizeof(pair) * 70000), *b = malloc(sizeof(pair) * 70000);
  for (int it = 0; it < iters; it++) {
    int nd = (int)rint_(0, 7);
    int64_t sh[16], ds[16], ss[16], total = 1, db, sb;
    for (int i = 0; i < nd; i++) {
      sh[i] = rnd() % 3 == 0 ? 1 : rint_(1, 5);
      total *= sh[i];
    }
    size_t es = sizes[rnd() % (sizeof sizes / sizeof *sizes)];
    if (total * (int64_t)es > 60000) continue;
    random_layout(ds, &db, sh, nd, 0, FLIP_ONE_IN);
    if (rnd() % 2)
      random_layout(ss, &sb, sh, nd, ZERO_ONE_IN, FLIP_ONE_IN);
    else
      memcpy(ss, ds, sizeof ds); /* same layout: should merge to one run */
    parray_copy_dim in[17], out[17];
    int m = 0;
    for (int i = 0; i < nd; i++) in[m++] = (parray_copy_dim){sh[i], ds[i] * (int64_t)es, ss[i] * (int64_t)es};
    in[m++] = (parray_copy_dim){(int64_t)es, 1, 1};
    int n = parray_copy_normalise(out, sh, ds, ss, nd, es);
    CHECK(n >= 0 && n <= nd + 1, "normalise rank %d", n);
    if (n < 0) continue;
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= out[i].n > 1;
    CHECK(ok, "normalise left an extent-1 dimension");
    for (int i = 0; i + 1 < n; i++)
      CHECK(!(out[i].dst_stride == out[i + 1].dst_stride * out[i + 1].n &&
              out[i].src_stride == out[i + 1].src_stride * out[i + 1].n),
            "normalise left a mergeable pair");
    int64_t na = enum_pairs(a, in, m), nb = enum_pairs(b, out, n);
    CHECK(na == nb, "normalise changed the element count %lld -> %lld", (long long)na, (long long)nb);
    if (na != nb) continue;
    qsort(a, (size_t)na, sizeof *a, cmp_pair);
    qsort(b, (size_t)nb, sizeof *b, cmp_pair);
    CHECK(memcmp(a, b, sizeof *a * (size_t)na) == 0, "normalise changed the offset pairs (nd %d es %zu)", nd, es);
    if (memcmp(ss, ds, sizeof(int64_t) * (size_t)nd) == 0) {
      /* identical layouts: everything a single run or, with padding, a few */
      int dense = 1;
      int64_t acc = 1;
      for (int i = nd - 1; i >= 0; i--) {
        if (sh[i] == 1) continue;
        dense &= ds[i] == acc;
        acc *= sh[i];
      }
      if (dense) CHECK(n <= 1 && (n == 0 || out[0].dst_stride == 1), "dense identical layouts give rank %d", n);
    }
  }
  free(a);
  free(b);
}

static void test_normalise_fixed(void) {
  parray_copy_dim o[17];
  /* (0,1,2,3) -> (2,3,0,1) on [3][4][5][6] f32: two merged dims + bytes */
  {
    int64_t sh[4] = {5, 6, 3, 4}, ds[4] = {6 * 12, 12, 4, 1}, ss[4] = {6, 1, 120, 30};
    int n = parray_copy_normalise(o, sh, ds, ss, 4, 4);
    CHECK(n == 3, "2301 rank %d", n);
    if (n == 3)
      CHECK(o[0].n == 30 && o[0].dst_stride == 48 && o[0].src_stride == 4 && o[1].n == 12 && o[1].dst_stride == 4 &&
                o[1].src_stride == 120 && o[2].n == 4 && o[2].dst_stride == 1 && o[2].src_stride == 1,
            "2301 dims");
  }
  /* (1,0,2) on [7][9][11] f16: rank 3 with an inner run of 22 bytes */
  {
    int64_t sh[3] = {9, 7, 11}, ds[3] = {77, 11, 1}, ss[3] = {11, 99, 1};
    int n = parray_copy_normalise(o, sh, ds, ss, 3, 2);
    CHECK(n == 3 && o[2].n == 22 && o[2].dst_stride == 1 && o[2].src_stride == 1, "102 rank %d", n);
  }
  /* size-1 dims vanish; identity merges to one run */
  {
    int64_t sh[5] = {1, 3, 1, 5, 1}, st[5] = {15, 5, 5, 1, 1};
    int n = parray_copy_normalise(o, sh, st, st, 5, 8);
    CHECK(n == 1 && o[0].n == 120, "identity rank %d", n);
  }
  /* u8 scalar: rank 0 (one byte) */
  CHECK(parray_copy_normalise(o, NULL, NULL, NULL, 0, 1) == 0, "scalar u8");
  /* errors */
  {
    int64_t sh[1] = {0}, st[1] = {1};
    CHECK(parray_copy_normalise(o, sh, st, st, 1, 4) == -1, "zero extent accepted");
    CHECK(parray_copy_normalise(o, sh, st, st, 17, 4) == -1, "rank 17 accepted");
    CHECK(parray_copy_normalise(o, sh, st, st, 1, 0) == -1, "elem size 0 accepted");
  }
}

/* naive strided copy in element offsets */
static void naive_strided(unsigned char *dst, const int64_t *ds, const unsigned char *src, const int64_t *ss,
                          const int64_t *sh, int nd, size_t es) {
  int64_t total = 1, idx[16] = {0};
  for (int i = 0; i < nd; i++) total *= sh[i];
  for (int64_t t = 0; t < total; t++) {
    int64_t dof = 0, so = 0;
    for (int i = 0; i < nd; i++) {
      dof += idx[i] * ds[i];
      so += idx[i] * ss[i];
    }
    memcpy(dst + dof * (int64_t)es, src + so * (int64_t)es, es);
    for (int i = nd - 1; i >= 0; i--) {
      if (++idx[i] < sh[i]) break;
      idx[i] = 0;
    }
  }
}

static void test_strided_random(int iters) {
  static const size_t sizes[] = {1, 2, 4, 8, 12, 16, 3};
  for (int it = 0; it < iters; it++) {
    int nd = (int)rint_(0, 6);
    int64_t sh[16], ds[16], ss[16], total = 1, db, sb;
    for (int i = 0; i < nd; i++) {
      sh[i] = rnd() % 4 == 0 ? 1 : rint_(1, nd <= 2 ? 90 : 9);
      total *= sh[i];
    }
    size_t es = sizes[rnd() % (sizeof sizes / sizeof *sizes)];
    int64_t dspan = random_layout(ds, &db, sh, nd, 0, FLIP_ONE_IN);
    int64_t sspan = random_layout(ss, &sb, sh, nd, ZERO_ONE_IN, FLIP_ONE_IN);
    size_t dbytes = (size_t)dspan * es, sbytes = (size_t)sspan * es;
    unsigned char *src = malloc(sbytes), *dst = malloc(dbytes), *ref = malloc(dbytes);
    fill_random(src, sbytes);
    memset(dst, 0xC3, dbytes);
    memset(ref, 0xC3, dbytes);
    naive_strided(ref + db * (int64_t)es, ds, src + sb * (int64_t)es, ss, sh, nd, es);
    parray_status st = parray_copy_strided_cpu(dst + db * (int64_t)es, ds, src + sb * (int64_t)es, ss, sh, nd, es);
    CHECK(st == PARRAY_OK, "strided status %d", st);
    CHECK(memcmp(dst, ref, dbytes) == 0, "strided mismatch nd %d es %zu total %lld", nd, es, (long long)total);
    free(src);
    free(dst);
    free(ref);
  }
}

static void test_errors(void) {
  int64_t sh[3] = {2, 3, 4};
  int bad[3] = {0, 0, 1}, good[3] = {2, 0, 1};
  char buf[24 * 8] = {0};
  CHECK(parray_permute_cpu(buf, buf + 96, 4, 3, sh, bad) == PARRAY_ERR_INVALID, "duplicate perm accepted");
  CHECK(strcmp(parray_last_error(), "parray_permute_cpu: perm is not a permutation of 0..2") == 0, "error text: %s",
        parray_last_error());
  int oob[3] = {0, 1, 3};
  CHECK(parray_permute_cpu(buf, buf + 96, 4, 3, sh, oob) == PARRAY_ERR_INVALID, "out-of-range perm accepted");
  CHECK(parray_permute_cpu(buf, buf + 96, 4, 9, sh, good) == PARRAY_ERR_INVALID, "rank 9 accepted");
  CHECK(strcmp(parray_last_error(), "parray_permute_cpu: bad rank 9, element size 4 or null shape/perm") == 0,
        "error text: %s", parray_last_error());
  CHECK(parray_permute_cpu(buf, buf + 96, 0, 3, sh, good) == PARRAY_ERR_INVALID, "elem size 0 accepted");
  CHECK(parray_permute_cpu(NULL, buf, 4, 3, sh, good) == PARRAY_ERR_INVALID, "null dst accepted");
  CHECK(strcmp(parray_last_error(), "parray_permute_cpu: null pointer") == 0, "error text: %s", parray_last_error());
  CHECK(parray_permute_cpu(buf, buf, 4, 3, NULL, good) == PARRAY_ERR_INVALID, "null shape accepted");
  int64_t neg[3] = {2, -3, 4};
  CHECK(parray_permute_cpu(buf, buf, 4, 3, neg, good) == PARRAY_ERR_INVALID, "negative extent accepted");
  CHECK(strcmp(parray_last_error(), "parray_permute_cpu: negative extent -3") == 0, "error text: %s",
        parray_last_error());
  int64_t zero[3] = {2, 0, 4};
  CHECK(parray_permute_cpu(NULL, NULL, 4, 3, zero, good) == PARRAY_OK, "empty permute with null pointers failed");
  CHECK(strlen(parray_last_error()) > 0, "no error text");
  /* 0-d permute copies one element */
  double x = 3.25, y = 0;
  CHECK(parray_permute_cpu(&y, &x, sizeof x, 0, NULL, NULL) == PARRAY_OK && y == 3.25, "0-d permute");
}

int main(void) {
  test_normalise_fixed();
  test_normalise_random(3000);
  test_permute_random(1500);
  test_strided_random(1500);
  test_errors();
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures ? 1 : 0;
}
