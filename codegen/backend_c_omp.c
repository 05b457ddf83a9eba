/* backend_c_omp.c: the C backend (backend.h, `--target=c`): the kernel IR
 * printed as a C11 function that runs an NDRange on a CPU, with OpenMP
 * for the work-groups and GCC/Clang vector extensions for vectors
 * (docs/targets.md).  The kernel IR is SPMD code, one work-item's view;
 * C has no work-items, so this printer gives the work-group its own
 * structure (the barrier-splitting of "loop fission", as POCL's and
 * Karrenberg and Hack's work-group functions do):
 *
 *   - the work-groups are the iterations of an OpenMP parallel loop over
 *     the group ids (collapsed over the dimensions), independent as
 *     OpenCL's are (no barrier orders two work-groups: spec section 5);
 *   - a work-group's code runs its work-items one after the other in
 *     loops over the local ids, each loop a stretch of the body between
 *     two barriers: every work-item finishes one stretch before any
 *     begins the next, which is what the barrier promised;
 *   - a statement holding a barrier (a sequential loop, a test, a block)
 *     is uniform over the group (barriers are only where every work-item
 *     of the group gets: codegen's CG.uniform), so it runs once for the
 *     group with the work-item loops inside each of its stretches (the
 *     loop interchanged outward); its head must depend on nothing a
 *     work-item owns, or the kernel is refused (c_omp_refusal, E0608);
 *   - local memory is an array of the group's iteration; a private
 *     variable that one stretch declares and another reads lives in a
 *     per-work-item array of the group (dpia_each_NAME[dpia_wi], dpia_wi
 *     the flattened local id), copied in and out of a variable of its own
 *     name, so the statements print as they are; a declaration the whole
 *     group shares (its value a function of the group's ids, the sizes
 *     and the parameters, never assigned again: `int wg =
 *     get_group_id(0);`) is declared once for the group.
 *
 * Work-item functions print as the loops' variables: dpia_g0 (the group
 * id), dpia_ng0 (the number of groups), dpia_l0 (the local id), dpia_ls0
 * (the local size); a global id is dpia_g0 * dpia_ls0 + dpia_l0. */
#include "backend_c.h"
#include "backend_c_omp.h"
#include "kernel.h"

#include <string.h>

static void print_expr(Buf *out, const KirExpr *e);

/* float4, pair_float_int, const float * (no memory spaces in C) */
static void print_type(Buf *out, const KirType *t) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (t->kind) {
  case KTY_SCALAR: c_omp_type_name(out, t->scalar, t->width); return;
  case KTY_STRUCT: buf_puts(out, t->name); return;
  case KTY_POINTER:
    if (t->is_const) buf_puts(out, "const ");
    print_type(out, t->to);
    buf_puts(out, " *");
    return;
  }
  DPIA_EXHAUSTIVE_END
}

static const CExprHooks expr_hooks;

static void print_operand(Buf *out, const KirExpr *e, int min) { cprint_operand(&expr_hooks, out, e, min); }

/* the work-item functions as the variables of the loops over groups and
 * work-items (the file's comment) */
static void print_query(Buf *out, KirQuery q, int dim) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (q) {
  case KQ_GLOBAL_ID: emit(out, "dpia_g%d * dpia_ls%d + dpia_l%d", dim, dim, dim); return;
  case KQ_GLOBAL_SIZE: emit(out, "dpia_ng%d * dpia_ls%d", dim, dim); return;
  case KQ_GROUP_ID: emit(out, "dpia_g%d", dim); return;
  case KQ_NUM_GROUPS: emit(out, "dpia_ng%d", dim); return;
  case KQ_LOCAL_ID: emit(out, "dpia_l%d", dim); return;
  case KQ_LOCAL_SIZE: emit(out, "dpia_ls%d", dim); return;
  }
  DPIA_EXHAUSTIVE_END
}

/* a query that prints as a sum or a product is parenthesised as an
 * operand (an index polynomial's atom, ix_print, is printed whole) */
static bool query_compound(const KirExpr *e) {
  return e->kind == KE_QUERY && (e->query.query == KQ_GLOBAL_ID || e->query.query == KQ_GLOBAL_SIZE);
}

/* dpia_vload_float4(offset, ptr), dpia_vstore_float4(value, offset, ptr):
 * the preamble's, with vloadN's and vstoreN's meaning (OpenCL C 6.15.7) */
static void print_vector_memory(Buf *out, const char *fn, ScalarKind s, int width, const KirExpr *value,
                                const KirExpr *offset, const KirExpr *ptr) {
  emit(out, "dpia_%s_", fn);
  c_omp_type_name(out, s, width);
  buf_putc(out, '(');
  if (value) {
    print_operand(out, value, PREC_ASSIGN);
    buf_puts(out, ", ");
  }
  print_operand(out, offset, PREC_ASSIGN);
  buf_puts(out, ", ");
  print_operand(out, ptr, PREC_ASSIGN);
  buf_putc(out, ')');
}

