/* kir.c: building and walking the kernel IR (kir.h). */
#include "kir.h"

#include <string.h>

const char *const kir_binop_text[] = {
#define X(id, text, prec) text,
    KIR_BINOPS(X)
#undef X
};

const int kir_builtin_arity[] = {
#define X(id, arity) arity,
    KIR_BUILTINS(X)
#undef X
};

const int kir_binop_prec[] = {
#define X(id, text, prec) prec,
    KIR_BINOPS(X)
#undef X
};

static KirExpr *new_expr(Arena *a, KirExprKind kind, const KirType *type) {
  KirExpr *e = NEW(a, KirExpr);
  *e = (KirExpr){.kind = kind, .type = type};
  return e;
}

/* ---- types ---- */

const KirType *kir_scalar_type(Arena *a, ScalarKind s, int width) {
  KirType *t = NEW(a, KirType);
  *t = (KirType){.kind = KTY_SCALAR, .scalar = s, .width = width};
  return t;
}

const KirType *kir_scalar1(ScalarKind s) {
  static const KirType scalars[] = {
      [SC_INT] = {.kind = KTY_SCALAR, .scalar = SC_INT, .width = 1},
      [SC_FLOAT] = {.kind = KTY_SCALAR, .scalar = SC_FLOAT, .width = 1},
      [SC_DOUBLE] = {.kind = KTY_SCALAR, .scalar = SC_DOUBLE, .width = 1},
      [SC_BOOL] = {.kind = KTY_SCALAR, .scalar = SC_BOOL, .width = 1},
  };
  return &scalars[s];
}

/* t is a scalar or vector type (not a struct, not a pointer) */
static bool numeric(const KirType *t) { return t && t->kind == KTY_SCALAR; }

const KirType *kir_struct_type(Arena *a, const char *name) {
  KirType *t = NEW(a, KirType);
  *t = (KirType){.kind = KTY_STRUCT, .name = name};
  return t;
}

