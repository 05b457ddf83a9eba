/* unroll_step.c: the steps of a loop written out (opencl.c,
 * gen_for_unrolled) copied from one lowering of its body, the step a
 * variable, instead of each lowered again with its own constant.
 *
 * A reduceSeq over 16 elements is 16 statements that differ only in the
 * step's constant, and lowering each walks the whole chain of views again
 * (zip, split, asVector: access.c) and simplifies its indices afresh; that
 * walk was most of what an unrolled step cost (issue 35, BENCHMARKS.md).
 * Here the body is lowered once more, in a trial (CG.trial: nothing
 * reported, noted or marked), with the step the variable $step of range
 * [0, trips), as the body of a loop would be; each step is then that
 * kernel IR with $step replaced by the step's constant in its indices,
 * each index the form each step's own lowering gives it (index.h,
 * ix_simplify), found without the simplifier's search where the index is
 * a flat sum (flat_at_step: the term of $step dropped, its value added to
 * the constant).  What does not change from step to step is found once:
 * the way from each statement to its indices with $step (StepPath), each
 * index's other terms and their coefficients (StepIndex), and whether its
 * sum at a step is the shortest form, once for each key of the step's
 * constant (index_flat.c, ix_flat_constant_key), or for each profile of
 * it where the answer at a constant of more digits tells (the steps asked
 * from the last: ix_flat_constant_profile).
 *
 * Only where that gives what lowering the step gives: every leaf of the
 * body an assignment, lowered to assignments and stores alone (no test, no
 * declaration, no block), and $step only in the indices of elements and
 * vector loads and stores, as a sum of products (no quotient or remainder,
 * no clamp or other atom the simplifier does not see into): where the
 * lowering decides something by the step's value (a clamp or guard dropped
 * at a constant index, padCst's test, a vector's lanes found consecutive at
 * some steps only) $step is elsewhere or under a quotient, and each step is
 * lowered on its own as before.  Step 0 is always lowered on its own, and
 * the copy must give back its statements exactly (kir_expr_equal), else the
 * steps after it are lowered on their own too.  The barrier pass sees each
 * step as it would: before each assignment the site of its command, with
 * the shared accesses the assignment before it made (step 0's, which are
 * each step's: an access is noted by its buffer, not its index).
 *
 * The steps after step 0 are one statement, a run (KS_RUN, kir.h): the
 * trial's statements as a template, each leaf's after its command's site,
 * and each step's indices (KirRunSteps), all found when the run is made,
 * so that whether the copy gives each step's own lowering is decided
 * there.  The passes take the run once where they treat every step as its
 * template (the names it reads and assigns, the tests it holds, the
 * buffers its sites name: each pass says why at its KS_RUN case), and
 * write it out (kir_run_write_out) where they cannot; the rest the
 * OpenCL printer prints from their template (backend_c.c, print_run, by
 * kir_run_leaves and kir_run_row), and are written out for the other
 * printers and for whatever reads the kernel IR after printing
 * (kernel_facts_kir).  A 16-step reduction was 16 statements
 * that every pass walked, differing only in their constants (issue 35). */
#include "cgen.h"
#include "kir.h"

#include <stdint.h>
#include <string.h>

/* '$' is in no DPIA name, nor in any C name made from one */
static const char STEP_VAR[] = "$step";

static bool kir_mentions_step(const KirExpr *e);

static bool ix_mentions_step(const Ix *e) {
  switch (e->kind) {
  case IX_CONST: return false;
  case IX_VAR: return e->name == STEP_VAR || (e->name[0] == '$' && strcmp(e->name, STEP_VAR) == 0);
  case IX_EXPR: return kir_mentions_step(e->expr);
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: return ix_mentions_step(e->a) || ix_mentions_step(e->b);
  }
  return true;
}

static bool kir_mentions_step(const KirExpr *e) {
  if (e->kind == KE_IX) return ix_mentions_step(e->ix);
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++)
    if (kir_mentions_step(kids[i])) return true;
  return false;
}

/* a sum of products of variables and constants: what the simplifier
 * gives the same form for as each step's own index (no atom it does not
 * see into, whose range a statement may have pushed; no quotient) */
static bool ix_plain(const Ix *e) {
  switch (e->kind) {
  case IX_CONST:
  case IX_VAR: return true;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL: return ix_plain(e->a) && ix_plain(e->b);
  case IX_EXPR:
  case IX_DIV:
  case IX_MOD: return false;
  }
  return false;
}

static bool step_only_in_indices(const KirExpr *e);

/* an element's index or a vector's offset: $step in a plain sum */
static bool step_index_ok(const KirExpr *at) {
  if (at->kind == KE_IX) return ix_plain(at->ix) || !ix_mentions_step(at->ix);
  return step_only_in_indices(at);
}

