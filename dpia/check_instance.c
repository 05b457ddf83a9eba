/* check_instance.c: the checker's shortcut for views applied to what is
 * known (translation throughput, issue 35).
 *
 * elab_app's general path elaborates `split 64 xs` as: the primitive's
 * instance, exp[[?n*64]?a] -> exp[[?n][64]?a], of fresh metavariables
 * (prim_type.c, cook); the argument checked against the parameter, which
 * unifies them (?n := N/64, ?a := float); deferred constraints woken; and,
 * at the declaration's end, every type holding ?n or ?a zonked.  Where
 * the application is a view (zip, split, join, asVector, fst, ...) of
 * variables whose types are known and of such applications, each
 * instance is matched against its arguments' types instead, innermost
 * first (prim_type.c, instance_begin), and every type made is ground: no
 * metavariable is made, unified or zonked.
 *
 * It must leave behind what the general path leaves, for every output to
 * stay the same (tests/check/shortcuts.py compares the two on the samples,
 * the tests and random programs): the phrases (the same tree, types equal
 * to the general path's zonks), the requirements in the general path's
 * order (an instance's, then each argument's, then what unifying that
 * argument solved), the metavariables' numbering (counted, not made), and
 * no error.  Whatever the general path would do otherwise, the shortcut
 * does not try: a variable of a type not known, an argument that is not a
 * view or a variable, a size it would postpone or a mismatch it would
 * report, a pending deferred constraint the general path's wakes could
 * settle meanwhile.  It then takes back what it recorded and elab_app
 * elaborates the application as before, messages and all. */
#include "check_int.h"

/* A static size written after a view, as conv_size makes it, where that
 * records nothing (a constant, a nat parameter, + and * of them): false
 * for anything else (a loop's index, a difference or quotient, which
 * require, or an error) */
static bool plain_size(Checker *c, Env *env, const SizeAst *s, Size *out) {
  SizeCtx *sc = &c->tc->sizes;
  switch (s->kind) {
  case SZA_NUM:
    if (s->num > INT64_MAX) return false;
    *out = size_const(sc, (int64_t)s->num);
    return true;
  case SZA_VAR: {
    Env *e = env_find(env, s->name);
    if (!e || e->kind != ENV_SIZE) return false;
    *out = e->fixed ? size_const(sc, e->value) : size_var(sc, s->name);
    return true;
  }
  case SZA_ADD:
  case SZA_MUL: {
    Size a, b;
    if (!plain_size(c, env, s->lhs, &a) || !plain_size(c, env, s->rhs, &b)) return false;
    *out = s->kind == SZA_ADD ? size_add(sc, a, b) : size_mul(sc, a, b);
    return !sc->overflow;
  }
  case SZA_SUB:
  case SZA_DIV:
  case SZA_MOD:
  case SZA_CEIL:
  case SZA_FLOOR: break;
  }
  return false;
}

/* A variable of known type, as elab_var makes it: a value bound by a
 * lambda or let whose type has no metavariable left (its zonk is
 * ground), *type that zonk; NULL for any other name */
static Phrase *known_var(Checker *c, Env *env, const Ast *e, DataType **type) {
  Env *found = env_find(env, e->name);
  if (!found || found->kind != ENV_BINDER || found->literal || !found->binder) return NULL;
  Binder *b = found->binder;
  if (!b->type || b->type->kind != PT_EXP) return NULL;
  DataType *t = zonk_data_type(c, b->type->data);
  if (!t->ground) return NULL;
  Phrase *p = check_mk(c, PH_VAR, e->span, b->type);
  p->binder = b;
  *type = t;
  return p;
}

/* whether each argument could be matched: a variable, or an application
 * of a view (checked before anything is made or recorded, as most
 * applications that are not matched are not for this) */
static bool plain_args(const Ast *e) {
  for (; e->kind == AST_APP; e = e->lhs) {
    const Ast *a = e->rhs;
    if (a->kind == AST_VAR) continue;
    if (a->kind != AST_APP) return false;
    while (a->kind == AST_APP) a = a->lhs;
    if (a->kind != AST_PRIM || !check_shortcut_prim(a->prim)) return false;
  }
  return true;
}

