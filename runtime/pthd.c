/* SPDX-License-Identifier: Apache-2.0 */
/* pthd.c - runtime of pthd thread arrays: a persistent pool of worker threads
 * that runs detour bodies (parray_pthd_run), the sense-reversing barrier behind
 * #sync (parray_team_sync), and pool shutdown.  How it works: docs/pthd_runtime.md.
 *
 * Waiting everywhere follows one rule: spin briefly while the machine has a
 * free core for every busy pool thread, then block on a futex (Linux) or a
 * condition variable (elsewhere).  The barrier and the completion count are
 * 32-bit words holding a generation or count in bits 1..31 and, in bit 0,
 * "someone may be blocked here": a waiter sets the bit with a CAS before it
 * blocks, and whoever changes the word wakes only when it saw the bit.  A
 * worker's job word has a separate "sleeping" flag instead (Dekker style, one
 * fence per detour) so that starting n workers costs n plain stores, not n
 * serialised read-modify-writes.  The spinning path makes no system call.
 * (-DPARRAY_PTHD_NO_FUTEX selects the condition-variable fallback on Linux too,
 * to test it.) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall, sched_getaffinity, CPU_COUNT */
#endif
#include "parray/pthd.h"

#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__) && !defined(PARRAY_PTHD_NO_FUTEX)
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

/* The largest team: counters are 32-bit words holding count << 1. */
#define PTHD_MAX_TEAM ((int64_t)1 << 30)
/* When the machine is oversubscribed: pause this many times, then yield the
 * core this many times, then block. */
#define PTHD_SHORT_PAUSES 16u
#define PTHD_YIELDS 64u

/* ---------------------------------------------------------------- config */

static struct {
  int64_t ncpu;        /* cores this process may run on */
  int64_t max_threads; /* cap on live pool threads; 0: none */
  uint64_t spin_ns;    /* spin budget before blocking */
  size_t stack_bytes;  /* 0: system default */
} cfg;
static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;

static int64_t env_int(const char *name, int64_t dflt) {
  const char *s = getenv(name);
  if (!s || !*s) return dflt;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < 0) return dflt;
  return (int64_t)v;
}

static void pool_after_fork_child(void);

static void cfg_init(void) {
  pthread_atfork(NULL, NULL, pool_after_fork_child);
  int64_t n = 0;
#if defined(__linux__) && defined(CPU_COUNT)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
#endif
  if (n <= 0) n = (int64_t)sysconf(_SC_NPROCESSORS_ONLN);
  cfg.ncpu = n > 0 ? n : 1;
  cfg.max_threads = env_int("PARRAY_PTHD_MAX_THREADS", 0);
  cfg.spin_ns = (uint64_t)env_int("PARRAY_PTHD_SPIN_US", 1000) * 1000u;
  cfg.stack_bytes = (size_t)env_int("PARRAY_PTHD_STACK_KB", 0) * 1024u;
}

/* ---------------------------------------------------------------- pool state */

typedef struct slot {
  alignas(64) _Atomic uint32_t job; /* job generation: written by the slot's holder */
  _Atomic uint32_t sleeping;        /* the worker may be blocked on job */
  int quit;                         /* set with the last job: leave */
  parray_team *team;                 /* the job: team and tid */
  int64_t tid;
  struct slot *next; /* free list / a run's chain; owned by whoever holds the slot */
  pthread_t thread;
} slot;

struct parray_team {
  alignas(64) parray_pthd_body body; /* read-only while the run lasts */
  void *ctx;
  int64_t n;
  alignas(64) _Atomic uint32_t done;      /* workers still running << 1 | waiter bit */
  alignas(64) _Atomic uint32_t bar_count; /* threads yet to arrive at the barrier */
  alignas(64) _Atomic uint32_t bar_gen;   /* barrier generation << 1 | waiter bit */
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *pool_free;      /* idle workers, most recently used first */
static int64_t pool_nidle;   /* guarded by pool_lock */
static _Atomic int64_t pool_live;    /* pool threads alive */
static _Atomic int64_t pool_created; /* pool threads ever created */
/* Threads busy in detours (callers and workers): decides spinning vs blocking. */
static _Atomic int64_t busy_threads;
/* Set on pool threads: they already count as busy when they run a detour. */
static _Thread_local bool on_pool_thread;

/* A forked child has only the forking thread: forget the parent's workers
 * (their slots leak) so that the child's first detour creates its own. */
static void pool_after_fork_child(void) {
  pthread_mutex_init(&pool_lock, NULL);
  pool_free = NULL;
  pool_nidle = 0;
  atomic_store(&pool_live, 0);
  atomic_store(&busy_threads, 0);
}

/* ---------------------------------------------------------------- waiting */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
}

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct spinner {
  unsigned i;
  bool timed;        /* spin for cfg.spin_ns, else pause/yield a few times */
  uint64_t deadline; /* set at the first clock check */
} spinner;

