/* SPDX-License-Identifier: Apache-2.0 */
/* layout.c - offset functions of dimension nodes: flat layouts (concatenate,
 * compose with a stride-and-size selection, coalesce, common refinements of
 * several layouts over one index space), offset expressions for
 * linear and nested indices, footprints, contiguity, thread-index digits,
 * the number of processes of a distributed type and the `pac --layout`
 * viewer. Works on trees types.c built; types.c does not call back here. */
#include "types.h"

#include <string.h>

static layout *lay_new(tyctx *t, int nm) {
  layout *l = arena_alloc(t->ar, sizeof *l);
  l->m = arena_alloc(t->ar, sizeof *l->m * (size_t)(nm ? nm : 1));
  l->nm = nm;
  return l;
}

ex *lay_size(tyctx *t, const layout *l) {
  ex *s = ex_const(t->ex, 1);
  for (int i = 0; i < l->nm; i++) s = ex_mul(t->ex, s, l->m[i].n);
  return s;
}

layout *lay_concat(tyctx *t, layout **ls, int n) {
  int total = 0;
  for (int i = 0; i < n; i++) total += ls[i]->nm;
  layout *r = lay_new(t, total);
  int k = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < ls[i]->nm; j++) r->m[k++] = ls[i]->m[j];
  return r;
}

static bool is_one(ex *e) {
  int64_t v;
  return ex_is_const(e, &v) && v == 1;
}

layout *lay_coalesce(tyctx *t, const layout *l) {
  layout *r = lay_new(t, l->nm);
  int k = 0;
  for (int i = 0; i < l->nm; i++) {
    mode m = l->m[i];
    if (is_one(m.n) && l->nm > 1) continue;
    /* outer (r->m[k-1]) and inner (m) chain when d_outer == n_inner * d_inner */
    if (k > 0 && ex_equal(r->m[k - 1].d, ex_mul(t->ex, m.n, m.d))) {
      r->m[k - 1].n = ex_mul(t->ex, r->m[k - 1].n, m.n);
      r->m[k - 1].d = m.d;
      continue;
    }
    if (k > 0 && is_one(r->m[k - 1].n)) { /* only when the first mode had size 1 */
      r->m[k - 1] = m;
      continue;
    }
    r->m[k++] = m;
  }
  if (k == 0) r->m[k++] = (mode){ex_const(t->ex, 1), ex_const(t->ex, 0)};
  r->nm = k;
  return r;
}

layout *lay_compose(tyctx *t, const layout *l, ex *w, ex *s) {
  /* walk the modes innermost first */
  int nm = l->nm;
  mode *m = arena_alloc(t->ar, sizeof *m * (size_t)nm);
  memcpy(m, l->m, sizeof *m * (size_t)nm);
  int i = nm - 1; /* current (innermost remaining) mode */
  ex *rest = w;
  while (!is_one(rest)) {
    if (i == 0) { /* the outermost digit is unbounded: scale its stride */
      m[0].d = ex_mul(t->ex, m[0].d, rest);
      rest = ex_const(t->ex, 1);
      break;
    }
    ex *q;
    if ((q = ex_div_exact(t->ex, rest, m[i].n))) {
      rest = q;
      i--;
    } else if ((q = ex_div_exact(t->ex, m[i].n, rest))) {
      m[i].n = q;
      m[i].d = ex_mul(t->ex, m[i].d, rest);
      rest = ex_const(t->ex, 1);
    } else {
      return NULL;
    }
  }
  /* take s elements from mode i outwards */
  mode out[64];
  int no = 0;
  ex *rem = s;
  for (int j = i; j >= 0 && !is_one(rem); j--) {
    if (no == 64) return NULL;
    ex *q;
    if (j == 0) {
      out[no++] = (mode){rem, m[0].d};
      rem = ex_const(t->ex, 1);
    } else if ((q = ex_div_exact(t->ex, rem, m[j].n))) {
      out[no++] = m[j];
      rem = q;
    } else if (ex_div_exact(t->ex, m[j].n, rem)) {
      out[no++] = (mode){rem, m[j].d};
      rem = ex_const(t->ex, 1);
    } else {
      return NULL;
    }
  }
  layout *r = lay_new(t, no ? no : 1);
  if (!no) r->m[0] = (mode){ex_const(t->ex, 1), ex_const(t->ex, 0)};
  for (int k = 0; k < no; k++) r->m[k] = out[no - 1 - k];
  return r;
}

