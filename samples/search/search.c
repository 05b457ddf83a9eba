/* search.c: a strategy search driver on top of libdpia.
 *
 * It enumerates parallelisation strategies for a dot product and for gemv
 * (the structure of the parallel maps, where partial sums live, split
 * sizes, work-group sizes, vector widths 1/2/4/8), writes each one as a
 * DPIA program, translates it in process (verification off), counts the
 * candidates dpia rejects by reason (the stable code of the first
 * diagnostic, docs/errors.md, and its first line with digits written as
 * #), runs every accepted one on the OpenCL
 * device through dpia_process(DPIA_RUN) and ranks them by kernel time.
 * The best few of each problem are then translated again with verification
 * on (one libclang verifier for all of them) and run with --check against
 * the reference interpreter.
 *
 *   build/samples/search/search          reduced: a handful of candidates, small sizes (meson test)
 *   build/samples/search/search --full   every strategy of the space, large sizes
 *
 * Exit status 0 when every strategy the search expects dpia to reject was
 * rejected, every other one accepted, and each problem's winners verified
 * and matched the reference; 1 otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dpia.h"

typedef enum Problem { DOT, GEMV } Problem;
static const char *const problem_names[] = {"dot", "gemv"};

/* The strategy structures; each has a template below. */
#define STRUCTURES(X)                                                                                            \
  /* id, problem, valid, description */                                                                          \
  X(DOT_WG_LOCAL, DOT, true, "mapWorkgroup/mapLocal, one partial sum per work-item")                            \
  X(DOT_WG_TOLOCAL, DOT, true, "mapWorkgroup/mapLocal, partial sums toLocal, one per group")                    \
  X(DOT_GLOBAL_SEQ, DOT, true, "mapGlobal/reduceSeq, one partial sum per work-item")                            \
  X(DOT_GLOBAL_LOCAL, DOT, false, "mapGlobal/mapLocal (mapLocal needs a mapWorkgroup)")                         \
  X(DOT_GLOBAL_TOLOCAL, DOT, false, "mapGlobal with toLocal (local memory needs a mapWorkgroup)")               \
  X(GEMV_WG_TOLOCAL, GEMV, true, "row per work-group, mapLocal chunks, partial sums toLocal")                   \
  X(GEMV_WG_GLOBAL, GEMV, true, "row per work-group, mapLocal chunks, partial sums in global memory")           \
  X(GEMV_WG_SEQ, GEMV, true, "row per work-group of one work-item, reduceSeq")                                  \
  X(GEMV_GLOBAL_SEQ, GEMV, true, "row per work-item (mapGlobal), reduceSeq")                                    \
  X(GEMV_GLOBAL_LOCAL, GEMV, false, "row per work-item (mapGlobal) with mapLocal chunks")

typedef enum Structure {
#define X(id, p, v, d) id,
  STRUCTURES(X)
#undef X
      NSTRUCTURES
} Structure;

static const struct {
  Problem problem;
  bool valid;
  const char *description;
} structures[] = {
#define X(id, p, v, d) {p, v, d},
    STRUCTURES(X)
#undef X
};

typedef struct Candidate {
  Structure structure;
  int width, wg, chunk; /* vector width, work-items per group, elements per work-item (dot) */
  char *source;
  long local_size;      /* --local-size for the mapGlobal structures, else 0 */
  bool accepted, ran, verified, checked;
  char reason[200];     /* why dpia refused it (translation or launch) */
  double min_ms;
} Candidate;

typedef struct Config {
  bool full;
  int nwidths, nwgs, nchunks;
  const int *widths, *wgs, *chunks;
  long long dot_n, gemv_m, gemv_n;
  int repeat, top;
} Config;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* printf into a new string */
static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = malloc((size_t)n + 1);
  if (!s) {
    fputs("search: out of memory\n", stderr);
    exit(1);
  }
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* ---- the programs ---- */

/* the inputs, vectorised if w > 1: "zip (asVector 4 xs) (asVector 4 ys)" */
static char *zipped(const char *a, const char *b, int w) {
  if (w == 1) return format("zip %s %s", a, b);
  return format("zip (asVector %d %s) (asVector %d %s)", w, a, w, b);
}

