/* race.c: the race check of `dpia verify` (race.h). */
#include "race.h"
#include "compare.h"

#include <inttypes.h>
#include <string.h>

#include "runtime_int.h"

enum { MAX_LAUNCHES = 6 };

/* one launch to check: the sizes, and the code generation options that
 * make its code (NULL: the emitted code) */
typedef struct Launch {
  KiLaunch ki;
  bool emitted;
  CodegenOptions copt;
} Launch;

static void print_sizes3(Buf *b, int n, const int64_t *v) {
  if (n > 1) buf_putc(b, '(');
  for (int d = 0; d < n; d++) emit(b, "%s%" PRId64, d ? "," : "", v[d]);
  if (n > 1) buf_putc(b, ')');
}

static void print_launch(Buf *b, const KiLaunch *l) {
  buf_puts(b, "global ");
  print_sizes3(b, l->ndims, l->global);
  buf_puts(b, " local ");
  print_sizes3(b, l->ndims, l->local);
}

static bool same_launch(const KiLaunch *x, const KiLaunch *y) {
  if (x->ndims != y->ndims) return false;
  for (int d = 0; d < x->ndims; d++)
    if (x->global[d] != y->global[d] || x->local[d] != y->local[d]) return false;
  return true;
}

static int64_t ceil_half(int64_t n) { return (n + 1) / 2; }

/* add l unless it is empty or already there */
static void add_launch(Launch *ls, int *n, const Launch *l) {
  for (int d = 0; d < l->ki.ndims; d++)
    if (l->ki.global[d] < 1 || l->ki.local[d] < 1) return;
  for (int i = 0; i < *n; i++)
    if (same_launch(&ls[i].ki, &l->ki)) return;
  if (*n < MAX_LAUNCHES) ls[(*n)++] = *l;
}

/* a launch generated for the check: both sizes given to code generation */
static Launch generated(int ndims, const int64_t *global, const int64_t *local, bool give_local) {
  Launch l = {.ki = {.ndims = ndims}};
  for (int d = 0; d < ndims; d++) {
    l.ki.global[d] = global[d];
    l.ki.local[d] = local[d];
    l.copt.global_size[d] = global[d];
    if (give_local) l.copt.local_size[d] = local[d];
  }
  return l;
}

/* The launches of race.h at these sizes; 0 with why when the emitted
 * launch is empty or cannot be evaluated. */
static int launches(Arena *a, const RaceKernel *rk, const NatValues *nats, bool variants, Launch *ls, Buf *why) {
  bool user = false;
  for (int d = 0; d < 3; d++) user = user || rk->user->local_size[d] > 0 || rk->user->global_size[d] > 0;
  const ImpKernel *k = user ? kernel_with_launch(a, rk->tc, rk->k, rk->user) : rk->k;
  RtLaunch nat;
  rt_launch_init(&nat);
  RtResult res;
  memset(&res, 0, sizeof res);
  if (rt_launch_sizes(k, nats, &nat, &res, why) != RT_OK) return 0;
  Launch e = {.ki = {.ndims = res.ndims}, .emitted = true};
  for (int d = 0; d < res.ndims; d++) {
    e.ki.global[d] = (int64_t)res.global_size[d];
    /* no local size fixed: the device may choose one work-item a group,
     * where every work-item is ordered by no barrier */
    e.ki.local[d] = res.has_local ? (int64_t)res.local_size[d] : 1;
  }
  int n = 0;
  add_launch(ls, &n, &e);
  if (user || n == 0 || !variants) return n;
  int nd = e.ki.ndims;
  int64_t g[3] = {0}, l[3] = {0};
  if (res.has_local) {
    int64_t groups[3];
    for (int d = 0; d < nd; d++) groups[d] = e.ki.global[d] / e.ki.local[d];
    /* half the groups: loops over groups, each step with every
     * work-item of a group */
    for (int d = 0; d < nd; d++) {
      l[d] = e.ki.local[d];
      g[d] = ceil_half(groups[d]) * l[d];
    }
    Launch v = generated(nd, g, l, true);
    add_launch(ls, &n, &v);
    /* half the local size: loops over local ids */
    for (int d = 0; d < nd; d++) {
      l[d] = e.ki.local[d] % 2 == 0 ? e.ki.local[d] / 2 : e.ki.local[d];
      g[d] = groups[d] * l[d];
    }
    v = generated(nd, g, l, true);
    add_launch(ls, &n, &v);
    /* one work-item a group, half the groups */
    for (int d = 0; d < nd; d++) {
      l[d] = 1;
      g[d] = ceil_half(groups[d]);
    }
    v = generated(nd, g, l, true);
    add_launch(ls, &n, &v);
    /* twice the local size (in every dimension while a group has at most
     * 256 work-items): guarded work-items, with half the groups of
     * dimension 0 (a loop over groups in one dimension, the others one
     * step) and with twice the groups (guarded groups) */
    int64_t size = 1;
    for (int d = 0; d < nd; d++) size *= e.ki.local[d];
    for (int d = 0; d < nd; d++) {
      l[d] = e.ki.local[d];
      if (size * 2 <= 256) {
        l[d] *= 2;
        size *= 2;
      }
      g[d] = (d == 0 ? ceil_half(groups[d]) : groups[d]) * l[d];
    }
    v = generated(nd, g, l, true);
    add_launch(ls, &n, &v);
    /* (more groups only where the emitted launch has several: a
     * dimension of one group is one no mapWorkgroup uses, and code
     * generation writes a result once a group, not once a launch, as
     * run_diff's launches never have more groups than the natural one) */
    for (int d = 0; d < nd; d++) g[d] = groups[d] * (groups[d] > 1 ? 2 : 1) * l[d];
    v = generated(nd, g, l, true);
    add_launch(ls, &n, &v);
  } else {
    for (int d = 0; d < nd; d++) {
      l[d] = 1;
      g[d] = ceil_half(e.ki.global[d]);
    }
    Launch v = generated(nd, g, l, false);
    add_launch(ls, &n, &v);
    for (int d = 0; d < nd; d++) g[d] = e.ki.global[d] > 1 ? e.ki.global[d] * 2 : 1;
    v = generated(nd, g, l, false);
    add_launch(ls, &n, &v);
    /* another local size: 4 work-items a group in dimension 0 */
    for (int d = 0; d < nd; d++) {
      l[d] = d == 0 ? 4 : 1;
      g[d] = (e.ki.global[d] + l[d] - 1) / l[d] * l[d];
    }
    v = generated(nd, g, l, true);
    add_launch(ls, &n, &v);
  }
  return n;
}