/* elab_prim's phrase of the primitive head, its sizes plain (no
 * metavariable: plain_size); NULL where one is not, or where a size that
 * must be positive is not (the general path reports those) */
static DPIA_ALWAYS_INLINE Phrase *head_phrase(Checker *c, Env *env, const Ast *head) {
  const PrimInfo *info = &prim_info[head->prim];
  Phrase *fn = check_mk(c, PH_PRIM, head->span, NULL);
  fn->prim = head->prim;
  fn->dim = head->dim;
  fn->volatile_new = head->volatile_new;
  for (int i = 0; i < info->nsizes; i++) {
    int64_t v;
    if (!plain_size(c, env, head->sizes[i], &fn->sizes[i])) return NULL;
    if (!(info->flags & PF_ZERO_SIZES) && size_const_value(fn->sizes[i], &v) && v < 1) return NULL;
  }
  return fn;
}

/* The application e at nesting level (elab_app's depth beyond the
 * caller's), elaborated by matching, with a ground type; NULL where the
 * shortcut does not apply (what it recorded is taken back by
 * check_shortcut) */
static Phrase *matched_app(Checker *c, Env *env, const Ast *e, int level, int room) {
  const Ast *args[INSTANCE_MAX_ARGS];
  Span spans[INSTANCE_MAX_ARGS];
  int nargs = 0;
  const Ast *head = e;
  for (; head->kind == AST_APP; head = head->lhs) nargs++;
  if (head->kind != AST_PRIM || nargs > INSTANCE_MAX_ARGS || !check_shortcut_prim(head->prim) || level >= room ||
      !instance_covers(head->prim, nargs) || !plain_args(e))
    return NULL;
  const Ast *a = e;
  for (int i = nargs - 1; i >= 0; i--, a = a->lhs) {
    args[i] = a->rhs;
    spans[i] = a->span;
  }
  Phrase *fn = head_phrase(c, env, head);
  if (!fn) return NULL;
  InstanceMatch m;
  m.partial = false;
  if (!instance_begin(c, fn->prim, fn->sizes, nargs, head->span, &m)) return NULL;
  Phrase *elab[INSTANCE_MAX_ARGS];
  DataType *types[INSTANCE_MAX_ARGS];
  for (int i = 0; i < nargs; i++) {
    /* apply_spine checks each argument against its parameter: an
     * application there unifies its type with it last, a variable is
     * inferred and unified */
    if (args[i]->kind == AST_APP) {
      elab[i] = matched_app(c, env, args[i], level + 1, room);
      types[i] = elab[i] ? elab[i]->type->data : NULL;
    } else if (args[i]->kind == AST_VAR && level + 1 < room) {
      elab[i] = known_var(c, env, args[i], &types[i]);
    } else {
      elab[i] = NULL;
    }
    if (!elab[i] || !instance_arg(c, &m, types[i])) return NULL;
  }
  fn->type = instance_end(c, &m, types);
  if (!fn->type) return NULL;
  /* apply_spine's spine: each application's type the rest of fn's */
  Phrase *p = fn;
  PhraseType *r = fn->type;
  for (int i = 0; i < nargs; i++) {
    r = r->snd;
    Phrase *app = check_mk(c, PH_APP, spans[i], r);
    app->fst = p;
    app->snd = elab[i];
    p = app;
  }
  return p;
}

/* whether wake_deferred would leave every pending constraint as it is:
 * each waits for one of two unknowns (its first test).  The general
 * path's wakes inside the application would act on one that does not */
static bool deferred_waiting(const Checker *c) {
  for (int i = 0; i < c->deferred.len; i++) {
    const Deferred *d = c->deferred.items[i];
    if (!d->done && (dt_resolve(d->a)->kind != DT_META || dt_resolve(d->b)->kind != DT_META)) return false;
  }
  return true;
}

