/* launch_bench.c: host overhead of a generated launcher.
 *
 *   build/bench/launch_bench [LAUNCHES]
 *
 * Launches scal (samples/scal.dpia, header generated at build time) of 1024
 * floats LAUNCHES times (default 20000) on the first OpenCL device (PoCL)
 * without waiting between launches, after one warm-up launch that builds
 * the program, and prints the mean host time per dpia_scal_launch call
 * (argument checks, program lookup, kernel object, arguments, enqueue) and
 * the time until the queue is drained.  Timing: CLOCK_MONOTONIC. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scal.h"

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
  int launches = argc > 1 ? atoi(argv[1]) : 20000;
  enum { N = 1024 };
  cl_platform_id platform;
  cl_device_id device;
  cl_uint n = 0;
  cl_int err;
  if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0 ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &n) != CL_SUCCESS || n == 0) {
    fprintf(stderr, "launch_bench: no OpenCL device\n");
    return 4;
  }
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  cl_mem xs = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
  int rc = dpia_scal_launch(q, out, 2.0f, xs, N);
  clFinish(q);
  if (rc != DPIA_SUCCESS) {
    fprintf(stderr, "launch_bench: %s\n", dpia_error_string(rc));
    return 1;
  }
  double t0 = now_us();
  for (int i = 0; i < launches && rc == DPIA_SUCCESS; i++) {
    rc = dpia_scal_launch(q, out, 2.0f, xs, N);
    if (i % 256 == 255) clFlush(q);
  }
  double t1 = now_us();
  clFinish(q);
  double t2 = now_us();
  if (rc != DPIA_SUCCESS) {
    fprintf(stderr, "launch_bench: %s\n", dpia_error_string(rc));
    return 1;
  }
  printf("launches: %d of scal N=%d\nhost time per launch call: %.2f us\nuntil drained, per launch: %.2f us\n",
         launches, N, (t1 - t0) / launches, (t2 - t0) / launches);
  clReleaseMemObject(xs);
  clReleaseMemObject(out);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
