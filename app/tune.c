/* tune.c: tuning a kernel on the device at hand (docs/tune.md).
 *
 * pass_tune_values, after the parse of every check, translation and run:
 * the tune parameters the options leave unset get the values the tuning
 * cache keeps for this source, kernel and device (tune_cache.h), as if
 * given by --set; explicit values always win.  The others keep their
 * declared defaults (`(KS: tune [256, 512] = 512)`), which the checker
 * binds in each kernel (check_program_set).
 *
 * pass_tune, DPIA_TUNE (`dpia tune`): the points of -k's tune parameters
 * (every combination of their values; a range's powers of two), the
 * defaults first, the others in the seed's order, each run and timed as
 * `dpia run` does (search_run, shared with explore.c) until the budget is
 * spent; a point whose preconditions fail at the sizes is skipped, as the
 * constraints of --emit=space exclude it, and a point whose every launch
 * is left out (no work-item at the sizes, nothing to write) ran nothing
 * and is not timed: never 0 ms, never the best.  The fastest is run again with
 * the reference check and verification (the next, up to three, if it
 * differs) and stored in the cache. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "driver_int.h"
#include "tune_cache.h"

enum {
  MAX_TUNE = TUNE_CACHE_MAX_NAMES, /* tune parameters (and --set values) of one kernel */
  MAX_POINTS = 4096,               /* points enumerated; a larger space is sampled */
  CHECK_TRIES = 3,
  DEFAULT_REPEAT = 5,
};
#define DEFAULT_BUDGET_S 60.0

/* ---- the tune parameters of the kernels worked on ---- */

/* the tune parameters of the kernels in scope (tune_scope), one per name */
static int tune_params(const Ctx *c, const Param **out) {
  const char *scope = tune_scope(c);
  int n = 0;
  for (int i = 0; i < c->prog->ndecls; i++) {
    const Decl *d = c->prog->decls[i];
    if (!d->is_kernel || (scope && strcmp(scope, d->name) != 0)) continue;
    for (int j = 0; j < d->nparams && n < MAX_TUNE; j++) {
      const Param *pa = &d->params[j];
      bool seen = false;
      for (int k = 0; k < n; k++) seen |= strcmp(out[k]->name, pa->name) == 0;
      if (pa->tune && !seen) out[n++] = pa;
    }
  }
  return n;
}

