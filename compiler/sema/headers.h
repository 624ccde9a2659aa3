/* SPDX-License-Identifier: Apache-2.0 */
/* headers.h - what the included headers declare: typedef names, file-scope
 * names and macros, learned by running the system preprocessor over the
 * .pc file's preprocessor lines (with the same -I/-D/-U) and reading its
 * output with the declaration reader. */
#ifndef PAC_HEADERS_H
#define PAC_HEADERS_H

#include "diag.h"
#include "util.h"

typedef struct macro {
  bool funclike;
  const char *body;
} macro;

typedef struct hdrinfo {
  arena *ar;
  strmap typedefs; /* name -> (void *)1 */
  strmap names;    /* other file-scope names (functions, variables, enumerators) */
  strmap macros;   /* name -> macro* */
} hdrinfo;

void hdr_init(hdrinfo *h, arena *ar);
void hdr_free(hdrinfo *h);
/* Run `cpp_cmd` (e.g. "cc -E") with args over pp_text; returns 0 on success.
 * On failure the reason is written to err. */
int hdr_learn(hdrinfo *h, const char *cpp_cmd, const char *const *args, int nargs, const char *pp_text,
              char *err, size_t errlen);
/* Read the output of a preprocessor (also used directly by tests). */
void hdr_scan(hdrinfo *h, const char *text, size_t len);
void hdr_add_define(hdrinfo *h, const char *line, size_t len);

#endif
