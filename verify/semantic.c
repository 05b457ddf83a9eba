/* semantic.c: semantic translation validation (semantic.h). */
#include "semantic.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "imp_interp.h"
#include "interp.h"

/* ---- small sizes that satisfy the preconditions ---- */

/* Candidate values of a nat parameter: the numbers 2^a 3^b 5^c 7^d up to
 * MAX_CANDIDATE, ascending.  Preconditions are divisibilities by products
 * of the program's split, asVector and slide constants and lower bounds
 * (spec section 3), whose smallest solutions are of this form. */
enum { MAX_CANDIDATE = 1 << 20, MAX_PER_PARAM = 48, MAX_TUPLES = 20000, MAX_PARAMS = 8, MAX_RETRIES = 3 };

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

static int candidates(Arena *a, int64_t **out) {
  int cap = 8192, n = 0; /* more than the 2^a 3^b 5^c 7^d up to 2^20 */
  int64_t *c = NEWARRAY(a, int64_t, cap);
  for (int64_t p2 = 1; p2 <= MAX_CANDIDATE; p2 *= 2)
    for (int64_t p3 = p2; p3 <= MAX_CANDIDATE; p3 *= 3)
      for (int64_t p5 = p3; p5 <= MAX_CANDIDATE; p5 *= 5)
        for (int64_t p7 = p5; p7 <= MAX_CANDIDATE; p7 *= 7)
          if (n < cap) c[n++] = p7;
  qsort(c, (size_t)n, sizeof *c, cmp_i64);
  *out = c;
  return n;
}

typedef struct Search {
  const DefInfo *def;
  int np;                    /* nat parameters */
  int64_t *values;           /* the assignment being tried (NatValues.values) */
  NatValues nats;
  int64_t *lists[MAX_PARAMS]; /* per parameter: candidates meeting its own requirements */
  int len[MAX_PARAMS];
  int lower[MAX_PARAMS];      /* smallest rank allowed per parameter */
  int tried;
} Search;

static bool requirement_holds(const DefInfo *def, int r, const NatValues *nats) {
  int64_t v;
  if (!size_eval(def->req_sizes[r], nat_lookup, (void *)nats, &v)) return false;
  return v >= (def->req_positive[r] ? 1 : 0);
}

static bool all_hold(Search *s) {
  for (int r = 0; r < s->def->nreqs; r++)
    if (!requirement_holds(s->def, r, &s->nats)) return false;
  return true;
}

/* assign ranks to parameters j.. with rank sum exactly left */
static bool enumerate(Search *s, int j, int left) {
  if (j == s->np) {
    if (left != 0 || ++s->tried > MAX_TUPLES) return false;
    return all_hold(s);
  }
  for (int r = s->lower[j]; r < s->len[j] && r - s->lower[j] <= left; r++) {
    s->values[j] = s->lists[j][r];
    if (enumerate(s, j + 1, left - (r - s->lower[j]))) return true;
    if (s->tried > MAX_TUPLES) return false;
  }
  return false;
}

/* the valid assignment of least rank sum above s->lower (into s->values);
 * ranks found go to rank[] */
static bool search(Search *s, int *rank) {
  s->tried = 0;
  int most = 0;
  for (int j = 0; j < s->np; j++) most += s->len[j] - 1 - s->lower[j];
  for (int sum = 0; sum <= most; sum++) {
    if (enumerate(s, 0, sum)) {
      for (int j = 0; j < s->np; j++) {
        rank[j] = s->lower[j];
        while (s->lists[j][rank[j]] != s->values[j]) rank[j]++;
      }
      return true;
    }
    if (s->tried > MAX_TUPLES) return false;
  }
  return false;
}

