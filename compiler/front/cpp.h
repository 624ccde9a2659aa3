/* SPDX-License-Identifier: Apache-2.0 */
/* cpp.h - running the system preprocessor over a text (cpp.c). */
#ifndef PAC_CPP_H
#define PAC_CPP_H

#include "util.h"

/* Run cpp_cmd (e.g. "cc -E", its words split at blanks) with args over text,
 * its output appended to out; 0 on success, -1 with the reason in err. */
int cpp_run(const char *cpp_cmd, const char *const *args, int nargs, const char *text, sbuf *out, char *err,
            size_t errlen);

/* A template for mkstemps (malloc'd): $TMPDIR/STEM-XXXXXXSUFFIX, /tmp when
 * TMPDIR is unset or empty. */
char *cpp_temp_name(const char *stem, const char *suffix);

#endif
