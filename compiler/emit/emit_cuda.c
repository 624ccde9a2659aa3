/* SPDX-License-Identifier: Apache-2.0 */
/* emit_cuda.c - the CUDA emitter (target "cuda"): a cuda #detour becomes a
 * __global__ kernel named after its type and line, launched with the grid
 * and block of its thread array type (the extents the lowering mapped to
 * z, y, x), its pointer arguments first checked against the GPUs of the
 * process's distributed dmem blocks, every launch checked, followed by a
 * wait for the kernel or (plan_detour.wait false) recorded for the next
 * wait; a grid-wide #sync makes it a cooperative launch, which waits.
 * Device memory and copies involving it go through the CUDA runtime; smem
 * and rmem are 16-byte aligned arrays declared in the kernel (128-byte
 * aligned when a bulk tensor copy writes them; smem past 48 KB: views of
 * the kernel's dynamic shared memory, whose size the launch gives); a
 * thread's own #copy moves packs behind a run-time alignment test, and a
 * tma #copy is a call of parray/tma.cuh whose tensor map the launch encodes
 * first. Everything else is host code, printed as emit_c.c prints it
 * (docs/cuda.md). */
#include "emit.h"
#include "emit_reduce.h"
#include "runtime_names.h"

#include "types.h"

#include <string.h>

/* "dim3(x, y, z)" of extents given as z, y, x */
static const char *dim3_text(emitter *e, ex *const d[3]) {
  sbuf b;
  sb_init(&b);
  sb_puts(&b, "dim3(");
  for (int k = 2, first = 1; k >= 0; k--) {
    if (!d[k]) continue;
    if (!first) sb_puts(&b, ", ");
    ex_print(&b, d[k], false);
    first = 0;
  }
  sb_putc(&b, ')');
  char *s = arena_strdup(e->ar, b.s);
  sb_free(&b);
  return s;
}

/* "template <unsigned long parray__n0, ...> " when values travel as bytes
 * (plan_capture.bytes), one size per such value; "" otherwise */
static const char *bytes_template(emitter *e, const plan_detour *p) {
  sbuf b;
  sb_init(&b);
  for (int i = 0, k = 0; i < p->ncaps; i++)
    if (p->caps[i].mode == CAP_VALUE && p->caps[i].bytes)
      sb_printf(&b, "%sunsigned long parray__n%d", k++ ? ", " : "template <", i);
  if (b.len) sb_puts(&b, "> ");
  char *r = arena_strdup(e->ar, b.s ? b.s : "");
  sb_free(&b);
  return r;
}

/* the kernel as the host names it: with the sizes of the values that travel as bytes */
static const char *kernel_ref(emitter *e, const plan_detour *p) {
  sbuf b;
  sb_init(&b);
  sb_puts(&b, p->fname);
  for (int i = 0, k = 0; i < p->ncaps; i++)
    if (p->caps[i].mode == CAP_VALUE && p->caps[i].bytes)
      sb_printf(&b, "%ssizeof(%s)", k++ ? ", " : "<", p->caps[i].init);
  if (b.len > strlen(p->fname)) sb_putc(&b, '>');
  char *r = arena_strdup(e->ar, b.s);
  sb_free(&b);
  return r;
}

/* a captured value as the kernel's parameter takes it */
static const char *value_param(emitter *e, const plan_capture *c, int i) {
  if (c->bytes) return arena_printf(e->ar, RT_VALUE_BYTES "<parray__n%d> %s", i, c->field);
  return emit_decl(e, c->decl, c->field);
}

/* a captured value as the launch passes it */
static const char *value_arg(emitter *e, const plan_capture *c) {
  return c->bytes ? arena_printf(e->ar, RT_TO_BYTES "(%s)", c->init) : c->init;
}

