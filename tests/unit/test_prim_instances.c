/* test_prim_instances.c: the types the translation gives the primitives it
 * builds are instances of the table's signatures.
 *
 * Stages I and II and hoisting build typed phrases by hand
 * (translate/build.c, stage1.c, stage2.c): mapI, parfor, for, reduceI, new,
 * idx, idxAcc, the acceptor views.  Code generation reads those types, and
 * the imperative re-check (app/driver.c, pass_recheck) infers types afresh
 * from the printed program, so a hand-built type that disagrees with the
 * table would go unnoticed there.  This test translates every kernel of the
 * files it is given and unifies the type of every primitive in each
 * stage's output with its signature instantiated with the primitive's
 * static arguments (prim_type_is_instance).  Prints
 * `prim-instances: K kernels, P primitives, F not instances`. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"
#include "translate.h"

typedef struct Walk {
  Arena *arena;
  Interner *in;
  TypeCtx *tc;
  const char *where; /* file, kernel and stage, for messages */
  int prims, wrong;
} Walk;

static void walk(Walk *w, const Phrase *p) {
  switch (p->kind) {
  case PH_PRIM:
    w->prims++;
    if (!prim_type_is_instance(w->arena, w->in, w->tc, p)) {
      w->wrong++;
      fprintf(stderr, "test_prim_instances: %s: %s has type %s, not an instance of \"%s\"\n", w->where,
              prim_info[p->prim].name, pt_str(w->arena, p->type), prim_info[p->prim].signature);
    }
    return;
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
  case PH_DEF:
  case PH_COUNT: return;
  }
}

/* every kernel of the file, through the three stages; false if the file
 * cannot be read or has no kernel that translates */
static bool check_file(const char *path, Walk *total, int *kernels) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_prim_instances");
  int unreadable = 0;
  CheckedProgram *cp = unit_check_file(&env, "test_prim_instances", path, false, &unreadable);
  int translated = 0;
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
      Walk w = {&env.arena, &env.in, &env.tc, arena_printf(&env.arena, "%s: kernel %s, %s", path, def->name, names[s]), 0, 0};
      walk(&w, stages[s]->body);
      total->prims += w.prims;
      total->wrong += w.wrong;
    }
    translated++;
  }
  if (!translated && !unreadable) fprintf(stderr, "test_prim_instances: %s: no kernel translates\n", path);
  *kernels += translated;
  arena_free(&env.arena);
  return translated > 0;
}

/* the check itself: idx with its type, and with the array type as its
 * result (a wrong hand-built type); conversions of an index */
static bool self_test(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_prim_instances");
  TypeCtx *tc = &env.tc;
  Size four = size_const(&tc->sizes, 4);
  DataType *arr = dt_array(tc, four, tc->t_float);
  PhraseType *index = pt_exp(tc, dt_idx(tc, four));
  Phrase right = {.kind = PH_PRIM, .prim = PRIM_IDX};
  right.type = pt_fn(tc, pt_exp(tc, arr), pt_fn(tc, index, pt_exp(tc, tc->t_float)));
  Phrase wrong = right;
  wrong.type = pt_fn(tc, pt_exp(tc, arr), pt_fn(tc, index, pt_exp(tc, arr)));
  bool ok = prim_type_is_instance(&env.arena, &env.in, tc, &right) &&
            !prim_type_is_instance(&env.arena, &env.in, tc, &wrong);
  if (!ok) fprintf(stderr, "test_prim_instances: the instance check does not tell idx's type from a wrong one\n");
  /* toInt and toFloat of an index, as the checker types them (the int it
   * is, docs/language.md section 22), and toInt of one giving a float */
  Phrase to_int = {.kind = PH_PRIM, .prim = PRIM_TO_INT, .type = pt_fn(tc, index, pt_exp(tc, tc->t_int))};
  Phrase to_float = {.kind = PH_PRIM, .prim = PRIM_TO_FLOAT, .type = pt_fn(tc, index, pt_exp(tc, tc->t_float))};
  Phrase bad_int = {.kind = PH_PRIM, .prim = PRIM_TO_INT, .type = pt_fn(tc, index, pt_exp(tc, tc->t_float))};
  bool conv = prim_type_is_instance(&env.arena, &env.in, tc, &to_int) &&
              prim_type_is_instance(&env.arena, &env.in, tc, &to_float) &&
              !prim_type_is_instance(&env.arena, &env.in, tc, &bad_int);
  if (!conv) fprintf(stderr, "test_prim_instances: the instance check disagrees with the checker on a conversion of an index\n");
  ok = ok && conv;
  arena_free(&env.arena);
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_prim_instances FILE.dpia...\n");
    return 2;
  }
  if (!self_test()) return 1;
  Walk total = {0};
  int kernels = 0, bad_files = 0;
  for (int i = 1; i < argc; i++)
    if (!check_file(argv[i], &total, &kernels)) bad_files++;
  printf("prim-instances: %d kernels, %d primitives, %d not instances\n", kernels, total.prims, total.wrong);
  return total.wrong || bad_files ? 1 : 0;
}
