/* test_poly.c: unit tests of the polynomial core (dpia/poly.h) that sizes
 * (spec section 3) and the index simplifier (spec section 8) share: the
 * canonical order of factors and terms, equality, checked arithmetic and
 * its limits, lookups, and atoms ordered by a compare function.
 *
 * Prints `poly: P passed, F failed` and exits non-zero if anything failed. */
#include "poly.h"
#include "unit_env.h"

typedef struct Tester {
  Arena *arena;
  Interner *names;
  int passed, failed;
} Tester;

static void record(Tester *t, bool ok, int line, const char *what) {
  if (ok) {
    t->passed++;
  } else {
    t->failed++;
    fprintf(stderr, "test_poly.c:%d: FAILED: %s\n", line, what);
  }
}

#define CHECK(cond) record(t, (cond), __LINE__, #cond)

/* a polynomial over names, with the limits of sizes */
static PolyCtx names_ctx(Tester *t) {
  PolyCtx pc;
  poly_ctx_init(&pc, t->arena, NULL, NULL, NULL, 62, 256);
  return pc;
}

static Poly var(Tester *t, PolyCtx *pc, const char *name) { return poly_atom(pc, intern_cstr(t->names, name)); }

/* c * v1^e1 * v2^e2 as one term (exponent 0: no factor) */
static PolyTerm term2(Tester *t, int64_t c, const char *v1, int64_t e1, const char *v2, int64_t e2) {
  PolyFactor *f = NEWARRAY(t->arena, PolyFactor, 2);
  int n = 0;
  if (e1 != 0) f[n++] = (PolyFactor){{intern_cstr(t->names, v1)}, e1};
  if (e2 != 0) f[n++] = (PolyFactor){{intern_cstr(t->names, v2)}, e2};
  return (PolyTerm){c, 1, n, n > 0 ? f : NULL};
}

static bool factors_sorted(const PolyCtx *pc, const PolyTerm *term) {
  for (int i = 1; i < term->nfactors; i++) {
    if (poly_compare_atoms(pc, term->factors[i - 1].atom, term->factors[i].atom) >= 0) return false;
  }
  return true;
}

static bool is_canonical(const PolyCtx *pc, Poly p) {
  for (int i = 0; i < p.nterms; i++) {
    if (p.terms[i].num == 0 || p.terms[i].den <= 0 || !factors_sorted(pc, &p.terms[i])) return false;
    if (i > 0 && poly_compare_monomials(pc, &p.terms[i - 1], &p.terms[i]) >= 0) return false;
  }
  return true;
}

/* ---- canonical order ---- */

