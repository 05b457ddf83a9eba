/* rewrite.c: the rewrite rules of rules.h on the source tree of a kernel's
 * body (docs/language.md section 21).
 *
 * A rule is tried at one node: rule_match checks its left side and side
 * conditions there and builds its right side.  Nothing is changed in
 * place: the path from the root to the node is copied around the new
 * subtree, the rest shared.  Functions are applied by substitution when
 * the function is a lambda (beta reduction, renaming bound variables that
 * would capture), so that fused code reads as a person would write it:
 * fusing (\p -> fst p * snd p) into (\x a -> x + a) gives
 * \p a -> fst p * snd p + a, not an application of one lambda to another. */
#include "rewrite_int.h"

#include <stdlib.h>
#include <string.h>

const RuleParamInfo rule_param_info[RPARAM_COUNT] = {
#define X(id, name, lo, hi, dflt, doc) {name, lo, hi, dflt, doc},
    DPIA_RULE_PARAMS(X)
#undef X
};

const RuleInfo rule_info[RULE_COUNT] = {
#define X(id, name, param, doc, side) {name, RPARAM_##param, doc, side},
    DPIA_RULES(X)
#undef X
};

bool rule_param_allows(RuleParam p, long long v) {
  const RuleParamInfo *pi = &rule_param_info[p];
  if (v < pi->lo || v > pi->hi) return false;
  /* vector widths are those OpenCL has (prims.h, "width k") */
  return p != RPARAM_WIDTH || v == 2 || v == 3 || v == 4 || v == 8 || v == 16;
}

RuleId rule_lookup(const char *name) {
  for (int r = 0; r < RULE_COUNT; r++)
    if (strcmp(rule_info[r].name, name) == 0) return (RuleId)r;
  return RULE_COUNT;
}

/* ---- children and paths ---- */

int rw_nchildren(const Ast *e) {
  switch (e->kind) {
  case AST_VAR:
  case AST_INT:
  case AST_FLOAT:
  case AST_BOOL:
  case AST_PRIM: return 0;
  case AST_LAMBDA:
  case AST_ITERATE:
  case AST_NEG:
  case AST_NOT:
  case AST_PROJ:
  case AST_LANE:
  case AST_ASCRIBE: return 1;
  case AST_LET:
  case AST_APP:
  case AST_COMPOSE:
  case AST_SEQ:
  case AST_ASSIGN:
  case AST_BINOP:
  case AST_TUPLE:
  case AST_PPAIR: return 2;
  case AST_ARRAY: return e->nelems;
  case AST_COUNT: break;
  }
  INTERNAL("bad Ast kind %d", (int)e->kind);
}

/* the slot of child i of e (rules.h: the order of children) */
static Ast **child_slot(Ast *e, int i) {
  switch (e->kind) {
  case AST_LAMBDA: return &e->body;
  case AST_ITERATE: return &e->iter_fn;
  case AST_LET: return i == 0 ? &e->value : &e->body;
  case AST_ARRAY: return &e->elems[i];
  case AST_NEG:
  case AST_NOT:
  case AST_PROJ:
  case AST_LANE:
  case AST_ASCRIBE:
  case AST_APP:
  case AST_COMPOSE:
  case AST_SEQ:
  case AST_ASSIGN:
  case AST_BINOP:
  case AST_TUPLE:
  case AST_PPAIR: return i == 0 ? &e->lhs : &e->rhs;
  case AST_VAR:
  case AST_INT:
  case AST_FLOAT:
  case AST_BOOL:
  case AST_PRIM:
  case AST_COUNT: break;
  }
  INTERNAL("Ast kind %d has no child %d", (int)e->kind, i);
}

Ast *rw_child(const Ast *e, int i) { return *child_slot((Ast *)e, i); }

/* a shallow copy of e with child i replaced by c */
Ast *rw_with_child(Arena *a, const Ast *e, int i, Ast *c) {
  Ast *n = NEW(a, Ast);
  *n = *e;
  if (e->kind == AST_ARRAY) {
    n->elems = NEWARRAY(a, Ast *, e->nelems);
    memcpy(n->elems, e->elems, sizeof(Ast *) * (size_t)e->nelems);
  }
  *child_slot(n, i) = c;
  return n;
}

/* "1.0.1" into steps; "." is the root (no step).  false if malformed. */
static bool parse_path(Arena *a, const char *path, int **steps, int *nsteps) {
  *nsteps = 0;
  *steps = NULL;
  if (strcmp(path, ".") == 0) return true;
  size_t len = strlen(path);
  *steps = NEWARRAY(a, int, len / 2 + 1);
  const char *p = path;
  for (;;) {
    if (*p < '0' || *p > '9') return false;
    long v = 0;
    while (*p >= '0' && *p <= '9') {
      v = v * 10 + (*p++ - '0');
      if (v > 1000000) return false;
    }
    (*steps)[(*nsteps)++] = (int)v;
    if (*p == 0) return true;
    if (*p != '.') return false;
    p++;
  }
}

/* ---- the enclosing constructs of a position ---- */

static bool encloses(const Enclosing *en, Prim p, int dim) {
  for (int i = 0; i < en->n; i++)
    if (en->prims[i] == p && (dim < 0 || en->dims[i] == dim)) return true;
  return false;
}

static const Ast *walk_path(const Ast *body, const int *steps, int nsteps, Enclosing *en, Buf *why) {
  const Ast *e = body;
  if (en) {
    en->n = 0;
    en->in_spine = nsteps > 0;
  }
  for (int k = 0; k < nsteps; k++) {
    if (en) en->in_spine = e->kind == AST_APP && steps[k] == 0;
    if (steps[k] >= rw_nchildren(e)) {
      if (why)
        emit(why, "step %d of the path goes to child %d of a node with %d (%s)", k + 1, steps[k], rw_nchildren(e),
             ast_kind_name[e->kind]);
      return NULL;
    }
    /* stepping into the function argument of a primitive that runs it */
    if (en && e->kind == AST_APP && steps[k] == 1 && e->lhs->kind == AST_PRIM && prim_computes(e->lhs->prim) &&
        en->n < (int)DPIA_COUNTOF(en->prims)) {
      memmove(en->prims + 1, en->prims, sizeof(Prim) * (size_t)en->n);
      memmove(en->dims + 1, en->dims, sizeof(int) * (size_t)en->n);
      en->prims[0] = e->lhs->prim;
      en->dims[0] = e->lhs->dim;
      en->n++;
    }
    e = rw_child(e, steps[k]);
  }
  return e;
}

const Ast *rewrite_node_at(Arena *a, const Ast *body, const char *path, Buf *why) {
  int *steps, nsteps;
  if (!parse_path(a, path, &steps, &nsteps)) {
    emit(why, "'%s' is not a path: child numbers joined by '.' (1.0.1), or '.' for the root", path);
    return NULL;
  }
  return walk_path(body, steps, nsteps, NULL, why);
}

/* ---- building trees ---- */

Ast *rw_mk(Arena *a, AstKind kind, Span span) {
  Ast *e = NEW(a, Ast);
  e->kind = kind;
  e->span = span;
  return e;
}

