/* test_mpi_rt.c - tests of the mpi runtime (runtime/mpi.c, mpi_copy.c,
 * mpi_copy_split.c), written the way the translator's generated code uses the API: a
 * #mainhost function, a table of outlined detour bodies and one context
 * struct of captured values per detour. Run as
 *   mpirun --allow-run-as-root --oversubscribe -np 4 test_mpi_rt CASE
 * Process 0 counts failed checks; bodies report theirs through a
 * distributed error array gathered to process 0. Cases that must end the
 * job with an error (toofew, bodyfatal, exit) are checked by expect_exit.sh. */
#define _GNU_SOURCE
#include "parray/mpi.h"

#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int failures;
#define CHECK(c)                                                                                                      \
  do {                                                                                                                \
    if (!(c)) {                                                                                                       \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                                           \
      failures++;                                                                                                     \
    }                                                                                                                 \
  } while (0)
/* Generated code stops the program on a failed runtime call like this. */
#define RT(call)                                                                                                      \
  do {                                                                                                                \
    if ((call) != PARRAY_OK) parray_fatal_at(__FILE__, __LINE__, #call, "%s", parray_last_error());                   \
  } while (0)

#define NP 4 /* the job's size in every test */

/* The runtime's own view of shared blocks (hidden from programs, linked in
 * here statically): with PARRAY_MPI_SHARED=1 every block must be shared,
 * with =0 none. */
char *const *rmpi_blocks(int handle);
static int shared_env(void) {
  const char *v = getenv("PARRAY_MPI_SHARED");
  return v && !strcmp(v, "1") ? 1 : v && !strcmp(v, "0") ? 0 : -1;
}

/* ---- error reporting: a distributed int array [#P][8] ----------------------- */

static int err_create(void) {
  int h = parray_mpi_create(8 * sizeof(int), NP);
  if (h < 0) parray_fatal_at(__FILE__, __LINE__, "#create ERR", "%s", parray_last_error());
  return h;
}

/* Gather ERR (modes [#P][8]) into out[NP][8] on process 0. */
static void err_gather(int h, int out[NP][8]) {
  static const int64_t shape[2] = {NP, 8}, src_local[2] = {0, 1}, src_proc[2] = {1, 0}, dst_local[2] = {8, 1};
  parray_mpi_side src = {h, NULL, src_local, src_proc, 0}, dst = {-1, out, dst_local, NULL, 0};
  memset(out, 0xff, sizeof(int) * NP * 8);
  RT(parray_mpi_copy(&dst, &src, shape, 2, sizeof(int)));
}

/* ---- case detour: captured scalars, tid, copies of the context ------------ */

struct ctx_scalars {
  int i;
  double x;
  float f;
  int64_t big;
  char c;
  int err; /* handle of ERR */
};
static void body_scalars(void *vctx, int64_t tid) {
  struct ctx_scalars *c = vctx;
  int *e = parray_mpi_local(c->err);
  e[0] = (int)tid;
  e[1] = c->i + (int)tid;
  e[2] = c->x == 2.5;
  e[3] = c->f == -1.25f;
  e[4] = c->big == ((int64_t)1 << 40) + 7;
  e[5] = c->c == 'q';
  e[6] = parray_mpi_rank() == tid && parray_mpi_size() == NP;
  e[7] = ((uintptr_t)vctx % 16) == 0;
  c->i = -1000; /* a private copy: the caller must not see this */
}

struct ctx_large {
  double v[100]; /* larger than what travels inside a command header */
  int err;
};
static void body_large(void *vctx, int64_t tid) {
  struct ctx_large *c = vctx;
  double s = 0;
  for (int k = 0; k < 100; k++) s += c->v[k];
  int *e = parray_mpi_local(c->err);
  e[0] = (int)tid;
  e[1] = s == 99.0 * 100.0 / 2.0 && c->v[99] == 99.0; /* v[k] = k */
}

struct ctx_count {
  int iter, acc; /* acc: handle of a [#P][1] int64 accumulator */
};
static void body_count(void *vctx, int64_t tid) {
  struct ctx_count *c = vctx;
  int64_t *a = parray_mpi_local(c->acc);
  *a += c->iter + tid;
}

/* CPU time this process has used, in microseconds. */
static void body_cputime(void *vctx, int64_t tid) {
  (void)tid;
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  int *e = parray_mpi_local(*(int *)vctx);
  e[0] = (int)(ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

static void body_fewer(void *vctx, int64_t tid) {
  int *e = parray_mpi_local(*(int *)vctx);
  e[0] = 100 + (int)tid;
}

/* ---- case arrays: which processes hold blocks; blocks keep their data ---- */

struct ctx_arrays {
  int err, h2, h3, phase;
};
static void body_arrays(void *vctx, int64_t tid) {
  struct ctx_arrays *c = vctx;
  int *e = parray_mpi_local(c->err);
  unsigned char *b2 = parray_mpi_local(c->h2), *b3 = parray_mpi_local(c->h3);
  e[0] = (int)tid;
  e[1] = b2 != NULL;
  e[2] = b2 == NULL || (uintptr_t)b2 % 64 == 0;
  e[3] = b3 != NULL && (uintptr_t)b3 % 64 == 0;
  if (c->phase == 0) {
    for (int k = 0; k < 5000; k++) b3[k] = (unsigned char)(k * 7 + tid);
  } else {
    int bad = 0;
    for (int k = 0; k < 5000; k++) bad += b3[k] != (unsigned char)(k * 7 + tid);
    e[4] = bad;
  }
}

/* ---- case sync: a phased computation in memory shared by the processes ----- */

struct ctx_sync {
  int pid; /* process 0's pid: names the shared file */
  int iters, np;
};
static double *shared_map(int pid, int create) {
  char name[64];
  snprintf(name, sizeof name, "/parray_mpi_rt_%d", pid);
  int fd = create ? shm_open(name, O_CREAT | O_RDWR | O_TRUNC, 0600) : shm_open(name, O_RDWR, 0600);
  if (fd < 0) return NULL;
  if (create && ftruncate(fd, 4096) != 0) return NULL;
  void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return p == MAP_FAILED ? NULL : p;
}
/* buf[2][NP] double buffer: step t reads buf[t%2], writes buf[(t+1)%2][tid]
 * = own + right neighbour; #sync between steps. Processes are delayed
 * unevenly so that a missing barrier reads stale or half-updated values. */
static void body_sync(void *vctx, int64_t tid) {
  struct ctx_sync *c = vctx;
  volatile double *buf = shared_map(c->pid, 0);
  if (!buf) parray_fatal_at(__FILE__, __LINE__, "shm_open", "process %lld cannot map the shared file", (long long)tid);
  for (int t = 0; t < c->iters; t++) {
    volatile double *cur = buf + (t % 2) * NP, *nxt = buf + ((t + 1) % 2) * NP;
    double v = cur[tid] + cur[(tid + 1) % c->np];
    struct timespec ts = {0, (long)(((tid * 7 + t * 3) % 5) * 300000L)};
    nanosleep(&ts, NULL);
    nxt[tid] = v;
    parray_mpi_sync();
  }
  munmap((void *)buf, 4096);
}

/* ---- scatter / gather / redistribution of a [N][N] float matrix ------------ */

#define N 256
#define NB (N / NP)

struct ctx_rows {
  int d, err;
  float scale;
};
/* ROWS = [[#P][NB]][N]: check the block, then scale it by scale + tid. */
static void body_rows(void *vctx, int64_t tid) {
  struct ctx_rows *c = vctx;
  float *d = parray_mpi_local(c->d);
  int bad = 0;
  for (int i = 0; i < NB; i++)
    for (int j = 0; j < N; j++) {
      int gi = (int)tid * NB + i;
      if (d[i * N + j] != (float)(gi * N + j)) bad++;
      d[i * N + j] *= c->scale + (float)tid;
    }
  int *e = parray_mpi_local(c->err);
  e[0] = bad;
}
/* COLS = [N][[#P][NB]]: column block tid of the scaled matrix. */
static void body_cols(void *vctx, int64_t tid) {
  struct ctx_rows *c = vctx;
  float *d = parray_mpi_local(c->d);
  int bad = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < NB; j++) {
      int gj = (int)tid * NB + j;
      float want = (float)(i * N + gj) * (c->scale + (float)(i / NB));
      if (d[i * NB + j] != want) bad++;
    }
  int *e = parray_mpi_local(c->err);
  e[0] = bad;
}

/* ---- random layouts: scatter -> check -> redistribute -> check -> gather ---- */

#define MM 6
typedef struct layout {
  int64_t proc[MM], local[MM];
  int64_t nprocs, block; /* processes, elements per local block */
} layout;
struct ctx_check {
  int n, es, d, err;
  int64_t shape[MM];
  layout l;
};
/* Element value: bytes of the row-major linear index (little-endian), es of them. */
static void put_value(unsigned char *p, int64_t lin, int es) {
  for (int b = 0; b < es; b++) p[b] = (unsigned char)(b < 8 ? (uint64_t)lin >> (8 * b) : 0xa5);
}
/* The offset of row-major element lin of shape in a host array with these strides. */
static int64_t host_off(const int64_t *shape, int n, const int64_t *strides, int64_t lin) {
  int64_t off = 0;
  for (int k = n - 1; k >= 0; k--) off += lin % shape[k] * strides[k], lin /= shape[k];
  return off;
}
static int value_ok(const unsigned char *p, int64_t lin, int es) {
  unsigned char w[16];
  put_value(w, lin, es);
  return memcmp(p, w, (size_t)es) == 0;
}
/* Naive full scan (test sizes are small): every element this process owns. */
static void body_check(void *vctx, int64_t tid) {
  struct ctx_check *c = vctx;
  const unsigned char *d = parray_mpi_local(c->d);
  int64_t total = 1, idx[MM] = {0};
  for (int k = 0; k < c->n; k++) total *= c->shape[k];
  int bad = 0, seen = 0;
  for (int64_t lin = 0; lin < total; lin++) {
    int64_t r = lin, p = 0, off = 0;
    for (int k = c->n - 1; k >= 0; k--) idx[k] = r % c->shape[k], r /= c->shape[k];
    for (int k = 0; k < c->n; k++) p += idx[k] * c->l.proc[k], off += idx[k] * c->l.local[k];
    if (p != tid) continue;
    seen++;
    if (!value_ok(d + off * c->es, lin, c->es)) bad++;
  }
  int *e = parray_mpi_local(c->err);
  e[0] = bad;
  e[1] = seen;
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(uint64_t n) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng % n;
}

/* A random distribution of `shape`: some modes (extents 2..4 multiplying to
 * at most NP) select the process with mixed-radix strides; the others are
 * laid out row-major in a random order, sometimes with padding. Now and then
 * a process mode also keeps a local stride, or a local mode also adds to the
 * process index (process maps that are not one-to-one, so that one pair of
 * processes exchanges several blocks). */
static layout random_layout(const int64_t *shape, int n) {
  layout l;
  memset(&l, 0, sizeof l);
  int perm[MM];
  for (int k = 0; k < n; k++) perm[k] = k;
  for (int k = n - 1; k > 0; k--) {
    int j = (int)rnd((uint64_t)k + 1), t = perm[k];
    perm[k] = perm[j], perm[j] = t;
  }
  int isproc[MM] = {0}, islocal[MM];
  int64_t np = 1;
  for (int k = 0; k < n; k++)
    if (shape[perm[k]] > 1 && np * shape[perm[k]] <= NP && rnd(3) != 0) isproc[perm[k]] = 1, np *= shape[perm[k]];
  int64_t pstride = 1;
  for (int k = n - 1; k >= 0; k--)
    if (isproc[k]) l.proc[k] = pstride, pstride *= shape[k];
  for (int k = 0; k < n; k++) islocal[k] = !isproc[k] || rnd(4) == 0;
  for (int k = 0; k < n; k++) /* a local mode that also moves the process */
    if (!isproc[k] && shape[k] > 1 && (np - 1) + (shape[k] - 1) <= NP - 1 && rnd(4) == 0)
      l.proc[k] = 1, np += shape[k] - 1;
  int64_t ls = 1 + (int64_t)rnd(2) * 3; /* innermost stride 1 or 4 (padding) */
  for (int k = n - 1; k >= 0; k--)
    if (islocal[perm[k]]) l.local[perm[k]] = ls, ls *= shape[perm[k]];
  l.nprocs = np + (int64_t)rnd(NP - np + 1); /* sometimes more processes than used */
  l.block = ls + (int64_t)rnd(3);
  return l;
}

/* ---- the main host ------------------------------------------------------- */

enum { B_SCALARS, B_LARGE, B_COUNT, B_CPUTIME, B_FEWER, B_ARRAYS, B_SYNC, B_ROWS, B_COLS, B_CHECK, B_FATAL, NBODIES };

static void body_fatal(void *vctx, int64_t tid) {
  (void)vctx;
  if (tid == 2) parray_fatal_at("bodyfatal.pc", 9, "#detour P", "boom on process %lld", (long long)tid);
  sleep(30); /* the others must be ended by the abort, not by finishing */
}

static const parray_mpi_body bodies[NBODIES] = {body_scalars, body_large, body_count, body_cputime, body_fewer, body_arrays,
                                                body_sync,    body_rows,  body_cols,  body_check, body_fatal};

static void case_detour(void) {
  int err = err_create(), out[NP][8];
  struct ctx_scalars cs = {.i = 41, .x = 2.5, .f = -1.25f, .big = ((int64_t)1 << 40) + 7, .c = 'q', .err = err};
  RT(parray_mpi_detour(B_SCALARS, &cs, sizeof cs, NP));
  CHECK(cs.i == 41);
  err_gather(err, out);
  for (int p = 0; p < NP; p++) {
    CHECK(out[p][0] == p);
    CHECK(out[p][1] == 41 + p);
    for (int k = 2; k < 8; k++) CHECK(out[p][k] == 1);
  }
  struct ctx_large cl;
  for (int k = 0; k < 100; k++) cl.v[k] = k;
  cl.err = err;
  RT(parray_mpi_detour(B_LARGE, &cl, sizeof cl, NP));
  err_gather(err, out);
  for (int p = 0; p < NP; p++) CHECK(out[p][0] == p && out[p][1] == 1);

  /* Fewer processes than the job: ranks 2, 3 must not run the body. */
  RT(parray_mpi_detour(B_SCALARS, &cs, sizeof cs, NP)); /* sets e[0] = tid */
  RT(parray_mpi_detour(B_FEWER, &err, sizeof err, 2));
  err_gather(err, out);
  CHECK(out[0][0] == 100 && out[1][0] == 101 && out[2][0] == 2 && out[3][0] == 3);

  /* Many detours in a row keep their order; report the cost per detour. */
  int acc = parray_mpi_create(sizeof(int64_t), NP);
  CHECK(acc >= 0);
  struct ctx_count cc = {0, acc};
  int64_t zero[NP] = {0}, sum[NP];
  static const int64_t sh[1] = {NP}, one[1] = {1}, zl[1] = {0};
  parray_mpi_side hz = {-1, zero, one, NULL, 0}, hs = {-1, sum, one, NULL, 0}, da = {acc, NULL, zl, one, 0};
  RT(parray_mpi_copy(&da, &hz, sh, 1, sizeof(int64_t)));
  const int reps = 300;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (cc.iter = 0; cc.iter < reps; cc.iter++) RT(parray_mpi_detour(B_COUNT, &cc, sizeof cc, NP));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  RT(parray_mpi_copy(&hs, &da, sh, 1, sizeof(int64_t)));
  for (int p = 0; p < NP; p++) CHECK(sum[p] == (int64_t)reps * (reps - 1) / 2 + (int64_t)reps * p);
  printf("detour round trip: %.1f us (%d detours on %d processes)\n",
         ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / reps / 1e3, reps, NP);

  /* While process 0 runs 1 s of host code, the idle dispatchers nap instead
   * of spinning: each may use only a small part of a core meanwhile. */
  int before[NP][8], after[NP][8];
  RT(parray_mpi_detour(B_CPUTIME, &err, sizeof err, NP));
  err_gather(err, before);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do clock_gettime(CLOCK_MONOTONIC, &t1);
  while ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec) < 1e9);
  RT(parray_mpi_detour(B_CPUTIME, &err, sizeof err, NP));
  err_gather(err, after);
  for (int p = 1; p < NP; p++) {
    printf("process %d used %.3f s of CPU while idle for 1 s\n", p, (after[p][0] - before[p][0]) / 1e6);
    CHECK(after[p][0] - before[p][0] < 250000);
  }

  /* Bad calls return errors and leave the job working. */
  CHECK(parray_mpi_detour(NBODIES, &cs, sizeof cs, NP) == PARRAY_ERR_INVALID);
  CHECK(parray_mpi_detour(B_SCALARS, &cs, sizeof cs, 0) == PARRAY_ERR_INVALID);
  parray_mpi_destroy(acc);
  parray_mpi_destroy(err);
}

