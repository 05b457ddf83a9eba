/* poly.c: the polynomial core (poly.h) under sizes (spec section 3) and
 * index expressions (spec section 8).
 *
 * Every function that returns a Poly returns it in canonical form (poly.h)
 * when its operands are, whether or not it overflowed.  Coefficient
 * arithmetic that involves denominators is done in 128 bits, so that only a
 * result that really leaves int64 counts as overflow. */
#include "poly.h"

#include <string.h>

typedef PolyWide Wide;
__extension__ typedef unsigned __int128 UWide;

/* ---- checked arithmetic (poly_checked_add, poly_checked_mul and poly_gcd: inline, poly.h) ---- */

static bool fits_int64(Wide w) { return w >= INT64_MIN && w <= INT64_MAX; }

static UWide wide_magnitude(Wide w) { return w < 0 ? -(UWide)w : (UWide)w; }

static UWide wide_gcd(UWide a, UWide b) {
  while (b != 0) {
    UWide rest = a % b;
    a = b;
    b = rest;
  }
  return a;
}

bool poly_wide_reduce(Wide *n, Wide *d) {
  ASSERT(*d != 0);
  /* Both in int64 but INT64_MIN (most coefficients: a product of two
   * int64 coefficients that still fits): the same lowest terms by 64-bit
   * division, which costs far less than 128-bit (a libgcc call per step;
   * translation throughput, issue 35). */
  if (*n > INT64_MIN && *n <= INT64_MAX && *d > INT64_MIN && *d <= INT64_MAX) {
    int64_t x = (int64_t)*n, y = (int64_t)*d;
    if (x == 0) {
      *d = 1;
      return true;
    }
    int64_t g = poly_gcd(x, y);
    x /= g;
    y /= g;
    if (y < 0) {
      x = -x;
      y = -y;
    }
    *n = x;
    *d = y;
    return true;
  }
  UWide mn = wide_magnitude(*n), md = wide_magnitude(*d);
  if ((mn >> 127) != 0 || (md >> 127) != 0) return false;
  if (*n == 0) {
    *d = 1;
    return true;
  }
  Wide g = (Wide)wide_gcd(mn, md);
  *n /= g;
  *d /= g;
  if (*d < 0) {
    *n = -*n;
    *d = -*d;
  }
  return true;
}

static inline bool coefficient_of(Wide n, Wide d, int64_t *num, int64_t *den) {
  if (!poly_wide_reduce(&n, &d)) return false;
  if (!fits_int64(n) || !fits_int64(d)) return false;
  *num = (int64_t)n;
  *den = (int64_t)d;
  return true;
}

bool poly_coefficient(Wide n, Wide d, int64_t *num, int64_t *den) { return coefficient_of(n, d, num, den); }

void poly_sum_init(PolySum *s) {
  s->num = 0;
  s->den = 1;
  s->overflow = false;
}

void poly_sum_add(PolySum *s, Wide num, Wide den) {
  if (s->overflow) return;
  Wide g = (Wide)wide_gcd((UWide)s->den, (UWide)den);
  Wide scaled_left, scaled_right, new_num, new_den;
  if (__builtin_mul_overflow(s->num, den / g, &scaled_left) || __builtin_mul_overflow(num, s->den / g, &scaled_right) ||
      __builtin_add_overflow(scaled_left, scaled_right, &new_num) ||
      __builtin_mul_overflow(s->den, den / g, &new_den) || !poly_wide_reduce(&new_num, &new_den)) {
    s->overflow = true;
    return;
  }
  s->num = new_num;
  s->den = new_den;
}

/* The coefficient n/d of a result: set in *t, or overflow and 1. */
static inline void set_coefficient(PolyCtx *pc, PolyTerm *t, Wide n, Wide d) {
  if (d == 1 && fits_int64(n)) {
    t->num = (int64_t)n;
    t->den = 1;
  } else if (!coefficient_of(n, d, &t->num, &t->den)) {
    pc->overflow = true;
    t->num = t->den = 1;
  }
}

/* ---- orders ---- */

/* Atoms without a compare function are interned: the same atom exactly
 * when the same pointer. */
static bool same_atom(const PolyCtx *pc, PolyAtom a, PolyAtom b) {
  if (a == b) return true;
  if (pc->equal) return pc->equal(a, b);
  return pc->compare && pc->compare(pc->user, a, b) == 0;
}

int64_t poly_degree(const PolyTerm *t) {
  int64_t degree = 0;
  for (int i = 0; i < t->nfactors; i++) degree += t->factors[i].exp;
  return degree;
}

