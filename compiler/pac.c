/* pac.c - the translator's command line: reads the options and hands the
 * translation to pac_translate (translate.c). */
#define _DEFAULT_SOURCE 1 /* readlink */
#include "translate.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

  /* pac's own include folder (bin/../include) holds the shipped .pc
   * libraries; PARRAY_HOME/include instead when set, as for pacc */
  char selfinc[PATH_MAX] = "";
  const char *home = getenv("PARRAY_HOME");
  if (home && *home) {
    snprintf(selfinc, sizeof selfinc, "%s/include", home);
  } else {
    ssize_t sl = readlink("/proc/self/exe", selfinc, sizeof selfinc - 20);
    selfinc[sl > 0 ? sl : 0] = 0;
    char *sl2 = strrchr(selfinc, '/');
    if (sl2) strcpy(sl2, "/../include");
  }
  pac_io io = {.err = stderr, .selfinc = selfinc[0] ? selfinc : NULL};
  int status = pac_translate(&opt, &io);
  free(cpp_args);
  free(tds);
  return status;
}
