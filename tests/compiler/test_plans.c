/* SPDX-License-Identifier: Apache-2.0 */
/* test_plans.c - unit tests of the lowering's plans: small .pc programs are
 * translated in memory (pac_translate, no preprocessor), and the records
 * the planners return (lower_record.h) are checked field by field as the
 * print pass receives them, with no golden text: the method and count of a
 * #copy, the kind, memory, variable and size of a #create and #destroy, the
 * kind, thread count and captures of a #detour, a #sync as a barrier or a
 * wait, no record for a directive that was reported, and what the target's
 * capabilities allow; and the records of the program's structure (#parray,
 * #mainhost, #subprog, #insert, #global, .pc includes) and of the walk's
 * substitutions ($...$, captured names): their phases in order, with the
 * body's own records between, where each body starts and ends, and the
 * texts substituted; and the program's entry, last. */
#include "translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a record says, taken while the translation runs (its arena is gone
 * after pac_translate returns): the fields, constants evaluated, texts copied. */
typedef struct snap {
  lr_kind kind;
  int at;           /* the directive it replaces (dir_kind; LR_SUBST, LR_INCLUDE: -1, not a directive) */
  /* LR_COPY */
  plan_copy_method method;
  int nmodes;
  bool device;
  int64_t count;
  char src[32], dst[32], elem[32];
  /* LR_ALLOC, LR_DESTROY */
  plan_alloc_kind akind;
  int mem;
  char target[32];
  bool declare, checked;
  int64_t elems;
  /* LR_DETOUR */
  plan_kind pkind;
  int ncaps;
  char caps[64]; /* the captured fields, "a b c" */
  bool wait_first;
  int nreds;
  bool unordered, fold; /* LR_DETOUR: the clause, and a kernel of about one wave standing for the grid */
  char reds[64]; /* the reductions: "op:name:init" each, ' ' between */
  /* LR_SYNC, LR_WAIT */
  plan_sync sync;
  bool pending_only;
  /* the structure's records */
  lr_phase phase;
  uint32_t b, e;    /* LR_SUBST: the span; LR_MAINHOST: kw (LP_OPEN), body and end (LP_CLOSE);
                       LR_GLOBAL, LR_INSERT, LR_INCLUDE: from and to */
  char name[32];    /* LR_TYPE, LR_SUBPROG, LR_INSERT, LR_INCLUDE; LR_SUBST: its text */
  int instance;     /* LR_INSERT */
  bool in_line;     /* LR_INCLUDE */
  int nparams;      /* LR_SUBPROG */
  char params[32];  /* "a b" */
  lr_subst_kind what;
  bool wait;        /* LR_MAINHOST */
  char site[32];    /* LR_MAINHOST: the wait's site */
  int thread;       /* LR_TYPE: its thread kind */
  bool uses_pthd, uses_mpi; /* LR_ENTRY */
  int nbodies;      /* LR_ENTRY: the mpi bodies */
} snap;

#define MAXREC 32
static snap recs[MAXREC];
static int nrec, failures;
/* take the records of the structure and the substitutions too (the tests
 * of plans leave them out) */
static bool structure;
static bool toplevels; /* and the starts of top-level items (left out unless set) */

static int64_t konst(const ex *e) {
  int64_t v = -1;
  return e && ex_is_const(e, &v) ? v : -1;
}

static void text(char *to, const char *s) { snprintf(to, 32, "%s", s ? s : "(null)"); }

