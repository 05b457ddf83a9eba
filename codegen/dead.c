/* dead.c: dropping the bindings nothing reads (a pass over the kernel IR,
 * after lowering; kir.h, kir_drop_dead).
 *
 * Lowering binds values to private variables before it knows whether
 * anything will read them.  A def's argument is passed by value
 * (docs/language.md section 4): `def twice x = x + x` applied in a mapSeq
 * of 4 steps binds x once per step, `float x_3 = xs[gid*4 + 2] / 3.0f;`,
 * and a `take 2` after the unrolled loop drops the writes of steps 2 and 3,
 * and with them the only reads of x_3 and x_4.  Such a declaration is dead
 * code, and the re-parse rejects it (-Wunused-variable, spec section 1,
 * step 6): an accepted program failed to translate (issue 41,
 * tests/diff/regress/dead_def_argument.dpia).  This pass removes it, as a
 * careful hand would, from the tree and never from the text:
 *
 *   - a private declaration whose variable nothing reads (an initialiser
 *     read by nobody), and the assignments to it when its type is not a
 *     pointer (a private scalar, vector, struct or array written and never
 *     read: its storage is reachable by its name only, and taking its
 *     address, &x, is a read);
 *   - a loop, test or block whose body is left empty;
 *   - a comment line left annotating no statement (`mapSeq, 4 steps` over
 *     steps that are all gone).
 *
 * Expressions of the kernel IR have no side effects, but for the call of a
 * foreign function (docs/language.md section 14): its body is the
 * program's own OpenCL C, which may print or never return.  What is
 * dropped keeps those calls, each one a statement of its own (KS_EXPR),
 * `g(xs[gid*4 + 2]);`, in the order C would evaluate them; one a condition
 * decides (a ? g(x) : 0.0f, a && g(x) > 0) keeps the whole expression.
 * Everything else dropped only read memory or computed.
 *
 * Liveness is decided walking each block backwards, with the names read
 * (and those assigned) by the statements after the current one.  There is
 * no shadowing in a kernel (kir_invariant_violation): a name read after a
 * declaration, in its block or in any block inside it, is that
 * declaration's variable, and a declaration ends its name's liveness, so a
 * variable of the same name declared in an earlier block is judged by its
 * own reads.  Dropping a variable's assignments can leave another one
 * unread (x in priv[2] = x + x): the walk is repeated until it drops
 * nothing.
 *
 * Whether a variable is assigned after its declaration is asked only of
 * one nothing reads (is_dead, drop_writes), by a walk of its scope: the
 * statements after the declaration in its block and the blocks inside
 * them, in which, without shadowing, every assignment to its name is to
 * it.  (A set of the names assigned, kept through the walk as the names
 * read are, cost a hash at every assignment and declaration of every
 * kernel for a question most never ask: translation throughput,
 * BENCHMARKS.md.) */
#include "kir.h"

#include <string.h>

typedef struct Dead {
  Arena *arena;
  NameSet foreign; /* the foreign functions the kernel calls */
  NameSet read;    /* names the statements after the current one read */
  bool changed;    /* a declaration or an assignment was dropped */
  const Ix *last_ix; /* the index tree whose names read was noted last (names_read) */
} Dead;

/* the sets hold each name at most once */
static void mark(NameSet *s, const char *name) { nameset_add_once(s, name); }

static void unmark(Dead *d, NameSet *s, const char *name) {
  nameset_remove_if_has(s, name);
  d->last_ix = NULL; /* a name it noted may be gone */
}

/* ---- what an expression reads, whether it has an effect ---- */

static void note_ix_reads(const Ix *e, NameSet *read) {
  if (!e) return;
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case IX_CONST: return;
  case IX_VAR: mark(read, e->name); return;
  case IX_EXPR: kir_names_read(e->expr, read); return;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD:
    note_ix_reads(e->a, read);
    note_ix_reads(e->b, read);
    return;
  }
  DPIA_EXHAUSTIVE_END
}

/* The children of kir_expr_children, in its order, each kind's own: with
 * the call of the general one per node this walk was most of the dead code
 * pass in an unrolled kernel (translation throughput, BENCHMARKS.md); the
 * last child is a loop's next step, not a call. */
