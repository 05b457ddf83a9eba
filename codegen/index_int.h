/* index_int.h: what index.c and index_print.c share. */
#ifndef DPIA_INDEX_INT_H
#define DPIA_INDEX_INT_H

#include "index.h"
#include "memo.h"

#include <stdint.h>

/* record e's printed length and structural hash (index_print.c); every
 * constructor calls it on the node it makes */
void ix_seal(Ix *e);

/* A part of a sum as the simplifier prints it (index.c: assemble adds
 * the parts in order, the added ones first; a negative part is
 * subtracted, or subtracted from 0 when all are).  The search for the
 * shortest form weighs many sums and keeps one, so a part's magnitude is
 * made only when its sum is: a term of the flat form has its length
 * counted without it (ix_term_part). */
typedef struct IxPart {
  const Ix *magnitude; /* NULL: first's, not made yet (index.c, term_magnitude) */
  bool negative;
  const PolyTerm *first; /* its leading term, for the order of parts */
  size_t length;         /* the magnitude's printed length */
  /* the magnitude needs parentheses right of +, right of - */
  bool parens_add, parens_sub;
} IxPart;
/* the term t as a part: term_magnitude(t), its atoms then its
 * coefficient's magnitude unless it is 1, not made */
IxPart ix_term_part(const PolyTerm *t);
/* a part whose magnitude is made: a group g*(...) */
IxPart ix_group_part(const Ix *group, bool negative, const PolyTerm *first);
/* the printed length of the sum of parts[0, n) into *length; false where
 * it depends on their order, which it leaves to the caller */
bool ix_parts_length(const IxPart *parts, int n, size_t *length);
/* p's flat sum is the form build(p) gives (index.c), told without the
 * search: no atom of two terms, integral positive coefficients, and no
 * factoring by a common factor of two coefficients, nested, prints
 * strictly shorter (index_flat.c); false also where it cannot tell */
bool ix_flat_is_shortest(Poly p);
/* the factor of the group build(p) (index.c) adds to the rest, where
 * index_flat.c can replay its search on integers (ix_flat_is_shortest's
 * terms, and the search within `budget` trials): true with *g = 0 for
 * the flat sum; false where it cannot tell */
bool ix_flat_search_choice(Poly p, int budget, int64_t *g);
/* p's flat length into *flat and ix_flat_search_choice(p/k, budget, g)
 * into *chosen and *g, p's terms read once (a vector's offset, index.c:
 * ix_exact_quotient); false where read_terms takes none of them (or a
 * coefficient is no multiple of k), *flat then unset */
bool ix_flat_quotient_choice(Poly p, int64_t k, int budget, size_t *flat, bool *chosen, int64_t *g);
/* the least lengths of the factored forms of all n terms (index_flat.c,
 * factored: *single a group alone, *sum the rest plus a group, SIZE_MAX
 * where none), terms of flat parts base[] (coefficient 1), atoms[] whether
 * a term has atoms, coefficients c[] > 0, 2 <= n <= 6: its memo and pruning
 * against the plain recursion (tests/unit/test_index_flat.c) */
void ix_flat_factored_lengths(int n, const size_t *base, const bool *atoms, const int64_t *c, size_t *single,
                              size_t *sum);
/* exact_quotient(x, at, k) (index.c) where at is q*k, q a flat sum in the
 * flat sum of build's order, no factoring of it shorter: q's terms added
 * left to right, told from at's nodes (index_flat.c); NULL where it
 * cannot tell so */
const Ix *ix_flat_product_quotient(IxCtx *x, const Ix *at, int64_t k);
/* ix_simplify(x, e) where e is such a flat sum itself (index_flat.c); NULL
 * where not told so */
const Ix *ix_flat_sum_form(IxCtx *x, const Ix *e);
/* no two of p's coefficients with a common factor > 1 (index.c's search tries none) */
bool ix_coprime_coefficients(Poly p);
/* build(to_poly(e)) (index.c), by the search alone where !shortcuts (what
 * index_flat.c's answers must agree with: tests/unit/test_index.c) */