/* Refinements are built innermost first; turn modes 0..nm-1 (extents and k
 * strides each) around so that the outermost comes first. */
static void reverse_modes(ex **shape, ex **strides, int nm, int k) {
  for (int a = 0, b = nm - 1; a < b; a++, b--) {
    ex *t = shape[a];
    shape[a] = shape[b], shape[b] = t;
    for (int j = 0; j < k; j++) {
      ex *u = strides[a * k + j];
      strides[a * k + j] = strides[b * k + j], strides[b * k + j] = u;
    }
  }
}

int lay_refine2(tyctx *t, const layout *a, const layout *b, ex **shape, ex **strides, int max) {
  exctx *x = t->ex;
  if (a->nm < 1 || b->nm < 1) return -1;
  /* the innermost remaining part of a mode of each side: extent and stride */
  int i = a->nm - 1, j = b->nm - 1, k = 0;
  ex *ra = a->m[i].n, *rb = b->m[j].n, *sa = a->m[i].d, *sb = b->m[j].d;
  while (i >= 0 && j >= 0) {
    if (k == max) return -1;
    ex *q;
    if (ex_equal(ra, rb) || (i == 0 && j == 0)) {
      /* the same extent, or both outermost: one common mode */
      shape[k] = ra, strides[2 * k] = sa, strides[2 * k + 1] = sb, k++;
      if (--i >= 0) ra = a->m[i].n, sa = a->m[i].d;
      if (--j >= 0) rb = b->m[j].n, sb = b->m[j].d;
    } else if ((q = ex_div_exact(x, ra, rb))) {
      /* b's mode is the inner part of a's */
      shape[k] = rb, strides[2 * k] = sa, strides[2 * k + 1] = sb, k++;
      sa = ex_mul(x, sa, rb), ra = q;
      if (--j >= 0) rb = b->m[j].n, sb = b->m[j].d;
    } else if ((q = ex_div_exact(x, rb, ra))) {
      /* a's mode is the inner part of b's */
      shape[k] = ra, strides[2 * k] = sa, strides[2 * k + 1] = sb, k++;
      sb = ex_mul(x, sb, ra), rb = q;
      if (--i >= 0) ra = a->m[i].n, sa = a->m[i].d;
    } else {
      return -1;
    }
  }
  if (i >= 0 || j >= 0) return -1;
  reverse_modes(shape, strides, k, 2);
  return k;
}

/* The extent of the next common mode: the first remaining extent that
 * divides every other one (provably), or NULL. */
static ex *common_extent(exctx *x, ex **rem, int k) {
  for (int c = 0; c < k; c++) {
    bool ok = true;
    for (int j = 0; j < k && ok; j++) ok = ex_div_exact(x, rem[j], rem[c]) != NULL;
    if (ok) return rem[c];
  }
  return NULL;
}

