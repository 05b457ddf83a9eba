/* index_flat.c: whether the simplifier's search would keep a sum flat,
 * told without the search (index_int.h, ix_flat_is_shortest).
 *
 * An unrolled vector step's offset, wg*4096 + lid*16 + 3, is a new
 * polynomial at every step, so its shortest form is searched afresh each
 * time (index.c, search_parts: a factoring by each common factor of two
 * coefficients, nested, each one a sum made and measured; issue 35).  Where
 * no atom is shared by two terms there are no atom factorings, and the
 * forms the search can make are the flat sum and, recursively, a sum of
 * the other terms' form and a group (form of the divided terms)*g, g the
 * gcd of two coefficients.  Their lengths are sums of the terms' lengths
 * (ix_term_part, as the flat form's), operators and parentheses, so the
 * least of them is found on integers alone.  The search replaces the flat
 * sum only by a constant factoring strictly shorter; where none is, it
 * keeps the flat sum, whatever its budget. */
#include "index_int.h"

#include <stdint.h>
#include <string.h>

enum { FLAT_MAX_TERMS = 6 };

typedef struct FlatTerms {
  int n;
  /* term i's flat part with coefficient 1 (ix_term_part), and whether it
   * has atoms: with c != 1 an atom's part is followed by '*' and c's
   * digits, neither atom nor product needing parentheses left of '*'
   * (plain atoms bind as tightly as any), and a constant's is c's digits */
  size_t base[FLAT_MAX_TERMS];
  bool atoms[FLAT_MAX_TERMS];
} FlatTerms;

/* the decimal digits of v >= 0, by powers of ten (a multiplication a
 * digit where dividing v costs a few more: the searches below count
 * digits of every coefficient they try) */
static size_t digits(int64_t v) {
  if (v < 10) return 1;
  size_t n = 2;
  /* unsigned: the last power asked, 10^19, is past INT64_MAX */
  for (uint64_t power = 100; n < 19 && (uint64_t)v >= power; power *= 10) n++;
  return n;
}

/* ix_term_part(term i with the positive coefficient c).length */
static size_t term_length(const FlatTerms *f, int i, int64_t c) {
  if (!f->atoms[i]) return digits(c);
  return c == 1 ? f->base[i] : f->base[i] + 1 + digits(c);
}

