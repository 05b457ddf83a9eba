/* partition.c: a loop split where its tests change (a pass over the
 * kernel IR, after lowering; the loop partitioning of Halide, Ragan-Kelley
 * et al., PLDI 2013).
 *
 * A kernel for any N pads its input up to a multiple of its tile
 * (docs/reference.md, "Sizes that do not divide"), and lowering reads each
 * padded element behind a test, `i >= N ? 0.0f : xs[i]`, and writes each
 * element that a take keeps behind another, `if (i < N) ys[i] = ...`, in
 * full tiles as in the last one.  In a sequential loop
 *
 *   for (int i = a; i < b; i += 1) body
 *
 * such a test is affine in i: c*i + r >= 0, with c a constant other than
 * 0 and r made of what the loop does not change (work-item ids, sizes,
 * enclosing loops' variables).  It has one value for the steps below
 * t = ceil(-r/c) (c > 0; ceil((r + 1)/-c) when c < 0) and the other from t
 * on, so the loop runs as two:
 *
 *   int i_split = min(b, max(a, t));
 *   for (int i = a; i < i_split; i += 1) body, the tests decided for i < t
 *   for (int i = i_split; i < b; i += 1) body, the tests decided for i >= t
 *
 * Full tiles then read without a test, and the padded steps read no
 * memory: they use the pad's value, whatever it is, so every step computes
 * what the guarded loop computed (a pad that is not the neutral element of
 * a reduction still gives the reference's answer).  A write guard decided
 * false leaves a loop with nothing to do, which kir_drop_dead removes.  A
 * loop is split in two when all its tests change at one step (the two
 * reads of a zip, a read and a write of one element), in three when they
 * change at steps a constant apart (a row of 16 reads per step, the two
 * borders of a window over a tile: the middle loop keeps the tests that
 * change there), and in three too when they change at steps of two
 * unrelated kinds (padding or clamping on both sides of the whole input:
 * gid*16 + i < 1, gid*16 + i + 2 >= N*16 + 1), the middle loop from the
 * last step of the one kind to the first of the other with every test
 * decided (partition_apart).  A min or max of the loop's variable is such
 * a test: padClamp's clamp, xs[max(gid*64 + i - 1, 0)], is xs[gid*64 + i
 * - 1] in the middle loop, which reads at unit stride and which the OpenCL
 * compiler vectorises, where PoCL 3.1 read the clamped neighbours of a
 * work-item per element with gathers (BENCHMARKS.md, stencils); so are
 * the two comparisons of a clamp, clampIdx's clamp(gid*64 + i + 1, 0,
 * N*64 - 1), which is its operand where both are decided.  A loop
 * whose body has a barrier is left as it is, since the split may differ
 * between the work-items of a group (spec section 5).
 * A split between constants is a constant, and a loop of no steps is left
 * out (a window's first and last steps peeled off); a loop whose ends are
 * 1 apart is its body, its variable declared (const int i = i_split;):
 * the last layer of a column clamped by padClamp, min(i + 1, NZ - 1),
 * runs once after the loop, and what it loads for steps that never come
 * is dead code the OpenCL compiler drops.  A test whose
 * divisor c is not 1 splits at (max(c*a, -r) + c - 1)/c: the max keeps the
 * quotient's operand non-negative, where C's truncating division is the
 * ceiling.
 *
 * Deciding a test is one mechanism, facts: inside the first loop the fact
 * is `t - 1 - i >= 0`, inside the second `i - t >= 0` (times c), and inside
 * an if its condition's comparisons (a conjunction's each), when the body
 * assigns none of their names.  A test e >= 0 is true where some fact f >= 0
 * has e - f a constant >= 0, and false where -e - 1 - f is one.  So under
 * a take's write guard, `if (wg*64 + lid < N)`, the read
 * `wg*64 + lid >= N ? 0.0f : xs[wg*64 + lid]` is xs[wg*64 + lid]: one test
 * per work-item instead of one per element.  The launch gives facts too:
 * a variable declared as a work-item's id, `int gid = get_global_id(0)`
 * with global size M, has gid >= 0 and M - 1 - gid >= 0 (OpenCL 1.2
 * section 3.2), and a split's min and max that the facts decide are left
 * out, a split that is then a variable not named again: covariance's
 * triangle, min(M, max(0, gid)), splits at gid.  So do the kernel's
 * preconditions a >= b (spec section 3: its launcher checks them before
 * it runs), everywhere in it: with NZ >= 1, min(NZ, max(0, NZ - 1)) is
 * NZ - 1 and a first layer's min(0, NZ - 1) is 0.  An id is a range of
 * the pass's indices too, so that an index rebuilt here prints as
 * lowering's do, gid*N before the sizes (index.c, atom_class), and reads
 * of one row share its pointer (pointers.c compares indices as written).
 *
 * An equality of the loop's variable, i_2 == i (ludDiagonal's position
 * equal to the step: docs/reference.md, "Sizes that do not divide"), is
 * the two tests i_2 - i >= 0 and i - i_2 >= 0, which change one step
 * apart: the loop runs as three, the middle one the step i alone, its
 * variable declared as the split's value (const int i_2 = i + 1;, so that
 * a split no loop is left to read is dead).  A min or max is noted by
 * the comparison that holds where its result is the operand of the
 * loop's variable, so the step where the operands are equal goes with
 * the middle loop (padClamp's max(r - 1, 0) clamps row 0 alone).  A
 * loop's own range, a <= i <= b - 1, is a fact in its body where the body
 * assigns neither i nor the names of a and b: the split of the positions
 * at the step i of an enclosing loop of 15 steps is i, not min(16, max(0,
 * i)).  A bool declared with a value the facts decide (a choice's own
 * condition, bool chosen = lid > i && false) has that value where it is
 * read and not assigned again, so the test of it is decided too; and a
 * private variable assigned to itself, what a decided choice leaves
 * (acc[0] = 0 > i ? ... : acc[0] where i >= 0), does nothing and goes.
 *
 * A vector of a padded row is built lane by lane, each lane a choice
 * (access.c: a choice is not the element it may read, so no vloadn); once
 * the choices are decided, lanes that read consecutive elements of one
 * buffer are a vloadn again (as_vload), and only the row where N falls is
 * read lane by lane. */
#include "kir.h"
#include "backend.h"

#include <string.h>

/* A linear combination of index atoms, k + sum of t[i].coef * t[i].atom:
 * a test's two sides brought to one (lhs - rhs).  Atoms are variables and
 * what the combination does not look into (a quotient, a remainder, a
 * product of two variables, an expression). */
enum { LIN_TERMS = 12, MAX_BOOLS = 8 };
typedef struct Term {
  const Ix *atom;
  int64_t coef;
} Term;
typedef struct Lin {
  int64_t k;
  int n;
  Term t[LIN_TERMS];
} Lin;

typedef struct Pass {
  Arena *arena;
  const Backend *backend; /* whose reserved names a split's name avoids */
  IxCtx ix;
  /* every name of the kernel as the pass found it, and those made here;
   * and the names it declared as private variables that are not
   * volatile, and those it declared otherwise (a name may be declared in
   * two blocks).  Both are gathered when first needed (most kernels never
   * need them: translation throughput, BENCHMARKS.md), from the kernel
   * as it is then and the statements dropped before (dropped), which
   * together bind the names it bound at first (known_names) */
  const KirKernel *k;
  bool known_names, known_privates;
  NameSet names;
  NameSet private_, other;
  Vec dropped; /* KirStmt *: taken out of the kernel before both were gathered */
  /* what is known where the walk is: e >= 0 for each fact e, a stack
   * that grows as deep as the walk goes (no fact is dropped: a split's
   * side dropped left the tests it decides in the loop, as written,
   * `i_2 < 1 || i_2 >= 3` in the step i_2 = 0, a constant operand of ||
   * clang warns of: tests/diff/regress/pad_guard_facts_deep_nest.dpia) */
  int nfacts, facts_cap;
  Lin *facts;
  /* bool variables whose declaration the facts decided and that nothing
   * assigns after it (a select's condition of its own, `bool chosen =
   * false;` in the loop before an equality's step): their values */
  int nbools;
  const char *bool_names[MAX_BOOLS];
  bool bool_values[MAX_BOOLS];
  /* a loop being considered: its variable, the names its body declares or
   * assigns, and the steps where its tests change, ceil((at + k)/div) for
   * lo <= k <= hi (found: one was seen; mixed: tests changing at steps
   * that differ by more than a constant) */
  const char *var;
  NameSet local;
  /* the loop whose body's names local holds, where partition gathered
   * them and left the loop as it was: push_loop_facts's, the same */
  const KirStmt *local_loop;
  bool found, mixed, barrier;
  int64_t div, lo, hi;
  Lin at; /* its constant 0 */
  const KirIdBounds *ids; /* the launch's sizes, bounds of the work-item ids */
  /* the same tests by the step where each changes, for a loop whose
   * tests change at steps of two unrelated kinds: apart[i] + k for
   * apart_lo[i] <= k <= apart_hi[i] (apart_bad: of more kinds, or with a
   * divisor) */
  int napart;
  bool apart_bad;
  Lin apart[2]; /* their constant 0 */
  int64_t apart_lo[2], apart_hi[2];
} Pass;