/* the scalar kind a vload or vstore moves: its pointer's */
static ScalarKind pointee_scalar(const KirExpr *ptr) {
  const KirType *t = ptr->type;
  return t && t->kind == KTY_POINTER && t->to->kind == KTY_SCALAR ? t->to->scalar : SC_FLOAT;
}

/* what C spells its own way (CExprHooks.print_own) */
static void print_own(const CExprHooks *h, Buf *out, const KirExpr *e) {
  (void)h; /* the backend prints no run of steps (Backend.prints_runs): h is expr_hooks */
  switch (e->kind) {
  case KE_QUERY:
    if (query_compound(e)) buf_putc(out, '(');
    print_query(out, e->query.query, e->query.dim);
    if (query_compound(e)) buf_putc(out, ')');
    return;
  case KE_LANE: /* a vector extension's lane, by number */
    print_operand(out, e->lane.base, PREC_POSTFIX);
    emit(out, "[%d]", e->lane.lane);
    return;
  case KE_VLOAD:
    print_vector_memory(out, "vload", pointee_scalar(e->vload.ptr), e->vload.width, NULL, e->vload.offset,
                        e->vload.ptr);
    return;
  case KE_BUILTIN:
    if (e->call.builtin == KBI_SELECT && e->call.type->width == 1) {
      print_operand(out, e->call.args[0], PREC_COND + 1);
      buf_puts(out, " ? ");
      print_operand(out, e->call.args[1], PREC_COND + 1);
      buf_puts(out, " : ");
      print_operand(out, e->call.args[2], PREC_COND);
      return;
    }
    c_omp_builtin_name(out, e->call.builtin, e->call.type->scalar, e->call.type->width);
    if (e->call.type->width == 1) {
      cprint_args(&expr_hooks, out, e);
      return;
    }
    /* a helper's parameters are vectors: a scalar argument broadcast */
    buf_putc(out, '(');
    for (int i = 0; i < e->call.nargs; i++) {
      const KirExpr *arg = e->call.args[i];
      if (i) buf_puts(out, ", ");
      bool splat = arg->type->width == 1 && !(e->call.builtin == KBI_SELECT && i == 0);
      if (splat) {
        buf_puts(out, "dpia_splat_");
        print_type(out, e->call.type);
        buf_putc(out, '(');
      }
      print_operand(out, arg, PREC_ASSIGN);
      if (splat) buf_putc(out, ')');
    }
    buf_putc(out, ')');
    return;
  case KE_CAST: /* to a vector type: lane by lane, C's conversion of each */
    buf_puts(out, "__builtin_convertvector(");
    print_operand(out, e->call.args[0], PREC_ASSIGN);
    buf_puts(out, ", ");
    print_type(out, e->call.type);
    buf_putc(out, ')');
    return;
  case KE_VECTOR:
    if (e->call.nargs == 1) { /* a scalar broadcast */
      buf_puts(out, "dpia_splat_");
      print_type(out, e->call.type);
      cprint_args(&expr_hooks, out, e);
      return;
    }
    buf_putc(out, '(');
    print_type(out, e->call.type);
    buf_puts(out, "){");
    for (int i = 0; i < e->call.nargs; i++) {
      if (i) buf_puts(out, ", ");
      print_operand(out, e->call.args[i], PREC_ASSIGN);
    }
    buf_putc(out, '}');
    return;
  default: INTERNAL("expression kind %d is shared", (int)e->kind);
  }
}

static int prec(const KirExpr *e) { return query_compound(e) ? PREC_POSTFIX : kir_prec(e); }

static const CExprHooks expr_hooks = {.print_expr = print_expr, .print_type = print_type, .prec = prec, .print_own = print_own};

static void print_expr(Buf *out, const KirExpr *e) { cprint_expr(&expr_hooks, out, e); }

/* an expression a statement holds whole: a query unparenthesised */
static void print_whole(Buf *out, const KirExpr *e) {
  if (e->kind == KE_QUERY) print_query(out, e->query.query, e->query.dim);
  else print_expr(out, e);
}

/* C has no memory spaces: local memory is the group's arrays, which this
 * file declares itself (group_decl) */
static const char *const decl_space[] = {[KSP_PRIVATE] = "", [KSP_LOCAL] = "", [KSP_GLOBAL] = "", [KSP_CONSTANT] = ""};

static void print_vstore(Buf *out, const KirStmt *s) {
  print_vector_memory(out, "vstore", pointee_scalar(s->vstore.ptr), s->vstore.width, s->vstore.value,
                      s->vstore.offset, s->vstore.ptr);
}

