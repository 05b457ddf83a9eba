/* blas_bench.c: the kernels dpia generates from the samples (samples/NAME.dpia) against
 * hand-written OpenCL (bench/kernels/blas.cl), CLBlast on the same OpenCL
 * device, OpenBLAS on the host and a bandwidth roof (a plain C loop with
 * OpenMP over all cores doing the same reads and writes), for scal, asum,
 * dot and gemv at two sizes each, plus matrix multiply at 1024^3, 2048^3
 * and 4096^3 (against CLBlast SGEMM and OpenBLAS) and the stencils; and
 * the peers' benchmark set (peer_bench.c: N-body, MD, convolution,
 * GESUMMV, ATAX, NN, K-means, MRI-Q against the suites' hand-written
 * kernels).  A benchmark: it prints
 * figures.  bench/run.sh runs it and writes BENCHMARKS.md.  This file
 * holds the operations (inputs, implementations, running one once, the
 * roof loops) and main; bench_timing.c the timing and its statistics,
 * bench_report.c the tables and the chart's data.
 *
 *   build/bench/blas_bench [--root DIR] [--reps R] [--quick] [--check] [--cold]
 *                          [--only OP,...] [--md FILE] [--dat FILE] [--impls WORD,...] [--cpu-time]
 *
 * --only runs the operations named (scal, ..., gemm, nbody, ...; peer: the
 * whole peer set).  --check only checks every implementation once
 * against its reference, at small sizes, and exits 1 if one differs: the
 * meson test bench-peer-check runs --check --only peer.
 * --impls WORD,... times only the implementations whose name holds one of
 * the words (e.g. --only asum --impls asumVec16Groups,roof,OpenBLAS);
 * --cpu-time times in the process's CPU time, not the wall clock (the
 * load of other work on a shared machine moves it far less).
 * --md writes the tables in Markdown; --dat the chart's data for gnuplot
 * (GB/s; gemm's GFLOP/s in FILE.gemm; the peer set's ratios in
 * FILE.peer).  The targets are ratios round by round with a 95% interval
 * (paired_ratio).
 *
 * Every implementation is first run once and its result compared with a
 * host reference computed in double precision; one that differs is
 * reported and not timed.  Then the implementations of one operation are
 * timed in R rounds (default 15) after 2 warm-up rounds, each round running
 * each implementation once in turn, so that the load of a shared machine
 * spreads evenly over them; the figure is the median of the R times.  The
 * worker threads of OpenMP and OpenBLAS must not spin after a call, or they
 * slow down whatever runs next: bench/run.sh sets OMP_WAIT_POLICY=passive
 * and OPENBLAS_THREAD_TIMEOUT=4.  Times are
 * wall clock around enqueue ... clFinish (a launch-bound operation's
 * around a batch of launches and one clFinish, over the launches:
 * Op.batch), plus, for the reductions, reading
 * the partial sums back and adding them up on the host (CLBlast's events
 * may cover only one of its kernels).  GB/s counts the bytes the operation
 * must move: scal 8N, asum 4N, dot 8N, gemv 4(MN + N + 2M), stencils 8N.
 *
 * dpia kernels are translated in process through libdpia (the --emit=json
 * metadata: parameters by role, element counts, NDRange) and launched
 * exactly as the metadata says. */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef HAVE_CLBLAST
#include <clblast_c.h>
#endif
#ifdef HAVE_OPENBLAS
#include <cblas.h>
#endif

#include "dpia.h"

#ifndef DPIA_SOURCE_ROOT
#define DPIA_SOURCE_ROOT "."
#endif

#include "bench_core.h"

/* ---- utilities ---- */

_Noreturn void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "blas_bench: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory (%zu bytes)", n);
  return p;
}

float *falloc(size_t n) {
  float *p = aligned_alloc(64, ((n * sizeof(float) + 63) / 64) * 64);
  if (!p) die("out of memory (%zu floats)", n);
  return p;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = xmalloc((size_t)n + 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
  buf[n] = 0;
  fclose(f);
  return buf;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
float rnd(float lo, float hi) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  uint64_t r = rng_state * 2685821657736338717ull;
  return lo + (hi - lo) * (float)((double)(r >> 40) / (double)(1ull << 24));
}

void fill(float *p, size_t n, float lo, float hi) {
  for (size_t i = 0; i < n; i++) p[i] = rnd(lo, hi);
}

/* ---- OpenCL ---- */

static cl_context ctx;
static cl_command_queue queue;
/* the queue of Op.batch's timed runs (run_batch): profiling enabled, for
 * the kernel's own time; every other run uses `queue` */
static cl_command_queue prof_queue;
static cl_device_id device;
static bool place_buffers; /* a CPU device: buffer() places the buffers */
static char device_name[256], platform_version[256];

static void cl_setup(void) {
  cl_platform_id platform;
  cl_uint n;
  CL_CHECK(clGetPlatformIDs(1, &platform, &n));
  CL_CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &n));
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name, device_name, NULL);
  clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof platform_version, platform_version, NULL);
  cl_device_type type = 0;
  CL_CHECK(clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL));
  place_buffers = (type & CL_DEVICE_TYPE_CPU) != 0;
  cl_int err;
  ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS) die("clCreateContext: %d", (int)err);
  queue = clCreateCommandQueue(ctx, device, 0, &err);
  if (err != CL_SUCCESS) die("clCreateCommandQueue: %d", (int)err);
  prof_queue = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) die("clCreateCommandQueue(profiling): %d", (int)err);
}

/* Where a buffer starts in its 4 KiB page, on a CPU device (whose buffers
 * are host memory).  A load whose address agrees in its low 12 bits with a
 * store still in flight waits for that store (4K aliasing: the core takes
 * the load to depend on it).  clCreateBuffer's placement depends on what
 * the process allocated before (PoCL takes a buffer from malloc, aligned
 * to 128 bytes), so one implementation's output could start at the
 * inputs' page offset, or one row of a power-of-two width from it, and
 * run 2 to 2.7 times slower than the same kernel in another run
 * (hotspot3d at 512x512x8: an output at the input's offset or 2 KiB, one
 * row, from it, for Rodinia's kernel and dpia's alike; dpia's source
 * copied into peer.cl had looked 2.6x faster than through dpia, by this
 * alone).  So the bench places every buffer itself: those created with
 * contents (inputs) at the start of a page, outputs BUFFER_OUT_OFFSET into
 * one, and the buffers between the kernels of a chain (a pipeline's
 * temporaries, a kernel's global temporaries, a hand-written chain's
 * intermediate results) BUFFER_TEMP_OFFSET into one: the same for every
 * implementation, and each away from the others by no multiple of a row
 * of 128 floats or more.  Temporaries had been placed as outputs: dpia's
 * covariance pipeline then read its centred data at the output's offset
 * where PolyBench's covar_kernel (the same machine code) reads the buffer
 * reduce_kernel updates in place, an input at 0, and at M = 1024 (a
 * column one float a page) each store symmat[j2][j1] had the low 12 bits
 * of the loads data[i][j1] beginning the next sum: 1% to 2% of the
 * kernel's CPU time at N = 256, below the noise at N = 1024
 * (BENCHMARKS.md, "The ports below 1.00x").
 * CL_MEM_USE_HOST_PTR with memory aligned to the device's base address
 * alignment (128 bytes on PoCL) makes PoCL use that memory as the buffer. */
enum { BUFFER_PAGE = 4096, BUFFER_OUT_OFFSET = 256, BUFFER_TEMP_OFFSET = 128 };

static void CL_CALLBACK free_placed(cl_mem m, void *block) {
  (void)m;
  free(block);
}

static cl_mem placed_buffer(size_t bytes, const void *init, size_t offset) {
  cl_int err;
  cl_mem m;
  if (!bytes) bytes = 4;
  if (place_buffers) {
    size_t total = (offset + bytes + BUFFER_PAGE - 1) / BUFFER_PAGE * BUFFER_PAGE;
    char *block = aligned_alloc(BUFFER_PAGE, total);
    if (!block) die("out of memory");
    m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, block + offset, &err);
    if (err == CL_SUCCESS) CL_CHECK(clSetMemObjectDestructorCallback(m, free_placed, block));
    else free(block);
  } else {
    m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  }
  if (err != CL_SUCCESS) die("clCreateBuffer(%zu): %d", bytes, (int)err);
  if (init) CL_CHECK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bytes, init, 0, NULL, NULL));
  return m;
}

