/* interp_test.c: tests of the reference interpreter (verify/interp.c), the
 * host/device layouts (verify/layout.c), the comparison and the PRNG
 * (verify/compare.c).
 *
 *   interp_test units          hand-written kernels; expected results computed
 *                              by hand in this file
 *   interp_test errors         bad nat values and inputs give messages
 *   interp_test samples DIR    the required samples (spec section 10) on
 *                              random inputs against direct C computations
 *   interp_test layout         host and device layouts, pack and unpack
 *   interp_test compare        the comparison helper and the PRNG
 *   interp_test precision      inputs, float literals and conversions are
 *                              what the device holds; interp_bound
 *
 * Programs go through parse_program, check_program, normalize_def and
 * strategy_check_kernel exactly as app/driver.c runs them.  Each mode
 * prints one line per failure and a summary; exit status 1 on failure. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "verify/compare.h"
#include "verify/interp.h"
#include "verify/layout.h"

typedef struct Tester {
  int checks, failures;
} Tester;

static void check(Tester *t, bool ok, const char *what, const char *detail) {
  t->checks++;
  if (ok) return;
  t->failures++;
  printf("FAIL %s\n", what);
  if (detail && *detail) printf("     %s\n", detail);
}

/* ---- compiling a program as the driver does ---- */

typedef struct Compiled {
  Arena *arena;
  Interner in;
  Diag diag;
  TypeCtx tc;
  Source src;
  CheckedProgram *checked;
  Phrase **normal;
} Compiled;

/* false (after printing the diagnostics) if the program has errors */
static bool compile(Compiled *c, Arena *a, const char *name, const char *text) {
  memset(c, 0, sizeof *c);
  c->arena = a;
  intern_init(&c->in, a);
  diag_init(&c->diag, a);
  type_ctx_init(&c->tc, a);
  size_t len = strlen(text);
  source_init(&c->src, a, name, arena_dup(a, text, len + 1), len);
  Program *p = parse_program(a, &c->in, &c->diag, &c->src);
  if (c->diag.nerrors == 0) c->checked = check_program(a, &c->in, &c->diag, &c->tc, p);
  if (c->diag.nerrors == 0) {
    c->normal = NEWARRAY(a, Phrase *, c->checked->ndefs);
    for (int i = 0; i < c->checked->ndefs; i++) {
      DefInfo *def = c->checked->defs[i];
      if (!def->is_kernel || !def->ok) continue;
      c->normal[i] = normalize_def(a, &c->tc, &c->diag, def);
      if (c->normal[i]) def->ok = strategy_check_kernel(a, &c->diag, def, c->normal[i]);
    }
  }
  if (c->diag.nerrors == 0) return true;
  Buf out;
  buf_init(&out, a);
  diag_render_text(&c->diag, &out);
  printf("%s", out.data);
  return false;
}

static const DefInfo *find_kernel(Compiled *c, const char *name, const Phrase **body) {
  for (int i = 0; i < c->checked->ndefs; i++) {
    DefInfo *def = c->checked->defs[i];
    if (def->is_kernel && strcmp(def->name, name) == 0) {
      *body = c->normal[i];
      return def;
    }
  }
  return NULL;
}

/* ---- hand-written kernels ---- */

typedef struct Vals {
  const double *v;
  size_t n;
} Vals;
#define V(...) ((Vals){(const double[]){__VA_ARGS__}, sizeof((const double[]){__VA_ARGS__}) / sizeof(double)})
#define NATS(...) ((const char *const[]){__VA_ARGS__})
#define NATV(...) ((const int64_t[]){__VA_ARGS__})

static const char *fmt_vals(Arena *a, const double *v, size_t n) {
  Buf b;
  buf_init(&b, a);
  buf_putc(&b, '[');
  for (size_t i = 0; i < n; i++) emit(&b, "%s%.17g", i ? ", " : "", v[i]);
  buf_putc(&b, ']');
  return b.data;
}

/* Run kernel `name` of src with one nat parameter list and inputs; expect
 * exactly `expected` (hand-computed values are exact in double). */
static void run_case(Tester *t, DpiaMem *mem, const char *what, const char *src, const char *name, NatValues nats,
                     int ninputs, const Vals *inputs, Vals expected) {
  Arena a;
  arena_init(&a, mem);
  Compiled c;
  if (!compile(&c, &a, what, src)) {
    check(t, false, what, "the program does not compile");
    arena_free(&a);
    return;
  }
  const Phrase *body = NULL;
  const DefInfo *def = find_kernel(&c, name, &body);
  if (!def || !body) {
    check(t, false, what, "kernel not found");
    arena_free(&a);
    return;
  }
  check(t, def->nparams == ninputs, what, "number of inputs");
  const double **in = NEWARRAY(&a, const double *, ninputs + 1);
  size_t *counts = NEWARRAY(&a, size_t, ninputs + 1);
  for (int i = 0; i < ninputs; i++) {
    in[i] = inputs[i].v;
    counts[i] = inputs[i].n;
  }
  Buf err;
  buf_init(&err, &a);
  double *out = NULL;
  size_t nout = 0;
  bool ok = interp_run(&a, def, body, &nats, in, counts, &out, &nout, &err);
  check(t, ok, what, err.data);
  if (ok) {
    bool same = nout == expected.n;
    for (size_t i = 0; same && i < nout; i++) same = out[i] == expected.v[i];
    Buf d;
    buf_init(&d, &a);
    emit(&d, "got %s, expected %s", fmt_vals(&a, out, nout), fmt_vals(&a, expected.v, expected.n));
    check(t, same, what, d.data);
  }
  arena_free(&a);
}

static NatValues one_nat(const char *name, int64_t value, const char **names, int64_t *values) {
  names[0] = name;
  values[0] = value;
  return (NatValues){1, names, values};
}

