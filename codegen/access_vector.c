/* access_vector.c: a whole vector read through asVector or written
 * through asScalarAcc (paper section 6.3, spec section 8): lane by lane,
 * one vloadn or vstoren where the lanes are provably consecutive scalars
 * of one buffer (cgen.h: a Probe records where each lane went), one
 * vector element where they are the lanes of one vector in order, else a
 * vector of lanes; a vector of a plain buffer without probing its lanes.
 * The paths of the lanes are access.c's (gen_exp, gen_acc). */
#include "cgen.h"

static const Ix *K(CG *cg, int64_t v) { return ix_const(&cg->ix, v); }
static CExpr bin(CG *cg, KirBinop op, CExpr a, CExpr b) { return kir_binary(cg->arena, op, a, b); }
static Target lvalue(CExpr e) { return (Target){TG_LVALUE, e, 0, NULL, NULL, NULL, NULL, NULL, NULL}; }

static bool lanes_consecutive(CG *cg, const Probe *pr, int k) {
  for (int l = 0; l < k; l++) {
    if (pr[l].count != 1 || !pr[l].ok || pr[l].lane != -1 || !kir_expr_equal(pr[l].base, pr[0].base)) return false;
    if (l == 0) continue;
    if (!ix_simplifies_to(&cg->ix, ix_sub(&cg->ix, pr[l].flat, pr[0].flat), l) &&
        !ix_equal(ix_simplify(&cg->ix, ix_add(&cg->ix, pr[0].flat, K(cg, l))), pr[l].flat))
      return false;
  }
  return true;
}

/* The statement's state before lanes are probed with their indices kept
 * as written: what a probe that finds them not consecutive undoes before
 * they are probed again (the ranges of clamped indices, clamp_index). */
typedef struct LaneProbe {
  Probe *saved;
  int nranges;
  bool failed;
} LaneProbe;

/* The probes of lanes whose indices were kept as written (defer_simplify)
 * tell the lanes consecutive as lanes_consecutive would have after
 * simplifying them, without simplifying lanes 1 to k - 1: then the first
 * lane's index is simplified as split_indices would have. */
static bool unsimplified_lanes_consecutive(CG *cg, LaneProbe lp, Probe *pr, int k) {
  /* a range pushed while probing (clamp_index): the lanes after it were
   * simplified under it, the ones before not */
  if (cg->nranges_stmt != lp.nranges) return false;
  for (int l = 0; l < k; l++) {
    if (pr[l].count != 1 || !pr[l].ok || pr[l].lane != -1 || !pr[l].unsimplified ||
        !kir_expr_equal(pr[l].base, pr[0].base))
      return false;
  }
  const Ix **at = NEWARRAY(cg->arena, const Ix *, k);
  for (int l = 0; l < k; l++) at[l] = pr[l].flat;
  if (!ix_steps_before_simplify(&cg->ix, at, k)) return false;
  pr[0].flat = ix_simplify(&cg->ix, pr[0].flat);
  return true;
}

static LaneProbe lane_probe_begin(CG *cg) { return (LaneProbe){cg->probe, cg->nranges_stmt, cg->failed}; }

/* Whether the lanes are to be probed again, simplified: not after an
 * error in the first probe (its message given once; no kernel follows). */
static bool lane_probe_again(CG *cg, LaneProbe lp) {
  if (cg->failed && !lp.failed) return false;
  for (; cg->nranges_stmt > lp.nranges; cg->nranges_stmt--) ix_pop_range(&cg->ix);
  return true;
}

static bool lanes_of_one_vector(const Probe *pr, int k) {
  for (int l = 0; l < k; l++)
    if (pr[l].count != 1 || pr[l].lane != l || pr[l].width != k || !kir_expr_equal(pr[l].elem, pr[0].elem))
      return false;
  return true;
}

/* e with the variable v replaced by r */
static const Ix *ix_subst(CG *cg, const Ix *e, const char *v, const Ix *r) {
  IxCtx *x = &cg->ix;
  switch (e->kind) {
  case IX_CONST:
  case IX_EXPR: return e;
  case IX_VAR: return strcmp(e->name, v) == 0 ? r : e;
  case IX_ADD: return ix_add(x, ix_subst(cg, e->a, v, r), ix_subst(cg, e->b, v, r));
  case IX_SUB: return ix_sub(x, ix_subst(cg, e->a, v, r), ix_subst(cg, e->b, v, r));
  case IX_MUL: return ix_mul(x, ix_subst(cg, e->a, v, r), ix_subst(cg, e->b, v, r));
  case IX_DIV: return ix_div(x, ix_subst(cg, e->a, v, r), ix_subst(cg, e->b, v, r));
  case IX_MOD: return ix_mod(x, ix_subst(cg, e->a, v, r), ix_subst(cg, e->b, v, r));
  }
  return e;
}