int lay_refine(tyctx *t, layout *const *ls, int k, ex **shape, ex **strides, int max) {
  exctx *x = t->ex;
  if (k < 1) return -1;
  for (int j = 0; j < k; j++)
    if (ls[j]->nm < 1) return -1;
  /* per layout: its innermost remaining mode, and what is left of it */
  int *idx = arena_alloc(t->ar, sizeof *idx * (size_t)k);
  ex **rem = arena_alloc(t->ar, sizeof *rem * (size_t)k), **st = arena_alloc(t->ar, sizeof *st * (size_t)k);
  for (int j = 0; j < k; j++) idx[j] = ls[j]->nm - 1, rem[j] = ls[j]->m[idx[j]].n, st[j] = ls[j]->m[idx[j]].d;
  int nm = 0;
  for (;;) {
    bool done = true;
    for (int j = 0; j < k; j++) done &= idx[j] < 0;
    if (done) break;
    for (int j = 0; j < k; j++)
      if (idx[j] < 0) return -1;
    ex *m = common_extent(x, rem, k);
    if (!m || nm == max) return -1;
    shape[nm] = m;
    for (int j = 0; j < k; j++) {
      strides[nm * k + j] = st[j];
      ex *q = ex_div_exact(x, rem[j], m);
      int64_t one;
      if (ex_is_const(q, &one) && one == 1) {
        if (--idx[j] >= 0) rem[j] = ls[j]->m[idx[j]].n, st[j] = ls[j]->m[idx[j]].d;
      } else {
        rem[j] = q, st[j] = ex_mul(x, st[j], m);
      }
    }
    nm++;
  }
  reverse_modes(shape, strides, nm, k);
  return nm;
}

layout *ty_proc_layout(tyctx *t, dnode *n) {
  int saved = t->view;
  t->view = 1;
  layout *l = ty_layout(t, n);
  t->view = saved;
  return l;
}

/* The processes a distributed type spreads over: one past the largest
 * process index of its process layout (all its dimensions that reference an
 * mpi thread array count, not the first one only: [[#P_0][2]][[#P_1][2]]
 * spreads over all of P); a view of a distributed type has the process
 * layout of the type it references. */
ex *ty_nprocs(tyctx *t, dnode *n) {
  ptype *ty = n->type;
  if (!ty || !ty->mpi_ref) return ex_const(t->ex, 1);
  layout *l = ty_proc_layout(t, n);
  if (!l) return ty->mpi_ref->size;
  int64_t one;
  if (l->nm == 1 && ex_is_const(l->m[0].d, &one) && one == 1) return l->m[0].n;
  ex *span = ex_const(t->ex, 1);
  for (int k = 0; k < l->nm; k++)
    span = ex_add(t->ex, span, ex_mul(t->ex, ex_sub(t->ex, l->m[k].n, ex_const(t->ex, 1)), l->m[k].d));
  return span;
}

layout *ty_layout(tyctx *t, dnode *n) {
  int v = t->view;
  if (n->lay_done[v]) return n->lays[v];
  n->lay_done[v] = true; /* also guards against cycles */
  layout *l = NULL;
  if (ty_is_mpi_ref(n) && !n->derived && v) {
    /* selects the process: in the process view, the referenced node's offsets
     * within its mpi thread array (the process $tid$ numbers so: with
     * {mpi [2][2]} P, [#P_1] moves by 1 and [#P_0] by 2 wherever they stand) */
    t->view = 0;
    layout *r = ty_layout(t, n->ref);
    t->view = v;
    l = r && n->kind != DN_REF ? lay_compose(t, r, ex_const(t->ex, 1), n->size) : r;
  } else if (ty_is_mpi_ref(n) && !n->derived) {
    l = lay_new(t, 1); /* selects the process: no local offset */
    l->m[0] = (mode){n->size, ex_const(t->ex, 0)};
  } else if (n->type && n->type->thread != TK_DATA && v) {
    l = lay_new(t, 1);
    l->m[0] = (mode){n->size, ex_const(t->ex, 0)};
  } else if (n->derived && n->parent) {
    layout *p = ty_layout(t, n->parent);
    if (p) l = lay_compose(t, p, n->weight, n->size);
  } else {
    switch (n->kind) {
    case DN_LEAF:
      l = lay_new(t, 1);
      l->m[0] = (mode){n->size, v ? ex_const(t->ex, 0) : n->stride ? n->stride : ex_const(t->ex, 1)};
      break;
    case DN_COMP: {
      layout **ls = arena_alloc(t->ar, sizeof *ls * (size_t)(n->nkids ? n->nkids : 1));
      for (int j = 0; j < n->nkids; j++)
        if (!(ls[j] = ty_layout(t, n->kids[j]))) goto done;
      l = n->nkids ? lay_concat(t, ls, n->nkids) : NULL;
      break;
    }
    case DN_REF:
      l = ty_layout(t, n->ref);
      break;
    case DN_SREF:
    case DN_CREF: {
      layout *r = ty_layout(t, n->ref);
      if (r) l = lay_compose(t, r, ex_const(t->ex, 1), n->size);
      break;
    }
    }
  }
done:
  if (l) l = lay_coalesce(t, l);
  n->lays[v] = l;
  return l;
}

