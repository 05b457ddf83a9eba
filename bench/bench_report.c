/* bench_report.c: blas_bench's figures as text and Markdown (each
 * operation's table, the targets: best dpia over the hand-written kernel,
 * the roof and the fastest other implementation, gemm over OpenBLAS) and
 * as the chart's data for gnuplot.  bench_timing.c makes the figures. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_core.h"


/* gemm's target (issue 18): the best dpia strategy at 0.9x OpenBLAS or
 * more, as the median of the ratios round by round, with its interval */
static const double GEMM_TARGET = 0.9;

static void gemm_report(FILE *f, const Op *ops, int nops, bool markdown) {
  bool any = false;
  for (int i = 0; i < nops; i++) {
    const Op *op = &ops[i];
    const Impl *dp = best_of(op, "dpia"), *ob = best_of(op, "OpenBLAS");
    if (op->kind != OP_GEMM || !dp || !ob) continue;
    if (!any) {
      if (markdown)
        fprintf(f, "\n### gemm against OpenBLAS\n\n"
                   "Speed of the best dpia strategy over OpenBLAS's cblas_sgemm: the median of the ratios round by "
                   "round, with its 95%% confidence interval; the target is %.2fx.\n\n"
                   "| size | best dpia strategy | ÷ OpenBLAS | 95%% interval | rounds | %.2fx target |\n"
                   "|---|---|---:|---|---:|---|\n",
                GEMM_TARGET, GEMM_TARGET);
      else
        fprintf(f, "\ngemm: best dpia strategy against OpenBLAS (target %.2fx):\n", GEMM_TARGET);
      any = true;
    }
    PairedRatio pr = paired_ratio(ob, dp);
    int n = dp->ntimes < ob->ntimes ? dp->ntimes : ob->ntimes;
    const char *v = pr.median >= GEMM_TARGET ? "met" : pr.has_interval && pr.hi >= GEMM_TARGET ? "within noise" : "NOT met";
    if (markdown) {
      fprintf(f, "| %s | %s | %.3fx | ", op->size, dp->name + 5, pr.median);
      if (pr.has_interval) fprintf(f, "%.2f – %.2f | ", pr.lo, pr.hi);
      else fprintf(f, "– | ");
      fprintf(f, "%d | %s |\n", n, v);
    } else {
      fprintf(f, "  %-14s %-22s %5.2fx OpenBLAS %s over %d rounds  %s\n", op->size, dp->name, pr.median,
              interval_text(pr).text, n, v);
    }
  }
}

/* best dpia implementation of an op, or NULL */
const Impl *best_of(const Op *op, const char *family) {
  const Impl *best = NULL;
  for (int i = 0; i < op->nimpls; i++) {
    const Impl *im = &op->impls[i];
    if (im->ok && !strcmp(im->family, family) && (!best || im->ms < best->ms)) best = im;
  }
  return best;
}

/* the careful hand-written kernel: the faster of the two */
static const Impl *best_hand(const Op *op) { return best_of(op, "hand"); }

/* the fastest implementation that is not dpia's: hand-written, CLBlast,
 * OpenBLAS or the roof (issue 39's bar for a memory-bound operation) */
static const Impl *best_other(const Op *op) {
  const Impl *best = NULL;
  for (int i = 0; i < op->nimpls; i++) {
    const Impl *im = &op->impls[i];
    if (im->ok && strcmp(im->family, "dpia") != 0 && (!best || im->ms < best->ms)) best = im;
  }
  return best;
}

/* a memory-bound operation's target: 0.95x the fastest other */
#define MEMORY_TARGET 0.95
static const char *memory_verdict(PairedRatio pr) {
  return pr.median >= MEMORY_TARGET ? "met" : pr.has_interval && pr.hi >= MEMORY_TARGET ? "within noise" : "NOT met";
}

bool memory_bound(const Op *op) { return op->kind != OP_GEMM && !is_peer(op->kind); }

