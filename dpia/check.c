/* check.c: elaboration of the surface tree into typed phrases, with
 * inference of the implicit size and data type arguments (spec sections 2-4).
 *
 * The checker is bidirectional.  An application spine `head a1 ... an`
 * (pipes are applications) is elaborated by first instantiating the head's
 * type with fresh metavariables, then checking the arguments that are not
 * lambdas, and only then the lambdas, so that a lambda's parameter types
 * come from the primitive it is passed to (spec section 2: "Lambda
 * parameters are never annotated; their types come from the primitive they
 * are passed to").
 *
 * Sizes are unified through their canonical forms (size.h): an equation
 * that is linear in one size metavariable is solved at once (?n*2048 == N
 * gives ?n = N/2048); others wait until more is known.  A solution that is
 * not a polynomial with natural coefficients becomes a requirement: false
 * for constants (an error), a kernel precondition when symbolic (spec
 * section 3).
 *
 * Error recovery: an elaboration function that has reported an error
 * returns NULL and its callers return NULL without reporting more, so one
 * mistake gives one message (no cascades), while independent siblings are
 * still checked. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const phrase_kind_name[PH_COUNT] = {
#define X(id) #id,
    DPIA_PHRASE_TERM_KINDS(X)
#undef X
};

typedef enum EnvKind { ENV_BINDER, ENV_SIZE, ENV_DATA } EnvKind;

typedef struct Env Env;
struct Env {
  Sym name;
  EnvKind kind;
  Binder *binder; /* ENV_BINDER */
  Env *next;
};

typedef struct SizeMeta {
  Sym name;
  bool solved;
  Size value;
  Span origin;
} SizeMeta;

/* A size that must be a natural number (kind NATURAL) or at least one
 * (POSITIVE), recorded where it arose. */
typedef enum ReqKind { REQ_NATURAL, REQ_POSITIVE } ReqKind;
typedef struct Requirement {
  ReqKind kind;
  Size size;
  Span span;
  const char *what; /* "split 3", for messages */
} Requirement;

/* Deferred constraints between data metavariables (woken when one side is
 * known):  VECTOR_OF: vec = scalar<width>;  CONVERT: dst = target<width of
 * src>. */
typedef enum DeferKind { DEFER_VECTOR_OF, DEFER_CONVERT } DeferKind;
typedef struct Deferred {
  DeferKind kind;
  DataType *a, *b; /* VECTOR_OF: scalar, vector; CONVERT: src, dst */
  Size width;      /* VECTOR_OF */
  ScalarKind target;
  Span span;
  bool done;
} Deferred;

typedef struct Postponed {
  Size lhs, rhs;
  Span span;
} Postponed;

/* zonk_size's results by size, valid while no more metavariables are
 * solved: a direct-mapped cache (translation throughput, issue 5: the
 * same sizes are zonked at every phrase that mentions them).  It lives
 * outside the Checker, which nested defs save and restore, so that its
 * stamp only grows. */
enum { ZONK_MEMO_SIZE = 512 };
typedef struct ZonkMemo {
  unsigned long solved; /* metavariables solved so far: the stamp of valid entries */
  struct {
    const SizeTerm *terms;
    int nterms;
    unsigned long stamp;
    Size value;
  } entry[ZONK_MEMO_SIZE];
} ZonkMemo;

typedef struct Checker {
  ZonkMemo *zonk_memo;
  Arena *arena;
  Interner *in;
  Diag *diag;
  TypeCtx *tc;
  const Program *prog;
  DefInfo **defs; /* by declaration index */
  int *state;     /* 0 unchecked, 1 in progress, 2 done */
  Vec size_metas; /* SizeMeta* */
  Vec reqs;       /* Requirement* of the current declaration */
  Vec deferred;   /* Deferred* */
  Vec postponed;  /* Postponed* */
  Vec lits;       /* Phrase* literals of the current declaration (range check) */
  Span unify_span; /* where size equations found while unifying arose */
  int current;     /* index of the declaration being checked */
  int depth;
  int def_depth;
  bool failed; /* the current declaration has an error */
} Checker;

typedef struct ElabState {
  int nreqs, nsize_metas;
} ElabState;

static Phrase *infer(Checker *c, Env *env, const Ast *e);
static Phrase *check(Checker *c, Env *env, const Ast *e, PhraseType *want);
static bool unify_data(Checker *c, DataType *a, DataType *b);
static void check_decl(Checker *c, int index);

/* ---- errors ---- */

DPIA_PRINTF(3, 4) static void error(Checker *c, Span span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  Buf b;
  buf_init(&b, c->arena);
  vemit(&b, fmt, ap);
  va_end(ap);
  diag_error(c->diag, span, "%s", b.data);
  c->failed = true;
}

/* Types in messages: an unsolved metavariable is "_" (any), or "n" for
 * the one size a message is about, never the internal ?n3. */
static const char *for_message(Checker *c, const char *text, Sym focus) {
  Buf b;
  buf_init(&b, c->arena);
  for (const char *p = text; *p;) {
    if (p[0] == '?' && (p[1] == 'n' || (p[1] >= '0' && p[1] <= '9'))) {
      const char *q = p + 1 + (p[1] == 'n');
      while (*q >= '0' && *q <= '9') q++;
      bool is_focus = focus && strncmp(p, focus, (size_t)(q - p)) == 0 && focus[q - p] == 0;
      buf_puts(&b, is_focus ? "n" : "_");
      p = q;
    } else {
      buf_putc(&b, *p++);
    }
  }
  return b.data;
}

static const char *size_str(Checker *c, Size s);

/* ---- sizes ---- */

static Sym fresh_size_meta(Checker *c, Span origin) {
  SizeMeta *m = NEW(c->arena, SizeMeta);
  char name[32];
  snprintf(name, sizeof name, "?n%d", c->size_metas.len + 1);
  m->name = intern_cstr(c->in, name);
  m->origin = origin;
  vec_push(c->arena, &c->size_metas, m);
  return m->name;
}

static SizeMeta *find_size_meta(Checker *c, Sym name) {
  /* metas are named ?n<k> with k their 1-based position */
  int k = atoi(name + 2);
  ASSERT(k >= 1 && k <= c->size_metas.len);
  SizeMeta *m = c->size_metas.items[k - 1];
  ASSERT(m->name == name);
  return m;
}

static Size zonk_size_now(Checker *c, Size s);

/* replace solved size metavariables */
static Size zonk_size(Checker *c, Size s) {
  if (s.nterms == 0) return s;
  ZonkMemo *memo = c->zonk_memo;
  size_t h = ((uintptr_t)s.terms >> 4) * 31 + (size_t)s.nterms;
  h = (h ^ (h >> 9)) % ZONK_MEMO_SIZE;
  if (memo->entry[h].terms == s.terms && memo->entry[h].nterms == s.nterms && memo->entry[h].stamp == memo->solved)
    return memo->entry[h].value;
  Size z = zonk_size_now(c, s);
  if (c->tc->sizes.overflow) return z; /* reported once, where it happens */
  memo->entry[h].terms = s.terms;
  memo->entry[h].nterms = s.nterms;
  memo->entry[h].stamp = memo->solved;
  memo->entry[h].value = z;
  return z;
}

static Size zonk_size_now(Checker *c, Size s) {
  for (int guard = 0; guard < 10000; guard++) {
    bool changed = false;
    for (int i = 0; i < s.nterms; i++) {
      for (int j = 0; j < s.terms[i].nfactors; j++) {
        Sym v = s.terms[i].factors[j].var;
        if (v[0] != '?') continue;
        SizeMeta *m = find_size_meta(c, v);
        if (!m->solved) continue;
        Size out;
        if (!size_subst(&c->tc->sizes, s, v, m->value, &out)) return s;
        s = out;
        changed = true;
        goto again;
      }
    }
  again:
    if (!changed) return s;
  }
  INTERNAL("size metavariables do not settle");
}

static Size size_from_int(Checker *c, int64_t n) { return size_const(&c->tc->sizes, n); }

static void require(Checker *c, ReqKind kind, Size s, Span span, const char *what) {
  Requirement *r = NEW(c->arena, Requirement);
  r->kind = kind;
  r->size = s;
  r->span = span;
  r->what = what;
  vec_push(c->arena, &c->reqs, r);
}

static bool check_overflow(Checker *c, Span span) {
  if (!c->tc->sizes.overflow) return true;
  c->tc->sizes.overflow = false;
  error(c, span, "size arithmetic overflows 64 bits");
  return false;
}

static bool size_has_any_var(Size s) {
  for (int i = 0; i < s.nterms; i++)
    if (s.terms[i].nfactors) return true;
  return false;
}

static bool is_unnatural_const(Size s) {
  int64_t v;
  if (size_has_any_var(s)) return false;
  return !size_const_value(s, &v) || v < 0;
}

/* A size equation whose only solution is not a natural number, reported
 * at the primitive that introduced the unknown:  split 3  on 8 elements. */
static void report_unfit(Checker *c, SizeMeta *m, Size a, Size b, Size value, const char *what) {
  Buf sa, sb, sv;
  buf_init(&sa, c->arena);
  buf_init(&sb, c->arena);
  buf_init(&sv, c->arena);
  size_print(&sa, a);
  size_print(&sb, b);
  size_print(&sv, value);
  bool a_has = size_has_var(a, m->name);
  error(c, m->origin, "size %s does not fit %s here: n would have to be %s, which is %s",
        for_message(c, a_has ? sb.data : sa.data, m->name), for_message(c, a_has ? sa.data : sb.data, m->name),
        sv.data, what);
}

/* Unify two sizes; false if they are certainly different.  An equation
 * that no metavariable can be solved from yet is postponed. */
