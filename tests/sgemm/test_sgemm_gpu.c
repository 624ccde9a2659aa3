/* test_sgemm_gpu.c - parray_sgemm on the GPU against a float64 CPU
 * reference on fresh random data: both orders, all transposes, odd shapes
 * (1, 7, 129, 1000, ...), padded and odd (misaligned) leading dimensions,
 * misaligned base pointers, alpha/beta (beta == 0 with NaN-poisoned C), every
 * element checked and the padding around C checked untouched; k up to 4096.
 * Also runs each built kernel configuration and split-K directly through
 * parray_sgemm_config, so every kernel is covered whatever the automatic
 * choice (the extra tuning configurations with SGEMM_TEST_VARIANTS=1).
 * A configuration that needs aligned operands (the Hopper kernel: 16-byte
 * base pointers, leading dimensions a multiple of 4) gets ragged shapes with
 * leading dimensions rounded up to a multiple of 4, and the automatic choice
 * is run on sizes that pick it on such a device; there, with the scratch
 * of the NT/TN transposition made to fail (parray__sgemm_fail_scratch), the
 * automatic choice must fall back on slot 1 with the right product. Its
 * cluster form (slot 13, two blocks sharing A slices through TMA multicast)
 * gets the same cases, plus one where every cluster walks more than one
 * pair of tiles.
 * Exits 77 with "SKIP: no CUDA device" when there is no GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/cuda_check.h"
#include "parray/cuda.h"
#include "sgemm_ref.h"

static int passed, failed;

typedef struct tcase {
  parray_layout o;
  parray_trans ta, tb;
  int64_t m, n, k;
  int pad;         /* added to every leading dimension */
  int misalign;    /* offset A, B, C by this many floats from a 256-byte boundary */
  float alpha, beta;
  int config, splits; /* config 0 = parray_sgemm itself */
  int ld4;            /* round every leading dimension up to a multiple of 4 before adding pad */
  int odd;            /* 1 / 2: A's / B's leading dimension one more (rows of that operand only unaligned) */
  parray_status expect;   /* the call must answer this (PARRAY_OK: and the right product) */
  int want_slot, want_tr; /* want_slot > 0: parray__sgemm_last_choice must answer these */
} tcase;

/* kernels/sgemm/sgemm.cu's test hook: the slot the last call on this thread
 * launched and the operand of its row-major product that it transposed
 * first (0 none, 1 A, 2 B). */
void parray__sgemm_last_choice(int *slot, int *transposed);
/* and the one that makes the transposition's scratch allocation fail (1)
 * or not (0) */
void parray__sgemm_fail_scratch(int on);

static int64_t round_ld(const tcase *t, int64_t ld) { return t->ld4 ? (ld + 3) / 4 * 4 : ld; }

/* The status and the choice of a case are what it wants; prints why not. */
static int choice_ok(const tcase *t, parray_status st) {
  int slot = 0, tr = 0;
  parray__sgemm_last_choice(&slot, &tr);
  if (st != t->expect) {
    printf("  status %s, want %s: %s\n", parray_status_str(st), parray_status_str(t->expect), parray_last_error());
    return 0;
  }
  if (st == PARRAY_OK && t->want_slot > 0 && (slot != t->want_slot || tr != t->want_tr)) {
    printf("  ran slot %d transposing operand %d, want slot %d transposing %d\n", slot, tr, t->want_slot,
           t->want_tr);
    return 0;
  }
  return 1;
}

