/* SPDX-License-Identifier: Apache-2.0 */
/* sgemm.cu - parray_sgemm: the FP32 matrix product on the GPU (plain FFMA,
 * no tensor cores), tuned for Hopper. Checks the arguments, maps every
 * layout onto a row-major product, chooses the kernel from the device, the
 * problem size and the operands (the Hopper kernel of sgemm_hopper.cu, with
 * one operand transposed into scratch memory first when both are
 * k-contiguous, or a tile configuration of sgemm_kernel.cuh) and launches.
 * Internal test hooks (parray__, declared by the tests themselves):
 * parray__sgemm_last_choice answers what the last call on this thread
 * launched; parray__sgemm_fail_scratch(1) makes every later allocation of
 * the transposition's scratch fail (as cudaErrorMemoryAllocation, until
 * parray__sgemm_fail_scratch(0)), so that the fallback of the automatic
 * choice on slot 1 (and PARRAY_ERR_ALLOC for slot 4 asked) can be tested. */
#include "sgemm_args.h"
#include "sgemm_kernel.cuh"
#ifdef PARRAY_SGEMM_HOPPER
#include "sgemm_hopper.h"
#endif

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>

#include "parray/cuda.h"
#include "parray/permute.h"
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
// producer warpgroup, two consumer warpgroups of 8 x 16 per thread; both
// operands k-contiguous: one transposed first, see nt_plan); not a Cfg, so
// it has no ConfigEntry and run_hopper() launches it. Slot 13 (after the
// tuning slots): its cluster form, two blocks side by side in n sharing each
// A slice through TMA multicast.
enum {
  SLOT_AUTO = 0,
  SLOT_LARGE = 1,
  SLOT_SMALL = 2,
  SLOT_SMALL_KG = 3,
  SLOT_HOPPER = 4,
  SLOT_VARIANTS = 5,
  N_VARIANTS = 8,
  SLOT_HOPPER_CLUSTER = SLOT_VARIANTS + N_VARIANTS,
  N_SLOTS
};
#ifdef PARRAY_SGEMM_HOPPER
static const char HOPPER_NAME[] = "256x128x16 t384 r8x16 sm90a TMA";
static const char HOPPER_CLUSTER_NAME[] = "256x128x16 t384 sm90a TMA cluster 1x2 mc A";
#endif

#ifdef PARRAY_SGEMM_VARIANTS
bool variant_entry(int v, ConfigEntry *e); // sgemm_variants.cu
#endif

// What the last call on this thread launched (parray__sgemm_last_choice).
static thread_local int last_slot, last_transposed;
// The scratch allocation fails (parray__sgemm_fail_scratch), on every thread.
static std::atomic<int> fail_scratch(0);

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

/* The slot and the name of the form h runs (one block, or the cluster form) */
static int hopper_slot_of(const HopperArgs &h) { return h.cluster == 2 ? SLOT_HOPPER_CLUSTER : SLOT_HOPPER; }
static const char *hopper_name(const HopperArgs &h) { return h.cluster == 2 ? HOPPER_CLUSTER_NAME : HOPPER_NAME; }

/* Whether the automatic choice runs the Hopper kernel's cluster form
 * (slot 13) rather than the one-block form (slot 4): where it was faster in
 * two runs on an H100 (bench/RESULTS.md): A m-contiguous and B k-contiguous
 * in the row-major view (row-major TT, column-major TT), which the kernel
 * runs as is, at 6144^3 (0.986-0.990 of cuBLAS against 0.974-0.978) and
 * 8192^3 (0.984-0.986 against 0.966-0.974); not at 2048 and 4096
 * (1.006-1.011 against 1.009-1.021). Row-NN (run as C^T) and row-TN lost
 * with it at every size (0.913-0.983 against 0.977-1.023). NT, after its
 * transposition the NN form (B transposed) or this TT form (A transposed,
 * not timed: square products transpose B), stays on the one-block form.
 * So: row-/col-major TT with m, n, k >= 6144. PARRAY_SGEMM_HOPPER_CLUSTER=0 / =1 in the environment forces
 * one form or the other (for comparisons; read once). */
static bool hopper_cluster_wanted(const HopperArgs &h) {
  static const int forced = [] {
    const char *v = getenv("PARRAY_SGEMM_HOPPER_CLUSTER");
    return v && (v[0] == '0' || v[0] == '1') && v[1] == 0 ? v[0] - '0' : -1;
  }();
  if (forced >= 0) return forced == 1;
  return !h.ak && h.bk && h.M >= 6144 && h.N >= 6144 && h.K >= 6144;
}

