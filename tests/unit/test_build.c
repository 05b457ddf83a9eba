/* test_build.c: the translation's phrase builder (translate/build.c).
 * b_binder interns a binder's name through a cache keyed by the name's
 * address (Builder.names): it must give what intern_cstr gives for every
 * name, also for names at addresses that share a slot, for a name given
 * again after another took its slot, and for two addresses holding the
 * same text.  Prints `build: P passed, F failed`. */
#include <stdio.h>
#include <string.h>

#include "unit_env.h"
#include "build.h"

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
  printf("build: %d passed, %d failed\n", passed, failed);
  arena_free(&env.arena);
  return failed ? 1 : 0;
}
