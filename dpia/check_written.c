/* check_written.c: the types and sizes a program writes (TypeAst,
 * SizeAst) as the checker's (types.h, size.h), in the scope of the names
 * bound where they are written (spec sections 2 and 3).  Part of the
 * checker (check.c; check_int.h is their interface). */
#include "check_int.h"

Env *env_find(Env *env, Sym name) {
  for (; env; env = env->next)
    if (env->name == name) return env;
  return NULL;
}

Env *env_push(Checker *c, Env *env, Sym name, EnvKind kind, Binder *b) {
  Env *e = NEW(c->arena, Env);
  e->name = name;
  e->kind = kind;
  e->binder = b;
  e->next = env;
  return e;
}

bool conv_size(Checker *c, Env *env, const SizeAst *s, Size *out) {
  SizeCtx *sc = &c->tc->sizes;
  switch (s->kind) {
  case SZA_NUM:
    if (s->num > INT64_MAX) {
      check_error(c, ERR_SIZE_OVERFLOW, s->span, "size %llu does not fit 64 bits", (unsigned long long)s->num);
      return false;
    }
    *out = size_const(sc, (int64_t)s->num);
    return true;
  case SZA_VAR: {
    Env *e = env_find(env, s->name);
    if (e && e->kind == ENV_BINDER && e->dep_index) { /* a loop's index (check.c, row_loop) */
      e->used_as_size = true;
      *out = size_var(sc, s->name);
      return true;
    }
    if (!e || e->kind != ENV_SIZE) {
      if (e)
        check_error(c, ERR_WRONG_KIND_OF_NAME, s->span, "'%s' is not a size: only nat parameters can be used in sizes",
                    s->name);
      else
        check_error(c, ERR_UNKNOWN_NAME, s->span, "unknown size variable '%s'%s", s->name,
                    unknown_name_hint(c, env, s->name, ENV_SIZE));
      return false;
    }
    *out = e->fixed ? size_const(sc, e->value) : size_var(sc, s->name);
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
      check_error(c, ERR_SIZE_DIVISION, s->span, "division by zero in a size");
      return false;
    }
    if (!size_div(sc, a, b, out)) {
      check_error(c, ERR_SIZE_DIVISION, s->rhs->span, "division by a sum of sizes is not supported");
      return false;
    }
    require(c, REQ_NATURAL, *out, s->span, NULL);
    break;
  case SZA_MOD:
  case SZA_CEIL:
  case SZA_FLOOR: {
    /* rounded: any divisor but 0, a sum included (floor atoms, size.h) */
    bool nonzero = s->kind == SZA_MOD    ? size_mod(sc, a, b, out)
                   : s->kind == SZA_CEIL ? size_ceil_div(sc, a, b, out)
                                         : size_floor_div(sc, a, b, out);
    if (!nonzero) {
      check_error(c, ERR_SIZE_DIVISION, s->span, "division by zero in a size");
      return false;
    }
    /* a divisor that is not a constant is 0 for some values: the kernel
     * requires it to be at least 1 */
    int64_t k;
    if (!size_const_value(b, &k)) require(c, REQ_POSITIVE, b, s->rhs->span, "a divisor");
    break;
  }
  default: INTERNAL("size kind");
  }
  return check_overflow(c, s->span);
}

/* Is e = e0 + i*slope, slope a polynomial without i (so that e is whole at
 * every index once e0 is, and its least and greatest values over 0 <= i <
 * n are at the ends)?  Dependent sizes are kept to these (docs/language.md
 * section 30): the triangles' n - i and i + 1, and the row offsets, the
 * sums of the sizes of the rows before one, stay sizes. */
static bool dep_linear(SizeCtx *sc, Size e, Sym i, Size *e0) {
  Size e1;
  if (!size_subst(sc, e, i, size_const(sc, 0), e0) || !size_subst(sc, e, i, size_const(sc, 1), &e1)) return false;
  Size slope = size_sub(sc, e1, *e0);
  return size_is_polynomial(slope) && !size_has_var(slope, i) &&
         size_eq(size_add(sc, *e0, size_mul(sc, size_var(sc, i), slope)), e);
}

/* the sizes of an element type that use an index in scope do so linearly */
static bool dep_size_ok(Checker *c, Env *env, Size e, Span span) {
  for (; env; env = env->next) {
    Size e0;
    if (env->kind != ENV_SIZE || !env->dep_index || !size_has_var(e, env->name)) continue;
    if (dep_linear(&c->tc->sizes, e, env->name, &e0)) continue;
    if (check_overflow(c, span)) {
      TypeNamer tn;
      check_namer(c, &tn);
      check_error(c, ERR_DEPENDENT_SIZE, span,
                  "size %s depends on the index '%s' other than as a + b*%s (a and b sizes without '%s', b whole)",
                  tn_size(&tn, e), env->name, env->name, env->name);
    }
    return false;
  }
  return true;
}

/* Does a requirement at the last index, i = n - 1, hold whenever there
 * is one (n >= 1)?  For n a lone variable N, with N + 1 for N: N - i is
 * N - (N - 1) = 1, natural; kept otherwise, a requirement then also made
 * of an empty array. */
static bool holds_when_nonempty(Checker *c, Size n, Size e_last, ReqKind kind) {
  SizeCtx *sc = &c->tc->sizes;
  Sym v = size_lone_var(n);
  Size shifted;
  if (!v || !size_subst(sc, e_last, v, size_add(sc, n, size_const(sc, 1)), &shifted)) return false;
  return size_is_polynomial(shifted) && size_provably_at_least(sc, shifted, size_const(sc, kind == REQ_POSITIVE));
}

