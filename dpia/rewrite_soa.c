/* rewrite_soa.c: vectoriseLoop for an element that is a vector itself
 * (rules.h; docs/language.md section 21, "vectors of vectors"): n-body's
 * bodies, float4, read lane by lane (r.x).  rewrite_vec.c's lifting makes
 * each value of the element one vector of W lanes, one lane an element;
 * a float4 would need a vector a lane.  Here such a value becomes a
 * structure of arrays instead: K vectors of W lanes (px holds the W x),
 * its .x selecting one of them, float4 a b c d building them, arithmetic
 * done component by component.  The W elements are gathered into the
 * components (float8 (fst (idx ps 0)).x ...), the loop runs on them, and
 * what follows the loop is computed element by element as written, from
 * the loop's result cut back into W float4 (samples/nbody.dpia's
 * nbodyVec, written by hand, reads the same).  Lane c of component k is
 * lane k of element c's value: the lane-by-lane meaning of vector
 * arithmetic (docs/language.md section 11) taken twice. */
#include "rewrite_int.h"

#include <stdio.h>
#include <string.h>

/* A value of the lifted function: uniform (the same for the W elements,
 * left as written; its width, 1 for a scalar, K for a floatK, 0 if not
 * known), a vector of W lanes (a varying scalar), K such vectors (a
 * varying floatK) or a pair. */
typedef enum VKind { V_UNI, V_VEC, V_SOA, V_PAIR } VKind;
enum { MAX_COMPS = 16 };
typedef struct Val {
  VKind kind;
  int width;                  /* V_UNI */
  const Ast *u;               /* V_UNI */
  int k;                      /* V_VEC: 1; V_SOA: the components */
  Ast *c[MAX_COMPS];          /* V_VEC, V_SOA */
  Ast *whole;                 /* V_SOA: a loop's value, the components a nested pair (c unset) */
  const struct Val *fst, *snd; /* V_PAIR */
} Val;

enum { MAX_SOA_ENV = 64, MAX_SOA_NAMES = 128 };
typedef struct Soa {
  Match *m;
  Span at;
  int w; /* the width W */
  Sym names[MAX_SOA_ENV];
  const Val *vals[MAX_SOA_ENV];
  int n;
  const Ast *avoid[MAX_SOA_NAMES]; /* the original map and every name made */
  int navoid;
  Sym pend_names[MAX_SOA_NAMES]; /* the lets waiting (push_let) */
  Ast *pend_vals[MAX_SOA_NAMES];
  int npend;
  bool loops, failed;
} Soa;

static const Val *soa_fail(Soa *s, const char *what) {
  if (!s->failed) rw_refuse(s->m, what);
  s->failed = true;
  return NULL;
}

static Arena *soa_arena(Soa *s) { return s->m->fr->arena; }

static Val *mk_val(Soa *s, VKind kind) {
  Val *v = NEW(soa_arena(s), Val);
  memset(v, 0, sizeof *v);
  v->kind = kind;
  return v;
}

static bool soa_bind(Soa *s, Sym x, const Val *v) {
  if (s->n == MAX_SOA_ENV) return soa_fail(s, "its function binds too many names to vectorise") != NULL;
  s->names[s->n] = x;
  s->vals[s->n++] = v;
  return true;
}

static const Val *soa_lookup(const Soa *s, Sym x) {
  for (int i = s->n - 1; i >= 0; i--)
    if (s->names[i] == x) return s->vals[i];
  return NULL;
}

/* does e mention a varying value? */
static bool soa_varies(const Soa *s, const Ast *e) {
  for (int i = s->n - 1; i >= 0; i--) {
    bool shadowed = false;
    for (int j = i + 1; j < s->n && !shadowed; j++) shadowed = s->names[j] == s->names[i];
    if (!shadowed && s->vals[i]->kind != V_UNI && rw_count_free(e, s->names[i])) return true;
  }
  return false;
}

/* a fresh name base+suffix, clear of the original and of every name made */
static Sym soa_name(Soa *s, Sym base, const char *suffix) {
  Fresh *fr = (Fresh *)s->m->fr;
  const char *b = arena_printf(fr->arena, "%s%s", base, suffix);
  Sym x = rw_fresh_name(fr, b, s->avoid, s->navoid);
  if (s->navoid < MAX_SOA_NAMES) s->avoid[s->navoid++] = rw_mk_var(fr->arena, x, s->at);
  return x;
}