static bool unify_size(Checker *c, Size a, Size b, Span span) {
  a = zonk_size(c, a);
  b = zonk_size(c, b);
  if (size_eq(a, b)) return true;
  /* a constant that is not a natural number was already reported (by
   * report_unfit); equations about it would only repeat the message */
  if (c->failed && (is_unnatural_const(a) || is_unnatural_const(b))) return true;
  Size diff = size_sub(&c->tc->sizes, a, b);
  if (!size_first_meta(diff)) return false;
  for (int i = 0; i < diff.nterms; i++) {
    for (int j = 0; j < diff.terms[i].nfactors; j++) {
      Sym m = diff.terms[i].factors[j].var;
      Size value;
      if (m[0] != '?' || !size_solve(&c->tc->sizes, a, b, m, &value) || size_has_var(value, m)) continue;
      SizeMeta *sm = find_size_meta(c, m);
      sm->solved = true;
      sm->value = value;
      c->zonk_memo->solved++;
      int64_t v;
      if (size_first_meta(value) == NULL && size_const_value(value, &v) && v < 0) {
        report_unfit(c, sm, a, b, value, "negative");
      } else if (!size_first_meta(value) && !size_has_any_var(value) && !size_is_polynomial(value)) {
        report_unfit(c, sm, a, b, value, "not a whole number");
      } else {
        /* a size is a natural number: N/2048 needs N % 2048 == 0 */
        require(c, REQ_NATURAL, value, sm->origin, NULL);
      }
      return true;
    }
  }
  Postponed *p = NEW(c->arena, Postponed);
  p->lhs = a;
  p->rhs = b;
  p->span = span;
  vec_push(c->arena, &c->postponed, p);
  return true;
}

/* ---- data types ---- */

static bool occurs(DataMeta *m, DataType *t) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_META: return t->meta == m;
  case DT_ARRAY: return occurs(m, t->elem);
  case DT_PAIR: return occurs(m, t->fst) || occurs(m, t->snd);
  default: return false;
  }
}

static bool class_admits(MetaClass cls, DataType *t) {
  t = dt_resolve(t);
  if (cls == MC_ANY) return true;
  if (t->kind == DT_META) return true;
  if (t->kind != DT_SCALAR) return false;
  if (cls == MC_NUMERIC) return t->scalar != SC_BOOL;
  return t->scalar == SC_FLOAT || t->scalar == SC_DOUBLE;
}

static MetaClass class_meet(MetaClass a, MetaClass b) { return a > b ? a : b; }

static bool unify_data(Checker *c, DataType *a, DataType *b) {
  a = dt_resolve(a);
  b = dt_resolve(b);
  if (a == b) return true;
  if (a->kind == DT_META && b->kind == DT_META) {
    b->meta->cls = class_meet(a->meta->cls, b->meta->cls);
    a->meta->solution = b;
    return true;
  }
  if (b->kind == DT_META) {
    DataType *t = a;
    a = b;
    b = t;
  }
  if (a->kind == DT_META) {
    if (!class_admits(a->meta->cls, b) || occurs(a->meta, b)) return false;
    a->meta->solution = b;
    return true;
  }
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case DT_SCALAR: return a->scalar == b->scalar && a->width == b->width;
  case DT_ARRAY: {
    bool ok = unify_size(c, a->size, b->size, c->unify_span);
    return unify_data(c, a->elem, b->elem) && ok;
  }
  case DT_PAIR: {
    bool ok = unify_data(c, a->fst, b->fst);
    return unify_data(c, a->snd, b->snd) && ok;
  }
  case DT_IDX: return unify_size(c, a->size, b->size, c->unify_span);
  case DT_VAR: return a->name == b->name;
  case DT_META: return false;
  }
  return false;
}

/* Phrase types have no metavariables of their own; their data do.  The
 * passive arrow ->p and the plain one unify: passivity is the business of
 * the interference check (Promote and Derelict, Figure 3c). */
static bool unify_phrase(Checker *c, PhraseType *a, PhraseType *b) {
  bool fa = a->kind == PT_FN || a->kind == PT_FN_P;
  bool fb = b->kind == PT_FN || b->kind == PT_FN_P;
  if (fa && fb) {
    bool ok = unify_phrase(c, a->fst, b->fst);
    return unify_phrase(c, a->snd, b->snd) && ok;
  }
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case PT_EXP:
  case PT_ACC: return unify_data(c, a->data, b->data);
  case PT_COMM: return true;
  case PT_WITH: {
    bool ok = unify_phrase(c, a->fst, b->fst);
    return unify_phrase(c, a->snd, b->snd) && ok;
  }
  default: return false;
  }
}

/* ---- zonking: replace solved metavariables everywhere ----
 *
 * A type with nothing to replace is returned as it is, not copied: zonking
 * runs over every phrase of a declaration (translation throughput, issue
 * 5), and types are immutable once zonked. */

static bool same_size(Size a, Size b) { return a.terms == b.terms && a.nterms == b.nterms; }

static DataType *zonk_data(Checker *c, DataType *t) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_SCALAR:
  case DT_VAR:
  case DT_META: return t;
  case DT_ARRAY: {
    Size n = zonk_size(c, t->size);
    DataType *e = zonk_data(c, t->elem);
    return same_size(n, t->size) && e == t->elem ? t : dt_array(c->tc, n, e);
  }
  case DT_PAIR: {
    DataType *a = zonk_data(c, t->fst), *b = zonk_data(c, t->snd);
    return a == t->fst && b == t->snd ? t : dt_pair(c->tc, a, b);
  }
  case DT_IDX: {
    Size n = zonk_size(c, t->size);
    return same_size(n, t->size) ? t : dt_idx(c->tc, n);
  }
  }
  return t;
}

static PhraseType *zonk_phrase_type(Checker *c, PhraseType *t) {
  switch (t->kind) {
  case PT_EXP:
  case PT_ACC: {
    DataType *d = zonk_data(c, t->data);
    return d == t->data ? t : t->kind == PT_EXP ? pt_exp(c->tc, d) : pt_acc(c->tc, d);
  }
  case PT_COMM: return t;
  case PT_WITH:
  case PT_FN:
  case PT_FN_P: {
    PhraseType *a = zonk_phrase_type(c, t->fst), *b = zonk_phrase_type(c, t->snd);
    if (a == t->fst && b == t->snd) return t;
    return t->kind == PT_WITH ? pt_with(c->tc, a, b) : t->kind == PT_FN ? pt_fn(c->tc, a, b) : pt_fn_p(c->tc, a, b);
  }
  }
  return t;
}

/* Report a type mismatch between what a context wants and what a phrase
 * has, unless they unify. */
static bool expect_type(Checker *c, Span span, PhraseType *want, PhraseType *have, const char *ctx) {
  Span saved = c->unify_span;
  c->unify_span = span;
  bool ok = unify_phrase(c, want, have);
  c->unify_span = saved;
  if (ok) return true;
  const char *w = for_message(c, pt_str(c->arena, zonk_phrase_type(c, want)), NULL);
  const char *h = for_message(c, pt_str(c->arena, zonk_phrase_type(c, have)), NULL);
  if (ctx) error(c, span, "type mismatch in %s: expected %s, found %s", ctx, w, h);
  else error(c, span, "type mismatch: expected %s, found %s", w, h);
  return false;
}

/* ---- deferred constraints ---- */

static void defer(Checker *c, DeferKind kind, DataType *a, DataType *b, Size width, ScalarKind target, Span span) {
  Deferred *d = NEW(c->arena, Deferred);
  d->kind = kind;
  d->a = a;
  d->b = b;
  d->width = width;
  d->target = target;
  d->span = span;
  vec_push(c->arena, &c->deferred, d);
}

/* Try to make progress on deferred constraints; returns true if any did. */
static bool wake_deferred(Checker *c) {
  bool progress = false;
  for (int i = 0; i < c->deferred.len; i++) {
    Deferred *d = c->deferred.items[i];
    if (d->done) continue;
    DataType *a = dt_resolve(d->a), *b = dt_resolve(d->b);
    Span saved = c->unify_span;
    c->unify_span = d->span;
    if (d->kind == DEFER_VECTOR_OF) {
      /* b = a<width>: a is a scalar, b a vector of it */
      int64_t w;
      if (a->kind != DT_META) {
        if (a->kind != DT_SCALAR || a->width != 1) {
          error(c, d->span, "expected an array of scalars, found elements of type %s", dt_str(c->arena, a));
          d->done = true;
        } else if (size_const_value(zonk_size(c, d->width), &w)) {
          d->done = true;
          if (!unify_data(c, b, dt_scalar(c->tc, a->scalar, (int)w)))
            error(c, d->span, "type mismatch: expected %s%d, found %s", scalar_name(a->scalar), (int)w,
                  dt_str(c->arena, b));
        }
      } else if (b->kind == DT_SCALAR) {
        d->done = true;
        if (b->width == 1) {
          error(c, d->span, "expected a vector type, found %s", dt_str(c->arena, b));
        } else {
          unify_data(c, a, dt_scalar(c->tc, b->scalar, 1));
          if (!unify_size(c, d->width, size_from_int(c, b->width), d->span))
            error(c, d->span, "vector width mismatch: %s", dt_str(c->arena, b));
        }
      } else if (b->kind != DT_META) {
        d->done = true;
        error(c, d->span, "expected a vector type, found %s", dt_str(c->arena, b));
      }
    } else {
      if (a->kind != DT_META) {
        d->done = true;
        if (a->kind != DT_SCALAR || a->scalar == SC_BOOL)
          error(c, d->span, "conversion to %s needs a numeric argument, found %s", scalar_name(d->target),
                dt_str(c->arena, a));
        else if (!unify_data(c, b, dt_scalar(c->tc, d->target, a->width)))
          error(c, d->span, "type mismatch: conversion gives %s%s", scalar_name(d->target),
                a->width > 1 ? "<vector>" : "");
      }
    }
    c->unify_span = saved;
    if (d->done) progress = true;
  }
  return progress;
}

/* ---- converting written types ---- */

static Env *env_find(Env *env, Sym name) {
  for (; env; env = env->next)
    if (env->name == name) return env;
  return NULL;
}

static Env *env_push(Checker *c, Env *env, Sym name, EnvKind kind, Binder *b) {
  Env *e = NEW(c->arena, Env);
  e->name = name;
  e->kind = kind;
  e->binder = b;
  e->next = env;
  return e;
}

