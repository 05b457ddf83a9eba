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

/* ---- atoms (size.h: variables and floor atoms) ---- */

static int atom_order(const void *user, PolyAtom a, PolyAtom b);

/* The core orders sizes' atoms with atom_order.  This context serves the
 * queries, which allocate nothing. */
static const PolyCtx by_name = {.compare = atom_order};

static void size_poly(PolyCtx *pc, Arena *arena) {
  poly_ctx_init(pc, arena, atom_order, NULL, NULL, SIZE_MAX_EXPONENT, SIZE_MAX_TERMS);
}

static int sign_of(int64_t c) { return (c > 0) - (c < 0); }

/* A total order on canonical sizes (for the order of floor atoms). */
static int compare_sizes(Size a, Size b) {
  if (a.nterms != b.nterms) return a.nterms < b.nterms ? -1 : 1;
  for (int i = 0; i < a.nterms; i++) {
    const SizeTerm *s = &a.terms[i], *t = &b.terms[i];
    int c = poly_compare_monomials(&by_name, s, t);
    if (c == 0 && s->num != t->num) c = s->num < t->num ? -1 : 1;
    if (c == 0 && s->den != t->den) c = s->den < t->den ? -1 : 1;
    if (c != 0) return c;
  }
  return 0;
}

static int atom_order(const void *user, PolyAtom pa, PolyAtom pb) {
  (void)user;
  const SizeAtom *a = pa, *b = pb;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  switch (a->kind) {
  case SIZE_ATOM_VAR: return a->var == b->var ? 0 : sign_of(strcmp(a->var, b->var));
  case SIZE_ATOM_FLOOR: {
    int c = compare_sizes(a->den, b->den);
    return c != 0 ? c : compare_sizes(a->num, b->num);
  }
  }
  INTERNAL("size atom kind %d", (int)a->kind);
}

/* An atom for v that compares equal to v's (for lookups; not kept). */
static SizeAtom var_key(Sym v) { return (SizeAtom){SIZE_ATOM_VAR, v, {0, NULL}, {0, NULL}}; }

/* ---- internal arithmetic on the core (false on overflow) ---- */

static Size zero_size(void) { return poly_zero(); }

static Size const_size(Arena *arena, int64_t c) {
  PolyCtx pc;
  size_poly(&pc, arena);
  return poly_const(&pc, c);
}

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

/* a times the constant num/den (lowest terms, den > 0) into *out, each
 * term's coefficient multiplied at once and reduced by the two cross gcds
 * (both fractions are in lowest terms, so the product is): a constant
 * factor keeps every monomial and so the terms' order, and the product
 * through poly_mul is this very size whenever no coefficient leaves int64.
 * False (nothing made) when one would, or for 0: then poly_mul's general
 * product, which reduces in 128 bits, decides (translation throughput: a
 * metavariable's scaled value, 4*?n == N solved as N/4, and a term k*?n
 * whose ?n is replaced). */
static bool scale_size(Arena *arena, Size a, int64_t num, int64_t den, Size *out) {
  if (num == 0 || a.nterms == 0 || a.nterms > SIZE_MAX_TERMS) return false;
  SizeTerm *terms = poly_new_terms(arena, a.nterms);
  for (int i = 0; i < a.nterms; i++) {
    const SizeTerm *t = &a.terms[i];
    /* a gcd with 1 is 1: most coefficients and constants are integers */
    int64_t g1 = den == 1 ? 1 : poly_gcd(t->num, den), g2 = t->den == 1 ? 1 : poly_gcd(num, t->den), n, d;
    if (__builtin_mul_overflow(t->num / g1, num / g2, &n) || __builtin_mul_overflow(t->den / g2, den / g1, &d))
      return false;
    terms[i] = (SizeTerm){n, d, t->nfactors, t->factors};
  }
  *out = (Size){a.nterms, terms};
  return true;
}