static int find_name(const char *const *names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

/* the device's name and driver, as the cache keys them; false when no
 * device opens */
static bool device_identity(Ctx *c, TuneEntry *e) {
  Runtime rt;
  Buf err;
  buf_init(&err, c->arena);
  if (rt_open(&rt, c->target, c->arena, c->opt->platform, c->opt->device, &err) != RT_OK) return false;
  e->device = rt.info.device_name;
  e->driver = rt.info.driver_version ? rt.info.driver_version : "";
  e->platform = rt.info.platform_name;
  rt_close(&rt);
  return true;
}

/* ---- the preconditions of tune values at sizes ---- */

/* The first precondition of -k (a kernel, or a pipeline) that fails at the
 * sizes `at` with the tune parameters bound to these values; NULL when none
 * does, or when the program does not check with them (pass_check then says
 * why, as it would without the cache).
 *
 * A check, not a translation: the preconditions dpia run evaluates
 * (run.c, check_run_preconditions) are its ImpKernel's, which
 * codegen/kernel.c takes from the checked kernel or pipeline as they are,
 * adding only the "G % L == 0" of a launch size the caller gives
 * (kernel_with_launch: DpiaOptions.local_size and global_size, the
 * caller's own choice, which the run still reports).  The check with the
 * values bound (check_program_set, as pass_check specialises the kernel)
 * is exactly the kernel these values give, so its preconditions are the
 * run's: a few milliseconds, where translating for each entry (stages I
 * and II, code generation) would cost about what the run itself does.
 * The structured Precond is evaluated, never its text. */
static const Precond *broken_precondition(Ctx *c, int nsets, const char *const *names, const long long *values,
                                          const TuneSizes *at) {
  Diag quiet;
  diag_init(&quiet, c->arena);
  quiet.depth_scale = c->diag.depth_scale;
  TuneSettings set = {nsets, names, values, tune_scope(c), false};
  const CheckedProgram *p = check_program_set(c->arena, &c->in, &quiet, &c->tc, c->prog, &c->backend->names, &set);
  if (!p || quiet.nerrors) return NULL;
  int64_t *sizes = NEWARRAY(c->arena, int64_t, at->n ? at->n : 1);
  for (int i = 0; i < at->n; i++) sizes[i] = at->values[i];
  NatValues nats = {at->n, at->names, sizes};
  for (int i = 0; i < p->ndefs; i++) {
    const DefInfo *def = p->defs[i];
    if (!(def->is_kernel || def->is_pipeline) || strcmp(def->name, c->opt->kernel) != 0) continue;
    for (int j = 0; j < def->nprecond; j++) /* a size not given: decided (and reported) by the run */
      if (precond_eval(&def->preconds[j], nat_lookup, &nats) == PRECOND_FAILS) return &def->preconds[j];
  }
  return NULL;
}

static const char *sizes_text(Arena *a, const TuneSizes *s) {
  Buf b;
  buf_init(&b, a);
  for (int i = 0; i < s->n; i++) emit(&b, "%s%s=%lld", i ? " " : "", s->names[i], s->values[i]);
  return b.data;
}

/* where a note on a precondition points: the construct requiring it, or
 * the kernel (a launch size's) */
static Span precond_span(const Ctx *c, const Precond *pre) {
  if (pre->span.src) return pre->span;
  for (int i = 0; i < c->prog->ndecls; i++)
    if (strcmp(c->prog->decls[i]->name, c->opt->kernel) == 0) return c->prog->decls[i]->name_span;
  return (Span){0};
}

/* ---- the tuning cache's values ---- */

/* the cache's entries for -k on this device, the nearest to the sizes
 * first (tune_cache_candidates); false after an error */
static bool cached_entries(Ctx *c, const TuneEntry ***found, int *nfound) {
  const DpiaOptions *o = c->opt;
  *found = NULL;
  *nfound = 0;
  const char *path = tune_cache_path(c->arena, o->tune_cache);
  if (!path) return true;
  TuneEntry *entries;
  int n;
  Buf err;
  buf_init(&err, c->arena);
  if (!tune_cache_read(c->arena, path, &entries, &n, &err)) {
    diag_error(&c->diag, ERR_TUNE_CACHE_INVALID, (Span){0}, "%s (move it away, or set DPIA_TUNE_CACHE=off)", err.data);
    return false;
  }
  const char *hash = tune_source_hash(c->arena, c->src.text, c->src.len);
  bool any = false;
  for (int i = 0; i < n; i++) any |= strcmp(entries[i].source_hash, hash) == 0 && strcmp(entries[i].kernel, o->kernel) == 0;
  TuneEntry dev = {0};
  if (!any || !device_identity(c, &dev)) return true; /* no device: the defaults */
  /* the sizes of a run, or those a library caller gives a translation (a
   * benchmark translating gemm for each size it times): the nearest first */
  bool sized = o->nsizes > 0;
  *nfound = tune_cache_candidates(c->arena, entries, n, dev.device, dev.driver, hash, o->kernel, sized ? o->nsizes : 0,
                                  sized ? o->size_names : NULL, sized ? o->size_values : NULL, found);
  return true;
}

/* each of e's values still a value of its parameter (else the entry is
 * not used: the program's text is the same, so only an edit of the cache
 * by hand does this) */
static bool entry_in_domains(const TuneEntry *e, const Param *const *params, int np) {
  for (int i = 0; i < e->nvalues; i++) {
    int p = 0;
    while (p < np && strcmp(params[p]->name, e->names[i]) != 0) p++;
    if (p == np || !param_tune_allows(params[p], (uint64_t)e->values[i])) return false;
  }
  return true;
}

/* The entry the run takes among the candidates (nearest first): the first
 * in its parameters' domains whose values, with the caller's --set values
 * (which win), meet the preconditions at the run's sizes; NULL for the
 * defaults.  Each entry passed over for a precondition gets a note (E1110)
 * saying where it was tuned and what it breaks here.  Without sizes (a
 * translation) there is nothing to check: the first (the last written). */
static const TuneEntry *usable_entry(Ctx *c, const TuneEntry **cands, int ncands, const Param *const *params, int np) {
  const DpiaOptions *o = c->opt;
  TuneSizes run = {0};
  for (int i = 0; i < o->nsizes && i < TUNE_CACHE_MAX_NAMES; i++)
    run.names[run.n] = o->size_names[i], run.values[run.n++] = o->size_values[i];
  const char **names = NEWARRAY(c->arena, const char *, o->nsets + TUNE_CACHE_MAX_NAMES);
  long long *values = NEWARRAY(c->arena, long long, o->nsets + TUNE_CACHE_MAX_NAMES);
  int passed = 0;
  for (int k = 0; k < ncands; k++) {
    const TuneEntry *e = cands[k];
    if (!entry_in_domains(e, params, np)) continue;
    if (!run.n) return e;
    int n = 0;
    for (; n < o->nsets; n++) names[n] = o->set_names[n], values[n] = o->set_values[n];
    for (int i = 0; i < e->nvalues; i++)
      if (find_name(names, o->nsets, e->names[i]) < 0) names[n] = e->names[i], values[n++] = e->values[i];
    const Precond *pre = broken_precondition(c, n, names, values, &run);
    if (!pre) return e;
    TuneSizes tuned = {0};
    tuned.n = e->nsizes;
    memcpy(tuned.names, e->size_names, sizeof tuned.names);
    memcpy(tuned.values, e->size_values, sizeof tuned.values);
    Buf vals;
    buf_init(&vals, c->arena);
    for (int i = o->nsets; i < n; i++) emit(&vals, "%s%s=%lld", i > o->nsets ? " " : "", names[i], values[i]);
    if (!vals.len) buf_puts(&vals, "(none but the --set values)");
    diag_remark(&c->diag, ERR_TUNE_ENTRY_PASSED_OVER, precond_span(c, pre),
                "the tuning cache's values %s for '%s', tuned at %s, are not used: at %s they break the precondition "
                "%s%s",
                vals.data, o->kernel, sizes_text(c->arena, &tuned), sizes_text(c->arena, &run),
                precond_text(c->arena, pre), o->nsets ? " (with the --set values)" : "");
    passed++;
  }
  if (passed)
    diag_remark(&c->diag, ERR_TUNE_ENTRY_PASSED_OVER, (Span){0},
                "no entry of the tuning cache for '%s' meets its preconditions at %s: the declared defaults are used",
                o->kernel, sizes_text(c->arena, &run));
  return NULL;
}

bool pass_tune_values(Ctx *c) {
  const DpiaOptions *o = c->opt;
  c->nuser_sets = o->nsets;
  /* the space lists the parameters as declared */
  if (o->action == DPIA_TRANSLATE &&
      (o->emit == DPIA_EMIT_SPACE || (o->emit_also & DPIA_EMIT_BIT(DPIA_EMIT_SPACE))))
    return true;
  const Param *params[MAX_TUNE];
  int np = tune_params(c, params);
  const char **names = NEWARRAY(c->arena, const char *, o->nsets + np + 1);
  long long *values = NEWARRAY(c->arena, long long, o->nsets + np + 1);
  int n = 0;
  for (; n < o->nsets; n++) names[n] = o->set_names[n], values[n] = o->set_values[n];
  int unset = 0;
  for (int i = 0; i < np; i++) unset += find_name(names, n, params[i]->name) < 0;
  if (!unset) return true;
  const TuneEntry **cands = NULL;
  int ncands = 0;
  bool cached = o->kernel && (o->action == DPIA_CHECK || o->action == DPIA_TRANSLATE || o->action == DPIA_VERIFY ||
                              o->action == DPIA_RUN);
  if (cached && !cached_entries(c, &cands, &ncands)) {
    c->status = DPIA_EUSER;
    return false;
  }
  const TuneEntry *e = ncands ? usable_entry(c, cands, ncands, params, np) : NULL;
  if (e) {
    TuneEntry shown = *e;
    shown.nvalues = 0;
    for (int i = 0; i < e->nvalues; i++) {
      if (find_name(names, n, e->names[i]) >= 0) continue; /* given explicitly */
      names[n] = e->names[i];
      values[n++] = e->values[i];
      shown.names[shown.nvalues] = e->names[i];
      shown.values[shown.nvalues++] = e->values[i];
    }
    if (shown.nvalues) c->tuned = tune_entry_text(c->arena, &shown);
  }
  if (n == o->nsets) return true;
  DpiaOptions *copy = NEW(c->arena, DpiaOptions);
  *copy = *o;
  copy->nsets = n;
  copy->set_names = names;
  copy->set_values = values;
  c->opt = copy;
  return true;
}

/* ---- dpia tune ---- */

/* X(ID, "name of --json", what it means) */
#define POINT_STATES(X)                                                                         \
  X(PENDING, "pending", "not tried")                                                            \
  X(TIMED, "timed", "run and timed")                                                            \
  X(SKIPPED, "skipped", "a precondition fails at the sizes, or the kernel does not translate") \
  X(FAILED, "failed", "the run failed")                                                        \
  X(NOT_TIMED, "not_timed", "every launch left out at the sizes (no work-item, nothing to write)")

/* the reason of a point not timed (its JSON "reason"; no error has a code) */
#define NOT_TIMED_WHY "no launch"

typedef enum PointState {
#define X(id, name, doc) PT_##id,
  POINT_STATES(X)
#undef X
} PointState;

static const char *const point_state_names[] = {
#define X(id, name, doc) name,
    POINT_STATES(X)
#undef X
};

/* X(ID, its --json "check" (NULL: null), its mark in the table): the
 * reference check of a point, made of the fastest (up to CHECK_TRIES) */
#define POINT_CHECKS(X)                                \
  X(NOT_CHECKED, NULL, "")                             \
  X(DIFFERS, "differs", "  [checked: differs]")        \
  X(AGREES, "ok", "  [checked: ok]")

typedef enum PointCheck {
#define X(id, json, mark) PC_##id,
  POINT_CHECKS(X)
#undef X
} PointCheck;

static const char *const point_check_json[] = {
#define X(id, json, mark) json,
    POINT_CHECKS(X)
#undef X
};

static const char *const point_check_mark[] = {
#define X(id, json, mark) mark,
    POINT_CHECKS(X)
#undef X
};

typedef struct Point {
  long long *values; /* one per free parameter */
  PointState state;
  const char *why;
  const TuneSizes *at; /* skipped: the --valid-at sizes it breaks a precondition at; NULL: the sizes' */
  double min_ms, median_ms;
  PointCheck check;
} Point;

typedef struct Tuner {
  Ctx *c;
  const DpiaExplore *x;
  int nparams; /* the tune parameters in scope (tune_params), computed once */
  const Param *params[MAX_TUNE];
  int nfree;
  const Param *free[MAX_TUNE];
  int nuser; /* the user's --set values: the first of c->opt's sets */
  Point *points;
  int npoints, tried;
  int nvalid; /* --valid-at: the further sizes a point's preconditions must meet */
  TuneSizes *valid;
  struct timespec start;
  double budget;
} Tuner;

static double tuner_elapsed(const Tuner *t) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t->start.tv_sec) + (double)(now.tv_nsec - t->start.tv_nsec) * 1e-9;
}

