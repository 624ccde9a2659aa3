/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_copy_staged.c - the collective #copy when a side is in a memory other
 * than host memory (a parray_mpi_memory: the GPUs' memory, in
 * parray_mpi_cuda). The plan is the host engine's (mpi_copy_plan.h); what
 * differs is how the data reaches MPI. Every process:
 *  - posts all its receives first;
 *  - for each peer in turn (me+1, me+2, ...) packs what it sends on the
 *    memory's send lane, moves it to pinned host memory in pieces of about
 *    `chunk` bytes and marks each piece; a piece is sent as soon as its mark
 *    is reached, so the memory's transfers overlap the exchange;
 *  - copies its own blocks inside the memory when both sides are in it (a
 *    host side and a side in the memory: they travel like a message to
 *    itself, without MPI);
 *  - moves every piece that arrives into the memory on the receive lane,
 *    and unpacks a peer's data there once all of its pieces are in.
 * When MPI reaches the memory itself (CUDA-aware MPI) and both sides are in
 * it, MPI reads and writes it: no host copies. docs/mpi_runtime.md. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi_copy_plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One message piece. */
typedef struct piece {
  int peer;
  char *mpi;      /* what MPI reads (sends) or writes (receives) */
  char *mem;      /* a received piece's place in the memory (NULL: MPI wrote it in place) */
  int64_t bytes;
  int64_t ticket; /* a sent piece's mark (-1: ready) */
} piece;

typedef struct stage {
  const copy_desc *d;
  plan pl;
  const parray_mpi_memory *sm, *dm; /* the sides' memories (NULL: host) */
  bool direct;                      /* MPI reads and writes the memory */
  int64_t chunk;
  char *spk, *rpk; /* packed data: sent / received */
  char *sh, *rh;   /* host staging of a side in a memory */
  piece *snd, *rcv;
  int ns, nr, nr_mpi;  /* rcv: the nr_mpi pieces from other processes, then our own */
  MPI_Request *rq;     /* nr_mpi receives, then the sends */
  int nsq;             /* sends posted */
  int64_t *left;       /* per peer: pieces still to arrive */
  int si, self_next;   /* the next piece to send; our own pieces delivered */
  int done;            /* pieces received */
  int *idx;            /* MPI_Testsome's indices */
} stage;

static int64_t pieces_of(int64_t bytes, int64_t chunk) { return (bytes + chunk - 1) / chunk; }

static parray_status no_room(const stage *g, const char *what, int64_t bytes) {
  parray_set_error("#copy: process %d cannot get %lld bytes of %s", g->pl.me, (long long)bytes, what);
  return PARRAY_ERR_ALLOC;
}

/* A scratch buffer of the memory m (host memory: the host engine's). */
static char *scratch(const parray_mpi_memory *m, int which, int64_t bytes) {
  return m ? m->buffer(m->ctx, which, (size_t)bytes) : rmpi_cached(which & 1, (size_t)bytes);
}

/* Pack, staging and receive buffers; off: the peers' packed host offsets. */
static parray_status buffers(stage *g) {
  plan *pl = &g->pl;
  int64_t es = g->d->es, so = 0, ro = 0;
  for (int p = 0; p < pl->P; p++) so += pl->scnt[p], ro += pl->rcnt[p];
  if (pl->stot && !(g->spk = scratch(g->sm, 0, pl->stot * es))) return no_room(g, "pack buffer", pl->stot * es);
  if (pl->rtot && !(g->rpk = scratch(g->dm, 1, pl->rtot * es))) return no_room(g, "unpack buffer", pl->rtot * es);
  if (g->sm && !g->direct && so && !(g->sh = scratch(g->sm, 2, so * es)))
    return no_room(g, "pinned host staging", so * es);
  if (g->dm && !g->direct && ro && !(g->rh = scratch(g->dm, 3, ro * es)))
    return no_room(g, "pinned host staging", ro * es);
  int64_t n = 0, m = 0;
  for (int p = 0; p < pl->P; p++) n += pieces_of(pl->scnt[p] * es, g->chunk), m += pieces_of(pl->rcnt[p] * es, g->chunk);
  g->snd = calloc((size_t)(n + m + 1), sizeof *g->snd);
  g->rq = malloc((size_t)(n + m + 1) * sizeof *g->rq);
  g->left = calloc((size_t)pl->P, sizeof *g->left);
  g->idx = malloc((size_t)(m + 1) * sizeof *g->idx);
  if (!g->snd || !g->rq || !g->left || !g->idx)
    return no_room(g, "memory for the message list", (n + m) * (int64_t)sizeof(piece));
  g->rcv = g->snd + n;
  return PARRAY_OK;
}

