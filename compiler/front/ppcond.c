/* SPDX-License-Identifier: Apache-2.0 */
/* ppcond.c - which groups of conditional compilation are live (see
 * ppcond.h): the preprocessor lines of each segment are found (outside
 * comments), conditionals are matched into groups, and the groups are
 * decided by the system preprocessor over a sketch of those lines, or by
 * ppeval.c without one. .pc files are loaded as their #include lines are
 * reached, in the order of the text, so that what an included file defines
 * decides the groups after it. */
#include "ppcond.h"

#include "cpp.h"
#include "ppeval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
  PK_IF, PK_IFDEF, PK_IFNDEF, PK_ELIF, PK_ELIFDEF, PK_ELIFNDEF, PK_ELSE, PK_ENDIF,
  PK_DEFINE, PK_UNDEF, PK_INCLUDE, PK_PCINC, PK_ERROR, PK_LINE, PK_OTHER
} pk_kind;

/* one preprocessor line */
typedef struct ppl {
  pk_kind kind;
  uint32_t b, e;    /* from its '#' to the end of the line (the newline not included) */
  uint32_t arg;     /* where the text after the directive word starts */
  uint32_t next;    /* the start of the next line */
  int group;        /* PK_IF..PK_ELSE: the group whose body follows */
  int seg;          /* PK_PCINC: the file it names (-2: not looked up yet, -1: not found) */
  bool live;        /* PK_PCINC, PK_ERROR: reached */
} ppl;

/* a group: the lines after a condition, up to the next one of its conditional */
typedef struct ppgroup {
  loc body;
  bool live;
} ppgroup;

typedef struct segscan {
  bool done;
  VEC(ppl) lines;
  bool sited;               /* the file is walked at line site_line of segment site_seg */
  int site_seg, site_line;
} segscan;

typedef struct ppc {
  srcfile *src;
  diag *dg;
  const ppc_options *o;
  segscan *segs;
  int nsegs;
  VEC(ppgroup) groups;
  bool any_cond;
  int depth;       /* of inlined files, against include cycles */
  int load_errors; /* reported while loading files (not about conditionals) */
  int errors0;     /* the count of errors before */
} ppc;

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }
static bool is_idch(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         (unsigned char)c >= 0x80;
}

bool ppc_pc_include_name(const char *s, size_t n, const char **name, size_t *nl, bool *angle) {
  const char *p = s, *e = s + n;
  while (p < e && is_blank(*p)) p++;
  if (p == e || *p != '#') return false;
  p++;
  while (p < e && is_blank(*p)) p++;
  if (e - p < 7 || strncmp(p, "include", 7) != 0) return false;
  p += 7;
  while (p < e && is_blank(*p)) p++;
  if (p == e || (*p != '"' && *p != '<')) return false;
  char close = *p == '"' ? '"' : '>';
  *angle = *p == '<';
  const char *b = ++p;
  while (p < e && *p != close && *p != '\n') p++;
  if (p == e || *p != close || p - b < 4 || strncmp(p - 3, ".pc", 3) != 0) return false;
  *name = b, *nl = (size_t)(p - b);
  return true;
}

/* ---- finding the preprocessor lines ---------------------------------------- */

/* Skip a string or character literal starting at p (its quote); stops at the
 * end of the line if it is not closed. */
static uint32_t skip_literal(const char *t, uint32_t p, uint32_t end) {
  char q = t[p++];
  while (p < end && t[p] != q && t[p] != '\n') p += (t[p] == '\\' && p + 1 < end && t[p + 1] != '\n') ? 2 : 1;
  return p < end && t[p] == q ? p + 1 : p;
}

/* The first newline, '/', '"' or '\'' from p on (or end): most lines hold
 * none but their newline, so this looks for each with memchr, within the line. */
