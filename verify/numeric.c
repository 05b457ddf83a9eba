/* numeric.c: the numbers of the interpreters (numeric.h). */
#include "numeric.h"

#include <math.h>

/* an int64 for integer arithmetic, or false when x is not finite or out of
 * range */
static bool to_i64(double x, int64_t *out) {
  if (!(x > -9.2e18 && x < 9.2e18)) return false;
  *out = (int64_t)x;
  return true;
}

double num_arith(BinOp op, bool is_int, double x, double y) {
  int64_t a, b;
  switch (op) {
  case BIN_ADD: return x + y;
  case BIN_SUB: return x - y;
  case BIN_MUL: return x * y;
  case BIN_DIV:
    if (!is_int) return x / y;
    if (!to_i64(x, &a) || !to_i64(y, &b) || b == 0) return NAN;
    return (double)(a / b);
  case BIN_MOD:
    if (!is_int) return fmod(x, y);
    if (!to_i64(x, &a) || !to_i64(y, &b) || b == 0) return NAN;
    return (double)(a % b);
  case BIN_LT: return x < y;
  case BIN_LE: return x <= y;
  case BIN_GT: return x > y;
  case BIN_GE: return x >= y;
  case BIN_EQ: return x == y;
  case BIN_NE: return x != y;
  case BIN_AND: return x != 0 && y != 0;
  case BIN_OR: return x != 0 || y != 0;
  case BIN_COUNT: break;
  }
  INTERNAL("bad binary operator %d", (int)op);
}

static int max_width(Num a, Num b) { return a.width > b.width ? a.width : b.width; }

int num_binop(BinOp op, bool is_int, Num a, Num b, double *out) {
  int w = max_width(a, b);
  /* OpenCL C: a comparison of vectors gives -1 (every bit set) in a lane
   * where it holds, a comparison of scalars 1 (docs/language.md section
   * 19) */
  double yes = w > 1 && op >= BIN_LT && op <= BIN_NE ? -1.0 : 1.0;
  for (int j = 0; j < w; j++) out[j] = num_arith(op, is_int, num_lane(a, j), num_lane(b, j)) * yes;
  return w;
}

int num_select(Num mask, Num a, Num b, double *out) {
  int w = max_width(a, b);
  for (int j = 0; j < w; j++) out[j] = num_lane(mask, j) < 0 ? num_lane(a, j) : num_lane(b, j);
  return w;
}

int num_unop(char unop, Num x, double *out) {
  for (int j = 0; j < x.width; j++) out[j] = unop == '-' ? -num_lane(x, j) : (double)(num_lane(x, j) == 0);
  return x.width;
}

int num_literal(const Phrase *p, double *out) {
  const DataType *t = dt_resolve(p->type->data);
  if (t->kind == DT_IDX) return num_broadcast((double)p->lit_int, 1, out); /* idx nbh 4 */
  if (t->kind != DT_SCALAR) return 0;
  double x = p->lit_is_float ? p->lit_float : (double)p->lit_int;
  if (t->scalar == SC_FLOAT) x = (float)x; /* the kernel's constant (interp.c, precision rule) */
  return num_broadcast(x, t->width, out);
}

int num_broadcast(double x, int64_t k, double *out) {
  ASSERT(k >= 1 && k <= NUM_MAX_LANES);
  for (int64_t j = 0; j < k; j++) out[j] = x;
  return (int)k;
}

typedef double (*Math1)(double);

static double rsqrt(double x) { return 1.0 / sqrt(x); }

static int lanewise1(Num x, Math1 fn, double *out) {
  for (int j = 0; j < x.width; j++) out[j] = fn(num_lane(x, j));
  return x.width;
}

/* A conversion as the device does it (interp.c, precision rule): the
 * argument held in its own type, then converted.  (float)x of a double
 * beyond the float range is infinity (C11 Annex F, IEC 60559, as the
 * device's conversion). */
static int convert(ScalarKind from, ScalarKind to, Num x, double *out) {
  for (int j = 0; j < x.width; j++) {
    double v = num_lane(x, j);
    if (from == SC_FLOAT) v = (float)v;
    out[j] = to == SC_FLOAT ? (double)(float)v : to == SC_INT ? trunc(v) : v;
  }
  return x.width;
}

double num_clamp_index(double x, int64_t n) {
  return x < 0 ? 0 : x > (double)(n - 1) ? (double)(n - 1) : x;
}

void num_clamp_range(double lo, double hi, int64_t n, int64_t *from, int64_t *to) {
  *from = lo < 0 ? 0 : lo > (double)n ? n : (int64_t)lo;
  *to = hi < (double)*from ? *from : hi > (double)n ? n : (int64_t)hi;
}

int num_prim_arity(Prim prim) {
  PrimFamily f = prim_family(prim);
  return f == PFAM_MATH || f == PFAM_CONVERT ? prim_arity_of(prim) : 0;
}

/* the scalar type of a conversion's argument (i == 0) or result (i == 1) */
static ScalarKind conversion_scalar(const Phrase *p, int i) {
  const PhraseType *t = p->type;
  ASSERT(t->kind == PT_FN || t->kind == PT_FN_P);
  t = i == 0 ? t->fst : t->snd;
  ASSERT(t->kind == PT_EXP);
  const DataType *d = dt_resolve(t->data);
  return d->kind == DT_IDX ? SC_INT : d->scalar; /* toFloat i: an index is an int */
}

int num_prim(const Phrase *p, const Num *args, double *out) {
  Prim prim = p->prim;
  DPIA_EXHAUSTIVE_BEGIN
  switch (prim) {
  case PRIM_FABS: return lanewise1(args[0], fabs, out);
  case PRIM_SQRT: return lanewise1(args[0], sqrt, out);
  case PRIM_RSQRT: return lanewise1(args[0], rsqrt, out);
  case PRIM_EXP: return lanewise1(args[0], exp, out);
  case PRIM_LOG: return lanewise1(args[0], log, out);
  case PRIM_SIN: return lanewise1(args[0], sin, out);
  case PRIM_COS: return lanewise1(args[0], cos, out);
  case PRIM_FLOOR: return lanewise1(args[0], floor, out);
  case PRIM_CEIL: return lanewise1(args[0], ceil, out);
  PRIM_CASES_CONVERT:
    return convert(conversion_scalar(p, 0), conversion_scalar(p, 1), args[0], out);
  case PRIM_MIN:
  case PRIM_MAX:
  case PRIM_POW: {
    Num a = args[0], b = args[1];
    int w = max_width(a, b);
    for (int j = 0; j < w; j++) {
      double x = num_lane(a, j), y = num_lane(b, j);
      out[j] = prim == PRIM_MIN ? fmin(x, y) : prim == PRIM_MAX ? fmax(x, y) : pow(x, y);
    }
    return w;
  }
  case PRIM_FMA: {
    Num a = args[0], b = args[1], c = args[2];
    int w = max_width(a, b);
    if (c.width > w) w = c.width;
    for (int j = 0; j < w; j++) out[j] = fma(num_lane(a, j), num_lane(b, j), num_lane(c, j));
    return w;
  }
  /* not numeric built-ins (num_prim_arity is 0); a foreign function is
   * run by the interpreters (foreign.h) */
  PRIM_CASES_FOREIGN:
  PRIM_CASES_MAP:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  PRIM_CASES_VIEW:
  PRIM_CASES_MEMORY:
  PRIM_CASES_SCALAR:
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: break;
  }
  DPIA_EXHAUSTIVE_END
  INTERNAL("primitive %s is not a numeric built-in", prim_info[prim].name);
}
