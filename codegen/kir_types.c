/* kir_types.c: the type rule of each kernel IR expression (kir.h), which
 * kir_invariant_violation checks node by node after lowering.
 *
 * The constructors derive a node's type from its operands (kir.c); what a
 * caller gives (a variable's, a field's, a built-in's, a cast's type) and
 * what a pass rebuilds (pointers.c) is checked here against the operands,
 * so that a backend may trust a node's type where it spells it: a vector
 * sum as a loop over lanes in a language without vector operators (issue
 * 36). */
#include "kir.h"

static bool numeric(const KirType *t) { return t && t->kind == KTY_SCALAR; }

/* a scalar test: an int or a bool (C's truth) */
static bool scalar_test(const KirType *t) {
  return numeric(t) && t->width == 1 && (t->scalar == SC_INT || t->scalar == SC_BOOL);
}

static bool is_int(const KirType *t) { return numeric(t) && t->width == 1 && t->scalar == SC_INT; }

/* an operand of an operation of type t: the same number type, or its
 * scalar, which C and OpenCL C broadcast to t's lanes */
static bool operand_of(const KirType *operand, const KirType *t) {
  if (!numeric(operand) || !numeric(t)) return kir_type_equal(operand, t);
  return operand->scalar == t->scalar && (operand->width == t->width || operand->width == 1);
}

static const char *unary_violation(const KirExpr *e) {
  const KirType *x = e->un.operand->type, *t = e->type;
  switch (e->un.op) {
  case '-':
  case '~': return numeric(x) && kir_type_equal(x, t) ? NULL : "an arithmetic negation not of its operand's type";
  case '!': return scalar_test(x) && kir_type_equal(t, kir_scalar1(SC_BOOL)) ? NULL : "a '!' not of a bool test";
  case '&':
    return t->kind == KTY_POINTER && kir_type_equal(t->to, x) ? NULL : "an address not a pointer to its operand's type";
  default: return "an unknown unary operator";
  }
}

static const char *binary_violation(const KirExpr *e) {
  const KirType *l = e->bin.lhs->type, *r = e->bin.rhs->type, *t = e->type;
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->bin.op) {
  case KB_MUL:
  case KB_DIV:
  case KB_MOD:
  case KB_ADD:
  case KB_SUB:
    if (!numeric(t) || t->scalar == SC_BOOL) return "arithmetic not on numbers";
    if (!operand_of(l, t) || !operand_of(r, t) || (l->width != t->width && r->width != t->width))
      return "arithmetic on operands of other types than its own (or widths that differ)";
    return NULL;
  case KB_PTR_ADD:
    if (t->kind != KTY_POINTER || !kir_type_equal(l, t)) return "an address plus an offset not of the address's type";
    return is_int(r) ? NULL : "an address plus an offset that is not an int";
  case KB_LT:
  case KB_LE:
  case KB_GT:
  case KB_GE:
  case KB_EQ:
  case KB_NE: {
    if (!numeric(l) || !numeric(r) || l->scalar != r->scalar ||
        (l->width != r->width && l->width != 1 && r->width != 1))
      return "a comparison of operands of different types";
    int w = l->width > r->width ? l->width : r->width;
    bool ok = w == 1 ? kir_type_equal(t, kir_scalar1(SC_BOOL))
                     : numeric(t) && t->scalar == SC_INT && t->width == w; /* a mask */
    return ok ? NULL : "a comparison neither a bool nor an int vector of its operands' width";
  }
  case KB_AND:
  case KB_ALL:
  case KB_OR:
    if (!scalar_test(l) || !scalar_test(r)) return "a conjunction or disjunction of operands that are not tests";
    return kir_type_equal(t, kir_scalar1(SC_BOOL)) ? NULL : "a conjunction or disjunction not a bool";
  }
  DPIA_EXHAUSTIVE_END
  return NULL;
}

static const char *builtin_violation(const KirExpr *e) {
  const KirType *t = e->type;
  if (!numeric(t)) return "a built-in function whose result is not a number";
  if (e->call.nargs != kir_builtin_arity[e->call.builtin]) return "a built-in function with the wrong arguments";
  for (int i = 0; i < e->call.nargs; i++) {
    const KirType *x = e->call.args[i]->type;
    if (e->call.builtin == KBI_SELECT && i == 0) {
      if (!numeric(x) || x->scalar != SC_INT || x->width != t->width)
        return "a select whose mask is not an int vector of its width";
    } else if (!operand_of(x, t)) {
      return "a built-in function's argument not of its type";
    }
  }
  return NULL;
}

static const char *cast_violation(const KirExpr *e) {
  const KirType *x = e->call.nargs == 1 ? e->call.args[0]->type : NULL, *t = e->type;
  if (!x) return "a cast of no operand";
  if (t->kind == KTY_POINTER) return x->kind == KTY_POINTER ? NULL : "a cast to a pointer of something not a pointer";
  if (!numeric(t) || !numeric(x) || x->width != t->width) return "a cast not between numbers of one width";
  return NULL;
}

static const char *vector_violation(const KirExpr *e) {
  const KirType *t = e->type;
  if (!numeric(t) || t->width < 2) return "a vector construction of a type that is not a vector";
  if (e->call.nargs != 1 && e->call.nargs != t->width) return "a vector built from neither one value nor a lane each";
  for (int i = 0; i < e->call.nargs; i++)
    if (!kir_type_equal(e->call.args[i]->type, kir_scalar1(t->scalar)))
      return "a vector built from values not its scalars";
  return NULL;
}