/* The work-item loops end at every barrier (group_block): no barrier is
 * left inside the code of one work-item to print. */
static void print_barrier(Buf *out, const KirStmt *s) {
  (void)out, (void)s;
  INTERNAL("a barrier inside a work-item loop of the C target");
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
    .unroll_pragma = "#pragma GCC unroll",
};

/* ---- walking the kernel IR ---- */

/* a test of one expression node or one index variable (exactly one of e
 * and var is set); true stops the walk */
typedef bool (*NodeTest)(const void *ctx, const KirExpr *e, const char *var);

static bool any_expr(const KirExpr *e, NodeTest t, const void *ctx);

static bool any_ix(const Ix *x, NodeTest t, const void *ctx) {
  if (!x) return false;
  if (x->kind == IX_VAR) return t(ctx, NULL, x->name);
  if (x->kind == IX_EXPR) return any_expr(x->expr, t, ctx);
  return any_ix(x->a, t, ctx) || any_ix(x->b, t, ctx);
}

static bool any_expr(const KirExpr *e, NodeTest t, const void *ctx) {
  if (!e) return false;
  if (t(ctx, e, NULL)) return true;
  if (e->kind == KE_IX) return any_ix(e->ix, t, ctx);
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++)
    if (any_expr(kids[i], t, ctx)) return true;
  return false;
}

static bool any_block(const KirBlock *b, NodeTest t, const void *ctx);

/* some expression of s (or of the statements it holds) passes t */
static bool any_stmt(const KirStmt *s, NodeTest t, const void *ctx) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_DECL: return any_expr(s->decl.init, t, ctx);
  case KS_ASSIGN: return any_expr(s->assign.lhs, t, ctx) || any_expr(s->assign.rhs, t, ctx);
  case KS_VSTORE:
    return any_expr(s->vstore.value, t, ctx) || any_expr(s->vstore.offset, t, ctx) ||
           any_expr(s->vstore.ptr, t, ctx);
  case KS_FOR:
    return t(ctx, NULL, s->loop.var) || any_expr(s->loop.init, t, ctx) || any_expr(s->loop.bound, t, ctx) ||
           any_expr(s->loop.step, t, ctx) || any_block(&s->loop.body, t, ctx);
  case KS_IF: return any_expr(s->cond.cond, t, ctx) || any_block(&s->cond.body, t, ctx);
  case KS_BLOCK: return any_block(&s->block.body, t, ctx);
  case KS_EXPR: return any_expr(s->expr, t, ctx);
  case KS_BARRIER:
  case KS_COMMENT: return false;
  case KS_RUN: INTERNAL("a run of steps reaches the C backend: cg_lower writes every run out (kir_write_out_runs)");
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

static bool any_block(const KirBlock *b, NodeTest t, const void *ctx) {
  for (const KirStmt *s = b->first; s; s = s->next)
    if (any_stmt(s, t, ctx)) return true;
  return false;
}

/* the variable (or index variable) called ctx */
static bool names(const void *ctx, const KirExpr *e, const char *var) {
  const char *name = ctx;
  if (var) return strcmp(var, name) == 0;
  return e->kind == KE_VAR && strcmp(e->name, name) == 0;
}

/* the variable an l-value is part of: v of v, v.fst, v.x, v[i] */
static const KirExpr *lvalue_root(const KirExpr *e) {
  for (;;) {
    if (e->kind == KE_MEMBER) e = e->member.base;
    else if (e->kind == KE_LANE) e = e->lane.base;
    else if (e->kind == KE_INDEX) e = e->index.base;
    else return e;
  }
}

/* &ctx: the variable's address, through which it may be written */
static bool address_of(const void *ctx, const KirExpr *e, const char *var) {
  return !var && e->kind == KE_UNARY && e->un.op == '&' && names(ctx, lvalue_root(e->un.operand), NULL);
}

static bool has_barrier(const KirStmt *s) {
  if (s->kind == KS_BARRIER) return true;
  const KirBlock *b = kir_body((KirStmt *)s);
  if (!b) return false;
  for (const KirStmt *c = b->first; c; c = c->next)
    if (has_barrier(c)) return true;
  return false;
}

/* s assigns the variable name or a part of it (a field, a lane, an
 * element; through a pointer too, which copying it back leaves alone) */
static bool assigns(const KirStmt *s, const char *name) {
  if (any_stmt(s, address_of, name)) return true;
  if (s->kind == KS_ASSIGN) {
    const KirExpr *root = lvalue_root(s->assign.lhs);
    return root->kind == KE_VAR && strcmp(root->name, name) == 0;
  }
  const KirBlock *b = kir_body((KirStmt *)s);
  if (!b) return false;
  for (const KirStmt *c = b->first; c; c = c->next)
    if (assigns(c, name)) return true;
  return false;
}

