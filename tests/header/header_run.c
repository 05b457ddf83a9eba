/* header_run.c: the launchers of `--emit=header` on an OpenCL device (PoCL
 * in CI), compiled as C11 with the headers generated at build time from
 * tests/header/kernels.dpia and samples/mm_tiled.dpia, both included in
 * this one translation unit (the shared part must come out once).
 *
 * Modes (one meson test each):
 *   kernels   a global temporary (twice), struct buffers and a struct by
 *             value (swap), a vector by value (vecscale), a pair of scalars
 *             (pairUp), 2D with local buffers of symbolic size (mmTiled),
 *             two kernels in a row, one reading the other's output
 *             (packB, mmBlockPacked of samples/mm_vec.dpia): results
 *             against the host
 *   errors    preconditions, negative sizes, checked arithmetic, empty
 *             launches, error strings, a wait list and an event
 *   cache     one program per context in the cache, two contexts, release
 *   threads   8 threads with their own queues launching into one context
 *             at once, every result checked
 *   buffers   a buffer smaller than the kernel touches: DPIA_ERROR_BUFFER_SIZE,
 *             nothing enqueued (no event, the output untouched), the
 *             message naming the parameter and the bytes
 *   alias     an output that is the same buffer as an input (blur in
 *             place), overlapping sub-buffers of one buffer, two outputs
 *             in one buffer: DPIA_ERROR_ALIAS naming both parameters,
 *             nothing enqueued; disjoint sub-buffers of one buffer and two
 *             inputs in one buffer are launched and compute the right result
 *   inplace   kernels computing in place (docs/language.md section 27):
 *             axpyInPlace updates ys in its one buffer, the launcher
 *             refusing xs in that buffer (DPIA_ERROR_ALIAS, nothing
 *             enqueued); bothInPlace updates ys and xs, each in its own
 *             buffer (one buffer for both refused); interiorFrom writes
 *             the interior of m and leaves its border as it was
 *   names     parameters named like OpenCL C built-ins (step, dot): the
 *             launcher, its element counts and its messages use those
 *             names, which are step_2 and dot_2 in the kernel
 *   devlimit  a kernel whose local buffer grows with a size (rowSums):
 *             after a launch that fits, one needing more local memory
 *             than the device has is refused (DPIA_ERROR_DEVICE_LIMIT,
 *             the bytes in the message) and one that fits runs again:
 *             the pooled kernel object's local memory, asked after its
 *             arguments are set, counts this launch's local buffer
 *   build     build options: a failing build reports its log
 *             (dpia_last_build_log, per thread), other options get their
 *             own program; kernel objects come from the pool
 * Without an OpenCL platform the test fails saying so. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "mm_tiled.h"
#include "mm_vec.h"

static int failures;

#define CHECK(c, ...)                                    \
  do {                                                   \
    if (!(c)) {                                          \
      fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);    \
      fprintf(stderr, __VA_ARGS__);                      \
      fputc('\n', stderr);                               \
      failures++;                                        \
    }                                                    \
  } while (0)

typedef struct Cl {
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
} Cl;

static int cl_open(Cl *cl) {
  cl_platform_id platform;
  cl_uint n = 0;
  if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0) {
    fprintf(stderr, "no OpenCL platform: the launcher tests need one (PoCL)\n");
    return 0;
  }
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &cl->device, &n) != CL_SUCCESS || n == 0) {
    fprintf(stderr, "no OpenCL device\n");
    return 0;
  }
  cl_int err;
  cl->context = clCreateContext(NULL, 1, &cl->device, NULL, NULL, &err);
  if (err != CL_SUCCESS) return 0;
  cl->queue = clCreateCommandQueue(cl->context, cl->device, 0, &err);
  return err == CL_SUCCESS;
}

static void cl_close(Cl *cl) {
  clReleaseCommandQueue(cl->queue);
  clReleaseContext(cl->context);
}

static cl_mem buffer(Cl *cl, size_t bytes, const void *data) {
  cl_int err;
  cl_mem m = clCreateBuffer(cl->context, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                            (void *)data, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateBuffer: %s\n", dpia_error_string(err));
    exit(1);
  }
  return m;
}

static void read_back(Cl *cl, cl_mem m, size_t bytes, void *out) {
  cl_int err = clEnqueueReadBuffer(cl->queue, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clEnqueueReadBuffer: %s\n", dpia_error_string(err));
    exit(1);
  }
}

static float value(int i) { return (float)((i * 7919) % 101) / 16.0f - 3.0f; }

/* twice with n elements on a queue: 0 if every partial sum is right */
static int run_twice(Cl *cl, cl_command_queue q, int n) {
  float *xs = malloc(sizeof(float) * (size_t)n), *out = malloc(sizeof(float) * (size_t)(n / 4));
  for (int i = 0; i < n; i++) xs[i] = value(i);
  cl_mem dxs = buffer(cl, sizeof(float) * (size_t)n, xs), dout = buffer(cl, sizeof(float) * (size_t)(n / 4), NULL);
  int rc = dpia_twice_launch(q, dout, dxs, n);
  int bad = rc != DPIA_SUCCESS;
  if (!bad) {
    clEnqueueReadBuffer(q, dout, CL_TRUE, 0, sizeof(float) * (size_t)(n / 4), out, 0, NULL, NULL);
    for (int g = 0; g < n / 4; g++) {
      float want = 0;
      for (int i = 0; i < 4; i++) want = xs[4 * g + i] * 2.0f + want;
      if (fabsf(out[g] - want) > 1e-5f * (1 + fabsf(want))) bad++;
    }
  }
  clReleaseMemObject(dxs);
  clReleaseMemObject(dout);
  free(xs);
  free(out);
  return bad;
}

