/* barrier_pass.c: where the kernel needs barriers (spec section 8), a pass
 * over the kernel IR after lowering (docs/architecture.md "Barriers").
 *
 * A barrier synchronises the work-items of one group (OpenCL has none
 * across groups: spec section 5), so only the work-items of a group
 * matter.  Walking a work-group body in order, the buffers (global or
 * local memory) written by the work-items of a parforLocal since the last
 * barrier are pending writes, and the buffers read since the last barrier
 * pending reads.  A barrier goes
 *  - before a command that reads a pending write (read after write: the
 *    barrier comes after the parforLocal that wrote, as late as possible,
 *    so two mapLocal stages whose outputs are read by a third need one);
 *  - before a command that writes a pending read (write after read: a late
 *    work-item may still be reading), or writes a pending local write
 *    again (two work-items writing one element unordered leave either
 *    value);
 *  - at the end of a sequential loop's body when the next iteration reads
 *    a pending write, overwrites a pending read, or writes a local buffer
 *    again, unless those writes are indexed by the loop's variable
 *    (disjoint parts in each iteration); at its top instead when it would
 *    be the body's only barrier, and at the top of a work-group loop's body
 *    (PoCL 3.1 miscompiles a barrier just before a loop's latch).
 * Only where every work-item of the group arrives equally often (elided
 * exactly-once parallel loops, sequential loops, work-group loops): in a
 * loop over work-items, under a test of the id or a single writer's guard
 * none can go.
 *
 * The lowering (opencl.c) leaves a barrier site (kir.h, KirSite) before
 * each command and where parallel loops and single writers' guards begin
 * and end; the pass keeps the pending sets as its own state, entering a
 * work-group body with fresh sets (a nested one shares its enclosing
 * body's) and a work-item loop's body with no own writes (a work-item
 * reads back what it wrote itself in program order), which become pending
 * writes after it.
 *
 * Four more barriers are for PoCL 3.1 alone (pocl_after_guard,
 * pocl_after_group_stage, pocl_before_single_writer_nest,
 * pocl_before_local_single_writer), where one is
 * harmless; a backend that does not run on PoCL leaves them out
 * (Backend.no_pocl_barriers). */
#include "kernel.h"
#include "kir.h"

#include <string.h>

typedef struct Frame Frame;
struct Frame {
  const KirSite *site;
  /* what the body's end puts back */
  KirBufferSet pending_writes, pending_reads, own_writes;
  bool local_unfenced, uniform, nested_group;
  const KirBuffer *pointwise;
  unsigned group_dims, local_dims, global_dims;
  int barriers_before;
  Frame *up;
};

/* A site of a kernel body, for what runs after it: where the code it
 * begins ends (end: the index of the site that ends it, or -1), and the
 * first site in the outermost loop around it (loop_start, or -1), whose
 * body runs again after it. */
typedef struct SiteAt {
  const KirSite *site;
  int end, loop_start;
} SiteAt;

typedef struct Pass {
  Arena *arena;
  Diag *diag;
  bool failed;
  int ndims;
  bool pocl;
  SiteAt *sites;  /* in order (an array: kir_grown) */
  int nsites, capsites;
  int at;         /* the index of the site at hand */
  int skip_until; /* the sites up to this index belong to code refused (NB_ONE_WRITER) */
  KirBufferSet pending_writes; /* written by work-items of the group, not fenced */
  KirBufferSet pending_reads;  /* read in the group body since the last barrier */
  KirBufferSet own_writes;     /* written in the innermost work-item loop's body so far */
  bool uniform;                /* every work-item of the group gets here equally often */
  bool divergent_loop;         /* in the body of a loop that made uniform false (place_loop_body) */
  Vec alike;                   /* const char *: the enclosing loops' variables alike in the group */
  int distributed;             /* > 0 in a work-item loop's body or a single writer's */
  int uncounted;               /* the sites of a run written out still ahead (place_run): not in sites */
  /* the accumulator a parforLocal body updates in place, each work-item
   * its own element: its reads there are not pending for its own writes */
  const KirBuffer *pointwise;
  int group_depth, group_loop_depth;
  unsigned group_dims, local_dims, global_dims; /* bit d: in a body of dimension d */
  bool local_unfenced;      /* a parforLocal or single writer since the last barrier */
  bool group_stage_fenced;  /* since the last barrier: a parforWorkgroup run by some
                             * groups only whose body has barriers */
  int nbarriers;
  Frame *frames;
  const KirIdNames *ids; /* the kernel's id variables, for kir_own_elements */
  /* ids are asked for (ids_wanted): by a loop whose bounds or step name a
   * variable (kir_group_alike; a constant is alike without them), or of a
   * local buffer (kir_own_elements, own_pending: of those alone); else
   * they are not gathered (most kernels: issue 35) */
  bool ids_wanted;
  /* Can any barrier or E0604 come of the sites (collect_sites)?  Not
   * where no site reads a buffer, no access reads one, no parfor updates
   * an accumulator in place and no buffer is local, and no work-group
   * loop runs a body: then every set of reads a command meets, pending or
   * after it, is empty, so is every set a barrier or an error is made
   * of, but for PoCL's barriers, of which the first can come only in a
   * work-group loop (pocl_after_guard) and the others after a barrier.
   * The pass then only takes the sites out (strip_sites; issue 35: most
   * kernels without toLocal). */
  bool may_place;
  /* The pointwise rule before a command (own_pending): the buffers
   * proven touched by each work-item at its own elements only, from the
   * last barrier through the command's code, with the depth of the block
   * whose command it is (they hold until that block's next command);
   * depth: of the block being placed; entry_pending: what was pending
   * when it began; command_code: the statements after the command's site */
  Vec exempt; /* Exempt * */
  int depth;
  const KirBufferSet *entry_pending;
  const KirStmt *command_code;
} Pass;

typedef struct Exempt {
  const KirBuffer *buffer;
  int depth;
} Exempt;

/* ---- sets of buffers ---- */

static const KirBuffer *item(const KirBufferSet *s, int i) { return s->items[i]; }

/* a loop's bound alike in every work-item without a look at the ids */
static bool constant_bound(const KirExpr *e) {
  return !e || e->kind == KE_INT || e->kind == KE_LIT || (e->kind == KE_IX && e->ix->kind == IX_CONST);
}

