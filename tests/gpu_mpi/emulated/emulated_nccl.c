/* emulated_nccl.c - the shared library emulated_nccl: the NCCL calls that
 * runtime/cuda/mpi_nccl.c loads with dlopen / dlsym (PARRAY_NCCL_LIBRARY
 * names this library in the tests of tests/gpu_mpi), over MPI on the
 * emulated "device" memory (host memory, emulated_cudart.c), so that the
 * runtime's NCCL transport runs under mpirun without a GPU.
 * ncclCommInitRank duplicates MPI_COMM_WORLD (nranks and rank must be the
 * world's, the unique id process 0's); ncclGroupStart / ncclGroupEnd
 * collect the ncclSend / ncclRecv calls (outside a group a call runs at
 * once); the end of the outermost group posts an MPI_Irecv, then an
 * MPI_Isend, for each (pieces of at most 1 GiB) and waits for them all, so
 * that the work is done when the call returns, as everything "on a stream"
 * of the emulation is. A buffer outside the emulated device memory is an
 * error (as NCCL needs device memory), when the program exports
 * emulated_cuda_device_range. EMULATED_NCCL_LOG=1: each process prints to
 * stderr a line per communicator made and per group ended, for the tests'
 * checks of what went over NCCL:
 *   emulated NCCL: process R: group G: send 1:256 2:256; recv 3:256
 * ("group G: nothing" for an empty group; peers in the order of the calls,
 * bytes after the colon). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nccl.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIECE ((size_t)1 << 30) /* MPI counts are ints: messages go in pieces of at most 1 GiB */
#define TAG 0x4e43
#define ID_MAGIC "parray emulated NCCL"

struct ncclComm {
  MPI_Comm comm;
  int rank, nranks;
};

typedef struct op {
  int receive;
  char *buf;
  size_t bytes;
  int peer;
  ncclComm_t comm;
} op;

static struct {
  int depth;      /* ncclGroupStart calls not yet ended */
  op *ops;        /* the group's calls */
  int nops, cap;
  int failed;     /* a call of the group failed: the group is dropped */
  long groups;    /* groups ended (the log's numbers) */
  int (*device_range)(const void *, size_t);
  int looked_up;
} st;

static int logging(void) {
  const char *v = getenv("EMULATED_NCCL_LOG");
  return v && *v == '1';
}

static int world_rank(void) {
  int up = 0, r = -1;
  MPI_Initialized(&up);
  if (up) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

static void complain(const char *msg) {
  fprintf(stderr, "emulated NCCL: process %d: %s\n", world_rank(), msg);
  fflush(stderr);
}

ncclResult_t ncclGetVersion(int *version) {
  if (!version) return ncclInvalidArgument;
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t r) {
  switch (r) {
  case ncclSuccess: return "no error";
  case ncclUnhandledCudaError: return "unhandled cuda error (emulated)";
  case ncclSystemError: return "unhandled system error (emulated: an MPI call failed)";
  case ncclInternalError: return "internal error (emulated)";
  case ncclInvalidArgument: return "invalid argument (emulated)";
  case ncclInvalidUsage: return "invalid usage (emulated)";
  case ncclRemoteError: return "remote process exited or there was a network error (emulated)";
  case ncclInProgress: return "NCCL operation in progress (emulated)";
  default: return "unknown result code (emulated)";
  }
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  static unsigned counter;
  if (!id) return ncclInvalidArgument;
  memset(id, 0, sizeof *id);
  snprintf(id->internal, sizeof id->internal, "%s %d %u", ID_MAGIC, (int)getpid(), ++counter);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
  int up = 0, size = 0, me = -1;
  if (!comm || MPI_Initialized(&up) != MPI_SUCCESS || !up) {
    complain("ncclCommInitRank before MPI_Init");
    return ncclInvalidUsage;
  }
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  struct ncclComm *c = calloc(1, sizeof *c);
  if (!c) return ncclSystemError;
  /* collective over the world even when this process's arguments are
   * wrong, so that no process waits for one that gave up */
  if (MPI_Comm_dup(MPI_COMM_WORLD, &c->comm) != MPI_SUCCESS) {
    free(c);
    return ncclSystemError;
  }
  ncclUniqueId root = id;
  int bad = nranks != size || rank != me || strncmp(id.internal, ID_MAGIC, strlen(ID_MAGIC)) != 0;
  if (MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, c->comm) != MPI_SUCCESS) bad = 1;
  bad = bad || memcmp(&root, &id, sizeof id) != 0;
  int any = bad;
  if (MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c->comm) != MPI_SUCCESS) any = 1;
  if (any) {
    char msg[160];
    snprintf(msg, sizeof msg, "ncclCommInitRank(nranks %d, rank %d) in a world of %d processes (this one %d)%s%s",
             nranks, rank, size, me, memcmp(&root, &id, sizeof id) ? ", with another unique id than process 0's" : "",
             bad ? "" : ": another process's arguments are wrong");
    complain(msg);
    MPI_Comm_free(&c->comm);
    free(c);
    return ncclInvalidArgument;
  }
  c->rank = rank, c->nranks = nranks;
  *comm = c;
  if (logging()) {
    fprintf(stderr, "emulated NCCL: process %d: communicator of %d ranks\n", rank, nranks);
    fflush(stderr);
  }
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm) return ncclInvalidArgument;
  MPI_Comm_free(&comm->comm);
  free(comm);
  return ncclSuccess;
}