static void test_order(Tester *t) {
  PolyCtx pc = names_ctx(t);
  Poly x = var(t, &pc, "x"), y = var(t, &pc, "y"), one = poly_const(&pc, 1);
  /* (x + 1)*(y + 1) built two ways: the same terms in the same order */
  Poly a = poly_mul(&pc, poly_add(&pc, x, one), poly_add(&pc, y, one));
  Poly b = poly_add(&pc, poly_add(&pc, one, y), poly_add(&pc, x, poly_mul(&pc, y, x)));
  CHECK(is_canonical(&pc, a) && is_canonical(&pc, b));
  CHECK(poly_eq(&pc, a, b));
  /* higher degree first, then x before y, the constant last: x*y, x, y, 1 */
  CHECK(a.nterms == 4);
  CHECK(a.terms[0].nfactors == 2 && a.terms[0].factors[0].var == x.terms[0].factors[0].var);
  CHECK(a.terms[1].nfactors == 1 && a.terms[1].factors[0].var == x.terms[0].factors[0].var);
  CHECK(a.terms[2].nfactors == 1 && a.terms[2].factors[0].var == y.terms[0].factors[0].var);
  CHECK(a.terms[3].nfactors == 0 && a.terms[3].num == 1);
  /* the same atom twice is a power: x*x is one factor x^2, before x*y */
  Poly xx = poly_mul(&pc, x, x);
  CHECK(xx.nterms == 1 && xx.terms[0].nfactors == 1 && xx.terms[0].factors[0].exp == 2);
  Poly mixed = poly_add(&pc, poly_mul(&pc, x, y), xx);
  CHECK(is_canonical(&pc, mixed) && mixed.terms[0].factors[0].exp == 2);
  /* normalising terms in any order, with equal monomials, gives one form */
  PolyTerm terms[5] = {term2(t, 3, "y", 1, "x", 0), term2(t, 1, "x", 1, "y", 1), term2(t, -3, "y", 1, "x", 0),
                       term2(t, 2, "x", 2, "y", 0), term2(t, 5, "x", 0, "y", 0)};
  Poly n = poly_normalise(&pc, terms, 5);
  CHECK(is_canonical(&pc, n) && n.nterms == 3 && !pc.overflow);
  CHECK(poly_degree(&n.terms[0]) == 2 && n.terms[0].factors[0].exp == 2 && n.terms[2].num == 5);
  /* a negative exponent lowers the degree: x/y sorts after x, the constant
   * still last */
  PolyTerm ratio[3] = {term2(t, 1, "x", 1, "y", -1), term2(t, 7, "x", 0, "y", 0), term2(t, 1, "x", 1, "y", 0)};
  Poly r = poly_normalise(&pc, ratio, 3);
  CHECK(is_canonical(&pc, r) && r.nterms == 3 && r.terms[0].nfactors == 1 && r.terms[1].nfactors == 2 &&
        r.terms[2].nfactors == 0);
}

/* ---- equality and lookups ---- */

static void test_equality(Tester *t) {
  PolyCtx pc = names_ctx(t);
  Poly x = var(t, &pc, "x"), one = poly_const(&pc, 1);
  /* (x + 1)(x - 1) == x^2 - 1 */
  Poly lhs = poly_mul(&pc, poly_add(&pc, x, one), poly_sub(&pc, x, one));
  Poly rhs = poly_sub(&pc, poly_mul(&pc, x, x), one);
  CHECK(poly_eq(&pc, lhs, rhs));
  CHECK(!poly_eq(&pc, lhs, poly_add(&pc, rhs, one)));
  CHECK(poly_sub(&pc, lhs, rhs).nterms == 0);
  /* rational coefficients: x/2 + x/2 == x, 1/3 + 2/3 == 1 */
  Poly half_x = poly_of_term(&pc, (PolyTerm){1, 2, x.terms[0].nfactors, x.terms[0].factors});
  CHECK(poly_eq(&pc, poly_add(&pc, half_x, half_x), x));
  Poly third = poly_of_term(&pc, (PolyTerm){1, 3, 0, NULL}), two_thirds = poly_of_term(&pc, (PolyTerm){2, 3, 0, NULL});
  int64_t v = 0;
  CHECK(poly_const_value(poly_add(&pc, third, two_thirds), &v) && v == 1);
  CHECK(!poly_const_value(third, &v));
  /* scaling a rational coefficient reduces it: 3 * (1/3) == 1 */
  CHECK(poly_const_value(poly_scale(&pc, third, 3), &v) && v == 1);
  /* lookups */
  PolyTerm xy2 = term2(t, 4, "x", 1, "y", 2);
  CHECK(poly_exponent_of(&pc, &xy2, intern_cstr(t->names, "y")) == 2);
  CHECK(poly_exponent_of(&pc, &xy2, intern_cstr(t->names, "z")) == 0);
  PolyTerm without = poly_term_without(&pc, &xy2, intern_cstr(t->names, "y"));
  CHECK(without.nfactors == 1 && without.num == 4);
  PolyTerm lower = poly_term_lower(&pc, &xy2, 1);
  CHECK(lower.nfactors == 2 && lower.factors[1].exp == 1);
  lower = poly_term_lower(&pc, &xy2, 0);
  CHECK(lower.nfactors == 1 && lower.factors[0].exp == 2);
  Poly sum = poly_add(&pc, poly_of_term(&pc, xy2), x);
  PolyTerm probe = term2(t, 99, "x", 1, "y", 2);
  const PolyTerm *found = poly_find_monomial(&pc, sum, &probe);
  CHECK(found && found->num == 4);
  probe = term2(t, 1, "x", 2, "y", 1);
  CHECK(poly_find_monomial(&pc, sum, &probe) == NULL);
  /* exact division of terms: 4*x*y^2 / (2*y) = 2*x*y; not by 3, not by z */
  PolyTerm k = term2(t, 2, "y", 1, "x", 0), q;
  CHECK(poly_term_divide(&pc, &xy2, &k, &q) && q.num == 2 && q.nfactors == 2 && q.factors[1].exp == 1);
  k = term2(t, 3, "y", 1, "x", 0);
  CHECK(!poly_term_divide(&pc, &xy2, &k, &q));
  k = term2(t, 1, "z", 1, "x", 0);
  CHECK(!poly_term_divide(&pc, &xy2, &k, &q));
  k = term2(t, 1, "y", 3, "x", 0);
  CHECK(!poly_term_divide(&pc, &xy2, &k, &q));
  /* gcd */
  CHECK(poly_gcd(12, -18) == 6 && poly_gcd(0, 5) == 5 && poly_gcd(0, 0) == 0 && poly_gcd(7, 13) == 1);
  /* INT64_MIN has no magnitude in int64, yet takes part (% -1 would trap) */
  CHECK(poly_gcd(INT64_MIN, 6) == 2 && poly_gcd(INT64_MIN, -1) == 1 && poly_gcd(-1, INT64_MIN) == 1);
}