static void case_sync(void) {
  int pid = (int)getpid();
  double *buf = shared_map(pid, 1);
  CHECK(buf != NULL);
  if (!buf) return;
  for (int np = 2; np <= NP; np++) {
    const int iters = 12;
    for (int p = 0; p < NP; p++) buf[p] = p + 1, buf[NP + p] = -1;
    double ref[2][NP];
    for (int p = 0; p < np; p++) ref[0][p] = p + 1;
    for (int t = 0; t < iters; t++)
      for (int p = 0; p < np; p++) ref[(t + 1) % 2][p] = ref[t % 2][p] + ref[t % 2][(p + 1) % np];
    struct ctx_sync c = {pid, iters, np};
    RT(parray_mpi_detour(B_SYNC, &c, sizeof c, np)); /* #sync over np of the 4 processes */
    for (int p = 0; p < np; p++) CHECK(buf[(iters % 2) * NP + p] == ref[iters % 2][p]);
  }
  char name[64];
  snprintf(name, sizeof name, "/parray_mpi_rt_%d", pid);
  shm_unlink(name);
  munmap(buf, 4096);
}

static void case_arrays(void) {
  int err = err_create(), out[NP][8];
  int h1 = parray_mpi_create(1000, NP), h2 = parray_mpi_create(64, 2);
  CHECK(h1 >= 0 && h2 >= 0 && h1 != h2 && h1 != err && h2 != err);
  parray_mpi_destroy(h1);
  int h3 = parray_mpi_create(5000, NP);
  CHECK(h3 == h1); /* the freed slot is reused, the same on every process */
  CHECK(parray_mpi_local(h2) != NULL && (uintptr_t)parray_mpi_local(h2) % 64 == 0);
  CHECK(parray_mpi_local(-1) == NULL && parray_mpi_local(999) == NULL);
  CHECK(parray_mpi_create(16, NP + 4) == -1);
  CHECK(strstr(parray_last_error(), "mpirun -np 8") != NULL);
  CHECK(parray_mpi_create(16, 0) == -1);
  /* In detours: which processes hold blocks, alignment, data kept. */
  struct ctx_arrays ca = {err, h2, h3, 0};
  RT(parray_mpi_detour(B_ARRAYS, &ca, sizeof ca, NP));
  if (shared_env() == 1) { /* every process's block, as process 0 maps it, holds what that process wrote */
    char *const *b = rmpi_blocks(h3);
    CHECK(b != NULL && rmpi_blocks(h2) != NULL && rmpi_blocks(h2)[2] == NULL);
    for (int p = 0; b && p < NP; p++) {
      int bad = b[p] == NULL || (uintptr_t)b[p] % 64 != 0;
      for (int k = 0; !bad && k < 5000; k++) bad = (unsigned char)b[p][k] != (unsigned char)(k * 7 + p);
      CHECK(!bad);
    }
  } else if (shared_env() == 0) {
    CHECK(rmpi_blocks(h3) == NULL);
  }
  ca.phase = 1;
  RT(parray_mpi_detour(B_ARRAYS, &ca, sizeof ca, NP));
  err_gather(err, out);
  for (int p = 0; p < NP; p++) {
    CHECK(out[p][0] == p);
    CHECK(out[p][1] == (p < 2));
    CHECK(out[p][2] == 1 && out[p][3] == 1 && out[p][4] == 0);
  }
  parray_mpi_destroy(h3);
  parray_mpi_destroy(h2);
  parray_mpi_destroy(h2); /* already gone: ignored with an error text */
  CHECK(strstr(parray_last_error(), "not a live") != NULL);
  parray_mpi_destroy(err);
}

