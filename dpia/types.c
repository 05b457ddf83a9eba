/* types.c: constructing, printing, comparing and substituting types
 * (types.h). */
#include "types.h"

#include <string.h>

void type_ctx_init(TypeCtx *tc, Arena *a) {
  memset(tc, 0, sizeof *tc);
  tc->arena = a;
  tc->sizes.arena = a;
  tc->t_int = dt_scalar(tc, SC_INT, 1);
  tc->t_float = dt_scalar(tc, SC_FLOAT, 1);
  tc->t_double = dt_scalar(tc, SC_DOUBLE, 1);
  tc->t_bool = dt_scalar(tc, SC_BOOL, 1);
  tc->t_comm = NEW(a, PhraseType);
  tc->t_comm->kind = PT_COMM;
}

DataType *dt_scalar(TypeCtx *tc, ScalarKind s, int width) {
  if (width == 1 && tc->t_bool) { /* the cache is complete once t_bool is set */
    switch (s) {
    case SC_INT: return tc->t_int;
    case SC_FLOAT: return tc->t_float;
    case SC_DOUBLE: return tc->t_double;
    case SC_BOOL: return tc->t_bool;
    }
  }
  DataType *t = NEW(tc->arena, DataType);
  t->kind = DT_SCALAR;
  t->scalar = s;
  t->width = width;
  return t;
}

DataType *dt_array(TypeCtx *tc, Size n, DataType *elem) {
  DataType *t = NEW(tc->arena, DataType);
  t->kind = DT_ARRAY;
  t->size = n;
  t->elem = elem;
  return t;
}

DataType *dt_pair(TypeCtx *tc, DataType *a, DataType *b) {
  DataType *t = NEW(tc->arena, DataType);
  t->kind = DT_PAIR;
  t->fst = a;
  t->snd = b;
  return t;
}

DataType *dt_idx(TypeCtx *tc, Size n) {
  DataType *t = NEW(tc->arena, DataType);
  t->kind = DT_IDX;
  t->size = n;
  return t;
}

DataType *dt_var(TypeCtx *tc, Sym name) {
  DataType *t = NEW(tc->arena, DataType);
  t->kind = DT_VAR;
  t->name = name;
  return t;
}

DataType *dt_meta(TypeCtx *tc, MetaClass cls, Span origin) {
  DataMeta *m = NEW(tc->arena, DataMeta);
  m->id = ++tc->next_meta;
  m->cls = cls;
  m->origin = origin;
  DataType *t = NEW(tc->arena, DataType);
  t->kind = DT_META;
  t->meta = m;
  return t;
}

DataType *dt_resolve(DataType *t) {
  while (t && t->kind == DT_META && t->meta->solution) t = t->meta->solution;
  return t;
}

bool dt_is_numeric(const DataType *t) {
  t = dt_resolve((DataType *)t);
  return t && t->kind == DT_SCALAR && t->scalar != SC_BOOL;
}

bool dt_is_floating(const DataType *t) {
  t = dt_resolve((DataType *)t);
  return t && t->kind == DT_SCALAR && (t->scalar == SC_FLOAT || t->scalar == SC_DOUBLE);
}

static PhraseType *pt_new(TypeCtx *tc, PhraseKind k) {
  PhraseType *t = NEW(tc->arena, PhraseType);
  t->kind = k;
  return t;
}

PhraseType *pt_exp(TypeCtx *tc, DataType *d) {
  PhraseType *t = pt_new(tc, PT_EXP);
  t->data = d;
  return t;
}

PhraseType *pt_acc(TypeCtx *tc, DataType *d) {
  PhraseType *t = pt_new(tc, PT_ACC);
  t->data = d;
  return t;
}

PhraseType *pt_with(TypeCtx *tc, PhraseType *a, PhraseType *b) {
  PhraseType *t = pt_new(tc, PT_WITH);
  t->fst = a;
  t->snd = b;
  return t;
}

PhraseType *pt_var(TypeCtx *tc, DataType *d) { return pt_with(tc, pt_acc(tc, d), pt_exp(tc, d)); }

PhraseType *pt_fn(TypeCtx *tc, PhraseType *a, PhraseType *b) {
  PhraseType *t = pt_new(tc, PT_FN);
  t->fst = a;
  t->snd = b;
  return t;
}

PhraseType *pt_fn_p(TypeCtx *tc, PhraseType *a, PhraseType *b) {
  PhraseType *t = pt_new(tc, PT_FN_P);
  t->fst = a;
  t->snd = b;
  return t;
}

bool pt_is_passive(const PhraseType *t) {
  switch (t->kind) {
  case PT_EXP: return true;
  case PT_ACC:
  case PT_COMM: return false;
  case PT_WITH: return pt_is_passive(t->fst) && pt_is_passive(t->snd);
  case PT_FN: return pt_is_passive(t->snd);
  case PT_FN_P: return true;
  }
  return false;
}

/* ---- printing ---- */

const char *scalar_name(ScalarKind s) {
  switch (s) {
  case SC_INT: return "int";
  case SC_FLOAT: return "float";
  case SC_DOUBLE: return "double";
  case SC_BOOL: return "bool";
  }
  return "?";
}

