/* PoCL 3.1's compiler crashes (signal 11 while building, with every
 * work-group method: loopvec, cbs, loops) on this valid kernel: two
 * work-group stages, the first run by group 0 only (if (wg < 1)) with
 * single-writer guards (if (get_local_id(0) == 0)) around a barrier, the
 * second a loop over group ids.  It builds and runs right with a barrier
 * between the two stages, or without the guards.  dpia generated it before
 * pocl_after_group_stage (codegen/barrier_pass.c).  Run it in place of the kernel
 * of regress/pocl_group_stage_crash.dpia:
 *   dpia run tests/diff/regress/pocl_group_stage_crash.dpia -k k --size N=224 \
 *     --local-size=4,1 --global-size=68,1 --opencl-source=tests/diff/known/pocl_group_stage_crash.cl
 * expected: a run, observed: "the OpenCL implementation ended the run with
 * signal 11". */
typedef struct {
  float4 fst;
  float4 snd;
} pair_float4_float4;

typedef struct {
  float4 fst;
  pair_float4_float4 snd;
} pair_float4_pair_float4_float4;

kernel __attribute__((reqd_work_group_size(4, 1, 1)))
void k(global float4 *restrict output_1,
       global float2 *restrict output_2,
       float alpha,
       const global float *restrict xs,
       const global float2 *restrict ys,
       const global float *restrict zs,
       int N,
       global pair_float4_pair_float4_float4 *tmp) {
  int wg = get_group_id(0);
  if (wg < 1) { /* mapWorkgroup */
    for (int lid = get_local_id(1); lid < 2; lid += get_local_size(1)) { /* mapLocal1 */
      if (get_local_id(0) == 0) { /* the other work-items would write the same */
        tmp[lid].fst = vload4(lid + 2, xs);
        tmp[lid].snd.fst = (float4)(exp(-fabs(rsqrt(1.0f + fabs(alpha)))));
        tmp[lid].snd.snd = (float4)(alpha);
      }
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int lid = get_local_id(1); lid < 2; lid += get_local_size(1)) { /* mapLocal1 */
      if (get_local_id(0) == 0) { /* the other work-items would write the same */
        output_1[lid] = max(fma(tmp[lid].snd.fst, tmp[lid].snd.snd, (float4)(alpha)), alpha + tmp[lid].fst);
      }
    }
  }
  for (int wg_2 = get_group_id(0); wg_2 < N/8; wg_2 += get_num_groups(0)) { /* mapWorkgroup */
    int lid = get_local_id(0); /* mapLocal */
    output_2[wg_2*4 + lid] = (float2)(alpha * 0.5f) + vload2(wg_2*4 + lid, zs);
  }
}
