/* test_rewrite.c: the rewrite rules of dpia/rules.h (docs/language.md
 * section 21) are sound, and programs print back to the same tree.
 *
 * Usage: test_rewrite FILE...
 *        test_rewrite --random DEPTH FILE...
 *
 * --random: every file is a high-level program (tests/diff/gen.py
 * --high-level, tests/rewrite/random_rules.py) searched to DEPTH; every
 * rule of the table must still be applied soundly at least once over all
 * of them.
 *
 * For every file: the round trip of program_print (parse, print, parse
 * again: the same trees; printing again: the same text).
 *
 * For every kernel of a file that checks as a high-level program (the
 * samples of samples/explore, and the files with a line `-- REWRITE-SEARCH`):
 * a bounded search over rule applications
 * (every position --list gives, every rule there, parameters n=4, a
 * tile of n=3 and dim=0), to depth DEPTH (or N, when less, where the file
 * has a line `-- REWRITE-DEPTH: N`), through the library as `dpia rewrite --apply`
 * runs it.  Each application is either refused with E1104 or E1105 (the
 * rule's side conditions) or gives a program that
 *   - computes what the original kernel computes in the reference
 *     interpreter (verify/interp.c), at the smallest sizes of a list that
 *     satisfy the rewritten kernel's preconditions, on the same random
 *     inputs (soundness);
 *   - passes `dpia check` when it is fully lowered (plain check fails only
 *     with E0601, a map with no level, while it is not).
 * Every rule of the table must be applied soundly at least once: a rule
 * that no sample exercises fails the test.  Prints a summary line.
 *
 * Many applications give a program another one gave already (splitJoin
 * then lowerSeq, or lowerSeq then splitJoin: half the results at depth 3
 * are such repeats).  The interpreter's values and check's verdict are
 * functions of the program's text (the inputs drawn from one seed, the
 * sizes from one list), so a repeated text takes the outcome of its first
 * occurrence, failures included, instead of being evaluated and checked
 * again, and is not searched from a second time: the first occurrence,
 * found no deeper (the search is breadth first), is searched from as
 * deep.  Every application is still made and its status checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"
#include "dpia.h"
#include "rules.h"
#include "verify/interp.h"
#include "verify/runtime.h"

enum { DEPTH = 3, MAX_PROGRAMS = 400 };

static int failures;
static int applied[RULE_COUNT];

#define FAIL(...)                 \
  do {                            \
    fprintf(stderr, "FAIL: ");    \
    fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr);          \
    failures++;                   \
  } while (0)

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return strdup(buf);
}

static Program *parse_text(UnitEnv *env, const char *name, const char *text) {
  Source *src = NEW(&env->arena, Source);
  source_init(src, &env->arena, name, text, strlen(text));
  diag_init(&env->diag, &env->arena);
  Program *p = parse_program(&env->arena, &env->in, &env->diag, src);
  return env->diag.nerrors ? NULL : p;
}

static void round_trip(UnitEnv *env, const char *path, const char *text) {
  Program *p = parse_text(env, path, text);
  if (!p) {
    FAIL("%s does not parse", path);
    return;
  }
  Buf once, twice;
  buf_init(&once, &env->arena);
  buf_init(&twice, &env->arena);
  program_print(&once, p);
  Program *q = parse_text(env, path, once.data);
  if (!q) {
    FAIL("%s: its printout does not parse:\n%s", path, once.data);
    return;
  }
  int j = 0;
  for (int i = 0; i < p->ndecls; i++) {
    if (p->decls[i]->from_prelude) continue;
    while (j < q->ndecls && q->decls[j]->from_prelude) j++;
    const Decl *a = p->decls[i], *b = j < q->ndecls ? q->decls[j] : NULL;
    j++;
    if (!b || strcmp(a->name, b->name) != 0 || (a->body && !ast_equal(a->body, b->body)))
      FAIL("%s: declaration %s is another tree once printed and parsed again", path, a->name);
  }
  program_print(&twice, q);
  if (strcmp(once.data, twice.data) != 0) FAIL("%s: printing the printout gives other text", path);
}

/* ---- the reference interpreter on one kernel ---- */

typedef struct Eval {
  bool ok;
  double *out;
  size_t n;
} Eval;

static const long long candidate_sizes[] = {16, 32, 64, 128, 256, 4096, 8192, 16384, 32768, 65536, 131072};

/* the kernel's value at nats (all its nat parameters given one value: the
 * first candidate that satisfies its preconditions, when *size is 0) */
