/* SPDX-License-Identifier: Apache-2.0 */
/* pacc_run.c - the commands pacc builds and runs: argument vectors (strv),
 * the strings pacc allocates (freed at exit), the tools named by the
 * environment (CC, NVCC, MPICC, with arguments), and running a command:
 * printed with -v or -###, its output read, or its error output relayed with
 * the temporary translations' names replaced by the .pc files'. */
#define _DEFAULT_SOURCE 1
#include "pacc_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void push(strv *a, const char *s) {
  if (a->n + 2 > a->cap) {
    a->cap = a->cap ? a->cap * 2 : 32;
    a->v = realloc(a->v, sizeof *a->v * (size_t)a->cap);
  }
  a->v[a->n++] = s;
  a->v[a->n] = NULL;
}

void push_all(strv *a, const strv *b) {
  for (int i = 0; i < b->n; i++) push(a, b->v[i]);
}

/* every string pacc allocates, freed at exit */
static strv owned;
char *own(char *s) {
  push(&owned, s);
  return s;
}

char *cat(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 1;
  char *s = malloc(n);
  snprintf(s, n, "%s%s", a, b);
  return own(s);
}

void own_free_all(void) {
  for (int i = 0; i < owned.n; i++) free((char *)owned.v[i]);
  free(owned.v);
  owned = (strv){0};
}

/* A command's words: "ccache gcc" -> ccache, gcc. */
static void push_words(strv *a, const char *cmd) {
  char *s = own(strdup(cmd));
  for (char *t = strtok(s, " \t\n"); t; t = strtok(NULL, " \t\n")) push(a, t);
}

/* The command in environment variable `env` (words), else `def`. */
void push_tool(strv *a, const char *env, const char *def) {
  const char *v = getenv(env);
  push_words(a, v && *v ? v : def);
}

static void print_cmd(const strv *a, bool quote) {
  for (int i = 0; i < a->n; i++) fprintf(stderr, quote ? "%s\"%s\"" : "%s%s", i ? " " : "", a->v[i]);
  fputc('\n', stderr);
}

/* Copy the command's error output from fd to stderr, each name in
 * subst->v[2k] replaced by subst->v[2k+1]: the compilers and the linker name
 * the translation's temporary files in a few messages ("1 error detected
 * in the compilation of ...", "/tmp/pacc-0/.../x.o: in function"), the user
 * knows only the .pc file. */
static void relay_stderr(int fd, const strv *subst) {
  FILE *f = fdopen(fd, "r");
  if (!f) return;
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) >= 0) {
    for (const char *s = line; *s;) {
      const char *first = NULL;
      int which = 0;
      for (int k = 0; k + 1 < subst->n; k += 2) {
        const char *hit = strstr(s, subst->v[k]);
        if (hit && (!first || hit < first)) first = hit, which = k;
      }
      if (!first) {
        fputs(s, stderr);
        break;
      }
      fprintf(stderr, "%.*s%s", (int)(first - s), s, subst->v[which + 1]);
      s = first + strlen(subst->v[which]);
    }
  }
  free(line);
  fclose(f);
}

static int wait_for(pid_t pid, const char *name) {
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return 1;
  if (WIFEXITED(st)) return WEXITSTATUS(st) ? 1 : 0;
  fprintf(stderr, "pacc: error: '%s' was killed by signal %d\n", name, WTERMSIG(st));
  return 1;
}

/* Read all of fd into a malloc'd string. */
static char *read_all(int fd) {
  size_t got = 0, cap = 65536;
  char *buf = malloc(cap);
  for (ssize_t r; (r = read(fd, buf + got, cap - 1 - got)) > 0 || (r < 0 && errno == EINTR);) {
    if (r > 0) got += (size_t)r;
    if (cap - 1 - got < 4096) buf = realloc(buf, cap *= 2);
  }
  buf[got] = 0;
  close(fd);
  return buf;
}

int run_cmd(run_show sh, const strv *a, char **out, const strv *from) {
  if (sh.verbose || sh.dry) print_cmd(a, sh.dry);
  if (sh.dry && !out) return 0;
  int fd[2] = {-1, -1};
  if ((out || from) && pipe(fd) < 0) return 1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "pacc: error: cannot start '%s': %s\n", a->v[0], strerror(errno));
    return 1;
  }
  if (pid == 0) {
    if (out) {
      dup2(fd[1], 1), close(fd[0]), close(fd[1]);
      int nul = open("/dev/null", O_WRONLY);
      if (nul >= 0) dup2(nul, 2), close(nul);
    }
    else if (from) dup2(fd[1], 2), close(fd[0]), close(fd[1]);
    execvp(a->v[0], (char *const *)a->v);
    fprintf(stderr, "pacc: error: cannot run '%s': %s\n", a->v[0], strerror(errno));
    _exit(127);
  }
  if (out || from) close(fd[1]);
  if (out) *out = read_all(fd[0]);
  else if (from) relay_stderr(fd[0], from);
  return wait_for(pid, a->v[0]);
}