/* an input (with contents) or an output */
cl_mem buffer(size_t bytes, const void *init) {
  return placed_buffer(bytes, init, init ? 0 : BUFFER_OUT_OFFSET);
}

/* a buffer between the kernels of a chain, or a kernel's global temporary */
cl_mem temp_buffer(size_t bytes) {
  return placed_buffer(bytes, NULL, BUFFER_TEMP_OFFSET);
}

/* im's output becomes an intermediate result, read by the next kernel of
 * a chain: placed as a temporary (before that kernel binds it).  Its one
 * reference is the argument's that binds it, as buffer()'s was. */
void make_intermediate(Impl *im) {
  cl_mem old = im->out, m = temp_buffer(im->out_floats * sizeof(float));
  for (int a = 0; a < im->nargs; a++)
    if (im->args[a].kind == A_MEM && im->args[a].mem == old) im->args[a].mem = m;
  clReleaseMemObject(old);
  im->out = m;
}

void read_buffer(cl_mem m, size_t bytes, void *out) {
  CL_CHECK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
}

cl_program build(const char *source, const char *what) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  if (err != CL_SUCCESS) die("clCreateProgramWithSource(%s): %d", what, (int)err);
  if (clBuildProgram(p, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = xmalloc(n + 1);
    clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    log[n] = 0;
    die("building %s failed:\n%s", what, log);
  }
  return p;
}

/* the program of a file of OpenCL kernels, by its path in the source tree */
cl_program build_file(const char *relpath) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root, relpath);
  char *text = slurp(path);
  if (!text) die("cannot read %s", path);
  cl_program p = build(text, path);
  free(text);
  return p;
}

/* ---- implementations ---- */

Impl *add_impl(Op *op, ImplKind kind, const char *family, const char *fmt, ...) {
  if (op->nimpls == MAX_IMPLS) die("too many implementations");
  Impl *im = &op->impls[op->nimpls++];
  memset(im, 0, sizeof *im);
  im->kind = kind;
  im->family = family;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(im->name, sizeof im->name, fmt, ap);
  va_end(ap);
  return im;
}

bool is_reduction(const Op *op) { return op->kind == OP_ASUM || op->kind == OP_DOT; }

/* elements of the result vector */
size_t result_count(const Op *op) {
  switch (op->kind) {
  case OP_SCAL:
  case OP_STENCIL1D: return (size_t)op->n;
  case OP_GEMV: return (size_t)op->m;
  case OP_GEMM:
  case OP_JACOBI2D: return (size_t)(op->m * op->n);
  case OP_HEAT3D: return (size_t)(op->k * op->m * op->n);
  case OP_ASUM:
  case OP_DOT: return 0;
  default: return op->ref_count; /* the peer set: set by peer_make_op */
  }
}

/* ---- dpia kernels through libdpia ---- */

const char *root = DPIA_SOURCE_ROOT;

/* the values of the nat parameters of a sample's kernels: the op's nat
 * bindings, N M K from the op's sizes, P (heat3d's planes) = K */
static Nats op_nats(const Op *op) {
  Nats nats = {0};
  for (int i = 0; i < op->nbinds; i++) /* first: a binding overrides the op's sizes */
    if (op->binds[i].kind == A_INT) nats.names[nats.n] = op->binds[i].name, nats.values[nats.n++] = op->binds[i].nat;
  const char *nat_names[] = {"N", "M", "K", "P"};
  long long nat_values[] = {op->n, op->m, op->k, op->k};
  for (int i = 0; i < 4; i++) nats.names[nats.n] = nat_names[i], nats.values[nats.n++] = nat_values[i];
  return nats;
}

/* the op's binding of a parameter name of kind `kind`, or NULL */
static const Bind *bound(const Op *op, const char *name, ArgKind kind) {
  for (int i = 0; i < op->nbinds; i++)
    if (op->binds[i].kind == kind && !strcmp(op->binds[i].name, name)) return &op->binds[i];
  return NULL;
}

/* the buffer an input of a dpia kernel named `name` reads: the op's
 * binding of the name, else x y a b by their BLAS names, else NULL */
static cl_mem input_buffer(const Op *op, const char *name) {
  const Bind *b = bound(op, name, A_MEM);
  return b                                                                    ? b->mem
         : !strcmp(name, "xs") || !strcmp(name, "x") || !strcmp(name, "volume") ? op->dx
         : !strcmp(name, "ys") || !strcmp(name, "y")                          ? op->dy
         : !strcmp(name, "mat") || !strcmp(name, "a")                         ? op->da
         : !strcmp(name, "b")                                                 ? op->db
                                                                              : NULL;
}

/* a float scalar of a dpia kernel: alpha, beta or the op's binding */
static bool scalar_value(const Op *op, const char *name, float *v) {
  const Bind *b = bound(op, name, A_FLOAT);
  if (b) *v = b->f;
  else if (!strcmp(name, "alpha")) *v = op->alpha;
  else if (!strcmp(name, "beta")) *v = op->beta;
  else return false;
  return true;
}

/* the metadata (spec section 9) of one kernel of a sample; for gemm, gemv
 * and asum, with the op's sizes, so that the values `dpia tune` kept for
 * the nearest sizes are used (bench/run.sh tunes the tune parameters of
 * gemm at each size timed, and gemvVecRows' and asumVec16Groups' at the
 * larger size, which the smaller takes: docs/tune.md) */
static J *dpia_metadata(const char *sample, const char *kernel, const Op *op) {
  char path[1024];
  snprintf(path, sizeof path, "%s/samples/%s", root, sample);
  char *text = slurp(path);
  if (!text) die("cannot read %s", path);
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.emit = DPIA_EMIT_JSON;
  opt.kernel = kernel;
  const char *size_names[3];
  long long size_values[3];
  int nsizes = 0;
  bool matrix = op->kind == OP_GEMM || op->kind == OP_GEMV || op->kind == OP_JACOBI2D;
  if (matrix) size_names[nsizes] = "M", size_values[nsizes++] = op->m;
  if (matrix || op->kind == OP_ASUM) size_names[nsizes] = "N", size_values[nsizes++] = op->n;
  if (op->kind == OP_GEMM) size_names[nsizes] = "K", size_values[nsizes++] = op->k;
  opt.nsizes = nsizes, opt.size_names = size_names, opt.size_values = size_values;
  DpiaResult *r = NULL;
  int st = dpia_process(sample, text, strlen(text), &opt, &r);
  if (st != DPIA_OK) die("dpia translate %s -k %s failed:\n%s", sample, kernel, r ? dpia_result_diagnostics(r) : "");
  /* values `dpia tune` kept for this device (bench/run.sh tunes gemm first; docs/tune.md) */
  if (dpia_result_tuned(r)) printf("  (dpia %s -k %s: tune values from the tuning cache: %s)\n", sample, kernel, dpia_result_tuned(r));
  size_t len;
  const char *json = dpia_result_output(r, &len);
  JP p = {json, false};
  J *meta = jvalue(&p);
  if (p.bad) die("cannot read the metadata of %s -k %s", sample, kernel);
  dpia_result_free(r);
  free(text);
  return meta;
}

/* One dpia kernel into im, its inputs bound by parameter name: xs ys x y
 * mat a b (buffers), alpha beta (scalars), any other buffer to the output
 * of `prev` (the kernel before it in a pipeline); nat parameters from the
 * op's sizes.  False (with a note printed) if a precondition does not hold. */