/* the largest dimension a work-item function of e names, into *ctx */
static bool widest_dim(const void *ctx, const KirExpr *e, const char *var) {
  int *dims = (int *)ctx;
  if (e && e->kind == KE_QUERY && e->query.dim + 1 > *dims) *dims = e->query.dim + 1;
  (void)var;
  return false;
}

/* ---- the work-group's structure ---- */

/* A private variable of one stretch that another reads: it lives in
 * dpia_each_NAME[dpia_wi] (the file's comment). */
typedef struct Promoted {
  const KirStmt *decl;
  const KirExpr *each; /* dpia_each_NAME[dpia_wi] */
} Promoted;

typedef struct P {
  Arena *a;
  Buf *out;
  LineRec *rec;
  const KirKernel *k;
  int ndims;
  /* names every work-item of a group sees with one value: the
   * parameters, program-scope tables, local buffers, the group's loop
   * variables and shared declarations */
  NameSet group;
  Vec promoted;            /* Promoted *, of the blocks being printed */
  bool each;               /* some variable is promoted (dpia_wis is used) */
  const char *refusal;     /* the first reason the kernel cannot be split */
} P;

/* not a function of the group alone: a work-item's id, or a variable that
 * is not among the group's names */
static bool item_dependent(const void *ctx, const KirExpr *e, const char *var) {
  const P *p = ctx;
  if (var) return !nameset_has(&p->group, var);
  if (e->kind == KE_VAR) return !nameset_has(&p->group, e->name);
  return e->kind == KE_QUERY && (e->query.query == KQ_LOCAL_ID || e->query.query == KQ_GLOBAL_ID);
}

/* reads memory or calls a foreign function */
static bool reads_memory(const void *ctx, const KirExpr *e, const char *var) {
  (void)ctx, (void)var;
  return e && (e->kind == KE_INDEX || e->kind == KE_VLOAD || e->kind == KE_CALL);
}

static void refuse(P *p, const char *why) {
  if (!p->refusal) p->refusal = why;
  emit(p->out, "#error \"dpia: %s\"\n", why);
}

/* A declaration of block b the group shares: a private scalar whose value
 * is the group's alone and reads no memory, never assigned in b. */
static bool group_shared(P *p, const KirBlock *b, const KirStmt *s) {
  if (s->kind != KS_DECL || s->decl.space != KSP_PRIVATE || s->decl.array_len >= 0 || !s->decl.init) return false;
  if (any_expr(s->decl.init, item_dependent, p) || any_expr(s->decl.init, reads_memory, NULL)) return false;
  for (const KirStmt *c = b->first; c; c = c->next)
    if (assigns(c, s->decl.name)) return false;
  return true;
}

/* the promoted variable of decl, or NULL */
static const Promoted *promoted_of(const P *p, const char *name) {
  for (int i = 0; i < p->promoted.len; i++) {
    const Promoted *q = p->promoted.items[i];
    if (strcmp(q->decl->decl.name, name) == 0) return q;
  }
  return NULL;
}

/* The work-item loops around the statements of one stretch: the local
 * ids from the outermost dimension in, then dpia_wi and the promoted
 * variables the stretch names copied in, the statements, and those it
 * declares or assigns copied out. */
