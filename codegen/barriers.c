/* barriers.c: where the kernel needs barriers (spec section 8), for
 * opencl.c's command generation.
 *
 * Barriers (spec section 8).  A barrier synchronises the work-items of one
 * group, so only work-items of a group matter.  While generating the group
 * body, the buffers (global or local memory) written by the work-items of
 * a parforLocal since the last barrier are pending writes, and the buffers
 * read since the last barrier pending reads.  A barrier is emitted
 *  - before a command that reads a pending write (read after write: the
 *    barrier comes after the parforLocal that wrote, as late as possible,
 *    so two mapLocal stages whose outputs are read by a third need one);
 *  - before a command that writes a pending read (write after read: a late
 *    work-item may still be reading);
 *  - at the end of a loop body in the group body when the next iteration
 *    reads a pending write or overwrites a pending read, or writes a
 *    local buffer again, unless those writes are indexed by the loop's
 *    index (disjoint parts in each iteration: loop_carried).
 * It is only emitted where every work-item of the group arrives equally
 * often (elided exactly-once loops, sequential loops, work-group loops); a
 * barrier needed elsewhere is an error (spec section 5). */
#include "cgen.h"

#include <string.h>

static Space root_space(CG *cg, const Binder *b, bool *found) {
  const EnvEntry *e = env_index_get(&cg->by_root, b);
  if (e) {
    const Storage *st = e->st;
    while (st->kind == STORE_SPLIT) st = st->part[0];
    *found = !st->read_only;
    return st->space;
  }
  *found = false;
  return SP_PRIVATE;
}

bool shared_root(CG *cg, const Binder *b) {
  bool found;
  Space sp = root_space(cg, b, &found);
  return found && sp != SP_PRIVATE;
}

static const Binder *static_acc_root(CG *cg, const Phrase *a, const Alias *al) {
  for (;;) {
    if (a->kind == PH_PROJ) a = a->fst;
    if (a->kind == PH_VAR) {
      for (const Alias *x = al; x; x = x->next)
        if (x->o == a->binder) return static_acc_root(cg, x->acc, x->next);
      return acc_root(cg, a);
    }
    Spine s;
    if (!spine_of(cg->arena, a, &s) || s.nargs < 1) return NULL;
    a = s.args[0];
  }
}

static bool is_parfor(Prim p) { return prim_family(p) == PFAM_PARFOR; }

/* Is the acceptor a, on its way to its root, indexed by the variable of
 * index (idxAcc _ i)?  Then the writes through it in different iterations
 * of index's loop go to different elements: acceptor views never send two
 * positions to one element (they split, join, transpose, slice, or drop
 * writes), so the position's component i tells them apart. */
static bool acc_indexed_by(CG *cg, const Phrase *a, const Alias *al, const Binder *index) {
  for (;;) {
    if (a->kind == PH_PROJ) a = a->fst;
    if (a->kind == PH_VAR) {
      for (const Alias *x = al; x; x = x->next)
        if (x->o == a->binder) return acc_indexed_by(cg, x->acc, x->next, index);
      return false;
    }
    Spine s;
    if (!spine_of(cg->arena, a, &s) || s.nargs < 1) return false;
    if (s.head->prim == PRIM_IDX_ACC && s.nargs == 2 && s.args[1]->kind == PH_VAR && s.args[1]->binder == index)
      return true;
    a = s.args[0];
  }
}

