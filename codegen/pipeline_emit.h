/* pipeline_emit.h: a pipeline (dpia/pipeline.h) against the generated
 * kernels it launches: its host interface, its temporaries and each
 * launch's arguments, with every size over the pipeline's nat parameters;
 * and the metadata of `--emit=json` for it (docs/language.md section 8).
 * The header's launcher (header.c) and `dpia run` (verify/pipe_run.c)
 * read the same description. */
#ifndef DPIA_PIPELINE_EMIT_H
#define DPIA_PIPELINE_EMIT_H

#include "kernel.h"

/* what a parameter of a launched kernel is given */
typedef enum PipeBindKind {
  PBIND_BUFFER, /* a buffer of the pipeline (output, input, temporary), or a scalar input */
  PBIND_NAT,    /* a size, over the pipeline's nat parameters */
  PBIND_LOCAL,  /* local memory of `size` elements per work-group */
} PipeBindKind;

typedef struct PipeBind {
  PipeBindKind kind;
  PipeBuf buf; /* PBIND_BUFFER (temporaries of the kernel itself are pipeline temporaries too) */
  Size size;   /* PBIND_NAT: the value; PBIND_LOCAL: the elements */
} PipeBind;

typedef struct PipeLaunchDesc {
  const PipeLaunch *launch;
  const ImpKernel *k;
  PipeBind *binds; /* per k->params */
  int ndims;
  Size global_size[3], local_size[3]; /* over the pipeline's nat parameters */
  bool has_local;
} PipeLaunchDesc;

typedef struct PipeDesc {
  const Pipeline *pipe;
  /* The pipeline as a kernel interface (for the header's signature and
   * size expressions): its name, `output`, its inputs and scalars in
   * declaration order, its nat parameters; its preconditions. */
  ImpKernel iface;
  int ntemps; /* the pipeline's temporaries, then those of the kernels */
  KParam *temps; /* role KP_TEMP, named tmp0, tmp1, ... */
  int nlaunches;
  PipeLaunchDesc *launches;
} PipeDesc;

/* kernels and sources are by declaration index (NULL where a kernel was
 * not generated).  NULL after reporting to diag what a pipeline cannot
 * pass between kernels (a parameter split into several buffers). */
PipeDesc *pipeline_describe(Arena *a, TypeCtx *tc, Diag *diag, const Pipeline *p, ImpKernel *const *kernels);

/* The JSON object of a pipeline: "pipeline", "file", "params" (roles as a
 * kernel's), "temporaries", "launches" (kernel, arguments, global and local
 * size), "preconditions", "kernels" and "source" (one program with every
 * kernel it launches). */
void codegen_pipeline_metadata(Arena *a, const PipeDesc *d, const char *source_name, const char *source, Buf *out);

/* Append the OpenCL source of one kernel to program (the sources of a
 * pipeline's kernels, in order, as one program): a blank line between
 * kernels, and what an earlier kernel of the program already defines
 * (defined: their names; a struct type's typedef, a foreign function, a
 * constant array of the same values) left out. */
void codegen_program_add(const Backend *backend, Buf *program, NameSet *defined, const KernelFacts *kernel);

/* codegen/header.c: codegen_header with the launchers of pipelines too
 * (their kernels among kernels): dpia_NAME_launch, _enqueue (the last
 * kernel's event), _check (every precondition of every launch, before
 * anything is enqueued) and _release. */
void codegen_header_pipelines(Arena *a, const Backend *backend, const char *source_name, int nkernels,
                              const ImpKernel *const *kernels, const char *const *sources, int npipes,
                              const PipeDesc *const *pipes, const CodegenOptions *opt, Buf *out);

#endif
