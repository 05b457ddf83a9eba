/* PoCL 3.1 (pthread device) miscompiles this valid kernel: output[0] is 0
 * (acc[0], written by the last iteration of the reduceSeq loop, or loc[1],
 * which it reads, is lost).  It is right with
 * POCL_EXTRA_BUILD_FLAGS=-cl-opt-disable, with a barrier between the
 * mapLocal1 that writes loc and the mapLocal that initialises acc, with those
 * two in the other order, and without the loop over wg.  dpia generated it
 * before pocl_after_guard (codegen/barrier_pass.c).  Run it in place of the kernel
 * of regress/pocl_2d_local_loop.dpia:
 *   dpia run tests/diff/regress/pocl_2d_local_loop.dpia -k k --size N=30 \
 *     --local-size=4,6 --check --opencl-source=tests/diff/known/pocl_2d_local_loop.cl
 * expected: "check ...: ok", observed: "largest at element 0: got 0". */
kernel __attribute__((reqd_work_group_size(4, 6, 1)))
void k(global float *restrict output,
       const global float *restrict xs,
       const global float *restrict zs,
       int N) {
  local float loc[3];
  local float loc_2[3];
  local float acc[2];
  for (int wg = get_group_id(0); wg < N/5; wg += get_num_groups(0)) { /* mapWorkgroup */
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous iteration is done with 'acc' */
    int lid = get_local_id(0);
    if (lid < 3) { /* mapLocal */
      if (get_local_id(1) == 0) { /* the other work-items would write the same */
        loc_2[lid] = xs[wg*5 + lid] * 2.0f;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int lid_2 = get_local_id(1);
    if (lid_2 < 3) { /* mapLocal1 */
      if (get_local_id(0) == 0) { /* the other work-items would write the same */
        loc[lid_2] = loc_2[lid_2] + 1.0f;
      }
    }
    int lid_3 = get_local_id(0);
    if (lid_3 < 2) { /* mapLocal */
      if (get_local_id(1) == 0) { /* the other work-items would write the same */
        acc[lid_3] = zs[lid_3];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < 2; i += 1) { /* reduceSeq */
      int lid_4 = get_local_id(0);
      if (lid_4 < 2) { /* mapLocal */
        if (get_local_id(1) == 0) { /* the other work-items would write the same */
          acc[lid_4] = loc[i + lid_4] + loc[i + lid_4];
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (get_group_id(1) == 0 && get_local_id(0) == 0 && get_local_id(1) == 0) { /* written once per group, not by every work-item */
      /* mapSeq, 2 steps */
      output[wg] = acc[0];
      output[wg + N/5] = acc[1];
    }
  }
}
