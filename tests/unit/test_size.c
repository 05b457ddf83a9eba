/* test_size.c: unit and property tests of the canonical sizes (dpia/size.h).
 *
 * Prints `size: P passed, F failed` and exits non-zero if anything failed.
 * The property test uses a fixed-seed PRNG held in a local struct, so every
 * run checks the same expressions. */
#include "size.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef __int128 Wide;

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
    fprintf(stderr, "test_size.c:%d: FAILED: %s\n", line, what);
  }
}

#define CHECK(cond) record(t, (cond), __LINE__, #cond)

/* ---- building sizes tersely ---- */

static Size var(Tester *t, const char *name) {
  return size_var(t->sc, intern_cstr(t->names, name));
}
static Size num(Tester *t, int64_t n) { return size_const(t->sc, n); }
static Size add(Tester *t, Size a, Size b) { return size_add(t->sc, a, b); }
static Size sub(Tester *t, Size a, Size b) { return size_sub(t->sc, a, b); }
static Size mul(Tester *t, Size a, Size b) { return size_mul(t->sc, a, b); }

/* a / b where the caller knows b is a single term */
static Size divide(Tester *t, Size a, Size b) {
  Size out = {0, NULL};
  bool ok = size_div(t->sc, a, b, &out);
  record(t, ok, __LINE__, "size_div by a single term");
  return out;
}

static const char *print(Tester *t, Size a) {
  Buf b;
  buf_init(&b, t->arena);
  size_print(&b, a);
  return b.data;
}

static const char *print_operand(Tester *t, Size a) {
  Buf b;
  buf_init(&b, t->arena);
  size_print_operand(&b, a);
  return b.data;
}

static const char *print_divisor(Tester *t, Size a) {
  Buf b;
  buf_init(&b, t->arena);
  size_print_divisor(&b, a);
  return b.data;
}

static void check_print_at(Tester *t, Size a, const char *expected, int line) {
  const char *got = print(t, a);
  bool ok = strcmp(got, expected) == 0;
  t->passed += ok;
  t->failed += !ok;
  if (!ok) fprintf(stderr, "test_size.c:%d: FAILED: printed `%s`, expected `%s`\n", line, got, expected);
}
#define CHECK_PRINT(a, expected) check_print_at(t, (a), (expected), __LINE__)

static void check_string_at(Tester *t, const char *got, const char *expected, int line) {
  bool ok = strcmp(got, expected) == 0;
  t->passed += ok;
  t->failed += !ok;
  if (!ok) fprintf(stderr, "test_size.c:%d: FAILED: got `%s`, expected `%s`\n", line, got, expected);
}
#define CHECK_STRING(got, expected) check_string_at(t, (got), (expected), __LINE__)

/* ---- variable assignments for size_eval ---- */

enum { MAX_BINDINGS = 4 };
typedef struct Bindings {
  int count;
  Sym names[MAX_BINDINGS];
  int64_t values[MAX_BINDINGS];
} Bindings;

static bool lookup_binding(void *user, Sym v, int64_t *value) {
  const Bindings *b = user;
  for (int i = 0; i < b->count; i++) {
    if (b->names[i] == v) {
      *value = b->values[i];
      return true;
    }
  }
  return false;
}

static Bindings bind(Tester *t, const char *n1, int64_t v1, const char *n2, int64_t v2) {
  Bindings b = {0, {NULL}, {0}};
  if (n1) {
    b.names[b.count] = intern_cstr(t->names, n1);
    b.values[b.count++] = v1;
  }
  if (n2) {
    b.names[b.count] = intern_cstr(t->names, n2);
    b.values[b.count++] = v2;
  }
  return b;
}

static bool eval_is(Size a, Bindings b, int64_t expected) {
  int64_t value;
  return size_eval(a, lookup_binding, &b, &value) && value == expected;
}

static bool eval_fails(Size a, Bindings b) {
  int64_t value;
  return !size_eval(a, lookup_binding, &b, &value);
}

/* ---- unit tests ---- */

static void test_equality(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M");
  CHECK(size_eq(divide(t, mul(t, n, num(t, 2048)), num(t, 2048)), n));
  CHECK(size_eq(mul(t, add(t, n, m), num(t, 2)), add(t, mul(t, num(t, 2), m), mul(t, num(t, 2), n))));
  CHECK(size_eq(mul(t, divide(t, n, m), m), n));
  CHECK(size_eq(mul(t, num(t, 2048), num(t, 128)), num(t, 262144)));
  CHECK(size_eq(mul(t, divide(t, n, num(t, 2048)), num(t, 128)), divide(t, n, num(t, 16))));
  CHECK(size_eq(add(t, sub(t, n, num(t, 1)), num(t, 1)), n));
  CHECK(size_eq(mul(t, add(t, n, num(t, 1)), sub(t, n, num(t, 1))),
                sub(t, mul(t, n, n), num(t, 1))));
  CHECK(size_eq(divide(t, divide(t, n, num(t, 2)), num(t, 3)), divide(t, n, num(t, 6))));
  CHECK(size_eq(divide(t, add(t, n, m), num(t, 2)),
                add(t, divide(t, n, num(t, 2)), divide(t, m, num(t, 2)))));
  CHECK(size_is_zero(sub(t, n, n)));
  CHECK(size_eq(mul(t, mul(t, divide(t, n, num(t, 2)), divide(t, n, num(t, 2))), num(t, 4)),
                mul(t, n, n)));
  CHECK(size_eq(mul(t, m, n), mul(t, n, m)));
  CHECK(size_eq(divide(t, n, n), num(t, 1)));
  CHECK(size_eq(divide(t, mul(t, n, m), mul(t, m, num(t, 4))), divide(t, n, num(t, 4))));
}

static void test_inequality(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M");
  CHECK(!size_eq(n, m));
  CHECK(!size_eq(divide(t, n, num(t, 2)), divide(t, n, num(t, 3))));
  CHECK(!size_eq(add(t, n, num(t, 1)), n));
  CHECK(!size_eq(mul(t, n, n), mul(t, n, num(t, 2))));
  CHECK(!size_eq(divide(t, n, m), divide(t, m, n)));
  CHECK(!size_eq(num(t, 2), num(t, -2)));
  CHECK(!size_eq(n, sub(t, num(t, 0), n)));
  CHECK(!size_is_zero(n));
  CHECK(!size_eq(add(t, n, m), add(t, n, n)));
}