/* ---- linear combinations ---- */

static bool lin_term(Lin *l, const Ix *atom, int64_t coef) {
  for (int i = 0; i < l->n; i++) {
    if (!ix_equal(l->t[i].atom, atom)) continue;
    if (__builtin_add_overflow(l->t[i].coef, coef, &l->t[i].coef)) return false;
    if (l->t[i].coef == 0) { /* the order stays the source's: the printed split reads like the test */
      memmove(&l->t[i], &l->t[i + 1], sizeof l->t[0] * (size_t)(l->n - i - 1));
      l->n--;
    }
    return true;
  }
  if (l->n == LIN_TERMS) return false;
  l->t[l->n++] = (Term){atom, coef};
  return true;
}

static bool lin_const(Lin *l, int64_t value, int64_t scale) {
  int64_t v;
  return !__builtin_mul_overflow(value, scale, &v) && !__builtin_add_overflow(l->k, v, &l->k);
}

/* l += scale*e */
static bool lin_add_ix(Lin *l, const Ix *e, int64_t scale) {
  int64_t c;
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case IX_CONST: return lin_const(l, e->value, scale);
  case IX_ADD: return lin_add_ix(l, e->a, scale) && lin_add_ix(l, e->b, scale);
  case IX_SUB: return lin_add_ix(l, e->a, scale) && lin_add_ix(l, e->b, -scale);
  case IX_MUL:
    if (ix_const_value(e->a, &c)) return !__builtin_mul_overflow(c, scale, &c) && lin_add_ix(l, e->b, c);
    if (ix_const_value(e->b, &c)) return !__builtin_mul_overflow(c, scale, &c) && lin_add_ix(l, e->a, c);
    return lin_term(l, e, scale);
  case IX_VAR:
  case IX_EXPR:
  case IX_DIV:
  case IX_MOD: return lin_term(l, e, scale);
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

static bool lin_add(Lin *l, const Lin *e, int64_t scale) {
  for (int i = 0; i < e->n; i++) {
    int64_t c;
    if (__builtin_mul_overflow(e->t[i].coef, scale, &c) || !lin_term(l, e->t[i].atom, c)) return false;
  }
  return lin_const(l, e->k, scale);
}

/* a/c*c + a%c is a (C's truncating division: a >= 0, c > 0): the terms
 * k*c*(a/c) and k*(a%c) become k*a, as a row of a joined view indexes
 * an element, gid/64*64 + gid%64 */
static bool lin_fold_divmod(Lin *l) {
  for (int i = 0; i < l->n; i++) {
    const Ix *q = l->t[i].atom;
    int64_t c;
    if (q->kind != IX_DIV || !ix_const_value(q->b, &c) || c <= 0 || l->t[i].coef % c != 0) continue;
    int64_t k = l->t[i].coef / c;
    for (int j = 0; j < l->n; j++) {
      const Ix *r = l->t[j].atom;
      if (r->kind != IX_MOD || l->t[j].coef != k || !ix_equal(r->a, q->a) || !ix_equal(r->b, q->b)) continue;
      const Ix *a = q->a;
      return lin_term(l, q, -k * c) && lin_term(l, r, -k) && lin_add_ix(l, a, k) && lin_fold_divmod(l);
    }
  }
  return true;
}

/* l += scale*e, e an int: a constant, an index, an int variable */
static bool lin_add_expr(Pass *p, Lin *l, const KirExpr *e, int64_t scale) {
  const KirType *t = e->type;
  if (e->kind == KE_INT) return lin_const(l, e->value, scale);
  if (e->kind == KE_LIT && e->lit.scalar == SC_INT) return lin_const(l, e->lit.i, scale);
  if (e->kind == KE_IX) return lin_add_ix(l, e->ix, scale);
  if (e->kind == KE_VAR && t && t->kind == KTY_SCALAR && t->scalar == SC_INT && t->width == 1)
    return lin_term(l, ix_var(&p->ix, e->name), scale);
  /* a sum or difference of ints, as a value's arithmetic is written
   * (clampIdx's argument, toInt i + 1): the index it would be */
  if (e->kind == KE_BINARY && (e->bin.op == KB_ADD || e->bin.op == KB_SUB) && t && t->kind == KTY_SCALAR &&
      t->scalar == SC_INT && t->width == 1)
    return lin_add_expr(p, l, e->bin.lhs, scale) &&
           lin_add_expr(p, l, e->bin.rhs, e->bin.op == KB_ADD ? scale : -scale);
  return false;
}

/* e is a comparison of ints, the test *ge >= 0, or its negation
 * (*negated): lhs >= rhs is lhs - rhs >= 0, lhs > rhs is lhs - rhs - 1 >=
 * 0, and < and <= their negations */
static bool test_of(Pass *p, const KirExpr *e, Lin *ge, bool *negated) {
  if (e->kind != KE_BINARY) return false;
  KirBinop op = e->bin.op;
  if (op != KB_LT && op != KB_LE && op != KB_GT && op != KB_GE) return false;
  *ge = (Lin){0};
  *negated = op == KB_LT || op == KB_LE;
  bool strict = op == KB_GT || op == KB_LE;
  return lin_add_expr(p, ge, e->bin.lhs, 1) && lin_add_expr(p, ge, e->bin.rhs, -1) && lin_const(ge, strict, -1) &&
         lin_fold_divmod(ge);
}

/* e is an equality of ints, the test *eq == 0, or its negation (!=,
 * *negated): lhs - rhs == 0, which is lhs - rhs >= 0 and rhs - lhs >= 0
 * at once (ludDiagonal's position equal to the step, i_2 == i) */
static bool equality_of(Pass *p, const KirExpr *e, Lin *eq, bool *negated) {
  if (e->kind != KE_BINARY || (e->bin.op != KB_EQ && e->bin.op != KB_NE)) return false;
  *eq = (Lin){0};
  *negated = e->bin.op == KB_NE;
  return lin_add_expr(p, eq, e->bin.lhs, 1) && lin_add_expr(p, eq, e->bin.rhs, -1) && lin_fold_divmod(eq);
}

/* a constant c >= 0 with e - f == c */
static bool exceeds_by_const(const Lin *e, const Lin *f) {
  Lin d = *e;
  return lin_add(&d, f, -1) && d.n == 0 && d.k >= 0;
}

/* The value of the test e >= 0 where the facts hold: 1 or 0, or -1 when
 * they do not decide it. */
static int known(const Pass *p, const Lin *e) {
  Lin not = {0}; /* -e - 1 >= 0, the test's negation */
  if (!lin_add(&not, e, -1) || !lin_const(&not, 1, -1)) return -1;
  if (e->n == 0) return e->k >= 0; /* a constant: min(NZ, NZ - 1) */
  for (int i = 0; i < p->nfacts; i++) {
    if (exceeds_by_const(e, &p->facts[i])) return 1;
    if (exceeds_by_const(&not, &p->facts[i])) return 0;
  }
  return -1;
}

/* The value of the test e == 0 where the facts hold: 1 where they decide
 * e >= 0 and -e >= 0 both, 0 where they decide either false, -1 else. */
static int known_equal(const Pass *p, const Lin *e) {
  Lin neg = {0};
  if (!lin_add(&neg, e, -1)) return -1;
  int ge = known(p, e), le = known(p, &neg);
  return ge == 0 || le == 0 ? 0 : ge == 1 && le == 1 ? 1 : -1;
}

/* ---- deciding tests ---- */

static const KirExpr *truth(Pass *p, bool v) { return kir_lit(p->arena, (KirLit){.scalar = SC_BOOL, .i = v}); }

static bool int_scalar(const KirExpr *e) {
  const KirType *t = e->type;
  return t && t->kind == KTY_SCALAR && t->scalar == SC_INT && t->width == 1;
}

static bool is_bool(const KirExpr *e) {
  return e->type && e->type->kind == KTY_SCALAR && e->type->scalar == SC_BOOL && e->type->width == 1;
}

/* A vector whose lanes are consecutive elements of one buffer,
 * (float4)(xs[e], xs[e + 1], xs[e + 2], xs[e + 3]), as the lanes of a padded
 * row are once their tests are decided: vload4(e/4, xs), the load lowering
 * gives a row that is not padded (e a multiple of the width: lowering
 * made the row so); v itself otherwise. */
static const KirExpr *as_vload(Pass *p, const KirExpr *v) {
  int w = v->call.nargs;
  if (w < 2 || !v->type || v->type->kind != KTY_SCALAR || v->type->width != w) return v;
  const KirExpr *base = NULL;
  Lin first = {0};
  for (int i = 0; i < w; i++) {
    const KirExpr *l = v->call.args[i];
    if (l->kind != KE_INDEX || l->index.base->kind != KE_VAR || (base && !kir_expr_equal(base, l->index.base)))
      return v;
    base = l->index.base;
    Lin at = {0};
    if (!lin_add_expr(p, &at, l->index.at, 1) || (i > 0 && (!lin_add(&at, &first, -1) || at.n != 0 || at.k != i)))
      return v;
    if (i == 0) first = at;
  }
  const KirType *t = base->type;
  if (!t || t->kind != KTY_POINTER || t->to->kind != KTY_SCALAR || t->to->width != 1 ||
      t->to->scalar != v->type->scalar || first.k % w != 0)
    return v;
  const Ix *offset = ix_const(&p->ix, first.k / w);
  for (int i = 0; i < first.n; i++) {
    if (first.t[i].coef % w != 0 || first.t[i].coef < 0) return v;
    offset = ix_add(&p->ix, offset, ix_mul(&p->ix, first.t[i].atom, ix_const(&p->ix, first.t[i].coef / w)));
  }
  return kir_vload(p->arena, w, kir_ix(p->arena, ix_simplify(&p->ix, offset)), base);
}

static const KirExpr *decide(Pass *p, const KirExpr *e);

static bool calls(const KirExpr *e);

/* an index's expression atoms call a foreign function (a gather by a
 * computed index) */
static bool ix_calls(const Ix *e) {
  if (!e->exprs) return false; /* no expression atom: no call */
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case IX_CONST:
  case IX_VAR: return false;
  case IX_EXPR: return calls(e->expr);
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: return ix_calls(e->a) || ix_calls(e->b);
  }
  DPIA_EXHAUSTIVE_END
  return true;
}

