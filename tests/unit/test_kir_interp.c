/* test_kir_interp.c: the kernel IR interpreter and its race detector
 * (verify/kir_interp.h) on kernels built by hand: values computed as C
 * and OpenCL C compute them (int division and wrap-around, vectors,
 * structs, select, vload/vstore, built-ins), and each kind of finding: a
 * read-write and a write-write race in local memory, a barrier fencing the
 * other memory only, a barrier missing at a loop's back edge, two groups
 * writing one global word, barrier divergence, an access out of bounds;
 * and what it does not check: a foreign function, a launch over the
 * limits.  Each racy kernel is also run with the barrier that makes it
 * correct, which must pass: a finding comes from the missing barrier, not
 * from the detector.
 *
 * Prints `kir_interp: P passed, F failed` and exits non-zero if anything
 * failed. */
#include "kir_interp.h"
#include "unit_env.h"

#include <math.h>
#include <string.h>

typedef struct Tester {
  Arena *a;
  int passed, failed;
} Tester;

static void expect(Tester *t, int line, bool ok, const char *what) {
  if (ok) {
    t->passed++;
  } else {
    t->failed++;
    fprintf(stderr, "test_kir_interp.c:%d: FAILED: %s\n", line, what);
  }
}
#define EXPECT(cond) expect(t, __LINE__, (cond), #cond)

/* ---- building kernels ---- */

static const KirType *flt(Tester *t) { return kir_scalar_type(t->a, SC_FLOAT, 1); }

/* the variables of the kernels below, with their types: a buffer's is a
 * pointer to its elements */
static const KirExpr *V(Tester *t, const char *name) {
  Arena *a = t->a;
  const KirType *f = kir_scalar_type(a, SC_FLOAT, 1), *f2 = kir_scalar_type(a, SC_FLOAT, 2);
  static const struct {
    const char *name;
    int kind; /* 0 int, 1 float2, 2 pair_float_int, 3 pointer to float, 4 pointer to float2 */
    KirSpace space;
  } vars[] = {{"i", 0, KSP_PRIVATE},  {"v", 1, KSP_PRIVATE},   {"p", 2, KSP_PRIVATE}, {"q", 2, KSP_PRIVATE},
              {"out", 3, KSP_GLOBAL}, {"acc", 3, KSP_PRIVATE}, {"loc", 3, KSP_LOCAL}, {"vl", 4, KSP_LOCAL}};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    if (strcmp(vars[i].name, name) != 0) continue;
    const KirType *types[] = {kir_scalar1(SC_INT), f2, kir_struct_type(a, "pair_float_int"),
                              kir_pointer_type(a, f, vars[i].space, false),
                              kir_pointer_type(a, f2, vars[i].space, false)};
    return kir_var(a, name, types[vars[i].kind]);
  }
  INTERNAL("no variable %s in these tests", name);
}
static const KirExpr *I(Tester *t, int64_t v) { return kir_int(t->a, v); }
static const KirExpr *F(Tester *t, double v) { return kir_lit(t->a, (KirLit){SC_FLOAT, 0, v}); }
static const KirExpr *B(Tester *t, KirBinop op, const KirExpr *l, const KirExpr *r) {
  return kir_binary(t->a, op, l, r);
}
static const KirExpr *AT(Tester *t, const char *base, const KirExpr *at) { return kir_index(t->a, V(t, base), at); }
static const KirExpr *LID(Tester *t) { return kir_query(t->a, KQ_LOCAL_ID, 0); }
static const KirExpr *GID(Tester *t) { return kir_query(t->a, KQ_GLOBAL_ID, 0); }

