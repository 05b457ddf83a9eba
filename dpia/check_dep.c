/* check_dep.c: the checker's part of the dependent maps, depMapSeq f xs,
 * depMapGlobal and depMapWorkgroup over a dependent array [n](\i -> d)
 * (docs/language.md section 30; shine's depMapSeq, whose function is
 * typed (k: nat) -> exp[d k] -> exp[d' k]).
 *
 * dpia's phrase types have no nat binder, so the function is checked once
 * for a row k that is a size variable of its own, made for this map
 * (Phrase.dep_index): its parameter is exp[d[k/i]], and the sizes of its
 * body may use k.  k means "the index of this map's loop": the
 * translation binds it there (stage I and II carry dep_index to the mapI
 * and the loop), code generation writes it as the loop's variable and the
 * interpreters give it the iteration's value.  So k must not leave the
 * function: a type outside it that names k (the map's result, or a
 * variable of the enclosing code whose size was inferred from a row) is
 * refused (E0335, dep_scopes).  A result whose rows' types use k is the
 * dependent array [n](\k -> b), k abstracted (dep_map_result), which
 * depJoin stores packed (dep_join_result; docs/language.md section 30.2). */
#include "check_int.h"

bool dep_map_type(Checker *c, Env **envp, Phrase *fn, Phrase *xs, int nargs, const Ast **f, Span span) {
  const char *name = prim_info[fn->prim].name;
  if (nargs != 2) {
    check_error(c, ERR_BAD_DEP_MAP, span,
                "%s takes its function and the dependent array it maps: %s f xs (a row's index is a size of f's "
                "types, bound only where the rows are)",
                name, name);
    return false;
  }
  DataType *t = xs->type->kind == PT_EXP ? dt_resolve(xs->type->data) : NULL;
  if (!t || t->kind != DT_DEPARRAY) {
    check_error(c, ERR_BAD_DEP_MAP, xs->span,
                "%s maps a dependent array, [n](\\i -> d), whose rows' types use their index; this is %s (map it "
                "with the map of the same level)",
                name, check_describe(c, xs->type));
    return false;
  }
  Sym k = row_name(c, envp, f, t, 1, name);
  if (!k) return false;
  dep_row_given(c, fn, k);
  fn->origin = name; /* its loop's comment in generated code */
  SizeCtx *sc = &c->tc->sizes;
  /* (exp[a] -> exp[b]) -> exp[c] -> exp[d], d made of b once f is
   * checked (dep_map_result) */
  PhraseType *sig = fn->type;
  if (!unify_data(c, sig->fst->fst->data, dt_dep_elem(c->tc, t, size_var(sc, k))) ||
      !unify_data(c, sig->snd->fst->data, t))
    INTERNAL("a fresh dependent map's type does not unify");
  return true;
}

bool dep_map_i_type(Checker *c, Env **envp, Phrase *fn, const DataType *t, const DataType *out_t, const Ast **f) {
  Sym k = row_name(c, envp, f, t, 2, prim_info[fn->prim].name);
  if (!k) return false;
  dep_row_given(c, fn, k);
  TypeCtx *tc = c->tc;
  /* (exp[a] -> acc[b] ->p comm) -> exp[[n]a] -> acc[[n]b] -> comm, a the
   * row k, and b too when the output is a dependent array (section 30.2) */
  PhraseType *accb = fn->type->fst->snd->fst;
  DataType *row = dt_dep_elem(tc, t, size_var(&tc->sizes, k));
  PhraseType *out = pt_acc(tc, dt_array(tc, t->size, accb->data));
  if (out_t && out_t->kind == DT_DEPARRAY) {
    accb = pt_acc(tc, dt_dep_elem(tc, out_t, size_var(&tc->sizes, k)));
    out = pt_acc(tc, (DataType *)out_t);
  }
  PhraseType *body = pt_fn(tc, pt_exp(tc, row), pt_fn_p(tc, accb, tc->t_comm));
  fn->type = pt_fn(tc, body, pt_fn(tc, pt_exp(tc, (DataType *)t), pt_fn(tc, out, tc->t_comm)));
  return true;
}

