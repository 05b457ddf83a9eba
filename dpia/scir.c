/* scir.c: Syntactic Control of Interference with passivity (paper Figure 3,
 * spec section 3).
 *
 * Inference has already fixed every type; this pass decides whether a
 * derivation with the structural rules of Figure 3 exists.  For every
 * phrase it computes which free identifiers are used actively (the
 * context Γ) and which passively (Π):
 *
 *   Var       x is active, unless its type is passive (then Passify);
 *   Passify   whenever a phrase has a passive type, all its identifiers
 *             move to Π.  Doing this as early as possible is never worse:
 *             Activate can always move an identifier back, and only
 *             Promote and App constrain Γ;
 *   Lam       the bound identifier leaves both contexts (Activate first if
 *             needed);
 *   App       function and argument use disjoint active identifiers: an
 *             identifier active on one side may not appear on the other;
 *   Pair      (and ; and := whose argument is a phrase pair) share the
 *             context: no constraint;
 *   Promote   a function checked against a passive arrow (the bodies of
 *             parfor and mapI, user ->p types) may use no identifier
 *             actively;
 *   Derelict  a passive function may be used where a plain one is wanted.
 *
 * Primitives and defs are closed (Prim rule): they use nothing. */
#include "check.h"

#include <string.h>

typedef struct Use {
  Binder *binder;
  bool active;
  Span span; /* the first use (the first active use if active) */
} Use;

typedef struct Uses {
  int n, cap;
  Use *items;
} Uses;

/* The construct whose argument is being checked, for messages. */
typedef struct Context {
  const char *name; /* "parfor", "mapILocal", a def's name; NULL at top */
  Span span;
} Context;

typedef struct Scir {
  Arena *arena;
  Diag *diag;
  bool ok;
  int depth;
} Scir;

static void uses_add(Scir *s, Uses *u, Binder *b, bool active, Span span) {
  for (int i = 0; i < u->n; i++) {
    if (u->items[i].binder != b) continue;
    if (active && !u->items[i].active) {
      u->items[i].active = true;
      u->items[i].span = span;
    }
    return;
  }
  if (u->n == u->cap) {
    int cap = u->cap ? u->cap * 2 : 4;
    Use *items = NEWARRAY(s->arena, Use, cap);
    if (u->n) memcpy(items, u->items, sizeof(Use) * (size_t)u->n);
    u->items = items;
    u->cap = cap;
  }
  u->items[u->n++] = (Use){b, active, span};
}

static void uses_passify(Uses *u) {
  for (int i = 0; i < u->n; i++) u->items[i].active = false;
}

static void uses_remove(Uses *u, Binder *b) {
  for (int i = 0; i < u->n; i++)
    if (u->items[i].binder == b) {
      u->items[i] = u->items[--u->n];
      return;
    }
}

static const Use *uses_find(const Uses *u, Binder *b) {
  for (int i = 0; i < u->n; i++)
    if (u->items[i].binder == b) return &u->items[i];
  return NULL;
}

/* Pair rule (shared context): the union; active wins. */
static void uses_merge(Scir *s, Uses *into, const Uses *from) {
  for (int i = 0; i < from->n; i++) uses_add(s, into, from->items[i].binder, from->items[i].active, from->items[i].span);
}

static const char *head_name(const Phrase *fn) {
  while (fn->kind == PH_APP) fn = fn->fst;
  switch (fn->kind) {
  case PH_PRIM: return prim_info[fn->prim].name;
  case PH_DEF: return fn->def->name;
  case PH_VAR: return fn->binder->name;
  default: return NULL;
  }
}

static Span head_span(const Phrase *fn) {
  while (fn->kind == PH_APP) fn = fn->fst;
  return fn->span;
}

static void usage(Scir *s, const Phrase *p, Context ctx, Uses *out);

/* Promote: no identifier may be active.  Those that are get reported and
 * dropped, so the same mistake is not reported again by App further up. */
