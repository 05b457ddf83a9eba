/* stage2.c: translation stage II (paper section 4.2, spec section 7):
 *
 *   mapIX n d1 d2 F E A = parforX n d2 A (\i a -> F (idx E i) a)
 *   mapISeq n d1 d2 F E A = for n (\i -> F (idx E i) (idxAcc A i))
 *   reduceI n d1 d2 F I E C = newPrivate d2 (\acc -> acc.1 :=d2 I;
 *                               for n (\i -> F (idx E i) acc.2 acc.1); C acc.2)
 *   scanI n d1 d2 F I E A = newPrivate d2 (\acc -> acc.1 :=d2 I;
 *                             for n (\i -> F (idx E i) acc.2 acc.1;
 *                                          idxAcc A i :=d2 acc.2))
 *   reduceRangeI s n d1 d2 F I L H E C = reduceI's, its loop
 *                             forRange n s L H (\i -> F (idx E i) acc.2 acc.1)
 *                             (docs/language.md section 25)
 *   slideSeqI s n d1 d2 F E A = newPrivate [s]d1 (\w ->
 *     for (s-1) (\j -> idxAcc (sliceAcc 1 (s-1) 0 w.1) j :=d1 idx (take (s-1) E) j);
 *     for (n+1) (\i ->
 *       for (s-1) (\j -> idxAcc (sliceAcc 0 (s-1) 1 w.1) j :=d1 idx (drop 1 w.2) j);
 *       idxAcc w.1 (s-1) :=d1 idx (drop (s-1) E) i;
 *       F w.2 (idxAcc A i)))
 *
 * (newLocal instead of newPrivate when the work-items of a group write the
 * accumulator together, through a mapLocal in F: see stage1.c, reduce_i)
 *
 * (with the .1/.2 typo of the paper fixed, spec section 12), then
 * beta-normalised: F and C are lambdas, applied by substitution. */
#include "translate.h"

#include "build.h"

#include <string.h>

typedef struct Bound Bound;
struct Bound {
  const Binder *param;
  Phrase *arg;
  const Bound *next;
};

typedef struct Stage2 {
  Builder b;
  /* the normalisation this stage's result stands for (TypeCtx.norm_runs),
   * which marks every phrase rewrite gives back; whether the result may
   * hold something normalisation would change (a redex stage I left, a
   * def); and the phrases rewrite walked, with the arena's bytes handed
   * out before it: a bound on the result's nodes (translate_stage2) */
  int run;
  bool not_normal;
  long visits;
  /* the parameters of the lambdas being applied (F's, K's), each bound to
   * its argument, innermost first: rewrite puts the argument where it
   * meets a variable of one (apply_in_walk) */
  const Bound *bound;
  /* rewrite met a lambda (or a spine's head that holds one) since this
   * was last cleared (rewrite_value) */
  bool met_lambda;
  /* 0 as translate_stage2 runs, else the forms it is compared with
   * (test stage2): STAGE2_APPLY_LATE, each lambda applied by a
   * substitution into its rewritten body, as before the substitution
   * moved into the walk (translate_stage2_late); STAGE2_REWRITE_VALUES,
   * every value rewritten, none given back by kept_value
   * (translate_stage2_rewritten) */
  int form;
} Stage2;

enum { STAGE2_APPLY_LATE = 1, STAGE2_REWRITE_VALUES = 2 };

static Phrase *rewrite(Stage2 *s, Phrase *p);

/* F x y ...: substitute when F is a lambda (it always is after stage I).
 * F is one of the arguments rewrite made anew for the spine being lowered
 * (or what apply made of one), consumed here: its body is not copied but
 * shared but for the paths to x's uses (a map's body holds the rest of
 * its level of the program; copying it at every level made the stage
 * quadratic in the depth of maps; issue 35) */
static Phrase *apply(Stage2 *s, Phrase *f, Phrase *x) {
  if (f->kind == PH_LAM) {
    const Binder *binder = f->lam_binder;
    return phrase_subst_shared_many(s->b.arena, s->b.tc, f->body, 1, &binder, &x, true, true);
  }
  return b_app(&s->b, f, x);
}

static bool has_lambda(const Phrase *p) {
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return false;
  case PH_LAM: return true;
  case PH_PROJ:
  case PH_UNOP: return has_lambda(p->fst);
  default: return has_lambda(p->fst) || has_lambda(p->snd);
  }
}

/* F x1 ... xn, as apply one argument after the other: F's n parameters
 * substituted in one walk of its body, not n (a reduction's step is
 * applied to its element and both sides of its accumulator).  The same
 * phrase results: the arguments are made outside F, so no argument holds
 * a variable of another's parameter, and each path to a use is copied
 * once where apply copied it once a parameter.  Where an argument holds a
 * lambda (its copies number binders, in the order of the uses) or F has
 * fewer lambdas than arguments, one at a time as before. */
