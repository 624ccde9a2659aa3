/* SPDX-License-Identifier: Apache-2.0 */
/* copy_strided.cu - the device copy engine (#copy between two dmem layouts)
 * and the device permute. Plans a copy after parray_copy_normalise (byte
 * strides, size-1 dimensions dropped, dimensions that move together merged)
 * and dispatches it: cudaMemcpyAsync for one contiguous run, the tiled
 * transpose when src and dst have different contiguous dimensions, the
 * gather kernel otherwise, batched row copies included (kernels in
 * permute_kernels.cu). The permute's argument rules and its description as
 * a strided copy are parray_permute_cpu's (permute_args.h). docs/permute.md
 * states the rules. */
#include "parray/cuda.h"
#include "parray/permute.h"

#include <cstdint>

#include "permute_args.h"

extern "C" {
parray_status parray__launch_gather(void *dst, const void *src, int unit, const parray_copy_dim *d, int nd, int un,
                                    int cs, cudaStream_t s);
parray_status parray__launch_tile(void *dst, const void *src, int wb, int k, const parray_copy_dim *batch, int nb,
                                  int64_t A, int64_t Da, int64_t B, int64_t Sb, int ym, int order, int persistent,
                                  int cs, cudaStream_t s);
}

namespace {

constexpr int MAXD = 16;
/* Innermost common run (bytes) from which a copy is a batch of row copies
 * (each row at least one full 32-byte sector) rather than a transpose. */
constexpr int64_t ROW_MIN = 32;
/* Narrowest pitched rows handed to cudaMemcpy2DAsync under OPT_MEMCPY2D
 * (measured on an H200: 1.7 TB/s for 64 KB rows against 4.1 TB/s for the
 * gather kernel, so the default engine never uses it). */
constexpr int64_t MEMCPY2D_MIN = 512;
/* Smallest extents of the two contiguous dims for the tile transpose. */
constexpr int64_t TILE_MIN = 8;
/* Defaults chosen from the variants measured on the H200 (bench/RESULTS.md,
 * 2026-11-21, "tuning pass"):
 * - row tiles (OPT_TILE_ROWS) off: within 0.3% either way for (1,0,2);
 * - 2-byte elements of the tile transpose as 4 x 4 blocks in 8-byte words
 *   (OPT_W8): (2,1,0) f16 89.8% -> 95.0% of copy, 2-D f16 92.2% -> 97.0%,
 *   (0,2,1) f16 97.4% -> 99.0%;
 * - gather kernel with one unit per thread in blocks of 128 threads (the
 *   shape that made the elementwise engine's relu a faster copy than
 *   cudaMemcpy): contiguous copy 96.9% -> 100.6%, (1,0,2) f32 with 256-byte
 *   rows 94.3% -> 95.1%, with 4 KB rows 96.9% -> 98.7%, pitched rows
 *   97.0% -> 99.8% of cudaMemcpy (first version: 4 units x 256 threads). */
constexpr bool TILE_ROWS_DEFAULT = false;
constexpr bool W8_DEFAULT = true;
/* Gather kernel shape: units per thread (+16: blocks of 128 threads). */
constexpr int GATHER_UN_DEFAULT = 1 + 16;

/* Engine options (bench/tests only, through parray__copy_strided_cuda_opts
 * and parray__permute_cuda_opts); 0 is the default engine. */
enum {
  OPT_MEMCPY2D = 1,     /* cudaMemcpy2DAsync for one dim of wide pitched rows */
  OPT_PERSISTENT = 2,   /* tile kernel on a grid of 8 blocks per SM, looping */
  OPT_YM1 = 4,          /* tile of 32 x 32 words */
  OPT_YM2 = 8,          /* tile of 32 x 64 words */
  OPT_NO_K = 16,        /* no packing of K x K elements per word (1-, 2-, 4-byte elements) */
  OPT_NO_TILE = 32,     /* gather kernel instead of the tile transpose */
  OPT_NO_MEMCPY = 64,   /* gather kernel instead of cudaMemcpyAsync (calibration) */
  OPT_YM4 = 128,        /* tile of 32 x 128 words (4-byte words, no packing) */
  OPT_STREAM = 256,     /* streaming cache hints (ld.cs / st.cs) */
  OPT_UNROLL8 = 512,    /* gather: 8 units per thread instead of 4 */
  OPT_NO_K8 = 1024,     /* 4-byte elements: no 2x2 packing into 8-byte words */
  OPT_TILE_ROWS = 2048, /* batch of rows over two dims: visit them in T x T row tiles */
  OPT_ORDER_SHIFT = 12, /* 3 bits: 0 automatic tile order, 1..7 order 0..6 */
  OPT_NO_TILE_ROWS = 1 << 15, /* row tiles off (when they are the default) */
  OPT_UNROLL1 = 1 << 16,      /* gather: 1 unit per thread */
  OPT_UNROLL2 = 1 << 17,      /* gather: 2 units per thread */
  OPT_T128 = 1 << 18,         /* gather: blocks of 128 threads (with OPT_UNROLL1/2) */
  OPT_GATHER4 = 1 << 19,      /* gather: 4 units per thread, 256 threads (the first version) */
  OPT_W8 = 1 << 20,           /* 2-byte elements: 4 x 4 blocks in 8-byte words (K = 4) */
  OPT_NO_W8 = 1 << 21         /* 2-byte elements: 2 x 2 blocks in 4-byte words (when W8 is the default) */
};

int64_t iabs(int64_t v) { return v < 0 ? -v : v; }

int pow2_unit(uint64_t g) { /* largest of 16, 8, 4, 2, 1 dividing g */
  int u = 16;
  while (u > 1 && (g % u) != 0) u >>= 1;
  return u;
}

parray_status plan(void *dst, const void *src, parray_copy_dim *d, int n, int opts, cudaStream_t s) {
  const char *what = "parray_copy_strided_cuda: cudaMemcpyAsync";
  const int cs = (opts & OPT_STREAM) ? 1 : 0;
  int un = GATHER_UN_DEFAULT; /* units per thread, + 16 for 128-thread blocks */
  if (opts & (OPT_UNROLL1 | OPT_UNROLL2)) un = ((opts & OPT_UNROLL1) ? 1 : 2) + ((opts & OPT_T128) ? 16 : 0);
  if (opts & OPT_UNROLL8) un = 8;
  if (opts & OPT_GATHER4) un = 4;
  if (n == 0) return parray_cuda_status(cudaMemcpyAsync(dst, src, 1, cudaMemcpyDeviceToDevice, s), what);
  int64_t R = 1; /* common innermost contiguous run, bytes */
  int nr = n;    /* dims outside the run */
  if (d[n - 1].dst_stride == 1 && d[n - 1].src_stride == 1) {
    R = d[n - 1].n;
    nr = n - 1;
  }
  uint64_t g = uint64_t(uintptr_t(dst) | uintptr_t(src));
  parray_copy_dim u[MAXD + 1];
  if (nr == 0) {
    if (!(opts & OPT_NO_MEMCPY))
      return parray_cuda_status(cudaMemcpyAsync(dst, src, size_t(R), cudaMemcpyDeviceToDevice, s), what);
    const int m = pow2_unit(g | uint64_t(R));
    u[0] = {R / m, 1, 1};
    return parray__launch_gather(dst, src, m, u, 1, un, cs, s);
  }
  for (int i = 0; i < nr; i++) g |= uint64_t(iabs(d[i].dst_stride) | iabs(d[i].src_stride));

  if (R >= ROW_MIN) {
    /* batch of row copies */
    if (nr == 1 && (opts & OPT_MEMCPY2D) && R >= MEMCPY2D_MIN && d[0].dst_stride >= R &&
        d[0].src_stride >= R && d[0].dst_stride < (int64_t(1) << 30) && d[0].src_stride < (int64_t(1) << 30))
      return parray_cuda_status(cudaMemcpy2DAsync(dst, size_t(d[0].dst_stride), src, size_t(d[0].src_stride),
                                                  size_t(R), size_t(d[0].n), cudaMemcpyDeviceToDevice, s),
                                "parray_copy_strided_cuda: cudaMemcpy2DAsync");
    const int m = pow2_unit(g | uint64_t(R));
    /* Two dims of rows (e.g. (1,0,2)): walk them in T x T tiles of rows so
     * that each block reads T runs of T*R contiguous bytes and writes T such
     * runs, instead of one long dst run and many R-byte src pieces. */
    const int64_t T = R <= 256 ? 8 : R <= 1024 ? 4 : 0;
    if (nr == 2 && T && ((opts & OPT_TILE_ROWS) || TILE_ROWS_DEFAULT) && !(opts & OPT_NO_TILE_ROWS) &&
        d[0].n % T == 0 && d[1].n % T == 0 && d[0].n > T && d[1].n > T) {
      u[0] = {d[0].n / T, d[0].dst_stride * T / m, d[0].src_stride * T / m};
      u[1] = {d[1].n / T, d[1].dst_stride * T / m, d[1].src_stride * T / m};
      u[2] = {T, d[0].dst_stride / m, d[0].src_stride / m};
      u[3] = {T, d[1].dst_stride / m, d[1].src_stride / m};
      u[4] = {R / m, 1, 1};
      return parray__launch_gather(dst, src, m, u, 5, un, cs, s);
    }
    for (int i = 0; i < nr; i++) u[i] = {d[i].n, d[i].dst_stride / m, d[i].src_stride / m};
    u[nr] = {R / m, 1, 1};
    return parray__launch_gather(dst, src, m, u, nr + 1, un, cs, s);
  }

  const int e = int(R); /* element of R bytes, R < 32 */
  if ((e & (e - 1)) == 0 && e <= 16 && g % uint64_t(e) == 0) {
    for (int i = 0; i < nr; i++) u[i] = {d[i].n, d[i].dst_stride / e, d[i].src_stride / e};
    /* b: contiguous in dst (the last, by the ordering); a: contiguous in src */
    int ib = u[nr - 1].dst_stride == 1 ? nr - 1 : -1, ia = -1;
    for (int i = 0; i < nr; i++)
      if (i != ib && u[i].src_stride == 1 && (ia < 0 || u[i].n > u[ia].n)) ia = i;
    if (!(opts & OPT_NO_TILE) && ia >= 0 && ib >= 0 && u[ia].n >= TILE_MIN && u[ib].n >= TILE_MIN) {
      parray_copy_dim batch[MAXD + 1];
      int nb = 0;
      for (int i = 0; i < nr; i++)
        if (i != ia && i != ib) batch[nb++] = u[i];
      const int64_t A = u[ia].n, B = u[ib].n, Da = u[ia].dst_stride, Sb = u[ib].src_stride;
      int k = 1, wb = e;
      if (e <= 4 && !(opts & OPT_NO_K) && !(e == 4 && (opts & OPT_NO_K8))) {
        /* pack K x K elements: 2- and 1-byte elements into 4-byte words
         * (K = 2, 4), 4-byte elements into 8-byte words (K = 2) */
        /* 2-byte elements may also go 4 x 4 into 8-byte words (W8), else 2 x 2 */
        const bool w8 = e == 2 && ((opts & OPT_W8) || W8_DEFAULT) && !(opts & OPT_NO_W8);
        const int64_t Ks[2] = {e == 4 ? 2 : w8 ? 4 : 4 / e, w8 ? 2 : 0};
        for (int t = 0; t < 2 && k == 1 && Ks[t]; t++) {
          const int64_t K = Ks[t], W = e * K;
          bool ok = A % K == 0 && B % K == 0 && (uintptr_t(dst) | uintptr_t(src)) % W == 0 && Da % K == 0 &&
                    Sb % K == 0;
          for (int i = 0; i < nb; i++) ok = ok && batch[i].dst_stride % K == 0 && batch[i].src_stride % K == 0;
          if (ok) {
            k = int(K);
            wb = int(W);
            for (int i = 0; i < nb; i++) batch[i] = {batch[i].n, batch[i].dst_stride / K, batch[i].src_stride / K};
          }
        }
      }
      /* default tile: 32 x 64 words of 4 bytes (32 x 64 f32, 64 x 128 f16),
       * else 32 x 32 words (64 x 64 f32 in 8-byte words, 128 x 128 u8,
       * 32 x 32 f64 / 16-byte elements); 1-/2-byte words 32 x 64 */
      const int ym = (opts & OPT_YM4) ? 4 : (opts & OPT_YM2) ? 2 : (opts & OPT_YM1) ? 1 : (wb <= 4 && k <= 2) ? 2 : 1;
      const int order = ((opts >> OPT_ORDER_SHIFT) & 7) - 1;
      return parray__launch_tile(dst, src, wb, k, batch, nb, A / k, Da / k, B / k, Sb / k, ym, order,
                                 (opts & OPT_PERSISTENT) ? 1 : 0, cs, s);
    }
    return parray__launch_gather(dst, src, e, u, nr, un, cs, s);
  }
  /* odd element size or misaligned: move the largest legal unit */
  const int m = pow2_unit(g | uint64_t(R));
  for (int i = 0; i < nr; i++) u[i] = {d[i].n, d[i].dst_stride / m, d[i].src_stride / m};
  int nu = nr;
  if (R / m > 1) u[nu++] = {R / m, 1, 1};
  return parray__launch_gather(dst, src, m, u, nu, un, cs, s);
}

parray_status copy_strided(void *dst, const int64_t *dst_stride, const void *src, const int64_t *src_stride,
                           const int64_t *shape, int ndim, size_t elem_size, int opts, cudaStream_t s) {
  if (ndim < 0 || ndim > MAXD || elem_size == 0 || elem_size > 16 ||
      (ndim > 0 && (!shape || !dst_stride || !src_stride))) {
    parray_set_error("parray_copy_strided_cuda: bad rank %d or element size %zu (1..16)", ndim, elem_size);
    return PARRAY_ERR_INVALID;
  }
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0) {
      parray_set_error("parray_copy_strided_cuda: negative extent %lld", (long long)shape[i]);
      return PARRAY_ERR_INVALID;
    }
    if (shape[i] == 0) return PARRAY_OK;
  }
  if (!dst || !src) {
    parray_set_error("parray_copy_strided_cuda: null pointer");
    return PARRAY_ERR_INVALID;
  }
  parray_copy_dim d[MAXD + 1];
  const int n = parray_copy_normalise(d, shape, dst_stride, src_stride, ndim, elem_size);
  if (n < 0) return PARRAY_ERR_INVALID;
  return plan(dst, src, d, n, opts, s);
}

