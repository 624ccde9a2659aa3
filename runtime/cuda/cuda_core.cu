/* SPDX-License-Identifier: Apache-2.0 */
/* cuda_core.cu - CUDA side of the runtime core: device selection
 * (INIT_GPU), checked allocation, host/device copies between layouts,
 * launch checking and the waits for detours launched without one (a
 * per-thread record of them, so that an error found at a wait names the
 * .pc lines of the detours that may have caused it), the homes of
 * distributed dmem blocks (which GPU each lives on, checked before a
 * launch), each reporting failures with the .pc line. Kernels live in
 * their own files. */
#include "parray/cuda.h"
#include "parray/permute.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <pthread.h>

static bool is_device(parray_memkind k) { return k == PARRAY_DMEM; }

extern "C" {

parray_status parray_cuda_status(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return PARRAY_OK;
  parray_set_error("%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? PARRAY_ERR_NODEVICE : PARRAY_ERR_CUDA;
}

int parray_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

static void check(cudaError_t e, const char *file, int line, const char *what, const char *call) {
  if (e != cudaSuccess) parray_fatal_at(file, line, what, "%s failed: %s (%s)", call, cudaGetErrorString(e), cudaGetErrorName(e));
}

/* ---- detours launched without a wait ------------------------------------- */

/* The detours this host thread launched since its last wait: the most recent
 * RING of them (where each is in the .pc) and how many there were. */
static const unsigned long long RING = 64;
static const int SHOWN = 6;
struct pending_site {
  const char *file, *what;
  int line;
};
struct pending_ring {
  pending_site v[RING];
  unsigned long long n; /* launched since the last wait */
  int wait_all;         /* PARRAY_CUDA_WAIT: 0 not read yet, 1 unset (or 0), 2 set */
  bool exit_hook;       /* the wait at program exit is registered */
};
static thread_local pending_ring pending;

static bool same_site(const pending_site &s, const char *file, int line, const char *what) {
  return s.line == line && (s.file == file || (s.file && file && !strcmp(s.file, file))) &&
         (s.what == what || (s.what && what && !strcmp(s.what, what)));
}

/* "#detour K at prog.pc:17 (3 times), #detour L at prog.pc:23, ...": the
 * distinct sites of the recorded detours, most recent first */
static void describe_pending(char *buf, size_t size) {
  size_t len = 0;
  unsigned long long rec = pending.n < RING ? pending.n : RING;
  bool done[RING] = {false};
  int shown = 0;
  buf[0] = 0;
  for (unsigned long long i = 0; i < rec && len < size; i++) {
    unsigned long long k = (pending.n - 1 - i) % RING;
    if (done[k]) continue;
    const pending_site &s = pending.v[k];
    int times = 0;
    for (unsigned long long j = i; j < rec; j++) {
      unsigned long long m = (pending.n - 1 - j) % RING;
      if (!done[m] && same_site(pending.v[m], s.file, s.line, s.what)) done[m] = true, times++;
    }
    if (shown == SHOWN) {
      len += (size_t)snprintf(buf + len, size - len, ", ...");
      break;
    }
    len += (size_t)snprintf(buf + len, size - len, "%s%s at %s:%d", shown ? ", " : "", s.what ? s.what : "a detour",
                            s.file ? s.file : "?", s.line);
    if (times > 1 && len < size) len += (size_t)snprintf(buf + len, size - len, " (%d times)", times);
    shown++;
  }
  if (pending.n > RING && len < size)
    snprintf(buf + len, size - len, "; the %llu before these are not recorded", pending.n - RING);
}

/* An error found at the wait (or launch) of file:line: with detours pending,
 * it is reported as theirs, naming them; without, as the failure of call. */
static void report(cudaError_t e, const char *file, int line, const char *what, const char *call) {
  unsigned long long n = pending.n;
  if (n == 0) check(e, file, line, what, call);
  pending.n = 0;
  const pending_site &last = pending.v[(n - 1) % RING];
  if (n == 1 && same_site(last, file, line, what))
    parray_fatal_at(file, line, what, "the kernel failed: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
  if (n == 1)
    parray_fatal_at(file, line, what, "the kernel launched by %s at %s:%d failed: %s (%s)",
                    last.what ? last.what : "a detour", last.file ? last.file : "?", last.line, cudaGetErrorString(e),
                    cudaGetErrorName(e));
  char sites[1024];
  pending.n = n;
  describe_pending(sites, sizeof sites);
  pending.n = 0;
  parray_fatal_at(file, line, what, "a kernel failed: %s (%s); it was launched by one of the %llu detours since the "
                  "last wait, most recent first: %s; with PARRAY_CUDA_WAIT=1 in the environment every detour waits and "
                  "the error names the one that failed", cudaGetErrorString(e), cudaGetErrorName(e), n,
                  sites);
}

/* wait for everything launched so far; an error names the pending detours */
static void wait_device(const char *file, int line, const char *what, const char *call) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) report(e, file, line, what, call);
  pending.n = 0;
}

/* before an operation that waits by itself (a copy to or from the host,
 * cudaFree): the detours not waited for yet, so that their errors name them */
static void wait_pending(const char *file, int line, const char *what) {
  if (pending.n) wait_device(file, line, what, "the wait");
}

static void wait_at_exit(void) {
  if (!pending.n) return;
  const pending_site last = pending.v[(pending.n - 1) % RING];
  wait_device(last.file, last.line, "the wait at the end of the program", "the wait");
}

static bool wait_every_detour(void) {
  if (!pending.wait_all) {
    const char *v = getenv("PARRAY_CUDA_WAIT");
    pending.wait_all = v && *v && strcmp(v, "0") != 0 ? 2 : 1;
  }
  return pending.wait_all == 2;
}

static void record(const char *file, int line, const char *what) {
  pending.v[pending.n % RING] = pending_site{file, what, line};
  pending.n++;
}

/* a launch's own error (a bad configuration); a sticky error of a kernel
 * launched before it is reported as that kernel's */
static void check_launch_error(const char *file, int line, const char *what) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return;
  cudaError_t s = pending.n ? cudaDeviceSynchronize() : cudaSuccess;
  if (s != cudaSuccess) report(s, file, line, what, "the kernel launch");
  pending.n = 0;
  check(e, file, line, what, "the kernel launch");
}

