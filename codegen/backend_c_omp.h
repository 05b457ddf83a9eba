/* backend_c_omp.h: what the files of the C backend (`--target=c`: C11
 * with OpenMP and GCC/Clang vector extensions, docs/targets.md) share:
 * backend_c_omp.c the kernels and their work-group structure,
 * backend_c_omp_vectors.c the preamble (vector types and helpers),
 * backend_c_omp_names.c the reserved names, header_c_omp.c the host
 * header.  Nothing else includes it: the rest of dpia reaches the backend
 * through its Backend (backend.h). */
#ifndef DPIA_BACKEND_C_OMP_H
#define DPIA_BACKEND_C_OMP_H

#include "backend.h"

/* backend_c_omp_names.c: what name is in C11 with the headers the
 * generated code includes (math.h, stdbool.h, stddef.h, string.h, omp.h),
 * for a message, or NULL if it is free.  No name beginning with `v_` is
 * reserved (cg_c_name relies on it to leave the reserved set). */
const char *c_omp_name_use(const char *name);
const char *c_omp_kernel_name_use(const char *name);

/* backend_c_omp_vectors.c: float4, int8 (a GCC/Clang vector type the
 * preamble defines), or the scalar's C name */
void c_omp_type_name(Buf *out, ScalarKind s, int width);
/* the spelling of a built-in on a scalar (fminf, sqrt, dpia_min_int) or
 * a vector of width (the preamble's lane-wise dpia_min_float4) */
void c_omp_builtin_name(Buf *out, KirBuiltin b, ScalarKind s, int width);
/* the includes (once in a program), and the vector types and helpers k
 * uses that the program does not define yet (defined NULL: all); guard:
 * each under `#ifndef DPIA_C_HAVE_NAME` (a header, which may meet
 * another dpia header's in one file) */
void c_omp_print_preamble(const KirKernel *k, NameSet *defined, bool guard, Buf *out);

/* backend_c_omp.c: why the C backend cannot split k's work-groups into
 * loops over their work-items (a barrier under control that varies within
 * a work-group, local memory declared inside a work-item's code), or NULL */
const char *c_omp_refusal(Arena *a, const KirKernel *k);

/* k as a header holds it: static, without the entry by address, what
 * defined holds already left out */
void c_omp_print_header_kernel(const KirKernel *k, NameSet *defined, Buf *out);

/* header_c_omp.c: the C backend's print_header */
void c_omp_print_header(Arena *a, const char *source_name, int nkernels, const ImpKernel *const *kernels,
                        const char *const *sources, int npipes, const PipeDesc *const *pipes,
                        const CodegenOptions *opt, Buf *out);

#endif
