/* SPDX-License-Identifier: Apache-2.0 */
/* ppint.h - what the two halves of the #if evaluator share: the tokens of
 * ppmacro.c's tokenizer, the error record, the bounds, and the call that
 * turns a condition into its macro-expanded tokens for ppeval.c to evaluate.
 * Internal to ppmacro.c and ppeval.c; the interface is ppeval.h. */
#ifndef PAC_PPINT_H
#define PAC_PPINT_H

#include "ppeval.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { PP_MAX_TOKENS = 1 << 20, PP_MAX_BYTES = 1 << 24, PP_MAX_NEST = 200, PP_MAX_PARENS = 1000 };

/* ---- tokens --------------------------------------------------------------- */
enum {
  K_EOF, K_IDENT, K_NUM, K_CHAR, K_STR, K_PUNCT, K_OTHER, /* a stray character */
  K_BADQ,                                                 /* an unterminated ' or " */
  K_PARAM, K_STROP, K_PASTEOP,                            /* only in macro bodies */
  K_PLACE                                                 /* placemarker during ## */
};
enum {
  P_LPAREN = 1, P_RPAREN, P_COMMA, P_QUEST, P_COLON, P_OROR, P_ANDAND, P_OR, P_XOR, P_AND, P_EQ, P_NE, P_LT,
  P_GT, P_LE, P_GE, P_SHL, P_SHR, P_PLUS, P_MINUS, P_STAR, P_SLASH, P_PCT, P_TILDE, P_NOT, P_HASH, P_HASHHASH,
  P_ELLIPSIS, P_OTHER
};
enum { F_WHITE = 1, F_NOEXPAND = 2 };

typedef struct pp_tok {
  const char *s;
  uint32_t len, off; /* spelling; offset in the condition text */
  uint16_t kind, flags;
  int32_t aux; /* punctuator code, or parameter index */
} pp_tok;

static inline bool pp_is_punct(const pp_tok *t, int code) { return t->kind == K_PUNCT && t->aux == code; }
static inline bool pp_tok_is(const pp_tok *t, const char *word) {
  return t->kind == K_IDENT && t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

/* ---- errors ---------------------------------------------------------------- */
typedef struct pp_err {
  char *buf;
  size_t cap, off;
  bool failed;
  const char *text; /* the condition, to tell its tokens from those of macros */
} pp_err;

/* where byte k of t is: in t itself when t is spelled in the text, else
 * where t's macro call is */
static inline size_t pp_off_in(const pp_err *e, const pp_tok *t, size_t k) {
  return e->text && t->s == e->text + t->off ? t->off + k : t->off;
}

/* The first failure is kept: its message (printf-style) into e->buf and off. */
__attribute__((format(printf, 3, 4))) void pp_fail(pp_err *e, size_t off, const char *fmt, ...);

/* a token's spelling for a message, cut at 40 bytes */
#define PP_SPELL(t) (int)((t)->len > 40 ? 40 : (t)->len), (t)->s

typedef struct pp_vec {
  pp_tok *v;
  int n, cap;
} pp_vec;

/* Tokenizes the condition text[0..len) and expands its macros (with m's
 * table; `defined` and the __has_* operators resolved) into *out, whose
 * tokens live in ar. Returns false with e set on an error. */
bool pp_expand_condition(const ppmacros *m, const char *text, size_t len, arena *ar, pp_err *e, pp_vec *out);

#endif
