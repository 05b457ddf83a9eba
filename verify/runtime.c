/* runtime.c: the host side of `dpia run` (runtime.h), through a Target. */
#include "runtime.h"
#include "run_limits.h"
#include "runtime_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

RtStatus rt_open(Runtime *rt, const Target *t, Arena *a, int platform_index, int device_index, Buf *err) {
  memset(rt, 0, sizeof *rt);
  rt->target = t;
  return t->open(a, platform_index, device_index, &rt->dev, &rt->info, err);
}

void rt_close(Runtime *rt) {
  if (rt->dev) rt->target->close(rt->dev);
  rt->dev = NULL;
}

RtStatus rt_list_devices(const Target *t, Arena *a, Buf *out, Buf *err) { return t->list_devices(a, out, err); }

void rt_launch_init(RtLaunch *l) {
  memset(l, 0, sizeof *l);
  l->repeat = 1;
}

/* ---- running a kernel ---- */

RtStatus rt_param_layout(Arena *a, const KParam *p, const NatValues *nats, ParamPlan *plan, Buf *err) {
  Buf why;
  buf_init(&why, a);
  const DataType *t = p->role == KP_SCALAR ? p->type : p->elem;
  if (!t) {
    emit(err, "kernel parameter %s has no element type", kparam_name(p));
    return RT_BAD_ARGS;
  }
  plan->lay = kparam_packed3(p) ? lay_of_buffer_element(a, t, nats, &why) : lay_of(a, t, nats, &why);
  if (!plan->lay) {
    emit(err, "kernel parameter %s: %s", kparam_name(p), why.data);
    return RT_BAD_ARGS;
  }
  plan->elements = 1;
  if (p->role == KP_SCALAR) {
    plan->bytes = (size_t)plan->lay->bytes;
    return RT_OK;
  }
  if (!nat_eval_size(p->elements, nats, &plan->elements, &why)) {
    emit(err, "kernel parameter %s: %s", kparam_name(p), why.data);
    return RT_BAD_ARGS;
  }
  if (plan->elements < 0 || (plan->lay->bytes > 0 && plan->elements > (INT64_MAX / 4) / plan->lay->bytes)) {
    emit(err, "kernel parameter %s: %" PRId64 " elements is not a valid buffer size", kparam_name(p), plan->elements);
    return RT_BAD_ARGS;
  }
  plan->bytes = (size_t)(plan->elements * plan->lay->bytes);
  return RT_OK;
}

unsigned char *rt_pack_all(Arena *a, const ParamPlan *plan, const double *src) {
  unsigned char *dst = arena_alloc(a, plan->bytes ? plan->bytes : 1);
  for (int64_t i = 0; i < plan->elements; i++)
    lay_pack(plan->lay, src + i * plan->lay->flat, dst + i * plan->lay->bytes);
  return dst;
}

const unsigned char *rt_pack_input(Arena *a, RtPackCache *cache, const ParamPlan *plan) {
  if (!cache) return rt_pack_all(a, plan, plan->host);
  for (int i = 0; i < cache->n; i++) {
    const RtPacked *e = &cache->entries[i];
    if (e->host == plan->host && e->elements == plan->elements && lay_same(e->lay, plan->lay)) return e->packed;
  }
  if (cache->n == RT_PACKED_MAX) return rt_pack_all(a, plan, plan->host);
  RtPacked *e = &cache->entries[cache->n++];
  *e = (RtPacked){plan->host, lay_copy(cache->arena, plan->lay), plan->elements,
                  rt_pack_all(cache->arena, plan, plan->host)};
  return e->packed;
}

/* every element NaN (INT32_MIN in int lanes) */
unsigned char *rt_poisoned(Arena *a, const ParamPlan *plan) {
  double *nans = NEWARRAY(a, double, plan->lay->flat > 0 ? plan->lay->flat : 1);
  for (int64_t j = 0; j < plan->lay->flat; j++) nans[j] = NAN;
  unsigned char *one = arena_alloc(a, (size_t)plan->lay->bytes + 1);
  lay_pack(plan->lay, nans, one);
  unsigned char *dst = arena_alloc(a, plan->bytes ? plan->bytes : 1);
  for (int64_t i = 0; i < plan->elements; i++) memcpy(dst + i * plan->lay->bytes, one, (size_t)plan->lay->bytes);
  return dst;
}