/* e calls a foreign function (KE_CALL, the only effect an expression of
 * the kernel IR has: dead.c) */
static bool calls(const KirExpr *e) {
  if (!e) return false;
  if (e->kind == KE_IX) return ix_calls(e->ix);
  if (e->kind == KE_CALL) return true;
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++)
    if (calls(kids[i])) return true;
  return false;
}

/* An int min or max of x and y that the facts decide: x or y (a clamp of
 * padClamp's read that a test or a split already keeps inside, as
 * mapPadClamp's xs[min(gid*16 + i, N - 1)] in a loop that stops at N);
 * NULL if they do not. */
static const KirExpr *decide_min_max(Pass *p, KirBuiltin f, const KirExpr *x, const KirExpr *y) {
  /* x <= y where y - x >= 0 is known, x >= y where x - y >= 0 is */
  for (int x_is_smaller = 1; x_is_smaller >= 0; x_is_smaller--) {
    Lin d = {0};
    if (!lin_add_expr(p, &d, y, x_is_smaller ? 1 : -1) || !lin_add_expr(p, &d, x, x_is_smaller ? -1 : 1) ||
        !lin_fold_divmod(&d))
      return NULL;
    if (known(p, &d) == 1) return (f == KBI_MIN) == (x_is_smaller == 1) ? x : y;
  }
  return NULL;
}

static const Ix *lin_ix(Pass *p, const Lin *l);

/* l has a positive term, or a positive constant (lin_ix's operand) */
static bool has_positive(const Lin *l) {
  bool positive = l->k > 0;
  for (int i = 0; i < l->n; i++) positive = positive || l->t[i].coef > 0;
  return positive;
}

/* an index with the min and max that the facts decide taken off */
static const Ix *decide_ix(Pass *p, const Ix *e) {
  if (!e->exprs) return e; /* only expression atoms are decided */
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case IX_CONST:
  case IX_VAR: return e;
  case IX_EXPR: {
    const KirExpr *d = decide(p, e->expr);
    if (d == e->expr) return e;
    /* a clamp decided to its operand, a value's int arithmetic (toInt i
     * + 1): an index again, its terms atoms of the index */
    Lin l = {0};
    if (d->kind == KE_BINARY && lin_add_expr(p, &l, d, 1) && has_positive(&l)) return lin_ix(p, &l);
    return d->kind == KE_IX ? d->ix : d->kind == KE_INT ? ix_const(&p->ix, d->value) : ix_expr(&p->ix, d);
  }
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: {
    /* a constant or a variable is as it is (no call for it: most of an
     * index's leaves) */
    const Ix *a = e->a->kind == IX_CONST || e->a->kind == IX_VAR ? e->a : decide_ix(p, e->a);
    const Ix *b = e->b->kind == IX_CONST || e->b->kind == IX_VAR ? e->b : decide_ix(p, e->b);
    if (a == e->a && b == e->b) return e;
    if (e->kind == IX_ADD) return ix_add(&p->ix, a, b);
    if (e->kind == IX_SUB) return ix_sub(&p->ix, a, b);
    if (e->kind == IX_MUL) return ix_mul(&p->ix, a, b);
    if (e->kind == IX_DIV) return ix_div(&p->ix, a, b);
    return ix_mod(&p->ix, a, b);
  }
  }
  DPIA_EXHAUSTIVE_END
  return e;
}

/* e with the tests the facts decide replaced by their values, and what
 * holds them simplified: a choice by its branch, && and || by what is left
 * (an operand that is not dropped keeps its effects), ! of a value; a min
 * or max they decide by the operand it is */
static const KirExpr *decide(Pass *p, const KirExpr *e) {
  if (!e || (p->nfacts == 0 && p->nbools == 0)) return e;
  if (e->kind == KE_VAR)
    for (int i = p->nbools - 1; i >= 0; i--)
      if (strcmp(p->bool_names[i], e->name) == 0) return truth(p, p->bool_values[i]);
  if (e->kind == KE_IX) {
    const Ix *d = decide_ix(p, e->ix);
    return d == e->ix ? e : kir_ix(p->arena, ix_simplify(&p->ix, d));
  }
  /* any other leaf is as it is (a test or an equality is a KE_BINARY) */
  if (e->kind == KE_INT || e->kind == KE_LIT || e->kind == KE_QUERY || e->kind == KE_VAR) return e;
  Lin ge;
  bool negated, v, w;
  int value;
  bool test = test_of(p, e, &ge, &negated);
  if (test) {
    value = known(p, &ge);
    if (value >= 0) return truth(p, (value == 1) != negated);
  }
  if (equality_of(p, e, &ge, &negated)) {
    value = known_equal(p, &ge);
    return value < 0 ? e : truth(p, (value == 1) != negated);
  }
  const KirExpr *buf[3];
  const KirExpr *const *old;
  int n = kir_expr_children(e, buf, &old);
  /* the children as decided: old itself until one changes (most do not:
   * an array per node would be an allocation per node of every kernel),
   * then a copy made at the first change */
  const KirExpr **changed_kids = NULL;
  for (int i = 0; i < n; i++) {
    const KirExpr *d = decide(p, old[i]);
    if (d == old[i] && !changed_kids) continue;
    if (!changed_kids) {
      changed_kids = NEWARRAY(p->arena, const KirExpr *, n);
      for (int j = 0; j < i; j++) changed_kids[j] = old[j];
    }
    changed_kids[i] = d;
  }
  bool changed = changed_kids != NULL;
  const KirExpr *const *kids = changed ? changed_kids : old;
  /* a test the facts do not decide as written may be once the clamps in
   * its operands are: padCst's test on padClamp's index, clamp(i - 1, 0,
   * 2) < 1, is 0 < 1 in the loop's first step, where the read it guards,
   * priv[clamp(i - 1, 0, 2) - 1], is priv[-1] (a side never taken, but
   * one clang warns of: tests/diff/regress/dead_side_index_folded_negative.dpia) */
  if (test) {
    const KirExpr *r = changed ? kir_expr_rebuilt(p->arena, e, kids) : e;
    if (changed && test_of(p, r, &ge, &negated) && (value = known(p, &ge)) >= 0) return truth(p, (value == 1) != negated);
    return r;
  }
  if (e->kind == KE_COND && kir_is_truth(kids[0], &v)) return v ? kids[1] : kids[2];
  if (e->kind == KE_UNARY && e->un.op == '!' && kir_is_truth(kids[0], &v)) return truth(p, !v);
  if (e->kind == KE_BUILTIN && (e->call.builtin == KBI_MIN || e->call.builtin == KBI_MAX) && n == 2) {
    const KirExpr *operand = decide_min_max(p, e->call.builtin, kids[0], kids[1]);
    if (operand) return operand;
  }
  if (e->kind == KE_BUILTIN && e->call.builtin == KBI_CLAMP && n == 3 && int_scalar(e)) {
    /* clamp(x, lo, hi) is min(max(x, lo), hi) (OpenCL 1.2 section 6.12.4,
     * clampIdx's clamp(e, 0, N - 1)): decided where both are */
    const KirExpr *low = decide_min_max(p, KBI_MAX, kids[0], kids[1]);
    const KirExpr *operand = low ? decide_min_max(p, KBI_MIN, low, kids[2]) : NULL;
    if (operand) return operand;
  }
  if (e->kind == KE_BINARY) {
    KirBinop op = e->bin.op;
    bool conj = op == KB_AND || op == KB_ALL, disj = op == KB_OR;
    bool lv = kir_is_truth(kids[0], &v), rv = kir_is_truth(kids[1], &w);
    /* the left operand decides, or leaves the right one's value */
    if ((conj || disj) && lv) return v == conj ? kids[1] : truth(p, v);
    /* the right one leaves the left one's (a bool: a test) */
    if ((conj || disj) && rv && w == conj && is_bool(kids[0])) return kids[0];
    /* or decides, where the left one has no effect to keep (no call of a
     * foreign function: the kernel IR's only effects, dead.c) */
    if ((conj || disj) && rv && w != conj && !calls(kids[0])) return truth(p, w);
  }
  if (!changed) return e;
  const KirExpr *r = kir_expr_rebuilt(p->arena, e, kids);
  return r->kind == KE_VECTOR ? as_vload(p, r) : r;
}

