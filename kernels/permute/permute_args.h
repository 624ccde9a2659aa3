/* SPDX-License-Identifier: Apache-2.0 */
/* permute_args.h - what parray_permute_cpu (permute_cpu.c) and
 * parray_permute_cuda (copy_strided.cu) share: the argument rules and
 * the description of a permute as a strided copy, which each then hands to
 * its own copy engine. Private to kernels/permute; included by C and CUDA host
 * sources alike. */
#ifndef PARRAY_PERMUTE_ARGS_H
#define PARRAY_PERMUTE_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "parray/core.h"
#include "parray/permute.h"

/* PARRAY_OK, or PARRAY_ERR_INVALID with the error text prefixed by fn: ndim
 * within 0..PARRAY_PERMUTE_MAX_DIMS, elem_size within 1..max_elem (max_elem 0:
 * no upper bound), src_shape and perm not NULL when ndim > 0, perm a
 * permutation of 0..ndim-1 and every extent >= 0. The pointers to the data
 * are the caller's to check (an empty permute may pass NULL). */
static inline parray_status parray__permute_check(const char *fn, size_t max_elem, int ndim, size_t elem_size,
                                                  const int64_t *src_shape, const int *perm) {
  if (ndim < 0 || ndim > PARRAY_PERMUTE_MAX_DIMS || elem_size == 0 || (max_elem && elem_size > max_elem) ||
      (ndim > 0 && (!src_shape || !perm))) {
    if (max_elem)
      parray_set_error("%s: bad rank %d, element size %zu (1..%zu) or null shape/perm", fn, ndim, elem_size, max_elem);
    else
      parray_set_error("%s: bad rank %d, element size %zu or null shape/perm", fn, ndim, elem_size);
    return PARRAY_ERR_INVALID;
  }
  int seen[PARRAY_PERMUTE_MAX_DIMS] = {0};
  for (int i = 0; i < ndim; i++) {
    if (perm[i] < 0 || perm[i] >= ndim || seen[perm[i]]++) {
      parray_set_error("%s: perm is not a permutation of 0..%d", fn, ndim - 1);
      return PARRAY_ERR_INVALID;
    }
    if (src_shape[i] < 0) {
      parray_set_error("%s: negative extent %lld", fn, (long long)src_shape[i]);
      return PARRAY_ERR_INVALID;
    }
  }
  return PARRAY_OK;
}

/* The permute (checked by parray__permute_check) as a strided copy over the
 * dst index space, strides in elements: dst dimension i has extent
 * shape[i] = src_shape[perm[i]] and dst_stride[i] = the product of the later
 * dst extents (dst is dense), and src_stride[i] = the stride of src dimension
 * perm[i] in the dense src. Each output array holds ndim entries. */
static inline void parray__permute_as_copy(int ndim, const int64_t *src_shape, const int *perm, int64_t *shape,
                                           int64_t *dst_stride, int64_t *src_stride) {
  int64_t dense[PARRAY_PERMUTE_MAX_DIMS]; /* strides of the dense src */
  int64_t acc = 1;
  for (int i = ndim - 1; i >= 0; i--) {
    dense[i] = acc;
    acc *= src_shape[i];
  }
  acc = 1;
  for (int i = ndim - 1; i >= 0; i--) {
    shape[i] = src_shape[perm[i]];
    dst_stride[i] = acc;
    src_stride[i] = dense[perm[i]];
    acc *= shape[i];
  }
}

#endif
