/* SPDX-License-Identifier: Apache-2.0 */
/* pacc.c - the driver, a compiler command like gcc and nvcc: `pacc FILE.pc
 * -o PROG` translates each .pc file with pac, compiles each source to an
 * object (the C compiler, mpicc for programs with mpi thread arrays, nvcc
 * for CUDA), and links the objects with the Parray runtime. pac tells
 * what a translation needs in a record (needs.h, --needs=FILE), which
 * objects from .pc files carry in a section .parray.needs, read back when
 * they are linked, so that `pacc -c` then `pacc a.o b.o` picks the same
 * linker and runtime libraries. Options follow gcc's (-c -S -E -M... -o -v
 * -### -x -shared @FILE) and nvcc's (-arch -G -lineinfo -Xcompiler ...);
 * `pacc --help` lists them all. The command line: pacc_args.c; the
 * temporary folder: pacc_tmp.c; running the commands it builds:
 * pacc_run.c. */
#define _DEFAULT_SOURCE 1
#include "pacc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *p) {
  struct stat s;
  return stat(p, &s) == 0 && S_ISDIR(s.st_mode);
}

static bool is_file(const char *p) {
  struct stat s;
  return stat(p, &s) == 0 && S_ISREG(s.st_mode);
}

/* Run a command as -v and -### say (run_cmd). */
static int run_full(const pacc *p, const strv *a, char **out, const strv *from) {
  return run_cmd((run_show){p->verbose, p->dry}, a, out, from);
}

static int run_to(const pacc *p, const strv *a, char **out) { return run_full(p, a, out, NULL); }

static int run(const pacc *p, const strv *a) { return run_to(p, a, NULL); }

/* The installed tree's folders (GNUInstallDirs, set by
 * cmake/ParrayInstall.cmake): the headers' and the libraries' relative to
 * the prefix (or absolute), and the prefix relative to bin. */
#ifndef PARRAY_INCLUDEDIR
#define PARRAY_INCLUDEDIR "include"
#endif
#ifndef PARRAY_LIBDIR
#define PARRAY_LIBDIR "lib"
#endif
#ifndef PARRAY_BIN_TO_PREFIX
#define PARRAY_BIN_TO_PREFIX ".."
#endif

/* dir under prefix, unless dir is absolute */
static const char *under(const char *prefix, const char *dir) {
  return dir[0] == '/' ? dir : cat(cat(prefix, "/"), dir);
}

/* pac, the runtime's headers and libraries: in the tree pacc was installed
 * in (bin/../include, bin/../lib: the folders above), or under $PARRAY_HOME;
 * include and lib beside bin when those are missing (the build tree). */
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
  const char *prefix = home && *home ? home : cat(cat(bindir, "/"), PARRAY_BIN_TO_PREFIX);
  p->incdir = under(prefix, PARRAY_INCLUDEDIR), p->libdir = under(prefix, PARRAY_LIBDIR);
  if (!is_dir(p->incdir)) p->incdir = cat(prefix, "/include");
  if (!is_dir(p->libdir)) p->libdir = cat(prefix, "/lib");
  if (!is_dir(p->incdir) || !is_dir(p->libdir)) {
    fprintf(stderr, "pacc: error: cannot find the Parray runtime (%s, %s); set PARRAY_HOME\n", p->incdir,
            p->libdir);
    return false;
  }
  p->pac = cat(bindir, "/pac");
  return true;
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

/* -fPIC for the sources of a -shared library, unless -fpic or -fPIC was given */
static bool add_pic(const pacc *p) {
  for (int i = 0; i < p->ccopts.n; i++)
    if (!strcmp(p->ccopts.v[i], "-fPIC") || !strcmp(p->ccopts.v[i], "-fpic")) return false;
  return p->shared;
}

/* An option of ccopts that nvcc gives its host compiler (-Xcompiler=) */
static bool host_only(const char *o) {
  return !strncmp(o, "-W", 2) || !strncmp(o, "-f", 2) || !strncmp(o, "-m", 2) || !strcmp(o, "-pthread") ||
         !strncmp(o, "-pedantic", 9) || !strcmp(o, "-pipe");
}

/* -g asks for debug information: on the host as the C compiler gives it,
 * and on the device as line information (nvcc's -lineinfo), unless nvcc's
 * own -G (device debug) or -lineinfo was given. */
