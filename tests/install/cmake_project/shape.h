/* shape.h - the sizes of the CPU program (included by main.pc only). */
#define NT 4
#define ROW 16
