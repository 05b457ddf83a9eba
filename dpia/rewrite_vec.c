/* rewrite_vec.c: the rule vectoriseLoop (rules.h; docs/language.md
 * section 21), a map whose function is a loop over data it does not
 * depend on rewritten over vectors of lanes. */
#include "rewrite_int.h"

#include <string.h>

/* ---- vectoriseLoop ----
 * map (\x -> e) xs over vectors of n lanes when e is a loop over an array
 * that does not depend on x (the samples or bodies every element reads:
 * samples/mriq.dpia's mriqVec written by a rule).  Each value of e is
 * either uniform (the same for the n elements of a vector: it mentions no
 * value that depends on x) and stays a scalar, or varying and becomes a
 * vector of n lanes, one an element.  Where a varying value meets a
 * uniform one (an operator, a math built-in), the uniform one is
 * broadcast (vec n u); the loop's accumulator is varying throughout, its
 * initial value broadcast.  A varying value is a vector or a pair of them
 * (Shape); a uniform one is left as written, so that the loop's element
 * is read once a step as a scalar.  The lifting is the lane-by-lane
 * meaning of vector arithmetic (docs/language.md section 11): lane k of
 * the result is e at element k. */
typedef enum ShapeKind {
  SH_VECTOR, /* a vector of n lanes */
  SH_PAIR,   /* a pair of fst and snd */
  SH_ARRAY,  /* an array of fst (the same length in every lane: k-means' points' features) */
} ShapeKind;
typedef struct Shape {
  ShapeKind kind;
  const struct Shape *fst, *snd; /* NULL: uniform */
} Shape;

static const Shape shape_vector = {SH_VECTOR, NULL, NULL};

static const Shape *mk_shape(Arena *a, ShapeKind kind, const Shape *fst, const Shape *snd) {
  Shape *s = NEW(a, Shape);
  *s = (Shape){kind, fst, snd};
  return s;
}

/* is s varying, of kind k? */
static bool shape_is(const Shape *s, ShapeKind k) { return s && s->kind == k; }

enum { MAX_LIFT_ENV = 64 };
typedef struct Lift {
  Match *m;
  Span at;
  Sym names[MAX_LIFT_ENV];
  const Shape *shapes[MAX_LIFT_ENV]; /* NULL: uniform */
  int n;
  bool loops; /* a loop was lifted */
  bool failed;
} Lift;

static Ast *lift_fail(Lift *l, const char *what) {
  if (!l->failed) rw_refuse(l->m, what);
  l->failed = true;
  return NULL;
}

static const Shape *lift_lookup(const Lift *l, Sym x) {
  for (int i = l->n - 1; i >= 0; i--)
    if (l->names[i] == x) return l->shapes[i];
  return NULL;
}

static bool lift_bind(Lift *l, Sym x, const Shape *s) {
  if (l->n == MAX_LIFT_ENV) return lift_fail(l, "its function binds too many names to vectorise") != NULL;
  l->names[l->n] = x;
  l->shapes[l->n++] = s;
  return true;
}

/* does e mention a varying value (a name whose binding is varying)? */
static bool lift_varies(const Lift *l, const Ast *e) {
  for (int i = l->n - 1; i >= 0; i--) {
    bool shadowed = false;
    for (int j = i + 1; j < l->n && !shadowed; j++) shadowed = l->names[j] == l->names[i];
    if (!shadowed && l->shapes[i] && rw_count_free(e, l->names[i])) return true;
  }
  return false;
}

static Ast *mk_vec(Lift *l, Ast *u) {
  Arena *a = l->m->fr->arena;
  return rw_mk_app(a, rw_mk_sized(a, PRIM_VEC, rw_mk_num(a, l->m->param), l->at), u, false);
}

static Ast *mk_fst_snd(Arena *a, Prim p, Ast *e, Span at) { return rw_mk_app(a, rw_mk_prim(a, p, 0, at), e, false); }

/* is have want, every leaf varying? */
static bool shape_same(const Shape *have, const Shape *want) {
  if (!have || have->kind != want->kind) return false;
  return want->kind == SH_VECTOR || (shape_same(have->fst, want->fst) && (want->kind == SH_ARRAY || shape_same(have->snd, want->snd)));
}

/* e, of shape have, as a value of shape want (every leaf varying): its
 * uniform parts broadcast; NULL (refused) where the shapes differ */