/* a parameter's values: those listed, or the powers of two of a range
 * (its first value when it holds none) */
static int domain_values(const Param *pa, long long *out, int max) {
  int n = 0;
  if (!pa->tune_range) {
    for (int i = 0; i < pa->ntune_values && n < max; i++) out[n++] = (long long)pa->tune_values[i];
    return n;
  }
  for (uint64_t v = 1; v <= pa->tune_hi && n < max; v *= 2)
    if (v >= pa->tune_lo) out[n++] = (long long)v;
  if (!n) out[n++] = (long long)pa->tune_lo; /* [5 .. 7]: no power of two */
  return n;
}

/* every point (at most MAX_POINTS, in the order of the domains), then the
 * defaults' point first and the rest shuffled by the seed */
static void enumerate_points(Tuner *t) {
  enum { MAX_VALUES = 64 };
  long long dom[MAX_TUNE][MAX_VALUES];
  int nd[MAX_TUNE], idx[MAX_TUNE] = {0};
  long long total = 1;
  for (int p = 0; p < t->nfree; p++) {
    nd[p] = domain_values(t->free[p], dom[p], MAX_VALUES);
    total *= nd[p] ? nd[p] : 1;
    if (total > MAX_POINTS) total = MAX_POINTS;
  }
  t->points = NEWARRAY(t->c->arena, Point, total);
  for (t->npoints = 0; t->npoints < total; t->npoints++) {
    Point *pt = &t->points[t->npoints];
    pt->values = NEWARRAY(t->c->arena, long long, t->nfree ? t->nfree : 1);
    pt->check = PC_NOT_CHECKED;
    for (int p = 0; p < t->nfree; p++) pt->values[p] = dom[p][idx[p]];
    int p = t->nfree - 1; /* the next combination, odometer order */
    while (p >= 0 && ++idx[p] == nd[p]) idx[p--] = 0;
    if (p < 0) {
      t->npoints++;
      break;
    }
  }
  int *order = seed_order(t->c->arena, t->npoints, t->c->opt->seed);
  Point *shuffled = NEWARRAY(t->c->arena, Point, t->npoints ? t->npoints : 1);
  for (int i = 0; i < t->npoints; i++) shuffled[i] = t->points[order[i]];
  t->points = shuffled;
  for (int i = 0; i < t->npoints; i++) { /* the defaults' point: the baseline, first */
    bool is_default = true;
    for (int p = 0; p < t->nfree; p++)
      is_default &= t->free[p]->tune_has_default && (uint64_t)t->points[i].values[p] == t->free[p]->tune_default;
    if (is_default && t->nfree) {
      Point tmp = t->points[0];
      t->points[0] = t->points[i];
      t->points[i] = tmp;
    }
  }
}

