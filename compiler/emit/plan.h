/* SPDX-License-Identifier: Apache-2.0 */
/* plan.h - what each Parray construct becomes: the records the lowering
 * (compiler/lower) fills in after it has checked the construct and decided
 * everything about it, and an emitter (emit.h) prints. Plans are
 * target-neutral: names, C texts of the user's code as lowered, and integer
 * expressions (sizes, offsets, strides) that the emitter prints. A plan
 * never points back into the syntax tree or the lowering's state.
 * docs/architecture.md describes each one. */
#ifndef PAC_PLAN_H
#define PAC_PLAN_H

#include "ast.h"
#include "expr.h"

/* Where a construct stands in the .pc: generated code names the file and
 * line in its run-time errors. */
typedef struct plan_site {
  uint32_t at;      /* offset of the directive in the source */
  const char *what; /* the directive (or a short description), on one line */
  bool host;        /* it runs on a host thread: its code records the site
                       for the run-time fault handler (emit_guarded) */
} plan_site;

typedef enum { PK_PTHD, PK_MPI, PK_CUDA } plan_kind;

/* How the body of a detour reaches a variable of the enclosing code. */
typedef enum {
  CAP_PTR,    /* by reference (pthd) */
  CAP_DECAY,  /* an array, as a pointer to its first element (pthd) */
  CAP_VALUE,  /* by value (mpi, cuda) */
  CAP_HANDLE, /* a distributed array (mpi): its handle; the body uses this process's block */
  CAP_ERROR   /* reported: not passed */
} cap_mode;

/* A declaration with the declared name left out: pre NAME post
 * ("float (*" NAME ")[4]"). */
typedef struct plan_decl {
  const char *pre, *post;
} plan_decl;

typedef struct plan_capture {
  cap_mode mode;
  const char *field; /* member of the capture struct, or kernel parameter */
  plan_decl decl;    /* the member's declaration */
  const char *elem;  /* CAP_HANDLE: the element type of the distributed array */
  bool device;       /* CAP_HANDLE: a distributed dmem array (its blocks are on the processes' GPUs) */
  const char *init;  /* its value in the enclosing code; CAP_HANDLE: the distributed array's variable */
  bool bytes;        /* CAP_VALUE into a kernel, of a type the enclosing function declared: a kernel
                        parameter at file scope cannot name it (nor can a kernel template's argument),
                        so the value travels as sizeof(init) bytes, the kernel a template on that size */
} plan_capture;

/* A kernel parameter of a cuda thread array type. */
typedef struct plan_param {
  const char *spec; /* its declaration specifiers */
  plan_decl decl;   /* its declarator */
  const char *arg;  /* the argument the #detour passes */
  const char *name; /* the parameter's name */
  bool home;        /* a pointer whose argument the launch checks first: it must not point into a
                       distributed dmem block of another GPU (parray_cuda_check_home) */
} plan_param;

/* The tensor map of a bulk tensor copy in a cuda detour (CP_TMA): encoded
 * on the host before the launch, passed to the kernel as a
 * __grid_constant__ CUtensorMap parameter. Dimensions innermost first (the
 * map's order). */
typedef struct plan_tmap {
  const char *name;  /* the kernel parameter and the host variable */
  const char *base;  /* the tensor's address: the detour's argument, as the enclosing code computes it */
  const char *elem;
  int rank;
  ex **dims, **strides; /* extents and strides (elements) of the dmem type, as the enclosing code computes them */
  int64_t *box;         /* the box (the smem type's extents) */
  plan_site site;       /* the #copy */
} plan_tmap;

/* A reduction of a detour: reduce(op: var) (docs/threads.md#reductions).
 * The body works on a private copy of var in every thread, declared under
 * var's own name and starting at init; when the threads have finished,
 * their copies are combined with op in thread order and with var's value,
 * into var. */
typedef enum { RED_ADD, RED_MUL, RED_MIN, RED_MAX, RED_BAND, RED_BOR, RED_BXOR, RED_LAND, RED_LOR, RED_FN } plan_red_op;

