/* SPDX-License-Identifier: Apache-2.0 */
/* parse.h - the state shared by the reentrant scanner (grammar/lexer.l) and
 * the pure parser (grammar/parser.y), and the entry point that turns a source
 * file into a list of items. */
#ifndef PAC_PARSE_H
#define PAC_PARSE_H

#include "ast.h"

enum { PCTX_MAX_NEST = 64 };

/* What parsing notes: the preprocessor lines in order (from the scanner), and
 * whether the file needs CUDA (ast_needs_cuda over each parsed segment). */
typedef struct parse_notes {
  VEC(loc) pplines;
  bool cuda;
  /* given to the scanner: the bodies of dead conditional groups (sorted, not
   * overlapping), which it sees as blank (ppcond.h) */
  const loc *dead;
  int ndead;
} parse_notes;

/* a bracket group the scanner is gathering: its bracket, and the run of its
 * enclosing context up to the bracket */
typedef struct pgroup {
  char open;  /* '(' '[' '{', or 'S' for the body of a #subprog */
  bool shown; /* the parser has seen its bracket */
  loc at;
  items outer;
} pgroup;

/* a token queued for the parser: a run of C (CRUN), a bracket, or (tok < 0)
 * the token the scanner stopped at */
typedef struct ptoken {
  int tok;
  items list;
  loc l;
} ptoken;

typedef struct pctx {
  srcfile *src;
  diag *dg;
  astctx ast;
  void *scanner;
  bool plain_c;   /* header scanning: no directives, '$' belongs to identifiers */
  uint32_t pos;   /* byte offset of the next unread character */
  uint32_t end;   /* end of the text being scanned */

  /* directive header being scanned */
  int dkind;          /* dir_kind of the open directive, -1 if none */
  int ddepth;         /* bracket depth inside the header */
  char dstack[PCTX_MAX_NEST]; /* the open brackets */
  uint32_t dstack_at[PCTX_MAX_NEST];
  uint32_t dstart;    /* offset of its '#' */
  bool derror;        /* a syntax error was seen in it: no block or body follows */
  bool dcuda;         /* a #parray body that declares a cuda thread array */

  /* $...$ nesting */
  int dol_level;
  int dol_depth[PCTX_MAX_NEST];
  uint32_t dol_start[PCTX_MAX_NEST];
  bool dol_pend_close; /* recovery: produce DOLLAR_CLOSE before rescanning */

  /* preprocessor line being accumulated */
  uint32_t pp_start;
  uint32_t pp_comment_start;

  /* Plain C is gathered by the scanner (see grammar/lexer.l): tokens,
   * preprocessor lines, bracket groups and placeholders of directives and
   * $...$ into runs; the parser sees a run where its grammar needs one. */
  items run;          /* the run being gathered, in the innermost open group */
  VEC(pgroup) groups; /* the open groups */
  VEC(item *) slots;  /* placeholders not yet filled in, latest last */
  VEC(ptoken) queue;  /* tokens for the parser, then the one that ended the run */
  int qhead;
  int ptok;
  void *pval; /* PARSE_STYPE of that token (parser.h is not included here) */
  loc ploc;

  parse_notes *notes; /* or NULL */
  items result;
  bool eof_error; /* an unterminated construct was reported at end of file */
  int64_t quiet_at; /* offset of a token the scanner made up after reporting an error (-1: none) */
} pctx;

/* Called by the parser when it has parsed a directive or $...$ of plain C:
 * the placeholder the scanner left in the run becomes it. Returns the item
 * for the parser's own list, or NULL when the placeholder took it. */
item *parse_fill_dir(pctx *c, directive *d);
item *parse_fill_dollar(pctx *c, dollar *d);

/* Parse the whole file (its first segment). Returns 0 on success;
 * diagnostics go to ctx->dg. */
int parse_file(srcfile *src, diag *dg, arena *ar, bool plain_c, items *out);
/* Parse the text [base, base + len) of src (one segment). */
int parse_range(srcfile *src, uint32_t base, uint32_t len, diag *dg, arena *ar, bool plain_c, items *out,
                parse_notes *notes);

#endif
