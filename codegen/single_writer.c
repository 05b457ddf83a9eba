/* single_writer.c: one work-item writes what several would write alike
 * (the paper's redundant execution of sequential code, section 6), for
 * opencl.c's command generation: the commands that qualify
 * (writes_outputs_only), the guard on the ids of the dimensions that do not
 * distribute the code, and what the others may then read (the barrier
 * pass's pending writes, barrier_pass.c; docs/language.md section 20). */
#include "cgen.h"

static bool is_output(CG *cg, const Binder *root) {
  for (int i = 0; i < cg->k->nparams; i++)
    if (cg->k->params[i].role == KP_OUTPUT && cg->k->params[i].binder == root) return true;
  return false;
}

/* cond && q(d) == 0 */
static const KirExpr *and_query_zero(CG *cg, const KirExpr *cond, KirQuery q, int d) {
  Arena *a = cg->arena;
  return kir_and(a, cond, kir_binary(a, KB_EQ, kir_query(a, q, d), kir_int(a, 0)));
}

static bool size_is_one(bool known, Size n) {
  int64_t v;
  return known && size_const_value(n, &v) && v == 1;
}

/* May dimension d of the launch hold more than one work-item (or group)?
 * A dimension beyond the kernel's own has one unless the user's launch
 * gives it more (--global-size=8,4 for a kernel of one dimension: every
 * work-item of dimension 1 then runs what those of dimension 0 run). */
static bool launch_many(const CG *cg, int d, bool known, Size n) {
  int ndims = cg->k->ndims > 0 ? cg->k->ndims : 1;
  return d < ndims ? !size_is_one(known, n) : known && !size_is_one(known, n);
}

/* the dimensions in a mask of them (bits 0 to 2), at once: without
 * -mpopcnt __builtin_popcount is a call, made at every command */
static int dims_count(unsigned dims) {
  static const unsigned char count[8] = {0, 1, 1, 2, 1, 2, 2, 3};
  return dims < 8 ? count[dims] : __builtin_popcount(dims);
}

/* launch_many of every dimension, the same at every command (CG.launch_many) */
static void know_launch_many(CG *cg) {
  if (cg->launch_many.known) return;
  const Launch *l = &cg->launch;
  cg->launch_many.known = true;
  for (int d = 0; d < 3; d++) {
    if (launch_many(cg, d, l->groups_known[d], l->groups[d])) cg->launch_many.groups |= 1u << d;
    if (launch_many(cg, d, l->local_known[d], l->local[d])) cg->launch_many.local |= 1u << d;
    if (launch_many(cg, d, l->global_known[d], l->global[d])) cg->launch_many.global |= 1u << d;
  }
}

static uint32_t phrase_slot(const CG *cg, const Phrase *p) {
  uintptr_t h = (uintptr_t)p >> 4;
  return (uint32_t)(h * 2654435761u) & (cg->refused_seqs.cap - 1);
}

static bool seq_refused(const CG *cg, const Phrase *p) {
  if (!cg->refused_seqs.cap) return false;
  for (uint32_t i = phrase_slot(cg, p);; i = (i + 1) & (cg->refused_seqs.cap - 1)) {
    if (!cg->refused_seqs.slots[i]) return false;
    if (cg->refused_seqs.slots[i] == p) return true;
  }
}

static void refuse_seq(CG *cg, const Phrase *p) {
  if (2 * (cg->refused_seqs.used + 1) > cg->refused_seqs.cap) {
    const Phrase **old = cg->refused_seqs.slots;
    uint32_t old_cap = cg->refused_seqs.cap;
    cg->refused_seqs.cap = old_cap ? old_cap * 2 : 64;
    cg->refused_seqs.slots = NEWARRAY(cg->arena, const Phrase *, cg->refused_seqs.cap);
    cg->refused_seqs.used = 0;
    for (uint32_t k = 0; k < old_cap; k++)
      if (old[k]) refuse_seq(cg, old[k]);
  }
  uint32_t i = phrase_slot(cg, p);
  while (cg->refused_seqs.slots[i]) i = (i + 1) & (cg->refused_seqs.cap - 1);
  cg->refused_seqs.slots[i] = p;
  cg->refused_seqs.used++;
}