static uint32_t next_special(const char *t, uint32_t p, uint32_t end) {
  const char *nl = memchr(t + p, '\n', end - p);
  const char *e = nl ? nl : t + end, *first = e;
  static const char others[] = {'/', '"', '\''};
  for (int i = 0; i < 3; i++) {
    const char *q = memchr(t + p, others[i], (size_t)(first - (t + p)));
    if (q) first = q;
  }
  return (uint32_t)(first - t);
}

/* From p to the newline that ends the line, outside comments: returns its
 * offset (or end). *in_comment says whether p is inside a block comment and,
 * after, whether the line ended inside one. A comment open at a newline
 * carries a directive on to the following lines (it is one space); an
 * ordinary line ends there, and the comment goes on in the next. */
static uint32_t scan_line(const char *t, uint32_t p, uint32_t end, bool *in_comment, bool directive) {
  while (p < end) {
    if (*in_comment) {
      while (p < end && !(t[p] == '*' && p + 1 < end && t[p + 1] == '/')) {
        if (t[p] == '\n' && !directive) return p;
        p++;
      }
      if (p >= end) return end;
      p += 2;
      *in_comment = false;
      continue;
    }
    p = next_special(t, p, end);
    if (p >= end) break;
    char ch = t[p];
    if (ch == '\n') return p;
    if (ch == '/' && p + 1 < end && t[p + 1] == '*') {
      *in_comment = true;
      p += 2;
    } else if (ch == '/' && p + 1 < end && t[p + 1] == '/') {
      const char *nl = memchr(t + p, '\n', end - p);
      return nl ? (uint32_t)(nl - t) : end;
    } else if (ch == '"' || ch == '\'') {
      p = skip_literal(t, p, end);
    } else {
      p++;
    }
  }
  return end;
}

static pk_kind classify(const char *w, size_t n) {
  static const struct {
    const char *w;
    pk_kind k;
  } words[] = {{"if", PK_IF},         {"ifdef", PK_IFDEF},     {"ifndef", PK_IFNDEF},   {"elif", PK_ELIF},
               {"elifdef", PK_ELIFDEF}, {"elifndef", PK_ELIFNDEF}, {"else", PK_ELSE},   {"endif", PK_ENDIF},
               {"define", PK_DEFINE}, {"undef", PK_UNDEF},     {"include", PK_INCLUDE}, {"include_next", PK_INCLUDE},
               {"import", PK_INCLUDE}, {"error", PK_ERROR}, {"line", PK_LINE}};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (str_eq(w, n, words[i].w)) return words[i].k;
  return PK_OTHER;
}

/* The directive whose '#' is at p: its extent and kind. */
static ppl directive_line(ppc *c, uint32_t hash, uint32_t end) {
  const char *t = c->src->text;
  ppl l = {.b = hash, .group = -1, .seg = -2};
  uint32_t p = hash + 1;
  while (p < end && is_blank(t[p])) p++;
  uint32_t wb = p;
  while (p < end && is_idch(t[p])) p++;
  l.kind = classify(t + wb, p - wb);
  if (p > wb && t[wb] >= '0' && t[wb] <= '9') l.kind = PK_LINE, p = wb; /* a line marker: # 12 "file" */
  while (p < end && is_blank(t[p])) p++;
  l.arg = p;
  bool in_comment = false;
  uint32_t e = scan_line(t, p, end, &in_comment, true);
  l.e = e;
  l.next = e < end ? e + 1 : end;
  const char *nm;
  size_t nl;
  bool angle;
  if (l.kind == PK_INCLUDE && ppc_pc_include_name(t + hash, e - hash, &nm, &nl, &angle)) l.kind = PK_PCINC;
  return l;
}

/* ---- the lines and groups of a segment --------------------------------------- */

static int new_group(ppc *c, uint32_t body_start) {
  vec_push(c->groups, ((ppgroup){{body_start, body_start}, false}));
  return c->groups.n - 1;
}

/* An #if..#endif being matched: the line that opened its current group,
 * the start of that line, and whether an #else was seen. */
typedef struct cframe {
  int line;
  bool had_else;
} cframe;
typedef VEC(cframe) cstack;