/* the ids, where collect_sites found them wanted (Pass.ids_wanted) */
static const KirIdNames *ids_of(const Pass *p) {
  if (!p->ids) INTERNAL("the barrier pass asks for the kernel's ids it did not gather");
  return p->ids;
}

static bool set_has(const KirBufferSet *s, const KirBuffer *b) {
  for (int i = 0; i < s->len; i++)
    if (item(s, i) == b) return true;
  return false;
}

static void set_add(Arena *a, KirBufferSet *s, const KirBuffer *b) {
  if (b && !set_has(s, b)) vec_push(a, s, (void *)b);
}

static void set_union(Arena *a, KirBufferSet *s, const KirBufferSet *t) {
  for (int i = 0; i < t->len; i++) set_add(a, s, item(t, i));
}

/* t's local buffers added to s */
static void add_local(Arena *a, KirBufferSet *s, const KirBufferSet *t) {
  for (int i = 0; i < t->len; i++)
    if (item(t, i)->space == KSP_LOCAL) set_add(a, s, item(t, i));
}

/* a's items in b, in a's order */
static KirBufferSet set_intersect(Arena *ar, const KirBufferSet *a, const KirBufferSet *b) {
  KirBufferSet r = {0};
  for (int i = 0; i < a->len; i++)
    if (set_has(b, item(a, i))) set_add(ar, &r, item(a, i));
  return r;
}

/* s without its buffers in local memory (loc) and in global memory (glob) */
static void remove_space(KirBufferSet *s, bool loc, bool glob) {
  int n = 0;
  for (int i = 0; i < s->len; i++) {
    KirSpace sp = item(s, i)->space;
    if ((sp == KSP_LOCAL && loc) || (sp == KSP_GLOBAL && glob)) continue;
    s->items[n++] = s->items[i];
  }
  s->len = n;
}

/* 'a', 'b' and 'c', for comments */
static const char *names_of(Arena *a, const KirBufferSet *s) {
  Buf b;
  buf_init(&b, a);
  for (int i = 0; i < s->len; i++) emit(&b, "%s'%s'", i ? (i + 1 == s->len ? " and " : ", ") : "", item(s, i)->name);
  return b.data;
}

/* ---- barriers ---- */

/* A barrier fencing local memory for local buffers, global memory for
 * global ones (spec section 8). */
static KirStmt *barrier_for(Pass *p, const KirBufferSet *need) {
  KirStmt *s = kir_stmt(p->arena, KS_BARRIER);
  for (int i = 0; i < need->len; i++) {
    s->barrier.local = s->barrier.local || item(need, i)->space == KSP_LOCAL;
    s->barrier.global = s->barrier.global || item(need, i)->space == KSP_GLOBAL;
  }
  if (!s->barrier.local) s->barrier.global = true;
  return s;
}

/* a barrier at the site (appended to out, the block being rebuilt): what
 * it fences is no longer pending */
static void fence(Pass *p, KirBlock *out, KirStmt *s) {
  kir_append(out, s);
  p->nbarriers++;
  p->local_unfenced = false;
  p->group_stage_fenced = false;
  remove_space(&p->pending_writes, s->barrier.local, s->barrier.global);
  remove_space(&p->pending_reads, s->barrier.local, s->barrier.global);
}

/* Pending writes to local memory that a command writes again.  Global
 * memory is left out: its buffers share one root binder per output (pairs
 * of arrays), and work-groups are not ordered by a barrier anyway (spec
 * section 5). */
static KirBufferSet local_waw(Pass *p, const KirBufferSet *writes) {
  KirBufferSet waw = set_intersect(p->arena, writes, &p->pending_writes);
  remove_space(&waw, false, true);
  return waw;
}

/* ---- where no barrier can go (spec section 5) ---- */

static const SiteAt *site_at(const Pass *p, int i) { return &p->sites[i]; }

/* what runs after site i, whose code ends at site end: the sites after
 * end, and those of the outermost loop around it before it */
static KirBufferSet reads_after(Pass *p, int i, int end) {
  KirBufferSet reads = {0};
  int from = site_at(p, i)->loop_start;
  for (int j = from >= 0 ? from : end + 1; j < p->nsites; j++) {
    if (j == i) j = end + 1; /* the command's own reads are its own affair */
    if (j < p->nsites && site_at(p, j)->site->kind == KSITE_COMMAND)
      set_union(p->arena, &reads, &site_at(p, j)->site->reads);
  }
  return reads;
}

/* The cases of the one "no barrier" check (E0604). */
typedef enum NoBarrier {
  /* site reads what other work-items of the group wrote since the last
   * barrier, where not every work-item of the group gets (unordered: those) */
  NB_DIVERGENT,
  /* what the parforGlobal or parforWorkgroup of site writes, the commands
   * after it read: no barrier orders work-groups */
  NB_ACROSS_GROUPS,
  /* what one work-item writes under a single writer's guard over the
   * NDRange, the others read after it */
  NB_ONE_WRITER,
} NoBarrier;

/* Reports E0604 at the site's command when the accesses of that kind need
 * a barrier where none can go (unordered: NB_DIVERGENT's buffers); true if
 * it did. */
static bool no_barrier(Pass *p, const KirSite *site, NoBarrier where, const KirBufferSet *unordered) {
  KirBufferSet bad = {0};
  if (where == NB_DIVERGENT) bad = *unordered;
  else {
    /* the code of the command: the parallel loop or guard its next site
     * begins (none: the lowering refused the command and said why) */
    int i = p->at;
    KirSiteKind begins = where == NB_ONE_WRITER ? KSITE_SOLO : KSITE_PARFOR;
    if (i + 1 >= p->nsites || site_at(p, i + 1)->site->kind != begins) return false;
    int end = site_at(p, i + 1)->end;
    KirBufferSet reads = reads_after(p, i, end);
    bad = set_intersect(p->arena, &site->writes, &reads);
  }
  if (!bad.len) return false;
  const char *names = names_of(p->arena, &bad);
  DPIA_EXHAUSTIVE_BEGIN
  switch (where) {
  case NB_DIVERGENT:
    diag_error(p->diag, ERR_NO_BARRIER, site->span,
               "this reads %s, written by other work-items of the group before it, which needs a "
               "barrier, but not all work-items of the group reach this point",
               names);
    break;
  case NB_ACROSS_GROUPS:
    diag_error(p->diag, ERR_NO_BARRIER, site->span,
               "%s written by this %s is read later in the same kernel, but OpenCL has no barrier "
               "across work-groups; split the computation into two kernels",
               names, site->what);
    break;
  case NB_ONE_WRITER:
    diag_error(p->diag, ERR_NO_BARRIER, site->span,
               "%s is computed once, by one work-item, and read later by the others, but OpenCL has no barrier "
               "across work-groups to order them; compute it inside the map that reads it, or split the "
               "computation into two kernels",
               names);
    break;
  }
  DPIA_EXHAUSTIVE_END
  p->failed = true;
  return true;
}

