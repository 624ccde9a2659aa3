/* emulated_cudart.c - the CUDA runtime calls with state of the emulation
 * (cuda_runtime_api.h here): devices (EMULATED_GPUS of them, default 1; peer
 * access between two of them unless EMULATED_PEER_ACCESS=0), the last
 * error, and "device" memory that other processes of the machine map, as
 * CUDA IPC does: each cudaMalloc is a memfd mapped MAP_SHARED, kept in a
 * table (pointer -> fd, size, device); an IPC handle carries the owner's
 * process id, the fd, the size and the block's offset in the memfd, and
 * cudaIpcOpenMemHandle maps /proc/PID/fd/FD. As on CUDA, a handle is made
 * for the start of an allocation only (another pointer fails), is not
 * opened by the process that made it, and is opened with
 * cudaIpcMemLazyEnablePeerAccess from a device that reaches the owner's.
 * The sanitizers do not see into these mappings, so each block ends 16-byte
 * aligned just before an inaccessible page (in the owner and in every
 * process that maps it: a write past the end faults at once), and the
 * poison bytes around it are checked when it is freed (a write just before
 * or after it ends the process, naming the block). emulated_cuda_device_range
 * tells the emulated NCCL (emulated_nccl.c) whether a range lies in device
 * memory. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cuda_runtime_api.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define POISON 0x7f
#define MAX_BYTES ((size_t)1 << 36) /* 64 GiB: more is out of memory */
#define HANDLE_MAGIC 0x50415249u    /* "PARI" */

/* one mapping of device memory: an allocation of this process, or a peer's
 * allocation opened through its IPC handle */
typedef struct region {
  char *base;   /* the mapping: span bytes of the memfd, then an inaccessible page */
  size_t span;
  char *p;      /* the block: base + span - bytes rounded up to 16 */
  size_t bytes; /* as asked for */
  int fd;       /* the memfd (allocations; -1 for an opened handle) */
  int device;
  int opened;
} region;

static struct {
  region *r;
  int n, cap;
  int current;          /* the current device */
  cudaError_t last;     /* the last error */
} emu;

/* what a cudaIpcMemHandle_t holds */
typedef struct handle_data {
  uint32_t magic;
  int32_t pid, fd, device;
  uint64_t bytes, span, offset;
} handle_data;

static cudaError_t fail(cudaError_t e) {
  emu.last = e;
  return e;
}

const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
  case cudaSuccess: return "no error";
  case cudaErrorInvalidValue: return "invalid argument (emulated)";
  case cudaErrorMemoryAllocation: return "out of memory (emulated)";
  case cudaErrorInvalidDevice: return "invalid device ordinal (emulated)";
  case cudaErrorMapBufferObjectFailed: return "mapping of buffer object failed (emulated)";
  case cudaErrorPeerAccessUnsupported: return "peer access is not supported between these two devices (emulated)";
  case cudaErrorDeviceUninitialized: return "invalid device context (emulated)";
  case cudaErrorNotReady: return "device not ready (emulated)";
  default: return "unknown error (emulated)";
  }
}

cudaError_t cudaGetLastError(void) {
  cudaError_t e = emu.last;
  emu.last = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) { return emu.last; }

/* read at every call: a test may change it */
static int device_count(void) {
  const char *v = getenv("EMULATED_GPUS");
  int n = v && *v ? atoi(v) : 1;
  return n < 0 ? 0 : n > 64 ? 64 : n;
}

cudaError_t cudaGetDeviceCount(int *n) {
  *n = device_count();
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int d) {
  if (d < 0 || d >= device_count()) return fail(cudaErrorInvalidDevice);
  emu.current = d;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *d) {
  *d = emu.current;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int device) {
  if (device < 0 || device >= device_count()) return fail(cudaErrorInvalidDevice);
  const char *v = getenv("EMULATED_SAME_GPU");
  if (v && *v == '1') snprintf(id, (size_t)len, "emulated:%d", device);
  else snprintf(id, (size_t)len, "emulated:%ld:%d", (long)getpid(), device);
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer) {
  int n = device_count();
  if (device < 0 || device >= n || peer < 0 || peer >= n) return fail(cudaErrorInvalidDevice);
  const char *v = getenv("EMULATED_PEER_ACCESS");
  *can = device != peer && !(v && *v == '0');
  return cudaSuccess;
}

static region *find(const void *p) {
  for (int i = 0; i < emu.n; i++)
    if (emu.r[i].p == p) return &emu.r[i];
  return NULL;
}

static cudaError_t add(region r) {
  if (emu.n == emu.cap) {
    int cap = emu.cap ? 2 * emu.cap : 16;
    region *t = realloc(emu.r, (size_t)cap * sizeof *t);
    if (!t) return cudaErrorMemoryAllocation;
    emu.r = t, emu.cap = cap;
  }
  emu.r[emu.n++] = r;
  return cudaSuccess;
}

static void drop(region *r) { *r = emu.r[--emu.n]; }

static size_t page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* the block's place in span bytes: its end 16-byte aligned at the span's end */
static size_t block_offset(size_t span, size_t bytes) { return span - ((bytes ? bytes : 1) + 15) / 16 * 16; }

