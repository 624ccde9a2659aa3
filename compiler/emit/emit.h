/* SPDX-License-Identifier: Apache-2.0 */
/* emit.h - the emitters: one per target behind one table of functions. Each
 * function prints a plan (plan.h) and returns the C or CUDA text that
 * replaces the construct; code that must live at file scope (outlined
 * bodies, kernels, capture structs) it hoists through the printer. Every
 * call of the runtime library that generated code makes is printed here.
 * Emitters read plans and print; they never call the lowering.
 *   emit_c.c     host code: pthreads and MPI detours, host memory, copies, the entry
 *   emit_cuda.c  kernels and launches, device memory and copies; the rest as emit_c.c
 *   emit.c       what both share: the targets (descriptor and emitter), run-time error sites
 * The names of the runtime and of generated helpers are spelled once, in
 * runtime_names.h. */
#ifndef PAC_EMIT_H
#define PAC_EMIT_H

#include "plan.h"
#include "printer.h"

typedef struct emitter emitter;

/* The targets of a translation (pac --emit=c, --emit=cuda; auto: cuda when
 * the file needs it). The driver chooses one; the lowering never tests
 * which: it asks the target's capabilities (target_caps). */
enum { TARGET_AUTO, TARGET_C, TARGET_CUDA };

/* What a target can do. The lowering asks these, and reports a construct
 * the target lacks, instead of naming the target. */
typedef struct target_caps {
  bool device_mem;     /* dmem arrays and pinned host memory through the device runtime, copies to and from them */
  bool kernels;        /* cuda thread arrays: a detour launches a kernel */
  bool tma;            /* bulk tensor copies (tma #copy) in kernels */
  bool dist_device;    /* distributed dmem arrays, staged on each process (the mpi device service) */
  bool stream_ordered; /* launches return before their work ends: host code waits (#sync, the end of
                        * #mainhost, before a host thread launches) through ops->wait */
  bool ranges;         /* profiler ranges (NVTX) around the host code of directives (emit_ranged) */
} target_caps;

/* A target: its descriptor (name, capabilities) and its emitter's functions. */
typedef struct emit_ops {
  const char *target; /* "c", "cuda" */
  target_caps caps;
  char *(*detour)(emitter *e, const plan_detour *p);
  char *(*sync)(emitter *e, plan_kind k, plan_sync s);
  char *(*alloc)(emitter *e, const plan_alloc *p);
  char *(*destroy)(emitter *e, const plan_destroy *p);
  char *(*copy)(emitter *e, const plan_copy *p);
  /* the program's main(), after everything else */
  char *(*entry)(emitter *e, const plan_entry *p);
  /* stream_ordered: a wait for the device in host code, for everything
   * launched (#sync), or (pending_only) only when this thread launched
   * detours that nothing waited for yet (the end of #mainhost) */
  char *(*wait)(emitter *e, const plan_site *s, bool pending_only);
} emit_ops;

struct emitter {
  const emit_ops *ops;
  printer *pr; /* hoisting; the file and line of a site */
  srcfile *src;
  exctx *ex;   /* printing expressions */
  arena *ar;   /* the texts returned */
  bool ranges; /* print profiler ranges: the target has them and the translation wants them */
};

/* the emitter of target TARGET_C or TARGET_CUDA (the one place the targets
 * are registered); ranges: profiler ranges where the target has them
 * (false: pac --no-nvtx, and not one range call is printed) */
void emit_init(emitter *e, int target, bool ranges, printer *pr, srcfile *src, exctx *ex, arena *ar);

/* #mainhost: what replaces the keyword, what opens its body, what ends it */
extern const char *const emit_mainhost_head, *const emit_mainhost_open, *const emit_mainhost_close;

/* A #copy, #detour, #create, #destroy or wait through the target's
 * emitter; code that runs on a host thread records its site around it
 * (emit_guarded: #copy, #detour) and is a profiler range (emit_ranged). */
char *emit_copy(emitter *e, const plan_copy *p);
char *emit_detour(emitter *e, const plan_detour *p);
char *emit_alloc(emitter *e, const plan_alloc *p);
char *emit_destroy(emitter *e, const plan_destroy *p);
char *emit_wait(emitter *e, const plan_site *s, bool pending_only);
/* #scan in a body with scan variables, for the kind of its detour (emit_reduce.c) */
char *emit_red_scan(emitter *e, const plan_scan *p);

