/* test_ppeval.c - unit tests of the #if/#elif evaluator used without a
 * preprocessor: operators, conversions, constants, defined, macro expansion
 * (object- and function-like, # and ##, self-reference), -D/-U, and errors
 * with their offsets, including expansions that must stop. */
#include "ppeval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

/* the value of cond, which must evaluate */
static void ok(const ppmacros *m, const char *cond, int64_t want, int line) {
  char err[256];
  size_t off = 0;
  int64_t v = -12345;
  checks++;
  int rc = pp_eval(m, cond, strlen(cond), &v, err, sizeof err, &off);
  if (rc != 0) {
    failures++;
    printf("line %d: #if %s: unexpected error at %zu: %s\n", line, cond, off, err);
  } else if (v != want) {
    failures++;
    printf("line %d: #if %s: got %lld, want %lld\n", line, cond, (long long)v, (long long)want);
  }
}

/* cond must fail with a message containing msg at offset want_off */
static void bad(const ppmacros *m, const char *cond, const char *msg, size_t want_off, int line) {
  char err[256] = "";
  size_t off = 9999;
  int64_t v = 0;
  checks++;
  int rc = pp_eval(m, cond, strlen(cond), &v, err, sizeof err, &off);
  if (rc != -1) {
    failures++;
    printf("line %d: #if %s: no error (value %lld), want \"%s\"\n", line, cond, (long long)v, msg);
  } else if (!strstr(err, msg) || off != want_off) {
    failures++;
    printf("line %d: #if %s: got \"%s\" at %zu, want \"%s\" at %zu\n", line, cond, err, off, msg, want_off);
  }
}

#define OK(m, c, v) ok(m, c, v, __LINE__)
#define BAD(m, c, msg, off) bad(m, c, msg, off, __LINE__)

static void def(ppmacros *m, const char *text) { pp_define(m, text, strlen(text)); }

static void test_operators(const ppmacros *m) {
  OK(m, "1 + 2 * 3", 7);
  OK(m, "(1 + 2) * 3", 9);
  OK(m, "10 - 4 - 3", 3);
  OK(m, "100 / 10 / 5", 2);
  OK(m, "17 % 5", 2);
  OK(m, "-17 / 5", -3);
  OK(m, "-17 % 5", -2);
  OK(m, "1 << 4 >> 2", 4);
  OK(m, "1 << 2 + 1", 8);
  OK(m, "-16 >> 2", -4);
  OK(m, "1 << -1", 0);
  OK(m, "8 >> -1", 16);
  OK(m, "1 << 64", 0);
  OK(m, "-1 >> 70", -1);
  OK(m, "6 & 3", 2);
  OK(m, "6 | 3", 7);
  OK(m, "6 ^ 3", 5);
  OK(m, "1 | 2 ^ 3 & 4", 1 | (2 ^ (3 & 4)));
  OK(m, "1 == 1", 1);
  OK(m, "1 != 1", 0);
  OK(m, "2 < 3", 1);
  OK(m, "2 > 3", 0);
  OK(m, "3 <= 3", 1);
  OK(m, "2 >= 3", 0);
  OK(m, "1 < 2 == 1", 1);
  OK(m, "3 & 1 == 1", 1);
  OK(m, "1 && 0", 0);
  OK(m, "1 && 2", 1);
  OK(m, "0 || 0", 0);
  OK(m, "0 || 5", 1);
  OK(m, "1 || 0 && 0", 1);
  OK(m, "-3", -3);
  OK(m, "+3", 3);
  OK(m, "~0", -1);
  OK(m, "!0", 1);
  OK(m, "!7", 0);
  OK(m, "- - 3", 3);
  OK(m, "!!5", 1);
  OK(m, "1 ? 2 : 3", 2);
  OK(m, "0 ? 2 : 3", 3);
  OK(m, "0 ? 1 : 0 ? 2 : 3", 3);
  OK(m, "1 ? 0 ? 4 : 5 : 6", 5);
  OK(m, "(1, 2)", 2);
  OK(m, "1, 0", 0);
  OK(m, "((((7))))", 7);
  OK(m, "0x7fffffffffffffff + 1 < 0", 1); /* wraps, as GCC */
  OK(m, "-0x7fffffffffffffff - 1 == -0x7fffffffffffffff - 1", 1);
  OK(m, "(-0x7fffffffffffffff - 1) / -1 < 0", 1);
  OK(m, "(-0x7fffffffffffffff - 1) % -1", 0);
  OK(m, "0x4000000000000000 * 4", 0);
}

