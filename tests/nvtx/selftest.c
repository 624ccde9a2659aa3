/* SPDX-License-Identifier: Apache-2.0 */
/* selftest.c - the test's NVTX tool (inject.c) and the runtime's ranges
 * (runtime/cuda/nvtx.c) without a GPU: a plain C program that calls NVTX
 * directly (a range of the default domain) and, inside it, the runtime's
 * parray_range_push/pop as generated code calls them, one site nested in
 * another, twice. run.sh compares the tool's log with selftest.expected:
 * the domain "parray" created once, each site's name registered once, the
 * pushes and pops in order. */
#include "parray/cuda.h"

#include <nvtx3/nvToolsExt.h>
#include <stdio.h>

int main(void) {
  static parray_range outer = {"selftest.pc:7 #detour T", 0, 0, 0};
  static parray_range inner = {"selftest.pc:8 #copy A(a) to B(b)", 0, 0, 0};
  nvtxRangePushA("plain C");
  for (int k = 0; k < 2; k++) {
    parray_range_push(&outer);
    parray_range_push(&inner);
    parray_range_pop(&inner);
    parray_range_pop(&outer);
  }
  nvtxRangePop();
  printf("ready %d %d\n", outer.ready, inner.ready);
  return 0;
}