/* [n](\i -> elem), docs/language.md section 30: i is a size of elem, known
 * to be in 0 .. n-1.  A size of elem that must be natural (a difference,
 * n - i) is so at every index when it is at both ends (it is linear in i,
 * dep_size_ok), so its requirement becomes the two at i = 0 and i = n - 1.
 * An element that does not use its index is an ordinary array's. */
static DataType *conv_deparray(Checker *c, Env *env, const TypeAst *t) {
  Size n;
  bool ok = conv_size(c, env, t->size, &n) && dep_size_ok(c, env, n, t->size->span);
  Env *outer = env_find(env, t->name);
  if (outer && outer->kind == ENV_SIZE) {
    check_error(c, ERR_DUPLICATE_NAME, t->name_span,
                "the index '%s' of a dependent array hides the %s '%s': give it a name of its own", t->name,
                outer->dep_index ? "index of an enclosing dependent array," : "size", t->name);
    return NULL;
  }
  int first_req = c->reqs.len;
  Env *inner = env_push(c, env, t->name, ENV_SIZE, NULL);
  inner->dep_index = true;
  DataType *elem = conv_data(c, inner, t->elem);
  if (!ok || !elem) return NULL;
  if (!dep_requirements(c, first_req, n, t->name) || !check_overflow(c, t->span)) return NULL;
  return dep_abstract(c, n, t->name, t->name, elem);
}

bool dep_requirements(Checker *c, int first_req, Size n, Sym index) {
  SizeCtx *sc = &c->tc->sizes;
  int64_t count;
  bool empty = size_const_value(n, &count) && count == 0;
  Size last = size_sub(sc, n, size_const(sc, 1));
  /* the element's requirements, made again: those that use i at both
   * ends; none for an empty array, which has no element */
  int end_req = c->reqs.len;
  Requirement **made = NEWARRAY(c->arena, Requirement *, end_req - first_req + 1);
  for (int k = first_req; k < end_req; k++) made[k - first_req] = c->reqs.items[k];
  c->reqs.len = first_req;
  for (int k = 0; !empty && k < end_req - first_req; k++) {
    Requirement *r = made[k];
    Size e0, e_last;
    if (!size_has_var(r->size, index)) {
      vec_push(c->arena, &c->reqs, r);
      continue;
    }
    if (!dep_linear(sc, r->size, index, &e0) || !size_subst(sc, r->size, index, last, &e_last)) {
      if (!check_overflow(c, r->span)) return false;
      TypeNamer tn;
      check_namer(c, &tn);
      const char *shown = tn_size(&tn, size_var(sc, index));
      check_error(c, ERR_DEPENDENT_SIZE, r->span,
                  "size %s must be %s at every index '%s', and it depends on it other than as a + b*%s: dpia cannot "
                  "decide that",
                  tn_size(&tn, r->size), r->kind == REQ_POSITIVE ? "at least 1" : "a natural number", shown, shown);
      return false;
    }
    require(c, r->kind, e0, r->span, r->what);
    if (!holds_when_nonempty(c, n, e_last, r->kind)) require(c, r->kind, e_last, r->span, r->what);
  }
  return true;
}

DataType *dep_abstract(Checker *c, Size n, Sym index, Sym written, DataType *elem) {
  if (!dt_has_size_var(elem, index)) return dt_array(c->tc, n, elem);
  SizeCtx *sc = &c->tc->sizes;
  Sym canonical_index = dt_dep_index(c->in, elem);
  Size canonical = size_var(sc, canonical_index);
  bool is_size = true;
  TypeSubst s = {1, &index, &is_size, &canonical, NULL};
  return dt_deparray(c->tc, n, canonical_index, written, dt_subst(c->tc, &s, elem));
}

DataType *conv_data(Checker *c, Env *env, const TypeAst *t) {
  switch (t->kind) {
  case TYA_SCALAR: return dt_scalar(c->tc, t->scalar, t->vec_width);
  case TYA_ARRAY: {
    Size n;
    bool ok = conv_size(c, env, t->size, &n) && dep_size_ok(c, env, n, t->size->span);
    DataType *elem = conv_data(c, env, t->elem);
    return ok && elem ? dt_array(c->tc, n, elem) : NULL;
  }
  case TYA_DEPARRAY: return conv_deparray(c, env, t);
  case TYA_PAIR: {
    DataType *a = conv_data(c, env, t->fst);
    DataType *b = conv_data(c, env, t->snd);
    return a && b ? dt_pair(c->tc, a, b) : NULL;
  }
  case TYA_IDX: {
    Size n;
    return conv_size(c, env, t->size, &n) && dep_size_ok(c, env, n, t->size->span) ? dt_idx(c->tc, n) : NULL;
  }
  case TYA_NAMED: {
    Env *e = env_find(env, t->name);
    if (!e || e->kind != ENV_DATA) {
      check_error(c, ERR_UNKNOWN_NAME, t->span, "unknown type '%s'%s", t->name,
                  unknown_name_hint(c, env, t->name, ENV_DATA));
      return NULL;
    }
    return dt_var(c->tc, t->name);
  }
  default:
    check_error(c, ERR_PHRASE_TYPE_AS_DATA, t->span, "expected a data type here, not a phrase type");
    return NULL;
  }
}

PhraseType *conv_phrase(Checker *c, Env *env, const TypeAst *t) {
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
