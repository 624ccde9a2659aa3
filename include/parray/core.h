/* SPDX-License-Identifier: Apache-2.0 */
/* parray/core.h - the part of the Parray runtime every generated program uses:
 * status codes, source locations for run-time messages, element types, host
 * allocation per memory kind, and the CPU copy engine.  C11, no CUDA needed. */
#ifndef PARRAY_CORE_H
#define PARRAY_CORE_H

#if defined(__GNUC__)
#define PARRAY_API __attribute__((visibility("default")))
#else
#define PARRAY_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* size_t and int64_t under names of the runtime's own, from the compiler's
 * predefined macros: generated code includes this header before the user's
 * first line, so it must not include a system header (a later #define
 * _GNU_SOURCE or _POSIX_C_SOURCE would come too late) nor declare a name
 * outside parray_ and PARRAY_. */
#if defined(__SIZE_TYPE__) && defined(__INT64_TYPE__)
typedef __SIZE_TYPE__ parray_size_t;
typedef __INT64_TYPE__ parray_int64_t;
#else
#include <stddef.h>
#include <stdint.h>
typedef size_t parray_size_t;
typedef int64_t parray_int64_t;
#endif

/* Every runtime function that can fail returns one of these; none aborts. */
typedef enum parray_status {
  PARRAY_OK = 0,
  PARRAY_ERR_INVALID,     /* bad argument: null pointer, negative size, rank > 8 ... */
  PARRAY_ERR_ALLOC,       /* host or device allocation failed */
  PARRAY_ERR_UNSUPPORTED, /* combination not implemented (dtype/op/layout) */
  PARRAY_ERR_CUDA,        /* a CUDA call failed; parray_last_error() has the text */
  PARRAY_ERR_MPI,         /* an MPI call failed */
  PARRAY_ERR_THREAD,      /* thread creation or synchronisation failed */
  PARRAY_ERR_NODEVICE     /* no GPU present */
} parray_status;

PARRAY_API const char *parray_status_str(parray_status s);
/* Text of the last failure seen by the calling thread (empty string if none). */
PARRAY_API const char *parray_last_error(void);
PARRAY_API void parray_set_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Where in the .pc file a run-time action comes from. */
typedef struct parray_loc {
  const char *file; /* the .pc file */
  int line;
  const char *what; /* e.g. "#create A(x)" */
} parray_loc;

/* Print "file.pc:LINE: error: <msg> (in <what>)" to stderr and exit(1).
 * Used only by generated code when the program cannot go on (the runtime's
 * own functions return a status instead). */
PARRAY_API void parray_fatal(const parray_loc *loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
PARRAY_API void parray_fatal_at(const char *file, int line, const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5), noreturn))
#endif
    ;

/* The .pc directive the calling thread runs, for the message of a fault:
 * generated code records the site of every host #copy and #detour while it
 * runs, and each host detour body its #detour's, with parray_site_enter
 * (which returns the site it replaces) and parray_site_restore (given that
 * site back). The first call installs handlers of SIGSEGV, SIGBUS and
 * SIGFPE (unless the program or a sanitizer installed one first, or the
 * environment has PARRAY_FAULT_HANDLER=0) that print
 *   file.pc:LINE: error: the program received SIGSEGV, ... (in <what>)
 * (or, outside any directive, the last one the thread ran) before the
 * process dies of the signal as it would have. site must stay valid (a
 * static object). */
PARRAY_API const parray_loc *parray_site_enter(const parray_loc *site);
PARRAY_API void parray_site_restore(const parray_loc *prev);

/* Called by parray_fatal/parray_fatal_at before the process exits (the MPI
 * runtime uses it to end every process of the job, never leaving a hang). */
PARRAY_API void parray_set_fatal_hook(void (*hook)(int status));

/* Program start and end for #mainhost (the MPI and CUDA builds of a program
 * call their own variants). */