const char *kir_type_violation(Arena *a, const KirExpr *e) {
  const KirExpr *buf[3], *const *sub;
  int n = kir_expr_children(e, buf, &sub);
  return kir_type_violation_of(a, e, n, sub);
}

const char *kir_type_violation_of(Arena *a, const KirExpr *e, int n, const KirExpr *const *sub) {
  const KirType *t = e->type;
  static const char *const kind_name[] = {
#define X(id) #id,
      KIR_EXPR_KINDS(X)
#undef X
  };
  if (!t) return arena_printf(a, "an expression without a type (a KE_%s)", kind_name[e->kind]);
  for (int i = 0; i < n; i++)
    if (!sub[i]->type) return NULL; /* the operand's own violation */
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_INT:
  case KE_IX:
  case KE_QUERY: return is_int(t) ? NULL : "an integer constant, index or work-item query that is not an int";
  case KE_LIT: return kir_type_equal(t, kir_scalar1(e->lit.scalar)) ? NULL : "a literal not of its scalar kind";
  case KE_VAR:
  case KE_CALL: return NULL; /* as declared */
  case KE_UNARY: return unary_violation(e);
  case KE_BINARY: return binary_violation(e);
  case KE_COND:
    if (!scalar_test(e->cond.test->type)) return "a condition whose test is not a bool or an int";
    if (!operand_of(e->cond.then->type, t) || !operand_of(e->cond.other->type, t))
      return "a condition whose branches are not of its type";
    return NULL;
  case KE_INDEX: {
    const KirType *b = e->index.base->type;
    if (b->kind != KTY_POINTER || !kir_type_equal(b->to, t)) return "an element not of the type its pointer points to";
    return is_int(e->index.at->type) ? NULL : "an element at an index that is not an int";
  }
  case KE_MEMBER: return e->member.base->type->kind == KTY_STRUCT ? NULL : "a field of something that is not a struct";
  case KE_LANE: {
    const KirType *v = e->lane.base->type;
    if (!numeric(v) || v->width != e->lane.width || v->width < 2 || e->lane.lane < 0 || e->lane.lane >= v->width)
      return "a lane of something that is not a vector of the lane's width";
    return kir_type_equal(t, kir_scalar1(v->scalar)) ? NULL : "a lane not its vector's scalar";
  }
  case KE_VLOAD: {
    const KirType *p = e->vload.ptr->type;
    if (p->kind != KTY_POINTER || !numeric(p->to) || p->to->width != 1)
      return "a vload not through a pointer to scalars";
    if (!is_int(e->vload.offset->type)) return "a vload at an offset that is not an int";
    return numeric(t) && t->scalar == p->to->scalar && t->width == e->vload.width
               ? NULL
               : "a vload not a vector of its scalars";
  }
  case KE_BUILTIN: return builtin_violation(e);
  case KE_CAST: return cast_violation(e);
  case KE_VECTOR: return vector_violation(e);
  }
  DPIA_EXHAUSTIVE_END
  return NULL;
}

/* the value v stored where a value of type t goes (a declaration's
 * initial value, an assignment's right-hand side): of t, or its scalar
 * broadcast (OpenCL C 6.2.6) */
static bool stores_as(const KirExpr *v, const KirType *t) { return !v || !v->type || operand_of(v->type, t); }

const char *kir_stmt_type_violation(const KirStmt *s) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_DECL:
    if (!s->decl.type) return "a declaration without a type";
    return s->decl.array_len >= 0 || stores_as(s->decl.init, s->decl.type)
               ? NULL
               : "a declaration initialised with a value of another type";
  case KS_ASSIGN:
    if (!s->assign.lhs->type) return NULL;
    return stores_as(s->assign.rhs, s->assign.lhs->type) ? NULL : "an assignment of a value of another type";
  case KS_VSTORE: {
    const KirType *p = s->vstore.ptr->type, *v = s->vstore.value->type;
    if (!p || !v || !s->vstore.offset->type) return NULL;
    if (p->kind != KTY_POINTER || !numeric(p->to) || p->to->width != 1)
      return "a vstore not through a pointer to scalars";
    if (!is_int(s->vstore.offset->type)) return "a vstore at an offset that is not an int";
    return numeric(v) && v->scalar == p->to->scalar && v->width == s->vstore.width
               ? NULL
               : "a vstore of a value that is not a vector of its pointer's scalars";
  }
  case KS_FOR: {
    const KirExpr *part[3] = {s->loop.init, s->loop.bound, s->loop.step};
    for (int i = 0; i < 3; i++)
      if (part[i]->type && !is_int(part[i]->type)) return "a loop whose start, bound or step is not an int";
    return NULL;
  }
  case KS_IF:
    return !s->cond.cond->type || scalar_test(s->cond.cond->type) ? NULL : "an if whose test is not a bool or an int";
  case KS_BLOCK:
  case KS_BARRIER:
  case KS_EXPR:
  case KS_COMMENT: return NULL;
  case KS_RUN:
    /* the run's shape (kir.h): steps, and a template of assignments and
     * stores, each after its command's site */
    if (s->run.count < 1 || !s->run.steps || !s->run.body.first) return "a run of no steps";
    for (const KirStmt *t = s->run.body.first; t; t = t->next) {
      if (t->kind == KS_BARRIER ? !t->barrier.site : t->kind != KS_ASSIGN && t->kind != KS_VSTORE)
        return "a run whose template holds other than assignments, stores and their sites";
      const char *why = kir_stmt_type_violation(t);
      if (why) return why;
    }
    return NULL;
  }
  DPIA_EXHAUSTIVE_END
  return NULL;
}
