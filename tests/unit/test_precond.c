/* test_precond.c: unit tests of kernel preconditions as data
 * (dpia/precond.h): the printer in C and Python, the evaluator on the size
 * core (every verdict), the queries code generation and dpia run ask, and
 * the size core's exact evaluation and Python printing beneath them.
 *
 * Prints `precond: P passed, F failed` and exits non-zero if anything failed. */
#include "precond.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

typedef struct Tester {
  Arena *arena;
  Interner *names;
  SizeCtx *sc;
  int passed, failed;
} Tester;

static void record(Tester *t, bool ok, int line, const char *what) {
  if (ok) {
    t->passed++;
  } else {
    t->failed++;
    fprintf(stderr, "test_precond.c:%d: FAILED: %s\n", line, what);
  }
}

#define CHECK(cond) record(t, (cond), __LINE__, #cond)

static void check_string_at(Tester *t, const char *got, const char *expected, int line) {
  bool ok = strcmp(got, expected) == 0;
  t->passed += ok;
  t->failed += !ok;
  if (!ok) fprintf(stderr, "test_precond.c:%d: FAILED: got `%s`, expected `%s`\n", line, got, expected);
}
#define CHECK_STRING(got, expected) check_string_at(t, (got), (expected), __LINE__)

/* ---- sizes and preconditions tersely ---- */

static Size var(Tester *t, const char *name) { return size_var(t->sc, intern_cstr(t->names, name)); }
static Size num(Tester *t, int64_t n) { return size_const(t->sc, n); }
static Size add(Tester *t, Size a, Size b) { return size_add(t->sc, a, b); }
static Size sub(Tester *t, Size a, Size b) { return size_sub(t->sc, a, b); }
static Size mul(Tester *t, Size a, Size b) { return size_mul(t->sc, a, b); }
static Size divide(Tester *t, Size a, Size b) {
  Size out = {0, NULL};
  record(t, size_div(t->sc, a, b, &out), __LINE__, "size_div by a single term");
  return out;
}

static Precond divides(Size lhs, Size rhs) { return (Precond){PRECOND_DIVIDES, lhs, rhs, {0}}; }
static Precond at_least(Size lhs, Size rhs) { return (Precond){PRECOND_AT_LEAST, lhs, rhs, {0}}; }

static const char *print_in(Tester *t, Precond p, SizeSyntax syntax) {
  Buf b;
  buf_init(&b, t->arena);
  precond_print(&b, &p, syntax);
  return b.data;
}

/* values by name, the way dpia run's NatValues hold them: the names are
 * not the interned Syms of the sizes */
typedef struct Values {
  int n;
  const char *names[3];
  int64_t values[3];
} Values;

static bool lookup(void *user, Sym v, int64_t *value) {
  const Values *vs = user;
  for (int i = 0; i < vs->n; i++)
    if (strcmp(vs->names[i], v) == 0) {
      *value = vs->values[i];
      return true;
    }
  return false;
}

static PrecondVerdict eval_at(Precond p, Values vs) { return precond_eval(&p, lookup, &vs); }

/* ---- the printer ---- */