RtStatus rt_launch_sizes(const ImpKernel *k, const NatValues *nats, const RtLaunch *launch, RtResult *res, Buf *err) {
  int ndims = k->ndims > 0 ? k->ndims : 1;
  bool has_local = k->has_local;
  for (int d = 0; d < 3; d++) {
    if (launch->global_size[d] < 0 || launch->local_size[d] < 0) {
      emit(err, "launch size of dimension %d is negative", d);
      return RT_BAD_ARGS;
    }
    if (launch->global_size[d] > 0 || launch->local_size[d] > 0) {
      if (d + 1 > ndims) ndims = d + 1;
    }
    if (launch->local_size[d] > 0) has_local = true;
  }
  Buf why;
  buf_init(&why, err->arena);
  for (int d = 0; d < ndims; d++) {
    int64_t g = launch->global_size[d], l = launch->local_size[d];
    if (g == 0) {
      g = 1;
      if (d < k->ndims && !nat_eval_size(k->global_size[d], nats, &g, &why)) {
        emit(err, "global size of dimension %d: %s", d, why.data);
        return RT_BAD_ARGS;
      }
    }
    if (l == 0) {
      l = 1;
      if (k->has_local && d < k->ndims && !nat_eval_size(k->local_size[d], nats, &l, &why)) {
        emit(err, "local size of dimension %d: %s", d, why.data);
        return RT_BAD_ARGS;
      }
    }
    if (g < 1 || l < 1) {
      emit(err, "%s size %" PRId64 " of dimension %d is not positive", g < 1 ? "global" : "local", g < 1 ? g : l, d);
      return RT_BAD_ARGS;
    }
    if (has_local && g % l != 0) {
      emit(err, "global size %" PRId64 " of dimension %d is not a multiple of the local size %" PRId64, g, d, l);
      return RT_BAD_ARGS;
    }
    res->global_size[d] = (size_t)g;
    res->local_size[d] = (size_t)l;
  }
  res->ndims = ndims;
  res->has_local = has_local;
  return RT_OK;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* the stream of input values, checked against what the parameters take */
static RtStatus plan_inputs(const ImpKernel *k, ParamPlan *plans, int ninputs, const double *const *inputs,
                            const size_t *counts, Arena *a, Buf *err) {
  size_t total = 0, need = 0;
  for (int i = 0; i < ninputs; i++) total += counts[i];
  for (int i = 0; i < k->nparams; i++) {
    KParamRole r = k->params[i].role;
    if (r == KP_INPUT || r == KP_SCALAR) need += (size_t)(plans[i].elements * plans[i].lay->flat);
  }
  if (total != need) {
    emit(err, "kernel %s takes %zu input values (in the host layout), %zu given", k->name, need, total);
    return RT_BAD_ARGS;
  }
  /* each parameter one of the inputs, in order: read in place (a search's
   * runs share them, and RtPackCache knows them by their address) */
  int next = 0;
  bool each = true;
  for (int i = 0; i < k->nparams && each; i++) {
    KParamRole r = k->params[i].role;
    if (r != KP_INPUT && r != KP_SCALAR) continue;
    each = next < ninputs && counts[next] == (size_t)(plans[i].elements * plans[i].lay->flat);
    if (each) plans[i].host = inputs[next++];
  }
  if (each && next == ninputs) return RT_OK;
  double *stream = NEWARRAY(a, double, total ? total : 1);
  size_t at = 0;
  for (int i = 0; i < ninputs; i++) {
    if (counts[i]) memcpy(stream + at, inputs[i], sizeof(double) * counts[i]);
    at += counts[i];
  }
  at = 0;
  for (int i = 0; i < k->nparams; i++) {
    KParamRole r = k->params[i].role;
    if (r != KP_INPUT && r != KP_SCALAR) continue;
    plans[i].host = stream + at;
    at += (size_t)(plans[i].elements * plans[i].lay->flat);
  }
  return RT_OK;
}

/* the program and its kernel k->name, which must take the interface's parameters */
static RtStatus build(Runtime *rt, Arena *a, const ImpKernel *k, const char *source, const char *options,
                      TargetProgram **prog, TargetKernel **kern, Buf *err) {
  const Target *t = rt->target;
  RtStatus st = t->build(rt->dev, a, arena_printf(a, "kernel %s", k->name), source, options, prog, err);
  if (st != RT_OK) return st;
  int nargs = 0;
  st = t->kernel(*prog, a, k->name, kern, &nargs, err);
  if (st != RT_OK) return st;
  if (nargs != kparam_nargs(k)) {
    emit(err, "kernel %s takes %d arguments, but its interface lists %d parameters%s", k->name, nargs, kparam_nargs(k),
         k->in_place ? " (and an output in place of one, no argument)" : "");
    return RT_BAD_ARGS;
  }
  return RT_OK;
}

BufferUse rt_buffer_use(KParamRole role) {
  switch (role) {
  case KP_INPUT: return BUF_INPUT;
  case KP_OUTPUT: return BUF_OUTPUT;
  case KP_TEMP: return BUF_TEMP;
  case KP_SCALAR:
  case KP_NAT:
  case KP_LOCAL: break;
  }
  INTERNAL("kernel parameter role %d has no buffer", (int)role);
}

BufferPlace rt_place(int made[BUF_USE_COUNT], BufferUse use) { return (BufferPlace){use, made[use]++}; }

/* The one buffer of an in-place kernel's output j and the input it
 * updates (docs/language.md section 27), holding the input: bufs[j], the
 * argument of the input (the output is no argument: kparam_arg;
 * bufs[updated[j]] stays NULL, released once). */
static RtStatus in_place_buffer(Runtime *rt, Arena *a, const ImpKernel *k, int j, ParamPlan *plans,
                                TargetKernel *kern, TargetBuffer **bufs, Buf *err) {
  const Target *t = rt->target;
  ParamPlan *in = &plans[k->updated[j]];
  Buf why;
  buf_init(&why, a);
  plans[j].packed = rt_pack_all(a, in, in->host);
  RtStatus st = t->buffer(rt->dev, a, plans[j].bytes, plans[j].packed, (BufferPlace){BUF_UPDATED, j}, &bufs[j],
                            &why);
  if (st == RT_OK) st = t->arg_buffer(kern, kparam_arg(k, k->updated[j]), bufs[j], &why);
  if (st != RT_OK)
    emit(err, "buffer %s, updated in place as %s (%zu bytes): %s", kparam_name(&k->params[k->updated[j]]),
         kparam_name(&k->params[j]), plans[j].bytes, why.data);
  return st;
}

/* buffers and arguments */
static RtStatus set_args(Runtime *rt, Arena *a, const ImpKernel *k, const NatValues *nats, ParamPlan *plans,
                         RtPackCache *packs, TargetKernel *kern, TargetBuffer **bufs, Buf *err) {
  const Target *t = rt->target;
  Buf why;
  buf_init(&why, a);
  int placed[BUF_USE_COUNT] = {0}; /* the buffers of each use made so far (placement.h) */
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    ParamPlan *plan = &plans[i];
    int arg = kparam_arg(k, i);
    const char *what = "";
    RtStatus st = RT_OK;
    buf_clear(&why);
    switch (p->role) {
    case KP_INPUT:
    case KP_OUTPUT:
    case KP_TEMP: {
      if (k->in_place && (i < k->nupdated || kparam_is_updated(k, i))) {
        if (i < k->nupdated && (st = in_place_buffer(rt, a, k, i, plans, kern, bufs, err)) != RT_OK) return st;
        continue;
      }
      /* an input's bytes are only read (an output's hold what it reads back) */
      const unsigned char *init = p->role == KP_INPUT ? rt_pack_input(a, packs, plan) : rt_poisoned(a, plan);
      plan->packed = p->role == KP_INPUT ? NULL : (unsigned char *)init;
      st = t->buffer(rt->dev, a, plan->bytes, init, rt_place(placed, rt_buffer_use(p->role)), &bufs[i], &why);
      if (st != RT_OK) {
        emit(err, "buffer %s (%zu bytes): %s", kparam_name(p), plan->bytes, why.data);
        return st;
      }
      st = t->arg_buffer(kern, arg, bufs[i], &why);
      break;
    }
    case KP_SCALAR:
      plan->packed = rt_pack_all(a, plan, plan->host);
      st = t->arg_value(kern, arg, plan->packed, plan->bytes, &why);
      break;
    case KP_NAT: {
      int64_t v;
      if (!nat_lookup((void *)nats, p->name, &v)) {
        emit(err, "no value for the nat parameter %s", p->name);
        return RT_BAD_ARGS;
      }
      /* every target's kernels take nat parameters as a 32-bit int (spec
       * section 8) */
      if (v < 0 || v > INT32_MAX) {
        emit(err, "nat parameter %s = %" PRId64 " does not fit an %s int", p->name, v, t->title);
        return RT_BAD_ARGS;
      }
      int32_t iv = (int32_t)v;
      st = t->arg_value(kern, arg, &iv, sizeof iv, &why);
      break;
    }
    case KP_LOCAL:
      st = t->arg_local(kern, arg, plan->bytes, &why);
      what = " (local memory)";
      break;
    default: INTERNAL("bad kernel parameter role %d", (int)p->role);
    }
    if (st != RT_OK) {
      emit(err, "argument %d (%s): %s%s", arg, kparam_name(p), why.data, what);
      return st;
    }
  }
  return RT_OK;
}