/* scan_writes, leaving out the writes indexed by index (NULL: none) */
static void scan_writes_but(CG *cg, const Phrase *p, const Alias *al, const Binder *index, BinderSet *out) {
  switch (p->kind) {
  case PH_ASSIGN: {
    const Binder *r = static_acc_root(cg, p->fst, al);
    if (r && shared_root(cg, r) && !(index && acc_indexed_by(cg, p->fst, al, index))) binder_set_add(cg, out, r);
    return;
  }
  case PH_SEQ:
    scan_writes_but(cg, p->fst, al, index, out);
    scan_writes_but(cg, p->snd, al, index, out);
    return;
  case PH_LAM: scan_writes_but(cg, p->body, al, index, out); return;
  case PH_APP: {
    Spine s;
    if (!spine_of(cg->arena, p, &s)) return;
    if (is_parfor(s.head->prim) && s.nargs == 2 && s.args[1]->kind == PH_LAM && s.args[1]->body->kind == PH_LAM) {
      const Phrase *inner = s.args[1]->body;
      Alias a = {inner->lam_binder, s.args[0], al};
      scan_writes_but(cg, inner->body, &a, index, out);
      return;
    }
    for (int i = 0; i < s.nargs; i++)
      if (s.args[i]->kind == PH_LAM) scan_writes_but(cg, s.args[i], al, index, out);
    return;
  }
  default: return;
  }
}

/* buffers in global or local memory written by p (al: the o of the
 * parfors entered on the way, which are not in the environment yet) */
void scan_writes(CG *cg, const Phrase *p, const Alias *al, BinderSet *out) { scan_writes_but(cg, p, al, NULL, out); }

/* buffers in global or local memory read by p, outside the subtree skip
 * (NULL: none) */
void scan_reads_except(CG *cg, const Phrase *p, const Phrase *skip, BinderSet *out) {
  if (p == skip) return;
  switch (p->kind) {
  case PH_VAR:
    if (p->type->kind == PT_EXP) {
      Storage *st = phrase_storage(cg, p);
      if (st && shared_root(cg, st->root)) binder_set_add(cg, out, st->root);
    }
    return;
  case PH_PROJ:
    if (p->index == 2) {
      Storage *st = phrase_storage(cg, p);
      if (st && shared_root(cg, st->root)) binder_set_add(cg, out, st->root);
    }
    return;
  case PH_LIT:
  case PH_PRIM: return;
  case PH_LAM: scan_reads_except(cg, p->body, skip, out); return;
  case PH_ASSIGN: scan_reads_except(cg, p->snd, skip, out); return; /* the acceptor side only writes */
  case PH_UNOP: scan_reads_except(cg, p->fst, skip, out); return;
  default:
    if (p->fst) scan_reads_except(cg, p->fst, skip, out);
    if (p->snd) scan_reads_except(cg, p->snd, skip, out);
    return;
  }
}

void scan_reads(CG *cg, const Phrase *p, BinderSet *out) { scan_reads_except(cg, p, NULL, out); }

BinderSet binder_set_intersect(CG *cg, const BinderSet *a, const BinderSet *b) {
  BinderSet r = {0};
  for (int i = 0; i < a->n; i++)
    if (binder_set_has(b, a->items[i])) binder_set_add(cg, &r, a->items[i]);
  return r;
}

static void remove_space(CG *cg, BinderSet *s, bool loc, bool glob) {
  int n = 0;
  for (int i = 0; i < s->n; i++) {
    bool found;
    Space sp = root_space(cg, s->items[i], &found);
    if ((sp == SP_LOCAL && loc) || (sp == SP_GLOBAL && glob)) continue;
    s->items[n++] = s->items[i];
  }
  s->n = n;
}

/* A barrier fencing local memory for local buffers, global memory for
 * global ones (spec section 8): the statement, not yet in a block. */
static KirStmt *barrier_for(CG *cg, const BinderSet *need) {
  KirStmt *s = kir_stmt(cg->arena, KS_BARRIER);
  for (int i = 0; i < need->n; i++) {
    bool found;
    Space sp = root_space(cg, need->items[i], &found);
    s->barrier.local = s->barrier.local || sp == SP_LOCAL;
    s->barrier.global = s->barrier.global || sp == SP_GLOBAL;
  }
  if (!s->barrier.local) s->barrier.global = true;
  return s;
}

