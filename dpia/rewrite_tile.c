/* rewrite_tile.c: the rules registerTile, vectoriseTile and rowTile (rules.h;
 * docs/language.md section 21): register tiles of a map of maps whose
 * elements are reductions over a row and a column, as the hand-written
 * mmBlock of samples/mm_vec.dpia computes a matrix product.
 *
 * registerTile gives a work-item n rows of one column: the n reductions
 * of zip x_i y (i the rows of the tile) become one reduction over zip
 * (transpose xt) y, whose accumulator holds the n sums, each folded by
 * the same f from the same z in the same order as before, so that the
 * rule is sound for any f and z (nothing is regrouped) while y is read
 * once for the n rows.  vectoriseTile then makes the column a vector of
 * n lanes (b's rows read as vectors, map (asVector n) b |> transpose):
 * the accumulator becomes r vectors, one a row of the tile, each lane the
 * fold of its own column; the update computes lane by lane, so each
 * lane computes what the scalar update computed, the row's scalar
 * broadcast.  Code generation keeps such an accumulator, an array built
 * from nothing (padCst of take 0: a view, no memory), in private
 * registers and unrolls its loops (samples/gemm.dpia's kernels).
 *
 * rowTile is registerTile's first half for a map whose element is a sum
 * beside a shared array (gemv's rows and x): n elements a tile, their n
 * sums in one loop over the shared array, in the same order as before. */
#include "rewrite_int.h"

#include <string.h>

/* does a lambda or let of e bind x? */
static bool binds(const Ast *e, Sym x) {
  if ((e->kind == AST_LAMBDA || e->kind == AST_LET) && e->bound == x) return true;
  for (int i = 0; i < rw_nchildren(e); i++)
    if (binds(rw_child(e, i), x)) return true;
  return false;
}

static bool is_var(const Ast *e, Sym x) { return e->kind == AST_VAR && e->name == x; }

static bool is_num(const SizeAst *s, long long v) { return s && s->kind == SZA_NUM && s->num == (uint64_t)v; }

/* fst (a, b) = a, snd (a, b) = b, and .1 .2 the same: what the tuple
 * registerTile passes to g leaves after substitution */
static Ast *project_pairs(Arena *a, Ast *e) {
  Spine s = rw_spine_of(e);
  if ((rw_head_is(&s, PRIM_FST) || rw_head_is(&s, PRIM_SND)) && s.nargs == 1 && s.args[0]->kind == AST_TUPLE)
    return project_pairs(a, rw_head_is(&s, PRIM_FST) ? s.args[0]->lhs : s.args[0]->rhs);
  if (e->kind == AST_PROJ && e->lhs->kind == AST_TUPLE)
    return project_pairs(a, e->proj == 1 ? e->lhs->lhs : e->lhs->rhs);
  Ast *n = e;
  for (int i = 0; i < rw_nchildren(e); i++) {
    Ast *c = project_pairs(a, rw_child(e, i));
    if (c != rw_child(e, i)) n = rw_with_child(a, n, i, c);
  }
  return n;
}

/* f applied to x; when x is a pair of projections (fst q, snd p) and f a
 * lambda, its parameter is replaced by them (fst and snd of it resolved),
 * which repeats no work, where a let would bind the pair */
static Ast *apply_pair(const Fresh *fr, Ast *f, Ast *x) {
  if (x->kind == AST_TUPLE && f->kind == AST_LAMBDA)
    return project_pairs(fr->arena, rw_subst(fr, f->body, f->bound, x));
  return rw_apply_fn(fr, f, x);
}

/* a of prim p applied to x: fst q, transpose xt */
static Ast *prim_of(Arena *a, Prim p, Ast *x, Span at) { return rw_mk_app(a, rw_mk_prim(a, p, 0, at), x, false); }

