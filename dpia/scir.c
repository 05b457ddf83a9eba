/* scir.c: Syntactic Control of Interference with passivity (paper Figure 3,
 * spec section 3).
 *
 * Inference has already fixed every type; this pass decides whether a
 * derivation with the structural rules of Figure 3 exists.  For every
 * phrase it computes which free identifiers are used actively (the
 * context Γ) and which passively (Π):
 *
 *   Var       x is active, unless its type is passive (then Passify);
 *   Passify   whenever a phrase has a passive type, all its identifiers
 *             move to Π.  Doing this as early as possible is never worse:
 *             Activate can always move an identifier back, and only
 *             Promote and App constrain Γ;
 *   Lam       the bound identifier leaves both contexts (Activate first if
 *             needed);
 *   App       function and argument use disjoint active identifiers: an
 *             identifier active on one side may not appear on the other;
 *   Pair      (and ; and := whose argument is a phrase pair) share the
 *             context: no constraint;
 *   Promote   a function checked against a passive arrow (the bodies of
 *             parfor and mapI, user ->p types) may use no identifier
 *             actively;
 *   Derelict  a passive function may be used where a plain one is wanted.
 *
 * Primitives and defs are closed (Prim rule): they use nothing.
 *
 * An extension of Promote, for hoisted allocations (spec section 7, paper section
 * 6.4): in the body of a parfor with index i, an identifier whose every
 * active use is indexed by i itself (idxAcc ... i, at any depth of the
 * access path) writes a different part of the store in every iteration:
 * acceptor views are bijections, so distinct i give distinct elements.
 * Promote accepts such an identifier.  It is what the hoisted program
 * needs: a temporary widened across the loop is written as idxAcc tmp.1 i.
 * The parfor's own acceptor still cannot be written through another path
 * (App).  Likewise local memory (a variable bound
 * by newLocal) exists once per work-group (OpenCL's address spaces, spec
 * section 5), so the body of a parforWorkgroup, whose iterations run in
 * different groups or one after the other in the same group, may write it:
 * that is where hoisting puts it (kernel scope, spec section 7).
 *
 * And one extension of App, the pointwise read (below, and
 * docs/language.md section 2.1): parfor X.1 (\i o -> P) may read X where
 * every read is of element i. */
#include "check.h"
#include "hints.h"

#include <string.h>

typedef struct Use {
  Binder *binder;
  bool active;
  Span span; /* the first use (the first active use if active) */
  /* loop indices that index every active use (see the extension above);
   * NULL-terminated, NULL if some active use is not indexed at all */
  const Binder **sliced_by;
} Use;

typedef struct Uses {
  int n, cap;
  Use *items;
} Uses;

/* The construct whose argument is being checked. */
typedef struct Context {
  /* the function applied, whose head names the context in messages
   * ("parfor", "mapILocal", a def's name: head_name, asked only when one
   * is reported); NULL at top */
  const Phrase *fn;
  Span span;
  Prim prim; /* the primitive at its head; PRIM_COUNT when it is none */
} Context;

/* Which loops the extensions above are about: a parfor's body may write
 * what its own index slices; a parforWorkgroup's also local memory. */
typedef enum ParforKind {
  NO_PARFOR,         /* Promote as the paper has it */
  PARFOR_ITERATIONS, /* parfor, parforGlobal, parforLocal */
  PARFOR_GROUPS      /* parforWorkgroup: its iterations are work-groups */
} ParforKind;

static ParforKind parfor_kind(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p) {
  case PRIM_PARFOR:
  case PRIM_PARFOR_GLOBAL:
  case PRIM_PARFOR_LOCAL: return PARFOR_ITERATIONS;
  case PRIM_PARFOR_WORKGROUP: return PARFOR_GROUPS;
  /* mapI and its levels are parfors after stage II, which checks them again */
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
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return NO_PARFOR;
  }
  DPIA_EXHAUSTIVE_END
  return NO_PARFOR;
}

typedef struct Scir {
  Arena *arena;
  Diag *diag;
  bool ok;
  int depth;
  /* the index variables of the idxAcc applications around the current
   * phrase (innermost last) */
  const Binder **slices;
  int nslices, cap_slices;
  Vec local_memory; /* binders of newLocal allocations */
  Vec temporaries;  /* binders of every new, newPrivate, newLocal, newGlobal */
} Scir;

/* the indices common to two slice lists */
static const Binder **slices_meet(Scir *s, const Binder **a, const Binder **b) {
  if (!a || !b) return NULL;
  int n = 0;
  while (a[n]) n++;
  const Binder **out = NEWARRAY(s->arena, const Binder *, n + 1);
  int k = 0;
  for (int i = 0; a[i]; i++)
    for (int j = 0; b[j]; j++)
      if (a[i] == b[j]) {
        out[k++] = a[i];
        break;
      }
  return k ? out : NULL;
}

static const Binder **current_slices(Scir *s) {
  if (!s->nslices) return NULL;
  const Binder **out = NEWARRAY(s->arena, const Binder *, s->nslices + 1);
  for (int i = 0; i < s->nslices; i++) out[i] = s->slices[i];
  return out;
}

static void uses_add_sliced(Scir *s, Uses *u, Binder *b, bool active, Span span, const Binder **sliced_by) {
  for (int i = 0; i < u->n; i++) {
    if (u->items[i].binder != b) continue;
    if (active && !u->items[i].active) {
      u->items[i].active = true;
      u->items[i].span = span;
      u->items[i].sliced_by = sliced_by;
    } else if (active) {
      u->items[i].sliced_by = slices_meet(s, u->items[i].sliced_by, sliced_by);
    }
    return;
  }
  if (u->n == u->cap) {
    int cap = u->cap ? u->cap * 2 : 4;
    Use *items = NEWARRAY(s->arena, Use, cap);
    if (u->n) memcpy(items, u->items, sizeof(Use) * (size_t)u->n);
    u->items = items;
    u->cap = cap;
  }
  u->items[u->n++] = (Use){b, active, span, active ? sliced_by : NULL};
}

static void uses_add(Scir *s, Uses *u, Binder *b, bool active, Span span) {
  uses_add_sliced(s, u, b, active, span, current_slices(s));
}

static void uses_passify(Uses *u) {
  for (int i = 0; i < u->n; i++) u->items[i].active = false;
}

static void uses_remove(Uses *u, Binder *b) {
  for (int i = 0; i < u->n; i++)
    if (u->items[i].binder == b) {
      u->items[i] = u->items[--u->n];
      return;
    }
}

static const Use *uses_find(const Uses *u, Binder *b) {
  for (int i = 0; i < u->n; i++)
    if (u->items[i].binder == b) return &u->items[i];
  return NULL;
}

/* Pair rule (shared context): the union; active wins. */
static void uses_merge(Scir *s, Uses *into, const Uses *from) {
  for (int i = 0; i < from->n; i++)
    uses_add_sliced(s, into, from->items[i].binder, from->items[i].active, from->items[i].span,
                    from->items[i].sliced_by);
}

