/* SPDX-License-Identifier: Apache-2.0 */
/* pacc_args.c - pacc's command line: @FILE response files expanded as gcc
 * expands them, then each option sorted by where it goes (pac, the
 * preprocessors, the compilers, nvcc only, the linker) into the command's
 * state (pacc.h), the inputs with their kinds, and the checks made before
 * anything runs. */
#define _DEFAULT_SOURCE 1
#include "pacc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool pacc_ends(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: pacc [options] FILE... (.pc, .c, .cu, .o, .a in any mix)\n"
          "  -o FILE            the program (default a.out); with -c, -S, -E or -M one input's output\n"
          "  -c                 compile only: each source to NAME.o in the working folder\n"
          "  -S                 assembly only: each source to NAME.s (CUDA: the host code's, device code inside)\n"
          "  -E                 translate only: the C/CUDA of each .pc file to stdout (or -o FILE)\n"
          "  -shared            link a shared library (its sources compiled with -fPIC)\n"
          "  -M, -MM            print make rules of the files each source reads (-MM: no system headers)\n"
          "  -MD, -MMD          write those rules while compiling, to NAME.d (or -MF FILE)\n"
          "  -MF FILE, -MT TARGET, -MQ TARGET, -MP    as gcc's\n"
          "  -x pc|c|cu|none    treat the following inputs as .pc, C, CUDA, or by their suffix\n"
          "  -I -D -U, -isystem DIR, -include FILE     to pac and the compilers\n"
          "  -O* -g -W* -f* -m* -std=* -pedantic -pipe   to the compilers (-Xcompiler= for nvcc)\n"
          "  -w, -Werror        no warnings; warnings are errors (pac's too)\n"
          "  -l -L -Wl,* -Xlinker OPT -static         to the linker\n"
          "  nvcc only: -arch, -code, -gencode, -G, -lineinfo, --use_fast_math, -Xptxas OPT,\n"
          "             -Xcompiler OPT, -ccbin DIR, -rdc=true|false, --std VER\n"
          "  --emit=c|cuda, --no-line, --no-cpp, --no-nvtx, --typedef NAME,\n"
          "  --max-insert-depth=N, --max-insert-bytes=N          to pac\n"
          "  --keep, -save-temps=obj   keep each .pc file's translation beside the output (NAME.gen.c / .cu)\n"
          "  -save-temps[=cwd]  the same, in the working folder\n"
          "  @FILE              read options and inputs from FILE (quoted as gcc reads them; @FILE inside too)\n"
          "  -v                 print the commands run;  -###  print them, run nothing\n"
          "  --version, -dumpversion, --help\n"
          "environment: CC, NVCC, MPICC (commands, with arguments: CC=\"ccache gcc\"), PAC_CPP,\n"
          "             PARRAY_HOME, TMPDIR, PACC_CUDA_ARCH (sm_90: the architecture), PACC_GPU_CC (9.0: the\n"
          "             GPU to build for instead of nvidia-smi's; none: as if there were none)\n");
}

/* ---- response files ---------------------------------------------------- */

/* The words of a response file, as gcc reads them (libiberty's buildargv):
 * blanks separate them, '...' and "..." quote, and a backslash takes the
 * next character as it is, inside quotes too. s is split in place. */
static void split_words(char *s, strv *out) {
  while (*s) {
    while (isspace((unsigned char)*s)) s++;
    if (!*s) break;
    char *w = s, *o = s;
    bool sq = false, dq = false, bs = false;
    for (; *s; s++) {
      char c = *s;
      if (bs) {
        bs = false;
        *o++ = c;
      } else if (c == '\\') {
        bs = true;
      } else if (sq || dq) {
        if (c == (sq ? '\'' : '"')) sq = dq = false;
        else *o++ = c;
      } else if (isspace((unsigned char)c)) {
        break;
      } else if (c == '\'' || c == '"') {
        sq = c == '\'', dq = c == '"';
      } else {
        *o++ = c;
      }
    }
    bool more = *s != 0;
    *o = 0; /* (o may stand on the blank that ended the word) */
    push(out, w);
    if (more) s++;
  }
}

/* The whole of a file (owned), or NULL with errno set. */
static char *read_text(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return errno = EISDIR, NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t n = 0, cap = 4096;
  char *s = malloc(cap);
  for (size_t r; (r = fread(s + n, 1, cap - 1 - n, f)) > 0;)
    if ((n += r) == cap - 1) s = realloc(s, cap *= 2);
  bool bad = ferror(f);
  fclose(f);
  s[n] = 0;
  if (bad || strlen(s) != n) { /* a NUL byte: not a list of options */
    free(s);
    return errno = bad ? EIO : EINVAL, NULL;
  }
  return own(s);
}

