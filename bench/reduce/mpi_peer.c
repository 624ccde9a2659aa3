/* mpi_peer.c - bench/reduce's MPI peer: the sum of the same distributed
 * array (KiB per process, the same values) written by hand: each process
 * sums its block and MPI_Allreduce combines the sums; timed on process 0
 * from a barrier, the median of REPS runs after a warm-up. CSV row in
 * reduce_mpi's columns. Usage: mpirun -np NP mpi_peer [KiB (4096)] [REPS (200)] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  long kib = argc > 1 ? atol(argv[1]) : 4096;
  int reps = argc > 2 ? atoi(argv[2]) : 200;
  if (kib < 1 || reps < 1 || reps > 10000) MPI_Abort(MPI_COMM_WORLD, 2);
  long m = kib * 128;
  double *d = malloc((size_t)m * sizeof *d), *t = malloc((size_t)reps * sizeof *t), want = 0;
  if (!d || !t) MPI_Abort(MPI_COMM_WORLD, 1);
  unsigned long long rng = 88172645463325252ull; /* the sequence reduce_mpi scatters: this process's part */
  for (long i = 0; i < (long)np * m; i++) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    double v = (double)(rng >> 11) / 9007199254740992.0 + 0.25;
    want += v;
    if (i / m == rank) d[i % m] = v;
  }
  double s = 0;
  for (int k = -5; k < reps; k++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), mine = 0;
    for (long i = 0; i < m; i++) mine += d[i];
    MPI_Allreduce(&mine, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (k >= 0) t[k] = (MPI_Wtime() - t0) * 1e3;
  }
  if (rank == 0) {
    qsort(t, (size_t)reps, sizeof *t, cmp);
    double ms = t[reps / 2], bytes = (double)np * m * sizeof(double);
    printf("op,form,processes,bytes,ms,gbs,rel_err\n");
    printf("sum,MPI_Allreduce by hand,%d,%.0f,%.4f,%.1f,%.2e\n", np, bytes, ms, bytes / ms / 1e6, fabs(s - want) / want);
  }
  free(d);
  free(t);
  MPI_Finalize();
  return 0;
}
