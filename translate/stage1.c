/* stage1.c: translation stage I, the acceptor-passing translation A and the
 * continuation-passing translation C of paper Figure 5, with the OpenCL
 * readings of spec section 6.
 *
 *   A[[E]](A)  a command that writes the value of E into acceptor A;
 *   C[[E]](K)  a command that computes E and passes it to K : exp[d] -> comm.
 *
 * Continuations are object-level lambdas; applying one substitutes at once
 * (no administrative redexes are left, cf. the paper's remark on one-pass
 * CPS).  The input is a normalized functional body: spines of primitives,
 * lambdas only as their function arguments, binary operators, literals and
 * variables. */
#include "translate.h"

#include "build.h"
#include "in_place_groups.h"
#include "in_place_step.h"

#include <string.h>

/* Where C[[map]] allocates its temporary: newGlobal, or the memory of the
 * enclosing toLocal/toPrivate (spec section 6), whose argument's maps
 * make theirs there too (any).  A parallel map's (mapGlobal, mapWorkgroup,
 * mapLocal), or that of a sequential map or scan whose function holds one,
 * is never private (parallel): each work-item would hold only the
 * elements it wrote, where the others read them all; in toPrivate's
 * function a parallel map is refused (E0603), and one in its argument
 * (xs |> mapLocal f |> toPrivate (mapSeq g)) has its temporary where it
 * would have it without the toPrivate (run_diff.py --derived, seed 1126
 * #92: a mapLocal's private tmp, read whole by every work-item, E0003;
 * seed 1127 #183: a mapSeq (mapLocal f)'s). */
typedef struct TempMemory {
  Prim any, parallel;
} TempMemory;

typedef struct Stage1 {
  Builder b;
  TempMemory temp_memory;
  /* names of the def's parameters so far: the kernel's, the output and
   * the global temporaries, which hoisting makes parameters (see
   * param_name_for) */
  NameSet params;
  /* the user's lambdas apply_fn has applied, and the parameters open_fn
   * has taken, by address (open addressing, at most half full): the first
   * application of each lambda shares its body, and a parameter is bound
   * by one lambda of the result */
  const void **applied;
  int applied_cap, applied_len;
  /* Figure 5's rules as written: every application of a user's lambda
   * by substitution, none taking its parameter as it is (open_fn), and
   * every operand of a value by a continuation of its own, none made
   * directly (passed_through): translate_stage1_plain, for test stage1,
   * which compares the two */
  bool plain;
} Stage1;

static Phrase *acc_tr(Stage1 *s, Phrase *e, Phrase *acc);
static Phrase *con_tr(Stage1 *s, Phrase *e, Phrase *k);
static Phrase *con_rules(Stage1 *s, Phrase *e, Phrase *k);
static Phrase *passed_through(Stage1 *s, Phrase *e);
static bool handed_on(const Phrase *a);
static Phrase *materialise(Stage1 *s, Prim memory, const char *name, Phrase *e, Phrase *k);

/* the memory of the temporary of map, scan or window e whose function is f */
static Prim temp_memory_of(const Stage1 *s, const Phrase *head, const Phrase *f) {
  return prim_spans_items(head->prim) || phrase_has_prim(f, prim_spans_items) ? s->temp_memory.parallel
                                                                              : s->temp_memory.any;
}

/* the temporaries of the maps inside (and in the argument of) toM are in
 * memory M, a parallel map's only if M is shared: the memory before */
static TempMemory enter_memory(Stage1 *s, Prim memory) {
  TempMemory saved = s->temp_memory;
  s->temp_memory.any = memory;
  if (memory != PRIM_NEW_PRIVATE) s->temp_memory.parallel = memory;
  return saved;
}

/* ---- spines ---- */

/* e's spine (phrase.h), true when its head is a primitive */
static bool spine_of(Arena *a, Phrase *e, Spine *sp) {
  phrase_spine(a, e, sp);
  return sp->head->kind == PH_PRIM;
}

/* ---- continuations ---- */

/* K v.  A continuation's parameter is used once (each continuation of
 * this file names its value in one place) and K is applied once, so the
 * one variable is overwritten with v in place: no copy of K's body, which
 * holds the rest of the program (copying it at every stage made the
 * translation quadratic in the number of stages).  A continuation whose
 * parameter has another number of variables (a copy) is substituted.
 *
 * The invariant the in-place form relies on: between the building of
 * \x -> body and its application, nothing copies the variable of x (the
 * only copies in this file are phrase_subst of the user's lambdas, into
 * which no continuation's variable is substituted, and the substituting
 * branch below, taken for no continuation built here), and K is applied
 * at most once (each path of con_tr applies its K once, or passes it on
 * as a reduction's K, which stage II applies).  A second variable made
 * by a copy would be left behind, free; a second application would find
 * the body already filled.  Both are caught: x is marked consumed
 * (nuses -1), a second application is an internal error, and
 * translate_stage1 checks that no consumed binder's variable is left
 * (no_consumed_left), or its caller does, checking the result's
 * invariants (translate_stage1_checked_after: phrase_invariant_violation
 * finds a variable of a consumed binder). */
static Phrase *apply_k(Stage1 *s, Phrase *k, Phrase *v) {
  if (k->kind != PH_LAM) return b_app(&s->b, k, v);
  Binder *x = k->lam_binder;
  if (x->nuses < 0) INTERNAL("stage I: continuation \\%s applied twice", x->name);
  Phrase *use = x->sole_use;
  if (x->nuses != 1 || use->kind != PH_VAR || use->binder != x)
    return phrase_subst(s->b.arena, s->b.tc, k->body, x, v);
  *use = *v;
  x->nuses = -1; /* consumed: no variable of x is left (no_consumed_left) */
  if (v->kind == PH_VAR && v->binder->sole_use == v) v->binder->sole_use = use;
  return k->body;
}

/* The check of apply_k's invariant over the translated body: no variable
 * of a consumed continuation parameter is left (a copy of it, made
 * before its continuation was applied, would be free).  One walk of the
 * result; the acceptors a select's sides share are walked once per side. */
static void no_consumed_left(const Phrase *p) {
  for (;;) {
    switch (p->kind) {
    case PH_VAR:
      if (p->binder->nuses < 0) INTERNAL("stage I: a variable of the applied continuation \\%s is left", p->binder->name);
      return;
    case PH_LAM: p = p->body; continue;
    case PH_PROJ:
    case PH_UNOP: p = p->fst; continue;
    case PH_APP:
    case PH_PAIR:
    case PH_SEQ:
    case PH_ASSIGN:
    case PH_BINOP:
      no_consumed_left(p->fst);
      p = p->snd;
      continue;
    case PH_LIT:
    case PH_PRIM:
    case PH_DEF:
    case PH_COUNT: return;
    }
  }
}

/* K = \x -> body, where body is built by the caller after the binder exists */
static Binder *k_binder(Stage1 *s, const char *name, DataType *t) { return b_binder(&s->b, name, pt_exp(s->b.tc, t)); }

/* The value C[[e]](\x -> body) hands body: e made directly where it
 * passes through (passed_through), *x then NULL; else the variable of a
 * new binder *x named name, body's continuation's parameter, which
 * by_rules then binds.  So a rule that reads an operand by
 * C[[e]](\x -> body) builds body with the value in the variable's place
 * where con_tr would apply \x -> body to it at once, overwriting the one
 * variable (apply_k): the binder, its variable and the lambda are made
 * for nothing (issue 35).  passed_through makes no name and no binder,
 * so taking it first leaves the order of the builder's calls that
 * matters (temporaries' names, dependent rows) as con_tr's. */
static Phrase *operand(Stage1 *s, Phrase *e, const char *name, Binder **x) {
  Phrase *v = passed_through(s, e);
  *x = v ? NULL : k_binder(s, name, b_data(e));
  return v ? v : b_var(&s->b, *x);
}

/* C[[e]](\x -> body) for the binder operand gave (body itself where e
 * passed through) */
static Phrase *by_rules(Stage1 *s, Phrase *e, Binder *x, Phrase *body) {
  return x ? con_rules(s, e, b_lam(&s->b, x, body, false)) : body;
}

static unsigned applied_slot(const Stage1 *s, const void *key) {
  unsigned i = (unsigned)((uintptr_t)key >> 4) * 2654435761u & (unsigned)(s->applied_cap - 1);
  while (s->applied[i] && s->applied[i] != key) i = (i + 1) & (unsigned)(s->applied_cap - 1);
  return i;
}

