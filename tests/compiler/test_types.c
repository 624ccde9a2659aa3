/* test_types.c - unit tests of the array-type engine. Every offset the
 * engine generates (flat layouts, coalescing, composition, the simplifier)
 * is checked against a direct interpretation of the offset rules of docs/language.md for
 * every index of small shapes, with the index both as a constant and as a
 * symbolic atom evaluated afterwards; so are the common refinements of
 * several layouts that #copy uses (lay_refine2, lay_refine). */
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

/* The program the engine asks about (sema/program.h): this test's stub of
 * what compiler/lower/lower_program.c implements in pac. */
typedef struct semaprog env;
struct semaprog {
  srcfile src;
  diag dg;
  arena ar;
  exctx ex;
  cxenv cx;
  tyctx ty;
  strmap types;
};

ex *sp_eval_size(semaprog *e, items *expr, loc where, const char *what) {
  (void)what;
  (void)where;
  ltok t[64];
  int n = 0;
  ITEMS_FOREACH(it, *expr) {
    if (it->kind != IT_TOK || n == 64) return NULL;
    t[n++] = (ltok){.kind = it->tk, .punct = it->punct, .s = e->src.text + it->loc.b, .len = it->loc.e - it->loc.b};
  }
  return cx_parse(&e->cx, t, n);
}

dnode *sp_lookup_type(semaprog *e, const char *name, size_t len, loc where, bool report) {
  (void)where, (void)report;
  ptype *t = strmap_get(&e->types, name, len);
  return t ? t->root : NULL;
}

/* no macros and no typedefs in these tests */
const char *sp_macro_body(semaprog *p, const char *name, size_t len) {
  (void)p, (void)name, (void)len;
  return NULL;
}
const char *sp_macro(semaprog *p, const char *name, size_t len, bool *funclike) {
  (void)p, (void)name, (void)len, (void)funclike;
  return NULL;
}
bool sp_is_typedef(semaprog *p, const char *name, size_t len) {
  (void)p, (void)name, (void)len;
  return false;
}
bool sp_is_type_macro(semaprog *p, const char *name, size_t len) {
  (void)p, (void)name, (void)len;
  return false;
}
bool sp_is_type_word(semaprog *p, const char *name, size_t len) {
  (void)p, (void)name, (void)len;
  return true;
}