/* The automatic choice takes the Hopper kernel once its 256 x 128 tiles
 * give most SMs one (below that the smaller tiles of slots 2-3 win) and fill
 * their last wave of one block per SM to 90% or more: with one big tile per
 * SM a ragged last wave costs more than slot 1's (3072^3: 288 tiles on 132
 * SMs, 0.82 of cuBLAS against slot 1's 0.97; bench/RESULTS.md 2026-11-24).
 * Counted on the product the kernel runs: A k-contiguous with B not is
 * computed as C^T (sgemm_hopper.cu), M and N swapped. */
static bool hopper_pays(const HopperArgs &h, int sms) {
  const bool ct = h.ak && !h.bk;
  const int64_t tiles = cdiv(ct ? h.N : h.M, HOPPER_BM) * cdiv(ct ? h.M : h.N, HOPPER_BN), waves = cdiv(tiles, sms);
  return tiles >= (int64_t)sms * 3 / 4 && tiles * 10 >= waves * sms * 9;
}

/* Both operands k-contiguous (row-major NT, column-major TN): the kernel
 * reads them so no faster than slot 1 (0.89-0.95 of cuBLAS, bench/RESULTS.md
 * 2026-11-24), and a C^T swap gives NT again. So the smaller operand (B on a
 * tie) is transposed into scratch memory first, rows ld = its m or n rounded
 * up to a multiple of 4 apart (whatever its own leading dimension and
 * alignment), and the kernel runs the product as the layout it is fast on:
 * A m-contiguous (row-major TT) or B n-contiguous (NN, as C^T). Returns those
 * arguments with a null pointer in the scratch operand's place (null is
 * aligned, so hopper_unsupported judges the rest); *on_a: A is the one. */
static HopperArgs nt_plan(const HopperArgs &h, bool *on_a) {
  HopperArgs t = h;
  *on_a = h.M < h.N;
  if (*on_a) t.A = nullptr, t.lda = ((long long)h.M + 3) & ~3LL, t.ak = 0;
  else t.B = nullptr, t.ldb = ((long long)h.N + 3) & ~3LL, t.bk = 0;
  return t;
}

enum { MAX_POOL_DEVICES = 64 };

/* The memory pool of the scratch operand on device dev, made on first use.
 * Stream-ordered allocation (cudaMallocFromPoolAsync / cudaFreeAsync on the
 * caller's stream): the buffer is never handed to another call while a
 * kernel on another stream may still read it, with no host synchronisation
 * and no locking around the product. A pool of its own rather than the
 * device's default one: the default pool's release threshold belongs to the
 * program, and at its usual 0 every synchronisation would give the scratch
 * back and the next product map it anew. This pool keeps what it got (no
 * release threshold), like a cached buffer that grows to the largest
 * operand transposed (64 MB at 4096^2, 256 MB at 8192^2), and the driver
 * frees it with the context at exit. Errors: what the CUDA calls answered;
 * cudaErrorNotSupported without memory pools on dev. */
static cudaError_t scratch_pool(int dev, cudaMemPool_t *pool) {
  static std::mutex mu;
  static cudaMemPool_t pools[MAX_POOL_DEVICES];
  if (dev < 0 || dev >= MAX_POOL_DEVICES) return cudaErrorNotSupported;
  std::lock_guard<std::mutex> lock(mu);
  if (!pools[dev]) {
    int ok = 0;
    cudaError_t e = cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, dev);
    if (e != cudaSuccess || !ok) return e != cudaSuccess ? e : cudaErrorNotSupported;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t p;
    if ((e = cudaMemPoolCreate(&p, &props)) != cudaSuccess) return e;
    uint64_t keep = UINT64_MAX;
    if ((e = cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep)) != cudaSuccess) {
      cudaMemPoolDestroy(p);
      return e;
    }
    pools[dev] = p;
  }
  *pool = pools[dev];
  return cudaSuccess;
}

/* The product through nt_plan's transposition: t as nt_plan made it (on_a:
 * A is transposed). When the scratch cannot be had, the automatic choice
 * (asked false) leaves the product to slot 1 (*taken = false); an explicit
 * request gets PARRAY_ERR_ALLOC. */