/* Whether key (a lambda, or a binder) is met for the first time (and
 * note that it is) */
static bool first_time(Stage1 *s, const void *key) {
  if (2 * (s->applied_len + 1) > s->applied_cap) {
    const void **old = s->applied;
    int old_cap = s->applied_cap;
    s->applied_cap = old_cap ? 2 * old_cap : 32;
    s->applied = NEWARRAY(s->b.arena, const void *, s->applied_cap);
    for (int k = 0; k < old_cap; k++)
      if (old[k]) s->applied[applied_slot(s, old[k])] = old[k];
  }
  unsigned i = applied_slot(s, key);
  if (s->applied[i]) return false;
  s->applied[i] = key;
  s->applied_len++;
  return true;
}

static bool first_application(Stage1 *s, const Phrase *f) { return first_time(s, f); }

/* f applied to x, beta-reduced when f is a lambda: the body of a map.
 * The first application of a lambda shares its body but for the paths to
 * x's uses (phrase_subst_shared), its binders kept: they are bound once
 * in the result still, since every later application of it copies it
 * with fresh binders.  A map's function holds the rest of its level of
 * the program: copying it at every level made the stage quadratic in the
 * depth of maps (issue 35).  Nothing here changes a phrase of the
 * kernel's normal form in place (apply_k overwrites only variables this
 * file builds), which the later passes (the reference interpreter) read. */
static Phrase *apply_fn(Stage1 *s, Phrase *f, Phrase *x) {
  if (f->kind != PH_LAM) return b_app(&s->b, f, x);
  if (first_application(s, f)) return phrase_subst_shared(s->b.arena, s->b.tc, f->body, f->lam_binder, x);
  return phrase_subst(s->b.arena, s->b.tc, f->body, f->lam_binder, x);
}

/* Name a new binder after the lambda it replaces, so generated code keeps
 * the program's names (spec section 8). */
static const char *param_name(const Phrase *f, const char *fallback) {
  return f->kind == PH_LAM ? f->lam_binder->name : fallback;
}

/* f applied to a variable of a new binder *x, of type t, named after f's
 * parameter: the body of a map or of a reduction's step, *x the
 * parameter of the lambda the translation makes of it (Figure 5:
 * \x o -> A[[f x]](o)).  The first application of a lambda takes f's own
 * parameter for *x and gives f's body as it is: the substitution of a
 * variable for f's parameter would only rename it (apply_fn's copies of
 * the paths to its uses were a tenth of the stage, issue 35).  f's binder
 * is then bound once in the result still, by the new lambda in place of
 * f, which the result no longer holds (every later application copies
 * f's body with fresh binders, apply_fn); its type is t (the checker
 * typed f's parameter with the element type, check_dep.c for a dependent
 * map's row), and the stages after this one substitute the element for
 * it (stage II) before any of its variables reaches code generation. */
static Phrase *open_fn(Stage1 *s, Phrase *f, const char *fallback, PhraseType *t, Binder **x) {
  /* a parameter is taken once: a lambda met again (a value the normal
   * body shares between two places, padCst's at both borders) or a copy
   * of one that keeps its binder (a path copy, phrase_subst_shared) is
   * applied by substitution */
  if (f->kind == PH_LAM && !s->plain && first_application(s, f) && first_time(s, f->lam_binder)) {
    *x = f->lam_binder;
    return f->body;
  }
  *x = b_binder(&s->b, param_name(f, fallback), t);
  return apply_fn(s, f, b_var(&s->b, *x));
}

/* ---- maps and reductions ---- */

/* mapIX n d1 d2 (\x o -> A[[f x]](o)) input acc */
static Phrase *map_i(Stage1 *s, const Spine *sp, Phrase *input, Phrase *acc) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  Phrase *f = sp->args[0];
  DataType *in_t = b_data(input), *out_t = b_data(acc);
  /* a dependent map's rows: element k of the input for its row k, the
   * size its function was checked with (check_dep.c) */
  Sym row = sp->head->dep_index;
  DataType *d1 = row ? dt_dep_elem(tc, in_t, size_var(&tc->sizes, row)) : in_t->elem;
  /* and of the output, a dependent array when the rows' types use k
   * (docs/language.md section 30.2) */
  DataType *d2 = out_t->kind == DT_DEPARRAY ? dt_dep_elem(tc, out_t, size_var(&tc->sizes, row)) : out_t->elem;
  Binder *x;
  Phrase *fx = open_fn(s, f, "x", pt_exp(tc, d1), &x);
  Binder *o = b_binder(b, "o", pt_acc(tc, d2));
  Phrase *body = acc_tr(s, fx, b_var(b, o));
  /* the body is passive (->p): each iteration writes only through o */
  Phrase *fn = b_lam(b, x, b_lam(b, o, body, true), false);
  PhraseType *ty = pt_fn(tc, fn->type, pt_fn(tc, input->type, pt_fn(tc, acc->type, tc->t_comm)));
  Phrase *prim = b_prim(b, prim_lowered(sp->head->prim), sp->head->dim, ty);
  /* the copy of an array literal (check_lit.c) */
  prim->origin = sp->head->origin;
  prim->fills_literal = sp->head->fills_literal;
  prim->dep_index = row;
  return b_app(b, b_app2(b, prim, fn, input), acc);
}

/* ---- compound accumulators ----
 *
 * Stage II gives reduceI one variable for the accumulator: F reads it as
 * acc.2 and writes it as acc.1 (spec section 7).  The paper's rule is sound
 * when A[[f x y]](o) reads all of y before it writes any of o, which holds
 * for a scalar or vector accumulator (one assignment at the end).  For a
 * compound accumulator the acceptor translation writes component by
 * component (pair, section 4.1) or element by element (map), so a later
 * component may read what an earlier one has just overwritten:
 * (\x a -> (snd a + x, fst a)) would read the new fst.  There the step is
 * evaluated into a fresh variable and then copied:
 *   newM d2 (\t -> A[[f x y]](t.1); o :=d2 t.2)
 * a deviation from the paper documented in docs/language.md.  The direct
 * form is kept where it provably reads before it writes (direct_ok), so
 * the common accumulators read as before, and for a work-group's
 * accumulator that each work-item updates element by element (in_place_ok,
 * translate/in_place_step.c). */

/* A[[level (\v -> v) e]](acc): e copied into acc by the map primitive
 * `level` (its work-items each copy their own elements) */
static Phrase *map_copy(Stage1 *s, const Phrase *level, Phrase *e, Phrase *acc) {
  Builder *b = &s->b;
  Binder *v = k_binder(s, "v", b_data(e)->elem);
  Phrase *args[2] = {b_lam(b, v, b_var(b, v), false), e};
  Spine copy = {.head = (Phrase *)level, .nargs = 2, .args = args};
  return map_i(s, &copy, e, acc);
}

/* The step function of reduceI and scanI, \x y o -> A[[f x y]](o), from
 * f and the element and accumulator types (Figure 5): in place when it
 * may be (in_place_ok), else into a temporary `next` copied to o after
 * it.  *shared: the mapLocal that makes a reduction's accumulator a
 * work-group's, or NULL; a scan's is always the work-item's own
 * (strategy.c keeps a mapLocal out of its step), shared NULL.  *nest:
 * the mapLocal levels of a shared accumulator updated in place through
 * more than one level (local_nest), else left empty. */
typedef struct Nest {
  const Phrase **levels;
  int depth;
} Nest;

static bool is_sharing_let(const Phrase *e);

/* The step `let v = toLocal F X in B` of a work-group's accumulator y
 * (docs/language.md section 31: lud_diagonal's two phases in one local
 * array): when F X is a mapLocal that updates y in place, B does not
 * read y, and B with y for v updates y in place, v's array may be y's
 * own: A[[F X]](o) writes the first phase into the accumulator, which
 * the second, A[[B[y/v]]](o), reads as y and updates in place.  y's old
 * value is read by the first phase alone (B does not read it), each
 * phase is in place by in_place_ok, and the second reads what the first
 * wrote in other work-items' rows after the barrier the barrier pass
 * places between them.  *first and *second: the two phases. */
