/* test_invariant.c: the invariants checked between the translation stages
 * in debug builds (dpia/invariant.c, phrase_invariant_violation): each
 * stage's real output holds those of its stage, and outputs broken on
 * purpose (a primitive the stage should have removed, a variable out of
 * its binder's scope or of a continuation parameter stage I consumed, a
 * phrase without a type, a command below an expression) are caught with
 * the reason; and checked as made from the stage before's output
 * (phrase_invariant_violation_after), the same; and with what the check
 * of the stage before's output found (phrase_invariant_violation_noting:
 * whether a newGlobal is left, which hoisting's check then need not look
 * for in the phrases it gives back), the same, the note right both ways
 * and hoisting removing no other primitive.
 * Prints `invariant: P passed, F failed`. */
#include <stdio.h>
#include <string.h>

#include "unit_env.h"
#include "translate.h"

static const char program[] =
    "kernel scal (N: nat) (alpha: float) (xs: [N]float) =\n"
    "  xs |> split 64 |> mapWorkgroup (\\c -> c |> mapLocal (\\x -> alpha * x)) |> join\n"
    "\n"
    "kernel shared (N: nat) (xs: [N]float) =\n"
    "  xs |> split 64 |> mapWorkgroup (\\c -> c |> toLocal (mapLocal (\\x -> x * 2.0)) |> mapLocal (\\y -> y + 1.0))\n"
    "     |> join\n"
    "\n"
    "def staged (N: nat) (output: acc[[N]float]) (xs: exp[[N]float]) =\n"
    "  newGlobal [N]float (\\tmp ->\n"
    "    parforGlobal tmp.1 (\\i o -> o := idx xs i);\n"
    "    parforGlobal output (\\i o -> o := idx tmp.2 i))\n";

typedef struct Tally {
  int passed, failed;
} Tally;

/* why is the violation expected (NULL: none) */
static void expect(Tally *t, const char *what, const char *why, const char *needle) {
  bool ok = needle ? why && strstr(why, needle) : !why;
  if (ok) {
    t->passed++;
    return;
  }
  t->failed++;
  fprintf(stderr, "test_invariant: %s: got %s, expected %s\n", what, why ? why : "no violation",
          needle ? needle : "no violation");
}

static DefInfo *find(CheckedProgram *cp, const char *name) {
  for (int i = 0; i < cp->ndefs; i++)
    if (strcmp(cp->defs[i]->name, name) == 0) return cp->defs[i];
  return NULL;
}

/* the first phrase of kind in p (depth first), or NULL */
static Phrase *first_of(Phrase *p, PhraseTermKind kind) {
  if (p->kind == kind) return p;
  switch (p->kind) {
  case PH_LAM: return first_of(p->body, kind);
  case PH_PROJ:
  case PH_UNOP: return first_of(p->fst, kind);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: {
    Phrase *q = first_of(p->fst, kind);
    return q ? q : first_of(p->snd, kind);
  }
  default: return NULL;
  }
}

/* binders of p still counted in scope after a check (Binder.in_scope):
 * every check must leave them as it found them, also one stopped early
 * by a violation */
