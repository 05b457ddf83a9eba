/* size.h: type-level natural numbers in canonical form (spec section 3,
 * paper Figure 1c).
 *
 * A size is a sum of terms  coef * a1^e1 * ... * ak^ek  where coef is a
 * rational num/den (den > 0, gcd(num, den) = 1, num != 0), the exponents are
 * non-zero integers (x/y is x * y^-1) and the factors are atoms (variables,
 * or floor atoms for ceil(N/k) and N % k, below), sorted.  Terms are sorted
 * (see size_print) and have pairwise distinct monomials, so two sizes
 * without floor atoms are equal as numbers for every value of their
 * variables exactly when their canonical forms are identical: size_eq
 * compares structure (with floor atoms: identical forms are equal numbers).
 *
 * The representation is the polynomial core's (poly.h), shared with the
 * index simplifier of code generation (spec section 8).
 *
 * Sizes are immutable and live in the arena.  Arithmetic never wraps: any
 * coefficient or constant that leaves int64 sets sc->overflow and returns a
 * zero size; the caller reports it.  Variables are interned Syms; the type
 * checker uses names beginning with '?' for its inference metavariables. */
#ifndef DPIA_SIZE_H
#define DPIA_SIZE_H

#include "poly.h"

/* The core's polynomials (poly.h) over size atoms: factor.atom is a
 * const SizeAtom *, term.num/den the coefficient. */
typedef PolyFactor SizeFactor;
typedef PolyTerm SizeTerm;
typedef Poly Size;

/* An atom of a size: a variable (a nat parameter, a metavariable), or the
 * rounded-down quotient floor(num/den) of two sizes, which is how ceil(N/k)
 * and N % k are written in canonical form (docs/reference.md, "Sizes that
 * do not divide"):
 *   ceil(N/k) = floor((N + k - 1)/k),   N % k = N - k*floor(N/k).
 * A floor atom is kept in a normal form by size_floor_div: num and den are
 * polynomials with integer coefficients and positive exponents, den is not
 * 1 and does not divide num; for a constant den every coefficient of num
 * lies in [0, den) and num, den have no common factor (floor((N + 64*M +
 * 127)/64) is M + 1 + floor((N + 63)/64)); for any other den the terms of
 * num that den divides are taken out when what remains keeps non-negative
 * coefficients.  So num is never negative where the sizes are natural
 * numbers, and C's truncating division computes the floor.  Two floor
 * atoms are the same atom when their num and den are identical; equal
 * values written differently beyond these rules (floor(floor(N/2)/3) and
 * floor(N/6)) are different atoms, so size_eq may say "not equal" of
 * sizes that are, never "equal" of sizes that are not.
 *
 * Atoms are ordered variables first (by name), then floor atoms (by den,
 * then num); the order only has to be total and deterministic. */
typedef enum SizeAtomKind { SIZE_ATOM_VAR, SIZE_ATOM_FLOOR } SizeAtomKind;
typedef struct SizeAtom {
  SizeAtomKind kind;
  Sym var;       /* SIZE_ATOM_VAR: interned */
  Poly num, den; /* SIZE_ATOM_FLOOR: floor(num/den) */
} SizeAtom;

static inline const SizeAtom *size_factor_atom(const SizeFactor *f) { return (const SizeAtom *)f->atom; }
/* the variable of a factor, NULL for a floor atom */
static inline Sym size_factor_var(const SizeFactor *f) {
  const SizeAtom *a = size_factor_atom(f);
  return a->kind == SIZE_ATOM_VAR ? a->var : NULL;
}

typedef struct SizeCtx {
  Arena *arena;
  bool overflow; /* sticky: set by any operation that left int64 */
} SizeCtx;

Size size_const(SizeCtx *sc, int64_t n);
Size size_var(SizeCtx *sc, Sym v);
Size size_add(SizeCtx *sc, Size a, Size b);
Size size_sub(SizeCtx *sc, Size a, Size b);
Size size_mul(SizeCtx *sc, Size a, Size b);
/* a times the constant num/den (lowest terms, den > 0): size_mul's
 * product, each coefficient scaled at once where none leaves int64
 * (tests/unit/test_size.c compares the two) */
Size size_scale(SizeCtx *sc, Size a, int64_t num, int64_t den);
/* Exact division a / b.  b must be a single non-zero term (a monomial with
 * a coefficient); otherwise returns false and leaves *out untouched (the
 * canonical form has no room for 1/(N+1)). */
