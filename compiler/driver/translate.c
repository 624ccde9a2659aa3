/* SPDX-License-Identifier: Apache-2.0 */
/* translate.c - one translation from start to end: load the .pc file and the
 * .pc files it includes, parse them, learn what the C headers declare, lower
 * to C or CUDA and write the result (or the --layout report). pac's main()
 * and the fuzz target call pac_translate; it frees all it allocates. */
#define _DEFAULT_SOURCE 1 /* realpath */
#include "translate.h"

#include "cpp.h"
#include "layout_svg.h"
#include "outfile.h"
#include "parse.h"
#include "ppcond.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PAC_VERSION
#define PAC_VERSION "0.1.0"
#endif

/* Everything one translation holds. */
typedef struct tstate {
  pac_options opt;
  const pac_io *io;
  FILE *err;
  srcfile src;
  diag dg;
  arena ar;
  lw w;
  hdrinfo hdr;
  int target;
  sbuf hdrdeps; /* the headers the preprocessor read, make-quoted, one a line */
  VEC(char *) owned_names; /* names of included files (freed at the end) */
} tstate;

/* The .pc file an #include line names (ppc_loader): "x.pc" in the including
 * file's folder first, then the -I folders, the -isystem ones, then pac's
 * own include folder;
 * each file is loaded once, as a new segment of the source. */
static int load_pc_include(void *env, int sg, uint32_t at, const char *name, size_t nl, bool angle) {
  tstate *t = env;
  srcfile *src = &t->src;
  const pac_options *opt = &t->opt;
  const char *nlp = memchr(src->text + at, '\n', src->len - at);
  loc where = {at, nlp ? (uint32_t)(nlp - src->text) : src->len};
  char want[4096], found[8400] = "";
  snprintf(want, sizeof want, "%.*s", (int)nl, name);
  const char *dirs[256];
  int nd = 0;
  char here[4096];
  snprintf(here, sizeof here, "%s", src->segs[sg].name);
  char *slash = strrchr(here, '/');
  if (slash) *slash = 0;
  else strcpy(here, ".");
  if (!angle) dirs[nd++] = here;
  for (int pass = 0; pass < 2; pass++) /* the -I folders, then the -isystem ones, as cc looks */
    for (int i = 0; i < opt->ncpp_args && nd < 250; i++) {
      const char *a = opt->cpp_args[i];
      const char *dir = NULL;
      if (!strcmp(a, "-I") || !strcmp(a, "-isystem") || !strcmp(a, "-include")) {
        if (i + 1 < opt->ncpp_args) dir = opt->cpp_args[++i];
      } else if (!strncmp(a, "-I", 2)) {
        dir = a + 2;
      }
      if (dir && (pass == 0 ? a[1] == 'I' : !strcmp(a, "-isystem"))) dirs[nd++] = dir;
    }
  if (t->io->selfinc) dirs[nd++] = t->io->selfinc;
  for (int d = 0; d < nd && !found[0]; d++) {
    char cand[8192];
    if (!strcmp(dirs[d], ".")) snprintf(cand, sizeof cand, "%s", want); /* no "./" in messages */
    else snprintf(cand, sizeof cand, "%s/%s", dirs[d], want);
    if (access(cand, R_OK) == 0) snprintf(found, sizeof found, "%s", cand);
  }
  if (!found[0]) {
    diag_error(&t->dg, where, "cannot find the Parray file '%s'", want);
    return -1;
  }
  char canon[sizeof found > PATH_MAX ? sizeof found : PATH_MAX];
  if (!realpath(found, canon)) memcpy(canon, found, sizeof found);
  for (int k = 1; k < src->nsegs; k++) {
    char c2[PATH_MAX];
    if (realpath(src->segs[k].name, c2) && !strcmp(c2, canon)) return k;
  }
  char err[512];
  char *keep = strdup(found);
  int seg = src_append_file(src, keep, err, sizeof err);
  if (seg < 0) {
    diag_error(&t->dg, where, "%s", err);
    free(keep);
    return -1;
  }
  vec_push(t->owned_names, keep);
  return seg;
}