/* a barrier fencing both memories, or global memory only, with why */
static void add_barrier(CG *cg, bool local, const char *comment) {
  KirStmt *s = cg_add(cg, KS_BARRIER, comment);
  s->barrier.local = local;
  s->barrier.global = true;
}

static void emit_barrier(CG *cg, const BinderSet *need) {
  KirStmt *s = barrier_for(cg, need);
  kir_append(cg->block, s);
  bool loc = s->barrier.local, glob = s->barrier.global;
  cg->nbarriers++;
  cg->local_unfenced = false;
  cg->group_stage_fenced = false;
  remove_space(cg, &cg->pending_writes, loc, glob);
  remove_space(cg, &cg->pending_reads, loc, glob);
}

const char *names_of(CG *cg, const BinderSet *s) {
  Buf b;
  buf_init(&b, cg->arena);
  for (int i = 0; i < s->n; i++) emit(&b, "%s'%s'", i ? (i + 1 == s->n ? " and " : ", ") : "", s->items[i]->name);
  return b.data;
}

void binder_set_union(CG *cg, BinderSet *a, const BinderSet *b) {
  for (int i = 0; i < b->n; i++) binder_set_add(cg, a, b->items[i]);
}

/* Pending writes to local memory that p writes again: two work-items
 * writing one element unordered leave either value (a shared accumulator,
 * initialised and then updated by a mapLocal that may split it differently:
 * stage2.c, lower_reduce_i).  Global memory is left out: its buffers share
 * one root binder per output (pairs of arrays), and work-groups are not
 * ordered by a barrier anyway (spec section 5). */
static BinderSet local_waw(CG *cg, const BinderSet *writes) {
  BinderSet waw = binder_set_intersect(cg, writes, &cg->pending_writes);
  remove_space(cg, &waw, false, true);
  return waw;
}

/* the pending writes (other work-items' of the group, since the last
 * barrier) that p reads */
static BinderSet pending_writes_read(CG *cg, const Phrase *p) {
  BinderSet need = {0};
  if (cg->pending_writes.n) {
    BinderSet reads = {0};
    scan_reads(cg, p, &reads);
    need = binder_set_intersect(cg, &cg->pending_writes, &reads);
  }
  return need;
}

/* What p writes that the commands after it read.  When an enclosing loop
 * runs p again, p's own reads are not "after" p: they read what the same
 * execution of p wrote first (a temporary allocated in p's body, widened
 * by p's index when hoisted, is a slice per group; local memory is one
 * group's), which is p's own affair, checked with p.  The rest of the
 * enclosing loop's body, run again, is after p. */
static BinderSet written_then_read(CG *cg, const Phrase *p, const Cont *after) {
  BinderSet w = {0}, reads = {0};
  scan_writes(cg, p, NULL, &w);
  for (const Cont *c = after; c; c = c->next) scan_reads_except(cg, c->cmd, c->again ? p : NULL, &reads);
  return binder_set_intersect(cg, &w, &reads);
}

bool no_barrier_error(CG *cg, const Phrase *p, NoBarrier where, const Cont *after) {
  BinderSet bad = where == NB_DIVERGENT ? pending_writes_read(cg, p) : written_then_read(cg, p, after);
  if (!bad.n) return false;
  const char *names = names_of(cg, &bad);
  DPIA_EXHAUSTIVE_BEGIN
  switch (where) {
  case NB_DIVERGENT:
    cg_error(cg, ERR_NO_BARRIER, p->span,
             "this reads %s, written by other work-items of the group before it, which needs a "
             "barrier, but not all work-items of the group reach this point",
             names);
    break;
  case NB_ACROSS_GROUPS: {
    Spine s;
    if (!spine_of(cg->arena, p, &s)) INTERNAL("a parallel loop without its primitive");
    cg_error(cg, ERR_NO_BARRIER, p->span,
             "%s written by this %s is read later in the same kernel, but OpenCL has no barrier "
             "across work-groups; split the computation into two kernels",
             names, prim_info[s.head->prim].name);
    break;
  }
  case NB_ONE_WRITER:
    cg_error(cg, ERR_NO_BARRIER, p->span,
             "%s is computed once, by one work-item, and read later by the others, but OpenCL has no barrier "
             "across work-groups to order them; compute it inside the map that reads it, or split the "
             "computation into two kernels",
             names);
    break;
  }
  DPIA_EXHAUSTIVE_END
  return true;
}

