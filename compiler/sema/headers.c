/* SPDX-License-Identifier: Apache-2.0 */
/* headers.c - learning what the included headers declare (see headers.h):
 * the .pc file's preprocessor lines are run through the system preprocessor
 * with -dD, and its output is read with the declaration reader. */
#define _DEFAULT_SOURCE 1 /* mkstemps */
#include "headers.h"

#include "cdecl.h"
#include "cpp.h"
#include "parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void hdr_init(hdrinfo *h, arena *ar) {
  h->ar = ar;
  strmap_init(&h->typedefs);
  strmap_init(&h->names);
  strmap_init(&h->macros);
}

void hdr_free(hdrinfo *h) {
  strmap_free(&h->typedefs);
  strmap_free(&h->names);
  strmap_free(&h->macros);
}

static bool idch(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

void hdr_add_define(hdrinfo *h, const char *line, size_t len) {
  const char *p = line, *e = line + len;
  while (p < e && (*p == '#' || *p == ' ' || *p == '\t')) p++;
  bool def = e - p > 6 && memcmp(p, "define", 6) == 0 && (p[6] == ' ' || p[6] == '\t');
  bool undef = e - p > 5 && memcmp(p, "undef", 5) == 0 && (p[5] == ' ' || p[5] == '\t');
  if (!def && !undef) return;
  p += def ? 6 : 5;
  while (p < e && (*p == ' ' || *p == '\t')) p++;
  const char *nb = p;
  while (p < e && idch(*p)) p++;
  if (p == nb) return;
  char *name = arena_strndup(h->ar, nb, (size_t)(p - nb));
  if (undef) {
    strmap_put(&h->macros, name, strlen(name), NULL);
    return;
  }
  macro *m = arena_alloc(h->ar, sizeof *m);
  m->funclike = p < e && *p == '(';
  if (m->funclike)
    while (p < e && *p != ')') p++;
  if (p < e && m->funclike) p++;
  /* body: continuation lines joined, comments a space (outside literals) */
  sbuf b;
  sb_init(&b);
  char quote = 0;
  for (; p < e; p++) {
    if (*p == '\\' && p + 1 < e && p[1] == '\n') {
      p++;
      sb_putc(&b, ' ');
      continue;
    }
    if (quote) {
      if (*p == '\\' && p + 1 < e) sb_putc(&b, *p++);
      else if (*p == quote) quote = 0;
    } else if (*p == '"' || *p == '\'') {
      quote = *p;
    } else if (*p == '/' && p + 1 < e && p[1] == '/') {
      break;
    } else if (*p == '/' && p + 1 < e && p[1] == '*') {
      for (p += 2; p + 1 < e && !(p[0] == '*' && p[1] == '/'); p++) {}
      p++;
      sb_putc(&b, ' ');
      continue;
    }
    sb_putc(&b, *p);
  }
  m->body = arena_strdup(h->ar, b.s ? b.s : "");
  sb_free(&b);
  strmap_put(&h->macros, name, strlen(name), m);
}

void hdr_scan(hdrinfo *h, const char *text, size_t len) {
  srcfile f;
  src_from_string(&f, "<preprocessed headers>", text, (uint32_t)len);
  diag dg;
  FILE *devnull = fopen("/dev/null", "w");
  diag_init(&dg, &f, devnull ? devnull : stderr);
  dg.max_errors = 0;
  arena ar;
  arena_init(&ar);
  items its;
  parse_file(&f, &dg, &ar, true, &its);
  cdctx cd = {.text = f.text, .ar = &ar, .typedefs = &h->typedefs};
  cd_init(&cd);
  for (item *it = its.first; it; it = it->next) {
    if (it->kind == IT_PPLINE) {
      hdr_add_define(h, f.text + it->loc.b, it->loc.e - it->loc.b);
      continue;
    }
    if (it->kind != IT_TOK) continue;
    cd_stmt st = cd_statement(&cd, it, true);
    if (!st.is_decl) {
      /* skip to the end of this statement */
      while (it->next && !(it->kind == IT_TOK && it->punct == ';') && it->kind != IT_PPLINE &&
             !(it->kind == IT_GROUP && it->grp->open == '{' && it->next && it->next->kind != IT_TOK))
        it = it->next;
      continue;
    }
    for (int i = 0; i < st.ndecls; i++) {
      item *nm = st.decls[i].name;
      char *name = arena_strndup(h->ar, f.text + nm->loc.b, nm->loc.e - nm->loc.b);
      strmap_put(st.decls[i].is_typedef ? &h->typedefs : &h->names, name, strlen(name), (void *)1);
    }
    if (st.enum_body) {
      item **en;
      int n = cd_enumerators(&cd, st.enum_body, &en);
      for (int i = 0; i < n; i++) {
        char *name = arena_strndup(h->ar, f.text + en[i]->loc.b, en[i]->loc.e - en[i]->loc.b);
        strmap_put(&h->names, name, strlen(name), (void *)1);
      }
    }
    it = st.last;
  }
  cd_free(&cd);
  arena_free(&ar);
  if (devnull) fclose(devnull);
  src_free(&f);
}

int hdr_learn(hdrinfo *h, const char *cpp_cmd, const char *const *args, int nargs, const char *pp_text, char *err,
              size_t errlen) {
  const char **a = malloc(sizeof *a * (size_t)(nargs + 1));
  a[0] = "-dD";
  for (int i = 0; i < nargs; i++) a[i + 1] = args[i];
  sbuf out;
  sb_init(&out);
  int rc = cpp_run(cpp_cmd, a, nargs + 1, pp_text, &out, err, errlen);
  if (!rc) hdr_scan(h, out.s ? out.s : "", out.len);
  sb_free(&out);
  free(a);
  return rc;
}
