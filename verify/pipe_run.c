/* pipe_run.c: `dpia run` of a pipeline (pipe_run.h, docs/language.md
 * section 8).
 *
 * The program holding every kernel is built once; the pipeline's buffers
 * (inputs uploaded, output and temporaries poisoned with NaN so that an
 * element no kernel writes fails the check) live on the device for the
 * whole run; each launch is a kernel object with its arguments bound as the
 * description says.  A run enqueues every launch in order on the in-order
 * profiling queue and waits for the last one; its time is from the start
 * of the first kernel to the end of the last (profiling events), so the
 * gaps between kernels count, and the host's work between runs does not. */
#include "pipe_run.h"

#include <inttypes.h>
#include <string.h>

#include "runtime_int.h"

typedef struct PR {
  Runtime *rt;
  Arena *a;
  const PipeDesc *d;
  const NatValues *nats;
  Buf *err;
  cl_mem *bufs;     /* per pipeline buffer: [0] output, [1 + i] input i, then temporaries */
  ParamPlan *plans; /* the same */
} PR;

static int slot_of(const PipeDesc *d, PipeBuf b) {
  switch (b.kind) {
  case PB_OUTPUT: return 0;
  case PB_INPUT: return 1 + b.index;
  case PB_TEMP: return 1 + d->pipe->def->nparams + b.index;
  }
  INTERNAL("bad pipeline buffer");
}

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
           why.len ? why.data : "not an OpenCL int");
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
  int nin = d->pipe->def->nparams;
  int n = 1 + nin + d->ntemps;
  r->bufs = NEWARRAY(r->a, cl_mem, n);
  r->plans = NEWARRAY(r->a, ParamPlan, n);
  if (ninputs != nin) {
    emit(r->err, "pipeline %s takes %d inputs, %d given", d->iface.name, nin, ninputs);
    return RT_BAD_ARGS;
  }
  for (int s = 0; s < n; s++) {
    const KParam *p = s <= nin ? &d->iface.params[s] : &d->temps[s - 1 - nin];
    RtStatus st = rt_param_layout(r->a, p, r->nats, &r->plans[s], r->err);
    if (st != RT_OK) return st;
    ParamPlan *plan = &r->plans[s];
    if (s >= 1 && s <= nin) {
      if (counts[s - 1] != (size_t)(plan->elements * plan->lay->flat)) {
        emit(r->err, "input %s of pipeline %s: %zu values given, %" PRId64 " expected", p->name, d->iface.name,
             counts[s - 1], plan->elements * plan->lay->flat);
        return RT_BAD_ARGS;
      }
      plan->host = inputs[s - 1];
      plan->packed = rt_pack_all(r->a, plan, plan->host);
    } else {
      plan->packed = rt_poisoned(r->a, plan);
    }
    if (p->role == KP_SCALAR) continue; /* passed by value */
    cl_int e;
    cl_mem_flags flags = (p->role == KP_INPUT ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE) | CL_MEM_COPY_HOST_PTR;
    r->bufs[s] = clCreateBuffer(r->rt->context, flags, plan->bytes ? plan->bytes : 1, plan->packed, &e);
    if (e != CL_SUCCESS || !r->bufs[s]) {
      r->bufs[s] = NULL;
      emit(r->err, "buffer %s (%zu bytes): ", p->name, plan->bytes);
      return rt_cl_fail(r->err, RT_LAUNCH_FAILED, e, "clCreateBuffer");
    }
  }
  return RT_OK;
}

/* launch li's kernel object with its arguments, and its NDRange */
static RtStatus make_launch(PR *r, cl_program prog, int li, cl_kernel *kern, RtResult *range) {
  const PipeLaunchDesc *l = &r->d->launches[li];
  const ImpKernel *k = l->k;
  NatValues kn;
  if (!kernel_nats(r, li, &kn)) return RT_BAD_ARGS;
  RtLaunch natural;
  rt_launch_init(&natural);
  RtStatus st = rt_launch_sizes(k, &kn, &natural, range, r->err);
  if (st != RT_OK) return st;
  cl_int e;
  *kern = clCreateKernel(prog, k->name, &e);
  if (e != CL_SUCCESS || !*kern) {
    *kern = NULL;
    emit(r->err, "the OpenCL program has no kernel %s: ", k->name);
    return rt_cl_fail(r->err, RT_BUILD_FAILED, e, "clCreateKernel");
  }
  int nat = 0;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    const PipeBind *b = &l->binds[i];
    switch (b->kind) {
    case PBIND_NAT: {
      cl_int v = (cl_int)kn.values[nat++];
      e = clSetKernelArg(*kern, (cl_uint)i, sizeof v, &v);
      break;
    }
    case PBIND_LOCAL: {
      ParamPlan plan;
      st = rt_param_layout(r->a, p, &kn, &plan, r->err);
      if (st != RT_OK) return st;
      e = clSetKernelArg(*kern, (cl_uint)i, plan.bytes ? plan.bytes : 1, NULL);
      break;
    }
    case PBIND_BUFFER: {
      int s = slot_of(r->d, b->buf);
      if (p->role == KP_SCALAR)
        e = clSetKernelArg(*kern, (cl_uint)i, r->plans[s].bytes, r->plans[s].packed);
      else
        e = clSetKernelArg(*kern, (cl_uint)i, sizeof(cl_mem), &r->bufs[s]);
      break;
    }
    }
    if (e != CL_SUCCESS) {
      emit(r->err, "kernel %s, argument %d (%s): ", k->name, i, p->name);
      return rt_cl_fail(r->err, RT_LAUNCH_FAILED, e, "clSetKernelArg");
    }
  }
  return RT_OK;
}

