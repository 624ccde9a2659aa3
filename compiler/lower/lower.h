/* SPDX-License-Identifier: Apache-2.0 */
/* lower.h - the lowering: the walker over the syntax tree (lower_walk.c)
 * keeps the scopes and the output in step with the source, copying C
 * through; each Parray construct is checked and decided by its planner --
 * lower_mem.c (#create, #destroy), lower_copy.c and lower_tma.c (#copy;
 * what they share: lower_side.c), lower_prog.c (#parray, #mainhost,
 * #subprog, #insert, #global), lower_detour.c (#detour, #sync),
 * lower_devuse.c (host code reading device memory) -- into a plan
 * (emit/plan.h) that the target's emitter prints. Below the planners:
 * lower_dollar.c ($...$, names and captures in the code being lowered),
 * lower_kinds.c and lower_localtypes.c (what the walk has seen), and
 * lower.c (the shared helpers). This header holds the walk state and the
 * helpers; each other file has a narrow header of its own (lower_copy.h,
 * ...) that only its callers include. Calls go down that order, never in a circle
 * (tools/lowergraph.py checks it): the walker alone calls the planners, and
 * a planner walks a body through w->walk_block / w->walk_items. The
 * lowering asks the target's capabilities (lw_caps), never its name; a
 * planner returns records (lower_record.h) or hands them on (lw_put) into
 * the file's list, and after the walk the print pass (lower_print.c) prints
 * them through the emitter and the printer. One exception is left: lower_dollar.c asks the emitter how a
 * capture is written (emit_capture_ref). The emitter never calls back. */
#ifndef PAC_LOWER_H
#define PAC_LOWER_H

#include "cexpr.h"
#include "ctcanon.h"
#include "emit.h"
#include "headers.h"
#include "lower_record.h"
#include "printer.h"
#include "scope.h"

typedef enum { RG_HOST, RG_PTHD, RG_MPI, RG_CUDA } region_kind;

typedef struct capture {
  sym *s;
  cap_mode mode;      /* by reference, array as pointer, by value, distributed handle */
  const char *field;  /* member name in the capture struct / kernel parameter */
  const char *use;    /* how the body refers to it, when not by the emitter's rule (a variable-length array) */
  bool local;         /* by value, of a type the enclosing function declared (mpi): the capture struct is
                         declared where the detour starts and again in the body, after the types */
  bool bytes;         /* by value, of such a type, into a kernel (cuda): it travels as its bytes
                         (plan_capture.bytes), and the body reads them as the type it declares again */
} capture;

/* What the planner of a cuda detour finds out about its kernel before
 * and while the body is walked: planner inputs, kept apart from the walk
 * state of the region. */
typedef struct lw_kernel {
  cd_stmt params;     /* the kernel's parameters */
  bool walking;       /* its body is being walked: params are in scope */
  plan_tmap *tmaps;   /* the tensor maps of its bulk tensor copies (dims, strides not yet localized) */
  int ntmaps;
  int *tmap_arg;      /* the parameter whose argument is each map's tensor */
  const char **tma_smem; /* names a bulk tensor copy of the body writes to (lw_tma_prescan) */
  int ntma_smem;
  struct lw_smem_slot {  /* the smem #creates placed in dynamic shared memory (lw_smem_prescan) */
    const directive *d;
    int64_t off;
  } *dsmem;
  int ndsmem;
  int64_t dsmem_bytes;   /* their total (0: the body's smem arrays are declared statically) */
} lw_kernel;

/* A variable of a reduce clause (lower_reduce.c): the enclosing code's
 * symbol and its plan. */
typedef struct lw_red {
  sym *s;
  plan_reduce p;
} lw_red;