bool check_shortcut(Checker *c, Env *env, const Ast *e, PhraseType *want, Phrase **out) {
  const Ast *head = e;
  while (head->kind == AST_APP) head = head->lhs;
  if (head->kind != AST_PRIM || c->tc->no_shortcuts || !check_shortcut_prim(head->prim)) return false;
  /* unify_size says nothing more after an error; asVector's vector is
   * made at its own wake, after its type has met want (a class of want
   * could refuse it there, with that wake's message) */
  if (c->failed || c->tc->sizes.overflow || (want && instance_defers(head->prim)) || !deferred_waiting(c)) return false;
  int nreqs = c->reqs.len, nsize_metas = c->size_metas.len, next_meta = c->tc->next_meta;
  /* elab_app counts a level for each application below e, infer one more
   * for a variable: no deeper than its limit (e's own level counted) */
  int room = diag_depth_limit(c->diag, DPIA_MAX_NESTING * 4) - c->depth;
  Phrase *p = matched_app(c, env, e, 0, room);
  if (!p || c->tc->sizes.overflow) {
    c->reqs.len = nreqs;
    c->size_metas.len = nsize_metas;
    c->tc->next_meta = next_meta;
    c->tc->sizes.overflow = false;
    return false;
  }
  /* the rest of apply_spine for e: want, then the wake */
  if (want && !expect_type(c, e->span, want, p->type, NULL)) p = NULL;
  wake_deferred(c);
  *out = p;
  return true;
}

/* a number literal (or its negation): elaborated by apply_spine, it
 * records no requirement and makes one metavariable */
static bool number_literal(const Ast *e) {
  const Ast *num = e->kind == AST_NEG ? e->lhs : e;
  return num->kind == AST_INT || num->kind == AST_FLOAT;
}

/* the primitives taking functions that elab_app applies with no case of
 * its own (not a dependent map, whose function gets a row's type) */
static bool partial_prim(Prim p) {
  const PrimInfo *info = &prim_info[p];
  switch (info->family) {
  case PFAM_MAP: return p != PRIM_DEP_MAP_SEQ && p != PRIM_DEP_MAP_GLOBAL && p != PRIM_DEP_MAP_WORKGROUP;
  case PFAM_REDUCE:
  case PFAM_SCAN:
  case PFAM_MEMORY: return (info->flags & PF_FUNC) && !info->takes_type;
  default: return false;
  }
}

static DPIA_ALWAYS_INLINE bool body_first(Checker *c, Env *env, const Ast *lambda, InstanceMatch *m, Phrase **lam);