static void test_unsigned(const ppmacros *m) {
  OK(m, "-1 > 0u", 1);
  OK(m, "-1 < 0", 1);
  OK(m, "-1 < 0U", 0);
  OK(m, "0u - 1 > 0", 1);
  OK(m, "-1 / 2u > 0", 1);
  OK(m, "-1u == 0xffffffffffffffff", 1);
  OK(m, "0xffffffffffffffff > 0", 1); /* too large for intmax_t: unsigned */
  OK(m, "18446744073709551615 == -1", 1);
  OK(m, "9223372036854775807 > 0", 1);
  OK(m, "9223372036854775808 > 0", 1);
  OK(m, "-1u >> 63", 1);  /* logical shift */
  OK(m, "-1 >> 63", -1);  /* arithmetic */
  OK(m, "1u << 63 > 0", 1);
  OK(m, "-1 >> 1u < 0", 1); /* a shift has its left operand's type */
  OK(m, "(1 ? -1 : 0u) > 0", 1);
  OK(m, "(0 ? 0u : -1) > 0", 1);
  OK(m, "(1 < 2) - 2 < 0", 1); /* comparisons are signed */
  OK(m, "(-1 == -1u) - 2 < 0", 1);
  OK(m, "!0u - 2 < 0", 1);
  OK(m, "-(1u) > 0", 1);
  OK(m, "~0u > 0", 1);
}

static void test_constants(const ppmacros *m) {
  OK(m, "010", 8);
  OK(m, "0x1F", 31);
  OK(m, "0XaB", 171);
  OK(m, "0b101", 5);
  OK(m, "0B11", 3);
  OK(m, "0", 0);
  OK(m, "10u + 10U + 10l + 10L + 10ul + 10LU + 10ll + 10LL + 10ull + 10LLU + 10uLL", 110);
  OK(m, "0x10ULL", 16);
  OK(m, "'a'", 97);
  OK(m, "'\\n'", 10);
  OK(m, "'\\x41'", 65);
  OK(m, "'\\0'", 0);
  OK(m, "'\\''", 39);
  OK(m, "'\\\\'", 92);
  OK(m, "'\"'", 34);
  OK(m, "'\\101'", 65);
  OK(m, "'\\377'", -1); /* char is signed */
  OK(m, "'\\xff' < 0", 1);
  OK(m, "'ab'", 'a' * 256 + 'b');
  OK(m, "L'a'", 97);
  OK(m, "u'a' - 98 > 0", 1); /* char16_t: unsigned, as GCC */
  OK(m, "U'\\xffffffff' > 0", 1);
  OK(m, "L'\\xffffffff'", -1);
  OK(m, "u8'a'", 97);
  OK(m, "'\\u00e9'", 0xC3 * 256 + 0xA9);
  OK(m, "'a' == 97 && '\\t' == 9", 1);
}

static void test_defined(ppmacros *m) {
  def(m, "X 1");
  def(m, "EMPTY");
  def(m, "F(a) a");
  OK(m, "defined X", 1);
  OK(m, "defined(X)", 1);
  OK(m, "defined ( X )", 1);
  OK(m, "defined EMPTY", 1);
  OK(m, "defined F", 1);
  OK(m, "defined Y", 0);
  OK(m, "!defined(Y) && defined X", 1);
  OK(m, "defined X + defined EMPTY + defined(Z)", 2);
  OK(m, "defined /* c */ X // tail", 1);
  OK(m, "defined __has_include", 1);
  OK(m, "__has_include(<stdio.h>)", 0);
  OK(m, "__has_include(\"x.h\") || 1", 1);
  OK(m, "__has_include_next(<x.h>)", 0);
  OK(m, "__has_builtin(__builtin_expect)", 0);
  OK(m, "__has_attribute(noreturn)", 0);
  OK(m, "__has_feature(address_sanitizer)", 0);
  OK(m, "__has_cpp_attribute(x) + 3", 3);
  OK(m, "__has_anything_else(x, (y)) + 4", 4);
  OK(m, "__has_no_parens + 5", 5); /* not one of GCC's operators: an identifier */
  OK(m, "true", 0);
  OK(m, "false || unknown_name", 0);
  BAD(m, "defined", "requires an identifier", 0);
  BAD(m, "defined(1)", "requires an identifier", 8);
  BAD(m, "defined(X", "missing ')' after \"defined\"", 0);
  BAD(m, "defined(X 1", "missing ')' after \"defined\"", 10);
  BAD(m, "__has_include", "missing '(' after \"__has_include\"", 0);
  BAD(m, "1 + __has_builtin + 1", "missing '(' after \"__has_builtin\"", 18);
  BAD(m, "__has_include(<a.h>", "missing ')'", 0);
  def(m, "D defined");
  def(m, "DX defined(X)");
  BAD(m, "D X", "\"defined\" produced by a macro expansion", 0);
  BAD(m, "DX", "\"defined\" produced by a macro expansion", 0);
  BAD(m, "F(defined X)", "\"defined\" produced by a macro expansion", 2);
  OK(m, "defined D", 1);
  OK(m, "defined(D)", 1); /* the operand of defined is not expanded */
}

