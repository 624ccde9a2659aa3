/* SPDX-License-Identifier: Apache-2.0 */
/* bench_mpi.c - the redistribution #copy of the mpi runtime against a
 * hand-written MPI_Alltoall moving the same bytes, in one run:
 *   ROWS = [[#P][N/P]][N]  ->  COLS = [N][[#P][N/P]]   (float, P processes)
 * parray: parray_mpi_copy(COLS <- ROWS) as generated code calls it, then an
 *         empty detour so that the time covers every process finishing.
 * alltoall: a detour whose body packs the P column blocks of its rows into a
 *         send buffer and calls MPI_Alltoall straight into the COLS block
 *         (the receive order already is the COLS layout: no unpack needed).
 * alltoall+unpack: the same into a receive buffer, then a copy into COLS
 *         (the classic pack/alltoall/unpack form), for reference.
 * parray p2p: parray_mpi_copy with PARRAY_MPI_COPY_P2P=1 (its point-to-point
 *         exchange: receives posted first, pack and send peer by peer).
 * All variants are timed on process 0 from before the call until the
 * detour / copy has returned, interleaved rep by rep after a warm-up; the
 * table gives medians and the ratio parray / alltoall.
 * Run: mpirun --allow-run-as-root --oversubscribe -np 4 bench_mpi [N] [reps] */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "parray/mpi.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV 4

struct ctx_ref {
  int rows, cols, n, unpack;
};
static float *sendbuf, *recvbuf; /* the hand-written version's buffers (per process) */

static void body_ref(void *vctx, int64_t tid) {
  struct ctx_ref *c = vctx;
  int P = parray_mpi_size(), N = c->n, NB = N / P;
  (void)tid;
  const float *a = parray_mpi_local(c->rows);
  float *b = parray_mpi_local(c->cols);
  if (!sendbuf) {
    sendbuf = parray_host_alloc(PARRAY_PAGED, sizeof(float) * (size_t)NB * N);
    recvbuf = parray_host_alloc(PARRAY_PAGED, sizeof(float) * (size_t)NB * N);
    if (!sendbuf || !recvbuf) parray_fatal_at(__FILE__, __LINE__, "alloc", "out of memory");
  }
  for (int q = 0; q < P; q++) /* sendbuf[q][i][j] = a[i][q*NB + j] */
    for (int i = 0; i < NB; i++)
      memcpy(sendbuf + ((size_t)q * NB + i) * NB, a + (size_t)i * N + (size_t)q * NB, sizeof(float) * NB);
  float *dst = c->unpack ? recvbuf : b;
  if (MPI_Alltoall(sendbuf, NB * NB, MPI_FLOAT, dst, NB * NB, MPI_FLOAT, MPI_COMM_WORLD) != MPI_SUCCESS)
    parray_fatal_at(__FILE__, __LINE__, "MPI_Alltoall", "failed");
  if (c->unpack) memcpy(b, recvbuf, sizeof(float) * (size_t)NB * N);
}

static void body_empty(void *vctx, int64_t tid) { (void)vctx, (void)tid; }

struct ctx_check {
  int cols, n, err;
};
/* COLS block of process tid: element [i][j] holds the value of (i, tid*NB + j). */
static void body_check(void *vctx, int64_t tid) {
  struct ctx_check *c = vctx;
  int P = parray_mpi_size(), N = c->n, NB = N / P;
  const float *b = parray_mpi_local(c->cols);
  int64_t bad = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < NB; j++) bad += b[(size_t)i * NB + j] != (float)((i * 131 + (tid * NB + j) * 7) % 1000003);
  *(int64_t *)parray_mpi_local(c->err) = bad;
}