typedef struct region region;
struct region {
  region_kind kind;
  ptype *thread;      /* the thread array type of the detour */
  int depth;          /* scope depth of the body: symbols declared shallower are outside */
  int id;
  region *outer;
  capture *caps;
  int ncaps, capcaps;
  loc at;             /* the #detour */
  bool uses_sync;
  lw_kernel *cu;      /* cuda: what is found out about its kernel (NULL: another kind) */
  lw_red *reds;       /* its reduce(...), scan(...) and exscan(...) variables (lower_reduce.c) */
  int nreds;
  int nscans;         /* of which scan variables: the body has one #scan */
  int scans_seen;     /* the #scans walked */
  bool unordered;     /* the clause 'unordered' */
  bool fold;          /* cuda, 'unordered': each block of the kernel takes the place of several (lw_reduce_fold) */
  bool scan_bad;      /* one was reported (then no plan, and nothing more said) */
};

typedef struct subprog {
  directive *d;
  const char **params;
  loc *paramlocs;
  int nparams;
} subprog;

/* The default limits of #insert expansion: far above any real program,
 * low enough that a few lines inserting each other twice per level cannot
 * exhaust memory (pac --max-insert-depth, --max-insert-bytes raise them). */
#define PAC_MAX_INSERT_DEPTH 100
#define PAC_MAX_INSERT_BYTES ((int64_t)64 << 20)

typedef struct instance instance;
struct instance {
  subprog *sp;
  int id;
  int nest;        /* 1 for an #insert outside any other, 2 inside one, ... */
  int depth;       /* scope depth of the instance: names declared this deep or deeper shadow its parameters */
  loc at;
  strmap vals;     /* value parameter -> replacement text, as the code at the #insert writes it */
  strmap raw;      /* the same with the variables by their own names (rendered LW_AS_WRITTEN), for
                    * a detour inside the instance, which captures them (lw_ident_replacement) */
  region *rg;      /* the region of the #insert */
  strmap renames;  /* names declared in #global -> private names */
  instance *outer;
};

/* .pc files included by #include "x.pc": where each include line is, its
 * segment of the source, whether it is the first include of that file; and
 * the items of each segment */
typedef struct lw_pcfiles {
  struct pcinc {
    uint32_t at;
    int seg;
    bool first;
  } *inc;
  int ninc;
  items *seg_items;
} lw_pcfiles;

/* lower_kinds.c: the memory kinds a variable may have along the paths */
typedef struct lw_kframe lw_kframe;
#define LW_NKINDS 5                /* MK_PAGED .. MK_RMEM */
#define LW_KIND_UNKNOWN (1u << 7)  /* not created here, destroyed, assigned, or its address taken */
typedef struct lw_kpending {
  sym *s;
  lw_kframe *f;
} lw_kpending;
typedef struct lw_kblocks {
  int *id, *mark, *kind, cap; /* per scope depth: the live block's serial, its first entry in touch, then/else */
  int serial;
  sym **touch;           /* variables given a frame, block by block */
  int ntouch, captouch;
  const item *prev, *prev2, *prev3, *prev4; /* the items before the one being walked in its block */
  bool in_switch_block;  /* the block being walked has case labels */
  bool if_cond;          /* the if of the then-block being walked runs only sometimes */
  lw_kpending *pending;  /* a then-block's states, kept for its else-block */
  int npending, cappending, pending_depth;
  bool pending_cond;
  const char **key;      /* per scope depth: the condition of the if whose then-block it is (NULL: none) */
  struct cond_rec **key_ids; /* ... and the variables it reads, as they were */
  const char *pending_key;
  struct cond_rec *pending_ids;
  struct cond_rec *conds; /* the branches' states of ifs seen, by condition */
  int nconds, capconds;
} lw_kblocks;

struct lw;

/* The target: which one (TARGET_C, TARGET_CUDA: given by the translation)
 * and its emitter (emit_init), through which the print pass prints; the
 * planners ask only its capabilities (lw_caps), never its name */