TargetRange rt_range(const RtResult *res) {
  TargetRange r = {res->ndims, {0}, {0}, res->has_local};
  memcpy(r.global_size, res->global_size, sizeof r.global_size);
  memcpy(r.local_size, res->local_size, sizeof r.local_size);
  return r;
}

/* The inputs an in-place kernel updates (docs/language.md section 27),
 * each as it was before the first launch, for the launches after it: a
 * kernel run again on its own result would sweep values that drift from
 * one run to the next (a scaling overflows to inf, a recurrence grows or
 * turns denormal), and time something other than one run on the input
 * (docs/tune.md, "adi").  pristine[j] is a
 * read-only copy of output j's buffer, made once; NULL (the device could
 * not make it) restores by making that buffer again from the host. */
typedef struct Restore {
  const ImpKernel *k;
  ParamPlan *plans;
  TargetKernel *kern;
  TargetBuffer **bufs, **pristine;
} Restore;

/* the copies of an in-place kernel's inputs to restore them from (it is
 * always launched more than once: rt_time_launches' first launch is not
 * timed; none for another kernel) */
static Restore restore_plan(Runtime *rt, Arena *a, const ImpKernel *k, ParamPlan *plans, TargetKernel *kern,
                            TargetBuffer **bufs) {
  Restore rs = {k, plans, kern, bufs, NULL};
  if (!k->in_place) return rs;
  rs.pristine = NEWARRAY(a, TargetBuffer *, k->nupdated > 0 ? k->nupdated : 1);
  Buf ignored;
  buf_init(&ignored, a);
  for (int j = 0; j < k->nupdated; j++)
    if (rt->target->buffer(rt->dev, a, plans[j].bytes, plans[j].packed, (BufferPlace){BUF_INPUT, j}, &rs.pristine[j],
                           &ignored) != RT_OK)
      rs.pristine[j] = NULL; /* the fallback: from the host */
  return rs;
}

