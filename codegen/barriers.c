/* barriers.c: what the barrier pass (barrier_pass.c) needs to know of the
 * program, recorded by opencl.c's command generation as barrier sites
 * (kir.h, KirSite): which buffers in global or local memory a command
 * reads and writes (by their root binder: the halves of a pair-typed
 * output are one buffer), from the accesses its code makes; which writes
 * of a loop's body its index tells apart, from scans of the body's phrase;
 * and the shared accesses made between sites. */
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

/* ---- the reads of a phrase: a loop's body at its end, the kernel's body
 * for its parameters, each command under CodegenOptions.compare_sites ----
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
  int start = cg->read_occ.len, outer = cg->read_scope, outer_id = cg->read_scope_id;
  bool command = (p->kind == PH_ASSIGN || p->kind == PH_SEQ || p->kind == PH_APP) && p->type->kind == PT_COMM;
  if (command) cg->read_scope = start, cg->read_scope_id = ++cg->read_scopes;
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
     * walked in the innermost command (its scope, not a position in
     * read_occ, which a walk that notes nothing new leaves where the next
     * command's range begins: an if's test and a command of its branch),
     * x's variables are in its range already, and a walk again would
     * note none */
    if (n == 1 && head->kind == PH_PRIM && (head->prim == PRIM_FST || head->prim == PRIM_SND)) {
      const Phrase *x = args[0];
      if (note_leaf_read(cg, x) || (x == cg->pair_walked && cg->pair_walked_scope == cg->read_scope_id)) break;
      note_reads(cg, x, true);
      cg->pair_walked = x;
      cg->pair_walked_scope = cg->read_scope_id;
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
  cg->read_scope = outer, cg->read_scope_id = outer_id;
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
static void scan_reads_as(CG *cg, const Phrase *p, BinderSet *out, bool each) {
  if (!cg->reads_shared && !cg->no_shortcuts) return;
  ReadVars v;
  if (each) {
    v.start = cg->read_occ.len;
    note_reads_each(cg, p);
    v.end = cg->read_occ.len;
  } else if (!read_vars_get(&cg->read_vars, p, &v)) {
    v.start = cg->read_scope = cg->read_occ.len;
    cg->read_scope_id = ++cg->read_scopes;
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

void scan_reads(CG *cg, const Phrase *p, BinderSet *out) {
  if (cg->reads_shared || cg->no_shortcuts) scan_reads_as(cg, p, out, cg->scan_each_site);
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

/* b read or written by the innermost open command, unless it has been
 * since it began (CG.site_log) */
static void log_access(CG *cg, const KirBuffer *b, bool write) {
  SiteLogEntry *log = cg->site_log;
  for (int i = cg->site_log_len - 1, start = cg->open_sites[cg->nopen_sites - 1].start; i >= start; i--)
    if (log[i].buffer == b && log[i].write == write) return;
  if (cg->site_log_len == cg->site_log_cap) {
    cg->site_log_cap = cg->site_log_cap ? 2 * cg->site_log_cap : 32;
    cg->site_log = NEWARRAY(cg->arena, SiteLogEntry, cg->site_log_cap);
    if (cg->site_log_len) memcpy(cg->site_log, log, sizeof *log * (size_t)cg->site_log_len);
  }
  cg->site_log[cg->site_log_len++] = (SiteLogEntry){b, write};
}

/* the reads of p noted as a scan notes them (note_reads_each: each
 * variable of type exp, the second half of a pair variable), each whose
 * storage is shared logged as read */
static void log_phrase_reads(CG *cg, const Phrase *p) {
  const Binder *b = NULL;
  switch (p->kind) {
  case PH_VAR:
    if (p->type->kind == PT_EXP) b = p->binder;
    break;
  case PH_PROJ:
    if (p->index == 2 && p->fst->kind == PH_VAR) b = p->fst->binder;
    break;
  case PH_LIT:
  case PH_PRIM: return;
  case PH_LAM: log_phrase_reads(cg, p->body); return;
  case PH_ASSIGN: log_phrase_reads(cg, p->snd); return;
  default:
    if (p->fst) log_phrase_reads(cg, p->fst);
    if (p->snd) log_phrase_reads(cg, p->snd);
    return;
  }
  const EnvEntry *e = b ? env_index_get(&cg->by_binder, b) : NULL;
  if (e && e->kind == ENV_STORAGE && e->st && shared_root(cg, e->st->root))
    log_access(cg, cg_buffer(cg, e->st->root), false);
}

void cg_reads_skipped(CG *cg, const Phrase *p) {
  if (cg->nopen_sites && cg->open_sites[cg->nopen_sites - 1].reads && !cg->trial) log_phrase_reads(cg, p);
}

void cg_note_access(CG *cg, const Binder *root, bool write) {
  if (cg->trial) return; /* a trial's accesses are not made (CG.trial) */
  if (!write) cg->writes_matter = true; /* pending after the next site */
  const KirBuffer *b = cg_buffer(cg, root);
  if (cg->group_depth > 0 && b->space == KSP_GLOBAL) cg_note_group_access(cg, root, b, write);
  if (cg->nopen_sites) log_access(cg, b, write);
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

/* The sets of a command site are those of the buffers its command's code
 * reads and writes, recorded as lowering makes each access
 * (cg_note_access): the site opens at cg_command_site and closes at
 * cg_command_end, when the command's code, with its subcommands', is made.
 * They are the sets the scans of the command's phrase give (scan_reads,
 * scan_writes: the variables it reads, the roots of the acceptors it
 * assigns), which cost a walk of the body and of each command's subtree
 * again at each site (issue 35), where lowering reads a part of an
 * expression that a scan sees: a part it leaves out (the other half of a
 * zip's element, the other component of a pair, the side of a padCst or
 * select its index or test rules out, the other lanes of a vector built
 * from lanes, the value of a write dropped, a view map's array, read
 * through its function's parameter or not) has its reads logged as a
 * scan finds them (cg_reads_skipped).  The writes come in the scans'
 * order; the reads may not (an index read before its array), which no
 * answer of the barrier pass depends on.  CodegenOptions.compare_sites
 * makes both at every site and counts where they differ (tests
 * throughput-record and throughput-record-random, which fail with a read,
 * a write, a subcommand's accesses or a left-out part's reads dropped
 * from the record).  A set is taken where its scan would have been made:
 * reads while some variable may reach shared memory (CG.reads_shared),
 * writes while a barrier can come of them (CG.writes_matter), each as it
 * was when the command began. */

static void open_site(CG *cg, KirSite *site, const Phrase *p) {
  bool reads = cg->reads_shared || cg->no_shortcuts, writes = site_writes_wanted(cg);
  if (cg->nopen_sites == cg->open_sites_cap) {
    OpenSite *old = cg->open_sites;
    ScannedSite *old_scanned = cg->scanned_sites;
    cg->open_sites_cap = cg->open_sites_cap ? 2 * cg->open_sites_cap : 16;
    cg->open_sites = NEWARRAY(cg->arena, OpenSite, cg->open_sites_cap);
    if (cg->nopen_sites) memcpy(cg->open_sites, old, sizeof *old * (size_t)cg->nopen_sites);
    if (cg->compare_sites) {
      cg->scanned_sites = NEWARRAY(cg->arena, ScannedSite, cg->open_sites_cap);
      if (cg->nopen_sites) memcpy(cg->scanned_sites, old_scanned, sizeof *old_scanned * (size_t)cg->nopen_sites);
    }
  }
  cg->open_sites[cg->nopen_sites] = (OpenSite){site, cg->site_log_len, reads, writes};
  if (cg->compare_sites) { /* the general way's scans (scan_each_site) */
    ScannedSite *scanned = &cg->scanned_sites[cg->nopen_sites];
    *scanned = (ScannedSite){.p = p};
    if (!cg->trial) {
      scan_reads_as(cg, p, &scanned->reads, true);
      scan_reads_as(cg, p, &scanned->kept_reads, false);
      if (writes) scan_writes(cg, p, NULL, &scanned->writes);
    }
  }
  cg->nopen_sites++;
}

KirSite *cg_command_site(CG *cg, const Phrase *p, KirLevel level) {
  KirSite *site = cg_site(cg, KSITE_COMMAND, p->span);
  site->level = level;
  cg->command_depth++;
  /* a site that takes neither set is not kept open (nor is one around
   * it: CG.reads_shared and writes_matter are never cleared): its
   * command's accesses are logged for none (most kernels' sites, issue 35) */
  if (cg->reads_shared || cg->writes_matter || cg->no_shortcuts || cg->compare_sites) open_site(cg, site, p);
  return site;
}

static bool set_has_buffer(const KirBufferSet *s, const KirBuffer *b) {
  for (int i = 0; i < s->len; i++)
    if (s->items[i] == b) return true;
  return false;
}

/* the buffers of the log's entries [from, to) of one kind, in order */
static KirBufferSet logged(CG *cg, int from, int to, bool write, int n) {
  KirBufferSet r = {NEWARRAY(cg->arena, void *, n), 0, n};
  for (int i = from; i < to; i++)
    if (cg->site_log[i].write == write) r.items[r.len++] = (void *)cg->site_log[i].buffer;
  return r;
}

static bool same_buffers(const KirBufferSet *a, const KirBufferSet *b) {
  if (a->len != b->len) return false;
  for (int i = 0; i < a->len; i++)
    if (a->items[i] != b->items[i]) return false;
  return true;
}

/* the reads' order is not the scans' (a read's index before its array;
 * no answer of the barrier pass depends on it: barrier_pass.c) */
static bool same_members(const KirBufferSet *a, const KirBufferSet *b) {
  if (a->len != b->len) return false;
  for (int i = 0; i < a->len; i++) {
    int j = 0;
    while (j < b->len && b->items[j] != a->items[i]) j++;
    if (j == b->len) return false;
  }
  return true;
}

static const char *buffer_names(CG *cg, const KirBufferSet *s) {
  Buf b;
  buf_init(&b, cg->arena);
  buf_putc(&b, '{');
  for (int i = 0; i < s->len; i++) emit(&b, "%s%s", i ? " " : "", ((const KirBuffer *)s->items[i])->name);
  buf_putc(&b, '}');
  return b.data;
}

/* CodegenOptions.compare_sites: the record's sets against the scans' */
static void compare_site(CG *cg, const OpenSite *o, const ScannedSite *scanned) {
  KirBufferSet reads = buffers_of(cg, &scanned->reads), writes = buffers_of(cg, &scanned->writes);
  cg->sites_compared++;
  KirBufferSet kept = buffers_of(cg, &scanned->kept_reads);
  if (same_members(&reads, &o->site->reads) && same_members(&kept, &o->site->reads) &&
      same_buffers(&writes, &o->site->writes))
    return;
  if (cg->sites_differing++ < 4) /* the first few said */
    cg->site_difference =
        arena_printf(cg->arena, "%s\n  at byte %u: the record reads %s and writes %s, the scans %s (kept: %s) and %s",
                     cg->site_difference ? cg->site_difference : "", (unsigned)scanned->p->span.begin,
                     buffer_names(cg, &o->site->reads), buffer_names(cg, &o->site->writes), buffer_names(cg, &reads),
                     buffer_names(cg, &kept), buffer_names(cg, &writes));
}

void cg_close_site(CG *cg) {
  const OpenSite *o = &cg->open_sites[--cg->nopen_sites];
  KirSite *site = o->site;
  /* each buffer and kind once (the subcommands' may repeat each other's
   * and the command's own), kept so for the command around it */
  SiteLogEntry *log = cg->site_log;
  int end = o->start, nwrites = 0;
  for (int i = o->start; i < cg->site_log_len; i++) {
    int j = o->start;
    while (j < end && (log[j].buffer != log[i].buffer || log[j].write != log[i].write)) j++;
    if (j < end) continue;
    nwrites += log[i].write;
    log[end++] = log[i];
  }
  cg->site_log_len = cg->nopen_sites ? end : 0;
  int nreads = end - o->start - nwrites;
  if (o->reads && nreads) site->reads = logged(cg, o->start, end, false, nreads);
  if (o->writes && nwrites) site->writes = logged(cg, o->start, end, true, nwrites);
  if (cg->compare_sites && !cg->trial) compare_site(cg, o, &cg->scanned_sites[cg->nopen_sites]);
}

void cg_copied_command(CG *cg, const Phrase *p, const Vec *accesses, const KirSite *model) {
  KirSite *site = cg_command_site(cg, p, KL_NONE);
  for (int a = 0; a < accesses->len; a++) vec_push(cg->arena, &cg->accesses, accesses->items[a]);
  if (cg->nopen_sites) {
    for (int a = 0; a < accesses->len; a++) {
      const KirAccess *x = accesses->items[a];
      log_access(cg, x->buffer, x->write);
    }
    /* and the reads the model's lowering left out (cg_reads_skipped): the
     * model read what the copy reads, its phrase being the copy's and its
     * environment the copy's but for the step's index */
    for (int i = 0; i < model->reads.len; i++) log_access(cg, model->reads.items[i], false);
  }
  cg_command_end(cg, site);
}

/* A loop end's reads are those its body's code made (the accesses logged
 * since `accesses`, with the open command's, as a command site's are: the
 * reads a scan of the body finds); its writes, and those not indexed by
 * the loop's variable, are scanned from the body, where its code wrote
 * some shared buffer (none written, none scanned: a toLocal variant's
 * reduction loop writes private memory only).  Where no command's site is
 * open (accesses < 0), or CG.scan_each_site, both are scanned. */
void cg_body_end_site(CG *cg, KirSiteKind kind, const Phrase *body, const Binder *index, int accesses) {
  BinderSet reads = {0}, writes = {0}, unindexed = {0};
  bool recorded = accesses >= 0 && !cg->scan_each_site && !cg->trial;
  KirBufferSet logged_reads = {0};
  bool wrote = true;
  if (recorded) {
    wrote = false;
    for (int i = accesses; i < cg->site_log_len; i++) {
      const SiteLogEntry *x = &cg->site_log[i];
      if (x->write)
        wrote = true;
      else if (!set_has_buffer(&logged_reads, x->buffer))
        vec_push(cg->arena, &logged_reads, (void *)x->buffer);
    }
    if (!cg->reads_shared && !cg->no_shortcuts) logged_reads = (KirBufferSet){0}; /* as scan_reads */
  }
  if (!recorded || cg->compare_sites) scan_reads(cg, body, &reads);
  if (site_writes_wanted(cg) && cg->scan_each_site) { /* the general way: a walk each */
    scan_writes(cg, body, NULL, &writes);
    scan_writes_but(cg, body, NULL, index, &unindexed, NULL);
  } else if (site_writes_wanted(cg) && (wrote || cg->compare_sites))
    scan_writes_but(cg, body, NULL, index, &unindexed, &writes);
  KirSite *site = cg_site(cg, kind, body->span);
  site->reads = recorded ? logged_reads : buffers_of(cg, &reads);
  site->writes = buffers_of(cg, &writes);
  site->unindexed = buffers_of(cg, &unindexed);
  if (recorded && cg->compare_sites) {
    KirBufferSet scanned = buffers_of(cg, &reads);
    cg->sites_compared++;
    if ((!same_members(&scanned, &logged_reads) || (!wrote && writes.n)) && cg->sites_differing++ < 4)
      cg->site_difference =
          arena_printf(cg->arena, "%s\n  at byte %u, a loop's end: the record reads %s%s, the scans %s",
                       cg->site_difference ? cg->site_difference : "", (unsigned)body->span.begin,
                       buffer_names(cg, &logged_reads), wrote ? "" : " and writes none", buffer_names(cg, &scanned));
  }
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
