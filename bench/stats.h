/* stats.h: the order statistics the translation benchmarks print
 * (throughput.c, stage_bench.c): wall times on a shared machine are
 * skewed by the other work, so they report minima and medians. */
#ifndef DPIA_BENCH_STATS_H
#define DPIA_BENCH_STATS_H

#include <stdlib.h>

static inline int bench_by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v[0..n) (n >= 1) and returns its median. */
static inline double bench_sort_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
