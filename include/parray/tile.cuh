/* SPDX-License-Identifier: Apache-2.0 */
/* parray/tile.cuh - coalesced reads and writes of runs of consecutive
 * elements, one run per thread, for cuda detour bodies (docs/threads.md,
 * "Scans"). A scan needs each thread's elements next to each other, so
 * thread t reads x[t * P + j]; read that way, a warp's 32 threads touch 32
 * places P elements apart at once. These helpers read the warp's 32 * P
 * elements in rows of 32 neighbours instead, and pass them to their threads
 * through shared memory (rows padded so that no two threads of a quarter
 * warp meet in a bank): into registers (parray_tile_load and _store), or
 * kept there as the thread's tile (parray_tile_read and _write). A .pc file
 * that builds for the GPU includes it itself (#include <parray/tile.cuh>). */
#ifndef PARRAY_TILE_CUH
#define PARRAY_TILE_CUH

#include <stdio.h>

/* the staging room of the warps of a block: NT / 32 warps of 32 * P
 * elements, one padding element after every 8; shared by the reads and
 * writes of the same shape */
template <int NT, class T, int P> __device__ __forceinline__ T *parray__tile_room() {
  static_assert(NT >= 32 && NT <= 1024 && NT % 32 == 0, "parray_tile: NT is the block's thread count, 32..1024");
  static_assert(P >= 1, "parray_tile: at least one element per thread");
  __shared__ __align__(16) unsigned char room[NT / 32 * (36 * P) * sizeof(T)];
  return reinterpret_cast<T *>(room);
}

/* this thread's warp and lane, the warp's lanes (n) and their mask, and
 * whether its warp has staging room */
struct parray__tile_warp {
  unsigned warp, lane, n, mask;
  bool staged;
};
template <int NT> __device__ __forceinline__ parray__tile_warp parray__tile_where() {
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nt = blockDim.x * blockDim.y * blockDim.z, warp = t / 32;
  parray__tile_warp w;
  w.warp = warp;
  w.lane = t % 32;
  w.n = warp + 1 < (nt + 31) / 32 ? 32 : nt - warp * 32;
  w.mask = w.n >= 32 ? 0xffffffffu : (1u << w.n) - 1u;
  w.staged = warp < (unsigned)(NT / 32);
  return w;
}

/* the staging room of w's warp */
template <int NT, class T, int P> __device__ __forceinline__ T *parray__tile_warp_room(const parray__tile_warp &w) {
  return parray__tile_room<NT, T, P>() + w.warp * (36 * P);
}

/* element e of a warp's room (e = lane * P + j: element j of lane's run) */
template <class T> __device__ __forceinline__ T &parray__tile_at(T *room, unsigned e) { return room[e + e / 8]; }

/* the warp's rows r = 0..P-1 (its elements r * n .. r * n + n - 1 from
 * b0) between x and its room, below n */
template <class T, int P>
__device__ __forceinline__ void parray__tile_rows_in(T *room, const T *x, long long b0, const parray__tile_warp &w,
                                                     long long n) {
#pragma unroll
  for (int r = 0; r < P; r++) {
    const unsigned e = r * w.n + w.lane;
    parray__tile_at(room, e) = b0 + e < n ? x[b0 + e] : T();
  }
}
template <class T, int P>
__device__ __forceinline__ void parray__tile_rows_out(T *room, T *y, long long b0, const parray__tile_warp &w,
                                                      long long n) {
#pragma unroll
  for (int r = 0; r < P; r++) {
    const unsigned e = r * w.n + w.lane;
    if (b0 + e < n) y[b0 + e] = parray__tile_at(room, e);
  }
}

/* ask L2 for x[from .. from + count) clipped to x[0 .. n): one bulk
 * prefetch of its 16-byte-aligned inside, issued by the calling thread
 * (Hopper and later; a hint, nothing on older GPUs or off global memory) */
template <class T>
__device__ __forceinline__ void parray__tile_prefetch(const T *x, long long from, long long count, long long n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const long long lo = from < 0 ? 0 : from, hi = from + count < n ? from + count : n;
  if (lo >= hi || !__isGlobal(x)) return;
  const unsigned long long a = ((unsigned long long)(x + lo) + 15) & ~15ull, b = (unsigned long long)(x + hi) & ~15ull;
  if (a < b && b - a < (1ull << 31))
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a), "r"((unsigned)(b - a)) : "memory");
#else
  (void)x, (void)from, (void)count, (void)n;
#endif
}

/* v[j] = x[mine + j] for j < P (T() where mine + j >= n). The threads of a
 * warp hold consecutive runs: lane L's mine is lane 0's plus L * P (as
 * with mine = $tid$ * P). Every thread of the block's warps calls it (it
 * synchronises the warp). NT: the block's thread count, which sizes the
 * shared staging room (NT / 32 * 36 * P elements); warps beyond it read
 * their runs directly, correct but slower. The warp's first lane asks L2
 * for the warp's whole run with one bulk prefetch before the warp's rows
 * are read: the rows then mostly meet lines already on their way, and the
 * run's reads finish sooner and closer together (a scan's blocks wait for
 * the slowest of the blocks before them). */