/* the terms in mask, one by one (the lowest first) */
#define FOR_EACH_TERM(i, mask)                                                                                     \
  for (unsigned i##_left = (mask), i; i##_left && (i = (unsigned)__builtin_ctz(i##_left), 1); i##_left &= i##_left - 1)

static size_t flat_length(const FlatTerms *f, const int64_t *c, unsigned mask) {
  size_t length = 0, parts = 0;
  FOR_EACH_TERM(i, mask) length += term_length(f, (int)i, c[i]), parts++;
  return length + 3 * (parts - 1); /* " + " between positive parts */
}

/* The least lengths of the factored forms of the terms in mask
 * (coefficients c[]): *single of a group alone, (...)*g, a product that
 * needs no parentheses as an operand of '*'; *sum of the other terms'
 * form plus a group.  SIZE_MAX where there is none.
 *
 * One top-level question meets the same terms again and again: each
 * pair's group is measured with its rest, and the rests and the nested
 * groups' sets recur (a chunk-16 step's offsets asked it per new
 * constant).  The terms in mask all have the question's coefficients
 * over one divisor D, the product of the groups' g around them (a group
 * divides every one of its terms by its g; a rest keeps its terms'
 * coefficients), so (mask, D) names the coefficients and the answer is
 * kept per such key for the one question (FactoredMemo, on the caller's
 * stack); past its capacity it is just computed again.  Two pairs with the
 * same gcd g make the same group (the terms g divides) and the same rest,
 * so a g is measured once, as the search itself tries it (index.c,
 * search_parts; replay below).  tests/unit/test_index_flat.c holds the
 * plain recursion these must answer as. */
enum { FACTORED_MEMO_MAX = 96 };

typedef struct FactoredEntry {
  unsigned mask;
  int64_t divisor;
  size_t single, sum;
} FactoredEntry;

typedef struct FactoredMemo {
  int used;
  FactoredEntry e[FACTORED_MEMO_MAX];
} FactoredMemo;

static void factored(const FlatTerms *f, const int64_t *c, unsigned mask, int64_t divisor, FactoredMemo *memo,
                     size_t *single, size_t *sum);

/* the least length of any form of the terms in mask (at least one),
 * their coefficients the question's over divisor */
static size_t least(const FlatTerms *f, const int64_t *c, unsigned mask, int64_t divisor, FactoredMemo *memo) {
  size_t single, sum, flat = flat_length(f, c, mask);
  factored(f, c, mask, divisor, memo, &single, &sum);
  if (single < flat) flat = single;
  return sum < flat ? sum : flat;
}

static void factored_search(const FlatTerms *f, const int64_t *c, unsigned mask, int64_t divisor, FactoredMemo *memo,
                            size_t *single, size_t *sum) {
  *single = *sum = SIZE_MAX;
  int64_t tried[FLAT_MAX_TERMS * FLAT_MAX_TERMS];
  int ntried = 0;
  FOR_EACH_TERM(i, mask) {
    FOR_EACH_TERM(j, mask & ~((2u << i) - 1)) { /* the pairs i < j in term order */
      int64_t g = poly_gcd(c[i], c[j]);
      bool seen = g <= 1;
      for (int k = 0; k < ntried && !seen; k++) seen = tried[k] == g;
      if (seen) continue;
      tried[ntried++] = g;
      /* the terms g divides (i and j among them, so two or more) over g;
       * only those are read below (divided, in) */
      int64_t divided[FLAT_MAX_TERMS];
      unsigned in = 0;
      FOR_EACH_TERM(k, mask)
        if (c[k] % g == 0) divided[k] = c[k] / g, in |= 1u << k;
      /* their form as the left operand of '*': a sum (the flat one, or
       * one with a group) in parentheses, a group alone as it is */
      size_t inner_single, inner_sum, inner_flat = flat_length(f, divided, in) + 2;
      factored(f, divided, in, divisor * g, memo, &inner_single, &inner_sum);
      size_t operand = inner_sum == SIZE_MAX ? inner_flat : (inner_sum + 2 < inner_flat ? inner_sum + 2 : inner_flat);
      if (inner_single < operand) operand = inner_single;
      size_t group = operand + 1 + digits(g);
      unsigned rest = mask & ~in;
      if (!rest) {
        if (group < *single) *single = group;
      } else {
        size_t with_rest = least(f, c, rest, divisor, memo) + 3 + group;
        if (with_rest < *sum) *sum = with_rest;
      }
    }
  }
}

static void factored(const FlatTerms *f, const int64_t *c, unsigned mask, int64_t divisor, FactoredMemo *memo,
                     size_t *single, size_t *sum) {
  if (!(mask & (mask - 1))) { /* one term: no pair, no group */
    *single = *sum = SIZE_MAX;
    return;
  }
  for (int e = 0; e < memo->used; e++) {
    const FactoredEntry *m = &memo->e[e];
    if (m->mask == mask && m->divisor == divisor) {
      *single = m->single, *sum = m->sum;
      return;
    }
  }
  factored_search(f, c, mask, divisor, memo, single, sum);
  if (memo->used < FACTORED_MEMO_MAX) memo->e[memo->used++] = (FactoredEntry){mask, divisor, *single, *sum};
}

void ix_flat_factored_lengths(int n, const size_t *base, const bool *atoms, const int64_t *c, size_t *single,
                              size_t *sum) {
  FlatTerms f = {.n = n};
  for (int i = 0; i < n; i++) f.base[i] = base[i], f.atoms[i] = atoms[i];
  FactoredMemo memo;
  memo.used = 0; /* the entries are written before they are read */
  factored(&f, c, (1u << n) - 1, 1, &memo, single, sum);
}

/* p's terms as FlatTerms and their coefficients c[]: false where p has
 * a term the search above does not measure so (a fraction, a coefficient
 * not positive, an atom that is not a variable or an expression) or where
 * an atom is in two terms, a factoring of its own */
static bool read_terms(Poly p, FlatTerms *f, int64_t *c) {
  if (p.nterms > FLAT_MAX_TERMS) return false;
  for (int i = 0; i < p.nterms; i++) {
    const PolyTerm *t = &p.terms[i];
    if (t->den != 1 || t->num <= 0) return false;
    c[i] = t->num;
    for (int j = 0; j < t->nfactors; j++) {
      const Ix *a = t->factors[j].atom;
      if (a->kind != IX_VAR && a->kind != IX_EXPR) return false;
      for (int k = 0; k < i; k++)
        for (int l = 0; l < p.terms[k].nfactors; l++)
          if (ix_equal(p.terms[k].factors[l].atom, a)) return false;
    }
  }
  f->n = p.nterms;
  for (int i = 0; i < p.nterms; i++) {
    PolyTerm one = p.terms[i];
    one.num = 1;
    /* one atom to the first power prints as itself (ix_term_part's lone
     * atom of coefficient 1: its length, its parentheses not asked for);
     * a constant's base is never read (term_length: its digits) */
    if (one.nfactors == 1 && one.factors[0].exp == 1) {
      f->base[i] = ((const Ix *)one.factors[0].atom)->length;
    } else {
      f->base[i] = one.nfactors == 0 ? 1 : ix_term_part(&one).length;
    }
    f->atoms[i] = one.nfactors > 0;
  }
  return true;
}

/* a factoring replaces the flat sum only where strictly shorter */
static bool no_factoring_shorter(const FlatTerms *f, const int64_t *c) {
  unsigned all = (1u << f->n) - 1;
  size_t single, sum;
  FactoredMemo memo;
  memo.used = 0; /* the entries are written before they are read */
  factored(f, c, all, 1, &memo, &single, &sum);
  size_t flat = flat_length(f, c, all);
  return single >= flat && sum >= flat;
}

bool ix_flat_is_shortest(Poly p) {
  if (p.nterms < 2 || p.nterms > FLAT_MAX_TERMS) return false;
  FlatTerms f;
  int64_t c[FLAT_MAX_TERMS];
  return read_terms(p, &f, c) && no_factoring_shorter(&f, c);
}

/* the terms of a flat sum e (ix_is_flat_and_shortest): each a product of
 * variables, none twice, and a coefficient > 0 */
enum { FLAT_MAX_FACTORS = 4 };

static bool flat_terms(const Ix *e, PolyTerm *terms, PolyFactor (*factors)[FLAT_MAX_FACTORS], int *n) {
  if (e->kind == IX_ADD) return flat_terms(e->a, terms, factors, n) && flat_terms(e->b, terms, factors, n);
  if (*n == FLAT_MAX_TERMS) return false;
  PolyTerm *t = &terms[*n];
  *t = (PolyTerm){.num = 1, .den = 1, .factors = factors[(*n)++]};
  const Ix *stack[8];
  int top = 0;
  stack[top++] = e;
  while (top > 0) {
    const Ix *f = stack[--top];
    switch (f->kind) {
    case IX_MUL:
      if (top + 2 > (int)(sizeof stack / sizeof stack[0])) return false;
      stack[top++] = f->b;
      stack[top++] = f->a;
      break;
    case IX_CONST:
      if (f->value <= 0 || t->num != 1) return false;
      t->num = f->value;
      break;
    case IX_VAR:
      if (t->nfactors == FLAT_MAX_FACTORS) return false;
      for (int i = 0; i < t->nfactors; i++)
        if (ix_same_name(((const Ix *)t->factors[i].atom)->name, f->name)) return false;
      t->factors[t->nfactors++] = (PolyFactor){.atom = f, .exp = 1};
      break;
    case IX_EXPR:
    case IX_ADD:
    case IX_SUB:
    case IX_DIV:
    case IX_MOD: return false;
    }
  }
  return true;
}

bool ix_is_flat_and_shortest(const Ix *e) {
  if (e->kind == IX_CONST) return true;
  PolyTerm terms[FLAT_MAX_TERMS];
  PolyFactor factors[FLAT_MAX_TERMS][FLAT_MAX_FACTORS];
  int n = 0;
  if (!flat_terms(e, terms, factors, &n)) return false;
  /* one term: its atoms and coefficient, no form shorter */
  if (n == 1) return true;
  /* the constant last, as the canonical order has it; a constant among
   * the others is not the form build gives */
  for (int i = 0; i < n - 1; i++)
    if (terms[i].nfactors == 0) return false;
  return ix_flat_is_shortest((Poly){n, terms});
}

/* ---- the same answer at every constant (an unrolled loop's steps) ----
 *
 * The steps of a loop written out (codegen/unroll_step.c) index with
 * s + k, s one flat sum and k the step's constant: s is read once
 * (ix_flat_sum_read) and asked at each step's k (ix_flat_sum_shortest),
 * once per key of k (ix_flat_constant_key, where the argument is). */
/* s a sum added left to right, each term a variable or a variable times
 * a constant of at least 2 (as term_magnitude makes it), their
 * coefficients strictly decreasing (IxFlatSum.ordered) */
static bool in_build_order(const Ix *s) {
  const Ix *terms[FLAT_MAX_TERMS];
  int n = 0;
  for (; s->kind == IX_ADD; s = s->a) {
    if (n == FLAT_MAX_TERMS - 1) return false;
    terms[n++] = s->b;
  }
  terms[n++] = s;
  int64_t before = INT64_MAX;
  for (int i = n - 1; i >= 0; i--) { /* the first term first */
    const Ix *t = terms[i];
    int64_t c = 1;
    if (t->kind == IX_MUL && t->a->kind == IX_VAR && t->b->kind == IX_CONST && t->b->value >= 2)
      c = t->b->value;
    else if (t->kind != IX_VAR)
      return false;
    if (c >= before) return false;
    before = c;
  }
  return true;
}

void ix_flat_sum_read(const Ix *s, IxFlatSum *sum) {
  memset(sum, 0, sizeof *sum);
  if (!s) return;
  PolyTerm terms[FLAT_MAX_TERMS];
  PolyFactor factors[FLAT_MAX_TERMS][FLAT_MAX_FACTORS];
  int n = 0;
  sum->n = -1;
  if (!flat_terms(s, terms, factors, &n)) return;
  for (int i = 0; i < n; i++)
    if (terms[i].nfactors == 0) return; /* a constant: s + k is not the form build gives */
  FlatTerms f;
  sum->apart = read_terms((Poly){n, terms}, &f, sum->c);
  /* f is filled only where read_terms says yes (ix_flat_sum_shortest
   * reads these only then; copying f's unset bools was undefined) */
  if (sum->apart)
    for (int i = 0; i < n; i++) sum->base[i] = f.base[i], sum->atoms[i] = f.atoms[i];
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n && sum->apart; j++) sum->pair[i][j] = poly_gcd(sum->c[i], sum->c[j]);
  sum->n = n;
  /* build's order (index.c, assemble: compare_for_print's, the degree
   * first, then the magnitude of the coefficient, none equal here, so the
   * atoms' order, which the ranges decide, never does), the constant last:
   * where no factoring is shorter (ix_flat_sum_shortest: the search and
   * its replay find none, index_flat.c's product quotient says why), build
   * adds s's parts, each a variable times its coefficient unless 1
   * (term_magnitude), left to right and then k: s + k as s is made
   * (flat_terms' left-nested sum); and any flat sum of its polynomial
   * prints no shorter than that, so ix_simplify keeps it */
  sum->ordered = sum->apart && n >= 1 && in_build_order(s);
}

