/* test_normalize.c: normalisation's look for a phrase normal as it is
 * (dpia/normalize.c, already_normal) against norm's walk of it
 * (normalize_phrase_walked), on the body of every kernel of the files
 * given (the samples): the same result, the very phrase given back where
 * the walk gives it back and only there, and the same reach (the bound
 * on the result's nodes the later stages trust, TypeCtx.norm_reach).
 * Both paths must be taken: some kernels normal as checked, others with
 * a def or a let to inline.  Prints `normalize: K kernels, N normal as
 * checked, F failed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"

typedef struct Tally {
  int kernels, as_checked, failed;
} Tally;

static void check_file(const char *path, Tally *t) {
  size_t len;
  char *text = unit_slurp(path, &len);
  if (!text) {
    perror(path);
    t->failed++;
    return;
  }
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_normalize");
  CheckedProgram *cp = unit_check_text(&env, path, text, len);
  if (!cp) {
    fprintf(stderr, "test_normalize: %s does not check\n", path);
    t->failed++;
  }
  for (int i = 0; cp && i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (!def->is_kernel || !def->ok || !def->body) continue;
    t->kernels++;
    Phrase *walked = normalize_phrase_walked(&env.arena, &env.tc, &env.diag, def->body);
    long walked_reach = env.tc.norm_reach;
    Phrase *looked = normalize_phrase(&env.arena, &env.tc, &env.diag, def->body);
    long looked_reach = env.tc.norm_reach;
    const char *wrong = NULL;
    if (!walked || !looked)
      wrong = walked || looked ? "one normalises, the other does not" : NULL;
    else if ((walked == def->body) != (looked == def->body))
      wrong = "one gives the body back as it is, the other a new phrase";
    else if (!phrase_alpha_equal(walked, looked))
      wrong = "the two normal forms differ";
    else if (walked_reach != looked_reach)
      wrong = "the two reaches differ";
    if (wrong) {
      fprintf(stderr, "test_normalize: %s: kernel %s: %s (reach %ld and %ld)\n", path, def->name, wrong, walked_reach,
              looked_reach);
      t->failed++;
    }
    if (looked == def->body) t->as_checked++;
  }
  arena_free(&env.arena);
  free(text);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_normalize FILE.dpia...\n");
    return 2;
  }
  Tally t = {0, 0, 0};
  for (int i = 1; i < argc; i++) check_file(argv[i], &t);
  /* both paths taken */
  if (t.as_checked == 0 || t.as_checked == t.kernels) {
    fprintf(stderr, "test_normalize: %d of %d kernels normal as checked: one path is not tested\n", t.as_checked,
            t.kernels);
    t.failed++;
  }
  printf("normalize: %d kernels, %d normal as checked, %d failed\n", t.kernels, t.as_checked, t.failed);
  return t.failed ? 1 : 0;
}
