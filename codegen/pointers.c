/* pointers.c: a pointer to the row a loop body reads (a pass over the
 * kernel IR, after lowering).
 *
 * When the body of a loop reads one buffer at several constant offsets
 * from one index, xs[e], xs[e + 1], ..., xs[e + 7], with e depending on
 * the loop's variable, the body begins with a pointer to that row and
 * reads it at the offsets:
 *
 *   const global float *xs_i = xs + e;
 *   ... xs_i[0] ... xs_i[7] ...
 *
 * as a hand-written micro-kernel does.  It is not only a matter of style:
 * an index is an int, and OpenCL compilers (PoCL 3.1 with LLVM 15) widen
 * each xs[e + c] to a 64-bit address separately, an add and a sign
 * extension per read, where the pointer leaves one widening per row and
 * constant displacements (in matrix multiply's inner loop, 8 broadcasts
 * and 2 loads for 16 FMAs, the address arithmetic had outweighed the
 * loads).  Reads only: a write is rare in an inner loop and keeps its
 * index.
 *
 * A read a multiple of a size away from a row read, xs[e + K*c + d], goes
 * through that row's pointer too, xs_i[K*c + d - at]: the column of a
 * transposed view, which a micro-kernel reading a matrix in place
 * broadcasts, a[(8*I + r)*K + l] for r = 0 .. 7, is a_l[0], a_l[K], ...,
 * a_l[K*7].  (Its index widened per read had made gemm's inner loop 20%
 * slower than with the pointer; with it, reading a in place is as fast
 * as reading a packed copy.)  Such a read does not place the pointer: it
 * is formed where a read of the row itself is sure to happen.
 *
 * The pointer is written as what the loop does not change plus a
 * multiple of the loop's variable, bp + (wg*16 + j*2)*K + i*1024 + l*2,
 * where the simplifier's shortest form has the variable inside a product,
 * bp + ((wg*8 + j)*K + i*512 + l)*2: LLVM 15 makes the first a pointer
 * that steps with the loop, and widened the second's int index every
 * step (4 instructions a step in gemm's inner loop, which now has 4 for
 * every 4 steps).
 *
 * Vector reads of a row, vload16(e + c, bp) for c = 0, 1 (an array of
 * scalars read through asVector, such as gemm's packed panels, whose
 * width is a tune parameter), get a pointer the same way: the row starts
 * e*16 scalars in, and each read is vload16(c, bp_i) from it, as the
 * float16 pointer of a vector-typed parameter had been read bp_i[c] (the
 * same machine code in gemm's inner loop; with the index, PoCL 3.1
 * widened it before each load, 8 instructions a step).
 *
 * e may hold clamps of names the loop does not change, max(gid - 1, 0):
 * the rows above and below of a stencil.  A row read at one offset only
 * gets a pointer in a loop that has a row read at several (a stencil's
 * middle loop: below, rows_of_loop); elsewhere it keeps its index.
 *
 * The value of every read is unchanged: xs_i[c] is xs[e + c] for any e
 * and c.  e may mention only names that the body does not declare or
 * assign (loop variables, work-item ids, sizes), so that the pointer can
 * be computed where the body begins.
 *
 * The kernel's own statements (outside its loops) get pointers to rows
 * too, where they read one buffer at several columns of one row: a
 * stencil's neighbourhood, img[max(gid - 1, 0)*N + max(gid_2 - 1, 0)],
 * img[max(gid - 1, 0)*N + gid_2], ...  The row is the index's terms with
 * a factor that is a size parameter (the row stride N), the column the
 * others:
 *
 *   const global float *img_row = img + max(gid - 1, 0)*N;
 *   ... img_row[max(gid_2 - 1, 0)] ... img_row[gid_2] ...
 *
 * as the hand-written 3 x 3 convolution does (up, row and down).  The
 * reads vectorised across work-items are then gathers from one 64-bit
 * base per row, where int indices had cost PoCL 3.1 a widening per read
 * and a third more time.  The row may mention only the kernel's
 * parameters and names its body declares once, at its top, and never
 * assigns; the pointer is declared just before the first statement that
 * reads the row. */
#include "kir.h"
#include "backend.h"
#include "kernel.h"

#include <string.h>

/* A buffer a pointer can point into: a buffer parameter or a local buffer
 * of kernel scope. */
typedef struct Buffer {
  const char *name;
  const KirType *elem;
  KirSpace space;
  bool read_only;
} Buffer;

/* what a buffer's name, and a row pointer into it, is: a pointer to its
 * elements */
static const KirType *pointer_into(Arena *a, const Buffer *b) {
  return kir_pointer_type(a, b->elem, b->space, b->read_only);
}

/* The reads of one buffer at one index e plus constants: scalar reads
 * xs[e + c], or (width > 0) vector reads vloadW(e + c, xs), whose index
 * counts vectors of width scalars. */
typedef struct Row {
  const Buffer *buf;
  int width;
  const Ix *base;
  int64_t lo, hi;  /* the least and greatest offset read */
  bool strided;    /* some read is at base + a multiple of a size (below) */
  bool sure;       /* some read happens whenever the body runs */
  int64_t at;      /* the least offset of such a read: where the pointer points */
  const char *ptr; /* the pointer's name, once it is declared */
  /* rows of straight-line code: the first column read, whether another
   * is, and the top-level statement of the first read */
  const Ix *col;
  bool varied;
  KirStmt *first;
} Row;