/* arg, or the words of the response file it names (@FILE), themselves
 * expanded, onto out. Returns 0, or 3 after reporting. */
static int expand(const char *arg, strv *out, int depth) {
  if (arg[0] != '@') {
    push(out, arg);
    return 0;
  }
  if (depth > 64) {
    fprintf(stderr, "pacc: error: response files nest deeper than 64 at '%s' (does one name itself?)\n", arg);
    return 3;
  }
  char *text = read_text(arg + 1);
  if (!text) {
    fprintf(stderr, "pacc: error: cannot read the response file '%s': %s\n", arg + 1, strerror(errno));
    return 3;
  }
  strv words = {0};
  split_words(text, &words);
  int rc = 0;
  for (int i = 0; i < words.n && !rc; i++) rc = expand(words.v[i], out, depth + 1);
  free(words.v);
  return rc;
}

/* ---- options ------------------------------------------------------------ */

/* a->v[*i] is `name` followed by a value, as "name VALUE" or "name=VALUE":
 * returns "name=VALUE" (or NULL, with *missing when the value is not
 * there). */
static const char *with_value(const strv *a, int *i, const char *name, bool *missing) {
  const char *s = a->v[*i];
  size_t n = strlen(name);
  if (strncmp(s, name, n)) return NULL;
  if (s[n] == '=') return s;
  if (s[n]) return NULL;
  if (*i + 1 >= a->n) {
    *missing = true;
    return NULL;
  }
  return cat(cat(name, "="), a->v[++*i]);
}

/* nvcc's own options; returns 1 when a->v[*i] was one, -1 when its value is
 * missing, 0 otherwise. */
static int nvcc_option(pacc *p, const strv *a, int *i) {
  static const char *valued[] = {"-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode",
                                 "--generate-code", "-Xptxas", "--ptxas-options", "-Xcompiler",
                                 "--compiler-options", "-ccbin", "--compiler-bindir", "-rdc",
                                 "--relocatable-device-code", "--std", "-Xnvlink", "-maxrregcount", NULL};
  static const char *flags[] = {"-G", "--device-debug", "-lineinfo", "--generate-line-info", "--use_fast_math",
                                "-use_fast_math", "-dc", NULL};
  for (int k = 0; flags[k]; k++)
    if (!strcmp(a->v[*i], flags[k])) {
      push(&p->nvopts, a->v[*i]);
      return 1;
    }
  bool missing = false;
  for (int k = 0; valued[k]; k++) {
    const char *v = with_value(a, i, valued[k], &missing);
    if (missing) return -1;
    if (!v) continue;
    push(&p->nvopts, v);
    if (k < 6) p->arch_given = true;
    return 1;
  }
  return 0;
}

/* -M -MM -MD -MMD -MF -MT -MQ -MP; same protocol as nvcc_option. */
static int dep_option(pacc *p, const strv *a, int *i) {
  const char *s = a->v[*i];
  if (!strcmp(s, "-M") || !strcmp(s, "-MM")) p->mode = 'M', p->md = s[2] ? 'M' : 'D';
  else if (!strcmp(s, "-MD") || !strcmp(s, "-MMD")) p->md = s[2] == 'D' ? 'D' : 'M';
  else if (!strcmp(s, "-MP")) p->mp = true;
  else if (!strcmp(s, "-MF") || !strcmp(s, "-MT") || !strcmp(s, "-MQ")) {
    if (*i + 1 >= a->n) return -1;
    if (s[2] == 'F') p->mf = a->v[++*i];
    else push(&p->mt, s), push(&p->mt, a->v[++*i]);
  } else return 0;
  return 1;
}

/* The preprocessor's options, for pac and the compilers alike: -I -D -U
 * (one word or two), -isystem DIR and -include FILE (kept as two words,
 * which gcc and nvcc both read). Same protocol as nvcc_option. */
