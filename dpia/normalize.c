/* normalize.c: inlining of defs and beta-normalisation.
 *
 * DPIA has no recursion, so every program normalises to one without
 * lambdas except those passed to primitives (the subformula property the
 * paper relies on in section 4.1).  let-bound and def-bound phrases are
 * substituted, not shared (spec section 2).  Substituting a phrase into
 * several places copies it with fresh binders, so every binder of the
 * result is bound exactly once: code generation can name variables after
 * their binders. */
#include "check.h"

typedef struct BindMap BindMap;
struct BindMap {
  const Binder *from;
  Phrase *to; /* the replacement: itself at its first use, copied again
                 (fresh binders) at each other one */
  bool fresh_var; /* to is a VAR of a fresh binder: no need to copy again */
  bool used;      /* to itself is in the result */
  BindMap *next;
  /* to is put at every use as it is (Norm.share_values): 0 not known yet,
   * 1 yes (it holds no lambda), -1 no */
  signed char share;
};

typedef struct Norm {
  Arena *arena;
  TypeCtx *tc;
  Diag *diag;
  long nodes;
  /* phrases norm_node walked: with nodes, a bound on the distinct nodes of
   * the result, hence on its depth (normalize_phrase) */
  long visits;
  bool too_big;
  Span where;
  /* recursion depth of copy and norm, which bounds the depth of the
   * result; normalize_phrase limits it (the later stages recurse on it) */
  int depth, max_depth;
  bool too_deep;
  int run; /* this normalisation's Phrase.normal_run */
  /* the earlier run whose marks this one takes as its own (-1: none), and
   * the nodes that run walked and made (normalize_phrase_again) */
  int trust;
  long trust_reach;
  /* while a prelude def's body is copied: the span of its use, which every
   * node of the copy takes, so that a diagnostic about it (the strategy
   * check's, code generation's) points at the program's call of the def,
   * never into source the program does not contain (prelude.c) */
  const Span *relocate;
  const DefInfo *relocate_def; /* that def (Phrase.prelude) */
  /* subst_shared: a path's new phrase keeps the mark of the one it
   * replaces (phrase_subst_shared_many) */
  bool keep_marks;
  /* subst_shared: a value that holds no lambda goes to each of its uses
   * as it is, not copied (phrase_subst_shared_many) */
  bool share_values;
} Norm;

/* Enter one level of recursion; false (and the phrase counts as too big,
 * so that every caller unwinds) past the depth limit. */
static bool enter(Norm *n) {
  if (n->max_depth && n->depth >= n->max_depth) {
    n->too_deep = n->too_big = true;
    return false;
  }
  n->depth++;
  return true;
}

static Phrase *node(Norm *n, const Phrase *like, PhraseType *type) {
  if (++n->nodes > DPIA_MAX_NORMAL_NODES) n->too_big = true;
  Phrase *p = arena_dup(n->arena, like, sizeof *like);
  p->normal_run = 0; /* not known to be normal: a copy may hold a redex */
  p->type = type;
  if (n->relocate) {
    p->span = *n->relocate;
    p->prelude = n->relocate_def;
  }
  return p;
}

static Binder *fresh_binder(Norm *n, const Binder *b, PhraseType *type) {
  Binder *c = arena_dup(n->arena, b, sizeof *b);
  c->type = type;
  c->id = ++n->tc->next_binder;
  c->nuses = 0; /* its variables here are not the builder's */
  c->sole_use = NULL;
  if (n->relocate) c->span = *n->relocate;
  return c;
}

/* a lambda anywhere in p */
static bool holds_lambda(const Phrase *p) {
  for (;;) {
    switch (p->kind) {
    case PH_VAR:
    case PH_LIT: /* an array literal's elements are scalar literals */
    case PH_PRIM:
    case PH_DEF: return false;
    case PH_LAM: return true;
    case PH_PROJ:
    case PH_UNOP: p = p->fst; continue;
    case PH_APP:
    case PH_PAIR:
    case PH_SEQ:
    case PH_ASSIGN:
    case PH_BINOP:
      if (holds_lambda(p->fst)) return true;
      p = p->snd;
      continue;
    case PH_COUNT: return true;
    }
    return true;
  }
}

