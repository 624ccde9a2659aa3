/* SPDX-License-Identifier: Apache-2.0 */
/* emit.c - what the emitters share: the table of a target, the site
 * arguments of the runtime's error calls and the profiler ranges of sites,
 * declarations from patterns, byte counts and the pieces of a #copy that
 * both targets print the same way. */
#include "emit.h"
#include "runtime_names.h"

#include <string.h>

/* The targets, registered here alone: the CUDA emitter prints kernels and
 * device memory, and the host emitter everything else. */
static const emit_ops target_c = {
  .target = "c",
  .caps = {0},
  .detour = emit_c_detour, .sync = emit_c_sync, .alloc = emit_c_alloc, .destroy = emit_c_destroy,
  .copy = emit_c_copy, .entry = emit_c_entry,
};
static const emit_ops target_cuda = {
  .target = "cuda",
  .caps = {.device_mem = true, .kernels = true, .tma = true, .dist_device = true, .stream_ordered = true,
           .ranges = true},
  .detour = emit_cuda_detour, .sync = emit_cuda_sync, .alloc = emit_cuda_alloc, .destroy = emit_cuda_destroy,
  .copy = emit_cuda_copy, .entry = emit_c_entry, .wait = emit_cuda_wait,
};

void emit_init(emitter *e, int target, bool ranges, printer *pr, srcfile *src, exctx *ex, arena *ar) {
  *e = (emitter){.ops = target == TARGET_CUDA ? &target_cuda : &target_c, .pr = pr, .src = src, .ex = ex, .ar = ar};
  e->ranges = ranges && e->ops->caps.ranges;
}

/* s as the text of a C string literal (quotes included) */
static const char *c_string(emitter *e, const char *s) {
  char b_buf[256];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  sb_putc(&b, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') sb_putc(&b, '\\');
    sb_putc(&b, *s == '\n' ? ' ' : *s);
  }
  sb_putc(&b, '"');
  char *r = arena_strdup(e->ar, b.s);
  sb_free(&b);
  return r;
}

char *emit_site(emitter *e, const plan_site *s) {
  return arena_printf(e->ar, "%s, %d, %s", pr_file_literal(e->pr, s->at), src_line(e->src, s->at), c_string(e, s->what));
}

char *emit_site_decl(emitter *e, const plan_site *s, const char *name) {
  return arena_printf(e->ar, "static const " RT_LOC " %s = {%s};", name, emit_site(e, s));
}

char *emit_guarded(emitter *e, const plan_site *s, const char *code) {
  if (!s->host) return arena_strdup(e->ar, code);
  return arena_printf(e->ar, "{ %s const " RT_LOC " *parray__site_prev = " RT_SITE_ENTER "(&parray__site); %s "
                      RT_SITE_RESTORE "(parray__site_prev); }", emit_site_decl(e, s, "parray__site"), code);
}

char *emit_ranged(emitter *e, const plan_site *s, const char *code, const char *declared) {
  if (!e->ranges || !s->host || !s->what) return arena_strdup(e->ar, code);
  /* the name as one literal: the file's (as errors name it), then ":LINE what" */
  const char *name = arena_printf(e->ar, "%s %s", pr_file_literal(e->pr, s->at),
                                  c_string(e, arena_printf(e->ar, ":%d %s", src_line(e->src, s->at), s->what)));
  const char *r = declared ? arena_printf(e->ar, GEN_RANGE "_%s", declared) : GEN_RANGE;
  const char *open = arena_printf(e->ar, "static " RT_RANGE " %s = {%s, 0, 0, 0}; " RT_RANGE_PUSH "(&%s);", r, name, r);
  const char *sep = strchr(code, '\n') ? "\n  " : " "; /* code of several lines: the range's own lines */
  if (declared) return arena_printf(e->ar, "%s%s%s%s" RT_RANGE_POP "(&%s);", open, sep, code, sep, r);
  return arena_printf(e->ar, "{ %s%s%s%s" RT_RANGE_POP "(&%s); }", open, sep, code, sep, r);
}

char *emit_copy(emitter *e, const plan_copy *p) {
  return emit_guarded(e, &p->site, emit_ranged(e, &p->site, e->ops->copy(e, p), NULL));
}

/* code as one line (each line break and the indent after it a space),
 * unless a line of it is a preprocessing directive */
static char *one_line(emitter *e, const char *code) {
  for (const char *q = strchr(code, '\n'); q; q = strchr(q + 1, '\n')) {
    const char *n = q + 1;
    while (*n == ' ' || *n == '\t') n++;
    if (*n == '#') return arena_strdup(e->ar, code);
  }
  char *r = arena_strdup(e->ar, code), *o = r;
  for (const char *q = code; *q;) {
    if (*q != '\n') {
      *o++ = *q++;
      continue;
    }
    for (q++; *q == ' ' || *q == '\t'; q++) {}
    *o++ = ' ';
  }
  *o = 0;
  return r;
}

