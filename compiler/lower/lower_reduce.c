/* SPDX-License-Identifier: Apache-2.0 */
/* lower_reduce.c - the reduce(...), scan(...) and exscan(...) clauses of
 * #detour, #scan, and the atomics an mpi body cannot use (docs/threads.md,
 * "Reductions", "Scans", "Atomics"): `reduce(+: sum, max: peak, f(ID): z)` names variables of
 * the enclosing code that the body reduces. Each thread works on a private
 * copy, declared in the outlined body under the variable's own name and
 * starting at the operator's identity (for an idempotent operator, at the
 * variable's value); the emitter combines the copies in thread order and
 * with the variable. This file parses and checks the clause, tells the
 * walk how the body names the variables (their private copies) and turns
 * 'return' in the body into a jump to the reductions, and fills the plan. */
#include "lower_reduce.h"
#include "lower_dollar.h"
#include "lower_localtypes.h"

#include "ctcanon.h"

#include <string.h>

static bool punct_is(const item *it, int p) { return it && it->kind == IT_TOK && it->tk == T_PUNCT && it->punct == p; }
static bool ident(const item *it) { return it && it->kind == IT_TOK && it->tk == T_IDENT; }
static bool word_is(lw *w, const item *it, const char *s) {
  return ident(it) && str_eq(w->in.src->text + it->loc.b, it->loc.e - it->loc.b, s);
}

/* What the operators are defined for. */
typedef enum { TC_INT, TC_FLOAT, TC_HALF, TC_AGGREGATE, TC_UNKNOWN } type_class;

static bool has_word(const char *s, const char *wd) {
  size_t n = strlen(wd);
  for (const char *p = strstr(s, wd); p; p = strstr(p + 1, wd)) {
    bool b = p == s || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                         (p[-1] >= '0' && p[-1] <= '9'));
    char c = p[n];
    bool e = !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
    if (b && e) return true;
  }
  return false;
}

static type_class classify(const char *canon) {
  if (has_word(canon, "struct") || has_word(canon, "union")) return TC_AGGREGATE;
  if (has_word(canon, "__half") || has_word(canon, "__nv_bfloat16") || has_word(canon, "half")) return TC_HALF;
  if (has_word(canon, "float") || has_word(canon, "double") || has_word(canon, "_Float16")) return TC_FLOAT;
  static const char *const ints[] = {"char", "short", "int", "long", "unsigned", "signed", "_Bool", "bool", NULL};
  for (const char *const *p = ints; *p; p++)
    if (has_word(canon, *p)) return TC_INT;
  return TC_UNKNOWN;
}

static const struct {
  const char *word;
  int punct;
  plan_red_op op;
} ops[] = {{"+", '+', RED_ADD},       {"*", '*', RED_MUL},       {"&", '&', RED_BAND},
           {"|", '|', RED_BOR},       {"^", '^', RED_BXOR},      {"&&", P_ANDAND, RED_LAND},
           {"||", P_OROR, RED_LOR},   {"min", 0, RED_MIN},       {"max", 0, RED_MAX}};

static const char *op_word(plan_red_op op) {
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (ops[i].op == op) return ops[i].word;
  return "a function";
}

/* "scan(...)" or "exscan(...)": the clause of r's first scan variable */
static const char *scan_clause(const region *r) {
  for (int i = 0; i < r->nreds; i++)
    if (r->reds[i].p.scan) return r->reds[i].p.scan == 2 ? "exscan(...)" : "scan(...)";
  return "scan(...)";
}

static bool idempotent(plan_red_op op) {
  return op == RED_MIN || op == RED_MAX || op == RED_BAND || op == RED_BOR || op == RED_LAND || op == RED_LOR;
}

/* the operator before ':' (false after reporting) */
static bool parse_op(lw *w, item *first, item *colon, plan_reduce *p, loc at) {
  if (first && first->next == colon) {
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
      if (ops[i].punct ? punct_is(first, ops[i].punct) : word_is(w, first, ops[i].word)) {
        p->op = ops[i].op;
        return true;
      }
    if (ident(first)) {
      diag_error(w->in.dg, first->loc, "the reduction function '%s' needs its identity in parentheses: %s(IDENTITY)",
                 lw_text(w, first->loc), lw_text(w, first->loc));
      return false;
    }
  } else if (ident(first) && first->next && first->next->kind == IT_GROUP && first->next->grp->open == '(' &&
             first->next->next == colon && first->next->grp->body.n) {
    p->op = RED_FN;
    p->fn = lw_text(w, first->loc);
    p->init = lw_list_text(w, &first->next->grp->body);
    return true;
  }
  diag_error(w->in.dg, first && first != colon ? first->loc : at, "a reduction operator is one of + * & | ^ && || min max, "
             "or a function with its identity: f(IDENTITY)");
  return false;
}

