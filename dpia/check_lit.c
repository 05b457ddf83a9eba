/* check_lit.c: the checker's rules for array literals and foreign
 * functions (docs/language.md sections 13 and 14), beside check.c's
 * elaboration of the rest of the surface tree (check_int.h). */
#include "check_int.h"

#include <string.h>

/* ---- array literals (docs/language.md section 13) ---- */

/* Do arrays a and b (of constant sizes, scalars inside) have one shape? */
static bool same_shape(DataType *a, DataType *b) {
  a = dt_resolve(a);
  b = dt_resolve(b);
  if (a->kind != DT_ARRAY || b->kind != DT_ARRAY) return a->kind != DT_ARRAY && b->kind != DT_ARRAY;
  return size_eq(a->size, b->size) && same_shape(a->elem, b->elem);
}

static const char *shape_words(Checker *c, DataType *t) {
  t = dt_resolve(t);
  if (t->kind != DT_ARRAY) return "a scalar";
  int64_t n = 0;
  size_const_value(t->size, &n);
  return arena_printf(c->arena, "a row of %lld", (long long)n);
}

/* the element at span is of type have, the ones before it of type before */
static void mixed_type_error(Checker *c, Span span, PhraseType *have, DataType *before) {
  TypeNamer tn;
  check_namer(c, &tn);
  check_error(c, ERR_ARRAY_LITERAL_MIXED, span,
              "this element is %s, but the elements before it are %s: an array's elements have one type",
              tn_describe_data(&tn, zonk_phrase_type(c, have)->data),
              tn_describe_data(&tn, zonk_phrase_type(c, pt_exp(c->tc, before))->data));
}

/* the element at span has the shape of t, the first one (at first) of elem */
static void shape_error(Checker *c, Span span, DataType *t, DataType *elem, Span first) {
  check_error(c, ERR_ARRAY_LITERAL_MIXED, span,
              "this element is %s, but the first element is %s: the rows of an array literal have one shape",
              shape_words(c, t), shape_words(c, elem));
  diag_note(c->diag, first, "the first element");
}

/* Is e a constant element: a number (negative ones too), true, false, or
 * a literal of constant elements? */
static bool constant_element(const Ast *e) {
  if (e->kind == AST_ARRAY) {
    for (int i = 0; i < e->nelems; i++)
      if (!constant_element(e->elems[i])) return false;
    return true;
  }
  const Ast *num = e->kind == AST_NEG ? e->lhs : e;
  return num->kind == AST_INT || num->kind == AST_FLOAT || (num->kind == AST_BOOL && num == e);
}

/* The type of the literal e, [n]t, whose scalar elements (of type scalar,
 * shared by all of them) are appended to elems in row-major order; NULL
 * after reporting an error.  Every element is a constant_element. */
static DataType *elab_array_into(Checker *c, Env *env, const Ast *e, DataType *scalar, Vec *elems) {
  DataType *elem = NULL;
  const Ast *first = NULL;
  for (int i = 0; i < e->nelems; i++) {
    const Ast *el = e->elems[i];
    DataType *t;
    if (el->kind == AST_ARRAY) {
      t = elab_array_into(c, env, el, scalar, elems);
    } else {
      Phrase *lit = check_infer(c, env, el);
      if (!lit) return NULL;
      if (!unify_data(c, scalar, lit->type->data)) {
        mixed_type_error(c, el->span, lit->type, scalar);
        return NULL;
      }
      if (lit->kind == PH_UNOP) { /* -2.5: the constant itself */
        Phrase *neg = check_mk(c, PH_LIT, el->span, lit->fst->type);
        *neg = *lit->fst;
        neg->span = el->span;
        neg->lit_int = -lit->fst->lit_int;
        neg->lit_float = -lit->fst->lit_float;
        lit = neg;
      }
      vec_push(c->arena, elems, lit);
      t = scalar;
    }
    if (!t) return NULL;
    if (!elem) {
      elem = t;
      first = el;
    } else if (!same_shape(elem, t)) {
      shape_error(c, el->span, t, elem, first->span);
      return NULL;
    }
  }
  return dt_array(c->tc, size_const(&c->tc->sizes, e->nelems), elem);
}

/* A primitive with its static sizes, at its instantiated type. */
static Phrase *prim_phrase(Checker *c, Prim prim, Span span, int64_t s0, int64_t s1) {
  Phrase *p = check_mk(c, PH_PRIM, span, NULL);
  p->prim = prim;
  p->sizes[0] = size_const(&c->tc->sizes, s0);
  p->sizes[1] = size_const(&c->tc->sizes, s1);
  p->type = prim_type(c, p, span);
  if (!p->type) INTERNAL("type of %s", prim_info[prim].name);
  return p;
}

/* [e1, ..., en] with computed elements: a private array the work-item
 * fills, built from the views the language has (docs/language.md section
 * 13):
 *   toPrivate (mapSeq (\x -> x)) (padCst 1 0 e1 (... (padCst 1 0 en (take 0 [z]))))
 * where [z] is a constant literal of zeros of the elements' type, so that
 * the chain starts from an empty array of that type; `inner` (a row of a
 * nested literal) leaves the copy to the outermost literal. */
