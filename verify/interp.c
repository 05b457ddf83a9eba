/* interp.c: the reference interpreter of functional DPIA (interp.h).
 *
 * A value is a number (a scalar or a vector of doubles), a pair, an array
 * or a function.  An array is an index function (paper section 5.1): a
 * buffer of doubles in the host layout, or a view of other arrays (zip,
 * split, join, transpose, slide, pads, reorderStride, take, drop, asVector,
 * asScalar, the two halves of unzip) that maps an index to the element without copying anything.
 * Indexing never evaluates program code: only map (into a fresh buffer)
 * and reduce (into an accumulator buffer) apply functions, and both do it
 * as soon as they are applied, so every element of a map is computed
 * exactly once however often it is read.
 *
 * Memory.  Evaluation allocates small values all the time.  They live in a
 * scratch stack (chunks taken from the arena and reused): map and reduce
 * mark the stack before each element and release it once the element's
 * result is stored as doubles in their buffer, so a kernel over millions of
 * elements runs in memory proportional to its buffers, not to its work.
 * Only the stored doubles outlive an element, which is what makes the
 * release safe.
 *
 * Precision (spec section 11: "evaluating in double precision", compared
 * with a relative bound of 1e-4 for float and 1e-12 for double).  The rule:
 * the reference computes in double precision, but on exactly the values the
 * device holds wherever the program fixes a representation, and nowhere
 * else:
 *   - inputs: a float lane is what the device's buffer holds, the input
 *     rounded to float (int and bool lanes as lay_pack stores them):
 *     interp_run rounds every input by lay_round (rng_fill already makes
 *     them exact);
 *   - literals of type float are the float constant the kernel contains;
 *   - a conversion (toFloat, toInt, toDouble) takes its argument as the
 *     device holds it (a float argument rounded to float) and gives what
 *     the device's conversion gives: toFloat rounds to float, toInt
 *     truncates, toDouble is exact.
 * Float arithmetic itself (+ - * / % and the math built-ins on float) is
 * evaluated in double: that difference is the device's float error, which
 * the float bound measures.  So a result that no float arithmetic reaches
 * (double arithmetic on float inputs, toDouble (toFloat x)) is reproduced
 * to double precision and held to the double bound, and one that float
 * arithmetic may reach is held to the float bound whatever its type
 * (interp_bound).  Without the rounding of inputs and conversions, a double
 * result of a float input differed by the input's rounding (~1e-8) and
 * failed the double bound (tests/diff/regress/float_input_double_result.dpia).
 *
 * Errors in the input (nat values that violate a precondition, inputs of
 * the wrong size, an imperative primitive) longjmp to interp_run with a
 * message; a value that contradicts its checked type is a bug (INTERNAL). */
#include "interp.h"

#include "foreign.h"
#include "numeric.h"
#include "scratch.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* ---- values ---- */

typedef enum ValKind { V_NUM, V_PAIR, V_ARR, V_FUN } ValKind;

typedef struct Arr Arr;
typedef struct Fun Fun;
typedef struct Val Val;

struct Val {
  ValKind kind;
  int width; /* V_NUM: lanes (1 for a scalar) */
  union {
    double s;          /* V_NUM of width 1 */
    const double *v;   /* V_NUM of width > 1 */
    const Val *pair;   /* V_PAIR: pair[0], pair[1] */
    const Arr *arr;    /* V_ARR */
    const Fun *fun;    /* V_FUN */
  };
};

typedef enum ArrKind {
  A_BUF,        /* data, lay: element i at data + i * lay->flat */
  A_SLICE,      /* src, k: element i is src[k + i] */
  A_ZIP,        /* src, src2: (src[i], src2[i]) */
  A_SPLIT,      /* src, k: a slice of k elements at i * k */
  A_JOIN,       /* src, m: src[i / m][i % m] */
  A_TRANSPOSE,  /* src: element i is column i of src */
  A_COLUMN,     /* src, k: element j is src[j][k] */
  A_SLIDE,      /* src, k, m: a slice of k (window) elements at i * m (step) */
  A_PAD_CLAMP,  /* src, k: src[clamp(i - k, 0, src->n - 1)] */
  A_PAD_CST,    /* src, k, cst: src[i - k] inside, cst outside */
  A_REORDER,    /* src, k, m: src[i / m + k * (i % m)], m = n / k */
  A_AS_VECTOR,  /* src, k: lanes src[i * k .. i * k + k - 1] */
  A_AS_SCALAR,  /* src, k: lane i % k of src[i / k] */
  A_INDICES,    /* element i is i (indices n) */
  A_UNZIP,      /* src, k: component k (0 or 1) of the pair src[i] (unzip) */
  A_SCATTER,    /* src, data: element j is src[data[j]], data the inverse of scatter's permutation */
  A_TRIANGLE,   /* src: element i is row i of triangle src, an A_TRI_ROW */
  A_TRI_ROW,    /* src, k: element j is the pair (src[k], src[k + j]) */
  A_MIRROR,     /* src: element i is row i of mirror src, an A_MIRROR_ROW */
  A_MIRROR_ROW, /* src, k: element j is src[min(k, j)][max(k, j)] */
  A_ROWS,       /* rows: element i is rows[i] (a dependent map's rows, each of its own type) */
} ArrKind;

struct Arr {
  ArrKind kind;
  int64_t n;
  const double *data; /* A_BUF */
  const Lay *lay;     /* A_BUF: the element layout */
  const Arr *src, *src2;
  int64_t k, m;
  Val cst; /* A_PAD_CST */
  const Val *rows; /* A_ROWS */
};

typedef struct Env Env;
struct Env {
  const Binder *binder;
  Val val;
  const Env *next;
};

/* A closure (lam, env), or a primitive applied to fewer arguments than its
 * arity (no functional primitive takes more than 3). */
enum { MAX_PRIM_ARGS = 16 }; /* float16 a b ... p, the most */
_Static_assert((int)FOREIGN_MAX_PARAMS <= (int)MAX_PRIM_ARGS, "a foreign function's arguments fit a Fun");
struct Fun {
  const Phrase *lam;
  const Env *env;
  const Phrase *prim;
  int arity, nargs;
  Val args[]; /* arity of them: a Fun is allocated with room for its arguments */
};

/* ---- the interpreter state and its scratch stack ---- */

typedef struct LayEntry {
  const DataType *type;
  const Lay *lay;
} LayEntry;

typedef struct Interp {
  Arena *arena;
  const NatValues *nats;
  int nrows; /* the first names of nats are dependent maps' rows (run_map) */
  Buf *err;
  jmp_buf *fail;
  Scratch scratch;
  LayEntry *lays; /* layouts by type: open addressing, cap a power of 2 */
  size_t nlays, cap_lays;
  ForeignFns *foreign; /* the foreign functions called so far, loaded */
  /* the first int operation whose exact value leaves the 32-bit range
   * (src NULL: none): OpenCL C leaves signed overflow undefined, where
   * this interpreter computes the exact value */
  Span int_overflow;
  /* why a foreign function could not run on the host (the program's C,
   * not a fault of the interpreter), or NULL */
  const char *foreign_failure;
  /* the invariant computations (see find_invariants): open addressing by
   * phrase, cap a power of 2 */
  struct MemoEntry *memo;
  size_t nmemo, cap_memo;
} Interp;

