/* parse.c - runs the scanner and parser over one source buffer. */
#include "parse.h"

#include "parser.h"
#define YYSTYPE PARSE_STYPE
#define YYLTYPE PARSE_LTYPE
#include "lexer.h"

#include <string.h>

void lex_push_state_plain(void *s);

int parse_file(srcfile *src, diag *dg, arena *ar, bool plain_c, items *out) {
  return parse_range(src, 0, src->nsegs > 1 ? src->segs[0].len : src->len, dg, ar, plain_c, out, NULL);
}

int parse_range(srcfile *src, uint32_t base, uint32_t len, diag *dg, arena *ar, bool plain_c, items *out,
                parse_notes *notes) {
  pctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.src = src, ctx.dg = dg, ctx.ast.ar = ar, ctx.plain_c = plain_c, ctx.dkind = -1, ctx.quiet_at = -1;
  ctx.pos = base, ctx.end = base + len;
  ctx.notes = notes;
  PARSE_STYPE pending_value;
  ctx.pval = &pending_value;
  if (lex_lex_init_extra(&ctx, &ctx.scanner)) {
    diag_plain_error(dg, "cannot initialise the scanner");
    return 1;
  }
  /* The scanner works on its own copy, so that src->text can be inspected
   * from inside actions (flex writes into its buffer while matching). */
  YY_BUFFER_STATE buf = lex__scan_bytes(src->text + base, (int)len, ctx.scanner);
  if (plain_c) lex_push_state_plain(ctx.scanner);
  int errors = dg->errors;
  int rc = parse_parse(&ctx);
  lex__delete_buffer(buf, ctx.scanner);
  lex_lex_destroy(ctx.scanner);
  *out = ctx.result;
  return rc != 0 || dg->errors > errors;
}