static bool step_only_in_indices(const KirExpr *e) {
  switch (e->kind) {
  case KE_IX: return !ix_mentions_step(e->ix);
  case KE_INDEX: return step_only_in_indices(e->index.base) && step_index_ok(e->index.at);
  case KE_VLOAD: return step_index_ok(e->vload.offset) && step_only_in_indices(e->vload.ptr);
  /* lanes made one by one: found not consecutive for the variable, which
   * they may be at some steps */
  case KE_VECTOR: return !kir_mentions_step(e);
  case KE_INT:
  case KE_VAR:
  case KE_LIT:
  case KE_QUERY:
  case KE_UNARY:
  case KE_BINARY:
  case KE_COND:
  case KE_MEMBER:
  case KE_LANE:
  case KE_CALL:
  case KE_BUILTIN:
  case KE_CAST: break;
  }
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++)
    if (!step_only_in_indices(kids[i])) return false;
  return true;
}

/* the statements of one lowering of the body: before each leaf's, the
 * barrier statement of its command's site */
typedef struct StepStmts {
  int n;
  const KirStmt **items;
} StepStmts;

static StepStmts statements_after(CG *cg, const KirStmt *before, const KirBlock *b) {
  StepStmts s = {0};
  for (const KirStmt *x = before ? before->next : b->first; x; x = x->next) s.n++;
  s.items = NEWARRAY(cg->arena, const KirStmt *, s.n > 0 ? s.n : 1);
  int i = 0;
  for (const KirStmt *x = before ? before->next : b->first; x; x = x->next) s.items[i++] = x;
  return s;
}

/* the body lowered with the step the variable: sites and assignments or
 * stores alone, $step only where step_only_in_indices allows it, one
 * site per leaf */
static bool copyable(const StepStmts *s, int leaves) {
  int sites = 0;
  for (int i = 0; i < s->n; i++) {
    const KirStmt *x = s->items[i];
    switch (x->kind) {
    case KS_BARRIER:
      if (!x->barrier.site || x->barrier.site->kind != KSITE_COMMAND) return false;
      sites++;
      break;
    case KS_ASSIGN:
      if (i == 0 || !step_only_in_indices(x->assign.lhs) || !step_only_in_indices(x->assign.rhs)) return false;
      break;
    case KS_VSTORE:
      if (i == 0 || !step_index_ok(x->vstore.offset) || !step_only_in_indices(x->vstore.value) ||
          !step_only_in_indices(x->vstore.ptr))
        return false;
      break;
    case KS_DECL:
    case KS_FOR:
    case KS_IF:
    case KS_BLOCK:
    case KS_EXPR:
    case KS_COMMENT:
    case KS_RUN: return false;
    }
  }
  return sites == leaves;
}

/* ---- the copy of a step ---- */

/* An index with $step as every step reads it (StepIndex): a flat sum s
 * with the term $step*c (c > 0, or $step alone) is at step t the other
 * terms as they are, in their order, and c*t added to the constant, which
 * comes last.  Where the sum is the shortest form of its polynomial
 * (ix_is_flat_and_shortest) this is what ix_simplify gives for it, the
 * order of the terms that are not constant being the polynomial's
 * whatever the constant; it is checked against step 0's own lowering
 * (same_as_step0, AtStep.compared) and ix_simplify's at step 1
 * (AtStep.both), the form of the sum and of its constant being the same
 * at every step after.  The other terms' sum is made once for
 * all the steps, and whether the index at a step is the shortest form is
 * found once for each key of its constant (ix_flat_constant_key): the
 * same sum and a constant of the same key are the same search; a yes at a
 * constant of the same key but for more digits of its own is a yes too
 * (ix_flat_constant_profile). */
enum { STEP_INDEX_ANSWERS = 16, STEP_INDICES = 8 };

typedef struct StepIndex {
  const Ix *from;
  bool flat;          /* the form above: others, c, c0 */
  const Ix *others;   /* the terms but $step's and the constant; NULL: none */
  int64_t c, c0;
  IxFlatSum read;     /* others read once for every step's constant */
  int apart; /* the answer at every constant apart from the others' coefficients: -1 not yet asked */
  int nanswers;
  IxFlatConstantKey keys[STEP_INDEX_ANSWERS]; /* profiles (ix_flat_constant_profile) */
  int kdigits[STEP_INDEX_ANSWERS];
  bool shortest[STEP_INDEX_ANSWERS];
} StepIndex;

/* the indices with $step of one copy of the body, read once */
typedef struct StepIndices {
  int n;
  StepIndex *items[STEP_INDICES];
} StepIndices;