static bool two_phases(Stage1 *s, Phrase *step, Binder *y, DataType *d2, Phrase **first, Phrase **second) {
  Arena *a = s->b.arena;
  Spine sp, p1s;
  if (!is_sharing_let(step) || phrase_uses(step->fst->body, y) || !dt_equal(b_data(step->snd), d2)) return false;
  if (!(step->snd->kind == PH_APP && spine_of(a, step->snd, &sp) && sp.head->prim == PRIM_TO_LOCAL && sp.nargs == 2))
    return false;
  const Phrase *levels[MAX_LOCAL_NEST];
  int n;
  Phrase *p1 = apply_fn(s, sp.args[0], sp.args[1]);
  if (!(p1->kind == PH_APP && spine_of(a, p1, &p1s) && p1s.head->prim == PRIM_MAP_LOCAL) ||
      !in_place_ok(a, p1, y, levels, &n) || n != 1)
    return false;
  Phrase *p2 = phrase_subst(a, s->b.tc, step->fst->body, step->fst->lam_binder, b_var(&s->b, y));
  if (!in_place_ok(a, p2, y, levels, &n) || n != 1) return false;
  *first = p1, *second = p2;
  return true;
}

static Phrase *step_fn(Stage1 *s, Phrase *f, DataType *d1, DataType *d2, const Phrase **shared, Nest *nest) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  Binder *x, *y;
  Phrase *fx = open_fn(s, f, "x", pt_exp(tc, d1), &x);
  Phrase *step = open_fn(s, fx, "acc", pt_exp(tc, d2), &y);
  Binder *o = b_binder(b, "o", pt_acc(tc, d2));
  /* The work-items of a group write an array accumulator together when a
   * mapLocal computes the step (each its elements; all read them after):
   * it lives in local memory then, not in each work-item's private memory
   * (shine's oclReduceSeq with AddressSpace.Local), and so does `next`,
   * copied back by the same mapLocal. */
  const Phrase *by = shared && !is_scalar_data(d2) ? find_prim(step, PRIM_MAP_LOCAL) : NULL;
  if (shared) *shared = by;
  Phrase *body;
  const Phrase **levels = NEWARRAY(b->arena, const Phrase *, MAX_LOCAL_NEST);
  int nlevels;
  Phrase *first, *second;
  if (by && two_phases(s, step, y, d2, &first, &second)) {
    TempMemory saved_mem = enter_memory(s, PRIM_NEW_LOCAL); /* as toLocal's (to_memory) */
    Phrase *phase1 = acc_tr(s, first, b_var(b, o));
    s->temp_memory = saved_mem;
    body = b_seq(b, phase1, acc_tr(s, second, b_var(b, o)));
  } else if (in_place_ok(s->b.arena, step, y, levels, &nlevels)) {
    body = acc_tr(s, step, b_var(b, o));
    if (nest && by && nlevels > 1) {
      nest->levels = levels;
      nest->depth = nlevels;
    }
  } else {
    Binder *r = k_binder(s, "r", d2);
    /* an array is copied back by its own work-items; a pair holding one
     * by the generalised assignment (sequential, one work-item writing,
     * with the barriers around it that code generation places) */
    bool by_elements = by && dt_resolve(d2)->kind == DT_ARRAY;
    Phrase *copy = by_elements ? map_copy(s, by, b_var(b, r), b_var(b, o)) : b_assign(b, b_var(b, o), b_var(b, r));
    body = materialise(s, by ? PRIM_NEW_LOCAL : PRIM_NEW_PRIVATE, "next", step, b_lam(b, r, copy, false));
  }
  return b_lam(b, x, b_lam(b, y, b_lam(b, o, body, false), false), false);
}

/* reduceI n d1 d2 (\x y o -> A[[f x y]](o)) init input k   (Figure 5) */
static Phrase *reduce_i(Stage1 *s, const Spine *sp, Phrase *init, Phrase *input, Phrase *k) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  const Phrase *shared;
  Nest nest = {0};
  Phrase *fn = step_fn(s, sp->args[0], b_data(input)->elem, b_data(init), &shared, &nest);
  PhraseType *k_t = pt_fn(tc, pt_exp(tc, b_data(init)), tc->t_comm);
  PhraseType *ty = pt_fn(tc, fn->type, pt_fn(tc, init->type, pt_fn(tc, input->type, pt_fn(tc, k_t, tc->t_comm))));
  Phrase *prim = b_prim(b, prim_lowered(sp->head->prim), 0, ty);
  prim->shared_by = shared;
  prim->shared_nest = nest.levels;
  prim->shared_depth = nest.depth;
  return b_app(b, b_app(b, b_app2(b, prim, fn, init), input), k);
}

/* The inclusive sequential scan (shine's scanSeq and ScanSeqI): each
 * step's accumulator is an element of the result, written to it as soon
 * as it is made (stage II, lower_scan_i):
 *   A[[scanSeq f init xs]](A) = C[[xs]](\x -> C[[init]](\y ->
 *     scanI n d1 d2 (\e acc o -> A[[f e acc]](o)) y x A))
 * its step as reduceI's (step_fn), its accumulator private. */
static Phrase *scan_seq(Stage1 *s, const Spine *sp, Phrase *acc) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  DataType *in_t = b_data(sp->args[2]), *d2 = b_data(sp->args[1]);
  Phrase *fn = step_fn(s, sp->args[0], in_t->elem, d2, NULL, NULL);
  Binder *x = k_binder(s, "x", in_t);
  Binder *init = k_binder(s, "y", d2);
  PhraseType *ty =
      pt_fn(tc, fn->type, pt_fn(tc, pt_exp(tc, d2), pt_fn(tc, pt_exp(tc, in_t), pt_fn(tc, acc->type, tc->t_comm))));
  Phrase *prim = b_prim(b, prim_lowered(sp->head->prim), 0, ty);
  Phrase *scan = b_app(b, b_app(b, b_app2(b, prim, fn, b_var(b, init)), b_var(b, x)), acc);
  return con_tr(s, sp->args[2], b_lam(b, x, con_tr(s, sp->args[1], b_lam(b, init, scan, false)), false));
}

/* A reduction over a range read from data (docs/language.md section 25):
 * reduceI's step (step_fn) and accumulator, its loop a forRange over the
 * elements lo, lo+s, ... below hi of xs (stage II, lower_reduce_i)
 *   C[[reduceRange s f init lo hi xs]](K) = C[[xs]](\x -> C[[init]](\y ->
 *     C[[lo]](\l -> C[[hi]](\h ->
 *       reduceRangeI s n d1 d2 (\e a o -> A[[f e a]](o)) y l h x K))))
 * The step holds no mapLocal (strategy.c refuses one), so the
 * accumulator is the work-item's own. */
static Phrase *reduce_range(Stage1 *s, const Spine *sp, Phrase *k) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  DataType *in_t = b_data(sp->args[4]), *d2 = b_data(sp->args[1]);
  Phrase *fn = step_fn(s, sp->args[0], in_t->elem, d2, NULL, NULL);
  Binder *x = k_binder(s, "x", in_t), *y = k_binder(s, "y", d2);
  Binder *lo = k_binder(s, "lo", b_data(sp->args[2])), *hi = k_binder(s, "hi", b_data(sp->args[3]));
  PhraseType *k_t = pt_fn(tc, pt_exp(tc, d2), tc->t_comm);
  PhraseType *ty = pt_fn(tc, fn->type,
                         pt_fn(tc, pt_exp(tc, d2),
                               pt_fn(tc, lo->type, pt_fn(tc, hi->type, pt_fn(tc, x->type, pt_fn(tc, k_t, tc->t_comm))))));
  Phrase *prim = b_prim(b, prim_lowered(sp->head->prim), 0, ty);
  prim->sizes[0] = sp->head->sizes[0];
  Phrase *red = b_app2(b, b_app2(b, b_app2(b, prim, fn, b_var(b, y)), b_var(b, lo), b_var(b, hi)), b_var(b, x), k);
  red = con_tr(s, sp->args[3], b_lam(b, hi, red, false));
  red = con_tr(s, sp->args[2], b_lam(b, lo, red, false));
  red = con_tr(s, sp->args[1], b_lam(b, y, red, false));
  return con_tr(s, sp->args[4], b_lam(b, x, red, false));
}

/* The sequential sliding window (shine's slideSeq with SlideSeq.Values
 * and SlideSeqI): step i runs f on elements i .. i+s-1 and writes element
 * i of A, from a private window that stage II loads one element a step
 * and rotates (lower_slide_seq_i):
 *   A[[slideSeq s f xs]](A) = C[[xs]](\x -> slideSeqI s (\w o -> A[[f w]](o)) x A)
 * x is used once: C[[xs]] may overwrite it in place (apply_k); stage II
 * reads it in three places. */
