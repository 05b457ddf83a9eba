/* target_opencl.c: the OpenCL instance of Target (target.h): every OpenCL
 * host API call of verification and running is here.  One device is a
 * context and an in-order profiling queue on it; launches are timed with
 * the queue's profiling events.
 *
 * Messages name the OpenCL call and its error code, which is what a user
 * with a broken ICD or driver needs to look up. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>

#include <string.h>

#include "clang_check.h"
#include "target.h"

struct TargetDevice {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  /* buffers are host memory (a CPU device), placed in their page
   * (placement.h); false: clCreateBuffer places them */
  bool place;
};

struct TargetProgram {
  cl_program program;
  TargetDevice *dev;
};

struct TargetKernel {
  cl_kernel kernel;
  const char *name; /* for launch_all's messages */
};

struct TargetBuffer {
  cl_mem mem;
};

/* the name of an OpenCL error code ("CL_INVALID_VALUE"), or "unknown" */
static const char *error_name(cl_int code) {
  switch (code) {
    /* clang-format off */
#define E(c) \
  case c: return #c;
    /* clang-format on */
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

static RtStatus cl_fail(Buf *err, RtStatus st, cl_int code, const char *what) {
  emit(err, "OpenCL error %s (%d) in %s", error_name(code), (int)code, what);
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
  if (e != CL_SUCCESS) return cl_fail(err, RT_UNAVAILABLE, e, "clGetPlatformIDs");
  cl_platform_id *ps = NEWARRAY(a, cl_platform_id, n);
  e = clGetPlatformIDs(n, ps, NULL);
  if (e != CL_SUCCESS) return cl_fail(err, RT_UNAVAILABLE, e, "clGetPlatformIDs");
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
  if (e != CL_SUCCESS) return cl_fail(err, RT_UNAVAILABLE, e, "clGetDeviceIDs");
  cl_device_id *ds = NEWARRAY(a, cl_device_id, n ? n : 1);
  if (n > 0) {
    e = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ds, NULL);
    if (e != CL_SUCCESS) return cl_fail(err, RT_UNAVAILABLE, e, "clGetDeviceIDs");
  }
  *out = ds;
  *count = n;
  return RT_OK;
}

static RtStatus list_devices(Arena *a, Buf *out, Buf *err) {
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

static uint64_t device_ulong(cl_device_id d, cl_device_info what) {
  cl_ulong value = 0;
  if (clGetDeviceInfo(d, what, sizeof value, &value, NULL) != CL_SUCCESS) return 0;
  return (uint64_t)value;
}

/* A CPU device's buffers are the host's memory, so where they fall in
 * their pages decides whether loads wait on stores (placement.h).
 * CL_MEM_USE_HOST_PTR makes the implementation use memory of ours as the
 * buffer when it is aligned to the device's base address alignment (in
 * bits; 1024 on PoCL): every offset of placement.h must be a multiple of
 * it, else clCreateBuffer places the buffers as before. */
static bool places_buffers(cl_device_id d) {
  cl_device_type type = 0;
  cl_uint align_bits = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS || !(type & CL_DEVICE_TYPE_CPU))
    return false;
  if (clGetDeviceInfo(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL) != CL_SUCCESS)
    return false;
  size_t align = align_bits / 8 ? align_bits / 8 : 1;
  if (align > PLACE_PAGE) return false;
  if (PLACE_SPREAD % align) return false;
  for (int u = 0; u < BUF_USE_COUNT; u++)
    if (place_offset((BufferPlace){(BufferUse)u, 0}) % align) return false;
  return true;
}

static RtStatus open_device(Arena *a, int platform_index, int device_index, TargetDevice **out, TargetDeviceInfo *info,
                            Buf *err) {
  *out = NULL;
  memset(info, 0, sizeof *info);
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
  if (e != CL_SUCCESS) return cl_fail(err, RT_UNAVAILABLE, e, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
  cl_context ctx = clCreateContext(props, 1, &d, NULL, NULL, &e);
  if (e != CL_SUCCESS || !ctx) return cl_fail(err, RT_UNAVAILABLE, e, "clCreateContext");
  cl_command_queue q = clCreateCommandQueue(ctx, d, CL_QUEUE_PROFILING_ENABLE, &e);
  if (e != CL_SUCCESS || !q) {
    cl_fail(err, RT_UNAVAILABLE, e, "clCreateCommandQueue");
    cl_int e2 = clReleaseContext(ctx);
    if (e2 != CL_SUCCESS) emit(err, "; then %s in clReleaseContext", error_name(e2));
    return RT_UNAVAILABLE;
  }
  TargetDevice *dev = NEW(a, TargetDevice);
  *dev = (TargetDevice){p, d, ctx, q, places_buffers(d)};
  info->platform_name = pname;
  info->device_name = device_string(a, d, CL_DEVICE_NAME);
  info->driver_version = device_string(a, d, CL_DRIVER_VERSION);
  info->has_fp64 = fp64 != 0;
  info->max_work_group_size = max_wg;
  info->max_work_group_size_name = "CL_DEVICE_MAX_WORK_GROUP_SIZE";
  info->max_work_item_sizes_name = "CL_DEVICE_MAX_WORK_ITEM_SIZES";
  cl_uint dims = 0;
  e = clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims, &dims, NULL);
  if (e == CL_SUCCESS && dims >= 1 && dims <= 64) {
    size_t *items = NEWARRAY(a, size_t, dims);
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(size_t) * dims, items, NULL) == CL_SUCCESS)
      for (cl_uint i = 0; i < dims && i < 3; i++) info->max_work_item_sizes[i] = items[i];
  }
  info->max_alloc = device_ulong(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info->global_mem = device_ulong(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  info->local_mem = device_ulong(d, CL_DEVICE_LOCAL_MEM_SIZE);
  info->max_alloc_name = "CL_DEVICE_MAX_MEM_ALLOC_SIZE";
  info->global_mem_name = "CL_DEVICE_GLOBAL_MEM_SIZE";
  info->local_mem_name = "CL_DEVICE_LOCAL_MEM_SIZE";
  *out = dev;
  return RT_OK;
}

static void close_device(TargetDevice *dev) {
  /* release failures leave nothing to recover: the objects are gone or
   * the implementation is broken; either way there is nothing to retry */
  if (!dev) return;
  if (dev->queue) {
    cl_int e = clReleaseCommandQueue(dev->queue);
    ASSERT(e == CL_SUCCESS);
  }
  if (dev->context) {
    cl_int e = clReleaseContext(dev->context);
    ASSERT(e == CL_SUCCESS);
  }
  dev->queue = NULL;
  dev->context = NULL;
}

/* ---- programs and kernels ---- */

static RtStatus build(TargetDevice *dev, Arena *a, const char *what, const char *source, const char *options,
                      TargetProgram **out, Buf *err) {
  cl_int e;
  *out = NULL;
  cl_program prog = clCreateProgramWithSource(dev->context, 1, &source, NULL, &e);
  if (e != CL_SUCCESS || !prog) return cl_fail(err, RT_BUILD_FAILED, e, "clCreateProgramWithSource");
  *out = NEW(a, TargetProgram);
  **out = (TargetProgram){prog, dev};
  e = clBuildProgram(prog, 1, &dev->device, options ? options : "", NULL, NULL);
  if (e == CL_SUCCESS) return RT_OK;
  emit(err, "building the OpenCL program of %s failed (%s)", what, error_name(e));
  size_t n = 0;
  cl_int e2 = clGetProgramBuildInfo(prog, dev->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
  if (e2 == CL_SUCCESS && n > 0) {
    char *log = arena_alloc(a, n + 1);
    e2 = clGetProgramBuildInfo(prog, dev->device, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    if (e2 == CL_SUCCESS) {
      log[n] = 0;
      emit(err, ":\n%s", log);
      return RT_BUILD_FAILED;
    }
  }
  emit(err, "; no build log (%s)", error_name(e2));
  return RT_BUILD_FAILED;
}

static RtStatus kernel(TargetProgram *prog, Arena *a, const char *name, TargetKernel **out, int *nargs, Buf *err) {
  cl_int e;
  *out = NULL;
  cl_kernel kern = clCreateKernel(prog->program, name, &e);
  if (e != CL_SUCCESS || !kern) {
    emit(err, "the OpenCL program has no kernel %s: ", name);
    return cl_fail(err, RT_BUILD_FAILED, e, "clCreateKernel");
  }
  *out = NEW(a, TargetKernel);
  **out = (TargetKernel){kern, name};
  cl_uint n = 0;
  e = clGetKernelInfo(kern, CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL);
  if (e != CL_SUCCESS) return cl_fail(err, RT_LAUNCH_FAILED, e, "clGetKernelInfo(CL_KERNEL_NUM_ARGS)");
  *nargs = (int)n;
  return RT_OK;
}

/* ---- buffers and arguments ---- */

/* the implementation calls this once the buffer is gone (the last
 * reference released, every command using it done): only then may its
 * memory go */
static void CL_CALLBACK free_placed(cl_mem mem, void *block) {
  (void)mem;
  place_free(block);
}

/* On a device that places_buffers, the buffer is memory of ours at its
 * place's offset (placement.h), filled from init here, made the buffer by
 * CL_MEM_USE_HOST_PTR and freed by free_placed; elsewhere clCreateBuffer
 * copies init into memory of the implementation's. */
static RtStatus buffer(TargetDevice *dev, Arena *a, size_t bytes, const void *init, BufferPlace place,
                       TargetBuffer **out, Buf *err) {
  cl_int e;
  *out = NULL;
  cl_mem_flags flags = place_read_only(place.use) ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE;
  void *host = (void *)init, *block = NULL;
  if (dev->place) {
    host = place_alloc(bytes, place, init, &block);
    if (!host) return cl_fail(err, RT_LAUNCH_FAILED, CL_OUT_OF_HOST_MEMORY, "allocating a buffer's host memory");
    flags |= CL_MEM_USE_HOST_PTR;
  } else {
    flags |= CL_MEM_COPY_HOST_PTR;
  }
  cl_mem mem = clCreateBuffer(dev->context, flags, bytes ? bytes : 1, host, &e);
  if (e != CL_SUCCESS || !mem) {
    place_free(block);
    return cl_fail(err, RT_LAUNCH_FAILED, e, "clCreateBuffer");
  }
  if (block && (e = clSetMemObjectDestructorCallback(mem, free_placed, block)) != CL_SUCCESS) {
    /* released before any command used it: the implementation is done with block */
    cl_int e2 = clReleaseMemObject(mem);
    place_free(block);
    cl_fail(err, RT_LAUNCH_FAILED, e, "clSetMemObjectDestructorCallback");
    if (e2 != CL_SUCCESS) emit(err, "; then %s in clReleaseMemObject", error_name(e2));
    return RT_LAUNCH_FAILED;
  }
  *out = NEW(a, TargetBuffer);
  (*out)->mem = mem;
  return RT_OK;
}

static RtStatus read_buffer(TargetDevice *dev, TargetBuffer *b, void *dst, size_t bytes, Buf *err) {
  cl_int e = clEnqueueReadBuffer(dev->queue, b->mem, CL_TRUE, 0, bytes ? bytes : 1, dst, 0, NULL, NULL);
  return e == CL_SUCCESS ? RT_OK : cl_fail(err, RT_LAUNCH_FAILED, e, "clEnqueueReadBuffer");
}

/* clEnqueueCopyBuffer runs on the device (no transfer through the host);
 * the queue is in order, so it follows every launch before, and clFinish
 * has it done before the next launch's events are taken */
static RtStatus copy_buffer(TargetDevice *dev, TargetBuffer *from, TargetBuffer *to, size_t bytes, Buf *err) {
  cl_int e = clEnqueueCopyBuffer(dev->queue, from->mem, to->mem, 0, 0, bytes ? bytes : 1, 0, NULL, NULL);
  if (e != CL_SUCCESS) return cl_fail(err, RT_LAUNCH_FAILED, e, "clEnqueueCopyBuffer");
  e = clFinish(dev->queue);
  return e == CL_SUCCESS ? RT_OK : cl_fail(err, RT_LAUNCH_FAILED, e, "clFinish (after clEnqueueCopyBuffer)");
}

static RtStatus arg_buffer(TargetKernel *k, int index, TargetBuffer *b, Buf *err) {
  cl_int e = clSetKernelArg(k->kernel, (cl_uint)index, sizeof(cl_mem), &b->mem);
  return e == CL_SUCCESS ? RT_OK : cl_fail(err, RT_LAUNCH_FAILED, e, "clSetKernelArg");
}

static RtStatus arg_value(TargetKernel *k, int index, const void *value, size_t bytes, Buf *err) {
  cl_int e = clSetKernelArg(k->kernel, (cl_uint)index, bytes, value);
  return e == CL_SUCCESS ? RT_OK : cl_fail(err, RT_LAUNCH_FAILED, e, "clSetKernelArg");
}

static RtStatus arg_local(TargetKernel *k, int index, size_t bytes, Buf *err) {
  cl_int e = clSetKernelArg(k->kernel, (cl_uint)index, bytes ? bytes : 1, NULL);
  return e == CL_SUCCESS ? RT_OK : cl_fail(err, RT_LAUNCH_FAILED, e, "clSetKernelArg");
}

/* CL_KERNEL_PRIVATE_MEM_SIZE is optional in practice (OpenCL 1.2 has no
 * device limit to hold it to): a figure the runtime does not give is 0 */
static RtStatus kernel_info(TargetDevice *dev, TargetKernel *k, TargetKernelInfo *info, Buf *err) {
  memset(info, 0, sizeof *info);
  info->work_group_size_name = "CL_KERNEL_WORK_GROUP_SIZE";
  info->local_mem_name = "CL_KERNEL_LOCAL_MEM_SIZE";
  info->private_mem_name = "CL_KERNEL_PRIVATE_MEM_SIZE";
  size_t wg = 0;
  cl_int e = clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
  if (e != CL_SUCCESS) return cl_fail(err, RT_LAUNCH_FAILED, e, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
  info->work_group_size = wg;
  cl_ulong local = 0, priv = 0;
  e = clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
  if (e != CL_SUCCESS) return cl_fail(err, RT_LAUNCH_FAILED, e, "clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)");
  info->local_mem = (uint64_t)local;
  if (clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv, NULL) ==
      CL_SUCCESS)
    info->private_mem = (uint64_t)priv;
  return RT_OK;
}

/* ---- launching ---- */

static cl_int enqueue(TargetDevice *dev, TargetKernel *k, const TargetRange *r, cl_event *ev) {
  return clEnqueueNDRangeKernel(dev->queue, k->kernel, (cl_uint)r->ndims, NULL, r->global_size,
                                r->has_local ? r->local_size : NULL, 0, NULL, ev);
}

static RtStatus launch(TargetDevice *dev, TargetKernel *k, const TargetRange *r, double *ms, Buf *err) {
  cl_event ev = NULL;
  cl_int e = enqueue(dev, k, r, &ev);
  if (e != CL_SUCCESS) return cl_fail(err, RT_LAUNCH_FAILED, e, "clEnqueueNDRangeKernel");
  e = clWaitForEvents(1, &ev);
  cl_ulong start = 0, end = 0;
  const char *what = "clWaitForEvents (the kernel failed)";
  if (e == CL_SUCCESS) {
    what = "clGetEventProfilingInfo";
    e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    if (e == CL_SUCCESS) e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
  }
  cl_int e2 = clReleaseEvent(ev);
  if (e != CL_SUCCESS) return cl_fail(err, RT_LAUNCH_FAILED, e, what);
  if (e2 != CL_SUCCESS) return cl_fail(err, RT_LAUNCH_FAILED, e2, "clReleaseEvent");
  *ms = end > start ? (double)(end - start) * 1e-6 : 0.0;
  return RT_OK;
}

/* The queue is in order, so each kernel sees the writes of the ones
 * before; only the first and last events are kept, for the time. */
static RtStatus launch_all(TargetDevice *dev, int n, TargetKernel *const *ks, const TargetRange *r, double *ms,
                           Buf *err) {
  cl_event first = NULL, last = NULL;
  RtStatus st = RT_OK;
  for (int li = 0; li < n && st == RT_OK; li++) {
    cl_event ev = NULL;
    cl_int e = enqueue(dev, ks[li], &r[li], &ev);
    if (e != CL_SUCCESS) {
      emit(err, "kernel %s: ", ks[li]->name);
      st = cl_fail(err, RT_LAUNCH_FAILED, e, "clEnqueueNDRangeKernel");
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
    if (e == CL_SUCCESS) e = clFinish(dev->queue);
    if (e == CL_SUCCESS) e = clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    if (e == CL_SUCCESS) e = clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    if (e != CL_SUCCESS) st = cl_fail(err, RT_LAUNCH_FAILED, e, "waiting for the kernels (one failed?)");
  } else {
    clFinish(dev->queue);
  }
  if (last && last != first) clReleaseEvent(last);
  if (first) clReleaseEvent(first);
  *ms = end > start ? (double)(end - start) * 1e-6 : 0.0;
  return st;
}

/* ---- releasing ---- */

static RtStatus release_buffer(TargetBuffer *b, Buf *err) {
  if (!b) return RT_OK;
  cl_int e = clReleaseMemObject(b->mem);
  return e == CL_SUCCESS ? RT_OK : cl_fail(err, RT_LAUNCH_FAILED, e, "clReleaseMemObject");
}

static RtStatus release_kernel(TargetKernel *k, Buf *err) {
  if (!k) return RT_OK;
  cl_int e = clReleaseKernel(k->kernel);
  return e == CL_SUCCESS ? RT_OK : cl_fail(err, RT_LAUNCH_FAILED, e, "clReleaseKernel");
}

static RtStatus release_program(TargetProgram *p, Buf *err) {
  if (!p) return RT_OK;
  cl_int e = clReleaseProgram(p->program);
  return e == CL_SUCCESS ? RT_OK : cl_fail(err, RT_LAUNCH_FAILED, e, "clReleaseProgram");
}

/* ---- the re-parse: clang as OpenCL C 1.2 (clang_check.h) ---- */

/* Why each flag:
 *   -isystem RESOURCE/include  where clang's own headers (opencl-c-base.h) are;
 *                            the resource directory is found by the build
 *                            (verify/meson.build), because libclang replaces
 *                            any -resource-dir by one derived from its own
 *                            path, which does not exist on Debian.
 *   -x cl -cl-std=CL1.2      the language the generated code promises (spec
 *                            section 1): OpenCL C 1.2, whatever the suffix.
 *   --target=spir64-...      a fixed device-neutral target, so verification
 *                            does not depend on the host it runs on.
 *   -finclude-default-header declares the OpenCL built-ins (get_global_id,
 *                            vload4, barrier, CLK_LOCAL_MEM_FENCE, float4...);
 *                            clang 14's driver adds it for OpenCL by itself,
 *                            older drivers do not, and twice is harmless.
 *                            Clang 15's driver also adds
 *                            -fdeclare-opencl-builtins: the built-in
 *                            functions come from clang's own table as they
 *                            are looked up, and only opencl-c-base.h (types
 *                            and macros, 800 lines) is read, never the 18,000
 *                            lines of opencl-c.h (clang_getInclusions shows
 *                            it); a wrong built-in call is still an error.
 *   -Wall -Wextra -Wpedantic generated code must be warning-free: an unused
 *                            or unused-but-set variable is a dead temporary,
 *                            a sign comparison a wrong index type, a zero
 *                            length array (pedantic) an unportable size.
 *                            Neither of the first two can come from a correct
 *                            code generator: it declares no private variable
 *                            that nothing reads (codegen/dead.c: a def's
 *                            argument bound for a step whose write a take
 *                            drops had been one, issue 41; test_kir,
 *                            tests/structure/dead_bindings.dpia), and every
 *                            type of its IR is signed but the size_t of a
 *                            work-item function, compared with non-negative
 *                            constants only (kir_invariant_violation,
 *                            test_kir).  A foreign function's body, the
 *                            program's own C, is parsed with these same flags
 *                            when the program is checked (E0327): its
 *                            warnings are rejected there, at the body.
 *   -Wshadow                 the code generator names variables uniquely
 *                            (acc, acc_2; kir_invariant_violation, test_kir);
 *                            an inner name hiding an outer one would make the
 *                            outer unreachable, a miscompile clang would
 *                            otherwise accept silently.  A foreign body hides
 *                            nothing of ours: it follows the struct typedefs
 *                            (a variable named like a typedef is no shadowing
 *                            to clang) and precedes the constant arrays
 *                            (tests/structure/reparse_warnings.dpia).
 *   -Wdouble-promotion       a float program must not compute in double (an
 *                            unsuffixed literal like 0.5 next to a float):
 *                            slow or unsupported on many devices.
 *   -Wno-tautological-compare  a comparison the program itself wrote (x > x)
 *                            is translated faithfully, not a defect of ours
 *   -Wno-unused-parameter    turned off too: the kernel interface
 *                            (spec section 8) passes every nat parameter and
 *                            input, used in the body or not, and a foreign
 *                            function's parameters are the program's, which
 *                            may ignore one as a hand-written helper may
 *                            (foreign f (x: float) (y: float) = "return x;").
 *                            The kernel defines no other function.
 *   -Wunreachable-code is not asked for (it is in neither -Wall nor
 *                            -Wextra): the kernel's own statements have no
 *                            return, break or goto (its loops end by their
 *                            bounds), so clang would find nothing there, and
 *                            a statement after a return in a foreign body is
 *                            the program's style, which OpenCL compiles: not
 *                            a reason to reject the program. */
/* one line per concern, as the comment above says */
/* clang-format off */
static const char *const opencl_clang_args[] = {
#ifdef DPIA_CLANG_RESOURCE_DIR
    "-isystem", DPIA_CLANG_RESOURCE_DIR "/include",
#endif
    "-x", "cl", "-cl-std=CL1.2", "--target=spir64-unknown-unknown",
    "-Xclang", "-finclude-default-header",
    "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wdouble-promotion", "-Wno-unused-parameter",
    "-Wno-tautological-compare",
};
/* clang-format on */

const ClangLanguage clang_opencl = {opencl_clang_args, (int)DPIA_COUNTOF(opencl_clang_args)};

/* A TargetVerifier of this target is a ClangVerifier of clang_opencl, a
 * TargetPreload a ClangPreload: converted only here. */
static TargetVerifier *verifier_new(void) { return (TargetVerifier *)clang_verifier_new(&clang_opencl); }
static TargetVerifier *verifier_new_helper(const char *path) {
  return (TargetVerifier *)clang_verifier_new_helper(&clang_opencl, path);
}
static void verifier_free(TargetVerifier *v) { clang_verifier_free((ClangVerifier *)v); }
static void verifier_free_at_exit(TargetVerifier *v) { clang_verifier_free_at_exit((ClangVerifier *)v); }
static bool verify(TargetVerifier *v, const char *name, const char *source, size_t len, Buf *report) {
  return clang_verify((ClangVerifier *)v, name, source, len, report);
}
static TargetPreload *preload_start(void) { return (TargetPreload *)clang_preload_start(); }
static void preload_finish(TargetPreload *p) { clang_preload_finish((ClangPreload *)p); }

/* the pragmas every generated program starts with (backend_opencl.c) */
static void foreign_preamble(Buf *out, bool uses_double) {
  if (uses_double) buf_puts(out, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  buf_puts(out, "#pragma OPENCL FP_CONTRACT OFF\n");
}

const Target target_opencl = {
    .id = TARGET_OPENCL,
    .name = "opencl",
    .title = "OpenCL",
    .source_ext = ".cl",
    .language = "OpenCL C",
    .language_std = "OpenCL C 1.2",
    .parser = "libclang",
    TARGET_OPERATIONS
};