/* elements of c = a b (a: m x k, b: k x n) off the host's product */
static int wrong_products(const float *a, const float *b, const float *c, int m, int n, int k) {
  int bad = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float want = 0;
      for (int l = 0; l < k; l++) want = a[i * k + l] * b[l * n + j] + want;
      bad += fabsf(c[i * n + j] - want) > 1e-4f * (1 + fabsf(want));
    }
  return bad;
}

static void test_kernels(Cl *cl) {
  CHECK(run_twice(cl, cl->queue, 4096) == 0, "twice: wrong result");

  /* swap: [N](int, float) and a (float, int) by value */
  enum { N = 1000 };
  dpia_pair_int_float zs[N];
  dpia_pair_float_int out[N];
  for (int i = 0; i < N; i++) {
    zs[i].fst = i - 500;
    zs[i].snd = value(i);
  }
  dpia_pair_float_int s = {0.5f, 3};
  cl_mem dzs = buffer(cl, sizeof zs, zs), dout = buffer(cl, sizeof out, NULL);
  int rc = dpia_swap_launch(cl->queue, dout, dzs, s, N);
  CHECK(rc == DPIA_SUCCESS, "swap: %s", dpia_error_string(rc));
  read_back(cl, dout, sizeof out, out);
  int bad = 0;
  for (int i = 0; i < N; i++) bad += out[i].fst != zs[i].snd + 0.5f || out[i].snd != zs[i].fst + 3;
  CHECK(bad == 0, "swap: %d wrong elements", bad);
  clReleaseMemObject(dzs);
  clReleaseMemObject(dout);

  /* vecscale: a float4 by value */
  float xs[N], ys[N];
  for (int i = 0; i < N; i++) xs[i] = value(i);
  cl_float4 a = {{1.0f, -2.0f, 0.5f, 4.0f}};
  cl_mem dxs = buffer(cl, sizeof xs, xs), dys = buffer(cl, sizeof ys, NULL);
  rc = dpia_vecscale_launch(cl->queue, dys, a, dxs, N);
  CHECK(rc == DPIA_SUCCESS, "vecscale: %s", dpia_error_string(rc));
  read_back(cl, dys, sizeof ys, ys);
  bad = 0;
  for (int i = 0; i < N; i++) bad += ys[i] != a.s[i % 4] * xs[i];
  CHECK(bad == 0, "vecscale: %d wrong elements", bad);
  clReleaseMemObject(dxs);
  clReleaseMemObject(dys);

  /* pairUp: a pair of scalars, two one-element outputs, no nat parameter */
  float first = 0;
  int second = 0;
  cl_mem d1 = buffer(cl, sizeof first, NULL), d2 = buffer(cl, sizeof second, NULL);
  rc = dpia_pairUp_launch(cl->queue, d1, d2, 1.25f, 41);
  CHECK(rc == DPIA_SUCCESS, "pairUp: %s", dpia_error_string(rc));
  read_back(cl, d1, sizeof first, &first);
  read_back(cl, d2, sizeof second, &second);
  CHECK(first == 2.5f && second == 42, "pairUp: %g %d", first, second);
  clReleaseMemObject(d1);
  clReleaseMemObject(d2);

  /* mmTiled: 2D NDRange, two local buffers of 16*K floats */
  enum { M = 32, MN = 48, K = 20 };
  static float ma[M * K], mb[K * MN], mc[M * MN];
  for (int i = 0; i < M * K; i++) ma[i] = value(i);
  for (int i = 0; i < K * MN; i++) mb[i] = value(3 * i + 1);
  cl_mem da = buffer(cl, sizeof ma, ma), db = buffer(cl, sizeof mb, mb), dc = buffer(cl, sizeof mc, NULL);
  rc = dpia_mmTiled_launch(cl->queue, dc, da, db, M, MN, K);
  CHECK(rc == DPIA_SUCCESS, "mmTiled: %s", dpia_error_string(rc));
  read_back(cl, dc, sizeof mc, mc);
  bad = wrong_products(ma, mb, mc, M, MN, K);
  CHECK(bad == 0, "mmTiled: %d wrong elements", bad);

  /* the same product by packB (b into contiguous column blocks of 16)
   * then mmBlockPacked, on one in-order queue */
  cl_mem dbp = buffer(cl, sizeof mb, NULL);
  memset(mc, 0, sizeof mc);
  rc = dpia_packB_launch(cl->queue, dbp, db, MN, K);
  CHECK(rc == DPIA_SUCCESS, "packB: %s", dpia_error_string(rc));
  rc = dpia_mmBlockPacked_launch(cl->queue, dc, da, dbp, M, MN, K);
  CHECK(rc == DPIA_SUCCESS, "mmBlockPacked: %s", dpia_error_string(rc));
  read_back(cl, dc, sizeof mc, mc);
  bad = wrong_products(ma, mb, mc, M, MN, K);
  CHECK(bad == 0, "packB + mmBlockPacked: %d wrong elements", bad);
  clReleaseMemObject(dbp);
  clReleaseMemObject(da);
  clReleaseMemObject(db);
  clReleaseMemObject(dc);
}

/* dpia_NAME_check names the failing check with the values; the element
 * counts of every buffer */
