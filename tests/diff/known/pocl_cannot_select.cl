/* PoCL 3.1 (pthread device, LLVM 15) aborts compiling this valid kernel,
 * the code dpia generated for regress/pocl_cannot_select.dpia before it read
 * a padded element used more than once into a variable:
 *   LLVM ERROR: Cannot select: ... v8f32 = and (masked_load ...)
 * (the loop over i vectorised with masked loads for the padded read, then
 * fabs of a masked load as a bitwise and).  The same computation with the
 * padded element read once into a variable compiles.
 *   dpia run tests/diff/regress/pocl_cannot_select.dpia --size N=55 \
 *     --opencl-source=tests/diff/known/pocl_cannot_select.cl
 * dpia run ends with exit 4 and says that the OpenCL implementation failed. */
kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void k(global float *restrict output, const global float *restrict xs, int N) {
  int wg = get_group_id(0); /* mapWorkgroup */
  for (int i = 0; i < 8; i += 1) { /* mapSeq */
    output[wg*8 + i] = fma((float)(int)((wg*8 + i < 1 ? 0.25f : xs[wg*8 + i - 1]) * 4.0f) * 0.25f + (wg*8 + i < 1 ? 0.25f : xs[wg*8 + i - 1]) + exp(-fabs(wg*8 + i < 1 ? 0.25f : xs[wg*8 + i - 1])), fabs((wg*8 + i < 1 ? 0.25f : xs[wg*8 + i - 1]) * 1.5f), fabs((wg*8 + i < 1 ? 0.25f : xs[wg*8 + i - 1]) / (1.0f + fabs(wg*8 + i < 1 ? 0.25f : xs[wg*8 + i - 1]))));
  }
}