/* ix_is_flat_and_shortest(s + k) without s's walk: its terms (flat_terms)
 * and then ix_flat_is_shortest on them and k, as that reads them */
bool ix_flat_sum_shortest(const IxFlatSum *sum, int64_t k) {
  if (k < 0 || sum->n < 0) return false;
  int n = sum->n;
  if (n == 0 || (k == 0 && n == 1)) return true; /* k alone, s's one term alone */
  if (!sum->apart || (k > 0 && n == FLAT_MAX_TERMS)) return false;
  FlatTerms f = {.n = n};
  int64_t c[FLAT_MAX_TERMS];
  for (int i = 0; i < n; i++) f.base[i] = sum->base[i], f.atoms[i] = sum->atoms[i], c[i] = sum->c[i];
  if (k > 0) f.base[n] = 1, f.atoms[n] = false, c[n] = k, f.n++;
  return no_factoring_shorter(&f, c);
}

/* The key of k in s + k: equal keys, the same answer.  The steps of a
 * loop written out (codegen/unroll_step.c) index with s + k, s one flat
 * sum and k the step's constant, so only k changes from step to step.
 * ix_flat_sum_shortest(s, k), k > 0, is s's structure
 * (fixed) and then `factored` on the coefficients c[0..n) of s and k.
 * Every divisor that search divides by, nested groups included, is the
 * gcd of two of the coefficients: the first group's g is, and a nested
 * group's gcd of two coefficients over D is their gcd over D (D divides
 * both), so its divisor D*g is their gcd again.  So what the search reads
 * of k is: k's digits; for each c[i], gcd(c[i], k) and the digits of k
 * over it (k in that group); for each pair of the others, whether their
 * gcd G divides k (k in the group) and the digits of k/G.  Equal keys are
 * the same search, so the same answer.  Where k has no common factor with
 * any c[i], it is in no group (a pair's gcd that divides k divides a
 * c[i] too), so every form of s + k is a form of s and " + k", the flat
 * one too, and the answer is s's whatever k's digits: one key. */