static int init_gpu_choice = -1;

int parray_cuda_init_gpu_choice(void) { return init_gpu_choice; }

void parray_cuda_init_gpu(int n, const char *file, int line) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    parray_fatal_at(file, line, "INIT_GPU", "no CUDA device is available (%s)",
                    e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
  if (n < 0 || n >= count) parray_fatal_at(file, line, "INIT_GPU", "GPU %d does not exist (this machine has %d)", n, count);
  check(cudaSetDevice(n), file, line, "INIT_GPU", "cudaSetDevice");
  init_gpu_choice = n;
}

/* ---- the homes of distributed dmem blocks --------------------------------- */

/* The blocks this process holds and the GPU of each: a few ranges, changed
 * only at a distributed #create or #destroy (under the lock); a launch
 * reads the count first, so that programs without them never lock. */
struct home_range {
  uintptr_t begin, end;
  int gpu;
};
static std::atomic<int> home_count{0};
static std::mutex home_lock;
static home_range *homes; /* never freed: a launch may check at program exit */
static int home_cap;

static int home_find(uintptr_t begin) {
  for (int i = 0; i < home_count.load(std::memory_order_relaxed); i++)
    if (homes[i].begin == begin) return i;
  return -1;
}

void parray_cuda_home_add(const void *p, size_t bytes, int gpu) {
  if (!p) return;
  uintptr_t b = (uintptr_t)p;
  std::lock_guard<std::mutex> hold(home_lock);
  int n = home_count.load(std::memory_order_relaxed), i = home_find(b);
  if (i < 0 && n == home_cap) {
    int cap = home_cap ? 2 * home_cap : 8;
    home_range *h = (home_range *)realloc(homes, (size_t)cap * sizeof *h);
    if (!h) return; /* out of memory: the block goes unchecked, as it would without the check */
    homes = h, home_cap = cap;
  }
  homes[i < 0 ? n : i] = home_range{b, b + (bytes ? bytes : 1), gpu};
  if (i < 0) home_count.store(n + 1, std::memory_order_release);
}

