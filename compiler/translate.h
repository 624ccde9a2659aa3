/* translate.h - the translator as a library call: one .pc file (read from
 * disk or given in memory) in, its C or CUDA translation (or --layout
 * report) out, diagnostics to a given stream. Used by pac's command line
 * and by the fuzz target; everything it allocates is freed before it
 * returns, so it can be called again and again in one process. */
#ifndef PAC_TRANSLATE_H
#define PAC_TRANSLATE_H

#include <stddef.h>
#include <stdio.h>

#include "lower.h"

typedef struct pac_io {
  /* The text of opt->input, or NULL to read the file opt->input. The name
   * still appears in messages and #line markers and decides where
   * #include "x.pc" looks first. */
  const char *text;
  size_t len;
  /* Where the translation (or the --layout report) goes: NULL writes it to
   * opt->output (or the default name beside the input; "-" is stdout). */
  FILE *out;
  FILE *err;           /* diagnostics; NULL: stderr */
  const char *selfinc; /* pac's own include folder (shipped .pc files), or NULL */
} pac_io;

/* Translate opt->input. Returns 0 when the translation was written, 1 when
 * there were errors (reported on io->err; no output file is left). */
int pac_translate(const pac_options *opt, const pac_io *io);

#endif
