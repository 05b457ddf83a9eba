/* test_strategy.c: the strategy check as it runs (dpia/strategy.c:
 * a view or scalar primitive's arguments walked without the rules that
 * find nothing for it, anywhere; whether the kernel holds a grid-level
 * map looked for only when a rule asks) against every rule asked of
 * every primitive with that looked for first (strategy_check_every_rule),
 * on the normal body of every kernel of the files given (the samples and
 * the tests' programs, the rejected ones among them), in both modes
 * (high-level or not): the same verdict, the same span of a map that
 * needs a strategy, and the same diagnostics (level, code, span, message
 * and notes, in order).  And the strategy check of a body normal as
 * checked (strategy_check_normal_as_is), which runs the same walk: the
 * body given back only where every rule accepts it reporting nothing.
 * Both ways must be exercised: kernels accepted, kernels refused (the
 * tests' rejected programs, and those below).
 * Prints `strategy: K kernels, C checks, R refused, F failed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"

typedef struct Tally {
  int kernels, checks, refused, failed;
} Tally;

static bool same_span(Span a, Span b) { return a.src == b.src && a.begin == b.begin && a.end == b.end; }

/* what differs between two lists of diagnostics (and their notes), or NULL */
static const char *diagnostics_differ(const Diagnostic *a, const Diagnostic *b) {
  for (; a && b; a = a->next, b = b->next) {
    if (a->level != b->level || a->code != b->code) return "a diagnostic's level or code differs";
    if (!same_span(a->span, b->span)) return "a diagnostic's span differs";
    if (strcmp(a->message, b->message) != 0) return "a diagnostic's message differs";
    const char *notes = diagnostics_differ(a->notes, b->notes);
    if (notes) return notes;
  }
  return a || b ? "the numbers of diagnostics differ" : NULL;
}

/* the check of def's normal body both ways, in mode high_level: what is
 * wrong, or NULL */
static const char *one_kernel_wrong(UnitEnv *env, DefInfo *def, Phrase *normal, bool high_level, Tally *t) {
  Diag fast, every;
  diag_init(&fast, &env->arena);
  diag_init(&every, &env->arena);
  Span un_fast = {0}, un_every = {0};
  bool ok_fast = strategy_check_high_level(&env->arena, &fast, def, normal, high_level, &un_fast);
  bool ok_every = strategy_check_every_rule(&env->arena, &every, def, normal, high_level, &un_every);
  t->checks++;
  if (!ok_every) t->refused++;
  if (ok_fast != ok_every) return ok_fast ? "accepted where every rule refuses" : "refused where every rule accepts";
  if (!same_span(un_fast, un_every)) return "the spans of a map that needs a strategy differ";
  const char *why = diagnostics_differ(fast.first, every.first);
  if (why) return why;
  if (fast.nerrors != every.nerrors) return "the error counts differ";
  /* the one walk of a body normal as checked: given back only where it
   * is the normal body and every rule accepts it reporting nothing */
  Diag quiet;
  diag_init(&quiet, &env->arena);
  Span un_one = {0};
  Phrase *one = strategy_check_normal_as_is(&env->arena, &env->tc, &quiet, def, high_level, &un_one);
  if (quiet.first) return "the one walk reported something";
  if (one && (normal != def->body || !ok_every || every.first)) return "the one walk accepts what every rule refuses";
  if (one && !same_span(un_one, un_every)) return "the one walk's span of a map that needs a strategy differs";
  return NULL;
}

static void check_program_kernels(UnitEnv *env, const char *path, CheckedProgram *cp, Tally *t) {
  for (int i = 0; cp && i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (!def->is_kernel || !def->ok || !def->body) continue;
    Diag quiet;
    diag_init(&quiet, &env->arena);
    Phrase *normal = normalize_def(&env->arena, &env->tc, &quiet, def);
    if (!normal) continue;
    t->kernels++;
    for (int high_level = 0; high_level <= 1; high_level++) {
      const char *why = one_kernel_wrong(env, def, normal, high_level, t);
      if (!why) continue;
      fprintf(stderr, "test_strategy: %s: kernel %s%s: %s\n", path, def->name, high_level ? " (high-level)" : "", why);
      t->failed++;
    }
  }
}

static void check_file(const char *path, Tally *t) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_strategy");
  int unused = 0;
  /* a rejected program may not check: its kernels that do are compared */
  CheckedProgram *cp = unit_check_file(&env, "test_strategy", path, false, &unused);
  check_program_kernels(&env, path, cp, t);
  arena_free(&env.arena);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_strategy FILE.dpia...\n");
    return 2;
  }
  Tally t = {0, 0, 0, 0};
  for (int i = 1; i < argc; i++) check_file(argv[i], &t);
  /* kernels each rule refuses, with views and scalar primitives around
   * and inside the refused construct: a mapLocal outside a mapWorkgroup,
   * a grid map's result read (E0602 and its reader's note), a
   * materialisation at the top of a kernel with a grid map, a scatter
   * read, a map that computes (refused, or the span of a
   * high-level program), a toPrivate result */
  static const char refused[] =
      "kernel outside (N: nat) (xs: [N]float) = xs |> split 4 |> mapLocal (\\r -> r |> mapSeq (\\x -> x * 2.0)) |> "
      "join\n"
      "kernel read (N: nat) (xs: [N]float) = xs |> split 4 |> mapGlobal (mapSeq (\\x -> x)) |> transpose |> "
      "mapGlobal (mapSeq (\\x -> x)) |> join\n"
      "kernel top (N: nat) (xs: [N]float) = xs |> mapSeq (\\x -> x + 1.0) |> split 4 |> "
      "mapGlobal (mapSeq (\\x -> x)) |> join\n"
      "kernel scat (N: nat) (p: [N]idx[N]) (xs: [N]float) permutation p = scatter p xs |> mapGlobal (\\x -> x)\n"
      "kernel plain (N: nat) (xs: [N]float) = zip xs xs |> map (\\x -> fst x * snd x) |> split 2 |> join\n"
      "kernel priv (N: nat) (xs: [4]float) = xs |> toPrivate (mapSeq (\\x -> x))\n";
  {
    UnitEnv env;
    UNIT_ENV_INIT(&env, "test_strategy");
    CheckedProgram *cp = unit_check_text(&env, "refused.dpia", refused, strlen(refused));
    int before = t.refused;
    check_program_kernels(&env, "refused.dpia", cp, &t);
    /* each kernel refused in both modes, but the plain map's in high-level mode */
    if (!cp || t.refused - before < 11) {
      fprintf(stderr, "test_strategy: the refused kernels: %d checks refused\n", t.refused - before);
      t.failed++;
    }
    arena_free(&env.arena);
  }
  if (t.refused == 0 || t.checks == t.refused) {
    fprintf(stderr, "test_strategy: both ways not exercised (%d checks, %d refused)\n", t.checks, t.refused);
    t.failed++;
  }
  printf("strategy: %d kernels, %d checks, %d refused, %d failed\n", t.kernels, t.checks, t.refused, t.failed);
  return t.failed ? 1 : 0;
}
