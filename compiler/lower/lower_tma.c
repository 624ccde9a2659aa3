/* SPDX-License-Identifier: Apache-2.0 */
/* lower_tma.c - the bulk tensor copy of a cuda detour (docs/cuda.md, "Bulk
 * tensor copies"): `#copy A(a) at(i0, ...) to S(s) tma(bar)` moves the box
 * S-shaped at (i0, ...) of the dmem tensor A (whose base is the kernel
 * parameter a) into the smem array s through the tensor memory accelerator,
 * signalling the mbarrier bar. Checked here against what the accelerator
 * can do (each top-level dimension of A one stride, one of them contiguous;
 * S dense with that dimension innermost; boxes of at most 256, inner rows a
 * multiple of 16 bytes) and planned as a tensor map that the detour's
 * launch encodes on the host (recorded in the region, finished by
 * lower_detour.c) and a CP_TMA copy that names it. */
#include "lower.h"
#include "lower_dollar.h"
#include "lower_side.h"
#include "lower_tma.h"

#include <string.h>

enum { TMA_MAX_RANK = 5, TMA_MAX_BOX = 256 };

/* One top-level dimension of a type as a single stride: its extent and
 * stride (false: it is not one stride in memory, or has extent 1). */
static bool dim_mode(lw *w, dnode *n, layout *l, int k, ex **extent, ex **stride) {
  ex *sz = n->nkids ? n->kids[k]->size : n->size, *wt = n->nkids ? n->kids[k]->weight : ex_const(&w->ex, 1);
  layout *c = lay_compose(&w->ty, l, wt, sz);
  c = c ? lay_coalesce(&w->ty, c) : NULL;
  if (!c || c->nm != 1) return false;
  *extent = sz, *stride = c->m[0].d;
  return true;
}

/* The top-level dimensions of n, each one stride (false after reporting,
 * at `at`, the first that is not). */
static bool dims_of(lw *w, dnode *n, int rank, ex **extent, ex **stride, loc at) {
  for (int k = 0; k < rank; k++) {
    int64_t one;
    if (ex_is_const(n->nkids ? n->kids[k]->size : n->size, &one) && one == 1) {
      diag_error(w->in.dg, at, "dimension %d of '%s' has extent 1: a tma #copy needs a stride for every dimension; "
                 "leave it out of the type", k, n->path);
      return false;
    }
  }
  layout *l = ty_layout(&w->ty, n);
  layout *lg = l ? lw_logical_layout(w, n) : NULL;
  ex *shape[32], *st[64];
  layout *v[2] = {l, lg};
  if (!l || !lg || lay_refine(&w->ty, v, 2, shape, st, 32) < 0) {
    diag_error(w->in.dg, at, "a tma #copy needs '%s' to be a flat layout whose top-level dimensions are separate in "
               "memory", n->path);
    return false;
  }
  for (int k = 0; k < rank; k++)
    if (!dim_mode(w, n, l, k, &extent[k], &stride[k])) {
      diag_error(w->in.dg, at, "dimension %d of '%s' is not one stride in memory (a compound dimension cannot be a "
                 "dimension of a tensor map): make its parts top-level dimensions", k, n->path);
      return false;
    }
  return true;
}

/* The box: S's extents, constants of at most 256, S dense; perm[j] is the
 * dimension of S (and A) that is dimension j of the map, innermost first:
 * S's dimensions by increasing stride, then those of extent 1 (false after
 * reporting). */
