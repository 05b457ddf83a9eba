/* runtime_int.h: the pieces of runtime.c that pipe_run.c shares (running
 * one kernel, and several in a row); not part of the layer's interface. */
#ifndef DPIA_RUNTIME_INT_H
#define DPIA_RUNTIME_INT_H

#include "runtime.h"

/* A kernel parameter's buffer or value at given nat values. */
typedef struct ParamPlan {
  const Lay *lay;   /* buffers: the element; scalars: the value */
  int64_t elements; /* buffers */
  size_t bytes;
  const double *host; /* INPUT, SCALAR: the values in the host layout */
  unsigned char *packed;
} ParamPlan;

/* the layout, elements and bytes of parameter p at nats (not KP_NAT) */
RtStatus rt_param_layout(Arena *a, const KParam *p, const NatValues *nats, ParamPlan *plan, Buf *err);
/* plan->elements values of src (host layout) in the device layout */
unsigned char *rt_pack_all(Arena *a, const ParamPlan *plan, const double *src);
/* plan->bytes of NaN elements (INT32_MIN in int lanes) */
unsigned char *rt_poisoned(Arena *a, const ParamPlan *plan);
/* k's NDRange at nats (kernel nat values) and the user's launch sizes */
RtStatus rt_launch_sizes(const ImpKernel *k, const NatValues *nats, const RtLaunch *launch, RtResult *res, Buf *err);
/* the NDRange res holds (rt_launch_sizes) */
TargetRange rt_range(const RtResult *res);
/* res->min_ms and median_ms from res->times_ms[0..repeat) */
void rt_time_stats(Arena *a, RtResult *res);

#endif
