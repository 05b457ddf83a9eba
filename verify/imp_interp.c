/* imp_interp.c: the interpreter of imperative DPIA (imp_interp.h).
 *
 * A phrase evaluates to a value: a number (a scalar or a vector of
 * doubles), a data pair, an array (an index function over memory, like the
 * reference interpreter's views), a function (closure or partially applied
 * primitive), an acceptor (a place in memory reached through acceptor
 * views), a phrase pair (var[T] = acc[T] & exp[T]: an acceptor and a
 * reference), a reference (the exp side of a variable: read when used), or
 * a command (a thunk, run by run_comm).  Commands are values so that a
 * closure or a primitive applied to all its arguments can be passed around
 * and run later, as the phrase language allows.
 *
 * Reads happen when a value is needed: a reference is read when the .2
 * projection or the variable is evaluated, an array element when it is
 * indexed, so `a := e` reads e's memory before it writes a, and a later
 * statement sees the writes of an earlier one (paper section 4: commands
 * are state transformers, run in sequence). */
#include "imp_interp.h"

#include "compare.h"
#include "foreign.h"
#include "numeric.h"
#include "scratch.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* ---- values ---- */

typedef enum ValKind { V_NUM, V_PAIR, V_ARR, V_FUN, V_ACC, V_WITH, V_REF, V_COMM } ValKind;

typedef struct Arr Arr;
typedef struct Acc Acc;
typedef struct Fun Fun;
typedef struct Val Val;
typedef struct Env Env;

struct Val {
  ValKind kind;
  int width; /* V_NUM: lanes */
  union {
    const double *lanes; /* V_NUM: width doubles (a snapshot, never live memory) */
    const Val *pair;     /* V_PAIR, V_WITH: pair[0], pair[1] */
    const Arr *arr;      /* V_ARR */
    const Acc *acc;      /* V_ACC */
    const Fun *fun;      /* V_FUN, V_COMM */
    struct {             /* V_REF: the value of layout lay stored at mem */
      double *mem;
      const Lay *lay;
    };
  };
};

/* Expression arrays: the views of the functional language over memory
 * (the same index rules as interp.c, which stays independent of this
 * file: spec section 11). */
typedef enum ArrKind {
  A_BUF,       /* mem, lay: element i at mem + i * lay->flat */
  A_SLICE,     /* src, k: src[k + i] */
  A_ZIP,       /* src, src2 */
  A_SPLIT,     /* src, k: a slice of k at i * k */
  A_JOIN,      /* src, m: src[i / m][i % m] */
  A_TRANSPOSE, /* src: column i */
  A_COLUMN,    /* src, k: src[j][k] */
  A_SLIDE,     /* src, k (window), m (step) */
  A_PAD_CLAMP, /* src, k: left pad */
  A_PAD_CST,   /* src, k, cst */
  A_REORDER,   /* src, k (stride), m = n / k */
  A_AS_VECTOR, /* src, k */
  A_AS_SCALAR, /* src, k */
  A_MAP,       /* src, cst: the view function applied to each element */
  A_INDICES,   /* element i is i (indices n) */
  A_UNZIP,     /* src, k: component k (0 or 1) of src[i] (a half of unzip) */
  A_TRIANGLE,  /* src: row i of triangle src, an A_TRI_ROW */
  A_TRI_ROW,   /* src, k: the pair (src[k], src[k + j]) */
} ArrKind;

struct Arr {
  ArrKind kind;
  int64_t n;
  const double *mem;
  const Lay *lay;
  const Arr *src, *src2;
  int64_t k, m;
  Val cst;
};

/* Acceptors: a place to write, pushed through the acceptor views (paper
 * Figure 4b, spec section 4) until it is memory (like code generation's
 * access paths, Figure 6, but with the indices evaluated). */
typedef enum AccKind {
  C_BUF,       /* mem, lay */
  C_SLICE,     /* src, k: element i is src[k + i] (an element of splitAcc) */
  C_SPLIT,     /* joinAcc src (rows of k): element i is a slice of k at i * k */
  C_JOIN,      /* splitAcc k src: element i is src[i / k][i % k] */
  C_ZIP,       /* zipAcc1/2 src (field k): element i is field k of src[i] */
  C_AS_SCALAR, /* asScalarAcc k src: element i is the vector VECOF(src, i * k) */
  C_VECOF,     /* a k-vector whose lane j is the scalar src[k_off + j] */
  C_AS_VECTOR, /* asVectorAcc src (k lanes): element i is lane i % k of src[i / k] */
  C_LANE,      /* lane k of the vector acceptor src */
  C_TRANSPOSE, /* transposeAcc src: element i is column i of src */
  C_COLUMN,    /* src, k: element j is src[j][k] */
  C_TAKE,      /* takeAcc k src: element i is src[i] for i < k, else dropped */
  C_DROP,      /* dropAcc k src: element i is src[i - k] for i >= k, else dropped */
  C_NONE,      /* what is written to it is dropped (outside a takeAcc or dropAcc) */
  C_UNZIP,     /* unzipAcc src: element i is the pair acceptor C_UNZIPPED (src, i) */
  C_UNZIPPED,  /* src, k: field f is element k of field f of the pair acceptor src */
  C_SCATTER,   /* scatterAcc src pos: element i is src[pos[i]] */
  C_MIRROR,    /* mirrorAcc src: element i is the row C_MIRROR_ROW (src, i) */
  C_MIRROR_ROW, /* src, k: element j >= k is C_BOTH of src[k][j] and src[j][k]; j < k, C_NONE */
  C_BOTH,      /* src, also: what is written goes to both */
  C_DEP_JOIN,  /* depJoinAcc T src: element i is the row of src at offset(i), dep T */
  C_PAIR,      /* pairAcc src also: field 1 is src, field 2 also */
} AccKind;

struct Acc {
  AccKind kind;
  double *mem;
  const Lay *lay;
  const Acc *src;
  int64_t k, off;
  int64_t len; /* C_SLICE of sliceAcc: its length, checked (0: a row of splitAcc, checked by src) */
  const Arr *pos; /* C_SCATTER: the positions */
  const Acc *also; /* C_BOTH: the second place */
  const DataType *dep; /* C_DEP_JOIN: the dependent array written */
  Size offset;         /* C_DEP_JOIN: row dep->index's offset (dt_dep_offset) */
};

struct Env {
  const Binder *binder;
  Val val;
  const Env *next;
};

/* a closure (lam, env), a primitive with nargs of its arity arguments, or
 * (V_COMM) a command: a phrase to run in env, or a primitive with all its
 * arguments */
