/* peer_bench.c: the peers' benchmark set (the programs Lift's CGO 2017
 * paper and its successors compare with: AMD APP SDK, SHOC, Rodinia,
 * Parboil, PolyBench/GPU), each a dpia sample against the well-known hand-written
 * kernel of its suite (bench/kernels/peer.cl), timed in blas_bench's
 * rounds and reported as the speed of the best dpia strategy over the best
 * hand-written kernel, with the 95% interval of paired_ratio.
 *
 *   nbody        samples/nbody.dpia (nbody, nbodyLocal, nbodyVec)  AMD APP SDK NBody, nbody_sim
 *   md           samples/md.dpia (md)                              SHOC MD, compute_lj_force
 *   gaussian3x3  samples/gaussian_blur.dpia                        a 3 x 3 convolution (SimpleConvolution)
 *   gesummv      samples/gesummv.dpia (gesummv, gesummvVec)        PolyBench/GPU gesummv_kernel
 *   atax         samples/atax.dpia (pipelines atax, ataxVec)       PolyBench/GPU atax_kernel1, atax_kernel2
 *   nn           samples/nn.dpia                                   Rodinia nn, NearestNeighbor
 *   mriq         samples/mriq.dpia (mriq, mriqTwo, mriqVec)        Parboil mri-q, ComputeQ_GPU
 *   kmeans       samples/kmeans.dpia (kmeans, kmeansVec)           Rodinia kmeans, kmeans_kernel_c
 *   scan         samples/scan_bottom.dpia (bottomScan)             SHOC scan, bottom_scan
 *   spmv         samples/spmv.dpia (csrScalar, csrVector)          SHOC spmv, csr_scalar and csr_vector
 *   hotspot3d    samples/hotspot3d.dpia (hotspotOpt1, hotspotSlide) Rodinia hotspot3D, hotspotOpt1
 *   mriq2        samples/mriq.dpia (mriqTwo)                       Parboil ComputeQ_GPU, Qr and Qi in two buffers
 *   covariance   samples/covariance.dpia (pipelines covariance,    PolyBench/GPU mean_kernel, reduce_kernel,
 *                covarianceGroups)                                 covar_kernel
 *   correlation  samples/correlation.dpia (pipelines correlation, PolyBench/GPU mean_kernel, std_kernel,
 *                correlationPad, correlationPadGroups)             reduce_kernel, corr_kernel, on rows of m
 *                                                                  and of m + 1 (PolyBench's own layout)
 *   adi          samples/adi.dpia (adiKernel1, adiRows)            PolyBench/GPU adi_kernel1 (in double)
 *   sgemm        samples/sgemm_shoc.dpia (sgemmNN)                 SHOC gemm, sgemmNN
 *   cfd          samples/cfd_flux.dpia (computeFlux)               Rodinia cfd, compute_flux
 *   lud          samples/lud.dpia (ludDiagonal, ludPerimeter,      Rodinia lud, lud_diagonal, lud_perimeter,
 *                ludInternal), three rows, each kernel alone       lud_internal
 *
 * nbody, mriq, kmeans, gesummv and atax have one more hand-written kernel
 * each, with float8 vectors (nbody_vec: eight bodies a work-item;
 * ComputeQ_vec: eight voxels; kmeans_vec: eight points; gesummv_vec,
 * atax_kernel1_vec + atax_kernel2_vec: float8 sums): on a CPU device a
 * work-item's loop runs in one SIMD lane, so the suites' kernels are bound
 * by a scalar square root and division (nbody), scalar sin and cos (mriq),
 * scalar arithmetic (kmeans) or the latency of one chain of FMAs
 * (PolyBench), and dpia's strategies with float8 values (nbodyVec,
 * mriqVec, kmeansVec, gesummvVec, ataxVec) are compared with the same
 * written by hand.
 *
 * Every implementation is checked against a double-precision host
 * reference before it is timed (blas_bench.c, check); `blas_bench --check
 * --only peer` does only that, at small sizes (the meson test
 * bench-peer-check). */
#include "bench_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cl_program peer_program; /* bench/kernels/peer.cl, built on first use */

static cl_program program(void) {
  if (!peer_program) peer_program = build_file("bench/kernels/peer.cl");
  return peer_program;
}

void peer_release(void) {
  if (peer_program) clReleaseProgram(peer_program);
  peer_program = NULL;
}

/* ---- inputs and bindings ---- */

static void bind_mem(Op *op, const char *name, const void *host, size_t bytes) {
  if (op->nbinds == MAX_BINDS) die("too many bindings");
  op->binds[op->nbinds++] = (Bind){name, A_MEM, buffer(bytes, host), 0, 0};
}

static void bind_float(Op *op, const char *name, float f) {
  if (op->nbinds == MAX_BINDS) die("too many bindings");
  op->binds[op->nbinds++] = (Bind){name, A_FLOAT, NULL, f, 0};
}

static void bind_nat(Op *op, const char *name, long long v) {
  if (op->nbinds == MAX_BINDS) die("too many bindings");
  op->binds[op->nbinds++] = (Bind){name, A_INT, NULL, 0, v};
}

static cl_mem mem_of(const Op *op, const char *name) {
  for (int i = 0; i < op->nbinds; i++)
    if (op->binds[i].kind == A_MEM && !strcmp(op->binds[i].name, name)) return op->binds[i].mem;
  die("%s: no buffer %s", op->name, name);
}

static float float_of(const Op *op, const char *name) {
  for (int i = 0; i < op->nbinds; i++)
    if (op->binds[i].kind == A_FLOAT && !strcmp(op->binds[i].name, name)) return op->binds[i].f;
  die("%s: no scalar %s", op->name, name);
}

static void new_reference(Op *op, size_t count) {
  op->ref_count = count;
  op->ref_vec = xmalloc(sizeof(double) * count);
}

/* AMD APP SDK NBody's set-up: positions in [3, 50), masses in [1, 1000),
 * the time step 0.005 and the softening 500; velocities here in [-1, 1)
 * (nbody_sim starts from 0), their .w 0.  The reference, in double:
 * out = (newPos, newVel) per body. */
static void make_nbody(Op *op) {
  long long n = op->n;
  float *pos = falloc((size_t)n * 4), *vel = falloc((size_t)n * 4);
  for (long long i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) pos[i * 4 + c] = rnd(3.0f, 50.0f), vel[i * 4 + c] = rnd(-1.0f, 1.0f);
    pos[i * 4 + 3] = rnd(1.0f, 1000.0f);
    vel[i * 4 + 3] = 0.0f;
  }
  const float dt = 0.005f, eps = 500.0f;
  bind_mem(op, "pos", pos, (size_t)n * 16);
  bind_mem(op, "vel", vel, (size_t)n * 16);
  bind_float(op, "deltaTime", dt);
  bind_float(op, "epsSqr", eps);
  bind_nat(op, "WG", 256);
  new_reference(op, (size_t)n * 8);
  op->fields = 8;
  double *ref = op->ref_vec;
#pragma omp parallel for schedule(dynamic, 64)
  for (long long i = 0; i < n; i++) {
    const float *p = pos + i * 4, *v = vel + i * 4;
    double acc[3] = {0, 0, 0};
    for (long long j = 0; j < n; j++) {
      const float *q = pos + j * 4;
      double r[3] = {(double)q[0] - p[0], (double)q[1] - p[1], (double)q[2] - p[2]};
      double inv = 1.0 / sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + eps);
      for (int c = 0; c < 3; c++) acc[c] += r[c] * (q[3] * inv * inv * inv);
    }
    for (int c = 0; c < 3; c++) {
      ref[i * 8 + c] = p[c] + v[c] * (double)dt + acc[c] * 0.5 * dt * dt;
      ref[i * 8 + 4 + c] = v[c] + acc[c] * dt;
    }
    ref[i * 8 + 3] = p[3];
    ref[i * 8 + 7] = v[3];
  }
  op->flops = 20.0 * (double)n * (double)n; /* per interaction, as the AMD SDK and GPU Gems 3 count */
  op->in_flops = true;
  snprintf(op->size, sizeof op->size, "N=%lld", n);
  free(pos), free(vel);
}

/* SHOC MD's set-up (cutsq 16, lj1 1.5, lj2 2): N atoms on the sites of a
 * cubic lattice of spacing 1, jittered by up to 0.25 (so that no two are
 * closer than 0.5: random positions, as SHOC's, may put two atoms so close
 * that the force overflows a float), sites given to atoms in random order
 * (as SHOC's random positions make the indices of near atoms unrelated);
 * each atom's M neighbours random sites within 2 sites along each axis,
 * itself excluded: all within the cut-off, at distances 0.5 to 3.8. */
static long long offset(void) { /* -2 .. 2 */
  long long d = (long long)floorf(rnd(-2.0f, 3.0f));
  return d > 2 ? 2 : d;
}

