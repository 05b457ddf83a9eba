/* partition_work.c: whether the loop partitioning of partition.c has
 * anything to do in a kernel (kir_partition_has_work), a scan of its
 * statements and expressions that the pass makes before its walk. */
#include "kir.h"

/* ---- kernels with nothing to decide ----
 *
 * What the pass changes comes of a test: an expression it decides (a
 * comparison, an equality, && or ||, a choice, !, an int min, max or
 * clamp: decide's cases, the only nodes it replaces; every other node is
 * rebuilt only where a child changed), a loop split where such a test in
 * its body changes (note_test's are among them), an if's test (decided,
 * or facts for its body), a bool declared with a value whose reads it
 * decides (push_bool), a self-assignment it drops, and the scope alone
 * in a block it flattens.  A kernel with none of them (the loop variants
 * of issue 35, whose tests lowering never made: no padding, no guard)
 * goes through the walk unchanged: the walk is not made. */

static bool decidable_expr(const KirExpr *e);

/* an index's expression atoms hold a decidable node */
static bool decidable_ix(const Ix *e) {
  for (; e && e->exprs; e = e->b) {
    if (e->kind == IX_EXPR) return decidable_expr(e->expr);
    if (e->a && e->a->exprs && decidable_ix(e->a)) return true;
  }
  return false;
}

/* Each kind's children walked by itself, the last one the loop's next
 * node, not a call (translation throughput, BENCHMARKS.md): whether any
 * node is decidable does not depend on the order */
static bool decidable_expr(const KirExpr *e) {
  while (e) {
    DPIA_EXHAUSTIVE_BEGIN
    switch (e->kind) {
    case KE_INT:
    case KE_VAR:
    case KE_LIT:
    case KE_QUERY: return false;
    case KE_IX: return decidable_ix(e->ix);
    case KE_COND: return true;
    case KE_UNARY:
      if (e->un.op == '!') return true;
      e = e->un.operand;
      break;
    case KE_BINARY:
      switch (e->bin.op) {
      case KB_MUL:
      case KB_DIV:
      case KB_MOD:
      case KB_ADD:
      case KB_SUB:
      case KB_PTR_ADD: break;
      case KB_LT:
      case KB_LE:
      case KB_GT:
      case KB_GE:
      case KB_EQ:
      case KB_NE:
      case KB_AND:
      case KB_ALL:
      case KB_OR: return true;
      }
      if (decidable_expr(e->bin.lhs)) return true;
      e = e->bin.rhs;
      break;
    case KE_INDEX:
      if (decidable_expr(e->index.base)) return true;
      e = e->index.at;
      break;
    case KE_MEMBER: e = e->member.base; break;
    case KE_LANE: e = e->lane.base; break;
    case KE_VLOAD:
      if (decidable_expr(e->vload.offset)) return true;
      e = e->vload.ptr;
      break;
    case KE_BUILTIN:
      if (e->call.builtin == KBI_MIN || e->call.builtin == KBI_MAX || e->call.builtin == KBI_CLAMP) return true;
      /* fall through */
    case KE_CALL:
    case KE_CAST:
    case KE_VECTOR:
      for (int i = 0; i + 1 < e->call.nargs; i++)
        if (decidable_expr(e->call.args[i])) return true;
      e = e->call.nargs ? e->call.args[e->call.nargs - 1] : NULL;
      break;
    }
    DPIA_EXHAUSTIVE_END
  }
  return false;
}

/* a decidable node in the expressions of s (kir_map_exprs's) */
static bool decidable_stmt_exprs(const KirStmt *s) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_DECL: return decidable_expr(s->decl.init);
  case KS_ASSIGN: return decidable_expr(s->assign.lhs) || decidable_expr(s->assign.rhs);
  case KS_VSTORE:
    return decidable_expr(s->vstore.value) || decidable_expr(s->vstore.offset) || decidable_expr(s->vstore.ptr);
  case KS_FOR: return decidable_expr(s->loop.init) || decidable_expr(s->loop.bound) || decidable_expr(s->loop.step);
  case KS_IF: return decidable_expr(s->cond.cond);
  case KS_EXPR: return decidable_expr(s->expr);
  case KS_BLOCK:
  case KS_BARRIER:
  case KS_COMMENT:
  case KS_RUN: return false; /* a run's template: kir_map_exprs maps none */
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* b holds something the pass may change (above).  A run (KS_RUN) in a
 * loop's body is written out by the pass (walk_block), so changed; one
 * outside loops only where its template holds something decidable
 * (run_decided) */
static bool decidable_block(const KirBlock *b, bool in_loop) {
  if (b->first && b->first == b->last && b->first->kind == KS_BLOCK) return true;
  for (KirStmt *s = b->first; s; s = s->next) {
    bool v;
    if (s->kind == KS_RUN && (in_loop || decidable_block(&s->run.body, in_loop))) return true;
    if (s->kind == KS_IF) return true;
    if (s->kind == KS_DECL && s->decl.init && kir_is_truth(s->decl.init, &v)) return true;
    if (s->kind == KS_ASSIGN && kir_expr_equal(s->assign.lhs, s->assign.rhs)) return true;
    if (decidable_stmt_exprs(s)) return true;
    const KirBlock *inner = kir_body(s);
    if (inner && decidable_block(inner, in_loop || s->kind == KS_FOR)) return true;
  }
  return false;
}

bool kir_partition_has_work(const KirBlock *body) { return decidable_block(body, false); }
