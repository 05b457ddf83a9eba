/* pipe_header_run.c: the launchers of pipelines (docs/language.md section
 * 8) from C11, with the headers generated at build time from the samples
 * dot_full.dpia, asum_full.dpia, atax.dpia and mm_packed.dpia, all in this
 * one translation unit, on an OpenCL device (PoCL in CI):
 *   - dot, asum, atax and mm, each in one call, against the host;
 *   - the output in an input's buffer: DPIA_ERROR_ALIAS naming both;
 *   - a violated precondition: the launcher returns
 *     DPIA_ERROR_PRECONDITION, dpia_dot_check says which, and nothing is
 *     enqueued (no event made, the output untouched);
 *   - the asynchronous form waits for its wait list: enqueued after a user
 *     event, it has not run (its event is not complete, the output
 *     untouched, read through a second queue) until the event is set, and
 *     then computes the right result;
 *   - the temporaries kept between calls on one queue: results right when
 *     N grows, on a second queue, and after dpia_dot_release;
 *   - a kernel with two output buffers as a stage (two_outputs.dpia of
 *     this directory): chain, both and half against the host, at N = 1
 *     and N = 1000;
 *   - pipelines whose result is a pair of arrays (pair_outputs.dpia of
 *     this directory): both output buffers against the host at N = 1 and
 *     N = 1000, and an output_2 buffer too small refused before anything
 *     is enqueued (DPIA_ERROR_BUFFER_SIZE naming output_2, output_1
 *     untouched);
 *   - launches with no work-item (docs/reference.md, "Sizes that do not
 *     divide"): dotAnyFull and asumAnyFull (dot_any.dpia) at N = 0 write
 *     0.0, the first launch left out, and at N = 1 the host's value; atax
 *     at M = 0 (its first launch left out, the second reading an empty
 *     temporary: zeros) and N = 0 (nothing to write); prodAny (empty.dpia
 *     of this directory) at N = 0 writes 1.0, the empty product; halfPipe
 *     at N = 0, whose first launch would leave 4 elements unwritten, is
 *     refused by dpia_halfPipe_check and the launcher, naming the launch
 *     and the buffer, before anything is enqueued.
 * Without an OpenCL platform the test fails saying so. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "asum_full.h"
#include "atax.h"
#include "dot_any.h"
#include "dot_full.h"
#include "empty_all.h" /* tests/pipeline/empty.dpia */
#include "mm_packed.h"
#include "pair_outputs_all.h" /* all of pair_outputs.dpia (pair_outputs.h here: -k fromTwo only) */
#include "two_outputs_all.h" /* all of two_outputs.dpia (two_outputs.h here: -k chain only) */
#include "tests/test_check.h"

static cl_context context;
static cl_command_queue queue, other;

static cl_mem buffer(size_t n, const float *data) {
  cl_int err;
  cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), n * sizeof(float),
                            (void *)(uintptr_t)data, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateBuffer: %s\n", dpia_error_string(err));
    exit(1);
  }
  return m;
}

static void read_floats(cl_command_queue q, cl_mem m, size_t n, float *out) {
  cl_int err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(float), out, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clEnqueueReadBuffer: %s\n", dpia_error_string(err));
    exit(1);
  }
}

static float *values(size_t n, int seed) {
  float *v = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) v[i] = (float)((int)((i * 7919 + (size_t)seed * 104729) % 101)) / 32.0f - 1.5f;
  return v;
}

static int close_to(double got, double want) { return fabs(got - want) <= 1e-4 * (1 + fabs(want)); }