/* The preprocessor option at *i: 'D' or 'U' with *v its text ("NAME=VAL",
 * from the same word or the next, *i then moved past it), or 0. */
static int define_option(const pac_options *opt, int *i, const char **v) {
  const char *a = opt->cpp_args[*i];
  if (strncmp(a, "-D", 2) && strncmp(a, "-U", 2)) return 0;
  if (a[2]) *v = a + 2;
  else if (*i + 1 < opt->ncpp_args) *v = opt->cpp_args[++*i];
  else return 0;
  return a[1];
}

/* Decide the conditional groups, loading the .pc files reached. */
static int decide_groups(tstate *t, ppc_result *r) {
  const pac_options *opt = &t->opt;
  const char **defs = malloc(sizeof *defs * (size_t)(opt->ncpp_args + 1));
  char **owned = calloc((size_t)opt->ncpp_args + 1, sizeof *owned);
  int nd = 0;
  const char *v;
  for (int i = 0; i < opt->ncpp_args; i++) {
    int k = define_option(opt, &i, &v);
    if (!k) continue;
    size_t n = strlen(v);
    owned[nd] = malloc(n + 3);
    snprintf(owned[nd], n + 3, "-%c%s", k, v);
    defs[nd] = owned[nd];
    nd++;
  }
  /* the CUDA toolkit's headers are found (after the system's), so that a
   * CUDA program's #include <cufft.h> does not stop the preprocessor */
  const char **args = malloc(sizeof *args * (size_t)(opt->ncpp_args + 2));
  int na = 0;
  for (int i = 0; i < opt->ncpp_args; i++) args[na++] = opt->cpp_args[i];
#ifdef PAC_CUDA_INCLUDE
  args[na++] = "-idirafter", args[na++] = PAC_CUDA_INCLUDE;
#endif
  ppc_options po = {.cpp = opt->no_cpp ? NULL : opt->cpp, .args = args, .nargs = na,
                    .defs = defs, .ndefs = nd, .load = load_pc_include, .env = t};
  int rc = ppc_run(&t->src, &t->dg, &po, r);
  free(args);
  for (int i = 0; i < nd; i++) free(owned[i]);
  free(owned);
  free(defs);
  lw *w = &t->w;
  w->in.pc.inc = malloc(sizeof *w->in.pc.inc * (size_t)(r->includes.n + 1));
  for (int i = 0; i < r->includes.n; i++)
    w->in.pc.inc[i] = (struct pcinc){r->includes.v[i].at, r->includes.v[i].seg, r->includes.v[i].first};
  w->in.pc.ninc = r->includes.n;
  return rc;
}

/* The file's preprocessor lines, for learning the headers: all but
 * #pragma and the #include of .pc files (pac reads those itself). */
static void collect_pp(srcfile *f, const parse_notes *notes, sbuf *out) {
  for (int k = 0; k < notes->pplines.n; k++) {
    loc l = notes->pplines.v[k];
    const char *s = f->text + l.b;
    size_t n = l.e - l.b;
    const char *p = s + 1;
    while (*p == ' ' || *p == '\t') p++;
    const char *nm;
    size_t nml;
    bool ang;
    if (strncmp(p, "pragma", 6) != 0 && !ppc_pc_include_name(s, n, &nm, &nml, &ang)) {
      sb_write(out, s, n);
      sb_putc(out, '\n');
    }
  }
}

/* The headers in the rule the preprocessor wrote (-MD -MF PATH -MT x):
 * every prerequisite but the first, the temporary file it was given. They
 * stay quoted as the preprocessor quoted them for make. */