/* flat with every nat parameter N that a precondition makes a multiple of
 * k (N % c == 0, c % k == 0) written (N/k)*k, the quotient an atom (the
 * simplifier would not see that it is exact) that prints as (N/k); flat
 * itself if there is none */
static const Ix *with_multiples(CG *cg, const Ix *flat, int k) {
  for (int i = 0; i < cg->nmultiples; i++) {
    if (cg->multiple_of[i] % k != 0) continue;
    const Ix *n_over_k = ix_div(&cg->ix, ix_var(&cg->ix, cg->multiple_var[i]), K(cg, k));
    const Ix *q = ix_expr(&cg->ix, cg_ix_expr(cg, n_over_k));
    flat = ix_subst(cg, flat, cg->multiple_var[i], ix_mul(&cg->ix, q, K(cg, k)));
  }
  return flat;
}

/* vloadn/vstoren offset (in vectors) and pointer for k scalars at flat:
 * offset flat/k when flat is a multiple of k, by the ranges or by the
 * preconditions (a row of a [M][N] buffer starts at a multiple of 16 when
 * N % 16 == 0) */
static void vector_address_of(CG *cg, const Probe *p, int k, const Ix *quotient, CExpr *offset, CExpr *ptr) {
  int64_t r;
  const Ix *flat = p->flat;
  if (p->simplify_flat) {
    /* the offset told without lane 0's simplified index where it may be
     * (quotient, ix_exact_quotient's: an unrolled vector step's dearest
     * search) */
    if (quotient) {
      *offset = cg_ix_expr(cg, quotient);
      *ptr = p->base;
      return;
    }
    flat = ix_simplify(&cg->ix, flat);
  }
  const Ix *at = flat; /* lane 0's index, simplified */
  /* the remainder flat % k simplified only where the coefficients do not
   * already tell it 0 */
  bool multiple = ix_multiple_of(&cg->ix, flat, k);
  if (!multiple) {
    const Ix *rem = ix_simplify(&cg->ix, ix_mod(&cg->ix, flat, K(cg, k)));
    multiple = ix_const_value(rem, &r) && r == 0;
  }
  if (!multiple) {
    flat = with_multiples(cg, at, k);
    const Ix *rem = ix_simplify(&cg->ix, ix_mod(&cg->ix, flat, K(cg, k)));
    multiple = ix_const_value(rem, &r) && r == 0;
  }
  if (multiple) {
    *offset = cg_ix_expr(cg, ix_simplify(&cg->ix, ix_div(&cg->ix, flat, K(cg, k))));
    *ptr = p->base;
  } else {
    int64_t z;
    *offset = kir_int(cg->arena, 0);
    *ptr = ix_const_value(at, &z) && z == 0 ? p->base : bin(cg, KB_PTR_ADD, p->base, cg_ix_expr(cg, at));
  }
}

static void vector_address(CG *cg, const Probe *p, int k, CExpr *offset, CExpr *ptr) {
  vector_address_of(cg, p, k, p->simplify_flat ? ix_exact_quotient(&cg->ix, p->flat, k) : NULL, offset, ptr);
}

/* One lane of a vector read or written: E[at] into *lane, or A[at] into
 * *target; the access recorded in *pr. */
typedef struct LaneSide {
  const Phrase *p;
  bool write;
} LaneSide;

static void probe_lane(CG *cg, LaneSide side, const Ix *at, bool defer, Probe *pr, CExpr *lane, Target *target) {
  *pr = (Probe){.defer_simplify = defer};
  cg->probe = pr;
  if (side.write)
    *target = gen_acc(cg, side.p, step_idx(cg, at, NULL));
  else
    *lane = gen_exp(cg, side.p, step_idx(cg, at, NULL));
}

/* the one access of a lane: a scalar element of a buffer, its index kept
 * as written (defer_simplify) */
static bool lone_unsimplified_element(const Probe *p) {
  return p->count == 1 && p->ok && p->lane == -1 && p->unsimplified;
}

