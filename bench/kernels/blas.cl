/* Hand-written OpenCL kernels that bench/blas_bench.c compares with the
 * kernels dpia generates from the samples.  For each operation there is
 * a straightforward kernel (what a first OpenCL version looks like: one
 * work-item per element or row, or the textbook grid-stride reduction with a
 * tree in local memory) and a careful one, written for the CPU device
 * (PoCL): each work-item streams a contiguous chunk with 16-wide vector
 * loads (one AVX-512 register) and two independent accumulators, so that
 * the loop is limited by memory, not by the latency of the additions.
 *
 * Partial results of the reductions are summed on the host, like the
 * partial sums of the dpia kernels. */

/* ---- scal: y = alpha * x ---- */

kernel void scal_simple(global float *restrict y, const global float *restrict x, float alpha) {
  size_t i = get_global_id(0);
  y[i] = alpha * x[i];
}

/* chunk float16 per work-item */
kernel void scal_vec(global float *restrict y, const global float *restrict x, float alpha, int chunk) {
  size_t base = get_global_id(0) * (size_t)chunk;
  for (int i = 0; i < chunk; i++) vstore16(alpha * vload16(base + i, x), base + i, y);
}

/* ---- asum: sum of |x[i]| ---- */

/* the textbook reduction: grid-stride loop, tree in local memory, one
 * partial sum per work-group (local size a power of two) */
kernel void asum_simple(global float *restrict partial, const global float *restrict x, int n,
                        local float *scratch) {
  float s = 0.0f;
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) s += fabs(x[i]);
  int l = get_local_id(0);
  scratch[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = get_local_size(0) / 2; w > 0; w /= 2) {
    if (l < w) scratch[l] += scratch[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) partial[get_group_id(0)] = scratch[0];
}

static float hsum16(float16 v) {
  float8 a = v.lo + v.hi;
  float4 b = a.lo + a.hi;
  float2 c = b.lo + b.hi;
  return c.x + c.y;
}

/* chunk (even) float16 per work-item, one partial sum per work-item */
kernel void asum_vec(global float *restrict partial, const global float *restrict x, int chunk) {
  size_t g = get_global_id(0);
  const global float *p = x + g * (size_t)chunk * 16;
  float16 a0 = 0.0f, a1 = 0.0f;
  for (int i = 0; i < chunk; i += 2) {
    a0 += fabs(vload16(i, p));
    a1 += fabs(vload16(i + 1, p));
  }
  partial[g] = hsum16(a0 + a1);
}

/* ---- dot: sum of x[i] * y[i] ---- */

kernel void dot_simple(global float *restrict partial, const global float *restrict x,
                       const global float *restrict y, int n, local float *scratch) {
  float s = 0.0f;
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) s += x[i] * y[i];
  int l = get_local_id(0);
  scratch[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = get_local_size(0) / 2; w > 0; w /= 2) {
    if (l < w) scratch[l] += scratch[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) partial[get_group_id(0)] = scratch[0];
}

kernel void dot_vec(global float *restrict partial, const global float *restrict x,
                    const global float *restrict y, int chunk) {
  size_t g = get_global_id(0);
  const global float *p = x + g * (size_t)chunk * 16;
  const global float *q = y + g * (size_t)chunk * 16;
  float16 a0 = 0.0f, a1 = 0.0f;
  for (int i = 0; i < chunk; i += 2) {
    a0 = fma(vload16(i, p), vload16(i, q), a0);
    a1 = fma(vload16(i + 1, p), vload16(i + 1, q), a1);
  }
  partial[g] = hsum16(a0 + a1);
}

/* ---- gemv: out = alpha * A x + beta * y, A row-major [m][n] ---- */

kernel void gemv_simple(global float *restrict out, const global float *restrict a,
                        const global float *restrict x, const global float *restrict y, float alpha,
                        float beta, int n) {
  size_t row = get_global_id(0);
  const global float *r = a + row * (size_t)n;
  float s = 0.0f;
  for (int j = 0; j < n; j++) s += r[j] * x[j];
  out[row] = alpha * s + beta * y[row];
}

/* one row per work-item, n % 32 == 0 */
kernel void gemv_vec(global float *restrict out, const global float *restrict a,
                     const global float *restrict x, const global float *restrict y, float alpha,
                     float beta, int n) {
  size_t row = get_global_id(0);
  const global float *r = a + row * (size_t)n;
  float16 a0 = 0.0f, a1 = 0.0f;
  for (int j = 0; j < n / 16; j += 2) {
    a0 = fma(vload16(j, r), vload16(j, x), a0);
    a1 = fma(vload16(j + 1, r), vload16(j + 1, x), a1);
  }
  out[row] = alpha * hsum16(a0 + a1) + beta * y[row];
}

