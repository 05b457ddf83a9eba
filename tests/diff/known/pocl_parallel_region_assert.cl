/* PoCL 3.1 (pthread device) aborts compiling this valid kernel (reduced from
 * the code dpia generates for regress/pocl_parallel_region_assert.dpia):
 *   ParallelRegion.cc:346: ... Assertion `exit != NULL' failed.
 *   dpia run tests/diff/regress/pocl_parallel_region_assert.dpia -k k --size N=99 \
 *     --local-size=2 --global-size=48 --opencl-source=tests/diff/known/pocl_parallel_region_assert.cl */
typedef struct {
  float fst;
  float snd;
} pair_float_float;
kernel __attribute__((reqd_work_group_size(2, 1, 1)))
void k(global pair_float_float *restrict output,
       const global pair_float_float *restrict xs,
       const global float *restrict ys,
       int N) {
  local float loc[12];
  for (int wg = get_group_id(0); wg < (N - 3)/4; wg += get_num_groups(0)) { /* mapWorkgroup */
    for (int i = 0; i < 3; i += 1) { /* mapSeq */
      loc[i*4] = ys[0] / 4.0f;
      loc[i*4 + 1] = ys[1] / 4.0f;
      loc[i*4 + 2] = ys[2] / 4.0f;
      loc[i*4 + 3] = ys[3] / 4.0f;
    }
    for (int i = 0; i < 5; i += 1) { /* mapSeq */
      pair_float_float acc;
      acc.fst = 2.0f;
      acc.snd = 1.5f;
      float acc_2;
      acc_2 = 2.0f;
      float acc_3;
      acc_3 = 0.75f;
      for (int i_2 = 0; i_2 < 2; i_2 += 1) { /* mapSeq */
        float acc_4;
        acc_4 = 2.0f;
      }
      float acc_4;
      acc_4 = 1.5f;
      float acc_5;
      acc_5 = 0.25f;
      acc_5 = acc_5 * 0.75f + sin(loc[min(i, 2)*4 + 3]) / 2.0f * 0.25f;
      acc_4 = acc_5 - acc_4 * 0.5f;
      acc.snd = fma(acc.snd, 0.5f, acc_4);
      output[wg*5 + i].snd = acc.snd;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
