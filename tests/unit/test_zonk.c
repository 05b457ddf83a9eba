/* test_zonk.c: zonking sizes (dpia/unify.c) against substitution done by
 * hand.
 *
 * The checker replaces solved size metavariables through a memo of earlier
 * zonks (ZonkMemo) and through fast paths for the commonest forms (a lone
 * metavariable, solved or not; a constant; a product of solved ones, by
 * multiplying their values' zonks).  Each must give what replacing
 * every solved metavariable by its value, until none is left, gives.  This
 * test makes metavariables, solves them one at a time in a pseudo-random
 * order by unify_sizes (some by another metavariable, so that values chain),
 * and after every step zonks every size made so far, again and again (the
 * memo's entries from before a solution must not be taken after it), and
 * compares each with the substitution of its own, done in the order the
 * checker's general way does it, so that the two agree exactly when
 * size_eq says so: also where a value has a floor atom (ceil(N/k)), whose
 * normal form could depend on that order (size.h).  Prints `zonk: N sizes
 * zonked, M steps, F wrong`.
 *
 * Then the final zonk of a declaration, which replaces in place
 * (zonk_phrase_type_in_place), against the zonk that copies
 * (zonk_phrase_type): random data and phrase types sharing their parts
 * (as unification shares them), over data and size metavariables of
 * which some are solved, by types, sizes and other metavariables; each
 * phrase type's copying zonk printed first, then every one zonked in
 * place in a random order, after which each type object, as it is now,
 * must print as its copying zonk did, hold no solved metavariable (no
 * part that is a solved DT_META, no size naming a solved one), be
 * marked ground exactly when no unknown is left, and be its own zonk.
 * Prints `zonk in place: N types, F wrong`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"
#include "unit_env.h"

enum { METAS = 12, SIZES = 40, TRIALS = 300 };

static uint64_t rng_state = 0x2545F4914F6CDD1Du;
static unsigned rnd(unsigned n) {
  rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
  return (unsigned)(rng_state >> 33) % n;
}

/* the metavariable named v, from the checker's list (by its name's pointer,
 * as the checker's own names are compared) */
static SizeMeta *meta_named(Checker *c, Sym v) {
  for (int i = 0; i < c->size_metas.len; i++) {
    SizeMeta *m = c->size_metas.items[i];
    if (m->name == v) return m;
  }
  return NULL;
}

/* every solved metavariable replaced by its value, until none is left */
static Size by_hand(Checker *c, Size s) {
  for (int guard = 0; guard < 1000; guard++) {
    Sym *vars;
    int n = size_vars(c->arena, s, &vars);
    SizeMeta *solved = NULL;
    for (int i = 0; i < n && !solved; i++) {
      SizeMeta *m = vars[i][0] == '?' ? meta_named(c, vars[i]) : NULL;
      if (m && m->solved) solved = m;
    }
    if (!solved) return s;
    if (!size_subst(&c->tc->sizes, s, solved->name, solved->value, &s)) return s;
  }
  return s;
}

/* the checker's zonk of s: the size of a zonked [s]float */
static Size zonked(Checker *c, Size s) {
  TypeCtx *tc = c->tc;
  PhraseType *t = zonk_phrase_type(c, pt_exp(tc, dt_array(tc, s, tc->t_float)));
  return dt_resolve(t->data)->size;
}

static const char *text(Checker *c, Size s) {
  Buf b;
  buf_init(&b, c->arena);
  size_print(&b, s);
  return b.data ? b.data : "";
}

/* ---- the final zonk, in place, against the copying zonk ---- */

enum { DATA_METAS = 8, SIZE_METAS = 8, DATA_POOL = 48, PHRASE_POOL = 32, PLACE_TRIALS = 400 };

typedef struct Pools {
  Checker *c;
  Size n;
  DataType *dmetas[DATA_METAS];
  Size smetas[SIZE_METAS];
  DataType *datas[DATA_POOL];
  int ndatas;
  PhraseType *phrases[PHRASE_POOL];
  int nphrases;
} Pools;

static Size random_size(Pools *p) {
  SizeCtx *sc = &p->c->tc->sizes;
  Size a = p->smetas[rnd(SIZE_METAS)];
  switch (rnd(5)) {
  case 0: return size_const(sc, 1 + rnd(64));
  case 1: return size_mul(sc, size_const(sc, 1 + rnd(16)), a);
  case 2: return size_mul(sc, a, p->smetas[rnd(SIZE_METAS)]);
  case 3: return size_add(sc, a, p->n);
  default: return a;
  }
}

/* a data type whose parts are earlier ones of the pool (shared) */
static DataType *random_data(Pools *p) {
  TypeCtx *tc = p->c->tc;
  DataType *part = p->ndatas ? p->datas[rnd((unsigned)p->ndatas)] : tc->t_float;
  switch (rnd(7)) {
  case 0: return rnd(2) ? tc->t_float : dt_scalar(tc, SC_INT, 4);
  case 1:
  case 2: return p->dmetas[rnd(DATA_METAS)];
  case 3:
  case 4: return dt_array(tc, random_size(p), part);
  case 5: return dt_pair(tc, part, p->ndatas ? p->datas[rnd((unsigned)p->ndatas)] : tc->t_int);
  default: return dt_idx(tc, random_size(p));
  }
}