/* si zeroed (NEW), filled where from has the form above */
static void read_step_index(IxCtx *x, const Ix *s, StepIndex *si) {
  enum { MOST = 8 };
  si->from = s;
  const Ix *terms[MOST];
  int n = 0;
  for (; s->kind == IX_ADD; s = s->a) {
    if (n == MOST - 1) return;
    terms[n++] = s->b;
  }
  terms[n++] = s;
  int64_t c = 0, c0 = 0;
  const Ix *sum = NULL;
  for (int i = n - 1; i >= 0; i--) { /* first term first */
    const Ix *term = terms[i];
    if (term->kind == IX_ADD || term->kind == IX_SUB) return;
    if (ix_mentions_step(term)) {
      if (c) return;
      if (term->kind == IX_VAR)
        c = 1;
      else if (term->kind == IX_MUL && term->a->kind == IX_VAR && ix_mentions_step(term->a) &&
               term->b->kind == IX_CONST && term->b->value > 0)
        c = term->b->value;
      else
        return;
      continue;
    }
    if (term->kind == IX_CONST) {
      if (i != 0 || term->value < 0) return; /* the last term */
      c0 = term->value;
      continue;
    }
    sum = sum ? ix_add(x, sum, term) : term;
  }
  if (!c) return;
  si->flat = true;
  si->others = sum, si->c = c, si->c0 = c0;
  si->apart = -1;
  ix_flat_sum_read(sum, &si->read);
}

static StepIndex *step_index(CG *cg, StepIndices *known, const Ix *from) {
  for (int i = 0; i < known->n; i++)
    if (known->items[i]->from == from) return known->items[i];
  StepIndex *si = NEW(cg->arena, StepIndex);
  read_step_index(&cg->ix, from, si);
  if (known->n < STEP_INDICES) known->items[known->n++] = si;
  return si;
}

/* the index at step t where it has the form above, else NULL */
static const Ix *flat_at_step(IxCtx *x, const StepIndex *si, int64_t t) {
  if (!si->flat || t < 0 || t > (INT32_MAX - si->c0) / si->c) return NULL;
  int64_t k = si->c0 + si->c * t;
  if (!si->others) return ix_const(x, k);
  return k ? ix_add(x, si->others, ix_const(x, k)) : si->others;
}

/* ix_is_flat_and_shortest(made), made = flat_at_step(si, t): by an
 * answer kept for the constant's profile (ix_flat_constant_profile) where
 * one tells it, a yes at as many digits of the constant or more, a no at
 * as many or fewer (indices_of_steps asks the larger constants first) */
static bool flat_at_step_shortest(StepIndex *si, const Ix *made, int64_t t) {
  int64_t k = si->c0 + si->c * t;
  IxFlatConstantKey profile;
  int kdigits;
  if (si->read.n < 0) return ix_is_flat_and_shortest(made);
  /* a constant apart (most odd steps): one key, one answer, found without
   * the key */
  if (ix_flat_constant_apart(&si->read, k)) {
    if (si->apart < 0) si->apart = ix_flat_sum_shortest(&si->read, k);
    return si->apart;
  }
  if (!ix_flat_constant_profile(&si->read, k, &profile, &kdigits)) return ix_flat_sum_shortest(&si->read, k);
  for (int i = 0; i < si->nanswers; i++) {
    if (memcmp(&si->keys[i], &profile, sizeof profile) != 0) continue;
    if (ix_flat_profile_tells(si->shortest[i], si->kdigits[i], kdigits)) return si->shortest[i];
  }
  bool shortest = ix_flat_sum_shortest(&si->read, k);
  if (si->nanswers < STEP_INDEX_ANSWERS) {
    si->keys[si->nanswers] = profile;
    si->kdigits[si->nanswers] = kdigits;
    si->shortest[si->nanswers++] = shortest;
  }
  return shortest;
}

typedef struct AtStep {
  CG *cg;
  const Ix *value; /* the step's constant */
  StepIndices *indices;
  /* the index made by flat_at_step where it applies (cheap) and
   * checked against ix_simplify's (both); else ix_simplify's */
  bool cheap, both;
  /* the copy is compared with the step's own lowering, statement by
   * statement (same_as_step0): an index flat_at_step makes is taken as
   * it is, that comparison telling whether it is the lowering's */
  bool compared;
  /* every index made is one that lowering the step gives too: a flat sum
   * no other form prints shorter (ix_is_flat_and_shortest), which
   * ix_simplify gives however the step's lowering wrote the index; where
   * one is not (a sum that factors, gid*M*2 + M + 1 + i: the step's own
   * lowering keeps its order as written), the steps are lowered on their
   * own */
  bool same;
  /* the indices made at this step, by the index with $step they come
   * from: a step's reads of several buffers at one index (a zip's two
   * inputs) make it once; a few, the oldest replaced */
  struct {
    const Ix *from, *made;
  } known[4];
  int next_known;
} AtStep;

static const Ix *ix_at_step(IxCtx *x, const Ix *e, const Ix *value) {
  const Ix *a, *b;
  switch (e->kind) {
  case IX_CONST: return e;
  case IX_VAR: return e->name == STEP_VAR || (e->name[0] == '$' && strcmp(e->name, STEP_VAR) == 0) ? value : e;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
    a = ix_at_step(x, e->a, value);
    b = ix_at_step(x, e->b, value);
    if (a == e->a && b == e->b) return e;
    return e->kind == IX_ADD ? ix_add(x, a, b) : e->kind == IX_SUB ? ix_sub(x, a, b) : ix_mul(x, a, b);
  case IX_EXPR:
  case IX_DIV:
  case IX_MOD: break;
  }
  return e; /* not plain: copyable keeps $step out of these */
}