bool ix_flat_constant_key(const IxFlatSum *sum, int64_t k, IxFlatConstantKey *key) {
  int n = sum->n;
  const int64_t *c = sum->c;
  if (n < 0 || n >= FLAT_MAX_TERMS || k < 0 || (n >= 2 && !sum->apart)) return false;
  for (int i = 0; i < n; i++)
    if (c[i] <= 0) return false;
  memset(key, 0, sizeof *key);
  int v = 0;
  key->v[v++] = n;
  /* each gcd(c[i], k) once; the pairs' gcds read with s (ix_flat_sum_read) */
  int64_t with_k[FLAT_MAX_TERMS];
  bool apart_from_k = k > 0;
  for (int i = 0; i < n && k > 0; i++) {
    with_k[i] = poly_gcd(c[i], k);
    apart_from_k &= with_k[i] == 1;
  }
  if (apart_from_k) {
    key->v[v++] = -1;
    return true;
  }
  key->v[v++] = k == 0 ? 0 : (int64_t)digits(k); /* 0: s alone, no constant */
  for (int i = 0; i < n && k > 0; i++) {
    int64_t g = with_k[i];
    key->v[v++] = g;
    key->v[v++] = (int64_t)digits(k / g);
    for (int j = i + 1; j < n; j++) {
      int64_t pair = sum->pair[i][j];
      key->v[v++] = k % pair == 0 ? (int64_t)digits(k / pair) : 0;
    }
  }
  return true;
}

