/* SPDX-License-Identifier: Apache-2.0 */
/* lower_mem.h - the planner of #create and #destroy (lower_mem.c). */
#ifndef PAC_LOWER_MEM_H
#define PAC_LOWER_MEM_H

#include "lower.h"

/* lower_mem.c */
void lw_create(lw *w, item *it, lw_record *out);
/* Before a cuda body is walked: when its #creates of smem arrays (of known
 * footprint and element size) need more than the 48 KB a kernel may declare
 * statically, each gets a 128-byte aligned slot of the kernel's dynamic
 * shared memory (region dsmem, dsmem_bytes) */
void lw_smem_prescan(lw *w, item *body, region *r);
void lw_destroy(lw *w, item *it, lw_record *out);
/* the variables #destroy has released along the straight-line code of one
 * list of items (a block), so that a second #destroy of one is reported */
typedef struct lw_dtrack {
  struct lw_destroyed {
    const char *name;
    size_t len;
    loc at; /* the #destroy */
  } v[16];
  int n;
} lw_dtrack;
/* called for each item of the list before it is walked; true: the item is a
 * second #destroy, reported, not to be lowered */
bool lw_destroy_twice(lw *w, lw_dtrack *t, item *it, item *prev);

#endif