static Ast *lift_to(Lift *l, Ast *e, const Shape *have, const Shape *want) {
  Arena *a = l->m->fr->arena;
  if (want->kind == SH_VECTOR) {
    if (!have) return mk_vec(l, e);
    if (have->kind == SH_VECTOR) return e;
    return lift_fail(l, "its loop's accumulator is a vector where its initial value or operator gives a pair or an array");
  }
  if (want->kind != SH_PAIR || (have && have->kind != SH_PAIR))
    return lift_fail(l, "its loop's accumulator is a pair where its operator gives one value, or an array");
  if (e->kind == AST_TUPLE) {
    Ast *x = lift_to(l, e->lhs, have ? have->fst : NULL, want->fst);
    Ast *y = x ? lift_to(l, e->rhs, have ? have->snd : NULL, want->snd) : NULL;
    if (!y) return NULL;
    Ast *t = rw_mk(a, AST_TUPLE, e->span);
    t->lhs = x;
    t->rhs = y;
    return t;
  }
  /* a pair written as one value (a name): it must be varying already, in the same shape */
  if (shape_same(have, want)) return e;
  return lift_fail(l, "its loop's initial value or operator gives a pair, written as one value, that is not "
                      "varying in the accumulator's shape");
}

/* the shape of a value that becomes varying in full (the accumulator):
 * that of its initial value z as written, a tuple a pair, else a vector */
static const Shape *full_shape(Arena *a, const Ast *z, const Shape *have) {
  if (z->kind == AST_TUPLE)
    return mk_shape(a, SH_PAIR, full_shape(a, z->lhs, NULL), full_shape(a, z->rhs, NULL));
  if (shape_is(have, SH_PAIR)) return mk_shape(a, SH_PAIR, full_shape(a, z, have->fst), full_shape(a, z, have->snd));
  return &shape_vector;
}

static Ast *lift(Lift *l, const Ast *e, const Shape **shape);

/* the operands of a lane-by-lane operation, each a vector or uniform, the
 * uniform ones broadcast when one varies */
static bool lift_operands(Lift *l, Ast **ops, int n, bool *varies) {
  const Shape *sh[8];
  *varies = false;
  for (int i = 0; i < n; i++) {
    ops[i] = lift(l, ops[i], &sh[i]);
    if (!ops[i]) return false;
    if (sh[i] && sh[i]->kind != SH_VECTOR)
      return lift_fail(l, "an operator of its function is applied to a pair or an array") != NULL;
    *varies |= sh[i] != NULL;
  }
  for (int i = 0; i < n && *varies; i++)
    if (!sh[i]) ops[i] = mk_vec(l, ops[i]);
  return true;
}

/* the loop reduce f z ys over a uniform ys, its accumulator varying */
static Ast *lift_loop(Lift *l, const Spine *s, const Shape **shape) {
  Arena *a = l->m->fr->arena;
  const Ast *f = s->args[0];
  /* an array that depends on the element is read as an array of
   * vectors (lane k: element k's array, all of one length) */
  const Shape *ys;
  Ast *xs = lift(l, s->args[2], &ys);
  if (!xs) return NULL;
  if (ys && ys->kind != SH_ARRAY)
    return lift_fail(l, "its loop runs over an array that depends on the element and is no array of vectors");
  if (f->kind != AST_LAMBDA || f->body->kind != AST_LAMBDA)
    return lift_fail(l, "its loop's operator is no lambda of the element and the accumulator (\\y acc -> ...)");
  const Shape *zs;
  Ast *z = lift(l, s->args[1], &zs);
  if (!z) return NULL;
  const Shape *acc = full_shape(a, s->args[1], zs);
  z = lift_to(l, z, zs, acc);
  int mark = l->n;
  if (!z || !lift_bind(l, f->bound, ys ? ys->fst : NULL) || !lift_bind(l, f->body->bound, acc)) return NULL;
  const Shape *bs;
  Ast *body = lift(l, f->body->body, &bs);
  if (body) body = lift_to(l, body, bs, acc);
  l->n = mark;
  if (!body) return NULL;
  l->loops = true;
  *shape = acc;
  Ast *fn = rw_mk_lambda(a, f->bound, rw_mk_lambda(a, f->body->bound, body, f->body->span), f->span);
  fn->bound_span = f->bound_span;
  fn->body->bound_span = f->body->bound_span;
  Ast *r = rw_mk_app(a, rw_mk_app(a, (Ast *)s->head, fn, false), z, false);
  return rw_mk_app(a, r, xs, true);
}