static void read_cpp_deps(tstate *t, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  sbuf all;
  sb_init(&all);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_write(&all, buf, n);
  fclose(f);
  const char *p = all.s ? strchr(all.s, ':') : NULL;
  for (int k = 0; p && *++p;) {
    if (*p == ' ' || *p == '\t' || *p == '\n' || (*p == '\\' && p[1] == '\n')) continue;
    const char *b = p;
    while (p[0] && p[0] != ' ' && p[0] != '\t' && p[0] != '\n' && !(p[0] == '\\' && p[1] == '\n'))
      p += p[0] == '\\' && p[1] ? 2 : 1;
    if (k++ > 0) sb_write(&t->hdrdeps, b, (size_t)(p - b)), sb_putc(&t->hdrdeps, '\n');
    p--;
  }
  sb_free(&all);
}

/* Without the preprocessor's view of the headers: the -D / -U options, then
 * the file's own #defines, as C orders them. */
static void learn_own_defines(tstate *t, const sbuf *pp) {
  const pac_options *opt = &t->opt;
  const char *v;
  for (int i = 0; i < opt->ncpp_args; i++) {
    int k = define_option(opt, &i, &v);
    if (!k) continue;
    bool d = k == 'D';
    const char *eq = strchr(v, '=');
    char *line = arena_printf(&t->ar, "#%s %.*s %s", d ? "define" : "undef", (int)(eq ? eq - v : (long)strlen(v)), v,
                              d ? (eq ? eq + 1 : "1") : "");
    hdr_add_define(&t->hdr, line, strlen(line));
  }
  const char *p = pp->s ? pp->s : "";
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    hdr_add_define(&t->hdr, p, n);
    p += n + (e ? 1 : 0);
  }
}

/* Learn the type names and macros of the #include'd headers by running the
 * preprocessor over the file's preprocessor lines; with --no-cpp, or when
 * the preprocessor fails, only the -D options and the file's own #defines. */
static void learn_headers(tstate *t, const sbuf *pp) {
  const pac_options *opt = &t->opt;
  if (opt->no_cpp) {
    learn_own_defines(t, pp);
    return;
  }
  sbuf in;
  sb_init(&in);
  if (t->target == TARGET_CUDA) sb_puts(&in, "#include <cuda_runtime.h>\n");
  sb_write(&in, pp->s ? pp->s : "", pp->len);
  const char *args[1024];
  int na = 0;
  char *dir = strdup(opt->input);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  args[na++] = "-iquote";
  args[na++] = slash ? dir : ".";
#ifdef PAC_CUDA_INCLUDE
  if (t->target == TARGET_CUDA) args[na++] = "-I" PAC_CUDA_INCLUDE;
#endif
  for (int i = 0; i < opt->ncpp_args && na < 1000; i++) args[na++] = opt->cpp_args[i];
  char *deptmp = t->io->deps ? cpp_temp_name("pac-dep", "") : NULL;
  int dfd = deptmp ? mkstemp(deptmp) : -1;
  if (dfd >= 0) {
    close(dfd);
    args[na++] = t->io->deps->system ? "-MD" : "-MMD";
    args[na++] = "-MF", args[na++] = deptmp, args[na++] = "-MT", args[na++] = "x";
  }
  char err[512];
  if (hdr_learn(&t->hdr, opt->cpp, args, na, in.s ? in.s : "", err, sizeof err)) {
    diag_plain_warning(&t->dg, "could not read the #include'd headers (%s); type names they declare are "
                               "unknown (use --typedef NAME)", err);
    learn_own_defines(t, pp);
  } else if (dfd >= 0)
    read_cpp_deps(t, deptmp);
  if (dfd >= 0) unlink(deptmp);
  free(deptmp);
  free(dir);
  sb_free(&in);
}

/* Read the source: the file, or the text the caller gave. */
static int load_source(tstate *t) {
  const pac_io *io = t->io;
  if (io->text) {
    if (io->len > UINT32_MAX - 2) {
      fprintf(t->err, "pac: error: '%s' is larger than 4 GiB\n", t->opt.input);
      return -1;
    }
    src_from_string(&t->src, t->opt.input, io->text, (uint32_t)io->len);
    return 0;
  }
  char err[512];
  if (src_load(&t->src, t->opt.input, err, sizeof err)) {
    fprintf(t->err, "pac: error: %s\n", err);
    return -1;
  }
  return 0;
}