/* ---- the pointwise rule before a command (own_elements.c) ---- */

static bool exempt_has(const Pass *p, const KirBuffer *b) {
  for (int i = 0; i < p->exempt.len; i++)
    if (((const Exempt *)p->exempt.items[i])->buffer == b) return true;
  return false;
}

/* the command of a block at depth or deeper is done: its proofs no longer hold */
static void exempt_drop(Pass *p, int depth) {
  int n = 0;
  for (int i = 0; i < p->exempt.len; i++)
    if (((const Exempt *)p->exempt.items[i])->depth < depth) p->exempt.items[n++] = p->exempt.items[i];
  p->exempt.len = n;
}

/* A local buffer pending before a command (out: the block so far) that
 * needs no barrier there: since the last barrier (out's last one fencing
 * local memory, or the block's beginning if it was not pending then) and
 * through the command's code (up to the block's next command), each
 * work-item touches only elements of it that no other work-item touches,
 * as the accumulator an initialising mapLocal fills and the reduction's
 * loop then updates in place (docs/language.md section 2.1): what a
 * work-item reads there it wrote itself, in program order.  Proven on the
 * kernel IR as at a loop's back edge (loop_carried); the proof holds for
 * the commands nested in the command's code too (Pass.exempt). */
static bool own_pending(Pass *p, const KirBlock *out, const KirBuffer *b) {
  if (exempt_has(p, b)) return true;
  if (b->space != KSP_LOCAL || !b->var || !p->command_code) return false;
  /* PoCL 3.1 miscompiles a parforLocal followed, with no barrier between,
   * by a loop with barriers in a work-group loop (the accumulator read
   * back unwritten: tests/diff/regress/pocl_group_loop_local_pair.dpia,
   * as pocl_after_guard says): there the barrier stays */
  if (p->pocl && p->group_loop_depth > 0 && p->local_unfenced) return false;
  const KirStmt *from = out->first;
  bool fenced = false;
  for (const KirStmt *s = out->first; s; s = s->next)
    if (s->kind == KS_BARRIER && !s->barrier.site && s->barrier.local) {
      from = s->next;
      fenced = true;
    }
  if (!fenced && p->entry_pending && set_has(p->entry_pending, b)) return false;
  const KirStmt *stop = p->command_code;
  while (stop && !(stop->kind == KS_BARRIER && stop->barrier.site && stop->barrier.site->kind == KSITE_COMMAND))
    stop = stop->next;
  /* the command's code itself uses it (else the proof is the next
   * command's, where a barrier, if one is needed, goes as it did) */
  KirStmtRange code[2] = {{p->command_code, stop}, {from, NULL}};
  if (!kir_own_elements_in(ids_of(p), code, 1, b->var) || !kir_own_elements_in(ids_of(p), code, 2, b->var))
    return false;
  Exempt *e = NEW(p->arena, Exempt);
  *e = (Exempt){b, p->depth};
  vec_push(p->arena, &p->exempt, e);
  return true;
}

/* need without the buffers own_pending proves need no barrier (called
 * through drop_own_pending: most needs are empty) */
static void drop_own_pending_of(Pass *p, const KirBlock *out, KirBufferSet *need) {
  int n = 0;
  for (int i = 0; i < need->len; i++)
    if (!own_pending(p, out, item(need, i))) need->items[n++] = need->items[i];
  need->len = n;
}

static inline void drop_own_pending(Pass *p, const KirBlock *out, KirBufferSet *need) {
  if (need->len) drop_own_pending_of(p, out, need);
}

/* The barrier a command needs before it: pending writes it reads, pending
 * reads it writes, pending local writes it writes (the latter two only
 * where barriers may go: elsewhere a pending write it reads is an error,
 * reported once: what is left pending is then taken as fenced). */
static void sync_before(Pass *p, KirBlock *out, const KirSite *site) {
  exempt_drop(p, p->depth); /* the block's previous command is done */
  KirBufferSet need = {0};
  if (p->pending_writes.len) need = set_intersect(p->arena, &p->pending_writes, &site->reads);
  drop_own_pending(p, out, &need);
  if (!p->uniform) {
    if (no_barrier(p, site, NB_DIVERGENT, &need)) p->pending_writes.len = 0;
    return;
  }
  if (p->pending_reads.len || p->pending_writes.len) {
    KirBufferSet war = set_intersect(p->arena, &site->writes, &p->pending_reads), waw = local_waw(p, &site->writes);
    drop_own_pending(p, out, &war);
    drop_own_pending(p, out, &waw);
    set_union(p->arena, &need, &war);
    set_union(p->arena, &need, &waw);
  }
  if (need.len) fence(p, out, barrier_for(p, &need));
}

/* What the next iteration of a loop whose body is site's needs: it reads
 * pending writes, overwrites pending reads, or writes again a local buffer
 * it wrote, not counting writes indexed by the loop's variable (the
 * iterations write disjoint parts, as a row-by-row copy into local memory
 * does: SHOC's Stencil2D has no barrier there). */
static KirBufferSet loop_carried(Pass *p, const KirSite *site, const KirBlock *body) {
  KirBufferSet need = set_intersect(p->arena, &p->pending_writes, &site->reads);
  KirBufferSet war = set_intersect(p->arena, &site->writes, &p->pending_reads), waw = local_waw(p, &site->unindexed);
  set_union(p->arena, &need, &war);
  set_union(p->arena, &need, &waw);
  /* The pointwise rule through nested levels: a local buffer of which
   * each work-item touches in the body (every step alike) only an element
   * no other work-item touches (a work-group's accumulator updated in
   * place by nested mapLocals, docs/language.md section 2.1) carries
   * nothing from one work-item's step to another's (own_elements.c).
   * Before the first step, what the loop reads was fenced before it
   * (sync_before of the loop's command); after the last, the pending sets
   * keep it. */
  int n = 0;
  for (int i = 0; i < need.len; i++) {
    const KirBuffer *b = item(&need, i);
    if (b->space == KSP_LOCAL && (exempt_has(p, b) || kir_own_elements(ids_of(p), body, b->var))) continue;
    need.items[n++] = (void *)b;
  }
  need.len = n;
  return need;
}

