/* SPDX-License-Identifier: Apache-2.0 */
/* ast.h - the syntax tree the parser builds. C code stays located text: each
 * C token is an item holding only its kind and byte range, and brackets form
 * groups. Parray constructs (directives, $...$) are nodes of their own. */
#ifndef PAC_AST_H
#define PAC_AST_H

#include "diag.h"
#include "util.h"

/* Multi-character punctuators (single characters use their own code). */
enum {
  P_ARROW = 256, P_INC, P_DEC, P_SHL, P_SHR, P_LE, P_GE, P_EQ, P_NE, P_ANDAND, P_OROR,
  P_ASSIGNOP, /* += -= *= /= %= &= |= ^= <<= >>= */
  P_ELLIPSIS, P_HASHHASH, P_SCOPE
};

typedef enum { T_IDENT, T_NUMBER, T_STRING, T_CHAR, T_PUNCT } ctok_kind;

typedef enum {
  IT_TOK,    /* one C token */
  IT_GROUP,  /* ( ... )  [ ... ]  { ... } */
  IT_PPLINE, /* a C preprocessor line, passed through */
  IT_DOLLAR, /* $ ... $ */
  IT_DIR     /* a Parray directive */
} item_kind;

typedef struct item item;
typedef struct items {
  item *first, *last;
  int n;
} items;

typedef struct group {
  char open; /* '(' '[' '{' */
  items body;
  loc close; /* the closing bracket */
} group;

typedef struct dollar dollar;
typedef struct directive directive;

struct item {
  uint8_t kind;  /* item_kind */
  uint8_t tk;    /* ctok_kind, for IT_TOK */
  uint16_t punct;
  loc loc;
  item *next;
  union {
    group *grp;
    dollar *dol;
    directive *dir;
  };
};

/* ---- $ ... $ ------------------------------------------------------------ */
typedef struct index index_t;
struct index {
  loc loc;     /* including the brackets */
  items expr;  /* a C expression, when sub == NULL */
  index_t *sub; /* nested index list [ [..][..] ] */
  index_t *next;
};

typedef enum { DL_ACCESS, DL_FUNC, DL_TID } dollar_kind;
struct dollar {
  dollar_kind kind;
  loc loc;       /* the whole $...$ */
  loc name;      /* type path, function name (dim, dim_0_1, size, cnt) or tid path */
  loc arg;       /* DL_FUNC: the type path */
  index_t *idx;  /* DL_ACCESS: the indices */
  int nidx;
};

/* ---- #parray bodies ------------------------------------------------------- */
typedef enum { DA_SIZE, DA_REF, DA_SREF, DA_COMP, DA_CREF } dimast_kind;
typedef struct dimast dimast;
struct dimast {
  dimast_kind kind;
  loc loc;
  items size;     /* DA_SIZE, DA_SREF */
  loc sizeloc;
  loc ref;        /* DA_REF, DA_SREF, DA_CREF: the path after '#', without '#' */
  dimast *kids;   /* DA_COMP, DA_CREF */
  int nkids;
  dimast *next;
};

typedef enum { MK_NONE = -1, MK_PAGED, MK_PINNED, MK_DMEM, MK_SMEM, MK_RMEM } memkind_t;
typedef enum { TK_DATA, TK_PTHD, TK_MPI, TK_CUDA } threadkind_t;

typedef struct tbody {
  loc loc;
  int mem;          /* memkind_t */
  int thread;       /* threadkind_t */
  loc elem;         /* element type tokens (empty range if absent) */
  bool has_elem;
  items cuda_params;
  loc cuda_params_loc;
  items min_blocks; /* cuda: min_blocks(EXPR), blocks per multiprocessor (empty if absent) */
  loc min_blocks_loc;
  dimast *dims;     /* NULL for a whole-tree copy */
  int ndims;
  loc whole;        /* whole-tree copy {dmem #A}: the path */
  bool is_whole;
} tbody;

/* ---- directives ------------------------------------------------------------ */
typedef enum { D_PARRAY, D_CREATE, D_DESTROY, D_COPY, D_DETOUR, D_MAINHOST, D_SYNC,
               D_SUBPROG, D_GLOBAL, D_INSERT, D_SCAN, D_END } dir_kind;

/* an optional part of a directive header: a word with its (...) ('at(...)',
 * 'bound(...)'; after a #detour any word: CLAUSE_CALL), the (...) alone, or
 * the word alone */
typedef enum { CLAUSE_NONE, CLAUSE_AT, CLAUSE_BOUND, CLAUSE_TMA, CLAUSE_ARGS, CLAUSE_WORD, CLAUSE_CALL } clause_kind_t;
typedef struct dir_clause {
  bool has;
  int word;     /* clause_kind_t: which one it is where a place takes several */
  loc kw;       /* the word (CLAUSE_ARGS: empty) */
  items args;   /* the (...) contents */
  loc argsloc;
} dir_clause;

/* #parray '{' body '}' name */
typedef struct dir_parray {
  tbody *body;
} dir_parray;

/* #copy name(args) [at(...)] to dst(dargs) [bound(...) | tma(...)] */
typedef struct dir_copy {
  loc dst;        /* the destination's type */
  items dargs;    /* the destination expression */
  loc dargsloc;
  dir_clause at;  /* the box origin of a tma copy, after the source */
  dir_clause bound;
  dir_clause tma; /* a bulk tensor copy (docs/cuda.md) */
} dir_copy;

/* #detour name [(args)] clause* block */
typedef struct dir_detour {
  dir_clause *clauses; /* words (wait, nowait, ...) and words with (...) (reduce(...)), */
  int nclauses;        /* in order, checked by the lowering */
} dir_detour;