enum { MAX_PRIM_ARGS = 16 }; /* float16 a b ... p, the most */
_Static_assert((int)FOREIGN_MAX_PARAMS <= (int)MAX_PRIM_ARGS, "a foreign function's arguments fit a Fun");
struct Fun {
  const Phrase *lam; /* V_FUN closure; V_COMM: the command phrase */
  const Env *env;
  const Phrase *prim;
  int arity, nargs;
  Val args[]; /* arity of them: a Fun is allocated with room for its arguments */
};

/* ---- state (the scratch stack is released after every loop iteration,
 * so memory stays proportional to the buffers) ---- */

typedef struct Imp {
  Arena *arena;
  const NatValues *nats;
  Buf *err;
  jmp_buf *fail;
  Scratch scratch;
  ImpRun *run;
  bool over_budget;
  bool fault; /* the failure is an index out of range: wrong code */
  ForeignFns *foreign; /* the foreign functions called so far, loaded */
} Imp;

static void *salloc(Imp *I, size_t size) { return scratch_alloc(&I->scratch, size); }

DPIA_NORETURN DPIA_PRINTF(3, 4) static void fail(Imp *I, const Phrase *where, const char *fmt, ...) {
  if (where && where->span.src) {
    uint32_t line, col;
    source_position(where->span.src, where->span.begin, &line, &col);
    emit(I->err, "%s:%u:%u: ", where->span.src->name, line, col);
  }
  va_list ap;
  va_start(ap, fmt);
  vemit(I->err, fmt, ap);
  va_end(ap);
  longjmp(*I->fail, 1);
}

static void step(Imp *I) {
  if (I->run->max_steps && ++I->run->steps > I->run->max_steps) {
    I->over_budget = true;
    longjmp(*I->fail, 1);
  }
}

static const Lay *layout(Imp *I, const DataType *t, const Phrase *where) {
  Buf why;
  buf_init(&why, I->arena);
  const Lay *l = lay_of(I->arena, t, I->nats, &why);
  if (!l) fail(I, where, "%s", why.data);
  return l;
}

static int64_t eval_size(Imp *I, Size s, const Phrase *where) {
  Buf why;
  buf_init(&why, I->arena);
  int64_t v;
  if (!nat_eval_size(s, I->nats, &v, &why)) fail(I, where, "%s", why.data);
  return v;
}

/* ---- values ---- */

static Val num(Imp *I, int width, const double *lanes) {
  double *d = salloc(I, sizeof(double) * (size_t)width);
  memcpy(d, lanes, sizeof(double) * (size_t)width);
  Val v = {.kind = V_NUM, .width = width};
  v.lanes = d;
  return v;
}

static Val num1(Imp *I, double x) { return num(I, 1, &x); }

/* v (a number) as numeric.h reads it */
static Num num_view(Val v) { return (Num){v.width, v.lanes}; }

/* lane j; a scalar broadcasts */
static double lane(Val v, int j) { return num_lane(num_view(v), j); }

static Val pair_of(Imp *I, ValKind kind, Val a, Val b) {
  Val *p = salloc(I, sizeof(Val) * 2);
  p[0] = a;
  p[1] = b;
  return (Val){.kind = kind, .pair = p};
}

static Val arr_val(const Arr *a) { return (Val){.kind = V_ARR, .arr = a}; }

static Val acc_val(const Acc *a) { return (Val){.kind = V_ACC, .acc = a}; }

static Arr *new_arr(Imp *I, ArrKind kind, int64_t n, const Arr *src) {
  Arr *a = salloc(I, sizeof *a);
  *a = (Arr){.kind = kind, .n = n, .src = src};
  return a;
}

static Acc *new_acc(Imp *I, AccKind kind, const Acc *src, int64_t k) {
  Acc *a = salloc(I, sizeof *a);
  *a = (Acc){.kind = kind, .src = src, .k = k};
  return a;
}

/* a V_FUN or V_COMM value: the closure (lam, env), or the primitive prim
 * of arity arity without arguments */
static Val fun_val(Imp *I, ValKind kind, const Phrase *lam, const Env *env, const Phrase *prim, int arity) {
  Fun *f = salloc(I, sizeof *f + sizeof(Val) * (size_t)arity);
  *f = (Fun){.lam = lam, .env = env, .prim = prim, .arity = arity};
  return (Val){.kind = kind, .fun = f};
}

/* the primitive fn with one argument more, as a V_FUN or V_COMM value */
static Val add_arg(Imp *I, ValKind kind, const Fun *fn, Val arg) {
  Fun *g = salloc(I, sizeof *g + sizeof(Val) * (size_t)fn->arity);
  memcpy(g, fn, sizeof *g + sizeof(Val) * (size_t)fn->nargs);
  g->args[g->nargs++] = arg;
  return (Val){.kind = kind, .fun = g};
}

/* a variable (var[T]) over the memory mem of layout l: its acceptor and
 * its reference */
static Val var_val(Imp *I, double *mem, const Lay *l);

/* memory nothing wrote: NaN, so that a read of it shows in the result */
static double *poison(double *mem, const Lay *l) {
  for (int64_t j = 0; j < l->flat; j++) mem[j] = NAN;
  return mem;
}

/* i must be in [0, n): otherwise the program indexes outside an array,
 * which is wrong code (IMP_FAULT) */
static void check_index(Imp *I, int64_t i, int64_t n, const char *what, const Phrase *where) {
  if (i >= 0 && i < n) return;
  I->fault = true;
  fail(I, where, "%s %" PRId64 " out of range [0, %" PRId64 ")", what, i, n);
}

/* the value of layout l in memory at p, read now (arrays: a view, read
 * when indexed) */
static Val load(Imp *I, const Lay *l, const double *p) {
  switch (l->kind) {
  case LAY_NUM: return num(I, l->width, p);
  case LAY_PAIR: return pair_of(I, V_PAIR, load(I, l->fst, p), load(I, l->snd, p + l->fst->flat));
  case LAY_ARRAY: {
    Arr *a = new_arr(I, A_BUF, l->n, NULL);
    a->mem = p;
    a->lay = l->elem;
    return arr_val(a);
  }
  }
  INTERNAL("bad layout kind %d", (int)l->kind);
}

/* a reference is read where its value is used */
static Val deref(Imp *I, Val v) { return v.kind == V_REF ? load(I, v.lay, v.mem) : v; }

static Val arr_index(Imp *I, const Arr *a, int64_t i, const Phrase *where);
static int64_t index_of(Imp *I, Val v, const Phrase *where);
static Val apply(Imp *I, Val f, Val arg, const Phrase *where);

static const Arr *need_arr(Imp *I, Val v, const Phrase *where) {
  if (v.kind != V_ARR) fail(I, where, "an array was expected");
  return v.arr;
}

static Val need_num(Imp *I, Val v, const Phrase *where) {
  if (v.kind != V_NUM) fail(I, where, "a number was expected");
  return v;
}

