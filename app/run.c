/* run.c: the pass of dpia run (driver.c's pass list ends with it): the
 * sizes given and their preconditions, the inputs, the launch on the
 * target's device (a kernel, or a pipeline's kernels in order), the
 * comparison with the reference interpreter and the report, as text or
 * JSON. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver_int.h"
#include "space.h"

/* every precondition of k that mentions name holds at these values */
static bool all_hold(const ImpKernel *k, const NatValues *nats, const char *name) {
  for (int i = 0; i < k->nprecond; i++) {
    const Precond *p = &k->preconds[i];
    if (precond_mentions(p, name) && precond_eval(p, nat_lookup, (void *)nats) != PRECOND_HOLDS) return false;
  }
  return true;
}

enum { NEAREST_STEPS = 1 << 20 }; /* values tried each way */

/* The values of nat j nearest to its own (below and above, the others
 * fixed) at which every precondition on it holds; -1 where none is near. */
static void nearest_valid(Arena *a, const ImpKernel *k, const NatValues *nats, int j, int64_t *below, int64_t *above) {
  int64_t *values = NEWARRAY(a, int64_t, nats->n);
  for (int i = 0; i < nats->n; i++) values[i] = nats->values[i];
  NatValues try = {nats->n, nats->names, values};
  int64_t v = nats->values[j];
  *below = *above = -1;
  for (int64_t step = 1; step <= NEAREST_STEPS && v - step >= 1; step++) {
    values[j] = v - step;
    if (all_hold(k, &try, nats->names[j])) {
      *below = v - step;
      break;
    }
  }
  for (int64_t step = 1; step <= NEAREST_STEPS && v <= INT32_MAX - step; step++) {
    values[j] = v + step;
    if (all_hold(k, &try, nats->names[j])) {
      *above = v + step;
      break;
    }
  }
}

/* dpia run: the preconditions at the sizes given.  Each failing one is an
 * error at the construct that requires it (a split, ...; the kernel's name
 * for a launch size's), with the values and the nearest valid sizes:
 *   N = 1000 does not satisfy N % 64 == 0; nearest valid: 960 or 1024 */
static bool check_run_preconditions(Ctx *c, const DefInfo *def, const ImpKernel *k, const NatValues *nats) {
  bool ok = true;
  for (int i = 0; i < k->nprecond; i++) {
    const Precond *p = &k->preconds[i];
    const char *pre = precond_text(c->arena, p);
    bool launch = !p->span.src; /* the launch size's "G % L == 0" */
    Span at = launch ? def->decl->name_span : p->span;
    PrecondVerdict v = precond_eval(p, nat_lookup, (void *)nats);
    if (v == PRECOND_HOLDS) continue;
    ok = false;
    if (v != PRECOND_FAILS) {
      diag_error(&c->diag, ERR_VIOLATED_PRECONDITION, at, "cannot evaluate the precondition %s: %s", pre,
                 precond_verdict_reason(v));
      continue;
    }
    Buf m;
    buf_init(&m, c->arena);
    int nvars = 0;
    for (int j = 0; j < nats->n; j++) {
      if (!precond_mentions(p, nats->names[j])) continue;
      emit(&m, "%s%s = %lld", nvars++ ? ", " : "", nats->names[j], (long long)nats->values[j]);
    }
    if (nvars)
      emit(&m, " %s %s", nvars > 1 ? "do not satisfy" : "does not satisfy", pre);
    else /* between constants: --global-size=96 --local-size=64 */
      emit(&m, "%s does not hold", pre);
    if (launch) emit(&m, " (required by the launch size)");
    bool first = true;
    for (int j = 0; j < nats->n; j++) {
      if (!precond_mentions(p, nats->names[j])) continue;
      int64_t lo, hi;
      nearest_valid(c->arena, k, nats, j, &lo, &hi);
      if (lo < 0 && hi < 0) continue;
      emit(&m, "%s", first ? "; nearest valid: " : "; or ");
      first = false;
      const char *name = nvars > 1 ? arena_printf(c->arena, "%s = ", nats->names[j]) : "";
      if (lo >= 0) emit(&m, "%s%lld", name, (long long)lo);
      if (lo >= 0 && hi >= 0) buf_puts(&m, " or ");
      if (hi >= 0) emit(&m, "%s%lld", name, (long long)hi);
    }
    diag_error(&c->diag, ERR_VIOLATED_PRECONDITION, at, "%s", m.data);
  }
  return ok;
}

/* dpia run (spec section 9, section 11): run one kernel on an OpenCL device
 * with random inputs, time it, and with --check compare its output with
 * the reference interpreter of the functional program. */
/* --json (DpiaOptions.run_json): a number, or null where JSON has none
 * (an infinite relative error: a NaN in the output) */
static void json_number(Buf *out, double v) {
  if (isfinite(v))
    emit(out, "%.9g", v);
  else
    buf_puts(out, "null");
}

/* --json: ", "sizes": {"N": 1024}" */
static void run_json_sizes(Buf *out, const DpiaOptions *o) {
  buf_puts(out, ", \"sizes\": {");
  for (int i = 0; i < o->nsizes; i++) {
    buf_puts(out, i ? ", " : "");
    emit_json_string(out, o->size_names[i]);
    emit(out, ": %lld", (long long)o->size_values[i]);
  }
  buf_putc(out, '}');
}

/* --json: a run that the sizes' preconditions stop (exit 1) is reported
 * too, on stdout as every report, so that a script reading it learns why
 * there is no time: the kernel, the sizes, "status": "precondition_failed"
 * and the errors as --diagnostics=json gives them (each failing
 * precondition at the construct requiring it, the nearest valid sizes) */