static void *salloc(Interp *I, size_t size) { return scratch_alloc(&I->scratch, size); }

DPIA_NORETURN DPIA_PRINTF(3, 4) static void fail(Interp *I, Span span, const char *fmt, ...) {
  if (span.src) {
    uint32_t line, col;
    source_position(span.src, span.begin, &line, &col);
    emit(I->err, "%s:%u:%u: ", span.src->name, line, col);
  }
  buf_puts(I->err, "reference interpreter: ");
  va_list ap;
  va_start(ap, fmt);
  vemit(I->err, fmt, ap);
  va_end(ap);
  longjmp(*I->fail, 1);
}

/* The layout of t (sizes evaluated), made once per type; each time for a
 * type whose sizes name a dependent map's row, which differs by row */
static const Lay *layout(Interp *I, const DataType *t, Span span) {
  for (int r = 0; r < I->nrows; r++) {
    if (!dt_has_size_var(t, I->nats->names[r])) continue;
    Buf why;
    buf_init(&why, I->arena);
    const Lay *l = lay_of(I->arena, t, I->nats, &why);
    if (!l) fail(I, span, "%s", why.data);
    return l;
  }
  if (I->nlays * 2 >= I->cap_lays) {
    size_t cap = I->cap_lays ? I->cap_lays * 2 : 64;
    LayEntry *slots = NEWARRAY(I->arena, LayEntry, cap);
    for (size_t i = 0; i < I->cap_lays; i++) {
      if (!I->lays[i].type) continue;
      size_t h = ((uintptr_t)I->lays[i].type >> 4) & (cap - 1);
      while (slots[h].type) h = (h + 1) & (cap - 1);
      slots[h] = I->lays[i];
    }
    I->lays = slots;
    I->cap_lays = cap;
  }
  size_t h = ((uintptr_t)t >> 4) & (I->cap_lays - 1);
  while (I->lays[h].type) {
    if (I->lays[h].type == t) return I->lays[h].lay;
    h = (h + 1) & (I->cap_lays - 1);
  }
  Buf why;
  buf_init(&why, I->arena);
  const Lay *l = lay_of(I->arena, t, I->nats, &why);
  if (!l) fail(I, span, "%s", why.data);
  I->lays[h] = (LayEntry){t, l};
  I->nlays++;
  return l;
}

static int64_t eval_size(Interp *I, Size s, Span span) {
  Buf why;
  buf_init(&why, I->arena);
  int64_t v;
  if (!nat_eval_size(s, I->nats, &v, &why)) fail(I, span, "%s", why.data);
  return v;
}

/* ---- constructing and reading values ---- */

static Val num1(double x) {
  Val v = {.kind = V_NUM, .width = 1};
  v.s = x;
  return v;
}

/* a number of width lanes, copied from lanes[] */
static Val num(Interp *I, int width, const double *lanes) {
  if (width == 1) return num1(lanes[0]);
  double *d = salloc(I, sizeof(double) * (size_t)width);
  memcpy(d, lanes, sizeof(double) * (size_t)width);
  Val v = {.kind = V_NUM, .width = width};
  v.v = d;
  return v;
}

/* v (a number) as numeric.h reads it: its lanes stay where v is */
static Num num_view(const Val *v) { return (Num){v->width, v->width == 1 ? &v->s : v->v}; }

/* lane j of a number; a scalar broadcasts to every lane */
static double lane(Val v, int j) { return num_lane(num_view(&v), j); }

static Val pair_val(Interp *I, Val a, Val b) {
  Val *p = salloc(I, sizeof(Val) * 2);
  p[0] = a;
  p[1] = b;
  Val v = {.kind = V_PAIR};
  v.pair = p;
  return v;
}

static Val arr_val(const Arr *a) {
  Val v = {.kind = V_ARR};
  v.arr = a;
  return v;
}

static Arr *new_arr(Interp *I, ArrKind kind, int64_t n) {
  Arr *a = salloc(I, sizeof *a);
  memset(a, 0, sizeof *a);
  a->kind = kind;
  a->n = n;
  return a;
}

static const Arr *buf_arr(Interp *I, const double *data, int64_t n, const Lay *elem) {
  Arr *a = new_arr(I, A_BUF, n);
  a->data = data;
  a->lay = elem;
  return a;
}

/* the value of layout l stored at p */
static Val load(Interp *I, const Lay *l, const double *p) {
  switch (l->kind) {
  case LAY_NUM:
    if (l->width == 1) return num1(p[0]);
    else {
      Val v = {.kind = V_NUM, .width = l->width};
      v.v = p;
      return v;
    }
  case LAY_PAIR: return pair_val(I, load(I, l->fst, p), load(I, l->snd, p + l->fst->flat));
  case LAY_ARRAY: return arr_val(buf_arr(I, p, l->n, l->elem));
  }
  INTERNAL("bad layout kind %d", (int)l->kind);
}

/* elements [off, off + len) of a */
static const Arr *slice(Interp *I, const Arr *a, int64_t off, int64_t len) {
  ASSERT(off >= 0 && len >= 0 && off + len <= a->n);
  if (a->kind == A_BUF) return buf_arr(I, a->data + off * a->lay->flat, len, a->lay);
  Arr *s = new_arr(I, A_SLICE, len);
  if (a->kind == A_SLICE) {
    s->src = a->src;
    s->k = a->k + off;
  } else {
    s->src = a;
    s->k = off;
  }
  return s;
}

static Val arr_index(Interp *I, const Arr *a, int64_t i);

static const Arr *index_arr(Interp *I, const Arr *a, int64_t i) {
  Val v = arr_index(I, a, i);
  if (v.kind != V_ARR) INTERNAL("element of a nested array is not an array");
  return v.arr;
}

