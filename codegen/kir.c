/* kir.c: building and walking the kernel IR (kir.h). */
#include "kir.h"

#include <string.h>

const char *const kir_binop_text[] = {
#define X(id, text, prec) text,
    KIR_BINOPS(X)
#undef X
};

const int kir_binop_prec[] = {
#define X(id, text, prec) prec,
    KIR_BINOPS(X)
#undef X
};

static KirExpr *new_expr(Arena *a, KirExprKind kind) {
  KirExpr *e = NEW(a, KirExpr);
  *e = (KirExpr){.kind = kind};
  return e;
}

const KirExpr *kir_lit(Arena *a, const char *text) {
  KirExpr *e = new_expr(a, KE_LIT);
  e->text = text;
  return e;
}

const KirExpr *kir_ix(Arena *a, const Ix *ix) {
  KirExpr *e = new_expr(a, KE_IX);
  e->ix = ix;
  return e;
}

const KirExpr *kir_unary(Arena *a, char op, const KirExpr *operand) {
  KirExpr *e = new_expr(a, KE_UNARY);
  e->un.op = op;
  e->un.operand = operand;
  return e;
}

const KirExpr *kir_cond(Arena *a, const KirExpr *test, const KirExpr *then, const KirExpr *other) {
  KirExpr *e = new_expr(a, KE_COND);
  e->cond.test = test;
  e->cond.then = then;
  e->cond.other = other;
  return e;
}

const KirExpr *kir_index(Arena *a, const KirExpr *base, const KirExpr *at) {
  KirExpr *e = new_expr(a, KE_INDEX);
  e->index.base = base;
  e->index.at = at;
  return e;
}

const KirExpr *kir_member(Arena *a, const KirExpr *base, const char *suffix) {
  KirExpr *e = new_expr(a, KE_MEMBER);
  e->member.base = base;
  e->member.suffix = suffix;
  return e;
}

const KirExpr *kir_call(Arena *a, KirExprKind kind, const char *fn, int n, const KirExpr *const *args) {
  KirExpr *e = new_expr(a, kind);
  e->call.fn = fn;
  e->call.nargs = n;
  const KirExpr **copy = NEWARRAY(a, const KirExpr *, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) copy[i] = args[i];
  e->call.args = copy;
  return e;
}

enum { PREC_UNARY_ = 14, PREC_POSTFIX_ = 16, PREC_COND_ = 3 };

int kir_prec(const KirExpr *e) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_INT: return e->value < 0 ? PREC_UNARY_ : PREC_POSTFIX_;
  case KE_IX: {
    int64_t v;
    switch (e->ix->kind) {
    case IX_ADD:
    case IX_SUB: return kir_binop_prec[KB_ADD];
    case IX_MUL:
    case IX_DIV:
    case IX_MOD: return kir_binop_prec[KB_MUL];
    case IX_CONST: return ix_const_value(e->ix, &v) && v < 0 ? PREC_UNARY_ : PREC_POSTFIX_;
    case IX_VAR: return PREC_POSTFIX_;
    }
    return PREC_POSTFIX_;
  }
  case KE_VAR:
  case KE_LIT:
  case KE_QUERY:
  case KE_INDEX:
  case KE_MEMBER:
  case KE_CALL: return PREC_POSTFIX_;
  case KE_UNARY:
  case KE_CAST:
  case KE_VECTOR: return PREC_UNARY_;
  case KE_BINARY: return kir_binop_prec[e->bin.op];
  case KE_COND: return PREC_COND_;
  }
  DPIA_EXHAUSTIVE_END
  return PREC_POSTFIX_;
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