static int run_json_refused(Ctx *c, const char *what, const char *name) {
  if (!c->opt->run_json) return DPIA_EPRECONDITION;
  emit(&c->out, "{\"%s\": ", what);
  emit_json_string(&c->out, name);
  run_json_sizes(&c->out, c->opt);
  buf_puts(&c->out, ", \"status\": \"precondition_failed\", \"diagnostics\": ");
  Buf errors;
  buf_init(&errors, c->arena);
  diag_render_json(&c->diag, &errors);
  while (errors.len && errors.data[errors.len - 1] == '\n') errors.len--; /* one line, as every report */
  buf_put(&c->out, errors.data, errors.len);
  buf_puts(&c->out, "}\n");
  return DPIA_EPRECONDITION;
}

/* --json: the report up to the check, an object left open */
static void run_json_head(Buf *out, const DpiaOptions *o, const char *what, const char *kernel, const Runtime *rt,
                          const RtResult *res, double gbps, const char *tuned, const Buf *race) {
  emit(out, "{\"%s\": ", what); /* "kernel", or "pipeline" (its NDRange: the last launch's) */
  emit_json_string(out, kernel);
  buf_puts(out, ", \"device\": ");
  emit_json_string(out, rt->info.device_name);
  buf_puts(out, ", \"platform\": ");
  emit_json_string(out, rt->info.platform_name);
  run_json_sizes(out, o);
  if (tuned) { /* only when the tuning cache gave values: reports stay as they were otherwise */
    buf_puts(out, ", \"tuned\": ");
    emit_json_string(out, tuned);
  }
  buf_puts(out, ", \"global_size\": [");
  for (int d = 0; d < res->ndims; d++) emit(out, "%s%zu", d ? ", " : "", res->global_size[d]);
  buf_puts(out, "], \"local_size\": ");
  if (res->has_local) {
    buf_putc(out, '[');
    for (int d = 0; d < res->ndims; d++) emit(out, "%s%zu", d ? ", " : "", res->local_size[d]);
    buf_putc(out, ']');
  } else {
    buf_puts(out, "null");
  }
  /* nothing launched (an empty NDRange, every output empty): no time was
   * measured, so the times and the bandwidth are null, not 0 ms */
  emit(out, ", \"runs\": %d", res->repeat);
  const char *names[] = {"min_ms", "median_ms", "gb_per_s"};
  double values[] = {res->min_ms, res->median_ms, gbps};
  for (int i = 0; i < 3; i++) {
    emit(out, ", \"%s\": ", names[i]);
    if (res->repeat > 0) json_number(out, values[i]);
    else buf_puts(out, "null");
  }
  buf_puts(out, ", \"race_check\": ");
  buf_put(out, race->data, race->len);
}

/* the tune parameter named name of def (a kernel), or of a kernel of the
 * program (a pipeline's, which its launches pass on); NULL: a size */
static const Param *tune_param_named(const Ctx *c, const DefInfo *def, const char *name) {
  for (int i = 0; i < def->decl->nparams; i++)
    if (def->decl->params[i].tune && strcmp(def->decl->params[i].name, name) == 0) return &def->decl->params[i];
  for (int d = 0; def->is_pipeline && d < c->prog->ndecls; d++) {
    const Decl *k = c->prog->decls[d];
    for (int i = 0; k->is_kernel && i < k->nparams; i++)
      if (k->params[i].tune && strcmp(k->params[i].name, name) == 0) return &k->params[i];
  }
  return NULL;
}

/* dpia run: the --size values, one for each nat parameter of def (a
 * kernel or a pipeline) and no other; false after a usage error.  A tune
 * parameter with no default that neither --set nor the tuning cache gave
 * a value is one of them (left symbolic, it takes a --size), but its
 * value is --set's to give, as docs/tune.md says: the message says so. */
static bool run_sizes(Ctx *c, const DefInfo *def, NatValues *nats) {
  const DpiaOptions *o = c->opt;
  const char *what = def->is_pipeline ? "pipeline" : "kernel";
  int64_t *values = NEWARRAY(c->arena, int64_t, o->nsizes + 1);
  for (int i = 0; i < o->nsizes; i++) values[i] = o->size_values[i];
  *nats = (NatValues){o->nsizes, o->size_names, values};
  for (int i = 0; i < def->nsize_params; i++) {
    bool given = false;
    for (int j = 0; j < o->nsizes; j++) given |= strcmp(o->size_names[j], def->size_params[i]) == 0;
    const Param *tune = given ? NULL : tune_param_named(c, def, def->size_params[i]);
    if (tune) {
      Buf dom;
      buf_init(&dom, c->arena);
      print_domain(&dom, tune);
      diag_error(&c->diag, ERR_SIZE_MISSING, tune->span,
                 "%s '%s' needs a value for its tune parameter %s, which has no default and no entry in the tuning "
                 "cache: add --set %s=VALUE, a value of %s, or find one with 'dpia tune'",
                 what, def->name, tune->name, tune->name, dom.data);
      return false;
    }
    if (!given) {
      diag_error(&c->diag, ERR_SIZE_MISSING, (Span){0}, "%s '%s' needs a value for its size %s: add --size %s=VALUE",
                 what, def->name, def->size_params[i], def->size_params[i]);
      return false;
    }
  }
  for (int j = 0; j < o->nsizes; j++) {
    bool known = false;
    for (int i = 0; i < def->nsize_params; i++) known |= strcmp(o->size_names[j], def->size_params[i]) == 0;
    if (!known) {
      diag_error(&c->diag, ERR_SIZE_UNKNOWN, (Span){0}, "%s '%s' has no size named %s", what, def->name,
                 o->size_names[j]);
      return false;
    }
  }
  return true;
}

