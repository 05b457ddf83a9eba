/* pipe_run.c: `dpia run` of a pipeline (pipe_run.h, docs/language.md
 * section 8).
 *
 * The program holding every kernel is built once; the pipeline's buffers
 * (inputs uploaded, output and temporaries poisoned with NaN so that an
 * element no kernel writes fails the check) live on the device for the
 * whole run; each launch is a kernel object with its arguments bound as the
 * description says.  A run launches every kernel in order (the target's
 * launch_all) and waits for the last one; its time is from the start of
 * the first kernel to the end of the last, so the gaps between kernels
 * count, and the host's work between runs does not.
 *
 * A launch whose NDRange has no work-item at these sizes (a kernel over
 * ceil(N/64) groups at N = 0) follows a single kernel's rule, stage by
 * stage: it is left out when every buffer it writes is empty (a later
 * stage reading that buffer reads nothing, and a reduction over it gives
 * the value the program starts it from), and the pipeline is refused
 * before anything runs when one is not, naming the launch and the output
 * no work-item would write (docs/reference.md, "Sizes that do not
 * divide"). */
#include "pipe_run.h"
#include "run_limits.h"

#include <inttypes.h>
#include <string.h>

#include "runtime_int.h"

typedef struct PR {
  Runtime *rt;
  Arena *a;
  const PipeDesc *d;
  const NatValues *nats;
  Buf *err;
  TargetBuffer **bufs; /* per pipeline buffer, in pipeline_slot's order: outputs, inputs, temporaries */
  ParamPlan *plans; /* the same */
  RtPackCache *packs; /* RtLaunch.packs */
} PR;

/* the values of launch li's kernel's nat parameters, by their names */
static bool kernel_nats(PR *r, int li, NatValues *out) {
  const PipeLaunchDesc *l = &r->d->launches[li];
  const char **names = NEWARRAY(r->a, const char *, l->k->nparams + 1);
  int64_t *values = NEWARRAY(r->a, int64_t, l->k->nparams + 1);
  int n = 0;
  Buf why;
  buf_init(&why, r->a);
  for (int i = 0; i < l->k->nparams; i++) {
    if (l->binds[i].kind != PBIND_NAT) continue;
    names[n] = l->k->params[i].name;
    if (!nat_eval_size(l->binds[i].size, r->nats, &values[n], &why) || values[n] < 0 || values[n] > INT32_MAX) {
      emit(r->err, "size %s of launch %d (kernel %s): %s", names[n], li, l->k->name,
           why.len ? why.data : arena_printf(r->a, "not an %s int", r->rt->target->title));
      return false;
    }
    n++;
  }
  *out = (NatValues){n, names, values};
  return true;
}

/* the device buffers of the pipeline: inputs (the values given, one per
 * data parameter in declaration order), output and temporaries */
static RtStatus make_buffers(PR *r, int ninputs, const double *const *inputs, const size_t *counts) {
  const PipeDesc *d = r->d;
  int nin = d->pipe->def->nparams, nout = d->pipe->noutputs;
  int n = nout + nin + d->ntemps;
  r->bufs = NEWARRAY(r->a, TargetBuffer *, n);
  r->plans = NEWARRAY(r->a, ParamPlan, n);
  if (ninputs != nin) {
    emit(r->err, "pipeline %s takes %d inputs, %d given", d->iface.name, nin, ninputs);
    return RT_BAD_ARGS;
  }
  int placed[BUF_USE_COUNT] = {0}; /* the buffers of each use made so far (placement.h) */
  for (int s = 0; s < n; s++) {
    const KParam *p = s < nout + nin ? &d->iface.params[s] : &d->temps[s - nout - nin];
    RtStatus st = rt_param_layout(r->a, p, r->nats, &r->plans[s], r->err);
    if (st != RT_OK) return st;
    ParamPlan *plan = &r->plans[s];
    if (s >= nout && s < nout + nin) {
      if (counts[s - nout] != (size_t)(plan->elements * plan->lay->flat)) {
        emit(r->err, "input %s of pipeline %s: %zu values given, %" PRId64 " expected", p->name, d->iface.name,
             counts[s - nout], plan->elements * plan->lay->flat);
        return RT_BAD_ARGS;
      }
      plan->host = inputs[s - nout];
      if (p->role == KP_SCALAR) {
        plan->packed = rt_pack_all(r->a, plan, plan->host);
        continue; /* passed by value */
      }
    } else {
      plan->packed = rt_poisoned(r->a, plan);
    }
    /* an input's bytes are only read (the outputs' hold what is read back) */
    const unsigned char *init = plan->packed ? plan->packed : rt_pack_input(r->a, r->packs, plan);
    Buf why;
    buf_init(&why, r->a);
    st = r->rt->target->buffer(r->rt->dev, r->a, plan->bytes, init, rt_place(placed, rt_buffer_use(p->role)),
                               &r->bufs[s], &why);
    if (st != RT_OK) {
      emit(r->err, "buffer %s (%zu bytes): %s", p->name, plan->bytes, why.data);
      return st;
    }
  }
  return RT_OK;
}

