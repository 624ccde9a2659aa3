/* SPDX-License-Identifier: Apache-2.0 */
/* pacc.h - what the parts of pacc share: one command's state (its inputs,
 * its options sorted by where they go, what it builds), the command line
 * read into it (pacc_args.c) and the temporary folder it builds in
 * (pacc_tmp.c); pacc.c runs the steps. */
#ifndef PACC_H
#define PACC_H

#include "needs.h"
#include "pacc_run.h"

#include <stdbool.h>

#ifndef PAC_VERSION
#define PAC_VERSION "0.1.0"
#endif

enum pacc_kind { K_PC, K_C, K_CU, K_OBJ };

typedef struct input {
  const char *path;
  enum pacc_kind kind;
  const char *base; /* the name its temporary files start with: unique among the sources */
  const char *gen;  /* the translation of a .pc file */
  const char *obj;  /* its object (or assembly with -S) */
  bool cuda, mpi;
  bool sm90; /* needs compute capability 9.0 (a tma #copy) */
  pac_needs needs; /* a translation's, as pac wrote it (--needs=FILE) */
} input;

/* Everything one pacc command holds. */
typedef struct pacc {
  const char *pac, *incdir, *libdir;
  const char *tmp; /* the temporary folder (pacc_tmp.c) */
  int tmplock;     /* its lock, held while pacc runs (-1: none) */
  strv pacopts;    /* to pac only */
  strv ppopts;     /* to pac's preprocessor and to the compilers: -I -D -U, -isystem DIR, -include FILE */
  strv ccopts;     /* to the compilers (translated for nvcc) */
  strv nvopts;     /* to nvcc only */
  strv ldopts;     /* to the linker */
  strv qdirs;      /* the folders of the .pc files: quote-include path */
  strv mt;         /* -MT/-MQ and their values */
  strv mpiinc;     /* -I of MPI's include folders, for pac's preprocessor (asked once) */
  bool mpiinc_asked;
  input *in;
  int nin;
  const char *out, *mf;
  char mode;    /* 'l' link, 'c' compile only, 'S' assembly only, 'E' translate only, 'M' rules only */
  char md;      /* 0, 'D' for -MD or -M, 'M' for -MMD or -MM */
  char keep;    /* keep the translations: 0 no, 'o' beside the output, 'c' in the working folder */
  bool mp, verbose, dry, werror, nowarn, arch_given;
  bool shared;  /* -shared: link a shared library, compile its sources position-independent */
  bool cuda, mpi; /* what the program needs */
  bool sm90;      /* a translation uses the tensor memory accelerator (pac: sm=90) */
} pacc;

/* s ends with suf */
bool pacc_ends(const char *s, const char *suf);

/* The command line (argv[1..argc-1]) into p: @FILE response files
 * expanded first (into *args, whose words p then points into). Returns 0 to
 * go on, 1 to stop with status 0 (--help, --version, -dumpversion), 2 for a
 * wrong command line, 3 for a response file that cannot be read (reported). */
int pacc_parse_args(pacc *p, int argc, char **argv, strv *args);

/* The temporary folder of a command writing `outputs`: $TMPDIR/pacc-UID/KEY
 * (/tmp without TMPDIR), KEY a hash of the working folder and the outputs,
 * so that the commands pacc runs are the same each time a build step runs
 * (a compiler cache such as ccache sees the same names). create: make it
 * (private) and hold its lock until pacc_tmp_close, so that two commands
 * writing the same files take turns; else only name it (-###). False after
 * reporting. */
bool pacc_tmp_open(pacc *p, const strv *outputs, bool create);
/* Remove what is left in the folder, the folder, and release it. */
void pacc_tmp_close(pacc *p);

#endif
