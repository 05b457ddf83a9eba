/* backend_cuda.h: what the files of the CUDA C backend share
 * (backend_cuda.c the kernels, backend_cuda_vectors.c the vector
 * preamble, backend_cuda_names.c the reserved names, header_cuda.c the
 * host header).  Nothing else includes it: the rest of dpia reaches the
 * backend through its Backend (backend.h). */
#ifndef DPIA_BACKEND_CUDA_H
#define DPIA_BACKEND_CUDA_H

#include "backend.h"

/* backend_cuda_names.c: what name is in CUDA C++ (as nvcc compiles a .cu
 * file: C++17, the CUDA runtime's declarations, C's math.h), for a
 * message, or NULL if it is free.  No name beginning with `v_` is reserved
 * (cg_c_name relies on it to leave the reserved set). */
const char *cuda_name_use(const char *name);
/* the same for a kernel's name: main too */
const char *cuda_kernel_name_use(const char *name);

/* CUDA's own vector types (vector_types.h) hold 2 to 4 lanes of int,
 * float and double, with lanes .x .y .z .w; double4 is deprecated since
 * CUDA 13.  The other widths (8, 16) are structs of the preamble,
 * dpia_float8 { float s[8]; }, with lanes .s[i]; double4 is the
 * preamble's dpia_double4 { double x, y, z, w; }. */
bool cuda_builtin_vector(ScalarKind s, int width);
/* float4, dpia_float8 */
void cuda_vector_name(Buf *out, ScalarKind s, int width);

/* backend_cuda.c: a built-in on a scalar (width 1: CUDA's math function,
 * sqrtf, fmin, min) or on a vector of width (the preamble's lane-wise
 * helper, dpia_sqrt) */
const char *cuda_builtin_spelling(KirBuiltin b, ScalarKind s, int width);

/* backend_cuda_vectors.c: the definitions before the kernel that give its
 * vector expressions their OpenCL meaning (operators lane by lane,
 * comparisons giving -1 or 0, select by the mask's sign, conversions,
 * vector loads and stores, lane-wise built-ins, clamp), for the vector
 * types k uses and not yet in defined (NULL: none). */
void cuda_print_preamble(const KirKernel *k, NameSet *defined, Buf *out);

/* header_cuda.c: the CUDA backend's print_header, a C++ header of the
 * kernels and their launchers for the CUDA runtime */
void cuda_print_header(Arena *a, const char *source_name, int nkernels, const ImpKernel *const *kernels,
                       const char *const *sources, int npipes, const PipeDesc *const *pipes,
                       const CodegenOptions *opt, Buf *out);

#endif