Phrase *check_partial(Checker *c, Env *env, const Ast *e, PhraseType *want, int *at, Phrase **ready, Phrase **lam) {
  *lam = NULL;
  const Ast *args[INSTANCE_MAX_ARGS];
  int nargs = 0;
  const Ast *head = e;
  for (; head->kind == AST_APP; head = head->lhs) nargs++;
  bool late[INSTANCE_MAX_ARGS];
  if (head->kind != AST_PRIM || c->tc->no_shortcuts || nargs > INSTANCE_MAX_ARGS || !partial_prim(head->prim) ||
      !instance_partial(head->prim, nargs, late))
    return NULL;
  const Ast *a = e;
  for (int i = nargs - 1; i >= 0; i--, a = a->lhs) args[i] = a->rhs;
  /* the last value, elaborated here: the values before it (apply_spine
   * elaborates them before it) only number literals, and then it a
   * variable, so that nothing is recorded or numbered out of order */
  int k = nargs - 1;
  while (k >= 0 && late[k]) k--;
  if (k < 0) return NULL;
  bool before = false;
  for (int i = 0; i < k; i++) {
    if (late[i]) continue;
    if (!number_literal(args[i])) return NULL;
    before = true;
  }
  const Ast *x = args[k];
  bool app = x->kind == AST_APP;
  if (app) {
    const Ast *h = x;
    while (h->kind == AST_APP) h = h->lhs;
    if (before || h->kind != AST_PRIM || !check_shortcut_prim(h->prim) || !plain_args(x)) return NULL;
  } else if (x->kind != AST_VAR) {
    return NULL;
  }
  /* as check_shortcut, for the argument matched as it would be there */
  if (c->failed || c->tc->sizes.overflow || (app && !deferred_waiting(c))) return NULL;
  int nreqs = c->reqs.len, nsize_metas = c->size_metas.len, next_meta = c->tc->next_meta;
  int room = diag_depth_limit(c->diag, DPIA_MAX_NESTING * 4) - c->depth;
  const PrimInfo *info = &prim_info[head->prim];
  Phrase *fn = head_phrase(c, env, head);
  InstanceMatch m;
  m.partial = true;
  DataType *types[INSTANCE_MAX_ARGS] = {0};
  Phrase *elab = NULL;
  if (fn && instance_begin(c, fn->prim, fn->sizes, nargs, head->span, &m)) {
    if (app) {
      elab = matched_app(c, env, x, 1, room);
      types[k] = elab ? elab->type->data : NULL;
    } else if (1 < room) {
      elab = known_var(c, env, x, &types[k]);
    }
    if (elab && instance_arg_at(c, &m, k, types[k]) && !c->tc->sizes.overflow) {
      /* a map's lambda, its body first: the instance then has no
       * metavariable (body_first) */
      if (!want && info->family == PFAM_MAP && nargs == 2 && k == 1 && args[0]->kind == AST_LAMBDA) {
        if (app) wake_deferred(c);
        app = false;
        body_first(c, env, args[0], &m, lam);
      }
      fn->type = instance_end(c, &m, types);
      if (*lam && !fn->type) INTERNAL("a map's instance not made after its function");
    }
  }
  if (!fn || !fn->type) {
    c->reqs.len = nreqs;
    c->size_metas.len = nsize_metas;
    c->tc->next_meta = next_meta;
    c->tc->sizes.overflow = false;
    return NULL;
  }
  /* the rest of the argument's apply_spine: its type met the parameter,
   * then the wake */
  if (app) wake_deferred(c);
  *at = k;
  *ready = elab;
  return fn;
}

/* ---- a view of an application the general path elaborates ----
 *
 * `join (mapWorkgroup f xs)`, `asScalar (join ...)`: elab_app's general
 * path makes the view's instance (exp[[?n][?m]?a] -> ...), checks the
 * map against its parameter, which apply_spine unifies with the map's
 * type before the map's function is checked (?n := the map's size, ?b :=
 * [?m]?a), and the function's body then solves ?m and ?a; at the
 * declaration's end every type holding them is zonked.  Here the map is
 * elaborated first, as if nothing were wanted of it (its function's body
 * against its own ?b), and the view's instance is matched against the
 * map's type once its sizes are known (a data metavariable left, a
 * literal's type defaulted at the end, is matched by a name not known, as
 * unifying binds it), as check_shortcut matches one against a variable's.  What the parameter could tell the map before its function
 * is checked is only a shape (the view's metavariables are fresh, and its
 * want meets it after the map): a map the general path accepts gets the
 * same types either way, the unifications done in another order.  Where
 * that order shows, the general path's traces are kept: the view's
 * metavariables are counted before the map makes its own; the
 * requirement that solving ?n records is put where apply_spine would have
 * recorded it (Checker.want_mark), and the others (?m := 64, asScalar's
 * width), recorded inside the function's body by the general path, are
 * allowed only where their place cannot matter (inert).  Anything else:
 * an error inside the map, a size not known, a mismatch, a requirement
 * that is not inert, a metavariable outside the map that the map could
 * solve (a binder in scope of a type not known, a pending constraint or
 * postponed equation) takes back everything the map's elaboration did
 * and leaves the application to the general path, which reports the
 * error.  A declaration not checked yet is not checked at its first use
 * inside (Checker.speculating): that could not be taken back. */

