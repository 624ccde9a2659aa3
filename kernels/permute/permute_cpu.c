/* SPDX-License-Identifier: Apache-2.0 */
/* permute_cpu.c - host side of the permute/transpose library:
 * parray_permute_cpu, which describes a permute as a strided copy and hands
 * it to the runtime's CPU copy engine parray_copy_strided_cpu (its argument
 * rules and strides are permute_args.h's, shared with the CUDA side). */
#include "parray/permute.h"

#include "permute_args.h"

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
