/* api_test.c: the public API of libdpia (dpia.h) as a library user sees it:
 * several outputs of one translation, diagnostics as text, as
 * JSON and one by one, emit kind names, a failing allocator, run times
 * (on the OpenCL device: PoCL in CI), the rewrite rules, dpia explore's
 * search with an evaluator of the caller's.
 *
 * usage: api_test SAMPLES_DIR */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpia.h"

#include "tests/test_check.h"

static char *slurp(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return strdup(buf);
}

/* the primary output of translating text with emit kind */
static char *translate(const char *text, DpiaEmit kind) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.emit = kind;
  DpiaResult *r;
  int st = dpia_process("gemv.dpia", text, strlen(text), &opt, &r);
  char *out = strdup(st == DPIA_OK ? dpia_result_output(r, NULL) : "");
  dpia_result_free(r);
  return out;
}

static void test_outputs(const char *samples) {
  char *text = slurp(samples, "gemv.dpia");
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.emit = DPIA_EMIT_OPENCL;
  opt.emit_also = DPIA_EMIT_BIT(DPIA_EMIT_JSON) | DPIA_EMIT_BIT(DPIA_EMIT_HEADER) | DPIA_EMIT_BIT(DPIA_EMIT_OPENCL);
  DpiaResult *r;
  int st = dpia_process("gemv.dpia", text, strlen(text), &opt, &r);
  CHECK(st == DPIA_OK, "gemv translates: %s", dpia_result_diagnostics(r));
  /* every output of one translation equals that of its own translation */
  for (int k = DPIA_EMIT_OPENCL; k <= DPIA_EMIT_HEADER; k++) {
    size_t len = 0;
    const char *got = dpia_result_emitted(r, (DpiaEmit)k, &len);
    bool asked = k == DPIA_EMIT_OPENCL || k == DPIA_EMIT_JSON || k == DPIA_EMIT_HEADER;
    if (!asked) {
      CHECK(got == NULL && len == 0, "%s was not asked for", dpia_emit_name((DpiaEmit)k));
      continue;
    }
    char *want = translate(text, (DpiaEmit)k);
    CHECK(got && strcmp(got, want) == 0 && len == strlen(want), "emit_also %s differs from --emit=%s",
          dpia_emit_name((DpiaEmit)k), dpia_emit_name((DpiaEmit)k));
    free(want);
  }
  size_t len;
  CHECK(dpia_result_emitted(r, DPIA_EMIT_OPENCL, &len) == dpia_result_output(r, NULL), "primary output");
  CHECK(strstr(dpia_result_emitted(r, DPIA_EMIT_HEADER, NULL), "dpia_gemv_launch") != NULL, "header");
  CHECK(strcmp(dpia_result_diagnostics(r), "") == 0, "no text diagnostics");
  CHECK(strcmp(dpia_result_diagnostics_json(r), "[]\n") == 0, "no JSON diagnostics");
  CHECK(dpia_result_diagnostic_count(r) == 0 && dpia_result_diagnostic(r, 0) == NULL, "no diagnostics");
  CHECK(dpia_result_emitted(r, (DpiaEmit)99, NULL) == NULL, "an emit kind out of range");
  dpia_result_free(r);

  /* dpia check has no outputs to emit */
  opt.action = DPIA_CHECK;
  st = dpia_process("gemv.dpia", text, strlen(text), &opt, &r);
  CHECK(st == DPIA_OK && dpia_result_emitted(r, DPIA_EMIT_JSON, NULL) == NULL, "check emits nothing");
  dpia_result_free(r);
  free(text);
}