/* A kernel launch is not guarded: its faults come back as CUDA errors,
 * which name the site. The code starting the threads is one line, the
 * detour's: a debugger asked to stop at a line of the body stops in the
 * body only (docs/debugging.md). */
char *emit_detour(emitter *e, const plan_detour *p) {
  char *code = emit_ranged(e, &p->site, e->ops->detour(e, p), NULL);
  if (p->typedefs_used) code = arena_printf(e->ar, "%s%s", p->typedefs_used, code);
  return one_line(e, p->kind == PK_CUDA ? code : emit_guarded(e, &p->site, code));
}

/* arrays of a kernel or of a block (smem, rmem) take no time of their own */
char *emit_alloc(emitter *e, const plan_alloc *p) {
  char *code = e->ops->alloc(e, p);
  return p->kind == AL_ARRAY ? code : emit_ranged(e, &p->site, code, p->declare ? p->target : NULL);
}

char *emit_destroy(emitter *e, const plan_destroy *p) {
  char *code = e->ops->destroy(e, p);
  return p->kind == AL_ARRAY ? code : emit_ranged(e, &p->site, code, NULL);
}

/* a wait only for detours not waited for yet is, most often, no work: no range */
char *emit_wait(emitter *e, const plan_site *s, bool pending_only) {
  char *code = e->ops->wait(e, s, pending_only);
  return pending_only ? code : emit_ranged(e, s, code, NULL);
}

char *emit_decl(emitter *e, plan_decl d, const char *name) { return arena_printf(e->ar, "%s%s%s", d.pre, name, d.post); }

const char *emit_memkind(int mem) {
  static const char *const e[] = {RT_PAGED, RT_PINNED, RT_DMEM, RT_SMEM, RT_RMEM};
  return mem >= 0 && mem <= MK_RMEM ? e[mem] : RT_PAGED;
}

/* The outlined host function reaches its captures through parray__ctx (the
 * capture struct), and a distributed array through parray__l_FIELD (this
 * process's block); a kernel receives its captures as parameters. */
const char *emit_capture_ref(emitter *e, plan_kind k, cap_mode m, const char *field) {
  switch (m) {
  case CAP_PTR: return arena_printf(e->ar, "(*parray__ctx->%s)", field);
  case CAP_DECAY: return arena_printf(e->ar, "parray__ctx->%s", field);
  case CAP_VALUE: return k == PK_CUDA ? field : arena_printf(e->ar, "parray__ctx->%s", field);
  case CAP_HANDLE: return arena_printf(e->ar, GEN_LOCAL "%s", field);
  case CAP_ERROR: return field;
  }
  return field;
}

/* The thread's position as locals a debugger prints (docs/debugging.md),
 * on the current line: unused, so an optimizing compiler drops them. */
void emit_position(emitter *e, const plan_detour *p, sbuf *h) {
  for (int k = -1; k < p->npos; k++) {
    const ex *x = k < 0 ? p->tid : p->pos[k];
    if (!x) continue;
    const char *name = k < 0 ? PLAN_THREAD_INDEX : arena_printf(e->ar, PLAN_THREAD_INDEX "_%d", k);
    bool wide = ex_needs_wide(x);
    const char *t = wide ? RT_INT64_T : "int";
    sb_printf(h, "const %s %s = (%s)(%s); (void)%s; ", t, name, t, ex_str(e->ex, x, wide), name);
  }
}

char *emit_ex(emitter *e, const ex *x) { return ex_str(e->ex, x, ex_needs_wide(x)); }

char *emit_bytes(emitter *e, const plan_bytes *b, const plan_site *s) {
  int64_t v;
  if (!b->checked) {
    if (ex_is_const(b->elems, &v))
      return arena_printf(e->ar, "(" RT_SIZE_T ")%lld * sizeof(%s)", (long long)v, b->elem);
    return arena_printf(e->ar, "(" RT_SIZE_T ")(%s) * sizeof(%s)", emit_ex(e, b->elems), b->elem);
  }
  char b_buf[512];
  sbuf t;
  sb_init_in(&t, b_buf, sizeof b_buf);
  sb_puts(&t, b->ndims ? RT_BYTES_DIMS_AT "(" : RT_BYTES_AT "(");
  ex_print_calls(&t, b->elems, RT_CK_PREFIX);
  sb_printf(&t, ", sizeof(%s), %s", b->elem, emit_site(e, s));
  if (b->ndims) sb_printf(&t, ", \"%s\", %d", b->dim_names, b->ndims);
  for (int k = 0; k < b->ndims; k++) {
    sb_puts(&t, ", (" RT_INT64_T ")");
    ex_print_calls(&t, b->dims[k], RT_CK_PREFIX);
  }
  sb_putc(&t, ')');
  char *r = arena_strdup(e->ar, t.s);
  sb_free(&t);
  return r;
}

