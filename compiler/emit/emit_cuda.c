/* emit_cuda.c - the CUDA emitter: a cuda #detour becomes a __global__
 * kernel named after its type and line, launched with the grid and block of
 * its thread array type (up to three children of a dimension map to z, y, x;
 * deeper trees are flattened and their digits recovered from the linear
 * index); $tid$ paths become blockIdx/threadIdx arithmetic; #sync becomes
 * __syncthreads() and #sync_0 a grid-wide barrier of a cooperative launch. */
#include "emit.h"

#include <string.h>

typedef struct hwmap {
  dnode *node[3]; /* z, y, x (NULL when unused) */
} hwmap;

static void map_dim(dnode *c, hwmap *m) {
  memset(m, 0, sizeof *m);
  if (c->nkids == 0 || c->nkids > 3) {
    m->node[2] = c;
    return;
  }
  for (int k = 0; k < c->nkids; k++) m->node[3 - c->nkids + k] = c->kids[k];
}

static const char *const hw_axis = "zyx";

bool emit_cuda_check_type(lw *w, ptype *T, loc at) {
  dnode *root = T->root;
  if (root->nkids != 2) {
    diag_error(w->dg, at, "a cuda thread array type has exactly two top-level dimensions (the grid and the block); "
               "'%s' has %d", T->name, root->nkids);
    return false;
  }
  static const int64_t block_lim[3] = {64, 1024, 1024}, grid_lim[3] = {65535, 65535, 2147483647};
  bool ok = true;
  for (int g = 0; g < 2; g++) {
    hwmap m;
    map_dim(root->kids[g], &m);
    const int64_t *lim = g ? block_lim : grid_lim;
    for (int k = 0; k < 3; k++) {
      int64_t v;
      if (m.node[k] && ex_is_const(m.node[k]->size, &v) && v > lim[k]) {
        diag_error(w->dg, at, "'%s' maps to %sDim.%c = %lld, over the hardware limit of %lld", m.node[k]->path,
                   g ? "block" : "grid", hw_axis[k], (long long)v, (long long)lim[k]);
        ok = false;
      }
    }
  }
  int64_t threads;
  if (ok && ex_is_const(root->kids[1]->size, &threads) && threads > 1024) {
    diag_error(w->dg, at, "the block '%s' of '%s' has %lld threads; a CUDA block has at most 1024",
               root->kids[1]->path, T->name, (long long)threads);
    ok = false;
  }
  return ok;
}

static const char *dim3_text(lw *w, dnode *c) {
  hwmap m;
  map_dim(c, &m);
  sbuf b;
  sb_init(&b);
  sb_puts(&b, "dim3(");
  for (int k = 2, first = 1; k >= 0; k--) {
    if (!m.node[k]) continue;
    if (!first) sb_puts(&b, ", ");
    ex_print(&b, m.node[k]->size, false);
    first = 0;
  }
  sb_putc(&b, ')');
  char *s = arena_strdup(w->ar, b.s);
  sb_free(&b);
  return s;
}

ex *emit_cuda_tid(lw *w, region *r, dnode *p) {
  exctx *x = &w->ex;
  ex *lin = ex_const(x, 0);
  for (int g = 0; g < 2; g++) {
    hwmap m;
    map_dim(r->thread->root->kids[g], &m);
    for (int k = 0; k < 3; k++) {
      if (!m.node[k]) continue;
      int64_t sz;
      const char *txt = arena_printf(w->ar, "(int)%s.%c", g ? "threadIdx" : "blockIdx", hw_axis[k]);
      ex *hw = ex_atom(x, txt, 0, ex_is_const(m.node[k]->size, &sz) ? sz - 1 : EX_INF);
      lin = ex_add(x, lin, ex_mul(x, hw, ty_last_stride(&w->ty, m.node[k])));
    }
  }
  int64_t total;
  lin = ex_with_range(x, lin, 0, ex_is_const(r->thread->root->size, &total) ? total - 1 : EX_INF);
  return p == r->thread->root ? lin : ty_tid_digit(&w->ty, p, lin);
}

void emit_cuda_sync(lw *w, item *it, region *r, const char *path) {
  directive *d = it->dir;
  if (!path || !strcmp(path, "_1")) {
    lw_replace_dir(w, it, "__syncthreads();");
  } else if (!strcmp(path, "_0")) {
    r->uses_sync = true; /* grid-wide: cooperative launch */
    lw_replace_dir(w, it, "cooperative_groups::this_grid().sync();");
  } else {
    diag_error(w->dg, d->kw, "'#sync%s': a cuda thread array has barriers over the block (#sync, #sync_1) and the "
               "grid (#sync_0) only", path);
  }
}

static item *params_group(lw *w, ptype *T) {
  item *g = arena_alloc(w->ar, sizeof *g);
  g->kind = IT_GROUP;
  g->grp = arena_alloc(w->ar, sizeof *g->grp);
  g->grp->open = '(';
  g->grp->body = T->cuda_params;
  g->loc = T->cuda_params_loc;
  return g;
}