static const char *head_name(Arena *arena, const Phrase *fn) {
  while (fn->kind == PH_APP) fn = fn->fst;
  switch (fn->kind) {
  case PH_PRIM: return prim_display_name(arena, fn->prim, fn->dim, fn->span);
  case PH_DEF: return fn->def->name;
  case PH_VAR: return fn->binder->name;
  default: return NULL;
  }
}

static Span head_span(const Phrase *fn) {
  while (fn->kind == PH_APP) fn = fn->fst;
  return fn->span;
}

static Prim head_prim(const Phrase *fn) {
  while (fn->kind == PH_APP) fn = fn->fst;
  return fn->kind == PH_PRIM ? fn->prim : PRIM_COUNT;
}

static void usage(Scir *s, const Phrase *p, Context ctx, Uses *out);
static void usage_in(Scir *s, const Phrase *p, Context ctx, Uses *out, const Binder *outer_lambda);

/* Promote: no identifier may be active.  Those that are get reported and
 * dropped, so the same mistake is not reported again by App further up. */
static void require_passive(Scir *s, Uses *u, Context ctx, const char *what, const Binder *index) {
  for (int i = 0; i < u->n; i++) {
    Use copy = u->items[i];
    const Use *x = &copy;
    if (!x->active) continue;
    bool sliced = false;
    for (int k = 0; index && x->sliced_by && x->sliced_by[k]; k++) sliced |= x->sliced_by[k] == index;
    if (sliced) continue;
    if (parfor_kind(ctx.prim) == PARFOR_GROUPS) {
      bool local = false;
      for (int k = 0; k < s->local_memory.len; k++) local |= s->local_memory.items[k] == x->binder;
      if (local) continue;
    }
    u->items[i--] = u->items[--u->n];
    s->ok = false;
    const char *name = ctx.fn ? head_name(s->arena, ctx.fn) : NULL;
    if (name) {
      diag_error(s->diag, ERR_ACTIVE_IN_PASSIVE, x->span,
                 "'%s' is used actively inside the body of a '%s', whose body must be passive", x->binder->name,
                 name);
      diag_note(s->diag, ctx.span,
                "the %s of this '%s' may write only through the acceptor it is given (SCIR Promote, paper Figure 3)",
                what, name);
    } else {
      diag_error(s->diag, ERR_ACTIVE_IN_PASSIVE, x->span,
                 "'%s' is used actively inside a function that must be passive", x->binder->name);
    }
  }
}

/* Does a phrase of type have fit where want is expected?  Only the arrows
 * can differ (inference unified the rest).  A passive function fits a
 * plain arrow (Derelict); a plain one fits a passive arrow only at the top,
 * by Promote, which the caller checks. */
static bool arrows_fit(const PhraseType *have, const PhraseType *want, bool top) {
  switch (want->kind) {
  case PT_FN:
  case PT_FN_P:
    if (want->kind == PT_FN_P && have->kind == PT_FN && !top) return false;
    return arrows_fit(want->fst, have->fst, false) && arrows_fit(have->snd, want->snd, false);
  case PT_WITH: return arrows_fit(have->fst, want->fst, false) && arrows_fit(have->snd, want->snd, false);
  default: return true;
  }
}

/* ---- the pointwise-read extension ----
 *
 * parfor X.1 (\i o -> P), where P uses X only to read element i of it
 * (idx E i, E being X.2 or a zip of arrays among which X.2 is one), reads
 * and writes in each iteration the element of its own index, and in no
 * other: a work-item of a work-group's reduction updating its element of
 * the accumulator in place (translate/stage1.c, in_place_ok).  App
 * accepts the passive uses of X in such a body beside the acceptor X.1.
 * P may hold no parallel loop: the work-items of a nested parfor would
 * share iteration i, and one could write a part of element i that another
 * reads.  Within one iteration, that P reads each part of the element
 * before it writes it is the translation's obligation, as for a
 * sequential for.  Code generation places no barrier between those reads
 * and writes (codegen/opencl.c). */

static bool is_prim_app2(const Phrase *p, Prim prim) {
  return p->kind == PH_APP && p->fst->kind == PH_APP && p->fst->fst->kind == PH_PRIM && p->fst->fst->prim == prim;
}

static bool is_proj_of_var(const Phrase *p, const Binder *x, int proj) {
  return p->kind == PH_PROJ && p->index == proj && p->fst->kind == PH_VAR && p->fst->binder == x;
}

/* the leaves X.2 of a zip tree e (-1 if e is not one: then its uses of X
 * are not pointwise) */
static int zip_leaves(const Phrase *e, const Binder *x) {
  if (is_proj_of_var(e, x, 2)) return 1;
  if (!is_prim_app2(e, PRIM_ZIP)) return scir_uses_in(e, x) ? -1 : 0;
  int l = zip_leaves(e->fst->snd, x), r = zip_leaves(e->snd, x);
  return l < 0 || r < 0 ? -1 : l + r;
}

/* the uses of x in p: all of them, or (pointwise) only those that read
 * element i of it */
static int count_in(const Phrase *p, const Binder *x, const Binder *i, bool pointwise) {
  if (pointwise && is_prim_app2(p, PRIM_IDX) && p->snd->kind == PH_VAR && p->snd->binder == i) {
    int n = zip_leaves(p->fst->snd, x);
    if (n > 0) return n;
  }
  switch (p->kind) {
  case PH_VAR: return !pointwise && p->binder == x;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return 0;
  case PH_LAM: return count_in(p->body, x, i, pointwise);
  case PH_PROJ:
  case PH_UNOP: return count_in(p->fst, x, i, pointwise);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return count_in(p->fst, x, i, pointwise) + count_in(p->snd, x, i, pointwise);
  case PH_COUNT: break;
  }
  INTERNAL("phrase kind %d", (int)p->kind);
}

static bool is_parfor_prim(Prim p) { return parfor_kind(p) != NO_PARFOR; }

/* ---- nested pointwise reads ----
 *
 * parfor X.1 (\i1 o1 -> parfor o1 (\i2 o2 -> ... parfor o(n-1) (\in on -> P)))
 * (translate/stage1.c, local_nest: an accumulator updated by nested
 * mapLocals), where each level's body is nothing but the next level's
 * parfor over its own element acceptor, P holds no parallel loop, and
 * every use of X in P reads within element [i1]..[in] of X.2: iteration
 * (i1, .., in) writes that element only (through on, an acceptor view of
 * X.1) and reads it only, and no other iteration touches it.  Nothing but
 * the innermost body reads X: code in an outer body runs on all the
 * work-items of the inner levels, each of which would read the element
 * that the others write.
 *
 * A read is located through projections and zips: fst (idx (zip A B) i)
 * is idx A i, so it reads X only if A does. */

typedef struct Nest {
  const Binder *x;
  const Binder *const *is; /* the levels' indices, outermost first */
  int n;
} Nest;

enum { PW_NONE = 1 << 20 }; /* a phrase that does not read x */

