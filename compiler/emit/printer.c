/* SPDX-License-Identifier: Apache-2.0 */
/* printer.c - output assembly with line bookkeeping (see printer.h). */
#include "printer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pr_init(printer *p, srcfile *src, bool lines) {
  memset(p, 0, sizeof *p);
  p->src = src, p->lines = lines;
  sbuf q;
  sb_init(&q);
  sb_putc(&q, '"');
  for (const char *c = src->name; *c; c++) {
    if (*c == '"' || *c == '\\') sb_putc(&q, '\\');
    sb_putc(&q, *c);
  }
  sb_putc(&q, '"');
  p->fname = sb_take(&q);
  pr_toplevel(p, 0);
}

void pr_free(printer *p) {
  for (int i = 0; i < p->nchunks; i++) sb_free(&p->chunks[i].hoist), sb_free(&p->chunks[i].body);
  free(p->chunks);
  /* bodies still open: the buffers pushed (the first output around them is a chunk's) */
  for (int i = 0; i < p->nstack; i++) {
    sbuf *b = i + 1 < p->nstack ? p->stack[i + 1] : p->cur;
    sb_free(b);
    free(b);
  }
  free(p->stack);
  free((char *)p->fname);
}

/* the file name of offset off as a C string literal */
static const char *quoted_name(printer *p, uint32_t off) {
  return p->src->nsegs ? p->src->segs[src_seg(p->src, off)].quoted : p->fname;
}

const char *pr_file_literal(printer *p, uint32_t off) { return quoted_name(p, off); }

static int count_nl(const char *s, size_t n) {
  int k = 0;
  for (const char *p = s, *e = s + n; (p = memchr(p, '\n', (size_t)(e - p))); p++) k++;
  return k;
}

static bool at_line_start(sbuf *b) { return b->len == 0 || b->s[b->len - 1] == '\n'; }

static void line_marker(printer *p, uint32_t off) {
  if (!p->lines) return;
  if (!at_line_start(p->cur)) sb_putc(p->cur, '\n');
  sb_printf(p->cur, "#line %d %s\n", src_line(p->src, off), quoted_name(p, off));
}

char *pr_line_text(printer *p, arena *ar, uint32_t off) {
  if (!p->lines) return arena_strdup(ar, "");
  return arena_printf(ar, "#line %d %s\n", src_line(p->src, off), quoted_name(p, off));
}

void pr_src_to(printer *p, uint32_t off) {
  if (off <= p->copied) return;
  if (p->need_line) {
    /* a blank rest of the line after generated code is dropped, and the
     * marker names the next line */
    uint32_t q = p->copied;
    while (q < off && (p->src->text[q] == ' ' || p->src->text[q] == '\t' || p->src->text[q] == '\r')) q++;
    if (q < off && p->src->text[q] == '\n') p->copied = q + 1;
    /* resume at the start of the source line so columns stay right */
    uint32_t ls = src_line_start_of(p->src, p->copied);
    bool blank = true;
    for (uint32_t i = ls; i < p->copied; i++)
      if (p->src->text[i] != ' ' && p->src->text[i] != '\t') blank = false;
    if (p->lines) {
      line_marker(p, p->copied);
      if (blank) sb_write(p->cur, p->src->text + ls, p->copied - ls);
    } else if (p->copied > q && (!p->cur->len || p->cur->s[p->cur->len - 1] != '\n')) {
      sb_putc(p->cur, '\n'); /* the dropped newline, when no marker stands for it */
    }
    p->need_line = false;
  }
  if (off <= p->copied) return;
  /* the physical text: line splices pass through as they are */
  uint32_t pb = src_phys(p->src, p->copied), pe = src_phys(p->src, off);
  sb_write(p->cur, src_ptext(p->src) + pb, pe - pb);
  p->copied = off;
}

void pr_replace(printer *p, uint32_t b, uint32_t e, const char *text) {
  pr_src_to(p, b);
  size_t tl = strlen(text);
  uint32_t pb = src_phys(p->src, b), pe = src_phys(p->src, e);
  int tn = count_nl(text, tl), sn = count_nl(src_ptext(p->src) + pb, pe - pb);
  sb_write(p->cur, text, tl);
  if (tn < sn)
    for (int i = tn; i < sn; i++) sb_putc(p->cur, '\n');
  else if (tn > sn)
    p->need_line = true;
  if (e > p->copied) p->copied = e;
}