/* ---- the accumulators' reduction ----
 * reduce (\p acc -> zip M acc |> map (\q -> f (g E) (snd q))) (from |> take 0 |> padCst n 0 z)
 * The reduction of registerTile, rowTile and accumulators (rewrite.c):
 * acc holds n sums side by side, each folded by the old f from the old
 * z, and step k updates sum i from M[i], the i-th of the n elements
 * that p brings (p itself for accumulators, a half of it for the tiles).
 * E is what the old reduction's element was, fst q alone, or paired with
 * S, the half of p shared by the n sums.  g's parameter is substituted
 * (E is made of projections of variables: no work is repeated) and the
 * pair's projections resolved; f is applied as rw_apply_fn does, unless
 * it takes E itself as a pair.  The n copies of z are an array made from
 * nothing (take 0 of from, padded): from must compute nothing and its
 * elements be z's type, which the check of the result sees. */
Ast *rw_accumulators_reduce(const Fresh *fr, const AccumulatorStep *st) {
  Arena *a = fr->arena;
  Span at = st->at;
  Ast *elem = prim_of(a, PRIM_FST, rw_mk_var(a, st->q, at), at);
  if (st->shared) {
    Ast *pair = rw_mk(a, AST_TUPLE, at);
    pair->lhs = st->mine_first ? elem : st->shared;
    pair->rhs = st->mine_first ? st->shared : elem;
    elem = pair;
  }
  Ast *gv = elem;
  if (st->g && st->g->kind == AST_LAMBDA && elem->kind != AST_TUPLE)
    gv = rw_subst(fr, st->g->body, st->g->bound, elem);
  else if (st->g)
    gv = apply_pair(fr, (Ast *)st->g, elem);
  Ast *upd = rw_apply_fn(fr, apply_pair(fr, (Ast *)st->f, gv), prim_of(a, PRIM_SND, rw_mk_var(a, st->q, at), at));
  Ast *accs =
      rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_ZIP, 0, at), st->mine, false), rw_mk_var(a, st->acc, at), false);
  Ast *map_upd = rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), rw_mk_lambda(a, st->q, upd, at), false);
  Ast *op = rw_mk_lambda(a, st->p, rw_mk_lambda(a, st->acc, rw_mk_stages(a, accs, &map_upd, 1), at), at);
  Ast *pad = rw_mk_sized(a, PRIM_PAD_CST, rw_mk_num(a, st->n), at);
  pad->sizes[1] = rw_mk_num(a, 0);
  Ast *pad_stages[] = {rw_mk_sized(a, PRIM_TAKE, rw_mk_num(a, 0), at), rw_mk_app(a, pad, (Ast *)st->z, false)};
  Ast *init = rw_mk_stages(a, (Ast *)st->from, pad_stages, 2);
  return rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_REDUCE, 0, at), op, false), init, false);
}

/* ---- registerTile ----
 * map (\x -> ys |> map (\y -> zip x y |> map g |> reduce f z)) xs
 *   = xs |> split n
 *        |> map (\xt -> ys
 *             |> map (\y -> zip (transpose xt) y
 *                  |> reduce (\p acc -> zip (fst p) acc |> map (\q -> f (g (fst q, snd p)) (snd q)))
 *                            (y |> take 0 |> padCst n 0 z))
 *             |> transpose)
 *        |> join
 * Row i of tile t is x_(t*n+i): the reduction's elements are the tile's
 * column k (transpose xt) and y_k, accumulator i folds g (x_i[k], y[k])
 * by f, which is the reduction of zip x_i y as it was. */