/* The lanes first + l, l < k, of side are consecutive elements of one
 * array, lane 0 probed into *pr0 (its index kept as written) and told so
 * from one more probe: the lane a variable, whose index must be lane 0's
 * plus the variable (ix_steps_by_lane) for every value it may take, so
 * for those below k.  No range is pushed for it: a new range scope would
 * miss every index the statement's scope has kept (IxCtx.memo).  Where it is,
 * lanes 1 to k - 1 are never made: a float16 read in an unrolled loop
 * step is one probe and a trial instead of sixteen (issue 35).  The trial
 * reports no error (CG.trial) and leaves no range pushed; whatever it
 * cannot tell, the lanes are probed one by one as before it (false). */
static bool lanes_by_one_probe(CG *cg, LaneProbe lp, LaneSide side, const Ix *first, int k, Probe *pr0) {
  if (cg->nranges_stmt != lp.nranges || !lone_unsimplified_element(pr0) || (cg->failed && !lp.failed)) return false;
  IxCtx *x = &cg->ix;
  /* '$' is in no DPIA name, nor in any C name made from one */
  const Ix *lane = ix_var(x, "$lane");
  int nranges = cg->nranges_stmt;
  Probe p;
  CExpr read;
  Target written = {0};
  bool outer_failed = cg->trial_failed; /* of a trial this one is part of */
  cg->trial_failed = false;
  cg->trial++;
  probe_lane(cg, side, ix_add(x, first, lane), true, &p, &read, &written);
  cg->trial--;
  bool plain = !side.write || (written.kind == TG_LVALUE && !written.guard);
  bool steps = !cg->trial_failed && plain && cg->nranges_stmt == nranges && lone_unsimplified_element(&p) &&
               kir_expr_equal(p.base, pr0->base) && ix_steps_by_lane(x, pr0->flat, p.flat, lane);
  cg->trial_failed = outer_failed;
  for (; cg->nranges_stmt > nranges; cg->nranges_stmt--) ix_pop_range(x);
  /* lane 0's index is simplified where its vector's address is made
   * (vector_address), which may not need it (no range is pushed or
   * popped in between) */
  pr0->simplify_flat = steps;
  return steps;
}

/* ---- a vector of a plain buffer ----
 *
 * Lane l of asVector k E at vector index i (of asScalarAcc k A) is
 * element first + l of E (A), first = i*k.  Where E is a variable whose
 * storage is a flat buffer of scalars (cg_plain_scalar_buffer), the path
 * of that one index ends at the storage at once, and the probes above
 * find what this knows without them: lane 0's records the element first
 * as written (defer_simplify; read_lanes' first + 0 is first), with
 * count 1, no lane, no guard, no range pushed and no error; the trial of
 * every lane at once (lanes_by_one_probe) records first + $lane of the
 * same base, so the lanes are consecutive exactly when ix_steps_by_lane
 * says so of those two indices; and mirrored_lanes' trial finds one
 * place (a linear index steps by lane whatever the lane: ix_linear,
 * not asked).  The vector's address is then vector_address's of lane 0's
 * probe, as made here, with the one access noted (a trial's is not,
 * cg_note_access).  So a plain vector costs one steps question and its
 * address, not two or three walks of the path down to the buffer and two
 * probes of the storage (issue 35: every vector read and write of the
 * dot-product variants); where the steps cannot be told so, the lanes
 * are probed as before, which ask ix_steps_by_lane the same.  Not inside
 * another vector's probe (cg->probe), whose count this would not keep.
 * CodegenOptions.probe_lanes probes every vector (tests/throughput,
 * vectors, compares the two). */
