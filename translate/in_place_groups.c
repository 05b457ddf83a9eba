/* in_place_groups.c: the proof that the work-groups of a kernel computing
 * in place read, before their barrier, only what no other group writes
 * (docs/language.md section 27, "Staged through the work-group", several
 * groups).
 *
 * codegen/in_place.c's staged rule lets a work-group read the input it
 * updates anywhere before a barrier of the group, then write; the barrier
 * orders the group's own reads and writes, nothing orders another
 * group's.  With several groups it needs to know that every element a
 * group reads before the barrier is
 *   (a) outside the regions the kernel updates: no work-item writes it, or
 *   (b) in the part of a region its own group writes.
 * That is decided here from the typed functional body, where the
 * footprints are views of the input (split, drop, take, transpose, zip,
 * a map of views), not from the generated code.
 *
 * A view of xs is described per axis (dimension) of xs: where it starts
 * (base) and, for each of the view's dimensions, the axis it walks and by
 * how many elements a step goes (coef); split, join, transpose, drop and
 * take change these and nothing else.  Its footprint is a box: on axis d,
 * from base[d] for 1 + sum (n - 1)*coef over the dimensions on d.
 *
 * The body must write its mapWorkgroup's results through views (join,
 * split, transpose) of the region (of each region, for a pair of regions
 * written by one map: unzip, and a pair of views of its parts):
 * element g of the map is written to the box W(g), whose start on some
 * axis is base + c*g with the rest of W(g) at most c long there, so that
 * no two groups' boxes meet (a mapWorkgroup inside the function of
 * another parts each element of the outer one the same way: groups in
 * two or three dimensions).  The innermost map's input is a view of xs
 * whose element g lies inside W(g) (b) or outside the regions (a); every
 * other view of xs in the body lies outside the regions (a); any other
 * use of xs (a reduction over it, another mapWorkgroup) leaves the proof
 * unmade, and the kernel with several groups is refused (E0705). */
#include "in_place_groups.h"

#include <string.h>

enum { GO_MAX_DIMS = 8, GO_MAX_AXES = 8, GO_MAX_GROUP_DIMS = 3 };

typedef struct VDim {
  Size n, coef;
  int axis;
} VDim;

typedef enum ViewKind { V_ARRAY, V_ZIP, V_PAIR } ViewKind;

/* an array view of xs (V_ARRAY); the zip of two (V_ZIP: an array whose
 * element i is the pair of the two element i); a pair of views (V_PAIR:
 * an element of a zip) */
typedef struct View {
  ViewKind kind;
  int naxes, ndims;
  Size base[GO_MAX_AXES];
  VDim dims[GO_MAX_DIMS];
  const struct View *a, *b;
} View;

/* a variable of the body bound to a view of xs (a let), or the element
 * of the map (own) */
typedef struct Bound {
  const Binder *binder;
  const View *view; /* NULL: the map's element */
  const struct Bound *next;
} Bound;

typedef struct Groups {
  Arena *arena;
  SizeCtx *sc;
  const DefInfo *k;
  const Binder *xs;
  int naxes;
  Size axis_n[GO_MAX_AXES];
  /* the regions: lo and one past the last, of their first ndims axes */
  Size lo[DECL_MAX_REGIONS][DECL_MAX_REGION], end[DECL_MAX_REGIONS][DECL_MAX_REGION];
  /* the mapWorkgroups, outermost first, each inside the function of the
   * one before, whose elements g[i] a group is, each a size variable of
   * its own; own, W(g): where the innermost's element is written */
  const Phrase *maps[GO_MAX_GROUP_DIMS];
  Size g[GO_MAX_GROUP_DIMS];
  int nmaps;
  View own;
  /* the first read of xs shown neither (a) nor (b), for E0705 */
  const Phrase *culprit;
} Groups;

/* false, p the read at fault (the first one found) */
static bool blame(Groups *G, const Phrase *p) {
  if (!G->culprit) G->culprit = p;
  return false;
}

static Size sadd(Groups *G, Size a, Size b) { return size_add(G->sc, a, b); }
static Size smul(Groups *G, Size a, Size b) { return size_mul(G->sc, a, b); }
static Size sone(Groups *G) { return size_const(G->sc, 1); }

static View *new_view(Groups *G, const View *from) {
  View *v = NEW(G->arena, View);
  *v = *from;
  return v;
}