Ast *rule_register_tile(Match *m, const Spine *s) {
  Arena *a = m->fr->arena;
  const Fresh *fr = m->fr;
  Spine inner, red, zp, gm;
  const Ast *fx = s->nargs == 2 && rw_head_is(s, PRIM_MAP) ? s->args[0] : NULL;
  if (!fx || fx->kind != AST_LAMBDA || !rw_is_app_of(fx->body, PRIM_MAP, 2, &inner) ||
      inner.args[0]->kind != AST_LAMBDA)
    return rw_refuse(m, "it is no plain map, applied to its array, of a lambda whose body is a plain map of a lambda");
  Sym x = fx->bound, y = inner.args[0]->bound;
  const Ast *ys = inner.args[1], *body = inner.args[0]->body;
  if (!rw_is_app_of(body, PRIM_REDUCE, 3, &red))
    return rw_refuse(m, "the inner map's function is no plain reduce applied to its array");
  const Ast *f = red.args[0], *z = red.args[1], *arr = red.args[2], *g = NULL;
  if (rw_is_app_of(arr, PRIM_MAP, 2, &gm)) {
    g = gm.args[0];
    arr = gm.args[1];
  }
  if (!rw_is_app_of(arr, PRIM_ZIP, 2, &zp) || !is_var(zp.args[0], x) || !is_var(zp.args[1], y) || x == y)
    return rw_refuse(m, "the reduction's array is not zip x y (or a plain map of it), x the outer element and y the "
                        "inner one");
  if (rw_count_free(ys, x) || rw_count_free(f, x) || rw_count_free(f, y) || rw_count_free(z, x) ||
      rw_count_free(z, y) || (g && (rw_count_free(g, x) || rw_count_free(g, y))))
    return rw_refuse(m, "x or y appears outside zip x y (in the inner map's array, f, g or z)");
  if (m->check_only) return (Ast *)m->e;
  Span at = s->head->span;
  const Ast *xs = s->args[1];
  const Ast *avoid[] = {f, g, z, ys, xs, body};
  Sym xt = rw_fresh_name(fr, arena_printf(a, "%ss", x), avoid, 6);
  Sym p = rw_fresh_name(fr, "p", avoid, 6);
  const Ast *avoid2[] = {f, g, z, ys, xs, body, rw_mk_var(a, xt, at), rw_mk_var(a, p, at)};
  Sym acc = rw_fresh_name(fr, "acc", avoid2, 8);
  const Ast *avoid3[] = {f, g, z, ys, xs, body, rw_mk_var(a, xt, at), rw_mk_var(a, p, at), rw_mk_var(a, acc, at)};
  Sym q = rw_fresh_name(fr, "q", avoid3, 9);
  /* the element of the old reduction, (x_i[k], y[k]): row i's half of p
   * is fst p, y[k] is snd p; n copies of z made from y */
  AccumulatorStep st = {.p = p, .acc = acc, .q = q,
                        .mine = prim_of(a, PRIM_FST, rw_mk_var(a, p, at), at),
                        .shared = prim_of(a, PRIM_SND, rw_mk_var(a, p, at), at),
                        .mine_first = true, .f = f, .g = g, .z = z,
                        .from = rw_mk_var(a, y, at), .n = m->param, .at = at};
  Ast *pairs = rw_mk_app(
      a, rw_mk_app(a, rw_mk_prim(a, PRIM_ZIP, 0, at), prim_of(a, PRIM_TRANSPOSE, rw_mk_var(a, xt, at), at), false),
      rw_mk_var(a, y, at), false);
  Ast *reduce = rw_accumulators_reduce(fr, &st);
  Ast *col = rw_mk_lambda(a, y, rw_mk_stages(a, pairs, &reduce, 1), inner.args[0]->span);
  Ast *col_stages[] = {rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), col, false), rw_mk_prim(a, PRIM_TRANSPOSE, 0, at)};
  Ast *row = rw_mk_lambda(a, xt, rw_mk_stages(a, (Ast *)ys, col_stages, 2), fx->span);
  Ast *stages[] = {rw_mk_sized(a, PRIM_SPLIT, rw_mk_num(a, m->param), at),
                   rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), row, false), rw_mk_prim(a, PRIM_JOIN, 0, at)};
  return rw_mk_stages(a, (Ast *)xs, stages, 3);
}

/* ---- vectoriseTile ---- */

