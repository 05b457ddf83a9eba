/* index_build.c: index expressions as trees (index.h): the context, its
 * ranges and rows, the constructors that fold constants, and structural
 * equality.  The simplifier (index.c) and the printer (index_print.c)
 * read the trees made here. */
#include "index.h"
#include "kir.h"
#include "index_int.h"

#include <string.h>

/* ---- contexts and ranges ---- */

void ix_init(IxCtx *x, Arena *a) {
  x->arena = a;
  x->nranges = 0;
  x->cap = 0;
  x->ranges = NULL;
  x->print_expr = NULL;
  x->scope = x->scopes = 0;
  x->memo = NULL;
  x->nrows = x->row_cap = 0;
  x->row = NULL;
  x->row_ix = NULL;
  x->recent = NULL;
  x->general_polys = false;
}

void ix_push_row(IxCtx *x, Sym row, const Ix *index) {
  if (x->nrows == x->row_cap) {
    int cap = x->row_cap ? 2 * x->row_cap : 4;
    Sym *rows = NEWARRAY(x->arena, Sym, cap);
    const Ix **ixs = NEWARRAY(x->arena, const Ix *, cap);
    for (int k = 0; k < x->nrows; k++) rows[k] = x->row[k], ixs[k] = x->row_ix[k];
    x->row = rows, x->row_ix = ixs, x->row_cap = cap;
  }
  x->row[x->nrows] = row;
  x->row_ix[x->nrows++] = index;
}

void ix_pop_row(IxCtx *x) {
  ASSERT(x->nrows > 0);
  x->nrows--;
}

/* the index a dependent map's row is, innermost first; NULL if v is none */
const Ix *ix_row_index(const IxCtx *x, Sym v) {
  for (int k = x->nrows - 1; k >= 0; k--)
    if (x->row[k] == v) return x->row_ix[k];
  return NULL;
}

void ix_push_range(IxCtx *x, const Ix *atom, const Ix *lo, const Ix *hi) {
  ASSERT(atom->kind == IX_VAR || atom->kind == IX_EXPR);
  if (x->nranges == x->cap) {
    int cap = x->cap ? x->cap * 2 : 8;
    IxRange *grown = NEWARRAY(x->arena, IxRange, cap);
    if (x->nranges) memcpy(grown, x->ranges, sizeof(IxRange) * (size_t)x->nranges);
    x->ranges = grown;
    x->cap = cap;
  }
  x->scope = ++x->scopes;
  x->ranges[x->nranges++] = (IxRange){atom, atom->kind == IX_VAR ? atom->name : NULL, lo, hi, x->scope};
}

void ix_pop_range(IxCtx *x) {
  ASSERT(x->nranges > 0);
  x->nranges--;
  x->scope = x->nranges > 0 ? x->ranges[x->nranges - 1].scope : 0;
}

/* ---- constructors ---- */


/* a leaf: the caller fills it in, then seals it */
static Ix *new_leaf(IxCtx *x, IxKind kind) {
  Ix *e = NEW(x->arena, Ix);
  e->kind = kind;
  return e;
}

/* IxCtx.recent: 32 slots for constants and 32 for variables, a leaf's
 * slot the top bits of a Fibonacci hash of its value or of its name's
 * pointer; 64 for operator nodes, by their operator and operands'
 * pointers.  A hit or a miss depends on addresses, never the result: the
 * node kept is equal to the one that would be made (tests/unit/test_index,
 * test_recent_leaves) */
typedef struct IxRecentLeaves {
  const Ix *consts[32];
  const Ix *vars[32];
  const Ix *nodes[64];
} IxRecentLeaves;

static inline unsigned recent_slot(uint64_t key) { return (unsigned)((key * 0x9e3779b97f4a7c15u) >> 59); }

static IxRecentLeaves *recent_leaves(IxCtx *x) {
  if (!x->recent) x->recent = NEW(x->arena, IxRecentLeaves);
  return x->recent;
}

/* an operator node of operands a and b: the one made last of the same
 * operator and the very same operands where its slot holds it (equal
 * operands that are other nodes make another node, equal to it) */
const Ix *ix_node(IxCtx *x, IxKind kind, const Ix *a, const Ix *b) {
  uint64_t key = ((uint64_t)(uintptr_t)a * 31 + (uint64_t)(uintptr_t)b) * 8 + (uint64_t)kind;
  const Ix **slot = &recent_leaves(x)->nodes[(key * 0x9e3779b97f4a7c15u) >> 58];
  if (*slot && (*slot)->kind == kind && (*slot)->a == a && (*slot)->b == b) return *slot;
  Ix *e = new_leaf(x, kind);
  e->a = a;
  e->b = b;
  ix_seal(e);
  *slot = e;
  return e;
}