/* dpia run --check: the result of the kernel or pipeline def (normalized
 * body) on these inputs against the reference interpreter (spec section 11) */
static int run_compare(Ctx *c, const DefInfo *def, const Phrase *body, const NatValues *nats, double **inputs,
                       size_t *counts, const RtResult *res) {
  const DpiaOptions *o = c->opt;
  Arena *a = c->arena;
  const char *what = def->is_pipeline ? "pipeline" : "kernel";
  Buf err;
  buf_init(&err, a);
  double *ref;
  size_t nref;
  Span overflow = {0};
  const char *foreign_failure = NULL;
  /* an input declared a permutation is one (docs/language.md section 29):
   * the scatter's writes are disjoint only then */
  for (int i = 0; i < def->nparams; i++) {
    Buf why;
    buf_init(&why, a);
    if (def->params[i]->permutation && !permutation_check(a, def->params[i]->name, inputs[i], (int64_t)counts[i], &why)) {
      diag_error(&c->diag, ERR_NOT_A_PERMUTATION, def->decl->name_span, "%s", why.data);
      return DPIA_EUSER;
    }
  }
  if (!interp_run_overflow(a, def, body, nats, (const double *const *)inputs, counts, &ref, &nref, &overflow,
                           &foreign_failure, &err)) {
    if (foreign_failure) { /* the program's C, not a fault of the interpreter */
      diag_error(&c->diag, ERR_FOREIGN_BODY, def->decl->name_span, "the reference interpreter %s", foreign_failure);
      return DPIA_EUSER;
    }
    diag_error(&c->diag, ERR_INTERNAL, def->decl->name_span, "reference interpreter: %s", err.data);
    return DPIA_EINTERNAL;
  }
  const Lay *rl = interp_result_layout(a, def, nats, &err);
  if (!rl || nref != res->output_count) {
    diag_error(&c->diag, ERR_RESULT_DIFFERS, def->decl->name_span, "the %s produced %zu values, the reference %zu",
               what, res->output_count, nref);
    return DPIA_EVERIFY;
  }
  Comparison cmp;
  compare_values(res->output, ref, nref, interp_bound(body, rl), &cmp);
  Buf rep;
  buf_init(&rep, a);
  compare_report(&cmp, &rep);
  if (o->run_json) {
    emit(&c->out, ", \"check\": {\"seed\": %llu, \"ok\": %s, \"relative_error\": ", (unsigned long long)o->seed,
         cmp.ok ? "true" : "false");
    json_number(&c->out, cmp.rel_error);
    buf_puts(&c->out, ", \"bound\": ");
    json_number(&c->out, cmp.bound);
    buf_puts(&c->out, ", \"report\": ");
    emit_json_string(&c->out, rep.data);
    buf_puts(&c->out, "}}\n");
  } else {
    emit(&c->out, "  check (seed %llu): %s\n", (unsigned long long)o->seed, rep.data);
  }
  /* E0006: the reason is kept as data too (Ctx.not_checkable), for the
   * searches that say it again of every strategy (app/explore.c) */
  if (cmp.vacuous) {
    c->not_checkable = rep.data;
    diag_error(&c->diag, ERR_NOT_CHECKABLE, def->decl->name_span, "%s '%s' cannot be checked: %s", what, def->name,
               c->not_checkable);
    return DPIA_EVERIFY;
  }
  if (!cmp.ok && overflow.src) {
    c->not_checkable = arena_printf(a,
                                    "%s; on these inputs this int operation leaves the 32-bit range, which OpenCL C "
                                    "leaves undefined (the reference computes the exact value)",
                                    rep.data);
    diag_error(&c->diag, ERR_NOT_CHECKABLE, overflow, "%s '%s' cannot be checked: %s", what, def->name,
               c->not_checkable);
    return DPIA_EVERIFY;
  }
  if (!cmp.ok) {
    diag_error(&c->diag, ERR_RESULT_DIFFERS, def->decl->name_span, "%s '%s' differs from the reference interpreter: %s",
               what, def->name, rep.data);
    return DPIA_EVERIFY;
  }
  return DPIA_OK;
}

static int pass_run_pipeline(Ctx *c);

/* the values v[0 ..) of one value of layout l, as the device holds them:
 * a float lane rounded to float, an int lane a whole number of 32 bits
 * (an idx[n] one in 0 .. n-1), a bool lane 0 or 1; *at counts the
 * numbers read, for the message (why) of the first that is not */
static bool fit_values(const Lay *l, double *v, int64_t *at, Buf *why) {
  switch (l->kind) {
  case LAY_NUM:
    for (int j = 0; j < l->width; j++, (*at)++) {
      double x = v[j];
      DPIA_EXHAUSTIVE_BEGIN
      switch (l->scalar) {
      case SC_FLOAT: v[j] = (float)x; break;
      case SC_DOUBLE: break;
      case SC_INT:
        if (x != floor(x) || x < (l->bound ? 0 : INT32_MIN) || x > (l->bound ? (double)(l->bound - 1) : INT32_MAX)) {
          if (l->bound) emit(why, "number %" PRId64 " (%g) is not an index of %" PRId64 " elements", *at + 1, x, l->bound);
          else emit(why, "number %" PRId64 " (%g) is not an int", *at + 1, x);
          return false;
        }
        break;
      case SC_BOOL:
        if (x != 0 && x != 1) {
          emit(why, "number %" PRId64 " (%g) is not a bool (0 or 1)", *at + 1, x);
          return false;
        }
        break;
      }
      DPIA_EXHAUSTIVE_END
    }
    return true;
  case LAY_ARRAY:
    for (int64_t i = 0; i < l->n; i++)
      if (!fit_values(l->elem, v + i * l->elem->flat, at, why)) return false;
    return true;
  case LAY_PAIR: return fit_values(l->fst, v, at, why) && fit_values(l->snd, v + l->fst->flat, at, why);
  }
  return false;
}

