/* kern_plan.h - launch plans of the multi-block reductions, in C so that the
 * CPU library (workspace sizes) and the CUDA kernels share one definition.
 * Internal to the runtime. */
#ifndef PARRAY_KERN_PLAN_H
#define PARRAY_KERN_PLAN_H

#include <stdint.h>

#define PARRAY_RD_THREADS 256
#define PARRAY_RD_ALL_CHUNK ((int64_t)16384) /* elements per whole-array chunk */
#define PARRAY_RD_COL_THREADS 512            /* threads of a column block */
#define PARRAY_RD_COL_BLOCKS 256             /* about this many column blocks */

/* Chunks of the whole-array reduction of m elements. */
static inline int64_t parray_rd_all_chunks(int64_t m) {
  return m <= PARRAY_RD_ALL_CHUNK ? 1 : (m + PARRAY_RD_ALL_CHUNK - 1) / PARRAY_RD_ALL_CHUNK;
}

/* Column-reduction plan: TX threads across column packs of P elements, TY
 * down the rows, gx column tiles, gy row splits of rs rows each. Depends only
 * on the shape and P, so results are reproducible. */
typedef struct parray_rd_col_plan {
  int P, TX, TY;
  int64_t gx, gy, rs;
} parray_rd_col_plan;

static inline parray_rd_col_plan parray_rd_plan_cols(int64_t rows, int64_t cols, int P) {
  parray_rd_col_plan p;
  const int64_t npk = (cols + P - 1) / P;
  int tx = 1;
  while (tx < 32 && tx < npk) tx <<= 1;
  p.P = P;
  p.TX = tx;
  p.TY = PARRAY_RD_COL_THREADS / tx;
  p.gx = npk < 1 ? 1 : (npk + tx - 1) / tx;
  int64_t target = PARRAY_RD_COL_BLOCKS / p.gx;
  if (target < 1) target = 1;
  int64_t rs = (rows + target - 1) / target;
  const int64_t min_rs = (int64_t)p.TY * 4; /* at least 4 rows per thread */
  if (rs < min_rs) rs = min_rs;
  rs = (rs + p.TY - 1) / p.TY * p.TY;
  p.rs = rs;
  p.gy = rows <= 0 ? 1 : (rows + rs - 1) / rs;
  return p;
}

/* Workspace bytes for a column reduction with pack width P. */
static inline uint64_t parray_rd_cols_bytes(int64_t rows, int64_t cols, int P) {
  parray_rd_col_plan p = parray_rd_plan_cols(rows, cols, P);
  uint64_t b = ((uint64_t)p.gx * 4 + 255) / 256 * 256;
  if (p.gy > 1) b += (uint64_t)p.gy * (uint64_t)cols * 8;
  return b;
}

#endif
