/* fuzz_translate.c - libFuzzer target: the bytes are a .pc file, translated
 * in memory by pac_translate (no preprocessor run) with the output and the
 * diagnostics thrown away. Any crash, sanitizer report, leak or hang is a
 * bug. An 0xff prefix and two bytes pick pac's options (see below), so that
 * the command line is fuzzed too: both targets, both printer modes, -D,
 * --layout, -M and -MD, --typedef, -Werror, -w and the #insert limits. */
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

/* An input that starts with 0xff has two bytes of pac's options after it,
 * the rest is the .pc file: byte 1 bit 0 -DFUZZ=1, bit 1 --layout (of a
 * type named A, B, ... by bits 5-7), bit 2 -M (the rule to /dev/null, nothing translated), bit 3 -MD (the
 * rule to /dev/null too), bit 4 small #insert limits (3 deep, 4 KiB);
 * bits 0-1 of byte 2 the target, bit 2 no #line markers, bit 3 --typedef T,
 * bit 4 -Werror, bit 5 -w. Nothing is written outside /dev/null. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int targets[4] = {TARGET_AUTO, TARGET_C, TARGET_CUDA, TARGET_AUTO};
  static const char *const layouts[8] = {"A", "B", "C", "M", "T", "X", "A_0", "A_1_0"};
  static const char *defines[2] = {"-D", "FUZZ=1"}, *typedefs[1] = {"T"};
  /* without the 0xff prefix the length picks the target and the markers */
  uint8_t f0 = 0, f1 = (uint8_t)(size % 3 | ((size / 3) % 2 ? 4 : 0));
  size_t skip = 0;
  if (size >= 3 && data[0] == 0xff) f0 = data[1], f1 = data[2], skip = 3;
  pac_options opt = {
      /* a folder that does not exist: #include "x.pc" finds nothing beside it */
      .input = "/nonexistent-pac-fuzz/fuzz.pc",
      .target = targets[f1 & 3],
      .lines = !(f1 & 4),
      .layout = (f0 & 2) ? layouts[f0 >> 5] : NULL,
      .cpp = "false",
      .no_cpp = true,
      .cpp_args = defines,
      .ncpp_args = (f0 & 1) ? 2 : 0,
      .typedefs = typedefs,
      .ntypedefs = (f1 & 8) ? 1 : 0,
      .max_insert_depth = (f0 & 16) ? 3 : 0,
      .max_insert_bytes = (f0 & 16) ? 4096 : 0,
  };
  pac_deps deps = {.only = (f0 & 4) != 0, .phony = true, .file = "/dev/null"};
  pac_io io = {.text = (const char *)data + skip, .len = size - skip, .out = sink(), .err = sink(),
               .deps = (f0 & 12) ? &deps : NULL, .werror = (f1 & 16) != 0, .no_warnings = (f1 & 32) != 0};
  pac_translate(&opt, &io);
  return 0;
}
