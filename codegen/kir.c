/* kir.c: building and walking the kernel IR (kir.h). */
#include "kir.h"

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

const KirExpr *kir_text(Arena *a, const char *text, int prec) {
  KirExpr *e = new_expr(a, KE_TEXT);
  e->text.text = text;
  e->text.prec = prec;
  return e;
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