/* zip a b of arrays, one of them at least of vectors: an array of pairs */
static Ast *lift_zip(Lift *l, const Spine *s, const Ast *e, const Shape **shape) {
  Arena *a = l->m->fr->arena;
  const Shape *x, *y;
  Ast *u = lift(l, s->args[0], &x), *v = u ? lift(l, s->args[1], &y) : NULL;
  if (!v) return NULL;
  if ((x && x->kind != SH_ARRAY) || (y && y->kind != SH_ARRAY))
    return lift_fail(l, "its function zips a value of the element that is no array of vectors");
  *shape = mk_shape(a, SH_ARRAY, mk_shape(a, SH_PAIR, x ? x->fst : NULL, y ? y->fst : NULL), NULL);
  return rw_mk_app(a, rw_mk_app(a, (Ast *)s->head, u, false), v, e->pipe);
}

/* map (\y -> b) ys: an array of b's shape, y of the shape of ys's elements */
static Ast *lift_map(Lift *l, const Spine *s, const Ast *e, const Shape **shape) {
  Arena *a = l->m->fr->arena;
  const Ast *f = s->args[0];
  const Shape *ys, *bs;
  Ast *xs = lift(l, s->args[1], &ys);
  if (!xs) return NULL;
  if (ys && ys->kind != SH_ARRAY) return lift_fail(l, "its function maps over a value of the element that is no array");
  int mark = l->n;
  if (!lift_bind(l, f->bound, ys ? ys->fst : NULL)) return NULL;
  Ast *b = lift(l, f->body, &bs);
  l->n = mark;
  if (!b) return NULL;
  *shape = mk_shape(a, SH_ARRAY, bs, NULL);
  return rw_mk_app(a, rw_mk_app(a, (Ast *)s->head, rw_with_child(a, f, 0, b), false), xs, e->pipe);
}

static Ast *lift(Lift *l, const Ast *e, const Shape **shape) {
  Arena *a = l->m->fr->arena;
  *shape = NULL;
  if (l->failed) return NULL;
  if (!lift_varies(l, e)) return (Ast *)e;
  switch (e->kind) {
  case AST_VAR: *shape = lift_lookup(l, e->name); return (Ast *)e;
  case AST_BINOP: {
    /* a comparison of vectors is a mask of lanes, which select reads
     * lane by lane (docs/language.md section 19) */
    bool arith = e->op == BIN_ADD || e->op == BIN_SUB || e->op == BIN_MUL || e->op == BIN_DIV;
    bool compare = e->op == BIN_LT || e->op == BIN_LE || e->op == BIN_GT || e->op == BIN_GE;
    if (!arith && !compare)
      return lift_fail(l, "its function applies an operator other than + - * / < <= > >= to values of the element");
    Ast *ops[2] = {e->lhs, e->rhs};
    bool varies;
    if (!lift_operands(l, ops, 2, &varies)) return NULL;
    *shape = &shape_vector;
    return rw_mk_binop(a, e->op, ops[0], ops[1]);
  }
  case AST_NEG: {
    Ast *x = lift(l, e->lhs, shape);
    if (!x) return NULL;
    if ((*shape)->kind != SH_VECTOR) return lift_fail(l, "its function negates a pair or an array");
    return rw_with_child(a, e, 0, x);
  }
  case AST_PROJ: {
    const Shape *p;
    Ast *x = lift(l, e->lhs, &p);
    if (!x) return NULL;
    if (p->kind != SH_PAIR) return lift_fail(l, "its function projects a vector or an array as a pair");
    *shape = e->proj == 1 ? p->fst : p->snd;
    return rw_with_child(a, e, 0, x);
  }
  case AST_LANE:
    /* lane k of a vector of n elements is element k's: a lane of the
     * element's own vector (n-body's r.x) would need a vector a lane */
    return lift_fail(l, "its function reads a lane (r.x) of a value that depends on the element: an element that "
                        "is a vector itself is not cut into vectors of its lanes");
  case AST_TUPLE: {
    const Shape *x, *y;
    Ast *u = lift(l, e->lhs, &x), *v = u ? lift(l, e->rhs, &y) : NULL;
    if (!v) return NULL;
    *shape = mk_shape(a, SH_PAIR, x, y);
    Ast *t = rw_with_child(a, e, 0, u);
    return rw_with_child(a, t, 1, v);
  }
  case AST_LET: {
    const Shape *vs;
    Ast *v = lift(l, e->value, &vs);
    int mark = l->n;
    if (!v || !lift_bind(l, e->bound, vs)) return NULL;
    Ast *b = lift(l, e->body, shape);
    l->n = mark;
    if (!b) return NULL;
    Ast *t = rw_with_child(a, e, 0, v);
    return rw_with_child(a, t, 1, b);
  }
  case AST_APP: {
    Spine s = rw_spine_of(e);
    if (s.head->kind == AST_LAMBDA && s.nargs == 1) {
      /* x |> (\acc -> ...): the lambda's parameter takes the argument's shape */
      const Shape *as;
      Ast *x = lift(l, s.args[0], &as);
      int mark = l->n;
      if (!x || !lift_bind(l, s.head->bound, as)) return NULL;
      Ast *b = lift(l, s.head->body, shape);
      l->n = mark;
      if (!b) return NULL;
      return rw_mk_app(a, rw_with_child(a, s.head, 0, b), x, e->pipe);
    }
    if (s.head->kind != AST_PRIM) break;
    Prim p = s.head->prim;
    if ((p == PRIM_FST || p == PRIM_SND) && s.nargs == 1) {
      const Shape *ps;
      Ast *x = lift(l, s.args[0], &ps);
      if (!x) return NULL;
      if (ps->kind != SH_PAIR) return lift_fail(l, "its function projects a vector or an array as a pair");
      *shape = p == PRIM_FST ? ps->fst : ps->snd;
      return rw_mk_app(a, (Ast *)s.head, x, e->pipe);
    }
    if ((p == PRIM_REDUCE || p == PRIM_REDUCE_SEQ) && s.nargs == 3) return lift_loop(l, &s, shape);
    if (p == PRIM_ZIP && s.nargs == 2) return lift_zip(l, &s, e, shape);
    if (p == PRIM_MAP && s.nargs == 2 && s.args[0]->kind == AST_LAMBDA) return lift_map(l, &s, e, shape);
    bool select = p == PRIM_SELECT && s.nargs == 3;
    if (select || (prim_family(p) == PFAM_MATH && s.nargs == prim_arity_of(p) && s.nargs <= 8)) {
      Ast *ops[8];
      for (int i = 0; i < s.nargs; i++) ops[i] = (Ast *)s.args[i];
      bool varies;
      if (!lift_operands(l, ops, s.nargs, &varies)) return NULL;
      Ast *r = (Ast *)s.head;
      for (int i = 0; i < s.nargs; i++) r = rw_mk_app(a, r, ops[i], i == s.nargs - 1 && e->pipe);
      *shape = &shape_vector;
      return r;
    }
    break;
  }
  default: break;
  }
  return lift_fail(l, "its function computes from the element with something that has no lane-by-lane form (only "
                      "lets, fst and snd, + - * /, math built-ins and loops over arrays that do not depend on it)");
}