/* the kernel, hoisted to file scope; its captures are extra parameters */
static void kernel(emitter *e, const plan_detour *p, const char *grid, const char *block) {
  sbuf h;
  sb_init(&h);
  sb_printf(&h, "/* #detour %s: grid %s, block %s */\n", p->type, grid, block);
  /* the block size, when known, bounds the registers nvcc may give a thread;
   * min_blocks(n) bounds them further, so that n blocks fit a multiprocessor */
  const char *bounds = "";
  if (p->block_threads > 0 && p->min_blocks)
    bounds = arena_printf(e->ar, "__launch_bounds__(%lld, %s) ", (long long)p->block_threads, p->min_blocks);
  else if (p->block_threads > 0)
    bounds = arena_printf(e->ar, "__launch_bounds__(%lld) ", (long long)p->block_threads);
  sb_printf(&h, "%s%s__global__ void %s%s(%s", pr_line_text(e->pr, e->ar, p->site.at), bytes_template(e, p), bounds,
            p->fname, p->params);
  bool any = p->nargs > 0;
  for (int i = 0; i < p->ncaps; i++)
    if (p->caps[i].mode == CAP_VALUE) {
      sb_printf(&h, "%s%s", any ? ", " : "", value_param(e, &p->caps[i], i));
      any = true;
    }
  for (int i = 0; i < p->ntmaps; i++, any = true)
    sb_printf(&h, "%sconst __grid_constant__ CUtensorMap %s", any ? ", " : "", p->tmaps[i].name);
  emit_red_kernel_params(e, p, &h, any);
  sb_puts(&h, ") {\n");
  if (p->smem_bytes > 0)
    sb_printf(&h, "  extern __shared__ __align__(128) unsigned char parray__smem[]; /* the body's smem arrays: %lld "
              "bytes of dynamic shared memory */\n", (long long)p->smem_bytes);
  /* the thread's position, at the detour's line: a debugger stops in the body, after it */
  sb_printf(&h, "%s  ", pr_line_text(e->pr, e->ar, p->site.at));
  if (p->fold) { /* the copies live across the blocks this one stands for */
    emit_red_kernel_privates(e, p, &h);
    emit_red_fold_open(e, p, &h);
    emit_position(e, p, &h);
  } else {
    emit_red_kernel_start(e, p, &h);
    emit_position(e, p, &h);
    emit_red_kernel_privates(e, p, &h);
  }
  sb_puts(&h, "\n");
  sb_puts(&h, p->body);
  if (p->fold) emit_red_fold_close(e, p, &h);
  emit_red_kernel_end(e, p, &h);
  sb_puts(&h, "\n}\n");
  pr_hoist(e->pr, h.s);
  sb_free(&h);
}

/* before the launch: each argument of a pointer parameter that the plan
 * marks, checked against the GPUs of this process's distributed dmem blocks
 * (local: the cooperative launch's parray__aK, else the argument itself) */
static void home_checks(emitter *e, const plan_detour *p, sbuf *c, bool local, const char *site) {
  for (int i = 0; i < p->nargs; i++) {
    if (!p->args[i].home) continue;
    const char *a = local ? arena_printf(e->ar, GEN_LAUNCH_ARG "%d", i) : arena_printf(e->ar, "(%s)", p->args[i].arg);
    sb_printf(c, RT_CUDA_CHECK_HOME "((const void *)%s, \"%s\", %s);\n  ", a, p->args[i].name, site);
  }
}

/* the arguments, in order, into locals declared like the parameters */
static void arg_locals(emitter *e, const plan_detour *p, sbuf *c) {
  for (int i = 0; i < p->nargs; i++)
    sb_printf(c, "%s %s = (%s); ", p->args[i].spec,
              emit_decl(e, p->args[i].decl, arena_printf(e->ar, GEN_LAUNCH_ARG "%d", i)), p->args[i].arg);
}

/* #sync_0: a cooperative launch, checked for co-residency by the runtime;
 * its arguments are locals whose addresses the launch takes */
static void cooperative_launch(emitter *e, const plan_detour *p, sbuf *c, const char *grid, const char *block,
                               const char *site) {
  sb_puts(c, "{ ");
  arg_locals(e, p, c);
  int k = p->nargs;
  for (int i = 0; i < p->ncaps; i++)
    if (p->caps[i].mode == CAP_VALUE && p->caps[i].bytes)
      sb_printf(c, "auto " GEN_LAUNCH_ARG "%d = %s; ", k++, value_arg(e, &p->caps[i]));
    else if (p->caps[i].mode == CAP_VALUE)
      sb_printf(c, "%s = %s; ", emit_decl(e, p->caps[i].decl, arena_printf(e->ar, GEN_LAUNCH_ARG "%d", k++)), p->caps[i].init);
  sb_puts(c, "\n  ");
  home_checks(e, p, c, true, site);
  sb_puts(c, "void *parray__args[] = {");
  for (int i = 0; i < k; i++) sb_printf(c, "%s&" GEN_LAUNCH_ARG "%d", i ? ", " : "", i);
  for (int i = 0; i < p->ntmaps; i++) sb_printf(c, "%s&%s", k + i ? ", " : "", p->tmaps[i].name);
  if (!k && !p->ntmaps) sb_puts(c, "0");
  sb_printf(c, "};\n  " RT_CUDA_LAUNCH_COOPERATIVE "((const void *)%s, %s, %s, parray__args, %lldu, %s); }",
            kernel_ref(e, p), grid, block, (long long)p->smem_bytes, site);
}