typedef struct Pass {
  Arena *arena;
  const Backend *backend; /* whose reserved names a pointer's name avoids */
  int nbufs;
  Buffer *bufs;
  /* every name of the kernel, and those made here: gathered at the first
   * pointer named (most kernels get none), when the kernel is as the pass
   * found it (nothing is rewritten before a pointer has its name) */
  const KirKernel *k;
  bool names_known;
  NameSet names;
  Vec rows;      /* Row *, of the loop body being rewritten */
  NameSet local; /* names the body declares or assigns */
  IxCtx ix;
  /* rows of straight-line code (the kernel's top-level statements) */
  bool straight;
  /* names a row may mention; the size parameters: gathered (known_stable)
   * at the first row with a size parameter's factor, which most kernels
   * never get, from the kernel as the pass found it before its straight
   * code is visited (the first visit rewrites nothing) */
  const KirBlock *straight_body;
  bool stable_known;
  NameSet stable, params;
  NameSet sizes;          /* the size parameters, for the loops' strided reads */
  KirStmt *top;           /* the top-level statement being visited */
  bool no_shortcuts;      /* CodegenOptions.no_shortcuts: every loop body visited */
  bool skipped;           /* a loop body not visited (may_share_rows) */
} Pass;

static const Buffer *buffer_named(const Pass *p, const char *name) {
  for (int i = 0; i < p->nbufs; i++)
    if (strcmp(p->bufs[i].name, name) == 0) return &p->bufs[i];
  return NULL;
}

/* e = base + offset, offset the constant term */
static void split_offset(const Ix *e, const Ix **base, int64_t *offset) {
  int64_t c;
  *base = e;
  *offset = 0;
  if ((e->kind == IX_ADD || e->kind == IX_SUB) && ix_const_value(e->b, &c)) {
    *base = e->a;
    *offset = e->kind == IX_ADD ? c : -c;
  }
}

/* The names an expression may mention: those of a set (the kernel's
 * stable names), or (outside) those not in it and not var (what a loop
 * body neither declares nor assigns, nor steps). */
typedef struct Stable {
  const NameSet *set;
  bool outside;
  const char *var;
} Stable;

static bool stable_name(Stable st, const char *name) {
  if (!st.outside) return nameset_has(st.set, name);
  return !nameset_has(st.set, name) && (!st.var || strcmp(name, st.var) != 0);
}

static bool stable_expr(Stable st, const KirExpr *e);

/* e's atoms are all variables that the body neither declares nor assigns,
 * and expressions the loop does not change: a clamp of such names,
 * max(gid - 1, 0), not one of var (it does not step with the loop) nor a
 * gather (it reads memory the body may write); *mentions: one of the
 * variables is var */
static bool stable_in_body(const Pass *p, const Ix *e, const char *var, bool *mentions) {
  if (e->kind == IX_CONST) return true;
  if (e->kind == IX_VAR) {
    if (nameset_has(&p->local, e->name)) return false;
    if (strcmp(e->name, var) == 0) *mentions = true;
    return true;
  }
  if (e->kind == IX_EXPR) return stable_expr((Stable){&p->local, true, var}, e->expr);
  if (e->kind == IX_ADD || e->kind == IX_SUB || e->kind == IX_MUL || e->kind == IX_DIV || e->kind == IX_MOD)
    return stable_in_body(p, e->a, var, mentions) && stable_in_body(p, e->b, var, mentions);
  return false;
}

/* e is a sum of multiples of size parameters and constants (K*3 + 1),
 * and mentions one: the distance between a column's reads, xs[e + K*c] */
static bool size_stride(const Pass *p, const Ix *e, bool *mentions) {
  switch (e->kind) {
  case IX_CONST: return true;
  case IX_VAR: *mentions = true; return nameset_has(&p->sizes, e->name);
  case IX_ADD:
  case IX_SUB:
  case IX_MUL: return size_stride(p, e->a, mentions) && size_stride(p, e->b, mentions);
  default: return false;
  }
}

/* A read of the row of an earlier read, a multiple of a size away: a
 * column of a matrix, as a transposed view reads it, xs[(8*I + c)*K + l]
 * for c = 0 .. 7.  *distance: its index minus the row's base. */
static Row *strided_row(Pass *p, const Buffer *buf, const Ix *at, const Ix **distance) {
  for (int i = 0; i < p->rows.len; i++) {
    Row *q = p->rows.items[i];
    if (q->buf != buf || q->width) continue;
    const Ix *d = ix_simplify(&p->ix, ix_sub(&p->ix, at, q->base));
    bool mentions = false;
    if (size_stride(p, d, &mentions) && mentions) {
      *distance = d;
      return q;
    }
  }
  return NULL;
}

/* ---- rows of straight-line code ---- */

/* e's atoms are stable names (a parameter, or declared once at the top of
 * the kernel's body and never assigned) and expressions of them that read
 * no memory (a clamp: max(gid - 1, 0)) */
static bool stable_ix(Stable st, const Ix *e) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case IX_CONST: return true;
  case IX_VAR: return stable_name(st, e->name);
  case IX_EXPR: return stable_expr(st, e->expr);
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: return stable_ix(st, e->a) && stable_ix(st, e->b);
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