static Val arr_index(Interp *I, const Arr *a, int64_t i) {
  if (i < 0 || i >= a->n) INTERNAL("index %" PRId64 " out of range [0, %" PRId64 ")", i, a->n);
  switch (a->kind) {
  case A_BUF: return load(I, a->lay, a->data + i * a->lay->flat);
  case A_SLICE: return arr_index(I, a->src, a->k + i);
  case A_ZIP: return pair_val(I, arr_index(I, a->src, i), arr_index(I, a->src2, i));
  case A_SPLIT: return arr_val(slice(I, a->src, i * a->k, a->k));
  case A_JOIN: return arr_index(I, index_arr(I, a->src, i / a->m), i % a->m);
  case A_TRANSPOSE: {
    Arr *c = new_arr(I, A_COLUMN, a->src->n);
    c->src = a->src;
    c->k = i;
    return arr_val(c);
  }
  case A_COLUMN: return arr_index(I, index_arr(I, a->src, i), a->k);
  case A_SLIDE: return arr_val(slice(I, a->src, i * a->m, a->k));
  case A_PAD_CLAMP: {
    int64_t j = i - a->k;
    if (j < 0) j = 0;
    if (j > a->src->n - 1) j = a->src->n - 1;
    return arr_index(I, a->src, j);
  }
  case A_PAD_CST: {
    int64_t j = i - a->k;
    if (j < 0 || j >= a->src->n) return a->cst;
    return arr_index(I, a->src, j);
  }
  case A_REORDER: return arr_index(I, a->src, i / a->m + a->k * (i % a->m));
  case A_INDICES: return num1((double)i);
  case A_TRIANGLE: {
    Arr *r = new_arr(I, A_TRI_ROW, a->src->n - i);
    r->src = a->src;
    r->k = i;
    return arr_val(r);
  }
  case A_TRI_ROW: return pair_val(I, arr_index(I, a->src, a->k), arr_index(I, a->src, a->k + i));
  case A_SCATTER: return arr_index(I, a->src, (int64_t)a->data[i]);
  case A_MIRROR: {
    Arr *r = new_arr(I, A_MIRROR_ROW, a->src->n);
    r->src = a->src;
    r->k = i;
    return arr_val(r);
  }
  case A_MIRROR_ROW: {
    /* the upper triangle's element, read from either side of the diagonal */
    int64_t lo = a->k < i ? a->k : i, hi = a->k < i ? i : a->k;
    Val row = arr_index(I, a->src, lo);
    if (row.kind != V_ARR) INTERNAL("mirror of an array whose element is not an array");
    return arr_index(I, row.arr, hi);
  }
  case A_ROWS: return a->rows[i];
  case A_UNZIP: {
    Val v = arr_index(I, a->src, i);
    if (v.kind != V_PAIR) INTERNAL("unzip of an array whose element is not a pair");
    return v.pair[a->k];
  }
  case A_AS_VECTOR: {
    double *lanes = salloc(I, sizeof(double) * (size_t)a->k);
    for (int64_t j = 0; j < a->k; j++) {
      Val x = arr_index(I, a->src, i * a->k + j);
      if (x.kind != V_NUM || x.width != 1) INTERNAL("asVector of a non-scalar array");
      lanes[j] = x.s;
    }
    Val v = {.kind = V_NUM, .width = (int)a->k};
    v.v = lanes;
    return v;
  }
  case A_AS_SCALAR: {
    Val x = arr_index(I, a->src, i / a->k);
    if (x.kind != V_NUM || x.width != a->k) INTERNAL("asScalar of an array that is not of %" PRId64 "-vectors", a->k);
    return num1(x.v[i % a->k]);
  }
  }
  INTERNAL("bad array kind %d", (int)a->kind);
}

/* Store v, of layout l, as l->flat doubles at dst. */
static void store(Interp *I, Val v, const Lay *l, double *dst) {
  switch (l->kind) {
  case LAY_NUM:
    if (v.kind != V_NUM || v.width != l->width) INTERNAL("value does not match its type (a number of width %d)", l->width);
    for (int j = 0; j < l->width; j++) dst[j] = lane(v, j);
    return;
  case LAY_PAIR:
    if (v.kind != V_PAIR) INTERNAL("value does not match its type (a pair)");
    store(I, v.pair[0], l->fst, dst);
    store(I, v.pair[1], l->snd, dst + l->fst->flat);
    return;
  case LAY_ARRAY: {
    if (v.kind != V_ARR || v.arr->n != l->n)
      INTERNAL("value does not match its type (an array of %" PRId64 " elements)", l->n);
    const Arr *a = v.arr;
    if (a->kind == A_BUF && a->lay->flat == l->elem->flat) {
      if (l->flat > 0) memmove(dst, a->data, sizeof(double) * (size_t)l->flat);
      return;
    }
    for (int64_t i = 0; i < a->n; i++) {
      ScratchMark m = scratch_mark(&I->scratch);
      store(I, arr_index(I, a, i), l->elem, dst + i * l->elem->flat);
      scratch_release(&I->scratch, m);
    }
    return;
  }
  }
}

/* ---- evaluation ---- */

static Val eval(Interp *I, const Phrase *p, const Env *env);

/* The data type of argument i (0-based) of a primitive, or of its result
 * after all arity arguments (i == arity). */
static const DataType *prim_data(const Phrase *prim, int i) {
  const PhraseType *t = prim->type;
  for (int j = 0; j < i; j++) t = t->snd;
  if (t->kind == PT_FN) t = t->fst;
  ASSERT(t->kind == PT_EXP);
  return dt_resolve(t->data);
}

static int prim_arity(const Phrase *prim) {
  int n = 0;
  for (const PhraseType *t = prim->type; t->kind == PT_FN; t = t->snd) n++;
  return n;
}

static const Arr *need_arr(Val v, const Phrase *where) {
  if (v.kind != V_ARR) INTERNAL("%s expects an array", where->kind == PH_PRIM ? prim_info[where->prim].name : "phrase");
  return v.arr;
}

static Val need_num(Val v, const Phrase *where) {
  if (v.kind != V_NUM) INTERNAL("%s expects a number", where->kind == PH_PRIM ? prim_info[where->prim].name : "operator");
  return v;
}

static Val run_prim(Interp *I, const Phrase *p, const Val *args);

static Val apply(Interp *I, Val f, Val arg) {
  if (f.kind != V_FUN) INTERNAL("application of a value that is not a function");
  const Fun *fn = f.fun;
  if (fn->lam) {
    Env *e = salloc(I, sizeof *e);
    *e = (Env){fn->lam->lam_binder, arg, fn->env};
    return eval(I, fn->lam->body, e);
  }
  Val args[MAX_PRIM_ARGS];
  memcpy(args, fn->args, sizeof(Val) * (size_t)fn->nargs);
  args[fn->nargs] = arg;
  if (fn->nargs + 1 == fn->arity) return run_prim(I, fn->prim, args);
  Fun *g = salloc(I, sizeof *g + sizeof(Val) * (size_t)fn->arity);
  memcpy(g, fn, sizeof *g + sizeof(Val) * (size_t)fn->nargs);
  g->args[g->nargs++] = arg;
  Val v = {.kind = V_FUN};
  v.fun = g;
  return v;
}

/* a dependent map whose rows' types use the row (docs/language.md section
 * 30.2): each row's value as its function gives it, kept (not laid out:
 * the rows differ in size) */
static Val run_dep_rows(Interp *I, const Phrase *p, Val f, const Arr *src) {
  const NatValues *outer = I->nats;
  NatRow row = nat_row(I->arena, outer, p->dep_index);
  I->nats = &row.nats;
  I->nrows++;
  Val *rows = salloc(I, sizeof(Val) * (size_t)(src->n ? src->n : 1));
  for (int64_t i = 0; i < src->n; i++) {
    *row.value = i;
    rows[i] = apply(I, f, arr_index(I, src, i));
  }
  I->nats = outer;
  I->nrows--;
  Arr *r = new_arr(I, A_ROWS, src->n);
  r->rows = rows;
  return arr_val(r);
}

/* depJoin: the rows one after another, laid out as the joined array */
static Val run_dep_join(Interp *I, const Phrase *p, const Arr *rows) {
  const Lay *fl = layout(I, prim_data(p, 1), p->span);
  double *out = salloc(I, sizeof(double) * (size_t)(fl->flat ? fl->flat : 1));
  int64_t at = 0;
  for (int64_t i = 0; i < rows->n; i++) {
    const Arr *r = index_arr(I, rows, i);
    if (at + r->n > fl->n) INTERNAL("depJoin's rows are more than its count");
    for (int64_t j = 0; j < r->n; j++, at++) store(I, arr_index(I, r, j), fl->elem, out + at * fl->elem->flat);
  }
  if (at != fl->n) INTERNAL("depJoin's rows are fewer than its count");
  return arr_val(buf_arr(I, out, fl->n, fl->elem));
}