Ast *rw_mk_app(Arena *a, Ast *f, Ast *x, bool pipe) {
  Ast *e = rw_mk(a, AST_APP, span_join(f->span, x->span));
  e->lhs = f;
  e->rhs = x;
  e->pipe = pipe;
  return e;
}

Ast *rw_mk_prim(Arena *a, Prim p, int dim, Span span) {
  Ast *e = rw_mk(a, AST_PRIM, span);
  e->prim = p;
  e->dim = dim;
  e->dim_written = false;
  return e;
}

Ast *rw_mk_sized(Arena *a, Prim p, SizeAst *k, Span span) {
  Ast *e = rw_mk_prim(a, p, 0, span);
  e->sizes[0] = k;
  return e;
}

SizeAst *rw_mk_num(Arena *a, long long v) {
  SizeAst *s = NEW(a, SizeAst);
  s->kind = SZA_NUM;
  s->num = (uint64_t)v;
  return s;
}

Ast *rw_mk_var(Arena *a, Sym name, Span span) {
  Ast *e = rw_mk(a, AST_VAR, span);
  e->name = name;
  return e;
}

Ast *rw_mk_lambda(Arena *a, Sym x, Ast *body, Span span) {
  Ast *e = rw_mk(a, AST_LAMBDA, span);
  e->bound = x;
  e->bound_span = span;
  e->body = body;
  return e;
}

/* The stages applied one after the other: x |> s1 |> s2 ... when there is
 * an input, s1 >> s2 >> ... (a function) when there is none. */
Ast *rw_mk_stages(Arena *a, Ast *x, Ast **stages, int n) {
  Ast *e = x;
  for (int i = 0; i < n; i++) {
    if (!e) {
      e = stages[i];
      continue;
    }
    if (x) {
      e = rw_mk_app(a, stages[i], e, true);
    } else {
      Ast *c = rw_mk(a, AST_COMPOSE, span_join(e->span, stages[i]->span));
      c->lhs = e;
      c->rhs = stages[i];
      e = c;
    }
  }
  return e;
}

/* ---- variables ---- */

/* how many times x occurs free in e */
int rw_count_free(const Ast *e, Sym x) {
  switch (e->kind) {
  case AST_VAR: return e->name == x;
  case AST_LAMBDA: return e->bound == x ? 0 : rw_count_free(e->body, x);
  case AST_LET: return rw_count_free(e->value, x) + (e->bound == x ? 0 : rw_count_free(e->body, x));
  default: {
    int n = 0;
    for (int i = 0; i < rw_nchildren(e); i++) n += rw_count_free(rw_child(e, i), x);
    return n;
  }
  }
}

/* base, or base2, base3 ...: a name that is no declaration of the program
 * and is free in none of avoid[0..n) (so binding it around them captures
 * nothing there, and shadows nothing the program declares) */
Sym rw_fresh_name(const Fresh *fr, const char *base, const Ast *const *avoid, int n) {
  for (int k = 1;; k++) {
    Sym s = k == 1 ? intern_cstr(fr->in, base) : intern_cstr(fr->in, arena_printf(fr->arena, "%s%d", base, k));
    bool taken = false;
    for (int i = 0; i < fr->prog->ndecls && !taken; i++) taken = fr->prog->decls[i]->name == s;
    for (int i = 0; i < n && !taken; i++) taken = avoid[i] && rw_count_free(avoid[i], s) > 0;
    if (!taken) return s;
  }
}


/* \y -> body with x := v, renaming y when v mentions it (capture) */
static Ast *subst_binder(const Fresh *fr, const Ast *e, Sym x, Ast *v) {
  Ast *n = NEW(fr->arena, Ast);
  *n = *e;
  if (e->kind == AST_LET) n->value = rw_subst(fr, e->value, x, v);
  if (e->bound == x || !rw_count_free(e->body, x)) return n;
  if (rw_count_free(v, e->bound)) {
    const Ast *avoid[] = {e->body, v};
    Sym y = rw_fresh_name(fr, e->bound, avoid, 2);
    n->body = rw_subst(fr, e->body, e->bound, rw_mk_var(fr->arena, y, e->bound_span));
    n->bound = y;
    n->body = rw_subst(fr, n->body, x, v);
    return n;
  }
  n->body = rw_subst(fr, e->body, x, v);
  return n;
}

/* e with every free x replaced by v (capture-avoiding) */
Ast *rw_subst(const Fresh *fr, const Ast *e, Sym x, Ast *v) {
  if (!rw_count_free(e, x)) return (Ast *)e;
  if (e->kind == AST_VAR) return v;
  if (e->kind == AST_LAMBDA || e->kind == AST_LET) return subst_binder(fr, e, x, v);
  Ast *n = (Ast *)e;
  for (int i = 0; i < rw_nchildren(e); i++) {
    Ast *c = rw_subst(fr, rw_child(e, i), x, v);
    if (c != rw_child(e, i)) n = rw_with_child(fr->arena, n, i, c);
  }
  return n;
}

static bool is_atom(const Ast *e) {
  return e->kind == AST_VAR || e->kind == AST_INT || e->kind == AST_FLOAT || e->kind == AST_BOOL;
}

/* f applied to x, beta-reduced when f is a lambda: substituted when x is a
 * variable or literal or used at most once (no work is repeated), else
 * `let`; an application written x |> f otherwise */
Ast *rw_apply_fn(const Fresh *fr, Ast *f, Ast *x) {
  if (f->kind != AST_LAMBDA) return rw_mk_app(fr->arena, f, x, true);
  if (is_atom(x) || rw_count_free(f->body, f->bound) <= 1) return rw_subst(fr, f->body, f->bound, x);
  Ast *let = rw_mk(fr->arena, AST_LET, f->span);
  let->bound = f->bound;
  let->bound_span = f->bound_span;
  let->value = x;
  let->body = f->body;
  return let;
}


/* ---- matching ---- */

/* f a1 ... an (written either way) as its head and arguments */
Spine rw_spine_of(const Ast *e) {
  Spine s = {0};
  const Ast *stack[MAX_SPINE];
  int n = 0;
  while (e->kind == AST_APP && n < MAX_SPINE) {
    stack[n++] = e->rhs;
    e = e->lhs;
  }
  s.head = e;
  for (int i = 0; i < n; i++) s.args[i] = stack[n - 1 - i];
  s.nargs = n;
  return s;
}

bool rw_head_is(const Spine *s, Prim p) { return s->head->kind == AST_PRIM && s->head->prim == p; }

static bool is_map_head(const Spine *s) { return s->head->kind == AST_PRIM && prim_family(s->head->prim) == PFAM_MAP; }

/* e is `p a1 .. an` for exactly n arguments */
bool rw_is_app_of(const Ast *e, Prim p, int n, Spine *out) {
  Spine s = rw_spine_of(e);
  if (!rw_head_is(&s, p) || s.nargs != n) return false;
  if (out) *out = s;
  return true;
}