/* ---- barriers left out (the check's own test) ---- */

static void drop_block(Arena *a, const KirBlock *from, KirBlock *to) {
  *to = (KirBlock){0};
  for (const KirStmt *s = from->first; s; s = s->next) {
    if (s->kind == KS_BARRIER) continue;
    KirStmt *c = NEW(a, KirStmt);
    *c = *s;
    c->next = NULL;
    KirBlock *body = kir_body(c);
    if (body) drop_block(a, kir_body((KirStmt *)s), body);
    kir_append(to, c);
  }
}

KirKernel *race_drop_barriers(Arena *a, const KirKernel *k) {
  KirKernel *c = NEW(a, KirKernel);
  *c = *k;
  drop_block(a, &k->body, &c->body);
  return c;
}

/* ---- one launch ---- */

static RaceStatus run_launch(Arena *a, const RaceKernel *rk, const SemanticSample *s, const Launch *l,
                             const KirKernel *kir, const KiLimits *limits, int64_t *steps, Buf *msg) {
  const ImpKernel *k = rk->k;
  Buf why;
  buf_init(&why, a);
  int nargs = kparam_nargs(k);
  if (kir->nparams != nargs) {
    emit(msg, "the kernel IR has %d parameters, the kernel %d", kir->nparams, nargs);
    return RACE_ERROR;
  }
  /* the inputs as one stream, taken by the input and scalar parameters
   * in order (runtime.h) */
  size_t total = 0;
  for (int i = 0; i < s->ninputs; i++) total += s->counts[i];
  double *stream = NEWARRAY(a, double, total ? total : 1);
  size_t at = 0;
  for (int i = 0; i < s->ninputs; i++) {
    if (s->counts[i]) memcpy(stream + at, s->inputs[i], sizeof(double) * s->counts[i]);
    at += s->counts[i];
  }
  at = 0;
  /* by the kernel's argument (kparam_arg): an in-place kernel's output
   * is its input's (docs/language.md section 27), as on the device */
  KiArg *args = NEWARRAY(a, KiArg, nargs > 0 ? nargs : 1);
  ParamPlan *plans = NEWARRAY(a, ParamPlan, k->nparams > 0 ? k->nparams : 1);
  KiArg none = {0};
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    KiArg *arg = kparam_arg(k, i) >= 0 ? &args[kparam_arg(k, i)] : &none;
    if (p->role == KP_NAT) {
      if (!nat_lookup((void *)&s->nats, p->name, &arg->nat)) {
        emit(msg, "no value for the nat parameter %s", p->name);
        return RACE_ERROR;
      }
      continue;
    }
    buf_clear(&why);
    if (rt_param_layout(a, p, &s->nats, &plans[i], &why) != RT_OK) {
      emit(msg, "%s", why.data);
      return RACE_ERROR;
    }
    ParamPlan *plan = &plans[i];
    arg->size = (int64_t)plan->bytes;
    switch (p->role) {
    case KP_INPUT:
    case KP_SCALAR: {
      size_t need = (size_t)(plan->elements * plan->lay->flat);
      if (at + need > total) {
        emit(msg, "kernel %s takes more input values than the functional kernel's", k->name);
        return RACE_ERROR;
      }
      /* a scatter's writes are disjoint only for a permutation (E0812) */
      if (p->binder && p->binder->permutation && !permutation_check(a, p->binder->name, stream + at, (int64_t)need, msg))
        return RACE_NOT_CHECKED;
      arg->bytes = rt_pack_all(a, plan, stream + at);
      at += need;
      break;
    }
    case KP_OUTPUT:
    case KP_TEMP: arg->bytes = rt_poisoned(a, plan); break;
    default: break;
    }
  }
  KiRun run = {.limits = limits, .backend = rk->k->backend, .lines = !rk->drop_barriers};
  buf_clear(&why);
  KiStatus st = ki_run(a, kir, &l->ki, args, &run, &why);
  *steps += run.steps;
  switch (st) {
  case KI_OK: break;
  case KI_RACE:
  case KI_BOUNDS:
  case KI_DIVERGENCE: emit(msg, "%s", why.data); return RACE_FOUND;
  case KI_NOT_CHECKED: emit(msg, "%s", why.data); return RACE_NOT_CHECKED;
  case KI_ERROR: emit(msg, "%s", why.data); return RACE_ERROR;
  }
  /* the outputs, concatenated: the result in the host layout */
  size_t nout = 0;
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_OUTPUT) nout += (size_t)(plans[i].elements * plans[i].lay->flat);
  double *out = NEWARRAY(a, double, nout ? nout : 1);
  size_t o = 0;
  for (int i = 0; i < k->nparams; i++) {
    if (k->params[i].role != KP_OUTPUT) continue;
    const ParamPlan *plan = &plans[i];
    const KiArg *arg = &args[kparam_arg(k, kparam_buffer_of(k, i))];
    for (int64_t j = 0; j < plan->elements; j++, o += (size_t)plan->lay->flat)
      lay_unpack(plan->lay, arg->bytes + j * plan->lay->bytes, out + o);
  }
  buf_clear(&why);
  /* no reference (race_check_run): the device's values are --check's */
  /* where the program's own float arithmetic makes the reference's double
   * values unreachable (semantic.c, agrees_in_reference_precision), the
   * code must compute the imperative program's float values instead */
  if (s->ref && !semantic_agree(out, nout, s, &why) &&
      !semantic_agree_with(out, nout, semantic_device_values(a, rk->imp, s, limits->max_steps), s)) {
    emit(msg, "it computes other values than the reference interpreter (random inputs, seed %d): %s", SEMANTIC_SEED,
         why.data);
    return RACE_MISMATCH;
  }
  return RACE_OK;
}