static void run_case(tcase t) {
  const int64_t ar = t.ta == PARRAY_NOTRANS ? t.m : t.k, ac = t.ta == PARRAY_NOTRANS ? t.k : t.m;
  const int64_t br = t.tb == PARRAY_NOTRANS ? t.k : t.n, bc = t.tb == PARRAY_NOTRANS ? t.n : t.k;
  const int64_t lda = round_ld(&t, ref_need_ld(t.o, ar, ac)) + t.pad + (t.odd == 1),
                ldb = round_ld(&t, ref_need_ld(t.o, br, bc)) + t.pad + (t.odd == 2),
                ldc = round_ld(&t, ref_need_ld(t.o, t.m, t.n)) + t.pad;
  const int64_t sa = ref_span(t.o, ar, ac, lda), sb = ref_span(t.o, br, bc, ldb), sc = ref_span(t.o, t.m, t.n, ldc);
  /* beta == 0: C starts as NaN everywhere (it must not be read, and every
   * element must be written). Otherwise random values, NaN in the padding. */
  ref_bufs h = ref_bufs_new(sa, sb, sc, t.m, t.n, t.beta);
  if (t.beta != 0.0f)
    for (int64_t i = 0; i < (t.o == PARRAY_ROW_MAJOR ? t.m : t.n); i++)
      for (int64_t j = (t.o == PARRAY_ROW_MAJOR ? t.n : t.m); j < ldc; j++) h.C0[i * ldc + j] = NAN;
  float *dA, *dB, *dC;
  const int off = t.misalign;
  CK(cudaMalloc((void **)&dA, sizeof(float) * (sa + 64)));
  CK(cudaMalloc((void **)&dB, sizeof(float) * (sb + 64)));
  CK(cudaMalloc((void **)&dC, sizeof(float) * (sc + 64)));
  CK(cudaMemcpy(dA + off, h.A, sizeof(float) * sa, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB + off, h.B, sizeof(float) * sb, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dC + off, h.C0, sizeof(float) * sc, cudaMemcpyHostToDevice));
  char what[320];
  snprintf(what, sizeof what,
           "%s %s%s m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld off=%d alpha=%g beta=%g config=%d(%s) splits=%d",
           ref_order_name(t.o), ref_trans_name(t.ta), ref_trans_name(t.tb), (long long)t.m, (long long)t.n,
           (long long)t.k, (long long)lda, (long long)ldb, (long long)ldc, off, t.alpha, t.beta, t.config,
           parray_sgemm_config_name(t.config), t.splits);
  parray_status st =
      t.config == 0 && t.splits == 1
          ? parray_sgemm(t.o, t.ta, t.tb, t.m, t.n, t.k, t.alpha, dA + off, lda, dB + off, ldb, t.beta, dC + off,
                         ldc, NULL)
          : parray_sgemm_config(t.config, t.splits, t.o, t.ta, t.tb, t.m, t.n, t.k, t.alpha, dA + off, lda, dB + off,
                                ldb, t.beta, dC + off, ldc, NULL);
  if (st == PARRAY_OK) st = parray_cuda_status(cudaDeviceSynchronize(), "sgemm kernel");
  if (!choice_ok(&t, st)) {
    printf("FAIL: %s\n", what);
    failed++;
  } else if (st != PARRAY_OK) {
    passed++; /* the error it had to answer */
  } else {
    CK(cudaMemcpy(h.C, dC + off, sizeof(float) * sc, cudaMemcpyDeviceToHost));
    ref_product(t.o, t.ta, t.tb, t.m, t.n, t.k, h.A, lda, h.B, ldb, h.ref, h.mag);
    ref_result r = ref_check(t.o, t.m, t.n, t.alpha, t.beta, h.ref, h.mag, h.C, h.C0, ldc, 1e-5);
    if (!ref_report(r, ref_outside(t.o, t.m, t.n, h.C, h.C0, ldc))) {
      printf("FAIL: %s\n", what);
      failed++;
    } else {
      if (t.k >= 1000) printf("ok   %s  max err %.2e  norm err %.2e\n", what, r.max_err, r.norm_err);
      passed++;
    }
  }
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  CK(cudaFree(dC));
  ref_bufs_free(&h);
}

static tcase mk(parray_layout o, int ta, int tb, int64_t m, int64_t n, int64_t k, int pad, int off, float alpha,
                float beta) {
  tcase t;
  memset(&t, 0, sizeof t);
  t.o = o, t.ta = (parray_trans)ta, t.tb = (parray_trans)tb, t.m = m, t.n = n, t.k = k;
  t.pad = pad, t.misalign = off, t.alpha = alpha, t.beta = beta, t.splits = 1, t.expect = PARRAY_OK;
  return t;
}

