/* permute_gpu_test.cu - GPU tests of parray_permute_cuda and
 * parray_copy_strided_cuda against the CPU engines (themselves checked
 * against naive loops by permute_cpu_test): fresh random bytes, the output
 * and a guard band around it poisoned with two different patterns (an
 * unwritten byte cannot match both), every byte compared. Covers each
 * dispatch path (memcpy, memcpy2D, tile transpose with 1..16-byte words and
 * the packed 2-/1-byte paths, gather), odd sizes, misaligned pointers,
 * negative and zero strides, engine options, and with `big` two cases past
 * 2^31 elements (u8) for the int64 kernels. Exits 77 without a device.
 * With `fastdiv` it only checks the magic-number division on the host;
 * with `quick` it runs the fixed cases only (for compute-sanitizer). */
#include "parray/cuda.h"
#include "parray/permute.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../common/cuda_check.h"
#define PERMUTE_RAND_SEED 0x2545F4914F6CDD1Dull
#include "permute_test.h"

/* odds of a zero (source side only) and of a negated stride in random_layout */
enum { ZERO_ONE_IN = 8, FLIP_ONE_IN = 6 };

extern "C" parray_status parray__copy_strided_cuda_opts(void *, const int64_t *, const void *, const int64_t *,
                                                        const int64_t *, int, size_t, int, cudaStream_t);
extern "C" parray_status parray__permute_cuda_opts(void *, const void *, size_t, int, const int64_t *, const int *,
                                                   int, cudaStream_t);

static void fill_random(unsigned char *p, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = rnd();
    memcpy(p + i, &v, 8);
  }
  for (; i < n; i++) p[i] = (unsigned char)rnd();
}
const size_t GUARD = 64;

/* One device permute (with options) checked against parray_permute_cpu. */
static void check_permute(const char *tag, size_t es, int nd, const int64_t *sh, const int *perm, int opts,
                          size_t soff, size_t doff) {
  int64_t total = 1;
  for (int i = 0; i < nd; i++) total *= sh[i];
  const size_t bytes = size_t(total) * es;
  std::vector<unsigned char> src(bytes + 1), ref(bytes + 2 * GUARD), out(bytes + 2 * GUARD);
  fill_random(src.data(), bytes);
  unsigned char *ds = nullptr, *dd = nullptr;
  CK(cudaMalloc(&ds, bytes + 32));
  CK(cudaMalloc(&dd, bytes + 2 * GUARD + 32));
  CK(cudaMemcpy(ds + soff, src.data(), bytes, cudaMemcpyHostToDevice));
  parray_status st = parray_permute_cpu(ref.data() + GUARD, src.data(), es, nd, sh, perm);
  CHECK(st == PARRAY_OK, "%s: cpu reference failed", tag);
  for (int pass = 0; pass < 2; pass++) {
    const int poison = pass ? 0x5A : 0xFF; /* 0xFF.. is a NaN in every float type */
    memset(ref.data(), poison, GUARD);
    memset(ref.data() + GUARD + bytes, poison, GUARD);
    CK(cudaMemset(dd, poison, bytes + 2 * GUARD + 32));
    st = parray__permute_cuda_opts(dd + doff + GUARD, ds + soff, es, nd, sh, perm, opts, 0);
    CHECK(st == PARRAY_OK, "%s: status %d (%s)", tag, st, parray_last_error());
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dd + doff, bytes + 2 * GUARD, cudaMemcpyDeviceToHost));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < bytes + 2 * GUARD; i++)
      if (out[i] != ref[i] && bad++ == 0) first = i;
    CHECK(bad == 0, "%s: es %zu nd %d total %lld opts %d soff %zu doff %zu: %zu bad bytes, first at %lld", tag, es,
          nd, (long long)total, opts, soff, doff, bad, (long long)first - (long long)GUARD);
  }
  CK(cudaFree(ds));
  CK(cudaFree(dd));
}