/* ---- where a loop's tests change ---- */

/* e mentions only names the loop body neither declares nor assigns, and
 * not the loop's variable (an expression atom may read what the body
 * writes, a clamp or a gather: not one either) */
static bool invariant(const Pass *p, const Ix *e) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case IX_CONST: return true;
  case IX_VAR: return !(p->var && strcmp(e->name, p->var) == 0) && !nameset_has(&p->local, e->name);
  case IX_EXPR: return false;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: return invariant(p, e->a) && invariant(p, e->b);
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* e = coef*var + rest, rest's atoms invariant, coef not 0 */
static bool affine(const Pass *p, const Lin *e, int64_t *coef, Lin *rest) {
  *coef = 0;
  *rest = (Lin){.k = e->k};
  for (int i = 0; i < e->n; i++) {
    const Ix *a = e->t[i].atom;
    if (a->kind == IX_VAR && strcmp(a->name, p->var) == 0)
      *coef = e->t[i].coef;
    else if (!invariant(p, a))
      return false;
    else
      rest->t[rest->n++] = e->t[i];
  }
  return *coef != 0;
}

static bool lin_equal(const Lin *a, const Lin *b) {
  Lin d = *a;
  return lin_add(&d, b, -1) && d.n == 0 && d.k == 0;
}

/* the step where a test changes, at + k (at's constant 0), as one of at
 * most two unrelated kinds */
static void note_apart(Pass *p, const Lin *at, int64_t k, int64_t div) {
  if (div != 1) p->apart_bad = true;
  for (int i = 0; i < p->napart; i++)
    if (lin_equal(&p->apart[i], at)) {
      if (k < p->apart_lo[i]) p->apart_lo[i] = k;
      if (k > p->apart_hi[i]) p->apart_hi[i] = k;
      return;
    }
  if (p->napart == 2) {
    p->apart_bad = true;
    return;
  }
  p->apart[p->napart] = *at;
  p->apart_lo[p->napart] = p->apart_hi[p->napart] = k;
  p->napart++;
}

/* A test ge >= 0 of the loop's variable: where it changes, noted */
static void note_ge(Pass *p, const Lin *ge) {
  Lin rest, at = {0};
  int64_t c;
  if (known(p, ge) >= 0 || !affine(p, ge, &c, &rest)) return;
  /* c*i + rest >= 0 changes at ceil(-rest/c), or at ceil((rest + 1)/-c) */
  if (c == INT64_MIN || !lin_add(&at, &rest, c > 0 ? -1 : 1) || !lin_const(&at, c < 0, 1)) {
    p->mixed = p->apart_bad = true;
    return;
  }
  int64_t div = c > 0 ? c : -c, k = at.k;
  at.k = 0;
  note_apart(p, &at, k, div);
  if (!p->found) {
    p->found = true, p->div = div, p->at = at, p->lo = p->hi = k;
    return;
  }
  if (div != p->div || !lin_equal(&at, &p->at)) p->mixed = true;
  if (k < p->lo) p->lo = k;
  if (k > p->hi) p->hi = k;
}

/* y - x >= 0, noted where it changes */
static void note_le(Pass *p, const KirExpr *x, const KirExpr *y) {
  Lin ge = {0};
  if (lin_add_expr(p, &ge, y, 1) && lin_add_expr(p, &ge, x, -1) && lin_fold_divmod(&ge)) note_ge(p, &ge);
}

/* e is an int whose value changes with the loop's variable (a term of
 * it, as the combination has it) */
static bool varies(Pass *p, const KirExpr *e) {
  Lin l = {0};
  if (!lin_add_expr(p, &l, e, 1) || !lin_fold_divmod(&l)) return false;
  for (int i = 0; i < l.n; i++)
    if (l.t[i].atom->kind == IX_VAR && strcmp(l.t[i].atom->name, p->var) == 0) return true;
  return false;
}

/* A test of the loop's variable, or an int min or max of it (padClamp's
 * clamp, which decide_min_max takes off where the facts decide the
 * comparison x <= y), or a clamp of it (clampIdx's clamp(x, 0, N - 1): the
 * comparisons x >= 0 and x <= N - 1): where it changes, noted */
static void note_test(Pass *p, const KirExpr *e) {
  Lin ge;
  bool negated;
  if (test_of(p, e, &ge, &negated)) {
    note_ge(p, &ge);
    return;
  }
  /* an equality (or !=) is two tests: true from the step where e >= 0
   * becomes true until the one where -e >= 0 becomes false, one step
   * later for a variable of coefficient 1 (i_2 == i: below i, at i,
   * above it) */
  if (equality_of(p, e, &ge, &negated)) {
    Lin neg = {0};
    if (known_equal(p, &ge) >= 0) return;
    note_ge(p, &ge);
    if (lin_add(&neg, &ge, -1)) note_ge(p, &neg);
    return;
  }
  if (e->kind != KE_BUILTIN || !int_scalar(e)) return;
  const KirExpr *const *a = e->call.args;
  if ((e->call.builtin == KBI_MIN || e->call.builtin == KBI_MAX) && e->call.nargs == 2) {
    /* x, the operand of the loop's variable, against y: min(x, y) is x
     * while x <= y, max(x, y) is x from x >= y on, and where x == y both
     * are.  The test noted is the one that holds where the result is x,
     * so that the step x == y goes with x, the loop's inner part: a
     * padClamp's max(r - 1, 0) clamps row 0 alone, not rows 0 and 1
     * (jacobi2dStrips), as clamp(x, lo, hi)'s x - lo >= 0 and hi - x >= 0
     * do */
    int x = varies(p, a[0]) ? 0 : varies(p, a[1]) ? 1 : 0;
    if (e->call.builtin == KBI_MIN)
      note_le(p, a[x], a[1 - x]);
    else
      note_le(p, a[1 - x], a[x]);
  }
  if (e->call.builtin == KBI_CLAMP && e->call.nargs == 3) note_le(p, a[1], a[0]), note_le(p, a[0], a[2]);
}

static void note_tests(Pass *p, const KirExpr *e);

