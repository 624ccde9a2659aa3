/* emulated_copy.c - the device copy engine's entry point for the emulated
 * CUDA runtime (cuda_runtime_api.h here): the CPU copy engine, under the
 * device engine's contract (at most 16 modes, elements of 1 to 16 bytes),
 * so that the distributed copy's packing is checked without a GPU. */
#include "parray/permute.h"

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