static void make_md(Op *op) {
  long long n = op->n, m = op->m;
  long long side = 1;
  while (side * side * side < n) side++;
  long long *site = xmalloc(sizeof(long long) * (size_t)n);    /* atom -> site */
  long long *atom = xmalloc(sizeof(long long) * (size_t)n);    /* site -> atom (sites below n only) */
  for (long long i = 0; i < n; i++) site[i] = i;
  for (long long i = n - 1; i > 0; i--) { /* Fisher-Yates */
    long long j = (long long)(rnd(0.0f, 1.0f) * (float)(i + 1));
    if (j > i) j = i;
    long long t = site[i];
    site[i] = site[j], site[j] = t;
  }
  for (long long i = 0; i < n; i++) atom[site[i]] = i;
  float *position = falloc((size_t)n * 4);
  for (long long i = 0; i < n; i++) {
    long long s = site[i];
    position[i * 4 + 0] = (float)(s % side) + rnd(-0.25f, 0.25f);
    position[i * 4 + 1] = (float)(s / side % side) + rnd(-0.25f, 0.25f);
    position[i * 4 + 2] = (float)(s / (side * side)) + rnd(-0.25f, 0.25f);
    position[i * 4 + 3] = 0.0f;
  }
  int *list = xmalloc(sizeof(int) * (size_t)(n * m));
  for (long long i = 0; i < n; i++) {
    long long s = site[i], x = s % side, y = s / side % side, z = s / (side * side);
    for (long long j = 0; j < m;) {
      long long dx = offset(), dy = offset(), dz = offset();
      long long nx = x + dx, ny = y + dy, nz = z + dz, t = (nz * side + ny) * side + nx;
      if ((dx | dy | dz) == 0 || nx < 0 || ny < 0 || nz < 0 || nx >= side || ny >= side || t >= n) continue;
      list[j * n + i] = (int)atom[t];
      j++;
    }
  }
  const float cutsq = 16.0f, lj1 = 1.5f, lj2 = 2.0f;
  bind_mem(op, "position", position, (size_t)n * 16);
  bind_mem(op, "neighbours", list, sizeof(int) * (size_t)(n * m));
  bind_float(op, "cutsq", cutsq);
  bind_float(op, "lj1", lj1);
  bind_float(op, "lj2", lj2);
  new_reference(op, (size_t)n * 4);
  op->fields = 4;
  for (long long i = 0; i < n; i++) {
    const float *p = position + i * 4;
    double f[3] = {0, 0, 0};
    for (long long j = 0; j < m; j++) {
      const float *q = position + (long long)list[j * n + i] * 4;
      double d[3] = {(double)p[0] - q[0], (double)p[1] - q[1], (double)p[2] - q[2]};
      double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (r2 >= cutsq) continue;
      double r2inv = 1.0 / r2, r6inv = r2inv * r2inv * r2inv, s = r2inv * r6inv * (lj1 * r6inv - lj2);
      for (int c = 0; c < 3; c++) f[c] += d[c] * s;
    }
    for (int c = 0; c < 3; c++) op->ref_vec[i * 4 + c] = f[c];
    op->ref_vec[i * 4 + 3] = 0;
  }
  /* each neighbour: its index and its position; each atom: its position and its force */
  op->bytes = (double)n * m * (4 + 16) + 32.0 * n;
  snprintf(op->size, sizeof op->size, "N=%lld, M=%lld", n, m);
  free(site), free(atom), free(position), free(list);
}

static void make_blur(Op *op) {
  long long m = op->m, n = op->n;
  float *img = falloc((size_t)(m * n));
  fill(img, (size_t)(m * n), 0.0f, 1.0f);
  bind_mem(op, "img", img, sizeof(float) * (size_t)(m * n));
  new_reference(op, (size_t)(m * n));
  static const double w[3][3] = {{0.0625, 0.125, 0.0625}, {0.125, 0.25, 0.125}, {0.0625, 0.125, 0.0625}};
  for (long long i = 0; i < m; i++)
    for (long long j = 0; j < n; j++) {
      double s = 0;
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
          long long r = i + a - 1, c = j + b - 1;
          r = r < 0 ? 0 : r >= m ? m - 1 : r;
          c = c < 0 ? 0 : c >= n ? n - 1 : c;
          s += w[a][b] * img[r * n + c];
        }
      op->ref_vec[i * n + j] = s;
    }
  op->bytes = 8.0 * m * n;
  snprintf(op->size, sizeof op->size, "%lldx%lld", m, n);
  free(img);
}

/* y = alpha A x + beta B x (gesummv, A and B [n][n]) or y = A^T (A x)
 * (atax, A [m][n]) */
static void make_polybench(Op *op) {
  bool atax = op->kind == OP_ATAX;
  long long n = op->n, m = atax ? op->m : op->n;
  float *a = falloc((size_t)(m * n)), *b = atax ? NULL : falloc((size_t)(m * n)), *x = falloc((size_t)n);
  fill(a, (size_t)(m * n), -1.0f, 1.0f);
  if (b) fill(b, (size_t)(m * n), -1.0f, 1.0f);
  fill(x, (size_t)n, 0.0f, 1.0f);
  bind_mem(op, "a", a, sizeof(float) * (size_t)(m * n));
  if (b) bind_mem(op, "b", b, sizeof(float) * (size_t)(m * n));
  bind_mem(op, "x", x, sizeof(float) * (size_t)n);
  bind_float(op, "alpha", 1.5f);
  bind_float(op, "beta", 1.2f);
  new_reference(op, (size_t)n);
  double *ax = atax ? xmalloc(sizeof(double) * (size_t)m) : NULL;
#pragma omp parallel for
  for (long long i = 0; i < m; i++) {
    double s = 0, t = 0;
    for (long long j = 0; j < n; j++) {
      s += (double)a[i * n + j] * x[j];
      if (b) t += (double)b[i * n + j] * x[j];
    }
    if (atax) ax[i] = s;
    else op->ref_vec[i] = 1.5 * s + 1.2 * t;
  }
  if (atax) {
    for (long long j = 0; j < n; j++) op->ref_vec[j] = 0;
    for (long long i = 0; i < m; i++)
      for (long long j = 0; j < n; j++) op->ref_vec[j] += (double)a[i * n + j] * ax[i];
  }
  /* gesummv: A, B, x, y; atax: A twice, x, A x written and read, y */
  op->bytes = atax ? 4.0 * (2.0 * m * n + n + 2.0 * m + n) : 4.0 * (2.0 * n * n + 2.0 * n);
  if (atax) snprintf(op->size, sizeof op->size, "%lldx%lld", m, n);
  else snprintf(op->size, sizeof op->size, "N=%lld", n);
  free(a), free(b), free(x), free(ax);
}

/* Rodinia nn: records in [0, 90) x [0, 180) (its hurricane data's
 * latitudes and longitudes), the target inside; out = distances */
static void make_nn(Op *op) {
  long long n = op->n;
  float *loc = falloc((size_t)n * 2);
  for (long long i = 0; i < n; i++) loc[i * 2] = rnd(0.0f, 90.0f), loc[i * 2 + 1] = rnd(0.0f, 180.0f);
  const float lat = 30.0f, lng = 90.0f;
  bind_mem(op, "locations", loc, sizeof(float) * 2 * (size_t)n);
  bind_float(op, "lat", lat);
  bind_float(op, "lng", lng);
  new_reference(op, (size_t)n);
  for (long long i = 0; i < n; i++) {
    double a = (double)lat - loc[i * 2], b = (double)lng - loc[i * 2 + 1];
    op->ref_vec[i] = sqrt(a * a + b * b);
  }
  op->bytes = 12.0 * n;
  snprintf(op->size, sizeof op->size, "N=%lld%s", n >= (1 << 20) ? n >> 20 : n, n >= (1 << 20) ? "M" : "");
  free(loc);
}

/* SHOC scan's bottom_scan: n floats in [0, 1) in regions, each seeded
 * with the sum of the regions before it (top_scan's isums), so that out
 * is the inclusive scan of the whole input whatever the regions are:
 * isums of 1024-float regions for bottomScan (a region a work-group of
 * 256), of n / SCAN_GROUPS for SHOC's launch of SCAN_GROUPS groups. */
enum { SCAN_GROUPS = 64 };

static float *region_seeds(const float *in, long long n, long long region) {
  float *seeds = falloc((size_t)(n / region));
  double s = 0;
  for (long long g = 0; g < n / region; g++) {
    seeds[g] = (float)s;
    for (long long i = g * region; i < (g + 1) * region; i++) s += in[i];
  }
  return seeds;
}

static void make_scan(Op *op) {
  long long n = op->n;
  float *in = falloc((size_t)n);
  fill(in, (size_t)n, 0.0f, 1.0f);
  float *seeds = region_seeds(in, n, 1024), *seeds_shoc = region_seeds(in, n, n / SCAN_GROUPS);
  bind_mem(op, "xs", in, sizeof(float) * (size_t)n);
  bind_mem(op, "isums", seeds, sizeof(float) * (size_t)(n / 1024));
  bind_mem(op, "isums_shoc", seeds_shoc, sizeof(float) * SCAN_GROUPS);
  bind_nat(op, "G", n / 1024);
  new_reference(op, (size_t)n);
  double s = 0;
  for (long long i = 0; i < n; i++) op->ref_vec[i] = s += in[i];
  op->bytes = 8.0 * n;
  snprintf(op->size, sizeof op->size, "N=%lld%s", n >= (1 << 20) ? n >> 20 : n, n >= (1 << 20) ? "M" : "");
  free(in), free(seeds), free(seeds_shoc);
}

/* SHOC spmv's CSR matrix, square, of n rows: row lengths random in
 * 0 .. 2m (m the mean), every 64th row empty and row 1 of 16m elements
 * (a row longer than the rest), columns random, values in [0, 1); the
 * vector in [0, 1).  The reference, in double: out = A x. */
