/* check_ops.c: the checker's rules for literals and operators (spec
 * sections 2 and 4: arithmetic of scalars and vectors, comparisons, '!'
 * and '-'), with the comparisons of vectors and select by their mask
 * (docs/language.md section 19), beside check.c's elaboration of the rest
 * of the surface tree (check_int.h). */
#include "check_int.h"
#include "hints.h"

/* ---- literals and operators ---- */

Phrase *check_literal(Checker *c, const Ast *e) {
  Phrase *p;
  switch (e->kind) {
  case AST_INT:
    if (e->int_value > (uint64_t)INT64_MAX) {
      check_error(c, ERR_BAD_LITERAL, e->span, "integer literal too large");
      return NULL;
    }
    p = check_mk(c, PH_LIT, e->span, pt_exp(c->tc, dt_meta(c->tc, MC_NUMERIC, e->span)));
    p->lit_int = (int64_t)e->int_value;
    p->lit_float = (double)e->int_value;
    break;
  case AST_FLOAT:
    p = check_mk(c, PH_LIT, e->span,
                 pt_exp(c->tc, e->float_suffix_f ? c->tc->t_float : dt_meta(c->tc, MC_FLOATING, e->span)));
    p->lit_float = e->float_value;
    p->lit_is_float = true;
    break;
  default: /* AST_BOOL */
    p = check_mk(c, PH_LIT, e->span, pt_exp(c->tc, c->tc->t_bool));
    p->lit_int = e->bool_value;
    break;
  }
  vec_push(c->arena, &c->lits, p);
  return p;
}

DataType *check_exp_data(Checker *c, Phrase *p, const char *what) {
  if (p->type->kind != PT_EXP) {
    TypeNamer tn;
    check_namer(c, &tn);
    check_error(c, ERR_FUNCTION_AS_VALUE, p->span, "%s needs a value, found %s", what,
                tn_describe_phrase(&tn, zonk_phrase_type(c, p->type)));
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
    check_error(c, ERR_BAD_OPERANDS, e->span,
                "operands of '%s' have different types %s and %s; convert one with toFloat, toInt or toDouble", op,
                check_describe(c, pt_exp(c->tc, a)), check_describe(c, pt_exp(c->tc, b)));
    return NULL;
  }
  if (int_only && a->scalar != SC_INT) goto bad;
  if (a->width == b->width) return a;
  if (a->width == 1) return b;
  if (b->width == 1) return a;
bad : {
  TypeNamer tn;
  check_namer(c, &tn);
  /* zonked: a size known is no unknown (and the shortcut,
   * check_instance.c, makes the same types without metavariables) */
  check_error(c, ERR_BAD_OPERANDS, e->span, "operator '%s' cannot be applied to %s and %s", op,
              tn_describe_data(&tn, zonk_data_type(c, a)), tn_describe_data(&tn, zonk_data_type(c, b)));
  return NULL;
}
}

/* "operator '+'" ..., what check_exp_data's message calls an operator: a
 * table rather than a string made for every operator checked, which only
 * an error reads (translation throughput); binop_spelling's spellings */
static const char *const binop_what[BIN_COUNT] = {
    [BIN_MUL] = "operator '*'",  [BIN_DIV] = "operator '/'",  [BIN_MOD] = "operator '%'",
    [BIN_ADD] = "operator '+'",  [BIN_SUB] = "operator '-'",  [BIN_LT] = "operator '<'",
    [BIN_LE] = "operator '<='",  [BIN_GT] = "operator '>'",   [BIN_GE] = "operator '>='",
    [BIN_EQ] = "operator '=='",  [BIN_NE] = "operator '!='",  [BIN_AND] = "operator '&&'",
    [BIN_OR] = "operator '||'",
};
_Static_assert(BIN_COUNT == 13, "binop_what names every operator");

