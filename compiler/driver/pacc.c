/* pacc.c - the driver, a compiler command like gcc and nvcc: `pacc FILE.pc
 * -o PROG` translates each .pc file with pac, compiles each source to an
 * object (the C compiler, mpicc for programs with mpi thread arrays, nvcc
 * for CUDA), and links the objects with the Parray runtime. Objects from
 * .pc files carry a section .parray.needs ("cuda mpi"), read back when
 * they are linked, so that `pacc -c` then `pacc a.o b.o` picks the same
 * linker and runtime libraries. Options follow gcc's (-c -E -M... -o -v
 * -### -x) and nvcc's (-arch -G -lineinfo -Xcompiler ...); `pacc --help`
 * lists them all. Running the commands it builds: pacc_run.c. */
#define _DEFAULT_SOURCE 1
#include "pacc_run.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PAC_VERSION
#define PAC_VERSION "0.1.0"
#endif

static bool ends(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static bool is_dir(const char *p) {
  struct stat s;
  return stat(p, &s) == 0 && S_ISDIR(s.st_mode);
}

static bool is_file(const char *p) {
  struct stat s;
  return stat(p, &s) == 0 && S_ISREG(s.st_mode);
}

enum kind { K_PC, K_C, K_CU, K_OBJ };

typedef struct input {
  const char *path;
  enum kind kind;
  const char *gen; /* the translation of a .pc file */
  const char *obj; /* its object */
  bool cuda, mpi;
  bool sm90; /* needs compute capability 9.0 (a tma #copy) */
} input;

/* Everything one pacc command holds. */
typedef struct pacc {
  const char *pac, *incdir, *libdir, *tmp;
  strv pacopts; /* to pac only */
  strv ccopts;  /* to the compilers (translated for nvcc) and to pac's preprocessor when -I/-D/-U */
  strv nvopts;  /* to nvcc only */
  strv ldopts;  /* to the linker */
  strv qdirs;   /* the folders of the .pc files: quote-include path */
  strv mt;      /* -MT/-MQ and their values */
  strv mpiinc;  /* -I of MPI's include folders, for pac's preprocessor (asked once) */
  bool mpiinc_asked;
  input *in;
  int nin;
  const char *out, *mf;
  char mode;    /* 'l' link, 'c' compile only, 'E' translate only, 'M' rules only */
  char md;      /* 0, 'D' for -MD or -M, 'M' for -MMD or -MM */
  bool mp, keep, verbose, dry, werror, nowarn, arch_given;
  bool cuda, mpi; /* what the program needs */
  bool sm90;      /* a translation uses the tensor memory accelerator (pac: sm=90) */
} pacc;

/* Run a command as -v and -### say (run_cmd). */
static int run_full(const pacc *p, const strv *a, char **out, const strv *from) {
  return run_cmd((run_show){p->verbose, p->dry}, a, out, from);
}

static int run_to(const pacc *p, const strv *a, char **out) { return run_full(p, a, out, NULL); }

static int run(const pacc *p, const strv *a) { return run_to(p, a, NULL); }

/* pac, the runtime's headers and libraries: next to pacc (bin/../include,
 * bin/../lib), or under $PARRAY_HOME. */
static bool find_runtime(pacc *p) {
  char self[PATH_MAX];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) {
    fprintf(stderr, "pacc: error: cannot find my own location\n");
    return false;
  }
  self[sl] = 0;
  char *bindir = own(strdup(self));
  *strrchr(bindir, '/') = 0;
  const char *home = getenv("PARRAY_HOME");
  if (home && *home) p->incdir = cat(home, "/include"), p->libdir = cat(home, "/lib");
  else p->incdir = cat(bindir, "/../include"), p->libdir = cat(bindir, "/../lib");
  if (!is_dir(p->incdir) || !is_dir(p->libdir)) {
    fprintf(stderr, "pacc: error: cannot find the Parray runtime (%s, %s); set PARRAY_HOME\n", p->incdir,
            p->libdir);
    return false;
  }
  p->pac = cat(bindir, "/pac");
  return true;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: pacc [options] FILE... (.pc, .c, .cu, .o, .a in any mix)\n"
          "  -o FILE            the program (default a.out); with -c, -E or -M one input's output\n"
          "  -c                 compile only: each source to NAME.o in the working folder\n"
          "  -E                 translate only: the C/CUDA of each .pc file to stdout (or -o FILE)\n"
          "  -M, -MM            print make rules of the files each source reads (-MM: no system headers)\n"
          "  -MD, -MMD          write those rules while compiling, to NAME.d (or -MF FILE)\n"
          "  -MF FILE, -MT TARGET, -MQ TARGET, -MP    as gcc's\n"
          "  -x pc|c|cu|none    treat the following inputs as .pc, C, CUDA, or by their suffix\n"
          "  -I -D -U           to pac and the compilers\n"
          "  -O* -g -W* -f* -m* -std=*   to the compilers (-Xcompiler= for nvcc)\n"
          "  -w, -Werror        no warnings; warnings are errors (pac's too)\n"
          "  -l -L -Wl,* -Xlinker OPT    to the linker\n"
          "  nvcc only: -arch, -code, -gencode, -G, -lineinfo, --use_fast_math, -Xptxas OPT,\n"
          "             -Xcompiler OPT, -ccbin DIR, -rdc=true|false, --std VER\n"
          "  --emit=c|cuda, --no-line, --no-cpp, --typedef NAME,\n"
          "  --max-insert-depth=N, --max-insert-bytes=N          to pac\n"
          "  --keep             keep the generated C/CUDA next to the output (OUT.gen.c / .cu)\n"
          "  -v                 print the commands run;  -###  print them, run nothing\n"
          "  --version, --help\n"
          "environment: CC, NVCC, MPICC (commands, with arguments: CC=\"ccache gcc\"), PAC_CPP,\n"
          "             PARRAY_HOME, PACC_CUDA_ARCH (sm_90: the architecture), PACC_GPU_CC (9.0: the GPU to\n"
          "             build for instead of nvidia-smi's; none: as if there were none)\n");
}