static void test_check_and_counts(void) {
  char msg[200];
  int rc = dpia_twice_check(1022, msg, sizeof msg);
  CHECK(rc == DPIA_ERROR_PRECONDITION && strcmp(msg, "precondition N % 4 == 0 does not hold for N = 1022") == 0,
        "twice_check N=1022: %d '%s'", rc, msg);
  rc = dpia_mmTiled_check(16, 17, 4, msg, sizeof msg);
  CHECK(rc == DPIA_ERROR_PRECONDITION &&
            strcmp(msg, "precondition N % 16 == 0 does not hold for M = 16, N = 17, K = 4") == 0,
        "mmTiled_check N=17: %d '%s'", rc, msg);
  rc = dpia_mmTiled_check(-16, 16, 4, msg, sizeof msg);
  CHECK(rc == DPIA_ERROR_SIZE && strcmp(msg, "size M = -16 is negative") == 0, "mmTiled_check M=-16: %d '%s'", rc,
        msg);
  rc = dpia_mmTiled_check(32, 48, 5, msg, sizeof msg);
  CHECK(rc == DPIA_SUCCESS && msg[0] == 0, "mmTiled_check valid: %d '%s'", rc, msg);
  volatile size_t small = 10; /* not a constant: no truncation warning */
  rc = dpia_twice_check(1022, msg, small);
  CHECK(rc == DPIA_ERROR_PRECONDITION && strlen(msg) == 9, "a short message buffer is not overrun: '%s'", msg);
  CHECK(dpia_twice_check(8, NULL, 0) == DPIA_SUCCESS && dpia_twice_check(6, NULL, 0) == DPIA_ERROR_PRECONDITION,
        "check without a message buffer");
  CHECK(dpia_pairUp_check(msg, sizeof msg) == DPIA_SUCCESS, "pairUp has nothing to check");
  /* the launchers agree with the checks */
  CHECK(dpia_twice_output_elements(1024) == 256 && dpia_twice_xs_elements(1024) == 1024 &&
            dpia_twice_tmp_elements(1024) == 1024,
        "twice: output %zu, xs %zu, tmp %zu", dpia_twice_output_elements(1024), dpia_twice_xs_elements(1024),
        dpia_twice_tmp_elements(1024));
  CHECK(dpia_swap_output_elements(10) == 10 && dpia_swap_zs_elements(10) == 10, "swap counts");
  CHECK(dpia_vecscale_output_elements(16) == 16 && dpia_vecscale_xs_elements(16) == 16, "vecscale counts floats: %zu",
        dpia_vecscale_output_elements(16));
  CHECK(dpia_pairUp_output_1_elements() == 1 && dpia_pairUp_output_2_elements() == 1, "pairUp counts");
  CHECK(dpia_mmTiled_output_elements(32, 48, 5) == 32 * 48 && dpia_mmTiled_a_elements(32, 48, 5) == 32 * 5 &&
            dpia_mmTiled_b_elements(32, 48, 5) == 5 * 48 && dpia_mmTiled_loc_elements(32, 48, 5) == 16 * 5,
        "mmTiled counts");
  CHECK(dpia_mmTiled_output_elements(-1, 48, 5) == 0 && dpia_mmTiled_output_elements(0x7fffffff, 0x7fffffff, 1) ==
                                                            (size_t)0x7fffffff * 0x7fffffff,
        "negative sizes count 0");
}

static void test_errors(Cl *cl) {
  test_check_and_counts();
  cl_mem m = buffer(cl, 4096, NULL), m2 = buffer(cl, 4096, NULL);
  /* N % 4 == 0 */
  int rc = dpia_twice_launch(cl->queue, m, m, 1022);
  CHECK(rc == DPIA_ERROR_PRECONDITION, "twice N=1022: %d", rc);
  CHECK(strcmp(dpia_last_error_message(), "twice: precondition N % 4 == 0 does not hold for N = 1022") == 0,
        "twice N=1022: '%s'", dpia_last_error_message());
  /* M % 16 == 0, N % 16 == 0 */
  rc = dpia_mmTiled_launch(cl->queue, m, m, m, 16, 17, 4);
  CHECK(rc == DPIA_ERROR_PRECONDITION, "mmTiled N=17: %d", rc);
  rc = dpia_twice_launch(cl->queue, m, m, -4);
  CHECK(rc == DPIA_ERROR_SIZE, "twice N=-4: %d", rc);
  /* OpenCL's own errors come back unchanged */
  rc = dpia_twice_launch(NULL, m, m2, 8);
  CHECK(rc == CL_INVALID_COMMAND_QUEUE, "twice on a NULL queue: %s", dpia_error_string(rc));

  /* an empty launch enqueues nothing, or a marker when an event is wanted */
  rc = dpia_twice_launch(cl->queue, m, m, 0);
  CHECK(rc == DPIA_SUCCESS, "twice N=0: %s", dpia_error_string(rc));
  cl_event ev = NULL;
  rc = dpia_twice_enqueue(cl->queue, m, m, 0, 0, NULL, &ev);
  CHECK(rc == DPIA_SUCCESS && ev, "twice N=0 with an event: %s", dpia_error_string(rc));
  if (ev) {
    CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS, "waiting for the marker");
    clReleaseEvent(ev);
  }

  /* no work-item, but an output that is not empty: refused, naming it */
  rc = dpia_halfEmpty_launch(cl->queue, m, m2, m, m, 0);
  CHECK(rc == DPIA_ERROR_SIZE, "halfEmpty N=0: %s", dpia_error_string(rc));
  CHECK(strcmp(dpia_last_error_message(),
               "halfEmpty: error[E0413]: the NDRange has no work-item at these sizes, but output output_2 is not "
               "empty") == 0,
        "halfEmpty N=0: '%s'", dpia_last_error_message());

  /* a wait list and an event: the kernel waits for a user event */
  cl_int err;
  cl_event gate = clCreateUserEvent(cl->context, &err);
  CHECK(err == CL_SUCCESS, "clCreateUserEvent");
  float xs[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[2] = {0, 0};
  cl_mem dxs = buffer(cl, sizeof xs, xs), dout = buffer(cl, sizeof out, NULL);
  ev = NULL;
  rc = dpia_twice_enqueue(cl->queue, dout, dxs, 8, 1, &gate, &ev);
  CHECK(rc == DPIA_SUCCESS && ev, "twice with a wait list: %s", dpia_error_string(rc));
  cl_int status = CL_COMPLETE;
  clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  CHECK(status != CL_COMPLETE, "the kernel ran before its wait list completed");
  clSetUserEventStatus(gate, CL_COMPLETE);
  CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS, "waiting for the kernel");
  read_back(cl, dout, sizeof out, out);
  CHECK(out[0] == 20 && out[1] == 52, "twice after the wait list: %g %g", out[0], out[1]);
  clReleaseEvent(ev);
  clReleaseEvent(gate);
  clReleaseMemObject(dxs);
  clReleaseMemObject(dout);
  clReleaseMemObject(m);
  clReleaseMemObject(m2);

  /* checked arithmetic */
  int bad = 0;
  CHECK(dpia_mul_(LLONG_MAX / 2 + 1, 2, &bad) == 0 && bad, "mul overflow");
  bad = 0;
  CHECK(dpia_mul_(-3, LLONG_MAX / 3, &bad) == -(LLONG_MAX / 3) * 3 && !bad, "mul in range");
  CHECK(dpia_mul_(LLONG_MIN, -1, &bad) == 0 && bad, "mul LLONG_MIN * -1");
  bad = 0;
  CHECK(dpia_add_(LLONG_MAX, 1, &bad) == 0 && bad, "add overflow");
  bad = 0;
  CHECK(dpia_sub_(LLONG_MIN, 1, &bad) == 0 && bad, "sub overflow");
  bad = 0;
  CHECK(dpia_div_(7, 0, &bad) == 0 && bad, "div by zero");
  bad = 0;
  CHECK(dpia_mod_(-7, 4, &bad) == -3 && !bad, "C truncation of %%");
  CHECK(dpia_neg_(LLONG_MIN, &bad) == 0 && bad, "neg overflow");
  bad = 0;
  dpia_size_(-1, &bad);
  CHECK(bad, "negative size");

  /* error strings */
  CHECK(strstr(dpia_error_string(DPIA_ERROR_PRECONDITION), "precondition") != NULL, "precondition string");
  CHECK(strncmp(dpia_error_string(DPIA_ERROR_SIZE), "DPIA_ERROR_SIZE", 15) == 0, "size string");
  CHECK(strcmp(dpia_error_string(CL_INVALID_WORK_GROUP_SIZE), "CL_INVALID_WORK_GROUP_SIZE") == 0, "CL string");
  CHECK(strcmp(dpia_error_string(DPIA_SUCCESS), "DPIA_SUCCESS") == 0, "success string");
  CHECK(strcmp(dpia_error_string(12345), "unknown error code") == 0, "unknown code");
}

