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
 * allocation, all of them together its global memory, and the local
 * temporaries its local memory (the limits of TargetDeviceInfo: for
 * OpenCL CL_DEVICE_MAX_MEM_ALLOC_SIZE, CL_DEVICE_GLOBAL_MEM_SIZE and
 * CL_DEVICE_LOCAL_MEM_SIZE, which the messages name). */
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

#endif
