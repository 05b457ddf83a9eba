/* index.c: index expressions of generated code (index.h). */
#include "index.h"

#include <inttypes.h>
#include <string.h>

/* ---- contexts and ranges ---- */

void ix_init(IxCtx *x, Arena *a) {
  x->arena = a;
  x->nranges = 0;
  x->cap = 0;
  x->ranges = NULL;
}

void ix_push_range(IxCtx *x, Sym var, const Ix *lo, const Ix *hi) {
  if (x->nranges == x->cap) {
    int cap = x->cap ? x->cap * 2 : 8;
    IxRange *grown = NEWARRAY(x->arena, IxRange, cap);
    if (x->nranges) memcpy(grown, x->ranges, sizeof(IxRange) * (size_t)x->nranges);
    x->ranges = grown;
    x->cap = cap;
  }
  x->ranges[x->nranges++] = (IxRange){var, lo, hi};
}

void ix_pop_range(IxCtx *x) {
  ASSERT(x->nranges > 0);
  x->nranges--;
}

/* ---- constructors ---- */

static Ix *new_node(IxCtx *x, IxKind kind, const Ix *a, const Ix *b) {
  Ix *e = NEW(x->arena, Ix);
  e->kind = kind;
  e->a = a;
  e->b = b;
  return e;
}

const Ix *ix_const(IxCtx *x, int64_t v) {
  Ix *e = new_node(x, IX_CONST, NULL, NULL);
  e->value = v;
  return e;
}

const Ix *ix_var(IxCtx *x, Sym name) {
  ASSERT(name != NULL);
  Ix *e = new_node(x, IX_VAR, NULL, NULL);
  e->name = name;
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
  return new_node(x, IX_ADD, a, b);
}

const Ix *ix_sub(IxCtx *x, const Ix *a, const Ix *b) {
  int64_t va, vb, diff;
  if (ix_const_value(a, &va) && ix_const_value(b, &vb) && !__builtin_sub_overflow(va, vb, &diff)) {
    return ix_const(x, diff);
  }
  if (is_const(b, 0)) return a;
  if (ix_equal(a, b)) return ix_const(x, 0);
  return new_node(x, IX_SUB, a, b);
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
  return new_node(x, IX_MUL, a, b);
}

/* C's truncating division and remainder of constants; false where C leaves
 * the result undefined (division by zero, INT64_MIN / -1). */
static bool fold_division(IxKind kind, int64_t a, int64_t b, int64_t *out) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return false;
  *out = kind == IX_DIV ? a / b : a % b;
  return true;
}

const Ix *ix_div(IxCtx *x, const Ix *a, const Ix *b) {
  int64_t va, vb, quotient;
  if (ix_const_value(a, &va) && ix_const_value(b, &vb) && fold_division(IX_DIV, va, vb, &quotient)) {
    return ix_const(x, quotient);
  }
  if (is_const(b, 1)) return a;
  return new_node(x, IX_DIV, a, b);
}

const Ix *ix_mod(IxCtx *x, const Ix *a, const Ix *b) {
  int64_t va, vb, remainder;
  if (ix_const_value(a, &va) && ix_const_value(b, &vb) && fold_division(IX_MOD, va, vb, &remainder)) {
    return ix_const(x, remainder);
  }
  if (is_const(b, 1)) return ix_const(x, 0);
  return new_node(x, IX_MOD, a, b);
}

/* ---- sizes ---- */

__extension__ typedef __int128 Wide;

static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    int64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* v^n as a product of n factors v */
static const Ix *power(IxCtx *x, Sym v, int64_t n, const Ix *acc) {
  for (int64_t k = 0; k < n; k++) acc = ix_mul(x, acc, ix_var(x, v));
  return acc;
}

/* The common denominator of s: lcm of the coefficient denominators and each
 * variable to its largest negative exponent.  False if the lcm leaves int64. */
static bool size_denominator(IxCtx *x, Size s, int64_t *lcm, SizeFactor **vars, int *nvars) {
  Wide l = 1;
  int capacity = 0;
  for (int i = 0; i < s.nterms; i++) capacity += s.terms[i].nfactors;
  SizeFactor *found = NEWARRAY(x->arena, SizeFactor, capacity > 0 ? capacity : 1);
  int n = 0;
  for (int i = 0; i < s.nterms; i++) {
    const SizeTerm *t = &s.terms[i];
    l = l / gcd64((int64_t)(l % t->den), t->den) * t->den;
    if (l > INT64_MAX) return false;
    for (int j = 0; j < t->nfactors; j++) {
      if (t->factors[j].exp > 0) continue;
      int k = 0;
      while (k < n && found[k].var != t->factors[j].var) k++;
      if (k == n) found[n++] = (SizeFactor){t->factors[j].var, 0};
      if (found[k].exp < -t->factors[j].exp) found[k].exp = -t->factors[j].exp;
    }
  }
  /* the order of the denominator's variables follows the size's term order,
   * which is canonical */
  *lcm = (int64_t)l;
  *vars = found;
  *nvars = n;
  return true;
}