typedef struct plan_reduce {
  plan_red_op op;
  const char *fn;     /* RED_FN: the user's function, T fn(T, T) */
  const char *name;   /* the private copy's name in the body (the variable's own) */
  const char *var;    /* the variable as the enclosing code writes it (an lvalue there) */
  plan_decl decl;     /* its type, the name left out */
  const char *acc;    /* cuda: the type the copies accumulate in when it is not the variable's
                         (float for __half and __nv_bfloat16), else NULL */
  const char *init;   /* where every copy starts, as the enclosing code computes it: the identity
                         (RED_FN: the one the clause gives), or var itself for an idempotent op */
  int scan;           /* 0: reduce(...); 1: scan(...), inclusive; 2: exscan(...), exclusive: at the body's
                         #scan, each copy becomes var's value combined with the copies of the threads
                         before it (and its own: inclusive), and var gets all of them after the detour */
} plan_reduce;

/* #scan: the point of a body where its scan variables' copies become their
 * prefixes (plan_reduce.scan) */
typedef struct plan_scan {
  plan_kind kind;
  const plan_reduce *vars; /* the detour's scan variables */
  int nvars;
  plan_site site;
} plan_scan;

/* The uint3 a kernel with scan variables reads its block's index from: the
 * blocks' order in the scan (a block looks back only at blocks that
 * started before it): blockIdx in a one-dimensional grid, whose blocks the
 * GPU starts in index order; else the order in which they started */
#define PLAN_SCAN_BLOCK "parray__bid"

/* #detour: the body outlined at file scope, and the code that runs it. */
typedef struct plan_detour {
  plan_kind kind;
  const char *type;  /* the thread array type */
  const char *fname; /* the outlined function or kernel */
  const char *body;  /* the lowered body, its braces included (set by the print pass: the text of
                        its LR_DETOUR_BODY records) */
  plan_capture *caps;
  int ncaps;
  plan_site site;
  plan_reduce *reds; /* its reduce(...) clauses' variables, in order */
  int nreds;
  bool unordered; /* 'unordered': cuda blocks combine their reductions' results with atomics, in any order */
  bool fold;      /* cuda: a grid of about one wave of blocks, each taking the place of several blocks of the
                     detour's grid in turn (PLAN_SCAN_BLOCK), its copies kept from one to the next */
  /* pthd, mpi */
  ex *count;    /* the number of threads, as the enclosing code computes it */
  bool wide;    /* thread indices need 64 bits */
  int mpi_body; /* mpi: the body's index in the program's table */
  /* cuda */
  ex *grid[3], *block[3]; /* extents mapped to z, y, x (NULL: unused) */
  const char *params;     /* the kernel's parameter list as declared */
  plan_param *args;
  int nargs;
  int64_t block_threads; /* > 0: the block size, a constant */
  const char *min_blocks; /* launch bound: blocks per multiprocessor (NULL: none) */
  bool grid_sync;         /* the body synchronizes the grid: cooperative launch */
  bool bind_args;         /* the grid or block is sized by parameters: the arguments are evaluated
                             first into locals (GEN_LAUNCH_ARG k, declared like the parameters),
                             which the sizes, the checks and the launch use */
  bool wait;              /* the host waits for the kernel after the launch (otherwise the
                             launch is recorded and the next wait reports its errors) */
  plan_tmap *tmaps;       /* the tensor maps of its bulk tensor copies, extra kernel parameters */
  int ntmaps;
  int64_t smem_bytes;     /* > 0: the dynamic shared memory its smem arrays need (past the 48 KB a kernel
                             may declare statically), asked for at the launch */
  const char *typedefs_used; /* "(void)sizeof(T); " for local typedefs the body took along (NULL: none):
                                they stay used where they were written */
  /* pthd, mpi: a capture has a type the enclosing function declared, so the
   * capture struct is declared where the detour starts and at the start of
   * the body, after these local types (otherwise NULL: they open the body) */
  const char *local_types;
  /* the thread's position, for a debugger: its linear index (cuda; a host
   * body has PLAN_THREAD_INDEX already) and its index along each dimension
   * of the thread array's root, declared as PLAN_THREAD_INDEX "_<k>" */
  ex *tid;
  ex **pos;
  int npos;
} plan_detour;