/* Declare every #parray of a source text. */
static void setup(env *e, const char *text) {
  memset(e, 0, sizeof *e);
  src_from_string(&e->src, "test.pc", text, (uint32_t)strlen(text));
  diag_init(&e->dg, &e->src, stdout);
  arena_init(&e->ar);
  ex_init(&e->ex, &e->ar);
  e->cx = (cxenv){.ex = &e->ex, .ar = &e->ar};
  e->ty = (tyctx){.ar = &e->ar, .ex = &e->ex, .dg = &e->dg, .src = &e->src, .prog = e};
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
    ptype *t = ty_build(&e->ty, name, d->name, d->parray.body, 0);
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


/* ---- common refinements of flat layouts (lay_refine2, lay_refine) ---------
 * Every refinement that succeeds is checked on every index i of its shape:
 * the digits of i in the common shape times the strides of layout j give
 * the offset of layout j at i, as the engine computes it (ty_offset_linear),
 * as the layout's definition in types.h gives it, and as section 3 (or, for
 * distributed types, a formula written out here) gives it. */

enum { RMAX = 32, KMAX = 4 };

typedef struct refined {
  int nm, k;
  ex *shape[RMAX], *st[RMAX * KMAX];
} refined;

/* one layout taking part: a type path in one view, and its offset at every
 * index of the space (checked against the references once) */
typedef struct side {
  const char *path;
  int view; /* 0: offsets (local offsets of a distributed type); 1: process index */
  layout *l;
  int64_t *off;
} side;

static int64_t eval(const ex *x, const int64_t *av) {
  bool ok = true;
  int64_t v = ex_eval(x, av, &ok);
  if (!ok) printf("  (evaluation overflowed)\n");
  return v;
}

/* f_L(i) read from the definition in types.h */
static int64_t lay_eval(const layout *l, int64_t i, const int64_t *av) {
  int64_t sum = 0, w = 1;
  for (int t = l->nm - 1; t >= 0; t--) {
    int64_t n = eval(l->m[t].n, av), digit = i / w;
    if (t > 0) digit %= n;
    sum += digit * eval(l->m[t].d, av);
    w *= n;
  }
  return sum;
}

/* the offset of layout j at index i through a refinement: the digits of i
 * in the common shape (the outermost unbounded) times layout j's strides */
static int64_t refined_eval(const refined *r, int j, int64_t i, const int64_t *av) {
  int64_t sum = 0, w = 1;
  for (int m = r->nm - 1; m >= 0; m--) {
    int64_t n = eval(r->shape[m], av), digit = i / w;
    if (m > 0) digit %= n;
    sum += digit * eval(r->st[m * r->k + j], av);
    w *= n;
  }
  return sum;
}

/* explicit offsets of the distributed types of test_refine_distributed
 * (8 x 8 elements over 4 processes); -1 for other types */
static int64_t dist_ref(const char *path, int view, int64_t i) {
  int64_t r = i / 8, c = i % 8;
  if (!strcmp(path, "ROWS")) return view ? r / 2 : (r % 2) * 8 + c;
  if (!strcmp(path, "COLS")) return view ? c / 2 : r * 2 + c % 2;
  if (!strcmp(path, "CYC")) return view ? r % 4 : (r / 4) * 8 + c;
  if (!strcmp(path, "ROWST")) return view ? c / 2 : (c % 2) * 8 + r; /* i / 8 indexes ROWS_1, i % 8 ROWS_0 */
  return -1;
}

/* Fill s->l and s->off for an index space of size elements. */
static void side_init(env *e, side *s, int64_t size, const int64_t *av) {
  dnode *n = node(e, s->path);
  e->ty.view = s->view;
  s->l = ty_layout(&e->ty, n);
  CHECK(s->l != NULL, "%s (view %d) has a flat layout", s->path, s->view);
  CHECK(eval(n->size, av) == size, "%s has %lld elements", s->path, (long long)size);
  s->off = calloc((size_t)size, sizeof *s->off);
  for (int64_t i = 0; s->l && i < size; i++) {
    s->off[i] = eval(ty_offset_linear(&e->ty, n, ex_const(&e->ex, i)), av);
    CHECK(lay_eval(s->l, i, av) == s->off[i], "%s (view %d) at %lld: layout and engine differ", s->path, s->view,
          (long long)i);
    int64_t want = dist_ref(s->path, s->view, i);
    if (want < 0 && s->view == 1) want = 0; /* not distributed: every element on process 0 */
    else if (want < 0 && ex_is_const(n->size, NULL)) want = ref_off(n, i);
    else if (want < 0) continue; /* symbolic: the engine and the layout agree (above) */
    CHECK(want == s->off[i], "%s (view %d) at %lld: %lld, want %lld", s->path, s->view, (long long)i,
          (long long)s->off[i], (long long)want);
  }
  e->ty.view = 0;
}

static int refine_sides(env *e, side **s, int k, refined *r, int max) {
  layout *ls[KMAX];
  for (int j = 0; j < k; j++) ls[j] = s[j]->l;
  r->k = k;
  return r->nm = lay_refine(&e->ty, ls, k, r->shape, r->st, max);
}

static int refine_pair(env *e, side *a, side *b, refined *r, int max) {
  r->k = 2;
  return r->nm = lay_refine2(&e->ty, a->l, b->l, r->shape, r->st, max);
}

static const char *sides_name(side **s, int k) {
  static char buf[256];
  int n = 0;
  for (int j = 0; j < k; j++)
    n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%s%s", j ? ", " : "", s[j]->path, s[j]->view ? "(proc)" : "");
  return buf;
}

/* The refinement reproduces every side on every index (first mismatch only). */
static void check_refined(side **s, const refined *r, int64_t size, const int64_t *av, const char *what) {
  const char *name = sides_name(s, r->k);
  int64_t prod = 1;
  for (int m = 0; m < r->nm; m++) prod *= eval(r->shape[m], av);
  CHECK(prod == size, "%s(%s): the common shape has %lld elements, want %lld", what, name, (long long)prod,
        (long long)size);
  for (int64_t i = 0; i < size; i++)
    for (int j = 0; j < r->k; j++) {
      int64_t got = refined_eval(r, j, i, av);
      CHECK(got == s[j]->off[i], "%s(%s): layout %d at %lld: refined %lld, want %lld", what, name, j,
            (long long)i, (long long)got, (long long)s[j]->off[i]);
      if (got != s[j]->off[i]) return;
    }
}

static bool same_refinement(const refined *a, const refined *b) {
  if (a->nm != b->nm || a->k != b->k) return false;
  for (int m = 0; m < a->nm; m++) {
    if (!ex_equal(a->shape[m], b->shape[m])) return false;
    for (int j = 0; j < a->k; j++)
      if (!ex_equal(a->st[m * a->k + j], b->st[m * b->k + j])) return false;
  }
  return true;
}

/* Exact modes: shape[m] and the strides of each layout, as printed. */
static void check_modes(exctx *x, const refined *r, int nm, const char *const *want, const char *what) {
  CHECK(r->nm == nm, "%s: %d modes, want %d", what, r->nm, nm);
  if (r->nm != nm) return;
  char bb[512], wb[512];
  sbuf b, w;
  sb_init_in(&b, bb, sizeof bb);
  sb_init_in(&w, wb, sizeof wb);
  for (int m = 0; m < nm; m++) {
    sb_printf(&b, "%s%s:", m ? " " : "", ex_str(x, r->shape[m], false));
    for (int j = 0; j < r->k; j++) sb_printf(&b, "%s%s", j ? "," : "", ex_str(x, r->st[m * r->k + j], false));
  }
  for (int m = 0; m < nm; m++) sb_printf(&w, "%s%s", m ? " " : "", want[m]);
  CHECK(!strcmp(b.s, w.s), "%s: modes %s, want %s", what, b.s, w.s);
  sb_free(&b);
  sb_free(&w);
}

/* the next k-tuple of distinct indices below n in counting order; false after the last */
static bool next_tuple(int *t, int k, int n) {
  for (;;) {
    int j = k - 1;
    while (j >= 0 && ++t[j] == n) t[j--] = 0;
    if (j < 0) return false;
    bool distinct = true;
    for (int a = 0; a < k; a++)
      for (int b = a + 1; b < k; b++) distinct &= t[a] != t[b];
    if (distinct) return true;
  }
}

/* Refine every ordered pair (with both functions) and every ordered triple
 * and quadruple of distinct types of a group over one index space of size
 * elements. cls has a letter per type: the split points (products of the
 * innermost extents) of two types form a divisibility chain exactly when
 * their letters are equal or either is '*', and then (only then) the
 * refinement must succeed; k types refine when every two of them do. */
static void refine_group(env *e, const char *const *paths, const char *cls, int n, int64_t size) {
  side *sd = calloc((size_t)n, sizeof *sd);
  bool *ok2 = calloc((size_t)(n * n), sizeof *ok2);
  for (int a = 0; a < n; a++) sd[a].path = paths[a], side_init(e, &sd[a], size, NULL);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      side *s[2] = {&sd[a], &sd[b]};
      bool want = cls[a] == cls[b] || cls[a] == '*' || cls[b] == '*';
      refined r2, rk;
      int n2 = refine_pair(e, s[0], s[1], &r2, RMAX), nk = refine_sides(e, s, 2, &rk, RMAX);
      CHECK((n2 >= 0) == want, "lay_refine2(%s) gives %d", sides_name(s, 2), n2);
      CHECK((nk >= 0) == want, "lay_refine(%s) gives %d", sides_name(s, 2), nk);
      if (n2 >= 0) check_refined(s, &r2, size, NULL, "lay_refine2");
      if (nk >= 0) check_refined(s, &rk, size, NULL, "lay_refine");
      if (n2 >= 0 && nk >= 0) CHECK(same_refinement(&r2, &rk), "lay_refine2 and lay_refine differ on %s",
                                    sides_name(s, 2));
      ok2[a * n + b] = want;
    }
  for (int k = 3; k <= 4; k++) {
    int t[KMAX] = {0};
    while (next_tuple(t, k, n)) {
      side *s[KMAX];
      bool want = true;
      for (int j = 0; j < k; j++) s[j] = &sd[t[j]];
      for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++) want &= ok2[t[a] * n + t[b]];
      refined r;
      int nm = refine_sides(e, s, k, &r, RMAX);
      CHECK((nm >= 0) == want, "lay_refine(%s) gives %d", sides_name(s, k), nm);
      if (nm >= 0) check_refined(s, &r, size, NULL, "lay_refine");
    }
  }
  for (int a = 0; a < n; a++) free(sd[a].off);
  free(sd);
  free(ok2);
}