static void make_spmv(Op *op) {
  long long n = op->n, m = op->m;
  int *delims = xmalloc(sizeof(int) * (size_t)(n + 1));
  delims[0] = 0;
  for (long long r = 0; r < n; r++) {
    long long len = r % 64 == 0 ? 0 : r == 1 ? 16 * m : (long long)rnd(0.0f, (float)(2 * m + 1));
    delims[r + 1] = delims[r] + (int)len;
  }
  long long nnz = delims[n];
  int *cols = xmalloc(sizeof(int) * (size_t)(nnz ? nnz : 1));
  float *vals = falloc((size_t)(nnz ? nnz : 1)), *x = falloc((size_t)n);
  for (long long j = 0; j < nnz; j++) cols[j] = (int)rnd(0.0f, (float)n) % (int)n;
  fill(vals, (size_t)nnz, 0.0f, 1.0f), fill(x, (size_t)n, 0.0f, 1.0f);
  bind_mem(op, "rowDelimiters", delims, sizeof(int) * (size_t)(n + 1));
  bind_mem(op, "cols", cols, sizeof(int) * (size_t)(nnz ? nnz : 1));
  bind_mem(op, "vals", vals, sizeof(float) * (size_t)(nnz ? nnz : 1));
  bind_mem(op, "x", x, sizeof(float) * (size_t)n);
  bind_nat(op, "R", n), bind_nat(op, "C", n), bind_nat(op, "NNZ", nnz);
  new_reference(op, (size_t)n);
  for (long long r = 0; r < n; r++) {
    double s = 0;
    for (int j = delims[r]; j < delims[r + 1]; j++) s += (double)vals[j] * x[cols[j]];
    op->ref_vec[r] = s;
  }
  op->bytes = 12.0 * nnz + 8.0 * n; /* a column, a value and an element of x per product; the delimiters, out */
  snprintf(op->size, sizeof op->size, "R=%lld NNZ=%lld", n, nnz);
  free(delims), free(cols), free(vals), free(x);
}

/* Parboil mri-q: voxels in [-0.5, 0.5)^3, samples' K in [-8, 8)^3 and
 * PhiMag in [0, 1); out = (Qr, Qi) per voxel.  m is the number of
 * samples (K). */
static void make_mriq(Op *op) {
  long long nx = op->n, nk = op->m;
  float *x = falloc((size_t)nx), *y = falloc((size_t)nx), *z = falloc((size_t)nx), *k = falloc((size_t)nk * 4);
  fill(x, (size_t)nx, -0.5f, 0.5f), fill(y, (size_t)nx, -0.5f, 0.5f), fill(z, (size_t)nx, -0.5f, 0.5f);
  for (long long j = 0; j < nk; j++) {
    for (int c = 0; c < 3; c++) k[j * 4 + c] = rnd(-8.0f, 8.0f);
    k[j * 4 + 3] = rnd(0.0f, 1.0f);
  }
  bind_mem(op, "x", x, sizeof(float) * (size_t)nx);
  bind_mem(op, "y", y, sizeof(float) * (size_t)nx);
  bind_mem(op, "z", z, sizeof(float) * (size_t)nx);
  bind_mem(op, "kvalues", k, sizeof(float) * 4 * (size_t)nk);
  bind_nat(op, "X", nx);
  bind_nat(op, "K", nk);
  new_reference(op, (size_t)nx * 2);
  op->fields = 2;
#pragma omp parallel for schedule(dynamic, 64)
  for (long long i = 0; i < nx; i++) {
    double qr = 0, qi = 0;
    for (long long j = 0; j < nk; j++) {
      const float *kv = k + j * 4;
      double e = 6.283185307179586 * ((double)kv[0] * x[i] + (double)kv[1] * y[i] + (double)kv[2] * z[i]);
      qr += kv[3] * cos(e);
      qi += kv[3] * sin(e);
    }
    op->ref_vec[i * 2] = qr;
    op->ref_vec[i * 2 + 1] = qi;
  }
  /* per pair: the phase (3 multiplies, 2 adds, 1 multiply), cos and sin
   * (counted as one each, as Parboil does not count them), 2 multiply-adds */
  op->flops = 12.0 * (double)nx * (double)nk;
  op->in_flops = true;
  snprintf(op->size, sizeof op->size, "X=%lld, K=%lld", nx, nk);
  free(x), free(y), free(z), free(k);
}

/* the largest relative excess of the distance to the centre a point was
 * given over the distance to its nearest centre (aux: [n][k] distances) */
static double kmeans_error(const Op *op, const float *result) {
  const int *index = (const int *)result; /* the output is int */
  long long k = op->m;
  double worst = 0;
  for (size_t i = 0; i < op->ref_count; i++) {
    if (index[i] < 0 || index[i] >= k) return INFINITY;
    const double *d = op->aux + i * (size_t)k;
    double best = d[0];
    for (long long c = 1; c < k; c++) best = d[c] < best ? d[c] : best;
    double e = (d[index[i]] - best) / (best > 1e-30 ? best : 1e-30);
    worst = e > worst ? e : worst;
  }
  return worst;
}

/* Rodinia kmeans (its kdd_cup input: 34 features, 5 clusters): features
 * in [0, 1), the centres K of the points, as Rodinia's first iteration
 * takes them.  m is the number of centres (K), k of features (F). */
static void make_kmeans(Op *op) {
  long long n = op->n, nk = op->m, nf = op->k;
  float *features = falloc((size_t)(nf * n)), *clusters = falloc((size_t)(nk * nf));
  fill(features, (size_t)(nf * n), 0.0f, 1.0f);
  for (long long c = 0; c < nk; c++) /* point c * n / K */
    for (long long f = 0; f < nf; f++) clusters[c * nf + f] = features[f * n + c * n / nk];
  bind_mem(op, "features", features, sizeof(float) * (size_t)(nf * n));
  bind_mem(op, "clusters", clusters, sizeof(float) * (size_t)(nk * nf));
  bind_nat(op, "K", nk);
  bind_nat(op, "F", nf);
  op->ref_count = (size_t)n;
  op->aux = xmalloc(sizeof(double) * (size_t)(n * nk));
  op->error = kmeans_error;
#pragma omp parallel for
  for (long long i = 0; i < n; i++)
    for (long long c = 0; c < nk; c++) {
      double s = 0;
      for (long long f = 0; f < nf; f++) {
        double d = (double)features[f * n + i] - clusters[c * nf + f];
        s += d * d;
      }
      op->aux[i * nk + c] = s;
    }
  op->bytes = 4.0 * (double)n * (double)(nf + 1);
  snprintf(op->size, sizeof op->size, "N=%lld, K=%lld, F=%lld", n, nk, nf);
  free(features), free(clusters);
}

/* Rodinia hotspot3D: k layers of m x n cells, temperatures in [320, 340)
 * and powers in [0, 1); coefficients of the same form as 3D.c's (cc =
 * 1 - (2 ce + 2 cn + 3 ct)), larger, so that every term shows in the
 * result.  The reference, in double, clamps every neighbour to the chip. */
static void make_hotspot3d(Op *op) {
  long long nz = op->k, ny = op->m, nx = op->n, cells = nz * ny * nx;
  float *temp = falloc((size_t)cells), *power = falloc((size_t)cells);
  fill(temp, (size_t)cells, 320.0f, 340.0f);
  fill(power, (size_t)cells, 0.0f, 1.0f);
  const float ce = 0.05f, cn = 0.04f, ct = 0.02f, sdc = 0.5f, cc = 1.0f - (2 * ce + 2 * cn + 3 * ct);
  bind_mem(op, "p", power, sizeof(float) * (size_t)cells);
  bind_mem(op, "tIn", temp, sizeof(float) * (size_t)cells);
  bind_float(op, "sdc", sdc);
  bind_float(op, "ce", ce);
  bind_float(op, "cw", ce);
  bind_float(op, "cn", cn);
  bind_float(op, "cs", cn);
  bind_float(op, "ct", ct);
  bind_float(op, "cb", ct);
  bind_float(op, "cc", cc);
  bind_nat(op, "NZ", nz);
  bind_nat(op, "NY", ny);
  bind_nat(op, "NX", nx);
  new_reference(op, (size_t)cells);
#define CLAMP(v, n) ((v) < 0 ? 0 : (v) >= (n) ? (n) - 1 : (v))
#define T(z, y, x) ((double)temp[(CLAMP(z, nz) * ny + CLAMP(y, ny)) * nx + CLAMP(x, nx)])
  for (long long z = 0; z < nz; z++)
    for (long long y = 0; y < ny; y++)
      for (long long x = 0; x < nx; x++)
        op->ref_vec[(z * ny + y) * nx + x] = cc * T(z, y, x) + ce * (T(z, y, x - 1) + T(z, y, x + 1)) +
                                              cn * (T(z, y + 1, x) + T(z, y - 1, x)) +
                                              ct * (T(z - 1, y, x) + T(z + 1, y, x)) +
                                              sdc * (double)power[(z * ny + y) * nx + x] + ct * 80.0;
#undef T
#undef CLAMP
  /* a cell's temperature and power read, its new temperature written */
  op->bytes = 12.0 * (double)cells;
  snprintf(op->size, sizeof op->size, "%lldx%lldx%lld", nx, ny, nz);
  free(temp), free(power);
}

