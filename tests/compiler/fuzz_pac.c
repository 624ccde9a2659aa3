/* fuzz_pac.c - mutation fuzzing of pac: random edits (deletions, insertions
 * of Parray punctuation, duplicated spans) of the test programs, each
 * translated by pac; pac must answer with status 0 or 1, never crash, and
 * (in the sanitizer build) never report a memory or undefined-behaviour
 * error. Deterministic for a given seed.
 *   fuzz_pac PAC SEED COUNT FILE.pc... */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long long rng;
static unsigned rnd(unsigned n) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rng >> 33) % (n ? n : 1);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  *len = fread(s, 1, (size_t)n, f);
  s[*len] = 0;
  fclose(f);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: fuzz_pac PAC SEED COUNT FILE.pc...\n");
    return 2;
  }
  const char *pac = argv[1];
  rng = strtoull(argv[2], NULL, 10);
  int count = atoi(argv[3]), nf = argc - 4;
  char dir[] = "/tmp/pacfuzz-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  char in[64], out[64], err[64];
  snprintf(in, sizeof in, "%s/f.pc", dir);
  snprintf(out, sizeof out, "%s/f.c", dir);
  snprintf(err, sizeof err, "%s/err", dir);
  static const char alphabet[] = "[]{}()$#_,;*/0123456789ABMNT \n";
  int bad = 0;
  for (int i = 0; i < count && bad < 3; i++) {
    size_t len;
    char *src = slurp(argv[4 + rnd((unsigned)nf)], &len);
    if (!src) {
      fprintf(stderr, "cannot read a seed file\n");
      return 2;
    }
    char *buf = malloc(len * 2 + 4096);
    memcpy(buf, src, len);
    for (int e = 1 + (int)rnd(6); e > 0; e--) {
      size_t p = rnd((unsigned)len + 1), q = rnd((unsigned)len + 1), k = 1 + rnd(8);
      unsigned op = rnd(10);
      if (op < 4 && len > k) { /* delete */
        if (p + k > len) p = len - k;
        memmove(buf + p, buf + p + k, len - p - k), len -= k;
      } else if (op < 8 && len < 2 * len + 2048) { /* insert punctuation */
        k = 1 + rnd(3);
        char c = alphabet[rnd(sizeof alphabet - 1)];
        memmove(buf + p + k, buf + p, len - p);
        memset(buf + p, c, k), len += k;
      } else { /* duplicate a span */
        k = 1 + rnd(40);
        if (q + k > len) k = len - q;
        if (len + k < len * 2 + 4000) {
          char *tmp = malloc(k + 1);
          memcpy(tmp, buf + q, k);
          memmove(buf + p + k, buf + p, len - p);
          memcpy(buf + p, tmp, k), len += k;
          free(tmp);
        }
      }
    }
    FILE *f = fopen(in, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(fd, 2);
      int nul = open("/dev/null", O_WRONLY);
      dup2(nul, 1);
      alarm(30);
      execl(pac, pac, "--no-cpp", in, "-o", out, (char *)NULL);
      _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    size_t elen = 0;
    char *e = slurp(err, &elen);
    int ok = WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 1) && e && !strstr(e, "Sanitizer") &&
             !strstr(e, "runtime error");
    if (!ok) {
      char keep[128];
      snprintf(keep, sizeof keep, "/tmp/pacfuzz-crash-%d.pc", i);
      FILE *k = fopen(keep, "wb");
      if (k) fwrite(buf, 1, len, k), fclose(k);
      fprintf(stderr, "case %d: pac %s %d; input kept in %s\n%s\n", i, WIFEXITED(st) ? "exited" : "died by signal",
              WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), keep, e ? e : "");
      bad++;
    }
    free(e);
    free(buf);
    free(src);
  }
  unlink(in), unlink(out), unlink(err), rmdir(dir);
  printf("%d mutated programs, %d failures\n", count, bad);
  return bad != 0;
}