Sym row_name(Checker *c, Env **envp, const Ast **f, const DataType *t, int params, const char *name) {
  Env *env = *envp;
  /* the row's own size variable, named after the array's index with a
   * prime (i', then i'2, i'3 for the next maps of the translation: each
   * has its own, nested defs' too), and none that a name in scope has: a
   * program may write primes in its names too */
  Sym k;
  const Ast *lam = *f, *inner_lam = lam;
  int depth = 0;
  while (inner_lam && inner_lam->kind == AST_LAMBDA && depth <= params) inner_lam = inner_lam->body, depth++;
  if (depth > params) {
    /* \k row -> body: the program names the row, a size of body (and an
     * int where a value is expected, as a size is: section 12), as
     * shine's (k: nat) -> ... does */
    k = lam->bound;
    Env *outer = env_find(env, k);
    if (outer && outer->kind == ENV_SIZE) {
      check_error(c, ERR_DUPLICATE_NAME, lam->bound_span,
                  "the row '%s' of %s hides the size '%s': give it a name of its own", k, name, k);
      return NULL;
    }
    Env *inner = env_push(c, env, k, ENV_SIZE, NULL);
    inner->dep_index = true;
    *envp = inner;
    *f = lam->body;
  } else {
    do {
      int nth = ++c->tc->dep_rows;
      k = intern_cstr(c->in, nth == 1 ? arena_printf(c->arena, "%s'", t->name)
                                      : arena_printf(c->arena, "%s'%d", t->name, nth));
    } while (env_find(env, k));
  }
  return k;
}

/* Whether t's unknowns, if any, are all literals' scalar types (a data
 * metavariable of class MC_NUMERIC or MC_FLOATING): such a type becomes a
 * scalar or a vector of one, whose width is a constant, so it holds no
 * size and cannot come to use the row later; the dependent array keeps
 * the metavariable, which the context or the defaulting of literal types
 * solves (docs/reference.md section 4.5).  A row of literals alone,
 * row |> mapSeq (\p -> 1.0), is float by default as anywhere else
 * (tests/diff/regress/dep_row_of_literals.dpia; gen.py --seed 1002
 * --index 1727 --with depmaps was refused with E0303). */
static bool unknowns_are_scalars(const DataType *t) {
  t = dt_resolve((DataType *)t);
  switch (t->kind) {
  case DT_META: return t->meta->cls != MC_ANY;
  case DT_ARRAY:
  case DT_DEPARRAY: return !size_first_meta(t->size) && unknowns_are_scalars(t->elem);
  case DT_PAIR: return unknowns_are_scalars(t->fst) && unknowns_are_scalars(t->snd);
  case DT_IDX: return !size_first_meta(t->size);
  case DT_SCALAR:
  case DT_VAR: return true;
  }
  return true;
}

bool dep_map_result(Checker *c, Phrase *fn, int first_req, Span span) {
  PhraseType *sig = fn->type;
  DataType *n_rows = dt_resolve(zonk_phrase_type(c, sig->snd->fst)->data);
  if (!dep_requirements(c, first_req, n_rows->size, fn->dep_index)) return false;
  /* every row's value, of a type that may use the row: a dependent
   * array [n](\k -> b) when it does (section 30.2), [n]b when not */
  PhraseType *row = zonk_phrase_type(c, sig->fst->snd);
  bool dependent = dt_has_size_var(row->data, fn->dep_index);
  /* a dependent array is made of a type known to its sizes (dt_deparray) */
  if (dependent && !unknowns_are_scalars(row->data)) {
    TypeNamer tn;
    check_namer(c, &tn);
    check_error(c, ERR_CANNOT_INFER, span,
                "the type of the rows of %s is not known (%s) where the map is checked: annotate its function",
                prim_info[fn->prim].name, tn_data(&tn, row->data));
    return false;
  }
  DataType *result = dep_abstract(c, n_rows->size, fn->dep_index, fn->dep_index, row->data);
  return expect_type(c, span, sig->snd->snd, pt_exp(c->tc, result), NULL);
}

