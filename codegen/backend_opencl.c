/* backend_opencl.c: the OpenCL C backend (backend.h): the kernel IR
 * printed as careful hand-written OpenCL C (spec section 8): two spaces an
 * indentation level, one statement a line, no parentheses C's precedence
 * makes redundant, the work-item functions and barrier fences of OpenCL C
 * 6.15. */
#include "backend_opencl.h"
#include "backend_c.h"
#include "kernel.h"


/* OpenCL C's work-item functions (6.15.1), by KirQuery */
static const char *const query_name[] = {
    [KQ_GLOBAL_ID] = "get_global_id",   [KQ_GLOBAL_SIZE] = "get_global_size", [KQ_GROUP_ID] = "get_group_id",
    [KQ_NUM_GROUPS] = "get_num_groups", [KQ_LOCAL_ID] = "get_local_id",       [KQ_LOCAL_SIZE] = "get_local_size",
};

/* OpenCL C's built-in functions (6.15.2 math, 6.15.3 integer, 6.15.4
 * common), by KirBuiltin; SELECT is the operator ?: on vectors (6.3.i) */
static const char *const builtin_name[] = {
    [KBI_MIN] = "min",     [KBI_MAX] = "max",   [KBI_CLAMP] = "clamp", [KBI_SELECT] = NULL, [KBI_FABS] = "fabs",
    [KBI_SQRT] = "sqrt",   [KBI_RSQRT] = "rsqrt", [KBI_EXP] = "exp",   [KBI_LOG] = "log",   [KBI_SIN] = "sin",
    [KBI_COS] = "cos",     [KBI_FLOOR] = "floor", [KBI_CEIL] = "ceil", [KBI_POW] = "pow",   [KBI_FMA] = "fma",
};

/* A vector's lanes (OpenCL C 6.3.7, Vector Components): .x .y .z .w
 * name the components of vectors of 2 to 4 only, .s0 to .sf those of any
 * width.  Each vector is spelled one way, by its width: .x to .w up to 4,
 * as a reader of a float4 expects, numbered for float8 and float16, where
 * .x is not OpenCL C. */
static const char *const xyzw_lane[4] = {".x", ".y", ".z", ".w"};
static const char *const numbered_lane[16] = {".s0", ".s1", ".s2", ".s3", ".s4", ".s5", ".s6", ".s7",
                                              ".s8", ".s9", ".sa", ".sb", ".sc", ".sd", ".se", ".sf"};

static void print_expr(Buf *out, const KirExpr *e);

/* OpenCL C's address space qualifiers (6.7) */
static const char *const space_name[] = {
    [KSP_PRIVATE] = "", [KSP_LOCAL] = "local ", [KSP_GLOBAL] = "global ", [KSP_CONSTANT] = "constant "};

/* float4, pair_float_int, const global float * */
static void print_type(Buf *out, const KirType *t) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (t->kind) {
  case KTY_SCALAR:
    buf_puts(out, scalar_name(t->scalar));
    if (t->width > 1) buf_put_int(out, t->width);
    return;
  case KTY_STRUCT: buf_puts(out, t->name); return;
  case KTY_POINTER:
    if (t->is_const) buf_puts(out, "const ");
    buf_puts(out, space_name[t->space]);
    print_type(out, t->to);
    buf_puts(out, " *");
    return;
  }
  DPIA_EXHAUSTIVE_END
}

static const CExprHooks expr_hooks;

/* vloadn(offset, ptr), vstoren(value, offset, ptr) (OpenCL C 6.15.7), the
 * operands through h */
static void print_vector_memory(const CExprHooks *h, Buf *out, const char *fn, int width, const KirExpr *value,
                                const KirExpr *offset, const KirExpr *ptr) {
  buf_puts(out, fn);
  buf_put_int(out, width);
  buf_putc(out, '(');
  if (value) {
    cprint_expr(h, out, value);
    buf_puts(out, ", ");
  }
  cprint_expr(h, out, offset);
  buf_puts(out, ", ");
  cprint_expr(h, out, ptr);
  buf_putc(out, ')');
}