static Val run_map(Interp *I, const Phrase *p, Val f, Val xs) {
  const Arr *src = need_arr(xs, p);
  if (p->dep_index && prim_data(p, 2)->kind == DT_DEPARRAY) return run_dep_rows(I, p, f, src);
  const Lay *rl = layout(I, prim_data(p, 2), p->span);
  if (rl->kind != LAY_ARRAY || rl->n != src->n) INTERNAL("map result size differs from its input's");
  const Lay *el = rl->elem;
  double *out = salloc(I, sizeof(double) * (size_t)rl->flat);
  /* a dependent map: f's sizes use its row, the element's index */
  const NatValues *outer = I->nats;
  NatRow row = {{0}, NULL};
  if (p->dep_index) {
    row = nat_row(I->arena, outer, p->dep_index);
    I->nats = &row.nats;
    I->nrows++;
  }
  for (int64_t i = 0; i < src->n; i++) {
    ScratchMark m = scratch_mark(&I->scratch);
    if (row.value) *row.value = i;
    store(I, apply(I, f, arr_index(I, src, i)), el, out + i * el->flat);
    scratch_release(&I->scratch, m);
  }
  I->nats = outer;
  if (p->dep_index) I->nrows--;
  return arr_val(buf_arr(I, out, src->n, el));
}

/* fold left: acc = init; acc = f x_i acc for i = from, from+step, ...
 * below to; al the accumulator's layout */
static Val fold(Interp *I, const Lay *al, Val f, Val init, const Arr *src, int64_t from, int64_t to, int64_t step) {
  size_t bytes = sizeof(double) * (size_t)al->flat;
  double *cur = salloc(I, bytes), *next = salloc(I, bytes);
  ScratchMark m = scratch_mark(&I->scratch);
  store(I, init, al, cur);
  scratch_release(&I->scratch, m);
  for (int64_t i = from; i < to; i += step) {
    m = scratch_mark(&I->scratch);
    Val acc = load(I, al, cur);
    store(I, apply(I, apply(I, f, arr_index(I, src, i)), acc), al, next);
    scratch_release(&I->scratch, m);
    double *t = cur;
    cur = next;
    next = t;
  }
  return load(I, al, cur);
}

static Val run_reduce(Interp *I, const Phrase *p, Val f, Val init, Val xs) {
  const Arr *src = need_arr(xs, p);
  return fold(I, layout(I, prim_data(p, 3), p->span), f, init, src, 0, src->n, 1);
}

/* reduceRange s f init lo hi xs: the fold over lo, lo+s, ... below hi,
 * clamped to xs (docs/language.md section 25) */
static Val run_reduce_range(Interp *I, const Phrase *p, const Val *args) {
  const Arr *src = need_arr(args[4], p);
  int64_t from, to;
  num_clamp_range(lane(need_num(args[2], p), 0), lane(need_num(args[3], p), 0), src->n, &from, &to);
  int64_t step = eval_size(I, p->sizes[0], p->span);
  if (step < 1) fail(I, p->span, "reduceRange step %" PRId64 ": it must be at least 1", step);
  return fold(I, layout(I, prim_data(p, 5), p->span), args[0], args[1], src, from, to, step);
}

/* the inclusive scan: element i is the accumulator after step i, each
 * step reading the previous element (init before the first) */
static Val run_scan(Interp *I, const Phrase *p, Val f, Val init, Val xs) {
  const Arr *src = need_arr(xs, p);
  const Lay *rl = layout(I, prim_data(p, 3), p->span);
  if (rl->kind != LAY_ARRAY || rl->n != src->n) INTERNAL("scan result size differs from its input's");
  const Lay *el = rl->elem;
  double *out = salloc(I, sizeof(double) * (size_t)rl->flat), *first = salloc(I, sizeof(double) * (size_t)el->flat);
  ScratchMark m = scratch_mark(&I->scratch);
  store(I, init, el, first);
  scratch_release(&I->scratch, m);
  for (int64_t i = 0; i < src->n; i++) {
    m = scratch_mark(&I->scratch);
    Val acc = load(I, el, i == 0 ? first : out + (i - 1) * el->flat);
    store(I, apply(I, apply(I, f, arr_index(I, src, i)), acc), el, out + i * el->flat);
    scratch_release(&I->scratch, m);
  }
  return arr_val(buf_arr(I, out, src->n, el));
}

/* the windows of size elements, step apart, of a (slide size step a) */
static Val slide(Interp *I, const Phrase *p, const Arr *a, int64_t size, int64_t step) {
  if (size < 1 || step < 1 || a->n < size || (a->n - size) % step != 0)
    fail(I, p->span, "slide %" PRId64 " %" PRId64 " of an array of %" PRId64 " elements: the windows do not fit exactly",
         size, step, a->n);
  Arr *s = new_arr(I, A_SLIDE, (a->n - size) / step + 1);
  s->src = a;
  s->k = size;
  s->m = step;
  return arr_val(s);
}

/* a numeric built-in (numeric.h) */
static Val numeric_prim(Interp *I, const Phrase *p, const Val *args) {
  Num x[NUM_MAX_ARGS];
  for (int j = 0; j < num_prim_arity(p->prim); j++) {
    need_num(args[j], p);
    x[j] = num_view(&args[j]);
  }
  double lanes[NUM_MAX_LANES];
  return num(I, num_prim(p, x, lanes), lanes);
}

/* a foreign function, run as C on the host (foreign.h) */
static Val foreign_prim(Interp *I, const Phrase *p, const Val *args) {
  double x[FOREIGN_MAX_PARAMS], r;
  for (int j = 0; j < p->foreign->nparams; j++) x[j] = lane(need_num(args[j], p), 0);
  Buf why;
  buf_init(&why, I->arena);
  if (!foreign_fns_call(I->foreign, p->foreign, x, &r, &why)) {
    I->foreign_failure = why.data;
    fail(I, p->span, "%s", why.data);
  }
  return num1(r);
}

/* a / x for the static size argument k of p: the element count n must be a
 * multiple of k */
static int64_t exact_div(Interp *I, const Phrase *p, int64_t n, int64_t k) {
  if (k <= 0 || n % k != 0)
    fail(I, p->span, "%s %" PRId64 " of an array of %" PRId64 " elements: the size is not a multiple (check the kernel's preconditions)",
         prim_info[p->prim].name, k, n);
  return n / k;
}