static const Arr *slice(Imp *I, const Arr *a, int64_t off, int64_t len) {
  if (a->kind == A_BUF) {
    Arr *s = new_arr(I, A_BUF, len, NULL);
    s->mem = a->mem + off * a->lay->flat;
    s->lay = a->lay;
    return s;
  }
  Arr *s = new_arr(I, A_SLICE, len, a);
  s->k = off;
  return s;
}

static Val arr_index(Imp *I, const Arr *a, int64_t i, const Phrase *where) {
  check_index(I, i, a->n, "index", where);
  switch (a->kind) {
  case A_BUF: return load(I, a->lay, a->mem + i * a->lay->flat);
  case A_SLICE: return arr_index(I, a->src, a->k + i, where);
  case A_ZIP: return pair_of(I, V_PAIR, arr_index(I, a->src, i, where), arr_index(I, a->src2, i, where));
  case A_SPLIT: return arr_val(slice(I, a->src, i * a->k, a->k));
  case A_JOIN: {
    Val row = arr_index(I, a->src, i / a->m, where);
    return arr_index(I, need_arr(I, row, where), i % a->m, where);
  }
  case A_TRANSPOSE: {
    Arr *c = new_arr(I, A_COLUMN, a->src->n, a->src);
    c->k = i;
    return arr_val(c);
  }
  case A_COLUMN: return arr_index(I, need_arr(I, arr_index(I, a->src, i, where), where), a->k, where);
  case A_SLIDE: return arr_val(slice(I, a->src, i * a->m, a->k));
  case A_PAD_CLAMP: {
    int64_t j = i - a->k;
    if (j < 0) j = 0;
    if (j > a->src->n - 1) j = a->src->n - 1;
    return arr_index(I, a->src, j, where);
  }
  case A_PAD_CST: {
    int64_t j = i - a->k;
    if (j < 0 || j >= a->src->n) return a->cst;
    return arr_index(I, a->src, j, where);
  }
  case A_REORDER: return arr_index(I, a->src, i / a->m + a->k * (i % a->m), where);
  case A_INDICES: return num1(I, (double)i);
  case A_TRIANGLE: {
    Arr *r = new_arr(I, A_TRI_ROW, a->src->n - i, a->src);
    r->k = i;
    return arr_val(r);
  }
  case A_TRI_ROW: return pair_of(I, V_PAIR, arr_index(I, a->src, a->k, where), arr_index(I, a->src, a->k + i, where));
  case A_UNZIP: {
    Val v = deref(I, arr_index(I, a->src, i, where));
    if (v.kind != V_PAIR) fail(I, where, "unzip of an array whose element is not a pair");
    return v.pair[a->k];
  }
  case A_AS_VECTOR: {
    double lanes[NUM_MAX_LANES];
    for (int64_t j = 0; j < a->k; j++) lanes[j] = lane(need_num(I, arr_index(I, a->src, i * a->k + j, where), where), 0);
    return num(I, (int)a->k, lanes);
  }
  case A_AS_SCALAR: {
    Val x = need_num(I, arr_index(I, a->src, i / a->k, where), where);
    return num1(I, lane(x, (int)(i % a->k)));
  }
  case A_MAP: return apply(I, a->cst, arr_index(I, a->src, i, where), where);
  }
  INTERNAL("bad array kind %d", (int)a->kind);
}

/* ---- acceptors ---- */

static const Acc *acc_index(Imp *I, const Acc *a, int64_t i, const Phrase *where);

static const Acc *acc_buf(Imp *I, double *mem, const Lay *lay) {
  Acc *b = new_acc(I, C_BUF, NULL, 0);
  b->mem = mem;
  b->lay = lay;
  return b;
}

static Val var_val(Imp *I, double *mem, const Lay *l) {
  Val ref = {.kind = V_REF, .mem = mem, .lay = l};
  return pair_of(I, V_WITH, acc_val(acc_buf(I, mem, l)), ref);
}

/* field k (1 or 2) of a pair acceptor: pairs live only in memory */
static const Acc *both(Imp *I, const Acc *a, const Acc *b) {
  Acc *r = new_acc(I, C_BOTH, a, 0);
  r->also = b;
  return r;
}

static const Acc *acc_field(Imp *I, const Acc *a, int k, const Phrase *where) {
  if (a->kind == C_NONE) return a;
  if (a->kind == C_BOTH) return both(I, acc_field(I, a->src, k, where), acc_field(I, a->also, k, where));
  if (a->kind == C_UNZIPPED) return acc_index(I, acc_field(I, a->src, k, where), a->k, where);
  if (a->kind == C_PAIR) return k == 1 ? a->src : a->also;
  if (a->kind != C_BUF || a->lay->kind != LAY_PAIR) fail(I, where, "a pair acceptor that is not memory");
  return k == 1 ? acc_buf(I, a->mem, a->lay->fst) : acc_buf(I, a->mem + a->lay->fst->flat, a->lay->snd);
}

static const Acc *acc_index(Imp *I, const Acc *a, int64_t i, const Phrase *where) {
  switch (a->kind) {
  case C_BUF: {
    if (a->lay->kind != LAY_ARRAY) fail(I, where, "indexing an acceptor that is not an array");
    check_index(I, i, a->lay->n, "write index", where);
    return acc_buf(I, a->mem + i * a->lay->elem->flat, a->lay->elem);
  }
  case C_SLICE:
    if (a->len) check_index(I, i, a->len, "write index", where);
    return acc_index(I, a->src, a->k + i, where);
  case C_SPLIT: return new_acc(I, C_SLICE, a->src, i * a->k);
  case C_JOIN: return acc_index(I, acc_index(I, a->src, i / a->k, where), i % a->k, where);
  case C_ZIP: return acc_field(I, acc_index(I, a->src, i, where), (int)a->k, where);
  case C_AS_SCALAR: {
    Acc *v = new_acc(I, C_VECOF, a->src, a->k);
    v->off = i * a->k;
    return v;
  }
  case C_AS_VECTOR: return new_acc(I, C_LANE, acc_index(I, a->src, i / a->k, where), i % a->k);
  case C_TRANSPOSE: return new_acc(I, C_COLUMN, a->src, i);
  case C_COLUMN: return acc_index(I, acc_index(I, a->src, i, where), a->k, where);
  case C_TAKE: return i < a->k ? acc_index(I, a->src, i, where) : new_acc(I, C_NONE, NULL, 0);
  case C_DROP: return i >= a->k ? acc_index(I, a->src, i - a->k, where) : new_acc(I, C_NONE, NULL, 0);
  case C_NONE: return a;
  case C_UNZIP: return new_acc(I, C_UNZIPPED, a->src, i);
  case C_DEP_JOIN: {
    /* row i: its offset and count, sizes of the index written i */
    const NatValues *outer = I->nats;
    NatRow row = nat_row(I->arena, outer, a->dep->index);
    *row.value = i;
    I->nats = &row.nats;
    int64_t off = eval_size(I, a->offset, where), len = eval_size(I, dt_resolve(a->dep->elem)->size, where);
    I->nats = outer;
    check_index(I, i, eval_size(I, a->dep->size, where), "write index", where);
    Acc *r = new_acc(I, C_SLICE, a->src, off);
    r->len = len;
    return r;
  }
  case C_SCATTER: {
    int64_t at = index_of(I, arr_index(I, a->pos, i, where), where);
    check_index(I, at, a->pos->n, "scatter position", where);
    return acc_index(I, a->src, at, where);
  }
  case C_MIRROR: return new_acc(I, C_MIRROR_ROW, a->src, i);
  case C_MIRROR_ROW:
    /* docs/language.md section 29.1: (k, j) and (j, k) from the upper
     * triangle, nothing from below the diagonal */
    if (i < a->k) return new_acc(I, C_NONE, NULL, 0);
    return both(I, acc_index(I, acc_index(I, a->src, a->k, where), i, where),
                acc_index(I, acc_index(I, a->src, i, where), a->k, where));
  case C_BOTH: return both(I, acc_index(I, a->src, i, where), acc_index(I, a->also, i, where));
  case C_UNZIPPED:
  case C_PAIR: fail(I, where, "indexing an acceptor of a pair");
  case C_VECOF:
  case C_LANE: break;
  }
  fail(I, where, "indexing an acceptor of a number");
}

