/* SPDX-License-Identifier: Apache-2.0 */
/* layoutview.c - `pac --layout TYPE`: the dimension tree of a type with
 * sizes, strides of natural leaves, referenced offsets, the flat layout of
 * every node, and for up to two top-level dimensions the grid of element
 * offsets (of threads, for thread arrays) and, for distributed types, the
 * grid of the processes holding them (docs/cli.md, "The layout viewer"). */
#include "target.h"
#include "types.h"

#include <string.h>

static const char *kind_name(dnode *n) {
  if (n->derived) return "derived";
  switch (n->kind) {
  case DN_LEAF: return "natural";
  case DN_COMP: return "composite";
  case DN_REF: return "reference";
  case DN_SREF: return "sized reference";
  case DN_CREF: return "composite reference";
  }
  return "?";
}

static void print_layout_modes(tyctx *t, dnode *n, sbuf *o) {
  layout *l = ty_layout(t, n);
  if (!l) {
    sb_puts(o, "(no flat layout)");
    return;
  }
  sb_putc(o, '(');
  for (int k = 0; k < l->nm; k++) {
    if (k) sb_putc(o, ',');
    ex_print(o, l->m[k].n, false);
  }
  sb_puts(o, "):(");
  for (int k = 0; k < l->nm; k++) {
    if (k) sb_putc(o, ',');
    ex_print(o, l->m[k].d, false);
  }
  sb_putc(o, ')');
}

static void print_node(tyctx *t, dnode *n, sbuf *o, char *prefix, bool last, bool top) {
  size_t pl = strlen(prefix);
  sb_puts(o, prefix);
  if (!top) sb_puts(o, last ? "`- " : "|- ");
  sb_printf(o, "%s  [", n->path);
  ex_print(o, n->size, false);
  sb_printf(o, "]  %s", kind_name(n));
  if (n->kind == DN_LEAF && !n->derived && n->stride) {
    sb_puts(o, ", stride ");
    ex_print(o, n->stride, false);
  }
  if (n->ref) sb_printf(o, ", offsets of #%s", n->ref->path);
  sb_puts(o, "\n");
  sb_puts(o, prefix);
  if (!top) sb_puts(o, last ? "   " : "|  ");
  sb_puts(o, n->nkids && n->kind != DN_REF ? "|    " : "     ");
  int64_t sz;
  ex *i = ex_atom(t->ex, "i", 0, ex_is_const(n->size, &sz) ? sz - 1 : EX_INF);
  sb_puts(o, "f(i) = ");
  ex_print(o, ty_offset_linear(t, n, i), false);
  sb_puts(o, "   layout ");
  print_layout_modes(t, n, o);
  sb_puts(o, "\n");
  if (n->kind == DN_REF) return;
  if (!top) {
    strcat(prefix, last ? "   " : "|  ");
  }
  for (int j = 0; j < n->nkids; j++) print_node(t, n->kids[j], o, prefix, j == n->nkids - 1, false);
  prefix[pl] = 0;
}

static int64_t off2(tyctx *t, dnode *n, int64_t r, int64_t c, bool two) {
  ty_index ix[2] = {{.e = ex_const(t->ex, r)}, {.e = ex_const(t->ex, c)}};
  ex *e = two ? ty_offset_index(t, n, ix, 2, (loc){0, 0}) : ty_offset_linear(t, n, ex_const(t->ex, c));
  int64_t v = -1;
  if (e) ex_is_const(e, &v);
  return v;
}

/* The process holding element (r, c), from the process layout. */
static int64_t proc2(tyctx *t, dnode *n, int64_t r, int64_t c, int64_t cols, bool two) {
  ex *e = ty_proc_linear(t, n, ex_const(t->ex, two ? r * cols + c : c));
  int64_t v = -1;
  if (e) ex_is_const(e, &v);
  return v;
}