static Val run_prim(Interp *I, const Phrase *p, const Val *args) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p->prim) {
  PRIM_CASES_MAP:
    return run_map(I, p, args[0], args[1]);
  PRIM_CASES_REDUCE:
    return run_reduce(I, p, args[0], args[1], args[2]);
  PRIM_CASES_SCAN:
    return run_scan(I, p, args[0], args[1], args[2]);
  PRIM_CASES_REDUCE_RANGE:
    return run_reduce_range(I, p, args);
  /* slideSeq s f xs is mapSeq f (slide s 1 xs): the reference says what
   * it computes, not how the window is kept */
  PRIM_CASES_WINDOW:
    return run_map(I, p, args[0], slide(I, p, need_arr(args[1], p), eval_size(I, p->sizes[0], p->span), 1));
  case PRIM_ZIP: {
    const Arr *a = need_arr(args[0], p), *b = need_arr(args[1], p);
    if (a->n != b->n) INTERNAL("zip of arrays of different sizes");
    Arr *z = new_arr(I, A_ZIP, a->n);
    z->src = a;
    z->src2 = b;
    return arr_val(z);
  }
  case PRIM_SPLIT: {
    const Arr *a = need_arr(args[0], p);
    int64_t k = eval_size(I, p->sizes[0], p->span);
    Arr *s = new_arr(I, A_SPLIT, exact_div(I, p, a->n, k));
    s->src = a;
    s->k = k;
    return arr_val(s);
  }
  case PRIM_JOIN: {
    const Arr *a = need_arr(args[0], p);
    const DataType *t = prim_data(p, 0);
    int64_t m = eval_size(I, dt_resolve(t->elem)->size, p->span);
    /* a buffer of [m]T rows is a buffer of n*m T's: no view needed */
    if (a->kind == A_BUF && a->lay->kind == LAY_ARRAY && a->lay->n == m)
      return arr_val(buf_arr(I, a->data, a->n * m, a->lay->elem));
    Arr *j = new_arr(I, A_JOIN, a->n * m);
    j->src = a;
    j->m = m;
    return arr_val(j);
  }
  case PRIM_PAIR: return pair_val(I, args[0], args[1]);
  case PRIM_UNZIP: { /* (the firsts of the elements, the seconds), both views */
    const Arr *a = need_arr(args[0], p);
    Arr *half[2];
    for (int k = 0; k < 2; k++) {
      half[k] = new_arr(I, A_UNZIP, a->n);
      half[k]->src = a;
      half[k]->k = k;
    }
    return pair_val(I, arr_val(half[0]), arr_val(half[1]));
  }
  case PRIM_FST:
  case PRIM_SND:
    if (args[0].kind != V_PAIR) INTERNAL("fst/snd of a value that is not a pair");
    return args[0].pair[p->prim == PRIM_FST ? 0 : 1];
  case PRIM_AS_VECTOR: {
    const Arr *a = need_arr(args[0], p);
    int64_t k = eval_size(I, p->sizes[0], p->span);
    Arr *v = new_arr(I, A_AS_VECTOR, exact_div(I, p, a->n, k));
    v->src = a;
    v->k = k;
    return arr_val(v);
  }
  case PRIM_AS_SCALAR: {
    const Arr *a = need_arr(args[0], p);
    const DataType *e = dt_resolve(prim_data(p, 0)->elem);
    ASSERT(e->kind == DT_SCALAR);
    Arr *s = new_arr(I, A_AS_SCALAR, a->n * e->width);
    s->src = a;
    s->k = e->width;
    return arr_val(s);
  }
  case PRIM_TRANSPOSE: {
    const Arr *a = need_arr(args[0], p);
    int64_t m = eval_size(I, dt_resolve(prim_data(p, 0)->elem)->size, p->span);
    Arr *t = new_arr(I, A_TRANSPOSE, m);
    t->src = a;
    return arr_val(t);
  }
  case PRIM_SLIDE:
    return slide(I, p, need_arr(args[0], p), eval_size(I, p->sizes[0], p->span), eval_size(I, p->sizes[1], p->span));
  case PRIM_PAD_CLAMP:
  case PRIM_PAD_CST: {
    bool cst = p->prim == PRIM_PAD_CST;
    const Arr *a = need_arr(args[cst ? 1 : 0], p);
    int64_t l = eval_size(I, p->sizes[0], p->span), r = eval_size(I, p->sizes[1], p->span);
    if (l < 0 || r < 0) fail(I, p->span, "%s with a negative size", prim_info[p->prim].name);
    if (!cst && a->n == 0 && l + r > 0) fail(I, p->span, "padClamp of an empty array has no element to repeat");
    Arr *q = new_arr(I, cst ? A_PAD_CST : A_PAD_CLAMP, l + a->n + r);
    q->src = a;
    q->k = l;
    if (cst) q->cst = args[0];
    return arr_val(q);
  }
  case PRIM_REORDER_STRIDE: {
    const Arr *a = need_arr(args[0], p);
    int64_t s = eval_size(I, p->sizes[0], p->span);
    Arr *q = new_arr(I, A_REORDER, a->n);
    q->src = a;
    q->k = s;
    q->m = exact_div(I, p, a->n, s);
    return arr_val(q);
  }
  case PRIM_TAKE:
  case PRIM_DROP: {
    const Arr *a = need_arr(args[0], p);
    int64_t k = eval_size(I, p->sizes[0], p->span);
    if (k < 0 || k > a->n)
      fail(I, p->span, "%s %" PRId64 " of an array of %" PRId64 " elements", prim_info[p->prim].name, k, a->n);
    return arr_val(p->prim == PRIM_TAKE ? slice(I, a, 0, k) : slice(I, a, k, a->n - k));
  }
  case PRIM_INDICES: return arr_val(new_arr(I, A_INDICES, eval_size(I, p->sizes[0], p->span)));
  case PRIM_TRIANGLE: {
    const Arr *a = need_arr(args[0], p);
    Arr *t = new_arr(I, A_TRIANGLE, a->n);
    t->src = a;
    return arr_val(t);
  }
  case PRIM_DEP_JOIN: return run_dep_join(I, p, need_arr(args[0], p));
  PRIM_CASES_MEMORY:
    return apply(I, args[0], args[1]);
  case PRIM_SELECT: {
    Val mask = need_num(args[0], p);
    if (mask.width == 1) return lane(mask, 0) != 0 ? args[1] : args[2];
    Val a = need_num(args[1], p), b = need_num(args[2], p); /* lane by lane */
    double lanes[NUM_MAX_LANES];
    return num(I, num_select(num_view(&mask), num_view(&a), num_view(&b), lanes), lanes);
  }
  case PRIM_VEC: {
    int64_t k = eval_size(I, p->sizes[0], p->span);
    double lanes[NUM_MAX_LANES];
    return num(I, num_broadcast(lane(need_num(args[0], p), 0), k, lanes), lanes);
  }
  case PRIM_CLAMP_IDX: {
    double x = num_clamp_index(lane(need_num(args[0], p), 0), eval_size(I, p->sizes[0], p->span));
    return num(I, 1, &x);
  }
  case PRIM_LANE: {
    double x = lane(need_num(args[0], p), (int)eval_size(I, p->sizes[0], p->span));
    return num(I, 1, &x);
  }
  PRIM_CASES_VECTOR : {
    int w = prim_arity(p);
    double lanes[NUM_MAX_LANES];
    for (int j = 0; j < w; j++) lanes[j] = lane(need_num(args[j], p), 0);
    return num(I, w, lanes);
  }
  case PRIM_SCATTER: {
    /* element i of xs is element p[i] of the result (docs/language.md
     * section 29): read through the inverse permutation.  p's elements
     * are checked distinct, not trusted: two writes to one element would
     * be a race on the device */
    const Arr *pos = need_arr(args[0], p), *xs = need_arr(args[1], p);
    double *inv = NEWARRAY(I->arena, double, xs->n > 0 ? xs->n : 1);
    for (int64_t j = 0; j < xs->n; j++) inv[j] = -1;
    for (int64_t i = 0; i < xs->n; i++) {
      double v = lane(need_num(arr_index(I, pos, i), p), 0);
      if (!(v >= 0 && v < (double)xs->n))
        fail(I, p->span, "scatter position %.17g (element %" PRId64 ") is out of range for an array of %" PRId64
             " elements", v, i, xs->n);
      if (inv[(int64_t)v] >= 0)
        fail(I, p->span, "scatter positions %.17g and %.17g are both %" PRId64 ": not a permutation",
             inv[(int64_t)v], (double)i, (int64_t)v);
      inv[(int64_t)v] = (double)i;
    }
    Arr *s = new_arr(I, A_SCATTER, xs->n);
    s->src = xs;
    s->data = inv;
    return arr_val(s);
  }
  case PRIM_MIRROR: {
    /* the symmetric square of the upper triangle (docs/language.md section
     * 29.1): the value the device's two stores make, the elements below
     * the diagonal of xs never read */
    Arr *m = new_arr(I, A_MIRROR, need_arr(args[0], p)->n);
    m->src = need_arr(args[0], p);
    return arr_val(m);
  }
  case PRIM_IDX: {
    /* an index read from data (a gather) is checked, not trusted: the
     * device would read out of bounds */
    const Arr *a = need_arr(args[0], p);
    double i = lane(need_num(args[1], p), 0);
    if (!(i >= 0 && i < (double)a->n))
      fail(I, p->span, "index value %.17g is out of range for an array of %" PRId64 " elements", i, a->n);
    return arr_index(I, a, (int64_t)i);
  }
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
    return numeric_prim(I, p, args);
  PRIM_CASES_FOREIGN:
    return foreign_prim(I, p, args);
  /* imperative and intermediate: not in a functional program */
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: break;
  }
  DPIA_EXHAUSTIVE_END
  fail(I, p->span, "primitive %s is not part of the functional language", prim_info[p->prim].name);
}

