/* test_kir.c: tests of the kernel IR (codegen/kir.h) and its OpenCL
 * printer (codegen/backend_opencl.c): each expression printed with C's
 * precedences and no redundant parentheses, types and literals spelled as
 * OpenCL C spells them, index atoms that are expressions, structural
 * equality, the invariants checked after lowering (no shadowing, no
 * barrier where not every work-item of the group gets, no comparison of a
 * work-item function with a signed value), and the pass that
 * drops the bindings nothing reads (dead.c) and its walk of the names an
 * expression reads; the index flag of a tree with an expression atom
 * (Ix.exprs); the C target's split of a
 * work-group into work-item loops at its barriers, and its refusal; the
 * proof that a kernel computing in place reads its updated input only
 * where it writes (in_place.c); the partition pass's sharing of what it
 * does not decide (partition.c).
 *
 * Prints `kir: P passed, F failed` and exits non-zero if anything failed. */
#include "backend.h"
#include "backend_c.h"
#include "unit_env.h"

#include <math.h>
#include <string.h>

typedef struct Tester {
  Arena *a;
  IxCtx ix;
  int passed, failed;
} Tester;

static void expect_printed(Tester *t, int line, const Buf *b, const char *want) {
  const char *got = b->data ? b->data : "";
  if (strcmp(got, want) == 0) {
    t->passed++;
  } else {
    t->failed++;
    fprintf(stderr, "test_kir.c:%d: printed %s, expected %s\n", line, got, want);
  }
}

static void expect_text(Tester *t, int line, const KirExpr *e, const char *want) {
  Buf b;
  buf_init(&b, t->a);
  backend_of(TARGET_OPENCL)->print_expr(&b, e);
  expect_printed(t, line, &b, want);
}

static void expect(Tester *t, int line, bool ok, const char *what) {
  if (ok) {
    t->passed++;
  } else {
    t->failed++;
    fprintf(stderr, "test_kir.c:%d: FAILED: %s\n", line, what);
  }
}

static void expect_type(Tester *t, int line, const KirType *ty, const char *want) {
  Buf b;
  buf_init(&b, t->a);
  backend_of(TARGET_OPENCL)->print_type(&b, ty);
  expect_printed(t, line, &b, want);
}

/* variables of the tests' own types: an int, a float, a pointer to floats */
static const KirExpr *ivar(Arena *a, const char *name) { return kir_var(a, name, kir_scalar1(SC_INT)); }
static const KirExpr *fvar(Arena *a, const char *name) { return kir_var(a, name, kir_scalar1(SC_FLOAT)); }
static const KirExpr *pvar(Arena *a, const char *name) {
  return kir_var(a, name, kir_pointer_type(a, kir_scalar1(SC_FLOAT), KSP_GLOBAL, false));
}

#define TEXT(e, want) expect_text(t, __LINE__, (e), (want))
#define TYPE(ty, want) expect_type(t, __LINE__, (ty), (want))
#define EXPECT(cond) expect(t, __LINE__, (cond), #cond)

static void test_printing(Tester *t) {
  Arena *a = t->a;
  const KirExpr *x = ivar(a, "x"), *y = ivar(a, "y"), *z = ivar(a, "z");
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
  TEXT(kir_unary(a, '-', kir_lit(a, (KirLit){SC_FLOAT, 0, -1.0})), "-(-1.0f)");
  TEXT(kir_unary(a, '!', x), "!x");
  const KirExpr *c = kir_cond(a, kir_binary(a, KB_LT, x, y), x, kir_cond(a, z, y, x));
  TEXT(c, "x < y ? x : z ? y : x");
  TEXT(kir_cond(a, c, x, y), "(x < y ? x : z ? y : x) ? x : y");
  const KirExpr *i = kir_ix(a, ix_add(&t->ix, ix_var(&t->ix, "i"), ix_const(&t->ix, 1)));
  TEXT(kir_index(a, x, i), "x[i + 1]");
  TEXT(kir_binary(a, KB_MUL, i, y), "(i + 1) * y");
  const KirExpr *args[3] = {x, kir_binary(a, KB_ADD, y, z), kir_int(a, 0)};
  const KirType *int1 = kir_scalar_type(a, SC_INT, 1);
  TEXT(kir_builtin(a, KBI_CLAMP, int1, args), "clamp(x, y + z, 0)");
  TEXT(kir_builtin(a, KBI_MIN, int1, args), "min(x, y + z)");
  /* built-ins are spelt by the backend's name table: every one has a name
   * or (SELECT) a form */
  const KirExpr *three[3] = {x, y, z};
  for (int b = 0; b <= KBI_FMA; b++) {
    Buf out;
    buf_init(&out, a);
    backend_of(TARGET_OPENCL)->print_expr(&out, kir_builtin(a, (KirBuiltin)b, kir_scalar_type(a, SC_FLOAT, 1), three));
    EXPECT(out.len > 0 && (b == KBI_SELECT || out.data[out.len - 1] == ')'));
  }
  /* a choice of vectors: ?:, a double vector's mask a long vector (OpenCL C 6.3.i) */
  TEXT(kir_builtin(a, KBI_SELECT, kir_scalar_type(a, SC_FLOAT, 2), three), "x ? y : z");
  TEXT(kir_builtin(a, KBI_SELECT, kir_scalar_type(a, SC_DOUBLE, 2), (const KirExpr *[]){c, y, z}),
       "convert_long2(x < y ? x : z ? y : x) ? y : z");
  TEXT(kir_vector(a, kir_scalar_type(a, SC_FLOAT, 2), 2, args), "(float2)(x, y + z)");
  TEXT(kir_cast(a, kir_scalar_type(a, SC_INT, 1), args[1]), "(int)(y + z)");
  TEXT(kir_lane(a, kir_binary(a, KB_ADD, x, y), 0, 4), "(x + y).x");
  TEXT(kir_member(a, kir_index(a, x, i), "fst", kir_scalar1(SC_FLOAT)), "x[i + 1].fst");
  /* lanes by the vector's width (OpenCL C 6.3.7): .x to .w of a vector
   * of 2 to 4, which is all .xyzw names, else by number in hex */
  TEXT(kir_lane(a, x, 3, 4), "x.w");
  TEXT(kir_lane(a, x, 1, 2), "x.y");
  TEXT(kir_lane(a, x, 2, 3), "x.z");
  TEXT(kir_lane(a, x, 0, 8), "x.s0");
  TEXT(kir_lane(a, x, 3, 8), "x.s3");
  TEXT(kir_lane(a, x, 10, 16), "x.sa");
  TEXT(kir_lane(a, x, 15, 16), "x.sf");
  TEXT(kir_vload(a, 4, kir_binary(a, KB_ADD, y, z), x), "vload4(y + z, x)");
  const KirExpr *address = kir_unary(a, '&', x);
  const KirType *global_float = kir_pointer_type(a, kir_scalar_type(a, SC_FLOAT, 1), KSP_GLOBAL, false);
  TEXT(kir_index(a, kir_cast(a, global_float, address), i), "((global float *)&x)[i + 1]");
  TEXT(kir_binary(a, KB_EQ, kir_query(a, KQ_LOCAL_ID, 1), kir_int(a, 0)), "get_local_id(1) == 0");
  TEXT(kir_query(a, KQ_NUM_GROUPS, 0), "get_num_groups(0)");
}

static void test_types(Tester *t) {
  Arena *a = t->a;
  const KirType *f = kir_scalar_type(a, SC_FLOAT, 1);
  TYPE(f, "float");
  TYPE(kir_scalar_type(a, SC_FLOAT, 4), "float4");
  TYPE(kir_scalar_type(a, SC_DOUBLE, 16), "double16");
  TYPE(kir_scalar_type(a, SC_INT, 3), "int3");
  TYPE(kir_scalar_type(a, SC_BOOL, 1), "bool");
  TYPE(kir_struct_type(a, "pair_float_int"), "pair_float_int");
  TYPE(kir_pointer_type(a, f, KSP_GLOBAL, true), "const global float *");
  TYPE(kir_pointer_type(a, kir_scalar_type(a, SC_INT, 1), KSP_LOCAL, false), "local int *");
  TYPE(kir_pointer_type(a, f, KSP_PRIVATE, false), "float *");
  EXPECT(kir_type_equal(kir_scalar_type(a, SC_FLOAT, 4), kir_scalar_type(a, SC_FLOAT, 4)));
  EXPECT(!kir_type_equal(kir_scalar_type(a, SC_FLOAT, 4), kir_scalar_type(a, SC_FLOAT, 2)));
  EXPECT(!kir_type_equal(kir_pointer_type(a, f, KSP_GLOBAL, true), kir_pointer_type(a, f, KSP_GLOBAL, false)));
  /* a conversion: a cast of a scalar, convert_T of a vector (a call) */
  const KirExpr *v = ivar(a, "v"), *x = ivar(a, "x");
  const KirExpr *to4 = kir_cast(a, kir_scalar_type(a, SC_FLOAT, 4), v);
  TEXT(to4, "convert_float4(v)");
  TEXT(kir_lane(a, to4, 1, 4), "convert_float4(v).y");
  TEXT(kir_member(a, kir_cast(a, kir_struct_type(a, "pair_int_int"), v), "snd", kir_scalar1(SC_INT)),
       "((pair_int_int)v).snd");
  TEXT(kir_cast(a, kir_scalar_type(a, SC_DOUBLE, 1), kir_binary(a, KB_ADD, v, x)), "(double)(v + x)");
}

static const KirExpr *lit_float(Arena *a, double v) { return kir_lit(a, (KirLit){SC_FLOAT, 0, v}); }
static const KirExpr *lit_double(Arena *a, double v) { return kir_lit(a, (KirLit){SC_DOUBLE, 0, v}); }