/* the element width of the array a kernel parameter named x holds
 * ([N]float4: 4, [N]float: 1); 0 if no kernel has such a parameter or
 * kernels disagree */
static int param_elem_width(const Program *prog, Sym x, bool array) {
  int w = 0;
  for (int i = 0; i < prog->ndecls; i++) {
    const Decl *d = prog->decls[i];
    if (!d->is_kernel) continue;
    for (int j = 0; j < d->nparams; j++) {
      const TypeAst *t = d->params[j].type;
      if (d->params[j].name != x || !t) continue;
      if (array) t = t->kind == TYA_ARRAY ? t->elem : NULL;
      int pw = t && t->kind == TYA_SCALAR && t->scalar == SC_FLOAT ? t->vec_width : 0;
      if (w && pw != w) return 0;
      w = pw;
    }
  }
  return w;
}

/* the width of a uniform value (1 a float, K a floatK), 0 if unknown */
static int uwidth(Soa *s, const Ast *e) {
  switch (e->kind) {
  case AST_FLOAT: return 1;
  case AST_LANE: return 1;
  case AST_VAR: {
    const Val *v = soa_lookup(s, e->name);
    if (v) return v->kind == V_UNI ? v->width : 0;
    return param_elem_width(s->m->fr->prog, e->name, false);
  }
  case AST_NEG: return uwidth(s, e->lhs);
  case AST_BINOP: {
    int x = uwidth(s, e->lhs), y = uwidth(s, e->rhs);
    if (!x || !y || (x > 1 && y > 1 && x != y)) return 0;
    return x > y ? x : y;
  }
  case AST_APP: {
    Spine sp = rw_spine_of(e);
    if (sp.head->kind != AST_PRIM) return 0;
    Prim p = sp.head->prim;
    if (p == PRIM_VEC && sp.nargs == 1 && sp.head->sizes[0] && sp.head->sizes[0]->kind == SZA_NUM)
      return (int)sp.head->sizes[0]->num;
    if (p == PRIM_FLOAT2 || p == PRIM_FLOAT3 || p == PRIM_FLOAT4 || p == PRIM_FLOAT8 || p == PRIM_FLOAT16)
      return sp.nargs == prim_arity_of(p) ? sp.nargs : 0;
    if (prim_family(p) == PFAM_MATH && sp.nargs == prim_arity_of(p)) {
      int w = 1;
      for (int i = 0; i < sp.nargs; i++) {
        int x = uwidth(s, sp.args[i]);
        if (!x || (x > 1 && w > 1 && x != w)) return 0;
        if (x > w) w = x;
      }
      return w;
    }
    return 0;
  }
  default: return 0;
  }
}

static Prim float_of_width(int w) {
  switch (w) {
  case 2: return PRIM_FLOAT2;
  case 3: return PRIM_FLOAT3;
  case 4: return PRIM_FLOAT4;
  case 8: return PRIM_FLOAT8;
  case 16: return PRIM_FLOAT16;
  default: return PRIM_COUNT;
  }
}

static Ast *mk_lane(Soa *s, Ast *v, int k) {
  Ast *e = rw_mk(soa_arena(s), AST_LANE, s->at);
  e->lhs = v;
  e->proj = k;
  return e;
}

static Ast *mk_vec(Soa *s, Ast *u) {
  Arena *a = soa_arena(s);
  return rw_mk_app(a, rw_mk_sized(a, PRIM_VEC, rw_mk_num(a, s->w), s->at), u, false);
}

static Ast *mk_proj(Soa *s, Prim p, Ast *e) { return rw_mk_app(soa_arena(s), rw_mk_prim(soa_arena(s), p, 0, s->at), e, false); }

/* floatK a b ...: the vector of the K lanes */
static Ast *mk_floatk(Soa *s, Ast **lanes, int k) {
  Ast *r = rw_mk_prim(soa_arena(s), float_of_width(k), 0, s->at);
  for (int i = 0; i < k; i++) r = rw_mk_app(soa_arena(s), r, lanes[i], false);
  return r;
}

/* component i of the nested pair t of k components (c0, (c1, ...)) */
static Ast *nested_comp(Soa *s, Ast *t, int i, int k) {
  for (int j = 0; j < i; j++) t = mk_proj(s, PRIM_SND, t);
  return i < k - 1 ? mk_proj(s, PRIM_FST, t) : t;
}