/* a primitive as a function value (or its result, for a primitive without
 * arguments) */
static Val prim_value(Interp *I, const Phrase *p) {
  if (!(prim_info[p->prim].flags & PF_FUNC) && p->prim != PRIM_IDX) /* idx xs i: element access */
    fail(I, p->span, "primitive %s is not part of the functional language", prim_info[p->prim].name);
  int arity = prim_arity(p);
  if (arity == 0) return run_prim(I, p, NULL);
  if (arity > MAX_PRIM_ARGS) INTERNAL("primitive %s takes %d arguments", prim_info[p->prim].name, arity);
  Fun *f = salloc(I, sizeof *f + sizeof(Val) * (size_t)arity);
  memset(f, 0, sizeof *f);
  f->prim = p;
  f->arity = arity;
  Val v = {.kind = V_FUN};
  v.fun = f;
  return v;
}

static Val literal(Interp *I, const Phrase *p) {
  if (p->lit_nelems > 0) { /* an array literal: its constants, as the kernel's constant array holds them */
    /* an element of vector type is the scalar broadcast (spec section 2) */
    double *data = salloc(I, sizeof(double) * (size_t)p->lit_nelems * NUM_MAX_LANES);
    size_t n = 0;
    for (int i = 0; i < p->lit_nelems; i++) n += (size_t)num_literal(p->lit_elems[i], data + n);
    return load(I, layout(I, p->type->data, p->span), data);
  }
  double lanes[NUM_MAX_LANES];
  if (p->lit_is_size) { /* idx row (N - 1) */
    lanes[0] = (double)eval_size(I, p->lit_size, p->span);
    return num(I, 1, lanes);
  }
  int w = num_literal(p, lanes);
  if (!w) INTERNAL("literal of a non-scalar type");
  return num(I, w, lanes);
}

static Val binop(Interp *I, const Phrase *p, const Env *env) {
  Val a = need_num(eval(I, p->fst, env), p), b = need_num(eval(I, p->snd, env), p);
  const DataType *t = dt_resolve(p->fst->type->data);
  bool is_int = t->kind == DT_IDX || (t->kind == DT_SCALAR && t->scalar == SC_INT);
  double lanes[NUM_MAX_LANES];
  int w = num_binop(p->op, is_int, num_view(&a), num_view(&b), lanes);
  for (int j = 0; is_int && !I->int_overflow.src && j < w; j++)
    if (lanes[j] > (double)INT32_MAX || lanes[j] < (double)INT32_MIN) I->int_overflow = p->span;
  return num(I, w, lanes);
}

/* ---- invariant computations ----
 *
 * Normalisation substitutes let- and def-bound phrases (spec section 2),
 * so in a pipeline such as
 *   let means = mean data in centre data means |> corr
 * the whole of `mean data` is copied into the function of centre's map,
 * and a tree interpreter computed it again for every element: the
 * reference of samples/correlation.dpia grew as M^2 N^2.  A phrase that
 * computes (a map, a reduction ...) and has no free variable bound by a
 * lambda reads nothing but the kernel's inputs, so it has one value for
 * the whole run: its first evaluation stores that value in the arena and
 * every later one reads it back (store and load copy doubles exactly, so
 * the result is the same as recomputing it).  Only such phrases inside a
 * lambda are kept; elsewhere they run once anyway. */

typedef struct MemoEntry {
  const Phrase *p;
  const Lay *lay;
  double *data; /* NULL until the first evaluation */
} MemoEntry;

static MemoEntry *memo_slot(Interp *I, const Phrase *p) {
  size_t h = ((uintptr_t)p >> 4) & (I->cap_memo - 1);
  while (I->memo[h].p && I->memo[h].p != p) h = (h + 1) & (I->cap_memo - 1);
  return &I->memo[h];
}

static void memo_add(Interp *I, const Phrase *p) {
  if (I->nmemo * 2 >= I->cap_memo) {
    size_t old = I->cap_memo;
    MemoEntry *slots = I->memo;
    I->cap_memo = old ? old * 2 : 16;
    I->memo = NEWARRAY(I->arena, MemoEntry, I->cap_memo);
    for (size_t i = 0; i < old; i++)
      if (slots[i].p) *memo_slot(I, slots[i].p) = slots[i];
  }
  MemoEntry *e = memo_slot(I, p);
  if (!e->p) {
    *e = (MemoEntry){p, NULL, NULL};
    I->nmemo++;
  }
}

static MemoEntry *memo_find(Interp *I, const Phrase *p) {
  if (I->nmemo == 0) return NULL;
  MemoEntry *e = memo_slot(I, p);
  return e->p ? e : NULL;
}

/* The lambdas in scope, innermost first, with their nesting depths; row:
 * the function of a dependent map, whose row's size is bound with its
 * variable (run_map), or NULL. */
typedef struct LamScope {
  const Binder *binder;
  int depth;
  const struct LamScope *next;
  Sym row;
} LamScope;

/* a primitive whose sizes use a dependent map's row (take (k + 1) in the
 * map's function) has a value per row, as its variable does */