static void test_object_macros(ppmacros *m) {
  def(m, "N 4");
  def(m, "TWICE_N (N * 2)");
  def(m, "NEG -1");
  def(m, "SUM N + N");
  def(m, "ZERO");
  def(m, "LATE EARLY");
  OK(m, "N", 4);
  OK(m, "TWICE_N", 8);
  OK(m, "NEG < 0", 1);
  OK(m, "SUM * 2", 12); /* N + N * 2 */
  OK(m, "ZERO 1", 1);
  OK(m, "LATE", 0);
  def(m, "EARLY 9");
  OK(m, "LATE", 9); /* expanded at use */
  def(m, "N 5"); /* redefinition replaces */
  OK(m, "TWICE_N", 10);
  pp_undef(m, "  N\t", 4);
  OK(m, "defined N", 0);
  OK(m, "N", 0);
  OK(m, "TWICE_N", 0);
  pp_undef(m, "NEVER", 5);
  OK(m, "defined NEVER", 0);
  def(m, "N 3");
  OK(m, "N", 3);
  def(m, "C /* comment */ 2 // more");
  OK(m, "C", 2);
}

static void test_function_macros(ppmacros *m) {
  def(m, "ADD(a, b) ((a) + (b))");
  def(m, "ID(x) x");
  def(m, "NOARGS() 42");
  def(m, "FIRST(a, b) a");
  def(m, "P 3");
  def(m, "G ID");
  def(m, "H() ID");
  OK(m, "ADD(1, 2)", 3);
  OK(m, "ADD(ADD(1, 2), ADD(3, 4))", 10);
  OK(m, "ADD((1, 2), 3)", 5);
  OK(m, "ADD(P, P)", 6);
  OK(m, "ID(ID(ID(7)))", 7);
  OK(m, "NOARGS()", 42);
  OK(m, "NOARGS ( )", 42);
  OK(m, "FIRST((1, 2, 3), 9)", 3);
  OK(m, "FIRST(, 9) 5", 5);
  OK(m, "ID", 0); /* not followed by '(': an identifier */
  OK(m, "ID + 1", 1);
  OK(m, "G(5)", 5); /* the name from an expansion, '(' from the text */
  OK(m, "H()(6)", 6);
  OK(m, "ID(/* c */ 8)", 8);
  OK(m, "ID(\n9\n)", 9);
  def(m, "V(...) __VA_ARGS__");
  def(m, "VA(a, ...) a + V(__VA_ARGS__)");
  def(m, "CNT(...) CNT_(__VA_ARGS__, 3, 2, 1, 0)");
  def(m, "CNT_(a, b, c, n, ...) n");
  def(m, "GV(a, args...) a + args");
  def(m, "GC(a, ...) ADD(a, 0 , ## __VA_ARGS__)");
  OK(m, "V(1, 2)", 2);
  OK(m, "VA(1, 2)", 3);
  OK(m, "CNT(a, b)", 2);
  OK(m, "CNT(a, b, c)", 3);
  OK(m, "GV(1, 2)", 3);
  OK(m, "FIRST(V(1, 2), 0)", 2);
  BAD(m, "ADD(1)", "requires 2 arguments, but only 1 given", 0);
  BAD(m, "ADD(1, 2, 3)", "passed 3 arguments, but takes just 2", 0);
  BAD(m, "1 + ADD(1, 2", "unterminated argument list invoking macro \"ADD\"", 4);
  BAD(m, "ID((1)", "unterminated argument list", 0);
  BAD(m, "NOARGS(1)", "passed 1 arguments, but takes just 0", 0);
}