static int left_bound(const Phrase *p) {
  switch (p->kind) {
  case PH_VAR: return p->binder && p->binder->in_scope != 0;
  case PH_LAM: return (p->lam_binder->in_scope != 0) + left_bound(p->body);
  case PH_PROJ:
  case PH_UNOP: return left_bound(p->fst);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return left_bound(p->fst) + left_bound(p->snd);
  default: return 0;
  }
}

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_invariant");
  CheckedProgram *cp = unit_check_text(&env, "invariant.dpia", program, strlen(program));
  DefInfo *k = cp ? find(cp, "scal") : NULL, *staged = cp ? find(cp, "staged") : NULL;
  Phrase *body = k ? normalize_def(&env.arena, &env.tc, &env.diag, k) : NULL;
  if (env.diag.nerrors || !body || !staged) {
    Buf b;
    buf_init(&b, &env.arena);
    diag_render_text(&env.diag, &b);
    fprintf(stderr, "test_invariant: the test program does not check:\n%s", b.data);
    arena_free(&env.arena);
    return 1;
  }
  Tally t = {0, 0};
  int left = 0;
  DefInfo *intermediate = translate_stage1(&env.arena, &env.tc, &env.in, k, body);
  DefInfo *imperative = translate_stage2(&env.arena, &env.tc, &env.in, &env.diag, intermediate);
  DefInfo *hoisted = imperative ? translate_hoist(&env.arena, &env.tc, &env.in, &env.diag, imperative) : NULL;
  if (!hoisted) {
    fprintf(stderr, "test_invariant: scal does not translate\n");
    arena_free(&env.arena);
    return 1;
  }
  /* each stage's output, against its own stage and a later one */
  expect(&t, "stage I output", phrase_invariant_violation(&env.arena, intermediate, PHRASE_INTERMEDIATE), NULL);
  expect(&t, "stage I output as stage II's", phrase_invariant_violation(&env.arena, intermediate, PHRASE_IMPERATIVE),
         "primitive mapI");
  expect(&t, "stage II output", phrase_invariant_violation(&env.arena, imperative, PHRASE_IMPERATIVE), NULL);
  expect(&t, "hoisted output", phrase_invariant_violation(&env.arena, hoisted, PHRASE_HOISTED), NULL);
  /* a newGlobal is fine before hoisting, not after */
  expect(&t, "newGlobal before hoisting", phrase_invariant_violation(&env.arena, staged, PHRASE_IMPERATIVE), NULL);
  expect(&t, "newGlobal after hoisting", phrase_invariant_violation(&env.arena, staged, PHRASE_HOISTED),
         "primitive newGlobal");
  /* a stage's output checked as made from the stage before's: where it
   * is that very program, only for what the stage removes (a newGlobal
   * hoisting left, found by the light walk); else in full */
  expect(&t, "hoisted output after stage II's",
         phrase_invariant_violation_after(&env.arena, hoisted, PHRASE_HOISTED, imperative, PHRASE_IMPERATIVE), NULL);
  expect(&t, "stage II output after stage I's",
         phrase_invariant_violation_after(&env.arena, imperative, PHRASE_IMPERATIVE, intermediate, PHRASE_INTERMEDIATE),
         NULL);
  expect(&t, "stage II output given back by hoisting",
         phrase_invariant_violation_after(&env.arena, imperative, PHRASE_HOISTED, imperative, PHRASE_IMPERATIVE), NULL);
  expect(&t, "newGlobal given back by hoisting",
         phrase_invariant_violation_after(&env.arena, staged, PHRASE_HOISTED, staged, PHRASE_IMPERATIVE),
         "primitive newGlobal");
  expect(
      &t, "stage I output given back by stage II",
      phrase_invariant_violation_after(&env.arena, intermediate, PHRASE_IMPERATIVE, intermediate, PHRASE_INTERMEDIATE),
      "primitive mapI");
  /* hoisting's output walked with stage II's (walk_both): a local buffer
   * moved to the kernel's scope, its binder kept */
  DefInfo *sk = find(cp, "shared");
  Phrase *sbody = sk ? normalize_def(&env.arena, &env.tc, &env.diag, sk) : NULL;
  DefInfo *s1 = sbody ? translate_stage1(&env.arena, &env.tc, &env.in, sk, sbody) : NULL;
  DefInfo *s2 = s1 ? translate_stage2(&env.arena, &env.tc, &env.in, &env.diag, s1) : NULL;
  DefInfo *s3 = s2 ? translate_hoist(&env.arena, &env.tc, &env.in, &env.diag, s2) : NULL;
  if (s3 && s3->body != s2->body && s3->body->kind == PH_APP && s3->body->snd->kind == PH_LAM) {
    expect(&t, "a local buffer hoisted, after stage II's",
           phrase_invariant_violation_after(&env.arena, s3, PHRASE_HOISTED, s2, PHRASE_IMPERATIVE), NULL);
    /* the buffer moved out, but bound nowhere */
    DefInfo unbound = *s3;
    unbound.body = s3->body->snd->body;
    expect(&t, "a hoisted buffer bound nowhere",
           phrase_invariant_violation_after(&env.arena, &unbound, PHRASE_HOISTED, s2, PHRASE_IMPERATIVE),
           "outside the scope of its binder");
    /* the same with what the check of stage II's output found (no
     * newGlobal: the phrases given back are not looked into) */
    PhraseFound s2_found;
    expect(&t, "a local buffer's stage II output, noted",
           phrase_invariant_violation_noting(&env.arena, s2, PHRASE_IMPERATIVE, s1, PHRASE_INTERMEDIATE, NULL, &s2_found),
           NULL);
    expect(&t, "no newGlobal noted in it", s2_found.known && !s2_found.new_global ? NULL : "noted wrong", NULL);
    expect(&t, "a local buffer hoisted, after stage II's noted",
           phrase_invariant_violation_noting(&env.arena, s3, PHRASE_HOISTED, s2, PHRASE_IMPERATIVE, &s2_found, NULL),
           NULL);
    expect(&t, "a hoisted buffer bound nowhere, after stage II's noted",
           phrase_invariant_violation_noting(&env.arena, &unbound, PHRASE_HOISTED, s2, PHRASE_IMPERATIVE, &s2_found,
                                             NULL),
           "outside the scope of its binder");
    left += left_bound(s3->body) + left_bound(s2->body);
  } else {
    expect(&t, "a local buffer hoisted", NULL, "a hoisted local buffer");
  }
  /* a program given back with a parameter more (not the very def): its
   * phrases given back as they are looked into for what hoisting
   * removes */
  DefInfo more = *staged;
  more.nparams = staged->nparams + 1;
  more.params = NEWARRAY(&env.arena, Binder *, more.nparams);
  for (int i = 0; i < staged->nparams; i++) more.params[i] = staged->params[i];
  more.params[staged->nparams] = hoisted->params[0];
  expect(&t, "newGlobal given back by hoisting, a parameter added",
         phrase_invariant_violation_after(&env.arena, &more, PHRASE_HOISTED, staged, PHRASE_IMPERATIVE),
         "primitive newGlobal");
  /* What a full check finds, for the next stage's: a newGlobal in staged,
   * none in scal's stage II output; hoisting's output that gives back a
   * program with a newGlobal is still caught with that note, and one
   * without none is looked into for one (nothing to find) */
  PhraseFound staged_found, scal_found;
  expect(&t, "newGlobal before hoisting, noted",
         phrase_invariant_violation_noting(&env.arena, staged, PHRASE_IMPERATIVE, intermediate, PHRASE_INTERMEDIATE,
                                           NULL, &staged_found),
         NULL);
  expect(&t, "a newGlobal noted", staged_found.known && staged_found.new_global ? NULL : "noted wrong", NULL);
  expect(&t, "newGlobal given back by hoisting, noted",
         phrase_invariant_violation_noting(&env.arena, staged, PHRASE_HOISTED, staged, PHRASE_IMPERATIVE, &staged_found,
                                           NULL),
         "primitive newGlobal");
  expect(&t, "stage II output, noted",
         phrase_invariant_violation_noting(&env.arena, imperative, PHRASE_IMPERATIVE, intermediate, PHRASE_INTERMEDIATE,
                                           NULL, &scal_found),
         NULL);
  expect(&t, "no newGlobal noted", scal_found.known && !scal_found.new_global ? NULL : "noted wrong", NULL);
  expect(&t, "hoisted output after stage II's noted",
         phrase_invariant_violation_noting(&env.arena, hoisted, PHRASE_HOISTED, imperative, PHRASE_IMPERATIVE,
                                           &scal_found, NULL),
         NULL);
  /* the note says nothing of what stage II removes: its input given back
   * is looked into */
  expect(&t, "stage I output given back by stage II, a note of no newGlobal",
         phrase_invariant_violation_noting(&env.arena, intermediate, PHRASE_IMPERATIVE, intermediate,
                                           PHRASE_INTERMEDIATE, &scal_found, NULL),
         "primitive mapI");
  /* a program given back as it is (walk_left_over) is not known whole */
  PhraseFound given_back;
  phrase_invariant_violation_noting(&env.arena, imperative, PHRASE_HOISTED, imperative, PHRASE_IMPERATIVE, &scal_found,
                                    &given_back);
  expect(&t, "nothing noted of a program given back", given_back.known ? "noted" : NULL, NULL);
  /* the note's premise: of the primitives left after stage II, hoisting
   * removes newGlobal alone (invariant.c, removes_new_global_only) */
  for (int p = 0; p < PRIM_COUNT; p++) {
    bool removed = phrase_left_over((Prim)p, PHRASE_HOISTED) && !phrase_left_over((Prim)p, PHRASE_IMPERATIVE);
    if (removed != (p == PRIM_NEW_GLOBAL))
      expect(&t, "the primitives hoisting removes", prim_info[p].name, "newGlobal alone");
  }
  /* a variable whose binder is nowhere above it */
  Phrase *var = first_of(imperative->body, PH_VAR);
  if (var) {
    Binder *saved = var->binder, stray = *saved;
    var->binder = &stray;
    expect(&t, "a stray variable", phrase_invariant_violation(&env.arena, imperative, PHRASE_IMPERATIVE),
           "outside the scope of its binder");
    /* another program than the stage before's: checked in full */
    expect(
        &t, "a stray variable after stage I's output",
        phrase_invariant_violation_after(&env.arena, imperative, PHRASE_IMPERATIVE, intermediate, PHRASE_INTERMEDIATE),
        "outside the scope of its binder");
    var->binder = saved;
  } else {
    expect(&t, "a variable in the imperative program", NULL, "a variable");
  }
  /* a variable of a continuation parameter stage I consumed (its one
   * variable overwritten in place, stage1.c apply_k), in scope: the
   * check translate_stage1_checked_after leaves to this one */
  Phrase *kvar = first_of(intermediate->body, PH_VAR);
  if (kvar && kvar->binder->nuses >= 0) {
    int saved = kvar->binder->nuses;
    kvar->binder->nuses = -1;
    expect(&t, "a consumed continuation's variable", phrase_invariant_violation(&env.arena, intermediate, PHRASE_INTERMEDIATE),
           "which stage I consumed");
    kvar->binder->nuses = saved;
  } else {
    expect(&t, "a variable in the intermediate program", NULL, "a variable");
  }
  /* the stage I the driver runs in debug builds, without its own walk,
   * gives the same program */
  DefInfo *unguarded = translate_stage1_checked_after(&env.arena, &env.tc, &env.in, k, body);
  expect(&t, "stage I output, its own walk left to this check",
         phrase_invariant_violation(&env.arena, unguarded, PHRASE_INTERMEDIATE), NULL);
  /* a phrase without a type */
  Phrase *assign = first_of(imperative->body, PH_ASSIGN);
  if (assign) {
    PhraseType *saved = assign->snd->type;
    assign->snd->type = NULL;
    expect(&t, "an untyped phrase", phrase_invariant_violation(&env.arena, imperative, PHRASE_IMPERATIVE),
           "without a type");
    /* two violations: the first in the walk's order is the one
     * reported, the walk going on past it (invariant.c, check) without
     * reading what the first left ill-formed */
    Phrase *stray_var = first_of(imperative->body, PH_VAR);
    Binder *bound = stray_var ? stray_var->binder : NULL, stray = bound ? *bound : (Binder){0};
    if (stray_var) stray_var->binder = &stray;
    expect(&t, "a stray variable before an untyped phrase",
           phrase_invariant_violation(&env.arena, imperative, PHRASE_IMPERATIVE),
           stray_var ? "outside the scope of its binder" : "a variable");
    if (stray_var) stray_var->binder = bound;
    assign->snd->type = saved;
  } else {
    expect(&t, "an assignment in the imperative program", NULL, "an assignment");
  }
  /* a command below an expression: (\c -> E) skip for the assignment's
   * E, which the passes that rewrite commands only would not enter */
  if (assign) {
    Phrase *saved = assign->snd;
    Binder *c = NEW(&env.arena, Binder);
    c->name = intern_cstr(&env.in, "c");
    c->type = env.tc.t_comm;
    Phrase *lam = NEW(&env.arena, Phrase), *skip = NEW(&env.arena, Phrase), *app = NEW(&env.arena, Phrase);
    *lam = (Phrase){.kind = PH_LAM, .type = pt_fn(&env.tc, c->type, saved->type), .lam_binder = c, .body = saved};
    *skip = (Phrase){.kind = PH_PRIM, .type = env.tc.t_comm, .prim = PRIM_SKIP};
    *app = (Phrase){.kind = PH_APP, .type = saved->type, .fst = lam, .snd = skip};
    assign->snd = app;
    expect(&t, "a command below an expression", phrase_invariant_violation(&env.arena, imperative, PHRASE_IMPERATIVE),
           "applied to a command");
    assign->snd = saved;
  }
  expect(&t, "stage II output, repaired", phrase_invariant_violation(&env.arena, imperative, PHRASE_IMPERATIVE), NULL);
  /* the checks stopped early (mapI, the stray variable) unbound what
   * they had bound */
  left += left_bound(intermediate->body) + left_bound(imperative->body) + left_bound(hoisted->body);
  for (int i = 0; i < hoisted->nparams; i++) left += hoisted->params[i]->in_scope != 0;
  expect(&t, "binders left in scope after the checks", left ? "some" : NULL, NULL);
  printf("invariant: %d passed, %d failed\n", t.passed, t.failed);
  arena_free(&env.arena);
  return t.failed ? 1 : 0;
}
