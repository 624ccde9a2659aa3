/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_cols.cu - parray_reduce_cols_cuda: reduction over the leading
 * dimension (column reductions) of a rows x cols array with a row stride.
 * Blocks of 1024 threads: TX threads across 16-byte column packs, TY down
 * the rows, one block per multiprocessor; a grid of (column tiles) x (row
 * splits) fixed by the shape (reduce_plan.h), about one wave of 132 blocks
 * (the earlier 256 blocks of 512 threads with 4 loads in flight, variant 0
 * of the bench entry below, reached 85% of copy on fp16 1M x 32 against
 * 88.6% for this shape; bench/RESULTS.md). The rows are cut
 * into chunks of 8*TY rows dealt round-robin to the splits, so the blocks
 * running together read one contiguous window of the array (the first
 * version gave each split one contiguous range; both measured the same on
 * the H200, within 1%). Each thread folds its rows with 8
 * loads in flight, the block folds its TY rows of partial results in a
 * fixed order: shuffles between the lanes of a warp that hold the same
 * columns, then the warps one after another through shared memory (the
 * first version's tree over all TY rows in shared memory conflicted P ways
 * in the banks, at the end of a one-wave grid where nothing hides it); with
 * several splits, each writes its partial
 * row to the workspace and the last block of a column tile (atomic ticket
 * per tile: one acquire-release atomic by thread 0 after a barrier) folds
 * the splits in index order, 8 loads in flight per thread. No atomics touch
 * the values: results are reproducible. Per-block globaltimer stamps (bench
 * variants 22/23, fp16 1M x 32 on the H100): the blocks'
 * streaming ends at 22-23.3 us, the last ticket at 24.2 us, and the last
 * block's fold takes 2 us more (1.4 us until its partial-row loads have all
 * arrived, 0.45 us of tree, 0.2 us to the store); with the fence and a
 * relaxed atomic as the ticket and the partial rows loaded one at a time
 * the fold took 2-2.6 us and the kernel 1.5-2% longer. */
#include <utility>

#include "reduce_args.h"
#include "reduce_kernels.cuh"

