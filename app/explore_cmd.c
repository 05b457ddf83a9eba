/* explore_cmd.c: the command lines of the searches on the device, `dpia
 * explore` (docs/explore.md) and `dpia tune` (docs/tune.md): read their
 * options into a DpiaExplore and run DPIA_EXPLORE or DPIA_TUNE through the
 * public API. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dpia.h"

static const char explore_help[] =
    "usage: dpia explore FILE -k KERNEL --size N=VALUE... [--budget SECONDS] [--tries N]\n"
    "                    [--jobs J] [-o BEST.dpia] [--json] [--seed S] [--repeat R] [--progress]\n"
    "                    [--inputs=signed|positive|unit] [--diagnostics=text|json]\n"
    "\n"
    "Derive strategies for the high-level KERNEL (docs/language.md section 21) by\n"
    "the rewrite rules, composed into macro steps (one work-item per element, one\n"
    "work-group per block, vectorise, chunks, partial sums in local memory), with\n"
    "split, vector and work-group sizes drawn from the powers of two that fit the\n"
    "sizes; check each as 'dpia check' does (J at once), time it on the device as\n"
    "'dpia run' does (one at a time, R launches, default 5), and check the fastest\n"
    "against the reference interpreter.  The whole space is searched when it is\n"
    "small, else a sample drawn by the seed, then local search around the fastest,\n"
    "within the budget (default 60 s), or until N strategies are tried (--tries: as\n"
    "far on a loaded machine as on an idle one).  Prints the ranking with each strategy's\n"
    "derivation (RULE@PATH ...) and time, or one JSON object with --json; -o writes\n"
    "the best as a dpia program with its derivation as a comment.  A progress line\n"
    "goes to stderr when it is a terminal, or with --progress.  A kernel that is a\n"
    "whole reduction gets its partial sums derived (docs/explore.md).  Exit 1 when\n"
    "no strategy is found within the budget (E1106); exit 3 when the seed's inputs\n"
    "are outside the kernel's domain, so that no strategy can be checked (E0006:\n"
    "choose --inputs, as for 'dpia run --check', or another seed); with\n"
    "--diagnostics=json the diagnostics of a failure are alone on stdout, the\n"
    "ranking on stderr.\n";

static const char tune_help[] =
    "usage: dpia tune FILE -k KERNEL --size N=VALUE... [--valid-at N=VALUE...]... [--budget SECONDS]\n"
    "                 [--set NAME=VALUE]... [--cache FILE|off] [--json] [--seed S] [--repeat R] [--progress]\n"
    "                 [--diagnostics=text|json]\n"
    "\n"
    "Time the points of the tune parameters of KERNEL (a kernel or a pipeline) on\n"
    "the device at the sizes given, as 'dpia run' times them (R launches, default\n"
    "5): every combination of their values (a range's powers of two), the declared\n"
    "defaults first, then in the seed's order until the budget (default 60 s) is\n"
    "spent; a point whose preconditions fail at the sizes, or at the sizes of a\n"
    "--valid-at (a size for each nat parameter, as --size), is skipped.  The fastest\n"
    "is checked against the reference interpreter and kept in the tuning cache\n"
    "(--cache, else $DPIA_TUNE_CACHE, else ~/.cache/dpia/tune.json) for this\n"
    "device, driver, source and sizes: 'dpia translate', 'run' and 'verify' -k\n"
    "KERNEL then use its values for the parameters not given by --set.  --set\n"
    "fixes a parameter.  Prints the ranking, or one JSON object with --json.  Exit\n"
    "1 when no point runs and agrees within the budget (E1108), or when the cache\n"
    "cannot be read or written (E0811).\n";

enum { MAX_SIZES = 32, MAX_VALID_AT = 16 };

#define usage(...) cli_usage(q->name, __VA_ARGS__)

typedef struct Request {
  const char *name, *help; /* the command's */
  bool tune;
  DpiaExplore x;
  DpiaOptions opt;
  const char *file, *out_path;
  bool progress, seed_given;
  char *names[MAX_SIZES];
  long long values[MAX_SIZES];
  char *set_names[MAX_SIZES]; /* dpia tune --set */
  long long set_values[MAX_SIZES];
  char *valid_names[MAX_VALID_AT][MAX_SIZES]; /* dpia tune --valid-at, each */
  long long valid_values[MAX_VALID_AT][MAX_SIZES];
  DpiaSizes valid_at[MAX_VALID_AT];
} Request;

