/* pac.c - the translator's command line: reads a .pc file, learns what its
 * headers declare, lowers it to C or CUDA and writes the result atomically
 * (nothing is left behind when there are errors). Also `pac --layout`. */
#define _DEFAULT_SOURCE 1 /* realpath, readlink */
#include "lower.h"
#include "parse.h"

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

static void usage(FILE *f) {
  fprintf(f,
          "usage: pac [options] FILE.pc\n"
          "  -o FILE          write the translation to FILE (default FILE.c or FILE.cu; '-' for stdout)\n"
          "  --emit=c|cuda    choose the target (default: cuda when the file uses GPU types)\n"
          "  --no-line        omit #line markers\n"
          "  --layout TYPE    print the dimension tree and offsets of TYPE, then exit\n"
          "  -I DIR, -D NAME[=VAL], -U NAME\n"
          "                   passed to the preprocessor that reads the #include'd headers\n"
          "  --typedef NAME   treat NAME as a type name\n"
          "  --cpp CMD        preprocessor command (default: \"cc -E\")\n"
          "  --no-cpp         do not run the preprocessor\n"
          "  --version\n");
}

/* "#include "x.pc"" or "#include <x.pc>": the name (without delimiters) */
static bool pc_include_name(const char *s, size_t n, const char **name, size_t *nl, bool *angle) {
  const char *p = s, *e = s + n;
  while (p < e && (*p == ' ' || *p == '\t')) p++;
  if (p == e || *p != '#') return false;
  p++;
  while (p < e && (*p == ' ' || *p == '\t')) p++;
  if (e - p < 7 || strncmp(p, "include", 7) != 0) return false;
  p += 7;
  while (p < e && (*p == ' ' || *p == '\t')) p++;
  if (p == e || (*p != '"' && *p != '<')) return false;
  char close = *p == '"' ? '"' : '>';
  *angle = *p == '<';
  const char *b = ++p;
  while (p < e && *p != close && *p != '\n') p++;
  if (p == e || *p != close || p - b < 4 || strncmp(p - 3, ".pc", 3) != 0) return false;
  *name = b, *nl = (size_t)(p - b);
  return true;
}

/* Find "#include "x.pc"" lines in every segment (included files too), load
 * each file once as a new segment of the source. */
static void load_pc_includes(srcfile *src, pac_options *opt, diag *dg, lw *w, const char *selfinc) {
  VEC(struct pcinc) v = {0};
  for (int sg = 0; sg < src->nsegs; sg++) {
    uint32_t off = src->segs[sg].base, end = src->segs[sg].base + src->segs[sg].len;
    while (off < end) {
      const char *nlp = memchr(src->text + off, '\n', end - off);
      uint32_t le = nlp ? (uint32_t)(nlp - src->text) : end;
      const char *name;
      size_t nl;
      bool angle;
      if (pc_include_name(src->text + off, le - off, &name, &nl, &angle)) {
        char want[4096], found[8400] = "";
        snprintf(want, sizeof want, "%.*s", (int)nl, name);
        /* "x.pc": the including file's folder first; then -I folders; then pac's own */
        const char *dirs[256];
        int nd = 0;
        char here[4096];
        snprintf(here, sizeof here, "%s", src->segs[sg].name);
        char *slash = strrchr(here, '/');
        if (slash) *slash = 0;
        else strcpy(here, ".");
        if (!angle) dirs[nd++] = here;
        for (int i = 0; i < opt->ncpp_args && nd < 250; i++) {
          const char *a = opt->cpp_args[i];
          if (!strcmp(a, "-I") && i + 1 < opt->ncpp_args) dirs[nd++] = opt->cpp_args[++i];
          else if (!strncmp(a, "-I", 2) && a[2]) dirs[nd++] = a + 2;
        }
        if (selfinc) dirs[nd++] = selfinc;
        for (int d = 0; d < nd && !found[0]; d++) {
          char cand[8192];
          if (!strcmp(dirs[d], ".")) snprintf(cand, sizeof cand, "%s", want); /* no "./" in messages */
          else snprintf(cand, sizeof cand, "%s/%s", dirs[d], want);
          if (access(cand, R_OK) == 0) snprintf(found, sizeof found, "%s", cand);
        }
        if (!found[0]) {
          diag_error(dg, (loc){off, le}, "cannot find the Parray file '%s'", want);
        } else {
          char canon[sizeof found > PATH_MAX ? sizeof found : PATH_MAX];
          if (!realpath(found, canon)) memcpy(canon, found, sizeof found);
          int seg = -1;
          for (int k = 1; k < src->nsegs && seg < 0; k++) {
            char c2[PATH_MAX];
            if (realpath(src->segs[k].name, c2) && !strcmp(c2, canon)) seg = k;
          }
          bool first = seg < 0;
          if (first) {
            char err[512];
            char *keep = strdup(found);
            seg = src_append_file(src, keep, err, sizeof err);
            if (seg < 0) {
              diag_error(dg, (loc){off, le}, "%s", err);
              free(keep);
            } else {
              vec_push(w->owned_names, keep);
            }
          }
          if (seg >= 0) vec_push(v, ((struct pcinc){off, seg, first}));
        }
      }
      off = le + 1;
    }
  }
  w->pcinc = v.v, w->npcinc = v.n;
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
    if (strncmp(p, "pragma", 6) != 0 && !pc_include_name(s, n, &nm, &nml, &ang)) {
      sb_write(out, s, n);
      sb_putc(out, '\n');
    }
  }
}