/* 1/t for a single non-zero term. */
static bool invert_term(Arena *arena, const SizeTerm *t, SizeTerm *out) {
  ASSERT(t->num != 0);
  if (!poly_coefficient(t->den, t->num, &out->num, &out->den)) return false;
  SizeFactor *f = NEWARRAY(arena, SizeFactor, t->nfactors);
  for (int i = 0; i < t->nfactors; i++) {
    f[i].atom = t->factors[i].atom;
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
  SizeAtom key = var_key(v);
  return single_term(arena, poly_term_without(&pc, t, &key));
}

/* exponent of v in t as a factor of its own, 0 if absent */
static int64_t exponent_of(const SizeTerm *t, Sym v) {
  SizeAtom key = var_key(v);
  return poly_exponent_of(&by_name, t, &key);
}

static bool floor_sizes(Arena *arena, Size a, Size b, Size *out);
static bool has_var_inside(Size a, Sym v);

/* What a substitution replaces: the atom `target` where it is a factor,
 * and, with into_floors, the variable target->var inside floor atoms too,
 * which are then built again in normal form (floor((N + 63)/64) with N :=
 * 64*M is M). */
typedef struct Subst {
  const SizeAtom *target;
  Size value;
  bool into_floors;
} Subst;

static bool subst_sizes_by(Arena *arena, Size a, const Subst *s, Size *out, bool *shape_ok);

/* The value of factor atom x under s into *out; false on overflow, *hit
 * false when s leaves it alone. */
static bool subst_atom(Arena *arena, const SizeAtom *x, const Subst *s, Size *out, bool *hit, bool *shape_ok) {
  *hit = false;
  if (atom_order(NULL, x, s->target) == 0) {
    *hit = true;
    *out = s->value;
    return true;
  }
  switch (x->kind) {
  case SIZE_ATOM_VAR: return true;
  case SIZE_ATOM_FLOOR: break;
  }
  if (!s->into_floors || s->target->kind != SIZE_ATOM_VAR ||
      (!has_var_inside(x->num, s->target->var) && !has_var_inside(x->den, s->target->var)))
    return true;
  *hit = true;
  Size num, den;
  if (!subst_sizes_by(arena, x->num, s, &num, shape_ok)) return false;
  if (!*shape_ok) return true;
  if (!subst_sizes_by(arena, x->den, s, &den, shape_ok)) return false;
  if (!*shape_ok) return true;
  if (size_is_zero(den)) {
    *shape_ok = false; /* a divisor that becomes 0 */
    return true;
  }
  return floor_sizes(arena, num, den, out);
}

/* value^e for a non-zero exponent (a negative one needs a single term) */
static bool power_of(Arena *arena, Size value, int64_t e, Size *out, bool *shape_ok) {
  if (e == 1) { /* most substitutions (a metavariable by its value when zonking): 1*value is value */
    *out = value;
    return true;
  }
  Size base = value;
  if (e < 0) {
    SizeTerm inverse;
    if (value.nterms != 1) {
      *shape_ok = false;
      return true;
    }
    if (!invert_term(arena, &value.terms[0], &inverse)) return false;
    base = single_term(arena, inverse);
  }
  uint64_t magnitude = e < 0 ? (uint64_t)0 - (uint64_t)e : (uint64_t)e;
  return power_size(arena, base, magnitude, out);
}

static bool subst_sizes_by(Arena *arena, Size a, const Subst *s, Size *out, bool *shape_ok) {
  *shape_ok = true;
  Size sum = zero_size();
  for (int i = 0; i < a.nterms; i++) {
    const SizeTerm *t = &a.terms[i];
    /* the factors s leaves alone stay in `kept`, sorted as they were */
    SizeFactor *kept = NEWARRAY(arena, SizeFactor, t->nfactors);
    int nkept = 0;
    Size piece = zero_size();
    bool touched = false;
    for (int j = 0; j < t->nfactors; j++) {
      Size value, powered;
      bool hit;
      if (!subst_atom(arena, size_factor_atom(&t->factors[j]), s, &value, &hit, shape_ok)) return false;
      if (!*shape_ok) return true;
      if (!hit) {
        kept[nkept++] = t->factors[j];
        continue;
      }
      if (!power_of(arena, value, t->factors[j].exp, &powered, shape_ok)) return false;
      if (!*shape_ok) return true;
      /* products of canonical sizes, and a product by the one-term 1 is
       * the other factor as it is: not made (translation throughput) */
      if (!touched) piece = powered;
      else if (!mul_sizes(arena, piece, powered, &piece)) return false;
      touched = true;
    }
    SizeTerm rest = {t->num, t->den, nkept, nkept > 0 ? kept : NULL};
    if (!touched) piece = (Size){1, (SizeTerm *)t};
    else if (nkept == 0 && t->num == 1 && t->den == 1) {
      /* 1 * piece is piece */
    } else if (!(nkept == 0 && scale_size(arena, piece, t->num, t->den, &piece)) &&
               !mul_sizes(arena, single_term(arena, rest), piece, &piece)) {
      return false;
    }
    if (!add_sizes(arena, sum, piece, &sum)) return false;
  }
  *out = sum;
  return true;
}

static bool subst_sizes(Arena *arena, Size a, Sym v, Size value, Size *out, bool *shape_ok) {
  SizeAtom key = var_key(v);
  Subst s = {&key, value, true};
  return subst_sizes_by(arena, a, &s, out, shape_ok);
}

/* ---- floor atoms ---- */

/* floor(x/d) for an integer d > 0 (C's / truncates) */
static int64_t floor_quotient(int64_t x, int64_t d) {
  int64_t q = x / d;
  return (x % d != 0 && x < 0) ? q - 1 : q;
}

/* gcd of every coefficient of p and g */
static int64_t content_gcd(Size p, int64_t g) {
  for (int i = 0; i < p.nterms; i++) g = poly_gcd(g, p.terms[i].num);
  return g;
}

/* p with every (integer) coefficient divided by g, which divides them */
static Size divide_coefficients(Arena *arena, Size p, int64_t g) {
  if (g == 1) return p;
  SizeTerm *terms = NEWARRAY(arena, SizeTerm, p.nterms);
  for (int i = 0; i < p.nterms; i++) {
    terms[i] = p.terms[i];
    terms[i].num /= g;
  }
  return (Size){p.nterms, terms};
}

static bool nonnegative_coefficients(Size p) {
  for (int i = 0; i < p.nterms; i++)
    if (p.terms[i].num < 0) return false;
  return true;
}

/* q + floor(num/den) with the floor atom of the normal form (size.h); num
 * and den integer polynomials with positive exponents, den > 0 not 1. */
static bool floor_atom_plus(Arena *arena, Size q, Size num, Size den, Size *out) {
  if (size_is_zero(num)) {
    *out = q;
    return true;
  }
  int64_t n, d;
  if (size_const_value(num, &n) && size_const_value(den, &d)) {
    return add_sizes(arena, q, const_size(arena, floor_quotient(n, d)), out);
  }
  SizeAtom *x = NEW(arena, SizeAtom);
  *x = (SizeAtom){SIZE_ATOM_FLOOR, NULL, num, den};
  PolyCtx pc;
  size_poly(&pc, arena);
  return add_sizes(arena, q, poly_atom(&pc, x), out);
}

/* floor(num/d) for a constant d >= 2: each coefficient c = d*k + r with 0
 * <= r < d gives k to the quotient and r to the remainder, which is then
 * divided by its common factor with d. */
static bool floor_by_constant(Arena *arena, Size num, int64_t d, Size *out) {
  SizeTerm *whole = NEWARRAY(arena, SizeTerm, num.nterms), *part = NEWARRAY(arena, SizeTerm, num.nterms);
  int nwhole = 0, npart = 0;
  for (int i = 0; i < num.nterms; i++) {
    SizeTerm t = num.terms[i];
    int64_t k = floor_quotient(t.num, d), r;
    if (__builtin_mul_overflow(k, d, &r) || __builtin_sub_overflow(t.num, r, &r)) return false;
    if (k != 0) whole[nwhole++] = (SizeTerm){k, 1, t.nfactors, t.factors};
    if (r != 0) part[npart++] = (SizeTerm){r, 1, t.nfactors, t.factors};
  }
  PolyCtx pc;
  size_poly(&pc, arena);
  Size q = poly_normalise(&pc, whole, nwhole), rest = poly_normalise(&pc, part, npart);
  if (pc.overflow) return false;
  /* Lowest terms: g, the common factor of d and the variable terms'
   * coefficients, divides them out, and the constant c (0 <= c < d) goes
   * to floor(c/g).  floor((g*Y + c)/(g*e)) = floor((Y + floor(c/g))/e) for
   * an integer Y: the remainder of c by g adds less than 1 to Y + floor(c/g),
   * an integer, so never carries it past a multiple of e.  Then
   * ceil(2*N/8) = floor((2*N + 7)/8) is floor((N + 3)/4), ceil(N/4), as
   * ceil(N/4) is, however it was reached (a substitution N := 2*N in
   * ceil(N/8), say): one normal form for one value. */
  int64_t g = d, c = 0;
  bool variables = false;
  for (int i = 0; i < rest.nterms; i++) {
    if (rest.terms[i].nfactors == 0) {
      c = rest.terms[i].num;
    } else {
      g = poly_gcd(g, rest.terms[i].num);
      variables = true;
    }
  }
  if (!variables || g == 1) {
    g = content_gcd(rest, d);
    return floor_atom_plus(arena, q, divide_coefficients(arena, rest, g), const_size(arena, d / g), out);
  }
  SizeTerm *lowest = NEWARRAY(arena, SizeTerm, rest.nterms);
  int nlowest = 0;
  for (int i = 0; i < rest.nterms; i++) {
    SizeTerm t = rest.terms[i];
    t.num = t.nfactors == 0 ? floor_quotient(c, g) : t.num / g;
    if (t.num != 0) lowest[nlowest++] = t;
  }
  Size top = poly_normalise(&pc, lowest, nlowest);
  if (pc.overflow) return false;
  return floor_atom_plus(arena, q, top, const_size(arena, d / g), out);
}

/* floor(num/den) for a den with variables: a single term takes out the
 * terms it divides (those with negative coefficients always, the others
 * when what remains has non-negative coefficients, so that the atom's num
 * stays non-negative); a sum stays as it is. */
static bool floor_by_symbolic(Arena *arena, Size num, Size den, Size *out) {
  Size q = zero_size();
  if (den.nterms == 1) {
    PolyCtx pc;
    size_poly(&pc, arena);
    SizeTerm *quot = NEWARRAY(arena, SizeTerm, num.nterms), *keep = NEWARRAY(arena, SizeTerm, num.nterms),
             *rest = NEWARRAY(arena, SizeTerm, num.nterms);
    int nq = 0, nkeep = 0, nrest = 0;
    bool rest_nonnegative = true;
    for (int i = 0; i < num.nterms; i++) {
      const SizeTerm *t = &num.terms[i];
      SizeTerm k;
      if (poly_term_divide(&pc, t, &den.terms[0], &k)) {
        quot[nq++] = k;
        if (t->num > 0) keep[nkeep++] = *t;
      } else {
        rest[nrest++] = *t;
        rest_nonnegative &= t->num > 0;
      }
    }
    if (!rest_nonnegative) {
      /* keep the divisible positive terms in the atom */
      for (int i = 0; i < nkeep; i++) rest[nrest++] = keep[i];
      int n = 0;
      for (int i = 0; i < nq; i++)
        if (quot[i].num < 0) quot[n++] = quot[i];
      nq = n;
    }
    q = poly_normalise(&pc, quot, nq);
    num = poly_normalise(&pc, rest, nrest);
    if (pc.overflow) return false;
    if (size_is_zero(num)) {
      *out = q;
      return true;
    }
  }
  int64_t g = content_gcd(den, content_gcd(num, 0));
  return floor_atom_plus(arena, q, divide_coefficients(arena, num, g), divide_coefficients(arena, den, g), out);
}

/* floor(a/b) in normal form; b non-zero.  Both are first made integer
 * polynomials with positive exponents: a/b = (an/ad)/(bn/bd) =
 * (an*bd)/(ad*bn). */
static bool floor_sizes(Arena *arena, Size a, Size b, Size *out) {
  Size an, ad, bn, bd, num, den;
  if (!size_fraction(arena, a, &an, &ad) || !size_fraction(arena, b, &bn, &bd) || !mul_sizes(arena, an, bd, &num) ||
      !mul_sizes(arena, ad, bn, &den))
    return false;
  int64_t d;
  if (size_const_value(den, &d)) {
    if (d < 0) {
      /* floor(x/-d) = floor(-x/d): sizes are natural, but keep it exact */
      if (!negate_size(arena, num, &num)) return false;
      d = -d;
    }
    if (d == 1) {
      *out = num;
      return true;
    }
    return floor_by_constant(arena, num, d, out);
  }
  /* a monomial den that divides num exactly: no atom (64*N/(64*N)) */
  Size quotient;
  SizeTerm inverse;
  if (den.nterms == 1 && invert_term(arena, &den.terms[0], &inverse) &&
      mul_sizes(arena, num, single_term(arena, inverse), &quotient) && size_is_polynomial(quotient)) {
    *out = quotient;
    return true;
  }
  return floor_by_symbolic(arena, num, den, out);
}

/* ---- public arithmetic ---- */

static Size overflowed(SizeCtx *sc) {
  sc->overflow = true;
  return zero_size();
}

/* poly_const's term, made here (the checker and code generation make
 * constants all the time; translation throughput, issue 35) */
Size size_const(SizeCtx *sc, int64_t n) {
  if (n == 0) return zero_size();
  SizeTerm *t = NEW(sc->arena, SizeTerm);
  *t = (SizeTerm){n, 1, 0, NULL};
  return (Size){1, t};
}

/* 1*v: poly_atom's term, its factor and the atom made in one allocation
 * (the checker makes one for every size metavariable and parameter;
 * translation throughput) */
typedef struct VarSize {
  SizeAtom atom;
  SizeFactor factor;
  SizeTerm term;
} VarSize;

Size size_var(SizeCtx *sc, Sym v) {
  VarSize *one = NEW(sc->arena, VarSize);
  one->atom = var_key(v);
  one->factor.atom = &one->atom;
  one->factor.exp = 1;
  one->term = (SizeTerm){1, 1, 1, &one->factor};
  return (Size){1, &one->term};
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

Size size_scale(SizeCtx *sc, Size a, int64_t num, int64_t den) {
  Size out;
  /* each coefficient scaled, as size_div does (scale_size); the general
   * product where a coefficient would leave int64 */
  if (num != INT64_MIN && scale_size(sc->arena, a, num, den, &out)) return out;
  SizeTerm *k = NEW(sc->arena, SizeTerm);
  *k = (SizeTerm){num, den, 0, NULL};
  return size_mul(sc, a, (Size){num != 0, k});
}

bool size_div(SizeCtx *sc, Size a, Size b, Size *out) {
  if (b.nterms != 1) return false;
  SizeTerm inverse;
  /* by a constant (N/256, a split's rows, a launch's groups): a's
   * coefficients scaled, each term kept, as the product would (scale_size;
   * translation throughput, issue 35; tests/unit/test_size.c multiplies
   * back) */
  const SizeTerm *c = &b.terms[0];
  if (c->nfactors == 0 && c->num != 0 && c->num != INT64_MIN) {
    int64_t magnitude = c->num < 0 ? -c->num : c->num, g = poly_gcd(c->den, magnitude);
    if (scale_size(sc->arena, a, (c->num < 0 ? -c->den : c->den) / g, magnitude / g, out)) return true;
  }
  if (!invert_term(sc->arena, &b.terms[0], &inverse) ||
      !mul_sizes(sc->arena, a, single_term(sc->arena, inverse), out)) {
    *out = overflowed(sc);
  }
  return true;
}

bool size_floor_div(SizeCtx *sc, Size a, Size b, Size *out) {
  if (size_is_zero(b)) return false;
  if (!floor_sizes(sc->arena, a, b, out)) *out = overflowed(sc);
  return true;
}

/* ceil(a/b) = floor((a + b - 1)/b), in lowest terms first when b is a
 * single term (ceil(2*N/128) is ceil(N/64), ceil(K*N/K) is N) */
bool size_ceil_div(SizeCtx *sc, Size a, Size b, Size *out) {
  if (size_is_zero(b)) return false;
  Arena *arena = sc->arena;
  SizeTerm inverse;
  Size top;
  if (b.nterms == 1) {
    if (!invert_term(arena, &b.terms[0], &inverse) || !mul_sizes(arena, a, single_term(arena, inverse), &top) ||
        !size_fraction(arena, top, &a, &b)) {
      *out = overflowed(sc);
      return true;
    }
  }
  if (!add_sizes(arena, a, b, &top) || !add_sizes(arena, top, const_size(arena, -1), &top) ||
      !floor_sizes(arena, top, b, out))
    *out = overflowed(sc);
  return true;
}

/* a % b = a - b*floor(a/b) */
bool size_mod(SizeCtx *sc, Size a, Size b, Size *out) {
  Size q;
  if (!size_floor_div(sc, a, b, &q)) return false;
  *out = size_sub(sc, a, size_mul(sc, b, q));
  return true;
}

/* ---- queries ---- */

/* Whether two floor atoms are the same (atom_order == 0): by their parts.
 * Apart from size_eq, so that its loop needs no saved registers. */
static bool same_floor(const SizeAtom *x, const SizeAtom *y) {
  return size_eq(x->den, y->den) && size_eq(x->num, y->num);
}

/* The monomials and coefficients of n terms each, from the second term
 * on the part of size_eq below: a variable is the same atom by its
 * interned name (strcmp only where the pointers differ, as atom_order),
 * a floor atom by its parts. */
static DPIA_NOINLINE bool same_terms(const SizeTerm *x, const SizeTerm *y, int n) {
  for (int i = 0; i < n; i++) {
    if (x[i].num != y[i].num || x[i].den != y[i].den || x[i].nfactors != y[i].nfactors) return false;
    for (int j = 0; j < x[i].nfactors; j++) {
      const SizeAtom *u = size_factor_atom(&x[i].factors[j]), *v = size_factor_atom(&y[i].factors[j]);
      if (x[i].factors[j].exp != y[i].factors[j].exp) return false;
      if (u == v) continue;
      if (u->kind != v->kind) return false;
      if (u->kind == SIZE_ATOM_VAR ? u->var != v->var && strcmp(u->var, v->var) != 0 : !same_floor(u, v)) return false;
    }
  }
  return true;
}

/* poly_eq over atom_order without the call through the core's compare
 * pointer, the first term's coefficient first: most sizes the checker
 * compares differ at once (N/4 and 64) or are one object (translation
 * throughput, issue 35; tests/unit/test_size.c compares it with
 * size_eq_general) */
bool size_eq(Size a, Size b) {
  if (a.nterms != b.nterms) return false;
  if (a.terms == b.terms || a.nterms == 0) return true;
  if (a.terms[0].num != b.terms[0].num || a.terms[0].den != b.terms[0].den) return false;
  return same_terms(a.terms, b.terms, a.nterms);
}

bool size_eq_general(Size a, Size b) { return poly_eq(&by_name, a, b); }

bool size_is_polynomial(Size a) {
  for (int i = 0; i < a.nterms; i++) {
    if (a.terms[i].den != 1) return false;
    for (int j = 0; j < a.terms[i].nfactors; j++) {
      if (a.terms[i].factors[j].exp < 0) return false;
    }
  }
  return true;
}

/* The first variable of a (floor atoms included) that pred accepts, or
 * NULL. */
static Sym find_var(Size a, SizeVarPred pred, const void *user) {
  for (int i = 0; i < a.nterms; i++) {
    for (int j = 0; j < a.terms[i].nfactors; j++) {
      const SizeAtom *x = size_factor_atom(&a.terms[i].factors[j]);
      Sym found = NULL;
      switch (x->kind) {
      case SIZE_ATOM_VAR: found = pred(user, x->var) ? x->var : NULL; break;
      case SIZE_ATOM_FLOOR:
        found = find_var(x->num, pred, user);
        if (!found) found = find_var(x->den, pred, user);
        break;
      }
      if (found) return found;
    }
  }
  return NULL;
}

static bool is_sym(const void *user, Sym v) { return v == (Sym)user; }
static bool has_name(const void *user, Sym v) { return strcmp(v, (const char *)user) == 0; }

bool size_has_var(Size a, Sym v) { return find_var(a, is_sym, v) != NULL; }

static bool has_var_inside(Size a, Sym v) { return size_has_var(a, v); }

bool size_has_name(Size a, const char *name) { return find_var(a, has_name, name) != NULL; }

Sym size_lone_var(Size a) {
  if (a.nterms != 1) return NULL;
  const SizeTerm *t = &a.terms[0];
  if (t->num != 1 || t->den != 1 || t->nfactors != 1 || t->factors[0].exp != 1) return NULL;
  return size_factor_var(&t->factors[0]);
}

/* find_var with the test v[0] == '?' written in, not called through a
 * pointer at every variable: the checker asks it of most sizes it zonks
 * (translation throughput) */
static Sym first_meta_anywhere(Size a) {
  for (int i = 0; i < a.nterms; i++) {
    for (int j = 0; j < a.terms[i].nfactors; j++) {
      const SizeAtom *x = size_factor_atom(&a.terms[i].factors[j]);
      Sym found = NULL;
      switch (x->kind) {
      case SIZE_ATOM_VAR: found = x->var[0] == '?' ? x->var : NULL; break;
      case SIZE_ATOM_FLOOR:
        found = first_meta_anywhere(x->num);
        if (!found) found = first_meta_anywhere(x->den);
        break;
      }
      if (found) return found;
    }
  }
  return NULL;
}

/* The variables before the first floor atom in one loop without calls,
 * so without saved registers (most sizes have no floor atom; translation
 * throughput, issue 35); from a floor atom on, the walk above from the
 * start, which meets those variables again and then looks inside. */
Sym size_first_meta(Size a) {
  for (int i = 0; i < a.nterms; i++) {
    for (int j = 0; j < a.terms[i].nfactors; j++) {
      const SizeAtom *x = size_factor_atom(&a.terms[i].factors[j]);
      switch (x->kind) {
      case SIZE_ATOM_VAR:
        if (x->var[0] == '?') return x->var;
        break;
      case SIZE_ATOM_FLOOR: return first_meta_anywhere(a);
      }
    }
  }
  return NULL;
}

Sym size_first_var_where(Size a, SizeVarPred pred, const void *user) { return find_var(a, pred, user); }

/* a walk that adds each variable not yet in the list */
typedef struct VarList {
  Arena *arena;
  Vec vars;
} VarList;

static bool collect_var(const void *user, Sym v) {
  VarList *l = (VarList *)user;
  for (int i = 0; i < l->vars.len; i++)
    if (l->vars.items[i] == v) return false;
  vec_push(l->arena, &l->vars, (void *)v);
  return false; /* go on: find_var visits every variable */
}

int size_vars(Arena *arena, Size a, Sym **out) {
  VarList l = {arena, {0}};
  find_var(a, collect_var, &l);
  *out = NEWARRAY(arena, Sym, l.vars.len > 0 ? l.vars.len : 1);
  for (int i = 0; i < l.vars.len; i++) (*out)[i] = l.vars.items[i];
  return l.vars.len;
}

bool size_has_floor(Size a) {
  for (int i = 0; i < a.nterms; i++)
    for (int j = 0; j < a.terms[i].nfactors; j++)
      if (!size_factor_var(&a.terms[i].factors[j])) return true;
  return false;
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
  Size difference;
  if (!negate_size(sc->arena, rhs, &difference) || !add_sizes(sc->arena, lhs, difference, &difference)) {
    sc->overflow = true;
    return false;
  }
  return size_solve_difference(sc, difference, m, out);
}

/* The one term q with q*divisor == -rest, divisor a sum, or false: q is
 * one of -rest's terms over divisor's first (a product by a single term
 * need not keep the terms' order).  split ((N - 3)/8) of N - 3 elements
 * asks ?n*(N - 3)/8 == N - 3, and ?n is 8 (gen.py --seed 121 --index 381,
 * split (ceil((N - 3)/3)/8) of ceil(N/3) - 1 elements, was refused with
 * E0303).  Not a solution: no such term, or an overflow on the way. */
static bool quotient_term(Arena *arena, Size rest, Size divisor, Size *out) {
  Size target;
  SizeTerm inverse;
  if (rest.nterms == 0 || divisor.nterms == 0 || !negate_size(arena, rest, &target) ||
      !invert_term(arena, &divisor.terms[0], &inverse))
    return false;
  for (int i = 0; i < target.nterms; i++) {
    Size q, back;
    if (mul_sizes(arena, single_term(arena, target.terms[i]), single_term(arena, inverse), &q) && q.nterms == 1 &&
        mul_sizes(arena, q, divisor, &back) && size_eq(back, target)) {
      *out = q;
      return true;
    }
  }
  return false;
}

bool size_solve_difference(SizeCtx *sc, Size difference, Sym m, Size *out) {
  Arena *arena = sc->arena;
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
  /* A coefficient that mentions another metavariable makes the equation
   * non-linear in the unknowns (?n*?m == 8).  One that is a sum has no
   * inverse in the canonical form: m is then the one term whose product
   * with it is -rest, if there is one. */
  if (size_first_meta(coefficient) != NULL) return false;
  if (coefficient.nterms != 1) return quotient_term(arena, rest, coefficient, out);
  Size negated_rest;
  SizeTerm inverse;
  const SizeTerm *k = &coefficient.terms[0];
  if (k->num == 1 && k->den == 1 && k->nfactors == 0) {
    /* m + rest == 0, the usual case: m is -rest (the product by 1/1 below
     * would be -rest as it is) */
    if (!negate_size(arena, rest, out)) {
      sc->overflow = true;
      return false;
    }
    return true;
  }
  if (!negate_size(arena, rest, &negated_rest) ||
      !invert_term(arena, &coefficient.terms[0], &inverse) ||
      !mul_sizes(arena, negated_rest, single_term(arena, inverse), out)) {
    sc->overflow = true;
    return false;
  }
  return true;
}

bool size_solve_scaled(SizeCtx *sc, int64_t num, int64_t den, Size other, Size *out) {
  if (num != INT64_MIN && scale_size(sc->arena, other, num < 0 ? -den : den, num < 0 ? -num : num, out)) return true;
  SizeTerm k = {num, den, 0, NULL}, inverse;
  return invert_term(sc->arena, &k, &inverse) && mul_sizes(sc->arena, other, single_term(sc->arena, inverse), out);
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

/* floor(n/d) for d > 0 */
static Wide wide_floor(Wide n, Wide d) {
  Wide q = n / d;
  return (n % d != 0 && n < 0) ? q - 1 : q;
}

/* The integer value of an atom: a variable's, or a floor atom's from the
 * exact values of its num and den. */
static SizeEvalStatus eval_atom(const SizeAtom *x, SizeLookup lookup, void *user, int64_t *value) {
  switch (x->kind) {
  case SIZE_ATOM_VAR: return lookup(user, x->var, value) ? SIZE_EVAL_OK : SIZE_EVAL_UNKNOWN;
  case SIZE_ATOM_FLOOR: break;
  }
  Wide nn, nd, dn, dd, top, bottom;
  SizeEvalStatus st = size_eval_exact(x->num, lookup, user, &nn, &nd);
  if (st == SIZE_EVAL_OK) st = size_eval_exact(x->den, lookup, user, &dn, &dd);
  if (st != SIZE_EVAL_OK) return st;
  if (dn == 0) return SIZE_EVAL_ZERO;
  /* (nn/nd) / (dn/dd) = nn*dd / (nd*dn) */
  if (__builtin_mul_overflow(nn, dd, &top) || __builtin_mul_overflow(nd, dn, &bottom)) return SIZE_EVAL_OVERFLOW;
  if (bottom < 0) top = -top, bottom = -bottom;
  Wide q = wide_floor(top, bottom);
  if (!fits_int64(q)) return SIZE_EVAL_OVERFLOW;
  *value = (int64_t)q;
  return SIZE_EVAL_OK;
}

SizeEvalStatus size_eval_exact(Size a, SizeLookup lookup, void *user, Wide *num_out, Wide *den_out) {
  PolySum sum;
  poly_sum_init(&sum);
  for (int i = 0; i < a.nterms; i++) {
    const SizeTerm *t = &a.terms[i];
    Wide num = t->num, den = t->den;
    for (int j = 0; j < t->nfactors; j++) {
      int64_t v;
      SizeEvalStatus st = eval_atom(size_factor_atom(&t->factors[j]), lookup, user, &v);
      if (st != SIZE_EVAL_OK) return st;
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

typedef struct GridPoint {
  int n;
  const Sym *vars;
  const int64_t *values;
} GridPoint;

static bool grid_lookup(void *user, Sym v, int64_t *value) {
  const GridPoint *g = user;
  for (int i = 0; i < g->n; i++)
    if (g->vars[i] == v) return *value = g->values[i], true;
  return false;
}

bool size_always_divisible(Arena *arena, Size num, int64_t d) {
  if (d <= 0) return false;
  /* The point of the grid where every variable is 1 (each has a degree of
   * at least 1 there) gives the sum of the coefficients: if d does not
   * divide it, the answer is no, found without the grid (translation
   * throughput: N % 64 asked of every split's N/64). */
  PolyWide ones = 0;
  bool plain = true;
  for (int i = 0; i < num.nterms && plain; i++) {
    const SizeTerm *t = &num.terms[i];
    plain = t->den == 1;
    for (int j = 0; j < t->nfactors && plain; j++)
      plain = size_factor_var(&t->factors[j]) && t->factors[j].exp > 0;
    ones += t->num;
  }
  if (plain && ones % d != 0) return false;
  Sym *vars;
  int nv = size_vars(arena, num, &vars);
  int64_t *deg = NEWARRAY(arena, int64_t, nv + 1), *at = NEWARRAY(arena, int64_t, nv + 1);
  for (int i = 0; i < num.nterms; i++) {
    const SizeTerm *t = &num.terms[i];
    if (t->den != 1) return false;
    for (int j = 0; j < t->nfactors; j++) {
      Sym v = size_factor_var(&t->factors[j]);
      if (!v || t->factors[j].exp < 0) return false;
      for (int k = 0; k < nv; k++)
        if (vars[k] == v && deg[k] < t->factors[j].exp) deg[k] = t->factors[j].exp;
    }
  }
  int64_t points = 1;
  for (int k = 0; k < nv; k++)
    if (__builtin_mul_overflow(points, deg[k] + 1, &points) || points > 4096) return false;
  GridPoint g = {nv, vars, at};
  for (int64_t p = 0; p < points; p++) {
    /* the p-th point of the grid, an odometer over the degrees */
    int64_t rest = p;
    for (int k = 0; k < nv; k++) at[k] = rest % (deg[k] + 1), rest /= deg[k] + 1;
    PolyWide v, den;
    if (size_eval_exact(num, grid_lookup, &g, &v, &den) != SIZE_EVAL_OK || den != 1 || v % d != 0) return false;
  }
  return true;
}

/* ---- what the facts of floor atoms prove ---- */

/* the first floor atom that is a factor of a term of e, or NULL */
static const SizeAtom *first_floor(Size e) {
  for (int i = 0; i < e.nterms; i++)
    for (int j = 0; j < e.terms[i].nfactors; j++)
      if (!size_factor_var(&e.terms[i].factors[j])) return size_factor_atom(&e.terms[i].factors[j]);
  return NULL;
}

/* e with x replaced by `lower` in its terms of positive coefficient and by
 * `upper` in the others: no larger than e wherever lower <= x <= upper,
 * since every other factor is a natural number.  False if x has another
 * exponent than 1 somewhere, or on overflow. */
static bool bound_below(Arena *arena, Size e, const SizeAtom *x, Size lower, Size upper, Size *out) {
  SizeTerm *pos = NEWARRAY(arena, SizeTerm, e.nterms), *neg = NEWARRAY(arena, SizeTerm, e.nterms),
           *rest = NEWARRAY(arena, SizeTerm, e.nterms);
  int npos = 0, nneg = 0, nrest = 0;
  for (int i = 0; i < e.nterms; i++) {
    int64_t exp = poly_exponent_of(&by_name, &e.terms[i], x);
    if (exp == 0) rest[nrest++] = e.terms[i];
    else if (exp != 1) return false;
    else if (e.terms[i].num > 0) pos[npos++] = e.terms[i];
    else neg[nneg++] = e.terms[i];
  }
  PolyCtx pc;
  size_poly(&pc, arena);
  Subst by_lower = {x, lower, false}, by_upper = {x, upper, false};
  Size low, high;
  bool shape_ok;
  /* subsets of a canonical sum: normalise only re-sorts them */
  if (!subst_sizes_by(arena, poly_normalise(&pc, pos, npos), &by_lower, &low, &shape_ok) || !shape_ok ||
      !subst_sizes_by(arena, poly_normalise(&pc, neg, nneg), &by_upper, &high, &shape_ok) || !shape_ok ||
      pc.overflow)
    return false;
  return add_sizes(arena, poly_normalise(&pc, rest, nrest), low, out) && add_sizes(arena, *out, high, out);
}

/* Every atom is a natural number, so a sum of terms with positive
 * coefficients is one; each round replaces one floor atom x = floor(n/d)
 * (d a single term) by its bounds (n - d + 1)/d <= x <= n/d, which may
 * bring in the atoms of n: a few rounds suffice for what sizes write. */
bool size_provably_at_least(SizeCtx *sc, Size lhs, Size rhs) {
  Arena *arena = sc->arena;
  Size e;
  if (!negate_size(arena, rhs, &e) || !add_sizes(arena, lhs, e, &e)) return false;
  for (int round = 0; round < 16; round++) {
    if (nonnegative_coefficients(e)) return true;
    const SizeAtom *x = first_floor(e);
    if (!x || x->den.nterms != 1) return false;
    SizeTerm inverse;
    Size upper, lower, below;
    if (!invert_term(arena, &x->den.terms[0], &inverse) ||
        !mul_sizes(arena, x->num, single_term(arena, inverse), &upper) || !negate_size(arena, x->den, &below) ||
        !add_sizes(arena, x->num, below, &below) || !add_sizes(arena, below, const_size(arena, 1), &below) ||
        !mul_sizes(arena, below, single_term(arena, inverse), &lower) ||
        !bound_below(arena, e, x, lower, upper, &e))
      return false;
  }
  return false;
}

/* ---- printing ---- */

static void print_magnitude(Buf *out, int64_t v) {
  /* the digits at once, but INT64_MIN's magnitude, no long long */
  if (v != INT64_MIN) {
    buf_put_int(out, v < 0 ? -v : v);
    return;
  }
  uint64_t magnitude = (uint64_t)0 - (uint64_t)v;
  emit(out, "%" PRIu64, magnitude);
}

static void print_polynomial(Buf *out, Size p, SizeSyntax syntax);
static bool is_plain_product(Size a, bool single_factor_only);
static const char *division_operator(SizeSyntax syntax);

/* p, in parentheses if it is a sum (numerators) or, with divisor, if it is
 * not one integer or identifier either */
static void print_part(Buf *out, Size p, SizeSyntax syntax, bool divisor) {
  bool wrap = divisor ? !is_plain_product(p, true) : p.nterms > 1;
  if (wrap) buf_putc(out, '(');
  print_polynomial(out, p, syntax);
  if (wrap) buf_putc(out, ')');
}

/* A floor atom.  In C and Python it is the truncating division of its num
 * by its den (num is not negative: size.h), in parentheses unless bare
 * (the whole size printed alone).  In DPIA it is ceil(X/den) when num is
 * X + den - 1 with X a sum of positive terms (so ceil(N/64) reads as it
 * was written), floor(num/den) otherwise. */
static void print_floor(Buf *out, const SizeAtom *x, SizeSyntax syntax, bool bare) {
  switch (syntax) {
  case SIZE_SYNTAX_C:
  case SIZE_SYNTAX_PYTHON:
    if (!bare) buf_putc(out, '(');
    print_part(out, x->num, syntax, false);
    buf_puts(out, division_operator(syntax));
    print_part(out, x->den, syntax, true);
    if (!bare) buf_putc(out, ')');
    return;
  case SIZE_SYNTAX_DPIA: {
    Arena *arena = out->arena;
    Size ceil_num, neg_den;
    bool is_ceil = negate_size(arena, x->den, &neg_den) && add_sizes(arena, x->num, neg_den, &ceil_num) &&
                   add_sizes(arena, ceil_num, const_size(arena, 1), &ceil_num) && ceil_num.nterms > 0 &&
                   nonnegative_coefficients(ceil_num);
    buf_puts(out, is_ceil ? "ceil(" : "floor(");
    print_part(out, is_ceil ? ceil_num : x->num, syntax, false);
    buf_putc(out, '/');
    print_part(out, x->den, syntax, true);
    buf_putc(out, ')');
    return;
  }
  }
  INTERNAL("size syntax %d", (int)syntax);
}

static void print_atom(Buf *out, const SizeAtom *x, SizeSyntax syntax, bool bare) {
  switch (x->kind) {
  case SIZE_ATOM_VAR: buf_puts(out, x->var); return;
  case SIZE_ATOM_FLOOR: print_floor(out, x, syntax, bare); return;
  }
  INTERNAL("size atom kind %d", (int)x->kind);
}

/* v*v*...*w for positive exponents; nothing for no factors. */
static void print_product(Buf *out, const SizeFactor *factors, int n, bool need_star, SizeSyntax syntax) {
  for (int i = 0; i < n; i++) {
    ASSERT(factors[i].exp > 0);
    for (int64_t k = 0; k < factors[i].exp; k++) {
      if (need_star) buf_putc(out, '*');
      print_atom(out, size_factor_atom(&factors[i]), syntax, false);
      need_star = true;
    }
  }
}

/* |coefficient| times the monomial of a term with integer coefficient and
 * positive exponents. */
static void print_term_magnitude(Buf *out, const SizeTerm *t, SizeSyntax syntax) {
  ASSERT(t->den == 1);
  bool print_coefficient = (t->num != 1 && t->num != -1) || t->nfactors == 0;
  if (print_coefficient) print_magnitude(out, t->num);
  print_product(out, t->factors, t->nfactors, print_coefficient, syntax);
}

/* A polynomial (integer coefficients, positive exponents) in canonical term
 * order, except that when the first term is negative the first positive term
 * is moved to the front: `N - M` rather than `-M + N`. */
static void print_polynomial(Buf *out, Size p, SizeSyntax syntax) {
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
  /* DPIA has no negation of a size: -k, a row's size after drop 1 in a
   * triangle of one row, is 0 - k (0 at that row); a constant keeps its
   * sign (size -1 is negative) */
  if (first->num < 0) buf_puts(out, syntax == SIZE_SYNTAX_DPIA && first->nfactors > 0 ? "0 - " : "-");
  print_term_magnitude(out, first, syntax);
  /* in DPIA the positive terms first: the language reads N - i + 2 as
   * (N - i) + 2, whose difference must be natural, a requirement the size
   * N + 2 - i does not make (false at the last row of a triangle over N +
   * 2 elements, docs/language.md section 30); so a printed program
   * re-checks with the requirements it was checked with */
  int passes = syntax == SIZE_SYNTAX_DPIA ? 2 : 1;
  for (int pass = 0; pass < passes; pass++)
    for (int i = 0; i < p.nterms; i++) {
      if (i == lead || (passes == 2 && (p.terms[i].num < 0) != (pass == 1))) continue;
      buf_puts(out, p.terms[i].num < 0 ? " - " : " + ");
      print_term_magnitude(out, &p.terms[i], syntax);
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
 * times each atom to its largest negative exponent, as a single term. */
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
      PolyAtom v = t->factors[j].atom;
      int64_t wanted = -t->factors[j].exp;
      /* insertion into vars, kept sorted by the atom order */
      int k = 0;
      while (k < nvars && poly_compare_atoms(&by_name, vars[k].atom, v) < 0) k++;
      if (k < nvars && poly_compare_atoms(&by_name, vars[k].atom, v) == 0) {
        if (vars[k].exp < wanted) vars[k].exp = wanted;
      } else {
        memmove(&vars[k + 1], &vars[k], sizeof(SizeFactor) * (size_t)(nvars - k));
        vars[k] = (SizeFactor){{.atom = v}, wanted};
        nvars++;
      }
    }
  }
  *out = single_term(arena, (SizeTerm){(int64_t)lcm, 1, nvars, nvars > 0 ? vars : NULL});
  return true;
}

bool size_fraction(Arena *arena, Size a, Size *numerator, Size *denominator) {
  /* One term with positive exponents (N/256, the size of a split's rows,
   * a launch's groups): its common denominator is its coefficient's den,
   * and the product num/den*N times den is num*N, the term's own
   * monomial, made at once instead of by a product (translation
   * throughput, issue 35; tests/unit/test_size.c checks it against
   * size_mul). */
  if (a.nterms == 1 && a.terms[0].den > 0) {
    const SizeTerm *t = &a.terms[0];
    bool positive = t->num != 0;
    for (int j = 0; j < t->nfactors; j++) positive = positive && t->factors[j].exp > 0;
    if (positive) {
      SizeTerm *both = NEWARRAY(arena, SizeTerm, 2); /* one allocation */
      both[0] = (SizeTerm){t->den, 1, 0, NULL};
      both[1] = (SizeTerm){t->num, 1, t->nfactors, t->factors};
      *denominator = (Size){1, &both[0]};
      *numerator = (Size){1, &both[1]};
      return true;
    }
  }
  if (!common_denominator(arena, a, denominator) || !mul_sizes(arena, a, *denominator, numerator)) return false;
  ASSERT(size_is_polynomial(*numerator) && numerator->nterms == a.nterms);
  return true;
}

/* the truncating integer division of the syntax (every operand of a size's
 * division is non-negative, so C's / and Python's // agree); DPIA's exact
 * division prints the same where it stands (a common denominator) */
static const char *division_operator(SizeSyntax syntax) {
  switch (syntax) {
  case SIZE_SYNTAX_C:
  case SIZE_SYNTAX_DPIA: return "/";
  case SIZE_SYNTAX_PYTHON: return "//";
  }
  INTERNAL("size syntax %d", (int)syntax);
}

/* numerator/denominator over the common denominator; false (and nothing
 * printed) if that leaves int64. */
static bool print_fraction(Buf *out, Size a, SizeSyntax syntax) {
  /* Most sizes printed are polynomials (N, 64, the NDRange's N*M; a
   * header comment, each precondition): their common denominator is 1,
   * and the numerator a times 1, a itself (scale_size's note: a constant
   * factor keeps every term, in order).  So a is printed at once, without
   * the product (translation throughput, issue 35; tests/unit/test_size.c
   * compares the two ways). */
  if (size_is_polynomial(a)) {
    print_polynomial(out, a, syntax);
    return true;
  }
  /* One term of positive exponents (N/16384, a split's rows): over its
   * coefficient's den, size_fraction's numerator and denominator for it,
   * printed as size_print_fraction_general prints them (neither needs
   * parentheses: one term, and a constant divisor) without making them
   * (translation throughput, issue 35; the same test compares). */
  if (a.nterms == 1 && a.terms[0].den > 1) {
    const SizeTerm *t = &a.terms[0];
    bool positive = true;
    for (int j = 0; j < t->nfactors; j++) positive = positive && t->factors[j].exp > 0;
    if (positive) {
      SizeTerm top = {t->num, 1, t->nfactors, t->factors};
      print_polynomial(out, (Size){1, &top}, syntax);
      buf_puts(out, division_operator(syntax));
      print_magnitude(out, t->den);
      return true;
    }
  }
  return size_print_fraction_general(out, a, syntax);
}

bool size_print_fraction_general(Buf *out, Size a, SizeSyntax syntax) {
  Size denominator, numerator;
  if (!size_fraction(out->arena, a, &numerator, &denominator)) return false;
  int64_t d;
  if (size_const_value(denominator, &d) && d == 1) {
    print_polynomial(out, numerator, syntax);
    return true;
  }
  print_part(out, numerator, syntax, false);
  buf_puts(out, division_operator(syntax));
  print_part(out, denominator, syntax, true);
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

/* the floor atom that a is, alone with coefficient 1, or NULL */
static const SizeAtom *lone_floor(Size a) {
  if (a.nterms != 1) return NULL;
  const SizeTerm *t = &a.terms[0];
  if (t->num != 1 || t->den != 1 || t->nfactors != 1 || t->factors[0].exp != 1) return NULL;
  const SizeAtom *x = size_factor_atom(&t->factors[0]);
  return x->kind == SIZE_ATOM_FLOOR ? x : NULL;
}

static void print_alone(Buf *out, Size a, SizeSyntax syntax, bool bare) {
  if (a.nterms == 0) {
    buf_putc(out, '0');
    return;
  }
  const SizeAtom *x = lone_floor(a);
  if (x && bare) {
    print_floor(out, x, syntax, true);
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
    print_term_magnitude(out, &integral.terms[i], syntax);
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
  print_alone(out, a, syntax, position == SIZE_ALONE);
  if (wrap) buf_putc(out, ')');
}

void size_print(Buf *out, Size a) { size_print_in(out, a, SIZE_SYNTAX_C, SIZE_ALONE); }

void size_print_operand(Buf *out, Size a) { size_print_in(out, a, SIZE_SYNTAX_C, SIZE_OPERAND); }

void size_print_divisor(Buf *out, Size a) { size_print_in(out, a, SIZE_SYNTAX_C, SIZE_DIVISOR); }
