/* SPDX-License-Identifier: Apache-2.0 */
/* emit_c.c - the host emitter (target "c"): a pthd or mpi #detour becomes a
 * static function at file scope taking its captures through a struct, run
 * by parray_pthd_run or parray_mpi_detour; host #create/#destroy call the
 * host runtime, distributed ones the MPI runtime, rmem ones declare a local
 * array; #copy becomes memcpy, the strided copy engine, a loop, or
 * parray_mpi_copy; main() starts the runtime (docs/threads.md,
 * docs/mpi_runtime.md). */
#include "emit.h"
#include "emit_reduce.h"
#include "runtime_names.h"

#include "types.h"

#include <string.h>

/* ---- #detour ------------------------------------------------------------------ */

/* struct type holding the captures; NULL when there are none */
static const char *ctx_struct(emitter *e, const plan_detour *p, sbuf *h) {
  int n = p->nreds;
  for (int i = 0; i < p->ncaps; i++) n += p->caps[i].mode != CAP_ERROR;
  if (!n) return NULL;
  const char *st = arena_printf(e->ar, "struct %s_ctx", p->fname);
  sb_printf(h, "%s {\n", st);
  for (int i = 0; i < p->ncaps; i++) {
    const plan_capture *c = &p->caps[i];
    if (c->mode == CAP_HANDLE) sb_printf(h, "  int %s;\n", c->field);
    else if (c->mode != CAP_ERROR) sb_printf(h, "  %s;\n", emit_decl(e, c->decl, c->field));
  }
  emit_red_fields(e, p, h);
  sb_puts(h, "};\n");
  return st;
}

static void ctx_init(emitter *e, const plan_detour *p, const char *st, sbuf *call) {
  sb_printf(call, "%s parray__c = {", st);
  bool first = true;
  for (int i = 0; i < p->ncaps; i++) {
    const plan_capture *c = &p->caps[i];
    if (c->mode == CAP_ERROR) continue;
    sb_printf(call, "%s%s%s%s", first ? "" : ", ", c->mode == CAP_PTR ? "&" : "",
              c->mode == CAP_HANDLE ? GEN_HANDLE : "", c->init);
    first = false;
  }
  emit_red_inits(e, p, call, first);
  sb_puts(call, "};\n  ");
}

/* Each capture under its variable's own name, for a debugger
 * (docs/debugging.md): a pointer to what the body reads and writes (the
 * shared variable, an array's first element, the context's copy of a
 * value, this process's block). The body keeps its own references, so
 * this changes nothing it does; unused, an optimizing compiler drops them. */
static void named_captures(const plan_detour *p, sbuf *h) {
  for (int i = 0; i < p->ncaps; i++) {
    const char *f = p->caps[i].field;
    switch (p->caps[i].mode) {
    case CAP_PTR:
    case CAP_DECAY:
      sb_printf(h, "__typeof__(parray__ctx->%s) const %s = parray__ctx->%s;", f, f, f);
      break;
    case CAP_VALUE:
      sb_printf(h, "__typeof__(parray__ctx->%s) *const %s = &parray__ctx->%s;", f, f, f);
      break;
    case CAP_HANDLE:
      sb_printf(h, "%s *const %s = " GEN_LOCAL "%s;", p->caps[i].elem, f, f);
      break;
    case CAP_ERROR:
      continue;
    }
    sb_printf(h, " (void)%s; ", f);
  }
}

/* the outlined body: parray__ctx, parray__tid (and parray__team) as the body
 * uses them; the thread records the detour's site while the body runs. The
 * code before the body is one line, at the detour's line, so that a
 * debugger stopping at a line of the .pc stops in the body, where the
 * names it prints are set. */
