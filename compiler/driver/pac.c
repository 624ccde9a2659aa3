/* SPDX-License-Identifier: Apache-2.0 */
/* pac.c - the translator's command line: reads the options and hands the
 * translation to pac_translate (translate.c). */
#define _DEFAULT_SOURCE 1 /* readlink */
#include "lsp.h"
#include "translate.h"

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
/* the installed tree's include folder relative to its prefix (or absolute),
 * and the prefix relative to bin (GNUInstallDirs, cmake/ParrayInstall.cmake) */
#ifndef PARRAY_INCLUDEDIR
#define PARRAY_INCLUDEDIR "include"
#endif
#ifndef PARRAY_BIN_TO_PREFIX
#define PARRAY_BIN_TO_PREFIX ".."
#endif

static void usage(FILE *f) {
  fprintf(f,
          "usage: pac [options] FILE.pc\n"
          "  -o FILE          write the translation to FILE (default FILE.c or FILE.cu; '-' for stdout)\n"
          "  --emit=c|cuda    choose the target (default: cuda when the file uses GPU types)\n"
          "  --no-line        omit #line markers\n"
          "  --no-nvtx        no NVTX profiler ranges around directives (CUDA programs have them)\n"
          "  --layout TYPE    print the dimension tree and offsets of TYPE, then exit\n"
          "  --svg FILE       with --layout: draw TYPE's offsets as an SVG picture in FILE instead\n"
          "  --lsp            serve the Language Server Protocol on stdin/stdout (no FILE)\n"
          "  -I DIR, -D NAME[=VAL], -U NAME, -isystem DIR, -include FILE\n"
          "                   passed to the preprocessor that reads the #include'd headers\n"
          "  --typedef NAME   treat NAME as a type name\n"
          "  --cpp CMD        preprocessor command (default: \"cc -E\")\n"
          "  --no-cpp         do not run the preprocessor\n"
          "  --max-insert-depth=N, --max-insert-bytes=N   limits of #insert expansion (100 deep, 64 MiB)\n"
          "  -MD, -MMD        also write a make rule of the files read (-MMD: without system headers)\n"
          "  -M, -MM          print that rule to stdout (or -MF's file) and translate nothing\n"
          "  -MF FILE         write the rule to FILE (default OUT.d, OUT's suffix replaced)\n"
          "  -MT TARGET       the rule's target (default OUT); -MQ TARGET: the same, quoted for make\n"
          "  -MP              add an empty rule for each prerequisite but the main file\n"
          "  --needs=FILE     also write what the translation needs (target, threads, MPI, GPU\n"
          "                   architecture) to FILE, as one line: parray-needs 1 target=c pthd ...\n"
          "  -Werror          treat warnings as errors (nothing is written)\n"
          "  -w               no warnings\n"
          "  --version\n");
}

/* -MQ's target: '$' doubled, blanks and '#' escaped, as make reads them */
static char *make_quote(const char *s) {
  char *q = malloc(strlen(s) * 2 + 1), *o = q;
  for (; *s; s++) {
    if (*s == ' ' || *s == '\t' || *s == '#') *o++ = '\\';
    if (*s == '$') *o++ = '$';
    *o++ = *s;
  }
  *o = 0;
  return q;
}

/* The dependency options; returns 1 when argv[*i] was one (consuming its
 * value), -1 when its value is missing, 0 when it is another option. */
static int dep_option(int argc, char **argv, int *i, pac_deps *d, bool *want, char **quoted) {
  const char *a = argv[*i];
  if (!strcmp(a, "-M") || !strcmp(a, "-MM")) d->only = true, d->system = !a[2];
  else if (!strcmp(a, "-MD") || !strcmp(a, "-MMD")) d->system = a[2] == 'D';
  else if (!strcmp(a, "-MP")) d->phony = true;
  else if (!strcmp(a, "-MF") || !strcmp(a, "-MT") || !strcmp(a, "-MQ")) {
    if (*i + 1 >= argc) return -1;
    const char *v = argv[++*i];
    if (a[2] == 'F') d->file = v;
    else if (a[2] == 'T') d->target = v;
    else free(*quoted), d->target = *quoted = make_quote(v);
    return 1;
  } else return 0;
  if (a[2] != 'P') *want = true;
  return 1;
}

