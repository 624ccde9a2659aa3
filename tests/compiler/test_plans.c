/* SPDX-License-Identifier: Apache-2.0 */
/* test_plans.c - unit tests of the lowering's plans: small .pc programs are
 * translated in memory (pac_translate, no preprocessor), and the records
 * the planners return (lower_record.h) are checked field by field as the
 * print pass receives them, with no golden text: the method and count of a
 * #copy, the kind, memory, variable and size of a #create and #destroy, the
 * kind, thread count and captures of a #detour, a #sync as a barrier or a
 * wait, no record for a directive that was reported, and what the target's
 * capabilities allow. */
#include "translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a record says, taken while the translation runs (its arena is gone
 * after pac_translate returns): the fields, constants evaluated, texts copied. */
typedef struct snap {
  lr_kind kind;
  dir_kind at;      /* the directive it replaces */
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
  /* LR_SYNC, LR_WAIT */
  plan_sync sync;
  bool pending_only;
} snap;

#define MAXREC 16
static snap recs[MAXREC];
static int nrec, failures;

static int64_t konst(const ex *e) {
  int64_t v = -1;
  return e && ex_is_const(e, &v) ? v : -1;
}

static void text(char *to, const char *s) { snprintf(to, 32, "%s", s ? s : "(null)"); }

static void observe(void *env, const lw_record *r) {
  (void)env;
  if (nrec >= MAXREC) {
    nrec++;
    return;
  }
  snap *n = &recs[nrec++];
  n->kind = r->kind, n->at = r->at->dir->kind;
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

/* translate text for target; returns pac_translate's status, records in recs[0..nrec) */
static int plan(const char *text, int target) {
  nrec = 0;
  memset(recs, 0, sizeof recs);
  FILE *out = tmpfile(), *err = tmpfile();
  if (!out || !err) abort();
  pac_options opt = {.input = "/nonexistent-pac-test/plans.pc", .target = target, .cpp = "false", .no_cpp = true};
  pac_io io = {.text = text, .len = strlen(text), .out = out, .err = err, .observe = observe};
  int rc = pac_translate(&opt, &io);
  fclose(out), fclose(err);
  return rc;
}

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

int main(void) {
  test_copy_methods();
  test_create_destroy();
  test_reported();
  test_target_caps();
  test_detour();
  test_host_sync();
  if (failures) fprintf(stderr, "test_plans: %d failed\n", failures);
  else printf("test_plans: all passed\n");
  return failures != 0;
}