/* names_read with last: the index tree noted last, while every name it
 * noted is still in the set (an index read twice in a statement, the
 * offset of a zip's two vector loads, is one tree: its names are noted
 * once; the set only grows until the walk's next unmark, which resets it) */
static void names_read(const KirExpr *e, NameSet *read, const Ix **last);

void kir_names_read(const KirExpr *e, NameSet *read) { names_read(e, read, NULL); }

static void names_read(const KirExpr *e, NameSet *read, const Ix **last) {
  while (e) {
    DPIA_EXHAUSTIVE_BEGIN
    switch (e->kind) {
    case KE_INT:
    case KE_LIT:
    case KE_QUERY: return;
    case KE_VAR: mark(read, e->name); return;
    case KE_IX:
      if (last && *last == e->ix) return;
      note_ix_reads(e->ix, read);
      if (last) *last = e->ix;
      return;
    case KE_UNARY: e = e->un.operand; break;
    case KE_BINARY:
      names_read(e->bin.lhs, read, last);
      e = e->bin.rhs;
      break;
    case KE_COND:
      names_read(e->cond.test, read, last);
      names_read(e->cond.then, read, last);
      e = e->cond.other;
      break;
    case KE_INDEX:
      names_read(e->index.base, read, last);
      e = e->index.at;
      break;
    case KE_MEMBER: e = e->member.base; break;
    case KE_LANE: e = e->lane.base; break;
    case KE_VLOAD:
      names_read(e->vload.offset, read, last);
      e = e->vload.ptr;
      break;
    case KE_CALL:
    case KE_BUILTIN:
    case KE_CAST:
    case KE_VECTOR:
      for (int i = 0; i + 1 < e->call.nargs; i++) names_read(e->call.args[i], read, last);
      e = e->call.nargs ? e->call.args[e->call.nargs - 1] : NULL;
      break;
    }
    DPIA_EXHAUSTIVE_END
  }
}

static void note_reads(Dead *d, const KirExpr *e) { names_read(e, &d->read, &d->last_ix); }

static bool has_effect(const Dead *d, const KirExpr *e);

static bool ix_has_effect(const Dead *d, const Ix *e) {
  if (!e || !e->exprs) return false; /* only an expression atom may call */
  if (e->kind == IX_EXPR) return has_effect(d, e->expr);
  return ix_has_effect(d, e->a) || ix_has_effect(d, e->b);
}

/* does evaluating e do more than compute its value: call a foreign
 * function? */
static bool has_effect(const Dead *d, const KirExpr *e) {
  if (!e) return false;
  if (e->kind == KE_IX) return ix_has_effect(d, e->ix);
  if (e->kind == KE_CALL && nameset_has(&d->foreign, e->call.fn)) return true;
  const KirExpr *buf[3], *const *sub;
  int n = kir_expr_children(e, buf, &sub);
  for (int i = 0; i < n; i++)
    if (has_effect(d, sub[i])) return true;
  return false;
}

/* ---- keeping the effects of what is dropped ---- */

static void keep_effects(Dead *d, const KirExpr *e, KirBlock *out);

static void keep_whole(Dead *d, const KirExpr *e, KirBlock *out) {
  KirStmt *s = kir_stmt(d->arena, KS_EXPR);
  s->expr = e;
  kir_append(out, s);
}

static void keep_ix_effects(Dead *d, const Ix *e, KirBlock *out) {
  if (!e || !ix_has_effect(d, e)) return;
  if (e->kind == IX_EXPR) {
    keep_effects(d, e->expr, out);
    return;
  }
  keep_ix_effects(d, e->a, out);
  keep_ix_effects(d, e->b, out);
}

/* statements doing what evaluating e does besides computing its value:
 * the foreign calls it makes, in order; an expression that makes one only
 * under a condition is kept whole */
