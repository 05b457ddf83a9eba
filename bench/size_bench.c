/* size_bench.c: micro benchmark of size canonicalisation (not a test).
 *
 * One operation builds the sizes the type checker meets in the paper's dot
 * product strategy: the tile count of `split (2048 * 128)` on [N], the join
 * of [N/262144][128] back to [N/2048], and the comparison with the declared
 * result size.  Prints nanoseconds per operation. */
#include "size.h"

#include <stdio.h>
#include <time.h>

enum { OPERATIONS = 1000000, OPERATIONS_PER_ARENA = 4096 };

static double now_seconds(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC); /* C11; monotonic enough for a benchmark */
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Returns whether the joined size equals N/2048 (always true), so the work
 * cannot be optimised away. */
static bool split_join_sizes(SizeCtx *sc, Sym n_name, Size expected) {
  Size n = size_var(sc, n_name);
  Size tile = size_mul(sc, size_const(sc, 2048), size_const(sc, 128));
  Size tiles;
  if (!size_div(sc, n, tile, &tiles)) return false;
  Size inner;
  if (!size_div(sc, tile, size_const(sc, 2048), &inner)) return false;
  Size joined = size_mul(sc, tiles, inner);
  return size_eq(joined, expected);
}

int main(void) {
  DpiaMem mem;
  jmp_buf on_oom;
  dpia_mem_default(&mem);
  mem.on_oom = &on_oom;
  if (setjmp(on_oom) != 0) {
    fprintf(stderr, "size_bench: out of memory\n");
    return 1;
  }
  Arena names_arena;
  arena_init(&names_arena, &mem);
  Interner names;
  intern_init(&names, &names_arena);
  Sym n_name = intern_cstr(&names, "N");

  Arena work;
  arena_init(&work, &mem);
  SizeCtx sc = {&work, false};
  long equal = 0;
  double start = now_seconds();
  for (int i = 0; i < OPERATIONS; i++) {
    if (i % OPERATIONS_PER_ARENA == 0) {
      /* bound memory: sizes of one batch die together */
      arena_free(&work);
      arena_init(&work, &mem);
    }
    Size expected;
    if (!size_div(&sc, size_var(&sc, n_name), size_const(&sc, 2048), &expected)) return 1;
    equal += split_join_sizes(&sc, n_name, expected);
  }
  double elapsed = now_seconds() - start;
  arena_free(&work);
  arena_free(&names_arena);
  if (equal != OPERATIONS || sc.overflow) {
    fprintf(stderr, "size_bench: wrong result (%ld of %d equal)\n", equal, OPERATIONS);
    return 1;
  }
  printf("size_bench: %d split/join canonicalisations, %.1f ns per op\n", OPERATIONS,
         elapsed * 1e9 / OPERATIONS);
  return 0;
}