/* argv[*i] is `name` followed by a value, as "name VALUE" or "name=VALUE":
 * returns "name=VALUE" (or NULL, with *missing when the value is not
 * there). */
static const char *with_value(int argc, char **argv, int *i, const char *name, bool *missing) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n)) return NULL;
  if (a[n] == '=') return a;
  if (a[n]) return NULL;
  if (*i + 1 >= argc) {
    *missing = true;
    return NULL;
  }
  return cat(cat(name, "="), argv[++*i]);
}

/* nvcc's own options; returns 1 when argv[*i] was one, -1 when its value is
 * missing, 0 otherwise. */
static int nvcc_option(pacc *p, int argc, char **argv, int *i) {
  static const char *valued[] = {"-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode",
                                 "--generate-code", "-Xptxas", "--ptxas-options", "-Xcompiler",
                                 "--compiler-options", "-ccbin", "--compiler-bindir", "-rdc",
                                 "--relocatable-device-code", "--std", "-Xnvlink", "-maxrregcount", NULL};
  static const char *flags[] = {"-G", "--device-debug", "-lineinfo", "--generate-line-info", "--use_fast_math",
                                "-use_fast_math", "-dc", NULL};
  for (int k = 0; flags[k]; k++)
    if (!strcmp(argv[*i], flags[k])) {
      push(&p->nvopts, argv[*i]);
      return 1;
    }
  bool missing = false;
  for (int k = 0; valued[k]; k++) {
    const char *v = with_value(argc, argv, i, valued[k], &missing);
    if (missing) return -1;
    if (!v) continue;
    push(&p->nvopts, v);
    if (k < 6) p->arch_given = true;
    return 1;
  }
  return 0;
}

/* -M -MM -MD -MMD -MF -MT -MQ -MP; same protocol as nvcc_option. */
static int dep_option(pacc *p, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  if (!strcmp(a, "-M") || !strcmp(a, "-MM")) p->mode = 'M', p->md = a[2] ? 'M' : 'D';
  else if (!strcmp(a, "-MD") || !strcmp(a, "-MMD")) p->md = a[2] == 'D' ? 'D' : 'M';
  else if (!strcmp(a, "-MP")) p->mp = true;
  else if (!strcmp(a, "-MF") || !strcmp(a, "-MT") || !strcmp(a, "-MQ")) {
    if (*i + 1 >= argc) return -1;
    if (a[2] == 'F') p->mf = argv[++*i];
    else push(&p->mt, a), push(&p->mt, argv[++*i]);
  } else return 0;
  return 1;
}

