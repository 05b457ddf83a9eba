/* invariant.c: the invariants of the phrases each translation stage hands
 * to the next (phrase.h, phrase_invariant_violation), checked between the
 * passes in debug builds as QBE's ssacheck checks its SSA form.  A
 * violation is a bug of the stage that produced it, caught where it
 * happens rather than as a wrong kernel or a crash two stages later. */
#include "phrase.h"

/* The binders in scope: each binder's count of the lambdas (or def
 * parameters) binding it around the walk's position, kept in the binder
 * itself (Binder.in_scope) rather than in a table of pointers, whose
 * hashing and probing were a third of a walk's work (issue 35).  A binder
 * can be bound again inside its own scope by a copied continuation, hence
 * a count.  Every bind is undone before phrase_invariant_violation
 * returns, so the binders of a def are as they were (a translation's
 * binders are its own, not shared with another's: the library stays
 * reentrant). */
static void bind(const Binder *b) { ((Binder *)b)->in_scope++; }
static void unbind(const Binder *b) { ((Binder *)b)->in_scope--; }
static bool in_scope(const Binder *b) { return b->in_scope > 0; }

typedef struct Checker {
  Arena *arena;
  PhraseStage stage;
  const char *violation; /* the first one found */
  bool new_global;       /* a newGlobal met (PhraseFound) */
} Checker;