/* one run: every launch in order, timed from the first start to the last end */
static RtStatus run_once(PR *r, cl_kernel *kerns, const RtResult *ranges, double *ms) {
  int n = r->d->nlaunches;
  cl_event first = NULL, last = NULL;
  RtStatus st = RT_OK;
  for (int li = 0; li < n && st == RT_OK; li++) {
    const RtResult *g = &ranges[li];
    cl_event ev = NULL;
    cl_int e = clEnqueueNDRangeKernel(r->rt->queue, kerns[li], (cl_uint)g->ndims, NULL, g->global_size,
                                      g->has_local ? g->local_size : NULL, 0, NULL, &ev);
    if (e != CL_SUCCESS) {
      emit(r->err, "kernel %s: ", r->d->launches[li].k->name);
      st = rt_cl_fail(r->err, RT_LAUNCH_FAILED, e, "clEnqueueNDRangeKernel");
      break;
    }
    if (!first)
      first = ev;
    else if (last)
      clReleaseEvent(last);
    if (ev != first) last = ev;
  }
  if (!last) last = first;
  cl_ulong start = 0, end = 0;
  if (st == RT_OK) {
    cl_int e = clWaitForEvents(1, &last);
    if (e == CL_SUCCESS) e = clFinish(r->rt->queue);
    if (e == CL_SUCCESS) e = clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    if (e == CL_SUCCESS) e = clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    if (e != CL_SUCCESS) st = rt_cl_fail(r->err, RT_LAUNCH_FAILED, e, "waiting for the kernels (one failed?)");
  } else {
    clFinish(r->rt->queue);
  }
  if (last && last != first) clReleaseEvent(last);
  if (first) clReleaseEvent(first);
  *ms = end > start ? (double)(end - start) * 1e-6 : 0.0;
  return st;
}

static RtStatus read_output(PR *r, RtResult *res) {
  ParamPlan *plan = &r->plans[0];
  cl_int e = clEnqueueReadBuffer(r->rt->queue, r->bufs[0], CL_TRUE, 0, plan->bytes ? plan->bytes : 1, plan->packed, 0,
                                 NULL, NULL);
  if (e != CL_SUCCESS) return rt_cl_fail(r->err, RT_LAUNCH_FAILED, e, "clEnqueueReadBuffer (output)");
  size_t total = (size_t)(plan->elements * plan->lay->flat);
  res->noutputs = 1;
  res->output = NEWARRAY(r->a, double, total ? total : 1);
  res->output_count = total;
  for (int64_t j = 0; j < plan->elements; j++)
    lay_unpack(plan->lay, plan->packed + j * plan->lay->bytes, res->output + j * plan->lay->flat);
  res->outputs = NEWARRAY(r->a, double *, 1);
  res->output_counts = NEWARRAY(r->a, size_t, 1);
  res->outputs[0] = res->output;
  res->output_counts[0] = total;
  return RT_OK;
}

RtStatus rt_run_pipeline(Runtime *rt, Arena *a, const PipeDesc *d, const char *source, const NatValues *nats,
                         int ninputs, const double *const *inputs, const size_t *counts, int repeat, RtResult *res,
                         Buf *err) {
  memset(res, 0, sizeof *res);
  PR r = {rt, a, d, nats, err, NULL, NULL};
  int n = d->nlaunches;
  cl_program prog = NULL;
  cl_kernel *kerns = NEWARRAY(a, cl_kernel, n > 0 ? n : 1);
  RtResult *ranges = NEWARRAY(a, RtResult, n > 0 ? n : 1);
  RtStatus st = make_buffers(&r, ninputs, inputs, counts);
  if (st == RT_OK)
    st = rt_build_program(rt, a, arena_printf(a, "pipeline %s", d->iface.name), source, NULL, &prog, err);
  for (int li = 0; li < n && st == RT_OK; li++) st = make_launch(&r, prog, li, &kerns[li], &ranges[li]);
  if (st == RT_OK) {
    res->repeat = repeat > 0 ? repeat : 1;
    res->times_ms = NEWARRAY(a, double, res->repeat);
    for (int i = 0; i < res->repeat && st == RT_OK; i++) st = run_once(&r, kerns, ranges, &res->times_ms[i]);
  }
  if (st == RT_OK) {
    rt_time_stats(a, res);
    /* the report's NDRange: the last launch's */
    res->ndims = ranges[n - 1].ndims;
    res->has_local = ranges[n - 1].has_local;
    memcpy(res->global_size, ranges[n - 1].global_size, sizeof res->global_size);
    memcpy(res->local_size, ranges[n - 1].local_size, sizeof res->local_size);
    st = read_output(&r, res);
  }
  /* release everything, whatever happened */
  for (int li = 0; li < n; li++)
    if (kerns[li]) clReleaseKernel(kerns[li]);
  if (prog) clReleaseProgram(prog);
  for (int s = 0; r.bufs && s < 1 + d->pipe->def->nparams + d->ntemps; s++)
    if (r.bufs[s]) clReleaseMemObject(r.bufs[s]);
  return st;
}
