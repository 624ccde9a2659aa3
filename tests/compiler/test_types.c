/* test_types.c - unit tests of the array-type engine. Every offset the
 * engine generates (flat layouts, coalescing, composition, the simplifier)
 * is checked against a direct interpretation of the offset rules of docs/language.md for
 * every index of small shapes, with the index both as a constant and as a
 * symbolic atom evaluated afterwards. */
#include "cexpr.h"
#include "parse.h"
#include "types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    checks++;                                              \
    if (!(cond)) {                                         \
      failures++;                                          \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
      printf(__VA_ARGS__);                                 \
      printf("\n");                                        \
    }                                                      \
  } while (0)

typedef struct env {
  srcfile src;
  diag dg;
  arena ar;
  exctx ex;
  cxenv cx;
  tyctx ty;
  strmap types;
} env;

static ex *eval_size(void *p, items *expr, loc where, const char *what) {
  (void)what;
  env *e = p;
  (void)where;
  ltok t[64];
  int n = 0;
  ITEMS_FOREACH(it, *expr) {
    if (it->kind != IT_TOK || n == 64) return NULL;
    t[n++] = (ltok){.kind = it->tk, .punct = it->punct, .s = e->src.text + it->loc.b, .len = it->loc.e - it->loc.b};
  }
  return cx_parse(&e->cx, t, n);
}

static dnode *lookup(void *p, const char *name, size_t len, loc where, bool report) {
  (void)where, (void)report;
  env *e = p;
  ptype *t = strmap_get(&e->types, name, len);
  return t ? t->root : NULL;
}

/* Declare every #parray of a source text. */
static void setup(env *e, const char *text) {
  memset(e, 0, sizeof *e);
  src_from_string(&e->src, "test.pc", text, (uint32_t)strlen(text));
  diag_init(&e->dg, &e->src, stdout);
  arena_init(&e->ar);
  ex_init(&e->ex, &e->ar);
  e->cx = (cxenv){.ex = &e->ex, .ar = &e->ar};
  e->ty = (tyctx){.ar = &e->ar, .ex = &e->ex, .dg = &e->dg, .src = &e->src, .eval_size = eval_size,
                  .lookup = lookup, .env = e};
  strmap_init(&e->types);
  items its;
  if (parse_file(&e->src, &e->dg, &e->ar, false, &its)) {
    printf("parse failed\n");
    exit(1);
  }
  ITEMS_FOREACH(it, its) {
    if (it->kind != IT_DIR || it->dir->kind != D_PARRAY) continue;
    directive *d = it->dir;
    const char *name = arena_strndup(&e->ar, e->src.text + d->name.b, d->name.e - d->name.b);
    ptype *t = ty_build(&e->ty, name, d->name, d->body, 0);
    if (t) strmap_put(&e->types, name, strlen(name), t);
  }
}

static void teardown(env *e) {
  strmap_free(&e->types);
  ex_fini(&e->ex);
  arena_free(&e->ar);
  src_free(&e->src);
}

static dnode *node(env *e, const char *path) {
  dnode *n = ty_resolve(&e->ty, path, strlen(path), (loc){0, 0}, false);
  if (!n) {
    printf("FAIL: cannot resolve %s\n", path);
    exit(1);
  }
  return n;
}

/* the offset rules read literally (docs/language.md, "Offsets precisely") */
static int64_t ref_off(dnode *n, int64_t i) {
  int64_t v;
  if (n->derived && n->parent) {
    ex_is_const(n->weight, &v);
    return ref_off(n->parent, i * v);
  }
  switch (n->kind) {
  case DN_LEAF:
    ex_is_const(n->stride, &v);
    return i * v;
  case DN_REF:
  case DN_SREF:
  case DN_CREF: return ref_off(n->ref, i);
  case DN_COMP: break;
  }
  int64_t s = 0;
  for (int j = 0; j < n->nkids; j++) {
    int64_t w, sz;
    ex_is_const(n->kids[j]->weight, &w);
    ex_is_const(n->kids[j]->size, &sz);
    int64_t d = i / w;
    if (j > 0) d %= sz;
    s += ref_off(n->kids[j], d);
  }
  return s;
}