static void units(Tester *t, DpiaMem *mem) {
  const char *nn[4];
  int64_t nv[4];

  /* dot product: map then a sequential reduction, written per work-item */
  run_case(t, mem, "dot product",
           "kernel dotp (N: nat) (xs ys: [N]float) =\n"
           "  zip xs ys |> split N\n"
           "  |> mapGlobal (\\zs -> zs |> mapSeq (\\p -> fst p * snd p) |> reduceSeq (\\x a -> x + a) 0.0)\n",
           "dotp", one_nat("N", 4, nn, nv), 2, (Vals[]){V(1, 2, 3, 4), V(5, 6, 7, 8)}, V(70));

  /* a scalar result: one element */
  run_case(t, mem, "dot product, fused, scalar result",
           "kernel dotp (N: nat) (xs ys: [N]float) =\n"
           "  zip xs ys |> reduceSeq (\\p a -> fst p * snd p + a) 0.0\n",
           "dotp", one_nat("N", 3, nn, nv), 2, (Vals[]){V(1, 2, 3), V(-1, 0.5, 2)}, V(6));

  run_case(t, mem, "split/join identity",
           "kernel sj (N: nat) (xs: [N]float) = xs |> split 2 |> mapGlobal (mapSeq (\\x -> x)) |> join\n", "sj",
           one_nat("N", 6, nn, nv), 1, (Vals[]){V(1.5, -2, 3, 4.25, 5, 6)}, V(1.5, -2, 3, 4.25, 5, 6));

  run_case(t, mem, "join of split views without a map",
           "kernel sj (N: nat) (xs: [N]float) = xs |> split 3 |> join |> split 2 |> join |> mapGlobal (\\x -> x)\n",
           "sj", one_nat("N", 6, nn, nv), 1, (Vals[]){V(1, 2, 3, 4, 5, 6)}, V(1, 2, 3, 4, 5, 6));

  run_case(t, mem, "zip",
           "kernel z (N: nat) (xs ys: [N]float) = zip xs ys |> mapGlobal (\\p -> fst p - snd p)\n", "z",
           one_nat("N", 3, nn, nv), 2, (Vals[]){V(10, 20, 30), V(1, 2, 3)}, V(9, 18, 27));

  /* [[1,2,3],[4,5,6]] transposed is [[1,4],[2,5],[3,6]] */
  run_case(t, mem, "transpose",
           "kernel tr (M N: nat) (m: [M][N]float) = m |> transpose |> mapGlobal (mapSeq (\\x -> x))\n", "tr",
           (NatValues){2, NATS("M", "N"), NATV(2, 3)}, 1, (Vals[]){V(1, 2, 3, 4, 5, 6)}, V(1, 4, 2, 5, 3, 6));

  /* transpose twice is the identity; transpose of a map result */
  run_case(t, mem, "transpose of a map result, twice",
           "kernel tr (M N: nat) (m: [M][N]float) =\n"
           "  m |> mapGlobal (mapSeq (\\x -> x * 10.0)) |> transpose |> transpose |> join\n",
           "tr", (NatValues){2, NATS("M", "N"), NATV(2, 3)}, 1, (Vals[]){V(1, 2, 3, 4, 5, 6)},
           V(10, 20, 30, 40, 50, 60));

  /* padClamp 1 1 of [1,2,3,4] is [1,1,2,3,4,4]; windows of 3 summed */
  run_case(t, mem, "slide + padClamp stencil",
           "kernel st (N: nat) (xs: [N]float) =\n"
           "  xs |> padClamp 1 1 |> slide 3 1 |> mapGlobal (\\w -> reduceSeq (\\x s -> x + s) 0.0 w)\n",
           "st", one_nat("N", 4, nn, nv), 1, (Vals[]){V(1, 2, 3, 4)}, V(4, 6, 9, 11));

  /* slide with a step: windows of 3 every 2 over 7 elements */
  run_case(t, mem, "slide 3 2",
           "kernel st (N: nat) (xs: [2*N+1]float) =\n"
           "  xs |> slide 3 2 |> mapGlobal (\\w -> w |> mapSeq (\\x -> x)) |> join\n",
           "st", one_nat("N", 3, nn, nv), 1, (Vals[]){V(0, 1, 2, 3, 4, 5, 6)}, V(0, 1, 2, 2, 3, 4, 4, 5, 6));

  run_case(t, mem, "padCst",
           "kernel pc (N: nat) (xs: [N]float) = xs |> padCst 1 2 9.0 |> mapGlobal (\\x -> x)\n", "pc",
           one_nat("N", 2, nn, nv), 1, (Vals[]){V(1, 2)}, V(9, 1, 2, 9, 9));

  /* left fold with a non-associative f (element first, accumulator
   * second): [1,2,3] gives ((0*2+1)*2+2)*2+3 = 11 (a right fold gives
   * 17), [3,2,1] gives 17 (a right fold gives 11) */
  run_case(t, mem, "reduce folds left",
           "kernel rd (N: nat) (xs: [3*N]float) =\n"
           "  xs |> split 3 |> mapGlobal (\\c -> reduceSeq (\\x a -> a * 2.0 + x) 0.0 c)\n",
           "rd", one_nat("N", 2, nn, nv), 1, (Vals[]){V(1, 2, 3, 3, 2, 1)}, V(11, 17));

  run_case(t, mem, "plain reduce folds left too",
           "kernel rd (N: nat) (xs: [N]float) = xs |> split N |> mapGlobal (reduce (\\x a -> a * 2.0 + x) 1.0)\n",
           "rd", one_nat("N", 3, nn, nv), 1, (Vals[]){V(1, 2, 3)}, V(19));

  run_case(t, mem, "reduce with an array accumulator",
           "kernel ra (N: nat) (xs: [N][2]float) =\n"
           "  xs |> split N |> mapGlobal (\\rows ->\n"
           "    reduceSeq (\\r acc -> zip r acc |> mapSeq (\\p -> fst p + snd p * 10.0)) (xs |> take 1 |> join) rows)\n"
           "  |> join\n",
           "ra", one_nat("N", 2, nn, nv), 1, (Vals[]){V(1, 2, 3, 4)}, V(113, 224));

  /* vectors: [1..8] as two float4 */
  run_case(t, mem, "asVector / asScalar",
           "kernel av (N: nat) (xs: [4*N]float) =\n"
           "  xs |> asVector 4 |> mapGlobal (\\v -> v * 2.0 + vec 4 1.0) |> asScalar\n",
           "av", one_nat("N", 2, nn, nv), 1, (Vals[]){V(1, 2, 3, 4, 5, 6, 7, 8)}, V(3, 5, 7, 9, 11, 13, 15, 17));

  /* float4 partial sums: chunk 0 is (1,2,3,4)+(5,6,7,8), chunk 1 is
   * (9,10,11,12)+(13,14,15,16) */
  run_case(t, mem, "vector reduction",
           "kernel vr (N: nat) (xs: [8*N]float) =\n"
           "  xs |> asVector 4 |> split 2 |> mapGlobal (\\c -> reduceSeq (\\x a -> x + a) 0.0 c) |> asScalar\n",
           "vr", one_nat("N", 2, nn, nv), 1, (Vals[]){V(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)},
           V(6, 8, 10, 12, 22, 24, 26, 28));

  run_case(t, mem, "vector inputs and outputs, scalar broadcast",
           "kernel vi (N: nat) (a: float) (xs: [N]float2) = xs |> mapGlobal (\\v -> a * v - 1.0)\n", "vi",
           one_nat("N", 2, nn, nv), 2, (Vals[]){V(3), V(1, 2, 3, 4)}, V(2, 5, 8, 11));

  /* pairs: an array of pairs is an array of structs (interleaved) */
  run_case(t, mem, "array of pairs result",
           "kernel ap (N: nat) (xs ys: [N]float) = zip xs ys |> mapGlobal (\\p -> (snd p, fst p * 2.0))\n", "ap",
           one_nat("N", 2, nn, nv), 2, (Vals[]){V(1, 2), V(5, 6)}, V(5, 2, 6, 4));

  run_case(t, mem, "array of pairs input",
           "kernel pi (N: nat) (ps: [N](float, int)) = ps |> mapGlobal (\\p -> fst p * toFloat (snd p))\n", "pi",
           one_nat("N", 3, nn, nv), 1, (Vals[]){V(1.5, 2, -1, 3, 4, -2)}, V(3, -3, -8));

  /* a top-level pair of arrays: the first array, then the second */
  run_case(t, mem, "pair of arrays result",
           "kernel pr (N: nat) (xs: [N]float) =\n"
           "  pair (xs |> mapGlobal (\\x -> x + 1.0)) (xs |> mapGlobal (\\x -> x * x))\n",
           "pr", one_nat("N", 3, nn, nv), 1, (Vals[]){V(1, 2, 3)}, V(2, 3, 4, 1, 4, 9));

  run_case(t, mem, "nested pair",
           "kernel np (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> ((x, x + 1.0), toInt x))\n", "np",
           one_nat("N", 2, nn, nv), 1, (Vals[]){V(1.5, -2.5)}, V(1.5, 2.5, 1, -2.5, -1.5, -2));

  /* integer semantics: / truncates, % is C's remainder */
  run_case(t, mem, "int division and remainder",
           "kernel id (N: nat) (xs: [N]int) = xs |> mapGlobal (\\x -> x / 2 * 10 + x % 3)\n", "id",
           one_nat("N", 4, nn, nv), 1, (Vals[]){V(-7, 7, 5, -1)}, V(-31, 31, 22, -1));

  run_case(t, mem, "toInt truncates",
           "kernel ti (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> toInt x)\n", "ti", one_nat("N", 4, nn, nv),
           1, (Vals[]){V(1.75, -1.75, 0.5, -0.5)}, V(1, -1, 0, 0));

  /* reorderStride 2 of 6 elements: element i is xs[i/3 + 2*(i%3)] */
  run_case(t, mem, "reorderStride",
           "kernel ro (N: nat) (xs: [2*N]float) = xs |> reorderStride 2 |> mapGlobal (\\x -> x)\n", "ro",
           one_nat("N", 3, nn, nv), 1, (Vals[]){V(0, 1, 2, 3, 4, 5)}, V(0, 2, 4, 1, 3, 5));

  run_case(t, mem, "take and drop",
           "kernel td (N: nat) (xs: [N+3]float) =\n"
           "  zip (xs |> take 3) (xs |> drop N) |> mapGlobal (\\p -> fst p * 10.0 + snd p)\n",
           "td", one_nat("N", 2, nn, nv), 1, (Vals[]){V(1, 2, 3, 4, 5)}, V(13, 24, 35));

  run_case(t, mem, "math, select and comparisons",
           "kernel m (N: nat) (xs: [N]float) =\n"
           "  xs |> mapGlobal (\\x -> select (x < 0.0 && !(x == -9.0)) (fabs x) (sqrt x) + max x 0.5 + min 1.0 x\n"
           "                      + floor x * 100.0 + ceil x * 1000.0)\n",
           "m", one_nat("N", 2, nn, nv), 1, (Vals[]){V(-4, 2.25)}, V(4 + 0.5 - 4 - 400 - 4000, 1.5 + 2.25 + 1 + 200 + 3000));

  run_case(t, mem, "pow, fma, exp, log",
           "kernel m (N: nat) (xs: [N]double) =\n"
           "  xs |> mapGlobal (\\x -> pow x 2.0 + fma x 3.0 1.0 + exp (x - x) + log (x * x / (x * x)))\n",
           "m", one_nat("N", 2, nn, nv), 1, (Vals[]){V(2, -1)}, V(4 + 7 + 1, 1 - 2 + 1));

  run_case(t, mem, "toLocal / toPrivate / toGlobal are application",
           "kernel tl (N: nat) (xs: [N]float) =\n"
           "  xs |> split 2 |> mapWorkgroup (\\c -> c |> toLocal (mapLocal (\\x -> x + 1.0))\n"
           "                                        |> mapLocal (\\x -> x * 2.0)) |> join\n",
           "tl", one_nat("N", 4, nn, nv), 1, (Vals[]){V(1, 2, 3, 4)}, V(4, 6, 8, 10));

  run_case(t, mem, "defs and let are inlined",
           "def sq (x: float) = x * x\n"
           "def sumSeq (N: nat) (xs: [N]float) = reduceSeq (\\x a -> x + a) 0.0 xs\n"
           "kernel dl (N: nat) (xs: [2*N]float) =\n"
           "  xs |> split 2 |> mapGlobal (\\c -> let s = sumSeq c in sq s + s)\n",
           "dl", one_nat("N", 2, nn, nv), 1, (Vals[]){V(1, 2, 3, 4)}, V(12, 56));

  run_case(t, mem, "partially applied primitives as functions",
           "kernel pa (M N: nat) (m: [M][N]float) = m |> mapWorkgroup (mapLocal (\\x -> x + 1.0)) |> join\n", "pa",
           (NatValues){2, NATS("M", "N"), NATV(2, 2)}, 1, (Vals[]){V(1, 2, 3, 4)}, V(2, 3, 4, 5));

  /* every stage reads each element of the previous one three times: an
   * interpreter that recomputed map elements per read would evaluate
   * 3^20 inner elements; a constant 1 array becomes 3^20 */
  Arena a;
  arena_init(&a, mem);
  Buf chain;
  buf_init(&chain, &a);
  buf_puts(&chain, "kernel ch (N: nat) (xs: [N]float) = xs |> split N |> mapGlobal (\\c -> c\n");
  for (int k = 0; k < 20; k++)
    buf_puts(&chain, "  |> padClamp 1 1 |> slide 3 1 |> mapSeq (\\w -> reduceSeq (\\x a -> x + a) 0.0 w)\n");
  buf_puts(&chain, ") |> join\n");
  double p20 = pow(3, 20);
  run_case(t, mem, "map results are materialised once", chain.data, "ch", one_nat("N", 4, nn, nv), 1,
           (Vals[]){V(1, 1, 1, 1)}, (Vals){(const double[]){p20, p20, p20, p20}, 4});

  /* a def whose argument is used inside a map's function: normalisation
   * copies the argument there (spec section 2), so step^10 reads the sum
   * of step^9's result inside step^10's map, and so on down; an
   * interpreter that recomputed a phrase reading only the inputs at every
   * evaluation would do (N + 1)^10 = 9^10 maps of 8 elements.  Each
   * stage adds the previous stage's sum (9 times as large each time) to
   * every element: x + 36 (9^10 - 1) / 8. */
  buf_init(&chain, &a);
  buf_puts(&chain, "def step (N: nat) (a: [N]float) = a |> mapSeq (\\x -> x + (a |> reduceSeq (\\y s -> s + y) 0.0))\n"
                   "kernel st (N: nat) (xs: [N]float) = xs");
  for (int k = 0; k < 10; k++) buf_puts(&chain, " |> step");
  buf_puts(&chain, "\n");
  double add = 36.0 * (pow(9, 10) - 1) / 8;
  run_case(t, mem, "a computation that reads only the inputs is made once", chain.data, "st", one_nat("N", 8, nn, nv),
           1, (Vals[]){V(1, 2, 3, 4, 5, 6, 7, 8)},
           (Vals){(const double[]){1 + add, 2 + add, 3 + add, 4 + add, 5 + add, 6 + add, 7 + add, 8 + add}, 8});
  arena_free(&a);
}

