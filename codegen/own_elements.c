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
 *    acc[lid*2] and acc[lid*2 + 1]);
 *  - the elements are apart on the work-items of a group: with the local
 *    size fixed (reqd_work_group_size), the coefficients of the local ids
 *    of the dimensions of more than one work-item, in increasing order,
 *    are a mixed radix whose first digit is c - lo, each more than the
 *    largest value the digits before it reach together (lid_3*8 + lid_4
 *    with lid_4 < 8; lid*2 + c with c - lo <= 1).
 * Then work-item w touches its elements only, and no other work-item does.
 * Anything else (a division, a sequential loop's variable, a global id,
 * an unknown local size) is not proven, and the barrier stays. */
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

struct KirIdNames {
  Arena *arena;
  Vec names; /* IdName * */
  const KirKernel *k;
  const KirIdNames *up; /* the enclosing scopes' (a loop body's: the kernel's) */
};

static IdName *id_find(const KirIdNames *ids, const char *name) {
  for (int i = 0; i < ids->names.len; i++) {
    IdName *n = ids->names.items[i];
    if (strcmp(n->name, name) == 0) return n;
  }
  return NULL;
}

/* name is bound here: as the id (kind, dim) when ok, else as something else */
static void id_note(KirIdNames *ids, const char *name, bool ok, IdKind kind, int dim) {
  IdName *n = id_find(ids, name);
  if (!n) {
    n = NEW(ids->arena, IdName);
    *n = (IdName){name, kind, dim, !ok};
    vec_push(ids->arena, &ids->names, n);
    return;
  }
  if (!ok || n->kind != kind || n->dim != dim) n->bad = true;
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

static void collect_ids(KirIdNames *ids, const KirStmt *first, const KirStmt *stop) {
  for (const KirStmt *s = first; s && s != stop; s = s->next) {
    IdKind kind = ID_LOCAL;
    int dim = 0;
    switch (s->kind) {
    case KS_DECL: {
      bool is_id = id_query(s->decl.init, &kind, &dim);
      id_note(ids, s->decl.name, is_id, kind, dim);
      break;
    }
    case KS_ASSIGN:
      if (s->assign.lhs->kind == KE_VAR) id_note(ids, s->assign.lhs->name, false, kind, dim);
      break;
    case KS_FOR: id_note(ids, s->loop.var, false, kind, dim); break;
    case KS_VSTORE:
    case KS_IF:
    case KS_BLOCK:
    case KS_BARRIER:
    case KS_EXPR:
    case KS_COMMENT: break;
    }
    const KirBlock *body = kir_body((KirStmt *)s);
    if (body) collect_ids(ids, body->first, NULL);
  }
}

KirIdNames *kir_id_names(Arena *a, const KirKernel *k) {
  KirIdNames *ids = NEW(a, KirIdNames);
  *ids = (KirIdNames){.arena = a, .k = k};
  collect_ids(ids, k->locals.first, NULL);
  collect_ids(ids, k->body.first, NULL);
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
  return false;
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
    return;
  }
  int64_t d;
  if (!same_terms(&u->first, &f) || __builtin_sub_overflow(f.k, u->first.k, &d)) {
    u->ok = false;
    return;
  }
  if (d < u->lo) u->lo = d;
  if (d > u->hi) u->hi = d;
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
    }
  }
}

bool kir_own_elements_in(const KirIdNames *ids, const KirStmtRange *ranges, int n, const char *var) {
  if (!ids || !var) return false;
  KirIdNames inner = {.arena = ids->arena, .k = ids->k, .up = ids};
  for (int i = 0; i < n; i++) collect_ids(&inner, ranges[i].first, ranges[i].stop);
  Uses u = {.ids = &inner, .var = var, .ok = true};
  for (int i = 0; i < n; i++) uses_block(&u, ranges[i].first, ranges[i].stop);
  int64_t width;
  return u.ok && u.any && !__builtin_sub_overflow(u.hi, u.lo, &width) && one_to_one(ids->k, &u.first, width);
}

bool kir_own_elements(const KirIdNames *ids, const KirBlock *body, const char *var) {
  KirStmtRange all = {body->first, NULL};
  return kir_own_elements_in(ids, &all, 1, var);
}
