/* SPDX-License-Identifier: Apache-2.0 */
/* layout_svg.h - `pac --layout TYPE --svg FILE`: a picture of a type's
 * layout as SVG: the grid of offsets (or of thread indices), cells coloured
 * by tile, by owning process or by CUDA block, types of three or more
 * top-level dimensions as a row of 2-D slices, large ones summarised
 * (docs/cli.md, "Pictures of layouts"). */
#ifndef PAC_LAYOUT_SVG_H
#define PAC_LAYOUT_SVG_H

#include <stddef.h>

#include "types.h"

/* Draw node n of type ty into out. Every offset, process and thread index
 * comes from the layout algebra (layout.c). Returns 0, or -1 with a message
 * in err (a size or an offset that is not a compile-time constant). */
int layout_svg(tyctx *t, ptype *ty, dnode *n, sbuf *out, char *err, size_t errlen);

#endif
