/* test_kir.c: tests of the kernel IR (codegen/kir.h) and its OpenCL
 * printer (codegen/backend_opencl.c): each expression printed with C's
 * precedences and no redundant parentheses, structural equality, and the
 * invariants checked after lowering (no shadowing, no barrier where not
 * every work-item of the group gets).
 *
 * Prints `kir: P passed, F failed` and exits non-zero if anything failed. */
#include "backend.h"
#include "unit_env.h"

#include <string.h>

typedef struct Tester {
  Arena *a;
  IxCtx ix;
  int passed, failed;
} Tester;

static void expect_text(Tester *t, int line, const KirExpr *e, const char *want) {
  Buf b;
  buf_init(&b, t->a);
  backend_opencl.print_expr(&b, e);
  const char *got = b.data ? b.data : "";
  if (strcmp(got, want) == 0) {
    t->passed++;
  } else {
    t->failed++;
    fprintf(stderr, "test_kir.c:%d: printed %s, expected %s\n", line, got, want);
  }
}

static void expect(Tester *t, int line, bool ok, const char *what) {
  if (ok) {
    t->passed++;
  } else {
    t->failed++;
    fprintf(stderr, "test_kir.c:%d: FAILED: %s\n", line, what);
  }
}

#define TEXT(e, want) expect_text(t, __LINE__, (e), (want))
#define EXPECT(cond) expect(t, __LINE__, (cond), #cond)

static void test_printing(Tester *t) {
  Arena *a = t->a;
  const KirExpr *x = kir_var(a, "x"), *y = kir_var(a, "y"), *z = kir_var(a, "z");
  /* left associative: a - (b - c) keeps its parentheses, (a - b) - c not */
  TEXT(kir_binary(a, KB_SUB, x, kir_binary(a, KB_SUB, y, z)), "x - (y - z)");
  TEXT(kir_binary(a, KB_SUB, kir_binary(a, KB_SUB, x, y), z), "x - y - z");
  TEXT(kir_binary(a, KB_MUL, kir_binary(a, KB_ADD, x, y), z), "(x + y) * z");
  /* the parentheses -Wparentheses asks for: && in ||, a comparison in == */
  TEXT(kir_binary(a, KB_OR, kir_binary(a, KB_AND, x, y), z), "(x && y) || z");
  TEXT(kir_binary(a, KB_EQ, kir_binary(a, KB_LT, x, y), z), "(x < y) == z");
  /* a conjunction of tests and an address plus offsets print flat */
  TEXT(kir_binary(a, KB_ALL, x, kir_binary(a, KB_ALL, y, z)), "x && y && z");
  TEXT(kir_binary(a, KB_PTR_ADD, x, kir_binary(a, KB_ADD, y, z)), "x + y + z");
  /* no - -x */
  TEXT(kir_unary(a, '-', kir_unary(a, '-', x)), "-(-x)");
  TEXT(kir_unary(a, '-', kir_lit(a, "-1.0f")), "-(-1.0f)");
  TEXT(kir_unary(a, '!', x), "!x");
  const KirExpr *c = kir_cond(a, kir_binary(a, KB_LT, x, y), x, kir_cond(a, z, y, x));
  TEXT(c, "x < y ? x : z ? y : x");
  TEXT(kir_cond(a, c, x, y), "(x < y ? x : z ? y : x) ? x : y");
  const KirExpr *i = kir_ix(a, ix_add(&t->ix, ix_var(&t->ix, "i"), ix_const(&t->ix, 1)));
  TEXT(kir_index(a, x, i), "x[i + 1]");
  TEXT(kir_binary(a, KB_MUL, i, y), "(i + 1) * y");
  const KirExpr *args[3] = {x, kir_binary(a, KB_ADD, y, z), kir_int(a, 0)};
  TEXT(kir_call(a, KE_CALL, "clamp", 3, args), "clamp(x, y + z, 0)");
  TEXT(kir_call(a, KE_VECTOR, "float2", 2, args), "(float2)(x, y + z)");
  TEXT(kir_call(a, KE_CAST, "int", 1, &args[1]), "(int)(y + z)");
  TEXT(kir_member(a, kir_binary(a, KB_ADD, x, y), ".x"), "(x + y).x");
  const KirExpr *address = kir_unary(a, '&', x);
  TEXT(kir_index(a, kir_call(a, KE_CAST, "global float *", 1, &address), i), "((global float *)&x)[i + 1]");
  TEXT(kir_binary(a, KB_EQ, kir_query(a, KQ_LOCAL_ID, 1), kir_int(a, 0)), "get_local_id(1) == 0");
  TEXT(kir_query(a, KQ_NUM_GROUPS, 0), "get_num_groups(0)");
}