/* the index e (with $step) at the step */
static const Ix *ix_index_at_step(AtStep *at, const Ix *e) {
  int n = (int)(sizeof at->known / sizeof at->known[0]);
  for (int i = 0; i < n; i++)
    if (at->known[i].from && (at->known[i].from == e || ix_equal(at->known[i].from, e))) return at->known[i].made;
  IxCtx *x = &at->cg->ix;
  StepIndex *si = at->cheap || at->both || at->compared ? step_index(at->cg, at->indices, e) : NULL;
  const Ix *made = si ? flat_at_step(x, si, at->value->value) : NULL;
  bool shortest;
  if (made && at->compared) {
    shortest = true;
  } else if (!made || (at->both && !si->read.ordered)) {
    const Ix *simplified = ix_simplify(x, ix_at_step(x, e, at->value));
    /* where flat_at_step's sum is ix_simplify's, whether it is the
     * shortest form is asked by its constant's key (flat_at_step_shortest,
     * the same answer), which the steps after share */
    bool flat = made && ix_equal(made, simplified);
    if (made && !flat) at->same = false;
    shortest = flat ? flat_at_step_shortest(si, made, at->value->value) : ix_is_flat_and_shortest(simplified);
    made = simplified;
  } else {
    /* at step 1 too where the other terms are in build's order
     * (IxFlatSum.ordered): ix_simplify gives made exactly where it is
     * the shortest form (tests/unit/test_index_flat.c), and where it is
     * not, no step is copied */
    shortest = flat_at_step_shortest(si, made, at->value->value);
  }
  if (!shortest) at->same = false;
  at->known[at->next_known].from = e;
  at->known[at->next_known].made = made;
  at->next_known = (at->next_known + 1) % n;
  return made;
}

static const KirExpr *index_at_step(AtStep *at, const KirExpr *e) {
  return kir_ix(at->cg->arena, ix_index_at_step(at, e->ix));
}

/* The way from an expression of the body's lowering to its indices with
 * $step, found once for all the steps: each step walks and rebuilds only
 * the nodes on it, and keeps every other subexpression as it is (no
 * $step: the same at every step).  A leaf (an index with $step) has its
 * slot among the run's distinct indices (KirRunSteps). */
typedef struct StepPath {
  const KirExpr *e;
  const struct StepPath **kids; /* by e's children; NULL where one has no $step */
  int slot;                     /* a leaf's */
} StepPath;

static const StepPath *step_path(Arena *a, const KirExpr *e) {
  if (e->kind == KE_IX) {
    if (!ix_mentions_step(e->ix)) return NULL;
    StepPath *leaf = NEW(a, StepPath);
    leaf->e = e;
    return leaf;
  }
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  const StepPath **ways = NULL;
  for (int i = 0; i < n; i++) {
    const StepPath *way = step_path(a, kids[i]);
    if (!way) continue;
    if (!ways) ways = NEWARRAY(a, const StepPath *, n);
    ways[i] = way;
  }
  if (!ways) return NULL;
  StepPath *p = NEW(a, StepPath);
  p->e = e;
  p->kids = ways;
  return p;
}

static const KirExpr *path_at_step(AtStep *at, const StepPath *p) {
  if (!p->kids) return index_at_step(at, p->e);
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(p->e, buf, &kids);
  const KirExpr **made = NEWARRAY(at->cg->arena, const KirExpr *, n);
  for (int i = 0; i < n; i++) made[i] = p->kids[i] ? path_at_step(at, p->kids[i]) : kids[i];
  return kir_expr_rebuilt(at->cg->arena, p->e, made);
}

/* the expressions of an assignment or a store (copyable's statements),
 * *slots[i] each; 0 for any other statement */
static int expr_slots(KirStmt *x, const KirExpr **slots[3]) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (x->kind) {
  case KS_ASSIGN:
    slots[0] = &x->assign.lhs, slots[1] = &x->assign.rhs;
    return 2;
  case KS_VSTORE:
    slots[0] = &x->vstore.value, slots[1] = &x->vstore.offset, slots[2] = &x->vstore.ptr;
    return 3;
  case KS_DECL:
  case KS_FOR:
  case KS_IF:
  case KS_BLOCK:
  case KS_EXPR:
  case KS_BARRIER:
  case KS_COMMENT:
  case KS_RUN: return 0;
  }
  DPIA_EXHAUSTIVE_END
  return 0;
}

/* a statement of the body's lowering and the ways to its indices */
typedef struct StepStmt {
  const KirStmt *x;
  StepPath *ways[3];
} StepStmt;

static StepStmt step_stmt(Arena *a, const KirStmt *x) {
  StepStmt s = {.x = x};
  KirStmt copy = *x;
  const KirExpr **slots[3];
  int n = expr_slots(&copy, slots);
  for (int i = 0; i < n; i++) s.ways[i] = (StepPath *)step_path(a, *slots[i]);
  return s;
}