static Ast *nested_pair(Soa *s, Ast *const *c, int k) {
  if (k == 1) return c[0];
  Ast *t = rw_mk(soa_arena(s), AST_TUPLE, s->at);
  t->lhs = c[0];
  t->rhs = nested_pair(s, c + 1, k - 1);
  return t;
}

/* v as a vector of W lanes (a varying scalar): a uniform scalar broadcast */
static Ast *as_vector(Soa *s, const Val *v) {
  if (v->kind == V_VEC) return v->c[0];
  if (v->kind == V_UNI && uwidth(s, v->u) == 1) return mk_vec(s, (Ast *)v->u);
  return (Ast *)soa_fail(s, "its function mixes a vector of the element with a scalar");
}

/* component i of v as a vector of W lanes, v one of K components: a
 * varying scalar is the same in each, a uniform floatK gives its lane i */
static Ast *as_comp(Soa *s, const Val *v, int i, int k) {
  switch (v->kind) {
  case V_SOA:
    if (v->whole || v->k != k) break;
    return v->c[i];
  case V_VEC: return v->c[0];
  case V_UNI: {
    int w = uwidth(s, v->u);
    if (w == 1) return mk_vec(s, (Ast *)v->u);
    if (w == k) {
      /* vec K e: lane i is e */
      Spine sp = rw_spine_of(v->u);
      if (sp.head->kind == AST_PRIM && sp.head->prim == PRIM_VEC && sp.nargs == 1 && uwidth(s, sp.args[0]) == 1)
        return mk_vec(s, (Ast *)sp.args[0]);
      /* floatK a b ...: lane i is its i-th argument */
      if (sp.head->kind == AST_PRIM && sp.head->prim == float_of_width(k) && sp.nargs == k && uwidth(s, sp.args[i]) == 1)
        return mk_vec(s, (Ast *)sp.args[i]);
      return mk_vec(s, mk_lane(s, (Ast *)v->u, i));
    }
    break;
  }
  case V_PAIR: break;
  }
  return (Ast *)soa_fail(s, "its function combines vectors of the element of different widths, a pair, or a value whose "
                            "width the rule cannot tell");
}

static const Val *soa_lift(Soa *s, const Ast *e);
static Ast *wrap_lets(Soa *s, int mark, Ast *body);
static bool push_let(Soa *s, Sym x, Ast *v);

/* a value from lane-by-lane operands: one vector if none is a floatK,
 * else K components; op(c) builds one from the operands' c */
static const Val *lift_lanewise(Soa *s, const Val **ops, int n, Ast *(*op)(Soa *, const Ast *, Ast **),
                                const Ast *e) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    int w = ops[i]->kind == V_SOA ? ops[i]->k : ops[i]->kind == V_UNI ? uwidth(s, ops[i]->u) : 1;
    if (ops[i]->kind == V_PAIR || w == 0) return soa_fail(s, "its function applies an operator to a pair, or to a value "
                                                             "whose width the rule cannot tell");
    if (w > 1 && k > 1 && w != k) return soa_fail(s, "its function combines vectors of different widths");
    if (w > 1) k = w;
  }
  /* a vector computed once, read by each of the K components: a let
   * (nbodyVec's s), not K copies of its expression */
  for (int i = 0; i < n && k; i++) {
    if (ops[i]->kind != V_VEC || ops[i]->c[0]->kind == AST_VAR) continue;
    Sym x = soa_name(s, intern_cstr(s->m->fr->in, "s"), "");
    if (!push_let(s, x, ops[i]->c[0])) return NULL;
    Val *v = mk_val(s, V_VEC);
    v->k = 1;
    v->c[0] = rw_mk_var(soa_arena(s), x, s->at);
    ops[i] = v;
  }
  Val *r = mk_val(s, k ? V_SOA : V_VEC);
  r->k = k ? k : 1;
  for (int c = 0; c < r->k; c++) {
    Ast *args[8];
    for (int i = 0; i < n; i++)
      if (!(args[i] = k ? as_comp(s, ops[i], c, k) : as_vector(s, ops[i]))) return NULL;
    r->c[c] = op(s, e, args);
  }
  return r;
}