void check_want_mark(Checker *c, const PhraseType *t) {
  c->want_mark = c->reqs.len;
  c->want_mark_ok = false;
  if (t->kind != PT_EXP) return;
  DataType *d = dt_resolve(t->data);
  /* apply_spine would solve the view's outermost size there, and bind
   * the fresh ?b to the rest of its parameter, recording nothing else */
  if (d->kind != DT_ARRAY || dt_resolve(d->elem)->kind != DT_META) return;
  c->want_mark_ok = !size_first_meta(zonk_data_type(c, d)->size);
}

/* a requirement whose settling does nothing wherever it stands: a
 * polynomial of nonnegative whole coefficients (a constant among them),
 * no metavariable (settle_requirement: no divisibility, no negative
 * part, no message, nothing for a later repeat to be compared with but
 * another such size) */
static bool inert_requirement(const Requirement *r) {
  if (r->kind != REQ_NATURAL || size_first_meta(r->size)) return false;
  for (int i = 0; i < r->size.nterms; i++) {
    const SizeTerm *t = &r->size.terms[i];
    if (t->num < 0 || t->den != 1) return false;
  }
  return true;
}

/* whether every binder in scope has a type with no metavariable: the
 * argument's elaboration then solves none made outside it */
static bool env_ground(Checker *c, Env *env) {
  for (Env *e = env; e; e = e->next)
    if (e->kind == ENV_BINDER && e->binder && (!e->binder->type || !zonk_phrase_type(c, e->binder->type)->ground))
      return false;
  return true;
}

/* the argument's head: a map (not dependent, whose function gets a row's
 * type) or a view that does not defer (the general path checks asVector
 * against the parameter by its own wake) */
static bool view_of_app_arg(Prim p) {
  const PrimInfo *info = &prim_info[p];
  if (info->family == PFAM_MAP) return p != PRIM_DEP_MAP_SEQ && p != PRIM_DEP_MAP_GLOBAL && p != PRIM_DEP_MAP_WORKGROUP;
  return check_shortcut_prim(p) && !instance_defers(p);
}

/* whether e was elaborated here before and taken back: the general path
 * elaborates it (and what it holds) again, not this once more, so that
 * nested ones that fail cost a constant factor, not one per level */
static bool tried_before(const Checker *c, const Ast *e) {
  for (int i = 0; i < c->tried.len; i++)
    if (c->tried.items[i] == e) return true;
  return false;
}

/* whether every size in t is free of metavariables */
static bool sizes_known(DataType *t) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_ARRAY: return !size_first_meta(t->size) && sizes_known(t->elem);
  case DT_IDX: return !size_first_meta(t->size);
  case DT_PAIR: return sizes_known(t->fst) && sizes_known(t->snd);
  case DT_SCALAR:
  case DT_VAR:
  case DT_META: return true;
  case DT_DEPARRAY: break;
  }
  return false;
}

/* what the argument's elaboration may change, to take it back */
typedef struct CheckState {
  int nreqs, nsize_metas, ndeferred, nlits, next_meta, nmetas, metas_solved, next_binder, dep_rows, rows_given;
  const Ast *loop_lambda, *loop_sized;
  Span unify_span;
  DiagMark diag;
} CheckState;

static CheckState check_state(const Checker *c) {
  return (CheckState){c->reqs.len,        c->size_metas.len,    c->deferred.len,      c->lits.len,
                      c->tc->next_meta,   c->tc->metas.len,     c->tc->metas_solved,  c->tc->next_binder,
                      c->tc->dep_rows,    c->rows_given,        c->loop_lambda,       c->loop_sized,
                      c->unify_span,      diag_mark(c->diag)};
}

static void restore_state(Checker *c, const CheckState *s) {
  c->reqs.len = s->nreqs;
  c->size_metas.len = s->nsize_metas;
  c->deferred.len = s->ndeferred;
  c->postponed.len = 0;
  c->lits.len = s->nlits;
  c->tc->next_meta = s->next_meta;
  c->tc->metas.len = s->nmetas;
  /* the metavariables before it are solved as they were */
  if (c->tc->metas_solved > s->nmetas) c->tc->metas_solved = s->nmetas;
  c->tc->next_binder = s->next_binder;
  c->tc->dep_rows = s->dep_rows;
  c->rows_given = s->rows_given;
  c->loop_lambda = s->loop_lambda;
  c->loop_sized = s->loop_sized;
  c->unify_span = s->unify_span;
  diag_rewind(c->diag, &s->diag);
  c->failed = false;
  c->tc->sizes.overflow = false;
  /* zonks memoized meanwhile may hold the metavariables taken back */
  c->zonk_memo->solved++;
}