static void require_passive(Scir *s, Uses *u, Context ctx, const char *what) {
  for (int i = 0; i < u->n; i++) {
    Use copy = u->items[i];
    const Use *x = &copy;
    if (!x->active) continue;
    u->items[i--] = u->items[--u->n];
    s->ok = false;
    if (ctx.name) {
      diag_error(s->diag, x->span,
                 "'%s' is used actively inside the body of a '%s', whose body must be passive", x->binder->name,
                 ctx.name);
      diag_note(s->diag, ctx.span,
                "the %s of this '%s' may write only through the acceptor it is given (SCIR Promote, paper Figure 3)",
                what, ctx.name);
    } else {
      diag_error(s->diag, x->span, "'%s' is used actively inside a function that must be passive", x->binder->name);
    }
  }
}

/* Does a phrase of type have fit where want is expected?  Only the arrows
 * can differ (inference unified the rest).  A passive function fits a
 * plain arrow (Derelict); a plain one fits a passive arrow only at the top,
 * by Promote, which the caller checks. */
static bool arrows_fit(const PhraseType *have, const PhraseType *want, bool top) {
  switch (want->kind) {
  case PT_FN:
  case PT_FN_P:
    if (want->kind == PT_FN_P && have->kind == PT_FN && !top) return false;
    return arrows_fit(want->fst, have->fst, false) && arrows_fit(have->snd, want->snd, false);
  case PT_WITH: return arrows_fit(have->fst, want->fst, false) && arrows_fit(have->snd, want->snd, false);
  default: return true;
  }
}

static void usage_app(Scir *s, const Phrase *p, Uses *out) {
  Uses fu = {0}, au = {0};
  Context inner = {head_name(p->fst), head_span(p->fst)};
  usage(s, p->fst, inner, &fu);
  usage(s, p->snd, inner, &au);

  const PhraseType *want = p->fst->type->fst, *have = p->snd->type;
  if (p->snd->kind != PH_LAM) {
    if (!arrows_fit(have, want, true)) {
      s->ok = false;
      diag_error(s->diag, p->snd->span, "a passive function is required here (%s), but this has type %s",
                 pt_str(s->arena, want), pt_str(s->arena, have));
    } else if (want->kind == PT_FN_P && have->kind == PT_FN) {
      require_passive(s, &au, inner, "argument");
      uses_passify(&au);
    }
  }

  /* App: disjoint active identifiers */
  for (int i = 0; i < fu.n; i++) {
    const Use *x = &fu.items[i];
    const Use *y = uses_find(&au, x->binder);
    if (!y || (!x->active && !y->active)) continue;
    s->ok = false;
    const Use *act = y->active ? y : x, *other = y->active ? x : y;
    diag_error(s->diag, act->span,
               "'%s' is used actively here and also %s on the other side of this application; a function and "
               "its argument must not interfere (SCIR App, paper Figure 3)",
               x->binder->name, other->active ? "actively" : "passively");
    diag_note(s->diag, other->span, "the other use of '%s' is here", x->binder->name);
  }
  *out = fu;
  uses_merge(s, out, &au);
  if (pt_is_passive(p->type)) uses_passify(out);
}

static void usage(Scir *s, const Phrase *p, Context ctx, Uses *out) {
  *out = (Uses){0};
  if (++s->depth > 100000) INTERNAL("phrase nested beyond the checker's limits");
  switch (p->kind) {
  case PH_VAR: uses_add(s, out, p->binder, !pt_is_passive(p->type), p->span); break;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: break;
  case PH_LAM: {
    usage(s, p->body, ctx, out);
    uses_remove(out, p->lam_binder);
    if (p->promoted) require_passive(s, out, ctx, "body");
    if (pt_is_passive(p->type)) uses_passify(out);
    break;
  }
  case PH_APP: usage_app(s, p, out); break;
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: {
    Uses b;
    usage(s, p->fst, ctx, out);
    usage(s, p->snd, ctx, &b);
    uses_merge(s, out, &b);
    if (pt_is_passive(p->type)) uses_passify(out);
    break;
  }
  case PH_PROJ:
  case PH_UNOP:
    usage(s, p->fst, ctx, out);
    if (pt_is_passive(p->type)) uses_passify(out);
    break;
  case PH_COUNT: INTERNAL("phrase kind");
  }
  s->depth--;
}

bool scir_check_def(Arena *a, Diag *diag, DefInfo *def) {
  Scir s = {a, diag, true, 0};
  Uses u;
  usage(&s, def->body, (Context){NULL, def->body->span}, &u);
  return s.ok;
}