void emit_int64_array(emitter *e, sbuf *b, const char *name, ex **v, int n) {
  sb_printf(b, "%s[] = {", name);
  for (int m = 0; m < n; m++) sb_printf(b, "%s%s", m ? ", " : "", emit_ex(e, v[m]));
  sb_puts(b, "}");
}

void emit_copy_check(emitter *e, sbuf *b, const plan_copy *p, const char *site) {
  for (int k = 0; k < p->nfit; k++) {
    const char *need = emit_ex(e, p->fit[k].need), *have = emit_ex(e, p->fit[k].have);
    sb_printf(b, "if ((long long)(%s) > (long long)(%s)) " RT_FATAL_AT "(%s, %s, (long long)(%s), (long long)(%s));\n",
              need, have, site, c_string(e, p->fit[k].msg), need, have);
  }
  if (!p->check_src) return;
  const char *s = emit_ex(e, p->check_src), *d = emit_ex(e, p->check_dst);
  if (p->check_in_kernel) {
    sb_printf(b, "if ((long long)(%s) != (long long)(%s)) { printf(\"%%s:%%d: %%s: #copy size mismatch: %%lld vs "
              "%%lld elements\\n\", %s, (long long)(%s), (long long)(%s)); __trap(); }\n", s, d, site, s, d);
    return;
  }
  sb_printf(b, "if ((long long)(%s) != (long long)(%s)) " RT_FATAL_AT "(%s, \"#copy size mismatch: %%lld vs %%lld "
            "elements\", (long long)(%s), (long long)(%s));\n", s, d, site, s, d);
}

/* x, in parentheses unless it is one name or number */
static const char *paren(emitter *e, const char *x) {
  for (const char *c = x; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
      return arena_printf(e->ar, "(%s)", x);
  return x;
}

void emit_bound_test(emitter *e, sbuf *b, const plan_copy *p, const char *last_plus) {
  for (int k = 0; k < p->nbound; k++) {
    bool last = k == p->nbound - 1 && last_plus;
    sb_printf(b, "%s%s%s%s < %s", k ? " && " : "", paren(e, ex_str(e->ex, p->bound_digit[k], false)),
              last ? " + " : "", last ? last_plus : "", paren(e, p->bound[k]));
  }
}

/* one element of a per-thread copy, inside the bounds when there are any */
static void copy_element(emitter *e, sbuf *b, const plan_copy *p) {
  if (p->nbound) {
    sb_puts(b, "if (");
    emit_bound_test(e, b, p, NULL);
    sb_puts(b, ") ");
  }
  sb_printf(b, "(%s)[%s] = (%s)[%s];", p->dst.ptr, ex_str(e->ex, p->dst.off, false), p->src.ptr,
            ex_str(e->ex, p->src.off, false));
}

void emit_copy_loop(emitter *e, sbuf *b, const plan_copy *p) {
  bool wide = ex_needs_wide(p->src.off) || ex_needs_wide(p->dst.off) || ex_needs_wide(p->count);
  sb_printf(b, "%sfor (%s " PLAN_LOOP_INDEX " = 0; " PLAN_LOOP_INDEX " < %s; " PLAN_LOOP_INDEX "++) ",
            p->unroll ? "_Pragma(\"unroll\") " : "", wide ? "long long" : "int", ex_str(e->ex, p->count, wide));
  copy_element(e, b, p);
}

void emit_mode_loops(emitter *e, sbuf *b, const plan_copy *p, int64_t inner_step, const char *indent) {
  bool wide = ex_needs_wide(p->src.off) || ex_needs_wide(p->dst.off);
  for (int m = 0; m < p->nmodes; m++) {
    int64_t n;
    const char *ty = wide || ex_needs_wide(p->shape[m]) ? "long long" : "int";
    sb_printf(b, "%s%*s%sfor (%s " PLAN_MODE_INDEX "%d = 0; " PLAN_MODE_INDEX "%d < %s; " PLAN_MODE_INDEX "%d", indent,
              2 * m, "", ex_is_const(p->shape[m], &n) ? "_Pragma(\"unroll\") " : "", ty, m, m,
              ex_str(e->ex, p->shape[m], wide), m);
    if (m == p->nmodes - 1 && inner_step > 1) sb_printf(b, " += %lld)\n", (long long)inner_step);
    else sb_puts(b, "++)\n");
  }
  sb_printf(b, "%s%*s", indent, 2 * p->nmodes, "");
}

void emit_copy_modes(emitter *e, sbuf *b, const plan_copy *p, const char *indent) {
  emit_mode_loops(e, b, p, 1, indent);
  copy_element(e, b, p);
}

const char *emit_copy_count(emitter *e, const plan_copy *p) {
  int64_t n;
  if (ex_is_const(p->count, &n)) return arena_printf(e->ar, "(" RT_SIZE_T ")%lld", (long long)n);
  return arena_printf(e->ar, "(" RT_SIZE_T ")(%s)", emit_ex(e, p->count));
}
