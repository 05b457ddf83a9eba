/* size.c: canonical forms of type-level natural numbers (size.h, spec
 * section 3), a thin layer over the polynomial core (poly.h).
 *
 * A Size is the core's Poly over interned variable names, with rational
 * coefficients, negative exponents for division, at most SIZE_MAX_TERMS
 * terms and exponents of magnitude at most SIZE_MAX_EXPONENT.  The core
 * keeps the canonical form (poly.h) that size_eq and the printer rely on;
 * this file adds what only sizes need: exact division by a monomial,
 * substitution, solving for a metavariable, evaluation and printing as C.
 * Sizes are immutable, so results freely share factor arrays with operands.
 *
 * Internally every operation returns false when the core reports overflow
 * (a coefficient left int64 or a limit was exceeded); the public wrappers
 * turn that into sc->overflow and the zero size. */
#include "size.h"

#include <inttypes.h>
#include <string.h>

typedef PolyWide Wide;

static bool fits_int64(Wide w) { return w >= INT64_MIN && w <= INT64_MAX; }

static bool exponent_in_range(int64_t e) { return e >= -SIZE_MAX_EXPONENT && e <= SIZE_MAX_EXPONENT; }

/* ---- internal arithmetic on the core (false on overflow) ---- */

/* Sizes' atoms are interned names: no compare function, so the core orders
 * them by name and tells them apart by address.  This context serves the
 * queries, which allocate nothing. */
static const PolyCtx by_name = {0};

static void size_poly(PolyCtx *pc, Arena *arena) {
  poly_ctx_init(pc, arena, NULL, NULL, NULL, SIZE_MAX_EXPONENT, SIZE_MAX_TERMS);
}

static Size zero_size(void) { return poly_zero(); }

static Size single_term(Arena *arena, SizeTerm t) {
  SizeTerm *terms = NEW(arena, SizeTerm);
  *terms = t;
  return (Size){1, terms};
}

static bool add_sizes(Arena *arena, Size a, Size b, Size *out) {
  PolyCtx pc;
  size_poly(&pc, arena);
  *out = poly_add(&pc, a, b);
  return !pc.overflow;
}

static bool negate_size(Arena *arena, Size a, Size *out) {
  PolyCtx pc;
  size_poly(&pc, arena);
  *out = poly_scale(&pc, a, -1);
  return !pc.overflow;
}

static bool mul_sizes(Arena *arena, Size a, Size b, Size *out) {
  PolyCtx pc;
  size_poly(&pc, arena);
  *out = poly_mul(&pc, a, b);
  return !pc.overflow;
}

/* 1/t for a single non-zero term. */
static bool invert_term(Arena *arena, const SizeTerm *t, SizeTerm *out) {
  ASSERT(t->num != 0);
  if (!poly_coefficient(t->den, t->num, &out->num, &out->den)) return false;
  SizeFactor *f = NEWARRAY(arena, SizeFactor, t->nfactors);
  for (int i = 0; i < t->nfactors; i++) {
    f[i].var = t->factors[i].var;
    if (__builtin_sub_overflow((int64_t)0, t->factors[i].exp, &f[i].exp) ||
        !exponent_in_range(f[i].exp)) {
      return false;
    }
  }
  out->nfactors = t->nfactors;
  out->factors = t->nfactors > 0 ? f : NULL;
  return true;
}

static bool power_size(Arena *arena, Size base, uint64_t exponent, Size *out) {
  Size result = single_term(arena, (SizeTerm){1, 1, 0, NULL});
  Size square = base;
  while (exponent > 0) {
    if (exponent & 1) {
      if (!mul_sizes(arena, result, square, &result)) return false;
    }
    exponent >>= 1;
    if (exponent > 0 && !mul_sizes(arena, square, square, &square)) return false;
  }
  *out = result;
  return true;
}

/* The term t without its factor on v (t must contain v), as a Size. */
static Size term_without_var(Arena *arena, const SizeTerm *t, Sym v) {
  PolyCtx pc;
  size_poly(&pc, arena);
  return single_term(arena, poly_term_without(&pc, t, v));
}

