/* test_requirements.c: a declaration's requirements as a use instantiates
 * them (DefInfo.req_sizes, req_positive: dpia/unify.c,
 * settle_requirements), on every def and kernel of the files given (the
 * samples, the checker's and the other tests' programs) and on defs
 * written below to repeat one requirement from sizes made apart: each
 * distinct one kept once.  settle_requirements finds the ones before a
 * requirement through a table keyed on part of the size (requirement_key);
 * a key that two equal sizes did not share would keep both, and a def
 * used in a def used twice would carry them twice, doubling with each
 * level (tests/limits).  Prints `requirements: D defs, R kept, F failed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"

typedef struct Tally {
  int defs, kept, failed;
} Tally;

/* def's requirements kept twice: the first such pair's index, or -1 */
static int repeated(const DefInfo *def) {
  for (int i = 0; i < def->nreqs; i++)
    for (int j = 0; j < i; j++)
      if (def->req_positive[i] == def->req_positive[j] && size_eq(def->req_sizes[i], def->req_sizes[j])) return i;
  return -1;
}

static void check_text(const char *name, const char *text, size_t len, Tally *t) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_requirements");
  CheckedProgram *cp = unit_check_text(&env, name, text, len);
  for (int i = 0; cp && i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (!def->ok) continue;
    t->defs++;
    t->kept += def->nreqs;
    int at = repeated(def);
    if (at >= 0) {
      fprintf(stderr, "test_requirements: %s: def %s keeps its requirement %d twice\n", name, def->name, at);
      t->failed++;
    }
  }
  arena_free(&env.arena);
}

int main(int argc, char **argv) {
  Tally t = {0, 0, 0};
  for (int i = 1; i < argc; i++) {
    size_t len;
    char *text = unit_slurp(argv[i], &len);
    if (!text) {
      perror(argv[i]);
      t.failed++;
      continue;
    }
    check_text(argv[i], text, len, &t);
    free(text);
  }
  /* N/4 natural, N/4/8 natural, required again by each view from sizes
   * made anew (and by a def's use), more than settle_requirements keeps
   * in one chain */
  static const char repeats[] =
      "def halves (N: nat) (xs: [N]float) (ys: [N]float) =\n"
      "  zip (split 4 xs) (split 4 ys) |> split 8 |> join |> unzip |> fst |> join\n"
      "def twice (N: nat) (xs: [N]float) (ys: [N]float) =\n"
      "  zip (halves xs ys) (halves ys xs) |> unzip |> snd\n"
      "kernel k (N: nat) (xs ys: [N]float) =\n"
      "  zip (twice xs ys) (twice ys xs) |> split 4 |> split 8 |> join |> join |> mapGlobal (\\p -> fst p + snd p)\n";
  Tally own = {0, 0, 0};
  check_text("repeats.dpia", repeats, strlen(repeats), &own);
  if (own.defs != 3 || own.kept == 0) {
    fprintf(stderr, "test_requirements: repeats.dpia: %d defs checked, %d requirements kept\n", own.defs, own.kept);
    t.failed++;
  }
  t.defs += own.defs, t.kept += own.kept, t.failed += own.failed;
  printf("requirements: %d defs, %d kept, %d failed\n", t.defs, t.kept, t.failed);
  return t.failed ? 1 : 0;
}