static void test_equality(Tester *t) {
  Arena *a = t->a;
  const Ix *i1 = ix_add(&t->ix, ix_var(&t->ix, "i"), ix_const(&t->ix, 1));
  const Ix *i2 = ix_add(&t->ix, ix_var(&t->ix, "i"), ix_const(&t->ix, 1));
  const KirExpr *e1 = kir_index(a, kir_var(a, "xs"), kir_ix(a, i1));
  const KirExpr *e2 = kir_index(a, kir_var(a, "xs"), kir_ix(a, i2));
  EXPECT(kir_expr_equal(e1, e2));
  EXPECT(!kir_expr_equal(e1, kir_index(a, kir_var(a, "ys"), kir_ix(a, i2))));
  EXPECT(!kir_expr_equal(e1, kir_index(a, kir_var(a, "xs"), kir_ix(a, ix_var(&t->ix, "i")))));
  EXPECT(kir_expr_equal(kir_member(a, e1, ".fst"), kir_member(a, e2, ".fst")));
  EXPECT(!kir_expr_equal(kir_member(a, e1, ".fst"), kir_member(a, e2, ".snd")));
  EXPECT(!kir_expr_equal(kir_query(a, KQ_LOCAL_ID, 0), kir_query(a, KQ_LOCAL_ID, 1)));
}

static KirStmt *barrier(Arena *a) {
  KirStmt *s = kir_stmt(a, KS_BARRIER);
  s->barrier.local = true;
  return s;
}

static KirStmt *decl(Arena *a, const char *name, const KirExpr *init) {
  KirStmt *s = kir_stmt(a, KS_DECL);
  s->decl.ctype = "int";
  s->decl.name = name;
  s->decl.array_len = -1;
  s->decl.init = init;
  return s;
}

static KirStmt *loop(Arena *a, const char *var, const KirExpr *init, const KirExpr *step) {
  KirStmt *s = kir_stmt(a, KS_FOR);
  s->loop.var = var;
  s->loop.init = init;
  s->loop.bound = kir_var(a, "N");
  s->loop.step = step;
  return s;
}

static void test_invariants(Tester *t) {
  Arena *a = t->a;
  KirParam n = {0, "int", "N", false};
  /* a barrier in a work-group loop, after a mapLocal run once: fine */
  KirKernel k = {.name = "k", .nparams = 1, .params = &n};
  KirStmt *wg = loop(a, "wg", kir_query(a, KQ_GROUP_ID, 0), kir_query(a, KQ_NUM_GROUPS, 0));
  kir_append(&k.body, wg);
  kir_append(&wg->loop.body, decl(a, "lid", kir_query(a, KQ_LOCAL_ID, 0)));
  kir_append(&wg->loop.body, barrier(a));
  EXPECT(kir_invariant_violation(a, &k) == NULL);
  /* ... not under a test of the local id */
  KirStmt *guard = kir_stmt(a, KS_IF);
  guard->cond.cond = kir_binary(a, KB_LT, kir_var(a, "lid"), kir_var(a, "N"));
  kir_append(&guard->cond.body, barrier(a));
  kir_append(&wg->loop.body, guard);
  EXPECT(kir_invariant_violation(a, &k) != NULL);
  /* ... nor in a loop over work-items */
  KirKernel k2 = {.name = "k", .nparams = 1, .params = &n};
  KirStmt *items = loop(a, "gid", kir_query(a, KQ_GLOBAL_ID, 0), kir_query(a, KQ_GLOBAL_SIZE, 0));
  kir_append(&k2.body, items);
  kir_append(&items->loop.body, barrier(a));
  EXPECT(kir_invariant_violation(a, &k2) != NULL);
  /* no shadowing: a loop variable of a parameter's name */
  KirKernel k3 = {.name = "k", .nparams = 1, .params = &n};
  kir_append(&k3.body, loop(a, "N", kir_int(a, 0), kir_int(a, 1)));
  EXPECT(kir_invariant_violation(a, &k3) != NULL);
  /* two blocks may each declare i */
  KirKernel k4 = {.name = "k", .nparams = 1, .params = &n};
  kir_append(&k4.body, loop(a, "i", kir_int(a, 0), kir_int(a, 1)));
  kir_append(&k4.body, loop(a, "i", kir_int(a, 0), kir_int(a, 1)));
  EXPECT(kir_invariant_violation(a, &k4) == NULL);
}

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "kir");
  Tester tester = {.a = &env.arena};
  Tester *t = &tester;
  ix_init(&t->ix, &env.arena);
  test_printing(t);
  test_equality(t);
  test_invariants(t);
  printf("kir: %d passed, %d failed\n", t->passed, t->failed);
  arena_free(&env.arena);
  return t->failed ? 1 : 0;
}