static bool device_lineinfo(const pacc *p) {
  bool g = false;
  for (int i = 0; i < p->ccopts.n; i++)
    if (!strncmp(p->ccopts.v[i], "-g", 2)) g = strcmp(p->ccopts.v[i], "-g0") != 0;
  for (int i = 0; i < p->nvopts.n; i++) {
    const char *o = p->nvopts.v[i];
    if (!strcmp(o, "-G") || !strcmp(o, "--device-debug") || !strcmp(o, "-lineinfo") ||
        !strcmp(o, "--generate-line-info"))
      return false;
  }
  return g;
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
    if (device_lineinfo(p)) push(a, "-lineinfo");
    if (mpi) mpi_flags_for_nvcc(p, a, "compile");
  }
#ifdef PACC_SANITIZE
  if (!cuda) push(a, "-fsanitize=address,undefined"), push(a, "-fno-omit-frame-pointer");
#endif
  for (int i = 0; i < p->ccopts.n; i++) {
    const char *o = p->ccopts.v[i];
    if (cuda && host_only(o)) push(a, cat("-Xcompiler=", o));
    else if (!(cuda && !strncmp(o, "-std=", 5))) /* the .cu is C++: --std is nvcc's */
      push(a, o);
  }
  if (add_pic(p)) push(a, cuda ? "-Xcompiler=-fPIC" : "-fPIC");
  if (p->nowarn) push(a, "-w");
  if (p->werror) push(a, cuda ? "-Xcompiler=-Werror" : "-Werror");
}

/* nvcc's host compiler, for the assembly of CUDA code (-S): -ccbin's (a
 * folder: its gcc), else $NVCC_CCBIN, else gcc, as nvcc picks it; with the
 * options nvcc would give it. */
static void host_compiler(const pacc *p, strv *a) {
  const char *cc = getenv("NVCC_CCBIN");
  for (int i = 0; i < p->nvopts.n; i++) {
    const char *o = p->nvopts.v[i], *eq = strchr(o, '=');
    if (eq && (!strncmp(o, "-ccbin=", 7) || !strncmp(o, "--compiler-bindir=", 18))) cc = eq + 1;
  }
  if (!cc || !*cc) cc = "gcc";
  else if (is_dir(cc)) cc = cat(cc, "/gcc");
  push(a, cc);
  push(a, "-Wno-unused-parameter");
  for (int i = 0; i < p->ccopts.n; i++)
    if (strncmp(p->ccopts.v[i], "-std=", 5)) push(a, p->ccopts.v[i]);
  for (int i = 0; i < p->nvopts.n; i++) { /* -Xcompiler=A,B */
    const char *o = p->nvopts.v[i];
    if (strncmp(o, "-Xcompiler=", 11) && strncmp(o, "--compiler-options=", 19)) continue;
    for (char *t = strtok(own(strdup(strchr(o, '=') + 1)), ","); t; t = strtok(NULL, ",")) push(a, t);
  }
  if (add_pic(p)) push(a, "-fPIC");
  if (p->nowarn) push(a, "-w");
  if (p->werror) push(a, "-Werror");
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
  bool each = p->mode == 'c' || p->mode == 'S'; /* an output for each source */
  const char *file = p->mf ? p->mf : p->mode == 'M' ? p->out : NULL;
  if (!file && each) /* -c -o X.o: X.d */
    file = cat(own(strndup(in->obj, strlen(in->obj) - (pacc_ends(in->obj, p->mode == 'c' ? ".o" : ".s") ? 2 : 0))),
               ".d");
  if (!file && p->mode == 'l') file = base_with(in->path, ".d");
  if (file) push(a, "-MF"), push(a, file);
  const char *target = each             ? in->obj
                       : p->mode != 'l' ? base_with(in->path, ".o")
                       : p->out         ? p->out
                                        : "a.out";
  if (p->mt.n) push_all(a, &p->mt);
  else push(a, "-MT"), push(a, target);
  if (p->mp) push(a, "-MP");
}

/* What the translation needs, from the record pac wrote to `file`
 * (--needs=FILE, needs.h). */
static bool read_translation_needs(input *in, const char *file) {
  FILE *f = fopen(file, "r");
  char line[512];
  int version = f && fgets(line, sizeof line, f) ? pac_needs_parse(line, &in->needs) : -1;
  if (f) fclose(f);
  if (version < 0) {
    fprintf(stderr, "pacc: error: pac wrote no record of what '%s' needs in '%s'\n", in->path, file);
    return false;
  }
  in->cuda |= in->needs.cuda, in->mpi |= in->needs.mpi, in->sm90 |= in->needs.sm >= 90;
  return true;
}

/* What the object needs when it is linked (the record pac wrote), in a
 * section of its own that read_needs finds again in .o and .a files,
 * wherever they were moved. */