static bool conv_size(Checker *c, Env *env, const SizeAst *s, Size *out) {
  SizeCtx *sc = &c->tc->sizes;
  switch (s->kind) {
  case SZA_NUM:
    if (s->num > INT64_MAX) {
      error(c, s->span, "size %llu does not fit 64 bits", (unsigned long long)s->num);
      return false;
    }
    *out = size_const(sc, (int64_t)s->num);
    return true;
  case SZA_VAR: {
    Env *e = env_find(env, s->name);
    if (!e || e->kind != ENV_SIZE) {
      if (e) error(c, s->span, "'%s' is not a size: only nat parameters can be used in sizes", s->name);
      else error(c, s->span, "unknown size variable '%s'", s->name);
      return false;
    }
    *out = size_var(sc, s->name);
    return true;
  }
  default: break;
  }
  Size a, b;
  bool ok = conv_size(c, env, s->lhs, &a);
  ok = conv_size(c, env, s->rhs, &b) && ok;
  if (!ok) return false;
  switch (s->kind) {
  case SZA_ADD: *out = size_add(sc, a, b); break;
  case SZA_SUB:
    *out = size_sub(sc, a, b);
    require(c, REQ_NATURAL, *out, s->span, NULL);
    break;
  case SZA_MUL: *out = size_mul(sc, a, b); break;
  case SZA_DIV:
    if (size_is_zero(b)) {
      error(c, s->span, "division by zero in a size");
      return false;
    }
    if (!size_div(sc, a, b, out)) {
      error(c, s->rhs->span, "division by a sum of sizes is not supported");
      return false;
    }
    require(c, REQ_NATURAL, *out, s->span, NULL);
    break;
  default: INTERNAL("size kind");
  }
  return check_overflow(c, s->span);
}

static DataType *conv_data(Checker *c, Env *env, const TypeAst *t) {
  switch (t->kind) {
  case TYA_SCALAR: return dt_scalar(c->tc, t->scalar, t->vec_width);
  case TYA_ARRAY: {
    Size n;
    bool ok = conv_size(c, env, t->size, &n);
    DataType *elem = conv_data(c, env, t->elem);
    return ok && elem ? dt_array(c->tc, n, elem) : NULL;
  }
  case TYA_PAIR: {
    DataType *a = conv_data(c, env, t->fst);
    DataType *b = conv_data(c, env, t->snd);
    return a && b ? dt_pair(c->tc, a, b) : NULL;
  }
  case TYA_IDX: {
    Size n;
    return conv_size(c, env, t->size, &n) ? dt_idx(c->tc, n) : NULL;
  }
  case TYA_NAMED: {
    Env *e = env_find(env, t->name);
    if (!e || e->kind != ENV_DATA) {
      error(c, t->span, "unknown type '%s'", t->name);
      return NULL;
    }
    return dt_var(c->tc, t->name);
  }
  default:
    error(c, t->span, "expected a data type here, not a phrase type");
    return NULL;
  }
}

static PhraseType *conv_phrase(Checker *c, Env *env, const TypeAst *t) {
  switch (t->kind) {
  case TYA_EXP:
  case TYA_ACC:
  case TYA_VAR: {
    DataType *d = conv_data(c, env, t->elem);
    if (!d) return NULL;
    return t->kind == TYA_EXP ? pt_exp(c->tc, d) : t->kind == TYA_ACC ? pt_acc(c->tc, d) : pt_var(c->tc, d);
  }
  case TYA_COMM: return c->tc->t_comm;
  case TYA_WITH:
  case TYA_FN:
  case TYA_FN_P: {
    PhraseType *a = conv_phrase(c, env, t->fst);
    PhraseType *b = conv_phrase(c, env, t->snd);
    if (!a || !b) return NULL;
    return t->kind == TYA_WITH ? pt_with(c->tc, a, b) : t->kind == TYA_FN ? pt_fn(c->tc, a, b) : pt_fn_p(c->tc, a, b);
  }
  default: {
    /* a data type T written where a phrase type is expected means exp[T] */
    DataType *d = conv_data(c, env, t);
    return d ? pt_exp(c->tc, d) : NULL;
  }
  }
}

/* ---- phrases ---- */

static Phrase *mk(Checker *c, PhraseTermKind k, Span span, PhraseType *type) {
  Phrase *p = NEW(c->arena, Phrase);
  p->kind = k;
  p->span = span;
  p->type = type;
  return p;
}

static Binder *new_binder(Checker *c, Sym name, Span span, PhraseType *type) {
  Binder *b = NEW(c->arena, Binder);
  b->name = name;
  b->span = span;
  b->type = type;
  b->id = ++c->tc->next_binder;
  return b;
}

static Phrase *mk_app(Checker *c, Phrase *fn, Phrase *arg, Span span, PhraseType *type) {
  Phrase *p = mk(c, PH_APP, span, type);
  p->fst = fn;
  p->snd = arg;
  return p;
}

static DataType *fresh(Checker *c, MetaClass cls, Span span) { return dt_meta(c->tc, cls, span); }

/* ---- primitive types (spec section 4, paper Figure 4) ---- */

typedef struct Build {
  Checker *c;
  Span span;
} Build;

static PhraseType *E(Build *b, DataType *d) { return pt_exp(b->c->tc, d); }
static PhraseType *A(Build *b, DataType *d) { return pt_acc(b->c->tc, d); }
static PhraseType *F(Build *b, PhraseType *x, PhraseType *y) { return pt_fn(b->c->tc, x, y); }
static PhraseType *FP(Build *b, PhraseType *x, PhraseType *y) { return pt_fn_p(b->c->tc, x, y); }
static DataType *ARR(Build *b, Size n, DataType *d) { return dt_array(b->c->tc, n, d); }
static DataType *D(Build *b) { return fresh(b->c, MC_ANY, b->span); }
static Size N(Build *b) { return size_var(&b->c->tc->sizes, fresh_size_meta(b->c, b->span)); }
static Size MUL(Build *b, Size x, Size y) { return size_mul(&b->c->tc->sizes, x, y); }
static Size ADD(Build *b, Size x, Size y) { return size_add(&b->c->tc->sizes, x, y); }

static bool vector_width_ok(int64_t w) { return w == 2 || w == 3 || w == 4 || w == 8 || w == 16; }

