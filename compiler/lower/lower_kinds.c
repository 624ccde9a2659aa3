/* SPDX-License-Identifier: Apache-2.0 */
/* lower_kinds.c - where a variable's memory may be, along the paths the
 * program can take: for each variable, the set of memory kinds it may point
 * to at the current point of the walk (the kinds of the #create that reach
 * it, or "unknown": never created, destroyed, assigned, its address taken),
 * with for each kind the #create it comes from. A #create replaces the set
 * in straight-line code and adds to it where it runs only sometimes (the
 * body of an if or a loop without braces, a switch block with case
 * labels); a block's sets join the enclosing block's at its end (the block
 * may not run, or be one branch of several); a loop body starts from what
 * the body itself creates or forgets, as its later iterations do. Users:
 * the wait of a cuda detour (skipped only when every path makes its
 * pointers device memory), host uses of device memory, #destroy's kind
 * (docs/language.md, "Storage"). */
#include "lower.h"
#include "lower_kinds.h"

#include <string.h>

/* One block's view of a variable: frames stack from inner blocks outwards. */
struct lw_kframe {
  int depth, block; /* the scope depth and the block's serial number */
  unsigned set;     /* 1 << MK_*, and LW_KIND_UNKNOWN */
  dnode *node[LW_NKINDS];
  loc at[LW_NKINDS];
  lw_kframe *up;
};

bool lw_block_live(const lw *w, int depth, int block) {
  return depth <= w->sc.depth && depth < w->kb.cap && w->kb.id[depth] == block;
}

static bool frame_live(const lw *w, const lw_kframe *f) { return lw_block_live(w, f->depth, f->block); }

/* s's current frame (NULL: unknown everywhere); frames of blocks that ended
 * were joined when they ended (lw_scope_pop) */
static lw_kframe *top(lw *w, sym *s) {
  while (s->kinds && !frame_live(w, s->kinds)) s->kinds = s->kinds->up;
  return s->kinds;
}

static void note_touch(lw *w, sym *s) {
  if (w->kb.ntouch == w->kb.captouch) {
    int n = w->kb.captouch ? 2 * w->kb.captouch : 64;
    sym **t = arena_alloc(w->in.ar, sizeof *t * (size_t)n);
    if (w->kb.ntouch) memcpy(t, w->kb.touch, sizeof *t * (size_t)w->kb.ntouch);
    w->kb.touch = t, w->kb.captouch = n;
  }
  w->kb.touch[w->kb.ntouch++] = s;
}

/* the frame of the current block for s, made from the enclosing state */
static lw_kframe *here(lw *w, sym *s) {
  lw_kframe *t = top(w, s);
  int d = w->sc.depth;
  if (t && t->depth == d) return t;
  lw_kframe *f = arena_alloc(w->in.ar, sizeof *f);
  memset(f, 0, sizeof *f);
  f->depth = d, f->block = d < w->kb.cap ? w->kb.id[d] : -1;
  f->set = t ? t->set : LW_KIND_UNKNOWN;
  if (t) memcpy(f->node, t->node, sizeof f->node), memcpy(f->at, t->at, sizeof f->at);
  f->up = t;
  s->kinds = f;
  note_touch(w, s);
  return f;
}

/* g gets what f may have too */
static void join(lw_kframe *g, const lw_kframe *f) {
  g->set |= f->set;
  for (int k = 0; k < LW_NKINDS; k++)
    if (f->node[k] && !g->node[k]) g->node[k] = f->node[k], g->at[k] = f->at[k];
}

/* g becomes exactly f's state */
static void assign(lw_kframe *g, const lw_kframe *f) {
  g->set = f->set;
  memcpy(g->node, f->node, sizeof g->node), memcpy(g->at, f->at, sizeof g->at);
}

enum { KB_PLAIN, KB_THEN, KB_ELSE };