parray_status permute(void *dst, const void *src, size_t elem_size, int ndim, const int64_t *src_shape,
                      const int *perm, int opts, cudaStream_t s) {
  const parray_status st = parray__permute_check("parray_permute_cuda", 16, ndim, elem_size, src_shape, perm);
  if (st != PARRAY_OK) return st;
  int64_t shape[PARRAY_PERMUTE_MAX_DIMS], dstr[PARRAY_PERMUTE_MAX_DIMS], sstr[PARRAY_PERMUTE_MAX_DIMS];
  parray__permute_as_copy(ndim, src_shape, perm, shape, dstr, sstr);
  return copy_strided(dst, dstr, src, sstr, shape, ndim, elem_size, opts, s);
}

} // namespace

extern "C" {

parray_status parray_copy_strided_cuda(void *dst, const int64_t *dst_stride, const void *src,
                                       const int64_t *src_stride, const int64_t *shape, int ndim, size_t elem_size,
                                       cudaStream_t s) {
  return copy_strided(dst, dst_stride, src, src_stride, shape, ndim, elem_size, 0, s);
}

parray_status parray_permute_cuda(void *dst, const void *src, size_t elem_size, int ndim, const int64_t *src_shape,
                                  const int *perm, cudaStream_t s) {
  return permute(dst, src, elem_size, ndim, src_shape, perm, 0, s);
}

/* Bench/test entry points with engine options (see the OPT_ flags above). */
PARRAY_API parray_status parray__copy_strided_cuda_opts(void *dst, const int64_t *dst_stride, const void *src,
                                                        const int64_t *src_stride, const int64_t *shape, int ndim,
                                                        size_t elem_size, int opts, cudaStream_t s) {
  return copy_strided(dst, dst_stride, src, src_stride, shape, ndim, elem_size, opts, s);
}

PARRAY_API parray_status parray__permute_cuda_opts(void *dst, const void *src, size_t elem_size, int ndim,
                                                   const int64_t *src_shape, const int *perm, int opts,
                                                   cudaStream_t s) {
  return permute(dst, src, elem_size, ndim, src_shape, perm, opts, s);
}

} // extern "C"
