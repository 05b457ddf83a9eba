/* hoist.c: allocation hoisting (paper section 6.4, spec section 7).
 *
 * OpenCL kernels cannot allocate global memory, and local memory is
 * declared at kernel scope.  So every newGlobal becomes a kernel parameter
 * and every newLocal moves to the top of the kernel.  An allocation made
 * inside a parallel loop exists once per iteration, so moving it out of
 * `parforX n` with loop variable i widens its type to [n]d and turns each
 * use v into the slice for that iteration: {idxAcc v.1 i, idx v.2 i}.
 * Local memory belongs to one work-group, so it is widened across
 * parforLocal only, never across parforWorkgroup; global memory is widened
 * across every parallel loop.  A sequential loop reuses the same storage in
 * each iteration, so it does not widen anything.  newPrivate stays where it
 * is. */
#include "translate.h"

#include "build.h"

/* What a primitive is to hoisting (the rules above).  role_of says it
 * for every primitive in one exhaustive switch. */
typedef enum Role {
  ROLE_NONE,         /* neither an allocation that moves nor a loop */
  ROLE_NEW_GLOBAL,   /* newGlobal: becomes a kernel parameter */
  ROLE_NEW_LOCAL,    /* newLocal: moves to kernel scope */
  ROLE_PARFOR,       /* parfor, parforGlobal, parforWorkgroup: widen global memory */
  ROLE_PARFOR_LOCAL, /* parforLocal: widens global and local memory */
  ROLE_FOR           /* for: widens nothing */
} Role;

static Role role_of(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p) {
  case PRIM_NEW_GLOBAL: return ROLE_NEW_GLOBAL;
  case PRIM_NEW_LOCAL: return ROLE_NEW_LOCAL;
  case PRIM_PARFOR:
  case PRIM_PARFOR_GLOBAL:
  case PRIM_PARFOR_WORKGROUP: return ROLE_PARFOR;
  case PRIM_PARFOR_LOCAL: return ROLE_PARFOR_LOCAL;
  PRIM_CASES_FOR: return ROLE_FOR;
  /* its variable is an index of n elements, distinct in each step */
  PRIM_CASES_FOR_RANGE: return ROLE_FOR;
  PRIM_CASES_IF: /* a choice: allocates nothing, widens nothing */
  case PRIM_NEW:         /* new with no address space: kept, as newPrivate */
  case PRIM_NEW_PRIVATE: /* stays where it is */
  PRIM_CASES_SKIP:
  PRIM_CASES_VIEW:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_SCALAR:
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
  PRIM_CASES_FOREIGN:
  /* the functional and intermediate primitives are gone after stage II */
  PRIM_CASES_MAP:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  PRIM_CASES_MEMORY:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return ROLE_NONE;
  }
  DPIA_EXHAUSTIVE_END
  return ROLE_NONE;
}

typedef struct Loop {
  Role role;
  Size n;
  Binder *index;
} Loop;

/* A hoisted allocation: the variable v of newM d (\v -> body) is now nv,
 * widened by the parallel loops around the allocation (their indices, from
 * the outermost). */
typedef struct Hoisted {
  const Binder *v;
  Binder *nv;
  int nindices;
  Binder **indices;
} Hoisted;

typedef struct Hoist {
  Builder b;
  Loop *loops;
  int nloops, cap;
  Vec globals; /* Binder* of the new kernel parameters */
  Vec locals;  /* Binder* of kernel-scope local memory */
  /* hoisted variables by binder id, open addressing: each use is replaced
   * as the walk reaches it, so hoisting is one pass over the program (a
   * substitution into the rest of the program per allocation made it
   * quadratic in the number of stages) */
  Hoisted **table;
  int table_cap, table_len;
  /* a use of a hoisted variable as a whole was replaced by a phrase pair
   * (hoisted_use): the one thing hoisting makes that normalisation could
   * take apart (translate_hoist) */
  bool made_pair;
  bool inside_value; /* hoist is inside a value it found a use in */
  bool walk_values;  /* no value skipped, no binder kept (translate_hoist_walked) */
} Hoist;

static Hoisted **slot(Hoist *h, const Binder *v) {
  unsigned i = (unsigned)v->id * 2654435761u & (unsigned)(h->table_cap - 1);
  while (h->table[i] && h->table[i]->v != v) i = (i + 1) & (unsigned)(h->table_cap - 1);
  return &h->table[i];
}

static void remember(Hoist *h, Hoisted *e) {
  if (2 * (h->table_len + 1) > h->table_cap) {
    Hoisted **old = h->table;
    int old_cap = h->table_cap;
    h->table_cap = old_cap ? old_cap * 2 : 64;
    h->table = NEWARRAY(h->b.arena, Hoisted *, h->table_cap);
    for (int k = 0; k < old_cap; k++)
      if (old[k]) *slot(h, old[k]->v) = old[k];
  }
  *slot(h, e->v) = e;
  h->table_len++;
}

