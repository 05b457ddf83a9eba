/* index_linear.c: an index that is a sum of its atoms times constants
 * (index_int.h, ix_linear_terms), read in one walk: most indices of the
 * generated code are (wg*4096 + lid*64 + i, the views' strides applied to
 * loop variables), and the simplifier's polynomial of one is its terms
 * sorted (index.c, to_poly). */
#include "index.h"
#include "index_int.h"

/* Path products at most 2^40 in magnitude (index_int.h): with at most
 * IX_LINEAR_TERMS leaves, every sum of them stays below 2^46. */
#define LINEAR_MAX_COEFFICIENT ((int64_t)1 << 40)

typedef struct Linear {
  int n;            /* atom terms so far */
  int leaves;       /* leaves met (atoms and constants) */
  int64_t constant; /* the constants' sum */
  PolyTerm terms[IX_LINEAR_TERMS];
  PolyFactor factors[IX_LINEAR_TERMS];
} Linear;

/* e times c added to l; false where e is not linear or leaves the bounds */
static bool collect(Linear *l, const Ix *e, int64_t c) {
  switch (e->kind) {
  case IX_CONST: {
    int64_t v;
    if (++l->leaves > IX_LINEAR_TERMS) return false;
    if (__builtin_mul_overflow(e->value, c, &v) || v > LINEAR_MAX_COEFFICIENT || v < -LINEAR_MAX_COEFFICIENT)
      return false;
    l->constant += v;
    return true;
  }
  case IX_VAR:
  case IX_EXPR:
    if (++l->leaves > IX_LINEAR_TERMS) return false;
    l->factors[l->n] = (PolyFactor){.atom = e, .exp = 1};
    l->terms[l->n] = (PolyTerm){c, 1, 1, NULL};
    l->n++;
    return true;
  case IX_ADD: return collect(l, e->a, c) && collect(l, e->b, c);
  case IX_SUB: return collect(l, e->a, c) && collect(l, e->b, -c);
  case IX_MUL: {
    /* a product by a constant: the other side's path product is c times
     * it (not 0, whose product the core would drop as it goes) */
    const Ix *k = e->a->kind == IX_CONST ? e->a : e->b->kind == IX_CONST ? e->b : NULL;
    if (!k || k->value == 0) return false;
    int64_t v;
    if (__builtin_mul_overflow(k->value, c, &v) || v > LINEAR_MAX_COEFFICIENT || v < -LINEAR_MAX_COEFFICIENT)
      return false;
    return collect(l, k == e->a ? e->b : e->a, v);
  }
  case IX_DIV:
  case IX_MOD: return false;
  }
  return false;
}

/* collect(l, e, c)'s answer, its leaves counted in *leaves, with no term
 * written: ix_linear asks only whether e is such a sum (a vector's lanes,
 * codegen/access_vector.c), at each vector read and write, and the terms'
 * writes were most of collect's cost a node (tests/unit/test_index.c
 * compares the two on every expression of its linear set) */
static bool within(const Ix *e, int64_t c, int *leaves) {
  switch (e->kind) {
  case IX_CONST: {
    int64_t v;
    return ++*leaves <= IX_LINEAR_TERMS && !__builtin_mul_overflow(e->value, c, &v) && v <= LINEAR_MAX_COEFFICIENT &&
           v >= -LINEAR_MAX_COEFFICIENT;
  }
  case IX_VAR:
  case IX_EXPR: return ++*leaves <= IX_LINEAR_TERMS;
  case IX_ADD: return within(e->a, c, leaves) && within(e->b, c, leaves);
  case IX_SUB: return within(e->a, c, leaves) && within(e->b, -c, leaves);
  case IX_MUL: {
    const Ix *k = e->a->kind == IX_CONST ? e->a : e->b->kind == IX_CONST ? e->b : NULL;
    if (!k || k->value == 0) return false;
    int64_t v;
    if (__builtin_mul_overflow(k->value, c, &v) || v > LINEAR_MAX_COEFFICIENT || v < -LINEAR_MAX_COEFFICIENT)
      return false;
    return within(k == e->a ? e->b : e->a, v, leaves);
  }
  case IX_DIV:
  case IX_MOD: return false;
  }
  return false;
}

bool ix_linear(const Ix *e) {
  int leaves = 0;
  return within(e, 1, &leaves);
}

int ix_linear_terms(Arena *a, const Ix *e, PolyTerm **terms) {
  Linear l;
  l.n = l.leaves = 0;
  l.constant = 0;
  if (!collect(&l, e, 1)) return -1;
  int n = l.n + (l.constant != 0);
  PolyTerm *out = NEWARRAY(a, PolyTerm, n > 0 ? n : 1);
  PolyFactor *factors = NEWARRAY(a, PolyFactor, l.n > 0 ? l.n : 1);
  for (int i = 0; i < l.n; i++) {
    factors[i] = l.factors[i];
    out[i] = l.terms[i];
    out[i].factors = &factors[i];
  }
  if (l.constant != 0) out[l.n] = (PolyTerm){l.constant, 1, 0, NULL};
  *terms = out;
  return n;
}
