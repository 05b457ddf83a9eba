/* pipe_run.h: running a whole pipeline on an OpenCL device (`dpia run -k
 * PIPELINE`, docs/language.md section 8). */
#ifndef DPIA_PIPE_RUN_H
#define DPIA_PIPE_RUN_H

#include "runtime.h"

/* Build source (every kernel of the pipeline in one program), upload the
 * inputs (ninputs values, one per data parameter of the pipeline in
 * declaration order, in the host layout), run the launches of d in order
 * launch->repeat times at these nat values of the pipeline (once when
 * the first timed run takes more than launch->cut_ms > 0: RtTimer.cut_ms;
 * the inputs packed by launch->packs when given; its launch sizes are
 * not used: each kernel's are its own), and fill res: the output
 * (poisoned with NaN before the first run), and each run's time from the
 * start of the first kernel to the end of the last.  The preconditions
 * are not checked here. */
RtStatus rt_run_pipeline(Runtime *rt, Arena *a, const PipeDesc *d, const char *source, const NatValues *nats,
                         int ninputs, const double *const *inputs, const size_t *counts, const RtLaunch *launch,
                         RtResult *res, Buf *err);

#endif
