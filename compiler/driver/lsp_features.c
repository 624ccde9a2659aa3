/* SPDX-License-Identifier: Apache-2.0 */
/* lsp_features.c - what pac's language server answers, from pac itself:
 * diagnostics are pac_translate's own messages on the document's current
 * text (their ranges from the carets under the source line), a hover on a
 * type name is pac --layout's report of that type, a hover inside $...$ is
 * the C the translation put there (found between two comments added around
 * it), and a definition is the line of the
 * #parray or #subprog that names the word. */
#define _DEFAULT_SOURCE 1 /* open_memstream */
#include "lsp.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lsp_json.h"

/* ---- the document's text by lines, and UTF-16 columns ---- */

/* Line l (from 0) of doc: its start, and its length without the newline. */
static const char *doc_line(const lsp_doc *doc, long l, size_t *n) {
  const char *p = doc->text, *end = doc->text + doc->len;
  for (long k = 0; k < l; k++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return NULL;
    p = nl + 1;
  }
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  *n = (size_t)((nl ? nl : end) - p);
  if (*n && p[*n - 1] == '\r') (*n)--;
  return p;
}

/* UTF-16 code units in the first `bytes` bytes of s (UTF-8) */
static long utf16_units(const char *s, size_t bytes) {
  long u = 0;
  for (size_t i = 0; i < bytes; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c & 0xC0) == 0x80) continue;  /* a continuation byte */
    u += (c >= 0xF0) ? 2 : 1;          /* 4-byte sequences are surrogate pairs */
  }
  return u;
}

/* the byte offset in line s[0..n) of UTF-16 column ch */
static size_t utf16_to_byte(const char *s, size_t n, long ch) {
  size_t i = 0;
  for (long u = 0; i < n && u < ch; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c & 0xC0) == 0x80) continue;
    u += (c >= 0xF0) ? 2 : 1;
  }
  while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
  return i;
}

/* ---- running pac on the document ---- */

typedef struct pac_run {
  char *out, *err; /* the translation (or layout report) and the messages */
  size_t out_len, err_len;
  int status;
} pac_run;

static void run_pac(const lsp_env *env, const lsp_doc *doc, const char *layout, pac_run *r) {
  pac_options opt = *env->base;
  opt.input = doc->path, opt.output = NULL, opt.layout = layout, opt.lines = true;
  FILE *out = open_memstream(&r->out, &r->out_len), *err = open_memstream(&r->err, &r->err_len);
  if (!out || !err) {
    if (out) fclose(out);
    if (err) fclose(err);
    r->status = 1, r->out = r->err = NULL, r->out_len = r->err_len = 0;
    return;
  }
  pac_io io = {.text = doc->text, .len = doc->len, .out = out, .err = err, .selfinc = env->selfinc};
  r->status = pac_translate(&opt, &io);
  fclose(out), fclose(err);
}

static void free_run(pac_run *r) { free(r->out), free(r->err); }

/* ---- diagnostics ---- */

typedef struct message {
  char file[1024];
  long line, col, width; /* line and column from 1 (0: none); width from the carets */
  int severity;          /* LSP: 1 error, 2 warning, 3 information */
  const char *text;
  size_t len;
} message;

/* "FILE:LINE:COL: KIND: text" (KIND error, warning or note); false otherwise */
static bool parse_message(const char *s, size_t n, message *m) {
  static const char *kinds[] = {": error: ", ": warning: ", ": note: "};
  for (int k = 0; k < 3; k++) {
    const char *hit = NULL;
    for (const char *p = s; p + strlen(kinds[k]) <= s + n; p++)
      if (!memcmp(p, kinds[k], strlen(kinds[k]))) {
        hit = p;
        break;
      }
    if (!hit) continue;
    m->severity = k + 1, m->text = hit + strlen(kinds[k]), m->len = (size_t)(s + n - m->text);
    m->line = m->col = 0, m->width = 1, m->file[0] = 0;
    /* FILE:LINE:COL before it (FILE may hold colons: read from the right) */
    const char *c2 = hit;
    while (c2 > s && isdigit((unsigned char)c2[-1])) c2--;
    if (c2 > s + 1 && c2[-1] == ':' && c2 < hit) {
      const char *c1 = c2 - 1;
      while (c1 > s && isdigit((unsigned char)c1[-1])) c1--;
      if (c1 > s + 1 && c1[-1] == ':' && c1 < c2 - 1) {
        m->line = atol(c1), m->col = atol(c2);
        size_t fl = (size_t)(c1 - 1 - s);
        if (fl < sizeof m->file) memcpy(m->file, s, fl), m->file[fl] = 0;
      }
    }
    return true;
  }
  return false;
}

/* a caret line ("    |     ^~~~") gives the width of the message before it */
static long caret_width(const char *s, size_t n) {
  const char *bar = memchr(s, '|', n), *c = bar ? memchr(bar, '^', (size_t)(s + n - bar)) : NULL;
  if (!c) return 0;
  long w = 1;
  while (c + w < s + n && c[w] == '~') w++;
  return w;
}