void pr_gen(printer *p, const char *text) {
  size_t n = strlen(text);
  sb_write(p->cur, text, n);
  if (count_nl(text, n)) p->need_line = true;
}

void pr_toplevel(printer *p, uint32_t at) {
  if (p->nstack) return; /* inside an outlined body: no new top-level item */
  pr_src_to(p, at);
  if (p->nchunks == p->capchunks) {
    p->capchunks = p->capchunks ? p->capchunks * 2 : 64;
    p->chunks = realloc(p->chunks, sizeof *p->chunks * (size_t)p->capchunks);
  }
  pchunk *c = &p->chunks[p->nchunks++];
  sb_init(&c->hoist);
  sb_init(&c->body);
  c->src_start = at;
  p->cur = &c->body;
}

static void push(printer *p) {
  sbuf *b = malloc(sizeof *b);
  if (p->nstack == p->capstack) {
    p->capstack = p->capstack ? 2 * p->capstack : 16;
    p->stack = realloc(p->stack, sizeof *p->stack * (size_t)p->capstack);
  }
  if (!b || !p->stack) {
    fputs("pac: out of memory\n", stderr);
    abort();
  }
  sb_init(b);
  p->stack[p->nstack++] = p->cur;
  p->cur = b;
}

static char *pop(printer *p, arena *ar) {
  sbuf *b = p->cur;
  p->cur = p->stack[--p->nstack];
  char *s = arena_strndup(ar, b->s ? b->s : "", b->len);
  sb_free(b);
  free(b);
  return s;
}

bool pr_outlining(const printer *p) { return p->nstack > 0; }

void pr_outline_begin(printer *p, pr_outline *o, uint32_t at, uint32_t from) {
  o->need_line = p->need_line;
  o->at = at;
  pr_src_to(p, at);
  push(p);
  p->copied = from;
  p->need_line = true;
}

char *pr_outline_end(printer *p, pr_outline *o, uint32_t to, arena *ar) {
  pr_src_to(p, to);
  char *text = pop(p, ar);
  p->copied = o->at;
  p->need_line = o->need_line;
  return text;
}

void pr_need_line(printer *p) { p->need_line = p->lines; }

void pr_jump(printer *p, uint32_t off) {
  p->copied = off;
  p->need_line = true;
}

void pr_hoist(printer *p, const char *text) { sb_puts(&p->chunks[p->nchunks - 1].hoist, text); }

/* fwrite that remembers the last byte written (for the newline decisions) */
static void put(FILE *f, const char *s, size_t n, char *last) {
  if (!n) return;
  fwrite(s, 1, n, f);
  *last = s[n - 1];
}

void pr_finish(printer *p, uint32_t end, FILE *out, const char *prologue) {
  pr_src_to(p, end);
  char last = '\n';
  put(out, prologue, strlen(prologue), &last);
  if (p->lines) fprintf(out, "#line 1 %s\n", p->fname), last = '\n';
  for (int i = 0; i < p->nchunks; i++) {
    pchunk *c = &p->chunks[i];
    if (c->hoist.len) {
      if (last != '\n') put(out, "\n", 1, &last);
      put(out, c->hoist.s, c->hoist.len, &last);
      if (last != '\n') put(out, "\n", 1, &last);
      if (p->lines) {
        /* resume at the start of the item's line */
        uint32_t ls = src_line_start_of(p->src, c->src_start);
        fprintf(out, "#line %d %s\n", src_line(p->src, c->src_start), quoted_name(p, c->src_start));
        bool blank = true;
        for (uint32_t k = ls; k < c->src_start; k++)
          if (p->src->text[k] != ' ' && p->src->text[k] != '\t') blank = false;
        if (blank) put(out, p->src->text + ls, c->src_start - ls, &last);
      }
    }
    put(out, c->body.s, c->body.len, &last);
  }
}