static void print_stretch(P *p, KirStmt *const *stmts, int n, int indent) {
  Buf *out = p->out;
  bool comments = true;
  for (int i = 0; i < n; i++) comments = comments && stmts[i]->kind == KS_COMMENT;
  if (comments) { /* a comment alone annotates the group's code */
    for (int i = 0; i < n; i++) cprint_stmt(&stmt_hooks, out, stmts[i], indent, p->rec);
    return;
  }
  for (int d = p->ndims - 1; d >= 0; d--) {
    buf_indent(out, indent++);
    emit(out, "for (int dpia_l%d = 0; dpia_l%d < dpia_ls%d; dpia_l%d++)%s\n", d, d, d, d, d ? "" : " {");
  }
  /* the promoted variables the stretch names, and whether it declares
   * (or assigns) each */
  Vec named = {0};
  for (int i = 0; i < p->promoted.len; i++) {
    const Promoted *q = p->promoted.items[i];
    for (int j = 0; j < n; j++) /* an array's declaration alone names nothing: it lives in its slot */
      if (stmts[j] == q->decl ? q->decl->decl.array_len < 0 : any_stmt(stmts[j], names, q->decl->decl.name)) {
        vec_push(p->a, &named, (void *)q);
        break;
      }
  }
  if (named.len) { /* the flattened local id: (l2 * ls1 + l1) * ls0 + l0 */
    buf_indent(out, indent);
    buf_puts(out, "const int dpia_wi = ");
    for (int d = p->ndims - 1; d > 1; d--) buf_putc(out, '(');
    for (int d = p->ndims - 1; d >= 0; d--) {
      emit(out, "dpia_l%d", d);
      if (d > 1) emit(out, " * dpia_ls%d + ", d - 1);
      if (d == 1) buf_puts(out, p->ndims > 2 ? ") * dpia_ls0 + " : " * dpia_ls0 + ");
    }
    buf_puts(out, ";\n");
  }
  for (int i = 0; i < named.len; i++) { /* copied in: the stretches before gave it its value */
    const Promoted *q = named.items[i];
    bool declared = false;
    for (int j = 0; j < n; j++) declared = declared || stmts[j] == q->decl;
    if (declared && q->decl->decl.array_len < 0) continue; /* declared below, as it is */
    KirStmt *in = kir_stmt(p->a, KS_DECL);
    in->decl.space = KSP_PRIVATE;
    in->decl.name = q->decl->decl.name;
    in->decl.array_len = -1;
    in->decl.type = q->decl->decl.array_len >= 0 ? kir_pointer_type(p->a, q->decl->decl.type, KSP_PRIVATE, false)
                                                : q->decl->decl.type;
    in->decl.init = q->each;
    cprint_stmt(&stmt_hooks, out, in, indent, NULL);
  }
  for (int i = 0; i < n; i++) {
    const Promoted *q = stmts[i]->kind == KS_DECL ? promoted_of(p, stmts[i]->decl.name) : NULL;
    if (q && q->decl == stmts[i] && stmts[i]->decl.array_len >= 0) continue; /* its pointer, copied in */
    cprint_stmt(&stmt_hooks, out, stmts[i], indent, p->rec);
  }
  for (int i = 0; i < named.len; i++) { /* copied out, for the stretches after */
    const Promoted *q = named.items[i];
    if (q->decl->decl.array_len >= 0) continue; /* written in place */
    bool written = false;
    for (int j = 0; j < n; j++) written = written || stmts[j] == q->decl || assigns(stmts[j], q->decl->decl.name);
    if (!written) continue;
    KirStmt *back = kir_stmt(p->a, KS_ASSIGN);
    back->assign.lhs = q->each;
    back->assign.rhs = kir_var(p->a, q->decl->decl.name, q->decl->decl.type);
    cprint_stmt(&stmt_hooks, out, back, indent, NULL);
  }
  buf_indent(out, indent - 1);
  buf_puts(out, "}\n");
}

static void group_block(P *p, const KirBlock *b, int indent);

/* a statement that holds a barrier, run once for the group with the
 * work-item loops inside its body */
static void group_stmt(P *p, const KirStmt *s, int indent) {
  Buf *out = p->out;
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_BARRIER: return; /* the work-item loops end here */
  case KS_FOR:
    nameset_add(&p->group, s->loop.var);
    if (any_expr(s->loop.init, item_dependent, p) || any_expr(s->loop.bound, item_dependent, p) ||
        any_expr(s->loop.step, item_dependent, p)) {
      refuse(p, "a loop holding a barrier whose steps differ between the work-items of a group");
      nameset_remove(&p->group, s->loop.var);
      return;
    }
    buf_indent(out, indent);
    cprint_record_line(p->rec, out, s);
    cprint_loop_head(&stmt_hooks, out, s);
    buf_puts(out, "{");
    if (s->comment) emit(out, " /* %s */", s->comment);
    buf_putc(out, '\n');
    group_block(p, &s->loop.body, indent + 1);
    nameset_remove(&p->group, s->loop.var);
    break;
  case KS_IF:
    if (any_expr(s->cond.cond, item_dependent, p)) {
      refuse(p, "a test holding a barrier whose outcome differs between the work-items of a group");
      return;
    }
    buf_indent(out, indent);
    cprint_record_line(p->rec, out, s);
    buf_puts(out, "if (");
    print_expr(out, s->cond.cond);
    buf_puts(out, ") {");
    if (s->comment) emit(out, " /* %s */", s->comment);
    buf_putc(out, '\n');
    group_block(p, &s->cond.body, indent + 1);
    break;
  case KS_BLOCK:
    buf_indent(out, indent);
    cprint_record_line(p->rec, out, s);
    buf_puts(out, "{\n");
    group_block(p, &s->block.body, indent + 1);
    break;
  case KS_DECL:
  case KS_ASSIGN:
  case KS_VSTORE:
  case KS_EXPR:
  case KS_COMMENT:
  case KS_RUN: INTERNAL("statement kind %d holds no barrier", (int)s->kind);
  }
  DPIA_EXHAUSTIVE_END
  buf_indent(out, indent);
  buf_puts(out, "}\n");
}