static Phrase *slide_seq(Stage1 *s, const Spine *sp, Phrase *acc) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  Phrase *f = sp->args[0];
  DataType *in_t = b_data(sp->args[1]);
  Binder *w;
  Phrase *fw = open_fn(s, f, "w", f->type->fst, &w);
  Binder *o = b_binder(b, "o", pt_acc(tc, b_data(acc)->elem));
  Phrase *fn = b_lam(b, w, b_lam(b, o, acc_tr(s, fw, b_var(b, o)), true), false);
  Binder *x = k_binder(s, "x", in_t);
  PhraseType *ty = pt_fn(tc, fn->type, pt_fn(tc, pt_exp(tc, in_t), pt_fn(tc, acc->type, tc->t_comm)));
  Phrase *prim = b_prim(b, prim_lowered(sp->head->prim), 0, ty);
  prim->sizes[0] = sp->head->sizes[0];
  Phrase *slide = b_app(b, b_app2(b, prim, fn, b_var(b, x)), acc);
  return con_tr(s, sp->args[1], b_lam(b, x, slide, false));
}

/* A name for a new parameter of the imperative def: base, or base_2,
 * base_3 ... when a parameter has that name already.  The output acceptor
 * is `output` unless the kernel has a nat or data parameter of that name
 * (the program's own names are kept: a nat parameter's must be, sizes
 * refer to it); a global temporary, which hoisting makes a parameter
 * (spec section 7), is `tmp`, tmp_2 ... So the def's parameters stay
 * distinct, and every stage's printout checks again (paper Theorem 4.1,
 * --emit=imperative). */
static const char *param_name_for(Stage1 *s, const char *base) {
  const char *name = base;
  if (nameset_has(&s->params, name)) {
    int *hint = nameset_hint(&s->params, base); /* no name is given up */
    for (int n = *hint > 2 ? *hint : 2;; n++) {
      name = arena_printf(s->b.arena, "%s_%d", base, n);
      if (!nameset_has(&s->params, name)) {
        *hint = n + 1;
        break;
      }
    }
  }
  nameset_add(&s->params, name);
  return name;
}

/* The temporary of newM d (\tmp -> ...), named name (a global one's name
 * is a parameter's after hoisting). */
static Binder *temporary(Stage1 *s, Prim memory, const char *name, DataType *t) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (memory) {
  case PRIM_NEW_GLOBAL: name = param_name_for(s, name); break; /* the kernel's: a parameter after hoisting */
  case PRIM_NEW:
  case PRIM_NEW_LOCAL:
  case PRIM_NEW_PRIVATE: break;
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
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: INTERNAL("stage I: primitive %d allocates no memory", (int)memory);
  }
  DPIA_EXHAUSTIVE_END
  return b_binder(&s->b, name, pt_var(s->b.tc, t));
}

/* newM d (\tmp -> A[[e]](tmp.1); K(tmp.2)) */
static Phrase *materialise(Stage1 *s, Prim memory, const char *name, Phrase *e, Phrase *k) {
  Builder *b = &s->b;
  DataType *t = b_data(e);
  Binder *tmp = temporary(s, memory, name, t);
  Phrase *v = b_var(b, tmp);
  Phrase *body = b_seq(b, acc_tr(s, e, b_proj(b, v, 1)), apply_k(s, k, b_proj(b, v, 2)));
  return b_new(b, memory, t, tmp, body);
}

/* ---- a select whose sides compute (docs/language.md section 28) ----
 *
 * select c a b is an expression, and C and A compute its arguments
 * before they choose (Figure 5b): a side that is a loop (the sum of a
 * triangle's element, zero below the diagonal) would run whichever side
 * is chosen.  When a side computes in one work-item, the choice is made
 * first and only the chosen side runs:
 *   A[[select c a b]](A) = C[[c]](\x -> if x {A[[a]](A), A[[b]](A)})
 *   C[[select c a b]](K) = newM d (\t -> A[[select c a b]](t.1); K(t.2))
 * (M private for a scalar, a vector or a pair of them; for an array the
 * memory a map's result would take there, which may be of symbolic size)
 * (the sides a phrase pair, which may share A: SCIR's rule for pairs,
 * as Reynolds types the conditional).
 * Both sides write the acceptor the select would have written, so what
 * is written, and by whom, is what the select writes (its race freedom,
 * reference section 6).  A side in which the work-items of a group or of
 * the kernel work together (a parallel map, toLocal, toGlobal) keeps the
 * select: a work-item that skipped it would miss its barriers. */

static bool holds_array(DataType *t) {
  t = dt_resolve(t);
  return t->kind == DT_ARRAY || (t->kind == DT_PAIR && (holds_array(t->fst) || holds_array(t->snd)));
}

static Phrase *select_if(Stage1 *s, const Spine *sp, Phrase *acc) {
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  Binder *x = k_binder(s, "x", b_data(sp->args[0]));
  Phrase *then = acc_tr(s, sp->args[1], acc), *other = acc_tr(s, sp->args[2], acc);
  PhraseType *ty = pt_fn(tc, pt_exp(tc, tc->t_bool), pt_fn(tc, pt_with(tc, tc->t_comm, tc->t_comm), tc->t_comm));
  Phrase *choice = b_app2(b, b_prim(b, PRIM_IF, 0, ty), b_var(b, x), b_pair(b, then, other));
  return con_tr(s, sp->args[0], b_lam(b, x, choice, false));
}

/* ---- C[[E]](K) ---- */

/* C each argument in turn, then K applied to head x1 ... xn (the layout
 * views and scalar primitives pass straight through, Figure 5b). */
static Phrase *con_args(Stage1 *s, const Spine *sp, int from, Phrase **vals, Phrase *k) {
  Builder *b = &s->b;
  if (from == sp->nargs) {
    Phrase *e = sp->head;
    for (int i = 0; i < sp->nargs; i++) e = b_app(b, e, vals[i]);
    return apply_k(s, k, e);
  }
  Phrase *a = sp->args[from];
  Phrase *v = handed_on(a) ? a : passed_through(s, a);
  if (v) {
    vals[from] = v;
    return con_args(s, sp, from + 1, vals, k);
  }
  Binder *x = k_binder(s, "x", b_data(a));
  vals[from] = b_var(b, x);
  Phrase *rest = con_args(s, sp, from + 1, vals, k);
  return con_rules(s, a, b_lam(b, x, rest, false));
}

/* A sharing let, (\x -> body) arg with the lambda marked `shares`
 * (normalize.c): arg is evaluated once into a private variable named x,
 * and body reads it (docs/language.md):
 *   C[[let x = e in b]](K) = C[[e]](\v -> newPrivate d (\x -> x.1 := v; C[[b[x.2/x]]](K)))
 * and likewise A[[let x = e in b]](A) with A[[b[x.2/x]]](A).  e comes
 * first, so the variables of lets inside e are declared (and named)
 * before x, in the order they are computed.
 *
 * An array (or a pair holding one, unzip's result) is shared only when e
 * materialises it (toM f y, normalize.c): its temporary, named x, is the
 * value, so the uses of x read it and no private copy is made
 * (shared_array):
 *   C[[let x = toM f y in b]](K) = newM d (\x -> A[[f y]](x.1); C[[b[x.2/x]]](K)) */
static bool is_sharing_let(const Phrase *e) {
  return e->kind == PH_APP && e->fst->kind == PH_LAM && e->fst->shares;
}

/* let x = toM f y in b: the temporary, named x, is filled, then b reads
 * it at each use of x.  Substituted into b before b is translated, as the
 * private variable of a scalar: a continuation taking the temporary would
 * copy the translated b once per use (apply_k). */
static Phrase *shared_array(Stage1 *s, Phrase *e, Phrase *acc, Phrase *k) {
  Builder *b = &s->b;
  Spine sp;
  if (!spine_of(b->arena, e->snd, &sp) || prim_family(sp.head->prim) != PFAM_MEMORY || sp.nargs != 2)
    INTERNAL("stage I: a shared array that is not materialised");
  DataType *t = b_data(e->snd);
  Prim memory = prim_lowered(sp.head->prim);
  const Binder *x = e->fst->lam_binder;
  Binder *tmp = temporary(s, memory, x->name, t);
  tmp->volatile_local = sp.head->prim == PRIM_TO_LOCAL_VOLATILE; /* as to_memory's */
  TempMemory saved_mem = enter_memory(s, memory); /* the maps inside f make their temporaries there too (to_memory) */
  Phrase *fill = acc_tr(s, apply_fn(s, sp.args[0], sp.args[1]), b_proj(b, b_var(b, tmp), 1));
  s->temp_memory = saved_mem;
  Phrase *body = phrase_subst(b->arena, b->tc, e->fst->body, x, b_proj(b, b_var(b, tmp), 2));
  Phrase *rest = acc ? acc_tr(s, body, acc) : con_tr(s, body, k);
  return b_new(b, memory, t, tmp, b_seq(b, fill, rest));
}