/* e computes lane by lane: arithmetic, math built-ins, variables,
 * literals, fst and snd of variables (the update of a tile's
 * accumulator, whose variables are scalars or vectors of the lanes) */
static bool lanewise_update(const Ast *e) {
  switch (e->kind) {
  case AST_VAR:
  case AST_INT:
  case AST_FLOAT: return true;
  case AST_BINOP:
    return (e->op == BIN_ADD || e->op == BIN_SUB || e->op == BIN_MUL || e->op == BIN_DIV) && lanewise_update(e->lhs) &&
           lanewise_update(e->rhs);
  case AST_NEG: return lanewise_update(e->lhs);
  case AST_PROJ: return e->lhs->kind == AST_VAR;
  case AST_APP: {
    Spine s = rw_spine_of(e);
    if (s.head->kind != AST_PRIM) return false;
    Prim p = s.head->prim;
    if (p == PRIM_FST || p == PRIM_SND) return s.nargs == 1 && s.args[0]->kind == AST_VAR;
    if (prim_family(p) != PFAM_MATH || s.nargs != prim_arity_of(p)) return false;
    for (int i = 0; i < s.nargs; i++)
      if (!lanewise_update(s.args[i])) return false;
    return true;
  }
  default: return false;
  }
}

static bool same_size(const SizeAst *a, const SizeAst *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == SZA_NUM) return a->num == b->num;
  if (a->kind == SZA_VAR) return a->name == b->name || strcmp(a->name, b->name) == 0;
  return same_size(a->lhs, b->lhs) && same_size(a->rhs, b->rhs);
}

/* N of the kernel parameter b: [K][N]T; NULL (why) if no kernel of the
 * program has such a b, two have different N, or a declaration is named
 * b.  The kernel whose body is rewritten is one of the program's, and b
 * is free in it (no binder of the body binds it): it is that parameter. */
static const SizeAst *row_length(Match *m, Sym b) {
  const Program *prog = m->fr->prog;
  const SizeAst *n = NULL;
  for (int i = 0; i < prog->ndecls; i++) {
    const Decl *d = prog->decls[i];
    if (d->name == b) {
      rw_refuse(m, "a declaration of the program has the columns' array's name");
      return NULL;
    }
    if (!d->is_kernel) continue;
    for (int j = 0; j < d->nparams; j++) {
      const TypeAst *t = d->params[j].type;
      if (d->params[j].name != b || !t) continue;
      if (t->kind == TYA_EXP) t = t->elem;
      if (!t || t->kind != TYA_ARRAY || !t->elem || t->elem->kind != TYA_ARRAY) continue;
      if (n && !same_size(n, t->elem->size)) {
        rw_refuse(m, "two kernels have a parameter of the columns' array's name with different row lengths");
        return NULL;
      }
      n = t->elem->size;
    }
  }
  if (!n) rw_refuse(m, "the columns' array is no kernel parameter [K][N]");
  return n;
}

/* xs |> split r |> map (\xt -> transpose b |> map (\y -> R) |> transpose) |> join
 *   = xs |> split r |> map (\xt -> b |> map (asVector n) |> transpose |> map (\y -> R) |> transpose)
 *        |> join |> join |> asScalar |> split N
 * The tiles' results, [M/r][r][N/n] vectors, are rows of N scalars once
 * joined and cut at N (a map of asScalar over each row would be a view
 * map after a grid map that is not written through, E0604). */
