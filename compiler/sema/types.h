/* SPDX-License-Identifier: Apache-2.0 */
/* types.h - the Parray array-type engine. A type is a tree of dimension
 * nodes; every node has a size and an offset function (docs/language.md).
 * Where possible the offset function is kept as a flat layout (CuTe style): a
 * list of modes (size, stride), outermost first, meaning
 *     f(i) = sum_t ((i / W_t) % n_t) * d_t,   W_t = n_(t+1) * ... * n_last,
 * with no '%' on the outermost mode (its digit is unbounded). Layouts are
 * merged (coalesced) before code is generated from them. When a reference
 * splits a dimension at a point that cannot be proved to divide it, the node
 * keeps no flat layout and offsets follow the rules literally (docs/language.md,
 * "Offsets precisely"). */
#ifndef PAC_TYPES_H
#define PAC_TYPES_H

#include "ast.h"
#include "expr.h"
#include "program.h"

typedef struct mode {
  ex *n, *d; /* size, stride */
} mode;

typedef struct layout {
  mode *m;
  int nm;
} layout;

typedef enum { DN_LEAF, DN_COMP, DN_REF, DN_SREF, DN_CREF } dn_kind;

typedef struct dnode dnode;
typedef struct ptype ptype;

struct dnode {
  dn_kind kind;
  ex *size;
  dnode **kids; /* DN_REF: the referenced node's children (shared) */
  int nkids;
  dnode *ref;    /* DN_REF, DN_SREF, DN_CREF */
  dnode *parent;
  int pos;       /* index among the parent's children */
  ptype *type;   /* the type this node was declared in */
  const char *path; /* "A_1_0" */
  bool derived;  /* offsets derived from an enclosing referencing node (rule 4) */
  ex *weight;    /* w_j: product of the sizes of the later siblings */
  ex *stride;    /* natural leaf: its stride */
  layout *lays[2]; /* flat layout per view (local offsets, process index), or NULL */
  bool lay_done[2];
  loc loc;
};

struct ptype {
  const char *name;
  loc loc;
  int thread;       /* threadkind_t */
  int mem;          /* memkind_t (data types) */
  const char *elem; /* element type text ("float"), data types */
  items cuda_params;
  loc cuda_params_loc;
  ex *min_blocks;   /* cuda: blocks per multiprocessor the kernel must fit (NULL: none) */
  loc min_blocks_loc;
  dnode *root;
  dnode *mpi_ref;   /* a dimension referencing an mpi thread array (distributed type) */
  bool building;    /* under construction: a reference to it is a cycle */
  bool bad;         /* reported as invalid where declared; uses stay silent (root NULL: it
                       could not be built, and is a placeholder that only stops the cascade) */
  int instance;     /* subprogram instance it was declared in (0: none) */
};

typedef struct tyctx {
  arena *ar;
  exctx *ex;
  diag *dg;
  srcfile *src;
  /* the program (program.h): it evaluates size expressions (macros, $dim$,
   * parameters), gives macro bodies (so that a memory kind given by a macro,
   * {MEM float [4]} with #define MEM dmem, is seen), says which words are
   * type words, and finds the type a path name starts with */
  semaprog *prog;
  int view; /* 0: offsets (local offsets for distributed types); 1: process index */
  dnode *failed; /* set by ty_resolve when it returned NULL for a type whose #parray failed */
} tyctx;

/* Build a type from a #parray body. NULL after reporting errors. */
ptype *ty_build(tyctx *t, const char *name, loc nameloc, tbody *b, int instance);

/* Resolve "A_1_0" to a node: strips _digits groups until sp_lookup_type finds a
 * type, then walks the digits. Reports unknown names and paths that go past
 * the tree (when report). A name of a type whose declaration failed gives
 * NULL without a report, with t->failed set to its placeholder node. */
dnode *ty_resolve(tyctx *t, const char *name, size_t len, loc where, bool report);
/* One index of a path ("12" of A_12_0) from its n decimal digits, without
 * overflow: INT_MAX when larger, which is past every dimension tree. */
int ty_path_index(const char *s, size_t n);

/* Flat layout of a node (NULL when not representable). */
layout *ty_layout(tyctx *t, dnode *n);
/* The same in the process view of a distributed type: the process index of
 * each element (0 everywhere for types that are not distributed). */