void lw_scope_push(lw *w) {
  sc_push(&w->sc);
  int d = w->sc.depth;
  if (d >= w->kb.cap) {
    int n = w->kb.cap ? 2 * w->kb.cap : 32;
    while (n <= d) n *= 2;
    int *id = arena_alloc(w->in.ar, sizeof *id * (size_t)n), *mark = arena_alloc(w->in.ar, sizeof *mark * (size_t)n);
    int *kind = arena_alloc(w->in.ar, sizeof *kind * (size_t)n);
    const char **key = arena_alloc(w->in.ar, sizeof *key * (size_t)n);
    struct cond_rec **kid = arena_alloc(w->in.ar, sizeof *kid * (size_t)n);
    memset(id, -1, sizeof *id * (size_t)n);
    memset(kind, 0, sizeof *kind * (size_t)n);
    memset(key, 0, sizeof *key * (size_t)n);
    memset(kid, 0, sizeof *kid * (size_t)n);
    if (w->kb.cap) {
      memcpy(id, w->kb.id, sizeof *id * (size_t)w->kb.cap), memcpy(mark, w->kb.mark, sizeof *mark * (size_t)w->kb.cap);
      memcpy(kind, w->kb.kind, sizeof *kind * (size_t)w->kb.cap), memcpy(key, w->kb.key, sizeof *key * (size_t)w->kb.cap);
      memcpy(kid, w->kb.key_ids, sizeof *kid * (size_t)w->kb.cap);
    }
    w->kb.id = id, w->kb.mark = mark, w->kb.kind = kind, w->kb.key = key, w->kb.key_ids = kid, w->kb.cap = n;
  }
  w->kb.id[d] = ++w->kb.serial;
  w->kb.mark[d] = w->kb.ntouch;
  w->kb.kind[d] = KB_PLAIN;
  w->kb.key[d] = NULL;
}

static void add_pending(lw *w, sym *s, lw_kframe *f) {
  if (w->kb.npending == w->kb.cappending) {
    int n = w->kb.cappending ? 2 * w->kb.cappending : 16;
    lw_kpending *p = arena_alloc(w->in.ar, sizeof *p * (size_t)n);
    if (w->kb.npending) memcpy(p, w->kb.pending, sizeof *p * (size_t)w->kb.npending);
    w->kb.pending = p, w->kb.cappending = n;
  }
  w->kb.pending[w->kb.npending++] = (lw_kpending){s, f};
}

static const lw_kframe *pending_of(const lw *w, const sym *s) {
  for (int i = 0; i < w->kb.npending; i++)
    if (w->kb.pending[i].s == s) return w->kb.pending[i].f;
  return NULL;
}

static void drop_pending(lw *w, const sym *s) {
  for (int i = 0; i < w->kb.npending; i++)
    if (w->kb.pending[i].s == s) w->kb.pending[i].s = NULL;
}

/* ---- ifs with the same condition ------------------------------------------------
 * `if (c) { #create PH(b) } else { #create D(b) } ... if (c) { #destroy PH(b) }
 * else { #destroy D(b) }`: the second if takes the branch the first took, so
 * each of its blocks starts from the state at the end of the first if's
 * block of the same side. Only where that is sure: the condition's text is
 * the same, it reads only local variables (no call, no memory through a
 * pointer or index, no assignment), none of them written or its address
 * taken since, in the same function, and the variables' kinds unchanged
 * since the first if ended. */

#define COND_MAXIDS 8

typedef struct cond_rec {
  const char *key;
  int fn_depth, fn_block;
  int nid;
  sym *ids[COND_MAXIDS];
  int writes[COND_MAXIDS];
  int nvar, capvar;
  sym **vars;
  int *kver;
  lw_kframe *side[2]; /* per variable: the state at the end of the then- and else-block */
  const struct cond_rec *found; /* an if being walked: the earlier if with its condition (NULL: none) */
} cond_rec;

