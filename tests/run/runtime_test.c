/* runtime_test.c: tests of the OpenCL host side (verify/runtime.c) with
 * hand-written OpenCL kernels and hand-built ImpKernels, run on the first
 * OpenCL device (PoCL in CI).
 *
 *   runtime_test basic        vector add: upload, run, read back, compare;
 *                             timing; user launch sizes
 *   runtime_test local        a local-memory tree reduction, local size 64
 *   runtime_test detect       a wrong element and an unwritten (NaN-poisoned)
 *                             element are caught by the comparison
 *   runtime_test build-error  a build error returns the build log
 *   runtime_test types        float4, double, int, pair structs and scalar
 *                             arguments by value; a pair result as two outputs
 *   runtime_test errors       bad inputs, launch sizes, devices, interfaces
 *   runtime_test preconds     the check of a kernel's preconditions
 *   runtime_test end-to-end   a functional kernel through the reference
 *                             interpreter against a hand-written OpenCL kernel
 *   runtime_test placement    on a CPU device, where an input, a temporary
 *                             and an output start in their pages
 *                             (verify/placement.h), as the kernel sees them
 *
 * Without an OpenCL platform every mode that needs one FAILS (CI installs
 * PoCL, so a missing platform is a broken setup, not a reason to skip).
 * Each mode prints one line per failure and a summary; exit status 1 on
 * failure. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "verify/compare.h"
#include "verify/interp.h"
#include "verify/runtime.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

typedef struct Tester {
  int checks, failures;
  DpiaMem *mem;
  Arena arena; /* the whole mode's memory */
  Interner in;
  TypeCtx tc;
  Runtime rt;
  bool have_rt;
} Tester;

static void check(Tester *t, bool ok, const char *what, const char *detail) {
  t->checks++;
  if (ok) return;
  t->failures++;
  printf("FAIL %s\n", what);
  if (detail && *detail) printf("     %s\n", detail);
}

static bool open_runtime(Tester *t) {
  Buf err;
  buf_init(&err, &t->arena);
  RtStatus st = rt_open(&t->rt, &target_opencl, &t->arena, 0, 0, &err);
  if (st != RT_OK) {
    check(t, false, "open the first OpenCL platform's first device (PoCL)", err.data);
    return false;
  }
  t->have_rt = true;
  printf("  device: %s (platform %s)\n", t->rt.info.device_name, t->rt.info.platform_name);
  return true;
}

/* ---- building ImpKernels by hand ---- */

static Size nat(Tester *t, const char *name) { return size_var(&t->tc.sizes, intern_cstr(&t->in, name)); }
static Size num(Tester *t, int64_t v) { return size_const(&t->tc.sizes, v); }
static Size divide(Tester *t, Size a, int64_t b) {
  Size out;
  bool ok = size_div(&t->tc.sizes, a, num(t, b), &out);
  ASSERT(ok);
  return out;
}

static KParam buffer(Tester *t, const char *name, KParamRole role, DataType *elem, Size elements) {
  KParam p;
  memset(&p, 0, sizeof p);
  p.name = intern_cstr(&t->in, name);
  p.role = role;
  p.elem = elem;
  p.type = dt_array(&t->tc, elements, elem);
  p.elements = elements;
  p.fields = "";
  return p;
}

static KParam scalar(Tester *t, const char *name, DataType *type) {
  KParam p;
  memset(&p, 0, sizeof p);
  p.name = intern_cstr(&t->in, name);
  p.role = KP_SCALAR;
  p.type = type;
  p.fields = "";
  return p;
}

static KParam nat_param(Tester *t, const char *name) {
  KParam p;
  memset(&p, 0, sizeof p);
  p.name = intern_cstr(&t->in, name);
  p.role = KP_NAT;
  p.type = t->tc.t_int;
  p.fields = "";
  return p;
}

static ImpKernel *kernel(Tester *t, const char *name, int nparams, const KParam *params, Size global) {
  ImpKernel *k = NEW(&t->arena, ImpKernel);
  k->name = intern_cstr(&t->in, name);
  k->source_name = "runtime_test.c";
  k->nparams = nparams;
  k->params = arena_dup(&t->arena, params, sizeof(KParam) * (size_t)nparams);
  k->ndims = 1;
  k->global_size[0] = global;
  return k;
}

static NatValues nat1(Tester *t, const char *name, int64_t v) {
  const char **names = NEWARRAY(&t->arena, const char *, 1);
  int64_t *values = NEWARRAY(&t->arena, int64_t, 1);
  names[0] = name;
  values[0] = v;
  return (NatValues){1, names, values};
}

