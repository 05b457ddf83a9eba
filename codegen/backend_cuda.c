/* backend_cuda.c: the CUDA C backend (backend.h): the kernel IR printed
 * as CUDA C++ that nvcc compiles (docs/targets.md), in the style of the
 * OpenCL printer (two spaces an indentation level, one statement a line,
 * no redundant parentheses).  The OpenCL concepts map one to one:
 *
 *   kernel void k(...)        extern "C" __global__ void k(...): a C name,
 *                             the same as the program's
 *   reqd_work_group_size      __launch_bounds__(the block's threads)
 *   get_group_id(d) ...       blockIdx, threadIdx, blockDim, gridDim
 *                             (a global id is blockIdx*blockDim+threadIdx)
 *   local float t[n];         __shared__ float t[n];
 *   local float *t (a parameter)
 *                             a byte offset into the dynamic shared memory
 *                             the launcher sizes (docs/targets.md)
 *   barrier(...)              __syncthreads(), which fences both memories
 *   restrict, global, const   __restrict__, (nothing), const
 *   constant float w[n]       static __constant__ float w[n]
 *   vectors and built-ins     the preamble's types, operators and helpers
 *                             (backend_cuda_vectors.c), CUDA's math
 *                             functions by name table */
#include "backend_c.h"
#include "backend_cuda.h"
#include "kernel.h"


static const char *const dim_name = "xyz";

bool cuda_builtin_vector(ScalarKind s, int width) {
  return (s == SC_INT || s == SC_FLOAT || s == SC_DOUBLE) && width >= 2 && width <= 4 &&
         !(s == SC_DOUBLE && width == 4);
}

void cuda_vector_name(Buf *out, ScalarKind s, int width) {
  emit(out, "%s%s%d", cuda_builtin_vector(s, width) ? "" : "dpia_", scalar_name(s), width);
}

/* CUDA's math functions of a scalar, by KirBuiltin (float, double, int);
 * NULL: none (clamp is the preamble's dpia_clamp; select is ?:) */
static const char *const scalar_builtin[][3] = {
    [KBI_MIN] = {"fminf", "fmin", "min"},    [KBI_MAX] = {"fmaxf", "fmax", "max"},
    [KBI_CLAMP] = {"dpia_clamp", "dpia_clamp", "dpia_clamp"},
    [KBI_SELECT] = {NULL, NULL, NULL},       [KBI_FABS] = {"fabsf", "fabs", "abs"},
    [KBI_SQRT] = {"sqrtf", "sqrt", NULL},    [KBI_RSQRT] = {"rsqrtf", "rsqrt", NULL},
    [KBI_EXP] = {"expf", "exp", NULL},       [KBI_LOG] = {"logf", "log", NULL},
    [KBI_SIN] = {"sinf", "sin", NULL},       [KBI_COS] = {"cosf", "cos", NULL},
    [KBI_FLOOR] = {"floorf", "floor", NULL}, [KBI_CEIL] = {"ceilf", "ceil", NULL},
    [KBI_POW] = {"powf", "pow", NULL},       [KBI_FMA] = {"fmaf", "fma", NULL},
};

/* the preamble's lane-wise helpers of vectors, by KirBuiltin */
static const char *const vector_builtin[] = {
    [KBI_MIN] = "dpia_min",     [KBI_MAX] = "dpia_max",   [KBI_CLAMP] = "dpia_clamp", [KBI_SELECT] = "dpia_select",
    [KBI_FABS] = "dpia_fabs",   [KBI_SQRT] = "dpia_sqrt", [KBI_RSQRT] = "dpia_rsqrt", [KBI_EXP] = "dpia_exp",
    [KBI_LOG] = "dpia_log",     [KBI_SIN] = "dpia_sin",   [KBI_COS] = "dpia_cos",     [KBI_FLOOR] = "dpia_floor",
    [KBI_CEIL] = "dpia_ceil",   [KBI_POW] = "dpia_pow",   [KBI_FMA] = "dpia_fma",
};

const char *cuda_builtin_spelling(KirBuiltin b, ScalarKind s, int width) {
  if (width > 1) return vector_builtin[b];
  const char *name = scalar_builtin[b][s == SC_DOUBLE ? 1 : s == SC_INT ? 2 : 0];
  if (!name) INTERNAL("no CUDA spelling of built-in %d on %s", (int)b, scalar_name(s));
  return name;
}

static void print_expr(Buf *out, const KirExpr *e);

/* float4, dpia_float8, pair_float_int, const float * (no memory space:
 * a CUDA pointer is generic) */
static void print_type(Buf *out, const KirType *t) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (t->kind) {
  case KTY_SCALAR:
    if (t->width > 1) cuda_vector_name(out, t->scalar, t->width);
    else buf_puts(out, scalar_name(t->scalar));
    return;
  case KTY_STRUCT: buf_puts(out, t->name); return;
  case KTY_POINTER:
    if (t->is_const) buf_puts(out, "const ");
    print_type(out, t->to);
    buf_puts(out, " *");
    return;
  }
  DPIA_EXHAUSTIVE_END
}