static bool append_needs(const char *gen, const pac_needs *n) {
  char rec[128];
  if (!pac_needs_format(n, rec, sizeof rec)) return false;
  FILE *f = fopen(gen, "a");
  if (!f) return false;
  fprintf(f, "\n/* pacc: what this object needs at link time (pacc reads it back) */\n"
             "static const char parray_needs_[] __attribute__((used, section(\".parray.needs\"))) = \"%s\";\n",
          rec);
  return fclose(f) == 0;
}

/* A temporary file of input in: TMP/BASE+suffix */
static const char *temp_file(const pacc *p, const input *in, const char *suffix) {
  return cat(cat(cat(p->tmp, "/"), in->base), suffix);
}

/* The object of input in: NAME.o in the working folder (or -o's) with -c,
 * NAME.s with -S, else a temporary one. */
static void set_obj(const pacc *p, input *in) {
  if (p->mode == 'c' || p->mode == 'S') in->obj = p->out ? p->out : base_with(in->path, p->mode == 'c' ? ".o" : ".s");
  else in->obj = temp_file(p, in, ".o");
}

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

/* Translate one .pc file with pac: to in->gen (.c or .cu) in the temporary
 * folder, or with -E to -o's file or stdout, or with -M only its rule. */
static int translate(pacc *p, input *in) {
  set_obj(p, in);
  strv a = {0};
  push(&a, p->pac);
  push_all(&a, &p->pacopts);
  push_all(&a, &p->ppopts);
  push(&a, cat("-I", p->incdir)); /* the runtime's headers, as the compiler will see them */
  push_all(&a, mpi_incdirs(p));
  if (p->werror) push(&a, "-Werror");
  if (p->nowarn) push(&a, "-w");
  dep_args(p, &a, in);
  push(&a, in->path);
  const char *gen = temp_file(p, in, ".gen"), *needs = temp_file(p, in, ".needs");
  if (p->mode == 'E') push(&a, "-o"), push(&a, p->out ? p->out : "-");
  else if (p->mode != 'M') push(&a, "-o"), push(&a, gen), push(&a, cat("--needs=", needs));
  int rc = run(p, &a);
  free(a.v);
  if (rc || p->mode == 'E' || p->mode == 'M') return rc;
  if (!add_source_dir(p, in->path)) return 1;
  in->gen = gen;
  if (p->dry) {
    for (int i = 0; i < p->pacopts.n; i++) in->cuda |= !strcmp(p->pacopts.v[i], "--emit=cuda");
  } else if (!read_translation_needs(in, needs)) {
    return 1;
  }
  char *named = cat(gen, in->cuda ? ".cu" : ".c");
  if (!p->dry && (rename(gen, named) || !append_needs(named, &in->needs))) {
    fprintf(stderr, "pacc: error: cannot write '%s': %s\n", named, strerror(errno));
    return 1;
  }
  in->gen = named;
  return 0;
}

/* -fdebug-prefix-map=TMP=CWD: debug information names the .pc file from
 * the working folder (the #line names of a translation are relative to its
 * temporary folder); NULL where the working folder is unknown or has a
 * comma (-Xcompiler would split it). */
static const char *debug_map(const pacc *p) {
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd) || strchr(cwd, ',')) return NULL;
  return cat(cat(cat("-fdebug-prefix-map=", p->tmp), "="), cwd);
}

/* The compiler's command for one source, up to its output: the compiler
 * and its options, the include folders, the debug map, the dependency
 * options, `step` (-c, -S, -E, -cuda or NULL) and the source. */
static void source_cmd(pacc *p, const input *in, bool cuda, const char *step, strv *a) {
  const char *src = in->gen ? in->gen : in->path;
  compiler_head(p, a, cuda, p->mpi);
  push_all(a, &p->ppopts);
  push_quote_dirs(p, a, cuda);
  push(a, cat("-I", p->incdir));
  const char *map = in->gen ? debug_map(p) : NULL;
  if (map) push(a, cuda ? cat("-Xcompiler=", map) : map);
  if (!in->gen) dep_args(p, a, in);
  if (step) push(a, step);
  bool lang = !in->gen && (in->kind == K_C) != pacc_ends(src, ".c") && in->kind != K_CU;
  if (lang) push(a, "-x"), push(a, "c");
  push(a, src);
  if (lang) push(a, "-x"), push(a, "none");
}

/* Run a compiler on input in, its messages naming the .pc file where they
 * name the temporary file `tmpname` (or the translation). */