static const Hoisted *hoisted(Hoist *h, const Binder *v) { return h->table_cap ? *slot(h, v) : NULL; }

/* the use v.index (1: acceptor, 2: expression; 0: v itself) of a hoisted
 * variable: nv's slice for the iteration, {idxAcc nv.1 i, idx nv.2 i} */
static Phrase *hoisted_use(Hoist *h, const Hoisted *e, int index) {
  Builder *b = &h->b;
  Phrase *acc = index != 2 ? b_proj(b, b_var(b, e->nv), 1) : NULL;
  Phrase *exp = index != 1 ? b_proj(b, b_var(b, e->nv), 2) : NULL;
  for (int k = 0; k < e->nindices; k++) {
    if (acc) acc = b_idx_acc(b, acc, b_var(b, e->indices[k]));
    if (exp) exp = b_idx(b, exp, b_var(b, e->indices[k]));
  }
  return index == 1 ? acc : index == 2 ? exp : b_pair(b, acc, exp);
}

static Phrase *hoist(Hoist *h, Phrase *p);

/* Does a buffer allocated in memory inside a parallel loop need one
 * element per iteration of that loop?  Local memory is shared by a work
 * group, so it is widened by the loops over its work-items only; global
 * memory by every parallel loop (spec section 6, allocation hoisting). */
static bool widens(Role memory, Role loop) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (loop) {
  case ROLE_PARFOR_LOCAL: return true;
  case ROLE_PARFOR: return memory != ROLE_NEW_LOCAL;
  case ROLE_FOR:
  case ROLE_NONE:
  case ROLE_NEW_GLOBAL:
  case ROLE_NEW_LOCAL: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* v is a kernel parameter or kernel-scope buffer already */
static bool moved_already(const Hoist *h, const Binder *v) {
  for (int k = 0; k < h->locals.len; k++)
    if (h->locals.items[k] == v) return true;
  for (int k = 0; k < h->globals.len; k++)
    if (h->globals.items[k] == v) return true;
  return false;
}

/* the loop binders an allocation is moved out of (Binder.hoisted_from) */
static void note_loops(Hoist *h, Binder *nv) {
  nv->hoisted_from = NEWARRAY(h->b.arena, const Binder *, h->nloops);
  for (int k = 0; k < h->nloops; k++) nv->hoisted_from[k] = h->loops[k].index;
  nv->nhoisted_from = h->nloops;
}

/* memory: ROLE_NEW_GLOBAL or ROLE_NEW_LOCAL */
static Phrase *hoist_allocation(Hoist *h, Role memory, DataType *t, Phrase *lam) {
  Builder *b = &h->b;
  TypeCtx *tc = b->tc;
  DataType *wide = t;
  for (int k = h->nloops - 1; k >= 0; k--)
    if (widens(memory, h->loops[k].role)) wide = dt_array(tc, h->loops[k].n, wide);
  /* Widened by no loop (local memory in a work-group's body, memory at
   * the top of the kernel): the variable is the allocation's own, of its
   * type, each use v.1 and v.2 as it is, so the allocation keeps its
   * binder, which the kernel's scope now binds, and its uses are not
   * looked for (a new binder's hoisted_use would be the same projection
   * of a variable of the same name and type; the stages before make no
   * use of a new's variable but its projections, so no pair is made
   * either).  With the binder it keeps what the stages before gave it
   * (owned_by, volatile_local).  Not where the program was walked
   * whole (translate_hoist_walked renames, as the paper's hoisting: test
   * hoist compares the two) or the binder was moved already (a command
   * met twice) */
  if (wide == t && !h->walk_values && !moved_already(h, lam->lam_binder)) {
    Binder *v = lam->lam_binder;
    if (memory == ROLE_NEW_LOCAL && h->nloops) note_loops(h, v);
    vec_push(b->arena, memory == ROLE_NEW_LOCAL ? &h->locals : &h->globals, v);
    return hoist(h, lam->body);
  }
  Hoisted *e = NEW(b->arena, Hoisted);
  e->v = lam->lam_binder;
  e->nv = b_binder(b, e->v->name, pt_var(tc, wide));
  e->nv->span = e->v->span;
  e->nv->volatile_local = e->v->volatile_local; /* widened or not, the buffer toLocalVolatile asked for */
  /* the element a work-item owns is the same in a buffer not widened */
  if (wide == t) {
    e->nv->owned_by = e->v->owned_by;
    e->nv->nowned_by = e->v->nowned_by;
  }
  e->indices = NEWARRAY(b->arena, Binder *, h->nloops ? h->nloops : 1);
  for (int k = 0; k < h->nloops; k++)
    if (widens(memory, h->loops[k].role)) e->indices[e->nindices++] = h->loops[k].index;
  if (memory == ROLE_NEW_LOCAL && h->nloops) note_loops(h, e->nv);
  vec_push(b->arena, memory == ROLE_NEW_LOCAL ? &h->locals : &h->globals, e->nv);
  remember(h, e);
  return hoist(h, lam->body);
}

/* a variable of a hoisted allocation in p */
static bool uses_hoisted(Hoist *h, const Phrase *p) {
  for (;;) {
    switch (p->kind) {
    case PH_VAR: return hoisted(h, p->binder) != NULL;
    case PH_LIT:
    case PH_PRIM:
    case PH_DEF:
    case PH_COUNT: return false;
    case PH_LAM: p = p->body; continue;
    case PH_PROJ:
    case PH_UNOP: p = p->fst; continue;
    case PH_APP:
    case PH_PAIR:
    case PH_SEQ:
    case PH_ASSIGN:
    case PH_BINOP:
      if (uses_hoisted(h, p->fst)) return true;
      p = p->snd;
      continue;
    }
    return true;
  }
}

static Phrase *hoist_node(Hoist *h, Phrase *p);

/* phrase_map_children(p, hoist): p with its children hoisted, p itself
 * where none changes, else a copy unmarked; here, where hoist calls
 * itself without phrase_map_children's call of a function pointer a
 * child (issue 35) */
static Phrase *hoist_children(Hoist *h, Phrase *p) {
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF:
  case PH_COUNT: return p;
  case PH_LAM: {
    Phrase *body = hoist(h, p->body);
    if (body == p->body) return p;
    Phrase *q = arena_dup(h->b.arena, p, sizeof *p);
    q->normal_run = 0;
    q->body = body;
    return q;
  }
  case PH_APP:
  case PH_PAIR:
  case PH_PROJ:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP:
  case PH_UNOP: break;
  }
  Phrase *fst = hoist(h, p->fst);
  Phrase *snd = p->kind != PH_PROJ && p->kind != PH_UNOP ? hoist(h, p->snd) : p->snd;
  if (fst == p->fst && snd == p->snd) return p;
  Phrase *q = arena_dup(h->b.arena, p, sizeof *p);
  q->normal_run = 0;
  q->fst = fst;
  q->snd = snd;
  return q;
}

