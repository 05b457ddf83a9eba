/* locals.c: what the identifiers of the imperative program stand for (the
 * paper's environment eta: storage, indices, aliases, view map elements),
 * and the local buffers of kernel scope with their declarations (split
 * from opencl.c; spec section 7, allocation hoisting, and
 * docs/language.md section 15). */
#include "cgen.h"

#include <string.h>

/* ---- the environment ---- */

static void env_index_put(Arena *a, EnvIndex *x, const Binder *b, EnvEntry *e) {
  if (2 * (x->used + 1) > x->cap) {
    EnvIndex old = *x;
    x->cap = old.cap ? 2 * old.cap : 64;
    x->keys = NEWARRAY(a, const Binder *, x->cap);
    x->vals = NEWARRAY(a, EnvEntry *, x->cap);
    for (uint32_t i = 0; i < old.cap; i++) {
      if (!old.keys[i]) continue;
      uint32_t j = env_slot(x, old.keys[i]);
      x->keys[j] = old.keys[i];
      x->vals[j] = old.vals[i];
    }
  }
  uint32_t i = env_slot(x, b);
  if (!x->keys[i]) x->used++;
  x->keys[i] = b;
  x->vals[i] = e;
}

void env_add(CG *cg, const Binder *b, EnvKind kind, Storage *st, const Ix *ix, const Phrase *acc) {
  EnvEntry *e = NEW(cg->arena, EnvEntry);
  e->binder = b;
  e->kind = kind;
  e->st = st;
  e->ix = ix;
  e->acc = acc;
  e->next = cg->env;
  cg->env = e;
  env_index_put(cg->arena, &cg->by_binder, b, e);
  if (kind == ENV_STORAGE && st->root) env_index_put(cg->arena, &cg->by_root, st->root, e);
  /* a variable a command may read reaches shared memory (barriers.c,
   * scan_reads): any but an acceptor's own storage there */
  if (kind == ENV_STORAGE && (st->root != b || (b->type->kind != PT_ACC && shared_storage(st))))
    cg->reads_shared = cg->writes_matter = true;
  if (kind == ENV_STORAGE && st->space == SP_LOCAL) cg->writes_matter = true;
}

EnvEntry *env_put_view(CG *cg, const Binder *b, const Phrase *array, const Ix *i) {
  EnvEntry *old = env_index_get(&cg->by_binder, b);
  EnvEntry *e = NEW(cg->arena, EnvEntry);
  *e = (EnvEntry){.binder = b, .kind = ENV_VIEW, .ix = i, .acc = array};
  cg->view_changes++;
  env_index_put(cg->arena, &cg->by_binder, b, e);
  return old;
}

void env_put_back(CG *cg, const Binder *b, EnvEntry *old) {
  cg->view_changes++;
  env_index_put(cg->arena, &cg->by_binder, b, old);
}

Storage *new_storage(CG *cg, StoreKind kind, Space space, const char *name, DataType *type, const Binder *root) {
  Storage *st = NEW(cg->arena, Storage);
  st->kind = kind;
  st->space = space;
  st->name = name;
  st->type = dt_resolve(type);
  st->root = root;
  return st;
}

/* ---- local buffers of kernel scope ----
 *
 * A newLocal of constant size outside per-work-item code is declared at
 * kernel scope (OpenCL C allows local variables only there; allocation
 * hoisting has moved them to the top of the kernel).  Buffers whose
 * lifetimes do not overlap share one declaration (a slot) of the largest
 * size: the steps of a tree reduction (iterate, docs/language.md section
 * 15) alternate between two buffers instead of taking one each.
 *
 * A buffer's lifetime is the interval of the group body's commands that
 * use it, in program order: an assignment is a command, a whole parallel
 * loop over work-items one command (its work-items run at once).  A use
 * inside a loop the buffer was not allocated in (Binder.hoisted_from)
 * lives for the whole loop, since the next iteration uses it again; in a
 * loop it was allocated in, it is made afresh each iteration.  Every
 * occupant's storage has the slot's first occupant as its root, so the
 * barrier analysis sees one buffer: a write to the next occupant waits
 * for the reads of the previous one, also across iterations.  A volatile
 * buffer (toLocalVolatile, docs/language.md section 32) shares only with
 * volatile ones: the qualifier is the declaration's, and a plain
 * buffer's accesses stay free to be combined. */