static Phrase *apply_n(Stage2 *s, Phrase *f, int n, Phrase *const *xs) {
  const Binder *binders[4];
  Phrase *body = f;
  int k = 0;
  while (k < n && k < (int)DPIA_COUNTOF(binders) && body->kind == PH_LAM && !has_lambda(xs[k])) {
    binders[k++] = body->lam_binder;
    body = body->body;
  }
  if (k == n) return phrase_subst_shared_many(s->b.arena, s->b.tc, body, n, binders, xs, true, true);
  for (k = 0; k < n; k++) f = apply(s, f, xs[k]);
  return f;
}

/* Whether rewrite(p), no parameter being bound, gives back p itself:
 * where no lowering is below (a value holds none: phrase_is_value) and
 * every spine is one whose head is a primitive or a variable and whose
 * applications respine keeps (b_app_as: each of the spine's span and
 * type, no mark, no other field), p being its own rewrite all the way
 * down.  Reads p only. */
static bool rewritten_as_is(const Phrase *p) {
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return true;
  case PH_LAM: return rewritten_as_is(p->body);
  case PH_APP: {
    /* and of few enough arguments that phrase_spine takes it apart in
     * place: one of more takes bytes of the arena, a bound on the nodes
     * of the result counts (stage2) */
    const Phrase *q = p;
    int n = 0;
    for (; q->kind == PH_APP; q = q->fst) {
      if (++n > (int)DPIA_COUNTOF(((PhraseSpine *)NULL)->few_args)) return false;
      const PhraseType *fn = q->fst->type;
      if ((fn->kind != PT_FN && fn->kind != PT_FN_P) || q->type != fn->snd || q->normal_run != 0 ||
          memcmp(&q->span, &p->span, sizeof p->span) != 0 || q->prelude || q->index || q->op || q->unop ||
          !rewritten_as_is(q->snd))
        return false;
    }
    /* a head rewrite leaves unwalked, or a combinator it lowers */
    return q->kind == PH_VAR || (q->kind == PH_PRIM && !(phrase_left_over(q->prim, PHRASE_IMPERATIVE) &&
                                                         !phrase_left_over(q->prim, PHRASE_INTERMEDIATE)));
  }
  case PH_PROJ:
  case PH_UNOP: return rewritten_as_is(p->fst);
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return rewritten_as_is(p->fst) && rewritten_as_is(p->snd);
  case PH_COUNT: break;
  }
  return false;
}

/* What rewrite(p) records of p, which rewritten_as_is found its own
 * rewrite: the visits (each phrase rewrite is called on, and a spine's
 * head and inner applications), the notes (a def, a lambda, a projection
 * of a pair) and the marks, of each phrase rewrite gives back (a spine's
 * top and arguments, not its head or inner applications) */
static void keep_as_is(Stage2 *s, Phrase *p) {
  s->visits++;
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM: break;
  case PH_DEF: s->not_normal = true; break;
  case PH_LAM:
    s->met_lambda = true;
    keep_as_is(s, p->body);
    break;
  case PH_APP:
    for (Phrase *q = p; q->kind == PH_APP; q = q->fst) {
      s->visits++;
      keep_as_is(s, q->snd);
    }
    break;
  case PH_PROJ:
  case PH_UNOP:
    keep_as_is(s, p->fst);
    if (p->kind == PH_PROJ && p->fst->kind == PH_PAIR) s->not_normal = true;
    break;
  default:
    keep_as_is(s, p->fst);
    keep_as_is(s, p->snd);
    break;
  }
  p->normal_run = s->run;
}

/* rewrite(p) where no parameter is bound (a value outside every level of
 * maps: the kernel's input and output views, a leaf rewrite takes at
 * once aside): given back as it is, its
 * phrases noted and marked as rewrite notes and marks them, where rewrite
 * would give it back so (rewritten_as_is), without rewrite's spines taken
 * apart and put together again (issue 35: a ninth of the stage) */
static __attribute__((noinline)) Phrase *kept_value(Stage2 *s, Phrase *p) {
  if (!rewritten_as_is(p)) return rewrite(s, p);
  keep_as_is(s, p);
  return p;
}

/* rewrite p, a value, and whether the result holds a lambda (has_lambda),
 * known from the walk: rewrite walks all of a value but for a spine's
 * head, noting a lambda among them (rewrite_node), and puts for a
 * parameter an argument without one (apply_in_walk); so the arguments a
 * lowering makes of its values are not walked again to find out
 * (test stage2: an argument with a lambda shared is a binder bound
 * twice, and marks the substitution would not have set) */