/* The barrier command p needs before it: pending writes it reads, pending
 * reads it writes, pending local writes it writes (the latter two only
 * where barriers may go: elsewhere a pending write it reads is an error). */
void sync_before(CG *cg, const Phrase *p) {
  if (!cg->uniform) {
    /* reported once: what is left pending is taken as fenced */
    if (no_barrier_error(cg, p, NB_DIVERGENT, NULL)) cg->pending_writes.n = 0;
    return;
  }
  BinderSet need = pending_writes_read(cg, p);
  if (cg->pending_reads.n || cg->pending_writes.n) {
    BinderSet writes = {0};
    scan_writes(cg, p, NULL, &writes);
    BinderSet war = binder_set_intersect(cg, &writes, &cg->pending_reads), waw = local_waw(cg, &writes);
    binder_set_union(cg, &need, &war);
    binder_set_union(cg, &need, &waw);
  }
  if (need.n) emit_barrier(cg, &need);
}

/* Before a parforLocal in the body of a work-group loop, when another
 * parforLocal ran since the last barrier: PoCL 3.1 (its default, loopvec,
 * work-group method) miscompiles the pair, so that writes of the loop's
 * iterations are lost or read back unwritten.  Seen where the first was
 * written by one work-item (gen_local_single_writer's guard:
 * tests/diff/regress/pocl_2d_local_loop.dpia, pocl_guarded_local_pair.dpia)
 * and where both were guarded by local id bounds, a sequential loop with
 * barriers following (regress/pocl_group_loop_local_pair.dpia,
 * known/pocl_group_loop_local_pair.cl; right with
 * POCL_WORK_GROUP_METHOD=cbs, with a barrier between the two, or without
 * the work-group loop), and where the first was a body one work-item of
 * the group writes (gen_single_writer: regress/pocl_single_writer_loop.dpia,
 * wrong with every work-group method).  No barrier is needed there, but one
 * is harmless where every work-item of the group gets (cg->uniform). */
void sync_after_guard(CG *cg) {
  if (!cg->uniform || cg->group_loop_depth == 0 || !cg->local_unfenced) return;
  add_barrier(cg, true, "PoCL 3.1 needs one here in a work-group loop");
  cg->nbarriers++;
  remove_space(cg, &cg->pending_writes, true, true);
  remove_space(cg, &cg->pending_reads, true, true);
  cg->local_unfenced = false;
  cg->group_stage_fenced = false;
}

/* Before a parforWorkgroup of the kernel body that follows one run by
 * some groups only (FORM_AT_MOST_ONCE or FORM_LOOP) whose body has
 * barriers, with no barrier since: PoCL 3.1's compiler crashed (signal 11,
 * with every work-group method) on such a pair where the first body's
 * parforLocals were single writers (tests/diff/regress/pocl_group_stage_crash.dpia,
 * known/pocl_group_stage_crash.cl; right with a barrier between the two).
 * No barrier is needed there, and one is harmless at the top level, where
 * every work-item gets. */
void sync_after_group_stage(CG *cg) {
  if (!cg->uniform || cg->group_depth > 0 || !cg->group_stage_fenced) return;
  add_barrier(cg, false, "PoCL 3.1 needs one after a work-group stage with barriers");
  cg->nbarriers++;
  remove_space(cg, &cg->pending_writes, false, true);
  remove_space(cg, &cg->pending_reads, false, true);
  cg->group_stage_fenced = false;
}

