/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_peers.c - the direct path of distributed device arrays: each process
 * maps the blocks of the processes on its node through CUDA IPC (handles
 * exchanged once per array, at its first #copy), so that a #copy writes
 * every byte once, straight into the peer's block over NVLink or PCIe.
 * A node is what NCCL calls a host: the same NCCL_HOSTID where it is set,
 * else the same processor name (MPI_Get_processor_name); processes of
 * different nodes never map each other's blocks, even on one machine. A
 * peer whose GPU this one cannot reach (no peer access), or whose handle
 * does not open, stays unmapped: its pairs take NCCL or the staged path. */
#include "mpi_dev_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one process tells the others about its block of an array. */
typedef struct card {
  cudaIpcMemHandle_t ipc;
  int32_t has_block, gpu;
  char host[MPI_MAX_PROCESSOR_NAME + 16];
} card;

/* per handle: the mappings (NULL until the array's first #copy) */
static struct {
  void ***peers;
  int n;
} map;

MPI_Comm pdev_comm(void) {
  static MPI_Comm comm = MPI_COMM_NULL;
  if (comm == MPI_COMM_NULL && MPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
    parray_set_error("process %d: MPI_Comm_dup failed", parray_mpi_rank());
    comm = MPI_COMM_NULL;
  }
  return comm;
}

static void host_name(char *out, size_t n) {
  const char *v = getenv("NCCL_HOSTID");
  if (v && *v) {
    snprintf(out, n, "hostid:%s", v);
    return;
  }
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS) len = 0;
  name[len < MPI_MAX_PROCESSOR_NAME ? len : MPI_MAX_PROCESSOR_NAME - 1] = 0;
  snprintf(out, n, "name:%s", name);
}

bool pdev_gpus_shared(int gpu, char *why, size_t n) {
  typedef struct gpu_card {
    char host[MPI_MAX_PROCESSOR_NAME + 16];
    char bus[32];
  } gpu_card;
  int P = parray_mpi_size();
  MPI_Comm comm = pdev_comm();
  gpu_card *all = calloc((size_t)P + 1, sizeof *all);
  if (!all || comm == MPI_COMM_NULL) {
    free(all);
    snprintf(why, n, "process %d could not tell the others its GPU", parray_mpi_rank());
    return true;
  }
  gpu_card *c = &all[P];
  host_name(c->host, sizeof c->host);
  if (cudaDeviceGetPCIBusId(c->bus, (int)sizeof c->bus, gpu) != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(c->bus, sizeof c->bus, "device %d", gpu);
  }
  bool shared = MPI_Allgather(c, (int)sizeof *c, MPI_BYTE, all, (int)sizeof *c, MPI_BYTE, comm) != MPI_SUCCESS;
  if (shared) snprintf(why, n, "process %d could not tell the others its GPU", parray_mpi_rank());
  for (int p = 0; p < P && !shared; p++)
    for (int q = p + 1; q < P && !shared; q++)
      if (!strcmp(all[p].host, all[q].host) && !strcmp(all[p].bus, all[q].bus)) {
        snprintf(why, n, "processes %d and %d share the GPU at %s (NCCL takes one GPU per process)", p, q, all[p].bus);
        shared = true;
      }
  free(all);
  return shared;
}

/* Open q's block when it is on this node and its GPU is reachable. */
static void *open_peer(const card *mine, const card *q) {
  if (!q->has_block || strcmp(mine->host, q->host) != 0) return NULL;
  int can = q->gpu == mine->gpu;
  if (!can && cudaDeviceCanAccessPeer(&can, mine->gpu, q->gpu) != cudaSuccess) can = 0;
  void *p = NULL;
  if (!can || cudaIpcOpenMemHandle(&p, q->ipc, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
    (void)cudaGetLastError(); /* not a sticky error: this pair takes another path */
    return NULL;
  }
  return p;
}

static bool grow(int handle) {
  if (handle < map.n) return true;
  int n = handle + 8;
  void ***p = realloc(map.peers, (size_t)n * sizeof *p);
  if (!p) return false;
  for (int i = map.n; i < n; i++) p[i] = NULL;
  map.peers = p, map.n = n;
  return true;
}

void *const *pdev_peers(int handle, void *mine, int gpu) {
  if (handle < 0 || !grow(handle)) {
    parray_set_error("process %d: out of memory for the peers' blocks", parray_mpi_rank());
    return NULL;
  }
  if (map.peers[handle]) return map.peers[handle];
  int P = parray_mpi_size(), me = parray_mpi_rank();
  card *all = calloc((size_t)P + 1, sizeof *all);
  void **peers = calloc((size_t)P, sizeof *peers);
  MPI_Comm comm = pdev_comm();
  if (!all || !peers || comm == MPI_COMM_NULL) {
    free(all), free(peers);
    if (comm != MPI_COMM_NULL) parray_set_error("process %d: out of memory for the peers' blocks", me);
    return NULL;
  }
  card *c = &all[P];
  c->gpu = gpu;
  host_name(c->host, sizeof c->host);
  c->has_block = mine && cudaIpcGetMemHandle(&c->ipc, mine) == cudaSuccess;
  if (mine && !c->has_block) (void)cudaGetLastError();
  if (MPI_Allgather(c, (int)sizeof *c, MPI_BYTE, all, (int)sizeof *c, MPI_BYTE, comm) != MPI_SUCCESS) {
    parray_set_error("process %d: exchanging the blocks' IPC handles failed", me);
    free(all), free(peers);
    return NULL;
  }
  for (int q = 0; q < P; q++) peers[q] = q == me ? mine : open_peer(c, &all[q]);
  free(all);
  map.peers[handle] = peers;
  return peers;
}

void pdev_peers_forget(int handle) {
  if (handle < 0 || handle >= map.n || !map.peers[handle]) return;
  void **peers = map.peers[handle];
  for (int q = 0; q < parray_mpi_size(); q++)
    if (q != parray_mpi_rank() && peers[q]) cudaIpcCloseMemHandle(peers[q]);
  free(peers);
  map.peers[handle] = NULL;
}
