/* SPDX-License-Identifier: Apache-2.0 */
/* cdecl.c - a tolerant reader of C declarations over located tokens (see
 * cdecl.h). It knows the C11 declaration grammar with GNU and CUDA
 * extensions (attributes, __asm__ labels, typeof, __shared__ ...), decides
 * between declaration and expression with the typedef names in scope, and
 * gives up (is_decl = false) on anything it does not recognise. */
#include "cdecl.h"

#include <stdlib.h>
#include <string.h>

static bool is_punct(const item *it, int p) { return it && it->kind == IT_TOK && it->tk == T_PUNCT && it->punct == p; }
static bool is_group(const item *it, char open) { return it && it->kind == IT_GROUP && it->grp->open == open; }
static bool is_ident(const item *it) { return it && it->kind == IT_TOK && it->tk == T_IDENT; }

enum { K_STORAGE = 1, K_QUAL = 2, K_TYPE = 4, K_ATTR = 8, K_STMT = 16, K_OTHER = 32 };

static const char *const storage_words[] = {"typedef", "extern", "static", "auto", "register", "_Thread_local",
                                            "__thread", "thread_local", NULL};
static const char *const qual_words[] = {
  "const", "volatile", "restrict", "__restrict", "__restrict__", "__const", "__volatile", "__volatile__",
  "inline", "__inline", "__inline__", "_Noreturn", "__extension__", "__forceinline__", "__noinline__",
  "__device__", "__host__", "__global__", "__shared__", "__constant__", "__managed__", "__grid_constant__",
  "__noreturn__", "__signed", "__unsigned", "constexpr", NULL};
static const char *const type_words[] = {
  "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool", "_Complex",
  "_Imaginary", "__complex__", "__int128", "__int128_t", "__uint128_t", "_Float16", "_Float32", "_Float64",
  "_Float128", "_Float32x", "_Float64x", "__fp16", "__bf16", "__float128", "__float80", "_Decimal32",
  "_Decimal64", "_Decimal128", "__signed__", "__builtin_va_list", "__auto_type", NULL};
static const char *const attr_words[] = {"__attribute__", "__attribute", "__declspec", "_Alignas", "alignas",
                                         "__launch_bounds__", "__asm__", "__asm", "asm", "__align__",
                                         "__builtin_align__", NULL};
static const char *const stmt_words[] = {"return", "if", "for", "while", "do", "switch", "case", "default",
                                         "goto", "break", "continue", "else", "sizeof", NULL};

static const char *const other_words[] = {"struct", "union", "enum", "typeof", "__typeof__", "__typeof", "decltype", "_Atomic",
                                          "_Static_assert", "static_assert", NULL};

void cd_init(cdctx *c) {
  strmap_init(&c->kw);
  const char *const *lists[] = {storage_words, qual_words, type_words, attr_words, stmt_words, other_words};
  for (int k = 0; k < 6; k++)
    for (const char *const *w = lists[k]; *w; w++) {
      intptr_t old = (intptr_t)strmap_get(&c->kw, *w, strlen(*w));
      strmap_put(&c->kw, *w, strlen(*w), (void *)(old | (1 << k)));
      c->kw_lens[(unsigned char)**w & 127] |= 1u << strlen(*w);
    }
}

void cd_free(cdctx *c) { strmap_free(&c->kw); }

/* most words are not keywords: the first character and the length rule them out without hashing */
static int kwc(const cdctx *c, const char *s, size_t n) {
  if (n >= 32 || !n || !((c->kw_lens[(unsigned char)s[0] & 127] >> n) & 1)) return 0;
  return (int)(intptr_t)strmap_get(&c->kw, s, n);
}
#define in_list(s, n, cls) ((kwc(c, (s), (n)) & (cls)) != 0)

bool cd_is_keyword(const cdctx *c, const char *s, size_t n) { return kwc(c, s, n) != 0; }

static const char *txt(const cdctx *c, const item *it, size_t *n) {
  *n = it->loc.e - it->loc.b;
  return c->text + it->loc.b;
}

/* skip attribute-like words and their argument groups */
static item *skip_attrs(const cdctx *c, item *it) {
  while (it && is_ident(it)) {
    size_t n;
    const char *s = txt(c, it, &n);
    if (!in_list(s, n, K_ATTR)) break;
    it = it->next;
    if (is_group(it, '(')) it = it->next;
  }
  return it;
}

