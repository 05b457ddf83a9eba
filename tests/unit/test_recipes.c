/* test_recipes.c: a primitive's type made by its signature's recipe against
 * the walk of its signature's type (dpia/prim_type.c).
 *
 * The recipe is the walk's steps written once per process; an instance must
 * make exactly what the walk makes: the same type, the same metavariables in
 * the same order (their numbers reach messages and the order of
 * requirements), the same constraints and requirements, the same errors, and
 * the same sharing (a name met twice is one type or size, not two equal
 * ones: the zonk's memos and unification see identity).  For every row of
 * the table and several static arguments (constants that are and are not
 * vector widths, a variable, a product; scalar, vector, array and pair type
 * arguments), both are made in fresh checkers and compared.  Prints
 * `recipes: R of P rows, N instances, F differ; walked: ...` (the rows
 * without a recipe). */
#include <stdio.h>
#include <string.h>

#include "check_int.h"
#include "unit_env.h"

static int failures;

/* What one way made. */
typedef struct Made {
  Checker c;
  PhraseType *type;
  const char *text; /* everything printable: the type, the metavariables, the constraints, the errors */
  /* the nodes met in order (DataType and Size terms), for the sharing */
  const void *nodes[512];
  int nnodes;
} Made;

static void note(Made *m, const void *node) {
  if (m->nnodes < (int)(sizeof m->nodes / sizeof m->nodes[0])) m->nodes[m->nnodes++] = node;
}

static void walk_size(Made *m, Size s) { note(m, s.terms); }

static void walk_data(Made *m, DataType *t) {
  note(m, t);
  if (!t) return;
  switch (t->kind) {
  case DT_ARRAY:
  case DT_DEPARRAY:
    walk_size(m, t->size);
    walk_data(m, t->elem);
    break;
  case DT_IDX: walk_size(m, t->size); break;
  case DT_PAIR:
    walk_data(m, t->fst);
    walk_data(m, t->snd);
    break;
  case DT_SCALAR:
  case DT_VAR:
  case DT_META: break;
  }
}

static void walk_phrase(Made *m, PhraseType *t) {
  note(m, t);
  switch (t->kind) {
  case PT_EXP:
  case PT_ACC: walk_data(m, t->data); break;
  case PT_COMM: break;
  case PT_WITH:
  case PT_FN:
  case PT_FN_P:
    walk_phrase(m, t->fst);
    walk_phrase(m, t->snd);
    break;
  }
}

static const char *size_text(Arena *a, Size s) {
  Buf b;
  buf_init(&b, a);
  size_print(&b, s);
  return b.data ? b.data : "";
}

static const char *made_text(UnitEnv *env, Made *m) {
  Buf b;
  buf_init(&b, &env->arena);
  emit(&b, "type %s; %d size metas; %d data metas;", m->type ? pt_str(&env->arena, m->type) : "none",
       m->c.size_metas.len, env->tc.next_meta);
  for (int i = 0; i < m->c.deferred.len; i++) {
    const Deferred *d = m->c.deferred.items[i];
    emit(&b, " defer %d %s %s %s %d;", (int)d->kind, dt_str(&env->arena, d->a), dt_str(&env->arena, d->b),
         size_text(&env->arena, d->width), (int)d->target);
    walk_data(m, d->a);
    walk_data(m, d->b);
    walk_size(m, d->width);
  }
  for (int i = 0; i < m->c.reqs.len; i++) {
    const Requirement *r = m->c.reqs.items[i];
    emit(&b, " require %d %s %s;", (int)r->kind, size_text(&env->arena, r->size), r->what ? r->what : "");
    walk_size(m, r->size);
  }
  for (const Diagnostic *d = env->diag.first; d; d = d->next) emit(&b, " error %s;", d->message);
  return b.data;
}

