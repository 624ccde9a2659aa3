/* scale.h - included by scale.c only. */
#define FACTOR 3.0
