/* index.c: index expressions of generated code (index.h). */
#include "index.h"
#include "kir.h"
#include "memo.h"
#include "index_int.h"

#include <inttypes.h>
#include <string.h>

static size_t printed_length(const Ix *e) { return e->length; }

/* ---- the memo ----
 *
 * Code generation simplifies the same index many times: each of the two
 * inputs of a zip at each step of an unrolled reduction, each lane of a
 * vector, and again to compare lanes (codegen/access.c); and the indices
 * of one loop share their parts (wg*1024 + lid*16 in each step's
 * wg*1024 + lid*16 + 3).  What depends only on an input's structure and
 * the ranges pushed is kept by both, in open-addressing tables of (key,
 * scope, value), found by the key's hash and told apart by structural
 * equality: whole simplifications (ix_simplify), the polynomials of
 * subexpressions (to_poly), the printed forms of polynomials (best_parts)
 * and the expressions of sizes (ix_from_size, whatever the ranges).
 * Tables are only looked up, never iterated: their order cannot reach the
 * output.  (IxMemo and memo_of: index_int.h, shared with index_size.c.) */

static bool same_ix(const void *user, const void *a, const void *b) {
  (void)user;
  return ix_equal(a, b);
}

/* ---- the normal form: sums of products ----
 *
 * ix_simplify turns an expression into a polynomial of the core shared with
 * sizes (poly.h): a sum of terms, each an integer coefficient times a
 * product of powers of atoms.  Atoms are variables, IX_EXPR atoms and the
 * quotients and remainders that no rule removes (with operands in normal
 * form themselves), each an Ix the core does not look into: compare_atoms
 * orders them, ix_equal tells them apart.  Terms are sorted with pairwise
 * distinct monomials, so like terms are collected and equal polynomials
 * print the same.  The
 * polynomial is printed back with common factors pulled out where that is
 * shorter: (wg*64 + l)*2048 + i rather than wg*131072 + l*2048 + i.
 *
 * All arithmetic is on mathematical integers: generated index expressions
 * never overflow `int` for arrays that fit in memory.  A coefficient that
 * leaves int64 makes the simplifier keep that subexpression as written. */

enum {
  MAX_POLY_TERMS = 64,        /* beyond: keep the expression as written */
  PROVER_BUDGET = 4000,       /* substitution steps per simplification */
  MAX_ELIMINATION_STEPS = 16, /* substitutions per inequality */
  BUILD_BUDGET = 256,         /* factorings tried when printing one polynomial */
  MAX_IDENTITY_ROUNDS = 8,    /* (x/k)*k + x%k rewrites per sum */
  MAX_FACTOR_DEPTH = 8,       /* nested divisions by one factor of a product */
  STRIDE_SLACK = 2,           /* characters a row-major form may cost (build) */
};

/* Polynomials are the core's (poly.h) over Ix atoms: variables, opaque
 * expressions and the quotients below, ordered by compare_atoms.  Their
 * coefficients are integers (den == 1) and their exponents positive. */
typedef PolyTerm Term;

typedef enum Known { KNOWN_NOT_YET, KNOWN_PENDING, KNOWN_TRUE, KNOWN_FALSE } Known;

/* A quotient or remainder atom made by the simplifier, with its operands in
 * normal form, so that rules and bounds need not convert it again. */
typedef struct Quotient {
  const Ix *atom;
  IxKind kind; /* IX_DIV or IX_MOD */
  Poly dividend, divisor;
  Known nonneg;
} Quotient;

/* The bounds of one pushed range as polynomials, computed when first used. */
typedef struct RangeBounds {
  Known state;  /* KNOWN_PENDING while computing: a range bounded by itself */
  bool bounded; /* hi was given */
  Poly lo, max; /* lo <= v <= max */
} RangeBounds;

typedef struct Simplifier {
  IxCtx *x;
  Arena *arena;
  /* the core's context; pc.overflow is sticky: a coefficient left int64 or a
   * polynomial grew too big */
  PolyCtx pc;
  int prover_budget;
  bool budget_ran_out; /* a factoring search stopped at BUILD_BUDGET */
  bool search_only;    /* build's shortcuts off (ix_build_form) */
  int factor_depth;    /* divide_by_one_factor calls in progress */
  int poly_depth;      /* to_poly calls in progress */
  Quotient *quotients;
  int nquotients, quotients_cap;
  RangeBounds *bounds; /* indexed like x->ranges */
} Simplifier;

static int compare_atoms_of(const void *simplifier, PolyAtom a, PolyAtom b);
static bool same_atom(PolyAtom a, PolyAtom b) { return ix_equal(a, b); }

static void simplifier_init(Simplifier *s, IxCtx *x) {
  s->x = x;
  s->arena = x->arena;
  poly_ctx_init(&s->pc, x->arena, compare_atoms_of, same_atom, s, INT64_MAX, MAX_POLY_TERMS);
  s->pc.max_products = 4 * MAX_POLY_TERMS;
  s->prover_budget = PROVER_BUDGET;
  s->budget_ran_out = s->search_only = false;
  s->factor_depth = 0;
  s->poly_depth = 0;
  s->quotients = NULL;
  s->nquotients = s->quotients_cap = 0;
  /* zeroed: every state KNOWN_NOT_YET */
  s->bounds = NEWARRAY(x->arena, RangeBounds, x->nranges > 0 ? x->nranges : 1);
}

/* The innermost range of the atom a, or -1. */
static int expr_range_of(const IxCtx *x, const Ix *a) {
  for (int i = x->nranges - 1; i >= 0; i--) {
    const Ix *r = x->ranges[i].atom;
    if (r->kind == IX_EXPR && kir_expr_equal(r->expr, a->expr)) return i;
  }
  return -1;
}

static int range_of(const IxCtx *x, const Ix *a) {
  if (a->kind != IX_VAR) return expr_range_of(x, a);
  Sym v = a->name;
  for (int i = x->nranges - 1; i >= 0; i--) {
    Sym r = x->ranges[i].var;
    if (r == v || (r && ix_same_name(r, v))) return i;
  }
  return -1;
}

