/* in_place_step.c: whether the step of a reduction may update its
 * accumulator in place (in_place_step.h), or goes through a temporary
 * `next` (translate/stage1.c, step_fn; docs/language.md sections 2.1, 4,
 * 28 and 31).  Split from stage1.c, whose acceptor translation the
 * answers are about: A[[f x y]](o) with o and y one variable. */
#include "in_place_step.h"

/* e's spine (phrase.h), true when its head is a primitive */
static bool spine_of(Arena *a, Phrase *e, Spine *sp) {
  phrase_spine(a, e, sp);
  return sp->head->kind == PH_PRIM;
}

/* uses of x that are `snd x` (second: true) or `fst x` (false), or inside
 * one */
static bool is_proj_of(Arena *a, const Phrase *p, const Binder *x, bool second) {
  Spine sp;
  return (p->kind == PH_APP || p->kind == PH_PRIM) && spine_of(a, (Phrase *)p, &sp) &&
         sp.head->prim == (second ? PRIM_SND : PRIM_FST) && sp.nargs == 1 && sp.args[0]->kind == PH_VAR &&
         sp.args[0]->binder == x;
}

static int proj_uses_of(Arena *a, const Phrase *p, const Binder *x, bool second) {
  if (is_proj_of(a, p, x, second)) return 1;
  switch (p->kind) {
  case PH_LAM: return proj_uses_of(a, p->body, x, second);
  case PH_PROJ:
  case PH_UNOP: return proj_uses_of(a, p->fst, x, second);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return proj_uses_of(a, p->fst, x, second) + proj_uses_of(a, p->snd, x, second);
  default: return 0;
  }
}

/* The accumulator, or the part of it one element function sees: the
 * binder itself (ACC_WHOLE), or a component of an element of zip X acc
 * (ACC_SND) or zip acc X (ACC_FST), whose other component is not the
 * accumulator's. */
typedef enum AccComp { ACC_WHOLE, ACC_FST, ACC_SND } AccComp;
typedef struct AccPart {
  const Binder *b;
  AccComp comp;
} AccPart;

/* uses of the accumulator part in p: every use of its binder but the
 * projections on the other component */
static int part_uses(Arena *a, const Phrase *p, AccPart y) {
  int other = y.comp == ACC_WHOLE ? 0 : proj_uses_of(a, p, y.b, y.comp == ACC_FST);
  return phrase_uses(p, y.b) - other;
}

static bool is_part(Arena *a, const Phrase *e, AccPart y) {
  return y.comp == ACC_WHOLE ? e->kind == PH_VAR && e->binder == y.b : is_proj_of(a, e, y.b, y.comp == ACC_SND);
}

bool is_scalar_data(const DataType *t) { return dt_resolve((DataType *)t)->kind == DT_SCALAR; }

/* e reads element i of y only while it computes element i: y itself, or a
 * zip of such arrays and arrays that do not mention y */
static bool pointwise_in(Arena *a, const Phrase *e, AccPart y) {
  if (is_part(a, e, y) || !part_uses(a, e, y)) return true;
  Spine sp;
  if (!(e->kind == PH_APP && spine_of(a, (Phrase *)e, &sp))) return false;
  return sp.head->prim == PRIM_ZIP && sp.nargs == 2 && pointwise_in(a, sp.args[0], y) &&
         pointwise_in(a, sp.args[1], y);
}

static bool map_step_ok(Arena *a, const Phrase *e, const Spine *sp, AccPart y);
static bool changes_one(Arena *a, const Phrase *e, const Phrase *f, const Phrase *in, AccPart y);
static bool element_part(Arena *a, const Phrase *f, const Phrase *in, AccPart y, AccPart *q);

