/* test_normalize.c: normalisation's look for a phrase normal as it is
 * (dpia/normalize.c, already_normal) against norm's walk of it
 * (normalize_phrase_walked), on the body of every kernel of the files
 * given (the samples): the same result, the very phrase given back where
 * the walk gives it back and only there, and the same reach (the bound
 * on the result's nodes the later stages trust, TypeCtx.norm_reach).
 * Both paths must be taken: some kernels normal as checked, others with
 * a def or a let to inline.  And the look's by-product, whether the
 * result holds a plain map (normalize_phrase_holding, which spares the
 * write-through of view maps its own look): known exactly where the look
 * found the body normal, and right there (phrase_has_prim), both ways.
 * Prints `normalize: K kernels, N normal as checked (M with a plain map),
 * F failed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"

typedef struct Tally {
  int kernels, as_checked, with_map, failed;
} Tally;

static bool is_plain_map(Prim p) { return p == PRIM_MAP; }

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
    int holds_map;
    Phrase *looked = normalize_phrase_holding(&env.arena, &env.tc, &env.diag, def->body, &holds_map);
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
    else if ((holds_map >= 0) != (looked == def->body))
      wrong = "whether the result holds a plain map is known where the look did not find the body normal";
    else if (holds_map >= 0 && holds_map != phrase_has_prim(looked, is_plain_map))
      wrong = "the look says wrongly whether the result holds a plain map";
    if (holds_map > 0) t->with_map++;
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
  Tally t = {0, 0, 0, 0};
  for (int i = 1; i < argc; i++) check_file(argv[i], &t);
  /* both paths taken */
  if (t.as_checked == 0 || t.as_checked == t.kernels) {
    fprintf(stderr, "test_normalize: %d of %d kernels normal as checked: one path is not tested\n", t.as_checked,
            t.kernels);
    t.failed++;
  }
  /* and the look's answer about plain maps both ways */
  if (t.with_map == 0 || t.with_map == t.as_checked) {
    fprintf(stderr, "test_normalize: %d of %d kernels normal as checked hold a plain map: one answer is not tested\n",
            t.with_map, t.as_checked);
    t.failed++;
  }
  printf("normalize: %d kernels, %d normal as checked (%d with a plain map), %d failed\n", t.kernels, t.as_checked,
         t.with_map, t.failed);
  return t.failed ? 1 : 0;
}