typedef struct specs {
  bool saw_type, any;
  bool param; /* a parameter: an unknown name followed by a declarator is its type (a header's __half, say) */
  bool is_typedef, is_extern, is_static, is_register;
  bool is_auto; /* auto: C23 and C++ deduce the type from the initializer */
  item *first, *last;
  item *enum_body;
} specs;

/* a typedef name, or an object-like macro that expands to type words */
static bool cd_is_type_name(cdctx *c, const char *s, size_t n) {
  if (c->prog) return sp_is_typedef(c->prog, s, n) || sp_is_type_macro(c->prog, s, n);
  return c->typedefs && strmap_get(c->typedefs, s, n) != NULL;
}

static item *read_specs(cdctx *c, item *it, specs *sp) {
  for (; it; it = it->next) {
    if (!is_ident(it)) break;
    size_t n;
    const char *s = txt(c, it, &n);
    item *cur = it;
    int kw = kwc(c, s, n); /* the word's classes, looked up once */
    if (kw & K_STORAGE) {
      sp->is_typedef |= str_eq(s, n, "typedef");
      sp->is_extern |= str_eq(s, n, "extern");
      sp->is_static |= str_eq(s, n, "static");
      sp->is_register |= str_eq(s, n, "register");
      sp->is_auto |= str_eq(s, n, "auto");
    } else if (kw & K_QUAL) {
    } else if (kw & K_ATTR) {
      if (is_group(it->next, '(')) it = it->next;
    } else if (kw & K_TYPE) {
      sp->saw_type = true;
    } else if (str_eq(s, n, "struct") || str_eq(s, n, "union") || str_eq(s, n, "enum")) {
      bool is_enum = str_eq(s, n, "enum");
      sp->saw_type = true;
      item *nx = skip_attrs(c, it->next);
      if (is_ident(nx)) it = nx, nx = nx->next;
      else it = nx ? nx : it;
      if (is_punct(nx, ':') && is_enum) { /* enum E : int (C23) */
        nx = nx->next;
        while (is_ident(nx)) it = nx, nx = nx->next;
      }
      if (is_group(nx, '{')) {
        if (is_enum) sp->enum_body = nx;
        it = nx;
      }
      if (it != cur && !is_ident(it) && !is_group(it, '{')) { /* malformed: stop before it */
        sp->any = true, sp->last = cur;
        return it;
      }
    } else if (str_eq(s, n, "typeof") || str_eq(s, n, "__typeof__") || str_eq(s, n, "__typeof") || str_eq(s, n, "decltype") ||
               (str_eq(s, n, "_Atomic") && is_group(it->next, '('))) {
      sp->saw_type = true;
      if (is_group(it->next, '(')) it = it->next;
    } else if (str_eq(s, n, "_Atomic")) {
    } else if (!sp->saw_type && cd_is_type_name(c, s, n)) {
      sp->saw_type = true;
    } else if (sp->param && !sp->saw_type && (is_ident(it->next) || is_punct(it->next, '*'))) {
      sp->saw_type = true; /* a type name this translation does not know */
    } else {
      break;
    }
    if (!sp->first) sp->first = cur;
    sp->last = it;
    sp->any = true;
  }
  return it;
}

/* Find the declared name inside a declarator starting at `it`; returns the
 * item after the declarator. Fills name, pointer/array/function kind. */
typedef struct dinfo {
  item *name;
  item *last;
  int kind; /* 0 none, 1 pointer, 2 array, 3 function */
  item *array_suffix;
} dinfo;

static item *read_declarator(cdctx *c, item *it, dinfo *d, int depth);

static item *read_suffixes(cdctx *c, item *it, dinfo *d, int *first_kind, item **first_arr) {
  while (it) {
    if (is_group(it, '[')) {
      if (!*first_kind) *first_kind = 2, *first_arr = it;
    } else if (is_group(it, '(')) {
      if (!*first_kind) *first_kind = 3;
    } else if (is_ident(it)) {
      size_t n;
      const char *s = txt(c, it, &n);
      if (!in_list(s, n, K_ATTR)) break;
      if (is_group(it->next, '(')) it = it->next;
    } else {
      break;
    }
    d->last = it;
    it = it->next;
  }
  return it;
}