static int64_t cval(ex *e) {
  int64_t v = -12345;
  if (!ex_is_const(e, &v)) printf("  (not constant)\n");
  return v;
}

/* Check f_n for every index, constant and symbolic. */
static void check_all(env *e, const char *path) {
  dnode *n = node(e, path);
  int64_t size;
  if (!ex_is_const(n->size, &size)) {
    CHECK(0, "%s: size not constant", path);
    return;
  }
  ex *sym = ex_atom(&e->ex, "i", 0, size - 1);
  ex *f = ty_offset_linear(&e->ty, n, sym);
  int64_t *av = calloc((size_t)e->ex.natoms + 1, sizeof *av);
  for (int64_t i = 0; i < size; i++) {
    int64_t want = ref_off(n, i);
    int64_t got_c;
    ex *fc = ty_offset_linear(&e->ty, n, ex_const(&e->ex, i));
    bool isc = ex_is_const(fc, &got_c);
    CHECK(isc && got_c == want, "%s[%lld]: constant index gives %lld, want %lld", path, (long long)i,
          (long long)got_c, (long long)want);
    av[sym->id] = i;
    bool ok = true;
    int64_t got_s = ex_eval(f, av, &ok);
    CHECK(ok && got_s == want, "%s[%lld]: symbolic gives %lld, want %lld (%s)", path, (long long)i,
          (long long)got_s, (long long)want, ex_str(&e->ex, f, false));
  }
  free(av);
}

static void test_worked_examples(void) {
  env e;
  setup(&e, "#parray {paged float [[3][2]][4]} A\n"
            "#parray {paged float [4][3]} P\n"
            "#parray {paged float [#P_1][#P_0]} Q\n"
            "#parray {dmem float [2][1024][512]} G\n"
            "#parray {float [#G_1][[#G_0][#G_2]]} M\n"
            "#parray {smem float [32][17]} S\n"
            "#parray {smem float [32 #S_0][[4][4] #S_1]} S0\n"
            "#parray {paged float [2][2][512][512]} G4\n"
            "#parray {float [[#G4_0][#G4_2]][[#G4_1][#G4_3]]} M4\n");
  CHECK(e.dg.errors == 0, "declarations failed");
  tyctx *t = &e.ty;
  exctx *x = &e.ex;
  ty_index two[2] = {{.e = ex_const(x, 5)}, {.e = ex_const(x, 2)}};
  CHECK(cval(ty_offset_index(t, node(&e, "A"), two, 2, (loc){0, 0})) == 22, "A[5][2]");
  ty_index pq[2] = {{.e = ex_const(x, 2)}, {.e = ex_const(x, 1)}};
  ty_index nested[2] = {{.sub = pq, .nsub = 2}, {.e = ex_const(x, 3)}};
  CHECK(cval(ty_offset_index(t, node(&e, "A"), nested, 2, (loc){0, 0})) == 23, "A[[2][1]][3]");
  CHECK(cval(node(&e, "A")->size) == 24 && cval(node(&e, "A_0")->size) == 6 && cval(node(&e, "A_0_1")->size) == 2,
        "dims of A");
  ty_index q[2] = {{.e = ex_const(x, 2)}, {.e = ex_const(x, 3)}};
  CHECK(cval(ty_offset_index(t, node(&e, "Q"), q, 2, (loc){0, 0})) == 11, "Q[2][3]");
  CHECK(cval(node(&e, "Q_0")->size) == 3, "dim Q_0");
  ty_index m[2] = {{.e = ex_const(x, 3)}, {.e = ex_const(x, 600)}};
  CHECK(cval(ty_offset_index(t, node(&e, "M"), m, 2, (loc){0, 0})) == 525912, "M[3][600]");
  ty_index s23[2] = {{.e = ex_const(x, 2)}, {.e = ex_const(x, 3)}};
  ty_index s0[2] = {{.e = ex_const(x, 5)}, {.sub = s23, .nsub = 2}};
  CHECK(cval(ty_offset_index(t, node(&e, "S0"), s0, 2, (loc){0, 0})) == 96, "S0[5][[2][3]]");
  ty_index m4[2] = {{.e = ex_const(x, 700)}, {.e = ex_const(x, 5)}};
  CHECK(cval(ty_offset_index(t, node(&e, "M4"), m4, 2, (loc){0, 0})) == 620549, "M4[700][5]");
  CHECK(ty_contiguous(t, node(&e, "A_1")) == 1 && ty_contiguous(t, node(&e, "Q_0")) == 1 &&
            ty_contiguous(t, node(&e, "Q_1")) == 0,
        "cnt");
  CHECK(cval(ty_footprint(t, node(&e, "M"))) == 2 * 1024 * 512, "footprint of M");
  teardown(&e);
}