/* At the end of a loop body of the group body: the next iteration reads
 * pending writes or overwrites pending reads, or writes again a local
 * buffer it wrote.  Not when every write to that buffer is indexed by the
 * loop's index (NULL: a loop of no index): the iterations write disjoint
 * parts of it, as a row-by-row copy into local memory does (SHOC's
 * Stencil2D: a barrier a row before, none in the original). */
static BinderSet loop_carried(CG *cg, const Phrase *body, const Binder *index) {
  BinderSet reads = {0}, writes = {0}, unindexed = {0};
  scan_reads(cg, body, &reads);
  scan_writes(cg, body, NULL, &writes);
  scan_writes_but(cg, body, NULL, index, &unindexed);
  BinderSet need = binder_set_intersect(cg, &cg->pending_writes, &reads);
  BinderSet war = binder_set_intersect(cg, &writes, &cg->pending_reads), waw = local_waw(cg, &unindexed);
  binder_set_union(cg, &need, &war);
  binder_set_union(cg, &need, &waw);
  return need;
}

/* In the body of mapGlobals over every dimension of the NDRange (no
 * work-groups around), a sequential loop runs in one work-item: what it
 * writes is that work-item's own (a temporary allocated in the body,
 * widened by the index, or the output through o: SCIR), so reading it back
 * in the next iteration, or writing again what it read, needs no barrier.
 * One there only split PoCL's work-item loops (and crashed its compiler:
 * regress/global_loop_no_barrier.dpia, seed 62 #1671). */
static bool in_own_work_item(const CG *cg) {
  int ndims = cg->k->ndims > 0 ? cg->k->ndims : 1;
  return cg->group_depth == 0 && cg->local_dims == 0 && __builtin_popcount(cg->global_dims) == ndims;
}

/* The barrier a sequential loop of the group body needs between iterations.
 * When it would be the body's only barrier it goes at the top instead, as
 * for a work-group loop (below): a loop whose one barrier stands just
 * before its latch makes PoCL 3.1's loopvec method abort
 * (regress/pocl_loop_end_barrier_reduce.dpia).  With other barriers in the
 * body it stays at the end, where it clears the pending sets. */
static void loop_top_barrier(CG *cg, const Phrase *body, const Binder *index, KirStmt *before_body);

void sync_loop_end(CG *cg, const Phrase *loop, bool only_barrier) {
  if (!cg->uniform || in_own_work_item(cg)) return;
  if (only_barrier) {
    loop_top_barrier(cg, loop->body, loop->lam_binder, NULL);
    return;
  }
  BinderSet need = loop_carried(cg, loop->body, loop->lam_binder);
  if (need.n) emit_barrier(cg, &need);
}

/* The barrier a work-group loop (mapWorkgroup with fewer groups than
 * iterations) needs between iterations goes at the top of its body, where
 * it also runs, harmlessly, before the first iteration: at the end of the
 * body, just before the loop's latch, PoCL 3.1 miscompiles it (all writes
 * lost, tests/diff/known/pocl_loop_barrier.cl) or aborts
 * (tests/diff/known/pocl_parallel_region_assert.cl).  before_body: the
 * statement of cg->block after which the body begins (NULL: it begins the
 * block).  The pending sets are left as they are (the loop's last
 * iteration ends without a barrier). */
void sync_group_loop_top(CG *cg, const Phrase *body, KirStmt *before_body) {
  loop_top_barrier(cg, body, NULL, before_body);
}

static void loop_top_barrier(CG *cg, const Phrase *body, const Binder *index, KirStmt *before_body) {
  if (!cg->uniform) return;
  BinderSet need = loop_carried(cg, body, index);
  if (!need.n) return;
  KirStmt *s = barrier_for(cg, &need);
  s->comment = arena_printf(cg->arena, "the previous iteration is done with %s", names_of(cg, &need));
  kir_insert_after(cg->block, before_body, s);
  cg->nbarriers++;
}

/* ---- barrier sites (kir.h, barrier_pass.c) ---- */

