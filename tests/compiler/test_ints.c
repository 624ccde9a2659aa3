/* test_ints.c - unit tests of checked integer folding: ex_fold and the IR
 * constructors never trap (INT64_MIN / -1, overflowing sums and products,
 * division by zero), the C expression reader reports constants that do not
 * fit, divisions by zero and overflows instead of folding them, path digits
 * saturate, and run-time footprints print as checked calls. */
#include "cexpr.h"
#include "types.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;
#define CHECK(cond, ...)                          \
  do {                                            \
    checks++;                                     \
    if (!(cond)) {                                \
      failures++;                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                        \
      printf("\n");                               \
    }                                             \
  } while (0)

static void test_fold(void) {
  int64_t r = 42;
  CHECK(ex_fold(EX_DIV, INT64_MIN, -1, &r) == EXF_OVERFLOW && r == 42, "INT64_MIN / -1");
  CHECK(ex_fold(EX_MOD, INT64_MIN, -1, &r) == EXF_OVERFLOW && r == 42, "INT64_MIN %% -1");
  CHECK(ex_fold(EX_DIV, 7, 0, &r) == EXF_DIV_ZERO, "7 / 0");
  CHECK(ex_fold(EX_MOD, 7, 0, &r) == EXF_DIV_ZERO, "7 %% 0");
  CHECK(ex_fold(EX_ADD, INT64_MAX, 1, &r) == EXF_OVERFLOW, "INT64_MAX + 1");
  CHECK(ex_fold(EX_SUB, INT64_MIN, 1, &r) == EXF_OVERFLOW, "INT64_MIN - 1");
  CHECK(ex_fold(EX_MUL, 4294967296LL, 4294967296LL, &r) == EXF_OVERFLOW, "2^32 * 2^32");
  CHECK(ex_fold(EX_MUL, 3037000499LL, 3037000499LL, &r) == EXF_OK && r == 9223372030926249001LL, "3037000499^2");
  CHECK(ex_fold(EX_DIV, -7, 2, &r) == EXF_OK && r == -3, "-7 / 2 truncates");
  CHECK(ex_fold(EX_MOD, -7, 2, &r) == EXF_OK && r == -1, "-7 %% 2");
  CHECK(ex_fold(EX_DIV, INT64_MIN, 1, &r) == EXF_OK && r == INT64_MIN, "INT64_MIN / 1");
}

static void test_constructors(void) {
  arena ar;
  arena_init(&ar);
  exctx x;
  ex_init(&x, &ar);
  ex *mn = ex_const(&x, INT64_MIN), *m1 = ex_const(&x, -1), *z = ex_const(&x, 0);
  int64_t v;
  /* built, not folded, and no trap */
  CHECK(!ex_is_const(ex_div(&x, mn, m1), NULL), "INT64_MIN / -1 is not folded");
  CHECK(!ex_is_const(ex_mod(&x, mn, m1), NULL), "INT64_MIN %% -1 is not folded");
  CHECK(ex_div_exact(&x, mn, m1) == NULL, "INT64_MIN / -1 is not exact");
  CHECK(!ex_is_const(ex_div(&x, ex_const(&x, 5), z), NULL), "5 / 0 is not folded");
  CHECK(!ex_is_const(ex_add(&x, ex_const(&x, INT64_MAX), ex_const(&x, 1)), NULL), "INT64_MAX + 1 is not folded");
  CHECK(!ex_is_const(ex_mul(&x, ex_const(&x, 1LL << 40), ex_const(&x, 1LL << 40)), NULL), "2^80 is not folded");
  CHECK(ex_is_const(ex_div(&x, ex_const(&x, -9), ex_const(&x, 2)), &v) && v == -4, "-9 / 2 folds to -4");
  /* ranges saturate instead of overflowing */
  ex *i = ex_atom(&x, "i", -EX_INF + 1, 5), *j = ex_atom(&x, "j", 0, INT64_MAX - 1);
  ex *d = ex_sub(&x, i, j);
  CHECK(d->lo == -EX_INF && d->hi == 5, "range of i - j is [-inf, 5], got [%lld, %lld]", (long long)d->lo,
        (long long)d->hi);
  /* (n * c1) * c2 and (n + c1) + c2 whose constants do not fold: built, not
   * re-associated back and forth for ever (found by the fuzzer) */
  ex *n = ex_atom(&x, "n", 0, EX_INF), *big = ex_const(&x, 1LL << 40), *top = ex_const(&x, INT64_MAX);
  ex *nm = ex_mul(&x, ex_mul(&x, ex_mul(&x, n, big), big), big);
  CHECK(nm && nm->k == EX_MUL, "n * 2^40 * 2^40 * 2^40 is a product");
  ex *na = ex_add(&x, ex_add(&x, ex_add(&x, n, top), top), top);
  CHECK(na && na->k == EX_ADD, "n + max + max + max is a sum");
  CHECK(ex_mul(&x, ex_mul(&x, big, big), ex_mul(&x, n, big)) != NULL, "(2^40 * 2^40) * (n * 2^40) ends");
  /* (p / c1) / c2 whose c1 * c2 overflows keeps both divisions */
  ex *p = ex_atom(&x, "p", 0, EX_INF);
  ex *q = ex_div(&x, ex_div(&x, p, ex_const(&x, 1LL << 40)), ex_const(&x, 1LL << 40));
  CHECK(q->k == EX_DIV && q->a->k == EX_DIV, "(p / 2^40) / 2^40 keeps two divisions");
  /* evaluation reports instead of overflowing */
  ex *ea = ex_atom(&x, "a", 0, EX_INF), *eb = ex_atom(&x, "b", 0, EX_INF);
  int64_t av[8] = {0};
  av[ea->id] = INT64_MAX, av[eb->id] = 2;
  bool ok = true;
  ex_eval(ex_mul(&x, ea, eb), av, &ok);
  CHECK(!ok, "INT64_MAX * 2 evaluates as not ok");
  ok = true;
  CHECK(ex_eval(ex_div(&x, mn, m1), av, &ok) == 0 && !ok, "evaluating INT64_MIN / -1 is not ok");
  ex_fini(&x);
  arena_free(&ar);
}

