/* PoCL 3.1 (pthread device, its default loopvec work-group method)
 * miscompiles this valid kernel: output_2[2*g + 1] (acc[1]) is NaN, as if
 * the reduceSeq loop read tmp_2 before the work-items that write it had run.
 * It is right with POCL_WORK_GROUP_METHOD=cbs or =loops, with a barrier
 * between the mapLocal that writes tmp_2 and the one that initialises acc,
 * with those two in the other order, and with the loop over wg_2 replaced
 * by an if.  (Every group runs the loop at most once at this size, so no
 * barrier is needed at its top.)  dpia generated its like before
 * pocl_after_guard (codegen/barrier_pass.c) put a barrier between any two
 * mapLocals in a work-group loop.  Run it in place of the kernel of
 * regress/pocl_group_loop_local_pair.dpia:
 *   dpia run tests/diff/regress/pocl_group_loop_local_pair.dpia -k k --size N=3776 \
 *     --check --seed 61 --opencl-source=tests/diff/known/pocl_group_loop_local_pair.cl
 * expected: only output_1 unwritten ("1888 such elements" not counted:
 * "15088 such elements of 16976"), observed: "16032 such elements of 16976"
 * (this kernel leaves output_1 unwritten and writes a constant in
 * output_2[2*g], to show what is lost). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void k(global double *restrict output_1, global double8 *restrict output_2, const global double *restrict xs, int ys,
       const global double *restrict zs, const global double *restrict ws, const global double8 *restrict us, int N,
       global double *restrict tmp, global double8 *restrict tmp_2) {
  local double8 loc[4];
  local double8 acc[2];
  local double8 next[2];
  for (int wg_2 = get_group_id(0); wg_2 < N/32; wg_2 += get_num_groups(0))
  {
    int lid_3 = get_local_id(0);
    if (lid_3 < 4) {
      loc[lid_3] = vload8(wg_2*4 + lid_3, ws);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int lid_4 = get_local_id(0);
    if (lid_4 < 6) {
      tmp_2[wg_2*6 + lid_4] = loc[lid_4 % 4];
    }
    int lid_5 = get_local_id(0);
    if (lid_5 < 2) {
      acc[lid_5] = us[lid_5];
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (int i = 0; i < 3; i += 1) {
      int lid_6 = get_local_id(0);
      if (lid_6 < 2) {
        next[lid_6] = acc[lid_6] * 0.5 + tmp_2[wg_2*6 + (i*2 + lid_6)%3*2 + (i*2 + lid_6)/3];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      int lid_7 = get_local_id(0);
      if (lid_7 < 2) {
        acc[lid_7] = next[lid_7];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (get_local_id(0) == 0) {
      output_2[wg_2*2] = (double8)(1.0);
      output_2[wg_2*2 + 1] = acc[1];
    }
  }
}
