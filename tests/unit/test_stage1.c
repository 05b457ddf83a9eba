/* test_stage1.c: stage I takes a user's lambda's own parameter and body at
 * its first application (translate/stage1.c, open_fn); against the
 * substitution of a new variable for the parameter at every application
 * (translate_stage1_substituted), on every kernel of the files given (the
 * samples and the test programs): the same intermediate program up to the
 * names of its binders (phrase_alpha_equal: kinds, types, primitives and
 * their sizes, literals, the variables' binders pairwise), no binder
 * bound by more lambdas of it than by the substitution's (a parameter
 * taken at two applications would be), and the same programs
 * printed after stage I, stage II and hoisting.  Both run on one
 * normalised body, the count of dependent rows stage II names
 * (TypeCtx.dep_rows) and the bound on the nodes (TypeCtx.norm_reach) put
 * back before the second.  Prints `stage1: K kernels, L lambdas taken as
 * they are, N nodes compared, F failed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"
#include "translate.h"

typedef struct Tally {
  int kernels, failed;
  long taken, nodes;
} Tally;

/* the binders of the lambdas of a result, and how many of the lambdas
 * bind a binder another one binds too */
typedef struct Bound {
  const Binder **seen;
  long n, cap;
  long nodes, again;
} Bound;

static void bound(Bound *b, const Phrase *p) {
  for (;;) {
    b->nodes++;
    switch (p->kind) {
    case PH_VAR:
    case PH_LIT:
    case PH_PRIM:
    case PH_DEF:
    case PH_COUNT: return;
    case PH_LAM: {
      bool seen = false;
      for (long k = 0; k < b->n && !seen; k++) seen = b->seen[k] == p->lam_binder;
      if (seen) {
        b->again++;
      } else {
        if (b->n == b->cap) {
          b->cap = b->cap ? 2 * b->cap : 256;
          b->seen = realloc(b->seen, (size_t)b->cap * sizeof *b->seen);
          if (!b->seen) abort();
        }
        b->seen[b->n++] = p->lam_binder;
      }
      p = p->body;
      continue;
    }
    case PH_PROJ:
    case PH_UNOP: p = p->fst; continue;
    case PH_APP:
    case PH_PAIR:
    case PH_SEQ:
    case PH_ASSIGN:
    case PH_BINOP:
      bound(b, p->fst);
      p = p->snd;
      continue;
    }
  }
}

/* the lambdas of the normal body whose binders the result binds */
static long taken(const Phrase *normal, const Bound *b) {
  switch (normal->kind) {
  case PH_LAM: {
    long n = taken(normal->body, b);
    for (long k = 0; k < b->n; k++)
      if (b->seen[k] == normal->lam_binder) return n + 1;
    return n;
  }
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF:
  case PH_COUNT: return 0;
  case PH_PROJ:
  case PH_UNOP: return taken(normal->fst, b);
  default: return taken(normal->fst, b) + taken(normal->snd, b);
  }
}

/* the bodies of a and b alpha-equal, each def's parameters (the output
 * each run makes anew, the kernel's) bound as by lambdas around it */
static bool same_up_to_names(const DefInfo *a, const DefInfo *b) {
  if (a->nparams != b->nparams) return false;
  Phrase *la = a->body, *lb = b->body;
  for (int k = a->nparams - 1; k >= 0; k--) {
    Phrase *wa = calloc(1, sizeof *wa), *wb = calloc(1, sizeof *wb);
    if (!wa || !wb) abort();
    wa->kind = wb->kind = PH_LAM;
    wa->type = wb->type = la->type; /* the lambdas' own types are not what is compared */
    wa->lam_binder = a->params[k], wa->body = la;
    wb->lam_binder = b->params[k], wb->body = lb;
    la = wa, lb = wb;
  }
  bool same = phrase_alpha_equal(la, lb);
  for (int k = 0; k < a->nparams; k++) {
    Phrase *ua = la->body, *ub = lb->body;
    free(la);
    free(lb);
    la = ua, lb = ub;
  }
  return same;
}

