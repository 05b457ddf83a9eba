/* The kernels dpia generated from samples/stencil1d.dpia (stencil) and
 * samples/jacobi2d.dpia before sequential loops of at most 4 steps were
 * written out step by step (codegen/opencl.c, gen_for_unrolled), kept so
 * that bench/blas_bench measures what that change bought in the same run.
 * Only the kernel names differ from the generator's output of then. */

kernel void stencil_before(global float *restrict output, const global float *restrict xs, int N) {
  int gid = get_global_id(0); /* mapGlobal */
  float acc;
  acc = 0.0f;
  for (int i = 0; i < 3; i += 1) { /* reduceSeq */
    acc = xs[clamp(gid + i - 1, 0, N - 1)] + acc;
  }
  output[gid] = acc / 3.0f;
}

kernel void jacobi2d_before(global float *restrict output, const global float *restrict xs, int M, int N) {
  int gid = get_global_id(1); /* mapGlobal1 */
  int gid_2 = get_global_id(0); /* mapGlobal */
  float acc;
  acc = 0.0f;
  for (int i = 0; i < 3; i += 1) { /* reduceSeq */
    acc = xs[clamp(gid + i - 1, 0, M - 1)*N + gid_2] + acc;
  }
  float acc_2;
  acc_2 = 0.0f;
  for (int i = 0; i < 2; i += 1) { /* reduceSeq */
    acc_2 = xs[gid*N + clamp(i*2 + gid_2 - 1, 0, N - 1)] + acc_2;
  }
  output[gid*N + gid_2] = (acc + acc_2) * 0.2f;
}