static const Phrase *proj_arg(const Phrase *p, Prim *which) {
  if (p->kind != PH_APP || p->fst->kind != PH_PRIM) return NULL;
  if (p->fst->prim != PRIM_FST && p->fst->prim != PRIM_SND) return NULL;
  *which = p->fst->prim;
  return p->snd;
}

static int pw_depth(const Phrase *e, const Nest *c, bool *exact);

/* The depth d such that every read of x in e is of a part of element
 * [is[0]]..[is[d-1]] of x.2 (0: x.2 itself; PW_NONE: no read; -1: a use
 * that is not such a read), *exact when e is that element.  projs[0..np)
 * are the projections applied to e, outermost first: the last one applies
 * first.  -2: e is not an element (idx), the caller looks inside it. */
static int pw_located(const Phrase *e, const Nest *c, const Prim *projs, int np, bool *exact) {
  *exact = false;
  if (!is_prim_app2(e, PRIM_IDX)) return -2;
  const Phrase *z = e->fst->snd, *v = e->snd;
  /* the projections pick a subtree of the zip tree */
  while (np > 0 && is_prim_app2(z, PRIM_ZIP)) {
    z = projs[--np] == PRIM_FST ? z->fst->snd : z->snd;
  }
  bool single = !is_prim_app2(z, PRIM_ZIP);
  int depth = PW_NONE;
  /* the leaves of what is left */
  const Phrase *stack[64];
  int top = 0;
  stack[top++] = z;
  while (top > 0) {
    const Phrase *l = stack[--top];
    if (is_prim_app2(l, PRIM_ZIP)) {
      if (top + 2 > 64) return -1;
      stack[top++] = l->fst->snd;
      stack[top++] = l->snd;
      continue;
    }
    bool ex;
    int d = pw_depth(l, c, &ex);
    if (d < 0) return -1;
    if (d == PW_NONE) continue;
    /* element is[d] of the element of depth d is the element of depth d + 1 */
    bool deeper = ex && d < c->n && v->kind == PH_VAR && v->binder == c->is[d];
    if (deeper) d++;
    if (d < depth) depth = d;
    *exact = single && np == 0 && deeper;
  }
  int dv = pw_depth(v, c, &(bool){false});
  if (dv < 0) return -1;
  return dv < depth ? dv : depth;
}

static int pw_depth(const Phrase *e, const Nest *c, bool *exact) {
  *exact = false;
  if (is_proj_of_var(e, c->x, 2)) {
    *exact = true;
    return 0;
  }
  /* projections of an element */
  Prim projs[64];
  int np = 0;
  const Phrase *core = e;
  Prim which;
  for (const Phrase *q; np < 64 && (q = proj_arg(core, &which)); core = q) projs[np++] = which;
  int d = pw_located(core, c, projs, np, exact);
  if (d != -2) return d;
  switch (e->kind) {
  case PH_VAR: return e->binder == c->x ? -1 : PW_NONE;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return PW_NONE;
  case PH_LAM: return pw_depth(e->body, c, &(bool){false});
  case PH_PROJ:
  case PH_UNOP: return pw_depth(e->fst, c, &(bool){false});
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: {
    int l = pw_depth(e->fst, c, &(bool){false}), r = pw_depth(e->snd, c, &(bool){false});
    return l < 0 || r < 0 ? -1 : l < r ? l : r;
  }
  case PH_COUNT: break;
  }
  INTERNAL("phrase kind %d", (int)e->kind);
}

/* body is parfor o (\i o' -> B): its lambda, else NULL */
static const Phrase *parfor_over(const Phrase *body, const Binder *o) {
  if (body->kind != PH_APP || body->fst->kind != PH_APP || body->fst->fst->kind != PH_PRIM ||
      !is_parfor_prim(body->fst->fst->prim))
    return NULL;
  const Phrase *acc = body->fst->snd, *lam = body->snd;
  if (acc->kind != PH_VAR || acc->binder != o || lam->kind != PH_LAM || lam->body->kind != PH_LAM) return NULL;
  return lam;
}

static bool nested_pointwise(const Binder *x, const Phrase *lam) {
  const Binder *is[4];
  int n = 0;
  for (;;) {
    if (n == 4) return false;
    is[n++] = lam->lam_binder;
    const Phrase *inner = parfor_over(lam->body->body, lam->body->lam_binder);
    if (!inner) break;
    lam = inner;
  }
  const Phrase *p = lam->body->body;
  if (n < 2 || phrase_has_prim(p, is_parfor_prim)) return false;
  Nest c = {x, is, n};
  return pw_depth(p, &c, &(bool){false}) == n;
}

/* ---- accumulators owned by work-items ----
 *
 * A work-group's accumulator updated in place through nested mapLocals
 * (translate/stage1.c, local_nest) is, in the whole of its scope, read
 * and written as element [i1]..[in] by iteration (i1, .., in) of nested
 * parforLocals of the same dimensions (its initialisation, the step, and
 * the code after the reduction that reads it): then only the work-item
 * that runs those iterations ever touches the element, and code
 * generation may keep it in that work-item's private memory.  A write is
 * through the chain parforLocal x.1 (\i1 o1 -> parforLocal o1 (\i2 o2 ->
 * .. P)), each level's body nothing but the next level's parfor, P
 * writing on only; a read is a pointwise read of depth n (pw_depth) in
 * the innermost body of any chain of parforLocals of those dimensions. */

typedef struct Owned {
  const Binder *x;
  const int *dims;
  int n;
  const Binder *is[4];
} Owned;

/* p = parforLocal A (\i o -> body) */
static bool parfor_local_parts(const Phrase *p, int *dim, const Phrase **acc, const Phrase **lam) {
  if (p->kind != PH_APP || p->fst->kind != PH_APP || p->fst->fst->kind != PH_PRIM ||
      p->fst->fst->prim != PRIM_PARFOR_LOCAL || p->snd->kind != PH_LAM || p->snd->body->kind != PH_LAM)
    return false;
  *dim = p->fst->fst->dim;
  *acc = p->fst->snd;
  *lam = p->snd;
  return true;
}

/* level: the levels entered; o: the element acceptor of a writing chain
 * (NULL: the levels entered do not write x) */
static bool owned_walk(const Phrase *p, Owned *c, int level, const Binder *o) {
  if (level == c->n) {
    Nest nest = {c->x, c->is, c->n};
    int d = pw_depth(p, &nest, &(bool){false});
    return d == c->n || d == PW_NONE;
  }
  int dim;
  const Phrase *acc, *lam;
  if (parfor_local_parts(p, &dim, &acc, &lam) && dim == c->dims[level]) {
    bool writes = level == 0 ? is_proj_of_var(acc, c->x, 1) : o && acc->kind == PH_VAR && acc->binder == o;
    if (o && !writes) return false;
    if (!writes && pw_depth(acc, &(Nest){c->x, c->is, 0}, &(bool){false}) != PW_NONE) return false;
    c->is[level] = lam->lam_binder;
    return owned_walk(lam->body->body, c, level + 1, writes ? lam->body->lam_binder : NULL);
  }
  /* a writing chain goes on through its element only */
  if (o) return false;
  switch (p->kind) {
  case PH_VAR: return p->binder != c->x;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return true;
  case PH_LAM: return owned_walk(p->body, c, level, NULL);
  case PH_PROJ:
  case PH_UNOP: return owned_walk(p->fst, c, level, NULL);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return owned_walk(p->fst, c, level, NULL) && owned_walk(p->snd, c, level, NULL);
  case PH_COUNT: break;
  }
  INTERNAL("phrase kind %d", (int)p->kind);
}