Ast *rule_vectorise_tile(Match *m, const Spine *s) {
  Arena *a = m->fr->arena;
  Spine rows, split, tr1, cols, tr2, red, pad, take, zp, upd;
  if (!rw_head_is(s, PRIM_JOIN) || s->nargs != 1 || !rw_is_app_of(s->args[0], PRIM_MAP, 2, &rows) ||
      !rw_is_app_of(rows.args[1], PRIM_SPLIT, 1, &split) || rows.args[0]->kind != AST_LAMBDA)
    return rw_refuse(m, "it is no join of a plain map over the tiles of split r xs");
  const Ast *rowfn = rows.args[0];
  if (!rw_is_app_of(rowfn->body, PRIM_TRANSPOSE, 1, &tr1) || !rw_is_app_of(tr1.args[0], PRIM_MAP, 2, &cols) ||
      !rw_is_app_of(cols.args[1], PRIM_TRANSPOSE, 1, &tr2) || tr2.args[0]->kind != AST_VAR ||
      cols.args[0]->kind != AST_LAMBDA)
    return rw_refuse(m, "the tile's function is not transpose b |> map (\\y -> R) |> transpose, b a variable");
  Sym b = tr2.args[0]->name, y = cols.args[0]->bound;
  const Ast *r = cols.args[0]->body;
  if (!rw_is_app_of(r, PRIM_REDUCE, 3, &red) || !rw_is_app_of(red.args[1], PRIM_PAD_CST, 2, &pad) ||
      !rw_is_app_of(pad.args[1], PRIM_TAKE, 1, &take) || !is_var(take.args[0], y) || !is_num(take.head->sizes[0], 0) ||
      !is_num(pad.head->sizes[1], 0) || !rw_is_app_of(red.args[2], PRIM_ZIP, 2, &zp) || !is_var(zp.args[1], y))
    return rw_refuse(m,
                     "the column's function is not reduce F (y |> take 0 |> padCst r 0 z) (zip c y) (registerTile's)");
  const Ast *op = red.args[0];
  if (rw_count_free(op, y) || rw_count_free(pad.args[0], y) || rw_count_free(zp.args[0], y))
    return rw_refuse(m, "the column y appears outside zip c y and take 0 y");
  if (op->kind != AST_LAMBDA || op->body->kind != AST_LAMBDA || !rw_is_app_of(op->body->body, PRIM_MAP, 2, &upd) ||
      upd.args[0]->kind != AST_LAMBDA || !lanewise_update(upd.args[0]->body))
    return rw_refuse(m,
                     "the reduction's operator is not \\p acc -> zip (fst p) acc |> map (\\q -> u), u computing lane "
                     "by lane (+ - * /, math built-ins, variables, literals, fst and snd of variables)");
  Spine accs, fp;
  Sym p = op->bound, acc = op->body->bound;
  if (!rw_is_app_of(upd.args[1], PRIM_ZIP, 2, &accs) || !rw_is_app_of(accs.args[0], PRIM_FST, 1, &fp) ||
      !is_var(fp.args[0], p) || !is_var(accs.args[1], acc) || p == acc)
    return rw_refuse(m, "the accumulator's update does not map over zip (fst p) acc");
  if (!m->root || binds(m->root, b))
    return rw_refuse(m, "a lambda or let of the kernel's body binds the columns' array's name");
  const SizeAst *n = row_length(m, b);
  if (!n) return NULL;
  if (m->check_only) return (Ast *)m->e;
  Span at = s->head->span;
  Ast *map = rw_mk_prim(a, PRIM_MAP, 0, at);
  Ast *vec_stages[] = {rw_mk_app(a, map, rw_mk_sized(a, PRIM_AS_VECTOR, rw_mk_num(a, m->param), at), false),
                       rw_mk_prim(a, PRIM_TRANSPOSE, 0, at), rw_mk_app(a, (Ast *)cols.head, (Ast *)cols.args[0], false),
                       (Ast *)tr1.head};
  Ast *tile = rw_mk_lambda(a, rowfn->bound, rw_mk_stages(a, (Ast *)tr2.args[0], vec_stages, 4), rowfn->span);
  Ast *stages[] = {(Ast *)split.head,
                   rw_mk_app(a, (Ast *)rows.head, tile, false),
                   (Ast *)s->head,
                   rw_mk_prim(a, PRIM_JOIN, 0, at),
                   rw_mk_prim(a, PRIM_AS_SCALAR, 0, at),
                   rw_mk_sized(a, PRIM_SPLIT, (SizeAst *)n, at)};
  return rw_mk_stages(a, (Ast *)split.args[0], stages, 6);
}