static Phrase *copy(Norm *n, const Phrase *p, BindMap *m, const TypeSubst *ts);
static Phrase *copy_node(Norm *n, const Phrase *p, BindMap *m, const TypeSubst *ts);

static PhraseType *sub_type(Norm *n, PhraseType *t, const TypeSubst *ts) {
  return ts ? pt_subst(n->tc, ts, t) : t;
}

/* Copy p, replacing the binders in m and the type variables in ts, with
 * fresh binders for every lambda inside. */
static Phrase *copy(Norm *n, const Phrase *p, BindMap *m, const TypeSubst *ts) {
  if (n->too_big || !enter(n)) return NULL;
  Phrase *q = copy_node(n, p, m, ts);
  n->depth--;
  return q;
}

static Phrase *copy_node(Norm *n, const Phrase *p, BindMap *m, const TypeSubst *ts) {
  switch (p->kind) {
  case PH_VAR:
    for (BindMap *e = m; e; e = e->next) {
      if (e->from != p->binder) continue;
      if (e->fresh_var) {
        Phrase *v = node(n, e->to, e->to->type);
        v->span = n->relocate ? *n->relocate : p->span;
        return v;
      }
      /* The argument itself at its first use, already normal, so that
       * substituting a large argument through k nested defs neither copies
       * nor walks it k times (a tree stays a tree: to appears once). */
      if (!e->used) {
        e->used = true;
        return e->to;
      }
      /* A value without a lambda binds nothing: in two places it binds
       * no binder twice, and no pass after stage II changes a phrase in
       * place, so each place reads it as its own copy (issue 35: the
       * copies of a map's element at each of its uses, and of that
       * element's own uses at every level around it, were a quarter of
       * stage II) */
      if (n->share_values) {
        if (!e->share) e->share = holds_lambda(e->to) ? -1 : 1;
        if (e->share > 0) return e->to;
      }
      /* an argument is the program's own: its spans stay */
      const Span *relocate = n->relocate;
      n->relocate = NULL;
      Phrase *again = copy(n, e->to, NULL, NULL);
      n->relocate = relocate;
      return again;
    }
    return node(n, p, p->type);
  case PH_LIT: {
    Phrase *q = node(n, p, sub_type(n, p->type, ts));
    if (ts && q->lit_is_size && !size_subst_type(n->tc, ts, q->lit_size, &q->lit_size)) /* idx row (N - 1) in a def */
      INTERNAL("index size does not instantiate");
    return q;
  }
  case PH_PRIM: {
    Phrase *q = node(n, p, sub_type(n, p->type, ts));
    if (ts) {
      if (q->type_arg) q->type_arg = dt_subst(n->tc, ts, q->type_arg);
      for (int i = 0; i < prim_info[p->prim].nsizes; i++)
        if (!size_subst_type(n->tc, ts, q->sizes[i], &q->sizes[i]))
          INTERNAL("static size argument does not instantiate");
    }
    return q;
  }
  case PH_DEF: {
    Phrase *q = node(n, p, sub_type(n, p->type, ts));
    if (ts) {
      TypeSubst *s2 = NEW(n->arena, TypeSubst);
      *s2 = *p->subst;
      s2->sizes = NEWARRAY(n->arena, Size, s2->n);
      s2->datas = NEWARRAY(n->arena, DataType *, s2->n);
      for (int i = 0; i < s2->n; i++) {
        if (s2->is_size[i]) {
          if (!size_subst_type(n->tc, ts, p->subst->sizes[i], &s2->sizes[i]))
            INTERNAL("size argument does not instantiate");
        } else {
          s2->datas[i] = dt_subst(n->tc, ts, p->subst->datas[i]);
        }
      }
      q->subst = s2;
    }
    return q;
  }
  case PH_LAM: {
    Phrase *q = node(n, p, sub_type(n, p->type, ts));
    Binder *b = fresh_binder(n, p->lam_binder, sub_type(n, p->lam_binder->type, ts));
    Phrase *v = node(n, p, b->type);
    v->kind = PH_VAR;
    v->binder = b;
    BindMap e = {p->lam_binder, v, true, false, m, 0};
    q->lam_binder = b;
    q->body = copy(n, p->body, &e, ts);
    return q->body ? q : NULL;
  }
  default: {
    Phrase *q = node(n, p, sub_type(n, p->type, ts));
    q->fst = copy(n, p->fst, m, ts);
    if (p->kind != PH_PROJ && p->kind != PH_UNOP) q->snd = copy(n, p->snd, m, ts);
    return q;
  }
  }
}