/* every launch at one sample's sizes; *checked lists them */
static RaceStatus check_sample(Arena *a, const RaceKernel *rk, const SemanticSample *s, const RaceBudget *budget,
                               int64_t *steps, Buf *checked, Buf *msg) {
  Launch ls[MAX_LAUNCHES];
  Buf why;
  buf_init(&why, a);
  int n = launches(a, rk, &s->nats, budget->variants, ls, &why);
  if (n == 0) {
    emit(checked, "none (the kernel launches no work-item%s%s)", why.len ? ": " : "", why.data ? why.data : "");
    return RACE_OK;
  }
  for (int i = 0; i < n; i++) {
    const Launch *l = &ls[i];
    const KirKernel *kir = rk->kir;
    if (!l->emitted) {
      /* the code generated for this launch, its diagnostics kept apart */
      ImpKernel kc = *rk->k;
      Diag d;
      diag_init(&d, a);
      kc.diag = &d;
      Buf text;
      buf_init(&text, a);
      KernelFacts facts;
      memset(&facts, 0, sizeof facts);
      if (!codegen_kernel(a, rk->tc, &kc, &l->copt, &text, &facts) || !facts.printed_kir) continue;
      kir = kernel_facts_kir(&facts);
    }
    if (rk->drop_barriers) kir = race_drop_barriers(a, kir);
    KiLimits lim = budget->limits;
    lim.max_steps = budget->max_steps - *steps;
    buf_clear(&why);
    RaceStatus st = run_launch(a, rk, s, l, kir, &lim, steps, &why);
    if (st == RACE_NOT_CHECKED && checked->len && *steps >= budget->max_steps) {
      /* the budget is spent: the launches checked stand, the others are
       * said to be left out */
      emit(checked, "; not checked (over the budget of %" PRId64 " steps):", budget->max_steps);
      for (int j = i; j < n; j++) {
        buf_puts(checked, j > i ? ", " : " ");
        print_launch(checked, &ls[j].ki);
      }
      return RACE_OK;
    }
    if (st != RACE_OK) {
      emit(msg, "kernel '%s' at ", rk->k->name);
      semantic_print_sizes(msg, &s->nats);
      emit(msg, ", launch ");
      print_launch(msg, &l->ki);
      if (l->emitted) {
        emit(msg, " (the code emitted): %s", why.data);
      } else {
        buf_puts(msg, " (the code 'dpia translate");
        for (int w = 0; w < 2; w++) {
          const int64_t *v = w ? l->copt.global_size : l->copt.local_size;
          if (!v[0]) continue;
          emit(msg, " --%s-size=", w ? "global" : "local");
          for (int d = 0; d < l->ki.ndims; d++) emit(msg, "%s%" PRId64, d ? "," : "", v[d]);
        }
        emit(msg, "' emits): %s", why.data);
      }
      return st;
    }
    emit(checked, "%s", checked->len ? "; " : "");
    print_launch(checked, &l->ki);
  }
  return RACE_OK;
}

