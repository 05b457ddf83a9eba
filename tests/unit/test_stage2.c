/* test_stage2.c: stage II applies each lowered combinator's lambdas in its
 * rewrite walk (translate/stage2.c, apply_in_walk); against the
 * substitution into each rewritten body it replaced
 * (translate_stage2_late), on every kernel of the files given (the
 * samples): the same imperative program node for node.  Both run on one
 * stage I translation, the marks of normality a run sets in place and the
 * count of dependent rows it names (TypeCtx.dep_rows) put back before the
 * other; the binders stage II makes correspond by position (bound at the
 * same lambda), the others are the same; every node must agree in its
 * kind, span, type and fields, and every binder in its name, span, type,
 * uses and ownership; and the marks (none, this stage's, another's) must
 * agree, but that a phrase may be unmarked in the walk's result only (a
 * copy of an argument that holds a lambda: see same).  And the values
 * stage II gives back as they are where nothing is bound (kept_value)
 * against their rewrite (translate_stage2_rewritten): the same program
 * node for node, the marks exactly, the same bound on the nodes
 * (TypeCtx.norm_reach) and the same normalisations.  Each kernel is
 * compared again with a redex made at each of its levels of maps
 * (wrap_maps), and with every spine's applications given spans of their
 * own (split_spans).  Prints `stage2: K kernels (W with redexes made, S
 * with spans split), N nodes compared (U unmarked in the walk's only), F
 * failed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_env.h"
#include "build.h"
#include "translate.h"

typedef struct Tally {
  int kernels, failed;
  long nodes, unmarked;
  int wrapped, spanned;
} Tally;

/* the binders bound on the way down: late[k] corresponds to walk[k] */
typedef struct Compare {
  Arena *arena;
  const Binder *late[256], *walk[256];
  int nbound;
  /* (first, last]: the marks either stage II run made (the second marks
   * in place phrases the first gave back, where the two share them) */
  int runs[2];
  long nodes, unmarked;
  /* the binders of the lambdas met in each result: none may be bound at
   * two (normalize.c: every binder of a result is bound once) */
  const Binder **seen[2];
  long nseen[2], cap;
  /* the marks must agree exactly (no phrase unmarked in one only) */
  bool strict;
  const char *wrong;
} Compare;

static bool bound_before(Compare *c, int side, const Binder *x) {
  for (long k = 0; k < c->nseen[side]; k++)
    if (c->seen[side][k] == x) return true;
  if (c->nseen[side] == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 256;
    for (int w = 0; w < 2; w++) {
      c->seen[w] = realloc(c->seen[w], (size_t)c->cap * sizeof *c->seen[w]);
      if (!c->seen[w]) abort();
    }
  }
  c->seen[side][c->nseen[side]++] = x;
  return false;
}

/* none, a stage II run's, another's (normalisation's, before stage I) */
static int mark_kind(int mark, const int runs[2]) { return mark == 0 ? 0 : mark > runs[0] && mark <= runs[1] ? 1 : 2; }

static bool same_type(Compare *c, const PhraseType *a, const PhraseType *b) {
  return a == b || strcmp(pt_str(c->arena, a), pt_str(c->arena, b)) == 0;
}

static bool same_binder_fields(Compare *c, const Binder *a, const Binder *b) {
  if (a->name != b->name || memcmp(&a->span, &b->span, sizeof a->span) != 0 || !same_type(c, a->type, b->type) ||
      a->nuses != b->nuses || a->nowned_by != b->nowned_by || a->nhoisted_from != b->nhoisted_from ||
      a->permutation != b->permutation || a->volatile_local != b->volatile_local)
    return false;
  for (int k = 0; k < a->nowned_by; k++)
    if (a->owned_by[k] != b->owned_by[k]) return false;
  return true;
}

static bool corresponds(const Compare *c, const Binder *a, const Binder *b) {
  for (int k = c->nbound - 1; k >= 0; k--)
    if (c->late[k] == a || c->walk[k] == b) return c->late[k] == a && c->walk[k] == b;
  return a == b; /* free: a kernel parameter */
}