/* What configuration c answers for a 4 x 4 x 4 product on layout l with
 * leading dimension ld (1: unaligned, 4: aligned), C apart from A and B. */
static parray_status probe(int c, int l, int64_t ld) {
  const parray_layout o = (parray_layout)(l / 4);
  const int ta = (l / 2) % 2, tb = l % 2;
  const int64_t sz = ld == 1 ? 1 : 4;
  float *p;
  CK(cudaMalloc((void **)&p, 256));
  CK(cudaMemset(p, 0, 256));
  const parray_status ps = parray_sgemm_config(c, 1, o, (parray_trans)ta, (parray_trans)tb, sz, sz, sz, 1.0f, p, ld,
                                               p + 16, ld, 0.0f, p + 32, ld, NULL);
  CK(cudaDeviceSynchronize());
  CK(cudaFree(p));
  return ps;
}

/* Configuration c, which needs aligned operands, on layout l: ragged shapes
 * (partial tiles in m and n, partial and single k slices), leading dimensions
 * rounded up to a multiple of 4 (+4 padding on some), beta 0 and not. */
static void run_aligned_cases(int c, int l) {
  static const int64_t shapes[][3] = {{515, 333, 1029}, {512, 512, 1024}, {1, 1, 1},     {257, 129, 17},
                                      {300, 260, 4095}, {7, 1000, 3},     {1000, 7, 16}, {256, 128, 15}};
  const parray_layout o = (parray_layout)(l / 4);
  const int ta = (l / 2) % 2, tb = l % 2;
  for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
    tcase t = mk(o, ta, tb, shapes[s][0], shapes[s][1], shapes[s][2], (s + l) % 3 == 0 ? 4 : 0, 0,
                 s % 2 ? 1.0f : -0.5f, (s + l) % 2 ? 0.0f : 0.75f);
    t.config = c;
    t.ld4 = 1;
    run_case(t);
  }
}

/* Which operand of the row-major product (1: A, 2: B) the dispatch
 * transposes when both are k-contiguous: the smaller one, B on a tie. The
 * row-major view of a column-major product swaps A with B and m with n, so
 * that operand is the caller's A or B as user_operand says. */
static int nt_transposed(const tcase *t) {
  const int row = t->o == PARRAY_ROW_MAJOR;
  return (row ? t->m : t->n) < (row ? t->n : t->m) ? 1 : 2;
}
static int user_operand(const tcase *t, int r) { return t->o == PARRAY_ROW_MAJOR ? r : 3 - r; }

/* Whether the automatic choice wants the Hopper kernel for t through the
 * transposition (sgemm.cu's hopper_pays, on the 256 x 128 tiles of the
 * product the kernel runs: with B transposed that is C^T, m and n swapped):
 * most SMs get a tile and the last wave is 90% full. */
static int nt_pays(const tcase *t, int sms) {
  const int row = t->o == PARRAY_ROW_MAJOR, on_a = nt_transposed(t) == 1;
  const int64_t m = row ? t->m : t->n, n = row ? t->n : t->m;
  const int64_t km = on_a ? m : n, kn = on_a ? n : m;
  const int64_t tiles = (km + 255) / 256 * ((kn + 127) / 128), waves = (tiles + sms - 1) / sms;
  return tiles >= (int64_t)sms * 3 / 4 && tiles * 10 >= waves * sms * 9;
}

/* Both operands k-contiguous (row-major NT, column-major TN) through
 * configuration c, the Hopper kernel, which first transposes one of them
 * into scratch memory, and through the automatic choice on sizes where it
 * takes that path (2048^2, and wide and tall shapes that transpose A or B;
 * auto_slot: the Hopper form it runs, 0 to leave these out):
 * an odd leading dimension on the operand transposed works (it is copied),
 * on the other one c answers PARRAY_ERR_UNSUPPORTED and the automatic choice
 * falls back on slot 1, as with misaligned base pointers. PARRAY_SGEMM_HOPPER=0
 * (the automatic choice off the Hopper kernel), or a device whose SM count
 * makes these sizes not pay (nt_pays): slot 1 throughout. */
