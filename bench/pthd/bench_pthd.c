/* SPDX-License-Identifier: Apache-2.0 */
/* bench_pthd.c - overhead of a pthd detour (parray_pthd_run with an empty
 * body) against an empty `#pragma omp parallel num_threads(n)` region
 * (libgomp), and of #sync (parray_team_sync) against `#pragma omp barrier`,
 * side by side in one run.  Samples of the two alternate, each after a pause
 * long enough for the other pool's threads to stop spinning and block, and
 * after its own warm-up; the table shows medians per region / per barrier.
 * Rows gapNus: n=2 regions with N microseconds of serial work between them
 * (a detour in a loop with a body): each region timed alone, median.
 * Usage: bench_pthd [samples] [extra thread counts...]
 * Environment of the peer is left as is (OMP_WAIT_POLICY etc. unset). */
#include "parray/pthd.h"

#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static volatile int sink;
static void empty_body(void *ctx, parray_team *team, int64_t tid) {
  (void)ctx;
  (void)team;
  (void)tid;
}

static int g_barriers;
static void barrier_body(void *ctx, parray_team *team, int64_t tid) {
  (void)ctx;
  (void)tid;
  for (int i = 0; i < g_barriers; i++) parray_team_sync(team);
}

/* Serial work between regions (a detour in a loop with a loop body). */
static double g_gap_s;
static void serial_work(void) {
  if (g_gap_s <= 0) return;
  double end = now_s() + g_gap_s;
  while (now_s() < end) {
  }
}

/* Seconds per region, averaged over reps back-to-back regions. */
static double time_pthd_region(int n, int reps) {
  double t0 = now_s();
  for (int r = 0; r < reps; r++)
    if (parray_pthd_run(n, empty_body, NULL) != PARRAY_OK) {
      fprintf(stderr, "parray_pthd_run: %s\n", parray_last_error());
      exit(1);
    }
  return (now_s() - t0) / reps;
}

static double time_omp_region(int n, int reps) {
  double t0 = now_s();
  for (int r = 0; r < reps; r++) {
#pragma omp parallel num_threads(n)
    {
      if (omp_get_thread_num() == n) sink = 1; /* never true: keeps the region */
    }
  }
  return (now_s() - t0) / reps;
}

/* Regions with g_gap_s of serial work between them: each region is timed
 * alone (the work is not), and the median region time is returned, so that
 * a preemption during the work (other load) does not count. */
static double gap_times[512];
static double time_pthd_gap(int n, int reps) {
  if (reps > 512) reps = 512;
  for (int r = 0; r < reps; r++) {
    serial_work();
    double t0 = now_s();
    if (parray_pthd_run(n, empty_body, NULL) != PARRAY_OK) {
      fprintf(stderr, "parray_pthd_run: %s\n", parray_last_error());
      exit(1);
    }
    gap_times[r] = now_s() - t0;
  }
  return median(gap_times, reps);
}

static double time_omp_gap(int n, int reps) {
  if (reps > 512) reps = 512;
  for (int r = 0; r < reps; r++) {
    serial_work();
    double t0 = now_s();
#pragma omp parallel num_threads(n)
    {
      if (omp_get_thread_num() == n) sink = 1;
    }
    gap_times[r] = now_s() - t0;
  }
  return median(gap_times, reps);
}

/* Seconds per barrier, over one region of n threads doing reps barriers. */
static double time_pthd_barrier(int n, int reps) {
  g_barriers = reps;
  double t0 = now_s();
  if (parray_pthd_run(n, barrier_body, NULL) != PARRAY_OK) {
    fprintf(stderr, "parray_pthd_run: %s\n", parray_last_error());
    exit(1);
  }
  return (now_s() - t0) / reps;
}

static double time_omp_barrier(int n, int reps) {
  double t0 = now_s();
#pragma omp parallel num_threads(n)
  {
    for (int i = 0; i < reps; i++) {
#pragma omp barrier
    }
  }
  return (now_s() - t0) / reps;
}

typedef double (*timer_fn)(int n, int reps);

/* Median of `samples` alternating samples of a and b; each sample pauses
 * (the other pool goes to sleep), warms up, then times reps operations. */
static void compare(const char *what, int n, int samples, int reps, timer_fn a, timer_fn b) {
  double *va = malloc(sizeof(double) * (size_t)samples), *vb = malloc(sizeof(double) * (size_t)samples);
  for (int s = 0; s < samples; s++) {
    pause_ms(30);
    a(n, reps / 5 + 1);
    va[s] = a(n, reps);
    pause_ms(30);
    b(n, reps / 5 + 1);
    vb[s] = b(n, reps);
  }
  double ma = median(va, samples) * 1e6, mb = median(vb, samples) * 1e6;
  qsort(va, (size_t)samples, sizeof *va, cmp_double);
  qsort(vb, (size_t)samples, sizeof *vb, cmp_double);
  printf("| %-9s | %3d | %10.3f | %10.3f | %5.2fx | %s |\n", what, n, ma, mb, ma / mb,
         ma / mb <= 1.5 ? "met" : "MISSED");
  fprintf(stderr, "  %s n=%d pthd min/max %.3f/%.3f us, omp min/max %.3f/%.3f us\n", what, n, va[0] * 1e6,
          va[samples - 1] * 1e6, vb[0] * 1e6, vb[samples - 1] * 1e6);
  free(va);
  free(vb);
}

int main(int argc, char **argv) {
  int samples = argc > 1 ? atoi(argv[1]) : 21;
  if (samples < 1) samples = 21;
  int ns[16], nn = 0;
  int cores = omp_get_num_procs();
  const int base[] = {2, 4, 8, cores};
  for (int i = 0; i < 4 + (argc > 2 ? argc - 2 : 0); i++) {
    int v = i < 4 ? base[i] : atoi(argv[i - 4 + 2]);
    int dup = v < 1;
    for (int j = 0; j < nn; j++) dup |= ns[j] == v;
    if (!dup && nn < 16) ns[nn++] = v;
  }
  printf("cores: %d; samples: %d (median); OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s PARRAY_PTHD_SPIN_US=%s\n\n", cores,
         samples, getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "(unset)",
         getenv("GOMP_SPINCOUNT") ? getenv("GOMP_SPINCOUNT") : "(unset)",
         getenv("PARRAY_PTHD_SPIN_US") ? getenv("PARRAY_PTHD_SPIN_US") : "(unset)");
  printf("| what      |   n | pthd (us)  | libgomp (us) | ratio | goal <=1.5x |\n");
  printf("|-----------|-----|------------|------------|-------|------|\n");
  for (int i = 0; i < nn; i++) compare("region", ns[i], samples, 2000, time_pthd_region, time_omp_region);
  for (int i = 0; i < nn; i++) compare("barrier", ns[i], samples, 2000, time_pthd_barrier, time_omp_barrier);
  /* A detour in a loop whose body does some serial work between regions:
   * the region time when the workers have been waiting that long (spinning
   * or blocked). */
  static const double gaps_us[] = {20, 100, 1000, 5000};
  for (int g = 0; g < 4; g++) {
    char what[32];
    snprintf(what, sizeof what, "gap%gus", gaps_us[g]);
    g_gap_s = gaps_us[g] * 1e-6;
    compare(what, 2, samples, gaps_us[g] >= 5000 ? 10 : gaps_us[g] >= 1000 ? 40 : 200, time_pthd_gap,
            time_omp_gap);
  }
  g_gap_s = 0;
  parray_pthd_shutdown();
  return 0;
}