static item *read_declarator(cdctx *c, item *it, dinfo *d, int depth) {
  int stars = 0;
  while (it) {
    if (is_punct(it, '*') || is_punct(it, '&') || is_punct(it, '^')) {
      stars++;
      d->last = it;
      it = it->next;
    } else if (is_ident(it)) {
      size_t n;
      const char *s = txt(c, it, &n);
      if (in_list(s, n, K_QUAL) || str_eq(s, n, "_Atomic")) {
        d->last = it;
        it = it->next;
      } else if (in_list(s, n, K_ATTR)) {
        it = it->next;
        if (is_group(it, '(')) d->last = it, it = it->next;
      } else {
        break;
      }
    } else {
      break;
    }
  }
  int first_kind = 0;
  item *first_arr = NULL;
  if (is_ident(it)) {
    size_t n;
    const char *s = txt(c, it, &n);
    if (cd_is_keyword(c, s, n)) return NULL;
    d->name = it;
    d->last = it;
    it = read_suffixes(c, it->next, d, &first_kind, &first_arr);
    if (first_kind) d->kind = first_kind, d->array_suffix = first_arr;
    else if (stars) d->kind = 1;
    return it;
  }
  if (is_group(it, '(') && depth < 8) {
    /* '(' declarator ')' suffixes -- or an abstract function declarator */
    dinfo inner = {0};
    item *after = read_declarator(c, it->grp->body.first, &inner, depth + 1);
    if (inner.name && after == NULL) {
      d->name = inner.name;
      d->last = it;
      item *rest = read_suffixes(c, it->next, d, &first_kind, &first_arr);
      if (inner.kind) d->kind = inner.kind, d->array_suffix = inner.array_suffix;
      else if (first_kind) d->kind = first_kind, d->array_suffix = first_arr;
      else if (stars) d->kind = 1;
      return rest;
    }
  }
  if (stars && !d->name) d->kind = 1;
  return it; /* abstract declarator */
}

static item *skip_initializer(item *it) {
  while (it && !is_punct(it, ',') && !is_punct(it, ';')) it = it->next;
  return it;
}

typedef VEC(cd_decl) decl_vec;

/* With no specifier, an identifier followed by a declarator-looking tail
 * cannot be an expression statement: `T x;`, `T x = ...`, `T *x;`, `T x[..]`
 * (and at file scope `T f(...)`): the identifier s (n bytes) is taken for a
 * type name. */
static bool looks_declared(cdctx *c, item *first, const char *s, size_t n, bool file_scope) {
  if (!is_ident(first) || cd_is_keyword(c, s, n)) return false;
  item *nx = first->next;
  item *p = nx;
  while (is_punct(p, '*')) p = p->next;
  if (!is_ident(p)) return false;
  size_t pn;
  const char *ps = txt(c, p, &pn);
  if (cd_is_keyword(c, ps, pn) && !in_list(ps, pn, K_QUAL)) return false;
  item *after = p->next;
  bool ends = is_punct(after, ';') || is_punct(after, '=') || is_punct(after, ',');
  if (nx != p) return ends;
  return ends || is_group(after, '[') || (file_scope && is_group(after, '('));
}

/* The parameter group of a function definition: the first '(' suffix after
 * its name, or after its parenthesized declarator. */
static item *fundef_params(const cd_decl *d) {
  for (item *p = d->name->next; p; p = p->next)
    if (is_group(p, '(')) return p;
  if (is_group(d->decl_first, '('))
    for (item *p = d->decl_first->next; p; p = p->next)
      if (is_group(p, '(')) return p;
  return NULL;
}

static cd_decl make_decl(const specs *sp, item *decl_first, const dinfo *d) {
  return (cd_decl){.name = d->name, .spec_first = sp->first, .spec_last = sp->last, .decl_first = decl_first,
                   .decl_last = d->last, .is_typedef = sp->is_typedef, .is_extern = sp->is_extern,
                   .is_static = sp->is_static, .is_register = sp->is_register, .is_function = d->kind == 3,
                   .is_pointer = d->kind == 1, .is_array = d->kind == 2, .array_suffix = d->array_suffix};
}

/* The declarators after the specifiers sp, from it, into ds: r says whether
 * they end as a declaration (';') or, at file scope, a function definition
 * (its body). */
