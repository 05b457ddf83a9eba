/* runtime.h: the host side of `dpia run` (spec sections 8, 9, 11), on a
 * device of a Target (target.h: OpenCL's is target_opencl).
 *
 * rt_open picks a platform and device of the target (for OpenCL the
 * default is the first platform's first device, PoCL where it is the only
 * ICD).  rt_run builds a kernel's source, allocates a buffer for
 * every parameter of an ImpKernel by role (element counts evaluated with
 * the nat values), uploads the inputs, fills the outputs (and temporaries)
 * with NaN, sets the arguments in the order of the kernel interface,
 * launches R times with the kernel's natural NDRange or the user's, times
 * each launch on the device and reads the outputs back.  Every object it
 * makes on the device is released before it returns, on every path.
 *
 * Host data is in the layout of layout.h (flat doubles), converted to and
 * from the element types of the buffers (float, int, double, vectors, pair
 * structs).  Inputs are given per data parameter of the functional kernel,
 * in declaration order, which is the order of the kernel interface's input
 * and scalar parameters; they are consumed as one stream, each input or
 * scalar parameter taking the flat size of its type, so a parameter that
 * the interface splits into several buffers is still given as one value.
 * Likewise the outputs come back per output parameter and concatenated in
 * parameter order, which is the host layout of the kernel's result (a
 * top-level pair: its first component, then its second).
 *
 * Errors are messages in an error Buf and an RtStatus.  Nothing is global;
 * a Runtime may be used by one thread at a time.
 *
 * Usage:
 *   Runtime rt;
 *   if (rt_open(&rt, target_default(), arena, 0, 0, &err) != RT_OK) ... exit 4
 *   if (!rt_check_preconditions(k, &nats, &err)) ...
 *   RtLaunch launch;
 *   rt_launch_init(&launch);
 *   launch.repeat = 10;
 *   RtResult res;
 *   RtStatus st = rt_run(&rt, arena, k, source, &nats, def->nparams,
 *                        (const double *const *)inputs, counts, &launch, &res, &err);
 *   ... compare_values(res.output, ref, res.output_count, bound, &cmp) ...
 *   rt_close(&rt);
 */
#ifndef DPIA_RUNTIME_H
#define DPIA_RUNTIME_H

#include "layout.h"
#include "dpia_codegen.h"
#include "target.h"

typedef struct Runtime {
  const Target *target;
  TargetDevice *dev;
  TargetDeviceInfo info; /* its names in the arena given to rt_open */
} Runtime;

/* platform_index and device_index count from 0 in the order the target
 * lists them (for OpenCL: clinfo -l).  On failure nothing is left to
 * release. */
RtStatus rt_open(Runtime *rt, const Target *t, Arena *a, int platform_index, int device_index, Buf *err);
void rt_close(Runtime *rt);

/* "Platform #0: NAME" / " `-- Device #0: NAME" lines, like clinfo -l. */
RtStatus rt_list_devices(const Target *t, Arena *a, Buf *out, Buf *err);

/* Inputs packed in the device layout, kept for the next run of the same
 * host values: a search's runs share their inputs (app/driver_int.h,
 * SharedInputs), and packing 32 million values took longer than the
 * launches.  An entry is the host values' address, their layout (a copy)
 * and element count; the host values must stay unchanged and allocated
 * as long as the cache is used, and the packed bytes are only read (an
 * input updated in place is packed afresh: its copy is overwritten). */
enum { RT_PACKED_MAX = 16 };
typedef struct RtPacked {
  const double *host;
  const Lay *lay;
  int64_t elements;
  const unsigned char *packed;
} RtPacked;
typedef struct RtPackCache {
  Arena *arena; /* the entries' and the packed bytes' */
  int n;
  RtPacked entries[RT_PACKED_MAX];
} RtPackCache;

typedef struct RtLaunch {
  int64_t global_size[3]; /* per dimension; 0: the kernel's natural size */
  int64_t local_size[3];  /* 0: natural (NULL local size if it has none) */
  int repeat;             /* timed launches, at least 1 */
  const char *build_options; /* the target's build options, NULL for none */
  double cut_ms;             /* > 0: the timing cut short if the first two launches take longer (RtTimer.cut_ms) */
  RtPackCache *packs;        /* NULL: every input packed for this run */
} RtLaunch;

void rt_launch_init(RtLaunch *l); /* everything natural, repeat 1 */

typedef struct RtResult {
  int noutputs;          /* one per output parameter, in parameter order */
  double **outputs;
  size_t *output_counts;
  double *output;        /* all outputs concatenated: the result's host layout */
  size_t output_count;
  int ndims;             /* the NDRange used */
  size_t global_size[3], local_size[3];
  bool has_local;        /* false: launched with a NULL local size */
  int repeat;
  double *times_ms;      /* each launch, in order */
  double min_ms, median_ms;
  bool *skipped;         /* a pipeline's launches, true for one with no work-item that was not run; NULL for a kernel */
  int empty_launch;      /* RT_EMPTY_RANGE of a pipeline: the launch refused (0 for a kernel) */
} RtResult;

/* Build source, run the kernel k->name with these nat values and inputs
 * (ninputs values: inputs[i] holds counts[i] doubles), fill res (arrays in
 * the arena).  Does not check the preconditions (rt_check_preconditions). */
RtStatus rt_run(Runtime *rt, Arena *a, const ImpKernel *k, const char *source, const NatValues *nats, int ninputs,
                const double *const *inputs, const size_t *counts, const RtLaunch *launch, RtResult *res, Buf *err);

/* true if every precondition of k holds (precond_eval with these values);
 * else false, with one line per violated or unevaluable precondition in err:
 *   precondition N % 262144 == 0 does not hold for N = 1000
 *   precondition 1024 % C == 0 cannot be evaluated (a divisor is 0) for C = 0 */
bool rt_check_preconditions(const ImpKernel *k, const NatValues *nats, Buf *err);

#endif
