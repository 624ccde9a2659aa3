/* SPDX-License-Identifier: Apache-2.0 */
/* gen_pc.c - writes a large .pc file for the translation-speed benchmark:
 * many functions mixing plain C with Parray types, offsets, #create,
 * #copy and pthd detours, in the proportions of the paper's programs. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long funcs = argc > 1 ? atol(argv[1]) : 10000;
  printf("#include <stdio.h>\n#include <string.h>\n#define N 64\n");
  printf("#parray {paged float [N][N]} M\n#parray {paged float [#M_1][#M_0]} MT\n#parray {pthd [2][2]} T\n");
  printf("#parray {paged float [[2][N/2]][[2][N/2]]} MB\n");
  for (long f = 0; f < funcs; f++) {
    printf("/* function %ld: a product, a transpose and some plain C */\n", f);
    printf("static float work_%ld(float *a, float *b, int n) {\n", f);
    printf("  float total = 0.0f;\n  int counts[8] = {0, 1, 2, 3, 4, 5, 6, 7};\n");
    printf("  #create M(c)\n");
    printf("  for (int i = 0; i < $dim_0(M)$; i++)\n    for (int j = 0; j < $dim_1(M)$; j++) {\n");
    printf("      float s = 0;\n      for (int k = 0; k < $dim_1(M)$; k++)\n");
    printf("        s += a[$M[i][k]$] * b[$M[k][j]$];\n      c[$M[i][j]$] = s + (float)counts[(i + j) & 7];\n    }\n");
    printf("  #copy MT(c) to M(b)\n");
    printf("  #detour T {\n    for (int i = 0; i < $dim_0_1(MB)$; i++)\n");
    printf("      a[$MB[[$tid_0$][i]][[$tid_1$][0]]$] += 1.0f;\n  }\n");
    printf("  for (int i = 0; i < n && i < 8; i++) total += c[$M[i][i]$] * (float)counts[i];\n");
    printf("  if (total > 1e30f) printf(\"overflow in %%ld\\n\", %ldL);\n", f);
    printf("  #destroy M(c)\n  return total;\n}\n\n");
  }
  printf("int main(void) { return 0; }\n");
  return 0;
}
