/* SPDX-License-Identifier: Apache-2.0 */
/* lower_copy.c - #copy (docs/language.md, Copies): checked here and planned
 * inside a cuda detour as the thread's own loops over the modes of the two
 * layouts, in 16/8/4-byte packs where the layouts allow (docs/cuda.md), with
 * its bound(...) clause; as a per-element loop inside pthd and mpi bodies
 * (and where no flat layout exists); in host code a contiguous copy, a
 * strided copy over the modes of a common refinement
 * of the two layouts (merged dimensions, outermost first), or, when a side
 * is distributed, a scatter, gather or redistribution over the local and
 * process layouts of both sides (planned at run time when their splits do
 * not nest). A #copy with tma(...) is a bulk tensor copy (lower_tma.c). */
#include <ctype.h>

#include "lower.h"
#include "lower_copy.h"
#include "lower_dollar.h"
#include "lower_side.h"
#include "lower_tma.h"
#include "ctcanon.h"

#include <string.h>

/* bound(...) of a per-element loop: the digit of each top-level dimension
 * of the source in the linear index i */
static void loop_bound_digits(lw *w, dnode *ns, ex *i, plan_copy *p) {
  exctx *x = &w->ex;
  ex **n = arena_alloc(w->in.ar, sizeof *n * (size_t)p->nbound * 2), **wt = n + p->nbound;
  lw_top_dims(ns, n, wt, x);
  for (int k = 0; k < p->nbound; k++) {
    ex *q = ex_div(x, i, wt[k]);
    p->bound_digit[k] = lw_localize(w, k ? ex_mod(x, q, n[k]) : q, w->rg->at);
  }
}

/* The bound(...) clause: one side-effect free bound per top-level dimension
 * of the source type (false after reporting). */
static bool copy_bounds(lw *w, directive *d, dnode *ns, plan_copy *p) {
  int nt = ns->nkids ? ns->nkids : 1;
  items *a;
  int n = d->copy.bound.args.n ? lw_split_args(w, &d->copy.bound.args, &a) : 0;
  if (n != nt) {
    diag_error(w->in.dg, d->copy.bound.args.n ? d->copy.bound.argsloc : d->copy.bound.kw,
               "bound(...) needs one bound per top-level dimension "
               "of '%s': %d, not %d",
               ns->path, nt, n);
    return false;
  }
  p->nbound = n;
  p->bound = arena_alloc(w->in.ar, sizeof *p->bound * (size_t)n);
  p->bound_digit = arena_alloc(w->in.ar, sizeof *p->bound_digit * (size_t)n);
  for (int k = 0; k < n; k++) {
    if (!a[k].n) {
      diag_error(w->in.dg, d->copy.bound.argsloc, "empty bound in bound(...)");
      return false;
    }
    ltok *t;
    arena_mark m = arena_save(&w->scratch);
    int nt2 = lw_ltoks(w, &a[k], &t, LW_CAPTURE);
    int se = cx_side_effect(&w->cx, t, nt2);
    loc at = se >= 0 ? t[se].loc : d->copy.bound.argsloc;
    arena_restore(&w->scratch, m);
    if (se >= 0) {
      diag_error(w->in.dg, at, "a bound cannot have side effects (the generated code evaluates it for every element)");
      return false;
    }
    p->bound[k] = lw_list_text(w, &a[k]);
  }
  return true;
}


/* With a bound: which top-level dimension each mode advances, and by how
 * much (innermost first; the modes of one dimension are consecutive, since
 * the refinement split the index space at the dimensions); false when the
 * extents are not constants that multiply up to each dimension. */
static bool mode_dims(lw *w, dnode *ns, ex *const *shape, int nm, ex **atom, plan_copy *p) {
  ex *n[64], *wt[64];
  if (ns->nkids > 64) return false;
  int nt = lw_top_dims(ns, n, wt, &w->ex), k = nt - 1;
  int64_t acc = 1, ext, sz;
  for (int j = 0; j < nt; j++) p->bound_digit[j] = ex_const(&w->ex, 0);
  for (int m = nm - 1; m >= 0; m--) {
    while (k >= 0 && acc == 1 && ex_is_const(n[k], &sz) && sz == 1) k--;
    if (k < 0 || !ex_is_const(shape[m], &ext) || !ex_is_const(n[k], &sz)) return false;
    p->bound_digit[k] = ex_add(&w->ex, p->bound_digit[k], ex_mul(&w->ex, atom[m], ex_const(&w->ex, acc)));
    acc *= ext;
    if (acc > sz || sz % acc) return false;
    if (acc == sz) k--, acc = 1;
  }
  return acc == 1;
}