/* Parse every segment and learn the headers. Returns nonzero on errors. */
static int parse_all(tstate *t) {
  lw *w = &t->w;
  ppc_result groups;
  /* a missing include is reported but does not stop the translation; an
   * unbalanced or wrong #if stops it before the headers are read */
  int rc = decide_groups(t, &groups);
  w->in.pc.seg_items = arena_alloc(&t->ar, sizeof *w->in.pc.seg_items * (size_t)t->src.nsegs);
  parse_notes notes = {.dead = groups.dead.v, .ndead = groups.dead.n};
  for (int k = 0; k < t->src.nsegs; k++)
    rc |= parse_range(&t->src, t->src.segs[k].base, t->src.segs[k].len, &t->dg, &t->ar, false, &w->in.pc.seg_items[k],
                      &notes);
  hdr_init(&t->hdr, &t->ar);
  sbuf pp;
  sb_init(&pp);
  collect_pp(&t->src, &notes, &pp);
  vec_free(notes.pplines);
  ppc_result_free(&groups);
  t->target = t->opt.target != TARGET_AUTO ? t->opt.target : notes.cuda ? TARGET_CUDA : TARGET_C;
  if (!rc) learn_headers(t, &pp);
  sb_free(&pp);
  for (int i = 0; i < t->opt.ntypedefs; i++)
    strmap_put(&t->hdr.typedefs, t->opt.typedefs[i], strlen(t->opt.typedefs[i]), (void *)1);
  return rc;
}

/* Set up the lowering's state and lower the main file. */
static int lower_all(tstate *t) {
  lw *w = &t->w;
  w->in.src = &t->src, w->in.dg = &t->dg, w->in.ar = &t->ar, w->in.hdr = &t->hdr, w->tg.kind = t->target;
  w->tg.ranges = !t->opt.no_nvtx;
  w->print.observe = t->io->observe, w->print.observe_env = t->io->observe_env;
  w->ins.max_depth = t->opt.max_insert_depth > 0 ? t->opt.max_insert_depth : PAC_MAX_INSERT_DEPTH;
  w->ins.max_bytes = t->opt.max_insert_bytes > 0 ? t->opt.max_insert_bytes : PAC_MAX_INSERT_BYTES;
  ex_init(&w->ex, &t->ar);
  w->cx = (cxenv){.ex = &w->ex, .ar = &t->ar, .prog = lw_semaprog(w)};
  w->ty = (tyctx){.ar = &t->ar, .ex = &w->ex, .dg = &t->dg, .src = &t->src, .prog = lw_semaprog(w)};
  sc_init(&w->sc, &t->ar);
  pr_init(&w->pr, &t->src, t->opt.lines);
  strmap_init(&w->all_types);
  items file = w->in.pc.seg_items[0];
  return lw_file(w, &file);
}

static void write_sbuf(FILE *f, const void *ctx);

/* --layout TYPE --svg FILE: the picture, written atomically to FILE only. */
static int write_svg(tstate *t, ptype *ty, dnode *n, sbuf *out) {
  char err[1024];
  int status = 0;
  if (layout_svg(&t->w.ty, ty, n, out, err, sizeof err)) {
    fprintf(t->err, "pac: error: %s\n", err);
    status = 1;
  } else if (out_write_file(t->opt.svg, t->opt.input, write_sbuf, out, err, sizeof err)) {
    fprintf(t->err, "pac: error: %s\n", err);
    status = 1;
  }
  sb_free(out);
  return status;
}

/* --layout TYPE[_k_k...]: the dimension tree and offsets of a type or of a
 * node inside it. */
