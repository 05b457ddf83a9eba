/* barriers.c: what the barrier pass (barrier_pass.c) needs to know of the
 * program, recorded by opencl.c's command generation as barrier sites
 * (kir.h, KirSite): which buffers in global or local memory a command
 * reads and writes (by their root binder: the halves of a pair-typed
 * output are one buffer), which writes of a loop's body its index tells
 * apart, and the shared accesses made between sites. */
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

bool shared_storage(const Storage *st) {
  while (st->kind == STORE_SPLIT) st = st->part[0];
  return !st->read_only && st->space != SP_PRIVATE;
}

bool shared_root(CG *cg, const Binder *b) {
  const EnvEntry *e = env_index_get(&cg->by_root, b);
  return e && shared_storage(e->st);
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

/* scan_writes, leaving out the writes indexed by index (NULL: none);
 * and, where all is not NULL, every write in all too: a loop's end site
 * wants both of its body, in one walk (issue 35) */
static void scan_writes_but(CG *cg, const Phrase *p, const Alias *al, const Binder *index, BinderSet *out,
                            BinderSet *all) {
  switch (p->kind) {
  case PH_ASSIGN: {
    const Binder *r = static_acc_root(cg, p->fst, al);
    if (!r || !shared_root(cg, r)) return;
    if (all) binder_set_add(cg, all, r);
    if (!(index && acc_indexed_by(cg, p->fst, al, index))) binder_set_add(cg, out, r);
    return;
  }
  case PH_SEQ:
    scan_writes_but(cg, p->fst, al, index, out, all);
    scan_writes_but(cg, p->snd, al, index, out, all);
    return;
  case PH_LAM: scan_writes_but(cg, p->body, al, index, out, all); return;
  case PH_PAIR: /* the sides of an if (PRIM_IF: comm & comm), each writing */
    scan_writes_but(cg, p->fst, al, index, out, all);
    scan_writes_but(cg, p->snd, al, index, out, all);
    return;
  case PH_APP: {
    Spine s;
    if (!spine_of(cg->arena, p, &s)) return;
    if (is_parfor(s.head->prim) && s.nargs == 2 && s.args[1]->kind == PH_LAM && s.args[1]->body->kind == PH_LAM) {
      const Phrase *inner = s.args[1]->body;
      Alias a = {inner->lam_binder, s.args[0], al};
      scan_writes_but(cg, inner->body, &a, index, out, all);
      return;
    }
    for (int i = 0; i < s.nargs; i++)
      if (s.args[i]->kind == PH_LAM || s.args[i]->kind == PH_PAIR) scan_writes_but(cg, s.args[i], al, index, out, all);
    return;
  }
  default: return;
  }
}

/* buffers in global or local memory written by p (al: the o of the
 * parfors entered on the way, which are not in the environment yet) */
void scan_writes(CG *cg, const Phrase *p, const Alias *al, BinderSet *out) {
  scan_writes_but(cg, p, al, NULL, out, NULL);
}

/* ---- the reads of a command ----
 *
 * A scan of p's reads takes each variable p reads (an expression variable,
 * or the second half of a pair variable: phrase_storage's) to its storage's
 * root, where that is in global or local memory.  Which variables p reads
 * does not depend on the environment, only their storage does: so the
 * occurrences are found once, in one walk of the body (the first scan,
 * cg_lower's), in the order of the walk, where each subcommand's are a
 * range of its command's; each command, scanned at its barrier site and
 * nested in the commands around it, goes through its range (issue 35: the
 * walk of each nested subtree again).  A variable read again in the same
 * innermost command (the two reads of a zip, wg, lid and i in each) is
 * noted once: a range then has each variable's first occurrence in it
 * first, which is all a scan uses (the same variable, the same root), and
 * the commands around it, whose ranges hold it, go through it once at each
 * site, not once an occurrence.  A phrase not met in that walk (none is
 * made after it, and only commands are kept) is walked then. */

static uint32_t read_vars_slot(const ReadVarsIndex *x, const Phrase *p) {
  uint32_t i = (uint32_t)(((uintptr_t)p >> 4) * 2654435761u) & (x->cap - 1);
  while (x->keys[i] && x->keys[i] != p) i = (i + 1) & (x->cap - 1);
  return i;
}

static void read_vars_put(Arena *a, ReadVarsIndex *x, const Phrase *p, ReadVars v) {
  if (2 * (x->used + 1) > x->cap) {
    ReadVarsIndex old = *x;
    x->cap = old.cap ? 2 * old.cap : 64;
    x->keys = NEWARRAY(a, const Phrase *, x->cap);
    x->vals = NEWARRAY(a, ReadVars, x->cap);
    for (uint32_t i = 0; i < old.cap; i++) {
      if (!old.keys[i]) continue;
      uint32_t j = read_vars_slot(x, old.keys[i]);
      x->keys[j] = old.keys[i];
      x->vals[j] = old.vals[i];
    }
  }
  uint32_t i = read_vars_slot(x, p);
  if (!x->keys[i]) x->used++;
  x->keys[i] = p;
  x->vals[i] = v;
}

static bool read_vars_get(const ReadVarsIndex *x, const Phrase *p, ReadVars *v) {
  if (!x->cap) return false;
  uint32_t i = read_vars_slot(x, p);
  if (!x->keys[i]) return false;
  *v = x->vals[i];
  return true;
}

/* b noted as read, unless the innermost command has read it already */
static inline void note_read(CG *cg, const Binder *b) {
  for (int i = cg->read_occ.len - 1; i >= cg->read_scope; i--)
    if (cg->read_occ.items[i] == b) return;
  vec_push(cg->arena, &cg->read_occ, (void *)b);
}

/* a leaf p's read variable noted (a variable, a projection), or nothing
 * (a literal, a primitive); false for any other phrase */
static inline bool note_leaf_read(CG *cg, const Phrase *p) {
  switch (p->kind) {
  case PH_VAR:
    if (p->type->kind == PT_EXP) note_read(cg, p->binder);
    return true;
  case PH_PROJ:
    /* the second half of a pair variable (phrase_storage: of a variable
     * only); no other projection is read, nor looked into */
    if (p->index == 2 && p->fst->kind == PH_VAR) note_read(cg, p->fst->binder);
    return true;
  case PH_LIT:
  case PH_PRIM: return true;
  default: return false;
  }
}

/* p's read variables noted, and kept for p and its subphrases that are
 * commands (an assignment, a sequence, a spine of type comm: what a site
 * scans), but the function part of an application (a command is a whole
 * spine) */
static void note_reads(CG *cg, const Phrase *p, bool keep) {
  if (note_leaf_read(cg, p)) return;
  int start = cg->read_occ.len, outer = cg->read_scope;
  bool command = (p->kind == PH_ASSIGN || p->kind == PH_SEQ || p->kind == PH_APP) && p->type->kind == PT_COMM;
  if (command) cg->read_scope = start;
  switch (p->kind) {
  case PH_LAM: note_reads(cg, p->body, true); break;
  case PH_ASSIGN: note_reads(cg, p->snd, true); break; /* the acceptor side only writes */
  case PH_UNOP: note_reads(cg, p->fst, true); break;
  case PH_APP: {
    /* a spine: its head, then its arguments in order, as the walk through
     * each partial application (a function, never a command) would note
     * them, without a call a partial application (issue 35) */
    const Phrase *args[8];
    int n = 0;
    const Phrase *head = p;
    while (head->kind == PH_APP && n < (int)DPIA_COUNTOF(args)) args[n++] = head->snd, head = head->fst;
    if (!note_leaf_read(cg, head)) note_reads(cg, head, false);
    /* fst x and snd x of one pair phrase x (stage II puts one phrase at
     * each use of a variable: the element x of fst x * snd x, issue 35):
     * walked since the innermost command began, x's variables are in
     * its range already, and a walk again would note none */
    if (n == 1 && head->kind == PH_PRIM && (head->prim == PRIM_FST || head->prim == PRIM_SND)) {
      const Phrase *x = args[0];
      if (note_leaf_read(cg, x) || (x == cg->pair_walked && cg->pair_walked_at >= cg->read_scope)) break;
      int at = cg->read_occ.len;
      note_reads(cg, x, true);
      cg->pair_walked = x;
      cg->pair_walked_at = at;
      break;
    }
    while (n > 0)
      if (!note_leaf_read(cg, args[--n])) note_reads(cg, args[n], true);
    break;
  }
  default:
    if (p->fst && !note_leaf_read(cg, p->fst)) note_reads(cg, p->fst, true);
    if (p->snd && !note_leaf_read(cg, p->snd)) note_reads(cg, p->snd, true);
    break;
  }
  cg->read_scope = outer;
  if (keep && command) read_vars_put(cg->arena, &cg->read_vars, p, (ReadVars){start, cg->read_occ.len});
}

/* The general way (CG.scan_each_site), which the kept walk must agree
 * with (test throughput-sites): every occurrence of p's read variables
 * noted, in a plain walk of p, subphrase by subphrase, nothing kept.  What
 * is read is note_leaf_read's: a variable of type exp, the second half of
 * a pair variable, not an assignment's acceptor side. */
static void note_reads_each(CG *cg, const Phrase *p) {
  switch (p->kind) {
  case PH_VAR:
    if (p->type->kind == PT_EXP) vec_push(cg->arena, &cg->read_occ, (void *)p->binder);
    return;
  case PH_PROJ:
    if (p->index == 2 && p->fst->kind == PH_VAR) vec_push(cg->arena, &cg->read_occ, (void *)p->fst->binder);
    return;
  case PH_LIT:
  case PH_PRIM: return;
  case PH_LAM: note_reads_each(cg, p->body); return;
  case PH_ASSIGN: note_reads_each(cg, p->snd); return;
  default:
    if (p->fst) note_reads_each(cg, p->fst);
    if (p->snd) note_reads_each(cg, p->snd);
    return;
  }
}

/* buffers in global or local memory read by p.  None while no variable
 * a command reads is bound to one (CG.reads_shared): a variable noted
 * read has type exp or var (note_leaf_read), never acc, and without the
 * flag every storage entry is its own binder's root and holds private or
 * read-only memory where its binder is not an acceptor, so the root of
 * each variable p reads is not shared (shared_root).  Nor is the walk
 * made (the loop variants of issue 35 without toLocal: their shared
 * memory is their output, which only their acceptors reach). */
void scan_reads(CG *cg, const Phrase *p, BinderSet *out) {
  if (!cg->reads_shared && !cg->no_shortcuts) return;
  ReadVars v;
  if (cg->scan_each_site) {
    v.start = cg->read_occ.len;
    note_reads_each(cg, p);
    v.end = cg->read_occ.len;
  } else if (!read_vars_get(&cg->read_vars, p, &v)) {
    v.start = cg->read_scope = cg->read_occ.len;
    note_reads(cg, p, true);
    v.end = cg->read_occ.len;
  }
  const Binder *last = NULL;
  for (int i = v.start; i < v.end; i++) {
    const Binder *b = cg->read_occ.items[i];
    if (b == last) continue; /* x * x: the same answer */
    last = b;
    const EnvEntry *e = env_index_get(&cg->by_binder, b);
    if (e && e->kind == ENV_STORAGE && e->st && shared_root(cg, e->st->root)) binder_set_add(cg, out, e->st->root);
  }
}


/* ---- barrier sites (kir.h, barrier_pass.c) ---- */

static bool same_binder(const void *user, const void *a, const void *b) { return a == b; }

const KirBuffer *cg_buffer(CG *cg, const Binder *b) {
  int n = (int)(sizeof cg->recent_buffers / sizeof cg->recent_buffers[0]);
  int slot = (int)(((uintptr_t)b >> 4) % (uintptr_t)n);
  if (b && cg->recent_buffers[slot].binder == b) return cg->recent_buffers[slot].buffer;
  uint64_t hash = hash_mix(0, (uint64_t)(uintptr_t)b);
  const MemoEntry *known = memo_find(&cg->buffers, hash, 0, same_binder, NULL, b);
  if (known) {
    cg->recent_buffers[slot].binder = b;
    cg->recent_buffers[slot].buffer = known->value;
    return known->value;
  }
  KirBuffer *buf = NEW(cg->arena, KirBuffer);
  bool found;
  Space sp = root_space(cg, b, &found);
  /* the variable of its storage, one buffer (not the halves of a pair) */
  const EnvEntry *e = env_index_get(&cg->by_binder, b);
  const char *var = e && e->kind == ENV_STORAGE && e->st->kind == STORE_BUFFER ? e->st->name : NULL;
  *buf = (KirBuffer){b->name, var, sp == SP_LOCAL ? KSP_LOCAL : sp == SP_GLOBAL ? KSP_GLOBAL : KSP_PRIVATE};
  memo_put(cg->arena, &cg->buffers, (MemoEntry){b, hash, 0, buf, 0}, same_binder, NULL);
  cg->recent_buffers[slot].binder = b;
  cg->recent_buffers[slot].buffer = buf;
  return buf;
}

void cg_note_access(CG *cg, const Binder *root, bool write) {
  if (cg->trial) return; /* a trial's accesses are not made (CG.trial) */
  if (!write) cg->writes_matter = true; /* pending after the next site */
  const KirBuffer *b = cg_buffer(cg, root);
  if (cg->group_depth > 0 && b->space == KSP_GLOBAL) cg_note_group_access(cg, root, b, write);
  for (int i = 0; i < cg->accesses.len; i++) {
    const KirAccess *x = cg->accesses.items[i];
    if (x->buffer == b && x->write == write) return; /* noted since the last site */
  }
  KirAccess *x = NEW(cg->arena, KirAccess);
  *x = (KirAccess){b, write};
  vec_push(cg->arena, &cg->accesses, x);
}

static KirBufferSet buffers_of_some(CG *cg, const BinderSet *s) {
  KirBufferSet r = {0};
  for (int i = 0; i < s->n; i++) vec_push(cg->arena, &r, (void *)cg_buffer(cg, s->items[i]));
  return r;
}

/* (most sets are empty: no call for them) */
static inline KirBufferSet buffers_of(CG *cg, const BinderSet *s) {
  return s->n ? buffers_of_some(cg, s) : (KirBufferSet){0};
}

KirSite *cg_site(CG *cg, KirSiteKind kind, Span span) {
  KirSite *site = NEW(cg->arena, KirSite);
  *site = (KirSite){.kind = kind, .span = span, .naccesses = cg->accesses.len};
  /* none at most sites: no array (every reader stops at naccesses) */
  if (cg->accesses.len > 0) {
    KirAccess *xs = NEWARRAY(cg->arena, KirAccess, cg->accesses.len);
    for (int i = 0; i < cg->accesses.len; i++) xs[i] = *(const KirAccess *)cg->accesses.items[i];
    site->accesses = xs;
  }
  cg->accesses.len = 0;
  cg_add(cg, KS_BARRIER, NULL)->barrier.site = site;
  return site;
}

/* Are a site's writes wanted (CG.writes_matter)? */
static bool site_writes_wanted(const CG *cg) { return cg->writes_matter || cg->no_shortcuts; }

/* p's reads and writes (those only where wanted; reads, writes: empty
 * sets), scanned again only where the environment has changed in a way a
 * scan sees since p's last (CG.site_scans) */
static void command_scans(CG *cg, const Phrase *p, BinderSet *reads, BinderSet *writes) {
  int n = (int)(sizeof cg->site_scans / sizeof cg->site_scans[0]);
  bool want_writes = site_writes_wanted(cg);
  /* Neither scanned (scan_reads finds nothing while no variable is bound
   * to shared memory, CG.reads_shared, which env_add sets with
   * writes_matter): both empty, and nothing kept, as an entry so kept
   * would be asked only while that holds (reads_shared set comes with a
   * change of env_version, writes_matter set asks for an entry whose
   * writes were scanned); test throughput-shortcuts fails with this taken
   * always */
  if (!want_writes && !cg->reads_shared && !cg->no_shortcuts) return;
  for (int i = 0; i < n; i++) {
    if (cg->site_scans[i].p == p && cg->site_scans[i].version == cg->env_version &&
        (cg->site_scans[i].writes_scanned || !want_writes)) {
      *reads = cg->site_scans[i].reads;
      *writes = cg->site_scans[i].writes;
      return;
    }
  }
  scan_reads(cg, p, reads);
  if (want_writes) scan_writes(cg, p, NULL, writes);
  int i = cg->next_site_scan;
  cg->next_site_scan = (i + 1) % n;
  cg->site_scans[i].p = p;
  cg->site_scans[i].version = cg->env_version;
  cg->site_scans[i].reads = *reads;
  cg->site_scans[i].writes = *writes;
  cg->site_scans[i].writes_scanned = want_writes;
}

KirSite *cg_command_site(CG *cg, const Phrase *p, KirLevel level) {
  BinderSet reads = {0}, writes = {0};
  command_scans(cg, p, &reads, &writes);
  KirSite *site = cg_site(cg, KSITE_COMMAND, p->span);
  site->reads = buffers_of(cg, &reads);
  site->writes = buffers_of(cg, &writes);
  site->level = level;
  return site;
}

void cg_body_end_site(CG *cg, KirSiteKind kind, const Phrase *body, const Binder *index) {
  BinderSet reads = {0}, writes = {0}, unindexed = {0};
  scan_reads(cg, body, &reads);
  if (site_writes_wanted(cg) && cg->scan_each_site) { /* the general way: a walk each */
    scan_writes(cg, body, NULL, &writes);
    scan_writes_but(cg, body, NULL, index, &unindexed, NULL);
  } else if (site_writes_wanted(cg))
    scan_writes_but(cg, body, NULL, index, &unindexed, &writes);
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