/* e's precedence: kir_prec, but a global id and size print as sums and
 * products of CUDA's variables */
static int prec(const KirExpr *e) {
  if (e->kind == KE_QUERY && e->query.query == KQ_GLOBAL_ID) return PREC_ADD;
  if (e->kind == KE_QUERY && e->query.query == KQ_GLOBAL_SIZE) return PREC_MUL;
  return kir_prec(e);
}

static const CExprHooks expr_hooks;

/* e as an operand that needs a precedence of at least min */
static void print_operand(Buf *out, const KirExpr *e, int min) { cprint_operand(&expr_hooks, out, e, min); }

/* the work-item functions as CUDA's built-in variables (the CUDA
 * Programming Guide, "Built-in Variables") */
static void print_query(Buf *out, KirQuery q, int dim) {
  char d = dim_name[dim];
  DPIA_EXHAUSTIVE_BEGIN
  switch (q) {
  case KQ_GLOBAL_ID: emit(out, "blockIdx.%c * blockDim.%c + threadIdx.%c", d, d, d); return;
  case KQ_GLOBAL_SIZE: emit(out, "gridDim.%c * blockDim.%c", d, d); return;
  case KQ_GROUP_ID: emit(out, "blockIdx.%c", d); return;
  case KQ_NUM_GROUPS: emit(out, "gridDim.%c", d); return;
  case KQ_LOCAL_ID: emit(out, "threadIdx.%c", d); return;
  case KQ_LOCAL_SIZE: emit(out, "blockDim.%c", d); return;
  }
  DPIA_EXHAUSTIVE_END
}

/* dpia_vload4(offset, ptr), dpia_vstore4(value, offset, ptr): the
 * preamble's, with vloadN's and vstoreN's meaning (OpenCL C 6.15.7) */
static void print_vector_memory(Buf *out, const char *fn, int width, const KirExpr *value, const KirExpr *offset,
                                const KirExpr *ptr) {
  emit(out, "dpia_%s%d(", fn, width);
  if (value) {
    print_operand(out, value, PREC_ASSIGN);
    buf_puts(out, ", ");
  }
  print_operand(out, offset, PREC_ASSIGN);
  buf_puts(out, ", ");
  print_operand(out, ptr, PREC_ASSIGN);
  buf_putc(out, ')');
}

/* what CUDA C++ spells its own way (CExprHooks.print_own) */
static void print_own(const CExprHooks *h, Buf *out, const KirExpr *e) {
  (void)h; /* the backend prints no run of steps (Backend.prints_runs): h is expr_hooks */
  switch (e->kind) {
  case KE_QUERY:
    /* an operand of an index polynomial (ix_print) is printed whole:
     * parenthesised here unless a statement prints it alone */
    buf_putc(out, '(');
    print_query(out, e->query.query, e->query.dim);
    buf_putc(out, ')');
    return;
  case KE_LANE: /* CUDA's .x .y .z .w, the preamble's .s[i] */
    print_operand(out, e->lane.base, PREC_POSTFIX);
    if (e->lane.width <= 4)
      emit(out, ".%c", "xyzw"[e->lane.lane & 3]);
    else
      emit(out, ".s[%d]", e->lane.lane);
    return;
  case KE_VLOAD: print_vector_memory(out, "vload", e->vload.width, NULL, e->vload.offset, e->vload.ptr); return;
  case KE_BUILTIN:
    if (e->call.builtin == KBI_SELECT && e->call.type->width == 1) {
      print_operand(out, e->call.args[0], PREC_COND + 1);
      buf_puts(out, " ? ");
      print_operand(out, e->call.args[1], PREC_COND + 1);
      buf_puts(out, " : ");
      print_operand(out, e->call.args[2], PREC_COND);
      return;
    }
    buf_puts(out, cuda_builtin_spelling(e->call.builtin, e->call.type->scalar, e->call.type->width));
    cprint_args(&expr_hooks, out, e);
    return;
  case KE_CAST: /* to a vector type */
    buf_puts(out, "dpia_convert_");
    print_type(out, e->call.type);
    cprint_args(&expr_hooks, out, e);
    return;
  case KE_VECTOR:
    /* a scalar broadcast, or one lane each */
    buf_puts(out, e->call.nargs == 1 ? "dpia_splat_" : "make_");
    print_type(out, e->call.type);
    cprint_args(&expr_hooks, out, e);
    return;
  default: INTERNAL("expression kind %d is shared", (int)e->kind);
  }
}

static const CExprHooks expr_hooks = {.print_expr = print_expr, .print_type = print_type, .prec = prec, .print_own = print_own};

static void print_expr(Buf *out, const KirExpr *e) { cprint_expr(&expr_hooks, out, e); }