/* PolyBench/GPU covariance and correlation: an N x M data matrix ([N][M],
 * a column a variable) in [0, 1), floatN = N (PolyBench's float_n),
 * eps 0.005 (its EPS).  The reference, in double: the M x M covariance
 * (centred columns' dot products) or correlation (1 on the diagonal) */
static void make_datamining(Op *op) {
  bool corr = op->kind == OP_CORRELATION;
  long long m = op->m, n = op->n;
  float *data = falloc((size_t)(n * m));
  fill(data, (size_t)(n * m), 0.0f, 1.0f);
  const float eps = 0.005f;
  bind_mem(op, "data", data, sizeof(float) * (size_t)(n * m));
  /* the hand-written kernels' own copy: their reduce_kernel updates it in
   * place, as PolyBench's (centring centred data again changes nothing
   * but rounding, so every round computes the same) */
  bind_mem(op, "data_hand", data, sizeof(float) * (size_t)(n * m));
  if (corr) {
    /* and a copy in PolyBench's own layout, rows of m + 1 (the last
     * element 0, never read), for the hand kernels *_pad */
    float *padded = falloc((size_t)(n * (m + 1)));
    for (long long i = 0; i < n; i++) {
      memcpy(padded + i * (m + 1), data + i * m, sizeof(float) * (size_t)m);
      padded[i * (m + 1) + m] = 0.0f;
    }
    bind_mem(op, "data_hand_pad", padded, sizeof(float) * (size_t)(n * (m + 1)));
    free(padded);
  }
  bind_float(op, "floatN", (float)n);
  bind_float(op, "eps", eps);
  new_reference(op, (size_t)(m * m));
  double *centred = xmalloc(sizeof(double) * (size_t)(n * m));
  for (long long j = 0; j < m; j++) {
    double mean = 0, var = 0;
    for (long long i = 0; i < n; i++) mean += data[i * m + j];
    mean /= (double)n;
    for (long long i = 0; i < n; i++) var += (data[i * m + j] - mean) * (data[i * m + j] - mean);
    double sd = sqrt(var / (double)n);
    double scale = corr ? sqrt((double)n) * (sd <= eps ? 1.0 : sd) : 1.0;
    for (long long i = 0; i < n; i++) centred[i * m + j] = (data[i * m + j] - mean) / scale;
  }
#pragma omp parallel for schedule(dynamic, 8)
  for (long long j1 = 0; j1 < m; j1++)
    for (long long j2 = j1; j2 < m; j2++) {
      double s = 0;
      for (long long i = 0; i < n; i++) s += centred[i * m + j1] * centred[i * m + j2];
      if (corr && j1 == j2) s = 1.0;
      op->ref_vec[j1 * m + j2] = op->ref_vec[j2 * m + j1] = s;
    }
  /* the triangle's dot products (the two sides' share) */
  op->flops = (double)m * (double)(m + 1) * (double)n;
  op->in_flops = true;
  snprintf(op->size, sizeof op->size, "M=%lld, N=%lld", m, n);
  free(data), free(centred);
}

/* the largest relative error ||out - ref|| / ||ref|| of the two fields of
 * adi's (X, B) pairs of doubles (aux: the reference, pairs; the result's
 * two buffers interleaved by bench_check.c) */
static double adi_error(const Op *op, const float *result) {
  const double *v = (const double *)result;
  size_t pairs = op->ref_count / 4; /* ref_count: the result in floats */
  double worst = 0;
  for (size_t f = 0; f < 2; f++) {
    double num = 0, den = 0;
    for (size_t i = f; i < 2 * pairs; i += 2) num += (v[i] - op->aux[i]) * (v[i] - op->aux[i]), den += op->aux[i] * op->aux[i];
    double e = isnan(num) ? INFINITY : sqrt(num / den);
    worst = e > worst ? e : worst;
  }
  return worst;
}

/* PolyBench/GPU adi's first sweep, in double: A, X in [0, 1), B in [1, 2)
 * (so that the recurrence's divisor stays away from 0 over a row).  The
 * reference, in double: each row's (X, B) after the sweep.  Both kernels
 * update X and B in place (samples/adi.dpia's `updates x, b`), each on
 * copies of its own restored from x and b before every run, untimed
 * (op->fresh_inputs, Impl.fresh_to: repeated sweeps would drift the
 * values): dpia's made by the bench from the metadata, PolyBench's
 * x_hand and b_hand. */
static void make_adi(Op *op) {
  long long n = op->n;
  size_t cells = (size_t)(n * n);
  double *a = xmalloc(sizeof(double) * cells), *b = xmalloc(sizeof(double) * cells), *x = xmalloc(sizeof(double) * cells);
  for (size_t i = 0; i < cells; i++) a[i] = rnd(0.0f, 1.0f), b[i] = rnd(1.0f, 2.0f), x[i] = rnd(0.0f, 1.0f);
  bind_mem(op, "a", a, sizeof(double) * cells);
  bind_mem(op, "b", b, sizeof(double) * cells);
  bind_mem(op, "x", x, sizeof(double) * cells);
  bind_mem(op, "b_hand", b, sizeof(double) * cells);
  bind_mem(op, "x_hand", x, sizeof(double) * cells);
  op->ref_count = 4 * cells; /* (double, double) pairs, in floats */
  op->fields = 2, op->field_floats = 2; /* X and B in two buffers each (interleaved) */
  op->fresh_inputs = true;
  op->aux = xmalloc(sizeof(double) * 2 * cells);
  op->error = adi_error;
  for (long long r = 0; r < n; r++) {
    double xv = x[r * n], bv = b[r * n];
    op->aux[2 * r * n] = xv, op->aux[2 * r * n + 1] = bv;
    for (long long c = 1; c < n; c++) {
      double av = a[r * n + c];
      xv = x[r * n + c] - xv * av / bv;
      bv = b[r * n + c] - av * av / bv;
      op->aux[2 * (r * n + c)] = xv, op->aux[2 * (r * n + c) + 1] = bv;
    }
  }
  op->bytes = 8.0 * 5.0 * (double)cells; /* A, B, X read, X and B written */
  snprintf(op->size, sizeof op->size, "%lldx%lld", n, n);
  free(a), free(b), free(x);
}

/* SHOC sgemm: column-major a (M x K, [K][M]), b (K x N, [N][K]) and c
 * (M x N, [N][M]) in [-1, 1), alpha 1.5, beta 0.5.  The reference, in
 * double: alpha a b + beta c. */
static void make_sgemm(Op *op) {
  long long m = op->m, n = op->n, k = op->k;
  float *a = falloc((size_t)(k * m)), *b = falloc((size_t)(n * k)), *c = falloc((size_t)(n * m));
  fill(a, (size_t)(k * m), -1.0f, 1.0f), fill(b, (size_t)(n * k), -1.0f, 1.0f), fill(c, (size_t)(n * m), -1.0f, 1.0f);
  bind_mem(op, "a", a, sizeof(float) * (size_t)(k * m));
  bind_mem(op, "b", b, sizeof(float) * (size_t)(n * k));
  bind_mem(op, "c", c, sizeof(float) * (size_t)(n * m));
  bind_float(op, "alpha", 1.5f);
  bind_float(op, "beta", 0.5f);
  new_reference(op, (size_t)(n * m));
#pragma omp parallel for
  for (long long j = 0; j < n; j++)
    for (long long i = 0; i < m; i++) {
      double s = 0;
      for (long long p = 0; p < k; p++) s += (double)a[p * m + i] * b[j * k + p];
      op->ref_vec[j * m + i] = 1.5 * s + 0.5 * c[j * m + i];
    }
  op->flops = 2.0 * (double)m * (double)n * (double)k;
  op->in_flops = true;
  snprintf(op->size, sizeof op->size, "%lldx%lldx%lld", m, n, k);
  free(a), free(b), free(c);
}

/* Rodinia cfd's state, double: velocity and pressure of one element (or
 * of the far field) to its conserved variables and the flux contributions
 * of euler3d's compute_flux_contribution (fc[0..2] momentum x y z,
 * fc[3] density_energy, each a 3-vector), and its pressure, speed and
 * speed of sound */
typedef struct CfdState {
  double density, momentum[3], density_energy;
  double velocity[3], pressure, speed, speed_of_sound, fc[4][3];
} CfdState;

static CfdState cfd_state(double density, const double momentum[3], double density_energy) {
  CfdState s = {.density = density, .density_energy = density_energy};
  double speed_sqd = 0;
  for (int c = 0; c < 3; c++) {
    s.momentum[c] = momentum[c];
    s.velocity[c] = momentum[c] / density;
    speed_sqd += s.velocity[c] * s.velocity[c];
  }
  s.pressure = (1.4 - 1.0) * (density_energy - 0.5 * density * speed_sqd);
  s.speed = sqrt(speed_sqd);
  s.speed_of_sound = sqrt(1.4 * s.pressure / density);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) s.fc[r][c] = s.velocity[c] * momentum[r] + (r == c ? s.pressure : 0.0);
  for (int c = 0; c < 3; c++) s.fc[3][c] = s.velocity[c] * (density_energy + s.pressure);
  return s;
}

/* the largest relative error ||out - ref|| / ||ref|| of cfd's five rows
 * of fluxes (density's are of another scale than density_energy's) */