/* ---- overflow ---- */

static void test_overflow(Tester *t) {
  PolyCtx pc = names_ctx(t);
  CHECK(poly_checked_add(&pc, INT64_MAX - 1, 1) == INT64_MAX && !pc.overflow);
  poly_checked_add(&pc, INT64_MAX, 1);
  CHECK(pc.overflow);
  pc = names_ctx(t);
  poly_checked_mul(&pc, INT64_MAX / 2 + 1, 2);
  CHECK(pc.overflow);

  /* a sum that leaves int64 */
  pc = names_ctx(t);
  Poly x = var(t, &pc, "x");
  Poly big = poly_scale(&pc, x, INT64_MAX);
  CHECK(!pc.overflow);
  poly_add(&pc, big, x);
  CHECK(pc.overflow);
  /* only the final coefficient has to fit: max + 1 - 1 in one merge */
  pc = names_ctx(t);
  PolyTerm run[3] = {term2(t, INT64_MAX, "x", 1, "y", 0), term2(t, 1, "x", 1, "y", 0), term2(t, -1, "x", 1, "y", 0)};
  Poly merged = poly_normalise(&pc, run, 3);
  CHECK(!pc.overflow && merged.nterms == 1 && merged.terms[0].num == INT64_MAX);
  /* negating INT64_MIN, multiplying past int64, a rational past int64 */
  pc = names_ctx(t);
  poly_scale(&pc, poly_const(&pc, INT64_MIN), -1);
  CHECK(pc.overflow);
  pc = names_ctx(t);
  poly_mul(&pc, big, poly_const(&pc, 2));
  CHECK(pc.overflow);
  pc = names_ctx(t);
  Poly tiny = poly_of_term(&pc, (PolyTerm){1, INT64_MAX, 0, NULL});
  poly_mul(&pc, tiny, poly_of_term(&pc, (PolyTerm){1, INT64_MAX - 1, 0, NULL}));
  CHECK(pc.overflow);
  /* exponents beyond the context's limit */
  pc = names_ctx(t);
  PolyTerm high = term2(t, 1, "x", 40, "y", 0);
  Poly h = poly_of_term(&pc, high);
  poly_mul(&pc, h, h);
  CHECK(pc.overflow);
  pc = names_ctx(t);
  Poly p = poly_power(&pc, x, 62);
  CHECK(!pc.overflow && p.terms[0].factors[0].exp == 62);
  /* more terms than the context allows */
  PolyCtx small;
  poly_ctx_init(&small, t->arena, NULL, NULL, NULL, 62, 3);
  Poly y = var(t, &small, "y");
  Poly s = poly_add(&small, poly_add(&small, x, y), poly_const(&small, 1));
  CHECK(!small.overflow && s.nterms == 3);
  s = poly_add(&small, s, poly_mul(&small, x, y));
  CHECK(small.overflow && s.nterms == 4 && is_canonical(&small, s));
  /* a product too big to compute: overflow and 0, even where the merged
   * result would be small (x+1)*(x-1) */
  poly_ctx_init(&small, t->arena, NULL, NULL, NULL, 62, 64);
  small.max_products = 3;
  Poly one = poly_const(&small, 1);
  Poly diff = poly_mul(&small, poly_add(&small, x, one), poly_sub(&small, x, one));
  CHECK(small.overflow && diff.nterms == 0);
  small.overflow = false;
  diff = poly_mul(&small, x, poly_add(&small, x, one));
  CHECK(!small.overflow && diff.nterms == 2);
}

