/* pipeline.h: whole computations made of several kernels (docs/language.md
 * section 8).
 *
 *   pipeline dot (N: nat) (xs ys: [N]float) = dotPartial xs ys |> sumAll
 *
 * A kernel ends where a global synchronisation is needed (spec section 5),
 * so a reduction over a whole array takes two kernels.  A pipeline is a
 * host-side declaration: its body applies kernels of the file to the
 * pipeline's inputs and to other kernels' results, with layout-preserving
 * views between them.  The checker types its body like a def's (kernels are
 * used like defs there, their nat parameters inferred, their requirements
 * becoming the pipeline's preconditions); pipeline_plan then turns the
 * checked body into the ordered launches the host makes, each result a
 * global temporary except the last one, which is the pipeline's output.
 * A kernel whose result is a pair of arrays (two output buffers) makes a
 * temporary of each, which later kernels take by fst and snd; a pipeline
 * whose result is a pair of arrays has two outputs.
 *
 * The plan is what every consumer uses: the metadata and the header's
 * launcher (codegen/pipeline_emit.c) and `dpia run` (verify/pipe_run.c).
 * Its meaning, for the reference interpreter, is the checked body itself
 * with the kernels inlined (normalize_def). */
#ifndef DPIA_PIPELINE_H
#define DPIA_PIPELINE_H

#include "phrase.h"

/* A buffer of the pipeline: one of its inputs (an array, or a scalar passed
 * by value), a temporary, or its output. */
typedef enum PipeBufKind { PB_INPUT, PB_TEMP, PB_OUTPUT } PipeBufKind;
typedef struct PipeBuf {
  PipeBufKind kind;
  int index; /* PB_INPUT: the pipeline's data parameter; PB_TEMP: the temporary;
                PB_OUTPUT: the output, 0, or 0 and 1 for a pair of arrays */
} PipeBuf;

/* One kernel launch, in the order the host makes them. */
typedef struct PipeLaunch {
  DefInfo *kernel;  /* the checked kernel */
  int decl_index;   /* its declaration's index (CheckedProgram.defs) */
  Size *nats;       /* per kernel->size_params: its value over the pipeline's nat parameters */
  PipeBuf *args;    /* per kernel->params (its data parameters) */
  /* what its output parameters are bound to: one, or one per array of a
   * pair result (output_1, output_2, depth-first: docs/language.md
   * section 24), each a temporary or the pipeline's output */
  int nresults;
  PipeBuf *results;
  DataType *result_type; /* the kernel's result at these sizes */
  Span span;        /* the application in the pipeline's body */
} PipeLaunch;

typedef struct PipeTemp {
  DataType *type; /* the data it holds (a kernel's result, or an array of its pair result, at its sizes) */
  int made_by;    /* the launch that writes it */
} PipeTemp;

typedef struct Pipeline {
  DefInfo *def; /* the checked pipeline (is_pipeline) */
  int noutputs; /* 1, or 2: its result is a pair of arrays (output_1, output_2) */
  int nlaunches;
  PipeLaunch *launches;
  int ntemps;
  PipeTemp *temps;
} Pipeline;

/* The launches of the checked pipeline def (body checked without errors),
 * or NULL after reporting at the offending phrase what a pipeline cannot
 * do: computation outside a kernel, a view that moves data between
 * kernels, a result that no kernel computes.  defs[0..ndefs) are the
 * program's declarations (a launch records its kernel's index there). */
Pipeline *pipeline_plan(Arena *a, Diag *diag, DefInfo *const *defs, int ndefs, DefInfo *def);

/* "xs" (an input), "tmp0" (a temporary), "output" (or "output_1",
 * "output_2" for a pair of arrays) */
const char *pipeline_buf_name(Arena *a, const Pipeline *p, PipeBuf b);

/* The buffers of a pipeline in one order, its interface's: the outputs,
 * the inputs (its data parameters), then the temporaries.  The slot of b,
 * and the buffer of a slot. */
int pipeline_slot(const Pipeline *p, PipeBuf b);
PipeBuf pipeline_slot_buf(const Pipeline *p, int slot);

/* the data type of output o (the result, or an array of the pair) */
DataType *pipeline_output_type(const Pipeline *p, int o);

/* dpia check -v: one line per launch, in order:
 *   launch sumAll M=N/2048 tmp0 -> output : [1]float
 *   launch halves N=N xs -> (tmp0, tmp1) : ([N]float, [N]float) */
void pipeline_print_launches(Arena *a, Buf *out, const Pipeline *p);

/* Does the pipeline launch the kernel whose declaration index is i? */
bool pipeline_uses(const Pipeline *p, int decl_index);

#endif