static void observe_structure(snap *n, const lw_record *r) {
  switch (r->kind) {
  case LR_TOPLEVEL: n->b = r->at->loc.b; break;
  case LR_SUBST:
    n->what = r->u.subst.what, n->b = r->u.subst.span.b, n->e = r->u.subst.span.e;
    text(n->name, r->u.subst.text);
    break;
  case LR_TYPE:
    text(n->name, r->u.type->name);
    n->thread = r->u.type->thread;
    break;
  case LR_MAINHOST:
    n->phase = r->u.mainhost.phase, n->wait = r->u.mainhost.wait;
    n->b = n->phase == LP_OPEN ? r->u.mainhost.kw.b : r->u.mainhost.body;
    n->e = n->phase == LP_OPEN ? r->u.mainhost.body : r->u.mainhost.end;
    if (n->wait) text(n->site, r->u.mainhost.site.what);
    break;
  case LR_SUBPROG:
    text(n->name, r->u.subprog.name);
    n->nparams = r->u.subprog.nparams;
    for (int i = 0; i < n->nparams; i++)
      snprintf(n->params + strlen(n->params), sizeof n->params - strlen(n->params), "%s%s", i ? " " : "",
               r->u.subprog.params[i]);
    break;
  case LR_ENTRY:
    n->uses_pthd = r->u.entry->uses_pthd, n->uses_mpi = r->u.entry->uses_mpi;
    n->nbodies = r->u.entry->nmpi_bodies;
    break;
  default: /* LR_GLOBAL, LR_INSERT, LR_INCLUDE */
    n->phase = r->u.body.phase, n->b = r->u.body.from, n->e = r->u.body.to;
    n->instance = r->u.body.instance, n->in_line = r->u.body.in_line;
    if (r->u.body.name) text(n->name, r->u.body.name);
    break;
  }
}

static void observe(void *env, const lw_record *r) {
  (void)env;
  bool plan = r->kind <= LR_WAIT;
  if ((!plan && !structure) || (r->kind == LR_TOPLEVEL && !toplevels)) return;
  if (nrec >= MAXREC) {
    nrec++;
    return;
  }
  snap *n = &recs[nrec++];
  n->kind = r->kind, n->at = r->at && r->at->kind == IT_DIR ? (int)r->at->dir->kind : -1;
  if (!plan) {
    observe_structure(n, r);
    return;
  }
  if (r->kind == LR_COPY) {
    const plan_copy *c = &r->u.copy;
    n->method = c->method, n->nmodes = c->nmodes, n->device = c->device, n->count = konst(c->count);
    text(n->src, c->src.ptr), text(n->dst, c->dst.ptr), text(n->elem, c->elem);
  } else if (r->kind == LR_ALLOC) {
    const plan_alloc *a = &r->u.alloc;
    n->akind = a->kind, n->mem = a->mem, n->declare = a->declare, n->checked = a->bytes.checked;
    n->elems = konst(a->bytes.elems);
    text(n->target, a->target), text(n->elem, a->elem);
  } else if (r->kind == LR_DETOUR) {
    const plan_detour *d = &r->u.detour.p;
    n->pkind = d->kind, n->ncaps = d->ncaps, n->count = konst(d->count), n->wait_first = r->u.detour.wait_first;
    for (int i = 0; i < d->ncaps; i++)
      snprintf(n->caps + strlen(n->caps), sizeof n->caps - strlen(n->caps), "%s%s", i ? " " : "", d->caps[i].field);
    n->nreds = d->nreds, n->unordered = d->unordered, n->fold = d->fold;
    for (int i = 0; i < d->nreds; i++)
      snprintf(n->reds + strlen(n->reds), sizeof n->reds - strlen(n->reds), "%s%d:%s:%s", i ? " " : "",
               (int)d->reds[i].op, d->reds[i].name, d->reds[i].init);
  } else if (r->kind == LR_SYNC) {
    n->pkind = r->u.sync.kind, n->sync = r->u.sync.sync;
  } else if (r->kind == LR_WAIT) {
    n->pending_only = r->u.wait.pending_only;
  } else if (r->kind == LR_DESTROY) {
    n->akind = r->u.destroy.kind, n->mem = r->u.destroy.mem;
    text(n->target, r->u.destroy.target);
  }
}