static void test_print(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M"), c = var(t, "C"), wg = var(t, "WG");
  CHECK_STRING(print_in(t, divides(n, num(t, 262144)), SIZE_SYNTAX_C), "N % 262144 == 0");
  CHECK_STRING(print_in(t, at_least(m, num(t, 1)), SIZE_SYNTAX_C), "M >= 1");
  /* operands and divisors parenthesised as size_print_operand/_divisor do */
  CHECK_STRING(print_in(t, divides(add(t, n, num(t, 1)), num(t, 3)), SIZE_SYNTAX_C), "(N + 1) % 3 == 0");
  CHECK_STRING(print_in(t, divides(n, mul(t, num(t, 2), c)), SIZE_SYNTAX_C), "N % (2*C) == 0");
  CHECK_STRING(print_in(t, divides(mul(t, num(t, 2), c), num(t, 8)), SIZE_SYNTAX_C), "2*C % 8 == 0");
  CHECK_STRING(print_in(t, divides(num(t, 1024), c), SIZE_SYNTAX_C), "1024 % C == 0");
  CHECK_STRING(print_in(t, at_least(sub(t, mul(t, num(t, 5), m), n), num(t, 21)), SIZE_SYNTAX_C), "5*M - N >= 21");
  /* a launch's: a global size with a division */
  Precond launch = divides(divide(t, n, num(t, 4)), wg);
  CHECK_STRING(print_in(t, launch, SIZE_SYNTAX_C), "(N/4) % WG == 0");
  CHECK_STRING(precond_text(t->arena, &launch), "(N/4) % WG == 0");
  /* Python: integer division is // */
  CHECK_STRING(print_in(t, launch, SIZE_SYNTAX_PYTHON), "(N//4) % WG == 0");
  CHECK_STRING(print_in(t, at_least(divide(t, add(t, n, m), num(t, 2)), wg), SIZE_SYNTAX_PYTHON), "(M + N)//2 >= WG");
  CHECK_STRING(print_in(t, divides(n, mul(t, num(t, 4), wg)), SIZE_SYNTAX_PYTHON), "N % (4*WG) == 0");
  /* the list of a comment */
  Precond two[] = {divides(n, num(t, 64)), at_least(m, num(t, 1))};
  Buf b;
  buf_init(&b, t->arena);
  precond_print_list(&b, 0, two);
  CHECK_STRING(b.data, " none");
  buf_clear(&b);
  precond_print_list(&b, 2, two);
  CHECK_STRING(b.data, " N % 64 == 0, M >= 1");
}

/* precond_print's shortcut for v % m == 0 (a variable alone, a positive
 * integer) against precond_print_general, which prints each side with
 * size_print_in: every pair of these sides, in every syntax, both kinds */
static void test_print_shortcut(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M"), c = var(t, "C");
  Size sides[] = {n,
                  m,
                  c,
                  num(t, 1),
                  num(t, 2),
                  num(t, 3),
                  num(t, 64),
                  num(t, 16384),
                  num(t, 1000000007),
                  num(t, INT64_MAX),
                  num(t, 0),
                  num(t, -1),
                  num(t, -64),
                  num(t, INT64_MIN),
                  mul(t, num(t, 2), n),
                  mul(t, n, m),
                  mul(t, n, n),
                  add(t, n, num(t, 1)),
                  sub(t, n, num(t, 64)),
                  sub(t, num(t, 0), n),
                  divide(t, n, num(t, 4)),
                  divide(t, mul(t, n, num(t, 3)), num(t, 1024)),
                  divide(t, n, c)};
  SizeSyntax syntaxes[] = {SIZE_SYNTAX_C, SIZE_SYNTAX_PYTHON, SIZE_SYNTAX_DPIA};
  int shortcuts = 0, compared = 0;
  for (size_t i = 0; i < DPIA_COUNTOF(sides); i++) {
    for (size_t j = 0; j < DPIA_COUNTOF(sides); j++) {
      Precond both[] = {divides(sides[i], sides[j]), at_least(sides[i], sides[j])};
      for (size_t k = 0; k < DPIA_COUNTOF(both); k++) {
        for (size_t y = 0; y < DPIA_COUNTOF(syntaxes); y++) {
          Buf fast, general;
          buf_init(&fast, t->arena);
          buf_init(&general, t->arena);
          precond_print(&fast, &both[k], syntaxes[y]);
          precond_print_general(&general, &both[k], syntaxes[y]);
          CHECK_STRING(fast.data, general.data);
          compared++;
        }
        Sym v;
        int64_t multiple;
        shortcuts += precond_multiple_of(&both[k], &v, &multiple) && multiple > 0;
      }
    }
  }
  /* N, M and C over the 7 positive constants: the shortcut taken */
  CHECK(shortcuts == 3 * 7);
  CHECK(compared == 23 * 23 * 2 * 3);
}

/* ---- the evaluator ---- */

