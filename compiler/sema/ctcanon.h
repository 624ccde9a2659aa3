/* ctcanon.h - C types by meaning (ctcanon.c): one canonical spelling per type,
 * typedefs of the scopes expanded, for every comparison of C types the
 * translator makes. */
#ifndef PAC_CTCANON_H
#define PAC_CTCANON_H

#include "scope.h"

/* type (C text) canonically: "unsigned" -> "unsigned int", "long int" ->
 * "long", typedef names visible in sc expanded (src: the text their
 * declarations point into; sc may be NULL: no typedefs), qualifiers dropped */
const char *ct_canonical(const scopes *sc, const char *src, const char *type, arena *ar);
/* a and b are the same type */
bool ct_same(const scopes *sc, const char *src, const char *a, const char *b, arena *ar);

#endif