/* --input NAME=FILE (o->input_names, input_texts): in[i] of the data
 * parameter NAME read from the text in place of its random values */
static bool given_inputs(Ctx *c, const DefInfo *def, const NatValues *nats, double **in, const size_t *counts) {
  const DpiaOptions *o = c->opt;
  for (int k = 0; k < o->ninputs_given; k++) {
    const char *name = o->input_names[k];
    int p = 0;
    while (p < def->nparams && strcmp(def->params[p]->name, name) != 0) p++;
    bool twice = false;
    for (int j = 0; j < k; j++) twice = twice || strcmp(o->input_names[j], name) == 0;
    if (p == def->nparams || twice) {
      diag_error(&c->diag, ERR_UNKNOWN_INPUT, def->decl->name_span, "--input %s: %s", name,
                 twice ? "given twice" : "the kernel has no data parameter of that name");
      return false;
    }
    Buf why;
    buf_init(&why, c->arena);
    const Lay *l = interp_param_layout(c->arena, def, p, nats, &why);
    if (!l) {
      diag_error(&c->diag, ERR_SIZES_TOO_LARGE, def->decl->name_span, "%s", why.data);
      return false;
    }
    size_t n = 0;
    const char *t = o->input_texts[k];
    for (;;) {
      while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r' || *t == ',') t++;
      if (!*t) break;
      char *end;
      double x = strtod(t, &end);
      if (end == t || !isfinite(x)) {
        diag_error(&c->diag, ERR_BAD_INPUT_VALUES, def->decl->name_span, "--input %s: number %zu is not a finite number",
                   name, n + 1);
        return false;
      }
      if (n < counts[p]) in[p][n] = x;
      n++;
      t = end;
    }
    int64_t at = 0;
    if (n != counts[p] || !fit_values(l, in[p], &at, &why)) {
      if (n != counts[p]) emit(&why, "%zu numbers, where it has %zu", n, counts[p]);
      diag_error(&c->diag, ERR_BAD_INPUT_VALUES, def->decl->name_span, "--input %s: %s", name, why.data);
      return false;
    }
  }
  return true;
}

/* a key of what a run's random inputs are made from (SharedInputs.key):
 * each data parameter's layout at the sizes, whether it is a
 * permutation, the seed and the kind of values */
static void lay_key(Buf *b, const Lay *l) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (l->kind) {
  case LAY_NUM: emit(b, "n%dx%d/%lld", (int)l->scalar, l->width, (long long)l->bound); return;
  case LAY_ARRAY:
    emit(b, "[%lld]", (long long)l->n);
    lay_key(b, l->elem);
    return;
  case LAY_PAIR:
    buf_putc(b, '(');
    lay_key(b, l->fst);
    buf_putc(b, ',');
    lay_key(b, l->snd);
    buf_putc(b, ')');
    return;
  }
  DPIA_EXHAUSTIVE_END
}

static const char *inputs_key(Ctx *c, const DefInfo *def, const NatValues *nats) {
  Buf key, why;
  buf_init(&key, c->arena);
  buf_init(&why, c->arena);
  emit(&key, "seed %llu, inputs %d:", (unsigned long long)c->opt->seed, c->opt->inputs);
  for (int i = 0; i < def->nparams; i++) {
    const Lay *l = interp_param_layout(c->arena, def, i, nats, &why);
    if (!l) return NULL; /* run_inputs reports it */
    buf_puts(&key, def->params[i]->permutation ? " perm " : " ");
    lay_key(&key, l);
  }
  return key.data;
}

static bool run_inputs_made(Ctx *c, Arena *into, const DefInfo *def, const NatValues *nats, double ***inputs,
                            size_t **counts);

/* the packed copies of the search's shared inputs, when this run's
 * inputs are those (run_inputs), else NULL: every run packs its own */
static RtPackCache *run_packs(Ctx *c, double **inputs) {
  SharedInputs *share = c->hooks ? c->hooks->inputs : NULL;
  return share && share->key && inputs == share->inputs ? &share->packs : NULL;
}

/* dpia run: fresh random inputs for def's data parameters (--seed,
 * --inputs), but those given by --input; a search's run (RunHooks.inputs)
 * reads those its first run made, when they were made for the same
 * parameters (inputs_key) */
static bool run_inputs(Ctx *c, const DefInfo *def, const NatValues *nats, double ***inputs, size_t **counts) {
  SharedInputs *share = c->hooks && c->opt->ninputs_given == 0 ? c->hooks->inputs : NULL;
  const char *key = share ? inputs_key(c, def, nats) : NULL;
  if (!key) return run_inputs_made(c, c->arena, def, nats, inputs, counts);
  if (!share->key || strcmp(share->key, key) != 0) {
    share->key = NULL; /* those of another key are left in the arena, as if made by a run of their own */
    share->mem.on_oom = c->arena->mem->on_oom;
    if (!run_inputs_made(c, &share->arena, def, nats, &share->inputs, &share->counts)) return false;
    share->key = arena_strndup(&share->arena, key, strlen(key));
    share->packs = (RtPackCache){.arena = &share->arena}; /* those of other values are left */
  }
  *inputs = share->inputs;
  *counts = share->counts;
  return true;
}