/* the shape of the elements of a zip tree: zip a b a pair, transpose m
 * (the columns of m: k-means' points) an array of vectors, else a vector */
static const Shape *zip_shape(Arena *a, const Ast *xs) {
  Spine z;
  if (xs && rw_is_app_of(xs, PRIM_TRANSPOSE, 1, NULL)) return mk_shape(a, SH_ARRAY, &shape_vector, NULL);
  if (!xs || !rw_is_app_of(xs, PRIM_ZIP, 2, &z)) return &shape_vector;
  return mk_shape(a, SH_PAIR, zip_shape(a, z.args[0]), zip_shape(a, z.args[1]));
}

/* a zip tree with each leaf cut into vectors of n: zip (zip a b) c ->
 * zip (zip (asVector n a) (asVector n b)) (asVector n c); with columns,
 * a leaf transpose m (zip_shape: an array of vectors) as map (asVector
 * n) m |> transpose, n columns at a time (kmeansVec's reading) */
Ast *rw_vectors_of(Arena *a, Ast *e, long long n, Span at, bool columns) {
  Spine z;
  Ast *vec = rw_mk_sized(a, PRIM_AS_VECTOR, rw_mk_num(a, n), at);
  if (columns && rw_is_app_of(e, PRIM_TRANSPOSE, 1, &z)) {
    Ast *rows = rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), vec, false), (Ast *)z.args[0], true);
    return rw_mk_app(a, (Ast *)z.head, rows, true);
  }
  if (!rw_is_app_of(e, PRIM_ZIP, 2, &z)) return rw_mk_app(a, vec, e, false);
  Ast *l = rw_vectors_of(a, (Ast *)z.args[0], n, at, columns), *r = rw_vectors_of(a, (Ast *)z.args[1], n, at, columns);
  return rw_mk_app(a, rw_mk_app(a, (Ast *)z.head, l, false), r, false);
}

/* the n elements of a value of shape s: a vector's lanes as an array
 * literal [v.s0, ..., v.s(n-1)], a pair's as the zip of its parts' */