static bool stable_expr(Stable st, const KirExpr *e) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_INT:
  case KE_LIT:
  case KE_QUERY: return true;
  case KE_VAR: return stable_name(st, e->name);
  case KE_IX: return stable_ix(st, e->ix);
  case KE_UNARY: return stable_expr(st, e->un.operand);
  case KE_BINARY: return stable_expr(st, e->bin.lhs) && stable_expr(st, e->bin.rhs);
  case KE_COND: return stable_expr(st, e->cond.test) && stable_expr(st, e->cond.then) && stable_expr(st, e->cond.other);
  case KE_CALL:
  case KE_BUILTIN:
  case KE_CAST:
    for (int i = 0; i < e->call.nargs; i++)
      if (!stable_expr(st, e->call.args[i])) return false;
    return true;
  case KE_INDEX: /* a read of memory, which the kernel may write */
  case KE_VLOAD:
  case KE_MEMBER: /* a field, a lane, a vector: not an index's */
  case KE_LANE:
  case KE_VECTOR: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

static void known_stable(Pass *p);

/* name is a size parameter that a row may mention: asked of every
 * variable of every product in straight code, and most are no parameter */
static bool row_param(Pass *p, const char *name) {
  bool nat = false;
  for (int i = 0; i < p->k->nparams && !nat; i++)
    nat = (KParamRole)p->k->params[i].role == KP_NAT && strcmp(p->k->params[i].name, name) == 0;
  if (!nat) return false;
  known_stable(p);
  return nameset_has(&p->params, name);
}

/* a term of an index with a factor that is a size parameter: the row
 * stride's, max(gid - 1, 0)*N */
static bool row_term(Pass *p, const Ix *t) {
  if (t->kind == IX_VAR) return row_param(p, t->name);
  return t->kind == IX_MUL && (row_term(p, t->a) || row_term(p, t->b));
}

/* e = row + col: the sum's terms with a size factor, and the others */
static void split_row(Pass *p, const Ix *e, const Ix **row, const Ix **col) {
  if (e->kind == IX_ADD) {
    const Ix *ra, *ca, *rb, *cb;
    split_row(p, e->a, &ra, &ca);
    split_row(p, e->b, &rb, &cb);
    *row = !ra ? rb : !rb ? ra : ix_add(&p->ix, ra, rb);
    *col = !ca ? cb : !cb ? ca : ix_add(&p->ix, ca, cb);
    return;
  }
  if (e->kind == IX_SUB && !row_term(p, e->b)) { /* a column to the left: gid*N + gid_2 - 1 */
    split_row(p, e->a, row, col);
    *col = ix_sub(&p->ix, *col ? *col : ix_const(&p->ix, 0), e->b);
    return;
  }
  bool is_row = e->kind == IX_MUL && row_term(p, e);
  *row = is_row ? e : NULL;
  *col = is_row ? NULL : e;
}

static bool has_sub(const Ix *e) {
  if (e->kind == IX_SUB) return true;
  return (e->kind == IX_ADD || e->kind == IX_MUL) && (has_sub(e->a) || has_sub(e->b));
}

static Row *row_of_straight(Pass *p, const Buffer *buf, const Ix *at, bool add, bool guarded) {
  const Ix *row, *col;
  split_row(p, at, &row, &col);
  if (row) known_stable(p);
  if (!row || !stable_ix((Stable){&p->stable, false, NULL}, row)) return NULL;
  if (!col) col = ix_const(&p->ix, 0);
  Row *r = NULL;
  for (int i = 0; i < p->rows.len && !r; i++) {
    Row *q = p->rows.items[i];
    if (q->buf == buf && ix_equal(q->base, row)) r = q;
  }
  if (!add) return r;
  if (!r) {
    r = NEW(p->arena, Row);
    *r = (Row){.buf = buf, .base = row, .col = col, .first = p->top};
    vec_push(p->arena, &p->rows, r);
  }
  if (!ix_equal(r->col, col)) r->varied = true;
  /* the pointer is formed where some read of a column >= 0 (a sum of
   * atoms, all >= 0) always happens: it is then inside the buffer */
  if (!guarded && !has_sub(col)) r->sure = true;
  return r;
}

/* the read buf[at], if it can go through a row pointer: its row (noted
 * with its offset when add; guarded: the read happens only under a test) */