static void check_strided(const char *tag, size_t es, int nd, const int64_t *sh, const int64_t *dstr, int64_t dbase,
                          int64_t dspan, const int64_t *sstr, int64_t sbase, int64_t sspan, int opts, size_t soff,
                          size_t doff) {
  const size_t sbytes = size_t(sspan) * es, dbytes = size_t(dspan) * es;
  std::vector<unsigned char> src(sbytes), ref(dbytes + 2 * GUARD), out(dbytes + 2 * GUARD);
  fill_random(src.data(), sbytes);
  unsigned char *ds = nullptr, *dd = nullptr;
  CK(cudaMalloc(&ds, sbytes + 32));
  CK(cudaMalloc(&dd, dbytes + 2 * GUARD + 32));
  CK(cudaMemcpy(ds + soff, src.data(), sbytes, cudaMemcpyHostToDevice));
  for (int pass = 0; pass < 2; pass++) {
    const int poison = pass ? 0x5A : 0xFF;
    memset(ref.data(), poison, ref.size());
    parray_status st = parray_copy_strided_cpu(ref.data() + GUARD + dbase * int64_t(es), dstr,
                                               src.data() + sbase * int64_t(es), sstr, sh, nd, es);
    CHECK(st == PARRAY_OK, "%s: cpu reference failed", tag);
    CK(cudaMemset(dd, poison, dbytes + 2 * GUARD + 32));
    st = parray__copy_strided_cuda_opts(dd + doff + GUARD + dbase * int64_t(es), dstr,
                                        ds + soff + sbase * int64_t(es), sstr, sh, nd, es, opts, 0);
    CHECK(st == PARRAY_OK, "%s: status %d (%s)", tag, st, parray_last_error());
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dd + doff, dbytes + 2 * GUARD, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < out.size(); i++) bad += out[i] != ref[i];
    CHECK(bad == 0, "%s: es %zu nd %d opts %d soff %zu doff %zu: %zu bad bytes", tag, es, nd, opts, soff, doff, bad);
  }
  CK(cudaFree(ds));
  CK(cudaFree(dd));
}

static const size_t kSizes[] = {1, 2, 4, 8, 12, 16};
/* engine options (copy_strided.cu): 1 memcpy2D, 2 persistent, 4/8/128 tile
 * 32x32/32x64/32x128 words, 16 no packing, 32 no tile, 64 no memcpy,
 * 256 streaming hints, 512 gather x8, 1024 no 8-byte packing of 4-byte
 * elements, (o+1) << 12 tile order o */
static const int kOpts[] = {0,          0,          0,          1,    2,         4,         8,
                            16,         32 | 64,    2 | 8,      128 | 1024, 256 | 512, 1 << 12,   2 << 12,
                            3 << 12,    4 << 12,    2 | 4 << 12, 1024, 16 | 3 << 12, 256 | 2 | 128 | 16,
                            /* row tiles (alone, with 8 units per thread, forced off), tile orders 4..6,
                               32 x 128-word tiles with 2x2 packing */
                            2048,       2048 | 512, 1 << 15,  5 << 12, 6 << 12,   7 << 12,   128,
                            128 | 3 << 12,
                            /* gather shapes: 1 / 2 units per thread with 128 or 256 threads, the first
                               version's 4 x 256; 2-byte elements 4 x 4 in 8-byte words (on, with tile
                               options, forced off) */
                            1 << 16 | 1 << 18, 1 << 17 | 1 << 18, 1 << 16, 1 << 17, 1 << 19, 2048 | 1 << 16 | 1 << 18,
                            1 << 20,    1 << 20 | 3 << 12, 1 << 20 | 8 | 2, 1 << 20 | 4 | 256, 1 << 21};
static const int kNumOpts = sizeof kOpts / sizeof *kOpts;
static const int kQuickOpts[] = {0, 16, 32, 1024 | 4 << 12, 1 << 20, 1 << 16 | 1 << 18};
static const int kNumQuick = sizeof kQuickOpts / sizeof *kQuickOpts;

