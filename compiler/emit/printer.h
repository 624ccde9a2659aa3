/* SPDX-License-Identifier: Apache-2.0 */
/* printer.h - the shared output printer of the C and CUDA emitters. Output is
 * assembled from source text copied through unchanged and generated text
 * that replaces Parray constructs; it keeps line numbers in step with the
 * .pc file (padding with newlines, or emitting #line markers when generated
 * code is longer), and lets code that must live at file scope (outlined
 * detour bodies, kernels, #global blocks) be hoisted in front of the
 * top-level declaration being translated. */
#ifndef PAC_PRINTER_H
#define PAC_PRINTER_H

#include <stdio.h>

#include "diag.h"
#include "util.h"

typedef struct pchunk {
  sbuf hoist;        /* file-scope code placed before this top-level item */
  sbuf body;
  uint32_t src_start; /* source offset where the body's text starts */
} pchunk;

typedef struct printer {
  srcfile *src;
  bool lines;           /* emit #line markers */
  const char *fname;    /* the file name as it appears in #line, quoted and escaped */
  pchunk *chunks;
  int nchunks, capchunks;
  sbuf *cur;            /* where text goes now */
  sbuf **stack;         /* the outputs around the outlined bodies being printed, innermost last */
  int nstack, capstack;
  uint32_t copied;      /* source offset up to which text has been emitted */
  bool need_line;       /* the next copied source text needs a #line marker */
} printer;

void pr_init(printer *p, srcfile *src, bool lines);
void pr_free(printer *p);
/* Start a new top-level item at source offset `at` (copies text up to it). */
void pr_toplevel(printer *p, uint32_t at);
/* Copy source text up to `off`. */
void pr_src_to(printer *p, uint32_t off);
/* Replace source [b, e) by generated text (keeps line numbers in step). */
void pr_replace(printer *p, uint32_t b, uint32_t e, const char *text);
/* Generated text at the current point. */
void pr_gen(printer *p, const char *text);
/* Outlining: the source from `from` on is translated into a buffer of its
 * own (an outlined detour body, an #insert, a #global block), while the
 * enclosing output stands at `at` (copied up to there). pr_outline_end
 * copies the source up to `to` into the buffer, returns its text and
 * resumes the enclosing output at `at`, as it was. */
typedef struct pr_outline {
  uint32_t at;
  bool need_line;
} pr_outline;
void pr_outline_begin(printer *p, pr_outline *o, uint32_t at, uint32_t from);
char *pr_outline_end(printer *p, pr_outline *o, uint32_t to, arena *ar);
/* Inside an outlined buffer? */
bool pr_outlining(const printer *p);
/* Continue the output with the source from `off` (a .pc file included at
 * file scope, and back), marking the jump with a #line. */
void pr_jump(printer *p, uint32_t off);
/* the source copied next starts with a line marker (when markers are on) */
void pr_need_line(printer *p);
/* Append text to the hoisted area of the current top-level item. */
void pr_hoist(printer *p, const char *text);
/* Everything, in order, written to out. */
void pr_finish(printer *p, uint32_t end, FILE *out, const char *prologue);
/* The file of offset off as a C string literal. */
const char *pr_file_literal(printer *p, uint32_t off);
/* "#line N \"file\"\n" text for offset off (empty when markers are off). */
char *pr_line_text(printer *p, arena *ar, uint32_t off);

#endif
