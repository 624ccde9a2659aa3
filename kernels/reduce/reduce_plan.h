/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_plan.h - launch plans of the multi-block reductions, in C so that the
 * CPU library (workspace sizes) and the CUDA kernels share one definition.
 * Private to kernels/reduce. */
#ifndef PARRAY_KERN_PLAN_H
#define PARRAY_KERN_PLAN_H

#include <stdint.h>

#define PARRAY_RD_THREADS 256
#define PARRAY_RD_ALL_CHUNK ((int64_t)16384) /* elements per whole-array chunk */
#define PARRAY_RD_COL_THREADS 1024           /* threads of a column block */
#define PARRAY_RD_COL_BLOCKS 132             /* about this many column blocks (one per SM of an H100/H200) */
#define PARRAY_RD_COL_MIN_ROWS 4             /* rows per thread at least */
#define PARRAY_RD_COL_CHUNK_U 8              /* chunks of TY*8 rows, interleaved over the splits; 8 loads in flight */

/* Chunks of the whole-array reduction of m elements. */
static inline int64_t parray_rd_all_chunks(int64_t m) {
  return m <= PARRAY_RD_ALL_CHUNK ? 1 : (m + PARRAY_RD_ALL_CHUNK - 1) / PARRAY_RD_ALL_CHUNK;
}

/* Column-reduction plan: TX threads across column packs of P elements, TY
 * down the rows, gx column tiles; the rows are cut into nch chunks of rs
 * rows and row split s (s < gy) folds chunks s, s + gy, s + 2*gy, ...
 * Interleaved (chunk_u > 0): chunks of TY*chunk_u rows, so the splits
 * running at one time read one contiguous window of the array; contiguous
 * (chunk_u == 0): one chunk per split. Depends only on the shape, P and the
 * constants given (never on the GPU), so results are reproducible. */
typedef struct parray_rd_col_plan {
  int P, TX, TY;
  int64_t gx, gy, rs, nch;
} parray_rd_col_plan;

static inline parray_rd_col_plan parray_rd_plan_cols_ex(int64_t rows, int64_t cols, int P, int threads,
                                                        int64_t blocks, int64_t min_rows, int chunk_u) {
  parray_rd_col_plan p;
  const int64_t npk = (cols + P - 1) / P;
  int tx = 1;
  while (tx < 32 && tx < npk) tx <<= 1;
  p.P = P;
  p.TX = tx;
  p.TY = threads / tx;
  p.gx = npk < 1 ? 1 : (npk + tx - 1) / tx;
  int64_t target = blocks / p.gx;
  if (target < 1) target = 1;
  if (chunk_u > 0) {
    p.rs = (int64_t)p.TY * chunk_u;
    p.nch = rows <= 0 ? 1 : (rows + p.rs - 1) / p.rs;
    /* at least min_rows rows per thread in each split */
    int64_t maxsplits = rows / ((int64_t)p.TY * min_rows);
    if (maxsplits < 1) maxsplits = 1;
    p.gy = p.nch < target ? p.nch : target;
    if (p.gy > maxsplits) p.gy = maxsplits;
    return p;
  }
  int64_t rs = (rows + target - 1) / target;
  const int64_t min_rs = (int64_t)p.TY * min_rows;
  if (rs < min_rs) rs = min_rs;
  rs = (rs + p.TY - 1) / p.TY * p.TY;
  p.rs = rs;
  p.gy = rows <= 0 ? 1 : (rows + rs - 1) / rs;
  p.nch = p.gy;
  return p;
}

static inline parray_rd_col_plan parray_rd_plan_cols(int64_t rows, int64_t cols, int P) {
  return parray_rd_plan_cols_ex(rows, cols, P, PARRAY_RD_COL_THREADS, PARRAY_RD_COL_BLOCKS, PARRAY_RD_COL_MIN_ROWS,
                                PARRAY_RD_COL_CHUNK_U);
}

/* Workspace bytes of a plan: tile counters, then gy partial rows of 8-byte
 * accumulators. */
static inline uint64_t parray_rd_plan_bytes(parray_rd_col_plan p, int64_t cols) {
  uint64_t b = ((uint64_t)p.gx * 4 + 255) / 256 * 256;
  if (p.gy > 1) b += (uint64_t)p.gy * (uint64_t)cols * 8;
  return b;
}

/* Workspace bytes for a column reduction with pack width P. */
static inline uint64_t parray_rd_cols_bytes(int64_t rows, int64_t cols, int P) {
  return parray_rd_plan_bytes(parray_rd_plan_cols(rows, cols, P), cols);
}

#endif