static bool same(Compare *c, const Phrase *a, const Phrase *b) {
  c->nodes++;
  if (a->kind != b->kind) return c->wrong = "kinds differ", false;
  if (memcmp(&a->span, &b->span, sizeof a->span) != 0) return c->wrong = "spans differ", false;
  if (!same_type(c, a->type, b->type)) return c->wrong = "types differ", false;
  if (a->prelude != b->prelude) return c->wrong = "prelude defs differ", false;
  /* the walk's marks a subset of the substitution's: it copies an
   * argument that holds a lambda with its outer arguments already in it,
   * unmarked, where the substitution shared them marked (apply_in_walk);
   * a phrase unmarked is only walked again by normalisation */
  int late_mark = mark_kind(a->normal_run, c->runs), walk_mark = mark_kind(b->normal_run, c->runs);
  if (late_mark != walk_mark && (walk_mark != 0 || c->strict)) return c->wrong = "marks of normality differ", false;
  if (late_mark != walk_mark) c->unmarked++;
  switch (a->kind) {
  case PH_VAR:
    if (!corresponds(c, a->binder, b->binder)) return c->wrong = "variables of different binders", false;
    return true;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: {
    /* no child: every other field the same, byte for byte (a new's data
     * type made anew in each run: the same type) */
    if (a->kind == PH_PRIM && (!a->type_arg) != (!b->type_arg)) return c->wrong = "data types of a new differ", false;
    if (a->kind == PH_PRIM && a->type_arg && strcmp(dt_str(c->arena, a->type_arg), dt_str(c->arena, b->type_arg)) != 0)
      return c->wrong = "data types of a new differ", false;
    Phrase x = *a, y = *b;
    x.type = y.type = NULL;
    if (a->kind == PH_PRIM) {
      /* and its sizes (a size made anew: the same canonical form) */
      for (int k = 0; k < PRIM_MAX_SIZES; k++) {
        if (!size_eq(a->sizes[k], b->sizes[k])) return c->wrong = "sizes of a primitive differ", false;
        memset(&x.sizes[k], 0, sizeof x.sizes[k]);
        memset(&y.sizes[k], 0, sizeof y.sizes[k]);
      }
      x.type_arg = y.type_arg = NULL;
    }
    x.normal_run = y.normal_run = 0;
    if (memcmp(&x, &y, sizeof x) != 0) return c->wrong = "fields of a leaf differ", false;
    return true;
  }
  case PH_LAM: {
    if (a->promoted != b->promoted || a->shares != b->shares) return c->wrong = "lambdas differ", false;
    if (!same_binder_fields(c, a->lam_binder, b->lam_binder)) return c->wrong = "binders differ", false;
    if (bound_before(c, 0, a->lam_binder) != bound_before(c, 1, b->lam_binder))
      return c->wrong = "a binder bound twice in one result only", false;
    if (c->nbound == (int)DPIA_COUNTOF(c->late)) return c->wrong = "too many binders for the test", false;
    c->late[c->nbound] = a->lam_binder;
    c->walk[c->nbound++] = b->lam_binder;
    bool ok = same(c, a->body, b->body);
    c->nbound--;
    return ok;
  }
  case PH_PROJ:
  case PH_UNOP:
    if (a->index != b->index || a->unop != b->unop) return c->wrong = "fields differ", false;
    return same(c, a->fst, b->fst);
  default:
    if (a->op != b->op) return c->wrong = "operators differ", false;
    return same(c, a->fst, b->fst) && same(c, a->snd, b->snd);
  }
}

/* p with the body B of every mapI's F = \x o -> B made a redex,
 * \x o -> (\z -> B) x (z used nowhere): a spine whose head is a lambda
 * that uses a parameter the walk binds, which rewrite does not walk
 * (stage2.c, substituted).  Stage I leaves none in the samples; this
 * gives one to every level of maps. */