/* ---- errors ---- */

static void expect_error(Tester *t, DpiaMem *mem, const char *what, const char *src, const char *name, NatValues nats,
                         int ninputs, const Vals *inputs, const char *needle) {
  Arena a;
  arena_init(&a, mem);
  Compiled c;
  if (!compile(&c, &a, what, src)) {
    check(t, false, what, "the program does not compile");
    arena_free(&a);
    return;
  }
  const Phrase *body = NULL;
  const DefInfo *def = find_kernel(&c, name, &body);
  const double **in = NEWARRAY(&a, const double *, ninputs + 1);
  size_t *counts = NEWARRAY(&a, size_t, ninputs + 1);
  for (int i = 0; i < ninputs; i++) {
    in[i] = inputs[i].v;
    counts[i] = inputs[i].n;
  }
  Buf err;
  buf_init(&err, &a);
  double *out = NULL;
  size_t nout = 0;
  bool ok = def && interp_run(&a, def, body, &nats, in, counts, &out, &nout, &err);
  check(t, !ok, what, "expected a failure");
  Buf d;
  buf_init(&d, &a);
  emit(&d, "message \"%s\" does not contain \"%s\"", err.data, needle);
  check(t, strstr(err.data, needle) != NULL, what, d.data);
  arena_free(&a);
}