/* a solved metavariable reachable from t without following solutions:
 * what the final zonk must leave none of */
static bool size_holds_solved(Checker *c, Size s) {
  Sym *vars;
  int n = size_vars(c->arena, s, &vars);
  for (int i = 0; i < n; i++)
    if (vars[i][0] == '?' && meta_named(c, vars[i])->solved) return true;
  return false;
}

static bool data_holds_solved(Checker *c, const DataType *t) {
  switch (t->kind) {
  case DT_META: return t->meta->solution != NULL;
  case DT_ARRAY:
  case DT_DEPARRAY: return size_holds_solved(c, t->size) || data_holds_solved(c, t->elem);
  case DT_IDX: return size_holds_solved(c, t->size);
  case DT_PAIR: return data_holds_solved(c, t->fst) || data_holds_solved(c, t->snd);
  case DT_SCALAR:
  case DT_VAR: return false;
  }
  return false;
}

static bool phrase_holds_solved(Checker *c, const PhraseType *t) {
  switch (t->kind) {
  case PT_EXP:
  case PT_ACC: return data_holds_solved(c, t->data);
  case PT_COMM: return false;
  case PT_WITH:
  case PT_FN:
  case PT_FN_P: return phrase_holds_solved(c, t->fst) || phrase_holds_solved(c, t->snd);
  }
  return false;
}