static inline void spin_begin(spinner *sp) {
  sp->i = 0;
  sp->deadline = 0;
  sp->timed = cfg.spin_ns > 0 && atomic_load_explicit(&busy_threads, memory_order_relaxed) <= cfg.ncpu;
}

/* One more round of spinning?  False: time to block. */
static inline bool spin_more(spinner *sp) {
  cpu_relax();
  ++sp->i;
  if (!sp->timed) {
    /* More busy threads than cores: the thread we wait for may need this core. */
    if (sp->i > PTHD_SHORT_PAUSES) sched_yield();
    return sp->i < PTHD_SHORT_PAUSES + PTHD_YIELDS;
  }
  if ((sp->i & 63u) != 0) return true;
  uint64_t now = mono_ns();
  if (!sp->deadline) {
    sp->deadline = now + cfg.spin_ns;
    return true;
  }
  return now < sp->deadline;
}

#if defined(__linux__) && !defined(PARRAY_PTHD_NO_FUTEX)
static void word_block(_Atomic uint32_t *w, uint32_t val) {
  /* Returns at once if *w != val; spurious returns are handled by callers. */
  syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}
static void word_wake(_Atomic uint32_t *w, int count) {
  syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}
#else
/* Portable fallback: a small table of mutex/condition pairs hashed by address. */
#define WAIT_BUCKETS 64
static struct {
  pthread_mutex_t m;
  pthread_cond_t c;
} buckets[WAIT_BUCKETS];
static pthread_once_t buckets_once = PTHREAD_ONCE_INIT;
static void buckets_init(void) {
  for (int i = 0; i < WAIT_BUCKETS; i++) {
    pthread_mutex_init(&buckets[i].m, NULL);
    pthread_cond_init(&buckets[i].c, NULL);
  }
}
static unsigned bucket_of(const void *p) { return (unsigned)(((uintptr_t)p >> 6) % WAIT_BUCKETS); }
static void word_block(_Atomic uint32_t *w, uint32_t val) {
  pthread_once(&buckets_once, buckets_init);
  unsigned b = bucket_of(w);
  pthread_mutex_lock(&buckets[b].m);
  if (atomic_load(w) == val) pthread_cond_wait(&buckets[b].c, &buckets[b].m);
  pthread_mutex_unlock(&buckets[b].m);
}
static void word_wake(_Atomic uint32_t *w, int count) {
  (void)count;
  pthread_once(&buckets_once, buckets_init);
  unsigned b = bucket_of(w);
  pthread_mutex_lock(&buckets[b].m);
  pthread_cond_broadcast(&buckets[b].c);
  pthread_mutex_unlock(&buckets[b].m);
}
#endif

/* Wait until the generation in *w differs from gen (gen has bit 0 clear);
 * returns the new value, with acquire ordering. */
static uint32_t await_new_gen(_Atomic uint32_t *w, uint32_t gen) {
  uint32_t cur;
  spinner sp;
  spin_begin(&sp);
  do {
    cur = atomic_load_explicit(w, memory_order_acquire);
    if ((cur & ~1u) != gen) return cur;
  } while (spin_more(&sp));
  for (;;) {
    cur = gen;
    if (atomic_compare_exchange_strong_explicit(w, &cur, gen | 1u, memory_order_acquire,
                                                memory_order_acquire) ||
        cur == (gen | 1u)) {
      word_block(w, gen | 1u);
      cur = atomic_load_explicit(w, memory_order_acquire);
    }
    if ((cur & ~1u) != gen) return cur;
  }
}

/* Advance the generation in *w (release) and wake whoever blocked on it. */
static void publish_new_gen(_Atomic uint32_t *w) {
  uint32_t old = atomic_load_explicit(w, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(w, &old, (old | 1u) + 1u, memory_order_release,
                                                memory_order_relaxed)) {
  }
  if (old & 1u) word_wake(w, INT_MAX);
}

/* Wait until the count in *w (count << 1 | waiter bit) reaches zero (acquire). */
static void await_zero(_Atomic uint32_t *w) {
  uint32_t cur;
  spinner sp;
  spin_begin(&sp);
  do {
    cur = atomic_load_explicit(w, memory_order_acquire);
    if ((cur >> 1) == 0) return;
  } while (spin_more(&sp));
  for (;;) {
    cur = atomic_load_explicit(w, memory_order_acquire);
    if ((cur >> 1) == 0) return;
    if (!(cur & 1u) && !atomic_compare_exchange_strong_explicit(w, &cur, cur | 1u, memory_order_acquire,
                                                                memory_order_acquire))
      continue;
    word_block(w, cur | 1u);
  }
}