static Phrase *wrap_maps(void *ctx, Phrase *p) {
  Builder *b = ctx;
  p = phrase_map_children(b->arena, p, wrap_maps, b);
  if (p->kind != PH_APP) return p;
  PhraseSpine sp;
  phrase_spine(b->arena, p, &sp);
  if (sp.nargs != 3 || sp.head->kind != PH_PRIM || prim_family(sp.head->prim) != PFAM_MAP_I) return p;
  Phrase *f = sp.args[0];
  if (f->kind != PH_LAM || f->body->kind != PH_LAM) return p;
  Binder *x = f->lam_binder;
  Binder *z = b_binder(b, "z", x->type);
  Phrase *inner = arena_dup(b->arena, f->body, sizeof *f->body);
  inner->body = b_app(b, b_lam(b, z, f->body->body, false), b_var(b, x));
  Phrase *outer = arena_dup(b->arena, f, sizeof *f);
  outer->body = inner;
  /* mapI F' E A, the spine's other nodes as they were */
  Phrase *head_f = arena_dup(b->arena, p->fst->fst, sizeof *p);
  head_f->snd = outer;
  Phrase *with_e = arena_dup(b->arena, p->fst, sizeof *p);
  with_e->fst = head_f;
  Phrase *q = arena_dup(b->arena, p, sizeof *p);
  q->fst = with_e;
  return q;
}

/* p with every spine's inner applications given spans of their own (one
 * byte shorter than the application around them): stage I makes a
 * spine's applications with one span, which stage II keeps (respine,
 * b_app_as), and copies where they differ; a value it gives back as it
 * is (kept_value) must then be copied as its rewrite copies it */
static Phrase *split_spans(void *ctx, Phrase *p) {
  Builder *b = ctx;
  p = phrase_map_children(b->arena, p, split_spans, b);
  if (p->kind != PH_APP || p->fst->kind != PH_APP || p->fst->span.end <= p->fst->span.begin) return p;
  Phrase *inner = arena_dup(b->arena, p->fst, sizeof *p);
  inner->span.end--;
  Phrase *q = arena_dup(b->arena, p, sizeof *p);
  q->fst = inner;
  return q;
}

/* the marks of normality of p's phrases (a stage II run sets some in place) */
typedef struct Marks {
  Phrase **at;
  int *mark;
  long n, cap;
} Marks;

static void save_marks(Marks *m, Phrase *p) {
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 1024;
    m->at = realloc(m->at, (size_t)m->cap * sizeof *m->at);
    m->mark = realloc(m->mark, (size_t)m->cap * sizeof *m->mark);
    if (!m->at || !m->mark) abort();
  }
  m->at[m->n] = p;
  m->mark[m->n++] = p->normal_run;
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return;
  case PH_LAM: save_marks(m, p->body); return;
  case PH_PROJ:
  case PH_UNOP: save_marks(m, p->fst); return;
  default:
    save_marks(m, p->fst);
    save_marks(m, p->snd);
    return;
  }
}

/* the marks saved put back, and the list freed */
static void put_back_marks(Marks *m) {
  for (long k = 0; k < m->n; k++) m->at[k]->normal_run = m->mark[k];
  free(m->at);
  free(m->mark);
}