/* #subprog name(params) body #end */
typedef struct dir_subprog {
  items body;
  loc end; /* the #end */
} dir_subprog;

/* #sync, #sync_0, #sync_1_0 */
typedef struct dir_sync {
  int level; /* -1 for plain #sync, else the path digit(s) encoded */
  loc path;
} dir_sync;

/* A directive: what every kind has (its keyword; the path and (...) after
 * it, which #mainhost, #global and #sync lack; the block of #detour,
 * #mainhost and #global), and the node of its own kind. */
struct directive {
  dir_kind kind;
  loc loc;     /* the header: from '#' to the end of the directive proper */
  loc kw;      /* '#keyword' */
  bool bad;    /* a syntax error was reported inside */
  loc name;    /* type path / subprogram name (parray: the new type's name; copy: the source's type) */
  items args;  /* create/destroy/insert/copy/detour/subprog: the (...) contents */
  loc argsloc;
  bool has_args;
  item *block; /* D_DETOUR, D_MAINHOST, D_GLOBAL: the { } group */
  union {
    dir_parray parray;
    dir_copy copy;
    dir_detour detour;
    dir_subprog subprog;
    dir_sync sync;
  };
};

/* ---- constructors (called from the grammar) -------------------------------- */
typedef struct astctx {
  arena *ar;
} astctx;

/* list helpers: called once per C token, so inline */
static inline items items_empty(void) { return (items){NULL, NULL, 0}; }
static inline items items_add(items l, item *it) {
  if (!it) return l;
  it->next = NULL;
  if (l.last) l.last->next = it;
  else l.first = it;
  l.last = it;
  l.n++;
  return l;
}
static inline items items_concat(items a, items b) {
  if (!b.first) return a;
  if (!a.first) return b;
  a.last->next = b.first;
  a.last = b.last;
  a.n += b.n;
  return a;
}
item *ast_tok(astctx *c, loc l, int tokval);
item *ast_ppline(astctx *c, loc l);
item *ast_group(astctx *c, loc open, char ch, items body, loc close);
/* make an existing item (a placeholder in a run) the directive or $...$ */
void ast_fill_dollar(item *it, dollar *d);
void ast_fill_dir(item *it, directive *d);
item *ast_dollar_item(astctx *c, dollar *d);
item *ast_dir_item(astctx *c, directive *d);
dollar *ast_dollar_tid(astctx *c, loc all, loc name);
dollar *ast_dollar_func(astctx *c, loc all, loc name, loc arg);
dollar *ast_dollar_access(astctx *c, loc all, loc name, index_t *idx);
index_t *ast_index_expr(astctx *c, loc l, items expr);
index_t *ast_index_list(astctx *c, loc l, index_t *sub);
index_t *ast_index_append(index_t *list, index_t *x);
dimast *ast_dim_size(astctx *c, loc l, items size, loc sizeloc);
dimast *ast_dim_ref(astctx *c, loc l, loc ref);
dimast *ast_dim_sref(astctx *c, loc l, items size, loc sizeloc, loc ref);
dimast *ast_dim_comp(astctx *c, loc l, dimast *kids);
dimast *ast_dim_cref(astctx *c, loc l, dimast *kids, loc ref);
dimast *ast_dim_append(dimast *list, dimast *x);
tbody *ast_tbody_data(astctx *c, loc l, int mem, loc elem, bool has_elem, dimast *dims);
tbody *ast_tbody_whole(astctx *c, loc l, int mem, loc elem, bool has_elem, loc ref);
tbody *ast_tbody_thread(astctx *c, loc l, int kind, items params, loc ploc, dimast *dims);
tbody *ast_tbody_min_blocks(tbody *b, items expr, loc l);
directive *ast_dir(astctx *c, dir_kind k, loc all, loc kw);
directive *ast_dir_parray(astctx *c, loc all, loc kw, tbody *b, loc name);
directive *ast_dir_call(astctx *c, dir_kind k, loc all, loc kw, loc name, items args, loc argsloc);
/* at: the at(...) after the source, or none; after: bound(...), tma(...) or none */
directive *ast_dir_copy(astctx *c, loc all, loc kw, loc s, items sa, loc sal, dir_clause at, loc d, items da, loc dal,
                        dir_clause after);
dir_clause ast_clause(int word, loc kw, items args, loc argsloc);
/* a list of clauses with one more at its end */
typedef struct dir_clauses {
  dir_clause *v;
  int n;
} dir_clauses;
dir_clauses ast_clauses_add(astctx *c, dir_clauses l, dir_clause x);
/* args: CLAUSE_ARGS or none; cl: the clauses after them (checked by the lowering) */
directive *ast_dir_detour(astctx *c, loc all, loc kw, loc name, dir_clause args, dir_clauses cl, item *block);
directive *ast_dir_block(astctx *c, dir_kind k, loc all, loc kw, item *block);
directive *ast_dir_sync(astctx *c, loc all, loc kw, int level);
directive *ast_dir_subprog(astctx *c, loc all, loc kw, loc name, items params, loc ploc, items body, loc end);
directive *ast_dir_bad(astctx *c, dir_kind k, loc all, loc kw);

/* Whether a parsed program needs the CUDA target: a #parray of device memory
 * (dmem, smem) or of cuda threads, or INIT_GPU in its C code (text: the
 * source the locations are in). */
bool ast_needs_cuda(const char *text, items prog);

#define ITEMS_FOREACH(it, list) for (item *it = (list).first; it; it = it->next)

#endif