static double cfd_error(const Op *op, const float *result) {
  size_t n = op->ref_count / 5;
  double worst = 0;
  for (size_t v = 0; v < 5; v++) {
    double num = 0, den = 0;
    for (size_t i = v * n; i < (v + 1) * n; i++) {
      double d = result[i] - op->ref_vec[i];
      num += d * d, den += op->ref_vec[i] * op->ref_vec[i];
    }
    double e = isnan(num) ? INFINITY : sqrt(den > 0 ? num / den : num);
    worst = e > worst ? e : worst;
  }
  return worst;
}

/* Rodinia cfd (its fvcorr.domn.193K mesh: 193474 elements, nelr padded to
 * 193536, a multiple of its block of 192): n elements in Rodinia's
 * layouts, each of density in [1, 2), velocity in [-0.5, 0.5)^3 and
 * pressure in [0.5, 1.5) (so that every speed of sound is real); through
 * each face a neighbour numbered within 256 of the element (a mesh
 * numbered along its elements), 5% wing faces (-1) and 5% far-field
 * faces (-2); normals in [-1, 1)^3; the far field Rodinia's (Mach 1.2,
 * angle of attack 0, density 1.4, pressure 1) and its flux contributions
 * computed on the host, as euler3d.cpp does.  The reference, in double:
 * fluxes[v][i]. */
static void make_cfd(Op *op) {
  long long n = op->n;
  float *variables = falloc((size_t)(5 * n)), *normals = falloc((size_t)(12 * n));
  int *nbs = xmalloc(sizeof(int) * (size_t)(4 * n));
  for (long long i = 0; i < n; i++) {
    float d = rnd(1.0f, 2.0f), p = rnd(0.5f, 1.5f), speed_sqd = 0;
    variables[i] = d;
    for (int c = 0; c < 3; c++) {
      float v = rnd(-0.5f, 0.5f);
      variables[(1 + c) * n + i] = d * v;
      speed_sqd += v * v;
    }
    variables[4 * n + i] = p / (1.4f - 1.0f) + 0.5f * d * speed_sqd;
    for (int j = 0; j < 4; j++) {
      float r = rnd(0.0f, 1.0f);
      long long nb = i + (long long)floorf(rnd(-256.0f, 257.0f));
      nbs[j * n + i] = r < 0.05f ? -1 : r < 0.1f ? -2 : (int)(nb < 0 ? 0 : nb >= n ? n - 1 : nb);
    }
  }
  fill(normals, (size_t)(12 * n), -1.0f, 1.0f);
  const double ff_density = 1.4, ff_pressure = 1.0, ff_speed = 1.2 * sqrt(1.4 * ff_pressure / ff_density);
  const double ff_momentum[3] = {ff_density * ff_speed, 0.0, 0.0};
  const double ff_density_energy = ff_density * 0.5 * ff_speed * ff_speed + ff_pressure / (1.4 - 1.0);
  float ff_variable[5] = {(float)ff_density, (float)ff_momentum[0], (float)ff_momentum[1], (float)ff_momentum[2],
                          (float)ff_density_energy};
  /* as the device sees them: the far field's variables in float */
  const double ff_momentum_f[3] = {ff_variable[1], ff_variable[2], ff_variable[3]};
  CfdState ff = cfd_state(ff_variable[0], ff_momentum_f, ff_variable[4]);
  float ff_fc[4][3];
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 3; c++) ff_fc[r][c] = (float)ff.fc[r][c];
  bind_mem(op, "variables", variables, sizeof(float) * (size_t)(5 * n));
  bind_mem(op, "nbs", nbs, sizeof(int) * (size_t)(4 * n));
  bind_mem(op, "normals", normals, sizeof(float) * (size_t)(12 * n));
  bind_mem(op, "ffVariable", ff_variable, sizeof ff_variable);
  bind_mem(op, "ffFcMomentumX", ff_fc[0], sizeof ff_fc[0]);
  bind_mem(op, "ffFcMomentumY", ff_fc[1], sizeof ff_fc[1]);
  bind_mem(op, "ffFcMomentumZ", ff_fc[2], sizeof ff_fc[2]);
  bind_mem(op, "ffFcDensityEnergy", ff_fc[3], sizeof ff_fc[3]);
  new_reference(op, (size_t)(5 * n));
  op->error = cfd_error;
  /* far-field flux contributions as the device reads them (floats) */
  double ffc[4][3];
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 3; c++) ffc[r][c] = ff_fc[r][c];
#pragma omp parallel for
  for (long long i = 0; i < n; i++) {
    const double m_i[3] = {variables[n + i], variables[2 * n + i], variables[3 * n + i]};
    CfdState si = cfd_state(variables[i], m_i, variables[4 * n + i]);
    double flux[5] = {0, 0, 0, 0, 0}; /* density, momentum x y z, density_energy */
    for (int j = 0; j < 4; j++) {
      int nb = nbs[j * n + i];
      double normal[3], len = 0;
      for (int c = 0; c < 3; c++) normal[c] = normals[(j + 4 * c) * n + i], len += normal[c] * normal[c];
      len = sqrt(len);
      if (nb == -1) {
        for (int c = 0; c < 3; c++) flux[1 + c] += normal[c] * si.pressure;
        continue;
      }
      if (nb < 0 && nb != -2) continue;
      const double *m_nb = ff_momentum_f, (*fc_nb)[3] = (const double(*)[3])ffc;
      CfdState snb;
      if (nb >= 0) {
        const double m[3] = {variables[n + nb], variables[2 * n + nb], variables[3 * n + nb]};
        snb = cfd_state(variables[nb], m, variables[4 * n + nb]);
        m_nb = snb.momentum, fc_nb = (const double(*)[3])snb.fc;
        double factor = -len * 0.2 * 0.5 * (si.speed + snb.speed + si.speed_of_sound + snb.speed_of_sound);
        flux[0] += factor * (si.density - snb.density);
        for (int c = 0; c < 3; c++) flux[1 + c] += factor * (si.momentum[c] - snb.momentum[c]);
        flux[4] += factor * (si.density_energy - snb.density_energy);
      }
      for (int c = 0; c < 3; c++) {
        double h = 0.5 * normal[c];
        flux[0] += h * (m_nb[c] + si.momentum[c]);
        for (int r = 0; r < 3; r++) flux[1 + r] += h * (fc_nb[r][c] + si.fc[r][c]);
        flux[4] += h * (fc_nb[3][c] + si.fc[3][c]);
      }
    }
    for (int v = 0; v < 5; v++) op->ref_vec[v * n + i] = flux[v];
  }
  /* an element's variables, neighbours, normals and fluxes, and its four
   * neighbours' variables */
  op->bytes = 4.0 * (5 + 4 + 12 + 5 + 4 * 5) * (double)n;
  snprintf(op->size, sizeof op->size, "nelr=%lld", n);
  free(variables), free(normals), free(nbs);
}

/* Rodinia lud: one step at offset 0 of an n x n matrix, n = 16 (B + 1),
 * B the blocks right of (and below) the diagonal block.  Elements in
 * [-1, 1), 16 added to the diagonal (Rodinia's matrices are diagonally
 * dominant too: the kernels do not pivot).  Each kernel reads what the
 * kernel before it wrote, so each op's m holds that: for lud_perimeter
 * the factored diagonal block, for lud_internal the perimeter blocks.
 * The three kernels update m in place, as dpia's ludDiagonal,
 * ludPerimeter and ludInternal (docs/language.md section 27): each on a
 * copy of its own
 * (dpia's made by the bench from m, Rodinia's m_hand), and their
 * reference is the whole matrix.  Updating the same copy again in the
 * timed rounds changes the values, not the work.  The references in
 * double. */
enum { LUD_BS = 16 };
/* lud_diagonal's launches a timed run (Op.batch): a kernel of about 2 us,
 * whose single launch was timed as PoCL's wake-up.  Factoring the same
 * block again and again divides column k of L by the pivot each time:
 * its elements pass through subnormals at about the 32nd launch and are
 * zero from about the 40th on, where the block stays (L zero, U
 * unchanged; the same operations a launch).  The check runs once on the
 * input, the two warm-up rounds' 2 x LUD_BATCH launches go through the
 * subnormals, so the timed launches run on that fixed point for both. */
enum { LUD_BATCH = 100 };

static void lud_factor(const float *m, long long n, double f[LUD_BS][LUD_BS]) {
  for (int r = 0; r < LUD_BS; r++)
    for (int c = 0; c < LUD_BS; c++) f[r][c] = m[r * n + c];
  for (int k = 0; k < LUD_BS; k++)
    for (int r = k + 1; r < LUD_BS; r++) {
      f[r][k] /= f[k][k];
      for (int c = k + 1; c < LUD_BS; c++) f[r][c] -= f[r][k] * f[k][c];
    }
}

