/* precond.h: the preconditions of a kernel as data (spec section 3: a
 * requirement on sizes that stays symbolic is a precondition; section 9:
 * metadata "preconditions").
 *
 * The checker makes them (dpia/unify.c, settle_requirements) and a launch
 * size adds its own (codegen/kernel.c, kernel_with_launch); everything
 * after reads this structure: the run-time check evaluates it with the
 * size core, code generation asks which parameter is a multiple of what,
 * dpia run and --emit=space ask which sizes one mentions.  Text is made
 * only by precond_print: metadata, the header's comment and C check,
 * `dpia check -v`, kernel comments and messages.
 *
 * Each kind is a relation between two sizes in canonical form (size.h).
 * A switch over PrecondKind names every kind and has no default, so a new
 * kind (or a new size form that needs one) makes the compiler list every
 * place that must decide what it means. */
#ifndef DPIA_PRECOND_H
#define DPIA_PRECOND_H

#include "diag.h"
#include "size.h"

typedef enum PrecondKind {
  PRECOND_DIVIDES, /* lhs % rhs == 0: rhs divides lhs */
  PRECOND_AT_LEAST /* lhs >= rhs */
} PrecondKind;

typedef struct Precond {
  PrecondKind kind;
  Size lhs, rhs;
  /* the construct that requires it (a split, a slide, ...); a zero Span
   * (src NULL) for the one a launch size adds, "G % L == 0" */
  Span span;
} Precond;

/* Print in a language's syntax (size.h): "N % 262144 == 0", "M >= 1",
 * "(N/4) % WG == 0"; in Python "(N//4) % WG == 0". */
void precond_print(Buf *out, const Precond *p, SizeSyntax syntax);
/* The same, each side printed by size_print_in whatever its form: the
 * general way, which precond_print's shortcut for v % m == 0 must agree
 * with (tests/unit/test_precond.c) */
void precond_print_general(Buf *out, const Precond *p, SizeSyntax syntax);
/* precond_print in C, in the arena */
const char *precond_text(Arena *arena, const Precond *p);
/* A list for comments, after "Preconditions:": " none", or " a, b" in C. */
void precond_print_list(Buf *out, int n, const Precond *preconds);

/* Whether the precondition mentions the size variable of this name (which
 * need not be interned: dpia run's and --set's names are not). */
bool precond_mentions(const Precond *p, const char *name);

/* The parameter and constant of `v % m == 0` (v one variable alone, m an
 * integer constant): true with *var and *multiple; false for any other. */
bool precond_multiple_of(const Precond *p, Sym *var, int64_t *multiple);

/* The verdict of a precondition at given values of its sizes. */
typedef enum PrecondVerdict {
  PRECOND_HOLDS,
  PRECOND_FAILS,
  PRECOND_UNKNOWN_SIZE, /* a size variable it mentions has no value */
  PRECOND_ZERO_DIVISOR, /* a divisor (rhs of %, or a division in a size) is 0 */
  PRECOND_TOO_LARGE     /* a side's value leaves int64 */
} PrecondVerdict;

/* Evaluate with the size core: both sides exactly (rationals, no rounding),
 * then the relation.  lhs % rhs == 0 holds when lhs/rhs is an integer, so
 * (N/4) % 64 == 0 holds at N = 256 and not at N = 257 (where the C text,
 * truncating N/4 to 64, would say it holds: the requirement that N/4 be
 * whole then fails in either reading).  Where every size is whole, as the
 * other preconditions make it, this is the C expression's value. */
PrecondVerdict precond_eval(const Precond *p, SizeLookup lookup, void *user);
/* Why a verdict other than holds/fails could not decide: "a size has no
 * value", ... (for messages) */
const char *precond_verdict_reason(PrecondVerdict v);

#endif