static Phrase *elab_computed_array(Checker *c, Env *env, const Ast *e, bool inner) {
  Phrase **ps = NEWARRAY(c->arena, Phrase *, e->nelems);
  DataType *elem = NULL;
  for (int i = 0; i < e->nelems; i++) {
    const Ast *el = e->elems[i];
    ps[i] = el->kind == AST_ARRAY && !constant_element(el) ? elab_computed_array(c, env, el, true) : check_infer(c, env, el);
    if (!ps[i]) return NULL;
    if (!check_exp_data(c, ps[i], "an element of an array literal")) return NULL;
    DataType *t = zonk_phrase_type(c, ps[i]->type)->data; /* a row's size, solved by its padCst chain */
    if (!elem) {
      elem = t;
    } else if (!same_shape(elem, t)) {
      shape_error(c, el->span, t, elem, e->elems[0]->span);
      return NULL;
    } else if (!unify_data(c, elem, t)) {
      mixed_type_error(c, el->span, ps[i]->type, elem);
      return NULL;
    }
  }
  /* the zeros: a number or bool, or rows of them, of a constant shape */
  int64_t count = 1;
  DataType *scalar = dt_resolve(elem);
  while (scalar->kind == DT_ARRAY) {
    int64_t n;
    if (!size_const_value(scalar->size, &n)) break;
    count *= n;
    scalar = dt_resolve(scalar->elem);
  }
  bool numeric = scalar->kind == DT_META ? scalar->meta->cls != MC_ANY
                                         : scalar->kind == DT_SCALAR && scalar->width == 1;
  if (!numeric) {
    check_error(c, ERR_ARRAY_LITERAL_ELEMENT_TYPE, e->span,
                "an array literal of computed elements holds numbers or booleans, or rows of them; this one holds "
                "%s (not done)",
                check_describe(c, pt_exp(c->tc, elem)));
    return NULL;
  }
  Phrase *zeros = check_mk(c, PH_LIT, e->span, pt_exp(c->tc, dt_array(c->tc, size_const(&c->tc->sizes, 1), elem)));
  zeros->lit_nelems = (int)count;
  zeros->lit_elems = NEWARRAY(c->arena, Phrase *, count);
  for (int64_t i = 0; i < count; i++) {
    Phrase *z = check_mk(c, PH_LIT, e->span, pt_exp(c->tc, scalar));
    zeros->lit_elems[i] = z;
  }
  Phrase *acc = check_apply(c, env, prim_phrase(c, PRIM_TAKE, e->span, 0, 0), &zeros, 1, e->span);
  for (int i = e->nelems - 1; i >= 0 && acc; i--) {
    Phrase *args[2] = {ps[i], acc};
    acc = check_apply(c, env, prim_phrase(c, PRIM_PAD_CST, e->span, 1, 0), args, 2, e->span);
  }
  if (!acc || inner) return acc;
  /* \x -> x, copied element by element into the private array */
  Binder *x = check_binder(c, intern_cstr(c->in, "x"), e->span, pt_exp(c->tc, elem));
  Phrase *var = check_mk(c, PH_VAR, e->span, x->type);
  var->binder = x;
  Phrase *id = check_mk(c, PH_LAM, e->span, pt_fn(c->tc, x->type, x->type));
  id->lam_binder = x;
  id->body = var;
  Phrase *map = prim_phrase(c, PRIM_MAP_SEQ, e->span, 0, 0);
  map->origin = "array literal";
  map->fills_literal = true; /* its loop is unrolled: an assignment an element */
  Phrase *copy = check_apply(c, env, map, &id, 1, e->span);
  Phrase *args[2] = {copy, acc};
  return copy ? check_apply(c, env, prim_phrase(c, PRIM_TO_PRIVATE, e->span, 0, 0), args, 2, e->span) : NULL;
}

/* [e1, ..., en] : [n]t: a constant array (passive data, like an input)
 * when every element is a constant, else a private array */
Phrase *elab_array(Checker *c, Env *env, const Ast *e) {
  if (!constant_element(e)) return elab_computed_array(c, env, e, false);
  Vec elems = {0};
  DataType *t = elab_array_into(c, env, e, dt_meta(c->tc, MC_ANY, e->span), &elems);
  if (!t) return NULL;
  Phrase *p = check_mk(c, PH_LIT, e->span, pt_exp(c->tc, t));
  p->lit_nelems = elems.len;
  c->tc->program_scope = true;
  p->lit_elems = (Phrase **)elems.items;
  return p;
}

/* ---- foreign functions (docs/language.md section 14) ---- */

/* a scalar data type (int float double bool), the type of a foreign
 * function's parameter or result: a C scalar on the device and the host */
