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
 * still checked.
 *
 * Metavariables, unification, zonking, deferred constraints and the
 * settling of a declaration's requirements live in unify.c (check_int.h
 * is the interface between the two). */
#include "check_int.h"
#include "hints.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

const char *const phrase_kind_name[PH_COUNT] = {
#define X(id) #id,
    DPIA_PHRASE_TERM_KINDS(X)
#undef X
};

static Phrase *infer(Checker *c, Env *env, const Ast *e);
static Phrase *check(Checker *c, Env *env, const Ast *e, PhraseType *want);
static void check_decl(Checker *c, int index);
static Phrase *elab_lambda(Checker *c, Env *env, const Ast *e, PhraseType *want);
static int foreign_named(Checker *c, Env *env, const Ast *e);

/* ---- errors ---- */

void check_error(Checker *c, DiagCode code, Span span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  Buf b;
  buf_init(&b, c->arena);
  vemit(&b, fmt, ap);
  va_end(ap);
  diag_error(c->diag, code, span, "%s", b.data);
  c->failed = true;
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

/* A kernel's or pipeline's parameter or result is a buffer: dpia gives no
 * dependent array one (docs/language.md section 30, E0329).  t (an
 * expression's type), or NULL after the error. */
static PhraseType *not_stored(Checker *c, const Decl *d, Span span, PhraseType *t, const char *what) {
  if (!dt_has_deparray(t->data)) return t;
  TypeNamer tn;
  check_namer(c, &tn);
  check_error(c, ERR_DEPENDENT_ARRAY_STORED, span,
              "a %s's %s cannot hold a dependent array (%s): dpia does not store dependent arrays; depJoin "
              "stores the rows of one packed, one after another (docs/language.md section 30.2)",
              d->is_kernel ? "kernel" : "pipeline", what, tn_phrase(&tn, zonk_phrase_type(c, t)));
  return NULL;
}

static Phrase *elab_prim(Checker *c, Env *env, const Ast *e) {
  Phrase *p = mk(c, PH_PRIM, e->span, NULL);
  p->prim = e->prim;
  p->dim = e->dim;
  p->volatile_new = e->volatile_new;
  const PrimInfo *info = &prim_info[e->prim];
  bool ok = true;
  for (int i = 0; i < info->nsizes; i++) {
    ok = conv_size(c, env, e->sizes[i], &p->sizes[i]) && ok;
  }
  if (info->takes_type) {
    p->type_arg = conv_data(c, env, e->type_arg);
    /* depJoinAcc's is the dependent array its acceptor writes, no memory */
    if (p->type_arg && dt_has_deparray(p->type_arg) && p->prim != PRIM_DEP_JOIN_ACC) {
      check_error(c, ERR_DEPENDENT_ARRAY_STORED, e->type_arg->span,
                  "%s of a dependent array: dpia does not store dependent arrays (docs/language.md section 30)",
                  info->name);
      p->type_arg = NULL;
    }
    ok = p->type_arg && ok;
  }
  if (!ok) return NULL;
  for (int i = 0; i < info->nsizes; i++) {
    int64_t v;
    if (!(info->flags & PF_ZERO_SIZES) && size_const_value(p->sizes[i], &v) && v < 1) {
      check_error(c, ERR_SIZE_TOO_SMALL, e->sizes[i]->span, "%s needs a size of at least 1, found %lld", info->name,
                  (long long)v);
      return NULL;
    }
  }
  p->type = prim_type(c, p, e->span);
  return p->type ? p : NULL;
}

/* ---- identifiers and defs ---- */

/* The slot of name in c->decl_slots: where it is, or the empty slot where
 * it goes.  Names are interned, so the pointer is the key.  (A linear search
 * made checking n defs that each use the one before quadratic.) */
static size_t decl_slot(const Checker *c, Sym name) {
  size_t h = ((uintptr_t)name >> 3) * 0x9E3779B97F4A7C15u;
  for (size_t i = h & c->decl_mask;; i = (i + 1) & c->decl_mask) {
    int k = c->decl_slots[i];
    if (k == 0 || c->prog->decls[k - 1]->name == name) return i;
  }
}

static int find_decl(Checker *c, Sym name) { return c->decl_slots[decl_slot(c, name)] - 1; }

/* The rest of an "unknown name" message: the close name the user may have
 * meant (hints.h), or for a size, where to declare it. */
const char *unknown_name_hint(Checker *c, Env *env, Sym name, EnvKind kind) {
  int dim;
  size_t len = strlen(name);
  if (kind == ENV_BINDER && len > 1 && name[len - 1] >= '0' && name[len - 1] <= '9' &&
      prim_lookup(name, len - 1, &dim) != PRIM_COUNT && (prim_info[prim_lookup(name, len - 1, &dim)].flags & PF_DIM))
    return arena_printf(c->arena, "; the dimension suffix of %.*s is 0, 1 or 2", (int)(len - 1), name);
  NameGuess g;
  guess_init(&g, name);
  for (Env *e = env; e; e = e->next)
    if (e->kind == kind) guess_offer(&g, e->name);
  if (kind == ENV_BINDER) {
    for (int i = 0; i < c->prog->ndecls; i++) guess_offer(&g, c->prog->decls[i]->name);
    guess_offer_prims(&g, true);
  } else if (kind == ENV_DATA) {
    static const char *const scalars[] = {"int", "float", "double", "bool"};
    for (size_t i = 0; i < DPIA_COUNTOF(scalars); i++) guess_offer(&g, scalars[i]);
  }
  const char *best = guess_best(&g);
  if (best) return arena_printf(c->arena, "; did you mean '%s'?", best);
  if (kind == ENV_SIZE && c->current >= 0 && c->current < c->prog->ndecls) {
    const Decl *d = c->prog->decls[c->current];
    return arena_printf(c->arena, "; add '(%s: nat)' to the parameters of %s '%s'", name,
                        d->is_kernel     ? "kernel"
                        : d->is_pipeline ? "pipeline"
                                         : "def",
                        d->name);
  }
  return "";
}

/* A use of a def: fresh metavariables for its nat and data parameters,
 * and its requirements instantiated at the use (they become the user's
 * requirements). */
static Phrase *elab_def_use(Checker *c, const Ast *e, int index) {
  if (c->state[index] == 1) {
    const char *current = c->prog->decls[c->current]->name;
    if (c->current == index)
      check_error(c, ERR_RECURSION, e->span, "recursive definition: '%s' uses itself; DPIA has no recursion", e->name);
    else
      check_error(c, ERR_RECURSION, e->span,
                  "recursive definitions: '%s' uses '%s', which uses '%s' again; DPIA has no recursion", current,
                  e->name, current);
    return NULL;
  }
  if (c->state[index] == 0 && c->speculating) {
    c->failed = true; /* not checked where it would be taken back (check_instance.c) */
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
      check_error(c, ERR_TOO_DEEP, e->span, "defs nested too deeply (more than %d levels)", DPIA_MAX_NESTING);
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
  bool in_pipeline = c->prog->decls[c->current]->is_pipeline;
  if (def->is_pipeline) {
    check_error(c, ERR_WRONG_KIND_OF_NAME, e->span,
                "'%s' is a pipeline: the host launches it, one kernel after the other; it cannot be used inside %s",
                e->name, in_pipeline ? "another pipeline" : "a kernel or a def");
    return NULL;
  }
  if (in_pipeline && !def->is_kernel) {
    check_error(c, ERR_WRONG_KIND_OF_NAME, e->span,
                "'%s' is a def; a pipeline's body applies kernels (computation outside a kernel belongs in one)",
                e->name);
    return NULL;
  }
  if (def->is_kernel && !in_pipeline) {
    check_error(c, ERR_WRONG_KIND_OF_NAME, e->span, "'%s' is a kernel; kernels cannot be called, only defs can",
                e->name);
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

/* ---- templates: defs with untyped parameters (ast.h, PARAM_UNTYPED) ----
 *
 * `def square x = x * x` is checked at each use as the lambda
 * \x -> (x * x : result) would be there, in the scope of the declarations
 * only (a def sees no local name of its user).  So square may be used at
 * several types.  An error in its body is reported at the body, once
 * (diag.c drops repeats). */

static const Ast *template_lambda(Checker *c, int index) {
  if (c->template_lambda[index]) return c->template_lambda[index];
  const Decl *d = c->prog->decls[index];
  Ast *body = d->body;
  if (d->result) {
    Ast *asc = NEW(c->arena, Ast);
    asc->kind = AST_ASCRIBE;
    asc->span = d->body->span;
    asc->lhs = body;
    asc->type = d->result;
    body = asc;
  }
  for (int i = d->nparams - 1; i >= 0; i--) {
    Ast *lam = NEW(c->arena, Ast);
    lam->kind = AST_LAMBDA;
    lam->span = d->span;
    lam->bound = d->params[i].name;
    lam->bound_span = d->params[i].span;
    lam->body = body;
    body = lam;
  }
  return c->template_lambda[index] = body;
}

/* the declaration index of the template that e (a variable) names, or -1 */
static int template_named(Checker *c, Env *env, const Ast *e) {
  if (e->kind != AST_VAR || env_find(env, e->name)) return -1;
  int index = find_decl(c, e->name);
  return index >= 0 && decl_is_template(c->prog->decls[index]) ? index : -1;
}

/* The template's lambda elaborated at a use: checked against want, or
 * inferred (want NULL), or with its first parameter of type arg0 (when the
 * use is applied). */
static Phrase *template_use(Checker *c, const Ast *use, int index, PhraseType *want, PhraseType *arg0) {
  if (c->state[index] == 1) {
    check_error(c, ERR_RECURSION, use->span, "recursive definition: '%s' uses itself; DPIA has no recursion",
                use->name);
    return NULL;
  }
  const Ast *lam = template_lambda(c, index);
  c->state[index] = 1;
  Phrase *p = arg0 ? elab_lambda(c, NULL, lam, pt_fn(c->tc, arg0, NULL)) : want ? check(c, NULL, lam, want)
                                                                              : infer(c, NULL, lam);
  c->state[index] = 2;
  return p;
}

static Phrase *elab_var(Checker *c, Env *env, const Ast *e) {
  Env *found = env_find(env, e->name);
  if (found) {
    if (found->kind == ENV_SIZE) {
      /* a size used as a value is an int (docs/language.md section 12):
       * the size's value, the kernel's parameter in the generated code */
      SizeCtx *sc = &c->tc->sizes;
      Phrase *p = mk(c, PH_LIT, e->span, pt_exp(c->tc, c->tc->t_int));
      p->lit_is_size = true;
      p->lit_size = found->fixed ? size_const(sc, found->value) : size_var(sc, e->name);
      return p;
    }
    if (found->kind == ENV_DATA) {
      check_error(c, ERR_WRONG_KIND_OF_NAME, e->span, "'%s' is a data type, not a value", e->name);
      return NULL;
    }
    if (found->literal) { /* the literal as if written here (elab_let) */
      found->literal_uses++;
      return infer(c, NULL, found->literal);
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
  if (index >= 0 && decl_is_template(c->prog->decls[index])) return template_use(c, e, index, NULL, NULL);
  if (index >= 0 && c->prog->decls[index]->is_foreign) return foreign_use(c, e, index, 0);
  if (index >= 0) return elab_def_use(c, e, index);
  check_error(c, ERR_UNKNOWN_NAME, e->span, "unknown %s '%s'%s",
              c->prog->decls[c->current]->is_pipeline ? "kernel" : "identifier", e->name,
              unknown_name_hint(c, env, e->name, ENV_BINDER));
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

static Phrase *elab_function_literal(Checker *c, Env *env, const Ast *e, PhraseType *want);

/* A lambda with more parameters than the function it stands for takes
 * (mapSeq (\x y -> ...)); false after reporting it. */
static bool lambda_arity_ok(Checker *c, const Phrase *fn, const Ast *arg, const PhraseType *want) {
  int have = 0, takes = 0;
  for (const Ast *l = arg; l->kind == AST_LAMBDA; l = l->body) have++;
  for (const PhraseType *t = want; t && (t->kind == PT_FN || t->kind == PT_FN_P); t = t->snd) {
    takes++;
    if (!t->snd) return true; /* a result not known yet */
  }
  if (have <= takes || takes == 0) return true;
  Buf names;
  buf_init(&names, c->arena);
  for (const Ast *l = arg; l->kind == AST_LAMBDA; l = l->body) emit(&names, "%s%s", names.len ? " " : "", l->bound);
  const char *extra = check_is_reduction(fn) ? " (the element, then the accumulator)" : "";
  check_error(c, ERR_BAD_APPLICATION, arg->span, "%s takes %d parameter%s%s, but this lambda has %d (\\%s)",
              check_function_role(c, fn), takes, takes == 1 ? "" : "s", extra, have, names.data);
  return false;
}

/* Is param a float-or-double argument of the math primitive fn (ceil x,
 * sqrt x: exp[t] where floating t)? */
static bool floating_param(const Phrase *fn, const PhraseType *param) {
  if (fn->kind != PH_PRIM || prim_family(fn->prim) != PFAM_MATH || param->kind != PT_EXP) return false;
  const DataType *t = dt_resolve(param->data);
  return t->kind == DT_META && t->meta->cls == MC_FLOATING;
}

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
        check_error(c, ERR_BAD_APPLICATION, at, "this is applied to an argument, but it %s %s, which is not a function",
                    pt_has_unknowns(zonk_phrase_type(c, fn->type)) ? "is" : "has type", check_describe(c, fn->type));
      else
        check_error(c, ERR_BAD_APPLICATION, at, "too many arguments: the function takes %d here", i);
      return NULL;
    }
    params[i] = t->fst;
    t = t->snd;
  }
  Phrase **elab = NEWARRAY(c->arena, Phrase *, nargs);
  bool ok = true;
  /* first the arguments that are not lambdas: they fix the implicit sizes
   * and types that the lambdas' parameters get */
  const Phrase *outer_floating = c->floating_arg_of;
  for (int i = 0; i < nargs; i++) {
    c->floating_arg_of = floating_param(fn, params[i]) ? fn : NULL;
    if (args[i].ready) {
      elab[i] = args[i].ready;
      if (!expect_type(c, args[i].ready->span, params[i], args[i].ready->type, NULL)) ok = false;
    } else if (!check_late(args[i].ast, params[i])) {
      elab[i] = check(c, env, args[i].ast, params[i]);
      if (!elab[i]) ok = false;
    }
  }
  c->floating_arg_of = outer_floating;
  if (c->mark_depth == c->depth && c->want_mark < 0) check_want_mark(c, t);
  bool want_failed = false;
  if (ok && want && !expect_type(c, args[nargs - 1].app_span, want, t, NULL)) {
    ok = false;
    want_failed = true; /* the functions would only repeat it (no cascades) */
    if (check_is_reduction(fn) && prim_family(fn->prim) != PFAM_REDUCE_RANGE && nargs == 2 &&
        (t->kind == PT_FN || t->kind == PT_FN_P))
      diag_note(c->diag, fn->span, "%s takes its function, the initial value of the accumulator, then the array: "
                "%s f init xs", prim_info[fn->prim].name, prim_info[fn->prim].name);
  }
  wake_deferred(c);
  for (int i = 0; i < nargs && !want_failed; i++) {
    if (!args[i].ready && check_late(args[i].ast, params[i])) {
      if (!lambda_arity_ok(c, fn, args[i].ast, params[i])) {
        ok = false;
        continue;
      }
      int errors = c->diag->nerrors;
      elab[i] = check(c, env, args[i].ast, params[i]);
      if (!elab[i]) ok = false;
      if (!elab[i] && c->diag->nerrors > errors) check_reduce_order_note(c, fn, args[i].ast, params[i]);
      wake_deferred(c);
    }
  }
  if (!ok) return NULL;
  /* newLocal volatile T (\t -> ...): t is toLocalVolatile's buffer
   * (Binder.volatile_local), as stage1.c makes it */
  if (fn->kind == PH_PRIM && fn->prim == PRIM_NEW_LOCAL && fn->volatile_new && nargs >= 1 && elab[0] &&
      elab[0]->kind == PH_LAM)
    elab[0]->lam_binder->volatile_local = true;
  Phrase *p = fn;
  PhraseType *r = fn->type;
  for (int i = 0; i < nargs; i++) {
    r = r->snd;
    p = mk_app(c, p, elab[i], args[i].app_span, r);
  }
  return p;
}

/* An argument in size syntax: an integer literal, a nat parameter, or
 * + - * / of them. */
static bool is_size_arg(Env *env, const Ast *e) {
  switch (e->kind) {
  case AST_INT: return true;
  case AST_VAR: {
    Env *found = env_find(env, e->name);
    return found && found->kind == ENV_SIZE;
  }
  case AST_BINOP:
    return (e->op == BIN_ADD || e->op == BIN_SUB || e->op == BIN_MUL || e->op == BIN_DIV) &&
           is_size_arg(env, e->lhs) && is_size_arg(env, e->rhs);
  default: return false;
  }
}

/* the same argument as a size AST, for conv_size */
static SizeAst *size_ast_of(Checker *c, const Ast *e) {
  SizeAst *s = NEW(c->arena, SizeAst);
  s->span = e->span;
  switch (e->kind) {
  case AST_INT: s->kind = SZA_NUM; s->num = e->int_value; return s;
  case AST_VAR: s->kind = SZA_VAR; s->name = e->name; return s;
  default: break;
  }
  s->kind = e->op == BIN_ADD ? SZA_ADD : e->op == BIN_SUB ? SZA_SUB : e->op == BIN_MUL ? SZA_MUL : SZA_DIV;
  s->lhs = size_ast_of(c, e->lhs);
  s->rhs = size_ast_of(c, e->rhs);
  return s;
}

/* A def's nat parameters may be given explicitly, first and in the order
 * they are declared (docs/language.md): `firstN 3 xs` for
 * def firstN (K: nat) (M: nat) (v: [M]float).  Those not given are
 * inferred.  Returns how many leading arguments were sizes, -1 after an
 * error. */
static int explicit_sizes(Checker *c, Env *env, Phrase *fn, Arg *args, int nargs) {
  if (fn->kind != PH_DEF) return 0;
  int given = 0;
  while (given < fn->def->nsize_params && given < nargs && args[given].ast && is_size_arg(env, args[given].ast)) {
    Size s;
    if (!conv_size(c, env, size_ast_of(c, args[given].ast), &s)) return -1;
    if (!unify_sizes(c, fn->subst->sizes[given], s, args[given].ast->span)) INTERNAL("fresh size did not unify");
    given++;
  }
  fn->nsizes_given = given;
  return given;
}

/* f applied to the elaborated argument v, as elab_app applies a head to
 * its first argument: a lambda or a template gets v's type for its
 * parameter, anything else is inferred first */
static Phrase *apply_to_value(Checker *c, Env *env, const Ast *f, Phrase *v, Span span) {
  Arg a = {.ready = v, .app_span = span};
  int template = template_named(c, env, f);
  Phrase *fn;
  if (template >= 0)
    fn = template_use(c, f, template, NULL, v->type);
  else if (f->kind == AST_LAMBDA)
    fn = elab_lambda(c, env, f, pt_fn(c->tc, v->type, NULL));
  else
    fn = infer(c, env, f);
  return fn ? apply_spine(c, env, fn, &a, 1, NULL) : NULL;
}

/* iterate k f x = f (f (... (f x))), k applications, each elaborated on
 * its own (docs/language.md section 15): f may change the sizes, so every
 * application gets the types of the value it is applied to.  The first
 * failing application stops the unrolling (its error is reported once). */
enum { ITERATE_MAX = 64 };
static Phrase *elab_iterate(Checker *c, Env *env, const Ast *it, Arg *arg) {
  Size k;
  if (!conv_size(c, env, it->count, &k)) return NULL;
  int64_t n;
  if (!size_const_value(k, &n)) {
    check_error(c, ERR_BAD_ITERATE_COUNT, it->count->span,
                "iterate's count must be a constant: each application is checked and translated on its own");
    return NULL;
  }
  if (n > ITERATE_MAX) {
    check_error(c, ERR_BAD_ITERATE_COUNT, it->count->span,
                "iterate %lld times is more than dpia unrolls (%d); iterate a composition, or use a loop over an "
                "array (reduceSeq)",
                (long long)n, ITERATE_MAX);
    return NULL;
  }
  Phrase *v = arg->ready ? arg->ready : infer(c, env, arg->ast);
  for (int64_t i = 0; i < n && v; i++) {
    int errors = c->diag->nerrors;
    v = apply_to_value(c, env, it->iter_fn, v, it->span);
    if (!v && i > 0 && c->diag->nerrors > errors)
      diag_note(c->diag, it->iter_fn->span,
                "in application %lld of %lld, to the result of the one before: the function does not take what it "
                "gives",
                (long long)i + 1, (long long)n);
  }
  return v;
}

/* select's first argument is elaborated first (args[0] becomes ready):
 * an int vector mask gives select its lane-by-lane type (check_ops.c) */
static bool vector_select(Checker *c, Env *env, Phrase *fn, Arg *args, int *mask_width) {
  Phrase *mask = infer(c, env, args[0].ast);
  if (!mask) return false;
  args[0].ready = mask;
  args[0].ast = NULL;
  PhraseType *t = check_select_type(c, mask, mask_width);
  if (t) fn->type = t;
  return true;
}

/* A conversion's argument is elaborated first (args[0] becomes ready): an
 * index (toFloat i, i an idx[n]) converts as the int it is
 * (docs/language.md section 22), so the conversion's type is
 * exp[idx[n]] -> exp[r] with r what it gives an int; any other argument
 * is checked against the signature as usual. */
static bool index_conversion(Checker *c, Env *env, Phrase *fn, Arg *args) {
  Phrase *x = infer(c, env, args[0].ast);
  if (!x) return false;
  args[0].ready = x;
  args[0].ast = NULL;
  DataType *t = x->type->kind == PT_EXP ? dt_resolve(x->type->data) : NULL;
  if (!t || t->kind != DT_IDX) return true;
  PhraseType *sig = fn->type; /* exp[s] -> exp[r], s numeric, r deferred on s */
  if (!unify_data(c, sig->fst->data, c->tc->t_int)) INTERNAL("a conversion that takes no int");
  fn->type = pt_fn(c->tc, x->type, sig->snd);
  return true;
}

/* for n (\i -> body), parfor out (\i o -> body) and their levels in an
 * imperative program: the index i is a size of body as well as a value
 * (docs/language.md section 30), as a dependent map's row is, which stage
 * II makes such a loop of (the printed imperative program names the row
 * by the loop's index, and is checked again).  Not when the name is in
 * scope already: a size keeps its meaning, and an enclosing loop's index
 * its own (a type made outside names it).  Returns the lambda, or NULL. */
static const Ast *row_loop(Env *env, const Phrase *fn, const Arg *args, int nargs) {
  if (fn->kind != PH_PRIM || nargs < 1) return NULL;
  PrimFamily f = prim_family(fn->prim);
  const Ast *lam = args[nargs - 1].ast;
  if ((f != PFAM_FOR && f != PFAM_PARFOR) || nargs != prim_arity_of(fn->prim) || !lam || lam->kind != AST_LAMBDA)
    return NULL;
  return env_find(env, lam->bound) ? NULL : lam;
}

/* the number of a loop's steps, which its index is below */
static Size loop_steps(Checker *c, const Phrase *fn) {
  if (prim_family(fn->prim) == PFAM_FOR) return fn->sizes[0];
  return dt_resolve(zonk_phrase_type(c, fn->type)->fst->data)->size; /* parfor: acc[[n]d] */
}

static bool is_dep_map(Prim p) { return p == PRIM_DEP_MAP_SEQ || p == PRIM_DEP_MAP_GLOBAL || p == PRIM_DEP_MAP_WORKGROUP; }

static Phrase *elab_app(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  int nargs = 0;
  const Ast *head = e;
  while (head->kind == AST_APP) {
    nargs++;
    head = head->lhs;
  }
  if (++c->depth > diag_depth_limit(c->diag, DPIA_MAX_NESTING * 4)) {
    c->diag->limit_hit = true;
    check_error(c, ERR_TOO_DEEP, e->span, "expression nested too deeply");
    c->depth--;
    return NULL;
  }
  Phrase *matched; /* a view of what is known (check_instance.c) */
  if (head->kind == AST_PRIM && check_shortcut_prim(head->prim) &&
      (check_shortcut(c, env, e, want, &matched) || check_view_of_app(c, env, e, want, &matched))) {
    c->depth--;
    return matched;
  }
  Arg *args = NEWARRAY(c->arena, Arg, nargs);
  const Ast *a = e;
  for (int i = nargs - 1; i >= 0; i--) {
    args[i].ast = a->rhs;
    args[i].app_span = a->span;
    a = a->lhs;
  }
  Phrase *fn;
  int mask_width = 0; /* select by a mask of this many lanes (vector_select) */
  int dep_first_req = -1; /* a dependent map or a loop: the requirements its function makes begin here */
  const Ast *loop = NULL;  /* a loop whose index is a size of its body (row_loop) */
  Env *fn_env = env;       /* a dependent map's function \k row -> ...: k a size (dep_map_type) */
  Size dep_rows = {0};     /* a dependent mapI: its rows (dep_map_i_type) */
  bool dep_out = false;    /* a parfor writing a dependent array's rows (dep_parfor_type) */
  int template = template_named(c, env, head);
  if (head->kind == AST_ITERATE) {
    fn = elab_iterate(c, env, head, &args[0]);
    if (fn && nargs == 1) {
      c->depth--;
      return !want || expect_type(c, e->span, want, fn->type, NULL) ? fn : NULL;
    }
    args++;
    nargs--;
  } else if (head->kind == AST_LAMBDA || template >= 0) {
    /* (\x -> body) arg, as a let is: the argument gives x its type */
    Phrase *arg0 = infer(c, env, args[0].ast);
    if (!arg0) {
      c->depth--;
      return NULL;
    }
    args[0].ready = arg0;
    args[0].ast = NULL;
    fn = template >= 0 ? template_use(c, head, template, NULL, arg0->type)
                       : elab_lambda(c, env, head, pt_fn(c->tc, arg0->type, NULL));
  } else {
    int foreign = foreign_named(c, env, head), at = -1; /* an argument check_partial elaborated */
    Phrase *ready = NULL, *lam = NULL; /* lam: a map's function check_partial elaborated too */
    fn = foreign >= 0 ? foreign_use(c, head, foreign, nargs) : check_partial(c, env, e, want, &at, &ready, &lam);
    if (lam) {
      /* the rest of apply_spine for a map (nargs 2, its value at 1) */
      c->depth--;
      return mk_app(c, mk_app(c, fn, lam, args[0].app_span, fn->type->snd), ready, args[1].app_span,
                    fn->type->snd->snd);
    }
    if (nargs == 1 && want && foreign < 0 && at < 0 && check_map_function(c, env, e, want, &matched)) {
      c->depth--;
      return matched;
    }
    if (foreign < 0 && at < 0) fn = infer(c, env, head);
    if (at >= 0) args[at] = (Arg){.ready = ready, .app_span = args[at].app_span};
    if (fn && fn->kind == PH_PRIM && prim_builds_vector(fn->prim) && nargs != prim_arity_of(fn->prim)) {
      /* float4 a b c d takes exactly its lanes (docs/language.md section 11) */
      int w = prim_arity_of(fn->prim);
      check_error(c, ERR_VECTOR_LANE_COUNT, e->span, "%s takes its %d lanes, one argument each; found %d argument%s",
                  prim_info[fn->prim].name, w, nargs, nargs == 1 ? "" : "s");
      fn = NULL;
    }
    if (fn && fn->kind == PH_PRIM && fn->prim == PRIM_SELECT && !vector_select(c, env, fn, args, &mask_width))
      fn = NULL;
    if (fn && fn->kind == PH_PRIM && prim_converts(fn->prim) && !index_conversion(c, env, fn, args))
      fn = NULL;
    if (fn && fn->kind == PH_PRIM && is_dep_map(fn->prim)) {
      /* the array first: its rows give the function its type */
      Phrase *xs = nargs == 2 ? infer(c, env, args[1].ast) : NULL;
      if (nargs == 2 && !xs) fn = NULL;
      else if (!dep_map_type(c, &fn_env, fn, xs, nargs, &args[0].ast, e->span)) fn = NULL;
      else {
        args[1].ready = xs;
        args[1].ast = NULL;
        dep_first_req = c->reqs.len;
      }
    }
    if (fn && fn->kind == PH_PRIM && prim_family(fn->prim) == PFAM_MAP_I && nargs == 3) {
      /* the input first: a dependent array's mapI (the intermediate
       * program of a dependent map) gives its function the row's type */
      Phrase *xs = infer(c, env, args[1].ast);
      DataType *t = xs && xs->type->kind == PT_EXP ? dt_resolve(xs->type->data) : NULL;
      Phrase *out = xs && t && t->kind == DT_DEPARRAY ? infer(c, env, args[2].ast) : NULL;
      DataType *out_t = out && out->type->kind == PT_ACC ? dt_resolve(out->type->data) : NULL;
      if (!xs || (t && t->kind == DT_DEPARRAY && !out)) fn = NULL;
      else {
        args[1].ready = xs;
        args[1].ast = NULL;
        if (out) {
          args[2].ready = out;
          args[2].ast = NULL;
        }
      }
      if (fn && t && t->kind == DT_DEPARRAY) {
        if (!dep_map_i_type(c, &fn_env, fn, t, out_t, &args[0].ast)) fn = NULL;
        else {
          dep_first_req = c->reqs.len;
          dep_rows = t->size;
        }
      }
    }
    if (fn && fn->kind == PH_PRIM && (fn->prim == PRIM_IDX || fn->prim == PRIM_IDX_ACC) && nargs == 2) {
      /* the array first: a dependent array's row has a type of its own */
      Phrase *xs = infer(c, env, args[0].ast);
      if (!xs || !dep_idx_type(c, env, fn, xs, args[1].ast)) fn = NULL;
      else {
        args[0].ready = xs;
        args[0].ast = NULL;
      }
    }
    loop = fn ? row_loop(env, fn, args, nargs) : NULL;
    if (loop && prim_family(fn->prim) == PFAM_PARFOR) {
      /* the output first: a dependent array's rows are its elements
       * (docs/language.md section 30.2) */
      Phrase *out = infer(c, env, args[0].ast);
      if (!out) fn = NULL, loop = NULL;
      else {
        args[0].ready = out;
        args[0].ast = NULL;
        dep_out = dep_parfor_type(c, fn, out, loop->bound);
      }
    }
    if (loop) {
      c->loop_lambda = loop;
      dep_row_given(c, fn, loop->bound);
      dep_first_req = c->reqs.len;
    }
    int given = fn ? explicit_sizes(c, env, fn, args, nargs) : 0;
    if (given < 0) fn = NULL;
    else if (given == nargs) {
      c->depth--;
      return fn;
    } else {
      args += given;
      nargs -= given;
    }
  }
  Phrase *p = fn ? apply_spine(c, fn_env, fn, args, nargs, want) : NULL;
  if (p && mask_width) check_vector_select(c, p, mask_width, e->span);
  if (p && dep_first_req >= 0 && prim_family(fn->prim) == PFAM_MAP && !dep_map_result(c, fn, dep_first_req, e->span))
    p = NULL;
  if (p && fn->kind == PH_PRIM && fn->prim == PRIM_DEP_JOIN && nargs == 1 && !dep_join_result(c, fn, e->span))
    p = NULL;
  if (p && dep_first_req >= 0 && prim_family(fn->prim) == PFAM_MAP_I &&
      !dep_requirements(c, dep_first_req, dep_rows, fn->dep_index))
    p = NULL;
  if (loop && c->loop_lambda == loop) c->loop_lambda = NULL; /* not reached: an error before the lambda */
  /* a loop whose body names no size by its index is the loop it was;
   * one whose body does makes its requirements at its ends */
  bool sized_loop = loop && (c->loop_sized == loop || dep_out);
  if (loop && !sized_loop) fn->dep_index = NULL;
  if (p && sized_loop && !dep_requirements(c, dep_first_req, loop_steps(c, fn), fn->dep_index)) p = NULL;
  c->depth--;
  return p;
}

/* ---- for check_lit.c (check_int.h) ---- */

Phrase *check_mk(Checker *c, PhraseTermKind k, Span span, PhraseType *type) { return mk(c, k, span, type); }
Binder *check_binder(Checker *c, Sym name, Span span, PhraseType *type) { return new_binder(c, name, span, type); }
Phrase *check_infer(Checker *c, Env *env, const Ast *e) { return infer(c, env, e); }
DataType *check_data_type(Checker *c, const TypeAst *t) { return conv_data(c, NULL, t); }

Phrase *check_app(Checker *c, Env *env, const Ast *e, PhraseType *want) { return elab_app(c, env, e, want); }
Phrase *check_lambda(Checker *c, Env *env, const Ast *e, PhraseType *want) { return elab_lambda(c, env, e, want); }

Phrase *check_apply(Checker *c, Env *env, Phrase *fn, Phrase **args, int n, Span span) {
  Arg a[3];
  ASSERT(n <= 3);
  for (int i = 0; i < n; i++) a[i] = (Arg){.ready = args[i], .app_span = span};
  return apply_spine(c, env, fn, a, n, NULL);
}

/* ---- lambdas, let, composition ---- */

/* want: a function type whose parameter gives the binder's type; its
 * result (if not NULL) is what the body is checked against. */
static Phrase *elab_lambda(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  PhraseType *param = want ? want->fst : pt_exp(c->tc, fresh(c, MC_ANY, e->bound_span));
  Binder *b = new_binder(c, e->bound, e->bound_span, param);
  Env *inner = env_push(c, env, e->bound, ENV_BINDER, b);
  /* the index of an imperative loop is a size of its body too (row_loop) */
  bool loop = e == c->loop_lambda;
  if (loop) {
    inner->dep_index = true;
    c->loop_lambda = NULL;
  }
  Phrase *body = want && want->snd ? check(c, inner, e->body, want->snd) : infer(c, inner, e->body);
  if (loop && inner->used_as_size) c->loop_sized = e;
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
      check_error(c, ERR_BAD_APPLICATION, e->lhs->span, "the left side of '>>' must be a function, found %s",
                  check_describe(c, f->type));
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

/* Is e a number literal or the negation of one (2, 1.5, 0.5f, -1.0)? */
static bool is_number_literal(const Ast *e) {
  const Ast *num = e->kind == AST_NEG ? e->lhs : e;
  return num->kind == AST_INT || num->kind == AST_FLOAT;
}

/* let x = v in b  is  (\x -> b) v   (spec section 2) */
static Phrase *let_phrase(Checker *c, Binder *b, Phrase *v, Phrase *body, Span span) {
  Phrase *lam = mk(c, PH_LAM, span, pt_fn(c->tc, v->type, body->type));
  lam->lam_binder = b;
  lam->body = body;
  return mk_app(c, lam, v, span, body->type);
}

static Phrase *elab_let(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  if (is_number_literal(e->value)) {
    /* A name bound to a number literal stands for the literal: each use
     * is elaborated as the literal written there, with a type of its own
     * (elab_var), so that `let t = 1.0 in (v + t) + vec 2 t` broadcasts t
     * to v's float2 in the sum and gives vec its float, as the literal
     * written twice would (docs/language.md section 11); one type for
     * every use would be the first an operator gives it, float2.  A
     * literal is a constant: the substitution computes what the let
     * does. */
    Env *inner = env_push(c, env, e->bound, ENV_BINDER, NULL);
    inner->literal = e->value;
    Phrase *body = want ? check(c, inner, e->body, want) : infer(c, inner, e->body);
    if (!body || inner->literal_uses > 0) return body;
    /* unused: the let itself, whose literal is still range checked */
    Phrase *v = infer(c, env, e->value);
    return v ? let_phrase(c, new_binder(c, e->bound, e->bound_span, v->type), v, body, e->span) : NULL;
  }
  Phrase *v = infer(c, env, e->value);
  if (v && v->kind == PH_LIT && v->lit_nelems > 0 && !v->lit_name) v->lit_name = e->bound; /* its constant's name */
  Binder *b = new_binder(c, e->bound, e->bound_span, v ? v->type : NULL);
  Env *inner = env_push(c, env, e->bound, ENV_BINDER, b);
  Phrase *body = want ? check(c, inner, e->body, want) : infer(c, inner, e->body);
  if (!v || !body) return NULL;
  return let_phrase(c, b, v, body, e->span);
}

/* ---- the two directions ---- */

static Phrase *infer_inner(Checker *c, Env *env, const Ast *e) {
  switch (e->kind) {
  case AST_VAR: return elab_var(c, env, e);
  case AST_INT:
  case AST_FLOAT:
  case AST_BOOL: return check_literal(c, e);
  case AST_PRIM: return elab_prim(c, env, e);
  case AST_ITERATE:
    check_error(c, ERR_ITERATE_UNAPPLIED, e->span,
                "iterate needs the array it iterates on here: write iterate K f xs, or xs |> iterate K f");
    return NULL;
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
        check_error(c, ERR_NOT_AN_ACCEPTOR, e->lhs->span,
                    "the left side of ':=' must be an acceptor; this is a variable: write .1 to assign to it");
      else
        check_error(c, ERR_NOT_AN_ACCEPTOR, e->lhs->span, "the left side of ':=' must be an acceptor, found %s%s",
                    l->type->kind == PT_EXP ? "an expression of type " : "", check_describe(c, l->type));
      return NULL;
    }
    Phrase *r = check(c, env, e->rhs, pt_exp(c->tc, l->type->data));
    if (!r) return NULL;
    Phrase *p = mk(c, PH_ASSIGN, e->span, c->tc->t_comm);
    p->fst = l;
    p->snd = r;
    return p;
  }
  case AST_BINOP: return check_binop(c, env, e);
  case AST_NEG:
  case AST_NOT: return check_unop(c, env, e);
  case AST_PROJ: {
    Phrase *x = infer(c, env, e->lhs);
    if (!x) return NULL;
    if (x->type->kind != PT_WITH) {
      if (x->type->kind == PT_EXP)
        check_error(c, ERR_BAD_PROJECTION, e->span,
                    "'.%d' projects a phrase pair ({a, b} or a var); for a data pair use %s", e->proj,
                    e->proj == 1 ? "fst" : "snd");
      else
        check_error(c, ERR_BAD_PROJECTION, e->span, "'.%d' needs a phrase pair, found %s", e->proj,
                    check_describe(c, x->type));
      return NULL;
    }
    Phrase *p = mk(c, PH_PROJ, e->span, e->proj == 1 ? x->type->fst : x->type->snd);
    p->fst = x;
    p->index = e->proj;
    return p;
  }
  case AST_LANE: {
    /* v.x is the primitive lane 0 applied to v; its errors point at .x */
    Span lane = e->span;
    lane.begin = e->lhs->span.end;
    Phrase *pr = mk(c, PH_PRIM, lane, NULL);
    pr->prim = PRIM_LANE;
    pr->sizes[0] = size_const(&c->tc->sizes, e->proj);
    pr->type = prim_type(c, pr, lane);
    if (!pr->type) return NULL;
    Arg args[1] = {{.ast = e->lhs, .app_span = e->span}};
    return apply_spine(c, env, pr, args, 1, NULL);
  }
  case AST_TUPLE: {
    /* (a, b) is pair a b */
    Phrase *pr = mk(c, PH_PRIM, e->span, NULL);
    pr->prim = PRIM_PAIR;
    pr->type = prim_type(c, pr, e->span);
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
  case AST_ARRAY: return elab_array(c, env, e);
  case AST_COUNT: break;
  }
  INTERNAL("ast kind %d", (int)e->kind);
}

static Phrase *infer(Checker *c, Env *env, const Ast *e) {
  if (++c->depth > diag_depth_limit(c->diag, DPIA_MAX_NESTING * 4)) {
    c->depth--;
    c->diag->limit_hit = true;
    check_error(c, ERR_TOO_DEEP, e->span, "expression nested too deeply");
    return NULL;
  }
  Phrase *p = infer_inner(c, env, e);
  c->depth--;
  return p;
}

/* An integer literal or a size expression where an index is expected,
 * `idx nbh 4`, `idx row (N - 1)`: an index of that type
 * (docs/language.md section 7).  0 <= k < n is checked now where both are
 * constants, else each side that is not is a precondition of the kernel
 * (n >= k + 1, k >= 0). */
static Phrase *elab_index_size(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  if (e->kind == AST_INT && e->int_value > (uint64_t)INT64_MAX) {
    check_error(c, ERR_BAD_LITERAL, e->span, "integer literal too large");
    return NULL;
  }
  SizeCtx *sc = &c->tc->sizes;
  Size k;
  if (e->kind == AST_INT)
    k = size_const(sc, (int64_t)e->int_value);
  else if (!conv_size(c, env, size_ast_of(c, e), &k))
    return NULL;
  PhraseType *t = zonk_phrase_type(c, want);
  Size n = dt_resolve(t->data)->size;
  int64_t kv, nv;
  bool k_known = size_const_value(k, &kv), n_known = size_const_value(n, &nv);
  if (k_known && kv < 0) {
    check_error(c, ERR_INDEX_OUT_OF_RANGE, e->span, "index %lld is negative", (long long)kv);
    return NULL;
  }
  if (k_known && n_known && kv >= nv) {
    check_error(c, ERR_INDEX_OUT_OF_RANGE, e->span,
                "index %lld is out of range: the array has %lld element%s (indices 0 to %lld)", (long long)kv,
                (long long)nv, nv == 1 ? "" : "s", (long long)(nv - 1));
    return NULL;
  }
  TypeNamer tn;
  check_namer(c, &tn);
  const char *what = arena_printf(c->arena, "index %s", tn_size(&tn, k));
  if (!k_known) require(c, REQ_NATURAL, k, e->span, what);
  /* n - k - 1 >= 0, printed as n >= k + 1 */
  if (!(k_known && n_known))
    require(c, REQ_NATURAL, size_sub(sc, n, size_add(sc, k, size_const(sc, 1))), e->span, what);
  Phrase *p = mk(c, PH_LIT, e->span, t);
  phrase_set_size_literal(p, k);
  return p;
}

/* e with each name bound by `let` to a number literal (elab_let) in it
 * replaced by that literal, as if written there, through the arithmetic a
 * size argument allows (is_size_arg): `i`, `i - 1`.  A replaced name's
 * copy spans the use, so that an error it meets (an index out of range)
 * points there.  e itself when it has none. */
static const Ast *let_literals_here(Checker *c, Env *env, const Ast *e) {
  if (e->kind == AST_VAR) {
    Env *found = env_find(env, e->name);
    if (!found || !found->literal) return e;
    found->literal_uses++;
    Ast *lit = NEW(c->arena, Ast);
    *lit = *found->literal;
    lit->span = e->span;
    return lit;
  }
  if (e->kind != AST_BINOP) return e;
  const Ast *lhs = let_literals_here(c, env, e->lhs), *rhs = let_literals_here(c, env, e->rhs);
  if (lhs == e->lhs && rhs == e->rhs) return e;
  Ast *op = NEW(c->arena, Ast);
  *op = *e;
  op->lhs = (Ast *)lhs;
  op->rhs = (Ast *)rhs;
  return op;
}

static Phrase *check(Checker *c, Env *env, const Ast *e, PhraseType *want) {
  if (want->kind == PT_EXP && dt_resolve(want->data)->kind == DT_IDX) {
    /* an index position types a let-bound literal as the literal written
     * there, `let i = 2 in idx r i` as `idx r 2`, `idx r (i - 1)` as
     * `idx r (2 - 1)` (docs/language.md section 11); inferred (elab_var),
     * it would be a number, not an index */
    const Ast *sized = let_literals_here(c, env, e);
    if (is_size_arg(env, sized)) return elab_index_size(c, env, sized, want);
  }
  switch (e->kind) {
  case AST_LAMBDA:
    if (want->kind != PT_FN && want->kind != PT_FN_P) {
      check_error(c, ERR_FUNCTION_AS_VALUE, e->span, "a function is not allowed here: expected %s",
                  check_describe(c, want));
      return NULL;
    }
    return elab_lambda(c, env, e, want);
  case AST_COMPOSE:
    if (want->kind != PT_FN && want->kind != PT_FN_P) {
      check_error(c, ERR_FUNCTION_AS_VALUE, e->span, "a function is not allowed here: expected %s",
                  check_describe(c, want));
      return NULL;
    }
    return elab_compose(c, env, e, want);
  case AST_LET: return elab_let(c, env, e, want);
  case AST_VAR: {
    int index = template_named(c, env, e);
    if (index >= 0) return template_use(c, e, index, want, NULL);
    break;
  }
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


/* What name is in the target language (Checker.names), or NULL if it is
 * free or there is no target. */
const char *check_name_use(const Checker *c, const char *name) { return c->names ? c->names->use(name) : NULL; }

/* The kernel's name and its nat parameters' names become C names as they
 * are; false after reporting one that the target language does not allow. */
static bool check_kernel_names(Checker *c, const Decl *d) {
  bool ok = true;
  const char *use = c->names ? c->names->kernel_use(d->name) : NULL;
  if (use) {
    diag_error(c->diag, ERR_RESERVED_NAME, d->name_span, "kernel name '%s' is %s; rename the kernel", d->name, use);
    ok = false;
  }
  for (int i = 0; i < d->nparams; i++) {
    const Param *pa = &d->params[i];
    if (pa->kind != PARAM_NAT || !(use = check_name_use(c, pa->name))) continue;
    diag_error(c->diag, ERR_RESERVED_NAME, pa->span,
               "nat parameter name '%s' is %s; a kernel's nat parameters keep their names in %s: rename it",
               pa->name, use, c->names->language);
    ok = false;
  }
  return ok;
}

/* A pipeline's name and parameters are names of its C launcher
 * (dpia_NAME_launch(q, output, xs, N)): any C identifier, OpenCL's
 * built-in names included, but no prime. */
static bool check_pipeline_names(Checker *c, const Decl *d) {
  bool ok = true;
  if (strchr(d->name, '\'')) {
    diag_error(c->diag, ERR_RESERVED_NAME, d->name_span,
               "pipeline name '%s' is not a C identifier (its launcher is a C function); rename "
               "the pipeline",
               d->name);
    ok = false;
  }
  for (int i = 0; i < d->nparams; i++)
    if (strchr(d->params[i].name, '\'')) {
      diag_error(c->diag, ERR_RESERVED_NAME, d->params[i].span,
                 "parameter name '%s' is not a C identifier: a pipeline's parameters are its launcher's; rename it",
                 d->params[i].name);
      ok = false;
    }
  return ok;
}

/* ---- foreign functions (check_lit.c) ---- */

/* the declaration index of the foreign function that e (a variable) names, or -1 */
static int foreign_named(Checker *c, Env *env, const Ast *e) {
  if (e->kind != AST_VAR || env_find(env, e->name)) return -1;
  int index = find_decl(c, e->name);
  return index >= 0 && c->prog->decls[index]->is_foreign ? index : -1;
}

/* ---- declarations ---- */

static void check_decl(Checker *c, int index) {
  const Decl *d = c->prog->decls[index];
  DefInfo *def = c->defs[index];
  if (d->is_foreign) {
    int current = c->current;
    c->current = index;
    c->state[index] = 2;
    check_foreign(c, d, def);
    c->current = current;
    return;
  }
  if (decl_is_template(d)) {
    /* checked at each use, with its arguments' types (template_use) */
    for (int i = 0; i < d->nparams; i++)
      for (int j = 0; j < i; j++)
        if (d->params[j].name == d->params[i].name) {
          diag_error(c->diag, ERR_DUPLICATE_NAME, d->params[i].span, "duplicate parameter '%s'", d->params[i].name);
          diag_note(c->diag, d->params[j].span, "'%s' was first declared here", d->params[i].name);
          c->state[index] = 2;
          return;
        }
    def->ok = true;
    c->state[index] = 2;
    return;
  }
  c->state[index] = 1;
  c->current = index;
  c->failed = false;
  /* reported first, but independent of the rest: the body is checked too */
  bool names_ok = d->is_kernel ? check_kernel_names(c, d) : !d->is_pipeline || check_pipeline_names(c, d);
  Env *env = NULL;
  Vec sizes = {0}, datas = {0}, params = {0};
  for (int i = 0; i < d->nparams; i++) {
    const Param *pa = &d->params[i];
    for (int j = 0; j < i; j++)
      if (d->params[j].name == pa->name) {
        check_error(c, ERR_DUPLICATE_NAME, pa->span, "duplicate parameter '%s'", pa->name);
        diag_note(c->diag, d->params[j].span, "'%s' was first declared here", pa->name);
      }
    switch (pa->kind) {
    case PARAM_NAT: {
      if (pa->tune && d->is_pipeline) {
        check_error(c, ERR_TUNE_OUTSIDE_KERNEL, pa->span,
                    "'%s' is a tune parameter of pipeline '%s': only a kernel's parameters can be tuned; a "
                    "pipeline's kernels get their values from the pipeline's sizes",
                    pa->name, d->name);
      } else if (pa->tune && !d->is_kernel) {
        check_error(c, ERR_TUNE_OUTSIDE_KERNEL, pa->span,
                    "'%s' is a tune parameter of def '%s': only a kernel's parameters can be tuned; a def takes "
                    "'(%s: nat)' and its user passes the kernel's tune parameter",
                    pa->name, d->name, pa->name);
        /* then checked as the nat it would be: no cascade at its uses */
      }
      /* --set: the parameter is bound to the constant, so every size that
       * mentions it is the size the literal would give and every
       * requirement on it is decided now (docs/language.md section 6) */
      int set = -1;
      bool here = c->set && (!c->set->kernel || strcmp(c->set->kernel, d->name) == 0);
      for (int j = 0; pa->tune && d->is_kernel && here && j < c->set->n; j++)
        if (strcmp(c->set->names[j], pa->name) == 0) set = j;
      env = env_push(c, env, pa->name, ENV_SIZE, NULL);
      /* a default (`(KS: tune [256, 512] = 512)`, docs/tune.md) is the
       * value when none is given, so every caller of the checker sees the
       * program as with the literal written; --emit=space asks for the
       * parameters of the kernels it lists as declared (the others, which
       * it only checks, keep their defaults as for a translation) */
      bool by_default = set < 0 && pa->tune && pa->tune_has_default && d->is_kernel && !(c->set && c->set->declared && here);
      if (set >= 0 || by_default) {
        env->fixed = true;
        env->value = set >= 0 ? c->set->values[set] : (long long)pa->tune_default;
      } else {
        vec_push(c->arena, &sizes, (void *)pa->name);
      }
      break;
    }
    case PARAM_DATA:
      vec_push(c->arena, &datas, (void *)pa->name);
      env = env_push(c, env, pa->name, ENV_DATA, NULL);
      break;
    case PARAM_UNTYPED: INTERNAL("template parameter in a checked declaration");
    case PARAM_PHRASE: {
      PhraseType *t = conv_phrase(c, env, pa->type);
      if (t && (d->is_kernel || d->is_pipeline) && t->kind != PT_EXP) {
        TypeNamer tn;
        check_namer(c, &tn);
        const char *what = d->is_kernel ? "kernel" : "pipeline";
        check_error(c, ERR_BAD_KERNEL_SIGNATURE, pa->span,
                    "%s parameter '%s' has phrase type %s; %s parameters are nat parameters and data", what, pa->name,
                    tn_phrase(&tn, t), what);
        t = NULL;
      }
      if (t && (d->is_kernel || d->is_pipeline) && t->kind == PT_EXP) t = not_stored(c, d, pa->span, t, "parameter");
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

  if (d->nperms && !c->failed) check_permutation_params(c, d, def);
  if (d->updates && !c->failed) check_updates_region(c, env, d, def);
  PhraseType *want = d->result ? conv_phrase(c, env, d->result) : NULL;
  if (want && (d->is_kernel || d->is_pipeline) && want->kind == PT_EXP)
    want = not_stored(c, d, d->result->span, want, "result");
  Phrase *body = NULL;
  if (d->body) body = want ? check(c, env, d->body, want) : infer(c, env, d->body);
  if (!body) c->failed = true;
  if (body && (d->is_kernel || d->is_pipeline)) {
    PhraseType *t = body->type;
    if (t->kind != PT_EXP) {
      check_error(c, ERR_BAD_KERNEL_SIGNATURE, d->name_span, "%s '%s' must produce data, but its body is %s",
                  d->is_kernel ? "kernel" : "pipeline", d->name, check_describe(c, t));
      body = NULL;
    } else if (!not_stored(c, d, d->name_span, t, "result")) {
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
    if (def->updates && !c->failed) check_updates_result(c, d, def);
  }
  def->ok = params_ok && body && !c->failed;
  if (def->ok) def->ok = scir_check_def(c->arena, c->diag, def);
  if (!names_ok) def->ok = false;
  /* a pipeline's launches (pipeline.c): what its body may not do outside
   * a kernel is found there */
  if (def->ok && d->is_pipeline) {
    def->pipeline = pipeline_plan(c->arena, c->diag, c->defs, c->prog->ndecls, def);
    def->ok = def->pipeline != NULL;
  }
  c->state[index] = 2;
}

CheckedProgram *check_program(Arena *a, Interner *in, Diag *diag, TypeCtx *tc, const Program *p) {
  return check_program_set(a, in, diag, tc, p, NULL, NULL);
}

CheckedProgram *check_program_for(Arena *a, Interner *in, Diag *diag, TypeCtx *tc, const Program *p,
                                  const TargetNames *names) {
  return check_program_set(a, in, diag, tc, p, names, NULL);
}

CheckedProgram *check_program_set(Arena *a, Interner *in, Diag *diag, TypeCtx *tc, const Program *p,
                                  const TargetNames *names, const TuneSettings *set) {
  Checker c = {0};
  c.set = set;
  c.names = names;
  c.zonk_memo = NEW(a, ZonkMemo);
  c.arena = a;
  c.in = in;
  c.diag = diag;
  c.tc = tc;
  c.prog = p;
  c.defs = NEWARRAY(a, DefInfo *, p->ndecls);
  c.state = NEWARRAY(a, int, p->ndecls);
  c.template_lambda = NEWARRAY(a, const Ast *, p->ndecls);
  size_t nslots = 16;
  while (nslots < 2 * (size_t)p->ndecls) nslots *= 2;
  c.decl_slots = NEWARRAY(a, int, nslots);
  c.decl_mask = nslots - 1;
  for (int i = 0; i < p->ndecls; i++) {
    const Decl *d = p->decls[i];
    DefInfo *def = NEW(a, DefInfo);
    def->decl = d;
    def->name = d->name;
    def->is_kernel = d->is_kernel;
    def->is_pipeline = d->is_pipeline;
    c.defs[i] = def;
    size_t slot = decl_slot(&c, d->name);
    if (c.decl_slots[slot]) {
      const Decl *first = p->decls[c.decl_slots[slot] - 1];
      diag_error(diag, ERR_DUPLICATE_NAME, d->name_span, "duplicate declaration of '%s'", d->name);
      diag_note(diag, first->name_span, "'%s' was first declared here", d->name);
    } else {
      c.decl_slots[slot] = i + 1;
    }
    Prim named = prim_lookup(d->name, strlen(d->name), &(int){0});
    /* a kernel float4: check_kernel_names reports the target's type name */
    if (named != PRIM_COUNT && !(d->is_kernel && prim_builds_vector(named)))
      diag_error(diag, ERR_PRIMITIVE_REBOUND, d->name_span, "'%s' is a primitive; it cannot be redefined", d->name);
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