layout *ty_proc_layout(tyctx *t, dnode *n);
bool ty_is_mpi_ref(const dnode *n);
/* The process holding element i (a linear index within n) of a distributed
 * type, read from its process layout (0 for types that are not distributed);
 * NULL when that layout is unknown. */
ex *ty_proc_linear(tyctx *t, dnode *n, ex *i);
/* The number of processes a distributed type spreads over. */
ex *ty_nprocs(tyctx *t, dnode *n);
/* Merge chained modes and drop size-1 modes (returns a new layout). */
layout *lay_coalesce(tyctx *t, const layout *l);
/* x -> f_L(x * w) for x < s, or NULL when the split cannot be proved. */
layout *lay_compose(tyctx *t, const layout *l, ex *w, ex *s);
layout *lay_concat(tyctx *t, layout **ls, int n);
ex *lay_size(tyctx *t, const layout *l);
/* Common refinements of flat layouts over one index space (what #copy needs
 * to move an array between two layouts in one strided sweep): a list of nm
 * modes, outermost first, with extents shape[0..nm-1] and, per mode m, one
 * stride per layout, strides[m*k + j] for layout j (k layouts), such that for
 * every index i of the space and every layout j
 *     f_j(i) = sum_m digit_m(i) * strides[m*k + j],
 *     digit_m(i) = (i / W_m) % shape[m],  W_m = shape[m+1] * ... * shape[nm-1],
 * with no '%' on the outermost digit (as in a layout). A mode of a layout is
 * split where another layout splits the same index range more finely, so
 * the extents multiply to the size of the space. The results are new
 * expressions; the layouts are not modified. shape has room for max
 * entries, strides for max*k.
 *
 * lay_refine2: k = 2 (strides[2m] for a, strides[2m+1] for b). Walks both
 * layouts from the innermost mode: equal extents give one mode; otherwise
 * the smaller extent, when it provably divides the larger, becomes a mode
 * and the larger continues with the quotient. When both sides are down to
 * their outermost mode those two form the last mode, with a's extent, even
 * when the extents cannot be proved equal (the sizes are checked elsewhere;
 * the outermost digit is unbounded). Returns nm, or -1 when neither of two
 * remaining extents can be proved to divide the other (6 against 4, or n
 * against m), when one layout runs out of modes before the other, when more
 * than max modes are needed, or when a layout has no mode. */
int lay_refine2(tyctx *t, const layout *a, const layout *b, ex **shape, ex **strides, int max);
/* lay_refine: any k >= 1 layouts ls[0..k-1]. Each mode's extent is the first
 * remaining extent (in layout order) that provably divides the remaining
 * extent of every layout; the outermost modes get no special treatment, so
 * the sizes must match provably. Returns nm, or -1 when no remaining extent
 * divides all the others (a split that cannot be proved), when some layouts
 * run out of modes before others, when more than max modes are needed, when
 * k < 1 or when a layout has no mode. */
int lay_refine(tyctx *t, layout *const *ls, int k, ex **shape, ex **strides, int max);

/* f_n(i) for a linear index expression i. */
ex *ty_offset_linear(tyctx *t, dnode *n, ex *i);
/* The offset of one index per child (sub[j] for child j), following section
 * 3: additive for nodes without reference, f_n(linear index) otherwise. The
 * callback produces the offset (or linear index) of a nested index. */
typedef struct ty_index ty_index;
struct ty_index {
  ex *e;          /* a plain index expression, or NULL */
  ty_index *sub;  /* nested list (when e == NULL) */
  int nsub;
  loc loc;
};
ex *ty_offset_index(tyctx *t, dnode *n, ty_index *idx, int nidx, loc where);

/* largest offset + 1 */
ex *ty_footprint(tyctx *t, dnode *n);
/* 1 when f(i) == i for every index, 0 when not, -1 when unknown */
int ty_contiguous(tyctx *t, dnode *n);
/* index along node p of a thread array, given the linear thread index */
ex *ty_tid_digit(tyctx *t, dnode *p, ex *tid);
/* stride of the rightmost natural leaf in the subtree (thread arrays) */
ex *ty_last_stride(tyctx *t, dnode *p);
bool ty_is_natural(dnode *n);

/* The language's name of a memory kind: "paged", "pinned", "dmem", "smem", "rmem". */
const char *ty_mem_name(int mem);

/* `pac --layout`: the dimension tree and the grid of offsets. */
void ty_print_layout(tyctx *t, ptype *ty, dnode *n, sbuf *out);

#endif