static Row *row_of(Pass *p, const KirExpr *e, const char *var, bool add, bool guarded, int64_t *offset,
                   const Ix **distance) {
  /* a vector read vloadW(at, xs), in a loop: a row of vectors (the
   * straight-line rows are of scalar reads only) */
  bool vector = e->kind == KE_VLOAD && !p->straight;
  const KirExpr *from = vector ? e->vload.ptr : e->kind == KE_INDEX ? e->index.base : NULL;
  const KirExpr *index = vector ? e->vload.offset : e->kind == KE_INDEX ? e->index.at : NULL;
  if (!from || from->kind != KE_VAR || index->kind != KE_IX) return NULL;
  const Buffer *buf = buffer_named(p, from->name);
  if (!buf) return NULL;
  int width = vector ? e->vload.width : 0;
  *offset = 0;
  *distance = NULL;
  if (p->straight) return row_of_straight(p, buf, index->ix, add, guarded);
  const Ix *base;
  split_offset(index->ix, &base, offset);
  bool mentions = false;
  if (!stable_in_body(p, base, var, &mentions) || !mentions) return NULL;
  Row *r = NULL;
  for (int i = 0; i < p->rows.len && !r; i++) {
    Row *q = p->rows.items[i];
    if (q->buf == buf && q->width == width && ix_equal(q->base, base)) r = q;
  }
  if (!r && !vector) {
    /* a read of another row's column: it goes through that row's
     * pointer, but does not place it (the pointer is formed at a read of
     * the row itself, which is then inside the buffer) */
    Row *q = strided_row(p, buf, e->index.at->ix, distance);
    if (q && add) q->strided = true;
    if (q) return q;
  }
  if (!add) return r;
  if (!r) {
    r = NEW(p->arena, Row);
    *r = (Row){.buf = buf, .width = width, .base = base, .lo = *offset, .hi = *offset, .at = *offset};
    vec_push(p->arena, &p->rows, r);
  }
  if (*offset < r->lo) r->lo = *offset;
  if (*offset > r->hi) r->hi = *offset;
  if (!guarded && (!r->sure || *offset < r->at)) r->at = *offset, r->sure = true;
  return r;
}

/* Walk (rewrite false: note the rows read) or rebuild (rewrite true: the
 * reads of rows with a pointer go through it) an expression.  guarded:
 * e is evaluated only under a test (a branch of ?:, the right operand of
 * &&, ||, the body of an if): the pointer is not placed by such a read, so
 * that it is formed only where some read of its row is sure to be valid
 * (a padded read may be out of the buffer where its test is false). */
static const KirExpr *visit(Pass *p, const KirExpr *e, const char *var, bool rewrite, bool guarded) {
  if (!e) return NULL;
  int64_t offset;
  const Ix *distance;
  Row *r = row_of(p, e, var, !rewrite, guarded, &offset, &distance);
  if (r && rewrite && r->ptr && p->straight) {
    const Ix *row, *col;
    split_row(p, e->index.at->ix, &row, &col);
    return kir_index(p->arena, kir_var(p->arena, r->ptr, pointer_into(p->arena, r->buf)),
                     col ? kir_ix(p->arena, col) : kir_int(p->arena, 0));
  }
  if (r && rewrite && r->ptr && distance) {
    const Ix *at = ix_simplify(&p->ix, ix_sub(&p->ix, distance, ix_const(&p->ix, r->at)));
    return kir_index(p->arena, kir_var(p->arena, r->ptr, pointer_into(p->arena, r->buf)), kir_ix(p->arena, at));
  }
  if (r && rewrite && r->ptr && r->width)
    return kir_vload(p->arena, r->width, kir_int(p->arena, offset - r->at),
                     kir_var(p->arena, r->ptr, pointer_into(p->arena, r->buf)));
  if (r && rewrite && r->ptr)
    return kir_index(p->arena, kir_var(p->arena, r->ptr, pointer_into(p->arena, r->buf)),
                     kir_int(p->arena, offset - r->at));
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_INT:
  case KE_VAR:
  case KE_LIT:
  case KE_IX:
  case KE_QUERY: return e;
  case KE_UNARY: {
    const KirExpr *a = visit(p, e->un.operand, var, rewrite, guarded);
    return a == e->un.operand ? e : kir_unary(p->arena, e->un.op, a);
  }
  case KE_BINARY: {
    bool lazy = e->bin.op == KB_AND || e->bin.op == KB_ALL || e->bin.op == KB_OR;
    const KirExpr *a = visit(p, e->bin.lhs, var, rewrite, guarded),
                  *b = visit(p, e->bin.rhs, var, rewrite, guarded || lazy);
    return a == e->bin.lhs && b == e->bin.rhs ? e : kir_binary(p->arena, e->bin.op, a, b);
  }
  case KE_COND: {
    const KirExpr *t = visit(p, e->cond.test, var, rewrite, guarded), *a = visit(p, e->cond.then, var, rewrite, true),
                  *b = visit(p, e->cond.other, var, rewrite, true);
    return t == e->cond.test && a == e->cond.then && b == e->cond.other ? e : kir_cond(p->arena, t, a, b);
  }
  case KE_INDEX: {
    const KirExpr *b = visit(p, e->index.base, var, rewrite, guarded),
                  *at = visit(p, e->index.at, var, rewrite, guarded);
    return b == e->index.base && at == e->index.at ? e : kir_index(p->arena, b, at);
  }
  case KE_MEMBER: {
    const KirExpr *b = visit(p, e->member.base, var, rewrite, guarded);
    return b == e->member.base ? e : kir_member(p->arena, b, e->member.name, e->type);
  }
  case KE_LANE: {
    const KirExpr *b = visit(p, e->lane.base, var, rewrite, guarded);
    return b == e->lane.base ? e : kir_lane(p->arena, b, e->lane.lane, e->lane.width);
  }
  case KE_VLOAD: {
    const KirExpr *o = visit(p, e->vload.offset, var, rewrite, guarded),
                  *q = visit(p, e->vload.ptr, var, rewrite, guarded);
    return o == e->vload.offset && q == e->vload.ptr ? e : kir_vload(p->arena, e->vload.width, o, q);
  }
  case KE_CALL:
  case KE_BUILTIN:
  case KE_CAST:
  case KE_VECTOR: {
    const KirExpr **args = NEWARRAY(p->arena, const KirExpr *, e->call.nargs > 0 ? e->call.nargs : 1);
    bool same = true;
    for (int i = 0; i < e->call.nargs; i++) {
      args[i] = visit(p, e->call.args[i], var, rewrite, guarded);
      same = same && args[i] == e->call.args[i];
    }
    if (same) return e;
    if (e->kind == KE_CAST) return kir_cast(p->arena, e->call.type, args[0]);
    if (e->kind == KE_VECTOR) return kir_vector(p->arena, e->call.type, e->call.nargs, args);
    if (e->kind == KE_BUILTIN) return kir_builtin(p->arena, e->call.builtin, e->call.type, args);
    return kir_call(p->arena, e->call.fn, e->type, e->call.nargs, args);
  }
  }
  DPIA_EXHAUSTIVE_END
  return e;
}