bool size_div(SizeCtx *sc, Size a, Size b, Size *out);
/* floor(a/b), ceil(a/b) and a % b = a - b*floor(a/b) for sizes a >= 0 and
 * b >= 1, in the normal form of floor atoms (above): exact when b divides
 * a (ceil(64*N/64) is N), constant when both are.  False (and *out
 * untouched) when b is 0. */
bool size_floor_div(SizeCtx *sc, Size a, Size b, Size *out);
bool size_ceil_div(SizeCtx *sc, Size a, Size b, Size *out);
bool size_mod(SizeCtx *sc, Size a, Size b, Size *out);

/* Whether lhs >= rhs follows for all natural values of the variables from
 * the canonical forms and the facts of the floor atoms,
 *   den*floor(num/den) >= num - den + 1   and   den*floor(num/den) <= num
 * (for a monomial den): ceil(N/64)*64 >= N does, N >= M does not.  Sound,
 * not complete: false means "not shown". */
bool size_provably_at_least(SizeCtx *sc, Size lhs, Size rhs);

bool size_eq(Size a, Size b);
/* size_eq by the polynomial core's poly_eq over the atom order (for
 * tests/unit/test_size.c, which compares the two) */
bool size_eq_general(Size a, Size b);
/* inline, as the two below: the checker and code generation ask them of
 * most sizes they meet (translation throughput, issue 35) */
static inline bool size_is_zero(Size a) { return a.nterms == 0; }
/* true and *value if a is a constant integer (no variables, den == 1) */
static inline bool size_const_value(Size a, int64_t *value) {
  if (a.nterms == 0) {
    *value = 0;
    return true;
  }
  if (a.nterms == 1 && a.terms[0].nfactors == 0 && a.terms[0].den == 1) {
    *value = a.terms[0].num;
    return true;
  }
  return false;
}
/* every coefficient an integer and every exponent positive: a is a natural
 * number for all natural values of its variables, so a divisibility
 * requirement that produced it holds trivially */
bool size_is_polynomial(Size a);
/* Is d (> 0) a divisor of num at every natural value of its variables?
 * num: integer coefficients, positive exponents, no floor atoms (false
 * otherwise).  num/d takes whole values everywhere exactly when it does on
 * the grid of values 0 .. deg_v of each variable v (deg_v its degree in
 * num): such a polynomial is a sum of products of binomial coefficients
 * C(v, j), j <= deg_v, whose coefficients are num/d's finite differences
 * at 0 on that grid, whole when the values there are.  So N*(N+1)/2, a
 * triangle's count (docs/language.md section 30.2), needs no
 * precondition.  False too when the grid has more than 4096 points. */
bool size_always_divisible(Arena *arena, Size num, int64_t d);
/* these three look into floor atoms too: ceil(N/64) has N */
bool size_has_var(Size a, Sym v);
/* the same for a name that need not be interned (dpia run's sizes) */
bool size_has_name(Size a, const char *name);
/* the variable of a size that is one variable alone (N), else NULL */
Sym size_lone_var(Size a);
/* first variable whose name starts with '?' (a metavariable), or NULL */
Sym size_first_meta(Size a);
/* the distinct variables of a, in order of first occurrence (floor atoms
 * included), in the arena; returns how many */
int size_vars(Arena *arena, Size a, Sym **out);
/* the first variable, in that order, that pred accepts, or NULL: the
 * first of size_vars's list that pred accepts, without making the list */
typedef bool (*SizeVarPred)(const void *user, Sym v);
Sym size_first_var_where(Size a, SizeVarPred pred, const void *user);
/* whether a has a floor atom */
bool size_has_floor(Size a);
/* replace every occurrence of v by value (v^-1 by 1/value, which needs
 * value to be a monomial: returns false otherwise) */
bool size_subst(SizeCtx *sc, Size a, Sym v, Size value, Size *out);
/* replace every vars[i] by values[i] at once (a value may mention the
 * variables: they are not replaced in it) */
bool size_subst_many(SizeCtx *sc, Size a, int n, const Sym *vars, const Size *values, Size *out);

/* Solve lhs == rhs for the metavariable m, when the equation is linear in m
 * (m occurs only with exponent 1, in terms whose other factors do not
 * contain m): *out = the value of m.  Returns false when it is not. */
bool size_solve(SizeCtx *sc, Size lhs, Size rhs, Sym m, Size *out);
/* the same from lhs - rhs as size_sub made it (unify_size has it already) */
bool size_solve_difference(SizeCtx *sc, Size difference, Sym m, Size *out);
/* m from k*m == other, k the constant num/den (not 0) and other without
 * m: other times 1/k, as size_solve_difference computes it; false on
 * overflow (then nothing is marked) */
