/* reduce_cols.cu - parray_reduce_cols_cuda: reduction over the leading
 * dimension (column reductions) of a rows x cols array with a row stride.
 * Blocks of 512 threads: TX threads across 16-byte column packs, TY down
 * the rows, two blocks per multiprocessor; a grid of (column tiles) x (row
 * splits) fixed by the shape (kern_plan.h), about one wave. The rows are cut
 * into chunks of 4*TY rows dealt round-robin to the splits, so the blocks
 * running together read one contiguous window of the array (the first
 * version gave each split one contiguous range; both measured the same on
 * the H200, within 1%). Each thread folds its rows with 4
 * loads in flight, the block folds its TY rows of partial results with a
 * fixed tree in shared memory; with several splits, each writes its partial
 * row to the workspace and the last block of a column tile (atomic ticket
 * per tile) folds the splits in index order. No atomics touch the values:
 * results are reproducible. */
#include "../reduce_args.h"
#include "kern_reduce.cuh"

namespace parray_rd {
namespace {

constexpr int kColThreads = PARRAY_RD_COL_THREADS;

/* NTH threads per block, U loads in flight per thread. */
template <typename T, typename Op, int P, int NTH = kColThreads, int U = 4>
__global__ void __launch_bounds__(NTH, 1024 / NTH)
    cols_kernel(const T *x, int64_t rows, int64_t cols, int64_t stride, int txl, int64_t rs, int64_t nch, int64_t gy,
                typename AccOf<T>::type *partial, unsigned *counters, void *y, parray_dtype ydt, int64_t mean_count) {
  using A = typename AccOf<T>::type;
  constexpr int kColThreads = NTH;
  __shared__ A sh[kColThreads * P];
  __shared__ bool last;
  const int tid = threadIdx.x;
  const int TX = 1 << txl, TY = kColThreads >> txl;
  const int tx = tid & (TX - 1), ty = tid >> txl;
  const int64_t c0 = ((int64_t)blockIdx.x * TX + tx) * P; /* first column of this thread */
  const int64_t s = blockIdx.y;
  A acc[P];
#pragma unroll
  for (int j = 0; j < P; ++j) acc[j] = Op::template init<A>();
  const int64_t tstep = (int64_t)TY * stride;
  /* chunks s, s + gy, ... of rs rows; in each, rows r_beg+ty, +TY, ... in
   * increasing order, U at a time while a full group remains (no per-load
   * bounds checks), then one by one */
  for (int64_t ch = s; ch < nch; ch += gy) {
    const int64_t r_beg = ch * rs;
    const int64_t r_end = r_beg + rs < rows ? r_beg + rs : rows;
    if (c0 + P <= cols) {
      int64_t r = r_beg + ty;
      const T *p = x + r * stride + c0;
      for (; r + (int64_t)(U - 1) * TY < r_end; r += (int64_t)U * TY, p += U * tstep) {
        parray_ew::Pack<T, P> v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = ldpack<T, P>(p + u * tstep);
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int j = 0; j < P; ++j) acc[j] = Op::template comb<A>(acc[j], to_acc<A>(v[u].e[j]));
      }
      for (; r < r_end; r += TY, p += tstep) {
        const parray_ew::Pack<T, P> v = ldpack<T, P>(p);
#pragma unroll
        for (int j = 0; j < P; ++j) acc[j] = Op::template comb<A>(acc[j], to_acc<A>(v.e[j]));
      }
    } else if (c0 < cols) {
      for (int64_t r = r_beg + ty; r < r_end; r += TY)
#pragma unroll
        for (int j = 0; j < P; ++j)
          if (c0 + j < cols) acc[j] = Op::template comb<A>(acc[j], to_acc<A>(x[r * stride + c0 + j]));
    }
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
  /* Measured on the H200: each block adds ~20-35 ns to the run (256 more
   * splits: +8.5 us), which keeps fp16 1M x 32 at 70% of copy; suspected:
   * this fence, which every thread executes as MEMBAR.SC.GPU (see
   * bench/kernels/NOTES.md); not yet changed, since no GPU run was left to
   * test a lighter ordering. */
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

/* NTH, U: kernel shape; blocks, chunk_u: plan (blocks 0: library default). */
template <typename T, typename Op, int NTH = kColThreads, int U = PARRAY_RD_COL_CHUNK_U>
parray_status run_cols(const T *x, int64_t rows, int64_t cols, int64_t stride, void *y, parray_dtype ydt,
                       int64_t mean_count, void *work, size_t work_bytes, cudaStream_t s, int64_t blocks = 0,
                       int chunk_u = 0) {
  using A = typename AccOf<T>::type;
  constexpr int PV = 16 / sizeof(T);
  const bool vec = (uintptr_t)x % 16 == 0 && (rows == 1 || ((uint64_t)stride * sizeof(T)) % 16 == 0);
  const int P = vec ? PV : 1;
  const parray_rd_col_plan pl = blocks > 0 ? parray_rd_plan_cols_ex(rows, cols, P, NTH, blocks, PARRAY_RD_COL_MIN_ROWS,
                                                                    chunk_u)
                                           : parray_rd_plan_cols(rows, cols, P);
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
    cols_kernel<T, Op, PV, NTH, U><<<grid, NTH, 0, s>>>(x, rows, cols, stride, txl, pl.rs, pl.nch, pl.gy, partial, counters,
                                                        y, ydt, mean_count);
  else
    cols_kernel<T, Op, 1, NTH, U><<<grid, NTH, 0, s>>>(x, rows, cols, stride, txl, pl.rs, pl.nch, pl.gy, partial, counters,
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
  st = parray__reduce_check_stride("parray_reduce_cols_cuda", rows, cols, row_stride);
  if (st != PARRAY_OK) return st;
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

/* Bench entry point: fp32/fp16 column sums with the block shape of
 * kColVariants[variant] (threads, loads in flight, plan target blocks);
 * with work == NULL it only sets *work_bytes to the workspace needed. */
namespace {
struct ColVariant {
  int nth, u;
  int64_t blocks;
  int chunk_u;
};
/* 0 = the library default; 1 = the first version's contiguous row splits */
const ColVariant kColVariants[] = {{512, 4, 256, 4},  {512, 4, 256, 0}, {512, 8, 256, 8}, {256, 8, 512, 8},
                                   {512, 4, 512, 4},  {256, 4, 1024, 4}, {512, 4, 256, 16}};
} // namespace

extern "C" PARRAY_API parray_status parray__reduce_cols_sum_variant(int variant, float *y, parray_dtype xdt,
                                                                    const void *x, int64_t rows, int64_t cols,
                                                                    void *work, size_t *work_bytes,
                                                                    cudaStream_t s) {
  using namespace parray_rd;
  if (variant < 0 || variant >= (int)(sizeof kColVariants / sizeof kColVariants[0]) ||
      (xdt != PARRAY_F32 && xdt != PARRAY_F16)) {
    parray_set_error("parray__reduce_cols_sum_variant: bad variant or type");
    return PARRAY_ERR_INVALID;
  }
  const ColVariant v = kColVariants[variant];
  if (!work) {
    const int pv = xdt == PARRAY_F32 ? 4 : 8;
    *work_bytes = parray_rd_plan_bytes(
        parray_rd_plan_cols_ex(rows, cols, pv, v.nth, v.blocks, PARRAY_RD_COL_MIN_ROWS, v.chunk_u), cols);
    return PARRAY_OK;
  }
#define PARRAY_COLV_(T, NTH, U)                                                                                  \
  return run_cols<T, RSum, NTH, U>((const T *)x, rows, cols, cols, y, PARRAY_F32, 0, work, *work_bytes, s, v.blocks, \
                                   v.chunk_u)
#define PARRAY_COLV_T_(T)                                                                                        \
  if (v.nth == 512 && v.u == 4) PARRAY_COLV_(T, 512, 4);                                                         \
  if (v.nth == 512) PARRAY_COLV_(T, 512, 8);                                                                     \
  if (v.u == 4) PARRAY_COLV_(T, 256, 4);                                                                         \
  PARRAY_COLV_(T, 256, 8);
  if (xdt == PARRAY_F32) {
    PARRAY_COLV_T_(float)
  }
  PARRAY_COLV_T_(__half)
#undef PARRAY_COLV_T_
#undef PARRAY_COLV_
}