bool scir_owned_by_items(const Phrase *p, const Binder *x, const int *dims, int n) {
  if (n < 1 || n > 4) return false;
  Owned c = {x, dims, n, {0}};
  return owned_walk(p, &c, 0, NULL);
}

/* ---- reads apart from the writes ----
 *
 * parforLocal X.1 (\w o -> P) whose iteration w changes its element of X
 * only when w > T, T the same for every iteration (it uses nothing P or
 * the parfor binds), may read the rows of X.2 at or below T in every
 * iteration: no iteration changes them.  That is the first phase of
 * Rodinia's lud_diagonal, in place (docs/language.md section 31): work-item
 * w > i updates its row's element i from column i above the diagonal and
 * the pivot (i, i), which no work-item writes in the phase.  A write
 * through o changes the store unless it is a write of the element into
 * itself (idxAcc o j := X.2[w][j], the other side of the select that
 * chose the element: code generation drops it, codegen/opencl.c store);
 * each other write must be inside the chosen side of `if c {..}` whose
 * c (or the condition a private bool it reads was assigned, once) has a
 * conjunct pos(w) > T or T < pos(w), pos(w) the iteration's position
 * (w, or element w of indices n or of a zip with it).  The reads of X
 * are those of element w (the pointwise rule above) and elements at
 * rows r with r <= T shown by phrase_at_most: X.2[r], and element r of
 * column c, idx (transpose X.2) c, read at r (a forRange's variable,
 * below its bound).  parforLocal (transposeAcc X.1) is the same with
 * X's rows and columns swapped: iteration c owns column c of X, its
 * "rows" those of transpose X.2 (lud_diagonal's second phase).  Within
 * an iteration, the element's own reads come before its write, the
 * translation's obligation as for the pointwise rule
 * (translate/in_place_step.c, reads_apart_ok). */

static const Phrase *app1_arg(const Phrase *p, Prim prim) {
  return p->kind == PH_APP && p->fst->kind == PH_PRIM && p->fst->prim == prim ? p->snd : NULL;
}

static bool is_int_lit(const Phrase *p) {
  return p->kind == PH_LIT && !p->lit_is_float && !p->lit_is_size && !p->lit_nelems;
}

bool phrase_at_most(const Phrase *e, const Phrase *t, int64_t off, const LoopBound *bounds, int nbounds) {
  if (off >= 0 && phrase_alpha_equal(e, t)) return true;
  if (is_int_lit(e)) return e->lit_int <= off; /* t >= 0 */
  const Phrase *x;
  if ((x = app1_arg(e, PRIM_TO_INT))) return phrase_at_most(x, t, off, bounds, nbounds);
  /* clampIdx n x is x, or 0 below 0, or n - 1 above it: at most x or 0 */
  if ((x = app1_arg(e, PRIM_CLAMP_IDX))) return off >= 0 && phrase_at_most(x, t, off, bounds, nbounds);
  /* element x of indices n is x */
  if (is_prim_app2(e, PRIM_IDX) && e->fst->snd->kind == PH_PRIM && e->fst->snd->prim == PRIM_INDICES)
    return phrase_at_most(e->snd, t, off, bounds, nbounds);
  if (e->kind == PH_BINOP && (e->op == BIN_ADD || e->op == BIN_SUB)) {
    int64_t c, o2;
    const Phrase *rest;
    if (is_int_lit(e->snd)) {
      c = e->snd->lit_int, rest = e->fst;
    } else if (e->op == BIN_ADD && is_int_lit(e->fst)) {
      c = e->fst->lit_int, rest = e->snd;
    } else {
      return false;
    }
    if (e->op == BIN_SUB ? __builtin_add_overflow(off, c, &o2) : __builtin_sub_overflow(off, c, &o2)) return false;
    return phrase_at_most(rest, t, o2, bounds, nbounds);
  }
  if (e->kind == PH_VAR)
    for (int b = nbounds - 1; b >= 0; b--)
      if (bounds[b].k == e->binder) {
        int64_t o2;
        return !__builtin_add_overflow(off, 1, &o2) && phrase_at_most(bounds[b].hi, t, o2, bounds, b);
      }
  return false;
}

enum { APART_MAX = 16 };

typedef struct Apart {
  const Binder *x, *w, *o;
  /* the parfor writes transposeAcc X.1: its rows are X's columns (the
   * second phase of lud_diagonal, work-item c updating column c) */
  bool tr;
  const Phrase *lam; /* the parfor's \w o -> P */
  const Phrase *t;   /* the threshold T, from the first changing write */
  /* private bools assigned once in P, and their conditions */
  const Binder *flag[APART_MAX];
  const Phrase *flag_cond[APART_MAX];
  int nflags;
  LoopBound bounds[APART_MAX];
  int nbounds;
  const Phrase *guards[APART_MAX]; /* the tests of the chosen sides around */
  int nguards;
  bool ok;
} Apart;

/* e is fst/snd .. (idx Z v) with the projections picking the leaf *leaf
 * of the zip tree Z (or e = idx L v, L no zip) */
static bool element_of(const Phrase *e, const Phrase **leaf, const Phrase **v) {
  Prim projs[64], which;
  int np = 0;
  for (const Phrase *q; np < 64 && (q = proj_arg(e, &which)); e = q) projs[np++] = which;
  if (!is_prim_app2(e, PRIM_IDX)) return false;
  const Phrase *z = e->fst->snd;
  while (np > 0 && is_prim_app2(z, PRIM_ZIP)) z = projs[--np] == PRIM_FST ? z->fst->snd : z->snd;
  if (np > 0) return false;
  *leaf = z, *v = e->snd;
  return true;
}

static bool is_var_of(const Phrase *p, const Binder *b) { return p->kind == PH_VAR && p->binder == b; }

/* the array whose rows the iterations own: X.2, or transpose X.2 */
static bool is_base(const Apart *c, const Phrase *e) {
  const Phrase *t;
  if (c->tr) return (t = app1_arg(e, PRIM_TRANSPOSE)) && is_proj_of_var(t, c->x, 2);
  return is_proj_of_var(e, c->x, 2);
}

/* a column of the base, idx (transpose X.2) B (or idx X.2 B), B not
 * using X */
static bool is_column(const Apart *c, const Phrase *e) {
  if (!is_prim_app2(e, PRIM_IDX) || scir_uses_in(e->snd, c->x)) return false;
  const Phrase *a = e->fst->snd, *t;
  if (c->tr) return is_proj_of_var(a, c->x, 2);
  return (t = app1_arg(a, PRIM_TRANSPOSE)) && is_proj_of_var(t, c->x, 2);
}