/* run_inputs' values, made in the arena into */
static bool run_inputs_made(Ctx *c, Arena *into, const DefInfo *def, const NatValues *nats, double ***inputs,
                            size_t **counts) {
  const DpiaOptions *o = c->opt;
  Rng rng;
  rng_seed(&rng, o->seed);
  rng.inputs = o->inputs == DPIA_INPUTS_POSITIVE ? RNG_POSITIVE : o->inputs == DPIA_INPUTS_UNIT ? RNG_UNIT : RNG_SIGNED;
  Buf err;
  buf_init(&err, c->arena);
  if (interp_random_inputs(into, def, nats, &rng, inputs, counts, &err))
    return given_inputs(c, def, nats, *inputs, *counts);
  diag_error(&c->diag, ERR_SIZES_TOO_LARGE, def->decl->name_span, "%s", err.data);
  return false;
}

/* the report's sizes, and the tune parameters' values the tuning cache
 * gave (docs/tune.md), the same for a kernel and a pipeline */
static void run_sizes_line(Ctx *c) {
  const DpiaOptions *o = c->opt;
  buf_puts(&c->out, "  sizes:");
  for (int i = 0; i < o->nsizes; i++) emit(&c->out, " %s=%lld", o->size_names[i], (long long)o->size_values[i]);
  if (c->tuned) emit(&c->out, "\n  tuned: %s", c->tuned);
}

/* the report's time line, the same for a kernel and a pipeline (first
 * enqueue to last completion) */
static void run_time_line(Ctx *c, const RtResult *res, double gbps) {
  if (res->repeat == 0) {
    buf_puts(&c->out, "\n  nothing to compute: the NDRange has no work-item and every output is empty\n");
    return;
  }
  emit(&c->out, "\n  time: min %.3f ms, median %.3f ms over %d run%s; %.2f GB/s\n", res->min_ms, res->median_ms,
       res->repeat, res->repeat == 1 ? "" : "s", gbps);
}

/* after rt_run or rt_run_pipeline: on a failure its exit status (the
 * runtime closed); else DPIA_OK, the times recorded for the result.
 * empty_at locates a refused launch with no work-item: the kernel, or the
 * pipeline's launch res->empty_launch */
static int run_finished(Ctx *c, Runtime *rt, RtStatus st, const RtResult *res, const Buf *err, Span empty_at) {
  if (st == RT_EMPTY_RANGE) {
    /* a fault of the sizes, not of the runtime: nothing was launched
     * (docs/errors.md E0413; docs/reference.md, "Sizes that do not
     * divide") */
    rt_close(rt);
    diag_error(&c->diag, ERR_EMPTY_NDRANGE, empty_at, "%s", err->data);
    return DPIA_EUSAGE;
  }
  if (st == RT_DEVICE_LIMIT) {
    /* the device cannot run the kernel at all: exit 4, as for a device
     * whose memory is too small for the buffers (E0809) */
    rt_close(rt);
    diag_error(&c->diag, ERR_DEVICE_LIMIT, (Span){0}, "%s device %s: %s", c->target->title, rt->info.device_name,
               err->data);
    return DPIA_EOPENCL;
  }
  if (st != RT_OK) {
    rt_close(rt);
    diag_error(&c->diag, ERR_OPENCL_RUNTIME, (Span){0}, "%s: %s", c->target->title, err->data);
    return st == RT_BAD_ARGS ? DPIA_EUSAGE : DPIA_EOPENCL;
  }
  /* a kernel or pipeline whose every launch was left out (no work-item,
   * nothing to write) ran nothing: no times (dpia_result_run_time 0),
   * which dpia tune and dpia explore must not rank as 0 ms */
  c->ran = res->repeat > 0;
  c->launches = res->repeat;
  c->min_ms = res->min_ms;
  c->median_ms = res->median_ms;
  return DPIA_OK;
}

/* the bandwidth of a run of min_ms: the bytes of every input and output
 * buffer of k (a kernel, or a pipeline's interface) once */
static double run_gbps(Arena *a, const ImpKernel *k, const NatValues *nats, double min_ms) {
  Buf err;
  buf_init(&err, a);
  double bytes = 0;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (p->role != KP_INPUT && p->role != KP_OUTPUT) continue;
    const Lay *l = lay_of(a, p->type, nats, &err);
    if (l) bytes += (double)l->bytes;
  }
  return min_ms > 0 ? bytes / (min_ms * 1e6) : 0.0;
}

/* dpia run's race check of its own launch (verify/race.h,
 * race_check_run; docs/language.md section 20.1): the quick check of
 * every verifying translation (driver.c, pass_semantic) runs the emitted
 * code at the smallest valid sizes, where a work-group loop may run once
 * and a race between its iterations cannot show (the missing barrier of
 * tests/diff/regress/group_loop_select_local_no_back_barrier.dpia, which
 * only `dpia verify` found).  So the run checks besides the launch it
 * makes: the kernel's NDRange at the run's sizes, whatever gave it
 * (--local-size/--global-size, the tune values of --set or the tuning
 * cache, the kernel's own), on the run's inputs, within RACE_BUDGET_RUN.
 * A finding is E0008 (E0003 never: the values are --check's) and stops
 * the run before the device sees the kernel; *said gets what was checked
 * or why not, for -v.  inputs NULL: a pipeline's launch, whose inputs are
 * the buffers of the launches before it, gets random ones of the run's
 * seed (when they are few enough: RUN_RACE_INPUTS values). */