static const char *const kind_word[] = {
  [PK_IF] = "#if", [PK_IFDEF] = "#ifdef", [PK_IFNDEF] = "#ifndef", [PK_ELIF] = "#elif", [PK_ELIFDEF] = "#elifdef",
  [PK_ELIFNDEF] = "#elifndef", [PK_ELSE] = "#else", [PK_ENDIF] = "#endif"};

/* Match a conditional line into groups (ls: the start of its line). */
static void match_line(ppc *c, segscan *ss, ppl *l, uint32_t ls, cstack *st) {
  if (l->kind <= PK_IFNDEF) {
    l->group = new_group(c, l->next);
    c->any_cond = true;
    vec_push(*st, ((cframe){ss->lines.n, false}));
    return;
  }
  if (l->kind > PK_ENDIF) return;
  loc at = {l->b, l->arg > l->b ? l->arg : l->b + 1};
  if (st->n == 0) {
    diag_error(c->dg, at, "%s without #if", kind_word[l->kind]);
    l->kind = PK_OTHER;
    return;
  }
  cframe *f = &st->v[st->n - 1];
  if (f->had_else && l->kind != PK_ENDIF) {
    diag_error(c->dg, at, "%s after #else", kind_word[l->kind]);
    l->kind = PK_OTHER;
    return;
  }
  c->groups.v[ss->lines.v[f->line].group].body.e = ls;
  if (l->kind == PK_ENDIF) {
    st->n--;
    return;
  }
  l->group = new_group(c, l->next);
  f->line = ss->lines.n, f->had_else = l->kind == PK_ELSE;
}

/* Whether [p, end) may hold a conditional or an #include of a .pc file: a
 * '#' that starts a line (after blanks) followed by such a word. Most files
 * hold none, and then they need no scan (a '#' inside a comment only makes
 * this say yes when the answer is no). */
static bool worth_scanning(const char *t, uint32_t p, uint32_t end) {
  for (const char *h = t + p; (h = memchr(h, '#', (size_t)(t + end - h))); h++) {
    const char *b = h;
    while (b > t + p && is_blank(b[-1])) b--;
    if (b > t + p && b[-1] != '\n') continue;
    const char *w = h + 1, *e = t + end;
    while (w < e && is_blank(*w)) w++;
    const char *we = w;
    while (we < e && is_idch(*we)) we++;
    pk_kind k = classify(w, (size_t)(we - w));
    if (k <= PK_ENDIF) return true;
    const char *nl = memchr(we, '\n', (size_t)(e - we)), *name;
    size_t nlen;
    bool angle;
    if (k == PK_INCLUDE && ppc_pc_include_name(h, (size_t)((nl ? nl : e) - h), &name, &nlen, &angle)) return true;
  }
  return false;
}

static void scan_segment(ppc *c, int seg) {
  segscan *ss = &c->segs[seg];
  ss->done = true;
  const char *t = c->src->text;
  uint32_t p = c->src->segs[seg].base, end = p + c->src->segs[seg].len;
  if (!worth_scanning(t, p, end)) return;
  bool in_comment = false;
  cstack st = {0};
  while (p < end) {
    if (!in_comment) {
      uint32_t q = p;
      while (q < end && is_blank(t[q])) q++;
      if (q < end && t[q] == '#') {
        ppl l = directive_line(c, q, end);
        match_line(c, ss, &l, p, &st);
        vec_push(ss->lines, l);
        p = l.next;
        continue;
      }
    }
    uint32_t e = scan_line(t, p, end, &in_comment, false);
    p = e < end ? e + 1 : end;
  }
  for (int i = 0; i < st.n; i++) {
    ppl *l = &ss->lines.v[st.v[i].line];
    diag_error(c->dg, (loc){l->b, l->arg > l->b ? l->arg : l->b + 1}, "unterminated %s",
               kind_word[l->kind <= PK_IFNDEF ? l->kind : PK_IF]);
    c->groups.v[l->group].body.e = end;
  }
  vec_free(st);
}

/* ---- deciding with the preprocessor ----------------------------------------- */

