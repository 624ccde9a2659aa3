/* SPDX-License-Identifier: Apache-2.0 */
/* emit_reduce.h - the pieces of a detour's reductions and scans that the
 * emitters print (emit_reduce.c). */
#ifndef PAC_EMIT_REDUCE_H
#define PAC_EMIT_REDUCE_H

#include "emit.h"

/* a combined with b by r's operator, as C */
const char *emit_red_combine(emitter *e, const plan_reduce *r, const char *a, const char *b);

/* host threads: the capture struct's members, their values (after others
 * when !first), the body's private copies and, at its end, their stores;
 * the detour's code before (the partials arrays) and after the threads (the
 * fold in thread order) */
void emit_red_fields(emitter *e, const plan_detour *p, sbuf *h);
void emit_red_inits(emitter *e, const plan_detour *p, sbuf *call, bool first);
void emit_red_privates(emitter *e, const plan_detour *p, sbuf *h);
void emit_red_store(emitter *e, const plan_detour *p, sbuf *h, const char *site);
void emit_red_alloc(emitter *e, const plan_detour *p, const char *count, const char *site, sbuf *call);
void emit_red_fold(emitter *e, const plan_detour *p, const char *count, sbuf *call);

/* cuda: the kernel's extra parameters (after others when any), its private
 * copies and the block reductions at its end; the launch's scratch before
 * it, its extra arguments, and after it the second pass and the result */
void emit_red_kernel_params(emitter *e, const plan_detour *p, sbuf *h, bool any);
void emit_red_kernel_privates(emitter *e, const plan_detour *p, sbuf *h);
/* with scan variables, before the thread's position: the block's place in the order the blocks started */
void emit_red_kernel_start(emitter *e, const plan_detour *p, sbuf *h);
/* a folded kernel (plan_detour.fold): the loop over the blocks of the
 * detour's grid that this block stands for, around the position and body */
void emit_red_fold_open(emitter *e, const plan_detour *p, sbuf *h);
void emit_red_fold_close(emitter *e, const plan_detour *p, sbuf *h);
void emit_red_kernel_end(emitter *e, const plan_detour *p, sbuf *h);
void emit_red_launch_begin(emitter *e, const plan_detour *p, const char *grid, const char *site, sbuf *c);
void emit_red_launch_args(emitter *e, const plan_detour *p, sbuf *c, bool any);
void emit_red_launch_end(emitter *e, const plan_detour *p, const char *site, sbuf *c);

#endif
