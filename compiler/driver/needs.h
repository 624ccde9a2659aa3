/* SPDX-License-Identifier: Apache-2.0 */
/* needs.h - what a translated program needs from the build, as pac tells
 * pacc: the target language, the runtime's threads, MPI, a GPU architecture.
 * A struct for callers of pac_translate (translate.h), and one line of text,
 * a versioned record (docs/cli.md, "What a translation needs"):
 *     parray-needs 1 target=cuda pthd mpi sm=90
 * which pac writes to a file with --needs=FILE and pacc keeps in the section
 * .parray.needs of every object it compiles from a .pc file, so that objects
 * linked later still say what they need. Readers ignore words they do not
 * know; an older pacc's "pacc-needs: pthd cuda mpi" reads as version 0. */
#ifndef PAC_NEEDS_H
#define PAC_NEEDS_H

#include <stdbool.h>
#include <stddef.h>

#define PAC_NEEDS_VERSION 1
#define PAC_NEEDS_MAGIC "parray-needs"

typedef struct pac_needs {
  bool cuda; /* the translation is CUDA (else C): compile and link with nvcc */
  bool pthd; /* uses the runtime's threads */
  bool mpi;  /* uses MPI: compile and link with mpicc, -lparray_mpi */
  int sm;    /* the least GPU compute capability it needs, as 90 (0: any) */
} pac_needs;

/* The record of n, without a newline, in buf (size bytes); false when it
 * does not fit. */
bool pac_needs_format(const pac_needs *n, char *buf, size_t size);
/* Read the record that starts at line (up to a newline or its end) into
 * *n, adding to what *n already says (so that several records add up).
 * Returns its version (0 for an older pacc's "pacc-needs:" line), or -1 when
 * line holds no record. */
int pac_needs_parse(const char *line, pac_needs *n);

#endif