static KirStmt *add(Tester *t, KirBlock *b, KirStmtKind kind) {
  KirStmt *s = kir_stmt(t->a, kind);
  kir_append(b, s);
  return s;
}
static void assign(Tester *t, KirBlock *b, const KirExpr *lhs, const KirExpr *rhs) {
  KirStmt *s = add(t, b, KS_ASSIGN);
  s->assign.lhs = lhs;
  s->assign.rhs = rhs;
}
static void barrier(Tester *t, KirBlock *b, bool local, bool global) {
  KirStmt *s = add(t, b, KS_BARRIER);
  s->barrier.local = local;
  s->barrier.global = global;
}
static void decl(Tester *t, KirBlock *b, KirSpace space, const KirType *type, const char *name, int64_t len,
                 const KirExpr *init) {
  KirStmt *s = add(t, b, KS_DECL);
  s->decl.space = space;
  s->decl.type = type;
  s->decl.name = name;
  s->decl.array_len = len;
  s->decl.init = init;
}
static KirBlock *loop(Tester *t, KirBlock *b, const char *var, const KirExpr *bound) {
  KirStmt *s = add(t, b, KS_FOR);
  s->loop.var = var;
  s->loop.init = I(t, 0);
  s->loop.bound = bound;
  s->loop.step = I(t, 1);
  return &s->loop.body;
}
static KirBlock *when(Tester *t, KirBlock *b, const KirExpr *cond) {
  KirStmt *s = add(t, b, KS_IF);
  s->cond.cond = cond;
  return &s->cond.body;
}

/* kernel k(global float *out, int n) { local float loc[8]; ... } */
static KirKernel *kernel(Tester *t) {
  KirKernel *k = NEW(t->a, KirKernel);
  k->name = "k";
  k->comment = "a kernel built by hand";
  k->nparams = 2;
  k->params = NEWARRAY(t->a, KirParam, 2);
  k->params[0] = (KirParam){KP_OUTPUT, flt(t), "out", true, false, false};
  k->params[1] = (KirParam){KP_NAT, kir_scalar_type(t->a, SC_INT, 1), "n", false, false, false};
  decl(t, &k->locals, KSP_LOCAL, flt(t), "loc", 8, NULL);
  return k;
}

typedef struct Result {
  KiStatus st;
  char msg[2048];
  float out[64];
} Result;

/* run k over global / local (one dimension) with out of n floats */
static Result run_n(Tester *t, const KirKernel *k, int64_t global, int64_t local, int n, int64_t max_steps) {
  Result r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < n; i++) r.out[i] = NAN;
  KiArg args[2] = {{.bytes = (unsigned char *)r.out, .size = (int64_t)sizeof(float) * n}, {.nat = n}};
  KiLimits lim = {max_steps, 1 << 16, 1024, 1 << 24};
  KiRun run = {.limits = &lim, .backend = backend_of(TARGET_OPENCL), .lines = true};
  KiLaunch launch = {1, {global, 1, 1}, {local, 1, 1}};
  Buf msg;
  buf_init(&msg, t->a);
  r.st = ki_run(t->a, k, &launch, args, &run, &msg);
  snprintf(r.msg, sizeof r.msg, "%s", msg.data ? msg.data : "");
  return r;
}
static Result run(Tester *t, const KirKernel *k, int64_t global, int64_t local) {
  return run_n(t, k, global, local, (int)global, 1000000);
}

static bool has(const Result *r, const char *text) { return strstr(r->msg, text) != NULL; }

static void show(const Result *r) {
  if (r->msg[0]) fprintf(stderr, "  (message: %s)\n", r->msg);
}

/* ---- values ---- */