/* each input rs's kernel updates as it was before the first launch,
 * untimed */
static RtStatus restore_inputs(Runtime *rt, Arena *a, const Restore *rs, Buf *err) {
  const Target *t = rt->target;
  const ImpKernel *k = rs->k;
  for (int j = 0; rs->pristine && j < k->nupdated; j++) {
    Buf why;
    buf_init(&why, a);
    if (rs->pristine[j]) {
      if (rs->plans[j].bytes == 0) continue;
      RtStatus st = t->copy(rt->dev, rs->pristine[j], rs->bufs[j], rs->plans[j].bytes, &why);
      if (st != RT_OK)
        emit(err, "restoring %s before a timed run: %s", kparam_name(&k->params[k->updated[j]]), why.data);
      if (st != RT_OK) return st;
      continue;
    }
    RtStatus st = t->release_buffer(rs->bufs[j], &why);
    rs->bufs[j] = NULL;
    if (st != RT_OK) {
      emit(err, "buffer %s: %s", kparam_name(&k->params[j]), why.data);
      return st;
    }
    st = in_place_buffer(rt, a, k, j, rs->plans, rs->kern, rs->bufs, err);
    if (st != RT_OK) return st;
  }
  return RT_OK;
}

RtStatus rt_time_launches(const RtTimer *tm, int *repeat, double *times, Buf *err) {
  /* The first launch of a kernel in a process pays for what the later ones
   * find done: PoCL makes the work-group function for the launch's local
   * size at the first launch, and the first touch of a buffer's pages
   * faults them in; timed, it made whichever point tune timed first look
   * slow (docs/tune.md, "adi").  A launch that long is not much changed by
   * that, and running it again would spend as long once more. */
  double first = 0;
  RtStatus st = tm->launch(tm->user, &first, err);
  if (st != RT_OK) return st;
  int r = 0, probe = 1;
  if (first >= RT_WARMUP_KEEP_MS) times[r++] = first, probe = 2;
  for (; r < *repeat; r++) {
    /* The probe's cut: the first two launches, the untimed one included,
     * both over cut_ms; the timed ones of the two are the time.  Not the
     * first alone: PoCL makes the work-group function at the first
     * launch, which may then take 100 ms or more (and be kept) where the
     * kernel takes a tenth of a millisecond, and a launch's time on a
     * loaded machine may be another's. */
    if (r == probe && tm->cut_ms > 0 && first > tm->cut_ms && times[probe - 1] > tm->cut_ms) {
      *repeat = r;
      return RT_OK;
    }
    if (tm->restore && (st = tm->restore(tm->user, err)) != RT_OK) return st;
    if ((st = tm->launch(tm->user, &times[r], err)) != RT_OK) return st;
  }
  return RT_OK;
}