const KirType *kir_pointer_type(Arena *a, const KirType *to, KirSpace space, bool is_const) {
  KirType *t = NEW(a, KirType);
  *t = (KirType){.kind = KTY_POINTER, .to = to, .space = space, .is_const = is_const};
  return t;
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

bool kir_type_equal(const KirType *a, const KirType *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  DPIA_EXHAUSTIVE_BEGIN
  switch (a->kind) {
  case KTY_SCALAR: return a->scalar == b->scalar && a->width == b->width;
  case KTY_STRUCT: return same_text(a->name, b->name);
  case KTY_POINTER: return a->space == b->space && a->is_const == b->is_const && kir_type_equal(a->to, b->to);
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

static int compare_int(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int compare_text(const char *a, const char *b) {
  if (a == b) return 0;
  if (!a || !b) return a ? 1 : -1;
  return strcmp(a, b);
}

static int compare_type(const KirType *a, const KirType *b) {
  if (a == b) return 0;
  if (!a || !b) return a ? 1 : -1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  int c;
  DPIA_EXHAUSTIVE_BEGIN
  switch (a->kind) {
  case KTY_SCALAR: return (c = compare_int(a->scalar, b->scalar)) ? c : compare_int(a->width, b->width);
  case KTY_STRUCT: return compare_text(a->name, b->name);
  case KTY_POINTER:
    if ((c = compare_int(a->space, b->space)) || (c = compare_int(a->is_const, b->is_const))) return c;
    return compare_type(a->to, b->to);
  }
  DPIA_EXHAUSTIVE_END
  return 0;
}

/* ---- expressions ---- */

const KirExpr *kir_lit(Arena *a, KirLit lit) {
  KirExpr *e = new_expr(a, KE_LIT, kir_scalar1(lit.scalar));
  e->lit = lit;
  return e;
}

const KirExpr *kir_ix(Arena *a, const Ix *ix) {
  KirExpr *e = new_expr(a, KE_IX, kir_scalar1(SC_INT));
  e->ix = ix;
  return e;
}

/* -x and ~x: x's type; !x: a bool (the language's not); &x: a pointer to
 * x's type, in private memory (the address of a private vector variable,
 * read lane by lane: access.c) */
static const KirType *unary_type(Arena *a, char op, const KirExpr *operand) {
  if (op == '!') return kir_scalar1(SC_BOOL);
  if (op == '&') return kir_pointer_type(a, operand->type, KSP_PRIVATE, false);
  return operand->type;
}

const KirExpr *kir_unary(Arena *a, char op, const KirExpr *operand) {
  KirExpr *e = new_expr(a, KE_UNARY, unary_type(a, op, operand));
  e->un.op = op;
  e->un.operand = operand;
  return e;
}

/* the wider of two operands' types (a scalar beside a vector is broadcast) */
static const KirType *wider(const KirType *l, const KirType *r) {
  return numeric(l) && numeric(r) && r->width > l->width ? r : l;
}

const KirExpr *kir_cond(Arena *a, const KirExpr *test, const KirExpr *then, const KirExpr *other) {
  KirExpr *e = new_expr(a, KE_COND, wider(then->type, other->type));
  e->cond.test = test;
  e->cond.then = then;
  e->cond.other = other;
  return e;
}

const KirExpr *kir_index(Arena *a, const KirExpr *base, const KirExpr *at) {
  const KirType *b = base->type;
  KirExpr *e = new_expr(a, KE_INDEX, b && b->kind == KTY_POINTER ? b->to : NULL);
  e->index.base = base;
  e->index.at = at;
  return e;
}

const KirExpr *kir_member(Arena *a, const KirExpr *base, const char *name, const KirType *type) {
  KirExpr *e = new_expr(a, KE_MEMBER, type);
  e->member.base = base;
  e->member.name = name;
  return e;
}

const KirExpr *kir_lane(Arena *a, const KirExpr *base, int lane, int width) {
  KirExpr *e = new_expr(a, KE_LANE, numeric(base->type) ? kir_scalar1(base->type->scalar) : NULL);
  e->lane.base = base;
  e->lane.lane = lane;
  e->lane.width = width;
  return e;
}

const KirExpr *kir_vload(Arena *a, int width, const KirExpr *offset, const KirExpr *ptr) {
  const KirType *p = ptr->type;
  bool to_numbers = p && p->kind == KTY_POINTER && numeric(p->to);
  KirExpr *e = new_expr(a, KE_VLOAD, to_numbers ? kir_scalar_type(a, p->to->scalar, width) : NULL);
  e->vload.width = width;
  e->vload.offset = offset;
  e->vload.ptr = ptr;
  return e;
}

static const KirExpr *new_call(Arena *a, KirExprKind kind, const char *fn, const KirType *type, int n,
                               const KirExpr *const *args) {
  KirExpr *e = new_expr(a, kind, type);
  e->call.fn = fn;
  e->call.type = type;
  e->call.nargs = n;
  const KirExpr **copy = NEWARRAY(a, const KirExpr *, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) copy[i] = args[i];
  e->call.args = copy;
  return e;
}

const KirExpr *kir_call(Arena *a, const char *fn, const KirType *type, int n, const KirExpr *const *args) {
  return new_call(a, KE_CALL, fn, type, n, args);
}

const KirExpr *kir_builtin(Arena *a, KirBuiltin builtin, const KirType *type, const KirExpr *const *args) {
  KirExpr *e = (KirExpr *)new_call(a, KE_BUILTIN, NULL, type, kir_builtin_arity[builtin], args);
  e->call.builtin = builtin;
  return e;
}

const KirExpr *kir_cast(Arena *a, const KirType *type, const KirExpr *operand) {
  return new_call(a, KE_CAST, NULL, type, 1, &operand);
}

const KirExpr *kir_vector(Arena *a, const KirType *type, int n, const KirExpr *const *lanes) {
  return new_call(a, KE_VECTOR, NULL, type, n, lanes);
}

int kir_prec(const KirExpr *e) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_INT: return e->value < 0 ? PREC_UNARY : PREC_POSTFIX;
  case KE_IX: {
    int64_t v;
    switch (e->ix->kind) {
    case IX_ADD:
    case IX_SUB: return kir_binop_prec[KB_ADD];
    case IX_MUL:
    case IX_DIV:
    case IX_MOD: return kir_binop_prec[KB_MUL];
    case IX_CONST: return ix_const_value(e->ix, &v) && v < 0 ? PREC_UNARY : PREC_POSTFIX;
    case IX_VAR:
    case IX_EXPR: return PREC_POSTFIX;
    }
    return PREC_POSTFIX;
  }
  case KE_VAR:
  case KE_LIT:
  case KE_QUERY:
  case KE_INDEX:
  case KE_MEMBER:
  case KE_LANE:
  case KE_VLOAD:
  case KE_CALL: return PREC_POSTFIX;
  /* a choice of vectors is C's ?: in the C family (OpenCL C 6.3.i) */
  case KE_BUILTIN: return e->call.builtin == KBI_SELECT ? PREC_COND : PREC_POSTFIX;
  case KE_CAST: /* a vector's is a call in C (convert_float4) */
    return e->call.type->kind == KTY_SCALAR && e->call.type->width > 1 ? PREC_POSTFIX : PREC_UNARY;
  case KE_UNARY:
  case KE_VECTOR: return PREC_UNARY;
  case KE_BINARY: return kir_binop_prec[e->bin.op];
  case KE_COND: return PREC_COND;
  }
  DPIA_EXHAUSTIVE_END
  return PREC_POSTFIX;
}

static bool same_lit(KirLit a, KirLit b) { return a.scalar == b.scalar && a.i == b.i && a.f == b.f; }

int kir_expr_children(const KirExpr *e, const KirExpr *buf[3], const KirExpr *const **out) {
  *out = buf;
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_INT:
  case KE_VAR:
  case KE_LIT:
  case KE_IX:
  case KE_QUERY: return 0;
  case KE_UNARY: buf[0] = e->un.operand; return 1;
  case KE_BINARY:
    buf[0] = e->bin.lhs, buf[1] = e->bin.rhs;
    return 2;
  case KE_COND:
    buf[0] = e->cond.test, buf[1] = e->cond.then, buf[2] = e->cond.other;
    return 3;
  case KE_INDEX:
    buf[0] = e->index.base, buf[1] = e->index.at;
    return 2;
  case KE_MEMBER: buf[0] = e->member.base; return 1;
  case KE_LANE: buf[0] = e->lane.base; return 1;
  case KE_VLOAD:
    buf[0] = e->vload.offset, buf[1] = e->vload.ptr;
    return 2;
  case KE_CALL:
  case KE_BUILTIN:
  case KE_CAST:
  case KE_VECTOR: *out = e->call.args; return e->call.nargs;
  }
  DPIA_EXHAUSTIVE_END
  return 0;
}

void kir_map_exprs(KirStmt *s, KirExprMap f, void *ctx) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_DECL: s->decl.init = f(ctx, s->decl.init); break;
  case KS_ASSIGN:
    s->assign.lhs = f(ctx, s->assign.lhs);
    s->assign.rhs = f(ctx, s->assign.rhs);
    break;
  case KS_VSTORE:
    s->vstore.value = f(ctx, s->vstore.value);
    s->vstore.offset = f(ctx, s->vstore.offset);
    s->vstore.ptr = f(ctx, s->vstore.ptr);
    break;
  case KS_FOR:
    s->loop.init = f(ctx, s->loop.init);
    s->loop.bound = f(ctx, s->loop.bound);
    s->loop.step = f(ctx, s->loop.step);
    break;
  case KS_IF: s->cond.cond = f(ctx, s->cond.cond); break;
  case KS_EXPR: s->expr = f(ctx, s->expr); break;
  case KS_BLOCK:
  case KS_BARRIER:
  case KS_COMMENT: break;
  case KS_RUN: break; /* its template's are its steps', never changed (kir.h) */
  }
  DPIA_EXHAUSTIVE_END
}

