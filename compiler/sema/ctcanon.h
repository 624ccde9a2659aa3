/* SPDX-License-Identifier: Apache-2.0 */
/* ctcanon.h - C types by meaning (ctcanon.c): one canonical spelling per type,
 * typedefs of the scopes expanded, for every comparison of C types the
 * translator makes. */
#ifndef PAC_CTCANON_H
#define PAC_CTCANON_H

#include "program.h"
#include "scope.h"

/* Where a type's words get their meaning: the typedefs visible in sc (NULL:
 * none; src is the text their declarations point into) and the object-like
 * macros of the program prog (program.h; NULL: none), expanded as deep as
 * the C preprocessor would. */
typedef struct ctenv {
  const scopes *sc;
  const char *src;
  semaprog *prog;
} ctenv;

/* type (C text) canonically: "unsigned" -> "unsigned int", "long int" ->
 * "long", typedef names and macros expanded, qualifiers dropped */
const char *ct_canonical(const ctenv *e, const char *type, arena *ar);
/* a and b are the same type */
bool ct_same(const ctenv *e, const char *a, const char *b, arena *ar);

#endif