/* the first #include line reached for its file: the file is walked there */
static bool is_site(const ppc *c, const ppl *l, int seg, int i) {
  return l->seg > 0 && l->seg < c->nsegs && c->segs[l->seg].sited && c->segs[l->seg].site_seg == seg &&
         c->segs[l->seg].site_line == i;
}

/* What __LINE__ is on a line of a segment: its physical line, or after a
 * #line (or a line marker) that line's number plus the lines since. */
typedef struct linemap {
  long base; /* the number the #line gave (< 0: none) */
  int phys;  /* the physical line of that #line */
} linemap;

static void note_line(ppc *c, linemap *lm, const ppl *l) {
  const char *t = c->src->text;
  uint32_t p = l->arg;
  long n = 0;
  if (p >= l->e || t[p] < '0' || t[p] > '9') return; /* a #line of macros: not followed */
  for (; p < l->e && t[p] >= '0' && t[p] <= '9' && n < 2147483647L; p++) n = n * 10 + (t[p] - '0');
  lm->base = n, lm->phys = src_line(c->src, l->b);
}

static long line_of(ppc *c, const linemap *lm, const ppl *l) {
  int phys = src_line(c->src, l->b);
  return lm->base < 0 ? phys : lm->base + (phys - lm->phys - 1);
}

static bool is_condition(pk_kind k) { return k == PK_IF || k == PK_ELIF; }

static void render(ppc *c, int seg, sbuf *out) {
  segscan *ss = &c->segs[seg];
  const char *t = c->src->text;
  linemap lm = {-1, 0}; /* (a #line of a dead group is followed too) */
  for (int i = 0; i < ss->lines.n; i++) {
    ppl *l = &ss->lines.v[i];
    switch (l->kind) {
    case PK_IF: case PK_IFDEF: case PK_IFNDEF: case PK_ELIF: case PK_ELIFDEF: case PK_ELIFNDEF: case PK_ELSE:
      if (is_condition(l->kind) && line_of(c, &lm, l) > 0 && line_of(c, &lm, l) <= 2147483647L)
        sb_printf(out, "#line %ld\n", line_of(c, &lm, l)); /* for __LINE__ */
      sb_write(out, t + l->b, l->e - l->b);
      sb_printf(out, "\n#pragma parray_pac_live %d\n", l->group);
      break;
    case PK_ENDIF: case PK_DEFINE: case PK_UNDEF: case PK_INCLUDE:
      sb_write(out, t + l->b, l->e - l->b);
      sb_putc(out, '\n');
      break;
    case PK_PCINC:
      sb_printf(out, "#pragma parray_pac_inc %d %d\n", seg, i);
      if (is_site(c, l, seg, i)) render(c, l->seg, out);
      break;
    case PK_ERROR: /* the marker comes through only from a live group */
      sb_printf(out, "#pragma parray_pac_err %d %d\n", seg, i);
      break;
    case PK_LINE:
      note_line(c, &lm, l);
      break;
    default:
      break;
    }
  }
}

static void clear_marks(ppc *c) {
  for (int g = 0; g < c->groups.n; g++) c->groups.v[g].live = false;
  for (int s = 0; s < c->nsegs; s++)
    for (int i = 0; i < c->segs[s].lines.n; i++) c->segs[s].lines.v[i].live = false;
}

/* Read the markers that came through the preprocessor. */
static void read_marks(ppc *c, const char *out, size_t len) {
  const char *p = out, *end = out + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end, *q = p;
    while (q < e && is_blank(*q)) q++;
    int a, b;
    if (e - q > 8 && !memcmp(q, "#pragma ", 8)) {
      char line[96];
      snprintf(line, sizeof line, "%.*s", (int)(e - q), q);
      if (sscanf(line, "#pragma parray_pac_live %d", &a) == 1 && a >= 0 && a < c->groups.n)
        c->groups.v[a].live = true;
      else if ((sscanf(line, "#pragma parray_pac_inc %d %d", &a, &b) == 2 ||
                sscanf(line, "#pragma parray_pac_err %d %d", &a, &b) == 2) &&
               a >= 0 && a < c->nsegs && b >= 0 && b < c->segs[a].lines.n)
        c->segs[a].lines.v[b].live = true;
    }
    p = e + 1;
  }
}