static Phrase *hoist(Hoist *h, Phrase *p) {
  /* A value holds no allocation (a command: phrase_is_value), so all
   * hoisting changes in it is the uses of hoisted variables: one without
   * any is given back as it is, as the walk would give it (stage II
   * shares a value at each of its uses, which the walk took as a tree;
   * issue 35).  Looked at from the value's top only (inside_value), so
   * that a value with a use is looked through once. */
  if (!h->inside_value && !h->walk_values && phrase_is_value(p)) {
    if (!h->table_len || !uses_hoisted(h, p)) return p;
    h->inside_value = true;
    Phrase *r = hoist_node(h, p);
    h->inside_value = false;
    return r;
  }
  return hoist_node(h, p);
}

static Phrase *hoist_node(Hoist *h, Phrase *p) {
  if (p->kind == PH_VAR || (p->kind == PH_PROJ && p->fst->kind == PH_VAR)) {
    const Binder *v = p->kind == PH_VAR ? p->binder : p->fst->binder;
    const Hoisted *e = hoisted(h, v);
    if (!e) return p;
    Span saved = h->b.span;
    h->b.span = p->span;
    if (p->kind == PH_VAR) h->made_pair = true;
    Phrase *r = hoisted_use(h, e, p->kind == PH_VAR ? 0 : p->index);
    h->b.span = saved;
    return r;
  }
  if (p->kind == PH_APP) {
    Phrase *fn = p->fst;
    Role allocation = fn->kind == PH_PRIM ? role_of(fn->prim) : ROLE_NONE;
    if ((allocation == ROLE_NEW_GLOBAL || allocation == ROLE_NEW_LOCAL) && p->snd->kind == PH_LAM) {
      Span saved = h->b.span;
      h->b.span = p->span;
      Phrase *r = hoist_allocation(h, allocation, fn->type_arg, p->snd);
      h->b.span = saved;
      return r;
    }
    /* parforX A (\i o -> body): the body runs once per i */
    Role loop = fn->kind == PH_APP && fn->fst->kind == PH_PRIM ? role_of(fn->fst->prim) : ROLE_NONE;
    bool parfor = loop == ROLE_PARFOR || loop == ROLE_PARFOR_LOCAL;
    /* for n (\i -> body): it widens nothing, but a buffer hoisted out of
     * it is noted as made afresh in each iteration */
    bool seq = fn->kind == PH_PRIM && role_of(fn->prim) == ROLE_FOR;
    /* and forRange n s lo hi (\i -> body), whose i is an index of n too */
    const Phrase *range = fn->kind == PH_APP && fn->fst->kind == PH_APP && fn->fst->fst->kind == PH_PRIM &&
                                  prim_family(fn->fst->fst->prim) == PFAM_FOR_RANGE
                              ? fn->fst->fst
                              : NULL;
    if ((parfor || seq || range) && p->snd->kind == PH_LAM) {
      /* parforX A and forRange n s lo hi: A, lo and hi are outside the
       * loop, and read hoisted variables as any phrase there does (a
       * bound read through a view of a hoisted accumulator) */
      Phrase *head = parfor || range ? hoist(h, fn) : fn;
      if (h->nloops == h->cap) {
        int cap = h->cap ? h->cap * 2 : 8;
        Loop *loops = NEWARRAY(h->b.arena, Loop, cap);
        for (int k = 0; k < h->nloops; k++) loops[k] = h->loops[k];
        h->loops = loops;
        h->cap = cap;
      }
      Size n = parfor ? b_data(fn->snd)->size : range ? range->sizes[0] : fn->sizes[0];
      h->loops[h->nloops++] = (Loop){parfor ? loop : ROLE_FOR, n, p->snd->lam_binder};
      Phrase *body = hoist(h, p->snd);
      h->nloops--;
      if (head == fn && body == p->snd) return p; /* as phrase_map_children shares */
      Phrase *q = arena_dup(h->b.arena, p, sizeof *p);
      q->normal_run = 0;
      q->fst = head;
      q->snd = body;
      return q;
    }
  }
  return hoist_children(h, p);
}

