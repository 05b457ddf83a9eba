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

/* plan's input values packed (rt_pack_all), or the copy cache keeps of
 * them (NULL: none), which is only read */
const unsigned char *rt_pack_input(Arena *a, RtPackCache *cache, const ParamPlan *plan);

/* the placement of a kernel parameter's buffer (placement.h; an input
 * updated in place is BUF_UPDATED, which no role says) */
BufferUse rt_buffer_use(KParamRole role);
/* the place of the next buffer of use, made[use] of them made before
 * (counted here) */
BufferPlace rt_place(int made[BUF_USE_COUNT], BufferUse use);
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
/* The first dimension whose natural global size is 0 at nats (a kernel
 * over ceil(N/64) groups at N = 0), or -1; a dimension the user's launch
 * sizes give (launch, if not NULL) is not natural.  OpenCL refuses an
 * empty NDRange; such a launch has nothing to compute when every output it
 * writes is empty too, and is skipped (as the generated launchers skip
 * it), else refused (rt_refuse_empty; docs/reference.md, "Sizes that do
 * not divide"). */
int rt_empty_dimension(const ImpKernel *k, const NatValues *nats, const RtLaunch *launch, Arena *a);
/* the refusal of a launch with no work-item in dimension dim: output, of
 * elements elements, would be left unwritten */
void rt_refuse_empty(Buf *err, int dim, const char *output, int64_t elements);
/* res's NDRange (ndims, has_local, global and local sizes) as k's sizes
 * give it at nats, zeros included: the report of a launch that did not run */
void rt_natural_range(const ImpKernel *k, const NatValues *nats, Arena *a, RtResult *res);
/* What rt_time_launches times: one launch of a kernel or a pipeline
 * (its time on the device in *ms), and what puts its inputs back before
 * another (NULL: nothing to put back) */
typedef struct RtTimer {
  void *user;
  RtStatus (*launch)(void *user, double *ms, Buf *err);
  RtStatus (*restore)(void *user, Buf *err);
  /* > 0: the first two launches (the untimed one and the first timed,
   * or the first two timed when the first is kept) both longer than this
   * end the timing (explore's probe, docs/explore.md "The search": a
   * candidate that slow cannot come near the best; RtLaunch.cut_ms) */
  double cut_ms;
} RtTimer;
/* The one rule of timing for run, tune and explore (docs/reference.md,
 * "Timing"): a first launch that is not timed, unless it took
 * RT_WARMUP_KEEP_MS or more (then it is the first timed one), then the
 * timed launches, times[0..*repeat), the inputs restored before every
 * launch after the first; *repeat becomes the launches timed when
 * tm->cut_ms cut the timing short (1, or 2 when the first was kept).
 * The buffers hold one launch's result. */
enum { RT_WARMUP_KEEP_MS = 100 };
RtStatus rt_time_launches(const RtTimer *tm, int *repeat, double *times, Buf *err);
/* res->min_ms and median_ms from res->times_ms[0..repeat) */
void rt_time_stats(Arena *a, RtResult *res);

#endif