/* a primitive the stage should have translated away */
static bool left_over(Prim prim, PhraseStage stage) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (prim) {
  /* stage I: A[[ ]] and C[[ ]]; a plain map stays, as a view */
  case PRIM_MAP_SEQ:
  case PRIM_DEP_MAP_SEQ:
  case PRIM_MAP_GLOBAL:
  case PRIM_DEP_MAP_GLOBAL:
  case PRIM_MAP_WORKGROUP:
  case PRIM_DEP_MAP_WORKGROUP:
  case PRIM_MAP_LOCAL:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_WINDOW:
  PRIM_CASES_MEMORY: return true;
  /* stage II: the intermediate combinators */
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_WINDOW_I: return stage >= PHRASE_IMPERATIVE;
  /* hoisting: global memory becomes the kernel's parameters */
  case PRIM_NEW_GLOBAL: return stage >= PHRASE_HOISTED;
  case PRIM_MAP:
  PRIM_CASES_VIEW:
  PRIM_CASES_SCALAR:
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
  PRIM_CASES_FOREIGN:
  PRIM_CASES_SKIP:
  case PRIM_NEW:
  case PRIM_NEW_LOCAL:
  case PRIM_NEW_PRIVATE:
  PRIM_CASES_FOR:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  case PRIM_COUNT: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

bool phrase_left_over(Prim prim, PhraseStage stage) { return left_over(prim, stage); }

static void fail(Checker *c, const Phrase *p, const char *what) {
  if (!c->violation)
    c->violation = arena_printf(c->arena, "%s (a %s phrase from bytes %u-%u of the source)", what,
                                p->kind < PH_COUNT ? phrase_kind_name[p->kind] : "?", p->span.begin, p->span.end);
}

static bool is_fn(const PhraseType *t) { return t && (t->kind == PT_FN || t->kind == PT_FN_P); }

static void walk(Checker *c, const Phrase *p);

/* the invariants of primitive p, typed */
static inline __attribute__((always_inline)) void check_prim(Checker *c, const Phrase *p) {
  if (left_over(p->prim, c->stage))
    fail(c, p, arena_printf(c->arena, "primitive %s left by the stage", prim_info[p->prim].name));
  c->new_global |= p->prim == PRIM_NEW_GLOBAL;
}

/* The invariants of p, and with descend those of its sub-phrases (walk),
 * the first violation recorded (fail); without, of p itself (walk_both).
 * Inlined in both, so that walk is one switch a phrase (a few
 * instructions each: issue 35).  The walk goes on past a violation
 * rather than ask at every phrase whether one was found (issue 35: a
 * load and a branch a phrase, for a walk that finds none but in a bug):
 * each check reads only what the ones before it in p found well formed
 * (a type before its kind, a binder before its count), so the rest of a
 * broken tree is read as safely as the walk read the part before it. */
static inline __attribute__((always_inline)) void check(Checker *c, const Phrase *p, bool descend) {
  if (!descend && c->violation) return;
  if (!p->type) {
    fail(c, p, "a phrase without a type");
    return;
  }
  switch (p->kind) {
  case PH_VAR:
    if (!p->binder)
      fail(c, p, "a variable without a binder");
    else if (!in_scope(p->binder))
      fail(c, p, arena_printf(c->arena, "variable '%s' used outside the scope of its binder", p->binder->name));
    else if (p->binder->nuses < 0)
      /* stage I applied the continuation \x -> body by overwriting x's
       * one variable (stage1.c, apply_k): another is a copy made before,
       * left behind */
      fail(c, p, arena_printf(c->arena, "a variable of continuation parameter '%s', which stage I consumed",
                              p->binder->name));
    return;
  case PH_PRIM: check_prim(c, p); return;
  case PH_LAM:
    if (!is_fn(p->type)) fail(c, p, "a lambda without a function type");
    if (!descend) return;
    bind(p->lam_binder);
    walk(c, p->body);
    unbind(p->lam_binder);
    return;
  case PH_APP:
    if (!is_fn(p->fst->type)) fail(c, p, "an application of a phrase without a function type");
    /* no command below a value (phrase_is_value), which the passes that
     * rewrite commands only skip: every primitive that takes one gives
     * a command (test prims-table), and a value applies nothing else to
     * one */
    if (phrase_is_value(p) && !phrase_is_value(p->snd) && p->snd->type && phrase_type_holds_comm(p->snd->type))
      fail(c, p, "an expression or acceptor applied to a command");
    break;
  case PH_SEQ:
  case PH_ASSIGN:
    if (p->type->kind != PT_COMM) fail(c, p, "a command whose type is not comm");
    break;
  case PH_PAIR:
  case PH_BINOP: break;
  case PH_PROJ:
  case PH_UNOP:
    if (descend) walk(c, p->fst);
    return;
  case PH_LIT:
  case PH_DEF: return;
  case PH_COUNT: fail(c, p, "a phrase of no known kind"); return;
  }
  if (!descend) return;
  /* a spine's head, checked here rather than by a call of its own (a
   * primitive heads most applications: issue 35) */
  if (p->fst->kind == PH_PRIM && p->fst->type)
    check_prim(c, p->fst);
  else
    walk(c, p->fst);
  walk(c, p->snd);
}

static void walk(Checker *c, const Phrase *p) { check(c, p, true); }

/* the walk of every phrase of def; found, if not NULL, what it met */
static const char *violation(Arena *a, const DefInfo *def, PhraseStage stage, PhraseFound *found) {
  Checker c = {a, stage, NULL, false};
  if (!def->body) return "a def without a body";
  if (def->body->type && def->body->type->kind != PT_COMM) return "the body of the def is not a command";
  for (int i = 0; i < def->nparams; i++) bind(def->params[i]);
  walk(&c, def->body);
  for (int i = 0; i < def->nparams; i++) unbind(def->params[i]);
  if (found && !c.violation) *found = (PhraseFound){true, c.new_global};
  return c.violation;
}

const char *phrase_invariant_violation(Arena *a, const DefInfo *def, PhraseStage stage) {
  return violation(a, def, stage, NULL);
}

/* the first primitive in p left by stage that was not by the stage
 * before (left_over), p's invariants holding at before.  Those are the
 * intermediate combinators and newGlobal (the functional ones are left
 * over from the first stage on), each of a type that holds a command,
 * which no value holds (the check of before, walk): values are not
 * looked into. */
static void walk_left_over(Checker *c, const Phrase *p, PhraseStage before) {
  for (;;) {
    if (c->violation || phrase_is_value(p)) return;
    switch (p->kind) {
    case PH_PRIM:
      if (left_over(p->prim, c->stage) && !left_over(p->prim, before))
        fail(c, p, arena_printf(c->arena, "primitive %s left by the stage", prim_info[p->prim].name));
      return;
    case PH_VAR:
    case PH_LIT:
    case PH_DEF:
    case PH_COUNT: return;
    case PH_LAM: p = p->body; continue;
    case PH_PROJ:
    case PH_UNOP: p = p->fst; continue;
    case PH_APP:
    case PH_PAIR:
    case PH_SEQ:
    case PH_ASSIGN:
    case PH_BINOP:
      walk_left_over(c, p->fst, before);
      p = p->snd;
      continue;
    }
    return;
  }
}

/* newGlobal or newLocal d (\v -> body): an allocation hoisting moves */
static const Binder *moved_allocation(const Phrase *p) {
  return p->kind == PH_APP && p->fst->kind == PH_PRIM &&
                 (p->fst->prim == PRIM_NEW_GLOBAL || p->fst->prim == PRIM_NEW_LOCAL) && p->snd->kind == PH_LAM
             ? p->snd->lam_binder
             : NULL;
}

/* a, the output of the stage, walked together with b, the phrase of the
 * stage before's output in its place, whose invariants held there.  At
 * every pair the binders around a are at least those around b: the walk
 * goes down a lambda of both only where it is the same binder's, past
 * an allocation of a (one hoisting put at the kernel's scope) binding
 * its variable, and past an allocation of b only where a binds its
 * variable already (hoisting moved it out, keeping its binder).  So a
 * phrase of b given back as it is (a == b) holds every invariant it held
 * in b, its variables in scope among them, but for the primitives the
 * stage removes: only those are looked for (walk_left_over).  Where the
 * two part (a stage's rewrite: a lowered combinator, a use of a buffer
 * hoisting widened), a is walked in full. */
static void walk_both(Checker *c, const Phrase *a, const Phrase *b, PhraseStage before, bool none_left) {
  if (c->violation) return;
  if (a == b) {
    if (!none_left) walk_left_over(c, a, before);
    return;
  }
  const Binder *moved = moved_allocation(b), *made = moved_allocation(a);
  if (moved && moved != made && in_scope(moved)) {
    walk_both(c, a, b->snd->body, before, none_left);
    return;
  }
  if (made && made != moved) {
    check(c, a, false);
    check(c, a->fst, false);
    check(c, a->snd, false);
    if (c->violation) return;
    bind(made);
    walk_both(c, a->snd->body, b, before, none_left);
    unbind(made);
    return;
  }
  if (a->kind != b->kind || (a->kind == PH_LAM && a->lam_binder != b->lam_binder)) {
    walk(c, a);
    return;
  }
  check(c, a, false);
  if (c->violation) return;
  switch (a->kind) {
  case PH_LAM:
    bind(a->lam_binder);
    walk_both(c, a->body, b->body, before, none_left);
    unbind(a->lam_binder);
    return;
  case PH_APP:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_PAIR:
  case PH_BINOP:
    walk_both(c, a->fst, b->fst, before, none_left);
    walk_both(c, a->snd, b->snd, before, none_left);
    return;
  case PH_PROJ:
  case PH_UNOP: walk_both(c, a->fst, b->fst, before, none_left); return;
  case PH_VAR:
  case PH_PRIM:
  case PH_LIT:
  case PH_DEF:
  case PH_COUNT: return;
  }
}

const char *phrase_invariant_violation_after(Arena *a, const DefInfo *def, PhraseStage stage, const DefInfo *before,
                                             PhraseStage before_stage) {
  return phrase_invariant_violation_noting(a, def, stage, before, before_stage, NULL, NULL);
}

/* Whether the primitives stage removes that before_stage left (left_over)
 * are newGlobal alone: so where the walk of before met none, none of its
 * phrases holds one (test invariant checks it with phrase_left_over for
 * every primitive) */
static bool removes_new_global_only(PhraseStage stage, PhraseStage before_stage) {
  return stage == PHRASE_HOISTED && before_stage == PHRASE_IMPERATIVE;
}

const char *phrase_invariant_violation_noting(Arena *a, const DefInfo *def, PhraseStage stage, const DefInfo *before,
                                              PhraseStage before_stage, const PhraseFound *in_before,
                                              PhraseFound *found) {
  if (found) *found = (PhraseFound){false, false};
  if (before_stage > stage || !def->body || !before->body) return violation(a, def, stage, found);
  /* a phrase of before given back as it is holds no primitive the stage
   * removes where the walk of all of before met none: not looked into
   * (walk_left_over) */
  bool none_left = in_before && in_before->known && !in_before->new_global && removes_new_global_only(stage, before_stage);
  Checker c = {a, stage, NULL, false};
  bool same = def->body == before->body && def->nparams == before->nparams;
  for (int i = 0; same && i < def->nparams; i++) same = def->params[i] == before->params[i];
  if (same) {
    /* the very phrases under the very parameters: every check gives what
     * it gave for before, but the primitives this stage should have
     * removed */
    if (!none_left) walk_left_over(&c, def->body, before_stage);
    return c.violation;
  }
  /* The walk together pays where the stage gives back most of the
   * program as it was (hoisting: all but the paths to the buffers it
   * moves); stage II rewrites most of it (each map's body lowered, its
   * element substituted), which is walked in full.  before's parameters
   * must be among def's (hoisting adds its global buffers). */
  if (stage != PHRASE_HOISTED) return violation(a, def, stage, found);
  for (int i = 0; i < before->nparams; i++) {
    bool kept = false;
    for (int j = 0; j < def->nparams && !kept; j++) kept = def->params[j] == before->params[i];
    if (!kept) return violation(a, def, stage, found);
  }
  if (def->body->type && def->body->type->kind != PT_COMM) return "the body of the def is not a command";
  for (int i = 0; i < def->nparams; i++) bind(def->params[i]);
  walk_both(&c, def->body, before->body, before_stage, none_left);
  for (int i = 0; i < def->nparams; i++) unbind(def->params[i]);
  return c.violation;
}