static void test_cache(Cl *cl) {
  dpia_program_cache_ *cache = dpia_twice_cache_();
  CHECK(run_twice(cl, cl->queue, 64) == 0, "twice");
  CHECK(DPIA_LOAD_(&cache->context[0]) == cl->context, "the first context is in slot 0");
  cl_program p = DPIA_LOAD_(&cache->program[0]);
  CHECK(p != NULL, "its program is cached");
  CHECK(run_twice(cl, cl->queue, 128) == 0, "twice again");
  CHECK(DPIA_LOAD_(&cache->program[0]) == p && DPIA_LOAD_(&cache->context[1]) == NULL,
        "the second launch reuses the program");
  Cl other;
  if (!cl_open(&other)) {
    failures++;
    return;
  }
  CHECK(run_twice(&other, other.queue, 64) == 0, "twice in a second context");
  CHECK(DPIA_LOAD_(&cache->context[1]) == other.context && DPIA_LOAD_(&cache->program[1]) != NULL,
        "the second context is in slot 1");
  /* a full cache still launches (a program per launch) */
  dpia_program_cache_ saved;
  memcpy(&saved, cache, sizeof saved);
  for (int i = 2; i < DPIA_CACHE_SLOTS; i++) DPIA_STORE_(&cache->context[i], (cl_context)&saved);
  Cl third;
  if (!cl_open(&third)) {
    failures++;
    return;
  }
  CHECK(run_twice(&third, third.queue, 64) == 0, "twice with a full cache");
  for (int i = 2; i < DPIA_CACHE_SLOTS; i++) DPIA_STORE_(&cache->context[i], (cl_context)NULL);
  cl_close(&third);
  clFinish(other.queue);
  dpia_twice_release();
  for (int i = 0; i < DPIA_CACHE_SLOTS; i++)
    CHECK(DPIA_LOAD_(&cache->context[i]) == NULL && DPIA_LOAD_(&cache->program[i]) == NULL, "slot %d released", i);
  cl_close(&other);
  CHECK(run_twice(cl, cl->queue, 64) == 0, "twice after release");
  CHECK(DPIA_LOAD_(&cache->context[0]) == cl->context, "cached again after release");
}

enum { THREADS = 8, ROUNDS = 10 };

typedef struct Worker {
  Cl *cl;
  int bad;
} Worker;

static void *worker(void *arg) {
  Worker *w = arg;
  cl_int err;
  cl_command_queue q = clCreateCommandQueue(w->cl->context, w->cl->device, 0, &err);
  if (err != CL_SUCCESS) {
    w->bad = 1;
    return NULL;
  }
  for (int r = 0; r < ROUNDS; r++) w->bad += run_twice(w->cl, q, 256 * (r + 1));
  clReleaseCommandQueue(q);
  return NULL;
}

static void test_threads(Cl *cl) {
  dpia_twice_release();
  pthread_t t[THREADS];
  Worker w[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (Worker){cl, 0};
    pthread_create(&t[i], NULL, worker, &w[i]);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    CHECK(w[i].bad == 0, "thread %d: %d bad launches", i, w[i].bad);
  }
  dpia_program_cache_ *cache = dpia_twice_cache_();
  CHECK(DPIA_LOAD_(&cache->context[0]) == cl->context && DPIA_LOAD_(&cache->program[0]) != NULL,
        "one program cached for the shared context");
  CHECK(DPIA_LOAD_(&cache->context[1]) == NULL, "and only one slot used");
}

/* a buffer of floats all equal to v */
static cl_mem filled(Cl *cl, size_t n, float v) {
  float *data = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) data[i] = v;
  cl_mem m = buffer(cl, n * sizeof(float), data);
  free(data);
  return m;
}