static void test_printing(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M"), k = var(t, "K");
  CHECK_PRINT(n, "N");
  CHECK_PRINT(num(t, 0), "0");
  CHECK_PRINT(num(t, 42), "42");
  CHECK_PRINT(num(t, -5), "-5");
  CHECK_PRINT(num(t, INT64_MIN), "-9223372036854775808");
  CHECK_PRINT(divide(t, n, num(t, 2048)), "N/2048");
  CHECK_PRINT(mul(t, divide(t, n, num(t, 2048)), num(t, 128)), "N/16");
  CHECK_PRINT(divide(t, mul(t, n, num(t, 2048)), num(t, 2048)), "N");
  CHECK_PRINT(mul(t, mul(t, num(t, 3), n), m), "3*M*N");
  CHECK_PRINT(mul(t, n, n), "N*N");
  CHECK_PRINT(divide(t, add(t, n, m), num(t, 2)), "(M + N)/2");
  CHECK_PRINT(divide(t, n, mul(t, num(t, 2), m)), "N/(2*M)");
  CHECK_PRINT(divide(t, mul(t, n, m), k), "M*N/K");
  CHECK_PRINT(add(t, mul(t, num(t, 2), n), num(t, 1)), "2*N + 1");
  CHECK_PRINT(sub(t, n, num(t, 1)), "N - 1");
  CHECK_PRINT(add(t, add(t, mul(t, n, m), n), num(t, 3)), "M*N + N + 3");
  CHECK_PRINT(sub(t, num(t, 1), n), "1 - N");
  CHECK_PRINT(sub(t, num(t, 0), n), "-N");
  CHECK_PRINT(sub(t, sub(t, num(t, 0), n), num(t, 1)), "-N - 1");
  CHECK_PRINT(sub(t, n, m), "N - M");
  CHECK_PRINT(sub(t, m, n), "M - N");
  CHECK_PRINT(add(t, divide(t, n, num(t, 2)), num(t, 1)), "(N + 2)/2");
  CHECK_PRINT(add(t, divide(t, n, m), num(t, 1)), "(M + N)/M");
  CHECK_PRINT(divide(t, n, mul(t, m, m)), "N/(M*M)");
  CHECK_PRINT(add(t, divide(t, n, num(t, 2)), divide(t, m, num(t, 3))), "(2*M + 3*N)/6");
  CHECK_PRINT(divide(t, num(t, 2), n), "2/N");
  CHECK_PRINT(divide(t, sub(t, num(t, 0), n), num(t, 2)), "-N/2");
  CHECK_PRINT(add(t, mul(t, n, n), mul(t, m, n)), "M*N + N*N");
  CHECK_PRINT(mul(t, add(t, n, num(t, 1)), add(t, n, num(t, 1))), "N*N + 2*N + 1");
  /* the slide input size t*(n-1)+s */
  CHECK_PRINT(add(t, mul(t, var(t, "t"), sub(t, n, num(t, 1))), var(t, "s")), "N*t + s - t");

  CHECK_STRING(print_operand(t, n), "N");
  CHECK_STRING(print_operand(t, num(t, 7)), "7");
  CHECK_STRING(print_operand(t, mul(t, num(t, 2), n)), "2*N");
  CHECK_STRING(print_operand(t, add(t, n, num(t, 1))), "(N + 1)");
  CHECK_STRING(print_operand(t, divide(t, n, num(t, 2))), "(N/2)");
  CHECK_STRING(print_operand(t, num(t, -3)), "(-3)");
  CHECK_STRING(print_divisor(t, n), "N");
  CHECK_STRING(print_divisor(t, num(t, 2048)), "2048");
  CHECK_STRING(print_divisor(t, mul(t, num(t, 2), n)), "(2*N)");
  CHECK_STRING(print_divisor(t, mul(t, n, n)), "(N*N)");
}

static void test_queries(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M");
  Sym meta_n = intern_cstr(t->names, "?n");
  int64_t value = -1;
  CHECK(size_is_polynomial(add(t, mul(t, n, n), num(t, 1))));
  CHECK(!size_is_polynomial(divide(t, n, num(t, 2))));
  CHECK(!size_is_polynomial(divide(t, n, m)));
  CHECK(size_is_polynomial(mul(t, divide(t, n, num(t, 2)), num(t, 2))));
  CHECK(size_is_polynomial(num(t, 0)));
  CHECK(!size_is_polynomial(add(t, divide(t, n, m), num(t, 1))));
  CHECK(size_const_value(mul(t, num(t, 2048), num(t, 128)), &value) && value == 262144);
  CHECK(!size_const_value(n, &value));
  CHECK(size_const_value(sub(t, n, n), &value) && value == 0);
  CHECK(!size_const_value(divide(t, num(t, 1), num(t, 2)), &value));
  CHECK(size_const_value(divide(t, n, n), &value) && value == 1);
  CHECK(size_has_var(divide(t, num(t, 1), m), intern_cstr(t->names, "M")));
  CHECK(!size_has_var(mul(t, divide(t, n, m), m), intern_cstr(t->names, "M")));
  CHECK(size_first_meta(add(t, mul(t, size_var(t->sc, meta_n), num(t, 2)), n)) == meta_n);
  CHECK(size_first_meta(add(t, n, m)) == NULL);

  /* size_div refuses a divisor that is not a single term, and leaves *out */
  Size out = n;
  CHECK(!size_div(t->sc, n, add(t, m, num(t, 1)), &out) && size_eq(out, n));
  CHECK(!size_div(t->sc, n, num(t, 0), &out) && size_eq(out, n));
}

static void test_solve(Tester *t) {
  Size n = var(t, "N"), k = var(t, "K");
  Sym meta_n = intern_cstr(t->names, "?n");
  Size mn = size_var(t->sc, meta_n), mm = var(t, "?m");
  Size out = {0, NULL};
  CHECK(size_solve(t->sc, mul(t, mn, num(t, 2048)), n, meta_n, &out) &&
        strcmp(print(t, out), "N/2048") == 0);
  CHECK(size_solve(t->sc, n, mul(t, mn, num(t, 2048)), meta_n, &out) &&
        strcmp(print(t, out), "N/2048") == 0);
  CHECK(size_solve(t->sc, add(t, mn, num(t, 3)), n, meta_n, &out) &&
        strcmp(print(t, out), "N - 3") == 0);
  CHECK(!size_solve(t->sc, mul(t, mn, mm), num(t, 8), meta_n, &out));
  CHECK(size_solve(t->sc, mul(t, mn, k), mul(t, n, k), meta_n, &out) && size_eq(out, n));
  CHECK(!size_solve(t->sc, mul(t, mn, mn), n, meta_n, &out));
  CHECK(!size_solve(t->sc, n, n, meta_n, &out));
  CHECK(!size_solve(t->sc, mul(t, mn, k), mul(t, mn, k), meta_n, &out));
  CHECK(size_solve(t->sc, mn, mm, meta_n, &out) && size_eq(out, mm));
  CHECK(size_solve(t->sc, add(t, mul(t, num(t, 2), mn), n), mul(t, num(t, 3), n), meta_n, &out) &&
        size_eq(out, n));
  CHECK(!size_solve(t->sc, add(t, mul(t, mn, n), mn), num(t, 5), meta_n, &out));
  CHECK(size_solve(t->sc, divide(t, mn, num(t, 2)), n, meta_n, &out) &&
        strcmp(print(t, out), "2*N") == 0);
  /* a solution substituted back satisfies the equation */
  Size lhs = add(t, mul(t, mn, num(t, 64)), k);
  Size rhs = mul(t, n, num(t, 4));
  Size back = {0, NULL};
  CHECK(size_solve(t->sc, lhs, rhs, meta_n, &out) && size_subst(t->sc, lhs, meta_n, out, &back) &&
        size_eq(back, rhs));
  /* the shortcuts (translation throughput): ?n + rest == 0 solved as -rest
   * without a product by 1, and from the difference unify_size has made */
  Size rest = add(t, mul(t, n, num(t, 3)), divide(t, k, num(t, 2)));
  CHECK(size_solve(t->sc, mn, rest, meta_n, &out) && size_eq(out, rest) &&
        strcmp(print(t, out), print(t, rest)) == 0);
  CHECK(size_solve(t->sc, add(t, mn, rest), num(t, 0), meta_n, &out) &&
        strcmp(print(t, out), print(t, sub(t, num(t, 0), rest))) == 0);
  Size via = {0, NULL};
  CHECK(size_solve(t->sc, lhs, rhs, meta_n, &out) &&
        size_solve_difference(t->sc, sub(t, lhs, rhs), meta_n, &via) && size_eq(out, via));
  CHECK(!size_solve_difference(t->sc, sub(t, mul(t, mn, mn), n), meta_n, &via));
}

