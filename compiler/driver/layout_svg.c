/* SPDX-License-Identifier: Apache-2.0 */
/* layout_svg.c - `pac --layout TYPE --svg FILE`: the picture of a type's
 * layout. The last two top-level dimensions are the rows and columns of a
 * grid whose cells hold the element's offset (a thread array's cells: the
 * thread's $tid$); the dimensions before them number a row of slices. Cells
 * are coloured by tile (the slice, and the first child of a split row or
 * column dimension), by the process holding them (distributed types), by
 * CUDA block, or by thread. An axis longer than AX_MAX is drawn as its first AX_HEAD indices,
 * an ellipsis band and its last index, so the picture stays small whatever
 * the type's size. Offsets, processes and thread digits all come from the
 * layout algebra (ty_offset_index, ty_proc_linear, ty_tid_digit). */
#include "layout_svg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  AX_MAX = 16,   /* an axis longer than this is summarised ... */
  AX_HEAD = 12,  /* ... to its first AX_HEAD indices, a band and its last */
  AX_MAX_SL = 10, /* the same for the axes of one slice of several */
  AX_HEAD_SL = 8,
  SL_MAX = 6,    /* the same for the row of slices */
  SL_HEAD = 4,
  MAX_DIMS = 16, /* top-level dimensions drawn */
  MAX_KEYS = 2048,
  MARGIN = 10,
  CAP_LINE = 16, /* height of a caption line */
  BAND = 16,     /* width (columns) and height (rows) of an ellipsis band */
  SL_GAP = 24,   /* between slices */
  CHAR_W = 7     /* width of a character at font-size 11 (monospace) */
};

typedef struct axis {
  int64_t n;                 /* extent */
  int64_t at[AX_MAX + 2];    /* the indices drawn, in order; -1: the band */
  int nat;
  bool cut;
} axis;

typedef enum { BY_BLOCK, BY_PROC, BY_CUDA_BLOCK, BY_THREAD } colour_by;

typedef struct pic {
  tyctx *t;
  ptype *ty;
  dnode *n;
  dnode *dims[MAX_DIMS]; /* the top-level dimensions (n itself when it has fewer than two) */
  int64_t ext[MAX_DIMS], wt[MAX_DIMS]; /* their extents and weights in n's linear index */
  int nd;
  axis sl, rows, cols;
  colour_by by;
  int64_t keys[MAX_KEYS]; /* the colour groups drawn, sorted: group keys[k] gets colour k */
  int nkeys;
  int cw, ch, rh;         /* cell width and height, width of the row headers */
  char *err;
  size_t errlen;
} pic;

/* One cell's contents. */
typedef struct cellv {
  int64_t off;    /* offset (data) or thread index (thread arrays) */
  int64_t key;    /* its colour group: tile, process, block or thread */
  char sub[64];   /* a cuda thread's block and thread digits ("b1,0 t3") */
} cellv;