/* The barrier a loop needs between iterations, at the top of its body
 * (out: the body being rebuilt), where it also runs, harmlessly, before
 * the first iteration.  The pending sets are left as they are (the last
 * iteration ends without a barrier). */
static void loop_top_barrier(Pass *p, KirBlock *out, const KirSite *site) {
  if (!p->uniform) return;
  KirBufferSet need = loop_carried(p, site, out);
  if (!need.len) return;
  KirStmt *s = barrier_for(p, &need);
  s->comment = arena_printf(p->arena, "the previous iteration is done with %s", names_of(p->arena, &need));
  kir_insert_after(out, NULL, s);
  p->nbarriers++;
}

/* In the body of mapGlobals over every dimension of the NDRange (no
 * work-groups around), a sequential loop runs in one work-item: what it
 * writes is that work-item's own, so reading it back in the next
 * iteration, or writing again what it read, needs no barrier.  One there
 * only split PoCL's work-item loops (and crashed its compiler:
 * regress/global_loop_no_barrier.dpia, seed 62 #1671). */
static bool in_own_work_item(const Pass *p) {
  return p->group_depth == 0 && p->local_dims == 0 && __builtin_popcount(p->global_dims) == p->ndims;
}

/* The end of the body of a loop that not every work-item of the group
 * runs equally often (place_loop_body): what the next step would need a
 * barrier for is refused, but for what the work-item wrote itself in this
 * work-item's body (its own part: reading it back, or writing again what
 * it read, is ordered by the work-item's program order) */
static void divergent_loop_end(Pass *p, const KirSite *site, const KirBlock *body) {
  KirBufferSet need = loop_carried(p, site, body);
  int n = 0;
  for (int i = 0; i < need.len; i++)
    if (!set_has(&p->own_writes, item(&need, i)) || set_has(&p->pending_writes, item(&need, i)))
      need.items[n++] = need.items[i];
  need.len = n;
  no_barrier(p, site, NB_DIVERGENT, &need);
}

/* The end of a sequential loop's body (entry: the barriers placed before
 * the body began).  When its barrier would be the body's only one it goes
 * at the top instead, as for a work-group loop: a loop whose one barrier
 * stands just before its latch makes PoCL 3.1's loopvec method abort
 * (regress/pocl_loop_end_barrier_reduce.dpia).  With other barriers in the
 * body it stays at the end, where it clears the pending sets. */
static void loop_end(Pass *p, KirBlock *out, const KirSite *site, int entry) {
  if (p->divergent_loop && !p->uniform && !in_own_work_item(p)) {
    divergent_loop_end(p, site, out);
    return;
  }
  if (!p->uniform || in_own_work_item(p)) return;
  if (p->nbarriers == entry) {
    loop_top_barrier(p, out, site);
    return;
  }
  KirBufferSet need = loop_carried(p, site, out);
  if (need.len) fence(p, out, barrier_for(p, &need));
}

/* ---- the barriers for PoCL 3.1 ---- */

/* a barrier fencing both memories or global memory only, for PoCL */
static void pocl_barrier(Pass *p, KirBlock *out, bool local, const char *why) {
  KirStmt *s = kir_stmt(p->arena, KS_BARRIER);
  s->comment = why;
  s->barrier.local = local;
  s->barrier.global = true;
  kir_append(out, s);
  p->nbarriers++;
  remove_space(&p->pending_writes, local, true);
  remove_space(&p->pending_reads, local, true);
  if (local) p->local_unfenced = false;
  p->group_stage_fenced = false;
}

/* Before a parforLocal in the body of a work-group loop, when another
 * parforLocal or a single writer ran since the last barrier: PoCL 3.1
 * (its default, loopvec, work-group method) miscompiles the pair, so that
 * writes of the loop's iterations are lost or read back unwritten.  Seen
 * where the first was written by one work-item (a single writer's guard:
 * tests/diff/regress/pocl_2d_local_loop.dpia, pocl_guarded_local_pair.dpia)
 * and where both were guarded by local id bounds, a sequential loop with
 * barriers following (regress/pocl_group_loop_local_pair.dpia,
 * known/pocl_group_loop_local_pair.cl; right with
 * POCL_WORK_GROUP_METHOD=cbs, with a barrier between the two, or without
 * the work-group loop), and where the first was a body one work-item of
 * the group writes (regress/pocl_single_writer_loop.dpia, wrong with every
 * work-group method).  No barrier is needed there, but one is harmless
 * where every work-item of the group gets. */
static void pocl_after_guard(Pass *p, KirBlock *out) {
  if (!p->uniform || p->group_loop_depth == 0 || !p->local_unfenced) return;
  pocl_barrier(p, out, true, "PoCL 3.1 needs one here in a work-group loop");
}

/* Before a parforWorkgroup of the kernel body that follows one run by
 * some groups only (at most once, or a loop) whose body has barriers, with
 * no barrier since: PoCL 3.1's compiler crashed (signal 11, with every
 * work-group method) on such a pair where the first body's parforLocals
 * were single writers (tests/diff/regress/pocl_group_stage_crash.dpia,
 * known/pocl_group_stage_crash.cl; right with a barrier between the two).
 * No barrier is needed there, and one is harmless at the top level, where
 * every work-item gets. */
static void pocl_after_group_stage(Pass *p, KirBlock *out) {
  if (!p->uniform || p->group_depth > 0 || !p->group_stage_fenced) return;
  pocl_barrier(p, out, false, "PoCL 3.1 needs one after a work-group stage with barriers");
}

/* b holds a loop whose body holds a loop (at any depth) */
static bool holds_nest(const KirBlock *b, int loops) {
  for (const KirStmt *s = b->first; s; s = s->next) {
    const KirBlock *body = kir_body((KirStmt *)s);
    if (body && holds_nest(body, loops + (s->kind == KS_FOR))) return true;
    if (s->kind == KS_FOR && loops > 0) return true;
  }
  return false;
}