static void test_subst(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M"), k = var(t, "K");
  Sym sym_n = intern_cstr(t->names, "N"), sym_m = intern_cstr(t->names, "M");
  Sym meta_n = intern_cstr(t->names, "?n");
  Size out = {0, NULL};
  CHECK(size_subst(t->sc, add(t, n, m), sym_n, mul(t, num(t, 2), k), &out) &&
        strcmp(print(t, out), "2*K + M") == 0);
  CHECK(size_subst(t->sc, divide(t, n, m), sym_m, num(t, 4), &out) &&
        strcmp(print(t, out), "N/4") == 0);
  out = n;
  CHECK(!size_subst(t->sc, divide(t, n, m), sym_m, add(t, k, num(t, 1)), &out) && size_eq(out, n));
  CHECK(!size_subst(t->sc, divide(t, n, m), sym_m, num(t, 0), &out));
  CHECK(size_subst(t->sc, mul(t, n, n), sym_n, add(t, m, num(t, 1)), &out) &&
        strcmp(print(t, out), "M*M + 2*M + 1") == 0);
  CHECK(size_subst(t->sc, mul(t, var(t, "?n"), num(t, 2048)), meta_n, divide(t, n, num(t, 2048)),
                   &out) &&
        size_eq(out, n));
  CHECK(size_subst(t->sc, add(t, m, num(t, 1)), sym_n, k, &out) &&
        size_eq(out, add(t, m, num(t, 1))));
  /* a metavariable alone, or times a coefficient, by its value (zonking's
   * shortcut: no product by 1) */
  Size value = add(t, mul(t, m, num(t, 4)), divide(t, k, num(t, 3)));
  CHECK(size_subst(t->sc, var(t, "?n"), meta_n, value, &out) && strcmp(print(t, out), print(t, value)) == 0);
  CHECK(size_subst(t->sc, mul(t, var(t, "?n"), num(t, 5)), meta_n, value, &out) &&
        strcmp(print(t, out), print(t, mul(t, value, num(t, 5)))) == 0);
  CHECK(size_subst(t->sc, mul(t, n, m), sym_n, num(t, 0), &out) && size_is_zero(out));
  CHECK(size_subst(t->sc, divide(t, k, mul(t, n, n)), sym_n, mul(t, num(t, 2), m), &out) &&
        strcmp(print(t, out), "K/(4*M*M)") == 0);
}

static void test_eval(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M");
  CHECK(eval_is(mul(t, divide(t, n, num(t, 2048)), num(t, 128)), bind(t, "N", 4096, NULL, 0), 256));
  CHECK(eval_fails(divide(t, n, num(t, 2)), bind(t, "N", 3, NULL, 0)));
  CHECK(eval_is(divide(t, add(t, n, m), num(t, 2)), bind(t, "N", 1, "M", 3), 2));
  CHECK(eval_fails(add(t, n, m), bind(t, "N", 1, NULL, 0)));
  CHECK(eval_fails(divide(t, n, m), bind(t, "N", 1, "M", 0)));
  CHECK(eval_is(num(t, 0), bind(t, NULL, 0, NULL, 0), 0));
  CHECK(eval_is(divide(t, n, m), bind(t, "N", 12, "M", 4), 3));
  CHECK(eval_fails(divide(t, n, m), bind(t, "N", 12, "M", 5)));
  /* the sum is integral although each term is not */
  CHECK(eval_is(add(t, divide(t, n, num(t, 2)), divide(t, m, num(t, 2))), bind(t, "N", 3, "M", 5), 4));
  CHECK(eval_fails(mul(t, n, n), bind(t, "N", INT64_C(1) << 32, NULL, 0)));
  CHECK(eval_fails(mul(t, num(t, 2), n), bind(t, "N", INT64_C(1) << 62, NULL, 0)));
  /* an intermediate beyond int64 is fine when the result fits */
  CHECK(eval_is(sub(t, mul(t, num(t, 2), n), m), bind(t, "N", INT64_C(1) << 62, "M", 2), INT64_MAX - 1));
  CHECK(eval_is(sub(t, num(t, 0), n), bind(t, "N", 7, NULL, 0), -7));
}

