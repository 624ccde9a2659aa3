/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_common.cu - shared host side of the GPU reductions: argument
 * checks (the CPU reductions' rules, reduce_args.h, plus alignment), the
 * occupancy cache that sizes persistent grids, and temporary
 * workspaces (stream-ordered allocation) for callers that pass none. */
#include <mutex>

#include "reduce_args.h"
#include "reduce_kernels.cuh"

namespace parray_rd {

namespace {
struct OccEntry {
  const void *fn;
  int dev, threads, smem, blocks;
};
std::mutex g_occ_mu;
OccEntry g_occ[256];
int g_nocc = 0;
} // namespace

int resident_blocks(const void *kernel, int threads, int smem_bytes) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return 1;
  }
  {
    std::lock_guard<std::mutex> lk(g_occ_mu);
    for (int i = 0; i < g_nocc; ++i)
      if (g_occ[i].fn == kernel && g_occ[i].dev == dev && g_occ[i].threads == threads &&
          g_occ[i].smem == smem_bytes) return g_occ[i].blocks;
  }
  int nb = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel, threads, smem_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    nb = 1;
  }
  if (nb < 1) nb = 1;
  std::lock_guard<std::mutex> lk(g_occ_mu);
  if (g_nocc < 256) g_occ[g_nocc++] = OccEntry{kernel, dev, threads, smem_bytes, nb};
  return nb;
}

parray_status temp_workspace(size_t bytes, void **work, cudaStream_t s) {
  cudaError_t e = cudaMallocAsync(work, bytes, s);
  if (e == cudaSuccess) e = cudaMemsetAsync(*work, 0, bytes, s);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return parray_cuda_status(e, "reduction workspace");
  }
  return PARRAY_OK;
}

parray_status free_workspace(void *work, cudaStream_t s) {
  cudaError_t e = cudaFreeAsync(work, s);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return parray_cuda_status(e, "reduction workspace");
  }
  return PARRAY_OK;
}

parray_status check_reduce(const char *what, parray_reduce_op op, parray_dtype ydt, parray_dtype xdt, const void *x,
                           const void *y, int64_t count, int64_t reduce_len) {
  const parray_status st = parray__reduce_check(what, op, ydt, xdt, x, y, count, reduce_len);
  if (st != PARRAY_OK) return st;
  if (x && (uintptr_t)x % parray_dtype_size(xdt)) {
    parray_set_error("%s: input not aligned to its element size", what);
    return PARRAY_ERR_INVALID;
  }
  return PARRAY_OK;
}

} // namespace parray_rd

