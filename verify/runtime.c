/* runtime.c: the OpenCL host side of `dpia run` (runtime.h). */
#include "runtime.h"
#include "runtime_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *rt_error_name(cl_int code) {
  switch (code) {
#define E(c) \
  case c: return #c;
    E(CL_SUCCESS)
    E(CL_DEVICE_NOT_FOUND)
    E(CL_DEVICE_NOT_AVAILABLE)
    E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    E(CL_OUT_OF_RESOURCES)
    E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE)
    E(CL_MEM_COPY_OVERLAP)
    E(CL_IMAGE_FORMAT_MISMATCH)
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    E(CL_BUILD_PROGRAM_FAILURE)
    E(CL_MAP_FAILURE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE)
    E(CL_LINKER_NOT_AVAILABLE)
    E(CL_LINK_PROGRAM_FAILURE)
    E(CL_DEVICE_PARTITION_FAILED)
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    E(CL_INVALID_VALUE)
    E(CL_INVALID_DEVICE_TYPE)
    E(CL_INVALID_PLATFORM)
    E(CL_INVALID_DEVICE)
    E(CL_INVALID_CONTEXT)
    E(CL_INVALID_QUEUE_PROPERTIES)
    E(CL_INVALID_COMMAND_QUEUE)
    E(CL_INVALID_HOST_PTR)
    E(CL_INVALID_MEM_OBJECT)
    E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    E(CL_INVALID_IMAGE_SIZE)
    E(CL_INVALID_SAMPLER)
    E(CL_INVALID_BINARY)
    E(CL_INVALID_BUILD_OPTIONS)
    E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE)
    E(CL_INVALID_KERNEL_NAME)
    E(CL_INVALID_KERNEL_DEFINITION)
    E(CL_INVALID_KERNEL)
    E(CL_INVALID_ARG_INDEX)
    E(CL_INVALID_ARG_VALUE)
    E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS)
    E(CL_INVALID_WORK_DIMENSION)
    E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE)
    E(CL_INVALID_GLOBAL_OFFSET)
    E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT)
    E(CL_INVALID_OPERATION)
    E(CL_INVALID_GL_OBJECT)
    E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_MIP_LEVEL)
    E(CL_INVALID_GLOBAL_WORK_SIZE)
    E(CL_INVALID_PROPERTY)
    E(CL_INVALID_IMAGE_DESCRIPTOR)
    E(CL_INVALID_COMPILER_OPTIONS)
    E(CL_INVALID_LINKER_OPTIONS)
    E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
  case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
  default: return "unknown";
  }
}

RtStatus rt_cl_fail(Buf *err, RtStatus st, cl_int code, const char *what) {
  emit(err, "OpenCL error %s (%d) in %s", rt_error_name(code), (int)code, what);
  return st;
}

/* ---- platform and device ---- */

static const char *platform_string(Arena *a, cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, NULL, &n) != CL_SUCCESS || n == 0) return "(unknown)";
  char *s = arena_alloc(a, n + 1);
  if (clGetPlatformInfo(p, what, n, s, NULL) != CL_SUCCESS) return "(unknown)";
  s[n] = 0;
  return s;
}

static const char *device_string(Arena *a, cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, NULL, &n) != CL_SUCCESS || n == 0) return "(unknown)";
  char *s = arena_alloc(a, n + 1);
  if (clGetDeviceInfo(d, what, n, s, NULL) != CL_SUCCESS) return "(unknown)";
  s[n] = 0;
  return s;
}

static const char *const no_platform_message =
    "no OpenCL platform found: install an OpenCL implementation (for example PoCL, Debian package "
    "pocl-opencl-icd) and check that it is registered in /etc/OpenCL/vendors";

/* all platforms; RT_UNAVAILABLE with a message if there is none */
static RtStatus get_platforms(Arena *a, cl_platform_id **out, cl_uint *count, Buf *err) {
  cl_uint n = 0;
  cl_int e = clGetPlatformIDs(0, NULL, &n);
  if (e == -1001 || (e == CL_SUCCESS && n == 0)) {
    buf_puts(err, no_platform_message);
    return RT_UNAVAILABLE;
  }
  if (e != CL_SUCCESS) return rt_cl_fail(err, RT_UNAVAILABLE, e, "clGetPlatformIDs");
  cl_platform_id *ps = NEWARRAY(a, cl_platform_id, n);
  e = clGetPlatformIDs(n, ps, NULL);
  if (e != CL_SUCCESS) return rt_cl_fail(err, RT_UNAVAILABLE, e, "clGetPlatformIDs");
  *out = ps;
  *count = n;
  return RT_OK;
}