/* Between a barrier that joins the branches of the statement before it
 * (an if: a parforLocal's test of the id, a single writer's guard; or a
 * loop, whose exit is a join too) and the guard of a group's single
 * writer whose body holds a loop nest, in a work-group loop: PoCL 3.1
 * (cbs and loopvec) drops that body whole, its stores lost, where the
 * inner loop's bound is not a constant (its test for no steps is one more
 * branch in the nest; tests/diff/known/pocl_group_loop_single_writer_nest.cl,
 * regress/pocl_single_writer_nest_lost_store.dpia).  Its work-group
 * compiler replicates the code after such a join (barrier tail
 * replication); with a second barrier, whose region is empty, it does not,
 * and the nest is compiled right.  No barrier is needed there, and one is
 * harmless where every work-item gets.  out ends with the barrier before
 * the command at hand, next is its code. */
static void pocl_before_single_writer_nest(Pass *p, KirBlock *out, const KirStmt *next) {
  if (!p->uniform || p->group_loop_depth == 0 || !out->last || out->last->kind != KS_BARRIER) return;
  if (!next || next->kind != KS_IF || !next->cond.body.first) return;
  const KirStmt *site = next->cond.body.first;
  if (site->kind != KS_BARRIER || !site->barrier.site || site->barrier.site->kind != KSITE_SOLO ||
      !site->barrier.site->group || !holds_nest(&next->cond.body, 0))
    return;
  const KirStmt *before = NULL;
  for (const KirStmt *s = out->first; s != out->last; s = s->next) before = s;
  if (!before || (before->kind != KS_IF && before->kind != KS_FOR)) return;
  pocl_barrier(p, out, false, "PoCL 3.1 needs one here before a single writer's loop nest");
}

/* The same join before the guard of a parforLocal's single writer (the
 * body of a parforLocal in one dimension written by the work-item of local
 * id 0 in another: `int lid = get_local_id(1); if (get_local_id(0) == 0)
 * { ... }`), in a work-group loop: PoCL 3.1 loses or misreads its stores
 * even where the guarded body holds no loop
 * (tests/diff/regress/pocl_group_loop_single_writer_after_guarded_loop.dpia,
 * right on Oclgrind, with no race; right on PoCL with a second barrier, or
 * without the work-group loop).  out ends with the barrier before the
 * parforLocal, next is its code: the id's declaration, then the guard. */
static void pocl_before_local_single_writer(Pass *p, KirBlock *out, const KirStmt *next) {
  if (!p->uniform || p->group_loop_depth == 0 || !out->last || out->last->kind != KS_BARRIER) return;
  while (next && (next->kind == KS_DECL || next->kind == KS_COMMENT ||
                  (next->kind == KS_BARRIER && next->barrier.site && next->barrier.site->kind == KSITE_PARFOR)))
    next = next->next;
  if (!next || next->kind != KS_IF || !next->cond.body.first) return;
  const KirStmt *site = next->cond.body.first;
  if (site->kind != KS_BARRIER || !site->barrier.site || site->barrier.site->kind != KSITE_SOLO) return;
  const KirStmt *before = NULL;
  for (const KirStmt *s = out->first; s != out->last; s = s->next) before = s;
  if (!before || (before->kind != KS_IF && before->kind != KS_FOR)) return;
  pocl_barrier(p, out, true, "PoCL 3.1 needs a second one before this single writer");
}

/* ---- the sites ---- */

static void enter(Pass *p, const KirSite *site) {
  Frame *f = NEW(p->arena, Frame);
  *f = (Frame){.site = site,
               .uniform = p->uniform,
               .pointwise = p->pointwise,
               .group_dims = p->group_dims,
               .local_dims = p->local_dims,
               .global_dims = p->global_dims,
               .own_writes = p->own_writes,
               .barriers_before = p->nbarriers,
               .up = p->frames};
  p->frames = f;
}

static Frame *leave(Pass *p, KirSiteKind begins) {
  Frame *f = p->frames;
  if (!f || f->site->kind != begins) INTERNAL("a barrier site ends what it does not begin");
  p->frames = f->up;
  return f;
}

/* a parallel loop's body begins */
static void parfor_begin(Pass *p, const KirSite *site) {
  enter(p, site);
  Frame *f = p->frames;
  unsigned bit = 1u << site->dim;
  if (site->level == KL_WORKGROUP) {
    /* a new group body: its own pending sets.  A parforWorkgroup nested in
     * another's body runs in the same work-groups: what the enclosing body
     * left pending stays pending in it, and what it leaves pending is
     * pending after it, for the rest of the enclosing body and for the top
     * of an enclosing work-group loop (the next group id reuses local
     * memory the nested body read: seed 7358 #430,
     * tests/diff/regress/nested_workgroup_loop_back_edge.dpia) */
    f->nested_group = p->group_depth > 0;
    f->pending_writes = p->pending_writes;
    f->pending_reads = p->pending_reads;
    f->local_unfenced = p->local_unfenced;
    if (!f->nested_group) {
      p->pending_writes = (KirBufferSet){0};
      p->pending_reads = (KirBufferSet){0};
      p->local_unfenced = false;
    }
    if (site->form == KF_LOOP) p->group_loop_depth++;
    p->group_depth++;
    p->group_dims |= bit;
    return;
  }
  /* Inside the body, what it wrote is the work-item's own (a temporary
   * allocated in the body is widened by the index when hoisted, and the
   * output is written through o only, SCIR): reading it needs no barrier.
   * After the loop, other work-items read it. */
  p->own_writes = (KirBufferSet){0};
  p->uniform = p->uniform && site->form == KF_ONCE;
  p->distributed++;
  if (site->pointwise) p->pointwise = site->accumulator;
  if (site->level == KL_LOCAL) p->local_dims |= bit;
  else
    p->global_dims |= bit;
}