enum { RUN_RACE_INPUTS = 1 << 20 };

/* what run_race_check did: for -v its line, for --json its "race_check"
 * (run_race_json) */
typedef struct RunRace {
  const char *said; /* NULL: no check attempted (--no-verify, --opencl-source, no kernel IR) */
  bool done;        /* checked at the launch's sizes, and passed */
  NatValues nats;   /* the launch's sizes */
} RunRace;

static int run_race_check(Ctx *c, int index, const NatValues *nats, double **inputs, size_t *counts, RunRace *rr) {
  const DpiaOptions *o = c->opt;
  *rr = (RunRace){.nats = *nats};
  const char **said = &rr->said;
  /* another source runs than the one checked; --no-verify checks none */
  if (!o->verify || o->skip_semantic_check || o->opencl_source || !c->facts[index].printed_kir) return DPIA_OK;
  DefInfo *def = c->checked->defs[index];
  if (!inputs) {
    Buf why;
    buf_init(&why, c->arena);
    int64_t values = 0;
    for (int i = 0; i < def->nparams && values <= RUN_RACE_INPUTS; i++) {
      const Lay *l = interp_param_layout(c->arena, def, i, nats, &why);
      values = l ? values + l->flat : RUN_RACE_INPUTS + 1;
    }
    Rng rng;
    rng_seed(&rng, o->seed);
    if (values > RUN_RACE_INPUTS || !interp_random_inputs(c->arena, def, nats, &rng, &inputs, &counts, &why)) {
      *said = arena_printf(c->arena, "race check not done: the inputs of kernel '%s' are more than %d values", def->name,
                           RUN_RACE_INPUTS);
      return DPIA_OK;
    }
  }
  CodegenOptions user = {0};
  for (int d = 0; d < 3; d++) {
    user.local_size[d] = o->local_size[d];
    user.global_size[d] = o->global_size[d];
  }
  RaceKernel rk = {.tc = &c->tc,
                   .k = c->natural[index],
                   .user = &user,
                   .kir = kernel_facts_kir(&c->facts[index]),
                   .drop_barriers = o->debug_drop_barriers != 0,
                   .def = def,
                   .body = c->normal[index],
                   .imp = c->hoisted[index]};
  SemanticSample run = {.nats = *nats, .ninputs = def->nparams, .inputs = inputs, .counts = counts};
  Buf msg;
  buf_init(&msg, c->arena);
  RaceStatus rs = race_check_run(c->arena, &rk, &run, &RACE_BUDGET_RUN, &msg);
  DPIA_EXHAUSTIVE_BEGIN
  switch (rs) {
  case RACE_OK:
    *said = arena_printf(c->arena, "race check passed: %s", msg.data);
    rr->done = true;
    return DPIA_OK;
  case RACE_NOT_CHECKED: *said = arena_printf(c->arena, "race check not done: %s", msg.data); return DPIA_OK;
  case RACE_FOUND:
  case RACE_MISMATCH: /* not made without a reference: a finding all the same */
    diag_error(&c->diag, ERR_RACE, def->decl->name_span, "%s%s", msg.data,
               c->pipe ? arena_printf(c->arena, " (launched by pipeline '%s')", c->pipe->def->name) : "");
    return DPIA_EVERIFY;
  case RACE_ERROR:
    diag_error(&c->diag, ERR_INTERNAL, def->decl->name_span, "internal: race check of kernel '%s' at the run's launch: %s",
               def->name, msg.data);
    return DPIA_EINTERNAL;
  }
  DPIA_EXHAUSTIVE_END
  return DPIA_EINTERNAL;
}

/* --json's "race_check" for one launch (docs/reference.md section 8.5):
 * null when none was attempted, else whether it was done at the sizes
 * given and what -v says of it */
static void run_race_json(Buf *out, const RunRace *rr) {
  if (!rr->said) {
    buf_puts(out, "null");
    return;
  }
  emit(out, "{\"done\": %s, \"sizes\": {", rr->done ? "true" : "false");
  for (int i = 0; i < rr->nats.n; i++) {
    buf_puts(out, i ? ", " : "");
    emit_json_string(out, rr->nats.names[i]);
    emit(out, ": %lld", (long long)rr->nats.values[i]);
  }
  buf_puts(out, "}, \"report\": ");
  emit_json_string(out, rr->said);
  buf_putc(out, '}');
}