/* one launch of a kernel, for rt_time_launches */
typedef struct KernelTimer {
  Runtime *rt;
  Arena *a;
  TargetKernel *kern;
  TargetRange range;
  const Restore *rs;
} KernelTimer;

static RtStatus kernel_launch(void *user, double *ms, Buf *err) {
  KernelTimer *kt = user;
  return kt->rt->target->launch(kt->rt->dev, kt->kern, &kt->range, ms, err);
}

static RtStatus kernel_restore(void *user, Buf *err) {
  KernelTimer *kt = user;
  return restore_inputs(kt->rt, kt->a, kt->rs, err);
}

/* launch->repeat timed launches (rt_time_launches), an in-place kernel's
 * inputs restored (untimed) before each after the first: each is one run
 * on the inputs, and the buffers hold the result of one after the last */
static RtStatus launch_timed(Runtime *rt, Arena *a, TargetKernel *kern, const RtLaunch *launch, const Restore *rs,
                             RtResult *res, Buf *err) {
  int repeat = launch->repeat > 0 ? launch->repeat : 1;
  res->repeat = repeat;
  res->times_ms = NEWARRAY(a, double, repeat);
  KernelTimer kt = {rt, a, kern, rt_range(res), rs};
  RtTimer tm = {&kt, kernel_launch, rs->pristine ? kernel_restore : NULL, launch->cut_ms};
  RtStatus st = rt_time_launches(&tm, &res->repeat, res->times_ms, err);
  if (st == RT_OK) rt_time_stats(a, res);
  return st;
}

void rt_time_stats(Arena *a, RtResult *res) {
  int repeat = res->repeat;
  double *sorted = arena_dup(a, res->times_ms, sizeof(double) * (size_t)repeat);
  qsort(sorted, (size_t)repeat, sizeof(double), cmp_double);
  res->min_ms = sorted[0];
  res->median_ms = repeat % 2 ? sorted[repeat / 2] : (sorted[repeat / 2 - 1] + sorted[repeat / 2]) / 2;
}

