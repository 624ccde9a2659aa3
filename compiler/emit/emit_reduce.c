/* SPDX-License-Identifier: Apache-2.0 */
/* emit_reduce.c - the reductions and scans of a detour (plan_reduce,
 * plan_scan), for both emitters. Host threads (pthd, mpi): each body
 * declares its private copy under the variable's name, starting from the
 * capture struct's initial value, and at its end stores it in slot $tid$ of
 * a partials array that the detour's code allocates (mpi: gathers it to
 * process 0's array); after the threads, that code folds the slots into the
 * variable in thread order. cuda: each block reduces its threads' copies in
 * a fixed tree (parray/reduce.cuh), one partial per block, passes of a fixed
 * shape fold the partials, and the host adds the result to the variable:
 * the same grid gives the same bits on every run (docs/threads.md). A
 * #scan: pthd threads meet and the first folds the slots into prefixes;
 * mpi processes exchange their copies and each folds those before it; a
 * kernel's blocks look back at the blocks before them, and the last
 * leaves the total in pinned host memory. */
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

/* the names of a variable's partials array (or scan states), its copies'
 * initial value, and (scans) the variable's value */
static const char *partials(emitter *e, const plan_reduce *r) { return arena_printf(e->ar, GEN_RED_PARTS "%s", r->name); }
static const char *initial(emitter *e, const plan_reduce *r) { return arena_printf(e->ar, GEN_RED_INIT "%s", r->name); }
static const char *start(emitter *e, const plan_reduce *r) { return arena_printf(e->ar, GEN_RED_START "%s", r->name); }
static const char *total(emitter *e, const plan_reduce *r) { return arena_printf(e->ar, GEN_RED_TOTAL "%s", r->name); }

/* the type the copies accumulate in, as a declaration of name */
static const char *acc_decl(emitter *e, const plan_reduce *r, const char *name) {
  if (r->acc) return arena_printf(e->ar, "%s %s", r->acc, name);
  return emit_decl(e, r->decl, name);
}
static const char *acc_type(emitter *e, const plan_reduce *r) { return r->acc ? r->acc : emit_decl(e, r->decl, ""); }

/* whether some variable is a scan's (scan) or a reduction's (!scan) */
static bool any_of(const plan_detour *p, bool scan) {
  for (int i = 0; i < p->nreds; i++)
    if (!p->reds[i].scan == !scan) return true;
  return false;
}
static bool any_scan(const plan_detour *p) { return any_of(p, true); }

void emit_red_fields(emitter *e, const plan_detour *p, sbuf *h) {
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    sb_printf(h, "  %s;\n  %s;\n", emit_decl(e, r->decl, arena_printf(e->ar, "*%s", partials(e, r))),
              emit_decl(e, r->decl, initial(e, r)));
    if (r->scan) sb_printf(h, "  %s;\n", emit_decl(e, r->decl, start(e, r)));
  }
}

void emit_red_inits(emitter *e, const plan_detour *p, sbuf *call, bool first) {
  for (int i = 0; i < p->nreds; i++, first = false) {
    sb_printf(call, "%s%s, %s", first ? "" : ", ", partials(e, &p->reds[i]), p->reds[i].init);
    if (p->reds[i].scan) sb_printf(call, ", %s", p->reds[i].var);
  }
}

void emit_red_privates(emitter *e, const plan_detour *p, sbuf *h) {
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    sb_printf(h, "%s = parray__ctx->%s; ", emit_decl(e, r->decl, r->name), initial(e, r));
  }
}

void emit_red_store(emitter *e, const plan_detour *p, sbuf *h, const char *site) {
  if (!any_of(p, false)) return;
  sb_puts(h, "\n  goto " PLAN_REDUCE_END "; " PLAN_REDUCE_END ":;");
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    if (r->scan) continue; /* its #scan stored it */
    if (p->kind == PK_PTHD)
      sb_printf(h, " parray__ctx->%s[" PLAN_THREAD_INDEX "] = %s;", partials(e, r), r->name);
    else
      sb_printf(h, " if (" RT_MPI_REDUCE_GATHER "(&%s, sizeof %s, parray__ctx->%s) != " RT_OK ") " RT_FATAL_AT
                "(%s, \"%%s\", " RT_LAST_ERROR "());", r->name, r->name, partials(e, r), site);
  }
}

/* the slots of a variable: one per thread (pthd scans: one more, the total) */
static const char *slots(emitter *e, const plan_detour *p, const plan_reduce *r, const char *count) {
  return r->scan && p->kind == PK_PTHD ? arena_printf(e->ar, "((%s) + 1)", count) : count;
}