int pass_run(Ctx *c) {
  const DpiaOptions *o = c->opt;
  if (c->pipe) return pass_run_pipeline(c);
  int index = -1, nkernels = 0;
  for (int i = 0; i < c->checked->ndefs; i++)
    if (c->sources[i]) {
      index = i;
      nkernels++;
    }
  if (nkernels != 1) {
    diag_error(&c->diag, ERR_NO_SUCH_KERNEL, (Span){0},
               "'dpia run' runs one kernel: choose it with -k NAME (%s has %d; %s)", c->src.name, nkernels,
               kernel_names(c));
    return DPIA_EUSAGE;
  }
  DefInfo *def = c->checked->defs[index];
  ImpKernel *k = c->kernels[index];
  Arena *a = c->arena;
  Buf err;
  buf_init(&err, a);
  /* nat values, all of them given */
  NatValues nats;
  if (!run_sizes(c, def, &nats)) return DPIA_EUSAGE;
  /* a tune parameter left symbolic takes a --size in its domain */
  for (int j = 0; j < o->nsizes; j++)
    for (int i = 0; i < def->decl->nparams; i++) {
      const Param *pa = &def->decl->params[i];
      if (!pa->tune || strcmp(pa->name, o->size_names[j]) != 0 || param_tune_allows(pa, (uint64_t)o->size_values[j]))
        continue;
      Buf dom;
      buf_init(&dom, a);
      print_domain(&dom, pa);
      diag_error(&c->diag, ERR_VALUE_OUT_OF_DOMAIN, pa->span,
                 "--size %s=%lld: %lld is not a value of the tune parameter %s of kernel '%s': %s", pa->name,
                 o->size_values[j], o->size_values[j], pa->name, def->name, dom.data);
      return DPIA_EUSAGE;
    }
  if (!check_run_preconditions(c, def, k, &nats)) return run_json_refused(c, "kernel", k->name);
  Runtime rt;
  RtStatus st = rt_open(&rt, c->target, a, o->platform, o->device, &err);
  if (st != RT_OK) {
    diag_error(&c->diag, ERR_OPENCL_RUNTIME, (Span){0}, "%s: %s", c->target->title, err.data);
    return DPIA_EOPENCL;
  }
  RtLaunch launch;
  rt_launch_init(&launch);
  launch.repeat = o->repeat > 0 ? o->repeat : 1;
  launch.cut_ms = c->hooks ? c->hooks->cut_ms : 0;
  /* k already holds the user's launch sizes (kernel_with_launch) */
  /* sizes the generated code's int indices and the device can take,
   * before anything is allocated (run_limits.h, tests/limits) */
  const char *source = o->opencl_source ? o->opencl_source : c->sources[index];
  RunLimit limit = run_check_limits(a, &rt, k, &c->facts[index], &nats, &launch, &err);
  if (limit != RUN_LIMIT_OK) {
    rt_close(&rt);
    diag_error(&c->diag, ERR_SIZES_TOO_LARGE, def->decl->name_span, "%s", err.data);
    return limit == RUN_LIMIT_INT ? DPIA_EUSAGE : DPIA_EOPENCL;
  }
  /* what the kernel needs of the device, whatever the sizes: its local
   * memory (from the kernel IR, unless another source runs) and its
   * work-groups; the built kernel is checked again by rt_run */
  st = run_check_kernel_fits(a, &rt, k, o->opencl_source ? NULL : kernel_facts_kir(&c->facts[index]), &nats, &launch,
                             &err);
  if (st != RT_OK) {
    diag_error(&c->diag, ERR_DEVICE_LIMIT, def->decl->name_span, "%s device %s: %s", c->target->title,
               rt.info.device_name, err.data);
    rt_close(&rt);
    return DPIA_EOPENCL;
  }
  /* the data are as large as the sizes say: the translation's memory
   * limit no longer applies */
  a->limit = 0;
  double **inputs;
  size_t *counts;
  if (!run_inputs(c, def, &nats, &inputs, &counts)) {
    rt_close(&rt);
    return DPIA_EUSER;
  }
  launch.packs = run_packs(c, inputs);
  RunRace rr;
  int race = run_race_check(c, index, &nats, inputs, counts, &rr);
  if (race != DPIA_OK) {
    rt_close(&rt);
    return race;
  }
  RtResult res;
  st = rt_run(&rt, a, k, source, &nats, def->nparams, (const double *const *)inputs, counts, &launch, &res, &err);
  int done = run_finished(c, &rt, st, &res, &err, def->decl->name_span);
  if (done != DPIA_OK) return done;
  double gbps = run_gbps(a, k, &nats, res.min_ms);
  if (o->run_json) {
    Buf rj;
    buf_init(&rj, a);
    run_race_json(&rj, &rr);
    run_json_head(&c->out, o, "kernel", k->name, &rt, &res, gbps, c->tuned, &rj);
  } else {
    emit(&c->out, "kernel %s on %s (%s)\n", k->name, rt.info.device_name, rt.info.platform_name);
    run_sizes_line(c);
    emit(&c->out, "\n  NDRange: global");
    for (int d = 0; d < res.ndims; d++) emit(&c->out, "%s%zu", d ? "," : " ", res.global_size[d]);
    if (res.has_local) {
      buf_puts(&c->out, ", local");
      for (int d = 0; d < res.ndims; d++) emit(&c->out, "%s%zu", d ? "," : " ", res.local_size[d]);
    }
    run_time_line(c, &res, gbps);
    if (o->verbose && rr.said) emit(&c->out, "  %s\n", rr.said);
  }
  rt_close(&rt);
  if (!o->check) {
    if (o->run_json) buf_puts(&c->out, ", \"check\": null}\n");
    return DPIA_OK;
  }
  return run_compare(c, def, c->normal[index], &nats, inputs, counts, &res);
}

/* dpia run -k PIPELINE (docs/language.md section 8): its preconditions and
 * every launch's at the given sizes, each launch's race check there
 * (run_race_check), then the whole pipeline on the device
 * (pipe_run.h), its time one figure from the first kernel's start to the
 * last one's end, and with --check its output against the reference
 * interpreter of the composed program (the kernels inlined into the
 * pipeline's body). */
