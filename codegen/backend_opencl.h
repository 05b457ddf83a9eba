/* backend_opencl.h: what the files of the OpenCL backend share
 * (backend_opencl.c, backend_opencl_names.c, and header.c, its host
 * header).  Nothing else includes it but unit tests (test_names.c, and
 * tests/throughput's for opencl_runs_by_template): the
 * rest of dpia reaches the backend through its Backend (backend.h). */
#ifndef DPIA_BACKEND_OPENCL_H
#define DPIA_BACKEND_OPENCL_H

#include "backend.h"

/* backend_opencl_names.c: what name is in OpenCL C 1.2, 2.0 and 3.0, for a
 * message, or NULL if it is free: a keyword or reserved word, a built-in
 * type (any vector width), function, macro or constant, a reserved prefix
 * (`__`, `_` and a capital, `cl_`, `CL_`, `CLK_`, ...), or not a C
 * identifier (it has a prime).  No name beginning with `v_` is reserved
 * (cg_c_name relies on it to leave the reserved set). */
const char *opencl_name_use(const char *name);
/* the same, each family asked in turn: the reference opencl_name_use, which
 * skips the families a name's first character rules out, agrees with
 * (tests/unit/test_names.c) */
const char *opencl_name_use_each(const char *name);
/* the same for a kernel's name: main too */
const char *opencl_kernel_name_use(const char *name);
/* name is one of OpenCL C's predefined macros or constants (CHAR_BIT,
 * INT_MAX, FLT_MAX, M_PI, NULL, ...), many of which C's headers define too
 * (the C header's launchers avoid them, header.c). */
bool opencl_name_macro(const char *name);

/* backend_opencl.c: how many of the runs of steps (KS_RUN) of k its
 * printer prints from their template (backend_c.c, cprint_run_by_template),
 * for the tests (tests/throughput, unroll) */
int opencl_runs_by_template(Arena *a, const KirKernel *k);

/* header.c: the OpenCL backend's print_header, a C header for the OpenCL
 * host API */
void opencl_print_header(Arena *a, const char *source_name, int nkernels, const ImpKernel *const *kernels,
                         const char *const *sources, int npipes, const PipeDesc *const *pipes,
                         const CodegenOptions *opt, Buf *out);

#endif