static void case_matrix(void) {
  float *h = parray_host_alloc(PARRAY_PAGED, sizeof(float) * N * N);
  float *g = parray_host_alloc(PARRAY_PAGED, sizeof(float) * N * N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) h[i * N + j] = (float)(i * N + j);
  int err = err_create(), out[NP][8];
  int rows = parray_mpi_create(sizeof(float) * NB * N, NP), cols = parray_mpi_create(sizeof(float) * N * NB, NP);
  CHECK(rows >= 0 && cols >= 0);
  /* Common modes (a, b, c, d): i = a*NB + b, j = c*NB + d. */
  const int64_t shape[4] = {NP, NB, NP, NB};
  const int64_t h_local[4] = {NB * N, N, NB, 1}, h_proc[4] = {0, 0, 0, 0};
  const int64_t r_local[4] = {0, N, NB, 1}, r_proc[4] = {1, 0, 0, 0};
  const int64_t c_local[4] = {NB * NB, NB, 0, 1}, c_proc[4] = {0, 0, 1, 0};
  parray_mpi_side H = {-1, h, h_local, h_proc, 0}, G = {-1, g, h_local, NULL, 0};
  parray_mpi_side R = {rows, NULL, r_local, r_proc, 0}, C = {cols, NULL, c_local, c_proc, 0};
  RT(parray_mpi_copy(&R, &H, shape, 4, sizeof(float))); /* scatter rows */
  struct ctx_rows cr = {rows, err, 2.0f};
  RT(parray_mpi_detour(B_ROWS, &cr, sizeof cr, NP));
  err_gather(err, out);
  for (int p = 0; p < NP; p++) CHECK(out[p][0] == 0);
  RT(parray_mpi_copy(&C, &R, shape, 4, sizeof(float))); /* all-to-all rows -> columns */
  cr.d = cols;
  RT(parray_mpi_detour(B_COLS, &cr, sizeof cr, NP));
  err_gather(err, out);
  for (int p = 0; p < NP; p++) CHECK(out[p][0] == 0);
  memset(g, 0xff, sizeof(float) * N * N);
  RT(parray_mpi_copy(&G, &C, shape, 4, sizeof(float))); /* gather columns */
  int bad = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) bad += g[i * N + j] != (float)(i * N + j) * (2.0f + (float)(i / NB));
  CHECK(bad == 0);
  /* columns -> rows -> gather: the same matrix again. */
  RT(parray_mpi_copy(&R, &C, shape, 4, sizeof(float)));
  memset(g, 0xff, sizeof(float) * N * N);
  RT(parray_mpi_copy(&G, &R, shape, 4, sizeof(float)));
  bad = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) bad += g[i * N + j] != (float)(i * N + j) * (2.0f + (float)(i / NB));
  CHECK(bad == 0);
  /* Scatter to 2 of the 4 processes and back (a transposed gather). */
  int half = parray_mpi_create(sizeof(float) * N * N / 2, 2);
  const int64_t s2[3] = {2, N / 2, N}, h2l[3] = {N * N / 2, N, 1}, t2l[3] = {0, 1, N / 2}, p2[3] = {1, 0, 0};
  const int64_t gl[3] = {N / 2, 1, N}; /* gather into g transposed: g[j][i] */
  parray_mpi_side H2 = {-1, h, h2l, NULL, 0}, D2 = {half, NULL, t2l, p2, 0}, G2 = {-1, g, gl, NULL, 0};
  RT(parray_mpi_copy(&D2, &H2, s2, 3, sizeof(float)));
  RT(parray_mpi_copy(&G2, &D2, s2, 3, sizeof(float)));
  bad = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) bad += g[j * N + i] != (float)(i * N + j);
  CHECK(bad == 0);
  /* Errors: out-of-range process strides, a block too small, same array. */
  const int64_t big_proc[4] = {2, 0, 0, 0};
  parray_mpi_side Rbad = {rows, NULL, r_local, big_proc, 0};
  CHECK(parray_mpi_copy(&Rbad, &H, shape, 4, sizeof(float)) == PARRAY_ERR_INVALID);
  CHECK(parray_mpi_copy(&R, &H, shape, 4, sizeof(double)) == PARRAY_ERR_INVALID);
  CHECK(parray_mpi_copy(&R, &R, shape, 4, sizeof(float)) == PARRAY_ERR_UNSUPPORTED);
  /* base offsets: negative, past the block, on a process-0 buffer */
  parray_mpi_side Rneg = R, Rpast = R, Hbase = H;
  Rneg.base = -1, Rpast.base = 1, Hbase.base = 1;
  CHECK(parray_mpi_copy(&Rneg, &H, shape, 4, sizeof(float)) == PARRAY_ERR_INVALID);
  CHECK(parray_mpi_copy(&Rpast, &H, shape, 4, sizeof(float)) == PARRAY_ERR_INVALID);
  CHECK(strstr(parray_last_error(), "starting at element 1") != NULL);
  CHECK(parray_mpi_copy(&R, &Hbase, shape, 4, sizeof(float)) == PARRAY_ERR_INVALID);
  parray_mpi_destroy(half);
  parray_mpi_destroy(rows);
  parray_mpi_destroy(cols);
  parray_mpi_destroy(err);
  parray_host_free(PARRAY_PAGED, h, sizeof(float) * N * N);
  parray_host_free(PARRAY_PAGED, g, sizeof(float) * N * N);
}