static void parfor_end(Pass *p, KirBlock *out, const KirSite *end) {
  Frame *f = leave(p, KSITE_PARFOR);
  const KirSite *site = f->site;
  if (site->level == KL_WORKGROUP) {
    /* the next group id of this work-group reuses its memory */
    if (site->form == KF_LOOP) loop_top_barrier(p, out, end);
    bool fenced = site->form != KF_ONCE && p->nbarriers > f->barriers_before;
    p->group_depth--;
    if (site->form == KF_LOOP) p->group_loop_depth--;
    p->group_dims = f->group_dims;
    if (!f->nested_group) {
      p->local_unfenced = f->local_unfenced;
      p->pending_writes = f->pending_writes;
      p->pending_reads = f->pending_reads;
    }
    if (fenced && p->group_depth == 0) p->group_stage_fenced = true;
    return;
  }
  p->local_dims = f->local_dims;
  p->global_dims = f->global_dims;
  p->distributed--;
  p->uniform = f->uniform;
  /* an accumulator updated in place: after the loop, a write by another
   * work-item needs a barrier */
  if (site->pointwise && p->pointwise) set_add(p->arena, &p->pending_reads, p->pointwise);
  p->pointwise = f->pointwise;
  set_union(p->arena, &p->pending_writes, &p->own_writes);
  p->own_writes = f->own_writes;
  if (site->level == KL_LOCAL) p->local_unfenced = true;
}

/* A single writer's guard: one work-item runs the code, so no barrier may
 * go in it (a barrier in a sequential loop there hung PoCL: seed 52 #730).
 * A single writer of a command (not of a parforLocal's body) writes its
 * own, which the others read after a barrier. */
static void solo_begin(Pass *p, const KirSite *site) {
  enter(p, site);
  p->uniform = false;
  if (site->local) {
    p->local_unfenced = true;
    return;
  }
  p->own_writes = (KirBufferSet){0};
  p->distributed++;
}

static void solo_end(Pass *p) {
  Frame *f = leave(p, KSITE_SOLO);
  p->uniform = f->uniform;
  if (f->site->local) return;
  p->distributed--;
  set_union(p->arena, &p->pending_writes, &p->own_writes);
  p->own_writes = f->own_writes;
  /* a parforLocal right after it in a work-group loop gets a barrier
   * first (pocl_after_guard; seed 63 #892) */
  if (f->site->group) p->local_unfenced = true;
}

/* what the lowering accessed before the site: a write in a work-item's
 * body is its own, a read (but of the accumulator it updates in place)
 * pending */
static inline void note_accesses(Pass *p, const KirSite *site) {
  for (int i = 0; i < site->naccesses; i++) {
    const KirAccess *x = &site->accesses[i];
    if (x->write) {
      if (p->distributed > 0) set_add(p->arena, &p->own_writes, x->buffer);
    } else if (x->buffer != p->pointwise) {
      set_add(p->arena, &p->pending_reads, x->buffer);
    }
  }
}

/* the barriers of one site, appended to out (or put at its top) */
static void at_site(Pass *p, KirBlock *out, const KirSite *site, int entry) {
  note_accesses(p, site);
  DPIA_EXHAUSTIVE_BEGIN
  switch (site->kind) {
  case KSITE_COMMAND:
    /* code that would need a barrier across work-groups is not placed:
     * what it would leave pending is not */
    if (site->one_writer && no_barrier(p, site, NB_ONE_WRITER, NULL)) {
      p->skip_until = site_at(p, p->at + 1)->end;
      return;
    }
    if (p->pocl && site->level == KL_LOCAL) pocl_after_guard(p, out);
    if (p->pocl && site->level == KL_WORKGROUP) pocl_after_group_stage(p, out);
    sync_before(p, out, site);
    if (p->pocl && site->level == KL_NONE) pocl_before_single_writer_nest(p, out, p->command_code);
    if (p->pocl && site->level == KL_LOCAL) pocl_before_local_single_writer(p, out, p->command_code);
    /* OpenCL has no barrier across work-groups: nothing after a grid-level
     * loop of the group-less code may read what its groups wrote */
    if ((site->level == KL_GLOBAL || site->level == KL_WORKGROUP) && p->uniform && p->distributed == 0)
      no_barrier(p, site, NB_ACROSS_GROUPS, NULL);
    return;
  case KSITE_LOOP_END: loop_end(p, out, site, entry); return;
  case KSITE_PARFOR: parfor_begin(p, site); return;
  case KSITE_PARFOR_END: parfor_end(p, out, site); return;
  case KSITE_SOLO: solo_begin(p, site); return;
  case KSITE_SOLO_END: solo_end(p); return;
  }
  DPIA_EXHAUSTIVE_END
}

static void place_block(Pass *p, KirBlock *b);

/* ---- a run of steps (KS_RUN) ---- */

static bool meets(const KirBufferSet *a, const KirBufferSet *b, bool local_only) {
  for (int i = 0; i < a->len; i++)
    if ((!local_only || item(a, i)->space == KSP_LOCAL) && set_has(b, item(a, i))) return true;
  return false;
}

/* The sites of a run's steps need no barrier and report nothing, every
 * step's as the first's: each is a command of no parallel level
 * (KL_NONE, no single writer: at_site then only notes its accesses and
 * syncs before it), followed in the template by its statements (the
 * PoCL rule before a single writer's nest looks at an if there: none),
 * and before none of them does sync_before find a buffer to fence,
 * taking the pending reads with every read the run's sites note
 * (own_pending is not asked: with nothing found it would have nothing to
 * prove).  No barrier being placed, the pending writes stay as they are
 * and the reads noted are the same at every step: what the first step's
 * sites find, every step's do. */
static bool run_needs_nothing(Pass *p, const KirStmt *run) {
  KirBufferSet reads = {0};
  set_union(p->arena, &reads, &p->pending_reads);
  for (const KirStmt *t = run->run.body.first; t; t = t->next) {
    if (kir_run_template_stmt(t)) continue;
    const KirSite *site = t->barrier.site;
    if (site->kind != KSITE_COMMAND || site->level != KL_NONE || site->one_writer || !t->next ||
        !kir_run_template_stmt(t->next))
      return false;
    for (int i = 0; i < site->naccesses; i++)
      if (!site->accesses[i].write && site->accesses[i].buffer != p->pointwise)
        set_add(p->arena, &reads, site->accesses[i].buffer);
  }
  for (const KirStmt *t = run->run.body.first; t; t = t->next) {
    if (kir_run_template_stmt(t)) continue;
    const KirSite *site = t->barrier.site;
    if (meets(&p->pending_writes, &site->reads, false)) return false;
    if (p->uniform && (meets(&site->writes, &reads, false) || meets(&site->writes, &p->pending_writes, true)))
      return false;
  }
  return true;
}