/* the reads of a loop body's statements, not those of loops inside it
 * (their own bodies get their own rows) */
static void visit_block(Pass *p, KirBlock *b, const char *var, bool rewrite, bool guarded, bool top) {
  for (KirStmt *s = b->first; s; s = s->next) {
    if (top) p->top = s;
    DPIA_EXHAUSTIVE_BEGIN
    switch (s->kind) {
    case KS_DECL: s->decl.init = visit(p, s->decl.init, var, rewrite, guarded); break;
    case KS_ASSIGN: s->assign.rhs = visit(p, s->assign.rhs, var, rewrite, guarded); break;
    case KS_VSTORE: s->vstore.value = visit(p, s->vstore.value, var, rewrite, guarded); break;
    case KS_EXPR: s->expr = visit(p, s->expr, var, rewrite, guarded); break;
    case KS_IF:
      s->cond.cond = visit(p, s->cond.cond, var, rewrite, guarded);
      visit_block(p, &s->cond.body, var, rewrite, true, false);
      break;
    case KS_BLOCK: visit_block(p, &s->block.body, var, rewrite, guarded, false); break;
    case KS_FOR:
    case KS_BARRIER:
    case KS_COMMENT: break;
    case KS_RUN: break; /* reads no row (straight_runs), and in no loop (partition.c writes those out) */
    }
    DPIA_EXHAUSTIVE_END
  }
}

static const char *fresh_name(Pass *p, const char *buf, const char *var) {
  if (!p->names_known) {
    const KirKernel *k = p->k;
    for (int i = 0; i < k->nparams; i++) nameset_add(&p->names, k->params[i].name);
    for (int i = 0; i < k->ntops; i++) nameset_add(&p->names, k->tops[i].name);
    kir_names_bound(&k->locals, &p->names);
    kir_names_bound(&k->body, &p->names);
    p->names_known = true;
  }
  const char *name = arena_printf(p->arena, "%s_%s", buf, var);
  for (int k = 2; nameset_has(&p->names, name) || backend_reserved(p->backend, name); k++)
    name = arena_printf(p->arena, "%s_%s_%d", buf, var, k);
  nameset_add(&p->names, name);
  return name;
}

/* e with the loop variable var as 0, or NULL where var is inside an atom
 * the simplifier does not see into (a quotient, a remainder) */
static const Ix *without_var(Pass *p, const Ix *e, const char *var) {
  switch (e->kind) {
  case IX_CONST:
  case IX_EXPR: return e;
  case IX_VAR: return strcmp(e->name, var) == 0 ? ix_const(&p->ix, 0) : e;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL: {
    const Ix *a = without_var(p, e->a, var), *b = without_var(p, e->b, var);
    if (!a || !b) return NULL;
    return e->kind == IX_ADD ? ix_add(&p->ix, a, b) : e->kind == IX_SUB ? ix_sub(&p->ix, a, b) : ix_mul(&p->ix, a, b);
  }
  case IX_DIV:
  case IX_MOD: {
    bool mentions = false;
    (void)stable_in_body(p, e, var, &mentions);
    return mentions ? NULL : e;
  }
  }
  return NULL;
}

/* e is the loop's variable l, or l*c */
static bool is_step_of(const Ix *e, const char *var) {
  const Ix *v = e->kind == IX_MUL && e->b->kind == IX_CONST ? e->a : e;
  return v->kind == IX_VAR && strcmp(v->name, var) == 0;
}

/* var is a term of e's outermost sum (l or l*c): e has the shape already */
static bool stepped_at_top(const Ix *e, const char *var) {
  if (e->kind == IX_ADD) return stepped_at_top(e->a, var) || stepped_at_top(e->b, var);
  if (e->kind == IX_SUB) return stepped_at_top(e->a, var);
  return is_step_of(e, var);
}

/* The start of a loop's row as the part the loop does not change plus a
 * multiple of its variable, ((wg*8 + j)*K + i*512)*2 + l*2 rather than
 * ((wg*8 + j)*K + i*512 + l)*2: from the first LLVM 15 makes a pointer
 * that steps with the loop; from the second it widened the int index
 * every step (4 instructions a step in gemm's inner loop).  e itself if
 * it has that shape already or cannot be given it. */
static const Ix *invariant_plus_step(Pass *p, const Ix *e, const char *var) {
  if (stepped_at_top(e, var)) return e;
  const Ix *inv = without_var(p, e, var);
  if (!inv) return e;
  inv = ix_simplify(&p->ix, inv);
  const Ix *step = ix_simplify(&p->ix, ix_sub(&p->ix, e, inv));
  return is_step_of(step, var) ? ix_add(&p->ix, inv, step) : e;
}