static Eval evaluate(const char *text, const char *kernel, long long *size) {
  Eval ev = {0};
  static UnitEnv env; /* one at a time; freed below */
  UNIT_ENV_INIT(&env, "test_rewrite");
  Program *p = parse_text(&env, kernel, text);
  CheckedProgram *cp = p ? check_program(&env.arena, &env.in, &env.diag, &env.tc, p) : NULL;
  DefInfo *def = NULL;
  for (int i = 0; cp && i < cp->ndefs; i++)
    if (strcmp(cp->defs[i]->name, kernel) == 0) def = cp->defs[i];
  Phrase *body = def && !env.diag.nerrors ? normalize_def(&env.arena, &env.tc, &env.diag, def) : NULL;
  if (!body) {
    arena_free(&env.arena);
    return ev;
  }
  int64_t *values = NEWARRAY(&env.arena, int64_t, def->nsize_params + 1);
  NatValues nats = {def->nsize_params, (const char *const *)def->size_params, values};
  Buf err;
  buf_init(&err, &env.arena);
  for (size_t c = 0; c < DPIA_COUNTOF(candidate_sizes) && !*size; c++) {
    for (int i = 0; i < def->nsize_params; i++) values[i] = candidate_sizes[c];
    bool holds = true;
    for (int j = 0; j < def->nprecond && holds; j++) {
      holds = precond_eval(&def->preconds[j], nat_lookup, &nats) == PRECOND_HOLDS;
    }
    if (holds) *size = candidate_sizes[c];
  }
  for (int i = 0; i < def->nsize_params; i++) values[i] = *size;
  Rng rng;
  rng_seed(&rng, 42);
  double **in;
  size_t *counts;
  double *out;
  size_t n;
  if (*size && interp_random_inputs(&env.arena, def, &nats, &rng, &in, &counts, &err) &&
      interp_run(&env.arena, def, body, &nats, (const double *const *)in, counts, &out, &n, &err)) {
    ev.ok = true;
    ev.n = n;
    ev.out = malloc(sizeof(double) * (n ? n : 1));
    memcpy(ev.out, out, sizeof(double) * n);
  } else {
    fprintf(stderr, "note: %s not evaluated: %s\n", kernel, err.data ? err.data : "no sizes satisfy it");
  }
  arena_free(&env.arena);
  return ev;
}

/* ---- through the library, as dpia rewrite and dpia check run ---- */

static int run(const char *text, const DpiaOptions *o, char **output, const char **code) {
  DpiaResult *r = NULL;
  int status = dpia_process("<rewrite>", text, strlen(text), o, &r);
  size_t len;
  const char *out = dpia_result_output(r, &len);
  if (output) *output = strdup(out);
  *code = NULL;
  for (int i = 0; i < dpia_result_diagnostic_count(r); i++) {
    const DpiaDiagnostic *d = dpia_result_diagnostic(r, i);
    if (!d->is_note && d->code) {
      static char first[8];
      snprintf(first, sizeof first, "%s", d->code);
      *code = first;
      break;
    }
  }
  if (status != DPIA_OK && getenv("TEST_REWRITE_VERBOSE")) fputs(dpia_result_diagnostics(r), stderr);
  dpia_result_free(r);
  return status;
}

/* what became of a result: evaluated and compared (sound or not), or not
 * compared (no size satisfies its preconditions); and check's verdict */
typedef enum { RESULT_SOUND, RESULT_NOT_COMPARED, RESULT_NOT_RUN, RESULT_DIFFERS } ResultValues;
typedef struct Result {
  char *text; /* NULL: a free slot */
  uint64_t hash;
  ResultValues values;
  bool check_ok;
} Result;

typedef struct Search {
  const char *kernel;
  int max_depth;
  Eval reference;
  long long size;
  char *programs[MAX_PROGRAMS];
  int depth[MAX_PROGRAMS];
  int n;
  /* every distinct result of this kernel's search, by text (open
   * addressing, at most half full) */
  Result *results;
  size_t nresults, cap, repeats;
} Search;

static uint64_t text_hash(const char *text) {
  uint64_t h = 14695981039346656037ull; /* FNV-1a */
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) h = (h ^ *c) * 1099511628211ull;
  return h;
}

/* the slot of text: its entry, or the free slot where it goes */
static Result *result_slot(Search *s, const char *text, uint64_t hash) {
  size_t i = hash & (s->cap - 1);
  while (s->results[i].text && (s->results[i].hash != hash || strcmp(s->results[i].text, text) != 0))
    i = (i + 1) & (s->cap - 1);
  return &s->results[i];
}

