/* own_elements.c: the pointwise rule of the barrier pass through nested
 * levels, proven on the kernel IR's index trees (barrier_pass.c,
 * loop_carried; kir.h, kir_own_elements).
 *
 * A work-group's accumulator updated in place by nested mapLocals
 * (docs/language.md section 2.1; stage I's local_nest) is read and written
 * by each work-item at its own element only, at every step of the
 * reduction's loop:
 *
 *   for (int i = 0; i < 16; i += 1) {
 *     int lid_3 = get_local_id(1);
 *     int lid_4 = get_local_id(0);
 *     acc[lid_3*8 + lid_4] = xs[...] + acc[lid_3*8 + lid_4];
 *   }
 *
 * Between a step's accesses to an element and the next step's, no other
 * work-item touches it, so the loop needs no barrier for the accumulator
 * (the reads and writes of one work-item are ordered by program order).
 * The translation knows this (SCIR's pointwise reads, dpia/scir.c), but
 * the barrier pass proves it again on the statements it fences, the
 * loop's body, from their index trees:
 *  - every use of the buffer's variable there is an element of it,
 *    var[E] (of which a lane or a field may be taken): no pointer to it,
 *    no vector load or store;
 *  - every E is the same linear combination of the work-item's local ids
 *    (get_local_id(d), whichever variable holds it), its group ids and the
 *    kernel's nat parameters, plus a constant c from lo to hi: the same
 *    elements in every step (an element that is an array of two is
 *    acc[lid*2] and acc[lid*2 + 1]); a sequential loop's variable whose
 *    range its loop gives (range_stmt) adds its range to c's
 *    (acc[lid*16 + i_3], i_3 from 0 to 13: the work-item's row);
 *  - the elements are apart on the work-items of a group: with the local
 *    size fixed (reqd_work_group_size), the coefficients of the local ids
 *    of the dimensions of more than one work-item, in increasing order,
 *    are a mixed radix whose first digit is c - lo, each more than the
 *    largest value the digits before it reach together (lid_3*8 + lid_4
 *    with lid_4 < 8; lid*2 + c with c - lo <= 1).
 * Then work-item w touches its elements only, and no other work-item does.
 * Anything else (a division, a loop's variable of unknown range, a global
 * id, an unknown local size) is not proven, and the barrier stays. */
#include "kernel.h"
#include "kir.h"

#include <string.h>

/* ---- the ids: variables declared from get_local_id and get_group_id ---- */

typedef enum IdKind { ID_LOCAL, ID_GROUP } IdKind;

typedef struct IdName {
  const char *name;
  IdKind kind;
  int dim;
  bool bad; /* declared otherwise too, or assigned: not an id */
} IdName;

/* the values a sequential loop's variable takes, for every loop of that
 * name in the kernel (known: false when one of them, or another binding
 * of the name, does not say) */
typedef enum RangeState { RANGE_NONE, RANGE_KNOWN, RANGE_UNKNOWN } RangeState;
typedef struct LoopRange {
  const char *name;
  RangeState state;
  int64_t lo, hi;
} LoopRange;

/* The names and ranges are kept in arrays of their own (not a pointer
 * and an allocation each): a kernel has a few of each, and a pointer to
 * one is never held across the noting of another, which may move them
 * (translation throughput, BENCHMARKS.md). */
struct KirIdNames {
  Arena *arena;
  IdName *names;
  int nnames, capnames;
  LoopRange *ranges; /* the kernel's (kir_id_names) */
  int nranges, capranges;
  const KirKernel *k;
  const KirIdNames *up; /* the enclosing scopes' (a loop body's: the kernel's) */
};

/* The passes name most variables with one string each, and names apart
 * most often differ in their first character: both are looked at before a
 * call of strcmp, which was half of kir_id_names's instructions in an
 * unrolled kernel (translation throughput, BENCHMARKS.md). */