static void host_function(emitter *e, const plan_detour *p, const char *st, const char *def, sbuf *h) {
  bool pthd = p->kind == PK_PTHD;
  const char *line = pr_line_text(e->pr, e->ar, p->site.at);
  sb_puts(h, line);
  if (pthd)
    sb_printf(h, "static void %s(void *parray__vctx, " RT_TEAM " *parray__team, " RT_INT64_T " parray__tid64) {",
              p->fname);
  else
    sb_printf(h, "static void %s(void *parray__vctx, " RT_INT64_T " parray__tid64) {", p->fname);
  if (p->local_types) /* the types, then the struct naming them */
    sb_printf(h, "\n  %s\n  %s%s", p->local_types, def, line);
  if (st) sb_printf(h, " %s *parray__ctx = (%s *)parray__vctx; ", st, st);
  else sb_puts(h, " (void)parray__vctx; ");
  const char *tid = p->wide ? RT_INT64_T : "int";
  sb_printf(h, "const %s " PLAN_THREAD_INDEX " = (%s)parray__tid64; (void)" PLAN_THREAD_INDEX ";%s ", tid, tid,
            pthd ? " (void)parray__team;" : "");
  /* this process's blocks of the distributed arrays the body uses */
  for (int i = 0; i < p->ncaps; i++)
    if (p->caps[i].mode == CAP_HANDLE) {
      const char *el = p->caps[i].elem, *f = p->caps[i].field;
      sb_printf(h, "%s *" GEN_LOCAL "%s = (%s *)%s(parray__ctx->%s); ", el, f, el,
                p->caps[i].device ? RT_MPI_DEV_LOCAL : RT_MPI_LOCAL, f);
    }
  emit_position(e, p, h);
  named_captures(p, h);
  emit_red_privates(e, p, h);
  sb_printf(h, "%s const " RT_LOC " *const parray__site_body = " RT_SITE_ENTER "(&parray__site);\n",
            emit_site_decl(e, &p->site, "parray__site"));
  sb_puts(h, p->body);
  emit_red_store(e, p, h, emit_site(e, &p->site));
  sb_puts(h, "\n  " RT_SITE_RESTORE "(parray__site_body);\n}\n");
}

char *emit_c_detour(emitter *e, const plan_detour *p) {
  if (p->kind == PK_CUDA) return arena_strdup(e->ar, "#error \"pac: a cuda detour needs the CUDA target\"");
  sbuf h, call, def;
  sb_init(&h);
  sb_init(&call);
  sb_init(&def);
  /* the capture struct at file scope, or, when it names the enclosing
   * function's types, where the detour starts and in the body */
  const char *st = ctx_struct(e, p, p->local_types ? &def : &h);
  host_function(e, p, st, def.s ? def.s : "", &h);
  pr_hoist(e->pr, h.s);
  const char *site = emit_site(e, &p->site), *count = ex_str(e->ex, p->count, p->wide);
  sb_puts(&call, "{ ");
  if (p->local_types && def.s) sb_printf(&call, "%s  ", def.s);
  emit_red_alloc(e, p, count, site, &call);
  if (st) ctx_init(e, p, st, &call);
  if (p->kind == PK_PTHD)
    sb_printf(&call, "if (" RT_PTHD_RUN "(%s, %s, %s) != " RT_OK ") " RT_FATAL_AT "(%s, \"%%s\", " RT_LAST_ERROR "());",
              count, p->fname, st ? "&parray__c" : "0", site);
  else
    sb_printf(&call, "if (" RT_MPI_DETOUR "(%d, %s, %s, %s) != " RT_OK ") " RT_FATAL_AT "(%s, \"%%s\", "
              RT_LAST_ERROR "());", p->mpi_body, st ? "&parray__c" : "0", st ? "sizeof parray__c" : "0", count,
              site);
  emit_red_fold(e, p, count, &call);
  sb_puts(&call, " }");
  char *r = arena_strdup(e->ar, call.s);
  sb_free(&h);
  sb_free(&call);
  sb_free(&def);
  return r;
}

char *emit_c_sync(emitter *e, plan_kind k, plan_sync s) {
  (void)s;
  return arena_strdup(e->ar, k == PK_PTHD ? RT_TEAM_SYNC "(parray__team);" : RT_MPI_SYNC "();");
}

/* ---- #create, #destroy ------------------------------------------------------ */

/* collective: each process gets its block; the variable points to process
 * 0's block and parray__h_<name> holds the handle */
