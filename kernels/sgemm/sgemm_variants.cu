/* SPDX-License-Identifier: Apache-2.0 */
/* sgemm_variants.cu - extra SGEMM tile configurations for tuning, built only
 * with -DPARRAY_SGEMM_VARIANTS=ON (the benchmark script's build); each has
 * the row-major NN kernel only. parray_sgemm_config(5 + v, ...) runs variant v (slot 4 is the Hopper kernel). */
#include "sgemm_kernel.cuh"

namespace parray_sgemm_detail {

bool variant_entry(int v, ConfigEntry *e) {
  switch (v) {
  case 0: *e = make_entry<Cfg<2, 2, 4, 2, 8, 2, 8, 4>, true>("128x128x8 t256 r8x8 async4"); return true;
  case 1: *e = make_entry<Cfg<2, 2, 4, 2, 16, 2, 16, 2>, true>("128x128x16 t256 r8x8 async2"); return true;
  case 2: *e = make_entry<Cfg<4, 2, 4, 2, 8, 1, 8, 3>, true>("256x128x8 t256 r16x8 async3"); return true;
  case 3: *e = make_entry<Cfg<2, 4, 4, 2, 8, 1, 8, 3>, true>("128x256x8 t256 r8x16 async3"); return true;
  case 4: *e = make_entry<Cfg<2, 4, 4, 1, 8, 2, 8, 4>, true>("128x128x8 t128 r8x16 async4"); return true;
  case 5: *e = make_entry<Cfg<2, 2, 4, 1, 16, 3, 16, 3>, true>("128x64x16 t128 r8x8 async3"); return true;
  case 6: *e = make_entry<Cfg<2, 2, 4, 2, 8, 2>, false>("128x128x8 t256 r8x8"); return true;
  case 7: *e = make_entry<Cfg<2, 4, 4, 1, 8, 2>, false>("128x128x8 t128 r8x16"); return true;
  default: return false;
  }
}

} // namespace parray_sgemm_detail
