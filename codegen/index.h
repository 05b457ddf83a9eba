/* index.h: integer index expressions of generated code, and their
 * simplification with the ranges of loop variables (spec section 8, paper
 * Figure 6 and section 6.3).
 *
 * Ix nodes are immutable, arena-allocated and hash-consed per IxCtx is NOT
 * required; structural equality is ix_equal.  Constructors fold constants
 * and apply only rewrites valid for C's truncating `/` and `%` on the
 * values the variables can take (all variables here are non-negative:
 * loop counters, work-item ids, nat parameters). */
#ifndef DPIA_INDEX_H
#define DPIA_INDEX_H

#include "dpia_front.h"

#define DPIA_IX_KINDS(X)                                    \
  X(CONST) /* value */                                      \
  X(VAR)   /* name: a loop variable, nat parameter or a     \
              work-item function spelled as C, e.g.          \
              "get_local_id(0)" */                          \
  X(ADD)   /* a + b */                                      \
  X(SUB)   /* a - b */                                      \
  X(MUL)   /* a * b */                                      \
  X(DIV)   /* a / b  (C truncating division) */             \
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
  const Ix *a, *b;
};

/* What is known about a variable: lo <= v < hi (hi NULL: unbounded above).
 * Every variable is at least 0. */
typedef struct IxRange {
  Sym var;
  const Ix *lo; /* NULL means 0 */
  const Ix *hi; /* exclusive; NULL if unknown */
} IxRange;

typedef struct IxCtx {
  Arena *arena;
  int nranges, cap;
  IxRange *ranges; /* a stack: push when entering a loop, pop when leaving */
} IxCtx;

void ix_init(IxCtx *x, Arena *a);
void ix_push_range(IxCtx *x, Sym var, const Ix *lo, const Ix *hi);
void ix_pop_range(IxCtx *x);

const Ix *ix_const(IxCtx *x, int64_t v);
const Ix *ix_var(IxCtx *x, Sym name);
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
 * take. */
const Ix *ix_simplify(IxCtx *x, const Ix *e);

/* Bounds: true and *out if e is provably < bound / >= 0 etc. */
bool ix_provably_less(IxCtx *x, const Ix *e, const Ix *bound);
bool ix_equal(const Ix *a, const Ix *b);
bool ix_const_value(const Ix *e, int64_t *v);

/* C syntax with the fewest parentheses: i*2048 + j, (i + 1)*n, x/(2*n). */
void ix_print(Buf *out, const Ix *e);

#endif