Phrase *check_binop(Checker *c, Env *env, const Ast *e) {
  const char *slip = static_size_operator_hint(c->arena, e); /* split 2048 * 128 */
  if (slip) {
    check_error(c, ERR_SIZE_OPERATOR_PRECEDENCE, e->span, "%s", slip);
    return NULL;
  }
  Phrase *l = check_infer(c, env, e->lhs);
  Phrase *r = check_infer(c, env, e->rhs);
  if (!l || !r) return NULL;
  const char *op = binop_spelling[e->op];
  const char *what = binop_what[e->op];
  DataType *a = check_exp_data(c, l, what), *b = a ? check_exp_data(c, r, what) : NULL;
  if (!a || !b) return NULL;
  /* an index is an int to the operators (docs/language.md section 22):
   * i < j, i == N - 1, i * 4 + 1; what they give is an int or a bool,
   * never an index, so no arithmetic leaves the range idx[n] promises */
  DataType *na = a->kind == DT_IDX ? c->tc->t_int : a, *nb = b->kind == DT_IDX ? c->tc->t_int : b;
  DataType *t = NULL;
  switch (e->op) {
  case BIN_ADD:
  case BIN_SUB:
  case BIN_MUL:
  case BIN_DIV: t = arith_type(c, e, na, nb, false); break;
  case BIN_MOD: t = arith_type(c, e, na, nb, true); break;
  case BIN_LT:
  case BIN_LE:
  case BIN_GT:
  case BIN_GE:
  case BIN_EQ:
  case BIN_NE: {
    DataType *u = arith_type(c, e, na, nb, false);
    if (!u) return NULL;
    u = dt_resolve(u);
    if (u->kind == DT_SCALAR && u->width > 1) {
      /* as OpenCL C: lane by lane, an int vector of -1 (true) and 0, the
       * mask of a vector select (docs/language.md section 19); a double
       * vector's would be a long vector, which dpia does not have */
      if (u->scalar == SC_DOUBLE) {
        check_error(c, ERR_BAD_OPERANDS, e->span,
                    "comparison '%s' of double vectors is not supported (OpenCL gives a long vector, which dpia "
                    "does not have); compare float or int vectors, or lanes",
                    op);
        return NULL;
      }
      t = dt_scalar(c->tc, SC_INT, u->width);
      break;
    }
    t = c->tc->t_bool;
    break;
  }
  case BIN_AND:
  case BIN_OR:
    if (!unify_data(c, a, c->tc->t_bool) || !unify_data(c, b, c->tc->t_bool)) {
      TypeNamer tn;
      check_namer(c, &tn);
      check_error(c, ERR_BAD_OPERANDS, e->span, "operator '%s' needs bool operands, found %s and %s", op,
                  tn_describe_data(&tn, zonk_data_type(c, a)), tn_describe_data(&tn, zonk_data_type(c, b)));
      return NULL;
    }
    t = c->tc->t_bool;
    break;
  default: INTERNAL("binop");
  }
  if (!t) return NULL;
  Phrase *p = check_mk(c, PH_BINOP, e->span, pt_exp(c->tc, t));
  p->op = e->op;
  p->fst = l;
  p->snd = r;
  return p;
}

Phrase *check_unop(Checker *c, Env *env, const Ast *e) {
  Phrase *x = check_infer(c, env, e->lhs);
  if (!x) return NULL;
  DataType *t = check_exp_data(c, x, e->kind == AST_NEG ? "'-'" : "'!'");
  if (!t) return NULL;
  if (e->kind == AST_NEG) {
    if (t->kind == DT_META) {
      if (t->meta->cls == MC_ANY) t->meta->cls = MC_NUMERIC;
    } else if (t->kind != DT_SCALAR || t->scalar == SC_BOOL) {
      check_error(c, ERR_BAD_OPERANDS, e->span, "'-' cannot be applied to %s", check_describe(c, pt_exp(c->tc, t)));
      return NULL;
    }
  } else if (!unify_data(c, t, c->tc->t_bool)) {
    check_error(c, ERR_BAD_OPERANDS, e->span, "'!' needs a bool operand, found %s",
                check_describe(c, pt_exp(c->tc, t)));
    return NULL;
  }
  Phrase *p = check_mk(c, PH_UNOP, e->span, pt_exp(c->tc, e->kind == AST_NEG ? t : c->tc->t_bool));
  p->unop = e->kind == AST_NEG ? '-' : '!';
  p->fst = x;
  return p;
}

/* ---- select by a vector mask (docs/language.md section 19) ---- */

PhraseType *check_select_type(Checker *c, Phrase *mask, int *mask_width) {
  *mask_width = 0;
  DataType *m = mask->type->kind == PT_EXP ? dt_resolve(mask->type->data) : NULL;
  if (!m || m->kind != DT_SCALAR || m->scalar != SC_INT || m->width == 1) return NULL;
  *mask_width = m->width;
  PhraseType *ev = pt_exp(c->tc, dt_meta(c->tc, MC_ANY, mask->span));
  return pt_fn(c->tc, pt_exp(c->tc, m), pt_fn(c->tc, ev, pt_fn(c->tc, ev, ev)));
}

void check_vector_select(Checker *c, const Phrase *p, int width, Span span) {
  if (p->type->kind != PT_EXP) return; /* select m a, not applied to b yet: the whole application decides */
  DataType *v = dt_resolve(p->type->data);
  if (v->kind == DT_META) {
    defer(c, DEFER_VECTOR_OF, dt_meta(c->tc, MC_NUMERIC, span), v, size_const(&c->tc->sizes, width), SC_INT, span);
    return;
  }
  if (v->kind != DT_SCALAR || v->width != width) {
    TypeNamer tn;
    check_namer(c, &tn);
    check_error(c, ERR_TYPE_MISMATCH, span, "select by an int%d mask chooses between vectors of %d lanes, found %s",
                width, width, tn_describe_data(&tn, zonk_data_type(c, v)));
  }
}
