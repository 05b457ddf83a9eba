/* test_index.c: tests of index expressions and their simplification
 * (codegen/index.h).
 *
 * Every simplification case states the ranges, the input and the expected
 * text, and is also checked by evaluating input and output with C's integer
 * semantics over every value the variables can take in small domains: the
 * output must agree wherever the input is defined (no division by zero, no
 * overflow).  A property test does the same for a few thousand random
 * expressions, built from a fixed-seed PRNG held in a local struct, and
 * checks that simplification never lengthens the text.
 *
 * Prints `index: P passed, F failed` and exits non-zero if anything failed. */
#include "index.h"
#include "index_int.h" /* ix_node, ix_seal: the nodes test_recent_leaves compares */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct Tester {
  Arena *arena;
  Interner *names;
  int passed, failed;
} Tester;

static void record_at(Tester *t, bool ok, int line, const char *what) {
  if (ok) {
    t->passed++;
  } else {
    t->failed++;
    fprintf(stderr, "test_index.c:%d: FAILED: %s\n", line, what);
  }
}
#define CHECK(cond) record_at(t, (cond), __LINE__, #cond)

static const char *print(Tester *t, const Ix *e) {
  Buf b;
  buf_init(&b, t->arena);
  ix_print(&b, e, NULL);
  return b.data;
}

/* ---- a parser for C index expressions, built with the constructors ---- */

typedef struct Parser {
  Tester *t;
  IxCtx *ix;
  const char *p;
  bool ok;
} Parser;

static void skip_spaces(Parser *ps) {
  while (*ps->p == ' ') ps->p++;
}

static bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static const Ix *parse_sum(Parser *ps);

/* number | name | name(digits) (a work-item function) | ( sum ) */
static const Ix *parse_atom(Parser *ps) {
  skip_spaces(ps);
  const char *start = ps->p;
  if (*ps->p == '(') {
    ps->p++;
    const Ix *e = parse_sum(ps);
    skip_spaces(ps);
    if (*ps->p != ')') ps->ok = false;
    else ps->p++;
    return e;
  }
  if (*ps->p == '-') { /* a negative constant, printed in parentheses */
    ps->p++;
    return ix_sub(ps->ix, ix_const(ps->ix, 0), parse_atom(ps));
  }
  if (*ps->p >= '0' && *ps->p <= '9') {
    int64_t v = 0;
    while (*ps->p >= '0' && *ps->p <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *ps->p - '0', &v)) {
        ps->ok = false;
      }
      ps->p++;
    }
    return ix_const(ps->ix, v);
  }
  if (!is_name_char(*ps->p)) {
    ps->ok = false;
    return ix_const(ps->ix, 0);
  }
  while (is_name_char(*ps->p)) ps->p++;
  if (*ps->p == '(') {
    while (*ps->p && *ps->p != ')') ps->p++;
    if (*ps->p == ')') ps->p++;
  }
  return ix_var(ps->ix, intern(ps->t->names, start, (size_t)(ps->p - start)));
}

static const Ix *parse_product(Parser *ps) {
  const Ix *e = parse_atom(ps);
  for (;;) {
    skip_spaces(ps);
    char op = *ps->p;
    if (op != '*' && op != '/' && op != '%') return e;
    ps->p++;
    const Ix *rhs = parse_atom(ps);
    e = op == '*' ? ix_mul(ps->ix, e, rhs) : op == '/' ? ix_div(ps->ix, e, rhs) : ix_mod(ps->ix, e, rhs);
  }
}

static const Ix *parse_sum(Parser *ps) {
  const Ix *e = parse_product(ps);
  for (;;) {
    skip_spaces(ps);
    char op = *ps->p;
    if (op != '+' && op != '-') return e;
    ps->p++;
    const Ix *rhs = parse_product(ps);
    e = op == '+' ? ix_add(ps->ix, e, rhs) : ix_sub(ps->ix, e, rhs);
  }
}

static const Ix *parse_at(Tester *t, IxCtx *ix, const char *text, size_t n, int line) {
  const char *copy = arena_strndup(t->arena, text, n);
  Parser ps = {t, ix, copy, true};
  const Ix *e = parse_sum(&ps);
  skip_spaces(&ps);
  bool ok = ps.ok && *ps.p == '\0';
  if (!ok) record_at(t, false, line, arena_printf(t->arena, "cannot parse `%s`", copy));
  return e;
}

/* ---- evaluation with C semantics ---- */

typedef struct Env {
  int n;
  Sym *names;
  int64_t *values;
} Env;

/* false where C leaves the value undefined: division by zero, overflow */
static bool eval(const Ix *e, const Env *env, int64_t *out) {
  int64_t a, b;
  switch (e->kind) {
  case IX_CONST: *out = e->value; return true;
  case IX_VAR:
    for (int i = env->n - 1; i >= 0; i--) {
      if (env->names[i] == e->name) {
        *out = env->values[i];
        return true;
      }
    }
    return false;
  case IX_EXPR: return false; /* never made here */
  default: break;
  }
  if (!eval(e->a, env, &a) || !eval(e->b, env, &b)) return false;
  switch (e->kind) {
  case IX_ADD: return !__builtin_add_overflow(a, b, out);
  case IX_SUB: return !__builtin_sub_overflow(a, b, out);
  case IX_MUL: return !__builtin_mul_overflow(a, b, out);
  case IX_DIV:
  case IX_MOD:
    if (b == 0 || (a == INT64_MIN && b == -1)) return false;
    *out = e->kind == IX_DIV ? a / b : a % b;
    return true;
  default: return false;
  }
}

/* ---- exhaustive comparison over small domains ---- */

/* A parameter's test values: lo, lo + step, ..., up to hi. */
typedef struct ParamDomain {
  Sym name;
  int64_t lo, hi, step;
} ParamDomain;

typedef struct Comparison {
  const Ix *original, *simplified;
  const IxCtx *ix;
  int nparams;
  ParamDomain *params;
  Env env;
  long assignments, defined, mismatches;
  const char *first_mismatch;
  Arena *arena;
} Comparison;

enum { MAX_ASSIGNMENTS = 4000000 };

static void describe_assignment(Comparison *c, int64_t want, bool got_defined, int64_t got) {
  Buf b;
  buf_init(&b, c->arena);
  for (int i = 0; i < c->env.n; i++) emit(&b, "%s=%" PRId64 " ", c->env.names[i], c->env.values[i]);
  if (got_defined) emit(&b, "gives %" PRId64 ", expected %" PRId64, got, want);
  else emit(&b, "is undefined, expected %" PRId64, want);
  c->first_mismatch = b.data;
}

static void compare_at_leaf(Comparison *c) {
  c->assignments++;
  int64_t want, got;
  if (!eval(c->original, &c->env, &want)) return; /* undefined in C: anything goes */
  c->defined++;
  bool got_defined = eval(c->simplified, &c->env, &got);
  if (got_defined && got == want) return;
  if (c->mismatches++ == 0) describe_assignment(c, want, got_defined, got);
}

/* level < nparams: a parameter; then the ranges, outermost first */
static void enumerate(Comparison *c, int level) {
  if (c->assignments > MAX_ASSIGNMENTS) return;
  int nranges = c->ix->nranges;
  if (level == c->nparams + nranges) {
    compare_at_leaf(c);
    return;
  }
  int slot = c->env.n++;
  if (level < c->nparams) {
    const ParamDomain *d = &c->params[level];
    c->env.names[slot] = d->name;
    for (int64_t v = d->lo; v <= d->hi; v += d->step) {
      c->env.values[slot] = v;
      enumerate(c, level + 1);
    }
  } else {
    const IxRange *r = &c->ix->ranges[level - c->nparams];
    int64_t lo = 0, hi = 0;
    c->env.n--; /* bounds are evaluated without the variable itself */
    bool defined = (!r->lo || eval(r->lo, &c->env, &lo)) && eval(r->hi, &c->env, &hi);
    c->env.n++;
    c->env.names[slot] = r->atom->name;
    if (lo < 0) lo = 0; /* every variable is >= 0 */
    for (int64_t v = lo; defined && v < hi; v++) {
      c->env.values[slot] = v;
      enumerate(c, level + 1);
    }
  }
  c->env.n--;
}

static bool is_ranged(const IxCtx *ix, Sym v) {
  for (int i = 0; i < ix->nranges; i++) {
    if (ix->ranges[i].atom->name == v) return true;
  }
  return false;
}

static void collect_params(const IxCtx *ix, const Ix *e, Sym *found, int *n) {
  if (!e) return;
  if (e->kind == IX_VAR) {
    if (is_ranged(ix, e->name)) return;
    for (int i = 0; i < *n; i++) {
      if (found[i] == e->name) return;
    }
    found[(*n)++] = e->name;
    return;
  }
  if (e->kind == IX_CONST) return;
  collect_params(ix, e->a, found, n);
  collect_params(ix, e->b, found, n);
}

static int count_vars(const Ix *e) {
  if (!e || e->kind == IX_CONST) return 0;
  if (e->kind == IX_VAR) return 1;
  return count_vars(e->a) + count_vars(e->b);
}

/* Parameter domains: "N=2048..8192:2048; M=1..4"; others 0..6. */
static int64_t domain_number(const char **p) {
  int64_t v = 0;
  while (**p >= '0' && **p <= '9') v = v * 10 + (*(*p)++ - '0');
  return v;
}

static ParamDomain domain_of(const char *spec, Sym name) {
  ParamDomain d = {name, 0, 6, 1};
  size_t len = strlen(name);
  for (const char *p = spec; p && *p; p++) {
    bool starts = (p == spec || p[-1] == ' ' || p[-1] == ';') && strncmp(p, name, len) == 0 &&
                  p[len] == '=';
    if (!starts) continue;
    p += len + 1;
    d.lo = domain_number(&p);
    if (strncmp(p, "..", 2) == 0) {
      p += 2;
      d.hi = domain_number(&p);
    } else {
      d.hi = d.lo;
    }
    if (*p == ':') {
      p++;
      d.step = domain_number(&p);
    }
    break;
  }
  return d;
}