/* span bytes of fd, then an inaccessible page; NULL on failure */
static char *map_span(int fd, size_t span) {
  char *base = mmap(NULL, span + page(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return NULL;
  if (mmap(base, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
    munmap(base, span + page());
    return NULL;
  }
  return base;
}

cudaError_t cudaMalloc(void **p, size_t bytes) {
  *p = NULL;
  if (bytes > MAX_BYTES) return fail(cudaErrorMemoryAllocation);
  size_t span = ((bytes ? bytes : 1) + page() - 1) / page() * page();
  int fd = memfd_create("parray-emulated-device", MFD_CLOEXEC);
  if (fd < 0) return fail(cudaErrorMemoryAllocation);
  char *base = ftruncate(fd, (off_t)span) == 0 ? map_span(fd, span) : NULL;
  region r = {base, span, base + block_offset(span, bytes), bytes, fd, emu.current, 0};
  if (!base || add(r) != cudaSuccess) {
    if (base) munmap(base, span + page());
    close(fd);
    return fail(cudaErrorMemoryAllocation);
  }
  memset(base, POISON, span);
  *p = r.p;
  return cudaSuccess;
}

/* the poison bytes around a block are intact, else the process ends */
static void check_around(const region *r) {
  size_t before = (size_t)(r->p - r->base), after = r->span - before - r->bytes;
  for (size_t i = 0; i < before + after; i++) {
    const char *c = i < before ? r->base + i : r->p + r->bytes + (i - before);
    if ((unsigned char)*c != POISON) {
      fprintf(stderr, "emulated CUDA: process %d: a write %s the device block of %zu bytes at %p (byte %td from its "
              "start), seen when it was freed\n", (int)getpid(), c < r->p ? "before" : "after", r->bytes,
              (void *)r->p, c - r->p);
      abort();
    }
  }
}

cudaError_t cudaFree(void *p) {
  if (!p) return cudaSuccess;
  region *r = find(p);
  if (!r || r->opened) return fail(cudaErrorInvalidValue); /* not an allocation (an opened handle is closed) */
  check_around(r);
  munmap(r->base, r->span + page());
  close(r->fd);
  drop(r);
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void **p, size_t bytes) {
  if (bytes > MAX_BYTES || !(*p = malloc(bytes ? bytes : 1))) return fail(cudaErrorMemoryAllocation);
  memset(*p, POISON, bytes);
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void *p) {
  free(p);
  return cudaSuccess;
}

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p) {
  region *r = find(p);
  if (!r || r->opened) return fail(cudaErrorInvalidValue); /* the start of an allocation of this process only */
  handle_data d = {HANDLE_MAGIC, (int32_t)getpid(), r->fd, r->device, r->bytes, r->span, (uint64_t)(r->p - r->base)};
  memset(h, 0, sizeof *h);
  memcpy(h->reserved, &d, sizeof d);
  return cudaSuccess;
}

cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned flags) {
  handle_data d;
  memcpy(&d, h.reserved, sizeof d);
  *p = NULL;
  if (d.magic != HANDLE_MAGIC || flags != cudaIpcMemLazyEnablePeerAccess || d.offset >= d.span)
    return fail(cudaErrorInvalidValue);
  if (d.pid == (int32_t)getpid()) return fail(cudaErrorDeviceUninitialized); /* CUDA: not in the process that made it */
  if (d.device != emu.current) {
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, emu.current, d.device) != cudaSuccess || !can)
      return fail(cudaErrorPeerAccessUnsupported);
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)d.pid, (int)d.fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return fail(cudaErrorMapBufferObjectFailed);
  char *base = map_span(fd, (size_t)d.span);
  close(fd); /* the mapping keeps the memory */
  if (!base) return fail(cudaErrorMapBufferObjectFailed);
  region r = {base, (size_t)d.span, base + d.offset, (size_t)d.bytes, -1, d.device, 1};
  if (add(r) != cudaSuccess) {
    munmap(base, r.span + page());
    return fail(cudaErrorMemoryAllocation);
  }
  *p = r.p;
  return cudaSuccess;
}

cudaError_t cudaIpcCloseMemHandle(void *p) {
  region *r = find(p);
  if (!r || !r->opened) return fail(cudaErrorInvalidValue);
  munmap(r->base, r->span + page());
  drop(r);
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p) {
  if (!a) return fail(cudaErrorInvalidValue);
  memset(a, 0, sizeof *a);
  a->device = -2;
  const char *c = (const char *)p;
  for (int i = 0; i < emu.n; i++)
    if (c >= emu.r[i].base && c < emu.r[i].base + emu.r[i].span) {
      a->type = cudaMemoryTypeDevice, a->device = emu.r[i].device;
      a->devicePointer = (void *)(uintptr_t)c;
      return cudaSuccess;
    }
  a->type = cudaMemoryTypeUnregistered, a->hostPointer = (void *)(uintptr_t)c;
  return cudaSuccess;
}

/* For the emulated NCCL (found with dlsym, hence not static): 1 when
 * [p, p + bytes) lies in device memory this process reaches (its own
 * allocations, the peers' it opened), else 0. */
int emulated_cuda_device_range(const void *p, size_t bytes);
int emulated_cuda_device_range(const void *p, size_t bytes) {
  const char *c = (const char *)p;
  for (int i = 0; i < emu.n; i++)
    if (c >= emu.r[i].p && bytes <= emu.r[i].bytes && (size_t)(c - emu.r[i].p) <= emu.r[i].bytes - bytes) return 1;
  return 0;
}