static int all_equal(Cl *cl, cl_mem m, size_t n, float v) {
  float *data = malloc(n * sizeof(float));
  read_back(cl, m, n * sizeof(float), data);
  int ok = 1;
  for (size_t i = 0; i < n; i++) ok &= data[i] == v;
  free(data);
  return ok;
}

static void test_buffers(Cl *cl) {
  enum { N = 256 };
  cl_mem xs = filled(cl, N, 1.0f), small_xs = filled(cl, N - 1, 1.0f);
  cl_mem out = filled(cl, N / 4, 7.0f), small_out = filled(cl, N / 4 - 1, 7.0f);
  cl_event ev = NULL;
  int rc = dpia_twice_enqueue(cl->queue, small_out, xs, N, 0, NULL, &ev);
  CHECK(rc == DPIA_ERROR_BUFFER_SIZE, "output one float short: %s", dpia_error_string(rc));
  /* the message names the parameter, the bytes it holds and those needed */
  CHECK(strcmp(dpia_last_error_message(),
               "twice: output buffer output holds 252 bytes (CL_MEM_SIZE), the kernel writes 256: 64 elements of 4 "
               "bytes") == 0,
        "output one float short: '%s'", dpia_last_error_message());
  CHECK(ev == NULL, "an event for a launch that failed its checks");
  rc = dpia_twice_enqueue(cl->queue, out, small_xs, N, 0, NULL, &ev);
  CHECK(rc == DPIA_ERROR_BUFFER_SIZE, "input one float short: %s", dpia_error_string(rc));
  CHECK(strcmp(dpia_last_error_message(),
               "twice: input buffer xs holds 1020 bytes (CL_MEM_SIZE), the kernel reads 1024: 256 elements of 4 "
               "bytes") == 0,
        "input one float short: '%s'", dpia_last_error_message());
  CHECK(ev == NULL, "an event for a launch that failed its checks");
  clFinish(cl->queue);
  CHECK(all_equal(cl, small_out, N / 4 - 1, 7.0f), "the too-small output was written");
  CHECK(all_equal(cl, out, N / 4, 7.0f), "the output was written though the input is too small");
  /* a smaller N fits: the check is against what this launch touches */
  rc = dpia_twice_launch(cl->queue, small_out, small_xs, N - 4);
  CHECK(rc == DPIA_SUCCESS, "N - 4 in the short buffers: %s", dpia_error_string(rc));
  rc = dpia_twice_launch(cl->queue, out, xs, N);
  CHECK(rc == DPIA_SUCCESS, "exact sizes: %s", dpia_error_string(rc));
  clFinish(cl->queue);
  CHECK(all_equal(cl, out, N / 4, 8.0f), "twice of ones");
  /* not a buffer */
  rc = dpia_twice_launch(cl->queue, NULL, xs, N);
  CHECK(rc == CL_INVALID_MEM_OBJECT, "a NULL output: %s", dpia_error_string(rc));
  CHECK(strncmp(dpia_error_string(DPIA_ERROR_BUFFER_SIZE), "DPIA_ERROR_BUFFER_SIZE", 22) == 0, "string");
  clReleaseMemObject(xs);
  clReleaseMemObject(small_xs);
  clReleaseMemObject(out);
  clReleaseMemObject(small_out);
}

/* stepDot's parameters step and dot are OpenCL C built-ins, step_2 and
 * dot_2 in its kernel: the launcher, its element counts and its messages
 * use the program's names */
static void test_names(Cl *cl) {
  enum { N = 64 };
  CHECK(dpia_stepDot_dot_elements(N) == N, "dpia_stepDot_dot_elements(%d) = %zu", N, dpia_stepDot_dot_elements(N));
  float step = 2.5f;
  cl_mem dot = filled(cl, N, 3.0f), small_dot = filled(cl, N - 1, 3.0f), out = filled(cl, N, 0.0f);
  int rc = dpia_stepDot_launch(cl->queue, out, step, dot, N);
  CHECK(rc == DPIA_SUCCESS, "stepDot: %s", dpia_error_string(rc));
  clFinish(cl->queue);
  CHECK(all_equal(cl, out, N, 7.5f), "stepDot: step * dot is not 7.5");
  rc = dpia_stepDot_launch(cl->queue, out, step, small_dot, N);
  CHECK(rc == DPIA_ERROR_BUFFER_SIZE, "dot one float short: %s", dpia_error_string(rc));
  CHECK(strcmp(dpia_last_error_message(),
               "stepDot: input buffer dot holds 252 bytes (CL_MEM_SIZE), the kernel reads 256: 64 elements of 4 "
               "bytes") == 0,
        "dot one float short: '%s'", dpia_last_error_message());
  rc = dpia_stepDot_launch(cl->queue, dot, step, dot, N);
  CHECK(rc == DPIA_ERROR_ALIAS && strstr(dpia_last_error_message(), "output output and input dot are the same buffer") != NULL,
        "dot as its own output: %s: '%s'", dpia_error_string(rc), dpia_last_error_message());
  clReleaseMemObject(dot);
  clReleaseMemObject(small_dot);
  clReleaseMemObject(out);
}

/* blur of xs (n floats) by the host: the sum of each element's neighbours, clamped */
static int wrong_blurs(const float *xs, const float *out, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++) {
    float want = xs[i > 0 ? i - 1 : 0] + 0.0f;
    want = xs[i] + want;
    want = xs[i + 1 < n ? i + 1 : n - 1] + want;
    bad += fabsf(out[i] - want) > 1e-5f * (1 + fabsf(want));
  }
  return bad;
}

static cl_mem sub_buffer(cl_mem parent, size_t offset, size_t bytes) {
  cl_buffer_region region = {offset, bytes};
  cl_int err;
  cl_mem m = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateSubBuffer at %zu: %s\n", offset, dpia_error_string(err));
    exit(1);
  }
  return m;
}