static void errors(Tester *t, DpiaMem *mem) {
  const char *nn[2];
  int64_t nv[2];
  const char *dot = "kernel dotp (N: nat) (xs ys: [N]float) =\n"
                    "  zip xs ys |> split 2 |> mapGlobal (reduceSeq (\\p a -> fst p * snd p + a) 0.0)\n";
  expect_error(t, mem, "missing nat value", dot, "dotp", (NatValues){0, NULL, NULL}, 2,
               (Vals[]){V(1, 2), V(3, 4)}, "no value for the nat parameter N");
  expect_error(t, mem, "wrong input size", dot, "dotp", one_nat("N", 2, nn, nv), 2, (Vals[]){V(1, 2), V(3, 4, 5)},
               "input ys of kernel dotp: expected 2 values, got 3");
  /* a scatter's positions declared a permutation (docs/language.md
   * section 29): an input that is not one is refused, naming the first
   * repeated element and the earlier one */
  const char *sc = "kernel sc (N: nat) (xs: [N]float) (p: [N]idx[N]) permutation p =\n"
                   "  xs |> mapGlobal (\\x -> x * 2.0) |> scatter p\n";
  expect_error(t, mem, "not a permutation", sc, "sc", one_nat("N", 4, nn, nv), 2, (Vals[]){V(1, 2, 3, 4), V(2, 0, 2, 1)},
               "p[2] = 2 repeats p[0]");
  expect_error(t, mem, "permutation out of range", sc, "sc", one_nat("N", 3, nn, nv), 2, (Vals[]){V(1, 2, 3), V(0, 3, 1)},
               "p[1] = 3 is outside it");
  expect_error(t, mem, "precondition violated", dot, "dotp", one_nat("N", 3, nn, nv), 2,
               (Vals[]){V(1, 2, 3), V(3, 4, 5)}, "not a whole number");
  expect_error(t, mem, "split of an indivisible array",
               "kernel s (N: nat) (xs: [N]float) = xs |> split 4 |> mapGlobal (reduceSeq (\\x a -> x + a) 0.0)\n", "s",
               one_nat("N", 6, nn, nv), 1, (Vals[]){V(1, 2, 3, 4, 5, 6)}, "N/4");
}

/* ---- precision: the reference sees what the device holds (spec 11) ---- */

/* the bound interp_bound gives kernel `name` of src (N = 4), or -1 */
static double bound_of(Tester *t, DpiaMem *mem, const char *what, const char *src, const char *name) {
  Arena a;
  arena_init(&a, mem);
  Compiled c;
  double bound = -1;
  const Phrase *body = NULL;
  const DefInfo *def = compile(&c, &a, what, src) ? find_kernel(&c, name, &body) : NULL;
  Buf err;
  buf_init(&err, &a);
  NatValues nats = {1, NATS("N"), NATV(4)};
  const Lay *result = def && body ? interp_result_layout(&a, def, &nats, &err) : NULL;
  if (result) bound = interp_bound(body, result);
  check(t, result != NULL, what, "the kernel does not compile");
  arena_free(&a);
  return bound;
}