/* f_L(i) from a coalesced layout */
static ex *emit_layout(tyctx *t, const layout *l, ex *i) {
  exctx *x = t->ex;
  ex *sum = ex_const(x, 0), *w = ex_const(x, 1);
  for (int k = l->nm - 1; k >= 0; k--) {
    ex *digit = ex_div(x, i, w);
    if (k > 0) digit = ex_mod(x, digit, l->m[k].n);
    sum = ex_add(x, ex_mul(x, digit, l->m[k].d), sum);
    w = ex_mul(x, w, l->m[k].n);
  }
  return sum;
}

ex *ty_proc_linear(tyctx *t, dnode *n, ex *i) {
  layout *l = ty_proc_layout(t, n);
  return l ? emit_layout(t, l, i) : NULL;
}

ex *ty_offset_linear(tyctx *t, dnode *n, ex *i) {
  exctx *x = t->ex;
  layout *l = ty_layout(t, n);
  if (l) return emit_layout(t, l, i);
  /* the offset rules read literally (docs/language.md, "Offsets precisely") */
  if (n->derived && n->parent) return ty_offset_linear(t, n->parent, ex_mul(x, i, n->weight));
  switch (n->kind) {
  case DN_LEAF: return ex_mul(x, i, n->stride);
  case DN_REF:
  case DN_SREF:
  case DN_CREF: return ty_offset_linear(t, n->ref, i);
  case DN_COMP: break;
  }
  ex *sum = ex_const(x, 0);
  for (int j = 0; j < n->nkids; j++) {
    dnode *c = n->kids[j];
    ex *d = ex_div(x, i, c->weight);
    if (j > 0) d = ex_mod(x, d, c->size);
    sum = ex_add(x, sum, ty_offset_linear(t, c, ex_with_range(x, d, 0, d->hi)));
  }
  return sum;
}

/* linear index of a nested index list within node n */
static ex *linear_of(tyctx *t, dnode *n, ty_index *idx, int nidx) {
  exctx *x = t->ex;
  if (nidx == 1 && idx[0].e) return idx[0].e;
  ex *lin = ex_const(x, 0);
  for (int j = 0; j < nidx && j < n->nkids; j++) {
    dnode *c = n->kids[j];
    ex *lj = idx[j].e ? idx[j].e : linear_of(t, c, idx[j].sub, idx[j].nsub);
    lin = ex_add(x, lin, ex_mul(x, lj, c->weight));
  }
  return lin;
}

static bool additive(tyctx *t, dnode *n) {
  if (n->kind == DN_COMP && !n->derived) return true;
  /* a referencing node whose children split its flat layout exactly */
  if (!ty_layout(t, n)) return false;
  for (int j = 0; j < n->nkids; j++)
    if (!ty_layout(t, n->kids[j])) return false;
  return true;
}

