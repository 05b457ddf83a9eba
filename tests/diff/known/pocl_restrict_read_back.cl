/* PoCL 3.1 (pthread device, its default loopvec work-group method)
 * miscompiles this valid kernel: output[2] and one more are NaN (the
 * poisoned initial value), as if the store to tmp[2] were lost or the load
 * of it moved above the store.  It is right with POCL_WORK_GROUP_METHOD=cbs
 * or =loops, without restrict on tmp, with the outer loop replaced by an if
 * or bounded by a constant 1, and when only tmp[0] and tmp[1] are read
 * back.  (It writes 1.0 everywhere, so the check still fails, on the
 * values: "relative error ... exceeds the bound".)  dpia generated its like
 * (a work-group loop over one group) before param_decl (codegen/opencl.c)
 * stopped declaring restrict a buffer the kernel writes and reads back.  Run
 * it in place of the kernel of regress/pocl_restrict_read_back.dpia:
 *   dpia run tests/diff/regress/pocl_restrict_read_back.dpia -k k --size M=41 N=181 \
 *     --local-size=1,1 --check --seed 61 --opencl-source=tests/diff/known/pocl_restrict_read_back.cl
 * expected: "relative error 0.486 exceeds the bound", observed: "element 2
 * is NaN (not written?)". */
kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void k(global float *restrict output, const global float *restrict xs, const global int *restrict ys, int M, int N,
       global float *restrict tmp) {
  for (int wg = 0; wg < N; wg += 1) {
    tmp[0] = 1.0f; tmp[1] = 1.0f; tmp[2] = 1.0f;
    for (int i = 0; i < 5; i += 1) {
      output[i] = tmp[min(i, 2)];
    }
  }
}
