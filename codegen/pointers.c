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
 * The value of every read is unchanged: xs_i[c] is xs[e + c] for any e
 * and c.  e may mention only names that the body does not declare or
 * assign (loop variables, work-item ids, sizes), so that the pointer can
 * be computed where the body begins. */
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

/* The reads of one buffer at one index e plus constants. */
typedef struct Row {
  const Buffer *buf;
  const Ix *base;
  int64_t lo, hi;  /* the least and greatest offset read */
  bool sure;       /* some read happens whenever the body runs */
  int64_t at;      /* the least offset of such a read: where the pointer points */
  const char *ptr; /* the pointer's name, once it is declared */
} Row;

typedef struct Pass {
  Arena *arena;
  int nbufs;
  Buffer *bufs;
  NameSet names; /* every name of the kernel, and those made here */
  Vec rows;      /* Row *, of the loop body being rewritten */
  NameSet local; /* names the body declares or assigns */
  IxCtx ix;
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

/* e's atoms are all variables that the body neither declares nor assigns
 * (no IX_EXPR: a clamp or a gather may read what the body writes);
 * *mentions: one of them is var */
static bool stable_in_body(const Pass *p, const Ix *e, const char *var, bool *mentions) {
  if (e->kind == IX_CONST) return true;
  if (e->kind == IX_VAR) {
    if (nameset_has(&p->local, e->name)) return false;
    if (strcmp(e->name, var) == 0) *mentions = true;
    return true;
  }
  if (e->kind == IX_ADD || e->kind == IX_SUB || e->kind == IX_MUL || e->kind == IX_DIV || e->kind == IX_MOD)
    return stable_in_body(p, e->a, var, mentions) && stable_in_body(p, e->b, var, mentions);
  return false; /* an atom that is an expression */
}

/* the read buf[at], if it can go through a row pointer: its row (noted
 * with its offset when add; guarded: the read happens only under a test) */
static Row *row_of(Pass *p, const KirExpr *e, const char *var, bool add, bool guarded, int64_t *offset) {
  if (e->kind != KE_INDEX || e->index.base->kind != KE_VAR || e->index.at->kind != KE_IX) return NULL;
  const Buffer *buf = buffer_named(p, e->index.base->name);
  if (!buf) return NULL;
  const Ix *base;
  split_offset(e->index.at->ix, &base, offset);
  bool mentions = false;
  if (!stable_in_body(p, base, var, &mentions) || !mentions) return NULL;
  Row *r = NULL;
  for (int i = 0; i < p->rows.len && !r; i++) {
    Row *q = p->rows.items[i];
    if (q->buf == buf && ix_equal(q->base, base)) r = q;
  }
  if (!add) return r;
  if (!r) {
    r = NEW(p->arena, Row);
    *r = (Row){.buf = buf, .base = base, .lo = *offset, .hi = *offset, .at = *offset};
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
  Row *r = row_of(p, e, var, !rewrite, guarded, &offset);
  if (r && rewrite && r->ptr) return kir_index(p->arena, kir_var(p->arena, r->ptr), kir_int(p->arena, offset - r->at));
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
    return b == e->member.base ? e : kir_member(p->arena, b, e->member.name);
  }
  case KE_LANE: {
    const KirExpr *b = visit(p, e->lane.base, var, rewrite, guarded);
    return b == e->lane.base ? e : kir_lane(p->arena, b, e->lane.lane, e->lane.width, e->lane.named);
  }
  case KE_VLOAD: {
    const KirExpr *o = visit(p, e->vload.offset, var, rewrite, guarded),
                  *q = visit(p, e->vload.ptr, var, rewrite, guarded);
    return o == e->vload.offset && q == e->vload.ptr ? e : kir_vload(p->arena, e->vload.width, o, q);
  }
  case KE_CALL:
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
    return kir_call(p->arena, e->call.fn, e->call.nargs, args);
  }
  }
  DPIA_EXHAUSTIVE_END
  return e;
}

/* the reads of a loop body's statements, not those of loops inside it
 * (their own bodies get their own rows) */
static void visit_block(Pass *p, KirBlock *b, const char *var, bool rewrite, bool guarded) {
  for (KirStmt *s = b->first; s; s = s->next) {
    DPIA_EXHAUSTIVE_BEGIN
    switch (s->kind) {
    case KS_DECL: s->decl.init = visit(p, s->decl.init, var, rewrite, guarded); break;
    case KS_ASSIGN: s->assign.rhs = visit(p, s->assign.rhs, var, rewrite, guarded); break;
    case KS_VSTORE: s->vstore.value = visit(p, s->vstore.value, var, rewrite, guarded); break;
    case KS_IF:
      s->cond.cond = visit(p, s->cond.cond, var, rewrite, guarded);
      visit_block(p, &s->cond.body, var, rewrite, true);
      break;
    case KS_BLOCK: visit_block(p, &s->block.body, var, rewrite, guarded); break;
    case KS_FOR:
    case KS_BARRIER:
    case KS_COMMENT: break;
    }
    DPIA_EXHAUSTIVE_END
  }
}