/* The widest pack (16, 8 or 4 bytes, wider than an element) that divides
 * the innermost run and every outer stride of both sides, in bytes; 0: none.
 * The innermost mode must have stride 1 on both sides. */
static int pack_width(lw *w, plan_copy *p, ex *const *shape, ex *const *st, int k, int nm) {
  int64_t one, es = p->elem_bytes;
  bool mem_ok = true;
  for (int j = 0; j < 2; j++) {
    int mem = j ? p->dst.mem : p->src.mem;
    mem_ok &= mem == MK_DMEM || mem == MK_SMEM || mem == MK_RMEM;
  }
  if (!mem_ok || es <= 0 || nm < 1) return 0;
  for (int j = 0; j < 2; j++)
    if (!ex_is_const(st[(nm - 1) * k + j], &one) || one != 1) return 0;
  exctx *x = &w->ex;
  for (int wd = 16; wd >= 4; wd /= 2) {
    if (wd <= es || wd % es) continue;
    ex *W = ex_const(x, wd), *E = ex_const(x, es);
    bool ok = ex_div_exact(x, ex_mul(x, shape[nm - 1], E), W) != NULL;
    for (int m = 0; m < nm - 1 && ok; m++)
      for (int j = 0; j < 2 && ok; j++) ok = ex_div_exact(x, ex_mul(x, st[m * k + j], E), W) != NULL;
    if (ok) return wd;
  }
  return 0;
}

/* A cuda thread's own copy over the modes of the common refinement of the
 * two layouts (with a bound, refined also at the source's top-level
 * dimensions): one loop per mode, in packs when pack_width finds one
 * (false: no refinement; the caller plans the per-element loop). */
static bool plan_modes(lw *w, dnode *ns, dnode *nd, plan_copy *p) {
  layout *ls = ty_layout(&w->ty, ns), *ld = ty_layout(&w->ty, nd);
  if (!ls || !ld) return false;
  ex *shape[32], *st[32 * 3];
  int k = p->nbound ? 3 : 2, nm;
  if (p->nbound) {
    layout *lg = lw_logical_layout(w, ns), *v[3] = {ls, ld, lg};
    nm = lg ? lay_refine(&w->ty, v, 3, shape, st, 32) : -1;
  } else {
    nm = lay_refine2(&w->ty, ls, ld, shape, st, 32);
  }
  if (nm < 1) return false;
  exctx *x = &w->ex;
  ex **atom = arena_alloc(w->in.ar, sizeof *atom * (size_t)nm);
  for (int m = 0; m < nm; m++) {
    int64_t c;
    atom[m] =
        ex_atom(x, arena_printf(w->in.ar, PLAN_MODE_INDEX "%d", m), 0, ex_is_const(shape[m], &c) ? c - 1 : EX_INF);
  }
  if (p->nbound && !mode_dims(w, ns, shape, nm, atom, p)) return false;
  ex *so = ex_const(x, 0), *dof = ex_const(x, 0);
  for (int m = 0; m < nm; m++) {
    so = ex_add(x, so, ex_mul(x, atom[m], st[m * k]));
    dof = ex_add(x, dof, ex_mul(x, atom[m], st[m * k + 1]));
  }
  p->method = CP_VECTOR, p->nmodes = nm;
  p->shape = arena_alloc(w->in.ar, sizeof *p->shape * (size_t)nm);
  for (int m = 0; m < nm; m++) p->shape[m] = lw_localize(w, shape[m], w->rg->at);
  p->src.off = lw_localize(w, so, w->rg->at), p->dst.off = lw_localize(w, dof, w->rg->at);
  for (int j = 0; j < p->nbound; j++) p->bound_digit[j] = lw_localize(w, p->bound_digit[j], w->rg->at);
  p->elem_bytes = lw_elem_bytes(w, p->elem);
  p->vec = pack_width(w, p, shape, st, k, nm);
  return true;
}