static void test_overflow(Tester *t) {
  SizeCtx *sc = t->sc;
  Size n = var(t, "N");
  sc->overflow = false;
  Size r = mul(t, num(t, INT64_C(1) << 62), num(t, 4));
  CHECK(sc->overflow && size_is_zero(r));
  sc->overflow = false;
  r = sub(t, num(t, 0), num(t, INT64_MIN));
  CHECK(sc->overflow && size_is_zero(r));
  sc->overflow = false;
  r = mul(t, num(t, INT64_MIN), num(t, -1));
  CHECK(sc->overflow && size_is_zero(r));
  sc->overflow = false;
  r = add(t, num(t, INT64_MAX), num(t, 1));
  CHECK(sc->overflow && size_is_zero(r));
  sc->overflow = false;
  r = add(t, num(t, INT64_MAX), num(t, -1));
  CHECK(!sc->overflow && size_eq(r, num(t, INT64_MAX - 1)));
  r = sub(t, num(t, INT64_MIN + 1), num(t, 1));
  CHECK(!sc->overflow && size_eq(r, num(t, INT64_MIN)));
  r = add(t, mul(t, num(t, INT64_MAX), n), n);
  CHECK(sc->overflow && size_is_zero(r));
  /* the flag is sticky */
  r = add(t, n, n);
  CHECK(sc->overflow && size_eq(r, mul(t, num(t, 2), n)));
  sc->overflow = false;
  /* 1/INT64_MIN has the denominator 2^63 */
  Size out = n;
  CHECK(size_div(sc, num(t, 1), num(t, INT64_MIN), &out) && sc->overflow && size_is_zero(out));
  sc->overflow = false;
  CHECK(size_div(sc, divide(t, n, num(t, INT64_MAX)), num(t, 2), &out) && sc->overflow);
  sc->overflow = false;
  /* huge exponents: N^32 is representable, N^64 is not */
  Size power = n;
  for (int i = 0; i < 5; i++) power = mul(t, power, power);
  CHECK(!sc->overflow && power.nterms == 1 && power.terms[0].factors[0].exp == 32);
  power = mul(t, power, power);
  CHECK(sc->overflow && size_is_zero(power));
  sc->overflow = false;
  Size inverse = divide(t, num(t, 1), n);
  for (int i = 0; i < 6; i++) inverse = mul(t, inverse, inverse);
  CHECK(sc->overflow && size_is_zero(inverse));
  sc->overflow = false;
  /* substitution that overflows still succeeds structurally */
  Sym sym_n = intern_cstr(t->names, "N");
  CHECK(size_subst(sc, mul(t, n, n), sym_n, num(t, INT64_C(1) << 40), &out) && sc->overflow &&
        size_is_zero(out));
  sc->overflow = false;
  /* too many terms: the square of a sum of 23 variables has 276 */
  Size many = num(t, 0);
  for (int i = 0; i < 23; i++) {
    Buf name;
    buf_init(&name, t->arena);
    emit(&name, "v%d", i);
    many = add(t, many, var(t, name.data));
  }
  CHECK(!sc->overflow && many.nterms == 23);
  r = mul(t, many, many);
  CHECK(sc->overflow && size_is_zero(r));
  sc->overflow = false;
  /* overflow in size_solve */
  Sym meta_n = intern_cstr(t->names, "?n");
  CHECK(!size_solve(sc, size_var(sc, meta_n), num(t, INT64_MIN), meta_n, &out) && sc->overflow);
  sc->overflow = false;
  CHECK(!size_solve(sc, add(t, size_var(sc, meta_n), num(t, INT64_MAX)), num(t, -2), meta_n, &out) &&
        sc->overflow);
  sc->overflow = false;
}

/* ---- property test ---- */

typedef struct Rng {
  uint64_t state;
} Rng;

static uint64_t rng_next(Rng *r) {
  /* xorshift64* */
  r->state ^= r->state >> 12;
  r->state ^= r->state << 25;
  r->state ^= r->state >> 27;
  return r->state * UINT64_C(2685821657736338717);
}

static int rng_below(Rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

typedef enum { EXPR_CONST, EXPR_VAR, EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_DIV } ExprKind;

typedef struct Expr {
  ExprKind kind;
  int64_t value; /* EXPR_CONST */
  int var;       /* EXPR_VAR: index into the variable table */
  struct Expr *left, *right;
} Expr;

enum { NVARS = 3 };
static const char *const var_names[NVARS] = {"N", "M", "K"};

static Expr *expr_new(Arena *a, ExprKind kind, Expr *left, Expr *right) {
  Expr *e = NEW(a, Expr);
  e->kind = kind;
  e->left = left;
  e->right = right;
  return e;
}

static Expr *expr_const(Arena *a, int64_t value) {
  Expr *e = expr_new(a, EXPR_CONST, NULL, NULL);
  e->value = value;
  return e;
}

static Expr *expr_var(Arena *a, int index) {
  Expr *e = expr_new(a, EXPR_VAR, NULL, NULL);
  e->var = index;
  return e;
}

/* a random monomial divisor: c, c*v or c*v*w with c in 1..6 */
static Expr *random_divisor(Arena *a, Rng *r) {
  Expr *d = expr_const(a, 1 + rng_below(r, 6));
  int nvars = rng_below(r, 3);
  for (int i = 0; i < nvars; i++) d = expr_new(a, EXPR_MUL, d, expr_var(a, rng_below(r, NVARS)));
  return d;
}

static Expr *random_expr(Arena *a, Rng *r, int depth) {
  int choice = depth <= 0 ? rng_below(r, 2) : rng_below(r, 8);
  switch (choice) {
  case 0: return expr_const(a, rng_below(r, 12) - 3);
  case 1: return expr_var(a, rng_below(r, NVARS));
  case 2:
  case 3: return expr_new(a, EXPR_ADD, random_expr(a, r, depth - 1), random_expr(a, r, depth - 1));
  case 4: return expr_new(a, EXPR_SUB, random_expr(a, r, depth - 1), random_expr(a, r, depth - 1));
  case 5:
  case 6: return expr_new(a, EXPR_MUL, random_expr(a, r, depth - 1), random_expr(a, r, depth - 1));
  default: return expr_new(a, EXPR_DIV, random_expr(a, r, depth - 1), random_divisor(a, r));
  }
}

/* An expression equal to e as a number, written differently: operands
 * swapped, subtraction as addition of -1 times, division as multiplication
 * by a reciprocal, multiplication distributed over a sum. */
static Expr *rewrite(Arena *a, const Expr *e) {
  switch (e->kind) {
  case EXPR_CONST: return expr_const(a, e->value);
  case EXPR_VAR: return expr_var(a, e->var);
  case EXPR_ADD: return expr_new(a, EXPR_ADD, rewrite(a, e->right), rewrite(a, e->left));
  case EXPR_SUB:
    return expr_new(a, EXPR_ADD, expr_new(a, EXPR_MUL, expr_const(a, -1), rewrite(a, e->right)),
                    rewrite(a, e->left));
  case EXPR_MUL:
    if (e->right->kind == EXPR_ADD) {
      return expr_new(a, EXPR_ADD, expr_new(a, EXPR_MUL, rewrite(a, e->left), rewrite(a, e->right->left)),
                      expr_new(a, EXPR_MUL, rewrite(a, e->right->right), rewrite(a, e->left)));
    }
    return expr_new(a, EXPR_MUL, rewrite(a, e->right), rewrite(a, e->left));
  case EXPR_DIV:
    return expr_new(a, EXPR_MUL, expr_new(a, EXPR_DIV, expr_const(a, 1), rewrite(a, e->right)),
                    rewrite(a, e->left));
  }
  return NULL;
}

static Size expr_to_size(Tester *t, const Expr *e) {
  switch (e->kind) {
  case EXPR_CONST: return num(t, e->value);
  case EXPR_VAR: return var(t, var_names[e->var]);
  case EXPR_ADD: return add(t, expr_to_size(t, e->left), expr_to_size(t, e->right));
  case EXPR_SUB: return sub(t, expr_to_size(t, e->left), expr_to_size(t, e->right));
  case EXPR_MUL: return mul(t, expr_to_size(t, e->left), expr_to_size(t, e->right));
  case EXPR_DIV: return divide(t, expr_to_size(t, e->left), expr_to_size(t, e->right));
  }
  return num(t, 0);
}

/* exact rational value of an expression tree, independent of size.c */
typedef struct Rational {
  Wide num, den; /* den > 0, lowest terms */
} Rational;

static Wide gcd_wide(Wide a, Wide b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    Wide rest = a % b;
    a = b;
    b = rest;
  }
  return a;
}