static void run_nt_cases(int c, int auto_slot) {
  static const int64_t small[][3] = {{300, 700, 129}, {700, 300, 129}, {256, 256, 64}, {5, 1000, 17}};
  static const int64_t big[][3] = {{2048, 2048, 256}, {1000, 4100, 257}, {4100, 1000, 257}};
  const char *env = getenv("PARRAY_SGEMM_HOPPER");
  const int auto_hopper = !(env && strcmp(env, "0") == 0);
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  for (int l = 0; l < 2; l++) {
    const parray_layout o = l ? PARRAY_COL_MAJOR : PARRAY_ROW_MAJOR;
    for (int s = 0; s < 4; s++)
      for (int odd = 0; odd < 3; odd++) {
        tcase t = mk(o, l, !l, small[s][0], small[s][1], small[s][2], s == 2 ? 4 : 0, 0, s % 2 ? 1.0f : -0.5f,
                     odd == 1 ? 0.0f : 0.75f);
        t.config = c;
        t.ld4 = 1;
        t.odd = odd;
        t.want_slot = c;
        t.want_tr = nt_transposed(&t);
        if (odd && user_operand(&t, t.want_tr) != odd) t.expect = PARRAY_ERR_UNSUPPORTED;
        run_case(t);
      }
    for (int s = 0; s < 4 && auto_slot; s++)
      for (int odd = 0; odd < 3; odd++) {
        const int64_t *sh = big[s < 3 ? s : 1];
        tcase t = mk(o, l, !l, sh[0], sh[1], sh[2], 0, s == 3 ? 1 : 0, 1.0f, odd ? 0.5f : 0.0f);
        t.ld4 = 1;
        t.odd = s == 3 ? 0 : odd; /* s == 3: misaligned base pointers */
        const int tr = nt_transposed(&t);
        const int hopper = auto_hopper && s < 3 && (!t.odd || user_operand(&t, tr) == t.odd) && nt_pays(&t, sms);
        t.want_slot = hopper ? auto_slot : 1;
        t.want_tr = hopper ? tr : 0;
        run_case(t);
        if (s == 3) break;
      }
  }
}

/* The transposition's scratch cannot be had (parray__sgemm_fail_scratch):
 * on row-major NT and column-major TN products that the automatic choice
 * sends through the transposition (nt_pays; not with PARRAY_SGEMM_HOPPER=0)
 * it falls back on slot 1 with the right product (beta 0 on a NaN-poisoned
 * C, and beta 0.5 with NaN in C's padding), and configuration c (the Hopper
 * kernel) asked for answers PARRAY_ERR_ALLOC; with the scratch back, the
 * same product transposes an operand and runs c again. */
static void run_scratch_fail_cases(int c) {
  static const int64_t shapes[][3] = {{2048, 2048, 256}, {1000, 4100, 257}};
  const char *env = getenv("PARRAY_SGEMM_HOPPER");
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  for (int l = 0; l < 2; l++)
    for (int s = 0; s < 2; s++) {
      tcase t = mk(l ? PARRAY_COL_MAJOR : PARRAY_ROW_MAJOR, l, !l, shapes[s][0], shapes[s][1], shapes[s][2], 0, 0,
                   s ? -0.5f : 1.0f, s ? 0.5f : 0.0f);
      t.ld4 = 1;
      if ((env && strcmp(env, "0") == 0) || !nt_pays(&t, sms)) {
        printf("note: the automatic choice does not transpose for %lld x %lld x %lld on this device: its scratch "
               "fallback is not checked there\n", (long long)t.m, (long long)t.n, (long long)t.k);
        continue;
      }
      parray__sgemm_fail_scratch(1);
      t.want_slot = 1, t.want_tr = 0;
      run_case(t); /* the fallback */
      tcase asked = t;
      asked.config = c, asked.want_slot = 0, asked.expect = PARRAY_ERR_ALLOC;
      run_case(asked);
      if (!strstr(parray_last_error(), "scratch for the transposed operand")) {
        printf("FAIL: configuration %d without scratch: the error says '%s'\n", c, parray_last_error());
        failed++;
      }
      parray__sgemm_fail_scratch(0);
      t.want_slot = c, t.want_tr = nt_transposed(&t);
      run_case(t); /* the transposition again */
    }
}