static const char *point_text(const Tuner *t, const Point *pt) {
  Buf b;
  buf_init(&b, t->c->arena);
  for (int p = 0; p < t->nfree; p++) emit(&b, "%s%s=%lld", p ? " " : "", t->free[p]->name, pt->values[p]);
  return b.data;
}

/* a point as the report names it: its values, or when --set gives every
 * tune parameter (nothing to search, one point: the report's first line
 * says so) the values given, so that the report says what was timed */
static const char *point_label(const Tuner *t, const Point *pt) {
  if (t->nfree) return point_text(t, pt);
  Buf b;
  buf_init(&b, t->c->arena);
  for (int i = 0; i < t->nuser; i++)
    emit(&b, "%s%s=%lld", i ? " " : "", t->c->opt->set_names[i], t->c->opt->set_values[i]);
  return t->nuser ? b.data : "(no tune parameter)";
}

/* the values of a point: the user's --set values, then the point's */
static int point_sets(const Tuner *t, const Point *pt, const char ***names, long long **values) {
  int n = t->nuser + t->nfree;
  *names = NEWARRAY(t->c->arena, const char *, n ? n : 1);
  *values = NEWARRAY(t->c->arena, long long, n ? n : 1);
  for (int i = 0; i < t->nuser; i++) (*names)[i] = t->c->opt->set_names[i], (*values)[i] = t->c->opt->set_values[i];
  for (int p = 0; p < t->nfree; p++) (*names)[t->nuser + p] = t->free[p]->name, (*values)[t->nuser + p] = pt->values[p];
  return n;
}