/* an expression a statement holds whole: a work-item query unparenthesised */
static void print_whole(Buf *out, const KirExpr *e) {
  if (e->kind == KE_QUERY) print_query(out, e->query.query, e->query.dim);
  else print_expr(out, e);
}

/* a declaration's memory space: a local array is in the block's shared
 * memory; a pointer is generic */
static const char *const decl_space[] = {
    [KSP_PRIVATE] = "", [KSP_LOCAL] = "__shared__ ", [KSP_GLOBAL] = "", [KSP_CONSTANT] = ""};

/* KS_VSTORE: dpia_vstoren(value, offset, ptr) */
static void print_vstore(Buf *out, const KirStmt *s) {
  print_vector_memory(out, "vstore", s->vstore.width, s->vstore.value, s->vstore.offset, s->vstore.ptr);
}

/* KS_BARRIER: __syncthreads(), which orders shared and global memory
 * within the block */
static void print_barrier(Buf *out, const KirStmt *s) {
  (void)s;
  buf_puts(out, "__syncthreads()");
}

static const CStmtHooks stmt_hooks = {
    .print_type = print_type,
    .print_expr = print_expr,
    .print_operand = print_operand,
    .print_whole = print_whole,
    .decl_space = decl_space,
    .volatile_word = "volatile ",
    .print_vstore = print_vstore,
    .print_barrier = print_barrier,
    .unroll_pragma = "#pragma unroll",
};

/* The local buffer parameter p's offset in the dynamic shared memory: a
 * name of the reserved prefix dpia_ (backend_cuda_names.c) */
static void print_local_offset(Buf *out, const KirParam *p) { emit(out, "dpia_%s_at", p->name); }

/* a buffer as a pointer, a value by itself, a local buffer as its offset */
static void print_param(Buf *out, const KirParam *p) {
  cprint_plain_param(out, p, print_type, "__restrict__", "unsigned", print_local_offset);
}

/* The definitions before the kernel that the program does not yet hold:
 * the preamble, struct typedefs, foreign functions (__device__, as their
 * C definition), constant arrays (__constant__; static, as a header may
 * hold several kernels). */
static void print_tops(const KirKernel *k, NameSet *defined, Buf *out) {
  cuda_print_preamble(k, defined, out);
  static const CTops tops = {
      .print_type = print_type, .print_value = print_expr, .foreign = "__device__ inline ", .table = "static __constant__ "};
  cprint_tops(&tops, k, defined, out);
}

static void print_kernel_lines(const KirKernel *k, NameSet *defined, Buf *out, LineRec *rec) {
  cprint_comment(out, k->comment);
  buf_putc(out, '\n');
  print_tops(k, defined, out);
  size_t start = out->len;
  if (k->reqd_local)
    emit(out, "extern \"C\" __global__ void __launch_bounds__(%lld)\n%s(",
         (long long)(k->local_size[0] * k->local_size[1] * k->local_size[2]), k->name);
  else
    emit(out, "extern \"C\" __global__ void %s(", k->name);
  cprint_params(out, start, k, print_param);
  emit(out, ") {\n");
  /* the local buffer parameters, carved out of the dynamic shared memory
   * at the offsets the launcher computed */
  bool shared = false;
  for (int i = 0; i < k->nparams; i++) {
    const KirParam *p = &k->params[i];
    if (p->role != KP_LOCAL) continue;
    if (!shared) buf_puts(out, "  extern __shared__ __align__(16) unsigned char dpia_shared[];\n");
    shared = true;
    const char *qualifier = p->is_volatile ? stmt_hooks.volatile_word : "";
    emit(out, "  %s", qualifier);
    print_type(out, p->type);
    emit(out, " *%s = reinterpret_cast<%s", p->name, qualifier);
    print_type(out, p->type);
    buf_puts(out, " *>(dpia_shared + ");
    print_local_offset(out, p);
    buf_puts(out, ");\n");
  }
  cprint_block(&stmt_hooks, out, &k->locals, 1, rec);
  cprint_block(&stmt_hooks, out, &k->body, 1, rec);
  emit(out, "}\n");
}

static void print_kernel(const KirKernel *k, NameSet *defined, Buf *out) { print_kernel_lines(k, defined, out, NULL); }

static int statement_lines(Arena *a, const KirKernel *k, const KirStmt *const **stmts, const int **lines,
                           const char **text) {
  return cprint_statement_lines(a, k, print_kernel_lines, stmts, lines, text);
}

const Backend backend_cuda = {
    .id = TARGET_CUDA,
    .name = "cuda",
    .names = {.language = "CUDA C++", .use = cuda_name_use, .kernel_use = cuda_kernel_name_use},
    .print_type = print_type,
    .print_expr = print_expr,
    .print_kernel = print_kernel,
    .statement_lines = statement_lines,
    .print_header = cuda_print_header,
};
