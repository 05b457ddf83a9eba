/* backend.h: what a target language provides to code generation (as QBE's
 * Target): its reserved names, and the text of a kernel in the kernel IR
 * (kir.h).  OpenCL C is the one instance (backend_opencl.c). */
#ifndef DPIA_BACKEND_H
#define DPIA_BACKEND_H

#include "kir.h"

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
} Backend;

extern const Backend backend_opencl;

#endif