typedef struct lw_target {
  int kind;    /* TARGET_C, TARGET_CUDA: chooses the emitter (emit_init); the walk asks lw_caps() */
  bool ranges; /* profiler ranges around directives where the target has them (false: pac --no-nvtx) */
  emitter em;
} lw_target;

/* The records of the file and the print pass's state (lower_print.c): who
 * sees the records first, and the bodies being translated apart */
typedef struct lw_printing {
  /* the file's records in order (lw_put), printed after the walk (lw_print_all) */
  VEC(struct lw_record *) recs;
  /* shown every record before it is printed, when set (the tests of plans) */
  void (*observe)(void *env, const struct lw_record *r);
  void *observe_env;
  VEC(pr_outline) bodies; /* the bodies translated apart now, innermost last */
  /* the detour bodies printed whose LR_DETOUR has not come yet, innermost last */
  VEC(struct lw_detour_text { const struct item *at; const char *text; }) dbodies;
} lw_printing;

/* #insert expansion (lower_prog.c): the subprograms, the limits (nesting,
 * bytes of expanded text in all) and what was reached; over: a limit was
 * crossed, nothing more expands */
typedef struct lw_inserts {
  strmap subprogs;
  int64_t max_depth, max_bytes, bytes;
  int64_t nested; /* the bytes of the instances closed inside the one expanding */
  bool over;
} lw_inserts;

/* What the translation gives the lowering: the file, where its errors go,
 * the arena everything it decides lives in, what the headers declared, and
 * the .pc files it includes */
typedef struct lw_input {
  srcfile *src;
  diag *dg;
  arena *ar;
  hdrinfo *hdr;
  lw_pcfiles pc;
} lw_input;

/* The lowering's state, in parts: its inputs (in), the semantic layer, the
 * output (the printer, the target and the file's records), #insert
 * expansion, and the walk's position */
typedef struct lw {
  lw_input in;
  /* the semantic layer */
  arena scratch;  /* token vectors of expressions being read (lw_ltoks) */
  exctx ex;
  tyctx ty;
  cxenv cx;
  cdctx cd;
  scopes sc;
  /* the output */
  printer pr;
  lw_target tg;
  sbuf epilogue;    /* file-scope code after everything (main, tables) */
  strmap fnames;    /* generated function names in use */
  plan_entry entry; /* what the program uses, its mpi bodies */
  lw_printing print;
  /* the walk */
  region host;
  region *rg;       /* the detour being walked (host: none) */
  instance *inst;   /* the #insert being walked */
  int next_id;
  lw_inserts ins;
  int apart;        /* the #global, #insert and block-scope .pc include bodies being walked */
  /* the walk of a body (lower_walk.c, set by lw_file): a planner of a
   * construct with a body walks it through these, not by calling the walker */
  void (*walk_items)(struct lw *w, items *list, bool file_scope);
  void (*walk_block)(struct lw *w, item *group); /* a '{' group with its own scope */
  strmap all_types; /* every type declared, by name (for --layout) */
  bool has_mainhost;
  int fn_depth;     /* scope depth of the current function body (0: not in a function) */
  const char *fn_name; /* its name (#mainhost: "main"), for __func__ in bodies that move */
  item *decl_names[64]; /* declarator names of the statement being walked */
  int ndecl_names;
  lw_kblocks kb;    /* lower_kinds.c */
  struct lw_ltype *ltypes; /* lower_localtypes.c: the local type declarations seen */
  int nltypes, capltypes;
  const char *ltypes_used; /* after lw_local_types_for: "(void)sizeof(T); " for the typedefs copied (NULL: none) */
} lw;

/* what the target of the translation can do */
static inline const target_caps *lw_caps(const lw *w) { return &w->tg.em.ops->caps; }
static inline void lw_walk_items(lw *w, items *list, bool file_scope) { w->walk_items(w, list, file_scope); }
static inline void lw_walk_block(lw *w, item *group) { w->walk_block(w, group); }
/* a planner's record, kept in the file's list for the print pass (lower.c) */
void lw_put(lw *w, const struct lw_record *r);
/* the innermost detour being walked (NULL: host code) */
static inline region *lw_thread_region(lw *w) {
  for (region *r = w->rg; r; r = r->outer)
    if (r->kind != RG_HOST) return r;
  return NULL;
}
/* how the body of r names s: its private copy's name when s is one of r's
 * reduction variables, else NULL */