/* row-major, transposed, blocked [[N/b][b]], tiled, padded, three- and
 * four-dimensional trees: 64 elements (every split point a power of 2, so
 * every combination refines) and 24 elements (split points 2, 4, 8 against
 * 3, 6, 12) */
static void test_refine_groups(void) {
  env e;
  setup(&e, "#parray {paged float [8][8]} H\n"
            "#parray {paged float [#H_1][#H_0]} HT\n"
            "#parray {paged float [[8/4][4] #H_0][[8/2][2] #H_1]} HB\n"
            "#parray {paged float [[#HB_0_0][#HB_1_0]][[#HB_0_1][#HB_1_1]]} TILE\n"
            "#parray {paged float [[#HB_1_0][#HB_0_0]][[#HB_1_1][#HB_0_1]]} TILET\n"
            "#parray {paged float [8][9]} PADH\n"
            "#parray {paged float [8 #PADH_0][8 #PADH_1]} PAD\n"
            "#parray {paged float [#PAD_1][#PAD_0]} PADT\n"
            "#parray {paged float [2][4][8]} E3\n"
            "#parray {paged float [#E3_2][[#E3_0][#E3_1]]} E3P\n"
            "#parray {paged float [[#E3_1][#E3_0]][#E3_2]} E3Q\n"
            "#parray {paged float [2][2][4][4]} G4\n"
            "#parray {paged float [[#G4_0][#G4_2]][[#G4_1][#G4_3]]} M4\n"
            "#parray {paged float [[#G4_3][#G4_1]][[#G4_2][#G4_0]]} M4T\n"
            "#parray {paged float [[2][[2][2]] #M4_0][[4][2] #M4_1]} B4\n"
            "#parray {paged float [4][6]} R\n"
            "#parray {paged float [#R_1][#R_0]} RT\n"
            "#parray {paged float [6][4]} R64\n"
            "#parray {paged float [#R64_1][#R64_0]} R64T\n"
            "#parray {paged float [2][3][4]} C3\n"
            "#parray {paged float [[#C3_1][#C3_0]][#C3_2]} C3Q\n"
            "#parray {paged float [2][3][2][2]} D4\n"
            "#parray {paged float [[#D4_1][#D4_3]][[#D4_0][#D4_2]]} D4P\n"
            "#parray {paged float [4][7]} P47\n"
            "#parray {paged float [4 #P47_0][6 #P47_1]} PD\n"
            "#parray {paged float [#PD_1][#PD_0]} PDT\n"
            "#parray {paged float [[2][2] #R_0][[2][3] #R_1]} RB\n"
            "#parray {paged float [[#RB_0_0][#RB_1_0]][[#RB_0_1][#RB_1_1]]} RTILE\n");
  CHECK(e.dg.errors == 0, "declarations failed");
  const char *g64[] = {"H", "HT", "HB", "TILE", "TILET", "PAD", "PADT", "E3", "E3P", "E3Q", "G4", "M4", "M4T", "B4"};
  refine_group(&e, g64, "**************", 14, 64);
  const char *g24[] = {"R", "RT", "R64", "R64T", "C3", "C3Q", "D4", "D4P", "PD", "PDT", "RB", "RTILE"};
  refine_group(&e, g24, "*A*B*A*ABA*B", 12, 24);
  teardown(&e);
}


