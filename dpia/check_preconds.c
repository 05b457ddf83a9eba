/* check_preconds.c: a declaration's requirements settled one by one
 * (spec section 3; made by require and made distinct by
 * settle_requirements, unify.c): a constant one decided, its errors
 * reported, a symbolic one made the kernel's preconditions (spec section
 * 9, metadata `preconditions`; precond.h): merged, the implied ones
 * dropped, contradictory bounds reported. */
#include "check_int.h"

#include <stdint.h>

/* s as num/den with num a polynomial over the variables and den a
 * monomial (size_fraction), for printing  num % den == 0; on overflow the
 * sizes' flag, 0/1 */
static void fraction_of(Checker *c, Size s, Size *num, Size *den) {
  SizeCtx *sc = &c->tc->sizes;
  if (size_fraction(sc->arena, s, num, den)) return;
  sc->overflow = true;
  *num = size_const(sc, 0);
  *den = size_const(sc, 1);
}

/* num with every integer coefficient reduced modulo a constant den, which
 * leaves num % den unchanged: (N - 64) % 64 is N % 64 */
static Size reduce_mod(Checker *c, Size num, Size den) {
  int64_t d;
  if (!size_const_value(den, &d) || d <= 1) return num;
  Size out = size_const(&c->tc->sizes, 0);
  for (int i = 0; i < num.nterms; i++) {
    if (num.terms[i].den != 1) return num;
    SizeTerm *t = arena_dup(c->arena, &num.terms[i], sizeof *t); /* sizes keep pointers */
    t->num %= d;
    if (t->num == 0) continue;
    out = size_add(&c->tc->sizes, out, (Size){1, t});
  }
  return size_is_zero(out) ? num : out;
}

const char *check_size_str(Checker *c, Size s) {
  TypeNamer tn;
  check_namer(c, &tn);
  return tn_size(&tn, s);
}

/* Merge the requirement lhs REL rhs into p, of the same kind and lhs, when
 * both right sides are constants: true if p now says both. */
static bool merge_precond(Checker *c, Precond *p, Size rhs, Span span) {
  int64_t d, e;
  if (!size_const_value(p->rhs, &d) || !size_const_value(rhs, &e)) return false;
  switch (p->kind) {
  case PRECOND_AT_LEAST:
    /* N >= 3 and N >= 2 are N >= 3 */
    if (e > d) p->rhs = rhs, p->span = span;
    return true;
  case PRECOND_DIVIDES: {
    int64_t l;
    if (__builtin_mul_overflow(d / poly_gcd(d, e), e, &l)) return false;
    p->rhs = size_const(&c->tc->sizes, l);
    if (l == e && l != d) p->span = span; /* the new one decides */
    return true;
  }
  }
  INTERNAL("precondition kind %d", (int)p->kind);
}

/* Add a precondition unless it is already there; divisibility of the same
 * numerator by constants merges into one by their lcm (N % 4 and N % 8192
 * are N % 8192), lower bounds of the same size into the largest. */
/* a*floor(num/k) >= b, for positive constants a, b and k, as a bound on
 * num's variables: floor(num/k) >= ceil(b/a) exactly when num >=
 * k*ceil(b/a).  So 32*ceil(N/32) >= 1 (ceil(N/32) is floor((N + 31)/32))
 * is N >= 1, which is the condition a reader can check.  False when lhs
 * and rhs are not of that form. */
static bool unfloor_bound(SizeCtx *sc, Size *lhs, Size *rhs) {
  int64_t b, k;
  if (lhs->nterms != 1 || !size_const_value(*rhs, &b) || b <= 0) return false;
  const SizeTerm *t = &lhs->terms[0];
  if (t->den != 1 || t->num <= 0 || t->nfactors != 1 || t->factors[0].exp != 1) return false;
  const SizeAtom *atom = size_factor_atom(&t->factors[0]);
  if (atom->kind != SIZE_ATOM_FLOOR || !size_const_value(atom->den, &k) || k <= 0) return false;
  int64_t q = (b + t->num - 1) / t->num, c0 = 0;
  if (q > INT64_MAX / k) return false;
  for (int i = 0; i < atom->num.nterms; i++)
    if (atom->num.terms[i].nfactors == 0) c0 = atom->num.terms[i].num; /* integer coefficients (size.h) */
  *lhs = size_sub(sc, atom->num, size_const(sc, c0));
  *rhs = size_const(sc, k * q - c0);
  return true;
}

static void add_precond(Checker *c, Vec *out, PrecondKind kind, Size lhs, Size rhs, Span span) {
  if (kind == PRECOND_AT_LEAST && unfloor_bound(&c->tc->sizes, &lhs, &rhs) &&
      size_provably_at_least(&c->tc->sizes, lhs, rhs))
    return;
  for (int i = 0; i < out->len; i++) {
    Precond *p = out->items[i];
    if (p->kind != kind || !size_eq(p->lhs, lhs)) continue;
    if (size_eq(p->rhs, rhs) || merge_precond(c, p, rhs, span)) return;
  }
  Precond *p = NEW(c->arena, Precond);
  *p = (Precond){kind, lhs, rhs, span};
  vec_push(c->arena, out, p);
}