static bool literal_is(const Ast *e, double v) {
  return (e->kind == AST_INT && (double)e->int_value == v) || (e->kind == AST_FLOAT && e->float_value == v);
}

/* \x a -> x + a (or a + x) with z 0, and * with 1: the operators whose left
 * fold may be regrouped (associative, z neutral on both sides) */
static bool associative_with_neutral(const Ast *f, const Ast *z) {
  if (f->kind != AST_LAMBDA || f->body->kind != AST_LAMBDA) return false;
  Sym x = f->bound, acc = f->body->bound;
  const Ast *b = f->body->body;
  if (x == acc || b->kind != AST_BINOP || b->lhs->kind != AST_VAR || b->rhs->kind != AST_VAR) return false;
  bool operands = (b->lhs->name == x && b->rhs->name == acc) || (b->lhs->name == acc && b->rhs->name == x);
  if (!operands) return false;
  if (b->op == BIN_ADD) return literal_is(z, 0.0);
  if (b->op == BIN_MUL) return literal_is(z, 1.0);
  return false;
}

/* e is x, or fst/snd (.1/.2) of such: a leaf of the zip tree that x is
 * an element of */
static bool projects_param(const Ast *e, Sym x) {
  if (e->kind == AST_VAR) return e->name == x;
  if (e->kind == AST_PROJ) return projects_param(e->lhs, x);
  Spine s = rw_spine_of(e);
  return (rw_head_is(&s, PRIM_FST) || rw_head_is(&s, PRIM_SND)) && s.nargs == 1 && projects_param(s.args[0], x);
}

/* e computes lane by lane from the parameter x (the vectorise rule):
 * pairs allows fst/snd (.1/.2) of x and of its projections (its array is
 * a zip, of zips) */
static bool lanewise(const Ast *e, Sym x, bool pairs) {
  switch (e->kind) {
  case AST_VAR: return true;
  case AST_INT:
  case AST_FLOAT: return true;
  case AST_BINOP:
    return (e->op == BIN_ADD || e->op == BIN_SUB || e->op == BIN_MUL || e->op == BIN_DIV) &&
           lanewise(e->lhs, x, pairs) && lanewise(e->rhs, x, pairs);
  case AST_NEG: return lanewise(e->lhs, x, pairs);
  case AST_PROJ: return pairs && projects_param(e->lhs, x);
  case AST_APP: {
    Spine s = rw_spine_of(e);
    if (s.head->kind != AST_PRIM) return false;
    Prim p = s.head->prim;
    if (p == PRIM_FST || p == PRIM_SND) return pairs && s.nargs == 1 && projects_param(s.args[0], x);
    if (prim_family(p) != PFAM_MATH || s.nargs != prim_arity_of(p)) return false;
    for (int i = 0; i < s.nargs; i++)
      if (!lanewise(s.args[i], x, pairs)) return false;
    return true;
  }
  default: return false;
  }
}

Ast *rw_refuse(Match *m, const char *what) {
  if (m->why) buf_puts(m->why, what);
  return NULL;
}

/* a map (any level) applied to its function and array: m f xs */
static Ast *rule_to_memory(Match *m, Prim mem, Spine *s) {
  Arena *a = m->fr->arena;
  Ast *inner = rw_mk_app(a, (Ast *)s->head, (Ast *)s->args[0], false);
  Ast *wrapped = rw_mk_app(a, rw_mk_prim(a, mem, 0, s->head->span), inner, false);
  return rw_mk_app(a, wrapped, (Ast *)s->args[1], m->e->pipe);
}

/* the same head with another primitive: map -> mapGlobal, reduce -> reduceSeq */
static Ast *relevel(Match *m, const Spine *s, Prim to, int dim) {
  Arena *a = m->fr->arena;
  Ast *e = rw_mk_prim(a, to, dim, s->head->span);
  for (int i = 0; i < s->nargs; i++) e = rw_mk_app(a, e, (Ast *)s->args[i], false);
  /* keep the last application written as it was (x |> map f) */
  if (s->nargs) e->pipe = m->e->pipe;
  return e;
}

/* a plain reduce applied to its array whose operator may be regrouped
 * (partialReduce, treeReduce); false after a refusal */
static bool regroupable(Match *m, const Spine *s) {
  if (!rw_head_is(s, PRIM_REDUCE) || s->nargs != 3) return rw_refuse(m, "it is no plain reduce applied to its array") != NULL;
  if (!associative_with_neutral(s->args[0], s->args[1]))
    return rw_refuse(m, "its operator is not one known to be associative with the initial value as neutral element "
                     "(\\x a -> x + a with 0, \\x a -> x * a with 1)") != NULL;
  return true;
}

/* reduce f z, the operator and initial value of s (a reduce f z xs) */
static Ast *reduce_with(Arena *a, const Spine *s, Span at) {
  return rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_REDUCE, 0, at), (Ast *)s->args[0], false), (Ast *)s->args[1], false);
}

/* splitMap: the chunks of a map's result are the maps of the chunks, so
 * the map moves inside the split, where fuseMaps and fuseReduceMap can
 * join it to what consumes each chunk (Lift's map-split commutation,
 * ICFP 2015 section 3.2; what makes partialReduce's chunks of `map g xs`
 * a map of fused chunk reductions) */
static Ast *rule_split_map(Match *m, const Spine *s) {
  Arena *a = m->fr->arena;
  Spine in;
  if (!rw_head_is(s, PRIM_SPLIT) || s->nargs != 1 || !rw_is_app_of(s->args[0], PRIM_MAP, 2, &in))
    return rw_refuse(m, "it is no split of a plain map applied to its array (split n (map f xs))");
  if (m->check_only) return (Ast *)m->e;
  Span at = in.head->span;
  Ast *inner = rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), (Ast *)in.args[0], false);
  Ast *stages[] = {(Ast *)s->head, rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), inner, false)};
  return rw_mk_stages(a, (Ast *)in.args[1], stages, 2);
}

/* does the program declare a def of that prelude name itself?  Then the
 * name in a rule's right side would be its def, not the prelude's (the
 * prelude gives only the names a program does not declare, prelude.c) */
static bool declares_own(const Fresh *fr, const char *name) {
  Sym s = intern_cstr(fr->in, name);
  for (int i = 0; i < fr->prog->ndecls; i++)
    if (fr->prog->decls[i]->name == s && !fr->prog->decls[i]->from_prelude) return true;
  return false;
}

/* \x a -> f (g x) a, beta-reduced: the operator of a reduction of map g
 * xs that reads xs itself (fuseReduceMap, partialReduceAny) */
static Ast *fused_operator(const Fresh *fr, Ast *f, Ast *g) {
  Arena *a = fr->arena;
  const Ast *avoid[] = {f, g};
  Sym x = rw_fresh_name(fr, g->kind == AST_LAMBDA ? g->bound : "x", avoid, 2);
  const char *acc_base = f->kind == AST_LAMBDA && f->body->kind == AST_LAMBDA ? f->body->bound : "acc";
  const Ast *avoid2[] = {f, g, rw_mk_var(a, x, g->span)};
  Sym acc = rw_fresh_name(fr, acc_base, avoid2, 3);
  Ast *body = rw_apply_fn(fr, rw_apply_fn(fr, f, rw_apply_fn(fr, g, rw_mk_var(a, x, g->span))), rw_mk_var(a, acc, f->span));
  return rw_mk_lambda(a, x, rw_mk_lambda(a, acc, body, f->span), f->span);
}

