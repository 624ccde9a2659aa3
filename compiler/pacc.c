/* pacc.c - the driver: `pacc FILE.pc -o PROG` translates each .pc file with
 * pac, then compiles and links the result with the Parray runtime using the
 * C compiler, mpicc for programs with mpi thread arrays, or nvcc for
 * programs with CUDA types. Options -I -D -U -O -g -W -f -std -l -L pass
 * through like a C compiler driver's. */
#define _DEFAULT_SOURCE 1
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct strv {
  const char **v;
  int n, cap;
} strv;

static void push(strv *a, const char *s) {
  if (a->n + 2 > a->cap) {
    a->cap = a->cap ? a->cap * 2 : 32;
    a->v = realloc(a->v, sizeof *a->v * (size_t)a->cap);
  }
  a->v[a->n++] = s;
  a->v[a->n] = NULL;
}

static bool verbose;

/* every string pacc allocates, freed at exit */
static strv owned;
static char *own(char *s) {
  push(&owned, s);
  return s;
}

static int run(strv *a) {
  if (verbose) {
    for (int i = 0; i < a->n; i++) fprintf(stderr, "%s%s", i ? " " : "", a->v[i]);
    fputc('\n', stderr);
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "pacc: error: cannot start '%s': %s\n", a->v[0], strerror(errno));
    return 1;
  }
  if (pid == 0) {
    execvp(a->v[0], (char *const *)a->v);
    fprintf(stderr, "pacc: error: cannot run '%s': %s\n", a->v[0], strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return 1;
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  fprintf(stderr, "pacc: error: '%s' was killed by signal %d\n", a->v[0], WTERMSIG(st));
  return 1;
}

static bool is_dir(const char *p) {
  struct stat s;
  return stat(p, &s) == 0 && S_ISDIR(s.st_mode);
}

static bool is_file(const char *p) {
  struct stat s;
  return stat(p, &s) == 0 && S_ISREG(s.st_mode);
}

static char *cat(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 1;
  char *s = malloc(n);
  snprintf(s, n, "%s%s", a, b);
  return own(s);
}

static bool ends(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

/* The absolute folder of source file `in`, added once to `dirs`. The
 * generated file is compiled in a temporary folder, so the compiler would no
 * longer look for `#include "local.h"` next to the source; these folders go
 * to the quote-include path instead. */
static bool add_source_dir(strv *dirs, const char *in) {
  const char *slash = strrchr(in, '/');
  char *dir = slash ? own(strndup(in, slash == in ? 1 : (size_t)(slash - in))) : ".";
  char *abs = realpath(dir, NULL);
  if (!abs) {
    fprintf(stderr, "pacc: error: cannot find the folder of '%s': %s\n", in, strerror(errno));
    return false;
  }
  own(abs);
  for (int i = 0; i < dirs->n; i++)
    if (!strcmp(dirs->v[i], abs)) return true;
  push(dirs, abs);
  return true;
}

/* `#include "..."` looks in `dir` before the -I folders and `#include <...>`
 * does not look there, as when the source is compiled where it lies: -iquote
 * for gcc and clang, and for nvcc through the host compiler, which
 * preprocesses both the host and the device passes (-Xcompiler splits its
 * value at commas, so a folder with a comma falls back to -I). */
static void push_quote_dir(strv *a, const char *dir, bool cuda) {
  if (!cuda) push(a, "-iquote"), push(a, dir);
  else if (strchr(dir, ',')) push(a, cat("-I", dir));
  else push(a, cat("-Xcompiler=-iquote", dir));
}

/* read "target=..." and "mpi=1" from the first lines pac wrote */
static void read_target(const char *path, bool *cuda, bool *mpi) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512];
  for (int i = 0; i < 3 && fgets(line, sizeof line, f); i++) {
    if (strstr(line, "/* pac: ")) {
      if (strstr(line, "target=cuda")) *cuda = true;
      if (strstr(line, "mpi=1")) *mpi = true;
    }
  }
  fclose(f);
}

/* "-arch" flags for nvcc: the GPU present, else a documented default list */
static void cuda_arch(strv *a) {
  const char *env = getenv("PACC_CUDA_ARCH");
  if (env && *env) {
    push(a, cat("-arch=", env));
    return;
  }
  FILE *p = popen("nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null", "r");
  char buf[64] = "";
  if (p) {
    if (!fgets(buf, sizeof buf, p)) buf[0] = 0;
    pclose(p);
  }
  int maj, min;
  if (sscanf(buf, "%d.%d", &maj, &min) == 2) {
    char *s = own(malloc(32));
    snprintf(s, 32, "-arch=sm_%d%d", maj, min);
    push(a, s);
    return;
  }
  push(a, "-gencode=arch=compute_80,code=sm_80");
  push(a, "-gencode=arch=compute_90,code=[sm_90,compute_90]");
}