static size_t type_size(ncclDataType_t t) {
  static const size_t size[ncclNumTypes] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
  return (int)t >= 0 && t < ncclNumTypes ? size[t] : 0;
}

/* the group's messages: every receive posted, then every send, then all
 * waited for */
static ncclResult_t run_group(void) {
  ncclResult_t res = ncclSuccess;
  size_t nreq = 0;
  for (int i = 0; i < st.nops; i++) nreq += (st.ops[i].bytes + PIECE - 1) / PIECE;
  MPI_Request *req = malloc((nreq + 1) * sizeof *req);
  if (!req) return ncclSystemError;
  size_t n = 0;
  for (int pass = 1; pass >= 0 && res == ncclSuccess; pass--)
    for (int i = 0; i < st.nops && res == ncclSuccess; i++) {
      const op *o = &st.ops[i];
      if (o->receive != pass) continue;
      for (size_t off = 0; off < o->bytes; off += PIECE) {
        int cnt = (int)(o->bytes - off < PIECE ? o->bytes - off : PIECE);
        int rc = o->receive ? MPI_Irecv(o->buf + off, cnt, MPI_BYTE, o->peer, TAG, o->comm->comm, &req[n])
                            : MPI_Isend(o->buf + off, cnt, MPI_BYTE, o->peer, TAG, o->comm->comm, &req[n]);
        if (rc != MPI_SUCCESS) {
          res = ncclSystemError;
          break;
        }
        n++;
      }
    }
  if (n && MPI_Waitall((int)n, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) res = ncclSystemError;
  free(req);
  return res;
}

static void log_group(void) {
  char line[4096];
  size_t k = 0;
  int rank = st.nops ? st.ops[0].comm->rank : world_rank();
  k += (size_t)snprintf(line, sizeof line, "emulated NCCL: process %d: group %ld:", rank, st.groups);
  if (!st.nops) k += (size_t)snprintf(line + k, sizeof line - k, " nothing");
  const char *sep = " ";
  for (int pass = 0; pass < 2; pass++) {
    const char *word = pass ? "recv" : "send";
    for (int i = 0; i < st.nops && k < sizeof line - 64; i++) {
      if (st.ops[i].receive != pass) continue;
      k += (size_t)snprintf(line + k, sizeof line - k, "%s%s%s%d:%zu", word ? sep : " ", word ? word : "",
                            word ? " " : "", st.ops[i].peer, st.ops[i].bytes);
      word = NULL, sep = "; ";
    }
  }
  fprintf(stderr, "%s\n", line);
  fflush(stderr);
}

static ncclResult_t end_group(void) {
  ncclResult_t res = st.failed ? ncclInvalidUsage : run_group();
  st.groups++;
  if (logging()) log_group();
  st.nops = 0, st.failed = 0;
  return res;
}

ncclResult_t ncclGroupStart(void) {
  st.depth++;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void) {
  if (st.depth == 0) {
    complain("ncclGroupEnd without ncclGroupStart");
    return ncclInvalidUsage;
  }
  return --st.depth ? ncclSuccess : end_group();
}

static ncclResult_t add(int receive, const void *buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm) {
  if (!st.looked_up) {
    void *f = dlsym(RTLD_DEFAULT, "emulated_cuda_device_range");
    if (f) memcpy(&st.device_range, &f, sizeof f);
    st.looked_up = 1;
  }
  size_t es = type_size(type), bytes = count * es;
  char msg[200] = "";
  if (!comm) snprintf(msg, sizeof msg, "%s without a communicator", receive ? "ncclRecv" : "ncclSend");
  else if (!es) snprintf(msg, sizeof msg, "%s: data type %d", receive ? "ncclRecv" : "ncclSend", (int)type);
  else if (peer < 0 || peer >= comm->nranks)
    snprintf(msg, sizeof msg, "%s: peer %d of %d ranks", receive ? "ncclRecv" : "ncclSend", peer, comm->nranks);
  else if (bytes && (!buf || (st.device_range && !st.device_range(buf, bytes))))
    snprintf(msg, sizeof msg, "%s of %zu bytes with peer %d: %p is not in device memory",
             receive ? "ncclRecv" : "ncclSend", bytes, peer, buf);
  if (*msg) {
    complain(msg);
    if (st.depth) st.failed = 1;
    return ncclInvalidArgument;
  }
  if (st.nops == st.cap) {
    int cap = st.cap ? 2 * st.cap : 16;
    op *t = realloc(st.ops, (size_t)cap * sizeof *t);
    if (!t) {
      if (st.depth) st.failed = 1;
      return ncclSystemError;
    }
    st.ops = t, st.cap = cap;
  }
  st.ops[st.nops++] = (op){receive, (char *)buf, bytes, peer, comm};
  return st.depth ? ncclSuccess : end_group(); /* outside a group: at once */
}

ncclResult_t ncclSend(const void *buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t s) {
  (void)s;
  return add(0, buf, count, type, peer, comm);
}

ncclResult_t ncclRecv(void *buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t s) {
  (void)s;
  return add(1, buf, count, type, peer, comm);
}