static bool same_binder(const void *user, const void *a, const void *b) { return a == b; }

const KirBuffer *cg_buffer(CG *cg, const Binder *b) {
  uint64_t hash = hash_mix(0, (uint64_t)(uintptr_t)b);
  const MemoEntry *known = memo_find(&cg->buffers, hash, 0, same_binder, NULL, b);
  if (known) return known->value;
  KirBuffer *buf = NEW(cg->arena, KirBuffer);
  bool found;
  Space sp = root_space(cg, b, &found);
  *buf = (KirBuffer){b->name, sp == SP_LOCAL ? KSP_LOCAL : sp == SP_GLOBAL ? KSP_GLOBAL : KSP_PRIVATE};
  memo_put(cg->arena, &cg->buffers, (MemoEntry){b, hash, 0, buf, 0}, same_binder, NULL);
  return buf;
}

void cg_note_access(CG *cg, const Binder *root, bool write) {
  const KirBuffer *b = cg_buffer(cg, root);
  for (int i = 0; i < cg->accesses.len; i++) {
    const KirAccess *x = cg->accesses.items[i];
    if (x->buffer == b && x->write == write) return; /* noted since the last site */
  }
  KirAccess *x = NEW(cg->arena, KirAccess);
  *x = (KirAccess){b, write};
  vec_push(cg->arena, &cg->accesses, x);
}

static KirBufferSet buffers_of(CG *cg, const BinderSet *s) {
  KirBufferSet r = {.n = s->n, .cap = s->n, .items = NEWARRAY(cg->arena, const KirBuffer *, s->n > 0 ? s->n : 1)};
  for (int i = 0; i < s->n; i++) r.items[i] = cg_buffer(cg, s->items[i]);
  return r;
}

KirSite *cg_site(CG *cg, KirSiteKind kind, Span span) {
  KirSite *site = NEW(cg->arena, KirSite);
  *site = (KirSite){.kind = kind, .span = span, .naccesses = cg->accesses.len};
  KirAccess *xs = NEWARRAY(cg->arena, KirAccess, cg->accesses.len > 0 ? cg->accesses.len : 1);
  for (int i = 0; i < cg->accesses.len; i++) xs[i] = *(const KirAccess *)cg->accesses.items[i];
  site->accesses = xs;
  cg->accesses.len = 0;
  cg_add(cg, KS_BARRIER, NULL)->barrier.site = site;
  return site;
}

void cg_command_site(CG *cg, const Phrase *p, KirLevel level) {
  BinderSet reads = {0}, writes = {0};
  scan_reads(cg, p, &reads);
  scan_writes(cg, p, NULL, &writes);
  KirSite *site = cg_site(cg, KSITE_COMMAND, p->span);
  site->reads = buffers_of(cg, &reads);
  site->writes = buffers_of(cg, &writes);
  site->level = level;
}

void cg_body_end_site(CG *cg, KirSiteKind kind, const Phrase *body, const Binder *index) {
  BinderSet reads = {0}, writes = {0}, unindexed = {0};
  scan_reads(cg, body, &reads);
  scan_writes(cg, body, NULL, &writes);
  scan_writes_but(cg, body, NULL, index, &unindexed);
  KirSite *site = cg_site(cg, kind, body->span);
  site->reads = buffers_of(cg, &reads);
  site->writes = buffers_of(cg, &writes);
  site->unindexed = buffers_of(cg, &unindexed);
}

KirLevel kir_level(PrimLevel level) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (level) {
  case PLVL_GLOBAL: return KL_GLOBAL;
  case PLVL_WORKGROUP: return KL_WORKGROUP;
  case PLVL_LOCAL: return KL_LOCAL;
  case PLVL_NONE:
  case PLVL_SEQ:
  case PLVL_PRIVATE: return KL_NONE;
  }
  DPIA_EXHAUSTIVE_END
  return KL_NONE;
}