bool check_view_of_app(Checker *c, Env *env, const Ast *e, PhraseType *want, Phrase **out) {
  const Ast *head = e->lhs, *x = e->rhs;
  if (head->kind != AST_PRIM || x->kind != AST_APP || c->tc->no_shortcuts) return false;
  const Ast *xh = x;
  while (xh->kind == AST_APP) xh = xh->lhs;
  if (xh->kind != AST_PRIM || !view_of_app_arg(xh->prim) || !instance_covers(head->prim, 1)) return false;
  /* as check_shortcut: asScalar's vector is made at its own wake, after
   * its type has met want */
  if (c->failed || c->tc->sizes.overflow || (want && instance_defers(head->prim)) || !deferred_waiting(c) ||
      c->postponed.len > 0 || tried_before(c, e) || !env_ground(c, env))
    return false;
  CheckState saved = check_state(c);
  Phrase *fn = head_phrase(c, env, head);
  if (!fn) return false;
  InstanceMatch m;
  m.partial = false;
  if (!instance_begin(c, fn->prim, fn->sizes, 1, head->span, &m) || !instance_param_solvable(&m)) {
    restore_state(c, &saved);
    return false;
  }
  bool outer_unknown = instance_outer_unknown(&m);
  /* the argument as apply_spine checks it (a view's parameter is no math
   * primitive's float), at the depth its elab_app has there */
  int mark_depth = c->mark_depth, want_mark = c->want_mark;
  bool want_mark_ok = c->want_mark_ok;
  const Phrase *floating = c->floating_arg_of;
  c->mark_depth = c->depth + 1;
  c->want_mark = -1;
  c->floating_arg_of = NULL;
  int errors = c->diag->nerrors;
  c->speculating++;
  Phrase *arg = check_app(c, env, x, NULL);
  c->speculating--;
  int mark = c->want_mark;
  bool mark_ok = c->want_mark_ok;
  c->mark_depth = mark_depth;
  c->want_mark = want_mark;
  c->want_mark_ok = want_mark_ok;
  c->floating_arg_of = floating;
  DataType *t = NULL;
  if (arg && !c->failed && c->diag->nerrors == errors && !c->tc->sizes.overflow && (mark < 0 || mark_ok)) {
    /* data metavariables (a literal's type, defaulted at the end) are
     * matched as the general path unifies them, by a name not known; a
     * size not known is not */
    PhraseType *pt = zonk_phrase_type(c, arg->type);
    if (pt->kind == PT_EXP && (pt->ground || sizes_known(pt->data))) t = pt->data;
  }
  int first = c->reqs.len;
  PhraseType *type = t && instance_arg(c, &m, t) ? instance_end(c, &m, &t) : NULL;
  if (type && !c->tc->sizes.overflow && mark >= 0) {
    /* the outermost size's requirement where apply_spine recorded it,
     * the rest inert */
    if (outer_unknown && first < c->reqs.len) {
      void *outer = c->reqs.items[first];
      memmove(&c->reqs.items[mark + 1], &c->reqs.items[mark], sizeof(void *) * (size_t)(first - mark));
      c->reqs.items[mark] = outer;
      first++;
    } else if (outer_unknown) {
      type = NULL;
    }
    for (int i = first; i < c->reqs.len && type; i++)
      if (!inert_requirement(c->reqs.items[i])) type = NULL;
  }
  if (!type || c->tc->sizes.overflow) {
    restore_state(c, &saved);
    vec_push(c->arena, &c->tried, (void *)e);
    return false;
  }
  fn->type = type;
  Phrase *p = check_mk(c, PH_APP, e->span, type->snd);
  p->fst = fn;
  p->snd = arg;
  /* the rest of apply_spine: want, then the wake */
  if (want && !expect_type(c, e->span, want, p->type, NULL)) p = NULL;
  wake_deferred(c);
  *out = p;
  return true;
}

