/* fuzz_size.c: libFuzzer target for the size arithmetic (dpia/size.c).
 *
 * The input is a byte code: 16 bytes of variable values (4 points, each
 * giving N, M, K and the metavariable ?m), then one or two size
 * expressions in prefix form (see decode).  Each expression is built both
 * as a tree and, through size_add/size_sub/size_mul/size_div, as a
 * canonical size; then, as in tests/unit/test_size.c:
 *   - the canonical form is well formed (size.h: coefficients in lowest
 *     terms, factors sorted and distinct, exponents non-zero and bounded,
 *     at most SIZE_MAX_TERMS terms, distinct monomials);
 *   - at every point, the canonical form evaluated with exact rationals
 *     (here, independently of size.c) equals the tree's exact value; where
 *     size_eval succeeds it gives that value, and it fails where the value
 *     is not an integer; the printed C expression, evaluated with C's int64
 *     semantics (truncating /), gives the value wherever it is an integer
 *     and the evaluation does not overflow (where size_print_is_exact is
 *     false: wherever every term is an integer);
 *   - a rewritten tree (operands swapped, a - b as -1*b + a, a/b as
 *     1/b * a, products distributed) has the identical canonical form and
 *     print; size_const_value and size_is_polynomial are consistent with
 *     the values;
 *   - if the first expression contains ?m and size_solve solves
 *     first == second for it, substituting the solution makes both sides
 *     equal.
 * Constants include values near 2^31, 2^62 and INT64_MIN/MAX so that the
 * overflow paths run; any sanitizer report there is a finding too. */
#include "fuzz_common.h"
#include "size.h"

#include <inttypes.h>

__extension__ typedef __int128 Wide;

enum { NVARS = 4, NPOINTS = 4, MAX_DEPTH = 9, MAX_NODES = 48 };
static const char *const var_names[NVARS] = {"N", "M", "K", "?m"};

typedef struct Reader {
  const uint8_t *p;
  size_t n;
  int nodes;
} Reader;

static uint8_t take(Reader *r) {
  if (!r->n) return 0;
  r->n--;
  return *r->p++;
}

typedef enum { EXPR_CONST, EXPR_VAR, EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_DIV } ExprKind;

typedef struct Expr {
  ExprKind kind;
  int64_t value;
  int var;
  struct Expr *left, *right;
} Expr;

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

static const int64_t big_constants[] = {
    INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, (int64_t)1 << 62, -((int64_t)1 << 62),
    (int64_t)1 << 31, ((int64_t)1 << 31) - 1, (int64_t)1 << 32, 3037000499, 3037000500, 4611686018427387904 / 3,
    1000003, 65536,
};

static int64_t decode_const(Reader *r) {
  uint8_t c = take(r);
  if (c < 256 - DPIA_COUNTOF(big_constants)) return (int64_t)(c % 16) - 3;
  return big_constants[c - (256 - DPIA_COUNTOF(big_constants))];
}

/* prefix byte code: op byte % 8 selects const, var, +, -, *, /, *, + */
static Expr *decode(Arena *a, Reader *r, int depth) {
  uint8_t op = take(r);
  r->nodes++;
  if (depth >= MAX_DEPTH || r->nodes >= MAX_NODES || r->n == 0) op &= 1;
  switch (op % 8) {
  case 0: return expr_const(a, decode_const(r));
  case 1: {
    Expr *e = expr_new(a, EXPR_VAR, NULL, NULL);
    e->var = take(r) % NVARS;
    return e;
  }
  case 2:
  case 7: {
    Expr *l = decode(a, r, depth + 1);
    return expr_new(a, EXPR_ADD, l, decode(a, r, depth + 1));
  }
  case 3: {
    Expr *l = decode(a, r, depth + 1);
    return expr_new(a, EXPR_SUB, l, decode(a, r, depth + 1));
  }
  case 4:
  case 6: {
    Expr *l = decode(a, r, depth + 1);
    return expr_new(a, EXPR_MUL, l, decode(a, r, depth + 1));
  }
  default: {
    Expr *l = decode(a, r, depth + 1);
    return expr_new(a, EXPR_DIV, l, decode(a, r, depth + 1));
  }
  }
}

static bool expr_has_var(const Expr *e, int v) {
  if (e->kind == EXPR_VAR) return e->var == v;
  if (e->kind == EXPR_CONST) return false;
  return expr_has_var(e->left, v) || expr_has_var(e->right, v);
}

