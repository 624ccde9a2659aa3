/* SPDX-License-Identifier: Apache-2.0 */
/* pacc_tmp.c - pacc's temporary folder. The translations and objects of one
 * command live in $TMPDIR/pacc-UID/KEY (TMPDIR unset or empty: /tmp):
 * pacc-UID belongs to the user (created with mode 0700; refused when another
 * user owns it or others may write in it), KEY is a hash of the working
 * folder and the files the command writes. The same build step gets the
 * same names each time, so the compiler commands pacc runs do not change
 * from one build to the next and a compiler cache (CC="ccache gcc") finds
 * its results; steps that write different files (make -j) use different
 * folders, and two commands that meet in one folder (they would write the
 * same files) take turns: each holds a lock file in it (flock). */
#define _DEFAULT_SOURCE 1
#include "pacc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* FNV-1a over n bytes, continuing from h */
static uint64_t hash_bytes(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
  return h;
}

/* 16 hex digits naming the command: its working folder and its outputs */
static const char *command_key(const strv *outputs) {
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
  uint64_t h = hash_bytes(0xcbf29ce484222325ULL, cwd, strlen(cwd) + 1);
  for (int i = 0; i < outputs->n; i++) h = hash_bytes(h, outputs->v[i], strlen(outputs->v[i]) + 1);
  char *k = own(malloc(17));
  snprintf(k, 17, "%016" PRIx64, h);
  return k;
}

/* $TMPDIR without trailing slashes, or /tmp */
static const char *tmp_root(void) {
  const char *e = getenv("TMPDIR");
  if (!e || !*e) return "/tmp";
  char *r = own(strdup(e));
  for (size_t n = strlen(r); n > 1 && r[n - 1] == '/'; n--) r[n - 1] = 0;
  return r;
}

/* The user's folder pacc-UID: made when missing, and only used when it is
 * a real folder of this user's that no one else may write in. */
static bool user_folder(const char *dir) {
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    fprintf(stderr, "pacc: error: cannot create the temporary folder '%s': %s (set TMPDIR to a folder you may write in)\n",
            dir, strerror(errno));
    return false;
  }
  struct stat s;
  if (lstat(dir, &s) != 0 || !S_ISDIR(s.st_mode) || s.st_uid != geteuid() || (s.st_mode & 022)) {
    fprintf(stderr, "pacc: error: '%s' is not a folder of this user's that only they may write in; remove it, or set "
                    "TMPDIR to another folder\n", dir);
    return false;
  }
  return true;
}

/* Make the command's folder and lock it: returns the lock's descriptor, or
 * -1 (errno set). A lock file unlinked while we waited for it (the other
 * run removed the folder) is not the folder's lock: start again. */
static int lock_folder(const char *dir) {
  const char *lock = cat(dir, "/lock");
  for (int tries = 0; tries < 1000; tries++) {
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return -1;
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
      if (errno == ENOENT) continue; /* removed between mkdir and open */
      return -1;
    }
    struct stat held, now;
    errno = 0;
    bool locked = flock(fd, LOCK_EX) == 0 && fstat(fd, &held) == 0;
    if (locked && stat(lock, &now) == 0 && held.st_dev == now.st_dev && held.st_ino == now.st_ino) return fd;
    int e = errno;
    close(fd);
    if (!locked && e != EINTR) return errno = e, -1;
  }
  errno = EAGAIN;
  return -1;
}

bool pacc_tmp_open(pacc *p, const strv *outputs, bool create) {
  char uid[32];
  snprintf(uid, sizeof uid, "/pacc-%lu", (unsigned long)geteuid());
  const char *top = cat(tmp_root(), uid);
  p->tmp = cat(cat(top, "/"), command_key(outputs));
  p->tmplock = -1;
  if (!create) return true;
  if (!user_folder(top)) return false;
  errno = 0;
  p->tmplock = lock_folder(p->tmp);
  if (p->tmplock < 0) {
    fprintf(stderr, "pacc: error: cannot create the temporary folder '%s': %s\n", p->tmp, strerror(errno));
    return false;
  }
  return true;
}

void pacc_tmp_close(pacc *p) {
  if (p->tmplock < 0) return;
  DIR *d = opendir(p->tmp);
  if (d) { /* what a run that was killed may have left, too */
    for (struct dirent *e; (e = readdir(d));)
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "lock"))
        unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
  }
  unlink(cat(p->tmp, "/lock"));
  rmdir(p->tmp);
  close(p->tmplock); /* releases the lock: a run waiting for it starts again */
  p->tmplock = -1;
}
