/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_all.cu - parray_reduce_all_cuda: reduction of a whole array in one
 * launch. The array (from its first 16-byte aligned element) is cut into
 * fixed chunks of PARRAY_RD_ALL_CHUNK elements; a persistent grid walks the
 * chunks, each reduced by one block (16-byte pack loads, 4 in flight per
 * thread, fixed-order tree) into its own partial; the block that finishes
 * last (atomic ticket) folds the partials in index order. The result depends
 * only on the data, n and the pointer's alignment, not on the grid. */
#include "reduce_kernels.cuh"

namespace parray_rd {
namespace {

template <typename T, typename Op, int P>
__global__ void __launch_bounds__(kThreads)
    all_kernel(const T *x, int64_t n, int head, int64_t nchunks, typename AccOf<T>::type *partial,
               unsigned *counter, void *y, parray_dtype ydt, int64_t mean_count) {
  using A = typename AccOf<T>::type;
  constexpr int U = 4;
  __shared__ A sh[kThreads / 32];
  __shared__ bool last;
  const int tid = threadIdx.x;
  const int64_t m = n - head;
  const T *xa = x + head;
  for (int64_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
    const int64_t beg = c * kAllChunk;
    const int len = (int)(m - beg < kAllChunk ? m - beg : kAllChunk);
    const T *p = xa + beg;
    const int npk = len / P;
    A acc = Op::template init<A>();
    for (int k0 = tid; k0 < npk; k0 += U * kThreads) {
      parray_ew::Pack<T, P> v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (k0 + u * kThreads < npk) v[u] = ldpack<T, P>(p + (int64_t)(k0 + u * kThreads) * P);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (k0 + u * kThreads < npk) acc = fold_pack<Op, P>(acc, v[u]);
    }
    const int rest = len - npk * P;
    if (tid < rest) acc = Op::template comb<A>(acc, to_acc<A>(p[npk * P + tid]));
    if (c == 0 && tid < head) acc = Op::template comb<A>(acc, to_acc<A>(x[tid]));
    acc = block_reduce<Op>(acc, sh);
    if (tid == 0) {
      if (nchunks == 1)
        store_out(y, ydt, 0, acc, mean_count);
      else
        partial[c] = acc;
    }
  }
  if (nchunks == 1) return;
  /* thread 0 wrote the block's partials: it alone releases them (every
   * thread fencing, MEMBAR.SC.GPU each, cost a fixed time per block in the
   * column reduction, reduce_cols.cu) */
  if (tid == 0) {
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  A acc = Op::template init<A>();
#pragma unroll 16
  for (int64_t i = tid; i < nchunks; i += kThreads) acc = Op::template comb<A>(acc, __ldcg(partial + i));
  acc = block_reduce<Op>(acc, sh);
  if (tid == 0) {
    store_out(y, ydt, 0, acc, mean_count);
    *counter = 0;
  }
}

template <typename T, typename Op>
parray_status run_all(const T *x, int64_t n, void *y, parray_dtype ydt, int64_t mean_count, void *work,
                      size_t work_bytes, cudaStream_t s) {
  using A = typename AccOf<T>::type;
  constexpr int P = 16 / sizeof(T);
  int64_t head = (int64_t)((16 - (uintptr_t)x % 16) % 16 / sizeof(T));
  if (head > n) head = n;
  const int64_t nchunks = all_chunks(n - head);
  auto kern = all_kernel<T, Op, P>;
  int sm = 0, tps = 0;
  parray_status st = parray_cuda_device_shape(&sm, &tps);
  if (st != PARRAY_OK) return st;
  int64_t grid = (int64_t)sm * resident_blocks((const void *)kern, kThreads, 0);
  if (grid > nchunks) grid = nchunks;
  unsigned *counter = nullptr;
  A *partial = nullptr;
  bool temp = false;
  if (nchunks > 1) {
    const size_t need = 256 + (size_t)nchunks * sizeof(A);
    if (!work) {
      st = temp_workspace(need, &work, s);
      if (st != PARRAY_OK) return st;
      temp = true;
    } else if (work_bytes < need) {
      parray_set_error("parray_reduce_all_cuda: workspace of %zu bytes, %zu needed", work_bytes, need);
      return PARRAY_ERR_INVALID;
    }
    counter = (unsigned *)work;
    partial = (A *)((char *)work + 256);
  }
  kern<<<(unsigned)grid, kThreads, 0, s>>>(x, n, (int)head, nchunks, partial, counter, y, ydt, mean_count);
  cudaError_t e = cudaGetLastError();
  if (temp) {
    parray_status fs = free_workspace(work, s);
    if (e == cudaSuccess && fs != PARRAY_OK) return fs;
  }
  return parray_ew::status_of(e, "parray_reduce_all_cuda");
}

template <typename T>
parray_status all_typed(parray_reduce_op op, const T *x, int64_t n, void *y, parray_dtype ydt, void *work,
                        size_t work_bytes, cudaStream_t s) {
  switch (op) {
  case PARRAY_REDUCE_SUM: return run_all<T, RSum>(x, n, y, ydt, 0, work, work_bytes, s);
  case PARRAY_REDUCE_MEAN: return run_all<T, RSum>(x, n, y, ydt, n, work, work_bytes, s);
  case PARRAY_REDUCE_MAX: return run_all<T, RMax>(x, n, y, ydt, 0, work, work_bytes, s);
  default: return run_all<T, RMin>(x, n, y, ydt, 0, work, work_bytes, s);
  }
}

} // namespace
} // namespace parray_rd

extern "C" parray_status parray_reduce_all_cuda(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt,
                                                const void *x, int64_t n, void *work, size_t work_bytes,
                                                cudaStream_t stream) {
  parray_status st = parray_rd::check_reduce("parray_reduce_all_cuda", op, ydt, xdt, x, y, 1, n);
  if (st != PARRAY_OK) return st;
  if (n == 0) { /* empty sum */
    const size_t es = parray_dtype_size(ydt);
    return parray_ew::status_of(cudaMemsetAsync(y, 0, es, stream), "parray_reduce_all_cuda");
  }
  PARRAY_K_DISPATCH6(xdt, T, return parray_rd::all_typed<T>(op, (const T *)x, n, y, ydt, work, work_bytes, stream),
                     (void)0)
  return PARRAY_ERR_UNSUPPORTED;
}
