/* test_hoist.c: hoisting (translate/hoist.c) skips a value that holds no
 * use of a hoisted variable, giving it back as its walk would; against
 * the walk of every phrase (translate_hoist_walked) on every kernel of
 * the files given (the samples): the same hoisted program, printed, and
 * the same parameters.  Prints `hoist: K kernels, L with hoisted memory,
 * F failed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"
#include "translate.h"

typedef struct Tally {
  int kernels, hoisting, failed;
} Tally;

static const char *printed(Arena *a, const DefInfo *d) {
  Buf b;
  buf_init(&b, a);
  def_print(&b, d, NULL);
  return b.data;
}

static void check_file(const char *path, Tally *t) {
  size_t len;
  char *text = unit_slurp(path, &len);
  if (!text) {
    perror(path);
    t->failed++;
    return;
  }
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_hoist");
  CheckedProgram *cp = unit_check_text(&env, path, text, len);
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
    if (wrong) {
      fprintf(stderr, "test_hoist: %s: kernel %s: %s\n", path, def->name, wrong);
      t->failed++;
    }
    if (walked && strcmp(printed(&env.arena, walked), printed(&env.arena, imperative)) != 0) t->hoisting++;
  }
  arena_free(&env.arena);
  free(text);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_hoist FILE.dpia...\n");
    return 2;
  }
  Tally t = {0, 0, 0};
  for (int i = 1; i < argc; i++) check_file(argv[i], &t);
  if (!t.hoisting) {
    fprintf(stderr, "test_hoist: no kernel hoists memory: the skip is not tested\n");
    t.failed++;
  }
  printf("hoist: %d kernels, %d with hoisted memory, %d failed\n", t.kernels, t.hoisting, t.failed);
  return t.failed ? 1 : 0;
}