static void usage(FILE *f) {
  fprintf(f, "usage: pacc [options] FILE.pc [more .pc .c .o files] -o PROG\n"
             "  -o FILE     output program (default a.out)\n"
             "  -c          compile only (one input, to FILE.o)\n"
             "  -I -D -U    to pac and the compiler;  -O -g -W* -f* -std= -m*  to the compiler\n"
             "  -l -L       to the linker\n"
             "  --emit=c|cuda, --no-line, --typedef NAME   to pac\n"
             "  --keep      keep the generated C/CUDA next to the output (OUT.gen.c / .cu)\n"
             "  -v          print the commands run\n"
             "environment: CC, NVCC, MPICC, PARRAY_HOME, PACC_CUDA_ARCH\n");
}

int main(int argc, char **argv) {
  char self[PATH_MAX];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) {
    fprintf(stderr, "pacc: error: cannot find my own location\n");
    return 1;
  }
  self[sl] = 0;
  char *bindir = own(strdup(self));
  *strrchr(bindir, '/') = 0;
  const char *home = getenv("PARRAY_HOME");
  char *incdir, *libdir;
  if (home && *home) {
    incdir = cat(home, "/include"), libdir = cat(home, "/lib");
  } else {
    incdir = cat(bindir, "/../include"), libdir = cat(bindir, "/../lib");
  }
  if (!is_dir(incdir) || !is_dir(libdir)) {
    fprintf(stderr, "pacc: error: cannot find the Parray runtime (%s, %s); set PARRAY_HOME\n", incdir, libdir);
    return 1;
  }
  char *pac = cat(bindir, "/pac");

  strv pacopts = {0}, ccopts = {0}, ldopts = {0}, inputs = {0}, others = {0};
  const char *out = NULL;
  bool compile_only = false, keep = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(a, "-c")) compile_only = true;
    else if (!strcmp(a, "-v")) verbose = true;
    else if (!strcmp(a, "--keep")) keep = true;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if ((!strcmp(a, "-I") || !strcmp(a, "-D") || !strcmp(a, "-U")) && i + 1 < argc) {
      push(&pacopts, a), push(&pacopts, argv[i + 1]);
      push(&ccopts, a), push(&ccopts, argv[i + 1]);
      i++;
    } else if (!strncmp(a, "-I", 2) || !strncmp(a, "-D", 2) || !strncmp(a, "-U", 2)) {
      push(&pacopts, a), push(&ccopts, a);
    } else if (!strncmp(a, "--emit=", 7) || !strcmp(a, "--no-line") || !strcmp(a, "--no-cpp")) {
      push(&pacopts, a);
    } else if (!strcmp(a, "--typedef") && i + 1 < argc) {
      push(&pacopts, a), push(&pacopts, argv[++i]);
    } else if (!strncmp(a, "-O", 2) || !strcmp(a, "-g") || !strncmp(a, "-W", 2) || !strncmp(a, "-f", 2) ||
               !strncmp(a, "-std=", 5) || !strncmp(a, "-m", 2) || !strncmp(a, "-g", 2)) {
      push(&ccopts, a);
    } else if ((!strcmp(a, "-l") || !strcmp(a, "-L")) && i + 1 < argc) {
      push(&ldopts, a), push(&ldopts, argv[++i]);
    } else if (!strncmp(a, "-l", 2) || !strncmp(a, "-L", 2) || !strncmp(a, "-Wl,", 4)) {
      push(&ldopts, a);
    } else if (a[0] == '-') {
      fprintf(stderr, "pacc: error: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (ends(a, ".pc")) {
      push(&inputs, a);
    } else {
      push(&others, a);
    }
  }
  if (inputs.n == 0 && others.n == 0) {
    usage(stderr);
    return 2;
  }
  if (!out) out = compile_only ? NULL : "a.out";

  char tmpl[] = "/tmp/pacc-XXXXXX";
  char *tmp = mkdtemp(tmpl);
  if (!tmp) {
    fprintf(stderr, "pacc: error: cannot create a temporary directory: %s\n", strerror(errno));
    return 1;
  }
  bool cuda = false, mpi = false;
  strv gens = {0}, qdirs = {0};
  int rc = 0;
  for (int k = 0; k < inputs.n && !rc; k++) {
    const char *in = inputs.v[k];
    const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    char *gen = own(malloc(strlen(tmp) + strlen(base) + 16));
    sprintf(gen, "%s/%d-%.*s.gen", tmp, k, (int)(strlen(base) - 3), base);
    strv a = {0};
    push(&a, pac);
    for (int i = 0; i < pacopts.n; i++) push(&a, pacopts.v[i]);
    push(&a, cat("-I", incdir)); /* the runtime's headers, as the compiler will see them */
    push(&a, in);
    push(&a, "-o");
    push(&a, gen);
    rc = run(&a);
    free(a.v);
    if (!rc && !add_source_dir(&qdirs, in)) rc = 1;
    if (rc) break;
    bool c = false, m = false;
    read_target(gen, &c, &m);
    cuda |= c, mpi |= m;
    char *named = cat(gen, c ? ".cu" : ".c");
    rename(gen, named);
    push(&gens, named);
  }
  if (!rc) {
    for (int i = 0; i < others.n; i++) cuda |= ends(others.v[i], ".cu");
    strv a = {0};
    const char *cc = cuda ? (getenv("NVCC") ? getenv("NVCC") : "nvcc")
                          : mpi ? (getenv("MPICC") ? getenv("MPICC") : "mpicc")
                                : (getenv("CC") ? getenv("CC") : "cc");
    push(&a, cc);
    if (cuda) {
      cuda_arch(&a);
      push(&a, "-Xcompiler=-Wno-unused-parameter");
      if (mpi) {
        /* compile and link with MPI through the host compiler's flags */
        FILE *p = popen("mpicc --showme:compile 2>/dev/null; mpicc --showme:link 2>/dev/null", "r");
        char buf[4096];
        while (p && fscanf(p, "%4095s", buf) == 1) push(&a, strncmp(buf, "-pthread", 8) ? own(strdup(buf)) : "-Xcompiler=-pthread");
        if (p) pclose(p);
      }
    }
#ifdef PACC_SANITIZE
    if (!cuda) push(&a, "-fsanitize=address,undefined"), push(&a, "-fno-omit-frame-pointer");
#endif
    for (int i = 0; i < qdirs.n; i++) push_quote_dir(&a, qdirs.v[i], cuda);
    for (int i = 0; i < ccopts.n; i++) {
      if (cuda && (!strncmp(ccopts.v[i], "-W", 2) || !strncmp(ccopts.v[i], "-f", 2) || !strncmp(ccopts.v[i], "-m", 2)))
        push(&a, cat("-Xcompiler=", ccopts.v[i]));
      else if (cuda && !strncmp(ccopts.v[i], "-std=", 5))
        continue; /* the .cu is compiled as C++ */
      else
        push(&a, ccopts.v[i]);
    }
    push(&a, cat("-I", incdir));
    if (compile_only) push(&a, "-c");
    for (int i = 0; i < gens.n; i++) push(&a, gens.v[i]);
    for (int i = 0; i < others.n; i++) push(&a, others.v[i]);
    if (out) push(&a, "-o"), push(&a, out);
    if (!compile_only) {
      push(&a, cat("-L", libdir));
      /* an installed lib/ holds the shared runtime too: find it when run */
      push(&a, cat(cuda ? "-Xlinker=-rpath," : "-Wl,-rpath,", libdir));
      for (int i = 0; i < ldopts.n; i++) push(&a, ldopts.v[i]);
      if (cuda) {
        if (!is_file(cat(libdir, "/libparray_cuda.a"))) {
          fprintf(stderr, "pacc: error: this program uses CUDA but the runtime was built without it\n");
          rc = 1;
        }
        push(&a, "-lparray_cuda");
      }
      if (mpi) {
        if (!is_file(cat(libdir, "/libparray_mpi.a"))) {
          fprintf(stderr, "pacc: error: this program uses MPI but the runtime was built without it\n");
          rc = 1;
        }
        push(&a, "-lparray_mpi");
      }
      push(&a, "-lparray");
      push(&a, cuda ? "-Xcompiler=-pthread" : "-pthread");
      push(&a, "-lm");
    }
    if (!rc) rc = run(&a) ? 1 : 0;
    free(a.v);
  }
  for (int i = 0; i < gens.n; i++) {
    if (keep && out && !rc) {
      char *dst = cat(out, ends(gens.v[i], ".cu") ? ".gen.cu" : ".gen.c");
      if (gens.n > 1) {
        char num[16];
        snprintf(num, sizeof num, ".%d", i);
        dst = cat(cat(out, num), ends(gens.v[i], ".cu") ? ".gen.cu" : ".gen.c");
      }
      rename(gens.v[i], dst);
    } else {
      unlink(gens.v[i]);
    }
  }
  rmdir(tmp);
  for (int i = 0; i < owned.n; i++) free((char *)owned.v[i]);
  free(owned.v);
  free(pacopts.v), free(ccopts.v), free(ldopts.v), free(inputs.v), free(others.v), free(gens.v),
      free(qdirs.v);
  return rc;
}
