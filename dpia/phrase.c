/* phrase.c: taking phrases apart (phrase.h). */
#include "phrase.h"

void phrase_spine(Arena *a, const Phrase *p, PhraseSpine *s) {
  /* most spines (a primitive and its few arguments): one walk down the
   * applications, their arguments put in place from the last (issue 35:
   * the walk to count them and the walk to collect them were a twentieth
   * of the stages between the checker and code generation) */
  enum { FEW = DPIA_COUNTOF(s->few_args) };
  const Phrase *q = p;
  int n = 0;
  Phrase *last_first[FEW];
  while (q->kind == PH_APP && n < FEW) {
    last_first[n++] = q->snd;
    q = q->fst;
  }
  if (q->kind != PH_APP) {
    s->head = (Phrase *)q;
    s->nargs = n;
    s->args = s->few_args;
    for (int i = 0; i < n; i++) s->few_args[i] = last_first[n - 1 - i];
    return;
  }
  /* more: counted, then collected into the arena */
  s->head = (Phrase *)p;
  s->nargs = 0;
  while (s->head->kind == PH_APP) {
    s->nargs++;
    s->head = s->head->fst;
  }
  s->args = NEWARRAY(a, Phrase *, s->nargs);
  q = p;
  for (int i = s->nargs - 1; i >= 0; i--) {
    s->args[i] = q->snd;
    q = q->fst;
  }
}

int phrase_uses(const Phrase *p, const Binder *x) {
  switch (p->kind) {
  case PH_VAR: return p->binder == x;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return 0;
  case PH_LAM: return phrase_uses(p->body, x);
  case PH_PROJ:
  case PH_UNOP: return phrase_uses(p->fst, x);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return phrase_uses(p->fst, x) + phrase_uses(p->snd, x);
  case PH_COUNT: break;
  }
  INTERNAL("phrase kind %d", (int)p->kind);
}

/* the binders of the lambdas around the phrases compared, pairwise */
typedef struct BoundPair {
  const Binder *a, *b;
  const struct BoundPair *up;
} BoundPair;

static bool alpha_equal(const Phrase *a, const Phrase *b, const BoundPair *bound) {
  if (a->kind != b->kind || !a->type != !b->type || (a->type && !pt_equal(a->type, b->type))) return false;
  switch (a->kind) {
  case PH_VAR:
    for (const BoundPair *p = bound; p; p = p->up)
      if (p->a == a->binder || p->b == b->binder) return p->a == a->binder && p->b == b->binder;
    return a->binder == b->binder;
  case PH_LIT:
    if (a->lit_int != b->lit_int || a->lit_float != b->lit_float || a->lit_is_float != b->lit_is_float ||
        a->lit_is_size != b->lit_is_size || (a->lit_is_size && !size_eq(a->lit_size, b->lit_size)) ||
        a->lit_nelems != b->lit_nelems)
      return false;
    for (int i = 0; i < a->lit_nelems; i++)
      if (!alpha_equal(a->lit_elems[i], b->lit_elems[i], bound)) return false;
    return true;
  case PH_PRIM:
    if (a->prim != b->prim || a->dim != b->dim || a->foreign != b->foreign || a->dep_index != b->dep_index ||
        !a->type_arg != !b->type_arg || (a->type_arg && !dt_equal(a->type_arg, b->type_arg)))
      return false;
    for (int i = 0; i < prim_info[a->prim].nsizes; i++)
      if (!size_eq(a->sizes[i], b->sizes[i])) return false;
    return true;
  case PH_DEF: return a->def == b->def && a->subst == b->subst && a->nsizes_given == b->nsizes_given;
  case PH_LAM: {
    BoundPair here = {a->lam_binder, b->lam_binder, bound};
    return a->promoted == b->promoted && a->shares == b->shares && alpha_equal(a->body, b->body, &here);
  }
  case PH_PROJ: return a->index == b->index && alpha_equal(a->fst, b->fst, bound);
  case PH_UNOP: return a->unop == b->unop && alpha_equal(a->fst, b->fst, bound);
  case PH_BINOP:
    if (a->op != b->op) return false;
    return alpha_equal(a->fst, b->fst, bound) && alpha_equal(a->snd, b->snd, bound);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN: return alpha_equal(a->fst, b->fst, bound) && alpha_equal(a->snd, b->snd, bound);
  case PH_COUNT: break;
  }
  INTERNAL("phrase kind %d", (int)a->kind);
}

bool phrase_alpha_equal(const Phrase *a, const Phrase *b) { return a == b || alpha_equal(a, b, NULL); }

bool phrase_has_prim(const Phrase *p, bool (*pred)(Prim)) {
  switch (p->kind) {
  case PH_PRIM: return pred(p->prim);
  case PH_VAR:
  case PH_LIT:
  case PH_DEF: return false;
  case PH_LAM: return phrase_has_prim(p->body, pred);
  case PH_PROJ:
  case PH_UNOP: return phrase_has_prim(p->fst, pred);
  default: return phrase_has_prim(p->fst, pred) || phrase_has_prim(p->snd, pred);
  }
}

bool phrase_computes(const Phrase *p) { return phrase_has_prim(p, prim_computes); }

void phrase_set_size_literal(Phrase *p, Size k) {
  int64_t v;
  if (size_const_value(k, &v)) {
    p->lit_int = v;
    p->lit_float = (double)v;
  } else {
    p->lit_is_size = true;
    p->lit_size = k;
  }
}