/* ---- rowTile ---- */

enum { MAX_VIEW_CHAIN = 16 };

/* e is a view of the variable x alone: x, fst, snd, .1, .2 or asVector
 * of such (a row of the element, read as vectors after vectoriseSums),
 * so that the map of it over a tile's rows and its transpose compute
 * nothing */
static bool view_of(const Ast *e, Sym x, int depth) {
  if (depth >= MAX_VIEW_CHAIN) return false;
  if (e->kind == AST_VAR) return e->name == x;
  if (e->kind == AST_PROJ) return (e->proj == 1 || e->proj == 2) && view_of(e->lhs, x, depth + 1);
  Spine s = rw_spine_of(e);
  return (rw_head_is(&s, PRIM_FST) || rw_head_is(&s, PRIM_SND) || rw_head_is(&s, PRIM_AS_VECTOR)) && s.nargs == 1 &&
         view_of(s.args[0], x, depth + 1);
}

/* the stages map h1, ..., map hk of a view_of P x = hk (... (h1 x)),
 * innermost first (.1 and .2 as fst and snd); their number */
static int view_chain(Arena *a, const Ast *e, Ast **out, Span at) {
  if (e->kind == AST_VAR) return 0;
  Ast *h;
  const Ast *inner;
  if (e->kind == AST_PROJ) {
    h = rw_mk_prim(a, e->proj == 1 ? PRIM_FST : PRIM_SND, 0, at);
    inner = e->lhs;
  } else {
    Spine s = rw_spine_of(e);
    h = (Ast *)s.head;
    inner = s.args[0];
  }
  int n = view_chain(a, inner, out, at);
  out[n] = rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), h, false);
  return n + 1;
}

/* e is the row of x the reduction reads: a view_of x, or a zip of two
 * such rows (gesummv's zip (fst rows) (snd rows), the rows of two
 * matrices read side by side) */
static bool row_of(const Ast *e, Sym x, int depth) {
  Spine zp;
  if (depth >= MAX_VIEW_CHAIN) return false;
  if (rw_is_app_of(e, PRIM_ZIP, 2, &zp)) return row_of(zp.args[0], x, depth + 1) && row_of(zp.args[1], x, depth + 1);
  return view_of(e, x, depth);
}

/* snd p followed by the projections of path (0 fst, 1 snd), len of them:
 * made anew for each use, no node shared */
static Ast *half_at(Arena *a, Sym p, const bool *path, int len, Span at) {
  Ast *e = prim_of(a, PRIM_SND, rw_mk_var(a, p, at), at);
  for (int i = 0; i < len; i++) e = prim_of(a, path[i] ? PRIM_SND : PRIM_FST, e, at);
  return e;
}

/* for a row_of P x, the tile's rows side by side, [len][n] of P's
 * elements (returned), and in *mine the n elements of step k made of p
 * (whose snd is step k of the returned array).  A view hk (... (h1 x)):
 * xt |> map h1 |> ... |> map hk |> transpose, each map of a view
 * primitive a view (a map of a lambda would be lowered to a loop that
 * copies the rows), and its half of p.  A zip of two rows: the zip of
 * their sides, and the zip of their n elements, the pairs that P x's
 * element i is for row i */
static Ast *rows_side(Arena *a, const Ast *px, Sym xt, Sym p, bool *path, int len, Ast **mine, Span at) {
  Spine zp;
  if (rw_is_app_of(px, PRIM_ZIP, 2, &zp)) {
    Ast *side[2], *half[2];
    for (int i = 0; i < 2; i++) {
      path[len] = i == 1;
      side[i] = rows_side(a, zp.args[i], xt, p, path, len + 1, &half[i], at);
    }
    Ast *zip = rw_mk_prim(a, PRIM_ZIP, 0, at);
    *mine = rw_mk_app(a, rw_mk_app(a, zip, half[0], false), half[1], false);
    return rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_ZIP, 0, at), side[0], false), side[1], false);
  }
  *mine = half_at(a, p, path, len, at);
  Ast *stages[MAX_VIEW_CHAIN + 1];
  int n = view_chain(a, px, stages, at);
  stages[n++] = rw_mk_prim(a, PRIM_TRANSPOSE, 0, at);
  return rw_mk_stages(a, rw_mk_var(a, xt, at), stages, n);
}