/* one trial of the in-place zonk; the number of types found wrong */
static long in_place_trial(UnitEnv *env, Sym n_var, int trial, long *types) {
  Checker c = {.arena = &env->arena, .in = &env->in, .diag = &env->diag, .tc = &env->tc};
  c.zonk_memo = NEW(&env->arena, ZonkMemo);
  TypeCtx *tc = &env->tc;
  SizeCtx *sc = &tc->sizes;
  Span nowhere = {0};
  Pools p = {.c = &c, .n = size_var(sc, n_var)};
  for (int i = 0; i < SIZE_METAS; i++) p.smetas[i] = size_var(sc, fresh_size_meta(&c, nowhere));
  for (int i = 0; i < DATA_METAS; i++) p.dmetas[i] = dt_meta(tc, MC_ANY, nowhere);
  for (int i = 0; i < DATA_POOL; i++) {
    DataType *d = random_data(&p); /* of the ones before it */
    p.datas[p.ndatas++] = d;
  }
  /* solve some: data metavariables by a type of the pool (unify_data
   * refuses one that holds it) or another metavariable, sizes by a
   * constant, N times one, ceil(N/k) or another metavariable */
  for (int i = 0; i < DATA_METAS; i++)
    if (rnd(4)) unify_data(&c, p.dmetas[i], rnd(3) ? p.datas[rnd(DATA_POOL)] : p.dmetas[rnd(DATA_METAS)]);
  for (int i = 0; i < SIZE_METAS; i++) {
    if (!rnd(4)) continue;
    Size value;
    switch (rnd(4)) {
    case 0: value = size_const(sc, 1 + rnd(4096)); break;
    case 1: value = size_mul(sc, p.n, size_const(sc, 1 + rnd(16))); break;
    case 2: size_ceil_div(sc, p.n, size_const(sc, 2 + rnd(63)), &value); break;
    default: value = p.smetas[rnd(SIZE_METAS)]; break;
    }
    unify_sizes(&c, p.smetas[i], value, nowhere);
  }
  /* phrase types sharing their parts, as a spine's share its function's */
  for (int i = 0; i < PHRASE_POOL; i++) {
    PhraseType *a = p.nphrases ? p.phrases[rnd((unsigned)p.nphrases)] : NULL;
    PhraseType *b = p.nphrases ? p.phrases[rnd((unsigned)p.nphrases)] : NULL;
    DataType *d = p.datas[rnd(DATA_POOL)];
    switch (a ? rnd(5) : rnd(2)) {
    case 0: p.phrases[p.nphrases++] = pt_exp(tc, d); break;
    case 1: p.phrases[p.nphrases++] = pt_acc(tc, d); break;
    case 2: p.phrases[p.nphrases++] = pt_fn(tc, a, b); break;
    case 3: p.phrases[p.nphrases++] = pt_fn_p(tc, a, tc->t_comm); break;
    default: p.phrases[p.nphrases++] = pt_with(tc, a, b); break;
    }
  }
  const char *copied[PHRASE_POOL];
  for (int i = 0; i < PHRASE_POOL; i++) copied[i] = pt_str(&env->arena, zonk_phrase_type(&c, p.phrases[i]));
  int order[PHRASE_POOL];
  for (int i = 0; i < PHRASE_POOL; i++) order[i] = i;
  for (int i = PHRASE_POOL - 1; i > 0; i--) {
    int j = (int)rnd((unsigned)i + 1), k = order[i];
    order[i] = order[j];
    order[j] = k;
  }
  long wrong = 0;
  for (int i = 0; i < PHRASE_POOL; i++) {
    PhraseType *t = p.phrases[order[i]];
    if (zonk_phrase_type_in_place(&c, t) != t && wrong++ < 5)
      fprintf(stderr, "test_zonk: in place, trial %d: a new type for %s\n", trial, copied[order[i]]);
  }
  for (int i = 0; i < PHRASE_POOL; i++) {
    PhraseType *t = p.phrases[i];
    const char *now = pt_str(&env->arena, t);
    bool solved_left = phrase_holds_solved(&c, t), ground_wrong = t->ground == pt_has_unknowns(t);
    (*types)++;
    if (strcmp(now, copied[i]) == 0 && !solved_left && !ground_wrong && zonk_phrase_type(&c, t) == t) continue;
    if (wrong++ < 5)
      fprintf(stderr, "test_zonk: in place, trial %d: %s, copied %s%s%s\n", trial, now, copied[i],
              solved_left ? ", a solved metavariable left" : "", ground_wrong ? ", ground flag wrong" : "");
  }
  return wrong;
}

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_zonk");
  SizeCtx *sc = &env.tc.sizes;
  Sym n_var = intern_cstr(&env.in, "N");
  long zonks = 0, steps = 0, wrong = 0;
  for (int trial = 0; trial < TRIALS; trial++) {
    Checker c = {.arena = &env.arena, .in = &env.in, .diag = &env.diag, .tc = &env.tc};
    c.zonk_memo = NEW(&env.arena, ZonkMemo);
    Span nowhere = {0};
    Size metas[METAS], sizes[SIZES];
    for (int i = 0; i < METAS; i++) metas[i] = size_var(sc, fresh_size_meta(&c, nowhere));
    Size n = size_var(sc, n_var);
    /* lone metavariables (the commonest), k*?m, ?a*?b, sums with N */
    for (int i = 0; i < SIZES; i++) {
      Size a = metas[rnd(METAS)], b = metas[rnd(METAS)];
      switch (rnd(5)) {
      case 0:
      case 1: sizes[i] = a; break;
      case 2: sizes[i] = size_mul(sc, size_const(sc, 1 + rnd(64)), a); break;
      case 3: sizes[i] = size_mul(sc, a, b); break;
      default: sizes[i] = size_add(sc, size_mul(sc, a, size_const(sc, 2 + rnd(8))), n); break;
      }
    }
    /* solve them in a random order: by N times a constant, by a constant,
     * by ceil(N/k), or by a metavariable solved later (a chain) */
    int order[METAS];
    for (int i = 0; i < METAS; i++) order[i] = i;
    for (int i = METAS - 1; i > 0; i--) {
      int j = (int)rnd((unsigned)i + 1), k = order[i];
      order[i] = order[j];
      order[j] = k;
    }
    for (int step = 0; step < METAS; step++) {
      int m = order[step];
      Size value;
      switch (rnd(4)) {
      case 0: value = size_mul(sc, n, size_const(sc, 1 + rnd(16))); break;
      case 1: value = size_const(sc, 1 + rnd(4096)); break;
      case 2: /* a floor atom (splitPad's ceil(N/k)), which products of
                 solved metavariables do not zonk by multiplying */
        size_ceil_div(sc, n, size_const(sc, 2 + rnd(63)), &value);
        break;
      default: value = step + 1 < METAS ? metas[order[step + 1 + rnd((unsigned)(METAS - step - 1))]] : n; break;
      }
      unify_sizes(&c, metas[m], value, nowhere);
      steps++;
      for (int round = 0; round < 2; round++)
        for (int i = 0; i < SIZES; i++) {
          Size got = zonked(&c, sizes[i]), want = by_hand(&c, sizes[i]);
          zonks++;
          if (size_eq(got, want)) continue;
          if (wrong++ < 5)
            fprintf(stderr, "test_zonk: trial %d step %d: %s zonks to %s, by hand %s\n", trial, step,
                    text(&c, sizes[i]), text(&c, got), text(&c, want));
        }
    }
  }
  printf("zonk: %ld sizes zonked, %ld steps, %ld wrong\n", zonks, steps, wrong);
  long types = 0, wrong_in_place = 0;
  for (int trial = 0; trial < PLACE_TRIALS; trial++) wrong_in_place += in_place_trial(&env, n_var, trial, &types);
  printf("zonk in place: %ld types, %ld wrong\n", types, wrong_in_place);
  wrong += wrong_in_place;
  if (env.diag.nerrors) fprintf(stderr, "test_zonk: %d unexpected diagnostics\n", env.diag.nerrors);
  arena_free(&env.arena);
  return wrong || env.diag.nerrors ? 1 : 0;
}