namespace parray_rd {
namespace {

constexpr int kColThreads = PARRAY_RD_COL_THREADS;

/* How a split grid finishes: every thread fences before the ticket (the
 * first version, kept for the bench), thread 0 alone fences after a barrier
 * (an earlier default), no ticket: the partial rows are folded by
 * a second kernel (cols_fold_kernel), or thread 0 takes the ticket with one
 * acquire-release atomic after a barrier (the default: 1-1.5% faster than
 * the fence and a relaxed atomic on the H100, bench variants 15 vs 17). */
enum ColFinish { kFenceAll = 0, kFenceOne = 1, kFoldKernel = 2, kAtomAcqRel = 3 };

/* Bench stamps (STAMP variants): per block b < kStampBlocks, %globaltimer
 * (ns) at the start, after the block's fold (every load consumed), after the
 * ticket, at the end of the last block's fold, and in the last block after
 * its partial-row loads and after its tree (0 elsewhere). */
constexpr int kStampBlocks = 1024;
constexpr int kStamps = 6;
__device__ unsigned long long g_col_stamps[kStampBlocks][kStamps];
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
template <bool STAMP>
__device__ __forceinline__ void stamp(int k) {
  if constexpr (STAMP) {
    const unsigned b = blockIdx.y * gridDim.x + blockIdx.x;
    if (threadIdx.x == 0 && b < (unsigned)kStampBlocks) g_col_stamps[b][k] = gtimer();
  }
}

/* Fold a column block's TY rows of partial results (acc of each thread,
 * tx = tid % TX, ty = tid / TX) into sh[0 .. TX*P), in a fixed order. With
 * SHFL: the rows that share a warp by a butterfly over the lanes with the
 * same tx, then the warps' rows in warp order through shared memory,
 * sh[w][tx][j]. Without: the first version's tree over the TY rows in shared
 * memory, sh[ty][tx][j] (its strided accesses conflict in the banks P ways).
 * Ends with a barrier. */
template <typename Op, int P, int NTH, bool SHFL, typename A>
__device__ __forceinline__ void fold_rows(A *acc, A *sh, int TX, int TY, int tx, int ty) {
  const int tid = threadIdx.x, NT = TX * P;
  if constexpr (SHFL) {
    const int lane = tid & 31, w = tid >> 5;
    for (int off = 16; off >= TX; off >>= 1)
#pragma unroll
      for (int j = 0; j < P; ++j) acc[j] = Op::template comb<A>(acc[j], __shfl_xor_sync(0xffffffffu, acc[j], off));
    if (lane < TX)
#pragma unroll
      for (int j = 0; j < P; ++j) sh[(w * TX + lane) * P + j] = acc[j];
    __syncthreads();
    for (int i = tid; i < NT; i += NTH) {
      A v = sh[i];
      for (int k = 1; k < NTH / 32; ++k) v = Op::template comb<A>(v, sh[k * NT + i]);
      sh[i] = v;
    }
    __syncthreads();
  } else {
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
  }
}

/* NTH threads per block, U loads in flight per thread, at least MINB
 * resident blocks per multiprocessor (caps the registers: 65536 / (NTH *
 * MINB) each). */
template <typename T, typename Op, int P, int NTH = kColThreads, int U = 4, int FIN = kFenceOne, bool SHFL = true,
          int MINB = 1024 / NTH, bool STAMP = false>
__global__ void __launch_bounds__(NTH, MINB)
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
  stamp<STAMP>(0);
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
  const int NT = TX * P; /* columns of this tile */
  fold_rows<Op, P, NTH, SHFL>(acc, sh, TX, TY, tx, ty);
  stamp<STAMP>(1);
  const int64_t ct = (int64_t)blockIdx.x * NT; /* first column of the tile */
  if (gy == 1) {
    for (int i = tid; i < NT; i += kColThreads)
      if (ct + i < cols) store_out(y, ydt, ct + i, sh[i], mean_count);
    return;
  }
  for (int i = tid; i < NT; i += kColThreads)
    if (ct + i < cols) partial[s * cols + ct + i] = sh[i];
  if constexpr (FIN == kFoldKernel) return;
  /* The ticket. The first version had every thread execute __threadfence()
   * (MEMBAR.SC.GPU) here: on the H200 each block then added ~20-35 ns to
   * the run. Now the barrier orders the block's
   * partial stores before thread 0's fence, which releases them to the GPU
   * (the pattern of cooperative groups' grid sync). */
  if constexpr (FIN == kFenceAll) __threadfence();
  __syncthreads();
  if (tid == 0) {
    if constexpr (FIN == kAtomAcqRel) {
      /* one acquire-release atomic: releases the block's partial row (ordered
       * before it by the barrier) and, in the last block, acquires the
       * others' (passed on to the block by the barrier below) */
      unsigned old;
      asm volatile("atom.add.acq_rel.gpu.u32 %0, [%1], 1;" : "=r"(old) : "l"(&counters[blockIdx.x]) : "memory");
      last = old == (unsigned)(gy - 1);
    } else {
      if constexpr (FIN == kFenceOne) __threadfence();
      last = atomicAdd(&counters[blockIdx.x], 1u) == (unsigned)(gy - 1);
    }
  }
  __syncthreads();
  stamp<STAMP>(2);
  if (!last) return;
  if constexpr (FIN != kAtomAcqRel) __threadfence();
  /* the last block of this tile folds the gy partial rows, J lanes per column */
  const int J = kColThreads / NT;
  const int cc = tid % NT, jj = tid / NT;
  A a = Op::template init<A>();
  if (ct + cc < cols) {
    /* partial rows jj, jj + J, ... in that order, 8 loads in flight (the
     * loop of one load at a time made 4-9 dependent L2 round trips) */
    for (int64_t s0 = jj; s0 < gy; s0 += 8 * (int64_t)J) {
      A v[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) v[k] = s0 + (int64_t)k * J < gy ? __ldcg(partial + (s0 + (int64_t)k * J) * cols + ct + cc)
                                                                 : Op::template init<A>();
#pragma unroll
      for (int k = 0; k < 8; ++k)
        if (s0 + (int64_t)k * J < gy) a = Op::template comb<A>(a, v[k]);
    }
  }
  sh[jj * NT + cc] = a; /* every thread passed the barrier after the tree */
  __syncthreads();
  stamp<STAMP>(4);
  for (int off = J >> 1; off > 0; off >>= 1) {
    if (jj < off) sh[jj * NT + cc] = Op::template comb<A>(sh[jj * NT + cc], sh[(jj + off) * NT + cc]);
    __syncthreads();
  }
  stamp<STAMP>(5);
  if (jj == 0 && ct + cc < cols) store_out(y, ydt, ct + cc, sh[cc], mean_count);
  if (tid == 0) counters[blockIdx.x] = 0;
  stamp<STAMP>(3);
}

/* The kFoldKernel finish: column c of y from the gy partial rows in a fixed
 * order: 32 lanes per column, each folding splits lane, lane + 32, ...
 * (8 loads in flight), then a tree over the lanes; 32 columns per block. */
template <typename A, typename Op>
__global__ void __launch_bounds__(1024) cols_fold_kernel(const A *partial, int64_t gy, int64_t cols, void *y,
                                                         parray_dtype ydt, int64_t mean_count) {
  __shared__ A sh[32][33];
  const int cx = threadIdx.x & 31, jj = threadIdx.x >> 5;
  const int64_t c = (int64_t)blockIdx.x * 32 + cx;
  A a = Op::template init<A>();
  if (c < cols) {
#pragma unroll 8
    for (int64_t s2 = jj; s2 < gy; s2 += 32) a = Op::template comb<A>(a, partial[s2 * cols + c]);
  }
  sh[jj][cx] = a;
  __syncthreads();
  for (int off = 16; off > 0; off >>= 1) {
    if (jj < off) sh[jj][cx] = Op::template comb<A>(sh[jj][cx], sh[jj + off][cx]);
    __syncthreads();
  }
  if (jj == 0 && c < cols) store_out(y, ydt, c, sh[0][cx], mean_count);
}

/* NTH, U: kernel shape; blocks, chunk_u: plan (blocks 0: library default). */
template <typename T, typename Op, int NTH = kColThreads, int U = PARRAY_RD_COL_CHUNK_U, int FIN = kAtomAcqRel,
          bool SHFL = true, int MINB = 1024 / NTH, bool STAMP = false>
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
    cols_kernel<T, Op, PV, NTH, U, FIN, SHFL, MINB, STAMP><<<grid, NTH, 0, s>>>(x, rows, cols, stride, txl, pl.rs, pl.nch, pl.gy, partial,
                                                             counters, y, ydt, mean_count);
  else
    cols_kernel<T, Op, 1, NTH, U, FIN, SHFL, MINB, STAMP><<<grid, NTH, 0, s>>>(x, rows, cols, stride, txl, pl.rs, pl.nch, pl.gy, partial,
                                                            counters, y, ydt, mean_count);
  if (FIN == kFoldKernel && pl.gy > 1)
    cols_fold_kernel<A, Op><<<(unsigned)((cols + 31) / 32), 1024, 0, s>>>(partial, pl.gy, cols, y, ydt, mean_count);
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
  int chunk_u, fin, tree, minb, stamp;
};
/* 0 = the library default until 2026-11-24 (512 threads, 4 loads, 256
 * blocks); 15 = the default since; 1 = the first version's contiguous row splits;
 * 7 = the default with every thread fencing (the first version's finish);
 * 8, 9 = the fold kernel instead of the ticket (256 blocks; 128 blocks of 8
 * loads); 10 = the default on 264 blocks (two per multiprocessor of an H100
 * or H200); 11 = the default with the first version's shared-memory tree;
 * 12 = the first version (tree, every thread fencing); 13-16: one block of
 * 512 or 1024 threads per multiprocessor (132) with 8 loads, fold kernel or
 * ticket; 512 blocks with the fold kernel; 17 = 15 with one
 * acquire-release atomic as the ticket; 18 = two blocks of 512 threads with
 * 8 loads per multiprocessor (264); 19 = four blocks of 512 threads, 4 loads
 * (528; registers capped at 32 so that all 64 warps are resident); 20 = 128
 * blocks (every block 4 chunks of fp16 1Mx32 instead of 3 or 4); 21 = one
 * block of 512 threads with 16 loads (up to 128 registers); 22 = 15 with
 * stamps (g_col_stamps); 23 = 17 with stamps; 24 = 19 with 2 loads (no
 * spills at 32 registers). minb: resident blocks per
 * multiprocessor the kernel is compiled for (0: 1024 / nth). */