/* Host layout: row-major over a random permutation of the modes. */
static void host_layout(const int64_t *shape, int n, int64_t *local) {
  int perm[MM];
  for (int k = 0; k < n; k++) perm[k] = k;
  for (int k = n - 1; k > 0; k--) {
    int j = (int)rnd((uint64_t)k + 1), t = perm[k];
    perm[k] = perm[j], perm[j] = t;
  }
  int64_t s = 1;
  for (int k = n - 1; k >= 0; k--) local[perm[k]] = s, s *= shape[perm[k]];
}

static int check_dist(int err, int h, const int64_t *shape, int n, int es, const layout *l, int64_t total) {
  struct ctx_check c = {n, es, h, err, {0}, *l};
  memcpy(c.shape, shape, sizeof(int64_t) * (size_t)n);
  RT(parray_mpi_detour(B_CHECK, &c, sizeof c, NP));
  int out[NP][8], bad = 0, seen = 0;
  err_gather(err, out);
  for (int p = 0; p < NP; p++) bad += out[p][0], seen += out[p][1];
  return bad == 0 && seen == total;
}

static void case_random(void) {
  static const int sizes[6] = {1, 2, 3, 4, 8, 12};
  int err = err_create();
  const int trials = 150;
  for (int t = 0; t < trials; t++) {
    int n = 1 + (int)rnd(MM), es = sizes[rnd(6)];
    int64_t shape[MM], total = 1;
    for (int k = 0; k < n; k++) total *= shape[k] = 1 + (int64_t)rnd(total > 400 ? 2 : 5);
    layout a = random_layout(shape, n), b = random_layout(shape, n);
    int64_t hl[MM], gl[MM];
    host_layout(shape, n, hl);
    host_layout(shape, n, gl);
    unsigned char *h = malloc((size_t)(total * es)), *g = malloc((size_t)(total * es));
    for (int64_t lin = 0; lin < total; lin++) put_value(h + host_off(shape, n, hl, lin) * es, lin, es);
    int da = parray_mpi_create((size_t)(a.block * es), a.nprocs), db = parray_mpi_create((size_t)(b.block * es), b.nprocs);
    CHECK(da >= 0 && db >= 0);
    parray_mpi_side H = {-1, h, hl, NULL, 0}, G = {-1, g, gl, NULL, 0};
    parray_mpi_side A = {da, NULL, a.local, a.proc, 0}, B = {db, NULL, b.local, b.proc, 0};
    RT(parray_mpi_copy(&A, &H, shape, n, (size_t)es));
    int ok_a = check_dist(err, da, shape, n, es, &a, total);
    RT(parray_mpi_copy(&B, &A, shape, n, (size_t)es));
    int ok_b = check_dist(err, db, shape, n, es, &b, total);
    memset(g, 0, (size_t)(total * es));
    RT(parray_mpi_copy(&G, &B, shape, n, (size_t)es));
    int ok_g = 1;
    for (int64_t lin = 0; lin < total; lin++) ok_g &= value_ok(g + host_off(shape, n, gl, lin) * es, lin, es);
    if (!ok_a || !ok_b || !ok_g) {
      fprintf(stderr, "trial %d: n=%d es=%d scatter %s, redistribute %s, gather %s\n", t, n, es, ok_a ? "ok" : "BAD",
              ok_b ? "ok" : "BAD", ok_g ? "ok" : "BAD");
      failures++;
    }
    parray_mpi_destroy(da);
    parray_mpi_destroy(db);
    free(h);
    free(g);
  }
  parray_mpi_destroy(err);
}