#define CHECK(c)                                                                   \
  do {                                                                             \
    if (!(c)) {                                                                    \
      fprintf(stderr, "%s:%d: %s: failed: %s\n", __FILE__, __LINE__, __func__, #c); \
      failures++;                                                                  \
    }                                                                              \
  } while (0)

/* translate text for target, as the file input (where its .pc includes
 * are looked for); returns pac_translate's status, records in recs[0..nrec) */
static int plan_in(const char *text, int target, const char *input) {
  nrec = 0;
  memset(recs, 0, sizeof recs);
  FILE *out = tmpfile(), *err = tmpfile();
  if (!out || !err) abort();
  pac_options opt = {.input = input, .target = target, .cpp = "false", .no_cpp = true};
  pac_io io = {.text = text, .len = strlen(text), .out = out, .err = err, .observe = observe};
  int rc = pac_translate(&opt, &io);
  fclose(out), fclose(err);
  return rc;
}

static int plan(const char *text, int target) { return plan_in(text, target, "/nonexistent-pac-test/plans.pc"); }

static void test_copy_methods(void) {
  int rc = plan("#parray {paged float [64][32]} H\n"
                "#parray {paged float [#H_1][#H_0]} T\n"
                "#parray {paged float [32][64]} H2\n"
                "void f(float *h, float *h2) {\n"
                "  #copy H(h) to H2(h2)\n"
                "  #copy T(h) to H2(h2)\n"
                "}\n", TARGET_C);
  CHECK(rc == 0);
  CHECK(nrec == 2);
  CHECK(recs[0].kind == LR_COPY);
  CHECK(recs[0].method == CP_MEMCPY); /* both sides contiguous */
  CHECK(recs[0].count == 64 * 32);
  CHECK(!recs[0].device);
  CHECK(!strcmp(recs[0].src, "h"));
  CHECK(!strcmp(recs[0].dst, "h2"));
  CHECK(!strcmp(recs[0].elem, "float"));
  CHECK(recs[0].at == D_COPY);
  CHECK(recs[1].kind == LR_COPY);
  CHECK(recs[1].method == CP_STRIDED); /* a transposed source: merged modes with strides */
  CHECK(recs[1].nmodes == 2);
}

static void test_create_destroy(void) {
  int rc = plan("#parray {paged double [8][4]} A\n"
                "void f(void) {\n"
                "  double *a;\n"
                "  #create A(a)\n"
                "  a[0] = 1;\n"
                "  #destroy A(a)\n"
                "}\n", TARGET_C);
  CHECK(rc == 0);
  CHECK(nrec == 2);
  const snap *al = &recs[0];
  CHECK(al->kind == LR_ALLOC && al->at == D_CREATE);
  CHECK(al->akind == AL_HOST);
  CHECK(al->mem == MK_PAGED);
  CHECK(!strcmp(al->elem, "double"));
  CHECK(!strcmp(al->target, "a"));
  CHECK(!al->declare); /* a was declared by the program */
  CHECK(al->elems == 32);
  CHECK(!al->checked); /* constant sizes: nothing to check at run time */
  const snap *de = &recs[1];
  CHECK(de->kind == LR_DESTROY && de->at == D_DESTROY);
  CHECK(de->akind == AL_HOST);
  CHECK(!strcmp(de->target, "a"));
}

/* a directive that is reported returns no record */
static void test_reported(void) {
  int rc = plan("#parray {paged float [16]} F\n"
                "#parray {paged int [16]} I\n"
                "void f(float *x, int *y) {\n"
                "  #copy F(x) to I(y)\n"
                "}\n", TARGET_C);
  CHECK(rc == 1);
  CHECK(nrec == 0);
}

/* device memory is a capability of the target: the host target reports a
 * dmem #create, the CUDA target plans it on the device */
static void test_target_caps(void) {
  const char *pc = "#parray {dmem float [16]} D\n"
                   "void f(void) {\n"
                   "  float *d;\n"
                   "  #create D(d)\n"
                   "}\n";
  CHECK(plan(pc, TARGET_C) == 1);
  CHECK(nrec == 0);
  CHECK(plan(pc, TARGET_CUDA) == 0);
  CHECK(nrec == 1);
  CHECK(recs[0].kind == LR_ALLOC && recs[0].akind == AL_DEVICE && recs[0].mem == MK_DMEM);
  CHECK(recs[0].elems == 16);
}

/* a pthd detour: the body's #sync is a record of its own, printed (into the
 * outlined body) before the detour's; the captures by reference, in order
 * of first use */
static void test_detour(void) {
  int rc = plan("#parray {pthd [2][3]} T\n"
                "void run(int scale, float *out) {\n"
                "  int local = 10;\n"
                "  #detour T {\n"
                "    int mine = $tid$ * scale + local;\n"
                "    #sync\n"
                "    out[$tid$] = (float)mine;\n"
                "  }\n"
                "}\n", TARGET_C);
  CHECK(rc == 0);
  CHECK(nrec == 2);
  CHECK(recs[0].kind == LR_SYNC && recs[0].at == D_SYNC);
  CHECK(recs[0].pkind == PK_PTHD && recs[0].sync == SYNC_TEAM);
  CHECK(recs[1].kind == LR_DETOUR && recs[1].at == D_DETOUR);
  CHECK(recs[1].pkind == PK_PTHD);
  CHECK(recs[1].count == 6);
  CHECK(recs[1].ncaps == 3);
  CHECK(!strcmp(recs[1].caps, "scale local out"));
  CHECK(!recs[1].wait_first); /* the host target's detours end before it goes on */
}

/* reduce(...): its variables in order, each with its operator and where
 * the private copies start (the identity, or the variable for an
 * idempotent operator, or the function's identity); not captures; a
 * 'return' in the body is the jump to the reductions; a cuda detour's
 * accumulates __half in float and waits */
static void test_reduce(void) {
  int rc = plan("#parray {pthd [4]} T\n"
                "static int f(int a, int b) { return a > b ? a : b; }\n"
                "void run(const double *x) {\n"
                "  double s = 0; int hi = 0, m = 1; long p = 1;\n"
                "  #detour T reduce(+: s, max: hi, *: p, f(-1): m) {\n"
                "    s += x[$tid$]; hi = $tid$; p *= 2; m = f(m, $tid$);\n"
                "    if (s > 0) return;\n"
                "  }\n"
                "}\n", TARGET_C);
  CHECK(rc == 0);
  CHECK(nrec == 1 && recs[0].kind == LR_DETOUR);
  CHECK(recs[0].nreds == 4);
  char want[64];
  snprintf(want, sizeof want, "%d:s:0 %d:hi:hi %d:p:1 %d:m:-1", RED_ADD, RED_MAX, RED_MUL, RED_FN);
  CHECK(!strcmp(recs[0].reds, want));
  CHECK(!strcmp(recs[0].caps, "x")); /* the reduced variables are not captured */
  rc = plan("#parray {pthd [4]} T\nvoid run(void) {\n  double d = 0;\n  #detour T reduce(&: d) { d = 1; }\n}\n",
            TARGET_C);
  CHECK(rc != 0 && nrec == 0); /* reported: no plan */
  /* 'unordered': a cuda kernel folds its grid unless the body names the hardware's block */
  const char *k = "#parray {cuda(const float *x, int n) [(n + 255) / 256][256]} G\n"
                  "float run(const float *x, int n) {\n"
                  "  float s = 0, t = 0, u = 0;\n"
                  "  #detour G(x, n) reduce(+: s) unordered { if ($tid$ < n) s += x[$tid$]; }\n"
                  "  #detour G(x, n) reduce(+: t) unordered { if (blockIdx.x == 0) t += x[threadIdx.x]; }\n"
                  "  #detour G(x, n) reduce(+: u) { if ($tid$ < n) u += x[$tid$]; }\n"
                  "  return s + t + u;\n"
                  "}\n";
  CHECK(plan(k, TARGET_CUDA) == 0 && nrec == 3);
  CHECK(recs[0].unordered && recs[0].fold);
  CHECK(recs[1].unordered && !recs[1].fold);
  CHECK(!recs[2].unordered && !recs[2].fold);
  rc = plan("#parray {pthd [4]} T\nvoid run(void) {\n  int c = 0;\n  #detour T reduce(+: c) unordered { c++; }\n}\n",
            TARGET_C);
  CHECK(rc == 0 && nrec == 1 && recs[0].unordered && !recs[0].fold); /* threads: nothing to fold */
}

/* host #sync: a stream-ordered target waits for the device; the host
 * target has no device to wait for, and no barrier outside a detour */
static void test_host_sync(void) {
  const char *pc = "void f(void) {\n"
                   "  #sync\n"
                   "}\n";
  CHECK(plan(pc, TARGET_CUDA) == 0);
  CHECK(nrec == 1);
  CHECK(recs[0].kind == LR_WAIT && !recs[0].pending_only);
  CHECK(plan(pc, TARGET_C) == 1);
  CHECK(nrec == 0);
}


/* the offset of the n-th (from 1) occurrence of what in text */
static uint32_t at_of(const char *text, const char *what, int n) {
  const char *p = text - 1;
  while (n-- > 0)
    if (!(p = strstr(p + 1, what))) abort(); /* the test's program lacks what it looks for */
  return (uint32_t)(p - text);
}

/* #mainhost: the keyword and the body's edges; a stream-ordered target
 * waits at the end for the detours launched without a wait, the host
 * target does not; #parray: the type built */
static void test_mainhost(void) {
  const char *pc = "#parray {pthd [2]} T\n"
                   "#mainhost {\n"
                   "  int n = argc;\n"
                   "  (void)n;\n"
                   "}\n";
  structure = true;
  for (int cuda = 0; cuda < 2; cuda++) {
    CHECK(plan(pc, cuda ? TARGET_CUDA : TARGET_C) == 0);
    CHECK(nrec == 4);
    CHECK(recs[0].kind == LR_TYPE && recs[0].at == D_PARRAY);
    CHECK(!strcmp(recs[0].name, "T") && recs[0].thread == TK_PTHD);
    const snap *o = &recs[1], *c = &recs[2];
    CHECK(o->kind == LR_MAINHOST && o->at == D_MAINHOST && o->phase == LP_OPEN);
    CHECK(o->b == at_of(pc, "#mainhost", 1));  /* the keyword */
    CHECK(o->e == at_of(pc, "{\n  int", 1) + 1); /* the body, after its '{' */
    CHECK(c->kind == LR_MAINHOST && c->phase == LP_CLOSE);
    CHECK(c->b == at_of(pc, "}\n", 1)); /* its closing brace */
    CHECK(c->e == c->b + 1);
    CHECK(c->wait == cuda);
    CHECK(!cuda || !strcmp(c->site, "the end of #mainhost"));
    CHECK(recs[3].kind == LR_ENTRY && recs[3].at == -1); /* last, after the file */
    CHECK(recs[3].uses_pthd && !recs[3].uses_mpi && recs[3].nbodies == 0); /* T is declared, not run */
  }
  structure = false;
}

/* the top-level items of the output start at each declaration, function
 * and directive at file scope, not at what is inside them */
static void test_toplevel(void) {
  const char *pc = "int a, b;\n"
                   "#parray {paged int [2]} P\n"
                   "void f(int *x) {\n"
                   "  x[$P[1]$] = a;\n"
                   "}\n"
                   "static int c = 3;\n";
  structure = toplevels = true;
  CHECK(plan(pc, TARGET_C) == 0);
  int n = 0;
  uint32_t want[] = {0, at_of(pc, "#parray", 1), at_of(pc, "void", 1), at_of(pc, "static", 1)};
  for (int i = 0; i < nrec; i++) {
    if (recs[i].kind != LR_TOPLEVEL) continue;
    CHECK(n < 4 && recs[i].b == want[n]);
    n++;
  }
  CHECK(n == 4);
  /* the #parray's record comes after its item starts, the $...$'s inside f's */
  CHECK(nrec == 6 && recs[2].kind == LR_TYPE && recs[4].kind == LR_SUBST);
  structure = toplevels = false;
}

/* the entry of a program with mpi detours: each detour's body is one of
 * the entry's mpi bodies, and a program without #mainhost has no entry */
static void test_entry(void) {
  const char *pc = "#parray {mpi [2]} M\n"
                   "#mainhost {\n"
                   "  #detour M { (void)0; }\n"
                   "  #detour M { (void)1; }\n"
                   "}\n";
  structure = true;
  CHECK(plan(pc, TARGET_C) == 0);
  CHECK(nrec >= 1 && recs[nrec - 1].kind == LR_ENTRY);
  if (nrec >= 1) {
    const snap *e = &recs[nrec - 1];
    CHECK(e->uses_mpi && !e->uses_pthd);
    CHECK(e->nbodies == 2);
  }
  CHECK(plan("#parray {pthd [2]} T\nvoid f(void) {\n  #detour T { (void)0; }\n}\n", TARGET_C) == 0);
  for (int i = 0; i < nrec; i++) CHECK(recs[i].kind != LR_ENTRY);
  structure = false;
}

/* a #detour's body: two records around the body's own (here a nested
 * detour's body and plan), opening and closing at the body's braces; the
 * plan follows its body's closing record, the inner before the outer */
static void test_detour_body(void) {
  const char *pc = "#parray {pthd [2]} T\n"
                   "#parray {pthd [3]} U\n"
                   "void f(int *x) {\n"
                   "  #detour T {\n"
                   "    #detour U { x[$tid$] = 1; }\n"
                   "  }\n"
                   "}\n";
  structure = true;
  CHECK(plan(pc, TARGET_C) == 0);
  int k = 0;
  while (k < nrec && recs[k].kind != LR_DETOUR_BODY) k++;
  CHECK(k + 6 <= nrec);
  if (k + 6 <= nrec) {
    const snap *r = &recs[k];
    CHECK(r[0].phase == LP_OPEN && r[0].at == D_DETOUR && r[0].b == at_of(pc, "{\n    #detour", 1));
    CHECK(r[1].kind == LR_DETOUR_BODY && r[1].phase == LP_OPEN && r[1].b == at_of(pc, "{ x[", 1));
    int c = 2;
    while (c < 5 && r[c].kind != LR_DETOUR_BODY) c++; /* the $tid$'s substitution */
    CHECK(r[c].kind == LR_DETOUR_BODY && r[c].phase == LP_CLOSE && r[c].e == at_of(pc, "}\n  }", 1) + 1);
    CHECK(r[c + 1].kind == LR_DETOUR && r[c + 2].kind == LR_DETOUR_BODY && r[c + 2].phase == LP_CLOSE);
    CHECK(r[c + 2].e == at_of(pc, "}\n}", 1) + 1);
    CHECK(c + 3 < nrec - k && r[c + 3].kind == LR_DETOUR);
  }
  structure = false;
}

/* #subprog, and two #inserts of it: each instance opens and closes with
 * its number, a #global inside opens and closes around its declarations,
 * and between them the substitutions: the #global's name made private to
 * the instance, the $...$ in brackets as its offset, the value parameter
 * as the instance's argument */
static void test_subprog_insert(void) {
  const char *pc = "#parray {paged float [4][8]} A\n"
                   "#subprog fill(v)\n"
                   "  #global {\n"
                   "    int count;\n"
                   "  }\n"
                   "  x[$A[1][2]$] = v;\n"
                   "  count++;\n"
                   "#end\n"
                   "void f(float *x) {\n"
                   "  #insert fill(1.5f)\n"
                   "  #insert fill(2.5f)\n"
                   "}\n";
  structure = true;
  CHECK(plan(pc, TARGET_C) == 0);
  CHECK(nrec == 18);
  CHECK(recs[0].kind == LR_TYPE && !strcmp(recs[0].name, "A") && recs[0].thread == TK_DATA);
  CHECK(recs[1].kind == LR_SUBPROG && recs[1].at == D_SUBPROG);
  CHECK(!strcmp(recs[1].name, "fill") && recs[1].nparams == 1 && !strcmp(recs[1].params, "v"));
  for (int k = 0; k < 2; k++) {
    const snap *r = &recs[2 + 8 * k];
    char arg[16], priv[32];
    snprintf(arg, sizeof arg, "(%s)", k ? "2.5f" : "1.5f");
    snprintf(priv, sizeof priv, "count__fill_%d", k + 1);
    CHECK(r[0].kind == LR_INSERT && r[0].at == D_INSERT && r[0].phase == LP_OPEN);
    CHECK(!strcmp(r[0].name, "fill") && r[0].instance == k + 1);
    CHECK(r[0].b == at_of(pc, "\n  #global", 1)); /* the body, after the #subprog line */
    CHECK(r[1].kind == LR_GLOBAL && r[1].at == D_GLOBAL && r[1].phase == LP_OPEN);
    CHECK(r[1].b == at_of(pc, "{\n    int", 1) + 1);
    CHECK(r[2].kind == LR_SUBST && r[2].what == SUB_NAME && !strcmp(r[2].name, priv));
    CHECK(r[2].b == at_of(pc, "count", 1) && r[2].e == r[2].b + 5);
    CHECK(r[3].kind == LR_GLOBAL && r[3].phase == LP_CLOSE && r[3].e == at_of(pc, "}\n  x[", 1));
    CHECK(r[4].kind == LR_SUBST && r[4].what == SUB_DOLLAR && !strcmp(r[4].name, "10")); /* 1 * 8 + 2 */
    CHECK(r[4].b == at_of(pc, "$A", 1) && r[4].e == at_of(pc, "] = v", 1));
    CHECK(r[5].kind == LR_SUBST && r[5].what == SUB_NAME && !strcmp(r[5].name, arg));
    CHECK(r[6].kind == LR_SUBST && !strcmp(r[6].name, priv) && r[6].b == at_of(pc, "count++", 1));
    CHECK(r[7].kind == LR_INSERT && r[7].phase == LP_CLOSE && r[7].instance == k + 1);
    CHECK(r[7].e == at_of(pc, "#end", 1)); /* the body ends before #end */
  }
  structure = false;
}

/* .pc includes: at file scope the file's items are translated in line,
 * inside a block into the block, and a file included again is left out */
static void test_include(void) {
  char dir[] = "/tmp/pac-plans-XXXXXX";
  if (!mkdtemp(dir)) abort();
  char main_pc[64], types_pc[64], body_pc[64];
  snprintf(main_pc, sizeof main_pc, "%s/plans.pc", dir);
  snprintf(types_pc, sizeof types_pc, "%s/types.pc", dir);
  snprintf(body_pc, sizeof body_pc, "%s/body.pc", dir);
  const char *types = "#parray {paged int [4]} I\n", *body = "n++;\n";
  FILE *f = fopen(types_pc, "w"), *g = fopen(body_pc, "w");
  if (!f || !g) abort();
  fputs(types, f), fputs(body, g);
  fclose(f), fclose(g);
  const char *pc = "#include \"types.pc\"\n"
                   "#include \"types.pc\"\n"
                   "void f(int n) {\n"
                   "#include \"body.pc\"\n"
                   "}\n";
  structure = true;
  CHECK(plan_in(pc, TARGET_C, main_pc) == 0);
  CHECK(nrec == 6);
  CHECK(recs[0].kind == LR_INCLUDE && recs[0].at == -1 && recs[0].phase == LP_OPEN && recs[0].in_line);
  CHECK(strstr(recs[0].name, "types.pc") != NULL);
  CHECK(recs[1].kind == LR_TYPE && !strcmp(recs[1].name, "I"));
  CHECK(recs[2].kind == LR_INCLUDE && recs[2].phase == LP_CLOSE && recs[2].in_line);
  CHECK(recs[2].e - recs[2].b == strlen(types)); /* the file's whole text */
  CHECK(recs[3].kind == LR_INCLUDE && recs[3].phase == LP_WHOLE); /* again: nothing translated */
  CHECK(recs[4].kind == LR_INCLUDE && recs[4].phase == LP_OPEN && !recs[4].in_line);
  CHECK(strstr(recs[4].name, "body.pc") != NULL);
  CHECK(recs[5].kind == LR_INCLUDE && recs[5].phase == LP_CLOSE && recs[5].e - recs[5].b == strlen(body));
  structure = false;
  unlink(types_pc), unlink(body_pc), rmdir(dir);
}

int main(void) {
  test_copy_methods();
  test_create_destroy();
  test_reported();
  test_target_caps();
  test_detour();
  test_reduce();
  test_host_sync();
  test_mainhost();
  test_detour_body();
  test_subprog_insert();
  test_include();
  test_entry();
  test_toplevel();
  if (failures) fprintf(stderr, "test_plans: %d failed\n", failures);
  else printf("test_plans: all passed\n");
  return failures != 0;
}