static void test_literals(Tester *t) {
  Arena *a = t->a;
  /* the shortest decimal that reads back as the same float or double */
  TEXT(lit_float(a, 0.5), "0.5f");
  TEXT(lit_float(a, 1), "1.0f");
  TEXT(lit_float(a, 0.1), "0.1f");
  TEXT(lit_float(a, 1.0 / 3), "0.33333333f");
  TEXT(lit_float(a, 1e30), "1e+30f");
  /* no exponent where a person writes none (%g gives 1e+01, 2.5e+05) */
  TEXT(lit_float(a, 10), "10.0f");
  TEXT(lit_float(a, 100), "100.0f");
  TEXT(lit_float(a, 250000), "250000.0f");
  TEXT(lit_float(a, 1e6), "1e+06f");
  TEXT(lit_float(a, 0.0001), "0.0001f");
  TEXT(lit_float(a, 1e-5), "1e-05f");
  TEXT(lit_double(a, 20), "20.0");
  TEXT(lit_float(a, HUGE_VAL), "INFINITY");
  TEXT(lit_double(a, 0.1), "0.1");
  TEXT(lit_double(a, 2), "2.0");
  TEXT(lit_double(a, 1.0 / 3), "0.3333333333333333");
  TEXT(lit_double(a, HUGE_VAL), "(double)INFINITY");
  TEXT(kir_lit(a, (KirLit){SC_INT, -3, 0}), "-3");
  TEXT(kir_lit(a, (KirLit){SC_BOOL, 1, 0}), "true");
  TEXT(kir_lit(a, (KirLit){SC_BOOL, 0, 0}), "false");
  /* a vector literal is the scalar broadcast */
  const KirExpr *zero = lit_float(a, 0);
  TEXT(kir_vector(a, kir_scalar_type(a, SC_FLOAT, 16), 1, &zero), "(float16)(0.0f)");
  EXPECT(kir_expr_equal(lit_float(a, 0.5), lit_float(a, 0.5)));
  EXPECT(!kir_expr_equal(lit_float(a, 0.5), lit_double(a, 0.5)));
  EXPECT(!kir_expr_equal(lit_float(a, 0.5), lit_float(a, 0.25)));
  /* a whole number below 10^5, printed at once (cprint_float), as the
   * general search prints it; and the numbers around that range */
  int differ = 0;
  for (int single = 0; single <= 1; single++)
    for (int64_t n = -100003; n <= 100003; n += n > -1100 && n < 1100 ? 1 : n > -100020 && n < -99980 ? 1 : n > 99980 ? 1 : 37) {
      Arena scratch; /* the search's strings, let go every number */
      arena_init(&scratch, t->a->mem);
      double vs[3] = {(double)n, (double)n + 0.5, n == 0 ? -0.0 : (double)n * 0.25};
      for (int k = 0; k < 3; k++) {
        Buf fast, general;
        buf_init(&fast, &scratch);
        buf_init(&general, &scratch);
        cprint_float(&fast, vs[k], single);
        cprint_float_shortest(&general, vs[k], single);
        if (strcmp(fast.data, general.data) != 0 && differ++ < 5)
          printf("FAIL: %.17g (%s) printed %s, the search prints %s\n", vs[k], single ? "float" : "double",
                 fast.data, general.data);
      }
      arena_free(&scratch);
    }
  EXPECT(differ == 0);
}

/* Index atoms that are expressions (a clamp, a gather) print as their
 * expression, in parentheses where C needs them, are equal when their
 * expressions are, and take ranges as variables do. */
static void test_index_atoms(Tester *t) {
  Arena *a = t->a;
  IxCtx *x = &t->ix;
  const Ix *i = ix_var(x, "i");
  const KirExpr *args[3] = {kir_ix(a, ix_sub(x, i, ix_const(x, 1))), kir_int(a, 0), kir_int(a, 9)};
  const KirType *int1 = kir_scalar_type(a, SC_INT, 1);
  const Ix *clamped = ix_expr(x, kir_builtin(a, KBI_CLAMP, int1, args));
  const Ix *again = ix_expr(x, kir_builtin(a, KBI_CLAMP, int1, args));
  EXPECT(ix_equal(clamped, again));
  TEXT(kir_ix(a, ix_add(x, ix_mul(x, clamped, ix_const(x, 4)), ix_const(x, 1))), "clamp(i - 1, 0, 9)*4 + 1");
  const KirExpr *sum = kir_binary(a, KB_ADD, ivar(a, "p"), ivar(a, "q"));
  TEXT(kir_ix(a, ix_mul(x, ix_expr(x, sum), ix_const(x, 2))), "(p + q)*2");
  const Ix *gather = ix_expr(x, kir_index(a, pvar(a, "ys"), kir_ix(a, i)));
  EXPECT(!ix_equal(gather, clamped));
  TEXT(kir_ix(a, ix_simplify(x, ix_sub(x, ix_add(x, gather, i), i))), "ys[i]");
  /* a range on the clamped atom, found through an equal atom */
  EXPECT(!ix_provably_less(x, clamped, ix_const(x, 10)));
  ix_push_range(x, clamped, NULL, ix_const(x, 10));
  EXPECT(ix_provably_less(x, again, ix_const(x, 10)));
  EXPECT(ix_equal(ix_simplify(x, ix_mod(x, again, ix_const(x, 10))), clamped));
  EXPECT(!ix_provably_less(x, gather, ix_const(x, 10)));
  ix_pop_range(x);
  EXPECT(!ix_provably_less(x, again, ix_const(x, 10)));
}

static void test_equality(Tester *t) {
  Arena *a = t->a;
  const Ix *i1 = ix_add(&t->ix, ix_var(&t->ix, "i"), ix_const(&t->ix, 1));
  const Ix *i2 = ix_add(&t->ix, ix_var(&t->ix, "i"), ix_const(&t->ix, 1));
  const KirExpr *e1 = kir_index(a, pvar(a, "xs"), kir_ix(a, i1));
  const KirExpr *e2 = kir_index(a, pvar(a, "xs"), kir_ix(a, i2));
  EXPECT(kir_expr_equal(e1, e2));
  EXPECT(!kir_expr_equal(e1, kir_index(a, pvar(a, "ys"), kir_ix(a, i2))));
  EXPECT(!kir_expr_equal(e1, kir_index(a, pvar(a, "xs"), kir_ix(a, ix_var(&t->ix, "i")))));
  EXPECT(kir_expr_equal(kir_member(a, e1, "fst", kir_scalar1(SC_INT)), kir_member(a, e2, "fst", kir_scalar1(SC_INT))));
  EXPECT(!kir_expr_equal(kir_member(a, e1, "fst", kir_scalar1(SC_INT)), kir_member(a, e2, "snd", kir_scalar1(SC_INT))));
  EXPECT(kir_expr_equal(kir_lane(a, e1, 1, 4), kir_lane(a, e2, 1, 4)));
  EXPECT(!kir_expr_equal(kir_lane(a, e1, 1, 4), kir_lane(a, e2, 2, 4)));
  EXPECT(!kir_expr_equal(kir_query(a, KQ_LOCAL_ID, 0), kir_query(a, KQ_LOCAL_ID, 1)));
}

static KirStmt *barrier(Arena *a) {
  KirStmt *s = kir_stmt(a, KS_BARRIER);
  s->barrier.local = true;
  return s;
}

static KirStmt *decl(Arena *a, const char *name, const KirExpr *init) {
  KirStmt *s = kir_stmt(a, KS_DECL);
  s->decl.type = kir_scalar_type(a, SC_INT, 1);
  s->decl.name = name;
  s->decl.array_len = -1;
  s->decl.init = init;
  return s;
}

static KirStmt *loop(Arena *a, const char *var, const KirExpr *init, const KirExpr *step) {
  KirStmt *s = kir_stmt(a, KS_FOR);
  s->loop.var = var;
  s->loop.init = init;
  s->loop.bound = ivar(a, "N");
  s->loop.step = step;
  return s;
}

static void test_invariants(Tester *t) {
  Arena *a = t->a;
  KirParam n = {0, kir_scalar_type(a, SC_INT, 1), "N", false, false, false};
  /* a barrier in a work-group loop, after a mapLocal run once: fine */
  KirKernel k = {.name = "k", .nparams = 1, .params = &n};
  KirStmt *wg = loop(a, "wg", kir_query(a, KQ_GROUP_ID, 0), kir_query(a, KQ_NUM_GROUPS, 0));
  kir_append(&k.body, wg);
  kir_append(&wg->loop.body, decl(a, "lid", kir_query(a, KQ_LOCAL_ID, 0)));
  kir_append(&wg->loop.body, barrier(a));
  EXPECT(kir_invariant_violation(a, &k) == NULL);
  /* ... not under a test of the local id */
  KirStmt *guard = kir_stmt(a, KS_IF);
  guard->cond.cond = kir_binary(a, KB_LT, ivar(a, "lid"), ivar(a, "N"));
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
  /* ... and two blocks' bodies each declare x, after which a loop may
   * too: a scope's names are gone when it ends */
  for (int i = 0; i < 2; i++) {
    KirStmt *b = kir_stmt(a, KS_BLOCK);
    kir_append(&b->block.body, decl(a, "x", kir_int(a, 0)));
    kir_append(&k4.body, b);
  }
  kir_append(&k4.body, loop(a, "x", kir_int(a, 0), kir_int(a, 1)));
  EXPECT(kir_invariant_violation(a, &k4) == NULL);
  /* ... but not one inside the other (the loop's own variable declared
   * again in its body) */
  KirStmt *outer = loop(a, "j", kir_int(a, 0), kir_int(a, 1));
  kir_append(&outer->loop.body, decl(a, "j", kir_int(a, 0)));
  kir_append(&k4.body, outer);
  EXPECT(kir_invariant_violation(a, &k4) != NULL);
  /* a work-item function (size_t) compared with a constant at least 0, or
   * read into an int: fine; with an int that may be negative, or with
   * arithmetic over one: -Wsign-compare */
  KirKernel k5 = {.name = "k", .nparams = 1, .params = &n};
  KirStmt *once = kir_stmt(a, KS_IF);
  once->cond.cond = kir_binary(a, KB_EQ, kir_query(a, KQ_LOCAL_ID, 0), kir_int(a, 0));
  kir_append(&k5.body, once);
  kir_append(&k5.body, decl(a, "gid", kir_query(a, KQ_GLOBAL_ID, 0)));
  KirStmt *in = kir_stmt(a, KS_IF);
  in->cond.cond = kir_binary(a, KB_LT, ivar(a, "gid"), ivar(a, "N"));
  kir_append(&k5.body, in);
  EXPECT(kir_invariant_violation(a, &k5) == NULL);
  KirStmt *mixed = kir_stmt(a, KS_IF);
  const KirExpr *id4 = kir_binary(a, KB_MUL, kir_query(a, KQ_GLOBAL_ID, 0), kir_int(a, 4));
  mixed->cond.cond = kir_binary(a, KB_LT, id4, ivar(a, "N"));
  kir_append(&in->cond.body, mixed);
  EXPECT(kir_invariant_violation(a, &k5) != NULL);
  mixed->cond.cond = kir_binary(a, KB_GE, kir_query(a, KQ_LOCAL_ID, 0), kir_int(a, -1));
  EXPECT(kir_invariant_violation(a, &k5) != NULL);
}