/* run the point at the sizes */
static DpiaResult *run_point(const Tuner *t, const Point *pt, bool check, int repeat) {
  const char **names;
  long long *values;
  int n = point_sets(t, pt, &names, &values);
  return search_run(t->c, t->c->src.text, t->c->opt->kernel, n, names, values, check, repeat, NULL);
}

static void time_run(Tuner *t, Point *pt) {
  int repeat = t->c->opt->repeat > 0 ? t->c->opt->repeat : DEFAULT_REPEAT;
  DpiaResult *r = run_point(t, pt, false, repeat);
  int status = dpia_result_status(r);
  bool ran = dpia_result_run_time(r, &pt->min_ms, &pt->median_ms);
  if (status == DPIA_OK && ran && pt->min_ms > 0) {
    pt->state = PT_TIMED;
  } else if (status == DPIA_OK) {
    /* it computed what the sizes ask, but launched nothing (every NDRange
     * empty, docs/reference.md "Sizes that do not divide"), or measured
     * no time: nothing to rank */
    pt->state = PT_NOT_TIMED;
    pt->why = NOT_TIMED_WHY;
  } else {
    /* a value that breaks a precondition at these sizes (the space's
     * constraints) or that the kernel cannot be translated with */
    pt->state = status == DPIA_EPRECONDITION || status == DPIA_EUSER ? PT_SKIPPED : PT_FAILED;
    const DpiaDiagnostic *d = dpia_result_diagnostic_count(r) ? dpia_result_diagnostic(r, 0) : NULL;
    pt->why = d && d->code ? d->code : "error";
  }
  dpia_result_free(r);
}

static void time_point(Tuner *t, Point *pt) {
  /* --valid-at first: a check of the values at each of those sizes costs
   * milliseconds (broken_precondition), the run at the sizes far more */
  const char **names;
  long long *values;
  int n = point_sets(t, pt, &names, &values);
  for (int v = 0; v < t->nvalid && !pt->at; v++) {
    if (!broken_precondition(t->c, n, names, values, &t->valid[v])) continue;
    pt->state = PT_SKIPPED;
    pt->why = diag_code_name(ERR_VIOLATED_PRECONDITION);
    pt->at = &t->valid[v];
  }
  if (!pt->at) time_run(t, pt);
  t->tried++;
  if (t->x->progress) {
    const char *line = pt->state == PT_TIMED ? arena_printf(t->c->arena, "tune %s: %d of %d points, %.1f s; %s %.4f ms",
                                                     t->c->opt->kernel, t->tried, t->npoints, tuner_elapsed(t),
                                                     point_label(t, pt), pt->min_ms)
                                      : arena_printf(t->c->arena, "tune %s: %d of %d points, %.1f s; %s %s (%s%s%s)",
                                                     t->c->opt->kernel, t->tried, t->npoints, tuner_elapsed(t),
                                                     point_label(t, pt),
                                                     pt->state == PT_NOT_TIMED ? "not timed" : "skipped", pt->why,
                                                     pt->at ? " at " : "",
                                                     pt->at ? sizes_text(t->c->arena, pt->at) : "");
    t->x->progress(t->x->progress_user, line);
  }
}