bool ix_flat_constant_apart(const IxFlatSum *sum, int64_t k) {
  int n = sum->n;
  if (n < 0 || n >= FLAT_MAX_TERMS || k <= 0 || (n >= 2 && !sum->apart)) return false;
  for (int i = 0; i < n; i++)
    if (sum->c[i] <= 0 || poly_gcd(sum->c[i], k) != 1) return false;
  return true;
}

/* The key without k's own digits, and those digits (*kdigits): where two
 * constants have one profile, ix_flat_sum_shortest answers for the one
 * with fewer digits what it answers for the other if that is yes, and for
 * the one with more digits what it answers for the other if that is no.
 * The search weighs k's own digits only where k is a term of the top
 * level sum, undivided (a group divides each of its terms, k among them,
 * by its divisor, whose digits of k the profile holds): in the flat sum
 * itself, s + k, and in the forms (a form of s's terms) + k, whose
 * lengths both grow with k's digits alike, so that whether such a form is
 * shorter does not depend on them; any other form has k in a group, and
 * its length is fixed by the profile.  So more digits of k only lengthen
 * the flat sum against the forms with k in a group: the answer (no form
 * strictly shorter) can only turn from yes to no as they grow.  The
 * fields of the key that are digits of k over 1 (a coefficient or a pair
 * with no common factor with k) are k's own digits: the profile marks
 * them, -2. */
bool ix_flat_constant_profile(const IxFlatSum *sum, int64_t k, IxFlatConstantKey *profile, int *kdigits) {
  if (k <= 0 || !ix_flat_constant_key(sum, k, profile)) return false;
  if (profile->v[1] == -1) { /* apart: one answer, s's, whatever k's digits */
    *kdigits = 0;
    return true;
  }
  *kdigits = (int)profile->v[1];
  profile->v[1] = -2;
  int n = sum->n, v = 2;
  for (int i = 0; i < n; i++) {
    int64_t g = profile->v[v++];
    if (g == 1) profile->v[v] = -2;
    v++;
    for (int j = i + 1; j < n; j++, v++)
      if (sum->pair[i][j] == 1) profile->v[v] = -2; /* read with s (ix_flat_sum_read) */
  }
  return true;
}