/* the modes of a few refinements, in order (strides of the layouts in argument order) */
static void test_refine_exact(void) {
  env e;
  setup(&e, "#parray {paged float [4][6]} R\n"
            "#parray {paged float [#R_1][#R_0]} RT\n"
            "#parray {paged float [8][8]} H\n"
            "#parray {paged float [#H_1][#H_0]} HT\n"
            "#parray {paged float [[8/4][4] #H_0][[8/2][2] #H_1]} HB\n"
            "#parray {paged float [[#HB_0_0][#HB_1_0]][[#HB_0_1][#HB_1_1]]} TILE\n"
            "#parray {paged float [4][n]} X\n"
            "#parray {paged float [#X_1][#X_0]} XT\n"
            "#parray {paged float [n][4]} Y\n");
  CHECK(e.dg.errors == 0, "declarations failed");
  tyctx *t = &e.ty;
  layout *r = ty_layout(t, node(&e, "R")), *rt = ty_layout(t, node(&e, "RT")), *h = ty_layout(t, node(&e, "H"));
  layout *ht = ty_layout(t, node(&e, "HT")), *tile = ty_layout(t, node(&e, "TILE"));
  refined x = {.k = 2};
  /* R is one mode of 24; RT splits it at 4 (the rows of R, 6 apart) */
  x.nm = lay_refine2(t, r, rt, x.shape, x.st, RMAX);
  check_modes(&e.ex, &x, 2, (const char *[]){"6:4,1", "4:1,6"}, "lay_refine2(R, RT)");
  x.nm = lay_refine2(t, rt, r, x.shape, x.st, RMAX);
  check_modes(&e.ex, &x, 2, (const char *[]){"6:1,4", "4:6,1"}, "lay_refine2(RT, R)");
  /* tiles of 4 x 2: tile row, tile column, row in tile, column in tile */
  x.nm = lay_refine2(t, h, tile, x.shape, x.st, RMAX);
  check_modes(&e.ex, &x, 4, (const char *[]){"2:32,32", "4:8,2", "4:2,8", "2:1,1"}, "lay_refine2(H, TILE)");
  x.nm = lay_refine2(t, h, tile, x.shape, x.st, 4);
  CHECK(x.nm == 4, "lay_refine2(H, TILE) fits in 4 modes: %d", x.nm);
  CHECK(lay_refine2(t, h, tile, x.shape, x.st, 3) == -1, "lay_refine2(H, TILE) needs more than 3 modes");
  /* three layouts: each extent is the first remaining one dividing all the others */
  refined y = {.k = 3};
  y.nm = lay_refine(t, (layout *[]){h, ht, tile}, 3, y.shape, y.st, RMAX);
  check_modes(&e.ex, &y, 4, (const char *[]){"2:32,4,32", "4:8,1,2", "4:2,16,8", "2:1,8,1"},
              "lay_refine(H, HT, TILE)");
  CHECK(lay_refine(t, (layout *[]){h, ht, tile}, 3, y.shape, y.st, 3) == -1, "lay_refine(H, HT, TILE) in 3 modes");
  /* symbolic: the transpose of a 4 x n array into an n x 4 array */
  x.nm = lay_refine2(t, ty_layout(t, node(&e, "XT")), ty_layout(t, node(&e, "Y")), x.shape, x.st, RMAX);
  check_modes(&e.ex, &x, 2, (const char *[]){"n:1,4", "4:n,1"}, "lay_refine2(XT, Y)");
  x.nm = lay_refine(t, (layout *[]){ty_layout(t, node(&e, "XT")), ty_layout(t, node(&e, "Y"))}, 2, x.shape, x.st,
                    RMAX);
  check_modes(&e.ex, &x, 2, (const char *[]){"n:1,4", "4:n,1"}, "lay_refine(XT, Y)");
  teardown(&e);
}