/* all devices of p (none is not an error here: *count = 0) */
static RtStatus get_devices(Arena *a, cl_platform_id p, cl_device_id **out, cl_uint *count, Buf *err) {
  cl_uint n = 0;
  cl_int e = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
  *count = 0;
  if (e == CL_DEVICE_NOT_FOUND) return RT_OK;
  if (e != CL_SUCCESS) return rt_cl_fail(err, RT_UNAVAILABLE, e, "clGetDeviceIDs");
  cl_device_id *ds = NEWARRAY(a, cl_device_id, n ? n : 1);
  if (n > 0) {
    e = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ds, NULL);
    if (e != CL_SUCCESS) return rt_cl_fail(err, RT_UNAVAILABLE, e, "clGetDeviceIDs");
  }
  *out = ds;
  *count = n;
  return RT_OK;
}

RtStatus rt_list_devices(Arena *a, Buf *out, Buf *err) {
  cl_platform_id *ps;
  cl_uint np;
  RtStatus st = get_platforms(a, &ps, &np, err);
  if (st != RT_OK) return st;
  for (cl_uint i = 0; i < np; i++) {
    emit(out, "Platform #%u: %s\n", i, platform_string(a, ps[i], CL_PLATFORM_NAME));
    cl_device_id *ds;
    cl_uint nd;
    st = get_devices(a, ps[i], &ds, &nd, err);
    if (st != RT_OK) return st;
    for (cl_uint j = 0; j < nd; j++) emit(out, " `-- Device #%u: %s\n", j, device_string(a, ds[j], CL_DEVICE_NAME));
  }
  return RT_OK;
}