static parray_status run_transposed(const char *fn, bool asked, const HopperArgs &h, HopperArgs t, bool on_a,
                                    int dev, cudaStream_t s, bool *taken) {
  const long long rows = on_a ? h.M : h.N, ld = on_a ? t.lda : t.ldb;
  const size_t bytes = (size_t)ld * (size_t)h.K * sizeof(float);
  cudaMemPool_t pool = nullptr; // (set by scratch_pool before any use)
  void *buf = nullptr;
  cudaError_t e = fail_scratch.load(std::memory_order_relaxed) ? cudaErrorMemoryAllocation : scratch_pool(dev, &pool);
  if (e == cudaSuccess) e = cudaMallocFromPoolAsync(&buf, bytes, pool, s);
  if (e != cudaSuccess) {
    cudaGetLastError(); // not sticky: clear it
    *taken = asked;
    if (!asked) return PARRAY_OK;
    parray_set_error("%s: configuration %s: scratch for the transposed operand (%zu bytes): %s", fn,
                     hopper_name(t), bytes, cudaGetErrorString(e));
    return PARRAY_ERR_ALLOC;
  }
  // buf[p*ld + i] = X[i*ldx + p]: the operand's rows (k long) become its columns.
  const int64_t shape[2] = {rows, h.K}, dst_stride[2] = {1, ld}, src_stride[2] = {on_a ? h.lda : h.ldb, 1};
  parray_status st = parray_copy_strided_cuda(buf, dst_stride, on_a ? h.A : h.B, src_stride, shape, 2,
                                              sizeof(float), s);
  if (on_a) t.A = static_cast<const float *>(buf);
  else t.B = static_cast<const float *>(buf);
  if (st == PARRAY_OK) {
    last_slot = hopper_slot_of(t);
    last_transposed = on_a ? 1 : 2;
    st = parray_cuda_status(hopper_launch(t, s), fn);
  }
  e = cudaFreeAsync(buf, s);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (st == PARRAY_OK) st = parray_cuda_status(e, fn);
  }
  return st;
}

/* The Hopper kernel, when asked for (slot 4, or 13 for its cluster form) or
 * when the automatic choice (slot 0) takes it (hopper_allowed, hopper_pays
 * and hopper_unsupported agree; the form as hopper_cluster_wanted says; both
 * operands k-contiguous through nt_plan's transposition). *taken false: it
 * did not run and the caller goes on to slots 1-3. */
static parray_status run_hopper(const char *fn, int slot, const HopperArgs &h0, int dev, int sms, cudaStream_t s,
                                bool *taken) {
  *taken = false;
  const bool asked = slot != SLOT_AUTO;
  if (!asked && !hopper_allowed()) return PARRAY_OK;
  bool on_a = false;
  const bool nt = h0.ak && h0.bk;
  HopperArgs h = h0;
  h.cluster = slot == SLOT_HOPPER_CLUSTER || (!asked && hopper_cluster_wanted(h0)) ? 2 : 1;
  const HopperArgs t = nt ? nt_plan(h, &on_a) : h;
  const char *why = hopper_unsupported(t, dev);
  if (!asked && (why || !hopper_pays(t, sms))) return PARRAY_OK;
  *taken = true;
  if (why) {
    parray_set_error("%s: configuration %s: %s", fn, hopper_name(h), why);
    return PARRAY_ERR_UNSUPPORTED;
  }
  if (nt) return run_transposed(fn, asked, h, t, on_a, dev, s, taken);
  last_slot = hopper_slot_of(h);
  return parray_cuda_status(hopper_launch(t, s), fn);
}
#endif

/* Slots 1-3 (and the tuning slots): configuration `slot` on the product pr
 * (ak / bk: A / B k-contiguous), split-K over `splits` k slices. */
static parray_status run_config(const char *fn, int slot, int splits, const SgemmProblem &pr, int ak, int bk,
                                cudaStream_t s) {
  ConfigEntry e;
  if (!get_entry(slot, &e)) {
    parray_set_error("%s: kernel configuration %d is not in this build", fn, slot);
    return PARRAY_ERR_UNSUPPORTED;
  }
  LaunchFn f = e.fn[ak][bk];
  if (!f) {
    parray_set_error("%s: configuration %s has no kernel for this operand layout in this build", fn, e.name);
    return PARRAY_ERR_UNSUPPORTED;
  }
  const int64_t tiles_m = cdiv(pr.M, e.bm), tiles_n = cdiv(pr.N, e.bn), k = pr.K;
  if (tiles_m * tiles_n > INT_MAX) {
    parray_set_error("%s: %lld x %lld is too large for one launch", fn, (long long)pr.M, (long long)pr.N);
    return PARRAY_ERR_UNSUPPORTED;
  }
  Params P;
  static_cast<SgemmProblem &>(P) = pr;
  P.tiles_m = (int)tiles_m;
  P.tiles_n = (int)tiles_n;
  P.group_m = 16;
  P.vecA = k > 0 && aligned16(pr.A, pr.lda);
  P.vecB = k > 0 && aligned16(pr.B, pr.ldb);
  P.vecC = aligned16(pr.C, pr.ldc);
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
    if (pr.beta != 1.0f) {
      const long long total = (long long)pr.M * pr.N;
      const int blocks = (int)(total / 256 + 1 < 4096 ? total / 256 + 1 : 4096);
      scale_c_kernel<<<blocks, 256, 0, s>>>(pr.C, pr.ldc, pr.M, pr.N, pr.beta);
      const parray_status st = parray_cuda_status(cudaGetLastError(), fn);
      if (st != PARRAY_OK) return st;
    }
  }
  last_slot = slot;
  return parray_cuda_status(f(P, splits, s), fn);
}

