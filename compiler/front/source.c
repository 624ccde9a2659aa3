/* SPDX-License-Identifier: Apache-2.0 */
/* source.c - loading source files (the main .pc file and the .pc files it
 * includes, in one buffer), removing line splices, and mapping offsets to
 * files, lines and columns (see source.h). */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *quote_name(const char *path) {
  size_t n = strlen(path);
  char *q = malloc(2 * n + 3), *p = q;
  *p++ = '"';
  for (const char *c = path; *c; c++) {
    if (*c == '"' || *c == '\\') *p++ = '\\';
    *p++ = *c;
  }
  *p++ = '"';
  *p = 0;
  return q;
}

/* The length of a line splice at p (a backslash, blanks as GCC allows
 * them, a newline), or 0. */
static uint32_t splice_len(const char *p, const char *end) {
  const char *q = p + 1;
  while (q < end && (*q == ' ' || *q == '\t' || *q == '\f' || *q == '\v' || *q == '\r')) q++;
  return q < end && *q == '\n' ? (uint32_t)(q + 1 - p) : 0;
}

/* Take buf (len bytes, two NULs after) as the physical text of f, and make
 * the logical text by removing its line splices (translation phase 2). */
static void adopt(srcfile *f, const char *name, char *buf, uint32_t len) {
  f->name = name;
  f->text = buf, f->len = len;
  f->segs = calloc(1, sizeof *f->segs);
  f->segs[0] = (srcseg){name, quote_name(name), 0, len, 0, 1};
  f->nsegs = 1;
  const char *end = buf + len, *p = buf;
  while ((p = memchr(p, '\\', (size_t)(end - p))) && !splice_len(p, end)) p++;
  if (!p) return;
  char *lt = malloc((size_t)len + 2), *o = lt;
  const char *from = buf;
  int cap = 0;
  uint32_t cum = 0;
  for (; p; p = memchr(p, '\\', (size_t)(end - p))) {
    uint32_t n = splice_len(p, end);
    if (!n) {
      p++;
      continue;
    }
    memcpy(o, from, (size_t)(p - from));
    o += p - from;
    from = p + n;
    cum += n;
    if (f->nspl == cap) {
      cap = cap ? 2 * cap : 16;
      f->spl = realloc(f->spl, sizeof *f->spl * (size_t)cap);
    }
    f->spl[f->nspl++] = (srcsplice){(uint32_t)(o - lt), cum};
    p = from;
  }
  memcpy(o, from, (size_t)(end - from));
  o += end - from;
  o[0] = o[1] = 0;
  f->phys = buf, f->plen = len;
  f->text = lt, f->len = (uint32_t)(o - lt);
  f->segs[0].len = f->len;
}

uint32_t src_phys_spliced(const srcfile *f, uint32_t off) {
  int lo = 0, hi = f->nspl - 1; /* the last splice at or before off */
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (f->spl[mid].at <= off) lo = mid;
    else hi = mid - 1;
  }
  return off + f->spl[lo].cum;
}

/* the logical offset of a physical one (which is not inside a splice) */
static uint32_t src_logical(const srcfile *f, uint32_t poff) {
  if (!f->nspl || poff < f->spl[0].at + f->spl[0].cum) return poff;
  int lo = 0, hi = f->nspl - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (f->spl[mid].at + f->spl[mid].cum <= poff) lo = mid;
    else hi = mid - 1;
  }
  return poff - f->spl[lo].cum;
}

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
  adopt(f, path, buf, (uint32_t)len);
  return 0;
}

/* dst (len bytes) grown by an optional newline and src (n bytes), with two NULs */
static char *append_text(const char *dst, uint32_t len, bool nl, const char *src, uint32_t n) {
  char *t = realloc((char *)dst, (size_t)len + (nl ? 1 : 0) + n + 2);
  if (!t) return NULL;
  if (nl) t[len++] = '\n';
  memcpy(t + len, src, n);
  t[len + n] = t[len + n + 1] = 0;
  return t;
}