static void test_exhaustive(void) {
  env e;
  setup(&e, "#parray {paged float [[3][2]][4]} A\n"
            "#parray {paged float [4][3]} P\n"
            "#parray {paged float [#P_1][#P_0]} Q\n"
            "#parray {paged float [2][6][4]} G\n"
            "#parray {float [#G_1][[#G_0][#G_2]]} M\n"
            "#parray {float [[#M_0][#M_1]]} MM\n"
            "#parray {paged float [8][5]} S\n"
            "#parray {paged float [8 #S_0][[2][2] #S_1]} S0\n"
            "#parray {paged float [2][2][4][4]} G4\n"
            "#parray {float [[#G4_0][#G4_2]][[#G4_1][#G4_3]]} M4\n"
            "#parray {float [[2][[2][2]] #M4_0][[4][2] #M4_1]} B4\n"
            "#parray {float [#B4_0_1][#B4_1_1]} B5\n"
            "#parray {float [[3][5] #Q]} ODD\n"
            "#parray {float [[2][8] #Q]} ODD2\n"
            "#parray {paged float [3][[2][5]][2]} N3\n"
            "#parray {float [#N3_1_1][#N3_0][[#N3_2][#N3_1_0]]} T3\n"
            "#parray {float [6 #P_0]} EXT\n");
  CHECK(e.dg.errors == 0, "declarations failed");
  const char *paths[] = {"A", "A_0", "A_1", "A_0_0", "A_0_1", "Q", "Q_0", "Q_1", "M", "M_0", "M_1", "M_1_0",
                         "M_1_1", "MM", "S0", "S0_0", "S0_1", "S0_1_0", "S0_1_1", "M4", "M4_0", "M4_1", "M4_0_1",
                         "B4", "B4_0", "B4_0_0", "B4_0_1", "B4_0_1_0", "B4_0_1_1", "B4_1", "B4_1_0", "B4_1_1",
                         "B5", "ODD", "ODD_0", "ODD2", "N3", "T3", "T3_2", "T3_2_1", "EXT"};
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) check_all(&e, paths[i]);
  /* flat layouts exist where the splits divide, and are minimal */
  CHECK(ty_layout(&e.ty, node(&e, "A"))->nm == 1, "A coalesces to one mode");
  CHECK(ty_layout(&e.ty, node(&e, "Q"))->nm == 2, "Q keeps two modes");
  CHECK(ty_layout(&e.ty, node(&e, "ODD")) == NULL, "ODD has no flat layout (3 does not divide the split)");
  teardown(&e);
}

/* nested and multi-index forms agree with the linear form */
static void test_index_forms(void) {
  env e;
  setup(&e, "#parray {paged float [2][2][4][4]} G4\n"
            "#parray {float [[#G4_0][#G4_2]][[#G4_1][#G4_3]]} M4\n"
            "#parray {float [[2][[2][2]] #M4_0][[4][2] #M4_1]} B4\n");
  tyctx *t = &e.ty;
  exctx *x = &e.ex;
  dnode *b4 = node(&e, "B4");
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      for (int c = 0; c < 2; c++)
        for (int d = 0; d < 4; d++)
          for (int f = 0; f < 2; f++) {
            ty_index bc[2] = {{.e = ex_const(x, b)}, {.e = ex_const(x, c)}};
            ty_index r[2] = {{.e = ex_const(x, a)}, {.sub = bc, .nsub = 2}};
            ty_index cc[2] = {{.e = ex_const(x, d)}, {.e = ex_const(x, f)}};
            ty_index top[2] = {{.sub = r, .nsub = 2}, {.sub = cc, .nsub = 2}};
            int64_t row = a * 4 + b * 2 + c, col = d * 2 + f;
            int64_t want = ref_off(b4, row * 8 + col);
            CHECK(cval(ty_offset_index(t, b4, top, 2, (loc){0, 0})) == want, "B4 nested [%d][%d]", (int)row,
                  (int)col);
            ty_index two[2] = {{.e = ex_const(x, row)}, {.e = ex_const(x, col)}};
            CHECK(cval(ty_offset_index(t, b4, two, 2, (loc){0, 0})) == want, "B4 [%d][%d]", (int)row, (int)col);
          }
  teardown(&e);
}

