/* reduce_rows.cu - parray_reduce_rows_cuda: reduction over the last
 * dimension of a (possibly padded) rows x cols array. Short and medium rows:
 * a group of L lanes (a power of two <= 32, sized to the row) per row, so a
 * warp reduces 32/L rows at once; each group takes 4 rows per trip so every
 * lane has 4 loads in flight, and folds its lanes with a sub-warp butterfly.
 * Long rows (over 1024 packs): a block per row. Rows whose starts share one
 * 16-byte alignment (row_stride*size a multiple of 16) use 16-byte packs
 * after a scalar head; otherwise elements are loaded singly. */
#include "kern_reduce.cuh"

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

template <typename T, typename Op>
parray_status run_rows(const T *x, int64_t rows, int64_t cols, int64_t stride, void *y, parray_dtype ydt,
                       int64_t mean_count, cudaStream_t s) {
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
  if (vec && (npk > 1024 || cols > INT32_MAX / 2)) {
    auto k = rows_block_kernel<T, Op, PV>;
    kern = (const void *)k;
    const int64_t cap = (int64_t)sm * resident_blocks(kern, kThreads, 0) * 16;
    blocks = rows < cap ? rows : cap;
    k<<<(unsigned)blocks, kThreads, 0, s>>>(x, rows, cols, stride, head, y, ydt, mean_count);
  } else if (cols > INT32_MAX / 2) {
    parray_set_error("parray_reduce_rows_cuda: rows of %lld unaligned elements are not supported", (long long)cols);
    return PARRAY_ERR_UNSUPPORTED;
  } else {
    int lw = 0;
    while (lw < 5 && (int64_t(1) << lw) < npk) ++lw;
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
  if (row_stride < cols && rows > 1) {
    parray_set_error("parray_reduce_rows_cuda: row stride %lld < cols %lld", (long long)row_stride, (long long)cols);
    return PARRAY_ERR_INVALID;
  }
  if (rows == 0) return PARRAY_OK;
  if (cols == 0)
    return parray_ew::status_of(cudaMemsetAsync(y, 0, (size_t)rows * parray_dtype_size(ydt), stream),
                                "parray_reduce_rows_cuda");
  PARRAY_K_DISPATCH6(xdt, T,
                     return parray_rd::rows_typed<T>(op, (const T *)x, rows, cols, row_stride, y, ydt, stream),
                     (void)0)
  return PARRAY_ERR_UNSUPPORTED;
}