int poly_compare_monomials(const PolyCtx *pc, const PolyTerm *a, const PolyTerm *b) {
  bool a_const = a->nfactors == 0, b_const = b->nfactors == 0;
  if (a_const || b_const) return (int)a_const - (int)b_const;
  int64_t da = poly_degree(a), db = poly_degree(b);
  if (da != db) return da > db ? -1 : 1;
  int n = a->nfactors < b->nfactors ? a->nfactors : b->nfactors;
  for (int i = 0; i < n; i++) {
    int c = poly_compare_atoms(pc, a->factors[i].atom, b->factors[i].atom);
    if (c != 0) return c;
    int64_t ea = a->factors[i].exp, eb = b->factors[i].exp;
    if (ea != eb) return ea > eb ? -1 : 1;
  }
  return (a->nfactors > b->nfactors) - (a->nfactors < b->nfactors);
}

/* ---- construction ---- */

Poly poly_of_term(PolyCtx *pc, PolyTerm t) {
  PolyTerm *terms = NEW(pc->arena, PolyTerm);
  *terms = t;
  return (Poly){1, terms};
}

Poly poly_const(PolyCtx *pc, int64_t c) {
  if (c == 0) return poly_zero();
  return poly_of_term(pc, (PolyTerm){c, 1, 0, NULL});
}

Poly poly_atom(PolyCtx *pc, PolyAtom atom) {
  ASSERT(atom != NULL);
  PolyFactor *f = NEW(pc->arena, PolyFactor);
  f->atom = atom;
  f->exp = 1;
  return poly_of_term(pc, (PolyTerm){1, 1, 1, f});
}

/* Stable sort by poly_compare_monomials (stable, so that merging equal
 * monomials adds their coefficients in a deterministic order). */
static void sort_terms(PolyCtx *pc, PolyTerm *terms, int n) {
  if (n < 2) return;
  if (n <= 16) {
    for (int i = 1; i < n; i++) {
      PolyTerm key = terms[i];
      int j = i;
      while (j > 0 && poly_compare_monomials(pc, &terms[j - 1], &key) > 0) {
        terms[j] = terms[j - 1];
        j--;
      }
      terms[j] = key;
    }
    return;
  }
  PolyTerm *scratch = NEWARRAY(pc->arena, PolyTerm, n);
  PolyTerm *src = terms, *dst = scratch;
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      int mid = lo + width < n ? lo + width : n;
      int hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        dst[k++] = poly_compare_monomials(pc, &src[j], &src[i]) < 0 ? src[j++] : src[i++];
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    PolyTerm *swap = src;
    src = dst;
    dst = swap;
  }
  if (src != terms) memcpy(terms, src, sizeof(PolyTerm) * (size_t)n);
}

/* The sum of the coefficients of terms[i, j) (equal monomials) into *out. */
static void merge_coefficients(PolyCtx *pc, const PolyTerm *terms, int i, int j, PolyTerm *out) {
  bool integral = true;
  Wide whole = 0;
  for (int k = i; k < j && integral; k++) {
    integral = terms[k].den == 1;
    whole += terms[k].num; /* at most INT_MAX terms of int64: no wrap */
  }
  if (integral) {
    set_coefficient(pc, out, whole, 1);
    return;
  }
  PolySum sum;
  poly_sum_init(&sum);
  for (int k = i; k < j; k++) poly_sum_add(&sum, terms[k].num, terms[k].den);
  if (sum.overflow) {
    pc->overflow = true;
    out->num = out->den = 1;
    return;
  }
  set_coefficient(pc, out, sum.num, sum.den);
}

/* Merges the runs of equal monomials of sorted terms and drops zeros. */
static Poly merge_sorted(PolyCtx *pc, PolyTerm *terms, int n) {
  int kept = 0;
  for (int i = 0; i < n;) {
    int j = i + 1;
    while (j < n && poly_compare_monomials(pc, &terms[i], &terms[j]) == 0) j++;
    PolyTerm merged = terms[i];
    if (j > i + 1) merge_coefficients(pc, terms, i, j, &merged);
    if (merged.num != 0) terms[kept++] = merged;
    i = j;
  }
  if (kept > pc->max_terms) pc->overflow = true;
  return (Poly){kept, kept > 0 ? terms : NULL};
}

Poly poly_normalise(PolyCtx *pc, PolyTerm *terms, int n) {
  sort_terms(pc, terms, n);
  return merge_sorted(pc, terms, n);
}

/* ---- arithmetic ---- */