/* One term times the common denominator: an integer coefficient and
 * non-negative exponents.  False if the coefficient leaves int64. */
static bool scaled_term(IxCtx *x, const SizeTerm *t, int64_t lcm, const SizeFactor *vars, int nvars,
                        const Ix **out) {
  Wide coefficient = (Wide)t->num * (lcm / t->den);
  if (coefficient > INT64_MAX || coefficient < -INT64_MAX) return false;
  const Ix *product = ix_const(x, coefficient < 0 ? -(int64_t)coefficient : (int64_t)coefficient);
  const Ix *monomial = ix_const(x, 1);
  for (int j = 0; j < t->nfactors; j++) {
    int64_t e = t->factors[j].exp;
    for (int k = 0; k < nvars; k++) {
      if (vars[k].var == t->factors[j].var) e += vars[k].exp;
    }
    monomial = power(x, t->factors[j].var, e, monomial);
  }
  for (int k = 0; k < nvars; k++) {
    bool in_term = false;
    for (int j = 0; j < t->nfactors; j++) in_term |= t->factors[j].var == vars[k].var;
    if (!in_term) monomial = power(x, vars[k].var, vars[k].exp, monomial);
  }
  /* variables first, coefficient last: N*2, not 2*N */
  *out = ix_mul(x, monomial, product);
  return true;
}

static const Ix *divide_by_denominator(IxCtx *x, const Ix *numerator, int64_t lcm,
                                       const SizeFactor *vars, int nvars) {
  const Ix *denominator = ix_const(x, 1);
  for (int k = 0; k < nvars; k++) denominator = power(x, vars[k].var, vars[k].exp, denominator);
  denominator = ix_mul(x, denominator, ix_const(x, lcm));
  return ix_div(x, numerator, denominator);
}

/* sum over terms of numerator(t)/denominator(t), signs applied */
static const Ix *sum_of_terms(IxCtx *x, Size s, bool per_term, int64_t lcm, const SizeFactor *vars,
                              int nvars) {
  const Ix *sum = NULL;
  /* positive terms first, so that no sum starts with a subtraction from 0 */
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < s.nterms; i++) {
      const SizeTerm *t = &s.terms[i];
      bool negative = t->num < 0;
      if (negative != (pass == 1)) continue;
      const Ix *term;
      if (per_term) {
        SizeFactor *own = NULL;
        int64_t own_lcm = 0;
        int own_n = 0;
        Size single = {1, (SizeTerm *)t};
        bool ok = size_denominator(x, single, &own_lcm, &own, &own_n) &&
                  scaled_term(x, t, own_lcm, own, own_n, &term);
        if (!ok) INTERNAL("size term with a coefficient beyond int64");
        term = divide_by_denominator(x, term, own_lcm, own, own_n);
      } else if (!scaled_term(x, t, lcm, vars, nvars, &term)) {
        return NULL;
      }
      if (!sum) {
        sum = negative ? ix_sub(x, ix_const(x, 0), term) : term;
      } else {
        sum = negative ? ix_sub(x, sum, term) : ix_add(x, sum, term);
      }
    }
  }
  return sum ? sum : ix_const(x, 0);
}

const Ix *ix_from_size(IxCtx *x, Size s) {
  int64_t lcm;
  SizeFactor *vars;
  int nvars;
  if (size_denominator(x, s, &lcm, &vars, &nvars)) {
    const Ix *numerator = sum_of_terms(x, s, false, lcm, vars, nvars);
    if (numerator) return divide_by_denominator(x, numerator, lcm, vars, nvars);
  }
  /* No common denominator fits in int64: one exact division per term. */
  return sum_of_terms(x, s, true, 0, NULL, 0);
}

/* ---- equality ---- */

bool ix_equal(const Ix *a, const Ix *b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case IX_CONST: return a->value == b->value;
  case IX_VAR: return a->name == b->name;
  default: return ix_equal(a->a, b->a) && ix_equal(a->b, b->b);
  }
}

