/* SPDX-License-Identifier: Apache-2.0 */
/* util.c - arena, byte buffers, vectors and hash map (see util.h). */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef PAC_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct arena_block {
  arena_block *next;
  size_t size;
  _Alignas(16) char data[];
};

/* Blocks come from the OS already zeroed, so arena_alloc never clears
 * memory; they double in size up to 4 MiB, and large ones ask for huge pages
 * (a big translation otherwise spends a third of its time in page faults). */
enum { ARENA_FIRST = 64 << 10, ARENA_MAX = 4 << 20 };

void arena_init(arena *a) { a->head = NULL, a->cur = a->end = NULL; }

void arena_free(arena *a) {
  for (arena_block *b = a->head, *n; b; b = n) {
    n = b->next;
    UNPOISON(b, b->size); /* the addresses may be mapped again */
    munmap(b, b->size);
  }
  arena_init(a);
}

void arena_restore(arena *a, arena_mark m) {
  while (a->head != m.head) {
    arena_block *b = a->head;
    if (!m.head && !b->next) { /* back to empty: keep the first block for the next use */
      a->cur = b->data, a->end = (char *)b + b->size;
      POISON(a->cur, (size_t)(a->end - a->cur));
      return;
    }
    a->head = b->next;
    UNPOISON(b, b->size);
    munmap(b, b->size);
  }
  a->cur = m.cur, a->end = m.end;
  if (a->cur) POISON(a->cur, (size_t)(a->end - a->cur)); /* given back: free again */
}

void *arena_alloc_block(arena *a, size_t n) {
  size_t want = a->head ? a->head->size * 2 : ARENA_FIRST;
  if (want > ARENA_MAX) want = ARENA_MAX;
  size_t need = sizeof(arena_block) + n;
  size_t sz = want > need ? want : (need + 4095) & ~(size_t)4095;
  arena_block *b = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED) {
    fputs("pac: out of memory\n", stderr);
    abort();
  }
#ifdef MADV_HUGEPAGE
  if (sz >= (2u << 20)) madvise(b, sz, MADV_HUGEPAGE);
#endif
  b->next = a->head, b->size = sz;
  a->head = b;
  a->cur = b->data, a->end = (char *)b + sz;
  POISON(a->cur, (size_t)(a->end - a->cur)); /* unpoisoned as it is handed out */
  void *p = a->cur;
  a->cur += n;
  return p;
}

#ifdef PAC_ARENA_ASAN
/* arena_alloc with a poisoned redzone of 16 bytes after the allocation */
void *arena_alloc_checked(arena *a, size_t n) {
  size_t m = ((n + 15) & ~(size_t)15) + 16;
  void *p;
  if ((size_t)(a->end - a->cur) < m) {
    p = arena_alloc_block(a, m);
  } else {
    p = a->cur;
    a->cur += m;
  }
  UNPOISON(p, n);
  return p;
}
#endif

char *arena_strndup(arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

void *arena_grow1(arena *a, const void *v, size_t n, size_t elem) {
  unsigned char *r = arena_alloc(a, elem * (n + 1));
  if (n) memcpy(r, v, elem * n);
  memset(r + elem * n, 0, elem);
  return r;
}

char *arena_printf(arena *a, const char *fmt, ...) {
  char buf[512];
  sbuf b;
  sb_init_in(&b, buf, sizeof buf);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&b, fmt, ap);
  va_end(ap);
  char *p = arena_strndup(a, b.s, b.len);
  sb_free(&b);
  return p;
}

void sb_init(sbuf *b) { b->s = NULL, b->len = b->cap = 0, b->borrowed = false; }

void sb_init_in(sbuf *b, char *buf, size_t cap) {
  b->s = buf, b->len = 0, b->cap = cap, b->borrowed = true;
  buf[0] = 0;
}

void sb_free(sbuf *b) {
  if (!b->borrowed) free(b->s);
  sb_init(b);
}

void sb_reserve(sbuf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *s = b->borrowed ? malloc(cap) : realloc(b->s, cap);
  if (!s) {
    fputs("pac: out of memory\n", stderr);
    abort();
  }
  if (b->borrowed) memcpy(s, b->s, b->len + 1), b->borrowed = false;
  b->s = s, b->cap = cap;
}

/* The conversions pac's own formats use are done here (glibc's vsnprintf
 * costs thousands of instructions a call, and the lowering formats a lot):
 * %s %.*s %*s %d %lld %*lld %zu %c %%. Anything else goes to vsnprintf. */
static void put_int(sbuf *b, long long v, int width) {
  char buf[32], *p = buf + sizeof buf;
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do *--p = (char)('0' + u % 10); while (u /= 10);
  if (v < 0) *--p = '-';
  int n = (int)(buf + sizeof buf - p);
  for (int i = n; i < width; i++) sb_putc(b, ' ');
  sb_write(b, p, (size_t)n);
}