static void fixed_cases(bool quick) {
  struct C {
    const char *tag;
    int nd;
    int64_t sh[4];
    int perm[4];
  } cs[] = {
      {"2d 1000x1001", 2, {1000, 1001}, {1, 0}},
      {"2d 64x64", 2, {64, 64}, {1, 0}},
      {"2d 130x7", 2, {130, 7}, {1, 0}},
      {"2d 3x777", 2, {3, 777}, {1, 0}},
      {"021 odd", 3, {5, 97, 131}, {0, 2, 1}},
      {"021 even", 3, {4, 128, 66}, {0, 2, 1}},
      {"210", 3, {33, 17, 70}, {2, 1, 0}},
      {"210 even", 3, {64, 6, 128}, {2, 1, 0}},
      {"102 long rows", 3, {37, 29, 515}, {1, 0, 2}},
      {"102 short rows", 3, {37, 29, 3}, {1, 0, 2}},
      {"102 row tiles", 3, {40, 24, 64}, {1, 0, 2}},
      {"102 row tiles 4", 3, {16, 12, 72}, {1, 0, 2}},
      {"120", 3, {40, 50, 60}, {1, 2, 0}},
      {"201", 3, {40, 50, 60}, {2, 0, 1}},
      {"0321", 4, {3, 20, 36, 44}, {0, 3, 2, 1}},
      {"2301", 4, {6, 7, 10, 12}, {2, 3, 0, 1}},
      {"1032", 4, {6, 7, 10, 12}, {1, 0, 3, 2}},
      {"identity", 3, {9, 10, 11}, {0, 1, 2}},
  };
  std::vector<int> opts(quick ? kQuickOpts : kOpts, quick ? kQuickOpts + kNumQuick : kOpts + kNumOpts);
  for (const C &c : cs)
    for (size_t es : kSizes)
      for (int o : opts) {
        size_t soff = (rnd() % 3 == 0) ? size_t(rint_(0, 15)) : 0, doff = (rnd() % 3 == 0) ? size_t(rint_(0, 15)) : 0;
        check_permute(c.tag, es, c.nd, c.sh, c.perm, o, soff, doff);
      }
  /* odd element sizes 3, 6 and 7 through the gather fallback */
  for (size_t es : {3, 6, 7}) {
    int64_t sh[3] = {21, 33, 45};
    int p[3] = {0, 2, 1};
    check_permute("odd es", es, 3, sh, p, 0, 0, 0);
  }
  /* 0-d, empty, 8-d */
  {
    check_permute("0-d", 8, 0, nullptr, nullptr, 0, 0, 0);
    int64_t sh[3] = {4, 0, 5};
    int p[3] = {2, 0, 1};
    check_permute("empty", 4, 3, sh, p, 0, 0, 0);
    int64_t s8[8] = {2, 3, 2, 4, 3, 2, 5, 3};
    int p8[8] = {7, 5, 3, 1, 0, 2, 4, 6};
    for (size_t es : kSizes) check_permute("8-d", es, 8, s8, p8, 0, 0, 0);
  }
}

static void random_permutes(int iters) {
  for (int it = 0; it < iters; it++) {
    int nd = int(rint_(1, 8));
    int64_t sh[8], total = 1;
    const int64_t cap = int64_t(rint_(1000, 1000000));
    for (int i = 0; i < nd; i++) {
      int64_t e = rnd() % 5 == 0 ? 1 : rint_(1, nd <= 2 ? 3000 : nd == 3 ? 300 : nd <= 5 ? 40 : 12);
      if (total * e > cap) e = rint_(1, 3);
      sh[i] = e;
      total *= e;
    }
    int perm[8];
    random_perm(perm, nd);
    size_t es = kSizes[rnd() % 6];
    if (total * int64_t(es) > 24000000) continue;
    int opts = kOpts[rnd() % kNumOpts];
    size_t soff = rnd() % 2 ? size_t(rint_(0, 15)) : 0, doff = rnd() % 2 ? size_t(rint_(0, 15)) : 0;
    check_permute("random", es, nd, sh, perm, opts, soff, doff);
  }
}