static void precision(Tester *t, DpiaMem *mem) {
  const char *nn[2];
  int64_t nv[2];
  double f01 = (float)0.1, f09 = (float)0.9, near1 = 1 - 0x1p-26; /* (float)near1 is 1 */

  /* tests/diff/regress/float_input_double_result.dpia: the device's xs
   * holds (float)0.1, so the double result is (float)0.1 + y exactly; a
   * reference on the unrounded 0.1 is off by 1.5e-9 relative, far beyond
   * the double bound */
  run_case(t, mem, "a float input is what the device holds",
           "kernel k (N: nat) (xs: [N]float) (ys: [N]double) =\n"
           "  zip xs ys |> mapGlobal (\\p -> toDouble (fst p) + snd p)\n",
           "k", one_nat("N", 2, nn, nv), 2, (Vals[]){V(0.1, 0.9), V(0.25, -0.5)}, V(f01 + 0.25, f09 - 0.5));
  run_case(t, mem, "float lanes of vector and pair inputs too",
           "kernel k (N: nat) (ps: [N](float2, int)) =\n"
           "  ps |> mapGlobal (\\p -> toDouble (fst p) * 2.0 + toDouble (snd p))\n",
           "k", one_nat("N", 1, nn, nv), 1, (Vals[]){V(0.1, 0.9, 3)}, V(f01 * 2 + 3, f09 * 2 + 3));
  run_case(t, mem, "toFloat rounds to float",
           "kernel k (N: nat) (xs: [N]double) = xs |> mapGlobal (\\x -> toDouble (toFloat x))\n", "k",
           one_nat("N", 2, nn, nv), 1, (Vals[]){V(0.1, -0.9)}, V(f01, -f09));
  run_case(t, mem, "toFloat of an int rounds to float",
           "kernel k (N: nat) (xs: [N]int) = xs |> mapGlobal (\\x -> toDouble (toFloat x))\n", "k",
           one_nat("N", 2, nn, nv), 1, (Vals[]){V(16777217, -3)}, V(16777216, -3));
  /* near1 is below 1 in double, 1.0f on the device: toInt gives 1 */
  run_case(t, mem, "toInt of a float input truncates the device's float",
           "kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> toInt x)\n", "k", one_nat("N", 2, nn, nv),
           1, (Vals[]){V(near1, -near1)}, V(1, -1));
  /* a double argument of toInt is not rounded to float */
  run_case(t, mem, "toInt of a double does not round to float",
           "kernel k (N: nat) (xs: [N]double) = xs |> mapGlobal (\\x -> toInt x)\n", "k", one_nat("N", 1, nn, nv),
           1, (Vals[]){V(near1)}, V(0));
  /* the float value x * 3.0 (x = 0.1f) held as a float before toDouble */
  run_case(t, mem, "toDouble of float arithmetic takes the float value",
           "kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> toDouble (x * 3.0))\n", "k",
           one_nat("N", 1, nn, nv), 1, (Vals[]){V(0.1)}, V((float)(f01 * 3)));
  run_case(t, mem, "a float literal is the kernel's float constant",
           "kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> x + 0.1)\n", "k", one_nat("N", 1, nn, nv),
           1, (Vals[]){V(0.5)}, V(0.5 + f01));
  run_case(t, mem, "double literals and inputs stay double",
           "kernel k (N: nat) (xs: [N]double) = xs |> mapGlobal (\\x -> x + 0.1)\n", "k", one_nat("N", 1, nn, nv),
           1, (Vals[]){V(0.1)}, V(0.1 + 0.1));

  /* the bound: float when float arithmetic may reach the result */
  check(t,
        bound_of(t, mem, "bound: float input, double result",
                 "kernel k (N: nat) (xs: [N]float) (ys: [N]double) =\n"
                 "  zip xs ys |> mapGlobal (\\p -> toDouble (fst p) + snd p)\n",
                 "k") == COMPARE_BOUND_DOUBLE,
        "no float arithmetic: a double result keeps the double bound", "");
  check(t,
        bound_of(t, mem, "bound: float arithmetic, double result",
                 "kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> toDouble (x * x + 1.0))\n",
                 "k") == COMPARE_BOUND_FLOAT,
        "float arithmetic reaching a double result gives the float bound", "");
  check(t,
        bound_of(t, mem, "bound: float math built-in",
                 "kernel k (N: nat) (xs: [N]float4) = xs |> mapGlobal (\\x -> toDouble (sqrt x))\n",
                 "k") == COMPARE_BOUND_FLOAT,
        "a float math built-in gives the float bound", "");
  check(t,
        bound_of(t, mem, "bound: exact float built-ins",
                 "kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> toDouble (max (fabs x) (floor x)))\n",
                 "k") == COMPARE_BOUND_DOUBLE,
        "fabs, max, floor are exact: the double bound", "");
  check(t,
        bound_of(t, mem, "bound: double arithmetic",
                 "kernel k (N: nat) (xs: [N]double) = xs |> mapGlobal (\\x -> x * x + toDouble (toFloat x))\n",
                 "k") == COMPARE_BOUND_DOUBLE,
        "double arithmetic and conversions: the double bound", "");
  check(t,
        bound_of(t, mem, "bound: float result",
                 "kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> x)\n", "k") == COMPARE_BOUND_FLOAT,
        "a float result: the float bound", "");

  /* lay_round and lay_device_exact */
  Arena a;
  arena_init(&a, mem);
  TypeCtx tc;
  type_ctx_init(&tc, &a);
  Buf err;
  buf_init(&err, &a);
  NatValues none = {0, NULL, NULL};
  const Lay *l = lay_of(&a, dt_pair(&tc, dt_scalar(&tc, SC_FLOAT, 2), dt_pair(&tc, tc.t_int, tc.t_double)), &none, &err);
  double v[4] = {0.1, 0.5, -2.75, 0.1};
  check(t, !lay_device_exact(l, v), "0.1 in a float lane is not what the device holds", "");
  lay_round(l, v);
  check(t, v[0] == f01 && v[1] == 0.5 && v[2] == -2 && v[3] == 0.1, "lay_round: float lanes to float, int truncated, double kept",
        fmt_vals(&a, v, 4));
  check(t, lay_device_exact(l, v), "a rounded value is what the device holds", "");
  /* random inputs are already what the device holds */
  const Lay *arr = lay_of(&a, dt_array(&tc, size_const(&tc.sizes, 1000), tc.t_float), &none, &err);
  double *vals = NEWARRAY(&a, double, arr->flat);
  Rng r;
  rng_seed(&r, 11);
  rng_fill(&r, arr, vals);
  check(t, lay_device_exact(arr, vals), "rng_fill gives float lanes the device holds exactly", "");
  arena_free(&a);
}

/* ---- samples: direct C computations on random inputs ---- */

typedef struct SampleRun {
  Arena arena;
  Compiled c;
  const DefInfo *def;
  const Phrase *body;
  double **in;
  size_t *counts;
  double *out;
  size_t nout;
  double seconds;
} SampleRun;