static void test_eval(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M"), k = var(t, "K"), c = var(t, "C");
  Values big = {3, {"N", "M", "K"}, {524288, 100, 7}};
  CHECK(eval_at(divides(n, num(t, 262144)), big) == PRECOND_HOLDS);
  CHECK(eval_at(divides(n, num(t, 524288)), big) == PRECOND_HOLDS);
  CHECK(eval_at(divides(m, num(t, 64)), big) == PRECOND_FAILS);
  CHECK(eval_at(at_least(m, num(t, 64)), big) == PRECOND_HOLDS);
  CHECK(eval_at(at_least(k, m), big) == PRECOND_FAILS);
  CHECK(eval_at(at_least(m, m), big) == PRECOND_HOLDS); /* >= is not > */
  /* (M + K) % 7 == 0 at M = 100, K = 7: 107 is not a multiple of 7 */
  CHECK(eval_at(divides(add(t, m, k), k), big) == PRECOND_FAILS);
  CHECK(eval_at(divides(add(t, m, num(t, 5)), k), big) == PRECOND_HOLDS);
  /* a negative value: -3*7 is a multiple of 7 */
  CHECK(eval_at(divides(sub(t, k, mul(t, num(t, 4), k)), k), big) == PRECOND_HOLDS);
  /* a polynomial: M^3 - K^2 >= 999951 */
  CHECK(eval_at(at_least(sub(t, mul(t, m, mul(t, m, m)), mul(t, k, k)), num(t, 999951)), big) == PRECOND_HOLDS);
  CHECK(eval_at(at_least(sub(t, mul(t, m, mul(t, m, m)), mul(t, k, k)), num(t, 999952)), big) == PRECOND_FAILS);

  /* sides that are not whole: exact, no truncation.  (N/4) % 64 == 0 says
   * N/4 is a multiple of 64: at 257 the C text's 257/4 = 64 would hold */
  Precond quarter = divides(divide(t, n, num(t, 4)), num(t, 64));
  CHECK(eval_at(quarter, (Values){1, {"N"}, {256}}) == PRECOND_HOLDS);
  CHECK(eval_at(quarter, (Values){1, {"N"}, {257}}) == PRECOND_FAILS);
  CHECK(eval_at(quarter, (Values){1, {"N"}, {512}}) == PRECOND_HOLDS);
  CHECK(eval_at(quarter, (Values){1, {"N"}, {384}}) == PRECOND_FAILS);
  /* N/4 >= 2 at N = 7: 7/4 < 2 (C: 7/4 = 1 < 2 too); at N = 8 it holds */
  CHECK(eval_at(at_least(divide(t, n, num(t, 4)), num(t, 2)), (Values){1, {"N"}, {7}}) == PRECOND_FAILS);
  CHECK(eval_at(at_least(divide(t, n, num(t, 4)), num(t, 2)), (Values){1, {"N"}, {8}}) == PRECOND_HOLDS);
  /* rational sides compared exactly: N/3 >= M/2 at N = 3, M = 2 */
  CHECK(eval_at(at_least(divide(t, n, num(t, 3)), divide(t, m, num(t, 2))), (Values){2, {"N", "M"}, {3, 2}}) ==
        PRECOND_HOLDS);
  CHECK(eval_at(at_least(divide(t, n, num(t, 3)), divide(t, m, num(t, 2))), (Values){2, {"N", "M"}, {2, 2}}) ==
        PRECOND_FAILS);

  /* what cannot be decided */
  CHECK(eval_at(divides(var(t, "X"), num(t, 2)), big) == PRECOND_UNKNOWN_SIZE);
  CHECK(eval_at(divides(num(t, 1024), c), (Values){1, {"C"}, {0}}) == PRECOND_ZERO_DIVISOR);
  CHECK(eval_at(divides(num(t, 1024), c), (Values){1, {"C"}, {256}}) == PRECOND_HOLDS);
  CHECK(eval_at(divides(num(t, 1024), c), (Values){1, {"C"}, {3}}) == PRECOND_FAILS);
  CHECK(eval_at(at_least(divide(t, n, c), num(t, 1)), (Values){2, {"N", "C"}, {8, 0}}) == PRECOND_ZERO_DIVISOR);
  Size n4 = mul(t, mul(t, n, n), mul(t, n, n));
  CHECK(eval_at(at_least(n4, num(t, 1)), (Values){1, {"N"}, {1 << 20}}) == PRECOND_TOO_LARGE); /* 2^80 */
  CHECK(eval_at(at_least(n4, num(t, 1)), (Values){1, {"N"}, {1 << 15}}) == PRECOND_HOLDS);     /* 2^60 */
  CHECK(strcmp(precond_verdict_reason(PRECOND_ZERO_DIVISOR), "a divisor is 0") == 0);
  CHECK(strcmp(precond_verdict_reason(PRECOND_UNKNOWN_SIZE), "a size it mentions has no value") == 0);
}

