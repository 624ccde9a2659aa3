/* test_pthd_rt.c - tests of the pthd thread-array runtime (runtime/pthd.c):
 * each tid runs exactly once on its own thread, nested detours, barriers in
 * phased computations (and proof that the phased test needs them), teams far
 * larger than the core count, repeated detours reuse the pool, detours from
 * several application threads at once, error paths and shutdown.
 * Usage: test_pthd_rt NAME   (one ctest test per NAME; see main). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "parray/pthd.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static _Atomic int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)
#define RUN_OK(n, body, ctx)                                                                       \
  do {                                                                                             \
    parray_status st_ = parray_pthd_run((n), (body), (ctx));                                       \
    CHECK(st_ == PARRAY_OK, "parray_pthd_run(%lld): %s: %s", (long long)(n), parray_status_str(st_), \
          parray_last_error());                                                                    \
  } while (0)

/* ------------------------------------------------------------ once */

#define MAXN 300
typedef struct {
  _Atomic int count[MAXN];
  pthread_t self[MAXN];
  _Atomic int size_ok;
  int64_t n;
} once_ctx;

static void once_body(void *c, parray_team *team, int64_t tid) {
  once_ctx *o = c;
  if (tid >= 0 && tid < MAXN) {
    atomic_fetch_add(&o->count[tid], 1);
    o->self[tid] = pthread_self();
  }
  if (parray_team_size(team) == o->n) atomic_fetch_add(&o->size_ok, 1);
  /* Everyone is alive at once: hold all threads here before any returns, so
   * that two tids cannot share a thread one after the other. */
  parray_team_sync(team);
}

static void test_once(void) {
  static const int64_t sizes[] = {1, 2, 3, 5, 8, 16, 33, 64, 200};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    int64_t n = sizes[k];
    once_ctx *o = calloc(1, sizeof *o);
    o->n = n;
    RUN_OK(n, once_body, o);
    for (int64_t t = 0; t < n; t++) CHECK(o->count[t] == 1, "n=%lld: tid %lld ran %d times", (long long)n, (long long)t, o->count[t]);
    for (int64_t t = n; t < MAXN; t++) CHECK(o->count[t] == 0, "n=%lld: tid %lld out of range ran", (long long)n, (long long)t);
    CHECK(o->size_ok == n, "n=%lld: team size seen right by %d threads", (long long)n, o->size_ok);
    CHECK(pthread_equal(o->self[0], pthread_self()), "n=%lld: the caller does not run tid 0", (long long)n);
    for (int64_t a = 0; a < n; a++)
      for (int64_t b = a + 1; b < n; b++)
        CHECK(!pthread_equal(o->self[a], o->self[b]), "n=%lld: tids %lld and %lld share a thread", (long long)n,
              (long long)a, (long long)b);
    free(o);
  }
  CHECK(parray_team_size(NULL) == 0, "size of a null team");
  parray_team_sync(NULL); /* a no-op */
}

/* ------------------------------------------------------------ phased stencil */

/* Phase k: v[k+1][i] = (v[k][i-1] + 2 v[k][i] + 3 v[k][i+1]) mod M over a ring,
 * thread t owning cells [t*C, (t+1)*C).  Rows are kept for every phase, so a
 * thread that runs ahead of its neighbours reads a row they have not written
 * yet (still holding the poison value) and the checksum comes out wrong. */
#define CELLS 4 /* per thread */
#define POISON (-1)
typedef struct {
  int64_t n, phases;
  int use_sync;
  _Atomic long *v; /* (phases+1) x (n*CELLS); relaxed atomics: a missing barrier is a wrong answer, not UB */
} stencil_ctx;

static void stencil_body(void *c, parray_team *team, int64_t tid) {
  stencil_ctx *s = c;
  int64_t w = s->n * CELLS;
  for (int64_t k = 0; k < s->phases; k++) {
    _Atomic long *cur = s->v + k * w, *nxt = cur + w;
    for (int64_t i = tid * CELLS; i < (tid + 1) * CELLS; i++) {
      long a = atomic_load_explicit(&cur[(i + w - 1) % w], memory_order_relaxed);
      long b = atomic_load_explicit(&cur[i], memory_order_relaxed);
      long d = atomic_load_explicit(&cur[(i + 1) % w], memory_order_relaxed);
      atomic_store_explicit(&nxt[i], (a + 2 * b + 3 * d) % 1000003, memory_order_relaxed);
    }
    if (s->use_sync) parray_team_sync(team);
  }
}