static void test_values(Tester *t) {
  Arena *a = t->a;
  KirKernel *k = kernel(t);
  /* pair_float_int, as code generation declares it */
  k->ntops = 1;
  k->tops = NEWARRAY(a, KirTop, 1);
  k->tops[0].kind = KT_STRUCT;
  k->tops[0].name = "pair_float_int";
  k->tops[0].st = (KirStruct){"pair_float_int", {{flt(t), "fst", -1}, {kir_scalar_type(a, SC_INT, 1), "snd", -1}}};
  KirBlock *b = &k->body;
  /* int division truncates, ints wrap at 32 bits */
  assign(t, b, AT(t, "out", I(t, 0)), B(t, KB_DIV, kir_unary(a, '-', I(t, 7)), I(t, 2)));
  assign(t, b, AT(t, "out", I(t, 1)), B(t, KB_ADD, I(t, 2147483647), I(t, 1)));
  /* a lane of a vector expression */
  const KirType *f4 = kir_scalar_type(a, SC_FLOAT, 4);
  const KirExpr *lanes[4] = {F(t, 1), F(t, 2), F(t, 3), F(t, 4)};
  assign(t, b, AT(t, "out", I(t, 2)), kir_lane(a, B(t, KB_MUL, kir_vector(a, f4, 4, lanes), F(t, 2)), 3, 4));
  /* clamp of ints, a remainder */
  assign(t, b, AT(t, "out", I(t, 3)), kir_builtin(a, KBI_CLAMP, kir_scalar_type(a, SC_INT, 1), (const KirExpr *[]){I(t, 5), I(t, 0), I(t, 3)}));
  assign(t, b, AT(t, "out", I(t, 4)), B(t, KB_MOD, I(t, 7), I(t, 3)));
  /* a choice of vectors by a mask: lane by lane, by the sign bit */
  const KirType *i2 = kir_scalar_type(a, SC_INT, 2), *f2 = kir_scalar_type(a, SC_FLOAT, 2);
  const KirExpr *mask = kir_vector(a, i2, 2, (const KirExpr *[]){I(t, -1), I(t, 0)});
  const KirExpr *sel = kir_cond(a, mask, kir_vector(a, f2, 2, (const KirExpr *[]){F(t, 1), F(t, 2)}),
                                kir_vector(a, f2, 2, (const KirExpr *[]){F(t, 3), F(t, 4)}));
  decl(t, b, KSP_PRIVATE, f2, "v", -1, sel);
  assign(t, b, AT(t, "out", I(t, 5)), kir_lane(a, V(t, "v"), 0, 2));
  assign(t, b, AT(t, "out", I(t, 6)), kir_lane(a, V(t, "v"), 1, 2));
  /* a struct's fields */
  decl(t, b, KSP_PRIVATE, kir_struct_type(a, "pair_float_int"), "p", -1, NULL);
  assign(t, b, kir_member(a, V(t, "p"), "fst", flt(t)), F(t, 1.5));
  assign(t, b, kir_member(a, V(t, "p"), "snd", kir_scalar1(SC_INT)), I(t, 2));
  decl(t, b, KSP_PRIVATE, kir_struct_type(a, "pair_float_int"), "q", -1, V(t, "p"));
  assign(t, b, AT(t, "out", I(t, 7)),
         B(t, KB_ADD, kir_member(a, V(t, "q"), "fst", flt(t)), kir_member(a, V(t, "q"), "snd", kir_scalar1(SC_INT))));
  /* vstore2 at offset 4 (in vectors), vload2 back */
  KirStmt *st = add(t, b, KS_VSTORE);
  st->vstore.width = 2;
  st->vstore.value = kir_vector(a, f2, 2, (const KirExpr *[]){F(t, 9), F(t, 10)});
  st->vstore.offset = I(t, 4);
  st->vstore.ptr = V(t, "out");
  assign(t, b, AT(t, "out", I(t, 10)), kir_lane(a, kir_vload(a, 2, I(t, 4), V(t, "out")), 1, 2));
  /* a lane chosen at run time, through the vector's address */
  const KirType *fp = kir_pointer_type(a, flt(t), KSP_PRIVATE, false);
  assign(t, b, AT(t, "out", I(t, 11)), kir_index(a, kir_cast(a, fp, kir_unary(a, '&', V(t, "v"))), I(t, 1)));
  /* a conversion truncates, a comparison is 1 */
  assign(t, b, AT(t, "out", I(t, 12)), kir_cast(a, kir_scalar_type(a, SC_INT, 1), F(t, -2.75)));
  assign(t, b, AT(t, "out", I(t, 13)), B(t, KB_LT, I(t, 1), I(t, 2)));
  Result r = run_n(t, k, 1, 1, 16, 100000);
  EXPECT(r.st == KI_OK);
  show(&r);
  EXPECT(r.out[0] == -3);
  EXPECT(r.out[1] == -2147483648.0f);
  EXPECT(r.out[2] == 8);
  EXPECT(r.out[3] == 3);
  EXPECT(r.out[4] == 1);
  EXPECT(r.out[5] == 1);
  EXPECT(r.out[6] == 4);
  EXPECT(r.out[7] == 3.5f);
  EXPECT(r.out[8] == 9 && r.out[9] == 10);
  EXPECT(r.out[10] == 10);
  EXPECT(r.out[11] == 4);
  EXPECT(r.out[12] == -2);
  EXPECT(r.out[13] == 1);
  EXPECT(isnan(r.out[14])); /* nothing wrote it: still the poison */
}