/* text (owned by the table from now on) with its outcome */
static void result_add(Search *s, char *text, uint64_t hash, ResultValues values, bool check_ok) {
  if (2 * (s->nresults + 1) > s->cap) {
    Result *old = s->results;
    size_t old_cap = s->cap;
    s->cap = old_cap ? 2 * old_cap : 256;
    s->results = calloc(s->cap, sizeof *s->results);
    for (size_t i = 0; i < old_cap; i++)
      if (old[i].text) *result_slot(s, old[i].text, old[i].hash) = old[i];
    free(old);
  }
  *result_slot(s, text, hash) = (Result){text, hash, values, check_ok};
  s->nresults++;
}

static void try_rule(Search *s, int from, RuleId rule, const char *path, long long param) {
  DpiaRewrite rw = {0};
  char spec[256];
  snprintf(spec, sizeof spec, "%s@%s", rule_info[rule].name, path);
  rw.apply = spec;
  const char *pname = rule_param_info[rule_info[rule].param].name;
  if (rule_info[rule].param != RPARAM_NONE) {
    rw.nparams = 1;
    rw.param_names = &pname;
    rw.param_values = &param;
  }
  DpiaOptions o;
  dpia_options_init(&o);
  o.action = DPIA_REWRITE;
  o.kernel = s->kernel;
  o.rewrite = &rw;
  char *text = NULL;
  const char *code;
  int status = run(s->programs[from], &o, &text, &code);
  if (status != DPIA_OK) {
    if (!code || (strcmp(code, "E1104") != 0 && strcmp(code, "E1105") != 0))
      FAIL("%s: %s gives status %d, code %s (neither applied nor refused by a side condition)", s->kernel, spec,
           status, code ? code : "none");
    free(text);
    return;
  }
  uint64_t hash = text_hash(text);
  const Result *seen = s->cap ? result_slot(s, text, hash) : NULL;
  if (seen && seen->text) {
    /* a repeat: the outcome of its first occurrence (see the top) */
    s->repeats++;
    if (seen->values == RESULT_SOUND)
      applied[rule]++;
    else if (seen->values == RESULT_NOT_COMPARED)
      printf("%s: %s not compared: no size of the list satisfies its preconditions\n", s->kernel, spec);
    else
      FAIL("%s: %s gives the program of an earlier application, which failed above", s->kernel, spec);
    if (!seen->check_ok) FAIL("%s: %s gives a program dpia check rejects (above)", s->kernel, spec);
    free(text);
    return;
  }
  ResultValues values;
  /* soundness: the same values as the original kernel */
  long long size = 0;
  Eval ev = evaluate(text, s->kernel, &size);
  long long ref_size = size;
  Eval ref = size == s->size || !size ? s->reference : evaluate(s->programs[0], s->kernel, &ref_size);
  if (!size) {
    /* not counted as applied: said, never passed silently */
    printf("%s: %s not compared: no size of the list satisfies its preconditions\n", s->kernel, spec);
    values = RESULT_NOT_COMPARED;
  } else if (!ev.ok || !ref.ok) {
    FAIL("%s: %s: the interpreter cannot run the result or the original", s->kernel, spec);
    values = RESULT_NOT_RUN;
  } else {
    Comparison cmp;
    compare_values(ev.out, ref.out, ev.n < ref.n ? ev.n : ref.n, COMPARE_BOUND_FLOAT, &cmp);
    if (ev.n != ref.n || !cmp.ok) {
      FAIL("%s: %s computes other values than the original (N=%lld, relative error %g):\n%s", s->kernel, spec, size,
           cmp.rel_error, text);
      values = RESULT_DIFFERS;
    } else {
      applied[rule]++;
      values = RESULT_SOUND;
    }
  }
  free(ev.out);
  if (ref.out != s->reference.out) free(ref.out);
  /* lowered results pass plain check */
  DpiaOptions c;
  dpia_options_init(&c);
  c.action = DPIA_CHECK;
  c.kernel = s->kernel;
  int st = run(text, &c, NULL, &code);
  bool check_ok = st == DPIA_OK || (code && strcmp(code, "E0601") == 0);
  if (!check_ok)
    FAIL("%s: %s was accepted, but dpia check rejects it with %s:\n%s", s->kernel, spec, code ? code : "no code",
         text);
  result_add(s, text, hash, values, check_ok);
  if (s->depth[from] + 1 < s->max_depth && s->n < MAX_PROGRAMS) {
    s->depth[s->n] = s->depth[from] + 1;
    s->programs[s->n++] = text; /* the table's: freed with it */
  }
}