Ast *rw_mk_binop(Arena *a, BinOp op, Ast *l, Ast *r) {
  Ast *e = rw_mk(a, AST_BINOP, span_join(l->span, r->span));
  e->op = op;
  e->lhs = l;
  e->rhs = r;
  return e;
}

/* partialReduceAny: partialReduce for a length n need not divide.  Tile t
 * folds the elements t*n .. t*n + n - 1 of xs with reduceRange (docs/
 * language.md section 25), whose loop stops at the end of xs: the last
 * tile is shorter and nothing is padded, so no value of the element type
 * is needed (the operator's neutral element only makes the regrouping
 * sound, as for partialReduce), and the full tiles' loops have no test
 * (issue 38: a guard per tile, not per element).  The map before the
 * reduction is fused into each tile's loop, since a computing map cannot
 * be read element by element where the loop reads xs.  xs is written
 * twice, once for its length (the prelude's tileIndices) */
/* e computes something: a primitive that computes, or a declaration of
 * the program (a def's body may compute; counted as computing without
 * looking) */
static bool computes_any(const Fresh *fr, const Ast *e) {
  if (e->kind == AST_PRIM && prim_computes(e->prim)) return true;
  if (e->kind == AST_VAR)
    for (int i = 0; i < fr->prog->ndecls; i++)
      if (fr->prog->decls[i]->name == e->name) return true;
  for (int i = 0; i < rw_nchildren(e); i++)
    if (computes_any(fr, rw_child(e, i))) return true;
  return false;
}

bool rw_computes_any(const Fresh *fr, const Ast *e) { return computes_any(fr, e); }

static Ast *rule_partial_reduce_any(Match *m, const Spine *s) {
  Arena *a = m->fr->arena;
  const Fresh *fr = m->fr;
  if (!regroupable(m, s)) return NULL;
  if (declares_own(fr, "tileIndices"))
    return rw_refuse(m, "the program declares its own tileIndices, which would replace the prelude's");
  Ast *f = (Ast *)s->args[0], *z = (Ast *)s->args[1], *xs = (Ast *)s->args[2];
  Spine in;
  bool fuse = rw_is_app_of(xs, PRIM_MAP, 2, &in);
  /* every tile reads its range of the array beneath: were that array
   * computed, each tile would compute all of it again */
  if (computes_any(fr, fuse ? in.args[1] : xs))
    return rw_refuse(m, "the array the tiles read is computed (each tile would compute all of it): fuse or lower it first");
  if (m->check_only) return (Ast *)m->e;
  Span at = s->head->span;
  if (fuse) {
    f = fused_operator(fr, f, (Ast *)in.args[0]);
    xs = (Ast *)in.args[1];
  }
  const Ast *avoid[] = {f, z, xs};
  Sym t = rw_fresh_name(fr, "t", avoid, 3);
  Ast *n = rw_mk(a, AST_INT, at);
  n->int_value = (uint64_t)m->param;
  Ast *lo = rw_mk_binop(a, BIN_MUL, rw_mk_var(a, t, at), n);
  Ast *hi = rw_mk_binop(a, BIN_ADD, rw_mk_binop(a, BIN_MUL, rw_mk_var(a, t, at), n), n);
  Ast *range = rw_mk_sized(a, PRIM_REDUCE_RANGE, rw_mk_num(a, 1), at);
  Ast *args[] = {f, z, lo, hi};
  for (int i = 0; i < 4; i++) range = rw_mk_app(a, range, args[i], false);
  Ast *tile = rw_mk_lambda(a, t, rw_mk_stages(a, xs, &range, 1), at);
  Ast *stages[] = {rw_mk_app(a, rw_mk_var(a, intern_cstr(fr->in, "tileIndices"), at), n, false),
                   rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), tile, false), reduce_with(a, s, at)};
  return rw_mk_stages(a, xs, stages, 3);
}

/* reduceLanes: a reduction of the lanes of vectors, reduce f z (asScalar
 * vs), as n reductions side by side, one a lane, in one accumulator of n
 * lanes (vec n z), whose lanes are then combined by f's operator: lane k
 * folds the elements k, k + n, k + 2n, ..., a regrouping that needs f
 * commutative as well as associative with z neutral (+ with 0, * with 1
 * are).  On a CPU device n independent chains of additions in place of
 * one (samples/gesummv.dpia, gesummvVec); the lanes are written out
 * (v.s0 + v.s1 + ...), as a person would */
static Ast *rule_reduce_lanes(Match *m, const Spine *s) {
  Arena *a = m->fr->arena;
  const Fresh *fr = m->fr;
  Spine sc;
  if (!regroupable(m, s)) return NULL;
  if (!rw_is_app_of(s->args[2], PRIM_AS_SCALAR, 1, &sc))
    return rw_refuse(m, "it is no reduce of the lanes of vectors (reduce f z (asScalar vs))");
  if (m->check_only) return (Ast *)m->e;
  Span at = s->head->span;
  Ast *f = (Ast *)s->args[0];
  BinOp op = f->body->body->op; /* + or *: regroupable */
  Ast *z = rw_mk_app(a, rw_mk_sized(a, PRIM_VEC, rw_mk_num(a, m->param), at), (Ast *)s->args[1], false);
  const Ast *avoid[] = {f, s->args[1]};
  Sym v = rw_fresh_name(fr, "v", avoid, 2);
  Ast *lanes = NULL;
  for (long long k = 0; k < m->param; k++) {
    Ast *lane = rw_mk(a, AST_LANE, at);
    lane->lhs = rw_mk_var(a, v, at);
    lane->proj = (int)k;
    lanes = lanes ? rw_mk_binop(a, op, lanes, lane) : lane;
  }
  Ast *stages[] = {rw_mk_app(a, rw_mk_app(a, (Ast *)s->head, f, false), z, false), rw_mk_lambda(a, v, lanes, at)};
  return rw_mk_stages(a, (Ast *)sc.args[0], stages, 2);
}

/* z, or the literal k of a broadcast vec n k: the neutral element of a
 * sum of vectors is the vector of the scalar's (reduceLanes' vec n z) */
static const Ast *scalar_of(const Ast *z) {
  Spine v;
  return rw_is_app_of(z, PRIM_VEC, 1, &v) ? v.args[0] : z;
}

