/* SPDX-License-Identifier: Apache-2.0 */
/* lower_dollar.h - expressions and names in the code being lowered: $...$, rendering, captures (lower_dollar.c). */
#ifndef PAC_LOWER_DOLLAR_H
#define PAC_LOWER_DOLLAR_H

#include "lower.h"

/* lower_dollar.c: expressions and names in the code being lowered */
/* the C text of an item range with $...$ lowered and names substituted */
char *lw_items_text(lw *w, item *first, item *last);
/* The same with one item shown as other text (its position in the result
 * reported), another left out, and some names kept as they are written. */
typedef struct lw_subst {
  item *sub;            /* shown as sub_text */
  const char *sub_text;
  int sub_pos;          /* out: the offset in the result just after sub_text (-1: not reached) */
  item *skip;           /* shown as nothing */
  item *const *keep;    /* names being declared: never replaced */
  int nkeep;
  lw_names names;       /* how the other names are rendered */
} lw_subst;
char *lw_items_subst(lw *w, item *first, item *last, lw_subst *s);
char *lw_list_text(lw *w, items *list);
/* what an identifier of the source stands for here (NULL: itself) */
const char *lw_ident_replacement(lw *w, item *it, lw_names names);
/* a detour's capture of s (added at its first use), as its body refers to it */
const char *lw_capture_ref(lw *w, region *r, sym *s, loc use);
/* $tid$, $tid_P$ */
void lw_tid(lw *w, dollar *d, ex **out);
/* the declaration of a capture's field, and the value it starts from in the enclosing code */
plan_decl lw_field_decl(lw *w, sym *s, cap_mode mode);
const char *lw_capture_init(lw *w, region *r, capture *c);
/* $...$ where it stands (inside a detour: in the detour's captures, or as
 * written); names: how the variables of its indices are rendered */
ex *lw_dollar(lw *w, dollar *d, lw_names names);
char *lw_dollar_text(lw *w, dollar *d, lw_names names);
ex *lw_size_expr(lw *w, items *expr, loc where, const char *what);
/* e as used inside the current detour body: the variables of the enclosing
 * code that its atoms name (the sizes of a type declared outside the body)
 * become captures of the detour; `at` is where the use is reported */
ex *lw_localize(lw *w, ex *e, loc at);
/* the same for C text: its names of variables of the enclosing code become
 * captures of the current detour (text itself when none does) */
const char *lw_localize_text(lw *w, const char *text, loc at);
/* tokens of an expression, with nested $...$ lowered and names rendered as
 * `names` says; the vector lives in w->scratch: take an arena_save mark
 * before and arena_restore after use */
int lw_ltoks(lw *w, items *expr, ltok **out, lw_names names);

#endif