static bool punct(const item *it, int p) { return it && it->kind == IT_TOK && it->tk == T_PUNCT && it->punct == p; }

/* the condition's tokens as one string, NULL where it is not one the rule covers */
static bool cond_tokens(lw *w, const items *list, sbuf *b, cond_rec *r) {
  const item *prev = NULL;
  ITEMS_FOREACH(it, *list) {
    if (it->kind == IT_GROUP) {
      if (it->grp->open != '(' || (prev && prev->kind == IT_TOK && prev->tk == T_IDENT)) return false; /* a call, an index */
      sb_puts(b, "( ");
      if (!cond_tokens(w, &it->grp->body, b, r)) return false;
      sb_puts(b, ") ");
    } else if (it->kind == IT_TOK) {
      if (it->tk == T_STRING || punct(it, '=') || punct(it, P_ASSIGNOP) || punct(it, P_INC) || punct(it, P_DEC) ||
          punct(it, '*') || punct(it, '.') || punct(it, P_ARROW) || punct(it, '&'))
        return false;
      if (it->tk == T_IDENT) {
        sym *s = sc_find(&w->sc, w->in.src->text + it->loc.b, it->loc.e - it->loc.b);
        if (!s || (s->kind != SYM_ENUMC && (s->kind != SYM_VAR || s->depth <= 0 || s->addr_taken || s->is_array)))
          return false;
        if (s->kind == SYM_VAR) {
          if (r->nid == COND_MAXIDS) return false;
          r->ids[r->nid] = s, r->writes[r->nid++] = s->writes;
        }
      }
      sb_printf(b, "%.*s ", (int)(it->loc.e - it->loc.b), w->in.src->text + it->loc.b);
    } else {
      return false; /* $...$, a directive */
    }
    prev = it;
  }
  return true;
}

static const char *cond_key(lw *w, const item *group, cond_rec *r) {
  char b_buf[256];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  memset(r, 0, sizeof *r);
  bool ok = cond_tokens(w, &group->grp->body, &b, r) && b.len < 2048;
  const char *k = ok ? arena_strdup(w->in.ar, b.s) : NULL;
  sb_free(&b);
  return k;
}

static cond_rec *rec_begin(lw *w, const char *key, int nvars) {
  if (!key) return NULL;
  cond_rec *r = arena_alloc(w->in.ar, sizeof *r);
  memset(r, 0, sizeof *r);
  r->key = key;
  r->fn_depth = w->fn_depth, r->fn_block = w->fn_depth < w->kb.cap ? w->kb.id[w->fn_depth] : -1;
  r->capvar = nvars > 0 ? nvars : 1;
  r->vars = arena_alloc(w->in.ar, sizeof *r->vars * (size_t)r->capvar);
  r->kver = arena_alloc(w->in.ar, sizeof *r->kver * (size_t)r->capvar);
  r->side[0] = arena_alloc(w->in.ar, sizeof *r->side[0] * (size_t)r->capvar);
  r->side[1] = arena_alloc(w->in.ar, sizeof *r->side[1] * (size_t)r->capvar);
  return r;
}

static void rec_add(cond_rec *r, sym *s, const lw_kframe *then_st, const lw_kframe *else_st) {
  if (!r || r->nvar == r->capvar) return;
  r->vars[r->nvar] = s;
  r->side[0][r->nvar] = *then_st, r->side[1][r->nvar] = *else_st;
  r->nvar++;
}

/* the record of the if that just ended (its condition's variables as the
 * then-block saw them) */
#define COND_MAXRECS 256 /* per function: the search stays bounded */

