/* SPDX-License-Identifier: Apache-2.0 */
/* lower_copy.h - the planner of #copy (lower_copy.c). */
#ifndef PAC_LOWER_COPY_H
#define PAC_LOWER_COPY_H

#include "lower.h"

/* lower_copy.c */
void lw_copy(lw *w, item *it, lw_record *out);

#endif
