/* check.cpp - the waits, the dynamic shared memory limits and the homes of
 * distributed dmem blocks of runtime/cuda/cuda_core.cu on fake_cudart.cpp:
 * one scenario per run (argv[1]), as generated code calls the runtime; run.sh
 * compares what each prints and its exit status with check.expected. */
#include "parray/cuda.h"

#include <cstdio>
#include <cstring>

extern "C" int fake_fail_at_sync, fake_sticky, fake_syncs, fake_dyn_smem, fake_func_sets, fake_devices,
    fake_get_device;
extern "C" cudaError_t fake_launch_error;

static bool is(const char *a, const char *b) { return !strcmp(a, b); }

static void fatal_hook(int status) { fprintf(stderr, "the fatal hook ran (status %d)\n", status); }

/* The homes of distributed dmem blocks, as mpi_dev.c registers them and a
 * launch checks its pointer arguments: only a pointer into a block of
 * another GPU than the current one stops the program (at the end). */
static void homes(void) {
  static float block[16], other[4];
  fake_devices = 2;
  parray_cuda_check_home(block, "v", "t.pc", 50, "#detour K");
  printf("no homes: passes, %d cudaGetDevice calls\n", fake_get_device);
  parray_cuda_home_add(block, sizeof block, 1);
  parray_cuda_home_add(other, sizeof other, 0);
  parray_cuda_init_gpu(1, "t.pc", 51);
  parray_cuda_check_home(block + 15, "v", "t.pc", 52, "#detour K");
  puts("inside a home on the current GPU: passes");
  int before = fake_get_device;
  parray_cuda_check_home(block + 16, "v", "t.pc", 53, "#detour K");
  parray_cuda_check_home(NULL, "v", "t.pc", 53, "#detour K");
  printf("past the end, NULL: pass, %d cudaGetDevice calls\n", fake_get_device - before);
  parray_cuda_init_gpu(0, "t.pc", 54);
  parray_cuda_home_remove(block);
  parray_cuda_check_home(block, "v", "t.pc", 55, "#detour K");
  parray_cuda_check_home(other + 3, "w", "t.pc", 55, "#detour K");
  puts("a removed home, a home on the current GPU: pass");
  parray_cuda_home_add(block, 0, 1); /* 0 bytes: its first byte */
  parray_cuda_home_add(block, sizeof block, 1); /* again: replaces the record */
  parray_set_fatal_hook(fatal_hook);
  parray_cuda_check_home(block + 7, "v", "t.pc", 56, "#detour K");
}

int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "";
  float h[4] = {0}, *d = (float *)parray_cuda_create(PARRAY_DMEM, sizeof h, "t.pc", 3, "#create D(d)");
  if (is(m, "many")) { /* a loop of detours, two more, a failure found at the copy to the host */
    for (int i = 0; i < 100; i++) parray_cuda_launched("t.pc", 10, "#detour K");
    parray_cuda_launched("t.pc", 11, "#detour FAULT");
    parray_cuda_launched("t.pc", 12, "#detour L");
    fake_fail_at_sync = 1;
    parray_cuda_memcpy(h, d, sizeof h, "t.pc", 20, "#copy D(d) to H(h)");
  } else if (is(m, "one")) { /* one detour pending: the message is exact */
    parray_cuda_launched("t.pc", 11, "#detour FAULT");
    fake_fail_at_sync = 1;
    parray_cuda_destroy(PARRAY_DMEM, d, "t.pc", 21, "#destroy D(d)");
  } else if (is(m, "each")) { /* with PARRAY_CUDA_WAIT=1: at the failing detour */
    parray_cuda_launched("t.pc", 10, "#detour K");
    fake_fail_at_sync = 1;
    parray_cuda_launched("t.pc", 11, "#detour FAULT");
    parray_cuda_launched("t.pc", 12, "#detour L");
  } else if (is(m, "seen_at_launch")) { /* the failure is already known at the next launch */
    parray_cuda_launched("t.pc", 11, "#detour FAULT");
    fake_sticky = 1;
    parray_cuda_launched("t.pc", 12, "#detour L");
  } else if (is(m, "bad_launch")) { /* a launch's own error, with a detour pending that did not fail */
    parray_cuda_launched("t.pc", 11, "#detour K");
    fake_launch_error = cudaErrorInvalidConfiguration;
    parray_cuda_launched("t.pc", 12, "#detour L");
  } else if (is(m, "exit")) { /* a program with its own main: the wait at exit */
    parray_cuda_launched("t.pc", 11, "#detour FAULT");
    fake_fail_at_sync = 1;
    cudaFree(d); /* no wait (the fake frees at once) */
    puts("main returns");
    return 0;
  } else if (is(m, "syncs")) { /* the pending-only waits wait once, when something is pending */
    parray_cuda_wait_pending("t.pc", 30, "the end of #mainhost");
    int before = fake_syncs;
    parray_cuda_launched("t.pc", 10, "#detour K");
    parray_cuda_launched("t.pc", 10, "#detour K");
    parray_cuda_memcpy(h, d, sizeof h, "t.pc", 20, "#copy D(d) to H(h)");
    parray_cuda_memcpy(h, d, sizeof h, "t.pc", 21, "#copy D(d) to H(h)");
    parray_cuda_wait_pending("t.pc", 30, "the end of #mainhost");
    int pending_waits = fake_syncs - before;
    parray_cuda_wait("t.pc", 31, "#sync"); /* #sync always waits */
    printf("waits: %d before a launch, %d for two launches and two copies, %d for #sync\n", before, pending_waits,
           fake_syncs - before - pending_waits);
    parray_cuda_destroy(PARRAY_DMEM, d, "t.pc", 32, "#destroy D(d)");
    return 0;
  } else if (is(m, "smem")) { /* smem arrays past 48 KB: the kernel's limit raised; past the device's, an error */
    static int kernel, other;
    for (int i = 0; i < 3; i++) parray_cuda_shared_size(&kernel, 100000, "t.pc", 39, "#detour LOOP");
    parray_cuda_shared_size(&other, 60000, "t.pc", 39, "#detour OTHER");
    parray_cuda_shared_size(&kernel, 231424, "t.pc", 40, "#detour BIG");
    printf("dynamic shared memory limit: %d, raised %d times for 5 launches of 2 kernels\n", fake_dyn_smem,
           fake_func_sets);
    parray_cuda_shared_size(&kernel, 231425, "t.pc", 41, "#detour TOO_BIG");
  } else if (is(m, "homes")) {
    homes();
  } else if (is(m, "check_launch")) { /* a detour that waits, after one that did not: both named */
    parray_cuda_launched("t.pc", 10, "#detour K");
    fake_fail_at_sync = 1;
    parray_cuda_check_launch("t.pc", 11, "#detour W");
  }
  puts("no error");
  return 0;
}
