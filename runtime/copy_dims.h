/* SPDX-License-Identifier: Apache-2.0 */
/* copy_dims.h - what the CPU copy engine and the shared normaliser
 * parray_copy_normalise (both in copy_cpu.c) do to a list of
 * copy dimensions: order them outermost first and merge the neighbours that
 * move together. The strides may be in elements or in bytes (the same unit
 * on both sides). Private to the runtime. */
#ifndef PARRAY_COPY_DIMS_H
#define PARRAY_COPY_DIMS_H

#include <stdint.h>

#include "parray/permute.h"

static inline int64_t parray__copy_iabs(int64_t v) { return v < 0 ? -v : v; }

/* Nonzero when x goes after y: outermost first means |dst stride| descending,
 * ties broken by |src stride| descending. */
static inline int parray__copy_dim_after(const parray_copy_dim *x, const parray_copy_dim *y) {
  const int64_t dx = parray__copy_iabs(x->dst_stride), dy = parray__copy_iabs(y->dst_stride);
  if (dx != dy) return dx < dy;
  return parray__copy_iabs(x->src_stride) < parray__copy_iabs(y->src_stride);
}

/* Orders d[0..m-1] outermost first (a stable insertion sort: m is at most
 * 17, and equal-stride inputs keep their given order), then merges each pair
 * of neighbours where the outer one's strides are the inner one's times its
 * extent on both sides. Returns the new rank; d[0..rank-1] enumerates the
 * same (dst offset, src offset) pairs as the input. */
static inline int parray__copy_dims_merge(parray_copy_dim *d, int m) {
  for (int i = 1; i < m; i++) {
    const parray_copy_dim t = d[i];
    int j = i;
    while (j > 0 && parray__copy_dim_after(&d[j - 1], &t)) {
      d[j] = d[j - 1];
      j--;
    }
    d[j] = t;
  }
  int k = 0;
  for (int i = 0; i < m; i++) {
    if (k > 0 && d[k - 1].dst_stride == d[i].dst_stride * d[i].n && d[k - 1].src_stride == d[i].src_stride * d[i].n) {
      d[k - 1].n *= d[i].n;
      d[k - 1].dst_stride = d[i].dst_stride;
      d[k - 1].src_stride = d[i].src_stride;
    } else {
      d[k++] = d[i];
    }
  }
  return k;
}

#endif
