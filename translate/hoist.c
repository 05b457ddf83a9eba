/* hoist.c: allocation hoisting (paper section 6.4, spec section 7).
 *
 * OpenCL kernels cannot allocate global memory, and local memory is
 * declared at kernel scope.  So every newGlobal becomes a kernel parameter
 * and every newLocal moves to the top of the kernel.  An allocation made
 * inside a parallel loop exists once per iteration, so moving it out of
 * `parforX n` with loop variable i widens its type to [n]d and turns each
 * use v into the slice for that iteration: {idxAcc v.1 i, idx v.2 i}.
 * Local memory belongs to one work-group, so it is widened across
 * parforLocal only, never across parforWorkgroup; global memory is widened
 * across every parallel loop.  A sequential loop reuses the same storage in
 * each iteration, so it does not widen anything.  newPrivate stays where it
 * is. */
#include "translate.h"

#include "build.h"

typedef struct Loop {
  Prim prim;
  Size n;
  Binder *index;
} Loop;

typedef struct Hoist {
  Builder b;
  Loop *loops;
  int nloops, cap;
  Vec globals; /* Binder* of the new kernel parameters */
  Vec locals;  /* Binder* of kernel-scope local memory */
} Hoist;

static Phrase *hoist(Hoist *h, Phrase *p);

static bool widens(Prim memory, Prim loop) {
  if (memory == PRIM_NEW_LOCAL) return loop == PRIM_PARFOR_LOCAL;
  return loop == PRIM_PARFOR_GLOBAL || loop == PRIM_PARFOR_WORKGROUP || loop == PRIM_PARFOR_LOCAL ||
         loop == PRIM_PARFOR;
}

static Phrase *hoist_allocation(Hoist *h, Prim memory, DataType *t, Phrase *lam) {
  Builder *b = &h->b;
  TypeCtx *tc = b->tc;
  DataType *wide = t;
  for (int k = h->nloops - 1; k >= 0; k--)
    if (widens(memory, h->loops[k].prim)) wide = dt_array(tc, h->loops[k].n, wide);
  Binder *v = lam->lam_binder;
  Binder *nv = b_binder(b, v->name, pt_var(tc, wide));
  nv->span = v->span;
  Phrase *acc = b_proj(b, b_var(b, nv), 1), *exp = b_proj(b, b_var(b, nv), 2);
  for (int k = 0; k < h->nloops; k++) {
    if (!widens(memory, h->loops[k].prim)) continue;
    acc = b_idx_acc(b, acc, b_var(b, h->loops[k].index));
    exp = b_idx(b, exp, b_var(b, h->loops[k].index));
  }
  vec_push(b->arena, memory == PRIM_NEW_LOCAL ? &h->locals : &h->globals, nv);
  Phrase *body = phrase_subst(b->arena, tc, lam->body, v, b_pair(b, acc, exp));
  return hoist(h, body);
}

static Phrase *hoist_child(void *h, Phrase *p) { return hoist(h, p); }

static Phrase *hoist(Hoist *h, Phrase *p) {
  if (p->kind == PH_APP) {
    Phrase *fn = p->fst;
    if (fn->kind == PH_PRIM && (fn->prim == PRIM_NEW_GLOBAL || fn->prim == PRIM_NEW_LOCAL) &&
        p->snd->kind == PH_LAM) {
      Span saved = h->b.span;
      h->b.span = p->span;
      Phrase *r = hoist_allocation(h, fn->prim, fn->type_arg, p->snd);
      h->b.span = saved;
      return r;
    }
    /* parforX A (\i o -> body): the body runs once per i */
    if (fn->kind == PH_APP && fn->fst->kind == PH_PRIM && p->snd->kind == PH_LAM &&
        (fn->fst->prim == PRIM_PARFOR || fn->fst->prim == PRIM_PARFOR_GLOBAL ||
         fn->fst->prim == PRIM_PARFOR_WORKGROUP || fn->fst->prim == PRIM_PARFOR_LOCAL)) {
      if (h->nloops == h->cap) {
        int cap = h->cap ? h->cap * 2 : 8;
        Loop *loops = NEWARRAY(h->b.arena, Loop, cap);
        for (int k = 0; k < h->nloops; k++) loops[k] = h->loops[k];
        h->loops = loops;
        h->cap = cap;
      }
      h->loops[h->nloops++] = (Loop){fn->fst->prim, b_data(fn->snd)->size, p->snd->lam_binder};
      Phrase *q = arena_dup(h->b.arena, p, sizeof *p);
      q->snd = hoist(h, p->snd);
      h->nloops--;
      return q;
    }
  }
  return phrase_map_children(h->b.arena, p, hoist_child, h);
}

DefInfo *translate_hoist(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *imperative) {
  Hoist h = {{a, tc, in, imperative->body->span}, NULL, 0, 0, {0}, {0}};
  Phrase *body = hoist(&h, imperative->body);
  /* local memory at kernel scope, first allocation outermost */
  for (int k = h.locals.len - 1; k >= 0; k--) {
    Binder *v = h.locals.items[k];
    body = b_new(&h.b, PRIM_NEW_LOCAL, v->type->fst->data, v, body);
  }
  body = normalize_phrase(a, tc, diag, body);
  if (!body) return NULL;
  DefInfo *d = NEW(a, DefInfo);
  *d = *imperative;
  d->nparams = imperative->nparams + h.globals.len;
  d->params = NEWARRAY(a, Binder *, d->nparams);
  for (int k = 0; k < imperative->nparams; k++) d->params[k] = imperative->params[k];
  for (int k = 0; k < h.globals.len; k++) d->params[imperative->nparams + k] = h.globals.items[k];
  d->body = body;
  PhraseType *t = tc->t_comm;
  for (int k = d->nparams - 1; k >= 0; k--) t = pt_fn(tc, d->params[k]->type, t);
  d->type = t;
  return d;
}