static void make_lud(Op *op) {
  long long n = op->n, nb = n / LUD_BS - 1, inner = n - LUD_BS;
  float *m = falloc((size_t)(n * n));
  fill(m, (size_t)(n * n), -1.0f, 1.0f);
  for (long long i = 0; i < n; i++) m[i * n + i] += 16.0f;
  bind_nat(op, "O", 0);
  bind_nat(op, "B", nb);
  double f[LUD_BS][LUD_BS];
  if (op->kind == OP_LUD_DIAGONAL) {
    lud_factor(m, n, f);
    new_reference(op, (size_t)(n * n));
    for (long long i = 0; i < n * n; i++) op->ref_vec[i] = m[i];
    for (int r = 0; r < LUD_BS; r++)
      for (int c = 0; c < LUD_BS; c++) op->ref_vec[r * n + c] = f[r][c];
    op->bytes = 2.0 * 4 * LUD_BS * LUD_BS;
    op->batch = LUD_BATCH;
    snprintf(op->size, sizeof op->size, "diagonal, N=%lld", n);
  } else if (op->kind == OP_LUD_PERIMETER) {
    lud_factor(m, n, f);
    float *dia = falloc(LUD_BS * LUD_BS);
    for (int r = 0; r < LUD_BS; r++)
      for (int c = 0; c < LUD_BS; c++) dia[r * LUD_BS + c] = m[r * n + c] = (float)f[r][c];
    new_reference(op, (size_t)(n * n));
    for (long long i = 0; i < n * n; i++) op->ref_vec[i] = m[i];
    for (long long bx = 0; bx < nb; bx++) {
      /* the row block right of the diagonal block and the column block
       * below it, updated in m */
      double *row = op->ref_vec + LUD_BS * (bx + 1), *col = op->ref_vec + LUD_BS * (bx + 1) * n;
      for (int k = 0; k < LUD_BS; k++) /* L x = column k of the row block, unit diagonal */
        for (int i = 0; i < LUD_BS; i++) {
          double s = m[i * n + LUD_BS * (bx + 1) + k];
          for (int j = 0; j < i; j++) s -= (double)dia[i * LUD_BS + j] * row[j * n + k];
          row[i * n + k] = s;
        }
      for (int r = 0; r < LUD_BS; r++) /* x U = row r of the column block */
        for (int i = 0; i < LUD_BS; i++) {
          double s = m[(LUD_BS * (bx + 1) + r) * n + i];
          for (int j = 0; j < i; j++) s -= col[r * n + j] * dia[j * LUD_BS + i];
          col[r * n + i] = s / dia[i * LUD_BS + i];
        }
    }
    op->bytes = 4.0 * (double)nb * 5 * LUD_BS * LUD_BS; /* dia and two blocks read, two written */
    snprintf(op->size, sizeof op->size, "perimeter, N=%lld", n);
    free(dia);
  } else {
    new_reference(op, (size_t)(n * n));
    for (long long i = 0; i < n * n; i++) op->ref_vec[i] = m[i];
#pragma omp parallel for
    for (long long r = 0; r < inner; r++)
      for (long long c = 0; c < inner; c++) {
        double s = 0;
        for (int i = 0; i < LUD_BS; i++) s += (double)m[(LUD_BS + r) * n + i] * m[i * n + LUD_BS + c];
        op->ref_vec[(LUD_BS + r) * n + LUD_BS + c] = m[(LUD_BS + r) * n + LUD_BS + c] - s;
      }
    op->flops = 2.0 * LUD_BS * (double)inner * (double)inner;
    op->in_flops = true;
    snprintf(op->size, sizeof op->size, "internal, N=%lld", n);
  }
  bind_mem(op, "m", m, sizeof(float) * (size_t)(n * n));
  bind_mem(op, "m_hand", m, sizeof(float) * (size_t)(n * n));
  free(m);
}

void peer_make_op(Op *op) {
  switch (op->kind) {
  case OP_NBODY: make_nbody(op); break;
  case OP_MD: make_md(op); break;
  case OP_BLUR: make_blur(op); break;
  case OP_GESUMMV:
  case OP_ATAX: make_polybench(op); break;
  case OP_NN: make_nn(op); break;
  case OP_MRIQ:
  case OP_MRIQ2: make_mriq(op); break;
  case OP_KMEANS: make_kmeans(op); break;
  case OP_SCAN: make_scan(op); break;
  case OP_SPMV: make_spmv(op); break;
  case OP_HOTSPOT3D: make_hotspot3d(op); break;
  case OP_COVARIANCE:
  case OP_CORRELATION: make_datamining(op); break;
  case OP_ADI: make_adi(op); break;
  case OP_SGEMM: make_sgemm(op); break;
  case OP_CFD: make_cfd(op); break;
  case OP_LUD_DIAGONAL:
  case OP_LUD_PERIMETER:
  case OP_LUD_INTERNAL: make_lud(op); break;
  default: die("%s is not a peer program", op->name);
  }
}

/* ---- implementations ---- */

static Impl *add_peer(Op *op, const char *kernel, const char *label, cl_uint ndims, const size_t *global,
                      const size_t *local, size_t out_floats, int nargs, const Arg *args) {
  char name[96];
  snprintf(name, sizeof name, "hand %s", label);
  return add_cl(op, program(), "hand", kernel, name, ndims, global, local, out_floats, nargs, args);
}

/* the implementation just added, taken out of op's list to run before
 * the next one (Impl.before): an earlier kernel of a hand-written chain */
static Impl *detach_last(Op *op) {
  Impl *before = xmalloc(sizeof *before);
  *before = op->impls[--op->nimpls];
  /* its output is read by the next kernel: placed as a temporary
   * (blas_bench.c, buffer), unless it is an input updated in place */
  bool bound = false;
  for (int b = 0; b < op->nbinds; b++) bound |= before->out == op->binds[b].mem;
  if (!bound) make_intermediate(before);
  return before;
}

/* the output of a kernel two or more places back in a chain, bound by a
 * later kernel that is not the chain's last: free_cl releases such a
 * binding (only the last kernel's reading of the one right before it is
 * not), so the binding holds its own reference */
static Arg chained(cl_mem m) {
  clRetainMemObject(m);
  return amem(m);
}

/* a hand kernel that updates `mem` in place (PolyBench's reduce_kernel):
 * its output is that buffer, not one of its own */
static void in_place(Impl *im, cl_mem mem) {
  clReleaseMemObject(im->out);
  im->out = im->args[0].mem = mem;
}

/* a hand kernel with no output of its own, which updates two of its
 * inputs in place (PolyBench's adi_kernel1: X and B): its arguments are
 * those given to add_peer, without the output's buffer in front; out and
 * out2 the two it updates, checked as a pair of arrays */
static void in_place_pair(Impl *im, cl_mem out, cl_mem out2) {
  clReleaseMemObject(im->out);
  for (int a = 1; a < im->nargs; a++) im->args[a - 1] = im->args[a];
  im->nargs--;
  im->out = out, im->out2 = out2;
}

/* atax's two hand kernels (atax_kernel1 and 2, with suffix) timed as one
 * implementation, the second reading the first's output (Impl.before), as
 * the dpia pipeline */
static void add_atax_pair(Op *op, const char *suffix, const char *label, const size_t *g1, const size_t *g2) {
  long long n = op->n, m = op->m;
  char k1[64], k2[64];
  snprintf(k1, sizeof k1, "atax_kernel1%s", suffix);
  snprintf(k2, sizeof k2, "atax_kernel2%s", suffix);
  add_peer(op, k1, k1, 1, g1, NULL, (size_t)m, 3, (Arg[]){amem(mem_of(op, "a")), amem(mem_of(op, "x")), aint(n)});
  Impl *before = detach_last(op);
  Impl *im = add_peer(op, k2, label, 1, g2, NULL, (size_t)n, 4,
                      (Arg[]){amem(mem_of(op, "a")), amem(before->out), aint(m), aint(n)});
  im->before = before;
}

/* PolyBench/GPU covariance (mean_kernel, reduce_kernel, covar_kernel) or
 * correlation (mean_kernel, std_kernel, reduce_kernel, corr_kernel),
 * chained as PolyBench's host enqueues them, on `data` (the hand kernels'
 * own copy of the data, which reduce_kernel centres in place), the
 * kernels' names with `suffix` ("_pad": the correlation kernels on rows of
 * m + 1) */
static void add_hand_datamining(Op *op, cl_mem data, const char *suffix, const char *label) {
  bool corr = op->kind == OP_CORRELATION;
  long long m = op->m, n = op->n;
  float fn = float_of(op, "floatN");
  size_t g_col[] = {(size_t)m}, g_elem[] = {(size_t)m, (size_t)n};
  char k[64];
  snprintf(k, sizeof k, "mean_kernel%s", suffix);
  add_peer(op, k, k, 1, g_col, NULL, (size_t)m, 4, (Arg[]){amem(data), afloat(fn), aint(m), aint(n)});
  Impl *mean = detach_last(op), *prev = mean;
  Impl *reduce;
  if (corr) {
    snprintf(k, sizeof k, "std_kernel%s", suffix);
    Impl *sd = add_peer(op, k, k, 1, g_col, NULL, (size_t)m, 6,
                        (Arg[]){chained(mean->out), amem(data), afloat(fn), afloat(float_of(op, "eps")), aint(m), aint(n)});
    sd->before = prev;
    prev = detach_last(op);
    snprintf(k, sizeof k, "corr_reduce_kernel%s", suffix);
    reduce = add_peer(op, k, "reduce_kernel", 2, g_elem, NULL, (size_t)(m * n), 5,
                      (Arg[]){chained(mean->out), chained(prev->out), afloat(fn), aint(m), aint(n)});
  } else {
    snprintf(k, sizeof k, "covar_reduce_kernel%s", suffix);
    reduce = add_peer(op, k, "reduce_kernel", 2, g_elem, NULL, (size_t)(m * n), 3,
                      (Arg[]){chained(mean->out), aint(m), aint(n)});
  }
  in_place(reduce, data);
  reduce->before = prev;
  prev = detach_last(op);
  snprintf(k, sizeof k, "%s%s", corr ? "corr_kernel" : "covar_kernel", suffix);
  Impl *last = add_peer(op, k, label, 1, g_col, NULL, (size_t)(m * m), 3, (Arg[]){amem(data), aint(m), aint(n)});
  last->before = prev;
}