/* accumulators: a reduction folded into n accumulators side by side,
 * reduce f z (map g xs) = xs |> split n |> reduce (\p acc -> zip p acc |>
 * map (\q -> f (g (fst q)) (snd q))) (x0 |> take 0 |> padCst n 0 z) |>
 * reduce f z.  Accumulator k folds the elements k, k + n, k + 2n, ...,
 * then the n accumulators are combined by f: the regrouping of
 * reduceLanes, so the same operators (+ with 0, * with 1, associative and
 * commutative), z a literal or a vector of one (vec W 0.0, after
 * reduceLanes).  On a CPU device n independent chains of additions in
 * place of one, each step loading n elements (samples/gemv_vec.dpia,
 * gemvVec2: two float16 accumulators a row).  The n copies of z are an
 * array made from nothing, as registerTile's: x0 (xs, or the first array
 * of the zip tree xs) taken to no element and padded with z, so x0
 * computes nothing and its elements are z's type (the check refuses the
 * result otherwise); g is fused into the update, so that no array of
 * its results is made */
static Ast *rule_accumulators(Match *m, const Spine *s) {
  Arena *a = m->fr->arena;
  const Fresh *fr = m->fr;
  if (!rw_head_is(s, PRIM_REDUCE) || s->nargs != 3) return rw_refuse(m, "it is no plain reduce applied to its array");
  Ast *f = (Ast *)s->args[0], *z = (Ast *)s->args[1], *xs = (Ast *)s->args[2], *g = NULL;
  if (!associative_with_neutral(f, scalar_of(z)))
    return rw_refuse(m, "its operator is not one known to be associative and commutative with the initial value as "
                        "neutral element (\\x a -> x + a with 0 or vec n 0, \\x a -> x * a with 1 or vec n 1)");
  Spine in, zp;
  if (rw_is_app_of(xs, PRIM_MAP, 2, &in)) {
    g = (Ast *)in.args[0];
    xs = (Ast *)in.args[1];
  }
  const Ast *x0 = xs;
  while (rw_is_app_of(x0, PRIM_ZIP, 2, &zp)) x0 = zp.args[0];
  if (computes_any(fr, x0))
    return rw_refuse(m, "the first array it reads (its array, or the first of the zip) is computed: the "
                        "accumulators' initial array is made from it");
  if (m->check_only) return (Ast *)m->e;
  Span at = s->head->span;
  const Ast *avoid[] = {f, g ? g : f, z, xs};
  Sym p = rw_fresh_name(fr, "p", avoid, 4);
  const Ast *avoid2[] = {f, g ? g : f, z, xs, rw_mk_var(a, p, at)};
  Sym acc = rw_fresh_name(fr, "acc", avoid2, 5);
  const Ast *avoid3[] = {f, g ? g : f, z, xs, rw_mk_var(a, p, at), rw_mk_var(a, acc, at)};
  Sym q = rw_fresh_name(fr, "q", avoid3, 6);
  /* f (g (fst q)) (snd q), g's parameter substituted by the projection
   * (fst (fst q) * snd (fst q), as gemvVec2 reads); n copies of z made
   * from x0 */
  AccumulatorStep st = {.p = p, .acc = acc, .q = q, .mine = rw_mk_var(a, p, at), .shared = NULL,
                        .f = f, .g = g, .z = z, .from = x0, .n = m->param, .at = at};
  Ast *stages[] = {rw_mk_sized(a, PRIM_SPLIT, rw_mk_num(a, m->param), at),
                   rw_accumulators_reduce(fr, &st), reduce_with(a, s, at)};
  return rw_mk_stages(a, xs, stages, 3);
}

