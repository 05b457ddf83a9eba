/* PoCL 3.1 (pthread device) computes a wrong result with this valid kernel,
 * with every work-group method (loopvec, cbs, loops): in the loop over
 * work-group ids, the body written once per group (tmp_2 and tmp, by the
 * work-item (0, 0)) is followed without a barrier by the mapLocal1 that
 * initialises acc; the reduceSeq after the barrier then reads wrong values.
 * It is right with a barrier between the two.  dpia generated it before
 * gen_single_writer marked its body for pocl_after_guard (codegen/barrier_pass.c).
 * Run it in place of the kernel of regress/pocl_single_writer_loop.dpia:
 *   dpia run tests/diff/regress/pocl_single_writer_loop.dpia -k k --size M=56 N=48 \
 *     --local-size=10,10 --global-size=10,340 --check --seed 63 \
 *     --opencl-source=tests/diff/known/pocl_single_writer_loop.cl
 * expected: "check ...: ok", observed: "relative error 127 exceeds the bound". */
constant int4 table[4] = {(int4)(-1), (int4)(-1), (int4)(2), (int4)(3)};

kernel __attribute__((reqd_work_group_size(10, 10, 1)))
void k(global int4 *restrict output,
       const global int *restrict xs,
       const global int4 *restrict ys,
       int M,
       int N,
       global int4 *tmp,
       global int *tmp_3,
       global int4 *tmp_2) {
  local int4 acc[5];
  local int4 next[5];
  for (int wg = get_group_id(1); wg < M; wg += get_num_groups(1)) { /* mapWorkgroup1 */
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous iteration is done with 'acc' */
    for (int lid = get_local_id(1); lid < N; lid += get_local_size(1)) { /* mapLocal1 */
      if (get_local_id(0) == 0) { /* the other work-items would write the same */
        tmp_3[wg*N + lid] = xs[(wg%(M/4)*4 + wg/(M/4))*N + lid] % 16;
      }
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) == 0 && get_local_id(1) == 0) { /* written once per group, not by every work-item */
      for (int i = 0; i < N/16; i += 1) { /* mapSeq */
        /* mapSeq, 4 steps */
        tmp_2[wg*4] = vload4(wg*(N/4) + i*4, tmp_3) * table[0];
        tmp_2[wg*4 + 1] = vload4(wg*(N/4) + i*4 + 1, tmp_3) * table[0];
        tmp_2[wg*4 + 2] = vload4(wg*(N/4) + i*4 + 2, tmp_3) * table[0];
        tmp_2[wg*4 + 3] = vload4(wg*(N/4) + i*4 + 3, tmp_3) * table[0];
        for (int i_2 = 0; i_2 < 5; i_2 += 1) { /* mapSeq */
          tmp[N/16*wg*5 + i*5 + i_2] = tmp_2[wg*4 + max(i_2 - 1, 0)];
        }
      }
    }
    int lid = get_local_id(1);
    if (lid < 5) { /* mapLocal1 */
      if (get_local_id(0) == 0) { /* the other work-items would write the same */
        acc[lid] = ys[lid];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (int i = 0; i < 2; i += 1) { /* reduceSeq */
      int lid_2 = get_local_id(1);
      if (lid_2 < 5) { /* mapLocal1 */
        if (get_local_id(0) == 0) { /* the other work-items would write the same */
          next[lid_2] = (acc[lid_2] * 3 + ((int4)(1) - 3 + tmp[N/16*wg*5 + i*5 + lid_2])) % 1009;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); /* PoCL 3.1 needs one between two mapLocals in a work-group loop */
      int lid_3 = get_local_id(1);
      if (lid_3 < 5) { /* mapLocal1 */
        if (get_local_id(0) == 0) { /* the other work-items would write the same */
          acc[lid_3] = next[lid_3];
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    int lid_2 = get_local_id(0);
    if (lid_2 < 5) { /* mapLocal */
      if (get_local_id(1) == 0) { /* the other work-items would write the same */
        output[wg*5 + lid_2] = acc[lid_2] * (5 + acc[lid_2]) + acc[lid_2] - acc[lid_2] * 2;
      }
    }
  }
}