static inline __attribute__((always_inline)) Phrase *rewrite_value(Stage2 *s, Phrase *p, bool *holds_lambda) {
  bool outer = s->met_lambda;
  s->met_lambda = false;
  Phrase *r = p->kind == PH_APP && !s->bound && !(s->form & STAGE2_REWRITE_VALUES) ? kept_value(s, p) : rewrite(s, p);
  *holds_lambda = s->met_lambda;
  s->met_lambda |= outer;
  return r;
}

/* F x1 ... xn for F as stage I left it (not yet rewritten): F's body
 * rewritten with its n parameters bound to xs, rewrite putting each
 * argument where it meets a variable of its parameter.  Rewriting F and
 * then substituting (apply_n) walked F's body once to rewrite it, then
 * again at each level of maps around it to substitute that level's
 * element: the whole lowered body below each level (issue 35); this is
 * one walk.  The same phrase results, node for node (test stage2
 * compares both ways on every sample's kernels):
 *  - a phrase without a use rewrite gives back as apply_n's substitution
 *    then did, itself;
 *  - a use gives the argument itself, shared and unmarked, where the
 *    substitution of a value without a lambda put it (share_values);
 *  - a phrase with a use below is built anew from its new children in
 *    both: phrase_map_children's copy of it, which rewrite marks, as the
 *    substitution's copy of rewrite's marked phrase; a spine's
 *    application as b_app_as builds it, with the spine's span, which is
 *    also the span of the one the substitution copied (b_app_as gives
 *    back an old application only when it has that span and no mark);
 *    a lowering's phrases, which it builds from children that already
 *    hold the arguments, as the substitution copied them;
 *  - a spine's head that is no primitive, which rewrite does not walk,
 *    is substituted as apply_n substituted it (substituted);
 *  - the lowerings make the same binders and calls of the builder in the
 *    same order but for where a level's own binder and element are made
 *    (before its F is walked, not after) and a reduction's values are
 *    rewritten (before K, to type its accumulator; values lower nothing):
 *    binder ids say nothing about the result but the order of a hoisting
 *    table's probes, and the only order-dependent builder state, the
 *    names of a dependent array's rows (b_assign), is reached in the same
 *    order.
 * An argument that holds a lambda (lambdas[k]: each of its copies numbers binders)
 * or is a variable (copied at each use with the use's span), or an F
 * with fewer lambdas than arguments, is applied as before: F rewritten,
 * then apply_n.  Its copies of such an argument then copy the outer
 * arguments in it too, unmarked, where the substitution shared them
 * marked: the one difference, which normalisation only walks again (a
 * mark is never set where the substitution set none). */
static Phrase *apply_in_walk(Stage2 *s, Phrase *f, int n, Phrase *const *xs, const bool *lambdas) {
  Bound bound[3];
  const Bound *outer = s->bound;
  Phrase *body = f;
  int k = 0;
  while (!(s->form & STAGE2_APPLY_LATE) && k < n && k < (int)DPIA_COUNTOF(bound) && body->kind == PH_LAM &&
         xs[k]->kind != PH_VAR && !lambdas[k]) {
    bound[k] = (Bound){body->lam_binder, xs[k], k ? &bound[k - 1] : outer};
    body = body->body;
    k++;
  }
  if (k < n) return apply_n(s, rewrite(s, f), n, xs);
  s->visits += n; /* F's lambdas, which rewrite f walked */
  s->bound = &bound[n - 1];
  Phrase *r = rewrite(s, body);
  s->bound = outer;
  return r;
}

/* origin, fills_literal: the loop's (phrase.h) */
static Phrase *for_loop(Stage2 *s, Size n, Binder *i, Phrase *body, const char *origin, bool fills_literal,
                        Sym row) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  PhraseType *ty = pt_fn(tc, pt_fn(tc, pt_exp(tc, dt_idx(tc, n)), tc->t_comm), tc->t_comm);
  Phrase *loop = b_prim(b, PRIM_FOR, 0, ty);
  loop->sizes[0] = n;
  loop->origin = origin;
  loop->fills_literal = fills_literal;
  loop->dep_index = row;
  return b_app(b, loop, b_lam(b, i, body, false));
}

/* forRange n s lo hi (\i -> body): the steps lo, lo+s, ... below hi,
 * clamped to 0 .. n (code generation, gen_for_range) */
