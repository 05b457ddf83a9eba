/* pipe_run.h: running a whole pipeline on an OpenCL device (`dpia run -k
 * PIPELINE`, docs/language.md section 8). */
#ifndef DPIA_PIPE_RUN_H
#define DPIA_PIPE_RUN_H

#include "runtime.h"

/* Build source (every kernel of the pipeline in one program), upload the
 * inputs (ninputs values, one per data parameter of the pipeline in
 * declaration order, in the host layout), run the launches of d in order
 * repeat times at these nat values of the pipeline, and fill res: the
 * output (poisoned with NaN before the first run), and each run's time
 * from the start of the first kernel to the end of the last.  The
 * preconditions are not checked here. */
RtStatus rt_run_pipeline(Runtime *rt, Arena *a, const PipeDesc *d, const char *source, const NatValues *nats,
                         int ninputs, const double *const *inputs, const size_t *counts, int repeat, RtResult *res,
                         Buf *err);

#endif
