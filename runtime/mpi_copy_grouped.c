/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_copy_grouped.c - the collective #copy when a side is in a memory that
 * has a transport of its own (parray_mpi_memory.exchange: NCCL, for the
 * GPUs) or whose blocks other processes reach (the direct path: CUDA IPC
 * inside a node), and the choice between them and the staged engine
 * (mpi_copy_staged.c), made for each pair of processes. The plan is the host
 * engine's (mpi_copy_plan.h). Every process:
 *  1. counts what it sends to and receives from each peer, and learns from
 *     an all-gather who reaches whom and who has the transport: a pair goes
 *     direct when both reach each other's blocks (and both sides are in the
 *     memory), else over the transport; without it everywhere, the whole
 *     copy goes through the staged engine;
 *  2. packs what it sends over the transport into the memory on lane 0 (a
 *     host side: packed on the CPU into pinned memory, then moved there);
 *  3. starts the exchange (one group of messages, after the packs);
 *  4. writes its direct combos straight into the peers' blocks, between two
 *     barriers (every destination free before, every write in after), and
 *     copies its own combos inside the memory;
 *  5. unpacks what arrived on lane 1 (a host destination: moved to pinned
 *     memory and unpacked on the CPU), and waits for both lanes.
 * The process that writes a direct combo is its source's, except for a
 * gather into process 0's buffer, which process 0 pulls. docs/mpi_runtime.md. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi_copy_plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A direct combo of this many bytes and more is split into slabs of about
 * this size, at most MAX_SLABS of them, spread over the memory's engines. */
#define SLAB_BYTES ((int64_t)64 << 20)
#define MAX_SLABS 8

typedef struct grouped {
  const copy_desc *d;
  const parray_mpi_copy_run *r;
  const parray_mpi_memory *m; /* the memory with the transport (a side's) */
  plan pl;
  char *sdev, *rdev;    /* what is sent / received, in the memory */
  char *shost, *rhost;  /* a host side's pinned staging */
  unsigned char *row;   /* per process q: reach q, then "has the transport" (P + 1 bytes each) */
  unsigned char *all;   /* every process's row */
  bool *direct;         /* per peer: the pair goes direct */
  bool *busy;           /* per peer: anything moves between us */
  int ndirect;
} grouped;

static parray_status no_room(const grouped *g, const char *what, int64_t bytes) {
  parray_set_error("#copy: process %d cannot get %lld bytes of %s", g->pl.me, (long long)bytes, what);
  return PARRAY_ERR_ALLOC;
}

/* A host side is always packed (the transport needs one buffer in the
 * memory): packed displacements, even where it could be used in place. */
static void force_packed(int64_t *cnt, int64_t *dsp, bool *zc, int64_t *tot, int P) {
  if (!*zc) return;
  int64_t o = 0;
  for (int p = 0; p < P; p++) dsp[p] = o, o += cnt[p];
  *zc = false;
  *tot = o;
}

/* This process reaches q's blocks of every distributed side. */
static bool reaches(const grouped *g, int q) {
  if (q == g->pl.me) return true;
  const parray_mpi_copy_run *r = g->r;
  if (!r->smem || r->smem != r->dmem) return false;
  if (g->d->src_h >= 0 && (!r->src_peers || !r->src_peers[q])) return false;
  if (g->d->dst_h >= 0 && (!r->dst_peers || !r->dst_peers[q])) return false;
  return true;
}

/* Step 1: the all-gather and the choice per pair. *staged: the whole copy
 * goes through the staged engine. */
