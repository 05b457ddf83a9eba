/* throughput.c: translation throughput (issue 5).  For each sample file:
 * in-process translations per second to OpenCL C (dpia_process,
 * DPIA_TRANSLATE) without verification and with it (one libclang verifier
 * reused across calls, as a search driver does), and the wall time of one
 * `dpia translate FILE` command line call (which verifies) when DPIA names
 * the binary.  A benchmark, not a test: machines here are shared and noisy,
 * so compare figures from one run.
 *
 *   DPIA=build/dpia build/bench/throughput samples/dot_vec.dpia samples/gemv.dpia ...
 *   build/bench/throughput --seconds 2 --kernel gemv samples/gemv.dpia
 *   valgrind --tool=callgrind build/bench/throughput --count 200 --no-verify samples/gemv.dpia
 *
 * Targets: >= 10,000 in-process translations/s of the fused gemv kernel
 * without verification; < 20 ms per command line call with verification. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "dpia.h"

extern char **environ;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (n < cap - 1) break;
    cap *= 2;
    char *bigger = realloc(buf, cap);
    if (!bigger) free(buf);
    buf = bigger;
  }
  fclose(f);
  if (!buf) return NULL;
  buf[n] = 0;
  *len = n;
  return buf;
}

/* translations per second over about `seconds` (or exactly `count`
 * translations if count > 0, for profiling); -1 if one fails */
static double rate(const char *name, const char *text, size_t len, const DpiaOptions *opt, double seconds,
                   int count) {
  int runs = 0;
  double t0 = now(), t;
  do {
    DpiaResult *r;
    if (dpia_process(name, text, len, opt, &r) != DPIA_OK) {
      fprintf(stderr, "%s does not translate:\n%s", name, dpia_result_diagnostics(r));
      dpia_result_free(r);
      return -1;
    }
    dpia_result_free(r);
    runs++;
    t = now() - t0;
  } while (count > 0 ? runs < count : t < seconds);
  return runs / t;
}

/* milliseconds per `dpia translate FILE [-k K] > /dev/null`; -1 on failure */
static double cli_ms(const char *dpia, const char *file, const char *kernel, int calls) {
  char *argv[] = {(char *)dpia, "translate", (char *)file, "-k", (char *)kernel, NULL};
  if (!kernel) argv[3] = NULL;
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, 1, "/dev/null", O_WRONLY, 0);
  bool ok = true;
  double t0 = now();
  for (int i = 0; i < calls && ok; i++) {
    pid_t pid;
    int status;
    ok = posix_spawn(&pid, dpia, &io, NULL, argv, environ) == 0 && waitpid(pid, &status, 0) == pid &&
         WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  double ms = (now() - t0) / calls * 1e3;
  posix_spawn_file_actions_destroy(&io);
  return ok ? ms : -1;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

int main(int argc, char **argv) {
  const char *dpia = getenv("DPIA");
  const char *kernel = NULL;
  double seconds = 0.5;
  int count = 0, no_verify = 0;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strcmp(argv[first], "--kernel") == 0 && first + 1 < argc) kernel = argv[++first];
    else if (strcmp(argv[first], "--seconds") == 0 && first + 1 < argc) seconds = atof(argv[++first]);
    else if (strcmp(argv[first], "--count") == 0 && first + 1 < argc) count = atoi(argv[++first]);
    else if (strcmp(argv[first], "--no-verify") == 0) no_verify = 1;
    else {
      fprintf(stderr, "usage: [DPIA=path/to/dpia] throughput [--kernel K] [--seconds S | --count N] [--no-verify] FILE...\n");
      return 2;
    }
  }
  DpiaVerifier *v = dpia_verifier_new();
  if (!v) {
    fprintf(stderr, "cannot start libclang\n");
    return 1;
  }
  printf("%-20s %16s %16s %12s\n", "sample", "no verify (/s)", "verify (/s)", "CLI (ms)");
  int status = 0;
  for (int i = first; i < argc; i++) {
    size_t len;
    char *text = slurp(argv[i], &len);
    if (!text) {
      fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    DpiaOptions opt;
    dpia_options_init(&opt);
    opt.action = DPIA_TRANSLATE;
    opt.emit = DPIA_EMIT_OPENCL;
    opt.kernel = kernel;
    double plain = rate(argv[i], text, len, &opt, seconds, count);
    opt.verify = 1;
    opt.verifier = v;
    double verified = no_verify ? 0 : rate(argv[i], text, len, &opt, seconds, count);
    double ms = dpia ? cli_ms(dpia, argv[i], kernel, 20) : 0;
    if (plain < 0 || verified < 0 || ms < 0) status = 1;
    printf("%-20s %16.0f %16.0f %12.2f\n", base_name(argv[i]), plain, verified, ms);
    free(text);
  }
  dpia_verifier_free(v);
  return status;
}