static bool prim_uses_row(const Phrase *p, Sym row) {
  for (int i = 0; i < prim_info[p->prim].nsizes; i++)
    if (size_has_var(p->sizes[i], row)) return true;
  return pt_has_size_var(p->type, row);
}

/* What a phrase depends on: the depths of the lambdas whose variables it
 * reads (bit d for depth d; depth 63 stands for every deeper one), and
 * whether it computes. */
typedef struct Deps {
  uint64_t depths;
  bool computes;
} Deps;

static uint64_t depth_bit(int depth) { return (uint64_t)1 << (depth < 63 ? depth : 63); }

static Deps find_invariants(Interp *I, const Phrase *p, const LamScope *scope, int depth) {
  Deps d = {0, false};
  switch (p->kind) {
  case PH_VAR:
    for (const LamScope *s = scope; s; s = s->next)
      if (s->binder == p->binder) return (Deps){depth_bit(s->depth), false};
    return d; /* a kernel parameter */
  case PH_LIT:
  case PH_DEF: return d;
  case PH_PRIM:
    for (const LamScope *s = scope; s; s = s->next)
      if (s->row && prim_uses_row(p, s->row)) return (Deps){depth_bit(s->depth), prim_computes(p->prim)};
    return (Deps){0, prim_computes(p->prim)};
  case PH_LAM: {
    /* the only variable of depth + 1 in scope in the body is this one */
    LamScope s = {p->lam_binder, depth + 1, scope, NULL};
    d = find_invariants(I, p->body, &s, depth + 1);
    if (depth + 1 < 63) d.depths &= ~depth_bit(depth + 1);
    return d;
  }
  case PH_PROJ:
  case PH_UNOP: return find_invariants(I, p->fst, scope, depth);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: {
    Deps f = find_invariants(I, p->fst, scope, depth), g;
    if (p->kind == PH_APP && p->fst->kind == PH_PRIM && p->fst->dep_index && p->snd->kind == PH_LAM) {
      /* a dependent map's function: its row is bound with its variable */
      LamScope s = {p->snd->lam_binder, depth + 1, scope, p->fst->dep_index};
      g = find_invariants(I, p->snd->body, &s, depth + 1);
      if (depth + 1 < 63) g.depths &= ~depth_bit(depth + 1);
    } else {
      g = find_invariants(I, p->snd, scope, depth);
    }
    d = (Deps){f.depths | g.depths, f.computes || g.computes};
    if (p->kind == PH_APP && depth > 0 && d.depths == 0 && d.computes && p->type && p->type->kind == PT_EXP)
      memo_add(I, p);
    return d;
  }
  case PH_COUNT: break;
  }
  INTERNAL("bad phrase kind %d", (int)p->kind);
}

static Val eval(Interp *I, const Phrase *p, const Env *env) {
  switch (p->kind) {
  case PH_VAR:
    for (const Env *e = env; e; e = e->next)
      if (e->binder == p->binder) return e->val;
    INTERNAL("unbound variable %s", p->binder->name);
  case PH_LIT: return literal(I, p);
  case PH_PRIM: return prim_value(I, p);
  case PH_LAM: {
    Fun *f = salloc(I, sizeof *f);
    memset(f, 0, sizeof *f);
    f->lam = p;
    f->env = env;
    Val v = {.kind = V_FUN};
    v.fun = f;
    return v;
  }
  case PH_APP: {
    MemoEntry *m = memo_find(I, p);
    if (m && m->data) return load(I, m->lay, m->data);
    Val f = eval(I, p->fst, env);
    Val v = apply(I, f, eval(I, p->snd, env));
    if (m) { /* an invariant computation's first evaluation */
      m->lay = layout(I, p->type->data, p->span);
      m->data = NEWARRAY(I->arena, double, m->lay->flat > 0 ? m->lay->flat : 1);
      store(I, v, m->lay, m->data);
    }
    return v;
  }
  case PH_PAIR: return pair_val(I, eval(I, p->fst, env), eval(I, p->snd, env));
  case PH_PROJ: {
    Val v = eval(I, p->fst, env);
    if (v.kind != V_PAIR) INTERNAL("projection of a value that is not a pair");
    return v.pair[p->index == 1 ? 0 : 1];
  }
  case PH_BINOP: return binop(I, p, env);
  case PH_UNOP: {
    Val x = need_num(eval(I, p->fst, env), p);
    double lanes[NUM_MAX_LANES];
    return num(I, num_unop(p->unop, num_view(&x), lanes), lanes);
  }
  case PH_DEF: fail(I, p->span, "use of def %s: the body must be normalized (normalize_def)", p->def->name);
  case PH_SEQ:
  case PH_ASSIGN: fail(I, p->span, "imperative command in a functional kernel");
  case PH_COUNT: break;
  }
  INTERNAL("bad phrase kind %d", (int)p->kind);
}

/* ---- entry points ---- */

static void interp_init(Interp *I, Arena *a, const NatValues *nats, Buf *err, jmp_buf *on_fail) {
  memset(I, 0, sizeof *I);
  I->arena = a;
  I->nats = nats;
  I->err = err;
  I->fail = on_fail;
  scratch_init(&I->scratch, a);
  I->foreign = foreign_fns_new(a);
}

const Lay *interp_param_layout(Arena *a, const DefInfo *def, int i, const NatValues *nats, Buf *err) {
  ASSERT(i >= 0 && i < def->nparams);
  const PhraseType *t = def->params[i]->type;
  if (t->kind != PT_EXP) {
    emit(err, "kernel parameter %s is not data", def->params[i]->name);
    return NULL;
  }
  Buf why;
  buf_init(&why, a);
  const Lay *l = lay_of(a, t->data, nats, &why);
  if (!l) emit(err, "kernel parameter %s: %s", def->params[i]->name, why.data);
  return l;
}

const Lay *interp_result_layout(Arena *a, const DefInfo *def, const NatValues *nats, Buf *err) {
  if (!def->result || def->result->kind != PT_EXP) {
    emit(err, "kernel %s does not produce data", def->name);
    return NULL;
  }
  Buf why;
  buf_init(&why, a);
  /* a kernel computing in place results in the whole input it updates
   * (with several, `updates x, b`, the tuple of theirs: its result) */
  const Lay *l = lay_of(a, def->updates && def->nupdated <= 1 ? def->updates->type->data : def->result->data, nats, &why);
  if (!l) emit(err, "result of kernel %s: %s", def->name, why.data);
  return l;
}

/* A region r of an in-place kernel (docs/language.md section 27) from
 * dimension d on: region (of layout rl) put into whole (of layout wl) at
 * the region's first indices. */
static bool splice_region(const Region *r, const NatValues *nats, int d, const Lay *wl, double *whole, const Lay *rl,
                          const double *region, Buf *err) {
  if (d == r->ndims) {
    memcpy(whole, region, sizeof(double) * (size_t)rl->flat);
    return true;
  }
  int64_t lo;
  if (!nat_eval_size(r->lo[d], nats, &lo, err)) return false;
  for (int64_t i = 0; i < rl->n; i++)
    if (!splice_region(r, nats, d + 1, wl->elem, whole + (lo + i) * wl->elem->flat, rl->elem,
                       region + i * rl->elem->flat, err))
      return false;
  return true;
}