void print_op(FILE *f, const Op *op, bool markdown) {
  const Impl *dp = best_of(op, "dpia");
  bool gemm = op->in_flops;
  if (markdown) {
    fprintf(f, "\n### %s, %s\n\n", op->name, op->size);
    fprintf(f, "| implementation | time (ms) | %s | best dpia ÷ this |\n|---|---:|---:|---:|\n", gemm ? "GFLOP/s" : "GB/s");
  } else {
    printf("\n%s %s (%s %.0f MB per call)\n", op->name, op->size, gemm ? "flops" : "moves",
           gemm ? op->flops * 1e-6 : op->bytes * 1e-6);
  }
  for (int i = 0; i < op->nimpls; i++) {
    const Impl *im = &op->impls[i];
    if (!im->ok) {
      if (markdown) fprintf(f, "| %s | – | – | %s |\n", im->name, im->note);
      else printf("  %-44s %s\n", im->name, im->note);
      continue;
    }
    double fig = gemm ? im->gflops : im->gbs;
    double ratio = dp ? im->ms / dp->ms : 0;
    if (markdown) {
      /* a launch of a batch (Op.batch) takes microseconds: four decimals */
      fprintf(f, "| %s%s%s | %.*f | %.2f | %.2fx |\n", im == dp ? "**" : "", im->name, im == dp ? "**" : "",
              op->batch > 1 ? 4 : 2, im->ms, fig, ratio);
    } else {
      printf("  %-44s %9.3f ms %8.2f %s  best dpia/this %5.2fx\n", im->name, im->ms, fig, gemm ? "GFLOP/s" : "GB/s ",
             ratio);
    }
  }
  /* not implementations: with Op.batch, each one's kernel alone (its
   * launches' profiling events; its time above is a launch's of a batch) */
  for (int i = 0; op->batch > 1 && i < op->nimpls; i++) {
    const Impl *im = &op->impls[i];
    if (!im->ok || !im->nkernel) continue;
    if (markdown)
      fprintf(f, "| %s, the kernel alone (profiling events; the times above a launch's of %d in a row) | %.4f | – | – |\n",
              im->name, op->batch, im->kernel_ms);
    else
      printf("  %-44s %9.4f ms (the kernel alone, profiling events; above: a launch of %d in a row)\n", im->name,
             im->kernel_ms, op->batch);
  }
  /* not an implementation: the part of the best dpia strategy's time that
   * is its launch (measure_launch) */
  const Impl *ln = op->launch;
  if (ln && ln->ok) {
    if (markdown) fprintf(f, "| %s, least of %d runs | %.3f | – | – |\n", ln->name, ln->ntimes, ln->ms);
    else printf("  %-44s %9.3f ms (least of %d runs)\n", ln->name, ln->ms, ln->ntimes);
  }
}

/* the speed of dp over ot with dp's launch taken off its times, or a
 * median of 0 if its launch was not measured */
static PairedRatio launch_free(const Op *op, const Impl *ot, const Impl *dp) {
  const Impl *ln = op->launch;
  /* a launch slower than a round of dp (a machine too loaded to tell) gives no ratio */
  double least = dp->times[0];
  for (int i = 1; i < dp->ntimes; i++)
    if (dp->times[i] < least) least = dp->times[i];
  if (!ln || !ln->ok || ln->ms * 1e-3 >= least) return (PairedRatio){0, 0, 0, false};
  return paired_ratio_less(ot, dp, op->launch->ms * 1e-3);
}

/* the geometric mean of the best dpia strategy's speed over the best
 * hand-written kernel's, over the BLAS and stencil operations that have
 * both (*count of them; none with --only peer) */
static double hand_geomean(const Op *ops, int nops, int *count) {
  double logsum = 0;
  *count = 0;
  for (int i = 0; i < nops; i++) {
    const Op *op = &ops[i];
    const Impl *dp = best_of(op, "dpia"), *hd = best_hand(op);
    if (!dp || !hd || is_peer(op->kind)) continue;
    logsum += log(paired_ratio(hd, dp).median);
    (*count)++;
  }
  return *count ? exp(logsum / *count) : 0;
}