/* x (an assignment or store) with the expressions of ways made by f */
typedef const KirExpr *(*PathMade)(void *ctx, const StepPath *way);

static KirStmt *stmt_made(Arena *a, const StepStmt *x, PathMade f, void *ctx) {
  KirStmt *c = kir_stmt(a, x->x->kind);
  *c = *x->x;
  c->next = NULL;
  const KirExpr **slots[3];
  int n = expr_slots(c, slots);
  for (int i = 0; i < n; i++)
    if (x->ways[i]) *slots[i] = f(ctx, x->ways[i]);
  return c;
}

static const KirExpr *path_made_at_step(void *at, const StepPath *way) { return path_at_step(at, way); }

/* statement x (an assignment or store) at step value, appended to b;
 * an assignment of a value to itself is none (gen_assign's x = x:
 * acc[2] = acc[2] at the step where its two indices meet).  false where
 * an index is not the one the step's lowering gives (AtStep.same). */
static bool add_at_step(AtStep *at, KirBlock *b, const StepStmt *x) {
  KirStmt *c = stmt_made(at->cg->arena, x, path_made_at_step, at);
  if (c->kind == KS_ASSIGN && kir_expr_equal(c->assign.lhs, c->assign.rhs)) return at->same;
  kir_append(b, c);
  return at->same;
}

/* the copy at step 0 is what lowering step 0 gave */
static bool same_as_step0(CG *cg, const StepStmts *sym, const StepStmt *ways, StepIndices *indices,
                          const StepStmts *step0) {
  KirBlock check = {0};
  AtStep at = {.cg = cg, .value = ix_const(&cg->ix, 0), .indices = indices, .compared = true, .same = true};
  for (int i = 0; i < sym->n; i++)
    if (sym->items[i]->kind != KS_BARRIER && !add_at_step(&at, &check, &ways[i])) return false;
  int j = 0;
  const KirStmt *c = check.first;
  for (; j < step0->n; j++) {
    const KirStmt *d = step0->items[j];
    if (d->kind == KS_BARRIER) continue;
    if (!c || c->kind != d->kind) return false;
    bool same = d->kind == KS_ASSIGN
                    ? kir_expr_equal(c->assign.lhs, d->assign.lhs) && kir_expr_equal(c->assign.rhs, d->assign.rhs)
                    : c->vstore.width == d->vstore.width && kir_expr_equal(c->vstore.value, d->vstore.value) &&
                          kir_expr_equal(c->vstore.offset, d->vstore.offset) &&
                          kir_expr_equal(c->vstore.ptr, d->vstore.ptr);
    if (!same) return false;
    c = c->next;
  }
  return c == NULL;
}

static void leaves_of(CG *cg, const Phrase *p, Vec *out) {
  if (p->kind == PH_SEQ) {
    leaves_of(cg, p->fst, out);
    leaves_of(cg, p->snd, out);
  } else {
    vec_push(cg->arena, out, (void *)p);
  }
}

/* the shared accesses each leaf of step 0 made: those of the site after
 * its own, the last leaf's still pending (CG.accesses) */
/* the site of each leaf's command in step 0, whose sets a copy's site
 * takes (barriers.c, cg_copied_command) */
static const KirSite **leaf_sites(CG *cg, const StepStmts *step0, int leaves) {
  const KirSite **made = NEWARRAY(cg->arena, const KirSite *, leaves);
  for (int i = 0, leaf = 0; i < step0->n && leaf < leaves; i++)
    if (((const KirStmt *)step0->items[i])->kind == KS_BARRIER)
      made[leaf++] = ((const KirStmt *)step0->items[i])->barrier.site;
  return made;
}

static Vec *leaf_accesses(CG *cg, const StepStmts *step0, int leaves) {
  Vec *made = NEWARRAY(cg->arena, Vec, leaves);
  int leaf = -1;
  for (int i = 0; i < step0->n; i++) {
    const KirStmt *x = step0->items[i];
    if (x->kind != KS_BARRIER) continue;
    if (leaf >= 0) {
      const KirSite *site = x->barrier.site;
      made[leaf] = (Vec){0};
      for (int a = 0; a < site->naccesses; a++) vec_push(cg->arena, &made[leaf], (void *)&site->accesses[a]);
    }
    leaf++;
  }
  made[leaves - 1] = (Vec){0};
  for (int a = 0; a < cg->accesses.len; a++) vec_push(cg->arena, &made[leaves - 1], cg->accesses.items[a]);
  return made;
}

/* ---- the steps as one run (KS_RUN) ---- */

/* What a run's steps differ in: the indices with $step of its template
 * (its slots, each distinct index once) at each step, found when the run
 * is made, where they decide whether the copy gives each step's own
 * lowering (AtStep.same); and the ways to them from each statement of the
 * template that is not a site, in the template's order. */
struct KirRunSteps {
  int nslots;
  const Ix **from; /* [nslots] */
  const Ix **made; /* [count][nslots]: the step first + t at t */
  int nstmts;
  StepStmt *stmts; /* [nstmts] */
};

