/* types.c: constructing, printing, comparing and substituting types
 * (types.h). */
#include "types.h"

#include <stdio.h>
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
  tc->t_comm->ground = true;
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
  t->ground = true;
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

/* the nesting depth of the dependent arrays in t (0: none) */
static int dep_depth(const DataType *t) {
  t = dt_resolve((DataType *)t);
  switch (t->kind) {
  case DT_ARRAY: return dep_depth(t->elem);
  case DT_DEPARRAY: return 1 + dep_depth(t->elem);
  case DT_PAIR: {
    int a = dep_depth(t->fst), b = dep_depth(t->snd);
    return a > b ? a : b;
  }
  case DT_SCALAR:
  case DT_IDX:
  case DT_VAR:
  case DT_META: return 0;
  }
  return 0;
}

Sym dt_dep_index(Interner *in, const DataType *elem) {
  char name[24];
  snprintf(name, sizeof name, "#%d", dep_depth(elem));
  return intern_cstr(in, name);
}

DataType *dt_deparray(TypeCtx *tc, Size n, Sym index, Sym written, DataType *elem) {
  DataType *t = NEW(tc->arena, DataType);
  t->kind = DT_DEPARRAY;
  t->size = n;
  t->index = index;
  t->name = written;
  t->elem = elem;
  return t;
}

DataType *dt_dep_elem(TypeCtx *tc, const DataType *dep, Size k) {
  Sym index = dep->index;
  bool is_size = true;
  TypeSubst s = {1, &index, &is_size, &k, NULL};
  return dt_subst(tc, &s, dep->elem);
}

bool dt_has_deparray(const DataType *t) { return dep_depth(t) > 0; }

bool dt_dep_offset(TypeCtx *tc, const DataType *dep, Size k, Size *offset) {
  dep = dt_resolve((DataType *)dep);
  if (dep->kind != DT_DEPARRAY) return false;
  const DataType *row = dt_resolve(dep->elem);
  if (row->kind != DT_ARRAY || dt_has_size_var(row->elem, dep->index)) return false;
  SizeCtx *sc = &tc->sizes;
  /* the row's count as a + b*i, both read off at i = 0 and i = 1 */
  Size a, a_b;
  if (!size_subst(sc, row->size, dep->index, size_const(sc, 0), &a) ||
      !size_subst(sc, row->size, dep->index, size_const(sc, 1), &a_b))
    return false;
  Size b = size_sub(sc, a_b, a);
  if (!size_is_polynomial(b) || size_has_var(b, dep->index) ||
      !size_eq(size_add(sc, a, size_mul(sc, b, size_var(sc, dep->index))), row->size))
    return false;
  /* a*k + b*k*(k-1)/2: k*(k-1) is even, the half a size's coefficient */
  Size pairs;
  if (!size_div(sc, size_mul(sc, k, size_sub(sc, k, size_const(sc, 1))), size_const(sc, 2), &pairs)) return false;
  *offset = size_add(sc, size_mul(sc, a, k), size_mul(sc, b, pairs));
  return !sc->overflow;
}

DataType *dt_dep_join(TypeCtx *tc, const DataType *dep) {
  Size total;
  dep = dt_resolve((DataType *)dep);
  if (!dt_dep_offset(tc, dep, dep->size, &total)) return NULL;
  return dt_array(tc, total, dt_resolve(dep->elem)->elem);
}

bool dt_has_size_var(const DataType *t, Sym v) {
  t = dt_resolve((DataType *)t);
  switch (t->kind) {
  case DT_ARRAY:
  case DT_DEPARRAY: return size_has_var(t->size, v) || dt_has_size_var(t->elem, v);
  case DT_PAIR: return dt_has_size_var(t->fst, v) || dt_has_size_var(t->snd, v);
  case DT_IDX: return size_has_var(t->size, v);
  case DT_SCALAR:
  case DT_VAR:
  case DT_META: return false;
  }
  return false;
}