/* what OpenCL C spells its own way (CExprHooks.print_own) */
static void print_own(const CExprHooks *h, Buf *out, const KirExpr *e) {
  switch (e->kind) {
  case KE_QUERY:
    buf_puts(out, query_name[e->query.query]);
    buf_putc(out, '(');
    buf_put_int(out, e->query.dim);
    buf_putc(out, ')');
    return;
  case KE_LANE:
    cprint_operand(h, out, e->lane.base, PREC_POSTFIX);
    buf_puts(out, e->lane.width <= 4 ? xyzw_lane[e->lane.lane & 3] : numbered_lane[e->lane.lane & 15]);
    return;
  case KE_VLOAD: print_vector_memory(h, out, "vload", e->vload.width, NULL, e->vload.offset, e->vload.ptr); return;
  case KE_BUILTIN:
    if (e->call.builtin == KBI_SELECT) {
      /* mask ? a : b, lane by lane by the sign bit of the mask's lane,
       * which for a double vector is a long vector (OpenCL C 6.3.i) */
      const KirType *t = e->call.type;
      if (t->kind == KTY_SCALAR && t->scalar == SC_DOUBLE) {
        emit(out, "convert_long%d(", t->width);
        cprint_operand(h, out, e->call.args[0], PREC_ASSIGN);
        buf_putc(out, ')');
      } else {
        cprint_operand(h, out, e->call.args[0], PREC_COND + 1);
      }
      buf_puts(out, " ? ");
      cprint_operand(h, out, e->call.args[1], PREC_COND + 1);
      buf_puts(out, " : ");
      cprint_operand(h, out, e->call.args[2], PREC_COND);
      return;
    }
    buf_puts(out, builtin_name[e->call.builtin]);
    cprint_args(h, out, e);
    return;
  case KE_CAST: /* to a vector type (OpenCL C 6.2.3) */
    buf_puts(out, "convert_");
    print_type(out, e->call.type);
    cprint_args(h, out, e);
    return;
  case KE_VECTOR:
    buf_putc(out, '(');
    print_type(out, e->call.type);
    buf_putc(out, ')');
    cprint_args(h, out, e);
    return;
  default: INTERNAL("expression kind %d is shared", (int)e->kind);
  }
}

static const CExprHooks expr_hooks = {
    .print_expr = print_expr, .print_type = print_type, .prec = NULL, .print_own = print_own};

static void print_expr(Buf *out, const KirExpr *e) { cprint_expr(&expr_hooks, out, e); }

/* e as an operand that needs a precedence of at least min */
static void print_operand(Buf *out, const KirExpr *e, int min) { cprint_operand(&expr_hooks, out, e, min); }

/* KS_VSTORE: vstoren(value, offset, ptr), through h */
static void print_vstore_by(const CExprHooks *h, Buf *out, const KirStmt *s) {
  print_vector_memory(h, out, "vstore", s->vstore.width, s->vstore.value, s->vstore.offset, s->vstore.ptr);
}

static void print_vstore(Buf *out, const KirStmt *s) { print_vstore_by(&expr_hooks, out, s); }

/* KS_BARRIER: barrier(fences) (OpenCL C 6.15.8) */
static void print_barrier(Buf *out, const KirStmt *s) {
  buf_puts(out, s->barrier.local && s->barrier.global ? "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)"
                : s->barrier.local                    ? "barrier(CLK_LOCAL_MEM_FENCE)"
                                                      : "barrier(CLK_GLOBAL_MEM_FENCE)");
}

static const CStmtHooks stmt_hooks = {
    .print_type = print_type,
    .print_expr = print_expr,
    .print_operand = print_operand,
    .print_whole = print_expr,
    .decl_space = space_name,
    .volatile_word = "volatile ",
    .print_vstore = print_vstore,
    .print_barrier = print_barrier,
    .unroll_pragma = "#pragma unroll",
    .exprs = &expr_hooks,
    .print_vstore_by = print_vstore_by,
};

/* a buffer as a pointer into its memory space, a value by itself */
static void print_param(Buf *out, const KirParam *p) {
  const char *space = "", *pointer = " ";
  switch ((KParamRole)p->role) {
  case KP_OUTPUT:
  case KP_TEMP:
    space = "global ";
    pointer = p->restrict_ ? " *restrict " : " *";
    break;
  case KP_INPUT:
    space = p->updated ? "global " : "const global ";
    pointer = p->updated ? " *" : " *restrict ";
    break;
  case KP_SCALAR:
  case KP_NAT: break;
  case KP_LOCAL:
    space = "local ";
    pointer = " *";
    break;
  default: INTERNAL("kernel parameter role %d", p->role);
  }
  buf_puts(out, space);
  if (p->is_volatile) buf_puts(out, stmt_hooks.volatile_word); /* local volatile float *loc */
  print_type(out, p->type);
  buf_puts(out, pointer);
  buf_puts(out, p->name);
}

/* constant float name[n] = {...}; (cprint_table) */
static void print_table(Buf *out, const char *name, const KirTable *t) {
  Buf head;
  buf_init(&head, out->arena);
  buf_puts(&head, space_name[KSP_CONSTANT]);
  print_type(&head, t->elem);
  cprint_table(out, head.data, name, t, print_expr);
}