static DataType *foreign_scalar(Checker *c, const TypeAst *t, Span span, const char *what, const char *fname) {
  DataType *d = t && t->kind != TYA_EXP ? check_data_type(c, t) : NULL;
  if (t && t->kind == TYA_SCALAR && t->vec_width == 1 && d) return d;
  if (t && !d && c->failed) return NULL; /* conv_data reported it */
  check_error(c, ERR_FOREIGN_PARAMETER_TYPE, span,
              "%s of foreign function '%s' must be a scalar type (int, float, double or bool): a foreign function "
              "is a scalar function of OpenCL C",
              what, fname);
  return NULL;
}

/* foreign NAME (x: T)... : R = "body": a function exp[T] -> ... -> exp[R]
 * whose uses stay calls (PRIM_FOREIGN); the body is OpenCL C, checked by
 * the OpenCL parser where the kernel's text is verified. */
void check_foreign(Checker *c, const Decl *d, DefInfo *def) {
  bool ok = true;
  const char *use = check_name_use(c, d->name);
  if (use || strchr(d->name, '\'')) {
    check_error(c, ERR_RESERVED_NAME, d->name_span, "foreign function name '%s' is %s; rename it", d->name,
                use ? use : "not a C identifier");
    ok = false;
  }
  if (d->nparams > FOREIGN_MAX_ARGS) {
    check_error(c, ERR_FOREIGN_PARAMETER_TYPE, d->params[FOREIGN_MAX_ARGS].span,
                "foreign function '%s' has %d parameters; it may have at most %d", d->name, d->nparams,
                FOREIGN_MAX_ARGS);
    ok = false;
  }
  Binder **params = NEWARRAY(c->arena, Binder *, d->nparams > 0 ? d->nparams : 1);
  for (int i = 0; i < d->nparams && ok; i++) {
    const Param *pa = &d->params[i];
    for (int j = 0; j < i; j++)
      if (d->params[j].name == pa->name) {
        check_error(c, ERR_DUPLICATE_NAME, pa->span, "duplicate parameter '%s'", pa->name);
        diag_note(c->diag, d->params[j].span, "'%s' was first declared here", pa->name);
        ok = false;
      }
    if ((use = check_name_use(c, pa->name)) || strchr(pa->name, '\'')) {
      check_error(c, ERR_RESERVED_NAME, pa->span,
                  "parameter name '%s' is %s; a foreign function's parameters keep their names in %s: rename it",
                  pa->name, use ? use : "not a C identifier", c->names ? c->names->language : "C");
      ok = false;
    }
    DataType *t = pa->kind == PARAM_PHRASE ? foreign_scalar(c, pa->type, pa->span, "a parameter", d->name)
                                           : foreign_scalar(c, NULL, pa->span, "a parameter", d->name);
    if (!t) ok = false;
    params[i] = check_binder(c, pa->name, pa->span, t ? pt_exp(c->tc, t) : NULL);
  }
  DataType *r = ok ? foreign_scalar(c, d->result, d->result->span, "the result", d->name) : NULL;
  def->is_foreign = true;
  def->nparams = d->nparams;
  def->params = params;
  if (ok && r) {
    def->result = pt_exp(c->tc, r);
    PhraseType *t = def->result;
    for (int i = d->nparams - 1; i >= 0; i--) t = pt_fn(c->tc, params[i]->type, t);
    def->type = t;
    def->ok = true;
  }
}

/* A use of foreign function f applied to nargs arguments: it must be
 * given all of them (its use is a call in OpenCL C). */
Phrase *foreign_use(Checker *c, const Ast *e, int index, int nargs) {
  if (c->state[index] == 0 && c->speculating) {
    c->failed = true; /* not checked where it would be taken back (check_instance.c) */
    return NULL;
  }
  if (c->state[index] == 0) {
    c->state[index] = 2;
    check_foreign(c, c->prog->decls[index], c->defs[index]);
  }
  DefInfo *f = c->defs[index];
  if (!f->ok) {
    c->failed = true; /* reported at the declaration */
    return NULL;
  }
  if (c->prog->decls[c->current]->is_pipeline) {
    check_error(c, ERR_WRONG_KIND_OF_NAME, e->span,
                "'%s' is a foreign function; a pipeline's body applies kernels (computation outside a kernel belongs "
                "in one)",
                e->name);
    return NULL;
  }
  if (nargs < f->nparams) {
    Buf names;
    buf_init(&names, c->arena);
    for (int i = 0; i < f->nparams; i++) emit(&names, " %s", f->params[i]->name);
    check_error(c, ERR_FOREIGN_ARITY, e->span,
                "foreign function '%s' takes %d argument%s and is given %d here: it is called with all of them "
                "(%s%s; a function of the rest is written \\%s -> ...)",
                e->name, f->nparams, f->nparams == 1 ? "" : "s", nargs, e->name, names.data,
                f->params[nargs]->name);
    return NULL;
  }
  Phrase *p = check_mk(c, PH_PRIM, e->span, f->type);
  p->prim = PRIM_FOREIGN;
  p->foreign = f;
  c->tc->program_scope = true;
  return p;
}