Poly poly_add(PolyCtx *pc, Poly a, Poly b) {
  if (a.nterms == 0 || b.nterms == 0) return a.nterms == 0 ? b : a;
  /* both canonical: merge them, adding the coefficients of a monomial that
   * both have (at most once in each) */
  PolyTerm *terms = NEWARRAY(pc->arena, PolyTerm, a.nterms + b.nterms);
  int i = 0, j = 0, k = 0;
  while (i < a.nterms && j < b.nterms) {
    int c = poly_compare_monomials(pc, &a.terms[i], &b.terms[j]);
    if (c != 0) {
      terms[k++] = c < 0 ? a.terms[i++] : b.terms[j++];
      continue;
    }
    PolyTerm merged = a.terms[i];
    const PolyTerm pair[2] = {a.terms[i++], b.terms[j++]};
    merge_coefficients(pc, pair, 0, 2, &merged);
    if (merged.num != 0) terms[k++] = merged;
  }
  while (i < a.nterms) terms[k++] = a.terms[i++];
  while (j < b.nterms) terms[k++] = b.terms[j++];
  if (k > pc->max_terms) pc->overflow = true;
  return (Poly){k, k > 0 ? terms : NULL};
}

Poly poly_scale(PolyCtx *pc, Poly a, int64_t c) {
  if (c == 0 || a.nterms == 0) return poly_zero();
  PolyTerm *terms = poly_new_terms(pc->arena, a.nterms);
  for (int i = 0; i < a.nterms; i++) {
    terms[i] = a.terms[i];
    if (a.terms[i].den == 1) {
      terms[i].num = poly_checked_mul(pc, a.terms[i].num, c);
    } else {
      set_coefficient(pc, &terms[i], (Wide)a.terms[i].num * c, a.terms[i].den);
    }
  }
  /* scaling keeps the monomials, hence order and distinctness */
  return (Poly){a.nterms, terms};
}

Poly poly_sub(PolyCtx *pc, Poly a, Poly b) { return poly_add(pc, a, poly_scale(pc, b, -1)); }

/* The coefficient of a product of two terms into t. */
static inline void multiply_coefficients(PolyCtx *pc, const PolyTerm *a, const PolyTerm *b, PolyTerm *t) {
  if (a->den == 1 && b->den == 1) {
    t->num = poly_checked_mul(pc, a->num, b->num);
    t->den = 1;
    return;
  }
  /* Both in lowest terms (canonical form): each numerator divided by its
   * gcd with the other's denominator leaves the product in lowest terms,
   * with a positive denominator, the 128-bit product's reduction exactly
   * (N/16384 times 64; translation throughput, issue 35).  Where a part
   * leaves int64 (or for a 0 no canonical term has), the 128-bit way. */
  int64_t g1 = poly_gcd(a->num, b->den), g2 = poly_gcd(b->num, a->den);
  if (a->num != 0 && b->num != 0 && !__builtin_mul_overflow(a->num / g1, b->num / g2, &t->num) &&
      !__builtin_mul_overflow(a->den / g2, b->den / g1, &t->den))
    return;
  set_coefficient(pc, t, (Wide)a->num * b->num, (Wide)a->den * b->den);
}

/* The product of the monomials of a and b, both with factors, into f
 * (room for both): how many factors it has. */
static int merge_factors(PolyCtx *pc, const PolyTerm *a, const PolyTerm *b, PolyFactor *f) {
  int i = 0, j = 0, n = 0;
  while (i < a->nfactors && j < b->nfactors) {
    int c = poly_compare_atoms(pc, a->factors[i].atom, b->factors[j].atom);
    if (c < 0) {
      f[n++] = a->factors[i++];
    } else if (c > 0) {
      f[n++] = b->factors[j++];
    } else {
      int64_t e;
      if (__builtin_add_overflow(a->factors[i].exp, b->factors[j].exp, &e) || e > pc->max_exponent ||
          e < -pc->max_exponent) {
        pc->overflow = true;
        e = a->factors[i].exp;
      }
      if (e != 0) f[n++] = (PolyFactor){{a->factors[i].atom}, e};
      i++;
      j++;
    }
  }
  while (i < a->nfactors) f[n++] = a->factors[i++];
  while (j < b->nfactors) f[n++] = b->factors[j++];
  return n;
}

/* Sets out's factors to the product of the monomials of a and b. */
static void multiply_monomials(PolyCtx *pc, const PolyTerm *a, const PolyTerm *b, PolyTerm *out) {
  if (a->nfactors == 0 || b->nfactors == 0) {
    const PolyTerm *other = a->nfactors == 0 ? b : a;
    out->nfactors = other->nfactors;
    out->factors = other->factors;
    return;
  }
  PolyFactor *f = NEWARRAY(pc->arena, PolyFactor, a->nfactors + b->nfactors);
  int n = merge_factors(pc, a, b, f);
  out->nfactors = n;
  out->factors = n > 0 ? f : NULL;
}

