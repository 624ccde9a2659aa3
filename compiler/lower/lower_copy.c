/* lower_copy.c - #copy (docs/language.md, Copies): checked here and planned
 * as a per-element loop inside detours (and where no flat layout exists),
 * a contiguous copy, a strided copy over the modes of a common refinement
 * of the two layouts (merged dimensions, outermost first), or, when a side
 * is distributed, a scatter, gather or redistribution over the local and
 * process layouts of both sides (planned at run time when their splits do
 * not nest). */
#include "lower.h"

#include <string.h>

static bool same_elem(const char *a, const char *b) {
  /* compare ignoring white space differences */
  for (;;) {
    while (*a == ' ' || *a == '\t' || *a == '\n') a++;
    while (*b == ' ' || *b == '\t' || *b == '\n') b++;
    if (*a != *b) return false;
    if (!*a) return true;
    a++, b++;
  }
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
}

/* Each side's own modes (the common refinement of its local and process
 * layouts), for a distributed copy the runtime plans (false: none). */
static bool plan_split(lw *w, plan_copy *p, layout *const *ls) {
  plan_side *side[2] = {&p->dst, &p->src};
  for (int k = 0; k < 2; k++) {
    ex *shape[32], *st[32 * 2];
    int nm = lay_refine(&w->ty, ls + 2 * k, 2, shape, st, 32);
    if (nm < 0) return false;
    ex **v = arena_alloc(w->ar, sizeof *v * (size_t)(nm ? nm : 1) * 3);
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

/* The sides of a distributed #copy: a distributed array by its variable, a
 * process-0 array by its pointer (a dmem one: a device pointer on process
 * 0); the device service is needed when a side is in device memory (false
 * after reporting). */
static bool dist_sides(lw *w, directive *d, plan_copy *p, dnode *const *side_n, items *const *side_a) {
  plan_side *side[2] = {&p->dst, &p->src};
  for (int k = 0; k < 2; k++) {
    side[k]->mem = side_n[k]->type->mem;
    if (side_n[k]->type->mpi_ref) {
      loc vl;
      sym *s = lw_single_ident(side_a[k], &vl) ? sc_find(&w->sc, w->src->text + vl.b, vl.e - vl.b) : NULL;
      if (!s || !s->created || !s->created->type->mpi_ref) {
        diag_error(w->dg, side_a[k]->n ? side_a[k]->first->loc : d->loc,
                   "'%s' is distributed: the #copy argument must be a variable given to its #create", side_n[k]->path);
        return false;
      }
      side[k]->var = lw_text(w, vl);
    } else {
      if (side[k]->mem == MK_DMEM && w->target != TARGET_CUDA) {
        diag_error(w->dg, d->loc, "#copy involving dmem (GPU) memory needs the CUDA target");
        return false;
      }
      side[k]->ptr = lw_list_text(w, side_a[k]);
    }
    if (side[k]->mem == MK_DMEM) p->service = lw_dev_service(w); /* staged on each process */
  }
  return true;
}

/* #copy where a side is distributed: scatter, gather or redistribution */
static void copy_distributed(lw *w, item *it, dnode *ns, items *sa, dnode *nd, items *da) {
  directive *d = it->dir;
  if (w->rg->kind != RG_HOST) {
    diag_error(w->dg, d->kw, "#copy of a distributed array is collective: it belongs in the host code of process 0");
    return;
  }
  plan_copy p = {.method = CP_DIST, .elem = ns->type->elem};
  dnode *side_n[2] = {nd, ns};
  items *side_a[2] = {da, sa};
  if (!dist_sides(w, d, &p, side_n, side_a)) return;
  layout *ls[4] = {ty_layout(&w->ty, nd), ty_proc_layout(&w->ty, nd), ty_layout(&w->ty, ns), ty_proc_layout(&w->ty, ns)};
  ex *shape[32], *st[32 * 4];
  bool flat = ls[0] && ls[1] && ls[2] && ls[3];
  int nm = flat ? lay_refine(&w->ty, ls, 4, shape, st, 32) : -1;
  if (nm < 0) {
    /* the sides' splits do not nest: planned at run time */
    if (!flat) {
      diag_error(w->dg, d->loc, "#copy of a distributed array through offsets that are not a flat layout");
      return;
    }
    if (!plan_split(w, &p, ls)) {
      diag_error(w->dg, d->loc, "#copy between these distributions needs a split of dimensions that cannot be "
                 "proved at compile time");
      return;
    }
    w->entry.uses_mpi = true;
    p.site = lw_site(w, d->loc, lw_dir_text(w, it));
    lw_replace_dir(w, it, w->em.ops->copy(&w->em, &p));
    return;
  }
  w->entry.uses_mpi = true;
  ex **v = arena_alloc(w->ar, sizeof *v * (size_t)(nm ? nm : 1) * 5);
  p.nmodes = nm, p.shape = v;
  p.dst.stride = v + nm, p.dst.proc_stride = v + 2 * nm, p.src.stride = v + 3 * nm, p.src.proc_stride = v + 4 * nm;
  for (int m = 0; m < nm; m++) {
    p.shape[m] = lw_localize(w, shape[m], w->rg->at);
    for (int j = 0; j < 4; j++) v[(j + 1) * nm + m] = lw_localize(w, st[m * 4 + j], w->rg->at);
  }
  p.site = lw_site(w, d->loc, lw_dir_text(w, it));
  lw_replace_dir(w, it, w->em.ops->copy(&w->em, &p));
}

/* A #copy through type n of a variable created with another type must stay
 * inside what was allocated. */
static bool copy_fits(lw *w, dnode *n, items *arg, const char *verb) {
  loc vl;
  if (!lw_single_ident(arg, &vl)) return true;
  sym *s = sc_find(&w->sc, w->src->text + vl.b, vl.e - vl.b);
  if (!s || !s->created || s->created == n) return true;
  int64_t need, have;
  if (!ex_is_const(ty_footprint(&w->ty, n), &need) || !ex_is_const(ty_footprint(&w->ty, s->created), &have))
    return true;
  if (need <= have) return true;
  diag_error(w->dg, vl, "#copy %s %lld elements of '%.*s' through '%s', but it was created as '%s' with room for %lld",
             verb, (long long)need, (int)(vl.e - vl.b), w->src->text + vl.b, n->path, s->created->path,
             (long long)have);
  diag_note(w->dg, s->created_at, "created here");
  return false;
}

/* the element types and sizes of the two sides agree (false after reporting) */
static bool copy_sides_agree(lw *w, directive *d, dnode *ns, dnode *nd, items *sa, items *da) {
  if (!same_elem(ns->type->elem, nd->type->elem)) {
    diag_error(w->dg, loc_span(d->name, d->name2), "#copy between different element types: '%s' has %s, '%s' has %s",
               ns->path, ns->type->elem, nd->path, nd->type->elem);
    return false;
  }
  int64_t s1, s2;
  if (ex_is_const(ns->size, &s1) && ex_is_const(nd->size, &s2) && s1 != s2) {
    diag_error(w->dg, loc_span(d->name, d->name2), "#copy size mismatch: '%s' has %lld elements, '%s' has %lld",
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
      diag_error(w->dg, d->loc, "#copy between these device layouts needs a split of dimensions that cannot be "
                 "proved at compile time");
      return false;
    }
    plan_loop(w, ns, nd, false, p);
    return true;
  }
  ex **v = arena_alloc(w->ar, sizeof *v * (size_t)(nj ? nj : 1) * 3);
  p->method = CP_STRIDED, p->nmodes = nj, p->shape = v, p->dst.stride = v + nj, p->src.stride = v + 2 * nj;
  for (int k = 0; k < nj; k++) {
    p->shape[k] = lw_localize(w, shape[k], w->rg->at);
    p->dst.stride[k] = lw_localize(w, st[2 * k + 1], w->rg->at);
    p->src.stride[k] = lw_localize(w, st[2 * k], w->rg->at);
  }
  return true;
}

void lw_copy(lw *w, item *it) {
  directive *d = it->dir;
  if (d->bad) return;
  dnode *ns = lw_data_type(w, d->name), *nd = lw_data_type(w, d->name2);
  if (!ns || !nd) return;
  items *sa, *da;
  if (lw_split_args(w, &d->args, &sa) != 1 || sa[0].n == 0) {
    diag_error(w->dg, d->argsloc.e > d->argsloc.b ? d->argsloc : d->loc, "#copy needs one source pointer");
    return;
  }
  if (lw_split_args(w, &d->args2, &da) != 1 || da[0].n == 0) {
    diag_error(w->dg, d->args2loc.e > d->args2loc.b ? d->args2loc : d->loc, "#copy needs one destination pointer");
    return;
  }
  if (!copy_sides_agree(w, d, ns, nd, &sa[0], &da[0])) return;
  if (ns->type->mpi_ref || nd->type->mpi_ref) {
    copy_distributed(w, it, ns, &sa[0], nd, &da[0]);
    return;
  }
  plan_copy p = {.elem = ns->type->elem, .site = lw_site(w, d->loc, lw_dir_text(w, it))};
  p.src = (plan_side){.ptr = lw_list_text(w, &sa[0]), .mem = ns->type->mem};
  p.dst = (plan_side){.ptr = lw_list_text(w, &da[0]), .mem = nd->type->mem};
  int64_t sz;
  bool k1 = ex_is_const(ns->size, &sz), k2 = ex_is_const(nd->size, &sz);
  if (!(k1 && k2)) {
    p.check_src = lw_localize(w, ns->size, w->rg->at);
    p.check_dst = lw_localize(w, nd->size, w->rg->at);
  }
  bool device = ns->type->mem == MK_DMEM || nd->type->mem == MK_DMEM;
  if (w->rg->kind == RG_CUDA || (w->rg->kind != RG_HOST && !device)) {
    plan_loop(w, ns, nd, w->rg->kind == RG_CUDA && k1, &p); /* per thread, inside a detour */
  } else { /* host code, a pthd or mpi body included: device memory through the CUDA runtime */
    p.device = device;
    if (p.device && w->target != TARGET_CUDA) {
      diag_error(w->dg, d->loc, "#copy involving dmem (GPU) memory needs the CUDA target");
      return;
    }
    if (!plan_host_copy(w, d, ns, nd, &p)) return;
  }
  lw_replace_dir(w, it, w->em.ops->copy(&w->em, &p));
}