static Phrase *shared_let(Stage1 *s, Phrase *e, Phrase *acc, Phrase *k) {
  Builder *b = &s->b;
  const Binder *x = e->fst->lam_binder;
  DataType *t = b_data(e->snd);
  if (dt_holds_array(t)) return shared_array(s, e, acc, k);
  Binder *value = k_binder(s, "v", t);
  Binder *var = b_binder(b, x->name, pt_var(b->tc, t));
  Phrase *body = phrase_subst(b->arena, b->tc, e->fst->body, x, b_proj(b, b_var(b, var), 2));
  Phrase *rest = acc ? acc_tr(s, body, acc) : con_tr(s, body, k);
  Phrase *store = b_assign(b, b_proj(b, b_var(b, var), 1), b_var(b, value));
  Phrase *let = b_new(b, PRIM_NEW_PRIVATE, t, var, b_seq(b, store, rest));
  return con_tr(s, e->snd, b_lam(b, value, let, false));
}

/* C[[toM f x]](K) = newM d2 (\t -> A[[f x]](t.1); K(t.2))   (spec section 6);
 * the maps inside f make their temporaries in that memory too.  NULL when
 * f x is not all there.  toLocalVolatile is toLocal whose t is marked
 * volatile (Binder.volatile_local): the temporaries of the maps inside f
 * are not, the program having asked for the qualifier on t alone. */
static Phrase *to_memory(Stage1 *s, const Spine *sp, const char *name, Phrase *k) {
  if (sp->nargs != 2) return NULL;
  Prim memory = prim_lowered(sp->head->prim);
  TempMemory saved_mem = enter_memory(s, memory);
  Phrase *r = materialise(s, memory, name, apply_fn(s, sp->args[0], sp->args[1]), k);
  s->temp_memory = saved_mem;
  if (sp->head->prim == PRIM_TO_LOCAL_VOLATILE) r->snd->lam_binder->volatile_local = true; /* r = newLocal (\t -> ..) */
  return r;
}

/* Whether C[[E]], E a spine sp whose head is a primitive, has a rule of
 * its own (Figure 5b, spec section 6: a map, scan or window makes a
 * temporary, a reduction passes its result on, toX materialises, a select
 * whose sides compute chooses first); else E passes through: its
 * arguments are translated in turn and K takes E rebuilt from them
 * (con_args).  The one test of both con_tr and passed_through. */