static Size arr_size(const Phrase *p, int depth) {
  DataType *t = dt_resolve(p->type->data);
  for (int i = 0; i < depth; i++) t = dt_resolve(t->elem);
  return t->size;
}

/* the view op applied to the outer dimensions of v (an array or a zip of
 * arrays), or false */
static bool outer_op(Groups *G, Prim op, Size k, View *v) {
  if (v->kind == V_ZIP) {
    View *a = new_view(G, v->a), *b = new_view(G, v->b);
    if (!outer_op(G, op, k, a) || !outer_op(G, op, k, b)) return false;
    v->a = a, v->b = b;
    return true;
  }
  if (v->kind != V_ARRAY || v->ndims < 1) return false;
  VDim *d = v->dims;
  switch (op) {
  case PRIM_DROP:
    v->base[d->axis] = sadd(G, v->base[d->axis], smul(G, k, d->coef));
    d->n = size_sub(G->sc, d->n, k);
    return true;
  case PRIM_TAKE: d->n = k; return true;
  case PRIM_SPLIT: /* [n*k] -> [n][k] */
    if (v->ndims == GO_MAX_DIMS) return false;
    memmove(d + 1, d, sizeof *d * (size_t)v->ndims);
    v->ndims++;
    if (!size_div(G->sc, d[0].n, k, &d[0].n)) return false;
    d[0].coef = smul(G, k, d[1].coef);
    d[1].n = k;
    return true;
  case PRIM_JOIN: /* [n][m] -> [n*m]: one axis, the outer step m inner ones */
    if (v->ndims < 2 || d[0].axis != d[1].axis || !size_eq(d[0].coef, smul(G, d[1].n, d[1].coef))) return false;
    d[0].n = smul(G, d[0].n, d[1].n);
    d[0].coef = d[1].coef;
    memmove(d + 1, d + 2, sizeof *d * (size_t)(v->ndims - 2));
    v->ndims--;
    return true;
  case PRIM_TRANSPOSE: {
    if (v->ndims < 2) return false;
    VDim t = d[0];
    d[0] = d[1];
    d[1] = t;
    return true;
  }
  default: return false;
  }
}

/* element g (a size) of the array or zip v */
static const View *element(Groups *G, const View *v, Size g) {
  if (v->kind == V_ZIP) {
    View *p = new_view(G, v);
    p->kind = V_PAIR;
    p->a = element(G, v->a, g);
    p->b = element(G, v->b, g);
    return p->a && p->b ? p : NULL;
  }
  if (v->kind != V_ARRAY || v->ndims < 1) return NULL;
  View *e = new_view(G, v);
  e->base[v->dims[0].axis] = sadd(G, v->base[v->dims[0].axis], smul(G, g, v->dims[0].coef));
  memmove(e->dims, e->dims + 1, sizeof e->dims[0] * (size_t)(e->ndims - 1));
  e->ndims--;
  return e;
}

/* the whole of xs, or its region r (NULL: none) */
static View whole(Groups *G, const Region *r) {
  View v = {.kind = V_ARRAY, .naxes = G->naxes, .ndims = G->naxes};
  for (int d = 0; d < G->naxes; d++) {
    bool cut = r && d < r->ndims;
    v.base[d] = cut ? r->lo[d] : size_const(G->sc, 0);
    v.dims[d] = (VDim){cut ? r->len[d] : G->axis_n[d], sone(G), d};
  }
  return v;
}

/* what the kernel's result is written through: xs, its region, or the
 * pair of its regions from k on (pairs nested to the right) */
static View result_view(Groups *G, int k) {
  const DefInfo *def = G->k;
  if (def->nregions == 0) return whole(G, NULL);
  if (k == def->nregions - 1) return whole(G, &def->regions[k]);
  View *a = NEW(G->arena, View), *b = NEW(G->arena, View);
  *a = whole(G, &def->regions[k]);
  *b = result_view(G, k + 1);
  return (View){.kind = V_PAIR, .a = a, .b = b};
}

static const View *lookup(const Bound *env, const Binder *x, bool *own) {
  for (; env; env = env->next)
    if (env->binder == x) {
      *own = !env->view;
      return env->view;
    }
  *own = false;
  return NULL;
}

