/* SPDX-License-Identifier: Apache-2.0 */
/* outfile.c - writing the translation to its output file. A regular file
 * (or one that does not exist yet) is written to a temporary file beside it
 * that is renamed into place, so that a failed write leaves nothing
 * half-written; stdout ("-"), devices and FIFOs are written straight (a
 * rename would replace /dev/null by a regular file). The input file is
 * never the output, however the two are spelled. A file replaced keeps its
 * mode; one with other hard links is written in place once the text is
 * complete; a symbolic link is followed (a dangling one creates the file
 * it names). SIGINT, SIGTERM or SIGHUP during the write remove the
 * temporary file before they end pac. */
#define _DEFAULT_SOURCE 1 /* realpath */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Write the output to f and close it; false when anything failed (errno
 * tells why). */
static bool write_and_close(FILE *f, out_writer write, const void *ctx) {
  write(f, ctx);
  bool ok = fflush(f) == 0 && !ferror(f);
  int saved = errno;
  if (fclose(f) != 0) ok = false;
  else if (!ok) errno = saved ? saved : EIO;
  return ok;
}

/* A device, FIFO or socket: open it as it is and write. create: a dangling
 * symbolic link, whose file is created through it (as open does) and
 * removed again when the write fails. */
static int write_straight(const char *path, bool create, out_writer write, const void *ctx, char *err,
                          size_t errlen) {
  int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (create ? O_CREAT : 0), 0666);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
  if (!f) {
    snprintf(err, errlen, "cannot %s '%s': %s", create ? "write" : "open", path, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  if (!write_and_close(f, write, ctx)) {
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    char real[PATH_MAX];
    if (create && realpath(path, real)) unlink(real);
    return -1;
  }
  return 0;
}

/* The temporary file being written, removed by a signal that ends pac
 * (SIGINT, SIGTERM, SIGHUP) before it is re-raised: the one state of this
 * file, since a signal handler has no other way to find it. */
static char pending[PATH_MAX];
static volatile sig_atomic_t have_pending;
static const int end_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void remove_pending(int sig) {
  if (have_pending) unlink(pending);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* on: the handlers for tmp (saved: the previous ones); off: restored */
static void guard(const char *tmp, bool on, struct sigaction *saved) {
  for (size_t i = 0; i < sizeof end_signals / sizeof end_signals[0]; i++) {
    if (on) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = remove_pending;
      sigemptyset(&sa.sa_mask);
      if (sigaction(end_signals[i], NULL, &saved[i]) == 0 && saved[i].sa_handler != SIG_IGN)
        sigaction(end_signals[i], &sa, NULL);
    } else {
      sigaction(end_signals[i], &saved[i], NULL);
    }
  }
  if (on) snprintf(pending, sizeof pending, "%s", tmp);
  have_pending = on && strlen(tmp) < sizeof pending;
}

/* A file with other hard links: the new text, complete in tmp, copied into
 * it in place (so every name sees it); false with errno set. */
static bool copy_into(const char *tmp, const char *path) {
  int in = open(tmp, O_RDONLY | O_CLOEXEC), out = in < 0 ? -1 : open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  bool ok = in >= 0 && out >= 0;
  char buf[1 << 16];
  for (ssize_t n; ok && (n = read(in, buf, sizeof buf)) != 0;) {
    ok = n > 0;
    for (ssize_t w = 0, k; ok && w < n; w += k) ok = (k = write(out, buf + w, (size_t)(n - w))) > 0;
  }
  int saved = errno;
  if (in >= 0) close(in);
  if (out >= 0 && close(out) != 0 && ok) saved = errno, ok = false;
  errno = saved;
  return ok;
}

/* A regular file: write a temporary file beside it and rename it into
 * place, with the mode of the file it replaces; on any error the temporary
 * file is removed and path untouched. A file with other hard links gets
 * the text copied into it once the temporary file is complete, so that the
 * links stay. */
/* Write the text into the open temporary file fd (named tmp) and put it in
 * place of path (old: path's status, when exists). */
static bool fill_and_place(int fd, const char *tmp, const char *path, const struct stat *old, bool exists,
                           out_writer write, const void *ctx) {
  mode_t um = umask(0);
  umask(um);
  /* the mode of the file replaced, else the one a new file would get;
   * where modes cannot be set (some file systems), the temporary file's
   * 0600 stays */
  if (fchmod(fd, exists ? old->st_mode & 07777 : 0666 & ~um) != 0) errno = 0;
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    int saved = errno;
    close(fd);
    errno = saved;
    return false;
  }
  setvbuf(f, NULL, _IOFBF, 1 << 20);
  if (!write_and_close(f, write, ctx)) return false;
  if (exists && old->st_nlink > 1) return copy_into(tmp, path);
  return rename(tmp, path) == 0;
}

static int write_atomically(const char *path, out_writer write, const void *ctx, char *err, size_t errlen) {
  size_t pl = strlen(path);
  char *tmp = malloc(pl + 16);
  if (!tmp) {
    snprintf(err, errlen, "cannot write '%s': out of memory", path);
    return -1;
  }
  snprintf(tmp, pl + 16, "%s.tmpXXXXXX", path);
  struct stat old;
  bool exists = stat(path, &old) == 0;
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    free(tmp);
    return -1;
  }
  struct sigaction saved[3];
  guard(tmp, true, saved);
  bool ok = fill_and_place(fd, tmp, path, &old, exists, write, ctx);
  int e = errno;
  if (!ok || (exists && old.st_nlink > 1)) unlink(tmp); /* (renamed into place when ok) */
  guard(tmp, false, saved);
  if (!ok) snprintf(err, errlen, "cannot write '%s': %s", path, strerror(e));
  free(tmp);
  return ok ? 0 : -1;
}

int out_write_file(const char *path, const char *input, out_writer write, const void *ctx, char *err,
                   size_t errlen) {
  if (!strcmp(path, "-")) {
    write(stdout, ctx);
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    snprintf(err, errlen, "cannot write to standard output: %s", strerror(errno));
    return -1;
  }
  struct stat os, is, ls;
  if (stat(path, &os) != 0) {
    /* a symbolic link to nothing yet: create what it names, as open would */
    if (lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode)) return write_straight(path, true, write, ctx, err, errlen);
    return write_atomically(path, write, ctx, err, errlen); /* a new file */
  }
  if (input && stat(input, &is) == 0 && is.st_dev == os.st_dev && is.st_ino == os.st_ino) {
    snprintf(err, errlen, "output file '%s' is the input file", path);
    return -1;
  }
  if (S_ISDIR(os.st_mode)) {
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(EISDIR));
    return -1;
  }
  if (!S_ISREG(os.st_mode)) return write_straight(path, false, write, ctx, err, errlen);
  /* a symbolic link to a regular file: replace the file, keep the link */
  char real[PATH_MAX];
  if (lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode) && realpath(path, real))
    return write_atomically(real, write, ctx, err, errlen);
  return write_atomically(path, write, ctx, err, errlen);
}