static void test_alias(Cl *cl) {
  enum { N = 4096 };
  static float img[2 * N], out[N], back[N];
  for (int i = 0; i < 2 * N; i++) img[i] = value(i);
  const size_t bytes = sizeof(float) * N;

  /* in place: refused, nothing enqueued, img untouched */
  cl_mem dimg = buffer(cl, bytes, img);
  cl_event ev = NULL;
  int rc = dpia_blur_enqueue(cl->queue, dimg, dimg, N, 0, NULL, &ev);
  const char *msg = dpia_last_error_message();
  CHECK(rc == DPIA_ERROR_ALIAS, "blur in place: %s", dpia_error_string(rc));
  CHECK(strcmp(msg, "blur: output output and input img are the same buffer: the kernel does not compute in place "
                    "(its buffers are restrict); pass another buffer for output") == 0,
        "blur in place: message '%s'", msg);
  CHECK(ev == NULL, "an event for a launch refused in place");
  clFinish(cl->queue);
  read_back(cl, dimg, bytes, back);
  CHECK(memcmp(back, img, bytes) == 0, "the refused in-place launch wrote img");
  CHECK(strncmp(dpia_error_string(DPIA_ERROR_ALIAS), "DPIA_ERROR_ALIAS: ", 18) == 0, "string %s",
        dpia_error_string(DPIA_ERROR_ALIAS));
  /* a launch that succeeds clears the message */
  cl_mem dout = buffer(cl, bytes, NULL);
  rc = dpia_blur_launch(cl->queue, dout, dimg, N);
  CHECK(rc == DPIA_SUCCESS && dpia_last_error_message()[0] == 0, "blur: %s '%s'", dpia_error_string(rc),
        dpia_last_error_message());
  read_back(cl, dout, bytes, out);
  CHECK(wrong_blurs(img, out, N) == 0, "blur: %d wrong elements", wrong_blurs(img, out, N));

  /* sub-buffers of one buffer of 2N floats (offsets multiples of N floats:
   * aligned on any device) */
  cl_mem whole = buffer(cl, 2 * bytes, img);
  cl_mem first = sub_buffer(whole, 0, bytes), second = sub_buffer(whole, bytes, bytes);
  cl_mem middle = sub_buffer(whole, bytes / 2, bytes);
  rc = dpia_blur_launch(cl->queue, middle, first, N);
  msg = dpia_last_error_message();
  CHECK(rc == DPIA_ERROR_ALIAS && strstr(msg, "blur: output output (bytes 8192 to 24576 of a buffer) overlaps input img "
                                              "(bytes 0 to 16384 of the same buffer)") == msg,
        "overlapping sub-buffers: %s '%s'", dpia_error_string(rc), msg);
  rc = dpia_blur_launch(cl->queue, first, whole, N);
  CHECK(rc == DPIA_ERROR_ALIAS && strstr(dpia_last_error_message(), "overlaps input img"),
        "a sub-buffer of the input as output: %s '%s'", dpia_error_string(rc), dpia_last_error_message());
  clFinish(cl->queue);
  static float whole_back[2 * N];
  read_back(cl, whole, 2 * bytes, whole_back);
  CHECK(memcmp(whole_back, img, 2 * bytes) == 0, "a refused launch wrote the buffer");
  /* what the kernel touches counts: from whole it reads (or writes) the
   * first N floats only, so its second half is free */
  rc = dpia_blur_launch(cl->queue, second, whole, N);
  CHECK(rc == DPIA_SUCCESS, "output in the half of the input's buffer the kernel does not read: %s '%s'",
        dpia_error_string(rc), dpia_last_error_message());
  read_back(cl, second, bytes, back);
  CHECK(wrong_blurs(img, back, N) == 0, "blur into the second half: %d wrong elements", wrong_blurs(img, back, N));
  rc = dpia_blur_launch(cl->queue, whole, second, N);
  CHECK(rc == DPIA_SUCCESS, "the input's half the kernel does not write: %s '%s'", dpia_error_string(rc),
        dpia_last_error_message());
  read_back(cl, first, bytes, out);
  CHECK(wrong_blurs(back, out, N) == 0, "blur into the first half: %d wrong elements", wrong_blurs(back, out, N));

  /* two outputs in one buffer */
  rc = dpia_pairUp_launch(cl->queue, dout, dout, 1.0f, 2);
  CHECK(rc == DPIA_ERROR_ALIAS && strstr(dpia_last_error_message(), "output output_1 and output output_2"),
        "pairUp into one buffer: %s '%s'", dpia_error_string(rc), dpia_last_error_message());

  /* two inputs in one buffer: the kernel only reads them */
  enum { S = 32 };
  static float sq[S * S], prod[S * S];
  for (int i = 0; i < S * S; i++) sq[i] = value(5 * i);
  cl_mem dsq = buffer(cl, sizeof sq, sq), dprod = buffer(cl, sizeof prod, NULL);
  rc = dpia_mmTiled_launch(cl->queue, dprod, dsq, dsq, S, S, S);
  CHECK(rc == DPIA_SUCCESS, "mmTiled of a square: %s '%s'", dpia_error_string(rc), dpia_last_error_message());
  read_back(cl, dprod, sizeof prod, prod);
  CHECK(wrong_products(sq, sq, prod, S, S, S) == 0, "mmTiled of a square: %d wrong elements",
        wrong_products(sq, sq, prod, S, S, S));

  cl_mem all[] = {dimg, dout, middle, first, second, whole, dsq, dprod};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clReleaseMemObject(all[i]);
}

/* the sums of each row of M floats (rowSums: 16 sums a row, each of M/16
 * elements doubled) */