static int by_time(const void *pa, const void *pb) {
  const Point *a = *(const Point *const *)pa, *b = *(const Point *const *)pb;
  if ((a->state == PT_TIMED) != (b->state == PT_TIMED)) return a->state == PT_TIMED ? -1 : 1;
  if (a->state != PT_TIMED) return 0;
  return (a->min_ms > b->min_ms) - (a->min_ms < b->min_ms);
}

/* {"N": 16777216} */
static void json_sizes(Buf *out, const TuneSizes *s) {
  buf_putc(out, '{');
  for (int i = 0; i < s->n; i++) {
    buf_puts(out, i ? ", " : "");
    emit_json_string(out, s->names[i]);
    emit(out, ": %lld", s->values[i]);
  }
  buf_putc(out, '}');
}

static void tune_report(Tuner *t, Point **ranked, const Point *best, const TuneEntry *stored, const char *path) {
  Buf *out = &t->c->out;
  const DpiaOptions *o = t->c->opt;
  int timed = 0;
  for (int i = 0; i < t->npoints; i++) timed += t->points[i].state == PT_TIMED;
  if (t->x->json) {
    buf_puts(out, "{\"kernel\": ");
    emit_json_string(out, o->kernel);
    buf_puts(out, ", \"sizes\": {");
    for (int i = 0; i < o->nsizes; i++) emit(out, "%s\"%s\": %lld", i ? ", " : "", o->size_names[i], o->size_values[i]);
    buf_puts(out, "}, \"valid_at\": [");
    for (int v = 0; v < t->nvalid; v++) {
      buf_puts(out, v ? ", " : "");
      json_sizes(out, &t->valid[v]);
    }
    emit(out, "], \"seed\": %llu, \"budget_s\": %g, \"space\": %d, \"tried\": %d, \"timed\": %d, \"elapsed_s\": %.3f",
         (unsigned long long)o->seed, t->budget, t->npoints, t->tried, timed, tuner_elapsed(t));
    buf_puts(out, ", \"device\": ");
    emit_json_string(out, stored ? stored->device : "");
    buf_puts(out, ", \"cache\": ");
    if (path && stored) emit_json_string(out, path);
    else buf_puts(out, "null");
    buf_puts(out, ", \"points\": [");
    for (int i = 0, k = 0; i < t->npoints; i++) {
      const Point *pt = ranked[i];
      if (pt->state == PT_PENDING) continue;
      buf_puts(out, k++ ? ",\n  " : "\n  ");
      buf_puts(out, "{\"values\": {");
      for (int p = 0; p < t->nfree; p++) emit(out, "%s\"%s\": %lld", p ? ", " : "", t->free[p]->name, pt->values[p]);
      emit(out, "}, \"status\": \"%s\"", point_state_names[pt->state]);
      if (pt->state == PT_TIMED) emit(out, ", \"min_ms\": %.6g, \"median_ms\": %.6g", pt->min_ms, pt->median_ms);
      else emit(out, ", \"reason\": \"%s\"", pt->why);
      if (pt->at) {
        buf_puts(out, ", \"at\": ");
        json_sizes(out, pt->at);
      }
      const char *check = point_check_json[pt->check];
      buf_puts(out, ", \"check\": ");
      if (check) emit_json_string(out, check);
      else buf_puts(out, "null");
      buf_putc(out, '}');
    }
    buf_puts(out, "],\n \"best\": ");
    if (best) {
      buf_putc(out, '{');
      for (int p = 0; p < t->nfree; p++) emit(out, "%s\"%s\": %lld", p ? ", " : "", t->free[p]->name, best->values[p]);
      buf_putc(out, '}');
    } else {
      buf_puts(out, "null");
    }
    buf_puts(out, "}\n");
    return;
  }
  emit(out, "tune %s:", o->kernel);
  for (int i = 0; i < o->nsizes; i++) emit(out, " %s=%lld", o->size_names[i], o->size_values[i]);
  for (int v = 0; v < t->nvalid; v++)
    emit(out, "%s %s", v ? " and" : ", valid at", sizes_text(t->c->arena, &t->valid[v]));
  emit(out, "; %d points, %d tried, %d timed in %.1f s (seed %llu)%s\n", t->npoints, t->tried, timed, tuner_elapsed(t),
       (unsigned long long)o->seed,
       t->nfree   ? ""
       : t->nuser ? "; nothing to search: --set gives every tune parameter"
                  : "; nothing to search: no tune parameter");
  for (int i = 0, k = 0; i < t->npoints; i++) {
    const Point *pt = ranked[i];
    if (pt->state != PT_TIMED) continue;
    emit(out, "  %2d. %10.4f ms  %s%s\n", ++k, pt->min_ms, point_label(t, pt),
         point_check_mark[pt->check]);
  }
  int untimed = 0;
  for (int i = 0; i < t->npoints; i++) {
    const Point *pt = ranked[i];
    if (pt->state != PT_NOT_TIMED) continue;
    emit(out, "  %3s %13s  %s\n", "--", "not timed", point_label(t, pt));
    untimed++;
  }
  if (untimed)
    emit(out, "  (%d not timed: every launch has no work-item at these sizes and nothing to write)\n", untimed);
  int elsewhere = 0; /* skipped at a --valid-at's sizes */
  for (int i = 0; i < t->npoints; i++) elsewhere += t->points[i].at != NULL;
  int skipped = t->tried - timed - untimed - elsewhere;
  if (skipped) emit(out, "  (%d skipped: a precondition fails at these sizes, or the run failed)\n", skipped);
  if (elsewhere) emit(out, "  (%d skipped: a precondition fails at the sizes of --valid-at)\n", elsewhere);
  if (best && stored)
    emit(out, "best: %s (%.4f ms), agrees with the reference interpreter; stored for %s (driver %s) in %s\n",
         point_label(t, best), best->min_ms, stored->device, stored->driver, path ? path : "(no cache: off)");
}