/* ---- printing ---- */

/* Binding strength in C: sums 1, products 2, atoms 3. */
static int precedence(const Ix *e) {
  switch (e->kind) {
  case IX_CONST: return e->value < 0 ? 0 : 3;
  case IX_VAR: return 3;
  case IX_ADD:
  case IX_SUB: return 1;
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: return 2;
  }
  INTERNAL("bad index kind %d", (int)e->kind);
}

static const char *const operator_text[] = {
    [IX_ADD] = " + ", [IX_SUB] = " - ", [IX_MUL] = "*", [IX_DIV] = "/", [IX_MOD] = "%",
};

/* Does the right operand need parentheses?  Only where C would regroup it
 * to a different value: a - (b + c), a*(b/c), a/(b*c).  a + (b - c) and
 * a*(b*c) are the same numbers without them. */
static bool right_needs_parens(IxKind parent, const Ix *right) {
  int p = precedence(right);
  if (p == 0) return true;
  switch (parent) {
  case IX_ADD: return false;
  case IX_SUB: return p <= 1;
  case IX_MUL: return p < 2 || right->kind != IX_MUL;
  default: return p <= 2;
  }
}

static bool left_needs_parens(IxKind parent, const Ix *left) {
  int p = precedence(left);
  if (p == 0) return false; /* unary minus binds tighter than any operator */
  int parent_precedence = parent == IX_ADD || parent == IX_SUB ? 1 : 2;
  return p < parent_precedence;
}

/* Where printed text goes: a buffer, or only a count of its length (the
 * simplifier compares the lengths of candidate forms). */
typedef struct Printer {
  Buf *out; /* NULL: count only */
  size_t length;
} Printer;

static void print_text(Printer *p, const char *s) {
  size_t n = strlen(s);
  if (p->out) buf_put(p->out, s, n);
  p->length += n;
}

static size_t decimal_length(int64_t v) {
  uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  size_t n = v < 0 ? 2 : 1;
  while (magnitude >= 10) {
    magnitude /= 10;
    n++;
  }
  return n;
}

static void print_node(Printer *p, const Ix *e);

static void print_operand(Printer *p, const Ix *e, bool parens) {
  if (parens) print_text(p, "(");
  print_node(p, e);
  if (parens) print_text(p, ")");
}

static void print_node(Printer *p, const Ix *e) {
  switch (e->kind) {
  case IX_CONST:
    if (p->out) emit(p->out, "%" PRId64, e->value);
    p->length += decimal_length(e->value);
    return;
  case IX_VAR: print_text(p, e->name); return;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD:
    print_operand(p, e->a, left_needs_parens(e->kind, e->a));
    print_text(p, operator_text[e->kind]);
    print_operand(p, e->b, right_needs_parens(e->kind, e->b));
    return;
  }
  INTERNAL("bad index kind %d", (int)e->kind);
}

void ix_print(Buf *out, const Ix *e) {
  Printer p = {out, 0};
  print_node(&p, e);
}

static size_t printed_length(const Ix *e) {
  Printer p = {NULL, 0};
  print_node(&p, e);
  return p.length;
}

/* ---- simplification ---- */

static const Ix *rebuild(IxCtx *x, const Ix *e) {
  switch (e->kind) {
  case IX_CONST:
  case IX_VAR: return e;
  case IX_ADD: return ix_add(x, rebuild(x, e->a), rebuild(x, e->b));
  case IX_SUB: return ix_sub(x, rebuild(x, e->a), rebuild(x, e->b));
  case IX_MUL: return ix_mul(x, rebuild(x, e->a), rebuild(x, e->b));
  case IX_DIV: return ix_div(x, rebuild(x, e->a), rebuild(x, e->b));
  case IX_MOD: return ix_mod(x, rebuild(x, e->a), rebuild(x, e->b));
  }
  INTERNAL("bad index kind %d", (int)e->kind);
}

const Ix *ix_simplify(IxCtx *x, const Ix *e) {
  const Ix *folded = rebuild(x, e);
  return printed_length(folded) <= printed_length(e) ? folded : e;
}

bool ix_provably_less(IxCtx *x, const Ix *e, const Ix *bound) {
  int64_t ve, vb;
  const Ix *se = ix_simplify(x, e), *sb = ix_simplify(x, bound);
  return ix_const_value(se, &ve) && ix_const_value(sb, &vb) && ve < vb;
}