/* The body of a def as a closed phrase  \p1 ... pn -> body  at the
 * instantiation given by a use. */
static Phrase *instantiate(Norm *n, const Phrase *use) {
  const DefInfo *def = use->def;
  const Span *relocate = n->relocate;
  const DefInfo *relocate_def = n->relocate_def;
  if (def->decl && def->decl->from_prelude) {
    n->relocate = &use->span;
    n->relocate_def = def;
  }
  BindMap *m = NULL;
  Binder **fresh = NEWARRAY(n->arena, Binder *, def->nparams);
  for (int i = 0; i < def->nparams; i++) {
    fresh[i] = fresh_binder(n, def->params[i], pt_subst(n->tc, use->subst, def->params[i]->type));
    Phrase *v = NEW(n->arena, Phrase);
    v->kind = PH_VAR;
    v->span = n->relocate ? *n->relocate : def->params[i]->span;
    v->type = fresh[i]->type;
    v->binder = fresh[i];
    BindMap *e = NEW(n->arena, BindMap);
    *e = (BindMap){def->params[i], v, true, false, m, 0};
    m = e;
  }
  Phrase *body = copy(n, def->body, m, use->subst);
  n->relocate = relocate;
  n->relocate_def = relocate_def;
  if (!body) return NULL;
  for (int i = def->nparams - 1; i >= 0; i--) {
    Phrase *lam = NEW(n->arena, Phrase);
    lam->kind = PH_LAM;
    lam->span = use->span;
    lam->lam_binder = fresh[i];
    lam->body = body;
    lam->type = pt_fn(n->tc, fresh[i]->type, body->type);
    body = lam;
  }
  return body;
}

static Phrase *norm(Norm *n, Phrase *p);
static Phrase *norm_node(Norm *n, Phrase *p);

/* ---- sharing (docs/language.md, lets and arguments) ----
 *
 * (\x -> body) arg, from a let, a def use or a lambda the program applies,
 * substitutes arg for x (spec section 2), except when that would compute
 * arg more than once: arg is a value of scalar, vector or tuple type that
 * is not a variable or a literal, and body uses x more than once (a use
 * inside a lambda counts as many: the lambda may run once per element).
 * Then the redex stays, its lambda marked `shares`, and stage I evaluates
 * arg once into a private variable named x.  An arg that itself computes
 * (a map, a reduction, a materialisation) is shared only when no use is
 * inside a lambda, so that it is computed where the program computes it:
 * at the same level of the strategy.
 *
 * An array, or a pair holding one (an array of pairs unzipped in memory,
 * docs/language.md section 24), is shared when arg materialises it
 * (toGlobal, toLocal, toPrivate f e) and body uses x more than once: the
 * program asked for it in memory at this place, so stage I makes the
 * temporary there and every use reads it (substituting would copy it
 * again at each use: a def over a toLocal result applied k times in a
 * chain made 2^k copies).  As for a scalar that computes, no use may be
 * inside a lambda: there the materialisation happens at each use, at the
 * level of the strategy where the use is, as substitution says. */

static bool shareable_data(const DataType *t) {
  t = dt_resolve((DataType *)t);
  if (t->kind == DT_SCALAR) return true;
  return t->kind == DT_PAIR && shareable_data(t->fst) && shareable_data(t->snd);
}

/* uses of x in p: inside a lambda each counts 2; *in_lambda is set when
 * one is inside a lambda */