static void compare_exhaustively(Tester *t, Comparison *c, const char *param_spec) {
  int capacity = count_vars(c->original) + count_vars(c->simplified) + 1;
  for (int i = 0; i < c->ix->nranges; i++) {
    capacity += count_vars(c->ix->ranges[i].lo) + count_vars(c->ix->ranges[i].hi);
  }
  Sym *found = NEWARRAY(t->arena, Sym, capacity);
  int n = 0;
  collect_params(c->ix, c->original, found, &n);
  collect_params(c->ix, c->simplified, found, &n);
  for (int i = 0; i < c->ix->nranges; i++) {
    collect_params(c->ix, c->ix->ranges[i].lo, found, &n);
    collect_params(c->ix, c->ix->ranges[i].hi, found, &n);
  }
  c->nparams = n;
  c->params = NEWARRAY(t->arena, ParamDomain, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) c->params[i] = domain_of(param_spec, found[i]);
  int slots = n + c->ix->nranges + 1;
  c->env = (Env){0, NEWARRAY(t->arena, Sym, slots), NEWARRAY(t->arena, int64_t, slots)};
  c->arena = t->arena;
  enumerate(c, 0);
}

/* ---- simplification cases ---- */

typedef struct Case {
  int line;
  const char *ranges; /* "wg<N/2048; 2<=i<6": pushed in this order */
  const char *params; /* test values of parameters, default 0..6 */
  const char *input;
  const char *expected;
} Case;

typedef struct CaseStats {
  long assignments, defined;
} CaseStats;

static void push_ranges(Tester *t, IxCtx *ix, const char *spec, int line) {
  const char *p = spec;
  while (*p) {
    const char *end = strchr(p, ';');
    if (!end) end = p + strlen(p);
    const char *lt = NULL, *le = NULL;
    for (const char *q = p; q < end; q++) {
      if (q[0] != '<') continue;
      if (q[1] == '=') le = q;
      else lt = q;
    }
    const char *name_start = le ? le + 2 : p;
    const Ix *lo = le ? parse_at(t, ix, p, (size_t)(le - p), line) : NULL;
    while (*name_start == ' ') name_start++;
    const char *name_end = lt;
    while (name_end > name_start && name_end[-1] == ' ') name_end--;
    if (!lt || name_end <= name_start) {
      record_at(t, false, line, "bad range");
      return;
    }
    Sym var = intern(t->names, name_start, (size_t)(name_end - name_start));
    const Ix *hi = parse_at(t, ix, lt + 1, (size_t)(end - lt - 1), line);
    ix_push_range(ix, ix_var(ix, var), lo, hi);
    p = *end ? end + 1 : end;
  }
}

static void run_case(Tester *t, const Case *k, CaseStats *stats) {
  IxCtx ix;
  ix_init(&ix, t->arena);
  push_ranges(t, &ix, k->ranges, k->line);
  const Ix *input = parse_at(t, &ix, k->input, strlen(k->input), k->line);
  const Ix *simplified = ix_simplify(&ix, input);
  const char *got = print(t, simplified);
  if (strcmp(got, k->expected) == 0) {
    t->passed++;
  } else {
    record_at(t, false, k->line,
              arena_printf(t->arena, "`%s` simplified to `%s`, expected `%s`", k->input, got,
                           k->expected));
  }
  Comparison c = {.original = input, .simplified = simplified, .ix = &ix};
  compare_exhaustively(t, &c, k->params);
  stats->assignments += c.assignments;
  stats->defined += c.defined;
  if (c.assignments > MAX_ASSIGNMENTS) {
    record_at(t, false, k->line, "test domain too large");
  } else if (c.mismatches > 0) {
    record_at(t, false, k->line,
              arena_printf(t->arena, "`%s` -> `%s` changes the value %ld times, first: %s",
                           k->input, got, c.mismatches, c.first_mismatch));
  } else {
    t->passed++;
  }
  bool not_longer = strlen(got) <= strlen(print(t, input));
  record_at(t, not_longer, k->line, arena_printf(t->arena, "`%s` got longer", k->input));
}

#define CASE(ranges, params, input, expected) {__LINE__, ranges, params, input, expected}

static const Case cases[] = {
    /* constant folding and the normal form of sums of products */
    CASE("", "", "2 + 3*4", "14"),
    CASE("", "", "3 - 5", "-2"),
    CASE("", "", "i + 0", "i"),
    CASE("", "", "i*1", "i"),
    CASE("", "", "i*0 + j", "j"),
    CASE("", "", "j + i", "i + j"),
    CASE("", "", "i + j - i", "j"),
    CASE("", "", "i*2 + i*3", "i*5"),
    /* a common factor of 2 only: the search tries it (index.c, coprime_coefficients) */
    CASE("", "", "abc*2 + de*2 + f*2", "(abc + de + f)*2"),
    CASE("", "", "(a - b) - (a - b)", "0"),
    CASE("", "", "a - (b + c)", "a - b - c"),
    CASE("", "", "0 - x", "0 - x"),
    CASE("", "", "x - y*2", "x - y*2"),
    CASE("", "", "(i + 1)*(i + 1)", "i*i + i*2 + 1"),
    CASE("", "", "4*i + 4*j + 4*k", "(i + j + k)*4"),
    CASE("", "", "n*i + n", "n*i + n"), /* (i + 1)*n, the row-major form, is longer than the input */
    CASE("", "", "(i*4 + 1)*n + c", "(i*4 + 1)*n + c"), /* not i*n*4 + n + c: row i*4 + 1 */
    CASE("", "", "(a + b)*(c + d)", "(a + b)*(c + d)"),
    CASE("i<4; j<4", "", "j*4 + i", "j*4 + i"),
    CASE("i<4; j<4", "", "i + 4*j", "j*4 + i"),
    CASE("i<N; j<M", "", "M*i + j", "i*M + j"),
    CASE("", "", "9223372036854775807 + 1", "9223372036854775807 + 1"),
    CASE("", "", "i*4611686018427387904*4", "i*4611686018427387904*4"),
    /* division and remainder by constants */
    CASE("i<8", "", "i/8", "0"),
    CASE("i<8", "", "i%8", "i"),
    CASE("i<9", "", "i/8", "i/8"),
    CASE("i<9", "", "i%8", "i%8"),
    CASE("j<2048", "", "(i*2048 + j)/2048", "i"),
    CASE("j<2048", "", "(i*2048 + j)%2048", "j"),
    CASE("j<2048", "", "(j + i*2048)/2048", "i"),
    CASE("", "", "(i*2048 + j)/2048", "i + j/2048"),
    CASE("", "", "(i*2048 + j)%2048", "j%2048"),
    CASE("", "", "i*4/8", "i/2"),
    CASE("", "", "i*4%8", "i%2*4"),
    CASE("", "", "(i*4 + 2)/2", "i*2 + 1"),
    CASE("", "", "(i*6 + 3)%3", "0"),
    CASE("", "", "i/4/2", "i/8"),
    CASE("", "", "i%8%4", "i%4"),
    CASE("", "", "i%4%8", "i%4"),
    CASE("", "", "i/4*4 + i%4", "i"),
    CASE("", "", "i - i/4*4", "i%4"),
    CASE("", "", "i/4*8 + i%4*2", "i*2"),
    CASE("j<4", "", "(i*4 + j)/4*4 + (i*4 + j)%4", "i*4 + j"),
    CASE("i<65", "", "(i + 63)/64", "(i + 63)/64"),
    CASE("1<=i<64", "", "(i - 1)/64", "0"),
    CASE("i<64", "", "(i - 1)/64", "(i - 1)/64"),
    CASE("i<64", "", "(i - 1)%64", "(i - 1)%64"),
    CASE("", "", "(5 - 7)/2", "-1"),
    CASE("", "", "7/0", "7/0"),
    CASE("i<8", "", "(i*3 + 2)%3", "2"),
    CASE("i<8", "", "(i*3 + 5)/3", "i + 1"),
    CASE("i<8", "", "(i*3 + 5)%3", "2"),
    CASE("i<N; j<4", "", "(i*4 + j)/2", "i*2 + j/2"),
    CASE("i<N; j<4", "", "(i*4 + j)%2", "j%2"),
    CASE("2<=i<6", "", "(i - 2)%4", "i - 2"),
    CASE("2<=i<6", "", "(i - 2)/4", "0"),
    CASE("2<=i<7", "", "(i - 2)/4", "(i - 2)/4"),
    /* symbolic divisors */
    CASE("j<M", "", "(i*M + j)/M", "i"),
    CASE("j<M", "", "(i*M + j)%M", "j"),
    CASE("", "", "(i*M + j)/M", "i + j/M"),
    CASE("", "", "i*M/M", "i"),
    CASE("", "", "i*M%M", "0"),
    CASE("j<M", "", "(j + M)/M", "1"),
    CASE("i<N; j<M", "", "(i*M + j)/M%N", "i"),
    CASE("i<N; j<M; k<K", "", "(i*M*K + j*K + k)/K", "i*M + j"),
    CASE("i<N; j<M; k<K", "", "((i*M + j)*K + k)%K", "k"),
    CASE("i<N; j<M; k<K", "", "((i*M + j)*K + k)/K%M", "j"),
    CASE("i<N; j<M; k<K", "", "((i*M + j)*K + k)/(M*K)", "i"),
    CASE("i<N; j<M; k<K", "", "((i*M + j)*K + k)/K/M", "i"),
    CASE("i<N; j<M; k<K", "", "((i*M + j)*K + k)%(M*K)", "j*K + k"),
    CASE("", "", "x/K/M", "x/K/M"),
    CASE("", "", "x/M/K", "x/K/M"),
    CASE("", "", "x/(M*K)", "x/K/M"),
    CASE("", "", "x/(2*M)", "x/M/2"),
    CASE("j<M", "", "(i*M + j)/(M*2)", "i/2"),
    CASE("j<M", "", "(i*M*2 + j)/(M*2)", "i"),
    CASE("j<M", "", "(i*M*2 + j)%(M*2)", "j"),
    CASE("", "", "1/(n*2)", "0"),
    CASE("", "", "(n + 1)/(n*2)", "(1/n + 1)/2"),
    /* deep tiling: six nested splits by 4 */
    CASE("a<N; b<4; c<4; d<4; e<4; f<4", "N=0..3", "((((a*4 + b)*4 + c)*4 + d)*4 + e)*4 + f",
         "(a*16 + b*4 + c)*64 + d*16 + e*4 + f"),
    CASE("a<N; b<4; c<4; d<4; e<4; f<4", "N=0..3", "(((((a*4 + b)*4 + c)*4 + d)*4 + e)*4 + f)/256",
         "a*4 + b"),
    CASE("a<N; b<4; c<4; d<4; e<4; f<4", "N=0..3", "(((((a*4 + b)*4 + c)*4 + d)*4 + e)*4 + f)%256",
         "c*64 + d*16 + e*4 + f"),
    CASE("a<N; b<4; c<4; d<4; e<4; f<4", "N=0..3",
         "(((((a*4 + b)*4 + c)*4 + d)*4 + e)*4 + f)%256/16%4", "d"),
    /* polynomial divisors, as padded sizes make them */
    CASE("i<N; j<n + 2", "", "(i*(n + 2) + j)/(n + 2)", "i"),
    CASE("i<N; j<n + 2", "", "(i*(n + 2) + j)%(n + 2)", "j"),
    CASE("", "", "(j*2*(n + 1) + 40)/(n + 1)", "j*2 + 40/(n + 1)"),
    CASE("", "", "(n*j + 3)/(n + 1)", "(j*n + 3)/(n + 1)"),
    CASE("", "", "x/4*y + x/4*z", "x/4*(y + z)"),
    CASE("", "", "(16 + n%(n*2))%16*32*(j + i)", "n%16*(i + j)*32"),
    /* the paper's vectorised dot product (section 6.3) */
    CASE("wg<N/131072; l<64; i<2048", "N=0..393216:131072", "((wg*64 + l)*2048 + i)/2048",
         "wg*64 + l"),
    CASE("wg<N/131072; l<64; i<2048", "N=0..393216:131072", "((wg*64 + l)*2048 + i)%2048", "i"),
    CASE("wg<N/131072; l<64; i<2048", "N=0..393216:131072", "((wg*64 + l)*2048 + i)/131072",
         "wg"),
    CASE("wg<N/131072; l<64; i<2048", "N=0..393216:131072",
         "((wg*64 + l)*2048 + i)%131072/2048", "l"),
    CASE("wg<N/131072; l<64; i<2048", "N=0..393216:131072", "wg*131072 + l*2048 + i",
         "(wg*64 + l)*2048 + i"),
    CASE("wg<N/131072; l<64; i<2048", "N=0..393216:131072", "2048*l + 8192*4*wg + i",
         "(wg*16 + l)*2048 + i"),
    CASE("wg<N/524288; l<64; i<2048", "N=0..1048576:524288", "((wg*64 + l)*2048 + i)/2048",
         "wg*64 + l"),
    CASE("get_group_id(0)<N/131072; get_local_id(0)<64; i<2048", "N=131072..262144:131072",
         "((get_group_id(0)*64 + get_local_id(0))*2048 + i)/2048",
         "get_group_id(0)*64 + get_local_id(0)"),
    /* dependent ranges and subtraction */
    CASE("i<n; j<i", "", "j%i", "j"),
    CASE("i<n; j<i", "", "(i*n + j)/n", "i"),
    CASE("i<n", "", "(n - 1 - i)%n", "n - i - 1"),
    CASE("i<n", "", "(n - i)%n", "(n - i)%n"),
    CASE("wg<N/2048; i<2048", "N=0..8200:1025", "(wg*2048 + i)%N", "wg*2048 + i"),
    CASE("wg<N/2048; i<2048", "N=0..8200:1025", "(wg*2048 + i)/N", "0"),
    CASE("i<N/4; j<4", "N=0..24:4", "(i*4 + j)/4*4 + (i*4 + j)%4", "i*4 + j"),
    CASE("", "", "x - x%8", "x - x%8"),
};