/* the dpia pipelines against the hand chains; correlation twice, its data
 * in rows of m (the port's [n][m]) and in rows of m + 1 (PolyBench's own
 * layout), each side's pipeline or chain on each.  covarianceGroups and
 * correlationPadGroups: the same kernels, the triangle's work-items each a
 * work-group of one, so that PoCL's threads share the triangle (left to
 * PoCL, as the hand chains are, or at PolyBench's 256, one thread computes
 * the first half of the columns, 3/4 of the sums: BENCHMARKS.md,
 * "Covariance and correlation: the triangle's two halves") */
static void add_datamining(Op *op) {
  bool corr = op->kind == OP_CORRELATION;
  add_dpia_pipeline(op, corr ? "correlation.dpia" : "covariance.dpia", corr ? "correlation" : "covariance");
  add_dpia_pipeline(op, corr ? "correlation.dpia" : "covariance.dpia", corr ? "correlationPad" : "covarianceGroups");
  if (corr) add_dpia_pipeline(op, "correlation.dpia", "correlationPadGroups");
  add_hand_datamining(op, mem_of(op, "data_hand"), "",
                      corr ? "mean + std + reduce + corr_kernel (PolyBench/GPU)"
                           : "mean + reduce + covar_kernel (PolyBench/GPU)");
  if (corr)
    add_hand_datamining(op, mem_of(op, "data_hand_pad"), "_pad",
                        "mean + std + reduce + corr_kernel, rows of m + 1 (PolyBench/GPU)");
}

void peer_setup_impls(Op *op) {
  long long n = op->n, m = op->m;
  switch (op->kind) {
  case OP_NBODY: {
    add_dpia(op, "nbody.dpia", "nbody");
    add_dpia(op, "nbody.dpia", "nbodyLocal");
    add_dpia(op, "nbody.dpia", "nbodyVec");
    size_t g[] = {(size_t)n}, l[] = {256}; /* the SDK's group size */
    Arg common[] = {amem(mem_of(op, "pos")), amem(mem_of(op, "vel")), aint(n), afloat(float_of(op, "deltaTime")),
                    afloat(float_of(op, "epsSqr")), alocal(256 * 16)};
    add_peer(op, "nbody_sim", "nbody_sim (local tiles, AMD SDK 2.x)", 1, g, l, (size_t)n * 8, 6, common);
    add_peer(op, "nbody_sim_unrolled", "nbody_sim (unrolled 8, AMD SDK 3.0)", 1, g, NULL, (size_t)n * 8, 5, common);
    size_t g_vec[] = {(size_t)n / 8};
    add_peer(op, "nbody_vec", "nbody_vec (8 bodies a work-item, float8)", 1, g_vec, NULL, (size_t)n * 8, 5, common);
    break;
  }
  case OP_MD: {
    add_dpia(op, "md.dpia", "md");
    size_t g[] = {(size_t)n};
    add_peer(op, "compute_lj_force", "compute_lj_force (SHOC)", 1, g, NULL, (size_t)n * 4, 7,
             (Arg[]){amem(mem_of(op, "position")), amem(mem_of(op, "neighbours")), aint(m),
                     afloat(float_of(op, "cutsq")), afloat(float_of(op, "lj1")), afloat(float_of(op, "lj2")), aint(n)});
    break;
  }
  case OP_BLUR: {
    add_dpia(op, "gaussian_blur.dpia", "gaussian3x3");
    add_dpia(op, "gaussian_blur.dpia", "gaussian3x3Prelude");
    add_dpia(op, "gaussian_blur.dpia", "gaussian3x3Rows");
    add_dpia(op, "gaussian_blur.dpia", "gaussian3x3Chunk");
    size_t g[] = {(size_t)n, (size_t)m};
    add_peer(op, "gaussian3x3", "gaussian3x3 (constant mask, unrolled)", 2, g, NULL, (size_t)(m * n), 3,
             (Arg[]){amem(mem_of(op, "img")), aint(m), aint(n)});
    break;
  }
  case OP_GESUMMV: {
    add_dpia(op, "gesummv.dpia", "gesummv");
    add_dpia(op, "gesummv.dpia", "gesummvVec");
    size_t g[] = {(size_t)n};
    Arg args[] = {amem(mem_of(op, "a")), amem(mem_of(op, "b")), amem(mem_of(op, "x")),
                  afloat(float_of(op, "alpha")), afloat(float_of(op, "beta")), aint(n)};
    add_peer(op, "gesummv", "gesummv_kernel (PolyBench/GPU)", 1, g, NULL, (size_t)n, 6, args);
    add_peer(op, "gesummv_vec", "gesummv_vec (float8 sums)", 1, g, NULL, (size_t)n, 6, args);
    break;
  }
  case OP_ATAX: {
    add_dpia_pipeline(op, "atax.dpia", "atax");
    add_dpia_pipeline(op, "atax.dpia", "ataxVec");
    size_t g1[] = {(size_t)m}, g2[] = {(size_t)n}, g2_vec[] = {(size_t)n / 8};
    add_atax_pair(op, "", "atax_kernel1 + atax_kernel2 (PolyBench/GPU)", g1, g2);
    add_atax_pair(op, "_vec", "atax_kernel1_vec + atax_kernel2_vec (float8 sums)", g1, g2_vec);
    break;
  }
  case OP_NN: {
    add_dpia(op, "nn.dpia", "nn");
    size_t g[] = {(size_t)n};
    add_peer(op, "NearestNeighbor", "NearestNeighbor (Rodinia)", 1, g, NULL, (size_t)n, 4,
             (Arg[]){amem(mem_of(op, "locations")), aint(n), afloat(float_of(op, "lat")), afloat(float_of(op, "lng"))});
    add_peer(op, "NearestNeighborExact", "NearestNeighbor (no guard)", 1, g, NULL, (size_t)n, 3,
             (Arg[]){amem(mem_of(op, "locations")), afloat(float_of(op, "lat")), afloat(float_of(op, "lng"))});
    break;
  }
  case OP_KMEANS: {
    add_dpia(op, "kmeans.dpia", "kmeans");
    add_dpia(op, "kmeans.dpia", "kmeansVec");
    size_t g[] = {(size_t)n}, g_vec[] = {(size_t)n / 8};
    Arg args[] = {amem(mem_of(op, "features")), amem(mem_of(op, "clusters")), aint(n), aint(m), aint(op->k)};
    add_peer(op, "kmeans_kernel_c", "kmeans_kernel_c (Rodinia)", 1, g, NULL, (size_t)n, 5, args);
    add_peer(op, "kmeans_vec", "kmeans_vec (8 points a work-item, float8)", 1, g_vec, NULL, (size_t)n, 5, args);
    break;
  }
  case OP_MRIQ: {
    add_dpia(op, "mriq.dpia", "mriq");
    add_dpia(op, "mriq.dpia", "mriqTwo"); /* Qr and Qi in two buffers, as Parboil writes them */
    add_dpia(op, "mriq.dpia", "mriqVec");
    size_t g[] = {(size_t)n}, g_vec[] = {(size_t)n / 8};
    Arg args[] = {amem(mem_of(op, "x")), amem(mem_of(op, "y")), amem(mem_of(op, "z")), amem(mem_of(op, "kvalues")),
                  aint(m)};
    add_peer(op, "ComputeQ_GPU", "ComputeQ_GPU (Parboil)", 1, g, NULL, (size_t)n * 2, 5, args);
    add_peer(op, "ComputeQ_vec", "ComputeQ_vec (8 voxels a work-item, float8)", 1, g_vec, NULL, (size_t)n * 2, 5, args);
    break;
  }
  case OP_SCAN: {
    add_dpia(op, "scan_bottom.dpia", "bottomScan");
    /* SHOC's launch: SCAN_GROUPS groups of 256, each scanning its region
     * window by window; and one window a group, bottomScan's regions */
    size_t g[] = {SCAN_GROUPS * 256}, g_window[] = {(size_t)n / 4}, l[] = {256};
    add_peer(op, "bottom_scan", "bottom_scan (SHOC, 64 groups)", 1, g, l, (size_t)n, 4,
             (Arg[]){amem(mem_of(op, "xs")), amem(mem_of(op, "isums_shoc")), aint(n), alocal(2 * 256 * 4)});
    add_peer(op, "bottom_scan", "bottom_scan (SHOC, a window a group)", 1, g_window, l, (size_t)n, 4,
             (Arg[]){amem(mem_of(op, "xs")), amem(mem_of(op, "isums")), aint(n), alocal(2 * 256 * 4)});
    break;
  }
  case OP_SPMV: {
    add_dpia(op, "spmv.dpia", "csrScalar");
    add_dpia(op, "spmv.dpia", "csrVector");
    /* SHOC's launches: a work-item a row; 32 a row in groups of 128 */
    size_t g[] = {(size_t)n}, g_vec[] = {(size_t)n * 32}, l_vec[] = {128};
    Arg args[] = {amem(mem_of(op, "vals")), amem(mem_of(op, "x")), amem(mem_of(op, "cols")),
                  amem(mem_of(op, "rowDelimiters")), aint(n), alocal(128 * 4)};
    add_peer(op, "spmv_csr_scalar", "spmv_csr_scalar_kernel (SHOC)", 1, g, NULL, (size_t)n, 5, args);
    add_peer(op, "spmv_csr_vector", "spmv_csr_vector_kernel (SHOC)", 1, g_vec, l_vec, (size_t)n, 6, args);
    break;
  }
  case OP_HOTSPOT3D: {
    /* the rotating window, and the same over slide 3 1 (three loads of
     * the column a step) */
    add_dpia(op, "hotspot3d.dpia", "hotspotOpt1");
    add_dpia(op, "hotspot3d.dpia", "hotspotSlide");
    long long nz = op->k;
    size_t g[] = {(size_t)n, (size_t)m};
    add_peer(op, "hotspotOpt1", "hotspotOpt1 (Rodinia)", 2, g, NULL, (size_t)(nz * m * n), 13,
             (Arg[]){amem(mem_of(op, "p")), amem(mem_of(op, "tIn")), afloat(float_of(op, "sdc")), aint(n), aint(m),
                     aint(nz), afloat(float_of(op, "ce")), afloat(float_of(op, "cw")), afloat(float_of(op, "cn")),
                     afloat(float_of(op, "cs")), afloat(float_of(op, "ct")), afloat(float_of(op, "cb")),
                     afloat(float_of(op, "cc"))});
    break;
  }
  case OP_MRIQ2: {
    /* Parboil's interface: Qr and Qi in two buffers */
    add_dpia(op, "mriq.dpia", "mriqTwo");
    size_t g[] = {(size_t)n};
    cl_mem qi = buffer(sizeof(float) * (size_t)n, NULL);
    Impl *im = add_peer(op, "ComputeQ_GPU_two", "ComputeQ_GPU (Parboil, Qr and Qi)", 1, g, NULL, (size_t)n, 6,
                        (Arg[]){amem(qi), amem(mem_of(op, "x")), amem(mem_of(op, "y")), amem(mem_of(op, "z")),
                                amem(mem_of(op, "kvalues")), aint(m)});
    im->out2 = qi;
    break;
  }
  case OP_COVARIANCE:
  case OP_CORRELATION: add_datamining(op); break;
  case OP_ADI: {
    add_dpia(op, "adi.dpia", "adiKernel1");
    add_dpia(op, "adi.dpia", "adiRows");
    size_t g[] = {(size_t)n};
    size_t bytes = sizeof(double) * (size_t)(n * n);
    cl_mem x = mem_of(op, "x_hand"), b = mem_of(op, "b_hand");
    Impl *im = add_peer(op, "adi_kernel1", "adi_kernel1 (PolyBench/GPU, in place, double)", 1, g, NULL, (size_t)(2 * n * n),
                        4, (Arg[]){amem(mem_of(op, "a")), amem(b), amem(x), aint(n)});
    in_place_pair(im, x, b);
    im->nfresh = 2;
    im->fresh_from[0] = mem_of(op, "x"), im->fresh_to[0] = x, im->fresh_bytes[0] = bytes;
    im->fresh_from[1] = mem_of(op, "b"), im->fresh_to[1] = b, im->fresh_bytes[1] = bytes;
    break;
  }
  case OP_SGEMM: {
    add_dpia(op, "sgemm_shoc.dpia", "sgemmNN");
    long long k = op->k;
    /* SHOC's launch: groups of 16 x 4, a group a 64 x 16 block of C */
    size_t g[] = {(size_t)m / 4, (size_t)n / 4}, l[] = {16, 4};
    add_peer(op, "sgemmNN", "sgemmNN (SHOC)", 2, g, l, (size_t)(m * n), 9,
             (Arg[]){amem(mem_of(op, "a")), aint(m), amem(mem_of(op, "b")), aint(k), amem(mem_of(op, "c")), aint(m),
                     aint(k), afloat(float_of(op, "alpha")), afloat(float_of(op, "beta"))});
    break;
  }
  case OP_CFD: {
    add_dpia(op, "cfd_flux.dpia", "computeFlux");
    /* Rodinia's launch: a work-item an element, groups of 192 */
    size_t g[] = {(size_t)n}, l[] = {192};
    add_peer(op, "compute_flux", "compute_flux (Rodinia)", 1, g, l, (size_t)(5 * n), 9,
             (Arg[]){amem(mem_of(op, "nbs")), amem(mem_of(op, "normals")), amem(mem_of(op, "variables")),
                     amem(mem_of(op, "ffVariable")), amem(mem_of(op, "ffFcDensityEnergy")),
                     amem(mem_of(op, "ffFcMomentumX")), amem(mem_of(op, "ffFcMomentumY")),
                     amem(mem_of(op, "ffFcMomentumZ")), aint(n)});
    break;
  }
  case OP_LUD_DIAGONAL: {
    add_dpia(op, "lud.dpia", "ludDiagonal");
    size_t g[] = {LUD_BS};
    in_place(add_peer(op, "lud_diagonal", "lud_diagonal (Rodinia)", 1, g, g, (size_t)(n * n), 2,
                      (Arg[]){aint(n), aint(0)}),
             mem_of(op, "m_hand"));
    break;
  }
  case OP_LUD_PERIMETER: {
    add_dpia(op, "lud.dpia", "ludPerimeter");
    long long nb = n / LUD_BS - 1;
    size_t g[] = {(size_t)nb * 2 * LUD_BS}, l[] = {2 * LUD_BS};
    in_place(add_peer(op, "lud_perimeter", "lud_perimeter (Rodinia)", 1, g, l, (size_t)(n * n), 2,
                      (Arg[]){aint(n), aint(0)}),
             mem_of(op, "m_hand"));
    break;
  }
  case OP_LUD_INTERNAL: {
    add_dpia(op, "lud.dpia", "ludInternal");
    long long inner = n - LUD_BS;
    size_t g[] = {(size_t)inner, (size_t)inner}, l[] = {LUD_BS, LUD_BS};
    in_place(add_peer(op, "lud_internal", "lud_internal (Rodinia)", 2, g, l, (size_t)(n * n), 2,
                      (Arg[]){aint(n), aint(0)}),
             mem_of(op, "m_hand"));
    break;
  }
  default: die("%s is not a peer program", op->name);
  }
}

