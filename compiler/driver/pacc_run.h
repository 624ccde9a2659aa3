/* SPDX-License-Identifier: Apache-2.0 */
/* pacc_run.h - the commands pacc builds and runs (pacc_run.c): argument
 * vectors, strings freed at exit, and running a command with -v / -###,
 * its output captured or its error output relayed. */
#ifndef PACC_RUN_H
#define PACC_RUN_H

#include <stdbool.h>

/* A NULL-terminated vector of words (a command line). */
typedef struct strv {
  const char **v;
  int n, cap;
} strv;

void push(strv *a, const char *s);
void push_all(strv *a, const strv *b);
/* s (malloc'd) kept until own_free_all, at exit */
char *own(char *s);
void own_free_all(void);
/* a + b, owned */
char *cat(const char *a, const char *b);
/* the words of the command in environment variable env, else of def:
 * CC="ccache gcc" -> ccache, gcc */
void push_tool(strv *a, const char *env, const char *def);

/* How a command is shown: verbose (-v) prints it and runs it; dry (-###)
 * prints it quoted and runs only a command whose output is read. */
typedef struct run_show {
  bool verbose, dry;
} run_show;

/* Run a. With out, its standard output is read into *out (malloc'd) and its
 * standard error dropped: commands that inspect files run with -### too.
 * With from, its error output is relayed with each name from->v[2k]
 * replaced by from->v[2k+1]. Returns 0 on success, else 1. */
int run_cmd(run_show sh, const strv *a, char **out, const strv *from);

#endif