static Expr *rewrite(Arena *a, const Expr *e) {
  switch (e->kind) {
  case EXPR_CONST: return expr_const(a, e->value);
  case EXPR_VAR: {
    Expr *v = expr_new(a, EXPR_VAR, NULL, NULL);
    v->var = e->var;
    return v;
  }
  case EXPR_ADD: return expr_new(a, EXPR_ADD, rewrite(a, e->right), rewrite(a, e->left));
  case EXPR_SUB:
    return expr_new(a, EXPR_ADD, expr_new(a, EXPR_MUL, expr_const(a, -1), rewrite(a, e->right)),
                    rewrite(a, e->left));
  case EXPR_MUL:
    if (e->right->kind == EXPR_ADD)
      return expr_new(a, EXPR_ADD, expr_new(a, EXPR_MUL, rewrite(a, e->left), rewrite(a, e->right->left)),
                      expr_new(a, EXPR_MUL, rewrite(a, e->right->right), rewrite(a, e->left)));
    return expr_new(a, EXPR_MUL, rewrite(a, e->right), rewrite(a, e->left));
  case EXPR_DIV:
    return expr_new(a, EXPR_MUL, expr_new(a, EXPR_DIV, expr_const(a, 1), rewrite(a, e->right)),
                    rewrite(a, e->left));
  }
  return NULL;
}

typedef struct Ctx {
  Arena *arena;
  Interner *names;
  SizeCtx *sc;
  Sym syms[NVARS];
} Ctx;

/* false if a division is not expressible (divisor not a single term) */
static bool to_size(Ctx *c, const Expr *e, Size *out) {
  Size l, r;
  switch (e->kind) {
  case EXPR_CONST: *out = size_const(c->sc, e->value); return true;
  case EXPR_VAR: *out = size_var(c->sc, c->syms[e->var]); return true;
  default: break;
  }
  if (!to_size(c, e->left, &l) || !to_size(c, e->right, &r)) return false;
  switch (e->kind) {
  case EXPR_ADD: *out = size_add(c->sc, l, r); return true;
  case EXPR_SUB: *out = size_sub(c->sc, l, r); return true;
  case EXPR_MUL: *out = size_mul(c->sc, l, r); return true;
  case EXPR_DIV: return size_div(c->sc, l, r, out);
  default: return false;
  }
}

/* ---- exact rationals, overflow checked ---- */