int main(void) {
  if (parray_cuda_device_count() == 0) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  ref_seed(20261121);
  /* 1. Every order and transpose on odd shapes, aligned and not. */
  static const int64_t shapes[][3] = {{1, 1, 1},     {7, 129, 1000}, {129, 7, 33},    {1000, 1, 129},
                                      {1, 1000, 7},  {129, 129, 129}, {200, 264, 17}, {1000, 1000, 1000},
                                      {256, 384, 64}};
  const int ns = (int)(sizeof shapes / sizeof shapes[0]);
  for (int o = 0; o < 2; o++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++)
        for (int s = 0; s < ns; s++) {
          const int v = (o * 4 + ta * 2 + tb + s) % 4;
          /* v: 0 tight, 1 pad 4 (aligned, ld > row), 2 pad 3 (odd ld), 3 misaligned base pointers */
          const int pad = v == 1 ? 4 : v == 2 ? 3 : 0, off = v == 3 ? 1 : 0;
          const float alpha = s % 2 ? 1.0f : -0.5f, beta = s % 3 == 0 ? 0.0f : 0.75f;
          run_case(mk((parray_layout)o, ta, tb, shapes[s][0], shapes[s][1], shapes[s][2], pad, off, alpha, beta));
        }
  /* 2. k = 4096 on full aligned tiles and on ragged ones, every layout. */
  for (int o = 0; o < 2; o++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++) {
        run_case(mk((parray_layout)o, ta, tb, 512, 512, 4096, 0, 0, 1.0f, 0.0f));
        run_case(mk((parray_layout)o, ta, tb, 300, 260, 4095, 1, 0, 1.0f, 1.0f));
      }
  run_case(mk(PARRAY_ROW_MAJOR, 0, 0, 2048, 2048, 2048, 0, 0, 1.0f, 0.0f));
  run_case(mk(PARRAY_COL_MAJOR, 1, 1, 1536, 1024, 1111, 4, 0, 2.0f, -1.0f));
  /* 3. alpha == 0 (A, B not read), k == 0, empty C. */
  run_case(mk(PARRAY_ROW_MAJOR, 0, 0, 100, 77, 50, 0, 0, 0.0f, 2.0f));
  run_case(mk(PARRAY_ROW_MAJOR, 0, 0, 100, 77, 0, 0, 0, 1.0f, 0.0f));
  run_case(mk(PARRAY_COL_MAJOR, 0, 1, 0, 77, 10, 0, 0, 1.0f, 0.0f));
  /* 4. Every built configuration directly, on every layout it has (a
   * configuration lacking a layout answers PARRAY_ERR_UNSUPPORTED, which is
   * skipped), with and without split-K. The library's own kernels are slots
   * 1-4; the extra tuning configurations (slots >= 5, built with
   * PARRAY_SGEMM_VARIANTS) only when SGEMM_TEST_VARIANTS=1, so that a broken
   * experiment cannot hide the result for the library's own kernels. Slot 4
   * is the Hopper kernel, slot 13 its cluster form (tested wherever the
   * device runs them). */
  enum { FIRST_VARIANT = 5, HOPPER = 4, HOPPER_CLUSTER = 13 };
  const char *tv = getenv("SGEMM_TEST_VARIANTS"), *tcl = getenv("PARRAY_SGEMM_HOPPER_CLUSTER");
  /* The Hopper form the automatic choice runs (sgemm.cu, hopper_cluster_wanted:
   * the cluster form only on TT from 6144 up, unless forced; every size here is smaller). */
  const int auto_form = tcl && strcmp(tcl, "1") == 0 ? HOPPER_CLUSTER : HOPPER;
  int slots[32], nslots = 0;
  if (tv && tv[0] == '1')
    for (int c = FIRST_VARIANT; c < HOPPER_CLUSTER; c++) slots[nslots++] = c;
  else
    for (int c = 1; c <= HOPPER_CLUSTER; c = c == HOPPER ? HOPPER_CLUSTER : c + 1) slots[nslots++] = c;
  for (int si = 0; si < nslots; si++) {
    const int c = slots[si];
    if (strcmp(parray_sgemm_config_name(c), "(not built)") == 0) continue;
    int aligned_only = 0;
    for (int l = 0; l < 8; l++) {
      const parray_layout o = (parray_layout)(l / 4);
      const int ta = (l / 2) % 2, tb = l % 2;
      if (probe(c, l, 1) == PARRAY_ERR_UNSUPPORTED) {
        if (probe(c, l, 4) == PARRAY_OK) {
          aligned_only = 1;
          run_aligned_cases(c, l);
        }
        continue;
      }
      tcase t = mk(o, ta, tb, 515, 333, 1029, l % 3 == 2 ? 1 : 0, 0, 1.0f, l % 2 ? 0.0f : 0.5f);
      t.config = c;
      run_case(t);
      t = mk(o, ta, tb, 512, 512, 1024, 0, 0, 1.0f, 0.0f);
      t.config = c;
      run_case(t);
    }
    if (aligned_only) {
      /* The automatic choice on sizes that give it enough 256 x 128 tiles,
       * every layout, and a split-K request (ignored by this kernel). */
      for (int l = 0; l < 8; l++) {
        tcase t = mk((parray_layout)(l / 4), (l / 2) % 2, l % 2, 2000, 1900, 333, l % 3 == 1 ? 4 : 0, 0, 1.0f,
                     l % 2 ? 0.0f : 0.5f);
        t.ld4 = 1;
        run_case(t);
      }
      run_nt_cases(c, c == auto_form ? c : 0);
      if (c == auto_form) run_scratch_fail_cases(c);
      if (c == HOPPER_CLUSTER)
        for (int l = 0; l < 8; l += 3) {
          /* 10 x 10 pairs of tiles (ragged in m and n, an odd tile count in
           * n), more than the clusters that fit: each cluster walks several,
           * its ring's phases running on across them. */
          tcase w = mk((parray_layout)(l / 4), (l / 2) % 2, l % 2, 2500, 2430, 100, 0, 0, 1.0f, l % 2 ? 0.0f : -1.0f);
          w.config = c;
          w.ld4 = 1;
          run_case(w);
        }
      tcase t = mk(PARRAY_ROW_MAJOR, 0, 0, 515, 333, 1029, 0, 0, 1.0f, 0.5f);
      t.config = c;
      t.splits = 3;
      t.ld4 = 1;
      run_case(t);
      continue;
    }
    tcase t = mk(PARRAY_ROW_MAJOR, 0, 0, 515, 333, 1029, 0, 0, 1.0f, 0.5f);
    t.config = c;
    t.splits = 3;
    run_case(t);
    t = mk(PARRAY_ROW_MAJOR, 0, 0, 512, 512, 1024, 0, 0, 1.0f, 0.0f);
    t.config = c;
    t.splits = 3;
    run_case(t);
  }
  /* 5. Argument checks. */
  float *d;
  CK(cudaMalloc((void **)&d, 4096));
  parray_status st = parray_sgemm(PARRAY_ROW_MAJOR, PARRAY_NOTRANS, PARRAY_NOTRANS, 8, 8, 8, 1, d, 7, d, 8, 0, d, 8,
                                  NULL);
  if (st == PARRAY_ERR_INVALID) passed++;
  else {
    printf("FAIL: lda < k not rejected\n");
    failed++;
  }
  st = parray_sgemm(PARRAY_COL_MAJOR, PARRAY_NOTRANS, PARRAY_NOTRANS, 8, 8, 8, 1, d, 8, d, 8, 0, d, 7, NULL);
  if (st == PARRAY_ERR_INVALID) passed++;
  else {
    printf("FAIL: col-major ldc < m not rejected\n");
    failed++;
  }
  CK(cudaFree(d));
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
