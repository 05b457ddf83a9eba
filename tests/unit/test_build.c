/* test_build.c: the translation's phrase builder (translate/build.c).
 * b_binder interns a binder's name through a cache keyed by the name's
 * address (Builder.names): it must give what intern_cstr gives for every
 * name, also for names at addresses that share a slot, for a name given
 * again after another took its slot, and for two addresses holding the
 * same text.  b_app_as gives back the old application exactly when it is,
 * field for field, the node b_app would build (kind, mark of normality,
 * span, type, prelude def, function, argument, and the fields an
 * application leaves zero), and else what b_app builds: each field of
 * an old node changed in turn.  phrase_spine takes apart applications of
 * 0 to 9 arguments.  Prints `build: P passed, F failed`. */
#include <stdio.h>
#include <string.h>

#include "unit_env.h"
#include "build.h"

/* the fields of an application that b_app sets or leaves zero, the same */
static bool same_application(const Phrase *x, const Phrase *y) {
  return x->kind == y->kind && x->normal_run == y->normal_run && x->span.src == y->span.src &&
         x->span.begin == y->span.begin && x->span.end == y->span.end && x->type == y->type &&
         x->prelude == y->prelude && x->fst == y->fst && x->snd == y->snd && x->index == y->index && x->op == y->op &&
         x->unop == y->unop;
}

/* b_app_as against b_app, for an old application with field `change`
 * changed (0: none); true when it is right */
static bool app_as_right(Builder *b, UnitEnv *env, int change) {
  TypeCtx *tc = &env->tc;
  PhraseType *exp = pt_exp(tc, tc->t_float);
  Phrase *fn = b_prim(b, PRIM_SQRT, 0, pt_fn(tc, exp, exp)), *arg = b_index(b, size_const(&tc->sizes, 3), size_const(&tc->sizes, 8));
  Phrase *other = b_index(b, size_const(&tc->sizes, 4), size_const(&tc->sizes, 8));
  static const Source src2;
  static const DefInfo prelude_def;
  Phrase *old = b_app(b, fn, arg);
  switch (change) {
  case 1: old->normal_run = 7; break;
  case 2: old->span.src = &src2; break;
  case 3: old->span.begin++; break;
  case 4: old->span.end++; break;
  case 5: old->type = pt_exp(tc, tc->t_float); break; /* an equal type, another node */
  case 6: old->prelude = &prelude_def; break;
  case 7: old->snd = other; break;
  case 8: old->fst = b_prim(b, PRIM_SQRT, 0, fn->type); break;
  case 9: old->index = 1; break;
  case 10: old->op = (BinOp)1; break;
  case 11: old->unop = '-'; break;
  case 12: old->kind = PH_PAIR; break;
  default: break;
  }
  Phrase *made = b_app(b, fn, arg), *got = b_app_as(b, old, fn, arg);
  return change == 0 ? got == old : got != old && same_application(got, made);
}

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_build");
  Builder b = {&env.arena, &env.tc, &env.in, {0}, {{0}}};
  int passed = 0, failed = 0;
  /* names in the arena, many more than the cache's slots, each given in
   * turn several times; and the literals the stages give */
  enum { NAMES = 200, ROUNDS = 5 };
  const char *names[NAMES + 4];
  for (int k = 0; k < NAMES; k++) names[k] = arena_printf(&env.arena, "n%d", k % 50); /* 4 addresses a text */
  names[NAMES] = "o", names[NAMES + 1] = "acc", names[NAMES + 2] = "i", names[NAMES + 3] = "o";
  for (int round = 0; round < ROUNDS; round++) {
    for (int k = 0; k < NAMES + 4; k++) {
      /* forwards, then backwards, then with a stride: other slot orders */
      int j = round % 3 == 0 ? k : round % 3 == 1 ? NAMES + 3 - k : (k * 7) % (NAMES + 4);
      Binder *x = b_binder(&b, names[j], env.tc.t_comm);
      if (x->name == intern_cstr(&env.in, names[j]) && strcmp(x->name, names[j]) == 0) {
        passed++;
      } else {
        failed++;
        fprintf(stderr, "test_build: binder named '%s' got '%s', not the interned name\n", names[j], x->name);
      }
    }
  }
  /* b_app_as: each field of the old application changed in turn */
  b.span = (Span){NULL, 10, 20};
  for (int change = 0; change <= 12; change++) {
    if (app_as_right(&b, &env, change)) {
      passed++;
    } else {
      failed++;
      fprintf(stderr, "test_build: b_app_as with field %d of the old application changed is wrong\n", change);
    }
  }
  /* phrase_spine of applications of 0 to 9 arguments (up to 6 in the
   * spine itself, more in the arena): the head and the arguments in order */
  for (int n = 0; n <= 9; n++) {
    PhraseType *t = env.tc.t_comm;
    Phrase *args[9];
    for (int k = n - 1; k >= 0; k--) {
      args[k] = b_index(&b, size_const(&env.tc.sizes, k), size_const(&env.tc.sizes, 10));
      t = pt_fn(&env.tc, args[k]->type, t);
    }
    Phrase *head = b_prim(&b, PRIM_SKIP, 0, t), *app = head;
    for (int k = 0; k < n; k++) app = b_app(&b, app, args[k]);
    PhraseSpine sp;
    phrase_spine(&env.arena, app, &sp);
    bool right = sp.head == head && sp.nargs == n;
    for (int k = 0; right && k < n; k++) right = sp.args[k] == args[k];
    if (right) {
      passed++;
    } else {
      failed++;
      fprintf(stderr, "test_build: the spine of an application of %d arguments is wrong\n", n);
    }
  }
  printf("build: %d passed, %d failed\n", passed, failed);
  arena_free(&env.arena);
  return failed ? 1 : 0;
}