/* ---- types (kir.h: every expression carries its type) ---- */

static bool typed(const KirExpr *e, const KirType *want) { return e->type && kir_type_equal(e->type, want); }

/* Every constructor gives its node a type: derived from the operands, or
 * the one its caller gives. */
static void test_expression_types(Tester *t) {
  Arena *a = t->a;
  const KirType *i1 = kir_scalar1(SC_INT), *f1 = kir_scalar1(SC_FLOAT), *b1 = kir_scalar1(SC_BOOL);
  const KirType *f4 = kir_scalar_type(a, SC_FLOAT, 4), *i4 = kir_scalar_type(a, SC_INT, 4);
  const KirType *pair = kir_struct_type(a, "pair_float_int");
  const KirType *gf = kir_pointer_type(a, f1, KSP_GLOBAL, true);
  const KirExpr *n = ivar(a, "n"), *x = fvar(a, "x"), *v = kir_var(a, "v", f4), *xs = kir_var(a, "xs", gf);
  const KirExpr *p = kir_var(a, "p", pair);
  EXPECT(typed(n, i1) && typed(x, f1) && typed(v, f4) && typed(xs, gf));
  EXPECT(typed(kir_int(a, 3), i1));
  EXPECT(typed(kir_lit(a, (KirLit){SC_DOUBLE, 0, 0.5}), kir_scalar1(SC_DOUBLE)));
  EXPECT(typed(kir_lit(a, (KirLit){SC_BOOL, 1, 0}), b1));
  EXPECT(typed(kir_ix(a, ix_var(&t->ix, "i")), i1));
  EXPECT(typed(kir_query(a, KQ_LOCAL_SIZE, 2), i1));
  /* operators: the wider operand's type, a scalar broadcast to a vector */
  EXPECT(typed(kir_binary(a, KB_MUL, v, x), f4));
  EXPECT(typed(kir_binary(a, KB_ADD, x, v), f4));
  EXPECT(typed(kir_binary(a, KB_SUB, n, kir_int(a, 1)), i1));
  /* a comparison: a bool of scalars, an int mask of vectors */
  EXPECT(typed(kir_binary(a, KB_LT, n, kir_int(a, 1)), b1));
  EXPECT(typed(kir_binary(a, KB_LT, v, x), i4));
  EXPECT(typed(kir_and(a, kir_binary(a, KB_LT, n, n), kir_binary(a, KB_GE, n, n)), b1));
  EXPECT(typed(kir_binary(a, KB_PTR_ADD, xs, n), gf));
  EXPECT(typed(kir_unary(a, '-', v), f4));
  EXPECT(typed(kir_unary(a, '!', kir_binary(a, KB_EQ, n, n)), b1));
  const KirExpr *address = kir_unary(a, '&', v);
  EXPECT(address->type->kind == KTY_POINTER && kir_type_equal(address->type->to, f4));
  EXPECT(typed(kir_cond(a, kir_binary(a, KB_LT, n, n), v, kir_vector(a, f4, 1, &x)), f4));
  /* an element: what its pointer points to; a lane: the vector's scalar */
  EXPECT(typed(kir_index(a, xs, n), f1));
  EXPECT(typed(kir_lane(a, v, 2, 4), f1));
  EXPECT(typed(kir_vload(a, 4, n, xs), f4));
  /* given by the caller: a field, a foreign function's result */
  EXPECT(typed(kir_member(a, p, "snd", i1), i1));
  EXPECT(typed(kir_call(a, "g", f1, 1, &x), f1));
  EXPECT(typed(kir_builtin(a, KBI_FABS, f4, &v), f4));
  EXPECT(typed(kir_cast(a, i4, v), i4));
  EXPECT(typed(kir_vector(a, f4, 1, &x), f4));
  /* and each of them agrees with its operands */
  const KirExpr *nodes[] = {kir_binary(a, KB_MUL, v, x),
                            kir_binary(a, KB_LT, v, x),
                            kir_index(a, xs, n),
                            kir_lane(a, v, 2, 4),
                            kir_vload(a, 4, n, xs),
                            kir_cast(a, i4, v),
                            address,
                            kir_builtin(a, KBI_SELECT, f4, (const KirExpr *[]){kir_binary(a, KB_LT, v, x), v, x})};
  for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++) EXPECT(kir_type_violation(a, nodes[k]) == NULL);
}

/* a kernel whose one statement is out[0] = value (out: global float *)
 * after `float4 v`, `int n` and `pair_float_int p` */
static const char *violation_of(Arena *a, const KirExpr *value) {
  KirParam *params = NEWARRAY(a, KirParam, 2);
  params[0] = (KirParam){0, kir_scalar1(SC_FLOAT), "out", false, false, false};
  params[1] = (KirParam){0, kir_scalar1(SC_INT), "n", false, false, false};
  KirKernel *k = NEW(a, KirKernel);
  *k = (KirKernel){.name = "k", .nparams = 2, .params = params};
  KirTop *top = NEW(a, KirTop);
  *top = (KirTop){.kind = KT_STRUCT, .name = "pair_float_int"};
  top->st = (KirStruct){"pair_float_int", {{kir_scalar1(SC_FLOAT), "fst", -1}, {kir_scalar1(SC_INT), "snd", -1}}};
  k->ntops = 1;
  k->tops = top;
  const KirType *decl_types[] = {kir_scalar_type(a, SC_FLOAT, 4), top->st.field[1].type, kir_struct_type(a, top->name)};
  const char *names[] = {"v", "m", "p"};
  for (int i = 0; i < 3; i++) {
    KirStmt *d = kir_stmt(a, KS_DECL);
    d->decl.type = decl_types[i];
    d->decl.name = names[i];
    d->decl.array_len = -1;
    kir_append(&k->body, d);
  }
  KirStmt *s = kir_stmt(a, KS_ASSIGN);
  s->assign.lhs = kir_index(a, pvar(a, "out"), kir_int(a, 0));
  s->assign.rhs = value;
  kir_append(&k->body, s);
  return kir_invariant_violation(a, k);
}

/* The invariant check catches a node whose type disagrees with its
 * operands', built by hand as a pass that forgot a type would build it. */
static void test_mistyped(Tester *t) {
  Arena *a = t->a;
  const KirType *f4 = kir_scalar_type(a, SC_FLOAT, 4);
  const KirExpr *v = kir_var(a, "v", f4), *m = ivar(a, "m"), *p = kir_var(a, "p", kir_struct_type(a, "pair_float_int"));
  /* well typed: a lane of v times a float, a field of p */
  EXPECT(violation_of(a, kir_binary(a, KB_MUL, kir_lane(a, v, 0, 4),
                                    kir_member(a, p, "fst", kir_scalar1(SC_FLOAT)))) == NULL);
  /* a node without a type */
  KirExpr *untyped = NEW(a, KirExpr);
  *untyped = *kir_lane(a, v, 0, 4);
  untyped->type = NULL;
  const char *why = violation_of(a, untyped);
  EXPECT(why && strstr(why, "without a type"));
  /* a lane typed as its vector */
  KirExpr *lane = NEW(a, KirExpr);
  *lane = *kir_lane(a, v, 1, 4);
  lane->type = f4;
  why = violation_of(a, lane);
  EXPECT(why && strstr(why, "lane"));
  /* a sum of a float vector and an int */
  why = violation_of(a, kir_binary(a, KB_ADD, v, m));
  EXPECT(why && strstr(why, "arithmetic"));
  /* a lane of a vector of another width than the lane says */
  why = violation_of(a, kir_lane(a, v, 1, 8));
  EXPECT(why && strstr(why, "width"));
  /* an element of something that is not a pointer */
  why = violation_of(a, kir_index(a, m, kir_int(a, 0)));
  EXPECT(why != NULL);
  /* a field typed otherwise than its struct says */
  why = violation_of(a, kir_member(a, p, "snd", kir_scalar1(SC_FLOAT)));
  EXPECT(why && strstr(why, "field"));
  /* a condition tested on a float; a vector built from ints */
  why = violation_of(a, kir_cond(a, kir_lit(a, (KirLit){SC_FLOAT, 0, 1}), m, m));
  EXPECT(why && strstr(why, "test"));
  why = violation_of(a, kir_lane(a, kir_vector(a, f4, 1, &m), 0, 4));
  EXPECT(why && strstr(why, "vector built"));
  /* an assignment of a vector to a float element */
  why = violation_of(a, v);
  EXPECT(why && strstr(why, "assignment"));
  /* a cast between widths */
  why = violation_of(a, kir_lane(a, kir_cast(a, f4, m), 0, 4));
  EXPECT(why && strstr(why, "cast"));
  /* a leaf typed otherwise than its kind says, where its parent takes it
   * (the check's leaves go by kir_leaf_typed first): an index and a
   * constant typed float, a literal of another scalar's type */
  KirExpr *ix = NEW(a, KirExpr);
  *ix = *kir_ix(a, ix_var(&t->ix, "i"));
  ix->type = kir_scalar1(SC_FLOAT);
  why = violation_of(a, kir_binary(a, KB_MUL, kir_lane(a, v, 0, 4), ix));
  EXPECT(why && strstr(why, "not an int"));
  KirExpr *k = NEW(a, KirExpr);
  *k = *kir_int(a, 2);
  k->type = kir_scalar1(SC_FLOAT);
  why = violation_of(a, k);
  EXPECT(why && strstr(why, "not an int"));
  KirExpr *lit = NEW(a, KirExpr);
  *lit = *kir_lit(a, (KirLit){SC_INT, 1, 0});
  lit->type = kir_scalar1(SC_FLOAT);
  why = violation_of(a, kir_binary(a, KB_ADD, kir_lane(a, v, 1, 4), lit));
  EXPECT(why && strstr(why, "literal"));
}