static int pp_option(pacc *p, const strv *a, int *i) {
  const char *s = a->v[*i];
  if (!strcmp(s, "-I") || !strcmp(s, "-D") || !strcmp(s, "-U")) {
    if (*i + 1 >= a->n) return -1;
    push(&p->ppopts, cat(s, a->v[++*i]));
  } else if (!strncmp(s, "-I", 2) || !strncmp(s, "-D", 2) || !strncmp(s, "-U", 2)) {
    push(&p->ppopts, s);
  } else if (!strcmp(s, "-isystem") || !strcmp(s, "-include")) {
    if (*i + 1 >= a->n) return -1;
    push(&p->ppopts, s), push(&p->ppopts, a->v[++*i]);
  } else if (!strncmp(s, "-isystem", 8)) {
    push(&p->ppopts, "-isystem"), push(&p->ppopts, s + 8);
  } else return 0;
  return 1;
}

/* Options to the linker; same protocol as nvcc_option. */
static int link_option(pacc *p, const strv *a, int *i) {
  const char *s = a->v[*i];
  if (!strcmp(s, "-l") || !strcmp(s, "-L") || !strcmp(s, "-Xlinker")) {
    if (*i + 1 >= a->n) return -1;
    push(&p->ldopts, s), push(&p->ldopts, a->v[++*i]);
  } else if (!strncmp(s, "-l", 2) || !strncmp(s, "-L", 2) || !strncmp(s, "-Wl,", 4) || !strcmp(s, "-static")) {
    push(&p->ldopts, s);
  } else if (!strcmp(s, "-shared")) {
    p->shared = true;
  } else return 0;
  return 1;
}

/* Options that pass through to pac or the compilers. */
static int pass_option(pacc *p, const strv *a, int *i) {
  const char *s = a->v[*i];
  if (!strncmp(s, "--emit=", 7) || !strcmp(s, "--no-line") || !strcmp(s, "--no-cpp") || !strcmp(s, "--no-nvtx") ||
      !strncmp(s, "--max-insert-", 13)) {
    push(&p->pacopts, s);
  } else if (!strcmp(s, "--typedef")) {
    if (*i + 1 >= a->n) return -1;
    push(&p->pacopts, s), push(&p->pacopts, a->v[++*i]);
  } else if (!strcmp(s, "-w")) {
    p->nowarn = true;
  } else if (!strcmp(s, "-Werror")) {
    p->werror = true;
  } else if (!strncmp(s, "-O", 2) || !strncmp(s, "-g", 2) || !strncmp(s, "-W", 2) || !strncmp(s, "-f", 2) ||
             !strncmp(s, "-std=", 5) || !strncmp(s, "-m", 2) || !strcmp(s, "-pthread") || !strcmp(s, "-pedantic") ||
             !strcmp(s, "-pedantic-errors") || !strcmp(s, "-pipe")) {
    push(&p->ccopts, s);
  } else return 0;
  return 1;
}

/* The kind of an input by its suffix, or as -x said. */
static void add_input(pacc *p, const char *path, int xkind) {
  enum pacc_kind k = xkind >= 0 ? (enum pacc_kind)xkind
                     : pacc_ends(path, ".pc") ? K_PC
                     : pacc_ends(path, ".c")  ? K_C
                     : pacc_ends(path, ".cu") ? K_CU
                                              : K_OBJ;
  p->in = realloc(p->in, sizeof *p->in * (size_t)(p->nin + 1));
  p->in[p->nin++] = (input){.path = path, .kind = k};
}

/* -c, -S, -E, -M: the one that stops earliest wins, as in gcc */
static void set_mode(pacc *p, char m) {
  static const char order[] = "lcSEM";
  if (strchr(order, m) > strchr(order, p->mode)) p->mode = m;
}

/* -x LANG; same protocol as nvcc_option, 2 for an unknown language */
static int lang_option(const strv *a, int *i, int *xkind) {
  const char *s = a->v[*i];
  const char *v = s[2] ? s + 2 : *i + 1 < a->n ? a->v[++*i] : NULL;
  if (!v) return -1;
  if (!strcmp(v, "pc")) *xkind = K_PC;
  else if (!strcmp(v, "c")) *xkind = K_C;
  else if (!strcmp(v, "cu")) *xkind = K_CU;
  else if (!strcmp(v, "none")) *xkind = -1;
  else return fprintf(stderr, "pacc: error: unknown language '%s' after -x (pc, c, cu or none)\n", v), 2;
  return 1;
}