static Phrase *range_loop(Stage2 *s, Size n, Size step, Phrase *lo, Phrase *hi, Binder *i, Phrase *body) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  Phrase *lam = b_lam(b, i, body, false);
  PhraseType *ty = pt_fn(tc, lo->type, pt_fn(tc, hi->type, pt_fn(tc, lam->type, tc->t_comm)));
  Phrase *loop = b_prim(b, PRIM_FOR_RANGE, 0, ty);
  loop->sizes[0] = n;
  loop->sizes[1] = step;
  loop->origin = "reduceRange";
  return b_app(b, b_app2(b, loop, lo, hi), lam);
}

/* mapI F E A (args, not yet rewritten) */
static Phrase *lower_map_i(Stage2 *s, Phrase *head, Phrase *const *args) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  bool acc_lambda, e_lambda;
  Phrase *f = args[0], *acc = rewrite_value(s, args[2], &acc_lambda), *e = rewrite_value(s, args[1], &e_lambda);
  DataType *out_t = b_data(acc);
  Size n = out_t->size;
  /* loop variables named after the level they iterate over, as a person
   * writing OpenCL would (gid, wg, lid), so generated code reads well */
  const char *name = prim_level_index_name(prim_level(head->prim));
  /* a dependent map's loop: its index is named as its row's size, which
   * the printed imperative program then writes as the index (N - gid),
   * checked again as a size of the loop's body (check.c, row_loop) */
  if (head->dep_index) name = head->dep_index;
  Binder *i = b_binder(b, name, pt_exp(tc, dt_idx(tc, n)));
  Phrase *x = b_idx_row(b, e, b_var(b, i), head->dep_index);
  if (prim_lowered(head->prim) == PRIM_FOR) {
    /* mapI with no OpenCL level runs sequentially: see b_assign */
    Phrase *xs[] = {x, b_idx_acc_row(b, acc, b_var(b, i), head->dep_index)};
    return for_loop(s, n, i, apply_in_walk(s, f, 2, xs, (bool[]){e_lambda, acc_lambda}),
                    head->origin ? head->origin : "mapSeq", head->fills_literal, head->dep_index);
  }
  Phrase *fx = apply_in_walk(s, f, 1, &x, &e_lambda);
  /* fx is \o -> body: keep its binder as the parfor's element acceptor */
  ASSERT(fx->kind == PH_LAM);
  Phrase *body = b_lam(b, i, b_lam(b, fx->lam_binder, fx->body, true), false);
  PhraseType *ty = pt_fn(tc, acc->type, pt_fn(tc, body->type, tc->t_comm));
  Phrase *loop = b_prim(b, prim_lowered(head->prim), head->dim, ty);
  loop->dep_index = head->dep_index;
  loop->origin = head->origin;
  return b_app2(b, loop, acc, body);
}

/* parforLocal acc (\i o -> o := idx e i): a shared accumulator is
 * initialised by the work-items that update it, each its own elements, so
 * no work-item's update races with another's initialisation.  One updated
 * in place through nested mapLocals is initialised through the same
 * levels (levels[0..n), outermost first):
 *   parforLocal acc (\i o -> parforLocal o (\j o' -> o' := idx (idx e i) j)) */
static Phrase *parallel_copy(Stage2 *s, const Phrase *const *levels, int n, Phrase *e, Phrase *acc) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  DataType *t = b_data(acc);
  Binder *i = b_binder(b, "lid", pt_exp(tc, dt_idx(tc, t->size)));
  Binder *o = b_binder(b, "o", pt_acc(tc, t->elem));
  Phrase *elem = b_idx(b, e, b_var(b, i));
  Phrase *copy = n > 1 ? parallel_copy(s, levels + 1, n - 1, elem, b_var(b, o)) : b_assign(b, b_var(b, o), elem);
  Phrase *body = b_lam(b, i, b_lam(b, o, copy, true), false);
  PhraseType *ty = pt_fn(tc, acc->type, pt_fn(tc, body->type, tc->t_comm));
  return b_app2(b, b_prim(b, PRIM_PARFOR_LOCAL, levels[0]->dim, ty), acc, body);
}

/* An if in a reduction's step (stage I's select whose sides compute) may
 * choose by the accumulator that its sides update: its condition reads
 * acc.2 where a side writes acc.1, which the step's parameters kept apart
 * until now.  The condition and the sides are two sides of an
 * application, which must not interfere (SCIR App, paper Figure 3), and
 * code generation tests the condition again, after the then side, for
 * the else side: so the condition is read once, into a variable of its
 * own, before either side runs:
 *   if c {t, e}  =>  newPrivate bool (\chosen -> chosen.1 := c; if chosen.2 {t, e}) */
typedef struct OwnCondition {
  Stage2 *s;
  const Binder *acc;
} OwnCondition;