const KirExpr *kir_expr_rebuilt(Arena *a, const KirExpr *e, const KirExpr *const *kids) {
  const KirExpr *buf[3];
  const KirExpr *const *old;
  int n = kir_expr_children(e, buf, &old);
  bool same = true;
  for (int i = 0; i < n; i++) same = same && kids[i] == old[i];
  if (same) return e;
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_INT:
  case KE_VAR:
  case KE_LIT:
  case KE_IX:
  case KE_QUERY: return e;
  case KE_UNARY: return kir_unary(a, e->un.op, kids[0]);
  case KE_BINARY: return kir_binary(a, e->bin.op, kids[0], kids[1]);
  case KE_COND: return kir_cond(a, kids[0], kids[1], kids[2]);
  case KE_INDEX: return kir_index(a, kids[0], kids[1]);
  case KE_MEMBER: return kir_member(a, kids[0], e->member.name, e->type);
  case KE_LANE: return kir_lane(a, kids[0], e->lane.lane, e->lane.width);
  case KE_VLOAD: return kir_vload(a, e->vload.width, kids[0], kids[1]);
  case KE_CALL: return kir_call(a, e->call.fn, e->type, n, kids);
  case KE_BUILTIN: return kir_builtin(a, e->call.builtin, e->call.type, kids);
  case KE_CAST: return kir_cast(a, e->call.type, kids[0]);
  case KE_VECTOR: return kir_vector(a, e->call.type, n, kids);
  }
  DPIA_EXHAUSTIVE_END
  return e;
}