static Ast *op_binop(Soa *s, const Ast *e, Ast **x) { return rw_mk_binop(soa_arena(s), e->op, x[0], x[1]); }
static Ast *op_neg(Soa *s, const Ast *e, Ast **x) { return rw_with_child(soa_arena(s), e, 0, x[0]); }
static Ast *op_call(Soa *s, const Ast *e, Ast **x) {
  Spine sp = rw_spine_of(e);
  Ast *r = (Ast *)sp.head;
  for (int i = 0; i < sp.nargs; i++) r = rw_mk_app(soa_arena(s), r, x[i], false);
  return r;
}

/* reduce (\y a -> b) z ys over a uniform ys: the accumulator varying
 * (K components as a nested pair, or one vector), y uniform */
static const Val *lift_loop(Soa *s, const Spine *sp) {
  Arena *a = soa_arena(s);
  const Ast *f = sp->args[0], *ys = sp->args[2];
  if (soa_varies(s, ys)) return soa_fail(s, "its loop runs over an array that depends on the element");
  if (f->kind != AST_LAMBDA || f->body->kind != AST_LAMBDA)
    return soa_fail(s, "its loop's operator is no lambda of the element and the accumulator (\\y acc -> ...)");
  const Val *z = soa_lift(s, sp->args[1]);
  if (!z) return NULL;
  int k = z->kind == V_SOA ? z->k : z->kind == V_UNI ? uwidth(s, z->u) : 1;
  if (z->kind == V_PAIR || (z->kind == V_SOA && z->whole) || k == 0)
    return soa_fail(s, "its loop's initial value is a pair, or a value whose width the rule cannot tell");
  Ast *zc[MAX_COMPS];
  for (int c = 0; c < k; c++)
    if (!(zc[c] = k > 1 ? as_comp(s, z, c, k) : as_vector(s, z))) return NULL;
  Val *y = mk_val(s, V_UNI);
  y->u = NULL;
  y->width = ys->kind == AST_VAR ? param_elem_width(s->m->fr->prog, ys->name, true) : 0;
  Val *acc = mk_val(s, k > 1 ? V_SOA : V_VEC);
  acc->k = k;
  Ast *av = rw_mk_var(a, f->body->bound, f->body->bound_span);
  for (int c = 0; c < k; c++) acc->c[c] = k > 1 ? nested_comp(s, av, c, k) : av;
  int mark = s->n, pmark = s->npend;
  if (!soa_bind(s, f->bound, y) || !soa_bind(s, f->body->bound, acc)) return NULL;
  const Val *b = soa_lift(s, f->body->body);
  s->n = mark;
  if (!b) return NULL;
  Ast *bc[MAX_COMPS];
  for (int c = 0; c < k; c++)
    if (!(bc[c] = k > 1 ? as_comp(s, b, c, k) : as_vector(s, b))) return NULL;
  s->loops = true;
  Ast *step = wrap_lets(s, pmark, nested_pair(s, bc, k));
  Ast *fn = rw_mk_lambda(a, f->bound, rw_mk_lambda(a, f->body->bound, step, f->body->span), f->span);
  fn->bound_span = f->bound_span;
  fn->body->bound_span = f->body->bound_span;
  Ast *loop = rw_mk_app(a, rw_mk_app(a, (Ast *)sp->head, fn, false), nested_pair(s, zc, k), false);
  loop = rw_mk_app(a, loop, (Ast *)ys, true);
  Val *r = mk_val(s, k > 1 ? V_SOA : V_VEC);
  r->k = k;
  if (k > 1) r->whole = loop;
  else r->c[0] = loop;
  return r;
}

static const char *const comp_letter[] = {"x", "y", "z", "w"};

/* a let waiting for the closing point (a loop's body, the function's
 * lets up to the loop) that wraps the lets its value reads */
static bool push_let(Soa *s, Sym x, Ast *v) {
  for (int i = 0; i < s->npend; i++)
    if (s->pend_names[i] == x) return soa_fail(s, "its function binds one name twice") != NULL;
  if (soa_lookup(s, x) || rw_count_free(s->m->e, x))
    return soa_fail(s, "its function binds a name that it also reads from outside") != NULL;
  if (s->npend == MAX_SOA_NAMES) return soa_fail(s, "its function binds too many names to vectorise") != NULL;
  s->pend_names[s->npend] = x;
  s->pend_vals[s->npend++] = v;
  return true;
}

/* let x = v in ...: a vector or K components bound to names (x, or xx xy
 * xz xw: those the rest reads), a uniform value as written, a pair of
 * the element's by substitution (it holds views: fst pv) */