/* kir_leaf_typed (kir.h), the KIR check's answer for a leaf without a
 * call of the type rule: a yes must be the rule's (no violation), and it
 * must say yes to the leaves lowering makes (else it spares nothing).
 * Every leaf kind with types of every kind, the rule's own objects and
 * equal ones built apart, and none. */
static void test_leaf_types(Tester *t) {
  Arena *a = t->a;
  const KirType *types[] = {NULL,
                            kir_scalar1(SC_INT),
                            kir_scalar1(SC_FLOAT),
                            kir_scalar1(SC_BOOL),
                            kir_scalar1(SC_DOUBLE),
                            kir_scalar_type(a, SC_INT, 1),
                            kir_scalar_type(a, SC_FLOAT, 1),
                            kir_scalar_type(a, SC_INT, 4),
                            kir_scalar_type(a, SC_BOOL, 2),
                            kir_pointer_type(a, kir_scalar1(SC_INT), KSP_GLOBAL, false),
                            kir_pointer_type(a, kir_scalar1(SC_FLOAT), KSP_LOCAL, true),
                            kir_struct_type(a, "pair_float_int")};
  const KirExpr *shapes[] = {kir_int(a, 7),
                             ivar(a, "n"),
                             kir_lit(a, (KirLit){SC_FLOAT, 0, 2.0}),
                             kir_lit(a, (KirLit){SC_INT, 3, 0}),
                             kir_lit(a, (KirLit){SC_BOOL, 1, 0}),
                             kir_lit(a, (KirLit){SC_DOUBLE, 0, 0.5}),
                             kir_ix(a, ix_add(&t->ix, ix_var(&t->ix, "i"), ix_const(&t->ix, 1))),
                             kir_query(a, KQ_GLOBAL_ID, 0),
                             kir_query(a, KQ_LOCAL_SIZE, 1)};
  int wrong = 0, told = 0, leaves = 0;
  for (size_t s = 0; s < DPIA_COUNTOF(shapes); s++) {
    EXPECT(kir_expr_is_leaf(shapes[s]));
    /* as the constructor typed it: told without the rule */
    EXPECT(kir_leaf_typed(shapes[s]));
    for (size_t k = 0; k < DPIA_COUNTOF(types); k++) {
      KirExpr *e = NEW(a, KirExpr);
      *e = *shapes[s];
      e->type = types[k];
      bool fast = kir_leaf_typed(e);
      bool rule = types[k] && kir_type_violation(a, e) == NULL;
      wrong += fast && !rule;
      told += fast;
      leaves++;
    }
  }
  EXPECT(wrong == 0);
  EXPECT(told > 20 && told < leaves); /* both answers were given */
  /* not a leaf: the rule's own */
  EXPECT(!kir_expr_is_leaf(kir_unary(a, '-', ivar(a, "n"))));
  EXPECT(!kir_leaf_typed(kir_unary(a, '-', ivar(a, "n"))));
}

/* ---- dropping dead bindings (dead.c) ---- */

static const KirType *float_type(Arena *a) { return kir_scalar_type(a, SC_FLOAT, 1); }

static KirStmt *fdecl(Arena *a, const char *name, int64_t len, const KirExpr *init) {
  KirStmt *s = decl(a, name, init);
  s->decl.type = float_type(a);
  s->decl.array_len = len;
  return s;
}

static KirStmt *assign(Arena *a, const KirExpr *lhs, const KirExpr *rhs) {
  KirStmt *s = kir_stmt(a, KS_ASSIGN);
  s->assign.lhs = lhs;
  s->assign.rhs = rhs;
  return s;
}

static KirStmt *comment(Arena *a, const char *text) {
  KirStmt *s = kir_stmt(a, KS_COMMENT);
  s->text = text;
  return s;
}

static const KirExpr *flit(Arena *a, double v) { return kir_lit(a, (KirLit){.scalar = SC_FLOAT, .f = v}); }

static const KirExpr *elem(Arena *a, const char *buf, int64_t i) { return kir_index(a, pvar(a, buf), kir_int(a, i)); }

/* k's body once kir_drop_dead has run, as the backend prints it */
static void expect_dropped(Tester *t, int line, KirKernel *k, const char *want) {
  kir_drop_dead(t->a, k);
  Buf b;
  buf_init(&b, t->a);
  backend_of(TARGET_OPENCL)->print_kernel(k, NULL, &b);
  const char *body = strstr(b.data, ") {\n");
  Buf got;
  buf_init(&got, t->a);
  buf_puts(&got, body ? body + 4 : b.data);
  expect_printed(t, line, &got, want);
}
#define DROPPED(k, want) expect_dropped(t, __LINE__, (k), (want))

static void test_dead_bindings(Tester *t) {
  Arena *a = t->a;
  KirParam ps[2] = {{0, float_type(a), "out", false, false, false}, {0, float_type(a), "in", false, false, false}};
  const DefInfo g = {.name = "g", .is_foreign = true};
  const DefInfo *foreigns[] = {&g};
  const KirExpr *x = fvar(a, "x"), *in0 = elem(a, "in", 0), *gx = kir_call(a, "g", float_type(a), 1, &in0);

  /* a binding nothing reads goes, and then the one only it read */
  KirKernel k = {.name = "k", .comment = "k", .nparams = 2, .params = ps};
  kir_append(&k.body, fdecl(a, "x", -1, in0));
  kir_append(&k.body, fdecl(a, "y", -1, kir_binary(a, KB_DIV, x, flit(a, 3))));
  kir_append(&k.body, fdecl(a, "z", -1, kir_binary(a, KB_ADD, x, x)));
  kir_append(&k.body, assign(a, elem(a, "out", 0), fvar(a, "z")));
  DROPPED(&k, "  float x = in[0];\n  float z = x + x;\n  out[0] = z;\n}\n");

  /* a private array only written: its writes go, and the bindings they
   * read, and the comment over them; the comment over what stays stays */
  KirKernel k2 = {.name = "k", .comment = "k", .nparams = 2, .params = ps};
  kir_append(&k2.body, fdecl(a, "priv", 2, NULL));
  kir_append(&k2.body, comment(a, "mapSeq, 2 steps"));
  kir_append(&k2.body, fdecl(a, "x", -1, in0));
  kir_append(&k2.body, assign(a, elem(a, "priv", 0), kir_binary(a, KB_ADD, x, x)));
  kir_append(&k2.body, assign(a, elem(a, "priv", 1), x));
  kir_append(&k2.body, comment(a, "copy"));
  kir_append(&k2.body, assign(a, elem(a, "out", 0), in0));
  DROPPED(&k2, "  /* copy */\n  out[0] = in[0];\n}\n");

  /* a pointer written through stays */
  KirKernel k3 = {.name = "k", .comment = "k", .nparams = 2, .params = ps};
  KirStmt *p = fdecl(a, "p", -1, kir_binary(a, KB_PTR_ADD, pvar(a, "out"), kir_int(a, 1)));
  p->decl.type = kir_pointer_type(a, float_type(a), KSP_GLOBAL, false);
  kir_append(&k3.body, p);
  kir_append(&k3.body, assign(a, elem(a, "p", 0), flit(a, 1)));
  DROPPED(&k3, "  global float *p = out + 1;\n  p[0] = 1.0f;\n}\n");
  /* ... where it is written in a block inside the pointer's (dead.c,
   * assigned_from), and one written before its loop's next step too;
   * one nothing writes through goes */
  KirKernel k3b = {.name = "k", .comment = "k", .nparams = 2, .params = ps};
  KirStmt *q = fdecl(a, "q", -1, kir_binary(a, KB_PTR_ADD, pvar(a, "out"), kir_int(a, 2)));
  q->decl.type = p->decl.type;
  KirStmt *r = fdecl(a, "r", -1, kir_binary(a, KB_PTR_ADD, pvar(a, "out"), kir_int(a, 3)));
  r->decl.type = p->decl.type;
  kir_append(&k3b.body, q);
  kir_append(&k3b.body, r);
  KirStmt *inner = kir_stmt(a, KS_BLOCK);
  KirStmt *steps = loop(a, "i", kir_int(a, 0), kir_int(a, 1));
  kir_append(&steps->loop.body, assign(a, elem(a, "q", 0), flit(a, 2)));
  kir_append(&inner->block.body, steps);
  kir_append(&k3b.body, inner);
  /* (the block, declaring nothing, is its statements) */
  DROPPED(&k3b, "  global float *q = out + 2;\n  for (int i = 0; i < N; i += 1) {\n    q[0] = 2.0f;\n  }\n}\n");

  /* a foreign function's call stays, a statement of its own; one under a
   * condition keeps its condition */
  KirKernel k4 = {.name = "k", .comment = "k", .nparams = 2, .params = ps, .nforeigns = 1, .foreigns = foreigns};
  kir_append(&k4.body, fdecl(a, "x", -1, kir_binary(a, KB_DIV, gx, flit(a, 3))));
  const KirExpr *test = kir_binary(a, KB_LT, in0, flit(a, 0));
  kir_append(&k4.body, fdecl(a, "y", -1, kir_cond(a, test, gx, in0)));
  kir_append(&k4.body, fdecl(a, "priv", 2, NULL));
  kir_append(&k4.body, assign(a, elem(a, "priv", 0), kir_binary(a, KB_ADD, in0, gx)));
  DROPPED(&k4, "  g(in[0]);\n  (void)(in[0] < 0.0f ? g(in[0]) : in[0]);\n  g(in[0]);\n}\n");

  /* a name declared again in a later block is another variable: the loop
   * whose binding nothing reads goes, the one that writes stays */
  KirKernel k5 = {.name = "k", .comment = "k", .nparams = 2, .params = ps};
  KirStmt *l1 = loop(a, "i", kir_int(a, 0), kir_int(a, 1)), *l2 = loop(a, "i", kir_int(a, 0), kir_int(a, 1));
  kir_append(&l1->loop.body, fdecl(a, "x", -1, kir_index(a, pvar(a, "in"), ivar(a, "i"))));
  kir_append(&l2->loop.body, fdecl(a, "x", -1, kir_index(a, pvar(a, "in"), ivar(a, "i"))));
  kir_append(&l2->loop.body, assign(a, kir_index(a, pvar(a, "out"), ivar(a, "i")), x));
  kir_append(&k5.body, l1);
  kir_append(&k5.body, l2);
  DROPPED(&k5, "  for (int i = 0; i < N; i += 1) {\n    float x = in[i];\n    out[i] = x;\n  }\n}\n");

  /* one index tree read in two blocks, each of its own j: the names it
   * reads are noted again after the later block's j is declared (dead.c,
   * names_read's last tree), so the earlier j is read too and stays */
  KirKernel k6 = {.name = "k", .comment = "k", .nparams = 2, .params = ps};
  const Ix *jx = ix_add(&t->ix, ix_var(&t->ix, "j"), ix_const(&t->ix, 1));
  for (int b = 1; b <= 2; b++) {
    KirStmt *blk = kir_stmt(a, KS_BLOCK);
    kir_append(&blk->block.body, decl(a, "j", kir_int(a, b)));
    kir_append(&blk->block.body, assign(a, kir_index(a, pvar(a, "out"), kir_ix(a, jx)), flit(a, b)));
    kir_append(&k6.body, blk);
  }
  DROPPED(&k6, "  {\n    int j = 1;\n    out[j + 1] = 1.0f;\n  }\n  {\n    int j = 2;\n    out[j + 1] = 2.0f;\n  }\n}\n");
}