static RtStatus read_outputs(Runtime *rt, Arena *a, const ImpKernel *k, ParamPlan *plans, TargetBuffer **bufs,
                             RtResult *res, Buf *err) {
  size_t total = 0;
  for (int i = 0; i < k->nparams; i++) {
    if (k->params[i].role != KP_OUTPUT) continue;
    res->noutputs++;
    total += (size_t)(plans[i].elements * plans[i].lay->flat);
  }
  res->outputs = NEWARRAY(a, double *, res->noutputs ? res->noutputs : 1);
  res->output_counts = NEWARRAY(a, size_t, res->noutputs ? res->noutputs : 1);
  res->output = NEWARRAY(a, double, total ? total : 1);
  res->output_count = total;
  size_t at = 0;
  int o = 0;
  Buf why;
  buf_init(&why, a);
  for (int i = 0; i < k->nparams; i++) {
    if (k->params[i].role != KP_OUTPUT) continue;
    ParamPlan *plan = &plans[i];
    unsigned char *bytes = plan->packed; /* reuse the poisoned host copy */
    RtStatus st = rt->target->read(rt->dev, bufs[i], bytes, plan->bytes, &why);
    if (st != RT_OK) {
      emit(err, "output %s: %s", kparam_name(&k->params[i]), why.data);
      return st;
    }
    double *dst = res->output + at;
    for (int64_t j = 0; j < plan->elements; j++)
      lay_unpack(plan->lay, bytes + j * plan->lay->bytes, dst + j * plan->lay->flat);
    res->outputs[o] = dst;
    res->output_counts[o] = (size_t)(plan->elements * plan->lay->flat);
    at += res->output_counts[o];
    o++;
  }
  return RT_OK;
}

/* after a failed launch: what the kernel needs, as the target says, which
 * a device that ran out of resources (CL_OUT_OF_RESOURCES) did not have */
static void launch_needs(const TargetKernelInfo *ki, Buf *err) {
  if (!ki->local_mem && !ki->private_mem) return;
  emit(err, " (the kernel needs %" PRIu64 " bytes of local memory a work-group, %s", ki->local_mem,
       ki->local_mem_name);
  if (ki->private_mem) emit(err, ", and %" PRIu64 " bytes of private memory a work-item, %s", ki->private_mem,
                            ki->private_mem_name);
  buf_putc(err, ')');
}

int rt_empty_dimension(const ImpKernel *k, const NatValues *nats, const RtLaunch *launch, Arena *a) {
  Buf why;
  buf_init(&why, a);
  for (int d = 0; d < k->ndims && d < 3; d++) {
    int64_t g = 1;
    if ((!launch || launch->global_size[d] == 0) && nat_eval_size(k->global_size[d], nats, &g, &why) && g == 0)
      return d;
  }
  return -1;
}

void rt_refuse_empty(Buf *err, int dim, const char *output, int64_t elements) {
  emit(err, "the NDRange has no work-item at these sizes (global size 0 in dimension %d) but output %s has %" PRId64
            " elements, which no work-item would write",
       dim, output, elements);
}

void rt_natural_range(const ImpKernel *k, const NatValues *nats, Arena *a, RtResult *res) {
  res->ndims = k->ndims;
  res->has_local = k->has_local;
  Buf why;
  buf_init(&why, a);
  for (int d = 0; d < k->ndims && d < 3; d++) {
    int64_t g = 0, l = 0;
    if (nat_eval_size(k->global_size[d], nats, &g, &why)) res->global_size[d] = (size_t)g;
    if (k->has_local && nat_eval_size(k->local_size[d], nats, &l, &why)) res->local_size[d] = (size_t)l;
  }
}

/* the result of a launch with no work-item: every output empty, or an
 * error naming the output that would be left unwritten */
static RtStatus run_nothing(const ImpKernel *k, const NatValues *nats, const ParamPlan *plans, int dim, Arena *a,
                            RtResult *res, Buf *err) {
  for (int i = 0; i < k->nparams; i++) {
    if (k->params[i].role != KP_OUTPUT || plans[i].elements == 0) continue;
    rt_refuse_empty(err, dim, kparam_name(&k->params[i]), plans[i].elements);
    return RT_EMPTY_RANGE;
  }
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_OUTPUT) res->noutputs++;
  res->outputs = NEWARRAY(a, double *, res->noutputs ? res->noutputs : 1);
  res->output_counts = NEWARRAY(a, size_t, res->noutputs ? res->noutputs : 1);
  res->output = NEWARRAY(a, double, 1);
  for (int o = 0; o < res->noutputs; o++) res->outputs[o] = res->output;
  rt_natural_range(k, nats, a, res);
  res->repeat = 0; /* nothing ran: no times */
  return RT_OK;
}

