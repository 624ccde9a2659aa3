/* SPDX-License-Identifier: Apache-2.0 */
/* util.h - small building blocks shared by every stage of pac: an arena
 * allocator, growable byte buffers, typed vectors and a string-keyed hash map.
 * Nothing here knows about Parray. */
#ifndef PAC_UTIL_H
#define PAC_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- arena: bump allocation, freed all at once -------------------------- */
typedef struct arena_block arena_block;
typedef struct arena {
  arena_block *head;
  char *cur, *end;
} arena;

void arena_init(arena *a);
void arena_free(arena *a);
void *arena_alloc_block(arena *a, size_t n);  /* arena_alloc when the current block is full */
/* Under AddressSanitizer the arena's unused memory is poisoned and every
 * allocation is followed by a poisoned redzone, so that the sanitizer sees
 * overflows inside the arena (its blocks come from mmap, which it does not
 * watch): arena_alloc is then arena_alloc_checked. */
#if defined(__SANITIZE_ADDRESS__)
#define PAC_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PAC_ARENA_ASAN 1
#endif
#endif
#ifdef PAC_ARENA_ASAN
void *arena_alloc_checked(arena *a, size_t n);
static inline void *arena_alloc(arena *a, size_t n) { return arena_alloc_checked(a, n); }
#else
/* zeroed, 16-byte aligned (blocks come zeroed from the OS and are never reused) */
static inline void *arena_alloc(arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if ((size_t)(a->end - a->cur) < n) return arena_alloc_block(a, n);
  void *p = a->cur;
  a->cur += n;
  return p;
}
#endif
/* Scratch use: arena_restore gives back everything allocated since the
 * mark. Memory handed out again is not zeroed; keep such an arena for
 * buffers that are written before they are read. */
typedef struct arena_mark {
  arena_block *head;
  char *cur, *end;
} arena_mark;
static inline arena_mark arena_save(const arena *a) { return (arena_mark){a->head, a->cur, a->end}; }
void arena_restore(arena *a, arena_mark m);
/* a copy of the n elements of size elem at v, with room for one more after
 * them (zeroed): a vector that grows by one in the arena */
void *arena_grow1(arena *a, const void *v, size_t n, size_t elem);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- sbuf: growable byte buffer (always NUL-terminated) ----------------- */
typedef struct sbuf {
  char *s;
  size_t len, cap;
  bool borrowed; /* s is the caller's storage (sb_init_in), not to be freed */
} sbuf;

void sb_init(sbuf *b);
/* Start in caller storage (a stack buffer); it moves to the heap if it grows. */
void sb_init_in(sbuf *b, char *buf, size_t cap);
void sb_free(sbuf *b);
void sb_reserve(sbuf *b, size_t extra);
/* writes are inline: the lowering makes millions of small ones */
static inline void sb_write(sbuf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) sb_reserve(b, n);
  __builtin_memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}
static inline void sb_puts(sbuf *b, const char *s) { sb_write(b, s, __builtin_strlen(s)); }
static inline void sb_putc(sbuf *b, char c) {
  if (b->len + 2 > b->cap) sb_reserve(b, 1);
  b->s[b->len++] = c;
  b->s[b->len] = 0;
}
void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(sbuf *b, const char *fmt, va_list ap);
char *sb_take(sbuf *b); /* returns the string, leaves b empty */

/* ---- vec: typed dynamic array ------------------------------------------ */
#define VEC(T) struct { T *v; int n, cap; }
void vec_grow_(void **v, int *cap, size_t elem, int need);
#define vec_push(vec, x)                                                           \
  do {                                                                             \
    if ((vec).n >= (vec).cap) vec_grow_((void **)&(vec).v, &(vec).cap, sizeof *(vec).v, (vec).n + 1); \
    (vec).v[(vec).n++] = (x);                                                      \
  } while (0)
#define vec_free(vec) (free((vec).v), (vec).v = NULL, (vec).n = (vec).cap = 0)

/* ---- strmap: (pointer, length) string -> void* ---------------------------- */
typedef struct strmap_ent {
  const char *key;
  size_t len;
  uint32_t hash;
  void *val;
} strmap_ent;
typedef struct strmap {
  strmap_ent *e;
  size_t n, cap;
} strmap;

void strmap_init(strmap *m);
void strmap_free(strmap *m);
void *strmap_get(const strmap *m, const char *key, size_t len);
/* Inserts or replaces; returns the previous value (or NULL). The key is not
 * copied: it must live as long as the map. */
void *strmap_put(strmap *m, const char *key, size_t len, void *val);

/* ---- str: (pointer, length) strings ------------------------------------- */
bool str_eq(const char *a, size_t alen, const char *b); /* b NUL-terminated */
/* edit distance counting a swap of neighbours as one edit (99 past 32
 * bytes), for "did you mean" */
int str_edit_distance(const char *a, size_t an, const char *b, size_t bn);

#endif