void emit_red_alloc(emitter *e, const plan_detour *p, const char *count, const char *site, sbuf *call) {
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    const char *t = emit_decl(e, r->decl, "");
    sb_printf(call, "%s = (%s *)" RT_CREATE_HOST "(" RT_PAGED ", (" RT_SIZE_T ")%s * sizeof(%s), %s);\n  ",
              emit_decl(e, r->decl, arena_printf(e->ar, "*%s", partials(e, r))), t, slots(e, p, r, count), t, site);
  }
}

void emit_red_fold(emitter *e, const plan_detour *p, const char *count, sbuf *call) {
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    const char *t = emit_decl(e, r->decl, ""), *slot = arena_printf(e->ar, "%s[parray__k]", partials(e, r));
    if (r->scan) /* the total its #scan left: pthd in the last slot, mpi (process 0's) in the first */
      sb_printf(call, "\n  %s = %s[%s];", r->var, partials(e, r), p->kind == PK_PTHD ? count : "0");
    else
      sb_printf(call, "\n  for (" RT_INT64_T " parray__k = 0; parray__k < (%s); parray__k++) %s = %s;", count, r->var,
                emit_red_combine(e, r, r->var, slot));
    sb_printf(call, "\n  " RT_DESTROY_HOST "(" RT_PAGED ", %s, (" RT_SIZE_T ")%s * sizeof(%s));", partials(e, r),
              slots(e, p, r, count), t);
  }
}

/* ---- #scan ----------------------------------------------------------------------- */

/* pthd: every thread stores its copy; thread 0 turns the slots into
 * prefixes in thread order (and the last slot into the total); every
 * thread takes its own */
static void scan_pthd(emitter *e, const plan_scan *p, sbuf *b) {
  for (int i = 0; i < p->nvars; i++)
    sb_printf(b, "parray__ctx->%s[" PLAN_THREAD_INDEX "] = %s; ", partials(e, &p->vars[i]), p->vars[i].name);
  sb_puts(b, RT_TEAM_SYNC "(parray__team); if (" PLAN_THREAD_INDEX " == 0) { const " RT_INT64_T " parray__n = "
          RT_TEAM_SIZE "(parray__team);");
  for (int i = 0; i < p->nvars; i++) {
    const plan_reduce *r = &p->vars[i];
    const char *t = emit_decl(e, r->decl, ""), *s = arena_printf(e->ar, "parray__ctx->%s", partials(e, r));
    sb_printf(b, " { %s parray__a = parray__ctx->%s; for (" RT_INT64_T " parray__k = 0; parray__k < parray__n; "
              "parray__k++) { %s parray__c = %s[parray__k]; ", t, start(e, r), t, s);
    if (r->scan == 1) sb_printf(b, "parray__a = %s; %s[parray__k] = parray__a; }", emit_red_combine(e, r, "parray__a", "parray__c"), s);
    else sb_printf(b, "%s[parray__k] = parray__a; parray__a = %s; }", s, emit_red_combine(e, r, "parray__a", "parray__c"));
    sb_printf(b, " %s[parray__n] = parray__a; }", s);
  }
  sb_puts(b, " } " RT_TEAM_SYNC "(parray__team);");
  for (int i = 0; i < p->nvars; i++)
    sb_printf(b, " %s = parray__ctx->%s[" PLAN_THREAD_INDEX "];", p->vars[i].name, partials(e, &p->vars[i]));
}

/* mpi: every process gets every copy (in process order) and folds those
 * before its own; process 0 also the total, into its slot */
static void scan_mpi(emitter *e, const plan_scan *p, const char *site, sbuf *b) {
  for (int i = 0; i < p->nvars; i++) {
    const plan_reduce *r = &p->vars[i];
    const char *t = emit_decl(e, r->decl, "");
    sb_printf(b, "{ " RT_INT64_T " parray__n = 0; %s *parray__all = (%s *)" RT_MPI_SCAN_GATHER "(&%s, sizeof %s, "
              "&parray__n); if (!parray__all) " RT_FATAL_AT "(%s, \"%%s\", " RT_LAST_ERROR "()); %s parray__a = "
              "parray__ctx->%s; for (" RT_INT64_T " parray__k = 0; parray__k < " PLAN_THREAD_INDEX "; parray__k++) "
              "parray__a = %s; ", t, t, r->name, r->name, site, t, start(e, r),
              emit_red_combine(e, r, "parray__a", "parray__all[parray__k]"));
    sb_printf(b, "if (" PLAN_THREAD_INDEX " == 0) { %s parray__t = parray__a; for (" RT_INT64_T " parray__k = 0; "
              "parray__k < parray__n; parray__k++) parray__t = %s; parray__ctx->%s[0] = parray__t; } ", t,
              emit_red_combine(e, r, "parray__t", "parray__all[parray__k]"), partials(e, r));
    sb_printf(b, "%s = %s; " RT_MPI_SCAN_FREE "(parray__all); } ", r->name,
              r->scan == 1 ? emit_red_combine(e, r, "parray__a", "parray__all[" PLAN_THREAD_INDEX "]") : "parray__a");
  }
}