static void note_slots(Arena *a, StepPath *p, Vec *from) {
  if (!p) return;
  if (!p->kids) {
    for (int i = 0; i < from->len; i++)
      if (from->items[i] == p->e->ix || ix_equal(from->items[i], p->e->ix)) {
        p->slot = i;
        return;
      }
    p->slot = from->len;
    vec_push(a, from, (void *)p->e->ix);
    return;
  }
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(p->e, buf, &kids);
  for (int i = 0; i < n; i++) note_slots(a, (StepPath *)p->kids[i], from);
}

/* the indices of steps 1 .. trips - 1, or NULL where one is not what
 * the step's own lowering gives (then each step is lowered on its own) */
static struct KirRunSteps *indices_of_steps(CG *cg, StepStmt *ways, int n, StepIndices *indices, int64_t trips) {
  struct KirRunSteps *rs = NEW(cg->arena, struct KirRunSteps);
  Vec from = {0};
  int nstmts = 0;
  for (int i = 0; i < n; i++) {
    if (ways[i].x->kind == KS_BARRIER) continue;
    for (int w = 0; w < 3; w++) note_slots(cg->arena, ways[i].ways[w], &from);
    nstmts++;
  }
  rs->nslots = from.len;
  rs->from = (const Ix **)from.items;
  rs->made = NEWARRAY(cg->arena, const Ix *, (size_t)(trips - 1) * (size_t)(from.len > 0 ? from.len : 1));
  rs->nstmts = nstmts;
  rs->stmts = NEWARRAY(cg->arena, StepStmt, nstmts > 0 ? nstmts : 1);
  int j = 0;
  for (int i = 0; i < n; i++)
    if (ways[i].x->kind != KS_BARRIER) rs->stmts[j++] = ways[i];
  /* step 1, checked against ix_simplify, then the others from the last:
   * a constant's answer tells those of its profile with fewer digits
   * where it is yes (flat_at_step_shortest), most of the steps' */
  for (int64_t u = 1; u < trips; u++) {
    int64_t t = u == 1 ? 1 : trips + 1 - u;
    AtStep at = {
        .cg = cg, .value = ix_const(&cg->ix, t), .indices = indices, .cheap = t > 1, .both = t == 1, .same = true};
    for (int s = 0; s < from.len; s++) rs->made[(t - 1) * from.len + s] = ix_index_at_step(&at, from.items[s]);
    if (!at.same) return NULL;
  }
  return rs;
}

/* the ways of a run at one of its steps: each leaf the slot's index */
typedef struct MadeAt {
  Arena *arena;
  const Ix *const *made; /* the step's row */
} MadeAt;

/* The node on a way at a step: the template's node with the children on
 * the way made at the step.  A copy of the node, its type kept: every
 * child on a way has its template child's type (an index is an int, and
 * each node above keeps its kind and its children's types), so that the
 * constructors (kir_expr_rebuilt) would derive the same type again. */
static const KirExpr *path_made(void *ctx, const StepPath *p) {
  const MadeAt *m = ctx;
  if (!p->kids) return kir_ix(m->arena, m->made[p->slot]);
  const KirExpr *e = p->e;
  KirExpr *c = NEW(m->arena, KirExpr);
  *c = *e;
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  const KirExpr **args = NULL; /* a call's, a cast's, a vector's own */
  if (kids != buf) {
    args = NEWARRAY(m->arena, const KirExpr *, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) args[i] = kids[i];
    c->call.args = args;
  }
  for (int i = 0; i < n; i++) {
    if (!p->kids[i]) continue;
    const KirExpr *made = path_made(ctx, p->kids[i]);
    if (args) {
      args[i] = made;
      continue;
    }
    DPIA_EXHAUSTIVE_BEGIN
    switch (e->kind) {
    case KE_UNARY: c->un.operand = made; break;
    case KE_BINARY: *(i == 0 ? &c->bin.lhs : &c->bin.rhs) = made; break;
    case KE_COND: *(i == 0 ? &c->cond.test : i == 1 ? &c->cond.then : &c->cond.other) = made; break;
    case KE_INDEX: *(i == 0 ? &c->index.base : &c->index.at) = made; break;
    case KE_MEMBER: c->member.base = made; break;
    case KE_LANE: c->lane.base = made; break;
    case KE_VLOAD: *(i == 0 ? &c->vload.offset : &c->vload.ptr) = made; break;
    case KE_INT:
    case KE_VAR:
    case KE_LIT:
    case KE_IX:
    case KE_QUERY:
    case KE_CALL:
    case KE_BUILTIN:
    case KE_CAST:
    case KE_VECTOR: INTERNAL("a way through a node of kind %d with no children of its own", (int)e->kind);
    }
    DPIA_EXHAUSTIVE_END
  }
  return c;
}

/* the statements of step first + t of rs appended to b, the sites
 * (copies of the template's site statements) where sites; an assignment
 * of a value to itself left out, as add_at_step does */