static void test_cases(Tester *t) {
  CaseStats stats = {0, 0};
  for (size_t i = 0; i < DPIA_COUNTOF(cases); i++) run_case(t, &cases[i], &stats);
  printf("index: %zu cases, %ld assignments, %ld where the input is defined\n",
         DPIA_COUNTOF(cases), stats.assignments, stats.defined);
}

/* ---- the memo: results kept by input and ranges ---- */

/* One context for every case, as code generation uses one for a kernel:
 * each case twice (the second answered from the memo, or from what the
 * memo kept of other cases with the same ranges), and its result
 * simplified again, which must print as in a context of its own (a
 * simplified index's polynomial is kept for the next simplification
 * that meets it: index.c, remember_poly). */
static void test_memo_cases(Tester *t) {
  IxCtx shared;
  ix_init(&shared, t->arena);
  for (size_t i = 0; i < DPIA_COUNTOF(cases); i++) {
    const Case *k = &cases[i];
    push_ranges(t, &shared, k->ranges, k->line);
    const Ix *simplified = NULL;
    for (int round = 0; round < 2; round++) {
      simplified = ix_simplify(&shared, parse_at(t, &shared, k->input, strlen(k->input), k->line));
      const char *got = print(t, simplified);
      record_at(t, strcmp(got, k->expected) == 0, k->line,
                arena_printf(t->arena, "`%s` simplified to `%s` in a shared context (round %d), expected `%s`",
                             k->input, got, round + 1, k->expected));
    }
    const char *again = print(t, ix_simplify(&shared, simplified));
    IxCtx own;
    ix_init(&own, t->arena);
    push_ranges(t, &own, k->ranges, k->line);
    const char *alone = print(t, ix_simplify(&own, simplified));
    record_at(t, strcmp(again, alone) == 0, k->line,
              arena_printf(t->arena, "`%s` simplified again to `%s`, alone to `%s`", k->expected, again, alone));
    while (shared.nranges > 0) ix_pop_range(&shared);
  }
}

static void test_memo(Tester *t) {
  IxCtx ix;
  ix_init(&ix, t->arena);
  const Ix *i = ix_var(&ix, intern_cstr(t->names, "i"));
  const Ix *j = ix_var(&ix, intern_cstr(t->names, "j"));
  const Ix *k16 = ix_const(&ix, 16);
  /* equal inputs under the same ranges: the same result, not made again */
  ix_push_range(&ix, i, NULL, ix_const(&ix, 64));
  const Ix *first = ix_simplify(&ix, ix_add(&ix, ix_mul(&ix, i, k16), ix_mod(&ix, i, k16)));
  const Ix *second = ix_simplify(&ix, ix_add(&ix, ix_mul(&ix, i, k16), ix_mod(&ix, i, k16)));
  CHECK(first == second);
  ix_pop_range(&ix);
  /* other ranges, another result: i%16 is i only while i < 16 */
  ix_push_range(&ix, i, NULL, k16);
  CHECK(strcmp(print(t, ix_simplify(&ix, ix_mod(&ix, i, k16))), "i") == 0);
  ix_pop_range(&ix);
  CHECK(strcmp(print(t, ix_simplify(&ix, ix_mod(&ix, i, k16))), "i%16") == 0);
  ix_push_range(&ix, i, NULL, ix_const(&ix, 32));
  CHECK(strcmp(print(t, ix_simplify(&ix, ix_mod(&ix, i, k16))), "i%16") == 0);
  /* back from an inner range to the same ranges: the same results */
  ix_push_range(&ix, j, NULL, ix_const(&ix, 4));
  CHECK(strcmp(print(t, ix_simplify(&ix, ix_mod(&ix, ix_add(&ix, ix_mul(&ix, i, ix_const(&ix, 4)), j),
                                                ix_const(&ix, 4)))),
               "j") == 0);
  ix_pop_range(&ix);
  CHECK(strcmp(print(t, ix_simplify(&ix, ix_mod(&ix, ix_add(&ix, ix_mul(&ix, i, ix_const(&ix, 4)), j),
                                                ix_const(&ix, 4)))),
               "j%4") == 0);
  ix_pop_range(&ix);
  ix_push_range(&ix, i, NULL, k16);
  CHECK(strcmp(print(t, ix_simplify(&ix, ix_mod(&ix, i, k16))), "i") == 0);
  ix_pop_range(&ix);
  /* sizes: equal sizes give the same expression */
  SizeCtx sc = {t->arena, false};
  Size n = size_mul(&sc, size_var(&sc, intern_cstr(t->names, "N")), size_const(&sc, 4));
  CHECK(ix_from_size(&ix, n) ==
        ix_from_size(&ix, size_mul(&sc, size_const(&sc, 4), size_var(&sc, intern_cstr(t->names, "N")))));
}

/* The leaves of a context (IxCtx.recent): a constant or a variable asked
 * for again is the node made before where its slot still holds it, and
 * whatever the slot holds the node has the value or name asked for, with
 * the length and hash a leaf made alone (another context's) has: values
 * and names that share slots, asked for in turns. */
/* what ix_seal keeps of a node for its parents' parentheses
 * (Ix.precedence, Ix.starts_quotient), asked of the tree as the printer
 * once did: the binding strength by kind, and a quotient at the start of
 * a chain of products walked down its left operands */
static int walked_precedence(const Ix *e) {
  switch (e->kind) {
  case IX_CONST: return e->value < 0 ? 0 : 3;
  case IX_VAR:
  case IX_EXPR: return 3;
  case IX_ADD:
  case IX_SUB: return 1;
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: return 2;
  }
  return -1;
}

static bool walked_starts_quotient(const Ix *e) {
  if (e->kind == IX_DIV || e->kind == IX_MOD) return true;
  if (e->kind != IX_MUL) return false;
  int left = walked_precedence(e->a);
  return (left == 0 || left >= 2) && walked_starts_quotient(e->a);
}

