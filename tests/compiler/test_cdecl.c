/* test_cdecl.c - unit tests of the C declaration reader: which statements
 * declare which names, with which kind (pointer, array, function), and which
 * are expressions. */
#include "cdecl.h"
#include "parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;
static srcfile src;

/* the typedef names these tests know */
static const char *const typedef_names[] = {"T", "size_t", "float2"};

/* "a:p b:a c:v f:f" -- the names declared by the first statement and their kinds */
static void expect(const char *code, bool file_scope, const char *want) {
  arena ar;
  arena_init(&ar);
  src_from_string(&src, "t.c", code, (uint32_t)strlen(code));
  diag dg;
  diag_init(&dg, &src, stdout);
  items its;
  parse_file(&src, &dg, &ar, false, &its);
  strmap typedefs;
  strmap_init(&typedefs);
  for (size_t i = 0; i < sizeof typedef_names / sizeof *typedef_names; i++)
    strmap_put(&typedefs, typedef_names[i], strlen(typedef_names[i]), (void *)1);
  cdctx c = {.text = src.text, .ar = &ar, .typedefs = &typedefs};
  cd_init(&c);
  cd_stmt st = cd_statement(&c, its.first, file_scope);
  char got[256] = "";
  if (!st.is_decl) strcpy(got, "-");
  for (int i = 0; i < st.ndecls; i++) {
    cd_decl *d = &st.decls[i];
    char k = d->is_typedef ? 't' : d->is_function ? 'f' : d->is_array ? 'a' : d->is_pointer ? 'p' : 'v';
    snprintf(got + strlen(got), sizeof got - strlen(got), "%s%.*s:%c", i ? " " : "", (int)(d->name->loc.e - d->name->loc.b),
             src.text + d->name->loc.b, k);
  }
  if (st.is_fundef) strcat(got, " {}");
  checks++;
  if (strcmp(got, want)) {
    failures++;
    printf("FAIL: '%s' -> '%s', want '%s'\n", code, got, want);
  }
  cd_free(&c);
  strmap_free(&typedefs);
  src_free(&src);
  arena_free(&ar);
}

int main(void) {
  expect("int a, *b, c[3];", false, "a:v b:p c:a");
  expect("float (*fp)(int);", false, "fp:p");
  expect("int *fa[4];", false, "fa:a");
  expect("int (*pa)[4];", false, "pa:p");
  expect("static const unsigned long long v = 1, w = v + 2;", false, "v:v w:v");
  expect("struct S { int x; float *y; } s, *ps;", false, "s:v ps:p");
  expect("struct S;", false, "");
  expect("T x = {0};", false, "x:v");
  expect("T *x;", false, "x:p");
  expect("size_t n = sizeof(T);", false, "n:v");
  expect("float2 b2;", false, "b2:v");
  expect("unknown_t y;", false, "y:v");       /* two identifiers: a declaration */
  expect("unknown_t *y;", false, "y:p");
  expect("x = y;", false, "-");
  expect("f(x);", false, "-");
  expect("a * b + c;", false, "-");
  expect("return x;", false, "-");
  expect("label: x++;", false, "-");
  expect("typedef struct { int a; } P, *PP;", false, "P:t PP:t");
  expect("enum E { A, B = 2 } e;", false, "e:v");
  expect("int f(int a, char **argv) { return 0; }", true, "f:f {}");
  expect("static inline float *g(void) { return 0; }", true, "g:f {}");
  expect("int h(int);", true, "h:f");
  expect("extern int (*handler)(int, int);", true, "handler:p");
  expect("__attribute__((unused)) static int q __attribute__((aligned(8))) = 3;", true, "q:v");
  expect("__shared__ float tile[16][17];", false, "tile:a");
  expect("register int r = 0;", false, "r:v");
  expect("_Atomic int at;", false, "at:v");
  expect("__typeof__(1 + 2) t3 = 3;", false, "t3:v");
  expect("long double ld;", false, "ld:v");
  expect("char buf[] = \"x\", *p = buf;", false, "buf:a p:p");
  printf("%d checks, %d failures\n", checks, failures);
  return failures != 0;
}