static void search_kernel(const char *text, const char *kernel, int max_depth) {
  Search *s = calloc(1, sizeof *s);
  s->kernel = kernel;
  s->max_depth = max_depth;
  s->programs[0] = strdup(text);
  s->n = 1;
  s->reference = evaluate(text, kernel, &s->size);
  if (!s->reference.ok) FAIL("%s: the reference interpreter cannot run the original", kernel);
  for (int i = 0; i < s->n && s->reference.ok; i++) {
    static UnitEnv env;
    UNIT_ENV_INIT(&env, "test_rewrite");
    Program *p = parse_text(&env, kernel, s->programs[i]);
    const Decl *k = NULL;
    for (int d = 0; p && d < p->ndecls; d++)
      if (p->decls[d]->is_kernel && strcmp(p->decls[d]->name, kernel) == 0) k = p->decls[d];
    if (!k) {
      FAIL("%s: a rewritten program lost the kernel", kernel);
      arena_free(&env.arena);
      continue;
    }
    RewriteSite *sites;
    int nsites;
    rewrite_sites(&env.arena, p, k->body, &sites, &nsites);
    for (int j = 0; j < nsites; j++)
      for (int r = 0; r < sites[j].nrules; r++) {
        RuleId rule = sites[j].rules[r];
        /* a tile of 3 divides none of the sizes: the padded tail is computed and dropped */
        RuleParam kind = rule_info[rule].param;
        long long param = kind == RPARAM_DIM ? 0 : kind == RPARAM_TILE ? 3 : 4;
        try_rule(s, i, rule, sites[j].path, param);
      }
    arena_free(&env.arena);
  }
  printf("%s: %d programs derived, %zu distinct results, %zu repeats\n", kernel, s->n - 1, s->nresults, s->repeats);
  free(s->programs[0]); /* the others are results */
  for (size_t i = 0; i < s->cap; i++) free(s->results[i].text);
  free(s->results);
  free(s->reference.out);
  free(s);
}

/* the round trip of one file, and the search of its high-level kernels
 * (all of them when random, else those of samples/explore) */
static void test_file(const char *path, const char *text, bool random, int depth) {
  static UnitEnv env;
  UNIT_ENV_INIT(&env, "test_rewrite");
  round_trip(&env, path, text);
  /* a file outside samples/explore that says `-- REWRITE-SEARCH` is
   * searched as they are (tests/rewrite/mm_tile_hl.dpia: a rule that
   * applies only after another, deeper than its sample is searched) */
  if (random || strstr(path, "samples/explore/") || strstr(text, "\n-- REWRITE-SEARCH\n")) {
    /* a sample whose search to the full depth takes minutes (a kernel
     * with many positions: gesummv's three zipped arrays) says how deep
     * it is searched: `-- REWRITE-DEPTH: N` */
    static const char marker[] = "-- REWRITE-DEPTH: ";
    const char *mark = strstr(text, marker);
    const int upto = mark && atoi(mark + strlen(marker)) < depth ? atoi(mark + strlen(marker)) : depth;
    Program *p = parse_text(&env, path, text);
    for (int d = 0; p && d < p->ndecls; d++)
      if (p->decls[d]->is_kernel) {
        if (random) {
          /* before the failures of its search (on stderr) */
          printf("%s:\n", path);
          fflush(stdout);
        }
        search_kernel(text, p->decls[d]->name, upto);
      }
  }
  arena_free(&env.arena);
}

int main(int argc, char **argv) {
  int first = 1, depth = DEPTH;
  bool random = argc > 2 && strcmp(argv[1], "--random") == 0;
  if (random) {
    depth = atoi(argv[2]);
    first = 3;
  } else if (getenv("TEST_REWRITE_DEPTH")) {
    /* the sanitized run (tools/test.sh), where depth 3 takes many minutes */
    depth = atoi(getenv("TEST_REWRITE_DEPTH"));
  }
  for (int f = first; f < argc; f++) {
    char *text = slurp(argv[f]);
    if (text) test_file(argv[f], text, random, depth);
    else FAIL("cannot read %s", argv[f]);
    free(text);
  }
  for (int r = 0; r < RULE_COUNT; r++)
    if (!applied[r]) FAIL("rule %s was never applied soundly on %s", rule_info[r].name, random ? "these programs" : "the samples");
  for (int r = 0; r < RULE_COUNT; r++) printf("%s%s %d", r ? ", " : "applied soundly: ", rule_info[r].name, applied[r]);
  printf("\nrewrite: %d files, %d failures\n", argc - first, failures);
  return failures != 0;
}