void emit_cuda_detour(lw *w, item *it, region *r) {
  directive *d = it->dir;
  ptype *T = r->thread;
  if (w->target != TARGET_CUDA) {
    diag_error(w->dg, d->name, "'%s' is a cuda thread array: this file needs the CUDA target (--emit=cuda)", T->name);
    return;
  }
  for (region *o = w->rg; o; o = o->outer)
    if (o->kind == RG_CUDA) {
      diag_error(w->dg, d->kw, "a cuda detour inside a cuda detour: kernels cannot launch kernels here");
      return;
    }
  if (T->bad) return; /* reported at its declaration */
  w->uses_cuda = true;
  item *pg = params_group(w, T);
  cd_stmt ps = cd_params(&w->cd, pg);
  items *args;
  int nargs = d->has_args ? lw_split_args(w, &d->args, &args) : 0;
  if (nargs == 1 && args[0].n == 0) nargs = 0;
  if (nargs != ps.ndecls) {
    diag_error(w->dg, d->has_args ? d->argsloc : d->name, "#detour %s passes %d argument%s; the kernel of '%s' takes %d",
               T->name, nargs, nargs == 1 ? "" : "s", T->name, ps.ndecls);
    return;
  }
  /* render the parameter list and the launch arguments in the enclosing code;
   * the parameters' own names are declarations, never substituted */
  int saved_nd = w->ndecl_names;
  item *saved_dn[64];
  memcpy(saved_dn, w->decl_names, sizeof saved_dn);
  w->ndecl_names = 0;
  for (int i = 0; i < ps.ndecls && i < 64; i++) w->decl_names[w->ndecl_names++] = ps.decls[i].name;
  const char *ptext = lw_list_text(w, &T->cuda_params);
  memcpy(w->decl_names, saved_dn, sizeof saved_dn);
  w->ndecl_names = saved_nd;
  sbuf argtext;
  sb_init(&argtext);
  for (int i = 0; i < nargs; i++) sb_printf(&argtext, "%s(%s)", i ? ", " : "", lw_list_text(w, &args[i]));
  char *body = lower_walk_body(w, it, r, &ps);
  const char *kname = lower_fresh_name(w, "k", T->name, d->loc);

  sbuf h;
  sb_init(&h);
  sb_printf(&h, "/* #detour %s: grid %s, block %s */\n", T->name, dim3_text(w, T->root->kids[0]),
            dim3_text(w, T->root->kids[1]));
  /* the block size, when known, bounds the registers nvcc may give a thread;
   * min_blocks(n) bounds them further, so that n blocks fit a multiprocessor */
  int64_t bthreads;
  bool bconst = ex_is_const(T->root->kids[1]->size, &bthreads);
  const char *bounds = "";
  if (T->min_blocks && !bconst) {
    diag_error(w->dg, T->min_blocks_loc, "min_blocks needs the block size of '%s' to be a compile-time constant",
               T->name);
    diag_note(w->dg, d->name, "in the kernel of this #detour");
  } else if (T->min_blocks) {
    bounds = arena_printf(w->ar, "__launch_bounds__(%lld, %s) ", (long long)bthreads,
                          ex_str(&w->ex, T->min_blocks, false));
  } else if (bconst) {
    bounds = arena_printf(w->ar, "__launch_bounds__(%lld) ", (long long)bthreads);
  }
  sb_printf(&h, "%s__global__ void %s%s(%s", pr_line_text(&w->pr, w->ar, d->loc.b), bounds, kname, ptext);
  bool any = ps.ndecls > 0;
  for (int i = 0; i < r->ncaps; i++)
    if (r->caps[i].mode == CAP_VALUE) {
      sb_printf(&h, "%s%s", any ? ", " : "", lower_field_decl(w, r->caps[i].s, CAP_VALUE, r->caps[i].field));
      sb_printf(&argtext, "%s%s", any || argtext.len ? ", " : "", lower_capture_init(w, r, &r->caps[i]));
      any = true;
    }
  sb_puts(&h, ") {\n");
  sb_puts(&h, body);
  sb_puts(&h, "\n}\n");
  pr_hoist(&w->pr, h.s);

  const char *loca = lw_loc_args(w, d->loc, arena_printf(w->ar, "#detour %s", T->name));
  const char *grid = dim3_text(w, T->root->kids[0]), *block = dim3_text(w, T->root->kids[1]);
  sbuf c;
  sb_init(&c);
  if (!r->uses_sync) {
    sb_printf(&c, "{ %s<<<%s, %s>>>(%s);\n  parray_cuda_check_launch(%s); }", kname, grid, block,
              argtext.s ? argtext.s : "", loca);
  } else {
    /* #sync_0: a cooperative launch, checked for co-residency by the runtime */
    sb_puts(&c, "{ ");
    int k = 0;
    for (int i = 0; i < ps.ndecls; i++, k++) {
      w->rsub_item = ps.decls[i].name;
      w->rsub_text = arena_printf(w->ar, "parray__a%d", k);
      const char *decl = lw_items_text(w, ps.decls[i].decl_first, ps.decls[i].decl_last);
      w->rsub_item = NULL;
      const char *spec = lw_items_text(w, ps.decls[i].spec_first, ps.decls[i].spec_last);
      sb_printf(&c, "%s %s = (%s); ", spec, decl, lw_list_text(w, &args[i]));
    }
    for (int i = 0; i < r->ncaps; i++)
      if (r->caps[i].mode == CAP_VALUE)
        sb_printf(&c, "%s = %s; ", lower_field_decl(w, r->caps[i].s, CAP_VALUE, arena_printf(w->ar, "parray__a%d", k++)),
                  lower_capture_init(w, r, &r->caps[i]));
    sb_puts(&c, "\n  void *parray__args[] = {");
    for (int i = 0; i < k; i++) sb_printf(&c, "%s&parray__a%d", i ? ", " : "", i);
    if (!k) sb_puts(&c, "0");
    sb_printf(&c, "};\n  parray_cuda_launch_cooperative((const void *)%s, %s, %s, parray__args, %s); }", kname, grid,
              block, loca);
  }
  lw_replace_dir(w, it, c.s);
  sb_free(&c);
  sb_free(&h);
  sb_free(&argtext);
}