template <int NT, class T, int P>
__device__ void parray_tile_load(T (&v)[P], const T *x, long long mine, long long n) {
  const parray__tile_warp w = parray__tile_where<NT>();
  const long long b0 = __shfl_sync(w.mask, mine, 0), run = (long long)w.n * P; /* the warp's elements */
  if (w.lane == 0) parray__tile_prefetch(x, b0, run, n); /* the whole run asked of L2 at once */
  if (!w.staged) {
    for (int j = 0; j < P; j++) v[j] = mine + j < n ? x[mine + j] : T();
    return;
  }
  T *room = parray__tile_warp_room<NT, T, P>(w);
  parray__tile_rows_in<T, P>(room, x, b0, w, n);
  __syncwarp(w.mask);
#pragma unroll
  for (int j = 0; j < P; j++) v[j] = parray__tile_at(room, w.lane * P + j);
  __syncwarp(w.mask); /* the room is free for the warp's next read or write */
}

/* A thread's run held in the block's shared staging room instead of in
 * registers: parray_tile_read fills the room with the warp's runs, t[j] is
 * element j of the calling thread's run there (read and written in place),
 * and parray_tile_write writes the runs out. A block holding its tile in
 * shared memory keeps few registers, so more blocks fit on a
 * multiprocessor; a scan's blocks spend much of their lives waiting for
 * the blocks before them, and more blocks resident means more tiles on
 * their way meanwhile (docs/threads.md, "Speed on a GPU"). One tile of a
 * shape (NT, T, P) at a time: reading another of the same shape reuses
 * the room. */
template <int NT, class T, int P> struct parray_tile {
  T *run;        /* the warp's room */
  unsigned lane; /* the calling thread's place in it */
  __device__ __forceinline__ T &operator[](int j) const { return parray__tile_at(run, lane * P + (unsigned)j); }
};

/* a block of more threads than NT has no room for its last warps: a
 * programming error, reported where the kernel stops (out of line, so that
 * the check costs the tile's reads one comparison) */
static __device__ __noinline__ void parray__tile_too_big(const char *who, unsigned nt, int room) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) { /* it reports and stops the kernel */
    printf("%s: error: a block of %u threads, more than the room's NT = %d\n", who, nt, room);
    __trap();
  }
  for (;;) { /* the others wait for that */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __nanosleep(1u << 20);
#endif
  }
}
template <int NT> __device__ __forceinline__ void parray__tile_fits(const char *who) {
  const unsigned nt = blockDim.x * blockDim.y * blockDim.z;
  if (nt > (unsigned)NT) parray__tile_too_big(who, nt, NT);
}

/* the tile of the calling thread's run x[mine .. mine + P) (T() at or past
 * n), read as parray_tile_load reads it; every thread of the block's
 * warps calls it together, the threads of a warp holding consecutive runs
 * (mine = $tid$ * P); the block has at most NT threads */
template <int NT, int P, class T>
__device__ parray_tile<NT, T, P> parray_tile_read(const T *x, long long mine, long long n) {
  parray__tile_fits<NT>("parray_tile_read");
  const parray__tile_warp w = parray__tile_where<NT>();
  const long long b0 = __shfl_sync(w.mask, mine, 0), run = (long long)w.n * P;
  if (w.lane == 0) parray__tile_prefetch(x, b0, run, n);
  parray_tile<NT, T, P> t = {parray__tile_warp_room<NT, T, P>(w), w.lane};
  parray__tile_rows_in<T, P>(t.run, x, b0, w, n);
  __syncwarp(w.mask);
  return t;
}

/* y[mine + j] = t[j] for j < P where mine + j < n, in rows of neighbours;
 * the same conditions as parray_tile_read, with the same mine */
template <int NT, class T, int P>
__device__ void parray_tile_write(const parray_tile<NT, T, P> &t, T *y, long long mine, long long n) {
  const parray__tile_warp w = parray__tile_where<NT>();
  const long long b0 = __shfl_sync(w.mask, mine, 0);
  __syncwarp(w.mask); /* every thread's t[j] is in the room */
  parray__tile_rows_out<T, P>(t.run, y, b0, w, n);
  __syncwarp(w.mask); /* the room is free for the warp's next tile */
}

/* y[mine + j] = v[j] for j < P where mine + j < n, written in rows of
 * neighbours; the same conditions as parray_tile_load */
template <int NT, class T, int P>
__device__ void parray_tile_store(const T (&v)[P], T *y, long long mine, long long n) {
  const parray__tile_warp w = parray__tile_where<NT>();
  if (!w.staged) {
    for (int j = 0; j < P; j++)
      if (mine + j < n) y[mine + j] = v[j];
    return;
  }
  const long long b0 = __shfl_sync(w.mask, mine, 0);
  T *room = parray__tile_warp_room<NT, T, P>(w);
#pragma unroll
  for (int j = 0; j < P; j++) parray__tile_at(room, w.lane * P + j) = v[j];
  __syncwarp(w.mask);
  /* parray__tile_rows_out's rows, written out: through it nvcc emits this
   * form's instructions in another order than the one measured */
#pragma unroll
  for (int r = 0; r < P; r++) {
    const unsigned e = r * w.n + w.lane;
    if (b0 + e < n) y[b0 + e] = room[e + e / 8];
  }
  __syncwarp(w.mask);
}

#endif