static void test_diagnostics(void) {
  /* two independent errors: an unknown name, and a racy parfor with a note */
  const char *text = "kernel k (N: nat) (xs: [N]float) =\n"
                     "  xs |> mapGlobal (\\x -> x + nope)\n"
                     "\n"
                     "def racy (N: nat) (xs: [N]float) (out: acc[[N]float]) (b: acc[float]) =\n"
                     "  parfor out (\\i o -> b := idx xs i)\n";
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_CHECK;
  DpiaResult *r;
  int st = dpia_process("bad.dpia", text, strlen(text), &opt, &r);
  CHECK(st == DPIA_EUSER, "errors: status %d", st);
  int n = dpia_result_diagnostic_count(r), errors = 0;
  CHECK(n >= 2, "at least two diagnostics, got %d", n);
  for (int i = 0; i < n; i++) {
    const DpiaDiagnostic *d = dpia_result_diagnostic(r, i);
    CHECK(d && d->message && d->message[0], "diagnostic %d has a message", i);
    /* docs/errors.md: an error's stable code, none for a note */
    CHECK(d && (d->is_note ? d->code == NULL : d->code && d->code[0] == 'E' && strlen(d->code) == 5),
          "diagnostic %d: code %s", i, d && d->code ? d->code : "NULL");
    if (!d || d->is_note) continue;
    errors++;
    CHECK(d->file && strcmp(d->file, "bad.dpia") == 0, "diagnostic %d names the file", i);
    CHECK(d->line >= 1 && d->column >= 1 && d->end_line >= d->line, "diagnostic %d has a position", i);
  }
  CHECK(errors == dpia_result_error_count(r), "%d errors listed, %d counted", errors, dpia_result_error_count(r));
  const DpiaDiagnostic *first = dpia_result_diagnostic(r, 0);
  CHECK(first && first->line == 2 && strstr(first->message, "nope"), "the first error is about 'nope' on line 2");
  CHECK(first && first->code && strcmp(first->code, "E0201") == 0, "an unknown name is E0201, not %s",
        first && first->code ? first->code : "NULL");
  const DpiaDiagnostic *last = dpia_result_diagnostic(r, n - 1);
  CHECK(last && strstr(last->message, "b"), "the last diagnostic is about b");
  /* text and JSON agree */
  const char *json = dpia_result_diagnostics_json(r);
  CHECK(json[0] == '[' && strstr(json, "\"line\": 2") && strstr(json, "nope") && strstr(json, "\"code\": \"E0201\""),
        "JSON diagnostics: %s", json);
  CHECK(strstr(dpia_result_diagnostics(r), "bad.dpia:2:") != NULL, "text diagnostics");
  dpia_result_free(r);

  /* JSON asked for: the primary diagnostics are the JSON ones */
  opt.diagnostics_json = 1;
  dpia_process("bad.dpia", text, strlen(text), &opt, &r);
  CHECK(strcmp(dpia_result_diagnostics(r), dpia_result_diagnostics_json(r)) == 0, "diagnostics_json");
  dpia_result_free(r);
}

static void *no_memory(void *user, size_t size) {
  (void)user;
  (void)size;
  return NULL;
}

static void never_called(void *user, void *ptr) {
  (void)user;
  (void)ptr;
}

static void test_out_of_memory(void) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.alloc = no_memory;
  opt.release = never_called;
  DpiaResult *r = (DpiaResult *)&opt; /* must be overwritten */
  int st = dpia_process("x.dpia", "kernel k (N: nat) (xs: [N]float) = xs", 37, &opt, &r);
  CHECK(st != DPIA_OK && r == NULL, "no memory at all: no result");
  CHECK(dpia_result_diagnostic_count(r) == 1, "the NULL result has one diagnostic");
  CHECK(strcmp(dpia_result_diagnostic(r, 0)->message, "out of memory") == 0, "out of memory");
  CHECK(strcmp(dpia_result_diagnostic(r, 0)->code, "E0903") == 0, "out of memory is E0903");
  CHECK(strstr(dpia_result_diagnostics_json(r), "\"code\": \"E0903\"") != NULL, "out of memory in JSON is E0903");
  CHECK(strstr(dpia_result_diagnostics_json(r), "out of memory") != NULL, "JSON out of memory");
  CHECK(strcmp(dpia_result_diagnostics(r), "dpia: error[E0903]: out of memory\n") == 0,
        "the text names the code as every error's does: %s", dpia_result_diagnostics(r));
  CHECK(dpia_result_emitted(r, DPIA_EMIT_OPENCL, NULL) == NULL, "no output");
  dpia_result_free(r);
}