static Ast *lanes_of(Lift *l, Ast *v, const Shape *s) {
  Arena *a = l->m->fr->arena;
  if (s->kind == SH_PAIR) {
    Ast *x = lanes_of(l, mk_fst_snd(a, PRIM_FST, v, l->at), s->fst);
    Ast *y = lanes_of(l, mk_fst_snd(a, PRIM_SND, v, l->at), s->snd);
    return rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_ZIP, 0, l->at), x, false), y, false);
  }
  Ast *arr = rw_mk(a, AST_ARRAY, l->at);
  arr->nelems = (int)l->m->param;
  arr->elems = NEWARRAY(a, Ast *, arr->nelems);
  for (int k = 0; k < arr->nelems; k++) {
    Ast *lane = rw_mk(a, AST_LANE, l->at);
    lane->lhs = v;
    lane->proj = k;
    arr->elems[k] = lane;
  }
  return arr;
}

/* can a result of shape s be cut back into lanes (lanes_of): vectors
 * and pairs of them, every part varying */
static bool cuts_into_lanes(const Shape *s) {
  if (!s) return false;
  switch (s->kind) {
  case SH_VECTOR: return true;
  case SH_PAIR: return cuts_into_lanes(s->fst) && cuts_into_lanes(s->snd);
  case SH_ARRAY: return false;
  }
  return false;
}

/* let r = e in the lanes of r (lanes_of), at the end of e's lets, so
 * that it reads as the last line of the function */
static Ast *cut_pairs(Lift *l, Ast *e, const Shape *s) {
  Arena *a = l->m->fr->arena;
  if (e->kind == AST_LET) return rw_with_child(a, e, 1, cut_pairs(l, e->body, s));
  const Ast *avoid[] = {e};
  Sym r = rw_fresh_name(l->m->fr, "r", avoid, 1);
  Ast *let = rw_mk(a, AST_LET, l->at);
  let->bound = r;
  let->bound_span = l->at;
  let->value = e;
  let->body = lanes_of(l, rw_mk_var(a, r, l->at), s);
  return let;
}

Ast *rule_vectorise_loop(Match *m, const Spine *s) {
  Arena *a = m->fr->arena;
  const Ast *fn = rw_head_is(s, PRIM_MAP) && s->nargs >= 1 && s->nargs <= 2 ? s->args[0] : NULL;
  if (!fn || fn->kind != AST_LAMBDA) return rw_refuse(m, "it is no plain map of a lambda");
  Ast *input = s->nargs == 2 ? (Ast *)s->args[1] : NULL;
  /* an element that is a vector itself (float4): a structure of arrays */
  if (input && rw_soa_element(m, input)) return rule_vectorise_soa(m, s);
  Lift l = {.m = m, .at = s->head->span};
  lift_bind(&l, fn->bound, zip_shape(a, input));
  const Shape *rs;
  Ast *body = lift(&l, fn->body, &rs);
  if (!body) return NULL;
  if (!l.loops)
    return rw_refuse(m, "its function has no loop (reduce) that depends on the element (vectorise is the rule of a "
                     "function without one)");
  if (!rs) return rw_refuse(m, "its function's result does not depend on the element");
  if (!cuts_into_lanes(rs))
    return rw_refuse(m, "its function's result is an array, or a pair with a part that does not depend on the element");
  if (m->check_only) return (Ast *)m->e;
  Span at = s->head->span;
  Ast *stages[4];
  int n = 0;
  if (input && (rw_is_app_of(input, PRIM_ZIP, 2, NULL) || rw_is_app_of(input, PRIM_TRANSPOSE, 1, NULL)))
    input = rw_vectors_of(a, input, m->param, at, true);
  else
    stages[n++] = rw_mk_sized(a, PRIM_AS_VECTOR, rw_mk_num(a, m->param), at);
  /* n results a vector of pairs: each the lanes of its parts, zipped,
   * then the arrays of n joined (as mriqVec writes them) */
  if (rs->kind == SH_PAIR) body = cut_pairs(&l, body, rs);
  Ast *lam = rw_mk_lambda(a, fn->bound, body, fn->span);
  lam->bound_span = fn->bound_span;
  stages[n++] = rw_mk_app(a, (Ast *)s->head, lam, false);
  stages[n++] = rs->kind == SH_PAIR ? rw_mk_prim(a, PRIM_JOIN, 0, at) : rw_mk_prim(a, PRIM_AS_SCALAR, 0, at);
  return rw_mk_stages(a, input, stages, n);
}
