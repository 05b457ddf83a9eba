/* build.c: typed phrase constructors (build.h). */
#include "build.h"

#include <string.h>

static Phrase *node(Builder *b, PhraseTermKind k, PhraseType *type) {
  Phrase *p = NEW(b->arena, Phrase);
  p->kind = k;
  p->span = b->span;
  p->type = type;
  return p;
}

/* name interned (Builder.names) */
static Sym interned(Builder *b, const char *name) {
  unsigned slot = (unsigned)((uintptr_t)name >> 3) % DPIA_COUNTOF(b->names);
  if (b->names[slot].given != name) {
    b->names[slot].given = name;
    b->names[slot].interned = intern_cstr(b->in, name);
  }
  return b->names[slot].interned;
}

Binder *b_binder(Builder *b, const char *name, PhraseType *type) {
  Binder *x = NEW(b->arena, Binder);
  x->name = interned(b, name);
  x->span = b->span;
  x->type = type;
  x->id = ++b->tc->next_binder;
  return x;
}

Phrase *b_var(Builder *b, Binder *x) {
  Phrase *p = node(b, PH_VAR, x->type);
  p->binder = x;
  x->nuses++;
  x->sole_use = p;
  return p;
}

Phrase *b_lam(Builder *b, Binder *x, Phrase *body, bool passive) {
  PhraseType *t = passive ? pt_fn_p(b->tc, x->type, body->type) : pt_fn(b->tc, x->type, body->type);
  Phrase *p = node(b, PH_LAM, t);
  p->lam_binder = x;
  p->body = body;
  p->promoted = passive;
  return p;
}

Phrase *b_app(Builder *b, Phrase *fn, Phrase *arg) {
  if (fn->type->kind != PT_FN && fn->type->kind != PT_FN_P)
    INTERNAL("applying a phrase of type %s", pt_str(b->arena, fn->type));
  Phrase *p = node(b, PH_APP, fn->type->snd);
  p->fst = fn;
  p->snd = arg;
  return p;
}

Phrase *b_app_as(Builder *b, Phrase *old, Phrase *fn, Phrase *arg) {
  /* every field of an application that node() and b_app set, or leave
   * zero, compared: the one a pass reads (kind, mark, span, type, prelude
   * def, fst, snd) and the others an application has (index, op, unop).
   * Any difference, a mark of normality included, builds anew as before.
   * (The memset and memcmp of a whole Phrase were a tenth of stage II,
   * issue 35; the other members of the union an application never reads) */
  if (old->kind == PH_APP && old->fst == fn && old->snd == arg && (fn->type->kind == PT_FN || fn->type->kind == PT_FN_P) &&
      old->type == fn->type->snd && old->normal_run == 0 && old->span.src == b->span.src &&
      old->span.begin == b->span.begin && old->span.end == b->span.end && !old->prelude && !old->index && !old->op &&
      !old->unop)
    return old;
  return b_app(b, fn, arg);
}

Phrase *b_app2(Builder *b, Phrase *fn, Phrase *a1, Phrase *a2) { return b_app(b, b_app(b, fn, a1), a2); }

Phrase *b_proj(Builder *b, Phrase *pair, int index) {
  if (pair->type->kind != PT_WITH) INTERNAL("projection of a non-pair");
  if (pair->kind == PH_PAIR) return index == 1 ? pair->fst : pair->snd;
  Phrase *p = node(b, PH_PROJ, index == 1 ? pair->type->fst : pair->type->snd);
  p->fst = pair;
  p->index = index;
  return p;
}

Phrase *b_pair(Builder *b, Phrase *x, Phrase *y) {
  Phrase *p = node(b, PH_PAIR, pt_with(b->tc, x->type, y->type));
  p->fst = x;
  p->snd = y;
  return p;
}

Phrase *b_seq(Builder *b, Phrase *c1, Phrase *c2) {
  if (c1->kind == PH_PRIM && c1->prim == PRIM_SKIP) return c2;
  if (c2->kind == PH_PRIM && c2->prim == PRIM_SKIP) return c1;
  Phrase *p = node(b, PH_SEQ, b->tc->t_comm);
  p->fst = c1;
  p->snd = c2;
  return p;
}