/* Read text as a C expression; *errors: how many errors were reported. */
static ex *read_expr(exctx *x, arena *ar, const char *text, int *errors) {
  srcfile src;
  src_from_string(&src, "t.pc", text, (uint32_t)strlen(text));
  diag dg;
  FILE *sink = fopen("/dev/null", "w");
  diag_init(&dg, &src, sink ? sink : stderr);
  cxenv c = {.ex = x, .ar = ar, .dg = &dg};
  ltok *t;
  int n = cx_tokenize(&c, text, &t);
  ex *e = cx_parse(&c, t, n);
  *errors = dg.errors;
  if (sink) fclose(sink);
  src_free(&src);
  return e;
}

static void test_reader(void) {
  arena ar;
  arena_init(&ar);
  exctx x;
  ex_init(&x, &ar);
  static const char *bad[] = {"(-9223372036854775807-1)/-1", "(-9223372036854775807-1)%-1", "4/0", "n%0",
                              "99999999999999999999999999", "9223372036854775808", "0x10000000000000000",
                              "4294967296*4294967296", "9223372036854775807+1", "-(-9223372036854775807-1)",
                              "1<<64", "1<<63", "3>>-1"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    int errs;
    ex *e = read_expr(&x, &ar, bad[k], &errs);
    CHECK(e == NULL && errs == 1, "'%s' is refused with one error (got %s, %d errors)", bad[k], e ? "an expression" : "NULL",
          errs);
  }
  static const struct {
    const char *s;
    int64_t v;
  } good[] = {{"9223372036854775807", INT64_MAX}, {"-9223372036854775807-1", INT64_MIN}, {"-7/2", -3},
              {"-7%2", -1}, {"1<<62", 1LL << 62}, {"3037000499*3037000499", 9223372030926249001LL},
              {"0x7fffffffffffffff", INT64_MAX}};
  for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
    int errs;
    int64_t v = 0;
    ex *e = read_expr(&x, &ar, good[k].s, &errs);
    CHECK(e && ex_is_const(e, &v) && v == good[k].v && errs == 0, "'%s' = %lld (got %lld, %d errors)", good[k].s,
          (long long)good[k].v, (long long)v, errs);
  }
  int errs;
  ex *e = read_expr(&x, &ar, "1.5e30", &errs);
  CHECK(e && !ex_is_const(e, NULL) && errs == 0, "a floating constant stays as written");
  ex_fini(&x);
  arena_free(&ar);
}

static void test_paths_and_printing(void) {
  CHECK(ty_path_index("12", 2) == 12, "path index 12");
  CHECK(ty_path_index("2147483647", 10) == INT_MAX, "path index INT_MAX");
  CHECK(ty_path_index("4294967296", 10) == INT_MAX, "path index 2^32 saturates");
  CHECK(ty_path_index("99999999999999999999999", 23) == INT_MAX, "a 23-digit path index saturates");
  arena ar;
  arena_init(&ar);
  exctx x;
  ex_init(&x, &ar);
  ex *n = ex_atom(&x, "n", 1, EX_INF), *m = ex_atom(&x, "m", 1, EX_INF);
  ex *fp = ex_mul(&x, ex_mul(&x, n, ex_const(&x, 2)), m);
  sbuf b;
  sb_init(&b);
  ex_print_calls(&b, fp, "ck_");
  CHECK(b.s && !strcmp(b.s, "ck_mul(ck_mul((long long)n, 2), (long long)m)"), "checked print: %s", b.s);
  sb_free(&b);
  ex *big = ex_mul(&x, n, ex_mul(&x, ex_const(&x, 1LL << 40), ex_const(&x, 1LL << 40)));
  CHECK(ex_has_failed_fold(big), "n * (2^40 * 2^40) has a failed fold");
  CHECK(!ex_has_failed_fold(fp), "n * 2 * m has none");
  CHECK(!ex_atom_free(fp) && ex_atom_free(ex_add(&x, ex_const(&x, INT64_MAX), ex_const(&x, 1))),
        "atom-free detects an overflowed constant sum");
  ex_fini(&x);
  arena_free(&ar);
}

int main(void) {
  test_fold();
  test_paths_and_printing();
  test_constructors();
  test_reader();
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