bool dep_join_result(Checker *c, Phrase *fn, Span span) {
  PhraseType *sig = zonk_phrase_type(c, fn->type); /* exp[c] -> exp[[m]a] */
  DataType *dep = dt_resolve(sig->fst->data);
  DataType *flat = dep->kind == DT_DEPARRAY ? dt_dep_join(c->tc, dep) : NULL;
  if (!flat) {
    TypeNamer tn;
    check_namer(c, &tn);
    check_error(c, ERR_BAD_DEP_JOIN, span,
                "depJoin joins the rows of a dependent array, [n](\\i -> [a + b*i]t), arrays of one element type "
                "t; this is %s%s",
                tn_data(&tn, dep),
                dep->kind == DT_ARRAY ? " (an array of equal rows: join it)" : "");
    return false;
  }
  /* the count is the rows' sizes added, each natural by the dependent
   * array's own requirements (check_written.c), and whole (k*(k-1) is
   * even): what the unification requires of it again (M*N*N - M*N >= 0
   * for rows of M*i) holds, and is dropped */
  int first_req = c->reqs.len;
  bool ok = expect_type(c, span, sig->snd, pt_exp(c->tc, flat), NULL);
  c->reqs.len = first_req;
  return ok;
}

/* ---- the rows' sizes stay in their functions (E0335) ---- */

typedef struct DepScope {
  Checker *c;
  Vec indices;  /* Sym: every dependent map's row size in the declaration */
  bool reported;
} DepScope;

static void collect(DepScope *s, const Phrase *p) {
  switch (p->kind) {
  case PH_PRIM:
    if (p->dep_index) vec_push(s->c->arena, &s->indices, (void *)p->dep_index);
    return;
  case PH_VAR:
  case PH_DEF: return;
  case PH_LIT:
    for (int i = 0; i < p->lit_nelems; i++) collect(s, p->lit_elems[i]);
    return;
  case PH_LAM: collect(s, p->body); return;
  case PH_PROJ:
  case PH_UNOP: collect(s, p->fst); return;
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP:
    collect(s, p->fst);
    collect(s, p->snd);
    return;
  case PH_COUNT: return;
  }
}

/* inside: the row sizes in scope here (the functions of the dependent maps
 * p is in), a list through the stack */
typedef struct Inside {
  Sym index;
  const struct Inside *next;
} Inside;

static bool in_scope(const Inside *in, Sym v) {
  for (; in; in = in->next)
    if (in->index == v) return true;
  return false;
}

static void walk(DepScope *s, const Phrase *p, const Inside *inside) {
  if (s->reported) return;
  /* the map's own primitive names its row in its function's type */
  if (!(p->kind == PH_PRIM && p->dep_index)) {
    for (int i = 0; i < s->indices.len; i++) {
      Sym k = s->indices.items[i];
      if (in_scope(inside, k) || !pt_has_size_var(p->type, k)) continue;
      TypeNamer tn;
      check_namer(s->c, &tn);
      check_error(s->c, ERR_DEP_INDEX_ESCAPES, p->span,
                  "this has type %s, whose sizes use the row of a dependent map (%s) outside the map's function: a "
                  "row's size is known only where the row is",
                  tn_phrase(&tn, p->type), tn_size(&tn, size_var(&s->c->tc->sizes, k)));
      s->reported = true;
      return;
    }
  }
  switch (p->kind) {
  case PH_PRIM:
  case PH_VAR:
  case PH_DEF:
  case PH_COUNT: return;
  case PH_LIT:
    for (int i = 0; i < p->lit_nelems; i++) walk(s, p->lit_elems[i], inside);
    return;
  case PH_LAM: walk(s, p->body, inside); return;
  case PH_PROJ:
  case PH_UNOP: walk(s, p->fst, inside); return;
  case PH_APP: {
    /* depMapSeq f xs, for n f, parfor out f: f is inside the row's scope
     * (the applications of the spine are not: their types name no row) */
    PhraseSpine sp;
    phrase_spine(s->c->arena, p, &sp);
    const Phrase *h = sp.head;
    if (h->kind == PH_PRIM && h->dep_index) {
      Inside row = {h->dep_index, inside};
      for (int i = 0; i < sp.nargs; i++) {
        PhraseKind k = sp.args[i]->type->kind;
        walk(s, sp.args[i], k == PT_FN || k == PT_FN_P ? &row : inside);
      }
      return;
    }
    walk(s, p->fst, inside);
    walk(s, p->snd, inside);
    return;
  }
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP:
    walk(s, p->fst, inside);
    walk(s, p->snd, inside);
    return;
  }
}