static double *random_values(Tester *t, Rng *r, size_t n) {
  double *v = NEWARRAY(&t->arena, double, n);
  for (size_t i = 0; i < n; i++) v[i] = rng_value(r);
  return v;
}

/* run; on failure report the message under `what` and return false */
static bool run(Tester *t, const char *what, const ImpKernel *k, const char *src, NatValues nats, int ninputs,
                const double *const *inputs, const size_t *counts, const RtLaunch *launch, RtResult *res) {
  Buf err;
  buf_init(&err, &t->arena);
  RtLaunch natural;
  rt_launch_init(&natural);
  RtStatus st = rt_run(&t->rt, &t->arena, k, src, &nats, ninputs, inputs, counts, launch ? launch : &natural, res, &err);
  check(t, st == RT_OK, what, err.data);
  return st == RT_OK;
}

static Comparison compare_to(Tester *t, const char *what, const RtResult *res, const double *ref, size_t n, double bound,
                             bool expect_ok) {
  Comparison c;
  memset(&c, 0, sizeof c);
  if (res->output_count != n) {
    check(t, false, what, "wrong number of results");
    return c;
  }
  compare_values(res->output, ref, n, bound, &c);
  Buf rep;
  buf_init(&rep, &t->arena);
  compare_report(&c, &rep);
  check(t, c.ok == expect_ok, what, rep.data);
  printf("  %-44s %s\n", what, rep.data);
  return c;
}

/* ---- vector add ---- */

static const char *const vadd_src =
    "kernel void vadd(global float *restrict output, const global float *restrict xs,\n"
    "                 const global float *restrict ys, int N) {\n"
    "  for (int i = get_global_id(0); i < N; i += get_global_size(0))\n"
    "    output[i] = xs[i] + ys[i];\n"
    "}\n";

static ImpKernel *vadd_kernel(Tester *t, const char *name) {
  Size n = nat(t, "N");
  KParam ps[] = {buffer(t, "output", KP_OUTPUT, t->tc.t_float, n), buffer(t, "xs", KP_INPUT, t->tc.t_float, n),
                 buffer(t, "ys", KP_INPUT, t->tc.t_float, n), nat_param(t, "N")};
  return kernel(t, name, 4, ps, n);
}

static void basic(Tester *t) {
  if (!open_runtime(t)) return;
  enum { N = 1000 };
  Rng r;
  rng_seed(&r, 1);
  double *xs = random_values(t, &r, N), *ys = random_values(t, &r, N), ref[N];
  for (int i = 0; i < N; i++) ref[i] = xs[i] + ys[i];
  ImpKernel *k = vadd_kernel(t, "vadd");
  const double *in[] = {xs, ys};
  size_t counts[] = {N, N};
  RtLaunch launch;
  rt_launch_init(&launch);
  launch.repeat = 5;
  RtResult res;
  if (run(t, "vadd runs", k, vadd_src, nat1(t, "N", N), 2, in, counts, &launch, &res)) {
    Comparison c = compare_to(t, "vadd matches the host sum", &res, ref, N, COMPARE_BOUND_FLOAT, true);
    check(t, c.rel_error < 1e-7, "vadd is accurate to float rounding", "");
    check(t, res.ndims == 1 && res.global_size[0] == N && !res.has_local, "natural NDRange: global N, no local size", "");
    check(t, res.noutputs == 1 && res.output_counts[0] == N && res.outputs[0] == res.output, "one output", "");
    check(t, res.repeat == 5 && res.min_ms > 0 && res.min_ms <= res.median_ms, "5 timed launches, min <= median", "");
    bool all_timed = true;
    for (int i = 0; i < res.repeat; i++) all_timed = all_timed && res.times_ms[i] >= res.min_ms;
    check(t, all_timed, "min is the minimum of the launch times", "");
    printf("  vadd: min %.4f ms, median %.4f ms\n", res.min_ms, res.median_ms);
  }

  /* user launch sizes: 64 work-items in groups of 16 loop over all N */
  rt_launch_init(&launch);
  launch.global_size[0] = 64;
  launch.local_size[0] = 16;
  if (run(t, "vadd with --global-size=64 --local-size=16", k, vadd_src, nat1(t, "N", N), 2, in, counts, &launch,
          &res)) {
    compare_to(t, "vadd with user launch sizes", &res, ref, N, COMPARE_BOUND_FLOAT, true);
    check(t, res.global_size[0] == 64 && res.local_size[0] == 16 && res.has_local, "user launch sizes used", "");
  }
}