/* ---- shared by the emitters (emit.c) ---- */
/* file, line, "what": the arguments of the runtime's error calls */
char *emit_site(emitter *e, const plan_site *s);
/* "static const parray_loc NAME = {file, line, what};" */
char *emit_site_decl(emitter *e, const plan_site *s, const char *name);
/* code as one block that records its site while it runs (parray_site_enter
 * and parray_site_restore: a fault names the .pc line); code unchanged
 * where the site is not on a host thread */
char *emit_guarded(emitter *e, const plan_site *s, const char *code);
/* code as a profiler range named "file.pc:LINE what" (parray_range_push
 * and parray_range_pop on a static parray_range of the site: the name is
 * registered once), when the emitter prints ranges and the site is on a host
 * thread; code unchanged otherwise. The range is a block around the code,
 * or, when the code declares the variable declared (not NULL) for the code
 * after it, statements beside it with a range named after that variable. */
char *emit_ranged(emitter *e, const plan_site *s, const char *code, const char *declared);
/* a declaration of name */
char *emit_decl(emitter *e, plan_decl d, const char *name);
/* e as C, 64-bit when it may need it */
char *emit_ex(emitter *e, const ex *x);
/* the byte count of an allocation */
char *emit_bytes(emitter *e, const plan_bytes *b, const plan_site *s);
/* "NAME[] = {v0, v1, ..}": an array of a strided copy */
void emit_int64_array(emitter *e, sbuf *b, const char *name, ex **v, int n);
/* the runtime's name of a memory kind (PARRAY_DMEM) */
const char *emit_memkind(int mem);
/* how the body of a detour of kind k names a captured variable; the
 * outlined function or kernel that the emitter prints defines the names */
void emit_position(emitter *e, const plan_detour *p, sbuf *h);
const char *emit_capture_ref(emitter *e, plan_kind k, cap_mode m, const char *field);

/* ---- the host emitter's pieces the CUDA emitter reuses (emit_c.c) ---- */
char *emit_c_detour(emitter *e, const plan_detour *p);
char *emit_c_sync(emitter *e, plan_kind k, plan_sync s);
char *emit_c_alloc(emitter *e, const plan_alloc *p);
/* a distributed #create: host blocks, or (device) blocks on the processes' GPUs */
char *emit_alloc_distributed(emitter *e, const plan_alloc *p, bool device);
char *emit_c_destroy(emitter *e, const plan_destroy *p);
char *emit_c_copy(emitter *e, const plan_copy *p);
char *emit_c_entry(emitter *e, const plan_entry *p);
/* ---- the CUDA emitter (emit_cuda.c) ---- */
char *emit_cuda_detour(emitter *e, const plan_detour *p);
char *emit_cuda_sync(emitter *e, plan_kind k, plan_sync s);
char *emit_cuda_alloc(emitter *e, const plan_alloc *p);
char *emit_cuda_destroy(emitter *e, const plan_destroy *p);
char *emit_cuda_copy(emitter *e, const plan_copy *p);
/* ops->wait of the CUDA target */
char *emit_cuda_wait(emitter *e, const plan_site *s, bool pending_only);
/* the size check and per-element loop of a #copy, used by both targets */
void emit_copy_check(emitter *e, sbuf *b, const plan_copy *p, const char *site);
void emit_copy_loop(emitter *e, sbuf *b, const plan_copy *p);
/* the bound(...) test of a copy's element; last_plus (NULL: none) is added
 * to the digit of the last dimension */
void emit_bound_test(emitter *e, sbuf *b, const plan_copy *p, const char *last_plus);
/* the loops of a CP_VECTOR, one per mode, each line after indent; the
 * innermost steps by inner_step elements */
void emit_mode_loops(emitter *e, sbuf *b, const plan_copy *p, int64_t inner_step, const char *indent);
/* a CP_VECTOR one element at a time */
void emit_copy_modes(emitter *e, sbuf *b, const plan_copy *p, const char *indent);
/* "(parray_size_t)N": the element count of a contiguous copy */
const char *emit_copy_count(emitter *e, const plan_copy *p);
/* "{ const parray_int64_t parray__shape[] = .., parray__dstride[] = .., parray__sstride[] = ..;\n" */
void emit_strided_arrays(emitter *e, sbuf *b, const plan_copy *p);

#endif