/* ---- copies planned at run time (parray_mpi_copy_split) ------------------ */

/* One side given modes of its own: each mode of extent n = a*b is, at random,
 * split into (a, stride*b) and (b, stride); now and then a mode of extent 1 is
 * inserted. The element order, local offsets and process indices stay the
 * same, but the two sides of a copy no longer share their modes. */
typedef struct own_modes {
  int n;
  int64_t shape[2 * MM + 2], local[2 * MM + 2], proc[2 * MM + 2];
} own_modes;
static own_modes split_side(const int64_t *shape, int n, const int64_t *local, const int64_t *proc) {
  own_modes o;
  memset(&o, 0, sizeof o);
  for (int k = 0; k < n; k++) {
    int64_t l = local[k], p = proc ? proc[k] : 0, a = 0;
    for (int64_t f = 2; f < shape[k] && !a; f++)
      if (shape[k] % f == 0 && rnd(2)) a = f;
    if (a) {
      int64_t b = shape[k] / a;
      o.shape[o.n] = a, o.local[o.n] = l * b, o.proc[o.n] = p * b, o.n++;
      o.shape[o.n] = b, o.local[o.n] = l, o.proc[o.n] = p, o.n++;
    } else {
      o.shape[o.n] = shape[k], o.local[o.n] = l, o.proc[o.n] = p, o.n++;
    }
    if (rnd(6) == 0) o.shape[o.n] = 1, o.local[o.n] = 5, o.proc[o.n] = 0, o.n++;
  }
  return o;
}