static bool plain_vector_address(CG *cg, const Phrase *p, const Ix *first, int k, bool write, CExpr *offset,
                                 CExpr *ptr) {
  if (cg->probe || cg->probe_lanes) return false;
  const Storage *st = cg_plain_scalar_buffer(cg, p, write);
  if (!st) return false;
  IxCtx *x = &cg->ix;
  const Ix *flat = ix_add(x, first, K(cg, 0)); /* read_lanes' lane 0 */
  /* The other read of a zip's element (fst x * snd x of two asVector
   * inputs) is at the same flat index, the node made for the first
   * (IxCtx.recent), under the same ranges: what it asks below, the steps
   * and the quotient, are the answers to the first's questions, which
   * depend on nothing else (their memos are kept by index and scope) */
  bool again = cg->last_plain_vector.flat == flat && cg->last_plain_vector.k == k &&
               cg->last_plain_vector.scope == x->scope;
  /* lanes_by_one_probe's question, of a flat index that is no linear sum
   * (which steps by any lane, ix_linear) */
  const Ix *lane = again || ix_linear(flat) ? NULL : ix_var(x, "$lane");
  if (lane && !ix_steps_by_lane(x, flat, ix_add(x, first, lane), lane)) return false;
  Probe lane0 = {.count = 1,
                 .ok = true,
                 .base = cg_plain_element_base(cg, st, write),
                 .flat = flat,
                 .lane = -1,
                 .space = st->space,
                 .read_only = st->read_only,
                 .defer_simplify = true,
                 .unsimplified = true,
                 .simplify_flat = true};
  const Ix *quotient = again ? cg->last_plain_vector.quotient : ix_exact_quotient(x, flat, k);
  cg->last_plain_vector.flat = flat;
  cg->last_plain_vector.k = k;
  cg->last_plain_vector.scope = x->scope;
  cg->last_plain_vector.quotient = quotient;
  vector_address_of(cg, &lane0, k, quotient, offset, ptr);
  cg->plain_vectors++;
  return true;
}

/* E read as a vector of k scalars E[first + l] (asVector k, section 6.3),
 * lanes from to k - 1 */
static void read_lanes(CG *cg, const Phrase *e, const Ix *first, int from, int k, bool defer, Probe *pr, CExpr *lanes) {
  for (int l = from; l < k; l++)
    probe_lane(cg, (LaneSide){e, false}, ix_add(&cg->ix, first, K(cg, l)), defer, &pr[l], &lanes[l], NULL);
}

CExpr gen_vector_read(CG *cg, const Phrase *e, const Ix *first, int k, DataType *scalar) {
  CExpr offset, ptr;
  if (plain_vector_address(cg, e, first, k, false, &offset, &ptr)) return kir_vload(cg->arena, k, offset, ptr);
  LaneProbe lp = lane_probe_begin(cg);
  Probe *pr = NEWARRAY(cg->arena, Probe, k);
  CExpr *lanes = NEWARRAY(cg->arena, CExpr, k);
  /* first with the indices as written: simplifying each lane's (wg*4096 +
   * lid*16 + 3)*16 + l is most of the work of an unrolled vector loop; and
   * lane 0 alone where one probe of all tells them consecutive */
  read_lanes(cg, e, first, 0, 1, true, pr, lanes);
  bool consecutive = lanes_by_one_probe(cg, lp, (LaneSide){e, false}, first, k, &pr[0]);
  if (!consecutive) {
    read_lanes(cg, e, first, 1, k, true, pr, lanes);
    consecutive = unsimplified_lanes_consecutive(cg, lp, pr, k);
  }
  cg->probe = lp.saved;
  if (!consecutive && lane_probe_again(cg, lp)) {
    read_lanes(cg, e, first, 0, k, false, pr, lanes);
    cg->probe = lp.saved;
    consecutive = lanes_consecutive(cg, pr, k);
  }
  if (lp.saved) lp.saved->ok = false, lp.saved->count += 2;
  if (consecutive) {
    vector_address(cg, &pr[0], k, &offset, &ptr);
    return kir_vload(cg->arena, k, offset, ptr);
  }
  if (lanes_of_one_vector(pr, k)) return pr[0].elem;
  return kir_vector(cg->arena, cg_scalar_type(cg, scalar->scalar, k), k, lanes);
}

/* A written as a vector of k scalars A[first + l] (asScalarAcc k), lanes
 * from to k - 1 (plain and *any_guard: of lanes 0 to from - 1 before) */
/* whether every lane is an lvalue; *any_guard: some lane is written under a test */
static bool write_lanes(CG *cg, const Phrase *a, const Ix *first, int from, int k, bool defer, Probe *pr, CExpr *lanes,
                        CExpr *guards, bool plain, bool *any_guard) {
  for (int l = from; l < k; l++) {
    Target t;
    probe_lane(cg, (LaneSide){a, true}, ix_add(&cg->ix, first, K(cg, l)), defer, &pr[l], NULL, &t);
    plain = plain && t.kind == TG_LVALUE;
    lanes[l] = t.lvalue;
    guards[l] = t.guard;
    *any_guard = *any_guard || t.guard;
  }
  return plain;
}