typedef struct LocalBuf {
  const Binder *b;
  DataType *type;
  int64_t n;
  int first, last; /* the commands that use it; first < 0: unused */
  int slot;        /* index into the slots */
} LocalBuf;

typedef struct LocalSlot {
  const Binder *root; /* the first occupant, whose name the slot takes */
  DataType *elem;     /* the element type, one for every occupant */
  const KirType *type;
  int64_t n; /* elements: the largest occupant's */
  int last;  /* the latest occupant's last command */
} LocalSlot;

typedef struct Lifetimes {
  LocalBuf *bufs;
  int nbufs;
  int pos;     /* the current command */
  bool frozen; /* inside a loop over work-items: one command */
  const Binder *loops[64];
  int loop_start[64], nloops;
} Lifetimes;

static LocalBuf *local_buf(Lifetimes *lt, const Binder *b) {
  for (int i = 0; i < lt->nbufs; i++)
    if (lt->bufs[i].b == b) return &lt->bufs[i];
  return NULL;
}

static bool hoisted_from(const Binder *b, const Binder *loop) {
  for (int i = 0; i < b->nhoisted_from; i++)
    if (b->hoisted_from[i] == loop) return true;
  return false;
}

/* made in the same loops: a buffer made in one work-group loop never
 * shares with one made in another, which the check that nothing crosses
 * work-groups (gen_parfor) would take for the same buffer */
static bool same_loops(const Binder *a, const Binder *b) {
  if (a->nhoisted_from != b->nhoisted_from) return false;
  for (int i = 0; i < a->nhoisted_from; i++)
    if (a->hoisted_from[i] != b->hoisted_from[i]) return false;
  return true;
}

static void use_at(LocalBuf *u, int from, int to) {
  if (u->first < 0 || from < u->first) u->first = from;
  if (to > u->last) u->last = to;
}

/* the uses in p; a use inside loops is extended, when the loop ends, to
 * the loop's start (lifetimes_loop_end) */
static void lifetimes(Lifetimes *lt, CG *cg, const Phrase *p) {
  switch (p->kind) {
  case PH_VAR: {
    LocalBuf *u = local_buf(lt, p->binder);
    if (u) use_at(u, lt->pos, lt->pos);
    return;
  }
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return;
  case PH_LAM: lifetimes(lt, cg, p->body); return;
  case PH_PROJ:
  case PH_UNOP: lifetimes(lt, cg, p->fst); return;
  case PH_ASSIGN:
    if (!lt->frozen) lt->pos++;
    lifetimes(lt, cg, p->fst);
    lifetimes(lt, cg, p->snd);
    return;
  case PH_APP: {
    Spine s;
    if (!spine_of(cg->arena, p, &s) || s.nargs == 0 || s.args[s.nargs - 1]->kind != PH_LAM) break;
    Prim pr = s.head->prim;
    bool loop = prim_family(pr) == PFAM_FOR || prim_family(pr) == PFAM_FOR_RANGE || prim_family(pr) == PFAM_PARFOR;
    if (!loop || lt->nloops == 64) break;
    bool freeze = !lt->frozen && prim_parfor_per_item(pr);
    if (freeze) {
      lt->pos++;
      lt->frozen = true;
    }
    for (int i = 0; i < s.nargs - 1; i++) lifetimes(lt, cg, s.args[i]);
    int k = lt->nloops++;
    lt->loops[k] = s.args[s.nargs - 1]->lam_binder;
    lt->loop_start[k] = lt->pos + (lt->frozen ? 0 : 1);
    lifetimes(lt, cg, s.args[s.nargs - 1]);
    /* a buffer used in the loop but allocated outside it lives through it */
    for (int i = 0; i < lt->nbufs; i++) {
      LocalBuf *u = &lt->bufs[i];
      bool used_inside = u->first >= 0 && u->last >= lt->loop_start[k]; /* nothing after the loop is seen yet */
      if (used_inside && !hoisted_from(u->b, lt->loops[k])) use_at(u, lt->loop_start[k], lt->pos);
    }
    lt->nloops--;
    if (freeze) lt->frozen = false;
    return;
  }
  default: break;
  }
  if (p->fst) lifetimes(lt, cg, p->fst);
  if (p->snd) lifetimes(lt, cg, p->snd);
}