/* the parameter of the pipeline's buffer s, in pipeline_slot's order */
static const KParam *slot_param(const PR *r, int s) {
  int named = r->d->pipe->noutputs + r->d->pipe->def->nparams;
  return s < named ? &r->d->iface.params[s] : &r->d->temps[s - named];
}

/* launch li has no work-item in dimension dim: RT_OK when every buffer it
 * writes is empty (the launch is left out), else RT_EMPTY_RANGE naming
 * the first one that is not */
static RtStatus empty_launch(PR *r, int li, int dim) {
  const PipeLaunchDesc *l = &r->d->launches[li];
  for (int i = 0; i < l->k->nparams; i++) {
    if (l->k->params[i].role != KP_OUTPUT || l->binds[i].kind != PBIND_BUFFER) continue;
    int s = pipeline_slot(r->d->pipe, l->binds[i].buf);
    if (r->plans[s].elements == 0) continue;
    emit(r->err, "pipeline %s, launch %d (kernel %s): ", r->d->iface.name, li, l->k->name);
    rt_refuse_empty(r->err,
                    dim,
                    arena_printf(r->a, "%s (buffer %s)", kparam_name(&l->k->params[i]), kparam_name(slot_param(r, s))),
                    r->plans[s].elements);
    return RT_EMPTY_RANGE;
  }
  return RT_OK;
}

/* launch li's kernel object with its arguments, and its NDRange; *kern
 * NULL and range its natural sizes for a launch left out (empty_launch) */
static RtStatus make_launch(PR *r, TargetProgram *prog, int li, TargetKernel **kern, TargetRange *range) {
  const Target *t = r->rt->target;
  const PipeLaunchDesc *l = &r->d->launches[li];
  const ImpKernel *k = l->k;
  NatValues kn;
  if (!kernel_nats(r, li, &kn)) return RT_BAD_ARGS;
  RtResult sizes;
  memset(&sizes, 0, sizeof sizes);
  int empty = rt_empty_dimension(k, &kn, NULL, r->a);
  if (empty >= 0) {
    *kern = NULL;
    rt_natural_range(k, &kn, r->a, &sizes);
    *range = rt_range(&sizes);
    return empty_launch(r, li, empty);
  }
  RtLaunch natural;
  rt_launch_init(&natural);
  RtStatus st = rt_launch_sizes(k, &kn, &natural, &sizes, r->err);
  if (st != RT_OK) return st;
  *range = rt_range(&sizes);
  int nargs;
  st = t->kernel(prog, r->a, k->name, kern, &nargs, r->err);
  if (st != RT_OK) return st;
  Buf why;
  buf_init(&why, r->a);
  int nat = 0;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    const PipeBind *b = &l->binds[i];
    switch (b->kind) {
    case PBIND_NAT: {
      int32_t v = (int32_t)kn.values[nat++];
      st = t->arg_value(*kern, i, &v, sizeof v, &why);
      break;
    }
    case PBIND_LOCAL: {
      ParamPlan plan;
      st = rt_param_layout(r->a, p, &kn, &plan, r->err);
      if (st != RT_OK) return st;
      st = t->arg_local(*kern, i, plan.bytes, &why);
      break;
    }
    case PBIND_BUFFER: {
      int s = pipeline_slot(r->d->pipe, b->buf);
      if (p->role == KP_SCALAR)
        st = t->arg_value(*kern, i, r->plans[s].packed, r->plans[s].bytes, &why);
      else
        st = t->arg_buffer(*kern, i, r->bufs[s], &why);
      break;
    }
    }
    if (st != RT_OK) {
      emit(r->err, "kernel %s, argument %d (%s): %s", k->name, i, p->name, why.data);
      return st;
    }
  }
  /* what it needs of the device, its arguments set (run_limits.h) */
  TargetKernelInfo ki;
  st = t->kernel_info(r->rt->dev, *kern, &ki, r->err);
  if (st == RT_OK) st = run_check_built(r->rt, k->name, &ki, range, r->err);
  return st;
}

/* the outputs (slots 0 .. noutputs), one after another in res->output
 * as the reference's value holds them (a pair: the first array, then the
 * second), as rt_run reads a kernel's */
