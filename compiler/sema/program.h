/* SPDX-License-Identifier: Apache-2.0 */
/* program.h - what sema needs to know about the program being translated and
 * cannot know itself: the scopes at the current point of the walk (typedef
 * names, array types), the macros the C headers define, and the value of a
 * size expression (which may name $dim$, macros or subprogram parameters).
 * The stage that walks the program (compiler/lower) implements these
 * functions in one file, compiler/lower/lower_program.c; sema calls them
 * directly through this header, never through function pointers. A sema
 * context (tyctx, cxenv, cdctx, ctenv) holds a semaprog, or NULL where no
 * program is behind it (then nothing is asked).
 * stages: interface implemented in lower/lower_program.c */
#ifndef PAC_PROGRAM_H
#define PAC_PROGRAM_H

#include "ast.h"
#include "expr.h"

#include <stdbool.h>
#include <stddef.h>

/* The program as sema sees it: opaque here (the lowering's state). */
typedef struct semaprog semaprog;
typedef struct dnode dnode;

/* The value of a size expression (what: "dimension size", "min_blocks
 * count"), or NULL after reporting an error at where. */
ex *sp_eval_size(semaprog *p, items *expr, loc where, const char *what);
/* The body of an object-like macro, or NULL (none, or function-like). */
const char *sp_macro_body(semaprog *p, const char *name, size_t len);
/* The body of any macro, or NULL; *funclike set when it takes arguments. */
const char *sp_macro(semaprog *p, const char *name, size_t len, bool *funclike);
/* Is NAME a typedef name at this point of the walk? */
bool sp_is_typedef(semaprog *p, const char *name, size_t len);
/* Is NAME an object-like macro that expands to type words (#define REAL float)? */
bool sp_is_type_macro(semaprog *p, const char *name, size_t len);
/* Is NAME a C type word, qualifier or type name visible here? */
bool sp_is_type_word(semaprog *p, const char *name, size_t len);
/* The root node of the array type NAME visible here (NULL: none). With
 * report, a type still under construction (a cycle) gives NULL too. */
dnode *sp_lookup_type(semaprog *p, const char *name, size_t len, loc where, bool report);

#endif