/* The instantiated type of a primitive with its static arguments. */
static PhraseType *prim_type(Checker *c, Phrase *p, const Ast *e) {
  Build bb = {c, e->span}, *b = &bb;
  TypeCtx *tc = c->tc;
  PhraseType *comm = tc->t_comm;
  Size k = p->sizes[0], k2 = p->sizes[1];
  int64_t kv;
  switch (p->prim) {
  case PRIM_MAP:
  case PRIM_MAP_SEQ:
  case PRIM_MAP_GLOBAL:
  case PRIM_MAP_WORKGROUP:
  case PRIM_MAP_LOCAL: {
    Size n = N(b);
    DataType *d1 = D(b), *d2 = D(b);
    return F(b, F(b, E(b, d1), E(b, d2)), F(b, E(b, ARR(b, n, d1)), E(b, ARR(b, n, d2))));
  }
  case PRIM_REDUCE:
  case PRIM_REDUCE_SEQ: {
    Size n = N(b);
    DataType *d1 = D(b), *d2 = D(b);
    return F(b, F(b, E(b, d1), F(b, E(b, d2), E(b, d2))), F(b, E(b, d2), F(b, E(b, ARR(b, n, d1)), E(b, d2))));
  }
  case PRIM_ZIP: {
    Size n = N(b);
    DataType *d1 = D(b), *d2 = D(b);
    return F(b, E(b, ARR(b, n, d1)), F(b, E(b, ARR(b, n, d2)), E(b, ARR(b, n, dt_pair(tc, d1, d2)))));
  }
  case PRIM_SPLIT: {
    Size n = N(b);
    DataType *d = D(b);
    require(c, REQ_POSITIVE, k, e->span, "split");
    return F(b, E(b, ARR(b, MUL(b, n, k), d)), E(b, ARR(b, n, ARR(b, k, d))));
  }
  case PRIM_JOIN: {
    Size n = N(b), m = N(b);
    DataType *d = D(b);
    return F(b, E(b, ARR(b, n, ARR(b, m, d))), E(b, ARR(b, MUL(b, n, m), d)));
  }
  case PRIM_PAIR: {
    DataType *d1 = D(b), *d2 = D(b);
    return F(b, E(b, d1), F(b, E(b, d2), E(b, dt_pair(tc, d1, d2))));
  }
  case PRIM_FST:
  case PRIM_SND: {
    DataType *d1 = D(b), *d2 = D(b);
    return F(b, E(b, dt_pair(tc, d1, d2)), E(b, p->prim == PRIM_FST ? d1 : d2));
  }
  case PRIM_AS_VECTOR:
  case PRIM_AS_SCALAR_ACC:
  case PRIM_AS_SCALAR:
  case PRIM_AS_VECTOR_ACC: {
    Size n = N(b);
    DataType *s = fresh(c, MC_NUMERIC, e->span), *v = D(b);
    Size w = k;
    if (p->prim == PRIM_AS_VECTOR || p->prim == PRIM_AS_SCALAR_ACC) {
      if (!size_const_value(k, &kv) || !vector_width_ok(kv)) {
        error(c, e->span, "%s needs a vector width of 2, 3, 4, 8 or 16", prim_info[p->prim].name);
        return NULL;
      }
    } else {
      w = N(b);
    }
    defer(c, DEFER_VECTOR_OF, s, v, w, SC_INT, e->span);
    DataType *scalars = ARR(b, MUL(b, n, w), s), *vectors = ARR(b, n, v);
    switch (p->prim) {
    case PRIM_AS_VECTOR: return F(b, E(b, scalars), E(b, vectors));
    case PRIM_AS_SCALAR: return F(b, E(b, vectors), E(b, scalars));
    case PRIM_AS_SCALAR_ACC: return F(b, A(b, scalars), A(b, vectors));
    default: return F(b, A(b, vectors), A(b, scalars));
    }
  }
  case PRIM_TRANSPOSE:
  case PRIM_TRANSPOSE_ACC: {
    Size n = N(b), m = N(b);
    DataType *d = D(b);
    DataType *nm = ARR(b, n, ARR(b, m, d)), *mn = ARR(b, m, ARR(b, n, d));
    return p->prim == PRIM_TRANSPOSE ? F(b, E(b, nm), E(b, mn)) : F(b, A(b, mn), A(b, nm));
  }
  case PRIM_SLIDE: {
    /* slide s t : [t*(n-1)+s]d -> [n][s]d, written [t*n' + s] with n' = n-1 */
    Size n1 = N(b);
    DataType *d = D(b);
    require(c, REQ_POSITIVE, k, e->span, "slide window");
    require(c, REQ_POSITIVE, k2, e->span, "slide step");
    Size one = size_const(&tc->sizes, 1);
    return F(b, E(b, ARR(b, ADD(b, MUL(b, k2, n1), k), d)), E(b, ARR(b, ADD(b, n1, one), ARR(b, k, d))));
  }
  case PRIM_PAD_CLAMP:
  case PRIM_PAD_CST: {
    Size n = N(b);
    DataType *d = D(b);
    PhraseType *t = F(b, E(b, ARR(b, n, d)), E(b, ARR(b, ADD(b, ADD(b, k, n), k2), d)));
    return p->prim == PRIM_PAD_CLAMP ? t : F(b, E(b, d), t);
  }
  case PRIM_REORDER_STRIDE: {
    Size m = N(b);
    DataType *d = D(b);
    require(c, REQ_POSITIVE, k, e->span, "reorderStride");
    DataType *t = ARR(b, MUL(b, m, k), d);
    return F(b, E(b, t), E(b, t));
  }
  case PRIM_TAKE:
  case PRIM_DROP: {
    Size rest = N(b);
    DataType *d = D(b);
    return F(b, E(b, ARR(b, ADD(b, k, rest), d)), E(b, ARR(b, p->prim == PRIM_TAKE ? k : rest, d)));
  }
  case PRIM_TO_GLOBAL:
  case PRIM_TO_LOCAL:
  case PRIM_TO_PRIVATE: {
    DataType *d1 = D(b), *d2 = D(b);
    return F(b, F(b, E(b, d1), E(b, d2)), F(b, E(b, d1), E(b, d2)));
  }
  case PRIM_SELECT: {
    DataType *t = D(b);
    return F(b, E(b, tc->t_bool), F(b, E(b, t), F(b, E(b, t), E(b, t))));
  }
  case PRIM_VEC: {
    if (!size_const_value(k, &kv) || !vector_width_ok(kv)) {
      error(c, e->span, "vec needs a vector width of 2, 3, 4, 8 or 16");
      return NULL;
    }
    DataType *s = fresh(c, MC_NUMERIC, e->span), *v = D(b);
    defer(c, DEFER_VECTOR_OF, s, v, k, SC_INT, e->span);
    return F(b, E(b, s), E(b, v));
  }
  case PRIM_FABS:
  case PRIM_SQRT:
  case PRIM_RSQRT:
  case PRIM_EXP:
  case PRIM_LOG:
  case PRIM_SIN:
  case PRIM_COS:
  case PRIM_FLOOR:
  case PRIM_CEIL: {
    DataType *t = fresh(c, MC_FLOATING, e->span);
    return F(b, E(b, t), E(b, t));
  }
  case PRIM_MIN:
  case PRIM_MAX: {
    DataType *t = fresh(c, MC_NUMERIC, e->span);
    return F(b, E(b, t), F(b, E(b, t), E(b, t)));
  }
  case PRIM_POW: {
    DataType *t = fresh(c, MC_FLOATING, e->span);
    return F(b, E(b, t), F(b, E(b, t), E(b, t)));
  }
  case PRIM_FMA: {
    DataType *t = fresh(c, MC_FLOATING, e->span);
    return F(b, E(b, t), F(b, E(b, t), F(b, E(b, t), E(b, t))));
  }
  case PRIM_TO_FLOAT:
  case PRIM_TO_INT:
  case PRIM_TO_DOUBLE: {
    DataType *s = fresh(c, MC_NUMERIC, e->span), *r = D(b);
    ScalarKind target = p->prim == PRIM_TO_FLOAT ? SC_FLOAT : p->prim == PRIM_TO_INT ? SC_INT : SC_DOUBLE;
    defer(c, DEFER_CONVERT, s, r, size_const(&tc->sizes, 0), target, e->span);
    return F(b, E(b, s), E(b, r));
  }
  case PRIM_SKIP: return comm;
  case PRIM_NEW:
  case PRIM_NEW_GLOBAL:
  case PRIM_NEW_LOCAL:
  case PRIM_NEW_PRIVATE:
    return F(b, F(b, pt_var(tc, p->type_arg), comm), comm);
  case PRIM_FOR:
    return F(b, F(b, E(b, dt_idx(tc, k)), comm), comm);
  case PRIM_PARFOR:
  case PRIM_PARFOR_GLOBAL:
  case PRIM_PARFOR_WORKGROUP:
  case PRIM_PARFOR_LOCAL: {
    Size n = N(b);
    DataType *d = D(b);
    return F(b, A(b, ARR(b, n, d)), F(b, F(b, E(b, dt_idx(tc, n)), FP(b, A(b, d), comm)), comm));
  }
  case PRIM_IDX:
  case PRIM_IDX_ACC: {
    Size n = N(b);
    DataType *d = D(b);
    PhraseType *i = E(b, dt_idx(tc, n));
    return p->prim == PRIM_IDX ? F(b, E(b, ARR(b, n, d)), F(b, i, E(b, d)))
                               : F(b, A(b, ARR(b, n, d)), F(b, i, A(b, d)));
  }
  case PRIM_SPLIT_ACC: {
    Size n = N(b);
    DataType *d = D(b);
    require(c, REQ_POSITIVE, k, e->span, "splitAcc");
    return F(b, A(b, ARR(b, n, ARR(b, k, d))), A(b, ARR(b, MUL(b, n, k), d)));
  }
  case PRIM_JOIN_ACC: {
    Size n = N(b), m = N(b);
    DataType *d = D(b);
    return F(b, A(b, ARR(b, MUL(b, n, m), d)), A(b, ARR(b, n, ARR(b, m, d))));
  }
  case PRIM_PAIR_ACC1:
  case PRIM_PAIR_ACC2: {
    DataType *d1 = D(b), *d2 = D(b);
    return F(b, A(b, dt_pair(tc, d1, d2)), A(b, p->prim == PRIM_PAIR_ACC1 ? d1 : d2));
  }
  case PRIM_ZIP_ACC1:
  case PRIM_ZIP_ACC2: {
    Size n = N(b);
    DataType *d1 = D(b), *d2 = D(b);
    return F(b, A(b, ARR(b, n, dt_pair(tc, d1, d2))), A(b, ARR(b, n, p->prim == PRIM_ZIP_ACC1 ? d1 : d2)));
  }
  case PRIM_MAP_I:
  case PRIM_MAP_I_SEQ:
  case PRIM_MAP_I_GLOBAL:
  case PRIM_MAP_I_WORKGROUP:
  case PRIM_MAP_I_LOCAL: {
    Size n = N(b);
    DataType *d1 = D(b), *d2 = D(b);
    PhraseType *f = F(b, E(b, d1), FP(b, A(b, d2), comm));
    return F(b, f, F(b, E(b, ARR(b, n, d1)), F(b, A(b, ARR(b, n, d2)), comm)));
  }
  case PRIM_REDUCE_I: {
    Size n = N(b);
    DataType *d1 = D(b), *d2 = D(b);
    PhraseType *f = F(b, E(b, d1), F(b, E(b, d2), F(b, A(b, d2), comm)));
    PhraseType *k_ = F(b, E(b, d2), comm);
    return F(b, f, F(b, E(b, d2), F(b, E(b, ARR(b, n, d1)), F(b, k_, comm))));
  }
  case PRIM_COUNT: break;
  }
  INTERNAL("no type for primitive %d", (int)p->prim);
}

static Phrase *elab_prim(Checker *c, Env *env, const Ast *e) {
  Phrase *p = mk(c, PH_PRIM, e->span, NULL);
  p->prim = e->prim;
  p->dim = e->dim;
  const PrimInfo *info = &prim_info[e->prim];
  bool ok = true;
  for (int i = 0; i < info->nsizes; i++) {
    ok = conv_size(c, env, e->sizes[i], &p->sizes[i]) && ok;
  }
  if (info->takes_type) {
    p->type_arg = conv_data(c, env, e->type_arg);
    ok = p->type_arg && ok;
  }
  if (!ok) return NULL;
  for (int i = 0; i < info->nsizes; i++) {
    int64_t v;
    bool may_be_zero = p->prim == PRIM_PAD_CLAMP || p->prim == PRIM_PAD_CST || p->prim == PRIM_TAKE ||
                       p->prim == PRIM_DROP;
    if (!may_be_zero && size_const_value(p->sizes[i], &v) && v < 1) {
      error(c, e->sizes[i]->span, "%s needs a size of at least 1, found %lld", info->name, (long long)v);
      return NULL;
    }
  }
  p->type = prim_type(c, p, e);
  return p->type ? p : NULL;
}

/* ---- literals and operators ---- */