static void keep_effects(Dead *d, const KirExpr *e, KirBlock *out) {
  if (!has_effect(d, e)) return;
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_INT:
  case KE_LIT:
  case KE_QUERY:
  case KE_VAR: return;
  case KE_IX: keep_ix_effects(d, e->ix, out); return;
  case KE_UNARY: keep_effects(d, e->un.operand, out); return;
  case KE_BINARY:
    if ((e->bin.op == KB_AND || e->bin.op == KB_ALL || e->bin.op == KB_OR) && has_effect(d, e->bin.rhs)) {
      keep_whole(d, e, out);
      return;
    }
    keep_effects(d, e->bin.lhs, out);
    keep_effects(d, e->bin.rhs, out);
    return;
  case KE_COND:
    if (has_effect(d, e->cond.then) || has_effect(d, e->cond.other)) {
      keep_whole(d, e, out);
      return;
    }
    keep_effects(d, e->cond.test, out);
    return;
  case KE_INDEX:
    keep_effects(d, e->index.base, out);
    keep_effects(d, e->index.at, out);
    return;
  case KE_MEMBER: keep_effects(d, e->member.base, out); return;
  case KE_LANE: keep_effects(d, e->lane.base, out); return;
  case KE_VLOAD:
    keep_effects(d, e->vload.offset, out);
    keep_effects(d, e->vload.ptr, out);
    return;
  case KE_CALL:
  case KE_BUILTIN:
  case KE_CAST:
  case KE_VECTOR:
    if (e->kind == KE_CALL && nameset_has(&d->foreign, e->call.fn)) {
      keep_whole(d, e, out);
      return;
    }
    for (int i = 0; i < e->call.nargs; i++) keep_effects(d, e->call.args[i], out);
    return;
  }
  DPIA_EXHAUSTIVE_END
}

const char *kir_lvalue_var(const KirExpr *lhs) {
  for (;;) {
    switch (lhs->kind) {
    case KE_VAR: return lhs->name;
    case KE_INDEX: lhs = lhs->index.base; break;
    case KE_MEMBER: lhs = lhs->member.base; break;
    case KE_LANE: lhs = lhs->lane.base; break;
    default: return NULL;
    }
  }
}

/* the effects of the indices on the way to an l-value's variable */
static void keep_lvalue_effects(Dead *d, const KirExpr *lhs, KirBlock *out) {
  if (lhs->kind == KE_INDEX) {
    keep_lvalue_effects(d, lhs->index.base, out);
    keep_effects(d, lhs->index.at, out);
  } else if (lhs->kind == KE_MEMBER) {
    keep_lvalue_effects(d, lhs->member.base, out);
  } else if (lhs->kind == KE_LANE) {
    keep_lvalue_effects(d, lhs->lane.base, out);
  }
}

/* what an l-value reads: the indices on the way to its variable, or all
 * of it when it has none */
static inline void note_lvalue(Dead *d, const KirExpr *lhs) {
  const char *var = kir_lvalue_var(lhs);
  if (!var) {
    note_reads(d, lhs);
    return;
  }
  for (const KirExpr *e = lhs; e->kind != KE_VAR;) {
    if (e->kind == KE_INDEX) {
      note_reads(d, e->index.at);
      e = e->index.base;
    } else {
      e = e->kind == KE_MEMBER ? e->member.base : e->lane.base;
    }
  }
}

/* ---- the walk ---- */

/* s, which follows prev (NULL: s is first) in b, replaced by the
 * statements of with (none: s is removed) */
static void replace(KirBlock *b, KirStmt *prev, KirStmt *s, KirBlock with) {
  KirStmt *next = s->next;
  KirStmt *first = with.first ? with.first : next;
  if (with.last) with.last->next = next;
  if (prev)
    prev->next = first;
  else
    b->first = first;
  if (!next) b->last = with.last ? with.last : prev;
}

/* does a run's template assign to var? */
static bool run_assigns(const KirStmt *run, const char *var) {
  for (const KirStmt *t = run->run.body.first; t; t = t->next) {
    const char *assigned = t->kind == KS_ASSIGN ? kir_lvalue_var(t->assign.lhs) : NULL;
    if (assigned && strcmp(assigned, var) == 0) return true;
  }
  return false;
}

/* Is var assigned from s on (in its block, and the blocks inside): what
 * drop_writes would replace? */
static bool assigned_from(const KirStmt *s, const char *var) {
  for (; s; s = s->next) {
    if (s->kind == KS_RUN && run_assigns(s, var)) return true;
    const char *assigned = s->kind == KS_ASSIGN ? kir_lvalue_var(s->assign.lhs) : NULL;
    if (assigned && strcmp(assigned, var) == 0) return true;
    const KirBlock *inner = kir_body((KirStmt *)s);
    if (inner && assigned_from(inner->first, var)) return true;
  }
  return false;
}