static void test_stringize_paste(ppmacros *m) {
  def(m, "STR(x) #x");
  def(m, "CAT(a, b) a ## b");
  def(m, "CAT3(a, b, c) a ## b ## c");
  def(m, "XCAT(a, b) CAT(a, b)");
  def(m, "VAL12 34");
  def(m, "ONE 1");
  def(m, "TWO 2");
  def(m, "OBJ 1 ## 0");
  OK(m, "CAT(1, 2)", 12);
  OK(m, "CAT(VAL, 12)", 34);
  OK(m, "CAT(ONE, TWO)", 0);   /* ONETWO: no macro */
  OK(m, "XCAT(ONE, TWO)", 12); /* arguments expanded first */
  OK(m, "CAT3(1, 2, 3)", 123);
  OK(m, "CAT(, 5)", 5);
  OK(m, "CAT(5, )", 5);
  OK(m, "CAT(,) 7", 7);
  OK(m, "CAT(0x, 10)", 16);
  OK(m, "CAT(1, 2 + 1)", 13);
  OK(m, "OBJ", 10);
  OK(m, "1 CAT(<, <) 2 == 4", 1); /* (1 << 2) == 4 */
  OK(m, "(1 CAT(<, <) 2) == 4", 1);
  OK(m, "CAT(1, 2) CAT(=, =) 12", 1);
  BAD(m, "STR(x)", "string literal \"x\"", 0);
  BAD(m, "STR( a  +  \"q\" )", "string literal \"a + \\\"q\\\"\"", 0);
  BAD(m, "CAT(+, -)", "pasting \"+\" and \"-\" does not give a valid preprocessing token", 0);
  BAD(m, "1 + CAT(/, /)", "pasting \"/\" and \"/\"", 4);
  def(m, "SCAT(x) #x ## x");
  BAD(m, "SCAT(a)", "pasting \"\"a\"\" and \"a\"", 0);
  def(m, "WSTR(x) L ## #x");
  BAD(m, "1 + WSTR(a)", "string literal L\"a\"", 4);
  char err[128];
  size_t off;
  if (pp_define_checked(m, "BAD1(x) # y", 11, err, sizeof err, &off) != -1 || !strstr(err, "'#' is not followed") ||
      off != 8)
    failures++, printf("#define BAD1(x) # y: got \"%s\" at %zu\n", err, off);
  if (pp_define_checked(m, "BAD2 ## x", 9, err, sizeof err, &off) != -1 || !strstr(err, "either end") || off != 5)
    failures++, printf("#define BAD2 ## x: got \"%s\" at %zu\n", err, off);
  if (pp_define_checked(m, "BAD3(a, a) a", 12, err, sizeof err, &off) != -1 || !strstr(err, "duplicate") || off != 8)
    failures++, printf("#define BAD3(a, a): got \"%s\" at %zu\n", err, off);
  if (pp_define_checked(m, "defined 1", 9, err, sizeof err, &off) != -1 || !strstr(err, "cannot be used") || off != 0)
    failures++, printf("#define defined: got \"%s\" at %zu\n", err, off);
  if (pp_define_checked(m, "3 x", 3, err, sizeof err, &off) != -1 || !strstr(err, "must be identifiers"))
    failures++, printf("#define 3 x: got \"%s\"\n", err);
  if (pp_define_checked(m, "BAD4(a b", 8, err, sizeof err, &off) != -1 || !strstr(err, "missing ')'"))
    failures++, printf("#define BAD4(a b: got \"%s\"\n", err);
  /* # is an operator only in function-like macros */
  if (pp_define_checked(m, "OBJ2 # 1", 8, err, sizeof err, &off) != 0)
    failures++, printf("#define OBJ2 # 1: rejected: %s\n", err);
  checks += 7;
  OK(m, "defined BAD1 || defined BAD2 || defined BAD3 || defined BAD4", 0);
  OK(m, "defined OBJ2", 1);
  def(m, "SP (x)");
  OK(m, "SP", 0); /* object-like: blank before '(' */
}

