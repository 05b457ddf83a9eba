/* header_main.c: the C header (--emit=header --target=c) of
 * samples/gemv.dpia used from a program: its launcher computes
 * alpha * mat . x + beta * y as a loop here does, and refuses sizes that
 * break a precondition and an output that overlaps an input, with their
 * DPIA_ERROR_* codes and a message.  run_c.py builds it with every
 * sample's header in a second file (they coexist in one program). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gemv.h"

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
  printf("ok: %s\n", dpia_last_error_message());
  free(mat);
  return 0;
}