static parray_status choose(grouped *g, bool *staged) {
  int P = g->pl.P, me = g->pl.me, want = g->r->path;
  /* a host side has no direct path: "direct" asks it of the device sides */
  if (want == PARRAY_MPI_PATH_DIRECT && g->r->smem != g->r->dmem) want = PARRAY_MPI_PATH_NONE;
  size_t w = (size_t)P + 1;
  g->row = calloc(w * ((size_t)P + 1), 1);
  g->direct = calloc(2 * (size_t)P, sizeof(bool));
  if (!g->row || !g->direct) return no_room(g, "memory for the copy's plan", (int64_t)(w * w));
  g->all = g->row + w, g->busy = g->direct + P;
  for (int q = 0; q < P; q++) g->row[q] = reaches(g, q);
  g->row[P] = g->m->exchange != NULL;
  int rc = MPI_Allgather(g->row, (int)w, MPI_BYTE, g->all, (int)w, MPI_BYTE, rmpi_comm());
  if (rc != MPI_SUCCESS) return rmpi_error(rc, "#copy (choosing the paths)");
  bool xall = true;
  for (int p = 0; p < P; p++) xall = xall && g->all[(size_t)p * w + (size_t)P];
  for (int q = 0; q < P; q++) {
    g->busy[q] = g->pl.scnt[q] || g->pl.rcnt[q];
    bool mutual = g->all[(size_t)me * w + (size_t)q] && g->all[(size_t)q * w + (size_t)me];
    g->direct[q] = q != me && mutual && want != PARRAY_MPI_PATH_EXCHANGE && want != PARRAY_MPI_PATH_STAGED;
    if (want == PARRAY_MPI_PATH_DIRECT && q != me && !mutual && g->busy[q]) {
      parray_set_error("#copy: the direct path was asked for (PARRAY_MPI_TRANSPORT=direct), but processes %d and %d "
                       "do not reach each other's blocks (another node, or no peer access between their GPUs)", me, q);
      return PARRAY_ERR_UNSUPPORTED;
    }
  }
  bool rest = false; /* pairs that need the transport */
  for (int q = 0; q < P; q++) rest = rest || (g->busy[q] && !g->direct[q] && (q != me || g->pl.self_peer));
  if (!xall && want != PARRAY_MPI_PATH_STAGED && want != PARRAY_MPI_PATH_EXCHANGE) {
    /* the staged engine is collective: every process takes it when any
     * pair needs the missing transport (a process whose pairs all go
     * direct would otherwise wait in run() for the others) */
    int any = rest;
    rc = MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, rmpi_comm());
    if (rc != MPI_SUCCESS) return rmpi_error(rc, "#copy (choosing the paths)");
    rest = any;
  }
  if (want == PARRAY_MPI_PATH_EXCHANGE && !xall) {
    parray_set_error("#copy: the NCCL transport was asked for (PARRAY_MPI_TRANSPORT=nccl), but %s", g->m->exchange ?
                     "another process could not load NCCL" : "this process could not load NCCL");
    return PARRAY_ERR_UNSUPPORTED;
  }
  *staged = want == PARRAY_MPI_PATH_STAGED || (rest && !xall);
  return PARRAY_OK;
}

/* Step 2: what goes over the transport, packed in the memory. */
static parray_status pack_sends(grouped *g) {
  plan *pl = &g->pl;
  int64_t es = g->d->es;
  const parray_mpi_memory *m = g->m, *sm = g->r->smem;
  parray_status s = PARRAY_OK;
  if (!sm) force_packed(pl->scnt, pl->sdsp, &pl->szc, &pl->stot, pl->P);
  if (pl->szc) {
    g->sdev = pl->sbase;
    return PARRAY_OK;
  }
  if (pl->stot && !(g->sdev = m->buffer(m->ctx, 0, (size_t)(pl->stot * es)))) return no_room(g, "pack buffer", pl->stot * es);
  if (!sm && pl->stot && !(g->shost = m->buffer(m->ctx, 2, (size_t)(pl->stot * es))))
    return no_room(g, "pinned host staging", pl->stot * es);
  for (int q = 0; q < pl->P && s == PARRAY_OK; q++)
    if (pl->scnt[q]) s = rmpi_pack_peer(g->d, pl, q, sm, 0, sm ? g->sdev : g->shost);
  if (s == PARRAY_OK && !sm && pl->stot) s = m->from_host(m->ctx, 0, g->sdev, g->shost, (size_t)(pl->stot * es));
  return s;
}

/* Step 3: one group of messages. */
static parray_status start_exchange(grouped *g) {
  plan *pl = &g->pl;
  int64_t es = g->d->es;
  const parray_mpi_memory *m = g->m;
  if (!g->r->dmem) force_packed(pl->rcnt, pl->rdsp, &pl->rzc, &pl->rtot, pl->P);
  g->rdev = pl->rzc ? pl->rbase : NULL;
  if (!pl->rzc && pl->rtot && !(g->rdev = m->buffer(m->ctx, 1, (size_t)(pl->rtot * es))))
    return no_room(g, "unpack buffer", pl->rtot * es);
  parray_mpi_message *msg = malloc(2 * (size_t)pl->P * sizeof *msg + 1);
  if (!msg) return no_room(g, "memory for the message list", 2 * pl->P * (int64_t)sizeof *msg);
  int n = 0;
  for (int k = 0; k < pl->P; k++) { /* receives from me-k, sends to me+k: every pair meets early */
    int p = (pl->me - k + pl->P) % pl->P, q = (pl->me + k) % pl->P;
    if (pl->rcnt[p]) msg[n++] = (parray_mpi_message){p, 1, g->rdev + pl->rdsp[p] * es, (size_t)(pl->rcnt[p] * es)};
    if (pl->scnt[q]) msg[n++] = (parray_mpi_message){q, 0, g->sdev + pl->sdsp[q] * es, (size_t)(pl->scnt[q] * es)};
  }
  parray_status s = m->exchange(m->ctx, msg, n);
  free(msg);
  return s;
}

