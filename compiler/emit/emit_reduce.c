/* SPDX-License-Identifier: Apache-2.0 */
/* emit_reduce.c - the reductions of a detour (plan_reduce), for both
 * emitters. Host threads (pthd, mpi): each body declares its private copy
 * under the variable's name, starting from the capture struct's initial
 * value, and at its end stores it in slot $tid$ of a partials array that
 * the detour's code allocates (mpi: gathers it to process 0's array); after
 * the threads, that code folds the slots into the variable in thread
 * order. cuda: each block reduces its threads' copies in a fixed tree
 * (parray/reduce.cuh), one partial per block, a second kernel folds the
 * partials in a fixed order, and the host adds the result to the variable:
 * the same grid gives the same bits on every run (docs/threads.md). */
#include "emit.h"
#include "emit_reduce.h"
#include "runtime_names.h"

#include <string.h>

static const char *const op_name[] = {
  [RED_ADD] = "add", [RED_MUL] = "mul",   [RED_MIN] = "min",   [RED_MAX] = "max",  [RED_BAND] = "band",
  [RED_BOR] = "bor", [RED_BXOR] = "bxor", [RED_LAND] = "land", [RED_LOR] = "lor", [RED_FN] = "fn"};

const char *emit_red_combine(emitter *e, const plan_reduce *r, const char *a, const char *b) {
  static const char *const infix[] = {[RED_ADD] = "+", [RED_MUL] = "*", [RED_BAND] = "&", [RED_BOR] = "|",
                                      [RED_BXOR] = "^", [RED_LAND] = "&&", [RED_LOR] = "||"};
  switch (r->op) {
  case RED_MIN: return arena_printf(e->ar, "((%s) < (%s) ? (%s) : (%s))", b, a, b, a);
  case RED_MAX: return arena_printf(e->ar, "((%s) > (%s) ? (%s) : (%s))", b, a, b, a);
  case RED_FN: return arena_printf(e->ar, "%s(%s, %s)", r->fn, a, b);
  default: return arena_printf(e->ar, "(%s) %s (%s)", a, infix[r->op], b);
  }
}

/* the name of reduction i's partials array and initial value */
static const char *partials(emitter *e, const plan_reduce *r) { return arena_printf(e->ar, GEN_RED_PARTS "%s", r->name); }
static const char *initial(emitter *e, const plan_reduce *r) { return arena_printf(e->ar, GEN_RED_INIT "%s", r->name); }

/* the type the copies accumulate in, as a declaration of name */
static const char *acc_decl(emitter *e, const plan_reduce *r, const char *name) {
  if (r->acc) return arena_printf(e->ar, "%s %s", r->acc, name);
  return emit_decl(e, r->decl, name);
}

void emit_red_fields(emitter *e, const plan_detour *p, sbuf *h) {
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    sb_printf(h, "  %s;\n  %s;\n", emit_decl(e, r->decl, arena_printf(e->ar, "*%s", partials(e, r))),
              emit_decl(e, r->decl, initial(e, r)));
  }
}

void emit_red_inits(emitter *e, const plan_detour *p, sbuf *call, bool first) {
  for (int i = 0; i < p->nreds; i++, first = false)
    sb_printf(call, "%s%s, %s", first ? "" : ", ", partials(e, &p->reds[i]), p->reds[i].init);
}

void emit_red_privates(emitter *e, const plan_detour *p, sbuf *h) {
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    sb_printf(h, "%s = parray__ctx->%s; ", emit_decl(e, r->decl, r->name), initial(e, r));
  }
}

void emit_red_store(emitter *e, const plan_detour *p, sbuf *h, const char *site) {
  if (!p->nreds) return;
  sb_puts(h, "\n  goto " PLAN_REDUCE_END "; " PLAN_REDUCE_END ":;");
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    if (p->kind == PK_PTHD)
      sb_printf(h, " parray__ctx->%s[" PLAN_THREAD_INDEX "] = %s;", partials(e, r), r->name);
    else
      sb_printf(h, " if (" RT_MPI_REDUCE_GATHER "(&%s, sizeof %s, parray__ctx->%s) != " RT_OK ") " RT_FATAL_AT
                "(%s, \"%%s\", " RT_LAST_ERROR "());", r->name, r->name, partials(e, r), site);
  }
}

void emit_red_alloc(emitter *e, const plan_detour *p, const char *count, const char *site, sbuf *call) {
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    const char *t = emit_decl(e, r->decl, "");
    sb_printf(call, "%s = (%s *)" RT_CREATE_HOST "(" RT_PAGED ", (" RT_SIZE_T ")(%s) * sizeof(%s), %s);\n  ",
              emit_decl(e, r->decl, arena_printf(e->ar, "*%s", partials(e, r))), t, count, t, site);
  }
}

