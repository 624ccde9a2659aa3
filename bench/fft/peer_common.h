/* SPDX-License-Identifier: Apache-2.0 */
/* peer_common.h - what the FFT peers of bench/fft/run.sh share: the random
 * input (in [-0.5, 0.5), the same xorshift as examples/fft/fft.pc, a
 * different stream per seed), the round trip's error sums, and the size as
 * the result lines name it. Included by cufft_peer.cu, cufftxt_peer.cu and
 * cufftmp_peer.cu. */
#ifndef PEER_COMMON_H
#define PEER_COMMON_H
#include <cufft.h>
#include <stdio.h>
#include <vector>

static void peer_fill(std::vector<cufftComplex> &in, unsigned long long seed) {
  unsigned long long x = seed;
  for (size_t i = 0; i < in.size(); i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    in[i].x = (float)((double)(x >> 11) / 9007199254740992.0 - 0.5);
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    in[i].y = (float)((double)(x >> 11) / 9007199254740992.0 - 0.5);
  }
}

/* the squared distance of out / n from in, and the squared norm of in */
static void peer_roundtrip_sums(const std::vector<cufftComplex> &in, const std::vector<cufftComplex> &out, double n,
                                double *num, double *den) {
  *num = *den = 0;
  for (size_t i = 0; i < in.size(); i++) {
    double dr = out[i].x / n - in[i].x, di = out[i].y / n - in[i].y;
    *num += dr * dr + di * di, *den += (double)in[i].x * in[i].x + (double)in[i].y * in[i].y;
  }
}

/* "2-D N0xN1" or "3-D N0xN1xN2" */
static void peer_dims(char *b, size_t size, int n0, int n1, int n2) {
  if (n2 > 1) snprintf(b, size, "3-D %dx%dx%d", n0, n1, n2);
  else snprintf(b, size, "2-D %dx%d", n0, n1);
}
#endif
