/* PoCL (pthread device) miscompiles this valid kernel: all work-items reach
 * every barrier the same number of times, yet the output is all NaN (the
 * poisoned initial value): the writes of tmp_2 or tmp are lost.  Without the
 * strided loop over j, or without the last barrier, it is correct.  Run it in
 * place of the kernel of regress/pocl_loop_barrier_guard.dpia:
 *   dpia run tests/diff/regress/pocl_loop_barrier_guard.dpia -k k --size N=128 \
 *     --local-size=16 --global-size=16 --check --opencl-source=tests/diff/known/pocl_loop_barrier.cl
 * expected: "relative error ... exceeds the bound" (it writes 5.0, not the
 * kernel's values), observed: "element 0 is NaN (not written?)". */
kernel void k(global float *output, const global float *xs, int N, global float *tmp, global float *tmp_2) {
  for (int wg = get_group_id(0); wg < N/64; wg += get_num_groups(0)) {
    for (int j = get_local_id(0); j < 16; j += get_local_size(0)) {
      tmp_2[wg*64 + j] = 5.0f;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) < 8) {
      tmp[wg*8 + get_local_id(0)] = tmp_2[wg*64 + get_local_id(0)];
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int i = 0; i < 18; i += 1) {
      output[wg*18 + i] = tmp[wg*8 + i % 8];
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
}