void sb_vprintf(sbuf *b, const char *fmt, va_list ap) {
  const char *f = fmt;
  for (;;) {
    const char *pct = strchr(f, '%');
    if (!pct) {
      sb_puts(b, f);
      return;
    }
    sb_write(b, f, (size_t)(pct - f));
    const char *c = pct + 1;
    int width = 0, prec = -1;
    if (*c == '*') width = va_arg(ap, int), c++;
    else if (*c == '.' && c[1] == '*') prec = va_arg(ap, int), c += 2;
    if (*c == 's') {
      const char *s = va_arg(ap, const char *);
      if (!s) s = "(null)";
      size_t n = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
      for (int i = (int)n; i < width; i++) sb_putc(b, ' ');
      sb_write(b, s, n);
    } else if (*c == 'd' && prec < 0) {
      put_int(b, va_arg(ap, int), width);
    } else if (c[0] == 'l' && c[1] == 'l' && c[2] == 'd' && prec < 0) {
      put_int(b, va_arg(ap, long long), width), c += 2;
    } else if (c[0] == 'z' && c[1] == 'u' && !width && prec < 0) {
      size_t v = va_arg(ap, size_t);
      put_int(b, (long long)v, 0), c++;
    } else if (*c == 'c' && !width && prec < 0) {
      sb_putc(b, (char)va_arg(ap, int));
    } else if (*c == '%' && c == pct + 1) {
      sb_putc(b, '%');
    } else {
      /* not ours: format the rest with the C library */
      va_list ap2;
      va_copy(ap2, ap);
      int n = vsnprintf(NULL, 0, pct, ap);
      sb_reserve(b, (size_t)n);
      vsnprintf(b->s + b->len, (size_t)n + 1, pct, ap2);
      va_end(ap2);
      b->len += (size_t)n;
      return;
    }
    f = c + 1;
  }
}

void sb_printf(sbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(b, fmt, ap);
  va_end(ap);
}

char *sb_take(sbuf *b) {
  if (!b->s || b->borrowed) sb_reserve(b, b->cap), b->s[b->len] = 0;
  char *s = b->s;
  sb_init(b);
  return s;
}

void vec_grow_(void **v, int *cap, size_t elem, int need) {
  int c = *cap ? *cap : 8;
  while (c < need) c *= 2;
  void *p = realloc(*v, (size_t)c * elem);
  if (!p) {
    fputs("pac: out of memory\n", stderr);
    abort();
  }
  *v = p, *cap = c;
}

static uint32_t strmap_hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

void strmap_init(strmap *m) { m->e = NULL, m->n = m->cap = 0; }
void strmap_free(strmap *m) { free(m->e), strmap_init(m); }

static strmap_ent *strmap_slot(strmap_ent *e, size_t cap, const char *key, size_t len, uint32_t h) {
  for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1))
    if (!e[i].key || (e[i].hash == h && e[i].len == len && memcmp(e[i].key, key, len) == 0)) return &e[i];
}

void *strmap_get(const strmap *m, const char *key, size_t len) {
  if (!m->cap) return NULL;
  strmap_ent *s = strmap_slot(m->e, m->cap, key, len, strmap_hash(key, len));
  return s->key ? s->val : NULL;
}

void *strmap_put(strmap *m, const char *key, size_t len, void *val) {
  if ((m->n + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    strmap_ent *e = calloc(cap, sizeof *e);
    if (!e) {
      fputs("pac: out of memory\n", stderr);
      abort();
    }
    for (size_t i = 0; i < m->cap; i++)
      if (m->e[i].key) *strmap_slot(e, cap, m->e[i].key, m->e[i].len, m->e[i].hash) = m->e[i];
    free(m->e);
    m->e = e, m->cap = cap;
  }
  uint32_t h = strmap_hash(key, len);
  strmap_ent *s = strmap_slot(m->e, m->cap, key, len, h);
  void *old = s->key ? s->val : NULL;
  if (!s->key) m->n++;
  *s = (strmap_ent){key, len, h, val};
  return old;
}

bool str_eq(const char *a, size_t alen, const char *b) {
  /* no strlen: most calls fail on the first character */
  for (size_t i = 0; i < alen; i++)
    if (a[i] != b[i]) return false; /* also stops at b's terminator */
  return b[alen] == 0;
}

int str_edit_distance(const char *a, size_t an, const char *b, size_t bn) {
  if (an > 32 || bn > 32) return 99;
  int d[33][33];
  for (size_t i = 0; i <= an; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= bn; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= an; i++)
    for (size_t j = 1; j <= bn; j++) {
      int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < c)
        c = d[i - 2][j - 2] + 1;
      d[i][j] = c;
    }
  return d[an][bn];
}