/* The value of an in-place kernel's body (layout vl) put into whole (wl):
 * all of it without regions, else each region's part of the tuple (pairs
 * nested to the right) into its region. */
static bool splice_regions(const DefInfo *def, const NatValues *nats, const Lay *wl, double *whole, const Lay *vl,
                           const double *value, Buf *err) {
  if (def->nregions == 0) {
    memcpy(whole, value, sizeof(double) * (size_t)vl->flat);
    return true;
  }
  for (int k = 0; k < def->nregions; k++) {
    bool last = k == def->nregions - 1;
    if (!splice_region(&def->regions[k], nats, 0, wl, whole, last ? vl : vl->fst, value, err)) return false;
    if (!last) {
      value += vl->fst->flat;
      vl = vl->snd;
    }
  }
  return true;
}

static bool nats_complete(const DefInfo *def, const NatValues *nats, Buf *err) {
  for (int i = 0; i < def->nsize_params; i++) {
    int64_t v;
    if (!nat_lookup((void *)nats, def->size_params[i], &v)) {
      emit(err, "no value for the nat parameter %s of kernel %s", def->size_params[i], def->name);
      return false;
    }
    if (v < 0) {
      emit(err, "nat parameter %s = %" PRId64 " is negative", def->size_params[i], v);
      return false;
    }
  }
  return true;
}

bool interp_random_inputs(Arena *a, const DefInfo *def, const NatValues *nats, Rng *rng, double ***inputs,
                          size_t **counts, Buf *err) {
  if (!nats_complete(def, nats, err)) return false;
  double **in = NEWARRAY(a, double *, def->nparams > 0 ? def->nparams : 1);
  size_t *n = NEWARRAY(a, size_t, def->nparams > 0 ? def->nparams : 1);
  for (int i = 0; i < def->nparams; i++) {
    const Lay *l = interp_param_layout(a, def, i, nats, err);
    if (!l) return false;
    n[i] = (size_t)l->flat;
    in[i] = NEWARRAY(a, double, l->flat > 0 ? l->flat : 1);
    if (def->params[i]->permutation) rng_permutation(rng, in[i], l->flat);
    else rng_fill(rng, l, in[i]);
  }
  *inputs = in;
  *counts = n;
  return true;
}

bool interp_run(Arena *a, const DefInfo *def, const Phrase *body, const NatValues *nats, const double *const *inputs,
                const size_t *counts, double **out, size_t *out_count, Buf *err) {
  return interp_run_overflow(a, def, body, nats, inputs, counts, out, out_count, NULL, NULL, err);
}

bool interp_run_overflow(Arena *a, const DefInfo *def, const Phrase *body, const NatValues *nats,
                         const double *const *inputs, const size_t *counts, double **out, size_t *out_count,
                         Span *int_overflow, const char **foreign_failure, Buf *err) {
  if (!def->is_kernel && !def->is_pipeline) {
    emit(err, "%s is not a kernel", def->name);
    return false;
  }
  if (!nats_complete(def, nats, err)) return false;
  jmp_buf on_fail;
  Interp interp, *I = &interp;
  interp_init(I, a, nats, err, &on_fail);
  if (setjmp(on_fail)) {
    foreign_fns_close(I->foreign);
    if (foreign_failure) *foreign_failure = I->foreign_failure;
    return false;
  }
  const Env *env = NULL;
  const double *updated = NULL; /* the input an in-place kernel updates, as the device holds it */
  for (int i = 0; i < def->nparams; i++) {
    const Lay *l = interp_param_layout(a, def, i, nats, err);
    if (!l) return false;
    if (counts[i] != (size_t)l->flat) {
      emit(err, "input %s of kernel %s: expected %" PRId64 " values, got %zu", def->params[i]->name, def->name,
           l->flat, counts[i]);
      return false;
    }
    /* the input as the device holds it (precision rule): a copy only when
     * rounding changes something */
    const double *in = inputs[i];
    if (!lay_device_exact(l, in)) {
      double *rounded = NEWARRAY(a, double, l->flat > 0 ? l->flat : 1);
      memcpy(rounded, in, sizeof(double) * (size_t)l->flat);
      lay_round(l, rounded);
      in = rounded;
    }
    if (def->params[i] == def->updates) updated = in;
    if (def->params[i]->permutation && !permutation_check(a, def->params[i]->name, in, l->flat, err)) return false;
    Env *e = salloc(I, sizeof *e);
    *e = (Env){def->params[i], load(I, l, in), env};
    env = e;
  }
  const Lay *rl = interp_result_layout(a, def, nats, err);
  if (!rl) return false;
  double *result = NEWARRAY(a, double, rl->flat > 0 ? rl->flat : 1);
  find_invariants(I, body, NULL, 0);
  Val v = eval(I, body, env);
  if (def->updates && def->nupdated <= 1) {
    /* in place: the input it updates, its region (or the whole) replaced
     * by the body's value, and the rest as it was */
    const Lay *region = lay_of(a, def->result->data, nats, err);
    if (!region) fail(I, body->span, "the region of %s", def->name);
    double *value = NEWARRAY(a, double, region->flat > 0 ? region->flat : 1);
    store(I, v, region, value);
    memcpy(result, updated, sizeof(double) * (size_t)rl->flat);
    if (!splice_regions(def, nats, rl, result, region, value, err)) fail(I, body->span, "the region of %s", def->name);
  } else {
    store(I, v, rl, result);
  }
  foreign_fns_close(I->foreign);
  *out = result;
  *out_count = (size_t)rl->flat;
  if (int_overflow) *int_overflow = I->int_overflow;
  return true;
}

/* Float arithmetic that the device may round differently from this
 * interpreter's double (precision rule, top of file): + - * / % on float
 * operands, and the float math built-ins other than the exact ones (fabs,
 * floor, ceil, min, max). */
static bool float_rounding(const Phrase *p) {
  if (!p) return false;
  switch (p->kind) {
  case PH_BINOP: {
    const DataType *t = dt_resolve(p->fst->type->data);
    bool arith = p->op == BIN_ADD || p->op == BIN_SUB || p->op == BIN_MUL || p->op == BIN_DIV || p->op == BIN_MOD;
    if (arith && t->kind == DT_SCALAR && t->scalar == SC_FLOAT) return true;
    return float_rounding(p->fst) || float_rounding(p->snd);
  }
  case PH_PRIM:
    if (p->prim == PRIM_FOREIGN) return true; /* its float arithmetic, and its arguments rounded */
    if (prim_family(p->prim) != PFAM_MATH || (prim_info[p->prim].flags & PF_EXACT)) return false;
    return prim_data(p, 0)->scalar == SC_FLOAT;
  case PH_LAM: return float_rounding(p->body);
  case PH_APP:
  case PH_PAIR: return float_rounding(p->fst) || float_rounding(p->snd);
  case PH_PROJ:
  case PH_UNOP: return float_rounding(p->fst);
  default: return false;
  }
}

double interp_bound(const Phrase *body, const Lay *result) {
  if (lay_has_scalar(result, SC_FLOAT) || float_rounding(body)) return COMPARE_BOUND_FLOAT;
  return COMPARE_BOUND_DOUBLE;
}