/* ---- the search replayed on integers (build's grouped offsets) ----
 *
 * Where ix_flat_is_shortest says no, build searches (index.c,
 * search_parts) afresh for offsets like (wg*128 + lid)*1024 + i, each a
 * new polynomial (issue 35).  On terms read_terms accepts, no atom is in
 * two terms (nor in two of any subset), so the search tries constant
 * factors only, at every level: each g the gcd of two coefficients, pairs
 * in term order, a g tried once; the candidate is the best form of the
 * rest, " + ", and the best form of the terms g divides, over g, in
 * parentheses (a sum) times g; it replaces the best so far only when
 * strictly shorter (constant factors win no ties).  Every length is the
 * terms' (term_length), operators and parentheses, so the search is
 * replayed here on integers, trial by trial and in its order, counting
 * its trials: where it would try more than its budget (it stops there,
 * keeping what it had) the replay gives up. */
typedef struct Replay {
  const FlatTerms *f;
  int trials, budget;
} Replay;

/* the length of the form search_parts keeps for the terms in mask (two
 * or more, coefficients c), *chosen its group's factor (0: the flat sum)
 * and *alone whether that group is the whole form (nothing else added) */
static size_t replay(Replay *r, const int64_t *c, unsigned mask, int64_t *chosen, bool *alone) {
  *chosen = 0;
  *alone = false;
  int terms[FLAT_MAX_TERMS], n = 0; /* those in mask */
  for (int k = 0; k < r->f->n; k++)
    if (mask & (1u << k)) terms[n++] = k;
  if (n == 1) return term_length(r->f, terms[0], c[terms[0]]);
  size_t best = flat_length(r->f, c, mask);
  int64_t tried[FLAT_MAX_TERMS * FLAT_MAX_TERMS];
  int ntried = 0;
  for (int a = 0; a < n; a++) {
    for (int b = a + 1; b < n; b++) {
      int64_t g = poly_gcd(c[terms[a]], c[terms[b]]);
      bool seen = g <= 1;
      for (int k = 0; k < ntried && !seen; k++) seen = tried[k] == g;
      if (seen) continue;
      tried[ntried++] = g;
      if (++r->trials > r->budget) return best; /* the search ran out here */
      int64_t divided[FLAT_MAX_TERMS];
      unsigned in = 0;
      for (int k = 0; k < n; k++)
        if (c[terms[k]] % g == 0) divided[terms[k]] = c[terms[k]] / g, in |= 1u << terms[k];
      int64_t inner_chosen, rest_chosen;
      bool inner_alone, rest_alone;
      size_t inner = replay(r, divided, in, &inner_chosen, &inner_alone);
      /* a group alone is a product, left of '*' without parentheses */
      size_t group = inner + (inner_alone ? 0 : 2) + 1 + digits(g);
      unsigned rest = mask & ~in;
      /* the rest: one term (its flat part) or a sum searched */
      size_t length = !rest ? group : replay(r, c, rest, &rest_chosen, &rest_alone) + 3 + group;
      if (length < best) best = length, *chosen = g, *alone = !rest;
    }
  }
  return best;
}

bool ix_flat_search_choice(Poly p, int budget, int64_t *g) {
  *g = 0;
  if (p.nterms < 2 || p.nterms > FLAT_MAX_TERMS) return false;
  FlatTerms f;
  int64_t c[FLAT_MAX_TERMS];
  if (!read_terms(p, &f, c)) return false;
  Replay r = {&f, 0, budget};
  bool alone;
  replay(&r, c, (1u << f.n) - 1, g, &alone);
  if (r.trials <= budget) return true;
  /* the search stopped early: it keeps the flat sum where nothing is
   * strictly shorter, whatever it tried */
  *g = 0;
  return no_factoring_shorter(&f, c);
}

/* ---- a vector's offset: the element index read once ----
 *
 * ix_exact_quotient (index.c) weighs build(q), q = p/k (every coefficient
 * of p a multiple of k), against p's flat sum.  q's terms are p's with
 * their coefficients over k: the same atoms (a division by a constant
 * leaves them), so the same parts with coefficient 1, positive where p's
 * are, and no atom of two terms where p has none.  read_terms takes one
 * exactly where it takes the other, with the same FlatTerms, so p's terms
 * are read once for both: p's flat length (term_length, as
 * ix_flat_is_shortest counts it) and ix_flat_search_choice(q) on c[]/k. */