/* Options that pass through to pac, the compilers or the linker. */
static int pass_option(pacc *p, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  if ((!strcmp(a, "-I") || !strcmp(a, "-D") || !strcmp(a, "-U"))) {
    if (*i + 1 >= argc) return -1;
    push(&p->ccopts, cat(a, argv[++*i]));
  } else if (!strncmp(a, "-I", 2) || !strncmp(a, "-D", 2) || !strncmp(a, "-U", 2)) {
    push(&p->ccopts, a);
  } else if (!strncmp(a, "--emit=", 7) || !strcmp(a, "--no-line") || !strcmp(a, "--no-cpp") ||
             !strncmp(a, "--max-insert-", 13)) {
    push(&p->pacopts, a);
  } else if (!strcmp(a, "--typedef")) {
    if (*i + 1 >= argc) return -1;
    push(&p->pacopts, a), push(&p->pacopts, argv[++*i]);
  } else if (!strcmp(a, "-w")) {
    p->nowarn = true;
  } else if (!strcmp(a, "-Werror")) {
    p->werror = true;
  } else if (!strncmp(a, "-l", 2) || !strncmp(a, "-L", 2) || !strcmp(a, "-Xlinker")) {
    if (!a[2] || !strcmp(a, "-Xlinker")) {
      if (*i + 1 >= argc) return -1;
      push(&p->ldopts, a), push(&p->ldopts, argv[++*i]);
    } else push(&p->ldopts, a);
  } else if (!strncmp(a, "-Wl,", 4)) {
    push(&p->ldopts, a);
  } else if (!strncmp(a, "-O", 2) || !strncmp(a, "-g", 2) || !strncmp(a, "-W", 2) || !strncmp(a, "-f", 2) ||
             !strncmp(a, "-std=", 5) || !strncmp(a, "-m", 2) || !strcmp(a, "-pthread")) {
    push(&p->ccopts, a);
  } else return 0;
  return 1;
}

/* The kind of an input by its suffix, or as -x said. */
static void add_input(pacc *p, const char *path, int xkind) {
  enum kind k = xkind >= 0 ? (enum kind)xkind
                : ends(path, ".pc") ? K_PC
                : ends(path, ".c")  ? K_C
                : ends(path, ".cu") ? K_CU
                                    : K_OBJ;
  p->in = realloc(p->in, sizeof *p->in * (size_t)(p->nin + 1));
  p->in[p->nin++] = (input){.path = path, .kind = k};
}

/* One argument; returns 0 to go on, 2 for a usage error, 1 to stop with
 * status 0 (--help, --version). */