RtStatus rt_open(Runtime *rt, Arena *a, int platform_index, int device_index, Buf *err) {
  memset(rt, 0, sizeof *rt);
  cl_platform_id *ps;
  cl_uint np;
  RtStatus st = get_platforms(a, &ps, &np, err);
  if (st != RT_OK) return st;
  if (platform_index < 0 || (cl_uint)platform_index >= np) {
    emit(err, "OpenCL platform %d does not exist: there %s %u platform%s (numbered from 0)", platform_index,
         np == 1 ? "is" : "are", np, np == 1 ? "" : "s");
    return RT_UNAVAILABLE;
  }
  cl_platform_id p = ps[platform_index];
  const char *pname = platform_string(a, p, CL_PLATFORM_NAME);
  cl_device_id *ds;
  cl_uint nd;
  st = get_devices(a, p, &ds, &nd, err);
  if (st != RT_OK) return st;
  if (device_index < 0 || (cl_uint)device_index >= nd) {
    emit(err, "OpenCL device %d does not exist: platform %d (%s) has %u device%s (numbered from 0)", device_index,
         platform_index, pname, nd, nd == 1 ? "" : "s");
    return RT_UNAVAILABLE;
  }
  cl_device_id d = ds[device_index];
  cl_device_fp_config fp64 = 0;
  cl_int e = clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
  if (e != CL_SUCCESS) fp64 = 0; /* no double support reported */
  size_t max_wg = 0;
  e = clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
  if (e != CL_SUCCESS) return rt_cl_fail(err, RT_UNAVAILABLE, e, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
  cl_context ctx = clCreateContext(props, 1, &d, NULL, NULL, &e);
  if (e != CL_SUCCESS || !ctx) return rt_cl_fail(err, RT_UNAVAILABLE, e, "clCreateContext");
  cl_command_queue q = clCreateCommandQueue(ctx, d, CL_QUEUE_PROFILING_ENABLE, &e);
  if (e != CL_SUCCESS || !q) {
    rt_cl_fail(err, RT_UNAVAILABLE, e, "clCreateCommandQueue");
    cl_int e2 = clReleaseContext(ctx);
    if (e2 != CL_SUCCESS) emit(err, "; then %s in clReleaseContext", rt_error_name(e2));
    return RT_UNAVAILABLE;
  }
  rt->platform = p;
  rt->device = d;
  rt->context = ctx;
  rt->queue = q;
  rt->platform_name = pname;
  rt->device_name = device_string(a, d, CL_DEVICE_NAME);
  rt->has_fp64 = fp64 != 0;
  rt->max_work_group_size = max_wg;
  return RT_OK;
}

void rt_close(Runtime *rt) {
  /* release failures leave nothing to recover: the objects are gone or
   * the implementation is broken; either way there is nothing to retry */
  if (rt->queue) {
    cl_int e = clReleaseCommandQueue(rt->queue);
    ASSERT(e == CL_SUCCESS);
  }
  if (rt->context) {
    cl_int e = clReleaseContext(rt->context);
    ASSERT(e == CL_SUCCESS);
  }
  rt->queue = NULL;
  rt->context = NULL;
}

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
    emit(err, "kernel parameter %s has no element type", p->name);
    return RT_BAD_ARGS;
  }
  plan->lay = kparam_packed3(p) ? lay_of_buffer_element(a, t, nats, &why) : lay_of(a, t, nats, &why);
  if (!plan->lay) {
    emit(err, "kernel parameter %s: %s", p->name, why.data);
    return RT_BAD_ARGS;
  }
  plan->elements = 1;
  if (p->role == KP_SCALAR) {
    plan->bytes = (size_t)plan->lay->bytes;
    return RT_OK;
  }
  if (!nat_eval_size(p->elements, nats, &plan->elements, &why)) {
    emit(err, "kernel parameter %s: %s", p->name, why.data);
    return RT_BAD_ARGS;
  }
  if (plan->elements < 0 || (plan->lay->bytes > 0 && plan->elements > (INT64_MAX / 4) / plan->lay->bytes)) {
    emit(err, "kernel parameter %s: %" PRId64 " elements is not a valid buffer size", p->name, plan->elements);
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

RtStatus rt_build_program(Runtime *rt, Arena *a, const char *name, const char *source, const char *options,
                          cl_program *prog, Buf *err) {
  cl_int e;
  *prog = clCreateProgramWithSource(rt->context, 1, &source, NULL, &e);
  if (e != CL_SUCCESS || !*prog) {
    *prog = NULL;
    return rt_cl_fail(err, RT_BUILD_FAILED, e, "clCreateProgramWithSource");
  }
  e = clBuildProgram(*prog, 1, &rt->device, options ? options : "", NULL, NULL);
  if (e != CL_SUCCESS) {
    emit(err, "building the OpenCL program of %s failed (%s)", name, rt_error_name(e));
    size_t n = 0;
    cl_int e2 = clGetProgramBuildInfo(*prog, rt->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    if (e2 == CL_SUCCESS && n > 0) {
      char *log = arena_alloc(a, n + 1);
      e2 = clGetProgramBuildInfo(*prog, rt->device, CL_PROGRAM_BUILD_LOG, n, log, NULL);
      if (e2 == CL_SUCCESS) {
        log[n] = 0;
        emit(err, ":\n%s", log);
        return RT_BUILD_FAILED;
      }
    }
    emit(err, "; no build log (%s)", rt_error_name(e2));
    return RT_BUILD_FAILED;
  }
  return RT_OK;
}

static RtStatus build(Runtime *rt, Arena *a, const ImpKernel *k, const char *source, const char *options,
                      cl_program *prog, cl_kernel *kern, Buf *err) {
  cl_int e;
  RtStatus st = rt_build_program(rt, a, arena_printf(a, "kernel %s", k->name), source, options, prog, err);
  if (st != RT_OK) return st;
  *kern = clCreateKernel(*prog, k->name, &e);
  if (e != CL_SUCCESS || !*kern) {
    *kern = NULL;
    emit(err, "the OpenCL program has no kernel %s: ", k->name);
    return rt_cl_fail(err, RT_BUILD_FAILED, e, "clCreateKernel");
  }
  cl_uint nargs = 0;
  e = clGetKernelInfo(*kern, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
  if (e != CL_SUCCESS) return rt_cl_fail(err, RT_LAUNCH_FAILED, e, "clGetKernelInfo(CL_KERNEL_NUM_ARGS)");
  if ((int)nargs != k->nparams) {
    emit(err, "kernel %s takes %u arguments, but its interface lists %d parameters", k->name, nargs, k->nparams);
    return RT_BAD_ARGS;
  }
  return RT_OK;
}

/* buffers and arguments */
static RtStatus set_args(Runtime *rt, Arena *a, const ImpKernel *k, const NatValues *nats, ParamPlan *plans,
                         cl_kernel kern, cl_mem *mems, Buf *err) {
  cl_int e;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    ParamPlan *plan = &plans[i];
    const char *what = "clSetKernelArg";
    switch (p->role) {
    case KP_INPUT:
    case KP_OUTPUT:
    case KP_TEMP: {
      plan->packed = p->role == KP_INPUT ? rt_pack_all(a, plan, plan->host) : rt_poisoned(a, plan);
      cl_mem_flags flags = (p->role == KP_INPUT ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE) | CL_MEM_COPY_HOST_PTR;
      mems[i] = clCreateBuffer(rt->context, flags, plan->bytes ? plan->bytes : 1, plan->packed, &e);
      if (e != CL_SUCCESS || !mems[i]) {
        mems[i] = NULL;
        emit(err, "buffer %s (%zu bytes): ", p->name, plan->bytes);
        return rt_cl_fail(err, RT_LAUNCH_FAILED, e, "clCreateBuffer");
      }
      e = clSetKernelArg(kern, (cl_uint)i, sizeof(cl_mem), &mems[i]);
      break;
    }
    case KP_SCALAR:
      plan->packed = rt_pack_all(a, plan, plan->host);
      e = clSetKernelArg(kern, (cl_uint)i, plan->bytes, plan->packed);
      break;
    case KP_NAT: {
      int64_t v;
      if (!nat_lookup((void *)nats, p->name, &v)) {
        emit(err, "no value for the nat parameter %s", p->name);
        return RT_BAD_ARGS;
      }
      if (v < 0 || v > INT32_MAX) {
        emit(err, "nat parameter %s = %" PRId64 " does not fit an OpenCL int", p->name, v);
        return RT_BAD_ARGS;
      }
      cl_int iv = (cl_int)v;
      e = clSetKernelArg(kern, (cl_uint)i, sizeof iv, &iv);
      break;
    }
    case KP_LOCAL:
      e = clSetKernelArg(kern, (cl_uint)i, plan->bytes ? plan->bytes : 1, NULL);
      what = "clSetKernelArg (local memory)";
      break;
    default: INTERNAL("bad kernel parameter role %d", (int)p->role);
    }
    if (e != CL_SUCCESS) {
      emit(err, "argument %d (%s): ", i, p->name);
      return rt_cl_fail(err, RT_LAUNCH_FAILED, e, what);
    }
  }
  return RT_OK;
}

static RtStatus launch_timed(Runtime *rt, Arena *a, cl_kernel kern, const RtLaunch *launch, RtResult *res,
                             Buf *err) {
  int repeat = launch->repeat > 0 ? launch->repeat : 1;
  res->repeat = repeat;
  res->times_ms = NEWARRAY(a, double, repeat);
  for (int r = 0; r < repeat; r++) {
    cl_event ev = NULL;
    cl_int e = clEnqueueNDRangeKernel(rt->queue, kern, (cl_uint)res->ndims, NULL, res->global_size,
                                      res->has_local ? res->local_size : NULL, 0, NULL, &ev);
    if (e != CL_SUCCESS) return rt_cl_fail(err, RT_LAUNCH_FAILED, e, "clEnqueueNDRangeKernel");
    e = clWaitForEvents(1, &ev);
    cl_ulong start = 0, end = 0;
    const char *what = "clWaitForEvents (the kernel failed)";
    if (e == CL_SUCCESS) {
      what = "clGetEventProfilingInfo";
      e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
      if (e == CL_SUCCESS) e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    }
    cl_int e2 = clReleaseEvent(ev);
    if (e != CL_SUCCESS) return rt_cl_fail(err, RT_LAUNCH_FAILED, e, what);
    if (e2 != CL_SUCCESS) return rt_cl_fail(err, RT_LAUNCH_FAILED, e2, "clReleaseEvent");
    res->times_ms[r] = end > start ? (double)(end - start) * 1e-6 : 0.0;
  }
  rt_time_stats(a, res);
  return RT_OK;
}

void rt_time_stats(Arena *a, RtResult *res) {
  int repeat = res->repeat;
  double *sorted = arena_dup(a, res->times_ms, sizeof(double) * (size_t)repeat);
  qsort(sorted, (size_t)repeat, sizeof(double), cmp_double);
  res->min_ms = sorted[0];
  res->median_ms = repeat % 2 ? sorted[repeat / 2] : (sorted[repeat / 2 - 1] + sorted[repeat / 2]) / 2;
}

static RtStatus read_outputs(Runtime *rt, Arena *a, const ImpKernel *k, ParamPlan *plans, cl_mem *mems, RtResult *res,
                             Buf *err) {
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
  for (int i = 0; i < k->nparams; i++) {
    if (k->params[i].role != KP_OUTPUT) continue;
    ParamPlan *plan = &plans[i];
    unsigned char *bytes = plan->packed; /* reuse the poisoned host copy */
    cl_int e = clEnqueueReadBuffer(rt->queue, mems[i], CL_TRUE, 0, plan->bytes ? plan->bytes : 1, bytes, 0, NULL, NULL);
    if (e != CL_SUCCESS) {
      emit(err, "output %s: ", k->params[i].name);
      return rt_cl_fail(err, RT_LAUNCH_FAILED, e, "clEnqueueReadBuffer");
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
  if (st == RT_OK) st = rt_launch_sizes(k, nats, launch, res, err);
  if (st != RT_OK) return st;

  cl_program prog = NULL;
  cl_kernel kern = NULL;
  cl_mem *mems = NEWARRAY(a, cl_mem, k->nparams > 0 ? k->nparams : 1);
  st = build(rt, a, k, source, launch->build_options, &prog, &kern, err);
  if (st == RT_OK) st = set_args(rt, a, k, nats, plans, kern, mems, err);
  if (st == RT_OK) st = launch_timed(rt, a, kern, launch, res, err);
  if (st == RT_OK) st = read_outputs(rt, a, k, plans, mems, res, err);

  /* release everything, whatever happened */
  for (int i = 0; i < k->nparams; i++) {
    if (!mems[i]) continue;
    cl_int e = clReleaseMemObject(mems[i]);
    if (e != CL_SUCCESS && st == RT_OK) st = rt_cl_fail(err, RT_LAUNCH_FAILED, e, "clReleaseMemObject");
  }
  if (kern) {
    cl_int e = clReleaseKernel(kern);
    if (e != CL_SUCCESS && st == RT_OK) st = rt_cl_fail(err, RT_LAUNCH_FAILED, e, "clReleaseKernel");
  }
  if (prog) {
    cl_int e = clReleaseProgram(prog);
    if (e != CL_SUCCESS && st == RT_OK) st = rt_cl_fail(err, RT_LAUNCH_FAILED, e, "clReleaseProgram");
  }
  return st;
}

/* ---- preconditions ---- */

typedef struct PreParser {
  const char *s;
  size_t pos;
  const NatValues *nats;
  Buf *err;
  bool failed;
} PreParser;

static void pre_error(PreParser *p, const char *what) {
  if (p->failed) return;
  p->failed = true;
  emit(p->err, "precondition \"%s\": %s at offset %zu", p->s, what, p->pos);
}

static void skip_space(PreParser *p) {
  while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t') p->pos++;
}

/* consume op if it is next (and not the start of a longer operator) */
static bool accept(PreParser *p, const char *op) {
  skip_space(p);
  size_t n = strlen(op);
  if (strncmp(p->s + p->pos, op, n) != 0) return false;
  char next = p->s[p->pos + n];
  if (n == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '!') && next == '=') return false;
  p->pos += n;
  return true;
}

static int64_t pre_or(PreParser *p);

static int64_t pre_primary(PreParser *p) {
  skip_space(p);
  char c = p->s[p->pos];
  if (accept(p, "(")) {
    int64_t v = pre_or(p);
    if (!accept(p, ")")) pre_error(p, "expected ')'");
    return v;
  }
  if (accept(p, "-")) {
    int64_t v = pre_primary(p);
    if (v == INT64_MIN) pre_error(p, "overflow");
    return p->failed ? 0 : -v;
  }
  if (accept(p, "!")) return !pre_primary(p);
  if (isdigit((unsigned char)c)) {
    int64_t v = 0;
    while (isdigit((unsigned char)p->s[p->pos])) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, p->s[p->pos] - '0', &v)) {
        pre_error(p, "number too large");
        return 0;
      }
      p->pos++;
    }
    return v;
  }
  if (isalpha((unsigned char)c) || c == '_') {
    size_t start = p->pos;
    while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_') p->pos++;
    size_t n = p->pos - start;
    for (int i = 0; i < p->nats->n; i++) {
      if (strlen(p->nats->names[i]) == n && strncmp(p->nats->names[i], p->s + start, n) == 0)
        return p->nats->values[i];
    }
    p->pos = start;
    pre_error(p, "unknown nat parameter");
    return 0;
  }
  pre_error(p, c ? "unexpected character" : "unexpected end");
  return 0;
}