/* ---- a map's function checked before the map's instance is made ----
 *
 * `mapLocal (\zs -> body) xs` whose xs is known (check_partial): the
 * general path makes the instance with a metavariable ?b for what the
 * function gives, checks body against exp[?b] (apply_spine), and zonks
 * every type holding ?b at the declaration's end.  ?b is fresh and in
 * nothing the body can reach (the lambda's parameter has xs's element
 * type), so checking body against it only binds it to body's type: here
 * body is inferred, and ?b read off its type (bound to it, metavariables
 * and all, where a literal's is left), as check_view_of_app reads a
 * view's names off its argument's.  The map's
 * instance then has no metavariable, and ?b's number is counted as
 * instance_begin counts it.  Nothing is recorded between: the xs's wake
 * and apply_spine's (and want, which this takes only where there is
 * none) come before the lambda in both, Checker.want_mark is kept where
 * apply_spine keeps it.  Anything else (an error in the body, a body
 * that is no value, and every condition of check_view_of_app's) takes
 * back what the body's elaboration did, and the general path checks the
 * lambda. */
static DPIA_ALWAYS_INLINE bool body_first(Checker *c, Env *env, const Ast *lambda, InstanceMatch *m, Phrase **lam) {
  if (c->failed || c->tc->sizes.overflow || !deferred_waiting(c) || c->postponed.len > 0 ||
      lambda->body->kind == AST_LAMBDA || lambda->body->kind == AST_COMPOSE)
    return false;
  PhraseType *param = instance_late_param(c, m, 0);
  if (!param || tried_before(c, lambda) || !env_ground(c, env)) return false;
  /* apply_spine's wake after the values; its mark for a view of this map */
  wake_deferred(c);
  int want_mark = c->want_mark;
  bool want_mark_ok = c->want_mark_ok;
  if (c->mark_depth == c->depth && c->want_mark < 0) {
    Size n;
    c->want_mark = c->reqs.len;
    c->want_mark_ok = instance_result_size(c, m, &n) && !size_first_meta(n);
  }
  CheckState saved = check_state(c);
  int errors = c->diag->nerrors;
  c->speculating++;
  Phrase *p = check_lambda(c, env, lambda, param);
  c->speculating--;
  DataType *t = NULL;
  /* ?b bound to the body's type: one not ground (a literal's, defaulted
   * at the declaration's end) is bound as well, its metavariables the
   * body's own */
  if (p && !c->failed && c->diag->nerrors == errors && !c->tc->sizes.overflow && p->body->type->kind == PT_EXP)
    t = zonk_data_type(c, p->body->type->data);
  if (!t || !instance_late_result(c, m, 0, t) || c->tc->sizes.overflow) {
    restore_state(c, &saved);
    vec_push(c->arena, &c->tried, (void *)lambda);
    c->want_mark = want_mark;
    c->want_mark_ok = want_mark_ok;
    return false;
  }
  /* apply_spine's wake after the lambda */
  wake_deferred(c);
  *lam = p;
  return true;
}

/* ---- a map's partial application as a function argument ----
 *
 * `toLocal (mapLocal (\zs -> body)) xs` (docs/language.md's toLocal
 * stage): check_partial matches toLocal's instance against xs, so
 * apply_spine checks `mapLocal (\zs -> body)` against exp[[n]d] ->
 * exp[?r], d and n known, ?r toLocal's result (a fresh ?r, or [?m]?e
 * once what toLocal's application is wanted as met it).  The general
 * path makes mapLocal's instance of fresh metavariables, unifies its type
 * with that want (?n := n, ?a := d, ?r with [n]?b), then checks the
 * lambda against exp[d] -> exp[?b], and zonks every type holding them at
 * the declaration's end.  Here the instance is matched against [n]d, as
 * check_partial matches a map's against its array, the lambda's body
 * checked first (body_first, ?b read off the body's type), and the
 * map's ground type then meets the want.  That unification cannot fail
 * (?r is a metavariable of no class, or an array of a metavariable size
 * and such an element), and the general path's traces are kept: the
 * instance's metavariables counted before the body makes its own; its
 * requirements (n's) recorded before the body's as apply_spine's
 * unification records them; the body's, recorded before ?r's where the
 * general path records them after, allowed only where their place cannot
 * matter (inert); no deferred constraint pending (the general path binds
 * ?r's parts inside the body, where a wake could act on them).  Anything
 * else takes back what the body's elaboration did, and the general path
 * checks the application. */