/* "{ CUtensorMap M; ...encode... " before the launch: each tensor map of
 * the body's bulk tensor copies, encoded by the runtime from the extents and
 * strides of the dmem type (innermost first) and the box (the caller closes
 * the brace after the launch) */
static void encode_tmaps(emitter *e, const plan_detour *p, sbuf *c) {
  sb_puts(c, "{ ");
  for (int i = 0; i < p->ntmaps; i++) {
    const plan_tmap *m = &p->tmaps[i];
    sb_printf(c, "CUtensorMap %s;\n  { const long long parray__dims[%d] = {", m->name, m->rank);
    for (int j = 0; j < m->rank; j++) sb_printf(c, "%s%s", j ? ", " : "", ex_str(e->ex, m->dims[j], true));
    sb_printf(c, "}, parray__strides[%d] = {", m->rank);
    for (int j = 0; j < m->rank; j++) sb_printf(c, "%s%s", j ? ", " : "", ex_str(e->ex, m->strides[j], true));
    sb_printf(c, "};\n    const int parray__box[%d] = {", m->rank);
    for (int j = 0; j < m->rank; j++) sb_printf(c, "%s%lld", j ? ", " : "", (long long)m->box[j]);
    sb_printf(c, "};\n    " RT_CUDA_TENSOR_MAP "(&%s, (%s), (int)sizeof(%s), %d, parray__dims, parray__strides, "
              "parray__box, %s); }\n  ", m->name, m->base, m->elem, m->rank, emit_site(e, &m->site));
  }
}

char *emit_cuda_detour(emitter *e, const plan_detour *p) {
  if (p->kind != PK_CUDA) return emit_c_detour(e, p);
  const char *grid = dim3_text(e, p->grid), *block = dim3_text(e, p->block);
  kernel(e, p, grid, block);
  const char *site = emit_site(e, &p->site);
  sbuf c;
  sb_init(&c);
  if (p->ntmaps) encode_tmaps(e, p, &c);
  if (p->smem_bytes > 0) /* past 48 KB: the kernel's limit raised, and checked against the device's */
    sb_printf(&c, RT_CUDA_SHARED_SIZE "((const void *)%s, %lldu, %s);\n  ", kernel_ref(e, p),
              (long long)p->smem_bytes, site);
  if (p->grid_sync) {
    cooperative_launch(e, p, &c, grid, block, site);
  } else {
    const char *shared = p->smem_bytes > 0 ? arena_printf(e->ar, ", %lldu", (long long)p->smem_bytes) : "";
    sb_puts(&c, "{ ");
    if (p->bind_args) arg_locals(e, p, &c), sb_puts(&c, "\n  ");
    home_checks(e, p, &c, p->bind_args, site);
    if (p->fold) { /* about one wave of blocks, each standing for several of the detour's grid */
      sb_printf(&c, "const dim3 " GEN_FOLD_GRID " = %s, parray__fg = " RT_CUDA_FOLD_GRID "((const void *)%s, "
                GEN_FOLD_GRID ", %s, %s, %s);\n  ", grid, kernel_ref(e, p), block,
                p->smem_bytes > 0 ? arena_printf(e->ar, "%lldu", (long long)p->smem_bytes) : "0", site);
      grid = "parray__fg";
    }
    emit_red_launch_begin(e, p, grid, site, &c);
    sb_printf(&c, "%s<<<%s, %s%s>>>(", kernel_ref(e, p), grid, block, shared);
    bool any = false;
    for (int i = 0; i < p->nargs; i++, any = true)
      if (p->bind_args) sb_printf(&c, "%s" GEN_LAUNCH_ARG "%d", any ? ", " : "", i);
      else sb_printf(&c, "%s(%s)", any ? ", " : "", p->args[i].arg);
    for (int i = 0; i < p->ncaps; i++)
      if (p->caps[i].mode == CAP_VALUE) sb_printf(&c, "%s%s", any ? ", " : "", value_arg(e, &p->caps[i])), any = true;
    for (int i = 0; i < p->ntmaps; i++, any = true) sb_printf(&c, "%s%s", any ? ", " : "", p->tmaps[i].name);
    emit_red_launch_args(e, p, &c, any);
    /* with reductions the wait comes after their second pass */
    sb_printf(&c, ");\n  %s(%s);", p->wait && !p->nreds ? RT_CUDA_CHECK_LAUNCH : RT_CUDA_LAUNCHED, site);
    emit_red_launch_end(e, p, site, &c);
    sb_puts(&c, " }");
  }
  if (p->ntmaps) sb_puts(&c, " }");
  char *r = arena_strdup(e->ar, c.s);
  sb_free(&c);
  return r;
}