/* pacc's own options; same protocol as nvcc_option. */
static int own_option(pacc *p, const strv *a, int *i) {
  const char *s = a->v[*i];
  if (!strcmp(s, "-o")) {
    if (*i + 1 >= a->n) return -1;
    p->out = a->v[++*i];
  } else if (!strncmp(s, "-o", 2)) p->out = s + 2; /* -oFILE */
  else if (!strcmp(s, "-c") || !strcmp(s, "-S") || !strcmp(s, "-E")) set_mode(p, s[1]);
  else if (!strcmp(s, "-v")) p->verbose = true;
  else if (!strcmp(s, "-###")) p->dry = true;
  else if (!strcmp(s, "--keep") || !strcmp(s, "-save-temps=obj")) p->keep = 'o';
  else if (!strcmp(s, "-save-temps") || !strcmp(s, "-save-temps=cwd")) p->keep = 'c';
  else return 0;
  return 1;
}

/* One argument; returns 0 to go on, 2 for a usage error, 1 to stop with
 * status 0 (--help, --version, -dumpversion). */
static int parse_one(pacc *p, const strv *a, int *i, int *xkind) {
  const char *s = a->v[*i];
  int k = 0;
  if (s[0] != '-' || !s[1]) add_input(p, s, *xkind);
  else if (!strcmp(s, "--help") || !strcmp(s, "-h")) return usage(stdout), 1;
  else if (!strcmp(s, "--version")) return printf("pacc %s\n", PAC_VERSION), 1;
  else if (!strcmp(s, "-dumpversion")) return printf("%s\n", PAC_VERSION), 1;
  else if (!strncmp(s, "-x", 2)) {
    if ((k = lang_option(a, i, xkind)) == 2) return 2;
  } else if (!(k = own_option(p, a, i)) && !(k = nvcc_option(p, a, i)) && !(k = dep_option(p, a, i)) &&
             !(k = pp_option(p, a, i)) && !(k = link_option(p, a, i)) && !(k = pass_option(p, a, i))) {
    fprintf(stderr, "pacc: error: unknown option '%s' (pacc --help lists them)\n", s);
    return 2;
  }
  if (k < 0) {
    fprintf(stderr, "pacc: error: missing argument to '%s'\n", s);
    return 2;
  }
  return 0;
}

/* $PACC_GPU_CC: unset or empty, "none", or a compute capability MAJOR.MINOR
 * (false after reporting). */
static bool gpu_cc_env_ok(void) {
  const char *e = getenv("PACC_GPU_CC");
  int maj, min, end = 0;
  if (!e || !*e || !strcmp(e, "none") ||
      (sscanf(e, "%d.%d%n", &maj, &min, &end) == 2 && !e[end] && maj > 0 && min >= 0 && min < 10))
    return true;
  fprintf(stderr, "pacc: error: PACC_GPU_CC is '%s': the compute capability of a GPU (such as 9.0), or none\n", e);
  return false;
}

/* An output that is one of the inputs (the same regular file, however it
 * is spelled or linked) would destroy it: refused before anything runs. */
static bool output_is_input(const pacc *p, const char *out, const char *what) {
  struct stat o;
  if (!out || !strcmp(out, "-") || stat(out, &o) != 0 || !S_ISREG(o.st_mode)) return false;
  for (int i = 0; i < p->nin; i++) {
    struct stat s;
    if (stat(p->in[i].path, &s) == 0 && s.st_dev == o.st_dev && s.st_ino == o.st_ino) {
      fprintf(stderr, "pacc: error: the %s '%s' is the input file '%s'\n", what, out, p->in[i].path);
      return true;
    }
  }
  return false;
}

/* The checks of the whole command line, once it is read. */
static int check_args(pacc *p) {
  if (p->nin == 0) {
    fprintf(stderr, "pacc: error: no input files\n");
    usage(stderr);
    return 2;
  }
  int sources = 0;
  for (int i = 0; i < p->nin; i++) sources += p->in[i].kind != K_OBJ;
  if (p->mode != 'l' && p->out && sources > 1) {
    fprintf(stderr, "pacc: error: cannot specify -o with -%c and several source files\n", p->mode);
    return 2;
  }
  if (p->mf && p->md && sources > 1) {
    fprintf(stderr, "pacc: error: cannot specify -MF with several source files\n");
    return 2;
  }
  if (output_is_input(p, p->out, "output") || output_is_input(p, p->mf, "dependency file (-MF)")) return 2;
  return gpu_cc_env_ok() ? 0 : 2;
}

int pacc_parse_args(pacc *p, int argc, char **argv, strv *args) {
  for (int i = 1; i < argc; i++) {
    int rc = expand(argv[i], args, 0);
    if (rc) return rc;
  }
  int xkind = -1;
  p->mode = 'l';
  for (int i = 0; i < args->n; i++) {
    int rc = parse_one(p, args, &i, &xkind);
    if (rc) return rc;
  }
  return check_args(p);
}