/* What this process sends to q: packed (if its blocks are not one run),
 * staged to host memory piece by piece, each piece marked. */
static parray_status send_peer(stage *g, int q, int64_t hoff) {
  plan *pl = &g->pl;
  int64_t es = g->d->es, bytes = pl->scnt[q] * es;
  if (!bytes) return PARRAY_OK;
  char *at = (pl->szc ? pl->sbase : g->spk) + pl->sdsp[q] * es;
  parray_status s;
  if (!pl->szc && (s = rmpi_pack_peer(g->d, pl, q, g->sm, 0, g->spk)) != PARRAY_OK) return s;
  int64_t t = -1;
  if (g->direct && (s = g->sm->mark(g->sm->ctx, 0, &t)) != PARRAY_OK) return s;
  for (int64_t off = 0; off < bytes; off += g->chunk) {
    piece *p = &g->snd[g->ns++];
    *p = (piece){.peer = q, .mpi = at + off, .bytes = bytes - off < g->chunk ? bytes - off : g->chunk, .ticket = t};
    if (g->sm && !g->direct) {
      p->mpi = g->sh + hoff * es + off;
      if ((s = g->sm->to_host(g->sm->ctx, 0, p->mpi, at + off, (size_t)p->bytes)) != PARRAY_OK ||
          (s = g->sm->mark(g->sm->ctx, 0, &p->ticket)) != PARRAY_OK)
        return s;
    }
  }
  return PARRAY_OK;
}

/* Where what comes from p lands, piece by piece. */
static void recv_peer(stage *g, int p, int64_t hoff) {
  plan *pl = &g->pl;
  int64_t es = g->d->es, bytes = pl->rcnt[p] * es;
  char *at = (pl->rzc ? pl->rbase : g->rpk) + pl->rdsp[p] * es;
  for (int64_t off = 0; off < bytes; off += g->chunk) {
    piece *r = &g->rcv[g->nr++];
    *r = (piece){.peer = p, .mpi = at + off, .bytes = bytes - off < g->chunk ? bytes - off : g->chunk, .ticket = -1};
    if (g->dm && !g->direct) r->mpi = g->rh + hoff * es + off, r->mem = at + off;
    g->left[p]++;
  }
}

/* A piece is in: into the memory, and the peer unpacked when it is whole. */
static parray_status arrived(stage *g, const piece *r) {
  parray_status s = PARRAY_OK;
  if (r->mem && (s = g->dm->from_host(g->dm->ctx, 1, r->mem, r->mpi, (size_t)r->bytes)) != PARRAY_OK) return s;
  if (--g->left[r->peer] == 0 && !g->pl.rzc) s = rmpi_unpack_peer(g->d, &g->pl, r->peer, g->dm, 1, g->rpk);
  return s;
}

/* Send every piece whose mark is reached, in order; our own pieces are
 * copied into their receive places. */
static parray_status send_ready(stage *g) {
  MPI_Comm comm = rmpi_comm();
  while (g->si < g->ns) {
    const piece *p = &g->snd[g->si];
    if (p->ticket >= 0) {
      int r = g->sm->reached(g->sm->ctx, p->ticket);
      if (r < 0) return PARRAY_ERR_CUDA;
      if (!r) break;
    }
    if (p->peer == g->pl.me) {
      const piece *r = &g->rcv[g->nr_mpi + g->self_next++];
      memcpy(r->mpi, p->mpi, (size_t)p->bytes);
      parray_status s = arrived(g, r);
      if (s != PARRAY_OK) return s;
    } else {
      int rc = MPI_Isend(p->mpi, (int)p->bytes, MPI_BYTE, p->peer, 0, comm, &g->rq[g->nr_mpi + g->nsq]);
      if (rc != MPI_SUCCESS) return rmpi_error(rc, "#copy (sending a piece)");
      g->nsq++;
    }
    g->si++;
  }
  return PARRAY_OK;
}