static bool con_has_rule(const Spine *sp) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (sp->head->prim) {
  case PRIM_MAP_SEQ:
  case PRIM_DEP_MAP_SEQ:
  case PRIM_MAP_GLOBAL:
  case PRIM_DEP_MAP_GLOBAL:
  case PRIM_MAP_WORKGROUP:
  case PRIM_DEP_MAP_WORKGROUP:
  case PRIM_MAP_LOCAL:
  PRIM_CASES_WINDOW:
  case PRIM_TO_GLOBAL:
  case PRIM_TO_LOCAL:
  case PRIM_TO_LOCAL_VOLATILE:
  case PRIM_TO_PRIVATE:
    return sp->nargs == 2;
  PRIM_CASES_SCAN:
  PRIM_CASES_REDUCE:
    return sp->nargs == 3;
  PRIM_CASES_REDUCE_RANGE:
    return sp->nargs == 5;
  case PRIM_SELECT: return select_computes(sp);
  /* a plain map is a view (its function only rearranges data, as the
   * strategy check made sure): it passes through like the views and
   * scalar primitives (Figure 5b) */
  /* scatter only in acceptor position (strategy.c): its read form is
   * refused before translation */
  case PRIM_MAP:
  PRIM_CASES_VIEW:
  case PRIM_VEC:
  case PRIM_CLAMP_IDX:
  PRIM_CASES_VECTOR:
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
  PRIM_CASES_FOREIGN:
  /* a kernel's body is an expression: the imperative primitives come only from the stages after this one */
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* An argument con_args hands on as it is: a phrase that is no expression
 * (a view map's function), a variable, a literal or a projection (a
 * sharing let's x.2) */
static bool handed_on(const Phrase *a) {
  return a->type->kind != PT_EXP || a->kind == PH_VAR || a->kind == PH_LIT || a->kind == PH_PROJ;
}

/* E as C[[E]](K) hands it to K, or NULL: for E made of variables,
 * literals, projections, operators and primitives that pass through
 * (con_has_rule), C[[E]](K) = K(E'), E' rebuilt as con_args and con_tr
 * rebuild it (each spine's applications with its span, each operator a
 * copy of E's with its operands' E'), where each operand went to K by a
 * continuation of its own, \x -> ..., applied at once (apply_k: its one
 * variable overwritten with the operand).  Made directly, without the
 * continuations (a binder, a variable and a lambda an operand: the
 * administrative part of the translation, issue 35).  An operand
 * con_args hands on as it is (handed_on) is shared, where apply_k made
 * a copy of its node in the variable's place: no later pass changes a
 * phrase in place but for those apply_k overwrites, variables this file
 * builds for its continuations, which no value of the normal body holds.
 * Nothing that depends on the order of the builder's calls is made (a
 * temporary's name, a dependent array's rows: both by the rules). */
static Phrase *passed_through(Stage1 *s, Phrase *e) {
  if (s->plain || is_sharing_let(e)) return NULL;
  switch (e->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PROJ: return e;
  case PH_UNOP:
  case PH_BINOP: {
    Phrase *x = passed_through(s, e->fst);
    Phrase *y = x && e->kind == PH_BINOP ? passed_through(s, e->snd) : NULL;
    if (!x || (e->kind == PH_BINOP && !y)) return NULL;
    Phrase *op = arena_dup(s->b.arena, e, sizeof *e);
    op->fst = x;
    if (y) op->snd = y;
    return op;
  }
  case PH_APP:
  case PH_PRIM: {
    Spine sp;
    if (!spine_of(s->b.arena, e, &sp) || con_has_rule(&sp)) return NULL;
    for (int i = 0; i < sp.nargs; i++)
      if (!handed_on(sp.args[i]) && !(sp.args[i] = passed_through(s, sp.args[i]))) return NULL;
    Span saved = s->b.span;
    s->b.span = e->span;
    Phrase *r = sp.head;
    for (int i = 0; i < sp.nargs; i++) r = b_app(&s->b, r, sp.args[i]);
    s->b.span = saved;
    return r;
  }
  default: return NULL;
  }
}

/* C[[E]](K) (Figure 5b) */
static Phrase *con_tr(Stage1 *s, Phrase *e, Phrase *k) {
  Phrase *v = passed_through(s, e);
  return v ? apply_k(s, k, v) : con_rules(s, e, k);
}

/* C[[E]](K) by the rules, E's operands each by con_tr */
static Phrase *con_rules(Stage1 *s, Phrase *e, Phrase *k) {
  Builder *b = &s->b;
  Span saved = b->span;
  b->span = e->span;
  Phrase *r;
  if (is_sharing_let(e)) {
    r = shared_let(s, e, NULL, k);
    b->span = saved;
    return r;
  }
  switch (e->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PROJ: r = apply_k(s, k, e); break; /* a variable, or a sharing let's x.2 */
  case PH_BINOP:
  case PH_UNOP: {
    Binder *x = k_binder(s, "x", b_data(e->fst));
    Phrase *op = arena_dup(b->arena, e, sizeof *e);
    op->fst = b_var(b, x);
    if (e->kind == PH_UNOP) {
      r = con_tr(s, e->fst, b_lam(b, x, apply_k(s, k, op), false));
      break;
    }
    Binder *y = k_binder(s, "y", b_data(e->snd));
    op->snd = b_var(b, y);
    Phrase *inner = con_tr(s, e->snd, b_lam(b, y, apply_k(s, k, op), false));
    r = con_tr(s, e->fst, b_lam(b, x, inner, false));
    break;
  }
  case PH_APP:
  case PH_PRIM: {
    Spine sp;
    if (!spine_of(s->b.arena, e, &sp)) INTERNAL("stage I: application of a %s", phrase_kind_name[sp.head->kind]);
    r = NULL;
    if (con_has_rule(&sp)) {
      DPIA_EXHAUSTIVE_BEGIN
      switch (sp.head->prim) {
      case PRIM_MAP_SEQ:
      case PRIM_DEP_MAP_SEQ:
      case PRIM_MAP_GLOBAL:
      case PRIM_DEP_MAP_GLOBAL:
      case PRIM_MAP_WORKGROUP:
      case PRIM_DEP_MAP_WORKGROUP:
      case PRIM_MAP_LOCAL:
      /* C[[map f e]](K) = newM (n.d2) (\tmp -> A[[map f e]](tmp.1); K(tmp.2)) */
      /* the same for a scan's array, and for a sliding window's */
      PRIM_CASES_SCAN:
      PRIM_CASES_WINDOW:
        r = materialise(s, temp_memory_of(s, sp.head, sp.args[0]), "tmp", e, k);
        break;
      PRIM_CASES_REDUCE : {
        Binder *x, *y;
        Phrase *in = operand(s, sp.args[2], "x", &x), *init = operand(s, sp.args[1], "y", &y);
        Phrase *red = reduce_i(s, &sp, init, in, k);
        r = by_rules(s, sp.args[2], x, by_rules(s, sp.args[1], y, red));
        break;
      }
      PRIM_CASES_REDUCE_RANGE:
        r = reduce_range(s, &sp, k);
        break;
      /* the temporaries named after their memory */
      case PRIM_TO_GLOBAL: r = to_memory(s, &sp, "tmp", k); break;
      case PRIM_TO_LOCAL:
      case PRIM_TO_LOCAL_VOLATILE: r = to_memory(s, &sp, "loc", k); break;
      case PRIM_TO_PRIVATE: r = to_memory(s, &sp, "priv", k); break;
      /* its value made by the side chosen, in a variable of its own */
      case PRIM_SELECT:
        r = materialise(s, holds_array(b_data(e)) ? s->temp_memory.any : PRIM_NEW_PRIVATE, "chosen", e, k);
        break;
      /* passing through (con_has_rule) */
      case PRIM_MAP:
      PRIM_CASES_VIEW:
      case PRIM_VEC:
      case PRIM_CLAMP_IDX:
      PRIM_CASES_VECTOR:
      PRIM_CASES_MATH:
      PRIM_CASES_CONVERT:
      PRIM_CASES_FOREIGN:
      PRIM_CASES_SKIP:
      PRIM_CASES_NEW:
      PRIM_CASES_FOR:
      PRIM_CASES_IF:
      PRIM_CASES_PARFOR:
      PRIM_CASES_VIEW_ACC:
      PRIM_CASES_MAP_I:
      PRIM_CASES_REDUCE_I:
      PRIM_CASES_SCAN_I:
      PRIM_CASES_FOR_RANGE:
      PRIM_CASES_WINDOW_I:
      case PRIM_COUNT: break;
      }
      DPIA_EXHAUSTIVE_END
    }
    if (!r) {
      Phrase **vals = NEWARRAY(b->arena, Phrase *, sp.nargs);
      r = con_args(s, &sp, 0, vals, k);
    }
    break;
  }
  default: INTERNAL("stage I: %s in expression position", phrase_kind_name[e->kind]);
  }
  b->span = saved;
  return r;
}

/* ---- A[[E]](A) ---- */

/* The acceptor view that makes A an acceptor for the argument e of a view
 * (Figure 5a): its type is acc[type of A] -> acc[type of e]. */
static Phrase *acc_view(Stage1 *s, Prim view, const Phrase *head, Phrase *acc, Phrase *e) {
  Builder *b = &s->b;
  /* pairAcc1 (pairAcc A1 A2) is A1: a component of an in-place kernel's
   * regions is its region's acceptor, where a pair of parts inside
   * (pair_of_parts) finds it */
  Spine pa;
  if ((view == PRIM_PAIR_ACC1 || view == PRIM_PAIR_ACC2) && spine_of(b->arena, acc, &pa) &&
      pa.head->prim == PRIM_PAIR_ACC && pa.nargs == 2)
    return pa.args[view == PRIM_PAIR_ACC1 ? 0 : 1];
  PhraseType *ty = pt_fn(b->tc, acc->type, pt_acc(b->tc, b_data(e)));
  Phrase *p = b_prim(b, view, 0, ty);
  p->sizes[0] = head->sizes[0];
  /* the static sizes of the acceptor view that the view leaves implicit */
  DPIA_EXHAUSTIVE_BEGIN
  switch (view) {
  case PRIM_TAKE_ACC:
  case PRIM_DROP_ACC:
    /* the elements dropped: the rest of the array written through */
    p->sizes[1] = size_sub(&b->tc->sizes, b_data(e)->size, head->sizes[0]);
    break;
  case PRIM_AS_SCALAR_ACC:
    /* asScalarAcc k: the vector width, which asScalar leaves implicit */
    p->sizes[0] = size_const(&b->tc->sizes, dt_resolve(b_data(e)->elem)->width);
    break;
  case PRIM_DEP_JOIN_ACC:
    /* depJoinAcc T: the dependent array written through, which its flat
     * acceptor does not tell */
    p->type_arg = b_data(e);
    break;
  case PRIM_IDX_ACC:
  case PRIM_SPLIT_ACC:
  case PRIM_JOIN_ACC:
  case PRIM_PAIR_ACC1:
  case PRIM_PAIR_ACC2:
  case PRIM_ZIP_ACC1:
  case PRIM_ZIP_ACC2:
  case PRIM_UNZIP_ACC:
  case PRIM_AS_VECTOR_ACC:
  case PRIM_TRANSPOSE_ACC:
  case PRIM_SLICE_ACC:
  case PRIM_MIRROR_ACC: break;
  case PRIM_SCATTER_ACC: /* its positions are a second argument: scatter_acc */
  case PRIM_PAIR_ACC:    /* no view's twin: an in-place kernel's regions, regions_acc */
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
  PRIM_CASES_PARFOR:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: INTERNAL("stage I: primitive %d is no acceptor view", (int)view);
  }
  DPIA_EXHAUSTIVE_END
  return b_app(b, p, acc);
}

/* A[[v E1 E2]](A), A[[v E]](A) for a view v with an acceptor twin
 * (Figure 5a), or NULL: zip and pair write each half through its own
 * acceptor view, the twin and the second projection after it in the
 * table (prims.h) */
static Phrase *view_acc_tr(Stage1 *s, const Spine *sp, Phrase *acc) {
  Prim view = prim_lowered(sp->head->prim);
  if (view == PRIM_COUNT) return NULL; /* no acceptor form: by C */
  if (sp->nargs == 2) {
    Phrase *c1 = acc_tr(s, sp->args[0], acc_view(s, view, sp->head, acc, sp->args[0]));
    Phrase *c2 = acc_tr(s, sp->args[1], acc_view(s, (Prim)(view + 1), sp->head, acc, sp->args[1]));
    return b_seq(&s->b, c1, c2);
  }
  if (sp->nargs == 1) return acc_tr(s, sp->args[0], acc_view(s, view, sp->head, acc, sp->args[0]));
  return NULL;
}

/* The views of e down to a projection, fst y or snd y: *acc becomes the
 * acceptor through which writing the projection writes e's acceptor
 * (each view's acceptor twin, as view_acc_tr), *which 1 or 2; NULL when
 * e is no such chain (a view without a twin, anything computed). */
static const Phrase *views_to_part(Stage1 *s, const Phrase *e, Phrase **acc, int *which) {
  for (;;) {
    Spine sp;
    if (e->kind != PH_APP || !spine_of(s->b.arena, (Phrase *)e, &sp) || sp.nargs != 1) return NULL;
    Prim p = sp.head->prim;
    if (p == PRIM_FST || p == PRIM_SND) {
      *which = p == PRIM_FST ? 1 : 2;
      return sp.args[0];
    }
    Prim view = prim_lowered(p);
    if (prim_family(p) != PFAM_VIEW || view == PRIM_COUNT) return NULL;
    *acc = acc_view(s, view, sp.head, *acc, sp.args[0]);
    e = sp.args[0];
  }
}

/* Each component of a pair written through its own views of one value's
 * parts, pair (V1 (fst y)) (V2 (snd y)), y the same phrase on both sides
 * (a let of a value used by both, substituted by normalize.c): y is
 * computed once, written through the pair of the two acceptors, when A
 * is the pair of two regions' acceptors (a kernel updating several
 * regions, docs/language.md section 27: one map writing both):
 *   A[[pair (V1 (fst y)) (V2 (snd y))]](pairAcc A1 A2) =
 *     A[[y]](pairAcc V1acc(A1) V2acc(A2))
 * NULL when the pair or A is not of that form (elsewhere each component
 * is written on its own, view_acc_tr). */
static Phrase *pair_of_parts(Stage1 *s, const Phrase *e, const Spine *sp, Phrase *acc) {
  Builder *b = &s->b;
  Spine regions;
  if (sp->nargs != 2 || !spine_of(b->arena, acc, &regions) || regions.head->prim != PRIM_PAIR_ACC ||
      regions.nargs != 2)
    return NULL;
  if (!phrase_pair_of_parts(b->arena, e)) return NULL;
  Phrase *a1 = regions.args[0], *a2 = regions.args[1];
  int w1, w2;
  const Phrase *y1 = views_to_part(s, sp->args[0], &a1, &w1), *y2 = views_to_part(s, sp->args[1], &a2, &w2);
  if (!y1 || !y2 || w1 != 1 || w2 != 2) INTERNAL("stage I: a pair of parts whose views have no acceptors");
  DataType *t = b_data(y1);
  Phrase *p = b_prim(b, PRIM_PAIR_ACC, 0, pt_fn(b->tc, a1->type, pt_fn(b->tc, a2->type, pt_acc(b->tc, t))));
  return acc_tr(s, (Phrase *)y1, b_app(b, b_app(b, p, a1), a2));
}

/* A[[E]](A) by way of C: C[[E]](\x -> A :=d x) */
static Phrase *acc_by_con(Stage1 *s, Phrase *e, Phrase *acc) {
  Builder *b = &s->b;
  Binder *x;
  Phrase *v = operand(s, e, "x", &x);
  return by_rules(s, e, x, b_assign(b, acc, v));
}

/* transposeAcc A : acc[[n][m]d], A : acc[[m][n]d] */
static Phrase *transpose_acc(Stage1 *s, Phrase *acc) {
  Builder *b = &s->b;
  DataType *t = b_data(acc), *row = dt_resolve(t->elem);
  DataType *flipped = dt_array(b->tc, row->size, dt_array(b->tc, t->size, row->elem));
  Phrase *p = b_prim(b, PRIM_TRANSPOSE_ACC, 0, pt_fn(b->tc, acc->type, pt_acc(b->tc, flipped)));
  return b_app(b, p, acc);
}

/* The acceptor of a region an in-place kernel writes (docs/language.md
 * section 27, `updates xs [lo .. hi][lo .. hi]`): sliceAcc of the outer
 * dimension; of the second, sliceAcc between two transposeAccs, which
 * bring it outside and back.  The elements outside are never written:
 * they keep the values of the input they are. */
static Phrase *region_acc(Stage1 *s, const Region *r, Phrase *acc) {
  for (int d = 0; d < r->ndims; d++) {
    if (d == 1) acc = transpose_acc(s, acc);
    acc = b_slice_acc(&s->b, acc, r->lo[d], r->len[d]);
    if (d == 1) acc = transpose_acc(s, acc);
  }
  return acc;
}

/* The acceptor of an in-place kernel's result from region k on, out the
 * whole buffer: the region's acceptor, or with regions after it the
 * pairAcc of it and theirs (the result is the tuple of the regions,
 * pairs nested to the right). */
static Phrase *regions_acc(Stage1 *s, const DefInfo *kernel, Binder *out, int k) {
  Builder *b = &s->b;
  if (kernel->nregions == 0) return b_var(b, out);
  Phrase *first = region_acc(s, &kernel->regions[k], b_var(b, out));
  if (k == kernel->nregions - 1) return first;
  Phrase *rest = regions_acc(s, kernel, out, k + 1);
  DataType *t = dt_pair(b->tc, b_data(first), b_data(rest));
  Phrase *p = b_prim(b, PRIM_PAIR_ACC, 0, pt_fn(b->tc, first->type, pt_fn(b->tc, rest->type, pt_acc(b->tc, t))));
  return b_app(b, b_app(b, p, first), rest);
}

/* for m (\i -> idxAcc (sliceAcc o m A) i := v), or NULL when m is 0; v is
 * the pad value (a literal or variable) or var.2 of the variable holding it */
static Phrase *fill(Stage1 *s, Phrase *acc, Size o, Size m, Phrase *value, Binder *var) {
  if (size_is_zero(m)) return NULL;
  Builder *b = &s->b;
  TypeCtx *tc = b->tc;
  Binder *i = b_binder(b, "i", pt_exp(tc, dt_idx(tc, m)));
  Phrase *v = var ? b_proj(b, b_var(b, var), 2) : value;
  Phrase *body = acc_tr(s, v, b_idx_acc(b, b_slice_acc(b, acc, o, m), b_var(b, i)));
  Phrase *loop = b_prim(b, PRIM_FOR, 0, pt_fn(tc, pt_fn(tc, pt_exp(tc, dt_idx(tc, m)), tc->t_comm), tc->t_comm));
  loop->sizes[0] = m;
  loop->origin = "padCst";
  return b_app(b, loop, b_lam(b, i, body, false));
}

/* padCst written through (docs/language.md section 16): the borders take
 * the value, the array is written through the interior's slice
 *   A[[padCst l r c E]](A) = for l (\i -> idxAcc (sliceAcc 0 l A) i := c);
 *                            A[[E]](sliceAcc l n A);
 *                            for r (\i -> idxAcc (sliceAcc (l+n) r A) i := c)
 * with c computed once into a private variable unless it is cheap: each
 * border translates it on its own (a continuation's value is used in one
 * place only, so one value cannot serve both). */
/* a value as cheap to compute at each use as to read from a variable:
 * a literal, a variable, a negation or broadcast of one (-1.0, vec 4 0.0);
 * or an array of symbolic size that computes nothing (a row of constants,
 * [0.0] |> padCst 0 N 0.0, indices N |> map (\j -> c): views and view
 * maps), which no private variable could hold: each
 * border element is then written from it, element by element */
static bool cheap(Arena *a, const Phrase *e) {
  if (e->kind == PH_LIT || e->kind == PH_VAR || e->kind == PH_PROJ) return true;
  DataType *t = dt_resolve(e->type->data);
  int64_t n;
  if (t->kind == DT_ARRAY && !size_const_value(t->size, &n)) return !phrase_computes(e) || phrase_is_view(a, e);
  if (e->kind == PH_UNOP) return cheap(a, e->fst);
  Spine sp;
  return e->kind == PH_APP && spine_of(a, (Phrase *)e, &sp) && sp.head->prim == PRIM_VEC && sp.nargs == 1 &&
         cheap(a, sp.args[0]);
}

static Phrase *pad_cst_acc(Stage1 *s, const Spine *sp, Phrase *acc) {
  Builder *b = &s->b;
  Size l = sp->head->sizes[0], r = sp->head->sizes[1], n = b_data(sp->args[1])->size;
  Phrase *c = sp->args[0];
  DataType *t = b_data(c);
  bool trivial = cheap(b->arena, c);
  Binder *var = trivial ? NULL : b_binder(b, "c", pt_var(b->tc, t));
  Phrase *body = acc_tr(s, sp->args[1], b_slice_acc(b, acc, l, n));
  Phrase *left = fill(s, acc, size_const(&b->tc->sizes, 0), l, c, var);
  Phrase *right = fill(s, acc, size_add(&b->tc->sizes, l, n), r, c, var);
  if (left) body = b_seq(b, left, body);
  if (right) body = b_seq(b, body, right);
  if (trivial) return body;
  /* located at the value, which a rejection of its variable is about (a
   * computed array of symbolic size), not at the whole padded phrase */
  Span saved = b->span;
  b->span = c->span;
  Phrase *store = acc_tr(s, c, b_proj(b, b_var(b, var), 1));
  b->span = c->span;
  Phrase *made = b_new(b, PRIM_NEW_PRIVATE, t, var, b_seq(b, store, body));
  b->span = saved;
  return made;
}

/* scatter written through (docs/language.md section 29): element i of E
 * goes to element p[i] of A,
 *   A[[scatter p E]](A) = A[[E]](scatterAcc A p)
 * p an input declared a permutation (scir.c), so scatterAcc p A is a
 * bijection of A's elements like every other acceptor view, and a parallel
 * map under it writes each element of A once */
static Phrase *scatter_acc(Stage1 *s, const Spine *sp, Phrase *acc) {
  Builder *b = &s->b;
  Phrase *pos = sp->args[0], *e = sp->args[1];
  PhraseType *ty = pt_fn(b->tc, acc->type, pt_fn(b->tc, pos->type, pt_acc(b->tc, b_data(e))));
  return acc_tr(s, e, b_app2(b, b_prim(b, PRIM_SCATTER_ACC, 0, ty), acc, pos));
}

static Phrase *acc_tr(Stage1 *s, Phrase *e, Phrase *acc) {
  Builder *b = &s->b;
  Span saved = b->span;
  b->span = e->span;
  Phrase *r = NULL;
  Spine sp;
  if (is_sharing_let(e)) {
    r = shared_let(s, e, acc, NULL);
  } else if ((e->kind == PH_APP || e->kind == PH_PRIM) && spine_of(s->b.arena, e, &sp)) {
    DPIA_EXHAUSTIVE_BEGIN
    switch (sp.head->prim) {
    case PRIM_MAP_SEQ:
    case PRIM_DEP_MAP_SEQ:
    case PRIM_MAP_GLOBAL:
    case PRIM_DEP_MAP_GLOBAL:
    case PRIM_MAP_WORKGROUP:
    case PRIM_DEP_MAP_WORKGROUP:
    case PRIM_MAP_LOCAL:
      if (sp.nargs == 2) {
        Binder *x;
        Phrase *in = operand(s, sp.args[1], "x", &x);
        r = by_rules(s, sp.args[1], x, map_i(s, &sp, in, acc));
      }
      break;
    PRIM_CASES_REDUCE:
      if (sp.nargs == 3) {
        Binder *x, *y;
        Phrase *in = operand(s, sp.args[2], "x", &x), *init = operand(s, sp.args[1], "y", &y);
        Binder *res = k_binder(s, "r", b_data(sp.args[1]));
        Phrase *k = b_lam(b, res, b_assign(b, acc, b_var(b, res)), false);
        Phrase *red = reduce_i(s, &sp, init, in, k);
        r = by_rules(s, sp.args[2], x, by_rules(s, sp.args[1], y, red));
      }
      break;
    PRIM_CASES_SCAN:
      if (sp.nargs == 3) r = scan_seq(s, &sp, acc);
      break;
    PRIM_CASES_REDUCE_RANGE:
      if (sp.nargs == 5) {
        Binder *res = k_binder(s, "r", b_data(sp.args[1]));
        r = reduce_range(s, &sp, b_lam(b, res, b_assign(b, acc, b_var(b, res)), false));
      }
      break;
    PRIM_CASES_WINDOW:
      if (sp.nargs == 2) r = slide_seq(s, &sp, acc);
      break;
    case PRIM_PAD_CST:
      if (sp.nargs == 2) r = pad_cst_acc(s, &sp, acc);
      break;
    case PRIM_SCATTER:
      if (sp.nargs == 2) r = scatter_acc(s, &sp, acc);
      break;
    case PRIM_SELECT:
      if (select_computes(&sp)) r = select_if(s, &sp, acc);
      break;
    /* written through when they have an acceptor form (prims.h, LOWERED) */
    case PRIM_PAIR:
      r = pair_of_parts(s, e, &sp, acc);
      if (!r) r = view_acc_tr(s, &sp, acc);
      break;
    case PRIM_ZIP:
    case PRIM_SPLIT:
    case PRIM_JOIN:
    case PRIM_FST:
    case PRIM_SND:
    case PRIM_LANE:
    case PRIM_AS_VECTOR:
    case PRIM_AS_SCALAR:
    case PRIM_TRANSPOSE:
    case PRIM_MIRROR: /* mirrorAcc: element (i, j) to (i, j) and (j, i), j >= i */
    case PRIM_SLIDE:
    case PRIM_PAD_CLAMP:
    case PRIM_REORDER_STRIDE:
    case PRIM_TAKE:
    case PRIM_DROP:
    case PRIM_UNZIP:
    case PRIM_DEP_JOIN:
    case PRIM_IDX: r = view_acc_tr(s, &sp, acc); break;
    /* computed by C, then assigned: a plain map is a view without an
     * acceptor form, toGlobal and the like make a temporary of their own;
     * indices is no place to write, but a value to copy */
    case PRIM_MAP:
    case PRIM_INDICES:
    case PRIM_TRIANGLE:
    PRIM_CASES_MEMORY:
    case PRIM_VEC:
    case PRIM_CLAMP_IDX:
    PRIM_CASES_VECTOR:
    PRIM_CASES_MATH:
    PRIM_CASES_CONVERT:
    PRIM_CASES_FOREIGN:
    PRIM_CASES_SKIP:
    PRIM_CASES_NEW:
    PRIM_CASES_FOR:
    PRIM_CASES_IF:
    PRIM_CASES_PARFOR:
    PRIM_CASES_VIEW_ACC:
    PRIM_CASES_MAP_I:
    PRIM_CASES_REDUCE_I:
    PRIM_CASES_SCAN_I:
    PRIM_CASES_FOR_RANGE:
    PRIM_CASES_WINDOW_I:
    case PRIM_COUNT: break;
    }
    DPIA_EXHAUSTIVE_END
  }
  if (!r) r = acc_by_con(s, e, acc);
  b->span = saved;
  return r;
}

/* guard: check no_consumed_left here (else the caller checks the
 * result's invariants, which hold that check) */
static DefInfo *stage1(Arena *a, TypeCtx *tc, Interner *in, const DefInfo *kernel, Phrase *normal_body, bool plain,
                       bool guard) {
  Stage1 s = {.b = {a, tc, in, normal_body->span, {{0}}},
              .temp_memory = {PRIM_NEW_GLOBAL, PRIM_NEW_GLOBAL},
              .params = {.arena = a},
              .plain = plain};
  DefInfo *d = NEW(a, DefInfo);
  *d = *kernel;
  d->is_kernel = false;
  for (int i = 0; i < kernel->nsize_params; i++) nameset_add(&s.params, kernel->size_params[i]);
  for (int i = 0; i < kernel->ndata_params; i++) nameset_add(&s.params, kernel->data_params[i]);
  for (int i = 0; i < kernel->nparams; i++) nameset_add(&s.params, kernel->params[i]->name);
  /* a kernel computing in place writes the whole of the input it updates,
   * or its region (region_acc) */
  DataType *whole = kernel->nupdated > 1 ? def_updated_type(tc, kernel)
                    : kernel->updates     ? kernel->updates->type->data
                                          : b_data(normal_body);
  Binder *out = b_binder(&s.b, param_name_for(&s, "output"), pt_acc(tc, whole));
  out->span = kernel->decl->name_span;
  d->nparams = kernel->nparams + 1;
  d->params = NEWARRAY(a, Binder *, d->nparams);
  d->params[0] = out;
  for (int i = 0; i < kernel->nparams; i++) d->params[i + 1] = kernel->params[i];
  d->groups_own = in_place_groups_own(a, tc, in, kernel, normal_body, &d->groups_culprit);
  d->body = acc_tr(&s, normal_body, regions_acc(&s, kernel, out, 0));
  if (guard) no_consumed_left(d->body);
  d->result = tc->t_comm;
  PhraseType *t = tc->t_comm;
  for (int i = d->nparams - 1; i >= 0; i--) t = pt_fn(tc, d->params[i]->type, t);
  d->type = t;
  return d;
}

DefInfo *translate_stage1(Arena *a, TypeCtx *tc, Interner *in, const DefInfo *kernel, Phrase *normal_body) {
  return stage1(a, tc, in, kernel, normal_body, false, true);
}

DefInfo *translate_stage1_checked_after(Arena *a, TypeCtx *tc, Interner *in, const DefInfo *kernel,
                                        Phrase *normal_body) {
  return stage1(a, tc, in, kernel, normal_body, false, false);
}

DefInfo *translate_stage1_plain(Arena *a, TypeCtx *tc, Interner *in, const DefInfo *kernel, Phrase *normal_body) {
  return stage1(a, tc, in, kernel, normal_body, true, true);
}
