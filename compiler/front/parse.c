/* SPDX-License-Identifier: Apache-2.0 */
/* parse.c - runs the scanner and parser over one source buffer. */
#include "parse.h"

#include "parser.h"
#define YYSTYPE PARSE_STYPE
#define YYLTYPE PARSE_LTYPE
#include "lexer.h"

#include <stdlib.h>
#include <string.h>

void lex_push_state_plain(void *s);

int parse_file(srcfile *src, diag *dg, arena *ar, bool plain_c, items *out) {
  return parse_range(src, 0, src->nsegs > 1 ? src->segs[0].len : src->len, dg, ar, plain_c, out, NULL);
}

/* The scanner's copy of [base, base + len): the bodies of dead conditional
 * groups made blank (newlines kept): their text is passed through by the
 * printer as it is and never scanned, so offsets stay the same. NUL bytes
 * become 0x01 there: flex takes every NUL for the end of its buffer and
 * scans the token again from its start, so a run of NULs in a comment or a
 * string cost time quadratic in its length; no rule tells the two apart
 * (both are "any other byte"), and the printer copies the original text. */
static YY_BUFFER_STATE blanked_copy(srcfile *src, uint32_t base, uint32_t len, const parse_notes *notes, void *scanner) {
  const char *t = src->text + base;
  int k = 0;
  while (notes && k < notes->ndead && notes->dead[k].e <= base) k++;
  bool dead = notes && k < notes->ndead && notes->dead[k].b < base + len;
  const char *nul = memchr(t, 0, len);
  if (!dead && !nul) return lex__scan_bytes(t, (int)len, scanner);
  char *copy = malloc((size_t)len + 2);
  memcpy(copy, t, len);
  copy[len] = copy[len + 1] = 0;
  for (; dead && k < notes->ndead && notes->dead[k].b < base + len; k++) {
    uint32_t b = notes->dead[k].b > base ? notes->dead[k].b - base : 0;
    uint32_t e = notes->dead[k].e < base + len ? notes->dead[k].e - base : len;
    for (uint32_t i = b; i < e; i++)
      if (copy[i] != '\n') copy[i] = ' ';
  }
  for (char *p = nul ? copy + (nul - t) : NULL; p; p = memchr(p + 1, 0, (size_t)(copy + len - p - 1)))
    *p = 1;
  YY_BUFFER_STATE buf = lex__scan_bytes(copy, (int)len, scanner);
  free(copy);
  return buf;
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
  YY_BUFFER_STATE buf = blanked_copy(src, base, len, notes, ctx.scanner);
  if (plain_c) lex_push_state_plain(ctx.scanner);
  int errors = dg->errors;
  int rc = parse_parse(&ctx);
  vec_free(ctx.groups);
  vec_free(ctx.slots);
  vec_free(ctx.queue);
  lex__delete_buffer(buf, ctx.scanner);
  lex_lex_destroy(ctx.scanner);
  *out = ctx.result;
  if (notes && !plain_c) notes->cuda |= ast_needs_cuda(src->text, ctx.result);
  return rc != 0 || dg->errors > errors;
}

/* the placeholder at offset b, taken off the list (it is nearly always last) */
static item *take_slot(pctx *c, uint32_t b) {
  for (int i = c->slots.n - 1; i >= 0; i--)
    if (c->slots.v[i]->loc.b == b) {
      item *it = c->slots.v[i];
      memmove(&c->slots.v[i], &c->slots.v[i + 1], sizeof *c->slots.v * (size_t)(c->slots.n - 1 - i));
      c->slots.n--;
      return it;
    }
  return NULL;
}

item *parse_fill_dir(pctx *c, directive *d) {
  item *it = take_slot(c, d->loc.b);
  if (!it) return ast_dir_item(&c->ast, d);
  ast_fill_dir(it, d);
  return NULL;
}

item *parse_fill_dollar(pctx *c, dollar *d) {
  item *it = take_slot(c, d->loc.b);
  if (!it) return ast_dollar_item(&c->ast, d);
  ast_fill_dollar(it, d);
  return NULL;
}