static const char *printed(Arena *a, const DefInfo *d) {
  if (!d) return "(none)";
  Buf b;
  buf_init(&b, a);
  def_print(&b, d, NULL);
  return b.data;
}

/* the three stages' programs, printed */
typedef struct Stages {
  DefInfo *intermediate;
  const char *text[3];
} Stages;

static Stages translate(UnitEnv *env, const DefInfo *def, Phrase *body, bool substituted) {
  Stages s = {NULL, {"(none)", "(none)", "(none)"}};
  s.intermediate = substituted ? translate_stage1_substituted(&env->arena, &env->tc, &env->in, def, body)
                               : translate_stage1(&env->arena, &env->tc, &env->in, def, body);
  DefInfo *imperative =
      s.intermediate ? translate_stage2(&env->arena, &env->tc, &env->in, &env->diag, s.intermediate) : NULL;
  DefInfo *hoisted = imperative ? translate_hoist(&env->arena, &env->tc, &env->in, &env->diag, imperative) : NULL;
  s.text[0] = printed(&env->arena, s.intermediate);
  s.text[1] = printed(&env->arena, imperative);
  s.text[2] = printed(&env->arena, hoisted);
  return s;
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
  UNIT_ENV_INIT(&env, "test_stage1");
  CheckedProgram *cp = unit_check_text(&env, path, text, len);
  for (int i = 0; cp && i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (!def->is_kernel || !def->ok || !def->body) continue;
    Phrase *body = normalize_def(&env.arena, &env.tc, &env.diag, def);
    if (!body) continue;
    int dep_rows = env.tc.dep_rows;
    long reach = env.tc.norm_reach;
    Stages sub = translate(&env, def, body, true);
    env.tc.dep_rows = dep_rows;
    env.tc.norm_reach = reach;
    Stages opened = translate(&env, def, body, false);
    if (!sub.intermediate && !opened.intermediate) continue;
    t->kernels++;
    static const char *const stage_name[] = {"stage I", "stage II", "hoisting"};
    const char *wrong = NULL;
    Bound b = {0}, bs = {0};
    if (!sub.intermediate || !opened.intermediate) {
      wrong = "one translates, the other does not";
    } else {
      /* a lambda's parameter taken as it is: bound by no more lambdas
       * than the new variable the substitution binds (the binders of the
       * lambdas inside a lambda applied once are the normal body's in
       * both, and the normal body may share a lambda between two places) */
      bound(&b, opened.intermediate->body);
      bound(&bs, sub.intermediate->body);
      if (b.again != bs.again) wrong = "a binder bound by more lambdas than the substitution's";
      if (!wrong && !same_up_to_names(sub.intermediate, opened.intermediate))
        wrong = "the intermediate programs differ (up to the names of binders)";
      for (int k = 0; !wrong && k < 3; k++)
        if (strcmp(sub.text[k], opened.text[k]) != 0)
          wrong = arena_printf(&env.arena, "the programs printed after %s differ", stage_name[k]);
      t->taken += taken(body, &b);
      t->nodes += b.nodes;
    }
    free(b.seen);
    free(bs.seen);
    if (wrong) {
      fprintf(stderr, "test_stage1: %s: kernel %s: %s\n", path, def->name, wrong);
      t->failed++;
    }
  }
  arena_free(&env.arena);
  free(text);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_stage1 FILE.dpia...\n");
    return 2;
  }
  Tally t = {0, 0, 0, 0};
  for (int i = 1; i < argc; i++) check_file(argv[i], &t);
  if (!t.taken) {
    fprintf(stderr, "test_stage1: no lambda's parameter taken as it is: nothing is tested\n");
    t.failed++;
  }
  printf("stage1: %d kernels, %ld lambdas taken as they are, %ld nodes compared, %d failed\n", t.kernels, t.taken,
         t.nodes, t.failed);
  return t.failed ? 1 : 0;
}
