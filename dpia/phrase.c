/* phrase.c: taking phrases apart (phrase.h). */
#include "phrase.h"

void phrase_spine(Arena *a, const Phrase *p, PhraseSpine *s) {
  s->head = (Phrase *)p;
  s->nargs = 0;
  while (s->head->kind == PH_APP) {
    s->nargs++;
    s->head = s->head->fst;
  }
  s->args = s->nargs <= (int)DPIA_COUNTOF(s->few_args) ? s->few_args : NEWARRAY(a, Phrase *, s->nargs);
  const Phrase *q = p;
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