/* the targets on stdout, after every operation's table */
void report_targets(const Op *ops, int nops) {
  printf("\nbest dpia strategy against the careful hand-written kernel and the roof:\n");
  int count;
  double mean = hand_geomean(ops, nops, &count);
  for (int i = 0; i < nops; i++) {
    const Op *op = &ops[i];
    const Impl *dp = best_of(op, "dpia"), *hd = best_hand(op), *rf = best_of(op, "roof");
    if (!dp || !hd || is_peer(op->kind)) continue;
    PairedRatio h = paired_ratio(hd, dp);
    printf("  %-10s %-14s %-22s %5.2fx hand %s %-12s", op->name, op->size, dp->name, h.median, interval_text(h).text,
           verdict(h));
    if (rf) printf("   %5.2fx roof%s", paired_ratio(rf, dp).median, op->large ? " (large size)" : "");
    printf("\n");
  }
  if (count) printf("  geometric mean against hand-written: %.2fx\n", mean);
  printf("\nmemory-bound operations: best dpia strategy against the fastest other implementation (target %.2fx):\n",
         MEMORY_TARGET);
  for (int i = 0; i < nops; i++) {
    const Op *op = &ops[i];
    const Impl *dp = best_of(op, "dpia"), *ot = best_other(op);
    if (!dp || !ot || !memory_bound(op)) continue;
    PairedRatio r = paired_ratio(ot, dp), lf = launch_free(op, ot, dp);
    printf("  %-10s %-14s %-22s %5.2fx %s %s %s", op->name, op->size, dp->name, r.median, ot->name, interval_text(r).text,
           memory_verdict(r));
    if (lf.median > 0)
      printf("; launch %.3f ms, without it %.2fx %s", op->launch->ms, lf.median, interval_text(lf).text);
    printf("\n");
  }
  gemm_report(stdout, ops, nops, false);
  peer_report(stdout, ops, nops, false);
}