/* k's body once kir_sink_into_guards has run, as the backend prints it */
static void expect_sunk(Tester *t, int line, KirKernel *k, const char *want) {
  kir_sink_into_guards(t->a, k);
  Buf b;
  buf_init(&b, t->a);
  backend_of(TARGET_OPENCL)->print_kernel(k, NULL, &b);
  const char *body = strstr(b.data, ") {\n");
  Buf got;
  buf_init(&got, t->a);
  buf_puts(&got, body ? body + 4 : b.data);
  expect_printed(t, line, &got, want);
}
#define SUNK(k, want) expect_sunk(t, __LINE__, (k), (want))

static KirStmt *guard(Arena *a, const KirExpr *cond, KirStmt *body) {
  KirStmt *g = kir_stmt(a, KS_IF);
  g->cond.cond = cond;
  kir_append(&g->cond.body, body);
  return g;
}

/* codegen/guard_sink.c: what only a test's body reads goes into it */
/* ---- the names an expression reads (dead.c, kir_names_read) ----
 * kir_names_read walks each kind's children itself; the reference here
 * walks those kir_expr_children gives.  On pseudo-random expressions of
 * every kind they must read the same names. */

static void ref_ix_reads(const Ix *e, NameSet *read);

static void ref_names_read(const KirExpr *e, NameSet *read) {
  if (!e) return;
  if (e->kind == KE_VAR) nameset_add_once(read, e->name);
  if (e->kind == KE_IX) ref_ix_reads(e->ix, read);
  const KirExpr *buf[3], *const *sub;
  int n = kir_expr_children(e, buf, &sub);
  for (int i = 0; i < n; i++) ref_names_read(sub[i], read);
}

static void ref_ix_reads(const Ix *e, NameSet *read) {
  if (!e) return;
  if (e->kind == IX_VAR) nameset_add_once(read, e->name);
  if (e->kind == IX_EXPR) ref_names_read(e->expr, read);
  if (e->kind != IX_CONST && e->kind != IX_VAR && e->kind != IX_EXPR) {
    ref_ix_reads(e->a, read);
    ref_ix_reads(e->b, read);
  }
}

enum { READ_POOL = 12 };
static const char *const read_pool[READ_POOL] = {"a", "b", "c", "d", "e", "f", "g", "h", "x_1", "x_2", "y", "z"};

static uint32_t next_random(uint32_t *seed) { return *seed = *seed * 1103515245u + 12345u, *seed >> 16; }

static const KirExpr *random_expr(Tester *t, uint32_t *seed, int depth);

static const Ix *random_ix(Tester *t, uint32_t *seed, int depth) {
  IxCtx *x = &t->ix;
  uint32_t r = next_random(seed) % (depth > 0 ? 5 : 2);
  switch (r) {
  case 0: return ix_const(x, (int64_t)(next_random(seed) % 7));
  case 1: return ix_var(x, read_pool[next_random(seed) % READ_POOL]);
  case 2: return ix_expr(x, random_expr(t, seed, depth - 1));
  case 3: return ix_add(x, random_ix(t, seed, depth - 1), random_ix(t, seed, depth - 1));
  default: return ix_mul(x, random_ix(t, seed, depth - 1), ix_var(x, read_pool[next_random(seed) % READ_POOL]));
  }
}

static const KirExpr *random_expr(Tester *t, uint32_t *seed, int depth) {
  Arena *a = t->a;
  const KirType *int1 = kir_scalar1(SC_INT);
  const char *name = read_pool[next_random(seed) % READ_POOL];
  if (depth <= 0) return next_random(seed) % 3 ? ivar(a, name) : kir_int(a, 3);
  const KirExpr *args[3];
  switch (next_random(seed) % 14) {
  case 0: return kir_query(a, KQ_LOCAL_ID, 0);
  case 1: return kir_ix(a, random_ix(t, seed, depth - 1));
  case 2: return kir_unary(a, '-', random_expr(t, seed, depth - 1));
  case 3: return kir_binary(a, KB_ADD, random_expr(t, seed, depth - 1), random_expr(t, seed, depth - 1));
  case 4:
    return kir_cond(a, random_expr(t, seed, depth - 1), random_expr(t, seed, depth - 1),
                    random_expr(t, seed, depth - 1));
  case 5: return kir_index(a, pvar(a, name), random_expr(t, seed, depth - 1));
  case 6: return kir_lane(a, random_expr(t, seed, depth - 1), 1, 4);
  case 7: return kir_vload(a, 4, random_expr(t, seed, depth - 1), pvar(a, name));
  case 8:
    for (int i = 0; i < 3; i++) args[i] = random_expr(t, seed, depth - 1);
    return kir_call(a, "f", int1, (int)(next_random(seed) % 4), args);
  case 9:
    for (int i = 0; i < 3; i++) args[i] = random_expr(t, seed, depth - 1);
    return kir_builtin(a, KBI_CLAMP, int1, args);
  case 10: return kir_cast(a, int1, random_expr(t, seed, depth - 1));
  case 11:
    for (int i = 0; i < 3; i++) args[i] = random_expr(t, seed, depth - 1);
    return kir_vector(a, kir_scalar_type(a, SC_INT, 3), 3, args);
  case 12: return kir_member(a, random_expr(t, seed, depth - 1), "m", int1);
  default: return fvar(a, name);
  }
}

static void test_names_read(Tester *t) {
  uint32_t seed = 7;
  int differ = 0, read_some = 0;
  for (int n = 0; n < 400; n++) {
    const KirExpr *e = random_expr(t, &seed, 1 + n % 5);
    NameSet fast = {.arena = t->a}, ref = {.arena = t->a};
    kir_names_read(e, &fast);
    ref_names_read(e, &ref);
    int count = 0;
    for (int i = 0; i < READ_POOL; i++) {
      differ += nameset_has(&fast, read_pool[i]) != nameset_has(&ref, read_pool[i]);
      count += nameset_has(&ref, read_pool[i]);
    }
    read_some += count > 1;
  }
  EXPECT(differ == 0);
  EXPECT(read_some > 200); /* the expressions read names: the test can fail */
}

/* Ix.exprs, set by the constructors (index_print.c, ix_seal), is whether
 * the tree has an IX_EXPR node: the passes that look at expression atoms
 * only skip a tree without one (partition.c's decide_ix and ix_calls,
 * kir.c's check_ix, dead.c's ix_has_effect).  The reference walks it. */
static bool ref_has_expr(const Ix *e) {
  if (!e) return false;
  return e->kind == IX_EXPR || ref_has_expr(e->a) || ref_has_expr(e->b);
}

static void test_ix_exprs_flag(Tester *t) {
  uint32_t seed = 11;
  int wrong = 0, with = 0, without = 0;
  for (int n = 0; n < 400; n++) {
    const Ix *e = random_ix(t, &seed, 1 + n % 5);
    const Ix *simple = ix_simplify(&t->ix, e);
    wrong += e->exprs != ref_has_expr(e);
    wrong += simple->exprs != ref_has_expr(simple);
    with += ref_has_expr(e), without += !ref_has_expr(e);
  }
  EXPECT(wrong == 0);
  EXPECT(with > 50 && without > 50); /* both kinds of tree were made */
}

/* ---- an index's text copied where its node is printed again ----
 * The OpenCL backend prints a kernel's statements by hooks that keep the
 * text of the index printed last in the statement (backend_c.c,
 * CExprHooks.ix_text); each expression printed alone by the backend's
 * print_expr keeps none.  On pseudo-random statements whose expressions
 * share index nodes (within a statement and across), under a unary minus
 * (whose operand is printed into a buffer of its own) and in vector
 * loads and elements, the kernel's lines must be the expressions' texts. */
static const KirExpr *shared_ix_expr(Tester *t, uint32_t *seed, const KirExpr *const *pool, int depth) {
  Arena *a = t->a;
  switch (next_random(seed) % (depth > 0 ? 7 : 2)) {
  case 0: return pool[next_random(seed) % 4];
  case 1: return ivar(a, read_pool[next_random(seed) % READ_POOL]);
  case 2: return kir_unary(a, '-', shared_ix_expr(t, seed, pool, depth - 1));
  case 3: return kir_binary(a, KB_MUL, shared_ix_expr(t, seed, pool, depth - 1), shared_ix_expr(t, seed, pool, depth - 1));
  case 4: return kir_vload(a, 4, shared_ix_expr(t, seed, pool, depth - 1), pvar(a, "xs"));
  case 5: return kir_index(a, pvar(a, "ys"), shared_ix_expr(t, seed, pool, depth - 1));
  default:
    return kir_binary(a, KB_SUB, shared_ix_expr(t, seed, pool, depth - 1), shared_ix_expr(t, seed, pool, depth - 1));
  }
}