/* the tests in an index's expression atoms (a clamped index) */
static void note_ix_tests(Pass *p, const Ix *e) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case IX_CONST:
  case IX_VAR: return;
  case IX_EXPR: note_tests(p, e->expr); return;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD:
    note_ix_tests(p, e->a);
    note_ix_tests(p, e->b);
    return;
  }
  DPIA_EXHAUSTIVE_END
}

static void note_tests(Pass *p, const KirExpr *e) {
  if (!e) return;
  if (e->kind == KE_IX) note_ix_tests(p, e->ix);
  note_test(p, e);
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++) note_tests(p, kids[i]);
}

static const KirExpr *noted(void *p, const KirExpr *e) {
  note_tests(p, e);
  return e;
}

static const KirExpr *decided(void *p, const KirExpr *e) { return decide(p, e); }

static void note_block(Pass *p, KirBlock *b) {
  for (KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_BARRIER) p->barrier = true;
    kir_map_exprs(s, noted, p);
    KirBlock *inner = kir_body(s);
    if (inner) note_block(p, inner);
  }
}

/* ---- the walk ---- */

static void push_fact(Pass *p, const Lin *f) {
  if (p->nfacts == p->facts_cap) { /* the arena's: the old stack is left to it */
    int cap = p->facts_cap ? 2 * p->facts_cap : 16;
    Lin *grown = NEWARRAY(p->arena, Lin, cap);
    if (p->nfacts) memcpy(grown, p->facts, sizeof *grown * (size_t)p->nfacts);
    p->facts = grown, p->facts_cap = cap;
  }
  p->facts[p->nfacts++] = *f;
}

/* the comparisons of a condition (a conjunction's each) whose names the
 * body (local) does not change, as facts */
static void push_condition(Pass *p, const KirExpr *e) {
  Lin ge;
  bool negated;
  if (e->kind == KE_BINARY && (e->bin.op == KB_AND || e->bin.op == KB_ALL)) {
    push_condition(p, e->bin.lhs);
    push_condition(p, e->bin.rhs);
    return;
  }
  if (!test_of(p, e, &ge, &negated)) return;
  for (int i = 0; i < ge.n; i++)
    if (!invariant(p, ge.t[i].atom)) return;
  Lin f = {0};
  if (negated && (!lin_add(&f, &ge, -1) || !lin_const(&f, 1, -1))) return;
  push_fact(p, negated ? &f : &ge);
}

/* l as an index: its positive terms (its constant if it has none), then
 * the negative ones taken away, N - wg*4096 - lid*64; l has a positive
 * term or constant */
static const Ix *lin_ix(Pass *p, const Lin *l) {
  const Ix *e = NULL;
  for (int i = 0; i < l->n; i++)
    if (l->t[i].coef > 0) {
      const Ix *term = ix_mul(&p->ix, l->t[i].atom, ix_const(&p->ix, l->t[i].coef));
      e = e ? ix_add(&p->ix, e, term) : term;
    }
  bool k_first = !e;
  if (k_first) e = ix_const(&p->ix, l->k);
  for (int i = 0; i < l->n; i++)
    if (l->t[i].coef < 0) e = ix_sub(&p->ix, e, ix_mul(&p->ix, l->t[i].atom, ix_const(&p->ix, -l->t[i].coef)));
  if (!k_first && l->k > 0) e = ix_add(&p->ix, e, ix_const(&p->ix, l->k));
  if (!k_first && l->k < 0) e = ix_sub(&p->ix, e, ix_const(&p->ix, -l->k));
  return e;
}

static const KirExpr *int_builtin(Pass *p, KirBuiltin f, const KirExpr *x, const KirExpr *y) {
  return kir_builtin(p->arena, f, kir_scalar1(SC_INT), (const KirExpr *const[]){x, y});
}

/* min(bound, max(init, ceil(at/div))), a step where the loop splits, or
 * NULL where the tests change at a step that is never > 0 (no positive
 * term: lowering decides those) */
static const KirExpr *split_step(Pass *p, const KirStmt *loop, const Lin *at_lin) {
  bool positive = has_positive(at_lin);
  int64_t init;
  bool const_init = kir_const_int(loop->loop.init, &init);
  if (!positive || (p->div > 1 && (!const_init || init < 0 || __builtin_mul_overflow(init, p->div, &init))))
    return NULL;
  int64_t bound;
  if (at_lin->n == 0 && const_init && kir_const_int(loop->loop.bound, &bound)) { /* a constant step */
    int64_t t = (at_lin->k + p->div - 1) / p->div, first = p->div > 1 ? init / p->div : init;
    return kir_int(p->arena, t < first ? first : t > bound ? bound : t);
  }
  const KirExpr *at = kir_ix(p->arena, lin_ix(p, at_lin));
  if (p->div == 1 && at_lin->n == 0 && const_init) /* min(NZ, 2), not min(NZ, max(0, 2)) */
    return int_builtin(p, KBI_MIN, loop->loop.bound, kir_int(p->arena, at_lin->k > init ? at_lin->k : init));
  /* the min and max that the facts decide (the launch's bounds of an id:
   * min(M, max(0, gid)) is gid) are left out */
  if (p->div == 1)
    return decide(p, int_builtin(p, KBI_MIN, loop->loop.bound, int_builtin(p, KBI_MAX, loop->loop.init, at)));
  /* the max is an atom of the quotient, >= 0 as an index's atoms are */
  IxCtx *x = &p->ix;
  const Ix *from = ix_expr(x, int_builtin(p, KBI_MAX, kir_int(p->arena, init), at));
  const Ix *up = ix_div(x, ix_add(x, from, ix_const(x, p->div - 1)), ix_const(x, p->div));
  return int_builtin(p, KBI_MIN, loop->loop.bound, kir_ix(p->arena, up));
}

/* e is neither a constant nor a variable: a value worth a name */
static bool computed(const KirExpr *e) {
  int64_t c;
  return !kir_const_int(e, &c) && e->kind != KE_VAR && !(e->kind == KE_IX && e->ix->kind == IX_VAR);
}

static void known_names(Pass *p);

static const char *fresh_name(Pass *p, const char *base) {
  known_names(p);
  const char *name = base;
  for (int k = 2; nameset_has(&p->names, name) || backend_reserved(p->backend, name); k++)
    name = arena_printf(p->arena, "%s_%d", base, k);
  nameset_add(&p->names, name);
  return name;
}

static void walk_block(Pass *p, KirBlock *b);
static void known_privates(Pass *p);

/* replace s (after prev in b) with the statements of body */
static void splice(KirBlock *b, KirStmt *prev, KirStmt *s, KirBlock body) {
  KirStmt *next = s->next;
  if (!body.first) {
    if (prev)
      prev->next = next;
    else
      b->first = next;
    if (b->last == s) b->last = prev;
    return;
  }
  if (prev)
    prev->next = body.first;
  else
    b->first = body.first;
  body.last->next = next;
  if (b->last == s) b->last = body.last;
}

/* s (after prev in b) taken out, its names kept for the sets gathered
 * later (Pass.dropped) */
static void drop(Pass *p, KirBlock *b, KirStmt *prev, KirStmt *s) {
  if (!p->known_names || !p->known_privates) vec_push(p->arena, &p->dropped, s);
  splice(b, prev, s, (KirBlock){0});
}

/* int name = init; */
static KirStmt *int_decl(Pass *p, const char *name, const KirExpr *init) {
  KirStmt *d = kir_stmt(p->arena, KS_DECL);
  d->decl.space = KSP_PRIVATE;
  d->decl.type = kir_scalar1(SC_INT);
  d->decl.name = name;
  d->decl.array_len = -1;
  d->decl.init = init;
  return d;
}

/* int name = init; declared after prev in b, the name made fresh */
static KirStmt *declare_int(Pass *p, KirBlock *b, KirStmt *prev, const char *name, const KirExpr *init) {
  KirStmt *d = int_decl(p, fresh_name(p, name), init);
  kir_insert_after(b, prev, d);
  return d;
}

/* the facts i < ceil(at/div), div*i < at: at - div*i - 1 >= 0 (below), or
 * i >= ceil(at/div): div*i - at >= 0 */