Phrase *b_slice_acc(Builder *b, Phrase *acc, Size o, Size m) {
  SizeCtx *sc = &b->tc->sizes;
  DataType *whole = b_data(acc), *elem = whole->elem;
  PhraseType *ty = pt_fn(b->tc, acc->type, pt_acc(b->tc, dt_array(b->tc, m, elem)));
  Phrase *p = b_prim(b, PRIM_SLICE_ACC, 0, ty);
  p->sizes[0] = o;
  p->sizes[1] = m;
  p->sizes[2] = size_sub(sc, whole->size, size_add(sc, o, m));
  return b_app(b, p, acc);
}

Phrase *b_take_drop(Builder *b, Prim view, Size k, Phrase *e) {
  if (view != PRIM_TAKE && view != PRIM_DROP) INTERNAL("b_take_drop of %s", prim_info[view].name);
  DataType *whole = b_data(e);
  Size kept = view == PRIM_TAKE ? k : size_sub(&b->tc->sizes, whole->size, k);
  Phrase *p = b_prim(b, view, 0, pt_fn(b->tc, e->type, pt_exp(b->tc, dt_array(b->tc, kept, whole->elem))));
  p->sizes[0] = k;
  return b_app(b, p, e);
}

Phrase *b_index(Builder *b, Size k, Size n) {
  Phrase *p = node(b, PH_LIT, pt_exp(b->tc, dt_idx(b->tc, n)));
  phrase_set_size_literal(p, k);
  return p;
}

Phrase *b_skip(Builder *b) {
  Phrase *p = node(b, PH_PRIM, b->tc->t_comm);
  p->prim = PRIM_SKIP;
  return p;
}

Phrase *b_prim(Builder *b, Prim prim, int dim, PhraseType *type) {
  Phrase *p = node(b, PH_PRIM, type);
  p->prim = prim;
  p->dim = dim;
  return p;
}

DataType *b_data(const Phrase *p) {
  if (p->type->kind != PT_EXP && p->type->kind != PT_ACC) INTERNAL("data type of a %s", phrase_kind_name[p->kind]);
  return dt_resolve(p->type->data);
}

static PhraseType *E(Builder *b, DataType *d) { return pt_exp(b->tc, d); }
static PhraseType *A(Builder *b, DataType *d) { return pt_acc(b->tc, d); }
static PhraseType *F(Builder *b, PhraseType *x, PhraseType *y) { return pt_fn(b->tc, x, y); }

Phrase *b_idx(Builder *b, Phrase *array, Phrase *index) { return b_idx_row(b, array, index, NULL); }

Phrase *b_idx_row(Builder *b, Phrase *array, Phrase *index, Sym row) {
  DataType *t = b_data(array);
  ASSERT(t->kind == DT_ARRAY || (t->kind == DT_DEPARRAY && row));
  DataType *elem = t->kind == DT_ARRAY ? t->elem : dt_dep_elem(b->tc, t, size_var(&b->tc->sizes, row));
  PhraseType *ty = F(b, E(b, t), F(b, E(b, dt_idx(b->tc, t->size)), E(b, elem)));
  Phrase *prim = b_prim(b, PRIM_IDX, 0, ty);
  prim->dep_index = t->kind == DT_DEPARRAY ? row : NULL; /* the row it takes */
  return b_app2(b, prim, array, index);
}

Phrase *b_idx_acc(Builder *b, Phrase *acc, Phrase *index) { return b_idx_acc_row(b, acc, index, NULL); }

Phrase *b_idx_acc_row(Builder *b, Phrase *acc, Phrase *index, Sym row) {
  DataType *t = b_data(acc);
  ASSERT(t->kind == DT_ARRAY || (t->kind == DT_DEPARRAY && row));
  DataType *elem = t->kind == DT_ARRAY ? t->elem : dt_dep_elem(b->tc, t, size_var(&b->tc->sizes, row));
  PhraseType *ty = F(b, A(b, t), F(b, E(b, dt_idx(b->tc, t->size)), A(b, elem)));
  Phrase *prim = b_prim(b, PRIM_IDX_ACC, 0, ty);
  prim->dep_index = t->kind == DT_DEPARRAY ? row : NULL; /* the row it takes */
  return b_app2(b, prim, acc, index);
}

