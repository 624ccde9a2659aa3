/* test_diag.c - unit test of how diagnostics show the source line: whole
 * short lines, a window of long ones ("..." where cut, whole UTF-8
 * characters, tabs kept under the caret), ranges longer than the window,
 * and locations at the end of a line or of the file. */
#define _POSIX_C_SOURCE 200809L
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
      failures++;                                          \
    }                                                      \
  } while (0)

/* The diagnostic for [b, e) in text, as printed (caller frees). */
static char *report(const char *text, size_t len, uint32_t b, uint32_t e) {
  srcfile f;
  src_from_string(&f, "t.pc", text, (uint32_t)len);
  char *out = NULL;
  size_t outlen = 0;
  FILE *m = open_memstream(&out, &outlen);
  diag d;
  diag_init(&d, &f, m);
  diag_error(&d, (loc){b, e}, "msg");
  fclose(m);
  src_free(&f);
  return out;
}

static void expect(const char *what, const char *text, uint32_t b, uint32_t e, const char *want) {
  char *got = report(text, strlen(text), b, e);
  CHECK(!strcmp(got, want), "%s:\n--- want\n%s--- got\n%s", what, want, got);
  free(got);
}

/* line i (0-based) of s, without its newline, in buf */
static const char *nth_line(const char *s, int i, char *buf, size_t n) {
  while (i-- > 0 && s) s = strchr(s, '\n'), s = s ? s + 1 : s;
  if (!s) return "";
  size_t k = strcspn(s, "\n");
  snprintf(buf, n, "%.*s", (int)(k < n - 1 ? k : n - 1), s);
  return buf;
}

static void short_lines(void) {
  expect("short line", "int x = $A$;\n", 8, 11, "t.pc:1:9: error: msg\n 1 | int x = $A$;\n   |         ^~~\n");
  expect("tab kept", "\tint x;\n", 5, 6, "t.pc:1:6: error: msg\n 1 | \tint x;\n   | \t    ^\n");
  expect("at the end of the line", "ab\ncd\n", 2, 2, "t.pc:1:3: error: msg\n 1 | ab\n   |   ^\n");
  expect("at the end of the file", "ab\ncd", 5, 5, "t.pc:2:3: error: msg\n 2 | cd\n   |   ^\n");
  expect("range past the line", "ab\ncd\n", 0, 5, "t.pc:1:1: error: msg\n 1 | ab\n   | ^~\n");
}

/* a 1000-byte line of digits with the caret at 500 */
static void long_line(void) {
  char text[1002];
  for (int i = 0; i < 1000; i++) text[i] = (char)('0' + i % 10);
  text[1000] = '\n', text[1001] = 0;
  char *got = report(text, 1001, 500, 503);
  char l1[512], l2[512];
  nth_line(got, 1, l1, sizeof l1), nth_line(got, 2, l2, sizeof l2);
  CHECK(!strncmp(got, "t.pc:1:501: error: msg\n", 23), "position: %.40s", got);
  CHECK(!strncmp(l1, " 1 | ...", 8), "cut at the start: %.20s", l1);
  CHECK(strlen(l1) > 3 && !strcmp(l1 + strlen(l1) - 3, "..."), "cut at the end: %s", l1);
  CHECK(strlen(l1) < 260, "window of %zu bytes", strlen(l1));
  const char *caret = strchr(l2, '^');
  CHECK(caret && !strncmp(caret, "^~~", 3) && caret[3] != '~', "range: %s", l2);
  /* the caret stands under byte 500 ('0'), 100 bytes after the window's start */
  CHECK(caret && (size_t)(caret - l2) < strlen(l1) && l1[caret - l2] == '0' && l1[caret - l2 + 1] == '1',
        "caret under %c", caret ? l1[caret - l2] : '?');
  CHECK(caret && caret - l2 == 8 + 100, "caret at column %d", caret ? (int)(caret - l2) : -1);
  free(got);
  /* a range of the whole line: at most the window of '~' */
  got = report(text, 1001, 10, 990);
  nth_line(got, 2, l2, sizeof l2);
  CHECK(strlen(l2) < 340, "caret line of %zu bytes", strlen(l2));
  CHECK(strstr(l2, "^~~~") != NULL, "range shown: %s", l2);
  free(got);
}

/* 'é' (2 bytes) straddling the window's start and end: never split */
static void utf8_not_split(void) {
  for (int shift = 0; shift < 2; shift++) {
    char text[800];
    size_t n = 0;
    while (n < 300) n += (size_t)sprintf(text + n, "\xc3\xa9");
    if (shift) text[n++] = 'x';
    size_t at = n;
    n += (size_t)sprintf(text + n, "ERR");
    while (n < 700) n += (size_t)sprintf(text + n, "\xc3\xa9");
    text[n++] = '\n', text[n] = 0;
    char *got = report(text, n, (uint32_t)at, (uint32_t)at + 3);
    char l1[512];
    nth_line(got, 1, l1, sizeof l1);
    CHECK(!strncmp(l1, " 1 | ...\xc3\xa9", 10) || !strncmp(l1, " 1 | ...x", 9), "start splits a character (shift %d)",
          shift);
    size_t k = strlen(l1);
    CHECK(k > 5 && !strcmp(l1 + k - 5, "\xc3\xa9..."), "end splits a character (shift %d)", shift);
    CHECK(strstr(l1, "ERR") != NULL, "the range is shown (shift %d)", shift);
    free(got);
  }
}

/* a 20 MB line: the message is small whatever the line's length */
static void huge_line(void) {
  size_t n = 20u << 20;
  char *text = malloc(n + 2);
  memset(text, ' ', n);
  memcpy(text + n - 4, "ERR;", 4);
  text[n] = '\n', text[n + 1] = 0;
  char *got = report(text, n + 1, (uint32_t)(n - 4), (uint32_t)(n - 1));
  CHECK(strlen(got) < 600, "%zu bytes for an error at the end", strlen(got));
  char want[64];
  snprintf(want, sizeof want, "t.pc:1:%zu: error: msg\n", n - 3);
  CHECK(!strncmp(got, want, strlen(want)), "position: %.60s", got);
  free(got);
  got = report(text, n + 1, 0, (uint32_t)n);
  CHECK(strlen(got) < 800, "%zu bytes for a range of the whole line", strlen(got));
  free(got);
  free(text);
}

int main(void) {
  short_lines();
  long_line();
  utf8_not_split();
  huge_line();
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("ok\n");
  return failures != 0;
}