/* ---- races ---- */

/* loc[lid] = lid; [barrier]; out[gid] = loc[(lid + 1) % L] */
static KirKernel *neighbour(Tester *t, bool with_barrier, bool local_fence) {
  KirKernel *k = kernel(t);
  KirBlock *b = &k->body;
  assign(t, b, AT(t, "loc", LID(t)), LID(t));
  if (with_barrier) barrier(t, b, local_fence, !local_fence);
  assign(t, b, AT(t, "out", GID(t)),
         AT(t, "loc", B(t, KB_MOD, B(t, KB_ADD, LID(t), I(t, 1)), kir_query(t->a, KQ_LOCAL_SIZE, 0))));
  return k;
}

static void test_local_races(Tester *t) {
  Result r = run(t, neighbour(t, true, true), 8, 4);
  EXPECT(r.st == KI_OK);
  show(&r);
  bool values = true;
  for (int g = 0; g < 8; g++) values = values && r.out[g] == (float)((g % 4 + 1) % 4);
  EXPECT(values);
  /* no barrier: work-item 0 reads loc[1] before work-item 1 writes it */
  r = run(t, neighbour(t, false, true), 8, 4);
  EXPECT(r.st == KI_RACE);
  EXPECT(has(&r, "race on 'loc' (local memory) element 1"));
  EXPECT(has(&r, "work-item 1 (local id 1 of group 0) writes it (line "));
  EXPECT(has(&r, "after work-item 0 (local id 0 of group 0) read it"));
  EXPECT(has(&r, "`out[get_global_id(0)] = loc[(get_local_id(0) + 1) % get_local_size(0)];`"));
  /* a barrier fencing global memory only does not order local memory */
  r = run(t, neighbour(t, true, false), 8, 4);
  EXPECT(r.st == KI_RACE);
  EXPECT(has(&r, "no barrier fencing local memory"));
  /* every work-item writes the same value to one word: a race too */
  KirKernel *k = kernel(t);
  assign(t, &k->body, AT(t, "loc", I(t, 0)), F(t, 1));
  barrier(t, &k->body, true, false);
  assign(t, &k->body, AT(t, "out", GID(t)), AT(t, "loc", I(t, 0)));
  r = run(t, k, 4, 4);
  EXPECT(r.st == KI_RACE);
  EXPECT(has(&r, "work-item 1 (local id 1 of group 0) writes it") &&
         has(&r, "after work-item 0 (local id 0 of group 0) wrote it"));
  /* one writer: no race */
  k = kernel(t);
  KirBlock *one = when(t, &k->body, B(t, KB_EQ, LID(t), I(t, 0)));
  assign(t, one, AT(t, "loc", I(t, 0)), F(t, 1));
  barrier(t, &k->body, true, false);
  assign(t, &k->body, AT(t, "out", GID(t)), AT(t, "loc", I(t, 0)));
  r = run(t, k, 4, 4);
  EXPECT(r.st == KI_OK);
  show(&r);
}