/* values stay far below 2^100 for the depths used, so plain Wide is exact;
 * the bound is checked rather than assumed */
static bool rational_make(Wide num, Wide den, Rational *out) {
  const Wide bound = (Wide)1 << 100;
  if (den == 0 || num > bound || num < -bound || den > bound || den < -bound) return false;
  Wide g = gcd_wide(num, den);
  if (g == 0) g = 1;
  num /= g;
  den /= g;
  if (den < 0) {
    num = -num;
    den = -den;
  }
  *out = (Rational){num, den};
  return true;
}

/* false on division by zero or excessive magnitude */
static bool expr_eval(const Expr *e, const int64_t *values, Rational *out, bool *all_divisions_exact) {
  Rational l, r;
  switch (e->kind) {
  case EXPR_CONST: return rational_make(e->value, 1, out);
  case EXPR_VAR: return rational_make(values[e->var], 1, out);
  default: break;
  }
  if (!expr_eval(e->left, values, &l, all_divisions_exact) ||
      !expr_eval(e->right, values, &r, all_divisions_exact)) {
    return false;
  }
  switch (e->kind) {
  case EXPR_ADD: return rational_make(l.num * r.den + r.num * l.den, l.den * r.den, out);
  case EXPR_SUB: return rational_make(l.num * r.den - r.num * l.den, l.den * r.den, out);
  case EXPR_MUL: return rational_make(l.num * r.num, l.den * r.den, out);
  case EXPR_DIV:
    if (r.num == 0) return false;
    if (l.den != 1 || r.den != 1 || l.num % r.num != 0) *all_divisions_exact = false;
    return rational_make(l.num * r.den, l.den * r.num, out);
  default: return false;
  }
}

/* A strict evaluator for printed sizes with C semantics (int64, truncating
 * `/`): terms separated by exactly " + " / " - ", no other spaces. */
typedef struct CParser {
  const char *p;
  const int64_t *values;
  bool ok;
} CParser;

static int64_t c_expr(CParser *c);

static int64_t c_primary(CParser *c) {
  if (*c->p == '(') {
    c->p++;
    int64_t v = c_expr(c);
    if (*c->p != ')') c->ok = false;
    else c->p++;
    return v;
  }
  if (*c->p >= '0' && *c->p <= '9') {
    int64_t v = 0;
    while (*c->p >= '0' && *c->p <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *c->p - '0', &v)) c->ok = false;
      c->p++;
    }
    return v;
  }
  for (int i = 0; i < NVARS; i++) {
    size_t len = strlen(var_names[i]);
    if (strncmp(c->p, var_names[i], len) == 0) {
      c->p += len;
      return c->values[i];
    }
  }
  c->ok = false;
  return 0;
}

static int64_t c_unary(CParser *c) {
  if (*c->p == '-') {
    c->p++;
    int64_t v = c_unary(c), negated = 0;
    if (__builtin_sub_overflow((int64_t)0, v, &negated)) c->ok = false;
    return negated;
  }
  return c_primary(c);
}

static int64_t c_product(CParser *c) {
  int64_t v = c_unary(c);
  while (c->ok && (*c->p == '*' || *c->p == '/')) {
    char op = *c->p++;
    int64_t rhs = c_unary(c);
    if (op == '*') {
      if (__builtin_mul_overflow(v, rhs, &v)) c->ok = false;
    } else if (rhs == 0 || (v == INT64_MIN && rhs == -1)) {
      c->ok = false;
    } else {
      v /= rhs;
    }
  }
  return v;
}

static int64_t c_expr(CParser *c) {
  int64_t v = c_product(c);
  while (c->ok && *c->p == ' ') {
    bool plus = strncmp(c->p, " + ", 3) == 0, minus = strncmp(c->p, " - ", 3) == 0;
    if (!plus && !minus) {
      c->ok = false;
      break;
    }
    c->p += 3;
    int64_t rhs = c_product(c);
    if (plus ? __builtin_add_overflow(v, rhs, &v) : __builtin_sub_overflow(v, rhs, &v)) c->ok = false;
  }
  return v;
}

static bool eval_printed(const char *text, const int64_t *values, int64_t *out) {
  CParser c = {text, values, true};
  *out = c_expr(&c);
  return c.ok && *c.p == '\0';
}

typedef struct PropertyStats {
  int expressions, integral_points, fractional_points, rewrites;
} PropertyStats;

static void check_point(Tester *t, const Expr *e, Size s, const char *printed, const int64_t *values,
                        PropertyStats *stats) {
  Rational exact;
  bool all_exact = true;
  if (!expr_eval(e, values, &exact, &all_exact)) return; /* division by zero */
  Bindings b = {NVARS, {NULL}, {0}};
  for (int i = 0; i < NVARS; i++) {
    b.names[i] = intern_cstr(t->names, var_names[i]);
    b.values[i] = values[i];
  }
  int64_t value = 0;
  bool evaluated = size_eval(s, lookup_binding, &b, &value);
  if (exact.den != 1) {
    stats->fractional_points++;
    record(t, !evaluated, __LINE__, "size_eval refuses a non-integral value");
    return;
  }
  stats->integral_points++;
  bool same = evaluated && (Wide)value == exact.num;
  record(t, same, __LINE__, "size_eval of the canonical form equals the exact value");
  /* (b) the printed C expression, wherever the value is integral (which
   * includes every point where all divisions of the original are exact) */
  int64_t c_value = 0;
  bool c_ok = eval_printed(printed, values, &c_value);
  bool c_same = c_ok && (Wide)c_value == exact.num;
  record(t, c_same, __LINE__, "the printed C expression evaluates to the exact value");
  if (!same || !c_same) {
    fprintf(stderr, "  at N=%" PRId64 " M=%" PRId64 " K=%" PRId64 ": printed `%s` (all divisions exact: %d)\n",
            values[0], values[1], values[2], printed, all_exact);
  }
}

/* a polynomial printed at once (print_fraction) as the general path,
 * the product of a and its common denominator, prints it, in every
 * syntax; a fraction (no polynomial) by the general path alone */