/* -1: splits that cannot be proved to divide (6 against 4; n against m;
 * n against n/2), layouts that run out of modes before others, no modes, no
 * layouts; and lay_refine2's last outermost pair, which becomes one mode
 * even when the extents cannot be proved equal (lay_refine refuses it) */
static void test_refine_fails(void) {
  env e;
  setup(&e, "#parray {paged float [4][6]} R\n"
            "#parray {paged float [#R_1][#R_0]} RT\n"
            "#parray {paged float [6][4]} R64\n"
            "#parray {paged float [#R64_1][#R64_0]} R64T\n"
            "#parray {paged float [n][m]} SY\n"
            "#parray {paged float [#SY_1][#SY_0]} SYT\n"
            "#parray {paged float [m][n]} SZ\n"
            "#parray {paged float [#SZ_1][#SZ_0]} SZT\n"
            "#parray {paged float [n][4]} XN\n"
            "#parray {paged float [#XN_1][#XN_0]} XNT\n"
            "#parray {paged float [n/2][8]} XH\n"
            "#parray {paged float [#XH_1][#XH_0]} XHT\n"
            "#parray {paged float [8]} V8\n"
            "#parray {paged float [4]} V4\n"
            "#parray {paged float [8][9]} PADH\n"
            "#parray {paged float [8 #PADH_0][8 #PADH_1]} PAD\n"
            "#parray {paged float [n][5]} PN0\n"
            "#parray {paged float [n #PN0_0][4 #PN0_1]} PN\n"
            "#parray {paged float [m][5]} PM0\n"
            "#parray {paged float [m #PM0_0][4 #PM0_1]} PM\n");
  CHECK(e.dg.errors == 0, "declarations failed");
  tyctx *t = &e.ty;
  static const char *const bad[][2] = {{"RT", "R64T"}, {"SYT", "SZT"}, {"XNT", "XHT"}, {"PAD", "V8"}};
  refined x = {.k = 2};
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++)
    for (int o = 0; o < 2; o++) {
      layout *a = ty_layout(t, node(&e, bad[c][o])), *b = ty_layout(t, node(&e, bad[c][!o]));
      CHECK(a && b, "%s and %s have flat layouts", bad[c][0], bad[c][1]);
      if (!a || !b) continue;
      int n2 = lay_refine2(t, a, b, x.shape, x.st, RMAX);
      int nk = lay_refine(t, (layout *[]){a, b}, 2, x.shape, x.st, RMAX);
      CHECK(n2 == -1, "lay_refine2(%s, %s) gives %d, want -1", bad[c][o], bad[c][!o], n2);
      CHECK(nk == -1, "lay_refine(%s, %s) gives %d, want -1", bad[c][o], bad[c][!o], nk);
    }
  layout *r = ty_layout(t, node(&e, "R")), *rt = ty_layout(t, node(&e, "RT")), *r64t = ty_layout(t, node(&e, "R64T"));
  CHECK(lay_refine(t, (layout *[]){r, rt, r64t}, 3, x.shape, x.st, RMAX) == -1, "lay_refine(R, RT, R64T)");
  CHECK(lay_refine(t, (layout *[]){rt, r, r, r64t}, 4, x.shape, x.st, RMAX) == -1, "lay_refine(RT, R, R, R64T)");
  CHECK(lay_refine(t, (layout *[]){r, rt, r}, 3, x.shape, x.st, RMAX) == 2, "lay_refine(R, RT, R) succeeds");
  /* the outermost pair */
  layout *v8 = ty_layout(t, node(&e, "V8")), *v4 = ty_layout(t, node(&e, "V4"));
  x.nm = lay_refine2(t, v8, v4, x.shape, x.st, RMAX);
  check_modes(&e.ex, &x, 1, (const char *[]){"8:1,1"}, "lay_refine2(V8, V4)");
  x.nm = lay_refine2(t, v4, v8, x.shape, x.st, RMAX);
  check_modes(&e.ex, &x, 1, (const char *[]){"4:1,1"}, "lay_refine2(V4, V8)");
  CHECK(lay_refine(t, (layout *[]){v8, v4}, 2, x.shape, x.st, RMAX) == -1, "lay_refine(V8, V4)");
  layout *pn = ty_layout(t, node(&e, "PN")), *pm = ty_layout(t, node(&e, "PM"));
  x.nm = lay_refine2(t, pn, pm, x.shape, x.st, RMAX);
  check_modes(&e.ex, &x, 2, (const char *[]){"n:5,5", "4:1,1"}, "lay_refine2(PN, PM)");
  CHECK(lay_refine(t, (layout *[]){pn, pm}, 2, x.shape, x.st, RMAX) == -1, "lay_refine(PN, PM)");
  /* degenerate arguments */
  layout none = {NULL, 0};
  CHECK(lay_refine2(t, &none, v8, x.shape, x.st, RMAX) == -1 && lay_refine2(t, v8, &none, x.shape, x.st, RMAX) == -1,
        "lay_refine2 of a layout without modes");
  CHECK(lay_refine(t, (layout *[]){v8, &none}, 2, x.shape, x.st, RMAX) == -1, "lay_refine of a layout without modes");
  CHECK(lay_refine(t, (layout *[]){v8}, 0, x.shape, x.st, RMAX) == -1, "lay_refine of no layout");
  CHECK(lay_refine(t, (layout *[]){v8}, 1, x.shape, x.st, RMAX) == 1, "lay_refine of one layout");
  CHECK(lay_refine2(t, v8, v8, x.shape, x.st, 0) == -1 && lay_refine(t, (layout *[]){v8}, 1, x.shape, x.st, 0) == -1,
        "no room for a mode");
  teardown(&e);
}