int src_append_file(srcfile *f, const char *path, char *err, size_t errlen) {
  srcfile g;
  if (src_load(&g, path, err, errlen)) return -1;
  /* the previous text ends with a newline, so no line spans two files */
  bool nl = f->len > 0 && f->text[f->len - 1] != '\n';
  bool pnl = f->len > 0 && src_ptext(f)[(f->phys ? f->plen : f->len) - 1] != '\n';
  size_t base = f->len + (nl ? 1 : 0), pold = f->phys ? f->plen : f->len, pbase = pold + (pnl ? 1 : 0);
  size_t plen = pbase + (g.phys ? g.plen : g.len);
  if (plen + 2 > UINT32_MAX) {
    snprintf(err, errlen, "'%s' makes the translation larger than 4 GiB", path);
    src_free(&g);
    return -1;
  }
  char *phys = NULL;
  if (f->phys || g.phys) {
    /* the physical text is kept apart from now on */
    char *old = (char *)f->phys;
    if (!old && (old = malloc((size_t)f->len + 2))) memcpy(old, f->text, (size_t)f->len + 2);
    phys = old ? append_text(old, (uint32_t)pold, pnl, src_ptext(&g), g.phys ? g.plen : g.len) : NULL;
    if (phys) f->phys = phys, f->plen = (uint32_t)plen;
  }
  char *t = (f->phys && !phys) ? NULL : append_text(f->text, f->len, nl, g.text, g.len);
  if (!t) {
    snprintf(err, errlen, "out of memory reading '%s'", path);
    src_free(&g);
    return -1;
  }
  f->text = t;
  f->len = (uint32_t)(base + g.len);
  /* the new segment starts pbase - base bytes further on in the physical text */
  uint32_t cum = (uint32_t)(pbase - base);
  bool shift = cum != (f->nspl ? f->spl[f->nspl - 1].cum : 0);
  if (g.nspl || shift) {
    f->spl = realloc(f->spl, sizeof *f->spl * (size_t)(f->nspl + g.nspl + 1));
    if (shift) f->spl[f->nspl++] = (srcsplice){(uint32_t)base, cum};
    for (int i = 0; i < g.nspl; i++)
      f->spl[f->nspl++] = (srcsplice){g.spl[i].at + (uint32_t)base, g.spl[i].cum + cum};
  }
  free(f->lines);
  f->lines = NULL;
  f->segs = realloc(f->segs, sizeof *f->segs * (size_t)(f->nsegs + 1));
  f->segs[f->nsegs] = (srcseg){path, quote_name(path), (uint32_t)base, g.len, (uint32_t)pbase, 0};
  src_free(&g);
  return f->nsegs++;
}

int src_seg(const srcfile *f, uint32_t off) {
  int k = 0;
  for (int i = 1; i < f->nsegs; i++)
    if (f->segs[i].base <= off) k = i;
  return k;
}

const char *src_name(const srcfile *f, uint32_t off) { return f->nsegs ? f->segs[src_seg(f, off)].name : f->name; }

void src_from_string(srcfile *f, const char *name, const char *text, uint32_t len) {
  memset(f, 0, sizeof *f);
  char *buf = malloc((size_t)len + 2);
  memcpy(buf, text, len);
  buf[len] = buf[len + 1] = 0;
  adopt(f, name, buf, len);
}

void src_free(srcfile *f) {
  free((char *)f->text);
  free((char *)f->phys);
  free(f->spl);
  free(f->lines);
  for (int i = 0; i < f->nsegs; i++) free((char *)f->segs[i].quoted);
  free(f->segs);
  memset(f, 0, sizeof *f);
}

static void index_lines(srcfile *f) {
  if (f->lines) return;
  int n = 1;
  uint32_t len = f->phys ? f->plen : f->len;
  const char *t = src_ptext(f), *end = t + len;
  for (const char *p = t; (p = memchr(p, '\n', (size_t)(end - p))); p++) n++;
  f->lines = malloc(sizeof *f->lines * (size_t)(n + 1));
  int k = 0;
  f->lines[k++] = 0;
  for (const char *p = t; (p = memchr(p, '\n', (size_t)(end - p))); p++) f->lines[k++] = (uint32_t)(p - t) + 1;
  f->lines[k] = len + 1;
  f->nlines = n;
  for (int i = 0; i < f->nsegs; i++) f->segs[i].first_line = 0;
  for (int i = 0; i < f->nsegs; i++) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) / 2;
      if (f->lines[mid] <= f->segs[i].pbase) lo = mid;
      else hi = mid - 1;
    }
    f->segs[i].first_line = lo + 1;
  }
}

static int global_line(srcfile *f, uint32_t off) {
  index_lines(f);
  /* lookups mostly move forward through the file: try the last line and the next few first */
  int h = f->line_hint;
  if (h >= 0 && h < f->nlines && f->lines[h] <= off)
    for (int k = h; k < f->nlines && k < h + 8; k++)
      if (off < f->lines[k + 1]) return (f->line_hint = k) + 1;
  int lo = 0, hi = f->nlines - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (f->lines[mid] <= off) lo = mid;
    else hi = mid - 1;
  }
  f->line_hint = lo;
  return lo + 1;
}

int src_line(srcfile *f, uint32_t off) {
  int g = global_line(f, src_phys(f, off));
  return f->nsegs ? g - f->segs[src_seg(f, off)].first_line + 1 : g;
}

/* start offset of a global line number */
static uint32_t global_line_start(srcfile *f, int line) {
  index_lines(f);
  if (line < 1) line = 1;
  if (line > f->nlines) line = f->nlines;
  return f->lines[line - 1];
}

uint32_t src_pline_start(srcfile *f, uint32_t poff) { return global_line_start(f, global_line(f, poff)); }

uint32_t src_line_start_of(srcfile *f, uint32_t off) { return src_logical(f, src_pline_start(f, src_phys(f, off))); }

int src_col(srcfile *f, uint32_t off) {
  uint32_t p = src_phys(f, off);
  return (int)(p - src_pline_start(f, p)) + 1;
}
