/* parts.h - shared by the separately compiled files of the install test. */
#define N 32
void fill(int *p);
int check(const int *p, int n);