void parray_cuda_home_remove(const void *p) {
  std::lock_guard<std::mutex> hold(home_lock);
  int i = p ? home_find((uintptr_t)p) : -1;
  if (i < 0) return;
  int n = home_count.load(std::memory_order_relaxed);
  homes[i] = homes[n - 1];
  home_count.store(n - 1, std::memory_order_release);
}

void parray_cuda_check_home(const void *p, const char *arg, const char *file, int line, const char *what) {
  if (home_count.load(std::memory_order_acquire) == 0 || !p) return;
  uintptr_t a = (uintptr_t)p;
  int gpu = -1;
  {
    std::lock_guard<std::mutex> hold(home_lock);
    for (int i = 0; i < home_count.load(std::memory_order_relaxed) && gpu < 0; i++)
      if (a >= homes[i].begin && a < homes[i].end) gpu = homes[i].gpu;
  }
  if (gpu < 0) return;
  int cur = 0;
  check(cudaGetDevice(&cur), file, line, what, "cudaGetDevice");
  if (cur == gpu) return;
  char why[48] = "";
  if (init_gpu_choice == cur) snprintf(why, sizeof why, " (INIT_GPU(%d) selected it)", cur);
  parray_fatal_at(file, line, what, "argument '%s' points into this process's block of a distributed dmem array, "
                  "which lives on GPU %d, but the current GPU is %d%s; launch kernels on a block from its own GPU",
                  arg ? arg : "?", gpu, cur, why);
}

void *parray_cuda_create(parray_memkind kind, size_t bytes, const char *file, int line, const char *what) {
  void *p = NULL;
  cudaError_t e = kind == PARRAY_DMEM ? cudaMalloc(&p, bytes ? bytes : 1) : cudaMallocHost(&p, bytes ? bytes : 1);
  if (e != cudaSuccess)
    parray_fatal_at(file, line, what, "cannot allocate %zu bytes of %s memory: %s", bytes,
                    kind == PARRAY_DMEM ? "dmem (GPU)" : "pinned", cudaGetErrorString(e));
  return p;
}

void parray_cuda_destroy(parray_memkind kind, void *p, const char *file, int line, const char *what) {
  if (!p) return;
  wait_pending(file, line, what);
  check(kind == PARRAY_DMEM ? cudaFree(p) : cudaFreeHost(p), file, line, what,
        kind == PARRAY_DMEM ? "cudaFree" : "cudaFreeHost");
}

void parray_cuda_memcpy(void *dst, const void *src, size_t bytes, const char *file, int line, const char *what) {
  wait_pending(file, line, what);
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), file, line, what, "cudaMemcpy");
}

/* strides of the row-major (index-order) layout of shape */
static void rowmajor(const int64_t *shape, int n, int64_t *st) {
  int64_t s = 1;
  for (int k = n - 1; k >= 0; k--) st[k] = s, s *= shape[k];
}

static bool is_rowmajor(const int64_t *shape, const int64_t *st, int n) {
  int64_t s = 1;
  for (int k = n - 1; k >= 0; k--) {
    if (shape[k] != 1 && st[k] != s) return false;
    s *= shape[k];
  }
  return true;
}