static int run_row_sums(Cl *cl, int M) {
  const int N = 2;
  float *xs = calloc((size_t)N * M, sizeof(float)), out[2 * 16];
  for (int i = 0; i < N * M; i++) xs[i] = value(i % 4096); /* value() multiplies: keep i small (int overflow) */
  cl_mem dxs = buffer(cl, sizeof(float) * N * M, xs), dout = buffer(cl, sizeof out, NULL);
  int rc = dpia_rowSums_launch(cl->queue, dout, dxs, N, M);
  if (rc == DPIA_SUCCESS) {
    read_back(cl, dout, sizeof out, out);
    for (int r = 0; r < N; r++)
      for (int j = 0; j < 16; j++) {
        float want = 0;
        for (int e = 0; e < M / 16; e++) want += 2 * xs[r * M + j * (M / 16) + e];
        CHECK(fabsf(out[r * 16 + j] - want) <= 1e-4f * (1 + fabsf(want)), "rowSums M=%d [%d][%d]: %g, want %g", M, r,
              j, out[r * 16 + j], want);
      }
  }
  clReleaseMemObject(dxs);
  clReleaseMemObject(dout);
  free(xs);
  return rc;
}

static void test_devlimit(Cl *cl) {
  cl_ulong has = 0;
  clGetDeviceInfo(cl->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof has, &has, NULL);
  /* a row of 4 KiB, then one of twice the device's local memory */
  int small = 1024, large = (int)(has / sizeof(float)) * 2;
  large -= large % 16;
  int rc = run_row_sums(cl, small);
  CHECK(rc == DPIA_SUCCESS, "rowSums M=%d: %s '%s'", small, dpia_error_string(rc), dpia_last_error_message());
  rc = run_row_sums(cl, large);
  char needs[64];
  snprintf(needs, sizeof needs, "needs %llu bytes", (unsigned long long)large * sizeof(float));
  CHECK(rc == DPIA_ERROR_DEVICE_LIMIT && strstr(dpia_last_error_message(), "rowSums") &&
            strstr(dpia_last_error_message(), needs),
        "rowSums M=%d on a device of %llu bytes of local memory: %s '%s'", large, (unsigned long long)has,
        dpia_error_string(rc), dpia_last_error_message());
  rc = run_row_sums(cl, small * 2);
  CHECK(rc == DPIA_SUCCESS, "rowSums M=%d after a refusal: %s '%s'", small * 2, dpia_error_string(rc),
        dpia_last_error_message());
}

static void *log_of_other_thread(void *arg) {
  *(const char **)arg = dpia_last_build_log();
  return NULL;
}

static void test_build(Cl *cl) {
  dpia_program_cache_ *cache = dpia_twice_cache_();
  dpia_twice_release();
  CHECK(dpia_last_build_log()[0] == 0, "a build log before any failure");
  CHECK(run_twice(cl, cl->queue, 64) == 0, "twice");
  cl_kernel k = DPIA_LOAD_(&cache->kernel[0][0]);
  CHECK(k != NULL, "the kernel object is pooled after a launch");
  CHECK(run_twice(cl, cl->queue, 64) == 0 && DPIA_LOAD_(&cache->kernel[0][0]) == k && !DPIA_LOAD_(&cache->kernel[0][1]),
        "the next launch reuses it");

  /* a define that breaks the source: the compiler's messages */
  static const char broken[] = "-Dkernel=dpia_not_a_qualifier";
  dpia_twice_set_build_options(broken);
  int rc = run_twice(cl, cl->queue, 64);
  CHECK(rc != 0, "a launch whose build fails succeeded");
  const char *log = dpia_last_build_log();
  CHECK(strstr(log, "twice") && strstr(log, broken), "the log names the kernel and the options: %s", log);
  CHECK(strstr(log, "dpia_not_a_qualifier") != NULL, "the log holds the compiler's messages: %s", log);
  pthread_t t;
  const char *other = NULL;
  pthread_create(&t, NULL, log_of_other_thread, &other);
  pthread_join(t, NULL);
  CHECK(other && other[0] == 0, "another thread sees the log");
  float xs[4] = {1, 2, 3, 4};
  cl_mem dxs = buffer(cl, sizeof xs, xs), dout = buffer(cl, sizeof(float), NULL);
  int code = dpia_twice_launch(cl->queue, dout, dxs, 4);
  CHECK(code == CL_BUILD_PROGRAM_FAILURE || code == CL_INVALID_BUILD_OPTIONS, "code %s", dpia_error_string(code));

  /* an option the compiler refuses */
  static const char bad_std[] = "-DXX -cl-std=CL9.9";
  dpia_twice_set_build_options(bad_std);
  code = dpia_twice_launch(cl->queue, dout, dxs, 4);
  CHECK(code == CL_BUILD_PROGRAM_FAILURE || code == CL_INVALID_BUILD_OPTIONS, "-cl-std=CL9.9: %s",
        dpia_error_string(code));
  CHECK(strstr(dpia_last_build_log(), bad_std) != NULL, "the log names the options: %s", dpia_last_build_log());
  CHECK(DPIA_LOAD_(&cache->context[1]) == NULL, "a failed build is cached");

  /* valid options: a program of their own beside the first */
  static const char fast[] = "-cl-fast-relaxed-math";
  dpia_twice_set_build_options(fast);
  CHECK(run_twice(cl, cl->queue, 64) == 0, "twice with %s", fast);
  CHECK(DPIA_LOAD_(&cache->context[1]) == cl->context && DPIA_LOAD_(&cache->options[1]) == fast &&
            DPIA_LOAD_(&cache->program[1]) != DPIA_LOAD_(&cache->program[0]),
        "the options have their own slot");
  dpia_twice_set_build_options(NULL);
  CHECK(run_twice(cl, cl->queue, 64) == 0, "twice without options again");
  CHECK(DPIA_LOAD_(&cache->context[2]) == NULL, "without options: the first slot again");
  clFinish(cl->queue);
  dpia_twice_release();
  for (int i = 0; i < DPIA_CACHE_SLOTS; i++)
    CHECK(!DPIA_LOAD_(&cache->program[i]) && !DPIA_LOAD_(&cache->kernel[i][0]), "slot %d released", i);
  clReleaseMemObject(dxs);
  clReleaseMemObject(dout);
}