/* ---- local memory ---- */

static const char *const lsum_src =
    "kernel void lsum(global float *restrict output, const global float *restrict xs, int N,\n"
    "                 local float *tmp) {\n"
    "  int l = get_local_id(0), g = get_group_id(0);\n"
    "  tmp[l] = xs[g * 64 + l];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int s = 32; s > 0; s >>= 1) {\n"
    "    if (l < s) tmp[l] += tmp[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) output[g] = tmp[0];\n"
    "}\n";

static void local(Tester *t) {
  if (!open_runtime(t)) return;
  enum { N = 64 * 37 };
  Size n = nat(t, "N");
  KParam ps[] = {buffer(t, "output", KP_OUTPUT, t->tc.t_float, divide(t, n, 64)),
                 buffer(t, "xs", KP_INPUT, t->tc.t_float, n), nat_param(t, "N"),
                 buffer(t, "tmp", KP_LOCAL, t->tc.t_float, num(t, 64))};
  ImpKernel *k = kernel(t, "lsum", 4, ps, n);
  k->has_local = true;
  k->local_size[0] = num(t, 64);
  k->nprecond = 1;
  k->preconds = (const Precond[]){{PRECOND_DIVIDES, n, num(t, 64), {0}}};
  Rng r;
  rng_seed(&r, 2);
  double *xs = random_values(t, &r, N), ref[N / 64];
  for (int g = 0; g < N / 64; g++) {
    ref[g] = 0;
    for (int l = 0; l < 64; l++) ref[g] += xs[g * 64 + l];
  }
  NatValues nats = nat1(t, "N", N);
  Buf err;
  buf_init(&err, &t->arena);
  check(t, rt_check_preconditions(k, &nats, &err), "preconditions hold for N = 64*37", err.data);
  const double *in[] = {xs};
  size_t counts[] = {N};
  RtResult res;
  if (run(t, "local-memory reduction runs", k, lsum_src, nats, 1, in, counts, NULL, &res)) {
    compare_to(t, "local-memory reduction matches", &res, ref, N / 64, COMPARE_BOUND_FLOAT, true);
    check(t, res.has_local && res.local_size[0] == 64 && res.global_size[0] == N, "natural local size 64", "");
  }
}

/* ---- the comparison catches wrong and unwritten elements ---- */