static void range_json(const lsp_doc *doc, long line, long col, long width, sbuf *b) {
  long l = line > 0 ? line - 1 : 0;
  size_t n = 0;
  const char *text = doc_line(doc, l, &n);
  size_t c0 = col > 0 ? (size_t)col - 1 : 0, c1 = c0 + (size_t)(width > 0 ? width : 1);
  long u0 = 0, u1 = 0;
  if (text) {
    if (c0 > n) c0 = n;
    if (c1 > n) c1 = n;
    u0 = utf16_units(text, c0), u1 = utf16_units(text, c1);
  }
  if (u1 <= u0) u1 = u0 + 1;
  sb_printf(b, "{\"start\":{\"line\":%ld,\"character\":%ld},\"end\":{\"line\":%ld,\"character\":%ld}}", l, u0, l,
            u1);
}

/* One diagnostic; a message about another file (an included .pc) is shown
 * at the start of the document with that file's place in its text. */
static void diagnostic_json(const lsp_doc *doc, const message *m, bool first, sbuf *b) {
  bool here = m->line > 0 && !strcmp(m->file, doc->path);
  if (!first) sb_putc(b, ',');
  sb_puts(b, "{\"range\":");
  range_json(doc, here ? m->line : 0, here ? m->col : 0, here ? m->width : 1, b);
  sb_printf(b, ",\"severity\":%d,\"source\":\"pac\",\"message\":", m->severity);
  if (here || !m->line) {
    json_write_string(b, m->text, m->len);
  } else {
    sbuf t;
    sb_init(&t);
    sb_printf(&t, "%s:%ld:%ld: %.*s", m->file, m->line, m->col, (int)m->len, m->text);
    json_write_string(b, t.s, t.len);
    sb_free(&t);
  }
  sb_putc(b, '}');
}

void lsp_diagnostics(const lsp_env *env, const lsp_doc *doc, sbuf *b) {
  pac_run r;
  run_pac(env, doc, NULL, &r);
  sb_putc(b, '[');
  message m, pending;
  bool have = false, first = true;
  for (const char *p = r.err, *end = r.err + r.err_len; p && p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    long w;
    if (parse_message(p, n, &m)) {
      if (have) diagnostic_json(doc, &pending, first, b), first = false;
      pending = m, have = true;
    } else if (have && (w = caret_width(p, n)) > 0) {
      pending.width = w;
    }
    p = nl ? nl + 1 : end;
  }
  if (have) diagnostic_json(doc, &pending, first, b);
  sb_putc(b, ']');
  free_run(&r);
}

/* ---- hover and definition ---- */

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* the identifier at byte i of s[0..n) ([*a, *z)); false when there is none */
static bool word_at(const char *s, size_t n, size_t i, size_t *a, size_t *z) {
  if (i >= n || !ident_char(s[i])) {
    if (i == 0 || !ident_char(s[i - 1])) return false;
    i--;
  }
  size_t lo = i, hi = i;
  while (lo > 0 && ident_char(s[lo - 1])) lo--;
  while (hi < n && ident_char(s[hi])) hi++;
  if (isdigit((unsigned char)s[lo])) return false;
  *a = lo, *z = hi;
  return true;
}

/* The lines the translation attributes to the document's line l (from 1),
 * by its #line markers, each appended to lines (NUL-separated), counted. */
static int generated_lines(const pac_run *r, const char *path, long l, sbuf *lines) {
  long cur = 0;
  bool ours = false;
  int count = 0;
  for (const char *p = r->out, *end = r->out + r->out_len; p && p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    char file[1024];
    long at;
    if (n > 6 && !strncmp(p, "#line ", 6) && sscanf(p + 6, "%ld \"%1023[^\"]\"", &at, file) == 2) {
      cur = at, ours = !strcmp(file, path);
    } else {
      if (ours && cur == l && n) sb_write(lines, p, n), sb_putc(lines, 0), count++;
      cur++;
    }
    p = nl ? nl + 1 : end;
  }
  return count;
}

/* Comments put around the dollar expression hovered; pac copies comments
 * through, so what lies between them in the translation is its C. */
static const char mark_open[] = "/*pac-lsp<*/", mark_close[] = "/*>pac-lsp*/";

/* What the translation wrote between the marks, into sub (the first place:
 * a #subprog inserted twice gives the same text with other arguments). */
static bool between_marks(const pac_run *r, sbuf *sub) {
  if (!r->out) return false;
  const char *a = strstr(r->out, mark_open), *z = a ? strstr(a, mark_close) : NULL;
  if (!z) return false;
  a += sizeof mark_open - 1;
  sb_write(sub, a, (size_t)(z - a));
  return true;
}

static void hover_text(sbuf *b, const char *md, size_t n) {
  sb_puts(b, "{\"contents\":{\"kind\":\"markdown\",\"value\":");
  json_write_string(b, md, n);
  sb_putc(b, '}');
  sb_putc(b, '}');
}