static bool bind_value(Soa *s, Sym x, const Ast *as_written, const Val *v) {
  Arena *a = soa_arena(s);
  if (v->kind == V_PAIR) return soa_bind(s, x, v);
  if (v->kind == V_UNI) return push_let(s, x, (Ast *)as_written) && soa_bind(s, x, v);
  Val *nv = mk_val(s, v->kind);
  nv->k = v->k;
  Ast *whole = NULL;
  if (v->kind == V_SOA && v->whole) {
    /* let acc = reduce ... in let accx = fst acc in ... */
    if (!push_let(s, x, v->whole)) return false;
    if (s->navoid < MAX_SOA_NAMES) s->avoid[s->navoid++] = rw_mk_var(a, x, s->at);
    whole = rw_mk_var(a, x, s->at);
  }
  for (int c = 0; c < v->k; c++) {
    char suffix[16]; /* a component number, or x y z w */
    if (v->kind == V_VEC) suffix[0] = 0;
    else if (v->k <= 4) snprintf(suffix, sizeof suffix, "%s", comp_letter[c]);
    else snprintf(suffix, sizeof suffix, "%d", c);
    Sym n = v->kind == V_VEC ? x : soa_name(s, x, suffix);
    if (!push_let(s, n, whole ? nested_comp(s, whole, c, v->k) : v->c[c])) return false;
    nv->c[c] = rw_mk_var(a, n, s->at);
  }
  return soa_bind(s, x, nv);
}

/* the lets pushed since mark around body, those it reads (and those the
 * lets kept read: from the last one back) */
static Ast *wrap_lets(Soa *s, int mark, Ast *body) {
  for (int i = s->npend - 1; i >= mark; i--) {
    if (!rw_count_free(body, s->pend_names[i])) continue;
    Ast *let = rw_mk(soa_arena(s), AST_LET, s->at);
    let->bound = s->pend_names[i];
    let->bound_span = s->at;
    let->value = s->pend_vals[i];
    let->body = body;
    body = let;
  }
  s->npend = mark;
  return body;
}

static const Val *soa_lift(Soa *s, const Ast *e) {
  if (s->failed) return NULL;
  if (!soa_varies(s, e)) {
    Val *v = mk_val(s, V_UNI);
    v->u = e;
    v->width = uwidth(s, e);
    return v;
  }
  switch (e->kind) {
  case AST_VAR: return soa_lookup(s, e->name);
  case AST_BINOP: {
    bool arith = e->op == BIN_ADD || e->op == BIN_SUB || e->op == BIN_MUL || e->op == BIN_DIV;
    if (!arith) return soa_fail(s, "its function applies an operator other than + - * / to a vector of the element");
    const Val *ops[2] = {soa_lift(s, e->lhs), NULL};
    if (ops[0]) ops[1] = soa_lift(s, e->rhs);
    return ops[1] ? lift_lanewise(s, ops, 2, op_binop, e) : NULL;
  }
  case AST_NEG: {
    const Val *ops[1] = {soa_lift(s, e->lhs)};
    return ops[0] ? lift_lanewise(s, ops, 1, op_neg, e) : NULL;
  }
  case AST_LANE: {
    const Val *v = soa_lift(s, e->lhs);
    if (!v) return NULL;
    if (v->kind != V_SOA || v->whole || e->proj >= v->k)
      return soa_fail(s, "its function reads a lane of a value of the element that is no vector of its lanes");
    Val *r = mk_val(s, V_VEC);
    r->k = 1;
    r->c[0] = v->c[e->proj];
    return r;
  }
  case AST_LET: {
    /* the lets of the value and the body wait for the closing point */
    const Val *v = soa_lift(s, e->value);
    int mark = s->n;
    if (!v || !bind_value(s, e->bound, e->value, v)) return NULL;
    const Val *b = soa_lift(s, e->body);
    s->n = mark;
    return b;
  }
  case AST_APP: {
    Spine sp = rw_spine_of(e);
    if (sp.head->kind != AST_PRIM) break;
    Prim p = sp.head->prim;
    if ((p == PRIM_FST || p == PRIM_SND) && sp.nargs == 1) {
      const Val *v = soa_lift(s, sp.args[0]);
      if (!v) return NULL;
      if (v->kind != V_PAIR) return soa_fail(s, "its function projects a vector of the element as a pair");
      return p == PRIM_FST ? v->fst : v->snd;
    }
    if ((p == PRIM_REDUCE || p == PRIM_REDUCE_SEQ) && sp.nargs == 3) return lift_loop(s, &sp);
    if (float_of_width(sp.nargs) == p && sp.nargs <= 4) {
      /* float4 a b c d: K components, each lane one */
      Val *r = mk_val(s, V_SOA);
      r->k = sp.nargs;
      for (int i = 0; i < sp.nargs; i++) {
        const Val *x = soa_lift(s, sp.args[i]);
        if (!x || !(r->c[i] = as_vector(s, x))) return NULL;
      }
      return r;
    }
    if (prim_family(p) == PFAM_MATH && sp.nargs == prim_arity_of(p) && sp.nargs <= 8) {
      const Val *ops[8];
      for (int i = 0; i < sp.nargs; i++)
        if (!(ops[i] = soa_lift(s, sp.args[i]))) return NULL;
      return lift_lanewise(s, ops, sp.nargs, op_call, e);
    }
    break;
  }
  default: break;
  }
  return soa_fail(s, "its function computes from an element that is a vector with something that has no form on "
                     "vectors of its lanes (lets, fst and snd, + - * /, math built-ins, floatK, a lane, a loop)");
}