const Ix *ix_build_form(IxCtx *x, const Ix *e, bool shortcuts);
/* ix_exact_quotient(e, k) (index.c) uncached, with index_flat.c's
 * reading of the element index once where shortcuts, by the flat sum's
 * parts and build's own replay where not (what the first must agree with:
 * tests/unit/test_index_flat.c) */
const Ix *ix_exact_quotient_form(IxCtx *x, const Ix *at, int64_t k, bool shortcuts);
/* a name's hash, by its text (not its address: deterministic) */
uint64_t ix_name_hash(Sym name);
/* the text of an expression atom (IX_EXPR), through the printer given */
void ix_print_atom(Buf *out, const KirExpr *e, IxExprPrinter print_expr);

/* index_build.c, for the simplifier (index.c): a node of two operands,
 * sealed; the index a dependent map's row stands for (NULL: v is none);
 * C's truncating division or remainder of constants, false where C leaves
 * it undefined; two names equal as text */
const Ix *ix_node(IxCtx *x, IxKind kind, const Ix *a, const Ix *b);
const Ix *ix_row_index(const IxCtx *x, Sym v);
bool ix_fold_division(IxKind kind, int64_t a, int64_t b, int64_t *out);
bool ix_same_name(Sym a, Sym b);

/* index_linear.c: e as a sum of its atoms (variables, expression atoms)
 * times integer coefficients and a constant: the terms of its polynomial
 * into *terms, in the arena, in any order and with an atom met twice in
 * two terms (poly_normalise sorts and merges them), and their number; -1
 * where e is no such sum (a quotient, a remainder, a product of two
 * non-constants or by 0) or leaves its bounds: more than
 * IX_LINEAR_TERMS leaves, or a leaf whose constants on the way multiply
 * beyond 2^40 in magnitude.  Within them, no sum of the leaves' terms
 * leaves int64, nor does any coefficient of the polynomials of e's
 * subexpressions (each a sum of some leaves' terms by the constants
 * below the subexpression, which are at most those from the top, none
 * 0), so to_poly's arithmetic overflows nowhere on e and its polynomial
 * is the canonical form of these terms (poly.h). */
enum { IX_LINEAR_TERMS = 32 };
int ix_linear_terms(Arena *a, const Ix *e, PolyTerm **terms);

/* index_size.c: the index expression of a size, made anew (ix_from_size
 * keeps it for the next equal size) */
const Ix *ix_size_ix(IxCtx *x, Size s);

/* the index memo (index.c says what it keeps and why) */
enum { IX_RECENT_SIZES = 64 };
struct IxMemo {
  MemoTable simplified; /* Ix -> Ix */
  MemoTable polys;      /* Ix -> Poly */
  MemoTable parts;      /* Poly -> BestParts */
  MemoTable sizes;      /* Size -> Ix (scope 0: no range matters; index_size.c) */
  MemoTable steps;      /* (at0, at, lane) -> ix_steps_by_lane's answer */
  MemoTable quotients;  /* at -> ix_exact_quotient's answer (its k in cost) */
  /* the sizes last asked for by the address of their terms: most are the
   * very sizes of the types, asked for again at each access (hashing a
   * size hashes its variables' names); direct-mapped, a lost entry is
   * found in `sizes` */
  struct {
    const SizeTerm *terms;
    int nterms;
    const Ix *value;
  } recent[IX_RECENT_SIZES];
};

static inline IxMemo *memo_of(IxCtx *x) {
  if (!x->memo) x->memo = NEW(x->arena, IxMemo); /* zeroed: empty tables */
  return x->memo;
}

/* a polynomial's structural hash, its atoms hashed by atom_hash (the
 * memo's keys: index.c's printed forms, index_size.c's sizes) */
static inline uint64_t ix_poly_hash(Poly p, uint64_t (*atom_hash)(PolyAtom a)) {
  uint64_t h = hash_mix(0, (uint64_t)p.nterms);
  for (int i = 0; i < p.nterms; i++) {
    const PolyTerm *t = &p.terms[i];
    h = hash_mix(hash_mix(h, (uint64_t)t->num), (uint64_t)t->den);
    for (int j = 0; j < t->nfactors; j++) {
      h = hash_mix(hash_mix(h, atom_hash(t->factors[j].atom)), (uint64_t)t->factors[j].exp);
    }
  }
  return h;
}

#endif
