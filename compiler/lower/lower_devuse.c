/* SPDX-License-Identifier: Apache-2.0 */
/* lower_devuse.c - host code that reads or writes through a pointer to
 * device memory: a variable given to the #create of a dmem type (process
 * 0's array, or inside an mpi detour this process's block of a distributed
 * dmem array) indexed (r[k], r->f) or dereferenced (*r) outside a cuda
 * detour would touch GPU memory from the CPU and crash at run time; it is
 * reported at the use. Passing the pointer along (to a function, a cuda
 * detour, #copy, pointer arithmetic, &r[k], sizeof) stays allowed. The
 * same knowledge answers lw_names_dmem, for the launches of cuda detours;
 * a write to a variable (assigned, its address taken) makes its memory
 * unknown (lower_kinds.c). */
#include "lower.h"
#include "lower_devuse.h"
#include "lower_dollar.h"
#include "lower_kinds.h"

static bool tok_is(const item *it, int kind) { return it && it->kind == IT_TOK && it->tk == kind; }
static bool punct_is(const item *it, int p) { return tok_is(it, T_PUNCT) && it->punct == p; }
static bool group_is(const item *it, char open) { return it && it->kind == IT_GROUP && it->grp->open == open; }

static bool word_in(lw *w, const item *it, const char *const *words) {
  if (!tok_is(it, T_IDENT)) return false;
  for (const char *const *p = words; *p; p++)
    if (str_eq(w->in.src->text + it->loc.b, it->loc.e - it->loc.b, *p)) return true;
  return false;
}

/* the operand of these is not evaluated */
static bool unevaluated_op(lw *w, const item *it) {
  static const char *const words[] = {"sizeof", "_Alignof", "__alignof__", "typeof", "__typeof__", NULL};
  return word_in(w, it, words);
}

/* (T): a cast, whose operand follows */
static bool is_cast(lw *w, const item *g) {
  const item *f = g->grp->body.first;
  if (!tok_is(f, T_IDENT)) return false;
  const char *s = w->in.src->text + f->loc.b;
  size_t n = f->loc.e - f->loc.b;
  return lw_is_type_word(w, s, n) || lw_is_typedef(w, s, n);
}

/* Does `it` end an operand (so that a '*' or '&' after it is binary)? */
static bool ends_operand(lw *w, const item *it) {
  static const char *const keywords[] = {"return", "case", "else", "do", "goto", NULL};
  if (!it) return false;
  switch (it->kind) {
  case IT_TOK:
    if (it->tk == T_IDENT) return !word_in(w, it, keywords) && !unevaluated_op(w, it);
    return it->tk != T_PUNCT;
  case IT_GROUP:
    return group_is(it, '[') || (group_is(it, '(') && !is_cast(w, it));
  case IT_DOLLAR:
    return true;
  default:
    return false;
  }
}

/* the variable the identifier `it` names here, when every path makes it
 * the memory of a dmem #create (NULL otherwise) */
static sym *dmem_var(lw *w, const item *it) {
  sym *s = sc_find(&w->sc, w->in.src->text + it->loc.b, it->loc.e - it->loc.b);
  return s && s->kind == SYM_VAR && s->created && lw_kinds_of(w, s) == 1u << MK_DMEM ? s : NULL;
}

bool lw_names_dmem(lw *w, const item *it) {
  if (!tok_is(it, T_IDENT) || w->rg->kind != RG_HOST || lw_ident_replacement(w, (item *)it, LW_CAPTURE)) return false;
  sym *s = dmem_var(w, it);
  return s && !s->created->type->mpi_ref;
}

/* the identifier `it` (alone or in parentheses: then followed by next),
 * after prev and prev2, used where it is evaluated */
static void check_use(lw *w, item *it, item *prev, item *prev2, item *next) {
  if (punct_is(prev, '.') || punct_is(prev, P_ARROW) || unevaluated_op(w, prev)) return;
  for (int i = 0; i < w->ndecl_names; i++)
    if (w->decl_names[i] == it) return; /* a name being declared */
  sym *s = dmem_var(w, it);
  if (!s) return;
  /* process 0's pointer in an mpi body is a capture, reported as such */
  if (w->rg->kind == RG_MPI && !s->created->type->mpi_ref && s->region != w->rg->id) return;
  bool unary_prev = !ends_operand(w, prev2);
  bool indexed = group_is(next, '[') || punct_is(next, P_ARROW);
  if (indexed && punct_is(prev, '&') && unary_prev) return; /* &r[k]: an address */
  if (!indexed && !(punct_is(prev, '*') && unary_prev)) return;
  diag_error(w->in.dg, it->loc, "'%.*s' is in device memory (a %sdmem array): read it in a cuda detour or #copy it to "
             "host memory", (int)(it->loc.e - it->loc.b), w->in.src->text + it->loc.b,
             s->created->type->mpi_ref ? "distributed " : "");
  diag_note(w->in.dg, s->created_at, "created here");
}

/* A write to the variable `it` names (v = ..., v += ...), or its address
 * taken (&v, which lets anything change it): what its memory is becomes
 * unknown (lower_kinds.c). */
static void note_write(lw *w, item *it, item *prev, item *prev2, item *next) {
  if (punct_is(prev, '.') || punct_is(prev, P_ARROW)) return;
  for (int i = 0; i < w->ndecl_names; i++)
    if (w->decl_names[i] == it) return; /* a name being declared */
  bool assigned = punct_is(next, '=') || punct_is(next, P_ASSIGNOP);
  bool stepped = punct_is(next, P_INC) || punct_is(next, P_DEC) || punct_is(prev, P_INC) || punct_is(prev, P_DEC);
  bool address = punct_is(prev, '&') && !ends_operand(w, prev2) && !group_is(next, '[') && !punct_is(next, P_ARROW) &&
                 !punct_is(next, '.');
  if (!assigned && !address && !stepped) return;
  sym *s = sc_find(&w->sc, w->in.src->text + it->loc.b, it->loc.e - it->loc.b);
  if (!s || s->kind != SYM_VAR) return;
  s->writes++;
  if (address) s->addr_taken = true;
  if (assigned || address) lw_kinds_forget(w, s, address); /* ++ and -- stay in the same memory */
}

/* the items from first on (through last, or at statement level up to the
 * first ';' or block when last is NULL), their ( ) and [ ] groups included;
 * a { } group is walked as a block of statements of its own (a body, an
 * initializer, a compound literal), whose statements are checked there */
static void scan(lw *w, item *first, item *last, bool stmt, bool uneval) {
  item *prev = NULL, *prev2 = NULL;
  for (item *it = first; it; prev2 = prev, prev = it, it = it->next) {
    if (stmt && !last && (punct_is(it, ';') || group_is(it, '{'))) return;
    bool paren = group_is(it, '(');
    if (tok_is(it, T_IDENT) && !uneval) {
      check_use(w, it, prev, prev2, it->next);
      note_write(w, it, prev, prev2, it->next);
    }
    else if (paren && it->grp->body.n == 1 && tok_is(it->grp->body.first, T_IDENT) && !ends_operand(w, prev)) {
      if (!uneval) check_use(w, it->grp->body.first, prev, prev2, it->next); /* *(r), (r)[k] */
    } else if (paren || group_is(it, '['))
      scan(w, it->grp->body.first, NULL, false, uneval || unevaluated_op(w, prev));
    if (it == last) return;
  }
}

void lw_check_device_uses(lw *w, item *first, item *last) {
  if (w->rg->kind == RG_CUDA) return; /* device code */
  scan(w, first, last, true, false);
}