/* A written as a vector of k scalars through a mirror (mirrorAcc,
 * docs/language.md section 29.1): each lane has two places, (i, j + l)
 * and (j + l, i), under a test of its own, so the vector is written lane
 * by lane to the one and then to the other; false where lane 0 has one
 * place (asked in a trial: nothing reported, nothing noted) */
static bool mirrored_lanes(CG *cg, const Phrase *a, const Ix *first, int k, Target *out) {
  bool outer_failed = cg->trial_failed;
  cg->trial_failed = false;
  cg->trial++;
  Target t0 = gen_acc(cg, a, step_idx(cg, first, NULL));
  cg->trial--;
  bool failed = cg->trial_failed;
  cg->trial_failed = outer_failed;
  if (failed || !t0.also) return false;
  Target sides[2];
  for (int side = 0; side < 2; side++) {
    sides[side] = (Target){TG_LANES, NULL, k, NULL, NULL, NEWARRAY(cg->arena, CExpr, k), NULL, NULL, NULL};
    sides[side].lane_guards = NEWARRAY(cg->arena, CExpr, k);
  }
  for (int l = 0; l < k; l++) {
    Target t = gen_acc(cg, a, step_idx(cg, ix_add(&cg->ix, first, K(cg, l)), NULL));
    const Target *places[2] = {&t, t.also};
    for (int side = 0; side < 2; side++) {
      const Target *p = places[side];
      if (!p || p->kind != TG_LVALUE || (side == 1 && p->also)) {
        cg_error(cg, ERR_CODEGEN_UNSUPPORTED, a->span, "cannot generate OpenCL for %s",
                 "a vector written lane by lane into a mirror of vectors");
        return false;
      }
      sides[side].lanes[l] = p->lvalue;
      sides[side].lane_guards[l] = p->guard;
    }
  }
  Target *second = NEW(cg->arena, Target);
  *second = sides[1];
  sides[0].also = second;
  *out = sides[0];
  return true;
}

Target gen_vector_write(CG *cg, const Phrase *a, const Ix *first, int k) {
  Target whole = {TG_VSTORE, NULL, k, NULL, NULL, NULL, NULL, NULL, NULL};
  if (plain_vector_address(cg, a, first, k, true, &whole.offset, &whole.ptr)) return whole;
  Target mirrored;
  if (mirrored_lanes(cg, a, first, k, &mirrored)) return mirrored;
  LaneProbe lp = lane_probe_begin(cg);
  Probe *pr = NEWARRAY(cg->arena, Probe, k);
  CExpr *lanes = NEWARRAY(cg->arena, CExpr, k), *guards = NEWARRAY(cg->arena, CExpr, k);
  bool any_guard = false;
  /* first with the indices as written, lane 0 alone if it may be, as gen_vector_read */
  bool plain = write_lanes(cg, a, first, 0, 1, true, pr, lanes, guards, true, &any_guard);
  bool consecutive = plain && !any_guard && lanes_by_one_probe(cg, lp, (LaneSide){a, true}, first, k, &pr[0]);
  if (!consecutive) {
    plain = write_lanes(cg, a, first, 1, k, true, pr, lanes, guards, plain, &any_guard);
    consecutive = plain && !any_guard && unsimplified_lanes_consecutive(cg, lp, pr, k);
  }
  cg->probe = lp.saved;
  if (!consecutive && lane_probe_again(cg, lp)) {
    any_guard = false;
    plain = write_lanes(cg, a, first, 0, k, false, pr, lanes, guards, true, &any_guard);
    cg->probe = lp.saved;
    consecutive = plain && !any_guard && lanes_consecutive(cg, pr, k);
  }
  if (lp.saved) lp.saved->ok = false, lp.saved->count += 2;
  if (!plain) INTERNAL("nested vector write");
  if (any_guard) { /* lanes written one by one, each when its test holds */
    Target t = {TG_LANES, NULL, k, NULL, NULL, lanes, NULL, NULL, NULL};
    t.lane_guards = guards;
    return t;
  }
  if (consecutive) {
    Target t = {TG_VSTORE, NULL, k, NULL, NULL, NULL, NULL, NULL, NULL};
    vector_address(cg, &pr[0], k, &t.offset, &t.ptr);
    return t;
  }
  if (lanes_of_one_vector(pr, k)) return lvalue(pr[0].elem);
  return (Target){TG_LANES, NULL, k, NULL, NULL, lanes, NULL, NULL, NULL};
}
