/* PoCL 3.1 (pthread device, LLVM 15) computes a wrong result with this valid
 * kernel with the cbs and loopvec work-group methods (workitemrepl runs it
 * right): the block one work-item writes, if (get_local_id(0) == 0) { for
 * (i < 2) { ...; for (i_2 < N*2) ...; tmp_2[i] = acc_2; } }, is dropped
 * whole (the final IR of parallel.bc has no store to tmp_2), so tmp and
 * output_1 read NaN.  It is the kernel of
 * tests/diff/open/pocl_single_writer_nest_lost_store.dpia cut down by hand,
 * every step checked: what is left is a loop over work-group ids holding a
 * guarded mapLocal, a barrier, and the single writer's loop nest.  Any one
 * of these makes it right: no guarded region before the barrier (a barrier
 * alone is fine), the inner bound a constant (628), #pragma unroll on the
 * outer loop, every work-item computing with only the store guarded, or the
 * nest in a noinline function called by work-item 0.  It stays wrong with
 * the work-group loop's bound at 1, 2 or 100, with the guard inside the
 * outer loop, a strided loop in place of the mapLocal's if, the inner loop
 * reading only inputs, or a store inside the inner loop.  With the
 * mapLocal's guard removed (every work-item writing), PoCL aborts instead.
 * In the full kernel, an if (wg < 1) in place of the work-group loop does
 * not help either (two more guarded regions come before), and there the
 * noinline function does not help: the fault is in how PoCL forms the
 * regions around barriers, not in the single writer's code.
 * Run it in place of the kernel of the open program:
 *   dpia run tests/diff/open/pocl_single_writer_nest_lost_store.dpia -k k \
 *     --size M=38 N=314 --check \
 *     --opencl-source=tests/diff/known/pocl_group_loop_single_writer_nest.cl
 * expected: output_1 right (output_2 is left NaN by this cut-down kernel:
 * "148 such elements"), observed: "152 such elements" (output_1 too). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef struct {
  double fst;
  double snd;
} pair_double_double;

kernel __attribute__((reqd_work_group_size(4, 1, 1)))
void k(global double *restrict output_1,
       global double *restrict output_2,
       const global double *restrict xs,
       const global int *restrict ys,
       const global double *restrict zs,
       const global double *restrict ws,
       const global double *restrict us,
       const global double2 *restrict vs,
       const global double *restrict in6,
       int M,
       int N,
       global double *tmp,
       global double *tmp_2,
       global pair_double_double *tmp_5,
       global double *tmp_3,
       global pair_double_double *tmp_4) {
  local double acc[2];
  local double next[2];
  for (int wg = get_group_id(0); wg < 100; wg += get_num_groups(0)) { /* mapWorkgroup */
    barrier(CLK_GLOBAL_MEM_FENCE); /* the previous iteration is done with 'tmp' */
    int lid_3 = get_local_id(0);
    if (lid_3 < 2) { /* mapLocal */
      tmp_3[lid_3] = 1.0;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) == 0) { /* written once per group, not by every work-item */
      for (int i = 0; i < 2; i += 1) { /* mapSeq */
        double acc_2 = 0.5;
        for (int i_2 = 0; i_2 < N*2; i_2 += 1) { /* reduceSeq */
          acc_2 = acc_2 * 0.75 + zs[i_2/2] * 0.25;
        }
        tmp_2[i] = acc_2;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); /* PoCL 3.1 needs one here in a work-group loop */
    int lid_4 = get_local_id(0); /* mapLocal */
    tmp[lid_4] = lid_4 >= 2 ? 2.0 : tmp_2[lid_4];
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) == 0) { /* written once per group, not by every work-item */
      for (int i = 0; i < 7; i += 1) { /* mapSeq */
        output_1[i] = tmp[clamp(i - 2, 0, 3)];
      }
    }
  }
}