/* What goes into the output file: the prologue, the printer's text and the
 * epilogue, written straight to the file (no copy of the whole output). */
typedef struct output {
  printer *pr;
  uint32_t end;
  const char *prologue;
  const sbuf *epilogue;
} output;

static void write_output(FILE *f, const output *o) {
  pr_finish(o->pr, o->end, f, o->prologue);
  if (o->epilogue->len) fwrite(o->epilogue->s, 1, o->epilogue->len, f);
}

/* Write to a temporary file beside path and rename it into place, so that a
 * failed write leaves nothing half-written. */
static int write_atomically(const char *path, const output *o, char *err, size_t errlen) {
  if (!strcmp(path, "-")) {
    write_output(stdout, o);
    return fflush(stdout) || ferror(stdout) ? -1 : 0;
  }
  size_t pl = strlen(path);
  char *tmp = malloc(pl + 16);
  snprintf(tmp, pl + 16, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errlen, "cannot create '%s': %s", tmp, strerror(errno));
    free(tmp);
    return -1;
  }
  mode_t um = umask(0);
  umask(um);
  fchmod(fd, 0666 & ~um);
  FILE *f = fdopen(fd, "wb");
  bool ok = f != NULL;
  if (ok) {
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    write_output(f, o);
    ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
  } else {
    close(fd);
  }
  if (!ok || rename(tmp, path) != 0) {
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    unlink(tmp);
    free(tmp);
    return -1;
  }
  free(tmp);
  return 0;
}