static bool dpia_kernel(Op *op, Impl *im, const char *sample, const char *kernel, const Impl *prev) {
  J *meta = dpia_metadata(sample, kernel, op);
  Nats nats = op_nats(op);
  J *pre = jget(meta, "preconditions");
  for (int i = 0; pre && i < pre->n; i++) {
    if (!eval_precondition(pre->items[i]->str, &nats)) {
      printf("  (dpia %s: precondition %s does not hold at %s: skipped)\n", kernel, pre->items[i]->str, op->size);
      jfree(meta);
      return false;
    }
  }
  const char *source = jstr(meta, "source");
  cl_program prog = build(source, im->name);
  cl_int err;
  im->kernel = clCreateKernel(prog, kernel, &err);
  if (err != CL_SUCCESS) die("clCreateKernel(%s): %d", kernel, (int)err);
  J *params = jget(meta, "params");
  /* in place: the inputs whose buffers the outputs are, and those buffers */
  const char *updates[2] = {NULL, NULL};
  cl_mem updated_mem[2] = {NULL, NULL};
  int nupdates = 0;
  for (int i = 0; i < params->n; i++) {
    J *p = params->items[i];
    const char *name = jstr(p, "name"), *role = jstr(p, "role"), *type = jstr(p, "type");
    Arg *a = &im->args[im->nargs++];
    if (!strcmp(role, "output") || !strcmp(role, "temp")) {
      size_t bytes = (size_t)eval_size(jstr(p, "elements"), &nats) * type_bytes(type);
      if (!strcmp(jstr(p, "space"), "local")) { /* a local temporary: clSetKernelArg(NULL) */
        *a = (Arg){A_LOCAL, NULL, 0, 0, bytes};
        continue;
      }
      /* in place (docs/language.md section 27): a private copy of the
       * input it updates, as CLBlast's Sscal gets, passed as that input;
       * the output is no argument of the kernel.  Two inputs updated
       * (`updates x, b`): out and out2, alike.  With op->fresh_inputs the
       * copy is made again before every run (Impl.fresh_to). */
      const char *from_input = jget(p, "updates") ? jstr(p, "updates") : NULL;
      cl_mem mem = !strcmp(role, "temp") ? temp_buffer(bytes) : buffer(bytes, NULL);
      if (from_input) {
        cl_mem from = input_buffer(op, from_input);
        if (!from) die("%s: no input named %s", kernel, from_input);
        if (im->out2 || nupdates == 2 || (im->out && (!nupdates || bytes / sizeof(float) != im->out_floats)))
          die("%s: outputs other than two alike", kernel);
        CL_CHECK(clEnqueueCopyBuffer(queue, from, mem, 0, 0, bytes, 0, NULL, NULL));
        CL_CHECK(clFinish(queue));
        if (op->fresh_inputs) {
          im->fresh_from[im->nfresh] = from, im->fresh_to[im->nfresh] = mem, im->fresh_bytes[im->nfresh] = bytes;
          im->nfresh++;
        }
        updates[nupdates] = from_input, updated_mem[nupdates] = mem;
        nupdates++;
        im->nargs--;
        if (im->out) {
          im->out2 = mem;
          continue;
        }
        im->out = mem;
        im->out_floats = bytes / sizeof(float);
        continue;
      }
      *a = (Arg){A_MEM, mem, 0, 0, 0};
      if (!strcmp(role, "output") && im->out) {
        if (nupdates || im->out2 || bytes / sizeof(float) != im->out_floats)
          die("%s: outputs other than two alike", kernel);
        im->out2 = a->mem;
      } else if (!strcmp(role, "output")) {
        im->out = a->mem;
        im->out_floats = bytes / sizeof(float);
      }
    } else if (!strcmp(role, "input")) {
      cl_mem m = NULL;
      for (int u = 0; u < nupdates; u++)
        if (!strcmp(name, updates[u])) m = updated_mem[u];
      if (!m) m = input_buffer(op, name);
      if (!m && prev) m = prev->out;
      if (!m) die("%s: no input named %s", kernel, name);
      *a = (Arg){A_MEM, m, 0, 0, 0};
    } else if (!strcmp(role, "scalar")) {
      float v;
      if (!scalar_value(op, name, &v)) die("%s: no scalar named %s", kernel, name);
      *a = afloat(v);
    } else if (!strcmp(role, "nat")) {
      *a = (Arg){A_INT, NULL, 0, int_arg(eval_size(name, &nats), name), 0};
    } else {
      die("%s: parameter role %s", kernel, role);
    }
  }
  J *gs = jget(meta, "global_size"), *ls = jget(meta, "local_size");
  im->ndims = (cl_uint)gs->n;
  for (int d = 0; d < gs->n; d++) im->global[d] = (size_t)eval_size(gs->items[d]->str, &nats);
  im->has_local = ls && ls->kind == J_ARR;
  for (int d = 0; im->has_local && d < ls->n; d++) im->local[d] = (size_t)eval_size(ls->items[d]->str, &nats);
  if (is_reduction(op)) im->partials = falloc(im->out_floats);
  snprintf(im->note, sizeof im->note, "%s", sample);
  im->program = prog;
  jfree(meta);
  return true;
}

Impl *add_dpia(Op *op, const char *sample, const char *kernel) {
  Impl *im = add_impl(op, IK_CL, "dpia", "dpia %s", kernel);
  if (dpia_kernel(op, im, sample, kernel, NULL)) return im;
  op->nimpls--;
  return NULL;
}

/* Two dpia kernels of a sample, the second reading the first's output,
 * timed as one implementation (both enqueued, then one clFinish). */
static Impl *add_dpia_pair(Op *op, const char *sample, const char *first, const char *second) {
  Impl *im = add_impl(op, IK_CL, "dpia", "dpia %s", second);
  im->before = calloc(1, sizeof *im->before);
  if (!im->before) die("out of memory");
  im->before->kind = IK_CL;
  bool first_ok = dpia_kernel(op, im->before, sample, first, NULL);
  if (first_ok) make_intermediate(im->before); /* the second reads it */
  if (first_ok && dpia_kernel(op, im, sample, second, im->before)) {
    snprintf(im->name, sizeof im->name, "dpia %s + %s", first, second);
    return im;
  }
  free(im->before);
  op->nimpls--;
  return NULL;
}

/* ---- hand-written kernels (bench/kernels/blas.cl) ---- */

static cl_program hand_program, before_program;

Impl *add_cl(Op *op, cl_program program, const char *family, const char *kernel, const char *label,
                    cl_uint ndims, const size_t *global, const size_t *local, size_t out_floats, int nargs,
                    const Arg *args) {
  Impl *im = add_impl(op, IK_CL, family, "%s", label);
  cl_int err;
  im->kernel = clCreateKernel(program, kernel, &err);
  if (err != CL_SUCCESS) die("clCreateKernel(%s): %d", kernel, (int)err);
  im->out = buffer(out_floats * sizeof(float), NULL);
  im->out_floats = out_floats;
  im->args[0] = (Arg){A_MEM, im->out, 0, 0, 0};
  for (int i = 0; i < nargs; i++) im->args[1 + i] = args[i];
  im->nargs = nargs + 1;
  im->ndims = ndims;
  for (cl_uint d = 0; d < ndims; d++) {
    im->global[d] = global[d];
    im->local[d] = local ? local[d] : 0;
  }
  im->has_local = local != NULL;
  if (is_reduction(op)) im->partials = falloc(out_floats);
  snprintf(im->note, sizeof im->note, "%s", kernel);
  return im;
}

static Impl *add_hand(Op *op, const char *kernel, const char *label, cl_uint ndims, const size_t *global,
                      const size_t *local, size_t out_floats, int nargs, const Arg *args) {
  char name[96];
  snprintf(name, sizeof name, "hand %s", label);
  return add_cl(op, hand_program, "hand", kernel, name, ndims, global, local, out_floats, nargs, args);
}

/* A pipeline of a sample (docs/language.md section 8), timed as a user's
 * call of its launcher would run it: its launches as its metadata lists
 * them, chained through Impl.before (each enqueued after the one before,
 * then one clFinish), its temporaries allocated once.  Inputs are bound by
 * name as for a kernel.  The chain's first Impl owns the program; every
 * Impl holds its own reference to each buffer it binds (free_cl). */