/* A translation over DpiaOptions.memory_limit stops with "program too
 * large" (the command line's limits test no longer reaches the default
 * limit: translation is linear in the program's size) */
static void test_memory_limit(const char *samples) {
  char *text = slurp(samples, "mm_vec.dpia");
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.memory_limit = 256 * 1024;
  DpiaResult *r;
  int st = dpia_process("mm_vec.dpia", text, strlen(text), &opt, &r);
  CHECK(st == DPIA_EUSER, "over the memory limit: status %d", st);
  CHECK(strstr(dpia_result_diagnostics(r), "dpia: error[E0902]: program too large: translating it needs more memory "
                                           "than the limit"),
        "the limit's message: %s", dpia_result_diagnostics(r));
  const DpiaDiagnostic *d = dpia_result_diagnostic(r, 0);
  CHECK(d && d->code && strcmp(d->code, "E0902") == 0 && strstr(dpia_result_diagnostics_json(r), "\"code\": \"E0902\""),
        "over the memory limit is E0902");
  dpia_result_free(r);
  opt.memory_limit = 0; /* the default */
  st = dpia_process("mm_vec.dpia", text, strlen(text), &opt, &r);
  CHECK(st == DPIA_OK, "within the default limit: %s", dpia_result_diagnostics(r));
  dpia_result_free(r);
  free(text);
}

/* DPIA_RUN gives the kernel's times; other actions none */
static void test_run_time(const char *samples) {
  char *text = slurp(samples, "scal.dpia");
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_RUN;
  opt.kernel = "scal";
  opt.repeat = 3;
  const char *names[] = {"N"};
  const long long values[] = {4096};
  opt.nsizes = 1;
  opt.size_names = names;
  opt.size_values = values;
  DpiaResult *r;
  int st = dpia_process("scal.dpia", text, strlen(text), &opt, &r);
  double min_ms = -1, median_ms = -1;
  CHECK(st == DPIA_OK, "run scal: %s", dpia_result_diagnostics(r));
  CHECK(dpia_result_run_time(r, &min_ms, &median_ms) == 1 && min_ms > 0 && median_ms >= min_ms,
        "run times %g %g", min_ms, median_ms);
  dpia_result_free(r);
  opt.action = DPIA_TRANSLATE;
  dpia_process("scal.dpia", text, strlen(text), &opt, &r);
  CHECK(dpia_result_run_time(r, &min_ms, &median_ms) == 0 && min_ms == 0 && median_ms == 0, "no run, no times");
  dpia_result_free(r);
  CHECK(dpia_result_run_time(NULL, NULL, NULL) == 0, "NULL result");
  free(text);
}

/* DPIA_RUN at sizes where a precondition fails: DPIA_EPRECONDITION, not
 * the DPIA_EUSER of an invalid program; the error points at the split
 * requiring it and gives the nearest valid sizes */