/* What a command writes besides its own private variables: any kernel
 * output or temporary in global or local memory, a temporary among them
 * (which the work-items, or the groups, that skip the command may read
 * after it), one in local memory (each group's own), and a kernel
 * output. */
typedef struct Writes {
  bool shared;
  bool temporary;
  bool local;
  bool global_temporary;
  bool output;
} Writes;

/* Does command p write nothing but kernel outputs, temporaries in global
 * or local memory and private variables it declares itself, with no
 * parallel loop inside?  *writes: what it writes of the first two.
 * inner: the private variables declared in p so far.  A part
 * of p is refused whenever p is (it sees fewer of p's variables), so a
 * refused sequence is remembered (cg->refused_seqs). */
static bool writes_outputs_only(CG *cg, const Phrase *p, BinderSet *inner, Writes *writes) {
  switch (p->kind) {
  case PH_PRIM: return p->prim == PRIM_SKIP;
  case PH_SEQ:
    if (seq_refused(cg, p)) return false;
    if (writes_outputs_only(cg, p->fst, inner, writes) && writes_outputs_only(cg, p->snd, inner, writes)) return true;
    refuse_seq(cg, p);
    return false;
  case PH_ASSIGN: {
    const Phrase *a = p->fst;
    for (;;) { /* a variable declared in p */
      if (a->kind == PH_PROJ) a = a->fst;
      if (a->kind == PH_VAR) break;
      Spine s;
      if (!spine_of(cg->arena, a, &s) || s.nargs < 1) return false;
      a = s.args[0];
    }
    if (binder_set_has(inner, a->binder)) return true;
    const Binder *root = acc_root(cg, p->fst);
    /* a temporary in global or local memory too: outside a group body,
     * where no barrier orders the others' reads after the one writer's
     * writes, the barrier pass refuses it when code after p reads it */
    bool output = root && is_output(cg, root);
    if (!root || !(output || shared_root(cg, root))) return false;
    writes->shared = true;
    writes->output |= output;
    writes->temporary |= !output;
    writes->local |= !output && cg_buffer(cg, root)->space == KSP_LOCAL;
    writes->global_temporary |= !output && cg_buffer(cg, root)->space == KSP_GLOBAL;
    return true;
  }
  case PH_APP: {
    Spine s;
    if (!spine_of(cg->arena, p, &s)) return false;
    /* if c {t, e}: either side may run, so both must qualify */
    if (s.head->kind == PH_PRIM && prim_family(s.head->prim) == PFAM_IF && s.nargs == 2 &&
        s.args[1]->kind == PH_PAIR)
      return writes_outputs_only(cg, s.args[1]->fst, inner, writes) &&
             writes_outputs_only(cg, s.args[1]->snd, inner, writes);
    /* the body: new's and for's one argument, forRange's last (after its
     * bounds, which only read) */
    if (s.nargs < 1 || s.args[s.nargs - 1]->kind != PH_LAM) return false;
    const Phrase *body = s.args[s.nargs - 1];
    /* a private variable is the work-item's own; a sequential loop
     * repeats what it does; anything else may be shared */
    PrimLevel level = prim_level(s.head->prim);
    DPIA_EXHAUSTIVE_BEGIN
    switch (prim_family(s.head->prim)) {
    case PFAM_NEW:
      if (s.nargs != 1 || (level != PLVL_NONE && level != PLVL_PRIVATE)) return false;
      binder_set_add(cg, inner, body->lam_binder);
      break;
    case PFAM_FOR:
      if (s.nargs != 1) return false;
      break;
    case PFAM_FOR_RANGE:
      if (s.nargs != 3) return false;
      break;
    case PFAM_PARFOR:
    case PFAM_MAP:
    case PFAM_REDUCE:
    case PFAM_SCAN:
    case PFAM_WINDOW:
    case PFAM_VIEW:
    case PFAM_MEMORY:
    case PFAM_SCALAR:
    case PFAM_MATH:
    case PFAM_CONVERT:
    case PFAM_FOREIGN:
    case PFAM_SKIP:
    case PFAM_VIEW_ACC:
    case PFAM_MAP_I:
    case PFAM_REDUCE_I:
    case PFAM_IF: /* above */
    case PFAM_SCAN_I:
    case PFAM_REDUCE_RANGE:
    case PFAM_WINDOW_I: return false;
    }
    DPIA_EXHAUSTIVE_END
    return writes_outputs_only(cg, body->body, inner, writes);
  }
  default: return false;
  }
}