static int pass_run_pipeline(Ctx *c) {
  const DpiaOptions *o = c->opt;
  Arena *a = c->arena;
  DefInfo *def = c->pipe->def;
  const PipeDesc *d = NULL;
  for (int i = 0; i < c->checked->ndefs; i++)
    if (c->checked->defs[i] == def) d = c->pipe_descs[i];
  Buf err;
  buf_init(&err, a);
  NatValues nats;
  if (!run_sizes(c, def, &nats)) return DPIA_EUSAGE;
  if (!check_run_preconditions(c, def, &d->iface, &nats)) return run_json_refused(c, "pipeline", def->name);
  NatValues *launch_nats = NEWARRAY(a, NatValues, d->nlaunches + 1);
  for (int li = 0; li < d->nlaunches; li++) {
    const PipeLaunchDesc *l = &d->launches[li];
    const char **names = NEWARRAY(a, const char *, l->k->nparams + 1);
    int64_t *values = NEWARRAY(a, int64_t, l->k->nparams + 1);
    int n = 0;
    for (int i = 0; i < l->k->nparams; i++) {
      if (l->binds[i].kind != PBIND_NAT) continue;
      names[n] = l->k->params[i].name;
      if (!nat_eval_size(l->binds[i].size, &nats, &values[n++], &err)) break;
    }
    NatValues kn = {n, names, values};
    if (err.len || !rt_check_preconditions(l->k, &kn, &err)) {
      diag_error(&c->diag, ERR_VIOLATED_PRECONDITION, l->launch->span, "launch of kernel '%s' in pipeline '%s': %s",
                 l->k->name, def->name, err.data);
      return DPIA_EPRECONDITION;
    }
    launch_nats[li] = kn;
  }
  /* each launch's race check at its sizes (run_race_check), before the
   * device sees any: the kernel of the launch is its declaration's
   * (dpia/pipeline.h, decl_index), the index of c->kernels too */
  RunRace *races = NEWARRAY(a, RunRace, d->nlaunches + 1);
  for (int li = 0; li < d->nlaunches; li++) {
    int index = d->launches[li].launch->decl_index;
    if (!c->kernels || !c->kernels[index]) { /* pipeline_describe saw it generated */
      diag_error(&c->diag, ERR_INTERNAL, d->launches[li].launch->span, "internal: kernel '%s' of pipeline '%s' was not generated",
                 d->launches[li].k->name, def->name);
      return DPIA_EINTERNAL;
    }
    int race = run_race_check(c, index, &launch_nats[li], NULL, NULL, &races[li]);
    if (race != DPIA_OK) return race;
  }
  Phrase *body = normalize_def(a, &c->tc, &c->diag, def);
  if (!body) return DPIA_EUSER;
  Runtime rt;
  RtStatus st = rt_open(&rt, c->target, a, o->platform, o->device, &err);
  if (st != RT_OK) {
    diag_error(&c->diag, ERR_OPENCL_RUNTIME, (Span){0}, "%s: %s", c->target->title, err.data);
    return DPIA_EOPENCL;
  }
  a->limit = 0; /* the data are as large as the sizes say */
  double **inputs;
  size_t *counts;
  RtResult res;
  if (!run_inputs(c, def, &nats, &inputs, &counts)) {
    rt_close(&rt);
    return DPIA_EUSER;
  }
  const char *source = o->opencl_source ? o->opencl_source : all_sources(c);
  RtLaunch launch;
  rt_launch_init(&launch);
  launch.repeat = o->repeat > 0 ? o->repeat : 1;
  launch.cut_ms = c->hooks ? c->hooks->cut_ms : 0;
  launch.packs = run_packs(c, inputs);
  st = rt_run_pipeline(&rt, a, d, source, &nats, def->nparams, (const double *const *)inputs, counts, &launch, &res,
                       &err);
  int done = run_finished(c, &rt, st, &res, &err,
                          st == RT_EMPTY_RANGE ? d->launches[res.empty_launch].launch->span : def->decl->name_span);
  if (done != DPIA_OK) return done;
  double gbps = run_gbps(a, &d->iface, &nats, res.min_ms);
  if (o->run_json) {
    /* one entry a launch, in launch order */
    Buf rj;
    buf_init(&rj, a);
    buf_putc(&rj, '[');
    for (int li = 0; li < d->nlaunches; li++) {
      emit(&rj, "%s{\"launch\": %d, \"kernel\": ", li ? ", " : "", li + 1);
      emit_json_string(&rj, d->launches[li].k->name);
      buf_puts(&rj, ", \"race_check\": ");
      run_race_json(&rj, &races[li]);
      buf_putc(&rj, '}');
    }
    buf_putc(&rj, ']');
    run_json_head(&c->out, o, "pipeline", def->name, &rt, &res, gbps, c->tuned, &rj);
  } else {
    emit(&c->out, "pipeline %s on %s (%s)\n", def->name, rt.info.device_name, rt.info.platform_name);
    run_sizes_line(c);
    buf_puts(&c->out, "\n  launches:");
    for (int li = 0; li < d->nlaunches; li++)
      emit(&c->out, "%s%s%s", li ? ", " : " ", d->launches[li].k->name,
           res.skipped && res.skipped[li] ? " (left out: no work-item and nothing to write)" : "");
    run_time_line(c, &res, gbps);
    for (int li = 0; li < d->nlaunches && o->verbose; li++)
      if (races[li].said) emit(&c->out, "  launch %d, %s: %s\n", li + 1, d->launches[li].k->name, races[li].said);
  }
  rt_close(&rt);
  if (!o->check) {
    if (o->run_json) buf_puts(&c->out, ", \"check\": null}\n");
    return DPIA_OK;
  }
  return run_compare(c, def, body, &nats, inputs, counts, &res);
}