static bool box_order(lw *w, directive *d, dnode *nd, int rank, int64_t *box, int *perm) {
  ex *ext[TMA_MAX_RANK], *st[TMA_MAX_RANK];
  int64_t s[TMA_MAX_RANK];
  layout *l = ty_layout(&w->ty, nd);
  for (int k = 0; k < rank; k++) {
    ex *sz = nd->nkids ? nd->kids[k]->size : nd->size;
    if (!ex_is_const(sz, &box[k]) || box[k] < 1 || box[k] > TMA_MAX_BOX) {
      diag_error(w->in.dg, d->copy.dst, "dimension %d of '%s' (the box) must be a constant from 1 to %d", k, nd->path,
                 TMA_MAX_BOX);
      return false;
    }
    s[k] = -1;
    if (box[k] > 1 && (!l || !dim_mode(w, nd, l, k, &ext[k], &st[k]) || !ex_is_const(st[k], &s[k]))) {
      diag_error(w->in.dg, d->copy.dst, "dimension %d of '%s' is not one stride in shared memory: the box is written "
                 "densely, dimension by dimension", k, nd->path);
      return false;
    }
  }
  int n = 0;
  for (int k = 0; k < rank; k++) /* insertion by stride; extent 1 last */
    if (s[k] >= 0) {
      int j = n++;
      while (j > 0 && s[perm[j - 1]] > s[k]) perm[j] = perm[j - 1], j--;
      perm[j] = k;
    }
  for (int k = 0; k < rank; k++)
    if (s[k] < 0) perm[n++] = k;
  int64_t want = 1;
  for (int j = 0; j < rank && s[perm[j]] >= 0; want *= box[perm[j]], j++)
    if (s[perm[j]] != want) {
      diag_error(w->in.dg, d->copy.dst, "'%s' is not dense: a tma #copy writes the box row by row, so its dimensions' "
                 "strides must be 1 and the products of the extents of those inside them", nd->path);
      return false;
    }
  return true;
}

/* A's strides against the map's order: its dimension perm[0] has stride 1,
 * the others (in bytes) multiples of 16 where pac knows them (else the
 * encode checks at run time); the inner row of the box a multiple of 16
 * bytes (false after reporting). */
static bool strides_fit(lw *w, directive *d, dnode *ns, int rank, ex **stride, const int64_t *box, const int *perm,
                        int64_t es) {
  int64_t v;
  if (!ex_is_const(stride[perm[0]], &v) || v != 1) {
    int one = -1;
    for (int k = 0; k < rank; k++)
      if (ex_is_const(stride[k], &v) && v == 1) one = k;
    if (one < 0)
      diag_error(w->in.dg, d->name, "no top-level dimension of '%s' has stride 1: the innermost dimension of a tensor "
                 "map must be contiguous", ns->path);
    else
      diag_error(w->in.dg, d->copy.dst,
                 "the innermost dimension of the box (dimension %d of the smem type) must be the "
                 "one with stride 1 in '%s' (dimension %d): the tensor map writes the box in that order",
                 perm[0], ns->path, one);
    return false;
  }
  for (int j = 1; j < rank; j++)
    if (ex_is_const(stride[perm[j]], &v) && (v * es) % 16) {
      diag_error(w->in.dg, d->name, "dimension %d of '%s' is %lld bytes apart: a tensor map's strides are multiples of "
                 "16 bytes", perm[j], ns->path, (long long)(v * es));
      return false;
    }
  if (box[perm[0]] * es % 16) {
    diag_error(w->in.dg, d->copy.dst,
               "the box's innermost row (dimension %d of the smem type) is %lld bytes: a tma #copy "
               "moves rows of a multiple of 16 bytes",
               perm[0], (long long)(box[perm[0]] * es));
    return false;
  }
  return true;
}

/* The kernel parameter that a names (its index; -1 after reporting). */
static int tensor_param(lw *w, directive *d, items *sa) {
  region *r = w->rg;
  loc vl;
  sym *s = lw_single_ident(sa, &vl) ? sc_find(&w->sc, w->in.src->text + vl.b, vl.e - vl.b) : NULL;
  if (s && s->is_param && s->region == r->id && r->cu && r->cu->walking)
    for (int i = 0; i < r->cu->params.ndecls; i++) {
      item *nm = r->cu->params.decls[i].name;
      if (nm->loc.e - nm->loc.b == vl.e - vl.b &&
          !memcmp(w->in.src->text + nm->loc.b, w->in.src->text + vl.b, vl.e - vl.b)) {
        if (s->is_pointer) return i;
        break;
      }
    }
  diag_error(w->in.dg, sa->n ? loc_span(sa->first->loc, sa->last->loc) : d->argsloc, "the tensor of a tma #copy must "
             "be a pointer parameter of the kernel of '%s' (a name in its cuda(...) list): the host builds the "
             "tensor map from the detour's argument for it before the launch", r->thread->name);
  return -1;
}

/* the sides: the region, the memory kinds, the element type and the ranks
 * (the rank, or 0 after reporting) */
