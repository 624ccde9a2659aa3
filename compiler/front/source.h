/* SPDX-License-Identifier: Apache-2.0 */
/* source.h - the text of a translation: the main .pc file and the .pc files
 * it includes in one buffer, line splices removed, and byte-range locations
 * in it; line and column are computed only when printing (diag.h). */
#ifndef PAC_SOURCE_H
#define PAC_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct loc {
  uint32_t b, e; /* [b, e) byte offsets into the source file */
} loc;

static inline loc loc_span(loc a, loc b) { return (loc){a.b < b.b ? a.b : b.b, a.e > b.e ? a.e : b.e}; }

/* One file of the translation: the main .pc file and any .pc files it
 * includes share one text buffer, each at its own base offset, so that a
 * location is a byte range in that buffer whatever file it is in. */
typedef struct srcseg {
  const char *name;   /* as given on the command line or in the #include */
  const char *quoted; /* the name as a C string literal, for #line */
  uint32_t base, len;
  uint32_t pbase;     /* where it starts in the physical text */
  int first_line;     /* global line number of its first line */
} srcseg;

/* A line splice (a backslash, optional blanks, a newline) removed from the
 * physical text: `at` is the logical offset of the character after it, `cum`
 * the number of bytes removed up to and including it. */
typedef struct srcsplice {
  uint32_t at, cum;
} srcsplice;

/* The text every stage reads is the logical text, with the line splices of
 * C's translation phase 2 removed, so that a splice may stand anywhere (in a
 * // comment, a directive, a name). Locations are logical offsets. The
 * physical text, as the file holds it, is what the printer copies through
 * and what diagnostics show; src_phys maps an offset to it. Without splices
 * both are the same buffer. */
typedef struct srcfile {
  const char *name; /* the main file, as given on the command line */
  const char *text; /* logical text, NUL-terminated */
  uint32_t len;
  const char *phys; /* physical text, or NULL when it equals text */
  uint32_t plen;
  srcsplice *spl;
  int nspl;
  uint32_t *lines; /* start offset of each physical line, computed on demand */
  int nlines;
  int line_hint; /* last line found (a hint for the next lookup) */
  srcseg *segs;
  int nsegs;
} srcfile;

int src_load(srcfile *f, const char *path, char *err, size_t errlen);
/* Append another file (before any pointer into the text is kept); returns
 * its segment index, or -1 with err set. */
int src_append_file(srcfile *f, const char *path, char *err, size_t errlen);
int src_seg(const srcfile *f, uint32_t off);
const char *src_name(const srcfile *f, uint32_t off);
void src_from_string(srcfile *f, const char *name, const char *text, uint32_t len);
void src_free(srcfile *f);
/* the physical text and the physical offset of a logical one */
static inline const char *src_ptext(const srcfile *f) { return f->phys ? f->phys : f->text; }
uint32_t src_phys_spliced(const srcfile *f, uint32_t off);
static inline uint32_t src_phys(const srcfile *f, uint32_t off) {
  return f->nspl && off >= f->spl[0].at ? src_phys_spliced(f, off) : off;
}
int src_line(srcfile *f, uint32_t off);          /* 1-based, within its file */
int src_col(srcfile *f, uint32_t off);           /* 1-based byte column */
uint32_t src_line_start_of(srcfile *f, uint32_t off); /* logical offset where off's physical line starts */
uint32_t src_pline_start(srcfile *f, uint32_t poff); /* physical offset where a physical offset's line starts */

#endif