/* Runs the stencil; returns 1 when the last row equals the serial answer. */
static int stencil_run(int64_t n, int64_t phases, int use_sync) {
  int64_t w = n * CELLS;
  stencil_ctx s = {n, phases, use_sync, malloc(sizeof(_Atomic long) * (size_t)(w * (phases + 1)))};
  long *ref = malloc(sizeof(long) * (size_t)w), *tmp = malloc(sizeof(long) * (size_t)w);
  for (int64_t i = 0; i < w * (phases + 1); i++) atomic_init(&s.v[i], i < w ? (long)((i * 7919) % 1000) : POISON);
  for (int64_t i = 0; i < w; i++) ref[i] = (i * 7919) % 1000;
  for (int64_t k = 0; k < phases; k++) {
    for (int64_t i = 0; i < w; i++) tmp[i] = (ref[(i + w - 1) % w] + 2 * ref[i] + 3 * ref[(i + 1) % w]) % 1000003;
    memcpy(ref, tmp, sizeof(long) * (size_t)w);
  }
  RUN_OK(n, stencil_body, &s);
  int same = 1;
  for (int64_t i = 0; i < w; i++) same &= atomic_load(&s.v[phases * w + i]) == ref[i];
  free(s.v);
  free(ref);
  free(tmp);
  return same;
}

static void test_barrier(void) {
  static const int64_t sizes[] = {2, 3, 4, 7, 16};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
    CHECK(stencil_run(sizes[k], 500, 1), "stencil with #sync, n=%lld: wrong answer", (long long)sizes[k]);
  /* The same computation without the barrier must go wrong (else the test
   * above proves nothing).  It does so every time in practice; allow five. */
  int wrong = 0;
  for (int tries = 0; tries < 5 && !wrong; tries++) wrong = !stencil_run(16, 500, 0);
  CHECK(wrong, "the stencil without #sync gave the right answer five times: the test is not sensitive");
}

/* 64 threads on however few cores: barriers must block or yield, not spin forever. */
static void test_oversubscribed(void) {
  CHECK(stencil_run(64, 300, 1), "stencil with #sync, n=64: wrong answer");
  CHECK(stencil_run(128, 50, 1), "stencil with #sync, n=128: wrong answer");
}

/* ------------------------------------------------------------ nested */

typedef struct {
  int64_t outer, inner, innermost;
  _Atomic int *count; /* outer*inner*innermost */
  _Atomic int bad;
} nest_ctx;
typedef struct {
  nest_ctx *c;
  int64_t o, i;
  _Atomic int arrived;
} nest_inner_ctx;

static void nest_level3(void *c, parray_team *team, int64_t tid) {
  nest_inner_ctx *x = c;
  nest_ctx *n = x->c;
  atomic_fetch_add(&n->count[(x->o * n->inner + x->i) * n->innermost + tid], 1);
  atomic_fetch_add(&x->arrived, 1);
  parray_team_sync(team);
  if (atomic_load(&x->arrived) != n->innermost || parray_team_size(team) != n->innermost) atomic_fetch_add(&n->bad, 1);
}

static void nest_level2(void *c, parray_team *team, int64_t tid) {
  nest_inner_ctx *x = c;
  nest_inner_ctx y = {x->c, x->o, tid, 0};
  parray_team_sync(team); /* barriers of the outer teams keep working around nested runs */
  if (parray_pthd_run(x->c->innermost, nest_level3, &y) != PARRAY_OK) atomic_fetch_add(&x->c->bad, 1);
  parray_team_sync(team);
}

static void nest_level1(void *c, parray_team *team, int64_t tid) {
  nest_ctx *n = c;
  nest_inner_ctx x = {n, tid, 0, 0};
  for (int rep = 0; rep < 3; rep++) {
    if (parray_pthd_run(n->inner, nest_level2, &x) != PARRAY_OK) atomic_fetch_add(&n->bad, 1);
    parray_team_sync(team);
  }
}