char *emit_alloc_distributed(emitter *e, const plan_alloc *p, bool device) {
  const char *n = p->target, *site = emit_site(e, &p->site);
  const char *bytes = emit_bytes(e, &p->bytes, &p->site), *nprocs = emit_ex(e, p->nprocs);
  const char *create = device ? arena_printf(e->ar, RT_MPI_CREATE_DEV "(%d, %s, %s, %s)", p->service, bytes, nprocs,
                                             site)
                              : arena_printf(e->ar, RT_MPI_CREATE "(%s, %s)", bytes, nprocs);
  const char *local = device ? RT_MPI_DEV_LOCAL : RT_MPI_LOCAL;
  /* (void): host code that only passes the array to #copy and detours
   * (which take its handle) leaves the variable set but not used */
  if (p->declare)
    return arena_printf(e->ar, "int " GEN_HANDLE "%s = %s; if (" GEN_HANDLE "%s < 0) "
                        RT_FATAL_AT "(%s, \"%%s\", " RT_LAST_ERROR "()); %s *%s = (%s *)%s(" GEN_HANDLE "%s); "
                        "(void)%s;", n, create, n, site, p->elem, n, p->elem, local, n, n);
  if (p->file_handle) pr_hoist(e->pr, arena_printf(e->ar, "static int " GEN_HANDLE "%s = -1;\n", n));
  return arena_printf(e->ar, GEN_HANDLE "%s = %s; if (" GEN_HANDLE "%s < 0) "
                      RT_FATAL_AT "(%s, \"%%s\", " RT_LAST_ERROR "()); %s = (%s *)%s(" GEN_HANDLE "%s);",
                      n, create, n, site, n, p->elem, local, n);
}

char *emit_c_alloc(emitter *e, const plan_alloc *p) {
  if (p->kind == AL_DIST && p->mem == MK_DMEM)
    return arena_strdup(e->ar, "#error \"pac: a distributed dmem array needs the CUDA target\"");
  if (p->kind == AL_DIST) return emit_alloc_distributed(e, p, false);
  if (p->kind == AL_ARRAY && p->mem == MK_RMEM) /* a thread's own array, local to its block */
    return arena_printf(e->ar, "%s %s[%lld];", p->elem, p->target, (long long)p->nelems);
  if (p->kind != AL_HOST) return arena_strdup(e->ar, "#error \"pac: device memory needs the CUDA target\"");
  const char *site = emit_site(e, &p->site);
  const char *call = arena_printf(e->ar, "(%s *)" RT_CREATE_HOST "(%s, %s, %s)", p->elem, emit_memkind(p->mem),
                                  emit_bytes(e, &p->bytes, &p->site), site);
  if (p->declare) return arena_printf(e->ar, "%s *%s = %s;", p->elem, p->target, call);
  return arena_printf(e->ar, "%s = %s;", p->target, call);
}

char *emit_c_destroy(emitter *e, const plan_destroy *p) {
  switch (p->kind) {
  case AL_DIST:
    return arena_printf(e->ar, RT_MPI_DESTROY "(" GEN_HANDLE "%s); %s = 0;", p->target, p->target);
  case AL_HOST:
    return arena_printf(e->ar, RT_DESTROY_HOST "(%s, %s, %s);", emit_memkind(p->mem), p->target,
                        emit_bytes(e, &p->bytes, &p->site));
  case AL_ARRAY:
    if (p->mem == MK_RMEM) return arena_strdup(e->ar, "/* rmem memory is released at the end of its block */");
    break;
  default:
    break;
  }
  return arena_strdup(e->ar, "#error \"pac: device memory needs the CUDA target\"");
}

/* ---- #copy ------------------------------------------------------------------ */

/* the two sides of a distributed copy, after the arrays of their strides */
static void mpi_sides(emitter *e, sbuf *b, const char *const *handle, const char *const *ptr,
                      const char *const *base) {
  const char *tail[2];
  for (int k = 0; k < 2; k++) tail[k] = base[k] ? arena_printf(e->ar, ", (" RT_INT64_T ")(%s)", base[k]) : ", 0";
  sb_printf(b, ";\n  " RT_MPI_SIDE " parray__d = {%s, %s, parray__dl, parray__dp%s}, parray__s = {%s, (void *)(%s), "
            "parray__sl, parray__sp%s};\n", handle[0], ptr[0], tail[0], handle[1], ptr[1], tail[1]);
}

/* a distributed copy planned at run time: per side, its own modes (extents,
 * local strides, process strides) */