/* The folder of a file name ("." for none), for the quote-include path. */
static char *folder_of(const char *name) {
  const char *sl = strrchr(name, '/');
  if (!sl) return strdup(".");
  if (sl == name) return strdup("/");
  char *d = malloc((size_t)(sl - name) + 1);
  memcpy(d, name, (size_t)(sl - name));
  d[sl - name] = 0;
  return d;
}

static int decide_cpp(ppc *c, char *err, size_t errlen) {
  sbuf in, out;
  sb_init(&in);
  sb_init(&out);
  render(c, 0, &in);
  int na = 0;
  const char **args = malloc(sizeof *args * (size_t)(c->o->nargs + 2 * c->nsegs + 1));
  char **dirs = calloc((size_t)c->nsegs, sizeof *dirs);
  for (int s = 0; s < c->nsegs; s++) {
    dirs[s] = folder_of(c->src->segs[s].name);
    args[na++] = "-iquote";
    args[na++] = dirs[s];
  }
  for (int i = 0; i < c->o->nargs; i++) args[na++] = c->o->args[i];
  int rc = cpp_run(c->o->cpp, args, na, in.s ? in.s : "", &out, err, errlen);
  if (!rc) {
    clear_marks(c);
    read_marks(c, out.s ? out.s : "", out.len);
  }
  for (int s = 0; s < c->nsegs; s++) free(dirs[s]);
  free(dirs);
  free(args);
  sb_free(&in);
  sb_free(&out);
  return rc;
}

/* ---- deciding without a preprocessor ------------------------------------------ */

/* an #if..#endif being evaluated */
typedef struct eframe {
  bool parent_live, taken;
} eframe;

/* The value of a condition line (0 or 1); an error is reported and taken as 0. */
static bool condition(ppc *c, const ppl *l, ppmacros *m, const linemap *lm) {
  const char *t = c->src->text;
  if (l->kind == PK_IFDEF || l->kind == PK_IFNDEF || l->kind == PK_ELIFDEF || l->kind == PK_ELIFNDEF) {
    uint32_t p = l->arg, q = p;
    while (q < l->e && is_idch(t[q])) q++;
    if (q == p) {
      diag_error(c->dg, (loc){l->b, l->arg}, "%s needs a macro name", kind_word[l->kind]);
      return false;
    }
    bool d = pp_is_defined(m, t + p, q - p);
    return (l->kind == PK_IFDEF || l->kind == PK_ELIFDEF) ? d : !d;
  }
  int64_t v = 0;
  char err[256];
  size_t off = 0;
  char line[40];
  snprintf(line, sizeof line, "__LINE__ %ld", line_of(c, lm, l));
  pp_define(m, line, strlen(line));
  if (pp_eval(m, t + l->arg, l->e - l->arg, &v, err, sizeof err, &off)) {
    uint32_t at = l->arg + (uint32_t)(off < l->e - l->arg ? off : 0);
    diag_error(c->dg, (loc){at, at + 1}, "%s", err);
    return false;
  }
  return v != 0;
}