static void push_side(Pass *p, const char *var, const Lin *at, int64_t div, bool below) {
  Lin f = {0};
  /* With a constant split and a divisor, the variable is an integer: div*i
   * <= at - 1 is div*i <= div*floor((at - 1)/div), and div*i >= at is
   * div*i >= div*ceil(at/div).  The tighter fact decides the tests whose
   * own steps lie between (i*3 + 1 < 3 at the step i = 1 of a split at 2
   * and 5, i.e. 3*i >= 2 and 3*i <= 4: tests/diff/regress/
   * pad_guard_constant_row_warning.dpia). */
  Lin tight = *at;
  if (div > 1 && at->n == 0) {
    int64_t k = below ? at->k - 1 : at->k, q = k / div; /* C's quotient truncates */
    if (below && k % div != 0 && k < 0) q -= 1;         /* the floor */
    if (!below && k % div != 0 && k > 0) q += 1;        /* the ceiling */
    tight.k = q * div + (below ? 1 : 0);
  }
  at = &tight;
  bool ok = lin_add(&f, at, below ? 1 : -1) && lin_term(&f, ix_var(&p->ix, var), below ? -div : div) &&
            lin_const(&f, below, -1);
  if (!ok) INTERNAL("partition: the split of loop %s overflows", var);
  push_fact(p, &f);
}

/* l += scale*e, e a loop's end (an int: a variable of the loop's bounds
 * is one, whatever type its declaration gave it) */
static bool lin_add_end(Pass *p, Lin *l, const KirExpr *e, int64_t scale) {
  return e->kind == KE_VAR ? lin_term(l, ix_var(&p->ix, e->name), scale) : lin_add_expr(p, l, e, scale);
}

/* to - from is the constant 1 */
static bool one_step(Pass *p, const KirExpr *from, const KirExpr *to) {
  Lin d = {0};
  bool ok = lin_add_end(p, &d, to, 1) && lin_add_end(p, &d, from, -1);
  return ok && d.n == 0 && d.k == 1;
}

/* to - from is a constant <= 0: no steps */
static bool no_steps(Pass *p, const KirExpr *from, const KirExpr *to) {
  Lin d = {0};
  bool ok = lin_add_end(p, &d, to, 1) && lin_add_end(p, &d, from, -1);
  return ok && d.n == 0 && d.k <= 0;
}

/* the loop s of one step: { const int var = init; body } in its place */
static void one_step_block(Pass *p, KirStmt *s) {
  KirStmt *d = int_decl(p, s->loop.var, s->loop.init);
  d->decl.is_const = true;
  d->comment = s->comment;
  KirBlock body = s->loop.body;
  d->next = body.first;
  if (!body.last) body.last = d;
  body.first = d;
  s->kind = KS_BLOCK;
  s->comment = NULL;
  s->block.body = body;
}

static KirStmt *partition_apart(Pass *p, KirBlock *b, KirStmt *prev, KirStmt *s);
static void push_loop_facts(Pass *p, const KirStmt *s);
static KirStmt *split_loop(Pass *p, KirBlock *b, KirStmt *prev, KirStmt *s, const Lin *lo_at, const Lin *hi_at,
                           bool three, const KirExpr *split_lo, const KirExpr *split_hi);

/* The loop s, in b after prev, split where its tests change: in two, or
 * in three where they change at steps a constant apart (a step reading
 * xs[2*i] and xs[2*i + 1]: the middle loop keeps the tests that change
 * there, at most a few steps).  The loops' bodies are walked with their
 * facts.  The last loop, or NULL where the loop is not split. */
static KirStmt *partition(Pass *p, KirBlock *b, KirStmt *prev, KirStmt *s) {
  int64_t step;
  if (!kir_const_int(s->loop.step, &step) || step != 1) return NULL;
  const char *var = s->loop.var;
  p->var = var;
  p->local = (NameSet){.arena = p->arena};
  kir_names_bound(&s->loop.body, &p->local);
  p->local_loop = s;
  p->found = p->mixed = p->barrier = p->apart_bad = false;
  p->napart = 0;
  note_block(p, &s->loop.body);
  p->var = NULL;
  if (!p->found || p->barrier) return NULL;
  if (p->mixed) return partition_apart(p, b, prev, s);
  Lin lo = p->at, hi = p->at;
  lo.k = p->lo, hi.k = p->hi;
  bool three = p->lo != p->hi;
  const KirExpr *split_lo = split_step(p, s, &lo), *split_hi = three ? split_step(p, s, &hi) : NULL;
  if (!split_lo || (three && !split_hi)) return NULL;
  return split_loop(p, b, prev, s, &lo, &hi, three, split_lo, split_hi);
}

/* a - b is a sum of non-negative terms (an index's atoms are >= 0), at
 * least one, and a constant (N - 3), or a constant >= 0: a is the later
 * step but where the sizes are small */
static bool later(const Lin *a, const Lin *b) {
  Lin d = *a;
  if (!lin_add(&d, b, -1) || (d.n == 0 && d.k < 0)) return false;
  for (int i = 0; i < d.n; i++)
    if (d.t[i].coef < 0) return false;
  return true;
}

/* The loop s, whose tests change at steps of two unrelated kinds, t1
 * and t2 the last of the one and the first of the other (a window
 * clamped at both ends of its whole input: max(gid*64 + i - 1, 0) changes
 * at 2 - gid*64, min(gid*64 + i + 1, N - 1) at N - gid*64 - 1), split in
 * three, the middle loop with every test decided:
 *
 *   int i_lo = min(b, max(a, t1));
 *   int i_hi = min(b, max(i_lo, t2));
 *
 * The second split starts from the first, not from a: where t2 < t1 after
 * all, the middle loop runs no step and none runs twice (so whichever
 * step is taken first, each loop's facts hold).  t2 - t1 must be a sum of
 * non-negative terms and a constant (N - 3), so that the middle loop is
 * the long one; else the loop is left as it is. */
static KirStmt *partition_apart(Pass *p, KirBlock *b, KirStmt *prev, KirStmt *s) {
  if (p->apart_bad || p->napart != 2) return NULL;
  /* the middle loop from the last step of one kind to the first of the
   * other (a window of 9: from 5 - gid*8 to N - gid*8 - 4) */
  Lin last[2], first_[2];
  for (int i = 0; i < 2; i++) {
    last[i] = first_[i] = p->apart[i];
    last[i].k = p->apart_hi[i], first_[i].k = p->apart_lo[i];
  }
  int first = later(&first_[1], &last[0]) ? 0 : later(&first_[0], &last[1]) ? 1 : -1;
  if (first < 0) return NULL;
  Lin lo = last[first], hi = first_[1 - first];
  p->div = 1;
  const KirExpr *split_lo = split_step(p, s, &lo);
  if (!split_lo || !split_step(p, s, &hi)) return NULL;
  return split_loop(p, b, prev, s, &lo, &hi, true, split_lo, NULL);
}

/* The loop s split at split_lo (and split_hi, three; NULL: the step hi
 * from split_lo on), lo and hi the steps as facts: the loops after s in
 * b, each walked with its facts; the last. */