static void check_fraction_paths(Tester *t, Size a) {
  static const SizeSyntax syntaxes[] = {SIZE_SYNTAX_C, SIZE_SYNTAX_PYTHON, SIZE_SYNTAX_DPIA};
  if (a.nterms == 0) return; /* 0: printed before either */
  /* size_fraction (a single term's at once): a polynomial numerator, a
   * times the one-term denominator, which is the coefficient's den for a
   * term with positive exponents */
  /* a divided by a constant (size_div's scaling) times it is a again */
  static const int64_t divisors[] = {1, 2, 3, -4, 6, 256, -1024, 7};
  bool overflow_before = t->sc->overflow;
  for (int i = 0; i < (int)(sizeof divisors / sizeof divisors[0]); i++) {
    Size q = {0, NULL};
    bool divided = size_div(t->sc, a, num(t, divisors[i]), &q);
    bool ok = divided && (t->sc->overflow || size_eq(mul(t, q, num(t, divisors[i])), a));
    record(t, ok, __LINE__, "a size divided by a constant and multiplied back");
    if (!ok) fprintf(stderr, "  `%s` / %" PRId64 " = `%s`\n", print(t, a), divisors[i], print(t, q));
    t->sc->overflow = overflow_before;
  }
  Size numerator, denominator;
  if (size_fraction(t->arena, a, &numerator, &denominator)) {
    bool positive = a.nterms == 1;
    for (int j = 0; positive && j < a.terms[0].nfactors; j++) positive = a.terms[0].factors[j].exp > 0;
    int64_t d;
    bool ok = denominator.nterms == 1 && size_is_polynomial(numerator) && numerator.nterms == a.nterms &&
              size_eq(numerator, mul(t, a, denominator)) &&
              (!positive || (size_const_value(denominator, &d) && d == a.terms[0].den));
    record(t, ok, __LINE__, "size_fraction's numerator is the size times its denominator");
    if (!ok) fprintf(stderr, "  `%s` = `%s` / `%s`\n", print(t, a), print(t, numerator), print(t, denominator));
  }
  for (int i = 0; i < 3; i++) {
    Buf fast, general;
    buf_init(&fast, t->arena);
    buf_init(&general, t->arena);
    size_print_in(&fast, a, syntaxes[i], SIZE_ALONE);
    bool ok = size_print_fraction_general(&general, a, syntaxes[i]);
    /* a lone floor atom prints bare alone (ceil(N/64), no fraction) */
    const SizeTerm *t0 = &a.terms[0];
    if (!ok || (a.nterms == 1 && t0->num == 1 && t0->den == 1 && t0->nfactors == 1 && t0->factors[0].exp == 1 &&
                size_factor_atom(&t0->factors[0])->kind == SIZE_ATOM_FLOOR))
      continue;
    bool same = strcmp(fast.data, general.data) == 0;
    record(t, same, __LINE__, "a size prints alike with and without the fraction's product");
    if (!same) fprintf(stderr, "  `%s` vs `%s`\n", fast.data, general.data);
  }
}

/* a times a constant by size_scale is size_mul's product, overflow
 * included */
static void check_scaled_products(Tester *t, Size a) {
  static const int64_t constants[] = {1, 2, 3, -4, 6, 256, -1024, 7, INT64_MAX / 3, INT64_MIN + 1};
  bool overflow_before = t->sc->overflow;
  for (int i = 0; i < (int)(sizeof constants / sizeof constants[0]); i++) {
    /* k and k/3 */
    int64_t g = constants[i] % 3 == 0 ? 3 : 1;
    int64_t nums[2] = {constants[i], constants[i] / g}, dens[2] = {1, 3 / g};
    for (int j = 0; j < 2; j++) {
      t->sc->overflow = false;
      Size k = divide(t, num(t, nums[j]), num(t, dens[j]));
      Size general = size_mul(t->sc, a, k);
      bool general_overflow = t->sc->overflow;
      t->sc->overflow = false;
      Size scaled = size_scale(t->sc, a, nums[j], dens[j]);
      bool scaled_overflow = t->sc->overflow;
      bool ok = scaled_overflow == general_overflow &&
                (general_overflow || (size_eq(scaled, general) && strcmp(print(t, scaled), print(t, general)) == 0));
      record(t, ok, __LINE__, "a size scaled by a constant is its product with it");
      if (!ok) fprintf(stderr, "  `%s` * %" PRId64 "/%" PRId64 " = `%s`, by size_mul `%s`\n", print(t, a), nums[j],
                       dens[j], print(t, scaled), print(t, general));
    }
  }
  t->sc->overflow = overflow_before;
}

static void test_properties(Tester *t) {
  Rng rng = {UINT64_C(0x9E3779B97F4A7C15)};
  PropertyStats stats = {0, 0, 0, 0};
  Size previous = {0, NULL};
  const char *previous_printed = "0";
  for (int iteration = 0; iteration < 3000; iteration++) {
    Expr *e = random_expr(t->arena, &rng, 1 + rng_below(&rng, 3));
    Size s = expr_to_size(t, e);
    if (t->sc->overflow) {
      record(t, false, __LINE__, "small random expressions do not overflow");
      t->sc->overflow = false;
      continue;
    }
    stats.expressions++;
    const char *printed = print(t, s);
    check_fraction_paths(t, s);
    check_scaled_products(t, s);
    for (int point = 0; point < 6; point++) {
      int64_t values[NVARS];
      for (int i = 0; i < NVARS; i++) values[i] = rng_below(&rng, 10);
      check_point(t, e, s, printed, values, &stats);
    }
    /* (c) an equal expression written differently has the same canonical
     * form and prints identically */
    Size rewritten = expr_to_size(t, rewrite(t->arena, e));
    bool equal = size_eq(s, rewritten);
    bool printed_equal = strcmp(printed, print(t, rewritten)) == 0;
    record(t, equal && printed_equal, __LINE__, "a rewritten expression has the same canonical form");
    if (!equal || !printed_equal) fprintf(stderr, "  `%s` vs `%s`\n", printed, print(t, rewritten));
    stats.rewrites++;
    /* equal printing and equal canonical forms go together */
    bool same_text = strcmp(printed, previous_printed) == 0;
    record(t, same_text == size_eq(s, previous), __LINE__, "printing is injective on canonical forms");
    previous = s;
    previous_printed = printed;
  }
  /* the generator must actually exercise both outcomes of evaluation */
  CHECK(stats.integral_points > 5000);
  CHECK(stats.fractional_points > 200);
  printf("size: property test: %d expressions, %d integral and %d fractional points, %d rewrites\n",
         stats.expressions, stats.integral_points, stats.fractional_points, stats.rewrites);
}

/* ---- floor atoms: ceil(a/b), floor(a/b), a % b (size.h) ---- */

static Size ceil_of(Tester *t, Size a, Size b) {
  Size out = {0, NULL};
  record(t, size_ceil_div(t->sc, a, b, &out), __LINE__, "size_ceil_div by a non-zero size");
  return out;
}
static Size floor_of(Tester *t, Size a, Size b) {
  Size out = {0, NULL};
  record(t, size_floor_div(t->sc, a, b, &out), __LINE__, "size_floor_div by a non-zero size");
  return out;
}
static Size mod_of(Tester *t, Size a, Size b) {
  Size out = {0, NULL};
  record(t, size_mod(t->sc, a, b, &out), __LINE__, "size_mod by a non-zero size");
  return out;
}

