/* SPDX-License-Identifier: Apache-2.0 */
/* target.h - facts about the hardware a thread array type runs on, used by
 * the lowering (target.c): how the dimension tree of a cuda thread array
 * maps onto a grid and a block (up to three children of a dimension map to
 * z, y, x; deeper trees are flattened and their digits recovered from the
 * linear index), the hardware's limits on it, and $tid$ in terms of
 * blockIdx and threadIdx. */
#ifndef PAC_TARGET_H
#define PAC_TARGET_H

#include "types.h"

/* The extents of the grid (g = 0) or the block (g = 1) of T, as z, y, x;
 * NULL where unused. */
void tgt_cuda_dims(const ptype *T, int g, ex *out[3]);
/* Validate a cuda thread array type: two top-level dimensions (the grid and
 * the block) within the hardware's limits; reports and returns false. */
bool tgt_cuda_check_type(diag *dg, const ptype *T, loc at);
/* $tid$ (p the root) or $tid_P$ (p a node of T's tree) inside a kernel of T. */
ex *tgt_cuda_tid(tyctx *ty, const ptype *T, dnode *p);
/* the same with the block's index read from `block` (a uint3) instead of blockIdx */
ex *tgt_cuda_tid_from(tyctx *ty, const ptype *T, dnode *p, const char *block);

#endif