/* p's type made one way, in a fresh type context and checker */
static void make(UnitEnv *env, Made *m, const Phrase *p, bool walked) {
  type_ctx_init(&env->tc, &env->arena);
  diag_init(&env->diag, &env->arena);
  memset(m, 0, sizeof *m);
  m->c = (Checker){.arena = &env->arena, .in = &env->in, .diag = &env->diag, .tc = &env->tc, .current = -1};
  m->c.zonk_memo = NEW(&env->arena, ZonkMemo);
  Span nowhere = {0};
  m->type = walked ? prim_type_walked(&m->c, p, nowhere) : prim_type(&m->c, p, nowhere);
  if (m->type) walk_phrase(m, m->type);
  m->text = made_text(env, m);
}

/* the same nodes shared in the same places: node i of one is node j < i
 * exactly when it is so in the other */
static bool same_sharing(const Made *a, const Made *b) {
  if (a->nnodes != b->nnodes) return false;
  for (int i = 0; i < a->nnodes; i++)
    for (int j = 0; j < i; j++)
      if ((a->nodes[i] == a->nodes[j]) != (b->nodes[i] == b->nodes[j])) return false;
  return true;
}

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_recipes");
  SizeCtx *sc = &env.tc.sizes;
  Sym n = intern_cstr(&env.in, "N");
  int rows = 0, recipes = 0, instances = 0;
  for (int p = 0; p < PRIM_COUNT; p++) {
    rows++;
    recipes += prim_type_has_recipe((Prim)p);
    for (int sizes_at = 0; sizes_at < 6; sizes_at++) {
      for (int type_at = 0; type_at < 4; type_at++) {
        /* the static arguments, made again in each context (made here in
         * a context of their own: sizes and types are immutable) */
        type_ctx_init(&env.tc, &env.arena);
        Phrase ph = {.kind = PH_PRIM, .prim = (Prim)p};
        for (int i = 0; i < prim_info[p].nsizes; i++) {
          int64_t k[] = {4, 2, 1, 3, 16};
          ph.sizes[i] = sizes_at < 5   ? size_const(sc, k[(sizes_at + i) % 5])
                        : i % 2 == 0 ? size_var(sc, n)
                                     : size_mul(sc, size_var(sc, n), size_const(sc, 8));
        }
        TypeCtx *tc = &env.tc;
        DataType *args[] = {tc->t_float, dt_scalar(tc, SC_INT, 4), dt_array(tc, size_var(sc, n), tc->t_int),
                            dt_pair(tc, tc->t_float, tc->t_double)};
        ph.type_arg = args[type_at];
        if (p == PRIM_DEP_JOIN_ACC) {
          Sym index = intern_cstr(&env.in, "#0");
          DataType *row = dt_array(tc, size_sub(sc, size_const(sc, 4), size_var(sc, index)), tc->t_float);
          ph.type_arg = dt_deparray(tc, size_const(sc, 4), index, intern_cstr(&env.in, "i"), row);
        }
        Made walked, cooked;
        make(&env, &walked, &ph, true);
        make(&env, &cooked, &ph, false);
        instances++;
        bool same = strcmp(walked.text, cooked.text) == 0 && same_sharing(&walked, &cooked);
        if (!same) {
          failures++;
          if (failures <= 10)
            fprintf(stderr, "test_recipes: %s (sizes %d, type %d):\n  walked: %s\n  recipe: %s%s\n", prim_info[p].name,
                    sizes_at, type_at, walked.text, cooked.text,
                    strcmp(walked.text, cooked.text) == 0 ? " (shared differently)" : "");
        }
      }
    }
  }
  printf("recipes: %d of %d rows, %d instances, %d differ; walked:", recipes, rows, instances, failures);
  for (int p = 0; p < PRIM_COUNT; p++)
    if (!prim_type_has_recipe((Prim)p)) printf(" %s", prim_info[p].name);
  printf("\n");
  /* a recipe for most rows, or the comparison compares little */
  if (recipes * 10 < rows * 9) {
    fprintf(stderr, "test_recipes: only %d of %d rows have a recipe\n", recipes, rows);
    failures++;
  }
  arena_free(&env.arena);
  return failures ? 1 : 0;
}
