/* poly.h: the polynomial core shared by type-level sizes (size.h, spec
 * section 3) and the simplifier of index expressions (codegen/index.c, spec
 * section 8).
 *
 * A Poly is a sum of terms  num/den * a1^e1 * ... * ak^ek  over atoms.
 *
 * Atoms.  An atom is a pointer the core never looks into; the context says
 * how atoms compare.  With no compare function they are interned Syms:
 * ordered by name, the same atom exactly when the same pointer (sizes,
 * whose atoms are variables only).  Otherwise the context's compare
 * function orders them and its equal function (or compare == 0) tells
 * whether two are the same atom: the index simplifier's atoms are its Ix
 * nodes (variables, quotients, opaque expressions), equal by structure, in
 * an order that depends on the loop ranges in scope.  The front end thus
 * knows nothing of the layers that use opaque atoms.  Pointer-equal atoms
 * are always the same atom.
 *
 * Coefficients.  The core supports a denominator: sizes need rational
 * coefficients (N/2 is a size), index polynomials keep den == 1 throughout
 * (every operation maps integer coefficients to integer ones, except
 * poly_term_divide which says when it cannot).
 *
 * Canonical form, established by poly_normalise and kept by every
 * operation below:
 *   - each term has num != 0, den > 0, gcd(|num|, den) == 1;
 *   - each term's factors are sorted by the atom order, with distinct atoms
 *     and exponents 0 < |exp| <= max_exponent;
 *   - terms are sorted by poly_compare_monomials, with distinct monomials.
 * So two polynomials are equal as functions of their atoms exactly when
 * their canonical forms are identical (poly_eq).
 *
 * Overflow.  Arithmetic never wraps: a coefficient that leaves int64, an
 * exponent beyond max_exponent, a result of more than max_terms terms or a
 * product beyond max_products sets the sticky pc->overflow.  The result is then still a well-formed
 * polynomial (an overflowing coefficient reads 1, an oversized sum keeps
 * all its terms) but has no meaning; callers test the flag (sizes report
 * it, the index simplifier keeps the expression as written).
 *
 * Polynomials are immutable and live in the arena; results share factor
 * arrays with operands. */
#ifndef DPIA_POLY_H
#define DPIA_POLY_H

#include "util.h"

typedef const void *PolyAtom;

typedef struct PolyFactor {
  union {
    Sym var;       /* sizes: a variable */
    PolyAtom atom; /* any atom (the same pointer) */
  };
  int64_t exp; /* != 0 */
} PolyFactor;

typedef struct PolyTerm {
  int64_t num, den; /* coefficient num/den, den > 0, lowest terms */
  int nfactors;
  PolyFactor *factors; /* sorted by the atom order, distinct atoms */
} PolyTerm;

typedef struct Poly {
  int nterms; /* 0 means the constant 0 */
  PolyTerm *terms;
} Poly;

/* The atom order: compare(user, a, b) < 0, 0, > 0; a total order.  NULL:
 * atoms are Syms, ordered by strcmp. */
typedef int (*PolyCompare)(const void *user, PolyAtom a, PolyAtom b);
/* Whether two atoms are the same atom, when that is cheaper to tell than
 * their order (NULL: compare them). */
typedef bool (*PolyEqual)(PolyAtom a, PolyAtom b);

typedef struct PolyCtx {
  Arena *arena;
  PolyCompare compare;
  PolyEqual equal; /* NULL: compare == 0 */
  const void *user;
  int64_t max_exponent; /* beyond: overflow */
  int max_terms;        /* beyond: overflow */
  /* a product of more than this many term products is not computed:
   * overflow and 0 (poly_ctx_init: 0, no limit) */
  int max_products;
  bool overflow; /* sticky */
} PolyCtx;

/* inline: sizes make one per operation */
static inline void poly_ctx_init(PolyCtx *pc, Arena *arena, PolyCompare compare, PolyEqual equal, const void *user,
                                 int64_t max_exponent, int max_terms) {
  *pc = (PolyCtx){arena, compare, equal, user, max_exponent, max_terms, 0, false};
}

/* ---- checked int64 arithmetic (overflow: pc->overflow, result 1) ---- */
static inline int64_t poly_checked_add(PolyCtx *pc, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    pc->overflow = true;
    return 1;
  }
  return r;
}
static inline int64_t poly_checked_mul(PolyCtx *pc, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    pc->overflow = true;
    return 1;
  }
  return r;
}
/* gcd of the magnitudes; gcd(0, 0) = 0.  Fits int64 unless both operands
 * are 0 or INT64_MIN (2^63, returned as INT64_MIN). */
