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
 * And the strategy check of a body normal as checked in the same walk
 * (strategy_check_normal_as_is) against normalize_def and
 * strategy_check_high_level after it, in both modes (high-level or not):
 * the body given back exactly where normalize_def gives it back as it
 * is, the check accepts it, reports nothing and holds no plain map (but
 * for an in-place kernel's regions written by one value's parts, which
 * the walk leaves), the same span of a map that needs a strategy, the
 * same run count and a reach no smaller; nothing reported either way;
 * and kernels the check refuses (given below) never given back.
 * Prints `normalize: K kernels, N normal as checked (M with a plain map),
 * W checked in one walk, F failed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"

typedef struct Tally {
  int kernels, as_checked, with_map, one_walk, refused, failed;
} Tally;

static bool is_plain_map(Prim p) { return p == PRIM_MAP; }

static bool same_span(Span a, Span b) { return a.src == b.src && a.begin == b.begin && a.end == b.end; }

/* strategy_check_normal_as_is against normalize_def and the strategy
 * check after it, for def in mode high_level: what is wrong, or NULL */
static const char *one_walk_wrong(UnitEnv *env, DefInfo *def, bool high_level, Tally *t) {
  Diag quiet, loud;
  diag_init(&quiet, &env->arena);
  diag_init(&loud, &env->arena);
  Span un_one = {0}, un_two = {0};
  int runs = env->tc.norm_runs;
  Phrase *one = strategy_check_normal_as_is(&env->arena, &env->tc, &quiet, def, high_level, &un_one);
  long reach_one = env->tc.norm_reach;
  int runs_one = env->tc.norm_runs - runs;
  if (quiet.first) return "the one walk reported something";
  runs = env->tc.norm_runs;
  Phrase *normal = normalize_def(&env->arena, &env->tc, &loud, def);
  long reach_two = env->tc.norm_reach;
  int runs_two = env->tc.norm_runs - runs;
  bool ok = normal && strategy_check_high_level(&env->arena, &loud, def, normal, high_level, &un_two);
  bool as_is = normal == def->body && ok && !loud.first && !phrase_has_prim(normal, is_plain_map);
  if (!ok || loud.first) t->refused++;
  if (one && !as_is) return "given back as it is where normalisation or the check would not";
  if (!one && as_is && def->nregions <= 1) return "not given back where normalisation and the check would";
  if (!one) return NULL;
  t->one_walk++;
  if (!same_span(un_one, un_two)) return "the spans of a map that needs a strategy differ";
  if (runs_one != runs_two) return "the run counts differ";
  if (reach_one < reach_two) return "the reach is below normalisation's";
  return NULL;
}

static void check_file(const char *path, Tally *t) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_normalize");
  CheckedProgram *cp = unit_check_file(&env, "test_normalize", path, true, &t->failed);
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
    for (int high_level = 0; high_level <= 1; high_level++) {
      const char *why = one_walk_wrong(&env, def, high_level, t);
      if (!why) continue;
      fprintf(stderr, "test_normalize: %s: kernel %s%s: %s\n", path, def->name, high_level ? " (high-level)" : "", why);
      t->failed++;
    }
  }
  arena_free(&env.arena);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_normalize FILE.dpia...\n");
    return 2;
  }
  Tally t = {0, 0, 0, 0, 0, 0};
  for (int i = 1; i < argc; i++) check_file(argv[i], &t);
  /* kernels normal as checked that the strategy check refuses (a mapLocal
   * outside a mapWorkgroup; a map that computes, but in high-level mode),
   * two with a def (applied, and a value) and one with a plain map: never given back by the one
   * walk, which reports nothing */
  static const char refused[] = "kernel local (N: nat) (xs: [N]float) = xs |> mapLocal (\\x -> x * 2.0)\n"
                                "kernel plain (N: nat) (xs: [N]float) = xs |> map (\\x -> x * 2.0)\n"
                                "def twice (x: float) = x * 2.0\n"
                                "kernel usesdef (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> twice x)\n"
                                "def two = 2.0\n"
                                "kernel usestwo (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> x * two)\n"
                                "kernel view (N: nat) (xs: [N][2]float) = xs |> map (\\r -> idx r 0) |> mapGlobal (\\x -> x)\n";
  {
    UnitEnv env;
    UNIT_ENV_INIT(&env, "test_normalize");
    CheckedProgram *cp = unit_check_text(&env, "refused.dpia", refused, strlen(refused));
    int before = t.refused, one_before = t.one_walk;
    for (int i = 0; cp && i < cp->ndefs; i++) {
      DefInfo *def = cp->defs[i];
      if (!def->is_kernel || !def->ok) continue;
      for (int high_level = 0; high_level <= 1; high_level++) {
        const char *why = one_walk_wrong(&env, def, high_level, &t);
        if (!why) continue;
        fprintf(stderr, "test_normalize: kernel %s%s: %s\n", def->name, high_level ? " (high-level)" : "", why);
        t.failed++;
      }
    }
    if (!cp || t.refused - before != 3 || t.one_walk != one_before) {
      fprintf(stderr, "test_normalize: the refused kernels: %d refused, %d given back in one walk\n",
              t.refused - before, t.one_walk - one_before);
      t.failed++;
    }
    arena_free(&env.arena);
  }
  /* and kernels given back in one walk */
  if (t.one_walk == 0) {
    fprintf(stderr, "test_normalize: no kernel checked in one walk: that path is not tested\n");
    t.failed++;
  }
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
  printf("normalize: %d kernels, %d normal as checked (%d with a plain map), %d checked in one walk, %d failed\n",
         t.kernels, t.as_checked, t.with_map, t.one_walk, t.failed);
  return t.failed ? 1 : 0;
}
