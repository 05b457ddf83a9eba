/* throughput.c: translation throughput.  For each sample file:
 * in-process translations per second to OpenCL C (dpia_process,
 * DPIA_TRANSLATE) without verification and with it (one libclang verifier
 * reused across calls, as a search driver does), and, when DPIA names the
 * binary, the wall time of one `dpia translate FILE [-k K] -o TMP` command
 * line call, which verifies (in the helper process dpia-clang-check): min
 * and median over --calls calls (default 50), each waited for.  A
 * benchmark, not a test: machines here are shared and noisy, so compare
 * figures from one run, and read them with the load average printed.
 *
 *   DPIA=build/dpia build/bench/throughput samples/dot_vec.dpia samples/gemv.dpia ...
 *   DPIA=build/dpia build/bench/throughput --kernel gemv --calls 100 samples/gemv.dpia
 *   DPIA_CLANG_HELPER= DPIA=build/dpia build/bench/throughput ...   (verify in process instead)
 *   valgrind --tool=callgrind build/bench/throughput --count 200 --no-verify samples/gemv.dpia
 *
 * Targets: >= 10,000 in-process translations/s of the fused gemv kernel
 * without verification; < 20 ms per command line call with verification
 * (the median; the last line says whether each file meets it). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dpia.h"
#include "stats.h"

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

/* min and median milliseconds of `dpia translate FILE [-k K] -o OUT`
 * over calls calls (stdout and stderr to /dev/null, -o to a real file:
 * the path of a normal call, not the device special case); false if a
 * call fails */
static bool cli_ms(const char *dpia, const char *file, const char *kernel, int calls, double *min, double *median) {
  char out[] = "/tmp/dpia-throughput-XXXXXX";
  int fd = mkstemp(out);
  if (fd < 0) return false;
  close(fd);
  char *argv[] = {(char *)dpia, "translate", (char *)file, "-o", out, "-k", (char *)kernel, NULL};
  if (!kernel) argv[5] = NULL;
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&io, 2, "/dev/null", O_WRONLY, 0);
  double *ms = malloc(sizeof *ms * (size_t)calls);
  bool ok = ms != NULL;
  for (int i = 0; i < calls && ok; i++) {
    pid_t pid;
    int status;
    double t0 = now();
    ok = posix_spawn(&pid, dpia, &io, NULL, argv, environ) == 0 && waitpid(pid, &status, 0) == pid &&
         WIFEXITED(status) && WEXITSTATUS(status) == 0;
    ms[i] = (now() - t0) * 1e3;
  }
  posix_spawn_file_actions_destroy(&io);
  unlink(out);
  if (ok) {
    *median = bench_sort_median(ms, calls);
    *min = ms[0];
  }
  free(ms);
  return ok;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

int main(int argc, char **argv) {
  const char *dpia = getenv("DPIA");
  const char *kernel = NULL;
  double seconds = 0.5;
  int count = 0, no_verify = 0, calls = 50;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strcmp(argv[first], "--kernel") == 0 && first + 1 < argc) kernel = argv[++first];
    else if (strcmp(argv[first], "--seconds") == 0 && first + 1 < argc) seconds = atof(argv[++first]);
    else if (strcmp(argv[first], "--count") == 0 && first + 1 < argc) count = atoi(argv[++first]);
    else if (strcmp(argv[first], "--calls") == 0 && first + 1 < argc) calls = atoi(argv[++first]);
    else if (strcmp(argv[first], "--no-verify") == 0) no_verify = 1;
    else {
      fprintf(stderr, "usage: [DPIA=path/to/dpia] throughput [--kernel K] [--seconds S | --count N] [--calls C] "
                      "[--no-verify] FILE...\n");
      return 2;
    }
  }
  if (calls < 1) calls = 1;
  DpiaVerifier *v = dpia_verifier_new();
  if (!v) {
    fprintf(stderr, "cannot start libclang\n");
    return 1;
  }
  printf("%-20s %16s %16s %16s %14s %14s\n", "sample", "no verify (/s)", "no semantic (/s)", "verify (/s)",
         "CLI min (ms)", "CLI med (ms)");
  int status = 0, slow = 0, timed = 0;
  double *medians = malloc(sizeof *medians * (size_t)argc); /* of the files timed */
  if (!medians) return 1;
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
    /* verification without and with the semantic check */
    opt.skip_semantic_check = 1;
    double no_semantic = no_verify ? 0 : rate(argv[i], text, len, &opt, seconds, count);
    opt.skip_semantic_check = 0;
    double verified = no_verify ? 0 : rate(argv[i], text, len, &opt, seconds, count);
    double min = 0, median = 0;
    bool cli_ok = !dpia || cli_ms(dpia, argv[i], kernel, calls, &min, &median);
    if (plain < 0 || no_semantic < 0 || verified < 0 || !cli_ok) status = 1;
    printf("%-20s %16.0f %16.0f %16.0f %14.2f %14.2f\n", base_name(argv[i]), plain, no_semantic, verified, min,
           median);
    if (dpia && cli_ok) {
      medians[timed++] = median;
      slow += median >= 20;
    }
    free(text);
  }
  dpia_verifier_free(v);
  if (timed) {
    double load[3] = {0, 0, 0};
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
      if (fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = load[1] = load[2] = 0;
      fclose(f);
    }
    double middle = bench_sort_median(medians, timed);
    printf("CLI with verification, median of %d calls per file: %.1f to %.1f ms, %.1f ms the median file; "
           "%d of %d files under the 20 ms target (load average %.2f %.2f %.2f)\n",
           calls, medians[0], medians[timed - 1], middle, timed - slow, timed, load[0], load[1], load[2]);
  }
  free(medians);
  return status;
}