static bool init_search(Arena *a, Search *s, const DefInfo *def) {
  memset(s, 0, sizeof *s);
  s->def = def;
  s->np = def->nsize_params;
  if (s->np > MAX_PARAMS) return false;
  s->values = NEWARRAY(a, int64_t, s->np > 0 ? s->np : 1);
  s->nats = (NatValues){s->np, (const char *const *)def->size_params, s->values};
  int64_t *cand;
  int ncand = candidates(a, &cand);
  for (int j = 0; j < s->np; j++) {
    s->lists[j] = NEWARRAY(a, int64_t, MAX_PER_PARAM);
    NatValues one = {1, (const char *const *)&def->size_params[j], NULL};
    for (int c = 0; c < ncand && s->len[j] < MAX_PER_PARAM; c++) {
      one.values = &cand[c];
      bool ok = true;
      for (int r = 0; r < def->nreqs && ok; r++) {
        int vars = 0;
        for (int k = 0; k < s->np; k++) vars += size_has_var(def->req_sizes[r], def->size_params[k]);
        /* a requirement on this parameter alone */
        if (vars == 1 && size_has_var(def->req_sizes[r], def->size_params[j])) ok = requirement_holds(def, r, &one);
      }
      if (ok) s->lists[j][s->len[j]++] = cand[c];
    }
    if (s->len[j] == 0) return false;
  }
  return true;
}

/* ---- one run at one size assignment ---- */

static void print_sizes(Buf *b, const NatValues *nats) {
  if (nats->n == 0) buf_puts(b, "no sizes");
  for (int j = 0; j < nats->n; j++) emit(b, "%s%s=%" PRId64, j ? ", " : "", nats->names[j], nats->values[j]);
}

/* the first element whose own difference exceeds the bound (or whose
 * non-finite value differs); else the comparison's reported element */
static int64_t first_difference(const double *out, const double *ref, size_t n, double bound, const Comparison *c) {
  for (size_t i = 0; i < n; i++) {
    double o = out[i], r = ref[i];
    if (isnan(r) || isnan(o) || isinf(r) || isinf(o)) {
      if (!(isnan(r) && isnan(o)) && o != r) return (int64_t)i;
      continue;
    }
    if (fabs(o - r) > bound * fmax(fabs(r), 1e-30)) return (int64_t)i;
  }
  return c->worst;
}

/* run_at only: these sizes do not give the functional program a meaning */
enum { SEM_RETRY = SEM_ERROR + 1 };

/* the inputs of the imperative def, in the order of its exp parameters:
 * the functional kernel's inputs, in declaration order (kernel.h) */
/* Sizes, inputs and the reference at nats: SEM_OK and *sample filled,
 * or SEM_SKIPPED / SEM_RETRY with msg saying why */
static int prepare(Arena *a, const DefInfo *def, const Phrase *body, const DefInfo *imp, const NatValues *nats,
                   const SemanticBudget *budget, SemanticSample *sample, Buf *msg) {
  Buf err;
  buf_init(&err, a);
  /* memory first: inputs, output, temporaries */
  int64_t elements = 0;
  for (int i = 0; imp && i < imp->nparams; i++) {
    const PhraseType *t = imp->params[i]->type;
    const DataType *d = t->kind == PT_WITH ? t->fst->data : t->data;
    const Lay *l = lay_of(a, d, nats, &err);
    if (!l) {
      emit(msg, "skipped at ");
      print_sizes(msg, nats);
      emit(msg, ": %s", err.data);
      return SEM_SKIPPED;
    }
    elements += l->flat;
  }
  if (elements > budget->max_elements) {
    emit(msg, "skipped: the smallest valid sizes (");
    print_sizes(msg, nats);
    emit(msg, ") need %" PRId64 " values of memory, more than the %" PRId64 " the check interprets", elements,
         budget->max_elements);
    return SEM_SKIPPED;
  }
  Rng rng;
  rng_seed(&rng, SEMANTIC_SEED);
  if (!interp_random_inputs(a, def, nats, &rng, &sample->inputs, &sample->counts, &err)) {
    emit(msg, "skipped at ");
    print_sizes(msg, nats);
    emit(msg, ": %s", err.data);
    return SEM_SKIPPED;
  }
  sample->nats = *nats;
  sample->ninputs = def->nparams;
  /* the reference first: sizes that satisfy the recorded preconditions
   * can still leave the functional program without a meaning (padClamp of
   * an array that drop emptied): such sizes are not a test (SEM_RETRY) */
  Span overflow = {0};
  if (!interp_run_overflow(a, def, body, nats, (const double *const *)sample->inputs, sample->counts, &sample->ref,
                           &sample->nref, &overflow, NULL, &err)) {
    emit(msg, "skipped: the reference interpreter cannot run kernel '%s' at ", def->name);
    print_sizes(msg, nats);
    emit(msg, ": %s", err.data);
    return SEM_RETRY;
  }
  /* an int that leaves the 32-bit range is undefined in OpenCL C, and the
   * reference's exact value is no test of the translation */
  if (overflow.src) {
    uint32_t line, col;
    source_position(overflow.src, overflow.begin, &line, &col);
    emit(msg, "skipped: at ");
    print_sizes(msg, nats);
    emit(msg, " the program's int arithmetic leaves the 32-bit range on the random inputs (%s:%u:%u)",
         overflow.src->name, line, col);
    return SEM_SKIPPED;
  }
  const Lay *rl = interp_result_layout(a, def, nats, &err);
  if (!rl) {
    emit(msg, "%s", err.data);
    return SEM_ERROR;
  }
  sample->bound = interp_bound(body, rl);
  sample->float_rounding = false;
  return SEM_OK;
}

