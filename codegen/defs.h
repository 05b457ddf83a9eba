/* defs.h: code generation for the imperative defs of a program, apart from
 * the translation (defs.c). */
#ifndef DPIA_CODEGEN_DEFS_H
#define DPIA_CODEGEN_DEFS_H

#include "kernel.h"

typedef struct DefsOutput {
  Buf opencl;      /* the kernels, a blank line between two */
  Buf json;        /* "[\n", their metadata objects ",\n"-separated, "]\n"; empty without a kernel */
  Buf diagnostics; /* rendered as text; empty when every def was generated */
  int nkernels;
  const char **kernels; /* each kernel's source (kernel_lens[i] bytes) */
  size_t *kernel_lens;
} DefsOutput;

/* Parse and check text (named name), then generate every imperative def
 * for backend's target:
 * a def, not a kernel, whose parameters are acc, exp or acc-with phrases
 * and whose result is comm (the input shape of codegen/kernel.h, written
 * by hand).  Everything lives in arena, whose DpiaMem's on_oom must be set. */
void codegen_imperative_defs(Arena *arena, const Backend *backend, const char *name, const char *text, size_t len,
                             const CodegenOptions *opt, DefsOutput *out);

#endif