/* The assignments to var in b from s on, and in the blocks inside,
 * replaced by their effects (a run that assigns var written out first:
 * its template is never changed). */
static void drop_writes(Dead *d, KirBlock *b, KirStmt *s, KirStmt *prev, const char *var) {
  while (s) {
    if (s->kind == KS_RUN && run_assigns(s, var)) {
      s = kir_run_write_out(d->arena, b, prev, s);
      continue;
    }
    KirStmt *next = s->next;
    KirBlock *inner = kir_body(s);
    if (inner) drop_writes(d, inner, inner->first, NULL, var);
    const char *assigned = s->kind == KS_ASSIGN ? kir_lvalue_var(s->assign.lhs) : NULL;
    if (assigned && strcmp(assigned, var) == 0) {
      KirBlock fx = {0};
      keep_lvalue_effects(d, s->assign.lhs, &fx);
      keep_effects(d, s->assign.rhs, &fx);
      replace(b, prev, s, fx);
      if (fx.last) prev = fx.last;
    } else {
      prev = s;
    }
    s = next;
  }
}

/* what a run's template reads and assigns (walk_stmt, KS_RUN) */
static void note_run(Dead *d, const KirStmt *run) {
  for (const KirStmt *t = run->run.body.first; t; t = t->next) {
    if (t->kind == KS_ASSIGN) {
      note_lvalue(d, t->assign.lhs);
      note_reads(d, t->assign.rhs);
    } else if (t->kind == KS_VSTORE) {
      note_reads(d, t->vstore.value);
      note_reads(d, t->vstore.offset);
      note_reads(d, t->vstore.ptr);
    }
  }
}

static bool is_dead(const Dead *d, const KirStmt *s) {
  if (s->decl.space != KSP_PRIVATE || nameset_has(&d->read, s->decl.name)) return false;
  /* an assignment through a pointer writes what it points to */
  return s->decl.type->kind != KTY_POINTER || !assigned_from(s->next, s->decl.name);
}

static void walk_block(Dead *d, KirBlock *b);

/* s (after prev in b) once the statements after it are walked: dropped,
 * or its reads noted */
static void walk_stmt(Dead *d, KirBlock *b, KirStmt *prev, KirStmt *s) {
  KirBlock none = {0};
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_DECL: {
    const char *name = s->decl.name;
    bool dead = is_dead(d, s);
    if (dead) {
      drop_writes(d, b, s->next, s, name); /* none where it is not assigned */
      KirBlock fx = {0};
      keep_effects(d, s->decl.init, &fx);
      for (KirStmt *e = fx.first; e; e = e->next) note_reads(d, e->expr);
      replace(b, prev, s, fx);
      d->changed = true;
    }
    /* before its declaration, the name is not this variable's */
    unmark(d, &d->read, name);
    if (!dead) note_reads(d, s->decl.init);
    return;
  }
  case KS_ASSIGN:
    note_lvalue(d, s->assign.lhs);
    note_reads(d, s->assign.rhs);
    return;
  case KS_VSTORE:
    note_reads(d, s->vstore.value);
    note_reads(d, s->vstore.offset);
    note_reads(d, s->vstore.ptr);
    return;
  case KS_EXPR: note_reads(d, s->expr); return;
  case KS_FOR: {
    /* a loop over an empty array (`take 0`, a reduction of [0]T) never
     * runs: it goes with its body, whose reads (of a private array of no
     * elements, which then goes too) and writes never happen */
    int64_t from, to;
    if (kir_const_int(s->loop.init, &from) && kir_const_int(s->loop.bound, &to) && to <= from) {
      replace(b, prev, s, none);
      d->changed = true;
      return;
    }
    walk_block(d, &s->loop.body);
    unmark(d, &d->read, s->loop.var);
    if (!s->loop.body.first && !has_effect(d, s->loop.init) && !has_effect(d, s->loop.bound) &&
        !has_effect(d, s->loop.step)) {
      replace(b, prev, s, none);
      return;
    }
    note_reads(d, s->loop.init);
    note_reads(d, s->loop.bound);
    note_reads(d, s->loop.step);
    return;
  }
  case KS_IF:
    walk_block(d, &s->cond.body);
    if (!s->cond.body.first && !has_effect(d, s->cond.cond)) {
      replace(b, prev, s, none);
      return;
    }
    /* a dropped statement may have left several calls, or none */
    if (s->cond.body.first != s->cond.body.last) s->cond.one_line = false;
    note_reads(d, s->cond.cond);
    return;
  case KS_BLOCK: {
    walk_block(d, &s->block.body);
    /* a scope that declares nothing is its statements: a step partition.c
     * peeled off a loop, { const int i = 0; ... }, whose variable its
     * decided tests and indices no longer read */
    bool declares = false;
    for (const KirStmt *t = s->block.body.first; t && !declares; t = t->next) declares = t->kind == KS_DECL;
    if (!declares) replace(b, prev, s, s->block.body);
    return;
  }
  case KS_BARRIER: return;
  case KS_RUN:
    /* Every step reads and assigns the names its template does (a step
     * differs from it only in the constants of its indices, and $step is
     * declared nowhere), and within the run nothing is dropped (only a
     * declaration's death drops an assignment: drop_writes, which writes
     * the run out first): the sets after the run are those after its
     * template's statements, noted once. */
    note_run(d, s);
    return;
  case KS_COMMENT:
    /* a comment line says what the statements after it do */
    if (!s->next || s->next->kind == KS_COMMENT) replace(b, prev, s, none);
    return;
  }
  DPIA_EXHAUSTIVE_END
}

