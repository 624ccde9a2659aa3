/* SPDX-License-Identifier: Apache-2.0 */
/* lsp.h - pac's language server (pac --lsp): the Language Server Protocol
 * over a pair of streams, for editors. It keeps the open documents,
 * publishes pac's own diagnostics as the user types, shows a type's
 * dimension tree and layout and a dollar expression's offset on hover, and
 * finds the definitions of types and subprograms. */
#ifndef PAC_LSP_H
#define PAC_LSP_H

#include <stdio.h>

#include "translate.h"

/* Serve until the client's "exit": returns 0 when it was preceded by
 * "shutdown", as the protocol asks, else 1. base: the command line's options
 * (preprocessor flags, typedefs) used for every translation; selfinc: pac's
 * include folder, or NULL. */
int pac_lsp_serve(FILE *in, FILE *out, const pac_options *base, const char *selfinc);

/* ---- between lsp.c (the protocol) and lsp_features.c (the answers) ---- */
typedef struct lsp_doc lsp_doc;
struct lsp_doc {
  char *uri, *path; /* path: the file the uri names (messages and #include "x.pc" use it) */
  char *text;
  size_t len;
  lsp_doc *next;
};

typedef struct lsp_env {
  const pac_options *base;
  const char *selfinc;
} lsp_env;

/* A position in a document: line from 0, character in UTF-16 code units. */
typedef struct lsp_pos {
  long line, character;
} lsp_pos;

/* The "diagnostics" array for doc (JSON, appended to b). */
void lsp_diagnostics(const lsp_env *env, const lsp_doc *doc, sbuf *b);
/* The hover's result at p (a Hover object or null), appended to b. */
void lsp_hover(const lsp_env *env, const lsp_doc *doc, lsp_pos p, sbuf *b);
/* The definition's result for the name at p (a Location or null). */
void lsp_definition(const lsp_doc *doc, lsp_pos p, sbuf *b);

#endif
