/* SPDX-License-Identifier: Apache-2.0 */
/* inject.c - an NVTX v3 tool for the tests of profiler ranges: a shared
 * library that NVTX loads when NVTX_INJECTION64_PATH names it. Its
 * InitializeInjectionNvtx2 asks NVTX's export table for the function
 * tables of the CORE and CORE2 modules and puts its own functions in the
 * slots of domain creation, string registration, and range push and pop
 * (with and without a domain). Each call is appended to the file named by
 * NVTX_TEST_LOG, one line each:
 *     domain<TAB>NAME   register<TAB>DOMAIN<TAB>NAME
 *     push<TAB>DOMAIN<TAB>NAME      pop<TAB>DOMAIN
 * (a push in a domain whose name is not a registered string is
 * "push-unregistered"; NAME as registered or given; DOMAIN "-" for the
 * default domain). NVTX calls the initialization once per module that
 * holds its code (a program and a shared library each): the log is opened
 * by the first. A domain handle is the address of its record below, a
 * registered string's handle the address of its copy, so the log shows
 * what the program asked for and not what it passed by chance. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tool_domain {
  char name[64];
} tool_domain;

typedef struct tool_state {
  pthread_mutex_t lock;
  FILE *log;
  tool_domain domains[16];
  int ndomains;
} tool_state;

static tool_state tool = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const char *domain_name(nvtxDomainHandle_t d) {
  for (int i = 0; i < tool.ndomains; i++)
    if ((void *)d == (void *)&tool.domains[i]) return tool.domains[i].name;
  return d ? "?unknown-domain" : "-";
}

/* one line of the log; a domain line names no domain of its own */
static void log_line(const char *what, nvtxDomainHandle_t d, const char *name) {
  pthread_mutex_lock(&tool.lock);
  if (tool.log) {
    if (!strcmp(what, "domain")) fprintf(tool.log, "%s\t%s\n", what, name);
    else if (name) fprintf(tool.log, "%s\t%s\t%s\n", what, domain_name(d), name);
    else fprintf(tool.log, "%s\t%s\n", what, domain_name(d));
    fflush(tool.log);
  }
  pthread_mutex_unlock(&tool.lock);
}

/* the name an event carries, whatever its message type */
static const char *event_name(const nvtxEventAttributes_t *a) {
  if (!a) return "?no-attributes";
  switch (a->messageType) {
  case NVTX_MESSAGE_TYPE_ASCII: return a->message.ascii ? a->message.ascii : "?null";
  case NVTX_MESSAGE_TYPE_REGISTERED: return a->message.registered ? (const char *)a->message.registered : "?null";
  default: return "?other-message-type";
  }
}

static nvtxDomainHandle_t NVTX_API domain_create(const char *name) {
  log_line("domain", NULL, name);
  pthread_mutex_lock(&tool.lock);
  tool_domain *d = NULL;
  for (int i = 0; i < tool.ndomains && !d; i++)
    if (!strcmp(tool.domains[i].name, name)) d = &tool.domains[i];
  if (!d && tool.ndomains < 16) {
    d = &tool.domains[tool.ndomains++];
    snprintf(d->name, sizeof d->name, "%s", name);
  }
  pthread_mutex_unlock(&tool.lock);
  return (nvtxDomainHandle_t)(void *)d;
}

static nvtxStringHandle_t NVTX_API register_string(nvtxDomainHandle_t d, const char *s) {
  log_line("register", d, s);
  size_t n = strlen(s) + 1;
  char *copy = malloc(n); /* kept for the process's life, as a tool keeps registered strings */
  if (copy) memcpy(copy, s, n);
  return (nvtxStringHandle_t)(void *)copy;
}

/* a push in a domain whose name is not a registered string says so */
static int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  log_line(a && a->messageType == NVTX_MESSAGE_TYPE_REGISTERED ? "push" : "push-unregistered", d, event_name(a));
  return 0;
}

static int NVTX_API domain_pop(nvtxDomainHandle_t d) {
  log_line("pop", d, NULL);
  return 0;
}

static int NVTX_API push_ascii(const char *s) {
  log_line("push", NULL, s);
  return 0;
}

static int NVTX_API push_ex(const nvtxEventAttributes_t *a) {
  log_line("push", NULL, event_name(a));
  return 0;
}

static int NVTX_API pop_default(void) {
  log_line("pop", NULL, NULL);
  return 0;
}

/* put fn into slot id of a module's table (table[id] points at NVTX's pointer) */
static int hook(NvtxFunctionTable table, unsigned size, unsigned id, NvtxFunctionPointer fn) {
  if (id > size || !table[id]) return 0;
  *table[id] = fn;
  return 1;
}

NVTX_DYNAMIC_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);

NVTX_DYNAMIC_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
  const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
  if (!cb || cb->struct_size < sizeof *cb) return 0;
  const char *path = getenv("NVTX_TEST_LOG");
  pthread_mutex_lock(&tool.lock);
  if (!tool.log && path) tool.log = fopen(path, "a");
  pthread_mutex_unlock(&tool.lock);
  if (!tool.log) {
    fprintf(stderr, "inject: NVTX_TEST_LOG names no file that can be written\n");
    return 0;
  }
  NvtxFunctionTable core = NULL, core2 = NULL;
  unsigned n1 = 0, n2 = 0;
  if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &n1) ||
      !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &n2))
    return 0;
  typedef NvtxFunctionPointer fp;
  int ok = hook(core, n1, NVTX_CBID_CORE_RangePushA, (fp)push_ascii) &&
           hook(core, n1, NVTX_CBID_CORE_RangePushEx, (fp)push_ex) &&
           hook(core, n1, NVTX_CBID_CORE_RangePop, (fp)pop_default) &&
           hook(core2, n2, NVTX_CBID_CORE2_DomainCreateA, (fp)domain_create) &&
           hook(core2, n2, NVTX_CBID_CORE2_DomainRegisterStringA, (fp)register_string) &&
           hook(core2, n2, NVTX_CBID_CORE2_DomainRangePushEx, (fp)domain_push) &&
           hook(core2, n2, NVTX_CBID_CORE2_DomainRangePop, (fp)domain_pop);
  return ok;
}