static void append_step(Arena *a, const struct KirRunSteps *rs, const KirBlock *template, int64_t t, bool sites,
                        KirBlock *b) {
  MadeAt m = {a, rs->made + t * rs->nslots};
  int j = 0;
  for (const KirStmt *x = template->first; x; x = x->next) {
    if (!kir_run_template_stmt(x)) {
      if (!sites) continue;
      KirStmt *c = kir_stmt(a, KS_BARRIER);
      *c = *x;
      c->next = NULL;
      kir_append(b, c);
      continue;
    }
    KirStmt *c = stmt_made(a, &rs->stmts[j++], path_made, &m);
    if (c->kind == KS_ASSIGN && kir_expr_equal(c->assign.lhs, c->assign.rhs)) continue;
    kir_append(b, c);
  }
}

KirBlock kir_run_steps(Arena *a, const KirStmt *run, bool sites) {
  if (run->kind != KS_RUN) INTERNAL("kir_run_steps of a statement that is not a run");
  const char *why = kir_stmt_type_violation(run);
  if (why) INTERNAL("a run of steps is not of its shape: %s", why);
  KirBlock out = {0};
  for (int64_t t = 0; t < run->run.count; t++) append_step(a, run->run.steps, &run->run.body, t, sites, &out);
  return out;
}

KirStmt *kir_run_write_out(Arena *a, KirBlock *b, KirStmt *prev, KirStmt *run) {
  KirBlock steps = kir_run_steps(a, run, false);
  KirStmt *next = run->next;
  KirStmt *first = steps.first ? steps.first : next;
  if (steps.last) steps.last->next = next;
  if (prev)
    prev->next = first;
  else
    b->first = first;
  if (!next) b->last = steps.last ? steps.last : prev;
  return first;
}

void kir_write_out_runs_in(Arena *a, KirBlock *b) {
  KirStmt *prev = NULL;
  for (KirStmt *s = b->first; s;) {
    if (s->kind == KS_RUN) {
      s = kir_run_write_out(a, b, prev, s); /* its steps: assignments and stores */
      continue;
    }
    KirBlock *inner = kir_body(s);
    if (inner) kir_write_out_runs_in(a, inner);
    prev = s;
    s = s->next;
  }
}

void kir_write_out_runs(Arena *a, KirKernel *k) {
  if (k->runs_made && !k->runs_out) kir_write_out_runs_in(a, &k->body);
  k->runs_out = true;
}

static int leaves_on(const StepPath *p, const KirExpr **leaves, int *slots, int n, int most) {
  if (!p || n < 0) return n;
  if (!p->kids) {
    if (n == most) return -1;
    leaves[n] = p->e, slots[n] = p->slot;
    return n + 1;
  }
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int nkids = kir_expr_children(p->e, buf, &kids);
  for (int i = 0; i < nkids; i++) n = leaves_on(p->kids[i], leaves, slots, n, most);
  return n;
}

int kir_run_leaves(const KirStmt *run, int j, const KirExpr **leaves, int *slots, int most) {
  const struct KirRunSteps *rs = run->run.steps;
  if (j < 0 || j >= rs->nstmts) INTERNAL("a run's statement %d of %d", j, rs->nstmts);
  int n = 0;
  for (int w = 0; w < 3; w++) n = leaves_on(rs->stmts[j].ways[w], leaves, slots, n, most);
  return n;
}

int kir_run_slots(const KirStmt *run) { return run->run.steps->nslots; }

const Ix *const *kir_run_row(const KirStmt *run, int64_t t) {
  const struct KirRunSteps *rs = run->run.steps;
  if (t < 0 || t >= run->run.count) INTERNAL("a run's indices at step %lld of %lld", (long long)t, (long long)run->run.count);
  return rs->made + t * rs->nslots;
}


/* An assignment that may be one of a value to itself at some step (its
 * two sides of one kind, acc[$step] = acc[2]): add_at_step leaves such
 * a step out, and a pass that looks at the template would not know; the
 * steps are written out where they are made. */
static bool may_assign_itself(const struct KirRunSteps *rs) {
  for (int i = 0; i < rs->nstmts; i++) {
    const KirStmt *x = rs->stmts[i].x;
    if (x->kind == KS_ASSIGN && x->assign.lhs->kind == x->assign.rhs->kind) return true;
  }
  return false;
}

