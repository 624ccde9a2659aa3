/* SPDX-License-Identifier: Apache-2.0 */
/* parray/permute.h - permute/transpose of dense arrays and the device copy
 * engine behind #copy between two dmem layouts, plus the dimension
 * normaliser that the CPU and CUDA engines share.
 *
 * Semantics follow PyTorch: dst = src.permute(perm).contiguous(), i.e. dst
 * dimension i is src dimension perm[i]; src and dst are dense row-major.
 * Elements are moved as bytes (any elem_size from 1 to 16 for the CUDA
 * entry points, any size for the CPU ones), so the dtype does not matter.
 *
 * The CUDA functions take the stream as `struct CUstream_st *`, which is
 * exactly cudaStream_t, so this header needs no CUDA headers; pass a
 * cudaStream_t (or NULL / 0 for the legacy default stream). They are
 * asynchronous with respect to the host like any kernel launch; dst and src
 * are device pointers and dst must not overlap src or itself. See
 * docs/permute.md for the dispatch rules. */
#ifndef PARRAY_PERMUTE_H
#define PARRAY_PERMUTE_H

#include <stddef.h>
#include <stdint.h>

#include "parray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

struct CUstream_st; /* cudaStream_t is struct CUstream_st * */

/* Largest rank accepted by parray_permute_* (the copy engines take up to 16). */
#define PARRAY_PERMUTE_MAX_DIMS 8

/* One dimension of a copy after normalisation: extent and the two strides,
 * all in BYTES. */
typedef struct parray_copy_dim {
  int64_t n, dst_stride, src_stride;
} parray_copy_dim;

/* The shared normaliser (what both copy engines run first). Turns the
 * element-stride description of a copy (as parray_copy_strided_cpu takes it)
 * into byte strides with one extra innermost dimension of elem_size bytes
 * (dst and src stride 1), drops dimensions of extent 1, orders the rest by
 * |dst stride| descending (ties: |src stride| descending) and merges each pair
 * of neighbours that move together (outer stride == inner stride * inner
 * extent on both sides). The result enumerates exactly the same pairs of
 * (dst byte offset, src byte offset) as the input.
 * out must hold ndim + 1 entries. Every extent must be >= 1 (callers return
 * early on an empty copy). Returns the new rank (0 means: one byte), or -1
 * with the error text set when ndim is outside 0..16, elem_size is 0, an
 * extent is < 1 or a pointer is NULL. */
PARRAY_API int parray_copy_normalise(parray_copy_dim *out, const int64_t *shape, const int64_t *dst_stride,
                                     const int64_t *src_stride, int ndim, size_t elem_size);

/* Host permute: dst = src.permute(perm) made contiguous. ndim 0..8, perm a
 * permutation of 0..ndim-1, extents >= 0 (an empty array copies nothing).
 * Implemented on top of parray_copy_strided_cpu. */
PARRAY_API parray_status parray_permute_cpu(void *dst, const void *src, size_t elem_size, int ndim,
                                            const int64_t *src_shape, const int *perm);

/* Device permute: same contract as parray_permute_cpu on device pointers,
 * elem_size 1..16, enqueued on stream s. */
PARRAY_API parray_status parray_permute_cuda(void *dst, const void *src, size_t elem_size, int ndim,
                                             const int64_t *src_shape, const int *perm, struct CUstream_st *s);

/* Device copy engine: same contract as parray_copy_strided_cpu (core.h) on
 * device pointers (ndim 0..16, strides in elements, may be negative, src may
 * overlap itself, dst must not), elem_size 1..16, enqueued on stream s.
 * Dispatch after parray_copy_normalise: cudaMemcpyAsync when both sides are
 * one contiguous run, cudaMemcpy2DAsync for wide pitched rows, a tiled
 * shared-memory transpose when each side has a different contiguous
 * dimension, a vectorised gather kernel otherwise. */
PARRAY_API parray_status parray_copy_strided_cuda(void *dst, const int64_t *dst_stride, const void *src,
                                                  const int64_t *src_stride, const int64_t *shape, int ndim,
                                                  size_t elem_size, struct CUstream_st *s);

#ifdef __cplusplus
}
#endif
#endif
