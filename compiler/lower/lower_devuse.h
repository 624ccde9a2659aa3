/* SPDX-License-Identifier: Apache-2.0 */
/* lower_devuse.h - the check of host code that reads device memory (lower_devuse.c). */
#ifndef PAC_LOWER_DEVUSE_H
#define PAC_LOWER_DEVUSE_H

#include "lower.h"

/* lower_devuse.c */
/* a statement (first through last; NULL: up to its ';' or block) of host
 * code that indexes or dereferences a variable pointing to dmem memory is
 * reported at the use */
void lw_check_device_uses(lw *w, item *first, item *last);
/* in host code, the identifier `it` is a variable pointing to the device
 * memory of its last #create, of a dmem type (not distributed), and is not
 * renamed by an #insert */
bool lw_names_dmem(lw *w, const item *it);

#endif