static int uses_of(const Phrase *p, const Binder *x, int weight, bool *in_lambda) {
  switch (p->kind) {
  case PH_VAR:
    if (p->binder != x) return 0;
    if (weight > 1) *in_lambda = true;
    return weight;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return 0;
  case PH_LAM: return uses_of(p->body, x, p->shares ? weight : 2, in_lambda); /* a let's body runs once */
  case PH_PROJ:
  case PH_UNOP: return uses_of(p->fst, x, weight, in_lambda);
  case PH_APP:
    /* a redex not yet reduced (see head): its body runs once */
    if (p->fst->kind == PH_LAM)
      return uses_of(p->fst->body, x, weight, in_lambda) + uses_of(p->snd, x, weight, in_lambda);
    return uses_of(p->fst, x, weight, in_lambda) + uses_of(p->snd, x, weight, in_lambda);
  default: return uses_of(p->fst, x, weight, in_lambda) + uses_of(p->snd, x, weight, in_lambda);
  }
}

/* a variable or literal, or a component of one: reading it is as cheap as
 * reading a variable holding it */
static bool trivial(const Phrase *p) {
  if (p->kind == PH_VAR || p->kind == PH_LIT) return true;
  if (p->kind == PH_PROJ) return trivial(p->fst); /* v.2 of a var */
  return p->kind == PH_APP && p->fst->kind == PH_PRIM && (p->fst->prim == PRIM_FST || p->fst->prim == PRIM_SND) &&
         trivial(p->snd);
}

/* the body of \x -> \y -> ... -> body: the further parameters of a
 * function of several arguments (a def's, or \x y -> ...) */
static const Phrase *curried_body(const Phrase *lam) {
  const Phrase *b = lam->body;
  while (b->kind == PH_LAM && !b->shares) b = b->body;
  return b;
}

static bool sharing_let(const Phrase *p) { return p->kind == PH_APP && p->fst->kind == PH_LAM && p->fst->shares; }

/* toGlobal, toLocal or toPrivate f e: an array in memory; or a sharing let
 * whose body is one (a def's result, with its own arrays shared) */
static bool materialised(const Phrase *arg) {
  if (sharing_let(arg)) return materialised(arg->fst->body);
  return arg->kind == PH_APP && arg->fst->kind == PH_APP && arg->fst->fst->kind == PH_PRIM &&
         prim_family(arg->fst->fst->prim) == PFAM_MEMORY;
}

/* toLocal f e (toLocalVolatile f e), or a sharing let whose body is one */
static bool in_local(const Phrase *arg) {
  if (sharing_let(arg)) return in_local(arg->fst->body);
  return prim_family(arg->fst->fst->prim) == PFAM_MEMORY && prim_level(arg->fst->fst->prim) == PLVL_LOCAL;
}

/* x is used in the function of a mapWorkgroup or mapGlobal in p: there
 * each work-group (each work-item) is a use of its own, outside the
 * work-group the let is in */
static bool used_across_groups(const Phrase *p, const Binder *x) {
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return false;
  case PH_LAM: return used_across_groups(p->body, x);
  case PH_PROJ:
  case PH_UNOP: return used_across_groups(p->fst, x);
  case PH_APP:
    if (p->fst->kind == PH_APP && p->fst->fst->kind == PH_PRIM &&
        (p->fst->fst->prim == PRIM_MAP_WORKGROUP || p->fst->fst->prim == PRIM_MAP_GLOBAL) &&
        phrase_uses(p->fst->snd, x))
      return true;
    return used_across_groups(p->fst, x) || used_across_groups(p->snd, x);
  default: return used_across_groups(p->fst, x) || used_across_groups(p->snd, x);
  }
}

static bool shares(const Phrase *lam, const Phrase *arg) {
  const PhraseType *t = lam->lam_binder->type;
  if (!t || t->kind != PT_EXP || trivial(arg)) return false;
  bool array = materialised(arg) && dt_holds_array(t->data);
  if (!array && !shareable_data(t->data)) return false;
  bool in_lambda = false;
  int uses = uses_of(curried_body(lam), lam->lam_binder, 1, &in_lambda);
  /* a local array read by the work-items of a later stage of its group
   * (docs/language.md section 31): made once, where the program makes it,
   * as a work-group's toLocal always is; inside a lambda of another
   * work-group it is substituted as before, made by each group */
  if (array && in_lambda && in_local(arg) && !used_across_groups(curried_body(lam), lam->lam_binder)) return true;
  if (uses < 2) return false;
  return !(in_lambda && phrase_computes(arg));
}