/* The command line, as read. */
typedef struct cmdline {
  pac_options opt;
  pac_deps deps;
  bool want_deps, werror, nowarn, lsp;
  char *quoted; /* -MQ's target, quoted */
  const char *needs_file; /* --needs=FILE */
} cmdline;

/* One argument (and its value); returns -1 to go on, else the status to
 * exit with (0 after --help and --version). */
static int parse_one(cmdline *c, int argc, char **argv, int *i, const char **cpp_args, const char **tds) {
  pac_options *opt = &c->opt;
  const char *a = argv[*i];
  int dk = !strncmp(a, "-M", 2) ? dep_option(argc, argv, i, &c->deps, &c->want_deps, &c->quoted) : 0;
  if (dk < 0) {
    fprintf(stderr, "pac: error: missing argument to '%s'\n", a);
    return 2;
  }
  if (dk) return -1;
  if (!strcmp(a, "-Werror")) c->werror = true;
  else if (!strcmp(a, "-w")) c->nowarn = true;
  else if (!strcmp(a, "-o") && *i + 1 < argc) opt->output = argv[++*i];
  else if (!strncmp(a, "-o", 2) && a[2]) opt->output = a + 2;
  else if (!strcmp(a, "--emit=c")) opt->target = TARGET_C;
  else if (!strcmp(a, "--emit=cuda")) opt->target = TARGET_CUDA;
  else if (!strcmp(a, "--no-line")) opt->lines = false;
  else if (!strcmp(a, "--no-nvtx")) opt->no_nvtx = true;
  else if (!strcmp(a, "--lsp")) c->lsp = true;
  else if (!strcmp(a, "--layout") && *i + 1 < argc) opt->layout = argv[++*i];
  else if (!strcmp(a, "--svg") && *i + 1 < argc) opt->svg = argv[++*i];
  else if (!strcmp(a, "--typedef") && *i + 1 < argc) tds[opt->ntypedefs++] = argv[++*i];
  else if (!strcmp(a, "--cpp") && *i + 1 < argc) opt->cpp = argv[++*i];
  else if (!strcmp(a, "--no-cpp")) opt->no_cpp = true;
  else if (!strncmp(a, "--needs=", 8) && a[8]) c->needs_file = a + 8;
  else if (!strncmp(a, "--max-insert-depth=", 19) || !strncmp(a, "--max-insert-bytes=", 19)) {
    char *end;
    long long v = strtoll(a + 19, &end, 10);
    if (*end || v <= 0 || end == a + 19) {
      fprintf(stderr, "pac: error: %.18s needs a positive number, not '%s'\n", a, a + 19);
      return 2;
    }
    if (a[13] == 'd') opt->max_insert_depth = v;
    else opt->max_insert_bytes = v;
  }
  else if ((!strcmp(a, "-I") || !strcmp(a, "-D") || !strcmp(a, "-U") || !strcmp(a, "-isystem") ||
            !strcmp(a, "-include")) && *i + 1 < argc) {
    cpp_args[opt->ncpp_args++] = a;
    cpp_args[opt->ncpp_args++] = argv[++*i];
  } else if (!strncmp(a, "-I", 2) || !strncmp(a, "-D", 2) || !strncmp(a, "-U", 2)) {
    cpp_args[opt->ncpp_args++] = a;
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
  } else if (!opt->input) {
    opt->input = a;
  } else {
    fprintf(stderr, "pac: error: more than one input file ('%s' and '%s')\n", opt->input, a);
    return 2;
  }
  return -1;
}

