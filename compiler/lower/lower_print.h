/* SPDX-License-Identifier: Apache-2.0 */
/* lower_print.h - the print pass: the file's records, after the walk, through the target's emitter into the output (lower_print.c). */
#ifndef PAC_LOWER_PRINT_H
#define PAC_LOWER_PRINT_H

#include "lower.h"

/* lower_print.c: the print pass: the file's records (lw_put), in order,
 * through the target's emitter and the printer */
void lw_print_all(lw *w);

#endif