static void eval_seg(ppc *c, int seg, ppmacros *m, bool live) {
  if (c->depth > 64) return;
  c->depth++;
  VEC(eframe) st = {0};
  const char *t = c->src->text;
  linemap lm = {-1, 0};
  for (int i = 0; i < c->segs[seg].lines.n; i++) {
    ppl *l = &c->segs[seg].lines.v[i];
    switch (l->kind) {
    case PK_IF: case PK_IFDEF: case PK_IFNDEF: {
      bool v = live && condition(c, l, m, &lm);
      vec_push(st, ((eframe){live, v}));
      live = c->groups.v[l->group].live = v;
      break;
    }
    case PK_ELIF: case PK_ELIFDEF: case PK_ELIFNDEF: case PK_ELSE: {
      eframe *f = &st.v[st.n - 1];
      bool v = f->parent_live && !f->taken && (l->kind == PK_ELSE || condition(c, l, m, &lm));
      f->taken = f->taken || v;
      live = c->groups.v[l->group].live = v;
      break;
    }
    case PK_ENDIF:
      live = st.v[--st.n].parent_live;
      break;
    case PK_DEFINE:
      if (live) pp_define(m, t + l->arg, l->e - l->arg);
      break;
    case PK_UNDEF:
      if (live) pp_undef(m, t + l->arg, l->e - l->arg);
      break;
    case PK_PCINC:
      l->live = live;
      if (live && is_site(c, l, seg, i)) eval_seg(c, l->seg, m, true);
      break;
    case PK_ERROR:
      l->live = live;
      break;
    case PK_LINE:
      if (live) note_line(c, &lm, l);
      break;
    default:
      break;
    }
  }
  vec_free(st);
  c->depth--;
}

static void decide_eval(ppc *c) {
  clear_marks(c);
  ppmacros *m = pp_macros_new();
  pp_define(m, "__LINE__ 0", 10); /* defined, as in cpp; each condition sets its line */
  for (int i = 0; i < c->o->ndefs; i++) {
    const char *d = c->o->defs[i];
    if (!strncmp(d, "-D", 2)) pp_define_option(m, d + 2);
    else if (!strncmp(d, "-U", 2)) pp_undef(m, d + 2, strlen(d + 2));
  }
  eval_seg(c, 0, m, true);
  pp_macros_free(m);
}

/* ---- the walk over the files ------------------------------------------------ */

static void mark_all_live(ppc *c) {
  for (int g = 0; g < c->groups.n; g++) c->groups.v[g].live = true;
  for (int s = 0; s < c->nsegs; s++)
    for (int i = 0; i < c->segs[s].lines.n; i++)
      c->segs[s].lines.v[i].live = c->segs[s].lines.v[i].kind != PK_ERROR; /* undecided: not reported */
}

/* #error in a group that is live: the program stops there, as C's does */
static void report_errors(ppc *c) {
  const char *t = c->src->text;
  for (int s = 0; s < c->nsegs; s++)
    for (int i = 0; i < c->segs[s].lines.n; i++) {
      const ppl *l = &c->segs[s].lines.v[i];
      if (l->kind == PK_ERROR && l->live)
        diag_error(c->dg, (loc){l->b, l->e}, "#error %.*s", (int)(l->e - l->arg), t + l->arg);
    }
}

/* The first #include "x.pc" reached whose file has not been looked up, in
 * the order of the text (files walked where first reached). */
static ppl *first_unloaded(ppc *c, int seg, int *at_seg, int *at_line) {
  if (c->depth > 64) return NULL;
  segscan *ss = &c->segs[seg];
  for (int i = 0; i < ss->lines.n; i++) {
    ppl *l = &ss->lines.v[i];
    if (l->kind != PK_PCINC || !l->live) continue;
    if (l->seg == -2) {
      *at_seg = seg, *at_line = i;
      return l;
    }
    if (is_site(c, l, seg, i)) {
      c->depth++;
      ppl *r = first_unloaded(c, l->seg, at_seg, at_line);
      c->depth--;
      if (r) return r;
    }
  }
  return NULL;
}

static void grow_segs(ppc *c) {
  if (c->nsegs >= c->src->nsegs) return;
  c->segs = realloc(c->segs, sizeof *c->segs * (size_t)c->src->nsegs);
  memset(c->segs + c->nsegs, 0, sizeof *c->segs * (size_t)(c->src->nsegs - c->nsegs));
  c->nsegs = c->src->nsegs;
}

/* Look up the file of an #include line; a file seen for the first time is
 * scanned and walked there. Returns whether the groups must be decided anew. */