static void read_init_declarators(cdctx *c, item *it, const specs *sp, bool file_scope, cd_stmt *r,
                                  decl_vec *ds) {
  for (;;) {
    dinfo d = {0};
    item *after = read_declarator(c, it, &d, 0);
    if (!after && !d.name) return;
    if (d.name) {
      cd_decl x = make_decl(sp, it, &d);
      if (is_punct(after, '=')) {
        x.has_init = true;
        after = skip_initializer(after->next);
      }
      vec_push(*ds, x);
    }
    it = after;
    if (is_punct(it, ',')) {
      it = it->next;
      continue;
    }
    if (is_punct(it, ';')) {
      r->is_decl = true;
      r->last = it;
    } else if (file_scope && is_group(it, '{') && ds->n == 1 && ds->v[0].is_function) {
      r->is_decl = r->is_fundef = true;
      r->body = it;
      r->last = it;
      r->params = fundef_params(&ds->v[0]);
    }
    return; /* anything else: not a declaration */
  }
}

/* The declarations gathered in ds move to r (in the arena). */
static void take_decls(cdctx *c, cd_stmt *r, decl_vec *ds) {
  r->ndecls = ds->n;
  r->decls = arena_alloc(c->ar, sizeof *r->decls * (size_t)(ds->n ? ds->n : 1));
  if (ds->n) memcpy(r->decls, ds->v, sizeof *r->decls * (size_t)ds->n);
  vec_free(*ds);
}

cd_stmt cd_statement(cdctx *c, item *first, bool file_scope) {
  cd_stmt r = {0};
  if (!first || first->kind != IT_TOK || first->tk != T_IDENT) return r;
  size_t n;
  const char *s = txt(c, first, &n);
  if (in_list(s, n, K_STMT)) return r;
  if (is_punct(first->next, ':')) return r; /* label */
  if (str_eq(s, n, "_Static_assert") || str_eq(s, n, "static_assert")) return r;
  specs sp = {0};
  item *it = read_specs(c, first, &sp);
  if (!sp.saw_type) {
    if (!sp.any) {
      if (!looks_declared(c, first, s, n, file_scope)) return r;
      sp.saw_type = true, sp.first = sp.last = first, sp.any = true;
      it = first->next;
    } else if (!file_scope && !sp.is_typedef && !sp.is_extern && !sp.is_static && !sp.is_register && !sp.is_auto) {
      return r; /* qualifiers alone: not a declaration we understand */
    }
  }
  r.enum_body = sp.enum_body;
  decl_vec ds = {0};
  read_init_declarators(c, it, &sp, file_scope, &r, &ds);
  if (!r.is_decl) {
    vec_free(ds);
    return (cd_stmt){0};
  }
  take_decls(c, &r, &ds);
  return r;
}

cd_stmt cd_params(cdctx *c, item *group) {
  cd_stmt r = {0};
  decl_vec ds = {0};
  item *it = group->grp->body.first;
  while (it) {
    specs sp = {.param = true};
    item *p = read_specs(c, it, &sp);
    if (!sp.any) { /* K&R identifier list or garbage: skip to next comma */
      while (it && !is_punct(it, ',')) it = it->next;
      if (it) it = it->next;
      continue;
    }
    dinfo d = {0};
    item *after = read_declarator(c, p, &d, 0);
    if (d.name) {
      cd_decl x = {.name = d.name, .spec_first = sp.first, .spec_last = sp.last, .decl_first = p,
                   .decl_last = d.last, .is_register = sp.is_register, .is_function = d.kind == 3,
                   .is_pointer = d.kind == 1 || d.kind == 2 || d.kind == 3, .array_suffix = d.array_suffix};
      x.is_array = false; /* parameters of array type are pointers */
      vec_push(ds, x);
    }
    it = after;
    while (it && !is_punct(it, ',')) it = it->next;
    if (it) it = it->next;
  }
  r.is_decl = true;
  take_decls(c, &r, &ds);
  return r;
}

int cd_enumerators(cdctx *c, item *body, item ***out) {
  VEC(item *) v = {0};
  bool expect = true;
  int depth = 0;
  (void)c;
  ITEMS_FOREACH(it, body->grp->body) {
    if (expect && is_ident(it) && depth == 0) {
      vec_push(v, it);
      expect = false;
    } else if (is_punct(it, ',')) {
      expect = true;
    }
  }
  item **res = arena_alloc(c->ar, sizeof *res * (size_t)(v.n ? v.n : 1));
  if (v.n) memcpy(res, v.v, sizeof *res * (size_t)v.n);
  int n = v.n;
  vec_free(v);
  *out = res;
  return n;
}