void dt_print(Buf *out, const DataType *t) {
  t = dt_resolve((DataType *)t);
  switch (t->kind) {
  case DT_SCALAR:
    buf_puts(out, scalar_name(t->scalar));
    if (t->width > 1) emit(out, "%d", t->width);
    return;
  case DT_ARRAY:
    buf_putc(out, '[');
    size_print(out, t->size);
    buf_putc(out, ']');
    dt_print(out, t->elem);
    return;
  case DT_PAIR:
    buf_putc(out, '(');
    dt_print(out, t->fst);
    buf_puts(out, ", ");
    dt_print(out, t->snd);
    buf_putc(out, ')');
    return;
  case DT_IDX:
    buf_puts(out, "idx[");
    size_print(out, t->size);
    buf_putc(out, ']');
    return;
  case DT_VAR: buf_puts(out, t->name); return;
  case DT_META:
    switch (t->meta->cls) {
    case MC_ANY: emit(out, "?%d", t->meta->id); return;
    case MC_NUMERIC: buf_puts(out, "num"); return;
    case MC_FLOATING: buf_puts(out, "real"); return;
    }
  }
}

/* precedence: 0 arrow, 1 with, 2 atom */
static void pt_print_prec(Buf *out, const PhraseType *t, int prec) {
  switch (t->kind) {
  case PT_EXP:
    buf_puts(out, "exp[");
    dt_print(out, t->data);
    buf_putc(out, ']');
    return;
  case PT_ACC:
    buf_puts(out, "acc[");
    dt_print(out, t->data);
    buf_putc(out, ']');
    return;
  case PT_COMM: buf_puts(out, "comm"); return;
  case PT_WITH:
    /* var[d] is how people write acc[d] & exp[d] */
    if (t->fst->kind == PT_ACC && t->snd->kind == PT_EXP && dt_equal(t->fst->data, t->snd->data)) {
      buf_puts(out, "var[");
      dt_print(out, t->fst->data);
      buf_putc(out, ']');
      return;
    }
    if (prec > 1) buf_putc(out, '(');
    pt_print_prec(out, t->fst, 1);
    buf_puts(out, " & ");
    pt_print_prec(out, t->snd, 2);
    if (prec > 1) buf_putc(out, ')');
    return;
  case PT_FN:
  case PT_FN_P:
    if (prec > 0) buf_putc(out, '(');
    pt_print_prec(out, t->fst, 1);
    buf_puts(out, t->kind == PT_FN ? " -> " : " ->p ");
    pt_print_prec(out, t->snd, 0);
    if (prec > 0) buf_putc(out, ')');
    return;
  }
}

void pt_print(Buf *out, const PhraseType *t) { pt_print_prec(out, t, 0); }

const char *dt_str(Arena *a, const DataType *t) {
  Buf b;
  buf_init(&b, a);
  dt_print(&b, t);
  return b.data;
}

const char *pt_str(Arena *a, const PhraseType *t) {
  Buf b;
  buf_init(&b, a);
  pt_print(&b, t);
  return b.data;
}

/* ---- equality ---- */

bool dt_equal(const DataType *a, const DataType *b) {
  a = dt_resolve((DataType *)a);
  b = dt_resolve((DataType *)b);
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case DT_SCALAR: return a->scalar == b->scalar && a->width == b->width;
  case DT_ARRAY: return size_eq(a->size, b->size) && dt_equal(a->elem, b->elem);
  case DT_PAIR: return dt_equal(a->fst, b->fst) && dt_equal(a->snd, b->snd);
  case DT_IDX: return size_eq(a->size, b->size);
  case DT_VAR: return a->name == b->name;
  case DT_META: return a->meta == b->meta;
  }
  return false;
}

bool pt_equal(const PhraseType *a, const PhraseType *b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case PT_EXP:
  case PT_ACC: return dt_equal(a->data, b->data);
  case PT_COMM: return true;
  case PT_WITH:
  case PT_FN:
  case PT_FN_P: return pt_equal(a->fst, b->fst) && pt_equal(a->snd, b->snd);
  }
  return false;
}

/* ---- substitution ---- */

static Size size_subst_all(TypeCtx *tc, const TypeSubst *s, Size n) {
  for (int i = 0; i < s->n; i++) {
    if (!s->is_size[i] || !size_has_var(n, s->names[i])) continue;
    Size out;
    if (!size_subst(&tc->sizes, n, s->names[i], s->sizes[i], &out))
      INTERNAL("substitution of %s produced a non-canonical size", s->names[i]);
    n = out;
  }
  return n;
}

DataType *dt_subst(TypeCtx *tc, const TypeSubst *s, DataType *t) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_SCALAR:
  case DT_META: return t;
  case DT_ARRAY: return dt_array(tc, size_subst_all(tc, s, t->size), dt_subst(tc, s, t->elem));
  case DT_PAIR: return dt_pair(tc, dt_subst(tc, s, t->fst), dt_subst(tc, s, t->snd));
  case DT_IDX: return dt_idx(tc, size_subst_all(tc, s, t->size));
  case DT_VAR:
    for (int i = 0; i < s->n; i++)
      if (!s->is_size[i] && s->names[i] == t->name) return s->datas[i];
    return t;
  }
  return t;
}

PhraseType *pt_subst(TypeCtx *tc, const TypeSubst *s, PhraseType *t) {
  switch (t->kind) {
  case PT_EXP: return pt_exp(tc, dt_subst(tc, s, t->data));
  case PT_ACC: return pt_acc(tc, dt_subst(tc, s, t->data));
  case PT_COMM: return t;
  case PT_WITH: return pt_with(tc, pt_subst(tc, s, t->fst), pt_subst(tc, s, t->snd));
  case PT_FN: return pt_fn(tc, pt_subst(tc, s, t->fst), pt_subst(tc, s, t->snd));
  case PT_FN_P: return pt_fn_p(tc, pt_subst(tc, s, t->fst), pt_subst(tc, s, t->snd));
  }
  return t;
}