bool kir_expr_equal(const KirExpr *a, const KirExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  DPIA_EXHAUSTIVE_BEGIN
  switch (a->kind) {
  case KE_INT: return a->value == b->value;
  case KE_VAR: return same_text(a->name, b->name);
  case KE_LIT: return same_text(a->text, b->text);
  case KE_IX: return ix_equal(a->ix, b->ix);
  case KE_QUERY: return a->query.query == b->query.query && a->query.dim == b->query.dim;
  case KE_UNARY: return a->un.op == b->un.op && kir_expr_equal(a->un.operand, b->un.operand);
  case KE_BINARY:
    return a->bin.op == b->bin.op && kir_expr_equal(a->bin.lhs, b->bin.lhs) && kir_expr_equal(a->bin.rhs, b->bin.rhs);
  case KE_COND:
    return kir_expr_equal(a->cond.test, b->cond.test) && kir_expr_equal(a->cond.then, b->cond.then) &&
           kir_expr_equal(a->cond.other, b->cond.other);
  case KE_INDEX: return kir_expr_equal(a->index.base, b->index.base) && kir_expr_equal(a->index.at, b->index.at);
  case KE_MEMBER:
    return same_text(a->member.suffix, b->member.suffix) && kir_expr_equal(a->member.base, b->member.base);
  case KE_CALL:
  case KE_CAST:
  case KE_VECTOR:
    if (!same_text(a->call.fn, b->call.fn) || a->call.nargs != b->call.nargs) return false;
    for (int i = 0; i < a->call.nargs; i++)
      if (!kir_expr_equal(a->call.args[i], b->call.args[i])) return false;
    return true;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

const KirExpr *kir_int(Arena *a, int64_t value) {
  KirExpr *e = new_expr(a, KE_INT);
  e->value = value;
  return e;
}

const KirExpr *kir_var(Arena *a, const char *name) {
  KirExpr *e = new_expr(a, KE_VAR);
  e->name = name;
  return e;
}

const KirExpr *kir_query(Arena *a, KirQuery q, int dim) {
  KirExpr *e = new_expr(a, KE_QUERY);
  e->query.query = q;
  e->query.dim = dim;
  return e;
}

const KirExpr *kir_binary(Arena *a, KirBinop op, const KirExpr *lhs, const KirExpr *rhs) {
  KirExpr *e = new_expr(a, KE_BINARY);
  e->bin.op = op;
  e->bin.lhs = lhs;
  e->bin.rhs = rhs;
  return e;
}

const KirExpr *kir_and(Arena *a, const KirExpr *lhs, const KirExpr *rhs) {
  return lhs ? kir_binary(a, KB_AND, lhs, rhs) : rhs;
}

KirStmt *kir_stmt(Arena *a, KirStmtKind kind) {
  KirStmt *s = NEW(a, KirStmt);
  *s = (KirStmt){.kind = kind};
  return s;
}

void kir_append(KirBlock *b, KirStmt *s) {
  s->next = NULL;
  if (b->last)
    b->last->next = s;
  else
    b->first = s;
  b->last = s;
}

void kir_insert_after(KirBlock *b, KirStmt *after, KirStmt *s) {
  if (!after) {
    s->next = b->first;
    b->first = s;
  } else {
    s->next = after->next;
    after->next = s;
  }
  if (!s->next) b->last = s;
}

KirBlock *kir_body(KirStmt *s) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_FOR: return &s->loop.body;
  case KS_IF: return &s->cond.body;
  case KS_BLOCK: return &s->block.body;
  case KS_DECL:
  case KS_ASSIGN:
  case KS_VSTORE:
  case KS_BARRIER:
  case KS_COMMENT: return NULL;
  }
  DPIA_EXHAUSTIVE_END
  return NULL;
}

static void stepping_loops(const KirBlock *b, unsigned *global_steps, unsigned *local_steps) {
  for (KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_FOR && s->loop.step->kind == KE_QUERY) {
      int d = s->loop.step->query.dim;
      switch (s->loop.step->query.query) {
      case KQ_GLOBAL_SIZE:
      case KQ_NUM_GROUPS: *global_steps |= 1u << d; break;
      case KQ_LOCAL_SIZE: *local_steps |= 1u << d; break;
      case KQ_GLOBAL_ID:
      case KQ_GROUP_ID:
      case KQ_LOCAL_ID: INTERNAL("a loop stepping by a work-item id");
      }
    }
    KirBlock *body = kir_body(s);
    if (body) stepping_loops(body, global_steps, local_steps);
  }
}

void kir_stepping_loops(const KirKernel *k, unsigned *global_steps, unsigned *local_steps) {
  *global_steps = *local_steps = 0;
  stepping_loops(&k->body, global_steps, local_steps);
}