/* the first reduce applied to its array in e, in preorder, reached
 * through no lambda or let (a binder between the element's lambda and
 * the reduction would be free in it once the reduction leaves the
 * lambda) */
static const Ast *first_reduce(const Ast *e) {
  if (rw_is_app_of(e, PRIM_REDUCE, 3, NULL)) return e;
  if (e->kind == AST_LAMBDA || e->kind == AST_LET) return NULL;
  for (int i = 0; i < rw_nchildren(e); i++) {
    const Ast *r = first_reduce(rw_child(e, i));
    if (r) return r;
  }
  return NULL;
}

/* e with the node old (the same pointer) replaced by v */
static Ast *replace_node(Arena *a, const Ast *e, const Ast *old, Ast *v) {
  if (e == old) return v;
  Ast *n = (Ast *)e;
  for (int i = 0; i < rw_nchildren(e); i++) {
    Ast *c = replace_node(a, rw_child(e, i), old, v);
    if (c != rw_child(e, i)) n = rw_with_child(a, n, i, c);
  }
  return n;
}

/* map (\x -> C[zip (P x) ys |> map g |> reduce f z]) xs
 *   = xs |> split n
 *        |> map (\xt -> zip ys (xt |> map (\x -> P x) |> transpose)
 *             |> reduce (\p acc -> zip (snd p) acc |> map (\q -> f (g (fst q, fst p)) (snd q)))
 *                       (ys |> take 0 |> padCst n 0 z)
 *             |> zip xt
 *             |> map (\r -> C[snd r] with x := fst r))
 *        |> join
 * Row i of tile t is x_(t*n+i): step k of the one loop reads ys[k] once
 * and P(x_i)[k] of each of the n rows, accumulator i folds g (P(x_i)[k],
 * ys[k]) by f from z in the order the row's own reduction did, so the
 * rule is sound for any f and z, as registerTile (nothing is regrouped);
 * then each row's context C takes its sum.  (zip ys (P x) is the same
 * with the pair's halves swapped.)  samples/gemv_vec.dpia, gemvVecRows:
 * R rows of float16 side by side, R float16 accumulators. */