int64_t gen_steps_by_copy(CG *cg, const Phrase *loop, const Phrase *lam, int64_t trips) {
  if (cg->unroll_directly || trips < 2 || loop->dep_index || cg->probe || cg->trial || cg->failed) return 0;
  Vec leaves = {0};
  leaves_of(cg, lam->body, &leaves);
  for (int i = 0; i < leaves.len; i++)
    if (((const Phrase *)leaves.items[i])->kind != PH_ASSIGN) return 0;
  IxCtx *x = &cg->ix;

  /* step 0, lowered on its own */
  KirStmt *before = cg->block->last;
  env_add(cg, lam->lam_binder, ENV_INDEX, NULL, ix_const(x, 0), NULL);
  gen_comm(cg, lam->body);
  if (cg->failed) return 1;
  StepStmts step0 = statements_after(cg, before, cg->block);

  /* the body with the step a variable, in a trial, into a block of its
   * own; the accesses step 0 left pending kept for its next site, and
   * what the kernel declares (its structs, a use of double) as step 0
   * left it: the copies use only what step 0 did (same_as_step0) */
  Vec pending = cg->accesses;
  int nstructs = cg->structs.len;
  bool uses_double = cg->uses_double;
  cg->accesses = (Vec){0};
  KirBlock trial = {0}, *outer = cg->block;
  cg->block = &trial;
  int mark;
  cg_scope_enter(cg, &mark);
  bool outer_failed = cg->trial_failed;
  cg->trial_failed = false;
  cg->trial++;
  const Ix *step = ix_var(x, STEP_VAR);
  ix_push_range(x, step, NULL, ix_const(x, trips));
  env_add(cg, lam->lam_binder, ENV_INDEX, NULL, step, NULL);
  gen_comm(cg, lam->body);
  ix_pop_range(x);
  cg->trial--;
  bool lowered = !cg->trial_failed;
  cg->trial_failed = outer_failed;
  cg_scope_leave(cg, mark);
  cg->block = outer;
  cg->accesses = pending;
  cg->structs.len = nstructs;
  cg->uses_double = uses_double;
  StepStmts sym = statements_after(cg, NULL, &trial);
  if (!lowered || !copyable(&sym, leaves.len)) return 1;
  StepStmt *ways = NEWARRAY(cg->arena, StepStmt, sym.n > 0 ? sym.n : 1);
  for (int i = 0; i < sym.n; i++) ways[i] = step_stmt(cg->arena, sym.items[i]);
  /* the indices read once, for the check at step 0 and every step */
  StepIndices indices = {0};
  if (!same_as_step0(cg, &sym, ways, &indices, &step0)) return 1;
  /* each step's indices, all found before any step is added: where one
   * is not what the step's lowering gives, no step is copied */
  struct KirRunSteps *rs = indices_of_steps(cg, ways, sym.n, &indices, trips);
  if (!rs) return 1;

  int nleaves = leaves.len;
  Vec *accesses = leaf_accesses(cg, &step0, nleaves);
  const KirSite **models = leaf_sites(cg, &step0, nleaves);
  if (!cg->runs_written_out && !may_assign_itself(rs)) {
    /* One run: the template is the trial's statements, each leaf's after
     * the site of its command, made once: a site holds the command's
     * buffers (the same at every step, as the environment differs only in
     * the step's value) and the accesses the command before it made (the
     * leaf before's, or the last leaf's of the step before: the same at
     * every step after step 0). */
    KirStmt *run = kir_stmt(cg->arena, KS_RUN);
    run->run.first = 1;
    run->run.count = trips - 1;
    run->run.steps = rs;
    KirBlock sites = {0};
    cg->block = &sites;
    env_add(cg, lam->lam_binder, ENV_INDEX, NULL, ix_const(x, 1), NULL);
    int leaf = -1;
    for (int i = 0; i < sym.n; i++) {
      KirStmt *s = (KirStmt *)sym.items[i];
      if (s->kind == KS_BARRIER) {
        const Phrase *p = leaves.items[++leaf];
        cg->where = p->span;
        cg_copied_command(cg, p, &accesses[leaf], models[leaf]);
        s = sites.last;
        sites = (KirBlock){0}; /* the next site's statement is not linked after it */
      }
      s->next = NULL;
      kir_append(&run->run.body, s);
    }
    cg->block = outer;
    if (trips > 2) env_add(cg, lam->lam_binder, ENV_INDEX, NULL, ix_const(x, trips - 1), NULL);
    kir_append(cg->block, run);
    cg->steps_copied += (int)(trips - 1);
    cg->runs_made++;
    return trips;
  }

  /* each step's statements written out, with the site of each leaf's
   * command before its statements */
  KirBlock template = {0};
  for (int i = 0; i < sym.n; i++) {
    KirStmt *s = (KirStmt *)sym.items[i];
    s->next = NULL;
    kir_append(&template, s);
  }
  for (int64_t t = 1; t < trips; t++) {
    env_add(cg, lam->lam_binder, ENV_INDEX, NULL, ix_const(x, t), NULL);
    KirBlock made = {0};
    append_step(cg->arena, rs, &template, t - 1, true, &made);
    int leaf = -1;
    for (KirStmt *c = made.first, *next; c; c = next) {
      next = c->next;
      c->next = NULL;
      if (c->kind == KS_BARRIER) {
        const Phrase *p = leaves.items[++leaf];
        cg->where = p->span;
        cg_copied_command(cg, p, &accesses[leaf], models[leaf]);
        continue;
      }
      kir_append(cg->block, c);
    }
    cg->steps_copied++;
  }
  return trips;
}
