/* bench_timing.c: how blas_bench times an operation's implementations
 * (check each once, warm-up rounds, then interleaved timed rounds, the
 * median of each; --cold's cache flush before every run) and the
 * statistics of the figures (the paired ratio of two implementations
 * with its 95% interval).  The operations themselves are blas_bench.c's
 * and peer_bench.c's; the tables bench_report.c's. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_core.h"

/* --cpu-time: the process's CPU time (every thread's: PoCL's, OpenMP's and
 * OpenBLAS's workers are the process's) in place of the wall clock, which
 * on a machine other work loads measures that work too */
static clockid_t bench_clock = CLOCK_MONOTONIC;

void use_cpu_time(void) { bench_clock = CLOCK_PROCESS_CPUTIME_ID; }

static double now(void) {
  struct timespec ts;
  clock_gettime(bench_clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *v, int n) {
  double *s = xmalloc(sizeof(double) * (size_t)n);
  memcpy(s, v, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), cmp_double);
  double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

/* --cold: before each timed run, stream through a buffer twice the size of
 * the last-level cache, so that every implementation starts from memory,
 * whatever ran before it (an operand of 256 MB is about the size of this
 * machine's L3: how much of it the previous implementation left there
 * depended on the order of the round) */
static float *flush_buf;
static size_t flush_len;

static void flush_caches(void) {
  if (!flush_buf) return;
  float t = 0;
#pragma omp parallel for simd schedule(dynamic, ROOF_CHUNK) reduction(+ : t)
  for (size_t i = 0; i < flush_len; i++) {
    t += flush_buf[i];
    flush_buf[i] = t * 0.0f + 1.0f;
  }
  if (t < 0) printf("%g\n", (double)t); /* keep the loop */
}

void cold_caches(size_t bytes) {
  flush_len = bytes / sizeof(float);
  flush_buf = falloc(flush_len);
  memset(flush_buf, 0, flush_len * sizeof(float));
}

void timing_release(void) { free(flush_buf); }

/* --check: every implementation once against the reference; how many differ */
int check_all(Op *op) {
  int wrong = 0;
  for (int i = 0; i < op->nimpls; i++) {
    Impl *im = &op->impls[i];
    refresh(im);
    run_once(op, im);
    im->ok = check_result(op, im);
    printf("  %-12s %-14s %-44s %s\n", op->name, op->size, im->name, im->ok ? "ok" : im->note);
    wrong += !im->ok;
  }
  if (op->nimpls == 0) {
    printf("  %-12s %-14s no implementation\n", op->name, op->size);
    wrong++;
  }
  return wrong;
}

/* gemm beyond 1024^3: an implementation whose call in the warm-up round
 * took more than GEMM_SLOW_S seconds (CLBlast: 10 to 25 s at 4096^3)
 * runs GEMM_LARGE_REPS rounds, the others (dpia's, OpenBLAS: under a
 * second) every round, so that the ratio to OpenBLAS is a median of as
 * many paired rounds as at 1024^3.  (The checked call is no measure: it
 * touches fresh buffers, over a second at 4096^3 for either.) */
enum { GEMM_LARGE_REPS = 3 };
static const double GEMM_SLOW_S = 1.0;

/* the median of a batch's kernel times (COMMAND_START to COMMAND_END of
 * each launch's event, in seconds), its events released */
static double batch_kernel_time(cl_event *events, int n) {
  double k[MAX_BATCH];
  for (int i = 0; i < n; i++) {
    cl_ulong start, end;
    CL_CHECK(clGetEventProfilingInfo(events[i], CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
    CL_CHECK(clGetEventProfilingInfo(events[i], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
    k[i] = (double)(end - start) * 1e-9;
    clReleaseEvent(events[i]);
  }
  return median(k, n);
}

/* Op.batch: why a launch-bound operation is timed in batches.  ludDiagonal
 * and Rodinia's lud_diagonal take about 2 us each in the profiling events;
 * one launch timed alone, enqueue to clFinish, took 35 to 100 us, after
 * --cold's flush mostly PoCL's threads waking (submit to start), and
 * which side drew the slower wake-ups decided the ratio: 0.85x to 1.08x
 * in runs of 15 rounds, with the same launch for both (the same
 * arguments, NDRange and buffer placement; in a host launching the two in
 * turn 2000 times, 1.00x; BENCHMARKS.md, the notes on lud).  A batch
 * times what a host's loop of launches costs a launch, and the profiling
 * events what the kernel costs. */
void measure(Op *op, int reps) {
  /* check each implementation once on fresh inputs */
  for (int i = 0; i < op->nimpls; i++) {
    Impl *im = &op->impls[i];
    refresh(im);
    run_once(op, im);
    im->ok = check_result(op, im);
    if (!im->ok) printf("  %-40s %s\n", im->name, im->note);
  }
  /* each round starts with another implementation, so that none always
   * runs first (or right after the same neighbour) */
  int warmup = 2, batch = op->batch > 1 ? op->batch : 1;
  cl_event events[MAX_BATCH];
  double warm_s[MAX_IMPLS] = {0};
  bool large_gemm = op->kind == OP_GEMM && op->large;
  if (large_gemm) warmup = 1;
  for (int r = -warmup; r < reps; r++) {
    for (int j = 0; j < op->nimpls; j++) {
      int i = (j + r + warmup) % op->nimpls;
      Impl *im = &op->impls[i];
      if (!im->ok) continue;
      if (large_gemm && warm_s[i] > GEMM_SLOW_S && r >= GEMM_LARGE_REPS) continue;
      refresh(im);
      flush_caches();
      double t0 = now();
      if (batch > 1) run_batch(op, im, batch, events);
      else run_once(op, im);
      double t = (now() - t0) / batch;
      if (batch > 1) {
        double k = batch_kernel_time(events, batch);
        if (r >= 0) im->kernel_times[im->nkernel++] = k;
      }
      if (r >= 0) im->times[im->ntimes++] = t;
      else warm_s[i] = t;
    }
  }
  for (int i = 0; i < op->nimpls; i++) {
    Impl *im = &op->impls[i];
    if (!im->ok) continue;
    double s = median(im->times, im->ntimes);
    im->ms = s * 1e3;
    im->gbs = op->bytes / s * 1e-9;
    im->gflops = op->flops / s * 1e-9;
    if (im->nkernel) im->kernel_ms = median(im->kernel_times, im->nkernel) * 1e3;
  }
}

/* op->launch in runs of its own right after the operation's rounds (its
 * NDRange is the best dpia strategy's, known only after them), each run
 * after the same cache flush as theirs, so that it starts as they do:
 * PoCL's threads asleep since the flush */
void measure_launch(Op *op, int reps) {
  Impl *im = op->launch;
  if (!im) return;
  im->ntimes = 0;
  for (int r = -2; r < reps; r++) {
    refresh(im);
    flush_caches();
    double t0 = now();
    run_once(op, im);
    double t = now() - t0;
    if (r >= 0) im->times[im->ntimes++] = t;
  }
  /* the least of its runs: a fixed cost, which the machine's other work
   * only lengthens (on a loaded machine the median was up to 10 ms, more
   * than the kernels it would be taken off) */
  double least = im->times[0];
  for (int i = 1; i < im->ntimes; i++)
    if (im->times[i] < least) least = im->times[i];
  im->ok = true;
  im->ms = least * 1e3;
}

/* The speed of `fast` over `slow` round by round (both ran in each round,
 * milliseconds apart, so that a change of the machine's load between
 * rounds cancels), with a distribution-free 95% confidence interval of its
 * median: the order statistics k and n + 1 - k of the n sorted ratios, k
 * the largest with P(Binomial(n, 1/2) < k) <= 0.025 (n = 15: k = 4, 96.5%).
 * If the interval holds 1.00, this run cannot tell the two apart. */
PairedRatio paired_ratio(const Impl *slow, const Impl *fast) { return paired_ratio_less(slow, fast, 0); }

/* The launch-free ratio (BENCHMARKS.md, "Reading the figures"): fast's
 * time in each round less its launch's median, a constant, so that the
 * order statistics and the interval are those of the same rounds */
PairedRatio paired_ratio_less(const Impl *slow, const Impl *fast, double less_s) {
  int n = slow->ntimes < fast->ntimes ? slow->ntimes : fast->ntimes;
  double r[MAX_REPS];
  for (int i = 0; i < n; i++) r[i] = slow->times[i] / (fast->times[i] - less_s);
  qsort(r, (size_t)n, sizeof r[0], cmp_double);
  PairedRatio pr = {median(r, n), 0, 0, false};
  double term = pow(0.5, n), below = 0; /* term = C(n, k) / 2^n */
  int k = 0;
  while (k < n / 2 && below + term <= 0.025) {
    below += term;
    term = term * (n - k) / (k + 1);
    k++;
  }
  if (k >= 1) pr = (PairedRatio){pr.median, r[k - 1], r[n - k], true};
  return pr;
}

IntervalText interval_text(PairedRatio pr) {
  IntervalText t;
  if (pr.has_interval) snprintf(t.text, sizeof t.text, "[%.2f, %.2f]", pr.lo, pr.hi);
  else snprintf(t.text, sizeof t.text, "[no interval]");
  return t;
}

const char *verdict(PairedRatio pr) {
  if (pr.median >= 1.0) return "met";
  if (pr.has_interval && pr.hi >= 1.0) return "within noise";
  return "NOT met";
}
