/* scale.c - a plain C file in the same program as main.pc. */
#include "scale.h"
double scale(double x) { return x * FACTOR; }
