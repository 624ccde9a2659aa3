/* SPDX-License-Identifier: Apache-2.0 */
/* fault.c - a generated program never dies without its line: each thread
 * records the .pc directive it is running (parray_site_enter /
 * parray_site_restore, called by generated code around host #copy and
 * #detour code and at the start of every host detour body), and a handler
 * of SIGSEGV, SIGBUS and SIGFPE, installed at the first record, prints that
 * site (or the last one the thread ran) before the process dies of the
 * signal as it would have (docs/language.md, "Faults at run time"). A handler set before
 * it (Open MPI's, a sanitizer's, the program's) runs after the message; one
 * set later replaces it; PARRAY_FAULT_HANDLER=0 leaves the signals alone. */
#include "parray/core.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the thread's directive and the last one it left (initial-exec: read by
 * the signal handler without a call into the dynamic linker) */
#if defined(__GNUC__)
#define FAULT_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define FAULT_TLS _Thread_local
#endif
static FAULT_TLS const parray_loc *site_now;
static FAULT_TLS const parray_loc *site_last;

static pthread_once_t install_once = PTHREAD_ONCE_INIT;
/* the signals handled, and the actions they had before */
static const int fault_sigs[] = {SIGSEGV, SIGBUS, SIGFPE};
#define NSIGS (sizeof fault_sigs / sizeof fault_sigs[0])
static struct sigaction fault_prev[NSIGS];

/* ---- the message, with async-signal-safe writes only ------------------------ */

typedef struct line_buf {
  char s[1024];
  size_t n;
} line_buf;

static void put(line_buf *b, const char *t) {
  for (; t && *t && b->n < sizeof b->s - 1; t++) b->s[b->n++] = *t == '\n' ? ' ' : *t;
}

static void put_uint(line_buf *b, uintmax_t v, unsigned base) {
  char d[32];
  int k = 0;
  do d[k++] = "0123456789abcdef"[v % base], v /= base;
  while (v && k < (int)sizeof d);
  if (base == 16) put(b, "0x");
  while (k > 0 && b->n < sizeof b->s - 1) b->s[b->n++] = d[--k];
}

static void put_site(line_buf *b, const parray_loc *s) {
  put(b, s->file ? s->file : "?");
  put(b, ":");
  put_uint(b, s->line > 0 ? (uintmax_t)s->line : 0, 10);
  put(b, ": ");
}

static void flush_line(line_buf *b) {
  b->s[b->n++] = '\n';
  for (size_t o = 0; o < b->n;) {
    ssize_t w = write(STDERR_FILENO, b->s + o, b->n - o);
    if (w <= 0) break;
    o += (size_t)w;
  }
  b->n = 0;
}

/* what the signal means, from its number and code */
static void put_cause(line_buf *b, const siginfo_t *si) {
  switch (si->si_signo) {
  case SIGSEGV:
    put(b, "SIGSEGV, an invalid memory access (address ");
    put_uint(b, (uintptr_t)si->si_addr, 16);
    put(b, ")");
    break;
  case SIGBUS:
    put(b, "SIGBUS, a bad memory access (address ");
    put_uint(b, (uintptr_t)si->si_addr, 16);
    put(b, ")");
    break;
  default:
    put(b, si->si_code == FPE_INTDIV   ? "SIGFPE, an integer division by zero"
           : si->si_code == FPE_INTOVF ? "SIGFPE, an integer overflow"
                                       : "SIGFPE, an arithmetic error");
    break;
  }
}

static void on_fault(int sig, siginfo_t *si, void *uctx) {
  line_buf b = {.n = 0};
  const parray_loc *now = site_now, *last = site_last;
  if (now) put_site(&b, now);
  put(&b, "error: the program received ");
  put_cause(&b, si);
  if (now && now->what && *now->what) {
    put(&b, " (in ");
    put(&b, now->what);
    put(&b, ")");
  } else if (!now) {
    put(&b, last ? " after the last Parray directive this thread ran" : " before this thread ran any Parray directive");
  }
  flush_line(&b);
  if (!now && last) {
    put_site(&b, last);
    put(&b, "note: the last Parray directive this thread ran (");
    put(&b, last->what);
    put(&b, ")");
    flush_line(&b);
  }
  /* the handler that was there before, else die of the signal as without
   * one (status, core dump) */
  for (size_t i = 0; i < NSIGS; i++) {
    if (fault_sigs[i] != sig) continue;
    const struct sigaction *p = &fault_prev[i];
    if (p->sa_flags & SA_SIGINFO) {
      sigaction(sig, p, NULL);
      p->sa_sigaction(sig, si, uctx);
      return;
    }
    if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
      sigaction(sig, p, NULL);
      p->sa_handler(sig);
      return;
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

/* ---- installation ----------------------------------------------------------- */

static void install(void) {
  const char *v = getenv("PARRAY_FAULT_HANDLER");
  if (v && *v == '0') return;
  /* a stack of its own for the main thread's handler: a stack overflow is reported too */
  static char alt[1 << 16];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
  stack_t old;
  if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE)) sigaltstack(&ss, NULL);
  for (size_t i = 0; i < NSIGS; i++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    if (sigaction(fault_sigs[i], &sa, &fault_prev[i]) != 0) fault_prev[i].sa_handler = SIG_DFL;
  }
}

const parray_loc *parray_site_enter(const parray_loc *site) {
  pthread_once(&install_once, install);
  const parray_loc *prev = site_now;
  site_now = site;
  return prev;
}

void parray_site_restore(const parray_loc *prev) {
  if (site_now) site_last = site_now;
  site_now = prev;
}