constexpr ColVariant kColVariants[] = {
    {512, 4, 256, 4, 1, 0, 0, 0},   {512, 4, 256, 0, 1, 0, 0, 0},  {512, 8, 256, 8, 1, 0, 0, 0},
    {256, 8, 512, 8, 1, 0, 0, 0},   {512, 4, 512, 4, 1, 0, 0, 0},  {256, 4, 1024, 4, 1, 0, 0, 0},
    {512, 4, 256, 16, 1, 0, 0, 0},  {512, 4, 256, 4, 0, 0, 0, 0},  {512, 4, 256, 4, 2, 0, 0, 0},
    {512, 8, 128, 8, 2, 0, 0, 0},   {512, 4, 264, 4, 1, 0, 0, 0},  {512, 4, 256, 4, 1, 1, 0, 0},
    {512, 4, 256, 4, 0, 1, 0, 0},   {512, 8, 132, 8, 2, 0, 0, 0},  {1024, 8, 132, 8, 2, 0, 0, 0},
    {1024, 8, 132, 8, 1, 0, 0, 0},  {512, 4, 512, 4, 2, 0, 0, 0},  {1024, 8, 132, 8, 3, 0, 0, 0},
    {512, 8, 264, 8, 1, 0, 0, 0},   {512, 4, 528, 4, 1, 0, 4, 0},  {1024, 8, 128, 8, 1, 0, 0, 0},
    {512, 16, 132, 16, 1, 0, 1, 0}, {1024, 8, 132, 8, 1, 0, 0, 1}, {1024, 8, 132, 8, 3, 0, 0, 1},
    {512, 2, 528, 2, 1, 0, 4, 0}};
