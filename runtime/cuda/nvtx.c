/* SPDX-License-Identifier: Apache-2.0 */
/* nvtx.c - the profiler ranges of directives (parray_range_push/pop,
 * docs/cuda.md "Profiler ranges"), on NVTX v3, the header-only NVTX of the
 * CUDA toolkit. Each site of generated code owns a static parray_range
 * holding its name ("gpu.pc:21 #copy H(ha) to M(a)", written by pac); the
 * first push of a site creates the domain "parray" (once per process) and
 * registers the name in it, and stores both handles in the site, so that a
 * push afterwards is one event on a registered string: no formatting, no
 * copy, no lookup. NVTX itself loads the tool named by NVTX_INJECTION64_PATH
 * at its first call; without one, its calls return at once. Ranges nest per
 * host thread (push/pop). */
#include "parray/cuda.h"

#include <nvtx3/nvToolsExt.h>
#include <pthread.h>

static pthread_once_t domain_once = PTHREAD_ONCE_INIT;
static nvtxDomainHandle_t parray_domain;

static void create_domain(void) { parray_domain = nvtxDomainCreateA("parray"); }

/* The first push of a site (on any thread; two threads racing register the
 * same name twice, and both store the same handles): the domain and the
 * name's handle, published by ready. */
static void site_register(parray_range *r) {
  pthread_once(&domain_once, create_domain);
  nvtxStringHandle_t h = nvtxDomainRegisterStringA(parray_domain, r->name);
  __atomic_store_n(&r->domain, (void *)parray_domain, __ATOMIC_RELAXED);
  __atomic_store_n(&r->handle, (void *)h, __ATOMIC_RELAXED);
  __atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
}

void parray_range_push(parray_range *r) {
  if (!__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE)) site_register(r);
  nvtxEventAttributes_t a = {0};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  void *h = __atomic_load_n(&r->handle, __ATOMIC_RELAXED);
  if (h) {
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = (nvtxStringHandle_t)h;
  } else { /* a tool that registers no strings still gets the name */
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = r->name;
  }
  nvtxDomainRangePushEx((nvtxDomainHandle_t)__atomic_load_n(&r->domain, __ATOMIC_RELAXED), &a);
}

void parray_range_pop(parray_range *r) {
  nvtxDomainRangePop((nvtxDomainHandle_t)__atomic_load_n(&r->domain, __ATOMIC_RELAXED));
}
