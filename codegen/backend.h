/* backend.h: what a target language provides to code generation (as QBE's
 * Target): its reserved names, the text of a kernel in the kernel IR
 * (kir.h), and the host header that launches kernels.  OpenCL C is the one
 * instance (backend_opencl.c, its host header header.c). */
#ifndef DPIA_BACKEND_H
#define DPIA_BACKEND_H

#include "kir.h"

/* kernel.h, pipeline_emit.h */
typedef struct ImpKernel ImpKernel;
typedef struct CodegenOptions CodegenOptions;
typedef struct PipeDesc PipeDesc;

typedef struct Backend {
  const char *name;
  /* a name the target language takes (keywords, types, built-ins, macros) */
  bool (*reserved)(const char *name);
  /* one type, as a declaration of its type prints it */
  void (*print_type)(Buf *out, const KirType *t);
  /* one expression, as a kernel prints it */
  void (*print_expr)(Buf *out, const KirExpr *e);
  /* the whole kernel: header comment, definitions before it, signature,
   * body.  defined: the names a program holding earlier kernels defines
   * (those are left out, the kernel's added), or NULL for a program of
   * the kernel alone. */
  void (*print_kernel)(const KirKernel *k, NameSet *defined, Buf *out);
  /* where print_kernel puts k's statements in a program of the kernel
   * alone (*text): (*stmts)[i] begins on line (*lines)[i] (from 1);
   * returns how many (for messages that quote a statement: verify/race.h) */
  int (*statement_lines)(Arena *a, const KirKernel *k, const KirStmt *const **stmts, const int **lines,
                         const char **text);
  /* the host header (--emit=header, spec section 9): the kernels' sources
   * (as print_kernel printed them) embedded, with launchers of the
   * kernels and of the pipelines (their kernels among kernels) */
  void (*print_header)(Arena *a, const char *source_name, int nkernels, const ImpKernel *const *kernels,
                       const char *const *sources, int npipes, const PipeDesc *const *pipes, const CodegenOptions *opt,
                       Buf *out);
} Backend;

extern const Backend backend_opencl;

/* header.c: backend_opencl's print_header, a C header for the OpenCL host
 * API */
void opencl_print_header(Arena *a, const char *source_name, int nkernels, const ImpKernel *const *kernels,
                         const char *const *sources, int npipes, const PipeDesc *const *pipes,
                         const CodegenOptions *opt, Buf *out);

#endif
