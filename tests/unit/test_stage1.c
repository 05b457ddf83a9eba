/* test_stage1.c: stage I takes a user's lambda's own parameter and body at
 * its first application (translate/stage1.c, open_fn) and makes a value
 * whose operands pass through directly (passed_through), a map's input, a
 * reduction's and an assigned value among them (operand); against Figure
 * 5's rules as written, a new variable substituted at every application
 * and a continuation for every operand (translate_stage1_plain), on every
 * kernel of the files given (the samples and the test programs): the same
 * intermediate program node for node (kind, span, type, prelude def,
 * fields; the variables' binders bound at the same lambda, of the same
 * name and type; the marks of normality aside, see same), no binder bound
 * by more lambdas of it than by the plain translation's (a parameter
 * taken at two applications would be), and the same programs printed
 * after stage I, stage II and hoisting.  Both run on one normalised
 * body, the count of dependent rows stage II names (TypeCtx.dep_rows)
 * and the bound on the nodes (TypeCtx.norm_reach) put back before the
 * second.  Prints `stage1: K kernels, L lambdas taken as they are, N
 * nodes compared, F failed`. */
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
  long again;
} Bound;

static void bound(Bound *b, const Phrase *p) {
  for (;;) {
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

/* the binders bound on the way down: plain[k] corresponds to opened[k] */
typedef struct Compare {
  Arena *arena;
  const Binder *plain[512], *opened[512];
  int nbound;
  long nodes;
  const char *wrong;
} Compare;

static bool same_type(Compare *c, const PhraseType *a, const PhraseType *b) {
  return a == b || strcmp(pt_str(c->arena, a), pt_str(c->arena, b)) == 0;
}

static bool corresponds(const Compare *c, const Binder *a, const Binder *b) {
  for (int k = c->nbound - 1; k >= 0; k--)
    if (c->plain[k] == a || c->opened[k] == b) return c->plain[k] == a && c->opened[k] == b;
  return a == b; /* free: a kernel parameter */
}

/* two mapLocal levels of a reduceI the same primitive of the program */
static bool same_level(const Phrase *a, const Phrase *b) {
  return a == b ||
         (a && b && a->prim == b->prim && a->dim == b->dim && memcmp(&a->span, &b->span, sizeof a->span) == 0);
}

/* a and b the same node for node: kind, span, type (printed), the def of
 * the prelude they come from, every field, the variables' binders
 * corresponding (bound at the same lambda, of the same name and type).
 * Not compared: the marks of normality, which only spare normalisation a
 * walk (a path the substitution copied is unmarked, the normal body's
 * own phrase marked), and a variable's prelude def where its binder is a
 * lambda's parameter taken as it is (the substitution's variable, made
 * by the builder, has none; stage II puts the element in its place) */
static bool same(Compare *c, const Phrase *a, const Phrase *b) {
  c->nodes++;
  if (a->kind != b->kind) return c->wrong = "kinds differ", false;
  if (memcmp(&a->span, &b->span, sizeof a->span) != 0) return c->wrong = "spans differ", false;
  if (!same_type(c, a->type, b->type)) return c->wrong = "types differ", false;
  switch (a->kind) {
  case PH_VAR:
    if (!corresponds(c, a->binder, b->binder)) return c->wrong = "variables of different binders", false;
    if (a->prelude != b->prelude && a->binder == b->binder) return c->wrong = "prelude defs differ", false;
    return true;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: {
    if (a->prelude != b->prelude) return c->wrong = "prelude defs differ", false;
    if (a->kind == PH_PRIM && (!a->type_arg) != (!b->type_arg)) return c->wrong = "data types of a new differ", false;
    if (a->kind == PH_PRIM && a->type_arg && strcmp(dt_str(c->arena, a->type_arg), dt_str(c->arena, b->type_arg)) != 0)
      return c->wrong = "data types of a new differ", false;
    Phrase x = *a, y = *b;
    x.type = y.type = NULL;
    if (a->kind == PH_PRIM) {
      for (int k = 0; k < PRIM_MAX_SIZES; k++) {
        if (!size_eq(a->sizes[k], b->sizes[k])) return c->wrong = "sizes of a primitive differ", false;
        memset(&x.sizes[k], 0, sizeof x.sizes[k]);
        memset(&y.sizes[k], 0, sizeof y.sizes[k]);
      }
      x.type_arg = y.type_arg = NULL;
      /* a reduceI's mapLocal levels: the primitives, each found in its
       * run's phrase (stage II reads their dimensions) */
      if (!same_level(a->shared_by, b->shared_by) || a->shared_depth != b->shared_depth)
        return c->wrong = "the levels of a shared accumulator differ", false;
      for (int k = 0; k < a->shared_depth; k++)
        if (!same_level(a->shared_nest[k], b->shared_nest[k]))
          return c->wrong = "the levels of a shared accumulator differ", false;
      x.shared_by = y.shared_by = NULL;
      x.shared_nest = y.shared_nest = NULL;
    }
    x.normal_run = y.normal_run = 0;
    if (memcmp(&x, &y, sizeof x) != 0) return c->wrong = "fields of a leaf differ", false;
    return true;
  }
  case PH_LAM:
    if (a->prelude != b->prelude) return c->wrong = "prelude defs differ", false;
    if (a->promoted != b->promoted || a->shares != b->shares) return c->wrong = "lambdas differ", false;
    /* the names as written (strategy.c names a binder it makes for a
     * partial application "x", not interned) */
    if (strcmp(a->lam_binder->name, b->lam_binder->name) != 0 ||
        !same_type(c, a->lam_binder->type, b->lam_binder->type))
      return c->wrong = arena_printf(c->arena, "binders differ: %s : %s, %s : %s", a->lam_binder->name,
                                     pt_str(c->arena, a->lam_binder->type), b->lam_binder->name,
                                     pt_str(c->arena, b->lam_binder->type)),
             false;
    if (c->nbound == (int)DPIA_COUNTOF(c->plain)) return c->wrong = "too many binders for the test", false;
    c->plain[c->nbound] = a->lam_binder;
    c->opened[c->nbound++] = b->lam_binder;
    bool ok = same(c, a->body, b->body);
    c->nbound--;
    return ok;
  case PH_PROJ:
  case PH_UNOP:
    if (a->prelude != b->prelude) return c->wrong = "prelude defs differ", false;
    if (a->index != b->index || a->unop != b->unop) return c->wrong = "fields differ", false;
    return same(c, a->fst, b->fst);
  default:
    if (a->prelude != b->prelude) return c->wrong = "prelude defs differ", false;
    if (a->op != b->op) return c->wrong = "operators differ", false;
    return same(c, a->fst, b->fst) && same(c, a->snd, b->snd);
  }
}

/* the two intermediate defs the same (same), their parameters
 * corresponding by position (the output each run makes anew) */
static const char *same_defs(Arena *arena, const DefInfo *a, const DefInfo *b, long *nodes) {
  Compare c = {.arena = arena};
  if (a->nparams != b->nparams) return "the parameters differ";
  for (int k = 0; k < a->nparams; k++) {
    if (a->params[k]->name != b->params[k]->name || !same_type(&c, a->params[k]->type, b->params[k]->type))
      return "the parameters differ";
    c.plain[c.nbound] = a->params[k];
    c.opened[c.nbound++] = b->params[k];
  }
  same(&c, a->body, b->body);
  *nodes += c.nodes;
  return c.wrong;
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

static Stages translate(UnitEnv *env, const DefInfo *def, Phrase *body, bool plain) {
  Stages s = {NULL, {"(none)", "(none)", "(none)"}};
  s.intermediate = plain ? translate_stage1_plain(&env->arena, &env->tc, &env->in, def, body)
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
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_stage1");
  CheckedProgram *cp = unit_check_file(&env, "test_stage1", path, false, &t->failed);
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
       * than the new variable the plain translation binds (the binders of the
       * lambdas inside a lambda applied once are the normal body's in
       * both, and the normal body may share a lambda between two places) */
      bound(&b, opened.intermediate->body);
      bound(&bs, sub.intermediate->body);
      if (b.again != bs.again) wrong = "a binder bound by more lambdas than the plain translation's";
      long nodes = 0;
      const char *why = wrong ? NULL : same_defs(&env.arena, sub.intermediate, opened.intermediate, &nodes);
      if (why) wrong = arena_printf(&env.arena, "the intermediate programs differ: %s", why);
      t->nodes += nodes;
      for (int k = 0; !wrong && k < 3; k++)
        if (strcmp(sub.text[k], opened.text[k]) != 0)
          wrong = arena_printf(&env.arena, "the programs printed after %s differ", stage_name[k]);
      t->taken += taken(body, &b);
    }
    free(b.seen);
    free(bs.seen);
    if (wrong) {
      fprintf(stderr, "test_stage1: %s: kernel %s: %s\n", path, def->name, wrong);
      t->failed++;
    }
  }
  arena_free(&env.arena);
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