/* ---- opaque atoms ---- */

/* An atom the core cannot look into: equal by value, not by address, and
 * ordered by a rule of the caller (here: descending value). */
typedef struct Opaque {
  int value;
} Opaque;

static int compare_opaque(const void *user, PolyAtom a, PolyAtom b) {
  int *calls = (int *)user;
  (*calls)++;
  int va = ((const Opaque *)a)->value, vb = ((const Opaque *)b)->value;
  return (va < vb) - (va > vb);
}

static bool equal_opaque(PolyAtom a, PolyAtom b) { return ((const Opaque *)a)->value == ((const Opaque *)b)->value; }

static void test_opaque(Tester *t) {
  int calls = 0;
  PolyCtx pc;
  poly_ctx_init(&pc, t->arena, compare_opaque, equal_opaque, &calls, INT64_MAX, 64);
  Opaque one = {1}, two = {2}, two_again = {2};
  Poly a1 = poly_atom(&pc, &one), a2 = poly_atom(&pc, &two), b2 = poly_atom(&pc, &two_again);
  /* the caller's order: 2 before 1 */
  Poly prod = poly_mul(&pc, a1, a2);
  CHECK(calls > 0 && prod.terms[0].nfactors == 2 && prod.terms[0].factors[0].atom == &two);
  Poly sum = poly_add(&pc, a1, a2);
  CHECK(sum.nterms == 2 && sum.terms[0].factors[0].atom == &two);
  /* equal atoms at different addresses are the same atom */
  CHECK(poly_eq(&pc, a2, b2));
  CHECK(poly_sub(&pc, a2, b2).nterms == 0);
  Poly sq = poly_mul(&pc, a2, b2);
  CHECK(sq.nterms == 1 && sq.terms[0].nfactors == 1 && sq.terms[0].factors[0].exp == 2);
  CHECK(poly_exponent_of(&pc, &sq.terms[0], &two_again) == 2);
  /* index polynomials: integer coefficients and positive exponents stay so */
  Poly e = poly_mul(&pc, poly_add(&pc, a1, poly_const(&pc, 3)), poly_sub(&pc, a2, poly_const(&pc, 2)));
  for (int i = 0; i < e.nterms; i++) {
    CHECK(e.terms[i].den == 1);
    for (int j = 0; j < e.terms[i].nfactors; j++) CHECK(e.terms[i].factors[j].exp > 0);
  }
  CHECK(is_canonical(&pc, e) && e.nterms == 4 && !pc.overflow);
}

/* ---- the fast products against the general one (issue 35) ---- */