/* Sequential code in a group body runs in every work-item of the group
 * (the paper's redundant execution), and so does the body of a parforLocal
 * in the work-items of the dimensions no enclosing parforLocal distributes.
 * Where it writes the kernel's output or a temporary in global or local
 * memory, every one of them would write the same element: a race, however
 * benign, and no program of ours is racy (Oclgrind: seed 7358 #127, #203,
 * #565; tests/diff/regress/redundant_local_stage.dpia).  So one work-item
 * writes it: local id 0 in every dimension whose local size may exceed 1
 * and that no enclosing parforLocal distributes (and group id 0 in a
 * dimension whose mapWorkgroup does not enclose the code).  Likewise
 * global id 0 for sequential code at the top of a kernel launched on more
 * than one work-item, or in the body of mapGlobals that leave a dimension
 * of the NDRange undistributed (seed 7358 #711, #594, #736).  What it
 * writes is then pending for the other work-items: in a group body a
 * barrier comes before they read it (or, where not all of them reach that
 * point, E0604); outside one, no barrier can order them, so they may not
 * read it at all. */
bool gen_single_writer(CG *cg, const Phrase *p) {
  if (cg->solo > 0) return false; /* one work-item already */
  bool group = cg->group_depth > 0;
  /* outside a group: in the body of mapGlobals only (one per dimension
   * distributed), the work-items of the other dimensions run it too: a
   * nested grid's outer body, which may write the output (padCst's
   * borders, docs/language.md section 16); in a group: at its top, or in
   * the body of parforLocals only */
  /* In a group, a mapGlobal's dimension distributes the work-items as
   * a parforLocal's does, each its own global id there, whether the
   * mapGlobal is around the mapWorkgroup (mapGlobal1 (mapWorkgroup ...))
   * or in its body across dimensions (spec section 5): the code is run
   * alike by the work-items of the other dimensions only (run_diff.py
   * --derived, seed 1100 #67: a reduceSeq's local accumulator copied by
   * every work-item of a group inside a mapGlobal1). */
  unsigned dims = group ? cg->local_dims | cg->global_dims : cg->global_dims;
  if (cg->distributed > 0 && (cg->distributed != dims_count(dims) || (!group && cg->local_dims))) return false;
  know_launch_many(cg);
  /* the dimensions whose ids the guard tests, the test itself made only
   * for a command that qualifies (most do not: every command is asked);
   * the groups of a dimension whose mapWorkgroup is not around p all run
   * p too (a nested grid's outer body), unless a mapGlobal distributes
   * it; a distributed dimension's work-items each run their own */
  unsigned group_ids = group ? cg->launch_many.groups & ~(cg->group_dims | cg->global_dims) & 7u : 0;
  unsigned item_ids = (group ? cg->launch_many.local : cg->launch_many.global) & ~dims & 7u;
  if (!group_ids && !item_ids) return false; /* one work-item anyway */
  BinderSet inner = {0};
  Writes writes = {0};
  if (!writes_outputs_only(cg, p, &inner, &writes) || !writes.shared) return false;
  /* local memory is each group's own: every group writes its copy, which
   * its work-items read (a reduceSeq's local accumulator in a
   * mapWorkgroup whose body's mapWorkgroup1 reads it, launched with 2
   * groups in dimension 1: group id 1 read an accumulator only group id
   * 0 wrote; run_diff.py --derived, seed 1144 #38) */
  if (writes.local) {
    /* A command that writes the output too (a sequence: a local
     * temporary's writes, then the output's from it) would then write
     * the output from every group of those dimensions, the same value to
     * the same element: a race between groups (OpenCL 1.2 section 3.3.1;
     * a one-dimensional mapWorkgroup launched with 2 groups in dimension
     * 1, tests/diff/regress/local_temporary_and_output_one_command.dpia).
     * It is not guarded as one: its commands are, each by what it
     * writes, the temporary's by local id 0 in every group, the output's
     * by group id 0 too, and the barrier after the temporary's writes
     * orders the group's reads of it (barrier_pass.c). */
    if (writes.output && group_ids) return false;
    group_ids = 0;
  }
  if (!group_ids && !item_ids) return false;
  const KirExpr *cond = NULL;
  for (int d = 0; d < 3; d++)
    if (group_ids & 1u << d) cond = and_query_zero(cg, cond, KQ_GROUP_ID, d);
  for (int d = 0; d < 3; d++)
    if (item_ids & 1u << d) cond = and_query_zero(cg, cond, group ? KQ_LOCAL_ID : KQ_GLOBAL_ID, d);
  /* outside a group no barrier orders the other work-items after the one
   * that writes a temporary here: none of them may read it after p
   * (barrier_pass.c, NB_ONE_WRITER) */
  KirSite *site = cg_command_site(cg, p, KL_NONE);
  site->one_writer = !group;
  KirBlock *outer = cg_enter(
      cg, add_if(cg, cond,
                 group ? "written once per group, not by every work-item" : "written once, not by every work-item"));
  cg_site(cg, KSITE_SOLO, p->span)->group = group;
  int mark;
  cg_scope_enter(cg, &mark);
  cg->distributed++;
  cg->solo++;
  unsigned guards = cg->group_id_guards;
  cg->group_id_guards |= group_ids;
  gen_comm(cg, p);
  cg->group_id_guards = guards;
  cg_site(cg, KSITE_SOLO_END, p->span);
  cg->solo--;
  cg->distributed--;
  cg_scope_leave(cg, mark);
  cg_leave(cg, outer);
  cg_command_end(cg, site);
  return true;
}