/* exponent of v in t, 0 if absent (variables are interned: equal names are
 * the same pointer) */
static int64_t exponent_of(const SizeTerm *t, Sym v) { return poly_exponent_of(&by_name, t, v); }

static bool subst_sizes(Arena *arena, Size a, Sym v, Size value, Size *out, bool *shape_ok) {
  *shape_ok = true;
  Size inverse = zero_size();
  bool have_inverse = false;
  Size sum = zero_size();
  for (int i = 0; i < a.nterms; i++) {
    SizeTerm *t = &a.terms[i];
    int64_t e = exponent_of(t, v);
    Size piece;
    if (e == 0) {
      piece = (Size){1, t};
    } else {
      Size base = value;
      if (e < 0) {
        if (value.nterms != 1) {
          *shape_ok = false;
          return true;
        }
        if (!have_inverse) {
          SizeTerm inv;
          if (!invert_term(arena, &value.terms[0], &inv)) return false;
          inverse = single_term(arena, inv);
          have_inverse = true;
        }
        base = inverse;
      }
      Size powered;
      uint64_t magnitude = e < 0 ? (uint64_t)0 - (uint64_t)e : (uint64_t)e;
      if (!power_size(arena, base, magnitude, &powered) ||
          !mul_sizes(arena, term_without_var(arena, t, v), powered, &piece)) {
        return false;
      }
    }
    if (!add_sizes(arena, sum, piece, &sum)) return false;
  }
  *out = sum;
  return true;
}

/* ---- public arithmetic ---- */

static Size overflowed(SizeCtx *sc) {
  sc->overflow = true;
  return zero_size();
}

Size size_const(SizeCtx *sc, int64_t n) {
  PolyCtx pc;
  size_poly(&pc, sc->arena);
  return poly_const(&pc, n);
}

Size size_var(SizeCtx *sc, Sym v) {
  PolyCtx pc;
  size_poly(&pc, sc->arena);
  return poly_atom(&pc, v);
}

Size size_add(SizeCtx *sc, Size a, Size b) {
  Size out;
  return add_sizes(sc->arena, a, b, &out) ? out : overflowed(sc);
}

Size size_sub(SizeCtx *sc, Size a, Size b) {
  Size negated, out;
  if (!negate_size(sc->arena, b, &negated) || !add_sizes(sc->arena, a, negated, &out)) {
    return overflowed(sc);
  }
  return out;
}

Size size_mul(SizeCtx *sc, Size a, Size b) {
  Size out;
  return mul_sizes(sc->arena, a, b, &out) ? out : overflowed(sc);
}

bool size_div(SizeCtx *sc, Size a, Size b, Size *out) {
  if (b.nterms != 1) return false;
  SizeTerm inverse;
  if (!invert_term(sc->arena, &b.terms[0], &inverse) ||
      !mul_sizes(sc->arena, a, single_term(sc->arena, inverse), out)) {
    *out = overflowed(sc);
  }
  return true;
}

/* ---- queries ---- */

bool size_eq(Size a, Size b) { return poly_eq(&by_name, a, b); }

bool size_is_zero(Size a) { return a.nterms == 0; }

