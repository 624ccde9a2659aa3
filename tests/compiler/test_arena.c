/* test_arena.c - the arena allocator (compiler/front/util.c): allocations
 * are 16-byte aligned, zeroed and disjoint, across blocks too, and
 * arena_restore gives memory back. In a build with AddressSanitizer it also
 * checks that the sanitizer sees inside the arena: the byte after every
 * allocation and the unused rest of a block are poisoned, and memory given
 * back by arena_restore is poisoned again. */
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef PAC_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#endif

static int fails;
#define CHECK(c)                                                                                                    \
  do {                                                                                                              \
    if (!(c)) fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c), fails++;                                 \
  } while (0)

/* the sanitizer's view: p[0..n) addressable, p[n] not */
static void check_poison(const char *p, size_t n) {
#ifdef PAC_ARENA_ASAN
  CHECK(__asan_region_is_poisoned((void *)p, n) == NULL);
  CHECK(__asan_address_is_poisoned(p + n));
#else
  (void)p, (void)n;
#endif
}

int main(void) {
  arena a;
  arena_init(&a);
  char *prev = NULL;
  size_t prev_n = 0;
  for (size_t i = 1; i < 3000; i += 7) { /* small and large, over several blocks */
    size_t n = i * (i % 5 + 1);
    char *p = arena_alloc(&a, n);
    CHECK(((uintptr_t)p & 15) == 0);
    for (size_t k = 0; k < n; k++) CHECK(p[k] == 0);
    memset(p, 0x5a, n);
    check_poison(p, n);
    if (prev) CHECK(p >= prev + prev_n || p + n <= prev); /* disjoint from the one before */
    prev = p, prev_n = n;
  }
  arena_mark m = arena_save(&a);
  char *q = arena_alloc(&a, 100);
  check_poison(q, 100);
  arena_restore(&a, m);
#ifdef PAC_ARENA_ASAN
  CHECK(__asan_address_is_poisoned(q)); /* given back */
#endif
  char *r = arena_alloc(&a, 100);
  CHECK(r == q); /* the same memory, handed out again */
  check_poison(r, 100);
  arena_free(&a);
  char *big = arena_alloc(&a, (size_t)9 << 20); /* one block larger than the largest */
  big[((size_t)9 << 20) - 1] = 1;
  check_poison(big, (size_t)9 << 20);
  arena_free(&a);
#ifdef PAC_ARENA_ASAN
  printf("arena: checked, with the sanitizer's poisoning\n");
#else
  printf("arena: checked (a build without AddressSanitizer: poisoning not checked)\n");
#endif
  return fails ? 1 : 0;
}