static uint64_t magnitude(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

/* ---- orders ---- */

/* Structural order, independent of any context: by kind first (variables
 * before expression atoms), then names as text, expressions by
 * kir_expr_compare. */
int ix_compare(const Ix *a, const Ix *b) {
  if (a == b) return 0;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  switch (a->kind) {
  case IX_CONST: return (a->value > b->value) - (a->value < b->value);
  case IX_VAR: return a->name == b->name ? 0 : strcmp(a->name, b->name);
  case IX_EXPR: return kir_expr_compare(a->expr, b->expr);
  default: {
    int c = ix_compare(a->a, b->a);
    return c != 0 ? c : ix_compare(a->b, b->b);
  }
  }
}

/* Order of factors in a product: quotients first, which then print without
 * parentheses (x/4*i, not i*(x/4)), then loop variables, then parameters
 * (i*N), then expressions kept as written. */
static int atom_class(const Simplifier *s, const Ix *a) {
  switch (a->kind) {
  case IX_DIV:
  case IX_MOD: return 0;
  case IX_VAR:
  case IX_EXPR: return range_of(s->x, a) >= 0 ? 1 : 2;
  default: return 3;
  }
}

static int compare_atoms(const Simplifier *s, const Ix *a, const Ix *b) {
  int ca = atom_class(s, a), cb = atom_class(s, b);
  if (ca != cb) return ca < cb ? -1 : 1;
  return ix_compare(a, b);
}

static int compare_atoms_of(const void *simplifier, PolyAtom a, PolyAtom b) { return compare_atoms(simplifier, a, b); }

static const Ix *atom_of(const PolyFactor *f) { return f->atom; }

/* ---- polynomial arithmetic, on the core ---- */

/* The atom p is (coefficient 1, one factor to the power 1), or NULL. */
static const Ix *poly_single_atom(Poly p) {
  if (p.nterms != 1 || p.terms[0].num != 1 || p.terms[0].nfactors != 1 || p.terms[0].factors[0].exp != 1) {
    return NULL;
  }
  return atom_of(&p.terms[0].factors[0]);
}

/* the monomial of one atom, as a divisor or a factor */
static Term atom_term(Simplifier *s, const Ix *a) {
  PolyFactor *f = NEW(s->arena, PolyFactor);
  f->atom = a;
  f->exp = 1;
  return (Term){1, 1, 1, f};
}

/* ---- quotient atoms ---- */

static const Ix *build(Simplifier *s, Poly p);
static bool monomial_nonneg(Simplifier *s, const Term *t);

static int find_quotient(const Simplifier *s, const Ix *atom) {
  if (atom->kind != IX_DIV && atom->kind != IX_MOD) return -1;
  for (int i = 0; i < s->nquotients; i++) {
    if (ix_equal(s->quotients[i].atom, atom)) return i;
  }
  return -1;
}

/* A divisor that is one positive term with several factors. */
static bool is_product_divisor(Simplifier *s, Poly k) {
  if (k.nterms != 1 || k.terms[0].num <= 0) return false;
  int64_t factors = poly_degree(&k.terms[0]) + (k.terms[0].num != 1);
  return factors > 1 && monomial_nonneg(s, &k.terms[0]);
}

/* The expression a/k or a%k.  A quotient by a product of positive factors
 * divides by one factor at a time, x/N/2048 rather than x/(N*2048): the
 * same value for positive factors (also for negative x, as C truncates
 * towards zero) and fewer parentheses. */
static const Ix *quotient_ix(Simplifier *s, IxKind kind, Poly a, Poly k) {
  const Ix *dividend = build(s, a);
  if (kind == IX_DIV && is_product_divisor(s, k)) {
    const Term *t = &k.terms[0];
    const Ix *e = dividend;
    for (int i = 0; i < t->nfactors; i++) {
      for (int64_t n = 0; n < t->factors[i].exp; n++) e = ix_node(s->x, IX_DIV, e, atom_of(&t->factors[i]));
    }
    if (t->num != 1) e = ix_node(s->x, IX_DIV, e, ix_const(s->x, t->num));
    return e;
  }
  return ix_node(s->x, kind, dividend, build(s, k));
}

static Poly make_quotient(Simplifier *s, IxKind kind, Poly a, Poly k) {
  const Ix *atom = quotient_ix(s, kind, a, k);
  if (find_quotient(s, atom) < 0) {
    if (s->nquotients == s->quotients_cap) {
      int cap = s->quotients_cap ? s->quotients_cap * 2 : 8;
      Quotient *grown = NEWARRAY(s->arena, Quotient, cap);
      if (s->nquotients) memcpy(grown, s->quotients, sizeof(Quotient) * (size_t)s->nquotients);
      s->quotients = grown;
      s->quotients_cap = cap;
    }
    s->quotients[s->nquotients++] = (Quotient){atom, kind, a, k, KNOWN_NOT_YET};
  }
  return poly_atom(&s->pc, atom);
}

/* ---- the prover: lower bounds by substituting bounds of atoms ----
 *
 * To show p >= 0, replace an atom v of a negative term by its bounds: for
 * p = sum over e of v^e*A_e + B, v^e*A_e >= lo^e*A_e when A_e >= 0 and
 * >= max^e*A_e when A_e <= 0 (v >= 0, so v^e grows with v); otherwise term
 * by term.  Each step gives a polynomial that is nowhere larger than p; when
 * one has only non-negative terms, p >= 0.  Inner loop variables go first,
 * since their bounds may mention outer ones; quotients before the
 * variables inside them. */

static bool prove_nonneg(Simplifier *s, Poly p);
static Poly fold_identities(Simplifier *s, Poly p);
static Poly to_poly(Simplifier *s, const Ix *e);

static bool atom_nonneg(Simplifier *s, const Ix *a) {
  if (a->kind == IX_VAR || a->kind == IX_EXPR) return true; /* every atom is >= 0 */
  int qi = find_quotient(s, a);
  if (qi < 0) return false;
  if (s->quotients[qi].nonneg == KNOWN_NOT_YET) {
    s->quotients[qi].nonneg = KNOWN_PENDING;
    Quotient q = s->quotients[qi];
    /* C's remainder has the sign of the dividend; the quotient of two
     * non-negative numbers is non-negative */
    int64_t divisor;
    bool by_zero = poly_const_value(q.divisor, &divisor) && divisor == 0;
    bool yes = !by_zero && prove_nonneg(s, q.dividend) &&
               (q.kind == IX_MOD || prove_nonneg(s, q.divisor));
    s->quotients[qi].nonneg = yes ? KNOWN_TRUE : KNOWN_FALSE;
  }
  return s->quotients[qi].nonneg == KNOWN_TRUE;
}

static bool monomial_nonneg(Simplifier *s, const Term *t) {
  for (int i = 0; i < t->nfactors; i++) {
    if (!atom_nonneg(s, atom_of(&t->factors[i]))) return false;
  }
  return true;
}

/* every term non-negative */
static bool quick_nonneg(Simplifier *s, Poly p) {
  for (int i = 0; i < p.nterms; i++) {
    if (p.terms[i].num < 0 || !monomial_nonneg(s, &p.terms[i])) return false;
  }
  return true;
}

static const RangeBounds *range_bounds(Simplifier *s, int index) {
  RangeBounds *b = &s->bounds[index];
  if (b->state == KNOWN_PENDING) return NULL;
  if (b->state == KNOWN_NOT_YET) {
    b->state = KNOWN_PENDING;
    const IxRange *r = &s->x->ranges[index];
    bool outer = s->pc.overflow;
    s->pc.overflow = false;
    Poly lo = r->lo ? to_poly(s, r->lo) : poly_zero();
    /* the variable is >= 0 anyway; a lower bound that may be negative would
     * break the monotonicity of powers */
    if (!quick_nonneg(s, lo)) lo = poly_zero();
    Poly max = r->hi ? poly_sub(&s->pc, to_poly(s, r->hi), poly_const(&s->pc, 1)) : poly_zero();
    b->bounded = r->hi != NULL && !s->pc.overflow;
    b->lo = s->pc.overflow ? poly_zero() : lo;
    b->max = max;
    s->pc.overflow = outer;
    b->state = KNOWN_TRUE;
  }
  return b;
}

static Poly eliminate(Simplifier *s, Poly p);

/* p <= *max for a constant *max */
static bool upper_constant(Simplifier *s, Poly p, int64_t *max) {
  Poly lower = eliminate(s, poly_scale(&s->pc, p, -1)); /* lower <= -p */
  int64_t constant = 0;
  for (int i = 0; i < lower.nterms; i++) {
    const Term *t = &lower.terms[i];
    if (t->nfactors == 0) {
      constant = t->num;
    } else if (t->num < 0 || !monomial_nonneg(s, t)) {
      return false;
    }
  }
  if (constant == INT64_MIN) return false;
  *max = -constant;
  return true;
}

/* lo <= a <= max */
static bool atom_bounds(Simplifier *s, const Ix *a, Poly *lo, Poly *max) {
  if (a->kind == IX_VAR || a->kind == IX_EXPR) {
    int index = range_of(s->x, a);
    const RangeBounds *b = index >= 0 ? range_bounds(s, index) : NULL;
    if (!b || !b->bounded) return false;
    *lo = b->lo;
    *max = b->max;
    return true;
  }
  int qi = find_quotient(s, a);
  if (qi < 0 || !atom_nonneg(s, a)) return false;
  Quotient q = s->quotients[qi];
  if (!prove_nonneg(s, q.divisor)) return false;
  /* from here the divisor is positive: C leaves division by 0 undefined */
  *lo = poly_zero();
  if (q.kind == IX_MOD) {
    *max = poly_sub(&s->pc, q.divisor, poly_const(&s->pc, 1));
    return true;
  }
  int64_t divisor, dividend_max;
  if (poly_const_value(q.divisor, &divisor) && divisor > 0 &&
      upper_constant(s, q.dividend, &dividend_max)) {
    *max = poly_const(&s->pc, dividend_max / divisor);
  } else {
    *max = q.dividend; /* x/k <= x for k >= 1 */
  }
  return true;
}

static int node_count(const Ix *e) {
  if (e->kind == IX_CONST || e->kind == IX_VAR || e->kind == IX_EXPR) return 1;
  return 1 + node_count(e->a) + node_count(e->b);
}

/* Which atom to eliminate first: quotients (larger first), then variables
 * from the innermost range out.  0: nothing to substitute. */
static int atom_rank(const Simplifier *s, const Ix *a) {
  switch (a->kind) {
  case IX_VAR:
  case IX_EXPR: return range_of(s->x, a) + 1;
  case IX_DIV:
  case IX_MOD: return s->x->nranges + 1 + node_count(a);
  default: return 0;
  }
}

/* the exponent of v in t, 0 if absent */
static int multiplicity(Simplifier *s, const Term *t, const Ix *v) { return (int)poly_exponent_of(&s->pc, t, v); }

static bool substitute_bounds(Simplifier *s, Poly p, const Ix *v, Poly lo, Poly max, Poly *out) {
  int highest = 0;
  for (int i = 0; i < p.nterms; i++) {
    int e = multiplicity(s, &p.terms[i], v);
    if (e > highest) highest = e;
  }
  Term *kept = NEWARRAY(s->arena, Term, p.nterms);
  int nkept = 0;
  for (int i = 0; i < p.nterms; i++) {
    if (multiplicity(s, &p.terms[i], v) == 0) kept[nkept++] = p.terms[i];
  }
  Poly result = poly_normalise(&s->pc, kept, nkept);
  for (int e = 1; e <= highest; e++) {
    Term *with = NEWARRAY(s->arena, Term, p.nterms);
    int n = 0;
    for (int i = 0; i < p.nterms; i++) {
      if (multiplicity(s, &p.terms[i], v) == e) with[n++] = poly_term_without(&s->pc, &p.terms[i], v);
    }
    if (n == 0) continue;
    Poly factor = poly_normalise(&s->pc, with, n);
    Poly lo_power = poly_power(&s->pc, lo, e), max_power = poly_power(&s->pc, max, e);
    if (quick_nonneg(s, factor)) {
      result = poly_add(&s->pc, result, poly_mul(&s->pc, factor, lo_power));
    } else if (quick_nonneg(s, poly_scale(&s->pc, factor, -1))) {
      result = poly_add(&s->pc, result, poly_mul(&s->pc, factor, max_power));
    } else {
      for (int i = 0; i < factor.nterms; i++) {
        const Term *t = &factor.terms[i];
        if (!monomial_nonneg(s, t)) return false;
        Poly bound = t->num > 0 ? lo_power : max_power;
        result = poly_add(&s->pc, result, poly_mul(&s->pc, poly_of_term(&s->pc, *t), bound));
      }
    }
  }
  *out = result;
  return true;
}

/* Atoms of the terms that are not known non-negative (with obstacle), or of
 * the others, not yet in candidates. */
static void collect_candidates(Simplifier *s, Poly p, bool obstacle, const Ix **candidates,
                               int *n) {
  int first = *n;
  for (int i = 0; i < p.nterms; i++) {
    bool harmless = p.terms[i].num > 0 && monomial_nonneg(s, &p.terms[i]);
    if (harmless == obstacle) continue;
    for (int j = 0; j < p.terms[i].nfactors; j++) {
      const Ix *a = atom_of(&p.terms[i].factors[j]);
      bool seen = atom_rank(s, a) == 0;
      for (int k = 0; k < *n && !seen; k++) seen = ix_equal(candidates[k], a);
      if (!seen) candidates[(*n)++] = a;
    }
  }
  /* highest rank first; ties in structural order, for determinism */
  for (int i = first + 1; i < *n; i++) {
    const Ix *a = candidates[i];
    int j = i;
    while (j > first &&
           (atom_rank(s, candidates[j - 1]) < atom_rank(s, a) ||
            (atom_rank(s, candidates[j - 1]) == atom_rank(s, a) && ix_compare(candidates[j - 1], a) > 0))) {
      candidates[j] = candidates[j - 1];
      j--;
    }
    candidates[j] = a;
  }
}

/* One substitution step; false if no atom has bounds.  Atoms of the
 * obstacles (negative terms) go first; lower bounds of the others help
 * against a negative constant (i - 1 with 1 <= i). */
static bool eliminate_one(Simplifier *s, Poly p, Poly *out) {
  int capacity = 0;
  for (int i = 0; i < p.nterms; i++) capacity += p.terms[i].nfactors;
  const Ix **candidates = NEWARRAY(s->arena, const Ix *, capacity > 0 ? capacity : 1);
  int n = 0;
  collect_candidates(s, p, true, candidates, &n);
  collect_candidates(s, p, false, candidates, &n);
  for (int i = 0; i < n; i++) {
    Poly lo, max;
    if (atom_bounds(s, candidates[i], &lo, &max) &&
        substitute_bounds(s, p, candidates[i], lo, max, out)) {
      return true;
    }
  }
  return false;
}

static Poly eliminate(Simplifier *s, Poly p) {
  for (int step = 0; step < MAX_ELIMINATION_STEPS && !quick_nonneg(s, p); step++) {
    if (s->prover_budget <= 0) break;
    s->prover_budget--;
    Poly next;
    if (!eliminate_one(s, p, &next)) break;
    p = fold_identities(s, next);
  }
  return p;
}

static bool prove_nonneg(Simplifier *s, Poly p) {
  bool outer = s->pc.overflow;
  s->pc.overflow = false;
  Poly lower = eliminate(s, p);
  bool yes = !s->pc.overflow && quick_nonneg(s, lower);
  s->pc.overflow = outer;
  return yes;
}

/* a + k <= b: a < b with k 1, a <= b with k 0 */
static bool prove_gap(Simplifier *s, Poly a, Poly b, int64_t k) {
  bool outer = s->pc.overflow;
  s->pc.overflow = false;
  Poly gap = poly_sub(&s->pc, poly_sub(&s->pc, b, a), poly_const(&s->pc, k));
  bool yes = !s->pc.overflow && prove_nonneg(s, gap);
  s->pc.overflow = outer;
  return yes;
}

static bool prove_less(Simplifier *s, Poly a, Poly b) { return prove_gap(s, a, b, 1); }

/* ---- division and remainder ---- */

static Poly simplify_division(Simplifier *s, IxKind kind, Poly a, Poly k);

/* The largest common factor of the terms of a and k: the gcd of the
 * coefficients and the atoms they all share. */
static Term common_factor(Simplifier *s, Poly a, Poly k) {
  int64_t g = 0;
  bool has_min = false; /* INT64_MIN has no magnitude in int64 */
  const Term *first = a.nterms > 0 ? &a.terms[0] : &k.terms[0];
  Term common = *first;
  for (int pass = 0; pass < 2; pass++) {
    Poly p = pass == 0 ? a : k;
    for (int i = 0; i < p.nterms; i++) {
      const Term *t = &p.terms[i];
      has_min |= t->num == INT64_MIN;
      if (!has_min) g = poly_gcd(g, t->num);
      /* the atoms of both, to the smaller power (factors are sorted) */
      PolyFactor *shared = common.nfactors ? NEWARRAY(s->arena, PolyFactor, common.nfactors) : NULL;
      int n = 0, j = 0;
      for (int c = 0; c < common.nfactors; c++) {
        const Ix *atom = atom_of(&common.factors[c]);
        while (j < t->nfactors && compare_atoms(s, atom_of(&t->factors[j]), atom) < 0) j++;
        if (j < t->nfactors && compare_atoms(s, atom_of(&t->factors[j]), atom) == 0) {
          shared[n] = common.factors[c];
          if (t->factors[j].exp < shared[n].exp) shared[n].exp = t->factors[j].exp;
          n++;
          j++;
        }
      }
      common.nfactors = n;
      common.factors = n > 0 ? shared : NULL;
    }
  }
  common.num = g > 0 && !has_min ? g : 1;
  return common;
}

static Poly divide_exactly(Simplifier *s, Poly p, const Term *g) {
  Term *terms = NEWARRAY(s->arena, Term, p.nterms > 0 ? p.nterms : 1);
  /* by a constant (a vector offset's flat/16, each unrolled step's: issue
   * 35): the monomials are p's, in its order and distinct, the
   * coefficients exact quotients, none 0, so that poly_normalise would
   * move and merge nothing (as try_factor's in_order, below); and each
   * term's factors are its own, shared as try_factor's rest shares them
   * (a polynomial's factors are never written), not copied one by one
   * (poly_term_divide, which also divides the atoms) */
  if (g->nfactors == 0) {
    ASSERT(g->num > 0 && g->den == 1); /* poly_term_divide's divisor */
    for (int i = 0; i < p.nterms; i++) {
      const Term *t = &p.terms[i];
      if (t->den != 1 || t->num % g->num != 0) INTERNAL("common factor does not divide");
      terms[i] = (Term){t->num / g->num, 1, t->nfactors, t->nfactors > 0 ? t->factors : NULL};
    }
    if (p.nterms > s->pc.max_terms) s->pc.overflow = true;
    return (Poly){p.nterms, p.nterms > 0 ? terms : NULL};
  }
  for (int i = 0; i < p.nterms; i++) {
    if (!poly_term_divide(&s->pc, &p.terms[i], g, &terms[i])) INTERNAL("common factor does not divide");
  }
  return poly_normalise(&s->pc, terms, p.nterms);
}

/* a/k or a%k when a has no multiple of k left to split off. */
static Poly divide_remainder(Simplifier *s, IxKind kind, Poly a, Poly k) {
  /* A monomial divisor c*v*w... is at least c: it is not 0, so neither is
   * any of its (non-negative) atoms. */
  bool monomial = k.nterms == 1 && k.terms[0].num > 0 && monomial_nonneg(s, &k.terms[0]);
  if (prove_nonneg(s, a) && prove_nonneg(s, k) &&
      (prove_less(s, a, k) || (monomial && prove_less(s, a, poly_const(&s->pc, k.terms[0].num))))) {
    return kind == IX_DIV ? poly_zero() : a; /* 0 <= a < k */
  }
  const Ix *single = poly_single_atom(a);
  int qi = single ? find_quotient(s, single) : -1;
  if (qi >= 0) {
    Quotient inner = s->quotients[qi];
    /* (x/a)/b = x/(a*b) for x >= 0 and a, b > 0 */
    if (kind == IX_DIV && inner.kind == IX_DIV && prove_nonneg(s, inner.dividend) &&
        prove_nonneg(s, inner.divisor) && prove_nonneg(s, k)) {
      return simplify_division(s, IX_DIV, inner.dividend, poly_mul(&s->pc, inner.divisor, k));
    }
    /* (x%(a*b))%b = x%b for a, b > 0, whatever the sign of x (C's
     * remainder is that of |x| with the sign of x) */
    Term ratio;
    if (kind == IX_MOD && inner.kind == IX_MOD && k.nterms == 1 && k.terms[0].num > 0 &&
        monomial_nonneg(s, &k.terms[0]) && inner.divisor.nterms == 1 && inner.divisor.terms[0].num > 0 &&
        monomial_nonneg(s, &inner.divisor.terms[0]) &&
        poly_term_divide(&s->pc, &inner.divisor.terms[0], &k.terms[0], &ratio)) {
      return simplify_division(s, IX_MOD, inner.dividend, k);
    }
  }
  return make_quotient(s, kind, a, k);
}

/* a = k*q + r where no term of r is a multiple of k's leading term (for a
 * monomial k: r is the terms k does not divide).  False if that does not
 * end within MAX_POLY_TERMS steps. */
static bool long_divide(Simplifier *s, Poly a, Poly k, Poly *q, Poly *r) {
  const Term *lead = &k.terms[0];
  ASSERT(lead->num > 0);
  Poly quotient = poly_zero(), rest = a;
  for (int step = 0; step < MAX_POLY_TERMS; step++) {
    Term multiple;
    int i = 0;
    while (i < rest.nterms && !poly_term_divide(&s->pc, &rest.terms[i], lead, &multiple)) i++;
    if (i == rest.nterms) {
      *q = quotient;
      *r = rest;
      return true;
    }
    Poly m = poly_of_term(&s->pc, multiple);
    quotient = poly_add(&s->pc, quotient, m);
    rest = poly_sub(&s->pc, rest, poly_mul(&s->pc, m, k));
  }
  return false;
}

/* a/(f*g*...) = (a/f)/(g*...) for a >= 0 and positive factors.  Dividing
 * by one factor first can split off what the whole product does not
 * divide: (i*M + j)/(M*2) = (i + j/M)/2 = i/2 for j < M.  Used when it
 * changes anything, so that the result does not depend on whether the
 * input divided by the product or by its factors one after the other. */
static bool divide_by_one_factor(Simplifier *s, Poly a, Poly k, Poly *out) {
  if (!is_product_divisor(s, k) || s->factor_depth >= MAX_FACTOR_DEPTH || !prove_nonneg(s, a)) {
    return false;
  }
  const Term *t = &k.terms[0];
  for (int i = 0; i <= t->nfactors; i++) {
    Term factor, rest;
    if (i < t->nfactors) {
      factor = atom_term(s, atom_of(&t->factors[i]));
      rest = poly_term_lower(&s->pc, t, i);
    } else {
      if (t->num == 1) continue;
      factor = (Term){t->num, 1, 0, NULL};
      rest = (Term){1, 1, t->nfactors, t->factors};
    }
    Poly by = poly_of_term(&s->pc, factor);
    s->factor_depth++;
    Poly inner = simplify_division(s, IX_DIV, a, by);
    const Ix *single = poly_single_atom(inner);
    bool changed = !single || !ix_equal(single, quotient_ix(s, IX_DIV, a, by));
    if (changed) *out = simplify_division(s, IX_DIV, inner, poly_of_term(&s->pc, rest));
    s->factor_depth--;
    if (changed) return true;
  }
  return false;
}

static Poly simplify_division(Simplifier *s, IxKind kind, Poly a, Poly k) {
  int64_t va, vk, folded;
  bool a_const = poly_const_value(a, &va), k_const = poly_const_value(k, &vk);
  if (k_const && vk == 0) return make_quotient(s, kind, a, k); /* undefined in C: as written */
  if (a_const && k_const) {
    return ix_fold_division(kind, va, vk, &folded) ? poly_const(&s->pc, folded) : make_quotient(s, kind, a, k);
  }
  if (a.nterms == 0) return poly_zero();
  if (k_const && vk == 1) return kind == IX_DIV ? a : poly_zero();
  /* (g*a)/(g*k) = a/k and (g*a)%(g*k) = g*(a%k) for any g != 0 (and g
   * divides k != 0): truncation sees the same rational number */
  Term g = common_factor(s, a, k);
  if (g.num != 1 || g.nfactors != 0) {
    Poly r = simplify_division(s, kind, divide_exactly(s, a, &g), divide_exactly(s, k, &g));
    return kind == IX_DIV ? r : poly_mul(&s->pc, r, poly_of_term(&s->pc, g));
  }
  Poly by_factors;
  if (kind == IX_DIV && divide_by_one_factor(s, a, k, &by_factors)) return by_factors;
  if (k.terms[0].num > 0 && prove_nonneg(s, k)) {
    Poly q, r;
    if (long_divide(s, a, k, &q, &r)) {
      if (r.nterms == 0) return kind == IX_DIV ? q : poly_zero(); /* exact */
      /* a = k*q + r with a >= 0 and r >= 0: C's truncation is floor
       * division there, and floor((k*q + r)/k) = q + floor(r/k) */
      if (q.nterms > 0 && prove_nonneg(s, a) && prove_nonneg(s, r)) {
        Poly rest = simplify_division(s, kind, r, k);
        return kind == IX_DIV ? poly_add(&s->pc, q, rest) : rest;
      }
    }
  }
  return divide_remainder(s, kind, a, k);
}

/* ---- identities of quotient and remainder ---- */

/* c*F*(x/k)*k + c*F*(x%k) = c*F*x: C's `/` and `%` always satisfy
 * (x/k)*k + x%k == x. */
static bool fold_quotient_and_remainder(Simplifier *s, Poly p, Poly *out) {
  for (int ti = 0; ti < p.nterms; ti++) {
    const Term *t = &p.terms[ti];
    for (int ai = 0; ai < t->nfactors; ai++) {
      const Ix *atom = atom_of(&t->factors[ai]);
      int qi = atom->kind == IX_MOD ? find_quotient(s, atom) : -1;
      if (qi < 0 || s->quotients[qi].divisor.nterms != 1) continue;
      Quotient q = s->quotients[qi];
      Term rest = poly_term_lower(&s->pc, t, ai);
      Poly quotient = poly_atom(&s->pc, quotient_ix(s, IX_DIV, q.dividend, q.divisor));
      Term wanted = poly_term_mul(&s->pc, &rest, &quotient.terms[0]);
      wanted = poly_term_mul(&s->pc, &wanted, &q.divisor.terms[0]);
      const Term *u = poly_find_monomial(&s->pc, p, &wanted);
      if (!u || u->num != wanted.num) continue;
      Poly both = poly_add(&s->pc, poly_of_term(&s->pc, *t), poly_of_term(&s->pc, *u));
      *out = poly_add(&s->pc, poly_sub(&s->pc, p, both), poly_mul(&s->pc, poly_of_term(&s->pc, rest), q.dividend));
      return true;
    }
  }
  return false;
}

/* c*F*x - c*F*k*(x/k) = c*F*(x%k), the same identity the other way. */
static bool fold_remainder(Simplifier *s, Poly p, Poly *out) {
  for (int ui = 0; ui < p.nterms; ui++) {
    const Term *u = &p.terms[ui];
    for (int ai = 0; ai < u->nfactors; ai++) {
      const Ix *atom = atom_of(&u->factors[ai]);
      int qi = atom->kind == IX_DIV ? find_quotient(s, atom) : -1;
      if (qi < 0) continue;
      Quotient q = s->quotients[qi];
      if (q.divisor.nterms != 1 || q.divisor.terms[0].num <= 0) continue;
      Term others = poly_term_lower(&s->pc, u, ai), scale;
      if (!poly_term_divide(&s->pc, &others, &q.divisor.terms[0], &scale)) continue;
      scale.num = poly_checked_mul(&s->pc, scale.num, -1);
      Poly multiple = poly_mul(&s->pc, poly_of_term(&s->pc, scale), q.dividend); /* c*F*x */
      bool present = multiple.nterms > 0;
      for (int i = 0; i < multiple.nterms && present; i++) {
        const Term *m = poly_find_monomial(&s->pc, p, &multiple.terms[i]);
        present = m != NULL && m->num == multiple.terms[i].num;
      }
      if (!present) continue;
      Poly remainder = simplify_division(s, IX_MOD, q.dividend, q.divisor);
      Poly without = poly_sub(&s->pc, poly_sub(&s->pc, p, multiple), poly_of_term(&s->pc, *u));
      *out = poly_add(&s->pc, without, poly_mul(&s->pc, poly_of_term(&s->pc, scale), remainder));
      return true;
    }
  }
  return false;
}

static Poly fold_identities(Simplifier *s, Poly p) {
  if (s->nquotients == 0) return p; /* both identities fold a quotient atom the simplifier made */
  for (int round = 0; round < MAX_IDENTITY_ROUNDS; round++) {
    Poly next;
    if (!fold_quotient_and_remainder(s, p, &next) && !fold_remainder(s, p, &next)) break;
    p = next;
  }
  return p;
}

/* poly_normalise(terms, n) of ix_linear_terms' terms (the constant, if
 * any, last): their monomials are single atoms to the power 1, which
 * poly_compare_monomials orders as compare_atoms does the atoms, so the
 * canonical form is the atom terms sorted by it (stable: of equal atoms
 * the first kept, as merge_sorted keeps it), equal atoms merged, zeros
 * dropped (no sum leaves int64, ix_linear_terms), and the constant last;
 * made here with each atom's class found once, not at every comparison */
static Poly linear_poly(Simplifier *s, PolyTerm *terms, int n) {
  int natoms = n > 0 && terms[n - 1].nfactors == 0 ? n - 1 : n;
  int cls[IX_LINEAR_TERMS];
  for (int i = 0; i < natoms; i++) {
    PolyTerm key = terms[i];
    int c = atom_class(s, atom_of(key.factors)), j = i;
    for (; j > 0; j--) { /* compare_atoms(terms[j - 1], key) > 0 */
      const Ix *a = atom_of(terms[j - 1].factors), *b = atom_of(key.factors);
      if (cls[j - 1] < c || (cls[j - 1] == c && (a == b || ix_compare(a, b) <= 0))) break;
      terms[j] = terms[j - 1], cls[j] = cls[j - 1];
    }
    terms[j] = key, cls[j] = c;
  }
  int kept = 0;
  for (int i = 0; i < natoms;) {
    PolyTerm merged = terms[i];
    int j = i + 1;
    for (; j < natoms && cls[j] == cls[i] && ix_compare(atom_of(terms[i].factors), atom_of(terms[j].factors)) == 0; j++)
      merged.num += terms[j].num;
    if (merged.num != 0) terms[kept++] = merged;
    i = j;
  }
  if (natoms < n) terms[kept++] = terms[n - 1];
  return (Poly){kept, kept > 0 ? terms : NULL};
}

static Poly to_poly(Simplifier *s, const Ix *e) {
  switch (e->kind) {
  case IX_CONST: return poly_const(&s->pc, e->value);
  case IX_VAR:
  case IX_EXPR: return poly_atom(&s->pc, e);
  default: break;
  }
  /* a sum of atoms times constants, most indices: its terms sorted, in one
   * walk (ix_linear_terms says why that is what the arithmetic below
   * gives), which is cheaper than finding it kept; tried on the whole
   * index only: a part of one that is not such a sum is not walked again
   * for each of its parts */
  PolyTerm *terms;
  int n = e->divides || s->poly_depth || s->x->general_polys ? -1 : ix_linear_terms(s->arena, e, &terms);
  if (n >= 0) return linear_poly(s, terms, n);
  /* With no division in e, its polynomial is arithmetic on its atoms
   * alone (no quotient is made, the prover does not run, fold_identities
   * finds nothing): a function of e and the atom order, which the ranges
   * decide.  Kept for the next simplification that meets e. */
  MemoTable *memo = e->divides ? NULL : &memo_of(s->x)->polys;
  const MemoEntry *known = memo ? memo_find(memo, e->hash, s->x->scope, same_ix, NULL, e) : NULL;
  if (known) return *(const Poly *)known->value;
  bool outer = s->pc.overflow;
  s->pc.overflow = false;
  Poly a, b, result;
  s->poly_depth++;
  a = to_poly(s, e->a), b = to_poly(s, e->b);
  s->poly_depth--;
  switch (e->kind) {
  case IX_ADD: result = fold_identities(s, poly_add(&s->pc, a, b)); break;
  case IX_SUB: result = fold_identities(s, poly_sub(&s->pc, a, b)); break;
  case IX_MUL: result = fold_identities(s, poly_mul(&s->pc, a, b)); break;
  default: result = simplify_division(s, e->kind, a, b); break;
  }
  if (s->pc.overflow) result = poly_atom(&s->pc, e); /* kept as written */
  s->pc.overflow = outer;
  if (memo) {
    Poly *kept = NEW(s->arena, Poly);
    *kept = result;
    memo_put(s->arena, memo, (MemoEntry){e, e->hash, s->x->scope, kept, 0}, same_ix, NULL);
  }
  return result;
}

/* ---- back to expressions ----
 *
 * A sum prints as parts added or subtracted: terms, and groups g*(...)
 * where pulling out a common factor g (a constant or an atom) is shorter.
 * Which factorings to use is searched, within BUILD_BUDGET, for the
 * shortest text; ties keep the flat sum. */

typedef IxPart Part; /* index_int.h */

typedef struct Parts {
  int n;
  Part *items;
} Parts;

static int count_quotients(const Term *t) {
  int n = 0;
  for (int i = 0; i < t->nfactors; i++) {
    IxKind kind = atom_of(&t->factors[i])->kind;
    if (kind == IX_DIV || kind == IX_MOD) n += (int)t->factors[i].exp;
  }
  return n;
}

/* Higher degree first, then fewer quotients (i + j/2048), then larger
 * coefficients (wg*64 + l), then the canonical monomial order; the
 * constant last. */
static int compare_for_print(const Simplifier *s, const Term *a, const Term *b) {
  int64_t da = poly_degree(a), db = poly_degree(b);
  if (da != db) return da > db ? -1 : 1;
  int qa = count_quotients(a), qb = count_quotients(b);
  if (qa != qb) return qa < qb ? -1 : 1;
  uint64_t ma = magnitude(a->num), mb = magnitude(b->num);
  if (ma != mb) return ma > mb ? -1 : 1;
  return poly_compare_monomials(&s->pc, a, b);
}

/* atoms, then the coefficient: i*N*2048 */
static const Ix *term_magnitude(Simplifier *s, const Term *t, bool *negative) {
  const Ix *e = NULL;
  for (int i = 0; i < t->nfactors; i++) {
    const Ix *a = atom_of(&t->factors[i]);
    for (int64_t k = 0; k < t->factors[i].exp; k++) e = e ? ix_node(s->x, IX_MUL, e, a) : a;
  }
  int64_t c = t->num;
  *negative = c < 0 && c != INT64_MIN;
  if (*negative) c = -c;
  if (c != 1 || !e) {
    const Ix *k = ix_const(s->x, c);
    e = e ? ix_node(s->x, IX_MUL, e, k) : k;
  }
  return e;
}

static Parts flat_parts(Simplifier *s, Poly p) {
  Parts parts = {p.nterms, NEWARRAY(s->arena, Part, p.nterms > 0 ? p.nterms : 1)};
  for (int i = 0; i < p.nterms; i++) parts.items[i] = ix_term_part(&p.terms[i]);
  return parts;
}

/* the flat sum's parts for assemble alone, which reads a part's sign,
 * leading term and magnitude (made from the term), not its length:
 * ix_term_part's signs, with no length measured */
static Parts signed_parts(Simplifier *s, Poly p) {
  Parts parts = {p.nterms, NEWARRAY(s->arena, Part, p.nterms > 0 ? p.nterms : 1)};
  for (int i = 0; i < p.nterms; i++)
    parts.items[i] = (Part){NULL, p.terms[i].num < 0 && p.terms[i].num != INT64_MIN, &p.terms[i], 0, false, false};
  return parts;
}

/* added parts first, each group in the order of its leading term */
static const Ix *assemble(Simplifier *s, Parts parts) {
  if (parts.n == 0) return ix_const(s->x, 0);
  Part *sorted = NEWARRAY(s->arena, Part, parts.n);
  for (int i = 0; i < parts.n; i++) {
    Part part = parts.items[i];
    int j = i;
    while (j > 0 && (sorted[j - 1].negative > part.negative ||
                     (sorted[j - 1].negative == part.negative &&
                      compare_for_print(s, sorted[j - 1].first, part.first) > 0))) {
      sorted[j] = sorted[j - 1];
      j--;
    }
    sorted[j] = part;
  }
  const Ix *e = NULL;
  for (int i = 0; i < parts.n; i++) {
    const Part *part = &sorted[i];
    bool negative; /* part's own */
    const Ix *m = part->magnitude ? part->magnitude : term_magnitude(s, part->first, &negative);
    if (!e) {
      e = part->negative ? ix_node(s->x, IX_SUB, ix_const(s->x, 0), m) : m;
    } else {
      e = ix_node(s->x, part->negative ? IX_SUB : IX_ADD, e, m);
    }
  }
  return e;
}

/* printed_length(assemble(s, parts)), counted from the parts where their
 * order does not matter (ix_parts_length): the search weighs every
 * candidate by it and keeps one */
static size_t parts_length(Simplifier *s, Parts parts) {
  size_t length;
  return ix_parts_length(parts.items, parts.n, &length) ? length : printed_length(assemble(s, parts));
}

static Parts best_parts(Simplifier *s, Poly p, int *budget);

/* Terms already in canonical order, with distinct monomials and non-zero
 * coefficients (some of a canonical polynomial's, or all of them each
 * divided by one constant), as a polynomial: what poly_normalise would
 * make of them, without comparing them again. */
static Poly in_order(Term *terms, int n) { return (Poly){n, n > 0 ? terms : NULL}; }
static const Ix *best_sum(Simplifier *s, Poly p, int *budget);

/* p = (the terms f divides)/f * f + the rest as *candidate; false where
 * f divides fewer than two terms.  *win_ties is cleared for a power. */
static bool factoring(Simplifier *s, Poly p, const Term *f, const Ix *f_ix, bool *win_ties, int *budget,
                      Parts *candidate) {
  Term *divided = NEWARRAY(s->arena, Term, p.nterms);
  Term *rest = NEWARRAY(s->arena, Term, p.nterms);
  int ndivided = 0, nrest = 0;
  const Term *first = NULL;
  bool all_negative = true;
  for (int i = 0; i < p.nterms; i++) {
    const Term *t = &p.terms[i];
    if (!poly_term_divide(&s->pc, t, f, &divided[ndivided])) {
      rest[nrest++] = *t;
      continue;
    }
    if (divided[ndivided].num == INT64_MIN) return false;
    all_negative &= divided[ndivided].num < 0;
    ndivided++;
    if (!first || compare_for_print(s, t, first) < 0) first = t;
  }
  if (ndivided < 2) return false;
  /* the terms of a canonical p, in its order: canonical already, except
   * those divided by an atom, whose monomials change */
  Poly inner = f->nfactors == 0 ? in_order(divided, ndivided) : poly_normalise(&s->pc, divided, ndivided);
  if (all_negative) inner = poly_scale(&s->pc, inner, -1);
  /* a stride, not a power: (i + 2)*i does not beat i*i + i*2 on a tie */
  for (int i = 0; i < inner.nterms && *win_ties; i++) {
    for (int j = 0; j < f->nfactors; j++) {
      *win_ties &= multiplicity(s, &inner.terms[i], atom_of(&f->factors[j])) == 0;
    }
  }
  /* a quotient goes first, where it needs no parentheses: n%16*(i + j) */
  const Ix *sum = best_sum(s, inner, budget);
  bool quotient = f_ix->kind == IX_DIV || f_ix->kind == IX_MOD;
  const Ix *group = quotient ? ix_node(s->x, IX_MUL, f_ix, sum) : ix_node(s->x, IX_MUL, sum, f_ix);
  Parts others = best_parts(s, in_order(rest, nrest), budget);
  *candidate = (Parts){others.n + 1, NEWARRAY(s->arena, Part, others.n + 1)};
  for (int i = 0; i < others.n; i++) candidate->items[i] = others.items[i];
  candidate->items[others.n] = ix_group_part(group, all_negative, first);
  return true;
}

/* Keep p = (the terms f divides)/f * f + the rest, if it prints shorter
 * (or as short, with win_ties). */
static void try_factor(Simplifier *s, Poly p, const Term *f, const Ix *f_ix, bool win_ties,
                       int *budget, Parts *best, size_t *best_length) {
  if (*budget <= 0) {
    s->budget_ran_out = true;
    return;
  }
  (*budget)--;
  Parts candidate;
  if (!factoring(s, p, f, f_ix, &win_ties, budget, &candidate)) return;
  size_t length = parts_length(s, candidate);
  /* a stride wins up to STRIDE_SLACK characters longer: (gid*4 + 1)*K + i
   * reads as row gid*4 + 1 of a matrix, next to (gid*4 + 2)*K + i, where
   * gid*K*4 + i + K is a puzzle */
  if (length < *best_length || (win_ties && length <= *best_length + STRIDE_SLACK)) {
    *best = candidate;
    *best_length = length;
  }
}

/* Is a a factor of terms before terms[upto] (the factors of one term are
 * distinct atoms)? */
static bool appears_before(Simplifier *s, const Term *terms, int upto, const Ix *a) {
  for (int i = 0; i < upto; i++) {
    if (multiplicity(s, &terms[i], a) > 0) return true;
  }
  return false;
}

/* Two of p's terms have an atom in common (equal atoms are the same atom
 * of the core: compare_atoms is 0 exactly for ix_equal ones), told by
 * structure, without the atom order's range look-ups: where none has,
 * the search has no atom factor to try */
static bool shares_atom(Poly p) {
  for (int i = 0; i < p.nterms; i++)
    for (int k = i + 1; k < p.nterms; k++)
      for (int a = 0; a < p.terms[i].nfactors; a++)
        for (int b = 0; b < p.terms[k].nfactors; b++)
          if (ix_equal(atom_of(&p.terms[i].factors[a]), atom_of(&p.terms[k].factors[b]))) return true;
  return false;
}

static Parts search_parts(Simplifier *s, Poly p, int *budget) {
  Parts best = flat_parts(s, p);
  if (p.nterms < 2) return best;
  size_t best_length = parts_length(s, best);
  /* atom factors: atoms of at least two terms; first, and kept on a tie,
   * for the row-major form (bi*16 + i)*N + bj*16 + j */
  bool shared = shares_atom(p);
  for (int i = 0; i < p.nterms && shared; i++) {
    for (int j = 0; j < p.terms[i].nfactors; j++) {
      const Ix *a = atom_of(&p.terms[i].factors[j]);
      if (appears_before(s, p.terms, i, a)) continue;
      int holders = 0;
      for (int k = i; k < p.nterms; k++) holders += multiplicity(s, &p.terms[k], a) > 0;
      if (holders < 2) continue;
      Term f = atom_term(s, a);
      try_factor(s, p, &f, a, true, budget, &best, &best_length);
    }
  }
  /* constant factors: the gcd of two coefficients */
  int64_t *tried = NEWARRAY(s->arena, int64_t, p.nterms * p.nterms);
  int ntried = 0;
  for (int i = 0; i < p.nterms; i++) {
    for (int j = i + 1; j < p.nterms; j++) {
      if (p.terms[i].num == INT64_MIN || p.terms[j].num == INT64_MIN) continue;
      int64_t g = poly_gcd(p.terms[i].num, p.terms[j].num);
      bool seen = g <= 1;
      for (int k = 0; k < ntried && !seen; k++) seen = tried[k] == g;
      if (seen) continue;
      tried[ntried++] = g;
      Term f = {g, 1, 0, NULL};
      try_factor(s, p, &f, ix_const(s->x, g), false, budget, &best, &best_length);
    }
  }
  return best;
}

static uint64_t ix_atom_hash(PolyAtom a) { return ((const Ix *)a)->hash; }

static bool same_poly(const void *pc, const void *a, const void *b) {
  return poly_eq(pc, *(const Poly *)a, *(const Poly *)b);
}

/* The shortest printed form of p (search_parts), kept for the next
 * polynomial equal to p under the same ranges: the inner sum of each
 * factoring (wg*64 + lid of (wg*64 + lid)*256 + 3) recurs from index to
 * index.  The search depends on the budget only where the budget ran out;
 * a search that took `cost` of it without running out finds the same with
 * any budget of at least cost, and takes as much. */
typedef struct BestParts {
  Parts parts;
  const Ix *sum; /* assemble(parts), made when first asked for */
} BestParts;

static bool nothing_to_search(Poly p) { return p.nterms < 2 || (ix_coprime_coefficients(p) && !shares_atom(p)); }

static BestParts *best_parts_of(Simplifier *s, Poly p, int *budget) {
  /* nothing to search: search_parts would try no factoring (so take none
   * of the budget) and keep the flat sum, not worth keeping (the inner sum
   * of wg*64 + lid in (wg*64 + lid)*1024 + i) */
  if (nothing_to_search(p)) {
    BestParts *flat = NEW(s->arena, BestParts);
    flat->parts = flat_parts(s, p);
    return flat;
  }
  MemoTable *memo = &memo_of(s->x)->parts;
  uint64_t hash = ix_poly_hash(p, ix_atom_hash);
  const MemoEntry *known = memo_find(memo, hash, s->x->scope, same_poly, &s->pc, &p);
  if (known && known->cost <= *budget) {
    *budget -= known->cost;
    return (BestParts *)known->value;
  }
  int before = *budget;
  bool ran_out = s->budget_ran_out, overflow = s->pc.overflow;
  s->budget_ran_out = false;
  BestParts *best = NEW(s->arena, BestParts);
  best->parts = search_parts(s, p, budget);
  if (!known && !s->budget_ran_out && !overflow && !s->pc.overflow) {
    Poly *key = NEW(s->arena, Poly);
    *key = p;
    memo_put(s->arena, memo, (MemoEntry){key, hash, s->x->scope, best, before - *budget}, same_poly, &s->pc);
  }
  s->budget_ran_out |= ran_out;
  return best;
}

static Parts best_parts(Simplifier *s, Poly p, int *budget) { return best_parts_of(s, p, budget)->parts; }

/* assemble(best_parts(p)) */
static const Ix *best_sum(Simplifier *s, Poly p, int *budget) {
  if (nothing_to_search(p)) return assemble(s, signed_parts(s, p)); /* its flat parts, unmeasured */
  BestParts *best = best_parts_of(s, p, budget);
  if (!best->sum) best->sum = assemble(s, best->parts);
  return best->sum;
}

/* build(p) of at least two terms where the search's choice is known
 * (chosen: g, 0 for the flat sum) or not */
static inline const Ix *build_chosen(Simplifier *s, Poly p, bool chosen, int64_t g) {
  int budget = BUILD_BUDGET;
  bool win_ties = false;
  if (chosen && g == 0) return assemble(s, signed_parts(s, p));
  Term f = {g, 1, 0, NULL};
  Parts parts;
  if (chosen && (budget--, factoring(s, p, &f, ix_const(s->x, g), &win_ties, &budget, &parts)))
    return assemble(s, parts);
  return best_sum(s, p, &(int){BUILD_BUDGET});
}

static const Ix *build(Simplifier *s, Poly p) {
  int64_t v, g = 0;
  if (poly_const_value(p, &v)) return ix_const(s->x, v);
  /* a sum whose atoms are each in one term: the search's choice replayed
   * on integers (index_flat.c), its trials spared; the factoring made as
   * the search makes it (its inner searches, which did not run out there,
   * find the same with more of the budget) */
  bool chosen = !s->search_only && ix_flat_search_choice(p, BUILD_BUDGET, &g);
  return build_chosen(s, p, chosen, g);
}

const Ix *ix_build_form(IxCtx *x, const Ix *e, bool shortcuts) {
  Simplifier s;
  simplifier_init(&s, x);
  s.search_only = !shortcuts;
  return build(&s, to_poly(&s, e));
}

/* p's atoms are variables and opaque atoms only */
static bool plain_atoms(Poly p) {
  for (int i = 0; i < p.nterms; i++) {
    for (int j = 0; j < p.terms[i].nfactors; j++) {
      IxKind kind = atom_of(&p.terms[i].factors[j])->kind;
      if (kind != IX_VAR && kind != IX_EXPR) return false;
    }
  }
  return true;
}

/* A simplified index is often simplified again as part of another: the
 * distance of two lanes, l1 - l0 (codegen/access.c).  When it has no
 * quotient and p's atoms are variables and opaque atoms only (no
 * subexpression kept as written), to_poly would find p for it: build
 * rewrites p by exact algebra (sums regrouped under common factors), and
 * to_poly's arithmetic on the same atoms gives back the canonical form,
 * which is unique (poly.h), without leaving int64 (every coefficient on the
 * way is one of p's).  So p is kept for it. */
static void remember_poly(Simplifier *s, const Ix *simplified, Poly p) {
  if (simplified->divides || simplified->kind == IX_CONST || simplified->kind == IX_VAR ||
      simplified->kind == IX_EXPR) {
    return;
  }
  /* a linear sum's is read in one walk (to_poly), not found kept */
  if (!plain_atoms(p) || ix_linear(simplified)) return;
  MemoTable *memo = &memo_of(s->x)->polys;
  if (memo_find(memo, simplified->hash, s->x->scope, same_ix, NULL, simplified)) return;
  Poly *kept = NEW(s->arena, Poly);
  *kept = p;
  memo_put(s->arena, memo, (MemoEntry){simplified, simplified->hash, s->x->scope, kept, 0}, same_ix, NULL);
}

/* ---- the interface ---- */

const Ix *ix_simplify(IxCtx *x, const Ix *e) {
  /* a variable is its own normal form: build makes back the very atom
   * (term_magnitude) */
  if (e->kind == IX_VAR && !x->general_polys) return e;
  MemoTable *memo = &memo_of(x)->simplified;
  const MemoEntry *known = memo_find(memo, e->hash, x->scope, same_ix, NULL, e);
  if (known) return known->value;
  /* a flat sum in build's order, told from its nodes (index_flat.c) */
  const Ix *flat = x->general_polys ? NULL : ix_flat_sum_form(x, e);
  if (flat) {
    memo_put(x->arena, memo, (MemoEntry){e, e->hash, x->scope, flat, 0}, same_ix, NULL);
    return flat;
  }
  Simplifier s;
  simplifier_init(&s, x);
  Poly p = to_poly(&s, e);
  const Ix *simplified = build(&s, p);
  /* never longer than what came in: the normal form distributes products,
   * which lengthens (a + b)*(c + d) */
  if (printed_length(simplified) > printed_length(e)) simplified = e;
  else if (!s.pc.overflow) remember_poly(&s, simplified, p);
  memo_put(x->arena, memo, (MemoEntry){e, e->hash, x->scope, simplified, 0}, same_ix, NULL);
  return simplified;
}

/* build(p) is a constant exactly when p is one (a sum of parts is not), and
 * ix_simplify keeps e instead when the constant prints longer; neither the
 * result nor the memo entry is needed here: the memo only saves work, and
 * the polynomials to_poly kept still are. */
bool ix_simplifies_to(IxCtx *x, const Ix *e, int64_t d) {
  int64_t v;
  const MemoEntry *known = memo_find(&memo_of(x)->simplified, e->hash, x->scope, same_ix, NULL, e);
  if (known) return ix_const_value(known->value, &v) && v == d;
  if (ix_const_value(e, &v)) return v == d;
  Simplifier s;
  simplifier_init(&s, x);
  return poly_const_value(to_poly(&s, e), &v) && v == d && printed_length(ix_const(x, v)) <= printed_length(e);
}

/* With p = to_poly(a) of plain atoms, ix_simplify(a) is a itself, or
 * build(p), a constant or a sum of products of those atoms with no
 * quotient; either way to_poly gives back p (remember_poly).  So the
 * difference of two simplified forms has the polynomial pa - pb (with no
 * quotient fold_identities finds nothing to fold); ix_sub's own folds
 * (constants, equal operands, a zero) agree with it; and it is simplified
 * to the constant l exactly when pa - pb is l: l, of at most two digits,
 * never prints longer than a difference. */
static bool lane_poly(IxCtx *x, const Ix *e, Simplifier *s, Poly *p) {
  simplifier_init(s, x); /* each afresh, as ix_simplify's: the prover's budget is per simplification */
  *p = to_poly(s, e);
  return plain_atoms(*p); /* an overflow leaves a sum as an atom */
}

/* p less its integral constant term (the last of a canonical polynomial),
 * that term in *c (0 if none); false for a fraction */
static bool split_constant(Poly p, Poly *rest, int64_t *c) {
  *rest = p;
  *c = 0;
  if (p.nterms == 0 || p.terms[p.nterms - 1].nfactors != 0) return true;
  rest->nterms--;
  *c = p.terms[p.nterms - 1].num;
  return p.terms[p.nterms - 1].den == 1;
}

/* pl - p0 is the constant d, of canonical polynomials: equal but for
 * their constant terms, which differ by d (what poly_sub would find,
 * without making the difference) */
static bool differ_by(const PolyCtx *pc, Poly pl, Poly p0, int64_t d) {
  Poly rl, r0;
  int64_t cl, c0, v;
  return split_constant(pl, &rl, &cl) && split_constant(p0, &r0, &c0) && !__builtin_sub_overflow(cl, c0, &v) &&
         v == d && poly_eq(pc, rl, r0);
}

bool ix_steps_before_simplify(IxCtx *x, const Ix *const *at, int k) {
  if (k > 100) return false;
  Simplifier s;
  Poly p0, pl;
  if (!lane_poly(x, at[0], &s, &p0)) return false;
  for (int l = 1; l < k; l++) {
    if (!lane_poly(x, at[l], &s, &pl) || !differ_by(&s.pc, pl, p0, l)) return false;
  }
  return true;
}

/* the lanes of a vector read and of the next one at the same index (the
 * two inputs of a zip) ask the same */
static bool same_steps(const void *user, const void *a, const void *b) {
  (void)user;
  const Ix *const *p = a, *const *q = b;
  return ix_equal(p[0], q[0]) && ix_equal(p[1], q[1]) && ix_equal(p[2], q[2]);
}

/* poly_add(p0, lane) does not overflow: where no term of p0 is the lane alone, the
 * sum merges nothing, one term more, counted, not made (a vector step's trial) */
static bool adds_within(PolyCtx *pc, Poly p0, const Ix *lane) {
  for (int i = 0; i < p0.nterms; i++) {
    const PolyTerm *t = &p0.terms[i];
    if (t->nfactors != 1 || t->factors->exp != 1 || !ix_equal(atom_of(t->factors), lane)) continue;
    pc->overflow = false;
    poly_add(pc, p0, poly_atom(pc, lane));
    return !pc->overflow;
  }
  return p0.nterms < pc->max_terms;
}

bool ix_steps_by_lane(IxCtx *x, const Ix *at0, const Ix *at, const Ix *lane) {
  MemoTable *memo = &memo_of(x)->steps;
  const Ix **key = NEWARRAY(x->arena, const Ix *, 3);
  key[0] = at0, key[1] = at, key[2] = lane;
  uint64_t hash = hash_mix(hash_mix(at0->hash, at->hash), lane->hash);
  const MemoEntry *known = memo_find(memo, hash, x->scope, same_steps, NULL, key);
  if (known) return known->value == known->key; /* a true answer is its own key */
  Simplifier s;
  Poly p0, pl;
  /* at written at0 + lane (a lane probed at first + lane over an index
   * that adds nothing to it, the usual vector read or write: issue 35, an
   * unrolled step's two reads): to_poly(at) would be poly_add(p0, lane),
   * which fold_identities leaves as it is (p0's atoms plain, so no quotient
   * to fold), or at as an atom where the sum leaves MAX_POLY_TERMS; so at
   * steps by lane exactly when that sum does not overflow, told without
   * converting at again */
  bool added = at->kind == IX_ADD && ix_equal(at->b, lane) && ix_equal(at->a, at0);
  bool steps = lane_poly(x, at0, &s, &p0) && (added || lane_poly(x, at, &s, &pl));
  if (steps && added) {
    steps = adds_within(&s.pc, p0, lane);
  } else if (steps) {
    Poly want = poly_add(&s.pc, p0, poly_atom(&s.pc, lane));
    steps = !s.pc.overflow && poly_eq(&s.pc, pl, want);
  }
  memo_put(x->arena, memo, (MemoEntry){key, hash, x->scope, steps ? key : (const void *)memo, 0}, same_steps, NULL);
  return steps;
}

bool ix_multiple_of(IxCtx *x, const Ix *e, int64_t k) {
  if (k <= 0) return false;
  Simplifier s;
  simplifier_init(&s, x);
  Poly p = to_poly(&s, e); /* an overflow leaves a sum as an atom, of coefficient 1 */
  for (int i = 0; i < p.nterms; i++) {
    const Term *t = &p.terms[i];
    if (t->den != 1 || t->num == INT64_MIN || t->num % k != 0) return false; /* common_factor: no magnitude */
  }
  return true;
}

/* ---- a vector's offset without its element index's form ----
 *
 * A vloadn at the element index at (a multiple of k) is at offset
 * ix_simplify(ix_div(ix_simplify(at), k)): the quotient's shortest form,
 * or the division as written where that form is longer (ix_simplify).
 * The inner form is needed for nothing but that length test, and its
 * search is the dearest part of an unrolled vector step (issue 35: its
 * constant's common factors with the other coefficients are tried as
 * groups).  A lower bound of its length settles the test where the
 * quotient's form is short enough, leaving only the quotient's search. */

static size_t digits_of(uint64_t v) {
  size_t n = 1;
  for (; v >= 10; v /= 10) n++;
  return n;
}

/* A length no form of p that build can give is shorter than; p of at
 * least two terms, plain atoms, integral coefficients, none INT64_MIN.
 * A form is the flat sum (whose length flat is) or has a group
 * (...)*f, whose inner sum of at least two parts prints in parentheses
 * (the innermost group's does) next to its '*'.  Either way every term
 * is one summand (n - 1 operators " + " or " - ", of 3 characters),
 * every atom prints at least once, and the constants along one term's
 * way (its own coefficient and the factors of the groups holding it)
 * multiply to its coefficient's magnitude, so print at least its digits
 * (digits(a*b) <= digits(a) + digits(b)): these characters are all
 * distinct. */
static size_t shortest_bound(Simplifier *s, Poly p, size_t flat) {
  size_t atoms = 0, digits = 0;
  for (int i = 0; i < p.nterms; i++) {
    const Term *t = &p.terms[i];
    uint64_t c = magnitude(t->num);
    if (c >= 2 || t->nfactors == 0) digits = digits_of(c) > digits ? digits_of(c) : digits;
    for (int j = 0; j < t->nfactors; j++) {
      const Ix *a = atom_of(&t->factors[j]);
      if (!appears_before(s, p.terms, i, a)) atoms += a->length;
    }
  }
  size_t grouped = 3 * (size_t)(p.nterms - 1) + atoms + digits + 3;
  return grouped < flat ? grouped : flat;
}

static const Ix *exact_quotient(IxCtx *x, const Ix *at, int64_t k, bool shortcuts) {
  /* at = q*k, q a size's index in build's flat form: q, told from at's nodes */
  const Ix *product = shortcuts ? ix_flat_product_quotient(x, at, k) : NULL;
  if (product) return product;
  Simplifier s;
  simplifier_init(&s, x);
  s.search_only = !shortcuts;
  Poly p = to_poly(&s, at); /* ix_multiple_of's, and ix_simplify(at)'s */
  if (s.pc.overflow || p.nterms < 2 || !plain_atoms(p)) return NULL;
  for (int i = 0; i < p.nterms; i++) {
    const Term *t = &p.terms[i];
    if (t->den != 1 || t->num == INT64_MIN || t->num % k != 0) return NULL;
  }
  /* the inner form S = ix_simplify(at) is at itself or build(p), whose
   * polynomial is p (remember_poly): the quotient's is then what to_poly
   * makes of S/k, simplify_division(p, k), which takes out the common
   * factor of p's coefficients and k, k itself, and divides p by it
   * exactly, leaving a division by 1: p's terms divided by k */
  Term by_k = {k, 1, 0, NULL};
  Poly q = divide_exactly(&s, p, &by_k);
  if (s.pc.overflow) return NULL;
  /* the quotient, wg*4096 + lid*64 + i, is new at each vector address (build replays its search): p's
   * terms read once for its search's choice and p's flat length (index_flat.c), where they can be */
  size_t flat;
  int64_t g;
  bool chosen;
  const Ix *quotient;
  if (shortcuts && ix_flat_quotient_choice(p, k, BUILD_BUDGET, &flat, &chosen, &g)) {
    quotient = build_chosen(&s, q, chosen, g);
  } else {
    quotient = build(&s, q);
    flat = parts_length(&s, flat_parts(&s, p));
  }
  if (s.pc.overflow) return NULL;
  /* S/k prints at least S, '/' and k; S's length is at most at's, at least shortest_bound's (which counts
   * parentheses p may not have), and where ix_flat_is_shortest(p) the lesser of the flat sum's and at's */
  size_t bound = shortest_bound(&s, p, flat);
  size_t extra = 1 + digits_of((uint64_t)k), length = printed_length(quotient);
  if (length <= (at->length < bound ? at->length : bound) + extra) return quotient;
  return ix_flat_is_shortest(p) && length <= (at->length < flat ? at->length : flat) + extra ? quotient : NULL;
}

/* exact_quotient, kept for the next read at the same index (the other
 * input of a zip: each unrolled step's two vloadn) */
const Ix *ix_exact_quotient(IxCtx *x, const Ix *at, int64_t k) {
  if (k < 2 || k > INT32_MAX) return NULL;
  MemoTable *memo = &memo_of(x)->quotients;
  const MemoEntry *known = memo_find(memo, at->hash, x->scope, same_ix, NULL, at);
  if (known && known->cost == (int)k) return known->value == memo ? NULL : known->value;
  const Ix *quotient = exact_quotient(x, at, k, true);
  if (!known) {
    memo_put(x->arena, memo, (MemoEntry){at, at->hash, x->scope, quotient ? (const void *)quotient : memo, (int)k},
             same_ix, NULL);
  }
  return quotient;
}

const Ix *ix_exact_quotient_form(IxCtx *x, const Ix *at, int64_t k, bool shortcuts) {
  return k < 2 || k > INT32_MAX ? NULL : exact_quotient(x, at, k, shortcuts);
}

bool ix_provably_less(IxCtx *x, const Ix *e, const Ix *bound) {
  Simplifier s;
  simplifier_init(&s, x);
  Poly pe = to_poly(&s, e), pb = to_poly(&s, bound);
  return prove_less(&s, pe, pb);
}

const Ix *ix_min_max(IxCtx *x, bool max, const Ix *a, const Ix *b) {
  if (ix_equal(a, b)) return a;
  Simplifier s;
  simplifier_init(&s, x);
  Poly pa = to_poly(&s, a), pb = to_poly(&s, b);
  if (prove_gap(&s, pa, pb, 0)) return max ? b : a; /* a <= b */
  if (prove_gap(&s, pb, pa, 0)) return max ? a : b;
  return NULL;
}