typedef struct Rng {
  uint64_t state;
} Rng;

static uint64_t rng_next(Rng *r) {
  /* xorshift64* */
  r->state ^= r->state >> 12;
  r->state ^= r->state << 25;
  r->state ^= r->state >> 27;
  return r->state * UINT64_C(2685821657736338717);
}

static int64_t rng_below(Rng *r, int64_t n) { return (int64_t)(rng_next(r) % (uint64_t)n); }

/* a coefficient: mostly small, sometimes near the ends of int64 (where the
 * int64 ways must give way to 128 bits or report overflow) */
static int64_t random_magnitude(Rng *r) {
  switch (rng_below(r, 8)) {
  case 0: return INT64_MAX - rng_below(r, 4);
  case 1: return ((int64_t)1 << 32) + rng_below(r, 64);
  case 2: return ((int64_t)1 << 62) / (1 + rng_below(r, 6));
  default: return 1 + rng_below(r, 96);
  }
}

/* num/den in lowest terms, den > 0 (a quarter of them integers but
 * INT64_MIN now and then) */
static void random_coefficient(Rng *r, int64_t *num, int64_t *den) {
  int64_t n = random_magnitude(r), d = rng_below(r, 4) == 0 ? random_magnitude(r) : 1;
  if (rng_below(r, 3) == 0) n = -n;
  if (rng_below(r, 40) == 0) n = INT64_MIN, d = rng_below(r, 2) ? 1 : 3;
  int64_t g = poly_gcd(n, d);
  *num = n == INT64_MIN && g == 1 ? n : n / g;
  *den = d / g;
}

static const char *const atom_names[] = {"A", "B", "C", "N"};

/* a canonical polynomial of up to 4 terms over four names, exponents in
 * -2..3, through poly_normalise */
static Poly random_poly(Tester *t, PolyCtx *pc, Rng *r) {
  int n = (int)rng_below(r, 5);
  PolyTerm *terms = NEWARRAY(t->arena, PolyTerm, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) {
    PolyFactor *f = NEWARRAY(t->arena, PolyFactor, 4);
    int nf = 0;
    for (int v = 0; v < 4; v++) {
      int64_t e = rng_below(r, 6) - 2;
      if (e != 0 && rng_below(r, 2)) f[nf++] = (PolyFactor){{intern_cstr(t->names, atom_names[v])}, e};
    }
    random_coefficient(r, &terms[i].num, &terms[i].den);
    terms[i].nfactors = nf;
    terms[i].factors = nf > 0 ? f : NULL;
  }
  return poly_normalise(pc, terms, n);
}

/* the same terms, coefficient by coefficient and factor by factor */
static bool same_poly(Poly a, Poly b) {
  if (a.nterms != b.nterms) return false;
  for (int i = 0; i < a.nterms; i++) {
    const PolyTerm *x = &a.terms[i], *y = &b.terms[i];
    if (x->num != y->num || x->den != y->den || x->nfactors != y->nfactors) return false;
    for (int j = 0; j < x->nfactors; j++)
      if (x->factors[j].atom != y->factors[j].atom || x->factors[j].exp != y->factors[j].exp) return false;
  }
  return true;
}

__extension__ typedef unsigned __int128 UWide;

/* n/d in lowest terms with d > 0 by 128-bit division alone (d != 0, no
 * magnitude of 2^127), as the core reduced every coefficient before */
static void reference_reduce(PolyWide *n, PolyWide *d) {
  UWide x = *n < 0 ? -(UWide)*n : (UWide)*n, y = *d < 0 ? -(UWide)*d : (UWide)*d;
  while (y != 0) {
    UWide rest = x % y;
    x = y;
    y = rest;
  }
  if (*n == 0) {
    *d = 1;
    return;
  }
  PolyWide sign = *d < 0 ? -1 : 1;
  *n = *n / (PolyWide)x * sign;
  *d = *d / (PolyWide)x * sign;
}