void emit_red_fold(emitter *e, const plan_detour *p, const char *count, sbuf *call) {
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    const char *t = emit_decl(e, r->decl, ""), *slot = arena_printf(e->ar, "%s[parray__k]", partials(e, r));
    sb_printf(call, "\n  for (" RT_INT64_T " parray__k = 0; parray__k < (%s); parray__k++) %s = %s;", count, r->var,
              emit_red_combine(e, r, r->var, slot));
    sb_printf(call, "\n  " RT_DESTROY_HOST "(" RT_PAGED ", %s, (" RT_SIZE_T ")(%s) * sizeof(%s));", partials(e, r),
              count, t);
  }
}

/* ---- cuda ---------------------------------------------------------------------- */

void emit_red_kernel_params(emitter *e, const plan_detour *p, sbuf *h, bool any) {
  for (int i = 0; i < p->nreds; i++, any = true) {
    const plan_reduce *r = &p->reds[i];
    sb_printf(h, "%s%s, %s", any ? ", " : "", acc_decl(e, r, arena_printf(e->ar, "*%s", partials(e, r))),
              acc_decl(e, r, initial(e, r)));
  }
}

void emit_red_kernel_privates(emitter *e, const plan_detour *p, sbuf *h) {
  for (int i = 0; i < p->nreds; i++) sb_printf(h, "%s = %s; ", acc_decl(e, &p->reds[i], p->reds[i].name),
                                               initial(e, &p->reds[i]));
}

/* the functor of r's operator (RED_FN: one hoisted for the kernel, once: with hoist) */
static const char *functor(emitter *e, const plan_detour *p, int i, bool hoist) {
  const plan_reduce *r = &p->reds[i];
  if (r->op != RED_FN) return arena_printf(e->ar, RT_RED_OP "%s()", op_name[r->op]);
  const char *st = arena_printf(e->ar, "%s_red%d", p->fname, i);
  if (hoist)
    pr_hoist(e->pr, arena_printf(e->ar, "struct %s { template <typename T> __device__ T operator()(T a, T b) const "
                               "{ return %s(a, b); } };\n", st, r->fn));
  return arena_printf(e->ar, "%s()", st);
}

void emit_red_kernel_end(emitter *e, const plan_detour *p, sbuf *h) {
  if (!p->nreds) return;
  sb_puts(h, "\n  goto " PLAN_REDUCE_END "; " PLAN_REDUCE_END ":;");
  for (int i = 0; i < p->nreds; i++)
    sb_printf(h, " " RT_RED_BLOCK "(%s, %s, %s);", functor(e, p, i, true), p->reds[i].name, partials(e, &p->reds[i]));
}

void emit_red_launch_args(emitter *e, const plan_detour *p, sbuf *c, bool any) {
  for (int i = 0; i < p->nreds; i++, any = true) {
    const plan_reduce *r = &p->reds[i];
    const char *t = r->acc ? r->acc : emit_decl(e, r->decl, "");
    sb_printf(c, "%s(%s *)(parray__rs + parray__ro%d), (%s)(%s)", any ? ", " : "", t, i, t, r->init);
  }
}

void emit_red_launch_begin(emitter *e, const plan_detour *p, const char *grid, const char *site, sbuf *c) {
  if (!p->nreds) return;
  sb_printf(c, "const dim3 parray__rg = %s; const " RT_SIZE_T " parray__nb = (" RT_SIZE_T ")parray__rg.x * "
            "parray__rg.y * parray__rg.z;\n  " RT_SIZE_T " parray__ro0 = 0", grid);
  for (int i = 1; i <= p->nreds; i++) {
    const plan_reduce *r = &p->reds[i - 1];
    const char *t = r->acc ? r->acc : emit_decl(e, r->decl, "");
    sb_printf(c, ", parray__ro%d = parray__ro%d + (parray__nb * sizeof(%s) + 15) / 16 * 16 + ((parray__nb / 4096 + 1) "
              "* sizeof(%s) + 15) / 16 * 16", i, i - 1, t, t);
  }
  sb_printf(c, ";\n  char *parray__rs = (char *)" RT_CUDA_REDUCE_SCRATCH "(parray__ro%d, %s);\n  ", p->nreds, site);
}

void emit_red_launch_end(emitter *e, const plan_detour *p, const char *site, sbuf *c) {
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    const char *t = r->acc ? r->acc : emit_decl(e, r->decl, "");
    sb_printf(c, "\n  { %s *parray__a = (%s *)(parray__rs + parray__ro%d); %s; " RT_CUDA_REDUCE_RESULT "(&parray__r, "
              RT_RED_FINISH "(%s, parray__a, parray__nb, parray__a + (parray__nb * sizeof(%s) + 15) / 16 * 16 / sizeof(%s), "
              "%s), sizeof parray__r, %s); %s = %s; }", t, t, i, acc_decl(e, r, "parray__r"), functor(e, p, i, false), t, t,
              site, site, r->var,
              emit_red_combine(e, r, r->acc ? arena_printf(e->ar, "(%s)(%s)", r->acc, r->var) : r->var, "parray__r"));
  }
}