/* A run (s, after prev in the block, whose rebuilt part is out): where its
 * sites need nothing (run_needs_nothing), it stays, its sites' accesses
 * noted; else its steps are written out with their sites, which
 * place_block then takes as lowering's (they are not among Pass.sites,
 * and at_site asks the index of none of them: a command of no parallel
 * level that is no single writer).  Returns the statement to go on with. */
static KirStmt *place_run(Pass *p, KirBlock *out, KirStmt *s) {
  KirStmt *next = s->next;
  if (p->at <= p->skip_until) { /* in code refused: its sites skipped, as the steps' would be */
    kir_append(out, s);
    return next;
  }
  if (run_needs_nothing(p, s)) {
    exempt_drop(p, p->depth); /* the block's previous command is done */
    for (const KirStmt *t = s->run.body.first; t; t = t->next)
      if (!kir_run_template_stmt(t)) note_accesses(p, t->barrier.site);
    kir_append(out, s);
    return next;
  }
  KirBlock steps = kir_run_steps(p->arena, s, true);
  if (!steps.first) return next;
  for (const KirStmt *t = steps.first; t; t = t->next) p->uncounted += t->kind == KS_BARRIER;
  steps.last->next = next;
  return steps.first;
}

/* Does e read memory (an element, a field or lane of one, a vector load,
 * a call)?  Not a test the barrier pass may take as alike across the
 * group, nor one the kernel IR's invariant lets a barrier stand under
 * (kir.c, check_block) */
static bool reads_memory(const KirExpr *e) {
  if (!e) return false;
  if (e->kind == KE_INDEX || e->kind == KE_VLOAD || e->kind == KE_CALL) return true;
  const KirExpr *buf[3], *const *sub;
  int n = kir_expr_children(e, buf, &sub);
  for (int i = 0; i < n; i++)
    if (reads_memory(sub[i])) return true;
  return false;
}

/* The body of an if on data (a select whose sides compute, stage1.c's
 * select_if: `if (tmp[0] > 0.0f)`): not every work-item of the group is
 * shown to take it, so no barrier can go in it, and one its code would
 * need is refused (E0604, as in a loop whose bounds are not alike)
 * rather than placed under the test, which broke the kernel IR's
 * invariant (an internal error: gen.py --seed 1141 --index 667, gen49's
 * check sweep) */
static void place_data_if_body(Pass *p, KirStmt *s) {
  bool uniform = p->uniform;
  p->uniform = false;
  place_block(p, &s->cond.body);
  p->uniform = uniform;
}

/* A loop's body.  A loop whose bounds every work-item of the group has
 * alike (kir_group_alike) runs as often in each, and its variable is
 * alike in its body.  Else (a dependent map's row of M - gid elements,
 * tests/diff/regress/dep_map_global1_row_barrier.dpia) not every
 * work-item of the group gets to its body equally often: no barrier can
 * go there, one the body needs is refused (E0604, sync_before and
 * loop_end), and the loop's variable is not alike. */
static void place_loop_body(Pass *p, KirStmt *s) {
  const KirIdNames *ids = constant_bound(s->loop.init) && constant_bound(s->loop.bound) && constant_bound(s->loop.step)
                              ? p->ids
                              : ids_of(p);
  bool alike = kir_group_alike(ids, s->loop.init, &p->alike) && kir_group_alike(ids, s->loop.bound, &p->alike) &&
               kir_group_alike(ids, s->loop.step, &p->alike);
  bool uniform = p->uniform, divergent = p->divergent_loop;
  if (alike) vec_push(p->arena, &p->alike, (void *)s->loop.var);
  else
    p->uniform = false;
  p->divergent_loop = divergent || (uniform && !alike);
  place_block(p, &s->loop.body);
  if (alike) p->alike.len--;
  p->uniform = uniform;
  p->divergent_loop = divergent;
}

/* the pass over one block, rebuilt with the barriers in place of the sites */
static void place_block(Pass *p, KirBlock *b) {
  KirBlock out = {0};
  int entry = p->nbarriers;
  /* only local buffers: own_pending asks of no other (a kernel of many
   * private or global buffers pending, 2^14 stages in sequence, would
   * copy them all at every block: tests/limits) */
  KirBufferSet at_entry = {0};
  add_local(p->arena, &at_entry, &p->pending_writes);
  add_local(p->arena, &at_entry, &p->pending_reads);
  const KirBufferSet *outer_entry = p->entry_pending;
  p->entry_pending = &at_entry;
  p->depth++;
  for (KirStmt *s = b->first, *next; s; s = next) {
    next = s->next;
    if (s->kind == KS_BARRIER && s->barrier.site) {
      p->command_code = next;
      /* a site of a run written out (place_run) is not among the sites */
      if (p->at > p->skip_until || p->uncounted) at_site(p, &out, s->barrier.site, entry);
      if (p->uncounted)
        p->uncounted--;
      else
        p->at++;
      continue;
    }
    KirBlock *body = kir_body(s);
    if (body && s->kind == KS_FOR) place_loop_body(p, s);
    else if (body && s->kind == KS_IF && reads_memory(s->cond.cond))
      place_data_if_body(p, s);
    else if (body) place_block(p, body);
    else if (s->kind == KS_RUN) {
      next = place_run(p, &out, s);
      continue;
    }
    kir_append(&out, s);
  }
  exempt_drop(p, p->depth);
  p->depth--;
  p->entry_pending = outer_entry;
  *b = out;
}

static bool any_local(const KirBufferSet *s) {
  for (int i = 0; i < s->len; i++)
    if (item(s, i)->space == KSP_LOCAL) return true;
  return false;
}

/* what a site asks of the pass: the ids, where it names a local buffer
 * (Pass.ids_wanted); the placement, where it reads, updates an
 * accumulator or runs a work-group loop's body (Pass.may_place) */
static inline void note_site(Pass *p, const KirSite *site) {
  for (int i = 0; i < site->naccesses; i++) {
    p->ids_wanted |= site->accesses[i].buffer->space == KSP_LOCAL;
    p->may_place |= !site->accesses[i].write;
  }
  p->ids_wanted |= any_local(&site->reads) || any_local(&site->writes) || any_local(&site->unindexed);
  p->may_place |= site->reads.len > 0 || site->accumulator ||
                  (site->kind == KSITE_PARFOR && site->level == KL_WORKGROUP && site->form == KF_LOOP);
}