static void test_self_reference(ppmacros *m) {
  def(m, "SELF SELF + 1");
  def(m, "A B");
  def(m, "B A");
  def(m, "REC(x) REC(x) + x");
  def(m, "f(x) x + f");
  def(m, "g f");
  def(m, "AAA AAA AAA AAA AAA");
  OK(m, "SELF", 1);  /* SELF + 1 with SELF an identifier */
  OK(m, "A", 0);
  OK(m, "B + 2", 2);
  BAD(m, "REC(3)", "missing binary operator before token \"(\"", 0); /* REC (3) + 3: REC is painted */
  OK(m, "f(2)", 2);
  OK(m, "g(2)", 2);
  BAD(m, "f(2)(3)", "missing binary operator before token \"(\"", 4); /* the inner f is painted */
  BAD(m, "AAA", "missing binary operator before token \"AAA\"", 0);
  def(m, "q(x) x");
  def(m, "r q(1)"); /* r expands to a call that is complete inside it */
  OK(m, "r + 1", 2);
  BAD(m, "q(q)(2)", "missing binary operator before token \"(\"", 4); /* the q from the argument is painted */
}

static void test_options(void) {
  ppmacros *m = pp_macros_new();
  pp_define_option(m, "PLAIN");
  pp_define_option(m, "VAL=7");
  pp_define_option(m, "EMPTY=");
  pp_define_option(m, "F(x)=(x*2)");
  pp_define_option(m, "EQ=a=b");
  OK(m, "PLAIN", 1);
  OK(m, "VAL", 7);
  OK(m, "(defined EMPTY) + EMPTY 5", 6);
  OK(m, "F(4)", 8);
  OK(m, "defined EQ", 1);
  BAD(m, "EQ", "token \"=\" is not valid", 0);
  pp_undef(m, "VAL", 3);
  OK(m, "VAL", 0);
  checks++;
  if (!pp_is_defined(m, " PLAIN ", 7) || pp_is_defined(m, "VAL", 3) || !pp_is_defined(m, "__has_builtin", 13))
    failures++, printf("pp_is_defined is wrong\n");
  pp_macros_free(m);
}

static void test_errors(const ppmacros *m) {
  BAD(m, "", "#if with no expression", 0);
  int64_t v;
  char err[64];
  size_t off = 99;
  checks++;
  if (pp_eval(m, NULL, 0, &v, err, sizeof err, &off) != -1 || off != 0) failures++, printf("pp_eval(NULL, 0) evaluated\n");
  BAD(m, "  /* only */ ", "#if with no expression", 13);
  BAD(m, "1 +", "operator '+' has no right operand", 2);
  BAD(m, "* 2", "operator '*' has no left operand", 0);
  BAD(m, "1 + * 2", "operator '+' has no right operand", 2);
  BAD(m, "(1 + 2", "missing ')' in expression", 0);
  BAD(m, "1 + 2)", "missing '(' in expression", 5);
  BAD(m, ")", "missing '(' in expression", 0);
  BAD(m, "()", "missing expression between '(' and ')'", 1);
  BAD(m, "1 2", "missing binary operator before token \"2\"", 2);
  BAD(m, "(1 2)", "missing binary operator before token \"2\"", 3);
  BAD(m, "1 ? 2", "'?' without following ':'", 2);
  BAD(m, "1 : 2", "':' without preceding '?'", 2);
  BAD(m, "1 / 0", "division by zero", 2);
  BAD(m, "1 % (2 - 2)", "modulo by zero", 2);
  BAD(m, "\"str\"", "string literal \"str\" is not valid", 0);
  BAD(m, "1 + L\"w\"", "string literal", 4);
  BAD(m, "1.5", "floating constant", 0);
  BAD(m, "2 + 1e3", "floating constant", 4);
  BAD(m, ".5", "floating constant", 0);
  BAD(m, "0x1p3", "floating constant", 0);
  BAD(m, "089", "invalid digit \"8\" in octal constant", 1);
  BAD(m, "0b102", "invalid digit \"2\" in binary constant", 4);
  BAD(m, "12abc", "invalid suffix \"abc\" on integer constant", 2);
  BAD(m, "1lL", "invalid suffix \"lL\"", 1);
  BAD(m, "1uu", "invalid suffix", 1);
  BAD(m, "0x", "invalid suffix \"x\"", 1);
  BAD(m, "0xe+1", "invalid suffix \"+1\"", 3);
  BAD(m, "1 + BADNUM", "invalid suffix \"m\"", 4); /* a number from a macro: the macro's place */
  BAD(m, "1 + BADOCT", "invalid digit \"9\"", 4);
  BAD(m, "99999999999999999999", "too large", 0);
  BAD(m, "''", "empty character constant", 0);
  BAD(m, "'a", "missing terminating ' character", 0);
  BAD(m, "1 + \"a", "missing terminating \" character", 4);
  BAD(m, "u8'a", "missing terminating ' character", 0);
  BAD(m, "'\"", "missing terminating ' character", 0);
  BAD(m, "1 = 1", "token \"=\" is not valid", 2);
  BAD(m, "1 @ 1", "token \"@\" is not valid", 2);
  BAD(m, "@", "stray '@'", 0);
  BAD(m, "a[1]", "token \"[\" is not valid", 1);
  BAD(m, "1 /* open", "unterminated comment", 2);
  BAD(m, "# 1", "token \"#\" is not valid", 0);
  BAD(m, "1,", "operator ',' has no right operand", 1);
}