/* a declaration at the group's level: a shared value, a local array */
static void group_decl(P *p, const KirStmt *s, int indent) {
  cprint_stmt(&stmt_hooks, p->out, s, indent, p->rec);
  nameset_add(&p->group, s->decl.name);
}

/* The statements of b, in the group's code: stretches between the
 * statements that hold barriers, each in work-item loops (print_stretch);
 * those statements once for the group (group_stmt); local arrays and
 * shared declarations once for the group, before the stretch they are in
 * (nothing of it reads them: it is the statements before them). */
static void group_block(P *p, const KirBlock *b, int indent) {
  int n = 0;
  for (const KirStmt *s = b->first; s; s = s->next) n++;
  /* each statement's stretch (-1: the group's own) */
  int *stretch = NEWARRAY(p->a, int, n > 0 ? n : 1);
  KirStmt **stmts = NEWARRAY(p->a, KirStmt *, n > 0 ? n : 1);
  int nstretches = 0, i = 0;
  bool open = false;
  Vec shared = {0}; /* the group's declarations of b, which leave scope with it */
  for (KirStmt *s = b->first; s; s = s->next, i++) {
    stmts[i] = s;
    stretch[i] = -1;
    if (has_barrier(s)) {
      open = false;
    } else if (s->kind == KS_DECL && s->decl.space == KSP_LOCAL) {
    } else if (group_shared(p, b, s)) {
      nameset_add(&p->group, s->decl.name); /* later shared declarations may read it */
      vec_push(p->a, &shared, (void *)s->decl.name);
    } else {
      if (!open) nstretches++;
      open = true;
      stretch[i] = nstretches - 1;
    }
  }
  /* the private variables a stretch declares and something else names */
  int first_promoted = p->promoted.len;
  for (i = 0; i < n; i++) {
    const KirStmt *s = stmts[i];
    if (stretch[i] < 0 || s->kind != KS_DECL || s->decl.space != KSP_PRIVATE) continue;
    bool elsewhere = false;
    /* what follows it (before it the name may be another variable's, in
     * a scope that ended: no name is declared where another is visible) */
    for (int j = i + 1; j < n && !elsewhere; j++)
      elsewhere = stretch[j] != stretch[i] && any_stmt(stmts[j], names, s->decl.name);
    if (!elsewhere) continue;
    if (s->decl.array_len >= 0 && s->decl.init) {
      refuse(p, "an initialised private array that work-items keep across a barrier");
      continue;
    }
    Promoted *q = NEW(p->a, Promoted);
    q->decl = s;
    const char *each = arena_printf(p->a, "dpia_each_%s", s->decl.name);
    const KirType *slot = s->decl.array_len >= 0 ? kir_pointer_type(p->a, s->decl.type, KSP_PRIVATE, false)
                                                 : s->decl.type;
    q->each = kir_index(p->a, kir_var(p->a, each, kir_pointer_type(p->a, slot, KSP_PRIVATE, false)),
                        kir_var(p->a, "dpia_wi", kir_scalar1(SC_INT)));
    vec_push(p->a, &p->promoted, q);
    p->each = true;
    buf_indent(p->out, indent);
    print_type(p->out, s->decl.type);
    emit(p->out, s->decl.type->kind == KTY_POINTER ? "%s[dpia_wis]" : " %s[dpia_wis]", each);
    if (s->decl.array_len >= 0) emit(p->out, "[%lld]", (long long)s->decl.array_len);
    emit(p->out, "; /* %s of each work-item */\n", s->decl.name);
  }
  for (i = 0; i < shared.len; i++) nameset_remove(&p->group, shared.items[i]); /* declared again as printed */
  int from = 0;
  for (i = 0; i <= n; i++) {
    /* a stretch ends where a statement of the group's is, or b does */
    bool ends = i == n || has_barrier(stmts[i]);
    if (ends) {
      int m = 0;
      KirStmt **run = NEWARRAY(p->a, KirStmt *, i - from > 0 ? i - from : 1);
      for (int j = from; j < i; j++)
        if (stretch[j] >= 0) run[m++] = stmts[j];
      if (m) print_stretch(p, run, m, indent);
      if (i < n) group_stmt(p, stmts[i], indent);
      /* the group's declarations after the statement come after it */
      from = i + 1;
      continue;
    }
    if (stretch[i] < 0) group_decl(p, stmts[i], indent);
  }
  p->promoted.len = first_promoted;
  for (i = 0; i < n; i++)
    if (stretch[i] < 0 && stmts[i]->kind == KS_DECL) nameset_remove(&p->group, stmts[i]->decl.name);
}