static void random_strided(int iters) {
  for (int it = 0; it < iters; it++) {
    int nd = int(rint_(1, 6));
    int64_t sh[16], ds[16], ss[16], db, sb, total = 1;
    for (int i = 0; i < nd; i++) {
      sh[i] = rnd() % 5 == 0 ? 1 : rint_(1, nd <= 2 ? 2000 : nd == 3 ? 150 : 25);
      if (total * sh[i] > 2000000) sh[i] = rint_(1, 2);
      total *= sh[i];
    }
    size_t es = kSizes[rnd() % 6];
    int64_t dspan = random_layout(ds, &db, sh, nd, 0, FLIP_ONE_IN);
    int64_t sspan = random_layout(ss, &sb, sh, nd, ZERO_ONE_IN, FLIP_ONE_IN);
    if ((dspan + sspan) * int64_t(es) > 64000000) continue;
    int opts = kOpts[rnd() % kNumOpts];
    size_t soff = rnd() % 2 ? size_t(rint_(0, 15)) : 0, doff = rnd() % 2 ? size_t(rint_(0, 15)) : 0;
    check_strided("strided", es, nd, sh, ds, db, dspan, ss, sb, sspan, opts, soff, doff);
  }
  /* pitched rows (memcpy2D and its kernel twin), and a plain contiguous copy */
  for (int o : {0, 1}) {
    int64_t sh[2] = {300, 1000}, ds[2] = {1040, 1}, ss[2] = {1013, 1};
    check_strided("pitched", 4, 2, sh, ds, 0, 300 * 1040, ss, 0, 300 * 1013, o, 0, 0);
    check_strided("pitched odd", 1, 2, sh, ds, 0, 300 * 1040, ss, 0, 300 * 1013, o, 3, 5);
    int64_t c[2] = {1000, 1};
    check_strided("contiguous", 8, 2, sh, c, 0, 300 * 1000, c, 0, 300 * 1000, o, 0, 0);
  }
}

static void errors() {
  int64_t sh[2] = {4, 4};
  int bad[2] = {1, 1};
  CHECK(parray_permute_cuda((void *)16, (void *)16, 4, 2, sh, bad, 0) == PARRAY_ERR_INVALID, "bad perm accepted");
  CHECK(strcmp(parray_last_error(), "parray_permute_cuda: perm is not a permutation of 0..1") == 0, "error text: %s",
        parray_last_error());
  int p[2] = {1, 0};
  CHECK(parray_permute_cuda((void *)16, (void *)16, 17, 2, sh, p, 0) == PARRAY_ERR_INVALID, "elem size 17");
  CHECK(strcmp(parray_last_error(), "parray_permute_cuda: bad rank 2, element size 17 (1..16) or null shape/perm") == 0,
        "error text: %s", parray_last_error());
  CHECK(parray_permute_cuda(nullptr, (void *)16, 4, 2, sh, p, 0) == PARRAY_ERR_INVALID, "null dst");
  CHECK(strcmp(parray_last_error(), "parray_copy_strided_cuda: null pointer") == 0, "error text: %s",
        parray_last_error());
  int64_t st[2] = {4, 1};
  CHECK(parray_copy_strided_cuda((void *)16, st, (void *)16, st, sh, 17, 4, 0) == PARRAY_ERR_INVALID, "rank 17");
  int64_t z[2] = {0, 4};
  CHECK(parray_copy_strided_cuda(nullptr, st, nullptr, st, z, 2, 4, 0) == PARRAY_OK, "empty copy");
}

/* Two u8 cases past 2^31 elements: tile transpose (packed 4x4) and the
 * gather kernel (a transpose with 3-wide rows), both on int64 indices. */
static void big_cases() {
  {
    int64_t sh[3] = {2, 32800, 32800}; /* 2.15e9 bytes */
    int p[3] = {0, 2, 1};
    printf("big: u8 [2][32800][32800] (0,2,1)\n");
    fflush(stdout);
    check_permute("big tile", 1, 3, sh, p, 0, 0, 0);   /* packed 4x4 bytes, int32 word index */
    check_permute("big tile", 1, 3, sh, p, 16, 0, 0);  /* byte slots, int64 index */
  }
  {
    int64_t sh[2] = {715827883, 3}; /* 2147483649 bytes */
    int p[2] = {1, 0};
    printf("big: u8 [715827883][3] (1,0)\n");
    fflush(stdout);
    check_permute("big gather", 1, 2, sh, p, 0, 0, 0);
  }
}

extern "C" long parray__permute_fastdiv_selftest(unsigned long long seed, long iters);

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "fastdiv") == 0) { /* host-only: no device needed */
    long bad = parray__permute_fastdiv_selftest(12345, 2000000);
    printf("fastdiv: %ld mismatches in 4000000 divisions\n", bad);
    printf("%d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad ? 1 : 0;
  }
  if (parray_cuda_device_count() == 0) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  const bool big = argc > 1 && strcmp(argv[1], "big") == 0;
  const bool quick = argc > 1 && strcmp(argv[1], "quick") == 0; /* for compute-sanitizer */
  errors();
  fixed_cases(quick);
  if (!quick) {
    random_permutes(400);
    random_strided(300);
  }
  if (big) big_cases();
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures ? 1 : 0;
}
