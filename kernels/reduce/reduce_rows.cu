/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_rows.cu - parray_reduce_rows_cuda: reduction over the last
 * dimension of a (possibly padded) rows x cols array.
 * Rows whose starts share one 16-byte alignment (row_stride*size a multiple
 * of 16) are read in 16-byte packs after a scalar head, on a grid that
 * gives each warp one trip (blocks run in address order):
 *  - short rows (at most 32 packs): a group of L lanes (the power of two
 *    covering the row's packs) per row, 32/L rows per warp load, U = 4 such
 *    loads in flight per lane (U*32/L rows per warp), folded by a sub-warp
 *    butterfly (1M x 32 fp32: L = 8, 16 rows per warp);
 *  - medium rows (up to 1024 packs): a warp per row, U packs per lane in
 *    flight along the row;
 *  - long rows: a block per row.
 * Other rows are loaded one element at a time (group of L lanes per row).
 * Each row is folded in an order fixed by its length, so results do not
 * depend on the grid. */
#include "reduce_args.h"
#include "reduce_kernels.cuh"

namespace parray_rd {
namespace {

constexpr int kRowsPerTrip = 4;

template <typename T, typename Op, int P>
__global__ void __launch_bounds__(kThreads, 4)
    rows_kernel(const T *x, int64_t rows, int cols, int64_t stride, int head, int lw, void *y, parray_dtype ydt,
                int64_t mean_count) {
  using A = typename AccOf<T>::type;
  constexpr int RU = kRowsPerTrip;
  const int L = 1 << lw;
  const int gpb = kThreads >> lw;
  const int tid = threadIdx.x, lane = tid & (L - 1);
  const int64_t gid = (int64_t)blockIdx.x * gpb + (tid >> lw);
  const int64_t gid_warp = (int64_t)blockIdx.x * gpb + ((tid & ~31) >> lw); /* first group of this warp */
  const int64_t G = (int64_t)gridDim.x * gpb;
  const int h = head < cols ? head : cols;
  const int npk = (cols - h) / P;
  const int t0 = h + npk * P, rem = cols - t0;
  for (int64_t rw = gid_warp, r0 = gid; rw < rows; rw += G * RU, r0 += G * RU) {
    A acc[RU];
    bool ok[RU];
    const T *rp0 = x + r0 * stride; /* row u of this trip starts at rp0 + u*step */
    const int64_t step = G * stride;
#pragma unroll
    for (int u = 0; u < RU; ++u) {
      ok[u] = r0 + u * G < rows;
      acc[u] = Op::template init<A>();
    }
    for (int k = lane; k < npk; k += L) {
      parray_ew::Pack<T, P> v[RU];
      const T *p = rp0 + h + k * P;
#pragma unroll
      for (int u = 0; u < RU; ++u)
        if (ok[u]) v[u] = ldpack<T, P>(p + u * step);
#pragma unroll
      for (int u = 0; u < RU; ++u)
        if (ok[u]) acc[u] = fold_pack<Op, P>(acc[u], v[u]);
    }
    if (P > 1) {
      for (int j = lane; j < h; j += L)
#pragma unroll
        for (int u = 0; u < RU; ++u)
          if (ok[u]) acc[u] = Op::template comb<A>(acc[u], to_acc<A>(rp0[u * step + j]));
      for (int j = lane; j < rem; j += L)
#pragma unroll
        for (int u = 0; u < RU; ++u)
          if (ok[u]) acc[u] = Op::template comb<A>(acc[u], to_acc<A>(rp0[u * step + t0 + j]));
    }
#pragma unroll
    for (int u = 0; u < RU; ++u) acc[u] = group_reduce<Op>(acc[u], L);
    if (lane == 0) {
#pragma unroll
      for (int u = 0; u < RU; ++u)
        if (ok[u]) store_out(y, ydt, r0 + u * G, acc[u], mean_count);
    }
  }
}

/* Short rows, packed: lanes [g*L, g*L+L) of a warp handle row
 * rb + u*G + g (G = 32/L) for u < U; lane l loads the row's pack l. After
 * the butterfly every lane of a group holds the U results; lane l stores
 * those of u = l, l + L, ... (one store site, no per-u type switch). */
template <typename T, typename Op, int P, int U>
__global__ void __launch_bounds__(kThreads)
    rows_short_kernel(const T *x, int64_t rows, int cols, int64_t stride, int head, int lw, void *y,
                      parray_dtype ydt, int64_t mean_count) {
  using A = typename AccOf<T>::type;
  const int L = 1 << lw, G = 32 >> lw;
  const int lane = threadIdx.x & 31, l = lane & (L - 1), g = lane >> lw;
  const int64_t W = (int64_t)gridDim.x * (kThreads / 32);
  const int64_t RW = (int64_t)U * G; /* rows per warp trip */
  const int h = head < cols ? head : cols;
  const int npk = (cols - h) / P;
  const int t0 = h + npk * P, rem = cols - t0;
  const int64_t ustep = (int64_t)G * stride;
  for (int64_t rb = ((int64_t)blockIdx.x * (kThreads / 32) + (threadIdx.x >> 5)) * RW; rb < rows; rb += W * RW) {
    /* rows rb + g + u*G of this lane's group exist for u*G < nv */
    const int64_t nv64 = rows - rb - g;
    const int nv = nv64 > (int64_t)U * G ? U * G : (int)nv64;
    const T *rp = x + (rb + g) * stride;
    A acc[U];
    {
      parray_ew::Pack<T, P> v[U];
      const T *pp = rp + h + l * P;
      if (l < npk) {
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (u * G < nv) v[u] = ldpack<T, P>(pp + u * ustep);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        acc[u] = Op::template init<A>();
        if (l < npk && u * G < nv) acc[u] = fold_pack<Op, P>(acc[u], v[u]);
      }
    }
    if (P > 1 && (h > 0 || rem > 0)) {
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (u * G < nv) {
          for (int j = l; j < h; j += L) acc[u] = Op::template comb<A>(acc[u], to_acc<A>(rp[u * ustep + j]));
          for (int j = l; j < rem; j += L) acc[u] = Op::template comb<A>(acc[u], to_acc<A>(rp[u * ustep + t0 + j]));
        }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] = group_reduce<Op>(acc[u], L);
#pragma unroll 1
    for (int u0 = 0; u0 < U; u0 += L) {
      const int um = u0 + l;
      A val = acc[0];
#pragma unroll
      for (int u = 1; u < U; ++u)
        if (u == um) val = acc[u];
      if (um < U && um * G < nv) store_out(y, ydt, rb + g + (int64_t)um * G, val, mean_count);
    }
  }
}

/* Medium rows, packed: a warp per row, U packs per lane in flight. */
template <typename T, typename Op, int P, int U>
__global__ void __launch_bounds__(kThreads)
    rows_warp_kernel(const T *x, int64_t rows, int cols, int64_t stride, int head, void *y, parray_dtype ydt,
                     int64_t mean_count) {
  using A = typename AccOf<T>::type;
  const int lane = threadIdx.x & 31;
  const int64_t W = (int64_t)gridDim.x * (kThreads / 32);
  const int h = head < cols ? head : cols;
  const int npk = (cols - h) / P;
  const int t0 = h + npk * P, rem = cols - t0;
  for (int64_t r = (int64_t)blockIdx.x * (kThreads / 32) + (threadIdx.x >> 5); r < rows; r += W) {
    const T *rp = x + r * stride;
    A acc = Op::template init<A>();
    for (int k0 = lane; k0 < npk; k0 += 32 * U) {
      parray_ew::Pack<T, P> v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (k0 + 32 * u < npk) v[u] = ldpack<T, P>(rp + h + (k0 + 32 * u) * P);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (k0 + 32 * u < npk) acc = fold_pack<Op, P>(acc, v[u]);
    }
    if (lane < h) acc = Op::template comb<A>(acc, to_acc<A>(rp[lane]));
    if (lane < rem) acc = Op::template comb<A>(acc, to_acc<A>(rp[t0 + lane]));
    acc = warp_reduce<Op>(acc);
    if (lane == 0) store_out(y, ydt, r, acc, mean_count);
  }
}

template <typename T, typename Op, int P>
__global__ void __launch_bounds__(kThreads)
    rows_block_kernel(const T *x, int64_t rows, int64_t cols, int64_t stride, int head, void *y, parray_dtype ydt,
                      int64_t mean_count) {
  using A = typename AccOf<T>::type;
  constexpr int U = 4;
  __shared__ A sh[kThreads / 32];
  const int tid = threadIdx.x;
  const int64_t h = head < cols ? head : cols;
  const int64_t npk = (cols - h) / P;
  const int64_t t0 = h + npk * P;
  const int rem = (int)(cols - t0);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *rp = x + r * stride;
    A acc = Op::template init<A>();
    for (int64_t k0 = tid; k0 < npk; k0 += U * kThreads) {
      parray_ew::Pack<T, P> v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (k0 + u * kThreads < npk) v[u] = ldpack<T, P>(rp + h + (k0 + u * kThreads) * P);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (k0 + u * kThreads < npk) acc = fold_pack<Op, P>(acc, v[u]);
    }
    if (tid < h) acc = Op::template comb<A>(acc, to_acc<A>(rp[tid]));
    if (tid < rem) acc = Op::template comb<A>(acc, to_acc<A>(rp[t0 + tid]));
    acc = block_reduce<Op>(acc, sh);
    if (tid == 0) store_out(y, ydt, r, acc, mean_count);
  }
}

/* Blocks for `warp_trips` units of work of one warp: one per warp when
 * waves == 0; otherwise at most `waves` waves of resident blocks, shrunk so
 * that every warp gets the same number of trips (no partial last round). */
inline int64_t balanced_grid(int64_t warp_trips, int64_t resident, int waves) {
  const int64_t wpb = kThreads / 32;
  int64_t blocks = (warp_trips + wpb - 1) / wpb;
  if (waves > 0) {
    const int64_t cap = resident * waves;
    if (blocks > cap) {
      const int64_t per_warp = (warp_trips + cap * wpb - 1) / (cap * wpb); /* trips per warp */
      const int64_t warps = (warp_trips + per_warp - 1) / per_warp;
      blocks = (warps + wpb - 1) / wpb;
    }
  }
  return blocks < 1 ? 1 : blocks;
}

/* Kernel choice: 0 automatic; 1 the grouped kernel of the first version
 * (4 rows per group per trip, one-trip grid); U in 2..8 forces the short
 * or warp kernel with U loads in flight (bench variants; the library
 * instantiates kRowsU only). waves: 0 = one trip per warp, else cap. */
constexpr int kRowsU = 4;
/* one trip per warp: on the H200 1-10% faster than a one-wave grid in the
 * first tuning run, within the spread in the second (bench/RESULTS.md) */
constexpr int kRowsWaves = 0;

template <typename T, typename Op, int U>
parray_status launch_rows_new(const T *x, int64_t rows, int64_t cols, int64_t stride, int head, int lw, int64_t npk,
                              void *y, parray_dtype ydt, int64_t mean_count, int waves, int sm, cudaStream_t s) {
  constexpr int PV = 16 / sizeof(T);
  if (npk <= 32) {
    auto k = rows_short_kernel<T, Op, PV, U>;
    const int64_t G = 32 >> lw;
    const int64_t trips = (rows + U * G - 1) / (U * G);
    const int64_t blocks = balanced_grid(trips, (int64_t)sm * resident_blocks((const void *)k, kThreads, 0), waves);
    k<<<(unsigned)blocks, kThreads, 0, s>>>(x, rows, (int)cols, stride, head, lw, y, ydt, mean_count);
  } else {
    auto k = rows_warp_kernel<T, Op, PV, U>;
    const int64_t blocks = balanced_grid(rows, (int64_t)sm * resident_blocks((const void *)k, kThreads, 0), waves);
    k<<<(unsigned)blocks, kThreads, 0, s>>>(x, rows, (int)cols, stride, head, y, ydt, mean_count);
  }
  return parray_ew::status_of(cudaGetLastError(), "parray_reduce_rows_cuda");
}

template <typename T, typename Op, int UV = 0>
parray_status run_rows(const T *x, int64_t rows, int64_t cols, int64_t stride, void *y, parray_dtype ydt,
                       int64_t mean_count, cudaStream_t s, int kind = 0, int waves = kRowsWaves) {
  constexpr int PV = 16 / sizeof(T);
  const bool vec = ((uint64_t)stride * sizeof(T)) % 16 == 0 || rows == 1;
  const int P = vec ? PV : 1;
  const int head = vec ? (int)((16 - (uintptr_t)x % 16) % 16 / sizeof(T)) : 0;
  const int64_t npk = (cols + P - 1) / P;
  int sm = 0, tps = 0;
  parray_status st = parray_cuda_device_shape(&sm, &tps);
  if (st != PARRAY_OK) return st;
  const void *kern;
  int64_t blocks;
  int lw = 0;
  while (lw < 5 && (int64_t(1) << lw) < npk) ++lw;
  if (vec && (npk > 1024 || cols > INT32_MAX / 2)) {
    auto k = rows_block_kernel<T, Op, PV>;
    kern = (const void *)k;
    const int64_t cap = (int64_t)sm * resident_blocks(kern, kThreads, 0) * 16;
    blocks = rows < cap ? rows : cap;
    k<<<(unsigned)blocks, kThreads, 0, s>>>(x, rows, cols, stride, head, y, ydt, mean_count);
  } else if (cols > INT32_MAX / 2) {
    parray_set_error("parray_reduce_rows_cuda: rows of %lld unaligned elements are not supported", (long long)cols);
    return PARRAY_ERR_UNSUPPORTED;
  } else if (vec && kind != 1) {
    return launch_rows_new<T, Op, UV ? UV : kRowsU>(x, rows, cols, stride, head, lw, npk, y, ydt, mean_count, waves,
                                                     sm, s);
  } else {
    auto k = vec ? rows_kernel<T, Op, PV> : rows_kernel<T, Op, 1>;
    kern = (const void *)k;
    const int64_t gpb = kThreads >> lw;
    const int64_t groups = (rows + kRowsPerTrip - 1) / kRowsPerTrip;
    blocks = (groups + gpb - 1) / gpb;
    const int64_t cap = (int64_t)sm * resident_blocks(kern, kThreads, 0) * 16;
    if (blocks > cap) blocks = cap;
    k<<<(unsigned)blocks, kThreads, 0, s>>>(x, rows, (int)cols, stride, head, lw, y, ydt, mean_count);
  }
  return parray_ew::status_of(cudaGetLastError(), "parray_reduce_rows_cuda");
}

template <typename T>
parray_status rows_typed(parray_reduce_op op, const T *x, int64_t rows, int64_t cols, int64_t stride, void *y,
                         parray_dtype ydt, cudaStream_t s) {
  switch (op) {
  case PARRAY_REDUCE_SUM: return run_rows<T, RSum>(x, rows, cols, stride, y, ydt, 0, s);
  case PARRAY_REDUCE_MEAN: return run_rows<T, RSum>(x, rows, cols, stride, y, ydt, cols, s);
  case PARRAY_REDUCE_MAX: return run_rows<T, RMax>(x, rows, cols, stride, y, ydt, 0, s);
  default: return run_rows<T, RMin>(x, rows, cols, stride, y, ydt, 0, s);
  }
}

} // namespace
} // namespace parray_rd