constexpr int kNumColVariants = (int)(sizeof kColVariants / sizeof kColVariants[0]);

template <typename T, int V>
parray_status col_variant_v(float *y, const void *x, int64_t rows, int64_t cols, void *work, size_t wb,
                            cudaStream_t s) {
  using namespace parray_rd;
  constexpr ColVariant v = kColVariants[V];
  constexpr int minb = v.minb > 0 ? v.minb : 1024 / v.nth;
  return run_cols<T, RSum, v.nth, v.u, v.fin, !v.tree, minb, v.stamp != 0>((const T *)x, rows, cols, cols, y,
                                                                            PARRAY_F32, 0, work, wb, s, v.blocks,
                                                                            v.chunk_u);
}
template <typename T, int... V>
parray_status col_variant_of(int v, float *y, const void *x, int64_t rows, int64_t cols, void *work, size_t wb,
                             cudaStream_t s, std::integer_sequence<int, V...>) {
  parray_status st = PARRAY_ERR_INVALID;
  ((v == V ? (st = col_variant_v<T, V>(y, x, rows, cols, work, wb, s), 0) : 0), ...);
  return st;
}
template <typename T>
parray_status col_variant(int v, float *y, const void *x, int64_t rows, int64_t cols, void *work, size_t wb,
                          cudaStream_t s) {
  return col_variant_of<T>(v, y, x, rows, cols, work, wb, s, std::make_integer_sequence<int, kNumColVariants>{});
}
} // namespace

extern "C" PARRAY_API parray_status parray__reduce_cols_sum_variant(int variant, float *y, parray_dtype xdt,
                                                                    const void *x, int64_t rows, int64_t cols,
                                                                    void *work, size_t *work_bytes,
                                                                    cudaStream_t s) {
  if (variant < 0 || variant >= kNumColVariants ||
      (xdt != PARRAY_F32 && xdt != PARRAY_F16)) {
    parray_set_error("parray__reduce_cols_sum_variant: bad variant or type");
    return PARRAY_ERR_INVALID;
  }
  const ColVariant v = kColVariants[variant];
  if (!work) {
    /* the pack width run_cols will use (x is 16-byte aligned in the bench) */
    const int es = xdt == PARRAY_F32 ? 4 : 2;
    const int pv = rows == 1 || (cols * es) % 16 == 0 ? 16 / es : 1;
    *work_bytes = parray_rd_plan_bytes(
        parray_rd_plan_cols_ex(rows, cols, pv, v.nth, v.blocks, PARRAY_RD_COL_MIN_ROWS, v.chunk_u), cols);
    return PARRAY_OK;
  }
  if (xdt == PARRAY_F32) return col_variant<float>(variant, y, x, rows, cols, work, *work_bytes, s);
  return col_variant<__half>(variant, y, x, rows, cols, work, *work_bytes, s);
}

/* Bench: the stamps of the last STAMP variant run (kStamps = 6 per block,
 * kStampBlocks blocks; see g_col_stamps), copied to host; host == NULL
 * clears them. */
extern "C" PARRAY_API parray_status parray__reduce_cols_stamps(unsigned long long *host, int max_blocks) {
  const int nb = max_blocks < parray_rd::kStampBlocks ? max_blocks : parray_rd::kStampBlocks;
  if (!host) {
    void *p = nullptr;
    cudaError_t e = cudaGetSymbolAddress(&p, parray_rd::g_col_stamps);
    if (e == cudaSuccess) e = cudaMemset(p, 0, sizeof parray_rd::g_col_stamps);
    return parray_ew::status_of(e, "parray__reduce_cols_stamps");
  }
  return parray_ew::status_of(
      cudaMemcpyFromSymbol(host, parray_rd::g_col_stamps, (size_t)nb * parray_rd::kStamps * sizeof(unsigned long long)),
      "parray__reduce_cols_stamps");
}