/* the element of a zip tree of kernel parameters ([N]floatK or
 * [N]float), its W values gathered from the array b of W elements:
 * component c of a floatK leaf at path get is floatW (get (idx b 0)).c
 * ..., a float leaf floatW (get (idx b 0)) ... */
static const Val *gather(Soa *s, const Ast *xs, Ast *b, const Prim *path, int depth) {
  Arena *a = soa_arena(s);
  Spine z;
  if (rw_is_app_of(xs, PRIM_ZIP, 2, &z)) {
    if (depth == 8) return soa_fail(s, "its array is a zip too deep to gather");
    Prim p[9];
    if (depth > 0) memcpy(p, path, sizeof(Prim) * (size_t)depth); /* path is NULL at the root */
    Val *v = mk_val(s, V_PAIR);
    p[depth] = PRIM_FST;
    v->fst = gather(s, z.args[0], b, p, depth + 1);
    p[depth] = PRIM_SND;
    v->snd = v->fst ? gather(s, z.args[1], b, p, depth + 1) : NULL;
    return v->snd ? v : NULL;
  }
  int k = xs->kind == AST_VAR ? param_elem_width(s->m->fr->prog, xs->name, true) : 0;
  if (k == 0 || k > 4)
    return soa_fail(s, "its array is no kernel parameter of floats or of float2, float3, float4 (or a zip of them)");
  Val *v = mk_val(s, k > 1 ? V_SOA : V_VEC);
  v->k = k;
  for (int c = 0; c < k; c++) {
    Ast *lanes[16];
    for (int i = 0; i < s->w; i++) {
      Ast *ix = rw_mk(a, AST_INT, s->at);
      ix->int_value = (uint64_t)i;
      Ast *el = rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_IDX, 0, s->at), b, false), ix, false);
      for (int d = depth - 1; d >= 0; d--) el = mk_proj(s, path[d], el);
      lanes[i] = k > 1 ? mk_lane(s, el, c) : el;
    }
    v->c[c] = mk_floatk(s, lanes, s->w);
  }
  return v;
}

/* the lifted lets up to the loop's, then the element-by-element rest:
 * zip b [the W results of the loop] |> map (\e -> let x = fst e in
 * <the lets before the loop, as written> let acc = snd e in <the rest>) */