ex *ty_offset_index(tyctx *t, dnode *n, ty_index *idx, int nidx, loc where) {
  if (nidx == 1 && idx[0].e) return ty_offset_linear(t, n, idx[0].e);
  if (nidx != n->nkids) {
    if (n->nkids == 0)
      diag_error(t->dg, where, "index has more brackets than the dimension tree has levels: '%s' has no "
                 "sub-dimensions", n->path);
    else
      diag_error(t->dg, where, "'%s' has %d dimension%s but %d indices were given", n->path, n->nkids,
                 n->nkids == 1 ? "" : "s", nidx);
    return NULL;
  }
  if (additive(t, n)) {
    ex *sum = ex_const(t->ex, 0);
    for (int j = 0; j < nidx; j++) {
      ex *o = idx[j].e ? ty_offset_linear(t, n->kids[j], idx[j].e)
                       : ty_offset_index(t, n->kids[j], idx[j].sub, idx[j].nsub, idx[j].loc);
      if (!o) return NULL;
      sum = ex_add(t->ex, sum, o);
    }
    return sum;
  }
  /* check the nesting before linearising */
  for (int j = 0; j < nidx; j++)
    if (!idx[j].e && idx[j].nsub != 1 && idx[j].nsub != n->kids[j]->nkids) {
      ty_offset_index(t, n->kids[j], idx[j].sub, idx[j].nsub, idx[j].loc); /* reports */
      return NULL;
    }
  return ty_offset_linear(t, n, linear_of(t, n, idx, nidx));
}

ex *ty_footprint(tyctx *t, dnode *n) {
  exctx *x = t->ex;
  layout *l = ty_layout(t, n);
  if (l) {
    ex *mx = ex_const(x, 1);
    for (int k = 0; k < l->nm; k++)
      mx = ex_add(x, mx, ex_mul(x, ex_sub(x, l->m[k].n, ex_const(x, 1)), l->m[k].d));
    return mx;
  }
  int64_t sz;
  if (ex_is_const(n->size, &sz) && sz <= (1 << 20)) {
    /* evaluate every offset */
    int64_t best = 0;
    for (int64_t i = 0; i < sz; i++) {
      ex *o = ty_offset_linear(t, n, ex_const(x, i));
      int64_t v;
      if (!ex_is_const(o, &v) || v == INT64_MAX) goto bound; /* best + 1 must fit */
      if (v > best) best = v;
    }
    return ex_const(x, best + 1);
  }
bound:
  /* an upper bound: every natural leaf at its largest digit */
  if (n->kind == DN_LEAF && !n->derived) return ex_add(x, ex_mul(x, ex_sub(x, n->size, ex_const(x, 1)), n->stride),
                                                      ex_const(x, 1));
  if (n->ref) return ty_footprint(t, n->ref);
  if (n->derived && n->parent) return ty_footprint(t, n->parent);
  ex *s = ex_const(x, 1);
  for (int j = 0; j < n->nkids; j++) s = ex_add(x, s, ex_sub(x, ty_footprint(t, n->kids[j]), ex_const(x, 1)));
  return s;
}

int ty_contiguous(tyctx *t, dnode *n) {
  layout *l = ty_layout(t, n);
  int64_t v;
  if (l) {
    if (l->nm == 1 && ex_is_const(l->m[0].d, &v) && v == 1) return 1;
    if (ex_is_const(n->size, &v) && v <= 1) return 1;
    if (l->nm == 1 && ex_is_const(l->m[0].n, &v) && v == 1) return 1;
    bool allconst = true;
    for (int k = 0; k < l->nm; k++)
      if (!ex_is_const(l->m[k].n, NULL) || !ex_is_const(l->m[k].d, NULL)) allconst = false;
    return allconst ? 0 : -1;
  }
  if (ex_is_const(n->size, &v) && v <= 4096) {
    for (int64_t i = 0; i < v; i++) {
      int64_t o;
      if (!ex_is_const(ty_offset_linear(t, n, ex_const(t->ex, i)), &o)) return -1;
      if (o != i) return 0;
    }
    return 1;
  }
  return -1;
}

ex *ty_last_stride(tyctx *t, dnode *p) {
  while (p->nkids > 0 && p->kind == DN_COMP) p = p->kids[p->nkids - 1];
  return p->stride ? p->stride : ex_const(t->ex, 1);
}

ex *ty_tid_digit(tyctx *t, dnode *p, ex *tid) {
  exctx *x = t->ex;
  ex *d = ex_div(x, tid, ty_last_stride(t, p));
  if (p->parent && !(p->parent->parent == NULL && p->pos == 0)) d = ex_mod(x, d, p->size);
  return d;
}