static inline bool same_name(const char *a, const char *b) {
  return a == b || (a[0] == b[0] && strcmp(a, b) == 0);
}

static const IdName *id_find(const KirIdNames *ids, const char *name) {
  for (int i = 0; i < ids->nnames; i++)
    if (same_name(ids->names[i].name, name)) return &ids->names[i];
  return NULL;
}

/* name is bound here: as the id (kind, dim) when ok, else as something
 * else; returns the index of its entry */
static int id_note(KirIdNames *ids, const char *name, bool ok, IdKind kind, int dim) {
  for (int i = 0; i < ids->nnames; i++) {
    IdName *n = &ids->names[i];
    if (!same_name(n->name, name)) continue;
    if (!ok || n->kind != kind || n->dim != dim) n->bad = true;
    return i;
  }
  ids->names = kir_grown(ids->arena, ids->names, ids->nnames, &ids->capnames, sizeof *ids->names);
  ids->names[ids->nnames++] = (IdName){name, kind, dim, !ok};
  return ids->nnames - 1;
}

/* the id that init reads (an int cast of it or not), or false */
static bool id_query(const KirExpr *init, IdKind *kind, int *dim) {
  const KirExpr *q = kir_query_of(init);
  if (!q) return false;
  *dim = q->query.dim;
  DPIA_EXHAUSTIVE_BEGIN
  switch (q->query.query) {
  case KQ_LOCAL_ID: *kind = ID_LOCAL; return true;
  case KQ_GROUP_ID: *kind = ID_GROUP; return true;
  case KQ_GLOBAL_ID:
  case KQ_GLOBAL_SIZE:
  case KQ_NUM_GROUPS:
  case KQ_LOCAL_SIZE: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* what statement s binds (not what its body does): the index of the
 * name's entry (id_note), or -1 where it binds none */
static int id_stmt(KirIdNames *ids, const KirStmt *s) {
  IdKind kind = ID_LOCAL;
  int dim = 0;
  switch (s->kind) {
  case KS_DECL: {
    bool is_id = id_query(s->decl.init, &kind, &dim);
    return id_note(ids, s->decl.name, is_id, kind, dim);
  }
  case KS_ASSIGN:
    if (s->assign.lhs->kind == KE_VAR) return id_note(ids, s->assign.lhs->name, false, kind, dim);
    return -1;
  case KS_FOR: return id_note(ids, s->loop.var, false, kind, dim);
  case KS_RUN: /* each step assigns what its template does: collect, below */
  case KS_VSTORE:
  case KS_IF:
  case KS_BLOCK:
  case KS_BARRIER:
  case KS_EXPR:
  case KS_COMMENT: return -1;
  }
  return -1;
}

static void range_stmt(KirIdNames *ids, const KirStmt *s, int at);

/* The ids bound from first up to stop, and in the blocks inside, in
 * order; with ranges, the loops' ranges too (range_stmt), in the same
 * walk: each is noted in the order of its own statements, the one walk
 * for both (kir_id_names) gives what a walk each would. */
static void collect(KirIdNames *ids, const KirStmt *first, const KirStmt *stop, bool ranges) {
  for (const KirStmt *s = first; s && s != stop; s = s->next) {
    int at = id_stmt(ids, s);
    if (ranges) range_stmt(ids, s, at);
    /* each step binds what its template does (and declares no loop) */
    if (s->kind == KS_RUN) collect(ids, s->run.body.first, NULL, ranges);
    const KirBlock *body = kir_body((KirStmt *)s);
    if (body) collect(ids, body->first, NULL, ranges);
  }
}

/* ---- the ranges of the sequential loops' variables ----
 *
 * A step that reads other elements of its own row, `acc[lid*16 + i_3]`
 * for i_3 < i < 15 (docs/language.md section 31, one element changed),
 * touches row lid alone when i_3 stays within 0 .. 15: the loop
 * `for (int i_3 = A; i_3 < B; i_3 += c)`, c > 0, gives its variable
 * values from the least of A to the greatest of B less one, A and B
 * constants or sums of constants and enclosing loops' variables, whose
 * ranges a walk from the outside in has found first.  A name is one
 * variable in its scope (no shadowing in a kernel), but loops apart may
 * reuse it: its range is the hull of theirs, and a name bound otherwise
 * anywhere (declared, assigned) has none. */

static LoopRange *range_find(const KirIdNames *ids, const char *name) {
  for (; ids; ids = ids->up)
    for (int i = 0; i < ids->nranges; i++)
      if (same_name(ids->ranges[i].name, name)) return &ids->ranges[i];
  return NULL;
}

/* The range of name, which the statement at hand binds, noted
 * (RANGE_NONE) where it was not: valid until the next range is noted.
 * kir_id_names notes every name a statement binds in both arrays, in the
 * same order and under the same equality (same_name), so its range is at
 * the index of its id entry (at, id_stmt): one search a binding, not a
 * second one of the ranges (translation throughput, BENCHMARKS.md). */
static LoopRange *range_note(KirIdNames *ids, int at, const char *name) {
  if (at >= 0 && at < ids->nranges) {
    LoopRange *r = &ids->ranges[at];
    if (!same_name(r->name, name)) INTERNAL("the range of '%s' is not at its id's entry", name);
    return r;
  }
  if (at != ids->nranges || ids->up) INTERNAL("the range of '%s' is not at its id's entry", name);
  ids->ranges = kir_grown(ids->arena, ids->ranges, ids->nranges, &ids->capranges, sizeof *ids->ranges);
  LoopRange *r = &ids->ranges[ids->nranges++];
  *r = (LoopRange){name, RANGE_NONE, 0, 0};
  return r;
}

/* lo .. hi bound the values of x, or false */
static bool ix_range(const KirIdNames *ids, const Ix *x, int64_t *lo, int64_t *hi) {
  int64_t alo, ahi, blo, bhi, c;
  switch (x->kind) {
  case IX_CONST: *lo = *hi = x->value; return true;
  case IX_VAR: {
    const LoopRange *r = range_find(ids, x->name);
    if (!r || r->state != RANGE_KNOWN) return false;
    *lo = r->lo, *hi = r->hi;
    return true;
  }
  case IX_ADD:
    return ix_range(ids, x->a, &alo, &ahi) && ix_range(ids, x->b, &blo, &bhi) &&
           !__builtin_add_overflow(alo, blo, lo) && !__builtin_add_overflow(ahi, bhi, hi);
  case IX_SUB:
    return ix_range(ids, x->a, &alo, &ahi) && ix_range(ids, x->b, &blo, &bhi) &&
           !__builtin_sub_overflow(alo, bhi, lo) && !__builtin_sub_overflow(ahi, blo, hi);
  case IX_MUL: {
    const Ix *v = x->b;
    if (!ix_const_value(x->a, &c)) {
      if (!ix_const_value(x->b, &c)) return false;
      v = x->a;
    }
    if (c < 0 || !ix_range(ids, v, &alo, &ahi)) return false;
    return !__builtin_mul_overflow(alo, c, lo) && !__builtin_mul_overflow(ahi, c, hi);
  }
  case IX_EXPR:
  case IX_DIV:
  case IX_MOD: return false;
  }
  return false;
}

static bool expr_range(const KirIdNames *ids, const KirExpr *e, int64_t *lo, int64_t *hi) {
  if (!e) return false;
  switch (e->kind) {
  case KE_INT: *lo = *hi = e->value; return true;
  case KE_IX: return ix_range(ids, e->ix, lo, hi);
  case KE_VAR: {
    const LoopRange *r = range_find(ids, e->name);
    if (!r || r->state != RANGE_KNOWN) return false;
    *lo = r->lo, *hi = r->hi;
    return true;
  }
  default: return false;
  }
}

/* the range statement s gives its name (not what its body does; at: the
 * name's index, id_stmt) */
static void range_stmt(KirIdNames *ids, const KirStmt *s, int at) {
  switch (s->kind) {
  case KS_DECL: range_note(ids, at, s->decl.name)->state = RANGE_UNKNOWN; break;
  case KS_ASSIGN:
    if (s->assign.lhs->kind == KE_VAR) range_note(ids, at, s->assign.lhs->name)->state = RANGE_UNKNOWN;
    break;
  case KS_FOR: {
    LoopRange *r = range_note(ids, at, s->loop.var);
    int64_t ilo, ihi, blo, bhi, step, step_hi, last;
    if (!(expr_range(ids, s->loop.init, &ilo, &ihi) && expr_range(ids, s->loop.bound, &blo, &bhi) &&
          expr_range(ids, s->loop.step, &step, &step_hi) && step > 0 && !__builtin_sub_overflow(bhi, 1, &last))) {
      r->state = RANGE_UNKNOWN;
      break;
    }
    if (last < ilo) last = ilo; /* no step at all */
    if (r->state == RANGE_NONE) {
      *r = (LoopRange){r->name, RANGE_KNOWN, ilo, last};
    } else if (r->state == RANGE_KNOWN) {
      if (ilo < r->lo) r->lo = ilo;
      if (last > r->hi) r->hi = last;
    }
    break;
  }
  case KS_RUN: /* its template's statements: collect */
  case KS_VSTORE:
  case KS_IF:
  case KS_BLOCK:
  case KS_BARRIER:
  case KS_EXPR:
  case KS_COMMENT: break;
  }
}

KirIdNames *kir_id_names(Arena *a, const KirKernel *k) {
  KirIdNames *ids = NEW(a, KirIdNames);
  *ids = (KirIdNames){.arena = a, .k = k};
  collect(ids, k->locals.first, NULL, true);
  collect(ids, k->body.first, NULL, true);
  return ids;
}

/* ---- linear forms of an index ---- */

enum { FORM_TERMS = 8 };

/* an atom: a local or group id of a dimension, or a nat parameter */
typedef struct Atom {
  bool param;
  IdKind kind;
  int dim;
  const char *name; /* a parameter's */
} Atom;

typedef struct Form {
  int64_t k;
  int64_t rlo, rhi; /* plus a value from rlo to rhi: sequential loops' variables */
  int n;
  Atom atom[FORM_TERMS];
  int64_t coef[FORM_TERMS];
} Form;

static bool same_atom(const Atom *a, const Atom *b) {
  if (a->param != b->param) return false;
  return a->param ? strcmp(a->name, b->name) == 0 : a->kind == b->kind && a->dim == b->dim;
}

static bool form_term(Form *f, Atom a, int64_t coef) {
  for (int i = 0; i < f->n; i++)
    if (same_atom(&f->atom[i], &a)) return !__builtin_add_overflow(f->coef[i], coef, &f->coef[i]);
  if (f->n == FORM_TERMS) return false;
  f->atom[f->n] = a;
  f->coef[f->n++] = coef;
  return true;
}

static bool is_nat_param(const KirKernel *k, const char *name) {
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_NAT && strcmp(k->params[i].name, name) == 0) return true;
  return false;
}

/* f += scale * the variable name: an id or a nat parameter, else false.
 * ids: those the body declares (a name declared there is declared nowhere
 * it is visible from, spec section 8), then the kernel's, where a name
 * declared in two scopes apart, one an id and one not, is no id. */
static bool form_var(const KirIdNames *ids, Form *f, const char *name, int64_t scale) {
  const IdName *n = id_find(ids, name);
  if (!n && ids->up) return form_var(ids->up, f, name, scale);
  if (n && !n->bad) return form_term(f, (Atom){false, n->kind, n->dim, NULL}, scale);
  if (!n && is_nat_param(ids->k, name)) return form_term(f, (Atom){true, ID_LOCAL, 0, name}, scale);
  /* a sequential loop's variable: its range (range_stmt) */
  const LoopRange *r = range_find(ids, name);
  int64_t lo, hi;
  if (!r || r->state != RANGE_KNOWN || __builtin_mul_overflow(r->lo, scale, &lo) ||
      __builtin_mul_overflow(r->hi, scale, &hi))
    return false;
  if (lo > hi) {
    int64_t t = lo;
    lo = hi, hi = t;
  }
  return !__builtin_add_overflow(f->rlo, lo, &f->rlo) && !__builtin_add_overflow(f->rhi, hi, &f->rhi);
}

static bool form_ix(const KirIdNames *ids, Form *f, const Ix *e, int64_t scale) {
  int64_t c;
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case IX_CONST: return !__builtin_mul_overflow(e->value, scale, &c) && !__builtin_add_overflow(f->k, c, &f->k);
  case IX_VAR: return form_var(ids, f, e->name, scale);
  case IX_ADD: return form_ix(ids, f, e->a, scale) && form_ix(ids, f, e->b, scale);
  case IX_SUB: return form_ix(ids, f, e->a, scale) && form_ix(ids, f, e->b, -scale);
  case IX_MUL:
    if (ix_const_value(e->a, &c)) return !__builtin_mul_overflow(c, scale, &c) && form_ix(ids, f, e->b, c);
    if (ix_const_value(e->b, &c)) return !__builtin_mul_overflow(c, scale, &c) && form_ix(ids, f, e->a, c);
    return false;
  case IX_EXPR:
  case IX_DIV:
  case IX_MOD: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

static bool form_of(const KirIdNames *ids, const KirExpr *e, Form *f) {
  *f = (Form){0};
  switch (e->kind) {
  case KE_INT: f->k = e->value; return true;
  case KE_IX: return form_ix(ids, f, e->ix, 1);
  case KE_VAR: return form_var(ids, f, e->name, 1);
  default: return false;
  }
}

/* the same combination: every term of each is the other's (a zero
 * coefficient is no term) */
static bool form_contains(const Form *a, const Form *b) {
  for (int i = 0; i < a->n; i++) {
    if (a->coef[i] == 0) continue;
    bool found = false;
    for (int j = 0; j < b->n && !found; j++) found = same_atom(&a->atom[i], &b->atom[j]) && a->coef[i] == b->coef[j];
    if (!found) return false;
  }
  return true;
}

/* the same terms, whatever the constants */
static bool same_terms(const Form *a, const Form *b) { return form_contains(a, b) && form_contains(b, a); }

/* f + [0, width] are apart on distinct work-items of a group (the mixed
 * radix above, its first digit the constant's range); the local size
 * must be fixed */
static bool one_to_one(const KirKernel *k, const Form *f, int64_t width) {
  if (!k->reqd_local) return false;
  int64_t coef[3];
  int n = 0;
  for (int d = 0; d < 3; d++) {
    if (k->local_size[d] <= 1) continue;
    int64_t c = 0;
    for (int i = 0; i < f->n; i++)
      if (!f->atom[i].param && f->atom[i].kind == ID_LOCAL && f->atom[i].dim == d) c = f->coef[i];
    if (c <= 0) return false; /* work-items apart in d alone would share */
    coef[n++] = c;
  }
  /* the local sizes of the coefficients' dimensions, in the same order */
  int64_t size[3];
  int m = 0;
  for (int d = 0; d < 3; d++)
    if (k->local_size[d] > 1) size[m++] = k->local_size[d];
  /* in increasing order of coefficient (at most three: insertion) */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && coef[j] < coef[j - 1]; j--) {
      int64_t t = coef[j];
      coef[j] = coef[j - 1], coef[j - 1] = t;
      t = size[j];
      size[j] = size[j - 1], size[j - 1] = t;
    }
  int64_t reach = width; /* the largest value of the terms so far */
  for (int i = 0; i < n; i++) {
    int64_t span;
    if (coef[i] <= reach || __builtin_mul_overflow(coef[i], size[i] - 1, &span) ||
        __builtin_add_overflow(reach, span, &reach))
      return false;
  }
  return true;
}

/* ---- values every work-item of a group has alike ---- */

static bool scalar_param(const KirKernel *k, const char *name) {
  for (int i = 0; i < k->nparams; i++)
    if ((k->params[i].role == KP_NAT || k->params[i].role == KP_SCALAR) && strcmp(k->params[i].name, name) == 0)
      return true;
  return false;
}

/* name is a group id, a nat or scalar parameter, or one of the enclosing
 * loops' variables that are alike (alike: those names) */
static bool alike_var(const KirIdNames *ids, const char *name, const Vec *alike) {
  for (int i = 0; i < alike->len; i++)
    if (strcmp(alike->items[i], name) == 0) return true;
  for (const KirIdNames *s = ids; s; s = s->up) {
    const IdName *n = id_find(s, name);
    if (n) return !n->bad && n->kind == ID_GROUP;
  }
  return scalar_param(ids->k, name);
}

static bool alike_ix(const KirIdNames *ids, const Ix *x, const Vec *alike) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (x->kind) {
  case IX_CONST: return true;
  case IX_VAR: return alike_var(ids, x->name, alike);
  case IX_EXPR: return kir_group_alike(ids, x->expr, alike);
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: return alike_ix(ids, x->a, alike) && alike_ix(ids, x->b, alike);
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

bool kir_group_alike(const KirIdNames *ids, const KirExpr *e, const Vec *alike) {
  if (!e) return true;
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_INT:
  case KE_LIT: return true;
  case KE_VAR: return alike_var(ids, e->name, alike);
  case KE_IX: return alike_ix(ids, e->ix, alike);
  case KE_QUERY: return e->query.query != KQ_LOCAL_ID && e->query.query != KQ_GLOBAL_ID;
  case KE_UNARY: return e->un.op != '&' && kir_group_alike(ids, e->un.operand, alike);
  case KE_BINARY: return kir_group_alike(ids, e->bin.lhs, alike) && kir_group_alike(ids, e->bin.rhs, alike);
  case KE_COND:
    return kir_group_alike(ids, e->cond.test, alike) && kir_group_alike(ids, e->cond.then, alike) &&
           kir_group_alike(ids, e->cond.other, alike);
  case KE_BUILTIN:
  case KE_CAST:
    for (int i = 0; i < e->call.nargs; i++)
      if (!kir_group_alike(ids, e->call.args[i], alike)) return false;
    return true;
  /* memory, which may differ from one element to the next, and calls of
   * the program's functions: not shown alike */
  case KE_INDEX:
  case KE_MEMBER:
  case KE_LANE:
  case KE_VLOAD:
  case KE_CALL:
  case KE_VECTOR: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* ---- the uses of the buffer ---- */

typedef struct Uses {
  const KirIdNames *ids;
  const char *var;
  bool ok, any;
  Form first;
  int64_t lo, hi; /* the constants of the accesses: from first.k + lo to first.k + hi */
} Uses;

static void uses_expr(Uses *u, const KirExpr *e);

static void uses_ix(Uses *u, const Ix *x) {
  if (!x || !u->ok) return;
  switch (x->kind) {
  case IX_CONST: return;
  case IX_VAR:
    if (strcmp(x->name, u->var) == 0) u->ok = false;
    return;
  case IX_EXPR: uses_expr(u, x->expr); return;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD:
    uses_ix(u, x->a);
    uses_ix(u, x->b);
    return;
  }
}

/* var[at]: an element, at the terms every other access has, plus a
 * constant (an element that is an array of two: acc[lid*2], acc[lid*2 +
 * 1]) */
static void element(Uses *u, const KirExpr *at) {
  Form f;
  if (!form_of(u->ids, at, &f)) {
    u->ok = false;
    return;
  }
  if (!u->any) {
    u->any = true;
    u->first = f;
    u->first.rlo = u->first.rhi = 0;
  }
  int64_t d, dlo, dhi;
  if (!same_terms(&u->first, &f) || __builtin_sub_overflow(f.k, u->first.k, &d) ||
      __builtin_add_overflow(d, f.rlo, &dlo) || __builtin_add_overflow(d, f.rhi, &dhi)) {
    u->ok = false;
    return;
  }
  if (dlo < u->lo) u->lo = dlo;
  if (dhi > u->hi) u->hi = dhi;
}

static void uses_expr(Uses *u, const KirExpr *e) {
  if (!e || !u->ok) return;
  if (e->kind == KE_INDEX && e->index.base->kind == KE_VAR && strcmp(e->index.base->name, u->var) == 0) {
    element(u, e->index.at);
    uses_expr(u, e->index.at);
    return;
  }
  if (e->kind == KE_VAR) {
    if (strcmp(e->name, u->var) == 0) u->ok = false; /* a pointer to it, or all of it */
    return;
  }
  if (e->kind == KE_IX) {
    uses_ix(u, e->ix);
    return;
  }
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++) uses_expr(u, kids[i]);
}

static void uses_block(Uses *u, const KirStmt *first, const KirStmt *stop) {
  for (const KirStmt *s = first; s && s != stop && u->ok; s = s->next) {
    switch (s->kind) {
    case KS_DECL: uses_expr(u, s->decl.init); break;
    case KS_ASSIGN:
      uses_expr(u, s->assign.lhs);
      uses_expr(u, s->assign.rhs);
      break;
    case KS_VSTORE:
      uses_expr(u, s->vstore.value);
      uses_expr(u, s->vstore.offset);
      uses_expr(u, s->vstore.ptr);
      break;
    case KS_FOR:
      uses_expr(u, s->loop.init);
      uses_expr(u, s->loop.bound);
      uses_expr(u, s->loop.step);
      uses_block(u, s->loop.body.first, NULL);
      break;
    case KS_IF:
      uses_expr(u, s->cond.cond);
      uses_block(u, s->cond.body.first, NULL);
      break;
    case KS_BLOCK: uses_block(u, s->block.body.first, NULL); break;
    case KS_EXPR: uses_expr(u, s->expr); break;
    case KS_BARRIER:
    case KS_COMMENT: break;
    case KS_RUN: {
      /* Each step's uses are at its own constants: where the template
       * uses var at all (or its $step hides a use's form), the steps
       * written out are walked; else no step uses it (a step's names are
       * its template's, $step aside). */
      Uses probe = {.ids = u->ids, .var = u->var, .ok = true};
      uses_block(&probe, s->run.body.first, NULL);
      if (probe.ok && !probe.any) break;
      KirBlock steps = kir_run_steps(u->ids->arena, s, false);
      uses_block(u, steps.first, NULL);
      break;
    }
    }
  }
}

bool kir_own_elements_in(const KirIdNames *ids, const KirStmtRange *ranges, int n, const char *var) {
  if (!ids || !var) return false;
  KirIdNames inner = {.arena = ids->arena, .k = ids->k, .up = ids};
  for (int i = 0; i < n; i++) collect(&inner, ranges[i].first, ranges[i].stop, false);
  Uses u = {.ids = &inner, .var = var, .ok = true};
  for (int i = 0; i < n; i++) uses_block(&u, ranges[i].first, ranges[i].stop);
  int64_t width;
  return u.ok && u.any && !__builtin_sub_overflow(u.hi, u.lo, &width) && one_to_one(ids->k, &u.first, width);
}

bool kir_own_elements(const KirIdNames *ids, const KirBlock *body, const char *var) {
  KirStmtRange all = {body->first, NULL};
  return kir_own_elements_in(ids, &all, 1, var);
}