/* ---- the kernel ---- */

/* the size variable of a local buffer parameter: its bytes, which the
 * caller gives as OpenCL's clSetKernelArg does */
static void print_local_bytes(Buf *out, const KirParam *p) { emit(out, "dpia_bytes_%s", p->name); }

/* a buffer as a pointer, a value by itself, a local buffer as its bytes */
static void print_param(Buf *out, const KirParam *p) {
  cprint_plain_param(out, p, print_type, "restrict", "size_t", print_local_bytes);
}

/* a value of a constant table: a vector as a brace-enclosed list of its
 * lanes (a constant initializer; a broadcast repeats its scalar) */
static void print_table_value(Buf *out, const KirExpr *e) {
  if (e->kind != KE_VECTOR) {
    print_expr(out, e);
    return;
  }
  int lanes = e->call.type->width;
  buf_putc(out, '{');
  for (int i = 0; i < lanes; i++) {
    if (i) buf_puts(out, ", ");
    print_operand(out, e->call.args[e->call.nargs == 1 ? 0 : i], PREC_ASSIGN);
  }
  buf_putc(out, '}');
}

/* What the kernel defines before itself that the program does not yet:
 * the preamble, struct typedefs, foreign functions (static inline, their
 * C definition), constant arrays (static const). */
static void print_tops(const KirKernel *k, NameSet *defined, bool in_header, Buf *out) {
  c_omp_print_preamble(k, defined, in_header, out);
  CTops tops = {.print_type = print_type,
                .print_value = print_table_value,
                .foreign = "static inline ",
                .table = "static const ",
                .guard_structs = in_header};
  cprint_tops(&tops, k, defined, out);
}

/* the group's code of k (the body of the loop over groups) at indent */
static void print_group(P *p, int indent) {
  const KirKernel *k = p->k;
  for (int i = 0; i < k->nparams; i++) {
    const KirParam *q = &k->params[i];
    if (q->role == KP_LOCAL) { /* the group's array of the bytes given */
      buf_indent(p->out, indent);
      if (q->is_volatile) buf_puts(p->out, stmt_hooks.volatile_word);
      print_type(p->out, q->type);
      emit(p->out, " %s[", q->name);
      print_local_bytes(p->out, q);
      buf_puts(p->out, " / sizeof(");
      print_type(p->out, q->type);
      buf_puts(p->out, ")];\n");
    }
  }
  for (const KirStmt *s = k->locals.first; s; s = s->next) group_decl(p, s, indent);
  group_block(p, &k->body, indent);
}

static void init_walk(P *p, Arena *a, const KirKernel *k, Buf *out, LineRec *rec) {
  *p = (P){.a = a, .out = out, .rec = rec, .k = k, .ndims = 1, .group = {.arena = a}};
  for (int i = 0; i < k->nparams; i++) nameset_add(&p->group, k->params[i].name);
  for (int i = 0; i < k->ntops; i++) nameset_add(&p->group, k->tops[i].name);
  any_block(&k->locals, widest_dim, &p->ndims);
  any_block(&k->body, widest_dim, &p->ndims);
}

const char *c_omp_refusal(Arena *a, const KirKernel *k) {
  Buf scratch;
  buf_init(&scratch, a);
  P p;
  init_walk(&p, a, k, &scratch, NULL);
  print_group(&p, 0);
  return p.refusal;
}

/* the kernel; in_header: static (a header's kernels are its own in each
 * file that includes it), without the entry by address */