static Ast *rule_match(Match *m, RuleId rule) {
  Arena *a = m->fr->arena;
  const Fresh *fr = m->fr;
  Spine s = rw_spine_of(m->e);
  bool plain_map = rw_head_is(&s, PRIM_MAP) && s.nargs >= 1 && s.nargs <= 2;
  const Enclosing *en = m->en;
  DPIA_EXHAUSTIVE_BEGIN
  switch (rule) {
  case RULE_SPLIT_JOIN: {
    if (!plain_map) return rw_refuse(m, "it is no plain map applied to its function");
    if (m->check_only) return (Ast *)m->e;
    Span at = s.head->span;
    Ast *inner = rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), (Ast *)s.args[0], false);
    Ast *stages[] = {rw_mk_sized(a, PRIM_SPLIT, rw_mk_num(a, m->param), at), rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), inner, false),
                     rw_mk_prim(a, PRIM_JOIN, 0, at)};
    return rw_mk_stages(a, s.nargs == 2 ? (Ast *)s.args[1] : NULL, stages, 3);
  }
  case RULE_PAD_SPLIT_JOIN: {
    /* splitJoin for a length that n need not divide (docs/reference.md,
     * "Sizes that do not divide"): the prelude's mapPadClamp pads with
     * the last element rather than a constant, so the rule needs no value
     * of the element type, which the source tree does not know */
    if (!plain_map) return rw_refuse(m, "it is no plain map applied to its function");
    if (declares_own(fr, "mapPadClamp"))
      return rw_refuse(m, "the program declares its own mapPadClamp, which would replace the prelude's");
    if (m->check_only) return (Ast *)m->e;
    Sym name = intern_cstr(fr->in, "mapPadClamp");
    Span at = s.head->span;
    Ast *tile = rw_mk(a, AST_INT, at);
    tile->int_value = (uint64_t)m->param;
    Ast *inner = rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), (Ast *)s.args[0], false);
    Ast *stage = rw_mk_app(a, rw_mk_app(a, rw_mk_var(a, name, at), tile, false),
                        rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), inner, false), false);
    return rw_mk_stages(a, s.nargs == 2 ? (Ast *)s.args[1] : NULL, &stage, 1);
  }
  case RULE_PARTIAL_REDUCE_ANY: return rule_partial_reduce_any(m, &s);
  case RULE_FUSE_MAPS: {
    Spine in;
    if (!rw_head_is(&s, PRIM_MAP) || s.nargs != 2 || !rw_is_app_of(s.args[1], PRIM_MAP, 2, &in))
      return rw_refuse(m, "it is no plain map of a plain map (map f (map g xs))");
    if (m->check_only) return (Ast *)m->e;
    Ast *f = (Ast *)s.args[0], *g = (Ast *)in.args[0];
    const Ast *avoid[] = {f, g};
    Sym x = rw_fresh_name(fr, g->kind == AST_LAMBDA ? g->bound : "x", avoid, 2);
    Ast *v = rw_mk_var(a, x, g->span);
    Ast *fn = rw_mk_lambda(a, x, rw_apply_fn(fr, f, rw_apply_fn(fr, g, v)), g->span);
    return rw_mk_app(a, rw_mk_app(a, (Ast *)s.head, fn, false), (Ast *)in.args[1], m->e->pipe);
  }
  case RULE_FISSION_MAP: {
    const Ast *fn = plain_map ? s.args[0] : NULL;
    if (!fn || fn->kind != AST_LAMBDA || fn->body->kind != AST_APP)
      return rw_refuse(m, "it is no plain map of a lambda whose body is an application");
    Sym x = fn->bound;
    const Ast *f = fn->body->lhs, *e = fn->body->rhs;
    if (rw_count_free(f, x) || !rw_count_free(e, x) || (e->kind == AST_VAR && e->name == x))
      return rw_refuse(m, "the function applied in the lambda's body mentions its parameter, or its argument is only "
                       "the parameter");
    if (m->check_only) return (Ast *)m->e;
    /* \x -> g x is g */
    Ast *first = e->kind == AST_APP && e->rhs->kind == AST_VAR && e->rhs->name == x && !rw_count_free(e->lhs, x)
                     ? e->lhs
                     : rw_mk_lambda(a, x, (Ast *)e, fn->span);
    Ast *stages[] = {rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, s.head->span), first, false),
                     rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, s.head->span), (Ast *)f, false)};
    return rw_mk_stages(a, s.nargs == 2 ? (Ast *)s.args[1] : NULL, stages, 2);
  }
  case RULE_PARTIAL_REDUCE: {
    if (!regroupable(m, &s)) return NULL;
    if (m->check_only) return (Ast *)m->e;
    Span at = s.head->span;
    Ast *red = reduce_with(a, &s, at);
    Ast *stages[] = {rw_mk_sized(a, PRIM_SPLIT, rw_mk_num(a, m->param), at), rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), red, false),
                     red};
    return rw_mk_stages(a, (Ast *)s.args[2], stages, 3);
  }
  case RULE_TILE_2D: {
    /* [R][C] rows cut into [R][C/n][n], transposed to [C/n][R][n]: a map
     * over the column tiles, each of R x n elements; transposed back and
     * joined (Lift's 2D tiling, Hagedorn et al.; with splitJoin on the
     * outer map, R is the block's rows) */
    Spine in;
    if (!rw_head_is(&s, PRIM_MAP) || s.nargs < 1 || s.nargs > 2 || !rw_is_app_of(s.args[0], PRIM_MAP, 1, &in))
      return rw_refuse(m, "it is no plain map of a plain map (map (map f))");
    if (m->check_only) return (Ast *)m->e;
    Span at = s.head->span;
    Ast *map = rw_mk_prim(a, PRIM_MAP, 0, at);
    Ast *stages[] = {rw_mk_app(a, map, rw_mk_sized(a, PRIM_SPLIT, rw_mk_num(a, m->param), at), false),
                     rw_mk_prim(a, PRIM_TRANSPOSE, 0, at),
                     rw_mk_app(a, map, rw_mk_app(a, map, (Ast *)s.args[0], false), false),
                     rw_mk_prim(a, PRIM_TRANSPOSE, 0, at),
                     rw_mk_app(a, map, rw_mk_prim(a, PRIM_JOIN, 0, at), false)};
    return rw_mk_stages(a, s.nargs == 2 ? (Ast *)s.args[1] : NULL, stages, 5);
  }
  case RULE_TREE_REDUCE: {
    /* Each step halves the values, adding neighbours (Lift's and the
     * hand-written work-group reductions, samples/sum_tree.dpia); the last
     * reduce folds the N / 2^k values left.  Regrouping needs the same
     * operator as partialReduce. */
    if (!regroupable(m, &s)) return NULL;
    if (m->check_only) return (Ast *)m->e;
    Span at = s.head->span;
    Ast *red = reduce_with(a, &s, at);
    const Ast *avoid[] = {s.args[0], s.args[1]};
    Sym ys = rw_fresh_name(fr, "ys", avoid, 2);
    Ast *halve[] = {rw_mk_sized(a, PRIM_SPLIT, rw_mk_num(a, 2), at), rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), red, false)};
    Ast *it = rw_mk(a, AST_ITERATE, at);
    it->count = rw_mk_num(a, m->param);
    it->iter_fn = rw_mk_lambda(a, ys, rw_mk_stages(a, rw_mk_var(a, ys, at), halve, 2), at);
    Ast *stages[] = {it, red};
    return rw_mk_stages(a, (Ast *)s.args[2], stages, 2);
  }
  case RULE_TRANSPOSE_MAPS: {
    Spine tr;
    if (!rw_head_is(&s, PRIM_MAP) || s.nargs != 2 || !rw_is_app_of(s.args[0], PRIM_MAP, 1, NULL) ||
        !rw_is_app_of(s.args[1], PRIM_TRANSPOSE, 1, &tr))
      return rw_refuse(m, "it is no plain map of a plain map applied to a transposed array (map (map f) (transpose xs))");
    if (m->check_only) return (Ast *)m->e;
    Ast *stages[] = {rw_mk_app(a, (Ast *)s.head, (Ast *)s.args[0], false), (Ast *)tr.head};
    return rw_mk_stages(a, (Ast *)tr.args[0], stages, 2);
  }
  case RULE_SPLIT_MAP: return rule_split_map(m, &s);
  case RULE_REDUCE_LANES: return rule_reduce_lanes(m, &s);
  case RULE_ACCUMULATORS: return rule_accumulators(m, &s);
  case RULE_VECTORISE_LOOP: return rule_vectorise_loop(m, &s);
  case RULE_REGISTER_TILE: return rule_register_tile(m, &s);
  case RULE_VECTORISE_TILE: return rule_vectorise_tile(m, &s);
  case RULE_ROW_TILE: return rule_row_tile(m, &s);
  case RULE_FUSE_REDUCE_MAP: {
    Spine in;
    bool red = (rw_head_is(&s, PRIM_REDUCE) || rw_head_is(&s, PRIM_REDUCE_SEQ)) && s.nargs == 3;
    if (!red || !(rw_is_app_of(s.args[2], PRIM_MAP, 2, &in) || rw_is_app_of(s.args[2], PRIM_MAP_SEQ, 2, &in)))
      return rw_refuse(m, "it is no reduce of a plain map or mapSeq (reduce f z (map g xs))");
    if (m->check_only) return (Ast *)m->e;
    Ast *fn = fused_operator(fr, (Ast *)s.args[0], (Ast *)in.args[0]);
    Ast *r = rw_mk_app(a, rw_mk_app(a, (Ast *)s.head, fn, false), (Ast *)s.args[1], false);
    return rw_mk_app(a, r, (Ast *)in.args[1], m->e->pipe);
  }
  case RULE_VECTORISE: {
    const Ast *fn = plain_map ? s.args[0] : NULL;
    bool zipped = s.nargs == 2 && rw_is_app_of(s.args[1], PRIM_ZIP, 2, NULL);
    if (!fn || fn->kind != AST_LAMBDA || !lanewise(fn->body, fn->bound, zipped))
      return rw_refuse(m, "it is no plain map of a lambda that computes lane by lane (arithmetic, math built-ins; fst "
                       "and snd only of the parameter and its projections, over a zip a b)");
    if (m->check_only) return (Ast *)m->e;
    Span at = s.head->span;
    Ast *input = s.nargs == 2 ? (Ast *)s.args[1] : NULL;
    Ast *stages[3];
    int n = 0;
    if (zipped) {
      input = rw_vectors_of(a, input, m->param, at, false);
    } else {
      stages[n++] = rw_mk_sized(a, PRIM_AS_VECTOR, rw_mk_num(a, m->param), at);
    }
    stages[n++] = rw_mk_app(a, (Ast *)s.head, (Ast *)fn, false);
    stages[n++] = rw_mk_prim(a, PRIM_AS_SCALAR, 0, at);
    return rw_mk_stages(a, input, stages, n);
  }
  case RULE_LOWER_GLOBAL:
  case RULE_LOWER_WORKGROUP: {
    if (!plain_map) return rw_refuse(m, "it is no plain map");
    int dim = (int)m->param;
    if (encloses(en, PRIM_MAP_LOCAL, -1) || encloses(en, PRIM_MAP_SEQ, -1) || encloses(en, PRIM_REDUCE, -1) ||
        encloses(en, PRIM_REDUCE_SEQ, -1) || encloses(en, PRIM_TO_PRIVATE, -1))
      return rw_refuse(m, "it is inside a mapLocal, mapSeq, reduction or toPrivate, where no grid-level map can run");
    if (encloses(en, PRIM_MAP_GLOBAL, dim) || encloses(en, PRIM_MAP_WORKGROUP, dim))
      return rw_refuse(m, "it is inside a grid-level map of the same dimension");
    return relevel(m, &s, rule == RULE_LOWER_GLOBAL ? PRIM_MAP_GLOBAL : PRIM_MAP_WORKGROUP, dim);
  }
  case RULE_LOWER_LOCAL: {
    if (!plain_map) return rw_refuse(m, "it is no plain map");
    int dim = (int)m->param;
    if (!encloses(en, PRIM_MAP_WORKGROUP, -1)) return rw_refuse(m, "it is not inside a mapWorkgroup");
    if (encloses(en, PRIM_MAP_LOCAL, dim)) return rw_refuse(m, "it is inside a mapLocal of the same dimension");
    /* the global id of dim holds the local id of dim (strategy.c) */
    if (encloses(en, PRIM_MAP_GLOBAL, dim)) return rw_refuse(m, "it is inside a mapGlobal of the same dimension");
    if (encloses(en, PRIM_TO_PRIVATE, -1)) return rw_refuse(m, "it is inside a toPrivate");
    return relevel(m, &s, PRIM_MAP_LOCAL, dim);
  }
  case RULE_LOWER_SEQ:
    if (!plain_map) return rw_refuse(m, "it is no plain map");
    /* map (asVector n) rows is a view (vectoriseLoop's reading of
     * k-means' columns); as a mapSeq it would copy them */
    if (s.args[0]->kind == AST_PRIM && !prim_computes(s.args[0]->prim))
      return rw_refuse(m, "its function is a view primitive (asVector n, split n, ...): the map is a view, with no level");
    return relevel(m, &s, PRIM_MAP_SEQ, 0);
  case RULE_LOWER_REDUCE_SEQ:
    if (!rw_head_is(&s, PRIM_REDUCE) || s.nargs < 1) return rw_refuse(m, "it is no plain reduce");
    return relevel(m, &s, PRIM_REDUCE_SEQ, 0);
  case RULE_TO_GLOBAL:
  case RULE_TO_LOCAL:
  case RULE_TO_PRIVATE: {
    if (!is_map_head(&s) || s.nargs != 2) return rw_refuse(m, "it is no map applied to its function and array");
    if (rule == RULE_TO_LOCAL && !encloses(en, PRIM_MAP_WORKGROUP, -1))
      return rw_refuse(m, "it is not inside a mapWorkgroup: local memory belongs to a work-group");
    PrimLevel lv = prim_level(s.head->prim);
    if (rule == RULE_TO_PRIVATE && (lv == PLVL_GLOBAL || lv == PLVL_WORKGROUP || lv == PLVL_LOCAL))
      return rw_refuse(m, "it is a parallel map, which cannot produce private memory (one work-item's)");
    Prim mem = rule == RULE_TO_GLOBAL ? PRIM_TO_GLOBAL : rule == RULE_TO_LOCAL ? PRIM_TO_LOCAL : PRIM_TO_PRIVATE;
    return rule_to_memory(m, mem, &s);
  }
  case RULE_COUNT: break;
  }
  DPIA_EXHAUSTIVE_END
  INTERNAL("bad rule %d", (int)rule);
}