static void rec_end(lw *w, cond_rec *r) {
  if (!r || w->kb.nconds >= COND_MAXRECS) return;
  const cond_rec *ids = w->kb.pending_ids;
  if (!ids) return;
  r->nid = ids->nid;
  memcpy(r->ids, ids->ids, sizeof r->ids), memcpy(r->writes, ids->writes, sizeof r->writes);
  for (int i = 0; i < r->nvar; i++) r->kver[i] = r->vars[i]->kver;
  if (w->kb.nconds == w->kb.capconds) {
    int n = w->kb.capconds ? 2 * w->kb.capconds : 16;
    cond_rec *c = arena_alloc(w->in.ar, sizeof *c * (size_t)n);
    if (w->kb.nconds) memcpy(c, w->kb.conds, sizeof *c * (size_t)w->kb.nconds);
    w->kb.conds = c, w->kb.capconds = n;
  }
  w->kb.conds[w->kb.nconds++] = *r;
}

/* the latest record of an if with this condition that still holds */
static const cond_rec *rec_find(lw *w, const char *key, const cond_rec *now) {
  for (int i = w->kb.nconds - 1; i >= 0; i--) {
    const cond_rec *r = &w->kb.conds[i];
    if (strcmp(r->key, key) != 0) continue;
    if (r->fn_depth != w->fn_depth || r->fn_depth >= w->kb.cap || w->kb.id[r->fn_depth] != r->fn_block) return NULL;
    if (r->nid != now->nid) return NULL;
    for (int j = 0; j < r->nid; j++)
      if (r->ids[j] != now->ids[j] || r->writes[j] != now->writes[j]) return NULL;
    for (int j = 0; j < r->nvar; j++)
      if (sc_find(&w->sc, r->vars[j]->name, r->vars[j]->len) != r->vars[j] || r->vars[j]->kver != r->kver[j])
        return NULL;
    return r;
  }
  return NULL;
}

/* a block of an if whose condition an earlier if had: its start is the
 * state at the end of the earlier if's block of the same side */
static void rec_seed(lw *w, const cond_rec *r, int side) {
  for (int i = 0; r && i < r->nvar; i++) assign(here(w, r->vars[i]), &r->side[side][i]);
}

/* the then-block of an if that no else followed: its frames join the state
 * before it */
void lw_kinds_settle(lw *w) {
  int n = w->kb.npending;
  w->kb.npending = 0;
  cond_rec *r = rec_begin(w, w->kb.pending_key, n);
  for (int i = 0; i < n; i++) {
    sym *s = w->kb.pending[i].s;
    if (sc_find(&w->sc, s->name, s->len) != s) continue;
    lw_kframe *g = here(w, s);
    rec_add(r, s, w->kb.pending[i].f, g); /* no else-block: the state before */
    join(g, w->kb.pending[i].f);
  }
  rec_end(w, r);
}

/* The block ends: each variable it touched joins its state into the block
 * around. The then-block of an if keeps its states aside for the else-block;
 * at the end of the else-block each variable gets the join of both branches
 * (and of the state before, when the if itself runs only sometimes). */