/* ---- matrix multiply: c = a b, a [m][k], b [k][n] ---- */

kernel void mm_simple(global float *restrict c, const global float *restrict a,
                      const global float *restrict b, int n, int k) {
  int j = get_global_id(0), i = get_global_id(1);
  float s = 0.0f;
  for (int l = 0; l < k; l++) s += a[i * k + l] * b[l * n + j];
  c[i * n + j] = s;
}

/* 16 x 16 tiles of a and b in local memory, one output per work-item */
kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void mm_tiled(global float *restrict c, const global float *restrict a, const global float *restrict b,
              int n, int k) {
  local float ta[16][16], tb[16][16];
  int lj = get_local_id(0), li = get_local_id(1);
  int j = get_global_id(0), i = get_global_id(1);
  float s = 0.0f;
  for (int t = 0; t < k; t += 16) {
    ta[li][lj] = a[i * k + t + lj];
    tb[li][lj] = b[(t + li) * n + j];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = 0; l < 16; l++) s += ta[li][l] * tb[l][lj];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[i * n + j] = s;
}

/* the CPU version: 4 rows x 16 columns of c per work-item, in four float16
 * accumulators, so that each vector of b is loaded once for 4 rows; global
 * size (n/16, m/4), n % 16 == 0, m % 4 == 0 */
kernel void mm_block(global float *restrict c, const global float *restrict a, const global float *restrict b,
                     int n, int k) {
  int j = get_global_id(0), i = get_global_id(1) * 4;
  const global float *a0 = a + i * k, *a1 = a0 + k, *a2 = a1 + k, *a3 = a2 + k;
  float16 c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
  for (int l = 0; l < k; l++) {
    float16 bv = vload16(j, b + l * n);
    c0 = fma((float16)a0[l], bv, c0);
    c1 = fma((float16)a1[l], bv, c1);
    c2 = fma((float16)a2[l], bv, c2);
    c3 = fma((float16)a3[l], bv, c3);
  }
  vstore16(c0, j, c + i * n);
  vstore16(c1, j, c + (i + 1) * n);
  vstore16(c2, j, c + (i + 2) * n);
  vstore16(c3, j, c + (i + 3) * n);
}

/* ---- stencils with clamped boundaries ---- */

/* 3-point mean, as samples/stencil1d.dpia */
kernel void stencil1d(global float *restrict y, const global float *restrict x, int n) {
  int i = get_global_id(0);
  y[i] = (x[max(i - 1, 0)] + x[i] + x[min(i + 1, n - 1)]) / 3.0f;
}

/* 5-point Jacobi step, as samples/jacobi2d.dpia; x is [m][n] */
kernel void jacobi2d(global float *restrict y, const global float *restrict x, int m, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  int up = max(i - 1, 0), down = min(i + 1, m - 1), left = max(j - 1, 0), right = min(j + 1, n - 1);
  y[i * n + j] = (x[up * n + j] + x[i * n + left] + x[i * n + j] + x[i * n + right] + x[down * n + j]) * 0.2f;
}

/* 7-point heat step, as samples/heat3d.dpia (Lift's and shine's Heat3D);
 * x is [p][m][n], one work-item per cell, neighbours clamped */
kernel void heat3d(global float *restrict y, const global float *restrict x, int p, int m, int n) {
  int j = get_global_id(0), i = get_global_id(1), k = get_global_id(2);
  int front = max(k - 1, 0), back = min(k + 1, p - 1), up = max(i - 1, 0), down = min(i + 1, m - 1);
  int left = max(j - 1, 0), right = min(j + 1, n - 1);
  int plane = m * n, at = k * plane + i * n + j;
  float c = x[at];
  y[at] = c + 0.125f * (x[front * plane + i * n + j] + x[back * plane + i * n + j] + x[k * plane + up * n + j] +
                        x[k * plane + down * n + j] + x[at - j + left] + x[at - j + right] - 6.0f * c);
}

/* ---- the launch alone ---- */

/* nothing to do: blas_bench launches it with the NDRange of the best dpia
 * strategy of a memory-bound operation (and reads back as many partial
 * sums), so that the run measures what the launch itself costs (enqueue,
 * waking PoCL's threads, dealing out the work-groups, clFinish), which
 * the host loops it is compared with do not pay */
kernel void launch_only(global float *restrict out) { (void)out; }