static int print_layout(tstate *t) {
  const char *want = t->opt.layout;
  ptype *ty = NULL;
  size_t bl = strlen(want);
  /* strip _digits groups to find the type, then walk the path */
  dnode *n = NULL;
  for (;;) {
    ty = strmap_get(&t->w.all_types, want, bl);
    if (ty) break;
    size_t i = bl;
    while (i > 0 && want[i - 1] >= '0' && want[i - 1] <= '9') i--;
    if (i == bl || i < 2 || want[i - 1] != '_') break;
    bl = i - 1;
  }
  if (ty) {
    n = ty->root;
    const char *p = want + bl;
    while (n && *p == '_') {
      const char *ds = ++p;
      while (*p >= '0' && *p <= '9') p++;
      int k = ty_path_index(ds, (size_t)(p - ds)); /* INT_MAX when too large: past the tree */
      n = k < n->nkids ? n->kids[k] : NULL;
    }
  }
  if (!n) {
    fprintf(t->err, "pac: error: no array type '%s' in %s\n", want, t->opt.input);
    return 1;
  }
  sbuf out;
  sb_init(&out);
  if (t->opt.svg) return write_svg(t, ty, n, &out);
  ty_print_layout(&t->w.ty, ty, n, &out);
  FILE *f = t->io->out ? t->io->out : stdout;
  fputs(out.s ? out.s : "", f);
  sb_free(&out);
  if (fflush(f) != 0 || ferror(f)) { /* a full disk, /dev/full, a closed pipe */
    fprintf(t->err, "pac: error: cannot write the layout: %s\n", strerror(errno));
    return 1;
  }
  return 0;
}

/* What goes into the output file: the prologue, the printer's text and the
 * epilogue, written straight to the file (no copy of the whole output). */
typedef struct output {
  printer *pr;
  uint32_t end;
  const char *prologue;
  const sbuf *epilogue;
} output;

static void write_output(FILE *f, const void *ctx) {
  const output *o = ctx;
  pr_finish(o->pr, o->end, f, o->prologue);
  if (o->epilogue->len) fwrite(o->epilogue->s, 1, o->epilogue->len, f);
}

/* The output's name (malloc'd): -o's, or FILE.c / FILE.cu beside FILE.pc. */
static char *out_name(const tstate *t) {
  if (t->opt.output) return strdup(t->opt.output);
  size_t n = strlen(t->opt.input);
  char *def = malloc(n + 4);
  memcpy(def, t->opt.input, n + 1);
  if (n > 3 && !strcmp(def + n - 3, ".pc")) def[n - 3] = 0;
  strcat(def, t->target == TARGET_CUDA ? ".cu" : ".c");
  return def;
}

/* A file name quoted for make: blanks and '#' get a backslash, '$' is doubled. */
static void dep_quote(sbuf *b, const char *s) {
  for (; *s; s++) {
    if (*s == ' ' || *s == '\t' || *s == '#') sb_putc(b, '\\');
    if (*s == '$') sb_putc(b, '$');
    sb_putc(b, *s);
  }
}

/* The rule "TARGET: FILE.pc INCLUDED.pc... HEADERS..." and, with -MP, an
 * empty rule for each prerequisite but the main file. */
static void dep_rule(const tstate *t, sbuf *b) {
  const pac_deps *d = t->io->deps;
  sbuf pre;
  sb_init(&pre);
  for (int k = 0; k < t->src.nsegs; k++) dep_quote(&pre, t->src.segs[k].name), sb_putc(&pre, '\n');
  if (t->hdrdeps.len) sb_write(&pre, t->hdrdeps.s, t->hdrdeps.len);
  if (d->target) {
    sb_puts(b, d->target);
  } else {
    char *o = out_name(t);
    dep_quote(b, o);
    free(o);
  }
  sb_putc(b, ':');
  const char *p = pre.s ? pre.s : "";
  for (const char *e; (e = strchr(p, '\n')); p = e + 1) {
    sb_puts(b, p == pre.s ? " " : " \\\n  ");
    sb_write(b, p, (size_t)(e - p));
  }
  sb_putc(b, '\n');
  p = pre.s ? strchr(pre.s, '\n') : NULL;
  for (const char *e; d->phony && p && (e = strchr(p + 1, '\n')); p = e) {
    sb_putc(b, '\n');
    sb_write(b, p + 1, (size_t)(e - p - 1));
    sb_puts(b, ":\n");
  }
  sb_free(&pre);
}

