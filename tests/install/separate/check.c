/* check.c - plain C, compiled with the C compiler (install test). */
#include "parts.h"
int check(const int *p, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++) bad += p[i] != i;
  return bad;
}