static void rows_of_loop(Pass *p, KirStmt *loop) {
  KirBlock *body = &loop->loop.body;
  p->rows = (Vec){0};
  p->local = (NameSet){.arena = p->arena};
  kir_names_bound(body, &p->local);
  visit_block(p, body, loop->loop.var, false, false, false);
  KirStmt *after = NULL;
  bool any = false;
  /* A row read at one offset only shares nothing with itself, and keeps
   * its index (a reduction's xs[gid*N + i]), unless the loop has a row
   * read at several: a stencil's middle loop, whose rows above and below
   * (xs[max(gid - 1, 0)*N + gid_2*64 + i]) are read at one offset each
   * beside the centre's three.  Those get pointers too, as hand-written
   * stencil code has, since PoCL 3.1 (LLVM 15) sign-extended their int
   * indices every step (jacobi2dChunk's middle loop, in the machine code
   * of PoCL's cached kernel: 19 instructions for 8 outputs, 10 with the
   * pointers, the output's store then stepping with the loop too). */
  bool stencil = false;
  for (int i = 0; i < p->rows.len; i++) {
    const Row *r = p->rows.items[i];
    stencil |= r->sure && (r->lo != r->hi || r->strided);
  }
  for (int i = 0; i < p->rows.len; i++) {
    Row *r = p->rows.items[i];
    if ((r->lo == r->hi && !r->strided && !stencil) || !r->sure) continue; /* one offset: nothing shared */
    r->ptr = fresh_name(p, r->buf->name, loop->loop.var);
    const Ix *start = r->at == 0  ? r->base
                      : r->at > 0 ? ix_add(&p->ix, r->base, ix_const(&p->ix, r->at))
                                  : ix_sub(&p->ix, r->base, ix_const(&p->ix, -r->at));
    /* a row of vectors starts width scalars a vector in */
    if (r->width) start = ix_simplify(&p->ix, ix_mul(&p->ix, start, ix_const(&p->ix, r->width)));
    start = invariant_plus_step(p, start, loop->loop.var);
    KirStmt *d = kir_stmt(p->arena, KS_DECL);
    d->decl.space = KSP_PRIVATE;
    d->decl.type = pointer_into(p->arena, r->buf);
    d->decl.name = r->ptr;
    d->decl.array_len = -1;
    d->decl.init =
        kir_binary(p->arena, KB_PTR_ADD, kir_var(p->arena, r->buf->name, d->decl.type), kir_ix(p->arena, start));
    kir_insert_after(body, after, d);
    after = d;
    any = true;
  }
  if (any) {
    /* the declarations are not rewritten: they come first */
    KirBlock rest = {after->next, body->last};
    if (rest.first) visit_block(p, &rest, loop->loop.var, true, false, false);
  }
}

/* ---- blocks with no row to share ----
 *
 * A loop's body gets a pointer for a row read at two offsets, or at a
 * column of another row (rows_of_loop: its one-offset rows get theirs
 * only beside such a row): for a buffer that the body reads twice at
 * least, in the reads row_of takes.  Where no buffer is, the body's visit
 * finds no pointer and rewrites nothing, and is not made (issue 35: a
 * reduction's loop reads each input once a step).  The straight code is
 * visited as it is: its count would cost what its visit does. */

enum { COUNTED_BUFFERS = 16 };

/* the reads of e that row_of may take in a loop, counted by buffer (counts, by
 * index in Pass.bufs); *twice once a buffer has two */
static void count_reads(const Pass *p, const KirExpr *e, int *counts, bool *twice) {
  /* each kind's children walked by itself, the last one the loop's next
   * node (translation throughput, BENCHMARKS.md); whether a buffer is
   * read twice does not depend on the order */
  while (e && !*twice) {
    const KirExpr *from = NULL, *index = NULL;
    switch (e->kind) {
    case KE_INT:
    case KE_VAR:
    case KE_LIT:
    case KE_IX:
    case KE_QUERY: return;
    case KE_UNARY: e = e->un.operand; continue;
    case KE_BINARY:
      count_reads(p, e->bin.lhs, counts, twice);
      e = e->bin.rhs;
      continue;
    case KE_COND:
      count_reads(p, e->cond.test, counts, twice);
      count_reads(p, e->cond.then, counts, twice);
      e = e->cond.other;
      continue;
    case KE_MEMBER: e = e->member.base; continue;
    case KE_LANE: e = e->lane.base; continue;
    case KE_CALL:
    case KE_BUILTIN:
    case KE_CAST:
    case KE_VECTOR:
      for (int i = 0; i + 1 < e->call.nargs; i++) count_reads(p, e->call.args[i], counts, twice);
      e = e->call.nargs ? e->call.args[e->call.nargs - 1] : NULL;
      continue;
    case KE_INDEX: from = e->index.base, index = e->index.at; break;
    case KE_VLOAD: from = e->vload.ptr, index = e->vload.offset; break;
    }
    /* the buffer's name is most often the parameter's own string, and
     * another buffer's most often differs in its first character */
    if (from->kind == KE_VAR && index->kind == KE_IX)
      for (int i = 0; i < p->nbufs; i++) {
        const char *name = p->bufs[i].name;
        if ((name == from->name || (name[0] == from->name[0] && strcmp(name, from->name) == 0)) && ++counts[i] == 2)
          *twice = true;
      }
    count_reads(p, index, counts, twice);
    e = from;
  }
}

