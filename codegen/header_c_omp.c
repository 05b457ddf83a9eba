#include "backend_c_omp.h"
void c_omp_print_header(Arena *a, const char *source_name, int nkernels, const ImpKernel *const *kernels,
                        const char *const *sources, int npipes, const PipeDesc *const *pipes,
                        const CodegenOptions *opt, Buf *out) {
  (void)a, (void)source_name, (void)nkernels, (void)kernels, (void)sources, (void)npipes, (void)pipes, (void)opt, (void)out;
}
