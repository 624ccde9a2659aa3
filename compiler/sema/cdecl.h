/* SPDX-License-Identifier: Apache-2.0 */
/* cdecl.h - recognising C declarations in located token streams: which
 * statements declare what names, with which specifiers and declarators, so
 * that the translator knows every variable, parameter and typedef visible at
 * each point (needed by #create and by the capture of variables in detours). */
#ifndef PAC_CDECL_H
#define PAC_CDECL_H

#include "ast.h"
#include "program.h"

typedef struct cd_decl {
  item *name;            /* the identifier token */
  item *spec_first, *spec_last; /* declaration specifiers */
  item *decl_first, *decl_last; /* the declarator (without initializer) */
  item *array_suffix;    /* outermost derivation is an array: its '[' group */
  bool is_typedef, is_extern, is_static, is_register;
  bool is_function;      /* declares a function (not a pointer to one) */
  bool is_pointer;       /* outermost derivation is a pointer */
  bool is_array;
  bool has_init;
} cd_decl;

typedef struct cd_stmt {
  bool is_decl;
  bool is_fundef;   /* function definition: `body` is its '{' group */
  item *body;
  item *params;     /* the '(' group of a function definition's declarator */
  cd_decl *decls;
  int ndecls;
  item *last;       /* last item of the declaration (its ';', or the body) */
  item *enum_body;  /* '{' group of an enum defined in the specifiers */
} cd_stmt;

typedef struct cdctx {
  const char *text;                /* source text the items point into */
  arena *ar;
  /* which names are typedef names (and which object-like macros expand to
   * type words, e.g. #define REAL float) at this point: asked of the
   * program (program.h), or, without one, the names in typedefs (NULL: none) */
  semaprog *prog;
  const strmap *typedefs;
  strmap kw;   /* keyword -> class bits (cd_init) */
  uint32_t kw_lens[128]; /* per first character: bit n set when a keyword of length n starts with it */
} cdctx;

void cd_init(cdctx *c);
void cd_free(cdctx *c);

/* Try to read a declaration starting at `first`. */
cd_stmt cd_statement(cdctx *c, item *first, bool file_scope);
/* Read the parameter declarations inside a function declarator's '(' group. */
cd_stmt cd_params(cdctx *c, item *group);
/* Names declared by an enum body ("{ A, B = 2 }"). */
int cd_enumerators(cdctx *c, item *body, item ***out);
bool cd_is_keyword(const cdctx *c, const char *s, size_t n);

#endif