__attribute__((format(printf, 2, 3))) static int fail(pic *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err, p->errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static void axis_init(axis *a, int64_t n, int max, int head) {
  a->n = n, a->nat = 0, a->cut = n > max;
  if (!a->cut) {
    for (int64_t i = 0; i < n; i++) a->at[a->nat++] = i;
    return;
  }
  for (int i = 0; i < head; i++) a->at[a->nat++] = i;
  a->at[a->nat++] = -1;
  a->at[a->nat++] = n - 1;
}

/* XML text and attribute values: &, <, > and " escaped (paths and element
 * types are C words, but an element type may come from a macro) */
static void put_esc(sbuf *o, const char *s) {
  for (; *s; s++) {
    if (*s == '&') sb_puts(o, "&amp;");
    else if (*s == '<') sb_puts(o, "&lt;");
    else if (*s == '>') sb_puts(o, "&gt;");
    else if (*s == '"') sb_puts(o, "&quot;");
    else sb_putc(o, *s);
  }
}

/* Colour k (the k-th group in key order): hues 137.3 degrees apart, distinct
 * for the first 3600, light enough for black text. */
static void put_colour(sbuf *o, int k) {
  int h = (int)(((int64_t)k * 1373) % 3600);
  sb_printf(o, "hsl(%d.%d,70%%,80%%)", h / 10, h % 10);
}

static int colour_of(pic *p, int64_t key) {
  for (int k = 0; k < p->nkeys; k++)
    if (p->keys[k] == key) return k;
  if (p->nkeys == MAX_KEYS) return MAX_KEYS - 1; /* more groups than cells drawn: cannot happen */
  p->keys[p->nkeys] = key;
  return p->nkeys++;
}

static int cmp_key(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static bool split(const dnode *d) { return d->kind != DN_LEAF && d->nkids >= 2; }

/* The dimensions, their extents, the axes and what colours the cells. */
static int setup(pic *p) {
  dnode *n = p->n;
  p->nd = split(n) ? n->nkids : 1;
  if (p->nd > MAX_DIMS)
    return fail(p, "'%s' has %d top-level dimensions; a picture draws at most %d", n->path, p->nd, MAX_DIMS);
  for (int j = 0; j < p->nd; j++) {
    p->dims[j] = p->nd > 1 ? n->kids[j] : n;
    if (!ex_is_const(p->dims[j]->size, &p->ext[j]) || p->ext[j] < 1)
      return fail(p, "the size of '%s' is not a positive compile-time constant, so '%s' cannot be drawn "
                  "(give its macros with -D)", p->dims[j]->path, n->path);
  }
  int64_t w = 1, slices = 1;
  for (int j = p->nd - 1; j >= 0; j--) {
    p->wt[j] = w;
    if (__builtin_mul_overflow(w, p->ext[j], &w)) return fail(p, "'%s' has more than 2^63 elements", n->path);
    if (j < p->nd - 2) slices *= p->ext[j];
  }
  axis_init(&p->sl, slices, SL_MAX, SL_HEAD);
  /* several slices: smaller ones */
  int amax = slices > 1 ? AX_MAX_SL : AX_MAX, ahead = slices > 1 ? AX_HEAD_SL : AX_HEAD;
  axis_init(&p->rows, p->nd >= 2 ? p->ext[p->nd - 2] : 1, amax, ahead);
  axis_init(&p->cols, p->ext[p->nd - 1], amax, ahead);
  if (p->ty->thread == TK_CUDA && n == p->ty->root && p->nd == 2) p->by = BY_CUDA_BLOCK;
  else if (p->ty->thread != TK_DATA) p->by = BY_THREAD;
  else if (p->ty->mpi_ref && ty_proc_layout(p->t, n)) p->by = BY_PROC;
  else p->by = BY_BLOCK;
  return 0;
}

/* The index along every top-level dimension of cell (s, r, c). */
static void digits(const pic *p, int64_t s, int64_t r, int64_t c, int64_t *idx) {
  idx[p->nd - 1] = c;
  if (p->nd >= 2) idx[p->nd - 2] = r;
  for (int j = p->nd - 3; j >= 0; j--) idx[j] = s % p->ext[j], s /= p->ext[j];
}

/* A tile: the slice (each index of the leading dimensions is a sub-array of
 * its own) and, along the rows and the columns, the digit of the first child
 * of a split dimension. */
static int64_t tile_of(const pic *p, const int64_t *idx) {
  int64_t key = 0;
  for (int j = 0; j < p->nd; j++) {
    dnode *d = p->dims[j];
    int64_t w0, n0;
    if (j < p->nd - 2) {
      key = key * p->ext[j] + idx[j];
      continue;
    }
    if (p->nd == 1 || !split(d) || !ex_is_const(d->kids[0]->weight, &w0) || w0 < 1 ||
        !ex_is_const(d->kids[0]->size, &n0))
      continue;
    key = key * n0 + idx[j] / w0;
  }
  return key;
}

/* "1,0": the digits of a cuda thread along node d's children (or d). */
static void put_tid_digits(pic *p, dnode *d, ex *tid, char *s, size_t cap) {
  size_t len = strlen(s);
  int nk = split(d) ? d->nkids : 0;
  for (int k = 0; k < (nk ? nk : 1); k++) {
    int64_t v = -1;
    ex_is_const(ty_tid_digit(p->t, nk ? d->kids[k] : d, tid), &v);
    len += (size_t)snprintf(s + len, len < cap ? cap - len : 0, "%s%lld", k ? "," : "", (long long)v);
  }
}

static int cell_value(pic *p, int64_t s, int64_t r, int64_t c, cellv *v) {
  exctx *x = p->t->ex;
  int64_t idx[MAX_DIMS], lin = 0;
  digits(p, s, r, c, idx);
  ex *off;
  if (p->nd == 1) {
    off = ty_offset_linear(p->t, p->n, ex_const(x, c));
  } else {
    ty_index ix[MAX_DIMS];
    for (int j = 0; j < p->nd; j++) ix[j] = (ty_index){.e = ex_const(x, idx[j])};
    off = ty_offset_index(p->t, p->n, ix, p->nd, (loc){0, 0});
  }
  for (int j = 0; j < p->nd; j++) lin += idx[j] * p->wt[j];
  if (!off || !ex_is_const(off, &v->off))
    return fail(p, "the offset of element %lld of '%s' is not a compile-time constant", (long long)lin, p->n->path);
  v->sub[0] = 0;
  switch (p->by) {
  case BY_BLOCK: v->key = tile_of(p, idx); break;
  case BY_THREAD: v->key = v->off; break;
  case BY_PROC: {
    ex *e = ty_proc_linear(p->t, p->n, ex_const(x, lin));
    if (!e || !ex_is_const(e, &v->key))
      return fail(p, "the process of element %lld of '%s' is not a compile-time constant", (long long)lin, p->n->path);
    break;
  }
  case BY_CUDA_BLOCK: {
    ex *tid = ex_const(x, v->off);
    v->key = idx[0];
    snprintf(v->sub, sizeof v->sub, "b");
    put_tid_digits(p, p->dims[0], tid, v->sub, sizeof v->sub);
    strncat(v->sub, " t", sizeof v->sub - strlen(v->sub) - 1);
    put_tid_digits(p, p->dims[1], tid, v->sub, sizeof v->sub);
    break;
  }
  }
  return 0;
}

/* Pass over every drawn cell: colour groups in drawing order, and the
 * widest label (for the cell width). */
static int measure(pic *p) {
  size_t widest = 3;
  for (int a = 0; a < p->sl.nat; a++)
    for (int i = 0; i < p->rows.nat; i++)
      for (int j = 0; j < p->cols.nat; j++) {
        int64_t s = p->sl.at[a], r = p->rows.at[i], c = p->cols.at[j];
        if (s < 0 || r < 0 || c < 0) continue;
        cellv v;
        if (cell_value(p, s, r, c, &v)) return -1;
        colour_of(p, v.key);
        char num[24];
        size_t l = (size_t)snprintf(num, sizeof num, "%lld", (long long)v.off);
        if (l > widest) widest = l;
        if (strlen(v.sub) > widest) widest = strlen(v.sub);
      }
  /* colours in the order of the groups (process 0 first) */
  qsort(p->keys, (size_t)p->nkeys, sizeof *p->keys, cmp_key);
  p->cw = (int)widest * CHAR_W + 10;
  if (p->cw < 32) p->cw = 32;
  p->ch = p->by == BY_CUDA_BLOCK ? 34 : 22;
  char num[24];
  p->rh = (int)snprintf(num, sizeof num, "%lld", (long long)(p->rows.n - 1)) * CHAR_W + 12;
  return 0;
}

/* Position of drawn item k of an axis (cells of size cell, bands of BAND). */
static int axis_pos(const axis *a, int k, int cell) {
  int x = 0;
  for (int i = 0; i < k; i++) x += a->at[i] < 0 ? BAND : cell;
  return x;
}

static int slice_width(const pic *p) { return p->rh + axis_pos(&p->cols, p->cols.nat, p->cw); }

/* "A[2][1][r][c]": the slice's indices along the leading dimensions. */
static void put_slice_name(const pic *p, sbuf *o, int64_t s) {
  int64_t idx[MAX_DIMS];
  digits(p, s, 0, 0, idx);
  put_esc(o, p->n->path);
  for (int j = 0; j < p->nd - 2; j++) sb_printf(o, "[%lld]", (long long)idx[j]);
  sb_puts(o, "[r][c]");
}

static void put_text(sbuf *o, int x, int y, const char *cls, const char *s) {
  sb_printf(o, "<text class=\"%s\" x=\"%d\" y=\"%d\">", cls, x, y);
  put_esc(o, s);
  sb_puts(o, "</text>\n");
}

static void put_cell(pic *p, sbuf *o, const int64_t *idx, int x, int y) {
  cellv v;
  int64_t s = idx[0], r = idx[1], c = idx[2];
  cell_value(p, s, r, c, &v); /* measure() saw every cell succeed */
  int64_t full[MAX_DIMS];
  digits(p, s, r, c, full);
  sb_puts(o, "<g class=\"cell\" data-index=\"");
  for (int j = 0; j < p->nd; j++) sb_printf(o, "%s%lld", j ? "," : "", (long long)full[j]);
  sb_printf(o, "\" data-group=\"%lld\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"", (long long)v.key,
            x, y, p->cw, p->ch);
  put_colour(o, colour_of(p, v.key));
  sb_printf(o, "\"/><text class=\"off\" x=\"%d\" y=\"%d\">%lld</text>", x + p->cw / 2, y + 15, (long long)v.off);
  if (v.sub[0]) sb_printf(o, "<text class=\"sub\" x=\"%d\" y=\"%d\">%s</text>", x + p->cw / 2, y + 28, v.sub);
  sb_puts(o, "</g>\n");
}

static void put_band(sbuf *o, int x, int y, int w, int h) {
  sb_printf(o, "<rect class=\"band\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#eee\"/>", x, y, w, h);
  sb_printf(o, "<text class=\"band\" x=\"%d\" y=\"%d\">\xe2\x80\xa6</text>\n",
            x + w / 2, y + h / 2 + 4);
}

/* One slice: its name, the column and row headers, the cells and bands. */
static void draw_slice(pic *p, sbuf *o, int64_t s, int x0, int y0) {
  char num[24];
  sb_printf(o, "<g class=\"slice\" data-slice=\"%lld\">\n", (long long)s);
  if (p->nd > 2) {
    sb_printf(o, "<text class=\"slicename\" x=\"%d\" y=\"%d\">", x0, y0 + 11);
    put_slice_name(p, o, s);
    sb_puts(o, "</text>\n");
  }
  int gx = x0 + p->rh, gy = y0 + (p->nd > 2 ? 16 : 0) + 14;
  int gh = axis_pos(&p->rows, p->rows.nat, p->ch), gw = axis_pos(&p->cols, p->cols.nat, p->cw);
  for (int j = 0; j < p->cols.nat; j++) {
    int x = gx + axis_pos(&p->cols, j, p->cw);
    if (p->cols.at[j] < 0) {
      put_band(o, x, gy, BAND, gh);
      continue;
    }
    snprintf(num, sizeof num, "%lld", (long long)p->cols.at[j]);
    put_text(o, x + p->cw / 2, gy - 3, "colhead", num);
  }
  for (int i = 0; i < p->rows.nat; i++) {
    int y = gy + axis_pos(&p->rows, i, p->ch);
    if (p->rows.at[i] < 0) {
      put_band(o, gx, y, gw, BAND);
      continue;
    }
    if (p->nd >= 2) {
      snprintf(num, sizeof num, "%lld", (long long)p->rows.at[i]);
      put_text(o, gx - 4, y + 15, "rowhead", num);
    }
    for (int j = 0; j < p->cols.nat; j++)
      if (p->cols.at[j] >= 0)
        put_cell(p, o, (int64_t[3]){s, p->rows.at[i], p->cols.at[j]}, gx + axis_pos(&p->cols, j, p->cw), y);
  }
  sb_puts(o, "</g>\n");
}

/* The caption: what the cells hold, what colours them, what was left out. */
static int caption(pic *p, char lines[3][512]) {
  static const char *const thr[] = {"data", "pthd", "mpi", "cuda"};
  dnode *n = p->n;
  int nl = 0, k = 0;
  char dims[256] = "";
  size_t dl = 0;
  if (p->nd > 2)
    for (int j = 0; j < p->nd - 2; j++)
      dl += (size_t)snprintf(dims + dl, dl < sizeof dims ? sizeof dims - dl : 0, "%s%s", j ? " x " : "slices ",
                             p->dims[j]->path);
  if (p->nd >= 2 && dl < sizeof dims)
    snprintf(dims + dl, sizeof dims - dl, "%srows %s, columns %s", dl ? ", " : "", p->dims[p->nd - 2]->path,
             p->dims[p->nd - 1]->path);
  int64_t size = p->wt[0] * p->ext[0];
  if (p->ty->thread == TK_DATA)
    k = snprintf(lines[nl], 512, "%s: %s %s, %lld elements; cells: offsets", n->path, ty_mem_name(p->ty->mem),
                 p->ty->elem, (long long)size);
  else
    k = snprintf(lines[nl], 512, "%s: %s thread array, %lld threads; cells: %s", n->path, thr[p->ty->thread],
                 (long long)size, n == p->ty->root ? "$tid$" : "their shares of $tid$");
  if (dims[0] && k > 0 && k < 512) snprintf(lines[nl] + k, (size_t)(512 - k), " (%s)", dims);
  nl++;
  const char *what[] = {
      [BY_BLOCK] = p->nkeys == 1 ? "colour: one tile (no top-level dimension is split)"
                   : p->nd > 2      ? "colour: tile (the slice, and the first child of a split row or column dimension)"
                                    : "colour: tile (the first child of each split dimension)",
      [BY_PROC] = "colour: the process holding the element (legend below); offsets are local to it",
      [BY_CUDA_BLOCK] = "colour: CUDA block; b: the block's digits ($tid_0_k$), t: the thread's in the block ($tid_1_k$)",
      [BY_THREAD] = "colour: thread"};
  snprintf(lines[nl++], 512, "%s", what[p->by]);
  if (p->sl.cut || p->rows.cut || p->cols.cut) {
    char sl[64] = "";
    if (p->sl.cut)
      snprintf(sl, sizeof sl, " of the %lld slices, the first %d and the last;", (long long)p->sl.n, SL_HEAD);
    snprintf(lines[nl++], 512, "summarised: of rows and columns over %d, the first %d and the last;%s "
             "\xe2\x80\xa6 bands stand for the rest", p->sl.n > 1 ? AX_MAX_SL : AX_MAX,
             p->sl.n > 1 ? AX_HEAD_SL : AX_HEAD, sl);
  }
  return nl;
}

static const char *legend_word(const pic *p) {
  return p->by == BY_PROC ? "process" : p->by == BY_CUDA_BLOCK ? "block" : NULL;
}

/* Height of the legend (process or block colours) for a picture w wide. */
static int legend(pic *p, sbuf *o, int y, int w) {
  const char *word = legend_word(p);
  if (!word) return 0;
  int per = 110, cols = (w - 2 * MARGIN) / per, x = MARGIN, rows = 0;
  if (cols < 1) cols = 1;
  for (int k = 0; k < p->nkeys; k++) {
    if (k % cols == 0) rows++, x = MARGIN;
    int yy = y + (rows - 1) * 18;
    if (o) {
      sb_printf(o, "<g class=\"legend\" data-group=\"%lld\"><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"",
                (long long)p->keys[k], x, yy);
      put_colour(o, k);
      sb_printf(o, "\"/><text x=\"%d\" y=\"%d\">%s %lld</text></g>\n", x + 16,
                yy + 10, word, (long long)p->keys[k]);
    }
    x += per;
  }
  return rows * 18 + 6;
}

static void draw(pic *p, sbuf *o) {
  char cap[3][512];
  int ncap = caption(p, cap);
  int sw = slice_width(p), nsl = p->sl.nat, w = 0;
  for (int a = 0; a < nsl; a++) w += (p->sl.at[a] < 0 ? 2 * BAND : sw) + (a ? SL_GAP : 0);
  w += 2 * MARGIN;
  for (int i = 0; i < ncap; i++)
    if ((int)strlen(cap[i]) * CHAR_W + 2 * MARGIN > w) w = (int)strlen(cap[i]) * CHAR_W + 2 * MARGIN;
  int top = MARGIN + ncap * CAP_LINE + 8;
  int gh = (p->nd > 2 ? 16 : 0) + 14 + axis_pos(&p->rows, p->rows.nat, p->ch);
  int h = top + gh + 10 + legend(p, NULL, 0, w) + MARGIN;
  sb_puts(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  sb_printf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"monospace\" font-size=\"11\">\n<title>", w, h, w, h);
  put_esc(o, cap[0]);
  sb_printf(o, "</title>\n<style>rect{stroke:#555;stroke-width:0.5} rect.bg,rect.band{stroke:none} "
            ".off,.sub,.colhead,text.band{text-anchor:middle} .rowhead{text-anchor:end} .sub{font-size:9px} "
            "text.band{fill:#777}</style>\n<rect class=\"bg\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", w, h);
  for (int i = 0; i < ncap; i++) {
    char cls[16];
    snprintf(cls, sizeof cls, "caption%d", i);
    sb_printf(o, "<text class=\"%s\" x=\"%d\" y=\"%d\"%s>", cls, MARGIN, MARGIN + 11 + i * CAP_LINE,
              i ? "" : " font-weight=\"bold\"");
    put_esc(o, cap[i]);
    sb_puts(o, "</text>\n");
  }
  int x = MARGIN;
  for (int a = 0; a < nsl; a++) {
    if (p->sl.at[a] < 0) {
      put_band(o, x, top, 2 * BAND, gh);
      x += 2 * BAND + SL_GAP;
      continue;
    }
    draw_slice(p, o, p->sl.at[a], x, top);
    x += sw + SL_GAP;
  }
  legend(p, o, top + gh + 10, w);
  sb_puts(o, "</svg>\n");
}

int layout_svg(tyctx *t, ptype *ty, dnode *n, sbuf *out, char *err, size_t errlen) {
  pic *p = arena_alloc(t->ar, sizeof *p);
  *p = (pic){.t = t, .ty = ty, .n = n, .err = err, .errlen = errlen};
  if (setup(p) || measure(p)) return -1;
  draw(p, out);
  return 0;
}