static inline int64_t poly_gcd(int64_t a, int64_t b) {
  /* on magnitudes, so that INT64_MIN takes part like any other value;
   * inline: sizes and indices ask it of most coefficients they scale */
  uint64_t x = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
  while (y != 0) {
    uint64_t r = x % y;
    x = y;
    y = r;
  }
  return (int64_t)x;
}

/* ---- exact rationals in 128 bits (evaluation, common denominators) ---- */
__extension__ typedef __int128 PolyWide;
/* A running exact sum of rationals: only its final value has to fit. */
typedef struct PolySum {
  PolyWide num, den; /* den > 0, lowest terms */
  bool overflow;
} PolySum;
void poly_sum_init(PolySum *s);
void poly_sum_add(PolySum *s, PolyWide num, PolyWide den); /* den > 0 */
/* n/d (d != 0) to lowest terms with d > 0; false for a magnitude of 2^127 */
bool poly_wide_reduce(PolyWide *n, PolyWide *d);
/* n/d (d != 0) as an int64 coefficient in lowest terms; false if it leaves int64 */
bool poly_coefficient(PolyWide n, PolyWide d, int64_t *num, int64_t *den);

/* ---- orders ---- */
static inline int poly_compare_atoms(const PolyCtx *pc, PolyAtom a, PolyAtom b) {
  if (a == b) return 0;
  if (pc->compare) return pc->compare(pc->user, a, b);
  int c = strcmp((Sym)a, (Sym)b);
  return (c > 0) - (c < 0);
}
/* The term order: the constant term last; otherwise higher total degree
 * first, then lexicographically by factors (the smaller atom first, for the
 * same atom the larger exponent first, a proper prefix first).  0 exactly
 * for the same monomial. */
int poly_compare_monomials(const PolyCtx *pc, const PolyTerm *a, const PolyTerm *b);
int64_t poly_degree(const PolyTerm *t);

/* ---- construction ---- */
static inline Poly poly_zero(void) { return (Poly){0, NULL}; }
/* room for n terms, zeroed: one term (most sizes) by an allocation of a
 * constant size, which zeroes in a few stores, not by a loop
 * (translation throughput, issue 35) */
static inline PolyTerm *poly_new_terms(Arena *arena, int n) {
  return n == 1 ? NEW(arena, PolyTerm) : NEWARRAY(arena, PolyTerm, n);
}
Poly poly_const(PolyCtx *pc, int64_t c);
Poly poly_atom(PolyCtx *pc, PolyAtom atom);
Poly poly_of_term(PolyCtx *pc, PolyTerm t);
/* Sorts and merges n terms (valid coefficients and monomials, any order,
 * possibly equal monomials) into canonical form, in the caller's array. */
Poly poly_normalise(PolyCtx *pc, PolyTerm *terms, int n);

/* ---- arithmetic ---- */
Poly poly_add(PolyCtx *pc, Poly a, Poly b);
Poly poly_sub(PolyCtx *pc, Poly a, Poly b);
Poly poly_scale(PolyCtx *pc, Poly a, int64_t c);
Poly poly_mul(PolyCtx *pc, Poly a, Poly b);
/* poly_mul without its shortcut for a constant operand: every product of
 * terms, then sorted (the same polynomial; for tests/unit/test_poly.c,
 * which compares the two) */
Poly poly_mul_general(PolyCtx *pc, Poly a, Poly b);
/* a^e, e >= 0 */
Poly poly_power(PolyCtx *pc, Poly a, int e);
/* the product of two terms (coefficients and monomials) */
PolyTerm poly_term_mul(PolyCtx *pc, const PolyTerm *a, const PolyTerm *b);
/* t/k for integer coefficients when k's coefficient (> 0) divides t's and
 * k's factors are among t's with no larger positive exponents: a monomial
 * of non-negative exponents again.  False otherwise. */
bool poly_term_divide(PolyCtx *pc, const PolyTerm *t, const PolyTerm *k, PolyTerm *out);
/* t with its factor at index i lowered by one power (removed at exponent 1) */
PolyTerm poly_term_lower(PolyCtx *pc, const PolyTerm *t, int i);
/* t without the atom */
PolyTerm poly_term_without(PolyCtx *pc, const PolyTerm *t, PolyAtom atom);

/* ---- queries ---- */
bool poly_eq(const PolyCtx *pc, Poly a, Poly b);
/* true and *v when p is an integer constant */
bool poly_const_value(Poly p, int64_t *v);
/* the exponent of atom in t, 0 if absent */
int64_t poly_exponent_of(const PolyCtx *pc, const PolyTerm *t, PolyAtom atom);
/* the term of p with t's monomial, or NULL */
const PolyTerm *poly_find_monomial(const PolyCtx *pc, Poly p, const PolyTerm *t);

#endif