static void write_sbuf(FILE *f, const void *ctx) {
  const sbuf *b = ctx;
  if (b->len) fwrite(b->s, 1, b->len, f);
}

/* Write the dependency rule: to -MF's file, to stdout with -M/-MM, else to
 * OUT.d (the output's name with its suffix replaced; FILE.d with -o -).
 * Atomically. */
static char *deps_path(const tstate *t) {
  const pac_deps *d = t->io->deps;
  if (d->file) return strdup(d->file);
  if (d->only) return strdup("-");
  char *o = out_name(t);
  if (!strcmp(o, "-")) free(o), o = strdup(t->opt.input); /* -o -: FILE.d beside FILE.pc */
  char *dot = strrchr(o, '.'), *sl = strrchr(o, '/');
  if (dot && (!sl || dot > sl)) *dot = 0;
  char *path = malloc(strlen(o) + 3);
  sprintf(path, "%s.d", o);
  free(o);
  return path;
}

/* Two names of one file (the same name, or the same existing file). */
static bool same_file(const char *a, const char *b) {
  struct stat x, y;
  if (!strcmp(a, b)) return true;
  return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Before anything is written: an output name derived from an input that
 * is not a regular file (/dev/stdin, a pipe) would land in /dev or beside
 * the pipe; a dependency rule would not overwrite the translation, nor
 * fail on a folder after the translation was written; CUDA that pac chose
 * is not written to a .c name (the C compiler, and nvcc too, would compile
 * it as C), CUDA asked for with --emit=cuda is. */
static int check_outputs(tstate *t) {
  struct stat st;
  const char *o = t->opt.output;
  bool writes = !t->io->out && !t->opt.layout && !(t->io->deps && t->io->deps->only);
  if (writes && t->opt.target == TARGET_AUTO && t->target == TARGET_CUDA && o && strlen(o) > 2 &&
      !strcmp(o + strlen(o) - 2, ".c")) {
    fprintf(t->err, "pac: error: the translation is CUDA (the file uses dmem, smem, a cuda thread array or INIT_GPU), "
                    "but '%s' is a C file name, which cc and nvcc compile as C: name the output .cu (or give "
                    "--emit=cuda to write CUDA to it all the same)\n", o);
    return 1;
  }
  bool derived = !t->opt.output && !t->io->out && !t->opt.layout && !t->io->text && !(t->io->deps && t->io->deps->only);
  if (derived && (stat(t->opt.input, &st) != 0 || !S_ISREG(st.st_mode) || !strncmp(t->opt.input, "/dev/", 5))) {
    fprintf(t->err, "pac: error: '%s' is not a regular file, so no output name can be made from it: give -o\n",
            t->opt.input);
    return 1;
  }
  if (!t->io->deps || t->opt.layout || !strcmp(t->opt.output ? t->opt.output : "", "-")) return 0;
  char *dp = deps_path(t), *op = out_name(t);
  int status = 0;
  if (!t->io->deps->only && strcmp(dp, "-") && same_file(dp, op)) {
    fprintf(t->err, "pac: error: the dependency rule would be written over the translation '%s'\n", op);
    status = 1;
  } else if (strcmp(dp, "-") && stat(dp, &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(t->err, "pac: error: cannot write the dependency rule: '%s' is a folder\n", dp);
    status = 1;
  }
  free(dp), free(op);
  return status;
}

static int write_deps(tstate *t) {
  char *path = deps_path(t);
  sbuf b;
  sb_init(&b);
  dep_rule(t, &b);
  char err[1024];
  int status = 0;
  if (out_write_file(path, t->opt.input, write_sbuf, &b, err, sizeof err)) {
    fprintf(t->err, "pac: error: %s\n", err);
    status = 1;
  }
  sb_free(&b);
  free(path);
  return status;
}

/* Write the translation to io->out, -o's file, or FILE.c / FILE.cu. */
static int emit(tstate *t) {
  lw *w = &t->w;
  sbuf pro;
  sb_init(&pro);
  sb_printf(&pro, "/* Generated by pac %s from %s. Edit the .pc file, not this one. */\n", PAC_VERSION,
            t->opt.input);
  sb_printf(&pro, "/* pac: target=%s pthd=%d mpi=%d%s */\n", t->target == TARGET_CUDA ? "cuda" : "c",
            w->entry.uses_pthd, w->entry.uses_mpi, w->entry.uses_tma ? " sm=90" : "");
  if (t->io->needs)
    *t->io->needs = (pac_needs){.cuda = t->target == TARGET_CUDA, .pthd = w->entry.uses_pthd,
                                .mpi = w->entry.uses_mpi, .sm = w->entry.uses_tma ? 90 : 0};
  if (w->entry.uses_mpi) sb_puts(&pro, "#define PARRAY_USE_MPI 1\n");
  sb_puts(&pro, "#include \"parray.h\"\n");
  if (w->entry.uses_tma) sb_puts(&pro, "#include \"parray/tma.cuh\"\n");
  /* the main file; included ones were walked in place */
  output o = {.pr = &w->pr, .end = t->src.segs[0].len, .prologue = pro.s, .epilogue = &w->epilogue};
  int status = 0;
  if (t->io->out) {
    write_output(t->io->out, &o);
    status = fflush(t->io->out) || ferror(t->io->out);
    if (status) fprintf(t->err, "pac: error: cannot write the output: %s\n", strerror(errno));
  } else {
    char *def = out_name(t);
    const char *path = def;
    char err[1024];
    if (out_write_file(path, t->io->text ? NULL : t->opt.input, write_output, &o, err, sizeof err)) {
      fprintf(t->err, "pac: error: %s\n", err);
      status = 1;
    }
    free(def);
  }
  sb_free(&pro);
  return status;
}

static void free_state(tstate *t) {
  lw *w = &t->w;
  strmap_free(&w->all_types);
  sb_free(&w->epilogue);
  free(w->in.pc.inc);
  for (int i = 0; i < t->owned_names.n; i++) free(t->owned_names.v[i]);
  vec_free(t->owned_names);
  pr_free(&w->pr);
  sc_free(&w->sc);
  ex_fini(&w->ex);
  hdr_free(&t->hdr);
  arena_free(&w->scratch);
  arena_free(&t->ar);
  src_free(&t->src);
  sb_free(&t->hdrdeps);
}

int pac_translate(const pac_options *opt, const pac_io *io) {
  tstate *t = calloc(1, sizeof *t);
  if (!t) {
    fprintf(io->err ? io->err : stderr, "pac: error: out of memory\n");
    return 1;
  }
  t->opt = *opt, t->io = io, t->err = io->err ? io->err : stderr;
  if (load_source(t)) {
    free(t);
    return 1;
  }
  diag_init(&t->dg, &t->src, t->err);
  t->dg.no_warnings = io->no_warnings;
  arena_init(&t->ar);
  sb_init(&t->hdrdeps);
  const pac_deps *deps = t->opt.layout ? NULL : io->deps;
  int rc = parse_all(t);
  if (!rc) rc = lower_all(t); /* with -M too: a file with errors gets no rule */
  int status = 1;
  if (!rc && !t->dg.errors && io->werror && t->dg.warnings)
    fprintf(t->err, "pac: error: warnings are errors (-Werror); nothing written\n");
  else if (!rc && !t->dg.errors && !(status = check_outputs(t)))
    status = t->opt.layout ? print_layout(t) : deps && deps->only ? write_deps(t) : emit(t);
  if (!status && deps && !deps->only) status = write_deps(t);
  free_state(t);
  free(t);
  return status;
}