/* NAME=VALUE[,NAME=VALUE...] of --size (or --set) into names/values */
static int add_bindings(Request *q, const char *option, const char *text, char **names, long long *values, int *count) {
  const char *p = text;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', n);
    char *end;
    errno = 0;
    long long v = eq ? strtoll(eq + 1, &end, 10) : -1;
    if (!eq || eq == p || errno || v < 1 || end != p + n)
      return usage("bad %s '%s' (expected NAME=VALUE, a positive number; several as M=10,N=128)", option, text);
    if (*count == MAX_SIZES) return usage("too many %s values", option);
    names[*count] = strndup(p, (size_t)(eq - p));
    if (!names[*count]) return usage("%s", "out of memory");
    values[(*count)++] = v;
    if (!comma) return DPIA_OK;
    p = comma + 1;
  }
}

static bool number(const char *text, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (*end || end == text || errno || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

static int read_args(Request *q, int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    double v;
    int common = cli_common_option(q->name, q->help, &q->opt, &q->file, argc, argv, &i);
    if (common == CLI_DONE) return -1;
    if (common != CLI_OTHER) {
      if (common != CLI_TAKEN) return common;
    } else if (strcmp(a, "--size") == 0) {
      if (!next) return usage("%s", "--size needs NAME=VALUE");
      int status = add_bindings(q, a, argv[++i], q->names, q->values, &q->opt.nsizes);
      if (status != DPIA_OK) return status;
    } else if (q->tune && strcmp(a, "--set") == 0) {
      if (!next) return usage("%s", "--set needs NAME=VALUE");
      int status = add_bindings(q, a, argv[++i], q->set_names, q->set_values, &q->opt.nsets);
      if (status != DPIA_OK) return status;
    } else if (q->tune && strcmp(a, "--valid-at") == 0) {
      if (!next) return usage("%s", "--valid-at needs N=VALUE");
      int k = q->x.nvalid_at;
      if (k == MAX_VALID_AT) return usage("more than %d --valid-at", MAX_VALID_AT);
      DpiaSizes *at = &q->valid_at[k];
      int status = add_bindings(q, a, argv[++i], q->valid_names[k], q->valid_values[k], &at->n);
      q->x.nvalid_at += at->n > 0; /* its names are freed with it */
      if (status != DPIA_OK) return status;
      at->names = (const char *const *)q->valid_names[k];
      at->values = q->valid_values[k];
      q->x.valid_at = q->valid_at;
    } else if (q->tune && strcmp(a, "--cache") == 0) {
      if (!next) return usage("%s", "--cache needs a file (or off)");
      q->opt.tune_cache = argv[++i];
    } else if (strcmp(a, "--budget") == 0) {
      if (!next || !number(next, 0.001, 1e6, &v)) return usage("bad --budget '%s' (seconds, more than 0)", next ? next : "");
      q->x.budget_s = v;
      i++;
    } else if (!q->tune && strcmp(a, "--tries") == 0) {
      if (!next || !number(next, 1, 1e9, &v) || v != (int)v)
        return usage("bad --tries '%s' (a count, at least 1)", next ? next : "");
      q->x.max_tries = (int)v;
      i++;
    } else if (!q->tune && strcmp(a, "--jobs") == 0) {
      if (!next || !number(next, 1, 64, &v) || v != (int)v) return usage("bad --jobs '%s' (1 to 64)", next ? next : "");
      q->x.jobs = (int)v;
      i++;
    } else if (strcmp(a, "--repeat") == 0) {
      if (!next || !number(next, 1, 1000, &v) || v != (int)v) return usage("bad --repeat '%s' (1 to 1000)", next ? next : "");
      q->opt.repeat = (int)v;
      i++;
    } else if (strcmp(a, "--seed") == 0) {
      char *end;
      errno = 0;
      unsigned long long s = next && next[0] != '-' ? strtoull(next, &end, 10) : 0;
      if (!next || next[0] == '-' || *end || end == next || errno) return usage("bad --seed '%s'", next ? next : "");
      q->opt.seed = s;
      q->seed_given = true;
      i++;
    } else if (!q->tune && strncmp(a, "--inputs=", 9) == 0) {
      /* the random inputs of the runs, as dpia run's --inputs */
      if (strcmp(a + 9, "signed") == 0) q->opt.inputs = DPIA_INPUTS_SIGNED;
      else if (strcmp(a + 9, "positive") == 0) q->opt.inputs = DPIA_INPUTS_POSITIVE;
      else if (strcmp(a + 9, "unit") == 0) q->opt.inputs = DPIA_INPUTS_UNIT;
      else return usage("unknown --inputs kind '%s' (signed, positive, unit)", a + 9);
    } else if (!q->tune && strcmp(a, "-o") == 0) {
      if (!next) return usage("%s", "-o needs a file");
      if (q->out_path) return usage("%s given twice", "-o");
      q->out_path = argv[++i];
    } else if (strcmp(a, "--json") == 0) {
      q->x.json = 1;
    } else if (strcmp(a, "--progress") == 0) {
      q->progress = true;
    } else {
      return usage("unknown option '%s' for 'dpia %s'", a, q->name);
    }
  }
  if (!q->file) return usage("'dpia %s' needs an input FILE", q->name);
  if (!q->opt.kernel) return usage("'dpia %s' needs the kernel to work on (-k KERNEL)", q->name);
  if (!q->opt.nsizes) return usage("'dpia %s' needs the sizes to time at (--size N=VALUE)", q->name);
  return DPIA_OK;
}

static void show_progress(void *user, const char *line) {
  (void)user;
  fprintf(stderr, "\r%s\033[K", line);
  fflush(stderr);
}

static int search_command(bool tune, int argc, char **argv) {
  Request q;
  memset(&q, 0, sizeof q);
  q.tune = tune;
  q.name = tune ? "tune" : "explore";
  q.help = tune ? tune_help : explore_help;
  dpia_options_init(&q.opt);
  q.opt.action = tune ? DPIA_TUNE : DPIA_EXPLORE;
  q.opt.explore = &q.x;
  q.opt.size_names = (const char *const *)q.names;
  q.opt.size_values = q.values;
  q.opt.set_names = (const char *const *)q.set_names;
  q.opt.set_values = q.set_values;
  int status = read_args(&q, argc, argv);
  if (status == DPIA_OK && !q.seed_given) q.opt.seed = (unsigned long long)time(NULL) % 1000000;
  if (status == DPIA_OK && (q.progress || isatty(2))) q.x.progress = show_progress;
  size_t len = 0;
  char *text = status == DPIA_OK ? cli_read_file(q.file, &len) : NULL;
  if (status == DPIA_OK && !text) status = DPIA_EUSAGE;
  if (text) {
    DpiaResult *r = NULL;
    status = dpia_process(q.file, text, len, &q.opt, &r);
    if (q.x.progress) fputs("\n", stderr);
    size_t olen, blen;
    const char *out = dpia_result_output(r, &olen);
    const char *best = dpia_result_explore_best(r, &blen);
    /* --diagnostics=json after a failure: the diagnostics alone on
     * stdout, as every command gives them, the ranking on stderr */
    bool diag_out = q.opt.diagnostics_json && (status != DPIA_OK || !olen);
    fputs(dpia_result_diagnostics(r), diag_out ? stdout : stderr);
    fwrite(out, 1, olen, diag_out ? stderr : stdout);
    if (status == DPIA_OK && q.out_path && !tune) {
      FILE *f = fopen(q.out_path, "w");
      if (!f || fwrite(best, 1, blen, f) != blen || fclose(f) != 0) {
        fprintf(stderr, "dpia: error: cannot write %s: %s\n", q.out_path, strerror(errno));
        status = DPIA_EUSAGE;
      }
    }
    dpia_result_free(r);
    free(text);
  }
  for (int i = 0; i < q.opt.nsizes; i++) free(q.names[i]);
  for (int i = 0; i < q.opt.nsets; i++) free(q.set_names[i]);
  for (int v = 0; v < q.x.nvalid_at; v++)
    for (int i = 0; i < q.valid_at[v].n; i++) free(q.valid_names[v][i]);
  return status < 0 ? DPIA_OK : status;
}

int dpia_explore_command(int argc, char **argv) { return search_command(false, argc, argv); }

int dpia_tune_command(int argc, char **argv) { return search_command(true, argc, argv); }
