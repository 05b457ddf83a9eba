/* test_pointwise.c: scir_uses_in (dpia/scir.c), the count of a binder's
 * variables that scir_pointwise_parfor asks first of every parfor code
 * generation lowers, walks a phrase in a loop down its longer operand and
 * counts an argument that is a variable without a call; it must count as
 * phrase_uses (dpia/phrase.c), the plain recursive walk.
 *
 * This test translates every kernel of the files it is given through
 * stages I and II and hoisting and, at every parfor of each stage's
 * output, compares the two counts in the parfor's body and in each of its
 * operands for every binder the kernel's program uses (the parfor's
 * accumulator among them), and at every phrase for the binders of its
 * own variables.  Prints `pointwise: K kernels, P parfors, C counts
 * compared, U of them not 0, F different`. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"
#include "translate.h"

enum { MAX_BINDERS = 512 };

typedef struct Walk {
  const char *where; /* file, kernel and stage, for messages */
  const Binder *binders[MAX_BINDERS];
  int nbinders;
  long parfors, compared, nonzero, wrong;
} Walk;

/* the binders of p's variables, each once */
static void collect(Walk *w, const Phrase *p) {
  switch (p->kind) {
  case PH_VAR:
    for (int i = 0; i < w->nbinders; i++)
      if (w->binders[i] == p->binder) return;
    if (w->nbinders < MAX_BINDERS) w->binders[w->nbinders++] = p->binder;
    return;
  case PH_LAM: collect(w, p->body); return;
  case PH_PROJ:
  case PH_UNOP: collect(w, p->fst); return;
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP:
    collect(w, p->fst);
    collect(w, p->snd);
    return;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF:
  case PH_COUNT: return;
  }
}

static int shown; /* the differences printed, the first few only */

static void compare(Walk *w, const Phrase *p, const Binder *x) {
  int fast = scir_uses_in(p, x), plain = phrase_uses(p, x);
  w->compared++;
  w->nonzero += plain != 0;
  if (fast == plain) return;
  w->wrong++;
  if (shown++ < 5)
    fprintf(stderr, "test_pointwise: %s: %d uses of '%s' counted, %d by phrase_uses\n", w->where, fast, x->name, plain);
}

static bool is_parfor(const Phrase *p) {
  if (p->kind != PH_APP || p->fst->kind != PH_APP || p->fst->fst->kind != PH_PRIM) return false;
  switch (p->fst->fst->prim) {
  case PRIM_PARFOR:
  case PRIM_PARFOR_GLOBAL:
  case PRIM_PARFOR_LOCAL:
  case PRIM_PARFOR_WORKGROUP: return true;
  default: return false;
  }
}

static void walk(Walk *w, const Phrase *p) {
  if (p->kind == PH_VAR) compare(w, p, p->binder);
  if (p->kind != PH_VAR && p->kind != PH_LAM && p->kind != PH_PROJ && p->kind != PH_UNOP && p->kind != PH_LIT &&
      p->kind != PH_PRIM && p->kind != PH_DEF) {
    if (p->snd->kind == PH_VAR) compare(w, p, p->snd->binder);
    if (p->fst->kind == PH_VAR) compare(w, p, p->fst->binder);
  }
  if (is_parfor(p)) {
    w->parfors++;
    for (int i = 0; i < w->nbinders; i++) {
      compare(w, p, w->binders[i]);
      compare(w, p->snd, w->binders[i]);
      compare(w, p->fst->snd, w->binders[i]);
    }
  }
  switch (p->kind) {
  case PH_LAM: walk(w, p->body); return;
  case PH_PROJ:
  case PH_UNOP: walk(w, p->fst); return;
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP:
    walk(w, p->fst);
    walk(w, p->snd);
    return;
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF:
  case PH_COUNT: return;
  }
}

/* every kernel of the file that translates, through the three stages */
static void check_file(const char *path, Walk *total, int *kernels) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_pointwise");
  int unreadable = 0;
  CheckedProgram *cp = unit_check_file(&env, "test_pointwise", path, false, &unreadable);
  total->wrong += unreadable;
  for (int i = 0; cp && i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (!def->is_kernel || !def->ok) continue;
    Phrase *body = normalize_def(&env.arena, &env.tc, &env.diag, def);
    if (!body) continue;
    DefInfo *stages[3];
    stages[0] = translate_stage1(&env.arena, &env.tc, &env.in, def, body);
    stages[1] = translate_stage2(&env.arena, &env.tc, &env.in, &env.diag, stages[0]);
    stages[2] = stages[1] ? translate_hoist(&env.arena, &env.tc, &env.in, &env.diag, stages[1]) : NULL;
    if (!stages[2]) continue;
    static const char *const names[3] = {"stage I", "stage II", "hoisted"};
    for (int s = 0; s < 3; s++) {
      Walk *w = calloc(1, sizeof *w);
      if (!w) abort();
      w->where = arena_printf(&env.arena, "%s: kernel %s, %s", path, def->name, names[s]);
      collect(w, stages[s]->body);
      walk(w, stages[s]->body);
      total->parfors += w->parfors;
      total->compared += w->compared;
      total->nonzero += w->nonzero;
      total->wrong += w->wrong;
      free(w);
    }
    ++*kernels;
  }
  arena_free(&env.arena);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_pointwise FILE.dpia...\n");
    return 2;
  }
  Walk total = {0};
  int kernels = 0;
  for (int i = 1; i < argc; i++) check_file(argv[i], &total, &kernels);
  printf("pointwise: %d kernels, %ld parfors, %ld counts compared, %ld of them not 0, %ld different\n", kernels,
         total.parfors, total.compared, total.nonzero, total.wrong);
  /* the files were translated, and counts of both kinds compared */
  bool read = kernels >= 100 && total.parfors > 100 && total.nonzero > 1000 && total.compared > total.nonzero;
  if (!read) fprintf(stderr, "test_pointwise: too few kernels, parfors or uses compared\n");
  return total.wrong || !read ? 1 : 0;
}