static Phrase *elab_literal(Checker *c, const Ast *e) {
  Phrase *p;
  switch (e->kind) {
  case AST_INT:
    if (e->int_value > (uint64_t)INT64_MAX) {
      error(c, e->span, "integer literal too large");
      return NULL;
    }
    p = mk(c, PH_LIT, e->span, pt_exp(c->tc, fresh(c, MC_NUMERIC, e->span)));
    p->lit_int = (int64_t)e->int_value;
    p->lit_float = (double)e->int_value;
    break;
  case AST_FLOAT:
    p = mk(c, PH_LIT, e->span,
           pt_exp(c->tc, e->float_suffix_f ? c->tc->t_float : fresh(c, MC_FLOATING, e->span)));
    p->lit_float = e->float_value;
    p->lit_is_float = true;
    break;
  default: /* AST_BOOL */
    p = mk(c, PH_LIT, e->span, pt_exp(c->tc, c->tc->t_bool));
    p->lit_int = e->bool_value;
    break;
  }
  vec_push(c->arena, &c->lits, p);
  return p;
}

static DataType *exp_data(Checker *c, Phrase *p, const char *what) {
  if (p->type->kind != PT_EXP) {
    error(c, p->span, "%s needs an expression, found a phrase of type %s", what, pt_str(c->arena, p->type));
    return NULL;
  }
  return dt_resolve(p->type->data);
}

/* Result type of an arithmetic operator (spec section 4: numeric scalars
 * and vectors, elementwise; scalar op vector broadcasts). */
static DataType *arith_type(Checker *c, const Ast *e, DataType *a, DataType *b, bool int_only) {
  const char *op = binop_spelling[e->op];
  if (a->kind == DT_META && b->kind == DT_META) {
    unify_data(c, a, b);
    DataType *t = dt_resolve(a);
    if (t->meta->cls == MC_ANY) t->meta->cls = MC_NUMERIC;
    if (int_only && t->meta->cls == MC_FLOATING) goto bad;
    return t;
  }
  if (a->kind == DT_META || b->kind == DT_META) {
    DataType *m = a->kind == DT_META ? a : b, *k = a->kind == DT_META ? b : a;
    if (k->kind != DT_SCALAR || k->scalar == SC_BOOL) goto bad;
    /* a literal (or a type not fixed yet) next to a vector takes the vector
     * type: a vector literal is the scalar broadcast (spec section 2), and
     * an accumulator started from 0.0 and added to float4s is a float4 */
    if (!unify_data(c, m, k)) goto bad;
    if (int_only && k->scalar != SC_INT) goto bad;
    return k;
  }
  if (a->kind != DT_SCALAR || b->kind != DT_SCALAR || a->scalar == SC_BOOL || b->scalar == SC_BOOL) goto bad;
  if (a->scalar != b->scalar) {
    error(c, e->span, "operands of '%s' have different types %s and %s; convert one with toFloat, toInt or toDouble",
          op, dt_str(c->arena, a), dt_str(c->arena, b));
    return NULL;
  }
  if (int_only && a->scalar != SC_INT) goto bad;
  if (a->width == b->width) return a;
  if (a->width == 1) return b;
  if (b->width == 1) return a;
bad:
  error(c, e->span, "operator '%s' cannot be applied to %s and %s", op, dt_str(c->arena, a), dt_str(c->arena, b));
  return NULL;
}

static Phrase *elab_binop(Checker *c, Env *env, const Ast *e) {
  Phrase *l = infer(c, env, e->lhs);
  Phrase *r = infer(c, env, e->rhs);
  if (!l || !r) return NULL;
  const char *op = binop_spelling[e->op];
  DataType *a = exp_data(c, l, op), *b = a ? exp_data(c, r, op) : NULL;
  if (!a || !b) return NULL;
  DataType *t = NULL;
  switch (e->op) {
  case BIN_ADD:
  case BIN_SUB:
  case BIN_MUL:
  case BIN_DIV: t = arith_type(c, e, a, b, false); break;
  case BIN_MOD: t = arith_type(c, e, a, b, true); break;
  case BIN_LT:
  case BIN_LE:
  case BIN_GT:
  case BIN_GE:
  case BIN_EQ:
  case BIN_NE: {
    DataType *u = arith_type(c, e, a, b, false);
    if (!u) return NULL;
    u = dt_resolve(u);
    if (u->kind == DT_SCALAR && u->width > 1) {
      error(c, e->span, "comparison '%s' of vectors is not supported; compare scalars", op);
      return NULL;
    }
    t = c->tc->t_bool;
    break;
  }
  case BIN_AND:
  case BIN_OR:
    if (!unify_data(c, a, c->tc->t_bool) || !unify_data(c, b, c->tc->t_bool)) {
      error(c, e->span, "operator '%s' needs bool operands, found %s and %s", op, dt_str(c->arena, a),
            dt_str(c->arena, b));
      return NULL;
    }
    t = c->tc->t_bool;
    break;
  default: INTERNAL("binop");
  }
  if (!t) return NULL;
  Phrase *p = mk(c, PH_BINOP, e->span, pt_exp(c->tc, t));
  p->op = e->op;
  p->fst = l;
  p->snd = r;
  return p;
}

static Phrase *elab_unop(Checker *c, Env *env, const Ast *e) {
  Phrase *x = infer(c, env, e->lhs);
  if (!x) return NULL;
  DataType *t = exp_data(c, x, e->kind == AST_NEG ? "'-'" : "'!'");
  if (!t) return NULL;
  if (e->kind == AST_NEG) {
    if (t->kind == DT_META) {
      if (t->meta->cls == MC_ANY) t->meta->cls = MC_NUMERIC;
    } else if (t->kind != DT_SCALAR || t->scalar == SC_BOOL) {
      error(c, e->span, "'-' cannot be applied to %s", dt_str(c->arena, t));
      return NULL;
    }
  } else if (!unify_data(c, t, c->tc->t_bool)) {
    error(c, e->span, "'!' needs a bool operand, found %s", dt_str(c->arena, t));
    return NULL;
  }
  Phrase *p = mk(c, PH_UNOP, e->span, pt_exp(c->tc, e->kind == AST_NEG ? t : c->tc->t_bool));
  p->unop = e->kind == AST_NEG ? '-' : '!';
  p->fst = x;
  return p;
}

/* ---- identifiers and defs ---- */

static int find_decl(Checker *c, Sym name) {
  for (int i = 0; i < c->prog->ndecls; i++)
    if (c->prog->decls[i]->name == name) return i;
  return -1;
}

/* A use of a def: fresh metavariables for its nat and data parameters,
 * and its requirements instantiated at the use (they become the user's
 * requirements). */
static Phrase *elab_def_use(Checker *c, const Ast *e, int index) {
  if (c->state[index] == 1) {
    const char *current = c->prog->decls[c->current]->name;
    if (c->current == index)
      error(c, e->span, "recursive definition: '%s' uses itself; DPIA has no recursion", e->name);
    else
      error(c, e->span, "recursive definitions: '%s' uses '%s', which uses '%s' again; DPIA has no recursion",
            current, e->name, current);
    return NULL;
  }
  if (c->state[index] == 0) {
    /* check it first, with this declaration's state saved */
    Checker saved = *c;
    c->reqs = (Vec){0};
    c->deferred = (Vec){0};
    c->postponed = (Vec){0};
    c->lits = (Vec){0};
    c->failed = false;
    if (++c->def_depth > DPIA_MAX_NESTING) {
      error(c, e->span, "defs nested too deeply (more than %d levels)", DPIA_MAX_NESTING);
      c->def_depth--;
      return NULL;
    }
    check_decl(c, index);
    c->def_depth--;
    bool failed_here = saved.failed;
    Vec size_metas = c->size_metas;
    *c = saved;
    c->size_metas = size_metas;
    c->failed = failed_here;
  }
  DefInfo *def = c->defs[index];
  if (!def->ok) {
    c->failed = true; /* already reported at the def */
    return NULL;
  }
  if (def->is_kernel) {
    error(c, e->span, "'%s' is a kernel; kernels cannot be called, only defs can", e->name);
    return NULL;
  }
  TypeSubst *s = NEW(c->arena, TypeSubst);
  int n = def->nsize_params + def->ndata_params;
  s->n = n;
  s->names = NEWARRAY(c->arena, Sym, n);
  s->is_size = NEWARRAY(c->arena, bool, n);
  s->sizes = NEWARRAY(c->arena, Size, n);
  s->datas = NEWARRAY(c->arena, DataType *, n);
  for (int i = 0; i < def->nsize_params; i++) {
    s->names[i] = def->size_params[i];
    s->is_size[i] = true;
    s->sizes[i] = size_var(&c->tc->sizes, fresh_size_meta(c, e->span));
  }
  for (int i = 0; i < def->ndata_params; i++) {
    int j = def->nsize_params + i;
    s->names[j] = def->data_params[i];
    s->datas[j] = fresh(c, MC_ANY, e->span);
  }
  Phrase *p = mk(c, PH_DEF, e->span, pt_subst(c->tc, s, def->type));
  p->def = def;
  p->subst = s;
  /* the def's requirements on its nat parameters become requirements on
   * the sizes at this use */
  for (int i = 0; i < def->nreqs; i++) {
    Size r = def->req_sizes[i];
    for (int j = 0; j < def->nsize_params; j++) {
      if (!size_has_var(r, s->names[j])) continue;
      if (!size_subst(&c->tc->sizes, r, s->names[j], s->sizes[j], &r))
        INTERNAL("requirement of %s does not instantiate", def->name);
    }
    require(c, def->req_positive[i] ? REQ_POSITIVE : REQ_NATURAL, r, e->span,
            def->req_positive[i] ? "a size argument" : NULL);
  }
  return p;
}

static Phrase *elab_var(Checker *c, Env *env, const Ast *e) {
  Env *found = env_find(env, e->name);
  if (found) {
    if (found->kind == ENV_SIZE) {
      error(c, e->span, "'%s' is a size; sizes used as values inside expressions are not supported", e->name);
      return NULL;
    }
    if (found->kind == ENV_DATA) {
      error(c, e->span, "'%s' is a data type, not a value", e->name);
      return NULL;
    }
    Binder *b = found->binder;
    if (!b->type) {
      c->failed = true; /* its definition failed and was reported */
      return NULL;
    }
    Phrase *p = mk(c, PH_VAR, e->span, b->type);
    p->binder = b;
    return p;
  }
  int index = find_decl(c, e->name);
  if (index >= 0) return elab_def_use(c, e, index);
  error(c, e->span, "unknown identifier '%s'", e->name);
  return NULL;
}