static const char dot_reduce[] = "reduceSeq (\\x a -> fst x * snd x + a) 0.0";

static char *dot_program(const Candidate *c) {
  char *in = zipped("xs", "ys", c->width);
  const char *scalar = c->width > 1 ? "\n  |> asScalar" : "";
  char *body;
  switch (c->structure) {
  case DOT_WG_LOCAL:
    body = format("  %s\n  |> split (%d * %d)\n  |> mapWorkgroup (\\grp ->\n"
                  "       grp |> split %d\n           |> mapLocal (\\chunk -> %s chunk))\n  |> join%s\n",
                  in, c->wg, c->chunk, c->chunk, dot_reduce, scalar);
    break;
  case DOT_WG_TOLOCAL:
    body = format("  %s\n  |> split (%d * %d)\n  |> mapWorkgroup (\\grp ->\n"
                  "       grp |> split %d\n           |> toLocal (mapLocal (\\chunk -> %s chunk))\n"
                  "           |> split %d\n           |> mapLocal (\\parts -> reduceSeq (\\p a -> p + a) 0.0 parts))\n"
                  "  |> join%s\n",
                  in, c->wg, c->chunk, c->chunk, dot_reduce, c->wg, scalar);
    break;
  case DOT_GLOBAL_SEQ:
    body = format("  %s\n  |> split %d\n  |> mapGlobal (\\chunk -> %s chunk)%s\n", in, c->chunk, dot_reduce, scalar);
    break;
  case DOT_GLOBAL_LOCAL:
    body = format("  %s\n  |> split (%d * %d)\n  |> mapGlobal (\\grp ->\n"
                  "       grp |> split %d\n           |> mapLocal (\\chunk -> %s chunk))\n  |> join%s\n",
                  in, c->wg, c->chunk, c->chunk, dot_reduce, scalar);
    break;
  case DOT_GLOBAL_TOLOCAL:
    body = format("  %s\n  |> split %d\n  |> mapGlobal (\\chunk ->\n"
                  "       chunk |> split %d |> toLocal (mapSeq (\\part -> %s part))\n"
                  "             |> reduceSeq (\\p a -> p + a) 0.0)%s\n",
                  in, c->chunk, c->chunk / 4, dot_reduce, scalar);
    break;
  default: abort();
  }
  char *text = format("-- %s, width %d, %d work-items, chunks of %d\n"
                      "kernel dotProduct (N: nat) (xs ys: [N]float) =\n%s",
                      structures[c->structure].description, c->width, c->wg, c->chunk, body);
  free(in);
  free(body);
  return text;
}

/* one row of mat times x: a float */
static char *row_dot(int w) {
  const char *dot = "reduceSeq (\\p s -> fst p * snd p + s) 0.0";
  if (w == 1) return format("(zip (fst row) x |> %s)", dot);
  /* the vector sum of the row in private memory, then its lanes */
  return format("(zip (asVector %d (fst row)) (asVector %d x)\n            |> split (N / %d)\n"
                "            |> toPrivate (mapSeq (\\c -> %s c))\n"
                "            |> asScalar\n            |> reduceSeq (\\t s -> t + s) 0.0)",
                w, w, w, dot);
}