/* the value of p as a view of xs, or NULL (p is no view of it) */
static const View *view_of(Groups *G, const Phrase *p, const Bound *env) {
  if (p->kind == PH_VAR) {
    if (p->binder == G->xs) {
      View *v = NEW(G->arena, View);
      *v = whole(G, NULL);
      return v;
    }
    bool own;
    return lookup(env, p->binder, &own);
  }
  if (p->kind != PH_APP) return NULL;
  PhraseSpine s;
  phrase_spine(G->arena, p, &s);
  if (s.head->kind != PH_PRIM) return NULL;
  Prim op = s.head->prim;
  switch (op) {
  case PRIM_DROP:
  case PRIM_TAKE:
  case PRIM_SPLIT:
  case PRIM_JOIN:
  case PRIM_TRANSPOSE: {
    if (s.nargs != 1) return NULL;
    const View *from = view_of(G, s.args[0], env);
    if (!from) return NULL;
    View *v = new_view(G, from);
    return outer_op(G, op, s.head->sizes[0], v) ? v : NULL;
  }
  case PRIM_ZIP: {
    if (s.nargs != 2) return NULL;
    const View *a = view_of(G, s.args[0], env), *b = view_of(G, s.args[1], env);
    if (!a || !b) return NULL;
    View *v = new_view(G, a);
    v->kind = V_ZIP;
    v->a = a, v->b = b;
    return v;
  }
  case PRIM_FST:
  case PRIM_SND: {
    if (s.nargs != 1) return NULL;
    const View *v = view_of(G, s.args[0], env);
    return v && v->kind == V_PAIR ? (op == PRIM_FST ? v->a : v->b) : NULL;
  }
  case PRIM_MAP: { /* a map of views: the function's view under the outer dimension */
    if (s.nargs != 2 || s.args[0]->kind != PH_LAM) return NULL;
    const View *from = view_of(G, s.args[1], env);
    if (!from || from->kind != V_ARRAY || from->ndims < 1) return NULL;
    View elem = *from;
    memmove(elem.dims, elem.dims + 1, sizeof elem.dims[0] * (size_t)(elem.ndims - 1));
    elem.ndims--;
    Bound b = {s.args[0]->lam_binder, &elem, env};
    const View *r = view_of(G, s.args[0]->body, &b);
    if (!r || r->kind != V_ARRAY || r->ndims == GO_MAX_DIMS) return NULL;
    View *v = new_view(G, r);
    memmove(v->dims + 1, v->dims, sizeof v->dims[0] * (size_t)v->ndims);
    v->dims[0] = from->dims[0];
    v->ndims++;
    return v;
  }
  default: return NULL;
  }
}

/* the box of v on axis d: from *lo, *end excluded */
static void box(Groups *G, const View *v, int d, Size *lo, Size *end) {
  Size extent = sone(G);
  for (int i = 0; i < v->ndims; i++)
    if (v->dims[i].axis == d) extent = sadd(G, extent, smul(G, size_sub(G->sc, v->dims[i].n, sone(G)), v->dims[i].coef));
  *lo = v->base[d];
  *end = sadd(G, v->base[d], extent);
}

/* (a): v (its arrays) lies outside every region, each on some axis it
 * cuts (none without regions: the kernel writes all of xs) */
static bool outside_regions(Groups *G, const View *v) {
  if (v->kind != V_ARRAY) return outside_regions(G, v->a) && outside_regions(G, v->b);
  if (G->k->nregions == 0) return false;
  for (int k = 0; k < G->k->nregions; k++) {
    bool outside = false;
    for (int d = 0; d < G->k->regions[k].ndims && !outside; d++) {
      Size lo, end;
      box(G, v, d, &lo, &end);
      outside = size_provably_at_least(G->sc, G->lo[k][d], end) || size_provably_at_least(G->sc, lo, G->end[k][d]);
    }
    if (!outside) return false;
  }
  return true;
}

/* the array v lies inside the array w on every axis */
static bool inside(Groups *G, const View *v, const View *w) {
  if (w->kind != V_ARRAY) return inside(G, v, w->a) || inside(G, v, w->b);
  for (int d = 0; d < G->naxes; d++) {
    Size lo, end, wlo, wend;
    box(G, v, d, &lo, &end);
    box(G, w, d, &wlo, &wend);
    if (!size_provably_at_least(G->sc, lo, wlo) || !size_provably_at_least(G->sc, wend, end)) return false;
  }
  return true;
}

/* each array of v lies inside one of W(g)'s (b) or outside every region (a) */
static bool inside_own(Groups *G, const View *v) {
  if (v->kind != V_ARRAY) return inside_own(G, v->a) && inside_own(G, v->b);
  return inside(G, v, &G->own) || outside_regions(G, v);
}