typedef struct Rational {
  Wide num, den;
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

static const Wide bound = (Wide)1 << 100;

static bool rational_make(Wide num, Wide den, Rational *out) {
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

static bool wmul(Wide a, Wide b, Wide *out) { return !__builtin_mul_overflow(a, b, out); }

static bool rat_add(Rational l, Rational r, int sign, Rational *out) {
  Wide x, y, d;
  if (!wmul(l.num, r.den, &x) || !wmul(r.num, l.den, &y) || !wmul(l.den, r.den, &d)) return false;
  Wide s;
  if (sign > 0 ? __builtin_add_overflow(x, y, &s) : __builtin_sub_overflow(x, y, &s)) return false;
  return rational_make(s, d, out);
}

static bool rat_mul(Rational l, Rational r, Rational *out) {
  Wide n, d;
  if (!wmul(l.num, r.num, &n) || !wmul(l.den, r.den, &d)) return false;
  return rational_make(n, d, out);
}

static bool rat_div(Rational l, Rational r, Rational *out) {
  if (r.num == 0) return false;
  Wide n, d;
  if (!wmul(l.num, r.den, &n) || !wmul(l.den, r.num, &d)) return false;
  return rational_make(n, d, out);
}

/* false on division by zero or excessive magnitude */
static bool expr_eval(const Expr *e, const int64_t *values, Rational *out) {
  Rational l, r;
  switch (e->kind) {
  case EXPR_CONST: return rational_make(e->value, 1, out);
  case EXPR_VAR: return rational_make(values[e->var], 1, out);
  default: break;
  }
  if (!expr_eval(e->left, values, &l) || !expr_eval(e->right, values, &r)) return false;
  switch (e->kind) {
  case EXPR_ADD: return rat_add(l, r, 1, out);
  case EXPR_SUB: return rat_add(l, r, -1, out);
  case EXPR_MUL: return rat_mul(l, r, out);
  case EXPR_DIV: return rat_div(l, r, out);
  default: return false;
  }
}

static int var_index(const Ctx *c, Sym v) {
  for (int i = 0; i < NVARS; i++)
    if (c->syms[i] == v) return i;
  return -1;
}

/* the canonical form's value, from its terms, independently of size.c */
static bool canon_eval(const Ctx *c, Size s, const int64_t *values, Rational *out) {
  Rational sum = {0, 1};
  for (int i = 0; i < s.nterms; i++) {
    const SizeTerm *t = &s.terms[i];
    Rational term;
    if (!rational_make(t->num, t->den, &term)) return false;
    for (int j = 0; j < t->nfactors; j++) {
      int v = var_index(c, size_factor_var(&t->factors[j]));
      FUZZ_ASSERT(v >= 0, "unknown variable '%s' in a size", size_factor_var(&t->factors[j]));
      Rational x = {values[v], 1};
      int64_t e = t->factors[j].exp;
      for (int64_t k = 0; k < (e < 0 ? -e : e); k++)
        if (!(e > 0 ? rat_mul(term, x, &term) : rat_div(term, x, &term))) return false;
    }
    if (!rat_add(sum, term, 1, &sum)) return false;
  }
  *out = sum;
  return true;
}

/* ---- C evaluation of printed sizes (int64, truncating /) ---- */

typedef struct CParser {
  const char *p;
  const int64_t *values;
  bool ok;
  int depth;
} CParser;

static int64_t c_expr(CParser *c);

static int64_t c_primary(CParser *c) {
  if (*c->p == '(') {
    c->p++;
    if (++c->depth > 200) {
      c->ok = false;
      return 0;
    }
    int64_t v = c_expr(c);
    c->depth--;
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
    if (++c->depth > 200) {
      c->ok = false;
      return 0;
    }
    int64_t v = c_unary(c), negated = 0;
    c->depth--;
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

/* false if the text does not parse or the evaluation overflows */
static bool eval_printed(const char *text, const int64_t *values, int64_t *out) {
  CParser c = {text, values, true, 0};
  *out = c_expr(&c);
  return c.ok && *c.p == '\0';
}

/* ---- properties ---- */

static const char *print(Ctx *c, Size s) {
  Buf b;
  buf_init(&b, c->arena);
  size_print(&b, s);
  return b.data;
}

static void check_canonical(Size s) {
  FUZZ_ASSERT(s.nterms >= 0 && s.nterms <= SIZE_MAX_TERMS, "%d terms", s.nterms);
  for (int i = 0; i < s.nterms; i++) {
    const SizeTerm *t = &s.terms[i];
    FUZZ_ASSERT(t->num != 0 && t->den > 0, "coefficient %" PRId64 "/%" PRId64, t->num, t->den);
    FUZZ_ASSERT(gcd_wide(t->num, t->den) == 1, "coefficient %" PRId64 "/%" PRId64 " not in lowest terms",
                t->num, t->den);
    for (int j = 0; j < t->nfactors; j++) {
      FUZZ_ASSERT(t->factors[j].exp != 0 && t->factors[j].exp <= SIZE_MAX_EXPONENT &&
                      t->factors[j].exp >= -SIZE_MAX_EXPONENT,
                  "exponent %" PRId64, t->factors[j].exp);
      if (j)
        FUZZ_ASSERT(strcmp(size_factor_var(&t->factors[j - 1]), size_factor_var(&t->factors[j])) < 0,
                    "factors not sorted: %s, %s", size_factor_var(&t->factors[j - 1]),
                    size_factor_var(&t->factors[j]));
    }
    for (int k = 0; k < i; k++) {
      const SizeTerm *u = &s.terms[k];
      bool same = u->nfactors == t->nfactors;
      for (int j = 0; same && j < t->nfactors; j++)
        same = size_factor_var(&u->factors[j]) == size_factor_var(&t->factors[j]) &&
               u->factors[j].exp == t->factors[j].exp;
      FUZZ_ASSERT(!same, "terms %d and %d have the same monomial", k, i);
    }
  }
}

typedef struct Binding {
  const Ctx *c;
  const int64_t *values;
} Binding;

static bool lookup(void *user, Sym v, int64_t *value) {
  const Binding *b = user;
  int i = var_index(b->c, v);
  if (i < 0) return false;
  *value = b->values[i];
  return true;
}

static void check_point(Ctx *c, const Expr *e, Size s, const char *printed, const int64_t *values) {
  Rational exact, canon;
  bool have_exact = expr_eval(e, values, &exact);
  bool have_canon = canon_eval(c, s, values, &canon);
  if (have_exact && have_canon)
    FUZZ_ASSERT(exact.num == canon.num && exact.den == canon.den,
                "canonical form `%s` differs from the expression at N=%" PRId64 " M=%" PRId64 " K=%" PRId64
                " ?m=%" PRId64,
                printed, values[0], values[1], values[2], values[3]);
  if (!have_canon) return; /* undefined (x/0) or too large here */
  Binding b = {c, values};
  int64_t value = 0;
  bool evaluated = size_eval(s, lookup, &b, &value);
  if (canon.den != 1) {
    FUZZ_ASSERT(!evaluated, "size_eval of `%s` gave %" PRId64 " for a non-integral value", printed, value);
    return;
  }
  if (evaluated) FUZZ_ASSERT((Wide)value == canon.num, "size_eval of `%s` gave %" PRId64, printed, value);
  int64_t constant;
  if (size_const_value(s, &constant))
    FUZZ_ASSERT((Wide)constant == canon.num, "size_const_value of `%s` is %" PRId64, printed, constant);
  /* where size_print is not exact (huge coefficients), it is exact only
   * where every term is an integer */
  bool exact_print = size_print_is_exact(c->arena, s);
  for (int i = 0; !exact_print && i < s.nterms; i++) {
    Rational term;
    if (!canon_eval(c, (Size){1, &s.terms[i]}, values, &term) || term.den != 1) return;
  }
  int64_t c_value = 0;
  if (eval_printed(printed, values, &c_value))
    FUZZ_ASSERT((Wide)c_value == canon.num,
                "`%s` evaluates in C to %" PRId64 " at N=%" PRId64 " M=%" PRId64 " K=%" PRId64 " ?m=%" PRId64,
                printed, c_value, values[0], values[1], values[2], values[3]);
}

static void check_polynomial(Ctx *c, Size s, const char *printed, const int64_t *values) {
  Rational v;
  if (size_is_polynomial(s) && canon_eval(c, s, values, &v))
    FUZZ_ASSERT(v.den == 1, "`%s` is called a polynomial but is not integral at a point", printed);
}

static int64_t decode_value(Reader *r) {
  uint8_t b = take(r);
  static const int64_t large[] = {(int64_t)1 << 31, 65536, 3037000500, 1000003, ((int64_t)1 << 32) + 1, 2048};
  if (b >= 256 - DPIA_COUNTOF(large)) return large[b - (256 - DPIA_COUNTOF(large))];
  return b % 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  Arena arena;
  arena_init(&arena, &mem);
  if (setjmp(oom)) {
    arena_free(&arena);
    return 0;
  }
  Interner names;
  intern_init(&names, &arena);
  SizeCtx sc = {&arena, false};
  Ctx c = {&arena, &names, &sc, {NULL}};
  for (int i = 0; i < NVARS; i++) c.syms[i] = intern_cstr(&names, var_names[i]);

  Reader r = {data, size, 0};
  int64_t points[NPOINTS][NVARS];
  for (int p = 0; p < NPOINTS; p++)
    for (int i = 0; i < NVARS; i++) points[p][i] = decode_value(&r);
  Expr *e = decode(&arena, &r, 0);
  Size s;
  if (!to_size(&c, e, &s) || sc.overflow) {
    arena_free(&arena);
    return 0;
  }
  check_canonical(s);
  const char *printed = print(&c, s);
  for (int p = 0; p < NPOINTS; p++) {
    check_point(&c, e, s, printed, points[p]);
    check_polynomial(&c, s, printed, points[p]);
  }
  Size again;
  if (to_size(&c, rewrite(&arena, e), &again) && !sc.overflow) {
    check_canonical(again);
    const char *printed_again = print(&c, again);
    FUZZ_ASSERT(size_eq(s, again) && strcmp(printed, printed_again) == 0,
                "rewriting changed the canonical form: `%s` vs `%s`", printed, printed_again);
  }
  sc.overflow = false;
  /* solving */
  if (r.n && expr_has_var(e, 3)) {
    r.nodes = 0;
    Expr *rhs_e = decode(&arena, &r, 0);
    Size rhs, solution, l2, r2;
    if (to_size(&c, rhs_e, &rhs) && !sc.overflow && size_solve(&sc, s, rhs, c.syms[3], &solution) &&
        !sc.overflow) {
      check_canonical(solution);
      FUZZ_ASSERT(!size_has_var(solution, c.syms[3]), "the solution `%s` of `%s` = `%s` contains ?m",
                  print(&c, solution), printed, print(&c, rhs));
      if (size_subst(&sc, s, c.syms[3], solution, &l2) && size_subst(&sc, rhs, c.syms[3], solution, &r2) &&
          !sc.overflow)
        FUZZ_ASSERT(size_eq(l2, r2), "?m = `%s` does not solve `%s` = `%s`", print(&c, solution), printed,
                    print(&c, rhs));
    }
  }
  arena_free(&arena);
  return 0;
}
