/* SPDX-License-Identifier: Apache-2.0 */
/* core.c - runtime basics: status strings, per-thread error text, fatal
 * messages that name the .pc line, element-type sizes and host allocation
 * for the paged and pinned memory kinds. */
#include "parray/core.h"

#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static _Thread_local char last_error[512];
static void (*fatal_hook)(int status);

void parray_set_fatal_hook(void (*hook)(int status)) { fatal_hook = hook; }

static _Noreturn void die(void) {
  fflush(stderr);
  if (fatal_hook) fatal_hook(1);
  exit(1);
}

const char *parray_status_str(parray_status s) {
  switch (s) {
  case PARRAY_OK: return "ok";
  case PARRAY_ERR_INVALID: return "invalid argument";
  case PARRAY_ERR_ALLOC: return "out of memory";
  case PARRAY_ERR_UNSUPPORTED: return "unsupported";
  case PARRAY_ERR_CUDA: return "CUDA error";
  case PARRAY_ERR_MPI: return "MPI error";
  case PARRAY_ERR_THREAD: return "thread error";
  case PARRAY_ERR_NODEVICE: return "no GPU";
  }
  return "unknown status";
}

const char *parray_last_error(void) { return last_error; }

void parray_set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
}

void parray_fatal(const parray_loc *loc, const char *fmt, ...) {
  fflush(stdout);
  if (loc && loc->file)
    fprintf(stderr, "%s:%d: error: ", loc->file, loc->line);
  else
    fprintf(stderr, "parray: error: ");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (loc && loc->what) fprintf(stderr, " (in %s)", loc->what);
  fputc('\n', stderr);
  die();
}

void parray_fatal_at(const char *file, int line, const char *what, const char *fmt, ...) {
  fflush(stdout);
  fprintf(stderr, "%s:%d: error: ", file ? file : "?", line);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (what && *what) fprintf(stderr, " (in %s)", what);
  fputc('\n', stderr);
  die();
}

void parray_init(int *argc, char ***argv) {
  (void)argc, (void)argv;
}

void parray_finish(void) { fflush(stdout); }

size_t parray_dtype_size(parray_dtype t) {
  static const size_t sz[PARRAY_DTYPE_COUNT] = {4, 2, 2, 8, 4, 8, 1, 1};
  return (unsigned)t < PARRAY_DTYPE_COUNT ? sz[t] : 0;
}

const char *parray_dtype_name(parray_dtype t) {
  static const char *nm[PARRAY_DTYPE_COUNT] = {"f32", "f16", "bf16", "f64", "i32", "i64", "i8", "u8"};
  return (unsigned)t < PARRAY_DTYPE_COUNT ? nm[t] : "?";
}

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

void *parray_host_alloc(parray_memkind kind, size_t bytes) {
  if (kind != PARRAY_PAGED && kind != PARRAY_PINNED) {
    parray_set_error("parray_host_alloc: memory kind %d is not host memory", (int)kind);
    return NULL;
  }
  size_t align = 64;
  if (kind == PARRAY_PINNED) {
    long pg = sysconf(_SC_PAGESIZE);
    align = pg > 0 ? (size_t)pg : 4096;
  }
  size_t n = round_up(bytes ? bytes : 1, align);
  if (n < bytes) {
    parray_set_error("allocation of %zu bytes overflows", bytes);
    return NULL;
  }
  void *p = aligned_alloc(align, n);
  if (!p) {
    parray_set_error("cannot allocate %zu bytes: %s", bytes, strerror(errno));
    return NULL;
  }
  /* Page-locking is best effort: without CUDA nothing depends on it, and an
   * unprivileged process may exceed RLIMIT_MEMLOCK. */
  if (kind == PARRAY_PINNED) (void)mlock(p, n);
  return p;
}

void parray_host_free(parray_memkind kind, void *p, size_t bytes) {
  if (!p) return;
  if (kind == PARRAY_PINNED) {
    long pg = sysconf(_SC_PAGESIZE);
    (void)munlock(p, round_up(bytes ? bytes : 1, pg > 0 ? (size_t)pg : 4096));
  }
  free(p);
}

void *parray_create_host(parray_memkind kind, size_t bytes, const char *file, int line, const char *what) {
  void *p = parray_host_alloc(kind, bytes);
  if (!p)
    parray_fatal_at(file, line, what, "cannot allocate %zu bytes of %s memory: %s", bytes,
                    kind == PARRAY_PINNED ? "pinned" : "paged", parray_last_error());
  return p;
}

void parray_destroy_host(parray_memkind kind, void *p, size_t bytes) { parray_host_free(kind, p, bytes); }

int64_t parray_ck_add(int64_t a, int64_t b) {
  int64_t r;
  return a == PARRAY_CK_BAD || b == PARRAY_CK_BAD || __builtin_add_overflow(a, b, &r) ? PARRAY_CK_BAD : r;
}

int64_t parray_ck_sub(int64_t a, int64_t b) {
  int64_t r;
  return a == PARRAY_CK_BAD || b == PARRAY_CK_BAD || __builtin_sub_overflow(a, b, &r) ? PARRAY_CK_BAD : r;
}

int64_t parray_ck_mul(int64_t a, int64_t b) {
  int64_t r;
  return a == PARRAY_CK_BAD || b == PARRAY_CK_BAD || __builtin_mul_overflow(a, b, &r) ? PARRAY_CK_BAD : r;
}

int64_t parray_ck_div(int64_t a, int64_t b) {
  return a == PARRAY_CK_BAD || b == PARRAY_CK_BAD || b == 0 || (a == INT64_MIN && b == -1) ? PARRAY_CK_BAD : a / b;
}

int64_t parray_ck_mod(int64_t a, int64_t b) {
  if (a == PARRAY_CK_BAD || b == PARRAY_CK_BAD || b == 0) return PARRAY_CK_BAD;
  return b == -1 ? 0 : a % b; /* INT64_MIN % -1 traps */
}

size_t parray_bytes_dims_at(int64_t elems, size_t elem_size, const char *file, int line, const char *what,
                            const char *names, int ndims, ...) {
  va_list ap;
  va_start(ap, ndims);
  for (int k = 0; k < ndims; k++) {
    int64_t v = va_arg(ap, int64_t);
    if (v >= 0) continue;
    va_end(ap);
    const char *w = names ? names : "";
    for (int j = 0; j < k && *w; j++) { /* the k-th word */
      while (*w && *w != ' ') w++;
      while (*w == ' ') w++;
    }
    int len = 0;
    while (w[len] && w[len] != ' ') len++;
    if (v == PARRAY_CK_BAD)
      parray_fatal_at(file, line, what, "the size of dimension %.*s does not fit in 64 bits", len, w);
    parray_fatal_at(file, line, what, "the size of dimension %.*s is negative (%lld)", len, w, (long long)v);
  }
  va_end(ap);
  return parray_bytes_at(elems, elem_size, file, line, what);
}

size_t parray_bytes_at(int64_t elems, size_t elem_size, const char *file, int line, const char *what) {
  if (elems == PARRAY_CK_BAD)
    parray_fatal_at(file, line, what, "the number of elements does not fit in 64 bits (the sizes are too large)");
  if (elems < 0) parray_fatal_at(file, line, what, "the number of elements is negative (%lld)", (long long)elems);
  if (elem_size && (uint64_t)elems > (uint64_t)PTRDIFF_MAX / elem_size)
    parray_fatal_at(file, line, what, "%lld elements of %zu bytes are more than the largest object (%lld bytes)",
                    (long long)elems, elem_size, (long long)PTRDIFF_MAX);
  return (size_t)elems * elem_size;
}