static void test_run_precondition(const char *samples) {
  char *text = slurp(samples, "gemv.dpia");
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_RUN;
  const char *names[] = {"M", "N"};
  const long long values[] = {10, 1000};
  opt.nsizes = 2;
  opt.size_names = names;
  opt.size_values = values;
  DpiaResult *r;
  int st = dpia_process("gemv.dpia", text, strlen(text), &opt, &r);
  CHECK(st == DPIA_EPRECONDITION && dpia_result_status(r) == DPIA_EPRECONDITION,
        "a failing precondition: status %d, want DPIA_EPRECONDITION (%d): %s", st, DPIA_EPRECONDITION,
        dpia_result_diagnostics(r));
  CHECK(DPIA_EPRECONDITION != DPIA_EUSER && DPIA_EPRECONDITION != DPIA_EUSAGE && DPIA_EPRECONDITION != DPIA_EVERIFY &&
            DPIA_EPRECONDITION != DPIA_EOPENCL && DPIA_EPRECONDITION != DPIA_EINTERNAL,
        "DPIA_EPRECONDITION is distinct");
  const DpiaDiagnostic *d = dpia_result_diagnostic(r, 0);
  CHECK(d && !d->is_note && strstr(d->message, "N = 1000 does not satisfy N % 64 == 0") &&
            strstr(d->message, "nearest valid: 960 or 1024"),
        "the message names the precondition, the value and the nearest valid sizes: %s", d ? d->message : "none");
  CHECK(d && d->code && strcmp(d->code, "E0805") == 0, "a violated precondition is E0805");
  /* the position is the split's, not the kernel name's */
  const char *at = text;
  for (int line = 1; d && line < d->line && at; line++) at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL;
  CHECK(at && strncmp(at + d->column - 1, "N / 64", 6) == 0, "the error points at the split's size: line %d col %d",
        d ? d->line : 0, d ? d->column : 0);
  dpia_result_free(r);
  /* an invalid program is still DPIA_EUSER */
  const char *bad = "kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> nope)\n";
  const char *n1[] = {"N"};
  const long long v1[] = {64};
  opt.nsizes = 1;
  opt.size_names = n1;
  opt.size_values = v1;
  st = dpia_process("bad.dpia", bad, strlen(bad), &opt, &r);
  CHECK(st == DPIA_EUSER, "an invalid program: status %d", st);
  dpia_result_free(r);
  free(text);
}

static void test_names(void) {
  for (int k = DPIA_EMIT_OPENCL; k <= DPIA_EMIT_HEADER; k++) {
    const char *name = dpia_emit_name((DpiaEmit)k);
    CHECK(name && dpia_emit_from_name(name) == k, "emit kind %d round trip", k);
  }
  CHECK(strcmp(dpia_emit_name(DPIA_EMIT_HEADER), "header") == 0, "header");
  CHECK(dpia_emit_from_name("pdf") == -1 && dpia_emit_name((DpiaEmit)-1) == NULL, "unknown kinds");
}

/* The verifiers of a one-shot call (what the dpia command uses): the
 * helper process when it is built next to libdpia, else none; libclang
 * loaded on a thread beforehand. */
static void test_verifiers(void) {
  CHECK(dpia_verifier_new_helper("/nonexistent/dpia-clang-check") == NULL, "a missing helper gives no verifier");
  dpia_verifier_free_at_exit(NULL);
  DpiaVerifier *h = dpia_verifier_new_helper(NULL);
  if (h) {
    const char *text = "kernel scal (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> 2.0 * x)\n";
    DpiaOptions opt;
    dpia_options_init(&opt);
    opt.action = DPIA_VERIFY;
    opt.verifier = h;
    DpiaResult *r;
    int st = dpia_process("scal.dpia", text, strlen(text), &opt, &r);
    CHECK(st == DPIA_OK, "verified with the helper: %s", dpia_result_diagnostics(r));
    dpia_result_free(r);
    dpia_verifier_free_at_exit(h);
  }
  DpiaPreload *p = dpia_preload_start();
  DpiaVerifier *v = dpia_verifier_new();
  CHECK(v != NULL, "a verifier after a preload");
  dpia_verifier_free(v);
  dpia_preload_finish(p);
  dpia_preload_finish(NULL);
}

/* DPIA_REWRITE: the rewrite rules as a library user drives them */
static DpiaResult *rewrite(const char *text, const char *kernel, const DpiaRewrite *rw, int *status) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_REWRITE;
  opt.kernel = kernel;
  opt.rewrite = rw;
  DpiaResult *r;
  *status = dpia_process("dot.dpia", text, strlen(text), &opt, &r);
  return r;
}

