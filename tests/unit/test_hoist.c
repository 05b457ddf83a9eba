/* test_hoist.c: hoisting (translate/hoist.c) skips a value that holds no
 * use of a hoisted variable, giving it back as its walk would, and keeps
 * the binder of a buffer it widens by no loop; against the walk of every
 * phrase with a new binder for every buffer (translate_hoist_walked) on
 * every kernel of the files given (the samples): the same hoisted
 * program, printed, the same parameters, and the same binders as code
 * generation reads them (same_binders); and the invariants of its result
 * hold, checked in full and walked together with stage II's output.  Prints `hoist: K kernels, L with hoisted memory,
 * F failed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"
#include "translate.h"

typedef struct Tally {
  int kernels, hoisting, checked, failed;
} Tally;

static const char *printed(Arena *a, const DefInfo *d) {
  Buf b;
  buf_init(&b, a);
  def_print(&b, d, NULL);
  return b.data;
}

/* the binders of the lambdas of a and b, walked together (the same
 * shape: the printed programs are the same), the same in what code
 * generation reads of them: name, type, the loops a kernel-scope buffer
 * was moved out of, the work-items that own its elements, volatile
 * (hoisting keeps a buffer's binder where it widens it by no loop, and
 * makes a new one where it does) */
static const char *same_binders(Arena *a, const Phrase *p, const Phrase *q) {
  if (p->kind != q->kind) return "the shapes differ";
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF:
  case PH_COUNT: return NULL;
  case PH_LAM: {
    const Binder *x = p->lam_binder, *y = q->lam_binder;
    if (strcmp(x->name, y->name) != 0 || strcmp(pt_str(a, x->type), pt_str(a, y->type)) != 0 ||
        x->nhoisted_from != y->nhoisted_from || x->nowned_by != y->nowned_by ||
        x->volatile_local != y->volatile_local || x->permutation != y->permutation)
      return arena_printf(a, "binder %s differs", x->name);
    for (int k = 0; k < x->nhoisted_from; k++)
      if (x->hoisted_from[k] != y->hoisted_from[k]) return arena_printf(a, "binder %s: loops differ", x->name);
    for (int k = 0; k < x->nowned_by; k++)
      if (x->owned_by[k] != y->owned_by[k]) return arena_printf(a, "binder %s: owners differ", x->name);
    return same_binders(a, p->body, q->body);
  }
  case PH_PROJ:
  case PH_UNOP: return same_binders(a, p->fst, q->fst);
  default: {
    const char *why = same_binders(a, p->fst, q->fst);
    return why ? why : same_binders(a, p->snd, q->snd);
  }
  }
}

static void check_file(const char *path, Tally *t) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_hoist");
  CheckedProgram *cp = unit_check_file(&env, "test_hoist", path, false, &t->failed);
  for (int i = 0; cp && i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (!def->is_kernel || !def->ok) continue;
    Phrase *body = normalize_def(&env.arena, &env.tc, &env.diag, def);
    DefInfo *intermediate = body ? translate_stage1(&env.arena, &env.tc, &env.in, def, body) : NULL;
    DefInfo *imperative = intermediate ? translate_stage2(&env.arena, &env.tc, &env.in, &env.diag, intermediate) : NULL;
    if (!imperative) continue;
    t->kernels++;
    /* each hoisting as after stage II: with its bound on the nodes */
    long reach = env.tc.norm_reach;
    DefInfo *walked = translate_hoist_walked(&env.arena, &env.tc, &env.in, &env.diag, imperative);
    env.tc.norm_reach = reach;
    DefInfo *looked = translate_hoist(&env.arena, &env.tc, &env.in, &env.diag, imperative);
    const char *wrong = NULL;
    if (!walked || !looked)
      wrong = walked || looked ? "one hoists, the other does not" : NULL;
    else if (walked->nparams != looked->nparams)
      wrong = "the parameters differ";
    else if (strcmp(printed(&env.arena, walked), printed(&env.arena, looked)) != 0)
      wrong = "the hoisted programs differ";
    else
      wrong = same_binders(&env.arena, walked->body, looked->body);
    /* where stage II's output holds its invariants (not a kernel the
     * strategy check refuses, which this test translates too), those of
     * hoisting's hold, checked in full and walked together with stage
     * II's output (dpia/invariant.c, walk_both) */
    if (!wrong && looked && !phrase_invariant_violation(&env.arena, imperative, PHRASE_IMPERATIVE)) {
      t->checked++;
      const char *full = phrase_invariant_violation(&env.arena, looked, PHRASE_HOISTED);
      const char *both =
          phrase_invariant_violation_after(&env.arena, looked, PHRASE_HOISTED, imperative, PHRASE_IMPERATIVE);
      if (full || both)
        wrong = arena_printf(&env.arena, "invariants: %s; walked with stage II's: %s", full ? full : "hold",
                             both ? both : "hold");
    }
    for (int k = 0; !wrong && walked && looked && k < walked->nparams; k++)
      if (strcmp(walked->params[k]->name, looked->params[k]->name) != 0 ||
          strcmp(pt_str(&env.arena, walked->params[k]->type), pt_str(&env.arena, looked->params[k]->type)) != 0)
        wrong = "the parameters differ";
    if (wrong) {
      fprintf(stderr, "test_hoist: %s: kernel %s: %s\n", path, def->name, wrong);
      t->failed++;
    }
    if (walked && strcmp(printed(&env.arena, walked), printed(&env.arena, imperative)) != 0) t->hoisting++;
  }
  arena_free(&env.arena);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_hoist FILE.dpia...\n");
    return 2;
  }
  Tally t = {0, 0, 0, 0};
  for (int i = 1; i < argc; i++) check_file(argv[i], &t);
  if (!t.hoisting) {
    fprintf(stderr, "test_hoist: no kernel hoists memory: the skip is not tested\n");
    t.failed++;
  }
  printf("hoist: %d kernels, %d with hoisted memory, %d with their invariants checked, %d failed\n", t.kernels,
         t.hoisting, t.checked, t.failed);
  return t.failed ? 1 : 0;
}
