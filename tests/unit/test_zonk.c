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
 * zonked, M steps, F wrong`. */
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
  if (env.diag.nerrors) fprintf(stderr, "test_zonk: %d unexpected diagnostics\n", env.diag.nerrors);
  arena_free(&env.arena);
  return wrong || env.diag.nerrors ? 1 : 0;
}