/* Up to 32 rows and 16 columns of offsets, or of processes (procs). */
static void print_grid(tyctx *t, dnode *n, sbuf *o, int64_t rows, int64_t cols, bool two, bool procs) {
  const int64_t maxr = 32, maxc = 16;
  int w = 4;
  sb_printf(o, "%*s", w + 2, "");
  for (int64_t c = 0; c < cols && c < maxc; c++) sb_printf(o, " %*lld", w, (long long)c);
  if (cols > maxc) sb_puts(o, "  ...");
  sb_putc(o, '\n');
  for (int64_t r = 0; r < rows && r < maxr; r++) {
    sb_printf(o, "%*lld |", w + 1, (long long)r);
    for (int64_t c = 0; c < cols && c < maxc; c++)
      sb_printf(o, " %*lld", w, (long long)(procs ? proc2(t, n, r, c, cols, two) : off2(t, n, r, c, two)));
    if (cols > maxc) sb_puts(o, "  ...");
    sb_putc(o, '\n');
  }
  if (rows > maxr) sb_printf(o, "%*s ...\n", w + 1, "");
}

/* A cuda thread array's dimensions in the kernel: $tid_P$ in terms of
 * blockIdx and threadIdx, for the grid, the block and their children. */
static void print_cuda_indices(tyctx *t, ptype *ty, sbuf *o) {
  sb_puts(o, "\nin its kernels:\n");
  for (int g = 0; g < 2; g++) {
    dnode *d = ty->root->kids[g];
    for (int k = -1; k < (d->kind == DN_LEAF ? 0 : d->nkids); k++) {
      dnode *p = k < 0 ? d : d->kids[k];
      sb_printf(o, "  $tid%s$ = ", p->path + strlen(ty->root->path));
      ex_print(o, tgt_cuda_tid(t, ty, p), false);
      sb_putc(o, '\n');
    }
  }
}

const char *ty_mem_name(int mem) {
  static const char *const e[] = {"paged", "pinned", "dmem", "smem", "rmem"};
  return mem >= 0 && mem <= MK_RMEM ? e[mem] : "paged";
}

void ty_print_layout(tyctx *t, ptype *ty, dnode *n, sbuf *o) {
  static const char *const thr[] = {"data", "pthd", "mpi", "cuda"};
  if (ty->thread == 0) {
    sb_printf(o, "type %s: %s %s, ", n->path, ty_mem_name(ty->mem), ty->elem);
    ex_print(o, n->size, false);
    sb_puts(o, " elements, footprint ");
    ex_print(o, ty_footprint(t, n), false);
    int c = ty_contiguous(t, n);
    sb_printf(o, ", %s\n", c == 1 ? "contiguous" : c == 0 ? "not contiguous" : "contiguity unknown");
  } else {
    sb_printf(o, "type %s: %s thread array, ", n->path, thr[ty->thread]);
    ex_print(o, n->size, false);
    sb_puts(o, " threads\n");
  }
  char prefix[256] = "";
  print_node(t, n, o, prefix, true, true);

  /* the grid of offsets (of $tid$ for thread arrays), and which process
   * holds each element of a distributed type */
  int64_t rows = 1, cols;
  bool two = n->nkids == 2 && n->kind != DN_LEAF;
  if (two) {
    if (!ex_is_const(n->kids[0]->size, &rows) || !ex_is_const(n->kids[1]->size, &cols)) return;
  } else if (!ex_is_const(n->size, &cols)) {
    return;
  }
  if (n->nkids > 2) return;
  /* a part of a thread array: each index's share of $tid$ */
  const char *what = !ty->thread ? "offsets" : n == ty->root ? "threads ($tid$)" : "shares of $tid$";
  if (two && ty->thread == TK_CUDA && n == ty->root)
    sb_printf(o, "\n%s of %s[r][c] (rows: %s, the blocks of the grid; columns: %s, the threads of a block):\n",
              what, n->path, n->kids[0]->path, n->kids[1]->path);
  else if (two)
    sb_printf(o, "\n%s of %s[r][c] (rows: %s, columns: %s):\n", what, n->path, n->kids[0]->path, n->kids[1]->path);
  else
    sb_printf(o, "\n%s of %s[i]:\n", what, n->path);
  print_grid(t, n, o, rows, cols, two, false);
  if (ty->thread == TK_CUDA && n == ty->root && two) print_cuda_indices(t, ty, o);
  if (ty->thread || !ty->mpi_ref || !ty_proc_layout(t, n)) return;
  if (two) sb_printf(o, "\nprocesses holding %s[r][c]:\n", n->path);
  else sb_printf(o, "\nprocesses holding %s[i]:\n", n->path);
  print_grid(t, n, o, rows, cols, two, true);
}