static int tma_sides(lw *w, directive *d, dnode *ns, dnode *nd, int64_t *es) {
  if (!d->copy.tma.has || !d->copy.at.has || d->copy.bound.has) {
    loc at = d->copy.bound.has ? d->copy.bound.kw : d->copy.at.has ? d->copy.at.kw : d->copy.tma.kw;
    diag_error(w->in.dg, at,
               d->copy.bound.has ? "bound(...) and at(...) do not go together: at(...) gives the box of a tma "
                                   "#copy, which fills what lies outside the tensor with zeros"
               : d->copy.at.has  ? "at(...) gives the box of a "
                                   "bulk tensor copy: add tma(BARRIER) after the destination"
                                 : "a tma #copy needs at(i0, ...) after the "
                                   "source: the index in it of the box's first element");
    return 0;
  }
  if (w->rg->kind != RG_CUDA || !lw_caps(w)->tma) {
    diag_error(w->in.dg, d->copy.tma.kw,
               "a tma #copy (the tensor memory accelerator) is made by a thread of a cuda detour, "
               "inside its body");
    return 0;
  }
  if (ns->type->mem != MK_DMEM || ns->type->mpi_ref || nd->type->mem != MK_SMEM) {
    bool src = ns->type->mem != MK_DMEM || ns->type->mpi_ref;
    diag_error(w->in.dg, src ? d->name : d->copy.dst,
               src ? "a tma #copy reads a dmem type (not distributed); '%s' is %s"
                   : "a tma #copy writes an smem type; '%s' is %s",
               src ? ns->path : nd->path, ty_mem_name(src ? ns->type->mem : nd->type->mem));
    return 0;
  }
  if (!lw_copy_elems_agree(w, d, ns, nd)) return 0;
  *es = lw_elem_bytes(w, ns->type->elem);
  if (*es != 1 && *es != 2 && *es != 4 && *es != 8) {
    diag_error(w->in.dg, d->name, "a tma #copy moves elements of 1, 2, 4 or 8 bytes; pac does not know '%s' as one",
               ns->type->elem);
    return 0;
  }
  int rank = ns->nkids ? ns->nkids : 1, rs = nd->nkids ? nd->nkids : 1;
  if (rank > TMA_MAX_RANK) {
    diag_error(w->in.dg, d->name, "'%s' has %d top-level dimensions: a tensor map has at most %d", ns->path, rank,
               TMA_MAX_RANK);
    return 0;
  }
  if (rank != rs) {
    diag_error(w->in.dg, d->copy.dst,
               "the box '%s' needs one top-level dimension per top-level dimension of '%s' (%d), "
               "not %d",
               nd->path, ns->path, rank, rs);
    return 0;
  }
  return rank;
}

/* at(...): one coordinate per dimension of A, in the map's order; tma(bar):
 * one lvalue (false after reporting) */
static bool tma_operands(lw *w, directive *d, int rank, const int *perm, plan_copy *p) {
  items *a, *b;
  int n = d->copy.at.args.n ? lw_split_args(w, &d->copy.at.args, &a) : 0;
  bool empty = false;
  for (int k = 0; k < n; k++) empty |= !a[k].n;
  if (n != rank || empty) {
    if (empty)
      diag_error(w->in.dg, d->copy.at.args.n ? d->copy.at.argsloc : d->copy.at.kw, "empty index in at(...)");
    else
      diag_error(w->in.dg, d->copy.at.args.n ? d->copy.at.argsloc : d->copy.at.kw,
                 "at(...) needs one index per top-level dimension of the "
                 "tensor: %d, not %d",
                 rank, n);
    return false;
  }
  if (lw_split_args(w, &d->copy.tma.args, &b) != 1 || !b[0].n) {
    diag_error(w->in.dg, d->copy.tma.args.n ? d->copy.tma.argsloc : d->copy.tma.kw,
               "tma(...) names one mbarrier (a uint64_t in shared memory) "
               "that the copy signals");
    return false;
  }
  p->tma_coord = arena_alloc(w->in.ar, sizeof *p->tma_coord * (size_t)rank);
  for (int j = 0; j < rank; j++) p->tma_coord[j] = lw_list_text(w, &a[perm[j]]);
  p->tma_bar = lw_list_text(w, &b[0]);
  p->tma_rank = rank;
  return true;
}