static const char *print_syntax(Tester *t, Size a, SizeSyntax syntax, SizePosition position) {
  Buf b;
  buf_init(&b, t->arena);
  size_print_in(&b, a, syntax, position);
  return b.data;
}

static void test_floor(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M"), k = var(t, "K");
  Size c64 = num(t, 64);
  Size cn = ceil_of(t, n, c64);
  /* canonical forms: the same atom however it is written */
  CHECK(size_eq(cn, floor_of(t, add(t, n, num(t, 63)), c64)));
  CHECK(size_eq(cn, ceil_of(t, mul(t, num(t, 2), n), num(t, 128)))); /* common factor */
  CHECK(size_eq(add(t, cn, m), ceil_of(t, add(t, n, mul(t, c64, m)), c64))); /* whole multiples come out */
  CHECK(size_eq(sub(t, cn, num(t, 1)), floor_of(t, sub(t, n, num(t, 1)), c64)));
  CHECK(size_eq(ceil_of(t, mul(t, c64, n), c64), n));                    /* exact: no atom */
  CHECK(size_eq(floor_of(t, num(t, 100), c64), num(t, 1)));              /* constants fold */
  CHECK(size_eq(ceil_of(t, num(t, 100), c64), num(t, 2)));
  CHECK(size_eq(mod_of(t, mul(t, c64, n), c64), num(t, 0)));
  CHECK(size_eq(mod_of(t, add(t, mul(t, c64, n), num(t, 3)), c64), num(t, 3)));
  check_fraction_paths(t, add(t, cn, m));
  check_fraction_paths(t, divide(t, mul(t, num(t, 3), n), num(t, 2048)));
  check_fraction_paths(t, divide(t, mul(t, cn, k), num(t, 6)));
  check_fraction_paths(t, divide(t, num(t, -5), mul(t, num(t, 3), n)));
  check_fraction_paths(t, mul(t, cn, sub(t, mod_of(t, n, k), num(t, 2))));
  check_fraction_paths(t, add(t, divide(t, floor_of(t, n, k), num(t, 3)), m));
  CHECK(size_eq(ceil_of(t, mul(t, k, n), k), n));                        /* a symbolic divisor that divides */
  CHECK(size_has_floor(cn) && !size_has_floor(n));
  /* equalities that must not hold */
  CHECK(!size_eq(cn, divide(t, n, c64)));
  CHECK(!size_eq(cn, floor_of(t, n, c64)));
  CHECK(!size_eq(mul(t, cn, c64), n));
  CHECK(!size_eq(cn, ceil_of(t, n, num(t, 32))));
  CHECK(!size_eq(ceil_of(t, n, k), ceil_of(t, n, m)));
  CHECK(!size_eq(mod_of(t, n, c64), num(t, 0)));
  Size untouched = n;
  CHECK(!size_floor_div(t->sc, n, num(t, 0), &untouched) && size_eq(untouched, n));
  /* queries look inside */
  CHECK(size_has_var(cn, intern_cstr(t->names, "N")) && !size_has_var(cn, intern_cstr(t->names, "M")));
  CHECK(size_has_name(ceil_of(t, n, k), "K"));
  /* evaluation: ceil and floor and %, exactly */
  CHECK(eval_is(cn, bind(t, "N", 1000003, NULL, 0), 15626));
  CHECK(eval_is(cn, bind(t, "N", 1, NULL, 0), 1));
  CHECK(eval_is(cn, bind(t, "N", 0, NULL, 0), 0));
  CHECK(eval_is(cn, bind(t, "N", 128, NULL, 0), 2));
  CHECK(eval_is(mod_of(t, n, c64), bind(t, "N", 1000003, NULL, 0), 1000003 % 64));
  CHECK(eval_is(ceil_of(t, n, k), bind(t, "N", 10, "K", 3), 4));
  CHECK(eval_is(mod_of(t, n, k), bind(t, "N", 10, "K", 3), 1));
  CHECK(eval_fails(ceil_of(t, n, k), bind(t, "N", 10, "K", 0)));
  CHECK(eval_fails(cn, bind(t, "M", 1, NULL, 0)));
  /* printing: C and Python compute it from N; DPIA reads as written */
  CHECK_PRINT(cn, "(N + 63)/64");
  CHECK_PRINT(mul(t, c64, cn), "64*((N + 63)/64)");
  CHECK_PRINT(mod_of(t, n, c64), "N - 64*(N/64)");
  CHECK_STRING(print_operand(t, cn), "((N + 63)/64)");
  CHECK_STRING(print_divisor(t, cn), "((N + 63)/64)");
  CHECK_STRING(print_syntax(t, cn, SIZE_SYNTAX_PYTHON, SIZE_ALONE), "(N + 63)//64");
  CHECK_STRING(print_syntax(t, mul(t, c64, cn), SIZE_SYNTAX_DPIA, SIZE_ALONE), "64*ceil(N/64)");
  CHECK_STRING(print_syntax(t, mod_of(t, n, c64), SIZE_SYNTAX_DPIA, SIZE_ALONE), "N - 64*floor(N/64)");
  CHECK_STRING(print_syntax(t, ceil_of(t, n, k), SIZE_SYNTAX_DPIA, SIZE_ALONE), "ceil(N/K)");
  CHECK_STRING(print_syntax(t, ceil_of(t, n, k), SIZE_SYNTAX_C, SIZE_ALONE), "(K + N - 1)/K");
  CHECK_STRING(print_syntax(t, ceil_of(t, add(t, n, m), add(t, k, num(t, 1))), SIZE_SYNTAX_DPIA, SIZE_ALONE),
               "ceil((M + N)/(K + 1))");
  /* substitution rebuilds the atoms: ceil(N/64) at N = 64*M is M */
  Size out;
  CHECK(size_subst(t->sc, cn, intern_cstr(t->names, "N"), mul(t, c64, m), &out) && size_eq(out, m));
  CHECK(size_subst(t->sc, ceil_of(t, n, k), intern_cstr(t->names, "K"), c64, &out) && size_eq(out, cn));
  /* the facts: 64*ceil(N/64) >= N and > N - 64, N % 64 >= 0 and < 64 */
  CHECK(size_provably_at_least(t->sc, mul(t, c64, cn), n));
  CHECK(size_provably_at_least(t->sc, add(t, n, num(t, 63)), mul(t, c64, cn)));
  CHECK(!size_provably_at_least(t->sc, add(t, n, num(t, 62)), mul(t, c64, cn)));
  CHECK(!size_provably_at_least(t->sc, n, mul(t, c64, cn)));
  CHECK(size_provably_at_least(t->sc, mod_of(t, n, c64), num(t, 0)));
  CHECK(size_provably_at_least(t->sc, num(t, 63), mod_of(t, n, c64)));
  CHECK(!size_provably_at_least(t->sc, num(t, 62), mod_of(t, n, c64)));
  CHECK(size_provably_at_least(t->sc, mul(t, k, ceil_of(t, n, k)), n));
  CHECK(!size_provably_at_least(t->sc, n, m));
}

