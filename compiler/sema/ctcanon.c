/* SPDX-License-Identifier: Apache-2.0 */
/* ctcanon.c - C types by meaning: the canonical spelling of a type written as
 * text (an element type of a #parray, say), so that two spellings of one
 * type compare equal. Typedefs visible in the scopes are expanded (a
 * typedef of a plain or pointer declarator; others stay as their name),
 * object-like macros are expanded (#define real double), qualifiers are
 * dropped, and the words of the arithmetic types take one
 * spelling: "unsigned" is "unsigned int", "long int" and "signed long" are
 * "long", "signed" is "int" (but "signed char" stays apart from "char").
 * Names the translator does not know (header types such as __half) stay as
 * they are. */
#include "ctcanon.h"

#include <string.h>

#define MAX_DEPTH 16

typedef struct words {
  int unsig, sig, shrt, lng, integer, chr, dbl;
  sbuf rest; /* other words: float, struct tags, names */
} words;

static bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool word_is(const char *w, size_t n, const char *s) { return str_eq(w, n, s); }

static const char *text(const sbuf *b) { return b->s ? b->s : ""; }

static void canon_into(const ctenv *e, const char *t, size_t len, sbuf *out, int depth);
static void add_words(const ctenv *e, const char *t, size_t len, words *ws, int depth);

/* a typedef's meaning, when its declarator is the name with stars before it */
static bool expand_typedef(const ctenv *e, const sym *s, sbuf *out, int depth) {
  if (!s->has_decl || !s->decl.spec_first || !s->decl.decl_first || depth >= MAX_DEPTH) return false;
  int stars = 0;
  for (item *it = s->decl.decl_first; it; it = it->next) {
    if (it == s->decl.name) {
      if (it != s->decl.decl_last) return false;
      break;
    }
    if (it->kind != IT_TOK || it->tk != T_PUNCT || it->punct != '*') return false;
    stars++;
    if (it == s->decl.decl_last) return false;
  }
  for (item *it = s->decl.spec_first;; it = it->next) { /* a struct body, a typeof: keep the name */
    if (!it || it->kind == IT_GROUP || it->kind != IT_TOK) return false;
    if (it == s->decl.spec_last) break;
  }
  uint32_t b = s->decl.spec_first->loc.b, end = s->decl.spec_last->loc.e;
  canon_into(e, e->src + b, end - b, out, depth + 1);
  for (int i = 0; i < stars; i++) sb_puts(out, " *");
  return true;
}

/* a macro's body that is words only (#define U unsigned long): its words
 * join the list; another body (with a star, say) is one word of its own */
static bool expand_macro(const ctenv *e, const char *w, size_t n, words *ws, int depth) {
  const char *body = e->prog && depth < MAX_DEPTH ? sp_macro_body(e->prog, w, n) : NULL;
  if (!body || str_eq(w, n, body)) return false;
  size_t len = strlen(body), i = 0;
  while (i < len && (is_word_char(body[i]) || body[i] == ' ' || body[i] == '\t')) i++;
  if (i == len) {
    add_words(e, body, len, ws, depth + 1);
    return true;
  }
  sbuf t;
  sb_init(&t);
  canon_into(e, body, len, &t, depth + 1);
  if (ws->rest.len) sb_putc(&ws->rest, ' ');
  sb_puts(&ws->rest, text(&t));
  sb_free(&t);
  return true;
}

/* one word of a specifier list */
static void add_word(const ctenv *e, const char *w, size_t n, words *ws, int depth) {
  static const char *const dropped[] = {"const", "volatile", "restrict", "__restrict", "__restrict__",
                                        "typedef", "static", "extern", "register", "inline", NULL};
  for (const char *const *d = dropped; *d; d++)
    if (word_is(w, n, *d)) return;
  if (word_is(w, n, "unsigned")) ws->unsig++;
  else if (word_is(w, n, "signed") || word_is(w, n, "__signed__")) ws->sig++;
  else if (word_is(w, n, "short")) ws->shrt++;
  else if (word_is(w, n, "long")) ws->lng++;
  else if (word_is(w, n, "int")) ws->integer++;
  else if (word_is(w, n, "char")) ws->chr++;
  else if (word_is(w, n, "double")) ws->dbl++;
  else {
    const sym *s = e->sc ? sc_find(e->sc, w, n) : NULL;
    sbuf t;
    sb_init(&t);
    if (!(s && s->kind == SYM_TYPEDEF && expand_typedef(e, s, &t, depth))) {
      if (!s && expand_macro(e, w, n, ws, depth)) {
        sb_free(&t);
        return;
      }
      sb_printf(&t, "%.*s", (int)n, w);
    }
    if (ws->rest.len) sb_putc(&ws->rest, ' ');
    sb_puts(&ws->rest, text(&t));
    sb_free(&t);
  }
}

/* every word of t (words and blanks only) */
static void add_words(const ctenv *e, const char *t, size_t len, words *ws, int depth) {
  for (size_t i = 0; i < len;) {
    if (!is_word_char(t[i])) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < len && is_word_char(t[j])) j++;
    add_word(e, t + i, j - i, ws, depth);
    i = j;
  }
}

/* the arithmetic words as one spelling */
static void put_arith(const words *ws, sbuf *out) {
  const char *u = ws->unsig ? "unsigned " : "";
  if (ws->chr) sb_printf(out, "%s", ws->unsig ? "unsigned char" : ws->sig ? "signed char" : "char");
  else if (ws->dbl) sb_puts(out, ws->lng ? "long double" : "double");
  else if (ws->shrt) sb_printf(out, "%sshort", u);
  else if (ws->lng >= 2) sb_printf(out, "%slong long", u);
  else if (ws->lng == 1) sb_printf(out, "%slong", u);
  else if (ws->integer || ws->unsig || ws->sig) sb_printf(out, "%sint", u);
}

static void canon_into(const ctenv *e, const char *t, size_t len, sbuf *out, int depth) {
  words ws;
  memset(&ws, 0, sizeof ws);
  sb_init(&ws.rest);
  sbuf tail; /* stars, brackets: after the specifiers */
  sb_init(&tail);
  for (size_t i = 0; i < len;) {
    char c = t[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      i++;
    } else if (is_word_char(c)) {
      size_t j = i;
      while (j < len && is_word_char(t[j])) j++;
      if (tail.len) sb_printf(&tail, " %.*s", (int)(j - i), t + i); /* a name after a star: not a specifier */
      else add_word(e, t + i, j - i, &ws, depth);
      i = j;
    } else {
      sb_printf(&tail, "%s%c", tail.len && c == '*' ? " " : (tail.len ? "" : " "), c);
      i++;
    }
  }
  sbuf a;
  sb_init(&a);
  put_arith(&ws, &a);
  if (a.len && ws.rest.len) sb_putc(&a, ' ');
  sb_puts(&a, text(&ws.rest));
  sb_puts(out, text(&a));
  sb_puts(out, text(&tail));
  sb_free(&a);
  sb_free(&tail);
  sb_free(&ws.rest);
}

const char *ct_canonical(const ctenv *e, const char *type, arena *ar) {
  sbuf b;
  sb_init(&b);
  canon_into(e, type, strlen(type), &b, 0);
  const char *r = arena_strdup(ar, text(&b));
  sb_free(&b);
  return r;
}

bool ct_same(const ctenv *e, const char *a, const char *b, arena *ar) {
  return !strcmp(ct_canonical(e, a, ar), ct_canonical(e, b, ar));
}
