/* SPDX-License-Identifier: Apache-2.0 */
/* copy_indexed.cu - copies by a list of element offsets on the GPU: a
 * gather (dst[i] = src[idx[i]]) and a scatter (dst[idx[i]] = src[i]). They
 * pack and unpack the messages of a distributed #copy planned at run time
 * (runtime/mpi_copy_split.c through runtime/cuda/mpi_dev.c), whose element
 * order no strided plan describes. Elements move in units of the largest of
 * 16, 8, 4, 2, 1 bytes that divides the element size and keeps both
 * pointers aligned (a misaligned pointer falls back to narrower units); a
 * grid-stride loop over a grid of a few waves. Internal to the runtime. */
#include "parray/cuda.h"

#include <cstdint>

namespace {

constexpr int THREADS = 256;
constexpr int64_t MAX_BLOCKS = 8192;

struct alignas(16) unit16 {
  uint64_t a, b;
};

/* k units per element; t runs over the units of the n elements */
template <typename U, bool SCATTER>
__global__ void indexed_kernel(U *dst, const U *src, const int64_t *idx, int64_t n, int k) {
  const int64_t total = n * k;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = t / k, u = t - i * k;
    if (SCATTER) dst[idx[i] * k + u] = src[t];
    else dst[t] = src[idx[i] * k + u];
  }
}

template <bool SCATTER>
parray_status launch(void *dst, const void *src, const int64_t *idx, int64_t n, size_t es, cudaStream_t s) {
  if (n <= 0) return PARRAY_OK;
  if (!dst || !src || !idx || es == 0) {
    parray_set_error("%s by index: null pointer or element size 0", SCATTER ? "scatter" : "gather");
    return PARRAY_ERR_INVALID;
  }
  size_t unit = 16;
  while (unit > 1 && (es % unit || (uintptr_t)dst % unit || (uintptr_t)src % unit)) unit /= 2;
  const int k = (int)(es / unit);
  int64_t blocks = (n * k + THREADS - 1) / THREADS;
  if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
  const dim3 g((unsigned)blocks), b(THREADS);
  switch (unit) {
  case 16: indexed_kernel<unit16, SCATTER><<<g, b, 0, s>>>((unit16 *)dst, (const unit16 *)src, idx, n, k); break;
  case 8: indexed_kernel<uint64_t, SCATTER><<<g, b, 0, s>>>((uint64_t *)dst, (const uint64_t *)src, idx, n, k); break;
  case 4: indexed_kernel<uint32_t, SCATTER><<<g, b, 0, s>>>((uint32_t *)dst, (const uint32_t *)src, idx, n, k); break;
  case 2: indexed_kernel<uint16_t, SCATTER><<<g, b, 0, s>>>((uint16_t *)dst, (const uint16_t *)src, idx, n, k); break;
  default: indexed_kernel<uint8_t, SCATTER><<<g, b, 0, s>>>((uint8_t *)dst, (const uint8_t *)src, idx, n, k); break;
  }
  return parray_cuda_status(cudaGetLastError(), SCATTER ? "scatter by index: kernel launch"
                                                        : "gather by index: kernel launch");
}

} // namespace

extern "C" {

/* dst[i] = src[idx[i]] for i < n: elements of es bytes, idx (offsets in
 * elements) in device memory, on stream s */
PARRAY_API parray_status parray__copy_gather_cuda(void *dst, const void *src, const int64_t *idx, int64_t n,
                                                  size_t es, cudaStream_t s) {
  return launch<false>(dst, src, idx, n, es, s);
}

/* dst[idx[i]] = src[i] for i < n (the offsets all different) */
PARRAY_API parray_status parray__copy_scatter_cuda(void *dst, const int64_t *idx, const void *src, int64_t n,
                                                   size_t es, cudaStream_t s) {
  return launch<true>(dst, src, idx, n, es, s);
}

} // extern "C"