/* the kernel-scope newLocal chain at the top of the body (hoist.c) */
static const Phrase *top_locals(CG *cg, const Phrase *p, Vec *out) {
  for (;;) {
    Spine s;
    if (p->kind != PH_APP || !spine_of(cg->arena, p, &s) || s.head->prim != PRIM_NEW_LOCAL || s.nargs != 1 ||
        s.args[0]->kind != PH_LAM)
      return p;
    LocalBuf *u = NEW(cg->arena, LocalBuf);
    DataType *t = dt_resolve(s.head->type_arg);
    *u = (LocalBuf){s.args[0]->lam_binder, t, 0, -1, -1, -1};
    if (!env_index_get(&cg->by_binder, u->b) && size_const_value(cg_elem_count(cg, t), &u->n))
      vec_push(cg->arena, out, u);
    p = s.args[0]->body;
  }
}

/* A work-group's accumulator whose every element belongs to one
 * work-item (Binder.owned_by: it is accessed as element [i1]..[in] by
 * iteration (i1, .., in) of parforLocals of the dimensions d1..dn only,
 * translate/stage2.c) is a private variable of the element type, each
 * work-item's own element, the registers of the hand-written kernels
 * (SHOC's sgemmNN: float c[16]), when each of those parforLocals runs at
 * most once per work-item: a known local size, at least the extent of the
 * accumulator in that dimension (else a work-item would own several
 * elements, and the accumulator stays in local memory), and when the
 * element is small enough for registers (a GPU's work-item has at most
 * 255 32-bit ones; larger ones stay in local memory too). */
enum { OWNED_PRIVATE_MAX = 1024 };

static bool owned_private(CG *cg, const Binder *b, DataType *t) {
  if (!b->nowned_by) return false;
  for (int k = 0; k < b->nowned_by; k++) {
    int d = b->owned_by[k];
    int64_t local, extent;
    if (dt_resolve(t)->kind != DT_ARRAY || !cg->launch.local_known[d] ||
        !size_const_value(cg->launch.local[d], &local) || !size_const_value(dt_resolve(t)->size, &extent) ||
        local < extent)
      return false;
    t = dt_resolve(t)->elem;
  }
  int64_t n = 1;
  DataType *e = dt_resolve(t);
  if (e->kind == DT_ARRAY && !size_const_value(cg_elem_count(cg, e), &n)) return false;
  DataType *scalar = e->kind == DT_ARRAY ? dt_resolve(cg_elem_type(e)) : e;
  return scalar->kind == DT_SCALAR && n * 4 * scalar->width <= OWNED_PRIVATE_MAX;
}

/* its storage, float acc[16] or float acc, declared where its newLocal
 * is generated (opencl.c, gen_new): in the kernel's body, not among the
 * group's local buffers, so that a target running the work-items of a
 * group one after another between barriers keeps one per work-item
 * (backend_c_omp.c) */
static void declare_owned(CG *cg, const Binder *b, DataType *t) {
  for (int k = 0; k < b->nowned_by; k++) t = dt_resolve(t)->elem;
  t = dt_resolve(t);
  Storage *st = new_storage(cg, t->kind == DT_ARRAY ? STORE_BUFFER : STORE_VALUE, SP_PRIVATE,
                            cg_name(cg, b->name), t, b);
  st->owned_by = b->owned_by;
  st->nowned_by = b->nowned_by;
  env_add(cg, b, ENV_STORAGE, st, NULL, NULL);
}