static void write_lane(Imp *I, const Acc *a, int j, double x, const Phrase *where);

/* x as a location of scalar type s holds it: as the device holds it, or a
 * float exactly when the run asks for the reference's precision (ImpRun) */
static double stored_lane(const Imp *I, ScalarKind s, double x) {
  return s == SC_FLOAT && I->run->float_stores_exact ? x : lay_round_lane(s, x);
}

/* store a number (width lanes) through a */
static void write_num(Imp *I, const Acc *a, Val v, const Phrase *where) {
  switch (a->kind) {
  case C_BUF:
    if (a->lay->kind != LAY_NUM) fail(I, where, "a number written to an acceptor of compound data");
    for (int j = 0; j < a->lay->width; j++) a->mem[j] = stored_lane(I, a->lay->scalar, lane(v, j));
    return;
  case C_VECOF:
    for (int j = 0; j < a->k; j++) write_num(I, acc_index(I, a->src, a->off + j, where), num1(I, lane(v, j)), where);
    return;
  case C_LANE: write_lane(I, a->src, (int)a->k, lane(v, 0), where); return;
  case C_NONE: return;
  case C_BOTH:
    write_num(I, a->src, v, where);
    write_num(I, a->also, v, where);
    return;
  default: fail(I, where, "a number written to an array acceptor");
  }
}

/* lane j of the vector acceptor a */
static void write_lane(Imp *I, const Acc *a, int j, double x, const Phrase *where) {
  switch (a->kind) {
  case C_BUF:
    if (a->lay->kind != LAY_NUM || j >= a->lay->width) fail(I, where, "a lane of an acceptor that is not a vector");
    a->mem[j] = stored_lane(I, a->lay->scalar, x);
    return;
  case C_VECOF: write_num(I, acc_index(I, a->src, a->off + j, where), num1(I, x), where); return;
  case C_NONE: return;
  case C_BOTH:
    write_lane(I, a->src, j, x, where);
    write_lane(I, a->also, j, x, where);
    return;
  default: fail(I, where, "a lane of an acceptor that is not a vector");
  }
}

/* a :=δ v on any data type δ (paper section 4.1): element by element */
static void write_val(Imp *I, const Acc *a, const DataType *t, Val v, const Phrase *where) {
  t = dt_resolve((DataType *)t);
  v = deref(I, v);
  switch (t->kind) {
  case DT_SCALAR:
  case DT_IDX: write_num(I, a, need_num(I, v, where), where); return;
  case DT_PAIR:
    if (v.kind != V_PAIR) fail(I, where, "a pair was expected");
    write_val(I, acc_field(I, a, 1, where), t->fst, v.pair[0], where);
    write_val(I, acc_field(I, a, 2, where), t->snd, v.pair[1], where);
    return;
  case DT_ARRAY: {
    const Arr *src = need_arr(I, v, where);
    for (int64_t i = 0; i < src->n; i++) {
      ScratchMark m = scratch_mark(&I->scratch);
      write_val(I, acc_index(I, a, i, where), t->elem, arr_index(I, src, i, where), where);
      scratch_release(&I->scratch, m);
    }
    return;
  }
  default: fail(I, where, "assignment of a value whose type is not concrete");
  }
}

/* ---- evaluation ---- */

static Val eval(Imp *I, const Phrase *p, const Env *env);
static void exec(Imp *I, const Phrase *p, const Env *env);
static void run_comm(Imp *I, Val c, const Phrase *where);

/* the phrase type of argument i of a primitive (i == arity: its result) */
static const PhraseType *prim_arg(const Phrase *prim, int i) {
  const PhraseType *t = prim->type;
  for (int j = 0; j < i; j++) t = t->snd;
  return (t->kind == PT_FN || t->kind == PT_FN_P) ? t->fst : t;
}

static const DataType *prim_data(const Phrase *prim, int i) {
  const PhraseType *t = prim_arg(prim, i);
  ASSERT(t->kind == PT_EXP || t->kind == PT_ACC);
  return dt_resolve(t->data);
}

static int prim_arity(const Phrase *prim) {
  int n = 0;
  for (const PhraseType *t = prim->type; t->kind == PT_FN || t->kind == PT_FN_P; t = t->snd) n++;
  return n;
}

static const Acc *need_acc(Imp *I, Val v, const Phrase *where) {
  if (v.kind != V_ACC) fail(I, where, "an acceptor was expected");
  return v.acc;
}

static Val run_prim(Imp *I, const Phrase *p, const Val *args);

static Val apply(Imp *I, Val f, Val arg, const Phrase *where) {
  if (f.kind != V_FUN) fail(I, where, "application of a value that is not a function");
  const Fun *fn = f.fun;
  if (fn->lam) {
    Env *e = salloc(I, sizeof *e);
    *e = (Env){fn->lam->lam_binder, arg, fn->env};
    return eval(I, fn->lam->body, e);
  }
  if (fn->nargs + 1 < fn->arity) return add_arg(I, V_FUN, fn, arg);
  /* a command primitive with all its arguments: run it when the command
   * runs */
  if (prim_arg(fn->prim, fn->arity)->kind == PT_COMM) return add_arg(I, V_COMM, fn, arg);
  Val args[MAX_PRIM_ARGS];
  memcpy(args, fn->args, sizeof(Val) * (size_t)fn->nargs);
  args[fn->nargs] = arg;
  return run_prim(I, fn->prim, args);
}