/* the product of two coefficients so reduced: false where it leaves int64 */
static bool reference_product(int64_t an, int64_t ad, int64_t bn, int64_t bd, int64_t *num, int64_t *den) {
  PolyWide n = (PolyWide)an * bn, d = (PolyWide)ad * bd;
  reference_reduce(&n, &d);
  if (n < INT64_MIN || n > INT64_MAX || d > INT64_MAX) return false;
  *num = (int64_t)n;
  *den = (int64_t)d;
  return true;
}

/* poly_mul (a constant operand scaled, two single terms in one
 * allocation) against poly_mul_general, overflow included; every term
 * product's coefficient against the 128-bit reduction; over names and
 * over opaque atoms */
static void test_fast_products(Tester *t) {
  Rng rng = {UINT64_C(0x2545F4914F6CDD1D)};
  int constants = 0, singles = 0, overflows = 0, fractions = 0;
  for (int round = 0; round < 6000; round++) {
    PolyCtx pc = names_ctx(t);
    Poly a = random_poly(t, &pc, &rng), b = random_poly(t, &pc, &rng);
    if (rng_below(&rng, 3) == 0 && a.nterms > 0) {
      /* a constant or a single term, the fast paths' operands */
      PolyTerm k = a.terms[0];
      if (rng_below(&rng, 2)) k.nfactors = 0, k.factors = NULL;
      if (rng_below(&rng, 8) == 0) k.num = k.den = 1;
      a = poly_of_term(&pc, k);
    }
    if (rng_below(&rng, 3) == 0 && b.nterms > 1) b.nterms = 1;
    if (pc.overflow) continue; /* made by normalise: not a product's */
    constants += (a.nterms == 1 && a.terms[0].nfactors == 0) || (b.nterms == 1 && b.terms[0].nfactors == 0);
    singles += a.nterms == 1 && b.nterms == 1 && a.terms[0].nfactors > 0 && b.terms[0].nfactors > 0;
    Poly fast = poly_mul(&pc, a, b);
    bool fast_overflow = pc.overflow;
    pc.overflow = false;
    Poly general = poly_mul_general(&pc, a, b);
    bool general_overflow = pc.overflow;
    overflows += general_overflow;
    bool ok = fast_overflow == general_overflow && same_poly(fast, general) && is_canonical(&pc, fast);
    record(t, ok, __LINE__, "poly_mul is poly_mul_general's product");
    if (!ok) fprintf(stderr, "  round %d: %d x %d terms\n", round, a.nterms, b.nterms);
    for (int i = 0; i < a.nterms && i < 2; i++)
      for (int j = 0; j < b.nterms && j < 2; j++) {
        pc.overflow = false;
        PolyTerm p = poly_term_mul(&pc, &a.terms[i], &b.terms[j]);
        int64_t num, den;
        bool fits = reference_product(a.terms[i].num, a.terms[i].den, b.terms[j].num, b.terms[j].den, &num, &den);
        fractions += a.terms[i].den != 1 || b.terms[j].den != 1;
        bool same = fits ? !pc.overflow && p.num == num && p.den == den : pc.overflow && p.num == 1 && p.den == 1;
        record(t, same, __LINE__, "a term product's coefficient is the 128-bit product in lowest terms");
        if (!same)
          fprintf(stderr, "  %lld/%lld * %lld/%lld = %lld/%lld\n", (long long)a.terms[i].num, (long long)a.terms[i].den,
                  (long long)b.terms[j].num, (long long)b.terms[j].den, (long long)p.num, (long long)p.den);
      }
  }
  /* the generator must reach every path */
  CHECK(constants > 1000 && singles > 300 && overflows > 100 && fractions > 3000);
  /* opaque atoms, in the caller's order */
  int calls = 0;
  Opaque atoms[4] = {{1}, {2}, {3}, {4}};
  for (int round = 0; round < 500; round++) {
    PolyCtx pc;
    poly_ctx_init(&pc, t->arena, compare_opaque, equal_opaque, &calls, INT64_MAX, 64);
    Poly a = poly_mul(&pc, poly_atom(&pc, &atoms[rng_below(&rng, 4)]), poly_const(&pc, 1 + rng_below(&rng, 9)));
    Poly b = poly_atom(&pc, &atoms[rng_below(&rng, 4)]);
    if (rng_below(&rng, 2)) b = poly_add(&pc, b, poly_const(&pc, rng_below(&rng, 5)));
    CHECK(same_poly(poly_mul(&pc, a, b), poly_mul_general(&pc, a, b)) && !pc.overflow);
  }
}