/* #sync: which threads meet. (#sync in the host code of a CUDA program is a
 * wait for the device: the target's ops->wait.) */
typedef enum { SYNC_TEAM, SYNC_BLOCK, SYNC_GRID } plan_sync;

/* The number of bytes of an allocation: elems * sizeof(elem), checked at run
 * time when pac cannot prove that it fits. */
typedef struct plan_bytes {
  ex *elems;
  const char *elem;
  bool checked;
  /* checked: the sizes of the type's dimensions known only at run time,
   * each checked before the product (a negative size), and their names */
  ex **dims;
  const char *dim_names; /* "A_0 A_1" */
  int ndims;
} plan_bytes;

typedef enum {
  AL_HOST,   /* paged or pinned host memory, from the host runtime */
  AL_DEVICE, /* device memory (or pinned memory on the CUDA target), from the CUDA runtime */
  AL_ARRAY,  /* smem or rmem: an array declared in the kernel (rmem: or in the block of host or pthd/mpi code) */
  AL_DIST    /* distributed over the processes of an mpi thread array */
} plan_alloc_kind;

/* #create */
typedef struct plan_alloc {
  plan_alloc_kind kind;
  int mem;            /* memkind_t */
  const char *elem;
  const char *target; /* the variable (or lvalue) that receives the storage */
  bool declare;       /* target is a new variable declared here */
  plan_bytes bytes;   /* AL_HOST, AL_DEVICE, AL_DIST */
  int64_t nelems;     /* AL_ARRAY */
  int align;          /* AL_ARRAY of smem: its alignment in bytes (16; 128 when a bulk tensor copy writes it) */
  bool dynamic;       /* AL_ARRAY of smem: a view of the kernel's dynamic shared memory, at byte offset */
  int64_t offset;     /*   (plan_detour.smem_bytes) instead of a static array */
  ex *nprocs;         /* AL_DIST: the processes it is spread over */
  bool file_handle;   /* AL_DIST into a variable declared elsewhere: its handle lives at file scope */
  int service;        /* AL_DIST of dmem: the index of parray_mpi_dev_service in the mpi body table */
  plan_site site;
} plan_alloc;

/* #destroy */
typedef struct plan_destroy {
  plan_alloc_kind kind;
  int mem;
  const char *target;
  plan_bytes bytes; /* AL_HOST: what was allocated */
  int service;      /* AL_DIST of dmem: as in plan_alloc */
  plan_site site;
  bool kernel;      /* AL_ARRAY: declared in a kernel */
} plan_destroy;

typedef enum {
  CP_LOOP,    /* one element at a time, inside a detour or where no flat layout exists */
  CP_MEMCPY,  /* both sides contiguous */
  CP_STRIDED, /* merged modes: shape and a stride per side */
  CP_DIST,    /* a side is distributed: scatter, gather or redistribution */
  CP_VECTOR,  /* a cuda thread's own copy over merged modes, one loop per mode (no div/mod),
                 moving vec-byte packs when both base pointers are aligned (vec > 0) */
  CP_TMA      /* a bulk tensor copy of a box of a dmem tensor into smem (tma_*) */
} plan_copy_method;

/* The linear index of the thread running a pthd or mpi body: $tid$ is an
 * expression in it, and the outlined function defines it. */
#define PLAN_THREAD_INDEX "parray__tid"

/* The label at the end of a body with reductions, where its threads'
 * private copies are combined: a 'return' in the body jumps to it. */
#define PLAN_REDUCE_END "parray__reduce_end"
#define PLAN_FOLD_NEXT "parray__fold_next" /* a folded kernel: the end of one block's part (its 'return') */