/* run the body F of a loop for index i (with the acceptor of the element
 * for a parfor), releasing what the iteration allocated */
static void iterate(Imp *I, Val body, int64_t i, const Acc *elem, const Phrase *where) {
  ScratchMark m = scratch_mark(&I->scratch);
  Val c = apply(I, body, num1(I, (double)i), where);
  if (elem) c = apply(I, c, acc_val(elem), where);
  run_comm(I, c, where);
  scratch_release(&I->scratch, m);
}

/* newX T (\v -> body): a fresh block poisoned with NaN */
static void run_new(Imp *I, const Phrase *p, Val body) {
  const Lay *l = layout(I, p->type_arg, p);
  ScratchMark m = scratch_mark(&I->scratch);
  double *mem = poison(salloc(I, sizeof(double) * (size_t)(l->flat > 0 ? l->flat : 1)), l);
  run_comm(I, apply(I, body, var_val(I, mem, l), p), p);
  scratch_release(&I->scratch, m);
}

/* A dependent map's loop (Phrase.dep_index, docs/language.md section 30):
 * its row's size is its index, looked up first while the loop runs
 * (*value set at each iteration); NULL for any other loop */
static int64_t *enter_rows(Imp *I, const Phrase *p, const NatValues **outer) {
  *outer = I->nats;
  if (!p->dep_index) return NULL;
  NatRow *row = NEW(I->arena, NatRow);
  *row = nat_row(I->arena, I->nats, p->dep_index);
  I->nats = &row->nats;
  return row->value;
}

static void run_imp_prim(Imp *I, const Phrase *p, const Val *args) {
  const NatValues *outer;
  int64_t *row;
  DPIA_EXHAUSTIVE_BEGIN
  switch (p->prim) {
  case PRIM_SKIP: return;
  PRIM_CASES_NEW:
    run_new(I, p, args[0]);
    return;
  case PRIM_FOR: {
    int64_t n = eval_size(I, p->sizes[0], p);
    row = enter_rows(I, p, &outer);
    for (int64_t i = 0; i < n; i++) {
      if (row) *row = i;
      iterate(I, args[0], i, NULL, p);
    }
    I->nats = outer;
    return;
  }
  case PRIM_FOR_RANGE: { /* i = max(lo, 0), ... below min(hi, n) (docs/language.md section 25) */
    int64_t from, to, step = eval_size(I, p->sizes[1], p);
    num_clamp_range(lane(need_num(I, args[0], p), 0), lane(need_num(I, args[1], p), 0), eval_size(I, p->sizes[0], p),
                    &from, &to);
    if (step < 1) fail(I, p, "forRange step %" PRId64 ": it must be at least 1", step);
    for (int64_t i = from; i < to; i += step) iterate(I, args[2], i, NULL, p);
    return;
  }
  PRIM_CASES_IF:
    if (args[1].kind != V_WITH) fail(I, p, "if without a pair of commands");
    run_comm(I, args[1].pair[lane(need_num(I, args[0], p), 0) != 0 ? 0 : 1], p);
    return;
  PRIM_CASES_PARFOR : {
    const DataType *t = prim_data(p, 0);
    if (t->kind != DT_ARRAY && t->kind != DT_DEPARRAY) fail(I, p, "parfor over an acceptor that is not an array");
    int64_t n = eval_size(I, t->size, p);
    const Acc *out = need_acc(I, args[0], p);
    row = enter_rows(I, p, &outer);
    for (int64_t j = 0; j < n; j++) {
      int64_t i = I->run->reverse_parallel ? n - 1 - j : j;
      if (row) *row = i;
      ScratchMark m = scratch_mark(&I->scratch);
      iterate(I, args[1], i, acc_index(I, out, i, p), p);
      scratch_release(&I->scratch, m);
    }
    I->nats = outer;
    return;
  }
  /* expressions and acceptors, and what stage II removes (spec section 7) */
  PRIM_CASES_MAP:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  PRIM_CASES_VIEW:
  PRIM_CASES_MEMORY:
  PRIM_CASES_SCALAR:
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
  PRIM_CASES_FOREIGN:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: break;
  }
  DPIA_EXHAUSTIVE_END
  fail(I, p, "primitive %s is not a command of imperative DPIA", prim_info[p->prim].name);
}

static void run_comm(Imp *I, Val c, const Phrase *where) {
  if (c.kind != V_COMM) fail(I, where, "a command was expected");
  const Fun *f = c.fun;
  if (f->prim) run_imp_prim(I, f->prim, f->args);
  else exec(I, f->lam, f->env);
}

/* a numeric built-in (numeric.h) */
static Val numeric_prim(Imp *I, const Phrase *p, const Val *args) {
  Num x[NUM_MAX_ARGS];
  for (int j = 0; j < num_prim_arity(p->prim); j++) x[j] = num_view(need_num(I, args[j], p));
  double lanes[NUM_MAX_LANES];
  return num(I, num_prim(p, x, lanes), lanes);
}

/* a foreign function, run as C on the host (foreign.h) */
static Val foreign_prim(Imp *I, const Phrase *p, const Val *args) {
  double x[FOREIGN_MAX_PARAMS], r;
  for (int j = 0; j < p->foreign->nparams; j++) x[j] = lane(need_num(I, args[j], p), 0);
  Buf why;
  buf_init(&why, I->arena);
  if (!foreign_fns_call(I->foreign, p->foreign, x, &r, &why)) fail(I, p, "%s", why.data);
  return num1(I, r);
}

static int64_t exact_div(Imp *I, const Phrase *p, int64_t n, int64_t k) {
  if (k <= 0 || n % k != 0) fail(I, p, "%s %" PRId64 " of %" PRId64 " elements", prim_info[p->prim].name, k, n);
  return n / k;
}

static int64_t index_of(Imp *I, Val v, const Phrase *where) { return (int64_t)lane(need_num(I, deref(I, v), where), 0); }