bool size_solve_scaled(SizeCtx *sc, int64_t num, int64_t den, Size other, Size *out);

/* Evaluate with integer values for the variables (lookup returns false for
 * an unknown variable).  Returns false if a variable is unknown, a division
 * is not exact, or anything overflows. */
typedef bool (*SizeLookup)(void *user, Sym v, int64_t *value);
bool size_eval(Size a, SizeLookup lookup, void *user, int64_t *value);

/* Why an exact evaluation stopped (size_eval_exact). */
typedef enum SizeEvalStatus {
  SIZE_EVAL_OK,
  SIZE_EVAL_UNKNOWN, /* a variable has no value */
  SIZE_EVAL_ZERO,    /* a variable with a negative exponent is 0 */
  SIZE_EVAL_OVERFLOW /* the value or a step leaves 128 bits */
} SizeEvalStatus;
/* The exact rational value num/den (den > 0, lowest terms) of a with
 * integer values for the variables: no rounding anywhere, so a size that
 * is not whole at these values (N/4 at N = 6) is 3/2, not 1. */
SizeEvalStatus size_eval_exact(Size a, SizeLookup lookup, void *user, PolyWide *num, PolyWide *den);

/* a as numerator/denominator over the common denominator: the denominator
 * one term, the lcm of the coefficients' denominators times each variable
 * to its largest negative exponent; the numerator a times it, with integer
 * coefficients and positive exponents.  False if either leaves int64. */
bool size_fraction(Arena *arena, Size a, Size *numerator, Size *denominator);

/* The languages sizes are printed in: C (and OpenCL C), and Python for
 * auto-tuners' restrictions (`--emit=space`), where integer division is
 * `//` (both truncate; every operand of a size is non-negative). */
/* SIZE_SYNTAX_DPIA is the language's own (types, messages, the
 * intermediate form): the same text as C except for floor atoms, printed
 * ceil(N/64) or floor(N/64) rather than (N + 63)/64 and N/64, since `/` in
 * a DPIA size is exact division. */
typedef enum SizeSyntax { SIZE_SYNTAX_C, SIZE_SYNTAX_PYTHON, SIZE_SYNTAX_DPIA } SizeSyntax;
/* Where a printed size stands: alone (size_print), as an operand of * / %
 * (size_print_operand) or as the right operand of / and % (size_print_divisor). */
typedef enum SizePosition { SIZE_ALONE, SIZE_OPERAND, SIZE_DIVISOR } SizePosition;
void size_print_in(Buf *out, Size a, SizeSyntax syntax, SizePosition position);
/* a over its common denominator by the general path, the product a times
 * it, which size_print skips for a polynomial (its denominator 1): false
 * (nothing printed) where that leaves int64.  For tests/unit/test_size.c,
 * which compares the two. */
bool size_print_fraction_general(Buf *out, Size a, SizeSyntax syntax);

/* Print as a C integer expression over the variables, with `/` exact:
 * terms over a common denominator,  N/2048,  (N + M)/2,  2*N + 1,  N*M/K.
 * Terms of higher degree first, then by variable names; constant last.
 * Deterministic. */
void size_print(Buf *out, Size a);
/* Same, parenthesised if it is not a single atom or product, for use as an
 * operand of * / % in a larger expression. */
void size_print_operand(Buf *out, Size a);

/* Limits of the canonical form.  An exponent beyond SIZE_MAX_EXPONENT (any
 * variable >= 2 raised to it leaves int64 anyway) or a result of more than
 * SIZE_MAX_TERMS terms counts as overflow like a coefficient that leaves
 * int64; this also bounds the length of printed sizes.  On overflow
 * size_div and size_subst set sc->overflow, store the zero size and still
 * return true (their false means "not expressible"); size_solve sets it and
 * returns false. */
#define SIZE_MAX_EXPONENT 62
#define SIZE_MAX_TERMS 256

/* Same as size_print_operand, but a product of several factors is also
 * parenthesised: for the right operand of / and % (x/(2*N), not x/2*N). */
void size_print_divisor(Buf *out, Size a);

/* Does size_print give a C expression (int64, truncating /) equal to a's
 * value wherever that value is an integer and the evaluation does not
 * overflow?  False only for huge coefficients with no 64-bit common
 * denominator; size_print then gives one fraction per term, exact only
 * where every term is an integer. */
bool size_print_is_exact(Arena *arena, Size a);

#endif