static int64_t pre_mul(PreParser *p) {
  int64_t v = pre_primary(p);
  for (;;) {
    int op = accept(p, "*") ? '*' : accept(p, "/") ? '/' : accept(p, "%") ? '%' : 0;
    if (!op || p->failed) return v;
    int64_t w = pre_primary(p);
    if (op == '*') {
      if (__builtin_mul_overflow(v, w, &v)) pre_error(p, "overflow");
    } else if (w == 0 || (v == INT64_MIN && w == -1)) {
      pre_error(p, "division by zero or overflow");
    } else {
      v = op == '/' ? v / w : v % w;
    }
  }
}

static int64_t pre_add(PreParser *p) {
  int64_t v = pre_mul(p);
  for (;;) {
    int op = accept(p, "+") ? '+' : accept(p, "-") ? '-' : 0;
    if (!op || p->failed) return v;
    int64_t w = pre_mul(p);
    if (op == '+' ? __builtin_add_overflow(v, w, &v) : __builtin_sub_overflow(v, w, &v)) pre_error(p, "overflow");
  }
}

static int64_t pre_cmp(PreParser *p) {
  int64_t v = pre_add(p);
  static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
  for (size_t i = 0; i < DPIA_COUNTOF(ops); i++) {
    if (!accept(p, ops[i])) continue;
    int64_t w = pre_add(p);
    switch (i) {
    case 0: return v == w;
    case 1: return v != w;
    case 2: return v <= w;
    case 3: return v >= w;
    case 4: return v < w;
    default: return v > w;
    }
  }
  return v;
}

static int64_t pre_and(PreParser *p) {
  int64_t v = pre_cmp(p);
  while (!p->failed && accept(p, "&&")) {
    int64_t w = pre_cmp(p);
    v = v && w;
  }
  return v;
}

static int64_t pre_or(PreParser *p) {
  int64_t v = pre_and(p);
  while (!p->failed && accept(p, "||")) {
    int64_t w = pre_and(p);
    v = v || w;
  }
  return v;
}

bool precond_eval(const char *expr, const NatValues *nats, int64_t *value, Buf *err) {
  PreParser p = {expr, 0, nats, err, false};
  int64_t v = pre_or(&p);
  skip_space(&p);
  if (!p.failed && p.s[p.pos]) pre_error(&p, "unexpected text");
  if (p.failed) return false;
  *value = v;
  return true;
}

bool rt_check_preconditions(const ImpKernel *k, const NatValues *nats, Buf *err) {
  bool ok = true;
  for (int i = 0; i < k->nprecond; i++) {
    int64_t v;
    if (!precond_eval(k->preconds[i], nats, &v, err)) {
      buf_putc(err, '\n');
      ok = false;
      continue;
    }
    if (v) continue;
    ok = false;
    emit(err, "precondition %s does not hold for", k->preconds[i]);
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
