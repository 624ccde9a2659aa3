/* ppeval.h - the value of #if and #elif conditions without running a
 * preprocessor: the macros a file defines, in order, and those of -D/-U. */
#ifndef PAC_PPEVAL_H
#define PAC_PPEVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ppmacros ppmacros;
ppmacros *pp_macros_new(void);
void pp_macros_free(ppmacros *m);
void pp_define(ppmacros *m, const char *text, size_t len);
void pp_undef(ppmacros *m, const char *name, size_t len);
bool pp_is_defined(const ppmacros *m, const char *name, size_t len);
void pp_define_option(ppmacros *m, const char *arg);
int pp_eval(const ppmacros *m, const char *text, size_t len, int64_t *value, char *err, size_t errlen, size_t *erroff);

#endif
