/* SPDX-License-Identifier: Apache-2.0 */
/* outfile.h - writing the translation to its output file: atomically (a
 * temporary file renamed into place) for regular files, straight to
 * stdout, devices and FIFOs, and never over the input file. */
#ifndef PAC_OUTFILE_H
#define PAC_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/* Writes the whole output to f; the caller checks ferror(f). */
typedef void (*out_writer)(FILE *f, const void *ctx);

/* Write to path ("-": stdout) what write() produces. input is the file
 * being translated (or NULL). Returns 0, or -1 with a message in err and
 * nothing left behind at path. */
int out_write_file(const char *path, const char *input, out_writer write, const void *ctx, char *err, size_t errlen);

#endif