void collect_locals(CG *cg, const Phrase *body, KirBlock *decls) {
  Vec found = {0};
  const Phrase *rest = top_locals(cg, body, &found);
  for (int i = 0; i < found.len;) {
    LocalBuf *u = found.items[i];
    if (!owned_private(cg, u->b, u->type)) {
      i++;
      continue;
    }
    declare_owned(cg, u->b, u->type);
    found.items[i] = found.items[--found.len];
  }
  Lifetimes lt = {NEWARRAY(cg->arena, LocalBuf, found.len ? found.len : 1), found.len, 0, false, {0}, {0}, 0};
  for (int i = 0; i < found.len; i++) lt.bufs[i] = *(LocalBuf *)found.items[i];
  /* the walk only notes uses of those buffers, for the sharing of slots
   * below: one buffer has a slot of its own whatever its lifetime, none
   * nothing to note (issue 35: a walk of the whole kernel) */
  if (lt.nbufs > 1) lifetimes(&lt, cg, rest);
  /* greedy by first use: each buffer takes the first slot of its name,
   * element type and loops whose last occupant is done before it starts */
  int *order = NEWARRAY(cg->arena, int, lt.nbufs ? lt.nbufs : 1);
  for (int i = 0; i < lt.nbufs; i++) order[i] = i;
  for (int i = 1; i < lt.nbufs; i++) /* insertion sort: stable, few buffers */
    for (int j = i; j > 0 && lt.bufs[order[j - 1]].first > lt.bufs[order[j]].first; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  LocalSlot *slots = NEWARRAY(cg->arena, LocalSlot, lt.nbufs ? lt.nbufs : 1);
  int nslots = 0;
  for (int i = 0; i < lt.nbufs; i++) {
    LocalBuf *u = &lt.bufs[order[i]];
    DataType *elem = cg_elem_type(u->type);
    const KirType *type = cg_type(cg, elem);
    u->slot = -1;
    for (int k = 0; k < nslots && u->first >= 0 && u->slot < 0; k++)
      if (slots[k].last >= 0 && slots[k].last < u->first && dt_equal(slots[k].elem, elem) &&
          slots[k].root->name == u->b->name /* a reduction's acc keeps its own name */ &&
          same_loops(slots[k].root, u->b) && slots[k].root->volatile_local == u->b->volatile_local)
        u->slot = k;
    if (u->slot < 0) {
      u->slot = nslots++;
      slots[u->slot] = (LocalSlot){u->b, elem, type, 0, -1};
    }
    LocalSlot *sl = &slots[u->slot];
    if (u->n > sl->n) sl->n = u->n;
    if (u->first >= 0) sl->last = u->last;
  }
  /* declared, and named, in the order of the chain (hoist.c), so that a
   * kernel without sharing reads as before */
  const char **names = NEWARRAY(cg->arena, const char *, nslots ? nslots : 1);
  for (int i = 0; i < lt.nbufs; i++) {
    const LocalBuf *u = &lt.bufs[i];
    LocalSlot *sl = &slots[u->slot];
    if (sl->root != u->b) continue;
    names[u->slot] = cg_name(cg, u->b->name);
    KirStmt *d = kir_stmt(cg->arena, KS_DECL);
    d->decl.space = KSP_LOCAL;
    d->decl.type = sl->type;
    d->decl.name = names[u->slot];
    d->decl.array_len = sl->n;
    d->decl.is_volatile = sl->root->volatile_local;
    kir_append(decls, d);
  }
  for (int i = 0; i < lt.nbufs; i++) {
    const LocalBuf *u = &lt.bufs[i];
    Storage *st = new_storage(cg, STORE_BUFFER, SP_LOCAL, names[u->slot], u->type, slots[u->slot].root);
    st->is_volatile = u->b->volatile_local;
    env_add(cg, u->b, ENV_STORAGE, st, NULL, NULL);
  }
}