static char *gemv_program(const Candidate *c) {
  char *row = zipped("(fst row)", "x", c->width);
  /* the final sum of a group's partial sums, vectors first turned into floats */
  const char *lanes = c->width > 1 ? "\n       |> asScalar" : "";
  const char *final = "alpha * reduceSeq (\\t s -> t + s) 0.0 parts + beta * snd row";
  const char *dot = "reduceSeq (\\p s -> fst p * snd p + s) 0.0";
  char *body, *rd = row_dot(c->width);
  switch (c->structure) {
  case GEMV_WG_TOLOCAL:
  case GEMV_WG_GLOBAL:
    body = format("  zip mat y\n  |> mapWorkgroup (\\row ->\n       %s\n       |> split (N / (%d * %d))\n"
                  "       |> %s(mapLocal (\\chunk -> %s chunk))%s\n       |> split (%d * %d)\n"
                  "       |> mapLocal (\\parts -> %s))\n  |> join\n",
                  row, c->width, c->wg, c->structure == GEMV_WG_TOLOCAL ? "toLocal " : "", dot, lanes, c->width,
                  c->wg, final);
    break;
  case GEMV_WG_SEQ:
    body = format("  zip mat y\n  |> mapWorkgroup (\\row -> alpha * %s + beta * snd row)\n", rd);
    break;
  case GEMV_GLOBAL_SEQ:
    body = format("  zip mat y\n  |> mapGlobal (\\row -> alpha * %s + beta * snd row)\n", rd);
    break;
  case GEMV_GLOBAL_LOCAL:
    body = format("  zip mat y\n  |> mapGlobal (\\row ->\n       %s\n       |> split (N / (%d * %d))\n"
                  "       |> mapLocal (\\chunk -> %s chunk)%s\n       |> reduceSeq (\\t s -> t + s) 0.0)\n",
                  row, c->width, c->wg, dot, lanes);
    break;
  default: abort();
  }
  char *text = format("-- %s, width %d, %d work-items\n"
                      "kernel gemv (M N: nat) (alpha beta: float) (mat: [M][N]float) (x: [N]float) (y: [M]float) =\n%s",
                      structures[c->structure].description, c->width, c->wg, body);
  free(row);
  free(rd);
  free(body);
  return text;
}

/* ---- the search ---- */