static int run_on(const pacc *p, const input *in, const strv *a, const char *tmpname) {
  if (!in->gen && !tmpname) return run(p, a);
  strv subst = {0};
  if (tmpname) push(&subst, tmpname), push(&subst, in->path);
  if (in->gen) push(&subst, in->gen), push(&subst, in->path);
  int rc = run_full(p, a, NULL, &subst);
  free(subst.v);
  return rc;
}

/* -S of CUDA code: nvcc writes the host code, its device code built in
 * (nvcc -cuda), and nvcc's host compiler turns that into assembly, which
 * assembles to the object nvcc -c would have written. */
static int cuda_assembly(pacc *p, input *in) {
  const char *ii = temp_file(p, in, ".cu.ii");
  strv a = {0};
  source_cmd(p, in, true, "-cuda", &a);
  push(&a, "-o"), push(&a, ii);
  int rc = run_on(p, in, &a, NULL);
  free(a.v);
  if (rc) return rc;
  strv h = {0};
  host_compiler(p, &h);
  const char *map = in->gen ? debug_map(p) : NULL;
  if (map) push(&h, map);
  push(&h, "-S"), push(&h, ii), push(&h, "-o"), push(&h, in->obj);
  rc = run_on(p, in, &h, ii);
  free(h.v);
  if (!p->dry) unlink(ii);
  return rc;
}

/* Compile one source (a translation, or a .c/.cu input) to in->obj (with -S
 * to assembly); with -E or -M, only preprocess it or print its rule. */
static int compile(pacc *p, input *in) {
  bool cuda = in->kind == K_CU || in->cuda;
  set_obj(p, in);
  if (cuda && p->mode == 'S') return cuda_assembly(p, in);
  strv a = {0};
  const char *step = p->mode == 'E' ? "-E" : p->mode == 'M' ? NULL : p->mode == 'S' ? "-S" : "-c";
  source_cmd(p, in, cuda, step, &a);
  if (p->mode == 'E' && p->out) push(&a, "-o"), push(&a, p->out);
  if (p->mode == 'c' || p->mode == 'S' || p->mode == 'l') push(&a, "-o"), push(&a, in->obj);
  int rc = run_on(p, in, &a, NULL);
  free(a.v);
  return rc;
}

/* What an object or archive given to the linker needs: the records of its
 * .parray.needs strings (needs.h; an older pacc's "pacc-needs: ..." too),
 * and CUDA when it registers device code. */