static void copy_split(emitter *e, sbuf *b, const plan_copy *p, const char *site, const char *const *handle,
                       const char *const *ptr, const char *const *base) {
  const plan_side *sd[2] = {&p->dst, &p->src};
  static const char *const names[2][3] = {{"parray__dn", "parray__dl", "parray__dp"},
                                          {"parray__sn", "parray__sl", "parray__sp"}};
  sb_puts(b, "{ const " RT_INT64_T " ");
  for (int k = 0; k < 2; k++) {
    ex **v[3] = {sd[k]->shape, sd[k]->stride, sd[k]->proc_stride};
    for (int j = 0; j < 3; j++) {
      if (k || j) sb_puts(b, ", ");
      emit_int64_array(e, b, names[k][j], v[j], sd[k]->nmodes);
    }
  }
  mpi_sides(e, b, handle, ptr, base);
  bool dd = p->dst.mem == MK_DMEM, sdev = p->src.mem == MK_DMEM;
  if (dd || sdev) /* sides in device memory: staged through host blocks, as in parray_mpi_copy_dev */
    sb_printf(b, "  if (" RT_MPI_COPY_SPLIT_DEV "(%d, %d, %d, &parray__d, parray__dn, %d, &parray__s, parray__sn, %d, "
              "sizeof(%s), %s) != " RT_OK ") " RT_FATAL_AT "(%s, \"%%s\", " RT_LAST_ERROR "()); }", p->service, dd,
              sdev, p->dst.nmodes, p->src.nmodes, p->elem, site, site);
  else
    sb_printf(b, "  if (" RT_MPI_COPY_SPLIT "(&parray__d, parray__dn, %d, &parray__s, parray__sn, %d, sizeof(%s)) != "
              RT_OK ") " RT_FATAL_AT "(%s, \"%%s\", " RT_LAST_ERROR "()); }", p->dst.nmodes, p->src.nmodes,
              p->elem, site);
}

/* scatter, gather or redistribution: the merged shape and, per side, the
 * strides of its local offsets and of its process index */
static void copy_distributed(emitter *e, sbuf *b, const plan_copy *p, const char *site) {
  const plan_side *sd[2] = {&p->dst, &p->src};
  const char *handle[2], *ptr[2], *base[2];
  for (int k = 0; k < 2; k++) {
    handle[k] = sd[k]->var ? arena_printf(e->ar, GEN_HANDLE "%s", sd[k]->var) : "-1";
    ptr[k] = sd[k]->var ? "0" : sd[k]->ptr;
    base[k] = sd[k]->var ? sd[k]->base : NULL;
  }
  if (p->split) {
    copy_split(e, b, p, site, handle, ptr, base);
    return;
  }
  sb_puts(b, "{ const " RT_INT64_T " ");
  emit_int64_array(e, b, "parray__shape", p->shape, p->nmodes);
  static const char *const names[4] = {"parray__dl", "parray__dp", "parray__sl", "parray__sp"};
  for (int j = 0; j < 4; j++) {
    sb_puts(b, ", ");
    emit_int64_array(e, b, names[j], j % 2 ? sd[j / 2]->proc_stride : sd[j / 2]->stride, p->nmodes);
  }
  mpi_sides(e, b, handle, ptr, base);
  /* sides in device memory (distributed dmem arrays, or process 0's dmem
   * pointer): staged through host blocks on each process */
  bool dd = p->dst.mem == MK_DMEM, sdev = p->src.mem == MK_DMEM;
  if (dd || sdev)
    sb_printf(b, "  if (" RT_MPI_COPY_DEV "(%d, %d, %d, &parray__d, &parray__s, parray__shape, %d, sizeof(%s), %s) != "
              RT_OK ") " RT_FATAL_AT "(%s, \"%%s\", " RT_LAST_ERROR "()); }", p->service, dd, sdev, p->nmodes,
              p->elem, site, site);
  else
    sb_printf(b, "  if (" RT_MPI_COPY "(&parray__d, &parray__s, parray__shape, %d, sizeof(%s)) != " RT_OK ") "
              RT_FATAL_AT "(%s, \"%%s\", " RT_LAST_ERROR "()); }", p->nmodes, p->elem, site);
}