void parray_cuda_copy(parray_memkind dkind, void *dst, const int64_t *dstride, parray_memkind skind, const void *src,
                      const int64_t *sstride, const int64_t *shape, int ndim, size_t es, const char *file, int line,
                      const char *what) {
  int64_t count = 1;
  for (int k = 0; k < ndim; k++) count *= shape[k];
  if (count == 0) return;
  bool dd = is_device(dkind), sd = is_device(skind);
  if (dd || sd) wait_pending(file, line, what);
  if (!dd && !sd) {
    if (parray_copy_strided_cpu(dst, dstride, src, sstride, shape, ndim, es) != PARRAY_OK)
      parray_fatal_at(file, line, what, "%s", parray_last_error());
    return;
  }
  if (dd && sd) {
    if (parray_copy_strided_cuda(dst, dstride, src, sstride, shape, ndim, es, 0) != PARRAY_OK)
      parray_fatal_at(file, line, what, "%s", parray_last_error());
    check(cudaDeviceSynchronize(), file, line, what, "the device copy");
    return;
  }
  /* one side on the host, one on the device */
  int64_t rm[16];
  rowmajor(shape, ndim, rm);
  size_t bytes = (size_t)count * es;
  /* after normalising (byte strides, the innermost dimension is bytes):
   * one contiguous run is a cudaMemcpy; rows with one outer stride are a
   * cudaMemcpy2D */
  parray_copy_dim nd[17];
  int m = parray_copy_normalise(nd, shape, dstride, sstride, ndim, es);
  if (m == 1 && nd[0].dst_stride == 1 && nd[0].src_stride == 1) {
    check(cudaMemcpy(dst, src, (size_t)nd[0].n, cudaMemcpyDefault), file, line, what, "cudaMemcpy");
    return;
  }
  if (m == 2 && nd[1].dst_stride == 1 && nd[1].src_stride == 1 && nd[0].dst_stride >= nd[1].n &&
      nd[0].src_stride >= nd[1].n) {
    check(cudaMemcpy2D(dst, (size_t)nd[0].dst_stride, src, (size_t)nd[0].src_stride, (size_t)nd[1].n, (size_t)nd[0].n,
                       cudaMemcpyDefault),
          file, line, what, "cudaMemcpy2D");
    return;
  }
  void *dev = NULL, *host = NULL;
  check(cudaMalloc(&dev, bytes), file, line, what, "cudaMalloc (staging buffer)");
  if (sd) {
    /* device -> host: reorder on the device into index order, then copy out */
    if (parray_copy_strided_cuda(dev, rm, src, sstride, shape, ndim, es, 0) != PARRAY_OK)
      parray_fatal_at(file, line, what, "%s", parray_last_error());
    if (is_rowmajor(shape, dstride, ndim)) {
      check(cudaMemcpy(dst, dev, bytes, cudaMemcpyDeviceToHost), file, line, what, "cudaMemcpy");
    } else {
      check(cudaMallocHost(&host, bytes), file, line, what, "cudaMallocHost (staging buffer)");
      check(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), file, line, what, "cudaMemcpy");
      if (parray_copy_strided_cpu(dst, dstride, host, rm, shape, ndim, es) != PARRAY_OK)
        parray_fatal_at(file, line, what, "%s", parray_last_error());
    }
  } else {
    /* host -> device: bring the data over in index order, reorder on the device */
    if (is_rowmajor(shape, sstride, ndim)) {
      check(cudaMemcpy(dev, src, bytes, cudaMemcpyHostToDevice), file, line, what, "cudaMemcpy");
    } else {
      check(cudaMallocHost(&host, bytes), file, line, what, "cudaMallocHost (staging buffer)");
      if (parray_copy_strided_cpu(host, rm, src, sstride, shape, ndim, es) != PARRAY_OK)
        parray_fatal_at(file, line, what, "%s", parray_last_error());
      check(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), file, line, what, "cudaMemcpy");
    }
    if (parray_copy_strided_cuda(dst, dstride, dev, rm, shape, ndim, es, 0) != PARRAY_OK)
      parray_fatal_at(file, line, what, "%s", parray_last_error());
    check(cudaDeviceSynchronize(), file, line, what, "the device copy");
  }
  if (host) cudaFreeHost(host);
  cudaFree(dev);
}

void parray_cuda_launched(const char *file, int line, const char *what) {
  check_launch_error(file, line, what);
  record(file, line, what);
  if (wait_every_detour()) {
    wait_device(file, line, what, "the kernel");
    return;
  }
  if (!pending.exit_hook) {
    /* programs with their own main: nothing waits after the last detour */
    pending.exit_hook = true;
    atexit(wait_at_exit);
  }
}