/* cuda: parray/reduce.cuh's look-back, per variable */
static const char *functor(emitter *e, const plan_reduce *r);

char *emit_red_scan(emitter *e, const plan_scan *p) {
  sbuf b;
  sb_init(&b);
  const char *site = emit_site(e, &p->site);
  if (p->kind == PK_PTHD) scan_pthd(e, p, &b);
  else if (p->kind == PK_MPI) scan_mpi(e, p, site, &b);
  else
    for (int i = 0; i < p->nvars; i++) {
      const plan_reduce *r = &p->vars[i];
      sb_printf(&b, "%s%s = " RT_SCAN_POINT "(%s, %s, %s, %s, " GEN_SCAN_TICKET ", %s, " GEN_SCAN_EPOCH ", %s);",
                i ? " " : "", r->name, functor(e, r), r->name, start(e, r), partials(e, r),
                r->scan == 2 ? "true" : "false", total(e, r));
    }
  char *out = arena_strdup(e->ar, b.s ? b.s : "");
  sb_free(&b);
  return out;
}
/* ---- cuda ---------------------------------------------------------------------- */

/* a scan variable's states in a kernel (parray_scan_state) */
static const char *state_type(emitter *e, const plan_reduce *r) {
  return arena_printf(e->ar, RT_SCAN_STATE "<%s>", acc_type(e, r));
}

void emit_red_kernel_params(emitter *e, const plan_detour *p, sbuf *h, bool any) {
  for (int i = 0; i < p->nreds; i++, any = true) {
    const plan_reduce *r = &p->reds[i];
    if (r->scan)
      sb_printf(h, "%s%s *%s, %s, %s, %s", any ? ", " : "", state_type(e, r), partials(e, r),
                acc_decl(e, r, initial(e, r)), acc_decl(e, r, start(e, r)),
                acc_decl(e, r, arena_printf(e->ar, "*%s", total(e, r))));
    else
      sb_printf(h, "%s%s, %s", any ? ", " : "", acc_decl(e, r, arena_printf(e->ar, "*%s", partials(e, r))),
                acc_decl(e, r, initial(e, r)));
  }
  if (any_scan(p)) sb_printf(h, "%sunsigned *" GEN_SCAN_TICKET "s, unsigned " GEN_SCAN_EPOCH, any ? ", " : "");
  if (p->fold) sb_printf(h, "%sconst dim3 " GEN_FOLD_GRID, any ? ", " : "");
}

void emit_red_fold_open(emitter *e, const plan_detour *p, sbuf *h) {
  (void)e, (void)p;
  /* unrolled, so that the loads of several blocks' parts are in flight at once */
  sb_puts(h, "\n#pragma unroll 4\n  for (unsigned long long " GEN_FOLD_INDEX " = blockIdx.x; " GEN_FOLD_INDEX
          " < (unsigned long long)" GEN_FOLD_GRID ".x * " GEN_FOLD_GRID ".y * " GEN_FOLD_GRID ".z; " GEN_FOLD_INDEX
          " += gridDim.x) {\n  const uint3 " PLAN_SCAN_BLOCK " = " RT_FOLD_BLOCK "(" GEN_FOLD_INDEX ", " GEN_FOLD_GRID "); ");
}

void emit_red_fold_close(emitter *e, const plan_detour *p, sbuf *h) {
  (void)e, (void)p;
  sb_puts(h, "\n  goto " PLAN_FOLD_NEXT "; " PLAN_FOLD_NEXT ":;\n  }");
}

/* whether the grid has one dimension */
static bool grid_1d(const plan_detour *p) { return (p->grid[0] != NULL) + (p->grid[1] != NULL) + (p->grid[2] != NULL) == 1; }