/* the generated arithmetic is what a careful programmer writes */
static void test_codegen_shape(void) {
  env e;
  setup(&e, "#parray {paged float [[3][2]][4]} A\n"
            "#parray {paged float [1024][1024]} M\n"
            "#parray {paged float [[2][128]][[2][128]]} MB\n"
            "#parray {paged float [65536][65536]} BIG\n");
  tyctx *t = &e.ty;
  exctx *x = &e.ex;
  ex *i = ex_atom(x, "i", 0, 23);
  CHECK(!strcmp(ex_str(x, ty_offset_linear(t, node(&e, "A"), i), false), "i"), "A[i] is i, got %s",
        ex_str(x, ty_offset_linear(t, node(&e, "A"), i), false));
  ty_index ik[2] = {{.e = ex_atom(x, "i", 0, 1023)}, {.e = ex_atom(x, "k", 0, 1023)}};
  char *s = ex_str(x, ty_offset_index(t, node(&e, "M"), ik, 2, (loc){0, 0}), false);
  CHECK(!strcmp(s, "i * 1024 + k"), "M[i][k] = %s", s);
  ty_index zk[2] = {{.e = ex_const(x, 0)}, {.e = ex_atom(x, "k", 0, 1023)}};
  s = ex_str(x, ty_offset_index(t, node(&e, "M"), zk, 2, (loc){0, 0}), false);
  CHECK(!strcmp(s, "k"), "M[0][k] = %s", s);
  ty_index ti[2] = {{.e = ex_atom(x, "t", 0, 1)}, {.e = ex_atom(x, "i", 0, 127)}};
  ty_index row[2] = {{.sub = ti, .nsub = 2}, {.e = ex_const(x, 0)}};
  s = ex_str(x, ty_offset_index(t, node(&e, "MB"), row, 2, (loc){0, 0}), false);
  CHECK(!strcmp(s, "t * 32768 + i * 256"), "MB[[t][i]][0] = %s", s);
  ex *big = ty_offset_index(t, node(&e, "BIG"), (ty_index[2]){{.e = ex_atom(x, "r", 0, 65535)},
                                                            {.e = ex_atom(x, "c", 0, 65535)}}, 2, (loc){0, 0});
  CHECK(ex_needs_wide(big), "65536^2 offsets need 64-bit arithmetic");
  CHECK(!ex_needs_wide(ty_offset_index(t, node(&e, "M"), ik, 2, (loc){0, 0})), "1024^2 offsets fit in int");
  s = ex_str(x, big, true);
  CHECK(!strcmp(s, "(long long)r * 65536 + (long long)c"), "wide form: %s", s);
  teardown(&e);
}

static void test_errors(void) {
  env e;
  setup(&e, "#parray {paged float [4][3]} A\n#parray {float [#A_5]} B\n#parray {float [#Z]} C\n"
            "#parray {[4]} D\n#parray {float [#A_0_0]} E\n");
  CHECK(e.dg.errors == 4, "expected 4 errors, got %d", e.dg.errors);
  teardown(&e);
}

int main(void) {
  test_worked_examples();
  test_exhaustive();
  test_index_forms();
  test_codegen_shape();
  test_errors();
  printf("%d checks, %d failures\n", checks, failures);
  return failures != 0;
}
