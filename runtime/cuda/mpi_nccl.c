/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_nccl.c - NCCL as the transport of distributed device arrays: what a
 * #copy moves between processes that do not reach each other's blocks goes
 * as one group of ncclSend / ncclRecv on the receive lane's stream, over
 * NVLink, PCIe, InfiniBand, RoCE or TCP sockets, as NCCL finds them. One
 * communicator per job, made at the first exchange (process 0's unique id
 * broadcast over MPI) and kept until the process ends.
 * NCCL is loaded at run time: a program built where NCCL was found still
 * runs where it is missing, on the staged path (MPI through host memory).
 * The library tried: PARRAY_NCCL_LIBRARY, else the one found when the
 * runtime was built (PARRAY_NCCL_DEFAULT), else libnccl.so.2 on the
 * loader's path. Built without NCCL's header, NCCL is never available. */
#include "mpi_dev_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(PARRAY_HAVE_NCCL_H)
#include <dlfcn.h>
#include <nccl.h>

/* The NCCL calls the runtime makes, found in the loaded library. */
typedef struct nccl_api {
  ncclResult_t (*get_unique_id)(ncclUniqueId *);
  ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*group_start)(void);
  ncclResult_t (*group_end)(void);
  ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  const char *(*error_string)(ncclResult_t);
  ncclResult_t (*get_version)(int *);
} nccl_api;

static struct {
  bool tried, ok;
  char why[512];
  void *lib;
  nccl_api f;
  ncclComm_t comm;
  bool comm_made;
} nc;

/* dlsym into a function pointer (ISO C has no cast between the two) */
static bool find(void *lib, const char *name, void *fn, size_t size) {
  void *p = dlsym(lib, name);
  if (!p) return false;
  memcpy(fn, &p, size);
  return true;
}

static void *open_library(void) {
  const char *v = getenv("PARRAY_NCCL_LIBRARY");
  if (v && *v) {
    void *lib = dlopen(v, RTLD_NOW | RTLD_LOCAL);
    if (!lib) snprintf(nc.why, sizeof nc.why, "PARRAY_NCCL_LIBRARY=%s cannot be loaded: %s", v, dlerror());
    return lib;
  }
  void *lib = NULL;
#if defined(PARRAY_NCCL_DEFAULT)
  lib = dlopen(PARRAY_NCCL_DEFAULT, RTLD_NOW | RTLD_LOCAL);
#endif
  if (!lib) lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!lib) snprintf(nc.why, sizeof nc.why, "NCCL (libnccl.so.2) cannot be loaded: %s", dlerror());
  return lib;
}

static void load(void) {
  nc.tried = true;
  if (!(nc.lib = open_library())) return;
#define FIND(field, name) find(nc.lib, name, &nc.f.field, sizeof nc.f.field)
  bool all = FIND(get_unique_id, "ncclGetUniqueId") && FIND(comm_init_rank, "ncclCommInitRank") &&
             FIND(group_start, "ncclGroupStart") && FIND(group_end, "ncclGroupEnd") && FIND(send, "ncclSend") &&
             FIND(recv, "ncclRecv") && FIND(error_string, "ncclGetErrorString") && FIND(get_version, "ncclGetVersion");
#undef FIND
  int version = 0;
  if (!all) snprintf(nc.why, sizeof nc.why, "the NCCL library lacks ncclSend or another call the runtime makes");
  else if (nc.f.get_version(&version) != ncclSuccess || version < 20700)
    snprintf(nc.why, sizeof nc.why, "NCCL %d is older than 2.7 (no point-to-point calls)", version);
  else nc.ok = true;
  if (!nc.ok) {
    dlclose(nc.lib);
    nc.lib = NULL;
  }
}

bool pdev_nccl_available(void) {
  if (!nc.tried) load();
  return nc.ok;
}

const char *pdev_nccl_why(void) { return nc.why; }

void pdev_nccl_forbid(const char *why) {
  if (!nc.tried) load();
  if (nc.ok) dlclose(nc.lib);
  nc.lib = NULL, nc.ok = false;
  snprintf(nc.why, sizeof nc.why, "%s", why);
}

static parray_status nccl_fail(ncclResult_t r, const char *call) {
  parray_set_error("process %d: %s failed: %s", parray_mpi_rank(), call, nc.f.error_string(r));
  return PARRAY_ERR_MPI;
}

/* The job's communicator: process 0's unique id, broadcast. */
static parray_status make_comm(void) {
  MPI_Comm comm = pdev_comm();
  if (comm == MPI_COMM_NULL) return PARRAY_ERR_MPI;
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  ncclResult_t r = ncclSuccess;
  if (parray_mpi_rank() == 0) r = nc.f.get_unique_id(&id);
  int bad = r != ncclSuccess;
  /* everyone learns whether process 0 has an id before anyone waits in NCCL */
  if (MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS ||
      MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, comm) != MPI_SUCCESS) {
    parray_set_error("process %d: sending NCCL's unique id failed", parray_mpi_rank());
    return PARRAY_ERR_MPI;
  }
  if (bad) {
    if (r != ncclSuccess) return nccl_fail(r, "ncclGetUniqueId");
    parray_set_error("process %d: process 0 could not make NCCL's unique id", parray_mpi_rank());
    return PARRAY_ERR_MPI;
  }
  r = nc.f.comm_init_rank(&nc.comm, parray_mpi_size(), id, parray_mpi_rank());
  if (r != ncclSuccess) return nccl_fail(r, "ncclCommInitRank");
  nc.comm_made = true;
  return PARRAY_OK;
}

parray_status pdev_nccl_exchange(cudaStream_t s, const parray_mpi_message *msgs, int n) {
  if (!pdev_nccl_available()) {
    parray_set_error("process %d: %s", parray_mpi_rank(), nc.why);
    return PARRAY_ERR_UNSUPPORTED;
  }
  parray_status st = nc.comm_made ? PARRAY_OK : make_comm();
  if (st != PARRAY_OK) return st;
  ncclResult_t r = nc.f.group_start();
  if (r != ncclSuccess) return nccl_fail(r, "ncclGroupStart");
  for (int i = 0; i < n && r == ncclSuccess; i++) {
    const parray_mpi_message *m = &msgs[i];
    r = m->receive ? nc.f.recv(m->mem, m->bytes, ncclInt8, m->peer, nc.comm, s)
                   : nc.f.send(m->mem, m->bytes, ncclInt8, m->peer, nc.comm, s);
  }
  ncclResult_t e = nc.f.group_end(); /* ends the group even after a failed call */
  if (r != ncclSuccess) return nccl_fail(r, "ncclSend/ncclRecv");
  return e == ncclSuccess ? PARRAY_OK : nccl_fail(e, "ncclGroupEnd");
}

#else /* built without NCCL's header */

bool pdev_nccl_available(void) { return false; }
const char *pdev_nccl_why(void) { return "the Parray runtime was built without NCCL"; }
void pdev_nccl_forbid(const char *why) { (void)why; }
parray_status pdev_nccl_exchange(cudaStream_t s, const parray_mpi_message *msgs, int n) {
  (void)s, (void)msgs, (void)n;
  parray_set_error("process %d: %s", parray_mpi_rank(), pdev_nccl_why());
  return PARRAY_ERR_UNSUPPORTED;
}

#endif