/* poly_wide_reduce's int64 way against the 128-bit one: coefficients
 * times a common factor, either sign of denominator, and 0 */
static void test_reduce(Tester *t) {
  Rng rng = {UINT64_C(0x9E3779B97F4A7C15)};
  int narrow = 0;
  for (int round = 0; round < 20000; round++) {
    int64_t n0, d0;
    random_coefficient(&rng, &n0, &d0);
    int64_t k = rng_below(&rng, 4) == 0 ? random_magnitude(&rng) : 1 + rng_below(&rng, 12);
    PolyWide n = (PolyWide)n0 * k, d = (PolyWide)d0 * k * (rng_below(&rng, 4) == 0 ? -1 : 1);
    if (rng_below(&rng, 30) == 0) n = 0;
    narrow += n > INT64_MIN && n <= INT64_MAX && d > INT64_MIN && d <= INT64_MAX;
    PolyWide rn = n, rd = d;
    reference_reduce(&rn, &rd);
    bool ok = poly_wide_reduce(&n, &d) && n == rn && d == rd && d > 0;
    record(t, ok, __LINE__, "poly_wide_reduce gives the lowest terms with a positive denominator");
    if (!ok) fprintf(stderr, "  %lld/%lld * %lld\n", (long long)n0, (long long)d0, (long long)k);
  }
  CHECK(narrow > 10000 && narrow < 19000); /* both ways taken */
}

/* poly_term_divide by a constant (its monomial shared, not copied) and by
 * a term with factors: the quotient times the divisor is the term */
static void test_term_divide(Tester *t) {
  Rng rng = {UINT64_C(0xBF58476D1CE4E5B9)};
  PolyCtx pc = names_ctx(t);
  int by_constants = 0, divided = 0;
  for (int round = 0; round < 4000; round++) {
    PolyTerm x = term2(t, 1 + rng_below(&rng, 60), atom_names[rng_below(&rng, 2)], rng_below(&rng, 3),
                       atom_names[2 + rng_below(&rng, 2)], rng_below(&rng, 3));
    PolyTerm k = term2(t, 1 + rng_below(&rng, 6), atom_names[rng_below(&rng, 2)],
                       rng_below(&rng, 2) * rng_below(&rng, 3), "N", 0);
    by_constants += k.nfactors == 0;
    PolyTerm q;
    if (!poly_term_divide(&pc, &x, &k, &q)) {
      CHECK(x.num % k.num != 0 || k.nfactors > 0);
      continue;
    }
    divided++;
    PolyTerm back = poly_term_mul(&pc, &q, &k);
    CHECK(same_poly(poly_of_term(&pc, back), poly_of_term(&pc, x)) && q.den == 1 && !pc.overflow);
  }
  CHECK(by_constants > 1000 && divided > 1000);
}

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "poly");
  Tester tester = {&env.arena, &env.in, 0, 0};
  Tester *t = &tester;
  test_order(t);
  test_equality(t);
  test_overflow(t);
  test_opaque(t);
  test_fast_products(t);
  test_reduce(t);
  test_term_divide(t);
  printf("poly: %d passed, %d failed\n", t->passed, t->failed);
  arena_free(&env.arena);
  return t->failed == 0 ? 0 : 1;
}
