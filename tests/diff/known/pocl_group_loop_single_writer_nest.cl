/* PoCL 3.1 (pthread device, LLVM 15) computes a wrong result with this valid
 * kernel with the cbs and loopvec work-group methods (workitemrepl runs it
 * right): the block one work-item writes, if (get_local_id(0) == 0) { for
 * (i < 2) { ...; for (i_2 < N*2) ...; tmp_2[i] = acc_2; } }, is dropped
 * whole (the final IR of parallel.bc has no store to tmp_2, and its blocks
 * are those of barrier tail replication, *.btr), so tmp and output_1 read
 * NaN.  It is the kernel of
 * tests/diff/regress/pocl_single_writer_nest_lost_store.dpia cut down by
 * hand, every step checked: a loop over work-group ids holding a guarded
 * mapLocal, a barrier, and the single writer's loop nest.
 *
 * The trigger: the barrier before the single writer joins the branches of
 * the statement before it, and the single writer's body is a loop nest
 * whose inner loop may run no step.  It stays wrong with the mapLocal's if
 * a strided loop, or a loop every work-item runs (for j < N: tmp_3[lid*N +
 * j] = 1.0), both joins at the barrier too; with the work-group loop's
 * bound at 1, 2 or 100, the guard inside the outer loop, the guard a
 * variable's test (lid == 0, lid < 1), the barrier fencing both memories,
 * the inner loop counting down or reading only inputs, a store inside the
 * inner loop, or a barrier more at the loop's top or after the nest.
 * Any one of these makes it right: a second barrier just before the
 * single writer (an empty region between the join and the nest: what dpia
 * generates, codegen/barrier_pass.c, pocl_before_single_writer_nest), a
 * statement every work-item runs between the guarded region and the
 * barrier (no join at the barrier), no guarded region before the barrier,
 * the inner loop a do-while or its bound a constant (628; no test for no
 * steps), #pragma unroll on the outer loop, a single loop in place of the
 * nest, the results kept in a private array and stored after the nest,
 * every work-item computing with only the store guarded, the nest in a
 * noinline function called by work-item 0, or no work-group loop (its
 * body once, or under if (wg < 1)).  With the mapLocal's guard removed
 * (every work-item writing), PoCL aborts instead.
 * In the full kernel with an if (wg < 1) in place of the work-group loop
 * (not what dpia generates: two more guarded regions come before), the
 * store is lost too, and neither the second barrier, the do-while, the
 * private array nor every work-item computing helps there.
 * Run it in place of the kernel of the regression program:
 *   dpia run tests/diff/regress/pocl_single_writer_nest_lost_store.dpia -k k \
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