/* The product of two single terms with factors, the term and its factors
 * in one allocation: poly_term_mul's term (a single product needs no
 * sort), without its copies (a split's ?n*?k; translation throughput,
 * issue 35; tests/unit/test_poly.c compares it with the general
 * product). */
static DPIA_NOINLINE Poly mul_terms(PolyCtx *pc, const PolyTerm *a, const PolyTerm *b) {
  PolyTerm *t = arena_alloc(pc->arena, sizeof(PolyTerm) + sizeof(PolyFactor) * (size_t)(a->nfactors + b->nfactors));
  PolyFactor *f = (PolyFactor *)(t + 1);
  multiply_coefficients(pc, a, b, t);
  int n = merge_factors(pc, a, b, f);
  t->nfactors = n;
  t->factors = n > 0 ? f : NULL;
  return (Poly){1, t};
}

PolyTerm poly_term_mul(PolyCtx *pc, const PolyTerm *a, const PolyTerm *b) {
  PolyTerm t;
  multiply_coefficients(pc, a, b, &t);
  multiply_monomials(pc, a, b, &t);
  return t;
}

static bool is_one(const PolyTerm *t) { return t->num == 1 && t->den == 1 && t->nfactors == 0; }

/* p times the constant term k (no factors): each term's coefficient times
 * k's, its monomial kept, so the terms keep their order and need no sort:
 * the general product's terms exactly (poly_term_mul shares a monomial
 * multiplied by a constant as it is), overflow included; and p itself for
 * k = 1, whose products change nothing.  Sizes multiply by constants all
 * the time (a split's n*64, a launch's groups times their size;
 * translation throughput, issue 35; tests/unit/test_poly.c compares this
 * with the general product). */
static DPIA_NOINLINE Poly mul_by_constant(PolyCtx *pc, Poly p, const PolyTerm *k) {
  if (is_one(k)) return p;
  PolyTerm *terms = poly_new_terms(pc->arena, p.nterms);
  for (int i = 0; i < p.nterms; i++) {
    terms[i] = p.terms[i];
    multiply_coefficients(pc, &p.terms[i], k, &terms[i]);
  }
  return (Poly){p.nterms, terms};
}

Poly poly_mul(PolyCtx *pc, Poly a, Poly b) {
  if (a.nterms == 0 || b.nterms == 0) return poly_zero();
  int n = a.nterms * b.nterms; /* both at most max_terms or products of such */
  if (pc->max_products > 0 && n > pc->max_products) {
    pc->overflow = true;
    return poly_zero();
  }
  if (b.nterms == 1 && b.terms[0].nfactors == 0) return mul_by_constant(pc, a, &b.terms[0]);
  if (a.nterms == 1 && a.terms[0].nfactors == 0) return mul_by_constant(pc, b, &a.terms[0]);
  if (n == 1) return mul_terms(pc, &a.terms[0], &b.terms[0]);
  return poly_mul_general(pc, a, b);
}

Poly poly_mul_general(PolyCtx *pc, Poly a, Poly b) {
  if (a.nterms == 0 || b.nterms == 0) return poly_zero();
  int n = a.nterms * b.nterms;
  if (pc->max_products > 0 && n > pc->max_products) {
    pc->overflow = true;
    return poly_zero();
  }
  PolyTerm *terms = NEWARRAY(pc->arena, PolyTerm, n);
  for (int i = 0; i < a.nterms; i++) {
    for (int j = 0; j < b.nterms; j++) terms[i * b.nterms + j] = poly_term_mul(pc, &a.terms[i], &b.terms[j]);
  }
  if (a.nterms == 1 || b.nterms == 1) {
    /* Multiplying by one term keeps the monomials distinct, but not
     * necessarily in order (a negative exponent changes degrees unevenly). */
    if (n > 1) sort_terms(pc, terms, n);
    return (Poly){n, terms};
  }
  return poly_normalise(pc, terms, n);
}

Poly poly_power(PolyCtx *pc, Poly a, int e) {
  Poly r = poly_const(pc, 1);
  for (int k = 0; k < e && !pc->overflow; k++) r = poly_mul(pc, r, a);
  return r;
}