static int parse_one(pacc *p, int argc, char **argv, int *i, int *xkind) {
  const char *a = argv[*i];
  int k = 0;
  if (a[0] != '-' || !a[1]) add_input(p, a, *xkind);
  else if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 1;
  else if (!strcmp(a, "--version")) return printf("pacc %s\n", PAC_VERSION), 1;
  else if (!strcmp(a, "-o")) {
    if (*i + 1 >= argc) k = -1;
    else p->out = argv[++*i];
  } else if (!strncmp(a, "-o", 2)) p->out = a + 2; /* -oFILE */
  else if (!strcmp(a, "-c") || !strcmp(a, "-E")) p->mode = a[1];
  else if (!strcmp(a, "-v")) p->verbose = true;
  else if (!strcmp(a, "-###")) p->dry = true;
  else if (!strcmp(a, "--keep")) p->keep = true;
  else if (!strcmp(a, "-x") || !strncmp(a, "-x", 2)) {
    const char *v = a[2] ? a + 2 : *i + 1 < argc ? argv[++*i] : NULL;
    if (!v) k = -1;
    else if (!strcmp(v, "pc")) *xkind = K_PC;
    else if (!strcmp(v, "c")) *xkind = K_C;
    else if (!strcmp(v, "cu")) *xkind = K_CU;
    else if (!strcmp(v, "none")) *xkind = -1;
    else return fprintf(stderr, "pacc: error: unknown language '%s' after -x (pc, c, cu or none)\n", v), 2;
  } else if (!(k = nvcc_option(p, argc, argv, i)) && !(k = dep_option(p, argc, argv, i)) &&
             !(k = pass_option(p, argc, argv, i))) {
    fprintf(stderr, "pacc: error: unknown option '%s' (pacc --help lists them)\n", a);
    return 2;
  }
  if (k < 0) {
    fprintf(stderr, "pacc: error: missing argument to '%s'\n", a);
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

static int parse_args(pacc *p, int argc, char **argv) {
  int xkind = -1;
  p->mode = 'l';
  for (int i = 1; i < argc; i++) {
    int rc = parse_one(p, argc, argv, &i, &xkind);
    if (rc) return rc;
  }
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

/* The absolute folder of source file `in`, added once to the quote-include
 * path: the generated file is compiled in a temporary folder, so the
 * compiler would no longer look for `#include "local.h"` next to the .pc. */
static bool add_source_dir(pacc *p, const char *in) {
  const char *slash = strrchr(in, '/');
  char *dir = slash ? own(strndup(in, slash == in ? 1 : (size_t)(slash - in))) : ".";
  char *abs = realpath(dir, NULL);
  if (!abs) {
    fprintf(stderr, "pacc: error: cannot find the folder of '%s': %s\n", in, strerror(errno));
    return false;
  }
  own(abs);
  for (int i = 0; i < p->qdirs.n; i++)
    if (!strcmp(p->qdirs.v[i], abs)) return true;
  push(&p->qdirs, abs);
  return true;
}

/* -iquote for gcc and clang; for nvcc through the host compiler, which
 * preprocesses both passes (-Xcompiler splits its value at commas, so a
 * folder with a comma falls back to -I). */
static void push_quote_dirs(const pacc *p, strv *a, bool cuda) {
  for (int i = 0; i < p->qdirs.n; i++) {
    const char *dir = p->qdirs.v[i];
    if (!cuda) push(a, "-iquote"), push(a, dir);
    else if (strchr(dir, ',')) push(a, cat("-I", dir));
    else push(a, cat("-Xcompiler=-iquote", dir));
  }
}

/* The compute capability of the GPU to build for: $PACC_GPU_CC where set
 * ("none": no GPU), else that of the first GPU nvidia-smi lists (not asked
 * with -###); false when there is none. */
static bool gpu_cc(const pacc *p, int *maj, int *min) {
  const char *env = getenv("PACC_GPU_CC");
  char buf[64] = "";
  if (env && *env) {
    snprintf(buf, sizeof buf, "%s", env);
  } else {
    FILE *f = p->dry ? NULL : popen("nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null", "r");
    if (f) {
      if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
      pclose(f);
    }
  }
  return sscanf(buf, "%d.%d", maj, min) == 2;
}

/* "-arch" flags for nvcc: -arch/-code/-gencode given, else $PACC_CUDA_ARCH,
 * else the GPU present (gpu_cc), else a documented default list. With a tma
 * #copy in a translation: sm_90a on a 9.0 GPU (the arch-specific target,
 * whose setmaxnreg parray/tma.cuh uses for warp specialisation), and no
 * architecture before sm_90 in the default list. */
static void cuda_arch(const pacc *p, strv *a) {
  if (p->arch_given) return;
  const char *env = getenv("PACC_CUDA_ARCH");
  if (env && *env) {
    push(a, cat("-arch=", env));
    return;
  }
  int maj, min;
  if (gpu_cc(p, &maj, &min)) {
    char *s = own(malloc(32));
    snprintf(s, 32, "-arch=sm_%d%d%s", maj, min, p->sm90 && maj == 9 && min == 0 ? "a" : "");
    push(a, s);
    return;
  }
  if (!p->sm90) push(a, "-gencode=arch=compute_80,code=sm_80"); /* a tma #copy needs sm_90 */
  push(a, "-gencode=arch=compute_90,code=[sm_90,compute_90]");
}

/* MPI's compile or link flags for nvcc, from mpicc --showme:WHAT. */
static void mpi_flags_for_nvcc(const pacc *p, strv *a, const char *what) {
  strv m = {0};
  push_tool(&m, "MPICC", "mpicc");
  push(&m, cat("--showme:", what));
  char *out = NULL;
  if (!run_to(p, &m, &out) && out)
    for (char *t = strtok(own(out), " \t\n"); t; t = strtok(NULL, " \t\n"))
      push(a, strcmp(t, "-pthread") ? t : "-Xcompiler=-pthread");
  else free(out);
  free(m.v);
}

/* The compiler for one source, with the options every compile gets. */
static void compiler_head(const pacc *p, strv *a, bool cuda, bool mpi) {
  if (cuda) push_tool(a, "NVCC", "nvcc");
  else if (mpi) push_tool(a, "MPICC", "mpicc");
  else push_tool(a, "CC", "cc");
  if (cuda) {
    cuda_arch(p, a);
    push(a, "-Xcompiler=-Wno-unused-parameter");
    push_all(a, &p->nvopts);
    if (mpi) mpi_flags_for_nvcc(p, a, "compile");
  }
#ifdef PACC_SANITIZE
  if (!cuda) push(a, "-fsanitize=address,undefined"), push(a, "-fno-omit-frame-pointer");
#endif
  for (int i = 0; i < p->ccopts.n; i++) {
    const char *o = p->ccopts.v[i];
    if (cuda && (!strncmp(o, "-W", 2) || !strncmp(o, "-f", 2) || !strncmp(o, "-m", 2) || !strcmp(o, "-pthread")))
      push(a, cat("-Xcompiler=", o));
    else if (!(cuda && !strncmp(o, "-std=", 5))) /* the .cu is C++: --std is nvcc's */
      push(a, o);
  }
  if (p->nowarn) push(a, "-w");
  if (p->werror) push(a, cuda ? "-Xcompiler=-Werror" : "-Werror");
}

/* NAME with its folder and suffix replaced: base("d/x.pc", ".o") = "x.o". */
static const char *base_with(const char *path, const char *suffix) {
  const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  const char *dot = strrchr(b, '.');
  size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
  char *s = malloc(n + strlen(suffix) + 1);
  sprintf(s, "%.*s%s", (int)n, b, suffix);
  return own(s);
}

/* The dependency options for one source (to pac or the compiler): -MD or
 * -MMD (-M/-MM with 'M' mode), the file, the target, -MP. */
static void dep_args(const pacc *p, strv *a, const input *in) {
  if (!p->md) return;
  if (p->mode == 'M') push(a, p->md == 'D' ? "-M" : "-MM");
  else push(a, p->md == 'D' ? "-MD" : "-MMD");
  const char *file = p->mf ? p->mf : p->mode == 'M' ? p->out : NULL;
  if (!file && p->mode == 'c') /* -c -o X.o: X.d */
    file = cat(own(strndup(in->obj, strlen(in->obj) - (ends(in->obj, ".o") ? 2 : 0))), ".d");
  if (!file && p->mode == 'l') file = base_with(in->path, ".d");
  if (file) push(a, "-MF"), push(a, file);
  const char *target = p->mode == 'c'   ? in->obj
                       : p->mode != 'l' ? base_with(in->path, ".o")
                       : p->out         ? p->out
                                        : "a.out";
  if (p->mt.n) push_all(a, &p->mt);
  else push(a, "-MT"), push(a, target);
  if (p->mp) push(a, "-MP");
}

/* read "target=cuda" and "mpi=1" from the first lines pac wrote */
static void read_target(input *in) {
  FILE *f = fopen(in->gen, "r");
  if (!f) return;
  char line[512];
  for (int i = 0; i < 3 && fgets(line, sizeof line, f); i++) {
    if (strstr(line, "/* pac: ")) {
      in->cuda |= strstr(line, "target=cuda") != NULL;
      in->mpi |= strstr(line, "mpi=1") != NULL;
      in->sm90 |= strstr(line, " sm=90") != NULL;
    }
  }
  fclose(f);
}

/* What the object needs when it is linked, in a section of its own that
 * read_needs finds again in .o and .a files, wherever they were moved. */
static bool append_needs(const input *in) {
  FILE *f = fopen(in->gen, "a");
  if (!f) return false;
  fprintf(f, "\n/* pacc: what this object needs at link time (pacc reads it back) */\n"
             "static const char parray_needs_[] __attribute__((used, section(\".parray.needs\"))) = "
             "\"pacc-needs: pthd%s%s\";\n",
          in->cuda ? " cuda" : "", in->mpi ? " mpi" : "");
  return fclose(f) == 0;
}

/* The object of input k: NAME.o in the working folder (or -o's) with -c,
 * else a temporary one. */
static void set_obj(const pacc *p, input *in, int k) {
  if (p->mode == 'c') {
    in->obj = p->out ? p->out : base_with(in->path, ".o");
  } else {
    char *o = malloc(strlen(p->tmp) + strlen(in->path) + 32);
    sprintf(o, "%s/%d-%s", p->tmp, k, base_with(in->path, ".o"));
    in->obj = own(o);
  }
}

/* Translate one .pc file with pac: to in->gen (.c or .cu) in the temporary
 * folder, or with -E to -o's file or stdout, or with -M only its rule. */
/* MPI's include folders (mpicc --showme:incdirs), for pac's preprocessor: a
 * .pc file that includes <mpi.h> must have its macros read as mpicc will
 * compile it. Asked once per command; nothing when there is no mpicc, or with
 * -### (its line would stand among the commands). */
static const strv *mpi_incdirs(pacc *p) {
  if (p->dry || p->mpiinc_asked) return &p->mpiinc;
  p->mpiinc_asked = true;
  strv m = {0};
  push_tool(&m, "MPICC", "mpicc");
  push(&m, "--showme:incdirs");
  char *out = NULL;
  if (!run_full(&(pacc){.verbose = false}, &m, &out, NULL) && out)
    for (char *t = strtok(own(out), " \t\n"); t; t = strtok(NULL, " \t\n")) push(&p->mpiinc, cat("-I", t));
  else free(out);
  free(m.v);
  return &p->mpiinc;
}

static int translate(pacc *p, input *in, int k) {
  set_obj(p, in, k);
  strv a = {0};
  push(&a, p->pac);
  push_all(&a, &p->pacopts);
  for (int i = 0; i < p->ccopts.n; i++)
    if (!strncmp(p->ccopts.v[i], "-I", 2) || !strncmp(p->ccopts.v[i], "-D", 2) || !strncmp(p->ccopts.v[i], "-U", 2))
      push(&a, p->ccopts.v[i]);
  push(&a, cat("-I", p->incdir)); /* the runtime's headers, as the compiler will see them */
  push_all(&a, mpi_incdirs(p));
  if (p->werror) push(&a, "-Werror");
  if (p->nowarn) push(&a, "-w");
  dep_args(p, &a, in);
  push(&a, in->path);
  char *gen = own(malloc(strlen(p->tmp) + strlen(in->path) + 32));
  sprintf(gen, "%s/%d-%s", p->tmp, k, base_with(in->path, ".gen"));
  if (p->mode == 'E') push(&a, "-o"), push(&a, p->out ? p->out : "-");
  else if (p->mode != 'M') push(&a, "-o"), push(&a, gen);
  int rc = run(p, &a);
  free(a.v);
  if (rc || p->mode == 'E' || p->mode == 'M') return rc;
  if (!add_source_dir(p, in->path)) return 1;
  in->gen = gen;
  if (p->dry) {
    for (int i = 0; i < p->pacopts.n; i++) in->cuda |= !strcmp(p->pacopts.v[i], "--emit=cuda");
  } else {
    read_target(in);
  }
  char *named = cat(gen, in->cuda ? ".cu" : ".c");
  if (!p->dry && (rename(gen, named) || !append_needs(&(input){.gen = named, .cuda = in->cuda, .mpi = in->mpi}))) {
    fprintf(stderr, "pacc: error: cannot write '%s': %s\n", named, strerror(errno));
    return 1;
  }
  in->gen = named;
  return 0;
}

/* Compile one source (a translation, or a .c/.cu input) to in->obj; with -E
 * or -M, only preprocess it or print its rule. */
static int compile(pacc *p, input *in, int k) {
  bool cuda = in->kind == K_CU || in->cuda, mpi = p->mpi;
  const char *src = in->gen ? in->gen : in->path;
  set_obj(p, in, k);
  strv a = {0};
  compiler_head(p, &a, cuda, mpi);
  push_quote_dirs(p, &a, cuda);
  push(&a, cat("-I", p->incdir));
  char cwd[PATH_MAX];
  if (in->gen && getcwd(cwd, sizeof cwd) && !strchr(cwd, ',')) {
    /* debug information names the .pc file from the working folder (its
     * #line names are relative to the translation's temporary folder) */
    const char *map = cat(cat(cat("-fdebug-prefix-map=", p->tmp), "="), cwd);
    push(&a, cuda ? cat("-Xcompiler=", map) : map);
  }
  if (!in->gen) dep_args(p, &a, in);
  if (p->mode == 'E' || p->mode == 'M') {
    if (p->mode == 'E') push(&a, "-E");
  } else {
    push(&a, "-c");
  }
  bool lang = !in->gen && (in->kind == K_C) != ends(src, ".c") && in->kind != K_CU;
  if (lang) push(&a, "-x"), push(&a, "c");
  push(&a, src);
  if (lang) push(&a, "-x"), push(&a, "none");
  if (p->mode == 'E' && p->out) push(&a, "-o"), push(&a, p->out);
  if (p->mode == 'c' || p->mode == 'l') push(&a, "-o"), push(&a, in->obj);
  strv subst = {0};
  if (in->gen) push(&subst, in->gen), push(&subst, in->path);
  int rc = in->gen ? run_full(p, &a, NULL, &subst) : run(p, &a);
  free(subst.v);
  free(a.v);
  return rc;
}

/* What an object or archive given to the linker needs: the words of its
 * .parray.needs strings, and CUDA when it registers device code. */
static void read_needs(pacc *p, const char *path) {
  strv a = {0};
  push(&a, "readelf"), push(&a, "-W"), push(&a, "-s"), push(&a, "-p"), push(&a, ".parray.needs"), push(&a, path);
  char *out = NULL;
  run_to(p, &a, &out);
  free(a.v);
  if (!out) return;
  for (char *s = out; (s = strstr(s, "pacc-needs:")); s++) {
    char *e = strchr(s, '\n');
    if (e) *e = 0;
    p->cuda |= strstr(s, " cuda") != NULL;
    p->mpi |= strstr(s, " mpi") != NULL;
    if (e) *e = '\n';
  }
  p->cuda |= strstr(out, "__cudaRegisterFatBinary") != NULL || strstr(out, "__cudaRegisterLinkedBinary") != NULL;
  free(out);
}

/* A runtime library the program needs, if it was built. */
static bool need_lib(const pacc *p, strv *a, const char *name, const char *what) {
  if (!p->dry && !is_file(cat(cat(cat(p->libdir, "/lib"), name), ".a"))) {
    fprintf(stderr, "pacc: error: this program uses %s but the Parray runtime was built without it\n", what);
    return false;
  }
  push(a, cat("-l", name));
  return true;
}

/* Link the objects with the runtime: nvcc when an object needs CUDA, mpicc
 * when one needs MPI, else the C compiler. */
static int link_all(pacc *p) {
  for (int i = 0; i < p->nin; i++)
    if (p->in[i].kind == K_OBJ) read_needs(p, p->in[i].path);
  strv a = {0};
  compiler_head(p, &a, p->cuda, p->mpi);
  for (int i = 0; i < p->nin; i++) push(&a, p->in[i].kind == K_OBJ ? p->in[i].path : p->in[i].obj);
  push(&a, "-o"), push(&a, p->out ? p->out : "a.out");
  push(&a, cat("-L", p->libdir));
  /* an installed lib/ holds the shared runtime too: find it when run */
  push(&a, cat(p->cuda ? "-Xlinker=-rpath," : "-Wl,-rpath,", p->libdir));
  for (int i = 0; i < p->ldopts.n; i++) {
    const char *o = p->ldopts.v[i];
    push(&a, p->cuda && !strncmp(o, "-Wl,", 4) ? cat("-Xlinker=", o + 4) : o);
  }
  /* distributed dmem arrays (parray_mpi_cuda) when a program has both */
  bool ok = (!p->cuda || !p->mpi || need_lib(p, &a, "parray_mpi_cuda", "CUDA and MPI")) &&
            (!p->cuda || need_lib(p, &a, "parray_cuda", "CUDA")) && (!p->mpi || need_lib(p, &a, "parray_mpi", "MPI"));
  push(&a, "-lparray");
  if (p->cuda && p->mpi) mpi_flags_for_nvcc(p, &a, "link");
  push(&a, p->cuda ? "-Xcompiler=-pthread" : "-pthread");
  push(&a, "-lm");
  strv subst = {0}; /* the temporary objects and the translations' names in them */
  for (int i = 0; i < p->nin; i++)
    if (p->in[i].kind != K_OBJ) {
      push(&subst, p->in[i].obj), push(&subst, p->in[i].path);
      if (p->in[i].gen) push(&subst, strrchr(p->in[i].gen, '/') + 1), push(&subst, p->in[i].path);
    }
  int rc = ok ? run_full(p, &a, NULL, &subst) : 1;
  free(subst.v);
  free(a.v);
  return rc;
}

/* --keep: the translations next to the output, as OUT.gen.c / OUT.gen.cu
 * (OUT.K.gen.c with several). */
static void keep_or_remove(const pacc *p, bool ok) {
  int ngen = 0;
  for (int i = 0; i < p->nin; i++) ngen += p->in[i].gen != NULL;
  for (int i = 0, k = 0; i < p->nin; i++) {
    const input *in = &p->in[i];
    if (in->gen && p->keep && ok) {
      const char *out = p->mode == 'c' ? base_with(in->obj, "") : p->out ? p->out : "a.out";
      char num[16] = "";
      if (ngen > 1 && p->mode != 'c') snprintf(num, sizeof num, ".%d", k++);
      rename(in->gen, cat(cat(out, num), in->cuda ? ".gen.cu" : ".gen.c"));
    } else if (in->gen) {
      unlink(in->gen);
    }
    if (in->obj && p->mode == 'l') unlink(in->obj);
  }
}

/* Translate every .pc file, then compile every source, then link. */
static int build(pacc *p) {
  int rc = 0;
  for (int i = 0; i < p->nin && !rc; i++) {
    input *in = &p->in[i];
    if (in->kind == K_PC) {
      rc = translate(p, in, i);
      p->cuda |= in->cuda, p->mpi |= in->mpi, p->sm90 |= in->sm90;
    }
  }
  if (p->mode == 'E' || p->mode == 'M') {
    for (int i = 0; i < p->nin && !rc; i++)
      if (p->in[i].kind == K_C || p->in[i].kind == K_CU) rc = compile(p, &p->in[i], i);
    return rc;
  }
  for (int i = 0; i < p->nin && !rc; i++) {
    if (p->in[i].kind == K_CU) p->cuda = true;
    if (p->in[i].kind != K_OBJ) rc = compile(p, &p->in[i], i);
    else if (p->mode == 'c') fprintf(stderr, "pacc: warning: '%s': linker input file unused with -c\n", p->in[i].path);
  }
  if (!rc && p->mode == 'l') rc = link_all(p);
  keep_or_remove(p, !rc);
  return rc;
}

int main(int argc, char **argv) {
  pacc p = {0};
  int rc = parse_args(&p, argc, argv);
  if (rc) return rc == 1 ? 0 : rc;
  if (!find_runtime(&p)) return 1;
  char tmpl[] = "/tmp/pacc-XXXXXX";
  p.tmp = mkdtemp(tmpl);
  if (!p.tmp) {
    fprintf(stderr, "pacc: error: cannot create a temporary folder: %s\n", strerror(errno));
    return 1;
  }
  rc = build(&p);
  rmdir(p.tmp);
  own_free_all();
  strv *all[] = {&p.pacopts, &p.ccopts, &p.nvopts, &p.ldopts, &p.qdirs, &p.mt, &p.mpiinc};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) free(all[i]->v);
  free(p.in);
  return rc ? 1 : 0;
}
