/* SPDX-License-Identifier: Apache-2.0 */
/* permute_kernels.cu - the GPU kernels behind parray_permute_cuda and
 * parray_copy_strided_cuda (copy_strided.cu plans, this file launches):
 *  - a tiled shared-memory transpose for copies where src and dst have
 *    different contiguous dimensions (any permutation that moves the last
 *    dimension), with one padding slot per tile row so that neither phase
 *    has bank conflicts, 4-byte elements as 2x2 blocks in 8-byte words,
 *    2-byte elements as 4x4 blocks in 8-byte words (or 2x2 in 4-byte words,
 *    the "half2 path") and 1-byte elements as 4x4 blocks in 4-byte words
 *    (register transposes with byte permutes);
 *  - a vectorised gather kernel (1..16-byte moves; by default one per thread
 *    in blocks of 128 threads, optionally 2, 4 or 8 in flight) for
 *    everything else, e.g. (1,0,2) as a batched row copy.
 * Index arithmetic is int32 when every offset fits, int64 otherwise, and
 * divides by precomputed magic numbers (round-up method: for n < 2^(N-1),
 * n / d == (mulhi(n, m) + n) >> s with s = ceil(log2 d) and
 * m = floor(2^N (2^s - d) / d) + 1). */
#include "parray/cuda.h"
#include "parray/permute.h"

#include <climits>
#include <cstdint>