/* (\x -> body) arg kept as a sharing let; when body is the function of
 * the further parameters, the let goes inside it (binders are unique, so
 * y is not free in arg):  (\x -> \y -> b) arg  =  \y -> (\x -> b) arg.
 * A materialised array's own sharing lets come out of it, so that stage I
 * finds its toM f e at once (y is not free in body):
 *   (\x -> body) ((\y -> m) a)  =  (\y -> (\x -> body) m) a */
static Phrase *share(Norm *n, Phrase *lam, Phrase *arg, Span span) {
  if (lam->body->kind == PH_LAM && !lam->body->shares) {
    Phrase *inner = lam->body;
    Phrase *l = node(n, lam, pt_fn(n->tc, lam->lam_binder->type, inner->body->type));
    l->body = inner->body;
    Phrase *q = node(n, inner, inner->type);
    q->body = share(n, l, arg, span);
    return q;
  }
  if (sharing_let(arg) && !shareable_data(lam->lam_binder->type->data)) {
    Phrase *outer = arg->fst;
    Phrase *body = share(n, lam, outer->body, span);
    Phrase *l = node(n, outer, pt_fn(n->tc, outer->lam_binder->type, body->type));
    l->body = body;
    Phrase app = {.kind = PH_APP, .span = arg->span};
    app.fst = l;
    app.snd = arg->snd;
    return node(n, &app, body->type);
  }
  Phrase *l = node(n, lam, lam->type);
  l->shares = true;
  Phrase app = {.kind = PH_APP, .span = span};
  app.fst = l;
  app.snd = arg;
  return node(n, &app, lam->body->type);
}

/* (\x -> body) arg: substitute, then normalise what the substitution made */
static Phrase *beta(Norm *n, Phrase *lam, Phrase *arg, Span span) {
  if (shares(lam, arg)) {
    /* the let keeps its body: normalise it here (head left it as it was) */
    Phrase *body = norm(n, lam->body);
    if (!body) return NULL;
    if (body != lam->body) {
      Phrase *l = node(n, lam, lam->type);
      l->body = body;
      lam = l;
    }
    return share(n, lam, arg, span);
  }
  BindMap e = {lam->lam_binder, arg, arg->kind == PH_VAR, false, NULL, 0};
  Phrase *body = copy(n, lam->body, &e, NULL);
  if (!body) return NULL;
  (void)span;
  return norm(n, body);
}

/* The function of an application, reduced only as far as needed to see a
 * lambda: a def is instantiated and a lambda taken as it is, bodies not
 * normalised, since beta normalises the body after substituting anyway.
 * Normalising first walked and copied a body of size O(k) at each of the
 * k nested uses in  f_k x = f_(k-1) x + 1.0, ...: quadratic (bench/translate_scaling.py, family defs). */
static Phrase *head(Norm *n, Phrase *f) {
  if (f->kind == PH_LAM) return f;
  if (f->kind == PH_DEF) {
    Phrase *body = instantiate(n, f);
    return body && body->kind == PH_LAM ? body : norm(n, body);
  }
  return norm(n, f);
}

/* Normalise p.  A phrase this run made or found normal is taken as it is:
 * nothing changes phrases during a run, and a normal phrase put somewhere
 * else can only make a redex at its root, which its parent reduces. */
static Phrase *norm(Norm *n, Phrase *p) {
  if (p && (p->normal_run == n->run || p->normal_run == n->trust)) return p;
  if (n->too_big || !p || !enter(n)) return NULL;
  n->visits++;
  Phrase *q = norm_node(n, p);
  n->depth--;
  if (q) q->normal_run = n->run;
  return q;
}