/* whether unifying t with an array of a known size and element, ground,
 * solves only metavariables of no class */
static bool open_result(Checker *c, DataType *t) {
  t = dt_resolve(t);
  if (t->kind == DT_META) return t->meta->cls == MC_ANY;
  if (t->kind != DT_ARRAY) return false;
  DataType *elem = dt_resolve(t->elem);
  Sym n = size_lone_var(zonk_size(c, t->size));
  return n && n[0] == '?' && elem->kind == DT_META && elem->meta->cls == MC_ANY;
}

DPIA_NOINLINE bool check_map_function(Checker *c, Env *env, const Ast *e, PhraseType *want, Phrase **out) {
  const Ast *head = e->lhs, *lambda = e->rhs;
  bool late[INSTANCE_MAX_ARGS];
  if (c->tc->no_shortcuts || !want || want->kind != PT_FN || head->kind != AST_PRIM || lambda->kind != AST_LAMBDA ||
      prim_family(head->prim) != PFAM_MAP || instance_partial(head->prim, 2, late) != 2 ||
      !late[0] || late[1] || want->fst->kind != PT_EXP || !want->snd || want->snd->kind != PT_EXP)
    return false;
  if (c->failed || c->tc->sizes.overflow || c->postponed.len > 0 || c->mark_depth == c->depth || tried_before(c, lambda))
    return false;
  for (int i = 0; i < c->deferred.len; i++)
    if (!((const Deferred *)c->deferred.items[i])->done) return false;
  DataType *xs = zonk_data_type(c, want->fst->data);
  if (!xs->ground || !open_result(c, want->snd->data)) return false;
  int nreqs = c->reqs.len, nsize_metas = c->size_metas.len, next_meta = c->tc->next_meta;
  /* elab_prim's phrase (a map has no static size) */
  Phrase *fn = check_mk(c, PH_PRIM, head->span, NULL);
  fn->prim = head->prim;
  fn->dim = head->dim;
  fn->volatile_new = head->volatile_new;
  InstanceMatch m;
  m.partial = true;
  DataType *types[2] = {NULL, xs};
  Phrase *lam = NULL;
  if (instance_begin(c, fn->prim, fn->sizes, 2, head->span, &m) && instance_arg_at(c, &m, 1, xs) &&
      !c->tc->sizes.overflow) {
    int body_reqs = c->reqs.len;
    CheckState saved = check_state(c);
    if (body_first(c, env, lambda, &m, &lam)) {
      for (int i = body_reqs; i < c->reqs.len && lam; i++)
        if (!inert_requirement(c->reqs.items[i])) lam = NULL;
      if (!lam) {
        restore_state(c, &saved);
        vec_push(c->arena, &c->tried, (void *)lambda);
      }
    }
    if (lam) {
      fn->type = instance_end(c, &m, types);
      if (!fn->type) INTERNAL("a map's instance not made after its function");
    }
  }
  if (!lam) {
    c->reqs.len = nreqs;
    c->size_metas.len = nsize_metas;
    c->tc->next_meta = next_meta;
    c->tc->sizes.overflow = false;
    return false;
  }
  Phrase *p = check_mk(c, PH_APP, e->span, fn->type->snd);
  p->fst = fn;
  p->snd = lam;
  if (!expect_type(c, e->span, want, p->type, NULL)) INTERNAL("a map's function did not meet its open want");
  wake_deferred(c);
  *out = p;
  return true;
}