/* each array of the element w of a map whose acceptor's outer dimension
 * is dims[0] of each array: on that dimension's axis, the element's box
 * starts at base + c*g and is at most c long, so that no two elements'
 * boxes meet (the arrays of a pair are in different regions, which the
 * checker shows disjoint) */
static bool elements_apart(Groups *G, const View *acc, const View *w) {
  if (acc->kind != V_ARRAY) return elements_apart(G, acc->a, w->a) && elements_apart(G, acc->b, w->b);
  Size lo, end;
  box(G, w, acc->dims[0].axis, &lo, &end);
  return size_provably_at_least(G->sc, acc->dims[0].coef, size_sub(G->sc, end, lo));
}

/* the inverse of the views of e down to fst y or snd y applied to the
 * acceptor view acc (written through: joinAcc, splitAcc, transposeAcc);
 * NULL when e is no such chain */
static const Phrase *views_to_part(Groups *G, const Phrase *e, View *acc, int *which);

/* one view written through: acc, the acceptor of op's result, becomes its
 * argument's (joinAcc: [n*m] written as [n][m], and so on) */
static bool written_through(Groups *G, const PhraseSpine *s, View *acc) {
  if (s->nargs != 1) return false;
  switch (s->head->prim) {
  case PRIM_JOIN: return outer_op(G, PRIM_SPLIT, arr_size(s->args[0], 1), acc);
  case PRIM_SPLIT: return outer_op(G, PRIM_JOIN, s->head->sizes[0], acc);
  case PRIM_TRANSPOSE: return outer_op(G, PRIM_TRANSPOSE, size_const(G->sc, 0), acc);
  default: return false;
  }
}

static const Phrase *views_to_part(Groups *G, const Phrase *e, View *acc, int *which) {
  for (;;) {
    if (e->kind != PH_APP) return NULL;
    PhraseSpine s;
    phrase_spine(G->arena, e, &s);
    if (s.head->kind != PH_PRIM || s.nargs != 1) return NULL;
    if (s.head->prim == PRIM_FST || s.head->prim == PRIM_SND) {
      *which = s.head->prim == PRIM_FST ? 1 : 2;
      return s.args[0];
    }
    if (!written_through(G, &s, acc)) return NULL;
    e = s.args[0];
  }
}

/* The output side: p written through the acceptor view acc down to the
 * mapWorkgroup; W(g) its element g, distinct groups' boxes disjoint.  A
 * pair of regions is written by a pair of views of one value's parts
 * (translate/stage1.c, pair_of_parts), an unzip of a map of pairs. */
static bool find_map(Groups *G, const Phrase *p, View acc) {
  if (p->kind != PH_APP) return false;
  PhraseSpine s;
  phrase_spine(G->arena, p, &s);
  if (s.head->kind != PH_PRIM) return false;
  switch (s.head->prim) {
  case PRIM_JOIN:
  case PRIM_SPLIT:
  case PRIM_TRANSPOSE: return acc.kind != V_PAIR && written_through(G, &s, &acc) && find_map(G, s.args[0], acc);
  case PRIM_PAIR: {
    if (s.nargs != 2 || acc.kind != V_PAIR) return false;
    View *a = new_view(G, acc.a), *b = new_view(G, acc.b);
    int w1, w2;
    const Phrase *y1 = views_to_part(G, s.args[0], a, &w1), *y2 = views_to_part(G, s.args[1], b, &w2);
    if (!y1 || !y2 || w1 != 1 || w2 != 2 || !phrase_alpha_equal(y1, y2)) return false;
    return find_map(G, y1, (View){.kind = V_PAIR, .a = a, .b = b});
  }
  case PRIM_UNZIP: /* unzipAcc: the pair of arrays written as an array of pairs */
    if (s.nargs != 1 || acc.kind != V_PAIR || acc.a->kind != V_ARRAY || acc.b->kind != V_ARRAY) return false;
    return find_map(G, s.args[0], (View){.kind = V_ZIP, .a = acc.a, .b = acc.b});
  case PRIM_MAP_WORKGROUP: {
    /* distinct elements here are apart; within one, the mapWorkgroup its
     * function writes through, if any, parts it further */
    if (s.nargs != 2 || acc.kind == V_PAIR || G->nmaps == GO_MAX_GROUP_DIMS) return false;
    const View *w = element(G, &acc, G->g[G->nmaps]);
    if (!w || !elements_apart(G, &acc, w)) return false;
    int level = G->nmaps++;
    G->maps[level] = p;
    if (s.args[0]->kind == PH_LAM && find_map(G, s.args[0]->body, *w)) return true;
    G->nmaps = level + 1;
    G->own = *w;
    return true;
  }
  default: return false;
  }
}