namespace {

constexpr int KMAXD = 17; /* 16 dims + the byte dimension of the normaliser */
constexpr int THREADS = 256;
constexpr int UNROLL = 4; /* gather: units per thread */
constexpr int GATHER_T128 = 16; /* added to `un`: gather blocks of 128 threads */

struct FastDiv32 {
  uint32_t d, m, s;
  __host__ __device__ FastDiv32() : d(1), m(1), s(0) {}
  explicit FastDiv32(uint32_t dv) : d(dv), m(1), s(0) {
    while (s < 32 && (uint64_t(1) << s) < dv) s++;
    m = uint32_t((uint64_t(1) << 32) * ((uint64_t(1) << s) - dv) / dv + 1);
  }
  /* n < 2^31 */
  __host__ __device__ __forceinline__ void divmod(int32_t n, int32_t &q, int32_t &r) const {
    uint32_t un = uint32_t(n);
#ifdef __CUDA_ARCH__
    uint32_t hi = __umulhi(un, m);
#else
    uint32_t hi = uint32_t((uint64_t(un) * m) >> 32);
#endif
    uint32_t uq = (hi + un) >> s;
    q = int32_t(uq);
    r = int32_t(un - uq * d);
  }
};

struct FastDiv64 {
  uint64_t d, m;
  uint32_t s;
  __host__ __device__ FastDiv64() : d(1), m(1), s(0) {}
  explicit FastDiv64(uint64_t dv) : d(dv), m(1), s(0) {
    while (s < 63 && (uint64_t(1) << s) < dv) s++; /* dv <= 2^63 */
    unsigned __int128 p = ((unsigned __int128)1 << s) - dv;
    m = uint64_t((p << 64) / dv + 1);
  }
  /* n < 2^63 */
  __host__ __device__ __forceinline__ void divmod(int64_t n, int64_t &q, int64_t &r) const {
    uint64_t un = uint64_t(n);
#ifdef __CUDA_ARCH__
    uint64_t hi = __umul64hi(un, m);
#else
    uint64_t hi = uint64_t(((unsigned __int128)un * m) >> 64);
#endif
    uint64_t uq = (hi + un) >> s;
    q = int64_t(uq);
    r = int64_t(un - uq * d);
  }
};

template <typename I> struct FD;
template <> struct FD<int32_t> { using type = FastDiv32; };
template <> struct FD<int64_t> { using type = FastDiv64; };

/* Moves of 1..16 bytes. */
template <int B> struct U;
template <> struct U<1> { using type = unsigned char; };
template <> struct U<2> { using type = unsigned short; };
template <> struct U<4> { using type = unsigned int; };
template <> struct U<8> { using type = uint2; };
template <> struct U<16> { using type = uint4; };
struct alignas(16) Slot32 { /* a 4 x 4 block of 2-byte elements */
  uint4 lo, hi;
};
template <> struct U<32> { using type = Slot32; };

/* Stores (and loads) with or without the streaming cache hint. */
template <typename T> __device__ __forceinline__ T ld(const T *p, bool cs) { return cs ? __ldcs(p) : __ldg(p); }
template <typename T> __device__ __forceinline__ void st(T *p, const T &v, bool cs) {
  if (cs)
    __stcs(p, v);
  else
    *p = v;
}

/* ---------------------------------------------------------------- gather */

/* dims stored innermost first; dim k < nd-1 is divided out of the linear dst
 * index, the outermost keeps the quotient. Strides in units, signed. */
template <typename I> struct GatherDesc {
  typename FD<I>::type div[KMAXD];
  I ds[KMAXD], ss[KMAXD];
  I ds_outer, ss_outer;
  I total;
  int nd;
  int cs; /* streaming loads/stores */
};

/* The dst and src offsets (units, signed) of linear index i over n dims
 * stored innermost first: dim k < n-1 is divided out of i by div[k] (its
 * extent), the outermost keeps the quotient. Used by the gather (all its
 * dims) and by the tile transpose (its batch dims). The scalars come by
 * reference to the kernel parameter, so that they are read where they are
 * used: the kernels compile to the same code as with the loop written out. */
template <typename I, typename D>
__device__ __forceinline__ void split_offsets(const D *div, const I *ds, const I *ss, const I &ds_outer,
                                              const I &ss_outer, const int &n, I i, I &doff, I &soff) {
  I so = 0, dof = 0;
#pragma unroll
  for (int k = 0; k < KMAXD - 1; k++) {
    if (k >= n - 1) break;
    I q, r;
    div[k].divmod(i, q, r);
    so += r * ss[k];
    dof += r * ds[k];
    i = q;
  }
  soff = so + i * ss_outer;
  doff = dof + i * ds_outer;
}

template <typename I>
__device__ __forceinline__ void gather_offsets(const GatherDesc<I> &p, I i, I &doff, I &soff) {
  split_offsets(p.div, p.ds, p.ss, p.ds_outer, p.ss_outer, p.nd, i, doff, soff);
}

/* Each thread moves UN units of B bytes, NT apart (coalesced), all loads
 * issued before the first store; NT threads per block. */
template <int B, int UN, typename I, int NT = THREADS>
__global__ void __launch_bounds__(NT) gather_kernel(void *__restrict__ dstp, const void *__restrict__ srcp,
                                                    const GatherDesc<I> p) {
  using T = typename U<B>::type;
  T *dst = static_cast<T *>(dstp);
  const T *src = static_cast<const T *>(srcp);
  const I base = I(blockIdx.x) * (NT * UN) + I(threadIdx.x);
  const bool cs = p.cs != 0;
  T v[UN];
  I d[UN];
#pragma unroll
  for (int k = 0; k < UN; k++) {
    I i = base + k * NT;
    if (i < p.total) {
      I so;
      gather_offsets(p, i, d[k], so);
      v[k] = ld(src + so, cs);
    }
  }
#pragma unroll
  for (int k = 0; k < UN; k++)
    if (base + k * NT < p.total) st(dst + d[k], v[k], cs);
}

/* ------------------------------------------------------------- transpose */

/* Tile kernel problem, in words (one slot holds K x K elements, K words):
 * dim a has src stride 1 (word index x), dim b dst stride 1 (word index y);
 * A, B count words. src word (b, x) = so + b*Sb + x with b = K*y + i; dst
 * word (a, y) = dof + a*Da + y with a = K*x + j.
 * Tile order: the tile index t is split into 4 digits (fastest first) of
 * extents dig[0..2] and the quotient; digit k adds r*ma[k] to the a-tile,
 * r*mb[k] to the b-tile and r*mbi[k] to the batch index, so the host chooses
 * which tiles run at the same time (locality in both src and dst). Tiles
 * with an a-tile index >= nta (padding of a split digit) are skipped. */
template <typename I> struct TileDesc {
  typename FD<I>::type bdiv[KMAXD];
  I bds[KMAXD], bss[KMAXD];
  I bds_outer, bss_outer;
  int nb;
  I A, B, Da, Sb;
  typename FD<I>::type dig[3];
  I ma[4], mb[4], mbi[4];
  I nta, ntiles;
  int cs;
};

/* Register transposes of a K x K block of elements held in K words:
 * r[i] = word of row b = K*y + i (elements a = K*x + j, j < K); the slot
 * holds the K output words, word j = column a = K*x + j (elements b). */
template <int WB, int K> struct KT;
template <int WB> struct KT<WB, 1> {
  using W = typename U<WB>::type;
  __device__ static W pack(const W *r) { return r[0]; }
  __device__ static W word(const W &s, int) { return s; }
};
template <> struct KT<4, 2> { /* 2-byte elements: the half2 path */
  __device__ static uint2 pack(const unsigned *r) {
    return make_uint2(__byte_perm(r[0], r[1], 0x5410), __byte_perm(r[0], r[1], 0x7632));
  }
  __device__ static unsigned word(const uint2 &s, int j) { return j == 0 ? s.x : s.y; }
};
template <> struct KT<4, 4> { /* 1-byte elements */
  __device__ static uint4 pack(const unsigned *r) {
    unsigned lo01 = __byte_perm(r[0], r[1], 0x5140), hi01 = __byte_perm(r[0], r[1], 0x7362);
    unsigned lo23 = __byte_perm(r[2], r[3], 0x5140), hi23 = __byte_perm(r[2], r[3], 0x7362);
    return make_uint4(__byte_perm(lo01, lo23, 0x5410), __byte_perm(lo01, lo23, 0x7632),
                      __byte_perm(hi01, hi23, 0x5410), __byte_perm(hi01, hi23, 0x7632));
  }
  __device__ static unsigned word(const uint4 &s, int j) { return j == 0 ? s.x : j == 1 ? s.y : j == 2 ? s.z : s.w; }
};
template <> struct KT<8, 4> { /* 2-byte elements in 8-byte words: 4 x 4 blocks */
  __device__ static Slot32 pack(const uint2 *r) {
    Slot32 o;
    o.lo = make_uint4(__byte_perm(r[0].x, r[1].x, 0x5410), __byte_perm(r[2].x, r[3].x, 0x5410),
                      __byte_perm(r[0].x, r[1].x, 0x7632), __byte_perm(r[2].x, r[3].x, 0x7632));
    o.hi = make_uint4(__byte_perm(r[0].y, r[1].y, 0x5410), __byte_perm(r[2].y, r[3].y, 0x5410),
                      __byte_perm(r[0].y, r[1].y, 0x7632), __byte_perm(r[2].y, r[3].y, 0x7632));
    return o;
  }
  __device__ static uint2 word(const Slot32 &s, int j) {
    return j == 0 ? make_uint2(s.lo.x, s.lo.y)
                  : j == 1 ? make_uint2(s.lo.z, s.lo.w) : j == 2 ? make_uint2(s.hi.x, s.hi.y) : make_uint2(s.hi.z, s.hi.w);
  }
};
template <> struct KT<8, 2> { /* 4-byte elements in 8-byte words */
  __device__ static uint4 pack(const uint2 *r) { return make_uint4(r[0].x, r[1].x, r[0].y, r[1].y); }
  __device__ static uint2 word(const uint4 &s, int j) { return j == 0 ? make_uint2(s.x, s.y) : make_uint2(s.z, s.w); }
};

template <typename I>
__device__ __forceinline__ void tile_base(const TileDesc<I> &p, I t, I &ta, I &tb, I &so, I &dof) {
  I a = 0, b = 0, bi = 0;
#pragma unroll
  for (int k = 0; k < 3; k++) {
    I q, r;
    p.dig[k].divmod(t, q, r);
    a += r * p.ma[k];
    b += r * p.mb[k];
    bi += r * p.mbi[k];
    t = q;
  }
  a += t * p.ma[3];
  b += t * p.mb[3];
  bi += t * p.mbi[3];
  ta = a;
  tb = b;
  split_offsets(p.bdiv, p.bds, p.bss, p.bds_outer, p.bss_outer, p.nb, bi, dof, so);
}

/* Tile: 32 slots along a (one warp, contiguous in src) by 32*YM slots along
 * b (contiguous in dst). smem row = 32*YM + 1 slots (odd): in the load phase
 * the lanes of a warp write column yy of rows 0..31, addresses lane*(odd)+yy,
 * which fall into distinct banks (or bank groups for 8/16-byte slots, whose
 * accesses split into 16/8-lane phases); in the store phase the lanes read
 * consecutive slots of one row. All loads of a tile are issued before the
 * first shared-memory store. */
template <int WB, int K, int YM, typename I>
__global__ void __launch_bounds__(THREADS) tile_kernel(void *__restrict__ dstp, const void *__restrict__ srcp,
                                                       const TileDesc<I> p) {
  using W = typename U<WB>::type;
  using S = typename U<WB * K>::type;
  constexpr int TY = 32 * YM;
  constexpr int LIT = TY / 8; /* load iterations: 8 warps */
  __shared__ S tile[32][TY + 1];
  W *dst = static_cast<W *>(dstp);
  const W *src = static_cast<const W *>(srcp);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const bool cs = p.cs != 0;
  for (I t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
    I ta, tb, so, dof;
    tile_base(p, t, ta, tb, so, dof);
    if (ta >= p.nta) continue; /* padding tile: uniform over the block */
    const I x0 = ta * 32, y0 = tb * TY;
    const I x = x0 + lane;
    W r[LIT][K];
#pragma unroll
    for (int it = 0; it < LIT; it++) {
      const I y = y0 + w + 8 * it;
      if (x < p.A && y < p.B) {
#pragma unroll
        for (int i = 0; i < K; i++) r[it][i] = ld(src + so + (y * K + i) * p.Sb + x, cs);
      }
    }
#pragma unroll
    for (int it = 0; it < LIT; it++) {
      const I y = y0 + w + 8 * it;
      if (x < p.A && y < p.B) tile[lane][w + 8 * it] = KT<WB, K>::pack(r[it]);
    }
    __syncthreads();
#pragma unroll
    for (int it = 0; it < 4; it++) {
      const int xx = w + 8 * it;
      const I xg = x0 + xx;
#pragma unroll
      for (int qq = 0; qq < YM; qq++) {
        const int yy = lane + 32 * qq;
        const I y = y0 + yy;
        if (xg < p.A && y < p.B) {
          const S sl = tile[xx][yy];
#pragma unroll
          for (int j = 0; j < K; j++) st(dst + dof + (xg * K + j) * p.Da + y, KT<WB, K>::word(sl, j), cs);
        }
      }
    }
    __syncthreads();
  }
}

/* ------------------------------------------------------------ host side */

int64_t iabs(int64_t v) { return v < 0 ? -v : v; }

/* int32 indexing when every offset and count stays below 2^31 with margin */
bool fits32(int64_t v) { return v < (int64_t(1) << 31) - (int64_t(1) << 22); }

template <typename I, int UN, int NT = THREADS>
parray_status launch_gather_un(void *dst, const void *src, int unit, const GatherDesc<I> &p, int64_t total,
                               cudaStream_t s) {
  const int64_t blocks = (total + NT * UN - 1) / (NT * UN);
  if (blocks > INT_MAX) {
    parray_set_error("parray_copy_strided_cuda: %lld elements is too many", (long long)total);
    return PARRAY_ERR_UNSUPPORTED;
  }
  const dim3 g{unsigned(blocks)}, b{unsigned(NT)};
  switch (unit) {
  case 1: gather_kernel<1, UN, I, NT><<<g, b, 0, s>>>(dst, src, p); break;
  case 2: gather_kernel<2, UN, I, NT><<<g, b, 0, s>>>(dst, src, p); break;
  case 4: gather_kernel<4, UN, I, NT><<<g, b, 0, s>>>(dst, src, p); break;
  case 8: gather_kernel<8, UN, I, NT><<<g, b, 0, s>>>(dst, src, p); break;
  case 16: gather_kernel<16, UN, I, NT><<<g, b, 0, s>>>(dst, src, p); break;
  default: parray_set_error("gather: bad unit %d", unit); return PARRAY_ERR_INVALID;
  }
  return parray_cuda_status(cudaGetLastError(), "parray_copy_strided_cuda: gather kernel launch");
}

template <typename I>
parray_status launch_gather(void *dst, const void *src, int unit, const parray_copy_dim *d, int nd, int64_t total,
                            int un, int cs, cudaStream_t s) {
  GatherDesc<I> p;
  p.nd = nd;
  p.total = I(total);
  p.cs = cs;
  for (int k = 0; k + 1 < nd; k++) { /* d[] is outermost first */
    const parray_copy_dim &e = d[nd - 1 - k];
    p.div[k] = typename FD<I>::type(e.n);
    p.ds[k] = I(e.dst_stride);
    p.ss[k] = I(e.src_stride);
  }
  p.ds_outer = I(d[0].dst_stride);
  p.ss_outer = I(d[0].src_stride);
  /* un: units per thread (1, 2, 4, 8); + GATHER_T128: blocks of 128 threads */
  switch (un) {
  case 8: return launch_gather_un<I, 8>(dst, src, unit, p, total, s);
  case 2: return launch_gather_un<I, 2>(dst, src, unit, p, total, s);
  case 1: return launch_gather_un<I, 1>(dst, src, unit, p, total, s);
  case GATHER_T128 + 1: return launch_gather_un<I, 1, 128>(dst, src, unit, p, total, s);
  case GATHER_T128 + 2: return launch_gather_un<I, 2, 128>(dst, src, unit, p, total, s);
  default: return launch_gather_un<I, UNROLL>(dst, src, unit, p, total, s);
  }
}

template <int WB, int K, int YM, typename I>
parray_status launch_tile_k(void *dst, const void *src, const TileDesc<I> &p, int64_t grid, cudaStream_t s) {
  tile_kernel<WB, K, YM, I><<<dim3(unsigned(grid)), dim3(THREADS), 0, s>>>(dst, src, p);
  return parray_cuda_status(cudaGetLastError(), "parray_copy_strided_cuda: transpose kernel launch");
}

template <int WB, int K, typename I>
parray_status launch_tile_ym(void *dst, const void *src, const TileDesc<I> &p, int ym, int64_t grid,
                             cudaStream_t s) {
  if (ym == 2) return launch_tile_k<WB, K, 2, I>(dst, src, p, grid, s);
  return launch_tile_k<WB, K, 1, I>(dst, src, p, grid, s);
}

/* One digit of the tile order: extent and what one step adds to the a-tile,
 * b-tile and batch indices. */
struct Digit {
  int64_t e, ma, mb, mbi;
};

/* Tile orders (fastest digit first):
 *   0  b-tiles, a-tiles, batch
 *   1  groups of up to 32 a-tiles: a-tile in group, b-tiles, group, batch
 *   2  batch, b-tiles, a-tiles
 *   3  b-tiles, groups of up to 8 a-tiles, batch, group
 *   4  b-tiles, batch, a-tiles
 *   5  a-tiles, b-tiles, batch
 *   6  batch, a-tiles, b-tiles
 * Auto (-1): order 2 when the innermost batch dimension moves <= 64 KB per
 * step on both sides (e.g. (2,1,0): neighbouring batch entries share pages
 * of both arrays), order 0 otherwise. Measured on an H200 (2026-11-21,
 * bench/RESULTS.md): order 0 is best or within 1% of best for (0,2,1) and
 * 2-D transposes (order 1 loses 2-5% there), order 2 wins for (2,1,0) by
 * 1.5-3%; order 3 is never best. */
int tile_digits(Digit *dg, int order, int64_t nta, int64_t ntb, int64_t nbatch, int64_t inner_batch_bytes) {
  if (order < 0 || order > 6) order = (nbatch > 1 && inner_batch_bytes <= 65536) ? 2 : 0;
  const int64_t g32 = nta < 32 ? nta : 32, g8 = nta < 8 ? nta : 8;
  switch (order) {
  case 0:
    dg[0] = {ntb, 0, 1, 0}, dg[1] = {nta, 1, 0, 0}, dg[2] = {nbatch, 0, 0, 1}, dg[3] = {1, 0, 0, 0};
    break;
  case 1:
    dg[0] = {g32, 1, 0, 0}, dg[1] = {ntb, 0, 1, 0}, dg[2] = {(nta + g32 - 1) / g32, g32, 0, 0};
    dg[3] = {nbatch, 0, 0, 1};
    break;
  case 2:
    dg[0] = {nbatch, 0, 0, 1}, dg[1] = {ntb, 0, 1, 0}, dg[2] = {nta, 1, 0, 0}, dg[3] = {1, 0, 0, 0};
    break;
  case 3:
    dg[0] = {ntb, 0, 1, 0}, dg[1] = {g8, 1, 0, 0}, dg[2] = {nbatch, 0, 0, 1};
    dg[3] = {(nta + g8 - 1) / g8, g8, 0, 0};
    break;
  case 4:
    dg[0] = {ntb, 0, 1, 0}, dg[1] = {nbatch, 0, 0, 1}, dg[2] = {nta, 1, 0, 0}, dg[3] = {1, 0, 0, 0};
    break;
  case 5:
    dg[0] = {nta, 1, 0, 0}, dg[1] = {ntb, 0, 1, 0}, dg[2] = {nbatch, 0, 0, 1}, dg[3] = {1, 0, 0, 0};
    break;
  default:
    dg[0] = {nbatch, 0, 0, 1}, dg[1] = {nta, 1, 0, 0}, dg[2] = {ntb, 0, 1, 0}, dg[3] = {1, 0, 0, 0};
    break;
  }
  return order;
}

template <typename I>
parray_status launch_tile(void *dst, const void *src, int wb, int k, const parray_copy_dim *batch, int nb, int64_t A,
                          int64_t Da, int64_t B, int64_t Sb, int ym, const Digit *dg, int64_t ntiles,
                          int persistent, int cs, cudaStream_t s) {
  using F = typename FD<I>::type;
  TileDesc<I> p;
  p.nb = nb;
  for (int j = 0; j + 1 < nb; j++) {
    const parray_copy_dim &e = batch[nb - 1 - j];
    p.bdiv[j] = F(e.n);
    p.bds[j] = I(e.dst_stride);
    p.bss[j] = I(e.src_stride);
  }
  p.bds_outer = nb ? I(batch[0].dst_stride) : I(0);
  p.bss_outer = nb ? I(batch[0].src_stride) : I(0);
  p.A = I(A);
  p.B = I(B);
  p.Da = I(Da);
  p.Sb = I(Sb);
  for (int j = 0; j < 4; j++) {
    if (j < 3) p.dig[j] = F(dg[j].e);
    p.ma[j] = I(dg[j].ma);
    p.mb[j] = I(dg[j].mb);
    p.mbi[j] = I(dg[j].mbi);
  }
  p.nta = I((A + 31) / 32);
  p.ntiles = I(ntiles);
  p.cs = cs;
  int64_t grid = ntiles;
  if (persistent) {
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return parray_cuda_status(e, "parray_copy_strided_cuda: device query");
    grid = (int64_t)sms * 8;
    if (grid > ntiles) grid = ntiles;
  }
  if (grid > INT_MAX) {
    parray_set_error("parray_copy_strided_cuda: %lld tiles is too many", (long long)ntiles);
    return PARRAY_ERR_UNSUPPORTED;
  }
  switch (wb * 8 + k) {
  case 1 * 8 + 1: return launch_tile_ym<1, 1, I>(dst, src, p, ym, grid, s);
  case 2 * 8 + 1: return launch_tile_ym<2, 1, I>(dst, src, p, ym, grid, s);
  case 4 * 8 + 1:
    if (ym == 4) return launch_tile_k<4, 1, 4, I>(dst, src, p, grid, s);
    return launch_tile_ym<4, 1, I>(dst, src, p, ym, grid, s);
  case 8 * 8 + 1: return launch_tile_ym<8, 1, I>(dst, src, p, ym, grid, s);
  case 16 * 8 + 1: return launch_tile_ym<16, 1, I>(dst, src, p, ym, grid, s);
  case 4 * 8 + 2:
    if (ym == 4) return launch_tile_k<4, 2, 4, I>(dst, src, p, grid, s);
    return launch_tile_ym<4, 2, I>(dst, src, p, ym, grid, s);
  case 4 * 8 + 4: return launch_tile_ym<4, 4, I>(dst, src, p, ym, grid, s);
  case 8 * 8 + 2: return launch_tile_ym<8, 2, I>(dst, src, p, ym, grid, s);
  case 8 * 8 + 4: return launch_tile_k<8, 4, 1, I>(dst, src, p, grid, s); /* 32-byte slots: 32 x 32 only */
  default: parray_set_error("transpose: bad word %d / K %d", wb, k); return PARRAY_ERR_INVALID;
  }
}

} // namespace

