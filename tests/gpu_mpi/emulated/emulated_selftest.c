/* emulated_selftest.c - checks of the emulated CUDA runtime itself
 * (emulated_cudart.c), which the tests of distributed device arrays trust:
 * "device" memory poisoned, more than 64 GiB out of memory, an IPC handle
 * of a block opened by another process (fork) that sees and writes the same
 * bytes, the refusals CUDA makes (a handle of a pointer inside a block, a
 * handle opened by the process that made it, cudaFree of an opened handle,
 * a device without peer access), EMULATED_GPUS, pointer attributes, and
 * the guards of a block: a write just after it ends the process at once
 * (an inaccessible page), one just before it when the block is freed.
 * Prints PASS or the failed checks; exit status 0 on PASS. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cuda_runtime_api.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int bad;

static void expect(int ok, const char *what) {
  if (!ok) {
    printf("FAIL: %s\n", what);
    bad++;
  }
}

/* run f(arg) in a child process; its exit status (128 + signal when killed) */
static int in_child(int (*f)(void *), void *arg) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY); /* the expected crash reports stay out of the test's output */
    if (null >= 0) dup2(null, 2);
    _exit(f(arg));
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* the child: opens the parent's block, checks the parent's bytes, writes its own */
static int open_and_write(void *vh) {
  void *p = NULL;
  if (cudaIpcOpenMemHandle(&p, *(cudaIpcMemHandle_t *)vh, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) return 10;
  unsigned char *c = p;
  for (int i = 0; i < 1000; i++)
    if (c[i] != (unsigned char)(i * 7)) return 11;
  for (int i = 0; i < 1000; i++) c[i] = (unsigned char)(i * 3);
  struct cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, c + 999) != cudaSuccess || a.type != cudaMemoryTypeDevice) return 12;
  if (cudaFree(p) == cudaSuccess) return 13; /* an opened handle is closed, not freed */
  (void)cudaGetLastError();
  if (cudaIpcCloseMemHandle(p) != cudaSuccess) return 14;
  return 0;
}

/* the children below write around a block of their own (a write into the
 * parent's would be seen by the parent: the memory is shared) */
static volatile char *own_block(void) {
  void *p = NULL;
  return cudaMalloc(&p, 1000) == cudaSuccess ? p : NULL;
}

static int write_after(void *unused) {
  (void)unused;
  volatile char *p = own_block();
  if (!p) return 0;
  p[1008] = 1; /* past the block's 16-byte aligned end: the inaccessible page */
  return 0;
}

static int write_before(void *unused) {
  (void)unused;
  volatile char *p = own_block();
  if (!p) return 0;
  p[-1] = 1;
  cudaFree((void *)p); /* ends the process */
  return 0;
}

static int write_padding(void *unused) {
  (void)unused;
  volatile char *p = own_block();
  if (!p) return 0;
  p[1001] = 1; /* after the 1000 bytes, before the aligned end */
  cudaFree((void *)p);
  return 0;
}

static int write_inside(void *unused) {
  (void)unused;
  volatile char *p = own_block();
  if (!p) return 1;
  p[0] = p[999] = 1;
  return cudaFree((void *)p) == cudaSuccess ? 0 : 2;
}