/* the indices of the sites that begin code not ended yet, innermost last */
typedef struct OpenSites {
  int *at;
  int n, cap;
} OpenSites;

static void collect_sites_noting(Pass *p, const KirBlock *b, int loop_start, OpenSites *open);
static void collect_sites_known(Pass *p, const KirBlock *b, int loop_start, OpenSites *open);

/* The sites of b in order (loop_start: that of the outermost loop around
 * b, or -1); noting: what each asks of the pass (note_site, the loops'
 * bounds), which a kernel declaring a local buffer has answered before
 * (both Pass.ids_wanted and may_place true, and they only ever turn true:
 * kir_place_barriers).  One copy each way (collect_sites_noting,
 * collect_sites_known), so that neither asks at each site which it is. */
static DPIA_ALWAYS_INLINE void collect_sites_as(Pass *p, const KirBlock *b, int loop_start, OpenSites *open,
                                                bool noting) {
  for (const KirStmt *st = b->first; st; st = st->next) {
    KirBlock *body = kir_body((KirStmt *)st);
    if (noting && st->kind == KS_FOR &&
        !(constant_bound(st->loop.init) && constant_bound(st->loop.bound) && constant_bound(st->loop.step)))
      p->ids_wanted = true;
    int inner_start = loop_start < 0 && st->kind == KS_FOR ? p->nsites : loop_start;
    if (body && noting) collect_sites_noting(p, body, inner_start, open);
    else if (body) collect_sites_known(p, body, inner_start, open);
    if (st->kind != KS_BARRIER || !st->barrier.site) {
      if (!noting) continue;
      /* a run's sites are not among the sites (place_run), but ask for
       * the ids and the placement as its steps' would */
      for (const KirStmt *t = st->kind == KS_RUN ? st->run.body.first : NULL; t; t = t->next)
        if (t->kind == KS_BARRIER) note_site(p, t->barrier.site);
      continue;
    }
    const KirSite *site = st->barrier.site;
    if (noting) note_site(p, site);
    p->sites = kir_grown(p->arena, p->sites, p->nsites, &p->capsites, sizeof *p->sites);
    p->sites[p->nsites++] = (SiteAt){site, -1, loop_start};
    DPIA_EXHAUSTIVE_BEGIN
    switch (site->kind) {
    case KSITE_PARFOR:
    case KSITE_SOLO:
      open->at = kir_grown(p->arena, open->at, open->n, &open->cap, sizeof *open->at);
      open->at[open->n++] = p->nsites - 1;
      break;
    case KSITE_PARFOR_END:
    case KSITE_SOLO_END:
      if (!open->n) INTERNAL("a barrier site ends what no site begins");
      p->sites[open->at[--open->n]].end = p->nsites - 1;
      break;
    case KSITE_COMMAND:
    case KSITE_LOOP_END: break;
    }
    DPIA_EXHAUSTIVE_END
  }
}

static void collect_sites_noting(Pass *p, const KirBlock *b, int loop_start, OpenSites *open) {
  collect_sites_as(p, b, loop_start, open, true);
}

static void collect_sites_known(Pass *p, const KirBlock *b, int loop_start, OpenSites *open) {
  collect_sites_as(p, b, loop_start, open, false);
}

/* b without its barrier sites (where none can need a barrier: Pass.may_place) */
static void strip_sites(KirBlock *b) {
  KirBlock out = {0};
  for (KirStmt *s = b->first, *next; s; s = next) {
    next = s->next;
    if (s->kind == KS_BARRIER && s->barrier.site) continue;
    KirBlock *body = kir_body(s);
    if (body) strip_sites(body);
    kir_append(&out, s);
  }
  *b = out;
}

/* b without its barriers (a group of one work-item: kir_place_barriers) */
static void drop_barriers(KirBlock *b) {
  KirBlock out = {0};
  for (KirStmt *s = b->first, *next; s; s = next) {
    next = s->next;
    if (s->kind == KS_BARRIER) continue;
    KirBlock *body = kir_body(s);
    if (body) drop_barriers(body);
    kir_append(&out, s);
  }
  *b = out;
}

bool kir_place_barriers(Arena *a, Diag *diag, KirKernel *k, int ndims, bool pocl, bool no_shortcuts) {
  Pass p = {.arena = a,
            .diag = diag,
            .ndims = ndims > 0 ? ndims : 1,
            .pocl = pocl,
            .uniform = true,
            .skip_until = -1};
  /* a local buffer the kernel declares, whether or not a site names it
   * (asked first: then collect_sites need not ask its sites) */
  for (int i = 0; i < k->nparams; i++) p.ids_wanted |= (KParamRole)k->params[i].role == KP_LOCAL;
  for (const KirStmt *s = k->locals.first; s; s = s->next)
    p.ids_wanted |= s->kind == KS_DECL && s->decl.space == KSP_LOCAL;
  /* local buffers may be written twice (local_waw) */
  p.may_place = p.ids_wanted;
  OpenSites open = {0};
  if (p.ids_wanted) collect_sites_known(&p, &k->body, -1, &open);
  else
    collect_sites_noting(&p, &k->body, -1, &open);
  if (open.n) INTERNAL("a barrier site begins what no site ends");
  p.may_place |= p.ids_wanted;
  /* gathered before the blocks are rebuilt (place_block), from the kernel
   * as lowering made it; collect_sites changes nothing */
  if (p.ids_wanted) p.ids = kir_id_names(a, k);
  if (p.may_place || no_shortcuts) {
    place_block(&p, &k->body);
  } else {
    strip_sites(&k->body);
    k->shortcuts |= KIR_SHORTCUT_SITES;
  }
  /* A group of one work-item, its local size fixed to 1 in every
   * dimension (reqd_work_group_size(1, 1, 1): a mapWorkgroup over a
   * mapLocal of one element), has no other work-item to wait for: it reads
   * back what it wrote in program order (spec section 5), so its barriers
   * order nothing and are dropped, PoCL's too.  The pass has decided as
   * for any group (an E0604 is reported the same). */
  bool one = k->reqd_local;
  for (int d = 0; d < 3; d++) one = one && k->local_size[d] == 1;
  if (one) drop_barriers(&k->body);
  return !p.failed;
}