extern "C" parray_status parray_reduce_rows_cuda(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt,
                                                 const void *x, int64_t rows, int64_t cols, int64_t row_stride,
                                                 cudaStream_t stream) {
  parray_status st = parray_rd::check_reduce("parray_reduce_rows_cuda", op, ydt, xdt, x, y, rows, cols);
  if (st != PARRAY_OK) return st;
  st = parray__reduce_check_stride("parray_reduce_rows_cuda", rows, cols, row_stride);
  if (st != PARRAY_OK) return st;
  if (rows == 0) return PARRAY_OK;
  if (cols == 0)
    return parray_ew::status_of(cudaMemsetAsync(y, 0, (size_t)rows * parray_dtype_size(ydt), stream),
                                "parray_reduce_rows_cuda");
  PARRAY_K_DISPATCH6(xdt, T,
                     return parray_rd::rows_typed<T>(op, (const T *)x, rows, cols, row_stride, y, ydt, stream),
                     (void)0)
  return PARRAY_ERR_UNSUPPORTED;
}

/* Bench entry point: fp32/fp16 row sums with a chosen kernel. variant:
 * 0 library default; 1 the first version's grouped kernel; 10*U + w with
 * U in {4, 8} loads in flight and w the grid cap in waves (0: one trip per
 * warp). */