void dep_row_given(Checker *c, Phrase *fn, Sym k) {
  fn->dep_index = k;
  c->rows_given++;
}

void dep_scopes(Checker *c, const Phrase *body) {
  /* no primitive of the declaration was given a row: no type can name
   * one, and the walks below would find nothing (translation throughput:
   * most programs have no dependent map) */
  if (!c->rows_given) return;
  DepScope s = {.c = c};
  collect(&s, body);
  if (s.indices.len) walk(&s, body, NULL);
}

/* ---- idx of a dependent array ---- */

bool dep_idx_type(Checker *c, Env *env, Phrase *fn, Phrase *xs, const Ast *index) {
  /* idx of an expression, idxAcc of an acceptor (a dependent map's output
   * row, section 30.2) */
  PhraseKind kind = fn->prim == PRIM_IDX_ACC ? PT_ACC : PT_EXP;
  DataType *t = xs->type->kind == kind ? dt_resolve(xs->type->data) : NULL;
  if (!t || t->kind != DT_DEPARRAY) return true; /* the signature's: idx of an array */
  /* the row at an index that is a size: a loop's (row_loop) */
  Env *found = index && index->kind == AST_VAR ? env_find(env, index->name) : NULL;
  if (!found || found->kind != ENV_BINDER || !found->dep_index) {
    check_error(c, ERR_DEP_ARRAY_INDEX, index ? index->span : xs->span,
                "a row of a dependent array is taken at the index of a loop, whose rows' sizes it names (for n (\\i "
                "-> ... idx xs i ...)): its type depends on the row");
    return false;
  }
  found->used_as_size = true;
  dep_row_given(c, fn, index->name); /* the row it takes */
  SizeCtx *sc = &c->tc->sizes;
  /* exp[[n]a] -> exp[idx[n]] -> exp[a], or acc[...] -> ... -> acc[a] */
  TypeCtx *tc = c->tc;
  DataType *row = dt_dep_elem(tc, t, size_var(sc, index->name));
  PhraseType *whole = kind == PT_ACC ? pt_acc(tc, t) : pt_exp(tc, t);
  PhraseType *part = kind == PT_ACC ? pt_acc(tc, row) : pt_exp(tc, row);
  fn->type = pt_fn(tc, whole, pt_fn(tc, pt_exp(tc, dt_idx(tc, t->size)), part));
  return true;
}

bool dep_parfor_type(Checker *c, Phrase *fn, Phrase *out, Sym k) {
  DataType *t = out->type->kind == PT_ACC ? dt_resolve(out->type->data) : NULL;
  if (!t || t->kind != DT_DEPARRAY) return false;
  /* acc[T] -> (exp[idx[n]] -> acc[T's row k] ->p comm) -> comm */
  TypeCtx *tc = c->tc;
  PhraseType *row = pt_acc(tc, dt_dep_elem(tc, t, size_var(&tc->sizes, k)));
  PhraseType *body = pt_fn(tc, pt_exp(tc, dt_idx(tc, t->size)), pt_fn_p(tc, row, tc->t_comm));
  fn->type = pt_fn(tc, out->type, pt_fn(tc, body, tc->t_comm));
  return true;
}