static void detect(Tester *t) {
  if (!open_runtime(t)) return;
  enum { N = 256 };
  Rng r;
  rng_seed(&r, 3);
  double *xs = random_values(t, &r, N), *ys = random_values(t, &r, N), ref[N];
  for (int i = 0; i < N; i++) ref[i] = xs[i] + ys[i];
  const double *in[] = {xs, ys};
  size_t counts[] = {N, N};
  RtResult res;

  const char *bug_src = "kernel void vadd_bug(global float *restrict output, const global float *restrict xs,\n"
                        "                     const global float *restrict ys, int N) {\n"
                        "  int i = get_global_id(0);\n"
                        "  if (i < N) output[i] = i == 17 ? xs[i] - ys[i] : xs[i] + ys[i];\n"
                        "}\n";
  if (run(t, "buggy kernel runs", vadd_kernel(t, "vadd_bug"), bug_src, nat1(t, "N", N), 2, in, counts, NULL, &res)) {
    Comparison c = compare_to(t, "a wrong element fails the comparison", &res, ref, N, COMPARE_BOUND_FLOAT, false);
    check(t, c.worst == 17 && c.nan_count == 0, "the wrong element is reported", "");
  }

  const char *skip_src = "kernel void vadd_skip(global float *restrict output, const global float *restrict xs,\n"
                         "                      const global float *restrict ys, int N) {\n"
                         "  int i = get_global_id(0);\n"
                         "  if (i < N - 1) output[i] = xs[i] + ys[i];\n"
                         "}\n";
  if (run(t, "kernel missing an element runs", vadd_kernel(t, "vadd_skip"), skip_src, nat1(t, "N", N), 2, in, counts,
          NULL, &res)) {
    check(t, isnan(res.output[N - 1]), "the unwritten element reads back as NaN (poisoned)", "");
    Comparison c = compare_to(t, "an unwritten element fails the comparison", &res, ref, N, COMPARE_BOUND_FLOAT, false);
    check(t, c.worst == N - 1 && c.nan_count == 1, "the unwritten element is reported", "");
  }

  /* int outputs are poisoned with INT32_MIN, read back as NaN */
  const char *int_src = "kernel void iskip(global int *restrict output, int N) {\n"
                        "  int i = get_global_id(0);\n"
                        "  if (i != 3 && i < N) output[i] = i;\n"
                        "}\n";
  Size n = nat(t, "N");
  KParam ps[] = {buffer(t, "output", KP_OUTPUT, t->tc.t_int, n), nat_param(t, "N")};
  if (run(t, "int kernel missing an element runs", kernel(t, "iskip", 2, ps, n), int_src, nat1(t, "N", 8), 0, NULL,
          NULL, NULL, &res)) {
    double iref[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    Comparison c = compare_to(t, "an unwritten int element fails", &res, iref, 8, COMPARE_BOUND_DOUBLE, false);
    check(t, c.worst == 3 && c.nan_count == 1, "the unwritten int element is reported", "");
  }
}

/* ---- build errors ---- */

static void build_error(Tester *t) {
  if (!open_runtime(t)) return;
  const char *bad = "kernel void vadd(global float *restrict output, const global float *restrict xs,\n"
                    "                 const global float *restrict ys, int N) {\n"
                    "  output[get_global_id(0)] = xs[get_global_id(0)] + undeclared_thing;\n"
                    "}\n";
  double xs[4] = {1, 2, 3, 4};
  const double *in[] = {xs, xs};
  size_t counts[] = {4, 4};
  RtLaunch launch;
  rt_launch_init(&launch);
  RtResult res;
  Buf err;
  buf_init(&err, &t->arena);
  NatValues nats = nat1(t, "N", 4);
  RtStatus st = rt_run(&t->rt, &t->arena, vadd_kernel(t, "vadd"), bad, &nats, 2, in, counts, &launch, &res, &err);
  check(t, st == RT_BUILD_FAILED, "a build error is RT_BUILD_FAILED", err.data);
  check(t, strstr(err.data, "building the OpenCL program of kernel vadd failed") != NULL, "the message names the kernel",
        err.data);
  check(t, strstr(err.data, "undeclared_thing") != NULL, "the build log is returned", err.data);

  buf_clear(&err);
  st = rt_run(&t->rt, &t->arena, vadd_kernel(t, "no_such_kernel"), vadd_src, &nats, 2, in, counts, &launch, &res, &err);
  check(t, st == RT_BUILD_FAILED && strstr(err.data, "no kernel no_such_kernel"), "a missing kernel name is reported",
        err.data);
}

/* ---- data types ---- */

static void types(Tester *t) {
  if (!open_runtime(t)) return;
  check(t, t->rt.info.has_fp64, "the device supports double (PoCL does)", "");
  const char *src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                    "typedef struct { float x1; int x2; } pair_fi;\n"
                    "typedef struct { double x1; float4 x2; } pair_dv;\n"
                    "kernel void mixed(global pair_fi *restrict output, const global float4 *restrict xs,\n"
                    "                  float alpha, const global double *restrict ds, pair_fi shift,\n"
                    "                  const global pair_dv *restrict ps, int N) {\n"
                    "  int i = get_global_id(0);\n"
                    "  if (i < N) {\n"
                    "    output[i].x1 = alpha * xs[i].y + (float)ds[i] + shift.x1 + (float)ps[i].x1 * ps[i].x2.w;\n"
                    "    output[i].x2 = i - shift.x2;\n"
                    "  }\n"
                    "}\n";
  TypeCtx *tc = &t->tc;
  DataType *f4 = dt_scalar(tc, SC_FLOAT, 4);
  DataType *fi = dt_pair(tc, tc->t_float, tc->t_int), *dv = dt_pair(tc, tc->t_double, f4);
  Size n = nat(t, "N");
  KParam ps[] = {buffer(t, "output", KP_OUTPUT, fi, n),   buffer(t, "xs", KP_INPUT, f4, n),
                 scalar(t, "alpha", tc->t_float),         buffer(t, "ds", KP_INPUT, tc->t_double, n),
                 scalar(t, "shift", fi),                  buffer(t, "ps", KP_INPUT, dv, n),
                 nat_param(t, "N")};
  ImpKernel *k = kernel(t, "mixed", 7, ps, n);
  enum { N = 100 };
  Rng r;
  rng_seed(&r, 4);
  double *xs = random_values(t, &r, 4 * N), *ds = random_values(t, &r, N), *pv = random_values(t, &r, 5 * N);
  double alpha[1] = {1.5}, shift[2] = {0.25, 3};
  double ref[2 * N];
  for (int i = 0; i < N; i++) {
    ref[2 * i] = alpha[0] * xs[4 * i + 1] + ds[i] + shift[0] + pv[5 * i] * pv[5 * i + 4];
    ref[2 * i + 1] = i - 3;
  }
  /* inputs are the functional kernel's data parameters, in order */
  const double *in[] = {xs, alpha, ds, shift, pv};
  size_t counts[] = {4 * N, 1, N, 2, 5 * N};
  RtResult res;
  if (run(t, "float4, double, pair structs, scalars by value", k, src, nat1(t, "N", N), 5, in, counts, NULL, &res))
    compare_to(t, "mixed types match", &res, ref, 2 * N, COMPARE_BOUND_FLOAT, true);

  /* inputs as one stream: the same values split differently still work */
  double *first = NEWARRAY(&t->arena, double, 4 * N + 1), *rest = NEWARRAY(&t->arena, double, N + 2 + 5 * N);
  memcpy(first, xs, sizeof(double) * 4 * N);
  first[4 * N] = alpha[0];
  memcpy(rest, ds, sizeof(double) * N);
  memcpy(rest + N, shift, sizeof shift);
  memcpy(rest + N + 2, pv, sizeof(double) * 5 * N);
  const double *in2[] = {first, rest};
  size_t counts2[] = {4 * N + 1, N + 2 + 5 * N};
  if (run(t, "inputs consumed as one stream", k, src, nat1(t, "N", N), 2, in2, counts2, NULL, &res))
    compare_to(t, "stream inputs match", &res, ref, 2 * N, COMPARE_BOUND_FLOAT, true);

  /* a top-level pair of arrays: two output buffers, first then second */
  const char *pair_src = "kernel void two(global float *restrict output_1, global int *restrict output_2,\n"
                         "                const global float *restrict xs, int N) {\n"
                         "  int i = get_global_id(0);\n"
                         "  if (i < N) { output_1[i] = 2.0f * xs[i]; output_2[i] = -i; }\n"
                         "}\n";
  KParam ps2[] = {buffer(t, "output_1", KP_OUTPUT, tc->t_float, n), buffer(t, "output_2", KP_OUTPUT, tc->t_int, n),
                  buffer(t, "xs", KP_INPUT, tc->t_float, n), nat_param(t, "N")};
  ps2[0].fields = "1";
  ps2[1].fields = "2";
  double *xs2 = random_values(t, &r, N), ref2[2 * N];
  for (int i = 0; i < N; i++) {
    ref2[i] = 2 * xs2[i];
    ref2[N + i] = -i;
  }
  const double *in3[] = {xs2};
  size_t counts3[] = {N};
  if (run(t, "pair result in two buffers", kernel(t, "two", 4, ps2, n), pair_src, nat1(t, "N", N), 1, in3, counts3,
          NULL, &res)) {
    compare_to(t, "pair result matches", &res, ref2, 2 * N, COMPARE_BOUND_FLOAT, true);
    check(t, res.noutputs == 2 && res.output_counts[0] == N && res.output_counts[1] == N &&
                 res.outputs[1] == res.output + N,
          "two outputs, concatenated in order", "");
  }
}

/* ---- errors ---- */

static void errors(Tester *t) {
  Buf err;
  buf_init(&err, &t->arena);
  Runtime other;
  RtStatus st = rt_open(&other, &target_opencl, &t->arena, 99, 0, &err);
  check(t, st == RT_UNAVAILABLE && strstr(err.data, "platform 99 does not exist"), "a bad platform index", err.data);
  buf_clear(&err);
  st = rt_open(&other, &target_opencl, &t->arena, 0, 99, &err);
  check(t, st == RT_UNAVAILABLE && strstr(err.data, "device 99 does not exist"), "a bad device index", err.data);
  Buf list;
  buf_init(&list, &t->arena);
  buf_clear(&err);
  st = rt_list_devices(&target_opencl, &t->arena, &list, &err);
  check(t, st == RT_OK && strstr(list.data, "Platform #0: ") && strstr(list.data, "Device #0: "), "device list",
        st == RT_OK ? list.data : err.data);
  if (!open_runtime(t)) return;

  enum { N = 64 };
  double xs[N];
  for (int i = 0; i < N; i++) xs[i] = i + 1;
  const double *in[] = {xs, xs};
  size_t counts[] = {N, N};
  RtLaunch launch;
  rt_launch_init(&launch);
  RtResult res;
  NatValues nats = nat1(t, "N", N);
  ImpKernel *k = vadd_kernel(t, "vadd");

  buf_clear(&err);
  size_t short_counts[] = {N, N - 1};
  st = rt_run(&t->rt, &t->arena, k, vadd_src, &nats, 2, in, short_counts, &launch, &res, &err);
  check(t, st == RT_BAD_ARGS && strstr(err.data, "takes 128 input values (in the host layout), 127 given"),
        "too few input values", err.data);

  buf_clear(&err);
  launch.local_size[0] = 48;
  st = rt_run(&t->rt, &t->arena, k, vadd_src, &nats, 2, in, counts, &launch, &res, &err);
  check(t, st == RT_BAD_ARGS && strstr(err.data, "not a multiple of the local size 48"), "global not a multiple of local",
        err.data);
  rt_launch_init(&launch);

  buf_clear(&err);
  NatValues none = {0, NULL, NULL};
  st = rt_run(&t->rt, &t->arena, k, vadd_src, &none, 2, in, counts, &launch, &res, &err);
  check(t, st == RT_BAD_ARGS && strstr(err.data, "no value for the nat parameter N"), "missing nat value", err.data);

  /* the interface lists fewer parameters than the kernel takes */
  buf_clear(&err);
  ImpKernel *short_k = vadd_kernel(t, "vadd");
  short_k->nparams = 3;
  st = rt_run(&t->rt, &t->arena, short_k, vadd_src, &nats, 2, in, counts, &launch, &res, &err);
  check(t, st == RT_BAD_ARGS && strstr(err.data, "takes 4 arguments, but its interface lists 3"),
        "interface/kernel argument mismatch", err.data);

  /* a local size beyond the device's limit is refused before the launch,
   * saying what the launch asks and what the device takes (E0007) */
  buf_clear(&err);
  NatValues big = nat1(t, "N", 1 << 20);
  double *bx = NEWARRAY(&t->arena, double, 1 << 20);
  for (int i = 0; i < (1 << 20); i++) bx[i] = 1;
  const double *bin[] = {bx, bx};
  size_t bcounts[] = {1 << 20, 1 << 20};
  launch.local_size[0] = 1 << 20;
  st = rt_run(&t->rt, &t->arena, k, vadd_src, &big, 2, bin, bcounts, &launch, &res, &err);
  check(t,
        st == RT_DEVICE_LIMIT && strstr(err.data, "launched with work-groups of 1048576 work-items") &&
            strstr(err.data, "(CL_KERNEL_WORK_GROUP_SIZE)"),
        "an impossible local size", err.data);
  rt_launch_init(&launch);

  /* the runtime still works after all these failures */
  if (run(t, "vadd after failures", k, vadd_src, nats, 2, in, counts, &launch, &res)) {
    double ref[N];
    for (int i = 0; i < N; i++) ref[i] = 2 * xs[i];
    compare_to(t, "vadd after failures matches", &res, ref, N, COMPARE_BOUND_FLOAT, true);
  }
}

/* ---- preconditions ---- */

static void preconds(Tester *t) {
  /* the evaluator and the printer themselves: tests/unit/test_precond.c */
  NatValues nats = {3, (const char *const[]){"N", "M", "K"}, (const int64_t[]){524288, 100, 7}};
  Buf err;
  buf_init(&err, &t->arena);
  ImpKernel k;
  memset(&k, 0, sizeof k);
  KParam ps[] = {nat_param(t, "N"), nat_param(t, "M")};
  k.nparams = 2;
  k.params = ps;
  k.nprecond = 3;
  k.preconds = (const Precond[]){{PRECOND_DIVIDES, nat(t, "N"), num(t, 262144), {0}},
                                 {PRECOND_DIVIDES, nat(t, "M"), num(t, 64), {0}},
                                 {PRECOND_AT_LEAST, nat(t, "M"), num(t, 1), {0}}};
  bool ok = rt_check_preconditions(&k, &nats, &err);
  check(t, !ok && strcmp(err.data, "precondition M % 64 == 0 does not hold for N = 524288, M = 100\n") == 0,
        "violated precondition reported with the nat values", err.data);
  NatValues fine = {2, (const char *const[]){"N", "M"}, (const int64_t[]){262144, 128}};
  buf_clear(&err);
  check(t, rt_check_preconditions(&k, &fine, &err) && err.len == 0, "preconditions that hold", err.data);
  /* one that no value decides: a divisor of 0 */
  NatValues zero = {2, (const char *const[]){"N", "M"}, (const int64_t[]){0, 0}};
  k.nprecond = 1;
  k.preconds = (const Precond[]){{PRECOND_DIVIDES, num(t, 1024), nat(t, "M"), {0}}};
  buf_clear(&err);
  ok = rt_check_preconditions(&k, &zero, &err);
  check(t,
        !ok &&
            strcmp(err.data, "precondition 1024 % M == 0 cannot be evaluated (a divisor is 0) for N = 0, M = 0\n") == 0,
        "an unevaluable precondition reported", err.data);
}

/* ---- the interpreter against a hand-written OpenCL kernel ---- */

static void end_to_end(Tester *t) {
  if (!open_runtime(t)) return;
  const char *program = "kernel stencil (N: nat) (w: float) (xs: [N]float) =\n"
                        "  xs |> padClamp 1 1 |> slide 3 1\n"
                        "     |> mapGlobal (\\nbh -> w * reduceSeq (\\x s -> x + s) 0.0 nbh)\n";
  const char *opencl = "kernel void stencil(global float *restrict output, float w,\n"
                       "                    const global float *restrict xs, int N) {\n"
                       "  for (int i = get_global_id(0); i < N; i += get_global_size(0)) {\n"
                       "    float acc = 0.0f;\n"
                       "    for (int j = 0; j < 3; j += 1) acc = xs[clamp(i + j - 1, 0, N - 1)] + acc;\n"
                       "    output[i] = w * acc;\n"
                       "  }\n"
                       "}\n";
  Diag diag;
  diag_init(&diag, &t->arena);
  Source src;
  source_init(&src, &t->arena, "stencil.dpia", program, strlen(program));
  Program *p = parse_program(&t->arena, &t->in, &diag, &src);
  CheckedProgram *cp = diag.nerrors ? NULL : check_program(&t->arena, &t->in, &diag, &t->tc, p);
  DefInfo *def = cp ? cp->defs[0] : NULL;
  Phrase *body = def && def->ok ? normalize_def(&t->arena, &t->tc, &diag, def) : NULL;
  if (body && !strategy_check_kernel(&t->arena, &diag, def, body)) body = NULL;
  if (!body) {
    Buf d;
    buf_init(&d, &t->arena);
    diag_render_text(&diag, &d);
    check(t, false, "the functional stencil compiles", d.data);
    return;
  }
  enum { N = 4096 };
  NatValues nats = nat1(t, "N", N);
  Rng r;
  rng_seed(&r, 5);
  double **in;
  size_t *counts;
  Buf err;
  buf_init(&err, &t->arena);
  bool ok = interp_random_inputs(&t->arena, def, &nats, &r, &in, &counts, &err);
  double *ref = NULL;
  size_t nref = 0;
  ok = ok && interp_run(&t->arena, def, body, &nats, (const double *const *)in, counts, &ref, &nref, &err);
  check(t, ok, "the interpreter runs the stencil", err.data);
  if (!ok) return;
  const Lay *result = interp_result_layout(&t->arena, def, &nats, &err);

  Size n = nat(t, "N");
  KParam ps[] = {buffer(t, "output", KP_OUTPUT, t->tc.t_float, n), scalar(t, "w", t->tc.t_float),
                 buffer(t, "xs", KP_INPUT, t->tc.t_float, n), nat_param(t, "N")};
  ImpKernel *k = kernel(t, "stencil", 4, ps, n);
  RtResult res;
  if (run(t, "the OpenCL stencil runs", k, opencl, nats, def->nparams, (const double *const *)in, counts, NULL, &res)) {
    compare_to(t, "OpenCL stencil matches the interpreter", &res, ref, nref, compare_bound(result), true);
    check(t, compare_bound(result) == COMPARE_BOUND_FLOAT, "float results use the float bound", "");
  }
  /* and a deliberately wrong boundary is caught */
  const char *wrong = "kernel void stencil(global float *restrict output, float w,\n"
                      "                    const global float *restrict xs, int N) {\n"
                      "  int i = get_global_id(0);\n"
                      "  float acc = xs[i] + (i > 0 ? xs[i - 1] : 0.0f) + (i < N - 1 ? xs[i + 1] : 0.0f);\n"
                      "  output[i] = w * acc;\n"
                      "}\n";
  if (run(t, "the wrong OpenCL stencil runs", k, wrong, nats, def->nparams, (const double *const *)in, counts, NULL,
          &res)) {
    Comparison c = compare_to(t, "a wrong boundary fails the comparison", &res, ref, nref, compare_bound(result), false);
    check(t, c.worst == 0 || c.worst == N - 1, "the wrong boundary element is reported", "");
  }
}

/* ---- placement of buffers in their pages (verify/placement.h) ---- */

/* each buffer's offset in its 4 KiB page, as the kernel sees its address:
 * on a CPU device the device's addresses are the host's */
static const char *const where_src =
    "kernel void where(global int *restrict output, const global float *restrict xs,\n"
    "                  global float *restrict tmp, int N) {\n"
    "  if (get_global_id(0) != 0) return;\n"
    "  tmp[0] = xs[0];\n"
    "  output[0] = (int)((ulong)xs % 4096);\n"
    "  output[1] = (int)((ulong)tmp % 4096);\n"
    "  output[2] = (int)((ulong)output % 4096);\n"
    "}\n";

static bool first_device_is_cpu(void) {
  cl_platform_id p;
  cl_device_id d;
  cl_device_type type = 0;
  if (clGetPlatformIDs(1, &p, NULL) != CL_SUCCESS || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL) != CL_SUCCESS)
    return false;
  return clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS && (type & CL_DEVICE_TYPE_CPU);
}