/* the code of the only error of r, "" if it has another number of errors */
static const char *only_code(const DpiaResult *r) {
  if (dpia_result_error_count(r) != 1) return "";
  for (int i = 0; i < dpia_result_diagnostic_count(r); i++) {
    const DpiaDiagnostic *d = dpia_result_diagnostic(r, i);
    if (d->code) return d->code;
  }
  return "";
}

static void test_rewrite(const char *samples) {
  char *text = slurp(samples, "explore/dot.dpia");
  int st;
  /* the listing: the root of dotHL is the reduce, whose rules are there */
  DpiaRewrite list = {.list = 1, .json = 1};
  DpiaResult *r = rewrite(text, "dotHL", &list, &st);
  const char *out = dpia_result_output(r, NULL);
  CHECK(st == DPIA_OK && strstr(out, "{\"kernel\": \"dotHL\", \"positions\": [") == out, "listing: %s %s", out,
        dpia_result_diagnostics(r));
  CHECK(strstr(out, "{\"path\": \".\"") && strstr(out, "{\"rule\": \"partialReduce\", \"params\": [{\"name\": \"n\""),
        "the root takes partialReduce with n: %s", out);
  dpia_result_free(r);

  /* apply with a parameter: the program text, which checks as --high-level */
  const char *names[] = {"n"};
  const long long values[] = {4};
  DpiaRewrite apply = {.apply = "vectorise@1", .nparams = 1, .param_names = names, .param_values = values};
  r = rewrite(text, "dotHL", &apply, &st);
  out = dpia_result_output(r, NULL);
  CHECK(st == DPIA_OK && strstr(out, "kernel dotHL") && strstr(out, "asVector 4 xs") && strstr(out, "asScalar"),
        "vectorise@1 n=4: %s %s", out, dpia_result_diagnostics(r));
  char *derived = strdup(out);
  dpia_result_free(r);
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_CHECK;
  opt.high_level = 1;
  st = dpia_process("derived.dpia", derived, strlen(derived), &opt, &r);
  CHECK(st == DPIA_OK, "the rewritten program checks: %s", dpia_result_diagnostics(r));
  dpia_result_free(r);
  free(derived);

  /* each refusal has its code */
  static const struct {
    const char *apply;
    long long n; /* -1: no parameter */
    const char *code;
  } refused[] = {{"fuseAll@.", -1, "E1101"}, {"lowerSeq@1.9", -1, "E1102"},   {"splitJoin@1", -1, "E1103"},
                 {"vectorise@1", 5, "E1103"}, {"lowerLocal@1", -1, "E1104"}, {"toPrivate@1", -1, "E1105"}};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    DpiaRewrite rw = {.apply = refused[i].apply};
    const long long v[] = {refused[i].n};
    if (refused[i].n >= 0) {
      rw.nparams = 1;
      rw.param_names = names;
      rw.param_values = v;
    }
    r = rewrite(text, "dotHL", &rw, &st);
    CHECK(st == DPIA_EUSER && strcmp(only_code(r), refused[i].code) == 0 && dpia_result_output(r, NULL)[0] == 0,
          "%s: status %d, want %s: %s", refused[i].apply, st, refused[i].code, dpia_result_diagnostics(r));
    dpia_result_free(r);
  }
  r = rewrite(text, "nope", &list, &st);
  CHECK(st == DPIA_EUSAGE && strcmp(only_code(r), "E0806") == 0, "no kernel nope: %s", dpia_result_diagnostics(r));
  dpia_result_free(r);
  free(text);
}

/* DPIA_EXPLORE with an evaluator of the caller's (DpiaExplore.evaluate):
 * the search takes its answers (here made up: an even id runs in 1 + id
 * ms, an odd one fails a precondition, E0805), checks the fastest by it
 * too, and stops with E1109 when it fails */
typedef struct Answers {
  int batches, runs, checks, last_checked, fail;
} Answers;