void lw_scope_pop(lw *w) {
  int d = w->sc.depth;
  if (w->kb.npending && w->kb.pending_depth == d) lw_kinds_settle(w);
  bool tracked = d < w->kb.cap;
  int from = tracked ? w->kb.mark[d] : w->kb.ntouch, end = w->kb.ntouch, kind = tracked ? w->kb.kind[d] : KB_PLAIN;
  int block = tracked ? w->kb.id[d] : -1;
  bool cond = w->kb.if_cond;
  if (tracked) w->kb.id[d] = -1; /* its frames are no longer live */
  sc_pop(&w->sc);
  w->kb.ntouch = from;
  if (kind == KB_THEN)
    w->kb.npending = 0, w->kb.pending_depth = d - 1, w->kb.pending_cond = cond, w->kb.pending_key = w->kb.key[d],
    w->kb.pending_ids = w->kb.key_ids[d];
  cond_rec *r = kind == KB_ELSE ? rec_begin(w, w->kb.pending_key, end - from + w->kb.npending) : NULL;
  for (int i = from; i < end; i++) {
    sym *s = w->kb.touch[i];
    lw_kframe *f = s->kinds;
    if (!f || f->depth != d || f->block != block) continue; /* done, or not this block's */
    s->kinds = f->up;
    if (sc_find(&w->sc, s->name, s->len) != s) continue; /* declared in the block */
    if (kind == KB_THEN) {
      add_pending(w, s, f);
      continue;
    }
    lw_kframe *g = here(w, s);
    if (kind != KB_ELSE) {
      join(g, f);
      continue;
    }
    lw_kframe both = *f; /* both branches: the then-block's state (or the one before) and this */
    const lw_kframe *t = pending_of(w, s);
    rec_add(r, s, t ? t : g, f);
    join(&both, t ? t : g);
    if (w->kb.pending_cond) join(g, &both);
    else assign(g, &both);
    drop_pending(w, s);
  }
  if (kind == KB_ELSE) { /* then-only variables: the then-block's state, or the one before */
    int n = w->kb.npending;
    w->kb.npending = 0;
    for (int i = 0; i < n; i++) {
      sym *s = w->kb.pending[i].s;
      if (!s || sc_find(&w->sc, s->name, s->len) != s) continue;
      lw_kframe *g = here(w, s);
      rec_add(r, s, w->kb.pending[i].f, g);
      join(g, w->kb.pending[i].f);
    }
    rec_end(w, r);
  }
}

/* the directive or statement at `it` runs only sometimes within its block:
 * the body of an if/while/for/switch without braces, after else or do, or
 * anywhere in a block with case labels */
static bool conditional(lw *w, const item *prev, const item *prev2) {
  static const char *const heads[] = {"if", "while", "for", "switch", NULL};
  if (prev && prev->kind == IT_TOK && prev->tk == T_IDENT &&
      (str_eq(w->in.src->text + prev->loc.b, prev->loc.e - prev->loc.b, "else") ||
       str_eq(w->in.src->text + prev->loc.b, prev->loc.e - prev->loc.b, "do")))
    return true;
  if (prev && prev->kind == IT_GROUP && prev->grp->open == '(' && prev2 && prev2->kind == IT_TOK &&
      prev2->tk == T_IDENT)
    for (const char *const *h = heads; *h; h++)
      if (str_eq(w->in.src->text + prev2->loc.b, prev2->loc.e - prev2->loc.b, *h)) return true;
  return w->kb.in_switch_block;
}

void lw_kinds_create(lw *w, sym *s, dnode *n, loc at) {
  if (!s) return;
  s->kver++;
  int k = n->type->mem;
  lw_kframe *f = here(w, s);
  if (!conditional(w, w->kb.prev, w->kb.prev2)) {
    f->set = 0;
    memset(f->node, 0, sizeof f->node);
  }
  if (k >= 0 && k < LW_NKINDS) f->set |= 1u << k, f->node[k] = n, f->at[k] = at;
}

void lw_kinds_forget(lw *w, sym *s, bool maybe) {
  if (!s) return;
  s->kver++;
  lw_kframe *f = here(w, s);
  if (!maybe && !conditional(w, w->kb.prev, w->kb.prev2)) {
    f->set = 0;
    memset(f->node, 0, sizeof f->node);
  }
  f->set |= LW_KIND_UNKNOWN;
}

unsigned lw_kinds_of(lw *w, sym *s) {
  lw_kframe *t = s ? top(w, s) : NULL;
  return t ? t->set : LW_KIND_UNKNOWN;
}

dnode *lw_kinds_node(lw *w, sym *s, int kind, loc *at) {
  lw_kframe *t = s ? top(w, s) : NULL;
  if (!t || kind < 0 || kind >= LW_NKINDS || !(t->set & (1u << kind))) return NULL;
  if (at) *at = t->at[kind];
  return t->node[kind];
}

/* ---- loop bodies: what later iterations bring back to the top ----------------- */

