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

bool phrase_computes(const Phrase *p) {
  switch (p->kind) {
  case PH_PRIM: return prim_computes(p->prim);
  case PH_VAR:
  case PH_LIT:
  case PH_DEF: return false;
  case PH_LAM: return phrase_computes(p->body);
  case PH_PROJ:
  case PH_UNOP: return phrase_computes(p->fst);
  default: return phrase_computes(p->fst) || phrase_computes(p->snd);
  }
}
