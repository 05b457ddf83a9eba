/* header_main.c: the C headers (--emit=header --target=c) of
 * samples/gemv.dpia and samples/dot_full.dpia used from a program: gemv's
 * launcher computes alpha * mat . x + beta * y as a loop here does, and
 * refuses sizes that break a precondition and an output that overlaps an
 * input, with their DPIA_ERROR_* codes and a message; the pipeline dot's
 * launcher (its two kernels through a temporary) computes the dot product
 * and refuses sizes that break a precondition before running a kernel.
 * run_c.py builds it with every sample's header in a second file (they
 * coexist in one program). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dot_full.h"
#include "gemv.h"

/* the pipeline dot of samples/dot_full.dpia: the value, a refusal */
static int pipeline_dot(void) {
  enum { N = 262144 };
  float *xs = malloc(sizeof(float) * N), *ys = malloc(sizeof(float) * N), out = -1.0f;
  if (!xs || !ys) return 2;
  double want = 0;
  for (int i = 0; i < N; i++) {
    xs[i] = (float)(i % 11) * 0.125f - 0.5f;
    ys[i] = (float)(i % 5) * 0.25f;
    want += (double)xs[i] * ys[i];
  }
  int rc = dpia_dot_launch(&out, xs, ys, N);
  if (rc != DPIA_SUCCESS) {
    printf("FAIL dot: %s: %s\n", dpia_error_string(rc), dpia_last_error_message());
    return 1;
  }
  if (fabs(out - want) > 1e-4 * (1 + fabs(want))) {
    printf("FAIL dot = %g, expected %g\n", out, want);
    return 1;
  }
  out = -1.0f;
  rc = dpia_dot_launch(&out, xs, ys, 1000); /* N >= 2048 does not hold */
  const char *text = "dot: precondition N >= 2048 does not hold for N = 1000";
  if (rc != DPIA_ERROR_PRECONDITION || strcmp(dpia_last_error_message(), text) != 0 || out != -1.0f) {
    printf("FAIL dot N = 1000: %d (%s) '%s', out %g, expected DPIA_ERROR_PRECONDITION '%s', out untouched\n", rc,
           dpia_error_string(rc), dpia_last_error_message(), out, text);
    return 1;
  }
  free(xs);
  free(ys);
  return 0;
}

int main(void) {
  enum { M = 100, N = 640 };
  float *mat = malloc(sizeof(float) * M * N), x[N], y[M], out[M];
  if (!mat) return 2;
  for (int i = 0; i < M * N; i++) mat[i] = (float)(i % 13) * 0.25f - 1.0f;
  for (int j = 0; j < N; j++) x[j] = (float)(j % 7) * 0.5f;
  for (int i = 0; i < M; i++) y[i] = (float)i;
  int rc = dpia_gemv_launch(out, 2.0f, 0.5f, mat, x, y, M, N);
  if (rc != DPIA_SUCCESS) {
    printf("FAIL launch: %s: %s\n", dpia_error_string(rc), dpia_last_error_message());
    return 1;
  }
  for (int i = 0; i < M; i++) {
    double want = 0;
    for (int j = 0; j < N; j++) want += (double)mat[i * N + j] * x[j];
    want = 2.0 * want + 0.5 * y[i];
    if (fabs(out[i] - want) > 1e-3 * (1 + fabs(want))) {
      printf("FAIL out[%d] = %g, expected %g\n", i, out[i], want);
      return 1;
    }
  }
  rc = dpia_gemv_launch(out, 2.0f, 0.5f, mat, x, y, M, 100); /* N % 64 != 0 */
  if (rc != DPIA_ERROR_PRECONDITION) {
    printf("FAIL N = 100: %d (%s), expected DPIA_ERROR_PRECONDITION\n", rc, dpia_error_string(rc));
    return 1;
  }
  rc = dpia_gemv_launch(y, 2.0f, 0.5f, mat, x, y, M, N); /* the output is the input y */
  if (rc != DPIA_ERROR_ALIAS) {
    printf("FAIL output y: %d (%s), expected DPIA_ERROR_ALIAS\n", rc, dpia_error_string(rc));
    return 1;
  }
  printf("gemv: %s\n", dpia_last_error_message());
  free(mat);
  rc = pipeline_dot();
  if (rc == 0) printf("ok: %s\n", dpia_last_error_message());
  return rc;
}