/* the leaves of the zip tree z that are the base (-1: another leaf uses X) */
static int base_leaves(const Apart *c, const Phrase *z) {
  if (is_base(c, z)) return 1;
  if (!is_prim_app2(z, PRIM_ZIP)) return scir_uses_in(z, c->x) ? -1 : 0;
  int l = base_leaves(c, z->fst->snd), r = base_leaves(c, z->snd);
  return l < 0 || r < 0 ? -1 : l + r;
}

/* the iteration's position: w, or element w of indices n, or of a zip
 * with it */
static bool is_position(const Apart *c, const Phrase *e) {
  const Phrase *leaf, *v;
  if (is_var_of(e, c->w)) return true;
  return element_of(e, &leaf, &v) && is_var_of(v, c->w) && leaf->kind == PH_PRIM && leaf->prim == PRIM_INDICES;
}

/* T of a conjunct pos(w) > T or T < pos(w) of the test g */
static const Phrase *floor_of(const Apart *c, const Phrase *g, int depth) {
  if (depth > 8) return NULL;
  const Phrase *b;
  if (g->kind == PH_PROJ && g->index == 2 && g->fst->kind == PH_VAR)
    for (int k = 0; k < c->nflags; k++)
      if (c->flag[k] == g->fst->binder) return floor_of(c, c->flag_cond[k], depth + 1);
  if (g->kind != PH_BINOP) return NULL;
  if (g->op == BIN_AND) return (b = floor_of(c, g->fst, depth)) ? b : floor_of(c, g->snd, depth);
  if (g->op == BIN_GT && is_position(c, g->fst)) return g->snd;
  if (g->op == BIN_LT && is_position(c, g->snd)) return g->fst;
  return NULL;
}

/* the binder b is bound inside p */
static bool binds(const Phrase *p, const Binder *b) {
  switch (p->kind) {
  case PH_LAM: return p->lam_binder == b || binds(p->body, b);
  case PH_PROJ:
  case PH_UNOP: return binds(p->fst, b);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return binds(p->fst, b) || binds(p->snd, b);
  default: return false;
  }
}

static bool free_of_loop(const Phrase *t, const Phrase *lam) {
  switch (t->kind) {
  case PH_VAR: return !binds(lam, t->binder);
  case PH_LAM: return false;
  case PH_PROJ:
  case PH_UNOP: return free_of_loop(t->fst, lam);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return free_of_loop(t->fst, lam) && free_of_loop(t->snd, lam);
  default: return true;
  }
}

/* a write through o: of element j of o, the element itself, or under a
 * test that holds only when pos(w) > T */
static void apart_write(Apart *c, const Phrase *lhs, const Phrase *rhs) {
  const Phrase *leaf, *v, *row, *wv;
  if (is_prim_app2(lhs, PRIM_IDX_ACC) && is_var_of(lhs->fst->snd, c->o) && lhs->snd->kind == PH_VAR &&
      element_of(rhs, &leaf, &v) && is_var_of(v, lhs->snd->binder) && element_of(leaf, &row, &wv) &&
      is_var_of(wv, c->w) && is_base(c, row))
    return; /* X.2[w][j] into itself */
  for (int g = 0; g < c->nguards; g++) {
    const Phrase *t = floor_of(c, c->guards[g], 0);
    /* T the same in every iteration: nothing the body binds, and not X,
     * which the iterations write (the body writes nothing else free in it) */
    if (!t || !free_of_loop(t, c->lam) || scir_uses_in(t, c->x) || t->type->kind != PT_EXP ||
        dt_resolve(t->type->data)->kind != DT_IDX)
      continue;
    if (!c->t) c->t = t;
    if (phrase_alpha_equal(t, c->t)) return;
  }
  c->ok = false;
}

static void apart_writes(Apart *c, const Phrase *p) {
  if (!c->ok) return;
  if (is_prim_app2(p, PRIM_IF) && p->snd->kind == PH_PAIR) {
    if (c->nguards == APART_MAX) {
      c->ok = false;
      return;
    }
    apart_writes(c, p->fst->snd);
    c->guards[c->nguards++] = p->fst->snd;
    apart_writes(c, p->snd->fst);
    c->nguards--;
    apart_writes(c, p->snd->snd);
    return;
  }
  switch (p->kind) {
  case PH_VAR:
    if (p->binder == c->o) c->ok = false; /* o passed on otherwise */
    return;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return;
  case PH_LAM: apart_writes(c, p->body); return;
  case PH_PROJ:
  case PH_UNOP: apart_writes(c, p->fst); return;
  case PH_ASSIGN:
    if (scir_uses_in(p->fst, c->o)) {
      apart_write(c, p->fst, p->snd);
      apart_writes(c, p->snd);
      return;
    }
    break;
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_BINOP: break;
  case PH_COUNT: return;
  }
  apart_writes(c, p->fst);
  apart_writes(c, p->snd);
}

/* the private bools assigned once in p (flag.1 := cond) */
static void apart_flags(Apart *c, const Phrase *p, int *assigned) {
  switch (p->kind) {
  case PH_ASSIGN:
    if (p->fst->kind == PH_PROJ && p->fst->index == 1 && p->fst->fst->kind == PH_VAR) {
      const Binder *b = p->fst->fst->binder;
      int k = 0;
      while (k < c->nflags && c->flag[k] != b) k++;
      if (k < c->nflags) {
        assigned[k]++;
      } else if (c->nflags < APART_MAX && dt_resolve(p->snd->type->data)->kind == DT_SCALAR) {
        c->flag[k] = b, c->flag_cond[k] = p->snd, assigned[k] = 1;
        c->nflags++;
      }
    }
    apart_flags(c, p->snd, assigned);
    return;
  case PH_LAM: apart_flags(c, p->body, assigned); return;
  case PH_PROJ:
  case PH_UNOP: apart_flags(c, p->fst, assigned); return;
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_BINOP:
    apart_flags(c, p->fst, assigned);
    apart_flags(c, p->snd, assigned);
    return;
  default: return;
  }
}