/* a typedef name the canonical spelling kept (a struct or union with a
 * body): whether it names a struct or union */
static bool typedef_aggregate(lw *w, const char *canon) {
  size_t n = 0;
  while (canon[n] && canon[n] != ' ') n++;
  sym *t = sc_find(&w->sc, canon, n);
  if (!t || t->kind != SYM_TYPEDEF || !t->has_decl) return false;
  for (item *it = t->decl.spec_first; it; it = it->next) {
    if (word_is(w, it, "struct") || word_is(w, it, "union")) return true;
    if (it == t->decl.spec_last) break;
  }
  return false;
}

/* a word of the type text t that names a type the enclosing function
 * declared (NULL: none), into *n */
static const char *local_word(lw *w, const char *t, size_t *n) {
  for (const char *p = t; *p;) {
    if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
      p++;
      continue;
    }
    const char *b = p;
    while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) p++;
    if (lw_local_type_named(w, b, (size_t)(p - b))) {
      *n = (size_t)(p - b);
      return b;
    }
  }
  return NULL;
}

/* the type as written, without the space its declaration leaves at the end */
static const char *type_text(lw *w, const char *pre) {
  size_t n = strlen(pre);
  while (n && pre[n - 1] == ' ') n--;
  return arena_strndup(w->in.ar, pre, n);
}

/* the type checks of a variable: the operator is defined for its type */
static bool check_type(lw *w, lw_red *rd, loc at, region *r) {
  sym *s = rd->s;
  const char *nm = rd->p.name;
  if (s->is_pointer || s->is_array || s->created) {
    diag_error(w->in.dg, at, "'%s' is %s: a reduction variable is a scalar or a struct", nm,
               s->is_array ? "an array" : "a pointer");
    return false;
  }
  rd->p.decl = lw_field_decl(w, s, CAP_VALUE);
  if (has_word(rd->p.decl.pre, "const")) {
    diag_error(w->in.dg, at, "'%s' is const: a reduction writes its result into the variable", nm);
    return false;
  }
  ctenv env = lw_ctenv(w);
  const char *canon = ct_canonical(&env, rd->p.decl.pre, w->in.ar);
  size_t ln;
  if (local_word(w, rd->p.decl.pre, &ln)) { /* the copies live in a function of their own */
    const char *lt = local_word(w, canon, &ln);
    if (lt) {
      diag_error(w->in.dg, at, "'%s' has the type '%.*s', which the enclosing function declares: the copies of a "
                 "reduction live in the detour's own function; declare the type at file scope", nm, (int)ln, lt);
      return false;
    }
    rd->p.decl.pre = arena_printf(w->in.ar, "%s ", canon); /* a local typedef of a type file scope knows */
  }
  type_class tc = classify(canon);
  if (tc == TC_UNKNOWN && typedef_aggregate(w, canon)) tc = TC_AGGREGATE;
  plan_red_op op = rd->p.op;
  bool bitwise = op == RED_BAND || op == RED_BOR || op == RED_BXOR;
  const char *why = NULL;
  if (tc == TC_AGGREGATE && op != RED_FN) why = "a struct or union: reduce it with a function, f(IDENTITY)";
  else if ((tc == TC_FLOAT || tc == TC_HALF) && bitwise) why = "a floating type, which has no bitwise operators";
  if (why) {
    diag_error(w->in.dg, at, "'%s' cannot be reduced with '%s': its type '%s' is %s", nm, op_word(op),
               type_text(w, rd->p.decl.pre), why);
    diag_note(w->in.dg, s->decl.name ? s->decl.name->loc : at, "declared here");
    return false;
  }
  if (tc == TC_HALF && r->kind == RG_CUDA) rd->p.acc = "float";
  return true;
}

/* one variable of the clause, reduced with the operator in *op */
static bool add_var(lw *w, region *r, items *v, const plan_reduce *op, loc at) {
  if (v->n != 1 || !ident(v->first)) {
    diag_error(w->in.dg, v->n ? v->first->loc : at, "a reduction variable is the name of a variable of the code around "
               "the #detour");
    return false;
  }
  loc l = v->first->loc;
  const char *name = lw_text(w, l);
  sym *s = sc_find(&w->sc, w->in.src->text + l.b, l.e - l.b);
  if (!s || s->kind != SYM_VAR) {
    diag_error(w->in.dg, l, "'%s' is not a variable declared before this #detour", name);
    return false;
  }
  for (int i = 0; i < r->nreds; i++)
    if (r->reds[i].s == s) {
      diag_error(w->in.dg, l, "'%s' is reduced twice by this #detour", name);
      return false;
    }
  lw_red rd = {.s = s, .p = *op};
  rd.p.name = name;
  if (!check_type(w, &rd, l, r)) return false;
  /* the variable as the enclosing code writes it (captured there when that code is a detour's body) */
  region *o = lw_thread_region(w);
  rd.p.var = o && s->depth > 0 && s->depth < o->depth ? lw_capture_ref(w, o, s, l) : name;
  if (op->op != RED_FN)
    rd.p.init = idempotent(op->op) ? rd.p.var : op->op == RED_MUL ? "1" : "0";
  lw_red *nv = arena_alloc(w->in.ar, sizeof *nv * (size_t)(r->nreds + 1));
  if (r->nreds) memcpy(nv, r->reds, sizeof *nv * (size_t)r->nreds);
  nv[r->nreds++] = rd;
  r->reds = nv;
  return true;
}