PARRAY_API void parray_init(int *argc, char ***argv);
PARRAY_API void parray_finish(void);

/* Element types understood by the kernels. */
typedef enum parray_dtype {
  PARRAY_F32 = 0,
  PARRAY_F16,
  PARRAY_BF16,
  PARRAY_F64,
  PARRAY_I32,
  PARRAY_I64,
  PARRAY_I8,
  PARRAY_U8,
  PARRAY_DTYPE_COUNT
} parray_dtype;
PARRAY_API parray_size_t parray_dtype_size(parray_dtype t);
PARRAY_API const char *parray_dtype_name(parray_dtype t);

/* Memory kinds (docs/language.md, Memory kinds). */
typedef enum parray_memkind {
  PARRAY_PAGED = 0,
  PARRAY_PINNED,
  PARRAY_DMEM,
  PARRAY_SMEM,
  PARRAY_RMEM
} parray_memkind;

/* Host allocation: paged is 64-byte aligned malloc memory; pinned is
 * page-aligned and locked with mlock() where the system allows (the CUDA
 * build of a program uses parray_cuda_host_alloc instead). Returns NULL and
 * sets the error text on failure. */
PARRAY_API void *parray_host_alloc(parray_memkind kind, parray_size_t bytes);
PARRAY_API void parray_host_free(parray_memkind kind, void *p, parray_size_t bytes);

/* #create / #destroy for host kinds: allocate or stop with a message naming
 * the .pc line, the type and the byte count. */
PARRAY_API void *parray_create_host(parray_memkind kind, parray_size_t bytes, const char *file, int line,
                                    const char *what);
PARRAY_API void parray_destroy_host(parray_memkind kind, void *p, parray_size_t bytes);

/* Footprints known only at run time are computed by generated code with
 * this checked arithmetic: the result, or PARRAY_CK_BAD when an operand is
 * PARRAY_CK_BAD, a divisor is 0 or the result does not fit in 64 bits. */
#define PARRAY_CK_BAD (-__INT64_MAX__ - 1)
PARRAY_API parray_int64_t parray_ck_add(parray_int64_t a, parray_int64_t b);
PARRAY_API parray_int64_t parray_ck_sub(parray_int64_t a, parray_int64_t b);
PARRAY_API parray_int64_t parray_ck_mul(parray_int64_t a, parray_int64_t b);
PARRAY_API parray_int64_t parray_ck_div(parray_int64_t a, parray_int64_t b);
PARRAY_API parray_int64_t parray_ck_mod(parray_int64_t a, parray_int64_t b);
/* The bytes of elems elements of elem_size bytes (#create); stops with a
 * message naming the .pc line when elems is negative or PARRAY_CK_BAD, or
 * the bytes are more than the largest object (PTRDIFF_MAX). */
PARRAY_API parray_size_t parray_bytes_at(parray_int64_t elems, parray_size_t elem_size, const char *file, int line, const char *what);
/* parray_bytes_at after the ndims sizes that follow (parray_int64_t each)
 * are checked one by one: a negative one stops the program naming the .pc
 * line and the dimension, its name the k-th word of names ("A_0 A_1"). */
PARRAY_API parray_size_t parray_bytes_dims_at(parray_int64_t elems, parray_size_t elem_size, const char *file, int line,
                                              const char *what, const char *names, int ndims, ...);

/* The CPU copy engine: for every index (i_0..i_{n-1}) < shape,
 *   dst[sum i_k*dst_stride[k]] = src[sum i_k*src_stride[k]]
 * strides in elements of elem_size bytes. Dimensions are merged and reordered
 * internally; elem_size may be anything (structs are moved as bytes). */
PARRAY_API parray_status parray_copy_strided_cpu(void *dst, const parray_int64_t *dst_stride, const void *src,
                                                 const parray_int64_t *src_stride, const parray_int64_t *shape, int ndim,
                                                 parray_size_t elem_size);

#ifdef __cplusplus
}
#endif
#endif
