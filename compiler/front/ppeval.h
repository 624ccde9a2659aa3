/* SPDX-License-Identifier: Apache-2.0 */
/* ppeval.h - the value of #if and #elif conditions without running a
 * preprocessor: the macros a file defines, in order, and those of -D/-U. */
#ifndef PAC_PPEVAL_H
#define PAC_PPEVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ppmacros ppmacros;
ppmacros *pp_macros_new(void);
void pp_macros_free(ppmacros *m);
/* text: what follows the directive word of a #define line ("N 4",
 * "F(a, b) ((a) + (b))", "E"), one logical line (no line splices).
 * A definition the preprocessor would reject is ignored. */
void pp_define(ppmacros *m, const char *text, size_t len);
/* pp_define that says why a definition is rejected: returns 0, or -1 with a
 * message in err and the byte offset in text in *erroff (nothing defined). */
int pp_define_checked(ppmacros *m, const char *text, size_t len, char *err, size_t errlen, size_t *erroff);
/* the macro name (leading/trailing blanks allowed) */
void pp_undef(ppmacros *m, const char *name, size_t len);
/* a #defined macro, or one of the __has_* operators (as with GCC) */
bool pp_is_defined(const ppmacros *m, const char *name, size_t len);
/* a -D option's argument: "NAME", "NAME=VALUE" (-DNAME is NAME 1), "F(x)=x" */
void pp_define_option(ppmacros *m, const char *arg);
/* Evaluate the condition text of #if/#elif (without the directive word).
 * Returns 0 and sets *value, or -1 with a message in err and the byte offset
 * in text where the problem is in *erroff. The text is one logical line;
 * `defined` is honoured only where the text itself writes it, and the
 * __has_include and __has_<feature> operators are 0 (there are no headers or
 * compiler to ask). Expansion is bounded: no input runs away. */
int pp_eval(const ppmacros *m, const char *text, size_t len, int64_t *value, char *err, size_t errlen, size_t *erroff);

#endif
