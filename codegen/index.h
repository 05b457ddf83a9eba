/* index.h: integer index expressions of generated code, and their
 * simplification with the ranges of loop variables (spec section 8, paper
 * Figure 6 and section 6.3).
 *
 * Ix nodes are immutable and arena-allocated; structural equality is
 * ix_equal (equal nodes need not be the same node).  Constructors fold constants
 * and apply only rewrites valid for C's truncating `/` and `%` on the
 * values the variables can take (all variables here are non-negative:
 * loop counters, work-item ids, nat parameters). */
#ifndef DPIA_INDEX_H
#define DPIA_INDEX_H

#include "dpia_front.h"

/* the kernel IR's expressions (kir.h, which includes this header) */
typedef struct KirExpr KirExpr;

/* An IX_EXPR atom is one the simplifier does not see into: a clamped
 * index (clamp, min, max), an index read from data (a gather), a quotient
 * a precondition makes exact, (N/16). */
#define DPIA_IX_KINDS(X)                                                                                               \
  X(CONST) /* value */                                                                                                 \
  X(VAR)   /* name: a loop variable or nat parameter */                                                                \
  X(EXPR)  /* expr: an opaque atom (above) */                                                                          \
  X(ADD)   /* a + b */                                                                                                 \
  X(SUB)   /* a - b */                                                                                                 \
  X(MUL)   /* a * b */                                                                                                 \
  X(DIV)   /* a / b  (C truncating division) */                                                                        \
  X(MOD)   /* a % b  (C remainder) */

typedef enum IxKind {
#define X(id) IX_##id,
  DPIA_IX_KINDS(X)
#undef X
} IxKind;

typedef struct Ix Ix;
struct Ix {
  IxKind kind;
  int64_t value; /* IX_CONST */
  Sym name;      /* IX_VAR */
  /* IX_EXPR: the expression, equal atoms kir_expr_equal; width: the
   * length of its text, which the simplifier weighs when it picks the
   * shortest of equal forms */
  const KirExpr *expr;
  size_t width;
  const Ix *a, *b;
  /* set by the constructor, for the simplifier's search and memo: length,
   * the characters ix_print gives (the shortest form is chosen by it);
   * hash, a structural hash (ix_equal nodes have equal hashes);
   * divides, whether it has an IX_DIV or IX_MOD node;
   * exprs, whether it has an IX_EXPR node (the passes that look at an
   * index's expression atoms only, partition.c, kir.c's check, dead.c,
   * pass over a tree of none: most are);
   * precedence, its binding strength in C (index_print.c: 0 a negative
   * constant, 1 a sum, 2 a product, 3 an atom) and starts_quotient,
   * whether it prints starting with a bare quotient (x/4*i): what its
   * parents' parentheses ask of it, kept so that sealing and printing a
   * parent asks no walk (translation throughput, issue 35) */
  size_t length;
  uint64_t hash;
  bool divides;
  bool exprs;
  uint8_t precedence;
  bool starts_quotient;
};

/* What is known about an atom (a variable or an IX_EXPR): lo <= v < hi
 * (hi NULL: unbounded above).  Every atom is at least 0. */
typedef struct IxRange {
  const Ix *atom;
  Sym var;        /* atom's name when it is an IX_VAR (range_of's fast path), else NULL */
  const Ix *lo;   /* NULL means 0 */
  const Ix *hi;   /* exclusive; NULL if unknown */
  uint64_t scope; /* the ranges down to this one (IxCtx.scope) */
} IxRange;

/* How the target prints an expression (a Backend's print_expr). */
typedef void (*IxExprPrinter)(Buf *out, const KirExpr *e);

/* what the simplifier keeps from one simplification for the next, by
 * input and scope (index.c) */
typedef struct IxMemo IxMemo;

typedef struct IxCtx {
  Arena *arena;
  int nranges, cap;
  IxRange *ranges; /* a stack: push when entering a loop, pop when leaving */
  IxExprPrinter print_expr; /* the width of an IX_EXPR atom (NULL: none is made) */
  /* The ranges pushed now, as a number: each push makes a new one (from
   * scopes, the count so far), each pop goes back to the one before; 0
   * with no range.  A simplification depends on its input and the ranges,
   * so memo keeps results by input and scope. */
  uint64_t scope, scopes;
  IxMemo *memo;
  /* the rows of the dependent maps whose loops enclose the code being
   * generated (docs/language.md section 30): row[k] is the size variable
   * the loop's index is (Phrase.dep_index), row_ix[k] that index; a stack,
   * innermost last.  ix_from_size writes a row as its index. */
  int nrows, row_cap;
  Sym *row;
  const Ix **row_ix;
  /* the constants, variables and operator nodes made last, direct-mapped
   * by value, by name (its pointer) and by operator and operands, kept
   * apart so that a context that makes no node does not clear them: a node
   * is immutable once sealed, so an equal one asked for again is the one
   * made before, not a new one sealed again (translation throughput: a
   * loop variant's accesses ask for the same sizes, strides, loop indices
   * and sums dozens of times, the two reads of a zip all of them twice) */
  struct IxRecentLeaves *recent; /* made at the first leaf (index_build.c) */
  /* every polynomial made node by node, none of a sum of atoms times
   * constants read in one walk (index.c, to_poly), and no simplified form
   * told from an index's nodes (a variable's, a flat sum's in build's
   * order: index_flat.c, ix_flat_sum_form): the general way, which those
   * must agree with (tests/unit/test_index.c) */
  bool general_polys;
} IxCtx;