/* for (i < 2) { loc[lid] = i; barrier; out[i*G + gid] = loc[(lid+1)%L]; [barrier] } */
static KirKernel *looped(Tester *t, bool back_edge) {
  KirKernel *k = kernel(t);
  KirBlock *body = loop(t, &k->body, "i", I(t, 2));
  assign(t, body, AT(t, "loc", LID(t)), V(t, "i"));
  barrier(t, body, true, false);
  assign(t, body, AT(t, "out", B(t, KB_ADD, B(t, KB_MUL, V(t, "i"), kir_query(t->a, KQ_GLOBAL_SIZE, 0)), GID(t))),
         AT(t, "loc", B(t, KB_MOD, B(t, KB_ADD, LID(t), I(t, 1)), kir_query(t->a, KQ_LOCAL_SIZE, 0))));
  if (back_edge) barrier(t, body, true, false);
  return k;
}

static void test_loops(Tester *t) {
  Result r = run_n(t, looped(t, true), 4, 2, 8, 100000);
  EXPECT(r.st == KI_OK);
  show(&r);
  EXPECT(r.out[0] == 0 && r.out[7] == 1);
  /* no barrier at the back edge: iteration 1 writes what iteration 0 of
   * another work-item still reads */
  r = run_n(t, looped(t, false), 4, 2, 8, 100000);
  EXPECT(r.st == KI_RACE);
  EXPECT(has(&r, "race on 'loc' (local memory)"));
}

static void test_global(Tester *t) {
  /* every group's first work-item writes out[0]: groups are not ordered */
  KirKernel *k = kernel(t);
  KirBlock *first = when(t, &k->body, B(t, KB_EQ, LID(t), I(t, 0)));
  assign(t, first, AT(t, "out", I(t, 0)), kir_query(t->a, KQ_GROUP_ID, 0));
  Result r = run(t, k, 4, 2);
  EXPECT(r.st == KI_RACE);
  EXPECT(has(&r, "race on 'out' (global buffer) element 0: work-item 2 (local id 0 of group 1) writes it"));
  EXPECT(has(&r, "in another work-group"));
  /* inside a group, a barrier fencing local memory does not order global
   * memory; one fencing global memory does */
  for (int fence = 0; fence < 2; fence++) {
    k = kernel(t);
    first = when(t, &k->body, B(t, KB_EQ, LID(t), I(t, 0)));
    assign(t, first, AT(t, "out", I(t, 1)), F(t, 5));
    barrier(t, &k->body, !fence, fence);
    KirBlock *second = when(t, &k->body, B(t, KB_EQ, LID(t), I(t, 1)));
    assign(t, second, AT(t, "out", I(t, 0)), AT(t, "out", I(t, 1)));
    r = run(t, k, 2, 2);
    EXPECT(r.st == (fence ? KI_OK : KI_RACE));
    if (!fence) EXPECT(has(&r, "no barrier fencing global memory"));
    if (fence) EXPECT(r.out[0] == 5);
  }
}

/* A store to one lane of a vector in local or global memory reads and
 * writes the whole vector (clang's load, insert, store); a store of the
 * scalar through the buffer as scalars touches the lane alone. */
static void test_lane_stores(Tester *t) {
  for (int through_scalars = 0; through_scalars < 2; through_scalars++) {
    KirKernel *k = kernel(t);
    const KirType *f2 = kir_scalar_type(t->a, SC_FLOAT, 2);
    decl(t, &k->locals, KSP_LOCAL, f2, "vl", 1, NULL);
    for (int lane = 0; lane < 2; lane++) {
      KirBlock *b = when(t, &k->body, B(t, KB_EQ, LID(t), I(t, lane)));
      const KirExpr *lhs =
          through_scalars
              ? kir_index(t->a, kir_cast(t->a, kir_pointer_type(t->a, flt(t), KSP_LOCAL, false), V(t, "vl")), I(t, lane))
              : kir_lane(t->a, AT(t, "vl", I(t, 0)), lane, 2);
      assign(t, b, lhs, F(t, lane + 1));
    }
    Result r = run(t, k, 2, 2);
    KiStatus want = through_scalars ? KI_OK : KI_RACE;
    EXPECT(r.st == want);
    if (!through_scalars) EXPECT(has(&r, "race on 'vl' (local memory)"));
    if (r.st != want) show(&r);
  }
}