/* reduce(op: var, var, op: var, ...); scan 1: scan(...), 2: exscan(...) */
static bool reduce_clause(lw *w, dir_clause *c, region *r, int scan) {
  items *parts = NULL;
  int n = lw_split_args(w, &c->args, &parts);
  plan_reduce op = {.op = RED_ADD};
  bool have_op = false, ok = true;
  for (int i = 0; i < n && ok; i++) {
    item *colon = NULL;
    for (item *it = parts[i].first; it; it = it->next)
      if (punct_is(it, ':')) {
        colon = it;
        break;
      }
    items var = parts[i];
    if (colon) {
      op = (plan_reduce){.op = RED_ADD};
      if (!(ok = parse_op(w, parts[i].first == colon ? NULL : parts[i].first, colon, &op, c->argsloc))) break;
      have_op = true;
      var.first = colon->next;
      var.n = 0;
      for (item *it = var.first; it; it = it->next) var.n++;
    } else if (!have_op) {
      diag_error(w->in.dg, parts[i].n ? parts[i].first->loc : c->argsloc, "reduce(...) starts with an operator and a "
                 "colon: reduce(+: sum)");
      return false;
    }
    op.scan = scan;
    ok = add_var(w, r, &var, &op, c->argsloc);
    r->nscans += ok && scan;
  }
  if (ok && !n) diag_error(w->in.dg, c->argsloc, "reduce() names no variable"), ok = false;
  return ok;
}

bool lw_reduce_clauses(lw *w, directive *d, region *r) {
  bool ok = true;
  const dir_clause *unordered = NULL;
  for (int i = 0; i < d->detour.nclauses; i++) {
    dir_clause *c = &d->detour.clauses[i];
    const char *s = w->in.src->text + c->kw.b;
    size_t n = c->kw.e - c->kw.b;
    /* wait, nowait and their misspellings: the launch's (lower_detour.c) */
    bool wait_word = str_edit_distance(s, n, "nowait", 6) <= 2 || str_edit_distance(s, n, "wait", 4) <= 2;
    int scan = str_eq(s, n, "scan") ? 1 : str_eq(s, n, "exscan") ? 2 : 0;
    if (c->word == CLAUSE_CALL && (scan || str_eq(s, n, "reduce"))) {
      ok &= reduce_clause(w, c, r, scan);
    } else if (c->word == CLAUSE_WORD && str_eq(s, n, "unordered")) {
      if (r->unordered) diag_error(w->in.dg, c->kw, "a second 'unordered' after #detour"), ok = false;
      r->unordered = true;
      unordered = c;
    } else if (c->word == CLAUSE_CALL || !wait_word) {
      const char *near = c->word == CLAUSE_WORD && str_edit_distance(s, n, "unordered", 9) <= 2 ? "unordered"
                         : str_edit_distance(s, n, "reduce", 6) <= 2 ? "reduce"
                         : str_edit_distance(s, n, "exscan", 6) <= 1 ? "exscan"
                         : str_edit_distance(s, n, "scan", 4) <= 1 ? "scan" : NULL;
      if (near)
        diag_error(w->in.dg, c->kw, "unknown clause '%.*s%s' after #detour; did you mean '%s%s'?", (int)n, s,
                   c->word == CLAUSE_CALL ? "(...)" : "", near, near[0] == 'u' ? "" : "(...)");
      else
        diag_error(w->in.dg, c->kw, "unknown clause '%.*s%s' after #detour: the clauses are reduce(...), scan(...), "
                   "exscan(...), 'unordered' and, on a cuda detour, 'wait' or 'nowait'", (int)n, s,
                   c->word == CLAUSE_CALL ? "(...)" : "");
      ok = false;
    }
  }
  if (ok && unordered && r->nreds == r->nscans) {
    diag_error(w->in.dg, unordered->kw, "'unordered' after a #detour without reduce(...): it lets the blocks of a cuda "
               "detour combine their reductions in any order (scans keep theirs)");
    ok = false;
  }
  return ok;
}