static Phrase *norm_node(Norm *n, Phrase *p) {
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM: return p;
  case PH_DEF: return norm(n, instantiate(n, p));
  case PH_LAM: {
    Phrase *body = norm(n, p->body);
    if (!body) return NULL;
    if (body == p->body) return p;
    Phrase *q = node(n, p, p->type);
    q->body = body;
    return q;
  }
  case PH_APP: {
    Phrase *f = head(n, p->fst);
    Phrase *a = norm(n, p->snd);
    if (!f || !a) return NULL;
    if (f->kind == PH_LAM) return beta(n, f, a, p->span);
    if (f == p->fst && a == p->snd) return p;
    Phrase *q = node(n, p, p->type);
    q->fst = f;
    q->snd = a;
    return q;
  }
  case PH_PROJ: {
    Phrase *x = norm(n, p->fst);
    if (!x) return NULL;
    if (x->kind == PH_PAIR) return p->index == 1 ? x->fst : x->snd;
    if (x == p->fst) return p;
    Phrase *q = node(n, p, p->type);
    q->fst = x;
    return q;
  }
  case PH_UNOP: {
    Phrase *x = norm(n, p->fst);
    if (!x) return NULL;
    if (x == p->fst) return p;
    Phrase *q = node(n, p, p->type);
    q->fst = x;
    return q;
  }
  default: {
    Phrase *a = norm(n, p->fst);
    Phrase *b = norm(n, p->snd);
    if (!a || !b) return NULL;
    if (a == p->fst && b == p->snd) return p;
    Phrase *q = node(n, p, p->type);
    q->fst = a;
    q->snd = b;
    return q;
  }
  }
}

/* Whether p is more than max levels deep, walked with an explicit stack.
 * The depth of norm's recursion does not bound the result's: an argument
 * goes in as it is (copy_node), and a normal phrase is not walked again
 * (norm), however deep they sit in the result.  The later stages recurse on
 * the result, within the stack its limit is made for. */
static bool deeper_than(Arena *a, const Phrase *p, int max) {
  typedef struct { const Phrase *p; int depth; } Item;
  int cap = 64, len = 0;
  Item *stack = NEWARRAY(a, Item, cap);
  stack[len++] = (Item){p, 1};
  while (len > 0) {
    Item it = stack[--len];
    if (it.depth > max) return true;
    const Phrase *kids[2] = {NULL, NULL};
    switch (it.p->kind) {
    case PH_VAR:
    case PH_LIT:
    case PH_PRIM:
    case PH_DEF: break;
    case PH_LAM: kids[0] = it.p->body; break;
    case PH_PROJ:
    case PH_UNOP: kids[0] = it.p->fst; break;
    default:
      kids[0] = it.p->fst;
      kids[1] = it.p->snd;
      break;
    }
    for (int i = 0; i < 2; i++) {
      if (!kids[i]) continue;
      if (len == cap) {
        Item *bigger = NEWARRAY(a, Item, cap * 2);
        memcpy(bigger, stack, sizeof *stack * (size_t)len);
        stack = bigger;
        cap *= 2;
      }
      stack[len++] = (Item){kids[i], it.depth + 1};
    }
  }
  return false;
}

/* Whether p is normal as it is, marked by run as norm marks what it
 * walks: no def (instantiated), no lambda applied (a redex, or a sharing
 * let, which beta makes again), no projection of a pair, and fewer than
 * levels levels deep.  These are the only phrases norm_node changes, so
 * on a phrase without them norm would give each phrase back as it is:
 * a checked kernel without a def or a let (its lambdas its primitives'
 * arguments) is normal as the checker made it, and norm's walk of it was
 * a third of the strategy pass (issue 35).  A phrase is marked once all
 * of it is found normal, so a phrase met again is not walked again;
 * look->visits counts the phrases marked, as norm counts the phrases it
 * walks; look->holds_map whether a plain map is among them, which the
 * write-through of a kernel's view maps looks for next (normalize_def,
 * strategy_write_through_known: one walk of the body less).
 * false: something to normalise, or too deep; the marks of a false walk
 * are not trusted (normalize runs norm under a new run). */
typedef struct Look {
  int run;
  long visits;
  bool holds_map;
} Look;

static bool already_normal(Look *look, Phrase *p, int levels) {
  if (p->normal_run == look->run) return true;
  if (levels <= 0) return false;
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT: break;
  case PH_PRIM:
    if (p->prim == PRIM_MAP) look->holds_map = true;
    break;
  case PH_DEF:
  case PH_COUNT: return false;
  case PH_LAM:
    if (!already_normal(look, p->body, levels - 1)) return false;
    break;
  case PH_APP:
    if (p->fst->kind == PH_LAM || p->fst->kind == PH_DEF) return false;
    if (!already_normal(look, p->fst, levels - 1) || !already_normal(look, p->snd, levels - 1)) return false;
    break;
  case PH_PROJ:
    if (p->fst->kind == PH_PAIR) return false;
    /* fall through */
  case PH_UNOP:
    if (!already_normal(look, p->fst, levels - 1)) return false;
    break;
  default:
    if (!already_normal(look, p->fst, levels - 1) || !already_normal(look, p->snd, levels - 1)) return false;
    break;
  }
  p->normal_run = look->run;
  look->visits++;
  return true;
}

