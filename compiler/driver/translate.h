/* SPDX-License-Identifier: Apache-2.0 */
/* translate.h - the translator as a library call: one .pc file (read from
 * disk or given in memory) in, its C or CUDA translation (or --layout
 * report) out, diagnostics to a given stream. Used by pac's command line
 * and by the fuzz target; everything it allocates is freed before it
 * returns, so it can be called again and again in one process. */
#ifndef PAC_TRANSLATE_H
#define PAC_TRANSLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lower.h"
#include "needs.h"

/* pac's options */
typedef struct pac_options {
  const char *input;
  const char *output;   /* NULL: input with .c or .cu; "-": stdout */
  int target;
  bool lines;
  bool no_nvtx;         /* --no-nvtx: no profiler ranges around directives in CUDA programs */
  const char *layout;   /* --layout TYPE */
  const char *svg;      /* --svg FILE: the layout's picture instead of its text report */
  const char *cpp;      /* preprocessor command */
  bool no_cpp;
  const char **cpp_args;
  int ncpp_args;
  const char **typedefs;
  int ntypedefs;
  /* limits of #insert expansion (0: the defaults, PAC_MAX_INSERT_*) */
  long long max_insert_depth, max_insert_bytes;
} pac_options;

/* Dependency output (-M, -MM, -MD, -MMD, -MF, -MT, -MQ, -MP): a make rule
 * naming the main file, every .pc file read and the headers the C
 * preprocessor read. */
typedef struct pac_deps {
  bool only;          /* -M / -MM: print the rule, translate nothing */
  bool system;        /* list system headers too (-M, -MD) */
  bool phony;         /* -MP: a phony target for each prerequisite */
  const char *file;   /* -MF: where the rule goes (NULL: stdout with -M, else OUT.d) */
  const char *target; /* -MT / -MQ, already quoted; NULL: the output file */
} pac_deps;

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
  const pac_deps *deps; /* write a dependency rule too, or NULL */
  /* every record the lowering plans is shown to observe before it is
   * printed (tests of plans: tests/compiler/test_plans.c), or NULL */
  void (*observe)(void *env, const struct lw_record *r);
  void *observe_env;
  bool werror;
  /* filled with what the translation needs (target, threads, MPI, GPU
   * architecture) when it is written; NULL: not asked (needs.h) */
  pac_needs *needs;
  bool no_warnings;     /* -w: no warnings at all */          /* warnings are errors: nothing is written when there are any */
} pac_io;

/* Translate opt->input. Returns 0 when the translation was written, 1 when
 * there were errors (reported on io->err; no output file is left). */
int pac_translate(const pac_options *opt, const pac_io *io);

#endif