RtStatus rt_run(Runtime *rt, Arena *a, const ImpKernel *k, const char *source, const NatValues *nats, int ninputs,
                const double *const *inputs, const size_t *counts, const RtLaunch *launch, RtResult *res, Buf *err) {
  memset(res, 0, sizeof *res);
  ParamPlan *plans = NEWARRAY(a, ParamPlan, k->nparams > 0 ? k->nparams : 1);
  for (int i = 0; i < k->nparams; i++) {
    if (k->params[i].role == KP_NAT) continue;
    RtStatus st = rt_param_layout(a, &k->params[i], nats, &plans[i], err);
    if (st != RT_OK) return st;
  }
  RtStatus st = plan_inputs(k, plans, ninputs, inputs, counts, a, err);
  int empty = st == RT_OK ? rt_empty_dimension(k, nats, launch, a) : -1;
  if (empty >= 0) return run_nothing(k, nats, plans, empty, a, res, err);
  if (st == RT_OK) st = rt_launch_sizes(k, nats, launch, res, err);
  if (st != RT_OK) return st;

  const Target *t = rt->target;
  TargetProgram *prog = NULL;
  TargetKernel *kern = NULL;
  TargetBuffer **bufs = NEWARRAY(a, TargetBuffer *, k->nparams > 0 ? k->nparams : 1);
  st = build(rt, a, k, source, launch->build_options, &prog, &kern, err);
  if (st == RT_OK) st = set_args(rt, a, k, nats, plans, launch->packs, kern, bufs, err);
  TargetKernelInfo ki;
  memset(&ki, 0, sizeof ki);
  if (st == RT_OK) st = t->kernel_info(rt->dev, kern, &ki, err);
  if (st == RT_OK) {
    TargetRange range = rt_range(res);
    st = run_check_built(rt, k->name, &ki, &range, err);
  }
  Restore rs = {k, plans, kern, bufs, NULL};
  if (st == RT_OK) {
    rs = restore_plan(rt, a, k, plans, kern, bufs);
    st = launch_timed(rt, a, kern, launch, &rs, res, err);
    if (st != RT_OK) launch_needs(&ki, err);
  }
  if (st == RT_OK) st = read_outputs(rt, a, k, plans, bufs, res, err);

  /* release everything, whatever happened; a release's failure is
   * reported when nothing failed before it */
  Buf first, later;
  buf_init(&first, a);
  buf_init(&later, a);
  RtStatus rel = RT_OK;
  for (int j = 0; rs.pristine && j < k->nupdated; j++) {
    RtStatus r = t->release_buffer(rs.pristine[j], rel == RT_OK ? &first : &later);
    if (rel == RT_OK) rel = r;
  }
  for (int i = 0; i <= k->nparams + 1; i++) {
    Buf *why = rel == RT_OK ? &first : &later;
    RtStatus r = i < k->nparams    ? t->release_buffer(bufs[i], why)
                 : i == k->nparams ? t->release_kernel(kern, why)
                                   : t->release_program(prog, why);
    if (rel == RT_OK) rel = r;
  }
  if (st == RT_OK && rel != RT_OK) {
    buf_puts(err, first.data);
    st = rel;
  }
  return st;
}

/* ---- preconditions ---- */

bool rt_check_preconditions(const ImpKernel *k, const NatValues *nats, Buf *err) {
  bool ok = true;
  for (int i = 0; i < k->nprecond; i++) {
    const Precond *p = &k->preconds[i];
    PrecondVerdict v = precond_eval(p, nat_lookup, (void *)nats);
    if (v == PRECOND_HOLDS) continue;
    ok = false;
    buf_puts(err, "precondition ");
    precond_print(err, p, SIZE_SYNTAX_C);
    if (v == PRECOND_FAILS)
      buf_puts(err, " does not hold for");
    else
      emit(err, " cannot be evaluated (%s) for", precond_verdict_reason(v));
    const char *sep = " ";
    for (int j = 0; j < k->nparams; j++) {
      int64_t nv;
      if (k->params[j].role != KP_NAT || !nat_lookup((void *)nats, k->params[j].name, &nv)) continue;
      emit(err, "%s%s = %" PRId64, sep, k->params[j].name, nv);
      sep = ", ";
    }
    buf_putc(err, '\n');
  }
  return ok;
}