/* ---- positions and application ---- */

typedef struct Lister {
  Arena *arena;
  const Fresh *fr;
  const Ast *body;
  Vec sites;
  int steps[1024];
} Lister;

static const char *path_text(Arena *a, const int *steps, int n) {
  if (!n) return ".";
  Buf b;
  buf_init(&b, a);
  for (int i = 0; i < n; i++) emit(&b, "%s%d", i ? "." : "", steps[i]);
  return b.data;
}

static void list_node(Lister *l, const Ast *e, int depth) {
  Enclosing en;
  walk_path(l->body, l->steps, depth, &en, NULL);
  RewriteSite *site = NULL;
  for (int r = 0; r < RULE_COUNT && !en.in_spine; r++) {
    const RuleParamInfo *pi = &rule_param_info[rule_info[r].param];
    Match m = {l->fr, e, &en, pi->dflt >= 0 ? pi->dflt : pi->lo, true, NULL, l->body};
    if (!rule_match(&m, (RuleId)r)) continue;
    if (!site) {
      site = NEW(l->arena, RewriteSite);
      site->path = path_text(l->arena, l->steps, depth);
      site->node = e;
      vec_push(l->arena, &l->sites, site);
    }
    site->rules[site->nrules++] = (RuleId)r;
  }
  if (depth == (int)DPIA_COUNTOF(l->steps)) return;
  for (int i = 0; i < rw_nchildren(e); i++) {
    l->steps[depth] = i;
    list_node(l, rw_child(e, i), depth + 1);
  }
}

void rewrite_sites(Arena *a, const Program *prog, const Ast *body, RewriteSite **sites, int *nsites) {
  Interner in;
  intern_init(&in, a);
  Fresh fr = {a, &in, prog};
  Lister l = {.arena = a, .fr = &fr, .body = body};
  list_node(&l, body, 0);
  *sites = NEWARRAY(a, RewriteSite, l.sites.len ? l.sites.len : 1);
  for (int i = 0; i < l.sites.len; i++) (*sites)[i] = *(RewriteSite *)l.sites.items[i];
  *nsites = l.sites.len;
}

/* body with the node at steps[k..n) below e replaced by rep */
static Ast *replace_at(Arena *a, const Ast *e, const int *steps, int n, Ast *rep) {
  if (!n) return rep;
  return rw_with_child(a, e, steps[0], replace_at(a, rw_child(e, steps[0]), steps + 1, n - 1, rep));
}

Ast *rewrite_apply(Arena *a, Interner *in, const Program *prog, const Ast *body, RuleId rule, const char *path,
                   long long param, Buf *why) {
  int *steps, nsteps;
  if (!parse_path(a, path, &steps, &nsteps)) {
    emit(why, "'%s' is not a path", path);
    return NULL;
  }
  Enclosing en;
  const Ast *e = walk_path(body, steps, nsteps, &en, why);
  if (!e) return NULL;
  if (en.in_spine) {
    emit(why, "%s is the function of the application at %s: apply rules there", path,
         nsteps == 1 ? "." : arena_strndup(a, path, (size_t)(strrchr(path, '.') - path)));
    return NULL;
  }
  Fresh fr = {a, in, prog};
  Match m = {&fr, e, &en, param, false, why, body};
  Ast *rep = rule_match(&m, rule);
  return rep ? replace_at(a, body, steps, nsteps, rep) : NULL;
}