static Val run_prim(Imp *I, const Phrase *p, const Val *argv) {
  Val args[MAX_PRIM_ARGS];
  int arity = prim_arity(p);
  for (int j = 0; j < arity; j++) args[j] = prim_arg(p, j)->kind == PT_EXP ? deref(I, argv[j]) : argv[j];
  DPIA_EXHAUSTIVE_BEGIN
  switch (p->prim) {
  /* imperative views */
  case PRIM_IDX: return arr_index(I, need_arr(I, args[0], p), index_of(I, args[1], p), p);
  case PRIM_IDX_ACC: return acc_val(acc_index(I, need_acc(I, args[0], p), index_of(I, args[1], p), p));
  /* the acceptor views go the other way from their functional namesakes
   * (Figure 4b): splitAcc k : acc[[n][k]d] -> acc[[n*k]d] (A[[split k e]]
   * writes through joinAcc, A[[join e]] through splitAcc) */
  case PRIM_SPLIT_ACC: return acc_val(new_acc(I, C_JOIN, need_acc(I, args[0], p), eval_size(I, p->sizes[0], p)));
  case PRIM_JOIN_ACC: {
    const DataType *t = prim_data(p, 1); /* acc[[n][m]d] */
    return acc_val(new_acc(I, C_SPLIT, need_acc(I, args[0], p), eval_size(I, dt_resolve(t->elem)->size, p)));
  }
  case PRIM_PAIR_ACC1:
  case PRIM_PAIR_ACC2: return acc_val(acc_field(I, need_acc(I, args[0], p), p->prim == PRIM_PAIR_ACC1 ? 1 : 2, p));
  case PRIM_ZIP_ACC1:
  case PRIM_ZIP_ACC2: return acc_val(new_acc(I, C_ZIP, need_acc(I, args[0], p), p->prim == PRIM_ZIP_ACC1 ? 1 : 2));
  case PRIM_UNZIP_ACC: return acc_val(new_acc(I, C_UNZIP, need_acc(I, args[0], p), 0));
  case PRIM_PAIR_ACC: {
    Acc *pair = new_acc(I, C_PAIR, need_acc(I, args[0], p), 0);
    pair->also = need_acc(I, args[1], p);
    return acc_val(pair);
  }
  case PRIM_SCATTER_ACC: {
    Acc *s = new_acc(I, C_SCATTER, need_acc(I, args[0], p), 0);
    s->pos = need_arr(I, args[1], p);
    return acc_val(s);
  }
  case PRIM_MIRROR_ACC: return acc_val(new_acc(I, C_MIRROR, need_acc(I, args[0], p), 0));
  /* only written (stage I translates them to scatterAcc, mirrorAcc) */
  case PRIM_SCATTER: fail(I, p, "a read of scatter's result");
  case PRIM_MIRROR: fail(I, p, "a read of mirror's result");
  case PRIM_DEP_JOIN: fail(I, p, "a read of depJoin's result");
  case PRIM_DEP_JOIN_ACC: {
    TypeCtx tc;
    type_ctx_init(&tc, I->arena);
    Acc *j = new_acc(I, C_DEP_JOIN, need_acc(I, args[0], p), 0);
    j->dep = dt_resolve(p->type_arg);
    if (!dt_dep_offset(&tc, j->dep, size_var(&tc.sizes, j->dep->index), &j->offset))
      INTERNAL("depJoinAcc of a type the checker refuses");
    return acc_val(j);
  }
  case PRIM_AS_SCALAR_ACC:
    return acc_val(new_acc(I, C_AS_SCALAR, need_acc(I, args[0], p), eval_size(I, p->sizes[0], p)));
  case PRIM_AS_VECTOR_ACC: {
    const DataType *t = prim_data(p, 0);
    return acc_val(new_acc(I, C_AS_VECTOR, need_acc(I, args[0], p), dt_resolve(t->elem)->width));
  }
  case PRIM_TRANSPOSE_ACC: return acc_val(new_acc(I, C_TRANSPOSE, need_acc(I, args[0], p), 0));
  case PRIM_TAKE_ACC:
  case PRIM_DROP_ACC:
    return acc_val(
        new_acc(I, p->prim == PRIM_TAKE_ACC ? C_TAKE : C_DROP, need_acc(I, args[0], p), eval_size(I, p->sizes[0], p)));
  case PRIM_SLICE_ACC: { /* element i is A[o + i], for i < m */
    Acc *a = new_acc(I, C_SLICE, need_acc(I, args[0], p), eval_size(I, p->sizes[0], p));
    a->len = eval_size(I, p->sizes[1], p);
    if (a->len == 0) a->len = -1; /* nothing may be written */
    return acc_val(a);
  }
  /* functional views */
  case PRIM_ZIP: {
    const Arr *a = need_arr(I, args[0], p), *b = need_arr(I, args[1], p);
    Arr *z = new_arr(I, A_ZIP, a->n, a);
    z->src2 = b;
    return arr_val(z);
  }
  case PRIM_SPLIT: {
    const Arr *a = need_arr(I, args[0], p);
    int64_t k = eval_size(I, p->sizes[0], p);
    Arr *s = new_arr(I, A_SPLIT, exact_div(I, p, a->n, k), a);
    s->k = k;
    return arr_val(s);
  }
  case PRIM_JOIN: {
    const Arr *a = need_arr(I, args[0], p);
    int64_t m = eval_size(I, dt_resolve(prim_data(p, 0)->elem)->size, p);
    Arr *j = new_arr(I, A_JOIN, a->n * m, a);
    j->m = m;
    return arr_val(j);
  }
  case PRIM_PAIR: return pair_of(I, V_PAIR, args[0], args[1]);
  case PRIM_UNZIP: {
    const Arr *a = need_arr(I, args[0], p);
    Arr *fst = new_arr(I, A_UNZIP, a->n, a), *snd = new_arr(I, A_UNZIP, a->n, a);
    snd->k = 1;
    return pair_of(I, V_PAIR, arr_val(fst), arr_val(snd));
  }
  case PRIM_FST:
  case PRIM_SND:
    if (args[0].kind != V_PAIR) fail(I, p, "fst/snd of a value that is not a pair");
    return args[0].pair[p->prim == PRIM_FST ? 0 : 1];
  case PRIM_AS_VECTOR: {
    const Arr *a = need_arr(I, args[0], p);
    int64_t k = eval_size(I, p->sizes[0], p);
    Arr *v = new_arr(I, A_AS_VECTOR, exact_div(I, p, a->n, k), a);
    v->k = k;
    return arr_val(v);
  }
  case PRIM_AS_SCALAR: {
    const Arr *a = need_arr(I, args[0], p);
    int k = dt_resolve(prim_data(p, 0)->elem)->width;
    Arr *s = new_arr(I, A_AS_SCALAR, a->n * k, a);
    s->k = k;
    return arr_val(s);
  }
  case PRIM_TRANSPOSE: {
    const Arr *a = need_arr(I, args[0], p);
    int64_t m = eval_size(I, dt_resolve(prim_data(p, 0)->elem)->size, p);
    return arr_val(new_arr(I, A_TRANSPOSE, m, a));
  }
  case PRIM_SLIDE: {
    const Arr *a = need_arr(I, args[0], p);
    int64_t size = eval_size(I, p->sizes[0], p), stp = eval_size(I, p->sizes[1], p);
    if (size < 1 || stp < 1 || a->n < size || (a->n - size) % stp != 0) fail(I, p, "slide windows do not fit");
    Arr *s = new_arr(I, A_SLIDE, (a->n - size) / stp + 1, a);
    s->k = size;
    s->m = stp;
    return arr_val(s);
  }
  case PRIM_PAD_CLAMP:
  case PRIM_PAD_CST: {
    bool cst = p->prim == PRIM_PAD_CST;
    const Arr *a = need_arr(I, args[cst ? 1 : 0], p);
    int64_t l = eval_size(I, p->sizes[0], p), r = eval_size(I, p->sizes[1], p);
    if (!cst && a->n == 0 && l + r > 0) fail(I, p, "padClamp of an empty array");
    Arr *q = new_arr(I, cst ? A_PAD_CST : A_PAD_CLAMP, l + a->n + r, a);
    q->k = l;
    if (cst) q->cst = args[0];
    return arr_val(q);
  }
  case PRIM_REORDER_STRIDE: {
    const Arr *a = need_arr(I, args[0], p);
    int64_t s = eval_size(I, p->sizes[0], p);
    Arr *q = new_arr(I, A_REORDER, a->n, a);
    q->k = s;
    q->m = exact_div(I, p, a->n, s);
    return arr_val(q);
  }
  case PRIM_TAKE:
  case PRIM_DROP: {
    const Arr *a = need_arr(I, args[0], p);
    int64_t k = eval_size(I, p->sizes[0], p);
    if (k < 0 || k > a->n) fail(I, p, "%s %" PRId64 " of %" PRId64 " elements", prim_info[p->prim].name, k, a->n);
    return arr_val(p->prim == PRIM_TAKE ? slice(I, a, 0, k) : slice(I, a, k, a->n - k));
  }
  case PRIM_INDICES: return arr_val(new_arr(I, A_INDICES, eval_size(I, p->sizes[0], p), NULL));
  case PRIM_TRIANGLE: {
    const Arr *a = need_arr(I, args[0], p);
    return arr_val(new_arr(I, A_TRIANGLE, a->n, a));
  }
  case PRIM_MAP: { /* a view map (docs/language.md section 9): applied per element when read */
    const Arr *a = need_arr(I, args[1], p);
    Arr *m = new_arr(I, A_MAP, a->n, a);
    m->cst = args[0];
    return arr_val(m);
  }
  /* scalars */
  case PRIM_SELECT: {
    Val mask = need_num(I, args[0], p);
    if (mask.width == 1) return lane(mask, 0) != 0 ? args[1] : args[2];
    Val a = need_num(I, args[1], p), b = need_num(I, args[2], p); /* lane by lane */
    double lanes[NUM_MAX_LANES];
    return num(I, num_select(num_view(mask), num_view(a), num_view(b), lanes), lanes);
  }
  case PRIM_VEC: {
    int64_t k = eval_size(I, p->sizes[0], p);
    double x = lane(need_num(I, args[0], p), 0), lanes[NUM_MAX_LANES];
    if (k < 1 || k > NUM_MAX_LANES) fail(I, p, "vec %" PRId64, k);
    return num(I, num_broadcast(x, k, lanes), lanes);
  }
  case PRIM_CLAMP_IDX: {
    double x = num_clamp_index(lane(need_num(I, args[0], p), 0), eval_size(I, p->sizes[0], p));
    return num(I, 1, &x);
  }
  case PRIM_LANE: {
    double x = lane(need_num(I, args[0], p), (int)eval_size(I, p->sizes[0], p));
    return num(I, 1, &x);
  }
  PRIM_CASES_VECTOR : {
    double lanes[NUM_MAX_LANES];
    for (int j = 0; j < arity; j++) lanes[j] = lane(need_num(I, args[j], p), 0);
    return num(I, arity, lanes);
  }
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
    return numeric_prim(I, p, args);
  PRIM_CASES_FOREIGN:
    return foreign_prim(I, p, args);
  /* commands are values run by run_imp_prim */
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  /* map, reduce, toGlobal ... and the intermediate mapI/reduceI are gone
   * after stage II (spec section 7): meeting one is a fault of the
   * translation or of this interpreter */
  case PRIM_MAP_SEQ:
  case PRIM_MAP_GLOBAL:
  case PRIM_MAP_WORKGROUP:
  case PRIM_MAP_LOCAL:
  case PRIM_DEP_MAP_SEQ:
  case PRIM_DEP_MAP_GLOBAL:
  case PRIM_DEP_MAP_WORKGROUP:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  PRIM_CASES_MEMORY:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: break;
  }
  DPIA_EXHAUSTIVE_END
  fail(I, p, "primitive %s has no meaning in an imperative kernel", prim_info[p->prim].name);
}