void parray_cuda_check_launch(const char *file, int line, const char *what) {
  check_launch_error(file, line, what);
  record(file, line, what);
  wait_device(file, line, what, "the kernel");
}

void parray_cuda_wait(const char *file, int line, const char *what) { wait_device(file, line, what, "the wait"); }

void parray_cuda_wait_pending(const char *file, int line, const char *what) { wait_pending(file, line, what); }

}

/* The kernels whose dynamic shared memory limit this thread already raised,
 * per device: parray_cuda_shared_size runs before every launch of such a
 * detour, and a loop of them asks the driver only once (a few entries,
 * reused in turn). */
enum { SMEM_SEEN = 8 };
struct smem_entry {
  const void *fn;
  int dev;
  size_t bytes;
};
static thread_local smem_entry smem_seen[SMEM_SEEN];
static thread_local int smem_next;

void parray_cuda_shared_size(const void *fn, size_t bytes, const char *file, int line, const char *what) {
  int dev = 0, optin = 0;
  cudaFuncAttributes fa;
  check(cudaGetDevice(&dev), file, line, what, "cudaGetDevice");
  for (const smem_entry &k : smem_seen)
    if (k.fn == fn && k.dev == dev && k.bytes >= bytes) return;
  check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), file, line, what,
        "cudaDeviceGetAttribute");
  check(cudaFuncGetAttributes(&fa, fn), file, line, what, "cudaFuncGetAttributes");
  if (bytes + fa.sharedSizeBytes > (size_t)optin)
    parray_fatal_at(file, line, what, "the kernel's smem arrays need %zu bytes of shared memory (and its own "
                    "__shared__ variables %zu more), but a block of this GPU may have at most %d", bytes,
                    (size_t)fa.sharedSizeBytes, optin);
  check(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), file, line, what,
        "cudaFuncSetAttribute");
  smem_seen[smem_next] = {fn, dev, bytes};
  smem_next = (smem_next + 1) % SMEM_SEEN;
}

/* ---- the rooms of a host thread's reductions and scans --------------------- */

static void rooms_held(void);

/* The partial results of this thread's reductions: one buffer per host
 * thread (threads launch reductions at once), regrown when a grid needs
 * more or the thread moved to another GPU. For scans, what its first bytes
 * hold: clean, how many are zero or scan states of the word form tagged
 * with an epoch before epoch (parray/reduce.cuh), which a launch with the
 * next epoch reads as not posted; 0 after anything else was there. */
struct reduce_scratch {
  void *p;
  size_t bytes;
  int dev;
  size_t clean;
  unsigned epoch;
};
static thread_local reduce_scratch red_scratch;

static reduce_scratch &scratch_for(size_t bytes, const char *file, int line, const char *what) {
  int dev = 0;
  check(cudaGetDevice(&dev), file, line, what, "cudaGetDevice");
  reduce_scratch &r = red_scratch;
  if (r.p && r.dev == dev && r.bytes >= bytes) return r;
  if (r.p) {
    int cur = dev;
    wait_pending(file, line, what); /* a kernel may still write the old buffer */
    if (r.dev != dev) check(cudaSetDevice(r.dev), file, line, what, "cudaSetDevice");
    check(cudaFree(r.p), file, line, what, "cudaFree (a reduction's partial results)");
    if (r.dev != dev) check(cudaSetDevice(cur), file, line, what, "cudaSetDevice");
    r.p = NULL;
  }
  size_t want = bytes < 4096 ? 4096 : bytes;
  rooms_held();
  check(cudaMalloc(&r.p, want), file, line, what, "cudaMalloc (a reduction's partial results)");
  r.bytes = want, r.dev = dev, r.clean = 0;
  return r;
}

void *parray_cuda_reduce_scratch(size_t bytes, const char *file, int line, const char *what) {
  reduce_scratch &r = scratch_for(bytes, file, line, what);
  r.clean = 0; /* partial results: anything */
  return r.p;
}

enum { EPOCH_LAST = (1u << 30) - 1 }; /* the epochs fit 30 bits beside the flag */