extern "C" PARRAY_API parray_status parray__reduce_rows_sum_variant(int variant, float *y, parray_dtype xdt,
                                                                    const void *x, int64_t rows, int64_t cols,
                                                                    cudaStream_t s) {
  using namespace parray_rd;
  const int U = variant / 10, w = variant % 10;
  if (xdt == PARRAY_F32) {
    const float *p = (const float *)x;
    if (variant <= 1) return run_rows<float, RSum>(p, rows, cols, cols, y, PARRAY_F32, 0, s, variant);
    if (U == 4) return run_rows<float, RSum, 4>(p, rows, cols, cols, y, PARRAY_F32, 0, s, 0, w);
    return run_rows<float, RSum, 8>(p, rows, cols, cols, y, PARRAY_F32, 0, s, 0, w);
  }
  if (xdt == PARRAY_F16) {
    const __half *p = (const __half *)x;
    if (variant <= 1) return run_rows<__half, RSum>(p, rows, cols, cols, y, PARRAY_F32, 0, s, variant);
    if (U == 4) return run_rows<__half, RSum, 4>(p, rows, cols, cols, y, PARRAY_F32, 0, s, 0, w);
    return run_rows<__half, RSum, 8>(p, rows, cols, cols, y, PARRAY_F32, 0, s, 0, w);
  }
  parray_set_error("parray__reduce_rows_sum_variant: f32 or f16 only");
  return PARRAY_ERR_UNSUPPORTED;
}