/* symbolic sizes, checked on every index for several values */
static void test_refine_symbolic(void) {
  env e;
  setup(&e, "#parray {paged float [4][n]} X\n"
            "#parray {paged float [#X_1][#X_0]} XT\n"
            "#parray {paged float [n][4]} Y\n"
            "#parray {paged float [n][m]} SY\n"
            "#parray {paged float [#SY_1][#SY_0]} SYT\n"
            "#parray {paged float [n][m+1]} SP0\n"
            "#parray {paged float [n #SP0_0][m #SP0_1]} SP\n"
            "#parray {paged float [#SP_1][#SP_0]} SPT\n"
            "#parray {paged float [n][5]} PN0\n"
            "#parray {paged float [n #PN0_0][4 #PN0_1]} PN\n"
            "#parray {paged float [m][5]} PM0\n"
            "#parray {paged float [m #PM0_0][4 #PM0_1]} PM\n");
  CHECK(e.dg.errors == 0, "declarations failed");
  int in = ex_atom(&e.ex, "n", 0, EX_INF)->id, im = ex_atom(&e.ex, "m", 0, EX_INF)->id;
  int64_t *av = calloc((size_t)e.ex.natoms + 1, sizeof *av); /* atom ids start at 1 */
  static const char *const tuples[][4] = {{"XT", "Y"}, {"Y", "XT"}, {"X", "XT", "Y"}, {"SY", "SYT"}, {"SYT", "SY"},
                                          {"SP", "SY", "SP"}, {"SPT", "SYT", "SY", "SPT"}, {"PN", "PM"}};
  static const int64_t vals[][2] = {{1, 1}, {2, 3}, {3, 5}, {4, 4}, {5, 2}, {8, 8}};
  for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++)
    for (size_t c = 0; c < sizeof tuples / sizeof tuples[0]; c++) {
      bool pnm = !strcmp(tuples[c][0], "PN"); /* the same size only when m == n */
      av[in] = vals[v][0], av[im] = pnm ? vals[v][0] : vals[v][1];
      int64_t size = pnm || tuples[c][0][0] == 'X' || tuples[c][0][0] == 'Y' ? 4 * av[in] : av[in] * av[im];
      side sd[KMAX] = {{0}}, *s[KMAX];
      int k = 0;
      while (k < KMAX && tuples[c][k]) s[k] = &sd[k], sd[k].path = tuples[c][k], side_init(&e, &sd[k], size, av), k++;
      refined r;
      int nm = refine_sides(&e, s, k, &r, RMAX);
      CHECK(pnm ? nm == -1 : nm >= 0, "lay_refine(%s) gives %d", sides_name(s, k), nm);
      if (nm >= 0) check_refined(s, &r, size, av, "lay_refine");
      if (k == 2) {
        CHECK(refine_pair(&e, s[0], s[1], &r, RMAX) >= 0, "lay_refine2(%s) fails", sides_name(s, k));
        if (r.nm >= 0) check_refined(s, &r, size, av, "lay_refine2");
      }
      for (int j = 0; j < k; j++) free(sd[j].off);
    }
  free(av);
  teardown(&e);
}

