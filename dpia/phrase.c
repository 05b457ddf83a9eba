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