static Phrase *pair_part(Builder *b, Prim prim, Phrase *x, bool first) {
  DataType *t = b_data(x);
  ASSERT(t->kind == DT_PAIR);
  DataType *part = first ? t->fst : t->snd;
  PhraseType *ty = x->type->kind == PT_EXP ? F(b, E(b, t), E(b, part)) : F(b, A(b, t), A(b, part));
  return b_app(b, b_prim(b, prim, 0, ty), x);
}

Phrase *b_fst(Builder *b, Phrase *e) { return pair_part(b, PRIM_FST, e, true); }
Phrase *b_snd(Builder *b, Phrase *e) { return pair_part(b, PRIM_SND, e, false); }

Phrase *b_assign(Builder *b, Phrase *acc, Phrase *exp) {
  DataType *t = b_data(acc);
  switch (t->kind) {
  case DT_ARRAY: {
    /* mapISeq n d d (\x a -> a :=d x) E A, already in its stage II form:
     * for n (\i -> idxAcc A i :=d idx E i) */
    Binder *i = b_binder(b, "i", E(b, dt_idx(b->tc, t->size)));
    Phrase *body = b_assign(b, b_idx_acc(b, acc, b_var(b, i)), b_idx(b, exp, b_var(b, i)));
    PhraseType *ty = F(b, F(b, E(b, dt_idx(b->tc, t->size)), b->tc->t_comm), b->tc->t_comm);
    Phrase *loop = b_prim(b, PRIM_FOR, 0, ty);
    loop->sizes[0] = t->size;
    loop->copies_array = true;
    return b_app(b, loop, b_lam(b, i, body, false));
  }
  case DT_DEPARRAY: {
    /* row by row: for n (\k -> idxAcc A k :=d[k] idx E k), the loop's
     * index the rows' size k (docs/language.md section 30.2), a name of
     * its own in the translation, as a dependent map's row (check_dep.c) */
    int nth = ++b->tc->dep_rows;
    Sym row = intern_cstr(b->in, nth == 1 ? arena_printf(b->arena, "%s'", t->name)
                                          : arena_printf(b->arena, "%s'%d", t->name, nth));
    Binder *k = b_binder(b, row, E(b, dt_idx(b->tc, t->size)));
    Phrase *body = b_assign(b, b_idx_acc_row(b, acc, b_var(b, k), row), b_idx_row(b, exp, b_var(b, k), row));
    PhraseType *ty = F(b, F(b, E(b, dt_idx(b->tc, t->size)), b->tc->t_comm), b->tc->t_comm);
    Phrase *loop = b_prim(b, PRIM_FOR, 0, ty);
    loop->sizes[0] = t->size;
    loop->copies_array = true;
    loop->dep_index = row;
    loop->origin = "mapSeq"; /* a copy's loop, named i in OpenCL as the others (codegen gen_for) */
    return b_app(b, loop, b_lam(b, k, body, false));
  }
  case DT_PAIR:
    return b_seq(b, b_assign(b, pair_part(b, PRIM_PAIR_ACC1, acc, true), b_fst(b, exp)),
                 b_assign(b, pair_part(b, PRIM_PAIR_ACC2, acc, false), b_snd(b, exp)));
  default: {
    Phrase *p = node(b, PH_ASSIGN, b->tc->t_comm);
    p->fst = acc;
    p->snd = exp;
    return p;
  }
  }
}

Phrase *b_new(Builder *b, Prim prim, DataType *t, Binder *v, Phrase *body) {
  PhraseType *ty = F(b, F(b, pt_var(b->tc, t), b->tc->t_comm), b->tc->t_comm);
  Phrase *p = b_prim(b, prim, 0, ty);
  p->type_arg = t;
  return b_app(b, p, b_lam(b, v, body, false));
}