/* One round: send what is ready, take what arrived. Called between the
 * peers' packs too, so that sending starts while later peers are packed. */
static parray_status progress(stage *g) {
  parray_status s = send_ready(g);
  if (s != PARRAY_OK || g->done == g->nr_mpi) return s;
  int out = 0, rc = MPI_Testsome(g->nr_mpi, g->rq, &out, g->idx, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) return rmpi_error(rc, "#copy (receiving pieces)");
  if (out == MPI_UNDEFINED) return PARRAY_OK;
  for (int k = 0; s == PARRAY_OK && k < out; k++) s = arrived(g, &g->rcv[g->idx[k]]);
  g->done += out;
  return s;
}

/* Until everything is sent and in; then the sends complete. */
static parray_status exchange(stage *g) {
  parray_status s = PARRAY_OK;
  while (s == PARRAY_OK && (g->si < g->ns || g->done < g->nr_mpi)) s = progress(g);
  if (g->nsq) {
    int rc = MPI_Waitall(g->nsq, g->rq + g->nr_mpi, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS && s == PARRAY_OK) s = rmpi_error(rc, "#copy (sending pieces)");
  }
  return s;
}

/* Post the receives, queue the sends (and our own blocks), exchange. */
static parray_status run(stage *g) {
  plan *pl = &g->pl;
  int P = pl->P, me = pl->me;
  int64_t *hs = pl->next, *hr = pl->cur; /* the peers' offsets in the host staging */
  int64_t so = 0, ro = 0;
  for (int p = 0; p < P; p++) hs[p] = so, hr[p] = ro, so += pl->scnt[p], ro += pl->rcnt[p];
  for (int k = 1; k < P; k++) recv_peer(g, (me - k + P) % P, hr[(me - k + P) % P]);
  g->nr_mpi = g->nr;
  if (pl->self_peer) recv_peer(g, me, hr[me]);
  MPI_Comm comm = rmpi_comm();
  for (int i = 0; i < g->nr_mpi; i++) {
    const piece *r = &g->rcv[i];
    int rc = MPI_Irecv(r->mpi, (int)r->bytes, MPI_BYTE, r->peer, 0, comm, &g->rq[i]);
    if (rc != MPI_SUCCESS) return rmpi_error(rc, "#copy (posting a receive)");
  }
  parray_status s = PARRAY_OK;
  for (int k = 1; k < P && s == PARRAY_OK; k++)
    if ((s = send_peer(g, (me + k) % P, hs[(me + k) % P])) == PARRAY_OK) s = progress(g);
  if (s == PARRAY_OK && pl->self_peer) s = send_peer(g, me, hs[me]);
  if (s == PARRAY_OK && !pl->self_peer) s = rmpi_copy_self(g->d, pl, g->dm, 1);
  if (s == PARRAY_OK) s = exchange(g);
  return s;
}

parray_status rmpi_copy_staged(const copy_desc *d, char *dbase, const parray_mpi_memory *dm, char *sbase,
                               const parray_mpi_memory *sm, int64_t chunk) {
  stage g;
  memset(&g, 0, sizeof g);
  g.d = d, g.sm = sm, g.dm = dm;
  g.direct = sm && sm == dm && sm->mpi_direct;
  g.chunk = chunk < 1 ? 1 : chunk > ((int64_t)1 << 30) ? (int64_t)1 << 30 : chunk;
  parray_status s = rmpi_plan_count(d, &g.pl, sbase, dbase, sm != dm);
  if (s == PARRAY_OK) s = buffers(&g);
  if (s == PARRAY_OK) s = run(&g);
  /* the lanes are waited for even after an error: nothing may still write */
  parray_status f = sm ? sm->finish(sm->ctx) : PARRAY_OK;
  if (dm && dm != sm && f == PARRAY_OK) f = dm->finish(dm->ctx);
  if (s == PARRAY_OK) s = f;
  free(g.snd);
  free(g.rq);
  free(g.left);
  free(g.idx);
  rmpi_plan_free(&g.pl);
  return s;
}
