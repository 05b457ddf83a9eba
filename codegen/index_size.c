/* index_size.c: a size (size.h) as an index expression over the nat
 * parameters (index.h: ix_from_size), kept in the index memo (index.c). */
#include "index.h"
#include "index_int.h"
#include "memo.h"

/* ---- sizes ----
 *
 * A size is the core's polynomial over size atoms (size.h, spec
 * section 3); its index expression is the numerator over the common
 * denominator (size_fraction), term by term, divided once: the
 * preconditions make the division exact (spec section 8). */

static const Ix *numerator_ix(IxCtx *x, Size p);
static const Ix *monomial_ix(IxCtx *x, const SizeTerm *t);

/* A size atom: a variable, or floor(num/den) (size.h) as the truncating
 * division of its non-negative num by its den (NULL if a coefficient has
 * no magnitude). */
static const Ix *atom_ix(IxCtx *x, const SizeAtom *a) {
  switch (a->kind) {
  case SIZE_ATOM_VAR: {
    const Ix *row = ix_row_index(x, a->var);
    return row ? row : ix_var(x, a->var);
  }
  case SIZE_ATOM_FLOOR: break;
  }
  const Ix *num = numerator_ix(x, a->num), *den = numerator_ix(x, a->den);
  return num && den ? ix_div(x, num, den) : NULL;
}

/* The monomial of t (positive exponents), atoms first, then the
 * coefficient's magnitude unless it is 1: N*M*2, not 2*N*M. */
static const Ix *monomial_ix(IxCtx *x, const SizeTerm *t) {
  const Ix *e = ix_const(x, 1);
  for (int i = 0; i < t->nfactors; i++) {
    ASSERT(t->factors[i].exp > 0);
    const Ix *a = atom_ix(x, size_factor_atom(&t->factors[i]));
    if (!a) return NULL;
    for (int64_t k = 0; k < t->factors[i].exp; k++) e = ix_mul(x, e, a);
  }
  return ix_mul(x, e, ix_const(x, t->num < 0 ? -t->num : t->num));
}

/* The sum of a polynomial's terms (integer coefficients, positive
 * exponents), positive terms first so that no sum starts with a
 * subtraction from 0; NULL if a coefficient is INT64_MIN (no magnitude). */
static const Ix *numerator_ix(IxCtx *x, Size p) {
  const Ix *sum = NULL;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < p.nterms; i++) {
      const SizeTerm *t = &p.terms[i];
      bool negative = t->num < 0;
      if (negative != (pass == 1)) continue;
      if (t->num == INT64_MIN) return NULL;
      const Ix *term = monomial_ix(x, t);
      if (!term) return NULL;
      if (!sum) {
        sum = negative ? ix_sub(x, ix_const(x, 0), term) : term;
      } else {
        sum = negative ? ix_sub(x, sum, term) : ix_add(x, sum, term);
      }
    }
  }
  return sum ? sum : ix_const(x, 0);
}

/* numerator/denominator of s, or NULL if that leaves int64 */
static const Ix *fraction_ix(IxCtx *x, Size s) {
  Size numerator, denominator;
  if (!size_fraction(x->arena, s, &numerator, &denominator)) return NULL;
  const Ix *top = numerator_ix(x, numerator), *bottom = monomial_ix(x, &denominator.terms[0]);
  return top && bottom ? ix_div(x, top, bottom) : NULL;
}

const Ix *ix_size_ix(IxCtx *x, Size s) {
  if (s.nterms == 0) return ix_const(x, 0);
  /* Most sizes are polynomials (a constant, N, N*K + 2, ceil(N/64) as its
   * floor atom): their common denominator is 1, size_fraction would give
   * s itself over 1, and fraction_ix its numerator_ix divided by 1, which
   * ix_div folds away.  So that numerator is taken at once (translation
   * throughput, BENCHMARKS.md). */
  if (size_is_polynomial(s)) {
    const Ix *top = numerator_ix(x, s);
    if (top) return top;
  }
  const Ix *whole = fraction_ix(x, s);
  if (whole) return whole;
  /* No common denominator fits in int64: one exact division per term. */
  const Ix *sum = NULL;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < s.nterms; i++) {
      SizeTerm t = s.terms[i];
      bool negative = t.num < 0;
      if (negative != (pass == 1)) continue;
      if (negative) t.num = -t.num; /* a canonical coefficient is > INT64_MIN/1 or has den 1 */
      const Ix *term = fraction_ix(x, (Size){1, &t});
      if (!term) INTERNAL("size term with a coefficient beyond int64");
      if (!sum) {
        sum = negative ? ix_sub(x, ix_const(x, 0), term) : term;
      } else {
        sum = negative ? ix_sub(x, sum, term) : ix_add(x, sum, term);
      }
    }
  }
  return sum;
}

/* ---- the memo of sizes ---- */

static uint64_t var_hash(PolyAtom a) { return ix_name_hash(a); }

static bool same_size(const void *user, const void *a, const void *b) {
  (void)user;
  return size_eq(*(const Size *)a, *(const Size *)b);
}

/* Sizes recur: each access to an array multiplies by the sizes of its
 * dimensions (codegen/access.c, split_indices). */
const Ix *ix_from_size(IxCtx *x, Size s) {
  /* a constant (a type's extent, most often) is its index at once,
   * cheaper than finding it anywhere (size_ix gives the same) */
  if (s.nterms == 1 && s.terms[0].nfactors == 0 && s.terms[0].den == 1 && s.terms[0].num != INT64_MIN)
    return ix_const(x, s.terms[0].num);
  /* a size with a row is its loop's index: not kept, the same row may be
   * another loop's elsewhere (a def's dependent map inlined twice) */
  for (int k = 0; k < x->nrows; k++)
    if (size_has_var(s, x->row[k])) return ix_size_ix(x, s);
  IxMemo *m = memo_of(x);
  uintptr_t at = (uintptr_t)s.terms >> 4;
  size_t slot = (size_t)((at ^ (at >> 7)) % IX_RECENT_SIZES);
  /* the same terms are the same size (sizes are never changed, and the
   * request's arena gives no address twice) */
  if (s.terms && m->recent[slot].terms == s.terms && m->recent[slot].nterms == s.nterms) return m->recent[slot].value;
  MemoTable *memo = &m->sizes;
  uint64_t hash = ix_poly_hash(s, var_hash);
  const MemoEntry *known = memo_find(memo, hash, 0, same_size, NULL, &s);
  const Ix *e = known ? known->value : ix_size_ix(x, s);
  if (!known) {
    Size *key = NEW(x->arena, Size);
    *key = s;
    memo_put(x->arena, memo, (MemoEntry){key, hash, 0, e, 0}, same_size, NULL);
  }
  m->recent[slot].terms = s.terms;
  m->recent[slot].nterms = s.nterms;
  m->recent[slot].value = e;
  return e;
}
