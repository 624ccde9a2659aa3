/* SPDX-License-Identifier: Apache-2.0 */
/* lower_detour.h - the planner of #detour and #sync (lower_detour.c). */
#ifndef PAC_LOWER_DETOUR_H
#define PAC_LOWER_DETOUR_H

#include "lower.h"

/* lower_detour.c */
void lw_detour(lw *w, item *it, lw_record *out);
void lw_sync(lw *w, item *it, lw_record *out);

#endif