char *emit_cuda_wait(emitter *e, const plan_site *s, bool pending_only) {
  return arena_printf(e->ar, "%s(%s);", pending_only ? RT_CUDA_WAIT_PENDING : RT_CUDA_WAIT,
                      emit_site(e, s));
}

char *emit_cuda_sync(emitter *e, plan_kind k, plan_sync s) {
  if (k != PK_CUDA) return emit_c_sync(e, k, s);
  return arena_strdup(e->ar, s == SYNC_GRID ? "cooperative_groups::this_grid().sync();" : "__syncthreads();");
}

char *emit_cuda_alloc(emitter *e, const plan_alloc *p) {
  if (p->kind == AL_ARRAY && p->mem == MK_SMEM && p->dynamic) /* its slot of the kernel's dynamic shared memory */
    return arena_printf(e->ar, "%s (&%s)[%lld] = *reinterpret_cast<%s (*)[%lld]>(parray__smem + %lld);", p->elem,
                        p->target, (long long)p->nelems, p->elem, (long long)p->nelems, (long long)p->offset);
  if (p->kind == AL_ARRAY && p->mem == MK_SMEM) /* at least 16-byte aligned, so that vector accesses into it are legal */
    return arena_printf(e->ar, "__shared__ __align__(%d) %s %s[%lld];", p->align, p->elem, p->target,
                        (long long)p->nelems);
  if (p->kind == AL_ARRAY && p->mem == MK_RMEM) /* aligned for the packs of a #copy; registers when indexed by constants */
    return arena_printf(e->ar, "__align__(16) %s %s[%lld];", p->elem, p->target, (long long)p->nelems);
  if (p->kind == AL_DIST && p->mem == MK_DMEM) return emit_alloc_distributed(e, p, true);
  if (p->kind != AL_DEVICE) return emit_c_alloc(e, p);
  const char *call = arena_printf(e->ar, "(%s *)" RT_CUDA_CREATE "(%s, %s, %s)", p->elem, emit_memkind(p->mem),
                                  emit_bytes(e, &p->bytes, &p->site), emit_site(e, &p->site));
  if (p->declare) return arena_printf(e->ar, "%s *%s = %s;", p->elem, p->target, call);
  return arena_printf(e->ar, "%s = %s;", p->target, call);
}

char *emit_cuda_destroy(emitter *e, const plan_destroy *p) {
  if (p->kind == AL_ARRAY && p->kernel)
    return arena_printf(e->ar, "/* %s memory is released when the kernel ends */", ty_mem_name(p->mem));
  if (p->kind == AL_DIST && p->mem == MK_DMEM)
    return arena_printf(e->ar, RT_MPI_DESTROY_DEV "(%d, " GEN_HANDLE "%s, %s); %s = 0;", p->service, p->target,
                        emit_site(e, &p->site), p->target);
  if (p->kind == AL_DEVICE)
    return arena_printf(e->ar, RT_CUDA_DESTROY "(%s, %s, %s);", emit_memkind(p->mem), p->target,
                        emit_site(e, &p->site));
  return emit_c_destroy(e, p);
}

/* A cuda thread's own copy over modes: with a pack width, when both base
 * pointers are aligned to it, packs of that many bytes move through a vector
 * type (uint4, uint2, unsigned int: bytes, not elements); a pack that a
 * bound cuts goes element by element; misaligned pointers take the
 * element loop. */