static RtStatus read_outputs(PR *r, RtResult *res) {
  int nout = r->d->pipe->noutputs;
  size_t total = 0;
  for (int o = 0; o < nout; o++) total += (size_t)(r->plans[o].elements * r->plans[o].lay->flat);
  res->noutputs = nout;
  res->output = NEWARRAY(r->a, double, total ? total : 1);
  res->output_count = total;
  res->outputs = NEWARRAY(r->a, double *, nout);
  res->output_counts = NEWARRAY(r->a, size_t, nout);
  size_t at = 0;
  for (int o = 0; o < nout; o++) {
    ParamPlan *plan = &r->plans[o];
    RtStatus st = r->rt->target->read(r->rt->dev, r->bufs[o], plan->packed, plan->bytes, r->err);
    if (st != RT_OK) {
      emit(r->err, " (%s)", r->d->iface.params[o].name);
      return st;
    }
    res->outputs[o] = res->output + at;
    res->output_counts[o] = (size_t)(plan->elements * plan->lay->flat);
    for (int64_t j = 0; j < plan->elements; j++)
      lay_unpack(plan->lay, plan->packed + j * plan->lay->bytes, res->outputs[o] + j * plan->lay->flat);
    at += res->output_counts[o];
  }
  return RT_OK;
}

/* one run of the pipeline's launches, for rt_time_launches */
typedef struct PipeTimer {
  Runtime *rt;
  int n;
  TargetKernel *const *kerns;
  const TargetRange *ranges;
} PipeTimer;

static RtStatus pipe_launch(void *user, double *ms, Buf *err) {
  PipeTimer *pt = user;
  return pt->rt->target->launch_all(pt->rt->dev, pt->n, pt->kerns, pt->ranges, ms, err);
}

RtStatus rt_run_pipeline(Runtime *rt, Arena *a, const PipeDesc *d, const char *source, const NatValues *nats,
                         int ninputs, const double *const *inputs, const size_t *counts, const RtLaunch *launch,
                         RtResult *res, Buf *err) {
  memset(res, 0, sizeof *res);
  PR r = {rt, a, d, nats, err, NULL, NULL, launch->packs};
  int repeat = launch->repeat;
  int n = d->nlaunches;
  const Target *t = rt->target;
  TargetProgram *prog = NULL;
  TargetKernel **kerns = NEWARRAY(a, TargetKernel *, n > 0 ? n : 1);
  TargetRange *ranges = NEWARRAY(a, TargetRange, n > 0 ? n : 1);
  RtStatus st = make_buffers(&r, ninputs, inputs, counts);
  if (st == RT_OK) st = t->build(rt->dev, a, arena_printf(a, "pipeline %s", d->iface.name), source, NULL, &prog, err);
  for (int li = 0; li < n && st == RT_OK; li++) {
    st = make_launch(&r, prog, li, &kerns[li], &ranges[li]);
    if (st == RT_EMPTY_RANGE) res->empty_launch = li;
  }
  /* the launches that run, in order: those with a work-item */
  TargetKernel **run_kerns = NEWARRAY(a, TargetKernel *, n > 0 ? n : 1);
  TargetRange *run_ranges = NEWARRAY(a, TargetRange, n > 0 ? n : 1);
  res->skipped = NEWARRAY(a, bool, n > 0 ? n : 1);
  int nrun = 0;
  for (int li = 0; li < n && st == RT_OK; li++) {
    res->skipped[li] = !kerns[li];
    if (!kerns[li]) continue;
    run_kerns[nrun] = kerns[li];
    run_ranges[nrun++] = ranges[li];
  }
  if (st == RT_OK && nrun > 0) {
    res->repeat = repeat > 0 ? repeat : 1;
    res->times_ms = NEWARRAY(a, double, res->repeat);
    PipeTimer pt = {rt, nrun, run_kerns, run_ranges};
    RtTimer tm = {&pt, pipe_launch, NULL, launch->cut_ms}; /* every run starts from the inputs: nothing to restore */
    st = rt_time_launches(&tm, &res->repeat, res->times_ms, err);
  }
  if (st == RT_OK) {
    if (nrun > 0) rt_time_stats(a, res); /* else nothing ran: no times (repeat 0) */
    /* the report's NDRange: the last launch's */
    const TargetRange *last = &ranges[n - 1];
    res->ndims = last->ndims;
    res->has_local = last->has_local;
    memcpy(res->global_size, last->global_size, sizeof res->global_size);
    memcpy(res->local_size, last->local_size, sizeof res->local_size);
    st = read_outputs(&r, res);
  }
  /* release everything, whatever happened: a failure to release is not
   * reported, the run's result stands */
  Buf ignored;
  buf_init(&ignored, a);
  for (int li = 0; li < n; li++)
    if (kerns[li]) t->release_kernel(kerns[li], &ignored);
  t->release_program(prog, &ignored);
  for (int s = 0; r.bufs && s < d->pipe->noutputs + d->pipe->def->nparams + d->ntemps; s++)
    t->release_buffer(r.bufs[s], &ignored);
  return st;
}