static Phrase *own_condition(void *ctx, Phrase *p) {
  OwnCondition *o = ctx;
  Builder *b = &o->s->b;
  /* an if is a command: none is inside a value (phrase_is_value), the
   * step's element and accumulator among them */
  if (phrase_is_value(p)) return p;
  p = phrase_map_children(b->arena, p, own_condition, o);
  /* if c {t, e}: the spine of if and its two arguments */
  if (p->kind != PH_APP || p->fst->kind != PH_APP || p->fst->fst->kind != PH_PRIM ||
      prim_family(p->fst->fst->prim) != PFAM_IF || !phrase_uses(p->fst->snd, o->acc) || !phrase_uses(p->snd, o->acc))
    return p;
  Phrase *head = p->fst->fst, *cond = p->fst->snd, *sides = p->snd;
  TypeCtx *tc = b->tc;
  Binder *chosen = b_binder(b, "chosen", pt_var(tc, tc->t_bool));
  Phrase *store = b_assign(b, b_proj(b, b_var(b, chosen), 1), cond);
  Phrase *choice = b_app2(b, head, b_proj(b, b_var(b, chosen), 2), sides);
  return b_new(b, PRIM_NEW_PRIVATE, tc->t_bool, chosen, b_seq(b, store, choice));
}

static Phrase *own_conditions(Stage2 *s, Phrase *step, const Binder *acc) {
  OwnCondition o = {s, acc};
  return own_condition(&o, step);
}

/* reduceI F I E K, and reduceRangeI F I lo hi E K (ranged) (args, not
 * yet rewritten) */
static Phrase *lower_reduce_i(Stage2 *s, Phrase *head, Phrase *const *args, bool ranged) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  int last = ranged ? 5 : 3;
  Phrase *f = args[0], *k = args[last];
  /* the values first (as values they hold no command: their rewrite
   * lowers nothing and makes no binder), for the accumulator K is
   * applied to; K's rewrite before F's, as when each argument was
   * rewritten before the lowering, the last first */
  bool e_lambda;
  Phrase *e = rewrite_value(s, args[last - 1], &e_lambda);
  Phrase *hi = ranged ? rewrite(s, args[3]) : NULL, *lo = ranged ? rewrite(s, args[2]) : NULL;
  Phrase *init = rewrite(s, args[1]);
  DataType *d2 = b_data(init);
  Size n = b_data(e)->size;
  Binder *acc = b_binder(b, "acc", pt_var(tc, d2));
  Phrase *v = b_var(b, acc);
  /* K acc.2 */
  Phrase *result = b_proj(b, v, 2);
  Phrase *rest = apply_in_walk(s, k, 1, &result, (bool[]){false});
  Binder *i = b_binder(b, "i", pt_exp(tc, dt_idx(tc, n)));
  /* F (idx E i) acc.2 acc.1 */
  Phrase *xs[] = {b_idx(b, e, b_var(b, i)), b_proj(b, v, 2), b_proj(b, v, 1)};
  Phrase *step = own_conditions(s, apply_in_walk(s, f, 3, xs, (bool[]){e_lambda, false, false}), acc);
  const Phrase *shared = head->shared_by;
  const Phrase *const *levels = head->shared_depth ? head->shared_nest : &shared;
  int nlevels = head->shared_depth ? head->shared_depth : 1;
  Phrase *start = shared && d2->kind == DT_ARRAY ? parallel_copy(s, levels, nlevels, init, b_proj(b, v, 1))
                                                 : b_assign(b, b_proj(b, v, 1), init);
  Phrase *loop = lo ? range_loop(s, n, head->sizes[0], lo, hi, i, step) : for_loop(s, n, i, step, "reduceSeq", false, NULL);
  Phrase *body = b_seq(b, start, b_seq(b, loop, rest));
  /* Updated in place through nested mapLocals, initialised through the
   * same levels, and read after the loop by work-items of those levels
   * each at its own element only: every element belongs to one work-item
   * (docs/language.md section 2.1), which code generation may keep it in
   * the private memory of (codegen/locals.c) */
  if (shared && head->shared_depth > 1 && d2->kind == DT_ARRAY) {
    int *dims = NEWARRAY(b->arena, int, head->shared_depth);
    for (int l = 0; l < head->shared_depth; l++) dims[l] = head->shared_nest[l]->dim;
    if (scir_owned_by_items(body, acc, dims, head->shared_depth)) {
      acc->owned_by = dims;
      acc->nowned_by = head->shared_depth;
    }
  }
  return b_new(b, shared ? PRIM_NEW_LOCAL : PRIM_NEW_PRIVATE, d2, acc, body);
}