static void test_nested(void) {
  static const int64_t shapes[][3] = {{2, 2, 2}, {4, 3, 2}, {3, 1, 5}, {1, 4, 1}};
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
    nest_ctx n = {shapes[k][0], shapes[k][1], shapes[k][2], NULL, 0};
    int64_t total = n.outer * n.inner * n.innermost;
    n.count = calloc((size_t)total, sizeof(_Atomic int));
    RUN_OK(n.outer, nest_level1, &n);
    for (int64_t t = 0; t < total; t++)
      CHECK(n.count[t] == 3, "nested %lldx%lldx%lld: leaf %lld ran %d times (want 3)", (long long)n.outer,
            (long long)n.inner, (long long)n.innermost, (long long)t, n.count[t]);
    CHECK(n.bad == 0, "nested %lldx%lldx%lld: %d failures inside", (long long)n.outer, (long long)n.inner,
          (long long)n.innermost, n.bad);
    free(n.count);
  }
}

/* ------------------------------------------------------------ repeated */

typedef struct {
  _Atomic long sum;
} sum_ctx;
static void sum_body(void *c, parray_team *team, int64_t tid) {
  sum_ctx *s = c;
  (void)team;
  atomic_fetch_add_explicit(&s->sum, tid + 1, memory_order_relaxed);
}

static void test_repeat(void) {
  const int64_t n = 4;
  sum_ctx s = {0};
  parray_pthd_shutdown(); /* start from an empty pool */
  RUN_OK(n, sum_body, &s);
  int64_t created = parray_pthd_threads_created();
  int bad = 0;
  for (int r = 0; r < 10000; r++) {
    atomic_store(&s.sum, 0);
    if (parray_pthd_run(n, sum_body, &s) != PARRAY_OK || atomic_load(&s.sum) != n * (n + 1) / 2) bad++;
  }
  CHECK(bad == 0, "%d of 10000 repeated detours went wrong", bad);
  CHECK(parray_pthd_threads_created() == created, "the pool created %lld threads for 10000 detours of %lld (want 0)",
        (long long)(parray_pthd_threads_created() - created), (long long)n);
  CHECK(parray_pthd_threads_idle() == n - 1, "idle pool threads %lld, want %lld", (long long)parray_pthd_threads_idle(),
        (long long)(n - 1));
}

/* ------------------------------------------------------------ concurrent callers */

static void *app_thread(void *arg) {
  long id = (long)(intptr_t)arg;
  int64_t n = 2 + id % 3;
  long *bad = calloc(1, sizeof(long));
  for (int r = 0; r < 300; r++) {
    sum_ctx s = {0};
    if (parray_pthd_run(n, sum_body, &s) != PARRAY_OK || atomic_load(&s.sum) != n * (n + 1) / 2) ++*bad;
    if (r % 30 == 0 && !stencil_run(n, 40, 1)) ++*bad;
  }
  return bad;
}

static void test_concurrent(void) {
  enum { APPS = 6 };
  pthread_t th[APPS];
  for (long i = 0; i < APPS; i++) CHECK(pthread_create(&th[i], NULL, app_thread, (void *)(intptr_t)i) == 0, "create");
  for (int i = 0; i < APPS; i++) {
    void *r;
    pthread_join(th[i], &r);
    CHECK(*(long *)r == 0, "application thread %d: %ld detours went wrong", i, *(long *)r);
    free(r);
  }
}

/* ------------------------------------------------------------ errors, shutdown */

static void test_errors(void) {
  sum_ctx s = {0};
  parray_set_error("%s", "");
  CHECK(parray_pthd_run(0, sum_body, &s) == PARRAY_ERR_INVALID, "n=0");
  CHECK(strlen(parray_last_error()) > 0, "n=0 sets no error text");
  CHECK(parray_pthd_run(-3, sum_body, &s) == PARRAY_ERR_INVALID, "n=-3");
  parray_set_error("%s", "");
  CHECK(parray_pthd_run(4, NULL, &s) == PARRAY_ERR_INVALID, "null body");
  CHECK(strlen(parray_last_error()) > 0, "null body sets no error text");
  CHECK(parray_pthd_run((int64_t)1 << 40, sum_body, &s) == PARRAY_ERR_THREAD, "n=2^40");
  CHECK(atomic_load(&s.sum) == 0, "a failed detour ran bodies");
}