const Ix *ix_const(IxCtx *x, int64_t v) {
  const Ix **slot = &recent_leaves(x)->consts[recent_slot((uint64_t)v)];
  if (*slot && (*slot)->value == v) return *slot;
  Ix *e = new_leaf(x, IX_CONST);
  e->value = v;
  ix_seal(e);
  *slot = e;
  return e;
}

const Ix *ix_var(IxCtx *x, Sym name) {
  ASSERT(name != NULL);
  const Ix **slot = &recent_leaves(x)->vars[recent_slot((uint64_t)(uintptr_t)name)];
  if (*slot && (*slot)->name == name) return *slot;
  Ix *e = new_leaf(x, IX_VAR);
  e->name = name;
  ix_seal(e);
  *slot = e;
  return e;
}

const Ix *ix_expr(IxCtx *x, const KirExpr *expr) {
  ASSERT(expr != NULL && x->print_expr != NULL);
  Ix *e = new_leaf(x, IX_EXPR);
  e->expr = expr;
  Buf text;
  buf_init(&text, x->arena);
  ix_print_atom(&text, expr, x->print_expr);
  e->width = text.len;
  ix_seal(e);
  return e;
}

bool ix_const_value(const Ix *e, int64_t *v) {
  if (e->kind != IX_CONST) return false;
  *v = e->value;
  return true;
}

static bool is_const(const Ix *e, int64_t v) { return e->kind == IX_CONST && e->value == v; }

const Ix *ix_add(IxCtx *x, const Ix *a, const Ix *b) {
  int64_t va, vb, sum;
  if (ix_const_value(a, &va) && ix_const_value(b, &vb) && !__builtin_add_overflow(va, vb, &sum)) {
    return ix_const(x, sum);
  }
  if (is_const(a, 0)) return b;
  if (is_const(b, 0)) return a;
  return ix_node(x, IX_ADD, a, b);
}

const Ix *ix_sub(IxCtx *x, const Ix *a, const Ix *b) {
  int64_t va, vb, diff;
  if (ix_const_value(a, &va) && ix_const_value(b, &vb) && !__builtin_sub_overflow(va, vb, &diff)) {
    return ix_const(x, diff);
  }
  if (is_const(b, 0)) return a;
  if (ix_equal(a, b)) return ix_const(x, 0);
  return ix_node(x, IX_SUB, a, b);
}

const Ix *ix_mul(IxCtx *x, const Ix *a, const Ix *b) {
  int64_t va, vb, product;
  if (ix_const_value(a, &va) && ix_const_value(b, &vb) && !__builtin_mul_overflow(va, vb, &product)) {
    return ix_const(x, product);
  }
  /* x*0 is 0 whatever x is: index expressions have no side effects */
  if (is_const(a, 0) || is_const(b, 0)) return ix_const(x, 0);
  if (is_const(a, 1)) return b;
  if (is_const(b, 1)) return a;
  return ix_node(x, IX_MUL, a, b);
}

/* C's truncating division and remainder of constants; false where C leaves
 * the result undefined (division by zero, INT64_MIN / -1). */
bool ix_fold_division(IxKind kind, int64_t a, int64_t b, int64_t *out) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return false;
  *out = kind == IX_DIV ? a / b : a % b;
  return true;
}

const Ix *ix_div(IxCtx *x, const Ix *a, const Ix *b) {
  int64_t va, vb, quotient;
  if (ix_const_value(a, &va) && ix_const_value(b, &vb) && ix_fold_division(IX_DIV, va, vb, &quotient)) {
    return ix_const(x, quotient);
  }
  if (is_const(b, 1)) return a;
  return ix_node(x, IX_DIV, a, b);
}

const Ix *ix_mod(IxCtx *x, const Ix *a, const Ix *b) {
  int64_t va, vb, remainder;
  if (ix_const_value(a, &va) && ix_const_value(b, &vb) && ix_fold_division(IX_MOD, va, vb, &remainder)) {
    return ix_const(x, remainder);
  }
  if (is_const(b, 1)) return ix_const(x, 0);
  return ix_node(x, IX_MOD, a, b);
}

/* ---- equality ---- */

/* Names are compared as text (a loop variable's need not be interned);
 * most differ in their first character, which spares the call. */
bool ix_same_name(Sym a, Sym b) { return a == b || (a[0] == b[0] && strcmp(a, b) == 0); }

bool ix_equal(const Ix *a, const Ix *b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case IX_CONST: return a->value == b->value;
  case IX_VAR: return ix_same_name(a->name, b->name);
  case IX_EXPR: return kir_expr_equal(a->expr, b->expr);
  default: return ix_equal(a->a, b->a) && ix_equal(a->b, b->b);
  }
}