bool kir_expr_equal(const KirExpr *a, const KirExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  DPIA_EXHAUSTIVE_BEGIN
  switch (a->kind) {
  case KE_INT: return a->value == b->value;
  case KE_VAR: return same_text(a->name, b->name);
  case KE_LIT: return same_lit(a->lit, b->lit);
  case KE_IX: return ix_equal(a->ix, b->ix);
  case KE_QUERY: return a->query.query == b->query.query && a->query.dim == b->query.dim;
  case KE_UNARY: return a->un.op == b->un.op && kir_expr_equal(a->un.operand, b->un.operand);
  case KE_BINARY:
    return a->bin.op == b->bin.op && kir_expr_equal(a->bin.lhs, b->bin.lhs) && kir_expr_equal(a->bin.rhs, b->bin.rhs);
  case KE_COND:
    return kir_expr_equal(a->cond.test, b->cond.test) && kir_expr_equal(a->cond.then, b->cond.then) &&
           kir_expr_equal(a->cond.other, b->cond.other);
  case KE_INDEX: return kir_expr_equal(a->index.base, b->index.base) && kir_expr_equal(a->index.at, b->index.at);
  case KE_MEMBER: return same_text(a->member.name, b->member.name) && kir_expr_equal(a->member.base, b->member.base);
  case KE_LANE:
    return a->lane.lane == b->lane.lane && a->lane.width == b->lane.width &&
           kir_expr_equal(a->lane.base, b->lane.base);
  case KE_VLOAD:
    return a->vload.width == b->vload.width && kir_expr_equal(a->vload.offset, b->vload.offset) &&
           kir_expr_equal(a->vload.ptr, b->vload.ptr);
  case KE_CALL:
  case KE_BUILTIN:
  case KE_CAST:
  case KE_VECTOR:
    if (!same_text(a->call.fn, b->call.fn) || a->call.builtin != b->call.builtin ||
        !kir_type_equal(a->call.type, b->call.type) ||
        a->call.nargs != b->call.nargs)
      return false;
    for (int i = 0; i < a->call.nargs; i++)
      if (!kir_expr_equal(a->call.args[i], b->call.args[i])) return false;
    return true;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

int kir_expr_compare(const KirExpr *a, const KirExpr *b) {
  if (a == b) return 0;
  if (!a || !b) return a ? 1 : -1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  int c = 0;
  DPIA_EXHAUSTIVE_BEGIN
  switch (a->kind) {
  case KE_INT: return compare_int(a->value, b->value);
  case KE_VAR: return compare_text(a->name, b->name);
  case KE_LIT:
    if ((c = compare_int(a->lit.scalar, b->lit.scalar)) || (c = compare_int(a->lit.i, b->lit.i))) return c;
    return (a->lit.f > b->lit.f) - (a->lit.f < b->lit.f);
  case KE_IX: return ix_compare(a->ix, b->ix);
  case KE_QUERY:
    c = compare_int(a->query.query, b->query.query);
    return c ? c : compare_int(a->query.dim, b->query.dim);
  case KE_UNARY: c = compare_int(a->un.op, b->un.op); return c ? c : kir_expr_compare(a->un.operand, b->un.operand);
  case KE_BINARY:
    if ((c = compare_int(a->bin.op, b->bin.op)) || (c = kir_expr_compare(a->bin.lhs, b->bin.lhs))) return c;
    return kir_expr_compare(a->bin.rhs, b->bin.rhs);
  case KE_COND:
    if ((c = kir_expr_compare(a->cond.test, b->cond.test)) || (c = kir_expr_compare(a->cond.then, b->cond.then)))
      return c;
    return kir_expr_compare(a->cond.other, b->cond.other);
  case KE_INDEX:
    c = kir_expr_compare(a->index.base, b->index.base);
    return c ? c : kir_expr_compare(a->index.at, b->index.at);
  case KE_MEMBER:
    c = kir_expr_compare(a->member.base, b->member.base);
    return c ? c : compare_text(a->member.name, b->member.name);
  case KE_LANE:
    if ((c = kir_expr_compare(a->lane.base, b->lane.base)) || (c = compare_int(a->lane.lane, b->lane.lane)))
      return c;
    return compare_int(a->lane.width, b->lane.width);
  case KE_VLOAD:
    if ((c = compare_int(a->vload.width, b->vload.width)) || (c = kir_expr_compare(a->vload.offset, b->vload.offset)))
      return c;
    return kir_expr_compare(a->vload.ptr, b->vload.ptr);
  case KE_CALL:
  case KE_BUILTIN:
  case KE_CAST:
  case KE_VECTOR:
    if ((c = compare_text(a->call.fn, b->call.fn)) || (c = compare_int(a->call.builtin, b->call.builtin)) ||
        (c = compare_type(a->call.type, b->call.type)) ||
        (c = compare_int(a->call.nargs, b->call.nargs)))
      return c;
    for (int i = 0; i < a->call.nargs; i++)
      if ((c = kir_expr_compare(a->call.args[i], b->call.args[i]))) return c;
    return 0;
  }
  DPIA_EXHAUSTIVE_END
  return 0;
}

const KirExpr *kir_int(Arena *a, int64_t value) {
  KirExpr *e = new_expr(a, KE_INT, kir_scalar1(SC_INT));
  e->value = value;
  return e;
}

const KirExpr *kir_var(Arena *a, const char *name, const KirType *type) {
  KirExpr *e = new_expr(a, KE_VAR, type);
  e->name = name;
  return e;
}

const KirExpr *kir_query(Arena *a, KirQuery q, int dim) {
  KirExpr *e = new_expr(a, KE_QUERY, kir_scalar1(SC_INT));
  e->query.query = q;
  e->query.dim = dim;
  return e;
}

const KirExpr *kir_query_of(const KirExpr *e) {
  if (e && e->kind == KE_CAST && e->call.nargs == 1) e = e->call.args[0];
  return e && e->kind == KE_QUERY && e->query.dim >= 0 && e->query.dim <= 2 ? e : NULL;
}

/* arithmetic: the wider operand's type; a comparison: bool, or an int
 * vector of -1 and 0 on vectors (OpenCL C 6.3.d, docs/language.md section
 * 19); && and ||: bool; an address plus an offset: the address's */
static const KirType *binary_type(Arena *a, KirBinop op, const KirType *l, const KirType *r) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (op) {
  case KB_MUL:
  case KB_DIV:
  case KB_MOD:
  case KB_ADD:
  case KB_SUB: return wider(l, r);
  case KB_PTR_ADD: return l;
  case KB_LT:
  case KB_LE:
  case KB_GT:
  case KB_GE:
  case KB_EQ:
  case KB_NE: {
    const KirType *w = wider(l, r);
    return numeric(w) && w->width > 1 ? kir_scalar_type(a, SC_INT, w->width) : kir_scalar1(SC_BOOL);
  }
  case KB_AND:
  case KB_ALL:
  case KB_OR: return kir_scalar1(SC_BOOL);
  }
  DPIA_EXHAUSTIVE_END
  return NULL;
}

const KirExpr *kir_binary(Arena *a, KirBinop op, const KirExpr *lhs, const KirExpr *rhs) {
  KirExpr *e = new_expr(a, KE_BINARY, binary_type(a, op, lhs->type, rhs->type));
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

void *kir_grown_slow(Arena *a, void *items, int n, int *cap, size_t size) {
  int more = *cap ? 2 * *cap : 8;
  char *bigger = arena_alloc(a, size * (size_t)more);
  if (n) memcpy(bigger, items, size * (size_t)n);
  *cap = more;
  return bigger;
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

KirBlock kir_block_copy(Arena *a, const KirBlock *b) {
  KirBlock out = {0};
  for (const KirStmt *s = b->first; s; s = s->next) {
    KirStmt *c = NEW(a, KirStmt);
    *c = *s; /* a run's template is shared: it is never changed */
    KirBlock *inner = kir_body(c);
    if (inner) *inner = kir_block_copy(a, inner);
    kir_append(&out, c);
  }
  return out;
}

void kir_names_bound(const KirBlock *b, NameSet *names) {
  for (const KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_DECL) nameset_add(names, s->decl.name);
    if (s->kind == KS_FOR) nameset_add(names, s->loop.var);
    if (s->kind == KS_ASSIGN && s->assign.lhs->kind == KE_VAR) nameset_add(names, s->assign.lhs->name);
    /* a run's steps assign what its template assigns (its sites bind none) */
    if (s->kind == KS_RUN) kir_names_bound(&s->run.body, names);
    const KirBlock *inner = kir_body((KirStmt *)s);
    if (inner) kir_names_bound(inner, names);
  }
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

/* ---- invariants (checked after lowering in debug builds) ---- */

/* No shadowing (spec section 8) is checked with one look-up a
 * declaration and none when a scope ends: each scope (a block, a loop's
 * variable with its body) has a serial, open until the scope ends, and
 * each name keeps, as its NameSet hint, the serial of the scope of its
 * last declaration (KIR_SCOPE_KERNEL: a parameter, a top-level name or a
 * local buffer; 0: none).  A name is visible where that scope is still
 * open: until the first violation, no two declarations of a name are in
 * open scopes at once (the later one would be that violation), so the
 * last one's scope is the only one that can be, which is what a multiset
 * of the names in scope, each taken out at its scope's end, tells
 * (translation throughput, BENCHMARKS.md: the taking out hashed each name
 * again). */
enum { KIR_SCOPE_KERNEL = 1 };

typedef struct KirCheck {
  Arena *arena;
  const KirKernel *k; /* its struct typedefs: the types of fields */
  NameSet declared;   /* each name's hint: its last declaration's scope serial */
  bool *open;         /* by scope serial: not ended yet */
  int nscopes, capscopes;
  NameSet divergent; /* variables holding a work-item's own id */
  const char *why;   /* the first violation */
} KirCheck;

/* a new scope's serial, open */
static int scope_begin(KirCheck *c) {
  c->open = kir_grown(c->arena, c->open, c->nscopes, &c->capscopes, sizeof *c->open);
  c->open[c->nscopes] = true;
  return c->nscopes++;
}

/* does e depend on which work-item of its group evaluates it? */
static bool divergent_expr(const KirCheck *c, const KirExpr *e) {
  if (!e) return false;
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_QUERY: return e->query.query == KQ_GLOBAL_ID || e->query.query == KQ_LOCAL_ID;
  case KE_VAR: return nameset_has(&c->divergent, e->name);
  case KE_INT:
  case KE_LIT: return false;
  case KE_IX: return false; /* indices over work-item ids are only read, never tested */
  case KE_UNARY: return divergent_expr(c, e->un.operand);
  case KE_BINARY: return divergent_expr(c, e->bin.lhs) || divergent_expr(c, e->bin.rhs);
  case KE_COND:
    return divergent_expr(c, e->cond.test) || divergent_expr(c, e->cond.then) || divergent_expr(c, e->cond.other);
  case KE_INDEX: return true; /* data */
  case KE_MEMBER: return divergent_expr(c, e->member.base);
  case KE_LANE: return divergent_expr(c, e->lane.base);
  case KE_VLOAD: return true; /* data */
  case KE_CALL:
  case KE_BUILTIN:
  case KE_CAST:
  case KE_VECTOR:
    for (int i = 0; i < e->call.nargs; i++)
      if (divergent_expr(c, e->call.args[i])) return true;
    return false;
  }
  DPIA_EXHAUSTIVE_END
  return true;
}

static void violation(KirCheck *c, const char *why) {
  if (!c->why) c->why = why;
}

/* ---- signedness ---- */

static bool unsigned_expr(const KirExpr *e);

static bool unsigned_ix(const Ix *e) {
  if (!e) return false;
  if (e->kind == IX_EXPR) return unsigned_expr(e->expr);
  return unsigned_ix(e->a) || unsigned_ix(e->b);
}

/* Is e's C type unsigned?  Every type of the IR is signed (int, float,
 * double, bool; ScalarKind has no unsigned type) but the size_t of a
 * work-item function, and C's arithmetic converts the int beside one to
 * it. */
static bool unsigned_expr(const KirExpr *e) {
  switch (e->kind) {
  case KE_QUERY: return true;
  case KE_IX: return unsigned_ix(e->ix);
  case KE_BINARY:
    switch (e->bin.op) {
    case KB_MUL:
    case KB_DIV:
    case KB_MOD:
    case KB_ADD:
    case KB_SUB: return unsigned_expr(e->bin.lhs) || unsigned_expr(e->bin.rhs);
    default: return false; /* a comparison, a conjunction: an int; an address */
    }
  case KE_UNARY: return e->un.op != '!' && e->un.op != '&' && unsigned_expr(e->un.operand);
  case KE_COND: return unsigned_expr(e->cond.then) || unsigned_expr(e->cond.other);
  default: return false; /* a variable, element, lane, call or cast of a signed type */
  }
}

static bool nonnegative_const(const KirExpr *e) {
  int64_t v;
  return (e->kind == KE_INT && e->value >= 0) || (e->kind == KE_IX && ix_const_value(e->ix, &v) && v >= 0);
}

static void check_expr(KirCheck *c, const KirExpr *e);

/* the expression atoms of index e, left to right (a constant or a
 * variable, most of an index's leaves, holds none: no call for it) */
static void check_ix(KirCheck *c, const Ix *e) {
  for (; e && e->exprs; e = e->b) {
    if (e->kind == IX_EXPR) check_expr(c, e->expr);
    if (e->a && e->a->exprs) check_ix(c, e->a);
  }
}

/* e, a field of a struct, has the type its struct's typedef gives the
 * field (an array field: a pointer to its elements) */
static bool field_typed(const KirCheck *c, const KirExpr *e) {
  const char *st = e->member.base->type ? e->member.base->type->name : NULL;
  for (int i = 0; st && i < c->k->ntops; i++) {
    const KirTop *t = &c->k->tops[i];
    if (t->kind != KT_STRUCT || !same_text(t->st.name, st)) continue;
    for (int f = 0; f < 2; f++) {
      const KirStructField *fd = &t->st.field[f];
      if (!same_text(fd->name, e->member.name)) continue;
      if (fd->array_len < 0) return kir_type_equal(e->type, fd->type);
      return e->type && e->type->kind == KTY_POINTER && kir_type_equal(e->type->to, fd->type);
    }
  }
  return false;
}

/* No comparison of an unsigned value with a signed one that may be
 * negative (clang's -Wsign-compare, which the re-parse treats as an
 * error): a work-item function is compared with a constant
 * (get_local_id(0) == 0) or read into an int (int gid =
 * get_global_id(0)).  Every node typed as its operands say
 * (kir_type_violation), a field as its struct's typedef says. */
/* leaf e (kir_expr_is_leaf): its type rule, asked only where
 * kir_leaf_typed cannot tell, and an index's expression atoms */
static inline void check_leaf(KirCheck *c, const KirExpr *e) {
  if (!kir_leaf_typed(e)) {
    const char *mistyped = kir_type_violation_of(c->arena, e, 0, NULL);
    if (mistyped) violation(c, mistyped);
  }
  if (e->kind == KE_IX) check_ix(c, e->ix);
}

static void check_expr(KirCheck *c, const KirExpr *e) {
  /* the last child is the loop's next node, not a call, and a leaf is
   * checked where it is met, not in a call of its own (translation
   * throughput, BENCHMARKS.md): the nodes are checked in the same order */
  while (e && !c->why) {
    if (kir_expr_is_leaf(e)) {
      check_leaf(c, e);
      return;
    }
    /* the children once, for the type rule and the walk */
    const KirExpr *buf[3], *const *sub = buf;
    int n = kir_expr_children(e, buf, &sub);
    const char *mistyped = kir_type_violation_of(c->arena, e, n, sub);
    if (!mistyped && e->kind == KE_MEMBER && !field_typed(c, e)) mistyped = "a field not of its struct's field type";
    if (mistyped) violation(c, mistyped);
    if (e->kind == KE_BINARY) {
      const KirExpr *l = e->bin.lhs, *r = e->bin.rhs;
      bool compare = e->bin.op == KB_LT || e->bin.op == KB_LE || e->bin.op == KB_GT || e->bin.op == KB_GE ||
                     e->bin.op == KB_EQ || e->bin.op == KB_NE;
      if (compare && unsigned_expr(l) != unsigned_expr(r) && !nonnegative_const(unsigned_expr(l) ? r : l))
        violation(c, "a comparison of an unsigned work-item function with a signed value");
    }
    if (n == 0) return;
    for (int i = 0; i + 1 < n && !c->why; i++) {
      if (kir_expr_is_leaf(sub[i])) check_leaf(c, sub[i]);
      else
        check_expr(c, sub[i]);
    }
    e = sub[n - 1];
  }
}

/* name declared in the scope of serial scope */
static void declare(KirCheck *c, const char *name, int scope) {
  int *last = nameset_hint(&c->declared, name);
  if (*last > 0 && c->open[*last])
    violation(c, arena_printf(c->arena, "'%s' is declared where a variable of that name is visible", name));
  *last = scope;
}

/* Barriers only where every work-item of the group gets equally often
 * (spec section 5): not in a loop over work-items nor under a test of a
 * work-item's id. */
static void check_block(KirCheck *c, const KirBlock *b, bool diverged) {
  int scope = scope_begin(c);
  for (const KirStmt *s = b->first; s && !c->why; s = s->next) {
    DPIA_EXHAUSTIVE_BEGIN
    switch (s->kind) {
    case KS_DECL:
      declare(c, s->decl.name, scope);
      check_expr(c, s->decl.init);
      if (divergent_expr(c, s->decl.init)) nameset_add(&c->divergent, s->decl.name);
      break;
    case KS_ASSIGN:
      check_expr(c, s->assign.lhs);
      check_expr(c, s->assign.rhs);
      break;
    case KS_VSTORE:
      check_expr(c, s->vstore.value);
      check_expr(c, s->vstore.offset);
      check_expr(c, s->vstore.ptr);
      break;
    case KS_EXPR: check_expr(c, s->expr); break;
    case KS_COMMENT: break;
    case KS_FOR: {
      int inner = scope_begin(c);
      declare(c, s->loop.var, inner);
      check_expr(c, s->loop.init);
      check_expr(c, s->loop.bound);
      check_expr(c, s->loop.step);
      bool by_items = s->loop.step->kind == KE_QUERY &&
                      (s->loop.step->query.query == KQ_GLOBAL_SIZE || s->loop.step->query.query == KQ_LOCAL_SIZE);
      if (by_items || divergent_expr(c, s->loop.init) || divergent_expr(c, s->loop.bound))
        nameset_add(&c->divergent, s->loop.var);
      check_block(c, &s->loop.body, diverged || by_items || divergent_expr(c, s->loop.bound));
      c->open[inner] = false;
      break;
    }
    case KS_IF:
      check_expr(c, s->cond.cond);
      check_block(c, &s->cond.body, diverged || divergent_expr(c, s->cond.cond));
      break;
    case KS_BLOCK: check_block(c, &s->block.body, diverged); break;
    case KS_BARRIER:
      if (diverged) violation(c, "a barrier where not every work-item of the group gets");
      if (!s->barrier.local && !s->barrier.global) violation(c, "a barrier that fences nothing");
      break;
    case KS_RUN:
      /* Its steps are its template's statements but for their indices
       * with $step: sums of the same atoms and a constant, ints built by
       * the same constructors (unroll_step.c), under an element or a
       * vector load or store only, so that no step's types, tests or
       * declarations differ from its template's: the template's
       * expressions checked once stand for every step's; its shape
       * (steps, only assignments and stores after their sites) is
       * kir_stmt_type_violation's, below. */
      for (const KirStmt *t = s->run.body.first; t; t = t->next) {
        if (t->kind == KS_ASSIGN) {
          check_expr(c, t->assign.lhs);
          check_expr(c, t->assign.rhs);
        } else if (t->kind == KS_VSTORE) {
          check_expr(c, t->vstore.value);
          check_expr(c, t->vstore.offset);
          check_expr(c, t->vstore.ptr);
        }
      }
      break;
    }
    DPIA_EXHAUSTIVE_END
    /* after its expressions: an operand's own type first */
    const char *mistyped = kir_stmt_type_violation(s);
    if (mistyped) violation(c, mistyped);
  }
  c->open[scope] = false;
}

const char *kir_invariant_violation(Arena *a, const KirKernel *k) {
  KirCheck c = {.arena = a, .k = k, .declared = {.arena = a}, .divergent = {.arena = a}};
  int none = scope_begin(&c); /* serial 0: no declaration */
  c.open[none] = false;
  if (scope_begin(&c) != KIR_SCOPE_KERNEL) INTERNAL("the KIR check's kernel scope is not its first");
  for (int i = 0; i < k->nparams; i++) *nameset_hint(&c.declared, k->params[i].name) = KIR_SCOPE_KERNEL;
  for (int i = 0; i < k->ntops; i++) *nameset_hint(&c.declared, k->tops[i].name) = KIR_SCOPE_KERNEL;
  check_block(&c, &k->locals, false);
  /* the local buffers stay in scope for the body */
  for (const KirStmt *s = k->locals.first; s; s = s->next) *nameset_hint(&c.declared, s->decl.name) = KIR_SCOPE_KERNEL;
  check_block(&c, &k->body, false);
  return c.why;
}

/* a test of work-item ids and constants only: the same in every iteration
 * of any loop */
static bool work_item_test(const KirExpr *e) {
  switch (e->kind) {
  case KE_INT:
  case KE_QUERY: return true;
  case KE_BINARY: return work_item_test(e->bin.lhs) && work_item_test(e->bin.rhs);
  default: return false;
  }
}

void kir_hoist_guards(KirBlock *b) {
  for (KirStmt *s = b->first; s; s = s->next) {
    KirBlock *inner = kir_body(s);
    if (inner) kir_hoist_guards(inner);
    if (s->kind != KS_FOR) continue;
    KirStmt *g = s->loop.body.first;
    if (!g || g != s->loop.body.last || g->kind != KS_IF || !work_item_test(g->cond.cond)) continue;
    /* swap the two statements' contents: s becomes the if, g the loop */
    KirStmt loop = *s, guard = *g;
    loop.loop.body = guard.cond.body;
    guard.cond.body = (KirBlock){g, g};
    guard.cond.one_line = false;
    guard.next = s->next;
    loop.next = NULL;
    *s = guard;
    *g = loop;
  }
}

/* ---- unrolled register tiles ---- */

/* UNROLL_FULL_MAX: a tile loop of at most this many steps is unrolled
 * whole.  PoCL runs a work-group as a loop over its work-items around the
 * kernel's code between barriers, and vectorises that loop (a work-item a
 * lane) only where the code inside it is straight-line: SHOC's sgemmNN
 * writes its 16 steps of a tile out, and samples/sgemm_shoc.dpia's loop of
 * 16, unrolled 4 at a time, was a scalar loop per work-item; unrolled
 * whole, about 3x faster (bench/peer_bench.c, sgemm at 512^3).
 *
 * UNROLL_SHORT_MAX: a loop of 2 to this many steps with the same body (a
 * sequential reduction over an element's few neighbours, its step many
 * private values, as Rodinia's cfd sums an element's four faces) is
 * unrolled whole too, for the same reason: Rodinia writes `#pragma unroll`
 * before its loop, and samples/cfd_flux.dpia's loop of 4, left a loop,
 * kept PoCL from vectorising the work-items (bench/peer_bench.c, cfd).
 * Codegen writes out a short loop whose body only assigns (opencl.c,
 * UNROLL_MAX); this one's body declares the step's values. */
enum { UNROLL_STEPS = 4, UNROLL_MIN_TRIPS = 16, UNROLL_MIN_ASSIGNS = 8, UNROLL_FULL_MAX = 16, UNROLL_SHORT_MAX = 4 };

bool kir_const_int(const KirExpr *e, int64_t *v) {
  if (e->kind == KE_INT) {
    *v = e->value;
    return true;
  }
  return e->kind == KE_IX && ix_const_value(e->ix, v);
}

/* private arrays of the kernel (names are unique: no shadowing) */
static void note_private_arrays(const KirBlock *b, NameSet *arrays) {
  for (const KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_DECL && s->decl.space == KSP_PRIVATE && s->decl.array_len >= 0) nameset_add(arrays, s->decl.name);
    const KirBlock *inner = kir_body((KirStmt *)s);
    if (inner) note_private_arrays(inner, arrays);
  }
}

/* lhs is private memory: a private scalar or struct (or a field of one,
 * at any depth), or an element of a private array */
static bool private_place(const KirExpr *lhs, const NameSet *arrays, const NameSet *scalars) {
  while (lhs->kind == KE_MEMBER) lhs = lhs->member.base;
  return (lhs->kind == KE_VAR && nameset_has(scalars, lhs->name)) ||
         (lhs->kind == KE_INDEX && lhs->index.base->kind == KE_VAR && nameset_has(arrays, lhs->index.base->name));
}

/* The private scalars declared so far in the walk (unroll_tiles): their
 * names as met, put in a set only when a loop of tile shape asks (most
 * kernels have none, and a set's first name costs a table: translation
 * throughput, BENCHMARKS.md) */
typedef struct Scalars {
  Vec names;   /* const char *, in the walk's order */
  NameSet set; /* the first in_set of them */
  int in_set;
} Scalars;

static const NameSet *scalars_so_far(Scalars *sc) {
  while (sc->in_set < sc->names.len) nameset_add(&sc->set, sc->names.items[sc->in_set++]);
  return &sc->set;
}

/* s is the inner loop of a register tile (kir.h), or a short loop of the
 * same body, of *trips steps */
static bool tile_loop(const KirStmt *s, const NameSet *arrays, Scalars *scalars, int64_t *trips) {
  int64_t init, step;
  if (!kir_const_int(s->loop.init, &init) || init != 0 || !kir_const_int(s->loop.step, &step) || step != 1 ||
      !kir_const_int(s->loop.bound, trips))
    return false;
  bool tile = *trips >= UNROLL_MIN_TRIPS && *trips % UNROLL_STEPS == 0;
  if (!tile && (*trips < 2 || *trips > UNROLL_SHORT_MAX)) return false;
  int assigns = 0;
  for (const KirStmt *t = s->loop.body.first; t; t = t->next) {
    switch (t->kind) {
    case KS_COMMENT: break;
    case KS_DECL:
      if (t->decl.space != KSP_PRIVATE || t->decl.array_len >= 0) return false;
      break;
    case KS_ASSIGN: assigns++; break;
    default: return false;
    }
  }
  if (assigns < UNROLL_MIN_ASSIGNS) return false;
  /* every assignment's place private (the conditions above and this one
   * are all asked: their order does not change the answer) */
  const NameSet *set = scalars_so_far(scalars);
  for (const KirStmt *t = s->loop.body.first; t; t = t->next)
    if (t->kind == KS_ASSIGN && !private_place(t->assign.lhs, arrays, set)) return false;
  return true;
}

/* ---- loops over a private array ---- */

/* A constant loop of 2 to UNROLL_FULL_MAX steps whose body reads or
 * writes a private array at an index of its variable (and constants) is
 * unrolled whole too: a private array stays in registers only where every
 * access has a constant index, and one loop that indexes it with a
 * variable keeps the whole array in memory, on PoCL a context array a
 * work-item in the work-group's loop around each region between barriers.
 * samples/sgemm_shoc.dpia's 16 sums (SHOC's c[16]) stored by a loop of 16
 * after the K loop were an array in memory across the kernel, read and
 * written at every tile; with the store loop unrolled, in registers (16
 * lanes of one vector), and the kernel about 1.3x faster (PoCL, 2 cores,
 * 1024^3, BENCHMARKS.md).  The body must be straight-line (assignments and
 * private scalars): no barrier, no nested loop. */

/* e is built of constants and var, var at least once (*seen) */
static bool ix_of_var(const Ix *e, const char *var, bool *seen) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case IX_CONST: return true;
  case IX_VAR:
    if (strcmp(e->name, var) != 0) return false;
    *seen = true;
    return true;
  case IX_EXPR: return false;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: return ix_of_var(e->a, var, seen) && ix_of_var(e->b, var, seen);
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* e reads or writes an element of a private array at an index of var */
static bool indexes_array_by(const KirExpr *e, const NameSet *arrays, const char *var) {
  if (e->kind == KE_INDEX && e->index.base->kind == KE_VAR && nameset_has(arrays, e->index.base->name)) {
    bool seen = false;
    const KirExpr *at = e->index.at;
    if (at->kind == KE_VAR && strcmp(at->name, var) == 0) return true;
    if (at->kind == KE_IX && ix_of_var(at->ix, var, &seen) && seen) return true;
  }
  const KirExpr *buf[3], *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++)
    if (kids[i] && indexes_array_by(kids[i], arrays, var)) return true;
  return false;
}

