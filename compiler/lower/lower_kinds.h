/* SPDX-License-Identifier: Apache-2.0 */
/* lower_kinds.h - the memory kinds a variable may have along the paths of the walk, and the scopes that carry them (lower_kinds.c). */
#ifndef PAC_LOWER_KINDS_H
#define PAC_LOWER_KINDS_H

#include "lower.h"

/* lower_kinds.c. Scopes go through these (block serials, the joins at a
 * block's end). */
void lw_scope_push(lw *w);
void lw_scope_pop(lw *w);
/* the block of serial `block` at scope depth `depth` has not ended */
bool lw_block_live(const lw *w, int depth, int block);
/* a '{' block is entered after prev2 prev (a loop body starts from what it creates and forgets) */
void lw_kinds_block(lw *w, item *group, const item *prev, const item *prev2);
/* the items walked reached something other than an else-block: a pending
 * then-block joins the state before it */
void lw_kinds_settle(lw *w);
/* s is created as n here (at the directive at); its memory is forgotten
 * (destroyed, assigned; maybe: only possibly, as when its address is taken) */
void lw_kinds_create(lw *w, sym *s, dnode *n, loc at);
void lw_kinds_forget(lw *w, sym *s, bool maybe);
/* the kinds s may have here (1 << MK_*, LW_KIND_UNKNOWN) */
unsigned lw_kinds_of(lw *w, sym *s);
/* the #create that gave s the kind here (NULL: none), and where it is */
dnode *lw_kinds_node(lw *w, sym *s, int kind, loc *at);

#endif