static int made_up(void *user, DpiaExploreRun *runs, int n) {
  Answers *a = user;
  a->batches++;
  if (a->fail) return 1;
  for (int i = 0; i < n; i++) {
    DpiaExploreRun *q = &runs[i];
    CHECK(q->program && strstr(q->program, "kernel scalHL") && q->kernel && strcmp(q->kernel, "scalHL") == 0 &&
              q->strategy && q->strategy[0],
          "run %d: the derived program, its kernel and strategy", q->id);
    /* the search's runs launch the repeat (2), the re-timing's at the end
     * between it and ten times it (docs/explore.md, "The re-timing") */
    CHECK(q->check ? q->repeat == 1 : q->repeat >= 2 && q->repeat <= 20, "run %d: repeat %d (check %d)", q->id,
          q->repeat, q->check);
    a->runs++;
    if (q->check) {
      a->checks++;
      a->last_checked = q->id;
    }
    q->status = q->id % 2 ? DPIA_EPRECONDITION : DPIA_OK;
    q->min_ms = q->median_ms = q->id % 2 ? 0 : 1.0 + q->id;
    snprintf(q->reason, sizeof q->reason, "%s", q->id % 2 ? "E0805" : "");
  }
  return 0;
}

static void test_explore_evaluator(const char *samples) {
  char *text = slurp(samples, "explore/scal.dpia");
  Answers a = {0};
  DpiaExplore x = {.budget_s = 120, .json = 1, .evaluate = made_up, .evaluate_user = &a};
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_EXPLORE;
  opt.kernel = "scalHL";
  opt.explore = &x;
  opt.repeat = 2;
  opt.seed = 5;
  const char *names[] = {"N"};
  const long long values[] = {256};
  opt.nsizes = 1;
  opt.size_names = names;
  opt.size_values = values;
  DpiaResult *r;
  int st = dpia_process("scal.dpia", text, strlen(text), &opt, &r);
  const char *out = dpia_result_output(r, NULL);
  /* the fastest is the timed candidate of least id: the first even id run */
  char best[64];
  snprintf(best, sizeof best, "\"best\": {\"id\": %d,", a.last_checked);
  CHECK(st == DPIA_OK && a.batches > 1 && a.checks == 1 && a.last_checked % 2 == 0 && strstr(out, best) &&
            strstr(out, "\"status\": \"precondition\", \"reason\": \"E0805\"") &&
            strstr(out, "\"check\": \"ok\"") && strstr(dpia_result_explore_best(r, NULL), "kernel scalHL"),
        "explore by an evaluator: status %d, %d batches, %d runs, %d checks (of %d): %.400s %s", st, a.batches,
        a.runs, a.checks, a.last_checked, out, dpia_result_diagnostics(r));
  char min_ms[64];
  snprintf(min_ms, sizeof min_ms, "\"min_ms\": %d,", 1 + a.last_checked);
  CHECK(strstr(out, min_ms) != NULL, "the best's time is the evaluator's: %.400s", out);
  dpia_result_free(r);
  Answers failing = {.fail = 1};
  x.evaluate_user = &failing;
  st = dpia_process("scal.dpia", text, strlen(text), &opt, &r);
  CHECK(st == DPIA_EUSER && strcmp(only_code(r), "E1109") == 0 && failing.batches == 1 &&
            dpia_result_explore_best(r, NULL)[0] == 0,
        "a failing evaluator: status %d, %d batches: %s", st, failing.batches, dpia_result_diagnostics(r));
  dpia_result_free(r);
  free(text);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: api_test SAMPLES_DIR\n");
    return 2;
  }
  test_outputs(argv[1]);
  test_diagnostics();
  test_out_of_memory();
  test_memory_limit(argv[1]);
  test_names();
  test_rewrite(argv[1]);
  test_explore_evaluator(argv[1]);
  test_run_time(argv[1]);
  test_run_precondition(argv[1]);
  test_verifiers();
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("ok\n");
  return failures != 0;
}