/* shine's ScanSeqI: reduceI's loop, each step's accumulator written to
 * its element of A by the work-item that made it (A's element i, and
 * only it, in step i: what a mapSeq over A writes).  scanI F I E A, its
 * arguments not yet rewritten. */
static Phrase *lower_scan_i(Stage2 *s, Phrase *const *args) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  bool e_lambda;
  Phrase *f = args[0], *out = rewrite(s, args[3]), *e = rewrite_value(s, args[2], &e_lambda),
         *init = rewrite(s, args[1]);
  DataType *d2 = b_data(init);
  Size n = b_data(e)->size;
  Binder *acc = b_binder(b, "acc", pt_var(tc, d2));
  Phrase *v = b_var(b, acc);
  Binder *i = b_binder(b, "i", pt_exp(tc, dt_idx(tc, n)));
  Phrase *xs[] = {b_idx(b, e, b_var(b, i)), b_proj(b, v, 2), b_proj(b, v, 1)};
  Phrase *step = own_conditions(s, apply_in_walk(s, f, 3, xs, (bool[]){e_lambda, false, false}), acc);
  Phrase *write = b_assign(b, b_idx_acc(b, out, b_var(b, i)), b_proj(b, v, 2));
  Phrase *body = b_seq(b, b_assign(b, b_proj(b, v, 1), init), for_loop(s, n, i, b_seq(b, step, write), "scanSeq", false, NULL));
  return b_new(b, PRIM_NEW_PRIVATE, d2, acc, body);
}

/* shine's SlideSeqI with SlideSeq.Values (docs/language.md section 26):
 * the window w keeps the last s elements of E in private memory.  Before
 * step i it holds elements i-1 .. i+s-2 in w[0 .. s-1] (w[0] unset before
 * step 0, and never read: the rotation overwrites it first); the rotation
 * moves them down one place, in increasing order so that each is read
 * before it is overwritten, and one load completes elements i .. i+s-1,
 * so a step reads one element of E where mapSeq f (slide s 1 E) reads s.
 * The rotation is a loop of s-1 constant steps of assignments, which code
 * generation writes out (w[0] = w[1]; w[1] = w[2]; w[2] = load): an array
 * indexed by constants only, which the OpenCL compiler keeps in registers.
 * Race freedom: w is the work-item's own, and step i writes element i of A
 * and nothing else of it, as the mapSeq's step i would.  slideSeqI F E A,
 * its arguments not yet rewritten. */
static Phrase *lower_slide_seq_i(Stage2 *s, Phrase *head, Phrase *const *args) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  bool out_lambda;
  Phrase *f = args[0], *out = rewrite_value(s, args[2], &out_lambda), *e = rewrite(s, args[1]);
  SizeCtx *sc = &tc->sizes;
  Size size = head->sizes[0], one = size_const(sc, 1), rest = size_sub(sc, size, one);
  Size steps = b_data(out)->size;
  DataType *win_t = dt_array(tc, size, b_data(e)->elem);
  Binder *w = b_binder(b, "window", pt_var(tc, win_t));
  Binder *i = b_binder(b, "i", pt_exp(tc, dt_idx(tc, steps)));
  Phrase *xs[] = {b_proj(b, b_var(b, w), 2), b_idx_acc(b, out, b_var(b, i))};
  Phrase *applied = apply_in_walk(s, f, 2, xs, (bool[]){false, out_lambda});
  /* the load after F's walk, as after its rewrite before: its b_assign
   * names a dependent array's rows in the same order */
  Phrase *load = b_assign(b, b_idx_acc(b, b_proj(b, b_var(b, w), 1), b_index(b, rest, size)),
                          b_idx(b, b_take_drop(b, PRIM_DROP, rest, e), b_var(b, i)));
  Phrase *step = b_seq(b, load, applied);
  Phrase *body;
  if (size_is_zero(rest)) {
    body = for_loop(s, steps, i, step, "slideSeq", false, NULL);
  } else {
    /* w[j] := w[j+1] for j < s-1, and before the first step
     * w[j+1] := E[j] for j < s-1 */
    Binder *j = b_binder(b, "j", pt_exp(tc, dt_idx(tc, rest)));
    Phrase *lower = b_slice_acc(b, b_proj(b, b_var(b, w), 1), size_const(sc, 0), rest);
    Phrase *next = b_take_drop(b, PRIM_DROP, one, b_proj(b, b_var(b, w), 2));
    Phrase *rotate = b_assign(b, b_idx_acc(b, lower, b_var(b, j)), b_idx(b, next, b_var(b, j)));
    Binder *k = b_binder(b, "j", pt_exp(tc, dt_idx(tc, rest)));
    Phrase *upper = b_slice_acc(b, b_proj(b, b_var(b, w), 1), one, rest);
    Phrase *first = b_assign(b, b_idx_acc(b, upper, b_var(b, k)), b_idx(b, b_take_drop(b, PRIM_TAKE, rest, e), b_var(b, k)));
    body = b_seq(b, for_loop(s, rest, k, first, "slideSeq window", false, NULL),
                 for_loop(s, steps, i, b_seq(b, for_loop(s, rest, j, rotate, "slideSeq rotation", false, NULL), step),
                          "slideSeq", false, NULL));
  }
  return b_new(b, PRIM_NEW_PRIVATE, win_t, w, body);
}