static void test_dot(void) {
  const int n = 262144;
  float *xs = values((size_t)n, 1), *ys = values((size_t)n, 2), sentinel = 42.0f, out = 0;
  double want = 0;
  for (int i = 0; i < n; i++) want += (double)xs[i] * ys[i];
  cl_mem dxs = buffer((size_t)n, xs), dys = buffer((size_t)n, ys), dout = buffer(1, &sentinel);

  int rc = dpia_dot_launch(queue, dout, dxs, dys, n);
  CHECK(rc == DPIA_SUCCESS, "dot: %s", dpia_error_string(rc));
  clFinish(queue);
  read_floats(queue, dout, 1, &out);
  CHECK(close_to(out, want), "dot: %g, the host says %g", out, want);

  /* the output in an input's buffer: refused (dotSum writes output after
   * dotParts read xs, but a pipeline promises no order of its accesses) */
  rc = dpia_dot_launch(queue, dxs, dxs, dys, n);
  CHECK(rc == DPIA_ERROR_ALIAS && strstr(dpia_last_error_message(), "dot: output output and input xs are the same "
                                                                    "buffer") == dpia_last_error_message(),
        "dot into xs: %s '%s'", dpia_error_string(rc), dpia_last_error_message());

  /* a violated precondition: nothing is enqueued */
  char msg[256];
  rc = dpia_dot_check(1000, msg, sizeof msg);
  CHECK(rc == DPIA_ERROR_PRECONDITION && strstr(msg, "N >= 2048"), "dot_check(1000): %d '%s'", rc, msg);
  CHECK(dpia_dot_check(n, msg, sizeof msg) == DPIA_SUCCESS && msg[0] == 0, "dot_check(%d): '%s'", n, msg);
  cl_mem dfresh = buffer(1, &sentinel);
  cl_event done = NULL;
  rc = dpia_dot_enqueue(queue, dfresh, dxs, dys, 1000, 0, NULL, &done);
  CHECK(rc == DPIA_ERROR_PRECONDITION, "dot N=1000: %s", dpia_error_string(rc));
  rc = dpia_dot_enqueue(queue, dfresh, dxs, dys, 2 * n + 2048, 0, NULL, &done);
  CHECK(rc == DPIA_ERROR_PRECONDITION, "dot N=%d: %s", 2 * n + 2048, dpia_error_string(rc));
  CHECK(done == NULL, "a refused launch made an event");
  clFinish(queue);
  read_floats(queue, dfresh, 1, &out);
  CHECK(out == sentinel, "a refused launch wrote the output: %g", out);

  /* asynchronous: after a user event */
  cl_int err;
  cl_event gate = clCreateUserEvent(context, &err);
  CHECK(err == CL_SUCCESS, "clCreateUserEvent: %s", dpia_error_string(err));
  rc = dpia_dot_enqueue(queue, dfresh, dxs, dys, n, 1, &gate, &done);
  CHECK(rc == DPIA_SUCCESS && done, "dot after a user event: %s", dpia_error_string(rc));
  struct timespec pause = {0, 100 * 1000 * 1000};
  nanosleep(&pause, NULL);
  cl_int status = CL_COMPLETE;
  if (done) clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  CHECK(status != CL_COMPLETE, "the last kernel completed before the user event");
  read_floats(other, dfresh, 1, &out);
  CHECK(out == sentinel, "the pipeline ran before the user event: %g", out);
  clSetUserEventStatus(gate, CL_COMPLETE);
  if (done) {
    CHECK(clWaitForEvents(1, &done) == CL_SUCCESS, "waiting for the last kernel");
    clReleaseEvent(done);
  }
  read_floats(queue, dfresh, 1, &out);
  CHECK(close_to(out, want), "dot after the user event: %g, the host says %g", out, want);
  clReleaseEvent(gate);

  /* the temporaries are kept for the next call on the queue, grow with N,
   * another queue has its own, and dpia_dot_release releases them */
  const int n2 = 2 * n;
  float *xs2 = values((size_t)n2, 7), *ys2 = values((size_t)n2, 8);
  double want2 = 0;
  for (int i = 0; i < n2; i++) want2 += (double)xs2[i] * ys2[i];
  cl_mem dxs2 = buffer((size_t)n2, xs2), dys2 = buffer((size_t)n2, ys2);
  for (int round = 0; round < 3; round++) {
    int big = round == 1;
    rc = dpia_dot_launch(round == 2 ? other : queue, dout, big ? dxs2 : dxs, big ? dys2 : dys, big ? n2 : n);
    CHECK(rc == DPIA_SUCCESS, "dot, round %d: %s", round, dpia_error_string(rc));
    clFinish(round == 2 ? other : queue);
    read_floats(queue, dout, 1, &out);
    CHECK(close_to(out, big ? want2 : want), "dot, round %d: %g, the host says %g", round, out, big ? want2 : want);
  }
  /* (the header's cache, looked into: the set of round 0 served round 1) */
  dpia_dot_temps_ *kept = DPIA_LOAD_(&dpia_dot_temps_cache_()->set[0]);
  CHECK(kept && kept->queue == queue && kept->bytes[0] == (size_t)n2 / 2048 * sizeof(float),
        "the temporaries of the calls on one queue are one set, grown to N = %d", n2);
  dpia_dot_release();
  CHECK(!DPIA_LOAD_(&dpia_dot_temps_cache_()->set[0]) && !DPIA_LOAD_(&dpia_dot_temps_cache_()->set[1]),
        "dpia_dot_release empties the cache");
  /* and after the release, a call makes new ones */
  rc = dpia_dot_launch(queue, dout, dxs, dys, n);
  read_floats(queue, dout, 1, &out);
  CHECK(rc == DPIA_SUCCESS && close_to(out, want), "dot after dpia_dot_release: %s, %g", dpia_error_string(rc), out);
  clReleaseMemObject(dxs2);
  clReleaseMemObject(dys2);
  free(xs2);
  free(ys2);
  clReleaseMemObject(dxs);
  clReleaseMemObject(dys);
  clReleaseMemObject(dout);
  clReleaseMemObject(dfresh);
  free(xs);
  free(ys);
}