/* The imperative program imp run on sample's inputs (parallel loops in
 * decreasing order if reverse), each float it stores as the device holds
 * it or, exact, kept in double; NULL if it does not run to the end. */
static double *imp_outputs(Arena *a, const DefInfo *imp, const SemanticSample *sample, bool reverse, bool exact,
                           int64_t max_steps) {
  Buf err;
  buf_init(&err, a);
  ImpRun run = {.reverse_parallel = reverse, .max_steps = max_steps, .float_stores_exact = exact};
  double *out;
  size_t nout;
  if (imp_interp_run(a, imp, &sample->nats, sample->ninputs, (const double *const *)sample->inputs, sample->counts,
                     &run, &out, &nout, &err) != IMP_OK ||
      nout != sample->nref)
    return NULL;
  return out;
}

static bool agree(const double *out, const SemanticSample *sample) {
  return semantic_agree_with(out, sample->nref, sample->ref, sample);
}

/* Whether the imperative program computes the reference's values once the
 * floats it stores are kept in double.  The reference keeps intermediate
 * results in double (interp.c, precision rule); the imperative program
 * stores them in float temporaries, as the device does.  A comparison on a
 * value within a float's rounding of its threshold then takes the other
 * side of a select (tests/diff/gen.py --seed 1127 --index 17: 0.5 + 2e-8 in
 * double, 0.5 once stored, against `> 0.5`): a difference of the program's
 * own float arithmetic, which the device shows too (dpia run --check says
 * E0005), not a wrong translation.  A wrong translation computes other
 * values in either precision, so only a right one agrees here
 * (tests/diff/regress/select_on_rounded_temporary.dpia). */
static bool agrees_in_reference_precision(Arena *a, const DefInfo *imp, const SemanticSample *sample, bool reverse,
                                          int64_t max_steps) {
  double *out = imp_outputs(a, imp, sample, reverse, true, max_steps);
  return out && agree(out, sample);
}

double *semantic_device_values(Arena *a, const DefInfo *imp, const SemanticSample *sample, int64_t max_steps) {
  if (max_steps <= 0 || !imp || !sample->ref || !agrees_in_reference_precision(a, imp, sample, false, max_steps))
    return NULL;
  return imp_outputs(a, imp, sample, false, false, max_steps);
}

bool semantic_agree_with(const double *out, size_t nout, const double *expected, const SemanticSample *sample) {
  if (!expected || nout != sample->nref) return false;
  Comparison cmp;
  compare_values(out, expected, nout, sample->bound, &cmp);
  return cmp.agree;
}

