/* fuzz_translate.c - libFuzzer target: the bytes are a .pc file, translated
 * in memory by pac_translate (no preprocessor run) with the output and the
 * diagnostics thrown away. Any crash, sanitizer report, leak or hang is a
 * bug. The input's length picks the target and #line markers, so that the
 * CUDA and C emitters and both printer modes are all exercised. */
#include "translate.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink(void) {
  static FILE *f;
  if (!f) f = fopen("/dev/null", "w");
  if (!f) abort(); /* nowhere to write: nothing can be tested */
  return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int targets[3] = {TARGET_AUTO, TARGET_C, TARGET_CUDA};
  static const char *cpp_args[1], *typedefs[1];
  pac_options opt = {
      /* a folder that does not exist: #include "x.pc" finds nothing beside it */
      .input = "/nonexistent-pac-fuzz/fuzz.pc",
      .target = targets[size % 3],
      .lines = (size / 3) % 2 == 0,
      .cpp = "false",
      .no_cpp = true,
      .cpp_args = cpp_args,
      .typedefs = typedefs,
  };
  pac_io io = {.text = (const char *)data, .len = size, .out = sink(), .err = sink()};
  pac_translate(&opt, &io);
  return 0;
}
