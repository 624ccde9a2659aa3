/* outfile.c - writing the translation to its output file through a
 * temporary file renamed into place, so that a failed write leaves nothing
 * half-written. */
#include "outfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int out_write_file(const char *path, const char *input, out_writer write, const void *ctx, char *err,
                   size_t errlen) {
  (void)input;
  if (!strcmp(path, "-")) {
    write(stdout, ctx);
    return fflush(stdout) || ferror(stdout) ? -1 : 0;
  }
  size_t pl = strlen(path);
  char *tmp = malloc(pl + 16);
  snprintf(tmp, pl + 16, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errlen, "cannot create '%s': %s", tmp, strerror(errno));
    free(tmp);
    return -1;
  }
  mode_t um = umask(0);
  umask(um);
  fchmod(fd, 0666 & ~um);
  FILE *f = fdopen(fd, "wb");
  bool ok = f != NULL;
  if (ok) {
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    write(f, ctx);
    ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
  } else {
    close(fd);
  }
  if (!ok || rename(tmp, path) != 0) {
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    unlink(tmp);
    free(tmp);
    return -1;
  }
  free(tmp);
  return 0;
}