static parray_status copy_split(int dh, void *dptr, const own_modes *d, int sh, void *sptr, const own_modes *s,
                                int es) {
  parray_mpi_side D = {dh, dptr, d->local, d->proc, 0}, S = {sh, sptr, s->local, s->proc, 0};
  return parray_mpi_copy_split(&D, d->shape, d->n, &S, s->shape, s->n, (size_t)es);
}

/* The random trials of case_random through parray_mpi_copy_split, each side
 * with its own modes; and a copy whose sizes differ, refused. */
static void case_split(void) {
  int err = err_create();
  for (int t = 0; t < 100; t++) {
    int n = 1 + (int)rnd(MM), es = 1 + (int)rnd(12);
    int64_t shape[MM], total = 1, hl[MM], gl[MM];
    for (int k = 0; k < n; k++) total *= shape[k] = 1 + (int64_t)rnd(total > 400 ? 2 : 6);
    layout a = random_layout(shape, n), b = random_layout(shape, n);
    host_layout(shape, n, hl);
    host_layout(shape, n, gl);
    unsigned char *h = malloc((size_t)(total * es)), *g = calloc((size_t)total, (size_t)es);
    for (int64_t lin = 0; lin < total; lin++) put_value(h + host_off(shape, n, hl, lin) * es, lin, es);
    int da = parray_mpi_create((size_t)(a.block * es), a.nprocs), db = parray_mpi_create((size_t)(b.block * es), b.nprocs);
    CHECK(da >= 0 && db >= 0);
    own_modes H = split_side(shape, n, hl, NULL), A1 = split_side(shape, n, a.local, a.proc);
    RT(copy_split(da, NULL, &A1, -1, h, &H, es));
    int ok_a = check_dist(err, da, shape, n, es, &a, total);
    own_modes A2 = split_side(shape, n, a.local, a.proc), B1 = split_side(shape, n, b.local, b.proc);
    RT(copy_split(db, NULL, &B1, da, NULL, &A2, es));
    int ok_b = check_dist(err, db, shape, n, es, &b, total);
    own_modes B2 = split_side(shape, n, b.local, b.proc), G = split_side(shape, n, gl, NULL);
    RT(copy_split(-1, g, &G, db, NULL, &B2, es));
    int ok_g = 1;
    for (int64_t lin = 0; lin < total; lin++) ok_g &= value_ok(g + host_off(shape, n, gl, lin) * es, lin, es);
    if (!ok_a || !ok_b || !ok_g) {
      fprintf(stderr, "split trial %d: n=%d es=%d scatter %s, redistribute %s, gather %s\n", t, n, es,
              ok_a ? "ok" : "BAD", ok_b ? "ok" : "BAD", ok_g ? "ok" : "BAD");
      failures++;
    }
    if (t == 0) { /* one more element on one side: refused on process 0, nothing sent */
      own_modes big = H;
      big.shape[0]++;
      CHECK(copy_split(da, NULL, &A1, -1, h, &big, es) == PARRAY_ERR_INVALID);
      CHECK(strstr(parray_last_error(), "elements") != NULL);
      CHECK(copy_split(da, NULL, &A1, da, NULL, &A1, es) == PARRAY_ERR_UNSUPPORTED);
    }
    parray_mpi_destroy(da);
    parray_mpi_destroy(db);
    free(h);
    free(g);
  }
  parray_mpi_destroy(err);
}

