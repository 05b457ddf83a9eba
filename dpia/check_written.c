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

DataType *conv_data(Checker *c, Env *env, const TypeAst *t) {
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
