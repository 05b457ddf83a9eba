/* names_test.c: the C names of generated code (spec section 8;
 * codegen/opencl.c, cg_c_name, on the list of OpenCL C's names,
 * the OpenCL backend's names, codegen/backend_opencl_names.c).
 *
 * Exact names for primes, reserved names and reserved families (the
 * renaming used to append _2, _3 ... to a name in a reserved family for
 * ever), then a sweep of 200000 pseudo-random names built on every reserved
 * prefix, with up to 4000 names taken: each answer is a valid C identifier,
 * neither reserved nor taken, and comes at once.  One line per failure,
 * exit 1 if anything failed. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cgen.h"

enum { MAX_TAKEN = 4000 };

typedef struct Taken {
  int n;
  const char *names[MAX_TAKEN];
} Taken;

static bool is_taken(const void *ctx, const char *name) {
  const Taken *t = ctx;
  for (int i = 0; i < t->n; i++)
    if (strcmp(t->names[i], name) == 0) return true;
  return false;
}

static int failures, checks;

static void expect(Arena *a, const char *base, const char *taken, const char *want) {
  Taken t = {0};
  if (taken) t.names[t.n++] = taken;
  const char *got = cg_c_name(a, backend_of(TARGET_OPENCL), base, is_taken, &t, NULL);
  checks++;
  if (strcmp(got, want) != 0) {
    failures++;
    printf("FAIL %s%s%s: got %s, expected %s\n", base, taken ? " with taken " : "", taken ? taken : "", got, want);
  }
}

static bool c_identifier(const char *s) {
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

int main(void) {
  DpiaMem mem;
  jmp_buf on_oom;
  dpia_mem_default(&mem);
  mem.on_oom = &on_oom;
  if (setjmp(on_oom) != 0) {
    fprintf(stderr, "names: out of memory\n");
    return 1;
  }
  Arena arena, *a = &arena;
  arena_init(a, &mem);

  /* free names stay; primes; leading underscores; suffixes; v_ */
  expect(a, "xs", NULL, "xs");
  expect(a, "get_x", NULL, "get_x");
  expect(a, "convert_y", NULL, "convert_y");
  expect(a, "v", NULL, "v");
  expect(a, "xs", "xs", "xs_2");
  expect(a, "xs'", NULL, "xs_p");
  expect(a, "xs''", NULL, "xs_pp");
  expect(a, "a'b'", NULL, "a_pb_p");
  expect(a, "xs'", "xs_p", "xs_p_2");
  expect(a, "__x", NULL, "x");
  expect(a, "__x", "x", "x_2");
  expect(a, "_Tmp", NULL, "Tmp");
  expect(a, "__", NULL, "v");
  expect(a, "__2", NULL, "v_2");
  expect(a, "dot", NULL, "dot_2");
  expect(a, "while", NULL, "while_2");
  expect(a, "float4", NULL, "float4_2");
  expect(a, "vload2", NULL, "vload2_2");
  expect(a, "CLK_a", NULL, "v_CLK_a");
  expect(a, "CLK_a", "v_CLK_a", "v_CLK_a_2");
  expect(a, "CL", "CL", "v_CL");
  expect(a, "cl_x", NULL, "v_cl_x");
  expect(a, "M_PI", NULL, "v_M_PI");
  expect(a, "atomic_y", NULL, "v_atomic_y");
  expect(a, "work_group_z", NULL, "v_work_group_z");
  expect(a, "pair_float_int", NULL, "v_pair_float_int");

  /* the sweep */
  static const char *const heads[] = {"",      "_",     "__",     "_X",      "CL_",          "CLK_",
                                      "cl_",   "M_PI",  "M_",     "vload",   "vstore",       "convert_",
                                      "as_",   "pair_", "atomic_", "atom_",  "work_group_", "sub_group_",
                                      "get_",  "float", "v_",     "v",       "dot",          "ndrange_",
                                      "while", "half_", "native_", "FLT_MAX"};
  static const char tails[] = "ab_2'1XD";
  Taken *t = NEW(a, Taken);
  uint64_t rng = 42;
  for (int r = 0; r < 200000; r++) {
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    uint64_t x = rng >> 24;
    char base[64];
    int n = sprintf(base, "%s", heads[x % DPIA_COUNTOF(heads)]);
    x /= DPIA_COUNTOF(heads);
    for (int len = (int)(x % 4), i = 0; i < len; i++, x /= 8) base[n++] = tails[(x >> 2) % 8];
    base[n] = 0;
    char first[2] = {base[0], 0};
    if (!c_identifier(first)) continue; /* an identifier starts as in C (the lexer) */
    if (t->n == MAX_TAKEN || x % 50 == 0) t->n = 0;
    const char *got = cg_c_name(a, backend_of(TARGET_OPENCL), base, is_taken, t, NULL);
    checks++;
    if (!c_identifier(got) || cg_is_reserved(backend_of(TARGET_OPENCL), got) || backend_reserved(backend_of(TARGET_OPENCL), got) || is_taken(t, got)) {
      failures++;
      printf("FAIL sweep: %s gave %s\n", base, got);
      if (failures > 20) break;
    }
    t->names[t->n++] = got;
  }
  printf("%d checks, %d failures\n", checks, failures);
  arena_free(a);
  return failures ? 1 : 0;
}