int main(int argc, char **argv) {
  pac_options opt = {.target = TARGET_AUTO, .lines = true, .cpp = getenv("PAC_CPP") ? getenv("PAC_CPP") : "cc -E"};
  const char **cpp_args = calloc((size_t)argc * 2 + 8, sizeof *cpp_args);
  const char **tds = calloc((size_t)argc + 1, sizeof *tds);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-o") && i + 1 < argc) opt.output = argv[++i];
    else if (!strncmp(a, "-o", 2) && a[2]) opt.output = a + 2;
    else if (!strcmp(a, "--emit=c")) opt.target = TARGET_C;
    else if (!strcmp(a, "--emit=cuda")) opt.target = TARGET_CUDA;
    else if (!strcmp(a, "--no-line")) opt.lines = false;
    else if (!strcmp(a, "--layout") && i + 1 < argc) opt.layout = argv[++i];
    else if (!strcmp(a, "--typedef") && i + 1 < argc) tds[opt.ntypedefs++] = argv[++i];
    else if (!strcmp(a, "--cpp") && i + 1 < argc) opt.cpp = argv[++i];
    else if (!strcmp(a, "--no-cpp")) opt.no_cpp = true;
    else if ((!strcmp(a, "-I") || !strcmp(a, "-D") || !strcmp(a, "-U")) && i + 1 < argc) {
      cpp_args[opt.ncpp_args++] = a;
      cpp_args[opt.ncpp_args++] = argv[++i];
    } else if (!strncmp(a, "-I", 2) || !strncmp(a, "-D", 2) || !strncmp(a, "-U", 2)) {
      cpp_args[opt.ncpp_args++] = a;
    } else if (!strcmp(a, "--version")) {
      printf("pac %s\n", PAC_VERSION);
      return 0;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "pac: error: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (!opt.input) {
      opt.input = a;
    } else {
      fprintf(stderr, "pac: error: more than one input file ('%s' and '%s')\n", opt.input, a);
      return 2;
    }
  }
  if (!opt.input) {
    usage(stderr);
    return 2;
  }
  opt.cpp_args = cpp_args, opt.typedefs = tds;

  srcfile src;
  char err[512];
  if (src_load(&src, opt.input, err, sizeof err)) {
    fprintf(stderr, "pac: error: %s\n", err);
    return 1;
  }
  diag dg;
  diag_init(&dg, &src, stderr);
  arena ar;
  arena_init(&ar);
  lw w = {0};
  /* pac's own include folder (bin/../include) holds the shipped .pc libraries */
  char selfinc[PATH_MAX] = "";
  ssize_t sl = readlink("/proc/self/exe", selfinc, sizeof selfinc - 20);
  if (sl > 0) {
    selfinc[sl] = 0;
    char *sl2 = strrchr(selfinc, '/');
    if (sl2) strcpy(sl2, "/../include");
  }
  load_pc_includes(&src, &opt, &dg, &w, selfinc[0] ? selfinc : NULL);
  items file;
  w.seg_items = arena_alloc(&ar, sizeof *w.seg_items * (size_t)src.nsegs);
  int rc = 0; /* a missing include is reported but does not stop the translation */
  parse_notes notes = {0};
  for (int k = 0; k < src.nsegs; k++)
    rc |= parse_range(&src, src.segs[k].base, src.segs[k].len, &dg, &ar, false, &w.seg_items[k], &notes);
  file = w.seg_items[0];

  hdrinfo hdr;
  hdr_init(&hdr, &ar);
  bool cuda_types = notes.cuda;
  sbuf pp;
  sb_init(&pp);
  collect_pp(&src, &notes, &pp);
  vec_free(notes.pplines);
  int target = opt.target != TARGET_AUTO ? opt.target : cuda_types ? TARGET_CUDA : TARGET_C;
  if (!rc && !opt.no_cpp) {
    sbuf in;
    sb_init(&in);
    if (target == TARGET_CUDA) sb_puts(&in, "#include <cuda_runtime.h>\n");
    sb_write(&in, pp.s ? pp.s : "", pp.len);
    const char *args[1024];
    int na = 0;
    char *dir = strdup(opt.input);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    args[na++] = "-iquote";
    args[na++] = slash ? dir : ".";
#ifdef PAC_CUDA_INCLUDE
    if (target == TARGET_CUDA) args[na++] = "-I" PAC_CUDA_INCLUDE;
#endif
    for (int i = 0; i < opt.ncpp_args && na < 1000; i++) args[na++] = opt.cpp_args[i];
    if (hdr_learn(&hdr, opt.cpp, args, na, in.s ? in.s : "", err, sizeof err))
      fprintf(stderr, "pac: warning: could not read the #include'd headers (%s); type names they declare are "
                      "unknown (use --typedef NAME)\n", err);
    free(dir);
    sb_free(&in);
  } else if (!rc) {
    /* at least the file's own macros */
    const char *p = pp.s ? pp.s : "";
    while (*p) {
      const char *e = strchr(p, '\n');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      hdr_add_define(&hdr, p, n);
      p += n + (e ? 1 : 0);
    }
  }
  sb_free(&pp);
  for (int i = 0; i < opt.ntypedefs; i++) strmap_put(&hdr.typedefs, opt.typedefs[i], strlen(opt.typedefs[i]), (void *)1);

  w.opt = &opt, w.src = &src, w.dg = &dg, w.ar = &ar, w.hdr = &hdr, w.target = target;
  ex_init(&w.ex, &ar);
  w.cx = (cxenv){.ex = &w.ex, .ar = &ar, .macro = NULL, .env = &w};
  w.ty = (tyctx){.ar = &ar, .ex = &w.ex, .dg = &dg, .src = &src, .eval_size = NULL, .env = &w};
  sc_init(&w.sc, &ar);
  pr_init(&w.pr, &src, opt.lines);
  extern ex *lw_eval_size_cb(void *env, items *expr, loc where, const char *what);
  extern const char *lw_macro_cb(void *env, const char *name, size_t len, bool *funclike);
  w.ty.eval_size = lw_eval_size_cb;
  w.cx.macro = lw_macro_cb;
  strmap_init(&w.all_types);
  if (!rc) rc = lower_file(&w, &file);

  int status = 0;
  if (rc || dg.errors) {
    status = 1;
  } else if (opt.layout) {
    ptype *t = NULL;
    size_t ln = strlen(opt.layout);
    size_t bl = ln;
    /* strip _digits groups to find the type, then walk the path */
    dnode *n = NULL;
    for (;;) {
      t = strmap_get(&w.all_types, opt.layout, bl);
      if (t) break;
      size_t i = bl;
      while (i > 0 && opt.layout[i - 1] >= '0' && opt.layout[i - 1] <= '9') i--;
      if (i == bl || i < 2 || opt.layout[i - 1] != '_') break;
      bl = i - 1;
    }
    if (t) {
      n = t->root;
      const char *p = opt.layout + bl;
      while (n && *p == '_') {
        const char *ds = ++p;
        while (*p >= '0' && *p <= '9') p++;
        int k = ty_path_index(ds, (size_t)(p - ds)); /* INT_MAX when too large: past the tree */
        n = k < n->nkids ? n->kids[k] : NULL;
      }
    }
    if (!n) {
      fprintf(stderr, "pac: error: no array type '%s' in %s\n", opt.layout, opt.input);
      status = 1;
    } else {
      sbuf out;
      sb_init(&out);
      ty_print_layout(&w.ty, t, n, &out);
      fputs(out.s ? out.s : "", stdout);
      sb_free(&out);
    }
  } else {
    sbuf pro;
    sb_init(&pro);
    sb_printf(&pro, "/* Generated by pac %s from %s. Edit the .pc file, not this one. */\n", PAC_VERSION, opt.input);
    sb_printf(&pro, "/* pac: target=%s pthd=%d mpi=%d */\n", target == TARGET_CUDA ? "cuda" : "c", w.uses_pthd,
              w.uses_mpi);
    if (w.uses_mpi) sb_puts(&pro, "#define PARRAY_USE_MPI 1\n");
    sb_puts(&pro, "#include \"parray.h\"\n");
    /* the main file; included ones were walked in place */
    output o = {.pr = &w.pr, .end = src.segs[0].len, .prologue = pro.s, .epilogue = &w.epilogue};
    const char *path = opt.output;
    char *def = NULL;
    if (!path) {
      size_t n = strlen(opt.input);
      def = malloc(n + 4);
      memcpy(def, opt.input, n + 1);
      if (n > 3 && !strcmp(def + n - 3, ".pc")) def[n - 3] = 0;
      strcat(def, target == TARGET_CUDA ? ".cu" : ".c");
      path = def;
    }
    if (write_atomically(path, &o, err, sizeof err)) {
      fprintf(stderr, "pac: error: %s\n", err);
      status = 1;
    }
    free(def);
    sb_free(&pro);
  }
  strmap_free(&w.all_types);
  sb_free(&w.epilogue);
  free(w.pcinc);
  for (int i = 0; i < w.owned_names.n; i++) free(w.owned_names.v[i]);
  vec_free(w.owned_names);
  pr_free(&w.pr);
  sc_free(&w.sc);
  ex_fini(&w.ex);
  hdr_free(&hdr);
  arena_free(&w.scratch);
  arena_free(&ar);
  src_free(&src);
  free(cpp_args);
  free(tds);
  return status;
}