static char *read_file(Arena *a, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  Buf b;
  buf_init(&b, a);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_put(&b, chunk, n);
  fclose(f);
  return b.data;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* compile dir/file, run kernel on random inputs; false after a failure */
static bool sample_run(Tester *t, DpiaMem *mem, SampleRun *r, const char *dir, const char *file, const char *kernel,
                       NatValues nats, uint64_t seed) {
  arena_init(&r->arena, mem);
  char *path = arena_printf(&r->arena, "%s/%s", dir, file);
  char *text = read_file(&r->arena, path);
  char *what = arena_printf(&r->arena, "sample %s:%s", file, kernel);
  if (!text) {
    check(t, false, what, "cannot read the sample");
    return false;
  }
  if (!compile(&r->c, &r->arena, path, text)) {
    check(t, false, what, "the sample does not compile");
    return false;
  }
  r->def = find_kernel(&r->c, kernel, &r->body);
  if (!r->def) {
    check(t, false, what, "kernel not found");
    return false;
  }
  Buf err;
  buf_init(&err, &r->arena);
  Rng rng;
  rng_seed(&rng, seed);
  bool ok = interp_random_inputs(&r->arena, r->def, &nats, &rng, &r->in, &r->counts, &err);
  double t0 = now();
  ok = ok && interp_run(&r->arena, r->def, r->body, &nats, (const double *const *)r->in, r->counts, &r->out,
                        &r->nout, &err);
  r->seconds = now() - t0;
  check(t, ok, what, err.data);
  return ok;
}

static void sample_compare(Tester *t, SampleRun *r, const char *what, const double *ref, size_t nref) {
  Buf d;
  buf_init(&d, &r->arena);
  if (r->nout != nref) {
    emit(&d, "%zu results, expected %zu", r->nout, nref);
    check(t, false, what, d.data);
    return;
  }
  Comparison cmp;
  compare_values(r->out, ref, nref, COMPARE_BOUND_DOUBLE, &cmp);
  compare_report(&cmp, &d);
  check(t, cmp.ok, what, d.data);
  printf("  %-28s %8zu results  %.3f s  %s\n", what, nref, r->seconds, d.data);
}

static int64_t clampi(int64_t i, int64_t lo, int64_t hi) { return i < lo ? lo : i > hi ? hi : i; }

static void samples(Tester *t, DpiaMem *mem, const char *dir) {
  const char *nn[3];
  int64_t nv[3];
  SampleRun r;

  /* dotPartial: N/2048 sums of 2048 products */
  if (sample_run(t, mem, &r, dir, "dot_partial.dpia", "dotPartial", one_nat("N", 2 * 262144, nn, nv), 1)) {
    int64_t n = 2 * 262144;
    double *ref = NEWARRAY(&r.arena, double, n / 2048);
    for (int64_t j = 0; j < n / 2048; j++) {
      double acc = 0;
      for (int64_t k = 0; k < 2048; k++) acc = r.in[0][2048 * j + k] * r.in[1][2048 * j + k] + acc;
      ref[j] = acc;
    }
    sample_compare(t, &r, "dot_partial:dotPartial", ref, (size_t)(n / 2048));
  }
  arena_free(&r.arena);

  if (sample_run(t, mem, &r, dir, "dot_global.dpia", "dotProducts", one_nat("N", 1000, nn, nv), 2)) {
    double *ref = NEWARRAY(&r.arena, double, 1000);
    for (int i = 0; i < 1000; i++) ref[i] = r.in[0][i] * r.in[1][i];
    sample_compare(t, &r, "dot_global:dotProducts", ref, 1000);
  }
  arena_free(&r.arena);

  if (sample_run(t, mem, &r, dir, "dot_global.dpia", "sumPartial", one_nat("N", 4096, nn, nv), 3)) {
    double *ref = NEWARRAY(&r.arena, double, 4);
    for (int j = 0; j < 4; j++) {
      double acc = 0;
      for (int k = 0; k < 1024; k++) acc = r.in[0][1024 * j + k] + acc;
      ref[j] = acc;
    }
    sample_compare(t, &r, "dot_global:sumPartial", ref, 4);
  }
  arena_free(&r.arena);

  /* dotVec: work-item w accumulates float4 products of its 2048 float4
   * pairs; lane l of its accumulator is result 4*w + l */
  if (sample_run(t, mem, &r, dir, "dot_vec.dpia", "dotVec", one_nat("N", 524288, nn, nv), 4)) {
    int64_t items = 524288 / 4 / 2048;
    double *ref = NEWARRAY(&r.arena, double, items * 4);
    for (int64_t w = 0; w < items; w++) {
      for (int l = 0; l < 4; l++) {
        double acc = 0;
        for (int64_t c = 0; c < 2048; c++) {
          int64_t i = 4 * (2048 * w + c) + l;
          acc = r.in[0][i] * r.in[1][i] + acc;
        }
        ref[4 * w + l] = acc;
      }
    }
    sample_compare(t, &r, "dot_vec:dotVec", ref, (size_t)(items * 4));
  }
  arena_free(&r.arena);

  if (sample_run(t, mem, &r, dir, "asum.dpia", "asumPartial", one_nat("N", 262144, nn, nv), 5)) {
    double *ref = NEWARRAY(&r.arena, double, 128);
    for (int j = 0; j < 128; j++) {
      double acc = 0;
      for (int k = 0; k < 2048; k++) acc = fabs(r.in[0][2048 * j + k]) + acc;
      ref[j] = acc;
    }
    sample_compare(t, &r, "asum:asumPartial", ref, 128);
  }
  arena_free(&r.arena);

  const char *scal_kernels[] = {"scal", "scalVec"};
  for (int s = 0; s < 2; s++) {
    if (sample_run(t, mem, &r, dir, "scal.dpia", scal_kernels[s], one_nat("N", 1024, nn, nv), 6)) {
      double *ref = NEWARRAY(&r.arena, double, 1024);
      for (int i = 0; i < 1024; i++) ref[i] = r.in[0][0] * r.in[1][i];
      sample_compare(t, &r, s ? "scal:scalVec" : "scal:scal", ref, 1024);
    }
    arena_free(&r.arena);
  }

  /* gemv: params alpha beta mat x y; 64 partial sums per row */
  if (sample_run(t, mem, &r, dir, "gemv.dpia", "gemv", (NatValues){2, NATS("M", "N"), NATV(5, 256)}, 7)) {
    int64_t m = 5, n = 256, chunk = n / 64;
    double alpha = r.in[0][0], beta = r.in[1][0];
    const double *mat = r.in[2], *x = r.in[3], *y = r.in[4];
    double *ref = NEWARRAY(&r.arena, double, m);
    for (int64_t i = 0; i < m; i++) {
      double total = 0;
      for (int64_t p = 0; p < 64; p++) {
        double part = 0;
        for (int64_t k = 0; k < chunk; k++) part = mat[i * n + p * chunk + k] * x[p * chunk + k] + part;
        total = part + total;
      }
      ref[i] = alpha * total + beta * y[i];
    }
    sample_compare(t, &r, "gemv:gemv", ref, (size_t)m);
  }
  arena_free(&r.arena);

  /* mmTiled: c = a * b */
  if (sample_run(t, mem, &r, dir, "mm_tiled.dpia", "mmTiled", (NatValues){3, NATS("M", "N", "K"), NATV(32, 48, 8)},
                 8)) {
    int64_t m = 32, n = 48, k = 8;
    const double *a = r.in[0], *b = r.in[1];
    double *ref = NEWARRAY(&r.arena, double, m * n);
    for (int64_t i = 0; i < m; i++) {
      for (int64_t j = 0; j < n; j++) {
        double acc = 0;
        for (int64_t q = 0; q < k; q++) acc = a[i * k + q] * b[q * n + j] + acc;
        ref[i * n + j] = acc;
      }
    }
    sample_compare(t, &r, "mm_tiled:mmTiled", ref, (size_t)(m * n));
  }
  arena_free(&r.arena);

  /* both stencils: the mean of an element and its clamped neighbours */
  const char *stencils[] = {"stencil", "stencilTiled"};
  for (int s = 0; s < 2; s++) {
    if (sample_run(t, mem, &r, dir, "stencil1d.dpia", stencils[s], one_nat("N", 256, nn, nv), 9)) {
      const double *x = r.in[0];
      double *ref = NEWARRAY(&r.arena, double, 256);
      for (int64_t i = 0; i < 256; i++) {
        double acc = 0;
        for (int64_t d = -1; d <= 1; d++) acc = x[clampi(i + d, 0, 255)] + acc;
        ref[i] = acc / 3.0;
      }
      sample_compare(t, &r, s ? "stencil1d:stencilTiled" : "stencil1d:stencil", ref, 256);
    }
    arena_free(&r.arena);
  }
}

/* ---- layouts ---- */

static void layout(Tester *t, DpiaMem *mem) {
  Arena a;
  arena_init(&a, mem);
  TypeCtx tc;
  type_ctx_init(&tc, &a);
  Interner in;
  intern_init(&in, &a);
  Buf err;
  buf_init(&err, &a);
  NatValues nats = {1, NATS("N"), NATV(5)};
  DataType *f = tc.t_float, *i = tc.t_int, *d = tc.t_double;
  DataType *f3 = dt_scalar(&tc, SC_FLOAT, 3), *f4 = dt_scalar(&tc, SC_FLOAT, 4);

  const Lay *l = lay_of(&a, dt_pair(&tc, f, i), &nats, &err);
  check(t, l && l->flat == 2 && l->bytes == 8 && l->snd_offset == 4 && l->align == 4, "(float, int) layout", err.data);
  l = lay_of(&a, dt_pair(&tc, f, d), &nats, &err);
  check(t, l && l->flat == 2 && l->bytes == 16 && l->snd_offset == 8 && l->align == 8, "(float, double) layout", "");
  l = lay_of(&a, dt_pair(&tc, d, f), &nats, &err);
  check(t, l && l->bytes == 16 && l->snd_offset == 8, "(double, float) layout pads the end", "");
  l = lay_of(&a, f3, &nats, &err);
  check(t, l && l->flat == 3 && l->bytes == 16 && l->align == 16, "float3 occupies 4 lanes", "");
  Size n = size_var(&tc.sizes, intern_cstr(&in, "N"));
  l = lay_of(&a, dt_array(&tc, n, dt_pair(&tc, f, f4)), &nats, &err);
  check(t, l && l->n == 5 && l->flat == 25 && l->elem->bytes == 32 && l->elem->snd_offset == 16 && l->bytes == 160,
        "[N](float, float4) layout", err.data);

  /* pack/unpack round trip of [N](float, float4), with float rounding */
  if (l) {
    double src[25], back[25];
    for (int k = 0; k < 25; k++) src[k] = k + 0.1;
    unsigned char *bytes = arena_alloc(&a, (size_t)l->bytes);
    lay_pack(l, src, bytes);
    lay_unpack(l, bytes, back);
    bool same = true;
    for (int k = 0; k < 25; k++) same = same && back[k] == (double)(float)src[k];
    check(t, same, "pack/unpack of [N](float, float4) round-trips through float", "");
    float second;
    memcpy(&second, bytes + 32 + 16 + 4, sizeof second); /* element 1, field 2, lane 1 */
    check(t, second == (float)(5 + 2 + 0.1), "device layout: element 1's float4 lane 1", "");
  }

  /* int lanes: truncation, saturation, and NaN as the poison INT32_MIN */
  const Lay *li = lay_of(&a, dt_scalar(&tc, SC_INT, 4), &nats, &err);
  double iv[4] = {-2.75, 3e10, NAN, 7}, ib[4];
  unsigned char ibytes[16];
  lay_pack(li, iv, ibytes);
  int32_t raw[4];
  memcpy(raw, ibytes, sizeof raw);
  check(t, raw[0] == -2 && raw[1] == INT32_MAX && raw[2] == INT32_MIN && raw[3] == 7, "int lanes pack", "");
  lay_unpack(li, ibytes, ib);
  check(t, ib[0] == -2 && isnan(ib[2]) && ib[3] == 7, "int poison unpacks as NaN", "");

  /* errors */
  buf_clear(&err);
  l = lay_of(&a, dt_array(&tc, size_var(&tc.sizes, intern_cstr(&in, "M")), f), &nats, &err);
  check(t, !l && strstr(err.data, "no value for the nat parameter M"), "unknown nat parameter", err.data);
  buf_clear(&err);
  Size half;
  size_div(&tc.sizes, n, size_const(&tc.sizes, 2), &half);
  l = lay_of(&a, dt_array(&tc, half, f), &nats, &err);
  check(t, !l && strstr(err.data, "N/2"), "inexact size", err.data);
  buf_clear(&err);
  /* an idx[n] is an int in 0 <= v < n (a gather's index input) */
  l = lay_of(&a, dt_idx(&tc, n), &nats, &err);
  check(t, l && l->kind == LAY_NUM && l->scalar == SC_INT && l->bound == 5 && l->bytes == 4, "idx is a bounded int",
        err.data);
  arena_free(&a);
}

/* ---- comparison and PRNG ---- */

static void compare(Tester *t, DpiaMem *mem) {
  Arena a;
  arena_init(&a, mem);
  Comparison c;
  double ref[5] = {1, -2, 3, 4, 0.5};
  double out[5];

  memcpy(out, ref, sizeof out);
  compare_values(out, ref, 5, 1e-4, &c);
  check(t, c.ok && c.rel_error == 0 && c.worst == -1 && c.nan_count == 0, "identical values", "");

  out[2] = 3 * (1 + 1e-6);
  compare_values(out, ref, 5, 1e-4, &c);
  check(t, c.ok && c.rel_error > 0 && c.rel_error < 1e-6 && c.worst == 2, "small error within the float bound", "");
  compare_values(out, ref, 5, 1e-12, &c);
  check(t, !c.ok, "small error beyond the double bound", "");

  /* relative error is the ratio of 2-norms: ||(0,0,0,0,1)|| / sqrt(30.25) */
  memcpy(out, ref, sizeof out);
  out[4] = 1.5;
  out[3] = 4.5;
  compare_values(out, ref, 5, 1e-4, &c);
  check(t, !c.ok && fabs(c.rel_error - sqrt(1.25) / sqrt(30.25)) < 1e-15, "2-norm relative error", "");
  check(t, c.worst == 4 && c.worst_out == 1.5 && c.worst_ref == 0.5, "worst element has the largest relative difference",
        "");

  memcpy(out, ref, sizeof out);
  out[1] = NAN;
  out[3] = NAN;
  out[0] = 100;
  compare_values(out, ref, 5, 1e-4, &c);
  Buf rep;
  buf_init(&rep, &a);
  compare_report(&c, &rep);
  check(t, !c.ok && c.nan_count == 2 && c.worst == 1, "NaN (unwritten) elements are reported first", rep.data);
  check(t, strstr(rep.data, "element 1 is NaN") != NULL, "NaN report", rep.data);

  /* an all-zero reference shows nothing (issue 40: SHOC MD with a cutoff
   * no input reaches): the results agree, but run --check must not say ok */
  double zref[3] = {0, 0, 0}, zout[3] = {0, 0, 0};
  compare_values(zout, zref, 3, 1e-4, &c);
  buf_clear(&rep);
  compare_report(&c, &rep);
  check(t, c.agree && c.vacuous && !c.ok && c.ref_all_zero, "zero reference, zero result: agree, but vacuous",
        rep.data);
  check(t, strstr(rep.data, "the reference is 0 at all 3 elements") && strstr(rep.data, "--seed") &&
               !strstr(rep.data, "ok"),
        "report of a vacuous check", rep.data);
  zout[1] = 1e-3;
  compare_values(zout, zref, 3, 1e-4, &c);
  check(t, !c.ok && !c.agree && !c.vacuous && c.worst == 1, "zero reference: absolute error", "");
  double pref[3] = {0, 2, 0}, pout[3] = {0, 2, 0};
  compare_values(pout, pref, 3, 1e-4, &c);
  check(t, c.ok && !c.vacuous, "a reference with one non-zero element is a real check", "");

  double nref[2] = {NAN, 1}, nout[2] = {NAN, 1};
  compare_values(nout, nref, 2, 1e-12, &c);
  buf_clear(&rep);
  compare_report(&c, &rep);
  /* a NaN reference means inputs outside the program's domain: no check
   * passes there, not even an all-NaN output */
  check(t, !c.ok && c.ref_nonfinite == 0 && strstr(rep.data, "the reference is not finite at element 0") &&
               strstr(rep.data, "--inputs=positive"),
        "NaN where the reference is NaN is not a pass", rep.data);
  check(t, c.agree && c.vacuous, "... though the values agree (the semantic check's question)", "");
  double allnan[2] = {NAN, NAN}, fref[2] = {2, 1};
  compare_values(allnan, fref, 2, 1e-4, &c);
  check(t, !c.ok && c.ref_nonfinite == -1 && c.nan_count == 2, "an all-NaN output against a finite reference fails",
        "");
  nout[0] = 1;
  compare_values(nout, nref, 2, 1e-12, &c);
  check(t, !c.ok && c.worst == 0, "a number where the reference is NaN does not", "");
  double iref[2] = {INFINITY, 1}, iout[2] = {1, 1};
  compare_values(iout, iref, 2, 1e-12, &c);
  check(t, !c.ok && c.worst == 0, "a number where the reference is inf does not", "");

  buf_clear(&rep);
  memcpy(out, ref, sizeof out);
  out[3] = 5;
  compare_values(out, ref, 5, 1e-4, &c);
  compare_report(&c, &rep);
  check(t, strstr(rep.data, "exceeds the bound") && strstr(rep.data, "element 3: got 5, expected 4"),
        "report of an exceeded bound", rep.data);

  /* bounds by type */
  TypeCtx tc;
  type_ctx_init(&tc, &a);
  NatValues none = {0, NULL, NULL};
  Buf err;
  buf_init(&err, &a);
  check(t, compare_bound(lay_of(&a, tc.t_float, &none, &err)) == COMPARE_BOUND_FLOAT, "float bound", "");
  check(t, compare_bound(lay_of(&a, tc.t_double, &none, &err)) == COMPARE_BOUND_DOUBLE, "double bound", "");
  check(t, compare_bound(lay_of(&a, dt_pair(&tc, tc.t_double, tc.t_float), &none, &err)) == COMPARE_BOUND_FLOAT,
        "a float anywhere gives the float bound", "");

  /* PRNG: reproducible, in range, never near zero, both signs */
  Rng r1, r2, r3;
  rng_seed(&r1, 7);
  rng_seed(&r2, 7);
  rng_seed(&r3, 8);
  bool same = true, differ = false, in_range = true;
  int negative = 0, ints_seen[2 * RNG_INT_RANGE + 1] = {0};
  double sum = 0;
  enum { SAMPLES = 200000 };
  for (int k = 0; k < SAMPLES; k++) {
    double x = rng_value(&r1), y = rng_value(&r2), z = rng_value(&r3);
    same = same && x == y;
    differ = differ || x != z;
    in_range = in_range && x >= -1 && x < 1 && fabs(x) >= RNG_MIN_MAGNITUDE;
    negative += x < 0;
    sum += x;
    int i = rng_int(&r1);
    in_range = in_range && i != 0 && i >= -RNG_INT_RANGE && i <= RNG_INT_RANGE;
    if (i >= -RNG_INT_RANGE && i <= RNG_INT_RANGE) ints_seen[i + RNG_INT_RANGE]++;
    (void)rng_int(&r2);
  }
  check(t, same, "same seed, same values", "");
  check(t, differ, "different seed, different values", "");
  check(t, in_range, "values in [-1, 1) away from 0, ints non-zero in range", "");
  check(t, negative > SAMPLES * 0.45 && negative < SAMPLES * 0.55 && fabs(sum / SAMPLES) < 0.01,
        "values are balanced around 0", "");
  bool all_ints = ints_seen[RNG_INT_RANGE] == 0;
  for (int i = -RNG_INT_RANGE; i <= RNG_INT_RANGE; i++)
    if (i != 0) all_ints = all_ints && ints_seen[i + RNG_INT_RANGE] > SAMPLES / (4 * RNG_INT_RANGE);
  check(t, all_ints, "every non-zero int in range appears, zero never", "");

  /* rng_fill by lane type: (float, int) pairs and bools */
  const Lay *pl = lay_of(&a, dt_array(&tc, size_const(&tc.sizes, 100), dt_pair(&tc, tc.t_float, tc.t_int)), &none, &err);
  double *vals = NEWARRAY(&a, double, pl->flat);
  rng_fill(&r1, pl, vals);
  bool typed = true;
  for (int k = 0; k < 100; k++) typed = typed && vals[2 * k + 1] == trunc(vals[2 * k + 1]) && fabs(vals[2 * k]) <= 1;
  for (int k = 0; k < 100; k++) typed = typed && vals[2 * k] == (float)vals[2 * k];
  check(t, typed, "rng_fill: float lanes in [-1, 1] and floats, int lanes integers", "");
  arena_free(&a);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: interp_test units|errors|samples DIR|layout|compare|precision\n");
    return 2;
  }
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    printf("FAIL out of memory\n");
    return 1;
  }
  Tester t = {0, 0};
  const char *mode = argv[1];
  if (strcmp(mode, "units") == 0) units(&t, &mem);
  else if (strcmp(mode, "errors") == 0) errors(&t, &mem);
  else if (strcmp(mode, "samples") == 0 && argc == 3) samples(&t, &mem, argv[2]);
  else if (strcmp(mode, "layout") == 0) layout(&t, &mem);
  else if (strcmp(mode, "compare") == 0) compare(&t, &mem);
  else if (strcmp(mode, "precision") == 0) precision(&t, &mem);
  else {
    fprintf(stderr, "interp_test: unknown mode %s\n", mode);
    return 2;
  }
  printf("interp_test %s: %d checks, %d failed\n", mode, t.checks, t.failures);
  return t.failures ? 1 : 0;
}