/* The body of a parforLocal of dimension d runs in every work-item whose
 * local id in d is the index: where the group has more than one work-item
 * in a dimension no enclosing parforLocal distributes, they all run it, and
 * where it writes the output or a temporary in global or local memory,
 * they write the same element: a race, however benign (an optimising
 * OpenCL compiler made a wrong result of one: differential test, seed 42
 * #632).  So the one with local id 0 in those dimensions runs a body that
 * writes only such memory and private variables of its own; the others
 * read what it wrote after the barrier that follows the parforLocal.  A
 * body that also writes anything else is left as it is. */
bool gen_local_single_writer(CG *cg, const Phrase *body) {
  if (cg->group_depth == 0) return false;
  know_launch_many(cg);
  /* a mapGlobal's dimension (mapGlobal1 (mapWorkgroup (mapLocal ...)))
   * gives each work-item its own global id there, whatever its local id
   * (run_diff.py --derived, seed 1118 #54: local size 2 in dimension 1
   * left the odd global ids' elements unwritten); the dimensions asked
   * first, the body's writes only where one is left (most parforLocals
   * distribute every dimension of more than one work-item: issue 35) */
  unsigned item_ids = 0;
  for (int d = 0; d < 3; d++)
    if (!((cg->local_dims | cg->global_dims) & 1u << d) && cg->launch_many.local & 1u << d) item_ids |= 1u << d;
  if (!item_ids) return false; /* gen_single_writer guards the body's commands, group ids included */
  BinderSet inner = {0};
  Writes writes = {0};
  if (!writes_outputs_only(cg, body, &inner, &writes) || !writes.shared) return false;
  const KirExpr *cond = NULL;
  for (int d = 0; d < 3; d++)
    if (item_ids & 1u << d) cond = and_query_zero(cg, cond, KQ_LOCAL_ID, d);
  /* the groups of a dimension no mapWorkgroup or mapGlobal around the
   * body distributes all run it too (a mapLocal beside a mapGlobal of its
   * dimension in a mapWorkgroup1, launched with several groups in
   * dimension 0, wrote the output's elements from each: a race between
   * groups), so group id 0 of those runs a body that writes the output
   * or a global temporary, as in gen_single_writer, which the guard here
   * (cg->solo) keeps from adding it: a toGlobal's mapLocal launched with
   * 2 groups and 2 work-items a group in dimension 1 had each group write
   * the temporary's elements (E0008 at verification;
   * tests/diff/regress/global_temporary_replica_groups.dpia).  The other
   * groups may not read a global temporary after group 0 wrote it (no
   * barrier orders them): cg_note_group_access refuses the launch where
   * they would.  Not a body that writes a local temporary alone: each
   * group reads its own local memory after it.  A body that writes the
   * output and temporaries too writes them as its own: its acceptor is
   * the output, and the temporaries are those of its sequential stages
   * (a mapSeq's result that a select and a reduceSeq read), allocated in
   * the body and hoisted out of it, widened by the index, which no other
   * work-item reads; the groups that skip the body skip their reads too.
   * It was an internal error (gen.py --seed 1153 --index 504 --with
   * vectors, gen50's check sweep: a mapLocal1 of N/64 - 1 elements made
   * the number of groups in dimension 1 unknown;
   * tests/diff/regress/local_body_temporary_and_output.dpia). */
  unsigned group_ids = 0;
  if (writes.output || writes.global_temporary)
    group_ids = cg->launch_many.groups & ~(cg->group_dims | cg->global_dims) & 7u;
  for (int d = 0; d < 3; d++)
    if (group_ids & 1u << d) cond = and_query_zero(cg, cond, KQ_GROUP_ID, d);
  KirBlock *outer = cg_enter(cg, add_if(cg, cond, "the other work-items would write the same"));
  /* only some work-items run the guarded body: no barrier may go in it
   * (a barrier in a sequential loop there hung PoCL: seed 52 #730); one
   * it would need is an error, as anywhere not all work-items reach */
  cg_site(cg, KSITE_SOLO, body->span)->local = true;
  int mark;
  cg_scope_enter(cg, &mark);
  cg->solo++;
  unsigned guards = cg->group_id_guards;
  cg->group_id_guards |= group_ids;
  gen_comm(cg, body);
  cg->group_id_guards = guards;
  cg_site(cg, KSITE_SOLO_END, body->span);
  cg->solo--;
  cg_scope_leave(cg, mark);
  cg_leave(cg, outer);
  return true;
}