/* size_always_divisible: whole quotients of integer polynomials at every
 * natural value (a triangle's count, docs/language.md section 30.2) */
static void test_always_divisible(Tester *t) {
  Size n = var(t, "N"), m = var(t, "M"), one = num(t, 1);
  Size tri = mul(t, n, add(t, n, one));                          /* N*(N+1) */
  CHECK(size_always_divisible(t->arena, tri, 2));
  CHECK(!size_always_divisible(t->arena, tri, 4));               /* N = 1: 2 */
  CHECK(!size_always_divisible(t->arena, mul(t, n, n), 2));      /* N = 1 */
  CHECK(size_always_divisible(t->arena, mul(t, tri, add(t, n, num(t, 2))), 6)); /* N(N+1)(N+2) */
  CHECK(!size_always_divisible(t->arena, add(t, mul(t, n, m), m), 2)); /* N = 0, M = 1 */
  CHECK(size_always_divisible(t->arena, mul(t, m, tri), 2));     /* M*N*(N+1) */
  CHECK(size_always_divisible(t->arena, num(t, 0), 7));
  CHECK(!size_always_divisible(t->arena, num(t, 3), 2));
  /* a floor atom is no polynomial: not decided here */
  CHECK(!size_always_divisible(t->arena, mul(t, num(t, 2), ceil_of(t, n, num(t, 4))), 2));
}

/* ---- size_eq and size_first_meta against the general walks (issue 35) ---- */

static const char *const query_names[] = {"N", "M", "?a", "?b"};

/* a random size over two parameters and two metavariables, with floor
 * atoms (ceil, floor, %) inside sums and products */
static Size random_size(Tester *t, Rng *r, int depth) {
  int choice = depth <= 0 ? rng_below(r, 2) : rng_below(r, 9);
  switch (choice) {
  case 0: return num(t, rng_below(r, 12) - 3);
  case 1: return var(t, query_names[rng_below(r, 4)]);
  case 2: return add(t, random_size(t, r, depth - 1), random_size(t, r, depth - 1));
  case 3: return sub(t, random_size(t, r, depth - 1), random_size(t, r, depth - 1));
  case 4: return mul(t, random_size(t, r, depth - 1), random_size(t, r, depth - 1));
  case 5: return divide(t, random_size(t, r, depth - 1), num(t, 1 + rng_below(r, 6)));
  default: {
    Size a = random_size(t, r, depth - 1), out = {0, NULL};
    Size b = rng_below(r, 2) ? num(t, 2 + rng_below(r, 7)) : var(t, query_names[rng_below(r, 4)]);
    if (choice == 6)
      size_ceil_div(t->sc, a, b, &out);
    else if (choice == 7)
      size_floor_div(t->sc, a, b, &out);
    else
      size_mod(t->sc, a, b, &out);
    return out;
  }
  }
}

static bool is_meta_name(const void *user, Sym v) {
  (void)user;
  return v[0] == '?';
}

static bool has_floor_atom(Size a) {
  for (int i = 0; i < a.nterms; i++)
    for (int j = 0; j < a.terms[i].nfactors; j++)
      if (size_factor_atom(&a.terms[i].factors[j])->kind == SIZE_ATOM_FLOOR) return true;
  return false;
}

/* size_eq (the coefficients first, atoms compared in place) against
 * size_eq_general (poly_eq over the atom order), on pairs of random sizes
 * and on a size made twice from the same random choices (equal, other
 * objects); size_first_meta (its loop before the first floor atom)
 * against size_first_var_where's walk */
static void test_fast_queries(Tester *t) {
  Rng rng = {UINT64_C(0xD1B54A32D192ED03)};
  enum { POOL = 64 };
  Size pool[POOL];
  int npool = 0, equal_pairs = 0, floors = 0, metas = 0, floor_metas = 0;
  for (int round = 0; round < 4000; round++) {
    int depth = 1 + rng_below(&rng, 3);
    Rng again = rng;
    Size s = random_size(t, &rng, depth);
    Size twin = random_size(t, &again, depth);
    if (t->sc->overflow) {
      t->sc->overflow = false;
      continue;
    }
    bool ok = size_eq(s, twin) && size_eq_general(s, twin) && (s.nterms == 0 || s.terms != twin.terms);
    record(t, ok, __LINE__, "a size made twice alike is equal to itself");
    for (int k = 0; k < 8 && npool > 0; k++) {
      Size other = pool[rng_below(&rng, npool)];
      bool eq = size_eq(s, other), general = size_eq_general(s, other);
      equal_pairs += general;
      record(t, eq == general, __LINE__, "size_eq is size_eq_general");
      if (eq != general) fprintf(stderr, "  `%s` vs `%s`\n", print(t, s), print(t, other));
    }
    Sym meta = size_first_meta(s), walked = size_first_var_where(s, is_meta_name, NULL);
    record(t, meta == walked, __LINE__, "size_first_meta is the first metavariable of the walk");
    if (meta != walked)
      fprintf(stderr, "  `%s`: %s, walked %s\n", print(t, s), meta ? meta : "-", walked ? walked : "-");
    floors += has_floor_atom(s);
    metas += walked != NULL;
    floor_metas += walked != NULL && has_floor_atom(s);
    pool[npool < POOL ? npool++ : rng_below(&rng, POOL)] = s;
  }
  /* every path reached */
  CHECK(equal_pairs > 200 && floors > 500 && metas > 1000 && floor_metas > 200);
}

int main(void) {
  DpiaMem mem;
  jmp_buf on_oom;
  dpia_mem_default(&mem);
  mem.on_oom = &on_oom;
  if (setjmp(on_oom) != 0) {
    fprintf(stderr, "size: out of memory\n");
    return 1;
  }
  Arena arena;
  arena_init(&arena, &mem);
  Interner names;
  intern_init(&names, &arena);
  SizeCtx sc = {&arena, false};
  Tester tester = {&arena, &names, &sc, 0, 0};
  Tester *t = &tester;

  test_equality(t);
  test_inequality(t);
  test_printing(t);
  test_queries(t);
  test_solve(t);
  test_subst(t);
  test_eval(t);
  test_floor(t);
  CHECK(!sc.overflow);
  test_overflow(t);
  test_properties(t);
  test_always_divisible(t);
  test_fast_queries(t);

  printf("size: %d passed, %d failed\n", t->passed, t->failed);
  arena_free(&arena);
  return t->failed == 0 ? 0 : 1;
}