static void test_printed_indices(Tester *t) {
  Arena *a = t->a;
  IxCtx *x = &t->ix;
  const Ix *i4j = ix_add(x, ix_mul(x, ix_var(x, "i"), ix_const(x, 4)), ix_var(x, "j"));
  const Ix *i1 = ix_add(x, ix_var(x, "i"), ix_const(x, 1));
  const KirExpr *pool[4] = {kir_ix(a, i4j), kir_ix(a, i4j), kir_ix(a, i1), kir_ix(a, ix_var(x, "k"))};
  KirParam ps[1] = {{0, kir_scalar1(SC_FLOAT), "out", false, false, false}};
  uint32_t seed = 23;
  int differ = 0, shared = 0;
  for (int n = 0; n < 60; n++) {
    KirKernel k = {.name = "k", .comment = "k", .nparams = 1, .params = ps};
    Buf want;
    buf_init(&want, a);
    for (int j = 0; j < 6; j++) {
      KirStmt *s = assign(a, kir_index(a, pvar(a, "out"), pool[next_random(&seed) % 4]),
                          shared_ix_expr(t, &seed, pool, 1 + (n + j) % 4));
      kir_append(&k.body, s);
      buf_puts(&want, "  ");
      backend_of(TARGET_OPENCL)->print_expr(&want, s->assign.lhs);
      buf_puts(&want, " = ");
      backend_of(TARGET_OPENCL)->print_expr(&want, s->assign.rhs);
      buf_puts(&want, ";\n");
    }
    Buf got;
    buf_init(&got, a);
    backend_of(TARGET_OPENCL)->print_kernel(&k, NULL, &got);
    const char *body = strstr(got.data, ") {\n");
    size_t len = body ? strlen(body + 4) : 0;
    differ += !body || len != want.len + 2 || strncmp(body + 4, want.data, want.len) != 0;
    /* an index of the pool printed twice in one line: the text copied */
    for (const char *line = want.data; line; line = strchr(line + 1, '\n'))
      shared += strstr(line, "i*4 + j") && strstr(strstr(line, "i*4 + j") + 1, "i*4 + j") &&
                (!strchr(line + 1, '\n') || strstr(strstr(line, "i*4 + j") + 1, "i*4 + j") < strchr(line + 1, '\n'));
  }
  EXPECT(differ == 0);
  EXPECT(shared > 20); /* the same index printed again in a statement */
}

/* ---- whether partition has work (partition_work.c) ----
 * kir_partition_has_work walks each kind's children itself, and each
 * statement's expressions; the reference asks kir_expr_children and
 * kir_map_exprs, as the pass did.  On pseudo-random statements of tests
 * and no tests they must agree. */

static bool ref_decidable(const KirExpr *e);

static bool ref_decidable_ix(const Ix *e) {
  if (!e) return false;
  if (e->kind == IX_EXPR) return ref_decidable(e->expr);
  return e->kind != IX_CONST && e->kind != IX_VAR && (ref_decidable_ix(e->a) || ref_decidable_ix(e->b));
}

static bool ref_decidable(const KirExpr *e) {
  if (!e) return false;
  if (e->kind == KE_IX) return ref_decidable_ix(e->ix);
  if (e->kind == KE_COND || (e->kind == KE_UNARY && e->un.op == '!')) return true;
  if (e->kind == KE_BINARY && e->bin.op != KB_MUL && e->bin.op != KB_DIV && e->bin.op != KB_MOD &&
      e->bin.op != KB_ADD && e->bin.op != KB_SUB && e->bin.op != KB_PTR_ADD)
    return true;
  if (e->kind == KE_BUILTIN &&
      (e->call.builtin == KBI_MIN || e->call.builtin == KBI_MAX || e->call.builtin == KBI_CLAMP))
    return true;
  const KirExpr *buf[3], *const *sub;
  int n = kir_expr_children(e, buf, &sub);
  for (int i = 0; i < n; i++)
    if (ref_decidable(sub[i])) return true;
  return false;
}

static const KirExpr *ref_note(void *found, const KirExpr *e) {
  if (ref_decidable(e)) *(bool *)found = true;
  return e;
}

/* an int expression, a test at some depth or none (one kind in eight is
 * a test: most expressions of depth 3 hold none) */
static const KirExpr *random_tested(Tester *t, uint32_t *seed, int depth) {
  Arena *a = t->a;
  const KirType *int1 = kir_scalar1(SC_INT);
  const char *name = read_pool[next_random(seed) % READ_POOL];
  if (depth <= 0) return next_random(seed) % 3 ? ivar(a, name) : kir_int(a, 3);
  const KirExpr *args[3];
  for (int i = 0; i < 3; i++) args[i] = random_tested(t, seed, depth - 1);
  static const KirBinop arith[] = {KB_MUL, KB_ADD, KB_SUB, KB_DIV};
  static const KirBinop tests[] = {KB_LT, KB_EQ, KB_AND, KB_OR};
  static const KirBuiltin decided[] = {KBI_MIN, KBI_MAX, KBI_CLAMP};
  switch (next_random(seed) % 24) {
  case 0: return kir_binary(a, tests[next_random(seed) % 4], args[0], args[1]);
  case 1: return kir_unary(a, '!', args[0]);
  case 2: return kir_cond(a, args[0], args[1], args[2]);
  case 3: {
    KirBuiltin b = decided[next_random(seed) % 3];
    return kir_builtin(a, b, int1, args);
  }
  case 4:
  case 5:
  case 6: return kir_binary(a, arith[next_random(seed) % 4], args[0], args[1]);
  case 7: return kir_unary(a, '-', args[0]);
  case 8:
  case 9: return kir_index(a, pvar(a, name), args[0]);
  case 10: return kir_vload(a, 4, args[0], pvar(a, name));
  case 11: return kir_call(a, "f", int1, (int)(next_random(seed) % 4), args);
  case 12: return kir_cast(a, int1, args[0]);
  case 13: return kir_member(a, args[0], "m", int1);
  case 14: return kir_lane(a, args[0], 1, 4);
  case 15: return kir_ix(a, ix_add(&t->ix, ix_expr(&t->ix, args[0]), ix_var(&t->ix, name)));
  case 16: return kir_ix(a, ix_mul(&t->ix, ix_var(&t->ix, name), ix_const(&t->ix, 4)));
  default: return next_random(seed) % 2 ? ivar(a, name) : kir_int(a, 5);
  }
}

static void test_partition_work(Tester *t) {
  Arena *a = t->a;
  uint32_t seed = 23;
  int differ = 0, with = 0, without = 0;
  for (int n = 0; n < 600; n++) {
    const KirExpr *e = random_tested(t, &seed, 1 + n % 4), *f = random_tested(t, &seed, 1 + n % 3);
    KirStmt *s;
    switch (n % 5) {
    case 0: s = decl(a, "v", e); break;
    case 1: s = assign(a, kir_index(a, pvar(a, "out"), f), e); break;
    case 2:
      s = kir_stmt(a, KS_VSTORE);
      s->vstore.width = 4;
      s->vstore.value = e, s->vstore.offset = f, s->vstore.ptr = pvar(a, "out");
      break;
    case 3:
      s = loop(a, "i", e, f);
      kir_append(&s->loop.body, assign(a, kir_index(a, pvar(a, "out"), ivar(a, "i")), kir_int(a, 1)));
      break;
    default: s = kir_stmt(a, KS_EXPR), s->expr = e; break;
    }
    KirBlock body = {0};
    kir_append(&body, s);
    bool found = false;
    kir_map_exprs(s, ref_note, &found);
    differ += kir_partition_has_work(&body) != found;
    with += found, without += !found;
  }
  EXPECT(differ == 0);
  EXPECT(with > 100 && without > 100); /* both answers were asked for: the test can fail */
}

static void test_guard_sink(Tester *t) {
  Arena *a = t->a;
  KirParam ps[2] = {{0, float_type(a), "out", false, false, false}, {0, float_type(a), "in", false, false, false}};
  const DefInfo g = {.name = "g", .is_foreign = true};
  const DefInfo *foreigns[] = {&g};
  const KirExpr *x = fvar(a, "x"), *in0 = elem(a, "in", 0), *gx = kir_call(a, "g", float_type(a), 1, &in0);
  const KirExpr *test = kir_binary(a, KB_LT, ivar(a, "lid"), ivar(a, "N"));

  /* a private computation read only in the test goes into it; the
   * work-item's id stays */
  KirKernel k = {.name = "k", .comment = "k", .nparams = 2, .params = ps};
  kir_append(&k.body, decl(a, "lid", kir_query(a, KQ_LOCAL_ID, 0)));
  kir_append(&k.body, fdecl(a, "x", -1, in0));
  kir_append(&k.body, fdecl(a, "y", -1, kir_binary(a, KB_ADD, x, x)));
  kir_append(&k.body, guard(a, test, assign(a, elem(a, "out", 0), fvar(a, "y"))));
  SUNK(&k, "  int lid = get_local_id(0);\n  if (lid < N) {\n    float x = in[0];\n    float y = x + x;\n"
           "    out[0] = y;\n  }\n}\n");

  /* a value read after the test stays before it, and so does what it
   * reads; a write to memory, and a foreign call, stay */
  KirKernel k2 = {.name = "k", .comment = "k", .nparams = 2, .params = ps, .nforeigns = 1, .foreigns = foreigns};
  kir_append(&k2.body, decl(a, "lid", kir_query(a, KQ_LOCAL_ID, 0)));
  kir_append(&k2.body, fdecl(a, "x", -1, in0));
  kir_append(&k2.body, guard(a, test, assign(a, elem(a, "out", 0), x)));
  kir_append(&k2.body, assign(a, elem(a, "out", 1), x));
  kir_append(&k2.body, assign(a, elem(a, "out", 2), in0));
  kir_append(&k2.body, guard(a, test, assign(a, elem(a, "out", 3), in0)));
  kir_append(&k2.body, fdecl(a, "z", -1, gx));
  kir_append(&k2.body, guard(a, kir_binary(a, KB_GT, ivar(a, "lid"), kir_int(a, 0)), assign(a, elem(a, "out", 4), fvar(a, "z"))));
  SUNK(&k2, "  int lid = get_local_id(0);\n  float x = in[0];\n  if (lid < N) {\n    out[0] = x;\n  }\n  out[1] = x;\n"
            "  out[2] = in[0];\n  if (lid < N) {\n    out[3] = in[0];\n  }\n  float z = g(in[0]);\n"
            "  if (lid > 0) {\n    out[4] = z;\n  }\n}\n");

  /* two tests of the same condition, one after the other, are one (the
   * halves of a pair), and the computation goes into it */
  KirKernel k3 = {.name = "k", .comment = "k", .nparams = 2, .params = ps};
  kir_append(&k3.body, decl(a, "lid", kir_query(a, KQ_LOCAL_ID, 0)));
  kir_append(&k3.body, fdecl(a, "x", -1, in0));
  kir_append(&k3.body, guard(a, test, assign(a, elem(a, "out", 0), x)));
  kir_append(&k3.body, guard(a, test, assign(a, elem(a, "out", 1), x)));
  SUNK(&k3, "  int lid = get_local_id(0);\n  if (lid < N) {\n    float x = in[0];\n    out[0] = x;\n"
            "    out[1] = x;\n  }\n}\n");
}