static void copy_vector(emitter *e, sbuf *b, const plan_copy *p) {
  if (!p->vec) {
    sb_puts(b, "{\n");
    emit_copy_modes(e, b, p, "    ");
    sb_puts(b, " }");
    return;
  }
  static const char *const vt[17] = {[4] = "unsigned int", [8] = "uint2", [16] = "uint4"};
  int64_t v = p->vec / p->elem_bytes;
  const char *so = ex_str(e->ex, p->src.off, false), *dof = ex_str(e->ex, p->dst.off, false);
  sb_printf(b, "{ if ((((uintptr_t)(%s) | (uintptr_t)(%s)) & %d) == 0) { /* %d-byte packs */\n", p->src.ptr,
            p->dst.ptr, p->vec - 1, p->vec);
  emit_mode_loops(e, b, p, v, "    ");
  const char *mv = arena_printf(e->ar, "*(%s *)((%s) + %s) = *(const %s *)((%s) + %s);", vt[p->vec], p->dst.ptr, dof,
                                vt[p->vec], p->src.ptr, so);
  if (p->nbound) {
    sb_puts(b, "if (");
    emit_bound_test(e, b, p, arena_printf(e->ar, "%lld", (long long)(v - 1)));
    sb_printf(b, ") %s\n    %*selse for (int parray__e = 0; parray__e < %lld; parray__e++) if (", mv, 2 * p->nmodes, "",
              (long long)v);
    emit_bound_test(e, b, p, "parray__e");
    sb_printf(b, ") (%s)[%s + parray__e] = (%s)[%s + parray__e];", p->dst.ptr, dof, p->src.ptr, so);
  } else {
    sb_puts(b, mv);
  }
  sb_puts(b, "\n  } else { /* misaligned: one element at a time */\n");
  emit_copy_modes(e, b, p, "    ");
  sb_puts(b, "\n  } }");
}

/* A bulk tensor copy: one call of the device helper (parray/tma.cuh) with
 * the coordinates innermost first. */
static char *copy_tma(emitter *e, const plan_copy *p) {
  sbuf b;
  sb_init(&b);
  sb_printf(&b, RT_PRIM "::tma_load(%s, &%s, &(%s), %lldu, %lldu, %s \":%d\"", p->dst.ptr, p->tma_map, p->tma_bar,
            (long long)p->tma_bytes, (long long)p->elem_bytes, pr_file_literal(e->pr, p->site.at),
            src_line(e->src, p->site.at));
  for (int j = 0; j < p->tma_rank; j++) sb_printf(&b, ", %s", p->tma_coord[j]);
  sb_puts(&b, ");");
  char *r = arena_strdup(e->ar, b.s);
  sb_free(&b);
  return r;
}

char *emit_cuda_copy(emitter *e, const plan_copy *p) {
  if (p->method == CP_TMA) return copy_tma(e, p);
  if (p->method == CP_VECTOR) {
    sbuf b;
    sb_init(&b);
    emit_copy_check(e, &b, p, emit_site(e, &p->site));
    copy_vector(e, &b, p);
    char *r = arena_strdup(e->ar, b.s);
    sb_free(&b);
    return r;
  }
  if (!p->device || p->method == CP_LOOP || p->method == CP_DIST) return emit_c_copy(e, p);
  const char *site = emit_site(e, &p->site);
  char b_buf[1024];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  emit_copy_check(e, &b, p, site);
  if (p->method == CP_MEMCPY) {
    sb_printf(&b, RT_CUDA_MEMCPY "(%s, %s, %s * sizeof(%s), %s);", p->dst.ptr, p->src.ptr, emit_copy_count(e, p), p->elem, site);
  } else {
    emit_strided_arrays(e, &b, p);
    sb_printf(&b, "  " RT_CUDA_COPY "(%s, %s, parray__dstride, %s, %s, parray__sstride, parray__shape, %d, "
              "sizeof(%s), %s); }", emit_memkind(p->dst.mem), p->dst.ptr, emit_memkind(p->src.mem), p->src.ptr,
              p->nmodes, p->elem, site);
  }
  char *r = arena_strdup(e->ar, b.s);
  sb_free(&b);
  return r;
}
