/* test_scir.c: the interference check's look for a body that uses
 * nothing actively (dpia/scir.c, uses_nothing_actively, which spares the
 * walk) against the walk itself (scir_check_def_walked), on every def of
 * the files given (the samples, the checker's accepted and rejected
 * programs, the other tests' and random programs): the same verdict and
 * the same diagnostics, code, place, message and notes, in order.  A file
 * takes part when it checks with no error or with the interference
 * check's errors only (E0332, E0501-E0503, E0505): then every def of it
 * was typed, and the rejected ones are compared too, their messages
 * included.  Both paths must be taken, and some def must be rejected
 * (with --random, the random programs of scir_random.py, which are
 * functional and accepted: only that they agree).
 * Prints `scir: D defs, S spared the walk, R rejected, F failed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"

typedef struct Tally {
  int defs, spared, rejected, failed, files_left;
} Tally;

static bool is_scir_code(DiagCode c) {
  return c == ERR_SCATTER_NOT_DISJOINT || c == ERR_ACTIVE_IN_PASSIVE || c == ERR_PASSIVE_REQUIRED ||
         c == ERR_INTERFERENCE || c == ERR_MIRROR_NOT_OUTPUT;
}

static bool same_diagnostic(const Diagnostic *a, const Diagnostic *b) {
  for (; a && b; a = a->next, b = b->next) {
    if (a->level != b->level || a->code != b->code || a->span.src != b->span.src || a->span.begin != b->span.begin ||
        a->span.end != b->span.end || strcmp(a->message, b->message) != 0 || !same_diagnostic(a->notes, b->notes))
      return false;
  }
  return !a && !b;
}

static void check_file(const char *path, Tally *t) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_scir");
  CheckedProgram *cp = unit_check_file(&env, "test_scir", path, false, &t->failed);
  bool typed = cp != NULL;
  for (const Diagnostic *d = env.diag.first; d && typed; d = d->next)
    if (d->level == DIAG_ERROR && !is_scir_code(d->code)) typed = false;
  if (!typed) t->files_left++;
  for (int i = 0; typed && i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (!def->body) continue;
    t->defs++;
    Diag walked, looked;
    diag_init(&walked, &env.arena);
    diag_init(&looked, &env.arena);
    bool walked_ok = scir_check_def_walked(&env.arena, &walked, def);
    bool looked_ok = scir_check_def(&env.arena, &looked, def);
    bool spared = scir_body_uses_nothing_actively(def->body);
    const char *wrong = NULL;
    if (walked_ok != looked_ok)
      wrong = walked_ok ? "the walk accepts, the check rejects" : "the walk rejects, the check accepts";
    else if (!same_diagnostic(walked.first, looked.first))
      wrong = "the diagnostics differ";
    else if (spared && (!walked_ok || walked.first))
      wrong = "the look spares a body the walk reports on";
    if (wrong) {
      fprintf(stderr, "test_scir: %s: def %s: %s\n", path, def->name, wrong);
      t->failed++;
    }
    t->spared += spared;
    t->rejected += !walked_ok;
  }
  arena_free(&env.arena);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_scir FILE.dpia...\n");
    return 2;
  }
  Tally t = {0};
  bool random = strcmp(argv[1], "--random") == 0;
  for (int i = random ? 2 : 1; i < argc; i++) check_file(argv[i], &t);
  if (t.defs == 0) {
    fprintf(stderr, "test_scir: no def compared\n");
    t.failed++;
  }
  if (!random && (t.spared == 0 || t.spared == t.defs)) {
    fprintf(stderr, "test_scir: %d of %d defs spared the walk: one path is not tested\n", t.spared, t.defs);
    t.failed++;
  }
  if (!random && t.rejected == 0) {
    fprintf(stderr, "test_scir: no def rejected: the messages are not compared\n");
    t.failed++;
  }
  printf("scir: %d defs, %d spared the walk, %d rejected, %d failed (%d files not typed, left out)\n", t.defs, t.spared,
         t.rejected, t.failed, t.files_left);
  return t.failed ? 1 : 0;
}
