/* precond.c: printing, queries and evaluation of kernel preconditions
 * (precond.h, spec section 3). */
#include "precond.h"

void precond_print(Buf *out, const Precond *p, SizeSyntax syntax) {
  /* v % m == 0, a variable alone and a positive integer (nearly every
   * precondition: a split of a parameter's extent, N % 16384 == 0): in
   * every syntax size_print_in prints the one as its name and the other
   * as its digits, neither in parentheses, so they are written at once
   * (translation throughput, issue 35: each kernel's header comment
   * prints its preconditions; tests/unit/test_precond.c compares the two
   * ways) */
  Sym v;
  int64_t m;
  if (precond_multiple_of(p, &v, &m) && m > 0) {
    buf_puts(out, v);
    buf_puts(out, " % ");
    buf_put_int(out, m);
    buf_puts(out, " == 0");
    return;
  }
  precond_print_general(out, p, syntax);
}

void precond_print_general(Buf *out, const Precond *p, SizeSyntax syntax) {
  switch (p->kind) {
  case PRECOND_DIVIDES:
    size_print_in(out, p->lhs, syntax, SIZE_OPERAND);
    buf_puts(out, " % ");
    size_print_in(out, p->rhs, syntax, SIZE_DIVISOR);
    buf_puts(out, " == 0");
    return;
  case PRECOND_AT_LEAST:
    size_print_in(out, p->lhs, syntax, SIZE_ALONE);
    buf_puts(out, " >= ");
    size_print_in(out, p->rhs, syntax, SIZE_ALONE);
    return;
  }
  INTERNAL("precondition kind %d", (int)p->kind);
}

const char *precond_text(Arena *arena, const Precond *p) {
  Buf b;
  buf_init(&b, arena);
  precond_print(&b, p, SIZE_SYNTAX_C);
  return b.data;
}

void precond_print_list(Buf *out, int n, const Precond *preconds) {
  if (n == 0) buf_puts(out, " none");
  for (int i = 0; i < n; i++) {
    buf_puts(out, i ? ", " : " ");
    precond_print(out, &preconds[i], SIZE_SYNTAX_C);
  }
}

bool precond_mentions(const Precond *p, const char *name) {
  return size_has_name(p->lhs, name) || size_has_name(p->rhs, name);
}

bool precond_multiple_of(const Precond *p, Sym *var, int64_t *multiple) {
  switch (p->kind) {
  case PRECOND_DIVIDES: break;
  case PRECOND_AT_LEAST: return false;
  }
  *var = size_lone_var(p->lhs);
  return *var && size_const_value(p->rhs, multiple);
}

/* a side: its exact value, which must fit int64 as the sizes of a launch do */
static PrecondVerdict eval_side(Size s, SizeLookup lookup, void *user, PolyWide *num, PolyWide *den) {
  switch (size_eval_exact(s, lookup, user, num, den)) {
  case SIZE_EVAL_OK: break;
  case SIZE_EVAL_UNKNOWN: return PRECOND_UNKNOWN_SIZE;
  case SIZE_EVAL_ZERO: return PRECOND_ZERO_DIVISOR;
  case SIZE_EVAL_OVERFLOW: return PRECOND_TOO_LARGE;
  }
  /* |num/den| <= |num|: a numerator within int64 bounds the value */
  return *num >= INT64_MIN && *num <= INT64_MAX ? PRECOND_HOLDS : PRECOND_TOO_LARGE;
}

PrecondVerdict precond_eval(const Precond *p, SizeLookup lookup, void *user) {
  PolyWide ln, ld, rn, rd;
  PrecondVerdict v = eval_side(p->lhs, lookup, user, &ln, &ld);
  if (v == PRECOND_HOLDS) v = eval_side(p->rhs, lookup, user, &rn, &rd);
  if (v != PRECOND_HOLDS) return v;
  /* both numerators within int64 and the denominators at most 2^63 (a
   * numerator within int64 over a denominator in lowest terms): every
   * product below fits 128 bits */
  if (ld > INT64_MAX || rd > INT64_MAX) return PRECOND_TOO_LARGE;
  switch (p->kind) {
  case PRECOND_DIVIDES:
    /* (ln/ld) / (rn/rd) = ln*rd / (ld*rn), an integer or not */
    if (rn == 0) return PRECOND_ZERO_DIVISOR;
    return (ln * rd) % (ld * rn) == 0 ? PRECOND_HOLDS : PRECOND_FAILS;
  case PRECOND_AT_LEAST:
    /* ln/ld >= rn/rd with positive denominators */
    return ln * rd >= rn * ld ? PRECOND_HOLDS : PRECOND_FAILS;
  }
  INTERNAL("precondition kind %d", (int)p->kind);
}

const char *precond_verdict_reason(PrecondVerdict v) {
  switch (v) {
  case PRECOND_HOLDS: return "it holds";
  case PRECOND_FAILS: return "it does not hold";
  case PRECOND_UNKNOWN_SIZE: return "a size it mentions has no value";
  case PRECOND_ZERO_DIVISOR: return "a divisor is 0";
  case PRECOND_TOO_LARGE: return "a value leaves 64 bits";
  }
  INTERNAL("precondition verdict %d", (int)v);
}