/* norm p, trusting the marks of run trust (-1: none), whose walk and
 * making reached trust_reach nodes; first looking whether p is normal as
 * it is (already_normal) when look */
static Phrase *normalize(Arena *a, TypeCtx *tc, Diag *diag, Phrase *p, int trust, long trust_reach, bool look,
                         int *holds_map) {
  Norm n = {a, tc, diag, 0, 0, false, p->span, 0, 0, false, ++tc->norm_runs, trust, trust_reach, NULL, NULL, false, false};
  n.max_depth = diag_depth_limit(diag, DPIA_MAX_NORMAL_DEPTH);
  if (holds_map) *holds_map = -1; /* not known */
  if (look && trust < 0) {
    /* what norm would find: p as it is, marked, its phrases the reach */
    Look l = {n.run, 0, false};
    if (already_normal(&l, p, n.max_depth - 1)) {
      tc->norm_reach = l.visits;
      if (holds_map) *holds_map = l.holds_map;
      return p;
    }
    n.run = ++tc->norm_runs;
  }
  Phrase *r = norm(&n, p);
  /* Every node of the result is one this run made (nodes) or one norm_node
   * walked (visits): an input phrase is returned as it is only from there,
   * an argument is normalised before it is put in, and a phrase marked
   * normal by this run was walked or made by it (one marked by the trusted
   * run, and what is under it, by that run: trust_reach).  A path of the
   * result repeats no node, so its depth is at most their number: only a
   * result that could be deeper than the limit is walked again (the walk
   * was a fifth of a translation's normalisations; issue 35). */
  long reach = n.visits + n.nodes + trust_reach;
  tc->norm_reach = reach;
  if (r && !n.too_big && reach > n.max_depth && deeper_than(a, r, n.max_depth)) n.too_deep = true;
  if (n.too_deep) {
    diag->limit_hit = true;
    diag_error(diag, ERR_TOO_DEEP, p->span, "program nested too deeply: more than %d levels after inlining defs",
               n.max_depth);
    return NULL;
  }
  if (n.too_big) {
    diag_error(diag, ERR_TOO_LARGE, p->span, "program too large: more than %d phrase nodes after inlining defs",
               DPIA_MAX_NORMAL_NODES);
    return NULL;
  }
  return r;
}

Phrase *normalize_phrase(Arena *a, TypeCtx *tc, Diag *diag, Phrase *p) {
  return normalize(a, tc, diag, p, -1, 0, true, NULL);
}

Phrase *normalize_phrase_holding(Arena *a, TypeCtx *tc, Diag *diag, Phrase *p, int *holds_map) {
  return normalize(a, tc, diag, p, -1, 0, true, holds_map);
}

Phrase *normalize_phrase_walked(Arena *a, TypeCtx *tc, Diag *diag, Phrase *p) {
  return normalize(a, tc, diag, p, -1, 0, false, NULL);
}

Phrase *normalize_phrase_again(Arena *a, TypeCtx *tc, Diag *diag, Phrase *p) {
  /* no run before: no mark to trust (0 is every unmarked phrase's) */
  return tc->norm_runs ? normalize(a, tc, diag, p, tc->norm_runs, tc->norm_reach, false, NULL)
                       : normalize_phrase(a, tc, diag, p);
}

Phrase *normalize_def(Arena *a, TypeCtx *tc, Diag *diag, DefInfo *def) {
  int holds_map;
  Phrase *body = normalize_phrase_holding(a, tc, diag, def->body, &holds_map);
  /* a kernel's view maps after its grid maps write through (strategy.c),
   * which the look for a normal body found none of, or not */
  return body && def->is_kernel ? strategy_write_through_known(a, tc, body, holds_map) : body;
}

