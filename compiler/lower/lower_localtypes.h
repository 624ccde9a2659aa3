/* SPDX-License-Identifier: Apache-2.0 */
/* lower_localtypes.h - the local type declarations a moved body takes along (lower_localtypes.c). */
#ifndef PAC_LOWER_LOCALTYPES_H
#define PAC_LOWER_LOCALTYPES_H

#include "lower.h"

/* lower_localtypes.c: a statement that declares only types, in a function,
 * is remembered; the text of those a moved body uses (NULL: none) */
typedef struct lw_ltype lw_ltype;
void lw_local_type_note(lw *w, const cd_stmt *st, item *first);
char *lw_local_types_for(lw *w, item *body, const region *r); /* sets w->ltypes_used */
/* a type name (typedef, struct/union/enum tag) declared by a local type declaration in scope */
bool lw_local_type_named(lw *w, const char *name, size_t n);

#endif