static void print_program(const KirKernel *k, NameSet *defined, Buf *out, LineRec *rec, bool in_header) {
  Arena *a = out->arena;
  cprint_comment(out, k->comment);
  buf_putc(out, '\n');
  print_tops(k, defined, in_header, out);
  /* what the group's code uses of the prologue: a trial print */
  P p;
  Buf trial;
  buf_init(&trial, a);
  init_walk(&p, a, k, &trial, NULL);
  print_group(&p, 0);
  bool each = p.each;

  size_t start = out->len;
  emit(out, "%svoid %s(", in_header ? "static " : "", k->name);
  static const char *const range[] = {"const size_t dpia_groups[3]", "const size_t dpia_local[3]"};
  cprint_params_more(out, start, k, print_param, 2, range);
  buf_puts(out, ") {\n");
  int nd = p.ndims;
  if (k->reqd_local) { /* constants: the per-work-item arrays are not VLAs */
    buf_puts(out, "  enum { ");
    for (int d = 0; d < nd; d++) emit(out, "%sdpia_ls%d = %lld", d ? ", " : "", d, (long long)k->local_size[d]);
    if (each) {
      long long wis = 1;
      for (int d = 0; d < nd; d++) wis *= k->local_size[d];
      emit(out, ", dpia_wis = %lld", wis);
    }
    buf_puts(out, " };\n");
  } else {
    for (int d = 0; d < nd; d++) emit(out, "  const int dpia_ls%d = (int)dpia_local[%d];\n", d, d);
    if (each) {
      buf_puts(out, "  const int dpia_wis = dpia_ls0");
      for (int d = 1; d < nd; d++) emit(out, " * dpia_ls%d", d);
      buf_puts(out, ";\n");
    }
  }
  for (int d = 0; d < nd; d++) emit(out, "  const int dpia_ng%d = (int)dpia_groups[%d];\n", d, d);
  if (nd > 1) emit(out, "#pragma omp parallel for collapse(%d)\n", nd);
  else buf_puts(out, "#pragma omp parallel for\n");
  int indent = 1;
  for (int d = nd - 1; d >= 0; d--) {
    buf_indent(out, indent++);
    emit(out, "for (int dpia_g%d = 0; dpia_g%d < dpia_ng%d; dpia_g%d++)%s\n", d, d, d, d, d ? "" : " {");
  }
  init_walk(&p, a, k, out, rec);
  print_group(&p, indent);
  buf_indent(out, indent - 1);
  buf_puts(out, "}\n}\n");
  if (in_header) return;

  /* the entry with one signature for every kernel */
  emit(out, "\n/* %s with its arguments by address (args[i] points at argument i; a local\n"
            " * buffer's is its size_t bytes), and their number, for callers that load the\n"
            " * kernel at run time */\n",
       k->name);
  emit(out, "void dpia_args_%s(void *const *args, const size_t dpia_groups[3], const size_t dpia_local[3]) {\n",
       k->name);
  /* the call: on one line if it fits in 100 columns, else an argument a
   * line, aligned after the parenthesis */
  Buf call;
  buf_init(&call, a);
  const char **args = NEWARRAY(a, const char *, k->nparams + 1);
  size_t width = 0;
  for (int i = 0; i <= k->nparams; i++) {
    Buf t;
    buf_init(&t, a);
    if (i == k->nparams) {
      buf_puts(&t, "dpia_groups, dpia_local");
    } else {
      const KirParam *q = &k->params[i];
      switch ((KParamRole)q->role) {
      case KP_OUTPUT:
      case KP_TEMP: print_type(&t, q->type); buf_puts(&t, " *const *"); break;
      case KP_INPUT:
        if (!q->updated) buf_puts(&t, "const ");
        print_type(&t, q->type);
        buf_puts(&t, " *const *");
        break;
      case KP_SCALAR:
      case KP_NAT: print_type(&t, q->type); buf_puts(&t, " const *"); break;
      case KP_LOCAL: buf_puts(&t, "size_t const *"); break;
      default: INTERNAL("kernel parameter role %d", q->role);
      }
      Buf arg;
      buf_init(&arg, a);
      emit(&arg, "*(%s)args[%d]", t.data, i);
      t = arg;
    }
    args[i] = t.data;
    width += strlen(t.data) + 2;
  }
  size_t col = strlen(k->name) + 3;
  bool one_line = col + width <= 100;
  emit(&call, "  %s(", k->name);
  for (int i = 0; i <= k->nparams; i++) {
    if (i) buf_puts(&call, one_line ? ", " : ",\n");
    if (i && !one_line)
      for (size_t c = 0; c < col; c++) buf_putc(&call, ' ');
    buf_puts(&call, args[i]);
  }
  buf_put(out, call.data, call.len);
  emit(out, ");\n}\nconst int dpia_nargs_%s = %d;\n", k->name, k->nparams);
}

static void print_kernel_lines(const KirKernel *k, NameSet *defined, Buf *out, LineRec *rec) {
  print_program(k, defined, out, rec, false);
}

static void print_kernel(const KirKernel *k, NameSet *defined, Buf *out) { print_program(k, defined, out, NULL, false); }

void c_omp_print_header_kernel(const KirKernel *k, NameSet *defined, Buf *out) {
  print_program(k, defined, out, NULL, true);
}

static int statement_lines(Arena *a, const KirKernel *k, const KirStmt *const **stmts, const int **lines,
                           const char **text) {
  return cprint_statement_lines(a, k, print_kernel_lines, stmts, lines, text);
}

const Backend backend_c = {
    .id = TARGET_C,
    .name = "c",
    .names = {.language = "C", .use = c_omp_name_use, .kernel_use = c_omp_kernel_name_use},
    .no_pocl_barriers = true,
    .print_type = print_type,
    .print_expr = print_expr,
    .print_kernel = print_kernel,
    .statement_lines = statement_lines,
    .print_header = c_omp_print_header,
    .refusal = c_omp_refusal,
};
