/* SPDX-License-Identifier: Apache-2.0 */
/* lower_print.h - the print pass: a record through the target's emitter into the output (lower_print.c). */
#ifndef PAC_LOWER_PRINT_H
#define PAC_LOWER_PRINT_H

#include "lower.h"

/* lower_print.c: the print pass: r's plan through the target's emitter, its
 * code in place of r->at */
void lw_print_record(lw *w, const lw_record *r);

#endif
