/* SPDX-License-Identifier: Apache-2.0 */
/* lower_localtypes.c - the local types a detour body takes with it: a body
 * moves to a function of its own (a thread's, a process's, a kernel), out of
 * the function it was written in, so the types that function declared
 * before it (a typedef, a struct, union or enum with its enumerators) would
 * be unknown there. Each such declaration of the enclosing blocks that the
 * body uses, directly or through another, is copied to the start of the
 * moved body, in its order (docs/threads.md, "What travels into a detour
 * body"). */
#include "lower.h"
#include "lower_kinds.h"
#include "lower_localtypes.h"

#include <string.h>

struct lw_ltype {
  item *first, *last; /* the declaration statement */
  int depth, block;   /* the block it is in (live while that block is) */
  bool is_typedef;
  item *names[8];     /* a typedef's names */
  int nnames;
};

static bool is_ident(const item *it) { return it && it->kind == IT_TOK && it->tk == T_IDENT; }

/* a statement that only declares types: typedefs, or a struct, union or
 * enum definition without declarators */
void lw_local_type_note(lw *w, const cd_stmt *st, item *first) {
  if (!st->is_decl || w->fn_depth <= 0 || w->sc.depth < w->fn_depth || !first || !st->last) return;
  bool td = st->ndecls > 0 && st->decls[0].is_typedef, body = false;
  for (item *it = first; it && it != st->last; it = it->next)
    if (it->kind == IT_GROUP && it->grp->open == '{') body = true;
  if (!td && !(body && st->ndecls == 0)) return;
  if (w->nltypes == w->capltypes) {
    int n = w->capltypes ? 2 * w->capltypes : 16;
    lw_ltype *v = arena_alloc(w->in.ar, sizeof *v * (size_t)n);
    if (w->nltypes) memcpy(v, w->ltypes, sizeof *v * (size_t)w->nltypes);
    w->ltypes = v, w->capltypes = n;
  }
  lw_ltype *t = &w->ltypes[w->nltypes++];
  memset(t, 0, sizeof *t);
  t->first = first, t->last = st->last, t->depth = w->sc.depth, t->is_typedef = td;
  t->block = w->sc.depth < w->kb.cap ? w->kb.id[w->sc.depth] : -1;
  for (int i = 0; td && i < st->ndecls && t->nnames < 8; i++) t->names[t->nnames++] = st->decls[i].name;
}

/* ---- which the body needs ---------------------------------------------------- */

typedef struct idset {
  strmap m;
} idset;

static void add_idents(lw *w, idset *s, item *first, item *last) {
  for (item *it = first; it; it = it->next) {
    if (it->kind == IT_GROUP) add_idents(w, s, it->grp->body.first, NULL);
    else if (is_ident(it)) strmap_put(&s->m, w->in.src->text + it->loc.b, it->loc.e - it->loc.b, (void *)1);
    if (it == last) break;
  }
}

static bool uses(lw *w, const idset *s, item *first, item *last) {
  for (item *it = first; it; it = it->next) {
    if (it->kind == IT_GROUP && uses(w, s, it->grp->body.first, NULL)) return true;
    if (is_ident(it) && strmap_get(&s->m, w->in.src->text + it->loc.b, it->loc.e - it->loc.b)) return true;
    if (it == last) break;
  }
  return false;
}

static bool live(const lw *w, const lw_ltype *t) { return lw_block_live(w, t->depth, t->block); }

bool lw_local_type_named(lw *w, const char *name, size_t n) {
  for (int i = 0; i < w->nltypes; i++) {
    lw_ltype *t = &w->ltypes[i];
    if (!live(w, t)) continue;
    for (int k = 0; k < t->nnames; k++)
      if (t->names[k] && t->names[k]->loc.e - t->names[k]->loc.b == n &&
          !memcmp(w->in.src->text + t->names[k]->loc.b, name, n))
        return true;
    for (item *it = t->first; it && it != t->last; it = it->next) /* struct TAG { ... } */
      if (is_ident(it) && is_ident(it->next) && it->next->loc.e - it->next->loc.b == n &&
          !memcmp(w->in.src->text + it->next->loc.b, name, n)) {
        const char *k = w->in.src->text + it->loc.b;
        size_t kn = it->loc.e - it->loc.b;
        if (str_eq(k, kn, "struct") || str_eq(k, kn, "union") || str_eq(k, kn, "enum")) return true;
      }
  }
  return false;
}

char *lw_local_types_for(lw *w, item *body, const region *r) {
  if (!w->nltypes) return NULL;
  idset used;
  strmap_init(&used.m);
  add_idents(w, &used, body->grp->body.first, NULL);
  for (int i = 0; r && i < r->ncaps; i++) /* the types of captures cast in the body, or declared in it */
    if ((r->caps[i].use || r->caps[i].local) && r->caps[i].s->has_decl && r->caps[i].s->decl.spec_first)
      add_idents(w, &used, r->caps[i].s->decl.spec_first, r->caps[i].s->decl.spec_last);
  bool *need = arena_alloc(w->in.ar, sizeof *need * (size_t)w->nltypes);
  int any = 0;
  for (int i = w->nltypes - 1; i >= 0; i--) { /* later ones may use earlier ones */
    lw_ltype *t = &w->ltypes[i];
    need[i] = false;
    if (!live(w, t)) continue;
    if (t->is_typedef) {
      for (int k = 0; k < t->nnames && !need[i]; k++)
        need[i] = t->names[k] && strmap_get(&used.m, w->in.src->text + t->names[k]->loc.b,
                                            t->names[k]->loc.e - t->names[k]->loc.b);
    } else {
      need[i] = uses(w, &used, t->first, t->last);
    }
    if (need[i]) add_idents(w, &used, t->first, t->last), any++;
  }
  strmap_free(&used.m);
  if (!any) return NULL;
  sbuf b, u;
  sb_init(&b);
  sb_init(&u);
  for (int i = 0; i < w->nltypes; i++) {
    if (!need[i]) continue;
    sb_printf(&b, "%s ", lw_text(w, (loc){w->ltypes[i].first->loc.b, w->ltypes[i].last->loc.e}));
    /* the typedef stays where it was written, now maybe unused there */
    for (int k = 0; k < w->ltypes[i].nnames; k++)
      if (w->ltypes[i].names[k]) sb_printf(&u, "(void)sizeof(%s); ", lw_text(w, w->ltypes[i].names[k]->loc));
  }
  char *text = arena_strdup(w->in.ar, b.s);
  w->ltypes_used = u.s ? arena_strdup(w->in.ar, u.s) : NULL;
  sb_free(&b);
  sb_free(&u);
  return text;
}