/* h args[0] .. args[k], the spine old was (old applies args[k]): old's own
 * nodes where the arguments are the ones they hold, so that a spine stage
 * II leaves as it was is not copied (issue 35) */
static Phrase *respine(Stage2 *s, Phrase *old, Phrase *h, Phrase **args, int k) {
  if (k < 0) return h;
  return b_app_as(&s->b, old, respine(s, old->fst, h, args, k - 1), args[k]);
}

/* not inlined into rewrite, whose leaves then cost a call without
 * rewrite_node's frame (issue 35) */
static __attribute__((noinline)) Phrase *rewrite_node(Stage2 *s, Phrase *p);

/* A spine's head that is no primitive, which rewrite does not walk (a
 * lambda applied, normalised below; a variable), with the parameters
 * bound (apply_in_walk) substituted, as apply_n substituted them in the
 * spine the head stays at the head of */
static Phrase *substituted(Stage2 *s, Phrase *h) {
  int n = 0;
  for (const Bound *b = s->bound; b; b = b->next) n++;
  const Binder **params = NEWARRAY(s->b.arena, const Binder *, n);
  Phrase **args = NEWARRAY(s->b.arena, Phrase *, n);
  n = 0;
  for (const Bound *b = s->bound; b; b = b->next) {
    params[n] = b->param;
    args[n++] = b->arg;
  }
  return phrase_subst_shared_many(s->b.arena, s->b.tc, h, n, params, args, true, true);
}

/* rewrite_node p, noting what normalisation would change in the result.
 * Every phrase of the result is one rewrite gave back, a spine's head (or
 * its copy, substituted), or one the lowering made (an argument bound,
 * apply_in_walk, among them): the builder's (b_proj takes a pair apart, and
 * no constructor applies a lambda) or a copy by substitution of a
 * parameter of F, K or the step, of type exp or acc, by an idx, idxAcc or
 * projection of a variable, which neither is applied nor is a pair.  So
 * the lowering makes no redex: only a spine whose head is not a primitive
 * or variable, a def, or a projection of a pair, all of which the result
 * keeps as rewrite finds them, can be one. */
static Phrase *rewrite(Stage2 *s, Phrase *p) {
  s->visits++;
  Phrase *r = p; /* a leaf: as phrase_map_children gives it */
  switch (p->kind) {
  case PH_VAR:
    /* a parameter of a lambda being applied: its argument, which the
     * lowering made (apply_in_walk), unmarked as substitution left it */
    for (const Bound *b = s->bound; b; b = b->next)
      if (b->param == p->binder) return b->arg;
    break;
  case PH_LIT:
  case PH_PRIM: break;
  case PH_DEF: s->not_normal = true; break;
  case PH_LAM: s->met_lambda = true; /* fall through */
  default:
    r = rewrite_node(s, p);
    if (r->kind == PH_PROJ && r->fst->kind == PH_PAIR) s->not_normal = true;
    break;
  }
  r->normal_run = s->run;
  return r;
}