enum { BLOCK_ON_STACK = 32 };

static void walk_block(Dead *d, KirBlock *b) {
  /* the statements in an array (on the stack for most blocks: an
   * allocation a block was a tenth of the pass, translation throughput,
   * BENCHMARKS.md) */
  KirStmt *on_stack[BLOCK_ON_STACK], **stmts = on_stack;
  int n = 0, cap = BLOCK_ON_STACK;
  for (KirStmt *s = b->first; s; s = s->next) {
    if (n == cap) {
      KirStmt **more = NEWARRAY(d->arena, KirStmt *, 2 * cap);
      memcpy(more, stmts, sizeof *stmts * (size_t)n);
      stmts = more, cap *= 2;
    }
    stmts[n++] = s;
  }
  /* statements before the current one are not changed yet: the one before
   * it in the array is the one before it in the block */
  for (int i = n - 1; i >= 0; i--) walk_stmt(d, b, i > 0 ? stmts[i - 1] : NULL, stmts[i]);
}

/* The local buffers of kernel scope (k->locals) that no statement left
 * reads or writes (d: the names the whole body reads; the writes looked
 * for only for a buffer nothing reads, assigned_from): a loop
 * over an empty range goes with its body (walk_stmt, KS_FOR), and with it
 * every use of the buffer a toLocal in that body filled, whose declaration
 * clang then warned about (-Wunused-variable, an internal error E0099 in
 * dpia translate after check accepted: reduceRange 5 2 (-1) over rows
 * whose step wrote a toLocal, gen.py --seed 1207 --index 81 --with shared,
 * gen53; tests/diff/regress/empty_range_local_buffer.dpia).  A buffer of
 * symbolic size is a kernel parameter, not declared here, and stays. */
static void drop_unused_locals(Dead *d, KirKernel *k) {
  KirStmt *prev = NULL;
  for (KirStmt *s = k->locals.first, *next; s; s = next) {
    next = s->next;
    if (s->kind == KS_DECL && !nameset_has(&d->read, s->decl.name) && !assigned_from(k->body.first, s->decl.name))
      replace(&k->locals, prev, s, (KirBlock){0});
    else
      prev = s;
  }
}

void kir_drop_dead(Arena *a, KirKernel *k) {
  Dead d = {.arena = a, .foreign = {.arena = a}, .read = {.arena = a}};
  for (int i = 0; i < k->nforeigns; i++) mark(&d.foreign, k->foreigns[i]->name);
  do {
    d.changed = false;
    walk_block(&d, &k->body);
    if (!d.changed) drop_unused_locals(&d, k);
    /* what is left are the kernel's own names (parameters, local buffers) */
    d.read = (NameSet){.arena = a};
    d.last_ix = NULL;
  } while (d.changed);
}