void emit_strided_arrays(emitter *e, sbuf *b, const plan_copy *p) {
  bool allk = true;
  for (int k = 0; k < p->nmodes; k++)
    allk &= ex_is_const(p->shape[k], NULL) && ex_is_const(p->dst.stride[k], NULL) && ex_is_const(p->src.stride[k], NULL);
  sb_printf(b, "{ %sconst " RT_INT64_T " ", allk ? "static " : "");
  emit_int64_array(e, b, "parray__shape", p->shape, p->nmodes);
  sb_puts(b, ", ");
  emit_int64_array(e, b, "parray__dstride", p->dst.stride, p->nmodes);
  sb_puts(b, ", ");
  emit_int64_array(e, b, "parray__sstride", p->src.stride, p->nmodes);
  sb_puts(b, ";\n");
}

char *emit_c_copy(emitter *e, const plan_copy *p) {
  const char *site = emit_site(e, &p->site);
  char b_buf[1024];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  if (p->method != CP_DIST) emit_copy_check(e, &b, p, site);
  switch (p->method) {
  case CP_DIST: copy_distributed(e, &b, p, site); break;
  case CP_LOOP: emit_copy_loop(e, &b, p); break;
  case CP_VECTOR: /* planned in cuda detours only: element by element here */
    sb_puts(&b, "{\n");
    emit_copy_modes(e, &b, p, "    ");
    sb_puts(&b, " }");
    break;
  case CP_MEMCPY:
    sb_printf(&b, "__builtin_memcpy(%s, %s, %s * sizeof(%s));", p->dst.ptr, p->src.ptr, emit_copy_count(e, p), p->elem);
    break;
  case CP_TMA: /* planned in cuda detours only */
    sb_puts(&b, "#error \"pac: a tma #copy needs the CUDA target\"");
    break;
  case CP_STRIDED:
    emit_strided_arrays(e, &b, p);
    sb_printf(&b, "  if (" RT_COPY_STRIDED_CPU "(%s, parray__dstride, %s, parray__sstride, parray__shape, %d, "
              "sizeof(%s)) != " RT_OK ") " RT_FATAL_AT "(%s, \"%%s\", " RT_LAST_ERROR "()); }",
              p->dst.ptr, p->src.ptr, p->nmodes, p->elem, site);
    break;
  }
  char *r = arena_strdup(e->ar, b.s);
  sb_free(&b);
  return r;
}

/* ---- the entry -------------------------------------------------------------- */

const char *const emit_mainhost_head = "static int parray__mainhost(int argc, char **argv)";
const char *const emit_mainhost_open = " (void)argc; (void)argv;";
const char *const emit_mainhost_close = "return 0; ";

char *emit_c_entry(emitter *e, const plan_entry *p) {
  sbuf b;
  sb_init(&b);
  sb_puts(&b, "\n/* the program's entry: #mainhost runs on the main host */\n");
  if (p->uses_mpi) {
    sb_puts(&b, "static const " RT_MPI_BODY " parray__mpi_bodies[] = {");
    for (int i = 0; i < p->nmpi_bodies; i++) sb_printf(&b, "%s%s", i ? ", " : "", p->mpi_bodies[i]);
    if (!p->nmpi_bodies) sb_puts(&b, "0");
    sb_puts(&b, "};\nint main(int argc, char **argv) {\n");
    sb_printf(&b, "  static const " RT_MPI_PROGRAM " parray__prog = {parray__mainhost, parray__mpi_bodies, %d};\n",
              p->nmpi_bodies);
    sb_puts(&b, "  return " RT_MPI_MAIN "(argc, argv, &parray__prog);\n}\n");
  } else {
    sb_puts(&b, "int main(int argc, char **argv) {\n  " RT_INIT "(&argc, &argv);\n");
    sb_puts(&b, "  int parray__rc = parray__mainhost(argc, argv);\n");
    if (p->uses_pthd) sb_puts(&b, "  " RT_PTHD_SHUTDOWN "();\n");
    sb_puts(&b, "  " RT_FINISH "();\n  return parray__rc;\n}\n");
  }
  char *r = arena_strdup(e->ar, b.s);
  sb_free(&b);
  return r;
}
