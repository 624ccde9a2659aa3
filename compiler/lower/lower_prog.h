/* SPDX-License-Identifier: Apache-2.0 */
/* lower_prog.h - the program-structure directives: #parray, #mainhost, #subprog, #insert, #global, .pc includes (lower_prog.c). */
#ifndef PAC_LOWER_PROG_H
#define PAC_LOWER_PROG_H

#include "lower.h"

/* lower_prog.c: the conditional lines (#if ... #endif) of a block that
 * moves (a detour body, #mainhost, #global, a #subprog body) open and close
 * inside it; false after reporting the line that crosses its edge */
bool lw_block_conditionals(lw *w, items *body, const char *what, loc at);

/* lower_prog.c */
void lw_parray(lw *w, item *it);
void lw_mainhost(lw *w, item *it);
void lw_subprog(lw *w, item *it);
void lw_insert(lw *w, item *it);
void lw_global(lw *w, item *it);
/* a preprocessor line: #include of a .pc file is translated here */
void lw_ppline(lw *w, item *it);

#endif