static int run_at(Arena *a, const DefInfo *def, const Phrase *body, const DefInfo *imp, const NatValues *nats,
                  const SemanticBudget *budget, int64_t *steps, SemanticSample *sample, Buf *msg) {
  Buf err;
  buf_init(&err, a);
  int ready = prepare(a, def, body, imp, nats, budget, sample, msg);
  if (ready != SEM_OK) return ready;
  double **inputs = sample->inputs;
  size_t *counts = sample->counts;
  double *ref = sample->ref;
  size_t nref = sample->nref;
  double bound = sample->bound;
  double *outs[2];
  size_t nout[2];
  for (int pass = 0; pass < 2; pass++) {
    ImpRun run = {.reverse_parallel = pass == 1, .max_steps = budget->max_steps};
    ImpStatus st = imp_interp_run(a, imp, nats, def->nparams, (const double *const *)inputs, counts, &run,
                                  &outs[pass], &nout[pass], &err);
    *steps += run.steps;
    if (st == IMP_BUDGET) {
      emit(msg, "skipped: at the smallest valid sizes (");
      print_sizes(msg, nats);
      emit(msg, ") the imperative program takes more than %" PRId64 " interpreter steps", budget->max_steps);
      return SEM_SKIPPED;
    }
    if (st == IMP_FAULT) {
      emit(msg, "the imperative program of kernel '%s' at ", def->name);
      print_sizes(msg, nats);
      emit(msg, " (parallel loops in %s order): %s", pass ? "decreasing" : "increasing", err.data);
      return SEM_MISMATCH;
    }
    if (st != IMP_OK) {
      emit(msg, "cannot interpret the imperative program of kernel '%s' at ", def->name);
      print_sizes(msg, nats);
      emit(msg, ": %s", err.data);
      return SEM_ERROR;
    }
  }
  for (int pass = 0; pass < 2; pass++) {
    if (nout[pass] != nref) {
      emit(msg, "the imperative program of kernel '%s' produces %zu values, the reference %zu", def->name,
           nout[pass], nref);
      return SEM_MISMATCH;
    }
    Comparison cmp;
    compare_values(outs[pass], ref, nref, bound, &cmp);
    /* agreement, not run --check's verdict (cmp.ok): a reference that is
     * not finite somewhere (a square root of a negative input) or 0
     * everywhere makes a weak sample, yet the translation must compute the
     * same values there, non-finite ones included */
    if (cmp.agree) continue;
    if (agrees_in_reference_precision(a, imp, sample, pass == 1, budget->max_steps)) {
      sample->float_rounding = true;
      continue;
    }
    int64_t i = first_difference(outs[pass], ref, nref, bound, &cmp);
    emit(msg, "the imperative program of kernel '%s' computes other values than the reference interpreter at ",
         def->name);
    print_sizes(msg, nats);
    emit(msg, " (random inputs, seed %d; parallel loops in %s order): first difference at element %" PRId64
              " of %zu: got %.9g, expected %.9g (",
         SEMANTIC_SEED, pass ? "decreasing" : "increasing", i, nref, outs[pass][i], ref[i]);
    compare_report(&cmp, msg);
    buf_putc(msg, ')');
    return SEM_MISMATCH;
  }
  return SEM_OK;
}