/* ---- application spines ---- */

typedef struct Arg {
  const Ast *ast;  /* the argument as written, or NULL if ready */
  Phrase *ready;   /* an already elaborated argument */
  Span app_span;   /* the application up to and including this argument */
} Arg;

static bool is_function_literal(const Ast *e) {
  return e && (e->kind == AST_LAMBDA || e->kind == AST_COMPOSE);
}

/* An argument checked after the data arguments: a function literal, or
 * anything passed where a function is expected (toGlobal (mapSeq f) x:
 * mapSeq f must see the element type of x before its lambda is checked). */
static bool check_late(const Ast *e, const PhraseType *param) {
  return is_function_literal(e) || param->kind == PT_FN || param->kind == PT_FN_P;
}

static Phrase *elab_lambda(Checker *c, Env *env, const Ast *e, PhraseType *want);
static Phrase *elab_function_literal(Checker *c, Env *env, const Ast *e, PhraseType *want);

/* Apply fn to args.  want (optional) is the type the whole application
 * must have; unifying it early lets function arguments see it. */
static Phrase *apply_spine(Checker *c, Env *env, Phrase *fn, Arg *args, int nargs, PhraseType *want) {
  /* collect the parameter types */
  PhraseType **params = NEWARRAY(c->arena, PhraseType *, nargs);
  PhraseType *t = fn->type;
  for (int i = 0; i < nargs; i++) {
    if (t->kind != PT_FN && t->kind != PT_FN_P) {
      Span at = args[i].ast ? args[i].ast->span : args[i].ready->span;
      if (i == 0)
        error(c, at, "this is applied to an argument, but it has type %s, which is not a function",
              pt_str(c->arena, zonk_phrase_type(c, fn->type)));
      else
        error(c, at, "too many arguments: the function takes %d here", i);
      return NULL;
    }
    params[i] = t->fst;
    t = t->snd;
  }
  Phrase **elab = NEWARRAY(c->arena, Phrase *, nargs);
  bool ok = true;
  /* first the arguments that are not lambdas: they fix the implicit sizes
   * and types that the lambdas' parameters get */
  for (int i = 0; i < nargs; i++) {
    if (args[i].ready) {
      elab[i] = args[i].ready;
      if (!expect_type(c, args[i].ready->span, params[i], args[i].ready->type, NULL)) ok = false;
    } else if (!check_late(args[i].ast, params[i])) {
      elab[i] = check(c, env, args[i].ast, params[i]);
      if (!elab[i]) ok = false;
    }
  }
  if (ok && want && !expect_type(c, args[nargs - 1].app_span, want, t, NULL)) ok = false;
  wake_deferred(c);
  for (int i = 0; i < nargs; i++) {
    if (!args[i].ready && check_late(args[i].ast, params[i])) {
      elab[i] = check(c, env, args[i].ast, params[i]);
      if (!elab[i]) ok = false;
      wake_deferred(c);
    }
  }
  if (!ok) return NULL;
  Phrase *p = fn;
  PhraseType *r = fn->type;
  for (int i = 0; i < nargs; i++) {
    r = r->snd;
    p = mk_app(c, p, elab[i], args[i].app_span, r);
  }
  return p;
}

static Phrase *elab_app(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  int nargs = 0;
  const Ast *head = e;
  while (head->kind == AST_APP) {
    nargs++;
    head = head->lhs;
  }
  if (++c->depth > DPIA_MAX_NESTING * 4) {
    error(c, e->span, "expression nested too deeply");
    c->depth--;
    return NULL;
  }
  Arg *args = NEWARRAY(c->arena, Arg, nargs);
  const Ast *a = e;
  for (int i = nargs - 1; i >= 0; i--) {
    args[i].ast = a->rhs;
    args[i].app_span = a->span;
    a = a->lhs;
  }
  Phrase *fn;
  if (head->kind == AST_LAMBDA) {
    /* (\x -> body) arg, as a let is: the argument gives x its type */
    Phrase *arg0 = infer(c, env, args[0].ast);
    if (!arg0) {
      c->depth--;
      return NULL;
    }
    args[0].ready = arg0;
    args[0].ast = NULL;
    fn = elab_lambda(c, env, head, pt_fn(c->tc, arg0->type, NULL));
  } else {
    fn = infer(c, env, head);
  }
  Phrase *p = fn ? apply_spine(c, env, fn, args, nargs, want) : NULL;
  c->depth--;
  return p;
}

/* ---- lambdas, let, composition ---- */

/* want: a function type whose parameter gives the binder's type; its
 * result (if not NULL) is what the body is checked against. */
static Phrase *elab_lambda(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  PhraseType *param = want ? want->fst : pt_exp(c->tc, fresh(c, MC_ANY, e->bound_span));
  Binder *b = new_binder(c, e->bound, e->bound_span, param);
  Env *inner = env_push(c, env, e->bound, ENV_BINDER, b);
  Phrase *body = want && want->snd ? check(c, inner, e->body, want->snd) : infer(c, inner, e->body);
  if (!body) return NULL;
  bool passive = want && want->kind == PT_FN_P;
  Phrase *p = mk(c, PH_LAM, e->span, passive ? pt_fn_p(c->tc, param, body->type) : pt_fn(c->tc, param, body->type));
  p->lam_binder = b;
  p->body = body;
  p->promoted = passive;
  return p;
}

static Phrase *elab_compose(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  /* f >> g  is  \x -> g (f x)   (spec section 2) */
  PhraseType *param = want ? want->fst : NULL;
  Phrase *f = NULL;
  if (!param) {
    f = infer(c, env, e->lhs);
    if (!f) return NULL;
    if (f->type->kind != PT_FN && f->type->kind != PT_FN_P) {
      error(c, e->lhs->span, "the left side of '>>' must be a function, found %s", pt_str(c->arena, f->type));
      return NULL;
    }
    param = f->type->fst;
  }
  Binder *b = new_binder(c, intern_cstr(c->in, "x"), e->span, param);
  Phrase *x = mk(c, PH_VAR, e->span, param);
  x->binder = b;
  Arg arg1 = {.ast = NULL, .ready = x, .app_span = e->lhs->span};
  Phrase *fx;
  if (f) {
    fx = apply_spine(c, env, f, &arg1, 1, NULL);
  } else {
    /* elaborate f as the head of a spine applied to x */
    Phrase *fh = is_function_literal(e->lhs) ? elab_function_literal(c, env, e->lhs, pt_fn(c->tc, param, NULL))
                                               : infer(c, env, e->lhs);
    fx = fh ? apply_spine(c, env, fh, &arg1, 1, NULL) : NULL;
  }
  if (!fx) return NULL;
  Arg arg2 = {.ast = NULL, .ready = fx, .app_span = e->span};
  Phrase *g = is_function_literal(e->rhs) ? elab_function_literal(c, env, e->rhs, pt_fn(c->tc, fx->type, NULL))
                                          : infer(c, env, e->rhs);
  if (!g) return NULL;
  Phrase *body = apply_spine(c, env, g, &arg2, 1, want ? want->snd : NULL);
  if (!body) return NULL;
  bool passive = want && want->kind == PT_FN_P;
  Phrase *p = mk(c, PH_LAM, e->span, passive ? pt_fn_p(c->tc, param, body->type) : pt_fn(c->tc, param, body->type));
  p->lam_binder = b;
  p->body = body;
  p->promoted = passive;
  return p;
}

static Phrase *elab_function_literal(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  return e->kind == AST_LAMBDA ? elab_lambda(c, env, e, want) : elab_compose(c, env, e, want);
}

static Phrase *elab_let(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  /* let x = v in b  is  (\x -> b) v   (spec section 2) */
  Phrase *v = infer(c, env, e->value);
  Binder *b = new_binder(c, e->bound, e->bound_span, v ? v->type : NULL);
  Env *inner = env_push(c, env, e->bound, ENV_BINDER, b);
  Phrase *body = want ? check(c, inner, e->body, want) : infer(c, inner, e->body);
  if (!v || !body) return NULL;
  Phrase *lam = mk(c, PH_LAM, e->span, pt_fn(c->tc, v->type, body->type));
  lam->lam_binder = b;
  lam->body = body;
  return mk_app(c, lam, v, e->span, body->type);
}

/* ---- the two directions ---- */

