/* emit.h - the target emitters used by the lowering: CUDA kernels, launches,
 * thread indices and device memory (emit_cuda.c). */
#ifndef PAC_EMIT_H
#define PAC_EMIT_H

#include "lower.h"

void emit_cuda_detour(lw *w, item *it, region *r);
void emit_cuda_sync(lw *w, item *it, region *r, const char *path);
ex *emit_cuda_tid(lw *w, region *r, dnode *p);
/* validate a cuda thread array type (two top-level dimensions, hardware limits) */
bool emit_cuda_check_type(lw *w, ptype *T, loc at);

/* from lower_detour.c */
char *lower_walk_body(lw *w, item *it, region *r, cd_stmt *params);
const char *lower_capture_init(lw *w, region *r, capture *c);
char *lower_field_decl(lw *w, sym *s, cap_mode mode, const char *field);
const char *lower_fresh_name(lw *w, const char *what, const char *type, loc at);

#endif