static void test_asum(int n) {
  float *xs = values((size_t)n, 9), out = 0;
  double want = 0;
  for (int i = 0; i < n; i++) want += fabs((double)xs[i]);
  cl_mem dxs = buffer((size_t)n, xs), dout = buffer(1, NULL);
  int rc = dpia_asum_launch(queue, dout, dxs, n);
  CHECK(rc == DPIA_SUCCESS, "asum: %s", dpia_error_string(rc));
  read_floats(queue, dout, 1, &out);
  CHECK(close_to(out, want), "asum N=%d: %g, the host says %g", n, out, want);
  dpia_asum_release();
  clReleaseMemObject(dxs);
  clReleaseMemObject(dout);
  free(xs);
}

static void test_atax(int m, int n) {
  float *a = values((size_t)(m * n), 3), *x = values((size_t)n, 4), *y = malloc(sizeof(float) * (size_t)n);
  cl_mem da = buffer((size_t)(m * n), a), dx = buffer((size_t)n, x), dy = buffer((size_t)n, NULL);
  int rc = dpia_atax_launch(queue, dy, da, dx, m, n);
  CHECK(rc == DPIA_SUCCESS, "atax: %s", dpia_error_string(rc));
  read_floats(queue, dy, (size_t)n, y);
  int bad = 0;
  for (int j = 0; j < n; j++) {
    double want = 0;
    for (int i = 0; i < m; i++) {
      double t = 0;
      for (int l = 0; l < n; l++) t += (double)a[i * n + l] * x[l];
      want += (double)a[i * n + j] * (float)t;
    }
    bad += !close_to(y[j], want);
  }
  CHECK(bad == 0, "atax %dx%d: %d wrong elements", m, n, bad);
  clReleaseMemObject(da);
  clReleaseMemObject(dx);
  clReleaseMemObject(dy);
  free(a);
  free(x);
  free(y);
}