static Phrase *rewrite_node(Stage2 *s, Phrase *p) {
  if (p->kind == PH_APP) {
    /* the spine; a lowering rewrites its arguments, the rest are
     * rewritten here (the last one first) */
    PhraseSpine sp;
    phrase_spine(s->b.arena, p, &sp);
    Phrase *h = sp.head, **args = sp.args;
    int n = sp.nargs;
    s->visits += n; /* the head and the spine's inner applications */
    if (h->kind != PH_PRIM && h->kind != PH_VAR) {
      s->not_normal = true;
      if (has_lambda(h)) s->met_lambda = true; /* not walked */
    }
    /* the builder's span for what the lowering and respine make (what
     * the arguments' rewrite makes takes their own spines' spans) */
    Span saved = s->b.span;
    s->b.span = p->span;
    Phrase *r = NULL;
    if (h->kind == PH_PRIM) {
      /* the intermediate combinators (Figure 4c) go; the rest stays */
      DPIA_EXHAUSTIVE_BEGIN
      switch (h->prim) {
      PRIM_CASES_MAP_I:
        if (n == 3) r = lower_map_i(s, h, args);
        break;
      case PRIM_REDUCE_I:
        if (n == 4) r = lower_reduce_i(s, h, args, false);
        break;
      case PRIM_REDUCE_RANGE_I:
        if (n == 6) r = lower_reduce_i(s, h, args, true);
        break;
      PRIM_CASES_SCAN_I:
        if (n == 4) r = lower_scan_i(s, args);
        break;
      PRIM_CASES_WINDOW_I:
        if (n == 3) r = lower_slide_seq_i(s, h, args);
        break;
      PRIM_CASES_MAP:
      PRIM_CASES_REDUCE:
      PRIM_CASES_SCAN:
      PRIM_CASES_REDUCE_RANGE: /* stage I translated it to reduceRangeI */
      PRIM_CASES_WINDOW:
      PRIM_CASES_VIEW:
      PRIM_CASES_MEMORY:
      PRIM_CASES_SCALAR:
      PRIM_CASES_MATH:
      PRIM_CASES_CONVERT:
      PRIM_CASES_FOREIGN:
      PRIM_CASES_SKIP:
      PRIM_CASES_NEW:
      PRIM_CASES_FOR:
      PRIM_CASES_FOR_RANGE:
      PRIM_CASES_IF:
      PRIM_CASES_PARFOR:
      PRIM_CASES_VIEW_ACC:
      case PRIM_COUNT: break;
      }
      DPIA_EXHAUSTIVE_END
    }
    if (!r) {
      for (int k = n - 1; k >= 0; k--) args[k] = rewrite(s, args[k]);
      if (s->bound && h->kind != PH_PRIM) h = substituted(s, h);
      r = respine(s, p, h, args, n - 1); /* redexes: normalised below */
    }
    s->b.span = saved;
    return r;
  }
  /* phrase_map_children(p, rewrite): p with its children rewritten, p
   * itself where none changes, else a copy unmarked; here, where rewrite
   * calls itself without a call through a function pointer a child
   * (issue 35) */
  if (p->kind == PH_LAM) {
    Phrase *body = rewrite(s, p->body);
    if (body == p->body) return p;
    Phrase *q = arena_dup(s->b.arena, p, sizeof *p);
    q->normal_run = 0;
    q->body = body;
    return q;
  }
  Phrase *fst = rewrite(s, p->fst);
  Phrase *snd = p->kind != PH_PROJ && p->kind != PH_UNOP ? rewrite(s, p->snd) : p->snd;
  if (fst == p->fst && snd == p->snd) return p;
  Phrase *q = arena_dup(s->b.arena, p, sizeof *p);
  q->normal_run = 0;
  q->fst = fst;
  q->snd = snd;
  return q;
}

static DefInfo *stage2(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *intermediate, int form) {
  Stage2 s = {{a, tc, in, intermediate->body->span, {{0}}}, ++tc->norm_runs, false, 0, NULL, false, form};
  DefInfo *d = NEW(a, DefInfo);
  *d = *intermediate;
  size_t before = a->total;
  Phrase *body = rewrite(&s, intermediate->body);
  /* The result's nodes: those rewrite walked (with the spines' heads and
   * inner applications) and at most one a sizeof(Phrase) of the arena's
   * bytes handed out since.  With no redex (rewrite) and fewer nodes than
   * the depth limit, normalisation would walk the whole result only to
   * give it back as it is, every node marked normal: rewrite marked the
   * phrases it gave back (run), which hoisting's normalisation trusts as
   * its own (normalize_phrase_again, with this bound on the nodes under a
   * mark).  Else it runs, as before (issue 35: it was a sixth of the
   * stage's instructions). */
  long reach = s.visits + (long)((a->total - before) / sizeof(Phrase));
  if (!s.not_normal && reach < diag_depth_limit(diag, DPIA_MAX_NORMAL_DEPTH)) {
    tc->norm_reach = reach;
    d->body = body;
    return d;
  }
  d->body = normalize_phrase(a, tc, diag, body);
  return d->body ? d : NULL;
}

DefInfo *translate_stage2(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *intermediate) {
  return stage2(a, tc, in, diag, intermediate, 0);
}

DefInfo *translate_stage2_late(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *intermediate) {
  return stage2(a, tc, in, diag, intermediate, STAGE2_APPLY_LATE | STAGE2_REWRITE_VALUES);
}

DefInfo *translate_stage2_rewritten(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *intermediate) {
  return stage2(a, tc, in, diag, intermediate, STAGE2_REWRITE_VALUES);
}