/* dst[f_D(i)] = src[f_S(i)] for every i, one element at a time */
static void plan_loop(lw *w, dnode *ns, dnode *nd, bool unroll, plan_copy *p) {
  exctx *x = &w->ex;
  int64_t sz;
  bool ks = ex_is_const(ns->size, &sz);
  ex *i = ex_atom(x, PLAN_LOOP_INDEX, 0, ks ? sz - 1 : EX_INF);
  p->method = CP_LOOP, p->unroll = unroll;
  p->src.off = lw_localize(w, ty_offset_linear(&w->ty, ns, i), w->rg->at);
  p->dst.off = lw_localize(w, ty_offset_linear(&w->ty, nd, i), w->rg->at);
  p->count = lw_localize(w, ns->size, w->rg->at);
  if (p->nbound) loop_bound_digits(w, ns, i, p);
}

/* Each side's own modes (the common refinement of its local and process
 * layouts), for a distributed copy the runtime plans (false: none). */
static bool plan_split(lw *w, plan_copy *p, layout *const *ls) {
  plan_side *side[2] = {&p->dst, &p->src};
  for (int k = 0; k < 2; k++) {
    ex *shape[32], *st[32 * 2];
    int nm = lay_refine(&w->ty, ls + 2 * k, 2, shape, st, 32);
    if (nm < 0) return false;
    ex **v = arena_alloc(w->in.ar, sizeof *v * (size_t)(nm ? nm : 1) * 3);
    side[k]->nmodes = nm, side[k]->shape = v, side[k]->stride = v + nm, side[k]->proc_stride = v + 2 * nm;
    for (int m = 0; m < nm; m++) {
      v[m] = lw_localize(w, shape[m], w->rg->at);
      v[nm + m] = lw_localize(w, st[2 * m], w->rg->at);
      v[2 * nm + m] = lw_localize(w, st[2 * m + 1], w->rg->at);
    }
  }
  p->split = true;
  return true;
}

/* A distributed side's argument: its variable, alone or `v + offset`.
 * Returns where the offset starts (the variable's item when there is none),
 * NULL for anything else. */
static item *dist_var(items *a, item **v) {
  if (!a->n || a->first->kind != IT_TOK || a->first->tk != T_IDENT) return NULL;
  *v = a->first;
  if (a->n == 1) return a->first;
  item *plus = a->first->next;
  if (a->n < 3 || plus->kind != IT_TOK || plus->tk != T_PUNCT || plus->punct != '+') return NULL;
  return plus->next;
}

/* The variable a distributed side's name stands for: itself, or in a
 * #subprog instance the variable given for that parameter (NULL: the
 * argument is not a plain variable). */
static const char *dist_name(lw *w, item *id) {
  const char *r = w->inst ? lw_ident_replacement(w, id, LW_AS_WRITTEN) : NULL;
  if (!r) return lw_text(w, id->loc);
  size_t n = strlen(r);
  if (n < 3 || r[0] != '(' || r[n - 1] != ')') return NULL;
  for (size_t i = 1; i + 1 < n; i++)
    if (!(isalnum((unsigned char)r[i]) || r[i] == '_') || (i == 1 && isdigit((unsigned char)r[i]))) return NULL;
  return arena_printf(w->in.ar, "%.*s", (int)(n - 2), r + 1);
}

/* The sides of a distributed #copy: a distributed array by its variable, a
 * process-0 array by its pointer (a dmem one: a device pointer on process
 * 0); the device service is needed when a side is in device memory (false
 * after reporting). */