static inline const char *lw_red_private(const region *r, const sym *s) {
  for (int i = 0; r && i < r->nreds; i++)
    if (r->reds[i].s == s) return r->reds[i].p.name;
  return NULL;
}
/* the block index a kernel's thread positions are computed from: blockIdx,
 * or the block of the detour's grid this one is (with scan variables, in
 * the order the blocks started; folded, the one it stands for now) */
static inline const char *lw_block_index(const region *r) {
  return r->nscans || r->fold ? PLAN_SCAN_BLOCK : "blockIdx";
}
static inline plan_kind lw_kind_of(const region *r) {
  return r->kind == RG_PTHD ? PK_PTHD : r->kind == RG_MPI ? PK_MPI : PK_CUDA;
}

/* How names of variables of the enclosing code are rendered inside a
 * detour: as the detour's captures of them (what the body's code means), or
 * as written, nothing captured (the text of an #insert argument that a
 * detour inside the instance captures itself) */
typedef enum { LW_CAPTURE, LW_AS_WRITTEN } lw_names;

/* lower_walk.c: the walk of a file (the walker alone calls the planners below) */
int lw_file(lw *w, items *file);

/* lower.c: the shared helpers (they call no other file of compiler/lower) */
const char *lw_text(lw *w, loc l);
/* split a directive's argument list at top-level commas */
int lw_split_args(lw *w, items *args, items **out);
bool lw_is_type_word(lw *w, const char *s, size_t n);
/* a type word or a typedef name visible here */
bool lw_is_type_name(lw *w, const char *s, size_t n);
/* where a construct is, for the run-time errors of the code printed for it */
plan_site lw_site(lw *w, loc at, const char *what);
/* the source text at l on one line, as a C comment */
char *lw_comment(lw *w, loc l);
void lw_declare_var(lw *w, const char *name, size_t len, const char *spec, const char *decl, bool is_pointer);

/* the semantic layer's view of the names of this point of the walk (w->cd) */
void lw_cd_init(lw *w);
dnode *lw_resolve(lw *w, loc name, bool report);
/* the directive as written, on one line */
const char *lw_dir_text(lw *w, item *it);
/* an argument that is one plain name */
bool lw_single_ident(items *a, loc *out);
/* the data type a directive names (reports a thread array type) */
dnode *lw_data_type(lw *w, loc name);
/* sizeof of a common scalar or CUDA vector element type on the 64-bit
 * targets (0: not known to pac, then only the run-time checks apply) */
int64_t lw_elem_size(const char *elem);
/* the same for an element type as the program means it: its typedefs and
 * object-like macros expanded first (ctcanon.h) */
int64_t lw_elem_bytes(lw *w, const char *elem);
/* the meaning of type words at this point of the walk: the visible typedefs and the macros */
ctenv lw_ctenv(lw *w);
/* the lowering's state as the program sema asks about (its answers:
 * lower_program.c) */
static inline semaprog *lw_semaprog(lw *w) { return (semaprog *)(void *)w; }
/* is name a typedef name here (a visible typedef, a subprogram's parameter
 * bound to a type, a header's typedef)? */
bool lw_is_typedef(lw *w, const char *name, size_t len);
/* a fresh file-scope name "parray__<what>_<type>_L<line>" (suffixed if taken) */
const char *lw_fresh_name(lw *w, const char *what, const char *type, loc at);
/* the index of the runtime's body parray_mpi_dev_service in the mpi body
 * table (distributed dmem arrays), added at the first use */
int lw_dev_service(lw *w);

#endif