/* With PARRAY_PTHD_MAX_THREADS=4 (read at the first detour, so this case
 * runs alone in its process) the pool may hold 4 threads: a detour of 5 works
 * and one of 6 fails with a message, running nothing. */
static void test_thread_limit(void) {
  sum_ctx s = {0};
  setenv("PARRAY_PTHD_MAX_THREADS", "4", 1);
  RUN_OK(5, sum_body, &s);
  CHECK(atomic_load(&s.sum) == 15, "sum %ld", atomic_load(&s.sum));
  atomic_store(&s.sum, 0);
  parray_status st = parray_pthd_run(6, sum_body, &s);
  CHECK(st == PARRAY_ERR_THREAD, "n=6 over a limit of 4 threads: %s", parray_status_str(st));
  CHECK(strstr(parray_last_error(), "cannot create a thread") != NULL, "error text: '%s'", parray_last_error());
  printf("expected error: %s\n", parray_last_error());
  CHECK(atomic_load(&s.sum) == 0, "a failed detour ran bodies");
  CHECK(parray_pthd_threads_idle() == 4, "the failed detour lost pool threads: %lld idle", (long long)parray_pthd_threads_idle());
  RUN_OK(5, sum_body, &s); /* the pool still works */
  CHECK(atomic_load(&s.sum) == 15, "sum after failure %ld", atomic_load(&s.sum));
}

static void test_shutdown(void) {
  sum_ctx s = {0};
  parray_pthd_shutdown(); /* empty the pool (or nothing to do in a fresh process) */
  RUN_OK(8, sum_body, &s);
  CHECK(parray_pthd_threads_idle() == 7, "idle %lld", (long long)parray_pthd_threads_idle());
  parray_pthd_shutdown();
  CHECK(parray_pthd_threads_idle() == 0, "idle after shutdown %lld", (long long)parray_pthd_threads_idle());
  parray_pthd_shutdown(); /* idempotent */
  int64_t created = parray_pthd_threads_created();
  atomic_store(&s.sum, 0);
  RUN_OK(3, sum_body, &s); /* the pool comes back */
  CHECK(atomic_load(&s.sum) == 6, "sum after shutdown %ld", atomic_load(&s.sum));
  CHECK(parray_pthd_threads_created() == created + 2, "created %lld", (long long)(parray_pthd_threads_created() - created));
  parray_pthd_shutdown();
}

/* A child forked after detours has none of the parent's pool threads: its
 * detours must create their own instead of waiting for absent ones. */
static void test_fork(void) {
  sum_ctx s = {0};
  RUN_OK(4, sum_body, &s);
  pid_t pid = fork();
  if (pid == 0) {
    sum_ctx c = {0};
    int ok = parray_pthd_run(4, sum_body, &c) == PARRAY_OK && atomic_load(&c.sum) == 10 && stencil_run(5, 50, 1);
    _exit(ok ? 0 : 3);
  }
  CHECK(pid > 0, "fork failed");
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "the forked child's detour failed (status %d)", status);
  atomic_store(&s.sum, 0);
  RUN_OK(4, sum_body, &s);
  CHECK(atomic_load(&s.sum) == 10, "parent after fork: sum %ld", atomic_load(&s.sum));
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*fn)(void);
  } tests[] = {{"once", test_once},         {"barrier", test_barrier},       {"oversubscribed", test_oversubscribed},
               {"nested", test_nested},     {"repeat", test_repeat},         {"concurrent", test_concurrent},
               {"errors", test_errors},       {"fork", test_fork},     {"thread_limit", test_thread_limit}, {"shutdown", test_shutdown}};
  int ran = 0;
  for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
    /* No argument: all but thread_limit (which needs its environment). */
    if (argc > 1 ? strcmp(argv[1], tests[i].name) != 0 : strcmp(tests[i].name, "thread_limit") == 0) continue;
    tests[i].fn();
    ran++;
  }
  if (!ran) {
    fprintf(stderr, "unknown test '%s'\n", argv[1]);
    return 2;
  }
  parray_pthd_shutdown();
  if (failures) {
    fprintf(stderr, "%d checks failed\n", atomic_load(&failures));
    return 1;
  }
  printf("ok\n");
  return 0;
}
