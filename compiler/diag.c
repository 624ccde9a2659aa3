/* diag.c - source file loading, offset-to-line mapping and the printing of
 * diagnostics with the source line and a caret under the range. */
#include "diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int src_load(srcfile *f, const char *path, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
    return -1;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap + 2);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len, fp)) > 0) {
    len += got;
    if (len == cap) {
      if (cap >= ((size_t)1 << 31)) {
        snprintf(err, errlen, "'%s' is larger than 2 GiB", path);
        free(buf);
        fclose(fp);
        return -1;
      }
      cap *= 2;
      char *nb = realloc(buf, cap + 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  int rerr = ferror(fp);
  fclose(fp);
  if (!buf || rerr) {
    snprintf(err, errlen, "cannot read '%s'", path);
    free(buf);
    return -1;
  }
  buf[len] = buf[len + 1] = 0;
  f->name = path;
  f->text = buf;
  f->len = (uint32_t)len;
  return 0;
}

void src_from_string(srcfile *f, const char *name, const char *text, uint32_t len) {
  memset(f, 0, sizeof *f);
  char *buf = malloc((size_t)len + 2);
  memcpy(buf, text, len);
  buf[len] = buf[len + 1] = 0;
  f->name = name, f->text = buf, f->len = len;
}

void src_free(srcfile *f) {
  free((char *)f->text);
  free(f->lines);
  memset(f, 0, sizeof *f);
}

static void index_lines(srcfile *f) {
  if (f->lines) return;
  int n = 1;
  for (uint32_t i = 0; i < f->len; i++) n += f->text[i] == '\n';
  f->lines = malloc(sizeof *f->lines * (size_t)(n + 1));
  int k = 0;
  f->lines[k++] = 0;
  for (uint32_t i = 0; i < f->len; i++)
    if (f->text[i] == '\n') f->lines[k++] = i + 1;
  f->lines[k] = f->len + 1;
  f->nlines = n;
}

int src_line(srcfile *f, uint32_t off) {
  index_lines(f);
  int lo = 0, hi = f->nlines - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (f->lines[mid] <= off) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

uint32_t src_line_start(srcfile *f, int line) {
  index_lines(f);
  if (line < 1) line = 1;
  if (line > f->nlines) line = f->nlines;
  return f->lines[line - 1];
}

int src_col(srcfile *f, uint32_t off) { return (int)(off - src_line_start(f, src_line(f, off))) + 1; }

void diag_init(diag *d, srcfile *src, FILE *out) {
  memset(d, 0, sizeof *d);
  d->src = src, d->out = out, d->max_errors = 50;
}

static void show_line(diag *d, loc l) {
  srcfile *f = d->src;
  if (!f || l.b > f->len) return;
  int line = src_line(f, l.b);
  uint32_t ls = src_line_start(f, line), le = ls;
  while (le < f->len && f->text[le] != '\n') le++;
  char num[16];
  int w = snprintf(num, sizeof num, "%d", line);
  fprintf(d->out, " %s | %.*s\n %*s | ", num, (int)(le - ls), f->text + ls, w, "");
  for (uint32_t i = ls; i < l.b; i++) fputc(f->text[i] == '\t' ? '\t' : ' ', d->out);
  fputc('^', d->out);
  uint32_t end = l.e < le ? l.e : le;
  for (uint32_t i = l.b + 1; i < end; i++) fputc('~', d->out);
  fputc('\n', d->out);
}

static void vreport(diag *d, const char *kind, loc l, const char *fmt, va_list ap) {
  if (d->src)
    fprintf(d->out, "%s:%d:%d: %s: ", d->src->name, src_line(d->src, l.b), src_col(d->src, l.b), kind);
  else
    fprintf(d->out, "pac: %s: ", kind);
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
  show_line(d, l);
}

static int over_limit(diag *d) { return d->max_errors && d->errors > d->max_errors; }

static void print_context(diag *d) {
  for (int i = d->nctx - 1; i >= 0; i--) {
    va_list dummy;
    (void)dummy;
    fprintf(d->out, "%s:%d:%d: note: %s\n", d->src->name, src_line(d->src, d->ctx[i].at.b),
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

void diag_plain_error(diag *d, const char *fmt, ...) {
  d->errors++;
  va_list ap;
  va_start(ap, fmt);
  fprintf(d->out, "pac: error: ");
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
  va_end(ap);
}

void diag_push_context(diag *d, loc at, const char *what) {
  if (d->nctx < DIAG_MAX_CONTEXT) d->ctx[d->nctx].at = at, d->ctx[d->nctx].what = what;
  d->nctx++;
}

void diag_pop_context(diag *d) {
  if (d->nctx > 0) d->nctx--;
}