/* hover inside the dollar expression [a, z) of line l (at s in the text) */
static void hover_dollar(const lsp_env *env, const lsp_doc *doc, long l, const char *s, size_t a, size_t z,
                         sbuf *b) {
  size_t off = (size_t)(s - doc->text);
  sbuf text, md, sub, lines;
  sb_init(&text), sb_init(&md), sb_init(&sub), sb_init(&lines);
  sb_write(&text, doc->text, off + a), sb_puts(&text, mark_open), sb_write(&text, s + a, z - a);
  sb_puts(&text, mark_close), sb_write(&text, s + z, doc->len - off - z);
  lsp_doc marked = *doc;
  marked.text = text.s, marked.len = text.len;
  pac_run r;
  run_pac(env, &marked, NULL, &r);
  if (r.status == 0 && between_marks(&r, &sub)) {
    sb_printf(&md, "`%.*s` is\n```c\n%s\n```", (int)(z - a), s + a, sub.s);
  } else {
    free_run(&r);
    run_pac(env, doc, NULL, &r);
    int count = r.status == 0 ? generated_lines(&r, doc->path, l + 1, &lines) : 0;
    if (count) sb_puts(&md, "the translation of this line:\n```c\n");
    const char *g = lines.s;
    for (int k = 0; k < count; k++, g += strlen(g) + 1) sb_printf(&md, "%s\n", g);
    if (count) sb_puts(&md, "```");
  }
  if (md.len) hover_text(b, md.s, md.len);
  else sb_puts(b, "null");
  sb_free(&text), sb_free(&md), sb_free(&sub), sb_free(&lines), free_run(&r);
}

void lsp_hover(const lsp_env *env, const lsp_doc *doc, lsp_pos p, sbuf *b) {
  size_t n, a, z;
  const char *s = p.line >= 0 ? doc_line(doc, p.line, &n) : NULL;
  if (!s || p.character < 0) {
    sb_puts(b, "null");
    return;
  }
  size_t i = utf16_to_byte(s, n, p.character);
  /* inside a $...$ pair of this line? */
  for (const char *d = memchr(s, '$', n); d;) {
    const char *e = memchr(d + 1, '$', (size_t)(s + n - d - 1));
    if (!e) break;
    if ((size_t)(d - s) <= i && i <= (size_t)(e - s)) {
      hover_dollar(env, doc, p.line, s, (size_t)(d - s), (size_t)(e - s) + 1, b);
      return;
    }
    d = memchr(e + 1, '$', (size_t)(s + n - e - 1));
  }
  if (!word_at(s, n, i, &a, &z)) {
    sb_puts(b, "null");
    return;
  }
  char *name = strndup(s + a, z - a);
  pac_run r;
  run_pac(env, doc, name, &r);
  if (r.status == 0 && r.out_len) {
    sbuf md;
    sb_init(&md);
    sb_printf(&md, "```\n%.*s```", (int)r.out_len, r.out);
    hover_text(b, md.s, md.len);
    sb_free(&md);
  } else {
    sb_puts(b, "null");
  }
  free_run(&r), free(name);
}

/* Does line s[0..n) define name: "#parray {...} NAME" or "#subprog NAME(..."?
 * The column of the name, or -1. */
static long defines(const char *s, size_t n, const char *name, size_t len) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  size_t at;
  if (n - i > 8 && !strncmp(s + i, "#subprog", 8)) {
    at = i + 8;
    while (at < n && (s[at] == ' ' || s[at] == '\t')) at++;
  } else if (n - i > 7 && !strncmp(s + i, "#parray", 7)) {
    size_t e = n;
    while (e > i && (s[e - 1] == ' ' || s[e - 1] == '\t')) e--;
    at = e;
    while (at > i && ident_char(s[at - 1])) at--;
  } else {
    return -1;
  }
  if (at + len <= n && !memcmp(s + at, name, len) && (at + len == n || !ident_char(s[at + len]))) return (long)at;
  return -1;
}

void lsp_definition(const lsp_doc *doc, lsp_pos p, sbuf *b) {
  size_t n, a, z;
  const char *s = p.line >= 0 ? doc_line(doc, p.line, &n) : NULL;
  if (!s || p.character < 0 || !word_at(s, n, utf16_to_byte(s, n, p.character), &a, &z)) {
    sb_puts(b, "null");
    return;
  }
  const char *name = s + a, *end = doc->text + doc->len;
  size_t len = z - a;
  long l = 0;
  for (const char *t = doc->text; t < end; l++) {
    const char *nl = memchr(t, '\n', (size_t)(end - t));
    size_t ln = (size_t)((nl ? nl : end) - t);
    if (ln && t[ln - 1] == '\r') ln--;
    long col = defines(t, ln, name, len);
    if (col >= 0) {
      long u0 = utf16_units(t, (size_t)col), u1 = u0 + utf16_units(name, len);
      sb_puts(b, "{\"uri\":");
      json_write_string(b, doc->uri, strlen(doc->uri));
      sb_printf(b, ",\"range\":{\"start\":{\"line\":%ld,\"character\":%ld},\"end\":{\"line\":%ld,\"character\":%ld}}}",
                l, u0, l, u1);
      return;
    }
    t = nl ? nl + 1 : end;
  }
  sb_puts(b, "null");
}