static void test_recent_leaves(Tester *t) {
  IxCtx ix, alone;
  ix_init(&ix, t->arena);
  static const int64_t values[] = {0, 1, -1, 2, 4, 16, 32, 64, 96, 128, 4096, 65536, -4096, INT64_MAX, INT64_MIN};
  static const char *const names[] = {"i", "j", "wg", "lid", "N", "M", "i_2", "gid"};
  int nvalues = (int)(sizeof values / sizeof values[0]), nnames = (int)(sizeof names / sizeof names[0]);
  for (int round = 0; round < 3; round++) {
    for (int64_t v = -70; v < 70 + round * 500; v += 1 + round) {
      int64_t w = v % 3 == 0 ? values[(v < 0 ? -v : v) % nvalues] : v;
      const Ix *got = ix_const(&ix, w);
      ix_init(&alone, t->arena);
      const Ix *made = ix_const(&alone, w);
      CHECK(got->kind == IX_CONST && got->value == w && got->length == made->length && got->hash == made->hash);
      CHECK(ix_const(&ix, w) == got); /* asked again at once: the same node */
    }
    for (int n = 0; n < 120; n++) { /* more names than slots: some share one */
      const char *text = n < nnames ? names[n] : arena_printf(t->arena, "v%d", (n * (round + 1)) % 97);
      Sym name = intern_cstr(t->names, text);
      const Ix *got = ix_var(&ix, name);
      ix_init(&alone, t->arena);
      const Ix *made = ix_var(&alone, name);
      CHECK(got->kind == IX_VAR && got->name == name && got->length == made->length && got->hash == made->hash);
      CHECK(ix_var(&ix, name) == got);
    }
  }
  /* operator nodes (ix_node): of leaves and of nodes made before, each
   * with the operator and the very operands asked for, the length and hash
   * of the node made alone */
  const Ix *made[64];
  int nmade = 0;
  for (int n = 0; n < 8; n++) made[nmade++] = n % 2 ? ix_var(&ix, intern_cstr(t->names, names[n])) : ix_const(&ix, n % 4 ? n + 2 : -(n + 2));
  static const IxKind kinds[] = {IX_ADD, IX_SUB, IX_MUL, IX_DIV, IX_MOD};
  uint32_t seed = 12345;
  for (int n = 0; n < 3000; n++) {
    seed = seed * 1103515245u + 12345u;
    IxKind kind = kinds[(seed >> 16) % 5];
    const Ix *a = made[(seed >> 8) % (uint32_t)nmade], *b = made[(seed >> 20) % (uint32_t)nmade];
    const Ix *got = ix_node(&ix, kind, a, b);
    Ix alone_node = {.kind = kind, .a = a, .b = b};
    ix_seal(&alone_node);
    CHECK(got->kind == kind && got->a == a && got->b == b && got->length == alone_node.length &&
          got->hash == alone_node.hash && got->divides == alone_node.divides);
    CHECK(got->precedence == walked_precedence(got) && got->starts_quotient == walked_starts_quotient(got));
    CHECK(ix_node(&ix, kind, a, b) == got);
    if (nmade < 64 && got->length < 40) made[nmade++] = got;
  }
}

/* ---- printing: the fewest parentheses that keep the value ---- */

static void check_print_at(Tester *t, const Ix *e, const char *expected, int line) {
  const char *got = print(t, e);
  record_at(t, strcmp(got, expected) == 0, line,
            arena_printf(t->arena, "printed `%s`, expected `%s`", got, expected));
}
#define CHECK_PRINT(e, expected) check_print_at(t, (e), (expected), __LINE__)

static void test_printing(Tester *t) {
  IxCtx ix;
  ix_init(&ix, t->arena);
  const Ix *a = ix_var(&ix, intern_cstr(t->names, "a"));
  const Ix *b = ix_var(&ix, intern_cstr(t->names, "b"));
  const Ix *c = ix_var(&ix, intern_cstr(t->names, "c"));
  CHECK_PRINT(ix_sub(&ix, a, ix_add(&ix, b, c)), "a - (b + c)");
  CHECK_PRINT(ix_sub(&ix, a, ix_sub(&ix, b, c)), "a - (b - c)");
  CHECK_PRINT(ix_add(&ix, a, ix_sub(&ix, b, c)), "a + b - c");
  CHECK_PRINT(ix_sub(&ix, ix_add(&ix, a, b), c), "a + b - c");
  CHECK_PRINT(ix_div(&ix, ix_mul(&ix, a, b), c), "a*b/c");
  CHECK_PRINT(ix_div(&ix, a, ix_mul(&ix, b, c)), "a/(b*c)");
  CHECK_PRINT(ix_mul(&ix, a, ix_div(&ix, b, c)), "a*(b/c)");
  CHECK_PRINT(ix_mul(&ix, a, ix_mul(&ix, b, c)), "a*b*c");
  CHECK_PRINT(ix_mul(&ix, ix_add(&ix, a, b), c), "(a + b)*c");
  CHECK_PRINT(ix_mul(&ix, c, ix_add(&ix, a, b)), "c*(a + b)");
  CHECK_PRINT(ix_mod(&ix, a, ix_mod(&ix, b, c)), "a%(b%c)");
  CHECK_PRINT(ix_mod(&ix, ix_div(&ix, a, b), c), "a/b%c");
  CHECK_PRINT(ix_div(&ix, ix_sub(&ix, a, b), ix_const(&ix, 2)), "(a - b)/2");
  CHECK_PRINT(ix_sub(&ix, a, ix_mul(&ix, b, c)), "a - b*c");
  CHECK_PRINT(ix_add(&ix, ix_mul(&ix, a, ix_const(&ix, 2048)), b), "a*2048 + b");
  CHECK_PRINT(ix_mul(&ix, a, ix_const(&ix, -2)), "a*(-2)");
  CHECK_PRINT(ix_sub(&ix, a, ix_const(&ix, -2)), "a - (-2)");
  CHECK_PRINT(ix_add(&ix, ix_const(&ix, -2), a), "-2 + a");
  CHECK_PRINT(ix_const(&ix, -7), "-7");
  /* the constructors fold constants and the neutral elements only */
  CHECK_PRINT(ix_add(&ix, ix_const(&ix, 2), ix_const(&ix, 3)), "5");
  CHECK_PRINT(ix_mul(&ix, a, ix_const(&ix, 1)), "a");
  CHECK_PRINT(ix_mul(&ix, ix_const(&ix, 0), a), "0");
  CHECK_PRINT(ix_add(&ix, ix_const(&ix, 0), a), "a");
  CHECK_PRINT(ix_sub(&ix, a, a), "0");
  CHECK_PRINT(ix_div(&ix, a, ix_const(&ix, 1)), "a");
  CHECK_PRINT(ix_mod(&ix, a, ix_const(&ix, 1)), "0");
  CHECK_PRINT(ix_div(&ix, ix_const(&ix, -7), ix_const(&ix, 2)), "-3");
  CHECK_PRINT(ix_mod(&ix, ix_const(&ix, -7), ix_const(&ix, 2)), "-1");
  CHECK_PRINT(ix_div(&ix, ix_const(&ix, 7), ix_const(&ix, 0)), "7/0");
  CHECK_PRINT(ix_add(&ix, ix_const(&ix, INT64_MAX), ix_const(&ix, 1)), "9223372036854775807 + 1");

  int64_t v = 0;
  CHECK(ix_const_value(ix_mul(&ix, ix_const(&ix, 6), ix_const(&ix, 7)), &v) && v == 42);
  CHECK(!ix_const_value(a, &v));
  CHECK(ix_equal(ix_add(&ix, a, b), ix_add(&ix, ix_var(&ix, intern_cstr(t->names, "a")), b)));
  CHECK(!ix_equal(ix_add(&ix, a, b), ix_add(&ix, b, a)));
  CHECK(!ix_equal(ix_div(&ix, a, b), ix_mod(&ix, a, b)));
}

/* ---- sizes as index expressions ---- */

static void check_size_at(Tester *t, IxCtx *ix, Size s, const char *expected, int line) {
  check_print_at(t, ix_from_size(ix, s), expected, line);
}
#define CHECK_SIZE(s, expected) check_size_at(t, &ix, (s), (expected), __LINE__)

static void test_from_size(Tester *t) {
  IxCtx ix;
  ix_init(&ix, t->arena);
  SizeCtx sc = {t->arena, false};
  Size n = size_var(&sc, intern_cstr(t->names, "N"));
  Size m = size_var(&sc, intern_cstr(t->names, "M"));
  Size k2048 = size_const(&sc, 2048), two = size_const(&sc, 2);
  Size q;
  CHECK_SIZE(size_const(&sc, 0), "0");
  CHECK_SIZE(size_const(&sc, 7), "7");
  CHECK_SIZE(n, "N");
  CHECK(size_div(&sc, n, k2048, &q));
  CHECK_SIZE(q, "N/2048");
  CHECK_SIZE(size_add(&sc, size_mul(&sc, two, n), size_const(&sc, 1)), "N*2 + 1");
  CHECK_SIZE(size_sub(&sc, n, m), "N - M");
  CHECK_SIZE(size_sub(&sc, size_const(&sc, 1), n), "1 - N");
  CHECK_SIZE(size_mul(&sc, n, m), "M*N");
  CHECK(size_div(&sc, size_mul(&sc, n, m), size_const(&sc, 4), &q));
  CHECK_SIZE(q, "M*N/4");
  CHECK(size_div(&sc, size_add(&sc, n, m), two, &q));
  CHECK_SIZE(q, "(M + N)/2");
  CHECK(size_div(&sc, n, size_mul(&sc, two, m), &q));
  CHECK_SIZE(q, "N/(M*2)");
  CHECK(size_div(&sc, size_mul(&sc, n, size_const(&sc, 128)), k2048, &q));
  CHECK_SIZE(q, "N/16");
  CHECK_SIZE(size_mul(&sc, n, n), "N*N");
  /* the numerator and denominator are size_print's: factors in name order */
  Size a = size_var(&sc, intern_cstr(t->names, "A"));
  CHECK(size_div(&sc, size_const(&sc, 1), a, &q));
  CHECK_SIZE(size_add(&sc, n, q), "(A*N + 1)/A");
  /* no common denominator in int64: one division per term */
  Size p1, p2;
  CHECK(size_div(&sc, n, size_const(&sc, 4294967291), &p1));
  CHECK(size_div(&sc, m, size_const(&sc, 4294967279), &p2));
  CHECK_SIZE(size_add(&sc, p1, p2), "M/4294967279 + N/4294967291");
  CHECK_SIZE(size_sub(&sc, p1, p2), "N/4294967291 - M/4294967279");
  CHECK(!sc.overflow);

  /* the value agrees with size_eval wherever the division is exact */
  CHECK(size_div(&sc, size_sub(&sc, size_mul(&sc, n, m), n), size_mul(&sc, two, m), &q));
  const Ix *e = ix_from_size(&ix, q);
  Sym names[2] = {intern_cstr(t->names, "N"), intern_cstr(t->names, "M")};
  int64_t values[2];
  Env env = {2, names, values};
  int agreements = 0, exact = 0;
  for (values[0] = 0; values[0] < 40; values[0]++) {
    for (values[1] = 1; values[1] < 9; values[1]++) {
      int64_t from_ix;
      if ((values[0] * values[1] - values[0]) % (2 * values[1]) != 0) continue;
      exact++;
      agreements += eval(e, &env, &from_ix) &&
                    from_ix == (values[0] * values[1] - values[0]) / (2 * values[1]);
    }
  }
  CHECK(exact > 20 && agreements == exact);
}

