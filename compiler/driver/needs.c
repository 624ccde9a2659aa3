/* SPDX-License-Identifier: Apache-2.0 */
/* needs.c - the record of what a translation needs (needs.h): written by pac
 * (--needs=FILE) and by pacc into objects, read by pacc. */
#include "needs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool pac_needs_format(const pac_needs *n, char *buf, size_t size) {
  char sm[24] = "";
  if (n->sm > 0) snprintf(sm, sizeof sm, " sm=%d", n->sm);
  int k = snprintf(buf, size, "%s %d target=%s%s%s%s", PAC_NEEDS_MAGIC, PAC_NEEDS_VERSION, n->cuda ? "cuda" : "c",
                   n->pthd ? " pthd" : "", n->mpi ? " mpi" : "", sm);
  return k >= 0 && (size_t)k < size;
}

/* one word of a record: w (len bytes) */
static void read_word(const char *w, size_t len, pac_needs *n) {
  if (len == 11 && !strncmp(w, "target=cuda", 11)) n->cuda = true;
  else if (len == 4 && !strncmp(w, "cuda", 4)) n->cuda = true; /* version 0 */
  else if (len == 4 && !strncmp(w, "pthd", 4)) n->pthd = true;
  else if (len == 3 && !strncmp(w, "mpi", 3)) n->mpi = true;
  else if (len > 3 && !strncmp(w, "sm=", 3)) {
    int sm = atoi(w + 3);
    if (sm > n->sm) n->sm = sm;
  }
}

int pac_needs_parse(const char *line, pac_needs *n) {
  size_t ml = strlen(PAC_NEEDS_MAGIC);
  int version;
  const char *s;
  if (!strncmp(line, PAC_NEEDS_MAGIC, ml) && line[ml] == ' ') {
    char *end;
    long v = strtol(line + ml + 1, &end, 10);
    if (end == line + ml + 1 || v < 0 || v > 1000000) return -1;
    version = (int)v, s = end;
  } else if (!strncmp(line, "pacc-needs:", 11)) {
    version = 0, s = line + 11;
  } else {
    return -1;
  }
  while (*s && *s != '\n') {
    while (*s == ' ' || *s == '\t') s++;
    size_t len = strcspn(s, " \t\n");
    read_word(s, len, n);
    s += len;
  }
  return version;
}