bool ix_flat_quotient_choice(Poly p, int64_t k, int budget, size_t *flat, bool *chosen, int64_t *g) {
  *g = 0;
  *chosen = false;
  if (k < 1 || p.nterms < 2 || p.nterms > FLAT_MAX_TERMS) return false;
  FlatTerms f;
  int64_t c[FLAT_MAX_TERMS], over_k[FLAT_MAX_TERMS];
  if (!read_terms(p, &f, c)) return false;
  unsigned all = (1u << f.n) - 1;
  *flat = flat_length(&f, c, all);
  for (int i = 0; i < f.n; i++) {
    if (c[i] % k != 0) return false; /* not p/k: the caller's to rule out */
    over_k[i] = c[i] / k;
  }
  Replay r = {&f, 0, budget};
  bool alone;
  replay(&r, over_k, all, g, &alone);
  if (r.trials <= budget) {
    *chosen = true;
    return true;
  }
  *g = 0; /* as ix_flat_search_choice, where the search stopped early */
  *chosen = no_factoring_shorter(&f, over_k);
  return true;
}

/* no two of p's coefficients with a common factor the search would try
 * (index.c, nothing_to_search) */
bool ix_coprime_coefficients(Poly p) {
  for (int i = 0; i < p.nterms; i++)
    for (int j = i + 1; j < p.nterms; j++)
      if (p.terms[i].num != INT64_MIN && p.terms[j].num != INT64_MIN && poly_gcd(p.terms[i].num, p.terms[j].num) > 1)
        return false;
  return true;
}

/* ---- a vector's offset where the element index is its quotient times k ----
 *
 * A vector's element index is first = i*k (codegen/access.c, asVector),
 * and its vector index i is most often a flat sum already, variables times
 * coefficients of decreasing magnitude and a constant last: a size's index
 * (index_size.c writes a polynomial's terms in its order, each an atom
 * then its coefficient) or a split's i*n + j of such sums (wg*4096 +
 * (lid*64 + i), printed wg*4096 + lid*64 + i).  exact_quotient (index.c)
 * reads p = to_poly(i*k), p's terms i's times k (ix_linear_terms: within
 * its bounds, checked here, no coefficient leaves them), divides them back
 * by k to i's polynomial q and builds q: its flat sum where no factoring
 * of q prints strictly shorter, which no_factoring_shorter tells (its
 * least lengths bound the search's and the replay's candidates from below,
 * so neither finds one shorter, within its budget or past it).  That flat
 * sum adds q's parts left to right (assemble) in compare_for_print's
 * order: the atom terms by the magnitude of their coefficients, none
 * equal here (so the order of atoms, which the ranges decide, never
 * does), the constant last; each part a variable, times its coefficient
 * unless 1 (term_magnitude): i's own terms, in i's order, added left to
 * right (i itself where its sums nest so).  exact_quotient then keeps it
 * where its length passes the first of its tests, made here on the same
 * integers (p's flat length, flat_length on p's coefficients;
 * shortest_bound: the operators, each atom once, the most digits of one
 * coefficient and a group's parentheses and '*'); where it does not, the
 * caller goes the long way, which also weighs p's own flat form.  NULL:
 * not told so.  (issue 35: the long way was the dearest part of a vector
 * read's address, about 3,500 instructions; tests/unit/test_index_flat.c
 * compares the two.) */
#define PRODUCT_MAX_COEFFICIENT ((int64_t)1 << 40) /* ix_linear_terms' bound on a path's product */

/* the terms of the sum e, in the order it prints them (each operand of a
 * '+' left to right, whatever the nesting) into terms[*n ..], and whether
 * every '+' is left of its parent's (the form assemble makes); false past
 * FLAT_MAX_TERMS */
static bool sum_terms(const Ix *e, const Ix **terms, int *n, bool *left_nested) {
  if (e->kind != IX_ADD) {
    if (*n == FLAT_MAX_TERMS) return false;
    terms[(*n)++] = e;
    return true;
  }
  if (e->b->kind == IX_ADD) *left_nested = false;
  return sum_terms(e->a, terms, n, left_nested) && sum_terms(e->b, terms, n, left_nested);
}