static bool is_word(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* the code and the first line of the first diagnostic, numbers as '#'
 * (so that the same reason for different sizes counts once; mapLocal0
 * stays a name) */
static void reason_of(const DpiaResult *r, char *out, size_t size) {
  const DpiaDiagnostic *d = dpia_result_diagnostic(r, 0);
  const char *m = d ? d->message : "no diagnostic";
  size_t n = (size_t)snprintf(out, size, "%s ", d && d->code ? d->code : "-");
  if (n >= size) n = size - 1;
  bool in_word = false;
  for (; *m && *m != '\n' && n + 1 < size; m++) {
    bool digit = *m >= '0' && *m <= '9';
    if (digit && !in_word) {
      if (n == 0 || out[n - 1] != '#') out[n++] = '#';
    } else {
      out[n++] = *m;
      in_word = is_word(*m) || (digit && in_word);
    }
  }
  out[n] = 0;
}

typedef struct Reasons {
  int n;
  char text[32][200];
  int count[32];
} Reasons;

static void count_reason(Reasons *rs, const char *reason) {
  for (int i = 0; i < rs->n; i++)
    if (strcmp(rs->text[i], reason) == 0) {
      rs->count[i]++;
      return;
    }
  if (rs->n == 32) return;
  snprintf(rs->text[rs->n], sizeof rs->text[0], "%s", reason);
  rs->count[rs->n++] = 1;
}

static void print_reasons(const Reasons *rs) {
  for (int i = 0; i < rs->n; i++) printf("  %5d  %s\n", rs->count[i], rs->text[i]);
}

/* the candidate's kernel name and nat values for DPIA_RUN */
static void run_options(const Config *cfg, const Candidate *c, DpiaOptions *opt, const char **names,
                        long long *values) {
  opt->kernel = structures[c->structure].problem == DOT ? "dotProduct" : "gemv";
  opt->local_size[0] = c->local_size;
  if (structures[c->structure].problem == DOT) {
    names[0] = "N";
    values[0] = cfg->dot_n;
    opt->nsizes = 1;
  } else {
    names[0] = "M";
    values[0] = cfg->gemv_m;
    names[1] = "N";
    values[1] = cfg->gemv_n;
    opt->nsizes = 2;
  }
  opt->size_names = names;
  opt->size_values = values;
}

static int generate(const Config *cfg, Candidate **out) {
  int cap = 1024, n = 0;
  Candidate *cs = calloc((size_t)cap, sizeof *cs);
  for (int s = 0; s < NSTRUCTURES; s++)
    for (int w = 0; w < cfg->nwidths; w++)
      for (int g = 0; g < cfg->nwgs; g++)
        for (int k = 0; k < cfg->nchunks; k++) {
          Problem p = structures[s].problem;
          /* gemv has no chunk size; its sequential structures no group size */
          if (p == GEMV && k > 0) continue;
          if (s == GEMV_WG_SEQ && g > 0) continue;
          if (n == cap) {
            cap *= 2;
            cs = realloc(cs, sizeof *cs * (size_t)cap);
          }
          Candidate *c = &cs[n++];
          memset(c, 0, sizeof *c);
          c->structure = (Structure)s;
          c->width = cfg->widths[w];
          c->wg = s == GEMV_WG_SEQ ? 1 : cfg->wgs[g];
          c->chunk = p == DOT ? cfg->chunks[k] : 0;
          c->local_size = s == DOT_GLOBAL_SEQ || s == GEMV_GLOBAL_SEQ ? c->wg : 0;
          c->source = p == DOT ? dot_program(c) : gemv_program(c);
        }
  *out = cs;
  return n;
}

static void describe(const Candidate *c, char *out, size_t size) {
  if (structures[c->structure].problem == DOT)
    snprintf(out, size, "width %d, %3d work-items, chunk %4d: %s", c->width, c->wg, c->chunk,
             structures[c->structure].description);
  else
    snprintf(out, size, "width %d, %3d work-items: %s", c->width, c->wg, structures[c->structure].description);
}

static int by_time(const void *a, const void *b) {
  const Candidate *x = *(Candidate *const *)a, *y = *(Candidate *const *)b;
  return (x->min_ms > y->min_ms) - (x->min_ms < y->min_ms);
}

int main(int argc, char **argv) {
  static const int widths_full[] = {1, 2, 4, 8}, wgs_full[] = {32, 64, 128, 256}, chunks_full[] = {256, 1024, 4096};
  static const int widths_quick[] = {1, 4}, wgs_quick[] = {64}, chunks_quick[] = {1024};
  Config cfg = {false, 2, 1, 1, widths_quick, wgs_quick, chunks_quick, 3LL << 18, 256, 1024, 3, 2};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--full") == 0) {
      cfg = (Config){true, 4, 4, 3, widths_full, wgs_full, chunks_full, 3LL << 21, 2048, 4096, 5, 5};
    } else {
      fprintf(stderr, "usage: search [--full]\n");
      return 2;
    }
  }
  printf("dpia strategy search (%s): dot N=%lld, gemv M=%lld N=%lld, %d timed launches each\n",
         cfg.full ? "full" : "reduced", cfg.dot_n, cfg.gemv_m, cfg.gemv_n, cfg.repeat);
  Candidate *cs;
  int n = generate(&cfg, &cs);
  int failures = 0;

  /* 1. translate every candidate, verification off */
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.verify = 0;
  Reasons rejected = {0};
  int naccepted = 0;
  double t0 = now();
  for (int i = 0; i < n; i++) {
    DpiaResult *r;
    int st = dpia_process("candidate.dpia", cs[i].source, strlen(cs[i].source), &opt, &r);
    cs[i].accepted = st == DPIA_OK;
    if (!cs[i].accepted) {
      reason_of(r, cs[i].reason, sizeof cs[i].reason);
      count_reason(&rejected, cs[i].reason);
    }
    naccepted += cs[i].accepted;
    dpia_result_free(r);
  }
  double translate_s = now() - t0;
  printf("\n%d candidates translated in %.3f s: %.0f candidates/s (in process, verification off)\n", n, translate_s,
         n / translate_s);
  printf("%d accepted, %d rejected by dpia:\n", naccepted, n - naccepted);
  print_reasons(&rejected);
  for (int i = 0; i < n; i++)
    if (cs[i].accepted != structures[cs[i].structure].valid) {
      char d[256];
      describe(&cs[i], d, sizeof d);
      printf("UNEXPECTED: dpia %s %s\n", cs[i].accepted ? "accepted" : "rejected", d);
      failures++;
    }

  /* 2. run every accepted candidate */
  Reasons refused = {0};
  int nran = 0;
  t0 = now();
  for (int i = 0; i < n; i++) {
    if (!cs[i].accepted) continue;
    DpiaOptions ro;
    dpia_options_init(&ro);
    ro.action = DPIA_RUN;
    ro.repeat = cfg.repeat;
    ro.seed = 42;
    const char *names[2];
    long long values[2];
    run_options(&cfg, &cs[i], &ro, names, values);
    DpiaResult *r;
    int st = dpia_process("candidate.dpia", cs[i].source, strlen(cs[i].source), &ro, &r);
    cs[i].ran = st == DPIA_OK && dpia_result_run_time(r, &cs[i].min_ms, NULL);
    if (!cs[i].ran) {
      reason_of(r, cs[i].reason, sizeof cs[i].reason);
      count_reason(&refused, cs[i].reason);
      if (st == DPIA_EOPENCL) {
        printf("OpenCL is not available: %s\n", cs[i].reason);
        return 1;
      }
    }
    nran += cs[i].ran;
    dpia_result_free(r);
  }
  printf("\n%d candidates ran on the device in %.1f s; %d refused at launch:\n", nran, now() - t0, naccepted - nran);
  print_reasons(&refused);

  /* 3. the winners of each problem: verified translation, checked run */
  DpiaVerifier *verifier = dpia_verifier_new();
  Candidate **ranked = malloc(sizeof *ranked * (size_t)n);
  for (int p = DOT; p <= GEMV; p++) {
    int m = 0;
    for (int i = 0; i < n; i++)
      if (cs[i].ran && structures[cs[i].structure].problem == (Problem)p) ranked[m++] = &cs[i];
    qsort(ranked, (size_t)m, sizeof *ranked, by_time);
    double bytes = p == DOT ? 8.0 * (double)cfg.dot_n
                            : 4.0 * (double)(cfg.gemv_m * cfg.gemv_n + cfg.gemv_n + 2 * cfg.gemv_m);
    printf("\nbest %s strategies (of %d that ran):\n", problem_names[p], m);
    if (m == 0) {
      printf("  none\n");
      failures++;
    }
    for (int k = 0; k < m && k < cfg.top; k++) {
      Candidate *c = ranked[k];
      DpiaOptions vo;
      dpia_options_init(&vo);
      vo.action = DPIA_TRANSLATE;
      vo.verify = 1;
      vo.verifier = verifier;
      vo.local_size[0] = c->local_size;
      DpiaResult *r;
      c->verified = dpia_process("winner.dpia", c->source, strlen(c->source), &vo, &r) == DPIA_OK;
      if (!c->verified) printf("%s", dpia_result_diagnostics(r));
      dpia_result_free(r);
      DpiaOptions co;
      dpia_options_init(&co);
      co.action = DPIA_RUN;
      co.check = 1;
      co.seed = 7;
      co.verify = 1;
      co.verifier = verifier;
      const char *names[2];
      long long values[2];
      run_options(&cfg, c, &co, names, values);
      c->checked = dpia_process("winner.dpia", c->source, strlen(c->source), &co, &r) == DPIA_OK;
      if (!c->checked) printf("%s", dpia_result_diagnostics(r));
      dpia_result_free(r);
      char d[256];
      describe(c, d, sizeof d);
      printf("  %d. %8.3f ms %6.2f GB/s  %s  [%s, %s]\n", k + 1, c->min_ms, bytes / (c->min_ms * 1e6), d,
             c->verified ? "verified" : "VERIFICATION FAILED", c->checked ? "matches the reference" : "WRONG");
      failures += !c->verified + !c->checked;
    }
    if (m > 0) {
      Candidate *worst = ranked[m - 1];
      char d[256];
      describe(worst, d, sizeof d);
      printf("  slowest: %.3f ms  %s\n", worst->min_ms, d);
    }
  }
  if (cfg.full) {
    /* the winner's program, as the search wrote it */
    for (int p = DOT; p <= GEMV; p++) {
      const Candidate *best = NULL;
      for (int i = 0; i < n; i++)
        if (cs[i].ran && structures[cs[i].structure].problem == (Problem)p && (!best || cs[i].min_ms < best->min_ms))
          best = &cs[i];
      if (best) printf("\nthe fastest %s program:\n%s", problem_names[p], best->source);
    }
  }
  dpia_verifier_free(verifier);
  free(ranked);
  for (int i = 0; i < n; i++) free(cs[i].source);
  free(cs);
  printf("\n%s\n", failures ? "search FAILED" : "search ok");
  return failures ? 1 : 0;
}