bool poly_term_divide(PolyCtx *pc, const PolyTerm *t, const PolyTerm *k, PolyTerm *out) {
  ASSERT(k->num > 0 && k->den == 1 && t->den == 1);
  if (t->num % k->num != 0 || t->nfactors < k->nfactors) return false;
  if (k->nfactors == 0) {
    /* by a constant: t's own monomial, shared (immutable) rather than
     * copied (translation throughput, issue 35) */
    *out = (PolyTerm){t->num / k->num, 1, t->nfactors, t->nfactors > 0 ? t->factors : NULL};
    return true;
  }
  PolyFactor *rest = t->nfactors > 0 ? NEWARRAY(pc->arena, PolyFactor, t->nfactors) : NULL;
  int j = 0, n = 0;
  for (int i = 0; i < t->nfactors; i++) {
    int c = j < k->nfactors ? poly_compare_atoms(pc, t->factors[i].atom, k->factors[j].atom) : -1;
    if (c > 0) return false; /* an atom of k that t lacks */
    if (c < 0) {
      rest[n++] = t->factors[i];
      continue;
    }
    int64_t e = t->factors[i].exp - k->factors[j].exp;
    if (k->factors[j].exp < 0 || e < 0) return false;
    if (e > 0) rest[n++] = (PolyFactor){{t->factors[i].atom}, e};
    j++;
  }
  if (j < k->nfactors) return false;
  *out = (PolyTerm){t->num / k->num, 1, n, n > 0 ? rest : NULL};
  return true;
}

PolyTerm poly_term_lower(PolyCtx *pc, const PolyTerm *t, int i) {
  ASSERT(i >= 0 && i < t->nfactors && t->factors[i].exp > 0);
  PolyTerm r = *t;
  bool drop = t->factors[i].exp == 1;
  r.nfactors = t->nfactors - drop;
  if (r.nfactors == 0) {
    r.factors = NULL;
    return r;
  }
  PolyFactor *f = NEWARRAY(pc->arena, PolyFactor, t->nfactors);
  memcpy(f, t->factors, sizeof(PolyFactor) * (size_t)t->nfactors);
  if (drop) {
    memmove(&f[i], &f[i + 1], sizeof(PolyFactor) * (size_t)(t->nfactors - i - 1));
  } else {
    f[i].exp--;
  }
  r.factors = f;
  return r;
}

PolyTerm poly_term_without(PolyCtx *pc, const PolyTerm *t, PolyAtom atom) {
  for (int i = 0; i < t->nfactors; i++) {
    if (!same_atom(pc, t->factors[i].atom, atom)) continue;
    PolyTerm r = *t;
    r.nfactors = t->nfactors - 1;
    if (r.nfactors == 0) {
      r.factors = NULL;
      return r;
    }
    PolyFactor *f = NEWARRAY(pc->arena, PolyFactor, r.nfactors);
    memcpy(f, t->factors, sizeof(PolyFactor) * (size_t)i);
    memcpy(f + i, t->factors + i + 1, sizeof(PolyFactor) * (size_t)(r.nfactors - i));
    r.factors = f;
    return r;
  }
  return *t;
}

/* ---- queries ---- */

static bool same_monomial(const PolyCtx *pc, const PolyTerm *a, const PolyTerm *b) {
  if (a->nfactors != b->nfactors) return false;
  for (int i = 0; i < a->nfactors; i++) {
    if (a->factors[i].exp != b->factors[i].exp || !same_atom(pc, a->factors[i].atom, b->factors[i].atom)) {
      return false;
    }
  }
  return true;
}

bool poly_eq(const PolyCtx *pc, Poly a, Poly b) {
  if (a.nterms != b.nterms) return false;
  for (int i = 0; i < a.nterms; i++) {
    const PolyTerm *x = &a.terms[i], *y = &b.terms[i];
    if (x->num != y->num || x->den != y->den || !same_monomial(pc, x, y)) return false;
  }
  return true;
}

bool poly_const_value(Poly p, int64_t *v) {
  if (p.nterms == 0) {
    *v = 0;
    return true;
  }
  if (p.nterms != 1 || p.terms[0].nfactors != 0 || p.terms[0].den != 1) return false;
  *v = p.terms[0].num;
  return true;
}

int64_t poly_exponent_of(const PolyCtx *pc, const PolyTerm *t, PolyAtom atom) {
  for (int i = 0; i < t->nfactors; i++) {
    if (same_atom(pc, t->factors[i].atom, atom)) return t->factors[i].exp;
  }
  return 0;
}

const PolyTerm *poly_find_monomial(const PolyCtx *pc, Poly p, const PolyTerm *t) {
  for (int i = 0; i < p.nterms; i++) {
    if (same_monomial(pc, &p.terms[i], t)) return &p.terms[i];
  }
  return NULL;
}