/* ---- report ---- */

/* a peer op's best dpia strategy and best hand-written kernel, and the
 * speed of the one over the other; false if either is missing */
static bool peer_ratio(const Op *op, const Impl **dp, const Impl **hd, PairedRatio *r) {
  if (!is_peer(op->kind)) return false;
  *dp = best_of(op, "dpia"), *hd = best_of(op, "hand");
  if (!*dp || !*hd) return false;
  *r = paired_ratio(*hd, *dp);
  return true;
}

void peer_report(FILE *f, const Op *ops, int nops, bool markdown) {
  double logsum = 0;
  int count = 0;
  for (int i = 0; i < nops; i++) {
    const Op *op = &ops[i];
    const Impl *dp, *hd;
    PairedRatio r;
    if (!peer_ratio(op, &dp, &hd, &r)) continue;
    if (count == 0) {
      if (markdown) {
        fprintf(f, "\n### The peers' benchmark set: best dpia strategy against the hand-written kernel\n\n");
        fprintf(f, "Speed of the best dpia strategy over the best hand-written kernel of the program's suite "
                   "(bench/kernels/peer.cl): hand ms ÷ dpia ms round by round, median and 95%% interval; above "
                   "1.00x the dpia kernel is faster.\n\n");
        fprintf(f, "| program | size | best dpia strategy | dpia ms | best hand-written | hand ms | dpia ÷ hand | "
                   "95%% interval | 1.00x |\n|---|---|---|---:|---|---:|---:|---|---|\n");
      } else {
        fprintf(f, "\npeers' benchmark set: best dpia strategy against the best hand-written kernel:\n");
      }
    }
    logsum += log(r.median);
    count++;
    if (markdown) {
      fprintf(f, "| %s | %s | %s | %.3f | %s | %.3f | %.3fx | ", op->name, op->size, dp->name + 5, dp->ms, hd->name + 5,
              hd->ms, r.median);
      if (r.has_interval) fprintf(f, "%.2f – %.2f | %s |\n", r.lo, r.hi, verdict(r));
      else fprintf(f, "– | %s |\n", verdict(r));
    } else {
      fprintf(f, "  %-12s %-16s %-20s %9.3f ms  hand %9.3f ms  %5.2fx hand %s %s\n", op->name, op->size,
              dp->name, dp->ms, hd->ms, r.median, interval_text(r).text, verdict(r));
    }
  }
  if (!count) return;
  if (markdown) fprintf(f, "\nGeometric mean of dpia ÷ hand over the peer set: **%.2fx**.\n", exp(logsum / count));
  else fprintf(f, "  geometric mean over the peer set: %.2fx\n", exp(logsum / count));
}

void peer_dat(FILE *f, const Op *ops, int nops) {
  fputs("program\t\"dpia ÷ hand\"\tlow\thigh\n", f);
  for (int i = 0; i < nops; i++) {
    const Op *op = &ops[i];
    const Impl *dp, *hd;
    PairedRatio r;
    if (!peer_ratio(op, &dp, &hd, &r)) continue;
    if (!r.has_interval) r.lo = r.hi = r.median;
    fprintf(f, "\"%s\"\t%.3f\t%.3f\t%.3f\n", op->name, r.median, r.lo, r.hi);
  }
}