/* ---- queries ---- */

static void test_queries(Tester *t) {
  Size n = var(t, "N"), nb = var(t, "NB"), c = var(t, "C");
  Precond p = divides(n, num(t, 16));
  Sym v = NULL;
  int64_t multiple = 0;
  CHECK(precond_multiple_of(&p, &v, &multiple) && strcmp(v, "N") == 0 && multiple == 16);
  Precond twice = divides(mul(t, num(t, 2), n), num(t, 16));
  CHECK(!precond_multiple_of(&twice, &v, &multiple));
  Precond by_c = divides(n, c);
  CHECK(!precond_multiple_of(&by_c, &v, &multiple));
  Precond bound = at_least(n, num(t, 16));
  CHECK(!precond_multiple_of(&bound, &v, &multiple));
  /* mentions: by name, the whole name */
  Precond q = divides(add(t, nb, num(t, 1)), c);
  CHECK(precond_mentions(&q, "NB"));
  CHECK(precond_mentions(&q, "C"));
  CHECK(!precond_mentions(&q, "N"));
  CHECK(precond_mentions(&p, "N") && !precond_mentions(&p, "NB"));
}

/* ---- the size core beneath ---- */

static void test_size_core(Tester *t) {
  Size n = var(t, "N");
  Values six = {1, {"N"}, {6}};
  PolyWide num_out = 0, den_out = 0;
  CHECK(size_eval_exact(divide(t, n, num(t, 4)), lookup, &six, &num_out, &den_out) == SIZE_EVAL_OK && num_out == 3 &&
        den_out == 2);
  int64_t whole;
  CHECK(!size_eval(divide(t, n, num(t, 4)), lookup, &six, &whole)); /* size_eval wants it whole */
  CHECK(size_eval_exact(n, lookup, &(Values){0, {NULL}, {0}}, &num_out, &den_out) == SIZE_EVAL_UNKNOWN);
  Buf b;
  buf_init(&b, t->arena);
  size_print_in(&b, divide(t, n, num(t, 2048)), SIZE_SYNTAX_PYTHON, SIZE_ALONE);
  CHECK_STRING(b.data, "N//2048");
  buf_clear(&b);
  size_print_in(&b, divide(t, n, num(t, 2048)), SIZE_SYNTAX_C, SIZE_OPERAND);
  CHECK_STRING(b.data, "(N/2048)");
}

int main(void) {
  DpiaMem mem;
  jmp_buf on_oom;
  dpia_mem_default(&mem);
  mem.on_oom = &on_oom;
  if (setjmp(on_oom) != 0) {
    fprintf(stderr, "precond: out of memory\n");
    return 1;
  }
  Arena arena;
  arena_init(&arena, &mem);
  Interner names;
  intern_init(&names, &arena);
  SizeCtx sc = {&arena, false};
  Tester tester = {&arena, &names, &sc, 0, 0};
  Tester *t = &tester;

  test_print(t);
  test_print_shortcut(t);
  test_eval(t);
  test_queries(t);
  test_size_core(t);
  CHECK(!sc.overflow);

  printf("precond: %d passed, %d failed\n", t->passed, t->failed);
  arena_free(&arena);
  return t->failed == 0 ? 0 : 1;
}
