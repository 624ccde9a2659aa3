/* SPDX-License-Identifier: Apache-2.0 */
/* lower_print.h - the print pass: a record through the target's emitter into the output (lower_print.c). */
#ifndef PAC_LOWER_PRINT_H
#define PAC_LOWER_PRINT_H

#include "lower.h"

/* lower_print.c: the print pass: r through the target's emitter and the
 * printer (lw_put's destination, set by lw_file); for a record that closes
 * a body translated apart, the bytes of the body's code */
size_t lw_print_record(lw *w, const lw_record *r);

#endif