int main(void) {
  unsetenv("EMULATED_GPUS");
  unsetenv("EMULATED_PEER_ACCESS");
  int n = 0;
  expect(cudaGetDeviceCount(&n) == cudaSuccess && n == 1, "one device by default");
  expect(cudaSetDevice(1) == cudaErrorInvalidDevice, "cudaSetDevice(1) of one device fails");
  expect(cudaGetLastError() == cudaErrorInvalidDevice && cudaGetLastError() == cudaSuccess,
         "cudaGetLastError returns the last error once");
  void *big = NULL;
  expect(cudaMalloc(&big, ((size_t)1 << 36) + 1) == cudaErrorMemoryAllocation && !big, "more than 64 GiB fails");
  (void)cudaGetLastError();

  unsigned char *p = NULL;
  expect(cudaMalloc((void **)&p, 1000) == cudaSuccess && p, "cudaMalloc(1000)");
  if (!p) return 1;
  int poisoned = 1;
  for (int i = 0; i < 1000; i++) poisoned = poisoned && p[i] == 0x7f;
  expect(poisoned, "a new block is poisoned (0x7f)");
  expect(((uintptr_t)p & 15) == 0, "a block is 16-byte aligned");
  for (int i = 0; i < 1000; i++) p[i] = (unsigned char)(i * 7);
  struct cudaPointerAttributes a;
  expect(cudaPointerGetAttributes(&a, p + 10) == cudaSuccess && a.type == cudaMemoryTypeDevice && a.device == 0,
         "a block is device memory of device 0");
  int host = 0;
  expect(cudaPointerGetAttributes(&a, &host) == cudaSuccess && a.type == cudaMemoryTypeUnregistered,
         "a stack variable is unregistered host memory");

  cudaIpcMemHandle_t h;
  expect(sizeof h == 64, "an IPC handle has 64 bytes");
  expect(cudaIpcGetMemHandle(&h, p + 8) == cudaErrorInvalidValue, "no handle for a pointer inside a block");
  expect(cudaIpcGetMemHandle(&h, p) == cudaSuccess, "a handle for a block");
  void *q = NULL;
  expect(cudaIpcOpenMemHandle(&q, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess && !q,
         "the process that made a handle does not open it");
  (void)cudaGetLastError();
  expect(in_child(open_and_write, &h) == 0, "another process opens the handle, sees the bytes and writes its own");
  int seen = 1;
  for (int i = 0; i < 1000; i++) seen = seen && p[i] == (unsigned char)(i * 3);
  expect(seen, "the other process's writes are seen");
  expect(cudaIpcCloseMemHandle(p) == cudaErrorInvalidValue, "a block is freed, not closed");
  (void)cudaGetLastError();

  expect(in_child(write_inside, NULL) == 0, "writes to the first and last bytes of a block are fine");
  expect(in_child(write_after, NULL) != 0, "a write past the aligned end of a block faults");
  expect(in_child(write_before, NULL) != 0, "a write before a block is caught when it is freed");
  expect(in_child(write_padding, NULL) != 0,
         "a write after a block, before its aligned end, is caught when it is freed");
  expect(cudaFree(p) == cudaSuccess, "cudaFree");
  expect(cudaFree(p) == cudaErrorInvalidValue, "a second cudaFree fails");
  (void)cudaGetLastError();

  /* two devices: a block of device 1 opened from device 0, with and without peer access */
  setenv("EMULATED_GPUS", "2", 1);
  int can = -1;
  expect(cudaGetDeviceCount(&n) == cudaSuccess && n == 2, "EMULATED_GPUS=2: two devices");
  expect(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaSuccess && can == 1, "device 0 reaches device 1");
  expect(cudaSetDevice(1) == cudaSuccess, "cudaSetDevice(1) of two devices");
  expect(cudaMalloc((void **)&p, 1000) == cudaSuccess, "cudaMalloc on device 1");
  expect(cudaPointerGetAttributes(&a, p) == cudaSuccess && a.device == 1, "the block is on device 1");
  for (int i = 0; i < 1000; i++) p[i] = (unsigned char)(i * 7);
  expect(cudaIpcGetMemHandle(&h, p) == cudaSuccess, "a handle for the block of device 1");
  expect(cudaSetDevice(0) == cudaSuccess, "cudaSetDevice(0)");
  expect(in_child(open_and_write, &h) == 0, "device 0 opens a handle of device 1 with peer access");
  setenv("EMULATED_PEER_ACCESS", "0", 1);
  expect(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaSuccess && can == 0, "EMULATED_PEER_ACCESS=0: no peer access");
  expect(in_child(open_and_write, &h) == 10, "without peer access, device 0 does not open a handle of device 1");
  expect(cudaFree(p) == cudaSuccess, "cudaFree of the block of device 1");
  printf("%s (%d wrong)\n", bad ? "FAIL" : "PASS", bad);
  return bad != 0;
}