/* the uses of X in p that read element w or a row at most T */
static int apart_reads(Apart *c, const Phrase *p) {
  if (is_prim_app2(p, PRIM_IDX)) {
    const Phrase *z = p->fst->snd, *v = p->snd;
    if (is_var_of(v, c->w)) {
      int n = base_leaves(c, z);
      if (n > 0) return n;
    }
    /* the leaves of a zip read at v: a column of X.2 read at row v */
    const Phrase *stack[64];
    int top = 0, n = apart_reads(c, v);
    bool below = phrase_at_most(v, c->t, 0, c->bounds, c->nbounds);
    stack[top++] = z;
    while (top > 0) {
      const Phrase *l = stack[--top];
      if (is_prim_app2(l, PRIM_ZIP) && top + 2 <= 64) {
        stack[top++] = l->fst->snd;
        stack[top++] = l->snd;
      } else if (is_base(c, l)) {
        n += below ? 1 : 0; /* row v */
      } else if (is_column(c, l)) {
        n += below ? 1 : 0; /* row v's element of a column */
      } else {
        n += apart_reads(c, l);
      }
    }
    return n;
  }
  /* forRange n s lo hi (\k -> body): k below hi */
  if (p->kind == PH_APP && p->fst->kind == PH_APP && p->fst->fst->kind == PH_APP &&
      p->fst->fst->fst->kind == PH_PRIM && p->fst->fst->fst->prim == PRIM_FOR_RANGE && p->snd->kind == PH_LAM &&
      c->nbounds < APART_MAX) {
    int n = apart_reads(c, p->fst->fst->snd) + apart_reads(c, p->fst->snd);
    c->bounds[c->nbounds++] = (LoopBound){p->snd->lam_binder, p->fst->snd};
    n += apart_reads(c, p->snd->body);
    c->nbounds--;
    return n;
  }
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return 0;
  case PH_LAM: return apart_reads(c, p->body);
  case PH_PROJ:
  case PH_UNOP: return apart_reads(c, p->fst);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return apart_reads(c, p->fst) + apart_reads(c, p->snd);
  case PH_COUNT: break;
  }
  INTERNAL("phrase kind %d", (int)p->kind);
}

static bool reads_apart(const Binder *x, bool tr, const Phrase *lam) {
  const Phrase *p = lam->body->body;
  if (phrase_has_prim(p, is_parfor_prim)) return false;
  Apart c = {.x = x, .tr = tr, .w = lam->lam_binder, .o = lam->body->lam_binder, .lam = lam, .ok = true};
  int assigned[APART_MAX] = {0};
  apart_flags(&c, p, assigned);
  for (int k = 0; k < c.nflags; k++)
    if (assigned[k] != 1) c.flag_cond[k] = NULL;
  /* a flag assigned more than once says nothing */
  int kept = 0;
  for (int k = 0; k < c.nflags; k++)
    if (c.flag_cond[k]) c.flag[kept] = c.flag[k], c.flag_cond[kept++] = c.flag_cond[k];
  c.nflags = kept;
  apart_writes(&c, p);
  if (!c.ok || !c.t) return false;
  return apart_reads(&c, p) == scir_uses_in(p, x);
}

/* The uses of x in p: count_in(p, x, NULL, false) and phrase_uses(p, x),
 * walked on its own.  Code generation asks it of every parfor it lowers
 * (scir_pointwise_parfor's first question), and most bodies (a toLocal's
 * writes) answer 0 after a walk of all of them (translation throughput,
 * BENCHMARKS.md): an application's head and a sequence's rest are the
 * loop's next step, the other operand the only recursion, and an argument
 * that is a variable is counted without a call
 * (tests/unit/test_pointwise.c compares it with phrase_uses at every
 * parfor of the samples' and test kernels' translations). */
int scir_uses_in(const Phrase *p, const Binder *x) {
  int n = 0;
  for (;;) {
    switch (p->kind) {
    case PH_VAR: return n + (p->binder == x);
    case PH_LIT:
    case PH_PRIM:
    case PH_DEF: return n;
    case PH_LAM: p = p->body; continue;
    case PH_PROJ:
    case PH_UNOP: p = p->fst; continue;
    case PH_SEQ:
      n += scir_uses_in(p->fst, x);
      p = p->snd;
      continue;
    case PH_APP:
    case PH_PAIR:
    case PH_ASSIGN:
    case PH_BINOP:
      if (p->snd->kind == PH_VAR) n += p->snd->binder == x;
      else n += scir_uses_in(p->snd, x);
      p = p->fst;
      continue;
    case PH_COUNT: break;
    }
    INTERNAL("phrase kind %d", (int)p->kind);
  }
}

const Binder *scir_pointwise_parfor(const Phrase *p) {
  if (p->kind != PH_APP) return NULL;
  const Phrase *fn = p->fst, *body = p->snd;
  if (fn->kind != PH_APP || fn->fst->kind != PH_PRIM || !is_parfor_prim(fn->fst->prim)) return NULL;
  if (body->kind != PH_LAM || body->body->kind != PH_LAM) return NULL;
  /* parforLocal (transposeAcc X.1): reads apart only */
  const Phrase *tacc = app1_arg(fn->snd, PRIM_TRANSPOSE_ACC);
  if (fn->fst->prim == PRIM_PARFOR_LOCAL && tacc && tacc->kind == PH_PROJ && tacc->index == 1 &&
      tacc->fst->kind == PH_VAR)
    return reads_apart(tacc->fst->binder, true, body) ? tacc->fst->binder : NULL;
  if (fn->snd->kind != PH_PROJ || fn->snd->index != 1 || fn->snd->fst->kind != PH_VAR) return NULL;
  if (body->kind != PH_LAM || body->body->kind != PH_LAM) return NULL;
  const Binder *x = fn->snd->fst->binder, *i = body->lam_binder;
  int all = scir_uses_in(body, x);
  if (!all) return NULL;
  if (count_in(body, x, i, true) == all && !phrase_has_prim(body->body->body, is_parfor_prim)) return x;
  if (nested_pointwise(x, body)) return x;
  return fn->fst->prim == PRIM_PARFOR_LOCAL && reads_apart(x, false, body) ? x : NULL;
}

/* scatter p, scatterAcc A p (docs/language.md section 29): the acceptor
 * view is a bijection, as Promote and the parfor rule take every acceptor
 * view to be, only when p's elements are distinct: p must be an input the
 * kernel declares a permutation (check.c, permutation_params).  Anything
 * else (a computed array, a def's parameter, an input not declared) may
 * send two iterations to one element. */
static void scatter_positions(Scir *s, const Phrase *p) {
  const Phrase *head = p->fst->kind == PH_APP ? p->fst->fst : p->fst;
  if (head->kind != PH_PRIM) return;
  bool first = head == p->fst; /* scatter's positions come first, scatterAcc's second */
  if (!(first ? head->prim == PRIM_SCATTER : head->prim == PRIM_SCATTER_ACC)) return;
  const Phrase *pos = p->snd;
  if (pos->kind == PH_VAR && pos->binder->permutation) return;
  s->ok = false;
  if (pos->kind == PH_VAR)
    diag_error(s->diag, ERR_SCATTER_NOT_DISJOINT, pos->span,
               "%s through '%s', which is not declared a permutation: two of its elements could be equal and "
               "two iterations write one element; declare it after the kernel's parameters, 'permutation %s'",
               prim_info[head->prim].name, pos->binder->name, pos->binder->name);
  else
    diag_error(s->diag, ERR_SCATTER_NOT_DISJOINT, pos->span,
               "the positions of %s are computed here, and nothing shows them distinct: they must be an input "
               "of the kernel declared 'permutation'",
               prim_info[head->prim].name);
}