/* The name of the element index of a CP_LOOP: the offsets are expressions in it. */
#define PLAN_LOOP_INDEX "parray__i"

/* The index of mode m of a CP_VECTOR: "parray__m0", "parray__m1", ...; the
 * offsets and bound digits are expressions in these. */
#define PLAN_MODE_INDEX "parray__m"

/* A side of a #copy. */
typedef struct plan_side {
  const char *ptr; /* the pointer (NULL: a distributed array) */
  const char *var; /* a distributed array's variable (with mem MK_DMEM: blocks on the GPUs) */
  const char *base; /* with var: where the side starts in every block (NULL: at 0) */
  int mem;
  ex *off;          /* CP_LOOP: the offset of element PLAN_LOOP_INDEX; CP_VECTOR: of the
                       element at the mode indices PLAN_MODE_INDEX<m> */
  ex **stride;      /* CP_STRIDED: a stride per mode; CP_DIST: the local offsets' */
  ex **proc_stride; /* CP_DIST: the process index's */
  int nmodes;       /* CP_DIST planned at run time: this side's own modes, */
  ex **shape;       /* their extents (stride, proc_stride: per mode of these) */
} plan_side;

/* #copy: dst[f_dst(i)] = src[f_src(i)] for every i */
/* A side of a #copy whose variable was created (#create) with another
 * type, the footprints known only at run time: the copy stops, naming its
 * line, when it would reach past what was allocated (need > have). */
typedef struct plan_fit {
  ex *need, *have; /* elements */
  const char *msg; /* the message, a printf format taking need and have (long long) */
} plan_fit;

typedef struct plan_copy {
  plan_copy_method method;
  plan_side src, dst;
  const char *elem;
  bool device;          /* a side is in device memory */
  ex *count;            /* elements */
  ex *check_src, *check_dst; /* sizes compared at run time (NULL: proved equal) */
  bool check_in_kernel;      /* the comparison runs in a kernel: a message and a trap, seen at the next wait */
  plan_fit fit[2];           /* sides checked against their #create (host code only) */
  int nfit;
  int nmodes;
  ex **shape;           /* CP_STRIDED, CP_DIST: merged shape, outermost first */
  bool unroll;          /* CP_LOOP: a constant trip count in a kernel */
  int service;          /* CP_DIST with a distributed dmem side (its mem is MK_DMEM): as in plan_alloc */
  bool split;           /* CP_DIST: no common refinement was proved; each side has
                           its own modes and the runtime plans the copy */
  /* CP_VECTOR: modes nmodes and shape (outermost first; src.off, dst.off);
   * the innermost mode has stride 1 on both sides. With vec > 0 its index
   * steps by vec / elem_bytes elements, one pack of vec bytes (16, 8 or 4)
   * at a time, when both pointers are vec-aligned; otherwise, and with vec
   * 0, one element at a time. */
  int vec;
  int64_t elem_bytes;
  /* CP_LOOP, CP_VECTOR with a bound(...) clause: an element moves iff
   * bound_digit[k] < bound[k] for every k (the index along the source's
   * top-level dimension k); for a pack the last digit is that of its first
   * element, and the pack's elements follow it along the last dimension */
  int nbound;
  const char **bound;
  ex **bound_digit;
  /* CP_TMA: the box at coordinates tma_coord[0..tma_rank-1] (innermost
   * first) of the tensor map tma_map lands at dst.ptr; the copy announces
   * tma_bytes on the mbarrier tma_bar (an lvalue) and signals it */
  const char *tma_map, *tma_bar;
  const char **tma_coord;
  int tma_rank;
  int64_t tma_bytes;
  plan_site site;
} plan_copy;

/* The program's entry: #mainhost and the processes or threads it starts. */
typedef struct plan_entry {
  bool uses_pthd, uses_mpi, uses_cuda;
  bool uses_tma; /* a bulk tensor copy: the device helpers, and sm_90 */
  const char **mpi_bodies; /* the outlined mpi bodies, by index */
  int nmpi_bodies;
} plan_entry;

#endif
