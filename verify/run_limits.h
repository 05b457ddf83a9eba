/* run_limits.h: what `dpia run` checks about the sizes given, before it
 * allocates anything (tests/limits).
 *
 * The generated OpenCL indexes every buffer and counts every loop with
 * `int` (spec section 8), so the sizes must keep those in range: every nat
 * value, every buffer's element count and every global size at most
 * 2^31 - 1, and a loop index (below the largest of them) plus the step of
 * a parallel loop (a global size) must not pass 2^31 - 1 either.  dpia
 * rejects larger sizes rather than generating `long` indices for every
 * kernel; the message says which size is too large.  Then every global
 * buffer (output, input, hoisted temporary) must fit the device's largest
 * allocation and all of them together its global memory (the limits of
 * TargetDeviceInfo: for OpenCL CL_DEVICE_MAX_MEM_ALLOC_SIZE and
 * CL_DEVICE_GLOBAL_MEM_SIZE, which the messages name).
 *
 * What the kernel needs of the device, whatever the sizes of its data
 * (docs/errors.md E0007), is checked twice.  Before building, from the
 * kernel IR and the launch: its local arrays of kernel scope and local
 * temporaries together must fit the device's local memory
 * (CL_DEVICE_LOCAL_MEM_SIZE), and a work-group of the launch its largest
 * (CL_DEVICE_MAX_WORK_GROUP_SIZE, and CL_DEVICE_MAX_WORK_ITEM_SIZES per
 * dimension).  After building and setting the arguments, from what the
 * target says of the kernel itself (TargetKernelInfo: OpenCL's
 * clGetKernelWorkGroupInfo), which also covers a source given with
 * --opencl-source and what the compiler adds: its local memory
 * (CL_KERNEL_LOCAL_MEM_SIZE) against the device's, and the launch's
 * work-group against the largest it can run this kernel in
 * (CL_KERNEL_WORK_GROUP_SIZE: private memory and registers bound it on a
 * GPU).  OpenCL gives no device limit of private memory to check
 * CL_KERNEL_PRIVATE_MEM_SIZE against: it is named in the message (and
 * in that of a launch that fails with CL_OUT_OF_RESOURCES) as what the
 * kernel needs.  Without either check the launch fails with
 * CL_OUT_OF_RESOURCES or CL_INVALID_WORK_GROUP_SIZE, which says neither
 * what nor how much. */
#ifndef DPIA_RUN_LIMITS_H
#define DPIA_RUN_LIMITS_H

#include "runtime.h"

typedef enum RunLimit {
  RUN_LIMIT_OK,
  RUN_LIMIT_INT,    /* a size does not fit the kernel's int indices */
  RUN_LIMIT_DEVICE, /* a buffer does not fit the device's memory */
} RunLimit;

/* One line per problem in err; facts say which parallel loops of the
 * generated kernel step by a launch size (codegen/kernel.h: those of the
 * kernel dpia generated, also when --opencl-source runs a hand-edited
 * copy of it), launch gives the user's launch sizes (0: the kernel's
 * natural ones). */
RunLimit run_check_limits(Arena *a, const Runtime *rt, const ImpKernel *k, const KernelFacts *facts,
                          const NatValues *nats, const RtLaunch *launch, Buf *err);

/* The local memory k needs a work-group: its arrays of kernel scope in
 * kir (none when kir is NULL) and its local temporaries at nats; each one
 * named in what ("acc: 2048 float16, 131072 bytes"). */
void run_local_needs(Arena *a, const Runtime *rt, const ImpKernel *k, const KirKernel *kir, const NatValues *nats,
                     uint64_t *bytes, Buf *what);

/* Before building: k's local memory (kir: its kernel IR, NULL when the
 * source run is not the one generated from it) and the work-groups of the
 * launch against the device.  RT_DEVICE_LIMIT with one line per problem
 * in err, saying what the kernel needs and what the device has. */
RtStatus run_check_kernel_fits(Arena *a, const Runtime *rt, const ImpKernel *k, const KirKernel *kir,
                               const NatValues *nats, const RtLaunch *launch, Buf *err);

/* After building kernel and setting its arguments: what the target says
 * it needs (ki) against the device, for a launch on r.  RT_DEVICE_LIMIT
 * likewise. */
RtStatus run_check_built(const Runtime *rt, const char *kernel, const TargetKernelInfo *ki, const TargetRange *r,
                         Buf *err);

#endif