static Phrase *infer_inner(Checker *c, Env *env, const Ast *e) {
  switch (e->kind) {
  case AST_VAR: return elab_var(c, env, e);
  case AST_INT:
  case AST_FLOAT:
  case AST_BOOL: return elab_literal(c, e);
  case AST_PRIM: return elab_prim(c, env, e);
  case AST_LAMBDA: return elab_lambda(c, env, e, NULL);
  case AST_LET: return elab_let(c, env, e, NULL);
  case AST_APP: return elab_app(c, env, e, NULL);
  case AST_COMPOSE: return elab_compose(c, env, e, NULL);
  case AST_SEQ: {
    Phrase *a = check(c, env, e->lhs, c->tc->t_comm);
    Phrase *b = check(c, env, e->rhs, c->tc->t_comm);
    if (!a || !b) return NULL;
    Phrase *p = mk(c, PH_SEQ, e->span, c->tc->t_comm);
    p->fst = a;
    p->snd = b;
    return p;
  }
  case AST_ASSIGN: {
    Phrase *l = infer(c, env, e->lhs);
    if (!l) {
      infer(c, env, e->rhs);
      return NULL;
    }
    if (l->type->kind != PT_ACC) {
      if (l->type->kind == PT_WITH && l->type->fst->kind == PT_ACC)
        error(c, e->lhs->span, "the left side of ':=' must be an acceptor; this is a variable: write .1 to assign to it");
      else
        error(c, e->lhs->span, "the left side of ':=' must be an acceptor, found %s", pt_str(c->arena, l->type));
      return NULL;
    }
    Phrase *r = check(c, env, e->rhs, pt_exp(c->tc, l->type->data));
    if (!r) return NULL;
    Phrase *p = mk(c, PH_ASSIGN, e->span, c->tc->t_comm);
    p->fst = l;
    p->snd = r;
    return p;
  }
  case AST_BINOP: return elab_binop(c, env, e);
  case AST_NEG:
  case AST_NOT: return elab_unop(c, env, e);
  case AST_PROJ: {
    Phrase *x = infer(c, env, e->lhs);
    if (!x) return NULL;
    if (x->type->kind != PT_WITH) {
      if (x->type->kind == PT_EXP)
        error(c, e->span, "'.%d' projects a phrase pair ({a, b} or a var); for a data pair use %s", e->proj,
              e->proj == 1 ? "fst" : "snd");
      else
        error(c, e->span, "'.%d' needs a phrase pair, found %s", e->proj, pt_str(c->arena, x->type));
      return NULL;
    }
    Phrase *p = mk(c, PH_PROJ, e->span, e->proj == 1 ? x->type->fst : x->type->snd);
    p->fst = x;
    p->index = e->proj;
    return p;
  }
  case AST_TUPLE: {
    /* (a, b) is pair a b */
    Phrase *pr = mk(c, PH_PRIM, e->span, NULL);
    pr->prim = PRIM_PAIR;
    pr->type = prim_type(c, pr, e);
    Arg args[2] = {{.ast = e->lhs, .app_span = e->span}, {.ast = e->rhs, .app_span = e->span}};
    return apply_spine(c, env, pr, args, 2, NULL);
  }
  case AST_PPAIR: {
    Phrase *a = infer(c, env, e->lhs);
    Phrase *b = infer(c, env, e->rhs);
    if (!a || !b) return NULL;
    Phrase *p = mk(c, PH_PAIR, e->span, pt_with(c->tc, a->type, b->type));
    p->fst = a;
    p->snd = b;
    return p;
  }
  case AST_ASCRIBE: {
    PhraseType *t = conv_phrase(c, env, e->type);
    if (!t) return NULL;
    return check(c, env, e->lhs, t);
  }
  case AST_COUNT: break;
  }
  INTERNAL("ast kind %d", (int)e->kind);
}

static Phrase *infer(Checker *c, Env *env, const Ast *e) {
  if (++c->depth > DPIA_MAX_NESTING * 4) {
    c->depth--;
    error(c, e->span, "expression nested too deeply");
    return NULL;
  }
  Phrase *p = infer_inner(c, env, e);
  c->depth--;
  return p;
}

static Phrase *check(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  switch (e->kind) {
  case AST_LAMBDA:
    if (want->kind != PT_FN && want->kind != PT_FN_P) {
      error(c, e->span, "a function is not allowed here: expected %s", pt_str(c->arena, zonk_phrase_type(c, want)));
      return NULL;
    }
    return elab_lambda(c, env, e, want);
  case AST_COMPOSE:
    if (want->kind != PT_FN && want->kind != PT_FN_P) {
      error(c, e->span, "a function is not allowed here: expected %s", pt_str(c->arena, zonk_phrase_type(c, want)));
      return NULL;
    }
    return elab_compose(c, env, e, want);
  case AST_LET: return elab_let(c, env, e, want);
  case AST_APP: {
    Phrase *p = elab_app(c, env, e, want);
    return p;
  }
  default: break;
  }
  Phrase *p = infer(c, env, e);
  if (!p) return NULL;
  if (!expect_type(c, e->span, want, p->type, NULL)) return NULL;
  return p;
}

/* ---- finishing a declaration ---- */

static void default_metas_in(Checker *c, DataType *t) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_META:
    if (t->meta->cls == MC_NUMERIC) t->meta->solution = c->tc->t_int;
    else if (t->meta->cls == MC_FLOATING) t->meta->solution = c->tc->t_float;
    return;
  case DT_ARRAY: default_metas_in(c, t->elem); return;
  case DT_PAIR:
    default_metas_in(c, t->fst);
    default_metas_in(c, t->snd);
    return;
  default: return;
  }
}

/* first unsolved metavariable (data or size) in a zonked type, for the
 * "cannot infer" message */
static bool has_unsolved(Checker *c, DataType *t) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_META: return true;
  case DT_ARRAY: return size_first_meta(zonk_size(c, t->size)) || has_unsolved(c, t->elem);
  case DT_PAIR: return has_unsolved(c, t->fst) || has_unsolved(c, t->snd);
  case DT_IDX: return size_first_meta(zonk_size(c, t->size)) != NULL;
  default: return false;
  }
}

static bool pt_has_unsolved(Checker *c, PhraseType *t) {
  switch (t->kind) {
  case PT_EXP:
  case PT_ACC: return has_unsolved(c, t->data);
  case PT_COMM: return false;
  default: return pt_has_unsolved(c, t->fst) || pt_has_unsolved(c, t->snd);
  }
}

typedef struct Finish {
  Checker *c;
  bool reported_unsolved;
} Finish;

/* Zonk every type in the tree; report the first phrase whose type cannot
 * be inferred. */
static void zonk_tree(Finish *f, Phrase *p) {
  Checker *c = f->c;
  if (!f->reported_unsolved && pt_has_unsolved(c, p->type)) {
    f->reported_unsolved = true;
    error(c, p->span, "cannot infer the type of this phrase: %s; add a type ascription (e : type)",
          pt_str(c->arena, zonk_phrase_type(c, p->type)));
  }
  p->type = zonk_phrase_type(c, p->type);
  switch (p->kind) {
  case PH_VAR:
    break;
  case PH_LIT:
    break;
  case PH_PRIM:
    if (p->type_arg) p->type_arg = zonk_data(c, p->type_arg);
    break;
  case PH_DEF:
    for (int i = 0; i < p->subst->n; i++) {
      if (p->subst->is_size[i]) p->subst->sizes[i] = zonk_size(c, p->subst->sizes[i]);
      else p->subst->datas[i] = zonk_data(c, p->subst->datas[i]);
    }
    break;
  case PH_LAM:
    p->lam_binder->type = zonk_phrase_type(c, p->lam_binder->type);
    zonk_tree(f, p->body);
    break;
  default:
    zonk_tree(f, p->fst);
    if (p->kind != PH_PROJ && p->kind != PH_UNOP) zonk_tree(f, p->snd);
    break;
  }
}

static void default_tree(Checker *c, Phrase *p) {
  if (p->type->kind == PT_EXP) default_metas_in(c, p->type->data);
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return;
  case PH_LAM: default_tree(c, p->body); return;
  default:
    default_tree(c, p->fst);
    if (p->kind != PH_PROJ && p->kind != PH_UNOP) default_tree(c, p->snd);
  }
}

static void check_literal_ranges(Checker *c) {
  for (int i = 0; i < c->lits.len; i++) {
    Phrase *p = c->lits.items[i];
    DataType *t = dt_resolve(p->type->data);
    if (t->kind != DT_SCALAR) continue;
    if (t->scalar == SC_INT && !p->lit_is_float && p->lit_int > INT32_MAX)
      error(c, p->span, "integer literal %lld does not fit its type int", (long long)p->lit_int);
  }
}

/* s as num/den with num a polynomial over the variables and den a
 * monomial, for printing  num % den == 0 */
