/* check_bench.c: how long `dpia check` takes on each sample, in process
 * (dpia_process, DPIA_CHECK) and through the command line.  A benchmark,
 * not a test: it prints figures (machines here are shared and noisy; compare
 * figures from one run).
 *
 *   DPIA=build/dpia build/bench/check_bench samples/dot_partial.dpia ... */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dpia.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  const char *dpia = getenv("DPIA");
  printf("%-28s %12s %14s %12s\n", "sample", "check (us)", "checks/s", "CLI (ms)");
  for (int i = 1; i < argc; i++) {
    size_t len;
    char *text = slurp(argv[i], &len);
    if (!text) {
      fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    DpiaOptions opt;
    dpia_options_init(&opt);
    opt.action = DPIA_CHECK;
    /* warm up, then time enough runs for about 0.3 s */
    int runs = 0;
    double t0 = now(), t;
    do {
      DpiaResult *r;
      if (dpia_process(argv[i], text, len, &opt, &r) != DPIA_OK) {
        fprintf(stderr, "%s does not check:\n%s", argv[i], dpia_result_diagnostics(r));
        return 1;
      }
      dpia_result_free(r);
      runs++;
      t = now() - t0;
    } while (t < 0.3);
    double cli_ms = -1;
    if (dpia) {
      char cmd[4096];
      snprintf(cmd, sizeof cmd, "%s check %s >/dev/null 2>&1", dpia, argv[i]);
      double c0 = now();
      int n = 20;
      for (int k = 0; k < n; k++)
        if (system(cmd) != 0) return 1;
      cli_ms = (now() - c0) / n * 1e3;
    }
    printf("%-28s %12.1f %14.0f %12.2f\n", strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i],
           t / runs * 1e6, runs / t, cli_ms);
    free(text);
  }
  return 0;
}
