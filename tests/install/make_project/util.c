/* The C file of the Makefile programs of the install test (the docs'
 * Makefiles build app from main.pc and util.c): the sum the C program's
 * threads must reach. */
int util_expected_sum(int n) { return n * (n - 1) / 2; }