/* Read the command line into c; returns -1 to go on, else the exit status. */
static int parse_args(cmdline *c, int argc, char **argv, const char **cpp_args, const char **tds) {
  for (int i = 1; i < argc; i++) {
    int rc = parse_one(c, argc, argv, &i, cpp_args, tds);
    if (rc >= 0) return rc;
  }
  if (c->lsp && c->opt.input) {
    fprintf(stderr, "pac: error: --lsp reads its documents from the client, not '%s'\n", c->opt.input);
    return 2;
  }
  if (c->opt.svg && !c->opt.layout) {
    fprintf(stderr, "pac: error: --svg FILE draws a type: give it with --layout TYPE\n");
    return 2;
  }
  if (!c->opt.input && !c->lsp) {
    usage(stderr);
    return 2;
  }
  c->opt.cpp_args = cpp_args, c->opt.typedefs = tds;
  return -1;
}

/* --needs=FILE: the record of what the translation needs (needs.h) */
static int write_needs(const char *file, const pac_needs *n) {
  char rec[128];
  pac_needs_format(n, rec, sizeof rec);
  FILE *f = fopen(file, "w");
  bool ok = f && fprintf(f, "%s\n", rec) > 0;
  if (f && fclose(f)) ok = false;
  if (!ok) fprintf(stderr, "pac: error: cannot write '%s': %s\n", file, strerror(errno));
  return !ok;
}

int main(int argc, char **argv) {
  cmdline c = {.opt = {.target = TARGET_AUTO, .lines = true, .cpp = getenv("PAC_CPP") ? getenv("PAC_CPP") : "cc -E"}};
  const char **cpp_args = calloc((size_t)argc * 2 + 8, sizeof *cpp_args);
  const char **tds = calloc((size_t)argc + 1, sizeof *tds);
  int status = parse_args(&c, argc, argv, cpp_args, tds);
  if (status >= 0) {
    free(c.quoted), free(cpp_args), free(tds);
    return status;
  }

  /* pac's own include folder (bin/../include, or the installed tree's
   * include folder, PARRAY_INCLUDEDIR) holds the shipped .pc libraries;
   * PARRAY_HOME/include instead when set, as for pacc */
  char selfinc[PATH_MAX] = "", prefix[PATH_MAX] = "";
  const char *home = getenv("PARRAY_HOME");
  if (home && *home) {
    snprintf(prefix, sizeof prefix, "%s", home);
  } else {
    ssize_t sl = readlink("/proc/self/exe", prefix, sizeof prefix - 1);
    prefix[sl > 0 ? sl : 0] = 0;
    char *sl2 = strrchr(prefix, '/');
    if (sl2) snprintf(sl2, sizeof prefix - (size_t)(sl2 - prefix), "/%s", PARRAY_BIN_TO_PREFIX);
  }
  if (prefix[0]) {
    if (PARRAY_INCLUDEDIR[0] == '/') snprintf(selfinc, sizeof selfinc, "%s", PARRAY_INCLUDEDIR);
    else snprintf(selfinc, sizeof selfinc, "%s/%s", prefix, PARRAY_INCLUDEDIR);
    struct stat st;
    if (stat(selfinc, &st) || !S_ISDIR(st.st_mode)) snprintf(selfinc, sizeof selfinc, "%s/include", prefix);
  }
  pac_io io = {.err = stderr, .selfinc = selfinc[0] ? selfinc : NULL, .deps = c.want_deps ? &c.deps : NULL,
               .werror = c.werror, .no_warnings = c.nowarn};
  if (c.lsp) {
    status = pac_lsp_serve(stdin, stdout, &c.opt, io.selfinc);
  } else {
    pac_needs needs = {0};
    if (c.needs_file && !c.opt.layout && !(c.want_deps && c.deps.only)) io.needs = &needs;
    status = pac_translate(&c.opt, &io);
    if (!status && io.needs) status = write_needs(c.needs_file, &needs);
  }
  free(c.quoted);
  free(cpp_args);
  free(tds);
  return status;
}