Impl *add_dpia_pipeline(Op *op, const char *sample, const char *pipeline) {
  J *meta = dpia_metadata(sample, pipeline, op);
  Nats nats = op_nats(op);
  J *pre = jget(meta, "preconditions");
  for (int i = 0; pre && i < pre->n; i++)
    if (!eval_precondition(pre->items[i]->str, &nats)) {
      printf("  (dpia %s: precondition %s does not hold at %s: skipped)\n", pipeline, pre->items[i]->str, op->size);
      jfree(meta);
      return NULL;
    }
  Impl *top = add_impl(op, IK_CL, "dpia", "dpia %s (pipeline)", pipeline);
  cl_program prog = build(jstr(meta, "source"), top->name);
  J *params = jget(meta, "params"), *temps = jget(meta, "temporaries"), *launches = jget(meta, "launches");
  cl_mem out = NULL, tmp[8] = {NULL};
  size_t out_floats = 0;
  for (int i = 0; i < params->n; i++) {
    J *p = params->items[i];
    if (strcmp(jstr(p, "role"), "output")) continue;
    size_t bytes = (size_t)eval_size(jstr(p, "elements"), &nats) * type_bytes(jstr(p, "type"));
    out = buffer(bytes, NULL);
    out_floats = bytes / sizeof(float);
  }
  if (temps->n > 8) die("%s: more than 8 temporaries", pipeline);
  for (int t = 0; t < temps->n; t++)
    tmp[t] = temp_buffer((size_t)eval_size(jstr(temps->items[t], "elements"), &nats) *
                         type_bytes(jstr(temps->items[t], "type")));
  Impl *prev = NULL;
  for (int li = 0; li < launches->n; li++) {
    J *l = launches->items[li];
    Impl *im = li == launches->n - 1 ? top : calloc(1, sizeof *im);
    if (!im) die("out of memory");
    im->kind = IK_CL;
    im->before = prev;
    im->program = li == 0 ? prog : NULL;
    cl_int err;
    im->kernel = clCreateKernel(prog, jstr(l, "kernel"), &err);
    if (err != CL_SUCCESS) die("clCreateKernel(%s): %d", jstr(l, "kernel"), (int)err);
    J *args = jget(l, "args");
    for (int i = 0; i < args->n; i++) {
      J *a = args->items[i];
      Arg *arg = &im->args[im->nargs++];
      const char *b = jstr(a, "buffer"), *v = jstr(a, "value"), *size = jstr(a, "size");
      if (size) {
        *arg = aint(eval_size(size, &nats));
      } else if (v) {
        float f;
        if (!scalar_value(op, v, &f)) die("%s: no scalar named %s", pipeline, v);
        *arg = afloat(f);
      } else if (b) {
        cl_mem m = !strcmp(b, "output") ? out : !strncmp(b, "tmp", 3) ? tmp[atoi(b + 3)] : input_buffer(op, b);
        if (!m) die("%s: no buffer named %s", pipeline, b);
        if (m == out || !strncmp(b, "tmp", 3)) clRetainMemObject(m); /* this Impl's reference */
        *arg = amem(m);
      } else {
        die("%s: an argument the bench does not bind (local memory)", pipeline);
      }
    }
    J *gs = jget(l, "global_size"), *ls = jget(l, "local_size");
    im->ndims = (cl_uint)gs->n;
    for (int d = 0; d < gs->n; d++) im->global[d] = (size_t)eval_size(gs->items[d]->str, &nats);
    im->has_local = ls && ls->kind == J_ARR;
    for (int d = 0; im->has_local && d < ls->n; d++) im->local[d] = (size_t)eval_size(ls->items[d]->str, &nats);
    prev = im;
  }
  /* the references made here: each Impl holds its own */
  clReleaseMemObject(out);
  for (int t = 0; t < temps->n; t++) clReleaseMemObject(tmp[t]);
  top->out = out;
  top->out_floats = out_floats;
  if (is_reduction(op)) top->partials = falloc(out_floats);
  snprintf(top->note, sizeof top->note, "%s: %d kernels", sample, launches->n);
  jfree(meta);
  return top;
}

/* ---- running one implementation once ---- */

static void enqueue_cl(cl_command_queue q, Impl *im, cl_event *event) {
  if (im->before) enqueue_cl(q, im->before, NULL);
  for (int i = 0; i < im->nargs; i++) {
    Arg *a = &im->args[i];
    switch (a->kind) {
    case A_MEM: CL_CHECK(clSetKernelArg(im->kernel, (cl_uint)i, sizeof(cl_mem), &a->mem)); break;
    case A_FLOAT: CL_CHECK(clSetKernelArg(im->kernel, (cl_uint)i, sizeof(float), &a->f)); break;
    case A_INT: CL_CHECK(clSetKernelArg(im->kernel, (cl_uint)i, sizeof(int), &a->i)); break;
    case A_LOCAL: CL_CHECK(clSetKernelArg(im->kernel, (cl_uint)i, a->bytes, NULL)); break;
    }
  }
  CL_CHECK(clEnqueueNDRangeKernel(q, im->kernel, im->ndims, NULL, im->global, im->has_local ? im->local : NULL, 0,
                                  NULL, event));
}

/* a reduction's partial sums read back and added on the host (after the
 * kernels finished) */
static void add_partials(Op *op, Impl *im) {
  if (is_reduction(op)) {
    read_buffer(im->out, im->out_floats * sizeof(float), im->partials);
    /* eight independent sums, so that kernels with many partial sums do
     * not pay for one chain of dependent additions on the host */
    double s[8] = {0};
    size_t i = 0;
    for (; i + 8 <= im->out_floats; i += 8)
      for (int l = 0; l < 8; l++) s[l] += im->partials[i + l];
    for (; i < im->out_floats; i++) s[0] += im->partials[i];
    im->scalar = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  }
}

static void run_cl(Op *op, Impl *im) {
  enqueue_cl(queue, im, NULL);
  CL_CHECK(clFinish(queue));
  add_partials(op, im);
}

/* Op.batch: the launches back to back, as a host's loop of launches runs
 * them (Rodinia's lud enqueues its kernels for every offset before it
 * waits), one clFinish after the last */
void run_batch(Op *op, Impl *im, int n, cl_event *events) {
  if (im->kind != IK_CL || im->before || n > MAX_BATCH) die("%s: a batch of launches is for one OpenCL kernel", im->name);
  for (int i = 0; i < n; i++) enqueue_cl(prof_queue, im, &events[i]);
  CL_CHECK(clFinish(prof_queue));
  add_partials(op, im);
}

#ifdef HAVE_CLBLAST
static void clblast_check(CLBlastStatusCode st, const char *what) {
  if (st != CLBlastSuccess) die("CLBlast %s failed: status %d", what, (int)st);
}

static void run_clblast(Op *op, Impl *im) {
  cl_event ev = NULL;
  switch (op->kind) {
  case OP_SCAL: clblast_check(CLBlastSscal((size_t)op->n, op->alpha, im->own_x, 0, 1, &queue, &ev), "Sscal"); break;
  case OP_ASUM: clblast_check(CLBlastSasum((size_t)op->n, im->out, 0, op->dx, 0, 1, &queue, &ev), "Sasum"); break;
  case OP_DOT:
    clblast_check(CLBlastSdot((size_t)op->n, im->out, 0, op->dx, 0, 1, op->dy, 0, 1, &queue, &ev), "Sdot");
    break;
  case OP_GEMV:
    clblast_check(CLBlastSgemv(CLBlastLayoutRowMajor, CLBlastTransposeNo, (size_t)op->m, (size_t)op->n, op->alpha,
                               op->da, 0, (size_t)op->n, op->dx, 0, 1, op->beta, im->own_y, 0, 1, &queue, &ev),
                  "Sgemv");
    break;
  case OP_GEMM:
    clblast_check(CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, (size_t)op->m,
                               (size_t)op->n, (size_t)op->k, 1.0f, op->da, 0, (size_t)op->k, op->db, 0, (size_t)op->n,
                               0.0f, im->out, 0, (size_t)op->n, &queue, &ev),
                  "Sgemm");
    break;
  default: die("no CLBlast routine for %s", op->name);
  }
  CL_CHECK(clFinish(queue));
  if (ev) clReleaseEvent(ev);
  if (is_reduction(op)) {
    float r;
    read_buffer(im->out, sizeof r, &r);
    im->scalar = r;
  }
}
#endif

#ifdef HAVE_OPENBLAS
/* a size as OpenBLAS's blasint (int, unless it was built with 64-bit
 * integers): refused past it rather than truncated */
static blasint blas_int(long long v, const char *what) {
  if (v < 0 || (long long)(blasint)v != v)
    die("OpenBLAS: %s = %lld does not fit its blasint of %zu bytes", what, v, sizeof(blasint));
  return (blasint)v;
}

static void run_openblas(Op *op, Impl *im) {
  blasint n = blas_int(op->n, "N"), m = blas_int(op->m, "M");
  switch (op->kind) {
  case OP_SCAL: cblas_sscal(n, op->alpha, im->host_out, 1); break;
  case OP_ASUM: im->scalar = cblas_sasum(n, op->x, 1); break;
  case OP_DOT: im->scalar = cblas_sdot(n, op->x, 1, op->y, 1); break;
  case OP_GEMV: cblas_sgemv(CblasRowMajor, CblasNoTrans, m, n, op->alpha, op->a, n, op->x, 1, op->beta, im->host_out, 1); break;
  case OP_GEMM:
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, blas_int(op->k, "K"), 1.0f, op->a, blas_int(op->k, "K"), op->b, n, 0.0f,
                im->host_out, n);
    break;
  default: die("no OpenBLAS routine for %s", op->name);
  }
}
#endif