/* the statements visit_block visits */
static void count_block_reads(const Pass *p, const KirBlock *b, int *counts, bool *twice) {
  for (const KirStmt *s = b->first; s && !*twice; s = s->next) {
    DPIA_EXHAUSTIVE_BEGIN
    switch (s->kind) {
    case KS_DECL: count_reads(p, s->decl.init, counts, twice); break;
    case KS_ASSIGN: count_reads(p, s->assign.rhs, counts, twice); break;
    case KS_VSTORE: count_reads(p, s->vstore.value, counts, twice); break;
    case KS_EXPR: count_reads(p, s->expr, counts, twice); break;
    case KS_IF:
      count_reads(p, s->cond.cond, counts, twice);
      count_block_reads(p, &s->cond.body, counts, twice);
      break;
    case KS_BLOCK: count_block_reads(p, &s->block.body, counts, twice); break;
    case KS_FOR:
    case KS_BARRIER:
    case KS_COMMENT:
    case KS_RUN: break; /* visit_block visits no run (in no loop body: partition.c) */
    }
    DPIA_EXHAUSTIVE_END
  }
}

/* Can b, a loop's body, share a row?  Always where the shortcut is not
 * taken (CodegenOptions.no_shortcuts) */
static bool may_share_rows(Pass *p, const KirBlock *b) {
  if (p->no_shortcuts || p->nbufs > COUNTED_BUFFERS) return true;
  int counts[COUNTED_BUFFERS] = {0};
  bool twice = false;
  count_block_reads(p, b, counts, &twice);
  if (!twice) p->skipped = true;
  return twice;
}

static void walk_loops(Pass *p, KirBlock *b) {
  for (KirStmt *s = b->first; s; s = s->next) {
    KirBlock *inner = kir_body(s);
    if (!inner) continue;
    walk_loops(p, inner);
    if (s->kind == KS_FOR && may_share_rows(p, &s->loop.body)) rows_of_loop(p, s);
  }
}

/* names declared more than once or assigned anywhere in b (a loop's
 * variable is assigned by its step) */
static void note_unstable(const KirBlock *b, NameSet *declared, NameSet *bad) {
  for (const KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_DECL) {
      if (nameset_has(declared, s->decl.name)) nameset_add(bad, s->decl.name);
      nameset_add(declared, s->decl.name);
    }
    if (s->kind == KS_FOR) nameset_add(bad, s->loop.var);
    if (s->kind == KS_ASSIGN && s->assign.lhs->kind == KE_VAR) nameset_add(bad, s->assign.lhs->name);
    if (s->kind == KS_RUN) note_unstable(&s->run.body, declared, bad); /* assigns what its template does */
    const KirBlock *inner = kir_body((KirStmt *)s);
    if (inner) note_unstable(inner, declared, bad);
  }
}

static void known_stable(Pass *p) {
  if (p->stable_known) return;
  p->stable_known = true;
  const KirKernel *k = p->k;
  const KirBlock *body = p->straight_body;
  NameSet declared = {.arena = p->arena}, bad = {.arena = p->arena};
  note_unstable(&k->locals, &declared, &bad);
  note_unstable(body, &declared, &bad);
  p->stable = (NameSet){.arena = p->arena};
  p->params = (NameSet){.arena = p->arena};
  for (int i = 0; i < k->nparams; i++) {
    if (nameset_has(&bad, k->params[i].name)) continue;
    nameset_add(&p->stable, k->params[i].name);
    if ((KParamRole)k->params[i].role == KP_NAT) nameset_add(&p->params, k->params[i].name);
  }
  for (const KirStmt *s = body->first; s; s = s->next)
    if (s->kind == KS_DECL && !nameset_has(&bad, s->decl.name)) nameset_add(&p->stable, s->decl.name);
}

static void rows_of_kernel(Pass *p, const KirKernel *k, KirBlock *body) {
  p->straight_body = body;
  p->straight = true;
  p->rows = (Vec){0};
  visit_block(p, body, NULL, false, false, true);
  /* the pointers go together, before the first statement reading any of
   * them, when what they mention is declared by then (else each before
   * its own first read) */
  KirStmt *first = NULL;
  for (KirStmt *s = body->first; s && !first; s = s->next)
    for (int i = 0; i < p->rows.len && !first; i++) {
      const Row *r = p->rows.items[i];
      if (r->varied && r->sure && r->first == s) first = s;
    }
  bool wanted = false; /* a row with a pointer: most kernels have none */
  for (int i = 0; i < p->rows.len; i++) {
    const Row *r = p->rows.items[i];
    wanted = wanted || (r->varied && r->sure);
  }
  if (!wanted) {
    p->straight = false;
    return;
  }
  NameSet declared_before = {.arena = p->arena};
  for (int i = 0; i < k->nparams; i++) nameset_add(&declared_before, k->params[i].name);
  for (KirStmt *s = body->first; s && s != first; s = s->next)
    if (s->kind == KS_DECL) nameset_add(&declared_before, s->decl.name);
  bool any = false;
  for (int i = 0; i < p->rows.len; i++) {
    Row *r = p->rows.items[i];
    if (!r->varied || !r->sure) continue; /* one column: nothing shared */
    if (stable_ix((Stable){&declared_before, false, NULL}, r->base)) r->first = first;
    r->ptr = fresh_name(p, r->buf->name, "row");
    KirStmt *d = kir_stmt(p->arena, KS_DECL);
    d->decl.space = KSP_PRIVATE;
    d->decl.type = pointer_into(p->arena, r->buf);
    d->decl.name = r->ptr;
    d->decl.array_len = -1;
    d->decl.init =
        kir_binary(p->arena, KB_PTR_ADD, kir_var(p->arena, r->buf->name, d->decl.type), kir_ix(p->arena, r->base));
    /* before the statement, and before the comments that announce it */
    KirStmt *before = NULL;
    for (KirStmt *s = body->first; s && s != r->first; s = s->next)
      if (s->kind != KS_COMMENT || (s->next != r->first && s->next->kind != KS_COMMENT)) before = s;
    kir_insert_after(body, before, d);
    any = true;
  }
  if (any) visit_block(p, body, NULL, true, false, true);
  p->straight = false;
}