/* mirrorAcc A (docs/language.md section 29.1): not a bijection but an
 * injection of A's upper triangle into disjoint pairs of elements, (i, j)
 * and (j, i) for j >= i, so Promote's and App's arguments hold for it as
 * for every acceptor view (distinct elements of the view, disjoint
 * elements of A), but the work-item of (i, j) writes (j, i), outside its
 * own part: sound only where nothing reads A back in the kernel, the
 * def's acceptor parameter (the output), not a temporary a later stage
 * reads.  A is A's root through acceptor views and projections. */
static bool is_new_prim(const Phrase *h) { return h->kind == PH_PRIM && prim_family(h->prim) == PFAM_NEW; }

static void mirror_root(Scir *s, const Phrase *p) {
  if (p->fst->kind != PH_PRIM || p->fst->prim != PRIM_MIRROR_ACC) return;
  const Phrase *a = p->snd;
  for (;;) {
    if (a->kind == PH_PROJ) {
      a = a->fst;
    } else if (a->kind == PH_APP) {
      const Phrase *h = a;
      while (h->kind == PH_APP) h = h->fst;
      if (h->kind != PH_PRIM || prim_family(h->prim) != PFAM_VIEW_ACC) return;
      while (a->fst->kind == PH_APP) a = a->fst; /* the acceptor comes first */
      a = a->snd;
    } else {
      break;
    }
  }
  if (a->kind != PH_VAR) return;
  for (int k = 0; k < s->temporaries.len; k++)
    if (s->temporaries.items[k] == a->binder) {
      s->ok = false;
      diag_error(s->diag, ERR_MIRROR_NOT_OUTPUT, p->span,
                 "mirrorAcc writes into the temporary '%s': the work-item of element (i, j) writes (j, i), an "
                 "element of another's part, which a later read of '%s' would find written by another work-item; "
                 "a mirror writes the output only",
                 a->binder->name, a->binder->name);
      return;
    }
}

/* pairAcc A1 A2 (prims.h): the acceptor of the regions of a kernel
 * updating several regions of one buffer (docs/language.md section 27).
 * Its two sides write one variable, which App forbids, unless they are
 * regions of it that do not meet: each a chain of sliceAcc and
 * transposeAcc over that variable (or a pairAcc of such), seen through
 * joinAcc, splitAcc and transposeAcc (which write the elements of the
 * region, each once, in another shape), and each region
 * of one side ending before each of the other's begins, or after it ends,
 * on some dimension both slice, for all sizes (as the checker showed,
 * check_clauses.c).  Then no element is written through both, and each
 * side's views are bijections onto its region: App's argument holds. */
enum { REGION_MAX_DIMS = 4, REGION_MAX = 8 };

typedef struct RegionBox {
  const Binder *root;
  bool cut[REGION_MAX_DIMS];
  Size lo[REGION_MAX_DIMS], len[REGION_MAX_DIMS];
} RegionBox;

/* the regions a writes (appended to boxes from *n), false when it is no
 * chain of region views */
static bool region_boxes(SizeCtx *sc, const Phrase *a, RegionBox *boxes, int *n) {
  const Phrase *ops[16];
  int nops = 0;
  while (a->kind == PH_APP) {
    const Phrase *h = a->fst;
    if (h->kind == PH_APP && h->fst->kind == PH_PRIM && h->fst->prim == PRIM_PAIR_ACC)
      return region_boxes(sc, h->snd, boxes, n) && region_boxes(sc, a->snd, boxes, n);
    bool view = h->kind == PH_PRIM && (h->prim == PRIM_SLICE_ACC || h->prim == PRIM_TRANSPOSE_ACC ||
                                       h->prim == PRIM_JOIN_ACC || h->prim == PRIM_SPLIT_ACC);
    if (!view || nops == 16) return false;
    ops[nops++] = h;
    a = a->snd;
  }
  if (a->kind != PH_VAR || *n == REGION_MAX) return false;
  RegionBox *b = &boxes[(*n)++];
  *b = (RegionBox){.root = a->binder};
  int perm[REGION_MAX_DIMS] = {0, 1, 2, 3};
  bool reshaped = false; /* after a joinAcc or splitAcc: the region's shape is no longer the variable's */
  for (int i = nops - 1; i >= 0; i--) {
    if (ops[i]->prim == PRIM_JOIN_ACC || ops[i]->prim == PRIM_SPLIT_ACC) {
      reshaped = true;
      continue;
    }
    if (reshaped) {
      if (ops[i]->prim != PRIM_TRANSPOSE_ACC) return false; /* a slice of the reshaped region: not tracked */
      continue;
    }
    if (ops[i]->prim == PRIM_TRANSPOSE_ACC) {
      int t = perm[0];
      perm[0] = perm[1];
      perm[1] = t;
      continue;
    }
    int d = perm[0];
    b->lo[d] = b->cut[d] ? size_add(sc, b->lo[d], ops[i]->sizes[0]) : ops[i]->sizes[0];
    b->len[d] = ops[i]->sizes[1];
    b->cut[d] = true;
  }
  return true;
}

static bool boxes_apart(SizeCtx *sc, const RegionBox *a, const RegionBox *b) {
  if (a->root != b->root) return true;
  for (int d = 0; d < REGION_MAX_DIMS; d++)
    if (a->cut[d] && b->cut[d] &&
        (size_provably_at_least(sc, b->lo[d], size_add(sc, a->lo[d], a->len[d])) ||
         size_provably_at_least(sc, a->lo[d], size_add(sc, b->lo[d], b->len[d]))))
      return true;
  return false;
}

static bool regions_apart(Scir *s, const Phrase *p) {
  if (p->fst->kind != PH_APP || p->fst->fst->kind != PH_PRIM || p->fst->fst->prim != PRIM_PAIR_ACC) return false;
  TypeCtx tc;
  type_ctx_init(&tc, s->arena);
  RegionBox boxes[REGION_MAX];
  int n1 = 0, n = 0;
  if (!region_boxes(&tc.sizes, p->fst->snd, boxes, &n1)) return false;
  n = n1;
  if (!region_boxes(&tc.sizes, p->snd, boxes, &n)) return false;
  for (int i = 0; i < n1; i++)
    for (int j = n1; j < n; j++)
      if (!boxes_apart(&tc.sizes, &boxes[i], &boxes[j])) return false;
  return true;
}