/* ---- equality ---- */

static bool size_equal(const SizeAst *a, const SizeAst *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case SZA_NUM: return a->num == b->num;
  case SZA_VAR: return a->name == b->name || strcmp(a->name, b->name) == 0;
  case SZA_ADD:
  case SZA_SUB:
  case SZA_MUL:
  case SZA_DIV:
  case SZA_MOD:
  case SZA_CEIL:
  case SZA_FLOOR: return size_equal(a->lhs, b->lhs) && size_equal(a->rhs, b->rhs);
  }
  return false;
}

static bool type_equal(const TypeAst *a, const TypeAst *b) {
  if (!a || !b) return a == b;
  return a->kind == b->kind && a->scalar == b->scalar && a->vec_width == b->vec_width &&
         size_equal(a->size, b->size) && type_equal(a->elem, b->elem) && type_equal(a->fst, b->fst) &&
         type_equal(a->snd, b->snd) && (a->name == b->name || (a->name && b->name && strcmp(a->name, b->name) == 0));
}

static bool sym_equal(Sym a, Sym b) { return a == b || (a && b && strcmp(a, b) == 0); }

bool ast_equal(const Ast *a, const Ast *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case AST_VAR: return sym_equal(a->name, b->name);
  case AST_INT: return a->int_value == b->int_value;
  case AST_FLOAT: return a->float_value == b->float_value && a->float_suffix_f == b->float_suffix_f;
  case AST_BOOL: return a->bool_value == b->bool_value;
  case AST_PRIM:
    if (a->prim != b->prim || a->dim != b->dim || !type_equal(a->type_arg, b->type_arg)) return false;
    for (int i = 0; i < prim_info[a->prim].nsizes; i++)
      if (!size_equal(a->sizes[i], b->sizes[i])) return false;
    return true;
  case AST_LAMBDA:
  case AST_LET:
    if (!sym_equal(a->bound, b->bound)) return false;
    break;
  case AST_ITERATE:
    if (!size_equal(a->count, b->count)) return false;
    break;
  case AST_BINOP:
    if (a->op != b->op) return false;
    break;
  case AST_PROJ:
  case AST_LANE:
    if (a->proj != b->proj) return false;
    break;
  case AST_ASCRIBE:
    if (!type_equal(a->type, b->type)) return false;
    break;
  case AST_ARRAY:
    if (a->nelems != b->nelems) return false;
    break;
  case AST_APP:
  case AST_COMPOSE:
  case AST_SEQ:
  case AST_ASSIGN:
  case AST_NEG:
  case AST_NOT:
  case AST_TUPLE:
  case AST_PPAIR: break;
  case AST_COUNT: INTERNAL("bad Ast kind");
  }
  for (int i = 0; i < rw_nchildren(a); i++)
    if (!ast_equal(rw_child(a, i), rw_child(b, i))) return false;
  return true;
}

/* ---- the stage boundary of a whole reduction ---- */

static TypeAst *mk_type(Arena *a, TypeAstKind kind, Span span) {
  TypeAst *t = NEW(a, TypeAst);
  t->kind = kind;
  t->span = span;
  return t;
}

static Decl *mk_decl(Arena *a, const Decl *like, Sym name, bool kernel, Param *params, int nparams, Ast *body) {
  Decl *d = NEW(a, Decl);
  d->is_kernel = kernel;
  d->is_pipeline = !kernel;
  d->name = name;
  d->span = like->span;
  d->name_span = like->name_span;
  d->params = params;
  d->nparams = nparams;
  d->body = body;
  return d;
}

bool rewrite_reduction_pipeline(Arena *a, Interner *in, const Program *prog, const Decl *k, Ast *parts_body,
                                Decl *out[3], Buf *why) {
  Spine s = rw_spine_of(k->body);
  if (!rw_head_is(&s, PRIM_REDUCE) || s.nargs != 3) {
    buf_puts(why, "the kernel's body is no reduce applied to its array");
    return false;
  }
  const Ast *f = s.args[0], *z = s.args[1];
  if (z->kind != AST_FLOAT && z->kind != AST_INT) {
    buf_puts(why, "the reduction's initial value is no float or int literal, which would give the sums' type");
    return false;
  }
  Fresh fr = {a, in, prog};
  Span at = k->name_span;
  const Ast *avoid[] = {f, parts_body};
  Sym parts = rw_fresh_name(&fr, arena_printf(a, "%sParts", k->name), avoid, 2);
  Sym sum = rw_fresh_name(&fr, arena_printf(a, "%sSum", k->name), avoid, 2);
  Sym m = rw_fresh_name(&fr, "M", avoid, 1), ps = rw_fresh_name(&fr, "ps", avoid, 1);
  /* kernel KSum (M: nat) (ps: [M]T) = ps |> split M |> mapGlobal (reduceSeq f z): one
   * work-item sums the partial sums, as samples/dot_full.dpia's dotSum */
  Param *sp = NEWARRAY(a, Param, 2);
  sp[0] = (Param){.name = m, .span = at, .kind = PARAM_NAT};
  TypeAst *elem = mk_type(a, TYA_SCALAR, at);
  elem->scalar = z->kind == AST_FLOAT ? SC_FLOAT : SC_INT;
  elem->vec_width = 1;
  TypeAst *arr = mk_type(a, TYA_ARRAY, at);
  SizeAst *msize = NEW(a, SizeAst);
  msize->kind = SZA_VAR;
  msize->name = m;
  arr->size = msize;
  arr->elem = elem;
  sp[1] = (Param){.name = ps, .span = at, .kind = PARAM_PHRASE, .type = arr};
  Ast *red = rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_REDUCE_SEQ, 0, at), (Ast *)f, false), (Ast *)z, false);
  Ast *stages[] = {rw_mk_sized(a, PRIM_SPLIT, msize, at), rw_mk_app(a, rw_mk_prim(a, PRIM_MAP_GLOBAL, 0, at), red, false)};
  out[1] = mk_decl(a, k, sum, true, sp, 2, rw_mk_stages(a, rw_mk_var(a, ps, at), stages, 2));
  out[0] = mk_decl(a, k, parts, true, k->params, k->nparams, parts_body);
  /* pipeline K params = KParts args |> KSum: the nat parameters are
   * inferred at the launch (docs/language.md section 8) */
  Ast *call = rw_mk_var(a, parts, at);
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].kind == PARAM_PHRASE) call = rw_mk_app(a, call, rw_mk_var(a, k->params[i].name, at), false);
  out[2] = mk_decl(a, k, k->name, false, k->params, k->nparams, rw_mk_app(a, rw_mk_var(a, sum, at), call, true));
  return true;
}