/* ---- bounds ---- */

static void test_bounds(Tester *t) {
  IxCtx ix;
  ix_init(&ix, t->arena);
  Sym i = intern_cstr(t->names, "i"), j = intern_cstr(t->names, "j");
  Sym wg = intern_cstr(t->names, "wg"), m = intern_cstr(t->names, "M");
  Sym n = intern_cstr(t->names, "N");
  const Ix *vi = ix_var(&ix, i), *vj = ix_var(&ix, j), *vm = ix_var(&ix, m);
  const Ix *vwg = ix_var(&ix, wg), *vn = ix_var(&ix, n);
  ix_push_range(&ix, vi, NULL, ix_const(&ix, 64));
  CHECK(ix_provably_less(&ix, vi, ix_const(&ix, 64)));
  CHECK(!ix_provably_less(&ix, vi, ix_const(&ix, 63)));
  CHECK(ix_provably_less(&ix, ix_mul(&ix, vi, ix_const(&ix, 2)), ix_const(&ix, 127)));
  CHECK(!ix_provably_less(&ix, ix_const(&ix, 0), vi)); /* i may be 0 */
  ix_push_range(&ix, vj, NULL, vm);
  CHECK(ix_provably_less(&ix, vj, vm));
  CHECK(ix_provably_less(&ix, vj, ix_add(&ix, vm, ix_const(&ix, 1))));
  CHECK(!ix_provably_less(&ix, ix_mul(&ix, vj, ix_const(&ix, 2)), vm));
  CHECK(ix_provably_less(&ix, ix_add(&ix, ix_mul(&ix, vi, vm), vj), ix_mul(&ix, ix_const(&ix, 64), vm)));
  /* j is no longer in range after its loop */
  ix_pop_range(&ix);
  CHECK(!ix_provably_less(&ix, vj, vm));
  CHECK(ix_equal(ix_simplify(&ix, ix_mod(&ix, vi, ix_const(&ix, 64))), vi));
  ix_pop_range(&ix);
  CHECK(!ix_provably_less(&ix, vi, ix_const(&ix, 64)));
  CHECK(strcmp(print(t, ix_simplify(&ix, ix_mod(&ix, vi, ix_const(&ix, 64)))), "i%64") == 0);
  /* symbolic bound: wg < N/2048 gives wg*2048 + i < N for i < 2048 */
  ix_push_range(&ix, vwg, NULL, ix_div(&ix, vn, ix_const(&ix, 2048)));
  ix_push_range(&ix, vi, NULL, ix_const(&ix, 2048));
  CHECK(ix_provably_less(&ix, ix_add(&ix, ix_mul(&ix, vwg, ix_const(&ix, 2048)), vi), vn));
  CHECK(!ix_provably_less(&ix, ix_add(&ix, ix_mul(&ix, vwg, ix_const(&ix, 2049)), vi), vn));
  ix_pop_range(&ix);
  ix_pop_range(&ix);
  CHECK(ix.nranges == 0);
}

/* min and max decided (ix_min_max): the operand that is the smaller (the
 * larger) for every value, an equal one included; none where either may
 * be. */
static void test_min_max(Tester *t) {
  IxCtx ix;
  ix_init(&ix, t->arena);
  const Ix *vi = ix_var(&ix, intern_cstr(t->names, "i")), *vn = ix_var(&ix, intern_cstr(t->names, "N"));
  const Ix *k = ix_var(&ix, intern_cstr(t->names, "K"));
  const Ix *zero = ix_const(&ix, 0);
  /* min(N, N) = max(N, N) = N, built apart (equal, not the same node) */
  const Ix *n2 = ix_add(&ix, ix_var(&ix, intern_cstr(t->names, "N")), zero);
  CHECK(ix_min_max(&ix, false, vn, n2) == vn);
  CHECK(ix_min_max(&ix, true, vn, n2) == vn);
  /* N - 5 + 1024 is past N; N - 1024 before N - 5 */
  const Ix *past = ix_add(&ix, ix_sub(&ix, vn, ix_const(&ix, 5)), ix_const(&ix, 1024));
  CHECK(ix_min_max(&ix, false, past, vn) == vn);
  CHECK(ix_min_max(&ix, true, past, vn) == past);
  const Ix *early = ix_sub(&ix, vn, ix_const(&ix, 1024)), *late = ix_sub(&ix, vn, ix_const(&ix, 5));
  CHECK(ix_min_max(&ix, false, late, early) == early);
  CHECK(ix_min_max(&ix, true, late, early) == late);
  /* every atom is at least 0: max(i*4, 0) is i*4, min(N, 0) is 0 */
  const Ix *i4 = ix_mul(&ix, vi, ix_const(&ix, 4));
  CHECK(ix_min_max(&ix, true, i4, zero) == i4);
  CHECK(ix_min_max(&ix, false, vn, zero) == zero);
  /* undecided: N - 5 may be below 0, i*4 above or below K - 4 */
  CHECK(ix_min_max(&ix, true, late, zero) == NULL);
  CHECK(ix_min_max(&ix, false, i4, ix_sub(&ix, k, ix_const(&ix, 4))) == NULL);
  CHECK(ix_min_max(&ix, false, vi, vn) == NULL);
  /* with a range pushed: i < N decides min(i, N) and max(i + 1, N) */
  ix_push_range(&ix, vi, NULL, vn);
  CHECK(ix_min_max(&ix, false, vi, vn) == vi);
  CHECK(ix_min_max(&ix, true, ix_add(&ix, vi, ix_const(&ix, 1)), vn) == vn);
  CHECK(ix_min_max(&ix, false, ix_add(&ix, vi, ix_const(&ix, 2)), vn) == NULL);
  ix_pop_range(&ix);
  CHECK(ix_min_max(&ix, false, vi, vn) == NULL);
}

/* The lanes of a vector access probed once, lane a variable
 * (ix_steps_by_lane, codegen/access.c): true only where the index with
 * the lane is the first lane's plus the lane for every lane. */
static void test_lane_steps(Tester *t) {
  IxCtx ix;
  ix_init(&ix, t->arena);
  const Ix *lane = ix_var(&ix, intern_cstr(t->names, "lane"));
  ix_push_range(&ix, lane, NULL, ix_const(&ix, 16));
#define STEPS(at0, at) ix_steps_by_lane(&ix, parse_at(t, &ix, at0, strlen(at0), __LINE__), \
                                        parse_at(t, &ix, at, strlen(at), __LINE__), lane)
  CHECK(STEPS("(wg*4096 + lid*16 + 3)*16", "(wg*4096 + lid*16 + 3)*16 + lane"));
  CHECK(STEPS("wg*65536 + lid*256 + 48", "(wg*4096 + lid*16 + 3)*16 + lane"));
  CHECK(STEPS("i*N", "lane + i*N"));
  CHECK(STEPS("0", "lane"));
  CHECK(STEPS("(i + 1)*16 - 16", "i*16 + lane"));
  CHECK(!STEPS("i*16", "i*16 + 2*lane"));    /* every other element */
  CHECK(!STEPS("i*16", "i*16 + lane + 1"));  /* lane 0 is not at i*16 */
  CHECK(!STEPS("i*16", "i*16"));             /* one element for all lanes */
  CHECK(!STEPS("i*16", "i*16 + lane*N"));    /* a column */
  CHECK(!STEPS("i*16", "(i*16 + lane)/2*2")); /* a quotient: cannot tell */
  /* at written at0 + lane is told from at0's polynomial alone (the
   * shortcut of ix_steps_by_lane); lane + at0, the same index written the
   * other way round, takes the general path: both answer alike */
  static const char *const firsts[] = {"(wg*4096 + lid*16 + 3)*16", "i*4/4", "0", "i/2*2", "(i + 1)*16 - 16",
                                       "i*16 - lane", "N%4 + i"};
  for (int f = 0; f < (int)DPIA_COUNTOF(firsts); f++) {
    const Ix *at0 = parse_at(t, &ix, firsts[f], strlen(firsts[f]), __LINE__);
    bool added = ix_steps_by_lane(&ix, at0, ix_add(&ix, at0, lane), lane);
    bool swapped = ix_steps_by_lane(&ix, at0, ix_add(&ix, lane, at0), lane);
    if (added != swapped)
      record_at(t, false, __LINE__, arena_printf(t->arena, "lanes of `%s`: %d added, %d the other way round",
                                                 firsts[f], added, swapped));
    /* a quotient left in at0 (its remainder may wrap): never */
    CHECK(added == (f != 3 && f != 6));
  }
  /* a sum of MAX_POLY_TERMS (64) atoms: one more, the lane, leaves the
   * polynomials, so the lanes cannot be told consecutive either way */
  for (int n = 63; n <= 64; n++) {
    const Ix *sum = ix_var(&ix, intern_cstr(t->names, "v0"));
    for (int v = 1; v < n; v++)
      sum = ix_add(&ix, sum, ix_var(&ix, intern_cstr(t->names, arena_printf(t->arena, "v%d", v))));
    CHECK(ix_steps_by_lane(&ix, sum, ix_add(&ix, sum, lane), lane) == (n == 63));
    CHECK(ix_steps_by_lane(&ix, sum, ix_add(&ix, lane, sum), lane) == (n == 63));
  }
  /* the same 64 terms with the lane one of them (a lane of an enclosing
   * trial: access.c): adding it again merges, no term more, so the
   * shortcut's count of terms must not decide */
  const Ix *with_lane = lane;
  for (int v = 1; v < 64; v++)
    with_lane = ix_add(&ix, with_lane, ix_var(&ix, intern_cstr(t->names, arena_printf(t->arena, "w%d", v))));
  CHECK(ix_steps_by_lane(&ix, with_lane, ix_add(&ix, with_lane, lane), lane));
  CHECK(ix_steps_by_lane(&ix, with_lane, ix_add(&ix, lane, with_lane), lane));
