/* local_sum.h - a plain C header next to include_local.pc (in its lib/
 * folder), found by `#include "lib/local_sum.h"` wherever pacc is run from. */
#define LOCAL_N 6
static inline int local_weight(int i) { return 3 * i + 1; }