/* The names the tma #copies in items (nested blocks included) write to,
 * added to the region's tma_smem: an smem array the body creates under one
 * of them is declared 128-byte aligned (lower_mem.c), as the accelerator
 * requires. Found before the body is walked, because its #create comes
 * first. */
static void tma_dests(lw *w, item *it, region *r) {
  for (; it; it = it->next) {
    if (it->kind == IT_GROUP) tma_dests(w, it->grp->body.first, r);
    if (it->kind != IT_DIR || it->dir->kind != D_COPY || !it->dir->copy.tma.has) continue;
    loc vl;
    if (!lw_single_ident(&it->dir->copy.dargs, &vl) || lw_tma_dest(r, w->in.src->text + vl.b, vl.e - vl.b)) continue;
    r->cu->tma_smem = arena_grow1(w->in.ar, r->cu->tma_smem, (size_t)r->cu->ntma_smem, sizeof *r->cu->tma_smem);
    r->cu->tma_smem[r->cu->ntma_smem++] = lw_text(w, vl);
  }
}

void lw_tma_prescan(lw *w, item *body, region *r) { tma_dests(w, body->grp->body.first, r); }

bool lw_tma_dest(const region *r, const char *name, size_t n) {
  if (!r->cu) return false;
  for (int i = 0; i < r->cu->ntma_smem; i++)
    if (strlen(r->cu->tma_smem[i]) == n && !memcmp(r->cu->tma_smem[i], name, n)) return true;
  return false;
}

/* the region's new tensor map (dims and strides not yet localized) */
static plan_tmap *add_tmap(lw *w, int arg) {
  region *r = w->rg;
  r->cu->tmaps = arena_grow1(w->in.ar, r->cu->tmaps, (size_t)r->cu->ntmaps, sizeof *r->cu->tmaps);
  r->cu->tmap_arg = arena_grow1(w->in.ar, r->cu->tmap_arg, (size_t)r->cu->ntmaps, sizeof *r->cu->tmap_arg);
  r->cu->tmap_arg[r->cu->ntmaps] = arg;
  return &r->cu->tmaps[r->cu->ntmaps++];
}

void lw_copy_tma(lw *w, item *it, dnode *ns, items *sa, dnode *nd, items *da, lw_record *out) {
  directive *d = it->dir;
  int64_t es = 0, box[TMA_MAX_RANK] = {0};
  int perm[TMA_MAX_RANK] = {0}; /* (all set by box_order; zeroed for the optimiser's flow analysis) */
  ex *ext[TMA_MAX_RANK] = {0}, *st[TMA_MAX_RANK] = {0};
  int rank = tma_sides(w, d, ns, nd, &es);
  if (!rank) return;
  int arg = tensor_param(w, d, sa);
  if (arg < 0 || !dims_of(w, ns, rank, ext, st, d->name) || !box_order(w, d, nd, rank, box, perm) ||
      !strides_fit(w, d, ns, rank, st, box, perm, es))
    return;
  plan_copy p = {.method = CP_TMA, .elem = ns->type->elem, .site = lw_site(w, d->loc, lw_dir_text(w, it))};
  if (!tma_operands(w, d, rank, perm, &p)) return;
  p.dst = (plan_side){.ptr = lw_list_text(w, da), .mem = MK_SMEM};
  p.tma_bytes = es, p.elem_bytes = es;
  for (int k = 0; k < rank; k++) p.tma_bytes *= box[k];
  plan_tmap *m = add_tmap(w, arg);
  m->name = lw_fresh_name(w, "tma", ns->path, d->loc);
  m->elem = ns->type->elem, m->rank = rank, m->site = p.site;
  m->dims = arena_alloc(w->in.ar, sizeof *m->dims * (size_t)rank * 2), m->strides = m->dims + rank;
  m->box = arena_alloc(w->in.ar, sizeof *m->box * (size_t)rank);
  for (int j = 0; j < rank; j++) m->dims[j] = ext[perm[j]], m->strides[j] = st[perm[j]], m->box[j] = box[perm[j]];
  p.tma_map = m->name;
  w->entry.uses_tma = true;
  lw_record_copy(out, it, &p);
}