static Val prim_value(Imp *I, const Phrase *p) {
  int arity = prim_arity(p);
  if (arity == 0) return p->prim == PRIM_SKIP ? fun_val(I, V_COMM, NULL, NULL, p, 0) : run_prim(I, p, NULL);
  if (arity > MAX_PRIM_ARGS) fail(I, p, "primitive %s takes %d arguments", prim_info[p->prim].name, arity);
  return fun_val(I, V_FUN, NULL, NULL, p, arity);
}

static Val literal(Imp *I, const Phrase *p) {
  if (p->lit_nelems > 0) { /* an array literal: its constant array (interp.c) */
    /* an element of vector type is the scalar broadcast (spec section 2) */
    double *data = salloc(I, sizeof(double) * (size_t)p->lit_nelems * NUM_MAX_LANES);
    size_t n = 0;
    for (int i = 0; i < p->lit_nelems; i++) n += (size_t)num_literal(p->lit_elems[i], data + n);
    return load(I, layout(I, p->type->data, p), data);
  }
  double lanes[NUM_MAX_LANES];
  if (p->lit_is_size) { /* idx row (N - 1) */
    lanes[0] = (double)eval_size(I, p->lit_size, p);
    return num(I, 1, lanes);
  }
  int w = num_literal(p, lanes);
  if (!w) fail(I, p, "literal of a non-scalar type");
  return num(I, w, lanes);
}

/* the value bound to the variable p */
static Val lookup(Imp *I, const Phrase *p, const Env *env) {
  for (const Env *e = env; e; e = e->next)
    if (e->binder == p->binder) return e->val;
  fail(I, p, "unbound identifier %s", p->binder->name);
}

/* the projection p (.1 or .2) of a phrase pair, not read */
static Val project(Imp *I, const Phrase *p, const Env *env) {
  Val w = eval(I, p->fst, env);
  if (w.kind != V_WITH) fail(I, p, "projection of a value that is not a phrase pair");
  return w.pair[p->index == 1 ? 0 : 1];
}