static bool array_loop(const KirStmt *s, const NameSet *arrays, int64_t *trips) {
  int64_t init, step;
  if (!kir_const_int(s->loop.init, &init) || init != 0 || !kir_const_int(s->loop.step, &step) || step != 1 ||
      !kir_const_int(s->loop.bound, trips) || *trips < 2 || *trips > UNROLL_FULL_MAX)
    return false;
  bool indexes = false;
  for (const KirStmt *t = s->loop.body.first; t; t = t->next) {
    switch (t->kind) {
    case KS_COMMENT: break;
    case KS_DECL:
      if (t->decl.space != KSP_PRIVATE || t->decl.array_len >= 0) return false;
      if (t->decl.init) indexes = indexes || indexes_array_by(t->decl.init, arrays, s->loop.var);
      break;
    case KS_ASSIGN:
      indexes = indexes || indexes_array_by(t->assign.lhs, arrays, s->loop.var) ||
                indexes_array_by(t->assign.rhs, arrays, s->loop.var);
      break;
    default: return false;
    }
  }
  return indexes;
}

static void unroll_tiles(Arena *a, KirBlock *b, const NameSet *arrays, Scalars *scalars) {
  for (KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_DECL && s->decl.space == KSP_PRIVATE && s->decl.array_len < 0)
      vec_push(a, &scalars->names, (void *)s->decl.name);
    KirBlock *inner = kir_body(s);
    if (inner) unroll_tiles(a, inner, arrays, scalars);
    int64_t trips;
    if (s->kind == KS_FOR && tile_loop(s, arrays, scalars, &trips))
      s->loop.unroll = trips <= UNROLL_FULL_MAX ? (int)trips : UNROLL_STEPS;
    else if (s->kind == KS_FOR && array_loop(s, arrays, &trips))
      s->loop.unroll = (int)trips;
  }
}

void kir_unroll_tiles(Arena *a, KirKernel *k) {
  NameSet arrays = {.arena = a};
  Scalars scalars = {.set = {.arena = a}};
  note_private_arrays(&k->body, &arrays);
  unroll_tiles(a, &k->body, &arrays, &scalars);
}