static int mainhost(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  if (parray_mpi_size() != NP) {
    fprintf(stderr, "run this test with mpirun -np %d\n", NP);
    return 2;
  }
  if (!strcmp(which, "detour"))
    case_detour();
  else if (!strcmp(which, "sync"))
    case_sync();
  else if (!strcmp(which, "arrays"))
    case_arrays();
  else if (!strcmp(which, "matrix"))
    case_matrix();
  else if (!strcmp(which, "random"))
    case_random();
  else if (!strcmp(which, "split"))
    case_split();
  else if (!strcmp(which, "toofew")) {
    /* What generated code does for `#detour P` with P = {mpi [8]}. */
    int x = 1;
    if (parray_mpi_detour(B_FEWER, &x, sizeof x, 8) != PARRAY_OK)
      parray_fatal_at("toofew.pc", 7, "#detour P", "%s", parray_last_error());
    return 0;
  } else if (!strcmp(which, "bodyfatal")) {
    int x = 0;
    RT(parray_mpi_detour(B_FATAL, &x, sizeof x, NP));
    return 0;
  } else if (!strcmp(which, "exit")) {
    int err = err_create();
    struct ctx_scalars cs = {.err = err};
    RT(parray_mpi_detour(B_SCALARS, &cs, sizeof cs, NP));
    printf("exit: calling exit(3)\n");
    fflush(stdout);
    exit(3); /* #mainhost code may call exit: the job ends with its status */
  } else {
    fprintf(stderr, "unknown case '%s'\n", which);
    return 2;
  }
  printf("%s: %s (%d failed checks)\n", which, failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  static const parray_mpi_program prog = {mainhost, bodies, NBODIES};
  return parray_mpi_main(argc, argv, &prog);
}