static void read_needs(pacc *p, const char *path) {
  strv a = {0};
  push(&a, "readelf"), push(&a, "-W"), push(&a, "-s"), push(&a, "-p"), push(&a, ".parray.needs"), push(&a, path);
  char *out = NULL;
  run_to(p, &a, &out);
  free(a.v);
  if (!out) return;
  pac_needs n = {0};
  for (char *s = out; *s; s++) /* readelf: "  [     0]  parray-needs 1 target=cuda pthd" */
    if ((s == out || s[-1] == ' ') && pac_needs_parse(s, &n) > PAC_NEEDS_VERSION)
      fprintf(stderr, "pacc: warning: '%s' says what it needs in a newer record than this pacc reads\n", path);
  p->cuda |= n.cuda, p->mpi |= n.mpi;
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
  if (p->shared) push(&a, "-shared");
  for (int i = 0; i < p->ldopts.n; i++) {
    const char *o = p->ldopts.v[i];
    if (p->cuda && !strncmp(o, "-Wl,", 4)) push(&a, cat("-Xlinker=", o + 4));
    else if (p->cuda && !strcmp(o, "-static")) push(&a, "-Xcompiler=-static");
    else push(&a, o);
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

/* Move a file, across file systems too (TMPDIR on another one than the
 * output); false with errno set. */
static bool move_file(const char *from, const char *to) {
  if (rename(from, to) == 0) return true;
  if (errno != EXDEV) return false;
  FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
  bool ok = out != NULL;
  char buf[1 << 16];
  for (size_t n; ok && (n = fread(buf, 1, sizeof buf, in)) > 0;) ok = fwrite(buf, 1, n, out) == n;
  ok = ok && !ferror(in);
  int e = errno;
  if (in) fclose(in);
  if (out && fclose(out) != 0) ok = false, e = errno;
  if (ok) unlink(from);
  errno = e;
  return ok;
}

/* --keep, -save-temps: each translation named after its source (x.pc:
 * x.gen.c or x.gen.cu), beside the output or in the working folder; the
 * other temporary files removed. */
static void keep_or_remove(const pacc *p, bool ok) {
  for (int i = 0; i < p->nin; i++) {
    const input *in = &p->in[i];
    if (in->gen && p->keep && ok) {
      const char *out = p->mode == 'l' ? (p->out ? p->out : "a.out") : in->obj;
      const char *slash = strrchr(out, '/');
      const char *dir = p->keep == 'o' && slash ? own(strndup(out, (size_t)(slash - out) + 1)) : "";
      const char *kept = cat(cat(dir, in->base), in->cuda ? ".gen.cu" : ".gen.c");
      if (!move_file(in->gen, kept))
        fprintf(stderr, "pacc: warning: cannot keep '%s': %s\n", kept, strerror(errno));
    } else if (in->gen) {
      unlink(in->gen);
    }
    if (in->obj && p->mode == 'l') unlink(in->obj);
  }
}

/* The name each source's temporary files start with: its own (d/x.pc: x),
 * with -K added where another source has that name too (a/x.pc b/x.c), so
 * that no two of them share a file. */
static void name_inputs(pacc *p) {
  for (int k = 0; k < p->nin; k++) {
    input *in = &p->in[k];
    if (in->kind == K_OBJ) continue;
    const char *b = base_with(in->path, "");
    for (int n = 0;; n++) {
      char num[24] = "";
      if (n) snprintf(num, sizeof num, "-%d", n);
      const char *cand = cat(b, num);
      bool taken = false;
      for (int j = 0; j < p->nin && !taken; j++)
        taken = j != k && p->in[j].kind != K_OBJ &&
                ((j < k && !strcmp(p->in[j].base, cand)) || (n && !strcmp(base_with(p->in[j].path, ""), cand)));
      if (!taken) {
        in->base = cand;
        break;
      }
    }
  }
}

/* Translate every .pc file, then compile every source, then link. */
static int build(pacc *p) {
  int rc = 0;
  name_inputs(p);
  for (int i = 0; i < p->nin && !rc; i++) {
    input *in = &p->in[i];
    if (in->kind == K_PC) {
      rc = translate(p, in);
      p->cuda |= in->cuda, p->mpi |= in->mpi, p->sm90 |= in->sm90;
    }
  }
  if (p->mode == 'E' || p->mode == 'M') {
    for (int i = 0; i < p->nin && !rc; i++)
      if (p->in[i].kind == K_C || p->in[i].kind == K_CU) rc = compile(p, &p->in[i]);
    return rc;
  }
  for (int i = 0; i < p->nin && !rc; i++) {
    if (p->in[i].kind == K_CU) p->cuda = true;
    if (p->in[i].kind != K_OBJ) rc = compile(p, &p->in[i]);
    else if (p->mode != 'l')
      fprintf(stderr, "pacc: warning: '%s': linker input file unused with -%c\n", p->in[i].path, p->mode);
  }
  if (!rc && p->mode == 'l') rc = link_all(p);
  keep_or_remove(p, !rc);
  return rc;
}

/* What the command writes, to name its temporary folder: the program, or
 * the object or assembly of each source. */
static void outputs(const pacc *p, strv *o) {
  push(o, p->mode == 'l' ? "l" : p->mode == 'S' ? "S" : "c");
  if (p->mode == 'l') push(o, p->out ? p->out : "a.out");
  else if (p->out) push(o, p->out);
  else
    for (int i = 0; i < p->nin; i++)
      if (p->in[i].kind != K_OBJ) push(o, base_with(p->in[i].path, p->mode == 'S' ? ".s" : ".o"));
}

int main(int argc, char **argv) {
  pacc p = {.tmplock = -1};
  strv args = {0}; /* the command line, response files expanded */
  int rc = pacc_parse_args(&p, argc, argv, &args);
  /* the translations and objects, in a folder named after what the command writes */
  bool files = p.mode == 'l' || p.mode == 'c' || p.mode == 'S';
  strv out = {0};
  if (!rc) outputs(&p, &out);
  if (!rc) rc = !find_runtime(&p) || !pacc_tmp_open(&p, &out, files && !p.dry) ? 3 : 0;
  if (!rc) rc = build(&p) ? 3 : 0;
  pacc_tmp_close(&p);
  own_free_all();
  strv *all[] = {&args, &out, &p.pacopts, &p.ppopts, &p.ccopts, &p.nvopts, &p.ldopts, &p.qdirs, &p.mt, &p.mpiinc};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) free(all[i]->v);
  free(p.in);
  return rc == 1 ? 0 : rc == 3 ? 1 : rc;
}