/* One direct combo: large ones in slabs along their outer mode, each slab
 * on the next slot, so that several engines share the transfer. */
static parray_status write_combo(grouped *g, char *dst, const void *src, int *slot, int lanes) {
  const copy_desc *d = g->d;
  const parray_mpi_memory *m = g->m;
  int64_t u = d->u, n = d->n - u, es = d->es, sh[RMPI_MAXM];
  int64_t bytes = es;
  for (int k = 0; k < n; k++) bytes *= d->shape[u + k], sh[k] = d->shape[u + k];
  int64_t parts = n > 0 && m->copy_peer && bytes >= SLAB_BYTES ? (bytes + SLAB_BYTES - 1) / SLAB_BYTES : 1;
  if (parts > MAX_SLABS) parts = MAX_SLABS;
  if (n > 0 && parts > sh[0]) parts = sh[0];
  for (int64_t p = 0, at = 0; p < parts; p++) {
    int64_t len = n > 0 ? (sh[0] - at) / (parts - p) : 1;
    if (n > 0) sh[0] = len;
    const char *s = (const char *)src + (n > 0 ? at * d->sl[u] * es : 0);
    char *t = dst + (n > 0 ? at * d->dl[u] * es : 0);
    parray_status st = m->copy_peer ? m->copy_peer(m->ctx, (*slot)++, t, d->dl + u, s, d->sl + u, sh, (int)n, (size_t)es)
                                    : m->copy(m->ctx, lanes > 1 ? (*slot)++ % 2 : 0, t, d->dl + u, s, d->sl + u, sh,
                                              (int)n, (size_t)es);
    if (st != PARRAY_OK) return st;
    at += len;
    if (n > 0) sh[0] = d->shape[u];
  }
  return PARRAY_OK;
}

/* Step 4: the combos this process writes straight into its peers' blocks,
 * peer by peer in rounds (me+1, me+2, ...), so that at any time each
 * destination GPU takes the writes of one source, as in a permutation;
 * a round's large combos are spread over the memory's engines, and the
 * next round starts when it is done. */
static parray_status write_direct(grouped *g, int lanes) {
  const copy_desc *d = g->d;
  const plan *pl = &g->pl;
  const parray_mpi_memory *m = g->m;
  int64_t es = d->es;
  int slot = 0;
  for (int k = 1; k < pl->P; k++) {
    int q = (pl->me + k) % pl->P;
    if (!g->direct[q]) continue;
    combo c;
    rmpi_combo_first(d, &c);
    do {
      int actor = d->dst_h < 0 ? (int)c.pd : (int)c.ps, other = c.ps == pl->me ? (int)c.pd : (int)c.ps;
      if (actor != pl->me || c.ps == c.pd || other != q) continue;
      const char *src = c.ps == pl->me ? pl->sbase : (const char *)g->r->src_peers[c.ps];
      char *dst = c.pd == pl->me ? pl->rbase : (char *)g->r->dst_peers[c.pd];
      parray_status s = write_combo(g, dst + c.od * es, src + c.os * es, &slot, lanes);
      if (s != PARRAY_OK) return s;
    } while (rmpi_combo_next(d, &c));
    if (m->copy_peer && m->peer_fence) {
      parray_status s = m->peer_fence(m->ctx);
      if (s != PARRAY_OK) return s;
    }
  }
  return PARRAY_OK;
}

/* Step 5: what arrived, into its places. */
static parray_status unpack_all(grouped *g) {
  plan *pl = &g->pl;
  int64_t es = g->d->es;
  const parray_mpi_memory *m = g->m, *dm = g->r->dmem;
  if (pl->rzc || !pl->rtot) return PARRAY_OK;
  parray_status s = PARRAY_OK;
  if (!dm) {
    if (!(g->rhost = m->buffer(m->ctx, 3, (size_t)(pl->rtot * es)))) return no_room(g, "pinned host staging", pl->rtot * es);
    if ((s = m->to_host(m->ctx, 1, g->rhost, g->rdev, (size_t)(pl->rtot * es))) != PARRAY_OK ||
        (s = m->finish(m->ctx)) != PARRAY_OK)
      return s;
  }
  for (int p = 0; p < pl->P && s == PARRAY_OK; p++)
    if (pl->rcnt[p]) s = rmpi_unpack_peer(g->d, pl, p, dm, 1, dm ? g->rdev : g->rhost);
  return s;
}