const char *lw_reduce_word(lw *w, const item *it) {
  region *r = lw_thread_region(w);
  if (!r || !r->nreds || !word_is(w, it, "return")) return NULL;
  if (r->nscans) {
    diag_error(w->in.dg, it->loc, "a 'return' in the body of a detour with %s: every thread of the detour takes part "
               "in its #scan", scan_clause(r));
    return NULL;
  }
  return r->fold ? "goto " PLAN_FOLD_NEXT : "goto " PLAN_REDUCE_END;
}

/* whether the items (and the groups, directives and $...$ indices inside
 * them) name the hardware's block: blockIdx or gridDim */
static bool names_block(lw *w, const items *l);
static bool index_names_block(lw *w, const index_t *x) {
  for (; x; x = x->next)
    if (names_block(w, &x->expr) || index_names_block(w, x->sub)) return true;
  return false;
}
static bool names_block(lw *w, const items *l) {
  for (const item *it = l ? l->first : NULL; it; it = it->next) {
    if (it->kind == IT_TOK && (word_is(w, it, "blockIdx") || word_is(w, it, "gridDim"))) return true;
    if (it->kind == IT_GROUP && names_block(w, &it->grp->body)) return true;
    if (it->kind == IT_DOLLAR && index_names_block(w, it->dol->idx)) return true;
    const directive *d = it->kind == IT_DIR ? it->dir : NULL;
    if (d && (names_block(w, &d->args) || (d->block && names_block(w, &d->block->grp->body)))) return true;
  }
  return false;
}

void lw_reduce_fold(lw *w, item *body, region *r) {
  r->fold = r->kind == RG_CUDA && r->unordered && !r->nscans && r->nreds && !r->cu->ntma_smem &&
            !names_block(w, &body->grp->body);
}

void lw_atomic_check(lw *w, const item *it) {
  region *r = lw_thread_region(w);
  size_t n = it->loc.e - it->loc.b;
  const char *s = w->in.src->text + it->loc.b;
  if (!r || r->kind != RG_MPI || n <= 13 || memcmp(s, "parray_atomic_", 14) != 0) return;
  diag_error(w->in.dg, it->loc, "'%.*s' in the body of an mpi detour: its processes share no memory, so an atomic "
             "on a process's memory combines nothing across them; use reduce(...), or a pthd or cuda detour inside "
             "the body whose threads share the process's memory", (int)n, s);
}

void lw_scan(lw *w, item *it, lw_record *out) {
  region *r = lw_thread_region(w);
  directive *d = it->dir;
  if (!r || !r->nscans) {
    diag_error(w->in.dg, d->kw, "#scan outside the body of a detour with scan(...) or exscan(...): it is the point "
               "where the threads' copies of the scan variables become their prefixes");
    return;
  }
  int inserts = 0; /* an #insert's instance is a block of its own, but no condition */
  for (instance *in = w->inst; in; in = in->outer) inserts += in->rg == r;
  if (w->rg != r || w->sc.depth != r->depth + 1 + inserts) {
    diag_error(w->in.dg, d->kw, "#scan inside a block of the body: every thread reaches it once, so it stands in the "
               "body's own block, outside any if, loop or nested block");
    r->scan_bad = true;
    return;
  }
  if (r->scans_seen++) {
    diag_error(w->in.dg, d->kw, "a second #scan in the body of this detour: a body has one");
    r->scan_bad = true;
    return;
  }
  plan_reduce *v = arena_alloc(w->in.ar, sizeof *v * (size_t)r->nscans);
  int n = 0;
  for (int i = 0; i < r->nreds; i++)
    if (r->reds[i].p.scan) v[n++] = r->reds[i].p;
  out->kind = LR_SCAN, out->at = it;
  out->u.scan = (plan_scan){.kind = lw_kind_of(r), .vars = v, .nvars = n,
                            .site = lw_site(w, d->loc, arena_printf(w->in.ar, "#scan of #detour %s", r->thread->name))};
}

bool lw_reduce_plan(lw *w, region *r, plan_detour *p) {
  if (r->scan_bad) return false;
  if (r->nscans && r->scans_seen != 1) {
    if (!r->scans_seen)
      diag_error(w->in.dg, r->at, "this #detour has %s but its body no #scan: the point where the copies become their "
                 "prefixes", scan_clause(r));
    return false;
  }
  p->nreds = r->nreds;
  p->unordered = r->unordered;
  p->fold = r->fold;
  p->reds = arena_alloc(w->in.ar, sizeof *p->reds * (size_t)(r->nreds ? r->nreds : 1));
  for (int i = 0; i < r->nreds; i++) p->reds[i] = r->reds[i].p;
  return true;
}