bool pt_has_size_var(const PhraseType *t, Sym v) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (t->kind) {
  case PT_EXP:
  case PT_ACC: return dt_has_size_var(t->data, v);
  case PT_COMM: return false;
  case PT_WITH:
  case PT_FN:
  case PT_FN_P: return pt_has_size_var(t->fst, v) || pt_has_size_var(t->snd, v);
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

DataType *dt_var(TypeCtx *tc, Sym name) {
  DataType *t = NEW(tc->arena, DataType);
  t->kind = DT_VAR;
  t->name = name;
  t->ground = true;
  return t;
}

DataType *dt_meta(TypeCtx *tc, MetaClass cls, Span origin) {
  DataMeta *m = NEW(tc->arena, DataMeta);
  m->id = ++tc->next_meta;
  m->cls = cls;
  m->origin = origin;
  vec_push(tc->arena, &tc->metas, m);
  DataType *t = NEW(tc->arena, DataType);
  t->kind = DT_META;
  t->meta = m;
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

/* does a size of t have a variable spelled name (interned or not)? */
static bool dt_has_size_name(const DataType *t, const char *name) {
  t = dt_resolve((DataType *)t);
  switch (t->kind) {
  case DT_ARRAY:
  case DT_DEPARRAY: return size_has_name(t->size, name) || dt_has_size_name(t->elem, name);
  case DT_PAIR: return dt_has_size_name(t->fst, name) || dt_has_size_name(t->snd, name);
  case DT_IDX: return size_has_name(t->size, name);
  case DT_SCALAR:
  case DT_VAR:
  case DT_META: return false;
  }
  return false;
}

/* a dependent array's element with the index named as the program wrote
 * it, for printing (a context of its own: printing has only an arena).
 * *shown is that name, or name_2, name_3 ... if the type has a size of
 * that name already (a def's size, put in for one of its parameters, or an
 * enclosing index of the same name): the printed type means the type. */
static DataType *dep_elem_as_written(Arena *a, const DataType *dep, const char **shown) {
  *shown = dep->name;
  for (int k = 2; dt_has_size_name(dep->elem, *shown) || size_has_name(dep->size, *shown); k++)
    *shown = arena_printf(a, "%s_%d", dep->name, k);
  TypeCtx tc;
  memset(&tc, 0, sizeof tc);
  tc.arena = a;
  tc.sizes.arena = a;
  return dt_dep_elem(&tc, dep, size_var(&tc.sizes, *shown));
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
    size_print_in(out, t->size, SIZE_SYNTAX_DPIA, SIZE_ALONE);
    buf_putc(out, ']');
    dt_print(out, t->elem);
    return;
  case DT_DEPARRAY: {
    buf_putc(out, '[');
    size_print_in(out, t->size, SIZE_SYNTAX_DPIA, SIZE_ALONE);
    const char *shown;
    DataType *elem = dep_elem_as_written(out->arena, t, &shown);
    emit(out, "](\\%s -> ", shown);
    dt_print(out, elem);
    buf_putc(out, ')');
    return;
  }
  case DT_PAIR:
    buf_putc(out, '(');
    dt_print(out, t->fst);
    buf_puts(out, ", ");
    dt_print(out, t->snd);
    buf_putc(out, ')');
    return;
  case DT_IDX:
    buf_puts(out, "idx[");
    size_print_in(out, t->size, SIZE_SYNTAX_DPIA, SIZE_ALONE);
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
  /* canonical indices (dt_dep_index): equal up to their names */
  case DT_DEPARRAY: return size_eq(a->size, b->size) && a->index == b->index && dt_equal(a->elem, b->elem);
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

bool size_subst_type(TypeCtx *tc, const TypeSubst *s, Size n, Size *out) {
  Sym *vars = NEWARRAY(tc->arena, Sym, s->n ? s->n : 1);
  for (int i = 0; i < s->n; i++) vars[i] = s->is_size[i] ? s->names[i] : ""; /* "" is in no size */
  return size_subst_many(&tc->sizes, n, s->n, vars, s->sizes, out);
}

static Size size_subst_all(TypeCtx *tc, const TypeSubst *s, Size n) {
  if (!size_subst_type(tc, s, n, &n)) INTERNAL("substitution of a def's sizes produced a non-canonical size");
  return n;
}

DataType *dt_subst(TypeCtx *tc, const TypeSubst *s, DataType *t) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_SCALAR:
  case DT_META: return t;
  case DT_ARRAY: return dt_array(tc, size_subst_all(tc, s, t->size), dt_subst(tc, s, t->elem));
  /* the index is never one of s's names (a def's parameters, or an
   * enclosing dependent array's index, numbered higher) */
  case DT_DEPARRAY: return dt_deparray(tc, size_subst_all(tc, s, t->size), t->index, t->name, dt_subst(tc, s, t->elem));
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

/* ---- types in diagnostics (types.h) ---- */

void tn_init(TypeNamer *tn, Arena *a, const char *avoid, size_t avoid_len) {
  memset(tn, 0, sizeof *tn);
  tn->arena = a;
  tn->avoid = avoid;
  tn->avoid_len = avoid_len;
}

static bool ident_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '\'';
}

/* is name an identifier of the avoided text, or already given? */
static bool name_taken(const TypeNamer *tn, const char *name) {
  for (int i = 0; i < tn->size_names.len; i++)
    if (strcmp(tn->size_names.items[i], name) == 0) return true;
  for (int i = 0; i < tn->data_names.len; i++)
    if (strcmp(tn->data_names.items[i], name) == 0) return true;
  size_t n = strlen(name);
  for (size_t i = 0; tn->avoid && i + n <= tn->avoid_len; i++) {
    if (memcmp(tn->avoid + i, name, n) != 0) continue;
    bool before = i > 0 && ident_char(tn->avoid[i - 1]);
    bool after = i + n < tn->avoid_len && ident_char(tn->avoid[i + n]);
    if (!before && !after) return true;
  }
  return false;
}

static const char *fresh_name(TypeNamer *tn, const char *const *letters, int nletters, int *next) {
  for (;; (*next)++) {
    int round = *next / nletters;
    const char *name = round == 0 ? letters[*next % nletters]
                                  : arena_printf(tn->arena, "%s%d", letters[*next % nletters], round);
    if (!name_taken(tn, name)) {
      (*next)++;
      return name;
    }
  }
}

static const char *name_size_key(TypeNamer *tn, const char *key) {
  for (int i = 0; i < tn->size_keys.len; i++)
    if (strcmp(tn->size_keys.items[i], key) == 0) return tn->size_names.items[i];
  static const char *const letters[] = {"n", "m", "k", "p", "q", "r", "s", "t", "u", "v", "w"};
  const char *name = fresh_name(tn, letters, DPIA_COUNTOF(letters), &tn->next_size);
  vec_push(tn->arena, &tn->size_keys, arena_strndup(tn->arena, key, strlen(key)));
  vec_push(tn->arena, &tn->size_names, (void *)name);
  return name;
}

const char *tn_size_meta(TypeNamer *tn, Sym m) { return name_size_key(tn, m); }

/* text with every size metavariable ?n<k> renamed */
static void put_renamed(TypeNamer *tn, Buf *out, const char *text) {
  for (const char *p = text; *p;) {
    if (p[0] == '?' && p[1] == 'n') {
      const char *q = p + 2;
      while (*q >= '0' && *q <= '9') q++;
      buf_puts(out, name_size_key(tn, arena_strndup(tn->arena, p, (size_t)(q - p))));
      p = q;
    } else {
      buf_putc(out, *p++);
    }
  }
}

static void tn_put_size(TypeNamer *tn, Buf *out, Size s) {
  Buf b;
  buf_init(&b, tn->arena);
  size_print_in(&b, s, SIZE_SYNTAX_DPIA, SIZE_ALONE);
  put_renamed(tn, out, b.data);
}

const char *tn_size(TypeNamer *tn, Size s) {
  Buf b;
  buf_init(&b, tn->arena);
  tn_put_size(tn, &b, s);
  return b.data;
}

static const char *name_data_meta(TypeNamer *tn, const DataMeta *m) {
  for (int i = 0; i < tn->data_keys.len; i++)
    if (tn->data_keys.items[i] == m) return tn->data_names.items[i];
  static const char *const letters[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
  const char *name = fresh_name(tn, letters, DPIA_COUNTOF(letters), &tn->next_data);
  vec_push(tn->arena, &tn->data_keys, (void *)m);
  vec_push(tn->arena, &tn->data_names, (void *)name);
  return name;
}

static void tn_put_data(TypeNamer *tn, Buf *out, const DataType *t) {
  t = dt_resolve((DataType *)t);
  switch (t->kind) {
  case DT_SCALAR:
    buf_puts(out, scalar_name(t->scalar));
    if (t->width > 1) emit(out, "%d", t->width);
    return;
  case DT_ARRAY:
    buf_putc(out, '[');
    tn_put_size(tn, out, t->size);
    buf_putc(out, ']');
    tn_put_data(tn, out, t->elem);
    return;
  case DT_DEPARRAY: {
    buf_putc(out, '[');
    tn_put_size(tn, out, t->size);
    const char *shown;
    DataType *elem = dep_elem_as_written(tn->arena, t, &shown);
    emit(out, "](\\%s -> ", shown);
    tn_put_data(tn, out, elem);
    buf_putc(out, ')');
    return;
  }
  case DT_PAIR:
    buf_putc(out, '(');
    tn_put_data(tn, out, t->fst);
    buf_puts(out, ", ");
    tn_put_data(tn, out, t->snd);
    buf_putc(out, ')');
    return;
  case DT_IDX:
    buf_puts(out, "idx[");
    tn_put_size(tn, out, t->size);
    buf_putc(out, ']');
    return;
  case DT_VAR: buf_puts(out, t->name); return;
  case DT_META:
    /* a decimal literal nothing else fixes is a float (spec section 2) */
    buf_puts(out, t->meta->cls == MC_FLOATING ? "float" : name_data_meta(tn, t->meta));
    return;
  }
}

const char *tn_data(TypeNamer *tn, const DataType *t) {
  Buf b;
  buf_init(&b, tn->arena);
  tn_put_data(tn, &b, t);
  return b.data;
}

bool pt_is_imperative(const PhraseType *t) {
  switch (t->kind) {
  case PT_EXP: return false;
  case PT_ACC:
  case PT_COMM: return true;
  default: return pt_is_imperative(t->fst) || pt_is_imperative(t->snd);
  }
}

/* precedence: 0 arrow, 1 with, 2 atom; exp[d] printed as d unless keep_exp */
static void tn_put_phrase(TypeNamer *tn, Buf *out, const PhraseType *t, int prec, bool keep_exp) {
  switch (t->kind) {
  case PT_EXP:
    if (!keep_exp) {
      tn_put_data(tn, out, t->data);
      return;
    }
    buf_puts(out, "exp[");
    tn_put_data(tn, out, t->data);
    buf_putc(out, ']');
    return;
  case PT_ACC:
    buf_puts(out, "acc[");
    tn_put_data(tn, out, t->data);
    buf_putc(out, ']');
    return;
  case PT_COMM: buf_puts(out, "comm"); return;
  case PT_WITH:
    if (t->fst->kind == PT_ACC && t->snd->kind == PT_EXP && dt_equal(t->fst->data, t->snd->data)) {
      buf_puts(out, "var[");
      tn_put_data(tn, out, t->fst->data);
      buf_putc(out, ']');
      return;
    }
    if (prec > 1) buf_putc(out, '(');
    tn_put_phrase(tn, out, t->fst, 1, keep_exp);
    buf_puts(out, " & ");
    tn_put_phrase(tn, out, t->snd, 2, keep_exp);
    if (prec > 1) buf_putc(out, ')');
    return;
  case PT_FN:
  case PT_FN_P:
    if (prec > 0) buf_putc(out, '(');
    tn_put_phrase(tn, out, t->fst, 1, keep_exp);
    buf_puts(out, t->kind == PT_FN ? " -> " : " ->p ");
    tn_put_phrase(tn, out, t->snd, 0, keep_exp);
    if (prec > 0) buf_putc(out, ')');
    return;
  }
}

const char *tn_phrase(TypeNamer *tn, const PhraseType *t) {
  Buf b;
  buf_init(&b, tn->arena);
  tn_put_phrase(tn, &b, t, 0, pt_is_imperative(t));
  return b.data;
}

static bool size_has_meta(Size s) { return size_first_meta(s) != NULL; }

bool dt_has_unknowns(const DataType *t) {
  t = dt_resolve((DataType *)t);
  switch (t->kind) {
  case DT_META: return true;
  case DT_ARRAY:
  case DT_DEPARRAY: return size_has_meta(t->size) || dt_has_unknowns(t->elem);
  case DT_PAIR: return dt_has_unknowns(t->fst) || dt_has_unknowns(t->snd);
  case DT_IDX: return size_has_meta(t->size);
  default: return false;
  }
}

bool dt_holds_array(const DataType *t) {
  t = dt_resolve((DataType *)t);
  switch (t->kind) {
  case DT_ARRAY:
  case DT_DEPARRAY: return true;
  case DT_PAIR: return dt_holds_array(t->fst) || dt_holds_array(t->snd);
  default: return false;
  }
}

bool pt_has_unknowns(const PhraseType *t) {
  switch (t->kind) {
  case PT_EXP:
  case PT_ACC: return dt_has_unknowns(t->data);
  case PT_COMM: return false;
  default: return pt_has_unknowns(t->fst) || pt_has_unknowns(t->snd);
  }
}

/* unknown data types (not only unknown sizes: those print as letters) */
static bool has_data_unknowns(const DataType *t) {
  t = dt_resolve((DataType *)t);
  switch (t->kind) {
  case DT_META: return true;
  case DT_ARRAY:
  case DT_DEPARRAY: return has_data_unknowns(t->elem);
  case DT_PAIR: return has_data_unknowns(t->fst) || has_data_unknowns(t->snd);
  default: return false;
  }
}

/* "arrays", "pairs", "floats", "numbers"; NULL for an unknown type */
static const char *plural(TypeNamer *tn, const DataType *t) {
  t = dt_resolve((DataType *)t);
  switch (t->kind) {
  case DT_SCALAR: return arena_printf(tn->arena, "%ss", tn_data(tn, t));
  case DT_ARRAY:
  case DT_DEPARRAY: return "arrays";
  case DT_PAIR: return "pairs";
  case DT_IDX: return "indices";
  case DT_VAR: return arena_printf(tn->arena, "values of type %s", t->name);
  case DT_META: return t->meta->cls == MC_ANY ? NULL : "numbers";
  }
  return NULL;
}

const char *tn_describe_data(TypeNamer *tn, const DataType *t) {
  t = dt_resolve((DataType *)t);
  if (!has_data_unknowns(t)) return tn_data(tn, t);
  switch (t->kind) {
  case DT_META: return t->meta->cls == MC_ANY ? "a value" : "a number";
  case DT_ARRAY: {
    const char *of = plural(tn, t->elem);
    int64_t n;
    /* the size where it is a constant (an array literal's): "an array of 3 numbers" */
    if (of && size_const_value(t->size, &n)) return arena_printf(tn->arena, "an array of %lld %s", (long long)n, of);
    return of ? arena_printf(tn->arena, "an array of %s", of) : "an array";
  }
  case DT_PAIR: return "a pair";
  default: return tn_data(tn, t);
  }
}

const char *tn_describe_phrase(TypeNamer *tn, const PhraseType *t) {
  bool known = !pt_has_unknowns(t);
  switch (t->kind) {
  case PT_EXP: return tn_describe_data(tn, t->data);
  case PT_ACC: return known ? arena_printf(tn->arena, "an acceptor of type %s", tn_phrase(tn, t)) : "an acceptor";
  case PT_COMM: return "a command (comm)";
  case PT_WITH:
    if (t->fst->kind == PT_ACC && t->snd->kind == PT_EXP && dt_equal(t->fst->data, t->snd->data))
      return arena_printf(tn->arena, "a variable of type %s", tn_phrase(tn, t));
    return known ? arena_printf(tn->arena, "a phrase pair of type %s", tn_phrase(tn, t)) : "a phrase pair";
  case PT_FN:
  case PT_FN_P:
    return known ? arena_printf(tn->arena, "a function of type %s", tn_phrase(tn, t)) : "a function";
  }
  return tn_phrase(tn, t);
}
