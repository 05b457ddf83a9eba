/* invariant.c: the invariants of the phrases each translation stage hands
 * to the next (phrase.h, phrase_invariant_violation), checked between the
 * passes in debug builds as QBE's ssacheck checks its SSA form.  A
 * violation is a bug of the stage that produced it, caught where it
 * happens rather than as a wrong kernel or a crash two stages later. */
#include "phrase.h"

/* The binders in scope, a set of pointers with a count each (a binder can
 * be bound again inside its own scope by a copied continuation), by open
 * addressing over a table kept at most half full: when it fills, it is
 * made again with room for four times the binders then in scope, without
 * those that went out of scope. */
typedef struct Scope {
  Arena *arena;
  const Binder **keys;
  int *count;
  size_t mask;
  size_t used, live; /* slots taken; binders in scope (count > 0) */
} Scope;

static void scope_init(Scope *s, Arena *a, size_t cap) {
  *s = (Scope){a, NEWARRAY(a, const Binder *, cap), NEWARRAY(a, int, cap), cap - 1, 0, 0};
}

static size_t slot(const Scope *s, const Binder *b) {
  size_t i = ((uintptr_t)b >> 4) * 0x9E3779B97F4A7C15u & s->mask;
  while (s->keys[i] && s->keys[i] != b) i = (i + 1) & s->mask;
  return i;
}

static void rehash(Scope *s) {
  Scope old = *s;
  size_t cap = 16;
  while (cap < 4 * (old.live + 1)) cap *= 2;
  scope_init(s, old.arena, cap);
  for (size_t i = 0; i <= old.mask; i++) {
    if (old.count[i] <= 0) continue;
    size_t j = slot(s, old.keys[i]);
    s->keys[j] = old.keys[i];
    s->count[j] = old.count[i];
    s->used++;
    s->live++;
  }
}

static void bind(Scope *s, const Binder *b) {
  if (2 * (s->used + 1) > s->mask + 1) rehash(s);
  size_t i = slot(s, b);
  if (!s->keys[i]) {
    s->keys[i] = b;
    s->used++;
  }
  if (s->count[i]++ == 0) s->live++;
}

static void unbind(Scope *s, const Binder *b) {
  size_t i = slot(s, b);
  if (--s->count[i] == 0) s->live--;
}

static bool in_scope(const Scope *s, const Binder *b) {
  size_t i = slot(s, b);
  return s->keys[i] == b && s->count[i] > 0;
}

typedef struct Checker {
  Arena *arena;
  Scope scope;
  PhraseStage stage;
  const char *violation; /* the first one found */
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

static void fail(Checker *c, const Phrase *p, const char *what) {
  if (!c->violation)
    c->violation = arena_printf(c->arena, "%s (a %s phrase from bytes %u-%u of the source)", what,
                                p->kind < PH_COUNT ? phrase_kind_name[p->kind] : "?", p->span.begin, p->span.end);
}

static bool is_fn(const PhraseType *t) { return t && (t->kind == PT_FN || t->kind == PT_FN_P); }

/* records the first violation in p; the walk stops there */
static void walk(Checker *c, const Phrase *p) {
  if (c->violation) return;
  if (!p->type) {
    fail(c, p, "a phrase without a type");
    return;
  }
  switch (p->kind) {
  case PH_VAR:
    if (!p->binder)
      fail(c, p, "a variable without a binder");
    else if (!in_scope(&c->scope, p->binder))
      fail(c, p, arena_printf(c->arena, "variable '%s' used outside the scope of its binder", p->binder->name));
    return;
  case PH_PRIM:
    if (left_over(p->prim, c->stage))
      fail(c, p, arena_printf(c->arena, "primitive %s left by the stage", prim_info[p->prim].name));
    return;
  case PH_LAM:
    if (!is_fn(p->type)) fail(c, p, "a lambda without a function type");
    bind(&c->scope, p->lam_binder);
    walk(c, p->body);
    unbind(&c->scope, p->lam_binder);
    return;
  case PH_APP:
    if (!is_fn(p->fst->type)) fail(c, p, "an application of a phrase without a function type");
    break;
  case PH_SEQ:
  case PH_ASSIGN:
    if (p->type->kind != PT_COMM) fail(c, p, "a command whose type is not comm");
    break;
  case PH_PAIR:
  case PH_BINOP: break;
  case PH_PROJ:
  case PH_UNOP: walk(c, p->fst); return;
  case PH_LIT:
  case PH_DEF: return;
  case PH_COUNT: fail(c, p, "a phrase of no known kind"); return;
  }
  walk(c, p->fst);
  walk(c, p->snd);
}

const char *phrase_invariant_violation(Arena *a, const DefInfo *def, PhraseStage stage) {
  Checker c = {a, {0}, stage, NULL};
  if (!def->body) return "a def without a body";
  scope_init(&c.scope, a, 64);
  for (int i = 0; i < def->nparams; i++) bind(&c.scope, def->params[i]);
  if (def->body->type && def->body->type->kind != PT_COMM) return "the body of the def is not a command";
  walk(&c, def->body);
  return c.violation;
}
