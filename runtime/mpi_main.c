/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_main.c - the start and end of an mpi program (parray_mpi_main) and
 * the command dispatcher that processes other than 0 run while process 0
 * executes #mainhost: the top of the mpi runtime, the one file that calls
 * both the process state (mpi.c) and the collective #copy (mpi_copy*.c).
 * How it works: docs/mpi_runtime.md.
 *
 * Idle dispatchers poll the header broadcast (MPI_Ibcast + MPI_Test),
 * spinning briefly and then sleeping with a growing nap, so that they leave
 * the cores to process 0 while it runs serial host code. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi_impl.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* An idle dispatcher spins this long on MPI_Test, then naps NAP_MIN,
 * doubling up to NAP_MAX, between tests. */
#define SPIN_NS 200000L
#define NAP_MIN_NS 20000L
#define NAP_MAX_NS 500000L

static int64_t elapsed_ns(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)(t.tv_sec - t0->tv_sec) * 1000000000LL + (t.tv_nsec - t0->tv_nsec);
}

/* Wait for a request the way an idle dispatcher should: spin, then nap. */
static int wait_idle(MPI_Request *rq) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long nap = 0;
  for (;;) {
    int flag = 0;
    int rc = MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || flag) return rc;
    if (nap == 0) {
      if (elapsed_ns(&t0) < SPIN_NS) continue;
      nap = NAP_MIN_NS;
    }
    struct timespec ts = {0, nap};
    nanosleep(&ts, NULL);
    nap = nap * 2 > NAP_MAX_NS ? NAP_MAX_NS : nap * 2;
  }
}

/* The next command from process 0, its payload in h->inl or (larger) in
 * *payload, which the caller frees when it is not h->inl. */
static void receive(rmpi_cmd_header *h, void **payload) {
  MPI_Request rq;
  int rc = MPI_Ibcast(h, (int)sizeof *h, MPI_BYTE, 0, rmpi_comm(), &rq);
  if (rc == MPI_SUCCESS) rc = wait_idle(&rq);
  if (rc != MPI_SUCCESS) {
    rmpi_error(rc, "receiving a command from process 0");
    rmpi_fatal();
  }
  *payload = h->inl;
  if (h->bytes <= RMPI_CMD_INLINE) return;
  *payload = aligned_alloc(64, ((size_t)h->bytes + 63) / 64 * 64);
  if (!*payload) {
    parray_set_error("cannot allocate %lld bytes for a command", (long long)h->bytes);
    rmpi_fatal();
  }
  rc = MPI_Bcast(*payload, (int)h->bytes, MPI_BYTE, 0, rmpi_comm());
  if (rc != MPI_SUCCESS) {
    rmpi_error(rc, "receiving a command from process 0");
    rmpi_fatal();
  }
}

/* Processes other than 0: serve commands until FINISH; returns its status. */
static int serve(void) {
  for (;;) {
    rmpi_cmd_header h;
    void *payload;
    receive(&h, &payload);
    parray_status s = PARRAY_OK;
    switch (h.op) {
    case RMPI_CMD_FINISH: return (int)h.a;
    case RMPI_CMD_DETOUR: s = rmpi_run_detour(h.id, h.a, payload, (size_t)h.b); break;
    case RMPI_CMD_CREATE: (void)rmpi_run_create((size_t)h.a, h.b); break; /* process 0 reports failures */
    case RMPI_CMD_DESTROY: rmpi_run_destroy(h.a); break;
    case RMPI_CMD_COPY: s = rmpi_copy_serve(payload, (size_t)h.bytes); break;
    case RMPI_CMD_COPY_SPLIT: s = rmpi_copy_split_serve(payload, (size_t)h.bytes); break;
    default:
      parray_set_error("unknown command %d from process 0", h.op);
      s = PARRAY_ERR_INVALID;
    }
    if (payload != h.inl) free(payload);
    if (s != PARRAY_OK) rmpi_fatal();
  }
}

static void shut_down(void) {
  rmpi_copy_cleanup();
  rmpi_end();
}

/* exit() called by #mainhost code on process 0: release the others (they
 * end with status 0; process 0 keeps the status given to exit) and finalise,
 * instead of leaving MPI to kill the job as a crash. */
static void at_exit(void) {
  if (!rmpi_leave_mainhost()) return;
  if (rmpi_command(RMPI_CMD_FINISH, 0, 0, NULL, 0) != PARRAY_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  shut_down();
}

int parray_mpi_main(int argc, char **argv, const parray_mpi_program *prog) {
  if (!prog || !prog->mainhost || prog->nbodies < 0 || (prog->nbodies > 0 && !prog->bodies)) {
    fprintf(stderr, "parray: error: parray_mpi_main: invalid program description\n");
    return 1;
  }
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      fprintf(stderr, "parray: error: MPI_Init_thread failed\n");
      return 1;
    }
  }
  rmpi_start(prog, !inited);
  int status;
  if (rmpi_rank() == 0) {
    static bool registered;
    if (!registered) registered = atexit(at_exit) == 0;
    rmpi_set_mainhost(true);
    status = prog->mainhost(argc, argv);
    rmpi_set_mainhost(false);
    fflush(stdout);
    if (rmpi_command(RMPI_CMD_FINISH, status, 0, NULL, 0) != PARRAY_OK) {
      fprintf(stderr, "parray: error: %s\n", parray_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  } else {
    status = serve();
  }
  shut_down();
  return status;
}