static void test_mm(int m, int n, int k) {
  float *a = values((size_t)(m * k), 5), *b = values((size_t)(k * n), 6), *c = malloc(sizeof(float) * (size_t)(m * n));
  cl_mem da = buffer((size_t)(m * k), a), db = buffer((size_t)(k * n), b), dc = buffer((size_t)(m * n), NULL);
  int rc = dpia_mm_launch(queue, dc, da, db, m, n, k);
  CHECK(rc == DPIA_SUCCESS, "mm: %s", dpia_error_string(rc));
  read_floats(queue, dc, (size_t)(m * n), c);
  int bad = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double want = 0;
      for (int l = 0; l < k; l++) want += (double)a[i * k + l] * b[l * n + j];
      bad += !close_to(c[i * n + j], want);
    }
  CHECK(bad == 0, "mm %dx%dx%d: %d wrong elements", m, n, k, bad);
  CHECK(dpia_mm_launch(queue, dc, da, db, m, 40, k) == DPIA_ERROR_PRECONDITION, "mm with N = 40 is refused");
  clReleaseMemObject(da);
  clReleaseMemObject(db);
  clReleaseMemObject(dc);
  free(a);
  free(b);
  free(c);
}

/* two_outputs.dpia: twoOut xs = (2x, x + 1); addUp as bs = a - b; so
 * chain = 2(x + 1) - (2x - (x + 2)) = x + 4, both = x - 1, half = x + 1 */
static void test_two_outputs(int n) {
  float *xs = values((size_t)n, 7), *out = malloc(sizeof(float) * (size_t)n);
  cl_mem dx = buffer((size_t)n, xs), dout = buffer((size_t)n, NULL);
  const char *names[3] = {"chain", "both", "half"};
  const float plus[3] = {4.0f, -1.0f, 1.0f};
  for (int p = 0; p < 3; p++) {
    int rc = p == 0 ? dpia_chain_launch(queue, dout, dx, n)
                    : p == 1 ? dpia_both_launch(queue, dout, dx, n) : dpia_half_launch(queue, dout, dx, n);
    CHECK(rc == DPIA_SUCCESS, "%s: %s", names[p], dpia_error_string(rc));
    read_floats(queue, dout, (size_t)n, out);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += !close_to(out[i], (double)xs[i] + plus[p]);
    CHECK(bad == 0, "%s at N = %d: %d wrong elements", names[p], n, bad);
  }
  clReleaseMemObject(dx);
  clReleaseMemObject(dout);
  free(xs);
  free(out);
}

/* pair_outputs.dpia: scaleShift xs = (2x, x + 1), subtract as bs = a - b;
 * pairOut = (2x, x + 1), fromTwo = (2x - y, x + 1 - y), swapped = (x + 1,
 * 2x), reads = (0, -x) */