/* A sum in build's flat form, read (for both questions below): its terms
 * in the order it prints them into terms[], each a variable, times a
 * coefficient of at least 2 or not, the magnitudes strictly decreasing,
 * no variable twice, then a constant > 0 or none, every coefficient and the
 * constant times `times` within ix_linear_terms' bound; their FlatTerms and
 * coefficients; false where q is no such sum */
typedef struct OrderedSum {
  int n;
  bool left_nested;
  const Ix *terms[FLAT_MAX_TERMS];
  FlatTerms f;
  int64_t c[FLAT_MAX_TERMS];
  size_t atoms; /* the variables' lengths */
} OrderedSum;

static bool read_ordered_sum(const Ix *q, int64_t times, OrderedSum *o) {
  o->n = 0;
  o->left_nested = true;
  if (!sum_terms(q, o->terms, &o->n, &o->left_nested) || o->n < 2) return false;
  int n = o->n;
  o->f.n = n;
  o->atoms = 0;
  Sym names[FLAT_MAX_TERMS];
  for (int i = 0; i < n; i++) {
    const Ix *t = o->terms[i], *v = t;
    int64_t c = 1;
    if (t->kind == IX_MUL && t->a->kind == IX_VAR && t->b->kind == IX_CONST && t->b->value >= 2)
      v = t->a, c = t->b->value;
    if (v->kind == IX_CONST) {
      if (i != n - 1 || v->value <= 0) return false; /* the constant last */
      c = v->value;
      o->f.atoms[i] = false;
      o->f.base[i] = 1; /* never read (term_length: its digits) */
    } else if (v->kind == IX_VAR) {
      if (i > 0 && c >= o->c[i - 1]) return false; /* magnitudes decreasing: no tie */
      for (int j = 0; j < i; j++)
        if (names[j] == v->name || ix_same_name(names[j], v->name)) return false;
      names[i] = v->name;
      o->f.atoms[i] = true;
      o->f.base[i] = v->length;
      o->atoms += v->length;
    } else {
      return false;
    }
    if (c > PRODUCT_MAX_COEFFICIENT / times) return false;
    o->c[i] = c;
  }
  return true;
}

/* the sum's terms added left to right (its length and text are the same
 * however its sums nest: a sum right of " + " needs no parentheses) */
static const Ix *added_left_to_right(IxCtx *x, const Ix *q, const OrderedSum *o) {
  if (o->left_nested) return q;
  const Ix *sum = o->terms[0];
  for (int i = 1; i < o->n; i++) sum = ix_node(x, IX_ADD, sum, o->terms[i]);
  return sum;
}

const Ix *ix_flat_product_quotient(IxCtx *x, const Ix *at, int64_t k) {
  if (at->kind != IX_MUL || at->b->kind != IX_CONST || at->b->value != k || k < 2) return NULL;
  const Ix *q = at->a;
  OrderedSum o;
  if (!read_ordered_sum(q, k, &o) || !no_factoring_shorter(&o.f, o.c)) return NULL;
  int n = o.n;
  int64_t over[FLAT_MAX_TERMS]; /* p's coefficients */
  size_t most_digits = 0;
  for (int i = 0; i < n; i++) {
    over[i] = o.c[i] * k;
    size_t d = digits(over[i]);
    if (d > most_digits) most_digits = d;
  }
  unsigned all = (1u << n) - 1;
  size_t flat = flat_length(&o.f, over, all), grouped = 3 * (size_t)(n - 1) + o.atoms + most_digits + 3;
  size_t bound = grouped < flat ? grouped : flat;
  if (at->length < bound) bound = at->length;
  if (q->length > bound + 1 + digits(k)) return NULL;
  return added_left_to_right(x, q, &o);
}

/* ix_simplify(x, e) where e is a sum in build's flat form (read_ordered_sum,
 * any nesting) with no factoring strictly shorter: to_poly reads e's terms
 * (ix_linear_terms, within its bounds), and build gives their flat sum
 * for the reasons the product quotient's above gives, e's own terms added
 * left to right, which prints as long as e (so ix_simplify keeps it): a
 * scalar read's element index, a split's wg*4096 + (lid*64 + i) (issue
 * 35).  NULL where not told so. */
const Ix *ix_flat_sum_form(IxCtx *x, const Ix *e) {
  OrderedSum o;
  if (e->kind != IX_ADD || !read_ordered_sum(e, 1, &o) || !no_factoring_shorter(&o.f, o.c)) return NULL;
  return added_left_to_right(x, e, &o);
}