/* every use of xs in p is (a) or, through the map's element, (b) */
static bool uses_ok(Groups *G, const Phrase *p, const Bound *env) {
  if (!p) return true;
  if (p->kind != PH_VAR) {
    const View *v = view_of(G, p, env);
    if (v) return outside_regions(G, v) || blame(G, p);
  }
  switch (p->kind) {
  case PH_VAR: {
    bool own;
    const View *v = lookup(env, p->binder, &own);
    if (own) return true;
    if (v) return outside_regions(G, v) || blame(G, p);
    return p->binder != G->xs || blame(G, p);
  }
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return true;
  case PH_LAM: return uses_ok(G, p->body, env);
  case PH_APP: {
    /* the regions written by one value's parts: the value, once (the
     * copy in the second part is not computed, translate/stage1.c) */
    const Phrase *parts = phrase_pair_of_parts(G->arena, p);
    if (parts) return uses_ok(G, parts, env);
    PhraseSpine s;
    phrase_spine(G->arena, p, &s);
    for (int i = 0; i < G->nmaps; i++) {
      if (p != G->maps[i]) continue;
      /* the element of an outer map is a view its function takes the
       * inner map's input from; the innermost's is the group's own */
      const View *in = view_of(G, s.args[1], env);
      const View *e = in ? element(G, in, G->g[i]) : NULL;
      bool innermost = i == G->nmaps - 1;
      if (e && innermost && !inside_own(G, e)) return blame(G, s.args[1]);
      if (!e || s.args[0]->kind != PH_LAM) return false;
      Bound b = {s.args[0]->lam_binder, innermost ? NULL : e, env};
      return uses_ok(G, s.args[0]->body, &b);
    }
    if (s.head->kind == PH_PRIM && prim_level(s.head->prim) == PLVL_WORKGROUP) return false;
    /* a let of a view of xs: the variable is the view, checked at its uses */
    if (s.head->kind == PH_LAM && s.nargs == 1) {
      const View *v = view_of(G, s.args[0], env);
      if (v) {
        Bound b = {s.head->lam_binder, v, env};
        return uses_ok(G, s.head->body, &b);
      }
    }
    if (!uses_ok(G, s.head, env)) return false;
    for (int i = 0; i < s.nargs; i++)
      if (!uses_ok(G, s.args[i], env)) return false;
    return true;
  }
  case PH_PAIR:
  case PH_PROJ:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP:
  case PH_UNOP: return uses_ok(G, p->fst, env) && (p->kind == PH_PROJ || p->kind == PH_UNOP || uses_ok(G, p->snd, env));
  case PH_COUNT: break;
  }
  return false;
}

bool in_place_groups_own(Arena *a, TypeCtx *tc, Interner *in, const DefInfo *k, const Phrase *body, Span *culprit) {
  *culprit = (Span){0};
  /* several inputs updated (`updates x, b`): not followed here, so a
   * kernel staged through more than one group is refused (E0705) */
  if (!k->updates || k->nupdated > 1) return false;
  Groups G = {.arena = a, .sc = &tc->sizes, .k = k, .xs = k->updates};
  for (DataType *t = dt_resolve(k->updates->type->data); t->kind == DT_ARRAY; t = dt_resolve(t->elem)) {
    if (G.naxes == GO_MAX_AXES) return false;
    G.axis_n[G.naxes++] = t->size;
  }
  for (int r = 0; r < k->nregions; r++)
    for (int d = 0; d < k->regions[r].ndims; d++) {
      G.lo[r][d] = k->regions[r].lo[d];
      G.end[r][d] = sadd(&G, k->regions[r].lo[d], k->regions[r].len[d]);
    }
  static const char *const names[GO_MAX_GROUP_DIMS] = {"group g0", "group g1", "group g2"};
  for (int i = 0; i < GO_MAX_GROUP_DIMS; i++) G.g[i] = size_var(G.sc, intern(in, names[i], strlen(names[i])));
  if (find_map(&G, body, result_view(&G, 0)) && uses_ok(&G, body, NULL)) return true;
  if (G.culprit) *culprit = G.culprit->span;
  return false;
}