void ix_init(IxCtx *x, Arena *a);
/* atom: an IX_VAR or IX_EXPR */
void ix_push_range(IxCtx *x, const Ix *atom, const Ix *lo, const Ix *hi);
void ix_pop_range(IxCtx *x);
/* inside a dependent map's loop: its row's size variable is index */
void ix_push_row(IxCtx *x, Sym row, const Ix *index);
void ix_pop_row(IxCtx *x);

const Ix *ix_const(IxCtx *x, int64_t v);
const Ix *ix_var(IxCtx *x, Sym name);
/* an atom computed by e, a non-negative int (x->print_expr set) */
const Ix *ix_expr(IxCtx *x, const KirExpr *e);
const Ix *ix_add(IxCtx *x, const Ix *a, const Ix *b);
const Ix *ix_sub(IxCtx *x, const Ix *a, const Ix *b);
const Ix *ix_mul(IxCtx *x, const Ix *a, const Ix *b);
const Ix *ix_div(IxCtx *x, const Ix *a, const Ix *b);
const Ix *ix_mod(IxCtx *x, const Ix *a, const Ix *b);
/* a size (size.h) as an index expression over the nat parameters; exact
 * divisions print as `/` (the preconditions make them exact) */
const Ix *ix_from_size(IxCtx *x, Size s);

/* Simplify with the ranges currently pushed: (i*2048 + j)/2048 -> i and
 * (i*2048 + j)%2048 -> j when 0 <= j < 2048; x % n -> x when 0 <= x < n;
 * x / n -> 0 likewise; symbolic bounds too ((i*M + j)/M -> i when
 * 0 <= j < M).  Never changes the value for any values the variables can
 * take.  An input equal to one simplified before under the same ranges
 * gets the same result, not computed again. */
const Ix *ix_simplify(IxCtx *x, const Ix *e);
/* ix_simplify(x, e) is the constant d (ix_const_value), decided from e's
 * polynomial without building a form that is not constant: the lanes of a
 * vector access are compared this way, lane l's index minus lane 0's
 * (codegen/access.c). */
bool ix_simplifies_to(IxCtx *x, const Ix *e, int64_t d);
/* For every 0 < l < k <= 100, ix_simplifies_to(x, ix_sub(x,
 * ix_simplify(x, at[l]), ix_simplify(x, at[0])), l), told from the
 * polynomials of at[] without building any simplified form: true only
 * where that holds; false also where the polynomials cannot tell (the
 * caller then simplifies). */
bool ix_steps_before_simplify(IxCtx *x, const Ix *const *at, int k);
/* at, an index with the variable lane in it, is at0 + lane for every
 * value lane may take (any at least 0, or those of a range pushed for
 * it), told from the polynomials of at0 and at as
 * ix_steps_before_simplify: false also where they cannot tell.  The lanes of a vector access probed once, lane a variable
 * (codegen/access.c). */
bool ix_steps_by_lane(IxCtx *x, const Ix *at0, const Ix *at, const Ix *lane);
/* e is a sum of its atoms times constants within the bounds of
 * index_linear.c (index_int.h, ix_linear_terms): its polynomial has plain
 * atoms and leaves no bound of the core when a term is added to it, so
 * ix_steps_by_lane(x, e, ix_add(x, e, lane), lane) holds for any lane
 * variable (tests/unit/test_index.c checks it) */
bool ix_linear(const Ix *e);

/* ix_simplify(x, ix_mod(x, e, ix_const(x, k))) is 0, k > 0, told from
 * e's polynomial without simplifying the remainder: every coefficient an
 * integral multiple of k, which the simplifier takes out as a common
 * factor, leaving a remainder by 1.  False also where it cannot tell so
 * (the caller then simplifies): a vloadn's offset (codegen/access.c). */
bool ix_multiple_of(IxCtx *x, const Ix *e, int64_t k);

/* ix_simplify(x, ix_div(x, ix_simplify(x, at), ix_const(x, k))), where
 * ix_multiple_of(x, ix_simplify(x, at), k), for k >= 2, found without
 * simplifying at: NULL where that cannot be told so (the caller then
 * simplifies at and divides).  A vloadn's offset in vectors from its
 * first element's index (codegen/access.c, vector_address). */