static void test_short_circuit(const ppmacros *m) {
  OK(m, "0 && 1 / 0", 0);
  OK(m, "1 || 1 / 0", 1);
  OK(m, "1 ? 2 : 1 / 0", 2);
  OK(m, "0 ? 1 % 0 : 3", 3);
  OK(m, "0 && (1 / 0 || 1 % 0)", 0);
  OK(m, "1 || (0 ? 1 : 1 / 0)", 1);
  OK(m, "0 && (1 ? 1 / 0 : 0)", 0);
  OK(m, "(0 ? 2 / 0u : 1) - 2 < 0", 1); /* as GCC: an unevaluated x / 0 is x, with x's type */
  OK(m, "(0 ? 2u / 0 : 1) - 2 < 0", 0);
  BAD(m, "1 && 1 / 0", "division by zero", 7);
  BAD(m, "0 || 1 / 0", "division by zero", 7);
  BAD(m, "0 ? 1 : 1 / 0", "division by zero", 10);
  BAD(m, "0 && (1 2)", "missing binary operator", 8); /* syntax is checked everywhere */
}

static void test_limits(void) {
  ppmacros *m = pp_macros_new();
  /* each level quadruples: far past the token limit */
  def(m, "L0 x x x x");
  char buf[64];
  for (int i = 1; i < 40; i++) {
    snprintf(buf, sizeof buf, "L%d L%d L%d L%d L%d", i, i - 1, i - 1, i - 1, i - 1);
    def(m, buf);
  }
  BAD(m, "L39", "macro expansion too large", 0);
  def(m, "D(x) x x");
  BAD(m, "D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(1))))))))))))))))))))))))", "too large", 0);
  /* identifiers that double at each level through pasting */
  def(m, "C(x) x ## x");
  def(m, "E(x) C(x)");
  {
    char big[2048] = "";
    for (int i = 0; i < 40; i++) strcat(big, "E(");
    strcat(big, "a");
    for (int i = 0; i < 40; i++) strcat(big, ")");
    BAD(m, big, "macro expansion too large", 0);
    /* arguments nested past the limit */
    char deep[8192] = "";
    for (int i = 0; i < 1000; i++) strcat(deep, "D(");
    strcat(deep, "1");
    for (int i = 0; i < 1000; i++) strcat(deep, ")");
    BAD(m, deep, "nested too deeply", 0);
    char parens[8192] = "";
    for (int i = 0; i < 3000; i++) strcat(parens, "(");
    strcat(parens, "1");
    for (int i = 0; i < 3000; i++) strcat(parens, ")");
    BAD(m, parens, "expression nested too deeply", 1000);
    char unary[8192] = "";
    for (int i = 0; i < 3000; i++) strcat(unary, "- ");
    strcat(unary, "1");
    BAD(m, unary, "expression nested too deeply", 2000);
  }
  /* within the limits */
  def(m, "ONE 1");
  def(m, "M(x) x");
  OK(m, "M(M(M(M(M(ONE)))))", 1);
  BAD(m, "M(M(M(M(M(ONE))))", "unterminated argument list invoking macro \"M\"", 0);
  char many[8192] = "";
  for (int i = 0; i < 500; i++) strcat(many, "M(");
  strcat(many, "ONE");
  for (int i = 0; i < 500; i++) strcat(many, ")");
  BAD(m, many, "nested too deeply", 0);
  pp_macros_free(m);
}

int main(void) {
  ppmacros *m = pp_macros_new();
  def(m, "BADNUM 123456789m");
  def(m, "BADOCT 0777777779");
  test_operators(m);
  test_unsigned(m);
  test_constants(m);
  test_errors(m);
  test_short_circuit(m);
  test_defined(m);
  test_object_macros(m);
  test_function_macros(m);
  test_stringize_paste(m);
  test_self_reference(m);
  pp_macros_free(m);
  test_options();
  test_limits();
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
