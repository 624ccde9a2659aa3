/* SPDX-License-Identifier: Apache-2.0 */
/* diag.h - GCC-style diagnostics:
 *   file.pc:LINE:COL: error: message
 *    LINE | source line
 *         |     ^~~~~
 * Locations are byte ranges of the source (source.h); line and column are
 * computed only when printing. */
#ifndef PAC_DIAG_H
#define PAC_DIAG_H

#include "source.h"

#include <stdbool.h>
#include <stdio.h>

enum { DIAG_MAX_CONTEXT = 8 };

typedef struct diag {
  srcfile *src;
  FILE *out;
  int errors, warnings;
  int max_errors; /* stop printing after this many (0: unlimited) */
  bool no_warnings; /* -w: warnings are neither printed nor counted */
  /* "in instance of X inserted here" notes printed after each message */
  struct {
    loc at;
    const char *what;
  } ctx[DIAG_MAX_CONTEXT];
  int nctx;
} diag;

void diag_init(diag *d, srcfile *src, FILE *out);
void diag_error(diag *d, loc l, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(diag *d, loc l, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_note(diag *d, loc l, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An error with no source position (bad command line, I/O). */
void diag_plain_error(diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_plain_warning(diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_push_context(diag *d, loc at, const char *what);
void diag_pop_context(diag *d);

#endif