static Ast *lift_chain(Soa *s, const Ast *fn, Ast *b) {
  Arena *a = soa_arena(s);
  int pmark = s->npend, mark = s->n;
  const Ast *e = fn->body;
  for (;; e = e->body) {
    if (e->kind != AST_LET) return (Ast *)soa_fail(s, "its function is no lets with a loop that depends on the element");
    bool loop = soa_varies(s, e->value) &&
                (rw_is_app_of(e->value, PRIM_REDUCE, 3, NULL) || rw_is_app_of(e->value, PRIM_REDUCE_SEQ, 3, NULL));
    const Val *v = soa_lift(s, e->value);
    if (!v) return NULL;
    if (loop && v->kind != V_VEC && v->kind != V_SOA) return (Ast *)soa_fail(s, "its loop's value is no vector or floatK");
    if (!bind_value(s, e->bound, e->value, v)) return NULL;
    if (loop) break;
  }
  /* the W results: acc.s0 ..., or float4 accx.s0 accy.s0 ... */
  const Val *acc = soa_lookup(s, e->bound);
  s->n = mark;
  /* an array literal holds numbers (E0324): one array of the W lanes a
   * component, zipped, the floatK built again element by element */
  Ast *lanes = NULL;
  for (int c = acc->k - 1; c >= 0; c--) {
    Ast *arr = rw_mk(a, AST_ARRAY, s->at);
    arr->nelems = s->w;
    arr->elems = NEWARRAY(a, Ast *, s->w);
    for (int i = 0; i < s->w; i++) arr->elems[i] = mk_lane(s, acc->c[c], i);
    lanes = lanes ? rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_ZIP, 0, s->at), arr, false), lanes, false) : arr;
  }
  /* the rest, element by element: the lets before the loop's again */
  Sym el = soa_name(s, intern_cstr(s->m->fr->in, "e"), "");
  Ast *ev = rw_mk_var(a, el, s->at);
  Ast *rest = rw_mk(a, AST_LET, e->span);
  rest->bound = e->bound;
  rest->bound_span = e->bound_span;
  rest->value = mk_proj(s, PRIM_SND, ev);
  if (acc->k > 1) {
    Ast *cs[MAX_COMPS];
    for (int c = 0; c < acc->k; c++) cs[c] = nested_comp(s, rest->value, c, acc->k);
    rest->value = mk_floatk(s, cs, acc->k);
  }
  rest->body = e->body;
  const Ast *lets[64];
  int nlets = 0;
  for (const Ast *l = fn->body; l != e; l = l->body) {
    if (nlets == 64) return (Ast *)soa_fail(s, "its function has too many lets before its loop");
    lets[nlets++] = l;
  }
  for (int i = nlets - 1; i >= 0; i--) rest = rw_with_child(a, lets[i], 1, rest);
  Ast *xlet = rw_mk(a, AST_LET, fn->span);
  xlet->bound = fn->bound;
  xlet->bound_span = fn->bound_span;
  xlet->value = mk_proj(s, PRIM_FST, ev);
  xlet->body = rest;
  Ast *zip = rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_ZIP, 0, s->at), b, false), lanes, false);
  Ast *map = rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, s->at), rw_mk_lambda(a, el, xlet, fn->span), false);
  return wrap_lets(s, pmark, rw_mk_app(a, map, zip, true));
}

bool rw_soa_element(const Match *m, const Ast *xs) {
  Spine z;
  if (rw_is_app_of(xs, PRIM_ZIP, 2, &z)) return rw_soa_element(m, z.args[0]) || rw_soa_element(m, z.args[1]);
  return xs->kind == AST_VAR && param_elem_width(m->fr->prog, xs->name, true) > 1;
}

Ast *rule_vectorise_soa(Match *m, const Spine *sp) {
  Arena *a = m->fr->arena;
  const Ast *fn = sp->args[0];
  if (sp->nargs != 2) return rw_refuse(m, "it is no plain map applied to its array");
  /* a listing (check_only) has no width yet: it decides at 8 */
  long long w = m->check_only ? 8 : m->param;
  if (w < 2 || w > 16 || w == 3 || float_of_width((int)w) == PRIM_COUNT)
    return rw_refuse(m, "its width is no 2, 4, 8 or 16 (the W elements are gathered into a floatW)");
  Soa s = {.m = m, .at = sp->head->span, .w = (int)w};
  s.avoid[s.navoid++] = m->e;
  Sym bn = soa_name(&s, fn->bound, "s");
  Ast *b = rw_mk_var(a, bn, s.at);
  const Val *x = gather(&s, sp->args[1], b, NULL, 0);
  if (!x || !soa_bind(&s, fn->bound, x)) return NULL;
  Ast *body = lift_chain(&s, fn, b);
  if (!body) return NULL;
  if (!s.loops) return rw_refuse(m, "its function has no loop (reduce) that depends on the element");
  if (m->check_only) return (Ast *)m->e;
  Ast *lam = rw_mk_lambda(a, bn, body, fn->span);
  lam->bound_span = fn->bound_span;
  Ast *stages[3] = {rw_mk_sized(a, PRIM_SPLIT, rw_mk_num(a, m->param), s.at),
                    rw_mk_app(a, (Ast *)sp->head, lam, false), rw_mk_prim(a, PRIM_JOIN, 0, s.at)};
  return rw_mk_stages(a, (Ast *)sp->args[1], stages, 3);
}