/* The C target's work-group structure (backend_c_omp.c): a barrier under
 * a loop or test that differs between the work-items of a group cannot be
 * split into work-item loops and is refused (E0608 at lowering); one in a
 * loop over the groups is, and its private variables kept across it live
 * in per-work-item arrays. */
static void test_c_target(Tester *t) {
  Arena *a = t->a;
  const Backend *c = backend_of(TARGET_C);
  KirParam ps[2] = {{0, float_type(a), "out", false, false, false}, {3 /* KP_NAT */, kir_scalar_type(a, SC_INT, 1), "N", false, false, false}};
  KirKernel k = {.name = "k", .comment = "k", .nparams = 2, .params = ps, .reqd_local = true,
                 .local_size = {4, 1, 1}};
  KirStmt *wg = loop(a, "wg", kir_query(a, KQ_GROUP_ID, 0), kir_query(a, KQ_NUM_GROUPS, 0));
  kir_append(&k.body, wg);
  kir_append(&wg->loop.body, decl(a, "lid", kir_query(a, KQ_LOCAL_ID, 0)));
  kir_append(&wg->loop.body, barrier(a));
  kir_append(&wg->loop.body, assign(a, kir_index(a, pvar(a, "out"), ivar(a, "lid")), flit(a, 1.0)));
  EXPECT(c->refusal(a, &k) == NULL);
  Buf b;
  buf_init(&b, a);
  c->print_kernel(&k, NULL, &b);
  EXPECT(strstr(b.data, "int dpia_each_lid[dpia_wis];") != NULL);
  EXPECT(strstr(b.data, "int lid = dpia_each_lid[dpia_wi];") != NULL);
  EXPECT(strstr(b.data, "dpia_each_lid[dpia_wi] = lid;") != NULL);
  /* a loop holding a barrier whose bound is a work-item's */
  KirKernel k2 = k;
  k2.body = (KirBlock){0};
  KirStmt *items = loop(a, "i", kir_int(a, 0), kir_query(a, KQ_LOCAL_ID, 0));
  kir_append(&k2.body, items);
  kir_append(&items->loop.body, barrier(a));
  const char *why = c->refusal(a, &k2);
  EXPECT(why && strstr(why, "loop holding a barrier"));
  /* a test of the local id around a barrier */
  KirKernel k3 = k;
  k3.body = (KirBlock){0};
  KirStmt *guard = kir_stmt(a, KS_IF);
  guard->cond.cond = kir_binary(a, KB_LT, kir_query(a, KQ_LOCAL_ID, 0), ivar(a, "N"));
  kir_append(&guard->cond.body, barrier(a));
  kir_append(&k3.body, guard);
  why = c->refusal(a, &k3);
  EXPECT(why && strstr(why, "test holding a barrier"));
  /* OpenCL prints every kernel */
  EXPECT(backend_of(TARGET_OPENCL)->refusal == NULL);
}

/* kir_check_in_place (codegen/in_place.c): out is the buffer of in; true
 * when every read of in is the element the statement writes, or (one
 * group) before a barrier preceding every use of out; else the message
 * (code) holds `want` */
static void expect_in_place(Tester *t, int line, KirKernel *k, bool one_group, DiagCode code, const char *want) {
  Diag d;
  diag_init(&d, t->a);
  bool staged;
  bool ok = kir_check_in_place(t->a, &d, k, "out", "in", one_group, false, (Span){0}, &staged, (Span){0},
                               backend_of(TARGET_OPENCL)->print_expr);
  bool right = want ? !ok && d.first && d.first->code == code && strstr(d.first->message, want)
                    : ok && d.nerrors == 0;
  if (right) {
    t->passed++;
  } else {
    t->failed++;
    fprintf(stderr, "test_kir.c:%d: in place: %s, expected %s\n", line,
            ok ? "accepted" : d.first ? d.first->message : "rejected", want ? want : "accepted");
  }
}
#define IN_PLACE(k, want) expect_in_place(t, __LINE__, (k), false, ERR_UPDATE_NOT_POINTWISE, (want))
#define IN_PLACE_STAGED(k, one_group, code, want) expect_in_place(t, __LINE__, (k), (one_group), (code), (want))

/* the body { s } of a kernel whose out is the buffer of in */
static KirKernel in_place_kernel(KirStmt *s) {
  KirKernel k = {.name = "k", .comment = "k"};
  kir_append(&k.body, s);
  return k;
}