static bool load_include(ppc *c, ppl *l, int seg, int line) {
  const char *name;
  size_t nl;
  bool angle;
  ppc_pc_include_name(c->src->text + l->b, l->e - l->b, &name, &nl, &angle);
  int before = c->dg->errors;
  int s = c->o->load ? c->o->load(c->o->env, seg, l->b, name, nl, angle) : -1;
  c->load_errors += c->dg->errors - before;
  grow_segs(c);
  c->segs[seg].lines.v[line].seg = s >= 0 && s < c->nsegs ? s : -1;
  if (s <= 0 || s >= c->nsegs || c->segs[s].sited) return false;
  c->segs[s].sited = true, c->segs[s].site_seg = seg, c->segs[s].site_line = line;
  if (!c->segs[s].done) scan_segment(c, s);
  return true;
}

/* Decide the groups: by the preprocessor while it works, else by ppeval. */
static void decide(ppc *c, bool *use_cpp) {
  if (!c->any_cond) {
    mark_all_live(c);
    return;
  }
  char err[512] = "";
  /* unbalanced conditionals (reported) would only make the preprocessor fail */
  if (c->dg->errors > c->load_errors + c->errors0) *use_cpp = false;
  if (*use_cpp && decide_cpp(c, err, sizeof err) == 0) return;
  int errors = c->dg->errors;
  decide_eval(c);
  /* where the evaluation finds the problem, that is what the user sees */
  if (*use_cpp && c->dg->errors == errors)
    diag_plain_warning(c->dg, "the preprocessor could not decide the #if groups (%s); they were decided with the "
                              "file's own macros and -D/-U only", err);
  *use_cpp = false;
}

static int cmp_loc(const void *a, const void *b) {
  const loc *x = a, *y = b;
  return x->b < y->b ? -1 : x->b > y->b;
}

static void collect(ppc *c, int seg, ppc_result *r) {
  segscan *ss = &c->segs[seg];
  for (int i = 0; i < ss->lines.n; i++) {
    ppl *l = &ss->lines.v[i];
    if (l->kind == PK_PCINC && l->live && l->seg > 0) {
      bool first = is_site(c, l, seg, i);
      vec_push(r->includes, ((ppc_include){l->b, l->seg, first}));
      if (first && c->depth < 64) {
        c->depth++;
        collect(c, l->seg, r);
        c->depth--;
      }
    }
  }
}

int ppc_run(srcfile *src, diag *dg, const ppc_options *o, ppc_result *r) {
  memset(r, 0, sizeof *r);
  int errors = dg->errors;
  ppc c = {.src = src, .dg = dg, .o = o, .errors0 = errors};
  grow_segs(&c);
  scan_segment(&c, 0);
  bool use_cpp = o->cpp != NULL, fresh = true;
  for (;;) {
    if (fresh) decide(&c, &use_cpp);
    int s, line;
    ppl *l = first_unloaded(&c, 0, &s, &line);
    if (!l) break;
    fresh = load_include(&c, l, s, line);
  }
  report_errors(&c);
  r->used_cpp = use_cpp && c.any_cond;
  for (int g = 0; g < c.groups.n; g++)
    if (!c.groups.v[g].live && c.groups.v[g].body.e > c.groups.v[g].body.b) vec_push(r->dead, c.groups.v[g].body);
  if (r->dead.n) qsort(r->dead.v, (size_t)r->dead.n, sizeof *r->dead.v, cmp_loc);
  int k = 0; /* drop the dead groups inside dead groups */
  for (int i = 0; i < r->dead.n; i++)
    if (k == 0 || r->dead.v[i].b >= r->dead.v[k - 1].e) r->dead.v[k++] = r->dead.v[i];
  r->dead.n = k;
  collect(&c, 0, r);
  for (int i = 0; i < c.nsegs; i++) vec_free(c.segs[i].lines);
  free(c.segs);
  vec_free(c.groups);
  return dg->errors - c.load_errors > errors;
}

void ppc_result_free(ppc_result *r) {
  vec_free(r->dead);
  vec_free(r->includes);
}