Ast *rule_row_tile(Match *m, const Spine *s) {
  Arena *a = m->fr->arena;
  const Fresh *fr = m->fr;
  const Ast *fx = s->nargs == 2 && rw_head_is(s, PRIM_MAP) ? s->args[0] : NULL;
  if (!fx || fx->kind != AST_LAMBDA) return rw_refuse(m, "it is no plain map, applied to its array, of a lambda");
  Sym x = fx->bound;
  const Ast *red_node = first_reduce(fx->body);
  Spine red, gm, zp;
  if (!red_node || !rw_is_app_of(red_node, PRIM_REDUCE, 3, &red))
    return rw_refuse(m, "the lambda's body has no plain reduce applied to its array outside a lambda or let");
  const Ast *f = red.args[0], *z = red.args[1], *arr = red.args[2], *g = NULL;
  if (rw_is_app_of(arr, PRIM_MAP, 2, &gm)) {
    g = gm.args[0];
    arr = gm.args[1];
  }
  if (!rw_is_app_of(arr, PRIM_ZIP, 2, &zp))
    return rw_refuse(m, "the reduction's array is not zip a b (or a plain map of it)");
  bool row_first = row_of(zp.args[0], x, 0);
  const Ast *px = row_first ? zp.args[0] : zp.args[1], *ys = row_first ? zp.args[1] : zp.args[0];
  if (!row_of(px, x, 0) || rw_count_free(ys, x))
    return rw_refuse(m, "no array of the zip is a view of the element alone (x, fst, snd, .1, .2 or asVector of "
                        "it) or a zip of such views, with the other free of it");
  if (rw_count_free(f, x) || rw_count_free(z, x) || (g && rw_count_free(g, x)))
    return rw_refuse(m, "the element appears in the reduction's operator, initial value or map");
  if (rw_computes_any(fr, ys))
    return rw_refuse(m, "the array read beside the rows computes: the accumulators' initial array is made from it");
  if (m->check_only) return (Ast *)m->e;
  Span at = s->head->span;
  const Ast *xs = s->args[1];
  const Ast *avoid[] = {fx, xs};
  Sym xt = rw_fresh_name(fr, arena_printf(a, "%ss", x), avoid, 2);
  const Ast *avoid2[] = {fx, xs, rw_mk_var(a, xt, at)};
  Sym p = rw_fresh_name(fr, "p", avoid2, 3);
  const Ast *avoid3[] = {fx, xs, rw_mk_var(a, xt, at), rw_mk_var(a, p, at)};
  Sym acc = rw_fresh_name(fr, "acc", avoid3, 4);
  const Ast *avoid4[] = {fx, xs, rw_mk_var(a, xt, at), rw_mk_var(a, p, at), rw_mk_var(a, acc, at)};
  Sym q = rw_fresh_name(fr, "q", avoid4, 5);
  /* r is bound around the context, where x is replaced by fst r: x's
   * own name would be captured (a map of \r -> ... made snd (fst r) of
   * the sum snd r) */
  const Ast *avoid5[] = {fx, xs, rw_mk_var(a, xt, at), rw_mk_var(a, p, at), rw_mk_var(a, acc, at), rw_mk_var(a, x, at)};
  Sym r = rw_fresh_name(fr, "r", avoid5, 6);
  /* the tile's rows side by side, their elements k in snd p; ys[k] is
   * fst p; the element of the old reduction in the zip's order; n copies
   * of z made from ys */
  bool path[MAX_VIEW_CHAIN];
  Ast *mine;
  Ast *side = rows_side(a, px, xt, p, path, 0, &mine, at);
  AccumulatorStep st = {.p = p, .acc = acc, .q = q,
                        .mine = mine,
                        .shared = prim_of(a, PRIM_FST, rw_mk_var(a, p, at), at),
                        .mine_first = row_first, .f = f, .g = g, .z = z,
                        .from = ys, .n = m->param, .at = at};
  Ast *pairs = rw_mk_app(a, rw_mk_app(a, rw_mk_prim(a, PRIM_ZIP, 0, at), (Ast *)ys, false), side, false);
  /* each row's context, its sum snd r, its element fst r */
  Ast *ctx = replace_node(a, fx->body, red_node, prim_of(a, PRIM_SND, rw_mk_var(a, r, at), at));
  ctx = rw_subst(fr, ctx, x, prim_of(a, PRIM_FST, rw_mk_var(a, r, at), at));
  Ast *tile_stages[] = {rw_accumulators_reduce(fr, &st),
                        rw_mk_app(a, rw_mk_prim(a, PRIM_ZIP, 0, at), rw_mk_var(a, xt, at), false),
                        rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), rw_mk_lambda(a, r, ctx, fx->span), false)};
  Ast *tile = rw_mk_lambda(a, xt, rw_mk_stages(a, pairs, tile_stages, 3), fx->span);
  Ast *stages[] = {rw_mk_sized(a, PRIM_SPLIT, rw_mk_num(a, m->param), at),
                   rw_mk_app(a, rw_mk_prim(a, PRIM_MAP, 0, at), tile, false), rw_mk_prim(a, PRIM_JOIN, 0, at)};
  return rw_mk_stages(a, (Ast *)xs, stages, 3);
}
