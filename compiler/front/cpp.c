/* SPDX-License-Identifier: Apache-2.0 */
/* cpp.c - running the system preprocessor: the command's words, the
 * arguments and a temporary file holding the text; its standard output is
 * collected (the conditional groups of ppcond.c and the header reader of
 * sema/headers.c both use it). */
#define _DEFAULT_SOURCE 1 /* mkstemps */
#include "cpp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char *cpp_temp_name(const char *stem, const char *suffix) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  size_t n = strlen(dir) + strlen(stem) + strlen(suffix) + 16;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/%s-XXXXXX%s", dir, stem, suffix);
  return s;
}

/* Run cpp_cmd (its words split at blanks) with args over text; its standard
 * output goes to out. Returns 0, or -1 with the reason in err. */
int cpp_run(const char *cpp_cmd, const char *const *args, int nargs, const char *text, sbuf *out, char *err,
            size_t errlen) {
  char *tmpl = cpp_temp_name("pac-cpp", ".c");
  int fd = tmpl ? mkstemps(tmpl, 2) : -1;
  if (fd < 0) {
    snprintf(err, errlen, "cannot create a temporary file in %s: %s", tmpl ? tmpl : "TMPDIR", strerror(errno));
    free(tmpl);
    return -1;
  }
  size_t n = strlen(text);
  if (write(fd, text, n) != (ssize_t)n) {
    close(fd);
    unlink(tmpl);
    free(tmpl);
    snprintf(err, errlen, "cannot write a temporary file");
    return -1;
  }
  close(fd);
  /* argv: the words of cpp_cmd, the args, the file */
  char *cmd = strdup(cpp_cmd);
  const char **argv = malloc(sizeof *argv * (size_t)(nargs + 404));
  int ac = 0;
  for (char *tok = strtok(cmd, " \t"); tok && ac < 400; tok = strtok(NULL, " \t")) argv[ac++] = tok;
  bool have_cmd = ac > 0;
  for (int i = 0; i < nargs; i++) argv[ac++] = args[i];
  argv[ac++] = tmpl;
  argv[ac] = NULL;
  int pfd[2];
  if (!have_cmd || pipe(pfd) < 0) {
    free(cmd);
    free(argv);
    unlink(tmpl);
    free(tmpl);
    snprintf(err, errlen, "cannot run the preprocessor");
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pfd[1], 1);
    close(pfd[0]);
    close(pfd[1]);
    int nul = open("/dev/null", O_WRONLY);
    if (nul >= 0) dup2(nul, 2);
    execvp(argv[0], (char *const *)argv);
    _exit(127);
  }
  close(pfd[1]);
  char buf[65536];
  ssize_t got;
  while (pid > 0 && (got = read(pfd[0], buf, sizeof buf)) > 0) sb_write(out, buf, (size_t)got);
  close(pfd[0]);
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  unlink(tmpl);
  free(tmpl);
  free(cmd);
  free(argv);
  if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    snprintf(err, errlen, "'%s' failed (exit status %d)", cpp_cmd, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
  }
  return 0;
}