static DefInfo *hoist_def(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *imperative,
                          bool walk_values) {
  Hoist h = {{a, tc, in, imperative->body->span, {{0}}}, NULL, 0, 0, {0}, {0}, NULL, 0, 0, false, false, walk_values};
  size_t before = a->total;
  Phrase *body = hoist(&h, imperative->body);
  /* local memory at kernel scope, first allocation outermost */
  for (int k = h.locals.len - 1; k >= 0; k--) {
    Binder *v = h.locals.items[k];
    body = b_new(&h.b, PRIM_NEW_LOCAL, v->type->fst->data, v, body);
  }
  /* Stage II's result is normal (translate_stage2), and hoisting makes no
   * redex in it: it applies no lambda (an allocation's lambda goes, its
   * body in its place; b_new applies a primitive), inlines no def, and
   * projects no pair (a projection of a hoisted variable is replaced
   * whole, hoisted_use); only a pair put for a whole variable could
   * meet a projection made elsewhere.  Its result's nodes are at most
   * stage II's bound (TypeCtx.norm_reach) and those hoisting made, at
   * most one a sizeof(Phrase) of the arena's bytes handed out since: with
   * fewer than the depth limit, normalisation would give the result back
   * as it is, and is not run (issue 35: its walk of the paths hoisting
   * copied was a fifth of the pass).  Else it runs, as before: stage II's
   * marks trusted, hoisting's copies unmarked (hoist_children and
   * above), so only the paths hoisting changed are walked again. */
  long reach = tc->norm_reach + (long)((a->total - before) / sizeof(Phrase));
  if (h.made_pair || reach >= diag_depth_limit(diag, DPIA_MAX_NORMAL_DEPTH)) {
    body = normalize_phrase_again(a, tc, diag, body);
    if (!body) return NULL;
  } else {
    tc->norm_reach = reach;
  }
  DefInfo *d = NEW(a, DefInfo);
  *d = *imperative;
  d->nparams = imperative->nparams + h.globals.len;
  d->params = NEWARRAY(a, Binder *, d->nparams);
  for (int k = 0; k < imperative->nparams; k++) d->params[k] = imperative->params[k];
  for (int k = 0; k < h.globals.len; k++) d->params[imperative->nparams + k] = h.globals.items[k];
  d->body = body;
  PhraseType *t = tc->t_comm;
  for (int k = d->nparams - 1; k >= 0; k--) t = pt_fn(tc, d->params[k]->type, t);
  d->type = t;
  return d;
}

DefInfo *translate_hoist(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *imperative) {
  return hoist_def(a, tc, in, diag, imperative, false);
}

DefInfo *translate_hoist_walked(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *imperative) {
  return hoist_def(a, tc, in, diag, imperative, true);
}