const Ix *ix_exact_quotient(IxCtx *x, const Ix *at, int64_t k);

/* e is a constant, or a sum of products of variables with positive
 * coefficients, no variable in two terms nor twice in one, its constant
 * last, and no other form of its polynomial prints shorter
 * (index_flat.c): what ix_simplify gives for any index of that
 * polynomial with no quotient nor atom it does not see into, however
 * written (a form of the same length is not kept over the flat one).
 * false also where it cannot tell.  An unrolled step's index, copied from
 * the step a variable (codegen/unroll_step.c). */
bool ix_is_flat_and_shortest(const Ix *e);

/* A flat sum s with no constant term read once, for
 * ix_is_flat_and_shortest(s + k) at many constants k (s alone at 0, k
 * alone where s is NULL): an unrolled loop's steps, s + k at every step
 * (codegen/unroll_step.c). */
typedef struct IxFlatSum {
  int n;      /* its terms; -1: not a flat sum of products of variables with no constant term */
  bool apart; /* no variable in two terms */
  int64_t c[6];
  size_t base[6];
  bool atoms[6];
  /* gcd(c[i], c[j]) for i < j at pair[i][j]: the same at every constant
   * (ix_flat_constant_key asks them at each step) */
  int64_t pair[6][6];
  /* at least one term, each one variable (times its coefficient), no two
   * alike, coefficients strictly decreasing: s + k in the order build adds
   * its parts (index_flat.c says why), so that ix_simplify gives s + k
   * itself, node for node, for any index of its polynomial written as a
   * flat sum, wherever ix_flat_sum_shortest(s, k), k > 0 */
  bool ordered;
} IxFlatSum;
void ix_flat_sum_read(const Ix *s, IxFlatSum *sum);
/* ix_is_flat_and_shortest(s + k), k >= 0 (index_flat.c) */
bool ix_flat_sum_shortest(const IxFlatSum *sum, int64_t k);
/* What ix_flat_sum_shortest(sum, k) reads of k: two constants of equal
 * keys have the same answer (index_flat.c); false where it makes no key */
typedef struct IxFlatConstantKey {
  int64_t v[24];
} IxFlatConstantKey;
bool ix_flat_constant_key(const IxFlatSum *sum, int64_t k, IxFlatConstantKey *key);
/* ix_flat_constant_key(sum, k) is the key of every k with no common
 * factor with any of s's coefficients (k > 0), whose answer is s's own
 * (index_flat.c), told without making the key */
bool ix_flat_constant_apart(const IxFlatSum *sum, int64_t k);
/* the key of k > 0 but for k's own digits (*kdigits): for two constants
 * of one profile, ix_flat_sum_shortest's yes for the one of more digits is
 * the other's too, and its no for the one of fewer digits (index_flat.c) */
bool ix_flat_constant_profile(const IxFlatSum *sum, int64_t k, IxFlatConstantKey *profile, int *kdigits);
/* does the answer for a constant of kdigits follow from answer, the one
 * for a constant of the same profile and answer_digits digits? */
static inline bool ix_flat_profile_tells(bool answer, int answer_digits, int kdigits) {
  return answer ? answer_digits >= kdigits : answer_digits <= kdigits;
}

/* Bounds: true and *out if e is provably < bound / >= 0 etc. */
bool ix_provably_less(IxCtx *x, const Ix *e, const Ix *bound);
/* min(a, b) (max false) or max(a, b) decided from the polynomials and the
 * ranges pushed: a where a <= b for every value (a >= b for max), b where
 * b <= a, so a where they are equal (min(N, N) is N, max(i*4, 0) is i*4,
 * min(N + 1019, N) is N); NULL where neither holds for every value (the
 * caller writes the built-in). */
const Ix *ix_min_max(IxCtx *x, bool max, const Ix *a, const Ix *b);
bool ix_equal(const Ix *a, const Ix *b);
/* a structural total order (0: ix_equal) */
int ix_compare(const Ix *a, const Ix *b);
bool ix_const_value(const Ix *e, int64_t *v);

/* C syntax with the fewest parentheses: i*2048 + j, (i + 1)*n, x/(2*n);
 * IX_EXPR atoms through print_expr, in parentheses unless postfix
 * expressions (kir_prec). */
void ix_print(Buf *out, const Ix *e, IxExprPrinter print_expr);
/* ix_print(e) where e is a + k, k >= 0 a constant, and a_text (a_len
 * characters) is ix_print(a): a's text, " + " and k's digits, written
 * without walking a (the steps of a run print s + k for one s: backend_c.c,
 * print_run).  false, nothing written, where e is not such a sum of a. */
bool ix_print_plus_constant(Buf *out, const Ix *e, const Ix *a, const char *a_text, size_t a_len);

#endif