static void placement(Tester *t) {
  if (!open_runtime(t)) return;
  Size three = num(t, 3);
  KParam ps[] = {buffer(t, "output", KP_OUTPUT, t->tc.t_int, three), buffer(t, "xs", KP_INPUT, t->tc.t_float, three),
                 buffer(t, "tmp", KP_TEMP, t->tc.t_float, three), nat_param(t, "N")};
  ImpKernel *k = kernel(t, "where", 4, ps, num(t, 1));
  double xs[3] = {1, 2, 3};
  const double *in[] = {xs};
  size_t counts[] = {3};
  RtResult res;
  /* buffers this small come from the heap, 128-byte aligned where
   * clCreateBuffer takes them (PoCL): all three at their offsets by chance
   * is not what a run without the placement gives */
  for (int round = 0; round < 3; round++) {
    if (!run(t, "where runs", k, where_src, nat1(t, "N", 3), 1, in, counts, NULL, &res)) return;
    if (!first_device_is_cpu()) {
      printf("  not a CPU device: clCreateBuffer places the buffers, nothing to check\n");
      return;
    }
    char got[96];
    snprintf(got, sizeof got, "input at %g, temporary at %g, output at %g in their pages", res.output[0], res.output[1],
             res.output[2]);
    printf("  round %d: %s\n", round, got);
    check(t,
          res.output[0] == (double)place_offset((BufferPlace){BUF_INPUT, 0}) &&
              res.output[1] == (double)place_offset((BufferPlace){BUF_TEMP, 0}) &&
              res.output[2] == (double)place_offset((BufferPlace){BUF_OUTPUT, 0}),
          "each buffer starts at its use's offset in its page (0, 128, 256)", got);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: runtime_test basic|local|detect|build-error|types|errors|preconds|end-to-end|placement\n");
    return 2;
  }
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    printf("FAIL out of memory\n");
    return 1;
  }
  Tester t;
  memset(&t, 0, sizeof t);
  t.mem = &mem;
  arena_init(&t.arena, &mem);
  intern_init(&t.in, &t.arena);
  type_ctx_init(&t.tc, &t.arena);
  static const struct {
    const char *name;
    void (*run)(Tester *);
  } modes[] = {
      {"basic", basic},   {"local", local},   {"detect", detect},     {"build-error", build_error},
      {"types", types},   {"errors", errors}, {"preconds", preconds}, {"end-to-end", end_to_end},
      {"placement", placement},
  };
  bool found = false;
  for (size_t i = 0; i < DPIA_COUNTOF(modes); i++) {
    if (strcmp(argv[1], modes[i].name) != 0) continue;
    found = true;
    modes[i].run(&t);
  }
  if (!found) {
    fprintf(stderr, "runtime_test: unknown mode %s\n", argv[1]);
    return 2;
  }
  if (t.have_rt) rt_close(&t.rt);
  arena_free(&t.arena);
  printf("runtime_test %s: %d checks, %d failed\n", argv[1], t.checks, t.failures);
  return t.failures ? 1 : 0;
}