static void usage_app(Scir *s, const Phrase *p, Uses *out) {
  Uses fu = {0}, au = {0};
  scatter_positions(s, p);
  mirror_root(s, p);
  if (p->fst->kind == PH_PRIM && p->fst->prim == PRIM_NEW_LOCAL && p->snd->kind == PH_LAM)
    vec_push(s->arena, &s->local_memory, p->snd->lam_binder);
  if (p->snd->kind == PH_LAM) {
    const Phrase *h = p->fst;
    while (h->kind == PH_APP) h = h->fst;
    if (is_new_prim(h)) vec_push(s->arena, &s->temporaries, p->snd->lam_binder);
  }
  Context inner = {p->fst, head_span(p->fst), head_prim(p->fst)};
  usage(s, p->fst, inner, &fu);
  usage(s, p->snd, inner, &au);

  const PhraseType *want = p->fst->type->fst, *have = p->snd->type;
  if (p->snd->kind != PH_LAM) {
    if (!arrows_fit(have, want, true)) {
      s->ok = false;
      TypeNamer tn;
      tn_init(&tn, s->arena, NULL, 0);
      diag_error(s->diag, ERR_PASSIVE_REQUIRED, p->snd->span,
                 "a passive function is required here (%s), but this has type %s", tn_phrase(&tn, want),
                 tn_phrase(&tn, have));
    } else if (want->kind == PT_FN_P && have->kind == PT_FN) {
      require_passive(s, &au, inner, "argument", NULL);
      uses_passify(&au);
    }
  }

  /* App: disjoint active identifiers (but see the pointwise reads above) */
  const Binder *pointwise = scir_pointwise_parfor(p);
  bool apart = regions_apart(s, p);
  for (int i = 0; i < fu.n; i++) {
    const Use *x = &fu.items[i];
    const Use *y = uses_find(&au, x->binder);
    if (!y || (!x->active && !y->active) || (x->binder == pointwise && !y->active) || apart) continue;
    s->ok = false;
    const Use *act = y->active ? y : x, *other = y->active ? x : y;
    diag_error(s->diag, ERR_INTERFERENCE, act->span,
               "'%s' is used actively here and also %son the other side of this application; a function and "
               "its argument must not interfere (SCIR App, paper Figure 3)",
               x->binder->name, other->active ? "actively " : "");
    diag_note(s->diag, other->span, "the other use of '%s' is here", x->binder->name);
  }
  *out = fu;
  uses_merge(s, out, &au);
  if (pt_is_passive(p->type)) uses_passify(out);
}

static void usage(Scir *s, const Phrase *p, Context ctx, Uses *out) { usage_in(s, p, ctx, out, NULL); }

/* idxAcc A i: A is used with index i */
static const Binder *acc_index_of(const Phrase *p) {
  if (p->kind != PH_APP || p->fst->kind != PH_APP || p->fst->fst->kind != PH_PRIM) return NULL;
  if (p->fst->fst->prim != PRIM_IDX_ACC || p->snd->kind != PH_VAR) return NULL;
  return p->snd->binder;
}

/* outer_lambda: the binder of the lambda directly around p, when p is a
 * lambda too: the index i of a parfor body \i o -> ... */
static void usage_in(Scir *s, const Phrase *p, Context ctx, Uses *out, const Binder *outer_lambda) {
  *out = (Uses){0};
  if (++s->depth > 100000) INTERNAL("phrase nested beyond the checker's limits");
  switch (p->kind) {
  case PH_VAR: uses_add(s, out, p->binder, !pt_is_passive(p->type), p->span); break;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: break;
  case PH_LAM: {
    usage_in(s, p->body, ctx, out, p->lam_binder);
    uses_remove(out, p->lam_binder);
    if (p->promoted) require_passive(s, out, ctx, "body", is_parfor_prim(ctx.prim) ? outer_lambda : NULL);
    if (pt_is_passive(p->type)) uses_passify(out);
    break;
  }
  case PH_APP: {
    const Binder *index = acc_index_of(p);
    if (index) {
      if (s->nslices == s->cap_slices) {
        int cap = s->cap_slices ? s->cap_slices * 2 : 8;
        const Binder **items = NEWARRAY(s->arena, const Binder *, cap);
        for (int i = 0; i < s->nslices; i++) items[i] = s->slices[i];
        s->slices = items;
        s->cap_slices = cap;
      }
      s->slices[s->nslices++] = index;
    }
    usage_app(s, p, out);
    if (index) s->nslices--;
    break;
  }
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: {
    Uses b;
    usage(s, p->fst, ctx, out);
    usage(s, p->snd, ctx, &b);
    uses_merge(s, out, &b);
    if (pt_is_passive(p->type)) uses_passify(out);
    break;
  }
  case PH_PROJ:
  case PH_UNOP:
    usage(s, p->fst, ctx, out);
    if (pt_is_passive(p->type)) uses_passify(out);
    break;
  case PH_COUNT: INTERNAL("phrase kind");
  }
  s->depth--;
}

/* ---- a body that uses nothing actively ----
 *
 * A context's identifiers become active only at a Var whose type is not
 * passive (spec section 3; paper section 2 and Figure 3: Var puts x in Γ
 * only when x is not passive, Passify moves it to Π otherwise).  Lam,
 * Pair, Passify and the merges keep a passive use passive; so when no
 * Var of the body has an active type, every context the walk above
 * computes holds passive uses only, and its two checks find nothing:
 * App's interference needs an active use on one side, Promote
 * (require_passive) reports active uses only.  The kernels of the
 * functional language are such bodies (all their identifiers are exp:
 * the dot products' strategies, the one-line map).  What else the walk
 * reports does not depend on the contexts, and the look leaves it to the
 * walk: a scatter's positions and a mirrorAcc's root (any such
 * application), and an argument whose arrows do not fit (arrows_fit, as
 * usage_app asks it).  So where the look says yes, the walk would report
 * nothing and accept: the look is the whole check.  It allocates nothing
 * and records nothing (local memory and temporaries are read only for
 * active uses and by mirror_root). */
static bool uses_nothing_actively(const Phrase *p, int depth) {
  if (depth > 100000) return false; /* the walk's limit, and its message */
  switch (p->kind) {
  case PH_VAR: return pt_is_passive(p->type);
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return true;
  case PH_LAM: return uses_nothing_actively(p->body, depth + 1);
  case PH_APP: {
    const Phrase *h = p->fst->kind == PH_APP ? p->fst->fst : p->fst;
    if (h->kind == PH_PRIM && (h->prim == PRIM_SCATTER || h->prim == PRIM_SCATTER_ACC)) return false;
    if (p->fst->kind == PH_PRIM && p->fst->prim == PRIM_MIRROR_ACC) return false;
    if (p->snd->kind != PH_LAM && !arrows_fit(p->snd->type, p->fst->type->fst, true)) return false;
    return uses_nothing_actively(p->fst, depth + 1) && uses_nothing_actively(p->snd, depth + 1);
  }
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return uses_nothing_actively(p->fst, depth + 1) && uses_nothing_actively(p->snd, depth + 1);
  case PH_PROJ:
  case PH_UNOP: return uses_nothing_actively(p->fst, depth + 1);
  case PH_COUNT: break;
  }
  INTERNAL("phrase kind %d", (int)p->kind);
}

bool scir_body_uses_nothing_actively(const Phrase *body) { return uses_nothing_actively(body, 1); }

bool scir_check_def_walked(Arena *a, Diag *diag, DefInfo *def) {
  Scir s = {a, diag, true, 0, NULL, 0, 0, {0}, {0}};
  Uses u;
  usage(&s, def->body, (Context){NULL, def->body->span, PRIM_COUNT}, &u);
  return s.ok;
}

bool scir_check_def(Arena *a, Diag *diag, DefInfo *def) {
  if (uses_nothing_actively(def->body, 1)) return true;
  return scir_check_def_walked(a, diag, def);
}