void emit_red_kernel_start(emitter *e, const plan_detour *p, sbuf *h) {
  (void)e;
  if (!any_scan(p)) return;
  if (grid_1d(p)) /* the blocks' index, in which the GPU starts them */
    sb_puts(h, "const unsigned " GEN_SCAN_TICKET " = blockIdx.x; (void)" GEN_SCAN_TICKET "s; const uint3 " PLAN_SCAN_BLOCK
            " = blockIdx; ");
  else /* the blocks' order of start, which the thread positions follow */
    sb_puts(h, "const unsigned " GEN_SCAN_TICKET " = " RT_SCAN_TICKET "(" GEN_SCAN_TICKET "s); const uint3 "
            PLAN_SCAN_BLOCK " = " RT_SCAN_BLOCK "(" GEN_SCAN_TICKET "); ");
}

void emit_red_kernel_privates(emitter *e, const plan_detour *p, sbuf *h) {
  for (int i = 0; i < p->nreds; i++) sb_printf(h, "%s = %s; ", acc_decl(e, &p->reds[i], p->reds[i].name),
                                               initial(e, &p->reds[i]));
}

/* the functor of r's operator (parray/reduce.cuh; a user's function through parray_red_fn) */
static const char *functor(emitter *e, const plan_reduce *r) {
  if (r->op == RED_FN) return arena_printf(e->ar, RT_RED_FN "<%s, %s>()", acc_type(e, r), r->fn);
  return arena_printf(e->ar, RT_RED_OP "%s()", op_name[r->op]);
}

void emit_red_kernel_end(emitter *e, const plan_detour *p, sbuf *h) {
  if (!any_of(p, false)) return;
  sb_puts(h, "\n  goto " PLAN_REDUCE_END "; " PLAN_REDUCE_END ":;");
  for (int i = 0; i < p->nreds; i++)
    if (!p->reds[i].scan)
      sb_printf(h, " %s(%s, %s, %s);", p->unordered ? RT_RED_UNORDERED : RT_RED_BLOCK, functor(e, &p->reds[i]),
                p->reds[i].name, partials(e, &p->reds[i]));
}

void emit_red_launch_args(emitter *e, const plan_detour *p, sbuf *c, bool any) {
  for (int i = 0; i < p->nreds; i++, any = true) {
    const plan_reduce *r = &p->reds[i];
    const char *t = acc_type(e, r);
    if (r->scan)
      sb_printf(c, "%s(%s *)(parray__rs + parray__ro%d), (%s)(%s), (%s)(%s), (%s *)(parray__rh + parray__ho%d)",
                any ? ", " : "", state_type(e, r), i, t, r->init, t, r->var, t, i);
    else
      sb_printf(c, "%s(%s *)(parray__rs + parray__ro%d), (%s)(%s)", any ? ", " : "", t, i, t, r->init);
  }
  if (any_scan(p)) sb_printf(c, "%s(unsigned *)parray__rs, " GEN_SCAN_EPOCH, any ? ", " : "");
  if (p->fold) sb_printf(c, "%s" GEN_FOLD_GRID, any ? ", " : "");
}

/* 'unordered': each result's starting value (its lock word zero) laid
 * out on the host and copied in once, or, beside scan states (zeroed on the
 * device), one copy per result */
static void red_launch_starts(emitter *e, const plan_detour *p, const char *site, sbuf *c) {
  const bool scans = any_scan(p);
  if (!scans) sb_printf(c, "char *parray__st = (char *)" RT_CUDA_REDUCE_STAGE "(parray__ro%d, %s);\n  ", p->nreds, site);
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    if (r->scan) continue;
    const char *init = acc_decl(e, r, arena_printf(e->ar, "parray__i = (%s)(%s)", acc_type(e, r), r->init));
    if (scans)
      sb_printf(c, "{ %s; " RT_CUDA_REDUCE_FILL "(parray__rs + parray__ro%d, &parray__i, sizeof parray__i, %s); }\n  ",
                init, i, site);
    else
      sb_printf(c, "{ %s; memcpy(parray__st + parray__ro%d, &parray__i, sizeof parray__i); }\n  ", init, i);
  }
  if (!scans) sb_printf(c, RT_CUDA_REDUCE_FILL "(parray__rs, parray__st, parray__ro%d, %s);\n  ", p->nreds, site);
}

/* with scans: the scratch ready for this launch's epoch (zeroed unless
 * its states are all of the word form and nothing else is there), and
 * the pinned room where the last block leaves each scan variable's total */