static bool dist_sides(lw *w, directive *d, plan_copy *p, dnode *const *side_n, items *const *side_a) {
  plan_side *side[2] = {&p->dst, &p->src};
  for (int k = 0; k < 2; k++) {
    side[k]->mem = side_n[k]->type->mem;
    if (side_n[k]->type->mpi_ref) {
      item *id = NULL;
      item *rest = dist_var(side_a[k], &id);
      const char *name = rest ? dist_name(w, id) : NULL;
      sym *s = name ? sc_find(&w->sc, name, strlen(name)) : NULL;
      if (!s || !s->created || !s->created->type->mpi_ref) {
        diag_error(w->in.dg, side_a[k]->n ? side_a[k]->first->loc : d->loc,
                   "'%s' is distributed: the #copy argument must be a variable given to its #create, or that "
                   "variable + an offset into every block", side_n[k]->path);
        return false;
      }
      side[k]->var = name;
      if (rest != side_a[k]->first) side[k]->base = lw_items_text(w, rest, side_a[k]->last);
    } else {
      if (side[k]->mem == MK_DMEM && !lw_caps(w)->device_mem) {
        diag_error(w->in.dg, d->loc, "#copy involving dmem (GPU) memory needs the CUDA target");
        return false;
      }
      side[k]->ptr = lw_list_text(w, side_a[k]);
    }
    if (side[k]->mem == MK_DMEM) p->service = lw_dev_service(w); /* staged on each process */
  }
  return true;
}

/* n is a side that spans processes. Inside an mpi detour a sub-array of a
 * distributed type whose every index is in one process's block (FIRST_1 of
 * [#P][4]: the process index does not vary over it) is that process's own
 * data: a copy through it is the process's own, over its local offsets. */
static bool dist_side(lw *w, dnode *n) {
  if (!n->type->mpi_ref) return false;
  if (w->rg->kind != RG_MPI) return true;
  layout *l = ty_proc_layout(&w->ty, n);
  if (!l) return true;
  for (int k = 0; k < l->nm; k++) {
    int64_t step, ext;
    bool still = ex_is_const(l->m[k].d, &step) && step == 0;
    if (!still && !(ex_is_const(l->m[k].n, &ext) && ext == 1)) return true;
  }
  return false;
}

/* #copy where a side is distributed: scatter, gather or redistribution */
static void copy_distributed(lw *w, item *it, dnode *ns, items *sa, dnode *nd, items *da, lw_record *out) {
  directive *d = it->dir;
  if (w->rg->kind != RG_HOST) {
    diag_error(w->in.dg, d->kw, "#copy of a distributed array is collective: it belongs in the host code of process 0");
    return;
  }
  plan_copy p = {.method = CP_DIST, .elem = ns->type->elem};
  dnode *side_n[2] = {nd, ns};
  items *side_a[2] = {da, sa};
  if (!dist_sides(w, d, &p, side_n, side_a)) return;
  layout *ls[4] = {ty_layout(&w->ty, nd), ty_proc_layout(&w->ty, nd), ty_layout(&w->ty, ns),
                   ty_proc_layout(&w->ty, ns)};
  ex *shape[32], *st[32 * 4];
  bool flat = ls[0] && ls[1] && ls[2] && ls[3];
  int nm = flat ? lay_refine(&w->ty, ls, 4, shape, st, 32) : -1;
  if (nm < 0) {
    /* the sides' splits do not nest: planned at run time */
    if (!flat) {
      diag_error(w->in.dg, d->loc, "#copy of a distributed array through offsets that are not a flat layout");
      return;
    }
    if (!plan_split(w, &p, ls)) {
      diag_error(w->in.dg, d->loc, "#copy between these distributions needs a split of dimensions that cannot be "
                 "proved at compile time");
      return;
    }
    w->entry.uses_mpi = true;
    p.site = lw_site(w, d->loc, lw_dir_text(w, it));
    lw_record_copy(out, it, &p);
    return;
  }
  w->entry.uses_mpi = true;
  ex **v = arena_alloc(w->in.ar, sizeof *v * (size_t)(nm ? nm : 1) * 5);
  p.nmodes = nm, p.shape = v;
  p.dst.stride = v + nm, p.dst.proc_stride = v + 2 * nm, p.src.stride = v + 3 * nm, p.src.proc_stride = v + 4 * nm;
  for (int m = 0; m < nm; m++) {
    p.shape[m] = lw_localize(w, shape[m], w->rg->at);
    for (int j = 0; j < 4; j++) v[(j + 1) * nm + m] = lw_localize(w, st[m * 4 + j], w->rg->at);
  }
  p.site = lw_site(w, d->loc, lw_dir_text(w, it));
  lw_record_copy(out, it, &p);
}

/* A #copy through type n of a variable created with another type must stay
 * inside what was allocated. */