/* A[[e]](o) reads every part of y before it writes that part of o */
static bool direct_ok(Arena *a, const Phrase *e, AccPart y) {
  /* a scalar is written at once, after it is computed: asked first, for
   * it needs no walk of e (issue 35) */
  if (is_scalar_data(b_data(e)) || !part_uses(a, e, y)) return true;
  /* a sharing let (docs/language.md section 4) computes its value, into a
   * variable of its own, before its body runs (shared_let): whatever of y
   * the value reads it has read when the body writes o, so the let is in
   * place when its body is (the two phases of an LU step, and a pivot
   * read before the elements are updated: section 31) */
  if (e->kind == PH_APP && e->fst->kind == PH_LAM && e->fst->shares) return direct_ok(a, e->fst->body, y);
  Spine sp;
  if (!((e->kind == PH_APP || e->kind == PH_PRIM) && spine_of(a, (Phrase *)e, &sp))) return false;
  /* a select whose sides compute tests its condition, then runs the side
   * it chose, which writes o (select_if, docs/language.md section 28):
   * in place when each side is, and the condition does not read y (a
   * side that has written o may come before the other side's test) */
  if (select_computes(&sp))
    return !part_uses(a, sp.args[0], y) && direct_ok(a, sp.args[1], y) && direct_ok(a, sp.args[2], y);
  DPIA_EXHAUSTIVE_BEGIN
  switch (sp.head->prim) {
  case PRIM_PAIR: {
    if (sp.nargs != 2 || y.comp != ACC_WHOLE) return false;
    /* o.1 is written first: the second component may read only snd y */
    const Phrase *c1 = sp.args[0], *c2 = sp.args[1];
    return (is_scalar_data(b_data(c1)) || !phrase_uses(c1, y.b)) &&
           (is_scalar_data(b_data(c2)) || !phrase_uses(c2, y.b)) && proj_uses_of(a, c2, y.b, true) == phrase_uses(c2, y.b);
  }
  /* a reduction reads all of its initial value into an accumulator of its
   * own before its loop and writes o from that after it (lower_reduce_i,
   * stage2.c), so its initial value may read y; not one a work-group
   * shares, whose accumulator a mapLocal initialises */
  PRIM_CASES_REDUCE:
    return sp.nargs == 3 && !part_uses(a, sp.args[0], y) && !part_uses(a, sp.args[2], y) &&
           !find_prim(e, PRIM_MAP_LOCAL);
  /* so does a reduction over a range (reduce_range, lower_reduce_i), and
   * its bounds are read before o is written too: its loop writes only
   * its own accumulator (docs/language.md section 25) */
  PRIM_CASES_REDUCE_RANGE:
    return sp.nargs == 5 && !part_uses(a, sp.args[0], y) && !part_uses(a, sp.args[4], y);
  case PRIM_DEP_MAP_SEQ:
  case PRIM_MAP_SEQ: return map_step_ok(a, e, &sp, y);
  /* a scan writes o[i] at step i, not known to be after it reads y;
   * so does a sliding window */
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  /* a parallel map is in place only as the whole step (map_step_ok) */
  case PRIM_MAP_GLOBAL:
  case PRIM_DEP_MAP_GLOBAL:
  case PRIM_MAP_WORKGROUP:
  case PRIM_DEP_MAP_WORKGROUP:
  case PRIM_MAP_LOCAL:
  /* the others are not known to read y before they write o */
  case PRIM_MAP:
  case PRIM_ZIP:
  case PRIM_SPLIT:
  case PRIM_JOIN:
  case PRIM_FST:
  case PRIM_SND:
  case PRIM_LANE:
  case PRIM_AS_VECTOR:
  case PRIM_AS_SCALAR:
  case PRIM_TRANSPOSE:
  case PRIM_SLIDE:
  case PRIM_PAD_CLAMP:
  case PRIM_PAD_CST:
  case PRIM_REORDER_STRIDE:
  case PRIM_TAKE:
  case PRIM_DROP:
  case PRIM_INDICES:
  case PRIM_TRIANGLE:
  case PRIM_DEP_JOIN:
  case PRIM_UNZIP:
  case PRIM_SCATTER:
  case PRIM_MIRROR:
  case PRIM_IDX:
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

/* The test c holds only at the position k (a conjunct `pos == K` or
 * `K == pos`, K not using x): pos is x's index component. */
static bool pins_position(Arena *a, const Phrase *c, const Binder *x, bool second) {
  if (c->kind != PH_BINOP) return false;
  if (c->op == BIN_AND) return pins_position(a, c->fst, x, second) || pins_position(a, c->snd, x, second);
  if (c->op != BIN_EQ) return false;
  return (is_proj_of(a, c->fst, x, second) && !phrase_uses(c->snd, x)) ||
         (is_proj_of(a, c->snd, x, second) && !phrase_uses(c->fst, x));
}

/* A sequential map over zip y (indices n) (or zip (indices n) y) of
 * scalars whose function is `select C V own`, own the element of y, C
 * true at one position K at most (a conjunct `pos == K`) and reading no
 * part of y, changes element K only: every other iteration writes its
 * element's own value back, so V, computed whole before element K is
 * written, may read any element of y, and reads what the step found
 * (Rodinia's lud_diagonal: `shadow[tx][i] -= shadow[tx][j] * ..` for
 * j < i, one element of the row updated from the others;
 * docs/language.md section 31).  The sequential map alone: in a parallel
 * one, the iteration at K would read elements that the others write. */
static bool changes_one(Arena *a, const Phrase *e, const Phrase *f, const Phrase *in, AccPart y) {
  AccPart q;
  if (!is_scalar_data(b_data(e)->elem) || !element_part(a, f, in, y, &q) || q.comp == ACC_WHOLE) return false;
  Spine z, sel;
  /* the other component of the zip counts the positions */
  if (!(spine_of(a, (Phrase *)in, &z) && z.nargs == 2)) return false;
  const Phrase *positions = z.args[q.comp == ACC_FST ? 1 : 0];
  Spine ps;
  if (!((positions->kind == PH_APP || positions->kind == PH_PRIM) && spine_of(a, (Phrase *)positions, &ps) &&
        ps.head->kind == PH_PRIM && ps.head->prim == PRIM_INDICES && ps.nargs == 0))
    return false;
  const Phrase *body = f->body;
  if (!((body->kind == PH_APP) && spine_of(a, (Phrase *)body, &sel) && sel.head->kind == PH_PRIM &&
        sel.head->prim == PRIM_SELECT && sel.nargs == 3))
    return false;
  const Phrase *c = sel.args[0], *own = sel.args[2];
  return is_part(a, own, q) && !part_uses(a, c, y) && !part_uses(a, c, q) &&
         pins_position(a, c, q.b, q.comp == ACC_FST);
}

/* A map writes o[i] after reading y[i] only, when its element function
 * does not use y and y reaches its input only through zip; with elements
 * that are arrays or pairs, o[i] is written part by part, so the element
 * function must itself read each part of y[i] before it writes it: y[i]
 * is its parameter (a map over y) or the parameter's second component (a
 * map over zip X y).  True for the sequential and the parallel maps
 * alike: iteration i touches element i of y only. */
static bool map_step_ok(Arena *a, const Phrase *e, const Spine *sp, AccPart y) {
  if (sp->nargs != 2) return false;
  const Phrase *f = sp->args[0], *in = sp->args[1];
  if (sp->head->prim == PRIM_MAP_SEQ && changes_one(a, e, f, in, y)) return true;
  if (part_uses(a, f, y) || !pointwise_in(a, in, y)) return false;
  if (is_scalar_data(b_data(e)->elem)) return true;
  AccPart q;
  return element_part(a, f, in, y, &q) && direct_ok(a, f->body, q);
}

/* The part of y that the lambda f of a map over `in` sees as element i
 * of y: f's parameter when `in` is y, its second component when `in` is
 * zip X y with X not using y (false: neither, or f is not a lambda). */
static bool element_part(Arena *a, const Phrase *f, const Phrase *in, AccPart y, AccPart *q) {
  if (f->kind != PH_LAM) return false;
  if (is_part(a, in, y)) {
    *q = (AccPart){f->lam_binder, ACC_WHOLE};
    return true;
  }
  Spine z;
  if (!(in->kind == PH_APP && spine_of(a, (Phrase *)in, &z) && z.head->prim == PRIM_ZIP && z.nargs == 2))
    return false;
  for (int k = 0; k < 2; k++)
    if (is_part(a, z.args[k], y) && !part_uses(a, z.args[1 - k], y)) {
      *q = (AccPart){f->lam_binder, k == 0 ? ACC_FST : ACC_SND};
      return true;
    }
  return false;
}

/* a map whose iterations run on different work-items */
static bool is_parallel_map(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p) {
  case PRIM_MAP_GLOBAL:
  case PRIM_DEP_MAP_GLOBAL:
  case PRIM_MAP_WORKGROUP:
  case PRIM_DEP_MAP_WORKGROUP:
  case PRIM_MAP_LOCAL: return true;
  case PRIM_MAP:
  case PRIM_MAP_SEQ:
  case PRIM_DEP_MAP_SEQ:
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
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* ---- reads of other work-items' rows (docs/language.md section 31) ----
 *
 * A mapLocal over zip y (indices n) (or zip (indices n) y) whose
 * function changes one element of its row (changes_one) by a select
 * whose sides compute, its condition holding only where the row's
 * position exceeds T (a conjunct `pos > T` or `T < pos`, T an index that
 * neither the row nor its element gives), writes no row at or below T:
 * each work-item may read those rows of y in the step, whatever the
 * others write.  lud_diagonal's first phase: work-item tx > i updates
 * (tx, i) from column i above the diagonal and the pivot (i, i).  The
 * reads of y are `idx y r` with r <= T (phrase_at_most, dpia/scir.c) and
 * the columns `idx (transpose y) c` (or rows r as above) that a
 * reduceRange reads at positions below hi <= T + 1.  The other side of
 * the select writes the element into itself, which code generation
 * drops.  The SCIR re-check proves the same on the imperative program
 * (dpia/scir.c, reads_apart), and the barrier pass takes that proof as
 * its pointwise rule (no barrier inside the phase, one after it). */

static bool is_var_of(const Phrase *p, const Binder *b) { return p->kind == PH_VAR && p->binder == b; }

/* T of a conjunct pos > T or T < pos of c, pos the position component
 * (second: snd) of r */
static const Phrase *row_floor(Arena *a, const Phrase *c, const Binder *r, bool second) {
  if (c->kind != PH_BINOP) return NULL;
  if (c->op == BIN_AND) {
    const Phrase *t = row_floor(a, c->fst, r, second);
    return t ? t : row_floor(a, c->snd, r, second);
  }
  if (c->op == BIN_GT && is_proj_of(a, c->fst, r, second)) return c->snd;
  if (c->op == BIN_LT && is_proj_of(a, c->snd, r, second)) return c->fst;
  return NULL;
}

/* The rows are y's, or (tr) those of transpose y: the second phase of
 * lud_diagonal, work-item c updating (i + 1, c) of column c, reads row
 * i + 1 left of it (a column of transpose y) and column c above it. */
typedef struct Rows {
  const Binder *y;
  bool tr;
  const Phrase *t; /* the rows read are at most t */
} Rows;

/* p is the array whose rows the work-items own: y, or transpose y */
static bool is_rows_view(Arena *a, const Phrase *p, const Rows *r) {
  Spine tr;
  if (!r->tr) return is_var_of(p, r->y);
  return p->kind == PH_APP && spine_of(a, (Phrase *)p, &tr) && tr.head->prim == PRIM_TRANSPOSE && tr.nargs == 1 &&
         is_var_of(tr.args[0], r->y);
}

/* p is a column of that array (idx (transpose y) c, or idx y c) */
static bool is_column_of(Arena *a, const Phrase *p, const Rows *r) {
  Spine sp;
  if (!(p->kind == PH_APP && spine_of(a, (Phrase *)p, &sp) && sp.head->prim == PRIM_IDX && sp.nargs == 2) ||
      phrase_uses(sp.args[1], r->y))
    return false;
  Rows other = {r->y, !r->tr, r->t};
  return is_rows_view(a, sp.args[0], &other);
}

static bool rows_at_most(Arena *a, const Phrase *p, const Rows *r);

/* xs, a reduceRange's input, read at positions below hi: its leaves
 * through zips read at rows at most t */
static bool range_rows(Arena *a, const Phrase *xs, const Rows *r, const Phrase *hi) {
  if (!phrase_uses(xs, r->y)) return true;
  if (is_rows_view(a, xs, r) || is_column_of(a, xs, r)) return phrase_at_most(hi, r->t, 1, NULL, 0);
  Spine sp;
  if (xs->kind == PH_APP && spine_of(a, (Phrase *)xs, &sp) && sp.head->prim == PRIM_ZIP && sp.nargs == 2)
    return range_rows(a, sp.args[0], r, hi) && range_rows(a, sp.args[1], r, hi);
  return rows_at_most(a, xs, r);
}

/* every use of y in p reads a row at most t */
static bool rows_at_most(Arena *a, const Phrase *p, const Rows *r) {
  if (!phrase_uses(p, r->y)) return true;
  Spine sp;
  if (p->kind == PH_APP && spine_of(a, (Phrase *)p, &sp)) {
    if (sp.head->prim == PRIM_IDX && sp.nargs == 2 && is_rows_view(a, sp.args[0], r))
      return !phrase_uses(sp.args[1], r->y) && phrase_at_most(sp.args[1], r->t, 0, NULL, 0);
    if (sp.head->prim == PRIM_REDUCE_RANGE && sp.nargs == 5) {
      for (int k = 0; k < 4; k++)
        if (!rows_at_most(a, sp.args[k], r)) return false;
      return range_rows(a, sp.args[4], r, sp.args[3]);
    }
  }
  switch (p->kind) {
  case PH_VAR: return p->binder != r->y;
  case PH_LAM: return rows_at_most(a, p->body, r);
  case PH_PROJ:
  case PH_UNOP: return rows_at_most(a, p->fst, r);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: return rows_at_most(a, p->fst, r) && rows_at_most(a, p->snd, r);
  default: return true;
  }
}

/* sp: mapLocal f in over the rows of y (tr: of transpose y) */
static bool reads_apart_ok(Arena *a, const Spine *sp, const Binder *y, bool tr) {
  if (sp->nargs != 2) return false;
  const Phrase *f = sp->args[0], *in = sp->args[1];
  Rows rows = {y, tr, NULL};
  Spine z, ps, ms, sel;
  /* zip rows (indices n) or zip (indices n) rows: q the row, the other
   * component counts the work-items' positions */
  if (f->kind != PH_LAM || !(in->kind == PH_APP && spine_of(a, (Phrase *)in, &z) && z.head->prim == PRIM_ZIP &&
                             z.nargs == 2))
    return false;
  int k = is_rows_view(a, z.args[0], &rows) ? 0 : is_rows_view(a, z.args[1], &rows) ? 1 : -1;
  if (k < 0) return false;
  AccPart q = {f->lam_binder, k == 0 ? ACC_FST : ACC_SND};
  const Phrase *positions = z.args[1 - k];
  if (!((positions->kind == PH_APP || positions->kind == PH_PRIM) && spine_of(a, (Phrase *)positions, &ps) &&
        ps.head->prim == PRIM_INDICES && ps.nargs == 0))
    return false;
  const Phrase *body = f->body;
  if (!(body->kind == PH_APP && spine_of(a, (Phrase *)body, &ms) && ms.head->prim == PRIM_MAP_SEQ && ms.nargs == 2 &&
        changes_one(a, body, ms.args[0], ms.args[1], q)))
    return false;
  const Phrase *g = ms.args[0];
  if (!(spine_of(a, g->body, &sel) && select_computes(&sel)) || phrase_uses(sel.args[0], y)) return false;
  const Phrase *t = row_floor(a, sel.args[0], q.b, q.comp == ACC_FST);
  if (!t || phrase_uses(t, q.b) || phrase_uses(t, g->lam_binder) || phrase_uses(t, y) ||
      dt_resolve(b_data(t))->kind != DT_IDX)
    return false;
  rows.t = t;
  return rows_at_most(a, body, &rows);
}

/* The mapLocal levels through which a step updates the accumulator y in
 * place, each work-item its own element at every level (docs/language.md
 * section 2.1): the step is a mapLocal over y (or zip X y) whose function
 * does not use y, and whose body either holds no parallel map and is in
 * place for its element (map_step_ok: one level), or is nothing but a
 * mapLocal of another dimension over that element (or zip X' of it), in
 * place in the same sense, whose input is a view (computed, it would be
 * computed by all the inner work-items, each reading the whole element
 * that the others write).  Work-item (i1, .., in) then reads and writes
 * element [i1]..[in] of y only, which is what the SCIR re-check's
 * pointwise-read rule accepts (dpia/scir.c, nested parfors).  The levels'
 * primitives go to levels[], outermost first; the number of levels is
 * returned, 0 when the step is not such a nest. */
static int local_nest(Arena *a, const Phrase *step, AccPart y, const Phrase **levels, int max) {
  Spine sp;
  if (max == 0 || !(step->kind == PH_APP && spine_of(a, (Phrase *)step, &sp) &&
                    sp.head->prim == PRIM_MAP_LOCAL && sp.nargs == 2))
    return 0;
  const Phrase *f = sp.args[0], *in = sp.args[1];
  levels[0] = sp.head;
  /* one level: in place for its element, or reading other rows apart
   * from the ones it writes (reads_apart_ok) */
  if (!phrase_has_prim(f, is_parallel_map))
    return map_step_ok(a, step, &sp, y) || (y.comp == ACC_WHOLE && reads_apart_ok(a, &sp, y.b, false)) ? 1 : 0;
  AccPart q;
  if (part_uses(a, f, y) || !pointwise_in(a, in, y) || !element_part(a, f, in, y, &q)) return 0;
  Spine inner;
  if (!(f->body->kind == PH_APP && spine_of(a, f->body, &inner) && inner.nargs == 2 &&
        !phrase_computes(inner.args[1])))
    return 0;
  int depth = local_nest(a, f->body, q, levels + 1, max - 1);
  for (int k = 1; k <= depth; k++)
    if (levels[k]->dim == sp.head->dim) return 0;
  return depth ? depth + 1 : 0;
}

/* The step of a reduction may update the accumulator in place: A[[f x y]](o)
 * reads every part of y before it writes that part of o (direct_ok), or
 * the step is a nest of mapLocals over the accumulator (a work-group's
 * accumulator, section 2.1 of docs/language.md) whose work-item reads
 * its own element of y only, before it writes that element (local_nest).
 * Then the imperative program is parforLocal acc.1 (\i o -> ... idx (zip ..
 * acc.2 ..) i ...), with nested levels parforLocal o (\j o' -> ...), which
 * the SCIR re-check accepts by its pointwise-read extension (dpia/scir.c):
 * distinct work-items touch distinct elements.  The levels go to
 * levels[] (*nlevels of them, 0 when the step is direct_ok). */
bool in_place_ok(Arena *a, const Phrase *step, const Binder *y, const Phrase **levels, int *nlevels) {
  AccPart whole = {y, ACC_WHOLE};
  *nlevels = 0;
  if (direct_ok(a, step, whole)) return true;
  *nlevels = local_nest(a, step, whole, levels, MAX_LOCAL_NEST);
  if (*nlevels > 0) return true;
  /* transpose (mapLocal f (zip (transpose y) (indices n))): A[[transpose
   * E]](o) is A[[E]](transposeAcc o), the work-items y's columns, which
   * they update as reads_apart_ok has it */
  Spine t, sp;
  if (step->kind == PH_APP && spine_of(a, (Phrase *)step, &t) && t.head->prim == PRIM_TRANSPOSE && t.nargs == 1 &&
      t.args[0]->kind == PH_APP && spine_of(a, t.args[0], &sp) && sp.head->prim == PRIM_MAP_LOCAL && sp.nargs == 2 &&
      !phrase_has_prim(sp.args[0], is_parallel_map) && reads_apart_ok(a, &sp, y, true)) {
    levels[0] = sp.head;
    *nlevels = 1;
  }
  return *nlevels > 0;
}

/* the first use of primitive prim in p, or NULL */
const Phrase *find_prim(const Phrase *p, Prim prim) {
  switch (p->kind) {
  case PH_PRIM: return p->prim == prim ? p : NULL;
  case PH_LAM: return find_prim(p->body, prim);
  case PH_PROJ:
  case PH_UNOP: return find_prim(p->fst, prim);
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: {
    const Phrase *q = find_prim(p->fst, prim);
    return q ? q : find_prim(p->snd, prim);
  }
  default: return NULL;
  }
}

/* ---- a select whose sides compute (stage1.c, select_if;
 * docs/language.md section 28) ---- */
static bool computes_in_item(Prim p) { return prim_computes(p) && p != PRIM_MAP; /* a plain map is a view */ }

bool prim_spans_items(Prim p) {
  PrimLevel level = prim_level(p);
  return prim_computes(p) && (level == PLVL_GLOBAL || level == PLVL_WORKGROUP || level == PLVL_LOCAL);
}

bool select_computes(const Spine *sp) {
  if (sp->head->prim != PRIM_SELECT || sp->nargs != 3) return false;
  const DataType *c = dt_resolve(b_data(sp->args[0]));
  if (c->kind != DT_SCALAR || c->width != 1) return false; /* a mask chooses lane by lane */
  bool work = false;
  for (int k = 1; k <= 2; k++) {
    if (phrase_has_prim(sp->args[k], prim_spans_items)) return false;
    work = work || phrase_has_prim(sp->args[k], computes_in_item);
  }
  return work;
}
