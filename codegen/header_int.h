/* header_int.h: what the host headers' printers share (header.c, the
 * OpenCL header, header_cuda.c and header_c_omp.c): the launcher's names
 * of kernel parameters, the size expressions and preconditions as checked C, the
 * check and element-count functions, the launch sizes. */
#ifndef DPIA_HEADER_INT_H
#define DPIA_HEADER_INT_H

#include "kernel.h"

typedef struct H {
  Arena *a;
  Buf *out;
  const CodegenOptions *opt;
} H;

/* a kernel parameter's launcher name: the program's, renamed away from
 * host C's and C++'s reserved names */
const char *host_param(H *h, const KParam *p);
/* An in-place kernel's output (docs/language.md section 27) is no
 * argument of its launchers (host_omits) nor of its kernel (kparam_arg):
 * they pass the buffer of the input it updates, which host_buffer names
 * for any buffer parameter i. */
bool host_omits(const ImpKernel *k, int i);
/* parameter i is the input an in-place kernel updates: its launchers'
 * pointer is not const, and its bytes are the output's */
bool host_updated(const ImpKernel *k, int i);
const char *host_buffer(H *h, const ImpKernel *k, int i);
/* the tag of a pair type's typedef: pair_float_int */
void type_tag(Buf *b, DataType *t);
/* the element type of an array type (of arrays) */
DataType *elem_of(DataType *t);
/* a size, a precondition, as C over long long with every operation
 * checked (dpia_add_ ... setting dpia_bad) */
const char *c_size(H *h, const ImpKernel *k, Size s);
const char *c_precond(H *h, const ImpKernel *k, const Precond *p);
/* text inside a C comment: no comment end, no line break */
void comment_text(Buf *out, const char *s);
/* the NDRange's dimensions the source was generated for; *has_local: a
 * local size is fixed */
int launch_dims(const ImpKernel *k, const CodegenOptions *opt, bool *has_local);
/* the global (or local) size of dimension d, as checked C */
const char *launch_size(H *h, const ImpKernel *k, int d, bool local);
/* int dpia_NAME_check(sizes..., char *dpia_msg, size_t dpia_msg_size);
 * more (NULL: none) is C run after the checks */
void emit_check(H *h, const ImpKernel *k, const char *more);
/* size_t dpia_NAME_PARAM_elements(sizes...) of every buffer parameter */
void emit_element_counts(H *h, const ImpKernel *k);
/* the test of an NDRange with no work-item, returning nothing (C text)
 * when every output is empty (in the launcher's loop over dimensions) */
void emit_empty_launch(H *h, const ImpKernel *k, const char *nothing);
/* DPIA_ERROR_SIZE when a size overflowed (dpia_bad) */
void emit_size_overflow(H *h, const char *name);
/* pipelines (pipeline_emit.h): the leading comment of a pipeline's
 * launchers (queue: the first parameter's name, or NULL; temps_note: how the
 * temporaries are kept), its dpia_NAME_check, the int dpia_lLI_J of each
 * launch's nat arguments (declared, then computed), and the C argument of
 * launch li's parameter i (a nat is the next dpia_lLI_J: *nat counts them;
 * a temporary is dpia_temps->mem[T]) */
typedef struct PipeDesc PipeDesc;
void emit_header_opening(H *h, const char *language, const char *source_name, int nkernels,
                         const ImpKernel *const *kernels, int npipes, const PipeDesc *const *pipes,
                         const char *pipes_head, const char *pipes_tail);
void emit_pipeline_doc(H *h, const PipeDesc *d, const char *queue, const char *temps_note);
void emit_pipeline_check(H *h, const PipeDesc *d);
void declare_launch_nats(const PipeDesc *d, Buf *o);
void emit_launch_nats(H *h, const PipeDesc *d, int li, Buf *o, const char *indent);
const char *launch_arg(H *h, const PipeDesc *d, int li, int i, int *nat);
/* header_cuda.c: for the launchers of pointers that do not know their
 * sizes (CUDA's, C's): an output sharing a byte the kernel touches with
 * another buffer argument fails with DPIA_ERROR_ALIAS (dpia_overlap_ and
 * dpia_bytes_I, I the parameter's index, defined before) */
void emit_overlap_checks(H *h, const ImpKernel *k);
/* header_cuda.c: the launcher of a pipeline over pointers that do not
 * know their sizes (CUDA's, C's): its leading comment and check, then
 * dpia_NAME_launch checking every launch, allocating the temporaries,
 * launching the kernels in order through their own launchers and freeing
 * the temporaries.  What the languages spell differently: */
typedef struct PtrPipeHost {
  /* the launcher's first parameter, its name in the comment, and what it
   * gives each kernel's launcher first ("cudaStream_t dpia_stream",
   * "stream", "dpia_stream"), or NULL: none */
  const char *queue_param, *queue_doc, *queue_arg;
  const char *temps_note; /* how the temporaries are kept (emit_pipeline_doc) */
  const char *locals;     /* declarations after dpia_bad and dpia_err ("" for none) */
  /* the comment above dpia_NAME_launch */
  void (*doc)(H *h, const char *name);
  /* the type kernel parameter j of launch li is given (a buffer's
   * element, a scalar's value type) */
  const char *(*bound_type)(H *h, const PipeDesc *d, int li, int j);
  /* each dpia_temp_T (void *) given dpia_temp_bytes_T bytes, dpia_err set;
   * then each freed */
  void (*alloc_temps)(H *h, const PipeDesc *d);
  void (*free_temps)(H *h, const PipeDesc *d);
  /* dpia_temp_T as a pointer to type */
  const char *(*temp_arg)(H *h, const char *type, int t);
} PtrPipeHost;
void emit_pointer_pipeline(H *h, const PipeDesc *d, const PtrPipeHost *host);
/* DPIA_GENERATED_GEMV_H for samples/gemv.dpia */
const char *guard_name(Arena *a, const char *source_name);

#endif