/* distributed #copy: the local and process layouts of both sides (8 x 8
 * elements over 4 processes), as lower_mem.c refines them */
static void test_refine_distributed(void) {
  env e;
  setup(&e, "#parray {mpi [4]} P\n"
            "#parray {paged float [8][8]} H\n"
            "#parray {paged float [#H_1][#H_0]} HT\n"
            "#parray {paged float [[#P][2]][8]} ROWS\n"
            "#parray {paged float [8][[#P][2]]} COLS\n"
            "#parray {paged float [[2][#P]][8]} CYC\n"
            "#parray {paged float [#ROWS_1][#ROWS_0]} ROWST\n"
            "#parray {paged float [[#P][3]][8]} DX\n"
            "#parray {paged float [[3][#P]][8]} DZ\n");
  CHECK(e.dg.errors == 0, "declarations failed");
  static const char *const names[] = {"H", "HT", "ROWS", "COLS", "CYC", "ROWST"};
  enum { NT = sizeof names / sizeof names[0] };
  side sd[NT][2];
  for (int a = 0; a < NT; a++)
    for (int v = 0; v < 2; v++) sd[a][v] = (side){.path = names[a], .view = v}, side_init(&e, &sd[a][v], 64, NULL);
  for (int d = 0; d < NT; d++)
    for (int s = 0; s < NT; s++) {
      side *q[4] = {&sd[d][0], &sd[d][1], &sd[s][0], &sd[s][1]};
      refined r;
      int nm = refine_sides(&e, q, 4, &r, RMAX);
      CHECK(nm >= 0, "lay_refine(%s) gives %d", sides_name(q, 4), nm);
      if (nm >= 0) check_refined(q, &r, 64, NULL, "lay_refine");
    }
  /* a scatter of H into rows: process = i / 16, local offset i % 16 */
  refined r;
  refine_sides(&e, (side *[]){&sd[2][0], &sd[2][1], &sd[0][0], &sd[0][1]}, 4, &r, RMAX);
  check_modes(&e.ex, &r, 2, (const char *[]){"4:0,1,16,0", "16:1,0,1,0"}, "lay_refine(ROWS, ROWS(proc), H, H(proc))");
  for (int a = 0; a < NT; a++) free(sd[a][0].off), free(sd[a][1].off);
  /* 24-element blocks against 32-element ones */
  tyctx *t = &e.ty;
  layout *l[4] = {ty_layout(t, node(&e, "DX")), ty_proc_layout(t, node(&e, "DX")), ty_layout(t, node(&e, "DZ")),
                  ty_proc_layout(t, node(&e, "DZ"))};
  CHECK(l[0] && l[1] && l[2] && l[3] && lay_refine(t, l, 4, r.shape, r.st, RMAX) == -1, "lay_refine(DX, DZ)");
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
  test_refine_groups();
  test_refine_exact();
  test_refine_fails();
  test_refine_symbolic();
  test_refine_distributed();
  test_errors();
  printf("%d checks, %d failures\n", checks, failures);
  return failures != 0;
}