/* What the kernel defines before itself and the program does not yet:
 * struct typedefs, foreign functions (compiled without contraction of
 * a * b + c into one rounding: the reference interpreter runs them as C
 * without it, verify/foreign.h, and an iteration like Mandelbrot's
 * amplifies one rounding's difference), constant arrays. */
static void print_tops(const KirKernel *k, NameSet *defined, Buf *out) {
  bool foreign = false, table = false;
  for (int i = 0; i < k->ntops; i++) {
    const KirTop *t = &k->tops[i];
    if (cprint_defined_before(defined, t->name)) continue;
    DPIA_EXHAUSTIVE_BEGIN
    switch (t->kind) {
    case KT_STRUCT: cprint_struct(out, &t->st, print_type); break;
    case KT_FOREIGN:
      if (!foreign) buf_puts(out, "#pragma OPENCL FP_CONTRACT OFF\n\n");
      foreign = true;
      emit(out, "/* foreign function %s */\n%s\n", t->name, t->text);
      break;
    case KT_CONST:
      if (foreign && !table) buf_puts(out, "#pragma OPENCL FP_CONTRACT ON\n\n");
      table = true;
      print_table(out, t->name, &t->table);
      break;
    }
    DPIA_EXHAUSTIVE_END
  }
  if (foreign && !table) buf_puts(out, "#pragma OPENCL FP_CONTRACT ON\n\n");
  if (table) buf_putc(out, '\n');
}

/* what most kernels' text fits in (a loop variant of bench/variants.py is
 * about 900 bytes): one allocation rather than five doublings, each
 * copying the text so far; 1 KiB with its NUL (2 KiB or 4 KiB cost the
 * one-line kernel of bench/variants.py more: BENCHMARKS.md) */
enum { KERNEL_TEXT_ROOM = 1024 - 1 };

static void print_kernel_lines(const KirKernel *k, NameSet *defined, Buf *out, LineRec *rec) {
  buf_reserve(out, KERNEL_TEXT_ROOM);
  cprint_comment(out, k->comment);
  if (k->uses_double) emit(out, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  buf_putc(out, '\n');
  print_tops(k, defined, out);
  size_t start = out->len;
  if (k->reqd_local) {
    buf_puts(out, "kernel __attribute__((reqd_work_group_size(");
    for (int d = 0; d < 3; d++) {
      buf_put_int(out, (long long)k->local_size[d]);
      buf_puts(out, d < 2 ? ", " : ")))\nvoid ");
    }
    buf_puts(out, k->name);
    buf_putc(out, '(');
  } else {
    buf_puts(out, "kernel void ");
    buf_puts(out, k->name);
    buf_putc(out, '(');
  }
  cprint_params(out, start, k, print_param);
  buf_puts(out, ") {\n");
  /* the statements by hooks of their own, which keep the text of the
   * index each printed last (CExprHooks.ix_text) */
  CIxText kept = {0};
  CExprHooks exprs = expr_hooks;
  exprs.ix_text = &kept;
  CStmtHooks stmts = stmt_hooks;
  stmts.exprs = &exprs;
  cprint_block(&stmts, out, &k->locals, 1, rec);
  cprint_block(&stmts, out, &k->body, 1, rec);
  buf_puts(out, "}\n");
}

static void print_kernel(const KirKernel *k, NameSet *defined, Buf *out) { print_kernel_lines(k, defined, out, NULL); }

static int runs_by_template_in(Arena *a, const KirBlock *b) {
  int n = 0;
  for (KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_RUN) n += cprint_run_by_template(&stmt_hooks, a, s);
    const KirBlock *inner = kir_body(s);
    if (inner) n += runs_by_template_in(a, inner);
  }
  return n;
}

int opencl_runs_by_template(Arena *a, const KirKernel *k) { return runs_by_template_in(a, &k->body); }

static int statement_lines(Arena *a, const KirKernel *k, const KirStmt *const **stmts, const int **lines,
                           const char **text) {
  return cprint_statement_lines(a, k, print_kernel_lines, stmts, lines, text);
}

const Backend backend_opencl = {
    .id = TARGET_OPENCL,
    .name = "opencl",
    .names = {.language = "OpenCL C", .use = opencl_name_use, .kernel_use = opencl_kernel_name_use},
    .prints_runs = true,
    .print_type = print_type,
    .print_expr = print_expr,
    .print_kernel = print_kernel,
    .statement_lines = statement_lines,
    .print_header = opencl_print_header,
};
