/* SPDX-License-Identifier: Apache-2.0 */
/* parray/pthd.h - the runtime of pthd thread arrays (docs/threads.md):
 * a persistent pool of POSIX threads that runs a detour body once per thread
 * index, and the barrier behind #sync.  The translator outlines each
 * `#detour T { body }` over a `{pthd DIMS}` type into a parray_pthd_body and
 * calls parray_pthd_run(|T|, body, &captures); `#sync` becomes
 * parray_team_sync(team).  C11, Linux futexes (condition variables elsewhere). */
#ifndef PARRAY_PTHD_H
#define PARRAY_PTHD_H

#include "parray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One running detour: its size, its barrier and its body.  Opaque; valid only
 * inside the bodies of the run that passed it. */
typedef struct parray_team parray_team;

/* body(ctx, team, tid) is called once for every tid in [0, n), each on its own
 * thread; the caller of parray_pthd_run runs tid 0 itself. */
typedef void (*parray_pthd_body)(void *ctx, parray_team *team, parray_int64_t tid);

/* Run a detour of n threads and return when all n bodies have finished.  All n
 * threads are live at once (bodies may meet at parray_team_sync), whatever the
 * number of cores.  Bodies may call parray_pthd_run again (a thread array
 * inside a thread array: the pool grows), and different application threads
 * may run detours at the same time.
 * Returns PARRAY_OK; PARRAY_ERR_INVALID for n <= 0 or a null body;
 * PARRAY_ERR_THREAD when the threads cannot be created (no body has run then).
 * The error text (parray_last_error) says why; the caller adds the .pc line. */
PARRAY_API parray_status parray_pthd_run(parray_int64_t n, parray_pthd_body body, void *ctx);

/* #sync: a barrier over the n threads of the team; every thread of the team
 * must call it the same number of times.  Reusable for any number of phases.
 * A null team is a no-op. */
PARRAY_API void parray_team_sync(parray_team *team);

/* The number of threads of the team (n of parray_pthd_run); 0 for null. */
PARRAY_API parray_int64_t parray_team_size(const parray_team *team);

/* Release the pooled threads that are idle (generated code calls it at program
 * end).  Idempotent; a later parray_pthd_run simply creates threads again.
 * Threads still busy in a concurrent detour are left alone. */
PARRAY_API void parray_pthd_shutdown(void);

/* Statistics for tests and benchmarks: threads the pool has created so far
 * (cumulative) and threads idle in the pool now. */
PARRAY_API parray_int64_t parray_pthd_threads_created(void);
PARRAY_API parray_int64_t parray_pthd_threads_idle(void);

/* Environment (read once, at the first detour):
 *   PARRAY_PTHD_MAX_THREADS  most pool threads that may exist at once
 *                            (beyond it a run fails with PARRAY_ERR_THREAD);
 *                            default: no limit but the system's.
 *   PARRAY_PTHD_SPIN_US      how long a waiting thread spins before it blocks
 *                            when the machine is not oversubscribed (default
 *                            1000 microseconds; 0 blocks at once).
 *   PARRAY_PTHD_STACK_KB     stack size of pool threads (default: the
 *                            system's default for new threads). */

#ifdef __cplusplus
}
#endif
#endif