Phrase *phrase_copy(Arena *a, TypeCtx *tc, const Phrase *p) {
  Norm n = {a, tc, NULL, 0, 0, false, p->span, 0, 0, false, 0, 0, 0, NULL, NULL, false, false};
  return copy(&n, p, NULL, NULL);
}

Phrase *phrase_subst(Arena *a, TypeCtx *tc, const Phrase *body, const Binder *x, Phrase *value) {
  Norm n = {a, tc, NULL, 0, 0, false, body->span, 0, 0, false, 0, 0, 0, NULL, NULL, false, false};
  /* value may be in use elsewhere: copied at every use (used already) */
  BindMap e = {x, value, value->kind == PH_VAR, true, NULL, 0};
  return copy(&n, body, &e, NULL);
}

/* p with the variables of m (a list) replaced as phrase_subst replaces
 * them, the sub-phrases without a use of one shared rather than copied */
static Phrase *subst_shared(Norm *n, Phrase *p, BindMap *m) {
  switch (p->kind) {
  case PH_VAR:
    for (BindMap *e = m; e; e = e->next)
      if (p->binder == e->from) return copy_node(n, p, e, NULL);
    return p;
  case PH_LIT: /* array literals hold scalar literals; defs and primitives no variables */
  case PH_PRIM:
  case PH_DEF: return p;
  case PH_LAM: {
    Phrase *body = subst_shared(n, p->body, m);
    if (body == p->body) return p;
    Phrase *q = node(n, p, p->type);
    if (n->keep_marks) q->normal_run = p->normal_run;
    q->body = body;
    return q;
  }
  default: {
    Phrase *a = subst_shared(n, p->fst, m);
    Phrase *b = p->kind == PH_PROJ || p->kind == PH_UNOP ? p->snd : subst_shared(n, p->snd, m);
    if (a == p->fst && b == p->snd) return p;
    Phrase *q = node(n, p, p->type);
    if (n->keep_marks) q->normal_run = p->normal_run;
    q->fst = a;
    q->snd = b;
    return q;
  }
  }
}

Phrase *phrase_subst_shared(Arena *a, TypeCtx *tc, Phrase *body, const Binder *x, Phrase *value) {
  Norm n = {a, tc, NULL, 0, 0, false, body->span, 0, 0, false, 0, 0, 0, NULL, NULL, false, false};
  BindMap e = {x, value, value->kind == PH_VAR, true, NULL, 0};
  return subst_shared(&n, body, &e);
}

Phrase *phrase_subst_shared_many(Arena *a, TypeCtx *tc, Phrase *body, int count, const Binder *const *xs,
                                 Phrase *const *values, bool keep_marks, bool share_values) {
  Norm n = {a, tc, NULL, 0, 0, false, body->span, 0, 0, false, 0, 0, 0, NULL, NULL, keep_marks, share_values};
  /* the map on the stack for the few variables stage II substitutes */
  BindMap few[4], *m = NULL;
  BindMap *entries = count <= (int)DPIA_COUNTOF(few) ? few : NEWARRAY(a, BindMap, count);
  for (int k = count - 1; k >= 0; k--) {
    entries[k] = (BindMap){xs[k], values[k], values[k]->kind == PH_VAR, true, m, 0};
    m = &entries[k];
  }
  return subst_shared(&n, body, m);
}

Phrase *phrase_map_children(Arena *a, const Phrase *p, Phrase *(*f)(void *ctx, Phrase *child), void *ctx) {
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return (Phrase *)p;
  case PH_LAM: {
    Phrase *body = f(ctx, p->body);
    if (body == p->body) return (Phrase *)p;
    Phrase *q = arena_dup(a, p, sizeof *p);
    q->normal_run = 0; /* a new child: not known to be normal */
    q->body = body;
    return q;
  }
  default: {
    Phrase *fst = f(ctx, p->fst);
    Phrase *snd = p->kind != PH_PROJ && p->kind != PH_UNOP ? f(ctx, p->snd) : p->snd;
    if (fst == p->fst && snd == p->snd) return (Phrase *)p;
    Phrase *q = arena_dup(a, p, sizeof *p);
    q->normal_run = 0;
    q->fst = fst;
    q->snd = snd;
    return q;
  }
  }
}