static bool word(lw *w, const item *it, const char *s) {
  return it && it->kind == IT_TOK && it->tk == T_IDENT && str_eq(w->in.src->text + it->loc.b, it->loc.e - it->loc.b, s);
}

/* a name written to (v = ..., v op= ...) or whose address is taken (&v) */
static sym *written(lw *w, const item *it, const item *prev) {
  if (!it || it->kind != IT_TOK || it->tk != T_IDENT || punct(prev, '.') || punct(prev, P_ARROW)) return NULL;
  if (!punct(it->next, '=') && !punct(it->next, P_ASSIGNOP) && !punct(prev, '&')) return NULL;
  sym *s = sc_find(&w->sc, w->in.src->text + it->loc.b, it->loc.e - it->loc.b);
  return s && s->kind == SYM_VAR ? s : NULL;
}

/* every #create and #destroy of a plain name in the items, nested blocks
 * included, and every write to a name: their kinds (unknown for a #destroy
 * or a write) join the name's set at the top */
static void prescan(lw *w, items *list) {
  const item *prev = NULL;
  for (item *it = list->first; it; prev = it, it = it->next) {
    if (it->kind == IT_GROUP) {
      prescan(w, &it->grp->body);
      continue;
    }
    sym *ws = written(w, it, prev);
    if (ws) here(w, ws)->set |= LW_KIND_UNKNOWN;
    if (it->kind != IT_DIR || (it->dir->kind != D_CREATE && it->dir->kind != D_DESTROY) || it->dir->bad) continue;
    directive *d = it->dir;
    items *args;
    if (lw_split_args(w, &d->args, &args) < 1) continue;
    loc vl;
    if (!lw_single_ident(&args[0], &vl)) continue;
    sym *s = sc_find(&w->sc, w->in.src->text + vl.b, vl.e - vl.b);
    if (!s || s->kind != SYM_VAR) continue;
    lw_kframe *f = here(w, s);
    dnode *n = d->kind == D_CREATE ? lw_resolve(w, d->name, false) : NULL;
    if (n && n->type->mem >= 0 && n->type->mem < LW_NKINDS) {
      f->set |= 1u << n->type->mem;
      if (!f->node[n->type->mem]) f->node[n->type->mem] = n, f->at[n->type->mem] = d->loc;
    } else {
      f->set |= LW_KIND_UNKNOWN;
    }
  }
}

void lw_kinds_block(lw *w, item *group, const item *prev, const item *prev2) {
  bool loop = word(w, prev, "do") ||
              (prev && prev->kind == IT_GROUP && prev->grp->open == '(' && (word(w, prev2, "for") || word(w, prev2, "while")));
  int d = w->sc.depth;
  if (prev && prev->kind == IT_GROUP && prev->grp->open == '(' && word(w, prev2, "if")) {
    if (w->kb.npending) lw_kinds_settle(w);
    w->kb.kind[d] = KB_THEN;
    w->kb.if_cond = conditional(w, w->kb.prev3, w->kb.prev4);
    cond_rec *ids = arena_alloc(w->in.ar, sizeof *ids);
    w->kb.key[d] = cond_key(w, prev, ids);
    w->kb.key_ids[d] = ids;
    ids->found = w->kb.key[d] ? rec_find(w, w->kb.key[d], ids) : NULL;
    rec_seed(w, ids->found, 0);
  } else if (word(w, prev, "else") && w->kb.npending && w->kb.pending_depth == d - 1) {
    w->kb.kind[d] = KB_ELSE;
    rec_seed(w, w->kb.pending_ids ? w->kb.pending_ids->found : NULL, 1);
  } else if (w->kb.npending) {
    lw_kinds_settle(w);
  }
  if (loop) prescan(w, &group->grp->body);
  bool sw = false;
  ITEMS_FOREACH(it, group->grp->body)
    if (word(w, it, "case") || word(w, it, "default")) sw = true;
  w->kb.in_switch_block = sw;
}