/* --md: every table and the targets in Markdown (bench/run.sh puts them in BENCHMARKS.md) */
void write_markdown(const char *path, const Op *ops, int nops) {
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  for (int i = 0; i < nops; i++) print_op(f, &ops[i], true);
  int count;
  double mean = hand_geomean(ops, nops, &count);
  if (count) { /* the BLAS and stencil operations (not run with --only peer) */
    fprintf(f, "\n### Targets: speed of the best dpia strategy over the careful hand-written kernel's and the roof's\n\n");
    fprintf(f, "Medians of the ratios round by round, with their 95%% confidence interval (see \"Reading the figures\" below); "
               "\"within noise\": below 1.00x, but the interval holds 1.00x.\n\n");
    fprintf(f, "| operation | size | best dpia strategy | ÷ best hand-written | 95%% interval | 1.00x target | ÷ roof |\n"
               "|---|---|---|---:|---|---|---:|\n");
    for (int i = 0; i < nops; i++) {
      const Op *op = &ops[i];
      const Impl *dp = best_of(op, "dpia"), *hd = best_hand(op), *rf = best_of(op, "roof");
      if (!dp || !hd || is_peer(op->kind)) continue;
      PairedRatio h = paired_ratio(hd, dp);
      fprintf(f, "| %s | %s | %s | %.3fx | ", op->name, op->size, dp->name + 5, h.median);
      if (h.has_interval) fprintf(f, "%.2f – %.2f | ", h.lo, h.hi);
      else fprintf(f, "– | ");
      fprintf(f, "%s | ", verdict(h));
      if (rf) fprintf(f, "%.2fx |\n", paired_ratio(rf, dp).median);
      else fprintf(f, "– |\n");
    }
    fprintf(f, "\nGeometric mean of best dpia ÷ hand-written: **%.2fx**.\n", mean);
    fprintf(f, "\n### Memory-bound operations: the best dpia strategy against the fastest other implementation\n\n"
               "The fastest of the hand-written kernels, CLBlast, OpenBLAS and the roof loops, by median; the ratio is the "
               "median of the paired rounds' (as above), the target %.2fx.  \"Launch\": the dpia strategy's NDRange "
               "launched with nothing to do (and its partial sums read back and added), the least of as many runs in the "
               "same run; "
               "\"without it\": the ratio with that time taken off each of the dpia strategy's, against the other's "
               "whole time (\"Reading the figures\").\n\n", MEMORY_TARGET);
    fprintf(f, "| operation | size | best dpia strategy | fastest other | ÷ it | 95%% interval | %.2fx target "
               "| launch (ms) | ÷ it without the launch |\n"
               "|---|---|---|---|---:|---|---|---:|---:|\n", MEMORY_TARGET);
    for (int i = 0; i < nops; i++) {
      const Op *op = &ops[i];
      const Impl *dp = best_of(op, "dpia"), *ot = best_other(op);
      if (!dp || !ot || !memory_bound(op)) continue;
      PairedRatio r = paired_ratio(ot, dp), lf = launch_free(op, ot, dp);
      fprintf(f, "| %s | %s | %s | %s | %.3fx | ", op->name, op->size, dp->name + 5, ot->name, r.median);
      if (r.has_interval) fprintf(f, "%.2f – %.2f | ", r.lo, r.hi);
      else fprintf(f, "– | ");
      fprintf(f, "%s | ", memory_verdict(r));
      if (lf.median > 0) fprintf(f, "%.3f | %.3fx |\n", op->launch->ms, lf.median);
      else fprintf(f, "– | – |\n");
    }
  }
  gemm_report(f, ops, nops, true);
  peer_report(f, ops, nops, true);
  fclose(f);
}

/* --dat: the chart's data for gnuplot: one row per operation, one column
 * per implementation family; GB/s in FILE, gemm's GFLOP/s in FILE.gemm,
 * the peer set's ratios in FILE.peer */
void write_dat(const char *path, const Op *ops, int nops) {
  /* gnuplot: one row per operation, one column per implementation family */
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  /* GB/s in FILE, GFLOP/s of gemm in FILE.gemm (a panel of its own) */
  char gemm_path[1024];
  snprintf(gemm_path, sizeof gemm_path, "%s.gemm", path);
  FILE *g = fopen(gemm_path, "w");
  if (!g) die("cannot write %s", gemm_path);
  const char *header = "operation\t\"best dpia\"\t\"hand-written (best)\"\tCLBlast\tOpenBLAS\troof\n";
  fputs(header, f);
  fputs(header, g);
  const char *fams[] = {"dpia", "hand", "CLBlast", "OpenBLAS", "roof"};
  for (int i = 0; i < nops; i++) {
    const Op *op = &ops[i];
    if (is_peer(op->kind)) continue; /* in FILE.peer */
    bool gemm = op->kind == OP_GEMM;
    FILE *to = gemm ? g : f;
    if (gemm && op->m == op->n && op->n == op->k) /* the panel is narrow: its title says gemm */
      fprintf(to, "\"%lld³\"", op->m);
    else
      fprintf(to, "\"%s %s\"", op->name, op->size);
    for (int k = 0; k < 5; k++) {
      const Impl *im = best_of(op, fams[k]);
      fprintf(to, "\t%.3f", im ? (gemm ? im->gflops : im->gbs) : 0.0);
    }
    fprintf(to, "\n");
  }
  fclose(f);
  fclose(g);
  char peer_path[1024];
  snprintf(peer_path, sizeof peer_path, "%s.peer", path);
  FILE *pf = fopen(peer_path, "w");
  if (!pf) die("cannot write %s", peer_path);
  peer_dat(pf, ops, nops);
  fclose(pf);
}