SemStatus semantic_check(Arena *a, const DefInfo *def, const Phrase *body, const DefInfo *imp,
                         const SemanticBudget *budget, SemanticSample *sample, Buf *message) {
  SemanticSample own;
  if (!sample) sample = &own;
  Search s;
  int rank[MAX_PARAMS];
  if (!init_search(a, &s, def) || !search(&s, rank)) {
    emit(message, "skipped: no sizes up to %d satisfy the preconditions of kernel '%s'", MAX_CANDIDATE, def->name);
    return SEM_SKIPPED;
  }
  int64_t steps = 0;
  NatValues first = s.nats;
  int st;
  for (int attempt = 0;; attempt++) {
    first.values = arena_dup(a, s.values, sizeof(int64_t) * (size_t)(s.np > 0 ? s.np : 1));
    buf_clear(message);
    st = run_at(a, def, body, imp, &first, budget, &steps, sample, message);
    if (st != SEM_RETRY) break;
    /* the next larger sizes, a few times */
    if (s.np == 0 || attempt == MAX_RETRIES) return SEM_SKIPPED;
    for (int j = 0; j < s.np; j++) s.lower[j] = rank[j] + 1 < s.len[j] ? rank[j] + 1 : rank[j];
    if (!search(&s, rank)) return SEM_SKIPPED;
  }
  if (st != SEM_OK) return (SemStatus)st;
  /* a second, larger assignment (every parameter at a larger candidate),
   * when the first was cheap: loops of one iteration cannot show an
   * ordering fault */
  bool second = false, second_rounding = false;
  NatValues next = s.nats;
  if (s.np > 0 && steps < budget->second_steps) {
    for (int j = 0; j < s.np; j++) s.lower[j] = rank[j] + 1 < s.len[j] ? rank[j] + 1 : rank[j];
    if (search(&s, rank)) {
      next.values = arena_dup(a, s.values, sizeof(int64_t) * (size_t)s.np);
      Buf why;
      buf_init(&why, a);
      SemanticSample second_sample;
      st = run_at(a, def, body, imp, &next, budget, &steps, &second_sample, &why);
      if (st == SEM_MISMATCH || st == SEM_ERROR) {
        buf_clear(message);
        buf_puts(message, why.data);
        return (SemStatus)st;
      }
      second = st == SEM_OK;
      second_rounding = second && second_sample.float_rounding;
    }
  }
  emit(message, "the imperative program computes the reference's values at ");
  print_sizes(message, &first);
  if (second) {
    buf_puts(message, " and at ");
    print_sizes(message, &next);
  }
  emit(message, " (parallel loops in increasing and in decreasing order; %" PRId64 " interpreter steps)", steps);
  if (sample->float_rounding || second_rounding)
    emit(message,
         ", at %s with its floats kept in double: stored in float, a comparison takes another side, as on the "
         "device (dpia run --check: E0005)",
         !second                  ? "these sizes"
         : !second_rounding       ? "the first sizes"
         : sample->float_rounding ? "both"
                                  : "the second sizes");
  return SEM_OK;
}

SemStatus semantic_sample(Arena *a, const DefInfo *def, const Phrase *body, const DefInfo *imp, int raise,
                          const SemanticBudget *budget, SemanticSample *sample, Buf *message) {
  Search s;
  int rank[MAX_PARAMS];
  if (!init_search(a, &s, def) || !search(&s, rank)) {
    emit(message, "no sizes up to %d satisfy the preconditions of kernel '%s'", MAX_CANDIDATE, def->name);
    return SEM_SKIPPED;
  }
  if (raise > 0) {
    if (s.np == 0) {
      emit(message, "kernel '%s' has no sizes to raise", def->name);
      return SEM_SKIPPED;
    }
    for (int j = 0; j < s.np; j++) s.lower[j] = rank[j] + raise < s.len[j] ? rank[j] + raise : s.len[j] - 1;
    if (!search(&s, rank)) {
      emit(message, "no larger sizes satisfy the preconditions of kernel '%s'", def->name);
      return SEM_SKIPPED;
    }
  }
  for (int attempt = 0;; attempt++) {
    NatValues nats = s.nats;
    nats.values = arena_dup(a, s.values, sizeof(int64_t) * (size_t)(s.np > 0 ? s.np : 1));
    buf_clear(message);
    int st = prepare(a, def, body, imp, &nats, budget, sample, message);
    if (st != SEM_RETRY) return (SemStatus)st;
    if (s.np == 0 || attempt == MAX_RETRIES) return SEM_SKIPPED;
    for (int j = 0; j < s.np; j++) s.lower[j] = rank[j] + 1 < s.len[j] ? rank[j] + 1 : rank[j];
    if (!search(&s, rank)) return SEM_SKIPPED;
  }
}

bool semantic_agree(const double *out, size_t nout, const SemanticSample *sample, Buf *why) {
  if (nout != sample->nref) {
    emit(why, "%zu values where the reference has %zu", nout, sample->nref);
    return false;
  }
  Comparison cmp;
  compare_values(out, sample->ref, nout, sample->bound, &cmp);
  if (cmp.agree) return true;
  int64_t i = first_difference(out, sample->ref, nout, sample->bound, &cmp);
  emit(why, "first difference at element %" PRId64 " of %zu: got %.9g, expected %.9g (", i, nout, out[i],
       sample->ref[i]);
  compare_report(&cmp, why);
  buf_putc(why, ')');
  return false;
}

void semantic_print_sizes(Buf *b, const NatValues *nats) { print_sizes(b, nats); }
