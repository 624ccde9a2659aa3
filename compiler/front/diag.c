/* SPDX-License-Identifier: Apache-2.0 */
/* diag.c - the printing of diagnostics with the source line and a caret
 * under the range (source files and line numbers: source.c). */
#include "diag.h"

#include <stdbool.h>
#include <stdarg.h>
#include <string.h>

void diag_init(diag *d, srcfile *src, FILE *out) {
  memset(d, 0, sizeof *d);
  d->src = src, d->out = out, d->max_errors = 50;
}

/* How much of a long source line a diagnostic shows: this many bytes before
 * the caret, the range up to SHOW_RANGE bytes, and SHOW_AFTER bytes after
 * it; what is cut off is marked with "...". */
enum { SHOW_BEFORE = 100, SHOW_RANGE = 200, SHOW_AFTER = 100 };

static bool utf8_cont(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

/* The source line of l with a caret under its start and '~' under the rest
 * of the range, only a window of it when the line is long (the time and
 * output do not grow with the line's length). */
static void show_line(diag *d, loc l) {
  srcfile *f = d->src;
  if (!f || l.b > f->len) return;
  int line = src_line(f, l.b);
  const char *text = src_ptext(f);
  uint32_t len = f->phys ? f->plen : f->len;
  l = (loc){src_phys(f, l.b), src_phys(f, l.e)}; /* the window is of the physical line */
  uint32_t ls = src_pline_start(f, l.b);
  /* the end of the line, looked for only as far as the window can reach */
  uint32_t reach = len - l.b > SHOW_RANGE + SHOW_AFTER + 8 ? l.b + SHOW_RANGE + SHOW_AFTER + 8 : len;
  const char *nl = memchr(text + l.b, '\n', reach - l.b);
  uint32_t le = nl ? (uint32_t)(nl - text) : reach;
  if (ls > l.b) ls = l.b;
  /* the window [ws, we): whole UTF-8 characters */
  uint32_t ws = l.b - ls > SHOW_BEFORE ? l.b - SHOW_BEFORE : ls;
  while (ws > ls && ws < l.b && utf8_cont(text[ws])) ws++;
  uint32_t re = l.e < le ? l.e : le;
  if (re < l.b + 1) re = l.b + 1;
  if (re - l.b > SHOW_RANGE) re = l.b + SHOW_RANGE;
  uint32_t we = re < le && le - re > SHOW_AFTER ? re + SHOW_AFTER : le;
  while (we < le && utf8_cont(text[we])) we++;
  const char *cut_b = ws > ls ? "..." : "", *cut_e = we < le ? "..." : "";
  char num[16];
  int w = snprintf(num, sizeof num, "%d", line);
  fprintf(d->out, " %s | %s", num, cut_b);
  fwrite(text + ws, 1, we - ws, d->out); /* bytes as they are, NULs too */
  fprintf(d->out, "%s\n %*s | %*s", cut_e, w, "", (int)strlen(cut_b), "");
  char caret[SHOW_BEFORE + SHOW_RANGE + SHOW_AFTER + 8];
  size_t n = 0;
  for (uint32_t i = ws; i < l.b; i++) caret[n++] = text[i] == '\t' ? '\t' : ' ';
  caret[n++] = '^';
  uint32_t te = l.e < we ? l.e : we;
  for (uint32_t i = l.b + 1; i < te && n < sizeof caret - 1; i++) caret[n++] = '~';
  caret[n++] = '\n';
  fwrite(caret, 1, n, d->out);
}

static void vreport(diag *d, const char *kind, loc l, const char *fmt, va_list ap) {
  if (d->src)
    fprintf(d->out, "%s:%d:%d: %s: ", src_name(d->src, l.b), src_line(d->src, l.b), src_col(d->src, l.b), kind);
  else
    fprintf(d->out, "pac: %s: ", kind);
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
  show_line(d, l);
}

static int over_limit(diag *d) { return d->max_errors && d->errors > d->max_errors; }

static void print_context(diag *d) {
  int top = d->nctx < DIAG_MAX_CONTEXT ? d->nctx : DIAG_MAX_CONTEXT;
  for (int i = top - 1; i >= 0; i--) {
    fprintf(d->out, "%s:%d:%d: note: %s\n", src_name(d->src, d->ctx[i].at.b), src_line(d->src, d->ctx[i].at.b),
            src_col(d->src, d->ctx[i].at.b), d->ctx[i].what);
    show_line(d, d->ctx[i].at);
  }
}

void diag_error(diag *d, loc l, const char *fmt, ...) {
  d->errors++;
  if (over_limit(d)) return;
  va_list ap;
  va_start(ap, fmt);
  vreport(d, "error", l, fmt, ap);
  va_end(ap);
  print_context(d);
  if (d->errors == d->max_errors) fprintf(d->out, "pac: too many errors; stopping here\n");
}

void diag_warning(diag *d, loc l, const char *fmt, ...) {
  if (d->no_warnings) return;
  d->warnings++;
  va_list ap;
  va_start(ap, fmt);
  vreport(d, "warning", l, fmt, ap);
  va_end(ap);
  print_context(d);
}

void diag_note(diag *d, loc l, const char *fmt, ...) {
  if (over_limit(d)) return;
  va_list ap;
  va_start(ap, fmt);
  vreport(d, "note", l, fmt, ap);
  va_end(ap);
}

/* "pac: KIND: message", with no source position */
static void vplain(diag *d, const char *kind, const char *fmt, va_list ap) {
  fprintf(d->out, "pac: %s: ", kind);
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
}

void diag_plain_error(diag *d, const char *fmt, ...) {
  d->errors++;
  va_list ap;
  va_start(ap, fmt);
  vplain(d, "error", fmt, ap);
  va_end(ap);
}

void diag_plain_warning(diag *d, const char *fmt, ...) {
  if (d->no_warnings) return;
  d->warnings++;
  va_list ap;
  va_start(ap, fmt);
  vplain(d, "warning", fmt, ap);
  va_end(ap);
}

void diag_push_context(diag *d, loc at, const char *what) {
  if (d->nctx < DIAG_MAX_CONTEXT) d->ctx[d->nctx].at = at, d->ctx[d->nctx].what = what;
  d->nctx++;
}

void diag_pop_context(diag *d) {
  if (d->nctx > 0) d->nctx--;
}
