/* emulated_copy.c - the device copy engine's entry point for the emulated
 * CUDA runtime (cuda_runtime_api.h here): the CPU copy engine, under the
 * device engine's contract (at most 16 modes, elements of 1 to 16 bytes),
 * so that the distributed copy's packing is checked without a GPU; the
 * direct path's copies between two GPUs; process 0's dmem arrays in the
 * emulated device memory; the wait for pending detours; the copies by a
 * list of offsets. */
#include "parray/cuda.h"
#include "parray/permute.h"

#include <string.h>

parray_status parray_copy_strided_cuda(void *dst, const int64_t *dst_stride, const void *src,
                                       const int64_t *src_stride, const int64_t *shape, int ndim, size_t elem_size,
                                       struct CUstream_st *s) {
  (void)s;
  if (ndim < 0 || ndim > 16 || elem_size == 0 || elem_size > 16) {
    parray_set_error("parray_copy_strided_cuda (emulated): bad rank %d or element size %zu (1..16)", ndim, elem_size);
    return PARRAY_ERR_INVALID;
  }
  return parray_copy_strided_cpu(dst, dst_stride, src, src_stride, shape, ndim, elem_size);
}

/* the copies of the direct path into or out of another GPU's block
 * (runtime/cuda/mpi_dev.c; with EMULATED_GPUS > 1): on the CPU copy engine
 * too, under copy_strided.cu's options (1: pitched rows to the copy
 * engines) */
parray_status parray__copy_strided_cuda_opts(void *dst, const int64_t *dst_stride, const void *src,
                                             const int64_t *src_stride, const int64_t *shape, int ndim,
                                             size_t elem_size, int opts, struct CUstream_st *s);
parray_status parray__copy_strided_cuda_opts(void *dst, const int64_t *dst_stride, const void *src,
                                             const int64_t *src_stride, const int64_t *shape, int ndim,
                                             size_t elem_size, int opts, struct CUstream_st *s) {
  if (opts & ~1) {
    parray_set_error("parray__copy_strided_cuda_opts (emulated): unknown options %d", opts);
    return PARRAY_ERR_INVALID;
  }
  return parray_copy_strided_cuda(dst, dst_stride, src, src_stride, shape, ndim, elem_size, s);
}

/* copies by a list of offsets (runtime/cuda/copy_indexed.cu), on the CPU;
 * the list is in emulated device memory like the GPU's */
parray_status parray__copy_gather_cuda(void *dst, const void *src, const int64_t *idx, int64_t n, size_t es,
                                       struct CUstream_st *s);
parray_status parray__copy_scatter_cuda(void *dst, const int64_t *idx, const void *src, int64_t n, size_t es,
                                        struct CUstream_st *s);
int emulated_cuda_device_range(const void *p, size_t bytes);
static parray_status indexed(char *dst, const char *src, const int64_t *idx, int64_t n, size_t es, int scatter) {
  if (n <= 0) return PARRAY_OK;
  if (!dst || !src || !idx || !es || !emulated_cuda_device_range(idx, (size_t)n * sizeof *idx)) {
    parray_set_error("copy by index (emulated): null pointer, element size 0 or offsets not in device memory");
    return PARRAY_ERR_INVALID;
  }
  for (int64_t i = 0; i < n; i++) {
    if (scatter) memcpy(dst + (size_t)idx[i] * es, src + (size_t)i * es, es);
    else memcpy(dst + (size_t)i * es, src + (size_t)idx[i] * es, es);
  }
  return PARRAY_OK;
}

parray_status parray__copy_gather_cuda(void *dst, const void *src, const int64_t *idx, int64_t n, size_t es,
                                       struct CUstream_st *s) {
  (void)s;
  return indexed(dst, src, idx, n, es, 0);
}

parray_status parray__copy_scatter_cuda(void *dst, const int64_t *idx, const void *src, int64_t n, size_t es,
                                        struct CUstream_st *s) {
  (void)s;
  return indexed(dst, src, idx, n, es, 1);
}

/* process 0's dmem arrays (#create, #destroy, #copy between two of its
 * arrays): host memory filled with a poison byte, like the blocks */
void *parray_cuda_create(parray_memkind kind, size_t bytes, const char *file, int line, const char *what) {
  (void)kind;
  void *p = NULL;
  if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) parray_fatal_at(file, line, what, "out of memory (emulated)");
  return p;
}

void parray_cuda_destroy(parray_memkind kind, void *p, const char *file, int line, const char *what) {
  (void)kind, (void)file, (void)line, (void)what;
  cudaFree(p);
}

void parray_cuda_memcpy(void *dst, const void *src, size_t bytes, const char *file, int line, const char *what) {
  (void)file, (void)line, (void)what;
  memcpy(dst, src, bytes);
}

void parray_cuda_copy(parray_memkind dkind, void *dst, const int64_t *dstride, parray_memkind skind, const void *src,
                      const int64_t *sstride, const int64_t *shape, int ndim, size_t elem_size, const char *file,
                      int line, const char *what) {
  (void)dkind, (void)skind;
  if (parray_copy_strided_cpu(dst, dstride, src, sstride, shape, ndim, elem_size) != PARRAY_OK)
    parray_fatal_at(file, line, what, "%s", parray_last_error());
}

/* the end of #mainhost, a pthd or mpi detour: no kernel runs on the
 * emulation, so nothing is ever waited for */
void parray_cuda_wait_pending(const char *file, int line, const char *what) {
  (void)file, (void)line, (void)what;
}