static KirStmt *split_loop(Pass *p, KirBlock *b, KirStmt *prev, KirStmt *s, const Lin *lo_at, const Lin *hi_at,
                           bool three, const KirExpr *split_lo, const KirExpr *split_hi) {
  const char *var = s->loop.var;
  Lin lo = *lo_at, hi = *hi_at;
  /* gathered before the loops are made: a loop of one step becomes a
   * declaration of its variable (one_step_block), which private_names
   * would count */
  known_privates(p);
  /* a split that is not a constant or a variable (the loops' tests'
   * bounds do not change in them) is computed once, before the loops */
  const KirExpr *at_lo = split_lo, *at_hi = three ? split_hi : split_lo;
  if (computed(split_lo)) {
    KirStmt *d = declare_int(p, b, prev, arena_printf(p->arena, three ? "%s_lo" : "%s_split", var), split_lo);
    at_lo = kir_var(p->arena, d->decl.name, kir_scalar1(SC_INT));
    prev = d;
    if (!three) at_hi = at_lo;
  }
  if (three && !split_hi) { /* the loop as it starts at the first split */
    KirStmt from_lo = *s;
    from_lo.loop.init = at_lo;
    split_hi = split_step(p, &from_lo, &hi);
    at_hi = split_hi;
  }
  if (three && computed(split_hi)) {
    KirStmt *d = declare_int(p, b, prev, arena_printf(p->arena, "%s_hi", var), split_hi);
    at_hi = kir_var(p->arena, d->decl.name, kir_scalar1(SC_INT));
  }
  KirStmt whole = *s; /* its range, facts in each loop (push_loop_facts) */
  KirStmt *loops[3] = {s, NULL, NULL};
  int n = three ? 3 : 2;
  for (int i = 1; i < n; i++) {
    loops[i] = kir_stmt(p->arena, KS_FOR);
    *loops[i] = *s;
    loops[i]->loop.body = kir_block_copy(p->arena, &s->loop.body);
    kir_insert_after(b, loops[i - 1], loops[i]);
  }
  s->loop.bound = at_lo;
  loops[1]->loop.init = at_lo;
  if (three) loops[1]->loop.bound = loops[2]->loop.init = at_hi;
  int64_t div = p->div;
  int saved = p->nfacts;
  push_loop_facts(p, &whole);
  int ranged = p->nfacts;
  /* this loop's divisor: walking a loop's body partitions the loops in
   * it, which set p->div to theirs (a 16 x 32 tile's rows, divisor 1,
   * around its panels, 32), and the facts of the loops after the first
   * are this loop's */
  for (int i = 0; i < n; i++) {
    /* every test decided below the first step, and from the last on; in
     * between, those that change there */
    if (i == 0) push_side(p, var, &lo, div, true);
    if (i > 0 && i < n - 1) push_side(p, var, &lo, div, false), push_side(p, var, &hi, div, true);
    if (i == n - 1) push_side(p, var, &hi, div, false);
    walk_block(p, &loops[i]->loop.body);
    p->nfacts = ranged;
  }
  p->nfacts = saved;
  /* a loop of one step, its ends a constant 1 apart (a window's last
   * layer after the clamp's split, from NZ - 1 to NZ), is its body with the
   * variable declared: no loop, and what the step loads for the steps
   * after it is seen to be dead */
  const KirExpr *ends[4] = {s->loop.init, split_lo, three ? split_hi : NULL, loops[n - 1]->loop.bound};
  if (!three) ends[2] = ends[3];
  for (int i = 0; i < n; i++)
    if (ends[i] && ends[i + 1] && one_step(p, ends[i], ends[i + 1])) {
      /* the split's value, not its name: the step reads const int i_2 = i
       * + 1, and a split that no loop is left to read (the other loops'
       * bodies decided empty, which kir_drop_dead removes) goes with them
       * (the names of the split's value are not assigned by the loops
       * before it: they are invariant in the loop's body) */
      loops[i]->loop.init = ends[i];
      one_step_block(p, loops[i]);
    }
  /* a loop of no steps, between constant splits or between ends that
   * differ by a constant (a padCst's zeros before the diagonal, from gid
   * to gid, under a mirror's j >= i: docs/language.md section 29.1), is
   * left out */
  KirStmt *last = loops[n - 1];
  for (int i = n - 1; i >= 0; i--) {
    if (loops[i]->kind != KS_FOR) continue;
    int64_t from, to;
    bool constant = kir_const_int(loops[i]->loop.init, &from) && kir_const_int(loops[i]->loop.bound, &to);
    if (constant ? from < to : !no_steps(p, loops[i]->loop.init, loops[i]->loop.bound)) continue;
    KirStmt *before = NULL;
    for (KirStmt *t = b->first; t != loops[i]; t = t->next) before = t;
    if (last == loops[i]) last = before;
    drop(p, b, before, loops[i]);
  }
  return last;
}

static bool declares(const KirBlock *b) {
  for (const KirStmt *s = b->first; s; s = s->next)
    if (s->kind == KS_DECL) return true;
  return false;
}

/* The bound of the work-item id that init is (get_global_id(d) and the
 * like, int-cast or not), when the launch it was generated for fixes it;
 * NULL otherwise. */
static const Ix *id_bound(const Pass *p, const KirExpr *init) {
  const KirExpr *q = kir_query_of(init);
  if (!q) return NULL;
  int d = q->query.dim;
  DPIA_EXHAUSTIVE_BEGIN
  switch (q->query.query) {
  case KQ_GLOBAL_ID: return p->ids->global_known[d] ? ix_from_size(p->ids->ix, p->ids->global[d]) : NULL;
  case KQ_GROUP_ID: return p->ids->groups[d];
  case KQ_LOCAL_ID: return p->ids->local[d];
  case KQ_GLOBAL_SIZE:
  case KQ_NUM_GROUPS:
  case KQ_LOCAL_SIZE: return NULL;
  }
  DPIA_EXHAUSTIVE_END
  return NULL;
}

/* int v = get_global_id(d), launched with global size n: 0 <= v <= n - 1,
 * facts for the rest of the block (an id variable is never assigned), so
 * that a split between the id and the loop's ends is decided where the
 * launch decides it (covariance's triangle: min(M, max(0, gid)) is gid) */
static void push_id_facts(Pass *p, const KirStmt *s) {
  const Ix *bound = s->kind == KS_DECL ? id_bound(p, s->decl.init) : NULL;
  if (!bound) return;
  const Ix *v = ix_var(&p->ix, s->decl.name);
  /* and a range: an index rebuilt here prints the id before the sizes,
   * gid*NX as lowering wrote it (index.c, atom_class), not NX*gid */
  ix_push_range(&p->ix, v, NULL, bound);
  Lin low = {0}, high = {0};
  if (lin_term(&low, v, 1)) push_fact(p, &low);
  if (lin_add_ix(&high, bound, 1) && lin_term(&high, v, -1) && lin_const(&high, 1, -1)) push_fact(p, &high);
}

/* l's atoms are all invariant (p->local the loop body's names) */
static bool lin_invariant(const Pass *p, const Lin *l) {
  for (int i = 0; i < l->n; i++)
    if (!invariant(p, l->t[i].atom)) return false;
  return true;
}

/* for (v = a; v < b; v += step), step > 0, v and the names of a and b
 * not assigned in its body: v - a >= 0 and b - 1 - v >= 0 there, facts
 * for its body (whichever loop a split makes of it, these hold): the
 * step of lud's reduceSeq, 0 <= i <= 14, keeps a split at i_2 == i
 * between 0 and 16, so min(16, max(0, i)) is i */
static void push_loop_facts(Pass *p, const KirStmt *s) {
  int64_t step;
  bool gathered = p->local_loop == s;
  p->local_loop = NULL;
  if (!kir_const_int(s->loop.step, &step) || step <= 0) return;
  if (!gathered) {
    p->local = (NameSet){.arena = p->arena};
    kir_names_bound(&s->loop.body, &p->local);
  }
  if (nameset_has(&p->local, s->loop.var)) return;
  const Ix *v = ix_var(&p->ix, s->loop.var);
  Lin low = {0}, high = {0};
  if (lin_term(&low, v, 1) && lin_add_end(p, &low, s->loop.init, -1) && lin_invariant(p, &low)) push_fact(p, &low);
  if (lin_add_end(p, &high, s->loop.bound, 1) && lin_term(&high, v, -1) && lin_const(&high, 1, -1) &&
      lin_invariant(p, &high))
    push_fact(p, &high);
}

/* bool v = init, init decided true or false (a select's condition of its
 * own, ludDiagonal's chosen, where a split decided its equality), and v
 * not assigned after its declaration in b (a name is not declared again
 * inside its scope: kir_invariant_violation): v's value, for the rest of
 * the block */
static void push_bool(Pass *p, const KirBlock *b, const KirStmt *s) {
  bool v;
  if (s->kind != KS_DECL || !s->decl.init || s->decl.array_len >= 0 || !kir_is_truth(s->decl.init, &v) ||
      p->nbools == MAX_BOOLS)
    return;
  NameSet after = {.arena = p->arena};
  kir_names_bound(&(KirBlock){.first = s->next, .last = b->last}, &after);
  if (nameset_has(&after, s->decl.name)) return;
  p->bool_names[p->nbools] = s->decl.name;
  p->bool_values[p->nbools++] = v;
}

/* the variable an l-value writes (x, x[k], x.f), or NULL */
static const char *lvalue_root(const KirExpr *e) {
  while (e->kind == KE_INDEX || e->kind == KE_MEMBER || e->kind == KE_LANE)
    e = e->kind == KE_INDEX ? e->index.base : e->kind == KE_MEMBER ? e->member.base : e->lane.base;
  return e->kind == KE_VAR ? e->name : NULL;
}

/* s is x = x for a private variable x (or an element of it), as a choice
 * the facts decided leaves where its side kept the old value
 * (ludPerimeter's acc[0] = 0 > i ? ... : acc[0] where i >= 0): it does
 * nothing (a private variable is its work-item's alone and not volatile) */
static bool self_assignment(Pass *p, const KirStmt *s) {
  if (s->kind != KS_ASSIGN || !kir_expr_equal(s->assign.lhs, s->assign.rhs) || calls(s->assign.lhs)) return false;
  const char *root = lvalue_root(s->assign.lhs);
  if (!root) return false;
  known_privates(p);
  return nameset_has(&p->private_, root) && !nameset_has(&p->other, root);
}

