/* SPDX-License-Identifier: Apache-2.0 */
/* ppcond.h - C's conditional compilation, decided before scanning: which
 * groups of #if/#ifdef/#ifndef/#elif/#else/#endif are live, and which
 * #include "x.pc" lines are reached. Directives and $...$ are translated in
 * live groups only; the text of a dead group passes through verbatim and
 * unscanned (docs/language.md, "Conditional compilation").
 *
 * The groups are decided by the system preprocessor, as the C compiler will
 * decide them: a sketch of the file's preprocessor lines, with a marker after
 * each condition, goes through it, and the markers that come out are the
 * live groups. Without a preprocessor (pac --no-cpp, or when it fails) the
 * conditions are evaluated by ppeval.c with the macros the file defines, in
 * order, and those of -D/-U. */
#ifndef PAC_PPCOND_H
#define PAC_PPCOND_H

#include "diag.h"
#include "util.h"

/* Loads the .pc file an #include line names (seg: the including segment,
 * at: the offset of its '#'): returns the segment index, the same one for a
 * file already loaded, or -1 after reporting why not. */
typedef int (*ppc_loader)(void *env, int seg, uint32_t at, const char *name, size_t len, bool angle);

typedef struct ppc_options {
  const char *cpp;          /* preprocessor command ("cc -E"), or NULL for none */
  const char *const *args;  /* its -I/-D/-U/-iquote arguments */
  int nargs;
  const char *const *defs;  /* -D/-U options in order, for the evaluation without a preprocessor */
  int ndefs;
  ppc_loader load;
  void *env;
} ppc_options;

/* An #include "x.pc" line that is reached: at is the offset of its '#';
 * first when the file is walked there (each file once, where first reached). */
typedef struct ppc_include {
  uint32_t at;
  int seg;
  bool first;
} ppc_include;

typedef struct ppc_result {
  VEC(loc) dead;             /* bodies of dead groups, in order, not nested */
  VEC(ppc_include) includes; /* in order of the text */
  bool used_cpp;             /* the preprocessor decided (else ppeval) */
} ppc_result;

/* Decide the groups of src (its first segment and every .pc file reached,
 * which are loaded through o->load as they are reached). Errors (unbalanced
 * conditionals, a condition that cannot be evaluated) go to dg; returns 0 on
 * success. */
int ppc_run(srcfile *src, diag *dg, const ppc_options *o, ppc_result *r);
void ppc_result_free(ppc_result *r);

/* "#include "x.pc"" or "#include <x.pc>" in s[0, n): the name, without its
 * delimiters */
bool ppc_pc_include_name(const char *s, size_t n, const char **name, size_t *nl, bool *angle);

#endif