extern "C" {

/* Internal (copy_strided.cu): d[0..nd-1] outermost first, strides in units
 * of `unit` bytes, dst order; moves every index of the product of extents.
 * un: units per thread (1, 2, 4 or 8; +16: blocks of 128 threads); cs: streaming cache hints. */
__attribute__((visibility("hidden"))) parray_status parray__launch_gather(void *dst, const void *src, int unit,
                                                                         const parray_copy_dim *d, int nd, int un,
                                                                         int cs, cudaStream_t s) {
  if (nd < 1 || nd > KMAXD) {
    parray_set_error("gather: rank %d out of range", nd);
    return PARRAY_ERR_INVALID;
  }
  int64_t total = 1, span = 0;
  for (int k = 0; k < nd; k++) {
    total *= d[k].n;
    span += (d[k].n - 1) * (iabs(d[k].dst_stride) > iabs(d[k].src_stride) ? iabs(d[k].dst_stride)
                                                                           : iabs(d[k].src_stride));
  }
  if (fits32(total + THREADS * 8) && fits32(span))
    return launch_gather<int32_t>(dst, src, unit, d, nd, total, un, cs, s);
  return launch_gather<int64_t>(dst, src, unit, d, nd, total, un, cs, s);
}

/* Internal: the tile transpose. Words of wb bytes holding k elements each
 * (k > 1 only with wb == 4, or k == 2 or 4 with wb == 8). Dim a is contiguous in
 * src, dim b in dst; A and B count their words (extent / k); Da is the dst
 * stride of one element step of a and Sb the src stride of one element step
 * of b, in words; batch[0..nb-1] (outermost first) are the other dimensions,
 * strides in words. ym: tile of 32 x 32*ym words (4 only for wb 4, k 1 or 2);
 * order: tile order 0..6, or -1 for automatic (see tile_digits);
 * persistent: 8 blocks per SM looping over tiles; cs: streaming hints. */
__attribute__((visibility("hidden"))) parray_status parray__launch_tile(void *dst, const void *src, int wb, int k,
                                                                       const parray_copy_dim *batch, int nb,
                                                                       int64_t A, int64_t Da, int64_t B, int64_t Sb,
                                                                       int ym, int order, int persistent, int cs,
                                                                       cudaStream_t s) {
  if (nb < 0 || nb > KMAXD) {
    parray_set_error("transpose: %d batch dimensions", nb);
    return PARRAY_ERR_INVALID;
  }
  if (ym != 1 && ym != 2 && !(ym == 4 && wb == 4 && k <= 2)) ym = ym == 4 ? 2 : 1;
  if (wb * k > 16) ym = 1; /* 32-byte slots: 32 x 32 tiles only (shared memory) */
  const int64_t nta = (A + 31) / 32, ntb = (B + 32 * ym - 1) / (32 * ym);
  int64_t span = (A * k - 1) * iabs(Da) + (B * k - 1) * iabs(Sb) + A + B, nbatch = 1;
  for (int j = 0; j < nb; j++) {
    span += (batch[j].n - 1) * (iabs(batch[j].dst_stride) + iabs(batch[j].src_stride));
    nbatch *= batch[j].n;
  }
  const int64_t inner = nb ? (iabs(batch[nb - 1].dst_stride) > iabs(batch[nb - 1].src_stride)
                                  ? iabs(batch[nb - 1].dst_stride)
                                  : iabs(batch[nb - 1].src_stride)) * wb
                           : 0;
  Digit dg[4];
  tile_digits(dg, order, nta, ntb, nbatch, inner);
  const int64_t ntiles = dg[0].e * dg[1].e * dg[2].e * dg[3].e;
  if (fits32(span) && fits32(ntiles + 2048))
    return launch_tile<int32_t>(dst, src, wb, k, batch, nb, A, Da, B, Sb, ym, dg, ntiles, persistent, cs, s);
  return launch_tile<int64_t>(dst, src, wb, k, batch, nb, A, Da, B, Sb, ym, dg, ntiles, persistent, cs, s);
}

/* Test hook: checks the magic-number division against '/' and '%' on
 * random and edge operands; returns the number of mismatches. */
PARRAY_API long parray__permute_fastdiv_selftest(unsigned long long seed, long iters) {
  long bad = 0;
  uint64_t x = seed | 1;
  auto rnd = [&x]() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (long t = 0; t < iters; t++) {
    /* divisor: random bit length, sometimes a power of two or near one */
    int bits = int(rnd() % 31) + 1;
    uint32_t d32 = uint32_t(rnd() & ((uint64_t(1) << bits) - 1));
    if (t % 7 == 0) d32 = uint32_t(1) << (bits - 1);
    if (t % 11 == 0) d32 = (uint32_t(1) << (bits - 1)) + 1;
    if (d32 == 0) d32 = 1;
    if (d32 > 0x7fffffffu) d32 = 0x7fffffffu;
    int32_t n32 = int32_t(rnd() & 0x7fffffff);
    if (t % 5 == 0) n32 = 0x7fffffff - int32_t(rnd() % 1000);
    if (t % 13 == 0) n32 = int32_t(d32) - 1;
    FastDiv32 f32(d32);
    int32_t q, r;
    f32.divmod(n32, q, r);
    if (q != int32_t(uint32_t(n32) / d32) || r != int32_t(uint32_t(n32) % d32)) bad++;

    int bits64 = int(rnd() % 63) + 1;
    uint64_t d64 = rnd() & ((bits64 == 64) ? ~uint64_t(0) : ((uint64_t(1) << bits64) - 1));
    if (t % 7 == 0) d64 = uint64_t(1) << (bits64 - 1);
    if (t % 11 == 0) d64 = (uint64_t(1) << (bits64 - 1)) + 1;
    if (d64 == 0) d64 = 1;
    int64_t n64 = int64_t(rnd() >> 1);
    if (t % 3 == 0) n64 = int64_t(rnd() % (uint64_t(1) << (rnd() % 62 + 1)));
    if (t % 5 == 0) n64 = INT64_MAX - int64_t(rnd() % 1000);
    FastDiv64 f64(d64);
    int64_t q64, r64;
    f64.divmod(n64, q64, r64);
    if (q64 != int64_t(uint64_t(n64) / d64) || r64 != int64_t(uint64_t(n64) % d64)) bad++;
  }
  return bad;
}

} // extern "C"