static void test_divergence_and_bounds(Tester *t) {
  KirKernel *k = kernel(t);
  KirBlock *some = when(t, &k->body, B(t, KB_LT, LID(t), I(t, 1)));
  barrier(t, some, true, false);
  Result r = run(t, k, 2, 2);
  EXPECT(r.st == KI_DIVERGENCE);
  EXPECT(has(&r, "barrier divergence"));
  /* the same barrier, reached a different number of times */
  k = kernel(t);
  KirBlock *body = loop(t, &k->body, "i", B(t, KB_ADD, LID(t), I(t, 1)));
  barrier(t, body, true, false);
  r = run(t, k, 2, 2);
  EXPECT(r.st == KI_DIVERGENCE);
  EXPECT(has(&r, "never reaches: it ended"));
  /* out[gid + 1] past the end of out */
  k = kernel(t);
  assign(t, &k->body, AT(t, "out", B(t, KB_ADD, GID(t), I(t, 1))), F(t, 1));
  r = run(t, k, 4, 2);
  EXPECT(r.st == KI_BOUNDS);
  EXPECT(
      has(&r, "work-item 3 (local id 1 of group 1) writes 'out' (global buffer) at element 4, outside its 4 elements"));
  /* a private array too */
  k = kernel(t);
  decl(t, &k->body, KSP_PRIVATE, flt(t), "acc", 2, NULL);
  assign(t, &k->body, AT(t, "acc", I(t, 2)), F(t, 1));
  r = run(t, k, 1, 1);
  EXPECT(r.st == KI_BOUNDS);
  EXPECT(has(&r, "'acc' (private memory) at element 2, outside its 2 elements"));
}

static void test_not_checked(Tester *t) {
  /* a foreign function */
  KirKernel *k = kernel(t);
  DefInfo *f = NEW(t->a, DefInfo);
  f->name = "f";
  k->nforeigns = 1;
  k->foreigns = (const DefInfo *const *)NEWARRAY(t->a, DefInfo *, 1);
  ((const DefInfo **)k->foreigns)[0] = f;
  assign(t, &k->body, AT(t, "out", GID(t)), kir_call(t->a, "f", flt(t), 1, (const KirExpr *[]){F(t, 1)}));
  Result r = run(t, k, 1, 1);
  EXPECT(r.st == KI_NOT_CHECKED);
  EXPECT(has(&r, "foreign function 'f'"));
  /* over the step limit */
  k = kernel(t);
  KirBlock *body = loop(t, &k->body, "i", I(t, 100000));
  assign(t, body, AT(t, "out", I(t, 0)), V(t, "i"));
  r = run_n(t, k, 1, 1, 1, 1000);
  EXPECT(r.st == KI_NOT_CHECKED);
  EXPECT(has(&r, "more than the 1000 interpreter steps"));
  /* a group larger than the limit */
  r = run_n(t, kernel(t), 2048, 2048, 1, 1000);
  EXPECT(r.st == KI_NOT_CHECKED);
}

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_kir_interp");
  Tester ts = {.a = &env.arena}, *t = &ts;
  test_values(t);
  test_local_races(t);
  test_loops(t);
  test_global(t);
  test_lane_stores(t);
  test_divergence_and_bounds(t);
  test_not_checked(t);
  printf("kir_interp: %d passed, %d failed\n", t->passed, t->failed);
  return t->failed ? 1 : 0;
}