static parray_status run(const char *fn, int slot, int splits, parray_layout order, parray_trans ta, parray_trans tb,
                         int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda, const float *B,
                         int64_t ldb, float beta, float *C, int64_t ldc, cudaStream_t s) {
  last_slot = last_transposed = 0;
  const parray_status st = parray__sgemm_check(fn, order, ta, tb, m, n, k, alpha, A, lda, B, ldb, C, ldc);
  if (st != PARRAY_OK) return st;
  if (splits < 1) {
    parray_set_error("%s: splits must be >= 1 (got %d)", fn, splits);
    return PARRAY_ERR_INVALID;
  }
  if (m == 0 || n == 0) return PARRAY_OK;
  parray__sgemm_as_rowmajor(order, &ta, &tb, &m, &n, &A, &lda, &B, &ldb);
  if (alpha == 0.0f) k = 0; // A and B are not read
  const SgemmProblem pr = {A, B, C, lda, ldb, ldc, (int)m, (int)n, (int)k, alpha, beta};
  // Row-major: A is k-contiguous when not transposed, B when transposed.
  const int ak = ta == PARRAY_NOTRANS, bk = tb == PARRAY_TRANS;

  int dev = 0, sms = 132;
  const bool hopper_slot = slot == SLOT_AUTO || slot == SLOT_HOPPER || slot == SLOT_HOPPER_CLUSTER;
  if (hopper_slot) {
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      return parray_cuda_status(cudaGetLastError(), fn);
  }
#ifdef PARRAY_SGEMM_HOPPER
  if (hopper_slot) {
    // The Hopper kernel has no split-K: splits is ignored for it.
    const HopperArgs h = {pr, ak, bk, 1};
    bool taken = false;
    const parray_status hs = run_hopper(fn, slot, h, dev, sms, s, &taken);
    if (taken) return hs;
  }
#endif
  if (slot == SLOT_AUTO) {
    slot = auto_slot(m, n, sms);
    splits = 1;
  }
  return run_config(fn, slot, splits, pr, ak, bk, s);
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
  if (config < 0 || config >= N_SLOTS) {
    parray_set_error("parray_sgemm_config: no configuration %d", config);
    return PARRAY_ERR_INVALID;
  }
  return run("parray_sgemm_config", config, splits, order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, s);
}

int parray_sgemm_config_count(void) { return N_SLOTS; }

/* Test hook: the configuration slot that the last parray_sgemm or
 * parray_sgemm_config call on this thread launched (0: none, e.g. an error
 * or an empty C) and the operand of its row-major product (after the
 * column-major mapping) that it transposed into scratch memory first (0:
 * none, 1: A, 2: B). */
PARRAY_API void parray__sgemm_last_choice(int *slot, int *transposed) {
  *slot = last_slot;
  *transposed = last_transposed;
}

/* Test hook: on != 0 makes the scratch allocation of the NT/TN
 * transposition (run_transposed) fail from now on, on every thread, as if
 * the device were out of memory; 0 lets it allocate again. */
PARRAY_API void parray__sgemm_fail_scratch(int on) { fail_scratch.store(on != 0, std::memory_order_relaxed); }

const char *parray_sgemm_config_name(int config) {
  if (config < 0 || config >= N_SLOTS) return nullptr;
  if (config == SLOT_AUTO) return "auto";
#ifdef PARRAY_SGEMM_HOPPER
  if (config == SLOT_HOPPER) return HOPPER_NAME;
  if (config == SLOT_HOPPER_CLUSTER) return HOPPER_CLUSTER_NAME;
#endif
  ConfigEntry e;
  return get_entry(config, &e) ? e.name : "(not built)";
}

} // extern "C"