/* --valid-at (DpiaExplore.valid_at) into t: each a value for every size
 * of the kernel and no other, as --size (E1107) */
static bool valid_at_given(Tuner *t, const Decl *k, const DefInfo *def) {
  const DpiaExplore *x = t->x;
  Ctx *c = t->c;
  const char *tuned[MAX_TUNE];
  int ntuned = 0;
  for (int i = 0; i < t->nparams; i++) tuned[ntuned++] = t->params[i]->name;
  if (x->nvalid_at > TUNE_CACHE_MAX_VALID_AT) {
    diag_error(&c->diag, ERR_EXPLORE_BAD_REQUEST, k->name_span, "--valid-at: at most %d sizes, not %d",
               TUNE_CACHE_MAX_VALID_AT, x->nvalid_at);
    return false;
  }
  t->valid = NEWARRAY(c->arena, TuneSizes, x->nvalid_at ? x->nvalid_at : 1);
  for (int v = 0; v < x->nvalid_at; v++) {
    const DpiaSizes *s = &x->valid_at[v];
    TuneSizes *at = &t->valid[v];
    for (int i = 0; i < s->n; i++) {
      bool known = false;
      for (int j = 0; j < def->nsize_params; j++) known |= strcmp(s->names[i], def->size_params[j]) == 0;
      if (at->n == TUNE_CACHE_MAX_NAMES) break; /* a name given again and again */
      if (!known || s->values[i] < 1) {
        diag_error(&c->diag, ERR_EXPLORE_BAD_REQUEST, k->name_span,
                   known ? "--valid-at %s=%lld: a size is at least 1"
                         : "--valid-at %s=%lld: kernel '%s' has no size named %s",
                   s->names[i], s->values[i], k->name, s->names[i]);
        return false;
      }
      at->names[at->n] = arena_strndup(c->arena, s->names[i], strlen(s->names[i]));
      at->values[at->n++] = s->values[i];
    }
    for (int j = 0; j < def->nsize_params; j++) {
      bool given = find_name(tuned, ntuned, def->size_params[j]) >= 0; /* the search's to give */
      for (int i = 0; i < at->n; i++) given |= strcmp(at->names[i], def->size_params[j]) == 0;
      if (!given) {
        diag_error(&c->diag, ERR_EXPLORE_BAD_REQUEST, k->name_span,
                   "--valid-at %s: kernel '%s' needs a value for its size %s there too: add %s=VALUE",
                   sizes_text(c->arena, at), k->name, def->size_params[j], def->size_params[j]);
        return false;
      }
    }
  }
  t->nvalid = x->nvalid_at;
  return true;
}