static void test_pair_outputs(int n) {
  float *xs = values((size_t)n, 8), *ys = values((size_t)n, 9);
  float *o1 = malloc(sizeof(float) * (size_t)n), *o2 = malloc(sizeof(float) * (size_t)n);
  cl_mem dx = buffer((size_t)n, xs), dy = buffer((size_t)n, ys), d1 = buffer((size_t)n, NULL),
         d2 = buffer((size_t)n, NULL);
  const char *names[4] = {"pairOut", "fromTwo", "swapped", "reads"};
  for (int p = 0; p < 4; p++) {
    int rc = p == 0   ? dpia_pairOut_launch(queue, d1, d2, dx, n)
             : p == 1 ? dpia_fromTwo_launch(queue, d1, d2, dx, dy, n)
             : p == 2 ? dpia_swapped_launch(queue, d1, d2, dx, n)
                      : dpia_reads_launch(queue, d1, d2, dx, n);
    CHECK(rc == DPIA_SUCCESS, "%s: %s", names[p], dpia_error_string(rc));
    read_floats(queue, d1, (size_t)n, o1);
    read_floats(queue, d2, (size_t)n, o2);
    int bad = 0;
    for (int i = 0; i < n; i++) {
      double x = xs[i], y = ys[i];
      double w1 = p == 0 ? 2 * x : p == 1 ? 2 * x - y : p == 2 ? x + 1 : 0;
      double w2 = p == 0 ? x + 1 : p == 1 ? x + 1 - y : p == 2 ? 2 * x : -x;
      bad += !close_to(o1[i], w1) + !close_to(o2[i], w2);
    }
    CHECK(bad == 0, "%s at N = %d: %d wrong elements", names[p], n, bad);
  }
  /* output_2 one element short: refused by name, nothing enqueued */
  if (n > 1) {
    cl_mem small = buffer((size_t)n - 1, NULL);
    for (int i = 0; i < n; i++) o1[i] = -7.0f;
    cl_int err = clEnqueueWriteBuffer(queue, d1, CL_TRUE, 0, sizeof(float) * (size_t)n, o1, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "write output_1: %s", dpia_error_string(err));
    int rc = dpia_pairOut_launch(queue, d1, small, dx, n);
    CHECK(rc == DPIA_ERROR_BUFFER_SIZE && strstr(dpia_last_error_message(), "output_2") != NULL,
          "pairOut into a short output_2: %s '%s'", dpia_error_string(rc), dpia_last_error_message());
    read_floats(queue, d1, (size_t)n, o1);
    int touched = 0;
    for (int i = 0; i < n; i++) touched += o1[i] != -7.0f;
    CHECK(touched == 0, "pairOut refused, yet %d elements of output_1 written", touched);
    clReleaseMemObject(small);
  }
  clReleaseMemObject(dx);
  clReleaseMemObject(dy);
  clReleaseMemObject(d1);
  clReleaseMemObject(d2);
  free(xs);
  free(ys);
  free(o1);
  free(o2);
}

/* the one float a pipeline writes at N, its buffer holding 42 before */
static float one_result(int which, int n, const float *xs, const float *ys) {
  float sentinel = 42.0f, out = 0;
  /* an empty input is a buffer of one float (OpenCL has no empty buffer) */
  cl_mem dxs = buffer(n ? (size_t)n : 1, n ? xs : &sentinel), dys = buffer(n ? (size_t)n : 1, n ? ys : &sentinel),
         dout = buffer(1, &sentinel);
  cl_event done = NULL;
  int rc = which == 0   ? dpia_dotAnyFull_enqueue(queue, dout, dxs, dys, n, 0, NULL, &done)
           : which == 1 ? dpia_asumAnyFull_enqueue(queue, dout, dxs, n, 0, NULL, &done)
                        : dpia_prodAny_enqueue(queue, dout, dxs, n, 0, NULL, &done);
  CHECK(rc == DPIA_SUCCESS && done, "pipeline %d at N = %d: %s", which, n, dpia_error_string(rc));
  if (done) {
    CHECK(clWaitForEvents(1, &done) == CL_SUCCESS, "waiting for pipeline %d at N = %d", which, n);
    clReleaseEvent(done);
  }
  read_floats(queue, dout, 1, &out);
  clReleaseMemObject(dxs);
  clReleaseMemObject(dys);
  clReleaseMemObject(dout);
  return out;
}