/* Job words.  Holder: store the new generation (release) in every slot, one
 * seq_cst fence, then wake the slots whose worker said it was sleeping.
 * Worker: say "sleeping", seq_cst fence, re-check the job, block.  With both
 * fences one side sees the other's store: no lost wake-up.  A stale
 * "sleeping" costs only a needless wake. */
#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer does not model fences (GCC warns): a locked RMW is a full
 * barrier on the machines we test on. */
static _Atomic uint32_t fence_dummy;
#define full_fence() ((void)atomic_fetch_add_explicit(&fence_dummy, 0u, memory_order_seq_cst))
#else
#define full_fence() atomic_thread_fence(memory_order_seq_cst)
#endif

static void job_store(slot *s) {
  uint32_t g = atomic_load_explicit(&s->job, memory_order_relaxed);
  atomic_store_explicit(&s->job, g + 1u, memory_order_release);
}

static void job_wake_sleepers(slot *head) {
  full_fence();
  for (slot *s = head; s; s = s->next)
    if (atomic_load_explicit(&s->sleeping, memory_order_relaxed)) word_wake(&s->job, 1);
}

/* Wait for a job newer than seen; returns its generation (acquire). */
static uint32_t job_await(slot *s, uint32_t seen) {
  uint32_t cur;
  spinner sp;
  spin_begin(&sp);
  do {
    cur = atomic_load_explicit(&s->job, memory_order_acquire);
    if (cur != seen) return cur;
  } while (spin_more(&sp));
  for (;;) {
    atomic_store_explicit(&s->sleeping, 1u, memory_order_relaxed);
    full_fence();
    cur = atomic_load_explicit(&s->job, memory_order_acquire);
    if (cur == seen) {
      word_block(&s->job, seen);
      cur = atomic_load_explicit(&s->job, memory_order_acquire);
    }
    if (cur != seen) {
      atomic_store_explicit(&s->sleeping, 0u, memory_order_relaxed);
      return cur;
    }
  }
}

/* ---------------------------------------------------------------- workers */

static void *worker_main(void *arg) {
  slot *s = arg;
  on_pool_thread = true;
  uint32_t seen = 0;
  for (;;) {
    seen = job_await(s, seen);
    if (s->quit) break;
    parray_team *t = s->team;
    t->body(t->ctx, t, s->tid);
    /* After this decrement the team may be gone: touch only its address. */
    if (atomic_fetch_sub_explicit(&t->done, 2u, memory_order_acq_rel) == 3u) word_wake(&t->done, 1);
  }
  return NULL;
}

/* Give a chain head..tail of k slots back to the pool (most recent on top). */
static void pool_release(slot *head, slot *tail, int64_t k) {
  if (!head) return;
  pthread_mutex_lock(&pool_lock);
  tail->next = pool_free;
  pool_free = head;
  pool_nidle += k;
  pthread_mutex_unlock(&pool_lock);
}

static parray_status pool_spawn(slot **out, int64_t n) {
  int64_t live = atomic_fetch_add(&pool_live, 1) + 1;
  if (cfg.max_threads > 0 && live > cfg.max_threads) {
    atomic_fetch_sub(&pool_live, 1);
    parray_set_error("pthd detour of %lld threads: cannot create a thread: the pool already has %lld of "
                     "PARRAY_PTHD_MAX_THREADS=%lld",
                     (long long)n, (long long)(live - 1), (long long)cfg.max_threads);
    return PARRAY_ERR_THREAD;
  }
  slot *s = aligned_alloc(64, sizeof(slot));
  if (!s) {
    atomic_fetch_sub(&pool_live, 1);
    parray_set_error("pthd detour of %lld threads: out of memory for a pool thread", (long long)n);
    return PARRAY_ERR_THREAD;
  }
  memset(s, 0, sizeof *s);
  atomic_init(&s->job, 0u);
  atomic_init(&s->sleeping, 0u);
  pthread_attr_t attr;
  int rc = pthread_attr_init(&attr);
  if (!rc && cfg.stack_bytes) rc = pthread_attr_setstacksize(&attr, cfg.stack_bytes);
  if (!rc) rc = pthread_create(&s->thread, &attr, worker_main, s);
  pthread_attr_destroy(&attr);
  if (rc) {
    atomic_fetch_sub(&pool_live, 1);
    free(s);
    char msg[128];
    msg[0] = 0;
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    const char *txt = strerror_r(rc, msg, sizeof msg);
#else
    const char *txt = strerror_r(rc, msg, sizeof msg) == 0 ? msg : "unknown error";
#endif
    parray_set_error("pthd detour of %lld threads: cannot create a thread (%lld pool threads live): %s",
                     (long long)n, (long long)(live - 1), txt);
    return PARRAY_ERR_THREAD;
  }
  atomic_fetch_add_explicit(&pool_created, 1, memory_order_relaxed);
  *out = s;
  return PARRAY_OK;
}

