/* bench_check.c: the double-precision reference of each BLAS-like
 * operation and the check of an implementation's result against it
 * (relative norm, or the op's own error function), for blas_bench.c. */
#include "bench_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void make_reference(Op *op) {
  long long n = op->n, m = op->m, k = op->k;
  size_t count = result_count(op);
  op->ref_count = count;
  op->ref_vec = count ? xmalloc(sizeof(double) * count) : NULL;
  double s = 0;
  switch (op->kind) {
  default: die("%s: the peer set makes its own reference", op->name);
  case OP_SCAL:
    for (long long i = 0; i < n; i++) op->ref_vec[i] = (double)op->alpha * op->x[i];
    break;
  case OP_ASUM:
    for (long long i = 0; i < n; i++) s += fabs((double)op->x[i]);
    break;
  case OP_DOT:
    for (long long i = 0; i < n; i++) s += (double)op->x[i] * op->y[i];
    break;
  case OP_GEMV:
#pragma omp parallel for
    for (long long i = 0; i < m; i++) {
      double t = 0;
      for (long long j = 0; j < n; j++) t += (double)op->a[i * n + j] * op->x[j];
      op->ref_vec[i] = op->alpha * t + (double)op->beta * op->y[i];
    }
    break;
  case OP_GEMM:
#pragma omp parallel for
    for (long long i = 0; i < m; i++) {
      double *row = op->ref_vec + i * n;
      for (long long j = 0; j < n; j++) row[j] = 0;
      for (long long l = 0; l < k; l++) {
        double av = op->a[i * k + l];
        const float *brow = op->b + l * n;
        for (long long j = 0; j < n; j++) row[j] += av * brow[j];
      }
    }
    break;
  case OP_STENCIL1D:
    for (long long i = 0; i < n; i++) {
      long long l = i > 0 ? i - 1 : 0, r = i + 1 < n ? i + 1 : n - 1;
      op->ref_vec[i] = ((double)op->x[l] + op->x[i] + op->x[r]) / 3.0;
    }
    break;
  case OP_HEAT3D: {
    long long p = k, plane = m * n;
    const float *x = op->x;
    for (long long kk = 0; kk < p; kk++)
      for (long long i = 0; i < m; i++)
        for (long long j = 0; j < n; j++) {
          long long at = kk * plane + i * n + j;
          double c = x[at];
          double sum = (double)x[(kk > 0 ? kk - 1 : 0) * plane + i * n + j] +
                       x[(kk + 1 < p ? kk + 1 : p - 1) * plane + i * n + j] +
                       x[kk * plane + (i > 0 ? i - 1 : 0) * n + j] +
                       x[kk * plane + (i + 1 < m ? i + 1 : m - 1) * n + j] + x[at - j + (j > 0 ? j - 1 : 0)] +
                       x[at - j + (j + 1 < n ? j + 1 : n - 1)];
          op->ref_vec[at] = c + 0.125 * (sum - 6.0 * c);
        }
    break;
  }
  case OP_JACOBI2D:
    for (long long i = 0; i < m; i++) {
      long long up = i > 0 ? i - 1 : 0, down = i + 1 < m ? i + 1 : m - 1;
      for (long long j = 0; j < n; j++) {
        long long l = j > 0 ? j - 1 : 0, r = j + 1 < n ? j + 1 : n - 1;
        op->ref_vec[i * n + j] = ((double)op->x[up * n + j] + op->x[i * n + l] + op->x[i * n + j] +
                                  op->x[i * n + r] + op->x[down * n + j]) * 0.2;
      }
    }
    break;
  }
  op->ref_scalar = s;
}

/* the two outputs of a kernel whose result is a pair of arrays, read into
 * the reference's layout, pairs: element i of out then of out2, each
 * op->field_floats floats (a double: two) */
static const float *interleaved(const Op *op, const Impl *im, size_t count, float *scratch) {
  size_t w = op->field_floats > 1 ? (size_t)op->field_floats : 1;
  if (op->fields != 2 || count % (2 * w)) die("%s: two outputs, but the reference is not pairs", im->name);
  size_t half = count / 2;
  float *parts = falloc(count);
  read_buffer(im->out, half * sizeof(float), parts);
  read_buffer(im->out2, half * sizeof(float), parts + half);
  for (size_t i = 0; i < half / w; i++) {
    memcpy(scratch + 2 * w * i, parts + w * i, w * sizeof(float));
    memcpy(scratch + 2 * w * i + w, parts + half + w * i, w * sizeof(float));
  }
  free(parts);
  return scratch;
}

/* the result vector of an implementation after one run */
static const float *result_vector(Op *op, Impl *im, float *scratch) {
  size_t count = result_count(op);
  switch (im->kind) {
  case IK_CL:
    if (im->out2) return interleaved(op, im, count, scratch);
    read_buffer(im->out, count * sizeof(float), scratch);
    return scratch;
  case IK_CLBLAST:
    read_buffer(op->kind == OP_SCAL ? im->own_x : op->kind == OP_GEMV ? im->own_y : im->out, count * sizeof(float),
                scratch);
    return scratch;
  default: return im->host_out;
  }
}

/* relative error ||out - ref|| / ||ref|| (spec section 11) */
bool check_result(Op *op, Impl *im) {
  double err;
  if (is_reduction(op)) {
    err = fabs(im->scalar - op->ref_scalar) / fabs(op->ref_scalar);
  } else {
    float *scratch = falloc(op->ref_count);
    const float *v = result_vector(op, im, scratch);
    /* one norm per field of a struct of `fields` floats (the peer set:
     * nbody's positions, masses and velocities are of other scales, a
     * wrong velocity would hide in the norm of the masses); a field whose
     * reference is all zeros must come out within the bound of zero */
    int fields = op->fields > 1 ? op->fields : 1;
    err = op->error ? op->error(op, v) : 0;
    for (int f = 0; f < fields && !op->error; f++) {
      double num = 0, den = 0;
      for (size_t i = (size_t)f; i < op->ref_count; i += (size_t)fields) {
        double d = v[i] - op->ref_vec[i];
        num += d * d;
        den += op->ref_vec[i] * op->ref_vec[i];
      }
      double e = isnan(num) ? INFINITY : sqrt(den > 0 ? num / den : num);
      if (e > err) err = e;
    }
    free(scratch);
  }
  /* 1e-4 as dpia run --check (spec section 11); sums of 2^25 floats and
   * more (the roof's and OpenBLAS's float accumulators) may be off by a few
   * 1e-4, a missing or doubled chunk of the input by far more */
  double bound = is_reduction(op) && op->n >= (1 << 25) ? 1e-3 : 1e-4;
  if (err <= bound) return true;
  snprintf(im->note, sizeof im->note, "WRONG RESULT: relative error %.3g", err);
  return false;
}