static Val eval(Imp *I, const Phrase *p, const Env *env) {
  step(I);
  /* a command is run where it is sequenced, not where it is built */
  if (p->type->kind == PT_COMM) return fun_val(I, V_COMM, p, env, NULL, 0);
  switch (p->kind) {
  case PH_VAR: {
    Val v = lookup(I, p, env);
    return p->type->kind == PT_EXP ? deref(I, v) : v;
  }
  case PH_LIT: return literal(I, p);
  case PH_PRIM: return prim_value(I, p);
  case PH_LAM: return fun_val(I, V_FUN, p, env, NULL, 0);
  case PH_APP: {
    Val f = eval(I, p->fst, env);
    return apply(I, f, eval(I, p->snd, env), p);
  }
  case PH_PAIR: return pair_of(I, V_WITH, eval(I, p->fst, env), eval(I, p->snd, env));
  case PH_PROJ: return deref(I, project(I, p, env));
  case PH_BINOP: {
    Val a = need_num(I, eval(I, p->fst, env), p), b = need_num(I, eval(I, p->snd, env), p);
    const DataType *t = dt_resolve(p->fst->type->data);
    bool is_int = t->kind == DT_IDX || (t->kind == DT_SCALAR && t->scalar == SC_INT);
    double lanes[NUM_MAX_LANES];
    return num(I, num_binop(p->op, is_int, num_view(a), num_view(b), lanes), lanes);
  }
  case PH_UNOP: {
    Val x = need_num(I, eval(I, p->fst, env), p);
    double lanes[NUM_MAX_LANES];
    return num(I, num_unop(p->unop, num_view(x), lanes), lanes);
  }
  case PH_DEF: fail(I, p, "use of def %s: the kernel must be inlined", p->def->name);
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_COUNT: break;
  }
  fail(I, p, "a %s phrase where a value was expected", p->kind < PH_COUNT ? phrase_kind_name[p->kind] : "bad");
}

static void exec(Imp *I, const Phrase *p, const Env *env) {
  step(I);
  switch (p->kind) {
  case PH_SEQ:
    exec(I, p->fst, env);
    exec(I, p->snd, env);
    return;
  case PH_ASSIGN: {
    /* the right-hand side is evaluated (its memory read) before the write */
    const Acc *a = need_acc(I, eval(I, p->fst, env), p);
    Val v = eval(I, p->snd, env);
    write_val(I, a, p->snd->type->data, v, p);
    return;
  }
  case PH_PRIM:
    if (p->prim == PRIM_SKIP) return;
    break;
  case PH_APP: {
    Val f = eval(I, p->fst, env);
    run_comm(I, apply(I, f, eval(I, p->snd, env), p), p);
    return;
  }
  case PH_VAR:
  case PH_PROJ: {
    /* a command bound to a name (a lambda's comm parameter) */
    run_comm(I, p->kind == PH_VAR ? lookup(I, p, env) : project(I, p, env), p);
    return;
  }
  default: break;
  }
  fail(I, p, "a %s phrase where a command was expected", p->kind < PH_COUNT ? phrase_kind_name[p->kind] : "bad");
}

/* ---- entry point ---- */

static double *poisoned(Arena *a, const Lay *l) { return poison(NEWARRAY(a, double, l->flat > 0 ? l->flat : 1), l); }

/* The memory of the input b when an in-place kernel updates it: the
 * output's own (docs/language.md section 27), so that a read after a
 * write of its element sees the write, as on the device; with `updates
 * x, b`, the output's j-th component (pairs nested to the right, each
 * pair's first component before its second).  NULL for any other input. */
static double *in_place_memory(const DefInfo *imp, const Binder *b, const Lay *ol, double *output) {
  if (!imp->updates) return NULL;
  if (imp->nupdated <= 1) return b == imp->updates ? output : NULL;
  for (int j = 0; j < imp->nupdated; j++) {
    if (b == imp->updated[j]) return output;
    if (j + 1 < imp->nupdated && ol->kind == LAY_PAIR) {
      output += ol->fst->flat;
      ol = ol->snd;
    }
  }
  return NULL;
}

ImpStatus imp_interp_run(Arena *a, const DefInfo *imp, const NatValues *nats, int ninputs,
                         const double *const *inputs, const size_t *counts, ImpRun *run, double **out,
                         size_t *out_count, Buf *err) {
  jmp_buf on_fail;
  Imp state, *I = &state;
  memset(I, 0, sizeof *I);
  I->arena = a;
  I->nats = nats;
  I->err = err;
  I->fail = &on_fail;
  I->run = run;
  run->steps = 0;
  scratch_init(&I->scratch, a);
  I->foreign = foreign_fns_new(a);
  if (setjmp(on_fail)) {
    foreign_fns_close(I->foreign);
    return I->over_budget ? IMP_BUDGET : I->fault ? IMP_FAULT : IMP_ERROR;
  }
  if (imp->nparams < 1 || imp->params[0]->type->kind != PT_ACC) fail(I, NULL, "the first parameter of %s is not the output acceptor", imp->name);
  const Lay *ol = layout(I, imp->params[0]->type->data, NULL);
  double *output = poisoned(a, ol);
  const Env *env = NULL;
  int next_input = 0;
  for (int i = 0; i < imp->nparams; i++) {
    const Binder *b = imp->params[i];
    Val v;
    if (i == 0) {
      v = acc_val(acc_buf(I, output, ol));
    } else if (b->type->kind == PT_EXP) {
      const Lay *l = layout(I, b->type->data, NULL);
      if (next_input >= ninputs || counts[next_input] != (size_t)l->flat)
        fail(I, NULL, "input %s of %s: no value of %" PRId64 " elements", b->name, imp->name, l->flat);
      /* inputs as the device holds them (interp.c, precision rule); the
       * input an in-place kernel updates is the output's memory itself
       * (docs/language.md section 27), so that a read after a write to
       * its element sees the write, as on the device */
      double *mem = in_place_memory(imp, b, ol, output);
      if (!mem) mem = NEWARRAY(a, double, l->flat > 0 ? l->flat : 1);
      memcpy(mem, inputs[next_input++], sizeof(double) * (size_t)l->flat);
      lay_round(l, mem);
      Buf why;
      buf_init(&why, a);
      if (b->permutation && !permutation_check(a, b->name, mem, l->flat, &why)) fail(I, NULL, "%s", why.data);
      v = load(I, l, mem);
    } else if (b->type->kind == PT_WITH && b->type->fst->kind == PT_ACC) {
      /* a hoisted temporary (var[T]) */
      const Lay *l = layout(I, b->type->fst->data, NULL);
      v = var_val(I, poisoned(a, l), l);
    } else {
      fail(I, NULL, "parameter %s of %s has a type the kernel interface does not have", b->name, imp->name);
    }
    Env *e = salloc(I, sizeof *e);
    *e = (Env){b, v, env};
    env = e;
  }
  if (next_input != ninputs) fail(I, NULL, "%s has %d inputs, %d given", imp->name, next_input, ninputs);
  exec(I, imp->body, env);
  foreign_fns_close(I->foreign);
  *out = output;
  *out_count = (size_t)ol->flat;
  return IMP_OK;
}