int pass_tune(Ctx *c) {
  const DpiaOptions *o = c->opt;
  const Decl *k = NULL;
  const DefInfo *def = NULL;
  for (int i = 0; i < c->prog->ndecls; i++) {
    const Decl *d = c->prog->decls[i];
    if ((d->is_kernel || d->is_pipeline) && o->kernel && strcmp(d->name, o->kernel) == 0) {
      k = d;
      def = c->checked->defs[i];
    }
  }
  if (!o->explore || !k) {
    diag_error(&c->diag, o->explore ? ERR_NO_SUCH_KERNEL : ERR_BAD_REQUEST, (Span){0},
               o->explore ? "dpia tune works on one kernel or pipeline: name it with -k; %s"
                          : "a tuning needs its request%s",
               o->explore ? kernel_names(c) : "");
    return o->explore ? DPIA_EUSER : DPIA_EUSAGE;
  }
  Tuner t = {.c = c, .x = o->explore};
  t.nparams = tune_params(c, t.params);
  if (!search_sizes_given(c, k, def, "tuned", ERR_EXPLORE_BAD_REQUEST, t.params, t.nparams)) return DPIA_EUSER;
  if (!valid_at_given(&t, k, def)) return DPIA_EUSER;
  clock_gettime(CLOCK_MONOTONIC, &t.start);
  t.budget = o->explore->budget_s > 0 ? o->explore->budget_s : DEFAULT_BUDGET_S;
  c->arena->limit = 0; /* each run has its own limit */
  /* the parameters to search: those the user did not --set (c->opt holds
   * the user's values; in DPIA_TUNE the cache gives none) */
  o = c->opt;
  t.nuser = c->nuser_sets;
  for (int i = 0; i < t.nparams; i++)
    if (find_name(o->set_names, t.nuser, t.params[i]->name) < 0) t.free[t.nfree++] = t.params[i];
  enumerate_points(&t);
  for (int i = 0; i < t.npoints && (i == 0 || tuner_elapsed(&t) <= t.budget); i++) time_point(&t, &t.points[i]);
  Point **ranked = NEWARRAY(c->arena, Point *, t.npoints ? t.npoints : 1);
  for (int i = 0; i < t.npoints; i++) ranked[i] = &t.points[i];
  qsort(ranked, (size_t)t.npoints, sizeof *ranked, by_time);
  Point *best = NULL;
  for (int i = 0, tries = 0; i < t.npoints && ranked[i]->state == PT_TIMED && tries < CHECK_TRIES && !best; i++, tries++) {
    DpiaResult *r = run_point(&t, ranked[i], true, 1);
    ranked[i]->check = dpia_result_status(r) == DPIA_OK ? PC_AGREES : PC_DIFFERS;
    dpia_result_free(r);
    if (ranked[i]->check == PC_AGREES) best = ranked[i];
  }
  TuneEntry e = {0};
  const char *path = tune_cache_path(c->arena, o->tune_cache);
  bool stored = false;
  if (best && device_identity(c, &e)) {
    e.source_hash = tune_source_hash(c->arena, c->src.text, c->src.len);
    e.file = c->src.name;
    e.kernel = o->kernel;
    for (int i = 0; i < o->nsizes && i < TUNE_CACHE_MAX_NAMES; i++)
      e.size_names[e.nsizes] = o->size_names[i], e.size_values[e.nsizes++] = o->size_values[i];
    e.nvalid_at = t.nvalid; /* checked for each point before it ran */
    e.valid_at = t.valid;
    /* the whole point: the user's --set values too, which a later run
     * would otherwise take from the defaults */
    for (int i = 0; i < t.nuser; i++) e.names[e.nvalues] = o->set_names[i], e.values[e.nvalues++] = o->set_values[i];
    for (int p = 0; p < t.nfree; p++) e.names[e.nvalues] = t.free[p]->name, e.values[e.nvalues++] = best->values[p];
    e.min_ms = best->min_ms;
    e.tried = t.tried;
    Buf err;
    buf_init(&err, c->arena);
    if (path && !tune_cache_store(c->arena, path, &e, &err)) {
      diag_error(&c->diag, ERR_TUNE_CACHE_INVALID, (Span){0}, "%s", err.data);
      tune_report(&t, ranked, best, NULL, path);
      return DPIA_EUSER;
    }
    stored = true;
  }
  tune_report(&t, ranked, best, stored ? &e : NULL, path);
  if (!best) {
    int untimed = 0;
    for (int i = 0; i < t.npoints; i++) untimed += t.points[i].state == PT_NOT_TIMED;
    diag_error(&c->diag, ERR_TUNE_NOTHING_FOUND, k->name_span,
               "no point of the tune parameters of '%s' runs and agrees with the reference interpreter within %g s "
               "(%d of %d points tried%s)",
               k->name, t.budget, t.tried, t.npoints,
               untimed ? arena_printf(c->arena, "; %d not timed: every launch has no work-item at these sizes", untimed)
                       : "");
    return DPIA_EUSER;
  }
  return DPIA_OK;
}
