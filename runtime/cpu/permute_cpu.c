/* SPDX-License-Identifier: Apache-2.0 */
/* permute_cpu.c - host side of the permute/transpose library: the dimension
 * normaliser shared by the CPU and CUDA copy engines (byte strides, size-1
 * dimensions dropped, dimensions that move together merged) and
 * parray_permute_cpu, which describes a permute as a strided copy and hands
 * it to parray_copy_strided_cpu (its argument rules and strides are
 * permute_args.h's, shared with the CUDA engine; the ordering and merging of
 * dimensions is copy_dims.h's, shared with the CPU copy engine). */
#include "parray/permute.h"

#include "../copy_dims.h"
#include "../permute_args.h"

#define NORM_MAXD 16

int parray_copy_normalise(parray_copy_dim *out, const int64_t *shape, const int64_t *dst_stride,
                          const int64_t *src_stride, int ndim, size_t elem_size) {
  if (!out || ndim < 0 || ndim > NORM_MAXD || elem_size == 0 || elem_size > (size_t)INT64_MAX ||
      (ndim > 0 && (!shape || !dst_stride || !src_stride))) {
    parray_set_error("parray_copy_normalise: bad rank %d, element size %zu or null pointer", ndim, elem_size);
    return -1;
  }
  const int64_t es = (int64_t)elem_size;
  int m = 0;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 1) {
      parray_set_error("parray_copy_normalise: extent %lld of dimension %d is not positive", (long long)shape[i], i);
      return -1;
    }
    if (shape[i] == 1) continue;
    out[m++] = (parray_copy_dim){shape[i], dst_stride[i] * es, src_stride[i] * es};
  }
  if (es > 1) out[m++] = (parray_copy_dim){es, 1, 1};
  return parray__copy_dims_merge(out, m);
}

parray_status parray_permute_cpu(void *dst, const void *src, size_t elem_size, int ndim, const int64_t *src_shape,
                                 const int *perm) {
  parray_status st = parray__permute_check("parray_permute_cpu", 0, ndim, elem_size, src_shape, perm);
  if (st != PARRAY_OK) return st;
  for (int i = 0; i < ndim; i++)
    if (src_shape[i] == 0) return PARRAY_OK;
  if (!dst || !src) {
    parray_set_error("parray_permute_cpu: null pointer");
    return PARRAY_ERR_INVALID;
  }
  int64_t shape[PARRAY_PERMUTE_MAX_DIMS], dstr[PARRAY_PERMUTE_MAX_DIMS], sstr[PARRAY_PERMUTE_MAX_DIMS];
  parray__permute_as_copy(ndim, src_shape, perm, shape, dstr, sstr);
  return parray_copy_strided_cpu(dst, dstr, src, sstr, shape, ndim, elem_size);
}