/* The bandwidth roof: the same reads and writes as the operation, in a
 * plain loop over all cores (OpenMP; simd reductions, which the compiler
 * may reorder like any of the kernels do).  Chunks are handed out
 * dynamically, as PoCL hands out work-groups: with a static split, one
 * thread that the machine's other load holds up holds up the whole loop. */
static void run_roof(Op *op, Impl *im) {
  long long n = op->n, m = op->m;
  const float *x = op->x, *y = op->y, *a = op->a;
  float *out = im->host_out, alpha = op->alpha, beta = op->beta;
  double s = 0;
  switch (op->kind) {
  case OP_SCAL: {
    const float *from = im->in_place ? out : x;
#pragma omp parallel for simd schedule(dynamic, ROOF_CHUNK)
    for (long long i = 0; i < n; i++) out[i] = alpha * from[i];
    break;
  }
  case OP_ASUM: {
    float t = 0;
#pragma omp parallel for simd schedule(dynamic, ROOF_CHUNK) reduction(+ : t)
    for (long long i = 0; i < n; i++) t += fabsf(x[i]);
    s = t;
    break;
  }
  case OP_DOT: {
    float t = 0;
#pragma omp parallel for simd schedule(dynamic, ROOF_CHUNK) reduction(+ : t)
    for (long long i = 0; i < n; i++) t += x[i] * y[i];
    s = t;
    break;
  }
  case OP_GEMV: {
#pragma omp parallel for schedule(dynamic, 8)
    for (long long i = 0; i < m; i++) {
      float t = 0;
      const float *r = a + i * n;
#pragma omp simd reduction(+ : t)
      for (long long j = 0; j < n; j++) t += r[j] * x[j];
      out[i] = alpha * t + beta * y[i];
    }
    break;
  }
  case OP_STENCIL1D: { /* the edges apart, so that the interior needs no clamp */
    out[0] = (x[0] + x[0] + x[n > 1 ? 1 : 0]) / 3.0f;
#pragma omp parallel for simd schedule(dynamic, ROOF_CHUNK)
    for (long long i = 1; i < n - 1; i++) out[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0f;
    if (n > 1) out[n - 1] = (x[n - 2] + x[n - 1] + x[n - 1]) / 3.0f;
    break;
  }
  case OP_JACOBI2D: {
#pragma omp parallel for schedule(dynamic, 8)
    for (long long i = 0; i < m; i++) {
      const float *up = x + (i > 0 ? i - 1 : 0) * n, *row = x + i * n, *down = x + (i + 1 < m ? i + 1 : m - 1) * n;
      float *o = out + i * n;
      o[0] = (up[0] + row[0] + row[0] + row[n > 1 ? 1 : 0] + down[0]) * 0.2f;
#pragma omp simd
      for (long long j = 1; j < n - 1; j++) o[j] = (up[j] + row[j - 1] + row[j] + row[j + 1] + down[j]) * 0.2f;
      if (n > 1) o[n - 1] = (up[n - 1] + row[n - 2] + row[n - 1] + row[n - 1] + down[n - 1]) * 0.2f;
    }
    break;
  }
  case OP_HEAT3D: {
    long long p = op->k, plane = m * n;
#pragma omp parallel for collapse(2) schedule(static)
    for (long long kk = 0; kk < p; kk++)
      for (long long i = 0; i < m; i++) {
        const float *c = x + kk * plane + i * n;
        const float *f = x + (kk > 0 ? kk - 1 : 0) * plane + i * n,
                    *b = x + (kk + 1 < p ? kk + 1 : p - 1) * plane + i * n;
        const float *u = x + kk * plane + (i > 0 ? i - 1 : 0) * n,
                    *d = x + kk * plane + (i + 1 < m ? i + 1 : m - 1) * n;
        float *o = out + kk * plane + i * n;
#pragma omp simd
        for (long long j = 0; j < n; j++) {
          long long l = j > 0 ? j - 1 : 0, r = j + 1 < n ? j + 1 : n - 1;
          o[j] = c[j] + 0.125f * (f[j] + b[j] + u[j] + d[j] + c[l] + c[r] - 6.0f * c[j]);
        }
      }
    break;
  }
  default: die("no roof for %s", op->name);
  }
  im->scalar = s;
}

void refresh(Impl *im) {
  for (int i = 0; i < im->nfresh; i++)
    CL_CHECK(clEnqueueCopyBuffer(queue, im->fresh_from[i], im->fresh_to[i], 0, 0, im->fresh_bytes[i], 0, NULL, NULL));
  if (im->nfresh) CL_CHECK(clFinish(queue));
}

void run_once(Op *op, Impl *im) {
  switch (im->kind) {
  case IK_CL: run_cl(op, im); return;
#ifdef HAVE_CLBLAST
  case IK_CLBLAST: run_clblast(op, im); return;
#endif
#ifdef HAVE_OPENBLAS
  case IK_OPENBLAS: run_openblas(op, im); return;
#endif
  case IK_ROOF: run_roof(op, im); return;
  default: die("implementation kind %d not built", (int)im->kind);
  }
}

/* ---- the operations ---- */

/* --only: a comma-separated list of operation names; "peer" stands for
 * the whole peer set */
static bool have(const char *only, const char *name, bool peer) {
  if (!only) return true;
  size_t len = strlen(name);
  for (const char *p = only; *p;) {
    size_t w = strcspn(p, ",");
    if ((w == len && !strncmp(p, name, len)) || (peer && w == 4 && !strncmp(p, "peer", 4))) return true;
    p += w + (p[w] == ',');
  }
  return false;
}

static void make_op(Op *op, OpKind kind, const char *name, long long m, long long n, long long k) {
  memset(op, 0, sizeof *op);
  op->kind = kind;
  snprintf(op->name, sizeof op->name, "%s", name);
  op->m = m, op->n = n, op->k = k;
  op->in_flops = kind == OP_GEMM;
  if (is_peer(kind)) {
    peer_make_op(op);
    return;
  }
  op->alpha = kind == OP_SCAL ? 0.999f : 1.5f;
  op->beta = 0.5f;
  long long nn = kind == OP_HEAT3D ? k * m * n : kind == OP_GEMV || kind == OP_GEMM || kind == OP_JACOBI2D ? m * n : n;
  const char *unit = nn >= (1 << 20) ? "M" : "K";
  long long scale = nn >= (1 << 20) ? 1 << 20 : 1 << 10;
  switch (kind) {
  case OP_GEMV:
  case OP_JACOBI2D: snprintf(op->size, sizeof op->size, "%lldx%lld", m, n); break;
  case OP_GEMM: snprintf(op->size, sizeof op->size, "%lldx%lldx%lld", m, n, k); break;
  case OP_HEAT3D: snprintf(op->size, sizeof op->size, "%lldx%lldx%lld", k, m, n); break;
  default: snprintf(op->size, sizeof op->size, "N=%lld%s", n / scale, unit); break;
  }
  /* inputs: positive for the reductions (a relative error is meaningful) */
  bool two_d = kind == OP_GEMV || kind == OP_GEMM || kind == OP_JACOBI2D;
  size_t nx = (size_t)(kind == OP_GEMV ? n : kind == OP_GEMM ? 0 : kind == OP_HEAT3D ? k * m * n : two_d ? m * n : n);
  if (nx) {
    op->x = falloc(nx);
    fill(op->x, nx, kind == OP_ASUM ? -1.0f : 0.0f, 1.0f);
    op->dx = buffer(nx * sizeof(float), op->x);
  }
  if (kind == OP_DOT || kind == OP_GEMV) {
    size_t ny = (size_t)(kind == OP_GEMV ? m : n);
    op->y = falloc(ny);
    fill(op->y, ny, 0.0f, 1.0f);
    op->dy = buffer(ny * sizeof(float), op->y);
  }
  if (kind == OP_GEMV || kind == OP_GEMM) {
    size_t na = (size_t)(m * (kind == OP_GEMM ? k : n));
    op->a = falloc(na);
    fill(op->a, na, -1.0f, 1.0f);
    op->da = buffer(na * sizeof(float), op->a);
  }
  if (kind == OP_GEMM) {
    op->b = falloc((size_t)(k * n));
    fill(op->b, (size_t)(k * n), -1.0f, 1.0f);
    op->db = buffer((size_t)(k * n) * sizeof(float), op->b);
  }
  switch (kind) {
  case OP_SCAL: op->bytes = 8.0 * n; break;
  case OP_ASUM: op->bytes = 4.0 * n; break;
  case OP_DOT: op->bytes = 8.0 * n; break;
  case OP_GEMV: op->bytes = 4.0 * ((double)m * n + n + 2.0 * m); op->flops = 2.0 * m * n; break;
  case OP_GEMM: op->bytes = 4.0 * ((double)m * k + (double)k * n + (double)m * n); op->flops = 2.0 * m * n * k; break;
  case OP_STENCIL1D: op->bytes = 8.0 * n; break;
  case OP_JACOBI2D: op->bytes = 8.0 * m * n; break;
  case OP_HEAT3D: op->bytes = 8.0 * k * m * n; break;
  default: break;
  }
  make_reference(op);
}

/* implementations in place get their own copy of the operand they update */
static void add_library_impls(Op *op) {
#ifdef HAVE_CLBLAST
  if (op->kind <= OP_GEMM) {
    Impl *im = add_impl(op, IK_CLBLAST, "CLBlast", "CLBlast %s", op->kind == OP_SCAL ? "Sscal" : op->kind == OP_ASUM ? "Sasum"
                                                               : op->kind == OP_DOT ? "Sdot" : op->kind == OP_GEMV ? "Sgemv" : "Sgemm");
    if (op->kind == OP_SCAL) im->own_x = buffer((size_t)op->n * sizeof(float), op->x);
    if (op->kind == OP_GEMV) im->own_y = buffer((size_t)op->m * sizeof(float), op->y);
    if (is_reduction(op)) im->out = buffer(sizeof(float), NULL);
    if (op->kind == OP_GEMM) im->out = buffer((size_t)(op->m * op->n) * sizeof(float), NULL);
  }
#endif
#ifdef HAVE_OPENBLAS
  if (op->kind <= OP_GEMM) {
    Impl *im = add_impl(op, IK_OPENBLAS, "OpenBLAS", "OpenBLAS cblas_s%s", op->name);
    size_t count = result_count(op);
    if (count) {
      im->host_out = falloc(count);
      if (op->kind == OP_SCAL) memcpy(im->host_out, op->x, count * sizeof(float));
      if (op->kind == OP_GEMV) memcpy(im->host_out, op->y, count * sizeof(float));
    }
    if (op->kind == OP_GEMM) snprintf(im->name, sizeof im->name, "OpenBLAS cblas_sgemm");
  }
#endif
  if (op->kind != OP_GEMM && !is_peer(op->kind)) {
    Impl *im = add_impl(op, IK_ROOF, "roof", "roof (C loop, OpenMP)");
    size_t count = result_count(op);
    if (count) im->host_out = falloc(count);
  }
  if (op->kind == OP_SCAL) { /* x = alpha x where x is, as BLAS's scal: no output's lines to fetch first */
    Impl *im = add_impl(op, IK_ROOF, "roof", "roof (C loop, OpenMP, in place)");
    im->in_place = true;
    im->host_out = falloc((size_t)op->n);
    memcpy(im->host_out, op->x, (size_t)op->n * sizeof(float));
  }
}

static void setup_impls(Op *op) {
  long long n = op->n, m = op->m, k = op->k;
  switch (op->kind) {
  default: peer_setup_impls(op); break;
  case OP_SCAL: {
    add_dpia(op, "scal.dpia", "scal");
    add_dpia(op, "scal.dpia", "scalVec");
    add_dpia(op, "scal.dpia", "scalInPlace");
    add_dpia(op, "scal.dpia", "scalInPlaceVec");
    add_dpia(op, "scal_vec.dpia", "scalVec16");
    add_dpia(op, "scal_vec.dpia", "scalChunk");
    size_t g1[] = {(size_t)n};
    add_hand(op, "scal_simple", "scal_simple", 1, g1, NULL, (size_t)n, 2, (Arg[]){amem(op->dx), afloat(op->alpha)});
    int chunk = 64;
    size_t g2[] = {(size_t)n / 16 / (size_t)chunk};
    add_hand(op, "scal_vec", "scal_vec (float16)", 1, g2, NULL, (size_t)n, 3,
             (Arg[]){amem(op->dx), afloat(op->alpha), aint(chunk)});
    break;
  }
  case OP_ASUM: {
    add_dpia(op, "asum.dpia", "asumPartial");
    add_dpia_pipeline(op, "asum_full.dpia", "asum");
    add_dpia(op, "asum_reorder.dpia", "asumReorder");
    add_dpia(op, "asum_vec.dpia", "asumVec16");
    add_dpia(op, "asum_vec.dpia", "asumVec16x2");
    add_dpia(op, "asum_vec.dpia", "asumVec16Groups");
    size_t g1[] = {64 * 64}, l1[] = {64};
    add_hand(op, "asum_simple", "asum_simple (tree)", 1, g1, l1, 64, 3, (Arg[]){amem(op->dx), aint(n), alocal(64 * 4)});
    int chunk = 256;
    size_t g2[] = {(size_t)n / 16 / (size_t)chunk};
    add_hand(op, "asum_vec", "asum_vec (float16)", 1, g2, NULL, g2[0], 2, (Arg[]){amem(op->dx), aint(chunk)});
    break;
  }
  case OP_DOT: {
    add_dpia(op, "dot_partial.dpia", "dotPartial");
    add_dpia_pipeline(op, "dot_full.dpia", "dot");
    add_dpia(op, "dot_vec.dpia", "dotVec");
    add_dpia(op, "dot_vec16.dpia", "dotVec16");
    add_dpia(op, "dot_vec16.dpia", "dotVec16x2");
    size_t g1[] = {64 * 64}, l1[] = {64};
    add_hand(op, "dot_simple", "dot_simple (tree)", 1, g1, l1, 64, 4,
             (Arg[]){amem(op->dx), amem(op->dy), aint(n), alocal(64 * 4)});
    int chunk = 256;
    size_t g2[] = {(size_t)n / 16 / (size_t)chunk};
    add_hand(op, "dot_vec", "dot_vec (float16)", 1, g2, NULL, g2[0], 3, (Arg[]){amem(op->dx), amem(op->dy), aint(chunk)});
    break;
  }
  case OP_GEMV: {
    add_dpia(op, "gemv.dpia", "gemv");
    add_dpia(op, "gemv_vec.dpia", "gemvVec");
    add_dpia(op, "gemv_vec.dpia", "gemvVec2");
    add_dpia(op, "gemv_vec.dpia", "gemvVecRows");
    add_dpia(op, "gemv_vec.dpia", "gemvVecRowsGroups");
    size_t g[] = {(size_t)m};
    Arg args[] = {amem(op->da), amem(op->dx), amem(op->dy), afloat(op->alpha), afloat(op->beta), aint(n)};
    add_hand(op, "gemv_simple", "gemv_simple", 1, g, NULL, (size_t)m, 6, args);
    add_hand(op, "gemv_vec", "gemv_vec (float16)", 1, g, NULL, (size_t)m, 6, args);
    break;
  }
  case OP_GEMM: {
    /* the strategies and kernels that take seconds at 1024^3 (under 25
     * GFLOP/s), and mmBlock, which packB + mmBlockPacked supersedes (10 s
     * at 4096^3), run at the first size only */
    add_dpia_pipeline(op, "gemm.dpia", "gemm");
    if (!op->large) {
      add_dpia(op, "mm_tiled.dpia", "mmTiled");
      add_dpia(op, "mm_vec.dpia", "mmVec");
      add_dpia(op, "mm_vec.dpia", "mmBlock");
    }
    add_dpia_pair(op, "mm_vec.dpia", "packB", "mmBlockPacked");
    add_dpia_pipeline(op, "mm_packed.dpia", "mm");
    size_t g[] = {(size_t)n, (size_t)m}, l[] = {16, 16};
    if (!op->large) {
      add_hand(op, "mm_simple", "mm_simple", 2, g, NULL, (size_t)(m * n), 4,
               (Arg[]){amem(op->da), amem(op->db), aint(n), aint(k)});
      add_hand(op, "mm_tiled", "mm_tiled (16x16 local tiles)", 2, g, l, (size_t)(m * n), 4,
               (Arg[]){amem(op->da), amem(op->db), aint(n), aint(k)});
    }
    size_t gb[] = {(size_t)n / 16, (size_t)m / 4};
    add_hand(op, "mm_block", "mm_block (4x16 per work-item, float16)", 2, gb, NULL, (size_t)(m * n), 4,
             (Arg[]){amem(op->da), amem(op->db), aint(n), aint(k)});
    break;
  }
  case OP_STENCIL1D: {
    add_dpia(op, "stencil1d.dpia", "stencil");
    add_dpia(op, "stencil1d.dpia", "stencilTiled");
    add_dpia(op, "stencil1d.dpia", "stencilChunk"); /* a chunk of 64 a work-item: unclamped loop in the middle */
    size_t g[] = {(size_t)n};
    add_hand(op, "stencil1d", "stencil1d", 1, g, NULL, (size_t)n, 2, (Arg[]){amem(op->dx), aint(n)});
    add_cl(op, before_program, "dpia-before", "stencil_before", "dpia stencil, generator before unrolling", 1, g,
           NULL, (size_t)n, 2, (Arg[]){amem(op->dx), aint(n)});
    break;
  }
  case OP_JACOBI2D: {
    add_dpia(op, "jacobi2d.dpia", "jacobi2d");
    add_dpia(op, "jacobi2d.dpia", "jacobi2dTiled");
    add_dpia(op, "jacobi2d.dpia", "jacobi2dChunk");
    add_dpia(op, "jacobi2d.dpia", "jacobi2dStrips"); /* strips of a page, R rows a work-item: three rows in L1 */
    size_t g[] = {(size_t)n, (size_t)m}, l[] = {64, 4};
    add_hand(op, "jacobi2d", "jacobi2d", 2, g, NULL, (size_t)(m * n), 3, (Arg[]){amem(op->dx), aint(m), aint(n)});
    /* the same kernel launched with jacobi2dTiled's work-groups: what a
     * careful programmer would choose after measuring */
    add_hand(op, "jacobi2d", "jacobi2d (local size 64x4)", 2, g, l, (size_t)(m * n), 3,
             (Arg[]){amem(op->dx), aint(m), aint(n)});
    add_cl(op, before_program, "dpia-before", "jacobi2d_before", "dpia jacobi2d, generator before unrolling", 2, g,
           NULL, (size_t)(m * n), 3, (Arg[]){amem(op->dx), aint(m), aint(n)});
    break;
  }
  case OP_HEAT3D: {
    add_dpia(op, "heat3d.dpia", "heat3d");
    add_dpia(op, "heat3d.dpia", "heat3dChunk");
    add_dpia(op, "heat3d.dpia", "heat3dWindow"); /* a column a work-item, its planes through a window */
    size_t g[] = {(size_t)n, (size_t)m, (size_t)k};
    add_hand(op, "heat3d", "heat3d", 3, g, NULL, (size_t)(k * m * n), 4,
             (Arg[]){amem(op->dx), aint(k), aint(m), aint(n)});
    break;
  }
  }
  add_library_impls(op);
}

/* The launch of dp (and of the kernels before it, a pipeline's) with
 * nothing to do: launch_only with dp's NDRange, writing nothing into a
 * buffer as long as dp's output, whose partial sums run_cl reads back and
 * adds up as dp's (op->launch, measure_launch) */
static Impl *launch_of(const Op *op, const Impl *dp) {
  Impl *im = calloc(1, sizeof *im);
  if (!im) die("out of memory");
  im->kind = IK_CL;
  im->family = "launch";
  snprintf(im->name, sizeof im->name, "launch alone (%.60s, nothing to do)", dp->name);
  cl_int err;
  im->kernel = clCreateKernel(hand_program, "launch_only", &err);
  if (err != CL_SUCCESS) die("clCreateKernel(launch_only): %d", (int)err);
  im->out_floats = dp->out_floats ? dp->out_floats : 1;
  im->out = buffer(im->out_floats * sizeof(float), NULL);
  im->args[0] = amem(im->out);
  im->nargs = 1;
  im->ndims = dp->ndims;
  memcpy(im->global, dp->global, sizeof im->global);
  memcpy(im->local, dp->local, sizeof im->local);
  im->has_local = dp->has_local;
  if (dp->before) im->before = launch_of(op, dp->before);
  return im;
}

static void setup_launch(Op *op) {
  const Impl *dp = best_of(op, "dpia");
  if (!memory_bound(op) || !dp || dp->kind != IK_CL) return;
  op->launch = launch_of(op, dp);
  if (is_reduction(op)) op->launch->partials = falloc(op->launch->out_floats);
}

/* releases what im holds; `shared` is a buffer it reads but does not own
 * (the output of the kernel before it) */
static void free_cl(const Op *op, Impl *im, cl_mem shared) {
  if (im->before) {
    free_cl(op, im->before, NULL);
    free(im->before);
  }
  cl_mem owned_elsewhere[] = {op->dx, op->dy, op->da, op->db, shared};
  if (im->kernel) clReleaseKernel(im->kernel);
  if (im->program) clReleaseProgram(im->program);
  for (int a = 0; a < im->nargs; a++) {
    if (im->args[a].kind != A_MEM) continue;
    bool owned = true;
    for (size_t e = 0; e < sizeof owned_elsewhere / sizeof owned_elsewhere[0]; e++)
      if (im->args[a].mem == owned_elsewhere[e]) owned = false;
    for (int b = 0; b < op->nbinds; b++)
      if (im->args[a].mem == op->binds[b].mem) owned = false;
    for (int b = 0; b < a; b++) /* an in-place kernel's one buffer, passed twice: released once */
      if (im->args[b].kind == A_MEM && im->args[a].mem == im->args[b].mem) owned = false;
    if (owned) clReleaseMemObject(im->args[a].mem);
  }
  if (im->kind != IK_CL && im->out) clReleaseMemObject(im->out);
  if (im->own_x) clReleaseMemObject(im->own_x);
  if (im->own_y) clReleaseMemObject(im->own_y);
  free(im->partials);
  free(im->host_out);
}

/* --impls: only the implementations whose name holds one of the
 * comma-separated words (a measurement of a few side by side, without the
 * slow ones' seconds); the others are released unrun */
static void keep_impls(Op *op, const char *words) {
  if (!words) return;
  int kept = 0;
  for (int i = 0; i < op->nimpls; i++) {
    Impl *im = &op->impls[i];
    bool keep = false;
    for (const char *p = words; *p && !keep;) {
      size_t w = strcspn(p, ",");
      char word[96];
      snprintf(word, sizeof word, "%.*s", (int)(w < sizeof word ? w : sizeof word - 1), p);
      keep = w > 0 && strstr(im->name, word) != NULL;
      p += w + (p[w] == ',');
    }
    if (!keep) {
      free_cl(op, im, im->before ? im->before->out : NULL);
      continue;
    }
    if (kept != i) op->impls[kept] = *im;
    kept++;
  }
  op->nimpls = kept;
}

static void free_op(Op *op) {
  for (int i = 0; i < op->nimpls; i++) {
    Impl *im = &op->impls[i];
    free_cl(op, im, im->before ? im->before->out : NULL);
    im->before = NULL;
  }
  if (op->launch) { /* its figures kept, as the implementations' */
    free_cl(op, op->launch, NULL);
    op->launch->before = NULL;
  }
  cl_mem ms[] = {op->dx, op->dy, op->da, op->db};
  for (int i = 0; i < 4; i++)
    if (ms[i]) clReleaseMemObject(ms[i]);
  for (int i = 0; i < op->nbinds; i++)
    if (op->binds[i].mem) clReleaseMemObject(op->binds[i].mem);
  op->nbinds = 0;
  free(op->x), free(op->y), free(op->a), free(op->b), free(op->ref_vec), free(op->aux);
  op->aux = NULL;
  /* keep the figures: free nothing else */
  op->x = op->y = op->a = op->b = NULL;
  op->ref_vec = NULL;
}

int main(int argc, char **argv) {
  int reps = 15;
  bool quick = false, cold = false, check_only = false;
  const char *only = NULL, *md = NULL, *dat = NULL, *impls = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--root") && i + 1 < argc) root = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick")) quick = true;
    else if (!strcmp(argv[i], "--cold")) cold = true;
    else if (!strcmp(argv[i], "--check")) check_only = true, quick = true;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--md") && i + 1 < argc) md = argv[++i];
    else if (!strcmp(argv[i], "--dat") && i + 1 < argc) dat = argv[++i];
    else if (!strcmp(argv[i], "--impls") && i + 1 < argc) impls = argv[++i];
    else if (!strcmp(argv[i], "--cpu-time")) use_cpu_time();
    else {
      fprintf(stderr, "usage: blas_bench [--root DIR] [--reps R] [--quick] [--check] [--cold] [--only OP,...] [--md FILE] "
                      "[--dat FILE] [--impls WORD,...] [--cpu-time]\n");
      return 2;
    }
  }
  if (reps < 1 || reps > MAX_REPS) die("--reps between 1 and %d", MAX_REPS);
  cl_setup();
  if (cold) {
    cl_ulong cache = 0;
    clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    cold_caches((size_t)(cache ? 2 * cache : 512u << 20));
  }
  hand_program = build_file("bench/kernels/blas.cl");
  before_program = build_file("bench/kernels/before.cl");

  printf("device: %s (%s)\n", device_name, platform_version);