void *parray_cuda_scan_scratch(size_t bytes, int word_states, unsigned *epoch, const char *file, int line,
                               const char *what) {
  reduce_scratch &r = scratch_for(bytes, file, line, what);
  if (!word_states || r.clean < bytes || r.epoch >= EPOCH_LAST) { /* zeroed, in the launch's stream order */
    check(cudaMemsetAsync(r.p, 0, bytes, 0), file, line, what, "cudaMemsetAsync (a scan's states)");
    r.clean = bytes, r.epoch = 0;
  }
  *epoch = ++r.epoch;
  if (!word_states) r.clean = 0;
  return r.p;
}

/* a host buffer of this thread's, regrown to at least 256 bytes */
struct host_room {
  void *p;
  size_t bytes;
};
static size_t room_for(size_t bytes) { return bytes < 256 ? 256 : bytes; }

/* where this host thread lays out the starting values of unordered results */
static thread_local host_room red_stage;

void *parray_cuda_reduce_stage(size_t bytes, const char *file, int line, const char *what) {
  host_room &r = red_stage;
  if (r.bytes < bytes) {
    free(r.p);
    r.bytes = 0;
    rooms_held();
    if (!(r.p = malloc(room_for(bytes))))
      parray_fatal_at(file, line, what, "cannot allocate %zu bytes of host memory (a reduction's start)", bytes);
    r.bytes = room_for(bytes);
  }
  memset(r.p, 0, bytes);
  return r.p;
}

void parray_cuda_reduce_fill(void *p, const void *src, size_t bytes, const char *file, int line, const char *what) {
  /* from pageable memory: the call returns once src is staged, so the caller's variable may go */
  check(cudaMemcpyAsync(p, src, bytes, cudaMemcpyHostToDevice, 0), file, line, what,
        "cudaMemcpyAsync (the starting values of unordered results)");
}

/* Where this host thread's reduction results land: pinned, so that their
 * copy is queued right behind the kernel and one wait covers both. */
static thread_local host_room red_result;

/* r regrown to at least bytes of pinned memory; holds: what it holds, for
 * the messages */
static void *pinned_room(host_room &r, size_t bytes, const char *holds, const char *file, int line,
                         const char *what) {
  if (r.bytes >= bytes) return r.p;
  char call[80];
  wait_pending(file, line, what); /* freeing pinned memory waits for the device; a kernel may write the old room */
  snprintf(call, sizeof call, "cudaFreeHost (%s)", holds);
  if (r.p) check(cudaFreeHost(r.p), file, line, what, call);
  r.p = NULL, r.bytes = 0;
  rooms_held();
  snprintf(call, sizeof call, "cudaMallocHost (%s)", holds);
  check(cudaMallocHost(&r.p, room_for(bytes)), file, line, what, call);
  r.bytes = room_for(bytes);
  return r.p;
}

void parray_cuda_reduce_result(void *dst, const void *src, size_t bytes, const char *file, int line,
                               const char *what) {
  void *room = pinned_room(red_result, bytes, "a reduction's result", file, line, what);
  const cudaError_t e = cudaMemcpyAsync(room, src, bytes, cudaMemcpyDeviceToHost, 0);
  wait_device(file, line, what, "the reduction"); /* a failed kernel is reported as its own */
  check(e, file, line, what, "cudaMemcpyAsync (a reduction's result)");
  memcpy(dst, room, bytes);
}

/* where this host thread's scans leave their totals (pinned, so that the
 * kernel's last block writes them there directly) */
static thread_local host_room scan_totals;

void *parray_cuda_scan_totals(size_t bytes, const char *file, int line, const char *what) {
  return pinned_room(scan_totals, bytes, "a scan's total", file, line, what);
}

void parray_cuda_scan_wait(const char *file, int line, const char *what) {
  wait_device(file, line, what, "the scan"); /* a failed kernel is reported as its own */
}

/* The rooms above belong to their host thread and go when it ends (a pthd
 * pool's threads live as long as the program, other threads may come and
 * go): the first room a thread takes sets its value of rooms_key, whose
 * destructor frees them all. A failure there has no .pc line to name: the
 * thread's kernels were reported at their waits, or are at the program's
 * end. */