static void test_inplace(Cl *cl) {
  enum { N = 4096, M = 24, C = 40 };
  static float xs[N], ys[N], back[N];
  for (int i = 0; i < N; i++) xs[i] = value(i), ys[i] = value(3 * i + 1);
  cl_mem dxs = buffer(cl, sizeof xs, xs), dys = buffer(cl, sizeof ys, ys);
  int rc = dpia_axpyInPlace_launch(cl->queue, 2.0f, dxs, dys, N);
  CHECK(rc == DPIA_SUCCESS, "axpyInPlace: %s '%s'", dpia_error_string(rc), dpia_last_error_message());
  read_back(cl, dys, sizeof back, back);
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += fabsf(back[i] - (2.0f * xs[i] + ys[i])) > 1e-5f;
  CHECK(wrong == 0, "axpyInPlace: %d wrong elements", wrong);
  /* xs in the buffer updated: refused, nothing enqueued */
  cl_event ev = NULL;
  rc = dpia_axpyInPlace_enqueue(cl->queue, 2.0f, dys, dys, N, 0, NULL, &ev);
  const char *msg = dpia_last_error_message();
  CHECK(rc == DPIA_ERROR_ALIAS && strstr(msg, "axpyInPlace: output ys and input xs are the same buffer") == msg,
        "axpyInPlace with xs in ys's buffer: %s '%s'", dpia_error_string(rc), msg);
  CHECK(ev == NULL, "an event for a refused launch");
  clFinish(cl->queue);
  static float again[N];
  read_back(cl, dys, sizeof again, again);
  CHECK(memcmp(again, back, sizeof back) == 0, "the refused launch wrote ys");

  /* two inputs updated (updates ys, xs): each in its own buffer, both in
   * one refused */
  static float both_x[N], both_y[N];
  cl_mem bx = buffer(cl, sizeof xs, xs), by = buffer(cl, sizeof ys, ys);
  rc = dpia_bothInPlace_launch(cl->queue, 2.0f, bx, by, N);
  CHECK(rc == DPIA_SUCCESS, "bothInPlace: %s '%s'", dpia_error_string(rc), dpia_last_error_message());
  read_back(cl, bx, sizeof both_x, both_x);
  read_back(cl, by, sizeof both_y, both_y);
  wrong = 0;
  for (int i = 0; i < N; i++) wrong += both_x[i] != 2.0f * xs[i] || fabsf(both_y[i] - (xs[i] + ys[i])) > 1e-5f;
  CHECK(wrong == 0, "bothInPlace: %d wrong elements", wrong);
  rc = dpia_bothInPlace_launch(cl->queue, 2.0f, bx, bx, N);
  msg = dpia_last_error_message();
  CHECK(rc == DPIA_ERROR_ALIAS && strstr(msg, "xs") && strstr(msg, "ys"), "bothInPlace with xs and ys one buffer: %s '%s'",
        dpia_error_string(rc), msg);
  clReleaseMemObject(bx);
  clReleaseMemObject(by);

  /* a region: the border of m untouched */
  static float m[M * C], src[M * C], out[M * C];
  for (int i = 0; i < M * C; i++) m[i] = value(i), src[i] = value(5 * i + 2) + 100.0f;
  cl_mem dm = buffer(cl, sizeof m, m), dsrc = buffer(cl, sizeof src, src);
  rc = dpia_interiorFrom_launch(cl->queue, dm, dsrc, M, C);
  CHECK(rc == DPIA_SUCCESS, "interiorFrom: %s '%s'", dpia_error_string(rc), dpia_last_error_message());
  read_back(cl, dm, sizeof out, out);
  wrong = 0;
  for (int r = 0; r < M; r++)
    for (int c = 0; c < C; c++) {
      bool inside = r > 0 && r < M - 1 && c > 0 && c < C - 1;
      wrong += out[r * C + c] != (inside ? src : m)[r * C + c];
    }
  CHECK(wrong == 0, "interiorFrom: %d wrong elements", wrong);
  rc = dpia_interiorFrom_launch(cl->queue, dm, dm, M, C);
  CHECK(rc == DPIA_ERROR_ALIAS, "interiorFrom from its own buffer: %s", dpia_error_string(rc));
  clReleaseMemObject(dxs);
  clReleaseMemObject(dys);
  clReleaseMemObject(dm);
  clReleaseMemObject(dsrc);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: header_run kernels|errors|cache|threads|buffers|build|alias|inplace|names|devlimit\n");
    return 2;
  }
  Cl cl;
  if (!cl_open(&cl)) return 1;
  if (strcmp(argv[1], "kernels") == 0) test_kernels(&cl);
  else if (strcmp(argv[1], "errors") == 0) test_errors(&cl);
  else if (strcmp(argv[1], "cache") == 0) test_cache(&cl);
  else if (strcmp(argv[1], "threads") == 0) test_threads(&cl);
  else if (strcmp(argv[1], "buffers") == 0) test_buffers(&cl);
  else if (strcmp(argv[1], "build") == 0) test_build(&cl);
  else if (strcmp(argv[1], "alias") == 0) test_alias(&cl);
  else if (strcmp(argv[1], "inplace") == 0) test_inplace(&cl);
  else if (strcmp(argv[1], "names") == 0) test_names(&cl);
  else if (strcmp(argv[1], "devlimit") == 0) test_devlimit(&cl);
  else {
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
  }
  dpia_twice_release();
  dpia_blur_release();
  dpia_stepDot_release();
  dpia_axpyInPlace_release();
  dpia_interiorFrom_release();
  dpia_swap_release();
  dpia_vecscale_release();
  dpia_pairUp_release();
  dpia_mmTiled_release();
  dpia_mmVec_release();
  dpia_mmBlock_release();
  dpia_packB_release();
  dpia_mmBlockPacked_release();
  cl_close(&cl);
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("ok\n");
  return failures != 0;
}