static const parray_mpi_body bodies[] = {body_ref, body_empty, body_check};

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define RT(call)                                                                                                      \
  do {                                                                                                                \
    if ((call) != PARRAY_OK) parray_fatal_at(__FILE__, __LINE__, #call, "%s", parray_last_error());                   \
  } while (0)

static int64_t check(int cols, int err, int n, int P) {
  struct ctx_check cc = {cols, n, err};
  RT(parray_mpi_detour(2, &cc, sizeof cc, P));
  int64_t bad[64] = {0}, sh[1] = {P}, one[1] = {1}, zero[1] = {0};
  parray_mpi_side s = {err, NULL, zero, one, 0}, d = {-1, bad, one, NULL, 0};
  RT(parray_mpi_copy(&d, &s, sh, 1, sizeof(int64_t)));
  int64_t t = 0;
  for (int p = 0; p < P; p++) t += bad[p];
  return t;
}

static int mainhost(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 4096, reps = argc > 2 ? atoi(argv[2]) : 40, warm = 5;
  int P = parray_mpi_size();
  if (P > 64 || N % P || reps < 1) {
    fprintf(stderr, "usage: mpirun -np P bench_mpi [N (multiple of P)] [reps]\n");
    return 2;
  }
  int64_t NB = N / P;
  size_t block = sizeof(float) * (size_t)NB * N;
  int rows = parray_mpi_create(block, P), cols = parray_mpi_create(block, P), err = parray_mpi_create(8, P);
  if (rows < 0 || cols < 0 || err < 0) parray_fatal_at(__FILE__, __LINE__, "#create", "%s", parray_last_error());
  float *h = parray_host_alloc(PARRAY_PAGED, sizeof(float) * (size_t)N * N);
  if (!h) parray_fatal_at(__FILE__, __LINE__, "#create", "out of memory");
  for (int64_t i = 0; i < N; i++)
    for (int64_t j = 0; j < N; j++) h[i * N + j] = (float)((i * 131 + j * 7) % 1000003);
  /* Common modes (a, b, c, d): row a*NB + b, column c*NB + d. */
  const int64_t shape[4] = {P, NB, P, NB};
  const int64_t hl[4] = {NB * N, N, NB, 1}, rl[4] = {0, N, NB, 1}, rp[4] = {1, 0, 0, 0};
  const int64_t cl[4] = {NB * NB, NB, 0, 1}, cp[4] = {0, 0, 1, 0};
  parray_mpi_side H = {-1, h, hl, NULL, 0}, R = {rows, NULL, rl, rp, 0}, C = {cols, NULL, cl, cp, 0};
  RT(parray_mpi_copy(&R, &H, shape, 4, sizeof(float)));

  double *t[NV];
  for (int v = 0; v < NV; v++) t[v] = malloc(sizeof(double) * (size_t)reps);
  struct ctx_ref ref = {rows, cols, N, 0};
  int64_t bad[NV] = {0, 0, 0, 0};
  for (int r = -warm; r < reps; r++) {
    for (int v = 0; v < NV; v++) {
      if (v == 3) setenv("PARRAY_MPI_COPY_P2P", "1", 1);
      double t0 = MPI_Wtime();
      if (v == 0 || v == 3) {
        RT(parray_mpi_copy(&C, &R, shape, 4, sizeof(float)));
        RT(parray_mpi_detour(1, NULL, 0, P));
      } else {
        ref.unpack = v == 2;
        RT(parray_mpi_detour(0, &ref, sizeof ref, P));
      }
      double dt = MPI_Wtime() - t0;
      if (v == 3) unsetenv("PARRAY_MPI_COPY_P2P");
      if (r >= 0) t[v][r] = dt;
      if (r == -warm) bad[v] = check(cols, err, N, P);
    }
  }
  /* Paired: the ratio within each rep (the variants run back to back). */
  double *pr = malloc(sizeof(double) * (size_t)reps);
  for (int r = 0; r < reps; r++) pr[r] = t[0][r] / t[1][r];
  qsort(pr, (size_t)reps, sizeof(double), cmp);
  double pmed = reps % 2 ? pr[reps / 2] : 0.5 * (pr[reps / 2 - 1] + pr[reps / 2]);
  free(pr);
  double med[NV];
  for (int v = 0; v < NV; v++) {
    qsort(t[v], (size_t)reps, sizeof(double), cmp);
    med[v] = reps % 2 ? t[v][reps / 2] : 0.5 * (t[v][reps / 2 - 1] + t[v][reps / 2]);
  }
  double moved = (double)block * (P - 1) / P * P; /* bytes crossing processes, whole job */
  printf("redistribution rows -> columns, float %d x %d over %d processes (%.1f MiB per process block)\n", N, N, P,
         block / 1048576.0);
  printf("%-28s %10s %10s %10s %12s %8s\n", "variant", "median ms", "min ms", "max ms", "GB/s moved", "errors");
  static const char *name[NV] = {"parray_mpi_copy", "pack + MPI_Alltoall", "pack + MPI_Alltoall + unpack",
                                 "parray_mpi_copy (p2p)"};
  for (int v = 0; v < NV; v++)
    printf("%-28s %10.3f %10.3f %10.3f %12.2f %8lld\n", name[v], med[v] * 1e3, t[v][0] * 1e3, t[v][reps - 1] * 1e3,
           moved / med[v] / 1e9, (long long)bad[v]);
  printf("ratio parray / (pack + MPI_Alltoall) = %.3f (goal <= 1.10)\n", med[0] / med[1]);
  printf("median of the per-rep ratios parray / (pack + MPI_Alltoall) = %.3f\n", pmed);
  printf("ratio parray / (pack + MPI_Alltoall + unpack) = %.3f\n", med[0] / med[2]);
  printf("ratio parray p2p / (pack + MPI_Alltoall) = %.3f\n", med[3] / med[1]);
  for (int v = 0; v < NV; v++) free(t[v]);
  parray_host_free(PARRAY_PAGED, h, sizeof(float) * (size_t)N * N);
  parray_mpi_destroy(rows);
  parray_mpi_destroy(cols);
  parray_mpi_destroy(err);
  return bad[0] || bad[1] || bad[2] || bad[3] ? 1 : 0;
}

int main(int argc, char **argv) {
  static const parray_mpi_program prog = {mainhost, bodies, 3};
  return parray_mpi_main(argc, argv, &prog);
}