static pthread_key_t rooms_key;
static pthread_once_t rooms_once = PTHREAD_ONCE_INIT;
static thread_local bool rooms_marked;

static void free_rooms(void *) {
  reduce_scratch &r = red_scratch;
  int cur = -1;
  if (r.p && cudaGetDevice(&cur) == cudaSuccess) {
    if (cur != r.dev) (void)cudaSetDevice(r.dev);
    (void)cudaFree(r.p);
    if (cur != r.dev) (void)cudaSetDevice(cur);
  }
  r = reduce_scratch{};
  free(red_stage.p);
  red_stage = host_room{};
  if (red_result.p) (void)cudaFreeHost(red_result.p);
  red_result = host_room{};
  if (scan_totals.p) (void)cudaFreeHost(scan_totals.p);
  scan_totals = host_room{};
  (void)cudaGetLastError();
}
static void make_rooms_key(void) { (void)pthread_key_create(&rooms_key, free_rooms); }

static void rooms_held(void) {
  if (rooms_marked) return;
  (void)pthread_once(&rooms_once, make_rooms_key);
  rooms_marked = pthread_setspecific(rooms_key, &rooms_key) == 0;
}

/* the waves of the folded kernels seen on this host thread: a kernel, its
 * shape and GPU, and how many of its blocks the GPU holds at once */
struct fold_wave {
  const void *fn;
  unsigned threads;
  size_t smem;
  int dev;
  long long blocks;
};
static thread_local fold_wave fold_waves[16];
static thread_local int fold_next;

dim3 parray_cuda_fold_grid(const void *fn, dim3 grid, dim3 block, size_t smem, const char *file, int line,
                           const char *what) {
  const unsigned threads = block.x * block.y * block.z;
  const long long total = (long long)grid.x * grid.y * grid.z;
  int dev = 0;
  check(cudaGetDevice(&dev), file, line, what, "cudaGetDevice");
  long long wave = 0;
  for (const fold_wave &f : fold_waves)
    if (f.fn == fn && f.threads == threads && f.smem == smem && f.dev == dev) wave = f.blocks;
  if (!wave) {
    int sms = 0, per_sm = 0;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), file, line, what, "cudaDeviceGetAttribute");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, (int)threads, smem), file, line, what,
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    wave = (long long)(per_sm > 0 ? per_sm : 1) * (sms > 0 ? sms : 1);
    fold_waves[fold_next] = fold_wave{fn, threads, smem, dev, wave};
    fold_next = (fold_next + 1) % 16;
  }
  const long long g = total < wave ? total : wave;
  return dim3((unsigned)(g > 0 ? g : 1));
}

void parray_cuda_launch_cooperative(const void *fn, dim3 grid, dim3 block, void **args, size_t smem,
                                    const char *file, int line, const char *what) {
  int dev = 0, coop = 0, sms = 0, per_sm = 0;
  wait_pending(file, line, what); /* an earlier detour's error is reported as its own */
  check(cudaGetDevice(&dev), file, line, what, "cudaGetDevice");
  check(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev), file, line, what, "cudaDeviceGetAttribute");
  if (!coop) parray_fatal_at(file, line, what, "#sync_0 needs a GPU that supports cooperative launches");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), file, line, what, "cudaDeviceGetAttribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, (int)(block.x * block.y * block.z), smem), file,
        line, what, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  long long blocks = (long long)grid.x * grid.y * grid.z, room = (long long)per_sm * sms;
  if (blocks > room)
    parray_fatal_at(file, line, what, "#sync_0 needs all %lld blocks of the grid resident at once, but this GPU holds "
                    "at most %lld of them (%d multiprocessors x %d)", blocks, room, sms, per_sm);
  check(cudaLaunchCooperativeKernel(fn, grid, block, args, smem, 0), file, line, what, "cudaLaunchCooperativeKernel");
  record(file, line, what);
  wait_device(file, line, what, "the kernel");
}