#ifdef _OPENMP
  const char *wait = getenv("OMP_WAIT_POLICY");
  printf("roof: OpenMP, %d threads, OMP_WAIT_POLICY=%s\n", omp_get_max_threads(), wait ? wait : "(unset)");
#endif
#ifdef HAVE_OPENBLAS
  printf("OpenBLAS: %s, core %s, %d threads", openblas_get_config(), openblas_get_corename(), openblas_get_num_threads());
  const char *ct = getenv("OPENBLAS_CORETYPE");
  printf("%s%s\n", ct ? ", OPENBLAS_CORETYPE=" : "", ct ? ct : "");
#endif
  printf("timing: median of %d rounds after 2 warm-up rounds, implementations interleaved%s\n", reps,
         cold ? ", caches flushed before each run (--cold)" : "");
  const char *tt = getenv("OPENBLAS_THREAD_TIMEOUT");
  if (tt) printf("OPENBLAS_THREAD_TIMEOUT=%s\n", tt);

  static Op ops[MAX_OPS];
  int nops = 0, wrong = 0;
  long long big = quick ? 1 << 22 : 1 << 26, small = quick ? 1 << 20 : 1 << 24;
  long long gbig = quick ? 2048 : 8192, gsmall = quick ? 1024 : 4096;
  struct {
    OpKind kind;
    const char *name;
    long long m, n, k;
    bool large;
  } plan[] = {
      {OP_SCAL, "scal", 0, small, 0, false},
      {OP_SCAL, "scal", 0, big, 0, true},
      {OP_ASUM, "asum", 0, small, 0, false},
      {OP_ASUM, "asum", 0, big, 0, true},
      {OP_DOT, "dot", 0, small, 0, false},
      {OP_DOT, "dot", 0, big, 0, true},
      {OP_GEMV, "gemv", gsmall, gsmall, 0, false},
      {OP_GEMV, "gemv", gbig, gbig, 0, true},
      {OP_STENCIL1D, "stencil1d", 0, small, 0, false},
      {OP_JACOBI2D, "jacobi2d", gsmall, gsmall, 0, false},
      {OP_HEAT3D, "heat3d", quick ? 128 : 256, quick ? 128 : 256, quick ? 64 : 256, false},
      {OP_GEMM, "gemm", quick ? 256 : 1024, quick ? 256 : 1024, quick ? 256 : 1024, false},
      {OP_GEMM, "gemm", quick ? 512 : 2048, quick ? 512 : 2048, quick ? 512 : 2048, true},
      {OP_GEMM, "gemm", quick ? 768 : 4096, quick ? 768 : 4096, quick ? 768 : 4096, true},
      /* the peer set (peer_bench.c), at the sizes of the suites (PolyBench/GPU: 4096; SHOC MD: its
       * size 4) where a run takes at most about 0.5 s here (Parboil mri-q's small input, 32768 voxels
       * and 3072 samples, takes 9 s: its sin and cos are scalar code); --check: small sizes,
       * for the test (gaussian3x3's 192 columns: three of gaussian3x3Chunk's chunks of 64, the
       * clamped first and last and one between) */
      {OP_NBODY, "nbody", 0, check_only ? 512 : quick ? 2048 : 8192, 0, false},
      {OP_MD, "md", 128, check_only ? 1024 : quick ? 12288 : 73728, 0, false},
      {OP_BLUR, "gaussian3x3", check_only ? 96 : quick ? 1024 : 4096, check_only ? 192 : quick ? 1024 : 4096, 0, false},
      {OP_GESUMMV, "gesummv", 0, check_only ? 96 : quick ? 1024 : 4096, 0, false},
      {OP_ATAX, "atax", check_only ? 96 : quick ? 1024 : 4096, check_only ? 80 : quick ? 1024 : 4096, 0, false},
      {OP_NN, "nn", 0, check_only ? 1000 : quick ? 1 << 22 : 1 << 24, 0, false},
      {OP_KMEANS, "kmeans", 5, check_only ? 1000 : quick ? 1 << 17 : 1 << 19, 34, false},
      {OP_SCAN, "scan", 0, check_only ? 1 << 16 : quick ? 1 << 22 : 1 << 24, 0, false},
      /* SHOC spmv: a square CSR matrix, 32 elements a row on average */
      {OP_SPMV, "spmv", 32, check_only ? 1 << 10 : quick ? 1 << 16 : 1 << 18, 0, false},
      /* Rodinia's hotspot3D input: 512 x 512 cells, 8 layers (m rows, n columns, k layers) */
      {OP_HOTSPOT3D, "hotspot3d", check_only ? 48 : quick ? 256 : 512, check_only ? 64 : quick ? 256 : 512,
       8, false},
      {OP_MRIQ, "mriq", check_only ? 64 : quick ? 512 : 1024, check_only ? 512 : quick ? 2048 : 4096, 0, false},
      {OP_MRIQ2, "mriq2", check_only ? 64 : quick ? 512 : 1024, check_only ? 512 : quick ? 2048 : 4096, 0, false},
      /* PolyBench/GPU's covariance and correlation: M variables (columns), N observations */
      {OP_COVARIANCE, "covariance", check_only ? 48 : quick ? 512 : 1024, check_only ? 64 : quick ? 512 : 1024, 0, false},
      {OP_CORRELATION, "correlation", check_only ? 48 : quick ? 512 : 1024, check_only ? 64 : quick ? 512 : 1024, 0,
       false},
      {OP_ADI, "adi", 0, check_only ? 64 : quick ? 1024 : 2048, 0, false},
      /* SHOC sgemm: M x N x K, M % 64 == 0, N and K % 16 == 0 */
      {OP_SGEMM, "sgemm", check_only ? 128 : quick ? 512 : 1024, check_only ? 64 : quick ? 512 : 1024,
       check_only ? 48 : quick ? 512 : 1024, false},
      /* Rodinia cfd: its fvcorr.domn.193K mesh's nelr, elements a multiple of its groups of 192 */
      {OP_CFD, "cfd", 0, check_only ? 1152 : quick ? 65472 : 193536, 0, false},
      /* Rodinia lud: one step of the blocked factorisation at offset 0 of an n x n matrix, n = 16 (B + 1),
       * each kernel alone (Rodinia's default input is 2048 x 2048) */
      {OP_LUD_DIAGONAL, "lud", 0, check_only ? 64 : quick ? 1024 : 2048, 0, false},
      {OP_LUD_PERIMETER, "lud", 0, check_only ? 64 : quick ? 1024 : 2048, 0, false},
      {OP_LUD_INTERNAL, "lud", 0, check_only ? 64 : quick ? 1024 : 2048, 0, false},
  };
  for (size_t p = 0; p < sizeof plan / sizeof plan[0]; p++) {
    if (!have(only, plan[p].name, is_peer(plan[p].kind))) continue;
    if (nops == MAX_OPS) die("more than %d operations: raise MAX_OPS", MAX_OPS);
    Op *op = &ops[nops++];
    make_op(op, plan[p].kind, plan[p].name, plan[p].m, plan[p].n, plan[p].k);
    op->large = plan[p].large;
    setup_impls(op);
    keep_impls(op, impls);
    if (check_only) {
      wrong += check_all(op);
      free_op(op);
      continue;
    }
    measure(op, reps);
    setup_launch(op);
    measure_launch(op, reps);
    print_op(stdout, op, false);
    fflush(stdout);
    free_op(op);
  }

  if (check_only) {
    printf("%s\n", wrong ? "some implementations are WRONG" : "every implementation matches its reference");
    peer_release();
    return wrong ? 1 : 0;
  }
  report_targets(ops, nops);
  if (md) write_markdown(md, ops, nops);
  if (dat) write_dat(dat, ops, nops);
  clReleaseProgram(hand_program);
  clReleaseProgram(before_program);
  peer_release();
  timing_release();
  clReleaseCommandQueue(prof_queue);
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return 0;
}
