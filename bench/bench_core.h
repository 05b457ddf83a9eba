/* bench_core.h: what the benchmark's files share: the operations and
 * their implementations (blas_bench.c: set-up, the BLAS and stencil
 * operations, running an implementation once; bench_timing.c: checking,
 * timing and the paired statistics; bench_report.c: the tables;
 * peer_bench.c: the peers' benchmark set). */
#ifndef DPIA_BENCH_CORE_H
#define DPIA_BENCH_CORE_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>

#include "bench_meta.h"

enum { MAX_IMPLS = 16, MAX_REPS = 200, MAX_ARGS = 16, MAX_OPS = 40, MAX_BINDS = 16, MAX_BATCH = 200 };

#define CL_CHECK(call)                                                               \
  do {                                                                               \
    cl_int err_ = (call);                                                            \
    if (err_ != CL_SUCCESS) die("%s failed: OpenCL error %d", #call, (int)err_);   \
  } while (0)

typedef enum ImplKind { IK_CL, IK_CLBLAST, IK_OPENBLAS, IK_ROOF } ImplKind;
typedef enum ArgKind { A_MEM, A_FLOAT, A_INT, A_LOCAL } ArgKind;
typedef struct Arg {
  ArgKind kind;
  cl_mem mem;
  float f;
  int i;
  size_t bytes;
} Arg;

static inline Arg amem(cl_mem m) { return (Arg){A_MEM, m, 0, 0, 0}; }
static inline Arg afloat(float f) { return (Arg){A_FLOAT, NULL, f, 0, 0}; }
static inline Arg aint(long long i) { return (Arg){A_INT, NULL, 0, int_arg(i, "a size argument"), 0}; }
static inline Arg alocal(size_t bytes) { return (Arg){A_LOCAL, NULL, 0, 0, bytes}; }

struct Op;
typedef struct Impl Impl;
struct Impl {
  char name[96];
  const char *family; /* "dpia", "hand", "CLBlast", "OpenBLAS", "roof" */
  ImplKind kind;
  /* IK_CL */
  cl_program program; /* dpia kernels: their own program */
  cl_kernel kernel;
  int nargs;
  Arg args[MAX_ARGS];
  cl_uint ndims;
  size_t global[3], local[3];
  bool has_local;
  Impl *before;        /* a kernel run first, whose output this one reads (pipelines), or NULL */
  cl_mem out;          /* the output buffer (for scal in place: x) */
  /* a dpia kernel whose result is a pair of arrays (output_1, output_2):
   * the second buffer, of out_floats too; the reference is then pairs,
   * out holding their first fields and out2 their second (result_vector) */
  cl_mem out2;
  size_t out_floats;   /* floats in out */
  float *partials;     /* host copy of the partial sums (reductions) */
  /* IK_CLBLAST, IK_OPENBLAS: private copies for operations in place */
  cl_mem own_x, own_y;
  float *host_out;
  bool in_place; /* IK_ROOF, scal: host_out holds a copy of x and is scaled where it is */
  /* IK_CL updating inputs in place (PolyBench's adi_kernel1 updates X and
   * B): before every run, untimed, fresh_to[i] gets fresh_bytes[i] bytes
   * from fresh_from[i], the op's input, so that each run starts from the
   * same values (refresh, bench_timing.c) */
  int nfresh;
  cl_mem fresh_from[2], fresh_to[2];
  size_t fresh_bytes[2];
  double scalar; /* the result of a reduction */
  /* figures */
  int ntimes;
  double times[MAX_REPS]; /* seconds a run (with Op.batch, a launch: the batch's time over its launches) */
  double ms, gbs, gflops;
  /* with Op.batch: the kernel's own time from the profiling events
   * (COMMAND_START to COMMAND_END), the median of each timed batch's
   * launches, and kernel_ms the median of those */
  int nkernel;
  double kernel_times[MAX_REPS];
  double kernel_ms;
  bool ok;
  char note[160];
};

/* OP_HEAT3D: k planes of m rows of n.  From OP_NBODY on, the peers'
 * benchmark set (peer_bench.c): a dpia sample against a hand-written
 * kernel of the well-known form, nothing else. */
typedef enum OpKind {
  OP_SCAL, OP_ASUM, OP_DOT, OP_GEMV, OP_GEMM, OP_STENCIL1D, OP_JACOBI2D, OP_HEAT3D,
  OP_NBODY, OP_MD, OP_BLUR, OP_GESUMMV, OP_ATAX, OP_NN, OP_MRIQ, OP_KMEANS, OP_SCAN, OP_SPMV, OP_HOTSPOT3D,
  OP_MRIQ2, OP_COVARIANCE, OP_CORRELATION, OP_ADI, OP_SGEMM, OP_CFD, OP_LUD_DIAGONAL, OP_LUD_PERIMETER,
  OP_LUD_INTERNAL
} OpKind;

static inline bool is_peer(OpKind kind) { return kind >= OP_NBODY; }

/* A dpia parameter bound by name (peer programs, whose parameters are not
 * the BLAS names x y a b alpha beta): a buffer (A_MEM), a float scalar
 * (A_FLOAT) or a nat (A_INT: a size or tuning parameter). */
typedef struct Bind {
  const char *name;
  ArgKind kind;
  cl_mem mem;
  float f;
  long long nat;
} Bind;

typedef struct Op {
  OpKind kind;
  char name[32];  /* "scal" */
  char size[48];  /* "N=16M" */
  bool large;
  bool in_flops; /* figures in GFLOP/s (gemm, nbody), not GB/s */
  long long n, m, k;
  double bytes, flops;
  float alpha, beta;
  float *x, *y, *a, *b; /* host inputs */
  cl_mem dx, dy, da, db;
  int nbinds;
  Bind binds[MAX_BINDS]; /* its buffers owned by the op */
  double ref_scalar;
  double *ref_vec;
  size_t ref_count;
  int fields; /* > 1: the result is structs of this many floats, checked field by field */
  int field_floats; /* floats a field of such a struct takes (2: a double); 0 is 1 */
  /* implementations that update inputs in place get fresh copies of them
   * before every run (Impl.fresh_to): adi, whose repeated sweeps would
   * drift the values */
  bool fresh_inputs;
  /* > 1: a launch-bound operation (a kernel of a few microseconds, whose
   * one launch, enqueue to clFinish, is mostly PoCL waking its threads):
   * each timed run is this many launches enqueued one after another, then
   * one clFinish (run_batch), its time divided by them, for every
   * implementation alike; the kernel's own time read from the launches'
   * profiling events beside it (Impl.kernel_ms).  OpenCL kernels only,
   * without Impl.before; at most MAX_BATCH */
  int batch;
  /* if set, the error of a result in place of the relative norm (kmeans:
   * indices, an index is right if its centre is a nearest one), from
   * aux, a table of the op's own (freed with the op) */
  double (*error)(const struct Op *op, const float *result);
  double *aux;
  int nimpls;
  Impl impls[MAX_IMPLS];
  /* a memory-bound operation's best dpia strategy launched with nothing to
   * do (launch_only of bench/kernels/blas.cl, the same NDRange and partial
   * sums read back), timed after the operation's rounds: what the launch
   * alone costs (measure_launch); NULL if not measured */
  Impl *launch;
} Op;

/* The roof loops' and the cold flush's chunk (OpenMP's dynamic schedule),
 * in elements: handed out as PoCL hands out work-groups, so that a thread
 * the machine's other load holds up does not hold up the whole loop */
enum { ROOF_CHUNK = 1 << 16 };

/* blas_bench.c */
extern const char *root; /* the source tree: samples/, bench/kernels/ */
/* one run of an implementation (its result in im->scalar or its output) */
void run_once(Op *op, Impl *im);
/* Op.batch's timed run: n launches of im's kernel enqueued on a queue
 * with profiling enabled, then one clFinish; events[i] is the i-th
 * launch's event, for the caller to read and release */
void run_batch(Op *op, Impl *im, int n, cl_event *events);
/* the inputs im updates in place restored from the op's (Impl.fresh_to),
 * untimed, before each of its runs */
void refresh(Impl *im);
float *falloc(size_t n);
float rnd(float lo, float hi);
void fill(float *p, size_t n, float lo, float hi);
cl_mem buffer(size_t bytes, const void *init);
cl_mem temp_buffer(size_t bytes);
void make_intermediate(Impl *im);
cl_program build(const char *source, const char *what);
cl_program build_file(const char *relpath);
Impl *add_impl(Op *op, ImplKind kind, const char *family, const char *fmt, ...);
Impl *add_dpia(Op *op, const char *sample, const char *kernel);
Impl *add_dpia_pipeline(Op *op, const char *sample, const char *pipeline);
/* a kernel of `program` writing a new buffer of out_floats (its first
 * argument), then args */
Impl *add_cl(Op *op, cl_program program, const char *family, const char *kernel, const char *label, cl_uint ndims,
             const size_t *global, const size_t *local, size_t out_floats, int nargs, const Arg *args);
const Impl *best_of(const Op *op, const char *family);
/* a memory-bound operation: every one of blas_bench.c's but gemm (the
 * peer set has its own table, against its suites' kernels) */
bool memory_bound(const Op *op);
void read_buffer(cl_mem m, size_t bytes, void *out);
bool is_reduction(const Op *op);
/* elements of the result vector (0: a scalar result) */
size_t result_count(const Op *op);

/* bench_check.c */
/* the double-precision reference of op (op->ref_vec or ref_scalar) */
void make_reference(Op *op);
/* whether im's result agrees with the reference */
bool check_result(Op *op, Impl *im);

/* bench_timing.c */
/* The speed of `fast` over `slow` round by round, with a 95% interval
 * (paired_ratio) */
typedef struct PairedRatio {
  double median, lo, hi;
  bool has_interval; /* n >= 6 */
} PairedRatio;
PairedRatio paired_ratio(const Impl *slow, const Impl *fast);
/* the same with `less_s` seconds taken off each of fast's times (its
 * launch): slow_i / (fast_i - less_s) */
PairedRatio paired_ratio_less(const Impl *slow, const Impl *fast, double less_s);
const char *verdict(PairedRatio pr);
/* "[lo, hi]", or "[no interval]" when too few rounds ran for one (a slow
 * kernel timed once or twice): printed, never a [0.00, 0.00] */
typedef struct IntervalText {
  char text[32];
} IntervalText;
IntervalText interval_text(PairedRatio pr);
/* --cpu-time: time in the process's CPU time, not the wall clock's */
void use_cpu_time(void);
/* --cold: a buffer of `bytes` streamed through before every timed run */
void cold_caches(size_t bytes);
void timing_release(void);
/* each implementation once against the reference; how many differ */
int check_all(Op *op);
/* each implementation checked, then timed in interleaved rounds: im->ms, gbs, gflops */
void measure(Op *op, int reps);
/* op->launch, if set, timed as measure times an implementation (the
 * caches flushed before each run, after 2 warm-up runs): its ms, the
 * least of its runs */
void measure_launch(Op *op, int reps);

/* bench_report.c */
/* one operation's table, Markdown or text (on stdout) */
void print_op(FILE *f, const Op *op, bool markdown);
/* the targets, on stdout */
void report_targets(const Op *ops, int nops);
/* --md FILE, --dat FILE */
void write_markdown(const char *path, const Op *ops, int nops);
void write_dat(const char *path, const Op *ops, int nops);

/* peer_bench.c */
/* inputs (uploaded and bound by name), size, bytes or flops, and the
 * double-precision reference of a peer operation (op->kind, m, n, k set) */
void peer_make_op(Op *op);
/* its dpia strategies and hand-written kernels (bench/kernels/peer.cl) */
void peer_setup_impls(Op *op);
void peer_release(void);
/* the peer table: program, size, dpia and hand ms, speed ratio with its
 * interval, geometric mean; Markdown or text */
void peer_report(FILE *f, const Op *ops, int nops, bool markdown);
/* the chart's data: one row per program, ratio and interval */
void peer_dat(FILE *f, const Op *ops, int nops);

#endif