static bool copy_fits(lw *w, dnode *n, items *arg, const char *verb) {
  loc vl;
  if (!lw_single_ident(arg, &vl)) return true;
  sym *s = sc_find(&w->sc, w->in.src->text + vl.b, vl.e - vl.b);
  if (!s || !s->created || s->created == n) return true;
  int64_t need, have;
  if (!ex_is_const(ty_footprint(&w->ty, n), &need) || !ex_is_const(ty_footprint(&w->ty, s->created), &have))
    return true;
  if (need <= have) return true;
  diag_error(w->in.dg, vl,
             "#copy %s %lld elements of '%.*s' through '%s', but it was created as '%s' with room for %lld", verb,
             (long long)need, (int)(vl.e - vl.b), w->in.src->text + vl.b, n->path, s->created->path, (long long)have);
  diag_note(w->in.dg, s->created_at, "created here");
  return false;
}

/* The same when a footprint is known only at run time: the copy checks it
 * (host code; a side checked is added to p->fit). */
static void copy_fits_at_run_time(lw *w, dnode *n, items *arg, const char *verb, plan_copy *p) {
  loc vl;
  if (!lw_single_ident(arg, &vl) || w->rg->kind == RG_CUDA) return;
  sym *s = sc_find(&w->sc, w->in.src->text + vl.b, vl.e - vl.b);
  if (!s || !s->created || s->created == n) return;
  ex *need = ty_footprint(&w->ty, n), *have = ty_footprint(&w->ty, s->created);
  int64_t k1, k2;
  if (ex_is_const(need, &k1) && ex_is_const(have, &k2)) return; /* checked by copy_fits */
  plan_fit *f = &p->fit[p->nfit++];
  f->need = lw_localize(w, need, w->rg->at), f->have = lw_localize(w, have, w->rg->at);
  f->msg = arena_printf(w->in.ar,
                        "#copy %s %%lld elements of '%.*s' through '%s', but it was created as '%s' (line %d) "
                        "with room for %%lld",
                        verb, (int)(vl.e - vl.b), w->in.src->text + vl.b, n->path, s->created->path,
                        src_line(w->in.src, s->created_at.b));
}

/* the element types and sizes of the two sides agree (false after reporting) */
static bool copy_sides_agree(lw *w, directive *d, dnode *ns, dnode *nd, items *sa, items *da) {
  if (!lw_copy_elems_agree(w, d, ns, nd)) return false;
  int64_t s1, s2;
  if (ex_is_const(ns->size, &s1) && ex_is_const(nd->size, &s2) && s1 != s2) {
    diag_error(w->in.dg, loc_span(d->name, d->copy.dst), "#copy size mismatch: '%s' has %lld elements, '%s' has %lld",
               ns->path, (long long)s1, nd->path, (long long)s2);
    return false;
  }
  return copy_fits(w, ns, sa, "reads") && copy_fits(w, nd, da, "writes");
}

/* a host-level copy: contiguous, strided over merged modes, or a loop
 * (false after reporting) */
static bool plan_host_copy(lw *w, directive *d, dnode *ns, dnode *nd, plan_copy *p) {
  p->count = lw_localize(w, ns->size, w->rg->at);
  if (ty_contiguous(&w->ty, ns) == 1 && ty_contiguous(&w->ty, nd) == 1) {
    p->method = CP_MEMCPY;
    return true;
  }
  layout *ls = ty_layout(&w->ty, ns), *ld = ty_layout(&w->ty, nd);
  ex *shape[32], *st[32 * 2]; /* st[2m]: the source's stride of mode m, st[2m + 1]: the destination's */
  int nj = (ls && ld) ? lay_refine2(&w->ty, ls, ld, shape, st, 32) : -1;
  if (nj < 0) {
    if (p->device) {
      diag_error(w->in.dg, d->loc, "#copy between these device layouts needs a split of dimensions that cannot be "
                 "proved at compile time");
      return false;
    }
    plan_loop(w, ns, nd, false, p);
    return true;
  }
  ex **v = arena_alloc(w->in.ar, sizeof *v * (size_t)(nj ? nj : 1) * 3);
  p->method = CP_STRIDED, p->nmodes = nj, p->shape = v, p->dst.stride = v + nj, p->src.stride = v + 2 * nj;
  for (int k = 0; k < nj; k++) {
    p->shape[k] = lw_localize(w, shape[k], w->rg->at);
    p->dst.stride[k] = lw_localize(w, st[2 * k + 1], w->rg->at);
    p->src.stride[k] = lw_localize(w, st[2 * k], w->rg->at);
  }
  return true;
}