/* The divisor g of `v % g == 0` if precondition p is one (a single nat
 * parameter over a constant), else 0. */
static int64_t var_divisor(const Precond *p, Sym *var) {
  int64_t g;
  return precond_multiple_of(p, var, &g) ? g : 0;
}

/* Whether `lhs % d == 0` follows from the preconditions of the form
 * v % g == 0 other than pre[self]: every term coef * v1^e1 * ... of lhs is
 * then a multiple of coef * g1^e1 * ..., and d must divide that.  (K*N % 16
 * follows from N % 16, and printing it would only make the reader check.) */
static bool implied_divisibility(const Vec *pre, int self, Size lhs, int64_t d) {
  for (int t = 0; t < lhs.nterms; t++) {
    const SizeTerm *term = &lhs.terms[t];
    if (term->den != 1) return false;
    int64_t need = d / poly_gcd(d, term->num);
    for (int f = 0; f < term->nfactors && need > 1; f++) {
      if (term->factors[f].exp < 0) return false;
      int64_t g = 0;
      for (int i = 0; i < pre->len && !g; i++) {
        Sym v;
        int64_t gi = i == self ? 0 : var_divisor(pre->items[i], &v);
        if (gi && v == size_factor_var(&term->factors[f])) g = gi;
      }
      for (int64_t e = 0; g && e < term->factors[f].exp && need > 1; e++) need /= poly_gcd(need, g);
    }
    if (need != 1) return false;
  }
  return true;
}

/* Drop the divisibility preconditions that the others imply: each is
 * decided against the whole list, then the list is compacted. */
static void drop_implied(Arena *a, Vec *pre) {
  bool *implied = NEWARRAY(a, bool, pre->len);
  for (int i = 0; i < pre->len; i++) {
    const Precond *p = pre->items[i];
    int64_t d;
    Sym v;
    implied[i] = p->kind == PRECOND_DIVIDES && !var_divisor(p, &v) && size_const_value(p->rhs, &d) && d > 0 &&
                 implied_divisibility(pre, i, p->lhs, d);
  }
  int kept = 0;
  for (int i = 0; i < pre->len; i++)
    if (!implied[i]) pre->items[kept++] = pre->items[i];
  pre->len = kept;
}

/* Preconditions no sizes satisfy, N >= 3 with 2 >= N (idx v N of a window
 * of 3), are an error: the kernel could never run.  Only bounds of one
 * parameter by constants are compared. */
static void check_bounds_meet(Checker *c, const Vec *pre) {
  for (int i = 0; i < pre->len; i++) {
    const Precond *lo = pre->items[i];
    int64_t low, high;
    Sym v = size_lone_var(lo->lhs);
    if (lo->kind != PRECOND_AT_LEAST || !v || !size_const_value(lo->rhs, &low)) continue;
    for (int j = 0; j < pre->len; j++) {
      const Precond *hi = pre->items[j];
      if (hi->kind != PRECOND_AT_LEAST || size_lone_var(hi->rhs) != v || !size_const_value(hi->lhs, &high) ||
          high >= low)
        continue;
      check_error(c, ERR_CONTRADICTORY_PRECONDITIONS, hi->span,
                  "no value of %s satisfies both %s >= %lld and %lld >= %s, which this requires", v, v, (long long)low,
                  (long long)high, v);
      diag_note(c->diag, lo->span, "this requires %s >= %lld", v, (long long)low);
      return;
    }
  }
}

/* A natural requirement on one term p/q*M, M a product of nat parameters
 * to positive powers, p > 0, q > 1 (N/4, N/16384: every one a search
 * variant keeps), settled at once: its precondition (p mod q)*M % q == 0,
 * the one settle_requirement's general steps find (fraction_of gives p*M
 * over q, reduce_mod (p mod q)*M, which is never q's multiple at M = 1,
 * so size_always_divisible says no; no term is negative), without those
 * steps (translation throughput).  False, and nothing done, where the
 * form is another or a size overflowed (the general steps report it);
 * never taken with DpiaOptions.debug_no_shortcuts, which test
 * check-shortcuts compares. */
static bool settle_one_term(Checker *c, Vec *pre, const Requirement *r, Size s) {
  if (c->tc->no_shortcuts || r->kind != REQ_NATURAL || s.nterms != 1 || c->tc->sizes.overflow) return false;
  const SizeTerm *t = &s.terms[0];
  if (t->num <= 0 || t->den <= 1 || t->nfactors == 0 || t->num % t->den == 0) return false;
  for (int f = 0; f < t->nfactors; f++) {
    Sym v = size_factor_var(&t->factors[f]);
    if (!v || v[0] == '?' || t->factors[f].exp <= 0) return false;
  }
  SizeTerm *rest = NEW(c->arena, SizeTerm);
  *rest = (SizeTerm){t->num % t->den, 1, t->nfactors, t->factors};
  add_precond(c, pre, PRECOND_DIVIDES, (Size){1, rest}, size_const(&c->tc->sizes, t->den), r->span);
  return true;
}

