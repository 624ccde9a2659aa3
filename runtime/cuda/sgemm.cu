/* sgemm.cu - parray_sgemm: the FP32 matrix product on the GPU (plain FFMA,
 * no tensor cores), tuned for Hopper. Checks the arguments, maps every
 * layout onto the row-major kernel of sgemm_kernel.cu, chooses the tile
 * configuration from the problem size and launches. */
#include "../sgemm_args.h"
#include "sgemm_kernel.cu"
#ifdef PARRAY_SGEMM_HOPPER
#include "sgemm_hopper.h"
#endif

#include <climits>
#include <cstdint>
#include <cstdlib>

#include "parray/cuda.h"
#include "parray/sgemm.h"

namespace parray_sgemm_detail {

// Slot 1: the large-problem kernel, 128x128 block tile, BK = 16, 256 threads
// as 4x2 warps, 8x8 per thread, 2 blocks per SM.
typedef Cfg<2, 2, 4, 2, 16, 2> CfgLarge;
// Slot 2: the small-problem kernel, 128x64 block tile, BK = 16, 128 threads
// as 4x1 warps, 8x8 per thread: twice the blocks for problems that would
// leave SMs idle with 128x128 tiles.
typedef Cfg<2, 2, 4, 1, 16, 2> CfgSmall;
// Slot 3: the same tile shared by two k groups of 4 warps (256 threads, each
// group 8 of every slice's 16 steps, partial sums added at the end), for
// problems with at most one 128x64 tile per SM: twice the warps per SM.
typedef Cfg<2, 2, 4, 1, 16, 1, 8, 0, 2> CfgSmallKG;

// Slot 4: the Hopper kernel of sgemm_hopper.cu (sm_90a: TMA ring, one
// producer warpgroup, two consumer warpgroups of 8 x 16 per thread); not a
// Cfg, so it has no ConfigEntry and run() launches it itself.
enum {
  SLOT_AUTO = 0,
  SLOT_LARGE = 1,
  SLOT_SMALL = 2,
  SLOT_SMALL_KG = 3,
  SLOT_HOPPER = 4,
  SLOT_VARIANTS = 5,
  N_VARIANTS = 8
};
#ifdef PARRAY_SGEMM_HOPPER
static const char HOPPER_NAME[] = "256x128x16 t384 r8x16 sm90a TMA";
#endif

#ifdef PARRAY_SGEMM_VARIANTS
bool variant_entry(int v, ConfigEntry *e); // sgemm_variants.cu
#endif

static bool get_entry(int slot, ConfigEntry *e) {
  switch (slot) {
  case SLOT_LARGE:
    *e = make_entry<CfgLarge, true>("128x128x16 t256 r8x8");
    return true;
  case SLOT_SMALL:
    *e = make_entry<CfgSmall, true>("128x64x16 t128 r8x8");
    return true;
  case SLOT_SMALL_KG:
    *e = make_entry<CfgSmallKG, true>("128x64x16 t256 r8x8 2 k groups");
    return true;
  default:
#ifdef PARRAY_SGEMM_VARIANTS
    if (slot >= SLOT_VARIANTS && slot < SLOT_VARIANTS + N_VARIANTS) return variant_entry(slot - SLOT_VARIANTS, e);
#endif
    return false;
  }
}

/* C = beta*C (beta == 0: C = 0 without reading), before split-K slices add in. */
static __global__ void scale_c_kernel(float *C, long long ldc, int M, int N, float beta) {
  const long long total = (long long)M * N;
  for (long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x; x < total;
       x += (long long)gridDim.x * blockDim.x) {
    const long long r = x / N, c = x % N;
    float *q = C + r * ldc + c;
    *q = beta != 0.0f ? beta * *q : 0.0f;
  }
}


static bool aligned16(const void *p, int64_t ld) { return ((uintptr_t)p & 15u) == 0 && (ld & 3) == 0; }

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The automatic choice: 128x128 tiles once they give every SM about two
 * blocks, else 128x64 tiles: with two k groups when there is at most one
 * such tile per SM (else two blocks of 4 warps share an SM already). */
static int auto_slot(int64_t m, int64_t n, int sms) {
  if (cdiv(m, 128) * cdiv(n, 128) >= (int64_t)sms * 3 / 2) return SLOT_LARGE;
  return cdiv(m, 128) * cdiv(n, 64) <= sms ? SLOT_SMALL_KG : SLOT_SMALL;
}

#ifdef PARRAY_SGEMM_HOPPER
/* PARRAY_SGEMM_HOPPER=0 in the environment keeps the automatic choice off
 * the Hopper kernel (for comparisons); read once. */
static bool hopper_allowed() {
  static const bool on = [] {
    const char *v = getenv("PARRAY_SGEMM_HOPPER");
    return !(v && v[0] == '0' && v[1] == 0);
  }();
  return on;
}

/* The automatic choice takes the Hopper kernel once its 256 x 128 tiles
 * give most SMs one (below that the smaller tiles of slots 2-3 win) and fill
 * their last wave of one block per SM to 90% or more: with one big tile per
 * SM a ragged last wave costs more than slot 1's (3072^3: 288 tiles on 132
 * SMs, 0.82 of cuBLAS against slot 1's 0.97; bench/RESULTS.md 2026-11-24). */
static bool hopper_pays(int64_t m, int64_t n, int sms) {
  const int64_t tiles = cdiv(m, HOPPER_BM) * cdiv(n, HOPPER_BN), waves = cdiv(tiles, sms);
  return tiles >= (int64_t)sms * 3 / 4 && tiles * 10 >= waves * sms * 9;
}

static HopperArgs hopper_args(parray_trans ta, parray_trans tb, int64_t m, int64_t n, int64_t k, float alpha,
                              const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                              int64_t ldc) {
  HopperArgs h;
  h.A = A;
  h.B = B;
  h.C = C;
  h.lda = lda;
  h.ldb = ldb;
  h.ldc = ldc;
  h.M = (int)m;
  h.N = (int)n;
  h.K = (int)k;
  h.alpha = alpha;
  h.beta = beta;
  h.ak = ta == PARRAY_NOTRANS; // row-major: A k-contiguous when not transposed, B when transposed
  h.bk = tb == PARRAY_TRANS;
  return h;
}

static parray_status run_hopper(const char *fn, const HopperArgs &h, int dev, cudaStream_t s) {
  const char *why = hopper_unsupported(h, dev);
  if (why) {
    parray_set_error("%s: configuration %s: %s", fn, HOPPER_NAME, why);
    return PARRAY_ERR_UNSUPPORTED;
  }
  return parray_cuda_status(hopper_launch(h, s), fn);
}
#endif

static parray_status run(const char *fn, int slot, int splits, parray_layout order, parray_trans ta, parray_trans tb,
                         int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda, const float *B,
                         int64_t ldb, float beta, float *C, int64_t ldc, cudaStream_t s) {
  parray_status st = parray__sgemm_check(fn, order, ta, tb, m, n, k, alpha, A, lda, B, ldb, C, ldc);
  if (st != PARRAY_OK) return st;
  if (splits < 1) {
    parray_set_error("%s: splits must be >= 1 (got %d)", fn, splits);
    return PARRAY_ERR_INVALID;
  }
  if (m == 0 || n == 0) return PARRAY_OK;
  parray__sgemm_as_rowmajor(order, &ta, &tb, &m, &n, &A, &lda, &B, &ldb);
  if (alpha == 0.0f) k = 0; // A and B are not read

  int dev = 0, sms = 132;
  if (slot == SLOT_AUTO || slot == SLOT_HOPPER) {
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      return parray_cuda_status(cudaGetLastError(), fn);
  }
#ifdef PARRAY_SGEMM_HOPPER
  if (slot == SLOT_AUTO || slot == SLOT_HOPPER) {
    // The Hopper kernel has no split-K: splits is ignored for it.
    const HopperArgs h = hopper_args(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    // Both operands k-contiguous (row-major NT, column-major TN): the Hopper
    // kernel reads them as they are and is no faster than slot 1 (0.90 of
    // cuBLAS, bench/RESULTS.md 2026-11-24), so the automatic choice keeps slot 1.
    if (slot == SLOT_HOPPER ||
        (hopper_allowed() && !(h.ak && h.bk) && hopper_pays(m, n, sms) && !hopper_unsupported(h, dev)))
      return run_hopper(fn, h, dev, s);
  }
#endif
  if (slot == SLOT_AUTO) {
    slot = auto_slot(m, n, sms);
    splits = 1;
  }
  ConfigEntry e;
  if (!get_entry(slot, &e)) {
    parray_set_error("%s: kernel configuration %d is not in this build", fn, slot);
    return PARRAY_ERR_UNSUPPORTED;
  }
  // Row-major: A is k-contiguous when not transposed, B when transposed.
  const int ak = ta == PARRAY_NOTRANS, bk = tb == PARRAY_TRANS;
  LaunchFn f = e.fn[ak][bk];
  if (!f) {
    parray_set_error("%s: configuration %s has no kernel for this operand layout in this build", fn, e.name);
    return PARRAY_ERR_UNSUPPORTED;
  }
  const int64_t tiles_m = cdiv(m, e.bm), tiles_n = cdiv(n, e.bn);
  if (tiles_m * tiles_n > INT_MAX) {
    parray_set_error("%s: %lld x %lld is too large for one launch", fn, (long long)m, (long long)n);
    return PARRAY_ERR_UNSUPPORTED;
  }
  Params P;
  P.A = A;
  P.B = B;
  P.C = C;
  P.lda = lda;
  P.ldb = ldb;
  P.ldc = ldc;
  P.M = (int)m;
  P.N = (int)n;
  P.K = (int)k;
  P.alpha = alpha;
  P.beta = beta;
  P.tiles_m = (int)tiles_m;
  P.tiles_n = (int)tiles_n;
  P.group_m = 16;
  P.vecA = k > 0 && aligned16(A, lda);
  P.vecB = k > 0 && aligned16(B, ldb);
  P.vecC = aligned16(C, ldc);
  P.kchunk = (int)k;
  P.atomic = 0;
  if (splits > 1 && k > e.bk) {
    const int64_t chunk = cdiv(cdiv(k, splits), e.bk) * e.bk;
    splits = (int)cdiv(k, chunk);
    P.kchunk = (int)chunk;
  } else {
    splits = 1;
  }
  if (splits > 1) {
    // Split-K: C = beta*C first, then every slice adds alpha*partial atomically.
    P.atomic = 1;
    if (beta != 1.0f) {
      const long long total = (long long)m * n;
      const int blocks = (int)(total / 256 + 1 < 4096 ? total / 256 + 1 : 4096);
      scale_c_kernel<<<blocks, 256, 0, s>>>(C, ldc, (int)m, (int)n, beta);
      st = parray_cuda_status(cudaGetLastError(), fn);
      if (st != PARRAY_OK) return st;
    }
  }
  return parray_cuda_status(f(P, splits, s), fn);
}

} // namespace parray_sgemm_detail

using namespace parray_sgemm_detail;

extern "C" {

parray_status parray_sgemm(parray_layout order, parray_trans ta, parray_trans tb, int64_t m, int64_t n, int64_t k,
                           float alpha, const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                           int64_t ldc, struct CUstream_st *s) {
  return run("parray_sgemm", SLOT_AUTO, 1, order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, s);
}

parray_status parray_sgemm_config(int config, int splits, parray_layout order, parray_trans ta, parray_trans tb,
                                  int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                  const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                  struct CUstream_st *s) {
  if (config < 0 || config >= SLOT_VARIANTS + N_VARIANTS) {
    parray_set_error("parray_sgemm_config: no configuration %d", config);
    return PARRAY_ERR_INVALID;
  }
  return run("parray_sgemm_config", config, splits, order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, s);
}

int parray_sgemm_config_count(void) { return SLOT_VARIANTS + N_VARIANTS; }

const char *parray_sgemm_config_name(int config) {
  if (config < 0 || config >= SLOT_VARIANTS + N_VARIANTS) return nullptr;
  if (config == SLOT_AUTO) return "auto";
#ifdef PARRAY_SGEMM_HOPPER
  if (config == SLOT_HOPPER) return HOPPER_NAME;
#endif
  ConfigEntry e;
  return get_entry(config, &e) ? e.name : "(not built)";
}

} // extern "C"