/* The work-groups of a dimension that no mapWorkgroup or mapGlobal around
 * the code distributes, where the launch has more than one (a
 * one-dimensional kernel launched with --global-size=16,2
 * --local-size=8,1), all run a group body alike: replicas, whose writes
 * of the output the guards on group id 0 leave out (gen_single_writer,
 * gen_local_single_writer), so that they have no effect.  A global
 * temporary is one buffer for all of them, and no barrier orders
 * work-groups (spec section 5; OpenCL 1.2 section 3.3.1): a group body's
 * access to one outside such a guard is either a write every replica
 * makes too, at the same elements, or a read of what group id 0 wrote
 * under the guard, unordered after it (a toLocal's mapLocal copying a
 * toGlobal's sequential result: E0008 at verification; gen50's probe of
 * session 33's suspicion).  Local memory is each group's own.  Such a
 * launch is refused as the others that would need a barrier OpenCL does
 * not have (E0604, docs/errors.md); the natural launch has one group in
 * those dimensions.  Only a number of groups known above 1: at the
 * natural launch a dimension no grid map distributes has one group, also
 * where the sizes leave its number unknown ((N - 64)/64 work-items of
 * (N - 64)/64 a group). */
void cg_note_group_access(CG *cg, const Binder *root, const KirBuffer *buffer, bool write) {
  if (cg->replica_reported || buffer->space != KSP_GLOBAL) return;
  const Launch *l = &cg->launch;
  unsigned covered = cg->group_dims | cg->global_dims | cg->group_id_guards;
  int replica = -1;
  for (int d = 0; d < 3 && replica < 0; d++) {
    int64_t n;
    if (!(covered & 1u << d) && l->groups_known[d] && size_const_value(l->groups[d], &n) && n > 1) replica = d;
  }
  if (replica < 0 || is_output(cg, root)) return;
  cg->replica_reported = true;
  int64_t n = 0;
  size_const_value(l->groups[replica], &n);
  cg_error(cg, ERR_NO_BARRIER, cg->where,
           "the launch has %lld work-groups in dimension %d, which no map around this code distributes: they all "
           "run it alike, and '%s', a temporary in global memory, is one buffer for all of them, %s; OpenCL has no "
           "barrier across work-groups to order them: launch one work-group in dimension %d, or make it a toLocal",
           (long long)n, replica, buffer->name,
           write ? "which each would write here at the same elements"
                 : "which one of them wrote and the others would read here unordered after it",
           replica);
}