/* One requirement r, its size s zonked, the i-th of c->reqs: its errors
 * reported, its preconditions added to pre. */
void settle_requirement(Checker *c, Vec *pre, const Requirement *r, int i, Size s) {
  if (settle_one_term(c, pre, r, s)) return;
  if (size_first_meta(s)) return; /* reported as "cannot infer" */
  int64_t v;
  if (r->kind == REQ_POSITIVE) {
    if (size_const_value(s, &v)) {
      if (v < 1)
        check_error(c, ERR_SIZE_TOO_SMALL, r->span, "%s needs a size of at least 1, found %lld", r->what, (long long)v);
    } else {
      /* s >= 1 as num >= den, e.g. N/64 >= 1 is N >= 64 */
      Size num, den;
      fraction_of(c, s, &num, &den);
      /* ceil(N/64) + 1 >= 1 needs no check */
      if (!size_provably_at_least(&c->tc->sizes, num, den)) add_precond(c, pre, PRECOND_AT_LEAST, num, den, r->span);
    }
    return;
  }
  Size num, den;
  fraction_of(c, s, &num, &den);
  if (!check_overflow(c, r->span)) return;
  if (size_const_value(num, &v)) {
    int64_t d;
    if (!size_const_value(den, &d)) {
      /* 1024/C (split C of a [1024] array, C a nat or tune parameter):
       * C must divide 1024 (tests/check/accept_v/tune_params.dpia) */
      if (v < 0)
        check_error(c, ERR_SIZE_NEGATIVE, r->span, "size %s is negative", check_size_str(c, s));
      else
        add_precond(c, pre, PRECOND_DIVIDES, num, den, r->span);
      return;
    }
    if (v % d != 0)
      check_error(c, ERR_SIZE_NOT_WHOLE, r->span, "size %s is not a whole number: %lld is not divisible by %lld",
                  check_size_str(c, s), (long long)v, (long long)d);
    else if (v < 0)
      check_error(c, ERR_SIZE_NEGATIVE, r->span, "size %s is negative", check_size_str(c, s));
    return;
  }
  int64_t d;
  if (!(size_const_value(den, &d) && d == 1)) {
    Size rest = reduce_mod(c, num, den);
    int64_t k;
    if (size_const_value(den, &d) && size_always_divisible(c->arena, rest, d)) {
      /* N*(N + 1)/2: whole for every N, no precondition */
    } else if (size_const_value(den, &d) && size_const_value(rest, &k)) {
      /* (4*N + 3)/4: the symbolic part divides, the constant never does */
      bool reported = false; /* once per size, at its first use */
      for (int j = 0; j < i && !reported; j++) {
        const Requirement *q = c->reqs.items[j];
        reported = q->kind == REQ_NATURAL && size_eq(requirement_size(c, q), s);
      }
      if (k % d != 0) {
        if (!reported)
          check_error(c, ERR_SIZE_NOT_WHOLE, r->span,
                      "size %s is never a whole number: %lld is not divisible by %lld, whatever the sizes",
                      check_size_str(c, s), (long long)k, (long long)d);
        return;
      }
    } else {
      add_precond(c, pre, PRECOND_DIVIDES, rest, den, r->span);
    }
  }
  /* non-negativity: positive terms >= negated negative terms; nothing to
   * show where no term is negative (N/64: the sums below are not built) */
  bool has_neg = false;
  for (int t = 0; t < num.nterms && !has_neg; t++) has_neg = num.terms[t].num < 0;
  if (!has_neg) return;
  Size pos = {0}, neg = {0};
  for (int t = 0; t < num.nterms; t++) {
    Size term = {1, &num.terms[t]}; /* num outlives term */
    if (num.terms[t].num < 0)
      neg = size_sub(&c->tc->sizes, neg, term);
    else
      pos = size_add(&c->tc->sizes, pos, term);
  }
  if (size_is_zero(pos)) {
    check_error(c, ERR_SIZE_NEGATIVE, r->span, "size %s is negative", check_size_str(c, s));
    return;
  }
  /* 64*ceil(N/64) - N is natural by the facts of ceil (size.h) */
  if (!size_provably_at_least(&c->tc->sizes, pos, neg)) add_precond(c, pre, PRECOND_AT_LEAST, pos, neg, r->span);
}

void finish_preconds(Checker *c, DefInfo *def, Vec *pre) {
  drop_implied(c->arena, pre);
  check_bounds_meet(c, pre);
  Precond *out = NEWARRAY(c->arena, Precond, pre->len > 0 ? pre->len : 1);
  for (int i = 0; i < pre->len; i++) out[i] = *(const Precond *)pre->items[i];
  def->nprecond = pre->len;
  def->preconds = out;
}