static void test_in_place(Tester *t) {
  Arena *a = t->a;
  const KirExpr *i = ivar(a, "i"), *j = ivar(a, "j");
  const KirExpr *out_i = kir_index(a, pvar(a, "out"), i), *in_i = kir_index(a, pvar(a, "in"), i);
  const KirExpr *in_i1 = kir_index(a, pvar(a, "in"), kir_binary(a, KB_ADD, i, kir_int(a, 1)));
  /* out[i] = 2 * in[i]: the element written, in its own statement */
  KirKernel k = in_place_kernel(assign(a, out_i, kir_binary(a, KB_MUL, flit(a, 2), in_i)));
  IN_PLACE(&k, NULL);
  /* in never read: nothing to prove */
  k = in_place_kernel(assign(a, out_i, flit(a, 1)));
  IN_PLACE(&k, NULL);
  /* the next element: another work-item's */
  k = in_place_kernel(assign(a, out_i, in_i1));
  IN_PLACE(&k, "reads in[i + 1] where it writes out[i] (not the element the statement writes)");
  /* one element written as two sums of the same terms, i + j + 1 and
   * i + 1 + j, as operators and as index polynomials: compared as
   * polynomials, accepted; i + j + 2 is another element */
  const KirExpr *ij1 = kir_binary(a, KB_ADD, kir_binary(a, KB_ADD, i, j), kir_int(a, 1));
  const KirExpr *i1j = kir_binary(a, KB_ADD, kir_binary(a, KB_ADD, i, kir_int(a, 1)), j);
  k = in_place_kernel(assign(a, kir_index(a, pvar(a, "out"), ij1), kir_index(a, pvar(a, "in"), i1j)));
  IN_PLACE(&k, NULL);
  IxCtx ix;
  ix_init(&ix, a);
  const Ix *ixi = ix_var(&ix, "i"), *ixj = ix_var(&ix, "j"), *one = ix_const(&ix, 1);
  const KirExpr *p_ij1 = kir_ix(a, ix_add(&ix, ix_add(&ix, ixi, ixj), one));
  const KirExpr *p_i1j = kir_ix(a, ix_add(&ix, ix_add(&ix, ixi, one), ixj));
  k = in_place_kernel(assign(a, kir_index(a, pvar(a, "out"), p_ij1), kir_index(a, pvar(a, "in"), p_i1j)));
  IN_PLACE(&k, NULL);
  k = in_place_kernel(fdecl(a, "x", -1, kir_index(a, pvar(a, "in"), p_i1j)));
  kir_append(&k.body, assign(a, kir_index(a, pvar(a, "out"), ij1), fvar(a, "x")));
  IN_PLACE(&k, NULL);
  const KirExpr *ij2 = kir_binary(a, KB_ADD, kir_binary(a, KB_ADD, i, j), kir_int(a, 2));
  k = in_place_kernel(assign(a, kir_index(a, pvar(a, "out"), ij1), kir_index(a, pvar(a, "in"), ij2)));
  IN_PLACE(&k, "reads in[i + j + 2] where it writes out[i + j + 1] (not the element the statement writes)");
  /* a quotient is no polynomial: only the same tree matches */
  const KirExpr *half = kir_binary(a, KB_DIV, i, kir_int(a, 2));
  k = in_place_kernel(assign(a, kir_index(a, pvar(a, "out"), kir_binary(a, KB_ADD, half, j)),
                             kir_index(a, pvar(a, "in"), kir_binary(a, KB_ADD, j, half))));
  IN_PLACE(&k, "not the element the statement writes");
  /* read into a private variable before the store of the same element,
   * later in the block: the work-item that writes in[i] reads it first */
  k = in_place_kernel(fdecl(a, "x", -1, in_i));
  kir_append(&k.body, assign(a, fvar(a, "y"), flit(a, 1)));
  kir_append(&k.body, assign(a, out_i, fvar(a, "x")));
  IN_PLACE(&k, NULL);
  /* the same into a private array's element (an array literal) */
  k = in_place_kernel(fdecl(a, "x", -1, flit(a, 0)));
  kir_append(&k.body, assign(a, kir_index(a, pvar(a, "priv"), kir_int(a, 0)), in_i));
  kir_append(&k.body, assign(a, out_i, fvar(a, "x")));
  IN_PLACE(&k, NULL);
  /* the next element read before the store of this one */
  k = in_place_kernel(fdecl(a, "x", -1, in_i1));
  kir_append(&k.body, assign(a, out_i, fvar(a, "x")));
  IN_PLACE(&k, "reads in[i + 1] (no later store of its block writes that element)");
  /* i changed between the read and the store: another element */
  k = in_place_kernel(fdecl(a, "x", -1, in_i));
  kir_append(&k.body, assign(a, i, kir_binary(a, KB_ADD, i, kir_int(a, 1))));
  kir_append(&k.body, assign(a, out_i, fvar(a, "x")));
  IN_PLACE(&k, "reads in[i] (no later store of its block writes that element)");
  /* the store under a condition: the work-item may not write in[i], and
   * then another may */
  k = in_place_kernel(fdecl(a, "x", -1, in_i));
  KirStmt *maybe = kir_stmt(a, KS_IF);
  maybe->cond.cond = kir_binary(a, KB_GT, fvar(a, "x"), flit(a, 0));
  kir_append(&maybe->cond.body, assign(a, out_i, fvar(a, "x")));
  kir_append(&k.body, maybe);
  IN_PLACE(&k, "reads in[i] (no later store of its block writes that element)");
  /* the store before the read: the read sees the new value */
  k = in_place_kernel(assign(a, out_i, flit(a, 1)));
  kir_append(&k.body, fdecl(a, "x", -1, in_i));
  IN_PLACE(&k, "reads in[i] (no later store of its block writes that element)");
  /* the output read back */
  k = in_place_kernel(assign(a, out_i, kir_binary(a, KB_ADD, out_i, in_i)));
  IN_PLACE(&k, "the output is read");
  /* a store a sequential loop repeats: its second step reads what the
   * first wrote */
  KirStmt *l = loop(a, "j", kir_int(a, 0), kir_int(a, 1));
  kir_append(&l->loop.body, assign(a, out_i, kir_binary(a, KB_MUL, flit(a, 2), in_i)));
  k = in_place_kernel(l);
  IN_PLACE(&k, "a store the loop around it repeats");
  /* the same store indexed by the loop: once per element */
  const KirExpr *out_j = kir_index(a, pvar(a, "out"), j), *in_j = kir_index(a, pvar(a, "in"), j);
  l = loop(a, "j", kir_int(a, 0), kir_int(a, 1));
  kir_append(&l->loop.body, assign(a, out_j, kir_binary(a, KB_MUL, flit(a, 2), in_j)));
  k = in_place_kernel(l);
  IN_PLACE(&k, NULL);
  /* vectors: the vector stored, at the same offset and width */
  const KirType *f4 = kir_scalar_type(a, SC_FLOAT, 4);
  KirStmt *vs = kir_stmt(a, KS_VSTORE);
  vs->vstore.width = 4;
  vs->vstore.offset = i;
  vs->vstore.ptr = pvar(a, "out");
  vs->vstore.value = kir_binary(a, KB_MUL, kir_vload(a, 4, i, pvar(a, "in")), kir_vector(a, f4, 1, &(const KirExpr *){flit(a, 2)}));
  k = in_place_kernel(vs);
  IN_PLACE(&k, NULL);
  KirStmt *vs2 = kir_stmt(a, KS_VSTORE);
  *vs2 = *vs;
  vs2->next = NULL;
  vs2->vstore.value = kir_vload(a, 4, kir_binary(a, KB_ADD, i, kir_int(a, 1)), pvar(a, "in"));
  k = in_place_kernel(vs2);
  IN_PLACE(&k, "not the vector the statement writes");
  /* a vector read into a private variable before the vstore of it */
  KirStmt *vdecl = fdecl(a, "v", -1, kir_vload(a, 4, i, pvar(a, "in")));
  KirStmt *vs3 = kir_stmt(a, KS_VSTORE);
  *vs3 = *vs;
  vs3->next = NULL;
  vs3->vstore.value = kir_var(a, "v", f4);
  k = in_place_kernel(vdecl);
  kir_append(&k.body, vs3);
  IN_PLACE(&k, NULL);
  /* a condition reading in */
  KirStmt *c = kir_stmt(a, KS_IF);
  c->cond.cond = kir_binary(a, KB_GT, in_i, flit(a, 0));
  kir_append(&c->cond.body, assign(a, out_i, in_i));
  k = in_place_kernel(c);
  IN_PLACE(&k, "reads in[i] (in a condition)");
  /* staged through the group (docs/language.md section 31): in[i + 1]
   * read into x, a barrier, out[i] written; one group: accepted, the
   * barrier made to fence global memory */
  k = in_place_kernel(fdecl(a, "x", -1, in_i1));
  KirStmt *sep = barrier(a);
  sep->barrier.global = false;
  kir_append(&k.body, sep);
  kir_append(&k.body, assign(a, out_i, fvar(a, "x")));
  IN_PLACE_STAGED(&k, true, ERR_UPDATE_NOT_POINTWISE, NULL);
  EXPECT(sep->barrier.global);
  /* the same launched as several groups: another group may write in[i + 1] */
  k = in_place_kernel(fdecl(a, "x", -1, in_i1));
  kir_append(&k.body, barrier(a));
  kir_append(&k.body, assign(a, out_i, fvar(a, "x")));
  IN_PLACE_STAGED(&k, false, ERR_UPDATE_ACROSS_GROUPS, "reads in[i + 1] before the barrier of its work-group");
  /* no barrier between the read and the write: the first rule's refusal */
  k = in_place_kernel(fdecl(a, "x", -1, in_i1));
  kir_append(&k.body, assign(a, out_i, fvar(a, "x")));
  IN_PLACE_STAGED(&k, true, ERR_UPDATE_NOT_POINTWISE, "reads in[i + 1] (no later store of its block writes that element)");
  /* a read after the barrier that is not the element written: refused */
  k = in_place_kernel(fdecl(a, "x", -1, in_i));
  kir_append(&k.body, barrier(a));
  kir_append(&k.body, assign(a, out_i, kir_binary(a, KB_ADD, fvar(a, "x"), in_i1)));
  IN_PLACE_STAGED(&k, true, ERR_UPDATE_NOT_POINTWISE, "reads in[i + 1] where it writes out[i]");
  /* inside a loop over work-groups that only group 0 enters, once (a
   * mapWorkgroup over one element under a user's local size): one group,
   * whatever the launch; with a bound of 2, two groups' work */
  for (int64_t groups = 1; groups <= 2; groups++) {
    KirStmt *wgs = loop(a, "wg", kir_query(a, KQ_GROUP_ID, 0), kir_query(a, KQ_NUM_GROUPS, 0));
    wgs->loop.bound = kir_int(a, groups);
    kir_append(&wgs->loop.body, fdecl(a, "x", -1, in_i1));
    KirStmt *inner = barrier(a);
    kir_append(&wgs->loop.body, inner);
    kir_append(&wgs->loop.body, assign(a, out_i, fvar(a, "x")));
    k = in_place_kernel(wgs);
    if (groups == 1) {
      IN_PLACE_STAGED(&k, false, ERR_UPDATE_NOT_POINTWISE, NULL);
      EXPECT(inner->barrier.global);
    } else {
      IN_PLACE_STAGED(&k, false, ERR_UPDATE_NOT_POINTWISE, "reads in[i + 1] (no later store of its block writes that element)");
    }
  }
  /* the output written before the barrier: no prefix free of it */
  k = in_place_kernel(assign(a, out_i, flit(a, 0)));
  kir_append(&k.body, fdecl(a, "x", -1, in_i1));
  kir_append(&k.body, barrier(a));
  kir_append(&k.body, assign(a, out_i, fvar(a, "x")));
  IN_PLACE_STAGED(&k, true, ERR_UPDATE_NOT_POINTWISE, "reads in[i + 1] (no later store of its block writes that element)");
}

/* ---- the partition pass (partition.c) shares what it does not decide ---- */

/* the bytes kir_partition_loops allocates for out[0] = a sum of n reads
 * of in, which the kernel's one fact (N >= 1) decides nothing in; the
 * sum is left the very node it was */
static size_t partition_bytes(Tester *t, int n) {
  Arena *a = t->a;
  KirParam ps[3] = {{0, float_type(a), "out", false, false, false},
                    {0, float_type(a), "in", false, false, false},
                    {0, kir_scalar1(SC_INT), "N", false, false, false}};
  const KirExpr *sum = elem(a, "in", 0);
  for (int i = 1; i < n; i++) sum = kir_binary(a, KB_ADD, sum, kir_binary(a, KB_MUL, elem(a, "in", i), flit(a, 2)));
  KirKernel k = {.name = "k", .comment = "k", .nparams = 3, .params = ps};
  kir_append(&k.body, assign(a, elem(a, "out", 0), sum));
  const Ix *lhs = ix_var(&t->ix, "N"), *rhs = ix_const(&t->ix, 1);
  KirIdBounds ids = {.ix = &t->ix, .nleast = 1, .least_lhs = &lhs, .least_rhs = &rhs};
  size_t before = a->total;
  kir_partition_loops(a, backend_of(TARGET_OPENCL), &k, &ids, true);
  EXPECT(k.body.first && k.body.first->kind == KS_ASSIGN && k.body.first->assign.rhs == sum);
  return a->total - before;
}

/* what partition does not change it neither copies nor allocates for: a
 * kernel's expressions cost it nothing per node where nothing is decided
 * (no array of children per node: issue 35) */
static void test_partition_shares(Tester *t) { EXPECT(partition_bytes(t, 2) == partition_bytes(t, 64)); }

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "kir");
  Tester tester = {.a = &env.arena};
  Tester *t = &tester;
  ix_init(&t->ix, &env.arena);
  t->ix.print_expr = backend_of(TARGET_OPENCL)->print_expr;
  test_printing(t);
  test_types(t);
  test_literals(t);
  test_index_atoms(t);
  test_equality(t);
  test_invariants(t);
  test_expression_types(t);
  test_mistyped(t);
  test_leaf_types(t);
  test_dead_bindings(t);
  test_names_read(t);
  test_ix_exprs_flag(t);
  test_guard_sink(t);
  test_c_target(t);
  test_in_place(t);
  test_partition_shares(t);
  test_partition_work(t);
  test_printed_indices(t);
  printf("kir: %d passed, %d failed\n", t->passed, t->failed);
  arena_free(&env.arena);
  return t->failed ? 1 : 0;
}