#undef STEPS
  /* a vloadn's offset: the index a multiple of the width */
#define MULTIPLE(e, k) ix_multiple_of(&ix, parse_at(t, &ix, e, strlen(e), __LINE__), k)
  CHECK(MULTIPLE("(wg*4096 + lid*16 + 3)*16", 16));
  CHECK(MULTIPLE("wg*512 + lid*16", 4));
  CHECK(MULTIPLE("0", 8));
  CHECK(MULTIPLE("N*64", 16));
  CHECK(!MULTIPLE("wg*512 + lid*16 + 3", 4));
  CHECK(!MULTIPLE("N", 2));
  CHECK(MULTIPLE("N/4*4", 4)); /* a quotient is an atom */
  CHECK(!MULTIPLE("N/4*4 + N%4", 4)); /* N: the coefficients cannot tell */
  CHECK(!MULTIPLE("i*16", 0));
#undef MULTIPLE
  ix_pop_range(&ix);
  CHECK(ix.nranges == 0);
}

/* ---- a vector's offset (ix_exact_quotient) ----
 *
 * Where it answers, the answer is the general path's: lane 0's index
 * simplified, divided by the width and simplified again (codegen/access.c,
 * vector_address), computed in a context of its own so that no memo entry
 * of one reaches the other. */

static const char *general_quotient(Tester *t, const char *ranges, const Ix *(*make)(IxCtx *, void *), void *arg,
                                    int64_t k) {
  IxCtx ix;
  ix_init(&ix, t->arena);
  push_ranges(t, &ix, ranges, __LINE__);
  const Ix *at = ix_simplify(&ix, make(&ix, arg));
  if (!ix_multiple_of(&ix, at, k)) return NULL;
  return print(t, ix_simplify(&ix, ix_div(&ix, at, ix_const(&ix, k))));
}

static const char *fast_quotient(Tester *t, const char *ranges, const Ix *(*make)(IxCtx *, void *), void *arg,
                                 int64_t k) {
  IxCtx ix;
  ix_init(&ix, t->arena);
  push_ranges(t, &ix, ranges, __LINE__);
  const Ix *q = ix_exact_quotient(&ix, make(&ix, arg), k);
  return q ? print(t, q) : NULL;
}

/* (a*c1 + b*c2 + c3)*k, an unrolled step's lane 0 of a vector of k */
typedef struct Step3 {
  Tester *t;
  const char *a, *b;
  int64_t c1, c2, c3, k;
} Step3;

static const Ix *make_step(IxCtx *ix, void *arg) {
  const Step3 *st = arg;
  const Ix *a = ix_var(ix, intern_cstr(st->t->names, st->a)), *b = ix_var(ix, intern_cstr(st->t->names, st->b));
  const Ix *x = ix_add(ix, ix_add(ix, ix_mul(ix, a, ix_const(ix, st->c1)), ix_mul(ix, b, ix_const(ix, st->c2))),
                       ix_const(ix, st->c3));
  return ix_mul(ix, x, ix_const(ix, st->k));
}

/* an index as text */
typedef struct Text {
  Tester *t;
  const char *text;
} Text;

static const Ix *make_text(IxCtx *ix, void *arg) {
  const Text *x = arg;
  return parse_at(x->t, ix, x->text, strlen(x->text), __LINE__);
}

static void test_exact_quotient(Tester *t) {
  static const int64_t coefficients[] = {1, 2, 3, 4, 8, 12, 16, 48, 256, 4096, 65536};
  static const int64_t widths[] = {2, 3, 16};
  static const char *const names[][2] = {{"wg", "lid"}, {"i", "j"}};
  const char *ranges = "wg<N; lid<256; i<N; j<N; gid<N; l<64";
  int answered = 0, asked = 0, wrong = 0;
  for (int n = 0; n < (int)DPIA_COUNTOF(names); n++) {
    for (int i1 = 0; i1 < (int)DPIA_COUNTOF(coefficients); i1++) {
      for (int i2 = 0; i2 < (int)DPIA_COUNTOF(coefficients); i2++) {
        for (int w = 0; w < (int)DPIA_COUNTOF(widths); w++) {
          for (int64_t c3 = 0; c3 < 18; c3 += n == 0 ? 1 : 7) {
            Step3 st = {t, names[n][0], names[n][1], coefficients[i1], coefficients[i2], c3, widths[w]};
            const char *fast = fast_quotient(t, ranges, make_step, &st, st.k);
            asked++;
            if (!fast) continue;
            answered++;
            const char *general = general_quotient(t, ranges, make_step, &st, st.k);
            if (!general || strcmp(fast, general) != 0) {
              if (wrong++ < 10)
                fprintf(stderr, "test_index.c: (%s*%lld + %s*%lld + %lld)*%lld: offset `%s`, the general path's `%s`\n",
                        st.a, (long long)st.c1, st.b, (long long)st.c2, (long long)c3, (long long)st.k, fast,
                        general ? general : "(not a multiple)");
            }
          }
        }
      }
    }
  }
  /* four terms whose coefficients share many factors, so that factorings
   * (nested ones too) win as often as the flat sum: its shortcut
   * (ix_flat_is_shortest) must tell them apart */
  static const int64_t shared[] = {1, 2, 4, 6, 10, 12, 15, 30, 100, 1024};
  static const int64_t constants[] = {0, 1, 3, 6, 12, 30};
  for (int i1 = 0; i1 < (int)DPIA_COUNTOF(shared); i1++) {
    for (int i2 = 0; i2 < (int)DPIA_COUNTOF(shared); i2++) {
      for (int i3 = 0; i3 < (int)DPIA_COUNTOF(shared); i3++) {
        for (int i4 = 0; i4 < (int)DPIA_COUNTOF(constants); i4++) {
          char text[128];
          snprintf(text, sizeof text, "(i*%lld + j*%lld + l*%lld + %lld)*2", (long long)shared[i1],
                   (long long)shared[i2], (long long)shared[i3], (long long)constants[i4]);
          Text x = {t, text};
          const char *fast = fast_quotient(t, ranges, make_text, &x, 2);
          asked++;
          if (!fast) continue;
          answered++;
          const char *general = general_quotient(t, ranges, make_text, &x, 2);
          if ((!general || strcmp(fast, general) != 0) && wrong++ < 10)
            fprintf(stderr, "test_index.c: %s: offset `%s`, the general path's `%s`\n", text, fast,
                    general ? general : "(not a multiple)");
        }
      }
    }
  }
  record_at(t, wrong == 0, __LINE__, "ix_exact_quotient agrees with the general path (see above)");
  /* not vacuous: the steps of samples/dot_vec.dpia's space are answered */
  CHECK(answered > asked / 2);
  static const struct {
    const char *at;
    int64_t k;
    const char *offset;
  } known[] = {
      {"(wg*4096 + lid*16 + 3)*16", 16, "wg*4096 + lid*16 + 3"},
      {"(wg*512 + lid*16 + 15)*2", 2, "wg*512 + lid*16 + 15"},
      /* S's length told exactly where its flat sum is its form: the
       * bound alone leaves these to the general path */
      {"(wg*1024 + lid*16 + 10)*4", 4, "wg*1024 + lid*16 + 10"},
      {"(wg*1024 + lid*16 + 12)*2", 2, "wg*1024 + lid*16 + 12"},
      {"(i + j + 1)*4", 4, "i + j + 1"},
      {"(i*N + j)*8", 8, "i*N + j"},
  };
  for (int c = 0; c < (int)DPIA_COUNTOF(known); c++) {
    Text x = {t, known[c].at};
    const char *fast = fast_quotient(t, ranges, make_text, &x, known[c].k);
    const char *general = general_quotient(t, ranges, make_text, &x, known[c].k);
    CHECK(fast && general && strcmp(fast, known[c].offset) == 0 && strcmp(general, fast) == 0);
  }
  /* no answer: not a multiple of the width, a quotient atom, a width of 1 */
  Text not_multiple = {t, "wg*512 + lid*16 + 3"}, quotient = {t, "(N/4 + i)*4"}, one = {t, "(i + j)*1"};
  CHECK(!fast_quotient(t, ranges, make_text, &not_multiple, 4));
  CHECK(!fast_quotient(t, ranges, make_text, &quotient, 4));
  CHECK(!fast_quotient(t, ranges, make_text, &one, 1));
  printf("index: exact quotient: %d of %d step indices answered\n", answered, asked);
}

/* ---- random expressions ---- */

typedef struct Rng {
  uint64_t state;
} Rng;

static uint64_t rng_next(Rng *r) {
  r->state ^= r->state << 13;
  r->state ^= r->state >> 7;
  r->state ^= r->state << 17;
  return r->state;
}