void lw_copy(lw *w, item *it, lw_record *out) {
  directive *d = it->dir;
  if (d->bad) return;
  dnode *ns = lw_data_type(w, d->name), *nd = lw_data_type(w, d->copy.dst);
  if (!ns || !nd) return;
  items *sa, *da;
  if (lw_split_args(w, &d->args, &sa) != 1 || sa[0].n == 0) {
    diag_error(w->in.dg, d->argsloc.e > d->argsloc.b ? d->argsloc : d->loc, "#copy needs one source pointer");
    return;
  }
  if (lw_split_args(w, &d->copy.dargs, &da) != 1 || da[0].n == 0) {
    diag_error(w->in.dg, d->copy.dargsloc.e > d->copy.dargsloc.b ? d->copy.dargsloc : d->loc,
               "#copy needs one destination pointer");
    return;
  }
  if (d->copy.tma.has || d->copy.at.has) { /* a bulk tensor copy (lower_tma.c) */
    lw_copy_tma(w, it, ns, &sa[0], nd, &da[0], out);
    return;
  }
  if (!copy_sides_agree(w, d, ns, nd, &sa[0], &da[0])) return;
  bool device = ns->type->mem == MK_DMEM || nd->type->mem == MK_DMEM;
  bool per_thread = w->rg->kind == RG_CUDA || (w->rg->kind != RG_HOST && !device);
  if (d->copy.bound.has && (!per_thread || ns->type->mpi_ref || nd->type->mpi_ref)) {
    diag_error(w->in.dg, d->copy.bound.kw,
               "bound(...) applies to a thread's own #copy inside a detour (not a host copy "
               "or one involving device or distributed memory from a pthd or mpi body)");
    return;
  }
  if (dist_side(w, ns) || dist_side(w, nd)) {
    copy_distributed(w, it, ns, &sa[0], nd, &da[0], out);
    return;
  }
  plan_copy p = {.elem = ns->type->elem, .site = lw_site(w, d->loc, lw_dir_text(w, it))};
  if (d->copy.bound.has && !copy_bounds(w, d, ns, &p)) return;
  p.src = (plan_side){.ptr = lw_list_text(w, &sa[0]), .mem = ns->type->mem};
  p.dst = (plan_side){.ptr = lw_list_text(w, &da[0]), .mem = nd->type->mem};
  int64_t sz;
  bool k1 = ex_is_const(ns->size, &sz), k2 = ex_is_const(nd->size, &sz);
  if (!(k1 && k2)) {
    p.check_src = lw_localize(w, ns->size, w->rg->at);
    p.check_dst = lw_localize(w, nd->size, w->rg->at);
    if (!strcmp(ex_str(&w->ex, p.check_src, true), ex_str(&w->ex, p.check_dst, true)))
      p.check_src = p.check_dst = NULL; /* the same size, written the same way */
  }
  p.check_in_kernel = w->rg->kind == RG_CUDA;
  copy_fits_at_run_time(w, ns, &sa[0], "reads", &p);
  copy_fits_at_run_time(w, nd, &da[0], "writes", &p);
  if (w->rg->kind == RG_CUDA) { /* per thread, in a kernel: over the modes, in packs where it can */
    if (!plan_modes(w, ns, nd, &p)) plan_loop(w, ns, nd, k1, &p);
  } else if (per_thread) { /* per thread, in a pthd or mpi body */
    plan_loop(w, ns, nd, false, &p);
  } else { /* host code, a pthd or mpi body included: device memory through the CUDA runtime */
    p.device = device;
    if (p.device && !lw_caps(w)->device_mem) {
      diag_error(w->in.dg, d->loc, "#copy involving dmem (GPU) memory needs the CUDA target");
      return;
    }
    if (!plan_host_copy(w, d, ns, nd, &p)) return;
  }
  lw_record_copy(out, it, &p);
}