static void test_empty_launches(void) {
  float xs[1] = {0.75f}, ys[1] = {-0.5f};
  float got = one_result(0, 0, xs, ys);
  CHECK(got == 0.0f, "dotAnyFull at N = 0: %g, not 0", got);
  got = one_result(0, 1, xs, ys);
  CHECK(got == 0.75f * -0.5f, "dotAnyFull at N = 1: %g", got);
  got = one_result(1, 0, xs, ys);
  CHECK(got == 0.0f, "asumAnyFull at N = 0: %g, not 0", got);
  got = one_result(1, 1, ys, xs);
  CHECK(got == 0.5f, "asumAnyFull at N = 1: %g", got);
  got = one_result(2, 0, xs, ys);
  CHECK(got == 1.0f, "prodAny at N = 0: %g, not the empty product 1", got);
  got = one_result(2, 1, xs, ys);
  CHECK(close_to(got, 1.0 + 0.75 / 1024), "prodAny at N = 1: %g", got);

  /* atax at M = 0: y = A^T (A x) of no rows, zeros; at N = 0 nothing */
  float sentinels[4] = {42.0f, 42.0f, 42.0f, 42.0f}, y[4];
  cl_mem da = buffer(4, sentinels), dx = buffer(4, sentinels), dy = buffer(4, sentinels);
  int rc = dpia_atax_launch(queue, dy, da, dx, 0, 3);
  CHECK(rc == DPIA_SUCCESS, "atax at M = 0: %s", dpia_error_string(rc));
  read_floats(queue, dy, 3, y);
  CHECK(y[0] == 0.0f && y[1] == 0.0f && y[2] == 0.0f, "atax at M = 0: %g %g %g, not zeros", y[0], y[1], y[2]);
  rc = dpia_atax_launch(queue, dy, da, dx, 3, 0);
  CHECK(rc == DPIA_SUCCESS, "atax at N = 0: %s", dpia_error_string(rc));

  /* halfPipe at N = 0: refused before anything is enqueued */
  char msg[256];
  const char *why = "error[E0413]: launch 0 (halfEmpty) has no work-item at these sizes, but its output output_2 "
                    "(buffer tmp1) is not empty";
  rc = dpia_halfPipe_check(0, msg, sizeof msg);
  CHECK(rc == DPIA_ERROR_SIZE && strcmp(msg, why) == 0, "halfPipe_check(0): %d '%s'", rc, msg);
  CHECK(dpia_halfPipe_check(1, msg, sizeof msg) == DPIA_SUCCESS, "halfPipe_check(1): '%s'", msg);
  cl_event done = NULL;
  clReleaseMemObject(dy);
  dy = buffer(4, sentinels);
  rc = dpia_halfPipe_enqueue(queue, dy, da, dx, 0, 0, NULL, &done);
  const char *said = dpia_last_error_message();
  CHECK(rc == DPIA_ERROR_SIZE && strncmp(said, "halfPipe: ", 10) == 0 && strcmp(said + 10, why) == 0,
        "halfPipe at N = 0: %s '%s'", dpia_error_string(rc), said);
  CHECK(done == NULL, "a refused pipeline made an event");
  read_floats(queue, dy, 4, y);
  CHECK(y[0] == 42.0f, "a refused pipeline wrote its output: %g", y[0]);
  clReleaseMemObject(da);
  clReleaseMemObject(dx);
  clReleaseMemObject(dy);
  dpia_dotAnyFull_release();
  dpia_asumAnyFull_release();
  dpia_prodAny_release();
  dpia_halfPipe_release();
}

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_uint np = 0, nd = 0;
  if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0 ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &nd) != CL_SUCCESS || nd == 0) {
    fprintf(stderr, "no OpenCL platform or device: the launcher tests need one (PoCL)\n");
    return 1;
  }
  cl_int err;
  context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err == CL_SUCCESS) queue = clCreateCommandQueue(context, device, 0, &err);
  if (err == CL_SUCCESS) other = clCreateCommandQueue(context, device, 0, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "no context or queue: %s\n", dpia_error_string(err));
    return 1;
  }
  test_dot();
  test_asum(524288);
  test_atax(100, 77);
  test_mm(32, 48, 40);
  test_mm(64, 64, 64);
  test_two_outputs(1);
  test_two_outputs(1000);
  test_pair_outputs(1);
  test_pair_outputs(1000);
  test_empty_launches();
  clReleaseCommandQueue(other);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("pipeline launchers: ok\n");
  return failures ? 1 : 0;
}