bool size_const_value(Size a, int64_t *value) {
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

bool size_is_polynomial(Size a) {
  for (int i = 0; i < a.nterms; i++) {
    if (a.terms[i].den != 1) return false;
    for (int j = 0; j < a.terms[i].nfactors; j++) {
      if (a.terms[i].factors[j].exp < 0) return false;
    }
  }
  return true;
}

bool size_has_var(Size a, Sym v) {
  for (int i = 0; i < a.nterms; i++) {
    if (exponent_of(&a.terms[i], v) != 0) return true;
  }
  return false;
}

bool size_has_name(Size a, const char *name) {
  for (int i = 0; i < a.nterms; i++)
    for (int j = 0; j < a.terms[i].nfactors; j++)
      if (strcmp(a.terms[i].factors[j].var, name) == 0) return true;
  return false;
}

Sym size_lone_var(Size a) {
  if (a.nterms != 1) return NULL;
  const SizeTerm *t = &a.terms[0];
  if (t->num != 1 || t->den != 1 || t->nfactors != 1 || t->factors[0].exp != 1) return NULL;
  return t->factors[0].var;
}

static bool is_meta(Sym v) { return v[0] == '?'; }

Sym size_first_meta(Size a) {
  for (int i = 0; i < a.nterms; i++) {
    for (int j = 0; j < a.terms[i].nfactors; j++) {
      if (is_meta(a.terms[i].factors[j].var)) return a.terms[i].factors[j].var;
    }
  }
  return NULL;
}

bool size_subst(SizeCtx *sc, Size a, Sym v, Size value, Size *out) {
  bool shape_ok;
  Size result;
  if (!subst_sizes(sc->arena, a, v, value, &result, &shape_ok)) {
    *out = overflowed(sc);
    return true;
  }
  if (!shape_ok) return false;
  *out = result;
  return true;
}

/* Simultaneous: each variable goes to a placeholder first (a name no
 * source can spell, distinct per variable), then each placeholder to its
 * value, so a value that mentions another of the variables is not
 * substituted again (a def's N M instantiated as a kernel's M N). */
bool size_subst_many(SizeCtx *sc, Size a, int n, const Sym *vars, const Size *values, Size *out) {
  int hits = 0, last = -1;
  for (int i = 0; i < n; i++)
    if (size_has_var(a, vars[i])) hits++, last = i;
  if (hits <= 1) {
    *out = a;
    return hits == 0 || size_subst(sc, a, vars[last], values[last], out);
  }
  Sym *held = NEWARRAY(sc->arena, Sym, n);
  for (int i = 0; i < n; i++) {
    if (!size_has_var(a, vars[i])) continue;
    held[i] = arena_printf(sc->arena, "#%d", i);
    if (!size_subst(sc, a, vars[i], size_var(sc, held[i]), &a)) return false;
  }
  for (int i = 0; i < n; i++)
    if (held[i] && !size_subst(sc, a, held[i], values[i], &a)) return false;
  *out = a;
  return true;
}

bool size_solve(SizeCtx *sc, Size lhs, Size rhs, Sym m, Size *out) {
  Arena *arena = sc->arena;
  Size difference;
  if (!negate_size(arena, rhs, &difference) || !add_sizes(arena, lhs, difference, &difference)) {
    sc->overflow = true;
    return false;
  }
  /* difference == coefficient*m + rest, coefficient and rest free of m */
  SizeTerm *with_m = NEWARRAY(arena, SizeTerm, difference.nterms);
  SizeTerm *without_m = NEWARRAY(arena, SizeTerm, difference.nterms);
  int n_with = 0, n_without = 0;
  for (int i = 0; i < difference.nterms; i++) {
    const SizeTerm *t = &difference.terms[i];
    int64_t e = exponent_of(t, m);
    if (e == 0) {
      without_m[n_without++] = *t;
    } else if (e == 1) {
      with_m[n_with++] = term_without_var(arena, t, m).terms[0];
    } else {
      return false;
    }
  }
  Size coefficient, rest;
  /* both subsets keep distinct monomials; normalise only re-sorts them */
  PolyCtx pc;
  size_poly(&pc, arena);
  coefficient = poly_normalise(&pc, with_m, n_with);
  rest = poly_normalise(&pc, without_m, n_without);
  if (pc.overflow) {
    INTERNAL("re-sorting a canonical size cannot overflow");
  }
  /* A coefficient that is a sum has no place in the canonical form, and one
   * that mentions another metavariable makes the equation non-linear in the
   * unknowns (?n*?m == 8). */
  if (coefficient.nterms != 1 || size_first_meta(coefficient) != NULL) return false;
  Size negated_rest;
  SizeTerm inverse;
  if (!negate_size(arena, rest, &negated_rest) ||
      !invert_term(arena, &coefficient.terms[0], &inverse) ||
      !mul_sizes(arena, negated_rest, single_term(arena, inverse), out)) {
    sc->overflow = true;
    return false;
  }
  return true;
}

/* ---- evaluation ---- */

static bool wide_power(Wide base, uint64_t exponent, Wide *out) {
  Wide result = 1;
  while (exponent > 0) {
    if ((exponent & 1) && __builtin_mul_overflow(result, base, &result)) return false;
    exponent >>= 1;
    if (exponent > 0 && __builtin_mul_overflow(base, base, &base)) return false;
  }
  *out = result;
  return true;
}

SizeEvalStatus size_eval_exact(Size a, SizeLookup lookup, void *user, Wide *num_out, Wide *den_out) {
  PolySum sum;
  poly_sum_init(&sum);
  for (int i = 0; i < a.nterms; i++) {
    const SizeTerm *t = &a.terms[i];
    Wide num = t->num, den = t->den;
    for (int j = 0; j < t->nfactors; j++) {
      int64_t v;
      if (!lookup(user, t->factors[j].var, &v)) return SIZE_EVAL_UNKNOWN;
      int64_t e = t->factors[j].exp;
      if (e < 0 && v == 0) return SIZE_EVAL_ZERO;
      uint64_t magnitude = e < 0 ? (uint64_t)0 - (uint64_t)e : (uint64_t)e;
      Wide power;
      Wide *scaled = e > 0 ? &num : &den;
      if (!wide_power(v, magnitude, &power) || __builtin_mul_overflow(*scaled, power, scaled) ||
          !poly_wide_reduce(&num, &den)) {
        return SIZE_EVAL_OVERFLOW;
      }
    }
    poly_sum_add(&sum, num, den);
  }
  if (sum.overflow) return SIZE_EVAL_OVERFLOW;
  *num_out = sum.num;
  *den_out = sum.den;
  return SIZE_EVAL_OK;
}

bool size_eval(Size a, SizeLookup lookup, void *user, int64_t *value) {
  Wide num, den;
  if (size_eval_exact(a, lookup, user, &num, &den) != SIZE_EVAL_OK || den != 1 || !fits_int64(num)) return false;
  *value = (int64_t)num;
  return true;
}

/* ---- printing ---- */

static void print_magnitude(Buf *out, int64_t v) {
  uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  emit(out, "%" PRIu64, magnitude);
}

/* v*v*...*w for positive exponents; nothing for no factors. */
static void print_product(Buf *out, const SizeFactor *factors, int n, bool need_star) {
  for (int i = 0; i < n; i++) {
    ASSERT(factors[i].exp > 0);
    for (int64_t k = 0; k < factors[i].exp; k++) {
      if (need_star) buf_putc(out, '*');
      buf_puts(out, factors[i].var);
      need_star = true;
    }
  }
}

/* |coefficient| times the monomial of a term with integer coefficient and
 * positive exponents. */
static void print_term_magnitude(Buf *out, const SizeTerm *t) {
  ASSERT(t->den == 1);
  bool print_coefficient = (t->num != 1 && t->num != -1) || t->nfactors == 0;
  if (print_coefficient) print_magnitude(out, t->num);
  print_product(out, t->factors, t->nfactors, print_coefficient);
}

/* A polynomial (integer coefficients, positive exponents) in canonical term
 * order, except that when the first term is negative the first positive term
 * is moved to the front: `N - M` rather than `-M + N`. */
static void print_polynomial(Buf *out, Size p) {
  ASSERT(p.nterms > 0);
  int lead = 0;
  if (p.terms[0].num < 0) {
    for (int i = 1; i < p.nterms; i++) {
      if (p.terms[i].num > 0) {
        lead = i;
        break;
      }
    }
  }
  const SizeTerm *first = &p.terms[lead];
  if (first->num < 0) buf_putc(out, '-');
  print_term_magnitude(out, first);
  for (int i = 0; i < p.nterms; i++) {
    if (i == lead) continue;
    buf_puts(out, p.terms[i].num < 0 ? " - " : " + ");
    print_term_magnitude(out, &p.terms[i]);
  }
}

/* Does a print as a product without `/` or sign (with single_factor_only: as
 * one integer or one identifier), so that it needs no parentheses as an
 * operand of * (or as a divisor)? */
static bool is_plain_product(Size a, bool single_factor_only) {
  if (a.nterms == 0) return true;
  if (a.nterms != 1) return false;
  const SizeTerm *t = &a.terms[0];
  if (t->num <= 0 || t->den != 1) return false;
  int64_t printed_factors = t->num != 1 ? 1 : 0;
  for (int i = 0; i < t->nfactors; i++) {
    if (t->factors[i].exp < 0) return false;
    printed_factors += t->factors[i].exp;
  }
  return !single_factor_only || printed_factors <= 1;
}

/* The common denominator of a's terms: lcm of the coefficient denominators
 * times each variable to its largest negative exponent, as a single term. */
static bool common_denominator(Arena *arena, Size a, Size *out) {
  Wide lcm = 1;
  int capacity = 0;
  for (int i = 0; i < a.nterms; i++) capacity += a.terms[i].nfactors;
  SizeFactor *vars = NEWARRAY(arena, SizeFactor, capacity);
  int nvars = 0;
  for (int i = 0; i < a.nterms; i++) {
    const SizeTerm *t = &a.terms[i];
    Wide g = poly_gcd((int64_t)lcm, t->den);
    if (__builtin_mul_overflow(lcm, (Wide)t->den / g, &lcm) || !fits_int64(lcm)) {
      return false;
    }
    for (int j = 0; j < t->nfactors; j++) {
      if (t->factors[j].exp > 0) continue;
      Sym v = t->factors[j].var;
      int64_t wanted = -t->factors[j].exp;
      /* insertion into vars, kept sorted by name */
      int k = 0;
      while (k < nvars && poly_compare_atoms(&by_name, vars[k].var, v) < 0) k++;
      if (k < nvars && vars[k].var == v) {
        if (vars[k].exp < wanted) vars[k].exp = wanted;
      } else {
        memmove(&vars[k + 1], &vars[k], sizeof(SizeFactor) * (size_t)(nvars - k));
        vars[k] = (SizeFactor){{v}, wanted};
        nvars++;
      }
    }
  }
  *out = single_term(arena, (SizeTerm){(int64_t)lcm, 1, nvars, nvars > 0 ? vars : NULL});
  return true;
}

bool size_fraction(Arena *arena, Size a, Size *numerator, Size *denominator) {
  if (!common_denominator(arena, a, denominator) || !mul_sizes(arena, a, *denominator, numerator)) return false;
  ASSERT(size_is_polynomial(*numerator) && numerator->nterms == a.nterms);
  return true;
}

/* the truncating integer division of the syntax (every operand of a size's
 * division is non-negative, so C's / and Python's // agree) */
static const char *division_operator(SizeSyntax syntax) {
  switch (syntax) {
  case SIZE_SYNTAX_C: return "/";
  case SIZE_SYNTAX_PYTHON: return "//";
  }
  INTERNAL("size syntax %d", (int)syntax);
}

/* numerator/denominator over the common denominator; false (and nothing
 * printed) if that leaves int64. */
static bool print_fraction(Buf *out, Size a, SizeSyntax syntax) {
  Size denominator, numerator;
  if (!size_fraction(out->arena, a, &numerator, &denominator)) return false;
  int64_t d;
  if (size_const_value(denominator, &d) && d == 1) {
    print_polynomial(out, numerator);
    return true;
  }
  bool wrap_numerator = numerator.nterms > 1;
  if (wrap_numerator) buf_putc(out, '(');
  print_polynomial(out, numerator);
  if (wrap_numerator) buf_putc(out, ')');
  buf_puts(out, division_operator(syntax));
  bool wrap_denominator = !is_plain_product(denominator, true);
  if (wrap_denominator) buf_putc(out, '(');
  print_term_magnitude(out, &denominator.terms[0]);
  if (wrap_denominator) buf_putc(out, ')');
  return true;
}

/* When a has no int64 common form (huge coefficients): split a + b/d
 * (|b| < d) off each coefficient of a term with positive exponents; the
 * terms that are not integers for all values (b/d*N, x/K) go to
 * *fractional, the integral ones (a*N, a huge constant) to *integral. */
static void split_mixed(Arena *arena, Size a, Size *fractional, Size *integral) {
  *fractional = (Size){0, NEWARRAY(arena, SizeTerm, a.nterms)};
  *integral = (Size){0, NEWARRAY(arena, SizeTerm, a.nterms)};
  for (int i = 0; i < a.nterms; i++) {
    SizeTerm t = a.terms[i];
    bool positive_exponents = true;
    for (int j = 0; j < t.nfactors; j++) positive_exponents &= t.factors[j].exp > 0;
    if (!positive_exponents) {
      fractional->terms[fractional->nterms++] = t;
      continue;
    }
    SizeTerm whole = t, part = t;
    whole.num = t.num / t.den;
    whole.den = 1;
    part.num = t.num % t.den; /* gcd(part.num, den) = gcd(num, den) = 1 */
    if (whole.num) integral->terms[integral->nterms++] = whole;
    if (part.num) fractional->terms[fractional->nterms++] = part;
  }
  ASSERT(fractional->nterms > 0); /* a polynomial has a common form */
}

bool size_print_is_exact(Arena *arena, Size a) {
  Size numerator, denominator, fractional, integral;
  if (a.nterms == 0 || size_fraction(arena, a, &numerator, &denominator)) return true;
  split_mixed(arena, a, &fractional, &integral);
  return size_fraction(arena, fractional, &numerator, &denominator);
}

static void print_alone(Buf *out, Size a, SizeSyntax syntax) {
  if (a.nterms == 0) {
    buf_putc(out, '0');
    return;
  }
  if (print_fraction(out, a, syntax)) return;
  /* The numerator or the common denominator leaves int64.  Print the
   * fractional part over its own common denominator, then the integral
   * terms apart (split_mixed): exact whenever the value is integral, since
   * the fractional part is then.  If even that has no int64 common form
   * (coprime huge divisors), no such C expression computes the value
   * exactly: fall back to one fraction per term, at least exact whenever
   * each term is integral (size_print_is_exact is false). */
  Arena *arena = out->arena;
  Size fractional, integral;
  split_mixed(arena, a, &fractional, &integral);
  if (!print_fraction(out, fractional, syntax)) {
    for (int i = 0; i < fractional.nterms; i++) {
      SizeTerm t = fractional.terms[i];
      bool negative = t.num < 0 && t.num != INT64_MIN;
      if (negative) t.num = -t.num;
      if (i > 0) buf_puts(out, negative ? " - " : " + ");
      else if (negative) buf_putc(out, '-');
      bool ok = print_fraction(out, single_term(arena, t), syntax);
      ASSERT(ok); /* a single term's denominator is its own */
    }
  }
  for (int i = 0; i < integral.nterms; i++) {
    buf_puts(out, integral.terms[i].num < 0 ? " - " : " + ");
    print_term_magnitude(out, &integral.terms[i]);
  }
}

/* Whether a printed size needs parentheses where it stands. */
static bool needs_parentheses(Size a, SizePosition position) {
  switch (position) {
  case SIZE_ALONE: return false;
  case SIZE_OPERAND: return !is_plain_product(a, false);
  case SIZE_DIVISOR: return !is_plain_product(a, true);
  }
  INTERNAL("size position %d", (int)position);
}

void size_print_in(Buf *out, Size a, SizeSyntax syntax, SizePosition position) {
  bool wrap = needs_parentheses(a, position);
  if (wrap) buf_putc(out, '(');
  print_alone(out, a, syntax);
  if (wrap) buf_putc(out, ')');
}

void size_print(Buf *out, Size a) { size_print_in(out, a, SIZE_SYNTAX_C, SIZE_ALONE); }

void size_print_operand(Buf *out, Size a) { size_print_in(out, a, SIZE_SYNTAX_C, SIZE_OPERAND); }

void size_print_divisor(Buf *out, Size a) { size_print_in(out, a, SIZE_SYNTAX_C, SIZE_DIVISOR); }