/* s and the statements after it are tests that the facts decide false
 * (none: true) */
static bool vanishes(Pass *p, const KirStmt *s) {
  bool v;
  for (; s; s = s->next)
    if (s->kind != KS_IF || !kir_is_truth(decide(p, s->cond.cond), &v) || v) return false;
  return true;
}

/* Does any statement of a run's template have a test or a min or max the
 * facts decide?  The steps are written out where one has: the template is
 * never changed.  Where none has, no step has either (a run is kept as it
 * is): the facts are the same at every step (the steps declare nothing
 * and test nothing); a step's expressions are its template's but for
 * their indices with $step, plain sums (no clamp or other expression
 * atom, which decide_ix alone looks into) under an element or a vector
 * load or store (a test's ints, lin_add_expr, never look under those);
 * and the steps assign what the template does, none a value to itself
 * (self_assignment: gen_steps_by_copy makes no run of a template whose
 * assignment has two sides of one kind, which that needs). */
static bool run_decided(Pass *p, KirStmt *run) {
  for (KirStmt *t = run->run.body.first; t; t = t->next) {
    if (!kir_run_template_stmt(t)) continue;
    KirStmt copy = *t;
    kir_map_exprs(&copy, decided, p);
    bool same = t->kind == KS_ASSIGN ? copy.assign.lhs == t->assign.lhs && copy.assign.rhs == t->assign.rhs
                                     : copy.vstore.value == t->vstore.value && copy.vstore.offset == t->vstore.offset &&
                                           copy.vstore.ptr == t->vstore.ptr;
    if (!same) return true;
  }
  return false;
}

static void walk_block(Pass *p, KirBlock *b) {
  KirStmt *prev = NULL;
  int outer_facts = p->nfacts, outer_bools = p->nbools, outer_ranges = p->ix.nranges;
  for (KirStmt *s = b->first; s;) {
    kir_map_exprs(s, decided, p); /* none of a run's */
    push_id_facts(p, s);
    push_bool(p, b, s);
    if (self_assignment(p, s)) { /* nothing to do */
      drop(p, b, prev, s);
      s = prev ? prev->next : b->first;
      continue;
    }
    bool v;
    if (s->kind == KS_IF && kir_is_truth(s->cond.cond, &v)) {
      /* decided: its body in its place (a scope of its own if it declares
       * names and statements follow it, which may declare them again in
       * their own scopes: a kernel never shadows a name, so the names of
       * the block's last statement, or of one before tests that the facts
       * decide false (the other side of a choice, if (!chosen)), are new
       * to it), or nothing */
      if (v && declares(&s->cond.body) && !vanishes(p, s->next)) {
        KirBlock body = s->cond.body;
        s->kind = KS_BLOCK;
        s->block.body = body;
        continue;
      }
      KirStmt *first = v ? s->cond.body.first : NULL;
      if (v)
        splice(b, prev, s, s->cond.body);
      else
        drop(p, b, prev, s);
      s = first ? first : prev ? prev->next : b->first;
      continue;
    }
    if (s->kind == KS_IF) {
      int saved = p->nfacts;
      p->local = (NameSet){.arena = p->arena};
      p->local_loop = NULL;
      kir_names_bound(&s->cond.body, &p->local);
      push_condition(p, s->cond.cond);
      walk_block(p, &s->cond.body);
      p->nfacts = saved;
      if (s->cond.body.first != s->cond.body.last) s->cond.one_line = false;
    } else if (s->kind == KS_FOR) {
      /* the tests of its variable are found in every statement of its
       * body, and a split copies and decides the body: its runs written
       * out first */
      if (p->k->runs_made) kir_write_out_runs_in(p->arena, &s->loop.body);
      KirStmt *last = partition(p, b, prev, s);
      if (last) {
        p->local_loop = NULL; /* split: s's body walked, its names no longer kept */
        prev = last;
        s = last->next;
        continue;
      }
      int saved = p->nfacts;
      push_loop_facts(p, s);
      walk_block(p, &s->loop.body);
      p->nfacts = saved;
    } else if (s->kind == KS_BLOCK) {
      walk_block(p, &s->block.body);
    } else if (s->kind == KS_RUN && run_decided(p, s)) {
      s = kir_run_write_out(p->arena, b, prev, s); /* its steps decided one by one */
      continue;
    }
    prev = s;
    s = s->next;
  }
  p->nfacts = outer_facts, p->nbools = outer_bools; /* the block's own ids and bools are out of scope */
  while (p->ix.nranges > outer_ranges) ix_pop_range(&p->ix);
  /* a scope alone in a block, which is a scope already (the side of an
   * if that a split decided, with the other side gone): its statements */
  if (b->first && b->first == b->last && b->first->kind == KS_BLOCK) *b = b->first->block.body;
}

/* the names b declares as private variables that are not volatile (into
 * private), and those it declares otherwise (into other) */
static void private_names(const KirBlock *b, NameSet *private_, NameSet *other) {
  for (const KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_DECL) {
      NameSet *into = s->decl.space == KSP_PRIVATE && !s->decl.is_volatile ? private_ : other;
      if (!nameset_has(into, s->decl.name)) nameset_add(into, s->decl.name);
    }
    const KirBlock *inner = kir_body((KirStmt *)s);
    if (inner) private_names(inner, private_, other);
  }
}

/* the names s binds, as kir_names_bound's of a block of s alone */
static void stmt_names_bound(const KirStmt *s, NameSet *names) {
  if (s->kind == KS_DECL) nameset_add(names, s->decl.name);
  if (s->kind == KS_FOR) nameset_add(names, s->loop.var);
  if (s->kind == KS_ASSIGN && s->assign.lhs->kind == KE_VAR) nameset_add(names, s->assign.lhs->name);
  const KirBlock *inner = kir_body((KirStmt *)s);
  if (inner) kir_names_bound(inner, names);
}

/* Pass.names, once: the kernel's names and those of the statements
 * dropped, which are the names the kernel bound when the pass began (no
 * step before the first fresh name makes a name: a decided test's body
 * keeps its statements, a split's copies repeat names, a loop of one step
 * declares its own variable) */
static void known_names(Pass *p) {
  if (p->known_names) return;
  p->known_names = true;
  const KirKernel *k = p->k;
  for (int i = 0; i < k->nparams; i++) nameset_add(&p->names, k->params[i].name);
  for (int i = 0; i < k->ntops; i++) nameset_add(&p->names, k->tops[i].name);
  kir_names_bound(&k->locals, &p->names);
  kir_names_bound(&k->body, &p->names);
  for (int i = 0; i < p->dropped.len; i++) stmt_names_bound(p->dropped.items[i], &p->names);
}

/* Pass.private_ and Pass.other, once, before any loop is split (its
 * declarations are then those the kernel had when the pass began, less
 * the dropped ones, whose names count as declared) */
static void known_privates(Pass *p) {
  if (p->known_privates) return;
  p->known_privates = true;
  const KirKernel *k = p->k;
  private_names(&k->locals, &p->other, &p->other);
  private_names(&k->body, &p->private_, &p->other);
  for (int i = 0; i < p->dropped.len; i++) {
    const KirStmt *s = p->dropped.items[i];
    if (s->kind == KS_DECL) {
      NameSet *into = s->decl.space == KSP_PRIVATE && !s->decl.is_volatile ? &p->private_ : &p->other;
      if (!nameset_has(into, s->decl.name)) nameset_add(into, s->decl.name);
    }
    const KirBlock *inner = kir_body((KirStmt *)s);
    if (inner) private_names(inner, &p->private_, &p->other);
  }
}

void kir_partition_loops(Arena *a, const Backend *backend, KirKernel *k, const KirIdBounds *ids, bool no_shortcuts) {
  if (!no_shortcuts && !kir_partition_has_work(&k->body)) {
    k->shortcuts |= KIR_SHORTCUT_PARTITION;
    return;
  }
  Pass p = {.arena = a, .backend = backend, .k = k, .names = {.arena = a}, .ids = ids};
  ix_init(&p.ix, a);
  p.ix.print_expr = backend->print_expr;
  p.private_ = p.other = (NameSet){.arena = a};
  for (int i = 0; i < ids->nleast; i++) { /* lhs - rhs >= 0 */
    Lin f = {0};
    if (lin_add_ix(&f, ids->least_lhs[i], 1) && lin_add_ix(&f, ids->least_rhs[i], -1)) push_fact(&p, &f);
  }
  walk_block(&p, &k->body);
}