static void compare(UnitEnv *env, const char *path, const DefInfo *def, const DefInfo *intermediate, Tally *t) {
  Compare c = {.arena = &env->arena};
  Marks marks = {0};
  save_marks(&marks, intermediate->body);
  int dep_rows = env->tc.dep_rows;
  c.runs[0] = env->tc.norm_runs;
  DefInfo *late = translate_stage2_late(&env->arena, &env->tc, &env->in, &env->diag, intermediate);
  for (long k = 0; k < marks.n; k++) marks.at[k]->normal_run = marks.mark[k];
  env->tc.dep_rows = dep_rows;
  /* every value rewritten (the values kept as they are, stage2.c
   * kept_value, against their rewrite): the same nodes, marks, bound on
   * the nodes and normalisations */
  int runs = env->tc.norm_runs;
  DefInfo *rewritten = translate_stage2_rewritten(&env->arena, &env->tc, &env->in, &env->diag, intermediate);
  long reach_rewritten = env->tc.norm_reach;
  int runs_rewritten = env->tc.norm_runs - runs;
  for (long k = 0; k < marks.n; k++) marks.at[k]->normal_run = marks.mark[k];
  env->tc.dep_rows = dep_rows;
  runs = env->tc.norm_runs;
  DefInfo *walk = translate_stage2(&env->arena, &env->tc, &env->in, &env->diag, intermediate);
  long reach_walk = env->tc.norm_reach;
  int runs_walk = env->tc.norm_runs - runs;
  c.runs[1] = env->tc.norm_runs;
  if (!late && !walk && !rewritten) {
    put_back_marks(&marks);
    return;
  }
  t->kernels++;
  if (!late || !walk || !rewritten)
    c.wrong = "one translates, another does not";
  else
    same(&c, late->body, walk->body);
  Compare kept = {.arena = &env->arena, .runs = {c.runs[0], c.runs[1]}, .strict = true};
  if (!c.wrong && !same(&kept, rewritten->body, walk->body))
    c.wrong = arena_printf(&env->arena, "with every value rewritten: %s", kept.wrong);
  else if (!c.wrong && reach_rewritten != reach_walk)
    c.wrong = "with every value rewritten: the bounds on the nodes differ";
  else if (!c.wrong && runs_rewritten != runs_walk)
    c.wrong = "with every value rewritten: the normalisations differ";
  if (c.wrong) {
    fprintf(stderr, "test_stage2: %s: kernel %s: %s\n", path, def->name, c.wrong);
    t->failed++;
  }
  t->nodes += c.nodes;
  t->unmarked += c.unmarked;
  free(c.seen[0]);
  free(c.seen[1]);
  free(kept.seen[0]);
  free(kept.seen[1]);
  /* the intermediate program's marks as stage I left them, for the
   * comparisons of the copies made of it next (wrap_maps, split_spans) */
  put_back_marks(&marks);
}

static void check_file(const char *path, Tally *t) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_stage2");
  CheckedProgram *cp = unit_check_file(&env, "test_stage2", path, false, &t->failed);
  for (int i = 0; cp && i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (!def->is_kernel || !def->ok || !def->body) continue;
    Phrase *body = normalize_def(&env.arena, &env.tc, &env.diag, def);
    DefInfo *intermediate = body ? translate_stage1(&env.arena, &env.tc, &env.in, def, body) : NULL;
    if (!intermediate) continue;
    compare(&env, path, def, intermediate, t);
    /* and with a redex at every level of maps */
    DefInfo *wrapped = NEW(&env.arena, DefInfo);
    *wrapped = *intermediate;
    Builder b = {&env.arena, &env.tc, &env.in, intermediate->body->span, {{0}}};
    wrapped->body = wrap_maps(&b, intermediate->body);
    if (wrapped->body != intermediate->body) {
      t->wrapped++;
      compare(&env, path, def, wrapped, t);
    }
    /* and with spines whose applications' spans differ */
    DefInfo *spanned = NEW(&env.arena, DefInfo);
    *spanned = *intermediate;
    spanned->body = split_spans(&b, intermediate->body);
    if (spanned->body != intermediate->body) {
      t->spanned++;
      compare(&env, path, def, spanned, t);
    }
  }
  arena_free(&env.arena);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_stage2 FILE.dpia...\n");
    return 2;
  }
  Tally t = {0, 0, 0, 0, 0, 0};
  for (int i = 1; i < argc; i++) check_file(argv[i], &t);
  if (!t.wrapped) {
    fprintf(stderr, "test_stage2: no kernel with a map translated: nothing is tested\n");
    t.failed++;
  }
  if (!t.spanned) {
    fprintf(stderr, "test_stage2: no kernel with a spine of two arguments: nothing is tested\n");
    t.failed++;
  }
  printf("stage2: %d kernels (%d with redexes made, %d with spans split), %ld nodes compared (%ld unmarked in the "
         "walk's only), %d failed\n",
         t.kernels, t.wrapped, t.spanned, t.nodes, t.unmarked, t.failed);
  return t.failed ? 1 : 0;
}