static int rng_below(Rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

typedef struct Generator {
  IxCtx *ix;
  Rng *rng;
  const Ix *vars[3];
  const Ix *param;
} Generator;

static const Ix *random_constant(Generator *g) {
  static const int64_t constants[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 32};
  return ix_const(g->ix, constants[rng_below(g->rng, (int)DPIA_COUNTOF(constants))]);
}

static const Ix *random_leaf(Generator *g) {
  int pick = rng_below(g->rng, 8);
  if (pick < 3) return g->vars[pick];
  if (pick == 3) return g->param;
  return random_constant(g);
}

/* mostly positive constants and the parameter; now and then 0, which
 * makes the input undefined, or a small expression */
static const Ix *random_divisor(Generator *g) {
  static const int64_t constants[] = {1, 2, 3, 4, 8, 16, 2, 4};
  int pick = rng_below(g->rng, 16);
  if (pick < 9) return ix_const(g->ix, constants[rng_below(g->rng, (int)DPIA_COUNTOF(constants))]);
  if (pick < 11) return g->param;
  if (pick == 11) return ix_mul(g->ix, g->param, ix_const(g->ix, 2));
  if (pick == 12) return ix_add(g->ix, g->param, ix_const(g->ix, 1));
  if (pick == 13) return ix_const(g->ix, 0);
  return random_leaf(g);
}

static const Ix *random_expr(Generator *g, int depth) {
  if (depth == 0 || rng_below(g->rng, 5) == 0) return random_leaf(g);
  IxCtx *ix = g->ix;
  switch (rng_below(g->rng, 9)) {
  case 0: return ix_add(ix, random_expr(g, depth - 1), random_expr(g, depth - 1));
  case 1: return ix_sub(ix, random_expr(g, depth - 1), random_expr(g, depth - 1));
  case 2: return ix_mul(ix, random_expr(g, depth - 1), random_constant(g));
  case 3: return ix_mul(ix, random_expr(g, depth - 1), random_expr(g, depth - 1));
  case 4: return ix_div(ix, random_expr(g, depth - 1), random_divisor(g));
  case 5: return ix_mod(ix, random_expr(g, depth - 1), random_divisor(g));
  default: {
    /* the shape of flattened array indices: (a*d + b)/d, (a*d + b)%d */
    const Ix *d = random_divisor(g);
    const Ix *base = ix_add(ix, ix_mul(ix, random_expr(g, depth - 1), d), random_expr(g, depth - 1));
    int how = rng_below(g->rng, 3);
    return how == 0 ? ix_div(ix, base, d) : how == 1 ? ix_mod(ix, base, d) : base;
  }
  }
}

static void test_random(Tester *t) {
  static const char *const range_sets[] = {
      "i<4; j<n; k<8",
      "i<n; j<3; 1<=k<i + 2",
      "2<=i<6; j<n*2; k<4",
      "i<n + 1; j<i + 1; k<n*3",
  };
  enum { EXPRESSIONS = 4000 };
  Rng rng = {0x9e3779b97f4a7c15u};
  int failures = 0, changed = 0, shorter = 0, multiples = 0, quotients = 0;
  long assignments = 0, defined = 0;
  for (int e = 0; e < EXPRESSIONS; e++) {
    IxCtx ix;
    ix_init(&ix, t->arena);
    push_ranges(t, &ix, range_sets[e % (int)DPIA_COUNTOF(range_sets)], __LINE__);
    Generator g = {&ix, &rng, {NULL, NULL, NULL}, ix_var(&ix, intern_cstr(t->names, "n"))};
    g.vars[0] = ix_var(&ix, intern_cstr(t->names, "i"));
    g.vars[1] = ix_var(&ix, intern_cstr(t->names, "j"));
    g.vars[2] = ix_var(&ix, intern_cstr(t->names, "k"));
    const Ix *input = random_expr(&g, 1 + rng_below(&rng, 4));
    const Ix *simplified = ix_simplify(&ix, input);
    const char *before = print(t, input), *after = print(t, simplified);
    const char *again = print(t, ix_simplify(&ix, simplified));
    Comparison c = {.original = input, .simplified = simplified, .ix = &ix};
    compare_exhaustively(t, &c, "n=0..5");
    /* the texts read back as C groups them: the same values as the trees
     * printed (a*(x/4*i) printed bare would be (a*x)/4*i) */
    Comparison read_in = {.original = input, .simplified = parse_at(t, &ix, before, strlen(before), __LINE__),
                          .ix = &ix};
    Comparison read_out = {.original = simplified, .simplified = parse_at(t, &ix, after, strlen(after), __LINE__),
                           .ix = &ix};
    compare_exhaustively(t, &read_in, "n=0..5");
    compare_exhaustively(t, &read_out, "n=0..5");
    assignments += c.assignments;
    defined += c.defined;
    changed += strcmp(before, after) != 0;
    shorter += strlen(after) < strlen(before);
    const char *problem = NULL;
    if (c.mismatches > 0) problem = arena_printf(t->arena, "changes the value: %s", c.first_mismatch);
    else if (read_in.mismatches > 0)
      problem = arena_printf(t->arena, "the input's text reads back as another value: %s", read_in.first_mismatch);
    else if (read_out.mismatches > 0)
      problem = arena_printf(t->arena, "the output's text reads back as another value: %s", read_out.first_mismatch);
    else if (strlen(after) > strlen(before)) problem = "got longer";
    else if (strcmp(again, after) != 0) problem = arena_printf(t->arena, "simplifies again to `%s`", again);
    if (problem && failures++ < 10) {
      fprintf(stderr, "test_index.c: random %d [%s]: `%s` -> `%s` %s\n", e,
              range_sets[e % (int)DPIA_COUNTOF(range_sets)], before, after, problem);
    }
    record_at(t, problem == NULL, __LINE__, "random expression (see above)");
    /* ix_multiple_of only where the remainder simplifies to 0: the
     * expression and k times it */
    static const int64_t widths[] = {2, 4, 16};
    for (int w = 0; w < (int)DPIA_COUNTOF(widths); w++) {
      const Ix *k = ix_const(&ix, widths[w]);
      const Ix *candidates[] = {simplified, ix_mul(&ix, simplified, k), ix_add(&ix, ix_mul(&ix, input, k), k)};
      for (int m = 0; m < (int)DPIA_COUNTOF(candidates); m++) {
        /* ix_exact_quotient, in a context of its own, where it answers:
         * the general path's offset */
        IxCtx fresh;
        ix_init(&fresh, t->arena);
        push_ranges(t, &fresh, range_sets[e % (int)DPIA_COUNTOF(range_sets)], __LINE__);
        const Ix *fast = ix_exact_quotient(&fresh, candidates[m], widths[w]);
        if (fast) {
          quotients++;
          const Ix *at = ix_simplify(&ix, candidates[m]);
          const char *general = ix_multiple_of(&ix, at, widths[w]) ? print(t, ix_simplify(&ix, ix_div(&ix, at, k))) : "";
          bool same = strcmp(print(t, fast), general) == 0;
          if (!same && failures++ < 10)
            fprintf(stderr, "test_index.c: random %d: offset of `%s` in vectors of %lld: `%s`, the general path's `%s`\n",
                    e, print(t, candidates[m]), (long long)widths[w], print(t, fast), general);
          record_at(t, same, __LINE__, "ix_exact_quotient (see above)");
        }
        if (!ix_multiple_of(&ix, candidates[m], widths[w])) continue;
        multiples++;
        int64_t r;
        bool zero = ix_const_value(ix_simplify(&ix, ix_mod(&ix, candidates[m], k)), &r) && r == 0;
        if (!zero && failures++ < 10)
          fprintf(stderr, "test_index.c: random %d: `%s` %% %lld is not simplified to 0\n", e,
                  print(t, candidates[m]), (long long)widths[w]);
        record_at(t, zero, __LINE__, "ix_multiple_of (see above)");
      }
    }
  }
  CHECK(multiples > EXPRESSIONS); /* not vacuous: k times an expression is mostly told a multiple */
  CHECK(quotients > EXPRESSIONS / 2);
  printf("index: random: %d expressions, %d changed, %d shorter, %ld assignments, %ld defined, %d multiples, "
         "%d exact quotients\n",
         EXPRESSIONS, changed, shorter, assignments, defined, multiples, quotients);
}

/* The polynomial of a sum of atoms times constants read in one walk
 * (codegen/index_linear.c) against the one made node by node
 * (IxCtx.general_polys): for many random sums, differences and products
 * by constants of variables and constants (the constants now and then
 * near the walk's bounds, 2^40, and beyond, where the general path keeps
 * an overflowing part as written), and some with a product of two
 * variables or a division in them, whatever asks the simplifier for a
 * polynomial answers alike: the simplified form, a constant difference,
 * the vector offset of k times it, a bound and the steps of a lane. */
static const Ix *random_linear(Generator *g, int depth) {
  static const int64_t big[] = {1000,
                                4096,
                                65536,
                                (int64_t)1 << 20,
                                (int64_t)1 << 39,
                                (int64_t)1 << 40,
                                ((int64_t)1 << 40) + 1,
                                (int64_t)1 << 41,
                                (int64_t)1 << 62,
                                -((int64_t)1 << 40)};
  IxCtx *ix = g->ix;
  if (depth == 0 || rng_below(g->rng, 6) == 0) {
    int pick = rng_below(g->rng, 10);
    if (pick == 0) return ix_const(ix, big[rng_below(g->rng, (int)DPIA_COUNTOF(big))]);
    return random_leaf(g);
  }
  switch (rng_below(g->rng, 12)) {
  case 0:
  case 1:
  case 2: return ix_add(ix, random_linear(g, depth - 1), random_linear(g, depth - 1));
  case 3:
  case 4: return ix_sub(ix, random_linear(g, depth - 1), random_linear(g, depth - 1));
  case 5:
  case 6: return ix_mul(ix, random_linear(g, depth - 1), random_constant(g));
  case 7: return ix_mul(ix, ix_const(ix, big[rng_below(g->rng, (int)DPIA_COUNTOF(big))]), random_linear(g, depth - 1));
  /* a product by 0 the constructors do not fold (the simplifier's nodes) */
  case 8: return ix_node(ix, IX_MUL, random_linear(g, depth - 1), ix_const(ix, 0));
  case 9: return ix_mul(ix, random_linear(g, depth - 1), random_leaf(g));
  case 10: return ix_div(ix, random_linear(g, depth - 1), random_divisor(g));
  default: return random_linear(g, depth - 1);
  }
}

/* query q of input under ranges (a fresh context each: what one asks
 * would be kept in the memo for the next) */
static const char *linear_answer(Tester *t, const char *ranges, const Ix *input, int q, bool general) {
  IxCtx ctx, *x = &ctx;
  ix_init(x, t->arena);
  x->general_polys = general;
  push_ranges(t, x, ranges, __LINE__);
  const Ix *lane = ix_var(x, intern_cstr(t->names, "lane")), *four = ix_const(x, 4), *quotient;
  switch (q) {
  case 0: return print(t, ix_simplify(x, input));
  case 1: return ix_simplifies_to(x, ix_sub(x, ix_add(x, input, ix_const(x, 3)), input), 3) ? "3" : "not 3";
  case 2: return ix_multiple_of(x, ix_mul(x, input, four), 4) ? "multiple" : "not multiple";
  case 3: quotient = ix_exact_quotient(x, ix_mul(x, input, four), 4); return quotient ? print(t, quotient) : "-";
  case 4: return ix_provably_less(x, input, ix_const(x, 100)) ? "< 100" : "not < 100";
  default: return ix_steps_by_lane(x, input, ix_add(x, input, lane), lane) ? "steps" : "no steps";
  }
}

/* what both ways answer of input under ranges, 1 where they differ
 * (reported) */
static int linear_differs(Tester *t, const char *ranges, const Ix *input, int e) {
  for (int q = 0; q < 6; q++) {
    const char *walked = linear_answer(t, ranges, input, q, false), *general = linear_answer(t, ranges, input, q, true);
    bool same = strcmp(walked, general) == 0;
    if (!same)
      fprintf(stderr, "test_index.c: linear %d [%s]: `%s`, question %d: walked `%s`, node by node `%s`\n", e, ranges,
              print(t, input), q, walked, general);
    record_at(t, same, __LINE__, "a sum read in one walk (see above)");
    if (!same) return 1;
  }
  return 0;
}

static void test_linear_polys(Tester *t) {
  static const char *const range_sets[] = {"i<4; j<n; k<8", "i<n; j<3; 1<=k<i + 2", "", "k<n*3"};
  enum { EXPRESSIONS = 6000 };
  IxCtx build;
  ix_init(&build, t->arena);
  const Ix *i = ix_var(&build, intern_cstr(t->names, "i")), *j = ix_var(&build, intern_cstr(t->names, "j"));
  const Ix *two62 = ix_const(&build, (int64_t)1 << 62), *two40 = ix_const(&build, (int64_t)1 << 40);
  /* at the walk's bounds: i*2^62 twice overflows in the sum of the two,
   * node by node, before the third takes one away; 2^40 on the way is
   * still read in one walk, 2^40 + 1 (2^40 times 2) not */
  const Ix *bounds[] = {
      ix_sub(&build, ix_add(&build, ix_mul(&build, i, two62), ix_mul(&build, i, two62)), ix_mul(&build, i, two62)),
      ix_sub(&build, ix_mul(&build, i, two62), ix_add(&build, ix_mul(&build, i, two62), ix_mul(&build, j, two62))),
      ix_add(&build, ix_mul(&build, ix_add(&build, i, ix_const(&build, 1)), two40), ix_mul(&build, j, two40)),
      ix_mul(&build, ix_add(&build, ix_mul(&build, i, two40), j), ix_const(&build, 2)),
  };
  int differing = 0;
  for (int b = 0; b < (int)DPIA_COUNTOF(bounds); b++) differing += linear_differs(t, "i<4; j<n", bounds[b], -1 - b);
  Rng rng = {0x2545f4914f6cdd1du};
  int linear = 0;
  for (int e = 0; e < EXPRESSIONS && differing < 10; e++) {
    Generator g = {
        &build, &rng, {i, j, ix_var(&build, intern_cstr(t->names, "k"))}, ix_var(&build, intern_cstr(t->names, "n"))};
    const Ix *input = random_linear(&g, 1 + rng_below(&rng, 5));
    PolyTerm *terms;
    bool walked = ix_linear_terms(t->arena, input, &terms) >= 0;
    CHECK(walked == ix_linear(input));
    /* a linear sum steps by any lane (codegen/access_vector.c asks no more) */
    if (walked &&
        strcmp(linear_answer(t, range_sets[e % (int)DPIA_COUNTOF(range_sets)], input, 5, true), "steps") != 0) {
      fprintf(stderr, "test_index.c: linear %d: `%s` is linear but does not step by a lane\n", e, print(t, input));
      CHECK(!"a linear sum steps by a lane");
    }
    linear += walked;
    differing += linear_differs(t, range_sets[e % (int)DPIA_COUNTOF(range_sets)], input, e);
  }
  CHECK(linear > EXPRESSIONS / 2); /* not vacuous: most are read in one walk */
  /* ix_linear (a walk that writes no term) answers as ix_linear_terms at
   * its count of leaves too: sums of 28 to 40 leaves, some constants, some
   * subtracted, some deep in products */
  int counted = 0;
  for (int n = 28; n <= 40; n++) {
    const Ix *sum = NULL;
    for (int l = 0; l < n; l++) {
      const Ix *leaf = l % 5 == 4 ? ix_const(&build, l) : ix_var(&build, intern_cstr(t->names, l % 2 ? "i" : "j"));
      if (l % 7 == 3) leaf = ix_mul(&build, leaf, ix_const(&build, 3));
      sum = !sum ? leaf : l % 3 == 2 ? ix_sub(&build, sum, leaf) : ix_add(&build, sum, leaf);
    }
    PolyTerm *terms;
    bool walked = ix_linear_terms(t->arena, sum, &terms) >= 0;
    CHECK(walked == ix_linear(sum));
    counted += walked;
  }
  CHECK(counted > 0 && counted < 13); /* both sides of IX_LINEAR_TERMS */
  printf("index: linear: %d expressions, %d read in one walk\n", EXPRESSIONS, linear);
}

/* sums of terms as an unrolled step's indices are, wg*512 + lid*16 + 5,
 * which ix_print writes without asking each node for parentheses
 * (index_print.c, print_flat_sum), and sums it must leave to the general
 * printer (a negative constant, a product of two variables): each text
 * as C needs it and of the length the constructor counted */
static void test_printing_sums(Tester *t) {
  static const char *const names[] = {"wg", "lid", "i", "j", "gid", "N"};
  static const int64_t coefficients[] = {2, 3, 16, 512, 1000, 4096, -2, -16};
  enum { SUMS = 3000 };
  Rng rng = {0x5deece66du};
  IxCtx ix;
  ix_init(&ix, t->arena);
  int wrong = 0;
  for (int n = 0; n < SUMS; n++) {
    int terms = 1 + (int)rng_below(&rng, 6);
    const Ix *sum = NULL;
    Buf expected;
    buf_init(&expected, t->arena);
    for (int i = 0; i < terms; i++) {
      const Ix *v = ix_var(&ix, intern_cstr(t->names, names[rng_below(&rng, (int)DPIA_COUNTOF(names))]));
      int64_t c = coefficients[rng_below(&rng, (int)DPIA_COUNTOF(coefficients))];
      const Ix *term;
      const char *text;
      switch (i + 1 == terms && terms > 1 ? 3 : rng_below(&rng, 3)) {
      case 0:
        term = v;
        text = v->name;
        break;
      case 1: /* a product of two variables: the general printer's */
        term = ix_mul(&ix, v, ix_var(&ix, intern_cstr(t->names, "M")));
        text = arena_printf(t->arena, "%s*M", v->name);
        break;
      case 2:
        term = ix_mul(&ix, v, ix_const(&ix, c));
        text = arena_printf(t->arena, c < 0 ? "%s*(%lld)" : "%s*%lld", v->name, (long long)c);
        break;
      default: /* the constant, last */
        term = ix_const(&ix, c);
        text = arena_printf(t->arena, c < 0 ? "(%lld)" : "%lld", (long long)c);
        break;
      }
      sum = sum ? ix_add(&ix, sum, term) : term;
      buf_puts(&expected, i == 0 ? "" : " + ");
      buf_puts(&expected, text);
    }
    const char *got = print(t, sum);
    if ((strcmp(got, expected.data) != 0 || strlen(got) != sum->length) && wrong++ < 10)
      fprintf(stderr, "test_index.c: printed `%s` (length %zu), expected `%s` (length %zu)\n", got, strlen(got),
              expected.data, sum->length);
  }
  record_at(t, wrong == 0, __LINE__, "sums print as C needs them (see above)");
  CHECK_PRINT(ix_add(&ix, ix_add(&ix, ix_mul(&ix, ix_var(&ix, intern_cstr(t->names, "wg")), ix_const(&ix, 512)),
                                 ix_mul(&ix, ix_var(&ix, intern_cstr(t->names, "lid")), ix_const(&ix, 16))),
                     ix_const(&ix, 5)),
              "wg*512 + lid*16 + 5");
}

/* a constant's length as ix_seal counts it (decimal_length, by powers of
 * ten) is its printed text's, at every number of digits and both signs,
 * the ends of int64 among them */
static void test_constant_lengths(Tester *t) {
  IxCtx ix;
  ix_init(&ix, t->arena);
  int wrong = 0, asked = 0;
  for (int sign = 0; sign < 2; sign++) {
    uint64_t power = 1;
    for (int d = 0; d <= 19; d++, power *= 10) {
      const uint64_t around[] = {power - 1, power, power + 1, power * 9 / 10 * 10 + 9};
      for (int a = 0; a < (int)DPIA_COUNTOF(around); a++) {
        if (around[a] > (uint64_t)INT64_MAX) continue;
        int64_t v = sign ? -(int64_t)around[a] : (int64_t)around[a];
        const Ix *c = ix_const(&ix, v);
        asked++;
        if (strlen(print(t, c)) != c->length && wrong++ < 10)
          fprintf(stderr, "test_index.c: %lld: length %zu, printed `%s`\n", (long long)v, c->length, print(t, c));
      }
    }
  }
  const int64_t ends[] = {INT64_MAX, INT64_MIN, INT64_MIN + 1};
  for (int e = 0; e < (int)DPIA_COUNTOF(ends); e++, asked++) {
    const Ix *c = ix_const(&ix, ends[e]);
    if (strlen(print(t, c)) != c->length && wrong++ < 10)
      fprintf(stderr, "test_index.c: %lld: length %zu, printed `%s`\n", (long long)ends[e], c->length, print(t, c));
  }
  CHECK(wrong == 0 && asked > 100);
}

int main(void) {
  DpiaMem mem;
  jmp_buf on_oom;
  dpia_mem_default(&mem);
  mem.on_oom = &on_oom;
  if (setjmp(on_oom) != 0) {
    fprintf(stderr, "index: out of memory\n");
    return 1;
  }
  Arena arena;
  arena_init(&arena, &mem);
  Interner names;
  intern_init(&names, &arena);
  Tester tester = {&arena, &names, 0, 0};
  Tester *t = &tester;

  test_printing(t);
  test_printing_sums(t);
  test_from_size(t);
  test_bounds(t);
  test_min_max(t);
  test_lane_steps(t);
  test_exact_quotient(t);
  test_cases(t);
  test_memo_cases(t);
  test_memo(t);
  test_recent_leaves(t);
  test_random(t);
  test_linear_polys(t);
  test_constant_lengths(t);

  printf("index: %d passed, %d failed\n", t->passed, t->failed);
  arena_free(&arena);
  return t->failed == 0 ? 0 : 1;
}