static void size_fraction(Checker *c, Size s, Size *num, Size *den) {
  SizeCtx *sc = &c->tc->sizes;
  int64_t l = 1;
  for (int i = 0; i < s.nterms; i++) {
    int64_t d = s.terms[i].den, g = l, h = d;
    while (h) {
      int64_t t = g % h;
      g = h;
      h = t;
    }
    if (__builtin_mul_overflow(l / g, d, &l)) sc->overflow = true;
  }
  Size D = size_const(sc, l);
  /* each variable to its largest negative power */
  for (int i = 0; i < s.nterms; i++) {
    for (int j = 0; j < s.terms[i].nfactors; j++) {
      SizeFactor f = s.terms[i].factors[j];
      if (f.exp >= 0) continue;
      int64_t have = 0;
      for (int t = 0; t < D.nterms; t++)
        for (int u = 0; u < D.terms[t].nfactors; u++)
          if (D.terms[t].factors[u].var == f.var) have = D.terms[t].factors[u].exp;
      for (int64_t e = have; e < -f.exp; e++) D = size_mul(sc, D, size_var(sc, f.var));
    }
  }
  *den = D;
  *num = size_mul(sc, s, D);
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

static const char *size_str(Checker *c, Size s) {
  Buf b;
  buf_init(&b, c->arena);
  size_print(&b, s);
  return for_message(c, b.data, NULL);
}

/* A kernel precondition: lhs % rhs == 0 (DIV) or lhs >= rhs (GE). */
typedef struct Precond {
  bool div;
  Size lhs, rhs;
} Precond;

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

/* Add a precondition unless it is already there; divisibility of the same
 * numerator by constants merges into one by their lcm (N % 4 and N % 8192
 * are N % 8192), lower bounds of the same size into the largest. */
static void add_precond(Checker *c, Vec *out, bool div, Size lhs, Size rhs) {
  int64_t d, e;
  for (int i = 0; i < out->len; i++) {
    Precond *p = out->items[i];
    if (p->div != div || !size_eq(p->lhs, lhs)) continue;
    if (size_eq(p->rhs, rhs)) return;
    if (!div && size_const_value(p->rhs, &d) && size_const_value(rhs, &e)) {
      /* N >= 3 and N >= 2 are N >= 3 */
      if (e > d) p->rhs = rhs;
      return;
    }
    if (div && size_const_value(p->rhs, &d) && size_const_value(rhs, &e)) {
      int64_t l;
      if (!__builtin_mul_overflow(d / gcd64(d, e), e, &l)) {
        p->rhs = size_const(&c->tc->sizes, l);
        return;
      }
    }
  }
  Precond *p = NEW(c->arena, Precond);
  *p = (Precond){div, lhs, rhs};
  vec_push(c->arena, out, p);
}

static const char **print_preconds(Checker *c, const Vec *pre) {
  const char **out = NEWARRAY(c->arena, const char *, pre->len);
  for (int i = 0; i < pre->len; i++) {
    const Precond *p = pre->items[i];
    Buf b;
    buf_init(&b, c->arena);
    if (p->div) {
      size_print_operand(&b, p->lhs);
      buf_puts(&b, " % ");
      size_print_divisor(&b, p->rhs);
      buf_puts(&b, " == 0");
    } else {
      size_print(&b, p->lhs);
      buf_puts(&b, " >= ");
      size_print(&b, p->rhs);
    }
    out[i] = b.data;
  }
  return out;
}

/* Settle the requirements of a declaration: constant ones are decided now,
 * symbolic ones become preconditions (spec section 3). */
static void settle_requirements(Checker *c, DefInfo *def) {
  Vec pre = {0};
  /* what a use instantiates: each distinct requirement once, or a def
   * using the one before it twice would carry 2^n (issue 7 limits) */
  def->nreqs = 0;
  def->req_sizes = NEWARRAY(c->arena, Size, c->reqs.len);
  def->req_positive = NEWARRAY(c->arena, bool, c->reqs.len);
  for (int i = 0; i < c->reqs.len; i++) {
    Requirement *r = c->reqs.items[i];
    Size s = zonk_size(c, r->size);
    bool positive = r->kind == REQ_POSITIVE, seen = false;
    for (int j = 0; j < def->nreqs && !seen; j++)
      seen = def->req_positive[j] == positive && size_eq(def->req_sizes[j], s);
    if (seen) continue;
    def->req_sizes[def->nreqs] = s;
    def->req_positive[def->nreqs++] = positive;
  }
  for (int i = 0; i < c->reqs.len; i++) {
    Requirement *r = c->reqs.items[i];
    Size s = zonk_size(c, r->size);
    if (size_first_meta(s)) continue; /* reported as "cannot infer" */
    int64_t v;
    if (r->kind == REQ_POSITIVE) {
      if (size_const_value(s, &v)) {
        if (v < 1) error(c, r->span, "%s needs a size of at least 1, found %lld", r->what, (long long)v);
      } else {
        /* s >= 1 as num >= den, e.g. N/64 >= 1 is N >= 64 */
        Size num, den;
        size_fraction(c, s, &num, &den);
        add_precond(c, &pre, false, num, den);
      }
      continue;
    }
    Size num, den;
    size_fraction(c, s, &num, &den);
    if (!check_overflow(c, r->span)) continue;
    if (size_const_value(num, &v)) {
      int64_t d;
      if (!size_const_value(den, &d)) INTERNAL("constant numerator over a symbolic denominator");
      if (v % d != 0)
        error(c, r->span, "size %s is not a whole number: %lld is not divisible by %lld", size_str(c, s),
              (long long)v, (long long)d);
      else if (v < 0)
        error(c, r->span, "size %s is negative", size_str(c, s));
      continue;
    }
    int64_t d;
    if (!(size_const_value(den, &d) && d == 1)) {
      add_precond(c, &pre, true, reduce_mod(c, num, den), den);
    }
    /* non-negativity: positive terms >= negated negative terms */
    Size pos = {0}, neg = {0};
    bool has_neg = false;
    for (int t = 0; t < num.nterms; t++) {
      Size term = {1, &num.terms[t]}; /* num outlives term */
      if (num.terms[t].num < 0) {
        neg = size_sub(&c->tc->sizes, neg, term);
        has_neg = true;
      } else {
        pos = size_add(&c->tc->sizes, pos, term);
      }
    }
    if (has_neg) {
      if (size_is_zero(pos)) {
        error(c, r->span, "size %s is negative", size_str(c, s));
        continue;
      }
      add_precond(c, &pre, false, pos, neg);
    }
  }
  def->nprecond = pre.len;
  def->preconds = print_preconds(c, &pre);
}

static void finish_decl(Checker *c, DefInfo *def) {
  /* let deferred constraints and postponed equations settle; default
   * literal types; settle again */
  for (int round = 0; round < 3; round++) {
    while (wake_deferred(c)) {
    }
    /* only the equations postponed before this round: one that
     * unify_size postpones again waits for the next round (else this loop
     * never ends) */
    int npostponed = c->postponed.len;
    for (int i = 0; i < npostponed; i++) {
      Postponed *p = c->postponed.items[i];
      if (!p) continue;
      c->postponed.items[i] = NULL;
      Size l = zonk_size(c, p->lhs), r = zonk_size(c, p->rhs);
      if (size_eq(l, r)) continue;
      if (!size_first_meta(size_sub(&c->tc->sizes, l, r))) {
        error(c, p->span, "size mismatch: %s is not equal to %s", size_str(c, l), size_str(c, r));
        continue;
      }
      if (round < 2) {
        unify_size(c, l, r, p->span); /* may postpone again */
      } else {
        error(c, p->span, "cannot infer the sizes in %s == %s; add a type ascription", size_str(c, l),
              size_str(c, r));
      }
    }
    if (round == 1 && def->body) default_tree(c, def->body);
  }
  if (!c->failed && def->body) {
    Finish f = {c, false};
    zonk_tree(&f, def->body);
    for (int i = 0; i < def->nparams; i++) def->params[i]->type = zonk_phrase_type(c, def->params[i]->type);
    def->result = zonk_phrase_type(c, def->result);
    def->type = zonk_phrase_type(c, def->type);
    check_literal_ranges(c);
  }
  if (!c->failed) settle_requirements(c, def);
}

/* ---- declarations ---- */

static void check_decl(Checker *c, int index) {
  const Decl *d = c->prog->decls[index];
  DefInfo *def = c->defs[index];
  c->state[index] = 1;
  c->current = index;
  c->failed = false;
  Env *env = NULL;
  Vec sizes = {0}, datas = {0}, params = {0};
  for (int i = 0; i < d->nparams; i++) {
    const Param *pa = &d->params[i];
    for (int j = 0; j < i; j++)
      if (d->params[j].name == pa->name) {
        error(c, pa->span, "duplicate parameter '%s'", pa->name);
        diag_note(c->diag, d->params[j].span, "'%s' was first declared here", pa->name);
      }
    switch (pa->kind) {
    case PARAM_NAT:
      vec_push(c->arena, &sizes, (void *)pa->name);
      env = env_push(c, env, pa->name, ENV_SIZE, NULL);
      break;
    case PARAM_DATA:
      vec_push(c->arena, &datas, (void *)pa->name);
      env = env_push(c, env, pa->name, ENV_DATA, NULL);
      break;
    case PARAM_PHRASE: {
      PhraseType *t = conv_phrase(c, env, pa->type);
      if (t && d->is_kernel && t->kind != PT_EXP) {
        error(c, pa->span, "kernel parameter '%s' has phrase type %s; kernel parameters are nat parameters and data",
              pa->name, pt_str(c->arena, t));
        t = NULL;
      }
      Binder *b = new_binder(c, pa->name, pa->span, t);
      vec_push(c->arena, &params, b);
      env = env_push(c, env, pa->name, ENV_BINDER, b);
      break;
    }
    }
  }
  def->nsize_params = sizes.len;
  def->size_params = (Sym *)sizes.items;
  def->ndata_params = datas.len;
  def->data_params = (Sym *)datas.items;
  def->nparams = params.len;
  def->params = (Binder **)params.items;
  bool params_ok = !c->failed;

  PhraseType *want = d->result ? conv_phrase(c, env, d->result) : NULL;
  Phrase *body = NULL;
  if (d->body) body = want ? check(c, env, d->body, want) : infer(c, env, d->body);
  if (!body) c->failed = true;
  if (body && d->is_kernel) {
    PhraseType *t = body->type;
    if (t->kind != PT_EXP) {
      error(c, d->name_span, "kernel '%s' must produce data, but its body has type %s", d->name,
            pt_str(c->arena, zonk_phrase_type(c, t)));
      body = NULL;
    }
  }
  def->body = body;
  if (body) {
    def->result = body->type;
    PhraseType *t = body->type;
    for (int i = def->nparams - 1; i >= 0; i--) t = pt_fn(c->tc, def->params[i]->type, t);
    def->type = t;
    finish_decl(c, def);
  }
  def->ok = params_ok && body && !c->failed;
  if (def->ok) def->ok = scir_check_def(c->arena, c->diag, def);
  c->state[index] = 2;
}

CheckedProgram *check_program(Arena *a, Interner *in, Diag *diag, TypeCtx *tc, const Program *p) {
  Checker c = {0};
  c.zonk_memo = NEW(a, ZonkMemo);
  c.arena = a;
  c.in = in;
  c.diag = diag;
  c.tc = tc;
  c.prog = p;
  c.defs = NEWARRAY(a, DefInfo *, p->ndecls);
  c.state = NEWARRAY(a, int, p->ndecls);
  for (int i = 0; i < p->ndecls; i++) {
    const Decl *d = p->decls[i];
    DefInfo *def = NEW(a, DefInfo);
    def->decl = d;
    def->name = d->name;
    def->is_kernel = d->is_kernel;
    c.defs[i] = def;
    for (int j = 0; j < i; j++)
      if (p->decls[j]->name == d->name) {
        diag_error(diag, d->name_span, "duplicate declaration of '%s'", d->name);
        diag_note(diag, p->decls[j]->name_span, "'%s' was first declared here", d->name);
      }
    if (prim_lookup(d->name, strlen(d->name), &(int){0}) != PRIM_COUNT)
      diag_error(diag, d->name_span, "'%s' is a primitive; it cannot be redefined", d->name);
  }
  for (int i = 0; i < p->ndecls; i++) {
    if (c.state[i] != 0) continue;
    c.reqs = (Vec){0};
    c.deferred = (Vec){0};
    c.postponed = (Vec){0};
    c.lits = (Vec){0};
    check_decl(&c, i);
  }
  CheckedProgram *cp = NEW(a, CheckedProgram);
  cp->program = p;
  cp->ndefs = p->ndecls;
  cp->defs = c.defs;
  return cp;
}