RaceStatus race_check(Arena *a, const RaceKernel *rk, const SemanticSample *sample, const RaceBudget *budget,
                      Buf *message) {
  int64_t steps = 0;
  Buf first, second;
  buf_init(&first, a);
  buf_init(&second, a);
  RaceStatus st = check_sample(a, rk, sample, budget, &steps, &first, message);
  if (st != RACE_OK) return st;
  /* larger sizes, when that was cheap: loops of more than one iteration
   * (and work-items at all, where the smallest sizes launch none) */
  SemanticSample larger;
  bool more = false;
  if ((steps == 0 || steps < budget->raise_steps) && steps < budget->max_steps && rk->def) {
    Buf why;
    buf_init(&why, a);
    if (semantic_sample(a, rk->def, rk->body, rk->imp, budget->raise, rk->semantic, &larger, &why) == SEM_OK) {
      bool same = larger.nats.n == sample->nats.n;
      for (int j = 0; same && j < larger.nats.n; j++) same = larger.nats.values[j] == sample->nats.values[j];
      if (!same) {
        buf_clear(&why);
        st = check_sample(a, rk, &larger, budget, &steps, &second, &why);
        if (st == RACE_FOUND || st == RACE_MISMATCH || st == RACE_ERROR) {
          buf_puts(message, why.data);
          return st;
        }
        more = st == RACE_OK;
      }
    }
  }
  if (steps == 0) {
    buf_puts(message, "the kernel launches no work-item at ");
    semantic_print_sizes(message, &sample->nats);
    if (more) {
      buf_puts(message, " nor at ");
      semantic_print_sizes(message, &larger.nats);
    }
    return RACE_NOT_CHECKED;
  }
  emit(message, "no race, no access out of bounds, the reference's values: at ");
  semantic_print_sizes(message, &sample->nats);
  emit(message, " in launches %s", first.data);
  if (more) {
    emit(message, "; at ");
    semantic_print_sizes(message, &larger.nats);
    emit(message, " in launches %s", second.data);
  }
  emit(message, " (%" PRId64 " interpreter steps)", steps);
  return RACE_OK;
}

RaceStatus race_check_run(Arena *a, const RaceKernel *rk, const SemanticSample *run, const RaceBudget *budget,
                          Buf *message) {
  RaceBudget one = *budget;
  one.variants = false; /* the launch the run makes, no other */
  int64_t steps = 0;
  Buf checked;
  buf_init(&checked, a);
  RaceStatus st = check_sample(a, rk, run, &one, &steps, &checked, message);
  if (st != RACE_OK) return st;
  if (steps == 0) {
    emit(message, "the kernel launches no work-item at ");
    semantic_print_sizes(message, &run->nats);
    return RACE_NOT_CHECKED;
  }
  emit(message, "no race, no access out of bounds, no barrier divergence: at ");
  semantic_print_sizes(message, &run->nats);
  emit(message, " in launch %s (%" PRId64 " interpreter steps)", checked.data, steps);
  return RACE_OK;
}