static parray_status barrier(void) {
  int rc = MPI_Barrier(rmpi_comm());
  return rc == MPI_SUCCESS ? PARRAY_OK : rmpi_error(rc, "#copy (barrier of the direct path)");
}

/* Steps 2 to 5, once the paths are chosen. */
static parray_status run(grouped *g) {
  plan *pl = &g->pl;
  bool xchg = false;
  for (int q = 0; q < pl->P; q++) {
    if (g->direct[q]) pl->scnt[q] = pl->rcnt[q] = 0, g->ndirect += g->busy[q];
    xchg = xchg || pl->scnt[q] || pl->rcnt[q];
  }
  parray_status s = PARRAY_OK;
  /* the transport is collective: every process starts it when any does */
  int any = xchg, rc = MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, rmpi_comm());
  if (rc != MPI_SUCCESS) return rmpi_error(rc, "#copy (choosing the paths)");
  if (any && (s = pack_sends(g)) == PARRAY_OK) s = start_exchange(g);
  int dir = g->ndirect;
  if ((rc = MPI_Allreduce(MPI_IN_PLACE, &dir, 1, MPI_INT, MPI_MAX, rmpi_comm())) != MPI_SUCCESS)
    return rmpi_error(rc, "#copy (choosing the paths)");
  if (dir) {
    parray_status b = barrier(); /* reached even after an error: the others wait here */
    if (s == PARRAY_OK) s = b;
    if (s == PARRAY_OK) s = write_direct(g, any ? 1 : 2);
  }
  if (s == PARRAY_OK && !pl->self_peer) s = rmpi_copy_self(g->d, pl, g->m, 1);
  if (s == PARRAY_OK && any) s = unpack_all(g);
  parray_status f = g->m->finish(g->m->ctx); /* nothing may still write */
  if (s == PARRAY_OK) s = f;
  if (dir) {
    parray_status b = barrier();
    if (s == PARRAY_OK) s = b;
  }
  return s;
}

/* This process copies combos inside its own memory (its own part, which
 * the plan does not count as a peer's unless self_peer). */
static bool own_part(const grouped *g) {
  if (g->pl.self_peer) return false;
  combo c;
  rmpi_combo_first(g->d, &c);
  do
    if (c.ps == g->pl.me && c.pd == g->pl.me) return true;
  while (rmpi_combo_next(g->d, &c));
  return false;
}

static void report(const grouped *g, bool staged) {
  int *used = g->r->used;
  if (!used) return;
  bool own = own_part(g);
  for (int q = 0; q < g->pl.P; q++)
    used[q] = q == g->pl.me && !g->pl.self_peer ? (own ? PARRAY_MPI_PATH_LOCAL : PARRAY_MPI_PATH_NONE)
              : !g->busy[q]                      ? PARRAY_MPI_PATH_NONE
              : staged                           ? PARRAY_MPI_PATH_STAGED
              : g->direct[q]                     ? PARRAY_MPI_PATH_DIRECT
                                                 : PARRAY_MPI_PATH_EXCHANGE;
}

parray_status rmpi_copy_grouped(const copy_desc *d, const parray_mpi_copy_run *r, int64_t chunk) {
  grouped g;
  memset(&g, 0, sizeof g);
  g.d = d, g.r = r, g.m = r->dmem ? r->dmem : r->smem;
  bool staged = false;
  /* an error on one process ends the job (the caller stops naming the .pc
   * line), so the others never wait for it in a collective call */
  parray_status s = rmpi_plan_count(d, &g.pl, (char *)r->src, (char *)r->dst, r->smem != r->dmem);
  if (s == PARRAY_OK) s = choose(&g, &staged);
  if (s == PARRAY_OK) {
    report(&g, staged);
    s = staged ? rmpi_copy_staged(d, (char *)r->dst, r->dmem, (char *)r->src, r->smem, chunk) : run(&g);
  }
  free(g.row);
  free(g.direct);
  rmpi_plan_free(&g.pl);
  return s;
}