/* Take k idle workers (creating what is missing) as a chain *head..*tail. */
static parray_status pool_acquire(int64_t k, int64_t n, slot **head, slot **tail) {
  slot *h = NULL, *t = NULL;
  int64_t got = 0;
  pthread_mutex_lock(&pool_lock);
  if (pool_free) {
    h = t = pool_free;
    got = 1;
    while (got < k && t->next) {
      t = t->next;
      got++;
    }
    pool_free = t->next;
    t->next = NULL;
    pool_nidle -= got;
  }
  pthread_mutex_unlock(&pool_lock);
  while (got < k) {
    slot *s;
    parray_status st = pool_spawn(&s, n);
    if (st != PARRAY_OK) {
      pool_release(h, t, got);
      return st;
    }
    if (t)
      t->next = s;
    else
      h = s;
    t = s;
    got++;
  }
  *head = h;
  *tail = t;
  return PARRAY_OK;
}

/* ---------------------------------------------------------------- API */

parray_status parray_pthd_run(int64_t n, parray_pthd_body body, void *ctx) {
  if (n <= 0 || !body) {
    parray_set_error("pthd detour: %s", !body ? "no body" : "thread count must be positive");
    return PARRAY_ERR_INVALID;
  }
  if (n > PTHD_MAX_TEAM) {
    parray_set_error("pthd detour of %lld threads: more than the %lld threads the runtime supports",
                     (long long)n, (long long)PTHD_MAX_TEAM);
    return PARRAY_ERR_THREAD;
  }
  pthread_once(&cfg_once, cfg_init);
  parray_team team;
  team.body = body;
  team.ctx = ctx;
  team.n = n;
  atomic_init(&team.done, (uint32_t)(n - 1) << 1);
  atomic_init(&team.bar_count, (uint32_t)n);
  atomic_init(&team.bar_gen, 0u);
  if (n == 1) {
    body(ctx, &team, 0);
    return PARRAY_OK;
  }

  slot *head, *tail;
  parray_status st = pool_acquire(n - 1, n, &head, &tail);
  if (st != PARRAY_OK) return st;
  int64_t busy = on_pool_thread ? n - 1 : n;
  atomic_fetch_add_explicit(&busy_threads, busy, memory_order_relaxed);
  int64_t tid = 1;
  for (slot *s = head; s; s = s->next, tid++) {
    s->team = &team;
    s->tid = tid;
    job_store(s);
  }
  job_wake_sleepers(head);
  body(ctx, &team, 0);
  await_zero(&team.done);
  atomic_fetch_sub_explicit(&busy_threads, busy, memory_order_relaxed);
  pool_release(head, tail, n - 1);
  return PARRAY_OK;
}

void parray_team_sync(parray_team *team) {
  if (!team || team->n == 1) return;
  /* Our phase's generation cannot advance before we arrive, so this is it. */
  uint32_t gen = atomic_load_explicit(&team->bar_gen, memory_order_acquire) & ~1u;
  if (atomic_fetch_sub_explicit(&team->bar_count, 1u, memory_order_acq_rel) == 1u) {
    /* Last to arrive: re-arm for the next phase, then release everyone. */
    atomic_store_explicit(&team->bar_count, (uint32_t)team->n, memory_order_relaxed);
    publish_new_gen(&team->bar_gen);
  } else {
    await_new_gen(&team->bar_gen, gen);
  }
}

int64_t parray_team_size(const parray_team *team) { return team ? team->n : 0; }

void parray_pthd_shutdown(void) {
  pthread_mutex_lock(&pool_lock);
  slot *list = pool_free;
  pool_free = NULL;
  pool_nidle = 0;
  pthread_mutex_unlock(&pool_lock);
  for (slot *s = list; s; s = s->next) {
    s->quit = 1;
    job_store(s);
  }
  job_wake_sleepers(list);
  while (list) {
    slot *next = list->next;
    pthread_join(list->thread, NULL);
    free(list);
    atomic_fetch_sub(&pool_live, 1);
    list = next;
  }
}

int64_t parray_pthd_threads_created(void) { return atomic_load(&pool_created); }

int64_t parray_pthd_threads_idle(void) {
  pthread_mutex_lock(&pool_lock);
  int64_t n = pool_nidle;
  pthread_mutex_unlock(&pool_lock);
  return n;
}