/* names a block declares or assigns (a loop's variable is declared) */
static void note_local(Pass *p, const KirBlock *b) {
  for (const KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_DECL) nameset_add(&p->local, s->decl.name);
    if (s->kind == KS_FOR) nameset_add(&p->local, s->loop.var);
    if (s->kind == KS_ASSIGN && s->assign.lhs->kind == KE_VAR) nameset_add(&p->local, s->assign.lhs->name);
    const KirBlock *inner = kir_body((KirStmt *)s);
    if (inner) note_local(p, inner);
  }
}

static const char *fresh_name(Pass *p, const char *buf, const char *var) {
  const char *name = arena_printf(p->arena, "%s_%s", buf, var);
  for (int k = 2; nameset_has(&p->names, name) || backend_opencl.reserved(name); k++)
    name = arena_printf(p->arena, "%s_%s_%d", buf, var, k);
  nameset_add(&p->names, name);
  return name;
}

static void rows_of_loop(Pass *p, KirStmt *loop) {
  KirBlock *body = &loop->loop.body;
  p->rows = (Vec){0};
  p->local = (NameSet){.arena = p->arena};
  note_local(p, body);
  visit_block(p, body, loop->loop.var, false, false);
  KirStmt *after = NULL;
  bool any = false;
  for (int i = 0; i < p->rows.len; i++) {
    Row *r = p->rows.items[i];
    if (r->lo == r->hi || !r->sure) continue; /* one offset: nothing shared */
    r->ptr = fresh_name(p, r->buf->name, loop->loop.var);
    const Ix *start = r->at == 0  ? r->base
                      : r->at > 0 ? ix_add(&p->ix, r->base, ix_const(&p->ix, r->at))
                                  : ix_sub(&p->ix, r->base, ix_const(&p->ix, -r->at));
    KirStmt *d = kir_stmt(p->arena, KS_DECL);
    d->decl.space = KSP_PRIVATE;
    d->decl.type = kir_pointer_type(p->arena, r->buf->elem, r->buf->space, r->buf->read_only);
    d->decl.name = r->ptr;
    d->decl.array_len = -1;
    d->decl.init = kir_binary(p->arena, KB_PTR_ADD, kir_var(p->arena, r->buf->name), kir_ix(p->arena, start));
    kir_insert_after(body, after, d);
    after = d;
    any = true;
  }
  if (any) {
    /* the declarations are not rewritten: they come first */
    KirBlock rest = {after->next, body->last};
    if (rest.first) visit_block(p, &rest, loop->loop.var, true, false);
  }
}

static void note_names(Pass *p, const KirBlock *b) {
  for (const KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_DECL) nameset_add(&p->names, s->decl.name);
    if (s->kind == KS_FOR) nameset_add(&p->names, s->loop.var);
    const KirBlock *inner = kir_body((KirStmt *)s);
    if (inner) note_names(p, inner);
  }
}

static void walk_loops(Pass *p, KirBlock *b) {
  for (KirStmt *s = b->first; s; s = s->next) {
    KirBlock *inner = kir_body(s);
    if (!inner) continue;
    walk_loops(p, inner);
    if (s->kind == KS_FOR) rows_of_loop(p, s);
  }
}

void kir_row_pointers(Arena *a, KirKernel *k) {
  Pass p = {.arena = a, .names = {.arena = a}};
  ix_init(&p.ix, a);
  p.bufs = NEWARRAY(a, Buffer, k->nparams + 1);
  for (int i = 0; i < k->nparams; i++) {
    const KirParam *q = &k->params[i];
    nameset_add(&p.names, q->name);
    KParamRole role = (KParamRole)q->role;
    if (role == KP_INPUT || role == KP_OUTPUT || role == KP_TEMP)
      p.bufs[p.nbufs++] = (Buffer){q->name, q->type, KSP_GLOBAL, role == KP_INPUT};
    else if (role == KP_LOCAL)
      p.bufs[p.nbufs++] = (Buffer){q->name, q->type, KSP_LOCAL, false};
  }
  int nlocals = 0;
  for (const KirStmt *s = k->locals.first; s; s = s->next) nlocals++;
  Buffer *all = NEWARRAY(a, Buffer, p.nbufs + nlocals + 1);
  memcpy(all, p.bufs, sizeof *all * (size_t)p.nbufs);
  p.bufs = all;
  for (const KirStmt *s = k->locals.first; s; s = s->next)
    if (s->kind == KS_DECL && s->decl.space == KSP_LOCAL && s->decl.array_len >= 0 && !s->decl.is_const)
      p.bufs[p.nbufs++] = (Buffer){s->decl.name, s->decl.type, KSP_LOCAL, false};
  for (int i = 0; i < k->ntops; i++) nameset_add(&p.names, k->tops[i].name);
  note_names(&p, &k->locals);
  note_names(&p, &k->body);
  walk_loops(&p, &k->body);
}