static void scan_scratch(emitter *e, const plan_detour *p, const char *site, sbuf *c) {
  sbuf words;
  sb_init(&words);
  if (!any_of(p, false)) /* scans only: their states are words when every value fits 4 bytes */
    for (int i = 0; i < p->nreds; i++) sb_printf(&words, "%ssizeof(%s) <= 4", i ? " && " : "", acc_type(e, &p->reds[i]));
  sb_printf(c, ";\n  unsigned " GEN_SCAN_EPOCH "; char *parray__rs = (char *)" RT_CUDA_SCAN_SCRATCH "(parray__ro%d, %s, &"
            GEN_SCAN_EPOCH ", %s);\n  " RT_SIZE_T " parray__ho0 = 0", p->nreds, words.s ? words.s : "0", site);
  sb_free(&words);
  for (int i = 1; i <= p->nreds; i++) {
    const plan_reduce *r = &p->reds[i - 1];
    if (r->scan) sb_printf(c, ", parray__ho%d = parray__ho%d + (sizeof(%s) + 15) / 16 * 16", i, i - 1, acc_type(e, r));
    else sb_printf(c, ", parray__ho%d = parray__ho%d", i, i - 1);
  }
  sb_printf(c, ";\n  char *parray__rh = (char *)" RT_CUDA_SCAN_TOTALS "(parray__ho%d, %s);\n  ", p->nreds, site);
}

/* the scratch: with scans a ticket counter first, then per variable its
 * blocks' partial results and room for the passes that fold them (with
 * 'unordered': one result, starting at the identity, and a lock word), or
 * its blocks' scan states; with scans zeroed before the launch */
void emit_red_launch_begin(emitter *e, const plan_detour *p, const char *grid, const char *site, sbuf *c) {
  if (!p->nreds) return;
  const bool scans = any_scan(p);
  sb_printf(c, "const dim3 parray__rg = %s; const " RT_SIZE_T " parray__nb = (" RT_SIZE_T ")parray__rg.x * "
            "parray__rg.y * parray__rg.z;\n  " RT_SIZE_T " parray__ro0 = %d", grid, scans ? 16 : 0);
  for (int i = 1; i <= p->nreds; i++) {
    const plan_reduce *r = &p->reds[i - 1];
    const char *t = acc_type(e, r);
    if (r->scan)
      sb_printf(c, ", parray__ro%d = parray__ro%d + (parray__nb * sizeof(%s) + 15) / 16 * 16", i, i - 1, state_type(e, r));
    else if (p->unordered)
      sb_printf(c, ", parray__ro%d = parray__ro%d + (sizeof(%s) + 15) / 16 * 16 + 16", i, i - 1, t);
    else
      sb_printf(c, ", parray__ro%d = parray__ro%d + (parray__nb * sizeof(%s) + 15) / 16 * 16 + ((parray__nb / 4096 + 1) "
                "* sizeof(%s) + 15) / 16 * 16", i, i - 1, t, t);
  }
  if (scans) {
    scan_scratch(e, p, site, c);
  } else {
    sb_printf(c, ";\n  char *parray__rs = (char *)" RT_CUDA_REDUCE_SCRATCH "(parray__ro%d, %s);\n  ", p->nreds, site);
    if (p->unordered) sb_puts(c, "(void)parray__nb; /* one result per variable, whatever the grid */\n  ");
  }
  if (p->unordered) red_launch_starts(e, p, site, c);
}

void emit_red_launch_end(emitter *e, const plan_detour *p, const char *site, sbuf *c) {
  if (any_scan(p)) sb_printf(c, "\n  " RT_CUDA_SCAN_WAIT "(%s);", site);
  for (int i = 0; i < p->nreds; i++) {
    const plan_reduce *r = &p->reds[i];
    const char *t = acc_type(e, r);
    if (r->scan) { /* the last block's inclusive value: the variable's value and every copy */
      sb_printf(c, "\n  { %s; memcpy(&parray__r, parray__rh + parray__ho%d, sizeof parray__r); %s = parray__r; }",
                acc_decl(e, r, "parray__r"), i, r->var);
      continue;
    }
    const char *from = p->unordered ? "parray__a"
                       : arena_printf(e->ar, RT_RED_FINISH "(%s, parray__a, parray__nb, parray__a + (parray__nb * "
                                      "sizeof(%s) + 15) / 16 * 16 / sizeof(%s), %s)", functor(e, r), t, t, site);
    sb_printf(c, "\n  { %s *parray__a = (%s *)(parray__rs + parray__ro%d); %s; " RT_CUDA_REDUCE_RESULT "(&parray__r, "
              "%s, sizeof parray__r, %s); %s = %s; }", t, t, i, acc_decl(e, r, "parray__r"), from, site, r->var,
              emit_red_combine(e, r, r->acc ? arena_printf(e->ar, "(%s)(%s)", r->acc, r->var) : r->var, "parray__r"));
  }
}
