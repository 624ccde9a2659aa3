/* reduce_cols.cu - parray_reduce_cols_cuda: reduction over the leading
 * dimension (column reductions) of a rows x cols array with a row stride.
 * Blocks of 512 threads: TX threads across 16-byte column packs, TY down
 * the rows, two blocks per multiprocessor; a grid of (column tiles) x (row
 * splits) fixed by the shape (kern_plan.h), about one wave. Each thread
 * folds its rows with 4 loads in flight, the
 * block folds its TY rows of partial results with a fixed tree in shared
 * memory; with several splits, each writes its partial row to the workspace
 * and the last block of a column tile (atomic ticket per tile) folds the
 * splits in index order. No atomics touch the values: results are
 * reproducible. */
#include "kern_reduce.cuh"

namespace parray_rd {
namespace {

constexpr int kColThreads = PARRAY_RD_COL_THREADS;

template <typename T, typename Op, int P>
__global__ void __launch_bounds__(kColThreads, 2)
    cols_kernel(const T *x, int64_t rows, int64_t cols, int64_t stride, int txl, int64_t rs, int64_t gy,
                typename AccOf<T>::type *partial, unsigned *counters, void *y, parray_dtype ydt, int64_t mean_count) {
  using A = typename AccOf<T>::type;
  constexpr int U = 4;
  __shared__ A sh[kColThreads * P];
  __shared__ bool last;
  const int tid = threadIdx.x;
  const int TX = 1 << txl, TY = kColThreads >> txl;
  const int tx = tid & (TX - 1), ty = tid >> txl;
  const int64_t c0 = ((int64_t)blockIdx.x * TX + tx) * P; /* first column of this thread */
  const int64_t s = blockIdx.y;
  const int64_t r_beg = s * rs;
  const int64_t r_end = r_beg + rs < rows ? r_beg + rs : rows;
  A acc[P];
#pragma unroll
  for (int j = 0; j < P; ++j) acc[j] = Op::template init<A>();
  if (c0 + P <= cols) {
    for (int64_t r = r_beg + ty; r < r_end; r += U * TY) {
      parray_ew::Pack<T, P> v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (r + u * TY < r_end) v[u] = ldpack<T, P>(x + (r + u * TY) * stride + c0);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (r + u * TY < r_end) {
#pragma unroll
          for (int j = 0; j < P; ++j) acc[j] = Op::template comb<A>(acc[j], to_acc<A>(v[u].e[j]));
        }
    }
  } else if (c0 < cols) {
    for (int64_t r = r_beg + ty; r < r_end; r += TY)
#pragma unroll
      for (int j = 0; j < P; ++j)
        if (c0 + j < cols) acc[j] = Op::template comb<A>(acc[j], to_acc<A>(x[r * stride + c0 + j]));
  }
  /* fold the TY rows of partials: sh[ty][tx][j] */
  const int NT = TX * P; /* columns of this tile */
#pragma unroll
  for (int j = 0; j < P; ++j) sh[(ty * TX + tx) * P + j] = acc[j];
  __syncthreads();
  for (int off = TY >> 1; off > 0; off >>= 1) {
    if (ty < off) {
#pragma unroll
      for (int j = 0; j < P; ++j) {
        const int i = (ty * TX + tx) * P + j;
        sh[i] = Op::template comb<A>(sh[i], sh[i + off * NT]);
      }
    }
    __syncthreads();
  }
  const int64_t ct = (int64_t)blockIdx.x * NT; /* first column of the tile */
  if (gy == 1) {
    for (int i = tid; i < NT; i += kColThreads)
      if (ct + i < cols) store_out(y, ydt, ct + i, sh[i], mean_count);
    return;
  }
  for (int i = tid; i < NT; i += kColThreads)
    if (ct + i < cols) partial[s * cols + ct + i] = sh[i];
  __threadfence();
  __syncthreads();
  if (tid == 0) last = atomicAdd(&counters[blockIdx.x], 1u) == (unsigned)(gy - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();
  /* the last block of this tile folds the gy partial rows, J lanes per column */
  const int J = kColThreads / NT;
  const int cc = tid % NT, jj = tid / NT;
  A a = Op::template init<A>();
  if (ct + cc < cols) {
#pragma unroll 16
    for (int64_t s2 = jj; s2 < gy; s2 += J) a = Op::template comb<A>(a, __ldcg(partial + s2 * cols + ct + cc));
  }
  sh[jj * NT + cc] = a; /* every thread passed the barrier after the tree */
  __syncthreads();
  for (int off = J >> 1; off > 0; off >>= 1) {
    if (jj < off) sh[jj * NT + cc] = Op::template comb<A>(sh[jj * NT + cc], sh[(jj + off) * NT + cc]);
    __syncthreads();
  }
  if (jj == 0 && ct + cc < cols) store_out(y, ydt, ct + cc, sh[cc], mean_count);
  if (tid == 0) counters[blockIdx.x] = 0;
}

template <typename T, typename Op>
parray_status run_cols(const T *x, int64_t rows, int64_t cols, int64_t stride, void *y, parray_dtype ydt,
                       int64_t mean_count, void *work, size_t work_bytes, cudaStream_t s) {
  using A = typename AccOf<T>::type;
  constexpr int PV = 16 / sizeof(T);
  const bool vec = (uintptr_t)x % 16 == 0 && (rows == 1 || ((uint64_t)stride * sizeof(T)) % 16 == 0);
  const int P = vec ? PV : 1;
  const parray_rd_col_plan pl = parray_rd_plan_cols(rows, cols, P);
  int txl = 0;
  while ((1 << txl) < pl.TX) ++txl;
  if (pl.gx > 0x7fffffff || pl.gy > 65535) {
    parray_set_error("parray_reduce_cols_cuda: shape %lld x %lld too large", (long long)rows, (long long)cols);
    return PARRAY_ERR_UNSUPPORTED;
  }
  unsigned *counters = nullptr;
  A *partial = nullptr;
  bool temp = false;
  if (pl.gy > 1) {
    const size_t cbytes = ((size_t)pl.gx * 4 + 255) / 256 * 256;
    const size_t need = cbytes + (size_t)pl.gy * (size_t)cols * sizeof(A);
    if (!work) {
      parray_status st = temp_workspace(need, &work, s);
      if (st != PARRAY_OK) return st;
      temp = true;
    } else if (work_bytes < need) {
      parray_set_error("parray_reduce_cols_cuda: workspace of %zu bytes, %zu needed", work_bytes, need);
      return PARRAY_ERR_INVALID;
    }
    counters = (unsigned *)work;
    partial = (A *)((char *)work + cbytes);
  }
  dim3 grid((unsigned)pl.gx, (unsigned)pl.gy);
  if (vec)
    cols_kernel<T, Op, PV><<<grid, kColThreads, 0, s>>>(x, rows, cols, stride, txl, pl.rs, pl.gy, partial, counters,
                                                        y, ydt, mean_count);
  else
    cols_kernel<T, Op, 1><<<grid, kColThreads, 0, s>>>(x, rows, cols, stride, txl, pl.rs, pl.gy, partial, counters,
                                                       y, ydt, mean_count);
  cudaError_t e = cudaGetLastError();
  if (temp) {
    parray_status fs = free_workspace(work, s);
    if (e == cudaSuccess && fs != PARRAY_OK) return fs;
  }
  return parray_ew::status_of(e, "parray_reduce_cols_cuda");
}

template <typename T>
parray_status cols_typed(parray_reduce_op op, const T *x, int64_t rows, int64_t cols, int64_t stride, void *y,
                         parray_dtype ydt, void *work, size_t work_bytes, cudaStream_t s) {
  switch (op) {
  case PARRAY_REDUCE_SUM: return run_cols<T, RSum>(x, rows, cols, stride, y, ydt, 0, work, work_bytes, s);
  case PARRAY_REDUCE_MEAN: return run_cols<T, RSum>(x, rows, cols, stride, y, ydt, rows, work, work_bytes, s);
  case PARRAY_REDUCE_MAX: return run_cols<T, RMax>(x, rows, cols, stride, y, ydt, 0, work, work_bytes, s);
  default: return run_cols<T, RMin>(x, rows, cols, stride, y, ydt, 0, work, work_bytes, s);
  }
}

} // namespace
} // namespace parray_rd

extern "C" parray_status parray_reduce_cols_cuda(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt,
                                                 const void *x, int64_t rows, int64_t cols, int64_t row_stride,
                                                 void *work, size_t work_bytes, cudaStream_t stream) {
  parray_status st = parray_rd::check_reduce("parray_reduce_cols_cuda", op, ydt, xdt, x, y, cols, rows);
  if (st != PARRAY_OK) return st;
  if (row_stride < cols && rows > 1) {
    parray_set_error("parray_reduce_cols_cuda: row stride %lld < cols %lld", (long long)row_stride, (long long)cols);
    return PARRAY_ERR_INVALID;
  }
  if (cols == 0) return PARRAY_OK;
  if (rows == 0)
    return parray_ew::status_of(cudaMemsetAsync(y, 0, (size_t)cols * parray_dtype_size(ydt), stream),
                                "parray_reduce_cols_cuda");
  PARRAY_K_DISPATCH6(
      xdt, T,
      return parray_rd::cols_typed<T>(op, (const T *)x, rows, cols, row_stride, y, ydt, work, work_bytes, stream),
      (void)0)
  return PARRAY_ERR_UNSUPPORTED;
}