/* ---- runs of steps (KS_RUN) ---- */

/* does index e name a size parameter, or hold an expression atom? */
static bool ix_may_row(Pass *p, const Ix *e) {
  switch (e->kind) {
  case IX_CONST: return false;
  case IX_VAR: /* a size parameter, stable or not (row_param asks more) */
    for (int i = 0; i < p->k->nparams; i++)
      if ((KParamRole)p->k->params[i].role == KP_NAT && strcmp(p->k->params[i].name, e->name) == 0) return true;
    return false;
  case IX_EXPR: return true;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: return ix_may_row(p, e->a) || ix_may_row(p, e->b);
  }
  return true;
}

static bool expr_may_row(Pass *p, const KirExpr *e) {
  if (e->kind == KE_IX) return ix_may_row(p, e->ix);
  const KirExpr *buf[3], *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++)
    if (expr_may_row(p, kids[i])) return true;
  return false;
}

/* The runs of b (outside loops: partition.c wrote out those in loops)
 * whose template has an index that names a size parameter (or holds an
 * atom that may), written out: only such an index has a row (row_term),
 * so that the other runs' reads are of no row, neither note one nor go
 * through one, and the pass leaves them as they are (visit_block). */
static void straight_runs(Pass *p, KirBlock *b) {
  KirStmt *prev = NULL;
  for (KirStmt *s = b->first; s;) {
    bool may_row = false;
    for (const KirStmt *t = s->kind == KS_RUN ? s->run.body.first : NULL; t && !may_row; t = t->next)
      may_row = t->kind == KS_ASSIGN   ? expr_may_row(p, t->assign.lhs) || expr_may_row(p, t->assign.rhs)
                : t->kind == KS_VSTORE ? expr_may_row(p, t->vstore.value) || expr_may_row(p, t->vstore.offset) ||
                                             expr_may_row(p, t->vstore.ptr)
                                       : false;
    if (may_row) {
      s = kir_run_write_out(p->arena, b, prev, s);
      continue;
    }
    KirBlock *inner = kir_body(s);
    if (inner) straight_runs(p, inner);
    prev = s;
    s = s->next;
  }
}

void kir_row_pointers(Arena *a, const Backend *backend, KirKernel *k, bool no_shortcuts) {
  Pass p = {.arena = a,
            .backend = backend,
            .k = k,
            .names = {.arena = a},
            .sizes = {.arena = a},
            .no_shortcuts = no_shortcuts};
  ix_init(&p.ix, a);
  p.bufs = NEWARRAY(a, Buffer, k->nparams + 1);
  for (int i = 0; i < k->nparams; i++) {
    const KirParam *q = &k->params[i];
    KParamRole role = (KParamRole)q->role;
    if (role == KP_NAT) nameset_add(&p.sizes, q->name);
    if (role == KP_INPUT || role == KP_OUTPUT || role == KP_TEMP)
      p.bufs[p.nbufs++] = (Buffer){q->name, q->type, KSP_GLOBAL, role == KP_INPUT};
    else if (role == KP_LOCAL && !q->is_volatile) /* a volatile buffer keeps its indices (Storage.is_volatile) */
      p.bufs[p.nbufs++] = (Buffer){q->name, q->type, KSP_LOCAL, false};
  }
  int nlocals = 0;
  for (const KirStmt *s = k->locals.first; s; s = s->next) nlocals++;
  Buffer *all = NEWARRAY(a, Buffer, p.nbufs + nlocals + 1);
  memcpy(all, p.bufs, sizeof *all * (size_t)p.nbufs);
  p.bufs = all;
  for (const KirStmt *s = k->locals.first; s; s = s->next)
    if (s->kind == KS_DECL && s->decl.space == KSP_LOCAL && s->decl.array_len >= 0 && !s->decl.is_const &&
        !s->decl.is_volatile)
      p.bufs[p.nbufs++] = (Buffer){s->decl.name, s->decl.type, KSP_LOCAL, false};
  if (k->runs_made) straight_runs(&p, &k->body);
  walk_loops(&p, &k->body);
  rows_of_kernel(&p, k, &k->body);
  if (p.skipped) k->shortcuts |= KIR_SHORTCUT_ROWS;
}
